/* The built-in passes and their registration.
 * Stage: passes. tfx_pass_register_builtin registers every pass tfxc ships, from one table in
 * builtin.c; a later stage adds its pass there (group, phase, name, function) and nothing in
 * the runner changes. Phases are spaced by 10 so passes can be slotted in between. */
#ifndef TFX_PASSES_PASSES_H
#define TFX_PASSES_PASSES_H

#include "passes/pipeline.h"
#include "vm/pack.h"

struct tfx_vm;
struct tfx_cann_table; /* cann/cann.h */

/* Registers the built-in passes. Returns 0 or -1 (out of memory / duplicate name). */
int tfx_pass_register_builtin(tfx_pipeline *p);

/* LOAD */
/* "load": tfx_io_load_model */
TFX_MUST_CHECK tfx_status tfx_pass_load(tfx_ctx *ctx, void *user);
/* "index": tfx_module_build */
TFX_MUST_CHECK tfx_status tfx_pass_index(tfx_ctx *ctx, void *user);
/* "scope-tree": ScopeTree of the main graph */
TFX_MUST_CHECK tfx_status tfx_pass_scope_tree(tfx_ctx *ctx, void *user);
/* "rules": -r paths + stdlib -> ctx->pack */
TFX_MUST_CHECK tfx_status tfx_pass_rules(tfx_ctx *ctx, void *user);
/* "freeze": variables -> checkpoint Consts */
TFX_MUST_CHECK tfx_status tfx_pass_freeze(tfx_ctx *ctx, void *user);
/* PRUNE */
/* "prune": --input-shape / --out-nodes */
TFX_MUST_CHECK tfx_status tfx_pass_prune(tfx_ctx *ctx, void *user);
/* SCOPE_FUSION */
/* "scope-fusion": rule scope passes */
TFX_MUST_CHECK tfx_status tfx_pass_scope_fusion(tfx_ctx *ctx, void *user);
/* "dataflow": rule rewrites (pass_dataflow.c) */
TFX_MUST_CHECK tfx_status tfx_pass_dataflow(tfx_ctx *ctx, void *user);
/* OP_MAPPING */
/* "op-defaults": missing TF default attrs */
TFX_MUST_CHECK tfx_status tfx_pass_op_defaults(tfx_ctx *ctx, void *user);
/* "op-mapping": TF op -> CANN op */
TFX_MUST_CHECK tfx_status tfx_pass_opmap(tfx_ctx *ctx, void *user);
/* Never a weightless model (pass_freeze.c), called by "op-mapping" after mapping: every
 * variable node (VariableV2, Variable, VarHandleOp) of the main graph or of a
 * function it reaches is marked failed in ctx->opmap (cause 2, "a variable without weights:
 * no checkpoint found: ..."), also when passed through; unless --no-freeze. Outside --check
 * one summary error is reported and the result is TFX_E_FAIL, or TFX_E_INPUT when the
 * checkpoint lacks the variable's tensor; TFX_OK when there is none (or with --check);
 * TFX_E_NOMEM out of memory (reported). */
TFX_MUST_CHECK tfx_status tfx_freeze_check_mapping(tfx_ctx *ctx);
/* LOWERING */
/* "lowering": GE IR model */
TFX_MUST_CHECK tfx_status tfx_pass_lower(tfx_ctx *ctx, void *user);
/* EMIT */
/* "emit-tf": --emit tf-pbtxt */
TFX_MUST_CHECK tfx_status tfx_pass_emit_tf(tfx_ctx *ctx, void *user);
/* "emit-ge": air, ge-pbtxt, ge-json, dot */
TFX_MUST_CHECK tfx_status tfx_pass_emit_ge(tfx_ctx *ctx, void *user);
/* Appends the precheck members (precheck.c: ATC check_result.json fields plus per-node rule,
 * mapping and hints) for ctx->opmap; *n_fail = failed nodes. Returns 0, or -1 when there is
 * no op mapping or out of memory. */
int tfx_precheck_json(const tfx_ctx *ctx, const char *model, tfx_strbuf *b, uint32_t *n_fail);
/* The same for the report of a run: "result" is "failed" when run_failed (the run's exit code
 * is nonzero, e.g. a lowering error that names no node) even if no node failed. */
int tfx_precheck_json_run(const tfx_ctx *ctx, const char *model, int run_failed, tfx_strbuf *b,
                          uint32_t *n_fail);
/* --check: turns the errors the lowering added to ctx->diag since item first_diag (rc: its
 * result) into failures of the nodes they name (cause 2, the message; the items are removed:
 * the report holds them). Returns 0 when every error named a node (the report's failed nodes
 * make the precheck fail), else rc (the other errors stay and fail the run). */
int tfx_precheck_lowering(tfx_ctx *ctx, size_t first_diag, int rc);
/* Fails (cause 2, a message naming the absorbed producer, the result, the scope pass and its
 * rule file:line) every node of ctx->opmap that lost a data input to scope fusion
 * (ctx->fusion_report's dangling lists), unless --allow-dangling-inputs. An unsupported node
 * keeps its cause; a mapping failure is replaced (the lost input is its likely reason).
 * Returns 0 or -1 (out of memory, reported). */
int tfx_precheck_dangling(tfx_ctx *ctx);
/* ---- precheck_summary.c ---- */
/* The cause hint of a TF type that only exists at run time (variables, save/restore,
 * summaries, queues and readers, initialisers and tables, optimizer updates), else NULL. */
const char *tfx_runtime_only_hint(const char *tf_type);
/* The types of the runtime-only table (sorted); returns their number. */
size_t tfx_runtime_only_ops(const char *const **types);
/* Sets that hint on every unsupported / passthrough node of ctx->opmap of such a type. */
void tfx_precheck_runtime_hints(tfx_ctx *ctx);
/* Reports the nodes of ctx->opmap that failed (errors) or were passed through (warnings) into
 * ctx->diag, grouped by TF type, outcome, message and hint: one diagnostic per group with its
 * count and first node as the example, largest group first (a group of one reads as a
 * per-node message); per_node: one diagnostic per node. Returns the number of failed nodes;
 * *n_lines (may be NULL) gets the number of error diagnostics written. */
uint32_t tfx_precheck_summary(const tfx_ctx *ctx, int per_node, uint32_t *n_lines);
/* "file:line" of pack rule `rule` of the run into buf. */
void tfx_precheck_rule_site(const tfx_ctx *ctx, uint32_t rule, char *buf, size_t n);
/* 1 when the run asks for a GE output or the precheck (op mapping and lowering run only then). */
int tfx_ctx_wants_mapping(const tfx_ctx *ctx);

/* ---- rules (pass_rules.c) ---- */
/* A rule source in memory (the library API, tfxc_add_rules_buffer): rule text of the kind
 * its name's extension gives (.scoperule / .opmap), or a pack (bytes starting "TFXB").
 * Borrowed. */
typedef struct tfx_rules_buffer {
  const char *name;
  const void *data;
  size_t len;
} tfx_rules_buffer;
/* 1 if the buffer holds a pack (by its magic). */
int tfx_rules_buffer_is_pack(const tfx_rules_buffer *b);

/* Which rules a run uses: -r paths (directories, rule files, or exactly one .tfxb pack),
 * then the buffers (after the paths; a pack buffer only alone, checked by the caller), then
 * the embedded stdlib unless no_stdlib. Strings are borrowed. */
typedef struct tfx_rules_spec {
  const char *const *paths;
  size_t n_paths;
  const tfx_rules_buffer *buffers;
  size_t n_buffers;
  int no_stdlib;
  const char *const *warn_opts; /* "-Wname", "-Wno-name", "-Werror", "-Werror=name", "-Wall" */
  size_t n_warn_opts;
  int verbose;                  /* > 0: -Woverride on (every override is reported) */
  unsigned max_rule_depth;      /* rule-depth limit of the -r sources (not the stdlib); 0 = 256 */
  int stdlib_from_source;       /* compile the stdlib sources even when the embedded pack
                                   (stdlib/stdlib_pack.h) would do: tests compare the two */
} tfx_rules_spec;
/* The spec of the rules a run's options name (-r paths, buffers, --no-stdlib, -W, -v, the
 * rule-depth limit); o NULL gives the stdlib alone. Strings stay o's. */
void tfx_rules_spec_from_options(tfx_rules_spec *s, const tfx_options *o);

/* Loads, checks and compiles the rules of s into out (initialized here; empty on failure).
 * A pack path is loaded with the verifier instead. CANN prototype files (*.cannops.tsv, given
 * as -r paths or found under -r directories) are loaded first, in -r order, over the stdlib's
 * prototypes (first wins; overrides reported like rule overrides) and the rules are checked
 * against that merged table. Returns 0, TFX_E_USAGE (a path that is no rule file/dir/
 * prototype file/pack, a pack mixed with paths other than prototype files, a bad -W option),
 * TFX_E_INPUT (a missing path, a corrupt pack), TFX_E_RULES (rule errors, malformed or
 * unreadable prototype files) or TFX_E_FAIL (OOM). */
int tfx_rules_build_pack(const tfx_rules_spec *s, tfx_pack *out, tfx_diag *d);
/* The same; on success *protos (when protos is not NULL) gets the prototype table of the run:
 * NULL when no -r path gives a prototype file (the run uses tfx_cann_stdlib()), else a new
 * merged table (the user files over the stdlib's) to free with tfx_rules_protos_free. A pack
 * does not hold prototypes: prototype files may be given next to it (-r p.tfxb -r
 * x.cannops.tsv) and only make this table (the pack's rules were checked when compiled). */
int tfx_rules_build(const tfx_rules_spec *s, tfx_pack *out, struct tfx_cann_table **protos,
                    tfx_diag *d);
void tfx_rules_protos_free(struct tfx_cann_table *t); /* NULL is fine */
/* 1 if a -r path names a pack (by its .tfxb extension). */
int tfx_rules_path_is_pack(const char *path);
/* 1 if a path names a CANN prototype file (by its .cannops.tsv ending). */
#define TFX_RULES_PROTOS_SUFFIX ".cannops.tsv"
#define TFX_RULES_TFOPS_SUFFIX ".tfops.tsv" /* user TF op definitions (tf-ops.tsv format) */
int tfx_rules_path_is_tfops(const char *path);
int tfx_rules_path_is_protos(const char *path);
/* 0 if opt ("-Wno-shadow", ...) is a valid rule-warning option, else -1. */
int tfx_rules_check_warn_option(const char *opt);
/* Applies the VM options of the run (--vm-budget, --trace) to a VM: engines call this on
 * every VM they create for ctx->pack. */
void tfx_ctx_setup_vm(const tfx_ctx *ctx, struct tfx_vm *vm);

#endif
