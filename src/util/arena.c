/* Arena allocator (see arena.h). Chunks grow geometrically; big requests get their own chunk.
 * Chunks of 128 KiB and more (and tfx_pages_alloc's blocks) come from the per-thread page pool
 * and go back to it. Sweeps give back the whole pages of old chunks that nothing reachable
 * touches. */
#define _GNU_SOURCE /* madvise, MADV_DONTNEED (Linux, the BSDs; without it the pages stay);
                     * mremap (Linux; without it the pool gathers no runs) */
#include "util/arena.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define TFX_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TFX_ARENA_ASAN 1
#endif
#endif
#ifdef TFX_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#endif

struct tfx_arena_chunk {
  tfx_arena_chunk *next;
  size_t cap;
  size_t serial; /* 1 for the arena's first chunk, then counting up (tfx_arena_mark) */
  max_align_t align_[]; /* payload follows */
};

int tfx_fault_injection_enabled(void) {
#ifdef TFXC_FAULT_INJECTION
  return 1;
#else
  return 0;
#endif
}

#ifdef TFXC_FAULT_INJECTION
/* Fault-injection state, per thread: a test arms it in the thread it then runs, and sessions
 * converting in other threads neither see it nor race on its counters. A worker thread a
 * library call starts for its caller (io.c's parallel GraphDef unpack) uses its caller's
 * state instead (tfx_alloc_hooks_use): the worker's allocations are the call's allocations,
 * so a sweep over tfx_alloc_fail_at(1..tfx_alloc_calls()) reaches them too. The state is then
 * shared by two threads at once, so every access is atomic (relaxed: the counts need no
 * ordering with anything else; the joins order them for the reader). With workers running
 * the Nth allocation is the Nth in whichever thread makes it first: which one fails varies
 * from run to run, but each armed N fails exactly one allocation (the decrement that reaches
 * 0 is unique), as with one thread. The observer is called under a lock (a test's observer
 * is not thread-safe). */
typedef struct fault_state {
  long countdown, hits, calls;
  int arena;
  void (*observer)(const void *site, void *user);
  void *observer_user;
} fault_state;
static _Thread_local fault_state fault_own;
static _Thread_local fault_state *fault_cur; /* NULL: fault_own */
static pthread_mutex_t fault_observer_lock = PTHREAD_MUTEX_INITIALIZER;

static fault_state *fault_st(void) { return fault_cur ? fault_cur : &fault_own; }
#define FLOAD(f) __atomic_load_n(&fault_st()->f, __ATOMIC_RELAXED)
#define FSTORE(f, v) __atomic_store_n(&fault_st()->f, (v), __ATOMIC_RELAXED)

void tfx_alloc_fail_at(long n) { FSTORE(countdown, n); FSTORE(hits, 0); FSTORE(calls, 0); }
long tfx_alloc_failures(void) { return FLOAD(hits); }
long tfx_alloc_calls(void) { return FLOAD(calls); }
void tfx_alloc_fail_arena(int on) { FSTORE(arena, on); }
void tfx_alloc_set_observer(void (*fn)(const void *site, void *user), void *user) {
  pthread_mutex_lock(&fault_observer_lock);
  fault_st()->observer = fn;
  fault_st()->observer_user = user;
  pthread_mutex_unlock(&fault_observer_lock);
}
void *tfx_alloc_hooks_get(void) { return fault_st(); }
void tfx_alloc_hooks_use(void *hooks) { fault_cur = hooks; }

/* One counted allocation made from code address site: 1 when it is the one to fail. */
static int should_fail_at(const void *site) {
  fault_state *f = fault_st();
  __atomic_fetch_add(&f->calls, 1, __ATOMIC_RELAXED);
  if (__atomic_load_n(&f->observer, __ATOMIC_RELAXED)) {
    pthread_mutex_lock(&fault_observer_lock);
    if (f->observer) f->observer(site, f->observer_user);
    pthread_mutex_unlock(&fault_observer_lock);
  }
  if (__atomic_load_n(&f->countdown, __ATOMIC_RELAXED) <= 0) return 0;
  if (__atomic_sub_fetch(&f->countdown, 1, __ATOMIC_RELAXED) == 0) {
    __atomic_fetch_add(&f->hits, 1, __ATOMIC_RELAXED);
    return 1;
  }
  return 0;
}
#define fail_arena FLOAD(arena)
#else
/* Built without the hooks (TFXC_FAULT_INJECTION off, Release builds): they do nothing and
 * allocations count nothing. */
void tfx_alloc_fail_at(long n) { (void)n; }
long tfx_alloc_failures(void) { return 0; }
long tfx_alloc_calls(void) { return 0; }
void tfx_alloc_fail_arena(int on) { (void)on; }
void tfx_alloc_set_observer(void (*fn)(const void *site, void *user), void *user) {
  (void)fn;
  (void)user;
}
void *tfx_alloc_hooks_get(void) { return NULL; }
void tfx_alloc_hooks_use(void *hooks) { (void)hooks; }
enum { fail_arena = 0 };
#define should_fail_at(site) ((void)(site), 0)
#endif
#define SITE __builtin_return_address(0)

/* ---------------------------------------------------------------- the page pool
 * Blocks of TFX_PAGES_MIN bytes and more are whole pages from mmap. When one is freed its pages
 * stay with the process, in this thread's pool (address-ordered page runs, neighbours merged),
 * and the next big block is cut from the smallest run it fits in (best fit) before any new
 * pages are mapped: the kernel neither unmaps them nor faults in and zeroes fresh ones. A block
 * that fits no run is mapped fresh. tfx_pages_trim unmaps what the pool holds. Only inside a
 * run (tfx_pages_pool_begin/end, arena.h): outside, a freed block is unmapped at once. */
static _Thread_local unsigned pool_depth; /* tfx_pages_pool_begin minus end: 0 = not pooling */

#if defined(MAP_ANONYMOUS) && !defined(TFX_PAGES_NO_POOL)
#define TFX_PAGES_POOL 1
#ifdef TFX_ARENA_ASAN
#include <sanitizer/lsan_interface.h>
#endif

typedef struct pool_run {
  uintptr_t start;
  size_t len;
} pool_run;

static _Thread_local pool_run *pool_runs; /* sorted by start, none adjacent to the next */
static _Thread_local size_t pool_n, pool_cap;
static _Thread_local tfx_pages_stats pool_stats;

static size_t page_size(void) {
  static _Thread_local size_t page;
  if (!page) {
    long pg = sysconf(_SC_PAGESIZE);
    page = pg > 0 && ((size_t)pg & ((size_t)pg - 1)) == 0 ? (size_t)pg : 4096;
  }
  return page;
}

static size_t page_round(size_t n) {
  size_t page = page_size();
  return n > SIZE_MAX - page ? 0 : (n + page - 1) & ~(page - 1);
}

/* The block [p, p + n) goes to a caller (LeakSanitizer scans it: arena memory holds pointers
 * to malloc'ed blocks) or comes back (poisoned in the pool, so a use after free is reported). */
static void pages_out(void *p, size_t n) {
#ifdef TFX_ARENA_ASAN
  ASAN_UNPOISON_MEMORY_REGION(p, n);
  __lsan_register_root_region(p, n);
#else
  (void)p;
  (void)n;
#endif
}

static void pages_in(void *p, size_t n) {
#ifdef TFX_ARENA_ASAN
  __lsan_unregister_root_region(p, n);
  ASAN_POISON_MEMORY_REGION(p, n);
#else
  (void)p;
  (void)n;
#endif
}

/* Takes len bytes from the start of run i. */
static void run_take(size_t i, size_t len) {
  pool_run *r = &pool_runs[i];
  r->start += len;
  r->len -= len;
  if (!r->len) {
    memmove(r, r + 1, (pool_n - i - 1) * sizeof *r);
    pool_n--;
  }
  pool_stats.pooled -= len;
  pool_stats.reused += len;
}

#ifdef MREMAP_FIXED
/* Moves the pages [src, src + len) to dst (mremap: the page tables move, the pages stay
 * resident; dst's old mapping goes). A run may span several kernel mappings, which one mremap
 * cannot move: then halves, in order. Returns the bytes moved, a prefix of len. */
static size_t move_pages(uintptr_t src, size_t len, uintptr_t dst) {
#ifdef TFX_ARENA_ASAN
  ASAN_UNPOISON_MEMORY_REGION((void *)src, len); /* the shadow stays with the address */
#endif
  if (mremap((void *)src, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)dst) != MAP_FAILED) return len;
  size_t page = page_size();
  if (errno != EFAULT || len <= page) return 0;
  size_t half = len / 2 & ~(page - 1);
  size_t done = move_pages(src, half, dst);
  return done < half ? done : half + move_pages(src + half, len - half, dst + half);
}
#endif

static void *pages_get(size_t n, int zeroed) {
  n = page_round(n);
  if (!n) return NULL;
  size_t best = pool_n;
  for (size_t i = 0; i < pool_n; i++)
    if (pool_runs[i].len >= n && (best == pool_n || pool_runs[i].len < pool_runs[best].len)) best = i;
  if (best < pool_n) {
    void *p = (void *)pool_runs[best].start;
    run_take(best, n);
    pages_out(p, n);
    if (zeroed) memset(p, 0, n);
    return p;
  }
  void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  size_t have = 0;
#ifdef MREMAP_FIXED
  /* No run is big enough: the block's front is gathered from the runs, largest first, by
   * moving their pages under it; only the rest is fresh memory. */
  while (have < n && pool_n) {
    size_t big = 0;
    for (size_t i = 1; i < pool_n; i++)
      if (pool_runs[i].len > pool_runs[big].len) big = i;
    size_t want = pool_runs[big].len < n - have ? pool_runs[big].len : n - have;
    size_t moved = move_pages(pool_runs[big].start, want, (uintptr_t)p + have);
    if (moved) run_take(big, moved);
    have += moved;
    if (moved < want) break;
  }
#endif
  pool_stats.mapped += n - have;
  pages_out(p, n);
  if (zeroed && have) memset(p, 0, have); /* the fresh rest reads as zeros */
  return p;
}

/* Unmaps a block a caller held. Its shadow is cleared first: a sweep or tfx_arena_give_back
 * may have poisoned some of its pages, and ASan keeps the shadow with the address, so the next
 * mapping placed there (a file read by io.c, say) would read as poisoned. */
static void pages_unmap(void *p, size_t n) {
#ifdef TFX_ARENA_ASAN
  __lsan_unregister_root_region(p, n);
  ASAN_UNPOISON_MEMORY_REGION(p, n);
#endif
  munmap(p, n);
}

static void pages_put(void *p, size_t n) {
  n = page_round(n);
  if (!p || !n) return;
  if (!pool_depth) { /* not in a run: back to the system (arena.h) */
    pages_unmap(p, n);
    return;
  }
  uintptr_t s = (uintptr_t)p, e = s + n;
  size_t l = 0, r = pool_n; /* first run starting after p */
  while (l < r) {
    size_t mid = l + (r - l) / 2;
    if (pool_runs[mid].start < s) l = mid + 1;
    else r = mid;
  }
  int left = l > 0 && pool_runs[l - 1].start + pool_runs[l - 1].len == s;
  int right = l < pool_n && pool_runs[l].start == e;
  if (!left && !right && pool_n == pool_cap) {
    size_t cap = pool_cap ? pool_cap * 2 : 64;
    pool_run *v = realloc(pool_runs, cap * sizeof *v); /* not counted: nothing fails if it does */
    if (!v) { /* no room to note it: the pages go back to the system */
      pages_unmap(p, n);
      return;
    }
    pool_runs = v;
    pool_cap = cap;
  }
  pages_in(p, n);
  pool_stats.pooled += n;
  if (left && right) {
    pool_runs[l - 1].len += n + pool_runs[l].len;
    memmove(&pool_runs[l], &pool_runs[l + 1], (pool_n - l - 1) * sizeof *pool_runs);
    pool_n--;
  } else if (left) {
    pool_runs[l - 1].len += n;
  } else if (right) {
    pool_runs[l].start = s;
    pool_runs[l].len += n;
  } else {
    memmove(&pool_runs[l + 1], &pool_runs[l], (pool_n - l) * sizeof *pool_runs);
    pool_runs[l] = (pool_run){s, n};
    pool_n++;
  }
}

size_t tfx_pages_trim(void) {
  size_t bytes = 0;
  for (size_t i = 0; i < pool_n; i++) {
#ifdef TFX_ARENA_ASAN
    ASAN_UNPOISON_MEMORY_REGION((void *)pool_runs[i].start, pool_runs[i].len);
#endif
    munmap((void *)pool_runs[i].start, pool_runs[i].len);
    bytes += pool_runs[i].len;
  }
  free(pool_runs);
  pool_runs = NULL;
  pool_n = pool_cap = 0;
  pool_stats.pooled = 0;
  pool_stats.trimmed += bytes;
  return bytes;
}
#else
/* No anonymous mappings: big blocks are malloc's, nothing is pooled. */
static void *pages_get(size_t n, int zeroed) { return zeroed ? calloc(1, n) : malloc(n); }
static void pages_put(void *p, size_t n) {
  (void)n;
  free(p);
}
static _Thread_local tfx_pages_stats pool_stats;
size_t tfx_pages_trim(void) { return 0; }
#endif

tfx_pages_stats tfx_pages_get_stats(void) { return pool_stats; }

void tfx_pages_pool_begin(void) { pool_depth++; }

void tfx_pages_pool_end(void) {
  if (pool_depth && --pool_depth == 0) tfx_pages_trim();
}

void *tfx_pages_alloc(size_t n, int zeroed) {
  if (should_fail_at(SITE)) return NULL;
  if (n < TFX_PAGES_MIN) return zeroed ? calloc(1, n ? n : 1) : malloc(n ? n : 1);
  return pages_get(n, zeroed);
}

void tfx_pages_free(void *p, size_t n) {
  if (!p) return;
  if (n < TFX_PAGES_MIN) free(p);
  else pages_put(p, n);
}

/* The chunk allocations of an arena count as allocations of the arena call's site. Chunks of
 * TFX_PAGES_MIN bytes and more come from the page pool. */
static void *chunk_malloc(size_t n, const void *site) {
  if (!fail_arena && should_fail_at(site)) return NULL;
  return n < TFX_PAGES_MIN ? malloc(n) : pages_get(n, 0);
}

/* A chunk's size: page-rounded when it comes from the pool (its payload gets the rest of the
 * last page); 0 on overflow. */
static size_t chunk_bytes(size_t n) {
#ifdef TFX_PAGES_POOL
  return n < TFX_PAGES_MIN ? n : page_round(n);
#else
  return n;
#endif
}

static void chunk_free(tfx_arena_chunk *c) {
  size_t n = sizeof *c + c->cap;
  if (n < TFX_PAGES_MIN) free(c);
  else pages_put(c, n);
}

void *tfx_malloc(size_t n) { return should_fail_at(SITE) ? NULL : malloc(n ? n : 1); }
void *tfx_realloc(void *p, size_t n) { return should_fail_at(SITE) ? NULL : realloc(p, n ? n : 1); }
void *tfx_calloc(size_t n, size_t size) {
  return should_fail_at(SITE) ? NULL : calloc(n ? n : 1, size ? size : 1);
}

static void *arena_alloc_at(tfx_arena *a, size_t n, const void *site);

static void *pb_alloc(void *data, size_t n) { return arena_alloc_at((tfx_arena *)data, n, SITE); }
static void pb_free(void *data, void *p) { (void)data; (void)p; }

void tfx_arena_init(tfx_arena *a) {
  memset(a, 0, sizeof *a);
  a->pb.alloc = pb_alloc;
  a->pb.free = pb_free;
  a->pb.allocator_data = a;
}

void tfx_arena_free(tfx_arena *a) {
  tfx_arena_chunk *c = a->head;
  while (c) {
    tfx_arena_chunk *n = c->next;
    chunk_free(c);
    c = n;
  }
  tfx_arena_init(a);
}

#define ARENA_MIN_CHUNK ((size_t)64 * 1024)
#define ARENA_ALIGN ((size_t)16)

void *tfx_arena_alloc(tfx_arena *a, size_t n) { return arena_alloc_at(a, n, SITE); }

static void *arena_alloc_at(tfx_arena *a, size_t n, const void *site) {
  if (fail_arena && should_fail_at(site)) return NULL;
  if (n == 0) n = 1;
  if (n > SIZE_MAX / 2) return NULL;
  n = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
  if (!a->head || a->cap - a->used < n) {
    size_t cap = a->head ? a->cap * 2 : ARENA_MIN_CHUNK;
    if (cap > (size_t)16 << 20) cap = (size_t)16 << 20;
    if (cap < n) cap = n;
    int own = a->head && cap == n && a->cap - a->used > 4096;
    size_t bytes = chunk_bytes(sizeof(tfx_arena_chunk) + cap);
    if (!bytes) return NULL;
    cap = bytes - sizeof(tfx_arena_chunk);
    tfx_arena_chunk *c = chunk_malloc(bytes, site);
    if (!c) return NULL;
    c->cap = cap;
    c->serial = ++a->nchunks;
    if (own) {
      /* A big request: keep the current chunk as head so its free space is not wasted. */
      c->next = a->head->next;
      a->head->next = c;
      a->total += cap;
      return (char *)(c + 1);
    }
    c->next = a->head;
    a->head = c;
    a->cap = cap;
    a->used = 0;
    a->total += cap;
  }
  void *p = (char *)(a->head + 1) + a->used;
  a->used += n;
  return p;
}

void *tfx_arena_calloc(tfx_arena *a, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  size_t bytes = n * size;
  void *p = arena_alloc_at(a, bytes, SITE);
  if (p && bytes) memset(p, 0, bytes);
  return p;
}

static char *arena_strndup_at(tfx_arena *a, const char *s, size_t n, const void *site) {
  char *p = arena_alloc_at(a, n + 1, site);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *tfx_arena_strndup(tfx_arena *a, const char *s, size_t n) {
  return arena_strndup_at(a, s, n, SITE);
}

char *tfx_arena_strdup(tfx_arena *a, const char *s) {
  return arena_strndup_at(a, s, strlen(s), SITE);
}

ProtobufCAllocator *tfx_arena_pb(tfx_arena *a) { return &a->pb; }

void tfx_arena_reset(tfx_arena *a) {
  if (!a->head) return;
  tfx_arena_chunk *c = a->head->next;
  while (c) {
    tfx_arena_chunk *n = c->next;
    chunk_free(c);
    c = n;
  }
  a->head->next = NULL;
  a->used = 0;
  a->total = a->cap;
#ifdef TFX_ARENA_ASAN
  /* the kept chunk is reused: pages a sweep or tfx_arena_give_back poisoned are writable
   * again (given back with madvise, they simply read as zeros until written) */
  ASAN_UNPOISON_MEMORY_REGION(a->head + 1, a->cap);
#endif
}

void tfx_arena_adopt(tfx_arena *a, tfx_arena *from) {
  if (!from->head || from == a) return;
  /* Serials: the adopted chunks are numbered as made now (after every mark a holds, so a sweep
   * begun from an older mark leaves them alone); their order among themselves is immaterial. */
  tfx_arena_chunk *last = NULL;
  for (tfx_arena_chunk *c = from->head; c; c = c->next) {
    c->serial = ++a->nchunks;
    last = c;
  }
  if (!a->head) { /* from's head goes on taking allocations, as a's */
    a->head = from->head;
    a->used = from->used;
    a->cap = from->cap;
  } else { /* behind a's head: only a's head takes allocations (the rest of from's is unused) */
    last->next = a->head->next;
    a->head->next = from->head;
  }
  a->total += from->total;
  a->released += from->released;
  tfx_arena_init(from);
}

void tfx_arena_get_mark(const tfx_arena *a, tfx_arena_mark *m) {
  m->serial = a->nchunks;
  m->head_serial = a->head ? a->head->serial : 0;
  m->used = a->head ? a->used : 0;
}

static int span_cmp(const void *x, const void *y) {
  const tfx_arena_span *a = x, *b = y;
  return a->start < b->start ? -1 : a->start > b->start;
}

int tfx_arena_sweep_begin(tfx_arena_sweep *s, tfx_arena *a, const tfx_arena_mark *m) {
  memset(s, 0, sizeof *s);
  s->arena = a;
  long pg = sysconf(_SC_PAGESIZE);
  size_t page = 4096;
  if (pg > 0 && ((size_t)pg & ((size_t)pg - 1)) == 0) page = (size_t)pg; /* a power of two */
  s->shift = 0;
  while (((size_t)1 << s->shift) < page) s->shift++;
  size_t n = 0;
  for (tfx_arena_chunk *c = a->head; c; c = c->next) n += c->serial <= m->serial;
  if (n == 0) return 0;
  s->spans = tfx_malloc(n * sizeof *s->spans);
  if (!s->spans) return -1;
  size_t pages = 0;
  for (tfx_arena_chunk *c = a->head; c; c = c->next) {
    if (c->serial > m->serial) continue; /* made after the mark */
    size_t lim = c->serial == m->head_serial ? m->used : c->cap; /* the head grew after the mark */
    uintptr_t b = (uintptr_t)(c + 1);
    uintptr_t start = (b + page - 1) / page * page, end = (b + lim) / page * page;
    if (end <= start) continue;
    tfx_arena_span *sp = &s->spans[s->n_spans++];
    sp->start = start;
    sp->end = end;
    pages += (end - start) / page;
  }
  qsort(s->spans, s->n_spans, sizeof *s->spans, span_cmp);
  for (size_t i = 0, bit = 0; i < s->n_spans; i++) {
    s->spans[i].bit = bit;
    bit += (s->spans[i].end - s->spans[i].start) / page;
  }
  s->bits = tfx_calloc((pages + 63) / 64, sizeof *s->bits);
  if (!s->bits) {
    free(s->spans);
    s->spans = NULL;
    s->n_spans = 0;
    return -1;
  }
  return 0;
}

void tfx_arena_sweep_keep_at(tfx_arena_sweep *s, const void *p, size_t n) {
  if (!p || n == 0 || s->n_spans == 0) return;
  size_t page = (size_t)1 << s->shift;
  uintptr_t lo = (uintptr_t)p, hi = lo + n; /* [lo, hi) */
  const tfx_arena_span *sp = &s->spans[s->last];
  if (lo >= sp->end || hi <= sp->start) { /* find the last span starting at or before hi */
    size_t l = 0, r = s->n_spans;
    while (l < r) {
      size_t mid = l + (r - l) / 2;
      if (s->spans[mid].start < hi) l = mid + 1;
      else r = mid;
    }
    if (l == 0) return; /* below every span */
    sp = &s->spans[l - 1];
    if (lo >= sp->end) return; /* between spans, or after the last one: not candidate memory */
    s->last = l - 1;
  }
  /* an allocation never crosses chunks: clip to this span */
  if (lo < sp->start) lo = sp->start;
  if (hi > sp->end) hi = sp->end;
  size_t first = sp->bit + (lo - sp->start) / page, last = sp->bit + (hi - 1 - sp->start) / page;
  for (size_t i = first; i <= last; i++) s->bits[i / 64] |= (uint64_t)1 << (i % 64);
}

/* Gives back the run of pages [p, p + len). */
static void give_back(void *p, size_t len) {
#ifdef TFX_ARENA_ASAN
  ASAN_POISON_MEMORY_REGION(p, len); /* a later read is a report, not a silent zero */
#elif defined(MADV_DONTNEED)
  (void)madvise(p, len, MADV_DONTNEED); /* on failure the pages simply stay */
#else
  (void)p;
  (void)len;
#endif
}

void tfx_arena_give_back(tfx_arena *a, void *p, size_t n) {
  long pg = sysconf(_SC_PAGESIZE);
  uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
  uintptr_t start = ((uintptr_t)p + page - 1) / page * page, end = ((uintptr_t)p + n) / page * page;
  if (!p || end <= start) return;
  give_back((void *)start, end - start);
  a->released += end - start;
}

size_t tfx_arena_trim_head(tfx_arena *a) {
  if (!a->head) return 0;
  size_t page = page_size();
  uintptr_t b = (uintptr_t)(a->head + 1);
  uintptr_t start = (b + a->used + page - 1) & ~(uintptr_t)(page - 1), end = (b + a->cap) & ~(uintptr_t)(page - 1);
  if (end <= start) return 0;
#if defined(MADV_DONTNEED)
  (void)madvise((void *)start, end - start, MADV_DONTNEED); /* they read as zeros until written */
#endif
  return end - start;
}

size_t tfx_arena_sweep_release(tfx_arena_sweep *s) {
  size_t bytes = 0, page = (size_t)1 << s->shift;
  for (size_t i = 0; i < s->n_spans; i++) {
    const tfx_arena_span *sp = &s->spans[i];
    size_t np = (sp->end - sp->start) / page;
    for (size_t k = 0; k < np;) {
      size_t b = sp->bit + k;
      if (s->bits[b / 64] >> (b % 64) & 1) {
        k++;
        continue;
      }
      size_t run = k;
      while (run < np && !(s->bits[(sp->bit + run) / 64] >> ((sp->bit + run) % 64) & 1)) run++;
      give_back((void *)(sp->start + k * page), (run - k) * page);
      bytes += (run - k) * page;
      k = run;
    }
  }
  free(s->spans);
  free(s->bits);
  s->spans = NULL;
  s->bits = NULL;
  s->n_spans = 0;
  s->arena->released += bytes;
  return bytes;
}
