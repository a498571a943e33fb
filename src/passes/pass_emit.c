/* EMIT group: write the requested outputs.
 * Stage: passes/EMIT. Input: ctx->model (the TF GraphDef after every earlier pass; pass
 * "emit-tf") and ctx->ge (the lowered GE model; pass "emit-ge"), ctx->opts->emit / out_path.
 * Output: files, each written atomically (temp file + rename), so a failure leaves no partial
 * file. emit-ge serializes every requested kind before it writes the first file, so a kind
 * that cannot be produced (e.g. a model over 2 GiB for air) leaves no file at all. */
#include "passes/passes.h"

#include <stdlib.h>

#include "ge/ge.h"
#include "tfxc/tfxc.h"
#include "util/fileio.h"

static const char *const emit_names[TFX_EMIT__COUNT] = {
  "air", "ge-pbtxt", "ge-json", "dot", "tf-pbtxt",
};

typedef int (*ge_emit_fn)(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d);
static const ge_emit_fn ge_emitters[TFX_EMIT__COUNT] = {
  [TFX_EMIT_AIR] = tfx_ge_emit_air,
  [TFX_EMIT_GE_PBTXT] = tfx_ge_emit_pbtxt,
  [TFX_EMIT_GE_JSON] = tfx_ge_emit_json,
  [TFX_EMIT_DOT] = tfx_ge_emit_dot,
};

int tfx_pass_emit_ge(tfx_ctx *ctx, void *user) {
  (void)user;
  const tfx_options *o = ctx->opts;
  if (!o || o->check_only || !(o->emit & ~(1u << TFX_EMIT_TF_PBTXT))) return 0;
  if (!ctx->ge || !ctx->ge->model) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'emit-ge' needs the GE model (pass 'lowering')");
    return TFX_EXIT_FAIL;
  }
  tfx_strbuf out[TFX_EMIT__COUNT];
  int rc = 0;
  for (int k = 0; k < TFX_EMIT__COUNT; k++) tfx_sb_init(&out[k]);
  for (int k = 0; k < TFX_EMIT__COUNT && rc == 0; k++) {
    if (!(o->emit & (1u << k)) || !ge_emitters[k]) continue;
    if (!o->out_path[k]) {
      tfx_error(ctx->diag, NULL, 0, 0, "--emit %s: no output file", emit_names[k]);
      rc = TFX_EXIT_USAGE;
      break;
    }
    rc = ge_emitters[k](ctx->ge->model, &out[k], ctx->diag);
    if (rc == 0 && out[k].oom) {
      tfx_error(ctx->diag, NULL, 0, 0, "out of memory writing --emit %s", emit_names[k]);
      rc = TFX_EXIT_FAIL;
    }
  }
  for (int k = 0; k < TFX_EMIT__COUNT && rc == 0; k++) {
    if (!(o->emit & (1u << k)) || !ge_emitters[k]) continue;
    if (tfx_write_file_atomic(o->out_path[k], out[k].data, out[k].len, ctx->diag) != 0)
      rc = TFX_EXIT_INPUT;
  }
  for (int k = 0; k < TFX_EMIT__COUNT; k++) tfx_sb_free(&out[k]);
  return rc;
}

int tfx_pass_emit_tf(tfx_ctx *ctx, void *user) {
  (void)user;
  const tfx_options *o = ctx->opts;
  if (!o || o->check_only) return 0;
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
