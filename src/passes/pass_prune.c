/* PRUNE group: the model's inputs and outputs. --input-shape / --out-nodes trimming, as ATC's
 * TrimGraph (docs/ASCEND.md §7.2); for a conversion also the signature of a
 * MetaGraphDef / SavedModel (--signature, passes/signature.h) and the removal of training
 * machinery (graph/training.h).
 * Stage: passes/PRUNE. Input: ctx->model.graph and the raw option strings. Output: the
 * GraphDef trimmed in place by the graph module (graph/prune.h; new arrays in the model's
 * arena), the parsed lists kept in ctx->prune (the outputs become the net outputs later), and
 * the module and ScopeTree rebuilt. Exit codes: malformed option strings 2 (usage); names that
 * are not in the graph, or a trim that would leave a dangling input, 3 (a problem of the model
 * relative to the options; documented in docs/CLI.md); a signature that does not fit the graph
 * or an unknown --signature name, 3. The training machinery is handled only for a GE output
 * or --check: what the outputs still need of it is one warning per op type. */
#include "passes/passes.h"

#include "graph/training.h"
#include "passes/signature.h"
#include "util/status.h"

tfx_status tfx_pass_prune(tfx_ctx *ctx, void *user) {
  (void)user;
  const tfx_options *o = ctx->opts;
  int want_shape = o && o->input_shape && *o->input_shape;
  int want_out = o && o->out_nodes && *o->out_nodes;
  int select = o && (o->select_outputs || o->signature);
  if (!want_shape && !want_out && !select) return 0;
  if (!ctx->have_model) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'prune' needs a loaded model");
    return TFX_E_FAIL;
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
  if (want_out && o->signature) {
    tfx_error(ctx->diag, NULL, 0, 0, "--signature and --out-nodes both choose the outputs; give one");
    return TFX_E_USAGE;
  }
  const Tensorflow__SignatureDef *sig = NULL;
  const char *sig_name = NULL;
  if (select && !want_out && (rc = tfx_sig_choose(ctx, &sig, &sig_name)) != 0) return rc;
  if (sig) {
    if ((rc = tfx_sig_apply(ctx, sig, sig_name, shapes, n_shapes)) != 0) return rc;
  } else if (want_shape || want_out) {
    tfx_prune_opts po = {shapes, n_shapes, outs, n_outs};
    rc = tfx_prune_graphdef(ctx->model.graph, &po, a, ctx->model.path, ctx->diag);
    if (rc != 0)
      /* The graph module says USAGE for unknown names; for the CLI that is a property of the
       * model relative to the options: exit 3. */
      return rc == TFX_E_USAGE ? TFX_E_INPUT : rc;
    ctx->prune = po;
  }
  /* the training machinery goes only for an inference model (a GE output or --check); with
   * --emit tf-pbtxt alone the graph stays as ATC's parser would see it */
  int ge = o && (o->check_only || (o->emit & ~(1u << TFX_EMIT_TF_PBTXT)));
  int any_train = 1; /* unknown: the report looks */
  if (select && ge && !sig && !want_out) {
    uint32_t removed = 0;
    if ((rc = tfx_train_prune(ctx->model.graph, a, ctx->model.path, ctx->diag, &removed,
                              &any_train)) != 0)
      return rc;
    if (removed && o->verbose > 0)
      tfx_diag_add(ctx->diag, TFX_SEV_NOTE, ctx->model.path, 0, 0,
                   "removed %u node%s that only training, checkpointing or summaries need",
                   (unsigned)removed, removed == 1 ? "" : "s");
  }
  if (select && (ge || sig)) {
    /* library functions nothing uses any more (TF2's save/restore functions) */
    uint32_t removed = 0;
    if ((rc = tfx_train_strip_functions(ctx->model.graph, a, ctx->model.path, ctx->diag, &removed)) != 0)
      return rc;
    if (removed && o->verbose > 0)
      tfx_diag_add(ctx->diag, TFX_SEV_NOTE, ctx->model.path, 0, 0,
                   "removed %u library function%s the outputs do not use", (unsigned)removed,
                   removed == 1 ? "" : "s");
  }
  if (select && ge && any_train) { /* the prune saw none: nothing to report, no second walk */
    /* what the outputs still need of the training machinery: one warning per op type (the op
     * mapping then fails on the types without a CANN op, --check lists them) */
    if (tfx_train_report(ctx->model.graph, ctx->model.path, TFX_SEV_WARNING, ctx->diag) < 0)
      return TFX_E_NOMEM; /* reported */
  }
  ctx->graph_edits++;
  return tfx_ctx_reindex(ctx);
}
