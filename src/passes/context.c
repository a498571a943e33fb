/* Conversion context lifetime and re-indexing (see context.h).
 * Stage: passes. Frees in reverse dependency order: scope tree -> module -> model; before
 * lowering, gives back what nothing reads any more (tfx_ctx_release_unused; with the option
 * no_report also the reports and the main graph's name map). */
#include "passes/context.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "ckpt/ckpt.h"
#include "fusion/dataflow.h"
#include "fusion/engine.h"
#include "ge/ge.h"
#include "opmap/opmap.h"
#include "passes/passes.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"
#include "util/fileio.h"
#include "util/status.h"
#include "util/thread.h"

void tfx_ctx_init(tfx_ctx *ctx, const tfx_options *opts, tfx_diag *d) {
  memset(ctx, 0, sizeof *ctx);
  ctx->opts = opts;
  ctx->diag = d;
}

void tfx_ctx_free(tfx_ctx *ctx) {
  (void)tfx_ctx_scope_join(ctx, 0); /* the ScopeTree thread reads the module: first */
  (void)tfx_ctx_release_join(ctx);  /* the sweep thread reads the model */
  tfx_ctx_drop_mapping(ctx); /* refers to the module */
  if (ctx->have_scopes) tfx_scope_tree_free(&ctx->scopes);
  if (ctx->have_module) tfx_module_free(&ctx->module);
  if (ctx->have_model) tfx_model_free(&ctx->model);
  ctx->have_scopes = ctx->have_module = ctx->have_model = 0;
  ctx->graph_edits = 0; /* they were edits of that model */
  ctx->released = 0;
  ctx->swept = 0;
  ctx->no_report_kept = 0;
  if (ctx->ckpt) tfx_ckpt_free(ctx->ckpt); /* after the model: its Consts point into the shards */
  free(ctx->ckpt);
  ctx->ckpt = NULL;
  if (ctx->have_pack) tfx_pack_free(&ctx->pack); /* rules: the compiled pack */
  ctx->have_pack = 0;
  tfx_rules_protos_free(ctx->own_protos); /* after the mapping, which may point into it */
  ctx->own_protos = NULL;
  ctx->protos = NULL;
  if (ctx->flow_report) tfx_flow_report_free(ctx->flow_report); /* dataflow rewrites */
  free(ctx->flow_report);
  ctx->flow_report = NULL;
  if (ctx->fusion_report) tfx_fusion_report_free(ctx->fusion_report); /* scope fusion */
  free(ctx->fusion_report);
  ctx->fusion_report = NULL;
  memset(&ctx->prune, 0, sizeof ctx->prune); /* it lived in the model's arena */
}

const tfx_cann_table *tfx_ctx_protos(tfx_ctx *ctx) {
  return ctx->protos ? ctx->protos : tfx_cann_stdlib(ctx->diag);
}

void tfx_ctx_drop_mapping(tfx_ctx *ctx) {
  if (ctx->ge) tfx_ge_model_free(ctx->ge); /* lowering: borrows nothing from the opmap */
  free(ctx->ge);
  ctx->ge = NULL;
  if (ctx->opmap) tfx_opmap_free(ctx->opmap); /* op mapping: points into the module */
  free(ctx->opmap);
  ctx->opmap = NULL;
}

int tfx_ctx_reindex(tfx_ctx *ctx) {
  (void)tfx_ctx_scope_join(ctx, 0); /* none is pending after the scope-tree pass: a safeguard */
  if (tfx_ctx_release_join(ctx)) return TFX_E_FAIL; /* none is pending here: a safeguard */
  tfx_ctx_drop_mapping(ctx); /* decisions refer to node ids of the old index */
  if (!ctx->have_module) return 0; /* not indexed yet: the index pass will do it */
  int want_scopes = ctx->have_scopes || ctx->scopes_stale;
  if (ctx->have_scopes) tfx_scope_tree_free(&ctx->scopes);
  ctx->have_scopes = 0;
  ctx->scopes_stale = 0;
  if (ctx->have_module) tfx_module_free(&ctx->module);
  ctx->have_module = 0;
  if (!ctx->have_model) return 0;
  int rc = tfx_module_build_ex(&ctx->module, ctx->model.graph, ctx->model.path,
                               ctx->opts && ctx->opts->lenient_index ? TFX_MODULE_LENIENT : 0u,
                               ctx->diag);
  if (rc != 0) {
    tfx_module_free(&ctx->module); /* a failed build may hold partial tables */
    return rc;
  }
  ctx->have_module = 1;
  ctx->scopes_stale = want_scopes; /* rebuilt by tfx_ctx_scopes when someone asks */
  return 0;
}

/* 1 when an incremental re-index is checked against a full build: always in debug builds
 * (the sanitizer runs of the test suite), in release builds with TFXC_VERIFY_REINDEX=1. */
static int verify_reindex(void) {
#ifndef NDEBUG
  return 1;
#else
  const char *e = getenv("TFXC_VERIFY_REINDEX");
  return e && *e && strcmp(e, "0") != 0;
#endif
}

int tfx_ctx_reindex_changed(tfx_ctx *ctx, const tfx_graph_change *changes) {
  (void)tfx_ctx_scope_join(ctx, 0); /* as in tfx_ctx_reindex */
  if (tfx_ctx_release_join(ctx)) return TFX_E_FAIL;
  if (!changes || !ctx->have_module || !ctx->have_model || (ctx->opts && ctx->opts->lenient_index))
    return tfx_ctx_reindex(ctx);
  tfx_ctx_drop_mapping(ctx); /* decisions refer to node ids of the old index */
  int want_scopes = ctx->have_scopes || ctx->scopes_stale;
  if (ctx->have_scopes) tfx_scope_tree_free(&ctx->scopes);
  ctx->have_scopes = 0;
  ctx->scopes_stale = 0;
  tfx_module old = ctx->module; /* only read, then freed (its arena is never allocated from) */
  int rc = tfx_module_update(&ctx->module, &old, ctx->model.graph, changes);
  tfx_module_free(&old);
  if (rc != 0) { /* something a full build reports, or out of memory: the full build says it */
    tfx_module_free(&ctx->module);
    return tfx_ctx_reindex(ctx); /* have_module is still set: rebuilds from the GraphDef */
  }
  if (verify_reindex()) {
    tfx_module full;
    tfx_diag scratch;
    tfx_diag_init(&scratch);
    int frc = tfx_module_build_ex(&full, ctx->model.graph, ctx->model.path, 0u, &scratch);
    int oom = frc == TFX_E_NOMEM; /* nothing to compare with: not a difference */
    char why[300] = "the full build fails";
    if (!oom && (frc != 0 || tfx_module_diff(&ctx->module, &full, why, sizeof why))) {
      tfx_error(ctx->diag, NULL, 0, 0, "internal error: the incremental re-index differs from a full "
                "build (%s)", why);
      rc = TFX_E_FAIL;
    }
    tfx_module_free(&full);
    tfx_diag_free(&scratch);
    if (rc) {
      tfx_module_free(&ctx->module);
      ctx->have_module = 0;
      return rc;
    }
  }
  ctx->scopes_stale = want_scopes;
  ctx->reindex_updates++;
  return 0;
}

static int no_report(const tfx_ctx *ctx) {
  return ctx->opts && ctx->opts->no_report && !ctx->opts->check_only;
}

void tfx_ctx_release_flow_report(tfx_ctx *ctx) {
  if (!no_report(ctx)) return;
  if (ctx->flow_report) tfx_flow_report_free(ctx->flow_report);
  free(ctx->flow_report);
  ctx->flow_report = NULL;
  ctx->no_report_kept = 1; /* the report is not whole any more */
}

/* The page pool (util/arena.h) keeps the pages the passes before lowering freed, for the next
 * pass's big blocks; lowering's memory is mostly malloc's, so what the pool holds would only
 * add to the process's peak: it goes back now, with the unreached pages of the newest chunks
 * of the index's and the mapping's arenas (cut from the pool, they may hold pages resident
 * that those arenas never used: 21 MB at 10^6). */
static void release_pages(tfx_ctx *ctx) {
  if (ctx->have_module) tfx_arena_trim_head(&ctx->module.arena);
  if (ctx->opmap) tfx_arena_trim_head(&ctx->opmap->arena);
  tfx_pages_trim();
}

/* The sweep of the model's arena on a thread of its own (context.h, tfx_ctx_release_unused):
 * the walk over the tree and the giving back. It allocates nothing (the sweep's tables were
 * made by the caller; freeing them is malloc's, from any thread) and writes only the sweep,
 * the pages it gives back (madvise, or AddressSanitizer's poison) and the arena's `released`
 * count, which nothing reads before the join. */
typedef struct tfx_release_job {
  pthread_t th;
  tfx_arena_sweep s;
  const tfx_model *m;
  size_t released;
} tfx_release_job;

static void *release_job_main(void *arg) {
  tfx_release_job *j = arg;
  tfx_model_keep_reachable(&j->s, j->m);
  j->released = tfx_arena_sweep_release(&j->s);
  return NULL;
}

int tfx_ctx_release_join(tfx_ctx *ctx) {
  tfx_release_job *j = ctx->release_job;
  if (!j) return 0;
  (void)pthread_join(j->th, NULL);
  ctx->release_job = NULL;
  ctx->released = j->released;
  free(j);
  if (ctx->swept_edits == ctx->graph_edits) return 0;
  /* a pass edited the GraphDef while the sweep read it: what it gave back may be reachable */
  if (ctx->diag)
    tfx_error(ctx->diag, NULL, 0, 0, "internal error: the GraphDef was edited while the pages "
                                     "nothing reached were being given back");
  return -1;
}

int tfx_ctx_lower_jobs(const tfx_ctx *ctx) {
  const char *e = getenv("TFXC_LOWER_JOBS");
  if (e && *e) return atoi(e);
  unsigned jobs = ctx->opts ? ctx->opts->jobs : 0;
  return jobs > 64 ? 64 : (int)jobs;
}

void tfx_ctx_sweep_model(tfx_ctx *ctx, int threads) {
  /* an unedited tree is all live (protobuf-c's scratch went back at load, io.c): no walk */
  if (!ctx->have_model || !ctx->model.root || ctx->graph_edits == 0) return;
  /* one sweep per state of the GraphDef: pending, or made since its last edit */
  if (ctx->release_job || (ctx->swept && ctx->swept_edits == ctx->graph_edits)) return;
  int thread = threads && ctx->model.arena.total >= TFX_RELEASE_THREAD_MIN;
  if (!thread && threads < 0) return; /* early: only a thread is worth starting now */
  /* the model's arena as it is now: its tree, and the parsed --input-shape / --out-nodes
   * (lowering reads them), are all that is read of it from here on */
  tfx_release_job *j = thread ? tfx_calloc(1, sizeof *j) : NULL; /* none: the sweep is made here */
  if (!j && threads < 0) return;
  tfx_release_job inline_job;
  tfx_release_job *run = j ? j : &inline_job;
  memset(&inline_job, 0, sizeof inline_job);
  tfx_arena_sweep *s = &run->s;
  tfx_arena_mark now;
  tfx_arena_get_mark(&ctx->model.arena, &now);
  ctx->released = 0;
  if (tfx_arena_sweep_begin(s, &ctx->model.arena, &now) != 0) { /* out of memory: keep it */
    free(j);
    return;
  }
  ctx->swept = 1;
  ctx->swept_edits = ctx->graph_edits;
  const tfx_prune_opts *po = &ctx->prune;
  tfx_arena_sweep_keep(s, po->shapes, po->n_shapes * sizeof *po->shapes);
  for (uint32_t i = 0; i < po->n_shapes; i++) {
    if (po->shapes[i].name) tfx_arena_sweep_keep(s, po->shapes[i].name, strlen(po->shapes[i].name) + 1);
    tfx_arena_sweep_keep(s, po->shapes[i].dims, po->shapes[i].n_dims * sizeof *po->shapes[i].dims);
  }
  tfx_arena_sweep_keep(s, po->outs, po->n_outs * sizeof *po->outs);
  for (uint32_t i = 0; i < po->n_outs; i++)
    if (po->outs[i].name) tfx_arena_sweep_keep(s, po->outs[i].name, strlen(po->outs[i].name) + 1);
  run->m = &ctx->model;
  if (j && tfx_thread_start(&j->th, release_job_main, j, 0) == 0) {
    ctx->release_job = j;
    return;
  }
  /* no thread (not asked for, or none to be had): the same sweep, here */
  release_job_main(run);
  ctx->released = run->released;
  free(j);
}

size_t tfx_ctx_release_unused(tfx_ctx *ctx, int threads) {
  if (ctx->have_scopes) { /* nothing after scope fusion reads it (context.h) */
    tfx_scope_tree_free(&ctx->scopes);
    ctx->have_scopes = 0;
    ctx->scopes_stale = ctx->have_module; /* rebuilt on demand */
  }
  if (no_report(ctx)) {
    /* nobody asks about the run: the reports (scope fusion's, which the op mapping has read;
     * dataflow's, gone already unless the pipeline skipped the op-mapping group) and the main
     * graph's name map (lowering reads nodes by id) go */
    tfx_ctx_release_flow_report(ctx);
    if (ctx->fusion_report) tfx_fusion_report_free(ctx->fusion_report);
    free(ctx->fusion_report);
    ctx->fusion_report = NULL;
    if (ctx->have_module) tfx_graph_drop_names(&ctx->module.main);
    ctx->no_report_kept = 1;
  }
  /* the page pools and the trimmed heads are the caller's thread's (util/arena.h): here, now */
  release_pages(ctx);
  /* the model's pages: swept here, or on a thread (started here, or by the op mapping) */
  tfx_ctx_sweep_model(ctx, threads ? 1 : 0);
  return ctx->release_job ? 0 : ctx->released;
}

uint32_t *tfx_ctx_out_ids(tfx_ctx *ctx, int *oom) {
  *oom = 0;
  const tfx_prune_opts *po = &ctx->prune;
  if (!po->n_outs || !ctx->have_module) return NULL;
  uint32_t *ids = tfx_malloc(po->n_outs * sizeof *ids);
  if (!ids) {
    *oom = 1;
    return NULL;
  }
  for (uint32_t k = 0; k < po->n_outs; k++)
    ids[k] = tfx_graph_find(&ctx->module.main, po->outs[k].name);
  return ids;
}

const tfx_scope_tree *tfx_ctx_scopes(tfx_ctx *ctx) {
  if (ctx->have_scopes) return &ctx->scopes;
  if (!ctx->scopes_stale || !ctx->have_module) return NULL;
  uint32_t max_depth = tfx_limit_uint(ctx->opts ? &ctx->opts->limits : NULL, TFX_LIMIT_SCOPE_DEPTH);
  if (tfx_scope_tree_build_lim(&ctx->scopes, &ctx->module.main, max_depth, ctx->diag) != 0) {
    tfx_scope_tree_free(&ctx->scopes);
    return NULL;
  }
  ctx->scopes_stale = 0;
  ctx->have_scopes = 1;
  return &ctx->scopes;
}

char *tfx_ctx_default_output(const char *model_path, const char *suffix) {
  const char *p = model_path ? model_path : "";
  if (strcmp(p, "-") == 0) p = "stdin"; /* model read from standard input */
  size_t len = strlen(p);
  while (len > 1 && p[len - 1] == '/') len--;   /* "dir/" -> "dir" */
  size_t start = len;
  while (start > 0 && p[start - 1] != '/') start--;
  const char *base = p + start;
  size_t blen = len - start;
  /* Strip the last extension, but not a leading dot (".hidden") and not "." / "..". */
  size_t stem = blen;
  int is_dir = model_path && tfx_is_dir(model_path);
  for (size_t i = blen; i > 1 && !is_dir; i--)
    if (base[i - 1] == '.') {
      stem = i - 1;
      break;
    }
  if (stem == 0 || (blen <= 2 && base[0] == '.')) {
    base = "model";
    stem = 5;
  }
  size_t sl = strlen(suffix);
  char *out = tfx_malloc(stem + sl + 1);
  if (!out) return NULL;
  memcpy(out, base, stem);
  memcpy(out + stem, suffix, sl + 1);
  return out;
}
