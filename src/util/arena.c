/* Arena allocator (see arena.h). Chunks grow geometrically; big requests get their own chunk. */
#include "util/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct tfx_arena_chunk {
  tfx_arena_chunk *next;
  size_t cap;
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
}
