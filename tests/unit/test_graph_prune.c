/* Unit tests for pruning (src/graph/prune.c): --input-shape / --out-nodes parsing and ATC
 * TrimGraphByInput / TrimGraphByOutput semantics on small GraphDefs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/prune.h"
#include "test_graph_util.h"
#include "tfxc/tfxc.h"
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

/* Comma-joined names of gd's nodes, in order, into buf. */
static const char *names(const Tensorflow__GraphDef *gd, char *buf, size_t n) {
  size_t w = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < gd->n_node; i++) {
    int k = snprintf(buf + w, n - w, "%s%s", i ? "," : "", gd->node[i]->name);
    if (k < 0 || (size_t)k >= n - w) break;
    w += (size_t)k;
  }
  return buf;
}

static const Tensorflow__NodeDef *node(const Tensorflow__GraphDef *gd, const char *name) {
  for (size_t i = 0; i < gd->n_node; i++)
    if (strcmp(gd->node[i]->name, name) == 0) return gd->node[i];
  return NULL;
}

/* Parses both option strings (NULL = not given) and prunes; returns the prune result. */
static int prune(fx *f, Tensorflow__GraphDef *gd, const char *shapes, const char *outs) {
  tfx_prune_opts o = {0};
  tfx_prune_shape *sv = NULL;
  tfx_prune_out *ov = NULL;
  if (shapes) {
    int rc = tfx_prune_parse_input_shape(shapes, &f->a, &sv, &o.n_shapes, &f->d);
    if (rc) return rc;
    o.shapes = sv;
  }
  if (outs) {
    int rc = tfx_prune_parse_out_nodes(outs, &f->a, &ov, &o.n_outs, &f->d);
    if (rc) return rc;
    o.outs = ov;
  }
  return tfx_prune_graphdef(gd, &o, &f->a, "m.pb", &f->d);
}

/* preprocessing -> input -> net -> {out1, out2}; plus an unrelated branch. */
static const char *const G[] = {
    "raw|Placeholder",
    "decode|DecodeJpeg|raw",
    "resize|ResizeBilinear|decode,size",
    "size|Const",
    "input|Identity|resize",
    "w|Const",
    "conv|Conv2D|input,w",
    "relu|Relu|conv",
    "out1|Softmax|relu",
    "out2|Identity|conv",
    "side|Placeholder",
    "side_out|Neg|side",
    "init|NoOp|^w",
};

/* ---- parsing --------------------------------------------------------------------------- */

static void parse_input_shape_ok(void **state) {
  fx *f = *state;
  tfx_prune_shape *v;
  uint32_t n;
  assert_int_equal(tfx_prune_parse_input_shape("a:1,224,224,3;b/c:-1,10;s:;", &f->a, &v, &n, &f->d), 0);
  assert_int_equal(n, 3);
  assert_string_equal(v[0].name, "a");
  assert_int_equal(v[0].n_dims, 4);
  assert_int_equal(v[0].dims[1], 224);
  assert_string_equal(v[1].name, "b/c");
  assert_int_equal(v[1].dims[0], -1);
  assert_string_equal(v[2].name, "s");
  assert_int_equal(v[2].n_dims, 0);
  assert_int_equal(f->d.errors, 0);
}

static void parse_input_shape_bad(void **state) {
  fx *f = *state;
  tfx_prune_shape *v;
  uint32_t n;
  const char *bad[] = {"",     "a",      ":1,2",   "a:1,,2", "a:1,x", "a:-2",
                       "a:1;;b:2", "a:1;a:2", "a:1,99999999999999999999", "a:1,"};
  for (size_t i = 0; i < TG_N(bad); i++) {
    tfx_diag_clear(&f->d);
    if (tfx_prune_parse_input_shape(bad[i], &f->a, &v, &n, &f->d) != TFX_E_USAGE)
      fail_msg("accepted '%s'", bad[i]);
    assert_true(f->d.errors > 0);
  }
  tfx_diag_clear(&f->d);
  assert_int_equal(tfx_prune_parse_input_shape("a:1,x", &f->a, &v, &n, &f->d), TFX_E_USAGE);
  assert_true(TG_ERR(&f->d, "dimension of node 'a' is not an integer"));
  assert_string_equal(f->d.items[0].file, "--input-shape");
  assert_int_equal(f->d.items[0].col, 5); /* caret under 'x' */
  tfx_diag_clear(&f->d);
  assert_int_equal(tfx_prune_parse_input_shape("a:-2", &f->a, &v, &n, &f->d), TFX_E_USAGE);
  assert_true(TG_ERR(&f->d, "must be >= -1"));
  tfx_diag_clear(&f->d);
  assert_int_equal(tfx_prune_parse_input_shape("a:1;a:2", &f->a, &v, &n, &f->d), TFX_E_USAGE);
  assert_true(TG_ERR(&f->d, "node 'a' is given twice"));
  tfx_diag_clear(&f->d);
  assert_int_equal(tfx_prune_parse_input_shape("abc", &f->a, &v, &n, &f->d), TFX_E_USAGE);
  assert_true(TG_ERR(&f->d, "expected 'name:dims'"));
}

static void parse_out_nodes(void **state) {
  fx *f = *state;
  tfx_prune_out *v;
  uint32_t n;
  assert_int_equal(tfx_prune_parse_out_nodes("n:0;m:1;k", &f->a, &v, &n, &f->d), 0);
  assert_int_equal(n, 3);
  assert_string_equal(v[0].name, "n");
  assert_int_equal(v[0].port, 0);
  assert_string_equal(v[1].name, "m");
  assert_int_equal(v[1].port, 1);
  assert_string_equal(v[2].name, "k");
  assert_int_equal(v[2].port, 0);
  const char *bad[] = {"", "n:", "n:x", "n:-1", ":0", "n:0;;m:1", "n:2147483648"};
  for (size_t i = 0; i < TG_N(bad); i++) {
    tfx_diag_clear(&f->d);
    if (tfx_prune_parse_out_nodes(bad[i], &f->a, &v, &n, &f->d) != TFX_E_USAGE)
      fail_msg("accepted '%s'", bad[i]);
    assert_true(f->d.errors > 0);
  }
  tfx_diag_clear(&f->d);
  assert_int_equal(tfx_prune_parse_out_nodes("n:x", &f->a, &v, &n, &f->d), TFX_E_USAGE);
  assert_true(TG_ERR(&f->d, "output index of node 'n' is not a non-negative integer"));
  assert_string_equal(f->d.items[0].file, "--out-nodes");
}

/* ---- trimming -------------------------------------------------------------------------- */

static void trim_by_input(void **state) {
  fx *f = *state;
  char buf[512];
  Tensorflow__GraphDef *gd = tg_graph(&f->a, G, TG_N(G));
  tg_attr_type(&f->a, gd->node[4], "T", TENSORFLOW__DATA_TYPE__DT_HALF);
  int rc = prune(f, gd, "input:1,224,-1,3", NULL);
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  /* everything upstream of 'input' is gone; the rest, unrelated nodes included, stays */
  assert_string_equal(names(gd, buf, sizeof buf),
                      "input,w,conv,relu,out1,out2,side,side_out,init");
  const Tensorflow__NodeDef *in = node(gd, "input");
  assert_string_equal(in->op, "Placeholder");
  assert_int_equal(in->n_input, 0);
  assert_int_equal(in->n_attr, 2);
  const Tensorflow__AttrValue *dt = tg_attr(in, "dtype");
  assert_non_null(dt);
  assert_int_equal(dt->type, TENSORFLOW__DATA_TYPE__DT_HALF); /* from T */
  assert_null(tg_attr(in, "T"));
  const Tensorflow__AttrValue *sh = tg_attr(in, "shape");
  assert_non_null(sh);
  assert_int_equal(sh->value_case, TENSORFLOW__ATTR_VALUE__VALUE_SHAPE);
  assert_int_equal(sh->shape->n_dim, 4);
  assert_int_equal(sh->shape->dim[2]->size, -1);
  assert_int_equal(sh->shape->dim[3]->size, 3);
  /* the trimmed graph indexes cleanly */
  tfx_module m;
  assert_int_equal(tfx_module_build(&m, gd, "m.pb", &f->d), 0);
  tfx_module_free(&m);
}

static void trim_by_input_dtype_default_and_scalar(void **state) {
  fx *f = *state;
  const char *g[] = {"a|Placeholder", "b|Foo|a", "c|Neg|b", "p|Placeholder", "q|Neg|p"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, g, TG_N(g));
  tg_attr_type(&f->a, gd->node[3], "dtype", TENSORFLOW__DATA_TYPE__DT_INT32);
  assert_int_equal(prune(f, gd, "b:;p:2", NULL), 0);
  const Tensorflow__NodeDef *b = node(gd, "b");
  assert_int_equal(tg_attr(b, "dtype")->type, TENSORFLOW__DATA_TYPE__DT_FLOAT);
  assert_int_equal(tg_attr(b, "shape")->shape->n_dim, 0);
  assert_true(tg_diag_has(&f->d, TFX_SEV_NOTE, "node 'b'", "DT_FLOAT", (const char *)NULL));
  assert_int_equal(tg_attr(node(gd, "p"), "dtype")->type, TENSORFLOW__DATA_TYPE__DT_INT32);
  assert_null(node(gd, "a"));
  assert_int_equal(gd->n_node, 4);
}

static void trim_by_input_dangling_is_error(void **state) {
  fx *f = *state;
  /* 'k' feeds both the preprocessing (upstream of 'input') and the net: ATC deletes it */
  const char *g[] = {"k|Const", "pre|Mul|k,k", "input|Identity|pre", "net|Add|input,k"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, g, TG_N(g));
  assert_int_equal(prune(f, gd, "input:1", NULL), TFX_EXIT_USAGE);
  assert_true(TG_ERR(&f->d, "removes node 'k'", "node 'net' still uses it"));
  assert_int_equal(gd->n_node, 4); /* unchanged on error */
}

static void trim_by_output(void **state) {
  fx *f = *state;
  char buf[512];
  Tensorflow__GraphDef *gd = tg_graph(&f->a, G, TG_N(G));
  assert_int_equal(prune(f, gd, NULL, "out2:0"), 0);
  assert_string_equal(names(gd, buf, sizeof buf), "raw,decode,resize,size,input,w,conv,out2");
  assert_string_equal(node(gd, "input")->op, "Identity"); /* untouched */
}

static void trim_by_output_follows_control_inputs(void **state) {
  fx *f = *state;
  char buf[256];
  const char *g[] = {"a|Const", "b|NoOp|^a", "c|Const|^b", "d|Neg|c", "e|Neg|d"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, g, TG_N(g));
  assert_int_equal(prune(f, gd, NULL, "d"), 0);
  assert_string_equal(names(gd, buf, sizeof buf), "a,b,c,d");
}

static void trim_both(void **state) {
  fx *f = *state;
  char buf[512];
  Tensorflow__GraphDef *gd = tg_graph(&f->a, G, TG_N(G));
  /* 'side' is an input no output reaches: ATC keeps it anyway */
  assert_int_equal(prune(f, gd, "input:1,224,224,3;side:4", "out1:0;out2"), 0);
  assert_string_equal(names(gd, buf, sizeof buf), "input,w,conv,relu,out1,out2,side");
  assert_string_equal(node(gd, "input")->op, "Placeholder");
  assert_string_equal(node(gd, "side")->op, "Placeholder");
  assert_int_equal(tg_attr(node(gd, "side"), "shape")->shape->dim[0]->size, 4);
}

static void trim_while_loop_by_output(void **state) {
  fx *f = *state;
  const char *g[] = {
      "x|Placeholder",
      "while/Enter|Enter|x",
      "while/Merge|Merge|while/Enter,while/NextIteration",
      "while/Switch|Switch|while/Merge,while/LoopCond",
      "while/LoopCond|LoopCond|while/Merge",
      "while/add|Neg|while/Switch:1",
      "while/NextIteration|NextIteration|while/add",
      "while/Exit|Exit|while/Switch",
      "out|Identity|while/Exit",
      "junk|Const",
  };
  Tensorflow__GraphDef *gd = tg_graph(&f->a, g, TG_N(g));
  assert_int_equal(prune(f, gd, NULL, "out:0"), 0);
  assert_int_equal(gd->n_node, 9);
  assert_null(node(gd, "junk"));
}

static void trim_unknown_names(void **state) {
  fx *f = *state;
  Tensorflow__GraphDef *gd = tg_graph(&f->a, G, TG_N(G));
  assert_int_equal(prune(f, gd, "nope:1", NULL), TFX_EXIT_USAGE);
  assert_true(TG_ERR(&f->d, "input_shape name 'nope' not found in the graph"));
  tfx_diag_clear(&f->d);
  assert_int_equal(prune(f, gd, "input:1", "out1;ghost:0;phantom"), TFX_EXIT_USAGE);
  assert_true(TG_ERR(&f->d, "out_nodes name 'ghost' not found in the graph"));
  assert_true(TG_ERR(&f->d, "out_nodes name 'phantom' not found in the graph"));
  assert_int_equal(gd->n_node, TG_N(G));
}

static void trim_missing_upstream_name(void **state) {
  fx *f = *state;
  const char *g[] = {"a|Neg|lost", "b|Neg|a"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, g, TG_N(g));
  assert_int_equal(prune(f, gd, NULL, "b:0"), TFX_EXIT_USAGE);
  assert_true(TG_ERR(&f->d, "out_nodes name 'lost' not found", "node 'a'"));
}

static void trim_noop_without_options(void **state) {
  fx *f = *state;
  Tensorflow__GraphDef *gd = tg_graph(&f->a, G, TG_N(G));
  tfx_prune_opts o = {0};
  assert_int_equal(tfx_prune_graphdef(gd, &o, &f->a, "m.pb", &f->d), 0);
  assert_int_equal(gd->n_node, TG_N(G));
}


static void oom_every_allocation(void **state) {
  fx *f = *state;
  int ok = 0;
  for (long k = 1; k < 500 && !ok; k++) {
    tfx_arena a2;
    tfx_arena_init(&a2);
    Tensorflow__GraphDef *gd = tg_graph(&f->a, G, TG_N(G));
    tfx_diag_clear(&f->d);
    tfx_prune_opts o = {0};
    tfx_prune_shape *sv = NULL;
    tfx_prune_out *ov = NULL;
    tfx_alloc_fail_at(k);
    int rc = tfx_prune_parse_input_shape("input:1,2;side:3", &a2, &sv, &o.n_shapes, &f->d);
    if (!rc) rc = tfx_prune_parse_out_nodes("out1:0;out2", &a2, &ov, &o.n_outs, &f->d);
    o.shapes = sv;
    o.outs = ov;
    if (!rc) rc = tfx_prune_graphdef(gd, &o, &a2, "m.pb", &f->d);
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (hits == 0) {
      assert_int_equal(rc, 0);
      assert_int_equal(gd->n_node, 7);
      ok = 1;
    } else {
      assert_int_equal(rc, TFX_E_NOMEM); /* not a bad option value (2) nor input (3) */
      assert_true(TG_ERR(&f->d, "out of memory"));
      assert_int_equal(gd->n_node, TG_N(G));
    }
    tfx_arena_free(&a2);
  }
  assert_true(ok);
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
        cmocka_unit_test_setup_teardown(oom_every_allocation, setup, teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(parse_input_shape_ok, setup, teardown),
      cmocka_unit_test_setup_teardown(parse_input_shape_bad, setup, teardown),
      cmocka_unit_test_setup_teardown(parse_out_nodes, setup, teardown),
      cmocka_unit_test_setup_teardown(trim_by_input, setup, teardown),
      cmocka_unit_test_setup_teardown(trim_by_input_dtype_default_and_scalar, setup, teardown),
      cmocka_unit_test_setup_teardown(trim_by_input_dangling_is_error, setup, teardown),
      cmocka_unit_test_setup_teardown(trim_by_output, setup, teardown),
      cmocka_unit_test_setup_teardown(trim_by_output_follows_control_inputs, setup, teardown),
      cmocka_unit_test_setup_teardown(trim_both, setup, teardown),
      cmocka_unit_test_setup_teardown(trim_while_loop_by_output, setup, teardown),
      cmocka_unit_test_setup_teardown(trim_unknown_names, setup, teardown),
      cmocka_unit_test_setup_teardown(trim_missing_upstream_name, setup, teardown),
      cmocka_unit_test_setup_teardown(trim_noop_without_options, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
