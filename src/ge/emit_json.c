/* GE IR emitter, JSON: a small descriptor-driven writer of protobuf's JSON mapping.
 * Stage: ge (output side). Input: any protobuf-c message (used for ge.proto.ModelDef). Output:
 * one pretty-printed JSON object (2-space indent, trailing newline) appended to a strbuf.
 * Mapping (as protobuf's JsonPrinter with default options): field names in lowerCamelCase
 * (name_with_underscores -> nameWithUnderscores), fields at their default value omitted except
 * oneof members, 64-bit integers as decimal strings, 32-bit as numbers, floats with the fewest
 * digits that read back to the same value (NaN / Infinity / -Infinity as strings), bytes in
 * base64 with padding, enums by name (unknown numbers as numbers), repeated fields as arrays,
 * map fields as objects keyed by the map key, sorted bytewise, last duplicate wins. Strings are
 * escaped with tfx_sb_json_str (control characters, and bytes that are not UTF-8 as \u00XX),
 * so the output is always valid JSON. Recursion is capped at TFX_JSON_DEPTH levels. */
#include "ge/ge.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/pbfield.h"
#include "util/status.h"

#define TFX_JSON_DEPTH 1000

typedef struct tfx_json {
  tfx_strbuf *out;
  int too_deep;
} tfx_json;

/* protoc's map entry messages: XxxEntry { key = 1; value = 2; }. */
static int tfx_json_is_map(const ProtobufCFieldDescriptor *f) {
  return f->label == PROTOBUF_C_LABEL_REPEATED && f->type == PROTOBUF_C_TYPE_MESSAGE &&
         tfx_pb_is_map_entry(f->descriptor);
}

/* The field's JSON name: protobuf's ToJsonName (drop '_', upper-case the letter after it). */
static void tfx_json_name(tfx_strbuf *out, const char *name) {
  tfx_sb_putc(out, '"');
  int up = 0;
  for (const char *p = name; *p; p++) {
    if (*p == '_') {
      up = 1;
      continue;
    }
    char c = *p;
    if (up && c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
    up = 0;
    tfx_sb_putc(out, c);
  }
  tfx_sb_puts(out, "\": ");
}

static void tfx_json_base64(tfx_strbuf *out, const uint8_t *p, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  tfx_sb_putc(out, '"');
  if (!tfx_sb_reserve(out, (n + 2) / 3 * 4 + 1)) return;
  char *w = out->data + out->len;
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
    *w++ = tab[v >> 18];
    *w++ = tab[(v >> 12) & 63];
    *w++ = tab[(v >> 6) & 63];
    *w++ = tab[v & 63];
  }
  if (i < n) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
    *w++ = tab[v >> 18];
    *w++ = tab[(v >> 12) & 63];
    *w++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
    *w++ = '=';
  }
  out->len = (size_t)(w - out->data);
  out->data[out->len] = 0;
  tfx_sb_putc(out, '"');
}

static void tfx_json_double(tfx_strbuf *out, double v, int is_float) {
  if (isnan(v)) {
    tfx_sb_puts(out, "\"NaN\"");
    return;
  }
  if (isinf(v)) {
    tfx_sb_puts(out, v < 0 ? "\"-Infinity\"" : "\"Infinity\"");
    return;
  }
  char buf[64];
  if (is_float) {
    snprintf(buf, sizeof buf, "%.6g", v);
    if (strtof(buf, NULL) != (float)v) snprintf(buf, sizeof buf, "%.9g", v);
  } else {
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.17g", v);
  }
  tfx_sb_puts(out, buf);
}

static void tfx_json_msg(tfx_json *j, const ProtobufCMessage *m, int indent, int depth);

static void tfx_json_value(tfx_json *j, const ProtobufCFieldDescriptor *f, const void *v, int indent,
                           int depth) {
  tfx_strbuf *out = j->out;
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32:
    tfx_sb_printf(out, "%" PRId32, *(const int32_t *)v);
    break;
  case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
    tfx_sb_printf(out, "%" PRIu32, *(const uint32_t *)v);
    break;
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
    tfx_sb_printf(out, "\"%" PRId64 "\"", *(const int64_t *)v);
    break;
  case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
    tfx_sb_printf(out, "\"%" PRIu64 "\"", *(const uint64_t *)v);
    break;
  case PROTOBUF_C_TYPE_FLOAT: tfx_json_double(out, *(const float *)v, 1); break;
  case PROTOBUF_C_TYPE_DOUBLE: tfx_json_double(out, *(const double *)v, 0); break;
  case PROTOBUF_C_TYPE_BOOL: tfx_sb_puts(out, *(const protobuf_c_boolean *)v ? "true" : "false"); break;
  case PROTOBUF_C_TYPE_ENUM: {
    int e = *(const int *)v;
    const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value(f->descriptor, e);
    if (ev) tfx_sb_json_str(out, ev->name, strlen(ev->name));
    else tfx_sb_printf(out, "%d", e);
    break;
  }
  case PROTOBUF_C_TYPE_STRING: {
    const char *s = *(char *const *)v;
    if (!s) s = "";
    tfx_sb_json_str(out, s, strlen(s));
    break;
  }
  case PROTOBUF_C_TYPE_BYTES: {
    const ProtobufCBinaryData *bd = v;
    tfx_json_base64(out, bd->data, bd->data ? bd->len : 0);
    break;
  }
  case PROTOBUF_C_TYPE_MESSAGE: {
    const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)v;
    if (sub) tfx_json_msg(j, sub, indent, depth + 1);
    else tfx_sb_puts(out, "{}");
    break;
  }
  }
}

/* A non-string map key (integer or bool) as the text of its JSON object key. */
static void tfx_json_numkey(const ProtobufCFieldDescriptor *kf, const void *v, char buf[24]) {
  switch (kf->type) {
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
    snprintf(buf, 24, "%" PRId64, *(const int64_t *)v);
    break;
  case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64:
    snprintf(buf, 24, "%" PRIu64, *(const uint64_t *)v);
    break;
  case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32:
    snprintf(buf, 24, "%" PRIu32, *(const uint32_t *)v);
    break;
  case PROTOBUF_C_TYPE_BOOL: snprintf(buf, 24, "%s", *(const protobuf_c_boolean *)v ? "true" : "false"); break;
  default: snprintf(buf, 24, "%" PRId32, *(const int32_t *)v); break;
  }
}

typedef struct tfx_json_ent {
  const ProtobufCMessage *e;
  const char *key;
  size_t idx;
} tfx_json_ent;

static int tfx_json_ent_cmp(const void *a, const void *b) {
  const tfx_json_ent *x = a, *y = b;
  int c = strcmp(x->key, y->key); /* compares as unsigned char: bytewise */
  if (c) return c;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* A map field as an object: keys sorted bytewise; of equal keys the last one stored wins, as
 * when protobuf parses the binary form. Non-string keys are printed as JSON strings too. */
static void tfx_json_map(tfx_json *j, const ProtobufCFieldDescriptor *f, const ProtobufCMessage *const *arr,
                         size_t cnt, int indent, int depth) {
  tfx_strbuf *out = j->out;
  const ProtobufCMessageDescriptor *ed = f->descriptor;
  const ProtobufCFieldDescriptor *kf = &ed->fields[0], *vf = &ed->fields[1];
  tfx_json_ent *ents = tfx_calloc(cnt, sizeof *ents);
  char (*numkeys)[24] = NULL;
  if (kf->type != PROTOBUF_C_TYPE_STRING) numkeys = tfx_calloc(cnt, sizeof *numkeys);
  if (!ents || (kf->type != PROTOBUF_C_TYPE_STRING && !numkeys)) {
    out->oom = 1;
    free(ents);
    free(numkeys);
    return;
  }
  size_t n = 0;
  for (size_t k = 0; k < cnt; k++) {
    const ProtobufCMessage *e = arr[k];
    if (!e) continue;
    const char *kv = (const char *)e + kf->offset;
    const char *key;
    if (kf->type == PROTOBUF_C_TYPE_STRING) {
      key = *(char *const *)kv;
      if (!key) key = "";
    } else {
      tfx_json_numkey(kf, kv, numkeys[n]);
      key = numkeys[n];
    }
    ents[n++] = (tfx_json_ent){e, key, k};
  }
  qsort(ents, n, sizeof *ents, tfx_json_ent_cmp);
  tfx_sb_putc(out, '{');
  int first = 1;
  for (size_t k = 0; k < n; k++) {
    if (k + 1 < n && strcmp(ents[k].key, ents[k + 1].key) == 0) continue;
    tfx_sb_puts(out, first ? "\n" : ",\n");
    first = 0;
    tfx_sb_indent(out, indent + 2);
    tfx_sb_json_str(out, ents[k].key, strlen(ents[k].key));
    tfx_sb_puts(out, ": ");
    tfx_json_value(j, vf, (const char *)ents[k].e + vf->offset, indent + 2, depth);
  }
  if (!first) {
    tfx_sb_putc(out, '\n');
    tfx_sb_indent(out, indent);
  }
  tfx_sb_putc(out, '}');
  free(ents);
  free(numkeys);
}

static void tfx_json_msg(tfx_json *j, const ProtobufCMessage *m, int indent, int depth) {
  tfx_strbuf *out = j->out;
  if (depth > TFX_JSON_DEPTH) {
    j->too_deep = 1;
    return;
  }
  const ProtobufCMessageDescriptor *desc = m->descriptor;
  const char *base = (const char *)m;
  int first = 1;
  tfx_sb_putc(out, '{');
  for (unsigned fi = 0; fi < desc->n_fields && !out->oom && !j->too_deep; fi++) {
    const ProtobufCFieldDescriptor *f = &desc->fields[fi];
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t cnt = *(const size_t *)(base + f->quantifier_offset);
      if (!cnt) continue;
      const char *arr = *(const char *const *)(base + f->offset);
      tfx_sb_puts(out, first ? "\n" : ",\n");
      first = 0;
      tfx_sb_indent(out, indent + 2);
      tfx_json_name(out, f->name);
      if (tfx_json_is_map(f)) {
        tfx_json_map(j, f, (const ProtobufCMessage *const *)arr, cnt, indent + 2, depth);
        continue;
      }
      tfx_sb_puts(out, "[\n");
      size_t es = tfx_pb_elem_size(f->type);
      for (size_t k = 0; k < cnt && !out->oom && !j->too_deep; k++) {
        tfx_sb_indent(out, indent + 4);
        tfx_json_value(j, f, arr + k * es, indent + 4, depth);
        tfx_sb_puts(out, k + 1 < cnt ? ",\n" : "\n");
      }
      tfx_sb_indent(out, indent + 2);
      tfx_sb_putc(out, ']');
    } else if (tfx_pb_present(m, f)) {
      tfx_sb_puts(out, first ? "\n" : ",\n");
      first = 0;
      tfx_sb_indent(out, indent + 2);
      tfx_json_name(out, f->name);
      tfx_json_value(j, f, base + f->offset, indent + 2, depth);
    }
  }
  if (!first) {
    tfx_sb_putc(out, '\n');
    tfx_sb_indent(out, indent);
  }
  tfx_sb_putc(out, '}');
}

int tfx_ge_emit_json(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d) {
  size_t start = out->len;
  tfx_json j = {out, 0};
  tfx_json_msg(&j, &m->base, 0, 0);
  tfx_sb_putc(out, '\n');
  if (out->oom || j.too_deep) {
    out->len = start;
    if (out->data) out->data[start] = 0;
    if (out->oom)
      tfx_error(d, NULL, 0, 0, "out of memory writing the GE model as JSON");
    else
      tfx_error(d, NULL, 0, 0, "the GE model is nested too deeply to write as JSON (over %d levels)",
                TFX_JSON_DEPTH);
    return out->oom ? TFX_E_NOMEM : TFX_E_FAIL;
  }
  return 0;
}
