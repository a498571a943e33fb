/* The progress line of a long conversion: after TFX_CLI_PROGRESS_AFTER_MS (2 s) of a run,
 * stderr shows which pass runs and the size of the graph, or how far the pass is ("index,
 * 40960/1000000 nodes": the library's node loops, ctx->progress_*), rewritten in place
 * ("\r...\033[K") and erased when the run ends, so diagnostics print on a clean line.
 * Stage: cli. Only when stderr is a terminal (isatty) and not -q: a log file or a pipe never
 * gets it. The environment variable TFXC_PROGRESS_AFTER_MS overrides the delay (tests use 0). */
#define _POSIX_C_SOURCE 200809L
#include "cli/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_pass(void *user, const tfx_ctx *ctx, const tfx_pass *pass, unsigned pos,
                    unsigned n_run, int finished) {
  tfx_cli_progress *pr = user;
  double now = tfx_pipeline_now_ms();
  if (finished) {
    if (pr->shown) fputs("\r\033[K", stderr);
    pr->shown = 0;
    fflush(stderr);
    return;
  }
  if (now - pr->t0 < pr->after_ms) return;
  /* within a pass (ctx->progress_unit set): the first report of a pass, then one per 0.1 s */
  if (ctx->progress_unit && pr->pass == pass && pr->in_pass && now - pr->last < 100.0) return;
  pr->in_pass = ctx->progress_unit != NULL;
  pr->pass = pass;
  pr->last = now;
  unsigned long long nodes = 0;
  if (ctx->have_module) nodes = ctx->module.main.n_nodes;
  fprintf(stderr, "\rtfxc: [%u/%u] %s", pos, n_run, pass->name);
  if (ctx->progress_unit)
    fprintf(stderr, ", %llu/%llu %s", (unsigned long long)ctx->progress_done,
            (unsigned long long)ctx->progress_total, ctx->progress_unit);
  else if (nodes) fprintf(stderr, ", %llu nodes", nodes);
  fprintf(stderr, ", %.1f s\033[K", (now - pr->t0) / 1000.0);
  fflush(stderr);
  pr->shown = 1;
}

void tfx_cli_progress_install(tfx_cli_progress *pr, tfx_pipeline *p, int verbose) {
  memset(pr, 0, sizeof *pr);
  if (verbose < 0 || !isatty(STDERR_FILENO)) return;
  pr->after_ms = TFX_CLI_PROGRESS_AFTER_MS;
  const char *env = getenv("TFXC_PROGRESS_AFTER_MS");
  if (env && *env) {
    char *end;
    double v = strtod(env, &end);
    if (!*end && v >= 0) pr->after_ms = v;
  }
  pr->t0 = tfx_pipeline_now_ms();
  p->progress = on_pass;
  p->progress_user = pr;
}
