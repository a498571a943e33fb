/* Unit tests for src/ge/attr.c: every TF AttrValue kind -> AttrDef (val_type always set),
 * rule values typed by the CANN prototype, TensorProto -> TensorDef (tensor_content, typed
 * fields, splat expansion, byte-size errors), tensors from rule values, map sorting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ge/ge.h"
#include "ge/lower_int.h"
#include "test_graph_util.h"
#include "util/arena.h"

typedef struct fx {
  tfx_arena a;
  tfx_diag d;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f) return -1;
  tfx_arena_init(&f->a);
  tfx_diag_init(&f->d);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  tfx_diag_free(&f->d);
  tfx_arena_free(&f->a);
  free(f);
  return 0;
}

/* ---- builders ---- */

static Tensorflow__AttrValue *av(fx *f, Tensorflow__AttrValue__ValueCase c) {
  Tensorflow__AttrValue *v = tg_must(tfx_arena_alloc(&f->a, sizeof *v));
  tensorflow__attr_value__init(v);
  v->value_case = c;
  return v;
}

static Tensorflow__AttrValue__ListValue *avlist(fx *f, Tensorflow__AttrValue **out) {
  *out = av(f, TENSORFLOW__ATTR_VALUE__VALUE_LIST);
  Tensorflow__AttrValue__ListValue *l = tg_must(tfx_arena_alloc(&f->a, sizeof *l));
  tensorflow__attr_value__list_value__init(l);
  (*out)->list = l;
  return l;
}

static Tensorflow__TensorShapeProto *shape(fx *f, const int64_t *dims, size_t n, int unknown) {
  Tensorflow__TensorShapeProto *s = tg_must(tfx_arena_alloc(&f->a, sizeof *s));
  tensorflow__tensor_shape_proto__init(s);
  s->unknown_rank = unknown;
  s->dim = tg_must(tfx_arena_calloc(&f->a, n ? n : 1, sizeof *s->dim));
  for (size_t k = 0; k < n; k++) {
    Tensorflow__TensorShapeProto__Dim *d = tg_must(tfx_arena_alloc(&f->a, sizeof *d));
    tensorflow__tensor_shape_proto__dim__init(d);
    d->size = dims[k];
    s->dim[k] = d;
  }
  s->n_dim = n;
  return s;
}

static Tensorflow__TensorProto *tensor(fx *f, Tensorflow__DataType dt, const int64_t *dims,
                                       size_t n) {
  Tensorflow__TensorProto *t = tg_must(tfx_arena_alloc(&f->a, sizeof *t));
  tensorflow__tensor_proto__init(t);
  t->dtype = dt;
  t->tensor_shape = shape(f, dims, n, 0);
  return t;
}

static ProtobufCBinaryData bin(const char *s) {
  ProtobufCBinaryData b = {strlen(s), (uint8_t *)s};
  return b;
}

static Ge__Proto__AttrDef__ListValue *glist(const Ge__Proto__AttrDef *a) {
  assert_non_null(a);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_LIST);
  assert_non_null(a->list);
  return a->list;
}

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float lef(const uint8_t *p) {
  uint32_t u = le32(p);
  float x;
  memcpy(&x, &u, 4);
  return x;
}

/* ---- TF AttrValue scalars ---- */

static void tf_scalars(void **state) {
  fx *f = *state;
  Tensorflow__AttrValue *v = av(f, TENSORFLOW__ATTR_VALUE__VALUE_S);
  v->s = bin("NHWC");
  Ge__Proto__AttrDef *a = tfx_ge_attr_from_tf(&f->a, v);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_S);
  assert_int_equal(a->s.len, 4);
  assert_memory_equal(a->s.data, "NHWC", 4);
  assert_ptr_not_equal(a->s.data, v->s.data); /* copied */

  v = av(f, TENSORFLOW__ATTR_VALUE__VALUE_I);
  v->i = -7;
  a = tfx_ge_attr_from_tf(&f->a, v);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_I);
  assert_int_equal(a->i, -7);

  v = av(f, TENSORFLOW__ATTR_VALUE__VALUE_F);
  v->f = 0.25f;
  a = tfx_ge_attr_from_tf(&f->a, v);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_F);
  assert_true(a->f == 0.25f);

  v = av(f, TENSORFLOW__ATTR_VALUE__VALUE_B);
  v->b = 1;
  a = tfx_ge_attr_from_tf(&f->a, v);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_B);
  assert_true(a->b);

  /* type -> dt with the C++ number (docs/AIR.md §6.4) */
  v = av(f, TENSORFLOW__ATTR_VALUE__VALUE_TYPE);
  v->type = TENSORFLOW__DATA_TYPE__DT_INT32;
  a = tfx_ge_attr_from_tf(&f->a, v);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_DT);
  assert_int_equal(a->dt, 3);
  v->type = TENSORFLOW__DATA_TYPE__DT_HALF;
  assert_int_equal(tfx_ge_attr_from_tf(&f->a, v)->dt, 1);
  v->type = TENSORFLOW__DATA_TYPE__DT_FLOAT;
  assert_int_equal(tfx_ge_attr_from_tf(&f->a, v)->dt, 0);

  v = av(f, TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER);
  v->placeholder = "T";
  a = tfx_ge_attr_from_tf(&f->a, v);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_S);
  assert_memory_equal(a->s.data, "T", 1);

  /* an empty AttrValue cannot be expressed */
  v = av(f, TENSORFLOW__ATTR_VALUE__VALUE__NOT_SET);
  int err = 0;
  assert_null(tfx_ge_attr_from_tf_ex(&f->a, v, -1, "n", NULL, &err));
  assert_int_equal(err, TFX_GE_E_KIND);
  assert_null(tfx_ge_attr_from_tf(&f->a, NULL));
}

static void tf_shape(void **state) {
  fx *f = *state;
  int64_t dims[] = {-1, 224, 3};
  Tensorflow__AttrValue *v = av(f, TENSORFLOW__ATTR_VALUE__VALUE_SHAPE);
  v->shape = shape(f, dims, 3, 0);
  Ge__Proto__AttrDef__ListValue *l = glist(tfx_ge_attr_from_tf(&f->a, v));
  assert_int_equal(l->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT);
  assert_int_equal(l->n_i, 3);
  assert_int_equal(l->i[0], -1);
  assert_int_equal(l->i[1], 224);
  assert_int_equal(l->i[2], 3);
  /* unknown rank -> [-1] (AutoMapping's UNKNOWN_SHAPE, docs/ASCEND.md §6.2) */
  v->shape = shape(f, NULL, 0, 1);
  l = glist(tfx_ge_attr_from_tf(&f->a, v));
  assert_int_equal(l->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT);
  assert_int_equal(l->n_i, 1);
  assert_int_equal(l->i[0], -1);
  /* scalar shape -> empty list, still typed */
  v->shape = shape(f, NULL, 0, 0);
  l = glist(tfx_ge_attr_from_tf(&f->a, v));
  assert_int_equal(l->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT);
  assert_int_equal(l->n_i, 0);
}

static void tf_tensor_and_func(void **state) {
  fx *f = *state;
  int64_t dims[] = {2};
  Tensorflow__TensorProto *t = tensor(f, TENSORFLOW__DATA_TYPE__DT_INT32, dims, 1);
  int32_t iv[] = {5, 6};
  t->int_val = iv;
  t->n_int_val = 2;
  Tensorflow__AttrValue *v = av(f, TENSORFLOW__ATTR_VALUE__VALUE_TENSOR);
  v->tensor = t;
  Ge__Proto__AttrDef *a = tfx_ge_attr_from_tf(&f->a, v);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_T);
  assert_int_equal(a->t->desc->dtype, GE__PROTO__DATA_TYPE__DT_INT32);
  assert_int_equal(a->t->desc->shape->n_dim, 1);
  assert_int_equal(a->t->desc->shape->dim[0], 2);
  assert_string_equal(a->t->desc->layout, "ND");
  assert_int_equal(a->t->data.len, 8);
  assert_int_equal(le32(a->t->data.data), 5);
  assert_int_equal(le32(a->t->data.data + 4), 6);

  /* func -> NamedAttrs, attrs converted recursively */
  Tensorflow__NameAttrList *fn = tg_must(tfx_arena_alloc(&f->a, sizeof *fn));
  tensorflow__name_attr_list__init(fn);
  fn->name = "body_fn";
  Tensorflow__NameAttrList__AttrEntry *e = tg_must(tfx_arena_alloc(&f->a, sizeof *e));
  tensorflow__name_attr_list__attr_entry__init(e);
  e->key = "T";
  e->value = av(f, TENSORFLOW__ATTR_VALUE__VALUE_TYPE);
  e->value->type = TENSORFLOW__DATA_TYPE__DT_INT64;
  fn->attr = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *fn->attr));
  fn->attr[0] = e;
  fn->n_attr = 1;
  v = av(f, TENSORFLOW__ATTR_VALUE__VALUE_FUNC);
  v->func = fn;
  a = tfx_ge_attr_from_tf(&f->a, v);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_FUNC);
  assert_string_equal(a->func->name, "body_fn");
  assert_int_equal(a->func->n_attr, 1);
  assert_string_equal(a->func->attr[0]->key, "T");
  assert_int_equal(a->func->attr[0]->value->value_case, GE__PROTO__ATTR_DEF__VALUE_DT);
  assert_int_equal(a->func->attr[0]->value->dt, 9);
}

static void tf_lists(void **state) {
  fx *f = *state;
  Tensorflow__AttrValue *v;
  Tensorflow__AttrValue__ListValue *l;
  Ge__Proto__AttrDef__ListValue *g;

  l = avlist(f, &v);
  ProtobufCBinaryData ss[] = {bin("a"), bin("bc")};
  l->s = ss;
  l->n_s = 2;
  g = glist(tfx_ge_attr_from_tf(&f->a, v));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_STRING);
  assert_int_equal(g->n_s, 2);
  assert_memory_equal(g->s[1].data, "bc", 2);

  l = avlist(f, &v);
  int64_t is[] = {1, 2, 2, 1};
  l->i = is;
  l->n_i = 4;
  g = glist(tfx_ge_attr_from_tf(&f->a, v));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT);
  assert_int_equal(g->n_i, 4);
  assert_int_equal(g->i[2], 2);

  l = avlist(f, &v);
  float fs[] = {0.5f, 1.5f};
  l->f = fs;
  l->n_f = 2;
  g = glist(tfx_ge_attr_from_tf(&f->a, v));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_FLOAT);
  assert_true(g->f[1] == 1.5f);

  l = avlist(f, &v);
  protobuf_c_boolean bs[] = {1, 0, 1};
  l->b = bs;
  l->n_b = 3;
  g = glist(tfx_ge_attr_from_tf(&f->a, v));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_BOOL);
  assert_int_equal(g->n_b, 3);
  assert_false(g->b[1]);

  l = avlist(f, &v);
  Tensorflow__DataType ts[] = {TENSORFLOW__DATA_TYPE__DT_FLOAT, TENSORFLOW__DATA_TYPE__DT_INT32,
                               TENSORFLOW__DATA_TYPE__DT_BOOL};
  l->type = ts;
  l->n_type = 3;
  g = glist(tfx_ge_attr_from_tf(&f->a, v));
  assert_int_equal(g->val_type,
                   GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_DATA_TYPE);
  assert_int_equal(g->n_dt, 3);
  assert_int_equal(g->dt[0], 0);
  assert_int_equal(g->dt[1], 3);
  assert_int_equal(g->dt[2], 12);

  /* list(shape) -> list_list_int (unknown rank -> [-1]) */
  l = avlist(f, &v);
  int64_t d1[] = {2, 3};
  Tensorflow__TensorShapeProto *shs[] = {shape(f, d1, 2, 0), shape(f, NULL, 0, 1)};
  l->shape = shs;
  l->n_shape = 2;
  Ge__Proto__AttrDef *a = tfx_ge_attr_from_tf(&f->a, v);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_INT);
  assert_int_equal(a->list_list_int->n_list_list_i, 2);
  assert_int_equal(a->list_list_int->list_list_i[0]->n_list_i, 2);
  assert_int_equal(a->list_list_int->list_list_i[0]->list_i[1], 3);
  assert_int_equal(a->list_list_int->list_list_i[1]->n_list_i, 1);
  assert_int_equal(a->list_list_int->list_list_i[1]->list_i[0], -1);

  /* list(tensor) */
  l = avlist(f, &v);
  Tensorflow__TensorProto *tt[] = {tensor(f, TENSORFLOW__DATA_TYPE__DT_FLOAT, NULL, 0)};
  l->tensor = tt;
  l->n_tensor = 1;
  g = glist(tfx_ge_attr_from_tf(&f->a, v));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_TENSOR);
  assert_int_equal(g->n_t, 1);
  assert_int_equal(g->t[0]->data.len, 4); /* scalar, no values: one zero */

  /* list(func) */
  l = avlist(f, &v);
  Tensorflow__NameAttrList *fn = tg_must(tfx_arena_alloc(&f->a, sizeof *fn));
  tensorflow__name_attr_list__init(fn);
  fn->name = "branch0";
  Tensorflow__NameAttrList *fns[] = {fn, fn};
  l->func = fns;
  l->n_func = 2;
  g = glist(tfx_ge_attr_from_tf(&f->a, v));
  assert_int_equal(g->val_type,
                   GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_NAMED_ATTRS);
  assert_int_equal(g->n_na, 2);
  assert_string_equal(g->na[1]->name, "branch0");

  /* empty list: VT_LIST_INT, or the prototype's kind */
  l = avlist(f, &v);
  g = glist(tfx_ge_attr_from_tf(&f->a, v));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT);
  g = glist(tfx_ge_attr_from_tf_ex(&f->a, v, TFX_CANN_A_LIST_FLOAT, "n", NULL, NULL));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_FLOAT);
  g = glist(tfx_ge_attr_from_tf_ex(&f->a, v, TFX_CANN_A_LIST_STRING, "n", NULL, NULL));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_STRING);
  g = glist(tfx_ge_attr_from_tf_ex(&f->a, v, TFX_CANN_A_LIST_TYPE, "n", NULL, NULL));
  assert_int_equal(g->val_type,
                   GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_DATA_TYPE);
  a = tfx_ge_attr_from_tf_ex(&f->a, v, TFX_CANN_A_LIST_LIST_INT, "n", NULL, NULL);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_INT);
}

static void tf_coercions(void **state) {
  fx *f = *state;
  /* a type for an Int IR attr (Cast.dst_type): i with the C++ number */
  Tensorflow__AttrValue *v = av(f, TENSORFLOW__ATTR_VALUE__VALUE_TYPE);
  v->type = TENSORFLOW__DATA_TYPE__DT_HALF;
  Ge__Proto__AttrDef *a = tfx_ge_attr_from_tf_ex(&f->a, v, TFX_CANN_A_INT, "n", NULL, NULL);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_I);
  assert_int_equal(a->i, 1);
  /* an int for a Float attr */
  v = av(f, TENSORFLOW__ATTR_VALUE__VALUE_I);
  v->i = 3;
  a = tfx_ge_attr_from_tf_ex(&f->a, v, TFX_CANN_A_FLOAT, "n", NULL, NULL);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_F);
  assert_true(a->f == 3.0f);
  /* list(int) for ListFloat, list(type) for ListInt */
  Tensorflow__AttrValue__ListValue *l = avlist(f, &v);
  int64_t is[] = {1, 2};
  l->i = is;
  l->n_i = 2;
  Ge__Proto__AttrDef__ListValue *g =
      glist(tfx_ge_attr_from_tf_ex(&f->a, v, TFX_CANN_A_LIST_FLOAT, "n", NULL, NULL));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_FLOAT);
  assert_true(g->f[1] == 2.0f);
  l = avlist(f, &v);
  Tensorflow__DataType ts[] = {TENSORFLOW__DATA_TYPE__DT_INT64};
  l->type = ts;
  l->n_type = 1;
  g = glist(tfx_ge_attr_from_tf_ex(&f->a, v, TFX_CANN_A_LIST_INT, "n", NULL, NULL));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT);
  assert_int_equal(g->i[0], 9);
}

/* ---- rule values ---- */

static void value_scalars(void **state) {
  fx *f = *state;
  tfx_value v = tfx_v_int(4);
  Ge__Proto__AttrDef *a = tfx_ge_attr_from_value(&f->a, &v, -1);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_I);
  assert_int_equal(a->i, 4);
  a = tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_FLOAT);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_F);
  assert_true(a->f == 4.0f);
  a = tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_BOOL);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_B);
  v = tfx_v_float(2.5);
  a = tfx_ge_attr_from_value(&f->a, &v, -1);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_F);
  assert_true(a->f == 2.5f);
  assert_null(tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_INT)); /* not integral */
  v = tfx_v_float(3.0);
  assert_int_equal(tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_INT)->i, 3);
  v = tfx_v_bool(1);
  a = tfx_ge_attr_from_value(&f->a, &v, -1);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_B);
  assert_true(a->b);
  v = tfx_v_str("SAME", 4);
  a = tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_STRING);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_S);
  assert_memory_equal(a->s.data, "SAME", 4);
  int err = 0;
  assert_null(tfx_ge_attr_from_value_ex(&f->a, &v, TFX_CANN_A_INT, 0, &err));
  assert_int_equal(err, TFX_GE_E_KIND);
  /* dtype values are TF numbers: written as C++ numbers, as dt or (Int attr) i */
  v = tfx_v_dtype(TENSORFLOW__DATA_TYPE__DT_INT32);
  a = tfx_ge_attr_from_value(&f->a, &v, -1);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_DT);
  assert_int_equal(a->dt, 3);
  a = tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_INT);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_I);
  assert_int_equal(a->i, 3);
  /* prototype defaults hold C++ numbers already */
  v = tfx_v_dtype(9);
  a = tfx_ge_attr_from_value_ex(&f->a, &v, TFX_CANN_A_TYPE, 1, NULL);
  assert_int_equal(a->dt, 9);
  v = tfx_v_none();
  assert_null(tfx_ge_attr_from_value(&f->a, &v, -1));
  v = tfx_v_node(3);
  assert_null(tfx_ge_attr_from_value(&f->a, &v, -1));
}

static void value_lists(void **state) {
  fx *f = *state;
  tfx_value ints[] = {tfx_v_int(1), tfx_v_int(-2)};
  tfx_value v = tfx_v_list(ints, 2);
  Ge__Proto__AttrDef__ListValue *g = glist(tfx_ge_attr_from_value(&f->a, &v, -1));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT);
  assert_int_equal(g->i[1], -2);
  g = glist(tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_LIST_FLOAT));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_FLOAT);
  assert_true(g->f[1] == -2.0f);
  assert_null(tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_INT)); /* a list for a scalar */

  tfx_value mixed[] = {tfx_v_int(1), tfx_v_float(0.5)};
  v = tfx_v_list(mixed, 2);
  g = glist(tfx_ge_attr_from_value(&f->a, &v, -1));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_FLOAT);

  tfx_value strs[] = {tfx_v_str("a", 1), tfx_v_str("b", 1)};
  v = tfx_v_list(strs, 2);
  g = glist(tfx_ge_attr_from_value(&f->a, &v, -1));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_STRING);

  tfx_value bools[] = {tfx_v_bool(0), tfx_v_bool(1)};
  v = tfx_v_list(bools, 2);
  g = glist(tfx_ge_attr_from_value(&f->a, &v, -1));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_BOOL);

  tfx_value dts[] = {tfx_v_dtype(TENSORFLOW__DATA_TYPE__DT_HALF),
                     tfx_v_dtype(TENSORFLOW__DATA_TYPE__DT_INT64)};
  v = tfx_v_list(dts, 2);
  g = glist(tfx_ge_attr_from_value(&f->a, &v, -1));
  assert_int_equal(g->val_type,
                   GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_DATA_TYPE);
  assert_int_equal(g->dt[0], 1);
  assert_int_equal(g->dt[1], 9);

  /* nested int lists -> list_list_int; with floats -> list_list_float */
  tfx_value r0[] = {tfx_v_int(1), tfx_v_int(2)}, r1[] = {tfx_v_int(3)};
  tfx_value rows[] = {tfx_v_list(r0, 2), tfx_v_list(r1, 1)};
  v = tfx_v_list(rows, 2);
  Ge__Proto__AttrDef *a = tfx_ge_attr_from_value(&f->a, &v, -1);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_INT);
  assert_int_equal(a->list_list_int->n_list_list_i, 2);
  assert_int_equal(a->list_list_int->list_list_i[1]->list_i[0], 3);
  tfx_value fr[] = {tfx_v_float(0.5)};
  tfx_value frows[] = {tfx_v_list(fr, 1)};
  v = tfx_v_list(frows, 1);
  a = tfx_ge_attr_from_value(&f->a, &v, -1);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_FLOAT);

  /* empty: the prototype decides, else VT_LIST_INT */
  v = tfx_v_list(NULL, 0);
  g = glist(tfx_ge_attr_from_value(&f->a, &v, -1));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT);
  g = glist(tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_LIST_STRING));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_STRING);
  g = glist(tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_LIST_BOOL));
  assert_int_equal(g->val_type, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_BOOL);

  /* mixed strings and ints cannot be one list */
  tfx_value bad[] = {tfx_v_str("a", 1), tfx_v_int(1)};
  v = tfx_v_list(bad, 2);
  assert_null(tfx_ge_attr_from_value(&f->a, &v, -1));
}

static void value_tensor_attr(void **state) {
  fx *f = *state;
  tfx_value v = tfx_v_float(1.0);
  Ge__Proto__AttrDef *a = tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_TENSOR);
  assert_int_equal(a->value_case, GE__PROTO__ATTR_DEF__VALUE_T);
  assert_int_equal(a->t->desc->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT);
  assert_int_equal(a->t->desc->shape->n_dim, 0);
  assert_int_equal(a->t->data.len, 4);
  assert_true(lef(a->t->data.data) == 1.0f);
  tfx_value r0[] = {tfx_v_int(1), tfx_v_int(2), tfx_v_int(3)},
            r1[] = {tfx_v_int(4), tfx_v_int(5), tfx_v_int(6)};
  tfx_value rows[] = {tfx_v_list(r0, 3), tfx_v_list(r1, 3)};
  v = tfx_v_list(rows, 2);
  a = tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_TENSOR);
  assert_int_equal(a->t->desc->dtype, GE__PROTO__DATA_TYPE__DT_INT32);
  assert_int_equal(a->t->desc->shape->n_dim, 2);
  assert_int_equal(a->t->desc->shape->dim[0], 2);
  assert_int_equal(a->t->desc->shape->dim[1], 3);
  assert_int_equal(a->t->data.len, 24);
  assert_int_equal(le32(a->t->data.data + 20), 6);
  /* ragged lists are not tensors */
  tfx_value rr[] = {tfx_v_list(r0, 3), tfx_v_list(r1, 2)};
  v = tfx_v_list(rr, 2);
  assert_null(tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_TENSOR));
  tfx_value mixed[] = {tfx_v_int(1), tfx_v_list(r0, 3)};
  v = tfx_v_list(mixed, 2);
  assert_null(tfx_ge_attr_from_value(&f->a, &v, TFX_CANN_A_TENSOR));
}

static void value_tensor_dtypes(void **state) {
  fx *f = *state;
  int err = 0;
  tfx_value one = tfx_v_float(1.0);
  Ge__Proto__TensorDef *t =
      tfx_ge_tensor_from_value(&f->a, &one, GE__PROTO__DATA_TYPE__DT_FLOAT16, &err);
  assert_non_null(t);
  assert_int_equal(t->data.len, 2);
  assert_int_equal(t->data.data[0] | t->data.data[1] << 8, 0x3c00); /* 1.0 in half */
  t = tfx_ge_tensor_from_value(&f->a, &one, GE__PROTO__DATA_TYPE__DT_BF16, &err);
  assert_int_equal(t->data.data[0] | t->data.data[1] << 8, 0x3f80);
  tfx_value big = tfx_v_int(INT64_C(1) << 40);
  t = tfx_ge_tensor_from_value(&f->a, &big, GE__PROTO__DATA_TYPE__DT_UNDEFINED, &err);
  assert_int_equal(t->desc->dtype, GE__PROTO__DATA_TYPE__DT_INT64);
  assert_int_equal(t->data.len, 8);
  tfx_value half = tfx_v_float(0.5);
  assert_null(tfx_ge_tensor_from_value(&f->a, &half, GE__PROTO__DATA_TYPE__DT_INT32, &err));
  assert_int_equal(err, TFX_GE_E_KIND);
  tfx_value s = tfx_v_str("ab", 2);
  t = tfx_ge_tensor_from_value(&f->a, &s, GE__PROTO__DATA_TYPE__DT_UNDEFINED, &err);
  assert_int_equal(t->desc->dtype, GE__PROTO__DATA_TYPE__DT_STRING);
  assert_int_equal(t->data.len, 2);
}

/* ---- TensorProto ---- */

static void tensor_content(void **state) {
  fx *f = *state;
  int64_t dims[] = {2, 2};
  Tensorflow__TensorProto *t = tensor(f, TENSORFLOW__DATA_TYPE__DT_FLOAT, dims, 2);
  float vals[] = {1, 2, 3, 4};
  t->tensor_content.data = (uint8_t *)vals;
  t->tensor_content.len = sizeof vals;
  Ge__Proto__TensorDef *td = tfx_ge_tensor_from_tf(&f->a, t, "w", &f->d);
  assert_non_null(td);
  assert_int_equal(td->data.len, 16);
  assert_true(lef(td->data.data + 12) == 4.0f);
  /* borrowed, not copied (issue 16: the Const payloads are not duplicated) */
  assert_ptr_equal(td->data.data, t->tensor_content.data);
  assert_int_equal(td->desc->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT);
  assert_string_equal(td->desc->layout, "ND");
  /* origin attrs on the value desc as on any desc */
  assert_non_null(tfx_ge_td_attr_get(td->desc, "origin_format"));
  assert_non_null(tfx_ge_td_attr_get(td->desc, "origin_shape"));
  assert_int_equal(f->d.errors, 0);
}

static void tensor_content_size_mismatch(void **state) {
  fx *f = *state;
  int64_t dims[] = {3};
  Tensorflow__TensorProto *t = tensor(f, TENSORFLOW__DATA_TYPE__DT_FLOAT, dims, 1);
  float vals[] = {1, 2};
  t->tensor_content.data = (uint8_t *)vals;
  t->tensor_content.len = sizeof vals;
  assert_null(tfx_ge_tensor_from_tf(&f->a, t, "my/const", &f->d));
  assert_true(TG_ERR(&f->d, "my/const", "8 bytes", "12"));
}

static void tensor_splat(void **state) {
  fx *f = *state;
  int64_t dims[] = {2, 3};
  Tensorflow__TensorProto *t = tensor(f, TENSORFLOW__DATA_TYPE__DT_FLOAT, dims, 2);
  float one[] = {1.5f};
  t->float_val = one;
  t->n_float_val = 1;
  Ge__Proto__TensorDef *td = tfx_ge_tensor_from_tf(&f->a, t, "c", &f->d);
  assert_int_equal(td->data.len, 24);
  for (int k = 0; k < 6; k++) assert_true(lef(td->data.data + 4 * k) == 1.5f);
  /* fewer values than elements: the last repeats */
  int64_t d4[] = {4};
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_INT32, d4, 1);
  int32_t iv[] = {7, 9};
  t->int_val = iv;
  t->n_int_val = 2;
  td = tfx_ge_tensor_from_tf(&f->a, t, "c", &f->d);
  assert_int_equal(td->data.len, 16);
  assert_int_equal(le32(td->data.data), 7);
  assert_int_equal(le32(td->data.data + 4), 9);
  assert_int_equal(le32(td->data.data + 12), 9);
  /* no values: zeros */
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_INT64, d4, 1);
  td = tfx_ge_tensor_from_tf(&f->a, t, "c", &f->d);
  assert_int_equal(td->data.len, 32);
  for (int k = 0; k < 32; k++) assert_int_equal(td->data.data[k], 0);
  /* a 0-element tensor has empty data (docs/AIR.md §10.2) */
  int64_t d0[] = {0, 5};
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_FLOAT, d0, 2);
  td = tfx_ge_tensor_from_tf(&f->a, t, "c", &f->d);
  assert_non_null(td);
  assert_int_equal(td->data.len, 0);
  /* too many values */
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_INT32, d4, 1);
  int32_t five[] = {1, 2, 3, 4, 5};
  t->int_val = five;
  t->n_int_val = 5;
  assert_null(tfx_ge_tensor_from_tf(&f->a, t, "many", &f->d));
  assert_true(TG_ERR(&f->d, "many", "5 values for 4 elements"));
  assert_int_equal(f->d.errors, 1);
}

static void tensor_typed_fields(void **state) {
  fx *f = *state;
  int64_t d2[] = {2};
  /* half and bfloat16: int32 bit patterns in half_val */
  Tensorflow__TensorProto *t = tensor(f, TENSORFLOW__DATA_TYPE__DT_HALF, d2, 1);
  int32_t hv[] = {0x3c00, 0xc000};
  t->half_val = hv;
  t->n_half_val = 2;
  Ge__Proto__TensorDef *td = tfx_ge_tensor_from_tf(&f->a, t, "h", &f->d);
  assert_int_equal(td->desc->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT16);
  assert_int_equal(td->data.len, 4);
  assert_int_equal(td->data.data[0], 0x00);
  assert_int_equal(td->data.data[1], 0x3c);
  assert_int_equal(td->data.data[3], 0xc0);
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_BFLOAT16, d2, 1);
  t->half_val = hv;
  t->n_half_val = 1;
  td = tfx_ge_tensor_from_tf(&f->a, t, "h", &f->d);
  assert_int_equal(td->desc->dtype, GE__PROTO__DATA_TYPE__DT_BF16);
  assert_int_equal(td->data.data[3], 0x3c); /* splat */
  /* bool */
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_BOOL, d2, 1);
  protobuf_c_boolean bv[] = {1, 0};
  t->bool_val = bv;
  t->n_bool_val = 2;
  td = tfx_ge_tensor_from_tf(&f->a, t, "b", &f->d);
  assert_int_equal(td->data.len, 2);
  assert_int_equal(td->data.data[0], 1);
  assert_int_equal(td->data.data[1], 0);
  /* int8 and uint8 in int_val, truncated to one byte */
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_INT8, d2, 1);
  int32_t i8[] = {-1, 5};
  t->int_val = i8;
  t->n_int_val = 2;
  td = tfx_ge_tensor_from_tf(&f->a, t, "b", &f->d);
  assert_int_equal(td->data.len, 2);
  assert_int_equal(td->data.data[0], 0xff);
  /* quantized collapses to plain ints, read from int_val */
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_QUINT8, d2, 1);
  t->int_val = i8;
  t->n_int_val = 2;
  td = tfx_ge_tensor_from_tf(&f->a, t, "q", &f->d);
  assert_int_equal(td->desc->dtype, GE__PROTO__DATA_TYPE__DT_UINT8);
  /* double, int64 */
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_DOUBLE, d2, 1);
  double dv[] = {0.5};
  t->double_val = dv;
  t->n_double_val = 1;
  td = tfx_ge_tensor_from_tf(&f->a, t, "d", &f->d);
  assert_int_equal(td->data.len, 16);
  /* strings: raw bytes concatenated (GE's string layout is unknown, docs/AIR.md §14) */
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_STRING, d2, 1);
  ProtobufCBinaryData sv[] = {bin("ab"), bin("cde")};
  t->string_val = sv;
  t->n_string_val = 2;
  td = tfx_ge_tensor_from_tf(&f->a, t, "s", &f->d);
  assert_int_equal(td->desc->dtype, GE__PROTO__DATA_TYPE__DT_STRING);
  assert_int_equal(td->data.len, 5);
  assert_memory_equal(td->data.data, "abcde", 5);
  assert_int_equal(f->d.errors, 0);
}

static void tensor_errors(void **state) {
  fx *f = *state;
  int64_t dims[] = {-1, 2};
  Tensorflow__TensorProto *t = tensor(f, TENSORFLOW__DATA_TYPE__DT_FLOAT, dims, 2);
  assert_null(tfx_ge_tensor_from_tf(&f->a, t, "unk", &f->d));
  assert_true(TG_ERR(&f->d, "unk", "unknown"));
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_FLOAT, NULL, 0);
  t->tensor_shape->unknown_rank = 1;
  assert_null(tfx_ge_tensor_from_tf(&f->a, t, "rank", &f->d));
  assert_true(TG_ERR(&f->d, "rank", "unknown rank"));
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_RESOURCE, NULL, 0);
  assert_null(tfx_ge_tensor_from_tf(&f->a, t, "res", &f->d));
  assert_true(TG_ERR(&f->d, "res", "DT_RESOURCE"));
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_UINT4, NULL, 0);
  assert_null(tfx_ge_tensor_from_tf(&f->a, t, "u4", &f->d));
  assert_true(TG_ERR(&f->d, "u4", "no GE equivalent"));
  int64_t huge[] = {INT64_C(1) << 20, INT64_C(1) << 20, 1024};
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_FLOAT, huge, 3);
  assert_null(tfx_ge_tensor_from_tf(&f->a, t, "huge", &f->d));
  assert_true(TG_ERR(&f->d, "huge", "2 GiB"));
  assert_null(tfx_ge_tensor_from_tf(&f->a, NULL, "none", &f->d));
  /* without a diag nothing is reported */
  size_t before = f->d.n;
  int err = 0;
  t = tensor(f, TENSORFLOW__DATA_TYPE__DT_FLOAT, dims, 2);
  assert_null(tfx_ge_tensor_from_tf_ex(&f->a, t, "x", NULL, NULL, &err));
  assert_int_equal(err, TFX_GE_E_KIND);
  assert_int_equal(f->d.n, before);
}

/* ---- maps ---- */

static void sort_maps(void **state) {
  fx *f = *state;
  Ge__Proto__ModelDef m = GE__PROTO__MODEL_DEF__INIT;
  Ge__Proto__GraphDef g = GE__PROTO__GRAPH_DEF__INIT;
  Ge__Proto__OpDef op = GE__PROTO__OP_DEF__INIT;
  const char *keys[] = {"zeta", "alpha", "_b", "m"};
  for (int k = 0; k < 4; k++)
    assert_int_equal(tfx_ge_op_attr_set(&f->a, &op, keys[k], tfx_ge_attr_int(&f->a, k)), 0);
  assert_int_equal(tfx_ge_op_attr_set(&f->a, &op, "m", tfx_ge_attr_int(&f->a, 42)),
                   0); /* replace */
  assert_int_equal(op.n_attr, 4);
  int64_t dims[] = {1};
  Ge__Proto__TensorDescriptor *td =
      tfx_ge_desc_new(&f->a, "x", GE__PROTO__DATA_TYPE__DT_FLOAT, dims, 1, 1, "NHWC");
  assert_int_equal(tfx_ge_td_attr_set(&f->a, td, "aaa", tfx_ge_attr_int(&f->a, 0)), 0);
  assert_int_equal(tfx_ge_push_ptr(&f->a, (void ***)&op.input_desc, &op.n_input_desc, td), 0);
  Ge__Proto__OpDef *ops[] = {&op};
  g.op = ops;
  g.n_op = 1;
  Ge__Proto__GraphDef *gs[] = {&g};
  m.graph = gs;
  m.n_graph = 1;
  tfx_ge_sort_maps(&m);
  assert_string_equal(op.attr[0]->key, "_b");
  assert_string_equal(op.attr[1]->key, "alpha");
  assert_string_equal(op.attr[2]->key, "m");
  assert_int_equal(op.attr[2]->value->i, 42);
  assert_string_equal(op.attr[3]->key, "zeta");
  assert_string_equal(td->attr[0]->key, "aaa");
  assert_string_equal(td->attr[1]->key, "origin_format");
  assert_string_equal(td->attr[2]->key, "origin_shape");
  assert_string_equal(td->attr[3]->key, "origin_shape_initialized");
  tfx_ge_sort_maps(NULL);
}

static void grow_many(void **state) {
  fx *f = *state;
  char **v = NULL;
  size_t n = 0;
  static char s[] = "x";
  for (int k = 0; k < 1000; k++) assert_int_equal(tfx_ge_push_ptr(&f->a, (void ***)&v, &n, s), 0);
  assert_int_equal(n, 1000);
  for (int k = 0; k < 1000; k++) assert_ptr_equal(v[k], s);
}

static void oom_paths(void **state) {
  fx *f = *state;
  /* every allocation of a list conversion failing in turn: NULL + E_OOM, never a crash */
  Tensorflow__AttrValue *v;
  Tensorflow__AttrValue__ListValue *l = avlist(f, &v);
  ProtobufCBinaryData ss[] = {bin("a"), bin("bc")};
  l->s = ss;
  l->n_s = 2;
  int64_t dims[] = {2};
  Tensorflow__TensorProto *t = tensor(f, TENSORFLOW__DATA_TYPE__DT_FLOAT, dims, 1);
  for (long k = 1; k < 40; k++) {
    tfx_arena a;
    tfx_arena_init(&a);
    tfx_alloc_fail_at(k);
    int err = 0;
    Ge__Proto__AttrDef *r = tfx_ge_attr_from_tf_ex(&a, v, -1, "n", NULL, &err);
    Ge__Proto__TensorDef *td = tfx_ge_tensor_from_tf_ex(&a, t, "n", &f->d, NULL, &err);
    tfx_alloc_fail_at(0);
    (void)r;
    (void)td;
    tfx_arena_free(&a);
  }
  assert_int_equal(f->d.errors, 0);
}

int main(int argc, char **argv) {
#define T(x) cmocka_unit_test_setup_teardown(x, setup, teardown)
  /* the fault-injection cases: their own ctest test (unit/NAME/fault-injection), skipped
   * (exit 77) when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        T(oom_paths),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      T(tf_scalars),
      T(tf_shape),
      T(tf_tensor_and_func),
      T(tf_lists),
      T(tf_coercions),
      T(value_scalars),
      T(value_lists),
      T(value_tensor_attr),
      T(value_tensor_dtypes),
      T(tensor_content),
      T(tensor_content_size_mismatch),
      T(tensor_splat),
      T(tensor_typed_fields),
      T(tensor_errors),
      T(sort_maps),
      T(grow_many),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
