/* Pruning (ATC TrimGraph): option parsing for --input-shape / --out-nodes and GraphDef trimming.
 * Stage: prune (after io, before graph). Input: option strings; a Tensorflow__GraphDef.
 * Output: parsed option lists (arena) and the trimmed GraphDef (see prune.h for semantics).
 * Invariants: O(N + E) with one name hash; explicit stack, no recursion; gd is only replaced
 * (node array swapped) after every check passed and every allocation succeeded. */
#include "graph/prune.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"
#include "util/hash.h"

/* ---- option parsing ----------------------------------------------------------------------- */

/* Reports an option-string error with a caret under s[at .. at+span). */
static void opt_error(tfx_diag *d, const char *opt, const char *s, size_t at, size_t span,
                      const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void opt_error(tfx_diag *d, const char *opt, const char *s, size_t at, size_t span,
                      const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tfx_diag_addv(d, TFX_SEV_ERROR, opt, 1, (unsigned)at + 1, fmt, ap);
  va_end(ap);
  tfx_diag_set_source(d, s, strlen(s), span ? (unsigned)span : 1);
}

/* Splits s on ';' into items; one trailing ';' is allowed. Calls fn for each item. Returns
 * the number of items, or -1 after reporting an empty item. */
typedef int (*item_fn)(void *ud, const char *s, size_t at, size_t len);

static int for_each_item(const char *opt, const char *s, tfx_diag *d, item_fn fn, void *ud,
                         int *errs) {
  size_t n = strlen(s);
  if (n == 0) {
    tfx_error(d, opt, 0, 0, "%s is empty", opt);
    (*errs)++;
    return 0;
  }
  size_t i = 0;
  int items = 0;
  while (i <= n) {
    size_t j = i;
    while (j < n && s[j] != ';') j++;
    if (j == i) {
      if (j == n && i > 0) break; /* trailing ';' */
      opt_error(d, opt, s, i, 1, "empty entry in %s", opt);
      (*errs)++;
    } else {
      *errs += fn(ud, s, i, j - i);
      items++;
    }
    i = j + 1;
  }
  return items;
}

static size_t count_items(const char *s) {
  size_t k = 1;
  for (; *s; s++) k += *s == ';';
  return k;
}

typedef struct shape_ud {
  tfx_arena *a;
  tfx_diag *d;
  tfx_prune_shape *v;
  uint32_t n;
  tfx_hmap seen;
  int oom;
} shape_ud;

/* Parses a decimal int64 (optional leading '-') in s[0..n); returns 0 or -1. */
static int parse_i64(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  int neg = 0;
  if (n && s[0] == '-') {
    neg = 1;
    i = 1;
  }
  if (i == n) return -1;
  uint64_t v = 0;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    uint64_t dg = (uint64_t)(s[i] - '0');
    if (v > (UINT64_MAX - dg) / 10) return -1;
    v = v * 10 + dg;
    if (v > (uint64_t)INT64_MAX + (uint64_t)neg) return -1;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return 0;
}

static const char *last_colon(const char *s, size_t n) {
  while (n > 0)
    if (s[--n] == ':') return s + n;
  return NULL;
}

static int shape_item(void *p, const char *s, size_t at, size_t len) {
  shape_ud *u = p;
  const char *opt = "--input-shape";
  const char *it = s + at;
  const char *colon = last_colon(it, len);
  if (!colon) {
    opt_error(u->d, opt, s, at, len, "expected 'name:dims' in %s (e.g. 'input:1,224,224,3')", opt);
    return 1;
  }
  size_t nl = (size_t)(colon - it);
  if (nl == 0) {
    opt_error(u->d, opt, s, at, 1, "empty node name in %s", opt);
    return 1;
  }
  /* Count dims first ("" = scalar). */
  size_t dl = len - nl - 1, nd = 0;
  const char *ds = colon + 1;
  if (dl) {
    nd = 1;
    for (size_t i = 0; i < dl; i++) nd += ds[i] == ',';
  }
  int64_t *dims = tfx_arena_calloc(u->a, nd ? nd : 1, sizeof *dims);
  char *name = tfx_arena_strndup(u->a, it, nl);
  if (!dims || !name) {
    u->oom = 1;
    return 1;
  }
  int errs = 0;
  size_t k = 0, i = 0;
  while (dl && i <= dl) {
    size_t j = i;
    while (j < dl && ds[j] != ',') j++;
    size_t col = (size_t)(ds - s) + i;
    int64_t v = 0;
    if (j == i) {
      opt_error(u->d, opt, s, col, 1, "empty dimension for node '%s'", name);
      errs++;
    } else if (parse_i64(ds + i, j - i, &v) < 0) {
      opt_error(u->d, opt, s, col, j - i, "dimension of node '%s' is not an integer", name);
      errs++;
    } else if (v < -1) {
      opt_error(u->d, opt, s, col, j - i,
                "dimension of node '%s' must be >= -1 (-1 = unknown)", name);
      errs++;
    }
    dims[k++] = v;
    i = j + 1;
  }
  uint32_t prev = 0;
  int r = tfx_hmap_put(&u->seen, name, nl, u->n, &prev);
  if (r < 0) {
    u->oom = 1;
    return 1;
  }
  if (r == 0) {
    opt_error(u->d, opt, s, at, nl, "node '%s' is given twice", name);
    errs++;
  }
  tfx_prune_shape *e = &u->v[u->n++];
  e->name = name;
  e->dims = dims;
  e->n_dims = (uint32_t)nd;
  return errs;
}

tfx_status tfx_prune_parse_input_shape(const char *s, tfx_arena *a, tfx_prune_shape **out,
                                       uint32_t *n, tfx_diag *d) {
  *out = NULL;
  *n = 0;
  if (!s) s = "";
  size_t cap = count_items(s);
  if (cap >= UINT32_MAX) return TFX_E_USAGE;
  shape_ud u = {a, d, tfx_arena_calloc(a, cap, sizeof(tfx_prune_shape)), 0, {0}, 0};
  tfx_hmap_init(&u.seen);
  if (!u.v || tfx_hmap_reserve(&u.seen, cap) < 0) {
    tfx_hmap_free(&u.seen);
    tfx_error(d, NULL, 0, 0, "out of memory parsing --input-shape");
    return TFX_E_NOMEM;
  }
  int errs = 0;
  for_each_item("--input-shape", s, d, shape_item, &u, &errs);
  tfx_hmap_free(&u.seen);
  if (u.oom) {
    tfx_error(d, NULL, 0, 0, "out of memory parsing --input-shape");
    return TFX_E_NOMEM;
  }
  if (errs) return TFX_E_USAGE;
  *out = u.v;
  *n = u.n;
  return 0;
}

typedef struct out_ud {
  tfx_arena *a;
  tfx_diag *d;
  tfx_prune_out *v;
  uint32_t n;
  int oom;
} out_ud;

static int out_item(void *p, const char *s, size_t at, size_t len) {
  out_ud *u = p;
  const char *opt = "--out-nodes";
  const char *it = s + at;
  const char *colon = last_colon(it, len);
  size_t nl = colon ? (size_t)(colon - it) : len;
  int32_t port = 0;
  if (nl == 0) {
    opt_error(u->d, opt, s, at, 1, "empty node name in %s", opt);
    return 1;
  }
  char *name = tfx_arena_strndup(u->a, it, nl);
  if (!name) {
    u->oom = 1;
    return 1;
  }
  if (colon) {
    size_t pl = len - nl - 1, col = at + nl + 1;
    int64_t v = 0;
    if (pl == 0) {
      opt_error(u->d, opt, s, at + nl, 1, "missing output index after ':' for node '%s'", name);
      return 1;
    }
    if (parse_i64(colon + 1, pl, &v) < 0 || v < 0 || colon[1] == '-') {
      opt_error(u->d, opt, s, col, pl,
                "output index of node '%s' is not a non-negative integer", name);
      return 1;
    }
    if (v > INT32_MAX) {
      opt_error(u->d, opt, s, col, pl, "output index of node '%s' is out of range", name);
      return 1;
    }
    port = (int32_t)v;
  }
  u->v[u->n].name = name;
  u->v[u->n].port = port;
  u->n++;
  return 0;
}

tfx_status tfx_prune_parse_out_nodes(const char *s, tfx_arena *a, tfx_prune_out **out,
                                     uint32_t *n, tfx_diag *d) {
  *out = NULL;
  *n = 0;
  if (!s) s = "";
  size_t cap = count_items(s);
  if (cap >= UINT32_MAX) return TFX_E_USAGE;
  out_ud u = {a, d, tfx_arena_calloc(a, cap, sizeof(tfx_prune_out)), 0, 0};
  if (!u.v) {
    tfx_error(d, NULL, 0, 0, "out of memory parsing --out-nodes");
    return TFX_E_NOMEM;
  }
  int errs = 0;
  for_each_item("--out-nodes", s, d, out_item, &u, &errs);
  if (u.oom) {
    tfx_error(d, NULL, 0, 0, "out of memory parsing --out-nodes");
    return TFX_E_NOMEM;
  }
  if (errs) return TFX_E_USAGE;
  *out = u.v;
  *n = u.n;
  return 0;
}

/* ---- trimming ---------------------------------------------------------------------------- */

typedef struct trim {
  Tensorflow__GraphDef *gd;
  tfx_arena *a;
  tfx_diag *d;
  const char *fname;
  uint32_t n;
  tfx_hmap by_name; /* name -> first index (ATC's node_lookup; duplicates fail later anyway) */
  uint32_t *rep;    /* node index -> first index with the same name */
  uint8_t *flag;    /* per first index: F_INPUT, F_MARK */
  uint32_t *shape;  /* per first index: index into o->shapes (valid when F_INPUT) */
  uint32_t *stack;
  int errs;
} trim;

enum { F_INPUT = 1, F_MARK = 2 };

/* Node name of an input string as ATC's NodeNameFromInput: drop a leading '^', cut at the
 * first ':'. */
static void input_node_name(const char *s, const char **name, size_t *len) {
  if (*s == '^') s++;
  const char *c = strchr(s, ':');
  *name = s;
  *len = c ? (size_t)(c - s) : strlen(s);
}

static uint32_t lookup(const trim *t, const char *s, size_t n) {
  return tfx_hmap_get(&t->by_name, s, n);
}

/* Walks backwards from the marked nodes on the stack (sp entries), marking every node met.
 * Does not walk past F_INPUT nodes when stop_at_inputs. Unknown input names are errors. */
static void walk_up(trim *t, uint32_t sp, int stop_at_inputs, const char *why) {
  while (sp) {
    uint32_t u = t->stack[--sp];
    if (stop_at_inputs && (t->flag[u] & F_INPUT)) continue;
    const Tensorflow__NodeDef *nd = t->gd->node[u];
    for (size_t k = 0; k < nd->n_input; k++) {
      const char *nm;
      size_t nl;
      input_node_name(nd->input[k] ? nd->input[k] : "", &nm, &nl);
      uint32_t p = lookup(t, nm, nl);
      if (p == TFX_HASH_NONE) {
        tfx_error(t->d, t->fname, 0, 0,
                  "%s name '%.*s' not found in the graph (input %zu of node '%s', met while "
                  "trimming)",
                  why, (int)nl, nm, k, nd->name);
        t->errs++;
        continue;
      }
      if (!(t->flag[p] & F_MARK)) {
        t->flag[p] |= F_MARK;
        t->stack[sp++] = p;
      }
    }
  }
}

/* A copy of node def rewritten as a Placeholder with the given shape (see prune.h). */
static Tensorflow__NodeDef *make_placeholder(trim *t, const Tensorflow__NodeDef *def,
                                             const tfx_prune_shape *sh) {
  tfx_arena *a = t->a;
  Tensorflow__DataType dt = TENSORFLOW__DATA_TYPE__DT_INVALID;
  static const char *const type_attrs[] = {"dtype", "T", "out_type", "DstT"};
  for (size_t q = 0; q < sizeof type_attrs / sizeof *type_attrs && !dt; q++) {
    for (size_t k = 0; k < def->n_attr; k++) {
      const Tensorflow__NodeDef__AttrEntry *e = def->attr[k];
      if (e && e->key && e->value && strcmp(e->key, type_attrs[q]) == 0 &&
          e->value->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE) {
        dt = e->value->type;
        break;
      }
    }
  }
  for (size_t k = 0; k < def->n_attr && !dt; k++) {
    const Tensorflow__NodeDef__AttrEntry *e = def->attr[k];
    if (e && e->key && e->value && strcmp(e->key, "output_types") == 0 &&
        e->value->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && e->value->list &&
        e->value->list->n_type > 0)
      dt = e->value->list->type[0];
  }
  if (!dt) {
    dt = TENSORFLOW__DATA_TYPE__DT_FLOAT;
    tfx_diag_add(t->d, TFX_SEV_NOTE, t->fname, 0, 0,
                 "--input-shape: node '%s' (op %s) has no dtype, T, out_type, DstT or "
                 "output_types attr; its Placeholder gets DT_FLOAT",
                 def->name, def->op);
  }

  Tensorflow__NodeDef *nd = tfx_arena_alloc(a, sizeof *nd);
  Tensorflow__NodeDef__AttrEntry **attrs = tfx_arena_calloc(a, 2, sizeof *attrs);
  Tensorflow__NodeDef__AttrEntry *e_dt = tfx_arena_alloc(a, sizeof *e_dt);
  Tensorflow__NodeDef__AttrEntry *e_sh = tfx_arena_alloc(a, sizeof *e_sh);
  Tensorflow__AttrValue *v_dt = tfx_arena_alloc(a, sizeof *v_dt);
  Tensorflow__AttrValue *v_sh = tfx_arena_alloc(a, sizeof *v_sh);
  Tensorflow__TensorShapeProto *shp = tfx_arena_alloc(a, sizeof *shp);
  Tensorflow__TensorShapeProto__Dim **dims =
      tfx_arena_calloc(a, sh->n_dims ? sh->n_dims : 1, sizeof *dims);
  Tensorflow__TensorShapeProto__Dim *dimv =
      tfx_arena_calloc(a, sh->n_dims ? sh->n_dims : 1, sizeof *dimv);
  char *op = tfx_arena_strdup(a, "Placeholder");
  char *k_dt = tfx_arena_strdup(a, "dtype");
  char *k_sh = tfx_arena_strdup(a, "shape");
  if (!nd || !attrs || !e_dt || !e_sh || !v_dt || !v_sh || !shp || !dims || !dimv || !op ||
      !k_dt || !k_sh)
    return NULL;
  *nd = *def;
  nd->op = op;
  nd->n_input = 0;
  nd->input = NULL;
  tensorflow__node_def__attr_entry__init(e_dt);
  tensorflow__node_def__attr_entry__init(e_sh);
  tensorflow__attr_value__init(v_dt);
  tensorflow__attr_value__init(v_sh);
  tensorflow__tensor_shape_proto__init(shp);
  v_dt->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  v_dt->type = dt;
  for (uint32_t k = 0; k < sh->n_dims; k++) {
    tensorflow__tensor_shape_proto__dim__init(&dimv[k]);
    dimv[k].size = sh->dims[k];
    dims[k] = &dimv[k];
  }
  shp->n_dim = sh->n_dims;
  shp->dim = sh->n_dims ? dims : NULL;
  v_sh->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
  v_sh->shape = shp;
  e_dt->key = k_dt;
  e_dt->value = v_dt;
  e_sh->key = k_sh;
  e_sh->value = v_sh;
  attrs[0] = e_dt;
  attrs[1] = e_sh;
  nd->n_attr = 2;
  nd->attr = attrs;
  return nd;
}

static int trim_run(trim *t, const tfx_prune_opts *o) {
  uint32_t n = t->n;
  /* Name index and per-node representative (first index of the same name). */
  if (tfx_hmap_reserve(&t->by_name, n) < 0) return -1;
  for (uint32_t i = 0; i < n; i++) {
    const char *nm = t->gd->node[i] && t->gd->node[i]->name ? t->gd->node[i]->name : "";
    uint32_t first = i;
    if (tfx_hmap_put(&t->by_name, nm, strlen(nm), i, &first) < 0) return -1;
    t->rep[i] = first;
  }

  /* User names must exist. */
  uint32_t sp = 0;
  for (uint32_t k = 0; k < o->n_shapes; k++) {
    uint32_t id = lookup(t, o->shapes[k].name, strlen(o->shapes[k].name));
    if (id == TFX_HASH_NONE) {
      tfx_error(t->d, t->fname, 0, 0, "input_shape name '%s' not found in the graph",
                o->shapes[k].name);
      t->errs++;
      continue;
    }
    t->flag[id] |= F_INPUT;
    t->shape[id] = k;
  }
  for (uint32_t k = 0; k < o->n_outs; k++) {
    uint32_t id = lookup(t, o->outs[k].name, strlen(o->outs[k].name));
    if (id == TFX_HASH_NONE) {
      tfx_error(t->d, t->fname, 0, 0, "out_nodes name '%s' not found in the graph",
                o->outs[k].name);
      t->errs++;
    }
  }
  if (t->errs) return 0;

  if (o->n_outs == 0) {
    /* TrimGraphByInput: mark the input nodes and everything upstream as deleted. */
    for (uint32_t i = 0; i < n; i++)
      if (t->rep[i] == i && (t->flag[i] & F_INPUT)) {
        t->flag[i] |= F_MARK;
        t->stack[sp++] = i;
      }
    walk_up(t, sp, 0, "input_shape");
    if (t->errs) return 0;
    /* Kept nodes must not consume a deleted one. */
    for (uint32_t i = 0; i < n; i++) {
      uint32_t r = t->rep[i];
      if (t->flag[r] & F_MARK) continue;
      const Tensorflow__NodeDef *nd = t->gd->node[i];
      for (size_t k = 0; k < nd->n_input; k++) {
        const char *nm;
        size_t nl;
        input_node_name(nd->input[k] ? nd->input[k] : "", &nm, &nl);
        uint32_t p = lookup(t, nm, nl);
        if (p == TFX_HASH_NONE || (t->flag[p] & (F_MARK | F_INPUT)) != F_MARK) continue;
        tfx_error(t->d, t->fname, 0, 0,
                  "--input-shape trimming removes node '%.*s' (it is upstream of an input-shape "
                  "node), but node '%s' still uses it (input %zu); ATC would leave a dangling "
                  "edge here",
                  (int)nl, nm, nd->name, k);
        t->errs++;
      }
    }
  } else {
    /* TrimGraphByOutput: keep what the outputs reach, not walking past input nodes. */
    for (uint32_t k = 0; k < o->n_outs; k++) {
      uint32_t id = lookup(t, o->outs[k].name, strlen(o->outs[k].name));
      if (!(t->flag[id] & F_MARK)) {
        t->flag[id] |= F_MARK;
        t->stack[sp++] = id;
      }
    }
    walk_up(t, sp, 1, "out_nodes");
    for (uint32_t i = 0; i < n; i++)
      if (t->flag[i] & F_INPUT) t->flag[i] |= F_MARK;
  }
  return 0;
}

tfx_status tfx_prune_graphdef(Tensorflow__GraphDef *gd, const tfx_prune_opts *o, tfx_arena *a,
                              const char *fname, tfx_diag *d) {
  if (!gd || !o || (o->n_shapes == 0 && o->n_outs == 0)) return 0;
  if (gd->n_node >= UINT32_MAX) {
    tfx_error(d, fname, 0, 0, "too many nodes to trim (%zu)", gd->n_node);
    return TFX_E_INPUT;
  }
  trim t = {gd, a, d, fname, (uint32_t)gd->n_node, {0}, NULL, NULL, NULL, NULL, 0};
  tfx_hmap_init(&t.by_name);
  size_t n1 = t.n ? t.n : 1;
  t.rep = tfx_malloc(n1 * sizeof *t.rep);
  t.flag = tfx_calloc(n1, sizeof *t.flag);
  t.shape = tfx_malloc(n1 * sizeof *t.shape);
  t.stack = tfx_malloc(n1 * sizeof *t.stack);
  tfx_status rc = TFX_E_NOMEM;
  Tensorflow__NodeDef **kept = NULL;
  if (!t.rep || !t.flag || !t.shape || !t.stack || trim_run(&t, o) < 0) goto nomem;
  if (t.errs) {
    rc = TFX_E_USAGE;
    goto out;
  }
  /* Kept: input-shape nodes, plus unmarked nodes (by input) or marked nodes (by output). */
  size_t nk = 0;
  int by_output = o->n_outs > 0;
  for (uint32_t i = 0; i < t.n; i++) {
    uint8_t f = t.flag[t.rep[i]];
    nk += (f & F_INPUT) || (by_output ? (f & F_MARK) != 0 : (f & F_MARK) == 0);
  }
  kept = tfx_arena_calloc(a, nk ? nk : 1, sizeof *kept);
  if (!kept) goto nomem;
  size_t w = 0;
  for (uint32_t i = 0; i < t.n; i++) {
    uint32_t r = t.rep[i];
    uint8_t f = t.flag[r];
    if (f & F_INPUT) {
      kept[w] = make_placeholder(&t, gd->node[i], &o->shapes[t.shape[r]]);
      if (!kept[w++]) goto nomem;
    } else if (by_output ? (f & F_MARK) != 0 : (f & F_MARK) == 0) {
      kept[w++] = gd->node[i];
    }
  }
  gd->node = kept;
  gd->n_node = w;
  rc = 0;
  goto out;
nomem:
  tfx_error(d, fname, 0, 0, "out of memory while trimming the graph");
  rc = TFX_E_NOMEM;
out:
  tfx_hmap_free(&t.by_name);
  free(t.rep);
  free(t.flag);
  free(t.shape);
  free(t.stack);
  return rc;
}
