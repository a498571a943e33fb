/* Schema-guided protobuf wire walker (see wire.h).
 * Stage: io (internal). Input: bytes + descriptor. Output: status, nesting depth, anomaly count
 * and top-level field set. Mirrors what protobuf-c 1.4 accepts: known fields must carry their
 * declared wire type (repeated scalars may also be packed), groups are rejected, unknown
 * fields are skipped. No recursion: an explicit stack of at most max_depth + 1 frames. Most
 * fields go through a tight loop (wire_fast: one-byte tags of known fields, uncounted messages)
 * that leaves everything else, errors included, to the general code at the same position. */
#include "io/wire.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

/* Field lookup by number without protobuf-c's binary search: per message type met in a walk,
 * a table indexed by field number (types whose numbers stay small), with the field's
 * native wire type and, filled on first use, the table of its message type. Built per walk
 * from a fixed pool; a type that does not fit (numbers above WIRE_TAB_MAX, pool full) is
 * looked up as before. */
#define WIRE_TAB_TYPES 32
#define WIRE_TAB_FIELDS 1024
#define WIRE_TAB_MAX 128

struct wire_tab;
typedef struct wire_field {
  const ProtobufCFieldDescriptor *f; /* NULL: no field of that number */
  int native;
  uint8_t strb, msg;                 /* f is a string or bytes field / a message field */
  uint64_t sbit;                     /* singular with index < 64: its bit in the frame's seen */
  struct wire_tab *child;            /* f's message type (lazily) */
} wire_field;

typedef struct wire_tab {
  const ProtobufCMessageDescriptor *desc;
  unsigned max;                      /* by[0 .. max] */
  wire_field *by;
  /* By one-byte tag (field number < 16): 1 + the field number when the tag carries that
   * field's own wire type, else 0 (the fast walk leaves that field to the general way). */
  uint8_t fast[128];
} wire_tab;

typedef struct wire_tabs {
  wire_tab t[WIRE_TAB_TYPES];
  unsigned n, used;
  wire_field *pool;                  /* WIRE_TAB_FIELDS entries, or NULL: no tables */
} wire_tabs;

static int tfx_wire_native(ProtobufCType t);

/* The table of desc, built now if needed; NULL when it does not fit. */
static wire_tab *wire_tab_of(wire_tabs *w, const ProtobufCMessageDescriptor *desc) {
  if (!w->pool || !desc) return NULL;
  for (unsigned i = 0; i < w->n; i++)
    if (w->t[i].desc == desc) return &w->t[i];
  unsigned max = 0;
  for (unsigned i = 0; i < desc->n_fields; i++)
    if (desc->fields[i].id > max) max = desc->fields[i].id;
  if (w->n == WIRE_TAB_TYPES || max > WIRE_TAB_MAX || WIRE_TAB_FIELDS - w->used < max + 1) return NULL;
  wire_tab *t = &w->t[w->n++];
  t->desc = desc;
  t->max = max;
  t->by = w->pool + w->used;
  w->used += max + 1;
  memset(t->by, 0, (size_t)(max + 1) * sizeof *t->by);
  for (unsigned i = 0; i < desc->n_fields; i++) {
    wire_field *x = &t->by[desc->fields[i].id];
    if (x->f) continue; /* a repeated number: protobuf-c's lookup decides (keep its first) */
    x->f = protobuf_c_message_descriptor_get_field(desc, desc->fields[i].id);
    if (!x->f) continue;
    x->native = tfx_wire_native(x->f->type);
    x->strb = x->f->type == PROTOBUF_C_TYPE_STRING || x->f->type == PROTOBUF_C_TYPE_BYTES;
    x->msg = x->f->type == PROTOBUF_C_TYPE_MESSAGE;
    size_t idx = (size_t)(x->f - desc->fields);
    x->sbit = x->f->label != PROTOBUF_C_LABEL_REPEATED && idx < 64 ? (uint64_t)1 << idx : 0;
  }
  memset(t->fast, 0, sizeof t->fast);
  for (unsigned num = 1; num <= max && num < 16; num++)
    if (t->by[num].f) t->fast[(num << 3) | (unsigned)t->by[num].native] = (uint8_t)(1 + num);
  return t;
}

typedef struct tfx_wire_frame {
  wire_tab *tab;                     /* NULL: look fields up with protobuf-c */
  const ProtobufCMessageDescriptor *desc;
  size_t end;
  uint64_t seen; /* singular fields seen (field index < 64) */
  size_t cbase;  /* this message's counters are cnt[cbase .. cbase + n_fields] (the last one
                    counts unknown fields); NO_COUNT when it is not counted (counted()) */
} tfx_wire_frame;

/* Per-message value counters for the list limit, a stack parallel to the frames. */
typedef struct tfx_wire_counts {
  uint32_t *c;
  size_t n, cap;
} tfx_wire_counts;

/* Reserves and zeroes n_fields + 1 counters for a new frame. Returns the base or SIZE_MAX. */
static size_t tfx_wire_counts_push(tfx_wire_counts *k, const ProtobufCMessageDescriptor *desc) {
  size_t need = (size_t)desc->n_fields + 1, base = k->n;
  if (k->cap - k->n < need) {
    size_t cap = k->cap ? k->cap * 2 : 256;
    while (cap - k->n < need) cap *= 2;
    uint32_t *c = tfx_realloc(k->c, cap * sizeof *c);
    if (!c) return SIZE_MAX;
    k->c = c;
    k->cap = cap;
  }
  memset(k->c + base, 0, need * sizeof *k->c);
  k->n += need;
  return base;
}

/* A message of len bytes holds at most len values of one field (a packed value takes at
 * least a byte, an occurrence at least two: tag and value) and at most len unknown fields, so
 * its counters can pass max_list only when len > max_list: smaller messages (with the default
 * limit of 64 Mi, every one but a huge top level) are not counted at all. */
#define NO_COUNT SIZE_MAX
static inline int counted(size_t max_list, size_t len) { return max_list && len > max_list; }

/* Counts n more values of counter *c against max (0 = no limit). 0 when within it. */
static int tfx_wire_count(uint32_t *c, uint64_t n, size_t max) {
  uint64_t v = (uint64_t)*c + n;
  *c = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
  return max && v > max;
}

__attribute__((format(printf, 3, 4)))
static tfx_wire_status tfx_wire_limit(tfx_wire_stats *st, size_t off, const char *fmt, ...) {
  st->status = TFX_WIRE_LIMIT;
  st->err_off = off;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->err, sizeof st->err, fmt, ap);
  va_end(ap);
  return st->status;
}

__attribute__((format(printf, 3, 4)))
static tfx_wire_status tfx_wire_fail(tfx_wire_stats *st, size_t off, const char *fmt, ...) {
  st->status = TFX_WIRE_MALFORMED;
  st->err_off = off;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->err, sizeof st->err, fmt, ap);
  va_end(ap);
  return st->status;
}

/* Reads a varint at *pos (< end). 0 on success. */
static int tfx_wire_varint(const uint8_t *d, size_t end, size_t *pos, uint64_t *v) {
  const uint8_t *q = d + *pos;
  if (tfx_wire_read_varint(&q, d + end, v) != 0) return -1;
  *pos = (size_t)(q - d);
  return 0;
}

/* The wire type a field's values use when not packed. */
static int tfx_wire_native(ProtobufCType t) {
  switch (t) {
  case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_DOUBLE:
    return 1;
  case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FLOAT:
    return 5;
  case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES: case PROTOBUF_C_TYPE_MESSAGE:
    return 2;
  default:
    return 0;
  }
}

/* A frame the fast walk may run in: its fields are looked up in a table and its values are
 * not counted; the top level is left to the general way (it notes top_fields). */
static inline int wire_fast_ok(const tfx_wire_frame *fr, size_t n) {
  return fr->tab && fr->cbase == NO_COUNT && n > 1;
}

/* The common case of a walk, in a tight loop over the frames stk[0 .. *np) from the top one
 * (which is wire_fast_ok): fields with a one-byte tag of a known field carrying its own wire
 * type, a first occurrence when singular, values within their message, strings within max_str;
 * a message field is entered (a frame pushed, as the general way does) when the nesting allows
 * it, and a finished message is left. Returns the position
 * where it stopped, with *np frames: at a field it leaves to the general way (the position of
 * its tag: the general code reports any error from there), or in a frame that is not
 * wire_fast_ok. */
static size_t wire_fast(const uint8_t *d, size_t pos, tfx_wire_frame *stk, size_t *np, size_t max_depth,
                        size_t max_str, wire_tabs *tabs, unsigned *depth) {
  size_t n = *np, n0 = n; /* the frames from n0 - 1 up are wire_fast_ok */
  unsigned dep = *depth;
  tfx_wire_frame *fr = &stk[n - 1];
  const wire_tab *tab = fr->tab;
  size_t end = fr->end;
  uint64_t sn = fr->seen;
  for (;;) {
    if (pos == end) { /* leave the message */
      n--;
      fr = &stk[n - 1];
      if (n < n0 && !wire_fast_ok(fr, n)) break;
      tab = fr->tab;
      end = fr->end;
      sn = fr->seen;
      continue;
    }
    unsigned t = d[pos];
    if (t >= 0x80 || !tab->fast[t]) goto stay;
    wire_field *wf = &tab->by[t >> 3];
    if (sn & wf->sbit) goto stay;
    size_t p = pos + 1;
    uint64_t v;
    switch (t & 7) {
    case 0:
      if (p < end && d[p] < 0x80) p++;
      else if (tfx_wire_varint(d, end, &p, &v)) goto stay;
      break;
    case 1:
      if (end - p < 8) goto stay;
      p += 8;
      break;
    case 5:
      if (end - p < 4) goto stay;
      p += 4;
      break;
    default: /* 2 */
      if (p < end && d[p] < 0x80) v = d[p++];
      else if (tfx_wire_varint(d, end, &p, &v) || p - (pos + 1) > 5) goto stay;
      if (v > end - p || (wf->strb && v > max_str)) goto stay;
      if (wf->msg) { /* enter it */
        /* not counted either: it is no longer than this message, which is not */
        if (n > max_depth) goto stay;
        fr->seen = sn | wf->sbit;
        if (n > dep) dep = (unsigned)n;
        if (!wf->child) wf->child = wire_tab_of(tabs, wf->f->descriptor);
        fr = &stk[n++];
        *fr = (tfx_wire_frame){wf->child, wf->f->descriptor, p + (size_t)v, 0, NO_COUNT};
        pos = p;
        if (!fr->tab) goto out; /* no table: the general way */
        tab = fr->tab;
        end = fr->end;
        sn = 0;
        continue;
      }
      p += (size_t)v;
      break;
    }
    sn |= wf->sbit;
    pos = p;
    continue;
  stay:
    fr->seen = sn;
    break;
  }
out:
  *np = n;
  *depth = dep;
  return pos;
}

static int has_oneof(const ProtobufCMessageDescriptor *d) {
  for (unsigned i = 0; d && i < d->n_fields; i++)
    if (d->fields[i].flags & PROTOBUF_C_FIELD_FLAG_ONEOF) return 1;
  return 0;
}

tfx_wire_status tfx_io_wire_walk(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
                                 unsigned max_depth, tfx_wire_stats *st) {
  tfx_wire_limits lim = {max_depth, 0, 0, 0};
  return tfx_io_wire_walk_lim(desc, data, len, &lim, st);
}

static tfx_wire_status tfx_wire_nomem(tfx_wire_stats *st) {
  st->status = TFX_WIRE_NOMEM;
  snprintf(st->err, sizeof st->err, "out of memory");
  return st->status;
}

tfx_wire_status tfx_io_wire_walk_lim(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                                     size_t len, const tfx_wire_limits *lim, tfx_wire_stats *st) {
  memset(st, 0, sizeof *st);
  unsigned max_depth = lim ? lim->max_depth : 0;
  size_t max_string = lim ? lim->max_string : 0, max_list = lim ? lim->max_list : 0;
  if (max_depth == 0) max_depth = 100;
  if (max_depth > TFX_WIRE_DEPTH_CAP) max_depth = TFX_WIRE_DEPTH_CAP;
  size_t max_str = max_string ? max_string : SIZE_MAX;
  int fast = !(lim && lim->general_only);
  tfx_wire_frame *stk = tfx_malloc(((size_t)max_depth + 1) * sizeof *stk);
  if (!stk) return tfx_wire_nomem(st);
  wire_tabs tabs;
  tabs.n = tabs.used = 0;
  tabs.pool = tfx_malloc(WIRE_TAB_FIELDS * sizeof *tabs.pool); /* none: lookups as before */
  tfx_wire_counts cnt = {NULL, 0, 0};
  size_t n = 0, pos = 0, base = NO_COUNT;
  if (counted(max_list, len) && (base = tfx_wire_counts_push(&cnt, desc)) == SIZE_MAX) {
    free(tabs.pool);
    free(stk);
    return tfx_wire_nomem(st);
  }
  stk[n++] = (tfx_wire_frame){wire_tab_of(&tabs, desc), desc, len, 0, base};
  while (n) {
    tfx_wire_frame *fr = &stk[n - 1];
    if (pos == fr->end) {
      if (fr->cbase != NO_COUNT) cnt.n = fr->cbase;
      n--;
      continue;
    }
    size_t tag_off = pos;
    /* The common case (wire_fast) first; it stops where the general way below must go on. */
    if (fast && wire_fast_ok(fr, n)) {
      pos = wire_fast(data, pos, stk, &n, max_depth, max_str, &tabs, &st->depth);
      fr = &stk[n - 1];
      if (pos == fr->end) continue; /* the frame is finished: pop it above */
      tag_off = pos;
    }
    uint64_t tag;
    /* protobuf-c reads a tag in at most 5 bytes */
    if (tfx_wire_varint(data, fr->end, &pos, &tag) || pos - tag_off > 5) {
      tfx_wire_fail(st, tag_off, "truncated or overlong field tag");
      break;
    }
    uint64_t num = tag >> 3;
    int wt = (int)(tag & 7);
    if (num == 0 || num > 0x1fffffff) {
      tfx_wire_fail(st, tag_off, "invalid field number %llu", (unsigned long long)num);
      break;
    }
    size_t val_off = pos;
    uint64_t v = 0;
    switch (wt) {
    case 0:
      if (tfx_wire_varint(data, fr->end, &pos, &v)) tfx_wire_fail(st, val_off, "truncated varint");
      break;
    case 1:
      if (fr->end - pos < 8) tfx_wire_fail(st, val_off, "truncated 64-bit value");
      else pos += 8;
      break;
    case 5:
      if (fr->end - pos < 4) tfx_wire_fail(st, val_off, "truncated 32-bit value");
      else pos += 4;
      break;
    case 2:
      if (tfx_wire_varint(data, fr->end, &pos, &v)) tfx_wire_fail(st, val_off, "truncated length");
      else if (pos - val_off > 5) tfx_wire_fail(st, val_off, "overlong length"); /* protobuf-c: 5 bytes at most */
      else if (v > fr->end - pos)
        tfx_wire_fail(st, val_off, "length %llu runs past the end of the enclosing message",
                      (unsigned long long)v);
      break;
    default:
      tfx_wire_fail(st, tag_off, "unsupported wire type %d (groups are not supported)", wt);
      break;
    }
    if (st->status != TFX_WIRE_OK) break;
    /* For wire type 2, [val_start, val_start + v) is the payload. */
    size_t payload = pos;
    if (wt == 2) pos += (size_t)v;
    if (n == 1 && num < 64) st->top_fields |= (uint64_t)1 << num;
    const ProtobufCFieldDescriptor *f;
    wire_field *wf = NULL;
    if (fr->tab && num <= fr->tab->max) {
      wf = &fr->tab->by[num];
      f = wf->f;
    } else {
      f = protobuf_c_message_descriptor_get_field(fr->desc, (unsigned)num);
    }
    if (!f) {
      if (fr->desc->n_fields) st->anomalies++;
      if (fr->cbase != NO_COUNT && tfx_wire_count(&cnt.c[fr->cbase + fr->desc->n_fields], 1, max_list)) {
        tfx_wire_limit(st, tag_off, "message %s has more than %zu unknown fields (raise the list "
                       "limit with --limit list=N)", fr->desc->name, max_list);
        break;
      }
      continue;
    }
    size_t idx = (size_t)(f - fr->desc->fields);
    if (max_string && wt == 2 && v > max_string &&
        (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES)) {
      tfx_wire_limit(st, val_off, "%s field %s.%s holds %llu bytes, longer than the limit of %zu "
                     "bytes (raise the string limit with --limit string=SIZE)",
                     f->type == PROTOBUF_C_TYPE_STRING ? "string" : "bytes", fr->desc->name,
                     f->name, (unsigned long long)v, max_string);
      break;
    }
    if (f->label != PROTOBUF_C_LABEL_REPEATED && idx < 64) {
      if (fr->seen & ((uint64_t)1 << idx)) {
        st->anomalies++;
        /* A singular message given twice is merged by protobuf-c, and its merge fails when
         * the message type has a oneof (1.4.1): refuse it here with a clear message instead
         * of an unexplained unpack failure. TensorFlow's writers never produce this. */
        if (f->type == PROTOBUF_C_TYPE_MESSAGE && has_oneof(f->descriptor)) {
          tfx_wire_fail(st, tag_off,
                        "field %s.%s occurs more than once and its message type has a oneof "
                        "(such messages cannot be merged)",
                        fr->desc->name, f->name);
          break;
        }
      }
      fr->seen |= (uint64_t)1 << idx;
    }
    int native = wf ? wf->native : tfx_wire_native(f->type);
    /* values of this field in this message: one, or every value of a packed run (below) */
    uint64_t nvals = 1;
    if (wt != native) {
      if (!(f->label == PROTOBUF_C_LABEL_REPEATED && wt == 2)) {
        tfx_wire_fail(st, tag_off, "field %s.%s has wire type %d, expected %d", fr->desc->name, f->name, wt,
                      native);
        break;
      }
      /* packed repeated scalars: the payload must hold whole values */
      if (native == 1 || native == 5) {
        if (v % (native == 1 ? 8 : 4)) {
          tfx_wire_fail(st, payload, "packed field %s.%s has a length that is not a multiple of %d",
                        fr->desc->name, f->name, native == 1 ? 8 : 4);
          break;
        }
        nvals = v / (native == 1 ? 8 : 4);
      } else {
        /* a failed tfx_wire_varint leaves q where it was: test its result, not q */
        size_t q = payload, vstart = payload;
        uint64_t dummy;
        int bad = 0;
        nvals = 0;
        while (!bad && q < pos) {
          vstart = q;
          bad = tfx_wire_varint(data, pos, &q, &dummy) != 0;
          nvals++;
        }
        if (bad) {
          tfx_wire_fail(st, vstart, "packed field %s.%s ends inside a varint", fr->desc->name, f->name);
          break;
        }
      }
    }
    if (fr->cbase != NO_COUNT && tfx_wire_count(&cnt.c[fr->cbase + idx], nvals, max_list)) {
      tfx_wire_limit(st, tag_off, "field %s.%s has more than %zu %s in one message (raise the list "
                     "limit with --limit list=N)", fr->desc->name, f->name, max_list,
                     f->label == PROTOBUF_C_LABEL_REPEATED ? "elements" : "occurrences");
      break;
    }
    if (wt != native) continue; /* packed */
    if (f->type != PROTOBUF_C_TYPE_MESSAGE) continue;
    if (n > max_depth) {
      st->status = TFX_WIRE_TOO_DEEP;
      st->err_off = tag_off;
      snprintf(st->err, sizeof st->err, "message nesting is deeper than the limit of %u (%s)", max_depth,
               max_depth < TFX_WIRE_DEPTH_CAP ? "raise the depth limit with --limit depth=N, at most 1000"
                                              : "1000 is the largest depth limit");
      break;
    }
    if (n > st->depth) st->depth = (unsigned)n;
    base = NO_COUNT;
    if (counted(max_list, (size_t)v) && (base = tfx_wire_counts_push(&cnt, f->descriptor)) == SIZE_MAX) {
      tfx_wire_nomem(st);
      break;
    }
    wire_tab *ct;
    if (wf) {
      if (!wf->child) wf->child = wire_tab_of(&tabs, f->descriptor);
      ct = wf->child;
    } else {
      ct = wire_tab_of(&tabs, f->descriptor);
    }
    stk[n++] = (tfx_wire_frame){ct, f->descriptor, pos, 0, base};
    pos = payload;
  }
  free(tabs.pool);
  free(cnt.c);
  free(stk);
  return st->status;
}
