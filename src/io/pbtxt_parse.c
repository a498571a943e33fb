/* Protobuf text format parser: one recursive-descent parser driven by protobuf-c descriptors.
 * Stage: io. Input: text bytes (tokens from grammar/pbtxt.l) + a message descriptor. Output: a
 * message tree in the caller's arena laid out exactly as protobuf_c_message_unpack builds it
 * (message_init on each message, n_xxx / has_xxx / oneof case set, repeated fields copied into
 * the arena once the message is closed, strings NUL-terminated). Semantics follow protoc 3.21's
 * TextFormat::Parser; the first error stops the parse (reported at the offending token). */
#include "io/pbtxt.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "io/pbfield.h"
#include "io/pbtxt_tokens.h"
#include "pbtxt_lex.h"

/* Recursion in this file is bounded by max_depth, itself capped here so that even a caller
 * asking for a huge limit cannot overflow the C stack. */
#define TFX_PBTXT_DEPTH_CAP 1000u

/* ---- scanner support (called from grammar/pbtxt.l) ---- */

void tfx_pbtxt_scan_init(tfx_pbtxt_scan *s, const char *buf, size_t len) {
  memset(s, 0, sizeof *s);
  s->buf = buf;
  s->len = len;
  s->line = 1;
  s->blocks.next = s->blocks.prev = &s->blocks;
}

size_t tfx_pbtxt_scan_read(tfx_pbtxt_scan *s, char *dst, size_t max) {
  size_t n = s->len - s->rd;
  if (n > max) n = max;
  memcpy(dst, s->buf + s->rd, n);
  s->rd += n;
  return n;
}

static void tfx_pbtxt_blk_link(tfx_pbtxt_scan *s, tfx_pbtxt_blk *b) {
  b->next = s->blocks.next;
  b->prev = &s->blocks;
  s->blocks.next->prev = b;
  s->blocks.next = b;
}

static void tfx_pbtxt_blk_unlink(tfx_pbtxt_blk *b) {
  b->prev->next = b->next;
  b->next->prev = b->prev;
}

void *tfx_pbtxt_scan_alloc(tfx_pbtxt_scan *s, size_t n) {
  if (n > SIZE_MAX - sizeof(tfx_pbtxt_blk)) return NULL;
  tfx_pbtxt_blk *b = tfx_malloc(sizeof *b + n);
  if (!b) return NULL;
  b->size = n;
  tfx_pbtxt_blk_link(s, b);
  return b + 1;
}

void *tfx_pbtxt_scan_realloc(tfx_pbtxt_scan *s, void *p, size_t n) {
  if (!p) return tfx_pbtxt_scan_alloc(s, n);
  if (n > SIZE_MAX - sizeof(tfx_pbtxt_blk)) return NULL;
  tfx_pbtxt_blk *b = (tfx_pbtxt_blk *)p - 1;
  tfx_pbtxt_blk_unlink(b);
  tfx_pbtxt_blk *nb = tfx_realloc(b, sizeof *b + n);
  if (!nb) { /* the old block is still valid and still owned: relink it */
    tfx_pbtxt_blk_link(s, b);
    return NULL;
  }
  nb->size = n;
  tfx_pbtxt_blk_link(s, nb);
  return nb + 1;
}

void tfx_pbtxt_scan_free(tfx_pbtxt_scan *s, void *p) {
  (void)s;
  if (!p) return;
  tfx_pbtxt_blk *b = (tfx_pbtxt_blk *)p - 1;
  tfx_pbtxt_blk_unlink(b);
  free(b);
}

void tfx_pbtxt_scan_release(tfx_pbtxt_scan *s) {
  while (s->blocks.next != &s->blocks) {
    tfx_pbtxt_blk *b = s->blocks.next;
    tfx_pbtxt_blk_unlink(b);
    free(b);
  }
}

_Noreturn void tfx_pbtxt_scan_fatal(tfx_pbtxt_scan *s) { longjmp(*s->oom_jmp, 1); }

/* ---- parser state ---- */

typedef struct tfx_pbtxt_tok {
  int type;
  size_t off, len;
  unsigned line, col;
} tfx_pbtxt_tok;

typedef struct tfx_pbtxt_parser {
  const char *text;
  size_t len;
  const char *fname;
  tfx_arena *arena;
  tfx_diag *d;
  unsigned max_depth;
  size_t max_string;
  size_t max_list;
  yyscan_t yy;
  tfx_pbtxt_scan scan;
  tfx_pbtxt_tok cur; /* one token of lookahead */
  int failed;
  int oom;           /* the scanner ran out of memory (longjmp from flex) */
  int nomem;         /* the first error is out of memory (TFX_E_NOMEM, not malformed input) */
  tfx_strbuf sb;     /* scratch for unescaped string values */
  struct tfx_pbtxt_level *lv; /* per nesting depth, reused by every message at that depth */
  unsigned n_lv;
} tfx_pbtxt_parser;

/* Growing copy of one repeated field while its message is open. */
typedef struct tfx_pbtxt_rep {
  char *data;
  size_t n, cap;
} tfx_pbtxt_rep;

/* Scratch of one nesting depth: only one message per depth is open at a time, so its
 * per-field state (and the buffers repeated fields grow in) is kept and reused by the next
 * message at that depth instead of being allocated per message. */
typedef struct tfx_pbtxt_level {
  tfx_pbtxt_rep *reps;   /* cap entries; reps[i].n is 0 between messages */
  unsigned char *seen;   /* cap entries */
  size_t cap;
} tfx_pbtxt_level;

/* Per-message bookkeeping for the fields of one open message. */
typedef struct tfx_pbtxt_frame {
  const ProtobufCMessageDescriptor *desc;
  ProtobufCMessage *msg;
  tfx_pbtxt_rep *reps;   /* n_fields entries */
  unsigned char *seen;   /* n_fields entries */
  unsigned hint;         /* index of the last field named: the next is usually it or the one after */
} tfx_pbtxt_frame;

/* Reports an error at token t, with its source line attached for the caret. */
__attribute__((format(printf, 3, 4)))
static void tfx_pbtxt_err(tfx_pbtxt_parser *p, const tfx_pbtxt_tok *t, const char *fmt, ...) {
  if (p->failed) return;
  p->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  tfx_diag_addv(p->d, TFX_SEV_ERROR, p->fname, t->line, t->col, fmt, ap);
  va_end(ap);
  size_t ls = t->off - (t->col - 1);
  if (t->col > 4096 || ls > p->len) return; /* absurdly long line: no caret */
  const char *nl = memchr(p->text + ls, '\n', p->len - ls);
  size_t ll = nl ? (size_t)(nl - (p->text + ls)) : p->len - ls;
  size_t keep = (size_t)t->col - 1 + t->len + 120;
  if (ll > keep) ll = keep;
  size_t span = t->len;
  if (span > ll - (t->col - 1)) span = ll - (t->col - 1);
  if (span > 200) span = 200;
  tfx_diag_set_source(p->d, p->text + ls, ll, (unsigned)(span ? span : 1));
}

/* Reports out of memory at t (msg has no format): the parse fails with TFX_E_NOMEM. */
static void tfx_pbtxt_oom(tfx_pbtxt_parser *p, const tfx_pbtxt_tok *t, const char *msg) {
  if (!p->failed) p->nomem = 1;
  tfx_pbtxt_err(p, t, "%s", msg);
}

/* A short, printable rendering of a token for "got: X" messages. */
static void tfx_pbtxt_show(const tfx_pbtxt_parser *p, const tfx_pbtxt_tok *t, char *buf, size_t cap) {
  if (t->type == TFX_PBTXT_T_EOF) {
    snprintf(buf, cap, "end of input");
    return;
  }
  size_t o = 0;
  buf[o++] = '"';
  for (size_t i = 0; i < t->len && o + 8 < cap; i++) {
    unsigned char c = (unsigned char)p->text[t->off + i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') buf[o++] = (char)c;
    else o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
  }
  if (t->len && o + 8 >= cap) { buf[o++] = '.'; buf[o++] = '.'; buf[o++] = '.'; }
  buf[o++] = '"';
  buf[o] = 0;
}

static void tfx_pbtxt_expected(tfx_pbtxt_parser *p, const char *what) {
  char got[64];
  tfx_pbtxt_show(p, &p->cur, got, sizeof got);
  tfx_pbtxt_err(p, &p->cur, "expected %s, got %s", what, got);
}

/* Moves to the next token; scanner-level errors are reported here. Returns 0 or -1. An
 * allocation failure inside flex does not come back here: it longjmps to tfx_pbtxt_run. */
static int tfx_pbtxt_advance(tfx_pbtxt_parser *p) {
  if (p->failed) return -1;
  int type = tfx_pbtxt_yylex(p->yy);
  tfx_pbtxt_tok *t = &p->cur;
  t->type = type;
  if (type == TFX_PBTXT_T_EOF || type == TFX_PBTXT_T_OOM) {
    t->off = p->len;
    t->len = 0;
  } else {
    t->off = p->scan.tok_off;
    t->len = p->scan.off - p->scan.tok_off;
  }
  t->line = p->scan.line;
  t->col = (unsigned)(t->off - p->scan.line_start + 1);
  switch (type) {
  case TFX_PBTXT_T_OOM:
    tfx_pbtxt_oom(p, t, "out of memory while scanning");
    return -1;
  case TFX_PBTXT_T_NUL:
    tfx_pbtxt_err(p, t, "NUL byte in text input (is this a binary file?)");
    return -1;
  case TFX_PBTXT_T_BADCHAR: {
    unsigned char c = (unsigned char)p->text[t->off];
    if (c >= 0x20 && c < 0x7f) tfx_pbtxt_err(p, t, "unexpected character '%c'", c);
    else tfx_pbtxt_err(p, t, "unexpected byte 0x%02x", c);
    return -1;
  }
  case TFX_PBTXT_T_BADNUM: {
    int n = t->len > 40 ? 40 : (int)t->len;
    tfx_pbtxt_err(p, t, "invalid number \"%.*s\" (need space between number and identifier; "
                        "a leading 0 means octal)", n, p->text + t->off);
    return -1;
  }
  case TFX_PBTXT_T_BADSTR:
    if (t->off + t->len < p->len && p->text[t->off + t->len] == 0) {
      tfx_pbtxt_tok z = *t;
      z.off += t->len;
      z.col += (unsigned)t->len;
      z.len = 1;
      tfx_pbtxt_err(p, &z, "NUL byte in text input (is this a binary file?)");
    } else {
      t->len = 1;
      tfx_pbtxt_err(p, t, "unterminated string literal (strings cannot cross line boundaries)");
    }
    return -1;
  default:
    return 0;
  }
}

static int tfx_pbtxt_is(const tfx_pbtxt_parser *p, const char *word) {
  size_t n = strlen(word);
  return p->cur.type == TFX_PBTXT_T_IDENT && p->cur.len == n && memcmp(p->text + p->cur.off, word, n) == 0;
}

static int tfx_pbtxt_is_nocase(const tfx_pbtxt_parser *p, const char *word) {
  size_t n = strlen(word);
  return p->cur.type == TFX_PBTXT_T_IDENT && p->cur.len == n && strncasecmp(p->text + p->cur.off, word, n) == 0;
}

/* How to raise the depth limit (for the nesting error). */
static const char *tfx_pbtxt_depth_hint(const tfx_pbtxt_parser *p) {
  return p->max_depth < TFX_PBTXT_DEPTH_CAP ? "raise the depth limit with --limit depth=N, at most 1000"
                                            : "1000 is the largest depth limit";
}

/* ---- field storage ---- */

/* protoc's HasField for a field of an open message (decides "specified multiple times"). */
static int tfx_pbtxt_has(const tfx_pbtxt_frame *fr, const ProtobufCFieldDescriptor *f, size_t idx) {
  const char *base = (const char *)fr->msg;
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    return *(const uint32_t *)(base + f->quantifier_offset) == f->id;
  if (f->label != PROTOBUF_C_LABEL_NONE || f->type == PROTOBUF_C_TYPE_MESSAGE) return fr->seen[idx];
  /* proto3 implicit presence: a scalar is "set" when it differs from zero (bitwise for floats). */
  const void *v = base + f->offset;
  switch (f->type) {
  case PROTOBUF_C_TYPE_STRING: {
    const char *s = *(char *const *)v;
    return s && *s;
  }
  case PROTOBUF_C_TYPE_BYTES: return ((const ProtobufCBinaryData *)v)->len != 0;
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
  case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE: {
    uint64_t u;
    memcpy(&u, v, 8);
    return u != 0;
  }
  case PROTOBUF_C_TYPE_BOOL: return *(const protobuf_c_boolean *)v != 0;
  default: {
    uint32_t u;
    memcpy(&u, v, 4);
    return u != 0;
  }
  }
}

/* Where the next value of field f goes: a new element of a repeated field, or the singular
 * slot (with has_/oneof case set). NULL on out of memory (reported). */
static void *tfx_pbtxt_slot(tfx_pbtxt_parser *p, tfx_pbtxt_frame *fr, const ProtobufCFieldDescriptor *f,
                            size_t idx) {
  char *base = (char *)fr->msg;
  fr->seen[idx] = 1;
  if (f->label == PROTOBUF_C_LABEL_REPEATED) {
    tfx_pbtxt_rep *r = &fr->reps[idx];
    size_t esz = tfx_pb_elem_size(f->type);
    if (p->max_list && r->n >= p->max_list) {
      tfx_pbtxt_err(p, &p->cur, "repeated field \"%s\" has more than %zu elements (raise the list "
                    "limit with --limit list=N)", f->name, p->max_list);
      return NULL;
    }
    if (r->n >= r->cap / esz) { /* r->cap is in bytes: the buffer outlives one field type */
      size_t ncap = r->cap ? r->cap * 2 : 4 * 8;
      if (ncap / 2 < r->cap || ncap < esz) ncap = 0;
      char *nd = ncap ? tfx_realloc(r->data, ncap) : NULL;
      if (!nd) {
        tfx_pbtxt_oom(p, &p->cur, "out of memory");
        return NULL;
      }
      r->data = nd;
      r->cap = ncap;
    }
    void *slot = r->data + r->n * esz;
    memset(slot, 0, esz);
    r->n++;
    return slot;
  }
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) *(uint32_t *)(base + f->quantifier_offset) = f->id;
  else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->type != PROTOBUF_C_TYPE_STRING &&
           f->type != PROTOBUF_C_TYPE_MESSAGE)
    *(protobuf_c_boolean *)(base + f->quantifier_offset) = 1;
  return base + f->offset;
}

/* ---- scalar values ---- */

/* Integer literal (with an optional separate '-' token before it). *mag is the magnitude. */
static int tfx_pbtxt_int_literal(tfx_pbtxt_parser *p, int *neg, uint64_t *mag, tfx_pbtxt_tok *at) {
  *neg = 0;
  *at = p->cur;
  if (p->cur.type == '-') {
    *neg = 1;
    if (tfx_pbtxt_advance(p)) return -1;
  }
  if (p->cur.type != TFX_PBTXT_T_INT) {
    tfx_pbtxt_expected(p, "integer");
    return -1;
  }
  const char *s = p->text + p->cur.off, *e = s + p->cur.len;
  if (*s == '-') {
    if (*neg) {
      tfx_pbtxt_expected(p, "integer");
      return -1;
    }
    *neg = 1;
    s++;
  }
  unsigned base = 10;
  if (e - s > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s += 2;
  else if (e - s > 1 && s[0] == '0') base = 8, s++;
  uint64_t v = 0;
  for (; s < e; s++) {
    unsigned dg = (*s >= '0' && *s <= '9') ? (unsigned)(*s - '0')
                  : (*s >= 'a' && *s <= 'f') ? (unsigned)(*s - 'a' + 10) : (unsigned)(*s - 'A' + 10);
    if (v > (UINT64_MAX - dg) / base) {
      tfx_pbtxt_err(p, at, "integer out of range (%.*s)", (int)(p->cur.off + p->cur.len - at->off),
                    p->text + at->off);
      return -1;
    }
    v = v * base + dg;
  }
  *mag = v;
  at->len = p->cur.off + p->cur.len - at->off;
  return tfx_pbtxt_advance(p);
}

static int tfx_pbtxt_int_value(tfx_pbtxt_parser *p, const ProtobufCFieldDescriptor *f, int64_t *sv,
                               uint64_t *uv) {
  int neg;
  uint64_t mag;
  tfx_pbtxt_tok at;
  if (tfx_pbtxt_int_literal(p, &neg, &mag, &at)) return -1;
  int is_signed = 0;
  uint64_t max;
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32:
  case PROTOBUF_C_TYPE_ENUM:
    is_signed = 1, max = INT32_MAX;
    break;
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
    is_signed = 1, max = INT64_MAX;
    break;
  case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32: max = UINT32_MAX; break;
  default: max = UINT64_MAX; break;
  }
  if (neg && !is_signed) {
    tfx_pbtxt_err(p, &at, "negative value for unsigned field \"%s\"", f->name);
    return -1;
  }
  if (mag > max + (uint64_t)(neg ? 1 : 0)) {
    tfx_pbtxt_err(p, &at, "integer out of range (%.*s) for field \"%s\"", (int)at.len, p->text + at.off,
                  f->name);
    return -1;
  }
  if (neg) *sv = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
  else *sv = (int64_t)mag;
  *uv = mag;
  return 0;
}

/* Double value: decimal number, integer (decimal only), inf/infinity/nan (any case). */
static int tfx_pbtxt_double_value(tfx_pbtxt_parser *p, double *out) {
  int neg = 0;
  if (p->cur.type == '-') {
    neg = 1;
    if (tfx_pbtxt_advance(p)) return -1;
  }
  double v;
  if (p->cur.type == TFX_PBTXT_T_IDENT) {
    if (tfx_pbtxt_is_nocase(p, "inf") || tfx_pbtxt_is_nocase(p, "infinity")) v = INFINITY;
    else if (tfx_pbtxt_is_nocase(p, "nan")) v = NAN;
    else {
      tfx_pbtxt_expected(p, "a number");
      return -1;
    }
  } else if (p->cur.type == TFX_PBTXT_T_INT || p->cur.type == TFX_PBTXT_T_FLOAT) {
    const char *s = p->text + p->cur.off;
    size_t n = p->cur.len;
    if (*s == '-') {
      if (neg) {
        tfx_pbtxt_expected(p, "a number");
        return -1;
      }
      neg = 1, s++, n--;
    }
    if (p->cur.type == TFX_PBTXT_T_INT && n > 1 && s[0] == '0') {
      char got[64];
      tfx_pbtxt_show(p, &p->cur, got, sizeof got);
      tfx_pbtxt_err(p, &p->cur, "expected a decimal number, got %s", got);
      return -1;
    }
    if (n && (s[n - 1] == 'f' || s[n - 1] == 'F')) n--;
    char small[128], *buf = small;
    if (n >= sizeof small) {
      buf = tfx_malloc(n + 1);
      if (!buf) {
        tfx_pbtxt_oom(p, &p->cur, "out of memory");
        return -1;
      }
    }
    memcpy(buf, s, n);
    buf[n] = 0;
    v = strtod(buf, NULL); /* overflow gives HUGE_VAL = inf, as protoc does */
    if (buf != small) free(buf);
  } else {
    tfx_pbtxt_expected(p, "a number");
    return -1;
  }
  *out = neg ? -v : v;
  return tfx_pbtxt_advance(p);
}

static void tfx_pbtxt_utf8(tfx_strbuf *sb, uint32_t cp) {
  char b[4];
  size_t n;
  if (cp < 0x80) b[0] = (char)cp, n = 1;
  else if (cp < 0x800) b[0] = (char)(0xC0 | (cp >> 6)), b[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
  else if (cp < 0x10000)
    b[0] = (char)(0xE0 | (cp >> 12)), b[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
    b[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
  else
    b[0] = (char)(0xF0 | (cp >> 18)), b[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), b[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
  tfx_sb_add(sb, b, n);
}

static int tfx_pbtxt_hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Reads exactly n hex digits at s[*i..]; -1 when fewer are there. */
static long tfx_pbtxt_hexn(const char *s, size_t end, size_t *i, int n) {
  long v = 0;
  for (int k = 0; k < n; k++) {
    if (*i >= end || tfx_pbtxt_hexval(s[*i]) < 0) return -1;
    v = v * 16 + tfx_pbtxt_hexval(s[(*i)++]);
  }
  return v;
}

/* Appends the unescaped contents of the current string token to p->sb. */
static int tfx_pbtxt_unescape(tfx_pbtxt_parser *p) {
  const tfx_pbtxt_tok *t = &p->cur;
  const char *s = p->text + t->off;
  size_t end = t->len - 1; /* index of the closing quote */
  for (size_t i = 1; i < end;) {
    size_t run = i;
    while (run < end && s[run] != '\\') run++;
    tfx_sb_add(&p->sb, s + i, run - i);
    i = run;
    if (i >= end) break;
    size_t esc = i; /* the backslash */
    char c = s[++i];
    i++;
    char out;
    switch (c) {
    case 'n': out = '\n'; break;
    case 't': out = '\t'; break;
    case 'r': out = '\r'; break;
    case 'a': out = '\a'; break;
    case 'b': out = '\b'; break;
    case 'f': out = '\f'; break;
    case 'v': out = '\v'; break;
    case '\\': out = '\\'; break;
    case '\'': out = '\''; break;
    case '"': out = '"'; break;
    case '?': out = '?'; break;
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
      unsigned v = (unsigned)(c - '0');
      for (int k = 0; k < 2 && i < end && s[i] >= '0' && s[i] <= '7'; k++) v = v * 8 + (unsigned)(s[i++] - '0');
      out = (char)(v & 0xFF); /* protoc keeps the low 8 bits of \400..\777 */
      break;
    }
    case 'x': case 'X': {
      int h = i < end ? tfx_pbtxt_hexval(s[i]) : -1;
      if (h < 0) {
        tfx_pbtxt_tok e = *t;
        e.off += esc, e.col += (unsigned)esc, e.len = 2;
        tfx_pbtxt_err(p, &e, "expected hex digits for escape sequence");
        return -1;
      }
      unsigned v = (unsigned)h;
      i++;
      if (i < end && tfx_pbtxt_hexval(s[i]) >= 0) v = v * 16 + (unsigned)tfx_pbtxt_hexval(s[i++]);
      out = (char)v;
      break;
    }
    case 'u': case 'U': {
      long cp = tfx_pbtxt_hexn(s, end, &i, c == 'u' ? 4 : 8);
      if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= end && s[i] == '\\' && s[i + 1] == 'u') {
        size_t j = i + 2;
        long lo = tfx_pbtxt_hexn(s, end, &j, 4);
        if (lo >= 0xDC00 && lo <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          i = j;
        }
      }
      if (cp < 0 || cp > 0x10FFFF) {
        tfx_pbtxt_tok e = *t;
        e.off += esc, e.col += (unsigned)esc, e.len = 2;
        tfx_pbtxt_err(p, &e, "invalid unicode escape sequence in string literal");
        return -1;
      }
      tfx_pbtxt_utf8(&p->sb, (uint32_t)cp);
      continue;
    }
    default: {
      tfx_pbtxt_tok e = *t;
      e.off += esc, e.col += (unsigned)esc, e.len = 2;
      tfx_pbtxt_err(p, &e, "invalid escape sequence \"\\%c\" in string literal", c >= 0x20 && c < 0x7f ? c : '?');
      return -1;
    }
    }
    tfx_sb_putc(&p->sb, out);
  }
  return 0;
}

/* One string value: adjacent literals are concatenated ("a" 'b' -> "ab"), as protoc does. */
static int tfx_pbtxt_string_value(tfx_pbtxt_parser *p, const ProtobufCFieldDescriptor *f, void *slot) {
  if (p->cur.type != TFX_PBTXT_T_STRING) {
    tfx_pbtxt_expected(p, "string");
    return -1;
  }
  tfx_pbtxt_tok first = p->cur;
  tfx_sb_reset(&p->sb);
  while (p->cur.type == TFX_PBTXT_T_STRING) {
    if (tfx_pbtxt_unescape(p)) return -1;
    if (p->max_string && p->sb.len > p->max_string) {
      tfx_pbtxt_err(p, &first, "%s value of field \"%s\" longer than the limit of %zu bytes (raise "
                    "the string limit with --limit string=SIZE)",
                    f->type == PROTOBUF_C_TYPE_BYTES ? "bytes" : "string", f->name, p->max_string);
      return -1;
    }
    if (tfx_pbtxt_advance(p)) return -1;
  }
  if (p->sb.oom) {
    tfx_pbtxt_oom(p, &first, "out of memory");
    return -1;
  }
  size_t n = p->sb.len;
  char *copy = tfx_arena_alloc(p->arena, n + 1);
  if (!copy) {
    tfx_pbtxt_oom(p, &first, "out of memory");
    return -1;
  }
  if (n) memcpy(copy, p->sb.data, n);
  copy[n] = 0;
  if (f->type == PROTOBUF_C_TYPE_STRING) {
    if (memchr(copy, 0, n)) {
      tfx_warning(p->d, p->fname, first.line, first.col,
                  "string field \"%s\" contains a NUL byte; protobuf-c strings end at the first NUL, "
                  "so the value is truncated there", f->name);
      tfx_diag_set_source(p->d, p->text + first.off - (first.col - 1), first.col - 1 + first.len, (unsigned)first.len);
    }
    *(char **)slot = copy;
  } else {
    ProtobufCBinaryData *bd = slot;
    bd->len = n;
    bd->data = n ? (uint8_t *)copy : NULL;
  }
  return 0;
}

static int tfx_pbtxt_scalar(tfx_pbtxt_parser *p, tfx_pbtxt_frame *fr, const ProtobufCFieldDescriptor *f,
                            size_t idx) {
  union {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float fl;
    double db;
    protobuf_c_boolean b;
    int en;
  } v;
  memset(&v, 0, sizeof v);
  switch (f->type) {
  case PROTOBUF_C_TYPE_STRING:
  case PROTOBUF_C_TYPE_BYTES: {
    if (p->cur.type != TFX_PBTXT_T_STRING) {
      tfx_pbtxt_expected(p, "string");
      return -1;
    }
    void *slot = tfx_pbtxt_slot(p, fr, f, idx);
    return slot ? tfx_pbtxt_string_value(p, f, slot) : -1;
  }
  case PROTOBUF_C_TYPE_FLOAT:
  case PROTOBUF_C_TYPE_DOUBLE: {
    double dv;
    if (tfx_pbtxt_double_value(p, &dv)) return -1;
    if (f->type == PROTOBUF_C_TYPE_DOUBLE) v.db = dv;
    else if (dv > FLT_MAX) v.fl = INFINITY; /* protoc's SafeDoubleToFloat */
    else if (dv < -FLT_MAX) v.fl = -INFINITY;
    else v.fl = (float)dv;
    break;
  }
  case PROTOBUF_C_TYPE_BOOL: {
    if (tfx_pbtxt_is(p, "true") || tfx_pbtxt_is(p, "True") || tfx_pbtxt_is(p, "t")) v.b = 1;
    else if (tfx_pbtxt_is(p, "false") || tfx_pbtxt_is(p, "False") || tfx_pbtxt_is(p, "f")) v.b = 0;
    else if (p->cur.type == TFX_PBTXT_T_INT || p->cur.type == '-') {
      int64_t sv;
      uint64_t uv;
      const ProtobufCFieldDescriptor u = {.name = f->name, .type = PROTOBUF_C_TYPE_UINT64};
      tfx_pbtxt_tok at = p->cur;
      if (tfx_pbtxt_int_value(p, &u, &sv, &uv)) return -1;
      if (uv > 1) {
        tfx_pbtxt_err(p, &at, "integer out of range for boolean field \"%s\" (use 0, 1, true or false)", f->name);
        return -1;
      }
      v.b = (protobuf_c_boolean)uv;
      goto store;
    } else {
      char got[64];
      tfx_pbtxt_show(p, &p->cur, got, sizeof got);
      tfx_pbtxt_err(p, &p->cur, "invalid value for boolean field \"%s\": %s", f->name, got);
      return -1;
    }
    if (tfx_pbtxt_advance(p)) return -1;
    break;
  }
  case PROTOBUF_C_TYPE_ENUM: {
    const ProtobufCEnumDescriptor *ed = f->descriptor;
    if (p->cur.type == TFX_PBTXT_T_IDENT) {
      char name[256];
      const ProtobufCEnumValue *ev = NULL;
      if (p->cur.len < sizeof name) {
        memcpy(name, p->text + p->cur.off, p->cur.len);
        name[p->cur.len] = 0;
        ev = protobuf_c_enum_descriptor_get_value_by_name(ed, name);
      }
      if (!ev) {
        tfx_pbtxt_err(p, &p->cur, "unknown enumeration value of \"%.*s\" for field \"%s\" (enum %s)",
                      (int)(p->cur.len > 100 ? 100 : p->cur.len), p->text + p->cur.off, f->name,
                      ed->name);
        return -1;
      }
      v.en = ev->value;
      if (tfx_pbtxt_advance(p)) return -1;
    } else if (p->cur.type == TFX_PBTXT_T_INT || p->cur.type == '-') {
      int64_t sv;
      uint64_t uv;
      if (tfx_pbtxt_int_value(p, f, &sv, &uv)) return -1;
      v.en = (int)sv; /* proto3 enums are open: unknown numbers are kept */
    } else {
      tfx_pbtxt_expected(p, "an enum value name or number");
      return -1;
    }
    break;
  }
  default: { /* every integer type */
    int64_t sv;
    uint64_t uv;
    if (tfx_pbtxt_int_value(p, f, &sv, &uv)) return -1;
    if (tfx_pb_elem_size(f->type) == 4) {
      if (f->type == PROTOBUF_C_TYPE_UINT32 || f->type == PROTOBUF_C_TYPE_FIXED32) v.u32 = (uint32_t)uv;
      else v.i32 = (int32_t)sv;
    } else if (f->type == PROTOBUF_C_TYPE_UINT64 || f->type == PROTOBUF_C_TYPE_FIXED64) {
      v.u64 = uv;
    } else {
      v.i64 = sv;
    }
    break;
  }
  }
store:;
  void *slot = tfx_pbtxt_slot(p, fr, f, idx);
  if (!slot) return -1;
  memcpy(slot, &v, tfx_pb_elem_size(f->type));
  return 0;
}

/* ---- messages ---- */

static ProtobufCMessage *tfx_pbtxt_message(tfx_pbtxt_parser *p, const ProtobufCMessageDescriptor *desc,
                                           const tfx_pbtxt_tok *open, unsigned depth);

static int tfx_pbtxt_closer(int open) { return open == '{' ? '}' : open == '<' ? '>' : ']'; }

/* Skips the body of a message whose descriptor has no fields (an opaque placeholder), through
 * its closing delimiter (or to end of input at top level). Iterative; nesting still counts
 * against the depth limit. */
static int tfx_pbtxt_skip(tfx_pbtxt_parser *p, const tfx_pbtxt_tok *open, unsigned depth) {
  enum { MAXSTK = TFX_PBTXT_DEPTH_CAP + 1 };
  char *stk = tfx_malloc(MAXSTK);
  tfx_pbtxt_tok *opens = tfx_malloc(MAXSTK * sizeof *opens);
  int rc = -1;
  if (!stk || !opens) {
    tfx_pbtxt_oom(p, &p->cur, "out of memory");
    goto out;
  }
  size_t n = 0;
  if (open) {
    stk[n] = (char)tfx_pbtxt_closer(open->type);
    opens[n++] = *open;
  }
  for (;;) {
    int t = p->cur.type;
    if (t == TFX_PBTXT_T_EOF) {
      if (n == 0) { rc = 0; goto out; }
      tfx_pbtxt_err(p, &opens[n - 1], "\"%c\" is never closed (end of input reached)",
                    (char)opens[n - 1].type);
      goto out;
    }
    if (t == '{' || t == '<' || t == '[') {
      if (t != '[' && depth + n + (open ? 0 : 1) > p->max_depth) {
        tfx_pbtxt_err(p, &p->cur, "message nesting is deeper than the limit of %u (%s)", p->max_depth,
                      tfx_pbtxt_depth_hint(p));
        goto out;
      }
      if (n >= MAXSTK) {
        tfx_pbtxt_err(p, &p->cur, "nesting is too deep");
        goto out;
      }
      stk[n] = (char)tfx_pbtxt_closer(t);
      opens[n++] = p->cur;
    } else if (t == '}' || t == '>' || t == ']') {
      if (n == 0 || stk[n - 1] != t) {
        if (n == 0) tfx_pbtxt_err(p, &p->cur, "unexpected \"%c\"", t);
        else
          tfx_pbtxt_err(p, &p->cur, "expected \"%c\" to close \"%c\" at %u:%u, got \"%c\"", stk[n - 1],
                        (char)opens[n - 1].type, opens[n - 1].line, opens[n - 1].col, t);
        goto out;
      }
      n--;
      if (n == 0 && open) {
        rc = tfx_pbtxt_advance(p);
        goto out;
      }
    }
    if (tfx_pbtxt_advance(p)) goto out;
  }
out:
  free(stk);
  free(opens);
  return rc;
}

/* A message value at the current '{' or '<'. Stores the new message through slot. */
static int tfx_pbtxt_submessage(tfx_pbtxt_parser *p, tfx_pbtxt_frame *fr, const ProtobufCFieldDescriptor *f,
                                size_t idx, unsigned depth) {
  if (p->cur.type != '{' && p->cur.type != '<') {
    tfx_pbtxt_expected(p, "\"{\" or \"<\"");
    return -1;
  }
  if (depth + 1 > p->max_depth) {
    tfx_pbtxt_err(p, &p->cur, "message nesting is deeper than the limit of %u (%s)", p->max_depth,
                      tfx_pbtxt_depth_hint(p));
    return -1;
  }
  tfx_pbtxt_tok open = p->cur;
  if (tfx_pbtxt_advance(p)) return -1;
  ProtobufCMessage *sub = tfx_pbtxt_message(p, f->descriptor, &open, depth + 1);
  if (!sub) return -1;
  ProtobufCMessage **slot = tfx_pbtxt_slot(p, fr, f, idx);
  if (!slot) return -1;
  *slot = sub;
  return 0;
}

static int tfx_pbtxt_field(tfx_pbtxt_parser *p, tfx_pbtxt_frame *fr, unsigned depth) {
  const ProtobufCMessageDescriptor *desc = fr->desc;
  tfx_pbtxt_tok name = p->cur;
  if (name.type == '[') {
    if (strcmp(desc->name, "google.protobuf.Any") == 0)
      tfx_pbtxt_err(p, &name, "the expanded google.protobuf.Any form \"[type_url] { ... }\" is not "
                              "supported; write the type_url and value fields instead");
    else
      tfx_pbtxt_err(p, &name, "extension fields (\"[name]\") are not supported in message type \"%s\"",
                    desc->name);
    return -1;
  }
  if (name.type != TFX_PBTXT_T_IDENT) {
    tfx_pbtxt_expected(p, "a field name");
    return -1;
  }
  const ProtobufCFieldDescriptor *f = NULL;
  const char *nm = p->text + name.off;
  for (unsigned k = fr->hint; k < desc->n_fields && k <= fr->hint + 1u; k++) {
    const char *fn = desc->fields[k].name; /* fields in message order: try the last and the next */
    if (strncmp(fn, nm, name.len) == 0 && fn[name.len] == 0) {
      f = &desc->fields[k];
      break;
    }
  }
  char buf[256];
  if (!f && name.len < sizeof buf) {
    memcpy(buf, nm, name.len);
    buf[name.len] = 0;
    f = protobuf_c_message_descriptor_get_field_by_name(desc, buf);
  }
  if (!f) {
    tfx_pbtxt_err(p, &name, "message type \"%s\" has no field named \"%.*s\"", desc->name,
                  (int)(name.len > 100 ? 100 : name.len), p->text + name.off);
    return -1;
  }
  size_t idx = (size_t)(f - desc->fields);
  fr->hint = (unsigned)idx;
  if (f->label != PROTOBUF_C_LABEL_REPEATED) {
    if (tfx_pbtxt_has(fr, f, idx)) {
      tfx_pbtxt_err(p, &name, "non-repeated field \"%s\" is specified multiple times", f->name);
      return -1;
    }
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
      uint32_t other = *(const uint32_t *)((const char *)fr->msg + f->quantifier_offset);
      if (other) {
        const ProtobufCFieldDescriptor *of = protobuf_c_message_descriptor_get_field(desc, other);
        tfx_pbtxt_err(p, &name, "field \"%s\" is specified along with field \"%s\", another member of the same oneof",
                      f->name, of ? of->name : "?");
        return -1;
      }
    }
  }
  if (tfx_pbtxt_advance(p)) return -1;
  int colon = p->cur.type == ':';
  if (colon && tfx_pbtxt_advance(p)) return -1;
  int is_msg = f->type == PROTOBUF_C_TYPE_MESSAGE;
  if (!is_msg && !colon) {
    tfx_pbtxt_expected(p, "\":\"");
    return -1;
  }
  if (p->cur.type == '[') {
    tfx_pbtxt_tok lb = p->cur;
    if (f->label != PROTOBUF_C_LABEL_REPEATED) {
      tfx_pbtxt_err(p, &lb, "field \"%s\" is not repeated: a [list] value is not allowed", f->name);
      return -1;
    }
    if (tfx_pbtxt_advance(p)) return -1;
    if (p->cur.type != ']') {
      for (;;) {
        if ((is_msg ? tfx_pbtxt_submessage(p, fr, f, idx, depth) : tfx_pbtxt_scalar(p, fr, f, idx))) return -1;
        if (p->cur.type == ']') break;
        if (p->cur.type != ',') {
          tfx_pbtxt_expected(p, "\",\" or \"]\"");
          return -1;
        }
        if (tfx_pbtxt_advance(p)) return -1;
      }
    }
    fr->seen[idx] = 1;
    if (tfx_pbtxt_advance(p)) return -1;
  } else if (is_msg) {
    if (tfx_pbtxt_submessage(p, fr, f, idx, depth)) return -1;
  } else {
    if (tfx_pbtxt_scalar(p, fr, f, idx)) return -1;
  }
  if ((p->cur.type == ';' || p->cur.type == ',') && tfx_pbtxt_advance(p)) return -1;
  return 0;
}

/* The scratch of nesting depth `depth`, with room for n fields (NULL: out of memory). */
static tfx_pbtxt_level *tfx_pbtxt_level_at(tfx_pbtxt_parser *p, unsigned depth, size_t n) {
  if (depth >= p->n_lv) {
    unsigned nn = depth + 8;
    tfx_pbtxt_level *nl = tfx_realloc(p->lv, (size_t)nn * sizeof *nl);
    if (!nl) return NULL;
    memset(nl + p->n_lv, 0, (size_t)(nn - p->n_lv) * sizeof *nl);
    p->lv = nl;
    p->n_lv = nn;
  }
  tfx_pbtxt_level *lv = &p->lv[depth];
  if (lv->cap < n) {
    size_t nc = n < 8 ? 8 : n;
    tfx_pbtxt_rep *nr = tfx_realloc(lv->reps, nc * sizeof *nr);
    if (!nr) return NULL;
    memset(nr + lv->cap, 0, (nc - lv->cap) * sizeof *nr);
    lv->reps = nr;
    unsigned char *ns = tfx_realloc(lv->seen, nc);
    if (!ns) return NULL;
    lv->seen = ns;
    lv->cap = nc;
  }
  return lv;
}

static void tfx_pbtxt_levels_free(tfx_pbtxt_parser *p) {
  for (unsigned i = 0; i < p->n_lv; i++) {
    for (size_t k = 0; k < p->lv[i].cap; k++) free(p->lv[i].reps[k].data);
    free(p->lv[i].reps);
    free(p->lv[i].seen);
  }
  free(p->lv);
  p->lv = NULL;
  p->n_lv = 0;
}

/* Moves the repeated temporaries into the arena (their buffers stay with the level). */
static int tfx_pbtxt_finish(tfx_pbtxt_parser *p, tfx_pbtxt_frame *fr, int ok) {
  const ProtobufCMessageDescriptor *desc = fr->desc;
  for (unsigned i = 0; i < desc->n_fields; i++) {
    tfx_pbtxt_rep *r = &fr->reps[i];
    const ProtobufCFieldDescriptor *f = &desc->fields[i];
    if (ok && r->n) {
      size_t esz = tfx_pb_elem_size(f->type);
      void *arr = tfx_arena_calloc(p->arena, r->n, esz);
      if (!arr) {
        tfx_pbtxt_oom(p, &p->cur, "out of memory");
        ok = 0;
      } else {
        memcpy(arr, r->data, r->n * esz);
        *(size_t *)((char *)fr->msg + f->quantifier_offset) = r->n;
        *(void **)((char *)fr->msg + f->offset) = arr;
      }
    }
    r->n = 0; /* the buffer stays with the level for the next message */
  }
  return ok ? 0 : -1;
}

/* The body of one message, after its opening delimiter (open NULL at top level), through its
 * closing delimiter. */
static ProtobufCMessage *tfx_pbtxt_message(tfx_pbtxt_parser *p, const ProtobufCMessageDescriptor *desc,
                                           const tfx_pbtxt_tok *open, unsigned depth) {
  ProtobufCMessage *msg = tfx_arena_alloc(p->arena, desc->sizeof_message);
  if (!msg) {
    tfx_pbtxt_oom(p, &p->cur, "out of memory");
    return NULL;
  }
  desc->message_init(msg);
  if (desc->n_fields == 0) return tfx_pbtxt_skip(p, open, depth) ? NULL : msg;

  tfx_pbtxt_level *lv = tfx_pbtxt_level_at(p, depth, desc->n_fields);
  if (!lv) {
    tfx_pbtxt_oom(p, &p->cur, "out of memory");
    return NULL;
  }
  tfx_pbtxt_frame fr = {desc, msg, lv->reps, lv->seen, 0};
  memset(fr.seen, 0, desc->n_fields);
  int close = open ? tfx_pbtxt_closer(open->type) : TFX_PBTXT_T_EOF;
  int ok = 0;
  for (;;) {
    int t = p->cur.type;
    if (t == close) break;
    if (t == TFX_PBTXT_T_EOF) {
      tfx_pbtxt_err(p, open, "\"%c\" is never closed (end of input reached)", (char)open->type);
      goto done;
    }
    if (t == '}' || t == '>') {
      if (open)
        tfx_pbtxt_err(p, &p->cur, "expected \"%c\" to close \"%c\" at %u:%u, got \"%c\"", close,
                      (char)open->type, open->line, open->col, t);
      else
        tfx_pbtxt_err(p, &p->cur, "unexpected \"%c\" (no message is open here)", t);
      goto done;
    }
    if (tfx_pbtxt_field(p, &fr, depth)) goto done;
  }
  for (unsigned i = 0; i < desc->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &desc->fields[i];
    if (f->label == PROTOBUF_C_LABEL_REQUIRED && !fr.seen[i]) {
      tfx_pbtxt_err(p, open ? open : &p->cur, "message type \"%s\" is missing required field \"%s\"",
                    desc->name, f->name);
      goto done;
    }
  }
  ok = 1;
done:
  ok = tfx_pbtxt_finish(p, &fr, ok) == 0 && ok;
  if (!ok) return NULL;
  if (open && tfx_pbtxt_advance(p)) return NULL;
  return msg;
}

/* The whole parse, with the landing point for flex's allocation failures (YY_FATAL_ERROR). All
 * scratch a parse holds is owned by *p (levels, string buffer, scanner blocks) and messages live
 * in the arena, so jumping out of any depth leaks nothing. Only p, which is not modified here,
 * is used after the jump. */
static ProtobufCMessage *tfx_pbtxt_run(tfx_pbtxt_parser *p, const ProtobufCMessageDescriptor *desc) {
  jmp_buf jb;
  p->scan.oom_jmp = &jb;
  if (setjmp(jb)) {
    p->oom = 1;
    return NULL;
  }
  ProtobufCMessage *msg = NULL;
  if (tfx_pbtxt_advance(p) == 0) msg = tfx_pbtxt_message(p, desc, NULL, 0);
  p->scan.oom_jmp = NULL;
  return msg;
}

ProtobufCMessage *tfx_pbtxt_parse(const ProtobufCMessageDescriptor *desc, const char *text, size_t len,
                                  const char *fname, tfx_arena *arena, const tfx_pbtxt_limits *limits,
                                  tfx_diag *d) {
  tfx_status st;
  return tfx_pbtxt_parse_st(desc, text, len, fname, arena, limits, &st, d);
}

ProtobufCMessage *tfx_pbtxt_parse_st(const ProtobufCMessageDescriptor *desc, const char *text,
                                     size_t len, const char *fname, tfx_arena *arena,
                                     const tfx_pbtxt_limits *limits, tfx_status *st, tfx_diag *d) {
  *st = TFX_E_INPUT;
  tfx_pbtxt_parser p;
  memset(&p, 0, sizeof p);
  p.text = text ? text : "";
  p.len = text ? len : 0;
  p.fname = fname ? fname : "<input>";
  p.arena = arena;
  p.d = d;
  p.max_depth = limits && limits->max_depth ? limits->max_depth : 100;
  if (p.max_depth > TFX_PBTXT_DEPTH_CAP) p.max_depth = TFX_PBTXT_DEPTH_CAP;
  p.max_string = limits ? limits->max_string : 0;
  p.max_list = limits ? limits->max_list : 0;
  tfx_sb_init(&p.sb);
  if (p.len > (size_t)INT32_MAX) { /* flex token lengths are ints */
    tfx_error(d, p.fname, 0, 0, "text input of %zu bytes is larger than the 2 GiB text-format limit", p.len);
    return NULL;
  }
  tfx_pbtxt_scan_init(&p.scan, p.text, p.len);
  if (tfx_pbtxt_yylex_init_extra(&p.scan, &p.yy) != 0) {
    tfx_error(d, p.fname, 0, 0, "out of memory");
    tfx_pbtxt_scan_release(&p.scan);
    *st = TFX_E_NOMEM;
    return NULL;
  }
  ProtobufCMessage *msg = tfx_pbtxt_run(&p, desc);
  if (p.oom) {
    tfx_pbtxt_tok t = {TFX_PBTXT_T_OOM, p.scan.off, 0, p.scan.line,
                       (unsigned)(p.scan.off - p.scan.line_start + 1)};
    p.failed = 0;
    tfx_pbtxt_oom(&p, &t, "out of memory while scanning");
    msg = NULL;
  }
  tfx_pbtxt_yylex_destroy(p.yy);
  tfx_pbtxt_scan_release(&p.scan);
  tfx_sb_free(&p.sb);
  tfx_pbtxt_levels_free(&p);
  if (p.failed) {
    if (p.nomem) *st = TFX_E_NOMEM;
    return NULL;
  }
  *st = TFX_OK;
  return msg;
}
