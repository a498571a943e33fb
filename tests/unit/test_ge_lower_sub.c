/* Unit tests for src/ge/lower.c: functional control flow (If, While, Case, PartitionedCall)
 * lowered to GE subgraphs (instance names, Data with _parent_node_index, NetOutput from the
 * ret map, nesting, one graph per instance, recursion) and `-> graph` maps (inner ops, Consts
 * for constant inputs, control edges, provenance). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_ge_lower_util.h"

static const Tensorflow__DataType FLOAT1[] = {TENSORFLOW__DATA_TYPE__DT_FLOAT};

/* then: y = Identity(a); else: n = Neg(a) */
static Tensorflow__FunctionDef **branch_funcs(lt *f) {
  static const char *const then_body[] = {"y|Identity|a"};
  static const char *const else_body[] = {"n|Neg|a"};
  Tensorflow__FunctionDef **fs = tg_must(tfx_arena_calloc(&f->a, 8, sizeof *fs));
  fs[0] = tg_func(&f->a, "f_then", "a", then_body, 1);
  fs[1] = tg_func(&f->a, "f_else", "a", else_body, 1);
  lt_attr_type(f, lt_fnd(fs[0], "y"), "T", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  lt_attr_type(f, lt_fnd(fs[1], "n"), "T", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  lt_ret(f, fs[0], "out", "y:output:0");
  lt_ret(f, fs[1], "out", "n:y:0");
  return fs;
}

static void map_branches(lt *f) {
  lt_map(f, lt_fgraph(f, "f_then"), "y", "Identity", "x:0", "y:0");
  lt_map(f, lt_fgraph(f, "f_else"), "n", "Neg", "x:0", "y:0");
}

static void if_node(lt *f, Tensorflow__NodeDef *nd) {
  lt_attr_func(f, nd, "then_branch", "f_then");
  lt_attr_func(f, nd, "else_branch", "f_else");
  lt_attr_type(f, nd, "Tcond", TENSORFLOW__DATA_TYPE__DT_BOOL);
  lt_attr_tlist(f, nd, "Tin", FLOAT1, 1);
  lt_attr_tlist(f, nd, "Tout", FLOAT1, 1);
}

static void map_if(lt *f, const char *name) {
  tfx_mapped_op *op = lt_map(f, &f->om.main, name, "If", "cond:0,input0:1*", "output0:0*");
  lt_map_dyn(f, op, "input", 0, 1);
  lt_map_dyn(f, op, "output", 1, 1);
}

/* c (bool), x (float [2,3]) placeholders */
static Tensorflow__GraphDef *cx_graph(lt *f, const char *const *more, size_t n_more) {
  const char *specs[16] = {"c|Placeholder", "x|Placeholder"};
  for (size_t k = 0; k < n_more; k++) specs[2 + k] = more[k];
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, 2 + n_more);
  int64_t xs[] = {2, 3};
  lt_attr_type(f, lt_nd(gd, "c"), "dtype", TENSORFLOW__DATA_TYPE__DT_BOOL);
  lt_attr_shape(f, lt_nd(gd, "c"), "shape", NULL, 0);
  lt_attr_type(f, lt_nd(gd, "x"), "dtype", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  lt_attr_shape(f, lt_nd(gd, "x"), "shape", xs, 2);
  return gd;
}

static void map_cx(lt *f) {
  lt_map(f, &f->om.main, "c", "Data", "", "y:0");
  lt_map(f, &f->om.main, "x", "Data", "", "y:0");
}

static void if_subgraphs(void **state) {
  lt *f = *state;
  static const char *const more[] = {"cond|If|c,x", "out|Identity|cond"};
  Tensorflow__GraphDef *gd = cx_graph(f, more, TG_N(more));
  if_node(f, lt_nd(gd, "cond"));
  tg_set_funcs(&f->a, gd, branch_funcs(f), 2);
  lt_build(f, gd);
  map_cx(f);
  map_if(f, "cond");
  lt_map(f, &f->om.main, "out", "Identity", "x:0", "y:0");
  map_branches(f);
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air: the same bytes */
  const Ge__Proto__ModelDef *m = f->gm.model;
  assert_int_equal(m->n_graph, 3);
  assert_string_equal(m->graph[1]->name, "cond_then_branch");
  assert_string_equal(m->graph[2]->name, "cond_else_branch");
  const Ge__Proto__OpDef *cond = lt_op(f, "cond");
  assert_string_equal(lt_join(cond->subgraph_name, cond->n_subgraph_name),
                      "cond_then_branch,cond_else_branch");
  assert_null(lt_oattr(cond, "then_branch")); /* subgraphs are not attributes */
  assert_null(lt_oattr(cond, "else_branch"));
  assert_non_null(lt_oattr(cond, "Tout"));
  assert_string_equal(lt_inputs(cond), "c:0,x:0");
  assert_int_equal(lt_int(lt_oattr(cond, "__dynamic_input_input_cnt")), 1);
  assert_int_equal(lt_int(lt_oattr(cond, "__dynamic_output_output_cnt")), 1);
  assert_int_equal(cond->output_desc[0]->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT); /* from Tout */

  const Ge__Proto__GraphDef *tg = lt_graph(f, "cond_then_branch");
  const Ge__Proto__OpDef *a = lt_op_in(tg, "cond_then_branch/a");
  assert_string_equal(a->type, "Data");
  assert_int_equal(lt_int(lt_oattr(a, "index")), 0);
  assert_int_equal(lt_int(lt_oattr(a, "_parent_node_index")), 1); /* input 0 is the condition */
  assert_int_equal(a->input_desc[0]->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT);
  assert_string_equal(lt_dims(a->input_desc[0]), "2,3");
  assert_string_equal(lt_dims(a->output_desc[0]), "2,3");
  const Ge__Proto__OpDef *y = lt_op_in(tg, "cond_then_branch/y");
  assert_string_equal(lt_inputs(y), "cond_then_branch/a:0");
  assert_string_equal(lt_slist(lt_oattr(y, "_datadump_original_op_names")), "cond/f_then/y");
  const Ge__Proto__OpDef *no = lt_op_in(tg, "cond_then_branch/NetOutput");
  assert_string_equal(lt_inputs(no), "cond_then_branch/y:0");
  assert_int_equal(lt_int(lt_dattr(no->input_desc[0], "_parent_node_index")), 0);
  assert_int_equal(tg->n_input, 0);
  assert_int_equal(tg->n_output, 0);

  const Ge__Proto__GraphDef *eg = lt_graph(f, "cond_else_branch");
  assert_string_equal(lt_inputs(lt_op_in(eg, "cond_else_branch/NetOutput")),
                      "cond_else_branch/n:0");
  /* the main graph's outputs: out */
  assert_string_equal(lt_inputs(lt_op(f, "NetOutput")), "out:0");
  lt_check_val_types(f);
}

static void if_function_used_twice(void **state) {
  lt *f = *state;
  static const char *const more[] = {"cond|If|c,x", "cond2|If|c,cond"};
  Tensorflow__GraphDef *gd = cx_graph(f, more, TG_N(more));
  if_node(f, lt_nd(gd, "cond"));
  if_node(f, lt_nd(gd, "cond2"));
  tg_set_funcs(&f->a, gd, branch_funcs(f), 2);
  lt_build(f, gd);
  map_cx(f);
  map_if(f, "cond");
  map_if(f, "cond2");
  map_branches(f);
  lt_lower_ok(f);
  const Ge__Proto__ModelDef *m = f->gm.model;
  assert_int_equal(m->n_graph, 5);
  assert_string_equal(m->graph[3]->name, "cond2_then_branch");
  assert_string_equal(m->graph[4]->name, "cond2_else_branch");
  assert_true(lt_has_op(m->graph[3], "cond2_then_branch/y"));
  assert_true(lt_has_op(m->graph[1], "cond_then_branch/y"));
  /* cond2's branches see cond's output desc */
  const Ge__Proto__OpDef *a = lt_op_in(m->graph[3], "cond2_then_branch/a");
  assert_int_equal(a->input_desc[0]->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT);
  assert_string_equal(lt_inputs(lt_op(f, "NetOutput")), "cond2:0");
}

static void while_subgraphs(void **state) {
  lt *f = *state;
  static const char *const more[] = {"w|While|x"};
  Tensorflow__GraphDef *gd = cx_graph(f, more, TG_N(more));
  Tensorflow__NodeDef *w = lt_nd(gd, "w");
  lt_attr_func(f, w, "cond", "f_cond");
  lt_attr_func(f, w, "body", "f_body");
  lt_attr_tlist(f, w, "T", FLOAT1, 1);
  lt_attr_i(f, w, "parallel_iterations", 10);
  static const char *const cond_body[] = {"l|Identity|a"};
  static const char *const body_body[] = {"s|Neg|a"};
  Tensorflow__FunctionDef **fs = tg_must(tfx_arena_calloc(&f->a, 2, sizeof *fs));
  fs[0] = tg_func(&f->a, "f_body", "a", body_body, 1);
  fs[1] = tg_func(&f->a, "f_cond", "a", cond_body, 1);
  lt_ret(f, fs[0], "o", "s:y:0");
  lt_ret(f, fs[1], "o", "l:output:0");
  tg_set_funcs(&f->a, gd, fs, 2);
  lt_build(f, gd);
  map_cx(f);
  tfx_mapped_op *op = lt_map(f, &f->om.main, "w", "While", "input0:0*", "output0:0*");
  lt_map_dyn(f, op, "input", 0, 1);
  lt_map_dyn(f, op, "output", 1, 1);
  lt_map(f, lt_fgraph(f, "f_cond"), "l", "Identity", "x:0", "y:0");
  lt_map(f, lt_fgraph(f, "f_body"), "s", "Neg", "x:0", "y:0");
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air: the same bytes */
  const Ge__Proto__OpDef *wo = lt_op(f, "w");
  /* IR order: cond, body (not library order) */
  assert_string_equal(lt_join(wo->subgraph_name, wo->n_subgraph_name), "w_cond,w_body");
  assert_int_equal(lt_int(lt_oattr(wo, "parallel_iterations")), 10);
  const Ge__Proto__GraphDef *body = lt_graph(f, "w_body");
  assert_int_equal(lt_int(lt_oattr(lt_op_in(body, "w_body/a"), "_parent_node_index")), 0);
  const Ge__Proto__OpDef *no = lt_op_in(body, "w_body/NetOutput");
  assert_string_equal(lt_inputs(no), "w_body/s:0");
  assert_int_equal(lt_int(lt_dattr(no->input_desc[0], "_parent_node_index")), 0);
  assert_string_equal(lt_inputs(lt_op_in(lt_graph(f, "w_cond"), "w_cond/NetOutput")), "w_cond/l:0");
}

static void case_branches(void **state) {
  lt *f = *state;
  static const char *const more[] = {"i|Placeholder", "cs|Case|i,x"};
  Tensorflow__GraphDef *gd = cx_graph(f, more, TG_N(more));
  lt_attr_type(f, lt_nd(gd, "i"), "dtype", TENSORFLOW__DATA_TYPE__DT_INT32);
  static const char *const br[] = {"f_then", "f_else", "f_then"};
  lt_attr_funcs(f, lt_nd(gd, "cs"), "branches", br, 3);
  lt_attr_tlist(f, lt_nd(gd, "cs"), "Tout", FLOAT1, 1);
  tg_set_funcs(&f->a, gd, branch_funcs(f), 2);
  lt_build(f, gd);
  map_cx(f);
  lt_map(f, &f->om.main, "i", "Data", "", "y:0");
  lt_map(f, &f->om.main, "cs", "Case", "branch_index:0,input0:1*", "output0:0*");
  map_branches(f);
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air: the same bytes */
  const Ge__Proto__OpDef *cs = lt_op(f, "cs");
  assert_string_equal(lt_join(cs->subgraph_name, cs->n_subgraph_name),
                      "cs_branches0,cs_branches1,cs_branches2");
  assert_int_equal(f->gm.model->n_graph, 4);
  assert_true(lt_has_op(lt_graph(f, "cs_branches2"), "cs_branches2/y"));
  assert_true(lt_has_op(lt_graph(f, "cs_branches1"), "cs_branches1/n"));
  assert_null(lt_oattr(cs, "branches"));
}

static void nested_calls(void **state) {
  lt *f = *state;
  static const char *const more[] = {"p|PartitionedCall|x"};
  Tensorflow__GraphDef *gd = cx_graph(f, more, TG_N(more));
  lt_attr_func(f, lt_nd(gd, "p"), "f", "f_outer");
  lt_attr_tlist(f, lt_nd(gd, "p"), "Tin", FLOAT1, 1);
  lt_attr_tlist(f, lt_nd(gd, "p"), "Tout", FLOAT1, 1);
  static const char *const outer[] = {"q|StatefulPartitionedCall|a", "k|NoOp|^q"};
  static const char *const leaf[] = {"unused|NoOp"};
  Tensorflow__FunctionDef **fs = tg_must(tfx_arena_calloc(&f->a, 2, sizeof *fs));
  fs[0] = tg_func(&f->a, "f_outer", "a", outer, 2);
  fs[1] = tg_func(&f->a, "f_leaf", "b", leaf, 1);
  lt_attr_func(f, lt_fnd(fs[0], "q"), "f", "f_leaf");
  lt_attr_tlist(f, lt_fnd(fs[0], "q"), "Tout", FLOAT1, 1);
  lt_ret(f, fs[0], "o", "q:output:0");
  lt_ret(f, fs[1], "o", "b"); /* an argument passed through */
  /* control_ret: k */
  Tensorflow__FunctionDef__ControlRetEntry *cr = tg_must(tfx_arena_alloc(&f->a, sizeof *cr));
  tensorflow__function_def__control_ret_entry__init(cr);
  cr->key = "k";
  cr->value = "k";
  fs[0]->control_ret = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *fs[0]->control_ret));
  fs[0]->control_ret[0] = cr;
  fs[0]->n_control_ret = 1;
  tg_set_funcs(&f->a, gd, fs, 2);
  lt_build(f, gd);
  map_cx(f);
  lt_map(f, &f->om.main, "p", "PartitionedCall", "args0:0*", "output0:0*");
  lt_map(f, lt_fgraph(f, "f_outer"), "q", "PartitionedCall", "args0:0*", "output0:0*");
  lt_map(f, lt_fgraph(f, "f_outer"), "k", "NoOp", "", "");
  lt_map(f, lt_fgraph(f, "f_leaf"), "unused", "NoOp", "", "");
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air: the same bytes */
  const Ge__Proto__ModelDef *m = f->gm.model;
  assert_int_equal(m->n_graph, 3);
  assert_string_equal(m->graph[1]->name, "p_f");
  assert_string_equal(m->graph[2]->name, "p_f/q_f");
  const Ge__Proto__OpDef *q = lt_op_in(m->graph[1], "p_f/q");
  assert_string_equal(lt_join(q->subgraph_name, q->n_subgraph_name), "p_f/q_f");
  assert_string_equal(lt_inputs(q), "p_f/a:0");
  assert_string_equal(lt_slist(lt_oattr(q, "_datadump_original_op_names")), "p/f_outer/q");
  assert_string_equal(lt_inputs(lt_op_in(m->graph[1], "p_f/NetOutput")), "p_f/q:0,p_f/k:-1");
  const Ge__Proto__OpDef *lno = lt_op_in(m->graph[2], "p_f/q_f/NetOutput");
  assert_string_equal(lt_inputs(lno), "p_f/q_f/b:0");
  assert_int_equal(lt_int(lt_dattr(lno->input_desc[0], "_parent_node_index")), 0);
  assert_int_equal(lt_op_in(m->graph[2], "p_f/q_f/b")->input_desc[0]->dtype,
                   GE__PROTO__DATA_TYPE__DT_FLOAT);
  /* ids are sequential over the whole model */
  int64_t id = 0;
  for (size_t g = 0; g < m->n_graph; g++)
    for (size_t k = 0; k < m->graph[g]->n_op; k++) assert_int_equal(m->graph[g]->op[k]->id, id++);
}

static void recursion_and_missing_functions(void **state) {
  lt *f = *state;
  static const char *const more[] = {"p|PartitionedCall|x", "cond|If|c,x"};
  Tensorflow__GraphDef *gd = cx_graph(f, more, TG_N(more));
  lt_attr_func(f, lt_nd(gd, "p"), "f", "f_rec");
  lt_attr_func(f, lt_nd(gd, "cond"), "then_branch", "nope");
  lt_attr_func(f, lt_nd(gd, "cond"), "else_branch", "f_rec");
  static const char *const body[] = {"r|PartitionedCall|a"};
  Tensorflow__FunctionDef **fs = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *fs));
  fs[0] = tg_func(&f->a, "f_rec", "a", body, 1);
  lt_attr_func(f, lt_fnd(fs[0], "r"), "f", "f_rec");
  lt_ret(f, fs[0], "o", "r:output:0");
  tg_set_funcs(&f->a, gd, fs, 1);
  lt_build(f, gd);
  map_cx(f);
  lt_map(f, &f->om.main, "p", "PartitionedCall", "args0:0*", "output0:0*");
  map_if(f, "cond");
  lt_map(f, lt_fgraph(f, "f_rec"), "r", "PartitionedCall", "args0:0*", "output0:0*");
  assert_int_equal(lt_lower(f), TFX_EXIT_FAIL);
  assert_null(f->gm.model);
  assert_true(TG_ERR(&f->d, "f_rec", "calls itself"));
  assert_true(TG_ERR(&f->d, "'cond'", "'nope'", "not in the library"));
}

static void arg_count_mismatch(void **state) {
  lt *f = *state;
  static const char *const more[] = {"p|PartitionedCall|x"};
  Tensorflow__GraphDef *gd = cx_graph(f, more, TG_N(more));
  lt_attr_func(f, lt_nd(gd, "p"), "f", "two");
  static const char *const body[] = {"r|Identity|a"};
  Tensorflow__FunctionDef **fs = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *fs));
  fs[0] = tg_func(&f->a, "two", "a,b", body, 1);
  lt_ret(f, fs[0], "o", "r:output:0");
  tg_set_funcs(&f->a, gd, fs, 1);
  lt_build(f, gd);
  map_cx(f);
  lt_map(f, &f->om.main, "p", "PartitionedCall", "args0:0*", "output0:0*");
  lt_map(f, lt_fgraph(f, "two"), "r", "Identity", "x:0", "y:0");
  assert_int_equal(lt_lower(f), TFX_EXIT_FAIL);
  assert_true(TG_ERR(&f->d, "'two'", "2 argument(s)", "1 data input(s)"));
}

/* Softplus -> graph { e: Exp(in 0); a: Add(e:0, const 1.0); l: Log(a:0); out 0 = l:0 } */
static void graph_map(void **state) {
  lt *f = *state;
  static const char *const specs[] = {"x|Placeholder", "c|Placeholder", "sp|Softplus|x,^c",
                                      "o|Identity|sp"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, TG_N(specs));
  lt_attr_type(f, lt_nd(gd, "x"), "dtype", TENSORFLOW__DATA_TYPE__DT_HALF);
  lt_attr_type(f, lt_nd(gd, "c"), "dtype", TENSORFLOW__DATA_TYPE__DT_HALF);
  lt_attr_type(f, lt_nd(gd, "sp"), "T", TENSORFLOW__DATA_TYPE__DT_HALF);
  int64_t ss[] = {4};
  lt_out_shapes(f, lt_nd(gd, "sp"), ss, 1);
  lt_build(f, gd);
  lt_map(f, &f->om.main, "x", "Data", "", "y:0");
  lt_map(f, &f->om.main, "c", "Data", "", "y:0");
  lt_map(f, &f->om.main, "o", "Identity", "x:0", "y:0");
  tfx_mapped_op *sp = lt_mop(&f->om.main, "sp");
  sp->how = TFX_MAP_GRAPH;
  sp->type = "graph";
  static tfx_map_inner_in e_in[] = {{NULL, 0, NULL}};
  static tfx_value one;
  one = tfx_v_float(1.0);
  static tfx_map_inner_in a_in[] = {{"sp/e", 0, NULL}, {NULL, 0, NULL}};
  a_in[1].cval = &one;
  static tfx_map_inner_in l_in[] = {{"sp/a", 0, NULL}};
  static tfx_map_port a_fmt[] = {{"x1", 0, "NCHW", 0, "x1"}};
  static tfx_map_inner inner[3];
  inner[0] = (tfx_map_inner){.name = "sp/e", .type = "Exp", .in = e_in, .n_in = 1};
  inner[1] = (tfx_map_inner){
      .name = "sp/a", .type = "Add", .in = a_in, .n_in = 2, .in_fmt = a_fmt, .n_in_fmt = 1};
  inner[2] = (tfx_map_inner){.name = "sp/l", .type = "Log", .in = l_in, .n_in = 1};
  static tfx_map_attr l_attrs[1];
  l_attrs[0].name = "base";
  l_attrs[0].v = tfx_v_int(2); /* an int for a Float attr */
  inner[2].attrs = l_attrs;
  inner[2].n_attrs = 1;
  sp->inner = inner;
  sp->n_inner = 3;
  static tfx_map_graph_out outs[] = {{0, "sp/l", 0}};
  sp->outs = outs;
  sp->n_outs = 1;
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air: the same bytes */
  const Ge__Proto__GraphDef *g = f->gm.model->graph[0];
  assert_string_equal(g->op[2]->name, "sp/e");
  assert_string_equal(g->op[3]->name, "sp/a/const_1");
  assert_string_equal(g->op[4]->name, "sp/a");
  assert_string_equal(g->op[5]->name, "sp/l");
  assert_string_equal(lt_inputs(lt_op(f, "sp/e")), "x:0,c:-1"); /* reads the boundary: gets ^c */
  assert_string_equal(lt_inputs(lt_op(f, "sp/a")), "sp/e:0,sp/a/const_1:0");
  assert_string_equal(lt_inputs(lt_op(f, "sp/l")), "sp/a:0");
  assert_string_equal(lt_inputs(lt_op(f, "o")), "sp/l:0");
  /* the constant takes its sibling's dtype (half) */
  const Ge__Proto__OpDef *k = lt_op(f, "sp/a/const_1");
  assert_string_equal(k->type, "Const");
  const Ge__Proto__AttrDef *v = lt_oattr(k, "value");
  assert_int_equal(v->t->desc->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT16);
  assert_int_equal(v->t->data.len, 2);
  assert_int_equal(v->t->data.data[0] | v->t->data.data[1] << 8, 0x3c00);
  assert_int_equal(k->output_desc[0]->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT16);
  assert_int_equal(lt_oattr(k, "dtype")->dt, 1);
  /* ports named from the prototypes, forced format, defaults, typed rule value */
  const Ge__Proto__OpDef *a = lt_op(f, "sp/a");
  assert_string_equal(lt_slist(lt_oattr(a, "_input_name_key")), "x1,x2");
  assert_string_equal(a->input_desc[0]->layout, "NCHW");
  assert_string_equal(a->input_desc[1]->layout, "ND");
  const Ge__Proto__OpDef *l = lt_op(f, "sp/l");
  assert_int_equal(lt_oattr(l, "base")->value_case, GE__PROTO__ATTR_DEF__VALUE_F);
  assert_true(lt_oattr(l, "base")->f == 2.0f);
  assert_non_null(lt_oattr(l, "scale"));
  /* the exported output carries the TF output's dtype and shape */
  assert_int_equal(l->output_desc[0]->dtype, GE__PROTO__DATA_TYPE__DT_FLOAT16);
  assert_string_equal(lt_dims(l->output_desc[0]), "4");
  /* provenance: the TF node */
  assert_string_equal(lt_slist(lt_oattr(l, "_datadump_original_op_names")), "sp");
  assert_string_equal(lt_slist(lt_oattr(k, "_datadump_original_op_names")), "sp");
  assert_string_equal(lt_inputs(lt_op(f, "NetOutput")), "o:0");
  lt_check_val_types(f);
}

/* Generated names never take a TF node's name. */
static void graph_map_name_clash(void **state) {
  lt *f = *state;
  static const char *const specs[] = {"x|Placeholder", "sp|Softplus|x", "sp/e|Identity|sp"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, TG_N(specs));
  lt_attr_type(f, lt_nd(gd, "x"), "dtype", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  lt_build(f, gd);
  lt_map(f, &f->om.main, "x", "Data", "", "y:0");
  lt_map(f, &f->om.main, "sp/e", "Identity", "x:0", "y:0");
  tfx_mapped_op *sp = lt_mop(&f->om.main, "sp");
  sp->how = TFX_MAP_GRAPH;
  static tfx_map_inner_in e_in[] = {{NULL, 0, NULL}};
  static tfx_map_inner inner[1];
  inner[0] = (tfx_map_inner){.name = "sp/e", .type = "Exp", .in = e_in, .n_in = 1};
  sp->inner = inner;
  sp->n_inner = 1;
  static tfx_map_graph_out outs[] = {{0, "sp/e", 0}};
  sp->outs = outs;
  sp->n_outs = 1;
  lt_lower_ok(f);
  assert_string_equal(lt_op(f, "sp/e")->type, "Identity");
  assert_string_equal(lt_op(f, "sp/e_1")->type, "Exp");
  assert_string_equal(lt_inputs(lt_op(f, "sp/e")), "sp/e_1:0");
  assert_true(tg_diag_has(&f->d, TFX_SEV_WARNING, "sp/e_1", (const char *)NULL));
}

/* Lowering's name table (lower.c, "op names") past its first size: 40 generated names in a
 * graph of 3 nodes make it grow (the names move by their hashes); afterwards a TF name is
 * still taken (an inner op of that name gets `_1`) and every edge still finds its producer. A
 * generated name equal to a graph-mapped node's own name is not taken: only the TF nodes
 * that get an op of their own reserve their names. */
static void graph_map_names_grow(void **state) {
  lt *f = *state;
  enum { N_INNER = 40 };
  static const char *const specs[] = {"x|Placeholder", "sp|Softplus|x", "sp/e20|Identity|sp"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, TG_N(specs));
  lt_attr_type(f, lt_nd(gd, "x"), "dtype", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  lt_build(f, gd);
  lt_map(f, &f->om.main, "x", "Data", "", "y:0");
  lt_map(f, &f->om.main, "sp/e20", "Identity", "x:0", "y:0");
  tfx_mapped_op *sp = lt_mop(&f->om.main, "sp");
  sp->how = TFX_MAP_GRAPH;
  static tfx_map_inner_in in[N_INNER];
  static tfx_map_inner inner[N_INNER];
  static char names[N_INNER][16];
  for (int k = 0; k < N_INNER; k++) {
    if (k == 0) snprintf(names[k], sizeof names[k], "sp");
    else snprintf(names[k], sizeof names[k], "sp/e%d", k);
    in[k] = (tfx_map_inner_in){k ? names[k - 1] : NULL, 0, NULL};
    inner[k] = (tfx_map_inner){.name = names[k], .type = "Exp", .in = &in[k], .n_in = 1};
  }
  sp->inner = inner;
  sp->n_inner = N_INNER;
  static tfx_map_graph_out outs[1];
  outs[0] = (tfx_map_graph_out){0, names[N_INNER - 1], 0};
  sp->outs = outs;
  sp->n_outs = 1;
  lt_lower_ok(f);
  lt_same_streamed(f); /* the streamed .air: the same bytes */
  assert_string_equal(lt_op(f, "sp")->type, "Exp");
  assert_string_equal(lt_inputs(lt_op(f, "sp")), "x:0");
  assert_string_equal(lt_inputs(lt_op(f, "sp/e1")), "sp:0");
  assert_string_equal(lt_op(f, "sp/e20")->type, "Identity");
  assert_string_equal(lt_op(f, "sp/e20_1")->type, "Exp");
  assert_string_equal(lt_inputs(lt_op(f, "sp/e21")), "sp/e20_1:0");
  assert_string_equal(lt_inputs(lt_op(f, "sp/e20")), "sp/e39:0");
  assert_string_equal(lt_inputs(lt_op(f, "NetOutput")), "sp/e20:0");
  assert_true(tg_diag_has(&f->d, TFX_SEV_WARNING, "sp/e20_1", (const char *)NULL));
  assert_false(tg_diag_has(&f->d, TFX_SEV_WARNING, "sp_1", (const char *)NULL));
  assert_int_equal(f->gm.model->graph[0]->n_op, 1 + N_INNER + 1 + 1);
}

static void determinism_with_subgraphs(void **state) {
  lt *f = *state;
  static const char *const more[] = {"cond|If|c,x", "cond2|If|c,cond"};
  Tensorflow__GraphDef *gd = cx_graph(f, more, TG_N(more));
  if_node(f, lt_nd(gd, "cond"));
  if_node(f, lt_nd(gd, "cond2"));
  tg_set_funcs(&f->a, gd, branch_funcs(f), 2);
  lt_build(f, gd);
  map_cx(f);
  map_if(f, "cond");
  map_if(f, "cond2");
  map_branches(f);
  uint8_t *b[2];
  size_t n[2];
  for (int k = 0; k < 2; k++) {
    lt_lower_ok(f);
    n[k] = protobuf_c_message_get_packed_size(&f->gm.model->base);
    b[k] = malloc(n[k]);
    assert_non_null(b[k]);
    protobuf_c_message_pack(&f->gm.model->base, b[k]);
  }
  assert_int_equal(n[0], n[1]);
  assert_memory_equal(b[0], b[1], n[0]);
  const char *dump = getenv("TFXC_GE_DUMP"); /* debugging aid: the packed model */
  if (dump) {
    FILE *out = fopen(dump, "wb");
    if (out) {
      fwrite(b[0], 1, n[0], out);
      fclose(out);
    }
  }
  free(b[0]);
  free(b[1]);
}

int main(void) {
#define T(x) cmocka_unit_test_setup_teardown(x, lt_setup, lt_teardown)
  const struct CMUnitTest tests[] = {
      T(if_subgraphs),         T(if_function_used_twice),
      T(while_subgraphs),      T(case_branches),
      T(nested_calls),         T(recursion_and_missing_functions),
      T(arg_count_mismatch),   T(graph_map),
      T(graph_map_name_clash), T(graph_map_names_grow),
      T(determinism_with_subgraphs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
