/* Binary serializer for protobuf-c messages that produces the same bytes as protoc / TF's C++.
 * Stage: io (output side). Input: a message tree. Output: wire bytes appended to a strbuf.
 * Same rules as protobuf_c_message_pack (field-number order, proto3 packed repeated scalars,
 * oneof members written when set, unknown fields last) except where C++ protobuf differs:
 * map entries (XxxEntry {key=1; value=2}) always carry both key and value, and proto3 floats are
 * "set" when their bits are non-zero (-0.0 is written). Recursion is capped at TFX_PACK_DEPTH.
 *
 * One pass over the tree, back to front: fields in reverse order, repeated elements in reverse,
 * and a message's length prefix written after (i.e. in front of) its content, when the length
 * is known. The bytes go into a chain of chunks (64 KiB doubling to 64 MiB; a larger bytes
 * value gets a chunk of its own) which are then copied, first bytes first, into the strbuf and
 * freed one by one, so the peak is the output plus one chunk (tfx_io_pack_pieces hands the
 * chunks themselves to the caller instead, to be written piece by piece). The bytes are exactly those of
 * writing front to back; no size is ever computed before writing (computing a nested message's
 * size before writing it, at every level, made the first writer O(size x depth), and even one
 * separate size pass costs a second walk over a tree much larger than the caches).
 * Per message type the field facts the loops need (tag bytes, wire kind, presence rule, map
 * entry or not) are computed once per call ("plans"), not per message. */
#include "io/io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/pbfield.h"

#define TFX_PACK_DEPTH 1000
#define TFX_PACK_CHUNK_MIN ((size_t)64 << 10)
#define TFX_PACK_CHUNK_MAX ((size_t)64 << 20)

static size_t tfx_pack_vsize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}

/* ---------------------------------------------------------------- plans */

enum { /* how a value is encoded */
  PK_I32,   /* int32, enum: varint of the sign-extended value */
  PK_U32,   /* uint32 */
  PK_S32,   /* sint32: zigzag */
  PK_S64,   /* sint64: zigzag */
  PK_BOOL,  /* protobuf_c_boolean: 0 or 1 */
  PK_U64,   /* int64, uint64: the raw 64 bits */
  PK_F32,   /* fixed32, sfixed32, float: 4 bytes */
  PK_F64,   /* fixed64, sfixed64, double: 8 bytes */
  PK_STR,
  PK_BYTES,
  PK_MSG
};

typedef struct pk_field {
  const void *defval;     /* default_value (optional strings) */
  const struct pk_plan *sub; /* message fields: the plan of the last sub-message written */
  uint32_t offset, qoffset, id;
  uint8_t kind, label, oneof, packed, esize;
  uint8_t tag_len, ptag_len;
  uint8_t tag[5], ptag[5]; /* varint of (id << 3 | wire type); packed: (id << 3 | 2) */
} pk_field;

typedef struct pk_plan {
  const ProtobufCMessageDescriptor *d;
  int map_entry;
  unsigned n;
  pk_field *f;
} pk_plan;

typedef struct pk_chunk {
  struct pk_chunk *next;  /* older chunk (later bytes of the output) */
  size_t cap, used;       /* used bytes are the last `used` of data */
  uint8_t data[];
} pk_chunk;

typedef struct pk_ctx {
  pk_plan **plans;        /* open addressing by descriptor pointer */
  size_t cap, n;
  int err;                /* 1 too deep, 2 out of memory, 3 over the size limit */
  /* the writer */
  uint8_t *p, *lim;       /* bytes go to p - 1 downwards, never below lim */
  pk_chunk *head;         /* newest chunk: the first bytes of the output */
  size_t done;            /* bytes in the chunks after head */
  size_t next_cap;
  size_t max;
} pk_ctx;

static int pk_kind(ProtobufCType t) {
  switch (t) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_ENUM: return PK_I32;
  case PROTOBUF_C_TYPE_UINT32: return PK_U32;
  case PROTOBUF_C_TYPE_SINT32: return PK_S32;
  case PROTOBUF_C_TYPE_SINT64: return PK_S64;
  case PROTOBUF_C_TYPE_BOOL: return PK_BOOL;
  case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FLOAT: return PK_F32;
  case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_DOUBLE: return PK_F64;
  case PROTOBUF_C_TYPE_STRING: return PK_STR;
  case PROTOBUF_C_TYPE_BYTES: return PK_BYTES;
  case PROTOBUF_C_TYPE_MESSAGE: return PK_MSG;
  default: return PK_U64; /* INT64, UINT64 */
  }
}

static int pk_wiretype(int kind) {
  switch (kind) {
  case PK_F64: return 1;
  case PK_F32: return 5;
  case PK_STR: case PK_BYTES: case PK_MSG: return 2;
  default: return 0;
  }
}

static uint8_t pk_put_varint(uint8_t *q, uint64_t v) {
  uint8_t n = 0;
  while (v >= 0x80) {
    q[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  q[n++] = (uint8_t)v;
  return n;
}

static pk_plan *pk_make_plan(const ProtobufCMessageDescriptor *d) {
  pk_plan *pl = tfx_malloc(sizeof *pl);
  pk_field *f = tfx_calloc(d->n_fields ? d->n_fields : 1, sizeof *f);
  if (!pl || !f) {
    free(pl);
    free(f);
    return NULL;
  }
  pl->d = d;
  pl->map_entry = tfx_pb_is_map_entry(d);
  pl->n = d->n_fields;
  pl->f = f;
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *fd = &d->fields[i];
    f[i].defval = fd->default_value;
    f[i].offset = fd->offset;
    f[i].qoffset = fd->quantifier_offset;
    f[i].id = fd->id;
    f[i].kind = (uint8_t)pk_kind(fd->type);
    f[i].label = (uint8_t)fd->label;
    f[i].oneof = (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) != 0;
    f[i].packed = fd->label == PROTOBUF_C_LABEL_REPEATED && (fd->flags & PROTOBUF_C_FIELD_FLAG_PACKED) &&
                  pk_wiretype(f[i].kind) != 2;
    f[i].esize = (uint8_t)tfx_pb_elem_size(fd->type);
    f[i].tag_len = pk_put_varint(f[i].tag, ((uint64_t)fd->id << 3) | (uint64_t)pk_wiretype(f[i].kind));
    f[i].ptag_len = pk_put_varint(f[i].ptag, ((uint64_t)fd->id << 3) | 2);
  }
  return pl;
}

static size_t pk_slot(const ProtobufCMessageDescriptor *d, size_t cap) {
  return (size_t)(((uintptr_t)d >> 4) * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1);
}

/* The plan of d (made on first use), or NULL after setting err (out of memory). */
static const pk_plan *pk_plan_of(pk_ctx *c, const ProtobufCMessageDescriptor *d) {
  if (c->cap) {
    for (size_t h = pk_slot(d, c->cap);; h = (h + 1) & (c->cap - 1)) {
      if (!c->plans[h]) break;
      if (c->plans[h]->d == d) return c->plans[h];
    }
  }
  if (2 * (c->n + 1) > c->cap) { /* grow (and rehash) */
    size_t nc = c->cap ? 2 * c->cap : 64;
    pk_plan **nv = tfx_calloc(nc, sizeof *nv);
    if (!nv) {
      c->err = 2;
      return NULL;
    }
    for (size_t i = 0; i < c->cap; i++)
      if (c->plans[i]) {
        size_t h = pk_slot(c->plans[i]->d, nc);
        while (nv[h]) h = (h + 1) & (nc - 1);
        nv[h] = c->plans[i];
      }
    free(c->plans);
    c->plans = nv;
    c->cap = nc;
  }
  pk_plan *pl = pk_make_plan(d);
  if (!pl) {
    c->err = 2;
    return NULL;
  }
  size_t h = pk_slot(d, c->cap);
  while (c->plans[h]) h = (h + 1) & (c->cap - 1);
  c->plans[h] = pl;
  c->n++;
  return pl;
}

/* The varint payload of a scalar of varint wire type. */
static inline uint64_t pk_vval(int kind, const void *v) {
  switch (kind) {
  case PK_I32: return (uint64_t)(int64_t)*(const int32_t *)v;
  case PK_U32: return *(const uint32_t *)v;
  case PK_S32: {
    int32_t x = *(const int32_t *)v;
    return (uint32_t)(((uint32_t)x << 1) ^ (uint32_t)(x >> 31));
  }
  case PK_S64: {
    int64_t x = *(const int64_t *)v;
    return ((uint64_t)x << 1) ^ (uint64_t)(x >> 63);
  }
  case PK_BOOL: return *(const protobuf_c_boolean *)v ? 1 : 0;
  default: return *(const uint64_t *)v; /* PK_U64 */
  }
}

/* Whether a non-repeated field is written (force: map entries write key and value always). */
static inline int pk_present(const char *base, const pk_field *f, int force) {
  const void *v = base + f->offset;
  if (f->oneof) {
    if (*(const uint32_t *)(base + f->qoffset) != f->id) return 0;
    return (f->kind == PK_MSG || f->kind == PK_STR) ? *(void *const *)v != NULL : 1;
  }
  if (f->kind == PK_MSG) return force || *(void *const *)v != NULL;
  if (force || f->label == PROTOBUF_C_LABEL_REQUIRED)
    return f->kind != PK_STR || *(void *const *)v != NULL || force;
  if (f->label == PROTOBUF_C_LABEL_OPTIONAL) {
    if (f->kind == PK_STR) return *(void *const *)v != NULL && *(void *const *)v != f->defval;
    return *(const protobuf_c_boolean *)(base + f->qoffset) != 0;
  }
  switch (f->kind) {
  case PK_STR: {
    const char *s = *(char *const *)v;
    return s && *s;
  }
  case PK_BYTES: return ((const ProtobufCBinaryData *)v)->len != 0;
  default:
    if (f->esize == 8) {
      uint64_t u;
      memcpy(&u, v, 8);
      return u != 0;
    } else {
      uint32_t u;
      memcpy(&u, v, 4);
      return u != 0;
    }
  }
}

/* ---------------------------------------------------------------- size (over the limit only) */

static size_t pk_msg_size(pk_ctx *c, const ProtobufCMessage *m, int depth);

static size_t pk_value_size(pk_ctx *c, const pk_field *f, const void *v, int depth) {
  switch (f->kind) {
  case PK_STR: {
    const char *s = *(char *const *)v;
    size_t n = s ? strlen(s) : 0;
    return tfx_pack_vsize(n) + n;
  }
  case PK_BYTES: {
    size_t n = ((const ProtobufCBinaryData *)v)->len;
    return tfx_pack_vsize(n) + n;
  }
  case PK_MSG: {
    const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)v;
    size_t n = sub ? pk_msg_size(c, sub, depth + 1) : 0;
    return tfx_pack_vsize(n) + n;
  }
  case PK_F64: return 8;
  case PK_F32: return 4;
  default: return tfx_pack_vsize(pk_vval(f->kind, v));
  }
}

/* The encoded size of m; used only to report the exact size of a message over the limit. */
static size_t pk_msg_size(pk_ctx *c, const ProtobufCMessage *m, int depth) {
  if (depth > TFX_PACK_DEPTH) {
    c->err = 1;
    return 0;
  }
  const pk_plan *pl = pk_plan_of(c, m->descriptor);
  if (!pl) return 0;
  const char *base = (const char *)m;
  size_t total = 0;
  for (unsigned i = 0; i < pl->n; i++) {
    const pk_field *f = &pl->f[i];
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t cnt = *(const size_t *)(base + f->qoffset);
      if (!cnt) continue;
      const char *arr = *(const char *const *)(base + f->offset);
      size_t sum = 0;
      for (size_t k = 0; k < cnt; k++) sum += pk_value_size(c, f, arr + k * f->esize, depth);
      total += f->packed ? f->ptag_len + tfx_pack_vsize(sum) + sum : cnt * f->tag_len + sum;
    } else if (pk_present(base, f, pl->map_entry)) {
      total += f->tag_len + pk_value_size(c, f, base + f->offset, depth);
    }
  }
  for (unsigned i = 0; i < m->n_unknown_fields; i++)
    total += tfx_pack_vsize((uint64_t)m->unknown_fields[i].tag << 3) + m->unknown_fields[i].len;
  return total;
}

/* ---------------------------------------------------------------- the back-to-front writer */

/* Bytes written so far. */
static inline size_t pk_pos(const pk_ctx *c) {
  return c->head ? c->done + (size_t)(c->head->data + c->head->cap - c->p) : 0;
}

/* Room for n more bytes below p: a new chunk when the current one is full. */
static int pk_room_slow(pk_ctx *c, size_t n) {
  if (c->err) return 0;
  size_t pos = pk_pos(c);
  if (n > c->max - pos) { /* the output would pass the limit */
    c->err = 3;
    return 0;
  }
  if (c->head) {
    c->head->used = (size_t)(c->head->data + c->head->cap - c->p);
    c->done += c->head->used;
  }
  size_t cap = c->next_cap;
  if (cap < n) cap = n;
  pk_chunk *k = tfx_malloc(sizeof *k + cap);
  if (!k) {
    c->err = 2;
    return 0;
  }
  if (c->next_cap < TFX_PACK_CHUNK_MAX) c->next_cap *= 2;
  k->next = c->head;
  k->cap = cap;
  k->used = 0;
  c->head = k;
  c->lim = k->data;
  c->p = k->data + cap;
  return 1;
}

static inline int pk_room(pk_ctx *c, size_t n) {
  return (size_t)(c->p - c->lim) >= n || pk_room_slow(c, n);
}

static inline void pk_rvarint(pk_ctx *c, uint64_t v) {
  if (v < 0x80) {
    if (pk_room(c, 1)) *--c->p = (uint8_t)v;
    return;
  }
  size_t n = tfx_pack_vsize(v);
  if (!pk_room(c, n)) return;
  uint8_t *q = c->p -= n;
  while (v >= 0x80) {
    *q++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *q = (uint8_t)v;
}

static inline void pk_rbytes(pk_ctx *c, const void *src, size_t n) {
  if (!n || !pk_room(c, n)) return;
  c->p -= n;
  memcpy(c->p, src, n);
}

static inline void pk_rfixed(pk_ctx *c, uint64_t v, int n) {
  if (!pk_room(c, (size_t)n)) return;
  c->p -= n;
  for (int i = 0; i < n; i++) c->p[i] = (uint8_t)(v >> (8 * i));
}

static void pk_rmsg(pk_ctx *c, const ProtobufCMessage *m, int depth);
static void pk_rmsg_plan(pk_ctx *c, const ProtobufCMessage *m, const pk_plan *pl, int depth);

/* One value without its tag (message/string/bytes with their length prefix). */
static inline void pk_rvalue(pk_ctx *c, const pk_field *f, const void *v, int depth) {
  switch (f->kind) {
  case PK_STR: {
    const char *s = *(char *const *)v;
    size_t n = s ? strlen(s) : 0;
    pk_rbytes(c, s, n);
    pk_rvarint(c, n);
    return;
  }
  case PK_BYTES: {
    const ProtobufCBinaryData *bd = v;
    pk_rbytes(c, bd->data, bd->len);
    pk_rvarint(c, bd->len);
    return;
  }
  case PK_MSG: {
    const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)v;
    size_t end = pk_pos(c);
    if (sub) {
      const pk_plan *sp = f->sub; /* the plan lookup, once per field rather than per message */
      if (!sp || sp->d != sub->descriptor) {
        if (!(sp = pk_plan_of(c, sub->descriptor))) return;
        ((pk_field *)(uintptr_t)f)->sub = sp;
      }
      pk_rmsg_plan(c, sub, sp, depth + 1);
    }
    pk_rvarint(c, pk_pos(c) - end);
    return;
  }
  case PK_F64: {
    uint64_t u;
    memcpy(&u, v, 8);
    pk_rfixed(c, u, 8);
    return;
  }
  case PK_F32: {
    uint32_t u;
    memcpy(&u, v, 4);
    pk_rfixed(c, u, 4);
    return;
  }
  default: pk_rvarint(c, pk_vval(f->kind, v)); return;
  }
}

static inline void pk_rtag(pk_ctx *c, const uint8_t *tag, size_t n) {
  if (n == 1) {
    if (pk_room(c, 1)) *--c->p = tag[0];
  } else {
    pk_rbytes(c, tag, n);
  }
}

static void pk_rmsg(pk_ctx *c, const ProtobufCMessage *m, int depth) {
  if (c->err) return;
  const pk_plan *pl = pk_plan_of(c, m->descriptor);
  if (pl) pk_rmsg_plan(c, m, pl, depth);
}

static void pk_rmsg_plan(pk_ctx *c, const ProtobufCMessage *m, const pk_plan *pl, int depth) {
  if (c->err) return;
  if (depth > TFX_PACK_DEPTH) {
    c->err = 1;
    return;
  }
  const char *base = (const char *)m;
  for (unsigned i = m->n_unknown_fields; i-- > 0;) {
    const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
    pk_rbytes(c, u->data, u->len);
    pk_rvarint(c, ((uint64_t)u->tag << 3) | (uint64_t)u->wire_type);
  }
  for (unsigned i = pl->n; i-- > 0;) {
    const pk_field *f = &pl->f[i];
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t cnt = *(const size_t *)(base + f->qoffset);
      if (!cnt) continue;
      const char *arr = *(const char *const *)(base + f->offset);
      size_t es = f->esize;
      if (f->packed) {
        size_t end = pk_pos(c);
        for (size_t k = cnt; k-- > 0;) pk_rvalue(c, f, arr + k * es, depth);
        pk_rvarint(c, pk_pos(c) - end);
        pk_rtag(c, f->ptag, f->ptag_len);
      } else {
        int msgs = f->kind == PK_MSG;
        for (size_t k = cnt; k-- > 0;) {
          /* Backwards is against the order messages were allocated in: fetch the next one early. */
          if (msgs && k) __builtin_prefetch(*(void *const *)(arr + (k - 1) * es));
          pk_rvalue(c, f, arr + k * es, depth);
          pk_rtag(c, f->tag, f->tag_len);
        }
      }
    } else if (pk_present(base, f, pl->map_entry)) {
      pk_rvalue(c, f, base + f->offset, depth);
      pk_rtag(c, f->tag, f->tag_len);
    }
    if (c->err) return;
  }
}

static void pk_free(pk_ctx *c) {
  for (pk_chunk *k = c->head, *nx; k; k = nx) {
    nx = k->next;
    free(k);
  }
  c->head = NULL;
  for (size_t i = 0; i < c->cap; i++)
    if (c->plans[i]) {
      free(c->plans[i]->f);
      free(c->plans[i]);
    }
  free(c->plans);
  c->plans = NULL;
  c->cap = c->n = 0;
}

/* Writes msg into c's chunks with the size limit max. Returns 1 when c holds the result (the
 * chunks, head->used set; c->err 1 or 2 when that failed) for the caller to finish and free,
 * or -2 / -1 when the encoding is longer than max: *size = its exact size (-1: that size
 * could not be computed), c already freed. *size otherwise gets the bytes written. */
static int pk_run(pk_ctx *c, const ProtobufCMessage *msg, size_t max, size_t *size) {
  memset(c, 0, sizeof *c);
  c->next_cap = TFX_PACK_CHUNK_MIN;
  c->max = max;
  pk_rmsg(c, msg, 0);
  if (!c->err && pk_pos(c) > max) c->err = 3; /* the limit is checked per chunk while writing */
  if (c->err == 3) { /* over the limit: report the exact size, written nowhere */
    for (pk_chunk *k = c->head, *nx; k; k = nx) {
      nx = k->next;
      free(k);
    }
    c->head = NULL;
    c->err = 0;
    size_t n = pk_msg_size(c, msg, 0);
    if (size) *size = n;
    int rc = c->err ? -1 : -2;
    pk_free(c);
    return rc;
  }
  if (size) *size = pk_pos(c);
  if (c->head) c->head->used = (size_t)(c->head->data + c->head->cap - c->p);
  return 1;
}

int tfx_io_pack_max(const ProtobufCMessage *msg, tfx_strbuf *out, size_t max, size_t *size) {
  pk_ctx c;
  int rc = pk_run(&c, msg, max, size);
  if (rc < 0) return rc;
  size_t n = pk_pos(&c);
  if (c.err == 2) out->oom = 1; /* as tfx_sb_reserve does: the caller sees out of memory */
  if (c.err || !tfx_sb_reserve(out, n)) {
    pk_free(&c);
    return -1;
  }
  /* head holds the first bytes; free each chunk once copied */
  uint8_t *dst = (uint8_t *)out->data + out->len;
  while (c.head) {
    pk_chunk *k = c.head;
    memcpy(dst, k->data + k->cap - k->used, k->used);
    dst += k->used;
    c.head = k->next;
    free(k);
  }
  pk_free(&c);
  out->len += n;
  out->data[out->len] = 0;
  return 0;
}

int tfx_io_pack_pieces(const ProtobufCMessage *msg, size_t max, tfx_io_pieces *out, size_t *size) {
  memset(out, 0, sizeof *out);
  pk_ctx c;
  int run = pk_run(&c, msg, max, size);
  if (run < 0) return run;
  size_t n = pk_pos(&c), k = 0;
  for (pk_chunk *q = c.head; q; q = q->next) k++;
  if (!c.err && k) {
    out->p = tfx_calloc(k, sizeof *out->p);
    out->blocks = tfx_calloc(k, sizeof *out->blocks);
    if (!out->p || !out->blocks) c.err = 2;
  }
  if (c.err) {
    free(out->p);
    free(out->blocks);
    memset(out, 0, sizeof *out);
    int rc = c.err == 2 ? -3 : -1;
    pk_free(&c);
    return rc;
  }
  /* head holds the first bytes: the pieces in that order; the chunks now belong to out */
  for (pk_chunk *q = c.head; q; q = q->next, out->n++) {
    out->p[out->n].data = q->data + q->cap - q->used;
    out->p[out->n].len = q->used;
    out->blocks[out->n] = q;
  }
  out->total = n;
  c.head = NULL;
  pk_free(&c);
  return 0;
}

void tfx_io_pieces_free(tfx_io_pieces *p) {
  for (size_t i = 0; i < p->n; i++) free(p->blocks[i]);
  free(p->blocks);
  free(p->p);
  if (p->fd1) close(p->fd1 - 1);
  memset(p, 0, sizeof *p);
}

int tfx_io_pack(const ProtobufCMessage *msg, tfx_strbuf *out) {
  return tfx_io_pack_max(msg, out, SIZE_MAX, NULL) == 0 ? 0 : -1;
}
