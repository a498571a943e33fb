/* tfxc public API: convert TensorFlow models to Ascend GE IR from a program.
 *
 * The library (libtfxc, `#include <tfxc/tfxc.h>`, pkg-config tfxc, CMake find_package(tfxc))
 * is built around an opaque session, in the manner of sqlite3.h and lua.h:
 *
 *   tfxc_session *s;
 *   if (tfxc_open(&s) != TFXC_OK) ...;                 only out of memory fails
 *   tfxc_set_option(s, "input-shape", "x:1,224,224,3"); the convert command's options
 *   tfxc_add_rules_path(s, "my_rules/");               rules (the stdlib is added unless
 *   tfxc_load_model_path(s, "model.pb");                 "no-stdlib" is set)
 *   tfxc_run(s, NULL);                                 the pipeline, through lowering
 *   tfxc_emit(s, "air", &data, &len);                  any output kind into memory
 *   tfxc_free(data);
 *   tfxc_close(s);
 *
 * Every function returns a tfxc_status; messages go to the diagnostics handler
 * (tfxc_set_diagnostic_handler) and the last error's text is kept (tfxc_errmsg). The library
 * never prints, never exits and keeps no process-wide mutable state: sessions are independent
 * and may be used from different threads at the same time (one session is used by one thread
 * at a time). Outputs are byte-identical to the `tfxc` command's for the same model and
 * options. Each function is documented, with an example, in docs/API.md. */
#ifndef TFXC_TFXC_H
#define TFXC_TFXC_H

#include <stddef.h>

#define TFXC_VERSION "0.1.0"
#define TFXC_VERSION_NUMBER 1000 /* major * 1000000 + minor * 1000 + patch */

/* Process exit codes of the command line; documented in docs/CLI.md. */
enum tfx_exit {
  TFX_EXIT_OK = 0,      /* success */
  TFX_EXIT_FAIL = 1,    /* conversion failed, unsupported ops, test failures */
  TFX_EXIT_USAGE = 2,   /* bad command line */
  TFX_EXIT_INPUT = 3,   /* unreadable or malformed input (model, text format, I/O) */
  TFX_EXIT_RULES = 4    /* rule compile errors */
};

#ifdef __cplusplus
extern "C" {
#endif

#if defined(TFXC_BUILDING_LIBRARY) && defined(__GNUC__)
#define TFXC_API __attribute__((visibility("default")))
#else
#define TFXC_API
#endif
#if defined(__GNUC__)
#define TFXC_MUST_CHECK __attribute__((warn_unused_result))
#else
#define TFXC_MUST_CHECK
#endif

/* The result of every API call. */
typedef enum tfxc_status {
  TFXC_OK = 0,        /* success */
  TFXC_FAILED = 1,    /* the conversion failed: unsupported ops, a failed --check, a pass error */
  TFXC_MISUSE = 2,    /* a bad argument, option name or value, or call order */
  TFXC_INPUT = 3,     /* unreadable or malformed input (model, file, I/O error) */
  TFXC_RULES = 4,     /* rule compile errors */
  TFXC_NOMEM = 5      /* out of memory */
} tfxc_status;

typedef enum tfxc_severity {
  TFXC_SEV_ERROR = 0,
  TFXC_SEV_WARNING = 1,
  TFXC_SEV_NOTE = 2
} tfxc_severity;

/* One diagnostic. Strings are valid during the handler call only. */
typedef struct tfxc_diagnostic {
  tfxc_severity severity;
  const char *file;      /* model, rule or output file; NULL when none */
  unsigned line, column; /* 1-based; 0 = unknown */
  const char *message;
  const char *rule;      /* the rule source line the message points at, or NULL */
  unsigned span;         /* columns the caret under rule covers (>= 1 when column is known) */
} tfxc_diagnostic;

typedef void (*tfxc_diagnostic_fn)(void *user, const tfxc_diagnostic *diag);

typedef struct tfxc_session tfxc_session;

/* "0.1.0" (TFXC_VERSION of the library actually linked). */
TFXC_API const char *tfxc_version(void);
/* "ok", "failed", "misuse", "input", "rules", "nomem"; "unknown" for other values. */
TFXC_API const char *tfxc_status_name(tfxc_status st);
/* The exit code the command line gives for st (docs/CLI.md); out of memory is 1. */
TFXC_API int tfxc_status_exit_code(tfxc_status st);

/* A new session in *out (NULL on failure). Returns TFXC_OK or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_open(tfxc_session **out) TFXC_MUST_CHECK;
/* Frees the session and everything it owns. NULL is fine. */
TFXC_API void tfxc_close(tfxc_session *s);
/* Frees a buffer returned by tfxc_emit, tfxc_output_name, tfxc_report_json or tfxc_explain*. */
TFXC_API void tfxc_free(void *p);

/* Receives every diagnostic from now on, when the call that produced it returns (in order).
 * fn NULL: none are delivered (tfxc_errmsg still works). */
TFXC_API void tfxc_set_diagnostic_handler(tfxc_session *s, tfxc_diagnostic_fn fn, void *user);
/* The message of the last error ("file:line:col: message" when located), or "" when the last
 * failing call reported none. Valid until the next call on s. */
TFXC_API const char *tfxc_errmsg(const tfxc_session *s);

/* Sets a conversion option: the convert command's long option name without "--" and its
 * value as on the command line ("1" for flags). Names: tag, input-shape, out-nodes,
 * input-format, emit, disable-pass, enable-scope-fusion-passes, vm-budget,
 * passthrough-unknown, check, no-stdlib, max-file-size, limit (repeatable, NAME=N), W
 * (repeatable, a warning option without "-W", e.g. "error"), verbose, usage-command (a
 * command name, e.g. "tfxc explain": tfxc_explain_scope / tfxc_explain_rule then report a
 * wrong name or list as "CMD: message" with a note "run 'CMD --help' for usage", as the
 * command line does; unset, the message alone), signature, checkpoint, no-freeze,
 * allow-dangling-inputs, write-outputs (a flag: tfxc_run also writes the "emit" kinds to
 * files, as the command does, see tfxc_run), output (the command's -o FILE: the file, or with
 * several kinds the stem, of the written outputs; "-" is standard output), dump-after (PASS
 * list or "all": the TF graph is written as text after those passes), dump-dir (where,
 * default "tfxc-dump") and no-report (a flag, what the command sets without --report or
 * --check: nothing will ask about the run afterwards, so the run releases what only that
 * would read as soon as no pass needs it, the dataflow report before op mapping, the scope
 * fusion report and the graph's node-name map before lowering, the peak memory; after a run
 * that reached op mapping tfxc_report_json and tfxc_explain then fail, saying the run kept no
 * report; ignored with check), jobs (threads unpacking a big binary GraphDef: 0 = automatic,
 * the default, to 64; the model is the same for every value). Values are copied and
 * checked here as the command line checks them. Options apply to the next tfxc_run.
 * Returns TFXC_OK, TFXC_MISUSE (unknown name, bad value) or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_set_option(tfxc_session *s, const char *name, const char *value)
    TFXC_MUST_CHECK;

/* Adds a rule source, in order, like -r PATH: a rule directory, a .scoperule/.opmap file, a
 * CANN prototype file (.cannops.tsv) or one compiled pack (.tfxb). Checked at tfxc_run.
 * Returns TFXC_OK, TFXC_MISUSE (NULL) or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_add_rules_path(tfxc_session *s, const char *path) TFXC_MUST_CHECK;
/* Adds rules held in memory (copied): rule text whose kind the name's extension gives
 * ("mine.scoperule", "mine.opmap"), or a compiled pack (bytes starting "TFXB"), which must
 * then be the only rule source besides prototype files. name is used in diagnostics.
 * Returns TFXC_OK, TFXC_MISUSE (bad name or a second pack) or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_add_rules_buffer(tfxc_session *s, const char *name, const void *data,
                                           size_t len) TFXC_MUST_CHECK;

/* Names the model to convert: a GraphDef (.pb/.pbtxt), MetaGraphDef or SavedModel directory.
 * It is read by tfxc_run. Returns TFXC_OK, TFXC_MISUSE or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_load_model_path(tfxc_session *s, const char *path) TFXC_MUST_CHECK;
/* The same for a model in memory (copied): a serialized GraphDef, MetaGraphDef or SavedModel,
 * binary or text format (e.g. Python's graph_def.SerializeToString()). name stands for the
 * model path: it appears in messages and names the graph as the command line's model path
 * would ("net.pb" converts like `tfxc net.pb`). Returns TFXC_OK, TFXC_MISUSE or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_load_model_buffer(tfxc_session *s, const char *name, const void *data,
                                            size_t len) TFXC_MUST_CHECK;

/* Runs the pipeline on the model: every pass up to and including the pass named last (see
 * `tfxc --list-passes`), or through "lowering" when last is NULL (with the "check" option:
 * the precheck: unsupported ops fail, reported grouped by type as the command reports them).
 * Outputs are not written; take them with tfxc_emit / tfxc_emit_file, unless the option
 * write-outputs is set (and neither check nor last): then the run goes on through the
 * command's EMIT passes and writes each "emit" kind to its file (tfxc_output_name), all or
 * nothing, byte-identical to the command's. When "air" is the only GE kind asked for, the
 * lowering then streams the .air op by op into the file's bytes without building the whole
 * GE model (so tfxc_emit has no GE model to serialize after such a run). Each run starts from
 * the model again and records every diagnostic it makes. Returns TFXC_OK,
 * TFXC_FAILED, TFXC_MISUSE (no model, unknown pass name), TFXC_INPUT, TFXC_RULES or
 * TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_run(tfxc_session *s, const char *last) TFXC_MUST_CHECK;

/* What the last run did, for a caller that reports on it as the command does. */
typedef struct tfxc_run_info {
  int ran;                /* a run happened (since the model was named) */
  tfxc_status status;     /* what tfxc_run returned */
  int exit_code;          /* the command's exit code for it */
  int mapped;             /* the op mapping ran: the report holds the precheck */
  int fused;              /* scope fusion ran: the report holds its report (0 when the run
                             released it: option no-report) */
  int wrote;              /* the outputs were written (write-outputs) */
  unsigned long nodes_failed; /* nodes the op mapping could not convert */
  /* A run hands the diagnostic handler its first 1000 diagnostics; errors and warnings past
   * those are only counted here (a model can make one per node). */
  unsigned long errors_not_reported, warnings_not_reported;
} tfxc_run_info;
/* Fills *info (all zero before the first run). Returns TFXC_OK or TFXC_MISUSE (NULL). */
TFXC_API tfxc_status tfxc_last_run(tfxc_session *s, tfxc_run_info *info) TFXC_MUST_CHECK;

/* The passes a run would run, with the options as they are now (disable-pass applied): the
 * table `tfxc --list-passes` prints (position, group, phase, name, "(disabled)"). Checks the
 * options disable-pass and dump-after as tfxc_run does; the last run is left alone.
 * NUL-terminated; free with tfxc_free. Returns TFXC_OK, TFXC_MISUSE (an unknown or required
 * pass name) or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_list_passes(tfxc_session *s, char **text, size_t *len)
    TFXC_MUST_CHECK;
/* The wall-clock time of each pass of the last run (monotonic clock): the table
 * `tfxc --time-passes` prints (group, phase, pass, ms, %, "(failed)"; a total line).
 * NUL-terminated; free with tfxc_free. Returns TFXC_OK, TFXC_MISUSE (no run yet) or
 * TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_pass_timing(tfxc_session *s, char **text, size_t *len)
    TFXC_MUST_CHECK;

/* Receives the VM's trace lines (the command's --trace: one line per instruction of the rule
 * programs a run executes, without a newline), during tfxc_run; fn NULL (the default): no
 * trace. It must not call into s. */
typedef void (*tfxc_trace_fn)(void *user, const char *line);
TFXC_API void tfxc_set_trace_handler(tfxc_session *s, tfxc_trace_fn fn, void *user);

/* Where a run is, for a progress display (tfxc_set_progress_handler). */
typedef struct tfxc_progress {
  const char *pass;               /* the pass starting or running; NULL: the run is over */
  unsigned pos, n_passes;         /* its 1-based position among the passes this run starts */
  unsigned long long nodes;       /* nodes of the main graph (0 before it is loaded) */
  const char *unit;               /* within a pass: what a node loop counts ("nodes"), else */
  unsigned long long done, total; /*   NULL; done of total so far */
} tfxc_progress;
typedef void (*tfxc_progress_fn)(void *user, const tfxc_progress *progress);
/* Installs fn (NULL: none, the default) to be called during tfxc_run: before each pass (unit
 * NULL), from the long node loops of a pass (unit set; often, so a display should pace
 * itself), and once when the run is over (pass NULL). It must not call into s; it never
 * changes the run. */
TFXC_API void tfxc_set_progress_handler(tfxc_session *s, tfxc_progress_fn fn, void *user);

/* The output kinds, one row each: X(ID, name, file suffix, what). The one table of them:
 * the library's kind numbers, names and default file suffixes and the command line's --emit
 * all come from it. A caller may expand it too, e.g. to list the names:
 *   #define NAME(id, name, suffix, what) name,
 *   static const char *const kinds[] = {TFXC_EMIT_KINDS(NAME)};  */
#define TFXC_EMIT_KINDS(X)                                                               \
  X(AIR, "air", ".air", "binary GE IR ModelDef")                                         \
  X(GE_PBTXT, "ge-pbtxt", ".ge.pbtxt", "GE IR text")                                     \
  X(GE_JSON, "ge-json", ".ge.json", "GE IR JSON")                                        \
  X(DOT, "dot", ".dot", "Graphviz")                                                      \
  X(TF_PBTXT, "tf-pbtxt", ".tf.pbtxt", "the TF GraphDef after the pipeline, text format")

/* Serializes the result of the last run as kind ("air", "ge-pbtxt", "ge-json", "dot",
 * "tf-pbtxt") into a new buffer (*data, *len; free with tfxc_free). The GE kinds need a run
 * through "lowering"; "tf-pbtxt" is the TF graph as the passes that ran left it. Use the
 * "emit" option to name the kinds before the run as the command line's --emit does (asking for
 * a GE kind makes the op mapping fill TF default attributes, which tf-pbtxt then shows).
 * Returns TFXC_OK, TFXC_MISUSE (unknown kind, nothing to emit), TFXC_FAILED (the output-size
 * limit) or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_emit(tfxc_session *s, const char *kind, void **data, size_t *len)
    TFXC_MUST_CHECK;
/* The same, written to path atomically (a temporary file renamed over path; nothing is left
 * on failure). Returns as tfxc_emit, or TFXC_INPUT when the file cannot be written. */
TFXC_API tfxc_status tfxc_emit_file(tfxc_session *s, const char *kind, const char *path)
    TFXC_MUST_CHECK;
/* The output file name the command line uses for kind: the model's file name without
 * directories and its last extension, plus the kind's extension ("net.pb" -> "net.air"); with
 * the option output set, the name -o gives it among the "emit" kinds (the file itself for one
 * kind, else the stem plus the kind's extension; one kind and no '.' in the name: the
 * extension is added, with a note). The files a write-outputs run writes have these names.
 * Returns TFXC_OK, TFXC_MISUSE (no model, unknown kind) or TFXC_NOMEM; free with tfxc_free. */
TFXC_API tfxc_status tfxc_output_name(tfxc_session *s, const char *kind, char **name)
    TFXC_MUST_CHECK;

/* The report of the last run as JSON, the same text `tfxc --report FILE` writes (docs/CLI.md
 * "Report"): the exit code the command line would give, the precheck per node (when the op
 * mapping ran) and the scope fusion report. NUL-terminated; free with tfxc_free.
 * Returns TFXC_OK, TFXC_MISUSE (no run yet, or the run had the option no-report and reached
 * op mapping: it kept no report; the message says so) or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_report_json(tfxc_session *s, char **json, size_t *len)
    TFXC_MUST_CHECK;
/* Why a node of the last run was converted as it was: one JSON object (NUL-terminated, free
 * with tfxc_free) with its TF type, result, mapping ("rule", "graph", "auto", "passthrough",
 * "unsupported", "fused"), CANN type, the rule and its site, the cause of a failure, a hint,
 * and "fused_into" for nodes absorbed by scope fusion; the object of that node in the report's
 * "op" list. Needs a run through "op-mapping" without the option no-report. Returns TFXC_OK,
 * TFXC_MISUSE (no op mapping, no report kept, no such node) or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_explain(tfxc_session *s, const char *node, char **json, size_t *len)
    TFXC_MUST_CHECK;

/* Why scope fusion did or did not match a scope: the text `tfxc explain MODEL --scope SCOPE`
 * prints (docs/CLI.md "explain"): per pass and pattern "matched", or the first failing
 * feature with the values expected and found and its rule source line, the `where` /
 * `require` condition that rejected it, and the results holding the scope. function: a
 * library function's body instead of the main graph (NULL: the main graph); passes: a comma
 * list of the scope passes to look at (NULL: all). Runs the pipeline itself, through
 * "scope-fusion", with the session's model, rules and options (as the command, the
 * "disable-pass" option names rule passes only); the last run's results are left alone.
 * NUL-terminated text; free with tfxc_free. Returns TFXC_OK, TFXC_MISUSE (no model, no such
 * scope, function or pass), TFXC_INPUT, TFXC_RULES, TFXC_FAILED or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_explain_scope(tfxc_session *s, const char *scope, const char *function,
                                        const char *passes, char **text, size_t *len)
    TFXC_MUST_CHECK;
/* The text `tfxc explain MODEL --rule RULE [--node NODE]` prints: for a scope pass, its
 * fusion report (layers, require, sub_type changes, results, final map); for a dataflow
 * rewrite (node required), whether it matches at node or the nearest partial match, the test
 * that failed and what it found. function and the run as tfxc_explain_scope; node NULL for a
 * scope pass. Returns as tfxc_explain_scope. */
TFXC_API tfxc_status tfxc_explain_rule(tfxc_session *s, const char *rule, const char *function,
                                       const char *node, char **text, size_t *len)
    TFXC_MUST_CHECK;

#ifdef __cplusplus
}
#endif

#endif

/* ==== Tools: what the other tfxc commands do (compile, disasm, list-rules, fmt, inspect,
 * test), as data. They use the session's rule sources (tfxc_add_rules_path/_buffer, then the
 * stdlib unless "no-stdlib"), its model (tfxc_load_model_path/_buffer) and its options
 * ("W", "no-stdlib", "verbose", "limit", "tag", "max-file-size", "input-shape", "out-nodes");
 * results are new buffers (free with tfxc_free), NUL-terminated, byte-identical to what the
 * command prints or writes. Documented with an example in docs/API.md. */
#ifndef TFXC_TFXC_TOOLS_H
#define TFXC_TFXC_TOOLS_H

#ifdef __cplusplus
extern "C" {
#endif

/* What tfxc_compile_rules compiled. */
typedef struct tfxc_pack_info {
  unsigned rules;    /* rules in the pack */
  unsigned programs; /* bytecode programs */
  int has_protos;    /* CANN prototype files were among the rule sources: the rules were
                        checked against them, but a pack does not hold them */
} tfxc_pack_info;

/* Compiles the session's rule sources into one verified pack, the bytes `tfxc compile` writes
 * (a .tfxb; a pack given as the source is loaded, verified and written again). info may be
 * NULL. Returns TFXC_OK, TFXC_MISUSE, TFXC_INPUT (a missing source, a corrupt pack),
 * TFXC_RULES (rule errors) or TFXC_NOMEM (out of memory). */
TFXC_API tfxc_status tfxc_compile_rules(tfxc_session *s, void **pack, size_t *len,
                                        tfxc_pack_info *info) TFXC_MUST_CHECK;
/* The session's rules (a pack, or rule sources compiled) in readable form, the text of
 * `tfxc disasm`. Returns as tfxc_compile_rules. */
TFXC_API tfxc_status tfxc_disasm(tfxc_session *s, char **text, size_t *len) TFXC_MUST_CHECK;
/* One entry per rule of the session's rules, then the CANN prototypes of the user's prototype
 * files: the table of `tfxc list-rules`, or its JSON array when json is nonzero. Returns as
 * tfxc_compile_rules. */
TFXC_API tfxc_status tfxc_list_rules(tfxc_session *s, int json, char **text, size_t *len)
    TFXC_MUST_CHECK;

/* The session's model's GraphDef re-serialized, "pb" (binary) or "pbtxt" (text), as `tfxc fmt`
 * writes it; no graph validation. *nodes (may be NULL) gets its node count. Returns TFXC_OK,
 * TFXC_MISUSE (no model, bad to), TFXC_INPUT (unreadable or malformed model) or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_format_model(tfxc_session *s, const char *to, void **data, size_t *len,
                                       size_t *nodes) TFXC_MUST_CHECK;

#define TFXC_INSPECT_JSON 1u   /* one JSON object instead of text */
#define TFXC_INSPECT_VALUES 2u /* checkpoints, with JSON: every tensor's bytes in hex */
/* The summary `tfxc inspect MODEL` prints of the session's model: counts, producer, signatures,
 * op histogram and the scope tree down to depth (0: all; text only). Returns TFXC_OK,
 * TFXC_MISUSE (no model), TFXC_INPUT, TFXC_FAILED or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_inspect(tfxc_session *s, unsigned flags, unsigned depth, char **text,
                                  size_t *len) TFXC_MUST_CHECK;
/* 1 when path names a TensorFlow checkpoint (PREFIX.index exists and path itself does not, or
 * path ends in .index) rather than a model, else 0. */
TFXC_API int tfxc_is_checkpoint(const char *path);
/* The tensors of the checkpoint prefix (every one read and verified first), as `tfxc inspect
 * PREFIX` lists them. Returns TFXC_OK, TFXC_MISUSE, TFXC_INPUT (a damaged checkpoint) or
 * TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_inspect_checkpoint(tfxc_session *s, const char *prefix, unsigned flags,
                                             char **text, size_t *len) TFXC_MUST_CHECK;

/* Writes n files all or nothing (temporary files renamed into place; a failure leaves none of
 * them), each first checked against the "limit" option output-size. A path "-" is standard
 * output. Returns TFXC_OK, TFXC_MISUSE, TFXC_FAILED (over the output-size limit) or
 * TFXC_INPUT (cannot write) or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_write_files(tfxc_session *s, size_t n, const char *const *paths,
                                      const void *const *data, const size_t *lens)
    TFXC_MUST_CHECK;

/* Checks an option value as tfxc_set_option checks it, without a session: for a command line
 * that reports bad values before it does anything. name: W, vm-budget, jobs, max-file-size,
 * input-format, limit, input-shape, out-nodes (syntax only), disable-pass,
 * enable-scope-fusion-passes, pass (comma lists, not empty) or emit. Diagnostics go to fn (may
 * be NULL); with cmd (a command name such as "tfxc inspect") an error is the command line's
 * usage error, "CMD: message" plus a note "run 'CMD --help' for usage", else the message
 * alone. Returns TFXC_OK, TFXC_MISUSE (a bad value, a name it does not check) or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_check_option(const char *cmd, const char *name, const char *value,
                                       tfxc_diagnostic_fn fn, void *user) TFXC_MUST_CHECK;
/* Parses a number as the options do: size nonzero, a size in bytes with an optional binary
 * unit (4096, 64K, 512M, 4G; "Mi", "MB" also read); else a decimal integer up to 10^9.
 * Returns 0, or -1 when text is not one. */
TFXC_API int tfxc_parse_number(const char *text, int size, unsigned long long *out);

/* One limit of the "limit" option (docs/CLI.md "Limits"); the aliases file-size and vm-steps
 * are the options max-file-size and vm-budget. */
typedef struct tfxc_limit {
  const char *name;       /* "depth", "nodes", "output-size", ... */
  const char *what;       /* one line: what it bounds */
  unsigned long long def; /* its default */
  unsigned long long max; /* the largest value accepted */
  int is_size;            /* takes K, M, G units */
} tfxc_limit;
/* The i-th limit (0, 1, ... in the order of `tfxc --help`) in *out. Returns 0, or -1 past the
 * last one. */
TFXC_API int tfxc_limit_info(unsigned i, tfxc_limit *out);
/* The candidate closest to word when it is close enough to be a typo (the "did you mean" of
 * the library's messages), else NULL. */
TFXC_API const char *tfxc_closest(const char *word, const char *const *candidates, size_t n);

/* A unified diff (3 lines of context) of text a against text b, labelled label_a / label_b,
 * each line after indent spaces (at most 64), as `tfxc test` shows a failing case: "" when
 * the texts are equal; at most 200 diff lines; texts over 4000 lines only say where they
 * start to differ. Needs no session. Returns TFXC_OK, TFXC_MISUSE or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_diff(const char *a, size_t len_a, const char *b, size_t len_b,
                               const char *label_a, const char *label_b, unsigned indent,
                               char **text, size_t *len) TFXC_MUST_CHECK;

/* What the run of a `tfxc test` case produced (the command runs `tfxc MODEL --emit tf-pbtxt
 * [,ge-pbtxt] ...` in the case's directory, and `tfxc explain ...` for a case with an explain
 * file). Texts are borrowed; NULL with length 0 reads as empty. */
typedef struct tfxc_test_run {
  int exit_code;                    /* the conversion's: 0..255, 128 + signal */
  const char *err;                  /* its stderr, the temporary directory written as <tmp> */
  size_t err_len;
  const char *tf;                   /* the tf-pbtxt output; NULL when none was written */
  size_t tf_len;
  const char *ge;                   /* the ge-pbtxt output (a GE case); NULL when none */
  size_t ge_len;
  int explained;                    /* the case has an explain file and explain was run: */
  int explain_exit;                 /*   its exit code, */
  const char *explain_err;          /*   stderr */
  size_t explain_err_len;
  const char *explain;              /*   and stdout */
  size_t explain_len;
} tfxc_test_run;

typedef enum tfxc_test_result {
  TFXC_TEST_PASS = 0,
  TFXC_TEST_FAIL = 1,
  TFXC_TEST_UPDATED = 2 /* update: expectation files were rewritten */
} tfxc_test_result;

/* Compares run with the expectations in the case directory dir (expected.exit, default 0;
 * expected.stderr; expected.tf.pbtxt; expected.ge.pbtxt; expected.explain) as `tfxc test`
 * does, or with update nonzero rewrites those that differ from the run, all or nothing, each
 * within the "limit" option output-size. *result gets the outcome and *report (free with
 * tfxc_free) the lines `tfxc test` prints under the case, each indented by 4 (diffs made by
 * tfxc_diff); a failing case is TFXC_OK with *result TFXC_TEST_FAIL. Returns TFXC_OK,
 * TFXC_MISUSE or TFXC_NOMEM. */
TFXC_API tfxc_status tfxc_test_check(tfxc_session *s, const char *dir, const tfxc_test_run *run,
                                     int update, tfxc_test_result *result, char **report,
                                     size_t *len) TFXC_MUST_CHECK;

#ifdef __cplusplus
}
#endif

#endif
