/* LOAD group: read the model, index the graph, build the main graph's ScopeTree.
 * Stage: passes/LOAD. Input: ctx->opts (model path, tag, the input limits of --limit). Output: ctx->model,
 * ctx->module, ctx->scopes. Each pass replaces what an earlier run left in the context.
 *
 * The ScopeTree on a second thread (issue 16). The tree reads only the main graph's node names
 * and op ids (scope.c): the names are the GraphDef's (the index borrows them: prune ran before
 * it and nothing writes them after), and the op ids are final once the index has swept the main
 * graph (tfx_module_build_cb calls back then). So when the run's jobs allow threads
 * (tfx_io_jobs: 0 = automatic is 2 with more than one processor; 1 = none, today's serial
 * build) and the pipeline says the next pass to run is "scope-tree" (ctx->scope_tree_next; a
 * pass in between could edit the GraphDef), the index pass starts a thread before it indexes
 * anything: tfx_scope_tree_build_defs places the names read from the NodeDefs while the index
 * is built, makes the scopes and their children, then waits (a mutex and a condition, `state`)
 * for the index's callback before it reads the op ids to count them (at 10^6 nodes: the tree's
 * ~185 ms under the index's ~300 ms, ~7 ms left to wait for at the join; index + scope-tree
 * 486 -> 329 ms, the index ~20 ms slower beside it). The scope-tree pass joins it and returns
 * what the build returned. The tree is the same, byte for byte, as the serial build's: the
 * same placement over the same strings, the same finish over the same index.
 * Nothing writes what the thread reads while it runs: the NodeDefs are only read by the index;
 * what the index writes before the callback (the node records, the module) the thread reads
 * only after it (the mutex orders them), and after it the index writes other fields (in[],
 * uses, topo) and other memory; the passes that re-index (scope fusion, dataflow) run after
 * the scope-tree pass.
 * - Diagnostics (a tfx_diag is not thread-safe): the thread reports into a diag of its own,
 *   copied into ctx->diag on the join by the scope-tree pass, so its messages (the scope-depth
 *   limit, out of memory) come where the serial build puts them, after everything the index
 *   said, with the same exit code. A tree that is not kept (below) drops them.
 * - Every way out joins first (tfx_ctx_scope_join with keep 0: the thread told the index is not
 *   coming if it waits, tree and messages dropped, as if it had not been built): the index
 *   failing (the thread may have found a scope-depth error meanwhile: dropped, as the serial
 *   run never builds the tree after a failed index), the index pass run
 *   again, tfx_ctx_free, a re-index, and tfx_pipeline_run at the end of every run whatever pass
 *   it stopped at (--stop-after, an error, a dump that failed): no thread outlives a run.
 * - Memory: the tree's arena is made in the thread (its big chunks are whole pages mapped
 *   there: the thread is in no run and keeps no page pool, util/arena.h) and freed by the
 *   caller's thread later (a chunk is only memory, as for tfx_arena_adopt). The thread counts
 *   and fails allocations as the caller's (util/thread.h tfx_thread_start), so the fault-injection sweeps
 *   reach the tree's allocations; a job record or a thread that cannot be had is no error: the
 *   scope-tree pass then builds the tree itself. */
#include "passes/passes.h"

#include <pthread.h>
#include <stdlib.h>

#include "util/arena.h"
#include "util/status.h"
#include "util/thread.h"

typedef struct tfx_scope_job {
  pthread_t th;
  tfx_scope_tree *t;     /* ctx->scopes: the thread's until the join */
  const tfx_graph *g;    /* &ctx->module.main: read after `state` says READY (n_nodes, op ids) */
  Tensorflow__NodeDef *const *defs; /* the GraphDef's nodes: the names, read from the start */
  uint32_t n;            /* their number */
  uint32_t max_depth;    /* the scope-depth limit */
  pthread_mutex_t lock;  /* guards state */
  pthread_cond_t cond;
  int state;             /* JOB_WAIT, then JOB_READY (the index's callback) or JOB_ABORT */
  tfx_diag diag;         /* what the build reported, copied to ctx->diag by a keeping join */
  tfx_status rc;         /* what the build returned (TFX_E_FAIL: abandoned, nothing reported) */
} tfx_scope_job;

enum { JOB_WAIT, JOB_READY, JOB_ABORT };

static void scope_job_set(tfx_scope_job *j, int state) {
  pthread_mutex_lock(&j->lock);
  if (j->state == JOB_WAIT) j->state = state;
  pthread_cond_signal(&j->cond);
  pthread_mutex_unlock(&j->lock);
}

/* tfx_scope_tree_build_defs's wait: until the index has the op ids (0) or gave up (1). */
static int scope_job_wait(void *user) {
  tfx_scope_job *j = user;
  pthread_mutex_lock(&j->lock);
  while (j->state == JOB_WAIT) pthread_cond_wait(&j->cond, &j->lock);
  int st = j->state;
  pthread_mutex_unlock(&j->lock);
  return st != JOB_READY;
}

static void *scope_job_main(void *arg) {
  tfx_scope_job *j = arg;
  j->rc = tfx_scope_tree_build_defs(j->t, j->g, j->defs, j->n, scope_job_wait, j, j->max_depth,
                                    &j->diag);
  if (j->rc != 0) tfx_scope_tree_free(j->t); /* a failed build may hold partial tables */
  return NULL;
}

/* Starts the tree's thread over the GraphDef's node names, before the index. */
static void scope_job_start(tfx_ctx *ctx) {
  const Tensorflow__GraphDef *gd = ctx->model.graph;
  if (!gd || gd->n_node >= TFX_NO_ID) return; /* the index reports it; no tree */
  tfx_scope_job *j = tfx_calloc(1, sizeof *j);
  if (!j) return; /* the scope-tree pass builds it */
  j->t = &ctx->scopes;
  j->g = &ctx->module.main;
  j->defs = gd->node;
  j->n = (uint32_t)gd->n_node;
  j->max_depth = tfx_limit_uint(ctx->opts ? &ctx->opts->limits : NULL, TFX_LIMIT_SCOPE_DEPTH);
  j->state = JOB_WAIT;
  tfx_diag_init(&j->diag);
  if (pthread_mutex_init(&j->lock, NULL) != 0) goto no_lock;
  if (pthread_cond_init(&j->cond, NULL) != 0) goto no_cond;
  if (tfx_thread_start(&j->th, scope_job_main, j, 0) != 0) goto no_thread;
  ctx->scope_job = j;
  return;
no_thread:
  pthread_cond_destroy(&j->cond);
no_cond:
  pthread_mutex_destroy(&j->lock);
no_lock:
  tfx_diag_free(&j->diag);
  free(j);
}

/* tfx_module_named_fn: the main graph's names and op ids are final: the thread may read them. */
static void scope_job_ready(void *user, const tfx_graph *main) {
  tfx_ctx *ctx = user;
  (void)main; /* &ctx->module.main, the job's g */
  if (ctx->scope_job) scope_job_set(ctx->scope_job, JOB_READY);
}

int tfx_ctx_scope_join(tfx_ctx *ctx, int keep) {
  tfx_scope_job *j = ctx->scope_job;
  if (!j) return keep ? -1 : TFX_OK;
  scope_job_set(j, JOB_ABORT); /* still waiting for the index: it is not coming */
  (void)pthread_join(j->th, NULL);
  ctx->scope_job = NULL;
  pthread_cond_destroy(&j->cond);
  pthread_mutex_destroy(&j->lock);
  int rc = TFX_OK;
  if (keep && j->rc == TFX_E_FAIL) { /* abandoned (never after an index that succeeded) */
    rc = -1;
  } else if (keep) {
    for (size_t i = 0; i < j->diag.n; i++) { /* in order; the build's items carry no source */
      const tfx_diag_item *it = &j->diag.items[i];
      tfx_diag_add(ctx->diag, it->sev, it->file, it->line, it->col, "%s", it->msg);
    }
    rc = j->rc;
    ctx->have_scopes = rc == TFX_OK;
  } else if (j->rc == TFX_OK) {
    tfx_scope_tree_free(&ctx->scopes);
  }
  tfx_diag_free(&j->diag);
  free(j);
  return rc;
}

tfx_status tfx_pass_load(tfx_ctx *ctx, void *user) {
  (void)user;
  const tfx_options *o = ctx->opts;
  if (!o || !o->model_path) {
    tfx_error(ctx->diag, NULL, 0, 0, "no model given");
    return TFX_E_USAGE;
  }
  tfx_ctx_free(ctx); /* a fresh load invalidates any index or tree */
  tfx_load_opts lo = {0};
  lo.tag = o->tag;
  lo.max_file_size = o->max_file_size;
  lo.max_depth = tfx_limit_uint(&o->limits, TFX_LIMIT_DEPTH);
  lo.max_string = tfx_limit_size(&o->limits, TFX_LIMIT_STRING);
  lo.max_list = tfx_limit_size(&o->limits, TFX_LIMIT_LIST);
  lo.jobs = o->jobs;
  int rc = tfx_io_load_model(o->model_path, &lo, &ctx->model, ctx->diag);
  if (rc != 0) return rc;
  ctx->have_model = 1;
  return 0;
}

tfx_status tfx_pass_index(tfx_ctx *ctx, void *user) {
  (void)user;
  if (!ctx->have_model) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'index' needs a loaded model");
    return TFX_E_FAIL;
  }
  (void)tfx_ctx_scope_join(ctx, 0); /* a tree of an earlier index */
  if (ctx->have_scopes) tfx_scope_tree_free(&ctx->scopes);
  ctx->have_scopes = 0;
  if (ctx->have_module) tfx_module_free(&ctx->module);
  ctx->have_module = 0;
  /* the tree on a thread (top of file): jobs 1 never starts one */
  if (ctx->scope_tree_next && tfx_io_jobs(ctx->opts ? ctx->opts->jobs : 0) >= 2)
    scope_job_start(ctx);
  int rc = tfx_module_build_cb(&ctx->module, ctx->model.graph, ctx->model.path,
                               ctx->opts && ctx->opts->lenient_index ? TFX_MODULE_LENIENT : 0u,
                               tfx_limit_size(ctx->opts ? &ctx->opts->limits : NULL, TFX_LIMIT_NODES),
                               ctx->scope_job ? scope_job_ready : NULL, ctx, ctx->diag);
  if (rc != 0) {
    (void)tfx_ctx_scope_join(ctx, 0); /* it reads the module: before it goes */
    tfx_module_free(&ctx->module); /* a failed build may hold partial tables */
    return rc;
  }
  ctx->have_module = 1;
  return 0;
}

tfx_status tfx_pass_scope_tree(tfx_ctx *ctx, void *user) {
  (void)user;
  if (!ctx->have_module) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'scope-tree' needs the graph index (pass 'index')");
    return TFX_E_FAIL;
  }
  /* the index pass's thread (top of file): its result, reported now, as the build below would
   * (-1: it gave up waiting for an index, which cannot happen after one that succeeded) */
  if (ctx->scope_job) {
    int jr = tfx_ctx_scope_join(ctx, 1);
    if (jr >= 0) return jr;
  }
  if (ctx->have_scopes) tfx_scope_tree_free(&ctx->scopes);
  ctx->have_scopes = 0;
  int rc = tfx_scope_tree_build_lim(&ctx->scopes, &ctx->module.main,
                                    tfx_limit_uint(ctx->opts ? &ctx->opts->limits : NULL,
                                                   TFX_LIMIT_SCOPE_DEPTH),
                                    ctx->diag);
  if (rc != 0) {
    tfx_scope_tree_free(&ctx->scopes); /* a failed build may hold partial tables */
    return rc;
  }
  ctx->have_scopes = 1;
  return 0;
}
