/* Unit tests for the incremental re-index after scope fusion (src/passes/reindex.c,
 * tfx_ctx_reindex_changed): over every golden case of tests/golden/cases (the stdlib rules
 * and each case's pass options, through the real pipeline with the dataflow pass off, so the
 * index left behind is the one scope fusion made) the incrementally updated index must equal a
 * full build field for field, and the incremental path must have been taken where fusion
 * applied. The same for the dataflow pass run after it (every round that changed a graph,
 * function bodies and dropped dead producers included, is updated incrementally and equals a
 * full build). On hand-made rewrites: a renumbered graph with a new node and a rewired consumer is
 * indexed the same both ways; a rewrite that makes a cycle, a duplicate name or an input to a
 * missing node is left to the full build (which reports it). tfx_module_diff finds a changed
 * input, consumer, topological position and op type. Many names removed at once (the old
 * name map patched in place) index the same both ways. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fusion/dataflow.h"
#include "fusion/engine.h"
#include "passes/passes.h"
#include "tfxc/tfxc.h"

/* ---------------------------------------------------------------- the golden cases */

/* Reads the case's args file: --enable-scope-fusion-passes X, --disable-pass X,
 * --allow-dangling-inputs (what the scope-fusion pass looks at). */
static void case_args(const char *dir, char *enable, char *disable, int *allow, size_t cap) {
  char path[8192], line[200];
  enable[0] = disable[0] = 0;
  *allow = 0;
  snprintf(path, sizeof path, "%s/args", dir);
  FILE *f = fopen(path, "r");
  if (!f) return;
  char prev[256] = "";
  while (fscanf(f, "%199s", line) == 1) {
    if (line[0] == '#') {
      int c;
      while ((c = fgetc(f)) != EOF && c != '\n') {}
      continue;
    }
    if (!strcmp(prev, "--enable-scope-fusion-passes")) snprintf(enable, cap, "%.199s", line);
    if (!strcmp(prev, "--disable-pass")) snprintf(disable, cap, "%.199s", line);
    if (!strcmp(line, "--allow-dangling-inputs")) *allow = 1;
    snprintf(prev, sizeof prev, "%.199s", line);
  }
  fclose(f);
}

/* One golden case set up for a run up to scope fusion: its model, its rules/ directory when it
 * has one, its args (case_args); the dataflow pass disabled (hold_dataflow: in the pipeline
 * too, for a caller that runs it by hand). Returns 0 when the case has no model.pbtxt. The
 * context points into g, which must stay where it is until golden_close. */
typedef struct golden_run {
  char model[4096 + 300], rules[4096 + 300], enable[256], disable[256];
  const char *paths[1];
  tfx_options o;
  tfx_pipeline p;
  tfx_diag d;
  tfx_ctx ctx;
} golden_run;

static int golden_open(golden_run *g, const char *root, const char *name, int hold_dataflow) {
  char cdir[4096 + 256];
  snprintf(cdir, sizeof cdir, "%s/%s", root, name);
  snprintf(g->model, sizeof g->model, "%s/model.pbtxt", cdir);
  snprintf(g->rules, sizeof g->rules, "%s/rules", cdir);
  FILE *mf = fopen(g->model, "r");
  if (!mf) return 0;
  fclose(mf);
  DIR *rd = opendir(g->rules);
  if (rd) closedir(rd);
  int allow;
  case_args(cdir, g->enable, g->disable, &allow, sizeof g->enable);
  memset(&g->o, 0, sizeof g->o);
  g->o.model_path = g->model;
  g->o.disable = "dataflow";
  g->paths[0] = g->rules;
  if (rd) {
    g->o.rule_paths = g->paths;
    g->o.n_rule_paths = 1;
  }
  if (g->enable[0]) g->o.enable_scope_passes = g->enable;
  if (g->disable[0]) g->o.disable_rules = g->disable;
  g->o.allow_dangling_inputs = allow;
  tfx_pipeline_init(&g->p);
  assert_int_equal(tfx_pass_register_builtin(&g->p), 0);
  tfx_diag_init(&g->d);
  if (hold_dataflow) assert_int_equal(tfx_pipeline_disable(&g->p, "dataflow", &g->d), 0);
  tfx_ctx_init(&g->ctx, &g->o, &g->d);
  return 1;
}

static void golden_close(golden_run *g) {
  tfx_ctx_free(&g->ctx);
  tfx_diag_free(&g->d);
  tfx_pipeline_free(&g->p);
}

/* Fails unless ctx's index equals a full build of its graph ("after WHAT" in the message). */
static void index_is_full_build(const tfx_ctx *ctx, const char *name, const char *what) {
  tfx_module full;
  tfx_diag d2;
  tfx_diag_init(&d2);
  assert_int_equal(tfx_module_build_ex(&full, ctx->model.graph, ctx->model.path, 0u, &d2), 0);
  char why[300] = "";
  if (tfx_module_diff(&ctx->module, &full, why, sizeof why))
    fail_msg("%s: the index after %s differs from a full build: %s", name, what, why);
  tfx_module_free(&full);
  tfx_diag_free(&d2);
}

static void golden_cases(void **state) {
  (void)state;
  const char *src = getenv("TFXC_SRC");
  if (!src) skip();
  char root[4096];
  snprintf(root, sizeof root, "%s/tests/golden/cases", src);
  DIR *dir = opendir(root);
  assert_non_null(dir);
  struct dirent *e;
  unsigned cases = 0, fused = 0, updated = 0;
  while ((e = readdir(dir)) != NULL) {
    golden_run g;
    if (e->d_name[0] == '.' || !golden_open(&g, root, e->d_name, 0)) continue;
    int rc = tfx_pipeline_run(&g.p, &g.ctx, TFX_GROUP_SCOPE_FUSION);
    cases++;
    int applied = 0;
    for (uint32_t i = 0; g.ctx.fusion_report && i < g.ctx.fusion_report->n_graphs; i++)
      applied |= g.ctx.fusion_report->graphs[i].applied;
    if (rc == 0 && g.ctx.have_module) index_is_full_build(&g.ctx, e->d_name, "scope fusion");
    fused += applied;
    if (applied && g.ctx.reindex_updates) updated++;
    else if (applied) fprintf(stderr, "%s: fused, re-indexed in full\n", e->d_name);
    golden_close(&g);
  }
  closedir(dir);
  fprintf(stderr, "%u cases, %u fused, %u re-indexed incrementally\n", cases, fused, updated);
  assert_true(cases > 40);
  assert_true(fused >= 20);
  assert_true(updated == fused);
}

/* The dataflow pass over every golden case (stdlib rewrites: MatMul/Conv2D + BiasAdd, GELU,
 * with their commutative matches and the Consts they leave unread; the cases' own rules;
 * function bodies): each round that changed the graph must be re-indexed incrementally
 * (ctx.reindex_updates), and every such update equals a full build (TFXC_VERIFY_REINDEX=1
 * makes tfx_ctx_reindex_changed compare each round in release builds too; a difference fails
 * the pass), as the index left at the end does. */
static void golden_cases_dataflow(void **state) {
  (void)state;
  const char *src = getenv("TFXC_SRC");
  if (!src) skip();
  assert_int_equal(setenv("TFXC_VERIFY_REINDEX", "1", 1), 0);
  char root[4096];
  snprintf(root, sizeof root, "%s/tests/golden/cases", src);
  DIR *dir = opendir(root);
  assert_non_null(dir);
  struct dirent *e;
  unsigned rewritten = 0, in_funcs = 0, dropped = 0, rounds_changed = 0, cases = 0;
  while ((e = readdir(dir)) != NULL) {
    golden_run g;
    if (e->d_name[0] == '.' || !golden_open(&g, root, e->d_name, 1)) continue;
    int rc = tfx_pipeline_run(&g.p, &g.ctx, TFX_GROUP_SCOPE_FUSION);
    if (rc == 0 && g.ctx.have_module) {
      cases++;
      unsigned before = g.ctx.reindex_updates;
      rc = (int)tfx_pass_dataflow(&g.ctx, NULL);
      for (size_t k = 0; rc && k < g.d.n; k++)
        fprintf(stderr, "%s: %s\n", e->d_name, g.d.items[k].msg ? g.d.items[k].msg : "?");
      assert_int_equal(rc, 0);
      const tfx_flow_report *fr = g.ctx.flow_report;
      unsigned changed = fr && fr->rounds ? fr->rounds - (fr->capped ? 0u : 1u) : 0u;
      assert_int_equal(g.ctx.reindex_updates - before, changed); /* every one incremental */
      rounds_changed += changed;
      for (uint32_t i = 0; fr && i < fr->n; i++) {
        rewritten++;
        in_funcs += fr->v[i].graph[0] != 0;
        dropped += fr->v[i].n_dropped;
      }
      index_is_full_build(&g.ctx, e->d_name, "the dataflow pass");
    }
    golden_close(&g);
  }
  closedir(dir);
  fprintf(stderr, "%u cases: %u rewrites (%u in function bodies, %u dead producers dropped), %u rounds "
          "re-indexed incrementally\n", cases, rewritten, in_funcs, dropped, rounds_changed);
  assert_true(cases > 40);
  assert_true(rewritten >= 10);
  assert_true(in_funcs >= 1);
  assert_true(dropped >= 1);
  assert_true(rounds_changed >= 8);
  unsetenv("TFXC_VERIFY_REINDEX");
}

/* A commutative match taken in the swapped operand order (the stdlib's SwishFusion:
 * Mul(x, Sigmoid(x)) written as Mul(Sigmoid(x), x)) next to one in the written order, whose
 * root is read by a node and a control input: re-indexed incrementally, equal to a full build. */
static void dataflow_commuted(void **state) {
  (void)state;
  char dir[] = "/tmp/tfxc_reindex_XXXXXX", model[64];
  assert_non_null(mkdtemp(dir));
  snprintf(model, sizeof model, "%s/m.pbtxt", dir);
  FILE *f = fopen(model, "w");
  assert_non_null(f);
  fputs("node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
        "node { name: \"s\" op: \"Sigmoid\" input: \"x\" attr { key: \"T\" value { type: DT_FLOAT } } }\n"
        "node { name: \"m\" op: \"Mul\" input: \"s\" input: \"x\" attr { key: \"T\" value { type: DT_FLOAT } } }\n"
        "node { name: \"s2\" op: \"Sigmoid\" input: \"m\" attr { key: \"T\" value { type: DT_FLOAT } } }\n"
        "node { name: \"m2\" op: \"Mul\" input: \"m\" input: \"s2\" attr { key: \"T\" value { type: DT_FLOAT } } }\n"
        "node { name: \"y\" op: \"Identity\" input: \"m2\" input: \"^m\" attr { key: \"T\" value { type: DT_FLOAT } } }\n",
        f);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(setenv("TFXC_VERIFY_REINDEX", "1", 1), 0);
  tfx_options o;
  memset(&o, 0, sizeof o);
  o.model_path = model;
  tfx_pipeline p;
  tfx_pipeline_init(&p);
  assert_int_equal(tfx_pass_register_builtin(&p), 0);
  tfx_diag d;
  tfx_diag_init(&d);
  assert_int_equal(tfx_pipeline_disable(&p, "dataflow", &d), 0);
  tfx_ctx ctx;
  tfx_ctx_init(&ctx, &o, &d);
  assert_int_equal(tfx_pipeline_run(&p, &ctx, TFX_GROUP_SCOPE_FUSION), 0);
  unsigned before = ctx.reindex_updates;
  Tensorflow__NodeDef **arr0 = ctx.model.graph->node;
  size_t n0 = ctx.model.graph->n_node;
  assert_int_equal((int)tfx_pass_dataflow(&ctx, NULL), 0);
  const tfx_flow_report *fr = ctx.flow_report;
  assert_non_null(fr);
  assert_int_equal(fr->n, 2); /* m (swapped operands) in round 1, m2 in round 2 (reads m) */
  assert_string_equal(fr->v[0].root, "m");
  /* each round's list fit in the array it replaced: written there, no new array per round */
  assert_true(ctx.model.graph->n_node < n0);
  assert_ptr_equal(ctx.model.graph->node, arr0);
  /* the report keeps one copy of a name: the root's is its entry among the removed nodes */
  for (uint32_t i = 0; i < fr->n; i++) {
    int shared = 0;
    for (uint32_t k = 0; k < fr->v[i].n_removed; k++) shared |= fr->v[i].removed[k] == fr->v[i].root;
    assert_true(shared);
  }
  assert_int_equal(ctx.reindex_updates - before, fr->rounds - 1);
  assert_true(fr->rounds >= 2);
  uint32_t y = tfx_graph_find(&ctx.module.main, "y");
  assert_int_not_equal(y, TFX_NO_ID);
  assert_int_equal(tfx_graph_find(&ctx.module.main, "s"), TFX_NO_ID); /* the Sigmoid is gone */
  index_is_full_build(&ctx, "commuted", "the dataflow pass");
  tfx_ctx_free(&ctx);
  tfx_diag_free(&d);
  tfx_pipeline_free(&p);
  unsetenv("TFXC_VERIFY_REINDEX");
  remove(model);
  rmdir(dir);
}

/* ---------------------------------------------------------------- hand-made rewrites */

typedef struct hg {
  Tensorflow__GraphDef gd;
  Tensorflow__NodeDef nd[8];
  Tensorflow__NodeDef *ptr[8];
  char *ins[8][4];
} hg;

static void node(hg *h, int i, const char *name, const char *op, const char *in0, const char *in1) {
  Tensorflow__NodeDef *n = &h->nd[i];
  tensorflow__node_def__init(n);
  n->name = (char *)name;
  n->op = (char *)op;
  n->n_input = 0;
  if (in0) h->ins[i][n->n_input++] = (char *)in0;
  if (in1) h->ins[i][n->n_input++] = (char *)in1;
  n->input = h->ins[i];
}

/* a -> b -> c, a -> c (control), d (a NextIteration reading c) */
static void base(hg *h) {
  memset(h, 0, sizeof *h);
  tensorflow__graph_def__init(&h->gd);
  node(h, 0, "a", "Const", NULL, NULL);
  node(h, 1, "b", "Neg", "a", NULL);
  node(h, 2, "c", "Add", "b", "^a");
  node(h, 3, "d", "NextIteration", "c", NULL);
  for (int i = 0; i < 4; i++) h->ptr[i] = &h->nd[i];
  h->gd.node = h->ptr;
  h->gd.n_node = 4;
}

static void build(tfx_module *m, hg *h) {
  tfx_diag d;
  tfx_diag_init(&d);
  assert_int_equal(tfx_module_build_ex(m, &h->gd, "t", 0u, &d), 0);
  tfx_diag_free(&d);
}

/* Replaces b by new node x (op op, named name, reading input), c rewired to read c_in. */
static int rewrite(hg *h, tfx_module *old, tfx_module *nm, const char *name, const char *op,
                   const char *input, const char *c_in) {
  node(h, 4, name, op, input, NULL);
  h->ins[2][0] = (char *)c_in;
  h->ptr[1] = &h->nd[4];
  static uint32_t new_id[4];
  static uint8_t rewired[4];
  new_id[0] = 0, new_id[1] = TFX_NO_ID, new_id[2] = 2, new_id[3] = 3;
  rewired[0] = 0, rewired[1] = 0, rewired[2] = 1, rewired[3] = 0;
  tfx_graph_change ch[1] = {{.new_id = new_id, .rewired = rewired}};
  return tfx_module_update(nm, old, &h->gd, ch);
}

static void renumbered_graph(void **state) {
  (void)state;
  hg h;
  base(&h);
  tfx_module old, nm, full;
  build(&old, &h);
  assert_int_equal(rewrite(&h, &old, &nm, "x", "Fused", "a", "x"), 0);
  build(&full, &h);
  char why[300] = "";
  if (tfx_module_diff(&nm, &full, why, sizeof why)) fail_msg("%s", why);
  assert_int_equal(nm.main.nodes[2].in[0].src, 1); /* c reads x */
  assert_string_equal(nm.main.nodes[1].op, "Fused");
  assert_int_equal(tfx_graph_find(&nm.main, "b"), TFX_NO_ID);
  assert_int_equal(tfx_graph_find(&nm.main, "x"), 1);
  assert_int_equal(nm.ops.n, full.ops.n); /* Neg is gone from both */

  /* the comparison finds what differs */
  nm.main.nodes[2].in[1].port = 0;
  assert_int_equal(tfx_module_diff(&nm, &full, why, sizeof why), 1);
  nm.main.nodes[2].in[1].port = -1;
  assert_int_equal(tfx_module_diff(&nm, &full, why, sizeof why), 0);
  nm.main.nodes[0].uses[0].slot ^= 1;
  assert_int_equal(tfx_module_diff(&nm, &full, why, sizeof why), 1);
  nm.main.nodes[0].uses[0].slot ^= 1;
  uint32_t t0 = nm.main.topo[0];
  nm.main.topo[0] = nm.main.topo[1];
  assert_int_equal(tfx_module_diff(&nm, &full, why, sizeof why), 1);
  nm.main.topo[0] = t0;
  nm.main.nodes[1].op_id = nm.main.nodes[0].op_id;
  assert_int_equal(tfx_module_diff(&nm, &full, why, sizeof why), 1);
  tfx_module_free(&nm);
  tfx_module_free(&full);
  tfx_module_free(&old);
}

static void left_to_full_build(void **state) {
  (void)state;
  static const char *const cases[][4] = {
      {"x", "Fused", "c", "x"},  /* x <- c <- x: a cycle */
      {"a", "Fused", "a", "a"},  /* a second 'a' */
      {"x", "Fused", "gone", "x"}, /* x reads a node that does not exist */
      {"x", "", "a", "x"},       /* an empty op */
      {"x", "Fused", "a", "b"},  /* c rewired to the absorbed b */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    hg h;
    base(&h);
    tfx_module old, nm, full;
    build(&old, &h);
    assert_int_equal(rewrite(&h, &old, &nm, cases[k][0], cases[k][1], cases[k][2], cases[k][3]), 1);
    tfx_module_free(&nm);
    tfx_module_free(&old);
    tfx_diag d;
    tfx_diag_init(&d);
    assert_int_not_equal(tfx_module_build_ex(&full, &h.gd, "t", 0u, &d), 0); /* it reports */
    assert_true(d.errors > 0);
    tfx_module_free(&full);
    tfx_diag_free(&d);
  }
}

/* The node list must hold each kept node at the id new_id gives it: a list that disagrees
 * (here a and c swapped, new_id saying they stay) is refused (the full build), not indexed
 * with the old nodes' inputs under the wrong NodeDefs. */
static void node_list_disagrees(void **state) {
  (void)state;
  hg h;
  base(&h);
  tfx_module old, nm;
  build(&old, &h);
  h.ptr[0] = &h.nd[2];
  h.ptr[2] = &h.nd[0];
  uint32_t new_id[4] = {0, 1, 2, 3};
  uint8_t rewired[4] = {0, 0, 0, 0};
  tfx_graph_change ch[1] = {{.new_id = new_id, .rewired = rewired}};
  assert_int_equal(tfx_module_update(&nm, &old, &h.gd, ch), 1);
  tfx_module_free(&nm);
  tfx_module_free(&old); /* an update takes the old name map over, refused or not */
  h.ptr[0] = &h.nd[0]; /* the right list: updated */
  h.ptr[2] = &h.nd[2];
  build(&old, &h);
  assert_int_equal(tfx_module_update(&nm, &old, &h.gd, ch), 0);
  tfx_module full;
  build(&full, &h);
  char why[300] = "";
  if (tfx_module_diff(&nm, &full, why, sizeof why)) fail_msg("%s", why);
  tfx_module_free(&full);
  tfx_module_free(&nm);
  tfx_module_free(&old);
}

/* A rewired node is resolved through its old producers where the name is still the same
 * kept node's; where it names another node (here c's inputs swapped: b then ^a become a then
 * ^b), the name map decides. Both must give what a full build gives. */
static void rewired_inputs_swapped(void **state) {
  (void)state;
  for (int swap = 0; swap < 2; swap++) {
    hg h;
    base(&h);
    tfx_module old, nm, full;
    build(&old, &h);
    if (swap) {
      h.ins[2][0] = "a";
      h.ins[2][1] = "^b";
    }
    uint32_t new_id[4] = {0, 1, 2, 3};
    uint8_t rewired[4] = {0, 0, 1, 0};
    tfx_graph_change ch[1] = {{.new_id = new_id, .rewired = rewired}};
    assert_int_equal(tfx_module_update(&nm, &old, &h.gd, ch), 0);
    build(&full, &h);
    char why[300] = "";
    if (tfx_module_diff(&nm, &full, why, sizeof why)) fail_msg("swap=%d: %s", swap, why);
    assert_int_equal(nm.main.nodes[2].in[0].src, swap ? 0u : 1u);
    assert_int_equal(nm.main.nodes[2].in[1].src, swap ? 1u : 0u);
    tfx_module_free(&full);
    tfx_module_free(&nm);
    tfx_module_free(&old);
  }
}

/* After tfx_graph_drop_names (a run that keeps no report, before lowering) the graph has no
 * name map: tfx_graph_find must still answer right (by a scan), and the incremental re-index,
 * which takes the old map over, must refuse the graph (a full build) instead of producing an
 * index whose names cannot be found. */
static void dropped_names(void **state) {
  (void)state;
  hg h;
  base(&h);
  tfx_module old, nm;
  build(&old, &h);
  uint32_t want_c = tfx_graph_find(&old.main, "c");
  assert_int_not_equal(want_c, TFX_NO_ID);
  tfx_graph_drop_names(&old.main);
  assert_int_equal(old.main.by_name.n, 0);
  assert_int_equal(tfx_graph_find(&old.main, "c"), want_c);
  assert_int_equal(tfx_graph_find(&old.main, "a"), 0);
  assert_int_equal(tfx_graph_find(&old.main, "zzz"), TFX_NO_ID);
  tfx_graph_change same[1] = {{.new_id = NULL, .rewired = NULL}}; /* nothing changed: the map would be taken over */
  assert_int_equal(tfx_module_update(&nm, &old, &h.gd, same), 1);
  tfx_module_free(&nm);
  assert_int_equal(rewrite(&h, &old, &nm, "x", "Fused", "a", "x"), 1);
  tfx_module_free(&nm);
  tfx_module_free(&old);
}

/* Many names gone at once: the old name map is patched in place (gone names deleted by
 * backward shift, kept ones renumbered), including a removed name given to a new node. Over
 * several sizes and removal patterns the updated index must equal a full build: every kept
 * and new name found at its new id, no removed name found, the same number of names. */
static void many_names_removed(void **state) {
  (void)state;
  static const uint32_t sizes[] = {5, 100, 1000, 3000, 20000};
  static const uint32_t every[] = {2, 3, 7, 1}; /* node i goes when i % every == 1 (1: none) */
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (size_t ei = 0; ei < sizeof every / sizeof every[0]; ei++) {
      uint32_t n = sizes[si], ev = every[ei], n_new = 50;
      char (*names)[24] = calloc(n + n_new, sizeof *names);
      Tensorflow__NodeDef *nd = calloc(n + n_new, sizeof *nd);
      Tensorflow__NodeDef **ptr = calloc(n + n_new, sizeof *ptr);
      uint32_t *new_id = calloc(n, sizeof *new_id);
      uint8_t *rewired = calloc(n, 1);
      assert_non_null(names);
      assert_non_null(nd);
      assert_non_null(ptr);
      assert_non_null(new_id);
      assert_non_null(rewired);
      for (uint32_t i = 0; i < n + n_new; i++) {
        tensorflow__node_def__init(&nd[i]);
        if (i < n) snprintf(names[i], sizeof names[i], "s%u/n%u", i % 17, i);
        else if (i == n) snprintf(names[i], sizeof names[i], "s1/n1"); /* a removed name again */
        else snprintf(names[i], sizeof names[i], "new/x%u", i - n);
        nd[i].name = names[i];
        nd[i].op = i < n ? "Const" : "Fused";
        ptr[i] = &nd[i];
      }
      Tensorflow__GraphDef gd;
      tensorflow__graph_def__init(&gd);
      gd.node = ptr;
      gd.n_node = n;
      tfx_module old, nm, full;
      tfx_diag d;
      tfx_diag_init(&d);
      assert_int_equal(tfx_module_build_ex(&old, &gd, "t", 0u, &d), 0);
      uint32_t k = 0;
      for (uint32_t i = 0; i < n; i++) {
        int gone = ev > 1 && i % ev == 1;
        new_id[i] = gone ? TFX_NO_ID : k;
        if (!gone) ptr[k++] = &nd[i];
      }
      int reuse = n > 1 && ev > 1; /* "s1/n1" (node 1) is gone: a new node takes its name */
      for (uint32_t i = reuse ? 0 : 1; i < n_new; i++) ptr[k++] = &nd[n + i];
      gd.n_node = k;
      tfx_graph_change ch[1] = {{.new_id = new_id, .rewired = rewired}};
      assert_int_equal(tfx_module_update(&nm, &old, &gd, ch), 0);
      assert_int_equal(tfx_module_build_ex(&full, &gd, "t", 0u, &d), 0);
      char why[300] = "";
      if (tfx_module_diff(&nm, &full, why, sizeof why)) fail_msg("n=%u every=%u: %s", n, ev, why);
      assert_int_equal(nm.main.by_name.n, k);
      for (uint32_t i = 0; i < n; i++) {
        uint32_t want = new_id[i];
        if (want == TFX_NO_ID && reuse && i == 1) continue; /* the name came back */
        assert_int_equal(tfx_graph_find(&nm.main, names[i]), want);
      }
      if (reuse) assert_int_equal(tfx_graph_find(&nm.main, "s1/n1"), k - n_new);
      tfx_module_free(&nm);
      tfx_module_free(&full);
      tfx_module_free(&old);
      tfx_diag_free(&d);
      free(names);
      free(nd);
      free(ptr);
      free(new_id);
      free(rewired);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(golden_cases),
      cmocka_unit_test(golden_cases_dataflow),
      cmocka_unit_test(dataflow_commuted),
      cmocka_unit_test(renumbered_graph),
      cmocka_unit_test(left_to_full_build),
      cmocka_unit_test(node_list_disagrees),
      cmocka_unit_test(rewired_inputs_swapped),
      cmocka_unit_test(dropped_names),
      cmocka_unit_test(many_names_removed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
