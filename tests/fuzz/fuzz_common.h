/* Shared helpers for the libFuzzer targets in tests/fuzz (header-only, static functions, so
 * each target stays one .c file). A broken property is reported with FUZZ_CHECK, which prints
 * what failed and abort()s so libFuzzer saves the input as a crash. */
#ifndef TFX_FUZZ_COMMON_H
#define TFX_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "scope/scope.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                    \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: property failed: %s\n  ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                              \
      fputc('\n', stderr);                                                       \
      abort();                                                                   \
    }                                                                            \
  } while (0)

/* Prints the diagnostics when FUZZ_VERBOSE is set in the environment (for reproducing). */
static inline void fuzz_diag_dump(const tfx_diag *d) {
  static int verbose = -1;
  if (verbose < 0) verbose = getenv("FUZZ_VERBOSE") != NULL;
  if (verbose) tfx_diag_print(d, stderr);
}

/* Index invariants documented in graph/graph.h: resolved inputs point at real nodes or args,
 * consumer lists mirror the inputs, and topo (when present) is a permutation of the nodes in
 * which every producer that is not a NextIteration comes before its consumers. */
static inline void fuzz_check_graph(const tfx_module *m, const tfx_graph *g) {
  uint32_t n = g->n_nodes;
  for (uint32_t i = 0; i < n; i++) {
    const tfx_node *nd = &g->nodes[i];
    FUZZ_CHECK(nd->n_data_in <= nd->n_in, "node %u: n_data_in %u > n_in %u", i, nd->n_data_in, nd->n_in);
    for (uint32_t k = 0; k < nd->n_in; k++) {
      const tfx_input *in = &nd->in[k];
      if (in->src == TFX_NO_ID) {
        FUZZ_CHECK(m->has_errors, "unresolved input %u of node %u in a module without errors", k, i);
        continue;
      }
      if (in->kind == TFX_IN_ARG)
        FUZZ_CHECK(in->src < g->n_args, "node %u input %u: arg %u out of range", i, k, in->src);
      else
        FUZZ_CHECK(in->src < n, "node %u input %u: src %u out of range", i, k, in->src);
      if (!m->has_errors)
        FUZZ_CHECK((in->port == -1) == (k >= nd->n_data_in), "node %u input %u: port %d vs n_data_in %u", i, k,
                 in->port, nd->n_data_in);
    }
    for (uint32_t u = 0; u < nd->n_uses; u++) {
      const tfx_use *use = &nd->uses[u];
      FUZZ_CHECK(use->node < n && use->slot < g->nodes[use->node].n_in, "node %u use %u out of range", i, u);
      const tfx_input *in = &g->nodes[use->node].in[use->slot];
      FUZZ_CHECK(in->kind == TFX_IN_NODE && in->src == i, "node %u use %u does not point back", i, u);
    }
  }
  if (!g->topo) return;
  uint32_t *pos = malloc((n ? n : 1) * sizeof *pos);
  FUZZ_CHECK(pos != NULL, "out of memory in the fuzz harness");
  for (uint32_t i = 0; i < n; i++) pos[i] = TFX_NO_ID;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t v = g->topo[i];
    FUZZ_CHECK(v < n && pos[v] == TFX_NO_ID, "topo is not a permutation (entry %u = %u)", i, v);
    pos[v] = i;
  }
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = 0; k < g->nodes[i].n_in; k++) {
      const tfx_input *in = &g->nodes[i].in[k];
      if (in->kind != TFX_IN_NODE || in->src == TFX_NO_ID) continue;
      const char *op = g->nodes[in->src].op ? g->nodes[in->src].op : "";
      if (strcmp(op, "NextIteration") == 0 || strcmp(op, "RefNextIteration") == 0) continue;
      FUZZ_CHECK(pos[in->src] < pos[i], "topo puts producer %u after consumer %u", in->src, i);
    }
  free(pos);
}

/* Scope tree invariants from scope/scope.h: names resolve to their ids, dfs is a pre-order
 * permutation whose [dfs_index, dfs_end) ranges match the descendant test, node_scope is in
 * range. */
static inline void fuzz_check_scopes(const tfx_scope_tree *t) {
  FUZZ_CHECK(t->n_scopes >= 1 && t->scopes[0].parent == TFX_NO_ID, "no root scope");
  for (uint32_t s = 0; s < t->n_scopes; s++) {
    const tfx_scope *sc = &t->scopes[s];
    FUZZ_CHECK(tfx_scope_find(t, sc->name) == s, "scope '%s' (%u) not found by name", sc->name, s);
    FUZZ_CHECK(sc->dfs_index < t->n_scopes && t->dfs[sc->dfs_index] == s, "scope %u: bad dfs_index", s);
    FUZZ_CHECK(sc->dfs_end > sc->dfs_index && sc->dfs_end <= t->n_scopes, "scope %u: bad dfs_end", s);
    for (uint32_t c = 0; c < sc->n_children; c++) {
      uint32_t ch = sc->children[c];
      FUZZ_CHECK(ch < t->n_scopes && t->scopes[ch].parent == s, "scope %u: child %u has another parent", s, ch);
      FUZZ_CHECK(tfx_scope_is_descendant(t, ch, s), "scope %u is not a descendant of its parent %u", ch, s);
      if (c) FUZZ_CHECK(strcmp(t->scopes[sc->children[c - 1]].name, t->scopes[ch].name) < 0,
                        "scope %u: children not in byte order", s);
    }
    char buf[64];
    tfx_scope_last_name(sc->name, buf, sizeof buf);
  }
  for (uint32_t i = 0; i < t->graph->n_nodes; i++)
    FUZZ_CHECK(t->node_scope[i] == TFX_NO_ID || t->node_scope[i] < t->n_scopes, "node %u: bad scope", i);
}

/* ---- a strict JSON syntax check (RFC 8259), for the JSON emitters ---- */

typedef struct fuzz_json {
  const char *s;
  size_t n, i;
  unsigned depth;
} fuzz_json;

static inline void fuzz_json_ws(fuzz_json *j) {
  while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' || j->s[j->i] == '\r'))
    j->i++;
}

static inline int fuzz_json_lit(fuzz_json *j, const char *w) {
  size_t k = strlen(w);
  if (j->n - j->i < k || memcmp(j->s + j->i, w, k) != 0) return 0;
  j->i += k;
  return 1;
}

static inline int fuzz_json_string(fuzz_json *j) {
  if (j->i >= j->n || j->s[j->i] != '"') return 0;
  for (j->i++; j->i < j->n; j->i++) {
    unsigned char c = (unsigned char)j->s[j->i];
    if (c == '"') { j->i++; return 1; }
    if (c < 0x20) return 0;
    if (c == '\\') {
      if (++j->i >= j->n) return 0;
      c = (unsigned char)j->s[j->i];
      if (c == 'u') {
        for (int k = 0; k < 4; k++) {
          if (++j->i >= j->n || !strchr("0123456789abcdefABCDEF", j->s[j->i]) || !j->s[j->i]) return 0;
        }
      } else if (!strchr("\"\\/bfnrt", c) || !c) {
        return 0;
      }
    }
  }
  return 0;
}

static inline int fuzz_json_number(fuzz_json *j) {
  size_t st = j->i;
  if (j->i < j->n && j->s[j->i] == '-') j->i++;
  if (j->i >= j->n) return 0;
  if (j->s[j->i] == '0') j->i++;
  else if (j->s[j->i] >= '1' && j->s[j->i] <= '9') while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
  else return 0;
  if (j->i < j->n && j->s[j->i] == '.') {
    size_t d = ++j->i;
    while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
    if (j->i == d) return 0;
  }
  if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
    j->i++;
    if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-')) j->i++;
    size_t d = j->i;
    while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
    if (j->i == d) return 0;
  }
  return j->i > st;
}

static inline int fuzz_json_value(fuzz_json *j) {
  fuzz_json_ws(j);
  if (j->i >= j->n) return 0;
  char c = j->s[j->i];
  if (c == '"') return fuzz_json_string(j);
  if (c == '{' || c == '[') {
    if (++j->depth > 10000) return 0;
    char close = c == '{' ? '}' : ']';
    j->i++;
    fuzz_json_ws(j);
    if (j->i < j->n && j->s[j->i] == close) { j->i++; j->depth--; return 1; }
    for (;;) {
      if (c == '{') {
        fuzz_json_ws(j);
        if (!fuzz_json_string(j)) return 0;
        fuzz_json_ws(j);
        if (j->i >= j->n || j->s[j->i++] != ':') return 0;
      }
      if (!fuzz_json_value(j)) return 0;
      fuzz_json_ws(j);
      if (j->i >= j->n) return 0;
      if (j->s[j->i] == ',') { j->i++; continue; }
      if (j->s[j->i] == close) { j->i++; j->depth--; return 1; }
      return 0;
    }
  }
  if (fuzz_json_lit(j, "true") || fuzz_json_lit(j, "false") || fuzz_json_lit(j, "null")) return 1;
  return fuzz_json_number(j);
}

/* 1 when s[0..n) is exactly one JSON value (with surrounding whitespace); else 0 and *at gets
 * the byte offset where it went wrong. */
static inline int fuzz_json_valid(const char *s, size_t n, size_t *at) {
  fuzz_json j = {s, n, 0, 0};
  int ok = fuzz_json_value(&j);
  fuzz_json_ws(&j);
  ok = ok && j.i == n;
  if (at) *at = j.i;
  return ok;
}

/* Builds the module (strict, then lenient when strict fails) and a scope tree for the main
 * graph and every function body, checking the invariants above. */
static inline void fuzz_index_and_scope(Tensorflow__GraphDef *gd, tfx_diag *d) {
  for (unsigned pass = 0; pass < 2; pass++) {
    tfx_module m;
    int rc = tfx_module_build_ex(&m, gd, "fuzz", pass ? TFX_MODULE_LENIENT : 0u, d);
    if (rc == 0) {
      for (uint32_t gi = 0; gi <= m.n_funcs; gi++) {
        const tfx_graph *g = gi == 0 ? &m.main : &m.funcs[gi - 1];
        fuzz_check_graph(&m, g);
        tfx_scope_tree t;
        if (tfx_scope_tree_build(&t, g, d) == 0) fuzz_check_scopes(&t);
        tfx_scope_tree_free(&t);
      }
    }
    tfx_module_free(&m);
    if (rc == 0) break;
  }
}

#endif
