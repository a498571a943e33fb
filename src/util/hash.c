/* Hash map and interner (see hash.h). Word-at-a-time hashing; linear probing; load factor <= 1/2.
 * A map's slot table comes from tfx_pages_alloc (a big one from the page pool, util/arena.h). */
#include "util/hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Eight bytes per step (multiply + xor-shift), then a splitmix64 finish. Byte-at-a-time FNV-1a
 * was a tenth of a 10^6-node conversion: node names are long and every pass looks them up.
 * Nothing depends on the values beyond one run (no output is ordered by hash), so the host's
 * byte order may show in them. */
uint32_t tfx_hash_bytes(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    s += 8;
    n -= 8;
  }
  uint64_t w = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* the last 0-7 bytes as a little-endian word, without a byte loop: two overlapping 4-byte
   * loads, or first/middle/last byte (overlapping bytes are the same, so OR is exact) */
  if (n >= 4) {
    uint32_t lo, hi;
    memcpy(&lo, s, 4);
    memcpy(&hi, s + n - 4, 4);
    w = (uint64_t)lo | ((uint64_t)hi << (8 * (n - 4)));
  } else if (n) {
    w = (uint64_t)s[0] | ((uint64_t)s[n / 2] << (8 * (n / 2))) | ((uint64_t)s[n - 1] << (8 * (n - 1)));
  }
#else
  for (size_t i = 0; i < n; i++) w |= (uint64_t)s[i] << (8 * i);
#endif
  h = (h ^ w) * 0x94D049BB133111EBull;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return (uint32_t)h;
}

void tfx_hmap_init(tfx_hmap *m) { memset(m, 0, sizeof *m); }
void tfx_hmap_free(tfx_hmap *m) {
  tfx_pages_free(m->slots, m->cap * sizeof *m->slots);
  tfx_hmap_init(m);
}

static int grow(tfx_hmap *m, size_t cap) {
  if (cap > SIZE_MAX / sizeof(tfx_hmap_slot)) return -1;
  tfx_hmap_slot *s = tfx_pages_alloc(cap * sizeof *s, 1);
  if (!s) return -1;
  for (size_t i = 0; i < m->cap; i++) {
    tfx_hmap_slot *o = &m->slots[i];
    if (!o->key) continue;
    size_t j = o->hash & (cap - 1);
    while (s[j].key) j = (j + 1) & (cap - 1);
    s[j] = *o;
  }
  tfx_pages_free(m->slots, m->cap * sizeof *m->slots);
  m->slots = s;
  m->cap = cap;
  return 0;
}

int tfx_hmap_reserve(tfx_hmap *m, size_t n) {
  size_t cap = m->cap ? m->cap : 16;
  while (cap < n * 2) cap *= 2;
  return cap == m->cap ? 0 : grow(m, cap);
}

uint32_t tfx_hmap_get(const tfx_hmap *m, const char *key, size_t klen) {
  if (!m->cap) return TFX_HASH_NONE;
  uint32_t h = tfx_hash_bytes(key, klen);
  size_t j = h & (m->cap - 1);
  while (m->slots[j].key) {
    const tfx_hmap_slot *s = &m->slots[j];
    if (s->hash == h && s->klen == klen && memcmp(s->key, key, klen) == 0) return s->value;
    j = (j + 1) & (m->cap - 1);
  }
  return TFX_HASH_NONE;
}

int tfx_hmap_put(tfx_hmap *m, const char *key, size_t klen, uint32_t value, uint32_t *existing) {
  return tfx_hmap_put_hashed(m, key, klen, tfx_hash_bytes(key, klen), value, existing);
}

int tfx_hmap_put_hashed(tfx_hmap *m, const char *key, size_t klen, uint32_t h, uint32_t value,
                        uint32_t *existing) {
  if (klen > UINT32_MAX) return -1;
  if ((m->n + 1) * 2 > m->cap && grow(m, m->cap ? m->cap * 2 : 16) < 0) return -1;
  size_t j = h & (m->cap - 1);
  while (m->slots[j].key) {
    tfx_hmap_slot *s = &m->slots[j];
    if (s->hash == h && s->klen == klen && memcmp(s->key, key, klen) == 0) {
      if (existing) *existing = s->value;
      return 0;
    }
    j = (j + 1) & (m->cap - 1);
  }
  m->slots[j].key = key;
  m->slots[j].klen = (uint32_t)klen;
  m->slots[j].hash = h;
  m->slots[j].value = value;
  m->n++;
  return 1;
}

void tfx_intern_init(tfx_intern *t) {
  memset(t, 0, sizeof *t);
  tfx_arena_init(&t->arena);
  tfx_hmap_init(&t->map);
}

void tfx_intern_free(tfx_intern *t) {
  tfx_arena_free(&t->arena);
  tfx_hmap_free(&t->map);
  free(t->strs);
  memset(t, 0, sizeof *t);
}

uint32_t tfx_intern_find(const tfx_intern *t, const char *s, size_t n) {
  return tfx_hmap_get(&t->map, s, n);
}

uint32_t tfx_intern_id(tfx_intern *t, const char *s, size_t n) {
  uint32_t id = tfx_hmap_get(&t->map, s, n);
  if (id != TFX_HASH_NONE) return id;
  if (t->n == t->cap) {
    uint32_t cap = t->cap ? t->cap * 2 : 32;
    const char **p = tfx_realloc(t->strs, cap * sizeof *p);
    if (!p) return TFX_HASH_NONE;
    t->strs = p;
    t->cap = cap;
  }
  char *copy = tfx_arena_strndup(&t->arena, s, n);
  if (!copy) return TFX_HASH_NONE;
  id = t->n;
  if (tfx_hmap_put(&t->map, copy, n, id, NULL) < 0) return TFX_HASH_NONE;
  t->strs[t->n++] = copy;
  return id;
}
