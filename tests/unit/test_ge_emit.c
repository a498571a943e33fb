/* Unit tests for the GE IR emitters (src/ge/emit.c, emit_json.c, emit_dot.c): a small
 * ModelDef built here (Data -> Relu -> PartitionedCall(subgraph) -> NetOutput, an attr of every
 * kind, a fused node, a name scope) written by each emitter. Binary output must equal
 * protobuf-c's own packing and unpack to the same content, be identical across runs and be
 * refused past 2 GiB; text output must parse back to the same bytes; JSON and DOT are checked
 * for the mapping's key points and for escaping. Every allocation failure is driven through
 * each emitter. Rendering with dot, protoc and air_check.py are in tests/cli/ge_emit*.sh. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ge/ge.h"
#include "io/io.h"
#include "io/pbtxt.h"
#include "util/arena.h"

typedef struct fx {
  tfx_arena a;
  tfx_diag d;
  Ge__Proto__ModelDef *m;
} fx;

static tfx_arena *cur; /* the arena the builders below allocate from */

static void *A(size_t n) {
  void *p = tfx_arena_calloc(cur, 1, n);
  assert_non_null(p);
  return p;
}

static char *S(const char *s) {
  char *p = tfx_arena_strdup(cur, s);
  assert_non_null(p);
  return p;
}

/* Appends x to the pointer array *arr of *n elements (arena copy). */
static void push(void *arrp, size_t *n, void *x) {
  void ***arr = arrp;
  void **na = A((*n + 1) * sizeof *na);
  if (*n) memcpy(na, *arr, *n * sizeof *na);
  na[(*n)++] = x;
  *arr = na;
}

static ProtobufCBinaryData B(const void *p, size_t n) {
  uint8_t *d = A(n ? n : 1);
  memcpy(d, p, n);
  return (ProtobufCBinaryData){n, d};
}

static Ge__Proto__AttrDef *attr(void) {
  Ge__Proto__AttrDef *a = A(sizeof *a);
  ge__proto__attr_def__init(a);
  return a;
}

static Ge__Proto__AttrDef *attr_i(int64_t v) {
  Ge__Proto__AttrDef *a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_I;
  a->i = v;
  return a;
}

static Ge__Proto__AttrDef *attr_s(const char *s) {
  Ge__Proto__AttrDef *a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_S;
  a->s = B(s, strlen(s));
  return a;
}

static Ge__Proto__AttrDef__ListValue *list(Ge__Proto__AttrDef *a, int vt) {
  Ge__Proto__AttrDef__ListValue *l = A(sizeof *l);
  ge__proto__attr_def__list_value__init(l);
  l->val_type = vt;
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_LIST;
  a->list = l;
  return l;
}

static Ge__Proto__AttrDef *attr_ls(int vt, size_t n, const char *const *s) {
  Ge__Proto__AttrDef *a = attr();
  Ge__Proto__AttrDef__ListValue *l = list(a, vt);
  l->n_s = n;
  l->s = A(n * sizeof *l->s);
  for (size_t i = 0; i < n; i++) l->s[i] = B(s[i], strlen(s[i]));
  return a;
}

static Ge__Proto__AttrDef *attr_li(int vt, size_t n, const int64_t *v) {
  Ge__Proto__AttrDef *a = attr();
  Ge__Proto__AttrDef__ListValue *l = list(a, vt);
  l->n_i = n;
  l->i = A(n * sizeof *l->i);
  memcpy(l->i, v, n * sizeof *v);
  return a;
}

/* map entries: every GE map has the same entry layout (base, key, value) */
typedef struct entry {
  ProtobufCMessage base;
  char *key;
  Ge__Proto__AttrDef *value;
} entry;

static void put(const ProtobufCMessageDescriptor *ed, void *arrp, size_t *n, const char *key,
                Ge__Proto__AttrDef *v) {
  entry *e = A(ed->sizeof_message);
  protobuf_c_message_init(ed, e);
  e->key = S(key);
  e->value = v;
  push(arrp, n, e);
}

#define OP_ATTR(op, k, v) put(&ge__proto__op_def__attr_entry__descriptor, &(op)->attr, &(op)->n_attr, k, v)
#define TD_ATTR(td, k, v) \
  put(&ge__proto__tensor_descriptor__attr_entry__descriptor, &(td)->attr, &(td)->n_attr, k, v)

static Ge__Proto__TensorDescriptor *desc(const char *name, int dt, size_t nd, const int64_t *dims) {
  Ge__Proto__TensorDescriptor *d = A(sizeof *d);
  ge__proto__tensor_descriptor__init(d);
  d->name = S(name);
  d->dtype = dt;
  d->shape = A(sizeof *d->shape);
  ge__proto__shape_def__init(d->shape);
  d->shape->n_dim = nd;
  d->shape->dim = A((nd ? nd : 1) * sizeof *dims);
  if (nd) memcpy(d->shape->dim, dims, nd * sizeof *dims);
  d->layout = S("ND");
  TD_ATTR(d, "origin_format", attr_s("ND"));
  return d;
}

static const int64_t dims14[] = {1, 4};

static Ge__Proto__OpDef *op(Ge__Proto__GraphDef *g, const char *name, const char *type) {
  Ge__Proto__OpDef *o = A(sizeof *o);
  ge__proto__op_def__init(o);
  o->name = S(name);
  o->type = S(type);
  push(&g->op, &g->n_op, o);
  return o;
}

static void in(Ge__Proto__OpDef *o, const char *s) { push(&o->input, &o->n_input, S(s)); }

/* One input and one output desc named x / y, with the port-name lists (sorted keys). */
static void ports(Ge__Proto__OpDef *o, int nin, int nout) {
  const char *x = "x", *y = "y";
  const int64_t zero = 0;
  if (nin) {
    push(&o->input_desc, &o->n_input_desc, desc("x", GE__PROTO__DATA_TYPE__DT_FLOAT, 2, dims14));
    OP_ATTR(o, "_input_name_key", attr_ls(0, 1, &x));
    OP_ATTR(o, "_input_name_value", attr_li(0, 1, &zero));
  }
  if (nout) {
    push(&o->output_desc, &o->n_output_desc, desc("y", GE__PROTO__DATA_TYPE__DT_FLOAT, 2, dims14));
    OP_ATTR(o, "_output_name_key", attr_ls(0, 1, &y));
    OP_ATTR(o, "_output_name_value", attr_li(0, 1, &zero));
  }
}

static Ge__Proto__GraphDef *graph(Ge__Proto__ModelDef *m, const char *name) {
  Ge__Proto__GraphDef *g = A(sizeof *g);
  ge__proto__graph_def__init(g);
  g->name = S(name);
  push(&m->graph, &m->n_graph, g);
  return g;
}

/* Every attr kind, keys in sorted order (as tfx_ge_sort_maps leaves them). */
static void all_kinds(Ge__Proto__OpDef *o) {
  static const char *const names[] = {"orig/a", "orig/b"};
  OP_ATTR(o, "_datadump_original_op_names", attr_ls(GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_STRING, 2, names));
  OP_ATTR(o, "_fusionop_original_type", attr_s("FusedThing"));
  const char *x = "x", *y = "y";
  const int64_t zero = 0;
  OP_ATTR(o, "_input_name_key", attr_ls(0, 1, &x));
  OP_ATTR(o, "_input_name_value", attr_li(0, 1, &zero));
  OP_ATTR(o, "_output_name_key", attr_ls(0, 1, &y));
  OP_ATTR(o, "_output_name_value", attr_li(0, 1, &zero));
  Ge__Proto__AttrDef *a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_B;
  a->b = 1;
  OP_ATTR(o, "a_b", a);
  a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_BT;
  a->bt = B("\0\377\"\n", 4);
  OP_ATTR(o, "a_bt", a);
  a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_DT;
  a->dt = 0; /* C++ DT_FLOAT: a set oneof member at its default still gets written */
  OP_ATTR(o, "a_dt", a);
  a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_F;
  a->f = 0.1f;
  OP_ATTR(o, "a_f", a);
  a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_FUNC;
  a->func = A(sizeof *a->func);
  ge__proto__named_attrs__init(a->func);
  a->func->name = S("fn");
  put(&ge__proto__named_attrs__attr_entry__descriptor, &a->func->attr, &a->func->n_attr, "k", attr_i(1));
  OP_ATTR(o, "a_func", a);
  a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_G;
  a->g = A(sizeof *a->g);
  ge__proto__graph_def__init(a->g);
  a->g->name = S("inner");
  OP_ATTR(o, "a_g", a);
  OP_ATTR(o, "a_i", attr_i(-5));
  a = attr();
  Ge__Proto__AttrDef__ListValue *l = list(a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_BOOL);
  l->n_b = 2;
  l->b = A(2 * sizeof *l->b);
  l->b[0] = 1;
  OP_ATTR(o, "a_list_b", a);
  a = attr();
  l = list(a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_BYTES);
  l->n_bt = 1;
  l->bt = A(sizeof *l->bt);
  l->bt[0] = B("\1\2", 2);
  OP_ATTR(o, "a_list_bt", a);
  static const int64_t dts[] = {0, 3, 9};
  a = attr();
  l = list(a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_DATA_TYPE);
  l->n_dt = 3;
  l->dt = A(3 * sizeof *l->dt);
  memcpy(l->dt, dts, sizeof dts);
  OP_ATTR(o, "a_list_dt", a);
  a = attr();
  l = list(a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_FLOAT);
  l->n_f = 4;
  l->f = A(4 * sizeof *l->f);
  l->f[0] = 1.5f, l->f[1] = -0.0f, l->f[2] = INFINITY, l->f[3] = NAN;
  OP_ATTR(o, "a_list_f", a);
  a = attr();
  l = list(a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_GRAPH);
  Ge__Proto__GraphDef *lg = A(sizeof *lg);
  ge__proto__graph_def__init(lg);
  lg->name = S("listed");
  push(&l->g, &l->n_g, lg);
  OP_ATTR(o, "a_list_g", a);
  static const int64_t is[] = {1, -1, INT64_MAX, INT64_MIN};
  OP_ATTR(o, "a_list_i", attr_li(GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT, 4, is));
  a = attr();
  l = list(a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_NAMED_ATTRS);
  Ge__Proto__NamedAttrs *na = A(sizeof *na);
  ge__proto__named_attrs__init(na);
  na->name = S("na0");
  push(&l->na, &l->n_na, na);
  OP_ATTR(o, "a_list_na", a);
  static const char *const ss[] = {"p", "q"};
  OP_ATTR(o, "a_list_s", attr_ls(GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_STRING, 2, ss));
  a = attr();
  l = list(a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_TENSOR);
  Ge__Proto__TensorDef *lt = A(sizeof *lt);
  ge__proto__tensor_def__init(lt);
  lt->desc = desc("", GE__PROTO__DATA_TYPE__DT_INT32, 0, NULL);
  lt->data = B("\7\0\0\0", 4);
  push(&l->t, &l->n_t, lt);
  OP_ATTR(o, "a_list_t", a);
  a = attr();
  l = list(a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_TENSOR_DESC);
  push(&l->td, &l->n_td, desc("ltd", GE__PROTO__DATA_TYPE__DT_FLOAT16, 2, dims14));
  OP_ATTR(o, "a_list_td", a);
  a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_FLOAT;
  a->list_list_float = A(sizeof *a->list_list_float);
  ge__proto__attr_def__list_list_float__init(a->list_list_float);
  Ge__Proto__AttrDef__ListListFloat__ListFloat *lf = A(sizeof *lf);
  ge__proto__attr_def__list_list_float__list_float__init(lf);
  lf->n_list_f = 2;
  lf->list_f = A(2 * sizeof(float));
  lf->list_f[0] = 0.5f, lf->list_f[1] = 2.0f;
  push(&a->list_list_float->list_list_f, &a->list_list_float->n_list_list_f, lf);
  OP_ATTR(o, "a_llf", a);
  a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_INT;
  a->list_list_int = A(sizeof *a->list_list_int);
  ge__proto__attr_def__list_list_int__init(a->list_list_int);
  for (int k = 0; k < 2; k++) {
    Ge__Proto__AttrDef__ListListInt__ListInt *li = A(sizeof *li);
    ge__proto__attr_def__list_list_int__list_int__init(li);
    li->n_list_i = (size_t)k + 1;
    li->list_i = A(2 * sizeof(int64_t));
    li->list_i[0] = 3, li->list_i[1] = -4;
    push(&a->list_list_int->list_list_i, &a->list_list_int->n_list_list_i, li);
  }
  OP_ATTR(o, "a_lli", a);
  OP_ATTR(o, "a_s", attr_s("quote\" nl\n ctl\1 hi\377"));
  a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_T;
  a->t = A(sizeof *a->t);
  ge__proto__tensor_def__init(a->t);
  static const int64_t d2[] = {2};
  a->t->desc = desc("", GE__PROTO__DATA_TYPE__DT_INT64, 1, d2);
  a->t->data = B("\1\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0", 16);
  OP_ATTR(o, "a_t", a);
  a = attr();
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_TD;
  a->td = desc("td", GE__PROTO__DATA_TYPE__DT_BOOL, 0, NULL);
  OP_ATTR(o, "a_td", a);
}

/* main: x (Data) -> scope/relu (Relu, every attr kind, fused) -> scope/id (Identity)
 *       -> call (PartitionedCall, subgraph "sub") -> out (NetOutput); control x -> scope/id.
 * sub:  sub/arg (Data, _parent_node_index 0) -> sub/ret (NetOutput). */
static Ge__Proto__ModelDef *build(tfx_arena *a) {
  cur = a;
  Ge__Proto__ModelDef *m = A(sizeof *m);
  ge__proto__model_def__init(m);
  m->name = S("tiny");
  m->version = 1;
  m->custom_version = S("v\1\377\"");
  put(&ge__proto__model_def__attr_entry__descriptor, &m->attr, &m->n_attr, "target_type", attr_s("MINI"));

  Ge__Proto__GraphDef *g = graph(m, "main");
  Ge__Proto__OpDef *x = op(g, "x", "Data");
  ports(x, 1, 1);
  OP_ATTR(x, "index", attr_i(0));
  x->id = 0;

  Ge__Proto__OpDef *r = op(g, "scope/relu", "Relu");
  in(r, "x:0");
  push(&r->input_desc, &r->n_input_desc, desc("x", GE__PROTO__DATA_TYPE__DT_FLOAT, 2, dims14));
  push(&r->output_desc, &r->n_output_desc, desc("y", GE__PROTO__DATA_TYPE__DT_FLOAT, 2, dims14));
  all_kinds(r);
  r->id = 1;

  Ge__Proto__OpDef *id = op(g, "scope/id", "Identity");
  in(id, "scope/relu:0");
  in(id, "x:-1");
  ports(id, 1, 1);
  id->id = 2;

  Ge__Proto__OpDef *c = op(g, "call", "PartitionedCall");
  in(c, "scope/id:0");
  ports(c, 1, 1);
  push(&c->subgraph_name, &c->n_subgraph_name, S("sub"));
  c->id = 3;

  Ge__Proto__OpDef *o = op(g, "out", "NetOutput");
  in(o, "call:0");
  ports(o, 1, 0);
  o->id = 4;

  Ge__Proto__GraphDef *s = graph(m, "sub");
  Ge__Proto__OpDef *sa = op(s, "sub/arg", "Data");
  ports(sa, 1, 1);
  OP_ATTR(sa, "_parent_node_index", attr_i(0));
  OP_ATTR(sa, "index", attr_i(0));
  Ge__Proto__OpDef *sr = op(s, "sub/ret", "NetOutput");
  in(sr, "sub/arg:0");
  ports(sr, 1, 0);
  TD_ATTR(sr->input_desc[0], "_parent_node_index", attr_i(0));
  return m;
}

static int fx_setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f) return -1;
  tfx_arena_init(&f->a);
  tfx_diag_init(&f->d);
  f->m = build(&f->a);
  *state = f;
  return 0;
}

static int fx_teardown(void **state) {
  fx *f = *state;
  tfx_arena_free(&f->a);
  tfx_diag_free(&f->d);
  free(f);
  return 0;
}

typedef int (*emit_fn)(const Ge__Proto__ModelDef *, tfx_strbuf *, tfx_diag *);

static void emit_ok(fx *f, emit_fn fn, tfx_strbuf *out) {
  tfx_sb_init(out);
  tfx_diag_clear(&f->d);
  int rc = fn(f->m, out, &f->d);
  if (rc) tfx_diag_print(&f->d, stderr);
  assert_int_equal(rc, 0);
  assert_false(out->oom);
  assert_int_equal(f->d.errors, 0);
}

static void expect_has(const tfx_strbuf *out, const char *want) {
  if (!strstr(out->data, want)) {
    fprintf(stderr, "missing in output: %s\n", want);
    fail();
  }
}

static const Ge__Proto__AttrDef *find_attr(const Ge__Proto__OpDef *o, const char *k) {
  for (size_t i = 0; i < o->n_attr; i++)
    if (strcmp(o->attr[i]->key, k) == 0) return o->attr[i]->value;
  return NULL;
}

/* ---- air ---- */

static void air_matches_protobuf_c(void **state) {
  fx *f = *state;
  tfx_strbuf out;
  emit_ok(f, tfx_ge_emit_air, &out);
  /* protobuf-c's packer is an independent oracle here: every map entry has a key and value */
  size_t n = protobuf_c_message_get_packed_size(&f->m->base);
  uint8_t *ref = malloc(n);
  assert_non_null(ref);
  assert_int_equal(protobuf_c_message_pack(&f->m->base, ref), n);
  assert_int_equal(out.len, n);
  assert_memory_equal(out.data, ref, n);
  free(ref);

  Ge__Proto__ModelDef *u = (Ge__Proto__ModelDef *)protobuf_c_message_unpack(
      &ge__proto__model_def__descriptor, NULL, out.len, (const uint8_t *)out.data);
  assert_non_null(u);
  assert_string_equal(u->name, "tiny");
  assert_int_equal(u->version, 1);
  assert_int_equal(u->n_graph, 2);
  assert_string_equal(u->graph[1]->name, "sub");
  const Ge__Proto__OpDef *r = u->graph[0]->op[1];
  assert_string_equal(r->name, "scope/relu");
  assert_int_equal(r->n_attr, f->m->graph[0]->op[1]->n_attr);
  for (size_t i = 0; i < r->n_attr; i++) /* stored order kept */
    assert_string_equal(r->attr[i]->key, f->m->graph[0]->op[1]->attr[i]->key);
  const Ge__Proto__AttrDef *a = find_attr(r, "a_dt");
  assert_non_null(a);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_DT);
  assert_int_equal(a->dt, 0);
  a = find_attr(r, "a_bt");
  assert_int_equal(a->bt.len, 4);
  assert_memory_equal(a->bt.data, "\0\377\"\n", 4);
  a = find_attr(r, "a_list_i");
  assert_int_equal(a->list->n_i, 4);
  assert_true(a->list->i[3] == INT64_MIN);
  a = find_attr(r, "a_list_f");
  assert_true(signbit(a->list->f[1]) && isinf(a->list->f[2]) && isnan(a->list->f[3]));
  a = find_attr(r, "a_lli");
  assert_int_equal(a->list_list_int->n_list_list_i, 2);
  assert_int_equal(a->list_list_int->list_list_i[1]->list_i[1], -4);
  assert_string_equal(u->graph[0]->op[2]->input[1], "x:-1");
  /* the same bytes again after a decode: nothing was lost */
  tfx_strbuf again;
  tfx_sb_init(&again);
  assert_int_equal(tfx_ge_emit_air(u, &again, &f->d), 0);
  assert_int_equal(again.len, out.len);
  assert_memory_equal(again.data, out.data, out.len);
  protobuf_c_message_free_unpacked(&u->base, NULL);
  tfx_sb_free(&again);
  tfx_sb_free(&out);
}

static void air_deterministic_and_appends(void **state) {
  fx *f = *state;
  tfx_strbuf a1, a2;
  emit_ok(f, tfx_ge_emit_air, &a1);
  tfx_sb_init(&a2);
  tfx_sb_puts(&a2, "prefix");
  assert_int_equal(tfx_ge_emit_air(f->m, &a2, &f->d), 0);
  assert_int_equal(a2.len, a1.len + 6);
  assert_memory_equal(a2.data, "prefix", 6);
  assert_memory_equal(a2.data + 6, a1.data, a1.len);
  tfx_sb_free(&a1);
  tfx_sb_free(&a2);
}

/* A Const whose payload claims INT_MAX bytes: refused from the size alone (the bytes are never
 * read), nothing appended, a message naming the limit. */
static void air_refuses_2gib(void **state) {
  fx *f = *state;
  cur = &f->a;
  Ge__Proto__OpDef *c = op(f->m->graph[0], "big", "Const");
  Ge__Proto__AttrDef *v = attr();
  v->value_case = GE__PROTO__ATTR_DEF__VALUE_T;
  v->t = A(sizeof *v->t);
  ge__proto__tensor_def__init(v->t);
  static uint8_t byte;
  v->t->data.data = &byte;
  v->t->data.len = (size_t)INT_MAX;
  OP_ATTR(c, "value", v);
  tfx_strbuf out;
  tfx_sb_init(&out);
  tfx_sb_puts(&out, "keep");
  tfx_diag_clear(&f->d);
  assert_int_not_equal(tfx_ge_emit_air(f->m, &out, &f->d), 0);
  assert_int_equal(out.len, 4);
  assert_string_equal(out.data, "keep");
  assert_int_equal(f->d.errors, 1);
  assert_non_null(strstr(f->d.items[0].msg, "2 GiB"));
  /* a payload just under the limit still makes the whole model too big */
  v->t->data.len = (size_t)INT_MAX - 64;
  tfx_diag_clear(&f->d);
  assert_int_not_equal(tfx_ge_emit_air(f->m, &out, &f->d), 0);
  assert_int_equal(out.len, 4);
  tfx_sb_free(&out);
}

/* ---- pbtxt ---- */

static void pbtxt_parses_back_to_same_bytes(void **state) {
  fx *f = *state;
  tfx_strbuf txt, bin, re;
  emit_ok(f, tfx_ge_emit_pbtxt, &txt);
  emit_ok(f, tfx_ge_emit_air, &bin);
  /* GE dump style: map entries as attr { key: ... value { ... } }, 2-space indent */
  expect_has(&txt, "name: \"tiny\"\nversion: 1\ncustom_version: \"v\\001\\377\\\"\"\ngraph {\n  name: \"main\"\n");
  expect_has(&txt, "    attr {\n      key: \"a_i\"\n      value {\n        i: -5\n      }\n    }\n");
  expect_has(&txt, "      key: \"a_dt\"\n      value {\n        dt: 0\n      }\n");
  expect_has(&txt, "          val_type: VT_LIST_INT\n");
  expect_has(&txt, "    input: \"x:-1\"\n");
  expect_has(&txt, "      dtype: DT_FLOAT\n");
  tfx_arena a;
  tfx_arena_init(&a);
  ProtobufCMessage *m = tfx_pbtxt_parse(&ge__proto__model_def__descriptor, txt.data, txt.len, "emitted.pbtxt", &a,
                                        NULL, &f->d);
  if (!m) tfx_diag_print(&f->d, stderr);
  assert_non_null(m);
  tfx_sb_init(&re);
  assert_int_equal(tfx_io_pack(m, &re), 0);
  assert_int_equal(re.len, bin.len);
  assert_memory_equal(re.data, bin.data, bin.len);
  tfx_arena_free(&a);
  tfx_sb_free(&txt);
  tfx_sb_free(&bin);
  tfx_sb_free(&re);
}

/* ---- json ---- */

static void json_mapping(void **state) {
  fx *f = *state;
  tfx_strbuf j;
  emit_ok(f, tfx_ge_emit_json, &j);
  assert_true(j.data[0] == '{' && j.data[j.len - 1] == '\n' && j.data[j.len - 2] == '}');
  expect_has(&j, "\"name\": \"tiny\",\n  \"version\": 1,\n");
  expect_has(&j, "\"customVersion\": \"v\\u0001\\u00ff\\\"\"");  /* control and non-UTF-8 bytes */
  expect_has(&j, "\"inputDesc\": [");
  expect_has(&j, "\"outputDesc\": [");
  expect_has(&j, "\"subgraphName\": [\n");
  expect_has(&j, "\"a_i\": {\n              \"i\": \"-5\"\n            }");  /* int64 as string */
  expect_has(&j, "\"a_dt\": {\n              \"dt\": \"0\"\n"); /* set oneof at default: kept */
  expect_has(&j, "\"valType\": \"VT_LIST_INT\"");
  expect_has(&j, "\"9223372036854775807\"");
  expect_has(&j, "\"-9223372036854775808\"");
  expect_has(&j, "\"dtype\": \"DT_FLOAT\"");
  expect_has(&j, "\"bt\": \"AP8iCg==\"");      /* bytes \0 \377 " \n in base64 */
  expect_has(&j, "\"s\": \"RnVzZWRUaGluZw==\""); /* "FusedThing" */
  expect_has(&j, "\"listListInt\": {\n");
  expect_has(&j, "\"listListI\": [");
  expect_has(&j, "\"listF\": [\n");
  expect_has(&j, "\"f\": 0.1\n");
  expect_has(&j, "1.5,\n");
  expect_has(&j, "-0,\n");
  expect_has(&j, "\"Infinity\",\n");
  expect_has(&j, "\"NaN\"\n");
  expect_has(&j, "\n  \"attr\": {\n    \"target_type\": {\n      \"s\": \"TUlOSQ==\"\n    }\n  }\n}\n");
  expect_has(&j, "\"b\": true");
  assert_null(strstr(j.data, "has_out_attr"));  /* defaults omitted, names camelCased */
  assert_null(strstr(j.data, "\"hasOutAttr\""));
  assert_null(strstr(j.data, "\"id\": \"0\""));
  expect_has(&j, "\"id\": \"4\"");
  tfx_sb_free(&j);
}

/* Map keys come out sorted even when stored unsorted, and of repeated keys the last wins. */
static void json_map_sorted_last_wins(void **state) {
  fx *f = *state;
  cur = &f->a;
  Ge__Proto__GraphDef *g = f->m->graph[1];
  put(&ge__proto__graph_def__attr_entry__descriptor, &g->attr, &g->n_attr, "zz", attr_i(1));
  put(&ge__proto__graph_def__attr_entry__descriptor, &g->attr, &g->n_attr, "aa", attr_i(2));
  put(&ge__proto__graph_def__attr_entry__descriptor, &g->attr, &g->n_attr, "zz", attr_i(3));
  tfx_strbuf j;
  emit_ok(f, tfx_ge_emit_json, &j);
  expect_has(&j, "\"attr\": {\n        \"aa\": {\n          \"i\": \"2\"\n        },\n        \"zz\": {\n          \"i\": \"3\"\n        }\n      }");
  tfx_sb_free(&j);
}

/* ---- dot ---- */

static void dot_layout(void **state) {
  fx *f = *state;
  tfx_strbuf g;
  emit_ok(f, tfx_ge_emit_dot, &g);
  expect_has(&g, "digraph \"tiny\" {\n");
  expect_has(&g, "compound=true;");
  expect_has(&g, "  subgraph \"cluster_g0\" {\n    label=\"graph 0: main (root)\";\n");
  expect_has(&g, "  subgraph \"cluster_g1\" {\n    label=\"graph 1: sub\";\n");
  /* the scope cluster holds both scope/ nodes; sub/ is the whole subgraph: one cluster too */
  expect_has(&g, "    subgraph \"cluster_g0_s0\" {\n      label=\"scope/\";");
  expect_has(&g, "      \"g0/scope/id\" [label=\"scope/id\\nIdentity\"];\n");
  expect_has(&g, "\"g0/x\" [label=\"x\\nData\\nindex 0\", shape=ellipse");
  expect_has(&g, "\"g0/scope/relu\" [label=\"scope/relu\\nRelu\\nfused: FusedThing\\nreplaces 2 ops:\\norig/a\\norig/b\", fillcolor=\"#ffc870\"");
  expect_has(&g, "\"g0/call\" [label=\"call\\nPartitionedCall\\nsubgraph 0: sub\", peripheries=2];");
  expect_has(&g, "    \"g0/x\" -> \"g0/scope/relu\" [label=\"0->0\"];\n");
  expect_has(&g, "    \"g0/x\" -> \"g0/scope/id\" [style=dashed, color=\"#808080\"];\n");
  expect_has(&g, "  \"g0/call\" -> \"g1/sub/arg\" [lhead=\"cluster_g1\", style=dotted");
  assert_string_equal(g.data + g.len - 2, "}\n");
  tfx_sb_free(&g);
}

/* Quotes, backslashes, newlines, control and non-UTF-8 bytes, '&' in names; a missing source,
 * an output index past the source's descs, "" slots and a missing subgraph. */
static void dot_escaping_and_bad_edges(void **state) {
  fx *f = *state;
  cur = &f->a;
  Ge__Proto__GraphDef *g = f->m->graph[0];
  Ge__Proto__OpDef *w = op(g, "we\"ird\\na\nme\1\377&amp", "Odd\"Type");
  ports(w, 0, 1);
  Ge__Proto__OpDef *k = op(g, "k", "Add");
  in(k, "");
  in(k, "we\"ird\\na\nme\1\377&amp:0");
  in(k, "we\"ird\\na\nme\1\377&amp:3");
  in(k, "ghost:0");
  in(k, "ghost:-1");
  push(&k->subgraph_name, &k->n_subgraph_name, S("nowhere"));
  tfx_strbuf out;
  emit_ok(f, tfx_ge_emit_dot, &out);
  expect_has(&out, "\"g0/we\\\"ird\\\\na\\nme\\\\x01\\\\xFF&amp\" [label=\"we\\\"ird\\\\na\\nme\\\\x01\\\\xFF&amp;amp\\nOdd\\\"Type\"");
  expect_has(&out, "\"g0/we\\\"ird\\\\na\\nme\\\\x01\\\\xFF&amp\" -> \"g0/k\" [label=\"0->1\"];");
  expect_has(&out, "-> \"g0/k\" [label=\"3->2 (no such output)\", color=red, fontcolor=red];");
  expect_has(&out, "\"g0/?ghost\" [label=\"ghost\\n(missing)\", color=red");
  expect_has(&out, "\"g0/?ghost\" -> \"g0/k\" [label=\"0->3\", color=red, fontcolor=red];");
  expect_has(&out, "\"g0/?ghost\" -> \"g0/k\" [style=dashed, color=red];");
  expect_has(&out, "subgraph 0: nowhere (missing)");
  tfx_sb_free(&out);
}

/* Duplicate node names get distinct ids; an empty graph still gets a cluster with a node. */
static void dot_duplicates_and_empty_graph(void **state) {
  fx *f = *state;
  cur = &f->a;
  op(f->m->graph[0], "x", "Data");
  graph(f->m, "empty");
  tfx_strbuf out;
  emit_ok(f, tfx_ge_emit_dot, &out);
  expect_has(&out, "\"g0/x\" [label=");
  expect_has(&out, "\"g0/x#5\" [label=");
  expect_has(&out, "  subgraph \"cluster_g2\" {\n    label=\"graph 2: empty\";\n");
  expect_has(&out, "\"g2/\" [label=\"(no ops)\"");
  tfx_sb_free(&out);
}

/* ---- nesting: graphs in attrs of graphs, 1800 messages deep (1200 JSON objects) ---- */

static void deep_nesting(void **state) {
  fx *f = *state;
  cur = &f->a;
  Ge__Proto__GraphDef *g = f->m->graph[1];
  for (int k = 0; k < 600; k++) { /* GraphDef -> AttrEntry -> AttrDef -> GraphDef ... */
    Ge__Proto__AttrDef *a = attr();
    a->value_case = GE__PROTO__ATTR_DEF__VALUE_G;
    a->g = A(sizeof *a->g);
    ge__proto__graph_def__init(a->g);
    put(&ge__proto__graph_def__attr_entry__descriptor, &g->attr, &g->n_attr, "g", a);
    g = a->g;
  }
  tfx_strbuf out;
  tfx_sb_init(&out);
  tfx_sb_puts(&out, "pre");
  /* binary and JSON writers recurse and stop cleanly past 1000 levels */
  assert_int_not_equal(tfx_ge_emit_air(f->m, &out, &f->d), 0);
  assert_int_equal(out.len, 3);
  assert_non_null(strstr(f->d.items[f->d.n - 1].msg, "nested too deeply"));
  assert_int_not_equal(tfx_ge_emit_json(f->m, &out, &f->d), 0);
  assert_int_equal(out.len, 3);
  assert_non_null(strstr(f->d.items[f->d.n - 1].msg, "nested too deeply"));
  /* the text printer is iterative; DOT does not look inside attrs */
  tfx_diag_clear(&f->d);
  assert_int_equal(tfx_ge_emit_pbtxt(f->m, &out, &f->d), 0);
  assert_int_equal(tfx_ge_emit_dot(f->m, &out, &f->d), 0);
  assert_int_equal(f->d.errors, 0);
  tfx_sb_free(&out);
}

/* ---- allocation failures: every emitter, every failing allocation ---- */

static void alloc_failures(void **state) {
  fx *f = *state;
  static const emit_fn fns[] = {tfx_ge_emit_air, tfx_ge_emit_pbtxt, tfx_ge_emit_json, tfx_ge_emit_dot};
  for (size_t e = 0; e < sizeof fns / sizeof fns[0]; e++) {
    tfx_strbuf ref;
    emit_ok(f, fns[e], &ref);
    long n;
    for (n = 1; n < 100000; n++) {
      tfx_strbuf out;
      tfx_sb_init(&out);
      tfx_sb_puts(&out, "pre");
      tfx_diag d;
      tfx_diag_init(&d);
      tfx_alloc_fail_at(n);
      int rc = fns[e](f->m, &out, &d);
      int hit = tfx_alloc_failures() > 0;
      tfx_alloc_fail_at(0);
      if (rc) {
        assert_true(tfx_diag_has_errors(&d));
        assert_int_equal(out.len, 3); /* nothing appended */
      } else {
        assert_false(out.oom);
        assert_int_equal(out.len, ref.len + 3);
        assert_memory_equal(out.data + 3, ref.data, ref.len);
      }
      if (!hit) assert_int_equal(rc, 0);
      tfx_diag_free(&d);
      tfx_sb_free(&out);
      if (!hit) break;
    }
    assert_true(n > 1);
    tfx_sb_free(&ref);
  }
}

int main(int argc, char **argv) {
  /* the fault-injection cases: their own ctest test (unit/NAME/fault-injection), skipped
   * (exit 77) when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        cmocka_unit_test_setup_teardown(alloc_failures, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(air_matches_protobuf_c, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(air_deterministic_and_appends, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(air_refuses_2gib, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(pbtxt_parses_back_to_same_bytes, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(json_mapping, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(json_map_sorted_last_wins, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(dot_layout, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(dot_escaping_and_bad_edges, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(dot_duplicates_and_empty_graph, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(deep_nesting, fx_setup, fx_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
