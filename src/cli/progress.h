/* The progress line of long conversions on a terminal (progress.c). Stage: cli. */
#ifndef TFX_CLI_PROGRESS_H
#define TFX_CLI_PROGRESS_H

#include "tfxc/tfxc.h"

#define TFX_CLI_PROGRESS_AFTER_MS 2000.0 /* a run shorter than this shows nothing */

typedef struct tfx_cli_progress {
  double t0, after_ms;
  int shown; /* a line is on the terminal */
  unsigned pos;     /* the pass (run position) of the last line, whether it was within the
                     * pass, its time */
  int in_pass;
  double last;
} tfx_cli_progress;

/* Readies pr and returns 1 when stderr is a terminal and verbose >= 0 (not -q): then hand
 * tfx_cli_progress_fn with pr (which must outlive the run) to the library's progress hook.
 * Otherwise returns 0. */
int tfx_cli_progress_init(tfx_cli_progress *pr, int verbose);
/* The progress hook (a tfxc_progress_fn; user is the tfx_cli_progress). */
void tfx_cli_progress_fn(void *user, const tfxc_progress *pg);

#endif
