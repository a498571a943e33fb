/* Helpers for the lowering tests (test_ge_lower*.c): GraphDefs with attrs, hand-built op
 * mappings (tfx_mapped_op arrays written directly, not by tfx_opmap_run), lowering, and
 * queries on the resulting ModelDef. Header-only, static functions. */
#ifndef TFX_TEST_GE_LOWER_UTIL_H
#define TFX_TEST_GE_LOWER_UTIL_H

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "ge/air_write.h"
#include "ge/ge.h"
#include "ge/lower_int.h"
#include "test_graph_util.h"
#include "tfxc/tfxc.h"

typedef struct lt {
  tfx_arena a;
  tfx_diag d;
  tfx_module m;
  tfx_opmap om;
  tfx_ge_model gm;
  const tfx_cann_table *protos;
  tfx_ge_lower_opts o;
  tfx_prune_opts prune;
} lt;

static inline int lt_setup(void **state) {
  lt *f = calloc(1, sizeof *f);
  if (!f) return -1;
  tfx_arena_init(&f->a);
  tfx_arena_init(&f->om.arena);
  tfx_arena_init(&f->gm.arena);
  tfx_diag_init(&f->d);
  f->protos = tfx_cann_stdlib(&f->d);
  if (!f->protos) return -1;
  f->o.model_name = "m";
  *state = f;
  return 0;
}

static inline int lt_teardown(void **state) {
  lt *f = *state;
  tfx_ge_model_free(&f->gm);
  tfx_module_free(&f->m);
  tfx_opmap_free(&f->om);
  tfx_diag_free(&f->d);
  tfx_arena_free(&f->a);
  free(f);
  return 0;
}

/* ---- GraphDef attrs ---- */

static inline Tensorflow__AttrValue *lt_av(lt *f, Tensorflow__AttrValue__ValueCase c) {
  Tensorflow__AttrValue *v = tg_must(tfx_arena_alloc(&f->a, sizeof *v));
  tensorflow__attr_value__init(v);
  v->value_case = c;
  return v;
}

static inline void lt_attr(lt *f, Tensorflow__NodeDef *nd, const char *key,
                           Tensorflow__AttrValue *val) {
  Tensorflow__NodeDef__AttrEntry **v = tg_must(tfx_arena_calloc(&f->a, nd->n_attr + 1, sizeof *v));
  if (nd->n_attr) memcpy(v, nd->attr, nd->n_attr * sizeof *v);
  Tensorflow__NodeDef__AttrEntry *e = tg_must(tfx_arena_alloc(&f->a, sizeof *e));
  tensorflow__node_def__attr_entry__init(e);
  e->key = tg_must(tfx_arena_strdup(&f->a, key));
  e->value = val;
  v[nd->n_attr] = e;
  nd->attr = v;
  nd->n_attr++;
}

static inline Tensorflow__TensorShapeProto *lt_shape(lt *f, const int64_t *dims, int n) {
  Tensorflow__TensorShapeProto *s = tg_must(tfx_arena_alloc(&f->a, sizeof *s));
  tensorflow__tensor_shape_proto__init(s);
  if (n < 0) {
    s->unknown_rank = 1;
    return s;
  }
  s->dim = tg_must(tfx_arena_calloc(&f->a, n ? (size_t)n : 1, sizeof *s->dim));
  for (int k = 0; k < n; k++) {
    Tensorflow__TensorShapeProto__Dim *d = tg_must(tfx_arena_alloc(&f->a, sizeof *d));
    tensorflow__tensor_shape_proto__dim__init(d);
    d->size = dims[k];
    s->dim[k] = d;
  }
  s->n_dim = (size_t)n;
  return s;
}

static inline void lt_attr_type(lt *f, Tensorflow__NodeDef *nd, const char *key,
                                Tensorflow__DataType dt) {
  Tensorflow__AttrValue *v = lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_TYPE);
  v->type = dt;
  lt_attr(f, nd, key, v);
}

/* n < 0: unknown rank */
static inline void lt_attr_shape(lt *f, Tensorflow__NodeDef *nd, const char *key,
                                 const int64_t *dims, int n) {
  Tensorflow__AttrValue *v = lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_SHAPE);
  v->shape = lt_shape(f, dims, n);
  lt_attr(f, nd, key, v);
}

static inline void lt_attr_s(lt *f, Tensorflow__NodeDef *nd, const char *key, const char *s) {
  Tensorflow__AttrValue *v = lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_S);
  v->s.data = (uint8_t *)tg_must(tfx_arena_strdup(&f->a, s));
  v->s.len = strlen(s);
  lt_attr(f, nd, key, v);
}

static inline void lt_attr_i(lt *f, Tensorflow__NodeDef *nd, const char *key, int64_t i) {
  Tensorflow__AttrValue *v = lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_I);
  v->i = i;
  lt_attr(f, nd, key, v);
}

static inline Tensorflow__AttrValue__ListValue *lt_list(lt *f, Tensorflow__NodeDef *nd,
                                                        const char *key) {
  Tensorflow__AttrValue *v = lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_LIST);
  v->list = tg_must(tfx_arena_alloc(&f->a, sizeof *v->list));
  tensorflow__attr_value__list_value__init(v->list);
  lt_attr(f, nd, key, v);
  return v->list;
}

/* list(s) attr from a comma-separated string */
static inline void lt_attr_slist(lt *f, Tensorflow__NodeDef *nd, const char *key, const char *csv) {
  Tensorflow__AttrValue__ListValue *l = lt_list(f, nd, key);
  size_t n = 1;
  for (const char *p = csv; *p; p++) n += *p == ',';
  l->s = tg_must(tfx_arena_calloc(&f->a, n, sizeof *l->s));
  const char *p = csv;
  for (size_t k = 0; k < n; k++) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    l->s[k].data = (uint8_t *)tg_must(tfx_arena_strndup(&f->a, p, len));
    l->s[k].len = len;
    p += len + (e ? 1 : 0);
  }
  l->n_s = n;
}

static inline void lt_attr_tlist(lt *f, Tensorflow__NodeDef *nd, const char *key,
                                 const Tensorflow__DataType *t, size_t n) {
  Tensorflow__AttrValue__ListValue *l = lt_list(f, nd, key);
  l->type = tg_must(tfx_arena_calloc(&f->a, n ? n : 1, sizeof *l->type));
  if (n) memcpy(l->type, t, n * sizeof *t);
  l->n_type = n;
}

/* _output_shapes with one shape per output */
static inline void lt_out_shapes(lt *f, Tensorflow__NodeDef *nd, const int64_t *dims, int n) {
  Tensorflow__AttrValue__ListValue *l = lt_list(f, nd, "_output_shapes");
  l->shape = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *l->shape));
  l->shape[0] = lt_shape(f, dims, n);
  l->n_shape = 1;
}

static inline Tensorflow__NameAttrList *lt_fn(lt *f, const char *name) {
  Tensorflow__NameAttrList *fn = tg_must(tfx_arena_alloc(&f->a, sizeof *fn));
  tensorflow__name_attr_list__init(fn);
  fn->name = tg_must(tfx_arena_strdup(&f->a, name));
  return fn;
}

static inline void lt_attr_func(lt *f, Tensorflow__NodeDef *nd, const char *key,
                                const char *fname) {
  Tensorflow__AttrValue *v = lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_FUNC);
  v->func = lt_fn(f, fname);
  lt_attr(f, nd, key, v);
}

static inline void lt_attr_funcs(lt *f, Tensorflow__NodeDef *nd, const char *key,
                                 const char *const *names, size_t n) {
  Tensorflow__AttrValue__ListValue *l = lt_list(f, nd, key);
  l->func = tg_must(tfx_arena_calloc(&f->a, n, sizeof *l->func));
  for (size_t k = 0; k < n; k++) l->func[k] = lt_fn(f, names[k]);
  l->n_func = n;
}

/* A float tensor value attr: shape dims (n), values (nv, splat when fewer) */
static inline Tensorflow__TensorProto *lt_attr_ftensor(lt *f, Tensorflow__NodeDef *nd,
                                                       const char *key, const int64_t *dims, int n,
                                                       const float *vals, size_t nv) {
  Tensorflow__AttrValue *v = lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_TENSOR);
  Tensorflow__TensorProto *t = tg_must(tfx_arena_alloc(&f->a, sizeof *t));
  tensorflow__tensor_proto__init(t);
  t->dtype = TENSORFLOW__DATA_TYPE__DT_FLOAT;
  t->tensor_shape = lt_shape(f, dims, n);
  t->float_val = tg_must(tfx_arena_calloc(&f->a, nv ? nv : 1, sizeof *t->float_val));
  if (nv) memcpy(t->float_val, vals, nv * sizeof *vals);
  t->n_float_val = nv;
  v->tensor = t;
  lt_attr(f, nd, key, v);
  return t;
}

static inline Tensorflow__NodeDef *lt_nd(Tensorflow__GraphDef *gd, const char *name) {
  for (size_t k = 0; k < gd->n_node; k++)
    if (strcmp(gd->node[k]->name, name) == 0) return gd->node[k];
  fail_msg("no node %s", name);
  return NULL;
}

static inline Tensorflow__NodeDef *lt_fnd(Tensorflow__FunctionDef *fd, const char *name) {
  for (size_t k = 0; k < fd->n_node_def; k++)
    if (strcmp(fd->node_def[k]->name, name) == 0) return fd->node_def[k];
  fail_msg("no node %s", name);
  return NULL;
}

/* Adds signature output arg `out` with ret value `val`. */
static inline void lt_ret(lt *f, Tensorflow__FunctionDef *fd, const char *out, const char *val) {
  Tensorflow__OpDef *sig = fd->signature;
  Tensorflow__OpDef__ArgDef **oa =
      tg_must(tfx_arena_calloc(&f->a, sig->n_output_arg + 1, sizeof *oa));
  if (sig->n_output_arg) memcpy(oa, sig->output_arg, sig->n_output_arg * sizeof *oa);
  Tensorflow__OpDef__ArgDef *ad = tg_must(tfx_arena_alloc(&f->a, sizeof *ad));
  tensorflow__op_def__arg_def__init(ad);
  ad->name = tg_must(tfx_arena_strdup(&f->a, out));
  oa[sig->n_output_arg] = ad;
  sig->output_arg = oa;
  sig->n_output_arg++;
  Tensorflow__FunctionDef__RetEntry **re =
      tg_must(tfx_arena_calloc(&f->a, fd->n_ret + 1, sizeof *re));
  if (fd->n_ret) memcpy(re, fd->ret, fd->n_ret * sizeof *re);
  Tensorflow__FunctionDef__RetEntry *e = tg_must(tfx_arena_alloc(&f->a, sizeof *e));
  tensorflow__function_def__ret_entry__init(e);
  e->key = ad->name;
  e->value = tg_must(tfx_arena_strdup(&f->a, val));
  re[fd->n_ret] = e;
  fd->ret = re;
  fd->n_ret++;
}

/* ---- module and mapping ---- */

/* Indexes gd and gives every graph an all-NONE mapping. */
static inline void lt_build(lt *f, Tensorflow__GraphDef *gd) {
  if (tfx_module_build(&f->m, gd, "t.pb", &f->d) != 0) {
    tg_dump(&f->d);
    fail_msg("module build failed");
  }
  f->om.main.g = &f->m.main;
  f->om.main.ops = tg_must(tfx_arena_calloc(&f->a, f->m.main.n_nodes + 1, sizeof *f->om.main.ops));
  f->om.n_funcs = f->m.n_funcs;
  f->om.funcs = tg_must(tfx_arena_calloc(&f->a, f->m.n_funcs + 1, sizeof *f->om.funcs));
  for (uint32_t i = 0; i < f->m.n_funcs; i++) {
    f->om.funcs[i].g = &f->m.funcs[i];
    f->om.funcs[i].ops =
        tg_must(tfx_arena_calloc(&f->a, f->m.funcs[i].n_nodes + 1, sizeof *f->om.funcs[i].ops));
  }
}

static inline tfx_mapped_graph *lt_fgraph(lt *f, const char *fname) {
  for (uint32_t i = 0; i < f->m.n_funcs; i++)
    if (strcmp(f->m.funcs[i].name, fname) == 0) return &f->om.funcs[i];
  fail_msg("no function %s", fname);
  return NULL;
}

static inline tfx_mapped_op *lt_mop(tfx_mapped_graph *mg, const char *node) {
  uint32_t id = tfx_graph_find(mg->g, node);
  if (id == TFX_NO_ID) fail_msg("no node %s", node);
  return &mg->ops[id];
}

/* Ports from "name:tf[?|*][@FMT],..." ('?' optional, '*' dynamic with ir = name minus trailing
 * digits); "" = none. */
static inline tfx_map_port *lt_ports(lt *f, const char *spec, uint32_t *n) {
  *n = 0;
  if (!*spec) return NULL;
  size_t cnt = 1;
  for (const char *p = spec; *p; p++) cnt += *p == ',';
  tfx_map_port *v = tg_must(tfx_arena_calloc(&f->a, cnt, sizeof *v));
  const char *p = spec;
  for (size_t k = 0; k < cnt; k++) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char buf[128];
    snprintf(buf, sizeof buf, "%.*s", (int)len, p);
    char *fmt = strchr(buf, '@');
    if (fmt) *fmt++ = '\0';
    char *colon = strchr(buf, ':');
    if (!colon) fail_msg("bad port spec %s", buf);
    *colon = '\0';
    char *num = colon + 1;
    uint8_t kind = TFX_CANN_REQ;
    size_t nl = strlen(num);
    if (nl && num[nl - 1] == '?')
      kind = TFX_CANN_OPT, num[nl - 1] = '\0';
    else if (nl && num[nl - 1] == '*')
      kind = TFX_CANN_DYN, num[nl - 1] = '\0';
    v[k].name = tg_must(tfx_arena_strdup(&f->a, buf));
    v[k].tf_port = (int32_t)atoi(num);
    v[k].kind = kind;
    v[k].format = tg_must(tfx_arena_strdup(&f->a, fmt ? fmt : "ND"));
    size_t il = strlen(buf);
    if (kind == TFX_CANN_DYN)
      while (il > 1 && isdigit((unsigned char)buf[il - 1])) il--;
    v[k].ir_name = tg_must(tfx_arena_strndup(&f->a, buf, il));
    p += len + (e ? 1 : 0);
  }
  *n = (uint32_t)cnt;
  return v;
}

/* Maps node as `how` to type with ports; `auto`: every TF attr not starting with '_' copied
 * (tf set). The prototype is looked up in the stdlib table. */
static inline tfx_mapped_op *lt_map(lt *f, tfx_mapped_graph *mg, const char *node, const char *type,
                                    const char *ins, const char *outs) {
  tfx_mapped_op *op = lt_mop(mg, node);
  const tfx_node *nd = &mg->g->nodes[tfx_graph_find(mg->g, node)];
  op->how = TFX_MAP_RULE;
  op->type = tg_must(tfx_arena_strdup(&f->a, type));
  op->proto = tfx_cann_find(f->protos, type);
  op->in = lt_ports(f, ins, &op->n_in);
  op->out = lt_ports(f, outs, &op->n_out);
  size_t na = 0;
  for (size_t k = 0; k < nd->def->n_attr; k++) na += nd->def->attr[k]->key[0] != '_';
  op->attrs = tg_must(tfx_arena_calloc(&f->a, na + 8, sizeof *op->attrs));
  for (size_t k = 0; k < nd->def->n_attr; k++) {
    if (nd->def->attr[k]->key[0] == '_') continue;
    op->attrs[op->n_attrs].name = nd->def->attr[k]->key;
    op->attrs[op->n_attrs++].tf = nd->def->attr[k]->value;
  }
  return op;
}

/* Adds a rule attr (v set). */
static inline void lt_map_attr(tfx_mapped_op *op, const char *name, tfx_value v) {
  op->attrs[op->n_attrs].name = name;
  op->attrs[op->n_attrs].tf = NULL;
  op->attrs[op->n_attrs++].v = v;
}

static inline void lt_map_dyn(lt *f, tfx_mapped_op *op, const char *name, int is_out,
                              uint32_t count) {
  tfx_map_dyn *v = tg_must(tfx_arena_calloc(&f->a, op->n_dyn + 1, sizeof *v));
  if (op->n_dyn) memcpy(v, op->dyn, op->n_dyn * sizeof *v);
  v[op->n_dyn].name = name;
  v[op->n_dyn].is_output = (uint8_t)is_out;
  v[op->n_dyn].count = count;
  op->dyn = v;
  op->n_dyn++;
}

static inline int lt_lower(lt *f) {
  tfx_ge_model_free(&f->gm);
  if (f->prune.n_shapes || f->prune.n_outs) f->o.prune = &f->prune;
  return tfx_ge_lower(&f->gm, &f->m, &f->om, f->protos, &f->o, &f->d);
}

static inline int lt_lower_ok(lt *f) {
  int rc = lt_lower(f);
  if (rc != 0 || f->d.errors) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  assert_non_null(f->gm.model);
  return rc;
}

/* Lowers f's module whole and streaming (tfx_ge_lower_opts.stream_air: shared descriptors and
 * port lists written once, air_write.h's memo) and asserts the same .air bytes; f->gm holds the
 * whole model again afterwards, for the queries. */
static inline void lt_same_streamed(lt *f) {
  assert_int_equal(lt_lower(f), 0);
  tfx_io_pieces ref;
  size_t nref = 0;
  assert_int_equal(tfx_ge_air_write(f->gm.model, SIZE_MAX, &ref, &nref), 0);
  f->o.stream_air = 1;
  f->o.air_max = SIZE_MAX;
  int rc = lt_lower(f);
  f->o.stream_air = 0;
  assert_int_equal(rc, 0);
  assert_true(f->gm.streamed);
  assert_null(f->gm.model);
  assert_int_equal(f->gm.air.total, nref);
  size_t at = 0, ri = 0, ro = 0; /* compared piece by piece (the chunkings differ) */
  for (size_t i = 0; i < f->gm.air.n; i++)
    for (size_t k = 0; k < f->gm.air.p[i].len; k++, at++) {
      while (ro == ref.p[ri].len) ri++, ro = 0;
      const uint8_t *a = f->gm.air.p[i].data, *b = ref.p[ri].data;
      if (a[k] != b[ro++])
        fail_msg("streamed .air differs from the whole model's at byte %zu", at);
    }
  assert_int_equal(at, nref);
  tfx_io_pieces_free(&ref);
  tfx_diag_free(&f->d); /* the diagnostics of one lowering, as lt_lower_ok left them */
  tfx_diag_init(&f->d);
  assert_int_equal(lt_lower(f), 0);
}

/* ---- queries ---- */

static inline const Ge__Proto__GraphDef *lt_graph(const lt *f, const char *name) {
  for (size_t i = 0; i < f->gm.model->n_graph; i++)
    if (strcmp(f->gm.model->graph[i]->name, name) == 0) return f->gm.model->graph[i];
  fail_msg("no graph %s", name);
  return NULL;
}

static inline const Ge__Proto__OpDef *lt_op_in(const Ge__Proto__GraphDef *g, const char *name) {
  for (size_t i = 0; i < g->n_op; i++)
    if (strcmp(g->op[i]->name, name) == 0) return g->op[i];
  fail_msg("no op %s in graph %s", name, g->name);
  return NULL;
}

static inline const Ge__Proto__OpDef *lt_op(const lt *f, const char *name) {
  return lt_op_in(f->gm.model->graph[0], name);
}

static inline int lt_has_op(const Ge__Proto__GraphDef *g, const char *name) {
  for (size_t i = 0; i < g->n_op; i++)
    if (strcmp(g->op[i]->name, name) == 0) return 1;
  return 0;
}

static inline const Ge__Proto__AttrDef *lt_oattr(const Ge__Proto__OpDef *op, const char *key) {
  return tfx_ge_op_attr_get(op, key);
}

static inline const Ge__Proto__AttrDef *lt_dattr(const Ge__Proto__TensorDescriptor *td,
                                                 const char *key) {
  return tfx_ge_td_attr_get(td, key);
}

/* Joins a string array with ',' into a static buffer. */
static inline const char *lt_join(char *const *v, size_t n) {
  static char buf[2048];
  size_t w = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < n; k++) {
    int r = snprintf(buf + w, sizeof buf - w, "%s%s", k ? "," : "", v[k]);
    if (r < 0 || (size_t)r >= sizeof buf - w) break;
    w += (size_t)r;
  }
  return buf;
}

static inline const char *lt_inputs(const Ge__Proto__OpDef *op) {
  return lt_join(op->input, op->n_input);
}

/* Joins a list attr's strings. */
static inline const char *lt_slist(const Ge__Proto__AttrDef *a) {
  static char buf[1024];
  size_t w = 0;
  buf[0] = '\0';
  assert_non_null(a);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_LIST);
  assert_int_equal(a->list->val_type,
                   GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_STRING);
  for (size_t k = 0; k < a->list->n_s; k++) {
    int r = snprintf(buf + w, sizeof buf - w, "%s%.*s", k ? "," : "", (int)a->list->s[k].len,
                     (const char *)a->list->s[k].data);
    if (r < 0 || (size_t)r >= sizeof buf - w) break;
    w += (size_t)r;
  }
  return buf;
}

/* Joins a list attr's ints. */
static inline const char *lt_ilist(const Ge__Proto__AttrDef *a) {
  static char buf[1024];
  size_t w = 0;
  buf[0] = '\0';
  assert_non_null(a);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_LIST);
  assert_int_equal(a->list->val_type,
                   GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT);
  for (size_t k = 0; k < a->list->n_i; k++) {
    int r = snprintf(buf + w, sizeof buf - w, "%s%lld", k ? "," : "", (long long)a->list->i[k]);
    if (r < 0 || (size_t)r >= sizeof buf - w) break;
    w += (size_t)r;
  }
  return buf;
}

static inline const char *lt_dims(const Ge__Proto__TensorDescriptor *td) {
  static char buf[256];
  size_t w = 0;
  buf[0] = '\0';
  assert_non_null(td->shape);
  for (size_t k = 0; k < td->shape->n_dim; k++) {
    int r = snprintf(buf + w, sizeof buf - w, "%s%lld", k ? "," : "", (long long)td->shape->dim[k]);
    if (r < 0 || (size_t)r >= sizeof buf - w) break;
    w += (size_t)r;
  }
  return buf;
}

static inline int64_t lt_int(const Ge__Proto__AttrDef *a) {
  assert_non_null(a);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_I);
  return a->i;
}

/* Every list attr anywhere in the model has a val_type (docs/AIR.md §6.3). */
static inline void lt_check_val_types(const lt *f) {
  const Ge__Proto__ModelDef *m = f->gm.model;
  for (size_t g = 0; g < m->n_graph; g++)
    for (size_t i = 0; i < m->graph[g]->n_op; i++) {
      const Ge__Proto__OpDef *op = m->graph[g]->op[i];
      for (size_t k = 0; k < op->n_attr; k++) {
        const Ge__Proto__AttrDef *a = op->attr[k]->value;
        if (a->value_case == GE__PROTO__ATTR_DEF__VALUE_LIST)
          assert_int_not_equal(a->list->val_type,
                               GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_NONE);
      }
      for (int dir = 0; dir < 2; dir++) {
        size_t n = dir ? op->n_output_desc : op->n_input_desc;
        Ge__Proto__TensorDescriptor **v = dir ? op->output_desc : op->input_desc;
        for (size_t k = 0; k < n; k++)
          for (size_t j = 0; j < v[k]->n_attr; j++)
            if (v[k]->attr[j]->value->value_case == GE__PROTO__ATTR_DEF__VALUE_LIST)
              assert_int_not_equal(v[k]->attr[j]->value->list->val_type,
                                   GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_NONE);
      }
    }
}

#endif
