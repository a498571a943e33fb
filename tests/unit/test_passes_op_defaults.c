/* The op-defaults pass (src/passes/pass_defaults.c) and the training scan the prune pass
 * runs (src/graph/training.c, tfx_train_prune's any_train), on GraphDefs built in C against
 * the stdlib's TF op table (compiled in).
 * Stage: tests (passes). Covers: the defaults a node lacks are added in op-def order with the
 * op-def values, present attrs are kept (not duplicated), every node lacking a default gets
 * the same (shared) entry, a node whose op has no defaults or is unknown keeps its attr
 * array, a second run adds nothing; an indexed graph (the pass's main-graph path then goes by
 * the index's op ids) gets the same attrs as the NodeDef walk, also for a node whose NodeDef
 * was replaced after indexing; any_train says whether the graph had training machinery,
 * and tfx_train_report agrees with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/graph.h"
#include "graph/training.h"
#include "passes/passes.h"
#include "test_graph_util.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"

typedef struct fx {
  tfx_options o;
  tfx_diag d;
  tfx_ctx ctx;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f) return -1;
  f->o.emit = 1u << TFX_EMIT_AIR; /* op defaults run only when the op mapping does */
  tfx_diag_init(&f->d);
  tfx_ctx_init(&f->ctx, &f->o, &f->d);
  tfx_arena_init(&f->ctx.model.arena);
  f->ctx.have_model = 1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  tfx_ctx_free(&f->ctx);
  tfx_diag_free(&f->d);
  free(f);
  return 0;
}

static Tensorflow__GraphDef *graph(fx *f, const char *const *specs, size_t n) {
  f->ctx.model.graph = tg_graph(&f->ctx.model.arena, specs, n);
  return f->ctx.model.graph;
}

static Tensorflow__NodeDef *node(fx *f, const char *name) {
  const Tensorflow__GraphDef *gd = f->ctx.model.graph;
  for (size_t i = 0; i < gd->n_node; i++)
    if (!strcmp(gd->node[i]->name, name)) return gd->node[i];
  fail_msg("no node '%s'", name);
  return NULL;
}

static const Tensorflow__NodeDef__AttrEntry *entry(const Tensorflow__NodeDef *nd, const char *key) {
  const Tensorflow__NodeDef__AttrEntry *e = NULL;
  int count = 0;
  for (size_t i = 0; i < nd->n_attr; i++)
    if (!strcmp(nd->attr[i]->key, key)) e = nd->attr[i], count++;
  assert_true(count <= 1); /* never a duplicate key */
  return e;
}

static void set_s(fx *f, const char *name, const char *key, const char *s) {
  Tensorflow__NodeDef *nd = node(f, name);
  Tensorflow__NodeDef__AttrEntry **v = tg_must(tfx_arena_calloc(&f->ctx.model.arena, nd->n_attr + 1,
                                                                sizeof *v));
  if (nd->n_attr) memcpy(v, nd->attr, nd->n_attr * sizeof *v);
  Tensorflow__NodeDef__AttrEntry *e = tg_must(tfx_arena_alloc(&f->ctx.model.arena, sizeof *e));
  tensorflow__node_def__attr_entry__init(e);
  Tensorflow__AttrValue *val = tg_must(tfx_arena_alloc(&f->ctx.model.arena, sizeof *val));
  tensorflow__attr_value__init(val);
  val->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
  val->s.data = (uint8_t *)tg_must(tfx_arena_strdup(&f->ctx.model.arena, s));
  val->s.len = strlen(s);
  e->key = tg_must(tfx_arena_strdup(&f->ctx.model.arena, key));
  e->value = val;
  v[nd->n_attr] = e;
  nd->attr = v;
  nd->n_attr++;
}

static void assert_s(const Tensorflow__NodeDef__AttrEntry *e, const char *want) {
  assert_non_null(e);
  assert_int_equal(e->value->value_case, TENSORFLOW__ATTR_VALUE__VALUE_S);
  assert_int_equal(e->value->s.len, strlen(want));
  assert_memory_equal(e->value->s.data, want, strlen(want));
}

/* Conv2D's defaults (use_cudnn_on_gpu, explicit_paddings, data_format, dilations), shared. */
static void defaults_added_and_shared(void **state) {
  fx *f = *state;
  static const char *const g[] = {"x|Placeholder", "w|Const",         "c1|Conv2D|x,w",
                                  "c2|Conv2D|x,w", "c3|Conv2D|x,w",   "r|Relu|c1",
                                  "u|NoSuchOpType|r"};
  graph(f, g, TG_N(g));
  set_s(f, "c3", "data_format", "NCHW");
  Tensorflow__NodeDef__AttrEntry **relu_attrs = node(f, "r")->attr, **u_attrs = node(f, "u")->attr;
  assert_int_equal(tfx_pass_op_defaults(&f->ctx, NULL), 0);
  assert_int_equal(f->d.errors, 0);
  const Tensorflow__NodeDef *c1 = node(f, "c1"), *c2 = node(f, "c2"), *c3 = node(f, "c3");
  /* op-def order after the node's own attrs; padding and strides have no default */
  assert_int_equal(c1->n_attr, 4);
  assert_string_equal(c1->attr[0]->key, "use_cudnn_on_gpu");
  assert_string_equal(c1->attr[1]->key, "explicit_paddings");
  assert_string_equal(c1->attr[2]->key, "data_format");
  assert_string_equal(c1->attr[3]->key, "dilations");
  assert_null(entry(c1, "padding"));
  assert_int_equal(entry(c1, "use_cudnn_on_gpu")->value->value_case, TENSORFLOW__ATTR_VALUE__VALUE_B);
  assert_true(entry(c1, "use_cudnn_on_gpu")->value->b);
  const Tensorflow__AttrValue *dil = entry(c1, "dilations")->value;
  assert_int_equal(dil->value_case, TENSORFLOW__ATTR_VALUE__VALUE_LIST);
  assert_int_equal(dil->list->n_i, 4);
  for (int i = 0; i < 4; i++) assert_int_equal(dil->list->i[i], 1);
  assert_int_equal(entry(c1, "explicit_paddings")->value->value_case, TENSORFLOW__ATTR_VALUE__VALUE_LIST);
  assert_int_equal(entry(c1, "explicit_paddings")->value->list->n_i, 0);
  assert_s(entry(c1, "data_format"), "NHWC");
  /* every node lacking a default gets the same entry */
  for (size_t i = 0; i < c1->n_attr; i++) assert_ptr_equal(c1->attr[i], c2->attr[i]);
  /* a present attr stays as it was, the others are added (shared with c1's) */
  assert_int_equal(c3->n_attr, 4);
  assert_s(entry(c3, "data_format"), "NCHW");
  assert_string_equal(c3->attr[0]->key, "data_format");
  assert_ptr_equal(entry(c3, "dilations"), entry(c1, "dilations"));
  assert_ptr_equal(entry(c3, "use_cudnn_on_gpu"), entry(c1, "use_cudnn_on_gpu"));
  /* no defaults (Relu), not in the table: the arrays are untouched */
  assert_ptr_equal(node(f, "r")->attr, relu_attrs);
  assert_ptr_equal(node(f, "u")->attr, u_attrs);
  /* a second run finds nothing missing */
  Tensorflow__NodeDef__AttrEntry **before = c1->attr;
  assert_int_equal(tfx_pass_op_defaults(&f->ctx, NULL), 0);
  assert_ptr_equal(node(f, "c1")->attr, before);
  assert_int_equal(node(f, "c1")->n_attr, 4);
}

/* Defaults of several op types in one graph, each found (the op cache gives every type its
 * own def); the same attribute name of two op types is two entries. */
static void many_op_types(void **state) {
  fx *f = *state;
  static const char *const g[] = {
      "x|Placeholder",       "a1|MaxPool|x",    "a2|AvgPool|x",         "a3|Conv2D|x,x",
      "a4|BiasAdd|x,x",      "a5|MatMul|x,x",   "a6|FusedBatchNorm|x,x,x,x,x",
      "a7|DepthToSpace|x",   "a8|SpaceToDepth|x", "a9|MaxPool|x",       "a10|AvgPool|x",
      "a11|BiasAdd|x,x",     "a12|MatMul|x,x"};
  graph(f, g, TG_N(g));
  assert_int_equal(tfx_pass_op_defaults(&f->ctx, NULL), 0);
  static const char *const want[][2] = {
      {"a1", "data_format"}, {"a2", "data_format"}, {"a3", "dilations"},  {"a4", "data_format"},
      {"a5", "transpose_a"}, {"a6", "epsilon"},     {"a7", "data_format"}, {"a8", "data_format"},
      {"a9", "data_format"}, {"a10", "data_format"}, {"a11", "data_format"}, {"a12", "transpose_b"}};
  for (size_t i = 0; i < TG_N(want); i++)
    if (!entry(node(f, want[i][0]), want[i][1]))
      fail_msg("node '%s' did not get '%s'", want[i][0], want[i][1]);
  assert_ptr_equal(entry(node(f, "a1"), "data_format"), entry(node(f, "a9"), "data_format"));
  assert_ptr_not_equal(entry(node(f, "a1"), "data_format"), entry(node(f, "a2"), "data_format"));
  assert_false(entry(node(f, "a5"), "transpose_a")->value->b);
}

/* The attr keys of every node, "name:key,key;" in node order. */
static void keys_of(const Tensorflow__GraphDef *gd, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  for (size_t i = 0; i < gd->n_node; i++) {
    n += (size_t)snprintf(buf + n, cap - n, "%s:", gd->node[i]->name);
    for (size_t a = 0; a < gd->node[i]->n_attr; a++)
      n += (size_t)snprintf(buf + n, cap - n, "%s=%d,", gd->node[i]->attr[a]->key,
                            (int)gd->node[i]->attr[a]->value->value_case);
    n += (size_t)snprintf(buf + n, cap - n, ";");
    assert_true(n < cap);
  }
}

/* With the graph indexed the pass finds each node's op def by the index's op id and passes
 * over the nodes of types without defaults: the same attrs as the NodeDef walk, arrays of
 * nodes without defaults untouched; a NodeDef swapped in after indexing (the index describes
 * another node there) goes the NodeDef way and gets its own type's defaults. */
static void indexed_same_as_walk(void **state) {
  fx *f = *state;
  static const char *const g[] = {"x|Placeholder", "w|Const",      "c1|Conv2D|x,w", "r|Relu|c1",
                                  "m|MatMul|r,w",  "u|NoSuchOpType|r", "p|MaxPool|x", "c2|Conv2D|p,w"};
  char want[4096], got[4096];
  graph(f, g, TG_N(g));
  assert_int_equal(tfx_pass_op_defaults(&f->ctx, NULL), 0); /* not indexed: the NodeDef walk */
  keys_of(f->ctx.model.graph, want, sizeof want);
  Tensorflow__GraphDef *gd = graph(f, g, TG_N(g));
  assert_int_equal(tfx_module_build(&f->ctx.module, gd, "m.pb", &f->d), 0);
  f->ctx.have_module = 1;
  Tensorflow__NodeDef__AttrEntry **w_attrs = node(f, "w")->attr, **r_attrs = node(f, "r")->attr;
  assert_int_equal(tfx_pass_op_defaults(&f->ctx, NULL), 0);
  assert_int_equal(f->d.errors, 0);
  keys_of(gd, got, sizeof got);
  assert_string_equal(got, want);
  assert_ptr_equal(node(f, "w")->attr, w_attrs); /* Const, Relu: no defaults, not touched */
  assert_ptr_equal(node(f, "r")->attr, r_attrs);
  assert_non_null(entry(node(f, "c2"), "data_format"));
  /* node 3 (the index's Relu "r") replaced by a Conv2D after indexing */
  static const char *const g2[] = {"x|Placeholder", "k|Conv2D|x,x"};
  Tensorflow__GraphDef *other = tg_graph(&f->ctx.model.arena, g2, TG_N(g2));
  gd->node[3] = other->node[1];
  assert_int_equal(tfx_pass_op_defaults(&f->ctx, NULL), 0);
  assert_int_equal(node(f, "k")->n_attr, 4);
  assert_s(entry(node(f, "k"), "data_format"), "NHWC");
  assert_non_null(entry(node(f, "k"), "dilations"));
}

/* any_train: 1 exactly when the graph had a training-machinery node; the report then finds
 * the ones left, and with 0 it would find none. */
static void train_scan(void **state) {
  fx *f = *state;
  tfx_arena *a = &f->ctx.model.arena;
  static const char *const plain[] = {"x|Placeholder", "c|Const", "m|Mul|x,c", "s|Summation|m",
                                      "y|Identity|m"};
  Tensorflow__GraphDef *gd = graph(f, plain, TG_N(plain));
  uint32_t removed = 7;
  int any = -1;
  assert_int_equal(tfx_train_prune(gd, a, "m.pb", &f->d, &removed, &any), 0);
  assert_int_equal(any, 0);
  assert_int_equal(removed, 0);
  assert_int_equal(tfx_train_report(gd, "m.pb", TFX_SEV_WARNING, &f->d), 0);
  /* a save op on the side: pruned away; any_train still says the graph had one */
  static const char *const saver[] = {"x|Placeholder", "c|Const", "m|Mul|x,c", "y|Identity|m",
                                      "save/SaveV2|SaveV2|c"};
  gd = graph(f, saver, TG_N(saver));
  assert_int_equal(tfx_train_prune(gd, a, "m.pb", &f->d, &removed, &any), 0);
  assert_int_equal(any, 1);
  assert_int_equal(removed, 1);
  assert_int_equal(tfx_train_report(gd, "m.pb", TFX_SEV_WARNING, &f->d), 0);
  /* a summary op every output needs: kept, reported */
  static const char *const summ[] = {"x|Placeholder", "h|HistogramSummary|x", "y|Identity|x,^h"};
  gd = graph(f, summ, TG_N(summ));
  assert_int_equal(tfx_train_prune(gd, a, "m.pb", &f->d, NULL, &any), 0);
  assert_int_equal(any, 1);
  assert_int_equal(tfx_train_report(gd, "m.pb", TFX_SEV_WARNING, &f->d), 1);
  /* NULL any_train is allowed */
  assert_int_equal(tfx_train_prune(gd, a, "m.pb", &f->d, NULL, NULL), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(defaults_added_and_shared, setup, teardown),
      cmocka_unit_test_setup_teardown(many_op_types, setup, teardown),
      cmocka_unit_test_setup_teardown(indexed_same_as_walk, setup, teardown),
      cmocka_unit_test_setup_teardown(train_scan, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
