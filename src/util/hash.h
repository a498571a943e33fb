/* String-keyed hash map (open addressing) and a string interner.
 * Stage: shared utility. Keys are borrowed (the caller keeps them alive, usually in an arena);
 * values are uint32_t. The interner copies strings into its own arena and hands out dense ids
 * 0..n-1 in first-seen order, so id order is deterministic for a given input. */
#ifndef TFX_UTIL_HASH_H
#define TFX_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

#define TFX_HASH_NONE UINT32_MAX

typedef struct tfx_hmap_slot {
  const char *key;
  uint32_t klen;
  uint32_t hash;
  uint32_t value;
} tfx_hmap_slot;

typedef struct tfx_hmap {
  tfx_hmap_slot *slots; /* tfx_pages_alloc'ed (util/arena.h), cap slots */
  size_t cap;           /* power of two */
  size_t n;
} tfx_hmap;

uint32_t tfx_hash_bytes(const void *p, size_t n);
void tfx_hmap_init(tfx_hmap *m);
void tfx_hmap_free(tfx_hmap *m);
/* Lookup: value or TFX_HASH_NONE. */
uint32_t tfx_hmap_get(const tfx_hmap *m, const char *key, size_t klen);
/* Insert if absent. Returns 1 inserted, 0 already present (*existing set), -1 out of memory. */
int tfx_hmap_put(tfx_hmap *m, const char *key, size_t klen, uint32_t value, uint32_t *existing);
int tfx_hmap_reserve(tfx_hmap *m, size_t n);
/* tfx_hmap_put with the key's hash given (h = tfx_hash_bytes(key, klen)): for loops that
 * hash ahead and prefetch the slot (tfx_hmap_prefetch) so a large map's cache miss overlaps
 * other work. Same result as tfx_hmap_put. */
int tfx_hmap_put_hashed(tfx_hmap *m, const char *key, size_t klen, uint32_t h, uint32_t value,
                        uint32_t *existing);
/* Hint: the slot where a key of hash h starts probing is read soon (only while the map does
 * not grow in between, e.g. after tfx_hmap_reserve). */
static inline void tfx_hmap_prefetch(const tfx_hmap *m, uint32_t h) {
  if (m->cap) __builtin_prefetch(&m->slots[h & (m->cap - 1)]);
}

typedef struct tfx_intern {
  tfx_arena arena;
  tfx_hmap map;
  const char **strs; /* id -> string */
  uint32_t n, cap;
} tfx_intern;

void tfx_intern_init(tfx_intern *t);
void tfx_intern_free(tfx_intern *t);
/* Id of s (added if new); TFX_HASH_NONE on out of memory. */
uint32_t tfx_intern_id(tfx_intern *t, const char *s, size_t n);
/* Id of s if known, else TFX_HASH_NONE. */
uint32_t tfx_intern_find(const tfx_intern *t, const char *s, size_t n);
static inline const char *tfx_intern_str(const tfx_intern *t, uint32_t id) { return t->strs[id]; }

#endif
