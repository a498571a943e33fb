/* Protobuf text format: ONE generic parser and ONE printer, both driven by protobuf-c
 * descriptors, so the same code reads and writes GraphDef, MetaGraphDef, SavedModel and
 * (later) GE IR text.
 * Stage: io. Input: text bytes + a message descriptor. Output: a message allocated in the
 * caller's arena (every string, array and sub-message too), exactly as
 * protobuf_c_message_unpack would build it, so binary and text inputs are interchangeable.
 * Tokens come from grammar/pbtxt.l (reentrant flex scanner, prefix tfx_pbtxt_yy).
 * Opaque messages (descriptors with no fields, e.g. SavedObjectGraph) have their bodies
 * skipped. Errors: `file:line:col: error: ...` into the diagnostics context; NULL returned. */
#ifndef TFX_IO_PBTXT_H
#define TFX_IO_PBTXT_H

#include <stddef.h>
#include <protobuf-c/protobuf-c.h>

#include "util/arena.h"
#include "util/diag.h"
#include "util/status.h"
#include "util/strbuf.h"

typedef struct tfx_pbtxt_limits {
  unsigned max_depth;      /* message nesting; 0 = 100 (protoc's default) */
  size_t max_string;       /* bytes in one string/bytes value; 0 = no limit */
  size_t max_list;         /* elements of one repeated field in one message; 0 = no limit */
} tfx_pbtxt_limits;

/* Parses text (len bytes, need not be NUL-terminated; NUL bytes are an error) as message type
 * desc. fname names the input in diagnostics. limits may be NULL; max_depth is capped at 1000.
 * Follows protoc 3.21's text parser: `name: value`, `name {}`/`name: {}`/`name <>`, `[a, b]`
 * lists, enums by name or number (unknown numbers kept: proto3 enums are open), all C escapes
 * incl. \u/\U, adjacent string literals concatenated, inf/nan/infinity in any case, ints range
 * checked per type, ';' or ',' after a field. "Specified multiple times" uses protoc's HasField:
 * a proto3 scalar still at zero does not count as set. Errors point at the offending token
 * (protoc points one token later). Extensions and the expanded Any form `[type/url] {}` are
 * refused. On failure the arena may hold partial allocations (freed with the arena). */
ProtobufCMessage *tfx_pbtxt_parse(const ProtobufCMessageDescriptor *desc, const char *text,
                                  size_t len, const char *fname, tfx_arena *arena,
                                  const tfx_pbtxt_limits *limits, tfx_diag *d);
/* The same, with the kind of a failure in *st: TFX_OK, TFX_E_INPUT (malformed text, a limit)
 * or TFX_E_NOMEM (out of memory, reported as such). */
ProtobufCMessage *tfx_pbtxt_parse_st(const ProtobufCMessageDescriptor *desc, const char *text,
                                     size_t len, const char *fname, tfx_arena *arena,
                                     const tfx_pbtxt_limits *limits, tfx_status *st,
                                     tfx_diag *d);

/* Prints msg in protobuf text format (2-space indent, fields in field-number order, map
 * entries in their stored order, floats with enough digits to round-trip, enums by name,
 * bytes/strings with C escapes like protoc). Unknown fields are not printed. A NaN with its sign
 * bit set prints as -nan so that parsing it back gives the same bits. Iterative (no recursion).
 * Returns 0, or -1 when out of memory (out->oom set). */
int tfx_pbtxt_print(const ProtobufCMessage *msg, tfx_strbuf *out);

#endif
