/* The per-thread progress listener (progress.h). Stage: shared utility. */
#include "util/progress.h"

_Thread_local const tfx_progress_sink *tfx_progress_current;

const tfx_progress_sink *tfx_progress_install(const tfx_progress_sink *sink) {
  const tfx_progress_sink *old = tfx_progress_current;
  tfx_progress_current = sink;
  return old;
}
