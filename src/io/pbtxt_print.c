/* Protobuf text format printer: one descriptor-driven printer for any protobuf-c message.
 * Stage: io (output side). Input: a message tree. Output: protoc-style text appended to a
 * strbuf: `name: value`, `name {` ... `}` with 2-space indent, fields in field-number order,
 * enums by name, C-escaped strings, floats with enough digits to parse back to the same bits.
 * Iterative (explicit heap stack), so any nesting depth prints without C recursion. */
#include "io/pbtxt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/pbfield.h"

typedef struct tfx_pbtxt_pframe {
  const ProtobufCMessage *msg;
  unsigned fi;  /* current field index */
  size_t ei;    /* next element of a repeated field */
} tfx_pbtxt_pframe;

/* CEscape: \n \r \t \" \' \\, other bytes outside 0x20..0x7e as 3-digit octal. */
static void tfx_pbtxt_escaped(tfx_strbuf *out, const uint8_t *s, size_t n) {
  tfx_sb_putc(out, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    const char *e = NULL;
    switch (c) {
    case '\n': e = "\\n"; break;
    case '\r': e = "\\r"; break;
    case '\t': e = "\\t"; break;
    case '"': e = "\\\""; break;
    case '\'': e = "\\'"; break;
    case '\\': e = "\\\\"; break;
    default: break;
    }
    if (!e && c >= 0x20 && c < 0x7f) continue;
    tfx_sb_add(out, s + run, i - run);
    run = i + 1;
    if (e) {
      tfx_sb_add(out, e, 2);
    } else { /* 3-digit octal, written directly: this is the hot path for weight bytes */
      char oct[4] = {'\\', (char)('0' + (c >> 6)), (char)('0' + ((c >> 3) & 7)), (char)('0' + (c & 7))};
      tfx_sb_add(out, oct, 4);
    }
  }
  tfx_sb_add(out, s + run, n - run);
  tfx_sb_putc(out, '"');
}

static void tfx_pbtxt_double(tfx_strbuf *out, double v, int is_float) {
  if (isnan(v)) {
    tfx_sb_puts(out, signbit(v) ? "-nan" : "nan");
    return;
  }
  if (isinf(v)) {
    tfx_sb_puts(out, v < 0 ? "-inf" : "inf");
    return;
  }
  char buf[64];
  /* protoc's SimpleFtoa/SimpleDtoa: the short form when it parses back exactly. */
  if (is_float) {
    snprintf(buf, sizeof buf, "%.6g", v);
    if (strtof(buf, NULL) != (float)v) snprintf(buf, sizeof buf, "%.9g", v);
  } else {
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.17g", v);
  }
  tfx_sb_puts(out, buf);
}

static void tfx_pbtxt_scalar_out(tfx_strbuf *out, const ProtobufCFieldDescriptor *f, const void *v) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32:
    tfx_sb_printf(out, "%" PRId32, *(const int32_t *)v);
    break;
  case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
    tfx_sb_printf(out, "%" PRIu32, *(const uint32_t *)v);
    break;
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
    tfx_sb_printf(out, "%" PRId64, *(const int64_t *)v);
    break;
  case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
    tfx_sb_printf(out, "%" PRIu64, *(const uint64_t *)v);
    break;
  case PROTOBUF_C_TYPE_FLOAT: tfx_pbtxt_double(out, *(const float *)v, 1); break;
  case PROTOBUF_C_TYPE_DOUBLE: tfx_pbtxt_double(out, *(const double *)v, 0); break;
  case PROTOBUF_C_TYPE_BOOL: tfx_sb_puts(out, *(const protobuf_c_boolean *)v ? "true" : "false"); break;
  case PROTOBUF_C_TYPE_ENUM: {
    int e = *(const int *)v;
    const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(f->descriptor, e);
    if (ev) tfx_sb_puts(out, ev->name);
    else tfx_sb_printf(out, "%d", e);
    break;
  }
  case PROTOBUF_C_TYPE_STRING: {
    const char *s = *(char *const *)v;
    if (!s) s = "";
    tfx_pbtxt_escaped(out, (const uint8_t *)s, strlen(s));
    break;
  }
  case PROTOBUF_C_TYPE_BYTES: {
    const ProtobufCBinaryData *bd = v;
    tfx_pbtxt_escaped(out, bd->data ? bd->data : (const uint8_t *)"", bd->data ? bd->len : 0);
    break;
  }
  case PROTOBUF_C_TYPE_MESSAGE: break;
  }
}

int tfx_pbtxt_print(const ProtobufCMessage *msg, tfx_strbuf *out) {
  size_t cap = 16, n = 0;
  tfx_pbtxt_pframe *stk = tfx_malloc(cap * sizeof *stk);
  if (!stk) {
    out->oom = 1;
    return -1;
  }
  stk[n++] = (tfx_pbtxt_pframe){msg, 0, 0};
  while (n && !out->oom) {
    tfx_pbtxt_pframe *fr = &stk[n - 1];
    const ProtobufCMessageDescriptor *desc = fr->msg->descriptor;
    if (fr->fi >= desc->n_fields) {
      n--;
      if (n) {
        tfx_sb_indent(out, 2 * (int)(n - 1));
        tfx_sb_puts(out, "}\n");
      }
      continue;
    }
    const ProtobufCFieldDescriptor *f = &desc->fields[fr->fi];
    const char *base = (const char *)fr->msg;
    const void *elem;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t cnt = *(const size_t *)(base + f->quantifier_offset);
      if (fr->ei >= cnt) {
        fr->fi++;
        fr->ei = 0;
        continue;
      }
      elem = *(const char *const *)(base + f->offset) + fr->ei * tfx_pb_elem_size(f->type);
      fr->ei++;
    } else {
      fr->fi++;
      /* map entries always show key and value, as C++ writes and protoc prints them */
      if (!tfx_pb_is_map_entry(fr->msg->descriptor) && !tfx_pb_present(fr->msg, f)) continue;
      elem = base + f->offset;
    }
    tfx_sb_indent(out, 2 * (int)(n - 1));
    tfx_sb_puts(out, f->name);
    if (f->type != PROTOBUF_C_TYPE_MESSAGE) {
      tfx_sb_puts(out, ": ");
      tfx_pbtxt_scalar_out(out, f, elem);
      tfx_sb_putc(out, '\n');
      continue;
    }
    const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)elem;
    tfx_sb_puts(out, " {\n");
    if (!sub) { /* a NULL element in a repeated message field or map value: print it empty */
      tfx_sb_indent(out, 2 * (int)(n - 1));
      tfx_sb_puts(out, "}\n");
      continue;
    }
    if (n == cap) {
      tfx_pbtxt_pframe *ns = tfx_realloc(stk, 2 * cap * sizeof *ns);
      if (!ns) {
        out->oom = 1;
        break;
      }
      stk = ns;
      cap *= 2;
    }
    stk[n++] = (tfx_pbtxt_pframe){sub, 0, 0};
  }
  free(stk);
  return out->oom ? -1 : 0;
}
