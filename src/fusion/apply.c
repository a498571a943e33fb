/* Applying scope-fusion results to the GraphDef, as the TF parser consumes them (docs/ASCEND.md
 * §4.6: MaybeFusionOp, UpdateAllNodeOpContext, AddFusionNodeDef).
 * Stage: fusion (after tfx_fusion_run; the caller re-indexes afterwards). Input: the final
 * name-keyed results of every graph entry of a report, the module that indexed the GraphDef.
 * Output: the rewritten node lists (main graph and function bodies), in the model's arena.
 *
 * Semantics and decisions:
 *  - Results are applied in name order (the final map). A node claimed by an earlier result
 *    stays there (so an enclosing result, whose name is a prefix, wins over one nested in it;
 *    Ascend leaves this to unordered_map order) - warned. A result left with no node is not
 *    applied (the parser only creates a fused op when it meets one of its children).
 *  - Pull-ins of MaybeFusionOp: type LayerNorm pulls the reduction-indices producer of a child
 *    Mean (input 1); type Dropout pulls input 0 of a child Add / RandomUniform. tfxc pulls such
 *    a node only when every consumer of it is in the same result, so nothing dangles.
 *  - Index maps (docs/ASCEND.md §4.3): a child's input/output key is the first key, in byte order, equal
 *    to the tail of its name (no '/' boundary; per-length hash tables, no scan per key). A child
 *    with neither an input nor an output key is ignored: none of its outside edges (control
 *    ones included) are rewired. Port p of a child maps to fused port to[p]; p beyond the
 *    vector or disabled (99999 / none) drops the edge. Control edges keep -1: an outside
 *    control input of a non-ignored child becomes a control input of the fused node, an
 *    outside `^child` becomes `^fused` (deduplicated). Edges between children disappear.
 *  - Fused inputs: port q takes the producer of the first (graph order, then input order)
 *    child edge mapped to q; a different producer for the same q is warned and dropped. A
 *    NodeDef input list cannot have holes: when the used ports are not 0..n-1, the inputs are
 *    listed in port order and attr `_fusion_input_ports` (list(i)) gives each one's port.
 *  - Outside consumers of a child output the maps do not export lose that input: ATC drops
 *    such edges too (the parser rewires only what the maps give). tfxc removes the input, so
 *    the GraphDef stays indexable, and lists every such edge in the graph entry's `dangling`
 *    (consumer, input, absorbed producer, result, pass, rule); the caller makes them errors
 *    (the scope-fusion pass and the precheck: a node that lost a data input is broken) or,
 *    with --allow-dangling-inputs, warnings. Dropped control inputs are not listed.
 *  - A result whose new node name clashes with a node that stays (or with another result's
 *    new node) is not applied (warned).
 *  - New nodes: normal type -> one NodeDef {name, op = type}; ScopeToMultiNodes -> one per
 *    inner node (`_is_scope_inner_node` = true), inputs `in N` = fused input N's producer,
 *    `node:port` = inner node output, `const v` = a new Const node `<inner>/const_<k>`;
 *    boundary output N = the inner node/port given by `out N`; outside control inputs go to
 *    every inner node that reads the boundary (else the first); a consumer's `^child` goes to
 *    the inner node of the lowest boundary output (else the first inner node). Attrs:
 *    FR_ATTR / NODE_ATTR values (none is skipped; lists must be flat and of one kind),
 *    `_fusion_pass` (s), `_fusion_nodes` (list(s): absorbed nodes, graph order),
 *    `_fusion_description` (s); inner nodes also `_fusion_input_format_<p>` /
 *    `_fusion_output_format_<p>` (s) from NODE_FORMAT. The device of the first absorbed node
 *    is kept. New nodes take the place of the first absorbed node.
 *  - Function bodies: the same on FunctionDef.node_def; references to fused and inner nodes
 *    are written `name:output:idx` (the fused op's single output arg is called "output"), and
 *    `ret` / `control_ret` entries naming absorbed nodes are rewired the same way. The idx of
 *    a `node:out_arg:idx` input is taken as the port (exact for single-output-arg ops). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusion/engine.h"
#include "fusion/fusion_int.h"
#include "util/status.h"

/* ---------------------------------------------------------------- undo */

void tfx_fusion_undo_init(tfx_fusion_undo *u) { memset(u, 0, sizeof *u); }

void tfx_fusion_undo_rollback(tfx_fusion_undo *u) {
  for (size_t i = u->n; i > 0; i--) {
    tfx_fusion_undo_item *it = &u->items[i - 1];
    *(void **)it->where = it->old_ptr;
    if (it->count) *it->count = it->old_n;
  }
  u->n = 0;
}

void tfx_fusion_undo_free(tfx_fusion_undo *u) {
  free(u->items);
  memset(u, 0, sizeof *u);
}

/* ---------------------------------------------------------------- state */

typedef struct newnode {
  Tensorflow__NodeDef *def;
} newnode;

typedef struct rstate {          /* one result being applied */
  tfx_fusion_result *res;
  int accepted;
  int multi;
  uint32_t first;                /* smallest claimed node id */
  uint32_t n_claimed;
  uint32_t *pulled, n_pulled, cap_pulled; /* pull-ins (malloc) */
  const uint32_t *members;       /* its claimed nodes, graph order (into ap.members) */
  char **new_names;              /* names of the nodes it creates */
  uint32_t n_new_names;
  Tensorflow__NodeDef **defs;    /* the created NodeDefs */
  uint32_t n_defs;
  /* key tables: per distinct key length, key -> map index */
  uint32_t *in_lens, n_in_lens, *out_lens, n_out_lens;
  tfx_hmap *in_h, *out_h;
} rstate;

typedef struct ap {
  const tfx_graph *g;
  tfx_fusion_graph_report *ge;
  int is_func;
  tfx_arena *A;
  tfx_fusion_undo *u;
  tfx_diag *d;
  int oom;
  rstate *rs;
  uint32_t n_rs;
  uint32_t *claim;               /* node -> result index or TFX_NO_ID */
  uint32_t *in_key, *out_key;    /* node -> map index or TFX_NO_ID (claimed nodes) */
  uint32_t *members;             /* claimed nodes grouped by result, graph order in a group */
  tfx_strbuf sb;
  tfx_arena *RA;                 /* the report's arena (dangling records) */
  tfx_fusion_dangling *dang;     /* dropped data edges (malloc; copied to the report) */
  uint32_t n_dang, cap_dang;
} ap;

static int oom(ap *a) {
  if (!a->oom) tfx_error(a->d, NULL, 0, 0, "out of memory (applying scope fusion)");
  a->oom = 1;
  return -1;
}

static int undo_push(ap *a, void *where, size_t *count) {
  tfx_fusion_undo *u = a->u;
  if (u->n == u->cap) {
    size_t nc = u->cap ? u->cap * 2 : 32;
    tfx_fusion_undo_item *v = tfx_realloc(u->items, nc * sizeof *v);
    if (!v) return oom(a);
    u->items = v;
    u->cap = nc;
  }
  tfx_fusion_undo_item *it = &u->items[u->n++];
  it->where = where;
  it->old_ptr = *(void **)where;
  it->count = count;
  it->old_n = count ? *count : 0;
  return 0;
}

static char *adup(ap *a, const char *s) {
  char *c = tfx_arena_strdup(a->A, s ? s : "");
  if (!c) oom(a);
  return c;
}

static char *aprintf(ap *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *aprintf(ap *a, const char *fmt, ...) {
  va_list ap1, ap2;
  va_start(ap1, fmt);
  va_copy(ap2, ap1);
  int n = vsnprintf(NULL, 0, fmt, ap1);
  va_end(ap1);
  char *s = n >= 0 ? tfx_arena_alloc(a->A, (size_t)n + 1) : NULL;
  if (s) vsnprintf(s, (size_t)n + 1, fmt, ap2);
  else oom(a);
  va_end(ap2);
  return s;
}

/* Reference to output q of node name (q -1: control). */
static char *ref(ap *a, const char *name, int64_t q) {
  if (q < 0) return aprintf(a, "^%s", name);
  if (a->is_func) return aprintf(a, "%s:output:%lld", name, (long long)q);
  if (q == 0) return adup(a, name);
  return aprintf(a, "%s:%lld", name, (long long)q);
}

/* ---------------------------------------------------------------- key tables */

/* Up to this many keys a map is searched key by key (match_key); larger ones get hash tables
 * per key length. A fused result has a handful of keys (LayerNorm: 3 + 3), where building and
 * freeing the tables cost more than the comparisons. */
#define KEYS_LINEAR 16

static int build_keys(ap *a, const tfx_fusion_map *m, uint32_t n, uint32_t **lens, uint32_t *n_lens,
                      tfx_hmap **h) {
  *lens = NULL;
  *h = NULL;
  *n_lens = 0;
  if (n <= KEYS_LINEAR) return 0;
  *lens = tfx_calloc(n, sizeof **lens);
  *h = tfx_calloc(n, sizeof **h);
  if (!*lens || !*h) return oom(a);
  for (uint32_t i = 0; i < n; i++) { /* maps are sorted by key: the first put wins */
    uint32_t L = (uint32_t)strlen(m[i].key), k = 0;
    while (k < *n_lens && (*lens)[k] != L) k++;
    if (k == *n_lens) {
      (*lens)[k] = L;
      tfx_hmap_init(&(*h)[k]);
      (*n_lens)++;
    }
    if (tfx_hmap_put(&(*h)[k], m[i].key, L, i, NULL) < 0) return oom(a);
  }
  return 0;
}

static void free_keys(uint32_t *lens, uint32_t n_lens, tfx_hmap *h) {
  for (uint32_t k = 0; k < n_lens; k++) tfx_hmap_free(&h[k]);
  free(lens);
  free(h);
}

/* The first key of m[0 .. n) (lowest index = byte order) equal to a tail of name, or
 * TFX_NO_ID: the keys in order when there are few (h NULL), else the tables of build_keys. */
static uint32_t match_key(const char *name, const tfx_fusion_map *m, uint32_t n, const uint32_t *lens,
                          uint32_t n_lens, const tfx_hmap *h) {
  size_t len = strlen(name);
  if (!h) {
    for (uint32_t i = 0; i < n; i++) {
      size_t kl = strlen(m[i].key);
      if (kl <= len && memcmp(name + len - kl, m[i].key, kl) == 0) return i;
    }
    return TFX_NO_ID;
  }
  uint32_t best = TFX_NO_ID;
  for (uint32_t k = 0; k < n_lens; k++) {
    if (lens[k] > len) continue;
    uint32_t v = tfx_hmap_get(&h[k], name + len - lens[k], lens[k]);
    if (v != TFX_HASH_NONE && v < best) best = v;
  }
  return best;
}

/* ---------------------------------------------------------------- rewiring */

static int ignored(const ap *a, uint32_t c) { return a->in_key[c] == TFX_NO_ID && a->out_key[c] == TFX_NO_ID; }

/* The inner node a control consumer of a many-to-many result depends on. */
static const char *multi_anchor(const tfx_fusion_result *res) {
  const tfx_fusion_out *best = NULL;
  for (uint32_t i = 0; i < res->n_outs; i++)
    if (!best || res->outs[i].index < best->index) best = &res->outs[i];
  return best ? best->node : res->n_inner ? res->inner[0].name : res->name;
}

/* What a reader of output `port` (-1: control) of claimed node s reads after fusion, or NULL
 * when the edge is dropped. */
static char *resolve(ap *a, uint32_t s, int64_t port) {
  rstate *r = &a->rs[a->claim[s]];
  const tfx_fusion_result *res = r->res;
  if (ignored(a, s)) return NULL;
  if (port < 0) return ref(a, r->multi ? multi_anchor(res) : res->name, -1);
  uint32_t k = a->out_key[s];
  if (k == TFX_NO_ID) return NULL;
  const tfx_fusion_map *m = &res->outputs[k];
  if ((uint64_t)port >= m->n || m->to[port] < 0) return NULL;
  int64_t q = m->to[port];
  if (!r->multi) return ref(a, res->name, q);
  for (uint32_t i = 0; i < res->n_outs; i++)
    if (res->outs[i].index == q) return ref(a, res->outs[i].node, res->outs[i].port);
  return NULL;
}

/* ---------------------------------------------------------------- NodeDef building */

static Tensorflow__NodeDef *new_def(ap *a, const char *name, const char *op, const char *device) {
  Tensorflow__NodeDef *nd = tfx_arena_alloc(a->A, sizeof *nd);
  if (!nd) {
    oom(a);
    return NULL;
  }
  tensorflow__node_def__init(nd);
  nd->name = adup(a, name);
  nd->op = adup(a, op);
  if (device && *device) nd->device = adup(a, device);
  return a->oom ? NULL : nd;
}

static Tensorflow__AttrValue *add_attr(ap *a, Tensorflow__NodeDef *nd, const char *key) {
  for (size_t i = 0; i < nd->n_attr; i++) /* a repeated name: the last value wins */
    if (strcmp(nd->attr[i]->key, key) == 0) {
      tensorflow__attr_value__init(nd->attr[i]->value);
      return nd->attr[i]->value;
    }
  Tensorflow__NodeDef__AttrEntry **v = tfx_arena_calloc(a->A, nd->n_attr + 1, sizeof *v);
  Tensorflow__NodeDef__AttrEntry *e = tfx_arena_alloc(a->A, sizeof *e);
  Tensorflow__AttrValue *val = tfx_arena_alloc(a->A, sizeof *val);
  if (!v || !e || !val) {
    oom(a);
    return NULL;
  }
  if (nd->n_attr) memcpy(v, nd->attr, nd->n_attr * sizeof *v);
  tensorflow__node_def__attr_entry__init(e);
  tensorflow__attr_value__init(val);
  e->key = adup(a, key);
  if (!e->key) return NULL; /* oom reported; never append an entry without its key */
  e->value = val;
  v[nd->n_attr] = e;
  nd->attr = v;
  nd->n_attr++;
  return a->oom ? NULL : val;
}

static void attr_s(ap *a, Tensorflow__NodeDef *nd, const char *key, const char *s, size_t n) {
  Tensorflow__AttrValue *v = add_attr(a, nd, key);
  if (!v) return;
  char *c = tfx_arena_strndup(a->A, s, n);
  if (!c) {
    oom(a);
    return;
  }
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
  v->s.data = (uint8_t *)c;
  v->s.len = n;
}

static void attr_b(ap *a, Tensorflow__NodeDef *nd, const char *key, int b) {
  Tensorflow__AttrValue *v = add_attr(a, nd, key);
  if (!v) return;
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
  v->b = b != 0;
}

static void attr_slist(ap *a, Tensorflow__NodeDef *nd, const char *key, const char *const *s, uint32_t n) {
  Tensorflow__AttrValue *v = add_attr(a, nd, key);
  Tensorflow__AttrValue__ListValue *l = tfx_arena_alloc(a->A, sizeof *l);
  ProtobufCBinaryData *items = tfx_arena_calloc(a->A, n ? n : 1, sizeof *items);
  if (!v || !l || !items) {
    oom(a);
    return;
  }
  tensorflow__attr_value__list_value__init(l);
  for (uint32_t i = 0; i < n; i++) {
    items[i].data = (uint8_t *)s[i];
    items[i].len = strlen(s[i]);
  }
  l->s = items;
  l->n_s = n;
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  v->list = l;
}

static void attr_ilist(ap *a, Tensorflow__NodeDef *nd, const char *key, const int64_t *x, uint32_t n) {
  Tensorflow__AttrValue *v = add_attr(a, nd, key);
  Tensorflow__AttrValue__ListValue *l = tfx_arena_alloc(a->A, sizeof *l);
  int64_t *items = tfx_arena_calloc(a->A, n ? n : 1, sizeof *items);
  if (!v || !l || !items) {
    oom(a);
    return;
  }
  tensorflow__attr_value__list_value__init(l);
  if (n) memcpy(items, x, n * sizeof *x);
  l->i = items;
  l->n_i = n;
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  v->list = l;
}

/* A rule value as an AttrValue (see the file comment). Returns 0, 1 when the value has no
 * attr form (warned by the caller), -1 on out of memory. */
static int attr_value(ap *a, Tensorflow__NodeDef *nd, const char *key, const tfx_value *x) {
  if (x->tag == TFX_V_NONE) return 0; /* `attr a = none`: no attribute */
  if (x->tag == TFX_V_LIST) {
    int kind = x->n ? x->u.items[0].tag : TFX_V_INT;
    for (uint32_t i = 0; i < x->n; i++) {
      int t = x->u.items[i].tag;
      if (t == TFX_V_INT && kind == TFX_V_FLOAT) t = TFX_V_FLOAT;
      if (t == TFX_V_FLOAT && kind == TFX_V_INT) kind = TFX_V_FLOAT;
      if (t != kind || t == TFX_V_LIST || t == TFX_V_NONE) return 1;
    }
    Tensorflow__AttrValue *v = add_attr(a, nd, key);
    Tensorflow__AttrValue__ListValue *l = tfx_arena_alloc(a->A, sizeof *l);
    if (!v || !l) return oom(a);
    tensorflow__attr_value__list_value__init(l);
    size_t n = x->n;
    switch (kind) {
      case TFX_V_INT:
        if (!(l->i = tfx_arena_calloc(a->A, n ? n : 1, sizeof *l->i))) return oom(a);
        for (size_t i = 0; i < n; i++) l->i[i] = x->u.items[i].u.i;
        l->n_i = n;
        break;
      case TFX_V_FLOAT:
        if (!(l->f = tfx_arena_calloc(a->A, n ? n : 1, sizeof *l->f))) return oom(a);
        for (size_t i = 0; i < n; i++)
          l->f[i] = (float)(x->u.items[i].tag == TFX_V_INT ? (double)x->u.items[i].u.i : x->u.items[i].u.f);
        l->n_f = n;
        break;
      case TFX_V_BOOL:
        if (!(l->b = tfx_arena_calloc(a->A, n ? n : 1, sizeof *l->b))) return oom(a);
        for (size_t i = 0; i < n; i++) l->b[i] = x->u.items[i].u.i != 0;
        l->n_b = n;
        break;
      case TFX_V_DTYPE:
        if (!(l->type = tfx_arena_calloc(a->A, n ? n : 1, sizeof *l->type))) return oom(a);
        for (size_t i = 0; i < n; i++) l->type[i] = (Tensorflow__DataType)x->u.items[i].u.i;
        l->n_type = n;
        break;
      case TFX_V_STR:
        if (!(l->s = tfx_arena_calloc(a->A, n ? n : 1, sizeof *l->s))) return oom(a);
        for (size_t i = 0; i < n; i++) {
          l->s[i].data = (uint8_t *)x->u.items[i].u.s;
          l->s[i].len = x->u.items[i].n;
        }
        l->n_s = n;
        break;
      default: return 1;
    }
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
    v->list = l;
    return 0;
  }
  if (x->tag == TFX_V_STR) {
    attr_s(a, nd, key, x->u.s, x->n);
    return a->oom ? -1 : 0;
  }
  Tensorflow__AttrValue *v = add_attr(a, nd, key);
  if (!v) return -1;
  switch (x->tag) {
    case TFX_V_BOOL: v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B; v->b = x->u.i != 0; break;
    case TFX_V_INT: v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I; v->i = x->u.i; break;
    case TFX_V_FLOAT: v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F; v->f = (float)x->u.f; break;
    case TFX_V_DTYPE: v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE; v->type = (Tensorflow__DataType)x->u.i; break;
    default: return 1;
  }
  return 0;
}

static int rule_attrs(ap *a, Tensorflow__NodeDef *nd, const tfx_fusion_attr *at, uint32_t n,
                      const tfx_fusion_result *res) {
  for (uint32_t i = 0; i < n; i++) {
    int rc = attr_value(a, nd, at[i].name, &at[i].v);
    if (rc < 0) return -1;
    if (rc > 0)
      tfx_warning(a->d, NULL, 0, 0,
                  "scope pass '%s': attribute '%s' of fused node '%s' has no TensorFlow attr "
                  "form (nested or mixed list); skipped",
                  res->pass, at[i].name, nd->name);
  }
  return 0;
}

/* A Const node holding v (scalar, or a 1-D list of numbers / bools / strings). */
static Tensorflow__NodeDef *const_def(ap *a, const char *name, const tfx_value *v, const char *device) {
  Tensorflow__NodeDef *nd = new_def(a, name, "Const", device);
  Tensorflow__TensorProto *t = tfx_arena_alloc(a->A, sizeof *t);
  Tensorflow__TensorShapeProto *sh = tfx_arena_alloc(a->A, sizeof *sh);
  if (!nd || !t || !sh) {
    oom(a);
    return NULL;
  }
  tensorflow__tensor_proto__init(t);
  tensorflow__tensor_shape_proto__init(sh);
  const tfx_value *items = v->tag == TFX_V_LIST ? v->u.items : v;
  size_t n = v->tag == TFX_V_LIST ? v->n : 1;
  int kind = n ? items[0].tag : TFX_V_FLOAT;
  int fits32 = 1;
  for (size_t i = 0; i < n; i++) {
    if (items[i].tag == TFX_V_FLOAT && kind == TFX_V_INT) kind = TFX_V_FLOAT;
    if (items[i].tag == TFX_V_INT && (items[i].u.i < INT32_MIN || items[i].u.i > INT32_MAX)) fits32 = 0;
  }
  if (v->tag == TFX_V_LIST) {
    Tensorflow__TensorShapeProto__Dim *dim = tfx_arena_alloc(a->A, sizeof *dim);
    sh->dim = tfx_arena_alloc(a->A, sizeof *sh->dim);
    if (!dim || !sh->dim) {
      oom(a);
      return NULL;
    }
    tensorflow__tensor_shape_proto__dim__init(dim);
    dim->size = (int64_t)n;
    sh->dim[0] = dim;
    sh->n_dim = 1;
  }
  t->tensor_shape = sh;
  size_t cnt = n ? n : 1;
  switch (kind) {
    case TFX_V_INT:
      if (fits32) {
        t->dtype = TENSORFLOW__DATA_TYPE__DT_INT32;
        if (!(t->int_val = tfx_arena_calloc(a->A, cnt, sizeof *t->int_val))) return oom(a), NULL;
        for (size_t i = 0; i < n; i++) t->int_val[i] = (int32_t)items[i].u.i;
        t->n_int_val = n;
      } else {
        t->dtype = TENSORFLOW__DATA_TYPE__DT_INT64;
        if (!(t->int64_val = tfx_arena_calloc(a->A, cnt, sizeof *t->int64_val))) return oom(a), NULL;
        for (size_t i = 0; i < n; i++) t->int64_val[i] = items[i].u.i;
        t->n_int64_val = n;
      }
      break;
    case TFX_V_BOOL:
      t->dtype = TENSORFLOW__DATA_TYPE__DT_BOOL;
      if (!(t->bool_val = tfx_arena_calloc(a->A, cnt, sizeof *t->bool_val))) return oom(a), NULL;
      for (size_t i = 0; i < n; i++) t->bool_val[i] = items[i].u.i != 0;
      t->n_bool_val = n;
      break;
    case TFX_V_STR:
      t->dtype = TENSORFLOW__DATA_TYPE__DT_STRING;
      if (!(t->string_val = tfx_arena_calloc(a->A, cnt, sizeof *t->string_val))) return oom(a), NULL;
      for (size_t i = 0; i < n; i++) {
        t->string_val[i].data = (uint8_t *)(items[i].tag == TFX_V_STR ? items[i].u.s : "");
        t->string_val[i].len = items[i].tag == TFX_V_STR ? items[i].n : 0;
      }
      t->n_string_val = n;
      break;
    default: /* floats (and anything else, as 0) */
      t->dtype = TENSORFLOW__DATA_TYPE__DT_FLOAT;
      if (!(t->float_val = tfx_arena_calloc(a->A, cnt, sizeof *t->float_val))) return oom(a), NULL;
      for (size_t i = 0; i < n; i++)
        t->float_val[i] = (float)(items[i].tag == TFX_V_FLOAT ? items[i].u.f
                                  : items[i].tag == TFX_V_INT ? (double)items[i].u.i : 0.0);
      t->n_float_val = n;
      break;
  }
  Tensorflow__AttrValue *dt = add_attr(a, nd, "dtype");
  Tensorflow__AttrValue *val = add_attr(a, nd, "value");
  if (!dt || !val) return NULL;
  dt->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  dt->type = t->dtype;
  val->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
  val->tensor = t;
  attr_b(a, nd, "_is_scope_inner_node", 1);
  return a->oom ? NULL : nd;
}

/* ---------------------------------------------------------------- small string vectors */

typedef struct svec {
  char **v;
  uint32_t n, cap;
} svec;

static int svec_push(ap *a, svec *s, char *x) {
  if (s->n == s->cap) {
    uint32_t nc = s->cap ? s->cap * 2 : 8;
    char **v = tfx_realloc(s->v, nc * sizeof *v);
    if (!v) return oom(a);
    s->v = v;
    s->cap = nc;
  }
  s->v[s->n++] = x;
  return 0;
}

static int svec_has(const svec *s, const char *x) {
  for (uint32_t i = 0; i < s->n; i++)
    if (strcmp(s->v[i], x) == 0) return 1;
  return 0;
}

/* Copies n strings into an arena array for NodeDef.input. */
static char **arena_inputs(ap *a, char *const *v, uint32_t n) {
  char **out = tfx_arena_calloc(a->A, n ? n : 1, sizeof *out);
  if (!out) {
    oom(a);
    return NULL;
  }
  if (n) memcpy(out, v, n * sizeof *v);
  return out;
}

/* ---------------------------------------------------------------- per result */

typedef struct portsrc {
  int64_t q;
  char *src;
} portsrc;

static int cmp_port(const void *x, const void *y) {
  const portsrc *a = x, *b = y;
  return a->q < b->q ? -1 : a->q > b->q;
}

/* Builds the NodeDef(s) of result ri. */
static int build_result(ap *a, uint32_t ri) {
  rstate *r = &a->rs[ri];
  tfx_fusion_result *res = r->res;
  const tfx_graph *g = a->g;
  portsrc *ports = NULL;
  uint32_t n_ports = 0, cap_ports = 0;
  svec ctrl = {0}, absorbed = {0};
  int rc = 0;
  const char *device = NULL;

  for (uint32_t mi = 0; mi < r->n_claimed && rc == 0; mi++) {
    /* the members' node records and NodeDefs are cold: fetched 8 and 4 members ahead */
    if (mi + 8 < r->n_claimed) __builtin_prefetch(&g->nodes[r->members[mi + 8]]);
    if (mi + 4 < r->n_claimed) __builtin_prefetch(g->nodes[r->members[mi + 4]].def);
    uint32_t c = r->members[mi];
    const tfx_node *nd = &g->nodes[c];
    if (!device && nd->def->device && *nd->def->device) device = nd->def->device;
    if (svec_push(a, &absorbed, (char *)nd->name)) {
      rc = -1;
      break;
    }
    if (ignored(a, c)) continue;
    for (uint32_t i = 0; i < nd->n_in && rc == 0; i++) {
      const tfx_input *in = &nd->in[i];
      int claimed_src = in->kind == TFX_IN_NODE && in->src != TFX_NO_ID && a->claim[in->src] != TFX_NO_ID;
      if (claimed_src && a->claim[in->src] == ri) continue; /* internal edge */
      char *s;
      if (in->port < 0) {
        s = claimed_src ? resolve(a, in->src, -1) : nd->def->input[i];
        if (a->oom) rc = -1;
        if (!s || rc) continue;
        if (!svec_has(&ctrl, s) && svec_push(a, &ctrl, s)) rc = -1;
        continue;
      }
      uint32_t k = a->in_key[c];
      if (k == TFX_NO_ID) continue;
      const tfx_fusion_map *m = &res->inputs[k];
      if (i >= m->n || m->to[i] < 0) continue;
      int64_t q = m->to[i];
      s = claimed_src ? resolve(a, in->src, in->port) : nd->def->input[i];
      if (a->oom) {
        rc = -1;
        break;
      }
      if (!s) {
        tfx_warning(a->d, NULL, 0, 0,
                    "scope pass '%s': fused input %lld of '%s' would read '%s', whose fused "
                    "result does not export it; input left unconnected",
                    res->pass, (long long)q, res->name, nd->def->input[i]);
        continue;
      }
      uint32_t j = 0;
      while (j < n_ports && ports[j].q != q) j++;
      if (j < n_ports) {
        if (strcmp(ports[j].src, s) != 0)
          tfx_warning(a->d, NULL, 0, 0,
                      "scope pass '%s': fused input %lld of '%s' has several producers ('%s', "
                      "'%s'); the first is used",
                      res->pass, (long long)q, res->name, ports[j].src, s);
        continue;
      }
      if (n_ports == cap_ports) {
        uint32_t nc = cap_ports ? cap_ports * 2 : 8;
        portsrc *v = tfx_realloc(ports, nc * sizeof *v);
        if (!v) {
          rc = oom(a);
          break;
        }
        ports = v;
        cap_ports = nc;
      }
      ports[n_ports].q = q;
      ports[n_ports++].src = s;
    }
  }
  if (rc) goto out;
  if (n_ports) qsort(ports, n_ports, sizeof *ports, cmp_port);
  int dense = 1;
  for (uint32_t j = 0; j < n_ports; j++) dense &= ports[j].q == (int64_t)j;

  if (!r->multi) {
    Tensorflow__NodeDef *nd = new_def(a, res->name, res->type, device);
    if (!nd) goto fail;
    svec ins = {0};
    for (uint32_t j = 0; j < n_ports && rc == 0; j++) rc = svec_push(a, &ins, ports[j].src);
    for (uint32_t j = 0; j < ctrl.n && rc == 0; j++) rc = svec_push(a, &ins, ctrl.v[j]);
    if (rc == 0 && !(nd->input = arena_inputs(a, ins.v, ins.n))) rc = -1;
    nd->n_input = ins.n;
    free(ins.v);
    if (rc) goto out;
    if (rule_attrs(a, nd, res->attrs, res->n_attrs, res)) goto fail;
    if (!dense) {
      int64_t *qs = tfx_calloc(n_ports ? n_ports : 1, sizeof *qs);
      if (!qs) goto fail_oom;
      for (uint32_t j = 0; j < n_ports; j++) qs[j] = ports[j].q;
      attr_ilist(a, nd, "_fusion_input_ports", qs, n_ports);
      free(qs);
    }
    attr_s(a, nd, "_fusion_pass", res->pass, strlen(res->pass));
    attr_slist(a, nd, "_fusion_nodes", (const char *const *)absorbed.v, absorbed.n);
    attr_s(a, nd, "_fusion_description", res->description, strlen(res->description));
    if (a->oom) goto fail;
    r->defs = tfx_arena_alloc(a->A, sizeof *r->defs);
    if (!r->defs) goto fail_oom;
    r->defs[0] = nd;
    r->n_defs = 1;
    goto out;
  }

  /* many-to-many: inner nodes (+ Const nodes for constant inputs) */
  uint32_t n_consts = 0;
  for (uint32_t i = 0; i < res->n_inner; i++)
    for (uint32_t k = 0; k < res->inner[i].n_in; k++) n_consts += res->inner[i].in[k].cval != NULL;
  r->defs = tfx_arena_calloc(a->A, res->n_inner + n_consts + 1, sizeof *r->defs);
  if (!r->defs) goto fail_oom;
  int any_boundary = 0;
  for (uint32_t i = 0; i < res->n_inner; i++)
    for (uint32_t k = 0; k < res->inner[i].n_in; k++)
      any_boundary |= !res->inner[i].in[k].src && !res->inner[i].in[k].cval;
  for (uint32_t i = 0; i < res->n_inner && rc == 0; i++) {
    const tfx_fusion_inner *in = &res->inner[i];
    Tensorflow__NodeDef *nd = new_def(a, in->name, in->type, device);
    if (!nd) goto fail;
    svec ins = {0};
    int reads_boundary = 0;
    for (uint32_t k = 0; k < in->n_in && rc == 0; k++) {
      const tfx_fusion_inner_in *x = &in->in[k];
      char *s = NULL;
      if (x->cval) {
        char *cname = aprintf(a, "%s/const_%u", in->name, k);
        Tensorflow__NodeDef *cd = cname ? const_def(a, cname, x->cval, device) : NULL;
        if (!cd) {
          rc = -1;
          break;
        }
        r->defs[r->n_defs++] = cd;
        s = ref(a, cname, 0);
      } else if (x->src) {
        s = ref(a, x->src, x->port);
      } else {
        reads_boundary = 1;
        for (uint32_t j = 0; j < n_ports && !s; j++)
          if (ports[j].q == x->port) s = ports[j].src;
        if (!s) {
          tfx_warning(a->d, NULL, 0, 0,
                      "scope pass '%s': inner node '%s' reads boundary input %lld, which no "
                      "outside edge feeds; input left out",
                      res->pass, in->name, (long long)x->port);
          continue;
        }
      }
      if (!s || svec_push(a, &ins, s)) rc = -1;
    }
    if (rc == 0 && (reads_boundary || (!any_boundary && i == 0)))
      for (uint32_t j = 0; j < ctrl.n && rc == 0; j++) rc = svec_push(a, &ins, ctrl.v[j]);
    if (rc == 0 && !(nd->input = arena_inputs(a, ins.v, ins.n))) rc = -1;
    nd->n_input = ins.n;
    free(ins.v);
    if (rc) goto out;
    if (rule_attrs(a, nd, in->attrs, in->n_attrs, res)) goto fail;
    for (uint32_t k = 0; k < in->n_formats; k++) {
      char key[64];
      snprintf(key, sizeof key, "_fusion_%s_format_%lld", in->formats[k].dir ? "output" : "input",
               (long long)in->formats[k].port);
      attr_s(a, nd, key, in->formats[k].fmt, strlen(in->formats[k].fmt));
    }
    attr_b(a, nd, "_is_scope_inner_node", 1);
    attr_s(a, nd, "_fusion_pass", res->pass, strlen(res->pass));
    attr_slist(a, nd, "_fusion_nodes", (const char *const *)absorbed.v, absorbed.n);
    attr_s(a, nd, "_fusion_description", res->description, strlen(res->description));
    if (a->oom) goto fail;
    r->defs[r->n_defs++] = nd;
  }
  goto out;
fail_oom:
  oom(a);
fail:
  rc = -1;
out:
  free(ports);
  free(ctrl.v);
  free(absorbed.v); /* the attrs point at the names themselves (model arena), not at this array */
  return rc || a->oom ? -1 : 0;
}

/* ---------------------------------------------------------------- claims */

static int is_op(const tfx_node *n, const char *op) { return n->op && strcmp(n->op, op) == 0; }

/* MaybeFusionOp pull-ins (see the file comment). */
static void pull_ins(ap *a, uint32_t ri) {
  rstate *r = &a->rs[ri];
  const char *type = r->res->type;
  int ln = strcmp(type, "LayerNorm") == 0, dr = strcmp(type, "Dropout") == 0;
  if (!ln && !dr) return;
  const tfx_graph *g = a->g;
  for (uint32_t k = 0; k < r->res->n_children; k++) {
    uint32_t c = r->res->children[k];
    if (c >= g->n_nodes || a->claim[c] != ri) continue;
    const tfx_node *nd = &g->nodes[c];
    uint32_t slot;
    if (ln && is_op(nd, "Mean")) slot = 1;
    else if (dr && (is_op(nd, "Add") || is_op(nd, "RandomUniform"))) slot = 0;
    else continue;
    if (slot >= nd->n_data_in || nd->in[slot].kind != TFX_IN_NODE) continue;
    uint32_t s = nd->in[slot].src;
    if (s == TFX_NO_ID || a->claim[s] != TFX_NO_ID) continue;
    int all_inside = 1;
    for (uint32_t q = 0; q < g->nodes[s].n_uses && all_inside; q++)
      all_inside = a->claim[g->nodes[s].uses[q].node] == ri;
    if (!all_inside) continue;
    if (r->n_pulled == r->cap_pulled) {
      uint32_t nc = r->cap_pulled ? r->cap_pulled * 2 : 4;
      uint32_t *v = tfx_realloc(r->pulled, nc * sizeof *v);
      if (!v) {
        oom(a);
        return;
      }
      r->pulled = v;
      r->cap_pulled = nc;
    }
    r->pulled[r->n_pulled++] = s;
    a->claim[s] = ri;
    r->n_claimed++;
    if (s < r->first) r->first = s;
  }
}

static void unclaim(ap *a, uint32_t ri) {
  rstate *r = &a->rs[ri];
  for (uint32_t k = 0; k < r->res->n_children; k++) {
    uint32_t c = r->res->children[k];
    if (c < a->g->n_nodes && a->claim[c] == ri) a->claim[c] = TFX_NO_ID;
  }
  for (uint32_t k = 0; k < r->n_pulled; k++)
    if (a->claim[r->pulled[k]] == ri) a->claim[r->pulled[k]] = TFX_NO_ID;
  r->n_claimed = 0;
  r->accepted = 0;
}

/* The names result ri creates (fused node, or inner nodes and their Const nodes). */
static int new_names(ap *a, uint32_t ri) {
  rstate *r = &a->rs[ri];
  const tfx_fusion_result *res = r->res;
  uint32_t n = 1;
  if (r->multi) {
    n = res->n_inner;
    for (uint32_t i = 0; i < res->n_inner; i++)
      for (uint32_t k = 0; k < res->inner[i].n_in; k++) n += res->inner[i].in[k].cval != NULL;
  }
  r->new_names = tfx_arena_calloc(a->A, n ? n : 1, sizeof *r->new_names);
  if (!r->new_names) return oom(a);
  if (!r->multi) {
    r->new_names[0] = (char *)res->name;
  } else {
    uint32_t j = 0;
    for (uint32_t i = 0; i < res->n_inner; i++) {
      r->new_names[j++] = (char *)res->inner[i].name;
      for (uint32_t k = 0; k < res->inner[i].n_in; k++)
        if (res->inner[i].in[k].cval && !(r->new_names[j++] = aprintf(a, "%s/const_%u", res->inner[i].name, k)))
          return -1;
    }
  }
  r->n_new_names = n;
  return 0;
}

/* Drops results whose new names clash with a surviving node or another result's new node;
 * repeats until stable (dropping one can make its nodes survive). */
static int check_names(ap *a) {
  int changed = 1;
  while (changed) {
    changed = 0;
    tfx_hmap seen;
    tfx_hmap_init(&seen);
    for (uint32_t ri = 0; ri < a->n_rs; ri++) {
      rstate *r = &a->rs[ri];
      if (!r->accepted) continue;
      const char *clash = NULL, *why = NULL;
      for (uint32_t k = 0; k < r->n_new_names && !clash; k++) {
        const char *nm = r->new_names[k];
        uint32_t id = tfx_graph_find(a->g, nm);
        if (id != TFX_NO_ID && a->claim[id] == TFX_NO_ID) {
          clash = nm;
          why = "a node that stays in the graph";
          break;
        }
        uint32_t prev;
        int put = tfx_hmap_put(&seen, nm, strlen(nm), ri, &prev);
        if (put < 0) {
          tfx_hmap_free(&seen);
          return oom(a);
        }
        if (put == 0 && prev != ri) {
          clash = nm;
          why = "a node of another fusion result";
        }
      }
      if (clash) {
        tfx_warning(a->d, NULL, 0, 0,
                    "scope pass '%s': fusion result '%s' not applied: its node name '%s' "
                    "clashes with %s",
                    r->res->pass, r->res->name, clash, why);
        unclaim(a, ri);
        changed = 1;
        break;
      }
    }
    tfx_hmap_free(&seen);
  }
  return 0;
}

/* ---------------------------------------------------------------- one graph */

/* Records the data input `input` of consumer, which read absorbed node src, as dropped. */
static int dangling(ap *a, const char *consumer, const char *input, uint32_t src) {
  if (a->n_dang == a->cap_dang) {
    uint32_t nc = a->cap_dang ? a->cap_dang * 2 : 8;
    tfx_fusion_dangling *v = tfx_realloc(a->dang, (size_t)nc * sizeof *v);
    if (!v) return oom(a);
    a->dang = v;
    a->cap_dang = nc;
  }
  const tfx_fusion_result *res = a->rs[a->claim[src]].res;
  tfx_fusion_dangling *e = &a->dang[a->n_dang];
  e->consumer = tfx_arena_strdup(a->RA, consumer);
  e->input = tfx_arena_strdup(a->RA, input ? input : "");
  e->producer = tfx_arena_strdup(a->RA, a->g->nodes[src].name);
  e->result = tfx_arena_strdup(a->RA, res->name);
  e->pass = tfx_arena_strdup(a->RA, res->pass ? res->pass : "");
  e->rule = res->rule;
  if (!e->consumer || !e->input || !e->producer || !e->result || !e->pass) return oom(a);
  a->n_dang++;
  return 0;
}

static int rewrite_consumers(ap *a, Tensorflow__NodeDef *nd, uint32_t u, int *changed) {
  const tfx_node *n = &a->g->nodes[u];
  *changed = 0;
  int touches = 0;
  for (uint32_t i = 0; i < n->n_in && !touches; i++)
    touches = n->in[i].kind == TFX_IN_NODE && n->in[i].src != TFX_NO_ID && a->claim[n->in[i].src] != TFX_NO_ID;
  if (!touches) return 0;
  svec ins = {0};
  int rc = 0;
  for (uint32_t i = 0; i < n->n_in && rc == 0; i++) {
    const tfx_input *in = &n->in[i];
    char *s = nd->input[i];
    if (in->kind == TFX_IN_NODE && in->src != TFX_NO_ID && a->claim[in->src] != TFX_NO_ID) {
      s = resolve(a, in->src, in->port);
      if (a->oom) {
        rc = -1;
        break;
      }
      if (!s) {
        if (in->port >= 0 && dangling(a, n->name, nd->input[i], in->src)) {
          rc = -1;
          break;
        }
        continue;
      }
    }
    if (in->port < 0 && svec_has(&ins, s)) continue; /* deduplicated control edge */
    rc = svec_push(a, &ins, s);
  }
  if (rc == 0) {
    char **v = arena_inputs(a, ins.v, ins.n);
    if (!v || undo_push(a, &nd->input, &nd->n_input)) rc = -1;
    else {
      nd->input = v;
      nd->n_input = ins.n;
      *changed = 1;
    }
  }
  free(ins.v);
  return rc;
}

/* Parses a function ret value "node:out_arg:idx" / "node:out_arg" / "node"; rewires it when
 * node is absorbed. */
static int rewrite_ret(ap *a, char **value) {
  const char *nm, *oa;
  size_t nl, ol;
  int32_t port;
  if (!*value || tfx_parse_func_input(*value, &nm, &nl, &oa, &ol, &port) != 0) return 0;
  char buf[1024];
  if (nl >= sizeof buf) return 0;
  memcpy(buf, nm, nl);
  buf[nl] = '\0';
  uint32_t id = tfx_graph_find(a->g, buf);
  if (id == TFX_NO_ID || a->claim[id] == TFX_NO_ID) return 0;
  char *s = resolve(a, id, port < 0 ? 0 : port);
  if (a->oom) return -1;
  if (!s) {
    tfx_warning(a->d, NULL, 0, 0,
                "scope pass '%s': function '%s' returns '%s', absorbed into '%s' whose index "
                "maps do not export it; the return value is left as is",
                a->rs[a->claim[id]].res->pass, a->g->name, *value, a->rs[a->claim[id]].res->name);
    return 0;
  }
  if (undo_push(a, value, NULL)) return -1;
  *value = s;
  return 0;
}

static int apply_graph(ap *a, Tensorflow__GraphDef *gd) {
  const tfx_graph *g = a->g;
  tfx_fusion_graph_report *ge = a->ge;
  Tensorflow__NodeDef ***arr;
  size_t *count;
  if (g->func) {
    arr = &g->func->node_def;
    count = &g->func->n_node_def;
  } else {
    arr = &gd->node;
    count = &gd->n_node;
  }
  if (*count != g->n_nodes) {
    tfx_error(a->d, NULL, 0, 0, "scope fusion: graph '%s' changed since it was indexed", g->name);
    return -1;
  }
  uint32_t n = g->n_nodes;
  a->claim = tfx_malloc((n ? n : 1) * sizeof *a->claim);
  a->in_key = tfx_malloc((n ? n : 1) * sizeof *a->in_key);
  a->out_key = tfx_malloc((n ? n : 1) * sizeof *a->out_key);
  a->rs = tfx_calloc(ge->n_final ? ge->n_final : 1, sizeof *a->rs);
  if (!a->claim || !a->in_key || !a->out_key || !a->rs) return oom(a);
  a->n_rs = ge->n_final;
  for (uint32_t i = 0; i < n; i++) a->claim[i] = a->in_key[i] = a->out_key[i] = TFX_NO_ID;

  /* claims, in name order */
  for (uint32_t ri = 0; ri < a->n_rs; ri++) {
    rstate *r = &a->rs[ri];
    r->res = ge->final[ri];
    r->multi = strcmp(r->res->type, TFX_FUSION_MULTI_TYPE) == 0;
    r->first = TFX_NO_ID;
    uint32_t taken = 0;
    const char *owner = NULL;
    for (uint32_t k = 0; k < r->res->n_children; k++) {
      uint32_t c = r->res->children[k];
      if (c >= n) continue;
      if (a->claim[c] != TFX_NO_ID) {
        taken++;
        owner = a->rs[a->claim[c]].res->name;
        continue;
      }
      a->claim[c] = ri;
      r->n_claimed++;
      if (c < r->first) r->first = c;
    }
    if (taken)
      tfx_warning(a->d, NULL, 0, 0,
                  "scope pass '%s': %u node(s) of fusion result '%s' already belong to '%s' "
                  "and stay there",
                  r->res->pass, taken, r->res->name, owner);
    r->accepted = r->n_claimed > 0;
    if (r->accepted) pull_ins(a, ri);
    if (a->oom) return -1;
    if (r->accepted && new_names(a, ri)) return -1;
  }
  if (check_names(a)) return -1;

  /* claimed nodes grouped by result (counting sort: O(N + R)), graph order in each group */
  {
    uint32_t *off = tfx_calloc((size_t)a->n_rs + 1, sizeof *off);
    a->members = tfx_malloc((n ? n : 1) * sizeof *a->members);
    if (!off || !a->members) {
      free(off);
      return oom(a);
    }
    for (uint32_t c = 0; c < n; c++)
      if (a->claim[c] != TFX_NO_ID) off[a->claim[c] + 1]++;
    for (uint32_t ri = 0; ri < a->n_rs; ri++) off[ri + 1] += off[ri];
    for (uint32_t ri = 0; ri < a->n_rs; ri++) a->rs[ri].members = a->members + off[ri];
    for (uint32_t c = 0; c < n; c++)
      if (a->claim[c] != TFX_NO_ID) a->members[off[a->claim[c]]++] = c;
    free(off);
  }

  /* index-map keys of every claimed node */
  for (uint32_t ri = 0; ri < a->n_rs; ri++) {
    rstate *r = &a->rs[ri];
    if (!r->accepted) continue;
    if (build_keys(a, r->res->inputs, r->res->n_inputs, &r->in_lens, &r->n_in_lens, &r->in_h) ||
        build_keys(a, r->res->outputs, r->res->n_outputs, &r->out_lens, &r->n_out_lens, &r->out_h))
      return -1;
  }
  /* by result (the members lists: every claimed node once), each node's record and name
   * fetched ahead: the names are cold, and scattered over the GraphDef's arena */
  for (uint32_t ri = 0; ri < a->n_rs; ri++) {
    rstate *r = &a->rs[ri];
    for (uint32_t mi = 0; mi < r->n_claimed; mi++) {
      if (mi + 8 < r->n_claimed) __builtin_prefetch(&g->nodes[r->members[mi + 8]]);
      if (mi + 4 < r->n_claimed) __builtin_prefetch(g->nodes[r->members[mi + 4]].name);
      uint32_t c = r->members[mi];
      a->in_key[c] = match_key(g->nodes[c].name, r->res->inputs, r->res->n_inputs, r->in_lens, r->n_in_lens, r->in_h);
      a->out_key[c] =
          match_key(g->nodes[c].name, r->res->outputs, r->res->n_outputs, r->out_lens, r->n_out_lens, r->out_h);
    }
  }

  /* new nodes */
  uint32_t n_new = 0, n_removed = 0, n_applied = 0;
  for (uint32_t ri = 0; ri < a->n_rs; ri++) {
    rstate *r = &a->rs[ri];
    if (!r->accepted) continue;
    if (build_result(a, ri)) return -1;
    n_new += r->n_defs;
    n_removed += r->n_claimed;
    n_applied++;
  }
  if (!n_applied) return 0;

  /* the new node list; consumers rewired */
  Tensorflow__NodeDef **nodes = tfx_arena_calloc(a->A, (size_t)n - n_removed + n_new + 1, sizeof *nodes);
  uint32_t *new_id = tfx_arena_alloc(a->RA, (size_t)(n ? n : 1) * sizeof *new_id);
  uint8_t *rewired = tfx_arena_alloc(a->RA, n ? n : 1);
  if (!nodes || !new_id || !rewired) return oom(a);
  /* the nodes that read a claimed node: its consumer lists (rewired[] marks them here, and
   * says below which of them were rewritten), so only they are looked at, not every node's
   * inputs */
  memset(rewired, 0, n);
  for (uint32_t ri = 0; ri < a->n_rs; ri++) {
    const rstate *r = &a->rs[ri];
    for (uint32_t mi = 0; mi < r->n_claimed; mi++) {
      const tfx_node *cn = &g->nodes[r->members[mi]];
      for (uint32_t q = 0; q < cn->n_uses; q++) rewired[cn->uses[q].node] = 1;
    }
  }
  size_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t ri = a->claim[i];
    if (ri != TFX_NO_ID) {
      rstate *r = &a->rs[ri];
      if (r->first == i)
        for (uint32_t j = 0; j < r->n_defs; j++) nodes[k++] = r->defs[j];
      new_id[i] = TFX_NO_ID;
      rewired[i] = 0;
      continue;
    }
    int changed = 0;
    if (rewired[i] && rewrite_consumers(a, (*arr)[i], i, &changed)) return -1;
    new_id[i] = (uint32_t)k;
    rewired[i] = (uint8_t)changed;
    nodes[k++] = (*arr)[i];
  }
  if (g->func) {
    Tensorflow__FunctionDef *f = g->func;
    for (size_t i = 0; i < f->n_ret; i++)
      if (f->ret[i] && rewrite_ret(a, &f->ret[i]->value)) return -1;
    for (size_t i = 0; i < f->n_control_ret; i++) {
      Tensorflow__FunctionDef__ControlRetEntry *e = f->control_ret[i];
      if (!e || !e->value) continue;
      uint32_t id = tfx_graph_find(g, e->value);
      if (id == TFX_NO_ID || a->claim[id] == TFX_NO_ID) continue;
      rstate *r = &a->rs[a->claim[id]];
      char *s = adup(a, r->multi ? multi_anchor(r->res) : r->res->name);
      if (!s || undo_push(a, &e->value, NULL)) return -1;
      e->value = s;
    }
  }
  if (a->n_dang) {
    ge->dangling = tfx_arena_alloc(a->RA, (size_t)a->n_dang * sizeof *ge->dangling);
    if (!ge->dangling) return oom(a);
    memcpy(ge->dangling, a->dang, (size_t)a->n_dang * sizeof *ge->dangling);
  }
  ge->n_dangling = a->n_dang;
  if (undo_push(a, arr, count)) return -1;
  *arr = nodes;
  *count = k;
  ge->applied = 1;
  ge->new_id = new_id;
  ge->rewired = rewired;
  ge->n_applied = n_applied;
  ge->n_removed = n_removed;
  return 0;
}

static void ap_free(ap *a) {
  for (uint32_t ri = 0; ri < a->n_rs; ri++) {
    free_keys(a->rs[ri].in_lens, a->rs[ri].n_in_lens, a->rs[ri].in_h);
    free_keys(a->rs[ri].out_lens, a->rs[ri].n_out_lens, a->rs[ri].out_h);
  }
  for (uint32_t ri = 0; ri < a->n_rs; ri++) free(a->rs[ri].pulled);
  free(a->rs);
  free(a->dang);
  a->dang = NULL;
  a->n_dang = a->cap_dang = 0;
  free(a->members);
  a->members = NULL;
  free(a->claim);
  free(a->in_key);
  free(a->out_key);
  a->rs = NULL;
  a->claim = a->in_key = a->out_key = NULL;
  a->n_rs = 0;
}

tfx_status tfx_fusion_apply(tfx_fusion_report *rep, const tfx_module *m, Tensorflow__GraphDef *gd,
                            tfx_arena *arena, tfx_fusion_undo *u, tfx_diag *d) {
  (void)m;
  for (uint32_t i = 0; i < rep->n_graphs; i++) {
    tfx_fusion_graph_report *ge = &rep->graphs[i];
    if (ge->applied || !ge->n_final || !ge->g) continue;
    ap a;
    memset(&a, 0, sizeof a);
    a.g = ge->g;
    a.ge = ge;
    a.is_func = ge->g->func != NULL;
    a.A = arena;
    a.u = u;
    a.d = d;
    a.RA = &rep->arena;
    int rc = apply_graph(&a, gd);
    ap_free(&a);
    if (a.oom) return TFX_E_NOMEM;
    if (rc) return TFX_E_FAIL;
  }
  return TFX_OK;
}
