/* Schema-guided walk over protobuf wire bytes, without allocating the message tree.
 * Stage: io (internal). Used before protobuf_c_message_unpack to (1) refuse nesting deeper than
 * a limit, since protobuf-c recurses without one, (2) report malformed input with a byte
 * offset, and (3) score how plausible it is that the bytes are a given message type (for
 * sniffing GraphDef vs MetaGraphDef vs SavedModel). Iterative; descends exactly into the fields
 * protobuf-c would unpack as sub-messages. */
#ifndef TFX_IO_WIRE_H
#define TFX_IO_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>

/* Hard cap on max_depth (protobuf-c unpack recursion must stay well inside the C stack). */
#define TFX_WIRE_DEPTH_CAP 1000u

/* Reads a varint (at most 10 bytes) from [*p, end) into *v and moves *p past it: 0, or -1
 * (truncated or too long; *p unchanged). The walk's reader, and the top-level field scan of
 * the parallel unpack (io.c). */
static inline int tfx_wire_read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t r = 0;
  const uint8_t *q = *p;
  for (unsigned i = 0; i < 10 && q < end; i++) {
    uint8_t b = *q++;
    r |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *p = q;
      *v = r;
      return 0;
    }
  }
  return -1;
}

typedef enum {
  TFX_WIRE_OK = 0,
  TFX_WIRE_MALFORMED,  /* protobuf-c would fail to unpack it, or tfxc refuses it on purpose
                          (field numbers 0 or above 2^29-1, lengths of 2^32 or more) */
  TFX_WIRE_TOO_DEEP,   /* message nesting beyond max_depth */
  TFX_WIRE_NOMEM,
  TFX_WIRE_LIMIT       /* a string/bytes value longer than max_string, or a field with more
                          than max_list values (err says which; the input is not malformed) */
} tfx_wire_status;

/* Limits of a walk. A field's values are counted per message: every occurrence of the field
 * (singular fields too: protobuf-c keeps each occurrence while unpacking) plus every value of
 * a packed run; unknown fields are counted together per message. */
typedef struct tfx_wire_limits {
  unsigned max_depth;  /* message nesting; 0 = 100; capped at TFX_WIRE_DEPTH_CAP */
  size_t max_string;   /* bytes of one value of a known string/bytes field; 0 = no limit */
  size_t max_list;     /* values of one field in one message; 0 = no limit */
  int general_only;    /* 1: no fast path (wire.c wire_fast); tests compare the two ways */
} tfx_wire_limits;

typedef struct tfx_wire_stats {
  tfx_wire_status status;
  size_t anomalies;    /* unknown fields + repeated occurrences of singular fields, counted in
                          messages that declare fields (opaque placeholders are exempt) */
  unsigned depth;      /* deepest nesting seen (top level = 0) */
  uint64_t top_fields; /* bit k set when top-level field number k (1..63) occurs */
  size_t err_off;      /* byte offset of the problem when status != OK */
  char err[320];       /* what the problem is */
} tfx_wire_stats;

/* Walks data as message type desc. max_depth 0 = 100. Returns st->status. */
tfx_wire_status tfx_io_wire_walk(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
                                 unsigned max_depth, tfx_wire_stats *st);
/* The same with string and list limits (lim NULL = depth 100, no other limit). */
tfx_wire_status tfx_io_wire_walk_lim(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                                     size_t len, const tfx_wire_limits *lim, tfx_wire_stats *st);

#endif
