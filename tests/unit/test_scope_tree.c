/* Unit tests for the ScopeTree (src/scope/scope.c): one test per fact of
 * docs/ASCEND.md §1-2 and §1.4 (Identity/Const counted), plus ordering,
 * DFS ranges, odd node names and a wide scope. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "graph/graph.h"
#include "scope/scope.h"
#include "test_graph_util.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"

typedef struct fx {
  tfx_arena a;
  tfx_diag d;
  tfx_module m;
  tfx_scope_tree t;
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
  tfx_scope_tree_free(&f->t);
  tfx_module_free(&f->m);
  tfx_diag_free(&f->d);
  tfx_arena_free(&f->a);
  free(f);
  return 0;
}

/* Builds module and tree over specs ("name|op|inputs"); asserts success. */
static void build(fx *f, const char *const *specs, size_t n) {
  Tensorflow__GraphDef *gd = tg_graph(&f->a, specs, n);
  int rc = tfx_module_build(&f->m, gd, "m.pb", &f->d);
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  assert_int_equal(tfx_scope_tree_build(&f->t, &f->m.main, &f->d), 0);
}

static const tfx_scope *S(fx *f, const char *full) {
  uint32_t id = tfx_scope_find(&f->t, full);
  if (id == TFX_NO_ID) fail_msg("no scope '%s'", full);
  return &f->t.scopes[id];
}

static int64_t count(fx *f, const char *scope, const char *op) {
  uint32_t id = tfx_intern_find(&f->m.ops, op, strlen(op));
  if (id == TFX_HASH_NONE) return -1; /* a type the module never saw is absent everywhere */
  return tfx_scope_op_count(S(f, scope), id);
}

static uint32_t nid(fx *f, const char *name) { return tfx_graph_find(&f->m.main, name); }

/* ASCEND.md §1.1: scopes from '/'-split names; full names with trailing '/'; node in innermost scope;
 * root named "root". */
static void fact1_scopes_from_names(void **state) {
  fx *f = *state;
  const char *g[] = {"a/b/c|Add", "a/d|Mul", "x|Const", "a/b/e/f|Neg"};
  build(f, g, TG_N(g));
  assert_int_equal(f->t.n_scopes, 4); /* root, a/, a/b/, a/b/e/ */
  assert_string_equal(f->t.scopes[0].name, "root");
  assert_int_equal(tfx_scope_find(&f->t, "root"), 0);
  assert_int_equal(f->t.scopes[0].parent, TFX_NO_ID);
  const tfx_scope *ab = S(f, "a/b/");
  assert_int_equal(ab->parent, tfx_scope_find(&f->t, "a/"));
  assert_int_equal(ab->depth, 2);
  assert_int_equal(f->t.node_scope[nid(f, "a/b/c")], tfx_scope_find(&f->t, "a/b/"));
  assert_int_equal(f->t.node_scope[nid(f, "a/d")], tfx_scope_find(&f->t, "a/"));
  assert_int_equal(f->t.node_scope[nid(f, "x")], 0);
  assert_int_equal(f->t.node_scope[nid(f, "a/b/e/f")], tfx_scope_find(&f->t, "a/b/e/"));
  /* no scope named after a node, none without the trailing slash */
  assert_int_equal(tfx_scope_find(&f->t, "a/b/c/"), TFX_NO_ID);
  assert_int_equal(tfx_scope_find(&f->t, "a"), TFX_NO_ID);
  assert_int_equal(tfx_scope_find(&f->t, "a/b"), TFX_NO_ID);
}

/* ASCEND.md §1.2: counts cover root, every ancestor and the own scope; Nodes() is direct only;
 * AllNodesMap covers the subtree; GetAllSubScopes = the DFS range. */
static void fact2_subtree_counts_and_nodes(void **state) {
  fx *f = *state;
  const char *g[] = {"a/b/m1|Mul", "a/b/m2|Mul", "a/m3|Mul", "a/b/c/add|Add", "top|Mul"};
  build(f, g, TG_N(g));
  assert_int_equal(count(f, "root", "Mul"), 4);
  assert_int_equal(count(f, "a/", "Mul"), 3);
  assert_int_equal(count(f, "a/b/", "Mul"), 2);
  assert_int_equal(count(f, "a/b/c/", "Add"), 1);
  assert_int_equal(count(f, "a/", "Add"), 1);
  assert_int_equal(count(f, "root", "Add"), 1);
  const tfx_scope *a = S(f, "a/");
  assert_int_equal(a->n_nodes, 1);
  assert_int_equal(a->nodes[0], nid(f, "a/m3"));
  assert_int_equal(a->n_all_nodes, 4);
  assert_int_equal(S(f, "a/b/")->n_nodes, 2);
  assert_int_equal(S(f, "a/b/")->nodes[0], nid(f, "a/b/m1")); /* graph order */
  assert_int_equal(f->t.scopes[0].n_all_nodes, 5);
  assert_int_equal(f->t.scopes[0].n_nodes, 1);
  /* all sub-scopes of a/: exactly a/b/ and a/b/c/ */
  assert_int_equal(a->dfs_end - a->dfs_index - 1, 2);
  /* counts sorted by op id, positive only */
  for (uint32_t k = 1; k < f->t.scopes[0].n_counts; k++)
    assert_true(f->t.scopes[0].counts[k - 1].op_id < f->t.scopes[0].counts[k].op_id);
}

/* ASCEND.md §1.2: a type that never occurs in a subtree counts -1, distinct from 0. */
static void fact3_absent_is_minus_one(void **state) {
  fx *f = *state;
  const char *g[] = {"a/x|Mul", "b/y|Add"};
  build(f, g, TG_N(g));
  uint32_t add = tfx_intern_find(&f->m.ops, "Add", 3);
  assert_int_equal(tfx_scope_op_count(S(f, "a/"), add), -1);
  assert_int_equal(tfx_scope_op_count(S(f, "b/"), add), 1);
  assert_int_equal(tfx_scope_op_count(S(f, "a/"), 987654), -1);
  for (uint32_t i = 0; i < f->t.n_scopes; i++)
    for (uint32_t k = 0; k < f->t.scopes[i].n_counts; k++)
      assert_true(f->t.scopes[i].counts[k].count > 0); /* 0 is never stored */
}

/* NodeOpTypeFeature::Match as ASCEND.md §2.1 states it, over tfx_scope_op_count. */
static int nodeop_match(const tfx_scope *s, uint32_t op, int64_t num, int64_t step) {
  int64_t c = tfx_scope_op_count(s, op);
  if (step == 0) return c == num;
  return c != -1 && c % step == num;
}

/* ASCEND.md §2.1: the counts support (type, num, step) exactly: (T,0,0) never matches, (T,-1,0) means
 * absent, (T,0,1) means present, (T,0,k) present and a multiple of k. */
static void fact4_counts_drive_nodeop_feature(void **state) {
  fx *f = *state;
  const char *g[] = {"s/m1|Mul", "s/m2|Mul", "s/m3|Mul", "s/add|Add"};
  build(f, g, TG_N(g));
  const tfx_scope *s = S(f, "s/");
  uint32_t mul = tfx_intern_find(&f->m.ops, "Mul", 3);
  uint32_t sub = tfx_intern_id(&f->m.ops, "Sub", 3); /* a type no node has */
  assert_false(nodeop_match(s, sub, 0, 0));          /* never: absent is -1, not 0 */
  assert_true(nodeop_match(s, sub, -1, 0));
  assert_false(nodeop_match(s, mul, -1, 0));
  assert_true(nodeop_match(s, mul, 0, 1));
  assert_true(nodeop_match(s, mul, 0, 3));
  assert_false(nodeop_match(s, mul, 0, 2));
  assert_true(nodeop_match(s, mul, 1, 2));
  assert_true(nodeop_match(s, mul, 3, 0));
  assert_false(nodeop_match(s, sub, 0, 1));
}

/* ASCEND.md §2.3's data: suffix is compared to LastName; the mask looks at descendants' LastName and
 * full-name length; descendants come from the DFS range. */
static void fact5_scope_feature_data(void **state) {
  fx *f = *state;
  const char *g[] = {"rnn/while/basic_lstm_cell_1/mul|Mul", "rnn/while/other/add|Add",
                     "rnnx/y|Neg"};
  build(f, g, TG_N(g));
  uint32_t rnn = tfx_scope_find(&f->t, "rnn/");
  const tfx_scope *r = &f->t.scopes[rnn];
  assert_string_equal(r->last_name, "rnn");
  assert_string_equal(S(f, "rnn/while/basic_lstm_cell_1/")->last_name, "basic_lstm_cell");
  /* mask "lstm" is found in a descendant's LastName, whose full name is longer than it */
  int found = 0;
  for (uint32_t k = r->dfs_index + 1; k < r->dfs_end; k++) {
    const tfx_scope *dsc = &f->t.scopes[f->t.dfs[k]];
    assert_true(tfx_scope_is_descendant(&f->t, f->t.dfs[k], rnn));
    if (strstr(dsc->last_name, "lstm") && strlen(dsc->name) > 4) found = 1;
  }
  assert_true(found);
  assert_false(tfx_scope_is_descendant(&f->t, tfx_scope_find(&f->t, "rnnx/"), rnn));
  assert_false(tfx_scope_is_descendant(&f->t, rnn, rnn)); /* strict */
  assert_int_equal(r->sub_type, TFX_NO_ID);
}

/* ASCEND.md §1.3: LastName. */
static void fact6_last_name(void **state) {
  (void)state;
  char b[64];
  struct {
    const char *in, *out;
  } cases[] = {
      {"root", "root"},           {"a/", "a"},
      {"a/lstm_1/", "lstm"},      {"lstm_0/", "lstm_0"},
      {"lstm_01/", "lstm"},       {"lstm_00/", "lstm_00"},
      {"a_/", "a_"},              {"_1/", ""},
      {"x_1_2/", "x_1"},          {"cell_12/", "cell"},
      {"a_2147483647/", "a"},     {"a_2147483648/", "a_2147483648"},
      {"a_1x/", "a_1x"},          {"a/b_-1/", "b_-1"},
      {"a//", ""},                {"/", ""},
      {"", ""},                   {"noslash_3", "noslash_3"},
      {"a/b", "a"},               {"a_00000000000001/", "a"},
  };
  for (size_t i = 0; i < TG_N(cases); i++) {
    tfx_scope_last_name(cases[i].in, b, sizeof b);
    if (strcmp(b, cases[i].out) != 0)
      fail_msg("LastName('%s') = '%s', want '%s'", cases[i].in, b, cases[i].out);
  }
  /* truncation into a small buffer */
  tfx_scope_last_name("a/abcdef/", b, 4);
  assert_string_equal(b, "abc");
}

static void fact6_last_name_on_tree(void **state) {
  fx *f = *state;
  const char *g[] = {"bert/encoder/layer_11/output/LayerNorm/batchnorm/add_1|AddV2",
                     "lstm_0/x|Neg"};
  build(f, g, TG_N(g));
  assert_string_equal(f->t.scopes[0].last_name, "root");
  assert_string_equal(S(f, "bert/encoder/layer_11/")->last_name, "layer");
  assert_string_equal(S(f, "bert/encoder/layer_11/output/LayerNorm/")->last_name, "LayerNorm");
  assert_string_equal(S(f, "lstm_0/")->last_name, "lstm_0");
}

/* ASCEND.md §1.4: the Identity/Const filter is always true, so every node is placed and counted. */
static void identity_and_const_counted(void **state) {
  fx *f = *state;
  const char *g[] = {"ln/gamma|Const", "ln/gamma/read|Identity|ln/gamma", "ln/mul|Mul|ln/gamma/read",
                     "ln/Identity|Identity|ln/mul"};
  build(f, g, TG_N(g));
  assert_int_equal(count(f, "ln/", "Identity"), 2);
  assert_int_equal(count(f, "ln/", "Const"), 1);
  assert_int_equal(count(f, "ln/gamma/", "Identity"), 1);
  assert_int_equal(count(f, "root", "Identity"), 2);
  assert_int_equal(S(f, "ln/")->n_nodes, 3);
  assert_int_equal(S(f, "ln/")->n_all_nodes, 4);
}

/* Children in byte order of full names; dfs is pre-order; dfs_end bounds the subtree. */
static void children_sorted_and_dfs(void **state) {
  fx *f = *state;
  const char *g[] = {"b/x|Neg", "a/z/q|Neg", "B/x|Neg", "a/b-c/x|Neg", "a/b/x|Neg", "_/x|Neg"};
  build(f, g, TG_N(g));
  const tfx_scope *root = &f->t.scopes[0];
  assert_int_equal(root->n_children, 4);
  const char *want[] = {"B/", "_/", "a/", "b/"};
  for (uint32_t k = 0; k < 4; k++) assert_string_equal(f->t.scopes[root->children[k]].name, want[k]);
  const tfx_scope *a = S(f, "a/");
  /* "a/b-c/" < "a/b/" in byte order ('-' 0x2d < '/' 0x2f) */
  assert_string_equal(f->t.scopes[a->children[0]].name, "a/b-c/");
  assert_string_equal(f->t.scopes[a->children[1]].name, "a/b/");
  assert_string_equal(f->t.scopes[a->children[2]].name, "a/z/");
  const char *pre[] = {"root", "B/", "_/", "a/", "a/b-c/", "a/b/", "a/z/", "b/"};
  assert_int_equal(f->t.n_scopes, TG_N(pre));
  for (uint32_t k = 0; k < f->t.n_scopes; k++) {
    assert_string_equal(f->t.scopes[f->t.dfs[k]].name, pre[k]);
    assert_int_equal(f->t.scopes[f->t.dfs[k]].dfs_index, k);
  }
  assert_int_equal(a->dfs_end, 7);
  assert_int_equal(f->t.scopes[0].dfs_end, f->t.n_scopes);
  assert_true(tfx_scope_is_descendant(&f->t, tfx_scope_find(&f->t, "a/z/"), 0));
  assert_false(tfx_scope_is_descendant(&f->t, 0, tfx_scope_find(&f->t, "a/")));
}

/* Odd names, as Ascend's SplitNodeName treats them: empty pieces are skipped. */
static void odd_names(void **state) {
  fx *f = *state;
  const char *g[] = {"/lead/x|Neg", "dbl//y|Neg", "trail/z/|Neg", "solo/|Neg", "/|Neg",
                     "//|Neg", "dbl/w|Neg"};
  build(f, g, TG_N(g));
  assert_int_equal(f->t.node_scope[nid(f, "/lead/x")], tfx_scope_find(&f->t, "lead/"));
  assert_int_equal(f->t.node_scope[nid(f, "dbl//y")], tfx_scope_find(&f->t, "dbl/"));
  assert_int_equal(S(f, "dbl/")->n_nodes, 2);
  /* trailing '/': the node is "z" in scope "trail/"; no "trail/z/" scope */
  assert_int_equal(f->t.node_scope[nid(f, "trail/z/")], tfx_scope_find(&f->t, "trail/"));
  assert_int_equal(tfx_scope_find(&f->t, "trail/z/"), TFX_NO_ID);
  /* "solo/" is a node in the root */
  assert_int_equal(f->t.node_scope[nid(f, "solo/")], 0);
  assert_int_equal(tfx_scope_find(&f->t, "solo/"), TFX_NO_ID);
  /* no non-empty piece: in no scope, counted nowhere */
  assert_int_equal(f->t.node_scope[nid(f, "/")], TFX_NO_ID);
  assert_int_equal(f->t.node_scope[nid(f, "//")], TFX_NO_ID);
  assert_int_equal(f->t.scopes[0].n_all_nodes, 5);
  assert_int_equal(count(f, "root", "Neg"), 5);
  assert_int_equal(f->t.n_scopes, 4); /* root, lead/, dbl/, trail/ */
  assert_int_equal(f->t.odd_names, 1);
}

/* Neighbouring names share scopes (the builder resumes after the prefix they share): a
 * shared prefix that ends inside a piece, a name ending where the previous one had a scope,
 * a longer piece with the same start, a return to an earlier scope. No name has an empty
 * piece, so odd_names stays 0 (scope fusion then reads children from the tree). */
static void shared_prefixes(void **state) {
  fx *f = *state;
  const char *g[] = {"ab/cd/x|Neg", "ab/ce/y|Neg", "ab/cd/z|Neg", "ab/cd|Neg", "ab|Neg",
                     "abc/d/e|Neg", "ab/cd/q/r|Neg", "ab/cdx/s|Neg", "ab/c/t|Neg"};
  build(f, g, TG_N(g));
  assert_int_equal(f->t.odd_names, 0);
  assert_int_equal(f->t.node_scope[nid(f, "ab/cd/x")], tfx_scope_find(&f->t, "ab/cd/"));
  assert_int_equal(f->t.node_scope[nid(f, "ab/ce/y")], tfx_scope_find(&f->t, "ab/ce/"));
  assert_int_equal(f->t.node_scope[nid(f, "ab/cd/z")], tfx_scope_find(&f->t, "ab/cd/"));
  assert_int_equal(f->t.node_scope[nid(f, "ab/cd")], tfx_scope_find(&f->t, "ab/"));
  assert_int_equal(f->t.node_scope[nid(f, "ab")], 0);
  assert_int_equal(f->t.node_scope[nid(f, "abc/d/e")], tfx_scope_find(&f->t, "abc/d/"));
  assert_int_equal(f->t.node_scope[nid(f, "ab/cd/q/r")], tfx_scope_find(&f->t, "ab/cd/q/"));
  assert_int_equal(f->t.node_scope[nid(f, "ab/cdx/s")], tfx_scope_find(&f->t, "ab/cdx/"));
  assert_int_equal(f->t.node_scope[nid(f, "ab/c/t")], tfx_scope_find(&f->t, "ab/c/"));
  /* root, ab/, ab/cd/, ab/ce/, abc/, abc/d/, ab/cd/q/, ab/cdx/, ab/c/: each made once */
  assert_int_equal(f->t.n_scopes, 9);
  assert_int_equal(S(f, "ab/cd/")->n_nodes, 2);
  assert_int_equal(S(f, "ab/cd/")->n_all_nodes, 3);
  assert_int_equal(S(f, "ab/")->n_all_nodes, 7);
  assert_int_equal(S(f, "ab/cd/q/")->parent, tfx_scope_find(&f->t, "ab/cd/"));
}

/* An empty piece inside a prefix the next name shares still marks the tree. */
static void odd_name_in_shared_prefix(void **state) {
  fx *f = *state;
  const char *g[] = {"a//b/x|Neg", "a//b/y|Neg", "a/b/z|Neg"};
  build(f, g, TG_N(g));
  assert_int_equal(f->t.odd_names, 1);
  assert_int_equal(S(f, "a/b/")->n_nodes, 3);
  assert_int_equal(f->t.n_scopes, 3);
}

/* The placement's look-ahead (full-name hashes of the pieces after the prefix a name shares
 * with the previous one, computed AHEAD_DIST nodes early) and the scope table's growth: 900
 * names of 1-5 scope pieces out of few distinct ones, some with empty pieces (leading '/',
 * "//", trailing '/') or no piece at all, so prefixes are shared, left and returned to in
 * every way, and the 741 scopes grow a table sized for 900 nodes (1024 slots). Each node must sit in
 * the scope its non-empty pieces name (computed here on its own), and there must be one
 * scope per distinct prefix. Fails when a look-ahead hash is used for a piece it was not
 * computed for, or when a look-up misses a scope made before. */
static void lookahead_and_growth(void **state) {
  fx *f = *state;
  enum { K = 900 };
  Tensorflow__GraphDef *gd = tg_graph(&f->a, NULL, 0);
  gd->node = tg_must(tfx_arena_calloc(&f->a, K, sizeof *gd->node));
  static char names[K][128];
  for (int k = 0; k < K; k++) {
    char *w = names[k];
    int d = (k * 7) % 5, len = 0;
    if (k % 230 == 0) { /* "/", "//", "///", "////": no piece */
      for (int i = 0; i <= k / 230; i++) w[len++] = '/';
    } else {
      if (k % 17 == 0) w[len++] = '/';
      for (int i = 0; i < d; i++) {
        len += snprintf(w + len, (size_t)(128 - len), "s%d/", (k / (2 * (i + 1))) % (40 * (i + 1)));
        if (k % 11 == 0 && i == 0) w[len++] = '/';
      }
      len += snprintf(w + len, (size_t)(128 - len), "n%d%s", k, k % 19 == 0 ? "/" : "");
    }
    w[len] = '\0';
    char spec[160];
    snprintf(spec, sizeof spec, "%.127s|Neg", w);
    gd->node[k] = tg_node(&f->a, spec);
  }
  gd->n_node = K;
  assert_int_equal(tfx_module_build(&f->m, gd, "m.pb", &f->d), 0);
  assert_int_equal(tfx_scope_tree_build(&f->t, &f->m.main, &f->d), 0);
  /* expected scopes: the distinct prefixes of each name's non-empty pieces but the last */
  static char seen[K * 5][128];
  uint32_t n_seen = 0;
  for (int k = 0; k < K; k++) {
    char buf[128], want[128] = "";
    snprintf(buf, sizeof buf, "%s", names[k]);
    const char *piece[16];
    int np = 0;
    for (char *tok = strtok(buf, "/"); tok && np < 16; tok = strtok(NULL, "/")) piece[np++] = tok;
    uint32_t got = f->t.node_scope[k];
    if (np == 0) {
      assert_int_equal(got, TFX_NO_ID);
      continue;
    }
    size_t wl = 0;
    for (int i = 0; i + 1 < np; i++) {
      wl += (size_t)snprintf(want + wl, sizeof want - wl, "%s/", piece[i]);
      uint32_t q = 0;
      while (q < n_seen && strcmp(seen[q], want) != 0) q++;
      if (q == n_seen) snprintf(seen[n_seen++], 128, "%s", want);
    }
    uint32_t exp = np == 1 ? 0 : tfx_scope_find(&f->t, want);
    if (exp == TFX_NO_ID || got != exp)
      fail_msg("node '%s': scope %u ('%s'), expected '%s'", names[k], got,
               got < f->t.n_scopes ? f->t.scopes[got].name : "-", np == 1 ? "root" : want);
  }
  assert_int_equal(f->t.n_scopes, 1 + n_seen);
  assert_true(f->t.n_scopes * 2 > 1024); /* more than the starting table (1024 slots) holds */
  for (uint32_t i = 1; i < f->t.n_scopes; i++) { /* each name is its parent's + a piece */
    const tfx_scope *sc = &f->t.scopes[i];
    const char *pn = sc->parent ? f->t.scopes[sc->parent].name : "";
    assert_int_equal(strncmp(sc->name, pn, strlen(pn)), 0);
    assert_null(strchr(sc->name + strlen(pn), '/') == sc->name + strlen(sc->name) - 1 ? NULL : sc->name);
    assert_int_equal(tfx_scope_find(&f->t, sc->name), i);
  }
  assert_int_equal(f->t.odd_names, 1);
}

/* Many nodes in few scopes: the finishing step's node-op scratch (4 bytes a node) does not fit
 * in the build's scope records it otherwise reuses (32 bytes a scope), so it is allocated;
 * node lists, counts and the dfs must be the same as ever. */
static void many_nodes_few_scopes(void **state) {
  fx *f = *state;
  enum { K = 3000 };
  Tensorflow__GraphDef *gd = tg_graph(&f->a, NULL, 0);
  gd->node = tg_must(tfx_arena_calloc(&f->a, K, sizeof *gd->node));
  char buf[64];
  for (int i = 0; i < K; i++) {
    snprintf(buf, sizeof buf, i % 3 == 0 ? "a/n%d|Add" : i % 3 == 1 ? "n%d|Mul" : "a/b/n%d|Neg", i);
    gd->node[i] = tg_node(&f->a, buf);
  }
  gd->n_node = K;
  assert_int_equal(tfx_module_build(&f->m, gd, "m.pb", &f->d), 0);
  assert_int_equal(tfx_scope_tree_build(&f->t, &f->m.main, &f->d), 0);
  assert_int_equal(f->t.n_scopes, 3);
  assert_int_equal(S(f, "root")->n_nodes, K / 3);
  assert_int_equal(S(f, "a/")->n_nodes, K / 3);
  assert_int_equal(S(f, "a/b/")->n_nodes, K / 3);
  assert_int_equal(S(f, "a/")->nodes[K / 3 - 1], K - 3);
  assert_int_equal(count(f, "root", "Mul"), K / 3);
  assert_int_equal(count(f, "a/", "Neg"), K / 3);
  assert_int_equal(count(f, "a/", "Mul"), -1);
  assert_int_equal(S(f, "a/b/")->n_all_nodes, K / 3);
  assert_int_equal(S(f, "root")->n_all_nodes, K);
  assert_int_equal(f->t.dfs[1], tfx_scope_find(&f->t, "a/"));
  assert_int_equal(f->t.dfs[2], tfx_scope_find(&f->t, "a/b/"));
}

static void empty_graph_tree(void **state) {
  fx *f = *state;
  build(f, NULL, 0);
  assert_int_equal(f->t.n_scopes, 1);
  assert_int_equal(f->t.scopes[0].n_all_nodes, 0);
  assert_int_equal(f->t.scopes[0].n_counts, 0);
  assert_int_equal(f->t.dfs[0], 0);
  assert_int_equal(f->t.scopes[0].dfs_end, 1);
}

/* 10^5 direct children of one scope plus a deep chain: must stay fast (no quadratic step). */
static void wide_and_deep(void **state) {
  fx *f = *state;
  enum { W = 100000, D = 2000 };
  Tensorflow__GraphDef *gd = tg_graph(&f->a, NULL, 0);
  gd->node = tg_must(tfx_arena_calloc(&f->a, W + 1, sizeof *gd->node));
  char buf[64];
  for (int i = 0; i < W; i++) {
    snprintf(buf, sizeof buf, "wide/c%05d/op|%s", W - 1 - i, (i % 3) ? "Mul" : "Add");
    gd->node[i] = tg_node(&f->a, buf);
  }
  char *deep = tg_must(tfx_arena_alloc(&f->a, D * 2 + 16));
  size_t w = 0;
  for (int i = 0; i < D; i++) {
    deep[w++] = 'd';
    deep[w++] = '/';
  }
  memcpy(deep + w, "leaf|Neg", 9);
  gd->node[W] = tg_node(&f->a, deep);
  gd->n_node = W + 1;
  assert_int_equal(tfx_module_build(&f->m, gd, "m.pb", &f->d), 0);
  assert_int_equal(tfx_scope_tree_build(&f->t, &f->m.main, &f->d), 0);
  const tfx_scope *wide = S(f, "wide/");
  assert_int_equal(wide->n_children, W);
  assert_string_equal(f->t.scopes[wide->children[0]].name, "wide/c00000/");
  assert_string_equal(f->t.scopes[wide->children[W - 1]].name, "wide/c99999/");
  assert_int_equal(count(f, "wide/", "Add"), (W + 2) / 3);
  assert_int_equal(count(f, "root", "Neg"), 1);
  assert_int_equal(f->t.scopes[f->t.node_scope[W]].depth, D);
  assert_int_equal(f->t.n_scopes, 1 + 1 + W + D);
}


/* The name map (tfx_scope_find): every scope of a tree of 1 + 3 * 700 + 1 scopes is found by
 * its full name, at load <= 3/4 (an absent name then always ends at a free slot); names that
 * are not scopes (no trailing '/', a node's name with one, an extension or a prefix of a
 * scope's name, "", names differing in one byte) are not found. */
static void name_map_finds_every_scope(void **state) {
  fx *f = *state;
  enum { K = 700 };
  Tensorflow__GraphDef *gd = tg_graph(&f->a, NULL, 0);
  gd->node = tg_must(tfx_arena_calloc(&f->a, 2 * K, sizeof *gd->node));
  char buf[96];
  for (int i = 0; i < K; i++) {
    snprintf(buf, sizeof buf, "m/s%d/t%d/u/op|Add", i, i % 7);
    gd->node[2 * i] = tg_node(&f->a, buf);
    snprintf(buf, sizeof buf, "m/s%d/v|Mul", i);
    gd->node[2 * i + 1] = tg_node(&f->a, buf);
  }
  gd->n_node = 2 * K;
  assert_int_equal(tfx_module_build(&f->m, gd, "m.pb", &f->d), 0);
  assert_int_equal(tfx_scope_tree_build(&f->t, &f->m.main, &f->d), 0);
  assert_int_equal(f->t.n_scopes, 1 + 1 + 3 * K);
  assert_true((uint64_t)f->t.name_cap * 3 >= (uint64_t)f->t.n_scopes * 4);
  for (uint32_t i = 0; i < f->t.n_scopes; i++)
    assert_int_equal(tfx_scope_find(&f->t, f->t.scopes[i].name), i);
  const char *absent[] = {"", "m", "m/s1", "m/s1/v/", "m/s1/t1/u/op/", "m/s1/t1/u/x/",
                          "m/s1/t1/", "m/s1/t2", "/m/", "m/s700/", "x/m/s1/", "roo", "root/"};
  for (size_t i = 0; i < TG_N(absent); i++) {
    uint32_t id = tfx_scope_find(&f->t, absent[i]);
    if (i == 6) /* m/s1/t1/ exists: the control */
      assert_int_not_equal(id, TFX_NO_ID);
    else if (id != TFX_NO_ID)
      fail_msg("'%s' found as scope %u", absent[i], id);
  }
  for (int i = 0; i < K; i++) { /* one byte changed at the end of every scope name */
    snprintf(buf, sizeof buf, "m/s%d/t%d/v/", i, i % 7);
    assert_int_equal(tfx_scope_find(&f->t, buf), TFX_NO_ID);
  }
  assert_int_equal(tfx_scope_find(&f->t, NULL), TFX_NO_ID);
}


static void oom_every_allocation(void **state) {
  fx *f = *state;
  /* "q//r/s": a full name built from its parent's (the empty piece), in scratch memory */
  const char *g[] = {"a/b/c|Add", "a/d|Mul", "x|Const", "a/b/e/f|Neg", "z/y|Neg", "q//r/s|Neg"};
  Tensorflow__GraphDef *gd = tg_graph(&f->a, g, TG_N(g));
  assert_int_equal(tfx_module_build(&f->m, gd, "m.pb", &f->d), 0);
  int ok = 0;
  for (long k = 1; k < 500 && !ok; k++) {
    tfx_diag_clear(&f->d);
    tfx_alloc_fail_at(k);
    int rc = tfx_scope_tree_build(&f->t, &f->m.main, &f->d);
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (hits == 0) {
      assert_int_equal(rc, 0);
      assert_int_equal(f->t.n_scopes, 7);
      assert_int_equal(f->t.node_scope[5], tfx_scope_find(&f->t, "q/r/"));
      ok = 1;
    } else {
      assert_int_equal(rc, TFX_E_NOMEM); /* out of memory, not a malformed graph */
      assert_true(TG_ERR(&f->d, "out of memory"));
      tfx_scope_tree_free(&f->t);
    }
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
      cmocka_unit_test_setup_teardown(fact1_scopes_from_names, setup, teardown),
      cmocka_unit_test_setup_teardown(fact2_subtree_counts_and_nodes, setup, teardown),
      cmocka_unit_test_setup_teardown(fact3_absent_is_minus_one, setup, teardown),
      cmocka_unit_test_setup_teardown(fact4_counts_drive_nodeop_feature, setup, teardown),
      cmocka_unit_test_setup_teardown(fact5_scope_feature_data, setup, teardown),
      cmocka_unit_test(fact6_last_name),
      cmocka_unit_test_setup_teardown(fact6_last_name_on_tree, setup, teardown),
      cmocka_unit_test_setup_teardown(identity_and_const_counted, setup, teardown),
      cmocka_unit_test_setup_teardown(children_sorted_and_dfs, setup, teardown),
      cmocka_unit_test_setup_teardown(odd_names, setup, teardown),
      cmocka_unit_test_setup_teardown(shared_prefixes, setup, teardown),
      cmocka_unit_test_setup_teardown(odd_name_in_shared_prefix, setup, teardown),
      cmocka_unit_test_setup_teardown(empty_graph_tree, setup, teardown),
      cmocka_unit_test_setup_teardown(wide_and_deep, setup, teardown),
      cmocka_unit_test_setup_teardown(name_map_finds_every_scope, setup, teardown),
      cmocka_unit_test_setup_teardown(lookahead_and_growth, setup, teardown),
      cmocka_unit_test_setup_teardown(many_nodes_few_scopes, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
