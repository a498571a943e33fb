/* OP_MAPPING group, pass "op-defaults": restores the default attributes a node's TensorFlow
 * op definition declares but the NodeDef lacks.
 * Stage: passes/OP_MAPPING, before "op-mapping". Input: the GraphDef in ctx->model (main graph
 * and function bodies), the TF op table (<stdlib>/ops/tf-ops.tsv). Output: NodeDefs with the
 * missing defaults added (new attr arrays in the model's arena; node ids and inputs are
 * unchanged, so the index stays valid). The added entries are parsed once per op-def attribute
 * and shared by every node that lacks it: they are read-only from here on. With the graph
 * indexed (ctx->module), the main graph goes by the index's op ids: each op type's def is
 * found once, and nodes whose type has no defaults are not read at all.
 * Why: TF2 SavedModels are written with `stripped_default_attrs`, and hand-made graphs omit
 * defaults too; an op map that reads `data_format` or `is_training` must see the value TF would
 * use (NHWC, true), not `none`. TF's own importer does the same (AddDefaultsToNodeDef).
 * Runs only when op mapping runs (a GE output or --check), so `--emit tf-pbtxt` shows the graph
 * as it was read. Defaults of kinds that are rare as defaults (tensor, func, list(shape)) and
 * literals that do not parse are skipped: the node keeps the attribute missing. */
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "passes/passes.h"
#include "tensorflow/node_def.pb-c.h"
#include "util/status.h"

/* One parsed default, made once per TF op-def attribute and shared by every node that lacks
 * it (the entries are only read after this pass). e NULL: the literal is skipped. */
typedef struct def_slot {
  const tfx_tf_attr *at;
  Tensorflow__NodeDef__AttrEntry *e;
} def_slot;

typedef struct op_slot { /* op type -> its TF op def (NULL: not in the table) */
  const char *name;      /* the table's name, or the first node's op string (model arena) */
  const tfx_tf_op *op;
} op_slot;

#define OP_CACHE 64

typedef struct defaults_run {
  tfx_arena *A;
  int oom;
  uint64_t added;
  def_slot *defs;        /* open addressing by attribute address (malloc'ed) */
  uint32_t n_defs, cap_defs;
  op_slot ops[OP_CACHE]; /* direct-mapped cache of tfx_tf_op_find */
} defaults_run;

static void *xalloc(defaults_run *r, size_t n) {
  void *p = tfx_arena_calloc(r->A, 1, n);
  if (!p) r->oom = 1;
  return p;
}

/* Unescapes a TSV string literal body ("..." without the quotes): \x2c \x7c \t \" \\ \n. */
static int unescape(defaults_run *r, const char *s, size_t n, ProtobufCBinaryData *out) {
  uint8_t *b = xalloc(r, n + 1);
  if (!b) return -1;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '\\' || i + 1 >= n) {
      b[k++] = (uint8_t)s[i];
      continue;
    }
    char c = s[++i];
    if (c == 'x' && i + 2 < n) {
      char h[3] = {s[i + 1], s[i + 2], 0};
      char *end;
      long v = strtol(h, &end, 16);
      if (*end) return -1;
      b[k++] = (uint8_t)v;
      i += 2;
    } else if (c == 't') b[k++] = '\t';
    else if (c == 'n') b[k++] = '\n';
    else b[k++] = (uint8_t)c;
  }
  out->data = b;
  out->len = k;
  return 0;
}

static int parse_int(const char *s, size_t n, int64_t *v) {
  char buf[32];
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, s, n);
  buf[n] = 0;
  char *end;
  long long x = strtoll(buf, &end, 10);
  if (*end) return -1;
  *v = x;
  return 0;
}

static int parse_float(const char *s, size_t n, float *v) {
  char buf[48];
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, s, n);
  buf[n] = 0;
  char *end;
  double x = strtod(buf, &end); /* also "inf", "-inf", "nan" */
  if (*end) return -1;
  *v = (float)x;
  return 0;
}

static int parse_type(const char *s, size_t n, Tensorflow__DataType *v) {
  char buf[64];
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, s, n);
  buf[n] = 0;
  const ProtobufCEnumValue *ev =
      protobuf_c_enum_descriptor_get_value_by_name(&tensorflow__data_type__descriptor, buf);
  if (!ev) return -1;
  *v = (Tensorflow__DataType)ev->value;
  return 0;
}

static int parse_bool(const char *s, size_t n, protobuf_c_boolean *v) {
  if (n == 4 && memcmp(s, "true", 4) == 0) *v = 1;
  else if (n == 5 && memcmp(s, "false", 5) == 0) *v = 0;
  else return -1;
  return 0;
}

/* "?" unknown rank, "[]" scalar, "[2 ?]" dims (? = -1). */
static Tensorflow__TensorShapeProto *parse_shape(defaults_run *r, const char *s) {
  Tensorflow__TensorShapeProto *sh = xalloc(r, sizeof *sh);
  if (!sh) return NULL;
  tensorflow__tensor_shape_proto__init(sh);
  if (strcmp(s, "?") == 0) {
    sh->unknown_rank = 1;
    return sh;
  }
  size_t n = strlen(s);
  if (n < 2 || s[0] != '[' || s[n - 1] != ']') return NULL;
  size_t cap = 0;
  for (size_t i = 1; i + 1 < n; i++) cap += s[i] != ' ' && (i == 1 || s[i - 1] == ' ');
  if (cap) {
    sh->dim = xalloc(r, cap * sizeof *sh->dim);
    if (!sh->dim) return NULL;
  }
  const char *p = s + 1, *end = s + n - 1;
  while (p < end) {
    while (p < end && *p == ' ') p++;
    const char *q = p;
    while (q < end && *q != ' ') q++;
    if (q == p) break;
    Tensorflow__TensorShapeProto__Dim *d = xalloc(r, sizeof *d);
    if (!d) return NULL;
    tensorflow__tensor_shape_proto__dim__init(d);
    if (q - p == 1 && *p == '?') d->size = -1;
    else if (parse_int(p, (size_t)(q - p), &d->size) != 0) return NULL;
    sh->dim[sh->n_dim++] = d;
    p = q;
  }
  return sh;
}

/* Items of a list literal "[a b c]" (strings may hold escaped spaces only as \x20? TSV keeps
 * spaces inside quotes, so quoted items are scanned to their closing quote). */
typedef struct item { const char *s; size_t n; } item;

static item *split_list(defaults_run *r, const char *s, size_t *count) {
  size_t n = strlen(s);
  *count = 0;
  if (n < 2 || s[0] != '[' || s[n - 1] != ']') return NULL;
  item *v = xalloc(r, (n + 1) * sizeof *v);
  if (!v) return NULL;
  const char *p = s + 1, *end = s + n - 1;
  while (p < end) {
    while (p < end && *p == ' ') p++;
    if (p >= end) break;
    const char *q = p;
    if (*p == '"') {
      q++;
      while (q < end && *q != '"') q += *q == '\\' ? 2 : 1;
      if (q >= end) return NULL;
      q++;
    } else
      while (q < end && *q != ' ') q++;
    v[(*count)++] = (item){p, (size_t)(q - p)};
    p = q;
  }
  return v;
}

static int parse_str_item(defaults_run *r, const char *s, size_t n, ProtobufCBinaryData *out) {
  if (n < 2 || s[0] != '"' || s[n - 1] != '"') return -1;
  return unescape(r, s + 1, n - 2, out);
}

/* The AttrValue for a default literal of TF attr type `type`, or NULL (skip). */
static Tensorflow__AttrValue *parse_default(defaults_run *r, const char *type, const char *def) {
  Tensorflow__AttrValue *v = xalloc(r, sizeof *v);
  if (!v) return NULL;
  tensorflow__attr_value__init(v);
  size_t dn = strlen(def);
  if (strcmp(type, "int") == 0) {
    if (parse_int(def, dn, &v->i) != 0) return NULL;
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
  } else if (strcmp(type, "float") == 0) {
    if (parse_float(def, dn, &v->f) != 0) return NULL;
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F;
  } else if (strcmp(type, "bool") == 0) {
    if (parse_bool(def, dn, &v->b) != 0) return NULL;
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
  } else if (strcmp(type, "string") == 0) {
    if (parse_str_item(r, def, dn, &v->s) != 0) return NULL;
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
  } else if (strcmp(type, "type") == 0) {
    if (parse_type(def, dn, &v->type) != 0) return NULL;
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  } else if (strcmp(type, "shape") == 0) {
    if (!(v->shape = parse_shape(r, def))) return NULL;
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
  } else if (strncmp(type, "list(", 5) == 0) {
    size_t k;
    item *it = split_list(r, def, &k);
    if (!it) return NULL;
    Tensorflow__AttrValue__ListValue *l = xalloc(r, sizeof *l);
    if (!l) return NULL;
    tensorflow__attr_value__list_value__init(l);
    const char *et = type + 5;
    if (k == 0) { /* an empty list of any kind */
    } else if (strncmp(et, "int)", 4) == 0) {
      if (!(l->i = xalloc(r, k * sizeof *l->i))) return NULL;
      for (size_t i = 0; i < k; i++)
        if (parse_int(it[i].s, it[i].n, &l->i[i]) != 0) return NULL;
      l->n_i = k;
    } else if (strncmp(et, "float)", 6) == 0) {
      if (!(l->f = xalloc(r, k * sizeof *l->f))) return NULL;
      for (size_t i = 0; i < k; i++)
        if (parse_float(it[i].s, it[i].n, &l->f[i]) != 0) return NULL;
      l->n_f = k;
    } else if (strncmp(et, "bool)", 5) == 0) {
      if (!(l->b = xalloc(r, k * sizeof *l->b))) return NULL;
      for (size_t i = 0; i < k; i++)
        if (parse_bool(it[i].s, it[i].n, &l->b[i]) != 0) return NULL;
      l->n_b = k;
    } else if (strncmp(et, "type)", 5) == 0) {
      if (!(l->type = xalloc(r, k * sizeof *l->type))) return NULL;
      for (size_t i = 0; i < k; i++)
        if (parse_type(it[i].s, it[i].n, &l->type[i]) != 0) return NULL;
      l->n_type = k;
    } else if (strncmp(et, "string)", 7) == 0) {
      if (!(l->s = xalloc(r, k * sizeof *l->s))) return NULL;
      for (size_t i = 0; i < k; i++)
        if (parse_str_item(r, it[i].s, it[i].n, &l->s[i]) != 0) return NULL;
      l->n_s = k;
    } else
      return NULL; /* list(shape), list(tensor), list(func) with values: skipped */
    v->list = l;
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  } else
    return NULL; /* tensor, func, placeholder */
  return v;
}

static int has_attr(const Tensorflow__NodeDef *nd, const char *name) {
  for (size_t i = 0; i < nd->n_attr; i++) {
    const char *k = nd->attr[i] ? nd->attr[i]->key : NULL;
    if (k && k[0] == name[0] && strcmp(k, name) == 0) return 1;
  }
  return 0;
}

/* tfx_tf_op_find through the cache: a graph repeats a few dozen op types over many nodes. */
static const tfx_tf_op *find_op(defaults_run *r, const tfx_tf_table *tf, const char *name) {
  size_t n = strlen(name);
  op_slot *c = &r->ops[(n * 31 + (unsigned char)name[0] * 7 + (n ? (unsigned char)name[n - 1] : 0)) &
                       (OP_CACHE - 1)];
  if (c->name && strcmp(c->name, name) == 0) return c->op;
  const tfx_tf_op *op = tfx_tf_op_find(tf, name);
  c->name = op ? op->name : name;
  c->op = op;
  return op;
}

static uint32_t ptr_hash(const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (uint32_t)h;
}

/* The shared entry for default at (NULL: skipped literal, or out of memory with r->oom set). */
static Tensorflow__NodeDef__AttrEntry *default_entry(defaults_run *r, const tfx_tf_attr *at) {
  if ((uint64_t)(r->n_defs + 1) * 2 > r->cap_defs) {
    uint32_t nc = r->cap_defs ? r->cap_defs * 2 : 256;
    def_slot *v = nc > r->cap_defs && nc < (UINT32_MAX >> 4) ? tfx_calloc(nc, sizeof *v) : NULL;
    if (!v) {
      r->oom = 1;
      return NULL;
    }
    for (uint32_t i = 0; i < r->cap_defs; i++) {
      if (!r->defs[i].at) continue;
      uint32_t k = ptr_hash(r->defs[i].at) & (nc - 1);
      while (v[k].at) k = (k + 1) & (nc - 1);
      v[k] = r->defs[i];
    }
    free(r->defs);
    r->defs = v;
    r->cap_defs = nc;
  }
  uint32_t k = ptr_hash(at) & (r->cap_defs - 1);
  for (; r->defs[k].at; k = (k + 1) & (r->cap_defs - 1))
    if (r->defs[k].at == at) return r->defs[k].e;
  Tensorflow__NodeDef__AttrEntry *e = NULL;
  Tensorflow__AttrValue *v = parse_default(r, at->type, at->def);
  if (r->oom) return NULL;
  if (v) {
    if (!(e = xalloc(r, sizeof *e))) return NULL;
    tensorflow__node_def__attr_entry__init(e);
    e->key = (char *)at->name; /* lives in the TF op table, which is never freed */
    e->value = v;
  }
  r->defs[k].at = at;
  r->defs[k].e = e;
  r->n_defs++;
  return e;
}

/* Adds the defaults op declares that nd lacks (op: nd's TF op def). */
static void fill_op(defaults_run *r, const tfx_tf_op *op, Tensorflow__NodeDef *nd) {
  uint32_t missing = 0;
  uint64_t mask = 0; /* attrs < 64: the missing ones, so the second loop needs no search */
  for (uint32_t a = 0; a < op->n_attrs; a++)
    if (op->attrs[a].def && !has_attr(nd, op->attrs[a].name)) {
      missing++;
      if (a < 64) mask |= (uint64_t)1 << a;
    }
  if (!missing) return;
  Tensorflow__NodeDef__AttrEntry **na = xalloc(r, (nd->n_attr + missing) * sizeof *na);
  if (!na) return;
  if (nd->n_attr) memcpy(na, nd->attr, nd->n_attr * sizeof *na);
  size_t n = nd->n_attr;
  for (uint32_t a = 0; a < op->n_attrs && !r->oom; a++) {
    const tfx_tf_attr *at = &op->attrs[a];
    if (a < 64 ? !(mask >> a & 1) : !at->def || has_attr(nd, at->name)) continue;
    Tensorflow__NodeDef__AttrEntry *e = default_entry(r, at);
    if (!e) continue;
    na[n++] = e;
    r->added++;
  }
  nd->attr = na;
  nd->n_attr = n;
}

static void fill_node(defaults_run *r, const tfx_tf_table *tf, Tensorflow__NodeDef *nd) {
  if (!nd->op) return;
  const tfx_tf_op *op = find_op(r, tf, nd->op);
  if (op) fill_op(r, op, nd);
}

/* 1 when some attribute of op has a default. */
static int has_defaults(const tfx_tf_op *op) {
  for (uint32_t a = 0; op && a < op->n_attrs; a++)
    if (op->attrs[a].def) return 1;
  return 0;
}

/* Prefetch distances (nodes ahead) of fill_indexed's stages. */
#define PF_DEF 16u
#define PF_ARR 12u
#define PF_ENT 8u
#define PF_KEY 4u

/* The main graph through its index: the op def is found once per interned op type (the
 * index's op ids), and a node whose type declares no default (Const, most of a graph) is
 * passed over without reading its NodeDef; the NodeDef walk read every node's op string and
 * looked it up. Nodes the index does not describe (it is stale) go the NodeDef way.
 * Returns -1 when the per-type table cannot be allocated (the caller walks the NodeDefs). */
static int fill_indexed(defaults_run *r, const tfx_tf_table *tf, const tfx_module *m, Tensorflow__GraphDef *gd) {
  uint32_t n_ops = m->ops.n;
  const tfx_tf_op **ops = tfx_malloc(((size_t)n_ops + 1) * sizeof *ops); /* NULL: no defaults */
  if (!ops) return -1;
  for (uint32_t o = 0; o < n_ops; o++) {
    const char *name = tfx_intern_str(&m->ops, o);
    const tfx_tf_op *op = name ? find_op(r, tf, name) : NULL;
    ops[o] = has_defaults(op) ? op : NULL;
  }
  const tfx_graph *g = &m->main;
  size_t n = gd->n_node, ng = g->n_nodes < n ? g->n_nodes : n;
  for (size_t i = 0; i < n && !r->oom; i++) {
    /* what fill_op reads of a later node with defaults, fetched ahead in stages (each stage
     * reads what the one before brought in): its NodeDef, its attr array, the entries, their
     * keys. At 10^6 nodes each of these is a cache miss otherwise, one after the other. */
    if (i + PF_DEF < ng && g->nodes[i + PF_DEF].op_id < n_ops && ops[g->nodes[i + PF_DEF].op_id])
      __builtin_prefetch(gd->node[i + PF_DEF]);
    if (i + PF_ARR < ng && g->nodes[i + PF_ARR].op_id < n_ops && ops[g->nodes[i + PF_ARR].op_id])
      __builtin_prefetch(gd->node[i + PF_ARR]->attr);
    if (i + PF_ENT < ng && g->nodes[i + PF_ENT].op_id < n_ops && ops[g->nodes[i + PF_ENT].op_id]) {
      const Tensorflow__NodeDef *pd = gd->node[i + PF_ENT];
      for (size_t a = 0; a < pd->n_attr && a < 8; a++) __builtin_prefetch(pd->attr[a]);
    }
    if (i + PF_KEY < ng && g->nodes[i + PF_KEY].op_id < n_ops && ops[g->nodes[i + PF_KEY].op_id]) {
      const Tensorflow__NodeDef *pd = gd->node[i + PF_KEY];
      for (size_t a = 0; a < pd->n_attr && a < 8; a++)
        if (pd->attr[a]) __builtin_prefetch(pd->attr[a]->key);
    }
    Tensorflow__NodeDef *nd = gd->node[i];
    if (i < g->n_nodes && g->nodes[i].def == nd && g->nodes[i].op_id < n_ops) {
      const tfx_tf_op *op = ops[g->nodes[i].op_id];
      if (op) fill_op(r, op, nd);
    } else if (nd) {
      fill_node(r, tf, nd);
    }
  }
  free(ops);
  return 0;
}

tfx_status tfx_pass_op_defaults(tfx_ctx *ctx, void *user) {
  (void)user;
  if (!tfx_ctx_wants_mapping(ctx) || !ctx->have_model || !ctx->model.graph) return 0;
  const tfx_tf_table *tf = tfx_tf_ops_stdlib(ctx->diag);
  if (!tf) return TFX_E_NOMEM; /* the table fails only for memory (reported) */
  defaults_run r;
  memset(&r, 0, sizeof r);
  r.A = &ctx->model.arena;
  Tensorflow__GraphDef *gd = ctx->model.graph;
  if (!ctx->have_module || fill_indexed(&r, tf, &ctx->module, gd) != 0)
    for (size_t i = 0; i < gd->n_node && !r.oom; i++) fill_node(&r, tf, gd->node[i]);
  if (gd->library)
    for (size_t f = 0; f < gd->library->n_function && !r.oom; f++) {
      Tensorflow__FunctionDef *fd = gd->library->function[f];
      for (size_t i = 0; fd && i < fd->n_node_def && !r.oom; i++) fill_node(&r, tf, fd->node_def[i]);
    }
  free(r.defs);
  if (r.oom) {
    tfx_error(ctx->diag, NULL, 0, 0, "out of memory (op defaults)");
    return TFX_E_NOMEM;
  }
  if (r.added && ctx->opts && ctx->opts->verbose > 1)
    tfx_diag_add(ctx->diag, TFX_SEV_NOTE, NULL, 0, 0, "added %llu default attribute%s from the "
                 "TF op definitions", (unsigned long long)r.added, r.added == 1 ? "" : "s");
  return 0;
}
