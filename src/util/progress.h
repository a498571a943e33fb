/* Progress within a long pass: a loop over the nodes of a graph says how far it is, cheaply,
 * and whoever runs the pass (passes/pipeline.c, for the CLI's progress line) may listen.
 * Stage: shared utility. The listener is per thread (sessions in several threads each have
 * their own); with none installed a call is one thread-local load and a branch. A loop calls
 * tfx_progress_nodes(i, n) at the top of iteration i; the listener hears about every 4096th
 * node (and node 0). Nothing in the library prints progress. */
#ifndef TFX_UTIL_PROGRESS_H
#define TFX_UTIL_PROGRESS_H

#include <stdint.h>

typedef struct tfx_progress_sink {
  /* done of total units ("nodes", "scope tests") of the running pass */
  void (*fn)(void *user, uint64_t done, uint64_t total, const char *unit);
  void *user;
} tfx_progress_sink;

extern _Thread_local const tfx_progress_sink *tfx_progress_current;

/* Installs sink for this thread (NULL: none); returns the one it replaces. */
const tfx_progress_sink *tfx_progress_install(const tfx_progress_sink *sink);

/* Every call reaches the listener: for loops over a few large steps. */
static inline void tfx_progress_units(uint64_t done, uint64_t total, const char *unit) {
  const tfx_progress_sink *s = tfx_progress_current;
  if (__builtin_expect(s != 0, 0)) s->fn(s->user, done, total, unit);
}

/* Node loops: node 0 and every 4096th node reach the listener. */
static inline void tfx_progress_nodes(uint64_t done, uint64_t total) {
  const tfx_progress_sink *s = tfx_progress_current;
  if (__builtin_expect(s != 0, 0) && (done & 4095u) == 0) s->fn(s->user, done, total, "nodes");
}

#endif
