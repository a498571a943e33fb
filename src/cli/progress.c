/* The progress line of a long conversion: after TFX_CLI_PROGRESS_AFTER_MS (2 s) of a run,
 * stderr shows which pass runs and the size of the graph, or how far the pass is ("index,
 * 40960/1000000 nodes": the library's node loops), from the public progress hook
 * (tfxc_progress, include/tfxc/tfxc.h), rewritten in place
 * ("\r...\033[K") and erased when the run ends, so diagnostics print on a clean line.
 * Stage: cli. Only when stderr is a terminal (isatty) and not -q: a log file or a pipe never
 * gets it. The environment variable TFXC_PROGRESS_AFTER_MS overrides the delay (tests use 0). */
#define _POSIX_C_SOURCE 200809L
#include "cli/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) { /* the monotonic clock, in ms */
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0.0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void tfx_cli_progress_fn(void *user, const tfxc_progress *pg) {
  tfx_cli_progress *pr = user;
  double now = now_ms();
  if (!pg->pass) { /* the run is over */
    if (pr->shown) fputs("\r\033[K", stderr);
    pr->shown = 0;
    fflush(stderr);
    return;
  }
  if (now - pr->t0 < pr->after_ms) return;
  /* within a pass (pg->unit set): the first report of a pass, then one per 0.1 s */
  if (pg->unit && pr->pos == pg->pos && pr->in_pass && now - pr->last < 100.0) return;
  pr->in_pass = pg->unit != NULL;
  pr->pos = pg->pos;
  pr->last = now;
  fprintf(stderr, "\rtfxc: [%u/%u] %s", pg->pos, pg->n_passes, pg->pass);
  if (pg->unit) fprintf(stderr, ", %llu/%llu %s", pg->done, pg->total, pg->unit);
  else if (pg->nodes) fprintf(stderr, ", %llu nodes", pg->nodes);
  fprintf(stderr, ", %.1f s\033[K", (now - pr->t0) / 1000.0);
  fflush(stderr);
  pr->shown = 1;
}

int tfx_cli_progress_init(tfx_cli_progress *pr, int verbose) {
  memset(pr, 0, sizeof *pr);
  if (verbose < 0 || !isatty(STDERR_FILENO)) return 0;
  pr->after_ms = TFX_CLI_PROGRESS_AFTER_MS;
  const char *env = getenv("TFXC_PROGRESS_AFTER_MS");
  if (env && *env) {
    char *end;
    double v = strtod(env, &end);
    if (!*end && v >= 0) pr->after_ms = v;
  }
  pr->t0 = now_ms();
  return 1;
}
