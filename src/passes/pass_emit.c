/* EMIT group: write the requested outputs.
 * Stage: passes/EMIT. Input: ctx->model (the TF GraphDef after every earlier pass) and
 * ctx->opts->emit / out_path. Output: files, each written atomically (temp file + rename), so
 * a failure leaves no partial file. GE IR kinds (air, ge-pbtxt, ge-json, dot) arrive with the
 * LOWERING stage; until then asking for them is an error, never a silent no-op. */
#include "passes/passes.h"

#include "tfxc/tfxc.h"

static const char *const emit_names[TFX_EMIT__COUNT] = {
  "air", "ge-pbtxt", "ge-json", "dot", "tf-pbtxt",
};

int tfx_pass_emit_tf(tfx_ctx *ctx, void *user) {
  (void)user;
  const tfx_options *o = ctx->opts;
  if (!o) return 0;
  for (int k = 0; k < TFX_EMIT__COUNT; k++) {
    if (!(o->emit & (1u << k)) || k == TFX_EMIT_TF_PBTXT) continue;
    tfx_error(ctx->diag, NULL, 0, 0, "--emit %s: not implemented yet (GE IR output arrives with the "
              "lowering stage); use --emit tf-pbtxt", emit_names[k]);
    return TFX_EXIT_FAIL;
  }
  if (!(o->emit & (1u << TFX_EMIT_TF_PBTXT))) return 0;
  const char *path = o->out_path[TFX_EMIT_TF_PBTXT];
  if (!path) {
    tfx_error(ctx->diag, NULL, 0, 0, "--emit tf-pbtxt: no output file");
    return TFX_EXIT_USAGE;
  }
  if (!ctx->have_model) {
    tfx_error(ctx->diag, NULL, 0, 0, "--emit tf-pbtxt: no model loaded");
    return TFX_EXIT_FAIL;
  }
  if (tfx_io_write_message(path, &ctx->model.graph->base, TFX_WIRE_TEXT, ctx->diag) != 0)
    return TFX_EXIT_INPUT;
  return 0;
}
