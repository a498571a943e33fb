/* Arena allocator: one per model and one per rule compile.
 * Stage: shared utility. Memory is released all at once by tfx_arena_free; individual
 * frees are no-ops. tfx_arena_pb() adapts an arena to protobuf-c's allocator interface so
 * protobuf_c_message_unpack allocates into it. Allocation failure returns NULL (never aborts). */
#ifndef TFX_UTIL_ARENA_H
#define TFX_UTIL_ARENA_H

#include <stddef.h>
#include <protobuf-c/protobuf-c.h>

typedef struct tfx_arena_chunk tfx_arena_chunk;

typedef struct tfx_arena {
  tfx_arena_chunk *head;   /* newest chunk first */
  size_t used;             /* bytes used in head */
  size_t cap;              /* capacity of head */
  size_t total;            /* total bytes requested from malloc */
  ProtobufCAllocator pb;   /* protobuf-c adapter; allocator_data = this arena */
} tfx_arena;

void tfx_arena_init(tfx_arena *a);
void tfx_arena_free(tfx_arena *a);           /* releases every allocation; a stays usable */
void *tfx_arena_alloc(tfx_arena *a, size_t n); /* 16-byte aligned; NULL on failure */
void *tfx_arena_calloc(tfx_arena *a, size_t n, size_t size); /* zeroed; overflow-checked */
char *tfx_arena_strndup(tfx_arena *a, const char *s, size_t n);
char *tfx_arena_strdup(tfx_arena *a, const char *s);
ProtobufCAllocator *tfx_arena_pb(tfx_arena *a);

/* Test hook (fault injection): when > 0, the Nth allocation from now on fails (all arenas and
 * tfx_xmalloc). 0 disables. Returns nothing; read tfx_alloc_failures() to see hits. */
void tfx_alloc_fail_at(long n);
long tfx_alloc_failures(void);
/* malloc/realloc wrappers that honour the fault-injection hook. */
void *tfx_malloc(size_t n);
void *tfx_realloc(void *p, size_t n);
void *tfx_calloc(size_t n, size_t size);

#endif
