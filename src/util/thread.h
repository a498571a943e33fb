/* The library's own threads: how many an automatic `jobs` gives, and how one is started.
 * Stage: shared utility. Every thread the library starts (the load's unpackers, io.c; the
 * ScopeTree beside the index, passes/pass_load.c; the spill file's writer, ge/air_sink.c; the
 * sweep of the model's arena beside the op mapping and lowering, passes/context.c) is
 * started here, so all of them follow one policy: every signal blocked (a signal is handled by
 * the program's own threads, never in the middle of the library's work), the stack size the
 * caller asks for, and the caller's fault-injection state (util/arena.h tfx_alloc_hooks_use,
 * util/fileio.h tfx_write_fault_follow): the thread's allocations and file-system steps are
 * its caller's, counted and failed as theirs, so a test sweeping a call's allocations or
 * writes reaches the threads the call started. Each is joined before the call that started it
 * returns (docs/API.md), and so before the caller's state could go. */
#ifndef TFX_UTIL_THREAD_H
#define TFX_UTIL_THREAD_H

#include <pthread.h>
#include <stddef.h>

/* The threads an automatic `jobs` (0) gives: 2 when this process may run on more than one
 * processor (its CPU affinity on Linux, else the processors online), else 1. Two, not one
 * per processor: each use splits work bound by memory as much as by the CPU, and more threads
 * would take cores from whatever else runs for little. */
unsigned tfx_jobs_auto(void);

/* Starts fn(arg) on *th with every signal blocked, the calling thread's fault-injection state
 * and, when stack is non-zero, a stack of that many bytes (reserved address space; the default
 * when the size cannot be set). 0, or -1 (no thread: the caller does the work itself). */
int tfx_thread_start(pthread_t *th, void *(*fn)(void *), void *arg, size_t stack);

#endif
