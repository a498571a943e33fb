/* Field-level facts about protobuf-c messages, shared by every descriptor-driven walker
 * (the binary packer io/pack.c, the text printer io/pbtxt_print.c, the GE JSON emitter
 * ge/emit_json.c), so they agree on what is present and what a map entry is.
 * Stage: io (header only, static inline). */
#ifndef TFX_IO_PBFIELD_H
#define TFX_IO_PBFIELD_H

#include <stdint.h>
#include <string.h>
#include <protobuf-c/protobuf-c.h>

/* Bytes one element of a field of type t occupies in the C struct (repeated arrays). */
static inline size_t tfx_pb_elem_size(ProtobufCType t) {
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

/* Whether a singular field is written: oneof members when they are the set case, messages
 * when non-NULL, proto2 optionals by has_, proto3 implicit-presence fields when non-zero
 * (bitwise, like protoc, so -0.0 is written). */
static inline int tfx_pb_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f) {
  const char *base = (const char *)m;
  const void *v = base + f->offset;
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    return *(const uint32_t *)(base + f->quantifier_offset) == f->id &&
           (f->type != PROTOBUF_C_TYPE_MESSAGE && f->type != PROTOBUF_C_TYPE_STRING ? 1 : *(void *const *)v != NULL);
  if (f->type == PROTOBUF_C_TYPE_MESSAGE) return *(void *const *)v != NULL;
  if (f->label == PROTOBUF_C_LABEL_REQUIRED) return f->type != PROTOBUF_C_TYPE_STRING || *(void *const *)v;
  if (f->label == PROTOBUF_C_LABEL_OPTIONAL) {
    if (f->type == PROTOBUF_C_TYPE_STRING) {
      const char *s = *(char *const *)v;
      return s != NULL && s != (const char *)f->default_value;
    }
    return *(const protobuf_c_boolean *)(base + f->quantifier_offset) != 0;
  }
  switch (f->type) {
  case PROTOBUF_C_TYPE_STRING: {
    const char *s = *(char *const *)v;
    return s && *s;
  }
  case PROTOBUF_C_TYPE_BYTES: return ((const ProtobufCBinaryData *)v)->len != 0;
  default: {
    uint64_t u = 0;
    if (tfx_pb_elem_size(f->type) == 8) memcpy(&u, v, 8);
    else {
      uint32_t w;
      memcpy(&w, v, 4);
      u = w;
    }
    return u != 0;
  }
  }
}

/* protoc's map entry messages: XxxEntry { key = 1; value = 2; }. */
static inline int tfx_pb_is_map_entry(const ProtobufCMessageDescriptor *d) {
  size_t n = strlen(d->name);
  return d->n_fields == 2 && n > 5 && strcmp(d->name + n - 5, "Entry") == 0 && d->fields[0].id == 1 &&
         strcmp(d->fields[0].name, "key") == 0 && d->fields[1].id == 2 && strcmp(d->fields[1].name, "value") == 0;
}

#endif
