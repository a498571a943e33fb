/* TensorFlow op definitions: the tf-ops TSV reader, lookup and the embedded table.
 * Stage: cann (data only). Input: the text of a tf-ops TSV (docs/ASCEND.md §8.3: columns name,
 * inputs, outputs, attrs, is_stateful; an OpDef per line). Output: a tfx_tf_table whose ops,
 * args and attrs live in the table's arena. Attribute defaults are kept as written (checked
 * for scalar types: int, float, bool, string, type); allowed-value sets are kept as text. */
#include <string.h>

#include "cann/cann.h"
#include "cann/cann_int.h"
#include "util/status.h"

static char *keep(tfx_arena *a, tfx_span s) { return tfx_arena_strndup(a, s.s, s.n); }

static size_t count_items(tfx_span col) {
  if (col.n == 0) return 0;
  size_t n = 1;
  for (size_t i = 0; i < col.n; i++) n += col.s[i] == ',';
  return n;
}

/* `arg:TYPE[:ref]`, TYPE one of DT_X, T, T*N, *Tlist. Returns 0, -1 (reported), -2 (oom). */
static int read_args(tfx_tsv *t, tfx_arena *a, tfx_span col, const char *what, tfx_tf_arg **out,
                     uint32_t *n_out) {
  size_t cap = count_items(col);
  *out = NULL;
  *n_out = 0;
  if (!cap) return 0;
  if (cap > UINT32_MAX) return -2;
  tfx_tf_arg *args = tfx_arena_calloc(a, cap, sizeof *args);
  if (!args) return -2;
  tfx_items it;
  tfx_items_init(&it, col);
  tfx_span item;
  uint32_t n = 0;
  while (tfx_items_next(&it, &item)) {
    long c = tfx_span_find(item, 0, ':');
    if (c < 0) {
      tfx_tsv_error(t, item.s, "%s '%.*s' is not 'name:TYPE'", what, (int)item.n, item.s);
      return -1;
    }
    tfx_span name = {item.s, (size_t)c}, ty = {item.s + c + 1, item.n - (size_t)c - 1};
    tfx_tf_arg *ar = &args[n];
    long c2 = tfx_span_find(ty, 0, ':');
    if (c2 >= 0) {
      tfx_span flag = {ty.s + c2 + 1, ty.n - (size_t)c2 - 1};
      if (!tfx_span_eq(flag, "ref")) {
        tfx_tsv_error(t, flag.s, "unknown %s flag '%.*s' (only ':ref')", what, (int)flag.n, flag.s);
        return -1;
      }
      ar->is_ref = 1;
      ty.n = (size_t)c2;
    }
    if (!tfx_span_is_ident(name)) {
      tfx_tsv_error(t, item.s, "%s name '%.*s' is not an identifier", what, (int)name.n, name.s);
      return -1;
    }
    for (uint32_t i = 0; i < n; i++)
      if (strlen(args[i].name) == name.n && memcmp(args[i].name, name.s, name.n) == 0) {
        tfx_tsv_error(t, item.s, "duplicate %s '%.*s'", what, (int)name.n, name.s);
        return -1;
      }
    tfx_span base = ty, count = {NULL, 0}, list = {NULL, 0};
    long star = tfx_span_find(ty, 0, '*');
    if (star == 0) {
      list = (tfx_span){ty.s + 1, ty.n - 1};
      base.n = 0;
    } else if (star > 0) {
      base.n = (size_t)star;
      count = (tfx_span){ty.s + star + 1, ty.n - (size_t)star - 1};
    }
    if ((star != 0 && !tfx_span_is_ident(base)) || (star > 0 && !tfx_span_is_ident(count)) ||
        (star == 0 && !tfx_span_is_ident(list))) {
      tfx_tsv_error(t, ty.s, "%s type '%.*s' is not DT_X, T, T*N or *Tlist", what, (int)ty.n, ty.s);
      return -1;
    }
    ar->name = keep(a, name);
    if (!ar->name) return -2;
    if (base.n && !(ar->type = keep(a, base))) return -2;
    if (count.s && !(ar->number_attr = keep(a, count))) return -2;
    if (list.s && !(ar->list_attr = keep(a, list))) return -2;
    n++;
  }
  *out = args;
  *n_out = n;
  return 0;
}

static int known_attr_type(tfx_span ty) {
  static const char *const base[] = {"int", "float", "bool", "string", "type", "shape", "tensor", "func"};
  tfx_span inner = ty;
  if (ty.n > 6 && memcmp(ty.s, "list(", 5) == 0 && ty.s[ty.n - 1] == ')') inner = (tfx_span){ty.s + 5, ty.n - 6};
  for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
    if (tfx_span_eq(inner, base[i])) return 1;
  return 0;
}

/* Checks a default literal of a scalar type; list and other literals are kept unchecked. */
static const char *check_default(tfx_arena *a, tfx_span ty, tfx_span def, const char **at) {
  *at = def.s;
  if (def.n == 0) return "a default value after '='";
  if (tfx_span_eq(ty, "bool")) return tfx_span_eq(def, "true") || tfx_span_eq(def, "false") ? NULL : "true or false";
  if (tfx_span_eq(ty, "int")) {
    size_t i = def.s[0] == '-';
    if (i == def.n) return "an integer";
    for (; i < def.n; i++)
      if (def.s[i] < '0' || def.s[i] > '9') return "an integer";
    return NULL;
  }
  if (tfx_span_eq(ty, "type")) return def.n > 3 && memcmp(def.s, "DT_", 3) == 0 && tfx_span_is_ident(def) ? NULL : "a DT_* name";
  if (tfx_span_eq(ty, "string")) {
    if (def.n < 2 || def.s[0] != '"' || def.s[def.n - 1] != '"') return "a quoted string";
    size_t n;
    const char *bad;
    if (!tfx_unescape(a, (tfx_span){def.s + 1, def.n - 2}, &n, &bad) && bad) {
      *at = bad;
      return "a known escape (\\xHH \\t \\n \\r \\\\ \\\" \\' \\0)";
    }
    return NULL;
  }
  return NULL;
}

/* `name:type[{allowed}][>=min][=default]`. Returns 0, -1 (reported), -2 (oom). */
static int read_attrs(tfx_tsv *t, tfx_arena *a, tfx_span col, tfx_tf_attr **out, uint32_t *n_out) {
  size_t cap = count_items(col);
  *out = NULL;
  *n_out = 0;
  if (!cap) return 0;
  if (cap > UINT32_MAX) return -2;
  tfx_tf_attr *attrs = tfx_arena_calloc(a, cap, sizeof *attrs);
  if (!attrs) return -2;
  tfx_items it;
  tfx_items_init(&it, col);
  tfx_span item;
  uint32_t n = 0;
  while (tfx_items_next(&it, &item)) {
    long c = tfx_span_find(item, 0, ':');
    if (c < 0) {
      tfx_tsv_error(t, item.s, "attribute '%.*s' is not 'name:type[{allowed}][>=min][=default]'", (int)item.n, item.s);
      return -1;
    }
    tfx_span name = {item.s, (size_t)c};
    if (!tfx_span_is_ident(name)) {
      tfx_tsv_error(t, item.s, "attribute name '%.*s' is not an identifier", (int)name.n, name.s);
      return -1;
    }
    for (uint32_t i = 0; i < n; i++)
      if (strlen(attrs[i].name) == name.n && memcmp(attrs[i].name, name.s, name.n) == 0) {
        tfx_tsv_error(t, item.s, "duplicate attribute '%.*s'", (int)name.n, name.s);
        return -1;
      }
    size_t p = (size_t)c + 1;
    size_t ts = p;
    while (p < item.n && item.s[p] != '{' && item.s[p] != '>' && item.s[p] != '=') p++;
    tfx_span ty = {item.s + ts, p - ts};
    if (!known_attr_type(ty)) {
      tfx_tsv_error(t, ty.s, "unknown attribute type '%.*s' (int float bool string type shape tensor func, "
                    "or list(...) of them)", (int)ty.n, ty.s);
      return -1;
    }
    tfx_tf_attr *at = &attrs[n];
    tfx_span allowed = {NULL, 0};
    if (p < item.n && item.s[p] == '{') {
      size_t q = p + 1;
      while (q < item.n && item.s[q] != '}') {
        if (item.s[q] == '"') { /* a quoted allowed value may hold '}' */
          q++;
          while (q < item.n && item.s[q] != '"') q += item.s[q] == '\\' ? 2 : 1;
        }
        q++;
      }
      if (q >= item.n) {
        tfx_tsv_error(t, item.s + p, "unclosed '{' in attribute '%.*s'", (int)name.n, name.s);
        return -1;
      }
      allowed = (tfx_span){item.s + p + 1, q - p - 1};
      p = q + 1;
    }
    if (p + 1 < item.n && item.s[p] == '>' && item.s[p + 1] == '=') {
      size_t q = p + 2, ds = q;
      int neg = q < item.n && item.s[q] == '-';
      q += (size_t)neg;
      int64_t v = 0;
      while (q < item.n && item.s[q] >= '0' && item.s[q] <= '9' && v < INT64_MAX / 10 - 10)
        v = v * 10 + (item.s[q++] - '0');
      if (q == ds + (size_t)neg || (q < item.n && item.s[q] != '=')) {
        tfx_tsv_error(t, item.s + ds, "bad minimum in attribute '%.*s': expected an integer after '>='",
                      (int)name.n, name.s);
        return -1;
      }
      at->minimum = neg ? -v : v;
      at->has_minimum = 1;
      p = q;
    }
    if (p < item.n) {
      if (item.s[p] != '=') {
        tfx_tsv_error(t, item.s + p, "unexpected '%c' in attribute '%.*s' (expected '{', '>=' or '=')",
                      item.s[p], (int)name.n, name.s);
        return -1;
      }
      tfx_span def = {item.s + p + 1, item.n - p - 1};
      tfx_span base = ty;
      const char *at_err;
      const char *why = check_default(a, base, def, &at_err);
      if (why) {
        tfx_tsv_error(t, at_err, "bad default '%.*s' for %.*s attribute '%.*s': expected %s", (int)def.n,
                      def.s, (int)ty.n, ty.s, (int)name.n, name.s, why);
        return -1;
      }
      if (!(at->def = keep(a, def))) return -2;
    }
    at->name = keep(a, name);
    at->type = keep(a, ty);
    if (!at->name || !at->type || (allowed.s && !(at->allowed = keep(a, allowed)))) return -2;
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

tfx_status tfx_tf_ops_load(tfx_tf_table *t, const char *text, size_t len, const char *fname,
                           tfx_diag *d) {
  memset(t, 0, sizeof *t);
  tfx_arena_init(&t->arena);
  tfx_hmap_init(&t->by_name);
  if (!text) len = 0;
  tfx_tsv r;
  tfx_tsv_init(&r, text, len, fname, d);
  size_t cap = len ? count_lines(text, len) : 0;
  if (cap > UINT32_MAX || (cap && !(t->ops = tfx_arena_calloc(&t->arena, cap, sizeof *t->ops))) ||
      tfx_hmap_reserve(&t->by_name, cap) != 0) {
    tfx_tsv_oom(&r);
    return TFX_E_NOMEM;
  }
  tfx_span line, col[TFX_TSV_MAX_COLS];
  int oom = 0;
  while (!oom && tfx_tsv_next(&r, &line)) {
    if (tfx_tsv_columns(&r, line, col, 5) != 0) continue;
    if (!tfx_span_is_ident(col[0])) {
      tfx_tsv_error(&r, col[0].s, "op name '%.*s' is not an identifier", (int)col[0].n, col[0].s);
      continue;
    }
    uint32_t prev = tfx_hmap_get(&t->by_name, col[0].s, col[0].n);
    if (prev != TFX_HASH_NONE) {
      tfx_tsv_error(&r, col[0].s, "op '%.*s' already defined at line %u", (int)col[0].n, col[0].s,
                    (unsigned)t->ops[prev].line);
      continue;
    }
    if (!tfx_span_eq(col[4], "0") && !tfx_span_eq(col[4], "1")) {
      tfx_tsv_error(&r, col[4].s, "is_stateful must be 0 or 1, found '%.*s'", (int)col[4].n, col[4].s);
      continue;
    }
    tfx_tf_op *op = &t->ops[t->n_ops];
    tfx_tf_arg *in, *out;
    tfx_tf_attr *attrs;
    int rc = read_args(&r, &t->arena, col[1], "input", &in, &op->n_in);
    if (rc == 0) rc = read_args(&r, &t->arena, col[2], "output", &out, &op->n_out);
    if (rc == 0) rc = read_attrs(&r, &t->arena, col[3], &attrs, &op->n_attrs);
    if (rc == -2) oom = 1;
    if (rc != 0) continue;
    op->in = in;
    op->out = out;
    op->attrs = attrs;
    op->is_stateful = col[4].s[0] == '1';
    op->line = r.line;
    op->name = keep(&t->arena, col[0]);
    if (!op->name || tfx_hmap_put(&t->by_name, op->name, col[0].n, t->n_ops, NULL) < 0) {
      oom = 1;
      break;
    }
    t->n_ops++;
  }
  if (oom) {
    tfx_tsv_oom(&r);
    return TFX_E_NOMEM;
  }
  return r.errors ? TFX_E_INPUT : 0;
}

void tfx_tf_ops_free(tfx_tf_table *t) {
  if (!t) return;
  tfx_hmap_free(&t->by_name);
  tfx_arena_free(&t->arena);
  t->ops = NULL;
  t->n_ops = 0;
}

const tfx_tf_op *tfx_tf_op_find(const tfx_tf_table *t, const char *name) {
  if (!t || !name) return NULL;
  uint32_t i = tfx_hmap_get(&t->by_name, name, strlen(name));
  return i == TFX_HASH_NONE ? NULL : &t->ops[i];
}

/* tfx_tf_ops_stdlib: stdlib_tables.c (the table compiled at build time). */
