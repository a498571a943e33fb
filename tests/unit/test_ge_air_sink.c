/* Unit tests for the streamed .air's spill file (src/ge/air_sink.c), written inline (jobs 1)
 * and by its writer thread (jobs 2; jobs 0, automatic, whichever this machine gives). Every
 * case runs in each mode and must give the same file:
 *  - content: some 1 500 puts of sizes from 0 bytes to over 3 MiB, chosen so that buffers fill
 *    exactly, by one byte more or less, and records span several buffers of the thread's ring;
 *    pos() after every put is the bytes put (plus the reserved gap); after end() the file is
 *    the gap (a hole, then head()'s bytes) and the concatenation of the puts, byte for byte;
 *  - reserve(): only before the first byte (-1 after a put or a second reserve);
 *  - free() at any point (right after open, after reserve, with buffers queued to the thread)
 *    leaves no descriptor and nothing in the directory, and returns (no hang);
 *  - a real write failure (RLIMIT_FSIZE: EFBIG past the limit): end() returns -1 with EFBIG,
 *    pos() stays exact, later puts are dropped, nothing hangs (the ring never drains into a
 *    file that refuses bytes), nothing is left;
 *  - (--fault-injection) every write step of a run fails in turn (tfx_write_fail_at, armed in
 *    this thread): the writer thread's write(2)s are counted on, and fail as, the opener's
 *    steps (util/fileio.h tfx_write_fault_follow), and end() reports ENOSPC, the injected
 *    errno, whichever the step.
 * tests/api/CMakeLists.txt builds this file a second time against the library compiled with
 * ThreadSanitizer (api/air_sink_tsan): the hand-overs between put() and the writer race on
 * nothing. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ge/air_sink.h"
#include "util/arena.h"
#include "util/fileio.h"

#define MIB ((size_t)1 << 20)

/* puts per content run: fewer under ThreadSanitizer (api/air_sink_tsan), which makes every
 * memory access of the byte-by-byte checks slow; still some 30 buffer hand-overs per run */
#if defined(__SANITIZE_THREAD__)
#define N_PUTS 400
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define N_PUTS 400
#endif
#endif
#ifndef N_PUTS
#define N_PUTS 1500
#endif

typedef struct fx {
  char dir[64], target[128];
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f) return -1;
  snprintf(f->dir, sizeof f->dir, "/tmp/tfxc_air_sink_XXXXXX");
  if (!mkdtemp(f->dir)) return -1;
  snprintf(f->target, sizeof f->target, "%s/out.air", f->dir);
  *state = f;
  return 0;
}

static int n_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static int teardown(void **state) {
  fx *f = *state;
  int left = n_entries(f->dir);
  rmdir(f->dir);
  free(f);
  return left == 0 ? 0 : -1; /* the spill file has no name: nothing may show */
}

static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* The sizes of the content case's puts: small records, then, around each, sizes that fill the
 * 1 MiB buffer exactly, leave one byte, overflow it by one, and records of 1 MiB - 1, 1 MiB,
 * 1 MiB + 1 and 3 MiB + 7 (several buffers of the ring in one put). */
static size_t put_size(size_t i, uint64_t put_so_far) {
  static const size_t big[] = {MIB - 1, MIB, MIB + 1, 3 * MIB + 7, 0, 1};
  uint64_t in_buf = put_so_far % MIB;
  switch (i % 97) {
  case 13: return MIB - (size_t)in_buf;     /* exactly to the end of a buffer */
  case 29: return MIB - (size_t)in_buf - 1; /* one byte short */
  case 41: return MIB - (size_t)in_buf + 1; /* one byte over */
  case 60: return big[(i / 97) % (sizeof big / sizeof *big)];
  default: return (i * 2654435761u) % (i % 5 == 0 ? 70000 : 300);
  }
}

/* Deterministic bytes: byte k of the stream. */
static uint8_t byte_at(uint64_t k) { return (uint8_t)(k * 31 + (k >> 11) * 7 + (k >> 19)); }

/* Reads the whole file at fd; *len its size. */
static uint8_t *read_all(int fd, size_t *len) {
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  *len = (size_t)st.st_size;
  uint8_t *b = malloc(*len ? *len : 1);
  assert_non_null(b);
  size_t at = 0;
  while (at < *len) {
    ssize_t r = pread(fd, b + at, *len - at, (off_t)at);
    assert_true(r > 0);
    at += (size_t)r;
  }
  return b;
}

/* One content run: jobs, with a reserved gap of gap bytes (0: none). */
static void content_run(fx *f, int jobs, uint64_t gap) {
  tfx_ge_air_spill *sp = tfx_ge_air_spill_open(f->target, jobs);
  assert_non_null(sp);
  if (gap) {
    assert_int_equal(tfx_ge_air_spill_reserve(sp, gap), 0);
    assert_int_equal(tfx_ge_air_spill_reserve(sp, 8), -1); /* once, before the first byte */
  }
  assert_int_equal(tfx_ge_air_spill_pos(sp), gap);
  size_t cap = 4 * MIB;
  uint8_t *src = malloc(cap);
  assert_non_null(src);
  uint64_t put = 0;
  for (size_t i = 0; i < N_PUTS; i++) {
    size_t n = put_size(i, put);
    if (n > cap) n = cap;
    for (size_t k = 0; k < n; k++) src[k] = byte_at(put + k);
    tfx_ge_air_spill_put(sp, src, n);
    put += n;
    assert_int_equal(tfx_ge_air_spill_pos(sp), gap + put); /* put, not necessarily written */
  }
  assert_int_equal(tfx_ge_air_spill_reserve(sp, 8), -1); /* too late */
  assert_true(put > (N_PUTS > 1000 ? 20 : 5) * MIB);
  free(src);
  int err = -1, fd = tfx_ge_air_spill_end(sp, &err);
  assert_true(fd >= 0);
  assert_int_equal(err, 0);
  uint8_t head[64];
  for (size_t k = 0; k < sizeof head; k++) head[k] = (uint8_t)(0xA0 ^ k);
  size_t hn = gap < sizeof head ? (size_t)gap : sizeof head;
  if (hn) assert_int_equal(tfx_ge_air_spill_head(fd, head, hn), 0);
  size_t len = 0;
  uint8_t *got = read_all(fd, &len);
  assert_int_equal(len, gap + put); /* every byte put is in the file when end() returns */
  assert_memory_equal(got, head, hn);
  for (size_t k = hn; k < gap; k++) assert_int_equal(got[k], 0); /* the rest of the gap: a hole */
  uint8_t *want = malloc(MIB);
  assert_non_null(want);
  for (uint64_t at = 0; at < put; at += MIB) {
    size_t n = put - at < MIB ? (size_t)(put - at) : MIB;
    for (size_t k = 0; k < n; k++) want[k] = byte_at(at + k);
    if (memcmp(got + gap + at, want, n) != 0)
      fail_msg("jobs %d, gap %llu: the records' MiB at %llu differ", jobs,
               (unsigned long long)gap, (unsigned long long)at);
  }
  free(want);
  free(got);
  close(fd);
}

static void content(void **state) {
  fx *f = *state;
  int fds = open_fds();
  for (int jobs = 1; jobs <= 2; jobs++) {
    content_run(f, jobs, 0);
    content_run(f, jobs, 1234567); /* a gap larger than a buffer */
  }
  content_run(f, 2, 7);
  content_run(f, 0, 7); /* automatic: either, the same file */
  assert_int_equal(open_fds(), fds);
}

/* free() at every stage: no descriptor left, nothing in the directory, no hang. */
static void free_anytime(void **state) {
  fx *f = *state;
  int fds = open_fds();
  uint8_t *src = calloc(1, 6 * MIB);
  assert_non_null(src);
  for (int jobs = 1; jobs <= 2; jobs++) {
    tfx_ge_air_spill_free(tfx_ge_air_spill_open(f->target, jobs)); /* at once */
    tfx_ge_air_spill *sp = tfx_ge_air_spill_open(f->target, jobs);
    assert_non_null(sp);
    assert_int_equal(tfx_ge_air_spill_reserve(sp, 100), 0);
    tfx_ge_air_spill_free(sp); /* after reserve */
    for (int k = 0; k < 8; k++) { /* with buffers queued, full or not, to the thread */
      sp = tfx_ge_air_spill_open(f->target, jobs);
      assert_non_null(sp);
      tfx_ge_air_spill_put(sp, src, (size_t)k * MIB * 3 / 4 + (size_t)k);
      tfx_ge_air_spill_free(sp);
    }
  }
  tfx_ge_air_spill_free(NULL);
  free(src);
  assert_int_equal(open_fds(), fds);
}

/* A file that takes no more than its limit (RLIMIT_FSIZE; SIGXFSZ ignored: the write fails
 * with EFBIG instead): the first failed write's errno comes back from end(), inline and from
 * the thread, and every put after it is counted, not written. */
static void write_error(void **state) {
  fx *f = *state;
  int fds = open_fds();
  struct rlimit old;
  assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
  void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
  uint8_t *src = calloc(1, 3 * MIB);
  assert_non_null(src);
  for (int jobs = 1; jobs <= 2; jobs++) {
    for (int how = 0; how < 2; how++) { /* 0: end() reports; 1: free() after the failure */
      struct rlimit lim = old;
      lim.rlim_cur = (rlim_t)(2 * MIB + 12345);
      assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
      tfx_ge_air_spill *sp = tfx_ge_air_spill_open(f->target, jobs);
      assert_non_null(sp);
      uint64_t put = 0;
      for (int k = 0; k < 12; k++) { /* 36 MiB: past the limit, and more than the ring holds */
        tfx_ge_air_spill_put(sp, src, 3 * MIB);
        put += 3 * MIB;
        assert_int_equal(tfx_ge_air_spill_pos(sp), put);
      }
      tfx_ge_air_spill_put(sp, src, 10);
      assert_int_equal(tfx_ge_air_spill_pos(sp), put + 10);
      if (how == 0) {
        int err = 0;
        assert_int_equal(tfx_ge_air_spill_end(sp, &err), -1);
        assert_int_equal(err, EFBIG);
      } else {
        tfx_ge_air_spill_free(sp);
      }
      assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    }
  }
  free(src);
  signal(SIGXFSZ, was);
  assert_int_equal(open_fds(), fds);
}

/* ---- fault injection ---- */

/* One run of 5.5 MiB in puts of 300 KiB; end()'s result, *err its errno. */
static int fault_run(fx *f, int jobs, int *err) {
  static uint8_t src[300 * 1024];
  tfx_ge_air_spill *sp = tfx_ge_air_spill_open(f->target, jobs);
  assert_non_null(sp);
  for (size_t put = 0; put < 11 * MIB / 2; put += sizeof src)
    tfx_ge_air_spill_put(sp, src, sizeof src);
  *err = 0;
  int fd = tfx_ge_air_spill_end(sp, err);
  if (fd >= 0) close(fd);
  return fd;
}

/* Every write step of a run fails in turn, inline and from the thread: end() says ENOSPC
 * (the hook's short write, then ENOSPC) whichever write it was. The thread's steps are this
 * thread's: the count of a run with the thread is the number of buffers it wrote. */
static void write_steps(void **state) {
  fx *f = *state;
  int fds = open_fds();
  for (int jobs = 1; jobs <= 2; jobs++) {
    int err;
    tfx_write_fail_at(0);
    assert_true(fault_run(f, jobs, &err) >= 0);
    long steps = tfx_write_calls();
    assert_true(steps >= 5); /* 5.5 MiB through 1 MiB buffers: at least 6 writes */
    for (long n = 1; n <= steps + 1; n++) {
      tfx_write_fail_at(n);
      int fd = fault_run(f, jobs, &err);
      long hit = tfx_write_failures();
      tfx_write_fail_at(0);
      if (n > steps) { /* past the last step: nothing fails */
        assert_int_equal(hit, 0);
        assert_true(fd >= 0);
        continue;
      }
      if (hit != 1) fail_msg("jobs %d, write step %ld of %ld: %ld failures", jobs, n, steps, hit);
      assert_int_equal(fd, -1);
      assert_int_equal(err, ENOSPC);
    }
  }
  assert_int_equal(open_fds(), fds);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        cmocka_unit_test_setup_teardown(write_steps, setup, teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(content, setup, teardown),
      cmocka_unit_test_setup_teardown(free_anytime, setup, teardown),
      cmocka_unit_test_setup_teardown(write_error, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
