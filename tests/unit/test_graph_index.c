/* Unit tests for the graph index (src/graph/graph.c): input parsing, every validation error,
 * consumer lists, topological order with TF1 loops, function bodies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "test_graph_util.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"
#include "util/status.h"

typedef struct fx {
  tfx_arena a;
  tfx_diag d;
  tfx_module m;
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
  tfx_module_free(&f->m);
  tfx_diag_free(&f->d);
  tfx_arena_free(&f->a);
  free(f);
  return 0;
}

static int build(fx *f, const char *const *specs, size_t n) {
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, n);
  int rc = tfx_module_build(&f->m, gd, "model.pb", &f->d);
  return rc;
}

/* Position of node `name` in the topological order. */
static uint32_t topo_pos(const tfx_graph *g, const char *name) {
  uint32_t id = tfx_graph_find(g, name);
  for (uint32_t i = 0; i < g->n_nodes; i++)
    if (g->topo[i] == id) return i;
  return TFX_NO_ID;
}

/* ---- tfx_parse_input ------------------------------------------------------------------ */

static void parse_input_forms(void **state) {
  (void)state;
  const char *nm;
  size_t nl;
  int32_t port;
  assert_int_equal(tfx_parse_input("x", &nm, &nl, &port), 0);
  assert_int_equal(nl, 1);
  assert_int_equal(port, 0);
  assert_int_equal(tfx_parse_input("x:3", &nm, &nl, &port), 0);
  assert_int_equal(nl, 1);
  assert_int_equal(port, 3);
  assert_int_equal(tfx_parse_input("^ctl", &nm, &nl, &port), 0);
  assert_int_equal(nl, 3);
  assert_memory_equal(nm, "ctl", 3);
  assert_int_equal(port, -1);
  assert_int_equal(tfx_parse_input("a/b/c:2147483647", &nm, &nl, &port), 0);
  assert_int_equal(nl, 5);
  assert_int_equal(port, INT32_MAX);
  /* the name is everything before the LAST ':' */
  assert_int_equal(tfx_parse_input("a:1:2", &nm, &nl, &port), 0);
  assert_int_equal(nl, 3);
  assert_int_equal(port, 2);
}

static void parse_input_bad(void **state) {
  (void)state;
  const char *nm;
  size_t nl;
  int32_t port;
  const char *bad[] = {"", "x:", "x:abc", "x:-1", "x:2147483648", "x:99999999999999999999",
                       "^x:1", "^", ":1", "x:1a", "x:+1"};
  for (size_t i = 0; i < TG_N(bad); i++) {
    if (tfx_parse_input(bad[i], &nm, &nl, &port) != -1) fail_msg("accepted '%s'", bad[i]);
  }
}

static void parse_func_input_forms(void **state) {
  (void)state;
  const char *nm, *oa;
  size_t nl, oal;
  int32_t port;
  assert_int_equal(tfx_parse_func_input("Const:output:0", &nm, &nl, &oa, &oal, &port), 0);
  assert_int_equal(nl, 5);
  assert_non_null(oa);
  assert_int_equal(oal, 6);
  assert_memory_equal(oa, "output", 6);
  assert_int_equal(port, 0);
  assert_int_equal(tfx_parse_func_input("arg", &nm, &nl, &oa, &oal, &port), 0);
  assert_null(oa);
  assert_int_equal(port, 0);
  assert_int_equal(tfx_parse_func_input("^arg", &nm, &nl, &oa, &oal, &port), 0);
  assert_int_equal(port, -1);
  assert_int_equal(tfx_parse_func_input("var:ref", &nm, &nl, &oa, &oal, &port), 0);
  assert_int_equal(nl, 3);
  assert_int_equal(oal, 3);
  assert_memory_equal(oa, "ref", 3);
  assert_int_equal(port, 0);
  const char *bad[] = {"",      "x:0",     "x::0",    ":o:0",   "x:o:", "x:o:-1",
                       "x:o:a", "x:o:1:2", "^x:o:0", "x:",     ":ref", "x:-o"};
  for (size_t i = 0; i < TG_N(bad); i++)
    if (tfx_parse_func_input(bad[i], &nm, &nl, &oa, &oal, &port) != -1)
      fail_msg("accepted '%s'", bad[i]);
}

/* ---- index ------------------------------------------------------------------------------ */

static void index_basic(void **state) {
  fx *f = *state;
  const char *g[] = {"a|Placeholder", "b|Const", "c|AddV2|a,b:0", "d|Split|c", "e|Identity|d:1,^a"};
  assert_int_equal(build(f, g, TG_N(g)), 0);
  const tfx_graph *gr = &f->m.main;
  assert_int_equal(gr->n_nodes, 5);
  assert_string_equal(gr->name, "");
  assert_null(gr->func);
  uint32_t c = tfx_graph_find(gr, "c"), e = tfx_graph_find(gr, "e");
  assert_int_equal(c, 2);
  assert_int_equal(tfx_graph_find(gr, "zzz"), TFX_NO_ID);
  const tfx_node *ne = &gr->nodes[e];
  assert_int_equal(ne->n_in, 2);
  assert_int_equal(ne->n_data_in, 1);
  assert_int_equal(ne->in[0].src, 3);
  assert_int_equal(ne->in[0].port, 1);
  assert_int_equal(ne->in[0].kind, TFX_IN_NODE);
  assert_null(ne->in[0].out_arg);
  assert_int_equal(ne->in[1].src, 0);
  assert_int_equal(ne->in[1].port, -1);
  assert_int_equal(gr->nodes[c].in[1].port, 0); /* "b:0" */
  /* op ids interned in first-seen order (after the loop op types interned up front) */
  assert_string_equal(tfx_intern_str(&f->m.ops, gr->nodes[c].op_id), "AddV2");
  assert_int_equal(tfx_intern_find(&f->m.ops, "Identity", 8), gr->nodes[e].op_id);
}

static void index_consumers(void **state) {
  fx *f = *state;
  const char *g[] = {"a|Placeholder", "b|Mul|a,a", "c|Neg|a", "d|NoOp|^a,^c"};
  assert_int_equal(build(f, g, TG_N(g)), 0);
  const tfx_node *na = &f->m.main.nodes[0];
  assert_int_equal(na->n_uses, 4);
  /* (consumer, slot) order */
  assert_int_equal(na->uses[0].node, 1);
  assert_int_equal(na->uses[0].slot, 0);
  assert_int_equal(na->uses[1].node, 1);
  assert_int_equal(na->uses[1].slot, 1);
  assert_int_equal(na->uses[2].node, 2);
  assert_int_equal(na->uses[3].node, 3);
  assert_int_equal(na->uses[3].slot, 0);
  const tfx_node *nc = &f->m.main.nodes[2];
  assert_int_equal(nc->n_uses, 1);
  assert_int_equal(nc->uses[0].node, 3);
  assert_int_equal(nc->uses[0].slot, 1);
  assert_int_equal(f->m.main.nodes[3].n_uses, 0);
  assert_null(f->m.main.nodes[3].uses);
}

static void index_topo_order(void **state) {
  fx *f = *state;
  /* consumers listed before producers in the NodeDef list */
  const char *g[] = {"out|Identity|mid", "mid|Add|x,y", "y|Const|^x", "x|Placeholder"};
  assert_int_equal(build(f, g, TG_N(g)), 0);
  const tfx_graph *gr = &f->m.main;
  assert_non_null(gr->topo);
  assert_true(topo_pos(gr, "x") < topo_pos(gr, "y"));
  assert_true(topo_pos(gr, "y") < topo_pos(gr, "mid"));
  assert_true(topo_pos(gr, "mid") < topo_pos(gr, "out"));
}

static void index_tf1_while_loop_accepted(void **state) {
  fx *f = *state;
  const char *g[] = {
      "x|Placeholder",
      "while/Enter|Enter|x",
      "while/Merge|Merge|while/Enter,while/NextIteration",
      "while/Less/y|Const|^while/Merge",
      "while/Less|Less|while/Merge,while/Less/y",
      "while/LoopCond|LoopCond|while/Less",
      "while/Switch|Switch|while/Merge,while/LoopCond",
      "while/Identity|Identity|while/Switch:1",
      "while/add|Add|while/Identity,while/Less/y",
      "while/NextIteration|NextIteration|while/add",
      "while/Exit|Exit|while/Switch",
      "out|Identity|while/Exit",
  };
  int rc = build(f, g, TG_N(g));
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  const tfx_graph *gr = &f->m.main;
  assert_true(topo_pos(gr, "while/Enter") < topo_pos(gr, "while/Merge"));
  assert_true(topo_pos(gr, "while/Merge") < topo_pos(gr, "while/Switch"));
  assert_true(topo_pos(gr, "while/add") < topo_pos(gr, "while/NextIteration"));
  assert_true(topo_pos(gr, "while/Exit") < topo_pos(gr, "out"));
  /* the back edge is still an ordinary consumer edge */
  const tfx_node *ni = &gr->nodes[tfx_graph_find(gr, "while/NextIteration")];
  assert_int_equal(ni->n_uses, 1);
  assert_int_equal(ni->uses[0].node, tfx_graph_find(gr, "while/Merge"));
}

static void index_ref_next_iteration_accepted(void **state) {
  fx *f = *state;
  const char *g[] = {"m|RefMerge|e,n", "e|RefEnter|v", "v|VariableV2", "n|RefNextIteration|m"};
  assert_int_equal(build(f, g, TG_N(g)), 0);
}

static void index_plain_cycle_rejected(void **state) {
  fx *f = *state;
  const char *g[] = {"in|Placeholder", "a|Add|in,c", "b|Neg|a", "c|Neg|b", "d|Neg|c"};
  assert_int_equal(build(f, g, TG_N(g)), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "cycle", "'a'", "'b'", "'c'"));
  assert_false(TG_ERR(&f->d, "'d' ->"));
  assert_null(f->m.main.topo); /* no partial order is exposed */
}

static void index_control_cycle_rejected(void **state) {
  fx *f = *state;
  const char *g[] = {"a|NoOp|^b", "b|NoOp|^a"};
  assert_int_equal(build(f, g, TG_N(g)), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "cycle", "'a'", "'b'"));
}

static void index_self_loop_rejected(void **state) {
  fx *f = *state;
  const char *g[] = {"a|Neg|a"};
  assert_int_equal(build(f, g, TG_N(g)), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "cycle through 'a' -> 'a'"));
}

static void err_duplicate_name(void **state) {
  fx *f = *state;
  const char *g[] = {"p|Placeholder", "q|Const", "r|Const", "x|Const", "x|Neg|p"};
  assert_int_equal(build(f, g, TG_N(g)), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "duplicate node name 'x' (first defined as node #3)"));
}

static void err_empty_name_and_op(void **state) {
  fx *f = *state;
  const char *g[] = {"|Const", "noop|"};
  assert_int_equal(build(f, g, TG_N(g)), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "node #0 has an empty name"));
  assert_true(TG_ERR(&f->d, "node 'noop' has an empty op"));
}

static void err_missing_input(void **state) {
  fx *f = *state;
  const char *g[] = {"a|Placeholder", "b|Add|a,ghost:1", "c|NoOp|^phantom"};
  assert_int_equal(build(f, g, TG_N(g)), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "node 'b'", "missing node 'ghost'"));
  assert_true(TG_ERR(&f->d, "node 'c'", "missing node 'phantom'"));
  assert_int_equal(f->d.errors, 2); /* all errors reported */
}

static void err_bad_port_syntax(void **state) {
  fx *f = *state;
  const char *g[] = {"a|Placeholder",   "b1|Neg|a:",          "b2|Neg|a:abc", "b3|Neg|a:-1",
                     "b4|Neg|a:4294967296", "b5|NoOp|^a:1", "b6|Neg|"};
  /* b6 has one empty input string: make it explicit */
  Tensorflow__GraphDef *gd = tg_graph(&f->a, g, TG_N(g));
  Tensorflow__NodeDef *b6 = gd->node[6];
  b6->input = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *b6->input));
  b6->input[0] = "";
  b6->n_input = 1;
  assert_int_equal(tfx_module_build(&f->m, gd, "m.pb", &f->d), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "node 'b1'", "'a:'", "missing port"));
  assert_true(TG_ERR(&f->d, "node 'b2'", "'a:abc'", "not a non-negative integer"));
  assert_true(TG_ERR(&f->d, "node 'b3'", "'a:-1'", "not a non-negative integer"));
  assert_true(TG_ERR(&f->d, "node 'b4'", "out of range"));
  assert_true(TG_ERR(&f->d, "node 'b5'", "control input must not have a port"));
  assert_true(TG_ERR(&f->d, "node 'b6'", "empty input"));
  assert_int_equal(f->d.errors, 6);
}

static void err_data_after_control(void **state) {
  fx *f = *state;
  const char *g[] = {"a|Placeholder", "b|Placeholder", "c|Add|a,^b,b"};
  assert_int_equal(build(f, g, TG_N(g)), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "node 'c'", "data input 2", "follows a control input"));
}

static void err_message_has_file(void **state) {
  fx *f = *state;
  const char *g[] = {"a|Neg|nope"};
  assert_int_equal(build(f, g, TG_N(g)), TFX_EXIT_INPUT);
  assert_int_equal(f->d.n, 1);
  assert_string_equal(f->d.items[0].file, "model.pb");
  assert_int_equal(f->d.items[0].line, 0);
}

static void empty_graph(void **state) {
  fx *f = *state;
  assert_int_equal(build(f, NULL, 0), 0);
  assert_int_equal(f->m.main.n_nodes, 0);
}

/* ---- functions ------------------------------------------------------------------------- */

static void func_body_indexed(void **state) {
  fx *f = *state;
  const char *maing[] = {"x|Placeholder", "call|body|x"};
  const char *body[] = {
      "Const|Const|^arg",
      "add|AddV2|arg,Const:output:0",
      "split|Split|add:z:0",
      "id|Identity|split:output:1,^Const",
      "whole|Identity|split:output",
  };
  Tensorflow__GraphDef *gd = tg_graph(&f->a, maing, TG_N(maing));
  Tensorflow__FunctionDef **fs = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *fs));
  fs[0] = tg_func(&f->a, "body", "arg", body, TG_N(body));
  tg_set_funcs(&f->a, gd, fs, 1);
  int rc = tfx_module_build(&f->m, gd, "m.pb", &f->d);
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  assert_int_equal(f->m.n_funcs, 1);
  const tfx_graph *fg = &f->m.funcs[0];
  assert_string_equal(fg->name, "body");
  assert_ptr_equal(fg->func, fs[0]);
  assert_int_equal(fg->n_args, 1);
  assert_string_equal(fg->args[0], "arg");
  const tfx_node *c = &fg->nodes[0];
  assert_int_equal(c->in[0].kind, TFX_IN_ARG); /* ^arg */
  assert_int_equal(c->in[0].src, 0);
  assert_int_equal(c->in[0].port, -1);
  const tfx_node *add = &fg->nodes[1];
  assert_int_equal(add->in[0].kind, TFX_IN_ARG);
  assert_int_equal(add->in[0].port, 0);
  assert_int_equal(add->in[1].kind, TFX_IN_NODE);
  assert_int_equal(add->in[1].src, 0);
  assert_string_equal(add->in[1].out_arg, "output");
  const tfx_node *id = &fg->nodes[3];
  assert_int_equal(id->in[0].src, 2);
  assert_int_equal(id->in[0].port, 1); /* idx within out_arg, kept as given */
  assert_string_equal(id->in[0].out_arg, "output");
  assert_int_equal(id->in[1].port, -1);
  assert_int_equal(id->in[1].src, 0);
  const tfx_node *whole = &fg->nodes[4]; /* node:out_arg = index 0 of that arg */
  assert_int_equal(whole->in[0].src, 2);
  assert_int_equal(whole->in[0].port, 0);
  assert_string_equal(whole->in[0].out_arg, "output");
  /* op types shared with the main graph */
  assert_int_equal(fg->nodes[0].op_id, tfx_intern_find(&f->m.ops, "Const", 5));
  assert_int_equal(tfx_graph_find(fg, "split"), 2);
  assert_non_null(fg->topo);
  /* consumers inside the body */
  assert_int_equal(fg->nodes[0].n_uses, 2);
  assert_int_equal(fg->nodes[2].n_uses, 2);
}

static void func_errors(void **state) {
  fx *f = *state;
  const char *maing[] = {"x|Placeholder"};
  const char *b1[] = {"n|Neg|nosuch", "m|Neg|n", "k|Neg|n:0", "j|Neg|n:out:x", "dup|Neg|a",
                      "dup|Neg|a", "l|Neg|ghost:output:0"};
  const char *b2[] = {"c|Const"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, maing, TG_N(maing));
  Tensorflow__FunctionDef **fs = tg_must(tfx_arena_calloc(&f->a, 3, sizeof *fs));
  fs[0] = tg_func(&f->a, "f1", "a", b1, TG_N(b1));
  fs[1] = tg_func(&f->a, "f2", "", b2, TG_N(b2));
  fs[2] = tg_func(&f->a, "f1", "", b2, TG_N(b2));
  tg_set_funcs(&f->a, gd, fs, 3);
  assert_int_equal(tfx_module_build(&f->m, gd, "m.pb", &f->d), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "function 'f1': node 'n'", "'nosuch'", "neither an input arg nor a node"));
  assert_true(TG_ERR(&f->d, "function 'f1': node 'm'", "names node 'n' without ':out_arg:index'"));
  assert_true(TG_ERR(&f->d, "function 'f1': node 'k'", "expected 'node:out_arg:index'"));
  assert_true(TG_ERR(&f->d, "function 'f1': node 'j'", "not a non-negative integer"));
  assert_true(TG_ERR(&f->d, "function 'f1': duplicate node name 'dup' (first defined as node #4)"));
  assert_true(TG_ERR(&f->d, "function 'f1': node 'l'", "missing node 'ghost'"));
  assert_true(TG_ERR(&f->d, "duplicate function name 'f1' (first defined as library function #0)"));
  assert_int_equal(f->d.errors, 7);
}

static void func_cycle_names_function(void **state) {
  fx *f = *state;
  const char *maing[] = {"x|Placeholder"};
  const char *b[] = {"p|Neg|q:y:0", "q|Neg|p:y:0"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, maing, TG_N(maing));
  Tensorflow__FunctionDef **fs = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *fs));
  fs[0] = tg_func(&f->a, "loopy", "", b, TG_N(b));
  tg_set_funcs(&f->a, gd, fs, 1);
  assert_int_equal(tfx_module_build(&f->m, gd, "m.pb", &f->d), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "function 'loopy': cycle", "'p'", "'q'"));
}

/* A long chain, built out of order, to exercise the O(N + E) paths under the sanitizers. */
static void index_large_chain(void **state) {
  fx *f = *state;
  enum { N = 20000 };
  Tensorflow__GraphDef *gd = tg_graph(&f->a, NULL, 0);
  gd->node = tg_must(tfx_arena_calloc(&f->a, N, sizeof *gd->node));
  gd->n_node = N;
  char buf[64];
  for (int i = 0; i < N; i++) { /* node i consumes node i+1: reverse topological listing */
    if (i == N - 1)
      snprintf(buf, sizeof buf, "n%d|Placeholder", i);
    else
      snprintf(buf, sizeof buf, "n%d|Neg|n%d", i, i + 1);
    gd->node[i] = tg_node(&f->a, buf);
  }
  assert_int_equal(tfx_module_build(&f->m, gd, "m.pb", &f->d), 0);
  assert_int_equal(f->m.main.topo[0], N - 1);
  assert_int_equal(f->m.main.topo[N - 1], 0);
}

/* The main graph is indexed in one sweep; a graph with anything to report is indexed again by
 * the two passes. Both must give the same index: G (20 000 nodes: inputs naming the node
 * before, one 40-80 back (past the recent-name tries), one of the last 100 (further on in the
 * list), the output
 * of a port, control inputs, a NextIteration loop, one node with 17 000 inputs so the sweep's
 * input chunks roll over) built as is, and G plus a last node repeating a name (lenient: it
 * takes the two passes, and resolves to the first node of that name, so no other node
 * changes), must agree node for node on op ids, inputs, data-input counts and consumer
 * lists, and G's order must be the two passes' too (a graph of G's nodes plus a missing
 * input: same nodes, its order discarded, so compared on G's lists). */
static void sweep_equals_two_passes(void **state) {
  fx *f = *state;
  enum { N = 20000, WIDE = 17000 };
  Tensorflow__GraphDef *g1 = tg_graph(&f->a, NULL, 0), *g2 = tg_graph(&f->a, NULL, 0);
  g1->node = tg_must(tfx_arena_calloc(&f->a, N + 1, sizeof *g1->node));
  char *buf = tg_must(tfx_arena_alloc(&f->a, (size_t)WIDE * 12 + 64));
  for (int i = 0; i < N; i++) {
    int w = snprintf(buf, 64, "s%d/n%d|%s", i % 7, i, i % 3 ? "Add" : "Mul");
    if (i == 5) {
      w += snprintf(buf + w, 64, "|x");
      for (int k = 0; k < WIDE; k++) w += sprintf(buf + w, ",s%d/n%d", k % 4 + 1, k % 4 + 1);
    } else if (i > 0) {
      if (i == 1) w += snprintf(buf + w, 64, "|x");
      else w += snprintf(buf + w, 64, "|s%d/n%d", (i - 1) % 7, i - 1);
      if (i > 80) w += snprintf(buf + w, 64, ",s%d/n%d:1", (i - 40 - i % 41) % 7, i - 40 - i % 41);
      if (i % 5 == 0) w += snprintf(buf + w, 64, ",c/p%d", i % 100); /* further on */
      if (i % 11 == 0) w += snprintf(buf + w, 64, ",^s%d/n%d", (i / 2) % 7, i / 2);
    }
    if (i >= N - 100) snprintf(buf, 64, "c/p%d|Placeholder", i - (N - 100));
    if (i == 0) snprintf(buf, 64, "x|Placeholder");
    if (i == 100) snprintf(buf, 64, "s2/n100|Merge|s1/n99,s5/n110");
    if (i == 110) snprintf(buf, 64, "s5/n110|NextIteration|s2/n100");
    g1->node[i] = tg_node(&f->a, buf);
  }
  g1->n_node = N;
  *g2 = *g1;
  g2->node = tg_must(tfx_arena_calloc(&f->a, N + 1, sizeof *g2->node));
  memcpy(g2->node, g1->node, N * sizeof *g1->node);
  g2->node[N] = tg_node(&f->a, "s3/n10|Neg"); /* a name taken: lenient two passes */
  g2->n_node = N + 1;
  int rc1 = tfx_module_build(&f->m, g1, "m.pb", &f->d);
  if (rc1) tg_dump(&f->d);
  assert_int_equal(rc1, 0);
  tfx_module m2;
  tfx_diag d2;
  tfx_diag_init(&d2);
  assert_int_equal(tfx_module_build_ex(&m2, g2, "m.pb", TFX_MODULE_LENIENT, &d2), 0);
  assert_int_equal(m2.has_errors, 1);
  assert_int_equal(d2.warnings, 1);
  assert_non_null(strstr(d2.items[0].msg, "duplicate node name 's3/n10'"));
  const tfx_graph *a = &f->m.main, *b = &m2.main;
  assert_int_equal(a->n_nodes + 1, b->n_nodes);
  assert_int_equal(a->nodes[5].n_in, WIDE + 1);
  for (uint32_t i = 0; i < a->n_nodes; i++) {
    const tfx_node *x = &a->nodes[i], *y = &b->nodes[i];
    if (x->op_id != y->op_id || x->n_in != y->n_in || x->n_data_in != y->n_data_in ||
        x->n_uses != y->n_uses)
      fail_msg("node %u (%s) differs", i, x->name);
    for (uint32_t k = 0; k < x->n_in; k++)
      if (x->in[k].src != y->in[k].src || x->in[k].port != y->in[k].port ||
          x->in[k].kind != y->in[k].kind || x->in[k].out_arg || y->in[k].out_arg)
        fail_msg("node %u (%s) input %u differs", i, x->name, k);
    for (uint32_t k = 0; k < x->n_uses; k++)
      if (x->uses[k].node != y->uses[k].node || x->uses[k].slot != y->uses[k].slot)
        fail_msg("node %u (%s) use %u differs", i, x->name, k);
  }
  assert_int_equal(a->nodes[10].n_uses, b->nodes[10].n_uses);
  assert_int_equal(a->nodes[100].in[1].src, 110); /* the loop's back edge, named further on */
  /* the order is Kahn's over these lists in both builds (topo_sort): the same lists, the
   * same order */
  assert_non_null(a->topo);
  tfx_module_free(&m2);
  tfx_diag_free(&d2);
}


/* tfx_graph_kahn on lists re-linked by tfx_graph_link_uses gives the build's order (the back
 * edge of a TF1 loop ignored: without the mark the loop would leave nodes unordered), and
 * refuses ends that are not the lists' own. */
static void kahn_relinked_and_foreign_ends(void **state) {
  fx *f = *state;
  const char *g[] = {
      "x|Placeholder",
      "while/Enter|Enter|x",
      "while/Merge|Merge|while/Enter,while/NextIteration",
      "while/Less/y|Const|^while/Merge",
      "while/Less|Less|while/Merge,while/Less/y",
      "while/Switch|Switch|while/Merge,while/Less",
      "while/add|Add|while/Switch:1,while/Less/y",
      "while/NextIteration|NextIteration|while/add",
      "while/Exit|Exit|while/Switch",
      "out|Identity|while/Exit,^x",
  };
  assert_int_equal(build(f, g, TG_N(g)), 0);
  tfx_graph *gr = &f->m.main;
  uint32_t n = gr->n_nodes;
  uint32_t ends[16] = {0}, indeg[16] = {0}, topo[16] = {0}, k = 0;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < gr->nodes[i].n_in; j++) ends[gr->nodes[i].in[j].src + 1]++;
  assert_int_equal(tfx_graph_link_uses(gr, &f->a, ends), 0);
  uint32_t ni = tfx_intern_find(&f->m.ops, "NextIteration", strlen("NextIteration"));
  assert_int_not_equal(ni, TFX_HASH_NONE);
  assert_int_equal(tfx_graph_kahn(gr, ends, ni, TFX_HASH_NONE, topo, indeg, &k), 0);
  assert_int_equal(k, n);
  for (uint32_t i = 0; i < n; i++) assert_int_equal(topo[i], gr->topo[i]);
  /* no back-edge op: the loop is a cycle, Merge and what follows it stay unordered */
  uint32_t ends2[16] = {0};
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < gr->nodes[i].n_in; j++) ends2[gr->nodes[i].in[j].src + 1]++;
  assert_int_equal(tfx_graph_link_uses(gr, &f->a, ends2), 0);
  memset(indeg, 0, sizeof indeg);
  assert_int_equal(tfx_graph_kahn(gr, ends2, TFX_HASH_NONE, TFX_HASH_NONE, topo, indeg, &k), 0);
  assert_true(k < n);
  assert_true(indeg[tfx_graph_find(gr, "while/Merge")] > 0);
  /* ends that are not the lists': refused, nothing ordered */
  uint32_t zero[16] = {0};
  memset(indeg, 0, sizeof indeg);
  k = 12345;
  assert_int_equal(tfx_graph_kahn(gr, zero, ni, TFX_HASH_NONE, topo, indeg, &k), -2);
  assert_int_equal(k, 12345);
}

static void cycle_reported_with_other_errors(void **state) {
  fx *f = *state;
  const char *g[] = {"a|Add|b,ghost", "b|Neg|a"};
  assert_int_equal(build(f, g, TG_N(g)), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "missing node 'ghost'"));
  assert_true(TG_ERR(&f->d, "cycle", "'a'", "'b'"));
  assert_null(f->m.main.topo);
}

/* Every allocation failure is reported and cleaned up (SQLite-style fault injection). */
static void oom_every_allocation(void **state) {
  fx *f = *state;
  const char *maing[] = {"x|Placeholder", "w/Enter|Enter|x", "w/Merge|Merge|w/Enter,w/Next",
                         "w/Next|NextIteration|w/Merge", "y|Neg|w/Merge"};
  const char *body[] = {"c|Const|^arg", "add|AddV2|arg,c:output:0"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, maing, TG_N(maing));
  Tensorflow__FunctionDef **fs = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *fs));
  fs[0] = tg_func(&f->a, "body", "arg", body, TG_N(body));
  tg_set_funcs(&f->a, gd, fs, 1);
  int ok = 0;
  for (long k = 1; k < 500 && !ok; k++) {
    tfx_diag_clear(&f->d);
    tfx_alloc_fail_at(k);
    int rc = tfx_module_build(&f->m, gd, "m.pb", &f->d);
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (hits == 0) {
      assert_int_equal(rc, 0);
      ok = 1;
    } else {
      assert_int_equal(rc, TFX_E_NOMEM); /* a status of its own, not malformed input */
      assert_true(TG_ERR(&f->d, "out of memory"));
    }
    tfx_module_free(&f->m);
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
      cmocka_unit_test(parse_input_forms),
      cmocka_unit_test(parse_input_bad),
      cmocka_unit_test(parse_func_input_forms),
      cmocka_unit_test_setup_teardown(index_basic, setup, teardown),
      cmocka_unit_test_setup_teardown(index_consumers, setup, teardown),
      cmocka_unit_test_setup_teardown(index_topo_order, setup, teardown),
      cmocka_unit_test_setup_teardown(index_tf1_while_loop_accepted, setup, teardown),
      cmocka_unit_test_setup_teardown(index_ref_next_iteration_accepted, setup, teardown),
      cmocka_unit_test_setup_teardown(index_plain_cycle_rejected, setup, teardown),
      cmocka_unit_test_setup_teardown(index_control_cycle_rejected, setup, teardown),
      cmocka_unit_test_setup_teardown(index_self_loop_rejected, setup, teardown),
      cmocka_unit_test_setup_teardown(err_duplicate_name, setup, teardown),
      cmocka_unit_test_setup_teardown(err_empty_name_and_op, setup, teardown),
      cmocka_unit_test_setup_teardown(err_missing_input, setup, teardown),
      cmocka_unit_test_setup_teardown(err_bad_port_syntax, setup, teardown),
      cmocka_unit_test_setup_teardown(err_data_after_control, setup, teardown),
      cmocka_unit_test_setup_teardown(err_message_has_file, setup, teardown),
      cmocka_unit_test_setup_teardown(empty_graph, setup, teardown),
      cmocka_unit_test_setup_teardown(func_body_indexed, setup, teardown),
      cmocka_unit_test_setup_teardown(func_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(func_cycle_names_function, setup, teardown),
      cmocka_unit_test_setup_teardown(index_large_chain, setup, teardown),
      cmocka_unit_test_setup_teardown(sweep_equals_two_passes, setup, teardown),
      cmocka_unit_test_setup_teardown(cycle_reported_with_other_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(kahn_relinked_and_foreign_ends, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
