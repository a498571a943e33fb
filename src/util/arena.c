/* Arena allocator (see arena.h). Chunks grow geometrically; big requests get their own chunk.
 * Sweeps give back the whole pages of old chunks that nothing reachable touches. */
#define _DEFAULT_SOURCE /* madvise, MADV_DONTNEED (Linux, the BSDs); without it the pages stay */
#include "util/arena.h"

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
 * converting in other threads neither see it nor race on its counters. */
static _Thread_local long fail_countdown;
static _Thread_local long fail_hits;
static _Thread_local long fail_calls;
static _Thread_local int fail_arena;
static _Thread_local void (*fail_observer)(const void *site, void *user);
static _Thread_local void *fail_observer_user;

void tfx_alloc_fail_at(long n) { fail_countdown = n; fail_hits = 0; fail_calls = 0; }
long tfx_alloc_failures(void) { return fail_hits; }
long tfx_alloc_calls(void) { return fail_calls; }
void tfx_alloc_fail_arena(int on) { fail_arena = on; }
void tfx_alloc_set_observer(void (*fn)(const void *site, void *user), void *user) {
  fail_observer = fn;
  fail_observer_user = user;
}

/* One counted allocation made from code address site: 1 when it is the one to fail. */
static int should_fail_at(const void *site) {
  fail_calls++;
  if (fail_observer) fail_observer(site, fail_observer_user);
  if (fail_countdown <= 0) return 0;
  if (--fail_countdown == 0) { fail_hits++; return 1; }
  return 0;
}
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
enum { fail_arena = 0 };
#define should_fail_at(site) ((void)(site), 0)
#endif
#define SITE __builtin_return_address(0)

/* The chunk allocations of an arena count as allocations of the arena call's site. */
static void *chunk_malloc(size_t n, const void *site) {
  return !fail_arena && should_fail_at(site) ? NULL : malloc(n);
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
    free(c);
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
    tfx_arena_chunk *c = chunk_malloc(sizeof *c + cap, site);
    if (!c) return NULL;
    c->cap = cap;
    c->serial = ++a->nchunks;
    if (a->head && cap == n && a->cap - a->used > 4096) {
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
    free(c);
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
