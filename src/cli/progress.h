/* The progress line of long conversions on a terminal (progress.c). Stage: cli. */
#ifndef TFX_CLI_PROGRESS_H
#define TFX_CLI_PROGRESS_H

#include "passes/pipeline.h"

#define TFX_CLI_PROGRESS_AFTER_MS 2000.0 /* a run shorter than this shows nothing */

typedef struct tfx_cli_progress {
  double t0, after_ms;
  int shown; /* a line is on the terminal */
  const void *pass; /* the pass of the last line, whether it was within the pass, its time */
  int in_pass;
  double last;
} tfx_cli_progress;

/* Hooks pr (which must outlive the run) into p when stderr is a terminal and verbose >= 0
 * (not -q); otherwise leaves p alone. */
void tfx_cli_progress_install(tfx_cli_progress *pr, tfx_pipeline *p, int verbose);

#endif
