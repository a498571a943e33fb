/* libtfxc internals shared by the files of src/api (not installed).
 * Stage: api. The session (session.c) drives the pass pipeline as the convert command does
 * (src/cli/cmd_convert.c); the pieces an embedder needs that the command holds today are
 * here as library functions: the --report JSON, the --disable-pass split, output naming and
 * the option values' checks. */
#ifndef TFX_API_API_INT_H
#define TFX_API_API_INT_H

#include <stddef.h>
#include <stdint.h>

#include "passes/passes.h"
#include "tfxc/tfxc.h"
#include "util/diag.h"
#include "util/limits.h"
#include "util/strbuf.h"

/* The one place where an internal function's result becomes a tfxc_status: a tfx_status, or
 * the process exit codes (tfx_exit, the same values 0..4) some library code still returns;
 * TFX_E_NOMEM is TFXC_NOMEM (api/status.h). */
tfxc_status tfx_api_status_from_rc(int rc);

/* Emit kinds by name, and the default file suffix of each ("air" -> ".air"). */
int tfx_api_emit_kind(const char *name);            /* tfx_emit_kind, or -1 */
const char *tfx_api_emit_name(int kind);
const char *tfx_api_emit_suffix(int kind);
/* Parses a comma list of kinds into a bit set. Returns 0, or -1 (reported, with the kinds
 * and a "did you mean"), or -2 (out of memory, reported). */
int tfx_api_parse_emit(const char *s, unsigned *mask, tfx_diag *d);

/* The output file of each kind in mask, named as the convert command names them: with no
 * output (-o), the model's file name without directories and last extension plus the kind's
 * suffix; with one kind, output itself, unless its last component has no '.' and it is not an
 * existing device, FIFO or directory (ATC's --output=NAME: the suffix is added, with a note);
 * with several kinds, output is a stem and each kind adds its suffix. paths[k] (malloc'ed) for
 * each kind in mask, NULL for the others. Returns 0 or -1 (out of memory, reported; paths
 * all NULL). */
int tfx_api_output_paths(const char *model, const char *output, unsigned mask,
                         char *paths[TFX_EMIT__COUNT], tfx_diag *d);
/* 1 when a single-output -o PATH gets the kind's suffix added (see tfx_api_output_paths). */
int tfx_api_output_wants_ext(const char *path);

/* Splits a --disable-pass list: names of pipeline passes (or close to one) go to *pipe, the
 * others (scope fusion passes of the rules) to *rules; both malloc'ed ("" when empty).
 * Returns 0 or -1 (out of memory). */
int tfx_api_split_disable(tfx_pipeline *p, const char *list, char **pipe, char **rules);

/* The --report JSON of a run (docs/CLI.md "Report") appended to sb: the exit code of run_rc,
 * a tfx_status (tfx_status_exit_code), the precheck members when the op mapping ran, the
 * scope fusion report (null when that pass did not run). Returns 0 or -1 (out of memory). */
int tfx_api_report_json(const tfx_ctx *ctx, const char *model, int run_rc, tfx_strbuf *sb);

/* The verdict of a --check run (the precheck) whose exit code so far is rc: the op mapping
 * must have run (else an error, naming a disabled 'op-mapping' pass) and mapped every node.
 * *n_failed gets the nodes that failed (0 when it did not run). Returns the exit code. */
int tfx_api_check_verdict(tfx_pipeline *p, const tfx_ctx *ctx, int rc, uint32_t *n_failed,
                          tfx_diag *d);

/* Option values (messages name the option as --NAME). Each returns 0, or -1 (reported). */
int tfx_api_parse_size(const char *s, size_t *out);          /* 4096, 64K, 512M, 4G */
int tfx_api_parse_uint(const char *s, unsigned *out);        /* decimal, < 2^31 */

/* The options the commands share (options.c): one parser and one message per option for
 * every command and tfxc_set_option. cmd: the command line's command ("tfxc explain"), to
 * which usage errors are attributed with a note pointing at its --help; NULL for the library.
 * Each returns 0, or -1 (a usage error, reported). */
/* -W VALUE: *opt gets "-WVALUE" (malloc'ed) when it is a warning option; -2: out of memory. */
int tfx_api_opt_warn(const char *value, const char *cmd, char **opt, tfx_diag *d);
int tfx_api_opt_vm_budget(const char *value, const char *cmd, uint64_t *out, tfx_diag *d);
int tfx_api_opt_max_file_size(const char *value, const char *cmd, size_t *out, tfx_diag *d);
/* --jobs N: 0 (automatic) to 64 (io.h, TFX_IO_JOBS_MAX). */
int tfx_api_opt_jobs(const char *value, const char *cmd, unsigned *out, tfx_diag *d);
int tfx_api_opt_input_format(const char *value, const char *cmd, tfx_diag *d);
/* --input-shape / --out-nodes (either NULL when not given): the syntax, before any model is
 * read. Returns 0, TFX_EXIT_USAGE, or another exit code when the check itself failed (out of
 * memory); reported. */
int tfx_api_check_prune_options(const char *input_shape, const char *out_nodes, const char *cmd,
                                tfx_diag *d);
/* A comma list option (--enable-scope-fusion-passes, --disable-pass, --pass): not empty. */
int tfx_api_opt_list(const char *name, const char *value, const char *cmd, tfx_diag *d);
/* --limit NAME=N[,NAME=N...] (docs/CLI.md "Limits"): lim->v[...] for the limits of
 * util/limits.h, *file_size / *vm_steps for the aliases file-size and vm-steps; a NULL pointer:
 * the value is checked and dropped (every command takes every name). -2: out of memory. */
int tfx_api_parse_limit(const char *spec, const char *cmd, tfx_limits *lim, size_t *file_size,
                        uint64_t *vm_steps, tfx_diag *d);

/* A comma list split once into its items (empty items kept: "a,,b" is 3 items). */
typedef struct tfx_api_list {
  char **items;
  size_t n;
  char *buf; /* the items' storage */
} tfx_api_list;
/* Returns 0 or -1 (out of memory; *out is empty). Free with tfx_api_list_free. */
int tfx_api_list_split(const char *list, tfx_api_list *out);
void tfx_api_list_free(tfx_api_list *l);

/* A usage error of cmd (the command line's "tfxc explain"): "cmd: error: message" followed by
 * the note "run 'cmd --help' for usage", as the command line reports them; cmd NULL (a library
 * caller): the error alone. */
void tfx_api_usage_error(tfx_diag *d, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* What `tfxc explain` is asked (src/api/explain.c; docs/CLI.md "explain"): exactly one of
 * scope and rule. */
typedef struct tfx_api_explain_req {
  const char *scope;    /* --scope NAME: why each pattern of each pass did (not) match */
  const char *rule;     /* --rule PASS (its fusion report) or REWRITE (with node) */
  const char *function; /* --function NAME: a library function's body; NULL the main graph */
  const char *passes;   /* --pass A,B: the passes --scope looks at; NULL all */
  const char *node;     /* --node NODE: where the rewrite rule is explained */
  const char *cmd;      /* names usage errors ("tfxc explain"), or NULL */
  tfx_pass_fn load;                       /* replaces the "load" pass when not NULL */
  void *load_user;
} tfx_api_explain_req;
/* Runs the pipeline of o (copied; its rule options, the model) through the scope fusion with
 * what explaining needs hooked in, and appends the explanation (the text `tfxc explain`
 * prints) to out. Returns 0 or an exit code (reported; TFX_EXIT_USAGE for names that are not
 * in the model or the rules). */
int tfx_api_explain(const tfx_options *o, const tfx_api_explain_req *r, tfx_strbuf *out,
                    tfx_diag *d);
/* explain_flow.c: the rewrite rule named name, or TFX_PACK_NONE; and the explanation of rule
 * at node (ctx after the scope fusion without the "dataflow" pass). Returns 0 or an exit
 * code (reported). */
uint32_t tfx_api_find_rewrite(const tfx_pack *p, const char *name);
int tfx_api_explain_flow(tfx_strbuf *b, tfx_ctx *ctx, uint32_t rule, const char *function,
                         const char *node, const char *cmd, tfx_diag *d);

/* The public progress hook on a pipeline (progress_api.c): p's progress hook calls fn with a
 * tfxc_progress per report; fn NULL removes it. ap holds fn and user and must outlive the
 * runs of p. */
typedef struct tfx_api_progress {
  tfxc_progress_fn fn;
  void *user;
} tfx_api_progress;
void tfx_api_progress_install(tfx_api_progress *ap, tfx_pipeline *p, tfxc_progress_fn fn,
                              void *user);

/* The public record of an internal diagnostic (strings borrowed from it; session.c). */
tfxc_diagnostic tfx_api_diagnostic(const tfx_diag_item *it);

#endif
