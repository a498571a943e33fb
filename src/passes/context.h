/* Conversion context: what every pass reads and writes.
 * Stage: passes (shared by all pipeline groups). Input: options filled by the CLI (or a
 * library caller). Output: the loaded model, its graph index (module) and the ScopeTree of the
 * main graph, all owned by the context and released by tfx_ctx_free. Diagnostics are borrowed.
 * Invariant: have_module implies have_model; have_scopes implies have_module, and the tree
 * always indexes the current module (a pass that edits the GraphDef calls tfx_ctx_reindex).
 * After a re-index the tree is rebuilt only when asked for (scopes_stale; tfx_ctx_scopes):
 * after scope fusion nothing in the default pipeline reads it, and at 10^6 nodes it costs
 * 0.7 s and 100 MiB. */
#ifndef TFX_PASSES_CONTEXT_H
#define TFX_PASSES_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "graph/prune.h"
#include "io/io.h"
#include "scope/scope.h"
#include "tfxc/tfxc.h" /* TFXC_EMIT_KINDS */
#include "util/diag.h"
#include "util/limits.h"
#include "vm/pack.h"

struct tfx_fusion_engine; /* fusion/engine.h */
struct tfx_opmap;         /* opmap/opmap.h */
struct tfx_ge_model;      /* ge/ge.h */
struct tfx_cann_table;    /* cann/cann.h */
struct tfx_ckpt;          /* ckpt/ckpt.h */

/* Output kinds of --emit. Bit flags so a run can ask for several. */
typedef enum {
#define TFX_EMIT_ENUM_ROW(id, name, suffix, what) TFX_EMIT_##id,
  TFXC_EMIT_KINDS(TFX_EMIT_ENUM_ROW) /* tfxc/tfxc.h: AIR, GE_PBTXT, GE_JSON, DOT, TF_PBTXT */
#undef TFX_EMIT_ENUM_ROW
  TFX_EMIT__COUNT
} tfx_emit_kind;

/* Everything the command line can set that a pass may look at. Strings are borrowed
 * (normally argv). NULL / 0 means "not given". */
typedef struct tfx_options {
  const char *model_path;      /* MODEL */
  const char *tag;             /* --tag: SavedModel meta graph tag */
  size_t max_file_size;        /* --max-file-size; 0 = io default */
  unsigned jobs;               /* --jobs: threads loading a big binary GraphDef (io.h); 0 = auto */
  const char *input_shape;     /* --input-shape, raw "a:1,2;b:3" */
  const char *out_nodes;       /* --out-nodes, raw "n:0;m:1" */
  const char *signature;       /* --signature NAME (passes/signature.h); NULL = the default */
  int select_outputs;          /* convert: pass "prune" applies the model's signature (or, with
                                  none and no --out-nodes, drops training machinery) and reports
                                  training machinery the outputs need (graph/training.h);
                                  inspect leaves it 0 and sees the whole graph */
  const char *input_format;    /* --input-format, validated: NCHW NHWC ND NCDHW NDHWC */
  unsigned emit;               /* bit (1u << tfx_emit_kind) per requested kind */
  const char *out_path[TFX_EMIT__COUNT]; /* output file per requested kind */
  const char *dump_after;      /* --dump-after: "all" or comma-separated pass names */
  const char *dump_dir;        /* --dump-dir; NULL = "tfxc-dump" */
  const char *disable;         /* --disable-pass: comma-separated pass names */
  int time_passes;             /* --time-passes */
  int verbose;                 /* -v count; -1 for -q */
  int lenient_index;           /* index a graph with validation problems anyway, reporting them
                                  as warnings (inspect); conversion never sets it */
  tfx_limits limits;           /* --limit (util/limits.h; 0 = default): depth, string, list,
                                  nodes, scope-depth, rule-depth, output-size. file-size and
                                  vm-steps are max_file_size and vm_budget */
  /* ---- rules (pass "rules", src/passes/pass_rules.c) ---- */
  const char *const *rule_paths; /* -r PATH..., in command-line order (dirs, files, or one pack) */
  size_t n_rule_paths;
  int no_stdlib;               /* --no-stdlib */
  const char *const *warn_opts; /* -W options as written ("-Wno-shadow", "-Werror"), validated */
  size_t n_warn_opts;
  /* ---- rule VM settings, applied by the engines through tfx_ctx_setup_vm ---- */
  uint64_t vm_budget;          /* --vm-budget: steps per VM run; 0 = the VM default */
  int trace;                   /* --trace */
  void (*trace_fn)(void *user, const char *line); /* trace sink (the CLI: stderr) */
  void *trace_user;
  const char *enable_scope_passes; /* --enable-scope-fusion-passes, raw "A,B"; the rules pass
                                  checks every name is a scope pass of ctx->pack (exit 2) */
  int passthrough_unknown;     /* --passthrough-unknown: keep unsupported ops under their TF type */
  int check_only;              /* --check: stop after LOWERING, emit nothing (the precheck report) */
  const struct tfx_rules_buffer *rule_buffers; /* rule sources in memory (library API), after
                                  rule_paths; see tfx_rules_spec */
  size_t n_rule_buffers;
  const char *checkpoint;      /* --checkpoint PREFIX: weights for the freeze pass */
  int no_freeze;               /* --no-freeze: keep variables (no freezing, no variables check) */
  const char *disable_rules;   /* the --disable-pass names that are no pipeline pass, "A,B": the
                                  rules pass checks they are scope passes of ctx->pack (exit 2);
                                  the scope-fusion engine switches them off */
  int allow_dangling_inputs;   /* --allow-dangling-inputs: a data input lost to scope fusion
                                  (the result does not export that output) is dropped with a
                                  warning, as ATC does, instead of failing the run */
  int no_report;               /* nobody asks about the run afterwards (the convert command
                                  without --report; the library's option no-report): what only
                                  the report and the queries on a run read is released before
                                  lowering (tfx_ctx_release_unused), not with the context */
} tfx_options;

typedef struct tfx_ctx {
  const tfx_options *opts;     /* borrowed */
  tfx_diag *diag;              /* borrowed */
  tfx_model model;             /* owned when have_model */
  int have_model;
  tfx_module module;           /* owned when have_module; indexes model.graph */
  int have_module;
  tfx_scope_tree scopes;       /* ScopeTree of module.main; owned when have_scopes */
  int have_scopes;
  int scopes_stale;            /* a tree existed before the last re-index: tfx_ctx_scopes rebuilds it */
  struct tfx_scope_job *scope_job; /* the ScopeTree being built into `scopes` by a thread of
                                  the index pass (passes/pass_load.c), NULL = none: `scopes` is
                                  the thread's until tfx_ctx_scope_join; owned */
  struct tfx_release_job *release_job; /* the sweep of the model's arena running on a thread
                                  beside op mapping and lowering (tfx_ctx_sweep_model), NULL =
                                  none; the model is only read until tfx_ctx_release_join; owned */
  int swept;                   /* a sweep was made (or is pending) for the GraphDef as it was at */
  unsigned swept_edits;        /* ... graph_edits = swept_edits */
  int scope_tree_next;         /* set by the pipeline while a pass runs: the next pass to run is
                                  "scope-tree" (the index pass may start its thread) */
  tfx_prune_opts prune;        /* parsed --input-shape / --out-nodes (in model.arena); outs are
                                  the requested net outputs, in option order */
  unsigned graph_edits;        /* bumped by every pass that rewrites the GraphDef; 0 again when
                                  the model goes (tfx_ctx_free, so a new load starts at 0) */
  unsigned reindex_updates;    /* re-indexes done incrementally (tfx_ctx_reindex_changed) */
  size_t released;             /* bytes the last tfx_ctx_release_unused gave back (the model's
                                  unreachable pages; a dropped ScopeTree is not counted) */
  int no_report_kept;          /* opts->no_report: the run reached the OP_MAPPING group, the
                                  dataflow report is gone (tfx_ctx_release_flow_report), and
                                  from lowering on the fusion report and the main graph's name
                                  map too (tfx_ctx_release_unused: module.main.by_name is empty,
                                  tfx_graph_find finds nothing); the report and the queries on
                                  the run refuse (0 again with the model) */
  /* progress within the running pass (its node loops, util/progress.h), set before the
   * pipeline's progress hook is called during a pass: progress_done of progress_total
   * progress_unit ("nodes"); 0 / NULL at a pass start */
  uint64_t progress_done, progress_total;
  const char *progress_unit;
  /* ---- rules: the compiled rule pack (pass "rules") ---- */
  tfx_pack pack;               /* owned when have_pack */
  int have_pack;
  /* the CANN prototype table of the run, read by the op mapping and the lowering through
   * tfx_ctx_protos: set by the rules pass to the user prototype files (-r *.cannops.tsv)
   * merged over the stdlib's (then own_protos, owned), or NULL = the stdlib table */
  const struct tfx_cann_table *protos;
  struct tfx_cann_table *own_protos;
  /* ---- scope fusion (pass "scope-fusion") ---- */
  struct tfx_fusion_report *fusion_report; /* what the engine matched and fused; owned, NULL
                                  until the pass ran (--report, explain --rule) */
  /* observer given to the scope-fusion engine (tfx_fusion_pattern_fn, fusion/engine.h), or
   * NULL: explain --scope evaluates its scope with each pattern through it */
  void (*fusion_on_pattern)(void *user, struct tfx_fusion_engine *e, const tfx_scope_tree *t,
                            uint32_t rule, uint32_t group, uint32_t layer, uint32_t k,
                            uint32_t pattern);
  void *fusion_on_pattern_user;
  /* ---- dataflow rewrites (pass "dataflow") ---- */
  struct tfx_flow_report *flow_report; /* owned, NULL until the pass ran (--report) */
  /* ---- op mapping (pass "op-mapping") and lowering (pass "lowering") ---- */
  struct tfx_opmap *opmap;     /* per-node mapping decisions; owned, NULL until the pass ran */
  struct tfx_ge_model *ge;     /* the GE IR model; owned, NULL until lowering ran */
  /* ---- freezing (pass "freeze") ---- */
  struct tfx_ckpt *ckpt;       /* the checkpoint read; owned, NULL when none. The frozen Consts'
                                  bytes point into its mapped shards: freed with the model */
} tfx_ctx;

void tfx_ctx_init(tfx_ctx *ctx, const tfx_options *opts, tfx_diag *d);
/* Releases model, module and scope tree. ctx stays usable (as after init). Joins a ScopeTree
 * thread first (tfx_ctx_scope_join, its tree discarded), and a sweep thread
 * (tfx_ctx_release_join). */
void tfx_ctx_free(tfx_ctx *ctx);
/* Waits for the ScopeTree thread of the index pass, if one runs (passes/pass_load.c), and
 * ends it. keep 1 (the scope-tree pass): its tree becomes ctx->scopes (have_scopes) and its
 * diagnostics are added to ctx->diag now, in the order it made them; returns what the build
 * returned (TFX_OK, or TFX_E_INPUT / TFX_E_NOMEM, reported). keep 0 (every other path: an
 * index that failed, the end of a pipeline run, tfx_ctx_free, a re-index): the tree and its
 * diagnostics are dropped, as if it had never been built; returns TFX_OK. With no thread
 * pending: returns -1 (keep 1) or TFX_OK, and does nothing. */
int tfx_ctx_scope_join(tfx_ctx *ctx, int keep);

/* The CANN prototype table of the run: ctx->protos, or the embedded stdlib table
 * (tfx_cann_stdlib) when the rules pass set none. NULL after reporting (stdlib unloadable). */
const struct tfx_cann_table *tfx_ctx_protos(tfx_ctx *ctx);

/* Releases the op-mapping result and the GE model (they refer to the current index). */
void tfx_ctx_drop_mapping(tfx_ctx *ctx);

/* Rebuilds the graph index after the GraphDef in ctx->model was edited; a ScopeTree that was
 * built is dropped and marked stale (tfx_ctx_scopes rebuilds it on demand). Returns 0 or an
 * exit code (reported). */
int tfx_ctx_reindex(tfx_ctx *ctx);
/* What a rewrite changed in one graph of the index (scope fusion: tfx_fusion_apply; dataflow
 * rewrites: tfx_flow_round's tfx_flow_change): per
 * node id of the old index, its id in the new node list (TFX_NO_ID: removed) and whether its
 * inputs were rewritten (1). Nodes of the new list no old id maps to are new. new_id NULL:
 * the graph did not change. */
typedef struct tfx_graph_change {
  const uint32_t *new_id;
  const uint8_t *rewired;
  /* Optional (NULL: none; dataflow rounds, main graph: tfx_flow_change): node fix_node[k]
   * (new ids, ascending; new or rewired nodes) has the inputs fix_in[fix_first[k] ..
   * fix_first[k + 1]) already resolved, so its input strings are not parsed and looked up. */
  const uint32_t *fix_node, *fix_first;
  const tfx_input *fix_in;
  uint32_t n_fix;
} tfx_graph_change;

/* tfx_ctx_reindex after a rewrite that says what it changed: changes[0] for the main graph,
 * changes[1 + i] for library function i of the current index (NULL: a full re-index). The
 * index is updated from the old one (passes/reindex.c) and is the same, field for field, as a
 * full build (checked against one in debug builds and with TFXC_VERIFY_REINDEX=1); anything a
 * full build would report goes to the full build. Returns 0 or an exit code (reported). */
int tfx_ctx_reindex_changed(tfx_ctx *ctx, const tfx_graph_change *changes);

/* passes/reindex.c. Builds nm (no prior init; free it whatever the result) from the old index
 * om of gd before the rewrite and changes (as above; om's name maps are taken over, those of
 * changed graphs patched in place). Returns 0, 1 when only a full build can index gd (it
 * reports why) or -1 (out of memory). */
int tfx_module_update(tfx_module *nm, tfx_module *om, Tensorflow__GraphDef *gd,
                      const tfx_graph_change *changes);
/* 0 when a and b are the same index (what every field says, node names resolving to the same
 * ids); 1 otherwise, with the first difference in why (why_len bytes). */
int tfx_module_diff(const tfx_module *a, const tfx_module *b, char *why, size_t why_len);

/* Before lowering (pass "lowering" calls it; the GraphDef is not edited after op mapping):
 * releases what nothing after it reads. With opts->no_report (and not check_only, whose
 * report is the output) that includes what only the report and the queries on a finished run
 * read: the fusion and dataflow reports and the main graph's node-name map (lowering
 * resolves nodes by id; --out-nodes are looked up before, tfx_ctx_out_ids); no_report_kept
 * then says so. The ScopeTree is dropped and marked stale
 * (tfx_ctx_scopes rebuilds it when asked; after a re-index it is gone already), and the whole
 * pages of the model's arena that neither its tree (tfx_model_keep_reachable) nor ctx->prune
 * touches are given back to the system (tfx_arena_sweep_*: NodeDefs removed by prune, scope
 * fusion and dataflow, replaced lists, old node arrays, the unpacker's scratch), when some
 * pass edited the GraphDef (graph_edits; an unedited tree is all live). So nothing
 * but the tree and ctx->prune may point into the model's arena from lowering on (the index
 * and the mapping point at live nodes only; the reports own copies). What lowering and the
 * emitters read stays. The thread's page pool (util/arena.h: the big blocks earlier passes
 * freed) is emptied, with the pages of the index's and the mapping's newest arena chunks that
 * no allocation reached. Sets and returns ctx->released (0 when out of memory: nothing is
 * given back).
 * The model's pages are swept by tfx_ctx_sweep_model (threads 1 with threads non-zero, else
 * 0): when the op mapping started the sweep on a thread already, or made it since the last
 * edit, nothing more is done. With a sweep pending it returns 0, and ctx->released is set by
 * tfx_ctx_release_join, which the lowering pass calls before it returns. */
size_t tfx_ctx_release_unused(tfx_ctx *ctx, int threads);
/* The sweep of the model's arena (the pages of NodeDefs prune, scope fusion and dataflow
 * removed, replaced lists, the unpacker's scratch: what neither the tree nor ctx->prune
 * reaches), once per state of the GraphDef (graph_edits; swept, swept_edits): nothing when the
 * GraphDef is unedited, or a sweep is pending or was made since its last edit. threads 1: on
 * a thread of its own when the model's arena has TFX_RELEASE_THREAD_MIN bytes and more (the
 * walk is ~190 ms at 10^6 nodes), else here; 0: here; -1 (early: the op-mapping pass, when
 * lowering's jobs allow a second thread, so that the walk runs beside the op mapping rather
 * than beside lowering): on a thread, or not at all (lowering's release sweeps then). From
 * the start of a threaded sweep until tfx_ctx_release_join nothing may edit the GraphDef or
 * allocate from the model's arena: the passes after op-defaults only read it (the sweep gives
 * back only pages nothing reachable touches, so what they read is never among them). Sets
 * ctx->released when the sweep is made here (0 when out of memory: nothing given back). */
void tfx_ctx_sweep_model(tfx_ctx *ctx, int threads);
#define TFX_RELEASE_THREAD_MIN ((size_t)1 << 20)
/* Waits for the sweep thread of tfx_ctx_sweep_model, if one runs, and sets ctx->released to
 * what it gave back. Called by the lowering pass on every way out, and (a safeguard) by
 * tfx_ctx_free, the re-indexes and the end of every pipeline run. Returns 0, or -1 when the
 * GraphDef was edited (graph_edits) while the thread read it: an internal error, reported into
 * ctx->diag (what was given back may have been reachable); the lowering pass and the
 * re-indexes then fail with TFX_E_FAIL. */
int tfx_ctx_release_join(tfx_ctx *ctx);
/* Lowering's jobs (ge.h tfx_ge_lower_opts.jobs: 0 automatic, 1 no thread besides the run's):
 * the run's --jobs, or TFXC_LOWER_JOBS=N from the environment, which overrides it for lowering
 * and the sweep alone (tests and measurements; docs/CLI.md, debugging variables). */
int tfx_ctx_lower_jobs(const tfx_ctx *ctx);

/* With opts->no_report (and not check_only): the dataflow report goes, and no_report_kept is
 * set (the report is not whole any more). Nothing after the dataflow pass reads that report
 * but the report itself: the pipeline calls it before the first pass of the OP_MAPPING group,
 * so that the op mapping's memory does not come on top of it. */
void tfx_ctx_release_flow_report(tfx_ctx *ctx);

/* The main-graph node id of each --out-nodes entry (ctx->prune.outs; TFX_NO_ID: no such
 * node), looked up while the name map is there: a malloc'ed array of prune.n_outs ids (free
 * it), NULL when there are none or out of memory (*oom set). */
uint32_t *tfx_ctx_out_ids(tfx_ctx *ctx, int *oom);

/* The main graph's ScopeTree, rebuilt first if a re-index left it stale; NULL when there is
 * none (no scope-tree pass ran) or the rebuild failed (reported). */
const tfx_scope_tree *tfx_ctx_scopes(tfx_ctx *ctx);

/* "<model stem><suffix>": the file name of MODEL without directories and without its last
 * extension (a SavedModel directory keeps its whole name), plus suffix. Returns a malloc'ed
 * string or NULL when out of memory. */
char *tfx_ctx_default_output(const char *model_path, const char *suffix);

#endif
