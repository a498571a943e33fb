/* LOWERING group, pass "lowering": builds the GE IR model (ge/ge.h) from the mapped module.
 * Stage: passes/LOWERING. Input: ctx->module, ctx->opmap (pass "op-mapping"), the run's CANN
 * prototypes (tfx_ctx_protos: port names of user prototypes too), --input-format,
 * the parsed --input-shape / --out-nodes (ctx->prune). Output: ctx->ge. Skipped when no GE
 * output is asked for. The precheck (--check) runs it too, so that it fails exactly when the
 * conversion would: each lowering error that names a node becomes that node's failure in the
 * report (tfx_precheck_lowering); nothing is emitted. With nodes already failed it is skipped
 * (lowering needs every node mapped; the precheck fails anyway). Before lowering starts, what
 * nothing reads any more is released (tfx_ctx_release_unused: the ScopeTree, the loaded
 * model's unreachable pages; with the option no_report the reports and the main graph's name
 * map, so the --out-nodes are looked up first and handed over as node ids). With the
 * lowering's jobs allowing a second thread, the walk that finds the model's unreachable pages
 * (~190 ms at 10^6 nodes) runs on it, started by the op-mapping pass (tfx_ctx_sweep_model),
 * beside the op mapping and lowering, which only read the model; this pass joins it on every
 * way out (tfx_ctx_release_join), so ctx->released is set when it returns. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "ge/ge.h"
#include "passes/passes.h"
#include "util/status.h"

static tfx_status lower_run(tfx_ctx *ctx) {
  if (!tfx_ctx_wants_mapping(ctx)) return 0;
  if (!ctx->opmap) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'lowering' needs the op mapping (pass 'op-mapping')");
    return TFX_E_FAIL;
  }
  int check = ctx->opts->check_only;
  if (check && ctx->opmap->n_failed) return 0;
  size_t first_diag = ctx->diag->n;
  /* --out-nodes by id: looked up while the name map is there */
  int oom;
  uint32_t *out_ids = tfx_ctx_out_ids(ctx, &oom);
  if (oom) {
    tfx_error(ctx->diag, NULL, 0, 0, "out of memory (lowering)");
    return TFX_E_NOMEM;
  }
  /* the GraphDef is final: the pages of removed nodes, the ScopeTree (and, when no report is
   * wanted, the reports and the name map) go back before the lowering's own memory grows
   * (context.h) */
  tfx_ctx_release_unused(ctx, tfx_io_jobs((unsigned)tfx_ctx_lower_jobs(ctx)) >= 2);
  const tfx_cann_table *protos = tfx_ctx_protos(ctx); /* user prototypes over the stdlib's */
  char *stem = protos ? tfx_ctx_default_output(ctx->opts->model_path, "") : NULL;
  if (!stem) {
    free(out_ids);
    if (!protos) return TFX_E_FAIL;
    tfx_error(ctx->diag, NULL, 0, 0, "out of memory (lowering)");
    return TFX_E_NOMEM;
  }
  if (ctx->ge) {
    tfx_ge_model_free(ctx->ge);
    free(ctx->ge);
  }
  ctx->ge = tfx_malloc(sizeof *ctx->ge);
  if (!ctx->ge) {
    free(stem);
    free(out_ids);
    tfx_error(ctx->diag, NULL, 0, 0, "out of memory (lowering)");
    return TFX_E_NOMEM;
  }
  tfx_ge_lower_opts lo;
  memset(&lo, 0, sizeof lo);
  lo.model_name = stem;
  lo.input_format = ctx->opts->input_format;
  lo.prune = &ctx->prune;
  lo.out_ids = out_ids;
  lo.jobs = tfx_ctx_lower_jobs(ctx);
  /* A conversion to an .air file alone (tf-pbtxt aside, which is printed from the TF model)
   * lowers straight into the .air bytes (ge.h: stream_air): the whole GE model is never built.
   * The text kinds print from the model, the library's tfxc_emit and the precheck read it, so
   * they keep it. A model whose .air would be over the external-weights threshold (or 2 GiB) is
   * lowered again, whole, for tfx_ge_externalize or the emitter's error (its diagnostics are
   * the first run's: dropped). */
  const tfx_options *o = ctx->opts;
  unsigned text_kinds =
      (1u << TFX_EMIT_GE_PBTXT) | (1u << TFX_EMIT_GE_JSON) | (1u << TFX_EMIT_DOT);
  size_t ext = tfx_limit_size(&o->limits, TFX_LIMIT_EXTERNAL_WEIGHTS);
  if (ext == 0) ext = tfx_ge_external_default();
  lo.stream_air = !check && (o->emit & (1u << TFX_EMIT_AIR)) && o->out_path[TFX_EMIT_AIR] &&
                  !(o->emit & text_kinds);
  lo.air_max = ext < (size_t)INT_MAX ? ext : (size_t)INT_MAX;
  /* streaming: the records go to a spill file beside the .air, not memory (ge/air_sink.c) */
  if (lo.stream_air) lo.air_path = o->out_path[TFX_EMIT_AIR];
  int rc = tfx_ge_lower(ctx->ge, &ctx->module, ctx->opmap, protos, &lo, ctx->diag);
  if (rc == 0 && lo.stream_air && !ctx->ge->streamed) {
    tfx_ge_model_free(ctx->ge);
    tfx_diag again;
    tfx_diag_init(&again);
    lo.stream_air = 0;
    rc = tfx_ge_lower(ctx->ge, &ctx->module, ctx->opmap, protos, &lo, &again);
    for (size_t i = 0; rc && i < again.n; i++) /* its errors (out of memory) are shown */
      if (again.items[i].sev == TFX_SEV_ERROR)
        tfx_diag_add(ctx->diag, TFX_SEV_ERROR, again.items[i].file, again.items[i].line,
                     again.items[i].col, "%s", again.items[i].msg);
    tfx_diag_free(&again);
  }
  free(stem);
  free(out_ids);
  return check ? tfx_precheck_lowering(ctx, first_diag, rc) : rc;
}

tfx_status tfx_pass_lower(tfx_ctx *ctx, void *user) {
  (void)user;
  tfx_status rc = lower_run(ctx);
  /* the sweep beside lowering (tfx_ctx_sweep_model) is done; a GraphDef edited meanwhile is
   * an internal error (reported) */
  if (tfx_ctx_release_join(ctx) && rc == 0) rc = TFX_E_FAIL;
  return rc;
}
