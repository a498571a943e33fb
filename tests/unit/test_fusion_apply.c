/* Unit tests for applying scope-fusion results to the GraphDef (docs/ASCEND.md §4.2, §4.6,
 * §4.3-4.4): the LayerNorm block fused into one node with the doc's wiring and provenance attrs,
 * index-map keys matched on name tails (byte-order first key, no '/' boundary), disabled and
 * out-of-range ports, ignored children, control edges kept and deduplicated, dropped outside
 * reads warned, many-to-many inner nodes and Const inputs, function bodies (`:output:` form,
 * ret rewiring), and name clashes. Every rewritten graph must re-index cleanly. */
#include "test_fusion_util.h"
#include "util/arena.h"

static void layernorm_fused(void **state) {
  vt *f = *state;
  const char *g[] = {"x|Placeholder", FT_LAYERNORM("dense/LayerNorm"), "y|Relu|dense/LayerNorm/batchnorm/add_1",
                     "z|Identity|y"};
  vt_model(f, g, TG_N(g));
  ft_layernorm_pass(f, "ScopeLayerNormPass");
  ft_finish(f);
  ft_run(f);
  ft_apply(f);
  assert_string_equal(ft_names(f->gd->node, f->gd->n_node),
                      "x dense/LayerNorm/gamma dense/LayerNorm/beta dense/LayerNorm/ y z");
  Tensorflow__NodeDef *ln = ft_find(f->gd->node, f->gd->n_node, "dense/LayerNorm/");
  assert_non_null(ln);
  assert_string_equal(ln->op, "LayerNorm");
  assert_string_equal(ft_inputs(ln), "x,dense/LayerNorm/gamma,dense/LayerNorm/beta");
  assert_string_equal(ft_inputs(ft_find(f->gd->node, f->gd->n_node, "y")), "dense/LayerNorm/");
  const Tensorflow__AttrValue *p = ft_attr(ln, "_fusion_pass");
  assert_non_null(p);
  assert_memory_equal(p->s.data, "ScopeLayerNormPass", p->s.len);
  const Tensorflow__AttrValue *nodes = ft_attr(ln, "_fusion_nodes");
  assert_non_null(nodes);
  assert_int_equal(nodes->list->n_s, 14);
  assert_string_equal((const char *)nodes->list->s[0].data, "dense/LayerNorm/moments/mean/reduction_indices");
  assert_string_equal((const char *)nodes->list->s[13].data, "dense/LayerNorm/batchnorm/add_1");
  assert_non_null(ft_attr(ln, "_fusion_description"));
  assert_null(ft_attr(ln, "_fusion_input_ports")); /* ports 0..2 dense */
  assert_int_equal(ftx->rep.graphs[0].n_removed, 14);
  assert_int_equal(f->d.warnings, 0);
}

/* A pass fusing scope blk/ with the index maps given by `maps` (dir, key, from, to). */
typedef struct mp { int dir; const char *key; int from, to; } mp;
static void blk_pass(vt *f, const char *type, const mp *maps, int n, const char *attr) {
  uint32_t r = ft_pass(f, "BlkPass", 1, 1);
  ft_simple(f, r, "blk", "name blk");
  ft_sel_begin(f, r, 3);
  uint32_t loop, done;
  ft_each(f, "blk", &loop, &done);
  ft_begin(f);
  ft_scopes(f);
  ft_type(f, type);
  ft_desc(f, "a block");
  for (int i = 0; i < n; i++) ft_map(f, maps[i].dir, maps[i].key, maps[i].from, maps[i].to);
  if (attr) ft_attr_int(f, attr, 7);
  ft_end(f);
  ft_each_end(f, loop, done);
  ft_ret(f, 1);
  ft_sel_end(f);
}

/* ASCEND.md §4.3: tails, byte-order first key, disabled/out-of-range ports, ignored children,
 * control edges. pad: that many extra input keys ("zz00"...: match no node, port disabled),
 * so the keys are searched through apply.c's hash tables (more than KEYS_LINEAR keys) instead
 * of one by one: the same wiring either way. */
static void index_maps_pad(void **state, int pad) {
  vt *f = *state;
  const char *g[] = {
      "x|Placeholder", "w|Placeholder", "v|Placeholder", "c|NoOp", "z|Placeholder",
      "blk/a_mul|Mul|x,w,^c",      /* keys "mul" and "a_mul" both match its tail: "a_mul" wins */
      "blk/mul|Mul|blk/a_mul,v,^c", /* only "mul": port 0 internal, port 1 disabled */
      "blk/ign|Relu|z",            /* no key: ignored */
      "blk/tail|Sub|v,x",          /* "ail" matches (no '/' boundary): 0 -> 2, port 1 beyond */
      "out|Identity|blk/mul",      /* output "mul" 0 -> 1 */
      "out2|AddN|blk/ign,blk/mul:0,^blk/ign",
      "after|NoOp|^blk/mul,^blk/a_mul,^c",
  };
  vt_model(f, g, TG_N(g));
  const mp real[] = {{0, "mul", 0, 0}, {0, "mul", 1, -1}, {0, "a_mul", 0, 1}, {0, "a_mul", 1, 3},
                     {0, "ail", 0, 2},  {1, "mul", 0, 1}};
  mp maps[64];
  int n = 0;
  static char keys[40][8];
  /* the pad first: the statements for "mul" and "a_mul" then find their keys through the
   * engine's table of map keys too (engine.c h_map: a table past 16 keys) */
  for (int i = 0; i < pad && n < 40; i++, n++) {
    snprintf(keys[i], sizeof keys[i], "zz%02d", i);
    maps[n] = (mp){0, keys[i], 0, -1};
  }
  for (int i = 0; i < (int)TG_N(real); i++) maps[n++] = real[i];
  blk_pass(f, "Blk", maps, n, "k");
  ft_finish(f);
  ft_run(f);
  ft_apply(f);
  Tensorflow__NodeDef *b = ft_find(f->gd->node, f->gd->n_node, "blk");
  assert_non_null(b);
  /* ports 1 (x via a_mul:0), 2 (v via tail:0), 3 (w via a_mul:1); port 0 unused -> holes */
  assert_string_equal(ft_inputs(b), "x,v,w,^c");
  const Tensorflow__AttrValue *ports = ft_attr(b, "_fusion_input_ports");
  assert_non_null(ports);
  assert_int_equal(ports->list->n_i, 3);
  assert_int_equal(ports->list->i[0], 1);
  assert_int_equal(ports->list->i[2], 3);
  assert_int_equal(ft_attr(b, "k")->i, 7);
  assert_string_equal(ft_inputs(ft_find(f->gd->node, f->gd->n_node, "out")), "blk:1");
  /* out2: reads of the ignored child are dropped (warned), blk/mul:0 -> blk:1 */
  assert_string_equal(ft_inputs(ft_find(f->gd->node, f->gd->n_node, "out2")), "blk:1");
  /* the dropped edge is recorded for the caller (an error unless --allow-dangling-inputs) */
  assert_false(ft_diag_has(&f->d, "'out2' reads 'blk/ign'"));
  assert_int_equal(ftx->rep.n_graphs, 1);
  assert_int_equal(ftx->rep.graphs[0].n_dangling, 1);
  const tfx_fusion_dangling *dg = &ftx->rep.graphs[0].dangling[0];
  assert_string_equal(dg->consumer, "out2");
  assert_string_equal(dg->input, "blk/ign");
  assert_string_equal(dg->producer, "blk/ign");
  assert_string_equal(dg->result, "blk");
  assert_string_equal(dg->pass, "BlkPass");
  assert_string_equal(ft_inputs(ft_find(f->gd->node, f->gd->n_node, "after")), "^blk,^c");
  assert_string_equal(ft_names(f->gd->node, f->gd->n_node), "x w v c z blk out out2 after");
  assert_int_equal(ftx->rep.graphs[0].final[0]->n_inputs, 3 + (uint32_t)pad);
}

static void index_maps(void **state) { index_maps_pad(state, 0); }
static void index_maps_many_keys(void **state) { index_maps_pad(state, 20); }

/* ASCEND.md §4.4: ScopeToMultiNodes: inner nodes `<name>/<inner>`, boundary wiring, Const input. */
static void many_to_many(void **state) {
  vt *f = *state;
  const char *g[] = {
      "x|Placeholder", "y|Placeholder",
      "grad/LayerNorm/m1|Mul|x,y", "grad/LayerNorm/m2|Mul|grad/LayerNorm/m1,y",
      "o0|Identity|grad/LayerNorm/m2", "o1|Identity|grad/LayerNorm/m1",
  };
  vt_model(f, g, TG_N(g));
  uint32_t r = ft_pass(f, "GradPass", 1, 1);
  ft_simple(f, r, "lngrad", "count Mul 2; name LayerNorm");
  ft_sel_begin(f, r, 3);
  uint32_t loop, done;
  ft_each(f, "lngrad", &loop, &done);
  ft_begin(f);
  ft_scopes(f);
  ft_name(f, "grad/LayerNorm");
  ft_type(f, "ScopeToMultiNodes");
  ft_map(f, 0, "m1", 0, 0);
  ft_map(f, 0, "m1", 1, 1);
  ft_map(f, 1, "m2", 0, 0);
  ft_map(f, 1, "m1", 0, 1);
  ft_node(f, "g", "LayerNormGrad");
  ft_node_in(f, NULL, 0);
  ft_node_in(f, NULL, 1);
  ft_node(f, "a", "Add");
  ft_node_in(f, "g", 1);
  ft_node_const_f(f, 1.0);
  ft_node_out(f, 0, "a", 0);
  ft_node_out(f, 1, "g", 2);
  ft_end(f);
  ft_each_end(f, loop, done);
  ft_ret(f, 1);
  ft_sel_end(f);
  ft_finish(f);
  ft_run(f);
  ft_apply(f);
  assert_string_equal(ft_names(f->gd->node, f->gd->n_node),
                      "x y grad/LayerNorm/g grad/LayerNorm/a/const_1 grad/LayerNorm/a o0 o1");
  Tensorflow__NodeDef *gg = ft_find(f->gd->node, f->gd->n_node, "grad/LayerNorm/g");
  assert_string_equal(gg->op, "LayerNormGrad");
  assert_string_equal(ft_inputs(gg), "x,y");
  assert_true(ft_attr(gg, "_is_scope_inner_node")->b);
  Tensorflow__NodeDef *ga = ft_find(f->gd->node, f->gd->n_node, "grad/LayerNorm/a");
  assert_string_equal(ft_inputs(ga), "grad/LayerNorm/g:1,grad/LayerNorm/a/const_1");
  Tensorflow__NodeDef *k = ft_find(f->gd->node, f->gd->n_node, "grad/LayerNorm/a/const_1");
  assert_int_equal(ft_attr(k, "dtype")->type, TENSORFLOW__DATA_TYPE__DT_FLOAT);
  assert_string_equal(ft_inputs(ft_find(f->gd->node, f->gd->n_node, "o0")), "grad/LayerNorm/a");
  assert_string_equal(ft_inputs(ft_find(f->gd->node, f->gd->n_node, "o1")), "grad/LayerNorm/g:2");
}

/* Function bodies: `fused:output:idx`, args as producers, ret rewired. */
static void function_body(void **state) {
  vt *f = *state;
  const char *mainv[] = {"p|Placeholder", "call|f|p"};
  const char *body[] = {
      "blk/a|Mul|x,x", "blk/b|Relu|blk/a:z:0", "r|Identity|blk/b:activations:0",
  };
  f->gd = tg_graph(&f->a, mainv, TG_N(mainv));
  Tensorflow__FunctionDef **fs = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *fs));
  fs[0] = tg_func(&f->a, "f", "x", body, TG_N(body));
  /* ret out = blk/b:activations:0 */
  Tensorflow__FunctionDef__RetEntry *re = tg_must(tfx_arena_alloc(&f->a, sizeof *re));
  tensorflow__function_def__ret_entry__init(re);
  re->key = "out";
  re->value = "blk/b:activations:0";
  fs[0]->ret = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *fs[0]->ret));
  fs[0]->ret[0] = re;
  fs[0]->n_ret = 1;
  tg_set_funcs(&f->a, f->gd, fs, 1);
  vt_model_build(f);
  const mp maps[] = {{0, "a", 0, 0}, {1, "b", 0, 0}};
  blk_pass(f, "Blk", maps, TG_N(maps), NULL);
  ft_finish(f);
  tfx_scope_tree ft_tree;
  assert_int_equal(tfx_scope_tree_build(&ft_tree, &f->m.funcs[0], &f->d), 0);
  assert_int_equal(tfx_fusion_run(&ftx->e, &ftx->en, &f->m, &f->m.funcs[0], &ft_tree, &ftx->rep, &f->d), 0);
  tfx_scope_tree_free(&ft_tree);
  assert_int_equal(ftx->rep.graphs[0].n_final, 1);
  ft_apply(f);
  Tensorflow__FunctionDef *fn = f->gd->library->function[0];
  assert_string_equal(ft_names(fn->node_def, fn->n_node_def), "blk r");
  assert_string_equal(ft_inputs(ft_find(fn->node_def, fn->n_node_def, "blk")), "x");
  assert_string_equal(ft_inputs(ft_find(fn->node_def, fn->n_node_def, "r")), "blk:output:0");
  assert_string_equal(fn->ret[0]->value, "blk:output:0");
}

/* A fused name equal to a node that stays: the result is not applied (warned). */
static void name_clash(void **state) {
  vt *f = *state;
  const char *g[] = {"x|Placeholder", "blk|Placeholder", "blk/a|Relu|x", "y|Identity|blk/a"};
  vt_model(f, g, TG_N(g));
  const mp maps[] = {{0, "a", 0, 0}, {1, "a", 0, 0}};
  blk_pass(f, "Blk", maps, TG_N(maps), NULL);
  ft_finish(f);
  ft_run(f);
  ft_apply(f);
  assert_int_equal(f->gd->n_node, 4);
  assert_false(ftx->rep.graphs[0].applied);
  assert_true(ft_diag_has(&f->d, "clashes with a node that stays"));
}

/* Undo restores the original lists exactly. */
static void undo_restores(void **state) {
  vt *f = *state;
  const char *g[] = {"x|Placeholder", FT_LAYERNORM("LayerNorm"), "y|Relu|LayerNorm/batchnorm/add_1"};
  vt_model(f, g, TG_N(g));
  ft_layernorm_pass(f, "ScopeLayerNormPass");
  ft_finish(f);
  ft_run(f);
  Tensorflow__NodeDef **before = f->gd->node;
  size_t n = f->gd->n_node;
  Tensorflow__NodeDef *y = ft_find(before, n, "y");
  char **yin = y->input;
  tfx_fusion_undo u;
  tfx_fusion_undo_init(&u);
  assert_int_equal(tfx_fusion_apply(&ftx->rep, &f->m, f->gd, &f->a, &u, &f->d), 0);
  assert_int_not_equal(f->gd->n_node, n);
  tfx_fusion_undo_rollback(&u);
  tfx_fusion_undo_free(&u);
  assert_ptr_equal(f->gd->node, before);
  assert_int_equal(f->gd->n_node, n);
  assert_ptr_equal(y->input, yin);
}

/* Every allocation of run + apply failing in turn: an error is reported, nothing leaks or
 * crashes, and the undo log restores the GraphDef. */
static void alloc_failures(void **state) {
  vt *f = *state;
  const char *g[] = {"x|Placeholder", FT_LAYERNORM("LayerNorm"), "y|Relu|LayerNorm/batchnorm/add_1"};
  vt_model(f, g, TG_N(g));
  ft_layernorm_pass(f, "ScopeLayerNormPass");
  ft_finish(f);
  size_t n0 = f->gd->n_node;
  long n;
  for (n = 1; n < 20000; n++) {
    tfx_fusion_report rep;
    tfx_fusion_report_init(&rep);
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_fusion_undo u;
    tfx_fusion_undo_init(&u);
    tfx_alloc_fail_at(n);
    int rc = tfx_fusion_run(&ftx->e, &ftx->en, &f->m, &f->m.main, &f->t, &rep, &d);
    if (rc == 0) rc = tfx_fusion_apply(&rep, &f->m, f->gd, &f->a, &u, &d);
    int hit = tfx_alloc_failures() > 0; /* read before fail_at(0) resets it */
    tfx_alloc_fail_at(0);
    if (rc) assert_true(tfx_diag_has_errors(&d));
    if (!hit) assert_int_equal(rc, 0);
    tfx_fusion_undo_rollback(&u);
    tfx_fusion_undo_free(&u);
    assert_int_equal(f->gd->n_node, n0);
    tfx_fusion_report_free(&rep);
    tfx_diag_free(&d);
    if (!hit) break;
  }
  assert_true(n > 10);
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
        cmocka_unit_test_setup_teardown(alloc_failures, ft_setup, ft_teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(layernorm_fused, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(index_maps, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(index_maps_many_keys, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(many_to_many, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(function_body, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(name_clash, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(undo_restores, ft_setup, ft_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
