/* LOWERING group, pass "lowering": builds the GE IR model (ge/ge.h) from the mapped module.
 * Stage: passes/LOWERING. Input: ctx->module, ctx->opmap (pass "op-mapping"), the run's CANN
 * prototypes (tfx_ctx_protos: port names of user prototypes too), --input-format,
 * the parsed --input-shape / --out-nodes (ctx->prune). Output: ctx->ge. Skipped when no GE
 * output is asked for. The precheck (--check) runs it too, so that it fails exactly when the
 * conversion would: each lowering error that names a node becomes that node's failure in the
 * report (tfx_precheck_lowering); nothing is emitted. With nodes already failed it is skipped
 * (lowering needs every node mapped; the precheck fails anyway). */
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "ge/ge.h"
#include "passes/passes.h"
#include "util/status.h"

int tfx_pass_lower(tfx_ctx *ctx, void *user) {
  (void)user;
  if (!tfx_ctx_wants_mapping(ctx)) return 0;
  if (!ctx->opmap) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'lowering' needs the op mapping (pass 'op-mapping')");
    return TFX_E_FAIL;
  }
  int check = ctx->opts->check_only;
  if (check && ctx->opmap->n_failed) return 0;
  size_t first_diag = ctx->diag->n;
  const tfx_cann_table *protos = tfx_ctx_protos(ctx); /* user prototypes over the stdlib's */
  if (!protos) return TFX_E_FAIL;
  char *stem = tfx_ctx_default_output(ctx->opts->model_path, "");
  if (!stem) {
    tfx_error(ctx->diag, NULL, 0, 0, "out of memory (lowering)");
    return TFX_E_FAIL;
  }
  if (ctx->ge) {
    tfx_ge_model_free(ctx->ge);
    free(ctx->ge);
  }
  ctx->ge = tfx_malloc(sizeof *ctx->ge);
  if (!ctx->ge) {
    free(stem);
    tfx_error(ctx->diag, NULL, 0, 0, "out of memory (lowering)");
    return TFX_E_FAIL;
  }
  tfx_ge_lower_opts lo;
  memset(&lo, 0, sizeof lo);
  lo.model_name = stem;
  lo.input_format = ctx->opts->input_format;
  lo.prune = &ctx->prune;
  int rc = tfx_ge_lower(ctx->ge, &ctx->module, ctx->opmap, protos, &lo, ctx->diag);
  free(stem);
  return check ? tfx_precheck_lowering(ctx, first_diag, rc) : rc;
}
