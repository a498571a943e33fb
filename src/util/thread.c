/* See thread.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT (Linux); else sysconf */
#include "util/thread.h"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

unsigned tfx_jobs_auto(void) {
#if defined(__linux__) && defined(CPU_COUNT)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set) > 1 ? 2 : 1;
#endif
  return sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
}

int tfx_thread_start(pthread_t *th, void *(*fn)(void *), void *arg, size_t stack) {
  pthread_attr_t at;
  int have = pthread_attr_init(&at) == 0;
  if (have && stack) (void)pthread_attr_setstacksize(&at, stack); /* else the default */
  /* the thread inherits the creator's mask: all blocked for the creation, then restored */
  sigset_t all, old;
  sigfillset(&all);
  int masked = pthread_sigmask(SIG_SETMASK, &all, &old) == 0;
  int rc = pthread_create(th, have ? &at : NULL, fn, arg);
  if (masked) (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (have) pthread_attr_destroy(&at);
  return rc == 0 ? 0 : -1;
}
