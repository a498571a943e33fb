/* The public progress hook (tfxc_set_progress_handler, include/tfxc/tfxc.h) on a pipeline's
 * progress hook (passes/pipeline.h): each call becomes a tfxc_progress record. Stage: api.
 * Used by tfxc_run and by the command line's convert, which still drives its own pipeline. */
#include <string.h>

#include "api/api_int.h"

static void adapt(void *user, const tfx_ctx *ctx, const tfx_pass *pass, unsigned pos,
                  unsigned n_run, int finished) {
  const tfx_api_progress *ap = user;
  tfxc_progress pg;
  memset(&pg, 0, sizeof pg);
  pg.pass = finished || !pass ? NULL : pass->name;
  pg.pos = pos;
  pg.n_passes = n_run;
  if (ctx->have_module) pg.nodes = ctx->module.main.n_nodes;
  if (!finished && ctx->progress_unit) {
    pg.unit = ctx->progress_unit;
    pg.done = ctx->progress_done;
    pg.total = ctx->progress_total;
  }
  ap->fn(ap->user, &pg);
}

void tfx_api_progress_install(tfx_api_progress *ap, tfx_pipeline *p, tfxc_progress_fn fn,
                              void *user) {
  ap->fn = fn;
  ap->user = user;
  p->progress = fn ? adapt : NULL;
  p->progress_user = fn ? ap : NULL;
}
