/* Unit tests for src/ge/lower.c on main graphs: Data (index, descs, --input-shape,
 * --input-format, consumer formats), Const values, edges (control, deleted, unbound inputs),
 * output port renaming, dynamic and optional ports, NetOutput (--out-nodes and unconsumed
 * outputs), provenance of fused nodes, prototype defaults, failures and determinism. Op
 * mappings are written by hand (no tfx_opmap_run). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "test_ge_lower_util.h"
#include "util/arena.h"

/* x, y placeholders; w const; conv(x, w) NHWC; id(y) */
static Tensorflow__GraphDef *conv_graph(lt *f) {
  static const char *const specs[] = {"x|Placeholder", "y|Placeholder", "w|Const",
                                      "conv|Conv2D|x,w", "id|Identity|y"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, TG_N(specs));
  int64_t xs[] = {-1, 224, 224, 3};
  lt_attr_type(f, lt_nd(gd, "x"), "dtype", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  lt_attr_shape(f, lt_nd(gd, "x"), "shape", xs, 4);
  lt_attr_type(f, lt_nd(gd, "y"), "dtype", TENSORFLOW__DATA_TYPE__DT_INT32);
  lt_attr_shape(f, lt_nd(gd, "y"), "shape", NULL, -1);
  int64_t ws[] = {3, 3, 3, 8};
  float half = 0.5f;
  lt_attr_type(f, lt_nd(gd, "w"), "dtype", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  lt_attr_ftensor(f, lt_nd(gd, "w"), "value", ws, 4, &half, 1);
  lt_attr_type(f, lt_nd(gd, "conv"), "T", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  lt_attr_s(f, lt_nd(gd, "conv"), "data_format", "NHWC");
  lt_attr_s(f, lt_nd(gd, "conv"), "padding", "SAME");
  int64_t cs[] = {-1, 224, 224, 8};
  lt_out_shapes(f, lt_nd(gd, "conv"), cs, 4);
  lt_attr_type(f, lt_nd(gd, "id"), "T", TENSORFLOW__DATA_TYPE__DT_INT32);
  lt_build(f, gd);
  tfx_mapped_graph *mg = &f->om.main;
  lt_map(f, mg, "x", "Data", "x:-1", "y:0");
  lt_map(f, mg, "y", "Data", "x:-1", "y:0");
  lt_map(f, mg, "w", "Const", "", "y:0");
  lt_map(f, mg, "conv", "Conv2D", "x:0@NHWC,filter:1@HWCN,bias:-1?,offset_w:-1?", "y:0@NHWC");
  lt_map(f, mg, "id", "Identity", "x:0", "y:0");
  return gd;
}

static void data_from_placeholder(void **state) {
  lt *f = *state;
  conv_graph(f);
  lt_lower_ok(f);
  const Ge__Proto__OpDef *x = lt_op(f, "x"), *y = lt_op(f, "y");
  assert_string_equal(x->type, "Data");
  assert_int_equal(lt_int(lt_oattr(x, "index")), 0);
  assert_int_equal(lt_int(lt_oattr(y, "index")), 1);
  assert_int_equal(x->n_input, 0);
  assert_int_equal(x->n_input_desc, 1);
  assert_int_equal(x->n_output_desc, 1);
  assert_string_equal(x->input_desc[0]->name, "x");
  assert_string_equal(x->output_desc[0]->name, "y");
  for (int k = 0; k < 2; k++) {
    const Ge__Proto__TensorDescriptor *td = k ? x->output_desc[0] : x->input_desc[0];
    assert_int_equal(td->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT);
    assert_string_equal(lt_dims(td), "-1,224,224,3");
    assert_string_equal(td->layout, "NHWC"); /* the consumer's data_format */
    assert_memory_equal(lt_dattr(td, "origin_format")->s.data, "NHWC", 4);
    assert_string_equal(lt_ilist(lt_dattr(td, "origin_shape")), "-1,224,224,3");
    assert_true(lt_dattr(td, "origin_shape_initialized")->b);
  }
  /* unknown rank: [-2], ND, no origin shape */
  assert_int_equal(y->input_desc[0]->dtype, GE__PROTO__DATA_TYPE__DT_INT32);
  assert_string_equal(lt_dims(y->input_desc[0]), "-2");
  assert_string_equal(y->input_desc[0]->layout, "ND");
  assert_null(lt_dattr(y->input_desc[0], "origin_shape"));
  /* Data carries index and the port-name lists only */
  assert_null(lt_oattr(x, "dtype"));
  assert_null(lt_oattr(x, "shape"));
  assert_string_equal(lt_slist(lt_oattr(x, "_input_name_key")), "x");
  assert_string_equal(lt_slist(lt_oattr(x, "_output_name_key")), "y");
  const Ge__Proto__GraphDef *g = f->gm.model->graph[0];
  assert_string_equal(lt_join(g->input, g->n_input), "x:0,y:0");
  lt_check_val_types(f);
}

static void data_input_format_and_shape(void **state) {
  lt *f = *state;
  conv_graph(f);
  f->o.input_format = "NCHW";
  tfx_prune_shape sh = {"x", (int64_t[]){1, 3, 224, 224}, 4};
  f->prune.shapes = &sh;
  f->prune.n_shapes = 1;
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air (lite ops): the same bytes */
  const Ge__Proto__OpDef *x = lt_op(f, "x");
  assert_string_equal(x->input_desc[0]->layout, "NCHW");
  assert_string_equal(lt_dims(x->input_desc[0]), "1,3,224,224");
  assert_string_equal(lt_dims(x->output_desc[0]), "1,3,224,224");
  assert_string_equal(lt_op(f, "y")->input_desc[0]->layout, "ND"); /* unknown rank */
  /* the consumer's input desc copies the producer's dtype and shape, with its own format */
  const Ge__Proto__OpDef *conv = lt_op(f, "conv");
  assert_string_equal(conv->input_desc[0]->name, "x");
  assert_string_equal(conv->input_desc[0]->layout, "NHWC");
  assert_string_equal(lt_dims(conv->input_desc[0]), "1,3,224,224");
}

static void data_layout_conflict(void **state) {
  lt *f = *state;
  static const char *const specs[] = {"x|Placeholder", "a|MaxPool|x", "b|AvgPool|x", "c|Relu|x"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, TG_N(specs));
  int64_t xs[] = {1, 8, 8, 3};
  lt_attr_type(f, lt_nd(gd, "x"), "dtype", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  lt_attr_shape(f, lt_nd(gd, "x"), "shape", xs, 4);
  lt_attr_s(f, lt_nd(gd, "a"), "data_format", "NHWC");
  lt_attr_s(f, lt_nd(gd, "b"), "data_format", "NCHW");
  lt_build(f, gd);
  lt_map(f, &f->om.main, "x", "Data", "", "y:0");
  lt_map(f, &f->om.main, "a", "MaxPool", "x:0", "y:0");
  lt_map(f, &f->om.main, "b", "AvgPool", "x:0", "y:0");
  lt_map(f, &f->om.main, "c", "Relu", "x:0", "y:0");
  lt_lower_ok(f);
  assert_string_equal(lt_op(f, "x")->output_desc[0]->layout, "ND");
}

static void const_value(void **state) {
  lt *f = *state;
  conv_graph(f);
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air (lite ops): the same bytes */
  const Ge__Proto__OpDef *w = lt_op(f, "w");
  assert_string_equal(w->type, "Const");
  const Ge__Proto__AttrDef *v = lt_oattr(w, "value");
  assert_non_null(v);
  assert_int_equal(v->value_case, GE__PROTO__ATTR_DEF__VALUE_T);
  assert_int_equal(v->t->data.len, 3 * 3 * 3 * 8 * 4);
  float last;
  memcpy(&last, v->t->data.data + v->t->data.len - 4, 4);
  assert_true(last == 0.5f);
  assert_int_equal(w->n_input_desc, 0);
  assert_int_equal(w->n_output_desc, 1);
  const Ge__Proto__TensorDescriptor *y = w->output_desc[0];
  assert_string_equal(y->name, "y");
  assert_int_equal(y->dtype, v->t->desc->dtype);
  assert_string_equal(lt_dims(y), "3,3,3,8");
  assert_string_equal(y->layout, v->t->desc->layout);
  /* dtype attr auto-mapped as dt (C++ numbering) */
  assert_int_equal(lt_oattr(w, "dtype")->value_case, GE__PROTO__ATTR_DEF__VALUE_DT);
  assert_int_equal(lt_oattr(w, "dtype")->dt, 0);
  /* the filter input desc: producer's dtype/shape, the port's HWCN */
  const Ge__Proto__OpDef *conv = lt_op(f, "conv");
  assert_string_equal(conv->input_desc[1]->name, "filter");
  assert_string_equal(conv->input_desc[1]->layout, "HWCN");
  assert_string_equal(lt_dims(conv->input_desc[1]), "3,3,3,8");
  assert_memory_equal(lt_dattr(conv->input_desc[1], "origin_format")->s.data, "HWCN", 4);
  /* output desc from _output_shapes and T */
  assert_string_equal(lt_dims(conv->output_desc[0]), "-1,224,224,8");
  assert_int_equal(conv->output_desc[0]->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT);
  assert_string_equal(conv->output_desc[0]->layout, "NHWC");
}

static void const_size_mismatch(void **state) {
  lt *f = *state;
  static const char *const specs[] = {"bad/c|Const", "o|Identity|bad/c"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, TG_N(specs));
  int64_t ws[] = {4};
  Tensorflow__TensorProto *t = lt_attr_ftensor(f, lt_nd(gd, "bad/c"), "value", ws, 1, NULL, 0);
  static const float three[] = {1, 2, 3};
  t->tensor_content.data = (uint8_t *)three;
  t->tensor_content.len = sizeof three;
  lt_build(f, gd);
  lt_map(f, &f->om.main, "bad/c", "Const", "", "y:0");
  lt_map(f, &f->om.main, "o", "Identity", "x:0", "y:0");
  assert_int_equal(lt_lower(f), TFX_EXIT_FAIL);
  assert_null(f->gm.model);
  assert_true(TG_ERR(&f->d, "bad/c", "12 bytes", "16"));
  assert_int_equal(f->d.errors, 1); /* the consumer gets no second error */
}

static void const_without_value(void **state) {
  lt *f = *state;
  static const char *const specs[] = {"c|Const"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, TG_N(specs));
  lt_build(f, gd);
  lt_map(f, &f->om.main, "c", "Const", "", "y:0");
  assert_int_equal(lt_lower(f), TFX_EXIT_FAIL);
  assert_true(TG_ERR(&f->d, "'c'", "value"));
}

/* a, b, c placeholders and edge variants */
static void abc(lt *f, const char *const *more, size_t n_more) {
  const char *specs[16] = {"a|Placeholder", "b|Placeholder", "c|Placeholder"};
  for (size_t k = 0; k < n_more; k++) specs[3 + k] = more[k];
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, 3 + n_more);
  for (int k = 0; k < 3; k++)
    lt_attr_type(f, gd->node[k], "dtype", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  lt_build(f, gd);
  lt_map(f, &f->om.main, "a", "Data", "", "y:0");
  lt_map(f, &f->om.main, "b", "Data", "", "y:0");
  lt_map(f, &f->om.main, "c", "Data", "", "y:0");
}

static void edges_control_and_deleted(void **state) {
  lt *f = *state;
  static const char *const more[] = {"n|FusedThing|a,b,^c", "dd|Foo|a,b,^b", "u|Bar|a,b,c"};
  abc(f, more, TG_N(more));
  tfx_mapped_op *n = lt_map(f, &f->om.main, "n", "Foo", "x:0", "y:0");
  static int32_t del1[] = {1};
  n->deleted = del1;
  n->n_deleted = 1;
  tfx_mapped_op *dd = lt_map(f, &f->om.main, "dd", "Foo", "x:0", "y:0");
  dd->deleted = del1;
  dd->n_deleted = 1;
  lt_map(f, &f->om.main, "u", "Bar", "x1:2,x0:0", "y:0");
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air (lite ops): the same bytes */
  assert_string_equal(lt_inputs(lt_op(f, "n")), "a:0,b:-1,c:-1");
  assert_string_equal(lt_inputs(lt_op(f, "dd")), "a:0,b:-1"); /* deduplicated */
  /* port order is the CANN order; TF input 1 is bound to nothing: a control edge, warned */
  assert_string_equal(lt_inputs(lt_op(f, "u")), "c:0,a:0,b:-1");
  assert_true(tg_diag_has(&f->d, TFX_SEV_WARNING, "'u'", "input 1", "control", (const char *)NULL));
  assert_int_equal(lt_op(f, "n")->n_input_desc, 1);
  assert_string_equal(lt_slist(lt_oattr(lt_op(f, "u"), "_input_name_key")), "x1,x0");
  assert_string_equal(lt_ilist(lt_oattr(lt_op(f, "u"), "_input_name_value")), "0,1");
}

static void port_renaming(void **state) {
  lt *f = *state;
  static const char *const more[] = {"s|Split2|a", "k1|Identity|s:1", "k0|Identity|s",
                                     "kk|Identity|^s"};
  abc(f, more, TG_N(more));
  lt_map(f, &f->om.main, "s", "MySplit", "x:0", "y1:1,y0:0");
  lt_map(f, &f->om.main, "k1", "Identity", "x:0", "y:0");
  lt_map(f, &f->om.main, "k0", "Identity", "x:0", "y:0");
  lt_map(f, &f->om.main, "kk", "Identity", "", "y:0");
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air (lite ops): the same bytes */
  const Ge__Proto__OpDef *s = lt_op(f, "s");
  assert_string_equal(s->output_desc[0]->name, "y1");
  assert_string_equal(s->output_desc[1]->name, "y0");
  assert_string_equal(lt_inputs(lt_op(f, "k1")), "s:0");
  assert_string_equal(lt_inputs(lt_op(f, "k0")), "s:1");
  assert_string_equal(lt_inputs(lt_op(f, "kk")), "s:-1");
  assert_string_equal(lt_slist(lt_oattr(s, "_output_name_key")), "y1,y0");
}

static void missing_output_port(void **state) {
  lt *f = *state;
  static const char *const more[] = {"s|Split2|a", "k|Identity|s:1"};
  abc(f, more, TG_N(more));
  lt_map(f, &f->om.main, "s", "MySplit", "x:0", "y0:0");
  lt_map(f, &f->om.main, "k", "Identity", "x:0", "y:0");
  assert_int_equal(lt_lower(f), TFX_EXIT_FAIL);
  assert_true(TG_ERR(&f->d, "'k'", "output 1", "'s'"));
}

static void dynamic_ports(void **state) {
  lt *f = *state;
  static const char *const more[] = {"axis|Const", "cc|ConcatV2|a,b,axis"};
  abc(f, more, TG_N(more));
  /* attrs go on the NodeDefs before mapping (lt_map copies them) */
  Tensorflow__NodeDef *cc = f->m.main.nodes[tfx_graph_find(&f->m.main, "cc")].def;
  lt_attr_i(f, cc, "N", 2);
  lt_attr_type(f, cc, "T", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  Tensorflow__NodeDef *ax = f->m.main.nodes[tfx_graph_find(&f->m.main, "axis")].def;
  Tensorflow__AttrValue *tv = lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_TENSOR);
  tv->tensor = tg_must(tfx_arena_alloc(&f->a, sizeof *tv->tensor));
  tensorflow__tensor_proto__init(tv->tensor);
  tv->tensor->dtype = TENSORFLOW__DATA_TYPE__DT_INT32;
  tv->tensor->tensor_shape = lt_shape(f, NULL, 0);
  lt_attr(f, ax, "value", tv);
  lt_attr_type(f, ax, "dtype", TENSORFLOW__DATA_TYPE__DT_INT32);
  lt_map(f, &f->om.main, "axis", "Const", "", "y:0");
  tfx_mapped_op *op = lt_map(f, &f->om.main, "cc", "ConcatV2", "x0:0*,x1:1*,concat_dim:2", "y:0");
  lt_map_dyn(f, op, "x", 0, 2);
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air (lite ops): the same bytes */
  const Ge__Proto__OpDef *c = lt_op(f, "cc");
  assert_string_equal(lt_inputs(c), "a:0,b:0,axis:0");
  assert_int_equal(lt_int(lt_oattr(c, "__dynamic_input_x_cnt")), 2);
  assert_string_equal(lt_slist(lt_oattr(c, "_input_name_key")), "x0,x1,concat_dim");
  assert_string_equal(lt_ilist(lt_oattr(c, "_input_name_value")), "0,1,2");
  assert_string_equal(lt_slist(lt_oattr(c, "_output_name_key")), "y");
  assert_int_equal(lt_int(lt_oattr(c, "N")), 2);
  assert_int_equal(c->input_desc[2]->dtype, GE__PROTO__DATA_TYPE__DT_INT32);
  assert_string_equal(lt_dims(c->input_desc[2]), "");
  assert_null(lt_oattr(c, "_opt_input"));
}

static void optional_unfed(void **state) {
  lt *f = *state;
  static const char *const more[] = {"cv|Conv2D|a,b"};
  abc(f, more, TG_N(more));
  Tensorflow__NodeDef *cv = f->m.main.nodes[tfx_graph_find(&f->m.main, "cv")].def;
  static const int64_t st[] = {1, 1, 1, 1};
  Tensorflow__AttrValue__ListValue *l = lt_list(f, cv, "strides");
  l->i = (int64_t *)st;
  l->n_i = 4;
  tfx_mapped_op *op =
      lt_map(f, &f->om.main, "cv", "Conv2D", "x:0,filter:1,bias:-1?,offset_w:-1?", "y:0");
  lt_map_attr(
      op, "pads",
      tfx_v_list((const tfx_value[]){tfx_v_int(0), tfx_v_int(0), tfx_v_int(0), tfx_v_int(0)}, 4));
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air: the same bytes */
  const Ge__Proto__OpDef *c = lt_op(f, "cv");
  assert_string_equal(lt_inputs(c), "a:0,b:0,,");
  assert_int_equal(c->n_input_desc, 4);
  const Ge__Proto__TensorDescriptor *bias = c->input_desc[2];
  assert_string_equal(bias->name, "bias");
  assert_int_equal(bias->dtype, GE__PROTO__DATA_TYPE__DT_UNDEFINED);
  /* what GE's own serializer writes (an empty layout makes GE log "Format not support") */
  assert_string_equal(bias->layout, "FORMAT_RESERVED");
  assert_non_null(bias->shape);
  assert_int_equal(bias->shape->n_dim, 0);
  assert_int_equal(lt_int(lt_dattr(bias, "_is_unfed_optional")), 1);
  assert_int_equal(lt_dattr(bias, "origin_format")->s.len, 2);
  assert_memory_equal(lt_dattr(bias, "origin_format")->s.data, "ND", 2);
  assert_null(lt_dattr(bias, "origin_shape"));
  assert_null(lt_dattr(bias, "origin_shape_initialized"));
  assert_string_equal(lt_slist(lt_oattr(c, "_opt_input")), "bias,offset_w");
  /* prototype defaults filled, rule value typed by the prototype (ListInt) */
  assert_string_equal(lt_ilist(lt_oattr(c, "dilations")), "1,1,1,1");
  assert_int_equal(lt_int(lt_oattr(c, "groups")), 1);
  assert_string_equal(lt_ilist(lt_oattr(c, "pads")), "0,0,0,0");
  assert_string_equal(lt_ilist(lt_oattr(c, "strides")), "1,1,1,1");
  lt_check_val_types(f);
}

static void required_attr_missing(void **state) {
  lt *f = *state;
  static const char *const more[] = {"cast|Cast|a", "lr|LeakyRelu|a"};
  abc(f, more, TG_N(more));
  lt_map(f, &f->om.main, "cast", "Cast", "x:0", "y:0");
  tfx_mapped_op *lr = lt_map(f, &f->om.main, "lr", "LeakyRelu", "x:0", "y:0");
  lt_lower_ok(f);
  assert_true(tg_diag_has(&f->d, TFX_SEV_WARNING, "'cast'", "Cast", "required attribute 'dst_type'",
                          (const char *)NULL));
  const Ge__Proto__AttrDef *ns = lt_oattr(lt_op(f, "lr"), "negative_slope");
  assert_non_null(ns);
  assert_int_equal(ns->value_case, GE__PROTO__ATTR_DEF__VALUE_F);
  /* a rule value the prototype type cannot take is an error */
  lt_map_attr(lr, "negative_slope", tfx_v_str("x", 1));
  assert_int_equal(lt_lower(f), TFX_EXIT_FAIL);
  assert_true(TG_ERR(&f->d, "'lr'", "negative_slope"));
}

static void netoutput_from_out_nodes(void **state) {
  lt *f = *state;
  static const char *const more[] = {"i1|Identity|a", "i2|Identity|i1"};
  abc(f, more, TG_N(more));
  lt_map(f, &f->om.main, "i1", "Identity", "x:0", "y:0");
  lt_map(f, &f->om.main, "i2", "Identity", "x:0", "y:0");
  tfx_prune_out outs[] = {{"i2", 0}, {"i1", 0}, {"b", 0}};
  f->prune.outs = outs;
  f->prune.n_outs = 3;
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air (lite ops): the same bytes */
  const Ge__Proto__GraphDef *g = f->gm.model->graph[0];
  const Ge__Proto__OpDef *no = lt_op(f, "NetOutput");
  assert_string_equal(no->type, "NetOutput");
  assert_ptr_equal(g->op[g->n_op - 1], no);
  assert_string_equal(lt_inputs(no), "i2:0,i1:0,b:0");
  assert_string_equal(lt_join(g->output, g->n_output), "i2:0,i1:0,b:0");
  assert_int_equal(no->n_output_desc, 0);
  assert_int_equal(no->n_input_desc, 3);
  assert_string_equal(no->input_desc[0]->name, "input0");
  assert_string_equal(no->input_desc[2]->name, "input2");
  assert_int_equal(no->input_desc[2]->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT);
  assert_string_equal(lt_slist(lt_oattr(no, "_input_name_key")), "input0,input1,input2");
  assert_null(lt_oattr(no, "_output_name_key"));
  /* an out-node port the mapping lacks */
  outs[0].port = 3;
  assert_int_equal(lt_lower(f), TFX_EXIT_FAIL);
  assert_true(TG_ERR(&f->d, "output 3", "'i2'"));
}

static void netoutput_unconsumed(void **state) {
  lt *f = *state;
  static const char *const more[] = {"k|Const", "i1|Identity|a", "i2|Identity|i1", "s|Split2|b",
                                     "na|NoOp|^i2"};
  abc(f, more, TG_N(more));
  Tensorflow__NodeDef *k = f->m.main.nodes[tfx_graph_find(&f->m.main, "k")].def;
  float one = 1;
  lt_attr_ftensor(f, k, "value", NULL, 0, &one, 1);
  lt_map(f, &f->om.main, "k", "Const", "", "y:0");
  lt_map(f, &f->om.main, "i1", "Identity", "x:0", "y:0");
  lt_map(f, &f->om.main, "i2", "Identity", "x:0", "y:0");
  lt_map(f, &f->om.main, "s", "MySplit", "x:0", "y0:0,y1:1");
  lt_map(f, &f->om.main, "na", "NoOp", "", "");
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air (lite ops): the same bytes */
  /* leaves in op order: i2, s (both outputs); not a (consumed), c (Data), k (Const), na (no
   * outputs) */
  assert_string_equal(lt_inputs(lt_op(f, "NetOutput")), "i2:0,s:0,s:1");
  assert_string_equal(lt_inputs(lt_op(f, "na")), "i2:-1");
}

static void netoutput_name_clash(void **state) {
  lt *f = *state;
  static const char *const more[] = {"NetOutput|Identity|a"};
  abc(f, more, TG_N(more));
  lt_map(f, &f->om.main, "NetOutput", "Identity", "x:0", "y:0");
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air (lite ops): the same bytes */
  assert_string_equal(lt_op(f, "NetOutput")->type, "Identity");
  assert_string_equal(lt_inputs(lt_op(f, "NetOutput_1")), "NetOutput:0");
  assert_true(tg_diag_has(&f->d, TFX_SEV_WARNING, "NetOutput_1", (const char *)NULL));
}

static void fused_provenance(void **state) {
  lt *f = *state;
  static const char *const more[] = {"sc/LayerNorm|LayerNorm|a", "id|Identity|sc/LayerNorm"};
  abc(f, more, TG_N(more));
  Tensorflow__NodeDef *ln = f->m.main.nodes[tfx_graph_find(&f->m.main, "sc/LayerNorm")].def;
  lt_attr_s(f, ln, "_fusion_pass", "ScopeLayerNormPass");
  lt_attr_slist(f, ln, "_fusion_nodes", "sc/moments/mean,sc/batchnorm/add");
  lt_attr_s(f, ln, "_fusion_description", "LayerNorm");
  lt_map(f, &f->om.main, "sc/LayerNorm", "LayerNorm", "x:0", "y:0");
  lt_map(f, &f->om.main, "id", "Identity", "x:0", "y:0");
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air (lite ops): the same bytes */
  const Ge__Proto__OpDef *op = lt_op(f, "sc/LayerNorm");
  assert_string_equal(lt_slist(lt_oattr(op, "_datadump_original_op_names")),
                      "sc/moments/mean,sc/batchnorm/add");
  const Ge__Proto__AttrDef *t = lt_oattr(op, "_fusionop_original_type");
  assert_non_null(t);
  assert_memory_equal(t->s.data, "LayerNorm", 9);
  /* _fusion_* TF attrs are not copied (names starting with '_') */
  assert_null(lt_oattr(op, "_fusion_pass"));
  assert_null(lt_oattr(lt_op(f, "id"), "_datadump_original_op_names"));
}

/* Streaming phase 1 keeps attr blocks by what determines them (lower_node.c's block cache):
 * nodes with equal keys share a block, and keys that differ in one part must not (the value,
 * a string's bytes or length, a list's length or split, a dtype, a shape, a bool, a rule value,
 * the attr's name, the dynamic counts, the optional inputs, the type and prototype). Every
 * variant below comes twice (the second one is found in the cache) next to a near miss that
 * would be written with the other's attrs if that part were left out of the key: the streamed
 * .air would then differ from the whole model's. A node whose attrs warn warns each time. */
static void attr_block_cache(void **state) {
  lt *f = *state;
  enum { NV = 22 };
  const char *specs[1 + 2 * NV + 2];
  char names[2 * NV][8];
  specs[0] = "a|Placeholder";
  for (int k = 0; k < 2 * NV; k++) {
    snprintf(names[k], sizeof names[k], "n%02d", k);
    char *sp = tg_must(tfx_arena_alloc(&f->a, 24));
    snprintf(sp, 24, "%s|LeakyRelu|a", names[k]);
    specs[1 + k] = sp;
  }
  specs[1 + 2 * NV] = "w1|Cast|a";
  specs[2 + 2 * NV] = "w2|Cast|a";
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, TG_N(specs));
  lt_attr_type(f, gd->node[0], "dtype", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  static const int64_t i12[] = {1, 2}, i123[] = {1, 2, 3}, i13[] = {1, 3};
  static const int64_t d23[] = {2, 3}, d24[] = {2, 4};
  for (int r = 0; r < 2; r++) { /* node n(2v + r): variant v, twice */
#define ND(v) lt_nd(gd, names[2 * (v) + r])
    lt_attr_s(f, ND(0), "padding", "SAME");
    lt_attr_s(f, ND(1), "padding", "SAMF");
    lt_attr_s(f, ND(2), "padding", "SAM");
    lt_attr_i(f, ND(3), "k", 1);
    lt_attr_i(f, ND(4), "k", 2);
    lt_attr_i(f, ND(5), "j", 1); /* another name */
    lt_attr_type(f, ND(6), "T", TENSORFLOW__DATA_TYPE__DT_FLOAT);
    lt_attr_type(f, ND(7), "T", TENSORFLOW__DATA_TYPE__DT_INT32);
    lt_attr_shape(f, ND(8), "shape", d23, 2);
    lt_attr_shape(f, ND(9), "shape", d24, 2);
    lt_attr_shape(f, ND(10), "shape", NULL, -1);
    Tensorflow__AttrValue__ListValue *l = lt_list(f, ND(11), "ksize");
    l->i = (int64_t *)i12, l->n_i = 2;
    l = lt_list(f, ND(12), "ksize");
    l->i = (int64_t *)i123, l->n_i = 3;
    l = lt_list(f, ND(13), "ksize");
    l->i = (int64_t *)i13, l->n_i = 2;
    lt_attr_slist(f, ND(14), "names", "a,b");
    lt_attr_slist(f, ND(15), "names", "ab");
    Tensorflow__AttrValue *b = lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_B);
    b->b = 1;
    lt_attr(f, ND(16), "flag", b);
    lt_attr(f, ND(17), "flag", lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_B)); /* false */
#undef ND
  }
  lt_attr(f, lt_nd(gd, "w1"), "SrcT", lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_TYPE));
  lt_attr(f, lt_nd(gd, "w2"), "SrcT", lt_av(f, TENSORFLOW__ATTR_VALUE__VALUE_TYPE));
  lt_build(f, gd);
  lt_map(f, &f->om.main, "a", "Data", "", "y:0");
  tfx_mapped_op *op0[NV];
  const tfx_value pads12[] = {tfx_v_int(1), tfx_v_int(2)};
  for (int r = 0; r < 2; r++) {
    tfx_mapped_op *op[NV];
    for (int v = 0; v < NV; v++) {
      const char *type = v == 21 ? "Relu" : "LeakyRelu"; /* another type and prototype */
      const char *in = v == 20 ? "x:0,bias:-1?" : v == 19 ? "x:0,offset:-1?" : "x:0";
      op[v] = lt_map(f, &f->om.main, names[2 * v + r], type, in, "y:0");
    }
    lt_map_attr(op[18], "negative_slope", tfx_v_float(0.25)); /* rule values */
    lt_map_attr(op[19], "negative_slope", tfx_v_float(0.5));
    lt_map_dyn(f, op[20], "x", 0, 2);
    lt_map_dyn(f, op[21], "x", 0, 3);
    lt_map_attr(op[3], "pads", tfx_v_list(pads12, 2)); /* (the lists must outlive lowering) */
    lt_map_attr(op[4], "pads", tfx_v_list(pads12, 1));
    /* port arrays shared like the op mapping's (port names found by array, lower_node.c's
     * port_list_of), and one array read to two lengths: "x" and "x, bias" */
    for (int v = 0; v < NV; v++) {
      if (r) op[v]->in = op0[v]->in, op[v]->out = op0[v]->out;
      op0[v] = op[v];
    }
    op[0]->in = op0[20]->in; /* n_in 1 */
  }
  lt_map(f, &f->om.main, "w1", "Cast", "x:0", "y:0"); /* dst_type missing: warned */
  lt_map(f, &f->om.main, "w2", "Cast", "x:0", "y:0");
  f->o.stream_air = 1;
  f->o.air_max = SIZE_MAX;
  assert_int_equal(lt_lower(f), 0);
  f->o.stream_air = 0;
  assert_true(tg_diag_has(&f->d, TFX_SEV_WARNING, "'w1'", "required attribute 'dst_type'",
                          (const char *)NULL));
  assert_true(tg_diag_has(&f->d, TFX_SEV_WARNING, "'w2'", "required attribute 'dst_type'",
                          (const char *)NULL));
  tfx_diag_free(&f->d);
  tfx_diag_init(&f->d);
  lt_same_streamed(f);
  /* and what the whole model holds (the reference above) is what was asked */
  assert_string_equal(lt_ilist(lt_oattr(lt_op(f, "n25"), "ksize")), "1,2,3");
  assert_null(lt_oattr(lt_op(f, "n01"), "_opt_input"));
  assert_string_equal(lt_slist(lt_oattr(lt_op(f, "n41"), "_opt_input")), "bias");
  assert_int_equal(lt_int(lt_oattr(lt_op(f, "n43"), "__dynamic_input_x_cnt")), 3);
}

/* Consts in the block cache: one key per dtype, shape, data length (tensor_content: the data
 * is borrowed, each Const writes its own) or typed values, and output name. k0/k1 differ only
 * in their tensor_content bytes, k2 in dtype, k3 in shape (same length), k4/k5 in a typed
 * value, k6 repeats k4, k7 repeats k0 with the output named otherwise. */
static void const_cache_graph(lt *f);
static void const_block_cache(void **state) {
  lt *f = *state;
  const_cache_graph(f);
  lt_lower_ok(f);
  lt_same_streamed(f);
  static const uint8_t db[8] = {9, 9, 9, 9, 8, 8, 8, 8};
  const Ge__Proto__AttrDef *v1 = lt_oattr(lt_op(f, "k1"), "value");
  assert_memory_equal(v1->t->data.data, db, 8);
  assert_string_equal(lt_op(f, "k7")->output_desc[0]->name, "z");
}

static void const_cache_graph(lt *f) {
  static const char *const specs[] = {"k0|Const", "k1|Const", "k2|Const", "k3|Const",
                                      "k4|Const", "k5|Const", "k6|Const", "k7|Const",
                                      "k8|Const", "s|AddN|k0,k1,k2,k3,k4,k5,k6,k7,k8"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, TG_N(specs));
  static const uint8_t da[8] = {1, 2, 3, 4, 5, 6, 7, 8}, db[8] = {9, 9, 9, 9, 8, 8, 8, 8};
  static const int64_t d2[] = {2}, d12[] = {1, 2};
  for (int k = 0; k < 9; k++) {
    Tensorflow__NodeDef *nd = gd->node[k];
    int i32 = k == 2;
    lt_attr_type(f, nd, "dtype",
                 i32 ? TENSORFLOW__DATA_TYPE__DT_INT32 : TENSORFLOW__DATA_TYPE__DT_FLOAT);
    float fv = k == 5 ? 0.25f : 0.5f;
    Tensorflow__TensorProto *t =
        lt_attr_ftensor(f, nd, "value", k == 3 ? d12 : d2, k == 3 ? 2 : 1, &fv, 1);
    if (i32) t->dtype = TENSORFLOW__DATA_TYPE__DT_INT32;
    if (k == 4 || k == 5 || k == 6) { /* a scalar of typed values */
      t->tensor_shape = lt_shape(f, NULL, 0);
      if (i32) t->n_float_val = 0;
      continue;
    }
    t->n_float_val = 0;
    t->tensor_content.data = (uint8_t *)(k == 1 ? db : da);
    t->tensor_content.len = 8;
  }
  lt_build(f, gd);
  for (int k = 0; k < 9; k++) {
    char name[4] = {'k', (char)('0' + k), 0};
    lt_map(f, &f->om.main, name, "Const", "", k == 7 ? "z:0" : "y:0");
  }
  lt_map(f, &f->om.main, "s", "AddN", "x0:0*,x1:1*,x2:2*,x3:3*,x4:4*,x5:5*,x6:6*,x7:7*,x8:8*",
         "y:0");
}

static void unsupported_fails(void **state) {
  lt *f = *state;
  static const char *const more[] = {"weird|Frobnicate|a"};
  abc(f, more, TG_N(more));
  tfx_mapped_op *op = lt_mop(&f->om.main, "weird");
  op->how = TFX_MAP_UNSUPPORTED;
  op->type = "Frobnicate";
  op->message = "The type is not supported.";
  assert_int_equal(lt_lower(f), TFX_EXIT_FAIL);
  assert_null(f->gm.model);
  assert_true(TG_ERR(&f->d, "'weird'", "Frobnicate", "not supported"));
}

static void bad_binding(void **state) {
  lt *f = *state;
  static const char *const more[] = {"i|Identity|a"};
  abc(f, more, TG_N(more));
  lt_map(f, &f->om.main, "i", "Identity", "x:4", "y:0");
  assert_int_equal(lt_lower(f), TFX_EXIT_FAIL);
  assert_true(TG_ERR(&f->d, "'i'", "TF input 4", "1 data input"));
}

static void model_fields(void **state) {
  lt *f = *state;
  conv_graph(f);
  f->o.model_name = "resnet";
  lt_lower_ok(f);
  const Ge__Proto__ModelDef *m = f->gm.model;
  assert_string_equal(m->name, "resnet");
  assert_int_equal(m->version, 1);
  assert_int_equal(m->n_attr, 0);
  assert_null(m->attr_groups);
  assert_int_equal(m->n_graph, 1);
  assert_string_equal(m->graph[0]->name, "resnet");
  for (size_t k = 0; k < m->graph[0]->n_op; k++) {
    assert_int_equal(m->graph[0]->op[k]->id, (int64_t)k);
    /* maps sorted */
    for (size_t j = 1; j < m->graph[0]->op[k]->n_attr; j++)
      assert_true(strcmp(m->graph[0]->op[k]->attr[j - 1]->key, m->graph[0]->op[k]->attr[j]->key) <
                  0);
  }
  /* op order is node order, NetOutput last */
  assert_string_equal(m->graph[0]->op[0]->name, "x");
  assert_string_equal(m->graph[0]->op[3]->name, "conv");
  assert_string_equal(m->graph[0]->op[5]->name, "NetOutput");
  assert_string_equal(lt_inputs(m->graph[0]->op[5]), "conv:0,id:0");
  /* the model owns its strings: freeing the module leaves it intact */
  tfx_module_free(&f->m);
  assert_string_equal(m->graph[0]->op[3]->type, "Conv2D");
}

static void determinism(void **state) {
  lt *f = *state;
  conv_graph(f);
  lt_lower_ok(f);
  size_t n1 = protobuf_c_message_get_packed_size(&f->gm.model->base);
  uint8_t *b1 = malloc(n1);
  assert_non_null(b1);
  protobuf_c_message_pack(&f->gm.model->base, b1);
  lt_lower_ok(f);
  size_t n2 = protobuf_c_message_get_packed_size(&f->gm.model->base);
  assert_int_equal(n1, n2);
  uint8_t *b2 = malloc(n2);
  assert_non_null(b2);
  protobuf_c_message_pack(&f->gm.model->base, b2);
  assert_memory_equal(b1, b2, n1);
  /* and it unpacks */
  Ge__Proto__ModelDef *back = ge__proto__model_def__unpack(NULL, n1, b1);
  assert_non_null(back);
  assert_int_equal(back->n_graph, 1);
  ge__proto__model_def__free_unpacked(back, NULL);
  free(b1);
  free(b2);
}

/* Failing each allocation in turn never crashes and never returns a model with errors. */
static void oom_every_allocation(void **state) {
  lt *f = *state;
  conv_graph(f);
  tfx_diag scratch;
  tfx_diag_init(&scratch);
  (void)tfx_tf_ops_stdlib(&scratch); /* loaded once per process, outside the loop */
  tfx_diag_free(&scratch);
  int ok = 0;
  for (long k = 1; k < 2000 && !ok; k++) {
    tfx_diag_clear(&f->d);
    tfx_ge_model_free(&f->gm);
    tfx_alloc_fail_at(k);
    int rc = tfx_ge_lower(&f->gm, &f->m, &f->om, f->protos, &f->o, &f->d);
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (rc == 0) {
      assert_non_null(f->gm.model);
      ok = hits == 0;
    } else {
      assert_null(f->gm.model);
      assert_true(f->d.errors > 0);
      assert_int_equal(rc, TFX_E_NOMEM); /* a status, never a lowering error (issue 15) */
    }
  }
  assert_true(ok);
}

/* The same when streaming, on nodes the block cache finds (Consts whose record is copied
 * with their own data, ops, the kept merges, the port-list memo): every allocation failed in
 * turn ends in out of memory and nothing written, never a crash or another error. */
static void oom_streaming_caches(void **state) {
  lt *f = *state;
  const_cache_graph(f);
  tfx_diag scratch;
  tfx_diag_init(&scratch);
  (void)tfx_tf_ops_stdlib(&scratch);
  tfx_diag_free(&scratch);
  f->o.stream_air = 1;
  f->o.air_max = SIZE_MAX;
  int ok = 0;
  for (long k = 1; k < 4000 && !ok; k++) {
    tfx_diag_clear(&f->d);
    tfx_ge_model_free(&f->gm);
    tfx_alloc_fail_at(k);
    int rc = tfx_ge_lower(&f->gm, &f->m, &f->om, f->protos, &f->o, &f->d);
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (rc == 0) {
      assert_true(f->gm.streamed);
      ok = hits == 0;
    } else {
      assert_int_equal(f->gm.air.total, 0);
      assert_true(f->d.errors > 0);
      assert_int_equal(rc, TFX_E_NOMEM);
    }
  }
  f->o.stream_air = 0;
  assert_true(ok);
}

int main(int argc, char **argv) {
#define T(x) cmocka_unit_test_setup_teardown(x, lt_setup, lt_teardown)
  /* the fault-injection cases: their own ctest test (unit/NAME/fault-injection), skipped
   * (exit 77) when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        T(oom_every_allocation),
        T(oom_streaming_caches),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      T(data_from_placeholder),
      T(data_input_format_and_shape),
      T(data_layout_conflict),
      T(const_value),
      T(const_size_mismatch),
      T(const_without_value),
      T(edges_control_and_deleted),
      T(port_renaming),
      T(missing_output_port),
      T(dynamic_ports),
      T(optional_unfed),
      T(required_attr_missing),
      T(netoutput_from_out_nodes),
      T(netoutput_unconsumed),
      T(netoutput_name_clash),
      T(fused_provenance),
      T(attr_block_cache),
      T(const_block_cache),
      T(unsupported_fails),
      T(bad_binding),
      T(model_fields),
      T(determinism),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
