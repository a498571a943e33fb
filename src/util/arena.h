/* Arena allocator: one per model and one per rule compile.
 * Stage: shared utility. Memory is released all at once by tfx_arena_free; individual
 * frees are no-ops, but whole pages nothing reads any more can be given back to the system
 * early (sweeps, tfx_arena_give_back: the chunks stay allocated). Big chunks come from a
 * per-thread page pool that keeps freed pages for the next big block (tfx_pages_*, below).
 * tfx_arena_pb() adapts an arena to protobuf-c's allocator interface so
 * protobuf_c_message_unpack allocates into it.
 * Allocation failure returns NULL (never aborts). */
#ifndef TFX_UTIL_ARENA_H
#define TFX_UTIL_ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>

typedef struct tfx_arena_chunk tfx_arena_chunk;

typedef struct tfx_arena {
  tfx_arena_chunk *head;   /* newest chunk first */
  size_t used;             /* bytes used in head */
  size_t cap;              /* capacity of head */
  size_t total;            /* total bytes requested from malloc */
  size_t nchunks;          /* chunks made so far (each chunk's serial number, from 1) */
  size_t released;         /* bytes of whole pages given back (tfx_arena_sweep_release,
                              tfx_arena_give_back; a page given back twice counts twice) */
  ProtobufCAllocator pb;   /* protobuf-c adapter; allocator_data = this arena */
} tfx_arena;

/* A point in an arena's history: what was allocated before it. Zeroed = the arena's start. */
typedef struct tfx_arena_mark {
  size_t serial;           /* chunks made before the mark */
  size_t head_serial;      /* serial of the head chunk at the mark, 0 = none */
  size_t used;             /* bytes used in that head chunk at the mark */
} tfx_arena_mark;

void tfx_arena_init(tfx_arena *a);
void tfx_arena_free(tfx_arena *a);           /* releases every allocation; a stays usable */
/* Releases every allocation but keeps the newest chunk for the next ones (a scratch arena
 * reused many times, e.g. per op in lowering). */
void tfx_arena_reset(tfx_arena *a);
void *tfx_arena_alloc(tfx_arena *a, size_t n); /* 16-byte aligned; NULL on failure */
void *tfx_arena_calloc(tfx_arena *a, size_t n, size_t size); /* zeroed; overflow-checked */
char *tfx_arena_strndup(tfx_arena *a, const char *s, size_t n);
char *tfx_arena_strdup(tfx_arena *a, const char *s);
ProtobufCAllocator *tfx_arena_pb(tfx_arena *a);

/* Moves every chunk of from into a (from is left empty, as after tfx_arena_init): a then frees
 * them. For an arena filled by another thread (io.c's parallel unpack): a chunk is only memory,
 * whichever thread made it. A small one is malloc's (freed from any thread); a big one is whole
 * pages that the freeing thread's page pool takes (pages are the process's, not a thread's;
 * the worker's own pool stays empty: it is in no run, tfx_pages_pool_begin) or unmaps, with
 * its AddressSanitizer shadow cleared either way (pages a worker gave back stay poisoned until
 * then, as in the thread that made them). a's head stays its head: from's chunks, its
 * partly used head too, take no more allocations. */
void tfx_arena_adopt(tfx_arena *a, tfx_arena *from);
void tfx_arena_get_mark(const tfx_arena *a, tfx_arena_mark *m);

/* Giving back the pages of an arena that nothing reads any more (a model's protobuf-c tree
 * after passes removed nodes from it, and the unpacker's scratch it never frees). The arena's
 * memory from before a mark is the candidate; the caller tells the sweep every byte range
 * still reachable (tfx_arena_sweep_keep; ranges outside the candidate memory are ignored) and
 * tfx_arena_sweep_release gives every whole page no kept range touches back to the system
 * (madvise MADV_DONTNEED; in AddressSanitizer builds the pages are poisoned instead, so a
 * later read of them is reported). Released pages must not be read again: they read as zeros.
 * The arena stays valid (its chunks are freed as usual) and its later allocations are never
 * in swept memory (only the head chunk grows, and from its mark position on). A reset arena's
 * old marks are void.
 *
 * A span: the whole pages of one chunk's payload that a sweep may give back. */
typedef struct tfx_arena_span {
  uintptr_t start, end;    /* page-aligned, inside the payload (the chunk header's page excluded) */
  size_t bit;              /* index of the span's first page in the sweep's bitmap */
} tfx_arena_span;

typedef struct tfx_arena_sweep {
  tfx_arena *arena;
  tfx_arena_span *spans;   /* candidate pages per chunk, sorted by address */
  size_t n_spans;
  uint64_t *bits;          /* one bit per candidate page: 1 = kept */
  size_t last;             /* span of the last kept range (ranges come in address runs) */
  unsigned shift;          /* log2 of the page size */
} tfx_arena_sweep;

/* Starts a sweep of a's memory before mark m. Returns 0, or -1 when out of memory (the sweep is
 * then empty: keep and release do nothing). */
int tfx_arena_sweep_begin(tfx_arena_sweep *s, tfx_arena *a, const tfx_arena_mark *m);
/* Keeps the pages [p, p + n) touches. Inline for a range in the span of the last one (a walk in
 * allocation order: nearly every range), else tfx_arena_sweep_keep_at. */
void tfx_arena_sweep_keep_at(tfx_arena_sweep *s, const void *p, size_t n);
static inline void tfx_arena_sweep_keep(tfx_arena_sweep *s, const void *p, size_t n) {
  uintptr_t lo = (uintptr_t)p;
  if (n && s->n_spans) {
    const tfx_arena_span *sp = &s->spans[s->last];
    if (lo >= sp->start && lo < sp->end && n <= sp->end - lo) {
      size_t a = sp->bit + ((lo - sp->start) >> s->shift);
      size_t b = sp->bit + ((lo + n - 1 - sp->start) >> s->shift);
      for (; a <= b; a++) s->bits[a / 64] |= (uint64_t)1 << (a % 64);
      return;
    }
  }
  tfx_arena_sweep_keep_at(s, p, n);
}
/* Gives back the whole pages inside [p, p + n), an allocation of a that nothing will read again
 * (a block protobuf-c frees into the arena); adds them to a->released. */
void tfx_arena_give_back(tfx_arena *a, void *p, size_t n);
/* Gives back the whole pages of a's newest chunk that no allocation has reached yet (they
 * read as zeros when later allocations reach them): a chunk cut from the page pool may hold
 * pages its earlier owner wrote, resident although this arena never used them. Returns their
 * bytes. */
size_t tfx_arena_trim_head(tfx_arena *a);
/* Gives back the pages no kept range touched, ends the sweep (frees its tables) and returns
 * the bytes given back (added to the arena's `released`). */
size_t tfx_arena_sweep_release(tfx_arena_sweep *s);

/* The page pool: blocks of TFX_PAGES_MIN bytes and more (arena chunks, big hash tables) are
 * whole pages mapped from the system, and when freed their pages stay in a pool of this thread
 * from which the next big block is cut (best fit; runs of adjacent pages merge) before any
 * new pages are mapped. The pages a pass frees are then not unmapped and faulted in (and
 * zeroed by the kernel) again by the next pass. Smaller blocks are malloc's. The pool holds
 * only what was in use before, so with the blocks reused it adds nothing to the process's
 * peak; tfx_pages_trim gives its pages back (before lowering, whose memory does not come
 * from the pool; at the end of every pipeline run, tfx_pages_pool_end below).
 * tfx_pages_alloc: n bytes, 16-byte aligned (page-aligned from TFX_PAGES_MIN up), zeroed if
 * asked; NULL on failure (a counted allocation for fault injection). tfx_pages_free: the same
 * pointer and n as allocated (in AddressSanitizer builds a pooled block is poisoned, and a
 * block in use is a LeakSanitizer root region). */
#define TFX_PAGES_MIN ((size_t)128 * 1024)
void *tfx_pages_alloc(size_t n, int zeroed);
void tfx_pages_free(void *p, size_t n);
size_t tfx_pages_trim(void); /* unmaps this thread's pooled pages; returns their bytes */
/* The pool keeps pages only between tfx_pages_pool_begin and the matching tfx_pages_pool_end
 * (tfx_pipeline_run brackets every run): outside, a freed big block goes straight back to the
 * system, so a library call that is not a run keeps no pages in its thread, and a thread that
 * ends keeps none mapped. They nest; the outermost end empties the pool (tfx_pages_trim). */
void tfx_pages_pool_begin(void);
void tfx_pages_pool_end(void);
typedef struct tfx_pages_stats {
  size_t pooled;   /* bytes in the pool now */
  size_t mapped;   /* bytes mapped fresh so far */
  size_t reused;   /* bytes handed out again from the pool so far */
  size_t trimmed;  /* bytes tfx_pages_trim gave back so far */
} tfx_pages_stats;
tfx_pages_stats tfx_pages_get_stats(void); /* this thread's */

/* Test hook (fault injection): when > 0, the Nth allocation from now on fails (all arenas and
 * tfx_xmalloc). 0 disables. Returns nothing; read tfx_alloc_failures() to see hits.
 * An allocation is a call of tfx_malloc, tfx_realloc or tfx_calloc, which arenas make when
 * they need a new chunk; with tfx_alloc_fail_arena(1) every arena allocation (tfx_arena_alloc
 * and its wrappers, protobuf-c's allocations into an arena) counts too, so the callers'
 * out-of-memory paths are reached even when the chunk has room. tfx_alloc_calls() is the
 * number of allocations counted since the last tfx_alloc_fail_at (also when disabled, so a
 * test can measure a run first). tfx_alloc_set_observer() calls fn for every counted
 * allocation with the code address it was made from (the caller of tfx_malloc/tfx_realloc/
 * tfx_calloc/tfx_arena_alloc/tfx_arena_calloc/tfx_arena_strndup/tfx_arena_strdup, or the
 * protobuf-c code allocating into an arena): tests use it to find every distinct
 * allocation site of a run. These hooks are per thread: they see the allocations of the
 * thread that set them (library sessions in other threads are not affected). */
void tfx_alloc_fail_at(long n);
long tfx_alloc_failures(void);
/* 1 when this build has the fault-injection hooks (here and tfx_write_fail_at, fileio.h): the
 * CMake option TFXC_FAULT_INJECTION, on by default except in Release and MinSizeRel builds.
 * Without them the hooks do nothing and the counters stay 0 (nothing is counted or checked
 * on the allocation and write paths); the fault tests then exit 77 (skipped). */
int tfx_fault_injection_enabled(void);
long tfx_alloc_calls(void);
void tfx_alloc_fail_arena(int on);
void tfx_alloc_set_observer(void (*fn)(const void *site, void *user), void *user);
/* The calling thread's hooks above, for a worker thread it starts on its behalf
 * (util/thread.h tfx_thread_start does it for every library thread): the worker calls
 * tfx_alloc_hooks_use(h) first (and tfx_alloc_hooks_use(NULL) before it ends, back to its own),
 * and its allocations are counted, observed and failed as the caller's (the counters are then
 * updated atomically; which thread's allocation is the Nth varies, one fails per armed N).
 * NULL and nothing without fault injection. */
void *tfx_alloc_hooks_get(void);
void tfx_alloc_hooks_use(void *hooks);
/* malloc/realloc wrappers that honour the fault-injection hook. */
void *tfx_malloc(size_t n);
void *tfx_realloc(void *p, size_t n);
void *tfx_calloc(size_t n, size_t size);

#endif
