/* LOAD group: read the model, index the graph, build the main graph's ScopeTree.
 * Stage: passes/LOAD. Input: ctx->opts (model path, tag, the input limits of --limit). Output: ctx->model,
 * ctx->module, ctx->scopes. Each pass replaces what an earlier run left in the context. */
#include "passes/passes.h"

#include "util/status.h"

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
  if (ctx->have_scopes) tfx_scope_tree_free(&ctx->scopes);
  ctx->have_scopes = 0;
  if (ctx->have_module) tfx_module_free(&ctx->module);
  ctx->have_module = 0;
  int rc = tfx_module_build_lim(&ctx->module, ctx->model.graph, ctx->model.path,
                                ctx->opts && ctx->opts->lenient_index ? TFX_MODULE_LENIENT : 0u,
                                tfx_limit_size(ctx->opts ? &ctx->opts->limits : NULL, TFX_LIMIT_NODES),
                                ctx->diag);
  if (rc != 0) {
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
