/* The streamed .air's spill file (air_sink.h).
 *
 * Why: streaming lowering (lower.c) writes each op's record once, but the records cannot go to
 * the output as they come: the model's and the main graph's fields come first in the file, and
 * the graph's length and its output names are known only when the last node is lowered. The
 * records used to stay in memory until then (0.45 GB at 10^6 nodes). They now go to a file
 * with no name (O_TMPFILE) in the output's directory, through a 1 MiB buffer; when every check
 * has passed, emit-ge writes the output's temp file as the fields, then the records copied in
 * the kernel from the spill file (copy_file_range: no user-space copy and no anonymous pages),
 * and renames it. A file with no name disappears when it is closed or tfxc dies, so a failed
 * or killed run leaves nothing of it; the output's own temp file exists only while emit-ge
 * writes it, as for every other output (util/fileio.c; docs/CLI.md "Output files").
 *
 * The copy itself (0.26-0.39 s for the 447 MB at 10^6 nodes) is avoided when lowering plans
 * the fields' size (lower.c plan_air, air_write.c tfx_ge_air_stream_plan): the main graph's
 * output names (GraphDef.output, one per NetOutput input, known for certain only after the
 * last node) are predicted after phase 1 from the TF consumer lists, the varint of the graph's
 * length from the op count. The spill file then starts with that much room (a sparse gap,
 * tfx_ge_air_spill_reserve); when finish finds the guess exact, the fields are written into it
 * (tfx_ge_air_spill_head) and the spill file is the whole .air, which the atomic writer links
 * into the output's directory as its temp file (util/fileio.c adopt_spill) instead of copying.
 * A wrong guess costs only the copy: the pieces then skip the gap. bench/RESULTS.md (issue 16,
 * branches airfile and emitcopy) has the figures.
 *
 * The writes themselves (447 MB at 10^6 nodes: 0.13-0.65 s of kernel time, copying into the
 * page cache, more when the disk pushes back) need not stop lowering: with jobs other than 1
 * (tfx_ge_lower_opts.jobs; 0, automatic, when there is more than one CPU) a writer thread
 * makes them. put() fills a buffer of a small ring (SPILL_RING x SPILL_BUF: memory stays
 * bounded) and, when it is full, hands it over and goes on in the next; the writer writes the
 * buffers in the order they were handed over, so the file is byte for byte the one written
 * without the thread (the records' offsets, pos(), count what was put, not what was written).
 * Lowering waits only when every buffer of the ring is waiting for the disk. A record larger
 * than a buffer goes through the ring in pieces (one more memcpy, on the lowering thread,
 * instead of the write(2) that the unthreaded path makes straight from it). end() hands over
 * the last buffer and joins the thread: the file is complete before emit-ge reads it, and the
 * first failed write's errno is reported as without the thread; free() tells the thread to
 * drop what is queued and joins it. The thread allocates nothing (the ring is made by open(),
 * whose failure to make it, or the thread, means no thread: the same file, written inline),
 * blocks every signal (they go to the program's own threads) and makes its write(2) calls on
 * the opener's fault-injection state (util/thread.h tfx_thread_start): a test arming
 * tfx_write_fail_at sees, counts and fails the writer's steps as the inline ones, in the same
 * order (the opener makes none of its own while the thread runs). */
#include "ge/air_sink.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "util/arena.h"
#include "util/fileio.h"
#include "util/thread.h"

#define SPILL_BUF ((size_t)1 << 20)
/* Buffers of the writer thread's ring: one being filled while the others wait for or are in
 * write(2). With four, lowering at 10^6 nodes (426 hand-overs) waited for a free buffer 10-16
 * times, 10-20 ms in all, when the kernel took the bytes at its usual pace; when it was slow
 * (0.7-1 s of system time for the 447 MB) lowering waited 0.65-0.8 s: the writer is then the
 * bottleneck, and a larger ring would only move the wait to end(), which must find every byte
 * in the file (bench/RESULTS.md, branch lowio). */
#define SPILL_RING 4

struct tfx_ge_air_spill {
  int fd;
  uint8_t *buf; /* the buffer being filled (without the thread: the only one) */
  size_t used;
  uint64_t pos; /* bytes appended */
  int drop;     /* a write failed (the owner saw it): later bytes are dropped */
  /* errno of the first failed write; 0 none. With the thread: the writer's, read under mu
   * (or after the join) */
  int err;
  /* ---- the writer thread (threaded: 0 without it; then nothing below is used) ---- */
  int threaded;
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t filled; /* a buffer was handed over, or stop set: the writer waits on it */
  pthread_cond_t freed;  /* the writer is done with a buffer: the owner waits on it */
  uint8_t *ring[SPILL_RING];
  size_t len[SPILL_RING];
  /* buffers handed over and buffers the writer is done with, counting up: ring[queued %
   * SPILL_RING] is the one being filled, ring[written % SPILL_RING] the next to write */
  uint64_t queued, written;
  int stop;    /* 1: nothing more comes (end); 2: drop what is queued too (free) */
};

/* jobs (tfx_ge_lower_opts.jobs): 0 automatic (the thread when this process may run on more
 * than one CPU), 1 no thread, 2 or more the thread. */
static int spill_wants_thread(int jobs) { return jobs != 0 ? jobs >= 2 : tfx_jobs_auto() >= 2; }

static void *spill_writer(void *arg) {
  tfx_ge_air_spill *sp = arg; /* (its write steps count as the opener's: tfx_thread_start) */
  pthread_mutex_lock(&sp->mu);
  for (;;) {
    while (sp->written == sp->queued && !sp->stop) pthread_cond_wait(&sp->filled, &sp->mu);
    if (sp->written == sp->queued || sp->stop == 2) break;
    size_t i = (size_t)(sp->written % SPILL_RING), n = sp->len[i];
    int failed = sp->err != 0;
    pthread_mutex_unlock(&sp->mu);
    int e = 0; /* after a failed write nothing more is written (the file is not used) */
    if (!failed && n && tfx_write_all(sp->fd, sp->ring[i], n) != 0) e = errno ? errno : EIO;
    pthread_mutex_lock(&sp->mu);
    if (e) sp->err = e;
    sp->written++;
    pthread_cond_signal(&sp->freed);
  }
  pthread_mutex_unlock(&sp->mu);
  return NULL;
}

/* Makes the ring (sp->buf is its first buffer) and starts the writer; 0, or -1 with nothing
 * changed (the spill is then written inline). */
static int spill_start(tfx_ge_air_spill *sp) {
  sp->ring[0] = sp->buf;
  for (int i = 1; i < SPILL_RING; i++)
    if (!(sp->ring[i] = tfx_malloc(SPILL_BUF))) goto undo;
  if (pthread_mutex_init(&sp->mu, NULL) != 0) goto undo;
  if (pthread_cond_init(&sp->filled, NULL) != 0) goto undo_mu;
  if (pthread_cond_init(&sp->freed, NULL) != 0) goto undo_filled;
  if (tfx_thread_start(&sp->th, spill_writer, sp, 0) == 0) { /* (every signal blocked) */
    sp->threaded = 1;
    return 0;
  }
  pthread_cond_destroy(&sp->freed);
undo_filled:
  pthread_cond_destroy(&sp->filled);
undo_mu:
  pthread_mutex_destroy(&sp->mu);
undo:
  for (int i = 1; i < SPILL_RING; i++) {
    free(sp->ring[i]);
    sp->ring[i] = NULL;
  }
  sp->ring[0] = NULL;
  return -1;
}

/* Threaded: stops the writer (how: 1 after writing what is queued, 2 at once) and joins it;
 * frees the ring. */
static void spill_stop(tfx_ge_air_spill *sp, int how) {
  pthread_mutex_lock(&sp->mu);
  sp->stop = how;
  pthread_cond_signal(&sp->filled);
  pthread_mutex_unlock(&sp->mu);
  pthread_join(sp->th, NULL);
  pthread_cond_destroy(&sp->freed);
  pthread_cond_destroy(&sp->filled);
  pthread_mutex_destroy(&sp->mu);
  for (int i = 0; i < SPILL_RING; i++) free(sp->ring[i]);
  sp->buf = NULL;
  sp->threaded = 0;
}

tfx_ge_air_spill *tfx_ge_air_spill_open(const char *target, int jobs) {
  int fd = tfx_spill_open(target);
  if (fd < 0) return NULL;
  tfx_ge_air_spill *sp = tfx_calloc(1, sizeof *sp);
  uint8_t *buf = tfx_malloc(SPILL_BUF);
  if (!sp || !buf) {
    free(sp);
    free(buf);
    close(fd);
    return NULL;
  }
  sp->fd = fd;
  sp->buf = buf;
  if (spill_wants_thread(jobs)) (void)spill_start(sp); /* else (or failed): inline */
  return sp;
}

/* Without the thread: writes n bytes now. */
static void spill_write(tfx_ge_air_spill *sp, const void *p, size_t n) {
  if (!sp->err && n && tfx_write_all(sp->fd, p, n) != 0) sp->err = errno ? errno : EIO;
  sp->drop = sp->err != 0;
}

/* With the thread: hands the buffer being filled (sp->used bytes) over and takes the next one
 * of the ring, once the writer is done with it. A failed write seen here drops later bytes. */
static void spill_hand_over(tfx_ge_air_spill *sp) {
  pthread_mutex_lock(&sp->mu);
  sp->len[sp->queued % SPILL_RING] = sp->used;
  sp->queued++;
  pthread_cond_signal(&sp->filled);
  while (sp->queued - sp->written >= SPILL_RING) pthread_cond_wait(&sp->freed, &sp->mu);
  sp->drop = sp->err != 0;
  pthread_mutex_unlock(&sp->mu);
  sp->buf = sp->ring[sp->queued % SPILL_RING];
  sp->used = 0;
}

void tfx_ge_air_spill_put(tfx_ge_air_spill *sp, const void *p, size_t n) {
  sp->pos += n;
  if (sp->drop) return;
  if (sp->threaded) { /* through the ring, in pieces when larger than a buffer */
    const uint8_t *q = p;
    while (n) {
      size_t k = SPILL_BUF - sp->used < n ? SPILL_BUF - sp->used : n;
      memcpy(sp->buf + sp->used, q, k);
      sp->used += k;
      q += k;
      n -= k;
      if (sp->used == SPILL_BUF) {
        spill_hand_over(sp);
        if (sp->drop) return;
      }
    }
    return;
  }
  if (n > SPILL_BUF - sp->used) {
    spill_write(sp, sp->buf, sp->used);
    sp->used = 0;
    if (n >= SPILL_BUF) { /* a large record (a Const's weights): straight to the file */
      spill_write(sp, p, n);
      return;
    }
  }
  memcpy(sp->buf + sp->used, p, n);
  sp->used += n;
}

uint64_t tfx_ge_air_spill_pos(const tfx_ge_air_spill *sp) { return sp->pos; }

int tfx_ge_air_spill_reserve(tfx_ge_air_spill *sp, uint64_t n) {
  /* (nothing put: nothing handed over either, so the writer is idle and the file offset is
   * the owner's to move; its first write, ordered after this by the hand-over, starts at n) */
  if (sp->pos || sp->used || sp->drop || n > (uint64_t)INT64_MAX) return -1;
  if (lseek(sp->fd, (off_t)n, SEEK_SET) == (off_t)-1) return -1;
  sp->pos = n;
  return 0;
}

int tfx_ge_air_spill_head(int fd, const void *p, size_t n) {
  if (lseek(fd, 0, SEEK_SET) == (off_t)-1) return -1;
  return tfx_write_all(fd, p, n);
}

int tfx_ge_air_spill_end(tfx_ge_air_spill *sp, int *err) {
  if (sp->threaded) {
    if (sp->used && !sp->drop) { /* the last buffer (no wait: the writer takes it at once) */
      pthread_mutex_lock(&sp->mu);
      sp->len[sp->queued % SPILL_RING] = sp->used;
      sp->queued++;
      pthread_mutex_unlock(&sp->mu);
    }
    spill_stop(sp, 1); /* writes what is queued, then joins: sp->err is final */
  } else {
    spill_write(sp, sp->buf, sp->used);
    free(sp->buf);
  }
  sp->used = 0;
  int fd = sp->fd;
  *err = sp->err;
  if (sp->err) close(fd);
  free(sp);
  return *err ? -1 : fd;
}

void tfx_ge_air_spill_free(tfx_ge_air_spill *sp) {
  if (!sp) return;
  if (sp->threaded)
    spill_stop(sp, 2);
  else
    free(sp->buf);
  close(sp->fd);
  free(sp);
}
