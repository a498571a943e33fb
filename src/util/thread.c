/* See thread.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT (Linux); else sysconf */
#include "util/thread.h"

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/arena.h"
#include "util/fileio.h"

unsigned tfx_jobs_auto(void) {
#if defined(__linux__) && defined(CPU_COUNT)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set) > 1 ? 2 : 1;
#endif
  return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
}

/* What a started thread runs first: the starter's fault-injection state (NULL and nothing
 * without the hooks), then fn; the record is malloc's own (not a counted allocation: a thread
 * start is not among the work a fault sweep fails, and without it there is no thread). */
typedef struct thread_start {
  void *(*fn)(void *);
  void *arg;
  void *alloc_hooks, *write_state;
} thread_start;

static void *thread_main(void *p) {
  thread_start t = *(thread_start *)p;
  free(p);
  tfx_alloc_hooks_use(t.alloc_hooks);
  tfx_write_fault_follow(t.write_state);
  void *r = t.fn(t.arg);
  tfx_write_fault_follow(NULL);
  tfx_alloc_hooks_use(NULL);
  return r;
}

int tfx_thread_start(pthread_t *th, void *(*fn)(void *), void *arg, size_t stack) {
  thread_start *t = malloc(sizeof *t);
  if (!t) return -1;
  *t = (thread_start){fn, arg, tfx_alloc_hooks_get(), tfx_write_fault_state()};
  pthread_attr_t at;
  int have = pthread_attr_init(&at) == 0;
  if (have && stack) (void)pthread_attr_setstacksize(&at, stack); /* else the default */
  /* the thread inherits the creator's mask: all blocked for the creation, then restored */
  sigset_t all, old;
  sigfillset(&all);
  int masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
  int rc = pthread_create(th, have ? &at : NULL, thread_main, t);
  if (masked) (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (have) pthread_attr_destroy(&at);
  if (rc != 0) free(t);
  return rc == 0 ? 0 : -1;
}
