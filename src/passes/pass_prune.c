/* PRUNE group: --input-shape / --out-nodes trimming, as ATC's TrimGraph (facts/ascend.md
 * fact 21, §5 step 2).
 * Stage: passes/PRUNE. Input: ctx->model.graph and the two raw option strings. Output: the
 * GraphDef trimmed in place by the graph module (graph/prune.h; new arrays in the model's
 * arena), the parsed lists kept in ctx->prune (the outputs become the net outputs later), and
 * the module and ScopeTree rebuilt. Exit codes: malformed option strings 2 (usage); names that
 * are not in the graph, or a trim that would leave a dangling input, 3 (a problem of the model
 * relative to the options; documented in docs/CLI.md). */
#include "passes/passes.h"

#include "tfxc/tfxc.h"

int tfx_pass_prune(tfx_ctx *ctx, void *user) {
  (void)user;
  const tfx_options *o = ctx->opts;
  int want_shape = o && o->input_shape && *o->input_shape;
  int want_out = o && o->out_nodes && *o->out_nodes;
  if (!want_shape && !want_out) return 0;
  if (!ctx->have_model) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'prune' needs a loaded model");
    return TFX_EXIT_FAIL;
  }
  tfx_arena *a = &ctx->model.arena;
  tfx_prune_shape *shapes = NULL;
  tfx_prune_out *outs = NULL;
  uint32_t n_shapes = 0, n_outs = 0;
  int rc;
  if (want_shape &&
      (rc = tfx_prune_parse_input_shape(o->input_shape, a, &shapes, &n_shapes, ctx->diag)) != 0)
    return rc;
  if (want_out && (rc = tfx_prune_parse_out_nodes(o->out_nodes, a, &outs, &n_outs, ctx->diag)) != 0)
    return rc;
  tfx_prune_opts po = {shapes, n_shapes, outs, n_outs};
  rc = tfx_prune_graphdef(ctx->model.graph, &po, a, ctx->model.path, ctx->diag);
  if (rc != 0)
    /* The graph module says USAGE for unknown names; for the CLI that is a property of the
     * model relative to the options: exit 3. */
    return rc == TFX_EXIT_USAGE ? TFX_EXIT_INPUT : rc;
  ctx->prune = po;
  ctx->graph_edits++;
  return tfx_ctx_reindex(ctx);
}
