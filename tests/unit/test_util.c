/* Unit tests for src/util: arena (and its sweeps), hash map, interner, string buffer (JSON escaping),
 * diagnostics rendering, atomic file output, fault injection. */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MAP_FIXED_NOREPLACE (the unmapped-poison check) */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/arena.h"
#include "util/diag.h"
#include "util/fileio.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/thread.h"

#include <sched.h>
#include <signal.h>

static void arena_alignment_and_big_blocks(void **state) {
  (void)state;
  tfx_arena a;
  tfx_arena_init(&a);
  char *p1 = tfx_arena_alloc(&a, 3);
  char *p2 = tfx_arena_alloc(&a, 5);
  assert_non_null(p1);
  assert_non_null(p2);
  assert_int_equal((uintptr_t)p1 % 16, 0);
  assert_int_equal((uintptr_t)p2 % 16, 0);
  assert_true(p2 >= p1 + 16 || p2 + 16 <= p1);
  /* A request larger than a chunk gets its own block and stays writable. */
  char *big = tfx_arena_alloc(&a, 1 << 20);
  assert_non_null(big);
  memset(big, 0xAB, 1 << 20);
  char *p3 = tfx_arena_alloc(&a, 8); /* the small chunk is still used afterwards */
  assert_non_null(p3);
  assert_null(tfx_arena_calloc(&a, SIZE_MAX / 2, 4)); /* overflow is refused */
  char *s = tfx_arena_strndup(&a, "hello world", 5);
  assert_string_equal(s, "hello");
  tfx_arena_free(&a);
  assert_null(a.head);
}

static void arena_as_protobuf_allocator(void **state) {
  (void)state;
  tfx_arena a;
  tfx_arena_init(&a);
  ProtobufCAllocator *pb = tfx_arena_pb(&a);
  void *p = pb->alloc(pb->allocator_data, 100);
  assert_non_null(p);
  pb->free(pb->allocator_data, p); /* no-op; must not crash */
  assert_true(a.total >= 100);
  tfx_arena_free(&a);
}

/* A sweep gives back the whole pages no kept range touches, from before its mark only, and
 * every kept byte reads as before (in ASan builds a read of a given-back page is reported). */
static void arena_sweep_gives_back_unkept_pages(void **state) {
  (void)state;
  enum { N = 4000, SZ = 256 };
  static unsigned char *blk[N];
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  tfx_arena a;
  tfx_arena_init(&a);
  for (int i = 0; i < N; i++) {
    blk[i] = tfx_arena_alloc(&a, SZ);
    assert_non_null(blk[i]);
    memset(blk[i], i % 255 + 1, SZ);
  }
  char *big = tfx_arena_alloc(&a, (size_t)8 << 20); /* a chunk of its own, not kept */
  assert_non_null(big);
  memset(big, 7, (size_t)8 << 20);
  tfx_arena_mark m;
  tfx_arena_get_mark(&a, &m);
  unsigned char *after[64]; /* after the mark: never given back, though not kept */
  for (int i = 0; i < 64; i++) {
    after[i] = tfx_arena_alloc(&a, SZ);
    memset(after[i], 0x5a, SZ);
  }
  tfx_arena_sweep s;
  assert_int_equal(tfx_arena_sweep_begin(&s, &a, &m), 0);
  size_t unkept = 0;
  for (int i = 0; i < N; i++)
    if (i < 1000 || i % 64 == 0) tfx_arena_sweep_keep(&s, blk[i], SZ);
    else unkept += SZ;
  tfx_arena_sweep_keep(&s, "static text", 12); /* not arena memory: ignored */
  tfx_arena_sweep_keep(&s, blk[0], 0);         /* empty: nothing */
  size_t got = tfx_arena_sweep_release(&s);
  assert_int_equal(got % page, 0);
  assert_int_equal(a.released, got);
  /* the big chunk's whole pages, and between two kept blocks (16 KiB apart) at least two
   * whole pages of every gap that lies in one chunk */
  assert_true(got >= ((size_t)8 << 20) - page + 30 * 2 * page);
  assert_true(got <= ((size_t)8 << 20) + unkept + 16 * page); /* + chunk tails */
  for (int i = 0; i < N; i++)
    if (i < 1000 || i % 64 == 0)
      for (int k = 0; k < SZ; k++) assert_int_equal(blk[i][k], i % 255 + 1);
  for (int i = 0; i < 64; i++)
    for (int k = 0; k < SZ; k++) assert_int_equal(after[i][k], 0x5a);
  /* a sweep with a zeroed mark (the arena's start) has nothing to give back */
  tfx_arena_mark zero = {0, 0, 0};
  assert_int_equal(tfx_arena_sweep_begin(&s, &a, &zero), 0);
  assert_int_equal(tfx_arena_sweep_release(&s), 0);
  tfx_arena_free(&a);
  assert_int_equal(a.released, 0);
}

/* tfx_arena_adopt: the chunks of an arena filled by another thread (big ones from the page
 * pool, a worker's given-back pages among them) become the adopting arena's: their contents
 * stay, the adopting arena's head keeps taking allocations, a sweep from a mark taken before
 * leaves them alone and one after sees them, and freeing the adopting arena frees them in this
 * thread, pooled inside a run (ASan: no leak, no poisoned reuse; LSan sees their pointers). */
typedef struct adopt_job {
  tfx_arena a;
  unsigned char *small, *big;
} adopt_job;

static void *adopt_worker(void *arg) {
  adopt_job *j = arg;
  tfx_arena_init(&j->a);
  j->small = tfx_arena_alloc(&j->a, 100);
  j->big = tfx_arena_alloc(&j->a, (size_t)1 << 20); /* a page-pool chunk of its own */
  if (!j->small || !j->big) return NULL;
  memset(j->small, 0x11, 100);
  memset(j->big, 0x22, (size_t)1 << 20);
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  tfx_arena_give_back(&j->a, j->big + 8 * page, 4 * page); /* as a worker's unpacker does */
  return NULL;
}

static void arena_adopt_takes_another_threads_chunks(void **state) {
  (void)state;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  for (int pool = 0; pool < 2; pool++) {
    if (pool) tfx_pages_pool_begin();
    for (int empty = 0; empty < 2; empty++) {
      tfx_arena a;
      tfx_arena_init(&a);
      unsigned char *mine = empty ? NULL : tfx_arena_alloc(&a, 64);
      if (!empty) memset(mine, 0x33, 64);
      tfx_arena_mark before;
      tfx_arena_get_mark(&a, &before);
      adopt_job j;
      pthread_t t;
      assert_int_equal(pthread_create(&t, NULL, adopt_worker, &j), 0);
      assert_int_equal(pthread_join(t, NULL), 0);
      assert_non_null(j.small);
      assert_non_null(j.big);
      size_t total = a.total + j.a.total, released = j.a.released, nchunks = a.nchunks + j.a.nchunks;
      assert_true(released >= 3 * page); /* the whole pages inside the 4 given back */
      tfx_arena_adopt(&a, &j.a);
      assert_null(j.a.head); /* emptied, still usable */
      assert_int_equal(a.total, total);
      assert_int_equal(a.released, released);
      assert_int_equal(a.nchunks, nchunks);
      for (int k = 0; k < 100; k++) assert_int_equal(j.small[k], 0x11);
      assert_int_equal(j.big[0], 0x22);
      assert_int_equal(j.big[(1 << 20) - 1], 0x22);
      if (!empty) assert_int_equal(mine[63], 0x33);
      unsigned char *next = tfx_arena_alloc(&a, 64); /* from the head: a's own, or the adopted */
      assert_non_null(next);
      memset(next, 0x44, 64);
      if (!empty) assert_true(next == mine + 64);
      /* a sweep from the mark before: the adopted chunks came after it, nothing of theirs goes */
      tfx_arena_sweep s;
      assert_int_equal(tfx_arena_sweep_begin(&s, &a, &before), 0);
      assert_int_equal(s.n_spans, 0);
      assert_int_equal(tfx_arena_sweep_release(&s), 0);
      /* a sweep from now keeping the small block: the big one's whole pages go */
      tfx_arena_mark now;
      tfx_arena_get_mark(&a, &now);
      assert_int_equal(tfx_arena_sweep_begin(&s, &a, &now), 0);
      tfx_arena_sweep_keep(&s, j.small, 100);
      tfx_arena_sweep_keep(&s, next, 64);
      if (!empty) tfx_arena_sweep_keep(&s, mine, 64);
      assert_true(tfx_arena_sweep_release(&s) >= ((size_t)1 << 20) - 2 * page);
      for (int k = 0; k < 100; k++) assert_int_equal(j.small[k], 0x11);
      for (int k = 0; k < 64; k++) assert_int_equal(next[k], 0x44);
      tfx_arena_adopt(&a, &j.a); /* an empty one: nothing */
      tfx_arena_free(&a);
    }
    if (pool) {
      assert_true(tfx_pages_get_stats().pooled >= (size_t)1 << 20); /* the worker's big chunk */
      tfx_pages_pool_end();
      assert_int_equal(tfx_pages_get_stats().pooled, 0);
    }
  }
}

/* The page pool: a freed big block's pages are handed out again (best fit; runs of adjacent
 * pages merge; a block no run fits is gathered from several runs by moving their pages), zeroed
 * when asked; tfx_pages_trim empties it. Small blocks are malloc's and never pooled. */
static void page_pool_reuses_freed_pages(void **state) {
  (void)state;
  const size_t MB = (size_t)1 << 20;
  tfx_pages_trim();
  /* outside a run (no tfx_pages_pool_begin) a freed big block is not kept */
  void *out = tfx_pages_alloc(MB, 0);
  assert_non_null(out);
  tfx_pages_free(out, MB);
  assert_int_equal(tfx_pages_get_stats().pooled, 0);
  /* a block given back in part (poisoned under ASan) and then unmapped leaves no poison behind:
   * a new mapping at the same address (a file io.c maps, say) reads cleanly. Fails under ASan
   * when the unmap does not clear the shadow. */
  {
    tfx_arena ga;
    tfx_arena_init(&ga);
    unsigned char *gb = tfx_arena_alloc(&ga, 2 * MB);
    assert_non_null(gb);
    memset(gb, 0x5c, 2 * MB);
    tfx_arena_give_back(&ga, gb, 2 * MB);
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    void *at = (void *)(((uintptr_t)gb + pg - 1) & ~(pg - 1));
    tfx_arena_free(&ga); /* outside a run: unmapped */
#ifdef MAP_FIXED_NOREPLACE
    unsigned char *m = mmap(at, MB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (m != MAP_FAILED) {
      if (m == at) {
        unsigned char copy[256];
        memcpy(copy, m, sizeof copy); /* checked against the shadow */
        for (size_t i = 0; i < sizeof copy; i++) assert_int_equal(copy[i], 0);
        size_t sum = 0;
        for (size_t i = 0; i < MB; i += 512) sum += m[i];
        assert_int_equal(sum, 0);
      }
      munmap(m, MB);
    }
#else
    (void)at;
#endif
  }
  tfx_pages_pool_begin(); /* as tfx_pipeline_run does */
  tfx_pages_stats st0 = tfx_pages_get_stats();
  assert_int_equal(st0.pooled, 0);
  /* an arena's big chunk goes to the pool when the arena is freed, and the next arena's big
   * chunk is cut from it */
  tfx_arena a;
  tfx_arena_init(&a);
  unsigned char *big = tfx_arena_alloc(&a, 2 * MB);
  assert_non_null(big);
  memset(big, 0xab, 2 * MB);
  tfx_arena_free(&a);
  tfx_pages_stats st1 = tfx_pages_get_stats();
  assert_true(st1.pooled >= 2 * MB);
  tfx_arena_init(&a);
  unsigned char *again = tfx_arena_alloc(&a, MB);
  tfx_pages_stats st2 = tfx_pages_get_stats();
  assert_int_equal(st2.mapped, st1.mapped); /* nothing mapped fresh */
  assert_true(st2.reused >= st1.reused + MB);
  assert_true(again >= big - 4096 && again < big + 2 * MB); /* the same pages */
  /* zeroed from the pool: zeros, though the pages held 0xab */
  unsigned char *z = tfx_pages_alloc(MB / 2, 1);
  assert_non_null(z);
  for (size_t i = 0; i < MB / 2; i += 97) assert_int_equal(z[i], 0);
  assert_int_equal(z[MB / 2 - 1], 0);
  tfx_pages_free(z, MB / 2);
  tfx_arena_free(&a);
  tfx_pages_trim();
  assert_int_equal(tfx_pages_get_stats().pooled, 0);
  /* two blocks cut from one run merge again when both are back: the whole comes back */
  unsigned char *w = tfx_pages_alloc(2 * MB, 0);
  assert_non_null(w);
  tfx_pages_free(w, 2 * MB);
  unsigned char *h1 = tfx_pages_alloc(MB, 0), *h2 = tfx_pages_alloc(MB, 0);
  assert_ptr_equal(h1, w); /* cut from the run's start */
  assert_ptr_equal(h2, w + MB);
  memset(h1, 1, MB);
  memset(h2, 1, MB);
  tfx_pages_free(h2, MB);
  tfx_pages_free(h1, MB);
  assert_int_equal(tfx_pages_get_stats().pooled, 2 * MB);
  unsigned char *w2 = tfx_pages_alloc(2 * MB, 0);
  assert_ptr_equal(w2, w);
  assert_int_equal(tfx_pages_get_stats().pooled, 0);
  tfx_pages_free(w2, 2 * MB);
  tfx_pages_trim();
  /* two runs apart (the block between them stays in use), neither big enough for a 2 MiB
   * block: it is gathered from both, their pages moved with their contents */
  unsigned char *b1 = tfx_pages_alloc(MB, 0), *b2 = tfx_pages_alloc(MB, 0), *b3 = tfx_pages_alloc(MB, 0);
  assert_true(b1 && b2 && b3);
  memset(b1, 0x11, MB);
  memset(b2, 0x22, MB);
  memset(b3, 0x33, MB);
  tfx_pages_free(b1, MB);
  tfx_pages_free(b3, MB);
  tfx_pages_stats st3 = tfx_pages_get_stats();
  assert_int_equal(st3.pooled, 2 * MB);
  unsigned char *g = tfx_pages_alloc(2 * MB, 0);
  assert_non_null(g);
  tfx_pages_stats st4 = tfx_pages_get_stats();
  assert_int_equal(st4.pooled, 0);
  assert_int_equal(st4.mapped, st3.mapped);
  if (b1 + MB == b3 || b3 + MB == b1) { /* adjacent after all: one run, cut whole */
    assert_ptr_equal(g, b1 < b3 ? b1 : b3);
  } else { /* each half is one of the two moved blocks */
    assert_true((g[0] == 0x11 && g[MB] == 0x33) || (g[0] == 0x33 && g[MB] == 0x11));
    assert_int_equal(g[MB - 1], g[0]);
    assert_int_equal(g[2 * MB - 1], g[MB]);
  }
  for (size_t i = 0; i < MB; i += 4096) assert_int_equal(b2[i], 0x22); /* untouched */
  memset(g, 0, 2 * MB); /* writable */
  tfx_pages_free(g, 2 * MB);
  tfx_pages_free(b2, MB);
  /* zeroed and gathered: zeros */
  unsigned char *gz = tfx_pages_alloc(3 * MB, 1);
  assert_non_null(gz);
  for (size_t i = 0; i < 3 * MB; i += 1021) assert_int_equal(gz[i], 0);
  tfx_pages_free(gz, 3 * MB);
  /* small blocks are malloc's: not pooled */
  size_t pooled = tfx_pages_get_stats().pooled;
  void *small = tfx_pages_alloc(100, 1);
  assert_non_null(small);
  tfx_pages_free(small, 100);
  assert_int_equal(tfx_pages_get_stats().pooled, pooled);
  size_t trimmed = tfx_pages_get_stats().trimmed;
  assert_int_equal(tfx_pages_trim(), pooled);
  assert_int_equal(tfx_pages_get_stats().trimmed, trimmed + pooled);
  assert_int_equal(tfx_pages_get_stats().pooled, 0);
  /* nested: only the outermost end empties the pool */
  tfx_pages_pool_begin();
  void *in = tfx_pages_alloc(MB, 0);
  assert_non_null(in);
  tfx_pages_free(in, MB);
  tfx_pages_pool_end();
  assert_int_equal(tfx_pages_get_stats().pooled, MB);
  tfx_pages_pool_end();
  assert_int_equal(tfx_pages_get_stats().pooled, 0);
}

/* tfx_arena_trim_head gives back the newest chunk's whole pages no allocation reached; later
 * allocations there read zeros from the first such page on and are writable, earlier ones are
 * intact. */
static void arena_trim_head_gives_back_unused_pages(void **state) {
  (void)state;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  tfx_arena a;
  tfx_arena_init(&a);
  assert_int_equal(tfx_arena_trim_head(&a), 0); /* no chunk */
  unsigned char *first = tfx_arena_alloc(&a, 1000);
  memset(first, 0x77, 1000);
  size_t got = tfx_arena_trim_head(&a); /* the first chunk: 64 KiB, 1000 bytes used */
  assert_true(got >= ((size_t)64 << 10) - 3 * page);
  assert_int_equal(got % page, 0);
  unsigned char *next = tfx_arena_alloc(&a, 20000);
  assert_non_null(next);
  uintptr_t from = ((uintptr_t)next + page - 1) & ~(uintptr_t)(page - 1); /* whole pages only */
  for (size_t i = from - (uintptr_t)next; i < 20000; i++) assert_int_equal(next[i], 0);
  memset(next, 0x66, 20000);
  for (int i = 0; i < 1000; i++) assert_int_equal(first[i], 0x77);
  tfx_arena_free(&a);
}

static void hmap_put_get_grow(void **state) {
  (void)state;
  tfx_hmap m;
  tfx_hmap_init(&m);
  char keys[2000][16];
  for (int i = 0; i < 2000; i++) {
    snprintf(keys[i], sizeof keys[i], "k%d", i);
    assert_int_equal(tfx_hmap_put(&m, keys[i], strlen(keys[i]), (uint32_t)i, NULL), 1);
  }
  uint32_t existing = 0;
  assert_int_equal(tfx_hmap_put(&m, "k7", 2, 99, &existing), 0);
  assert_int_equal(existing, 7);
  for (int i = 0; i < 2000; i++) assert_int_equal(tfx_hmap_get(&m, keys[i], strlen(keys[i])), (uint32_t)i);
  assert_int_equal(tfx_hmap_get(&m, "nope", 4), TFX_HASH_NONE);
  assert_int_equal(tfx_hmap_get(&m, "k1", 1), TFX_HASH_NONE); /* prefix is a different key */
  /* Keys with embedded NUL compare by length. */
  assert_int_equal(tfx_hmap_put(&m, "a\0b", 3, 5, NULL), 1);
  assert_int_equal(tfx_hmap_get(&m, "a\0c", 3), TFX_HASH_NONE);
  assert_int_equal(tfx_hmap_get(&m, "a\0b", 3), 5);
  tfx_hmap_free(&m);
}

static void intern_dense_ids_in_first_seen_order(void **state) {
  (void)state;
  tfx_intern t;
  tfx_intern_init(&t);
  assert_int_equal(tfx_intern_id(&t, "Const", 5), 0);
  assert_int_equal(tfx_intern_id(&t, "Add", 3), 1);
  assert_int_equal(tfx_intern_id(&t, "Const", 5), 0);
  assert_int_equal(tfx_intern_find(&t, "Mul", 3), TFX_HASH_NONE);
  assert_string_equal(tfx_intern_str(&t, 1), "Add");
  assert_int_equal(t.n, 2);
  tfx_intern_free(&t);
}

static void strbuf_printf_and_json(void **state) {
  (void)state;
  tfx_strbuf b;
  tfx_sb_init(&b);
  assert_string_equal(tfx_sb_cstr(&b), "");
  char longs[600];
  memset(longs, 'x', sizeof longs - 1);
  longs[sizeof longs - 1] = 0;
  tfx_sb_printf(&b, "%d-%s", 42, longs); /* longer than the internal scratch buffer */
  assert_int_equal(b.len, 3 + 599);
  tfx_sb_reset(&b);
  tfx_sb_json_str(&b, "a\"b\\c\n\x01\xff\xc3\xa9", 10);
  assert_string_equal(tfx_sb_cstr(&b), "\"a\\\"b\\\\c\\n\\u0001\\u00ff\xc3\xa9\"");
  tfx_sb_free(&b);
}

static void diag_renders_location_source_and_caret(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_error(&d, "m.pbtxt", 3, 5, "no field named \"%s\"", "this");
  const char *line = "  this: 1\r";
  tfx_diag_set_source(&d, line, strlen(line), 4);
  tfx_warning(&d, NULL, 0, 0, "plain");
  tfx_error(&d, "x.pb", 0, 0, "truncated");
  assert_int_equal(d.errors, 2);
  assert_int_equal(d.warnings, 1);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  tfx_diag_print(&d, f);
  fclose(f);
  assert_string_equal(buf,
                      "m.pbtxt:3:5: error: no field named \"this\"\n"
                      "    this: 1\n"
                      "      ^~~~\n"
                      "tfxc: warning: plain\n"
                      "x.pb: error: truncated\n");
  free(buf);
  d.werror = 1;
  tfx_warning(&d, NULL, 0, 0, "now an error");
  assert_int_equal(d.errors, 3);
  tfx_diag_free(&d);
}

static int count_entries(const char *dir) {
  DIR *dp = opendir(dir);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dp))) if (e->d_name[0] != '.') n++;
  closedir(dp);
  return n;
}

static void atomic_write_and_read_back(void **state) {
  (void)state;
  char dir[] = "/tmp/tfxc-util-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/out.bin", dir);
  tfx_diag d;
  tfx_diag_init(&d);
  assert_int_equal(tfx_write_file_atomic(path, "abc\0def", 7, &d), 0);
  size_t len = 0;
  char *data = tfx_read_file(path, 0, &len, &d);
  assert_non_null(data);
  assert_int_equal(len, 7);
  assert_memory_equal(data, "abc\0def", 7);
  free(data);
  assert_int_equal(count_entries(dir), 1); /* no temp file left behind */
  /* The size limit is enforced with a clear message. */
  assert_null(tfx_read_file(path, 3, &len, &d));
  assert_int_equal(d.errors, 1);
  assert_non_null(strstr(d.items[0].msg, "limit"));
  /* Writing into a missing directory fails cleanly. */
  char bad[300];
  snprintf(bad, sizeof bad, "%s/missing/out.bin", dir);
  assert_int_equal(tfx_write_file_atomic(bad, "x", 1, &d), TFX_E_INPUT); /* cannot be written */
  assert_int_equal(d.errors, 2);
  assert_null(tfx_read_file(dir, 0, &len, &d)); /* a directory is not a file */
  unlink(path);
  rmdir(dir);
  tfx_diag_free(&d);
}

static void fault_injection_fails_the_nth_allocation(void **state) {
  (void)state;
  tfx_arena a;
  tfx_arena_init(&a);
  tfx_alloc_fail_at(2);
  void *p1 = tfx_malloc(8);
  void *p2 = tfx_malloc(8);
  void *p3 = tfx_malloc(8);
  assert_non_null(p1);
  assert_null(p2);
  assert_non_null(p3);
  assert_int_equal(tfx_alloc_failures(), 1);
  free(p1);
  free(p3);
  tfx_alloc_fail_at(1); /* the arena's first chunk */
  assert_null(tfx_arena_alloc(&a, 8));
  assert_non_null(tfx_arena_alloc(&a, 8));
  tfx_alloc_fail_at(0);
  tfx_arena_free(&a);
}

/* Every allocation of an atomic write failed in turn: TFX_E_NOMEM (exit 1), never the
 * "cannot be written" TFX_E_INPUT (exit 3), and no file and no temporary file left. */
static void atomic_write_out_of_memory(void **state) {
  (void)state;
  char dir[] = "/tmp/tfxc_util_oom_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[300];
  snprintf(path, sizeof path, "%s/out.bin", dir);
  int failed = 0;
  for (long at = 1; at < 50; at++) {
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_alloc_fail_at(at);
    tfx_status st = tfx_write_file_atomic(path, "abc", 3, &d);
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (!hits) {
      assert_int_equal(st, TFX_OK);
      tfx_diag_free(&d);
      break;
    }
    failed++;
    assert_int_equal(st, TFX_E_NOMEM);
    assert_non_null(strstr(d.items[0].msg, "out of memory"));
    assert_int_equal(count_entries(dir), 0);
    tfx_diag_free(&d);
  }
  assert_true(failed > 0);
  unlink(path);
  rmdir(dir);
}

/* ---- util/thread.h ---- */

typedef struct thread_probe {
  sigset_t mask;
  size_t stack;
} thread_probe;

static void *thread_probe_main(void *arg) {
  thread_probe *t = arg;
  pthread_sigmask(SIG_BLOCK, NULL, &t->mask);
  pthread_attr_t at;
  if (pthread_getattr_np(pthread_self(), &at) == 0) {
    pthread_attr_getstacksize(&at, &t->stack);
    pthread_attr_destroy(&at);
  }
  return NULL;
}

/* A library thread starts with every signal blocked and the stack asked for; the caller's own
 * mask is as it was; an automatic jobs is 2 exactly when the process may use two processors. */
static void thread_start_blocks_signals_and_sizes_stack(void **state) {
  (void)state;
  sigset_t before, after;
  pthread_sigmask(SIG_BLOCK, NULL, &before);
  thread_probe t;
  memset(&t, 0, sizeof t);
  pthread_t th;
  assert_int_equal(tfx_thread_start(&th, thread_probe_main, &t, (size_t)16 << 20), 0);
  pthread_join(th, NULL);
  assert_true(sigismember(&t.mask, SIGINT));
  assert_true(sigismember(&t.mask, SIGTERM));
  assert_true(sigismember(&t.mask, SIGPIPE));
  assert_true(t.stack >= ((size_t)16 << 20));
  pthread_sigmask(SIG_BLOCK, NULL, &after);
  assert_int_equal(sigismember(&after, SIGINT), sigismember(&before, SIGINT));
  assert_int_equal(sigismember(&after, SIGTERM), sigismember(&before, SIGTERM));
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    assert_int_equal(tfx_jobs_auto(), CPU_COUNT(&set) > 1 ? 2u : 1u);
  else
    assert_true(tfx_jobs_auto() == 1 || tfx_jobs_auto() == 2);
}

int main(int argc, char **argv) {
  /* the fault-injection cases: their own ctest test (unit/NAME/fault-injection), skipped
   * (exit 77) when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        cmocka_unit_test(fault_injection_fails_the_nth_allocation),
        cmocka_unit_test(atomic_write_out_of_memory),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(arena_alignment_and_big_blocks),
      cmocka_unit_test(arena_as_protobuf_allocator),
      cmocka_unit_test(arena_sweep_gives_back_unkept_pages),
      cmocka_unit_test(page_pool_reuses_freed_pages),
      cmocka_unit_test(arena_adopt_takes_another_threads_chunks),
      cmocka_unit_test(thread_start_blocks_signals_and_sizes_stack),
      cmocka_unit_test(arena_trim_head_gives_back_unused_pages),
      cmocka_unit_test(hmap_put_get_grow),
      cmocka_unit_test(intern_dense_ids_in_first_seen_order),
      cmocka_unit_test(strbuf_printf_and_json),
      cmocka_unit_test(diag_renders_location_source_and_caret),
      cmocka_unit_test(atomic_write_and_read_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
