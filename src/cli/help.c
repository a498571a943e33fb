/* Help texts of every command.
 * Stage: cli. Kept in step with docs/CLI.md: tests/cli/help_docs.sh checks that every
 * --option printed here is documented there. */
#include <string.h>

#include "cli/cli.h"
#include "tfxc/tfxc.h"

void tfx_cli_help_main(FILE *f) {
  fputs(
    "Usage: tfxc [OPTIONS] MODEL       convert a TensorFlow model (the default command)\n"
    "       tfxc COMMAND [ARGS...]     run a command (below); 'tfxc help COMMAND' for its help\n"
    "\n"
    "MODEL is a binary or text GraphDef (.pb/.pbtxt, sniffed from the content), a MetaGraphDef\n"
    "or a SavedModel directory. The conversion runs the pass pipeline LOAD -> PRUNE -> ... -> EMIT\n"
    "(see --list-passes) and writes GE IR; the default output <stem>.air is a binary\n"
    "ge.proto.ModelDef for Ascend's ATC (framework 1; see the README).\n"
    "\n"
    "Output:\n"
    "  -o, --output FILE           output file ('-' = stdout); default <model stem> plus the\n"
    "                              kind's extension (.air, .ge.pbtxt, .ge.json, .dot, .tf.pbtxt)\n"
    "                              in the working directory. With several --emit kinds FILE is\n"
    "                              a stem: FILE.air, FILE.ge.pbtxt, ...\n"
    "                              One kind and a NAME without '.': NAME + its extension\n"
    "                              (as ATC's --output NAME writes NAME.om)\n"
    "      --emit KIND[,KIND]      air (default), ge-pbtxt (GE IR text), ge-json, dot (Graphviz),\n"
    "                              tf-pbtxt (the TF graph after scope fusion); one file each\n"
    "      --passthrough-unknown   keep ops with no op map and no CANN prototype under their TF\n"
    "                              type (warned, and marked in the report) instead of failing\n"
    "      --allow-dangling-inputs drop a data input that scope fusion left without a producer\n"
    "                              (the result does not export it), warned, as ATC does,\n"
    "                              instead of failing\n"
    "\n"
    "Model options:\n"
    "      --model FILE            MODEL, as ATC spells it\n"
    "      --framework 3           ATC's option: TensorFlow, the only one (accepted, a note)\n"
    "      (ATC's underscores are accepted in every long option: --input_shape, --out_nodes)\n"
    "      --input-shape SPEC      \"name:d0,d1,...;name2:...\" (as ATC): the named nodes become\n"
    "                              Placeholders with that shape; what lies upstream is trimmed\n"
    "      --out-nodes SPEC        \"node:port;node:port\": keep only what these outputs need\n"
    "      --signature NAME        MetaGraphDef/SavedModel signature giving the inputs and\n"
    "                              outputs (default serving_default, or the only one)\n"
    "      --input-format FMT      NCHW, NHWC, ND, NCDHW or NDHWC: layout of 4-D/5-D Data\n"
    "                              nodes (default: their consumers' data_format, else ND)\n"
    "      --tag TAG               SavedModel meta graph tag (default \"serve\")\n"
    "      --checkpoint PREFIX     weights for the variables (PREFIX.index + PREFIX.data-*); a\n"
    "                              SavedModel reads variables/ and a .meta its checkpoint itself\n"
    "      --no-freeze             keep variables as they are (no weights are read)\n"
    "      --max-file-size SIZE    largest model file to read (default 4G; K, M, G suffixes)\n"
    "  -j, --jobs N                threads unpacking a binary GraphDef (or .meta, or a\n"
    "                              SavedModel of one meta graph) of 1 MiB and more: 0 =\n"
    "                              automatic (default: 2 with several processors, else 1),\n"
    "                              1 = none, at most 64; 2 or more also builds the scope tree\n"
    "                              beside the graph index, gives back the model's unused pages\n"
    "                              beside op mapping and lowering, and writes the streamed\n"
    "                              .air by a thread of its own; the output is the same for\n"
    "                              every N\n"
    "\n",
    f);
  fputs("Limits (an input over one is exit 3, a rule file exit 4, an output or a rule run exit 1):\n", f);
  tfx_cli_help_limits(f);
  fputs(
    "\n"
    "Rules:\n"
    "  -r, --rules PATH            rule directory (searched recursively), rule file (.scoperule,\n"
    "                              .opmap), CANN prototype file (.cannops.tsv, for custom ops),\n"
    "                              TF op definitions (.tfops.tsv, for custom TF ops)\n"
    "                              or compiled pack (.tfxb, then the only -r but prototype\n"
    "                              files); repeatable. Loaded in command-line order, then the\n"
    "                              stdlib; the first rule (prototype) registered under a name wins\n"
    "      --no-stdlib             do not load the built-in rules\n"
    "  -W NAME, -Wno-NAME          turn a rule warning on/off (unused-binding, shadow,\n"
    "                              invalid-result, override, unknown-op, unknown-tf-op,\n"
    "                              unknown-tf-attr); -Wall; -Werror makes\n"
    "                              rule warnings errors (-Werror=NAME one of them)\n"
    "      --enable-scope-fusion-passes A,B   switch on opt-in scope fusion passes (unknown\n"
    "                              names are exit 2)\n"
    "      --vm-budget N           steps per rule VM run (default 1000000)\n"
    "      --trace                 print every executed rule instruction with its rule source\n"
    "                              line on stderr, and the values of the registers it reads\n"
    "      --check                 precheck only: map every node, write no model, print the\n"
    "                              report (ATC check_result.json fields) to stdout or --report;\n"
    "                              exit 1 when a node is unsupported\n"
    "      --report FILE           write a JSON report (precheck per node: result, cause, rule;\n"
    "                              scope fusion: passes, matches, results) after the run, also\n"
    "                              after a failed one\n"
    "\n"    "Pipeline and diagnostics:\n"
    "      --list-passes           print the passes in run order (group, phase) and exit\n"
    "      --disable-pass A,B      switch passes off ('load' and 'index' are required); scope\n"
    "                              fusion passes of the rules are accepted too\n"
    "      --time-passes           print a timing table of the passes to stderr\n"
    "                              (a run past 2 s shows a progress line when stderr is a\n"
    "                              terminal; -q hides it)\n"
    "      --dump-after PASS|all   write the TF graph (text) after PASS; a comma list is allowed\n"
    "      --dump-dir DIR          where --dump-after writes NN-<pass>.pbtxt (default tfxc-dump)\n"
    "  -v, --verbose               more messages (repeatable); reports every rule override\n"
    "  -q, --quiet                 print errors only\n"
    "  -h, --help                  this help\n"
    "      --version               print the version and exit\n"
    "\n"
    "Commands:\n"
    "  inspect MODEL               counts, producer version, op histogram and scope tree (--json)\n"
    "  fmt IN -o OUT               convert a GraphDef between binary and text\n"
    "  compile -r PATH... [-o F]   compile rules into a bytecode pack (default rules.tfxb)\n"
    "  disasm PATH...              disassemble a pack, or rule sources compiled on the fly\n"
    "  list-rules [-r PATH]...     list the rules a conversion would load (--json)\n"
    "  test PATH... [--update]     run golden test cases\n"
    "  help [COMMAND]              help for a command\n"
    "  explain MODEL --scope S     why scope S (did not) match each pattern; --rule P: what\n"
    "                              scope pass P matched and produced\n"
    "\n"
    "Exit codes: 0 ok; 1 conversion failed or unsupported ops; 2 usage error;\n"
    "3 unreadable or malformed input (including names in --input-shape/--out-nodes that are not\n"
    "in the graph) or an output that cannot be written; 4 rule errors. Outputs are written to a\n"
    "temporary file and renamed, so a failed run leaves no partial file. See docs/CLI.md.\n",
    f);
}

void tfx_cli_help_inspect(FILE *f) {
  fputs(
    "Usage: tfxc inspect [OPTIONS] MODEL\n"
    "\n"
    "Prints a summary of MODEL on stdout: top-level node count, function count, producer version\n"
    "(GraphDef.versions.producer and the legacy GraphDef.version), the op-type histogram (by count,\n"
    "then name) and the scope tree of the main graph.\n"
    "A checkpoint PREFIX (PREFIX.index + PREFIX.data-*, no graph) lists its tensors instead: name,\n"
    "dtype, shape and bytes, after reading and checking every one (docs/CHECKPOINTS.md).\n"
    "\n"
    "Options:\n"
    "      --json                  one JSON object instead of text (shape in docs/CLI.md); always\n"
    "                              lists every scope, --depth does not apply\n"
    "      --values                with --json and a checkpoint: each tensor's bytes in hex\n"
    "      --depth N               show the scope tree down to depth N (root is 0; default 3;\n"
    "                              0 = unlimited)\n"
    "      --tag TAG               SavedModel meta graph tag (default \"serve\")\n"
    "      --input-shape SPEC      inspect the graph after --input-shape trimming (as in convert)\n"
    "      --out-nodes SPEC        inspect the graph after --out-nodes trimming (as in convert)\n"
    "      --max-file-size SIZE    largest model file to read (default 4G)\n"
    "      --limit NAME=N[,...]    resource limits, as for the conversion (tfxc --help)\n"
    "  -v, --verbose               more messages\n"
    "  -q, --quiet                 print errors only\n"
    "  -h, --help                  this help\n",
    f);
}

void tfx_cli_help_fmt(FILE *f) {
  fputs(
    "Usage: tfxc fmt [OPTIONS] IN -o OUT\n"
    "\n"
    "Writes the GraphDef of IN (any model the loader accepts: binary or text GraphDef,\n"
    "MetaGraphDef, SavedModel) to OUT in binary or text protobuf format. The format is taken from\n"
    "--to, else from OUT's extension: .pb = binary, .pbtxt or .txt = text. OUT '-' writes to stdout\n"
    "and needs --to. OUT is written atomically.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT            output file (required)\n"
    "      --to pb|pbtxt           output format (overrides the extension)\n"
    "      --tag TAG               SavedModel meta graph tag (default \"serve\")\n"
    "      --max-file-size SIZE    largest model file to read (default 4G)\n"
    "      --limit NAME=N[,...]    resource limits, as for the conversion (tfxc --help)\n"
    "  -v, --verbose               more messages\n"
    "  -q, --quiet                 print errors only\n"
    "  -h, --help                  this help\n",
    f);
}

void tfx_cli_help_compile(FILE *f) {
  fputs(
    "Usage: tfxc compile [-r PATH]... [PATH...] [-o FILE] [--no-stdlib] [-W...]\n"
    "\n"
    "Loads the rules (the -r paths, and bare PATHs, in command-line order: directories\n"
    "recursively with their files in byte order of their paths, .scoperule and .opmap files),\n"
    "then the stdlib, checks them and compiles them into one verified bytecode pack. Every\n"
    "error of every file is printed (file:line:col, the line and a caret); rule errors are\n"
    "exit 4 and write nothing. The same rules give a byte-identical pack, and 'tfxc -r\n"
    "FILE.tfxb' converts exactly as 'tfxc -r PATH' does. CANN prototype files (.cannops.tsv)\n"
    "check the rules but are not stored: convert with 'tfxc -r FILE.tfxb -r X.cannops.tsv'.\n"
    "Nothing is printed on success.\n"
    "\n"
    "Options:\n"
    "  -r, --rules PATH            rule directory or file (repeatable), or one pack (.tfxb)\n"
    "  -o, --output FILE           the pack (default rules.tfxb; '-' = stdout); written atomically\n"
    "      --no-stdlib             do not include the built-in rules\n"
    "  -W NAME, -Wno-NAME          rule warnings on/off; -Wall; -Werror, -Werror=NAME\n"
    "      --limit rule-depth=N    nesting limit of the rules (default 256, at most 1024)\n"
    "      --limit output-size=SIZE  largest pack written (default 16G; K, M, G suffixes)\n"
    "  -v, --verbose               report rule overrides and the pack written\n"
    "  -q, --quiet                 print errors only\n"
    "  -h, --help                  this help\n",
    f);
}

void tfx_cli_help_disasm(FILE *f) {
  fputs(
    "Usage: tfxc disasm PATH...\n"
    "\n"
    "Prints a bytecode pack in readable form on stdout: the rule table and pass structure,\n"
    "constants, features and every program's instructions with their rule source file:line.\n"
    "PATH is one pack (.tfxb, loaded with the verifier: a corrupt pack is exit 3), or rule\n"
    "files and directories, compiled on the fly on their own (without the stdlib; rule errors\n"
    "are exit 4).\n"
    "\n"
    "Options:\n"
    "  -W NAME, -Wno-NAME          rule warnings on/off when compiling sources\n"
    "      --limit rule-depth=N    nesting limit of the rules (default 256, at most 1024)\n"
    "  -v, --verbose               more messages\n"
    "  -q, --quiet                 print errors only\n"
    "  -h, --help                  this help\n",
    f);
}

void tfx_cli_help_explain(FILE *f) {
  fputs(
    "Usage: tfxc explain MODEL (--scope NAME | --rule PASS) [--function NAME] [OPTIONS]\n"
    "\n"
    "Runs the conversion through scope fusion and explains it, on stdout.\n"
    "--scope NAME: for every scope pass (disabled ones say so) and every pattern, whether the\n"
    "scope matched (evaluated with the sub_types that pattern saw) and, if not, the first\n"
    "failing feature with its expected and found values and its rule source line; then the\n"
    "results of the pass that hold the scope. --rule PASS: the scopes each layer of the pass\n"
    "matched, its require verdict, sub_type changes, results with their index maps, and its\n"
    "entries in the final result map. Scope fusion also runs on every library function body\n"
    "(each with its own scope tree): --scope names a scope of the main graph, or of function\n"
    "NAME with --function NAME. On a model with library functions, --rule prints a heading\n"
    "per graph where the pass matched or changed anything ('graph <main>', then 'function\n"
    "NAME' in library order) and one line 'nothing matched in N graphs: ...' for the rest;\n"
    "--function NAME reports that function only.\n"
    "When a pattern matched but the pass's where (or require) rejected the scope, --scope\n"
    "names the failing sub-condition (file:line:col, its text) and the values it compared.\n"
    "\n"
    "Options:\n"
    "      --scope NAME            a scope name (the trailing '/' may be left out)\n"
    "      --rule PASS             a scope pass name\n"
    "      --function NAME         a library function: --scope is one of its scopes; --rule\n"
    "                              reports on it only (default: the main graph / every graph)\n"
    "      --pass A,B              --scope explains only these passes (so a golden\n"
    "                              expected.explain does not change when other rules do)\n"
    "      --node NODE             with --rule REWRITE: run the dataflow rewrite at NODE and\n"
    "                              print its nearest partial match (the first failing test)\n"
    "  -r, --rules PATH            rule directory or file (repeatable), or one pack (.tfxb)\n"
    "      --no-stdlib             do not load the built-in rules\n"
    "  -W NAME, -Wno-NAME          rule warnings on/off\n"
    "      --enable-scope-fusion-passes A,B   switch on opt-in scope passes\n"
    "      --disable-pass A,B      switch scope passes off\n"
    "      --vm-budget N           steps per rule VM run (default 1000000)\n"
    "      --input-shape SPEC, --out-nodes SPEC, --tag TAG, --max-file-size SIZE,\n"
    "      --limit NAME=N[,...]    as for the conversion\n"
    "  -v, --verbose               more messages\n"
    "  -q, --quiet                 print errors only\n"
    "  -h, --help                  this help\n"
    "\n"
    "Exit codes: 0 ok; 2 no or both of --scope/--rule, an unknown scope, pass or function;\n"
    "else as for the conversion.\n",
    f);
}

void tfx_cli_help_list_rules(FILE *f) {
  fputs(
    "Usage: tfxc list-rules [-r PATH]... [PATH...] [--no-stdlib] [--json]\n"
    "\n"
    "Lists the rules a conversion with the same -r/--no-stdlib would use, one entry per rule in\n"
    "registration order (scope passes, then op maps): name, kind (scope or map), general (scope\n"
    "passes), source (file:line), from (the TF types of a map) and to (its CANN type, or the\n"
    "inner node types of a graph map). Overridden rules are not listed (-v reports them).\n"
    "\n"
    "Options:\n"
    "  -r, --rules PATH            rule directory or file (repeatable), or one pack (.tfxb)\n"
    "      --no-stdlib             do not load the built-in rules\n"
    "      --json                  a JSON array of objects instead of the table\n"
    "  -W NAME, -Wno-NAME          rule warnings on/off\n"
    "      --limit rule-depth=N    nesting limit of the rules (default 256, at most 1024)\n"
    "  -v, --verbose               report rule overrides\n"
    "  -q, --quiet                 print errors only\n"
    "  -h, --help                  this help\n",
    f);
}

void tfx_cli_help_test(FILE *f) {
  fputs(
    "Usage: tfxc test PATH... [--update]\n"
    "\n"
    "Runs golden test cases. A case is a directory with model.pbtxt (or model.pb), optional\n"
    "rules/ (passed as -r rules), optional args (extra arguments; '#' starts a comment) and\n"
    "expectations: expected.exit (default 0), expected.stderr, expected.tf.pbtxt (the graph\n"
    "after fusion). PATH is a case or a directory searched recursively for cases. Each case runs\n"
    "'tfxc MODEL --emit tf-pbtxt -o TMP [-r rules] ARGS...' in the case directory; TMP's\n"
    "directory appears as <tmp> in stderr. A case with an explain file (explain options, e.g.\n"
    "--scope NAME) also runs 'tfxc explain MODEL [-r rules] ARGS... OPTIONS' (must exit 0) and\n"
    "compares its stdout with expected.explain. One line per case (PASS, FAIL with a diff,\n"
    "UPDATED), then 'N passed, N failed'. Exit 0 if all passed, 1 if any failed. A case with\n"
    "no expectation file at all fails ('nothing to compare'; --update creates them). Put\n"
    "--pass A,B in the explain file to limit expected.explain to the passes under test.\n"
    "\n"
    "Options:\n"
    "      --update                rewrite the expectations from the actual results (creates\n"
    "                              expected.tf.pbtxt, or expected.stderr and expected.exit for a\n"
    "                              failing run, and expected.explain, when missing); the\n"
    "                              changed files of a case are written all or nothing\n"
    "      --limit output-size=SIZE  largest expectation file --update writes (default 16G;\n"
    "                              K, M, G suffixes); other limit names are accepted and ignored\n"
    "                              (a case's own limits go in its args file)\n"
    "  -v, --verbose               show the notes of passing cases too\n"
    "  -q, --quiet                 print errors only\n"
    "  -h, --help                  this help\n",
    f);
}

typedef struct pending_cmd {
  const char *name;
  const char *usage;
} pending_cmd;

static const pending_cmd pending[] = {
  {NULL, NULL},
};

int tfx_cli_help_for(const char *cmd, FILE *f) {
  if (!cmd || strcmp(cmd, "convert") == 0) tfx_cli_help_main(f);
  else if (strcmp(cmd, "inspect") == 0) tfx_cli_help_inspect(f);
  else if (strcmp(cmd, "fmt") == 0) tfx_cli_help_fmt(f);
  else if (strcmp(cmd, "compile") == 0) tfx_cli_help_compile(f);
  else if (strcmp(cmd, "disasm") == 0) tfx_cli_help_disasm(f);
  else if (strcmp(cmd, "list-rules") == 0) tfx_cli_help_list_rules(f);
  else if (strcmp(cmd, "test") == 0) tfx_cli_help_test(f);
  else if (strcmp(cmd, "explain") == 0) tfx_cli_help_explain(f);
  else if (strcmp(cmd, "help") == 0) fputs("Usage: tfxc help [COMMAND]\n", f);
  else {
    for (size_t i = 0; i < sizeof pending / sizeof pending[0]; i++)
      if (pending[i].name && strcmp(cmd, pending[i].name) == 0) {
        fprintf(f, "Usage: %s\n\nNot implemented yet (exit 1).\n", pending[i].usage);
        return 0;
      }
    return -1;
  }
  return 0;
}
