/* CANN op prototypes: the cann-ops TSV reader, lookups, "did you mean" and the embedded table.
 * Stage: cann (data only). Input: the text of a cann-ops TSV (docs/ASCEND.md §8.2: columns
 * name, inputs, outputs, attrs, source). Output: a tfx_cann_table whose ops, ports, attrs and
 * parsed defaults all live in the table's arena, with a name -> index hash map. Merged tables
 * (user prototype files over the stdlib's, tfx_cann_add / tfx_cann_add_base) register ops
 * first-wins and report overrides like rules do (-Woverride). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "cann/cann_int.h"
#include "stdlib_embed.h"
#include "util/status.h"

/* ---------------------------------------------------------------- data types */

/* C++ ge::DataType (docs/AIR.md §3.1); index = number. */
static const char *const ge_dtypes[] = {
  "DT_FLOAT", "DT_FLOAT16", "DT_INT8", "DT_INT32", "DT_UINT8", NULL, "DT_INT16", "DT_UINT16",
  "DT_UINT32", "DT_INT64", "DT_UINT64", "DT_DOUBLE", "DT_BOOL", "DT_STRING", "DT_DUAL_SUB_INT8",
  "DT_DUAL_SUB_UINT8", "DT_COMPLEX64", "DT_COMPLEX128", "DT_QINT8", "DT_QINT16", "DT_QINT32",
  "DT_QUINT8", "DT_QUINT16", "DT_RESOURCE", "DT_STRING_REF", "DT_DUAL", "DT_VARIANT", "DT_BF16",
  "DT_UNDEFINED", "DT_INT4", "DT_UINT1", "DT_INT2", "DT_UINT2", "DT_COMPLEX32", "DT_HIFLOAT8",
  "DT_FLOAT8_E5M2", "DT_FLOAT8_E4M3FN", "DT_FLOAT8_E8M0", "DT_FLOAT6_E3M2", "DT_FLOAT6_E2M3",
  "DT_FLOAT4_E2M1", "DT_FLOAT4_E1M2", "DT_HIFLOAT4",
};
_Static_assert(sizeof ge_dtypes / sizeof ge_dtypes[0] == 43, "ge::DataType 0..42");

int tfx_cann_dtype(const char *name, size_t n) {
  for (int i = 0; i < (int)(sizeof ge_dtypes / sizeof ge_dtypes[0]); i++)
    if (ge_dtypes[i] && strlen(ge_dtypes[i]) == n && memcmp(ge_dtypes[i], name, n) == 0) return i;
  return -1;
}

const char *tfx_cann_dtype_name(int ge_dtype) {
  if (ge_dtype < 0 || ge_dtype >= (int)(sizeof ge_dtypes / sizeof ge_dtypes[0])) return NULL;
  return ge_dtypes[ge_dtype];
}

/* ---------------------------------------------------------------- default literals */

static const char *const attr_type_names[] = {
  "Int", "Float", "Bool", "String", "Type", "Tensor", "ListInt", "ListFloat", "ListBool",
  "ListString", "ListType", "ListListInt", "GRAPH", "DYNAMIC_GRAPH",
};
_Static_assert(sizeof attr_type_names / sizeof attr_type_names[0] == TFX_CANN_A__COUNT,
               "one name per tfx_cann_attr_type");

enum { LIT_OK = 0, LIT_BAD = -1, LIT_OOM = -2 };

/* Scalar element kinds of literals. */
typedef enum { EL_INT, EL_FLOAT, EL_BOOL, EL_STR, EL_TYPE } elem_kind;

typedef struct lit {
  tfx_arena *a;
  const char *s, *end; /* the literal */
  const char *p;       /* cursor */
  const char *bad;     /* where a LIT_BAD literal goes wrong */
  const char *why;     /* what was expected there */
} lit;

static int bad(lit *l, const char *at, const char *why) {
  l->bad = at;
  l->why = why;
  return LIT_BAD;
}

static int parse_int(lit *l, tfx_span tok, int64_t *out) {
  if (tok.n > 3 && memcmp(tok.s, "DT_", 3) == 0) {
    int dt = tfx_cann_dtype(tok.s, tok.n);
    if (dt < 0) return bad(l, tok.s, "a known DT_* data type");
    *out = dt;
    return LIT_OK;
  }
  size_t i = 0;
  int neg = 0;
  if (i < tok.n && tok.s[i] == '-') neg = 1, i++;
  int base = 10;
  if (i + 1 < tok.n && tok.s[i] == '0' && (tok.s[i + 1] == 'x' || tok.s[i + 1] == 'X')) base = 16, i += 2;
  if (i >= tok.n) return bad(l, tok.s, "an integer");
  uint64_t v = 0;
  for (; i < tok.n; i++) {
    char c = tok.s[i];
    int d = c >= '0' && c <= '9' ? c - '0'
            : base == 16 && c >= 'a' && c <= 'f' ? c - 'a' + 10
            : base == 16 && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return bad(l, tok.s, "an integer");
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) return bad(l, tok.s, "an integer in 64-bit range");
    v = v * (uint64_t)base + (uint64_t)d;
  }
  if (v > (uint64_t)INT64_MAX + (uint64_t)neg) return bad(l, tok.s, "an integer in 64-bit range");
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return LIT_OK;
}

static int strtod_span(tfx_span tok, double *out) {
  char buf[64];
  if (tok.n == 0 || tok.n >= sizeof buf) return -1;
  memcpy(buf, tok.s, tok.n);
  buf[tok.n] = 0;
  if (buf[0] == ' ' || buf[0] == '\t' || buf[0] == '\n') return -1;
  char *e;
  errno = 0;
  double v = strtod(buf, &e);
  if (*e || e == buf) return -1;
  *out = v;
  return 0;
}

/* A float, or `a/b` (C source like `1./4` that the extraction kept). */
static int parse_float(lit *l, tfx_span tok, double *out) {
  long slash = tfx_span_find(tok, 1, '/');
  if (slash > 0) {
    double a, b;
    if (strtod_span((tfx_span){tok.s, (size_t)slash}, &a) != 0 ||
        strtod_span((tfx_span){tok.s + slash + 1, tok.n - (size_t)slash - 1}, &b) != 0 || b == 0)
      return bad(l, tok.s, "a number");
    *out = a / b;
    return LIT_OK;
  }
  if (strtod_span(tok, out) != 0) return bad(l, tok.s, "a number");
  return LIT_OK;
}

/* The extent of one scalar token at l->p: a quoted string (for EL_STR) or up to a space or
 * ']' (inside a list) / the end. */
static int scalar_token(lit *l, elem_kind k, int in_list, tfx_span *tok) {
  const char *s = l->p;
  if (k == EL_STR) {
    if (s >= l->end || *s != '"') return bad(l, s, "a quoted string");
    const char *q = s + 1;
    while (q < l->end && *q != '"') q += *q == '\\' && q + 1 < l->end ? 2 : 1;
    if (q >= l->end) return bad(l, s, "a closing '\"'");
    l->p = q + 1;
  } else {
    const char *q = s;
    while (q < l->end && !(in_list && (*q == ' ' || *q == ']'))) q++;
    l->p = q;
  }
  tok->s = s;
  tok->n = (size_t)(l->p - s);
  return tok->n ? LIT_OK : bad(l, s, "a value");
}

static int parse_scalar(lit *l, elem_kind k, int in_list, tfx_value *out) {
  tfx_span tok;
  int rc = scalar_token(l, k, in_list, &tok);
  if (rc != LIT_OK) return rc;
  switch (k) {
    case EL_INT: {
      int64_t v;
      if ((rc = parse_int(l, tok, &v)) != LIT_OK) return rc;
      *out = tfx_v_int(v);
      return LIT_OK;
    }
    case EL_FLOAT: {
      double v;
      if ((rc = parse_float(l, tok, &v)) != LIT_OK) return rc;
      *out = tfx_v_float(v);
      return LIT_OK;
    }
    case EL_BOOL:
      if (tfx_span_eq(tok, "true")) *out = tfx_v_bool(1);
      else if (tfx_span_eq(tok, "false")) *out = tfx_v_bool(0);
      else return bad(l, tok.s, "true or false");
      return LIT_OK;
    case EL_TYPE: {
      int dt = tfx_cann_dtype(tok.s, tok.n);
      if (dt < 0) return bad(l, tok.s, "a known DT_* data type");
      *out = tfx_v_dtype(dt);
      return LIT_OK;
    }
    case EL_STR: {
      size_t n;
      const char *badesc;
      char *s = tfx_unescape(l->a, (tfx_span){tok.s + 1, tok.n - 2}, &n, &badesc);
      if (!s) return badesc ? bad(l, badesc, "a known escape (\\xHH \\t \\n \\r \\\\ \\\" \\' \\0)") : LIT_OOM;
      if (n > UINT32_MAX) return bad(l, tok.s, "a shorter string");
      *out = tfx_v_str(s, (uint32_t)n);
      return LIT_OK;
    }
  }
  return bad(l, tok.s, "a value");
}

/* `[a b c]` (nesting levels of lists; 2 for ListListInt) at l->p. */
static int parse_list(lit *l, elem_kind k, int levels, tfx_value *out) {
  if (l->p >= l->end || *l->p != '[') return bad(l, l->p, "'['");
  l->p++;
  tfx_value *items = NULL;
  size_t n = 0, cap = 0;
  int rc = LIT_OK;
  for (;;) {
    while (l->p < l->end && *l->p == ' ') l->p++;
    if (l->p >= l->end) {
      rc = bad(l, l->p, "']'");
      break;
    }
    if (*l->p == ']') {
      l->p++;
      break;
    }
    if (n == cap) {
      size_t nc = cap ? cap * 2 : 8;
      tfx_value *ni = tfx_realloc(items, nc * sizeof *ni);
      if (!ni) {
        rc = LIT_OOM;
        break;
      }
      items = ni;
      cap = nc;
    }
    rc = levels > 1 ? parse_list(l, k, levels - 1, &items[n]) : parse_scalar(l, k, 1, &items[n]);
    if (rc != LIT_OK) break;
    n++;
    if (l->p < l->end && *l->p != ' ' && *l->p != ']') {
      rc = bad(l, l->p, "' ' or ']' between list items");
      break;
    }
  }
  if (rc == LIT_OK) {
    tfx_value *copy = NULL;
    if (n) {
      copy = tfx_arena_alloc(l->a, n * sizeof *copy);
      if (!copy) rc = LIT_OOM;
      else memcpy(copy, items, n * sizeof *copy);
    }
    if (rc == LIT_OK) *out = tfx_v_list(copy, (uint32_t)n);
  }
  free(items);
  return rc;
}

/* Parses the default literal of an attribute of type ty into out. */
static int parse_default(lit *l, tfx_cann_attr_type ty, tfx_value *out) {
  static const elem_kind elem[] = {
    [TFX_CANN_A_INT] = EL_INT, [TFX_CANN_A_FLOAT] = EL_FLOAT, [TFX_CANN_A_BOOL] = EL_BOOL,
    [TFX_CANN_A_STRING] = EL_STR, [TFX_CANN_A_TYPE] = EL_TYPE, [TFX_CANN_A_LIST_INT] = EL_INT,
    [TFX_CANN_A_LIST_FLOAT] = EL_FLOAT, [TFX_CANN_A_LIST_BOOL] = EL_BOOL,
    [TFX_CANN_A_LIST_STRING] = EL_STR, [TFX_CANN_A_LIST_TYPE] = EL_TYPE,
    [TFX_CANN_A_LIST_LIST_INT] = EL_INT,
  };
  tfx_span all = {l->s, (size_t)(l->end - l->s)};
  int rc;
  switch (ty) {
    case TFX_CANN_A_TENSOR:
      *out = tfx_v_none(); /* kept as text in def only */
      return LIT_OK;
    case TFX_CANN_A_GRAPH:
    case TFX_CANN_A_DYNAMIC_GRAPH:
      return bad(l, l->s, "no default (a subgraph has none)");
    case TFX_CANN_A_LIST_INT:
      if (tfx_span_eq(all, "UNKNOWN_RANK") || tfx_span_eq(all, "UNKNOWN_SHAPE")) {
        tfx_value *v = tfx_arena_alloc(l->a, sizeof *v);
        if (!v) return LIT_OOM;
        *v = tfx_v_int(all.n == 12 ? -2 : -1);
        *out = tfx_v_list(v, 1);
        return LIT_OK;
      }
      /* fall through */
    case TFX_CANN_A_LIST_FLOAT:
    case TFX_CANN_A_LIST_BOOL:
    case TFX_CANN_A_LIST_STRING:
    case TFX_CANN_A_LIST_TYPE:
    case TFX_CANN_A_LIST_LIST_INT:
      rc = parse_list(l, elem[ty], ty == TFX_CANN_A_LIST_LIST_INT ? 2 : 1, out);
      break;
    default:
      rc = parse_scalar(l, elem[ty], 0, out);
      break;
  }
  if (rc == LIT_OK && l->p != l->end) rc = bad(l, l->p, "the end of the default");
  return rc;
}

/* ---------------------------------------------------------------- the reader */

static char *keep(tfx_arena *a, tfx_span s) { return tfx_arena_strndup(a, s.s, s.n); }

static size_t count_items(tfx_span col) {
  if (col.n == 0) return 0;
  size_t n = 1;
  for (size_t i = 0; i < col.n; i++) n += col.s[i] == ',';
  return n;
}

/* Reads the ports of one column. Returns 0, -1 (reported) or -2 (out of memory). */
static int read_ports(tfx_tsv *t, tfx_arena *a, tfx_span col, int outputs, tfx_cann_port **out,
                      uint32_t *n_out) {
  size_t cap = count_items(col);
  *out = NULL;
  *n_out = 0;
  if (!cap) return 0;
  if (cap > UINT32_MAX) return -2;
  tfx_cann_port *ports = tfx_arena_calloc(a, cap, sizeof *ports);
  if (!ports) return -2;
  const char *what = outputs ? "output" : "input";
  tfx_items it;
  tfx_items_init(&it, col);
  tfx_span item;
  uint32_t n = 0;
  while (tfx_items_next(&it, &item)) {
    long c1 = tfx_span_find(item, 0, ':'), c2 = c1 >= 0 ? tfx_span_find(item, (size_t)c1 + 1, ':') : -1;
    if (c2 < 0) {
      tfx_tsv_error(t, item.s, "%s '%.*s' is not 'name:kind:dtypes'", what, (int)item.n, item.s);
      return -1;
    }
    tfx_span name = {item.s, (size_t)c1}, kind = {item.s + c1 + 1, (size_t)(c2 - c1 - 1)};
    tfx_span dts = {item.s + c2 + 1, item.n - (size_t)c2 - 1};
    if (!tfx_span_is_ident(name)) {
      tfx_tsv_error(t, item.s, "%s name '%.*s' is not an identifier", what, (int)name.n, name.s);
      return -1;
    }
    uint8_t k;
    if (tfx_span_eq(kind, "req")) k = TFX_CANN_REQ;
    else if (tfx_span_eq(kind, "opt") && !outputs) k = TFX_CANN_OPT;
    else if (tfx_span_eq(kind, "dyn")) k = TFX_CANN_DYN;
    else {
      tfx_tsv_error(t, kind.s, "unknown %s kind '%.*s' (%s)", what, (int)kind.n, kind.s,
                    outputs ? "req or dyn" : "req, opt or dyn");
      return -1;
    }
    for (uint32_t i = 0; i < n; i++)
      if (strlen(ports[i].name) == name.n && memcmp(ports[i].name, name.s, name.n) == 0) {
        tfx_tsv_error(t, item.s, "duplicate %s '%.*s'", what, (int)name.n, name.s);
        return -1;
      }
    ports[n].name = keep(a, name);
    ports[n].dtypes = keep(a, dts);
    ports[n].kind = k;
    if (!ports[n].name || !ports[n].dtypes) return -2;
    n++;
  }
  *out = ports;
  *n_out = n;
  return 0;
}

static int read_attrs(tfx_tsv *t, tfx_arena *a, tfx_span col, tfx_cann_attr **out, uint32_t *n_out) {
  size_t cap = count_items(col);
  *out = NULL;
  *n_out = 0;
  if (!cap) return 0;
  if (cap > UINT32_MAX) return -2;
  tfx_cann_attr *attrs = tfx_arena_calloc(a, cap, sizeof *attrs);
  if (!attrs) return -2;
  tfx_items it;
  tfx_items_init(&it, col);
  tfx_span item;
  uint32_t n = 0;
  while (tfx_items_next(&it, &item)) {
    long c = tfx_span_find(item, 0, ':');
    if (c < 0) {
      tfx_tsv_error(t, item.s, "attribute '%.*s' is not 'name:Type[=default]'", (int)item.n, item.s);
      return -1;
    }
    tfx_span name = {item.s, (size_t)c};
    long eq = tfx_span_find(item, (size_t)c + 1, '=');
    tfx_span type = {item.s + c + 1, (size_t)((eq >= 0 ? eq : (long)item.n) - c - 1)};
    if (!tfx_span_is_ident(name)) {
      tfx_tsv_error(t, item.s, "attribute name '%.*s' is not an identifier", (int)name.n, name.s);
      return -1;
    }
    int ty = -1;
    for (int i = 0; i < TFX_CANN_A__COUNT && ty < 0; i++)
      if (tfx_span_eq(type, attr_type_names[i])) ty = i;
    if (ty < 0) {
      tfx_tsv_error(t, type.s, "unknown attribute type '%.*s' (Int Float Bool String Type Tensor ListInt "
                    "ListFloat ListBool ListString ListType ListListInt GRAPH DYNAMIC_GRAPH)",
                    (int)type.n, type.s);
      return -1;
    }
    for (uint32_t i = 0; i < n; i++)
      if (strlen(attrs[i].name) == name.n && memcmp(attrs[i].name, name.s, name.n) == 0) {
        tfx_tsv_error(t, item.s, "duplicate attribute '%.*s'", (int)name.n, name.s);
        return -1;
      }
    tfx_cann_attr *at = &attrs[n];
    at->name = keep(a, name);
    if (!at->name) return -2;
    at->type = (uint8_t)ty;
    at->value = tfx_v_none();
    if (eq < 0) {
      at->required = ty != TFX_CANN_A_GRAPH && ty != TFX_CANN_A_DYNAMIC_GRAPH;
    } else {
      tfx_span def = {item.s + eq + 1, item.n - (size_t)eq - 1};
      lit l = {a, def.s, def.s + def.n, def.s, NULL, NULL};
      int rc = parse_default(&l, (tfx_cann_attr_type)ty, &at->value);
      if (rc == LIT_OOM) return -2;
      if (rc != LIT_OK) {
        tfx_tsv_error(t, l.bad ? l.bad : def.s, "bad default '%.*s' for %s attribute '%.*s': expected %s",
                      (int)def.n, def.s, attr_type_names[ty], (int)name.n, name.s, l.why ? l.why : "a value");
        return -1;
      }
      if (!(at->def = keep(a, def))) return -2;
    }
    n++;
  }
  *out = attrs;
  *n_out = n;
  return 0;
}

static size_t count_lines(const char *text, size_t len) {
  size_t n = 1;
  for (const char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))) != NULL; p++) n++;
  return n;
}

/* Makes room for extra more ops (array and hash map). Returns 0 or -1 (out of memory). */
static int reserve_ops(tfx_cann_table *t, size_t extra) {
  size_t need = (size_t)t->n_ops + extra;
  if (need > UINT32_MAX) return -1;
  if (need > t->cap_ops) {
    tfx_cann_op *ops = tfx_arena_calloc(&t->arena, need, sizeof *ops);
    if (!ops) return -1;
    if (t->n_ops) memcpy(ops, t->ops, (size_t)t->n_ops * sizeof *ops);
    t->ops = ops;
    t->cap_ops = (uint32_t)need;
  }
  return need && tfx_hmap_reserve(&t->by_name, need) != 0 ? -1 : 0;
}

/* Reports that the op called name at file:line is ignored for first. Returns 1 when the
 * report is an error. */
static int report_override(tfx_diag *d, tfx_cann_override ov, const char *name, const char *file,
                           unsigned line, const tfx_cann_op *first) {
  if (ov == TFX_CANN_OV_QUIET) return 0;
  int err = ov == TFX_CANN_OV_ERROR;
  tfx_diag_add(d, err ? TFX_SEV_ERROR : TFX_SEV_WARNING, file, line, 1,
               "CANN prototype '%s' is ignored: the one at %s:%u:1 was registered first [-W%soverride]",
               name, first->file ? first->file : "?", (unsigned)first->line, err ? "error=" : "");
  return err || d->werror;
}

void tfx_cann_init(tfx_cann_table *t) {
  memset(t, 0, sizeof *t);
  tfx_arena_init(&t->arena);
  tfx_hmap_init(&t->by_name);
}

tfx_status tfx_cann_add(tfx_cann_table *t, const char *text, size_t len, const char *fname,
                        tfx_cann_override ov, tfx_diag *d) {
  if (!text) len = 0;
  tfx_tsv r;
  tfx_tsv_init(&r, text, len, fname, d);
  const char *file = tfx_arena_strdup(&t->arena, r.fname);
  if (!file || reserve_ops(t, len ? count_lines(text, len) : 0) != 0) {
    tfx_tsv_oom(&r);
    return TFX_E_NOMEM;
  }
  const uint32_t first = t->n_ops; /* ops of this text are first.. */
  size_t ov_errors = 0;
  tfx_span line, col[TFX_TSV_MAX_COLS];
  int oom = 0;
  while (!oom && tfx_tsv_next(&r, &line)) {
    if (tfx_tsv_columns(&r, line, col, 5) != 0) continue;
    if (!tfx_span_is_ident(col[0])) {
      tfx_tsv_error(&r, col[0].s, "op name '%.*s' is not an identifier", (int)col[0].n, col[0].s);
      continue;
    }
    uint32_t prev = tfx_hmap_get(&t->by_name, col[0].s, col[0].n);
    if (prev != TFX_HASH_NONE && prev >= first) {
      tfx_tsv_error(&r, col[0].s, "op '%.*s' already defined at line %u", (int)col[0].n, col[0].s,
                    (unsigned)t->ops[prev].line);
      continue;
    }
    /* parsed into the free slot even when overridden, so a malformed line is reported */
    tfx_cann_op *op = &t->ops[t->n_ops];
    memset(op, 0, sizeof *op);
    tfx_cann_port *in, *out;
    tfx_cann_attr *attrs;
    int rc = read_ports(&r, &t->arena, col[1], 0, &in, &op->n_in);
    if (rc == 0) rc = read_ports(&r, &t->arena, col[2], 1, &out, &op->n_out);
    if (rc == 0) rc = read_attrs(&r, &t->arena, col[3], &attrs, &op->n_attrs);
    if (rc == -2) oom = 1;
    if (rc != 0) continue;
    if (prev != TFX_HASH_NONE) { /* an earlier text registered the name: first wins */
      char name[256];
      snprintf(name, sizeof name, "%.*s", (int)(col[0].n < 255 ? col[0].n : 255), col[0].s);
      ov_errors += (size_t)report_override(d, ov, name, file, r.line, &t->ops[prev]);
      memset(op, 0, sizeof *op);
      continue;
    }
    op->in = in;
    op->out = out;
    op->attrs = attrs;
    op->line = r.line;
    op->file = file;
    op->name = keep(&t->arena, col[0]);
    op->source = keep(&t->arena, col[4]);
    if (!op->name || !op->source || tfx_hmap_put(&t->by_name, op->name, col[0].n, t->n_ops, NULL) < 0) {
      oom = 1;
      break;
    }
    t->n_ops++;
  }
  if (oom) {
    tfx_tsv_oom(&r);
    return TFX_E_NOMEM;
  }
  return r.errors || ov_errors ? TFX_E_INPUT : 0;
}

tfx_status tfx_cann_load(tfx_cann_table *t, const char *text, size_t len, const char *fname,
                         tfx_diag *d) {
  tfx_cann_init(t);
  return tfx_cann_add(t, text, len, fname, TFX_CANN_OV_QUIET, d);
}

tfx_status tfx_cann_add_base(tfx_cann_table *t, const tfx_cann_table *base, tfx_cann_override ov,
                             tfx_diag *d) {
  if (!base || !base->n_ops) return 0;
  if (reserve_ops(t, base->n_ops) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory merging CANN prototype tables");
    return TFX_E_NOMEM;
  }
  size_t ov_errors = 0;
  for (uint32_t i = 0; i < base->n_ops; i++) {
    const tfx_cann_op *op = &base->ops[i];
    size_t n = strlen(op->name);
    uint32_t prev = tfx_hmap_get(&t->by_name, op->name, n);
    if (prev != TFX_HASH_NONE) {
      ov_errors += (size_t)report_override(d, ov, op->name, op->file, op->line, &t->ops[prev]);
      continue;
    }
    if (tfx_hmap_put(&t->by_name, op->name, n, t->n_ops, NULL) < 0) {
      tfx_error(d, NULL, 0, 0, "out of memory merging CANN prototype tables");
      return TFX_E_NOMEM;
    }
    t->ops[t->n_ops++] = *op;
  }
  return ov_errors ? TFX_E_INPUT : 0;
}

void tfx_cann_free(tfx_cann_table *t) {
  if (!t) return;
  tfx_hmap_free(&t->by_name);
  tfx_arena_free(&t->arena);
  t->ops = NULL;
  t->n_ops = t->cap_ops = 0;
}

const tfx_cann_op *tfx_cann_find(const tfx_cann_table *t, const char *name) {
  if (!t || !name) return NULL;
  uint32_t i = tfx_hmap_get(&t->by_name, name, strlen(name));
  return i == TFX_HASH_NONE ? NULL : &t->ops[i];
}

int tfx_cann_input(const tfx_cann_op *op, const char *name) {
  for (uint32_t i = 0; op && name && i < op->n_in; i++)
    if (!strcmp(op->in[i].name, name)) return (int)i;
  return -1;
}

int tfx_cann_output(const tfx_cann_op *op, const char *name) {
  for (uint32_t i = 0; op && name && i < op->n_out; i++)
    if (!strcmp(op->out[i].name, name)) return (int)i;
  return -1;
}

const tfx_cann_attr *tfx_cann_attr_find(const tfx_cann_op *op, const char *name) {
  for (uint32_t i = 0; op && name && i < op->n_attrs; i++)
    if (!strcmp(op->attrs[i].name, name)) return &op->attrs[i];
  return NULL;
}

/* ---------------------------------------------------------------- did you mean */

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* Case-insensitive Levenshtein distance, or limit + 1 once it must exceed limit. */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb, size_t limit) {
  if ((na > nb ? na - nb : nb - na) > limit) return limit + 1;
  if (nb > 63) return limit + 1; /* op names are short; longer ones only match by substring */
  size_t row[64];
  for (size_t j = 0; j <= nb; j++) row[j] = j;
  for (size_t i = 1; i <= na; i++) {
    size_t diag = row[0], best = row[0] = i;
    for (size_t j = 1; j <= nb; j++) {
      size_t up = row[j];
      size_t sub = diag + (lower((unsigned char)a[i - 1]) != lower((unsigned char)b[j - 1]));
      size_t v = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
      row[j] = sub < v ? sub : v;
      diag = up;
      if (row[j] < best) best = row[j];
    }
    if (best > limit) return limit + 1;
  }
  return row[nb];
}

/* 1 if needle (length nn >= 3) occurs in hay, ignoring case. */
static int icontains(const char *hay, size_t nh, const char *needle, size_t nn) {
  if (nn < 3 || nn > nh) return 0;
  for (size_t i = 0; i + nn <= nh; i++) {
    size_t k = 0;
    while (k < nn && lower((unsigned char)hay[i + k]) == lower((unsigned char)needle[k])) k++;
    if (k == nn) return 1;
  }
  return 0;
}

typedef struct cand {
  const char *name;
  size_t score; /* edit distance (0..3); substring matches 4 + length difference */
} cand;

static int better(const cand *a, const cand *b) {
  if (a->score != b->score) return a->score < b->score;
  return strcmp(a->name, b->name) < 0;
}

/* The up to `max` (<= 16) names closest to `name`, best first: count names, the k-th at
 * *(const char **)(base + k * stride) (a plain array, or the name member of a struct array). */
static size_t similar_names(const char *base, size_t stride, uint32_t count, const char *name,
                            const char **out, size_t max) {
  if (!name || !out || !max) return 0;
  size_t nn = strlen(name), n = 0;
  cand best[16];
  if (max > 16) max = 16;
  for (uint32_t i = 0; i < count; i++) {
    const char *s = *(const char *const *)(const void *)(base + (size_t)i * stride);
    if (!s || !strcmp(s, name)) continue;
    size_t ns = strlen(s);
    cand c = {s, edit_distance(name, nn, s, ns, 3)};
    if (c.score > 3) {
      if (!icontains(s, ns, name, nn) && !icontains(name, nn, s, ns)) continue;
      c.score = 4 + (ns > nn ? ns - nn : nn - ns);
    }
    /* insert into the sorted best[0..n) */
    size_t k;
    if (n < max) {
      k = n++;
    } else {
      if (!better(&c, &best[max - 1])) continue;
      k = max - 1;
    }
    while (k > 0 && better(&c, &best[k - 1])) {
      best[k] = best[k - 1];
      k--;
    }
    best[k] = c;
  }
  for (size_t i = 0; i < n; i++) out[i] = best[i].name;
  return n;
}

size_t tfx_cann_similar(const tfx_cann_table *t, const char *name, const char **out, size_t max) {
  if (!t || !t->n_ops) return 0;
  return similar_names((const char *)&t->ops[0].name, sizeof t->ops[0], t->n_ops, name, out, max);
}

size_t tfx_names_similar(const char *const *names, uint32_t count, const char *name, const char **out, size_t max) {
  if (!names) return 0;
  return similar_names((const char *)names, sizeof *names, count, name, out, max);
}

/* ---------------------------------------------------------------- the embedded table */

const tfx_embedded_file *tfx_cann_embedded(const char *name, tfx_diag *d) {
  for (unsigned i = 0; i < tfx_stdlib_count; i++)
    if (!strcmp(tfx_stdlib_files[i].name, name)) return &tfx_stdlib_files[i];
  tfx_error(d, name, 0, 0, "op table missing from the embedded stdlib (rebuild tfxc)");
  return NULL;
}

/* tfx_cann_stdlib: stdlib_tables.c (the table compiled at build time). */
