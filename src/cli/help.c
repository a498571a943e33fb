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
    "(see --list-passes). GE IR output is not implemented yet: use --emit tf-pbtxt.\n"
    "\n"
    "Output:\n"
    "  -o, --output FILE           output file; default <model stem> plus the kind's extension\n"
    "                              (.air, .ge.pbtxt, .ge.json, .dot, .tf.pbtxt) in the working\n"
    "                              directory; only with a single --emit kind\n"
    "      --emit KIND[,KIND]      air (default), ge-pbtxt, ge-json, dot, tf-pbtxt (the TF graph\n"
    "                              after the pipeline). Only tf-pbtxt is implemented yet; the\n"
    "                              others fail with exit 1\n"
    "\n"
    "Model options:\n"
    "      --input-shape SPEC      \"name:d0,d1,...;name2:...\" (as ATC): the named nodes become\n"
    "                              Placeholders with that shape; what lies upstream is trimmed\n"
    "      --out-nodes SPEC        \"node:port;node:port\": keep only what these outputs need\n"
    "      --input-format FMT      NCHW, NHWC, ND, NCDHW or NDHWC (default NHWC); checked now,\n"
    "                              used once GE IR output is implemented\n"
    "      --tag TAG               SavedModel meta graph tag (default \"serve\")\n"
    "      --max-file-size SIZE    largest model file to read (default 4G; K, M, G suffixes)\n"
    "\n"
    "Rules (not implemented yet; these options fail with exit 1):\n"
    "  -r, --rules PATH            rule directory or file (repeatable)\n"
    "      --no-stdlib             do not load the built-in rules\n"
    "      --enable-scope-fusion-passes A,B   switch on opt-in scope fusion passes\n"
    "      --check                 precheck only: report unsupported nodes, write no model\n"
    "      --report FILE           JSON precheck report\n"
    "      --trace                 trace rule execution\n"
    "\n"
    "Pipeline and diagnostics:\n"
    "      --list-passes           print the passes in run order (group, phase) and exit\n"
    "      --disable-pass A,B      switch passes off ('load' and 'index' are required)\n"
    "      --time-passes           print a timing table of the passes to stderr\n"
    "      --dump-after PASS|all   write the TF graph (text) after PASS; a comma list is allowed\n"
    "      --dump-dir DIR          where --dump-after writes NN-<pass>.pbtxt (default tfxc-dump)\n"
    "  -v, --verbose               more messages (repeatable)\n"
    "  -q, --quiet                 print errors only\n"
    "  -h, --help                  this help\n"
    "      --version               print the version and exit\n"
    "\n"
    "Commands:\n"
    "  inspect MODEL               counts, producer version, op histogram and scope tree (--json)\n"
    "  fmt IN -o OUT               convert a GraphDef between binary and text\n"
    "  help [COMMAND]              help for a command\n"
    "  compile, disasm, test, explain, list-rules   not implemented yet (exit 1)\n"
    "\n"
    "Exit codes: 0 ok; 1 conversion failed, unsupported or not implemented; 2 usage error;\n"
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
    "\n"
    "Options:\n"
    "      --json                  one JSON object instead of text (shape in docs/CLI.md); always\n"
    "                              lists every scope, --depth does not apply\n"
    "      --depth N               show the scope tree down to depth N (root is 0; default 3;\n"
    "                              0 = unlimited)\n"
    "      --tag TAG               SavedModel meta graph tag (default \"serve\")\n"
    "      --input-shape SPEC      inspect the graph after --input-shape trimming (as in convert)\n"
    "      --out-nodes SPEC        inspect the graph after --out-nodes trimming (as in convert)\n"
    "      --max-file-size SIZE    largest model file to read (default 4G)\n"
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
    "  -v, --verbose               more messages\n"
    "  -q, --quiet                 print errors only\n"
    "  -h, --help                  this help\n",
    f);
}

typedef struct pending_cmd {
  const char *name;
  const char *usage;
} pending_cmd;

static const pending_cmd pending[] = {
  {"compile", "tfxc compile -r DIR [-o pack.tfxb]: compile rules into a bytecode pack"},
  {"disasm", "tfxc disasm FILE|DIR: disassemble compiled rules"},
  {"test", "tfxc test PATH... [--update]: run golden tests"},
  {"explain", "tfxc explain MODEL --scope S | --node N | --rule R: why a rule (did not) match"},
  {"list-rules", "tfxc list-rules: list the loaded rules"},
};

int tfx_cli_help_for(const char *cmd, FILE *f) {
  if (!cmd || strcmp(cmd, "convert") == 0) tfx_cli_help_main(f);
  else if (strcmp(cmd, "inspect") == 0) tfx_cli_help_inspect(f);
  else if (strcmp(cmd, "fmt") == 0) tfx_cli_help_fmt(f);
  else if (strcmp(cmd, "help") == 0) fputs("Usage: tfxc help [COMMAND]\n", f);
  else {
    for (size_t i = 0; i < sizeof pending / sizeof pending[0]; i++)
      if (strcmp(cmd, pending[i].name) == 0) {
        fprintf(f, "Usage: %s\n\nNot implemented yet (exit 1).\n", pending[i].usage);
        return 0;
      }
    return -1;
  }
  return 0;
}
