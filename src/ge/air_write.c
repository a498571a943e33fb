/* The .air writer: a ge.proto.ModelDef serialized by code written for GE IR's message types,
 * instead of the descriptor-driven packer (src/io/pack.c) that serves every protobuf-c message.
 * Stage: ge (output side; the emit-ge pass). Input: a finished ModelDef (maps sorted).
 * Output: the packer's chunk list (tfx_io_pieces), first bytes first.
 *
 * The bytes are exactly tfx_io_pack's (which are C++ protobuf's): fields in field-number order,
 * proto3 presence (strings non-empty, bytes non-empty, scalars with non-zero bits, messages
 * non-NULL), oneof members written whenever they are the set case (a NULL message member is
 * not), repeated scalars packed, every element of a repeated field written (a NULL string or
 * message as an empty one), map entries always with key and value, unknown fields after the
 * known ones. tests/unit/test_ge_air_write.c compares the two on every golden case's model and
 * on models with every field set; fuzz_convert and fuzz_ge_pbtxt compare them on every input.
 *
 * Why: the packer looks every field up in a per-type plan, switches on its kind and tests its
 * presence generically; at 10^4 nodes that was 29% of a whole conversion's instructions (134 M
 * for a 4.5 MB .air, ~30 per output byte). Here each message type is one function that knows
 * its fields. The writer is the packer's: one pass back to front (fields in reverse, repeated
 * elements in reverse, a length written in front of its content once the content is written),
 * into chunks of 64 KiB doubling to 64 MiB, so no size is ever computed in advance and the
 * memory is the same as the packer's. Messages nested deeper than TFX_AIR_DEPTH fail like the
 * packer's; a model over the size limit is handed back to the packer, which reports its exact
 * size. */
#include "ge/air_write.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ge/air_sink.h"
#include "util/arena.h"
#include "util/hash.h"

#define TFX_AIR_DEPTH 1000
#define TFX_AIR_CHUNK_MIN ((size_t)64 << 10)
#define TFX_AIR_CHUNK_MAX ((size_t)64 << 20)

typedef struct aw_chunk {
  struct aw_chunk *next; /* older chunk (later bytes of the output) */
  size_t cap, used;      /* used bytes are the last `used` of data */
  uint8_t data[];
} aw_chunk;

typedef struct aw {
  uint8_t *p, *lim; /* bytes go to p - 1 downwards, never below lim */
  aw_chunk *head;   /* newest chunk: the first bytes of the output */
  size_t done;      /* bytes in the chunks after head */
  size_t next_cap, max;
  int err; /* 1 too deep, 2 out of memory, 3 over the size limit */
  /* tfx_ge_air_stream_attrs: the data of this tensor, when it is the first thing written, is
   * counted (virt) but not copied: the caller keeps a pointer to it instead */
  const uint8_t *borrow;
  size_t virt;
  /* frozen messages whose content bytes are written once and copied (tfx_ge_air_memo); NULL:
   * none */
  const struct tfx_ge_air_memo *memo;
  /* tfx_ge_air_stream_op_pre: the op's attr map as bytes merged before (put as they are), or
   * the slot to keep the bytes merged now in (as_merge); NULL: neither */
  const struct as_merge *merged;
  struct as_merge *fill;
  const uint8_t *fill_pre; /* the key's block, set in fill->pre once its bytes are there */
  /* tfx_ge_air_stream_op_pre: an op's descriptor records kept by their addresses (as_descs);
   * NULL: none */
  struct as_descs *descs;
} aw;

static inline size_t aw_pos(const aw *c) {
  return c->virt + (c->head ? c->done + (size_t)(c->head->data + c->head->cap - c->p) : 0);
}

static int aw_room_slow(aw *c, size_t n) {
  if (c->err) return 0;
  size_t pos = aw_pos(c);
  if (n > c->max - pos) {
    c->err = 3;
    return 0;
  }
  if (c->head) {
    c->head->used = (size_t)(c->head->data + c->head->cap - c->p);
    c->done += c->head->used;
  }
  size_t cap = c->next_cap;
  if (cap < n) cap = n;
  aw_chunk *k = tfx_malloc(sizeof *k + cap);
  if (!k) {
    c->err = 2;
    return 0;
  }
  if (c->next_cap < TFX_AIR_CHUNK_MAX) c->next_cap *= 2;
  k->next = c->head;
  k->cap = cap;
  k->used = 0;
  c->head = k;
  c->lim = k->data;
  c->p = k->data + cap;
  return 1;
}

static inline int aw_room(aw *c, size_t n) {
  return (size_t)(c->p - c->lim) >= n || aw_room_slow(c, n);
}

static inline void aw_byte(aw *c, uint8_t b) {
  if (c->p > c->lim || aw_room_slow(c, 1)) *--c->p = b;
}

static inline void aw_varint(aw *c, uint64_t v) {
  if (v < 0x80) {
    aw_byte(c, (uint8_t)v);
    return;
  }
  size_t n = 2;
  for (uint64_t x = v >> 14; x; x >>= 7) n++;
  if (!aw_room(c, n)) return;
  uint8_t *q = c->p -= n;
  while (v >= 0x80) {
    *q++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *q = (uint8_t)v;
}

/* A tag: (field << 3 | wire type); every GE field number is < 2048 (two bytes at most). */
static inline void aw_tag(aw *c, unsigned field, unsigned wt) { aw_varint(c, (uint64_t)field << 3 | wt); }

static inline void aw_raw(aw *c, const void *src, size_t n) {
  if (!n || !aw_room(c, n)) return;
  c->p -= n;
  memcpy(c->p, src, n);
}

/* length-delimited payload + length + tag */
static inline void aw_ld(aw *c, unsigned field, const void *src, size_t n) {
  aw_raw(c, src, n);
  aw_varint(c, n);
  aw_tag(c, field, 2);
}

/* proto3 string field: written when non-empty */
static inline void aw_str(aw *c, unsigned field, const char *s) {
  if (s && *s) aw_ld(c, field, s, strlen(s));
}

/* an element of a repeated string field (or a forced one): always written */
static inline void aw_str_always(aw *c, unsigned field, const char *s) {
  aw_ld(c, field, s, s ? strlen(s) : 0);
}

static inline void aw_strs(aw *c, unsigned field, char *const *v, size_t n) {
  for (size_t k = n; k-- > 0;) aw_str_always(c, field, v[k]);
}

static inline void aw_bytes_list(aw *c, unsigned field, const ProtobufCBinaryData *v, size_t n) {
  for (size_t k = n; k-- > 0;) aw_ld(c, field, v[k].data, v[k].len);
}

/* proto3 int64/uint64 (raw bits), int32/enum (sign-extended), bool: written when non-zero */
static inline void aw_i64(aw *c, unsigned field, int64_t v) {
  if (v) {
    aw_varint(c, (uint64_t)v);
    aw_tag(c, field, 0);
  }
}
static inline void aw_i32(aw *c, unsigned field, int32_t v) {
  if (v) {
    aw_varint(c, (uint64_t)(int64_t)v);
    aw_tag(c, field, 0);
  }
}
static inline void aw_bool(aw *c, unsigned field, protobuf_c_boolean v) {
  if (v) {
    aw_byte(c, 1);
    aw_tag(c, field, 0);
  }
}

static inline void aw_f32(aw *c, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if (!aw_room(c, 4)) return;
  c->p -= 4;
  for (int i = 0; i < 4; i++) c->p[i] = (uint8_t)(u >> (8 * i));
}

/* packed repeated fields */
static inline void aw_packed_i64(aw *c, unsigned field, const int64_t *v, size_t n) {
  if (!n) return;
  size_t end = aw_pos(c);
  for (size_t k = n; k-- > 0;) aw_varint(c, (uint64_t)v[k]);
  aw_varint(c, aw_pos(c) - end);
  aw_tag(c, field, 2);
}
static inline void aw_packed_bool(aw *c, unsigned field, const protobuf_c_boolean *v, size_t n) {
  if (!n) return;
  size_t end = aw_pos(c);
  for (size_t k = n; k-- > 0;) aw_byte(c, v[k] ? 1 : 0);
  aw_varint(c, aw_pos(c) - end);
  aw_tag(c, field, 2);
}
static inline void aw_packed_f32(aw *c, unsigned field, const float *v, size_t n) {
  if (!n) return;
  size_t end = aw_pos(c);
  for (size_t k = n; k-- > 0;) aw_f32(c, v[k]);
  aw_varint(c, aw_pos(c) - end);
  aw_tag(c, field, 2);
}

static void aw_unknown(aw *c, const ProtobufCMessage *m) {
  for (unsigned i = m->n_unknown_fields; i-- > 0;) {
    const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
    aw_raw(c, u->data, u->len);
    aw_varint(c, ((uint64_t)u->tag << 3) | (uint64_t)u->wire_type);
  }
}

/* ---------------------------------------------------------------- frozen messages

 * The memo: descriptors and AttrDefs the caller declares frozen (never modified nor freed while
 * the memo is in use) are written once, when frozen, and their content bytes copied wherever
 * they are met again. Streaming lowering shares one descriptor by many ops (interned output and
 * input descs) and one AttrDef by many ops (port-name lists): writing each of them anew was a
 * sixth of lowering's instructions. The bytes are exactly what w_desc / w_attr write for the
 * object (its maps must be sorted before it is frozen, as the writers expect of everything).
 * An open-addressing table keyed by the object's address. */
typedef struct aw_memo_slot {
  const void *key;  /* NULL: free */
  size_t off, len;  /* content bytes in memo.bytes */
} aw_memo_slot;

struct tfx_ge_air_memo {
  aw_memo_slot *slot;
  size_t cap, n; /* cap: a power of two (0: empty table) */
  uint8_t *bytes;
  size_t n_bytes, cap_bytes;
};

static inline size_t memo_hash(const void *p, size_t cap) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 29;
  x *= 0x9e3779b97f4a7c15ull;
  return (size_t)(x >> 32) & (cap - 1);
}

static inline const aw_memo_slot *memo_find(const struct tfx_ge_air_memo *m, const void *p) {
  if (!m || !m->n) return NULL;
  for (size_t i = memo_hash(p, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (m->slot[i].key == p) return &m->slot[i];
    if (!m->slot[i].key) return NULL;
  }
}

/* Writes p's memo bytes (1) or nothing (0: not frozen). */
static inline int aw_memo(aw *c, const void *p) {
  const aw_memo_slot *e = memo_find(c->memo, p);
  if (!e) return 0;
  aw_raw(c, c->memo->bytes + e->off, e->len);
  return 1;
}

/* Message writers: the content only (no tag, no length). */
static void w_attr(aw *c, const Ge__Proto__AttrDef *a, int depth);
static void w_desc(aw *c, const Ge__Proto__TensorDescriptor *td, int depth);
static void w_graph(aw *c, const Ge__Proto__GraphDef *g, int depth);

/* Opens a nested message: returns the position its content starts at (it is written before
 * the caller writes the length and tag with aw_close), or SIZE_MAX when too deep. */
#define AW_SUB(c, field, depth, call)                                                              \
  do {                                                                                             \
    size_t end_ = aw_pos(c);                                                                       \
    call;                                                                                          \
    aw_varint((c), aw_pos(c) - end_);                                                              \
    aw_tag((c), (field), 2);                                                                       \
  } while (0)

static inline int aw_deep(aw *c, int depth) {
  if (depth > TFX_AIR_DEPTH) {
    c->err = 1;
    return 1;
  }
  return c->err != 0;
}

/* A map<string, AttrDef> entry (every GE map has this shape): key and value always written. */
typedef struct aw_entry {
  ProtobufCMessage base;
  char *key;
  Ge__Proto__AttrDef *value;
} aw_entry;

static void w_entries(aw *c, unsigned field, void *const *v, size_t n, int depth) {
  for (size_t k = n; k-- > 0;) {
    const aw_entry *e = v[k];
    if (field == 10 && e && aw_memo(c, e)) { /* a frozen OpDef entry: its whole record */
      if (c->err) return;
      continue;
    }
    size_t end = aw_pos(c);
    if (e) { /* a NULL entry is written empty, as the packer does */
      aw_unknown(c, &e->base);
      if (depth + 1 <= TFX_AIR_DEPTH) {
        AW_SUB(c, 2, depth + 1, if (e->value) w_attr(c, e->value, depth + 2));
      } else {
        c->err = 1;
      }
      aw_str_always(c, 1, e->key);
    }
    aw_varint(c, aw_pos(c) - end);
    aw_tag(c, field, 2);
    if (c->err) return;
  }
}

static void w_shape(aw *c, const Ge__Proto__ShapeDef *s) {
  aw_unknown(c, &s->base);
  aw_packed_i64(c, 1, s->dim, s->n_dim);
}

static void w_attr_groups(aw *c, const Ge__Proto__AttrGroups *g) {
  aw_unknown(c, &g->base);
  if (g->data.len) aw_ld(c, 1, g->data.data, g->data.len);
}

static void w_tensor(aw *c, const Ge__Proto__TensorDef *t, int depth) {
  if (aw_deep(c, depth)) return;
  aw_unknown(c, &t->base);
  if (t->data.len && c->borrow && t->data.data == c->borrow && aw_pos(c) == 0) {
    c->virt = t->data.len; /* the bytes stay where they are (tfx_ge_air_stream_attrs) */
    aw_varint(c, t->data.len);
    aw_tag(c, 2, 2);
  } else if (t->data.len) {
    aw_ld(c, 2, t->data.data, t->data.len);
  }
  if (t->desc) AW_SUB(c, 1, depth, w_desc(c, t->desc, depth + 1));
}

static void w_named(aw *c, const Ge__Proto__NamedAttrs *na, int depth) {
  if (aw_deep(c, depth)) return;
  aw_unknown(c, &na->base);
  w_entries(c, 2, (void *const *)na->attr, na->n_attr, depth);
  aw_str(c, 1, na->name);
}

static void w_list(aw *c, const Ge__Proto__AttrDef__ListValue *l, int depth) {
  if (aw_deep(c, depth)) return;
  aw_unknown(c, &l->base);
  aw_i32(c, 20, (int32_t)l->val_type);
  aw_packed_i64(c, 12, l->dt, l->n_dt);
  for (size_t k = l->n_na; k-- > 0 && !c->err;)
    AW_SUB(c, 11, depth, if (l->na[k]) w_named(c, l->na[k], depth + 1));
  for (size_t k = l->n_g; k-- > 0 && !c->err;)
    AW_SUB(c, 10, depth, if (l->g[k]) w_graph(c, l->g[k], depth + 1));
  for (size_t k = l->n_t; k-- > 0 && !c->err;)
    AW_SUB(c, 9, depth, if (l->t[k]) w_tensor(c, l->t[k], depth + 1));
  for (size_t k = l->n_td; k-- > 0 && !c->err;)
    AW_SUB(c, 8, depth, if (l->td[k]) w_desc(c, l->td[k], depth + 1));
  aw_bytes_list(c, 7, l->bt, l->n_bt);
  aw_packed_bool(c, 5, l->b, l->n_b);
  aw_packed_f32(c, 4, l->f, l->n_f);
  aw_packed_i64(c, 3, l->i, l->n_i);
  aw_bytes_list(c, 2, l->s, l->n_s);
}

static void w_list_list_int(aw *c, const Ge__Proto__AttrDef__ListListInt *l, int depth) {
  if (aw_deep(c, depth)) return;
  aw_unknown(c, &l->base);
  for (size_t k = l->n_list_list_i; k-- > 0 && !c->err;) {
    const Ge__Proto__AttrDef__ListListInt__ListInt *e = l->list_list_i[k];
    AW_SUB(c, 1, depth, if (e) {
      aw_unknown(c, &e->base);
      aw_packed_i64(c, 1, e->list_i, e->n_list_i);
    });
  }
}

static void w_list_list_float(aw *c, const Ge__Proto__AttrDef__ListListFloat *l, int depth) {
  if (aw_deep(c, depth)) return;
  aw_unknown(c, &l->base);
  for (size_t k = l->n_list_list_f; k-- > 0 && !c->err;) {
    const Ge__Proto__AttrDef__ListListFloat__ListFloat *e = l->list_list_f[k];
    AW_SUB(c, 1, depth, if (e) {
      aw_unknown(c, &e->base);
      aw_packed_f32(c, 1, e->list_f, e->n_list_f);
    });
  }
}

static void w_attr(aw *c, const Ge__Proto__AttrDef *a, int depth) {
  if (aw_deep(c, depth) || aw_memo(c, a)) return;
  aw_unknown(c, &a->base);
  switch (a->value_case) { /* a oneof member is written when set, whatever its value */
  case GE__PROTO__ATTR_DEF__VALUE_LIST:
    if (a->list) AW_SUB(c, 1, depth, w_list(c, a->list, depth + 1));
    break;
  case GE__PROTO__ATTR_DEF__VALUE_S: aw_ld(c, 2, a->s.data, a->s.len); break;
  case GE__PROTO__ATTR_DEF__VALUE_I:
    aw_varint(c, (uint64_t)a->i);
    aw_tag(c, 3, 0);
    break;
  case GE__PROTO__ATTR_DEF__VALUE_F:
    aw_f32(c, a->f);
    aw_tag(c, 4, 5);
    break;
  case GE__PROTO__ATTR_DEF__VALUE_B:
    aw_byte(c, a->b ? 1 : 0);
    aw_tag(c, 5, 0);
    break;
  case GE__PROTO__ATTR_DEF__VALUE_BT: aw_ld(c, 7, a->bt.data, a->bt.len); break;
  case GE__PROTO__ATTR_DEF__VALUE_FUNC:
    if (a->func) AW_SUB(c, 10, depth, w_named(c, a->func, depth + 1));
    break;
  case GE__PROTO__ATTR_DEF__VALUE_TD:
    if (a->td) AW_SUB(c, 11, depth, w_desc(c, a->td, depth + 1));
    break;
  case GE__PROTO__ATTR_DEF__VALUE_T:
    if (a->t) AW_SUB(c, 12, depth, w_tensor(c, a->t, depth + 1));
    break;
  case GE__PROTO__ATTR_DEF__VALUE_G:
    if (a->g) AW_SUB(c, 13, depth, w_graph(c, a->g, depth + 1));
    break;
  case GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_INT:
    if (a->list_list_int) AW_SUB(c, 14, depth, w_list_list_int(c, a->list_list_int, depth + 1));
    break;
  case GE__PROTO__ATTR_DEF__VALUE_DT:
    aw_varint(c, (uint64_t)a->dt);
    aw_tag(c, 15, 0);
    break;
  case GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_FLOAT:
    if (a->list_list_float)
      AW_SUB(c, 16, depth, w_list_list_float(c, a->list_list_float, depth + 1));
    break;
  case GE__PROTO__ATTR_DEF__VALUE_EXPRESSION: aw_ld(c, 17, a->expression.data, a->expression.len); break;
  default: break;
  }
}

static void w_desc(aw *c, const Ge__Proto__TensorDescriptor *td, int depth) {
  if (aw_deep(c, depth) || aw_memo(c, td)) return;
  aw_unknown(c, &td->base);
  aw_i64(c, 21, td->cmps_tab_offset);
  aw_str(c, 20, td->cmps_tab);
  aw_i64(c, 19, td->cmps_size);
  aw_i64(c, 18, td->data_offset);
  aw_i64(c, 17, td->reuse_input_index);
  aw_i64(c, 16, td->real_dim_cnt);
  aw_bool(c, 15, td->input_tensor);
  aw_str(c, 14, td->device_type);
  aw_bool(c, 13, td->output_tensor);
  aw_bool(c, 12, td->reuse_input);
  aw_i64(c, 11, td->weight_size);
  aw_i64(c, 10, td->size);
  aw_bool(c, 9, td->has_out_attr);
  if (td->attr_groups) AW_SUB(c, 6, depth, w_attr_groups(c, td->attr_groups));
  w_entries(c, 5, (void *const *)td->attr, td->n_attr, depth);
  aw_str(c, 4, td->layout);
  if (td->shape) AW_SUB(c, 3, depth, w_shape(c, td->shape));
  aw_i32(c, 2, (int32_t)td->dtype);
  aw_str(c, 1, td->name);
}

/* Key order of a (NUL-terminated) entry key and a written one (bytes, len): strcmp's. */
static int key_cmp(const char *a, const uint8_t *b, size_t nb) {
  size_t na = strlen(a), n = na < nb ? na : nb;
  int r = memcmp(a, b, n);
  return r ? r : na < nb ? -1 : na > nb ? 1 : 0;
}

/* One record of a tfx_ge_air_attrs, located (as_spans). */
typedef struct aw_span {
  const uint8_t *head, *tail, *key;
  size_t n_head, n_tail, n_key;
} aw_span;

/* The attr map of an op: its entries (sorted) merged in key order with entries written before
 * (pre, sorted); an entry of op replaces a written one of the same key. */
static void w_op_attrs(aw *c, const Ge__Proto__OpDef *op, const aw_span *pre, size_t n_pre,
                       int depth) {
  size_t k = op->n_attr, j = n_pre;
  while ((k || j) && !c->err) {
    int cmp = 0;
    if (k && j) {
      const char *key = op->attr[k - 1] && op->attr[k - 1]->key ? op->attr[k - 1]->key : "";
      cmp = key_cmp(key, pre[j - 1].key, pre[j - 1].n_key);
    }
    if (j && (!k || cmp < 0)) {
      aw_raw(c, pre[j - 1].tail, pre[j - 1].n_tail);
      aw_raw(c, pre[j - 1].head, pre[j - 1].n_head);
      j--;
      continue;
    }
    if (j && cmp == 0) j--;
    w_entries(c, 10, (void *const *)&op->attr[k - 1], 1, depth);
    k--;
  }
}

/* The attr map of an op with no entry of its own: pre's records as they are, which lie one
 * after the other (as_spans), so one run of bytes, or runs around the borrowed tails (a
 * Const's data), instead of two pieces per record. */
static void w_pre_only(aw *c, const aw_span *pre, size_t n_pre) {
  const uint8_t *end = pre[n_pre - 1].head + pre[n_pre - 1].n_head;
  for (size_t j = n_pre; j-- > 0;) {
    if (!pre[j].n_tail) continue;
    const uint8_t *at = pre[j].head + pre[j].n_head;
    aw_raw(c, at, (size_t)(end - at));
    aw_raw(c, pre[j].tail, pre[j].n_tail);
    end = at;
  }
  aw_raw(c, pre[0].head, (size_t)(end - pre[0].head));
}

static void w_op_pre(aw *c, const Ge__Proto__OpDef *op, const aw_span *pre, size_t n_pre,
                     int depth);
static void w_op(aw *c, const Ge__Proto__OpDef *op, int depth) { w_op_pre(c, op, NULL, 0, depth); }

/* Copies n bytes into a kept slot's buffer (*bytes, *cap: malloc), grown in 64-byte steps.
 * Returns 0, or -1 when it cannot grow (the slot is then simply not kept). */
static int keep_bytes(uint8_t **bytes, uint32_t *cap, const uint8_t *src, size_t n) {
  if (*cap < n) {
    size_t want = (n + 63) & ~(size_t)63;
    uint8_t *b = tfx_realloc(*bytes, want);
    if (!b) return -1;
    *bytes = b;
    *cap = (uint32_t)want;
  }
  memcpy(*bytes, src, n);
  return 0;
}

/* An op record's attr map as merged bytes (tfx_ge_air_stream_op_pre): most ops merge a shared
 * block written ahead (tfx_ge_air_attrs.p) with the same frozen entries (the port-name lists
 * lowering shares), so the merged bytes repeat. They are kept by the block's and the entries'
 * addresses (both immutable while the stream is used: air_write.h) in a direct-mapped table
 * of AS_MERGE_SLOTS slots, one merge each (replaced by the next one mapping there): memory
 * bounded by AS_MERGE_SLOTS x AS_MERGE_MAX bytes. */
#define AS_MERGE_SLOTS 4096
#define AS_MERGE_ENTRIES 6
#define AS_MERGE_MAX 1024
typedef struct as_merge {
  const uint8_t *pre; /* NULL: empty slot */
  uint32_t pre_len, pre_n, n;
  const void *e[AS_MERGE_ENTRIES];
  uint8_t *bytes; /* malloc (cap), len of them the merge */
  uint32_t len, cap;
} as_merge;

/* Keeps the newest n bytes written (the merge just done) in c->fill; on failure the slot is
 * left empty (nothing changes but the next lookup's miss). */
static void as_merge_keep(aw *c, size_t n) {
  as_merge *m = c->fill;
  c->fill = NULL;
  /* too long, or across chunks: not kept (the slot stays empty) */
  if (n > AS_MERGE_MAX || n > (size_t)(c->head->data + c->head->cap - c->p)) return;
  if (keep_bytes(&m->bytes, &m->cap, c->p, n)) return;
  m->len = (uint32_t)n;
  m->pre = c->fill_pre;
}

/* An op record's descriptor records (fields 33 and 34, tag and length included) as bytes: in
 * a streamed model most ops have only interned, frozen descriptors (the memo), and ops of one
 * kind the same ones, so those bytes repeat. They are kept by the descriptors' addresses (a
 * frozen object is neither changed nor freed while the memo is used: the same addresses are
 * the same bytes) in a direct-mapped table of AS_DESC_SLOTS slots, one set each. */
#define AS_DESC_SLOTS 1024
#define AS_DESC_MAX 8      /* descriptors (inputs and outputs) an op may have to be kept */
#define AS_DESC_BYTES 2048 /* longer records are not kept */
typedef struct as_descs {
  uint32_t n_in, n_out, len, cap; /* n_in + n_out == 0: empty slot */
  const void *d[AS_DESC_MAX];
  uint8_t *bytes; /* malloc (cap) */
} as_descs;

/* An op record's attr field (10): the merged bytes kept for the same block, else the
 * pre-encoded records merged with the op's own entries in key order (kept for the next op
 * with the same block when filling), else the op's own entries. */
static void w_op_attr_field(aw *c, const Ge__Proto__OpDef *op, const aw_span *pre, size_t n_pre,
                            int depth) {
  if (c->merged) {
    aw_raw(c, c->merged->bytes, c->merged->len);
  } else if (n_pre) {
    size_t at = aw_pos(c);
    if (op->n_attr)
      w_op_attrs(c, op, pre, n_pre, depth);
    else
      w_pre_only(c, pre, n_pre);
    if (c->fill && !c->err) as_merge_keep(c, aw_pos(c) - at);
  } else
    w_entries(c, 10, (void *const *)op->attr, op->n_attr, depth);
}

/* The descriptor records of op (as w_op_pre writes them): copied from c->descs when kept, else
 * written and, when every descriptor is frozen, kept. */
static void w_op_descs(aw *c, const Ge__Proto__OpDef *op, int depth) {
  size_t ni = op->n_input_desc, no = op->n_output_desc;
  as_descs *m = NULL;
  if (c->descs && c->memo && ni + no && ni + no <= AS_DESC_MAX) {
    const uint64_t mul = 0x9E3779B97F4A7C15u;
    uint64_t h = (uint64_t)(ni << 4 | no) * mul;
    for (size_t k = 0; k < ni; k++) h = (h ^ (uint64_t)(uintptr_t)op->input_desc[k]) * mul;
    for (size_t k = 0; k < no; k++) h = (h ^ (uint64_t)(uintptr_t)op->output_desc[k]) * mul;
    m = &c->descs[(h >> 40) & (AS_DESC_SLOTS - 1)];
    if (m->n_in == ni && m->n_out == no) {
      size_t k = 0;
      while (k < ni && m->d[k] == op->input_desc[k]) k++;
      if (k == ni) /* the outputs only after every input matched: k - ni must not wrap */
        while (k < ni + no && m->d[k] == op->output_desc[k - ni]) k++;
      if (k == ni + no) {
        aw_raw(c, m->bytes, m->len);
        return;
      }
    }
    for (size_t k = 0; k < ni + no && m; k++) {
      const void *d = k < ni ? (const void *)op->input_desc[k] : op->output_desc[k - ni];
      if (!d || !memo_find(c->memo, d)) m = NULL; /* its bytes may change: not kept */
    }
  }
  size_t at = aw_pos(c);
  for (size_t k = no; k-- > 0 && !c->err;)
    AW_SUB(c, 34, depth, if (op->output_desc[k]) w_desc(c, op->output_desc[k], depth + 1));
  for (size_t k = ni; k-- > 0 && !c->err;)
    AW_SUB(c, 33, depth, if (op->input_desc[k]) w_desc(c, op->input_desc[k], depth + 1));
  size_t n = aw_pos(c) - at;
  /* kept when all in the newest chunk (the record is written back to front into it) */
  if (!m || c->err || n > AS_DESC_BYTES || n > (size_t)(c->head->data + c->head->cap - c->p))
    return;
  m->n_in = m->n_out = 0; /* empty unless the bytes are kept */
  if (keep_bytes(&m->bytes, &m->cap, c->p, n)) return;
  m->len = (uint32_t)n;
  for (size_t k = 0; k < ni; k++) m->d[k] = op->input_desc[k];
  for (size_t k = 0; k < no; k++) m->d[ni + k] = op->output_desc[k];
  m->n_in = (uint32_t)ni;
  m->n_out = (uint32_t)no;
}

static void w_op_pre(aw *c, const Ge__Proto__OpDef *op, const aw_span *pre, size_t n_pre,
                     int depth) {
  if (aw_deep(c, depth)) return;
  aw_unknown(c, &op->base);
  aw_strs(c, 35, op->subgraph_name, op->n_subgraph_name);
  w_op_descs(c, op, depth);
  aw_packed_bool(c, 32, op->is_input_const, op->n_is_input_const);
  aw_packed_i64(c, 31, op->workspace_bytes, op->n_workspace_bytes);
  aw_packed_i64(c, 30, op->workspace, op->n_workspace);
  aw_packed_i64(c, 29, op->output_i, op->n_output_i);
  aw_packed_i64(c, 28, op->input_i, op->n_input_i);
  aw_packed_i64(c, 27, op->dst_index, op->n_dst_index);
  aw_strs(c, 26, op->dst_name, op->n_dst_name);
  aw_packed_i64(c, 25, op->src_index, op->n_src_index);
  aw_strs(c, 24, op->src_name, op->n_src_name);
  aw_strs(c, 23, op->input_name, op->n_input_name);
  aw_i64(c, 22, op->stream_id);
  aw_i64(c, 21, op->id);
  aw_bool(c, 20, op->has_out_attr);
  if (op->attr_groups) AW_SUB(c, 11, depth, w_attr_groups(c, op->attr_groups));
  w_op_attr_field(c, op, pre, n_pre, depth);
  aw_strs(c, 5, op->input, op->n_input);
  aw_str(c, 2, op->type);
  aw_str(c, 1, op->name);
}

/* The record of an op given by its parts (tfx_ge_air_stream_edges): what w_op_pre writes for
 * an op whose fields are only name, type, id, attr, input_desc and output_desc, with input k
 * the string "name[k]:port[k]" (name[k] NULL: ""), written from its parts (no string made). */
static void w_op_edges(aw *c, const Ge__Proto__OpDef *op, const tfx_ge_air_edges *e,
                       const aw_span *pre, size_t n_pre, int depth) {
  if (aw_deep(c, depth)) return;
  w_op_descs(c, op, depth);
  aw_i64(c, 21, op->id);
  w_op_attr_field(c, op, pre, n_pre, depth);
  for (size_t k = e->n; k-- > 0;) {
    size_t len = 0;
    if (e->name[k]) { /* back to front: the port's digits, ':', the name */
      uint8_t num[12], *q = num + sizeof num;
      uint32_t u = e->port[k];
      do *--q = (uint8_t)('0' + u % 10); while ((u /= 10) != 0);
      size_t nd = (size_t)(num + sizeof num - q);
      if (!aw_room(c, nd + 1 + e->len[k])) return;
      c->p -= nd;
      memcpy(c->p, q, nd);
      *--c->p = ':';
      c->p -= e->len[k];
      memcpy(c->p, e->name[k], e->len[k]);
      len = nd + 1 + e->len[k];
    }
    aw_varint(c, len);
    aw_tag(c, 5, 2);
  }
  aw_str(c, 2, op->type);
  aw_str(c, 1, op->name);
}

static void w_graph(aw *c, const Ge__Proto__GraphDef *g, int depth) {
  if (aw_deep(c, depth)) return;
  aw_unknown(c, &g->base);
  if (g->attr_groups) AW_SUB(c, 12, depth, w_attr_groups(c, g->attr_groups));
  w_entries(c, 11, (void *const *)g->attr, g->n_attr, depth);
  for (size_t k = g->n_op; k-- > 0 && !c->err;) {
    /* backwards is against the order ops were allocated in: fetch the next one early */
    if (k) __builtin_prefetch(g->op[k - 1]);
    AW_SUB(c, 6, depth, if (g->op[k]) w_op(c, g->op[k], depth + 1));
  }
  aw_strs(c, 5, g->output, g->n_output);
  aw_strs(c, 4, g->input, g->n_input);
  aw_str(c, 1, g->name);
}

static void w_model(aw *c, const Ge__Proto__ModelDef *m) {
  aw_unknown(c, &m->base);
  if (m->attr_groups) AW_SUB(c, 12, 0, w_attr_groups(c, m->attr_groups));
  w_entries(c, 11, (void *const *)m->attr, m->n_attr, 0);
  for (size_t k = m->n_graph; k-- > 0 && !c->err;)
    AW_SUB(c, 7, 0, if (m->graph[k]) w_graph(c, m->graph[k], 1));
  aw_str(c, 3, m->custom_version);
  if (m->version) {
    aw_varint(c, m->version);
    aw_tag(c, 2, 0);
  }
  aw_str(c, 1, m->name);
}

static void aw_free_chunks(aw *c) {
  for (aw_chunk *k = c->head, *nx; k; k = nx) {
    nx = k->next;
    free(k);
  }
  c->head = NULL;
}

int tfx_ge_air_write(const Ge__Proto__ModelDef *m, size_t max, tfx_io_pieces *out, size_t *size) {
  memset(out, 0, sizeof *out);
  aw c;
  memset(&c, 0, sizeof c);
  c.next_cap = TFX_AIR_CHUNK_MIN;
  c.max = max;
  w_model(&c, m);
  if (!c.err && aw_pos(&c) > max) c.err = 3;
  if (c.err == 3) { /* over the limit: the packer reports the exact size (rare: >= 2 GiB) */
    aw_free_chunks(&c);
    return tfx_io_pack_pieces(&m->base, max, out, size);
  }
  size_t n = aw_pos(&c), k = 0;
  if (c.head) c.head->used = (size_t)(c.head->data + c.head->cap - c.p);
  for (aw_chunk *q = c.head; q; q = q->next) k++;
  if (!c.err && k) {
    out->p = tfx_calloc(k, sizeof *out->p);
    out->blocks = tfx_calloc(k, sizeof *out->blocks);
    if (!out->p || !out->blocks) c.err = 2;
  }
  if (c.err) {
    free(out->p);
    free(out->blocks);
    memset(out, 0, sizeof *out);
    aw_free_chunks(&c);
    return c.err == 2 ? -3 : -1;
  }
  for (aw_chunk *q = c.head; q; q = q->next, out->n++) {
    out->p[out->n].data = q->data + q->cap - q->used;
    out->p[out->n].len = q->used;
    out->blocks[out->n] = q;
  }
  out->total = n;
  if (size) *size = n;
  return 0;
}

/* ---------------------------------------------------------------- the memo */

tfx_ge_air_memo *tfx_ge_air_memo_new(void) { return tfx_calloc(1, sizeof(tfx_ge_air_memo)); }

void tfx_ge_air_memo_free(tfx_ge_air_memo *m) {
  if (!m) return;
  free(m->slot);
  free(m->bytes);
  free(m);
}

int tfx_ge_air_memo_has(const tfx_ge_air_memo *m, const void *p) {
  return memo_find(m, p) != NULL;
}

/* Room for one more key (load under 1/2). 0 or -3. */
static int memo_grow(tfx_ge_air_memo *m) {
  if (2 * (m->n + 1) <= m->cap) return 0;
  size_t nc = m->cap ? 2 * m->cap : 256;
  aw_memo_slot *v = tfx_calloc(nc, sizeof *v);
  if (!v) return -3;
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slot[i].key) continue;
    size_t j = memo_hash(m->slot[i].key, nc);
    while (v[j].key) j = (j + 1) & (nc - 1);
    v[j] = m->slot[i];
  }
  free(m->slot);
  m->slot = v;
  m->cap = nc;
  return 0;
}

/* Freezes p: writes it (kind 0 a descriptor, 1 an AttrDef: its content; 2 an OpDef attr
 * entry: its whole record, tag and length included) at the depth it has in an op record and
 * keeps those bytes. */
static int memo_put(tfx_ge_air_memo *m, const void *p, int kind) {
  if (!m || !p) return -1;
  if (memo_find(m, p)) return 0;
  if (memo_grow(m)) return -3;
  aw c;
  memset(&c, 0, sizeof c);
  c.max = SIZE_MAX;
  c.next_cap = 256; /* grows by doubling when a message is larger */
  if (kind == 0) {
    w_desc(&c, p, 3);
  } else if (kind == 1) {
    w_attr(&c, p, 4);
  } else {
    void *const v[1] = {(void *)(uintptr_t)p};
    w_entries(&c, 10, v, 1, 2);
  }
  size_t n = aw_pos(&c);
  int err = c.err == 2 ? -3 : c.err ? -1 : 0;
  if (!err && n > m->cap_bytes - m->n_bytes) {
    size_t nc = m->cap_bytes ? m->cap_bytes : 4096;
    while (nc - m->n_bytes < n) nc *= 2;
    uint8_t *b = tfx_realloc(m->bytes, nc);
    if (!b) err = -3;
    else m->bytes = b, m->cap_bytes = nc;
  }
  if (!err) {
    /* chunks from the newest (first bytes) to the oldest */
    if (c.head) c.head->used = (size_t)(c.head->data + c.head->cap - c.p);
    size_t at = m->n_bytes;
    for (const aw_chunk *k = c.head; k; k = k->next) {
      memcpy(m->bytes + at, k->data + k->cap - k->used, k->used);
      at += k->used;
    }
    size_t j = memo_hash(p, m->cap);
    while (m->slot[j].key) j = (j + 1) & (m->cap - 1);
    m->slot[j] = (aw_memo_slot){p, m->n_bytes, n};
    m->n++;
    m->n_bytes += n;
  }
  aw_free_chunks(&c);
  return err;
}

int tfx_ge_air_memo_desc(tfx_ge_air_memo *m, const Ge__Proto__TensorDescriptor *td) {
  return memo_put(m, td, 0);
}

int tfx_ge_air_memo_attr(tfx_ge_air_memo *m, const Ge__Proto__AttrDef *a) {
  return memo_put(m, a, 1);
}

int tfx_ge_air_memo_op_entry(tfx_ge_air_memo *m, const Ge__Proto__OpDef__AttrEntry *e) {
  return memo_put(m, e, 2);
}

/* ---------------------------------------------------------------- the op stream */

/* Streaming (lowering writes each op once it is complete, then drops it): every op record (the
 * GraphDef.op field: tag, length, content) is written by the back-to-front writer above into a
 * scratch writer reused for every op, then copied to the end of a forward store; the graphs'
 * and the model's own fields are written last, by tfx_ge_air_stream_finish, in front of their
 * ops. The output is the same chunk list as tfx_ge_air_write's (not the same chunk sizes).
 * Lowering's common op comes without an OpDef of its own (tfx_ge_air_stream_edges): its name,
 * type, id, descs and attr entries in a stack OpDef, its inputs as (producer name, port)
 * pairs whose "name:port" bytes are written here (w_op_edges), as w_op_pre would write the
 * strings; the rest of the record (descriptor records kept by address, the attr map merged
 * with the block written ahead, or that block alone for an op with no entry: w_pre_only) is
 * the same code. */

#define AS_SHARE_MAX 4096 /* longer blocks of attr records written ahead are not shared */

typedef struct as_chunk {
  struct as_chunk *next; /* later chunk */
  size_t cap, used;
  uint8_t data[];
} as_chunk;

typedef struct as_seg {
  size_t gi;        /* graph index in the model */
  const uint8_t *p; /* bytes (NULL: a hole not filled yet, or in the spill file) */
  size_t len;
  void *own;        /* a hole's buffer */
  uint64_t off;     /* in_file: the offset of the bytes in the spill file */
  int in_file;
  int dropped;      /* past the stream's max: counted (len), not kept */
} as_seg;

struct tfx_ge_air_stream {
  aw c;                  /* per-op scratch writer (chunks kept between ops) */
  as_chunk *first, *last;
  size_t next_cap;
  as_seg *seg;
  size_t n_seg, cap_seg;
  size_t total; /* bytes of every op record */
  aw_span *span; /* tfx_ge_air_attrs located (as_spans) */
  size_t cap_span;
  uint8_t *tmp; /* tfx_ge_air_stream_attrs: the records being gathered */
  size_t cap_tmp;
  /* tfx_ge_air_stream_attrs: the blocks of records made so far (up to AS_SHARE_MAX bytes),
   * by content -> index into shared; equal blocks are one copy */
  tfx_hmap shared_map;
  const uint8_t **shared;
  size_t n_shared, cap_shared;
  as_merge *merge; /* AS_MERGE_SLOTS (malloc on first use) */
  as_descs *descs; /* AS_DESC_SLOTS (malloc on first use; NULL: none kept) */
  tfx_ge_air_spill *spill; /* tfx_ge_air_stream_spill: op records go there (air_sink.c) */
  int io_err;              /* finish: errno of a failed spill write */
  uint64_t planned;         /* tfx_ge_air_stream_plan: bytes reserved in front of the records */
  size_t max;              /* tfx_ge_air_stream_max: records past it are dropped (over) */
  int over;
};

tfx_ge_air_stream *tfx_ge_air_stream_new(void) {
  tfx_ge_air_stream *s = tfx_calloc(1, sizeof *s);
  if (s) {
    s->next_cap = TFX_AIR_CHUNK_MIN;
    s->max = SIZE_MAX;
    tfx_hmap_init(&s->shared_map);
  }
  return s;
}

void tfx_ge_air_stream_free(tfx_ge_air_stream *s) {
  if (!s) return;
  aw_free_chunks(&s->c);
  for (as_chunk *k = s->first, *nx; k; k = nx) {
    nx = k->next;
    free(k);
  }
  for (size_t i = 0; i < s->n_seg; i++) free(s->seg[i].own);
  tfx_ge_air_spill_free(s->spill);
  for (size_t i = 0; s->merge && i < AS_MERGE_SLOTS; i++) free(s->merge[i].bytes);
  free(s->merge);
  for (size_t i = 0; s->descs && i < AS_DESC_SLOTS; i++) free(s->descs[i].bytes);
  free(s->descs);
  free(s->seg);
  free(s->span);
  free(s->tmp);
  tfx_hmap_free(&s->shared_map);
  free(s->shared);
  free(s);
}

size_t tfx_ge_air_stream_size(const tfx_ge_air_stream *s) { return s ? s->total : 0; }

int tfx_ge_air_stream_spill(tfx_ge_air_stream *s, const char *target, int jobs) {
  if (s->spill || s->n_seg) return s->spill != NULL;
  s->spill = tfx_ge_air_spill_open(target, jobs);
  return s->spill != NULL;
}

int tfx_ge_air_stream_errno(const tfx_ge_air_stream *s) { return s ? s->io_err : 0; }

void tfx_ge_air_stream_max(tfx_ge_air_stream *s, size_t max) { s->max = max; }

/* Empties the scratch writer for the next record. */
static void as_reset(aw *c) {
  /* keep the newest chunk (the largest so far), drop the rest */
  if (c->head) {
    aw_chunk *keep = c->head;
    for (aw_chunk *k = keep->next, *nx; k; k = nx) {
      nx = k->next;
      free(k);
    }
    keep->next = NULL;
    keep->used = 0;
    c->p = keep->data + keep->cap;
    c->lim = keep->data;
    c->done = 0;
  }
  c->err = 0;
  c->max = SIZE_MAX;
  c->borrow = NULL;
  c->virt = 0;
  c->merged = NULL;
  c->fill = NULL;
  c->descs = NULL;
  if (!c->next_cap) c->next_cap = TFX_AIR_CHUNK_MIN;
}

/* Writes op's record (its attrs merged with pre) into the scratch writer. Returns its length,
 * or 0 with *err (-1 too deep, -3 out of memory). The record is the newest chunk's bytes from
 * c.p on, then older chunks. */
/* Reads a varint at *at (< end); 0 when malformed. */
static int as_varint(const uint8_t *p, size_t end, size_t *at, uint64_t *v) {
  *v = 0;
  for (unsigned sh = 0; *at < end && sh < 64; sh += 7) {
    uint8_t b = p[(*at)++];
    *v |= (uint64_t)(b & 0x7f) << sh;
    if (!(b & 0x80)) return 1;
  }
  return 0;
}

/* Locates the records of pre in s->span. 0, -1 (malformed) or -3 (out of memory). */
static int as_spans(tfx_ge_air_stream *s, const tfx_ge_air_attrs *pre) {
  if (pre->n > s->cap_span) {
    aw_span *v = tfx_realloc(s->span, pre->n * sizeof *v);
    if (!v) return -3;
    s->span = v;
    s->cap_span = pre->n;
  }
  size_t at = 0;
  for (uint32_t j = 0; j < pre->n; j++) {
    size_t start = at;
    uint64_t len, kl;
    if (at >= pre->len || pre->p[at++] != (10 << 3 | 2) || !as_varint(pre->p, pre->len, &at, &len))
      return -1;
    size_t tail = j == pre->tail_at ? pre->n_tail : 0;
    if (len < tail || len - tail > pre->len - at) return -1;
    size_t end = at + (size_t)(len - tail), k = at;
    if (k >= end || pre->p[k++] != (1 << 3 | 2) || !as_varint(pre->p, end, &k, &kl) ||
        kl > end - k)
      return -1;
    s->span[j] = (aw_span){pre->p + start, tail ? pre->tail : NULL, pre->p + k, end - start, tail,
                           (size_t)kl};
    at = end;
  }
  return at == pre->len ? 0 : -1;
}

/* The merge slot of op's attrs with pre (as_merge), found (*hit) or to fill; NULL when they
 * are not kept: an entry not frozen (its bytes may change), too many entries, a borrowed
 * tail, no memo, or no room. */
static as_merge *as_merge_find(tfx_ge_air_stream *s, const Ge__Proto__OpDef *op,
                               const tfx_ge_air_attrs *pre, int *hit) {
  *hit = 0;
  if (!s->c.memo || pre->tail || op->n_attr > AS_MERGE_ENTRIES) return NULL;
  uint64_t h = (uint64_t)(uintptr_t)pre->p * 0x9E3779B97F4A7C15u;
  for (size_t k = 0; k < op->n_attr; k++)
    h = (h ^ (uint64_t)(uintptr_t)op->attr[k]) * 0x9E3779B97F4A7C15u;
  if (!s->merge && !(s->merge = tfx_calloc(AS_MERGE_SLOTS, sizeof *s->merge))) return NULL;
  as_merge *m = &s->merge[(h >> 40) & (AS_MERGE_SLOTS - 1)];
  /* a kept slot's entries were frozen when it was filled, and a frozen object is neither
   * changed nor freed while the memo is used: the same addresses are the same entries */
  if (m->pre == pre->p && m->pre_len == pre->len && m->pre_n == pre->n && m->n == op->n_attr) {
    size_t k = 0;
    while (k < op->n_attr && m->e[k] == op->attr[k]) k++;
    if (k == op->n_attr) {
      *hit = 1;
      return m;
    }
  }
  for (size_t k = 0; k < op->n_attr; k++)
    if (!op->attr[k] || !tfx_ge_air_memo_has(s->c.memo, op->attr[k])) return NULL;
  m->pre = NULL; /* empty until the merge's bytes are kept (as_merge_keep) */
  m->pre_len = pre->len;
  m->pre_n = pre->n;
  m->n = (uint32_t)op->n_attr;
  for (size_t k = 0; k < op->n_attr; k++) m->e[k] = op->attr[k];
  return m;
}

static size_t as_record(tfx_ge_air_stream *s, const Ge__Proto__OpDef *op,
                        const tfx_ge_air_attrs *pre, const tfx_ge_air_edges *edges, int *err) {
  aw *c = &s->c;
  size_t n_pre = pre ? pre->n : 0;
  int hit = 0;
  as_merge *m = n_pre ? as_merge_find(s, op, pre, &hit) : NULL;
  if (n_pre && !hit && (*err = as_spans(s, pre)) != 0) return 0;
  as_reset(c);
  if (m && hit) {
    c->merged = m;
  } else if (m) {
    c->fill = m;
    c->fill_pre = pre->p;
  }
  if (c->memo && !s->descs) s->descs = tfx_calloc(AS_DESC_SLOTS, sizeof *s->descs);
  c->descs = s->descs; /* (NULL: out of memory; nothing kept, the same bytes) */
  /* as in w_graph: the model is depth 0, a graph 1 */
  if (edges)
    AW_SUB(c, 6, 1, w_op_edges(c, op, edges, s->span, n_pre, 2));
  else
    AW_SUB(c, 6, 1, w_op_pre(c, op, s->span, n_pre, 2));
  if (c->err) {
    *err = c->err == 2 ? -3 : -1;
    return 0;
  }
  return aw_pos(c);
}

/* Copies the scratch writer's n bytes (first bytes first) to dst. */
static void as_copy(const aw *c, uint8_t *dst, size_t n) {
  /* chunks from the newest (first bytes) to the oldest */
  size_t at = 0;
  for (const aw_chunk *k = c->head; k && at < n; k = k->next) {
    const uint8_t *from = k == c->head ? c->p : k->data + k->cap - k->used;
    size_t len = k == c->head ? (size_t)(k->data + k->cap - c->p) : k->used;
    memcpy(dst + at, from, len);
    at += len;
  }
}

static int as_seg_new(tfx_ge_air_stream *s, size_t gi, const uint8_t *p, size_t len, void *own) {
  if (s->n_seg == s->cap_seg) {
    size_t nc = s->cap_seg ? s->cap_seg * 2 : 16;
    as_seg *v = tfx_realloc(s->seg, nc * sizeof *v);
    if (!v) return -3;
    s->seg = v;
    s->cap_seg = nc;
  }
  s->seg[s->n_seg++] = (as_seg){gi, p, len, own, 0, 0, 0};
  return 0;
}

int tfx_ge_air_stream_op(tfx_ge_air_stream *s, size_t gi, const Ge__Proto__OpDef *op) {
  return tfx_ge_air_stream_op_pre(s, gi, op, NULL);
}

/* Appends the scratch writer's n bytes (first bytes first) to the spill file. */
static void as_spill(const aw *c, size_t n, tfx_ge_air_spill *sp) {
  size_t at = 0;
  for (const aw_chunk *k = c->head; k && at < n; k = k->next) {
    const uint8_t *from = k == c->head ? c->p : k->data + k->cap - k->used;
    size_t len = k == c->head ? (size_t)(k->data + k->cap - c->p) : k->used;
    tfx_ge_air_spill_put(sp, from, len);
    at += len;
  }
}

/* The store of a record in the spill file: a segment of the file (the last one grown when the
 * record follows it in the same graph). */
static int as_store_spill(tfx_ge_air_stream *s, size_t gi, size_t n) {
  uint64_t off = tfx_ge_air_spill_pos(s->spill);
  as_spill(&s->c, n, s->spill);
  s->total += n;
  as_seg *last = s->n_seg ? &s->seg[s->n_seg - 1] : NULL;
  if (last && last->gi == gi && last->in_file && last->off + last->len == off) {
    last->len += n;
    return 0;
  }
  if (as_seg_new(s, gi, NULL, n, NULL)) return -3;
  s->seg[s->n_seg - 1].off = off;
  s->seg[s->n_seg - 1].in_file = 1;
  return 0;
}

/* A record past the stream's max: only its length is kept (the size finish reports). */
static int as_store_drop(tfx_ge_air_stream *s, size_t gi, size_t n) {
  s->over = 1;
  s->total += n;
  as_seg *last = s->n_seg ? &s->seg[s->n_seg - 1] : NULL;
  if (last && last->gi == gi && last->dropped) {
    last->len += n;
    return 0;
  }
  if (as_seg_new(s, gi, NULL, n, NULL)) return -3;
  s->seg[s->n_seg - 1].dropped = 1;
  return 0;
}

static int as_store(tfx_ge_air_stream *s, size_t gi, size_t n);

int tfx_ge_air_stream_op_pre(tfx_ge_air_stream *s, size_t gi, const Ge__Proto__OpDef *op,
                             const tfx_ge_air_attrs *pre) {
  int err = 0;
  size_t n = as_record(s, op, pre, NULL, &err);
  if (err) return err;
  return as_store(s, gi, n);
}

int tfx_ge_air_stream_edges(tfx_ge_air_stream *s, size_t gi, const Ge__Proto__OpDef *op,
                            const tfx_ge_air_edges *edges, const tfx_ge_air_attrs *pre) {
  int err = 0;
  size_t n = as_record(s, op, pre, edges, &err);
  if (err) return err;
  return as_store(s, gi, n);
}

/* The scratch writer's record (n bytes) appended to the store (memory or the spill file). */
static int as_store(tfx_ge_air_stream *s, size_t gi, size_t n) {
  if (s->over || n > s->max - s->total) return as_store_drop(s, gi, n);
  if (s->spill) return as_store_spill(s, gi, n);
  as_chunk *k = s->last;
  if (!k || k->cap - k->used < n) {
    size_t cap = s->next_cap < n ? n : s->next_cap;
    as_chunk *nk = tfx_malloc(sizeof *nk + cap);
    if (!nk) return -3;
    if (s->next_cap < TFX_AIR_CHUNK_MAX) s->next_cap *= 2;
    nk->next = NULL;
    nk->cap = cap;
    nk->used = 0;
    if (k) k->next = nk;
    else s->first = nk;
    s->last = k = nk;
  }
  uint8_t *dst = k->data + k->used;
  as_copy(&s->c, dst, n);
  k->used += n;
  s->total += n;
  as_seg *last = s->n_seg ? &s->seg[s->n_seg - 1] : NULL;
  if (last && last->gi == gi && !last->own && last->p && last->p + last->len == dst) {
    last->len += n;
    return 0;
  }
  return as_seg_new(s, gi, dst, n, NULL);
}

int tfx_ge_air_stream_hole(tfx_ge_air_stream *s, size_t gi, size_t *slot) {
  *slot = s->n_seg;
  return as_seg_new(s, gi, NULL, 0, NULL);
}

int tfx_ge_air_stream_fill(tfx_ge_air_stream *s, size_t slot, const Ge__Proto__OpDef *op) {
  return tfx_ge_air_stream_fill_pre(s, slot, op, NULL);
}

int tfx_ge_air_stream_fill_pre(tfx_ge_air_stream *s, size_t slot, const Ge__Proto__OpDef *op,
                               const tfx_ge_air_attrs *pre) {
  if (slot >= s->n_seg || s->seg[slot].p || s->seg[slot].in_file || s->seg[slot].dropped)
    return -1;
  int err = 0;
  size_t n = as_record(s, op, pre, NULL, &err);
  if (err) return err;
  if (s->over || n > s->max - s->total) { /* past max: counted only */
    s->over = 1;
    s->seg[slot].len = n;
    s->seg[slot].dropped = 1;
    s->total += n;
    return 0;
  }
  uint8_t *buf = tfx_malloc(n);
  if (!buf) return -3;
  as_copy(&s->c, buf, n);
  s->seg[slot].p = buf;
  s->seg[slot].len = n;
  s->seg[slot].own = buf;
  s->total += n;
  return 0;
}

int tfx_ge_air_stream_attrs(tfx_ge_air_stream *s, const Ge__Proto__OpDef *op, tfx_arena *A,
                            const uint8_t *borrow, tfx_ge_air_attrs *out) {
  memset(out, 0, sizeof *out);
  out->tail_at = UINT32_MAX;
  if (!op->n_attr) return 0;
  if (op->n_attr >= UINT32_MAX) return -1;
  aw *c = &s->c;
  /* the entry whose tensor data is borrowed (the first such), written alone so that its data
   * is the first thing written (back to front); the entries before it and after it each in
   * one go */
  size_t t = op->n_attr;
  for (size_t k = 0; borrow && k < op->n_attr && t == op->n_attr; k++) {
    const Ge__Proto__AttrDef *a = op->attr[k] ? op->attr[k]->value : NULL;
    if (a && a->value_case == GE__PROTO__ATTR_DEF__VALUE_T && a->t && a->t->data.len &&
        a->t->data.data == borrow)
      t = k;
  }
  size_t len = 0;
  size_t seg[3][2] = {{0, t}, {t, t < op->n_attr ? t + 1 : t}, {t + 1, op->n_attr}};
  for (int g = 0; g < 3; g++) {
    size_t from = seg[g][0], to = seg[g][1];
    if (from >= to) continue;
    as_reset(c);
    if (g == 1) c->borrow = borrow;
    /* the depth an op's attrs have in as_record */
    w_entries(c, 10, (void *const *)&op->attr[from], to - from, 2);
    if (c->err) return c->err == 2 ? -3 : -1;
    size_t tail = c->virt, head = aw_pos(c) - tail;
    if (tail) {
      if (tail > UINT32_MAX) return -1;
      out->tail = borrow;
      out->n_tail = (uint32_t)tail;
      out->tail_at = (uint32_t)t;
    }
    if (head > s->cap_tmp - len) {
      size_t nc = s->cap_tmp ? s->cap_tmp : 256;
      while (nc - len < head) nc *= 2;
      uint8_t *tb = tfx_realloc(s->tmp, nc);
      if (!tb) return -3;
      s->tmp = tb;
      s->cap_tmp = nc;
    }
    as_copy(c, s->tmp + len, head);
    len += head;
  }
  as_reset(c);
  if (len > UINT32_MAX) return -1;
  out->len = (uint32_t)len;
  out->n = (uint32_t)op->n_attr;
  if (len > AS_SHARE_MAX) {
    uint8_t *p = tfx_arena_alloc(A, len);
    if (!p) return -3;
    memcpy(p, s->tmp, len);
    out->p = p;
    return 0;
  }
  /* ops of one kind often have the same attrs: one copy of each block */
  uint32_t ix = tfx_hmap_get(&s->shared_map, (const char *)s->tmp, len);
  if (ix != TFX_HASH_NONE) {
    out->p = s->shared[ix];
    return 0;
  }
  if (s->n_shared == s->cap_shared) {
    size_t nc = s->cap_shared ? s->cap_shared * 2 : 64;
    const uint8_t **v = tfx_realloc(s->shared, nc * sizeof *v);
    if (!v) return -3;
    s->shared = v;
    s->cap_shared = nc;
  }
  uint8_t *p = tfx_arena_alloc(A, len);
  if (!p) return -3;
  memcpy(p, s->tmp, len);
  if (tfx_hmap_put(&s->shared_map, (const char *)p, len, (uint32_t)s->n_shared, NULL) < 0)
    return -3;
  s->shared[s->n_shared++] = p;
  out->p = p;
  return 0;
}

/* forward encoding of the few graph and model fields lowering sets */
static size_t fw_varint_len(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}
static uint8_t *fw_varint(uint8_t *q, uint64_t v) {
  while (v >= 0x80) {
    *q++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *q++ = (uint8_t)v;
  return q;
}
static size_t fw_str_len(unsigned field, const char *s, int always) {
  size_t n = s ? strlen(s) : 0;
  if (!n && !always) return 0;
  return fw_varint_len((uint64_t)field << 3 | 2) + fw_varint_len(n) + n;
}
static uint8_t *fw_str(uint8_t *q, unsigned field, const char *s, int always) {
  size_t n = s ? strlen(s) : 0;
  if (!n && !always) return q;
  q = fw_varint(q, (uint64_t)field << 3 | 2);
  q = fw_varint(q, n);
  if (n) memcpy(q, s, n);
  return q + n;
}
/* GraphDef fields 1 (name), 4 (input), 5 (output): everything in front of the ops */
static size_t fw_graph_head_len(const Ge__Proto__GraphDef *g) {
  size_t n = fw_str_len(1, g->name, 0);
  for (size_t k = 0; k < g->n_input; k++) n += fw_str_len(4, g->input[k], 1);
  for (size_t k = 0; k < g->n_output; k++) n += fw_str_len(5, g->output[k], 1);
  return n;
}
static uint8_t *fw_graph_head(uint8_t *q, const Ge__Proto__GraphDef *g) {
  q = fw_str(q, 1, g->name, 0);
  for (size_t k = 0; k < g->n_input; k++) q = fw_str(q, 4, g->input[k], 1);
  for (size_t k = 0; k < g->n_output; k++) q = fw_str(q, 5, g->output[k], 1);
  return q;
}

uint64_t tfx_ge_air_stream_plan(tfx_ge_air_stream *s, const Ge__Proto__ModelDef *m,
                                size_t graph_fields, unsigned len_bytes) {
  if (!s->spill || s->n_seg || s->planned || !len_bytes || len_bytes > 10) return 0;
  uint64_t head = fw_str_len(1, m->name, 0) + (m->version ? 1 + fw_varint_len(m->version) : 0) +
                  fw_str_len(3, m->custom_version, 0) + 1 + len_bytes + (uint64_t)graph_fields;
  if (tfx_ge_air_spill_reserve(s->spill, head) != 0) return 0;
  s->planned = head;
  return head;
}

int tfx_ge_air_stream_finish(tfx_ge_air_stream *s, const Ge__Proto__ModelDef *m, size_t max,
                             tfx_io_pieces *out, size_t *size) {
  memset(out, 0, sizeof *out);
  /* what the stream can write: the fields lowering sets (the rest would go after the ops) */
  if (m->n_attr || m->attr_groups || m->base.n_unknown_fields) return -1;
  for (size_t g = 0; g < m->n_graph; g++) {
    const Ge__Proto__GraphDef *gd = m->graph[g];
    if (!gd || gd->n_attr || gd->attr_groups || gd->base.n_unknown_fields) return -1;
  }
  for (size_t i = 0; i < s->n_seg; i++)
    if ((!s->seg[i].p && !s->seg[i].in_file && !s->seg[i].dropped) ||
        s->seg[i].gi >= m->n_graph)
      return -1; /* a hole left unfilled */
  size_t *glen = tfx_calloc(m->n_graph ? m->n_graph : 1, sizeof *glen);
  if (!glen) return -3;
  for (size_t i = 0; i < s->n_seg; i++) glen[s->seg[i].gi] += s->seg[i].len;
  size_t head = fw_str_len(1, m->name, 0) + (m->version ? 1 + fw_varint_len(m->version) : 0) +
                fw_str_len(3, m->custom_version, 0);
  size_t total = head;
  for (size_t g = 0; g < m->n_graph; g++) {
    size_t gh = fw_graph_head_len(m->graph[g]);
    glen[g] += gh;
    head += 1 + fw_varint_len(glen[g]) + gh; /* tag 7 (one byte), length, fields 1/4/5 */
    total += 1 + fw_varint_len(glen[g]) + glen[g];
  }
  if (size) *size = total;
  if (total > max || s->over) { /* over: records were dropped (past the stream's max) */
    free(glen);
    return -2;
  }
  size_t n_blocks = 1, n_pieces = 1 + m->n_graph + s->n_seg;
  for (as_chunk *k = s->first; k; k = k->next) n_blocks++;
  uint8_t *hb = tfx_malloc(head ? head : 1);
  out->p = tfx_calloc(n_pieces, sizeof *out->p);
  out->blocks = tfx_calloc(n_pieces, sizeof *out->blocks);
  if (!hb || !out->p || !out->blocks) {
    free(hb);
    free(out->p);
    free(out->blocks);
    free(glen);
    memset(out, 0, sizeof *out);
    return -3;
  }
  (void)n_blocks;
  /* the model's fields, then per graph: its tag, length and fields, then its op records */
  uint8_t *q = hb;
  q = fw_str(q, 1, m->name, 0);
  if (m->version) {
    *q++ = 2 << 3;
    q = fw_varint(q, m->version);
  }
  q = fw_str(q, 3, m->custom_version, 0);
  size_t np = 0;
  for (size_t g = 0; g < m->n_graph; g++) {
    uint8_t *from = q;
    *q++ = 7 << 3 | 2;
    q = fw_varint(q, glen[g]);
    q = fw_graph_head(q, m->graph[g]);
    if (g == 0) from = hb; /* the model's fields and graph 0's head are one piece */
    out->p[np].data = from;
    out->p[np++].len = (size_t)(q - from);
    for (size_t i = 0; i < s->n_seg; i++)
      if (s->seg[i].gi == g) {
        out->p[np].data = s->seg[i].p;
        out->p[np].len = s->seg[i].len;
        if (s->seg[i].in_file) { /* fd1 set below */
          out->p[np].data = NULL;
          out->p[np].off = s->seg[i].off;
          out->p[np].fd1 = -1;
        }
        np++;
      }
  }
  if (m->n_graph == 0) {
    out->p[np].data = hb;
    out->p[np++].len = (size_t)(q - hb);
  }
  /* ownership: the head buffer, the store's chunks and the holes' buffers move to out */
  size_t nb = 0;
  out->blocks[nb++] = hb;
  for (as_chunk *k = s->first, *nx; k; k = nx) {
    nx = k->next;
    out->blocks[nb++] = k;
  }
  s->first = s->last = NULL;
  for (size_t i = 0; i < s->n_seg; i++)
    if (s->seg[i].own) {
      out->blocks[nb++] = s->seg[i].own;
      s->seg[i].own = NULL;
    }
  out->n = np;
  out->total = total;
  free(glen);
  if (s->spill) { /* the spill file's records: its descriptor moves to out too */
    int err = 0, fd = tfx_ge_air_spill_end(s->spill, &err);
    s->spill = NULL;
    if (fd < 0) {
      tfx_io_pieces_free(out);
      s->io_err = err;
      return -4;
    }
    out->fd1 = fd + 1;
    for (size_t i = 0; i < np; i++)
      if (out->p[i].fd1 == -1) out->p[i].fd1 = fd + 1;
    /* planned right (tfx_ge_air_stream_plan): the fields go into the gap in front of the
     * records, and the spill file is the whole .air, one piece (the writer may take the file
     * itself: util/fileio.c), no copy */
    if (s->planned && s->planned == head && m->n_graph == 1 && s->n_seg == 1 &&
        s->seg[0].in_file && s->seg[0].off == head && np == 2) {
      if (tfx_ge_air_spill_head(fd, hb, head) != 0) {
        s->io_err = errno ? errno : EIO;
        tfx_io_pieces_free(out);
        return -4;
      }
      out->p[0] = (tfx_wpiece){0};
      out->p[0].len = total;
      out->p[0].fd1 = fd + 1;
      out->n = 1;
    }
  }
  return 0;
}

void tfx_ge_air_stream_set_memo(tfx_ge_air_stream *s, const tfx_ge_air_memo *m) {
  if (s) s->c.memo = m;
}
