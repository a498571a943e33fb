/* Binary serializer for protobuf-c messages that produces the same bytes as protoc / TF's C++.
 * Stage: io (output side). Input: a message tree. Output: wire bytes appended to a strbuf.
 * Same rules as protobuf_c_message_pack (field-number order, proto3 packed repeated scalars,
 * oneof members written when set, unknown fields last) except where C++ protobuf differs:
 * map entries (XxxEntry {key=1; value=2}) always carry both key and value, and proto3 floats are
 * "set" when their bits are non-zero (-0.0 is written). Recursion is capped at TFX_PACK_DEPTH. */
#include "io/io.h"

#include <string.h>

#define TFX_PACK_DEPTH 1000

typedef struct tfx_pack_w {
  uint8_t *p;
} tfx_pack_w;

static size_t tfx_pack_vsize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}

static void tfx_pack_varint(tfx_pack_w *w, uint64_t v) {
  while (v >= 0x80) {
    *w->p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *w->p++ = (uint8_t)v;
}

static void tfx_pack_fixed(tfx_pack_w *w, uint64_t v, int n) {
  for (int i = 0; i < n; i++) *w->p++ = (uint8_t)(v >> (8 * i));
}

static size_t tfx_pack_esize(ProtobufCType t) {
  switch (t) {
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
  case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
    return 8;
  case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
  case PROTOBUF_C_TYPE_STRING: return sizeof(char *);
  case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
  case PROTOBUF_C_TYPE_MESSAGE: return sizeof(ProtobufCMessage *);
  default: return 4;
  }
}

static int tfx_pack_wiretype(ProtobufCType t) {
  switch (t) {
  case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_DOUBLE: return 1;
  case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FLOAT: return 5;
  case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES: case PROTOBUF_C_TYPE_MESSAGE: return 2;
  default: return 0;
  }
}

/* The varint payload of a scalar of varint wire type. */
static uint64_t tfx_pack_vval(ProtobufCType t, const void *v) {
  switch (t) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_ENUM: return (uint64_t)(int64_t)*(const int32_t *)v;
  case PROTOBUF_C_TYPE_UINT32: return *(const uint32_t *)v;
  case PROTOBUF_C_TYPE_SINT32: {
    int32_t x = *(const int32_t *)v;
    return (uint32_t)(((uint32_t)x << 1) ^ (uint32_t)(x >> 31));
  }
  case PROTOBUF_C_TYPE_SINT64: {
    int64_t x = *(const int64_t *)v;
    return ((uint64_t)x << 1) ^ (uint64_t)(x >> 63);
  }
  case PROTOBUF_C_TYPE_BOOL: return *(const protobuf_c_boolean *)v ? 1 : 0;
  default: return *(const uint64_t *)v; /* INT64, UINT64 */
  }
}

/* Map entries: two fields, key = 1 and value = 2, in a message named ...Entry. */
static int tfx_pack_is_map_entry(const ProtobufCMessageDescriptor *d) {
  size_t n = strlen(d->name);
  return d->n_fields == 2 && n > 5 && strcmp(d->name + n - 5, "Entry") == 0 && d->fields[0].id == 1 &&
         strcmp(d->fields[0].name, "key") == 0 && d->fields[1].id == 2 && strcmp(d->fields[1].name, "value") == 0;
}

static int tfx_pack_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f, int force) {
  const char *base = (const char *)m;
  const void *v = base + f->offset;
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
    if (*(const uint32_t *)(base + f->quantifier_offset) != f->id) return 0;
    return (f->type == PROTOBUF_C_TYPE_MESSAGE || f->type == PROTOBUF_C_TYPE_STRING) ? *(void *const *)v != NULL : 1;
  }
  if (f->type == PROTOBUF_C_TYPE_MESSAGE) return force || *(void *const *)v != NULL;
  if (force || f->label == PROTOBUF_C_LABEL_REQUIRED)
    return f->type != PROTOBUF_C_TYPE_STRING || *(void *const *)v != NULL || force;
  if (f->label == PROTOBUF_C_LABEL_OPTIONAL) {
    if (f->type == PROTOBUF_C_TYPE_STRING) return *(void *const *)v != NULL && *(void *const *)v != f->default_value;
    return *(const protobuf_c_boolean *)(base + f->quantifier_offset) != 0;
  }
  switch (f->type) {
  case PROTOBUF_C_TYPE_STRING: {
    const char *s = *(char *const *)v;
    return s && *s;
  }
  case PROTOBUF_C_TYPE_BYTES: return ((const ProtobufCBinaryData *)v)->len != 0;
  default:
    if (tfx_pack_esize(f->type) == 8) {
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

static size_t tfx_pack_msg_size(const ProtobufCMessage *m, int depth, int *err);

/* Size of one value without its tag (message/string/bytes include their length prefix). */
static size_t tfx_pack_value_size(const ProtobufCFieldDescriptor *f, const void *v, int depth, int *err) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_STRING: {
    const char *s = *(char *const *)v;
    size_t n = s ? strlen(s) : 0;
    return tfx_pack_vsize(n) + n;
  }
  case PROTOBUF_C_TYPE_BYTES: {
    size_t n = ((const ProtobufCBinaryData *)v)->len;
    return tfx_pack_vsize(n) + n;
  }
  case PROTOBUF_C_TYPE_MESSAGE: {
    const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)v;
    size_t n = sub ? tfx_pack_msg_size(sub, depth + 1, err) : 0;
    return tfx_pack_vsize(n) + n;
  }
  default:
    switch (tfx_pack_wiretype(f->type)) {
    case 1: return 8;
    case 5: return 4;
    default: return tfx_pack_vsize(tfx_pack_vval(f->type, v));
    }
  }
}

static size_t tfx_pack_msg_size(const ProtobufCMessage *m, int depth, int *err) {
  if (depth > TFX_PACK_DEPTH) {
    *err = 1;
    return 0;
  }
  const ProtobufCMessageDescriptor *d = m->descriptor;
  int force = tfx_pack_is_map_entry(d);
  const char *base = (const char *)m;
  size_t total = 0;
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    size_t tag = tfx_pack_vsize((uint64_t)f->id << 3);
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t cnt = *(const size_t *)(base + f->quantifier_offset);
      if (!cnt) continue;
      const char *arr = *(const char *const *)(base + f->offset);
      size_t es = tfx_pack_esize(f->type), sum = 0;
      for (size_t k = 0; k < cnt; k++) sum += tfx_pack_value_size(f, arr + k * es, depth, err);
      if ((f->flags & PROTOBUF_C_FIELD_FLAG_PACKED) && tfx_pack_wiretype(f->type) != 2)
        total += tag + tfx_pack_vsize(sum) + sum;
      else
        total += cnt * tag + sum;
    } else if (tfx_pack_present(m, f, force)) {
      total += tag + tfx_pack_value_size(f, base + f->offset, depth, err);
    }
  }
  for (unsigned i = 0; i < m->n_unknown_fields; i++)
    total += tfx_pack_vsize((uint64_t)m->unknown_fields[i].tag << 3) + m->unknown_fields[i].len;
  return total;
}

static void tfx_pack_msg(tfx_pack_w *w, const ProtobufCMessage *m, int depth, int *err);

static void tfx_pack_value(tfx_pack_w *w, const ProtobufCFieldDescriptor *f, const void *v, int depth, int *err) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_STRING: {
    const char *s = *(char *const *)v;
    size_t n = s ? strlen(s) : 0;
    tfx_pack_varint(w, n);
    if (n) memcpy(w->p, s, n);
    w->p += n;
    return;
  }
  case PROTOBUF_C_TYPE_BYTES: {
    const ProtobufCBinaryData *bd = v;
    tfx_pack_varint(w, bd->len);
    if (bd->len) memcpy(w->p, bd->data, bd->len);
    w->p += bd->len;
    return;
  }
  case PROTOBUF_C_TYPE_MESSAGE: {
    const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)v;
    if (!sub) {
      tfx_pack_varint(w, 0);
      return;
    }
    tfx_pack_varint(w, tfx_pack_msg_size(sub, depth + 1, err));
    tfx_pack_msg(w, sub, depth + 1, err);
    return;
  }
  default:
    switch (tfx_pack_wiretype(f->type)) {
    case 1: {
      uint64_t u;
      memcpy(&u, v, 8);
      tfx_pack_fixed(w, u, 8);
      return;
    }
    case 5: {
      uint32_t u;
      memcpy(&u, v, 4);
      tfx_pack_fixed(w, u, 4);
      return;
    }
    default: tfx_pack_varint(w, tfx_pack_vval(f->type, v)); return;
    }
  }
}

static void tfx_pack_msg(tfx_pack_w *w, const ProtobufCMessage *m, int depth, int *err) {
  if (depth > TFX_PACK_DEPTH) {
    *err = 1;
    return;
  }
  const ProtobufCMessageDescriptor *d = m->descriptor;
  int force = tfx_pack_is_map_entry(d);
  const char *base = (const char *)m;
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    int wt = tfx_pack_wiretype(f->type);
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t cnt = *(const size_t *)(base + f->quantifier_offset);
      if (!cnt) continue;
      const char *arr = *(const char *const *)(base + f->offset);
      size_t es = tfx_pack_esize(f->type);
      if ((f->flags & PROTOBUF_C_FIELD_FLAG_PACKED) && wt != 2) {
        size_t sum = 0;
        for (size_t k = 0; k < cnt; k++) sum += tfx_pack_value_size(f, arr + k * es, depth, err);
        tfx_pack_varint(w, ((uint64_t)f->id << 3) | 2);
        tfx_pack_varint(w, sum);
        for (size_t k = 0; k < cnt; k++) tfx_pack_value(w, f, arr + k * es, depth, err);
      } else {
        for (size_t k = 0; k < cnt; k++) {
          tfx_pack_varint(w, ((uint64_t)f->id << 3) | (uint64_t)wt);
          tfx_pack_value(w, f, arr + k * es, depth, err);
        }
      }
    } else if (tfx_pack_present(m, f, force)) {
      tfx_pack_varint(w, ((uint64_t)f->id << 3) | (uint64_t)wt);
      tfx_pack_value(w, f, base + f->offset, depth, err);
    }
  }
  for (unsigned i = 0; i < m->n_unknown_fields; i++) {
    const ProtobufCMessageUnknownField *u = &m->unknown_fields[i];
    tfx_pack_varint(w, ((uint64_t)u->tag << 3) | (uint64_t)u->wire_type);
    if (u->len) memcpy(w->p, u->data, u->len);
    w->p += u->len;
  }
}

int tfx_io_pack(const ProtobufCMessage *msg, tfx_strbuf *out) {
  int err = 0;
  size_t n = tfx_pack_msg_size(msg, 0, &err);
  if (err) return -1;
  if (!tfx_sb_reserve(out, n)) return -1;
  tfx_pack_w w = {(uint8_t *)out->data + out->len};
  tfx_pack_msg(&w, msg, 0, &err);
  if (err || (size_t)(w.p - ((uint8_t *)out->data + out->len)) != n) return -1;
  out->len += n;
  out->data[out->len] = 0;
  return 0;
}
