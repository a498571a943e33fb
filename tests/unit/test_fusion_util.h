/* Test helpers shared by test_fusion_*.c: hand-assembled scope passes (patterns from a tiny
 * feature spec, selection programs from a few statement helpers), the engine + report run on
 * the vt fixture's model, and GraphDef lookups. Header-only, static functions.
 * Feature spec: "count Mul 3; absent Identity; present Mean; name batchnorm; subtypes m 1;
 * mask while" (features emitted in that order, then SC_NORETVAL and MATCH).
 * Selection registers: r1 list, r2/r3 iterator, r4 current scope, r5.. temporaries. */
#ifndef TFX_TEST_FUSION_UTIL_H
#define TFX_TEST_FUSION_UTIL_H

#include "fusion/engine.h"
#include "test_vm_util.h"

#define BI(name) ((int64_t)TFX_BI_##name)
#define PR(name) ((int64_t)TFX_PR_##name)

typedef struct ft {
  tfx_fusion_engine e;
  tfx_fusion_enables en;
  tfx_fusion_report rep;
  int have_engine, have_en;
  uint32_t file;
} ft;

static ft *ftx; /* per test, set by ft_setup */

static inline int ft_setup(void **state) {
  if (vt_setup(state)) return -1;
  ftx = calloc(1, sizeof *ftx);
  if (!ftx) return -1;
  tfx_fusion_report_init(&ftx->rep);
  vt *f = *state;
  ftx->file = tfx_asm_file(&f->as, "t.rule");
  return 0;
}

static inline int ft_teardown(void **state) {
  if (ftx->have_engine) tfx_fusion_engine_free(&ftx->e);
  if (ftx->have_en) tfx_fusion_enables_free(&ftx->en);
  tfx_fusion_report_free(&ftx->rep);
  free(ftx);
  ftx = NULL;
  return vt_teardown(state);
}

/* A pass rule named name at t.rule:line. */
static inline uint32_t ft_pass(vt *f, const char *name, int general, uint32_t line) {
  uint32_t r = tfx_asm_rule(&f->as, TFX_RULE_PASS, name, general ? TFX_RULE_GENERAL : 0);
  tfx_vm_rule *ru = tfx_asm_rule_at(&f->as, r);
  assert_non_null(ru);
  ru->file = ftx->file;
  ru->line = line;
  return r;
}

/* A pattern (SCOPE program from spec) with sub_type st, appended to layer. */
static inline void ft_pattern(vt *f, uint32_t layer, const char *st, const char *spec) {
  tfx_asm *as = &f->as;
  uint32_t prog = tfx_asm_prog_begin(as, TFX_PK_SCOPE, TFX_PACK_NONE);
  tfx_asm_loc(as, ftx->file, 5, 1);
  char buf[256];
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *item = buf, *next; item; item = next) {
    next = strchr(item, ';');
    if (next) *next++ = '\0';
    char w[3][64] = {{0}};
    int n = sscanf(item, "%63s %63s %63s", w[0], w[1], w[2]);
    if (n < 2) continue;
    if (!strcmp(w[0], "count")) {
      uint32_t ft_ = tfx_asm_feature(as, TFX_OP_SC_COUNT, item, ftx->file, 5);
      tfx_asm_emit(as, TFX_OP_SC_COUNT, ft_, KS(f, w[1]), atoi(w[2]));
    } else if (!strcmp(w[0], "absent")) {
      uint32_t ft_ = tfx_asm_feature(as, TFX_OP_SC_ABSENT, item, ftx->file, 5);
      tfx_asm_emit(as, TFX_OP_SC_ABSENT, ft_, KS(f, w[1]), 0);
    } else if (!strcmp(w[0], "present")) {
      uint32_t ft_ = tfx_asm_feature(as, TFX_OP_SC_PRESENT, item, ftx->file, 5);
      tfx_asm_emit(as, TFX_OP_SC_PRESENT, ft_, KS(f, w[1]), 0);
    } else if (!strcmp(w[0], "name")) {
      uint32_t ft_ = tfx_asm_feature(as, TFX_OP_SC_NAME, item, ftx->file, 5);
      tfx_asm_emit(as, TFX_OP_SC_NAME, ft_, KS(f, w[1]), 0);
    } else if (!strcmp(w[0], "subtypes")) {
      uint32_t ft_ = tfx_asm_feature(as, TFX_OP_SC_SUBTYPES, item, ftx->file, 5);
      tfx_asm_emit(as, TFX_OP_SC_SUBTYPES, ft_, KS(f, w[1]), atoi(w[2]));
    } else if (!strcmp(w[0], "mask")) {
      uint32_t ft_ = tfx_asm_feature(as, TFX_OP_SC_MASK, item, ftx->file, 5);
      tfx_asm_emit(as, TFX_OP_SC_MASK, ft_, KS(f, w[1]), 0);
    } else {
      fail_msg("bad spec item '%s'", item);
    }
  }
  uint32_t nr = tfx_asm_feature(as, TFX_OP_SC_NORETVAL, NULL, ftx->file, 5);
  tfx_asm_emit(as, TFX_OP_SC_NORETVAL, nr, 0, 0);
  tfx_asm_emit(as, TFX_OP_MATCH, KS(f, st), 0, 0);
  if (tfx_asm_prog_end(as)) fail_msg("asm: %s", as->err);
  tfx_asm_pattern(as, layer, st, prog);
}

/* One group with one layer holding one pattern (the common case); returns the layer. */
static inline uint32_t ft_simple(vt *f, uint32_t rule, const char *st, const char *spec) {
  uint32_t l = tfx_asm_layer(&f->as, tfx_asm_group(&f->as, rule));
  ft_pattern(f, l, st, spec);
  return l;
}

/* ---- selection programs ---- */
static inline void ft_sel_begin(vt *f, uint32_t rule, uint32_t line) {
  tfx_asm_prog_begin(&f->as, TFX_PK_SELECT, rule);
  tfx_asm_loc(&f->as, ftx->file, line, 3);
}
static inline void ft_sel_end(vt *f) {
  if (tfx_asm_prog_end(&f->as)) fail_msg("asm: %s", f->as.err);
}
static inline void ft_loc(vt *f, uint32_t line) { tfx_asm_loc(&f->as, ftx->file, line, 3); }
/* for r4 in scopes(st): ... (close with ft_each_end) */
static inline void ft_each(vt *f, const char *st, uint32_t *loop, uint32_t *done) {
  *loop = tfx_asm_label_new(&f->as);
  *done = tfx_asm_label_new(&f->as);
  E(f, LOADK, 10, KS(f, st), 0);
  E4(f, CALL, 1, BI(scopes), 10, 1);
  E(f, ITER, 2, 1, 0);
  tfx_asm_label_here(&f->as, *loop);
  E(f, NEXT, 2, 4, *done);
}
static inline void ft_each_end(vt *f, uint32_t loop, uint32_t done) {
  E(f, JMP, loop, 0, 0);
  tfx_asm_label_here(&f->as, done);
}
static inline void ft_begin(vt *f) { E(f, FR_BEGIN, 0, 0, 0); }
static inline void ft_end(vt *f) { E(f, FR_END, 0, 0, 0); }
static inline void ft_scopes(vt *f) { E(f, FR_SCOPES, 4, 0, 0); }
/* FR_SCOPES [r4, scope(r4.parent, rel)] */
static inline void ft_scopes_with_sibling(vt *f, const char *rel) {
  E(f, PROP, 6, 4, PR(parent));
  E(f, LOADK, 7, KS(f, rel), 0);
  E4(f, CALL, 12, BI(scope), 6, 2);
  E(f, MOVE, 11, 4, 0);
  E(f, NEWLIST, 5, 11, 2);
  E(f, FR_SCOPES, 5, 0, 0);
}
static inline void ft_type(vt *f, const char *t) {
  E(f, LOADK, 5, KS(f, t), 0);
  E(f, FR_TYPE, 5, 0, 0);
}
static inline void ft_name(vt *f, const char *n) {
  E(f, LOADK, 5, KS(f, n), 0);
  E(f, FR_NAME, 5, 0, 0);
}
static inline void ft_desc(vt *f, const char *n) {
  E(f, LOADK, 5, KS(f, n), 0);
  E(f, FR_DESC, 5, 0, 0);
}
/* FR_NAME before(r4.name, s) */
static inline void ft_name_before(vt *f, const char *s) {
  E(f, PROP, 6, 4, PR(name));
  E(f, LOADK, 7, KS(f, s), 0);
  E4(f, CALL, 5, BI(before), 6, 2);
  E(f, FR_NAME, 5, 0, 0);
}
/* index map entry: dir 0 input, 1 output; to < 0: none */
static inline void ft_map(vt *f, int dir, const char *key, int from, int to) {
  E(f, LOADK, 5, KS(f, key), 0);
  E(f, LOADI, 6, from, 0);
  if (to < 0) E(f, LOADNONE, 7, 0, 0);
  else E(f, LOADI, 7, to, 0);
  if (dir) E(f, FR_OUTPUT, 5, 6, 7);
  else E(f, FR_INPUT, 5, 6, 7);
}
static inline void ft_attr_int(vt *f, const char *name, int v) {
  E(f, LOADI, 5, v, 0);
  E(f, FR_ATTR, KS(f, name), 5, 0);
}
static inline void ft_invalid(vt *f, const char *why) {
  E(f, LOADK, 5, KS(f, why), 0);
  E(f, FR_INVALID, 5, 0, 0);
}
static inline void ft_node(vt *f, const char *name, const char *type) {
  E(f, LOADK, 5, KS(f, name), 0);
  E(f, LOADK, 6, KS(f, type), 0);
  E(f, NODE_NEW, 5, 6, 0);
}
/* src NULL: boundary input `in port` */
static inline void ft_node_in(vt *f, const char *src, int port) {
  if (src) E(f, LOADK, 5, KS(f, src), 0);
  else E(f, LOADNONE, 5, 0, 0);
  E(f, LOADI, 6, port, 0);
  E(f, NODE_IN, 5, 6, 0);
}
static inline void ft_node_const_f(vt *f, double v) {
  E(f, LOADK, 5, tfx_asm_const_float(&f->as, v), 0);
  E(f, NODE_CONST, 5, 0, 0);
}
static inline void ft_node_out(vt *f, int index, const char *node, int port) {
  E(f, LOADI, 5, index, 0);
  E(f, LOADK, 6, KS(f, node), 0);
  E(f, LOADI, 7, port, 0);
  E(f, NODE_OUT, 5, 6, 7);
}
static inline void ft_ret(vt *f, int b) {
  E(f, LOADB, 5, b, 0);
  E(f, RET, 5, 0, 0);
}

/* ---- running ---- */

/* Finishes the pack and prepares engine + default enable set. */
static inline void ft_finish(vt *f) {
  int rc = tfx_asm_finish(&f->as, &f->p, "t.tfxb", &f->d);
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  assert_int_equal(tfx_fusion_engine_init(&ftx->e, &f->p, &f->d), 0);
  ftx->have_engine = 1;
  assert_int_equal(tfx_fusion_enables_init(&ftx->en, &f->p, &f->d), 0);
  ftx->have_en = 1;
}

/* Runs the engine on the fixture's main graph; returns the graph report. */
static inline tfx_fusion_graph_report *ft_run(vt *f) {
  int rc = tfx_fusion_run(&ftx->e, &ftx->en, &f->m, &f->m.main, &f->t, &ftx->rep, &f->d);
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  return &ftx->rep.graphs[ftx->rep.n_graphs - 1];
}

/* Sub_type of a scope as a string ("" for none). */
static inline const char *ft_st(vt *f, const char *scope) {
  uint32_t id = f->t.scopes[vt_scope(f, scope)].sub_type;
  return id == TFX_NO_ID ? "" : tfx_intern_str(&ftx->e.subtypes, id);
}

/* "a/ b/" style list of the scopes a layer report matched. */
static inline const char *ft_layer_scopes(const tfx_fusion_layer_report *l) {
  static char buf[512];
  buf[0] = '\0';
  for (uint32_t i = 0; i < l->n; i++) {
    if (i) strncat(buf, " ", sizeof buf - strlen(buf) - 1);
    strncat(buf, l->m[i].scope, sizeof buf - strlen(buf) - 1);
    strncat(buf, "=", sizeof buf - strlen(buf) - 1);
    strncat(buf, l->m[i].sub_type, sizeof buf - strlen(buf) - 1);
  }
  return buf;
}

/* A diagnostic containing text (any severity)? */
static inline int ft_diag_has(const tfx_diag *d, const char *text) {
  for (size_t i = 0; i < d->n; i++)
    if (strstr(d->items[i].msg, text)) return 1;
  return 0;
}

/* ---- GraphDef lookups ---- */
static inline Tensorflow__NodeDef *ft_find(Tensorflow__NodeDef **v, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i]->name, name) == 0) return v[i];
  return NULL;
}
/* The node's inputs joined with ',' */
static inline const char *ft_inputs(const Tensorflow__NodeDef *nd) {
  static char buf[1024];
  buf[0] = '\0';
  for (size_t i = 0; nd && i < nd->n_input; i++) {
    if (i) strncat(buf, ",", sizeof buf - strlen(buf) - 1);
    strncat(buf, nd->input[i], sizeof buf - strlen(buf) - 1);
  }
  return buf;
}
/* Node names joined with ' ' in list order. */
static inline const char *ft_names(Tensorflow__NodeDef **v, size_t n) {
  static char buf[2048];
  buf[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    if (i) strncat(buf, " ", sizeof buf - strlen(buf) - 1);
    strncat(buf, v[i]->name, sizeof buf - strlen(buf) - 1);
  }
  return buf;
}
static inline const Tensorflow__AttrValue *ft_attr(const Tensorflow__NodeDef *nd, const char *key) {
  for (size_t i = 0; nd && i < nd->n_attr; i++)
    if (strcmp(nd->attr[i]->key, key) == 0) return nd->attr[i]->value;
  return NULL;
}

/* Applies the report to the fixture's GraphDef and checks the result re-indexes cleanly. */
static inline void ft_apply(vt *f) {
  tfx_fusion_undo u;
  tfx_fusion_undo_init(&u);
  int rc = tfx_fusion_apply(&ftx->rep, &f->m, f->gd, &f->a, &u, &f->d);
  tfx_fusion_undo_free(&u);
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  tfx_module m2;
  tfx_diag d2;
  tfx_diag_init(&d2);
  rc = tfx_module_build(&m2, f->gd, "fused.pb", &d2);
  if (rc) tg_dump(&d2);
  assert_int_equal(rc, 0);
  tfx_module_free(&m2);
  tfx_diag_free(&d2);
}

/* The dense LayerNorm block of tf.contrib.layers.layer_norm under prefix P (no trailing /),
 * fed by x, read by y. */
#define FT_LAYERNORM(P)                                                                          \
  P "/gamma|Const", P "/beta|Const", P "/moments/mean/reduction_indices|Const",                  \
      P "/moments/mean|Mean|x," P "/moments/mean/reduction_indices",                             \
      P "/moments/StopGradient|StopGradient|" P "/moments/mean",                                 \
      P "/moments/SquaredDifference|SquaredDifference|x," P "/moments/StopGradient",             \
      P "/moments/variance/reduction_indices|Const",                                             \
      P "/moments/variance|Mean|" P "/moments/SquaredDifference," P "/moments/variance/reduction_indices", \
      P "/batchnorm/add/y|Const", P "/batchnorm/add|AddV2|" P "/moments/variance," P "/batchnorm/add/y", \
      P "/batchnorm/Rsqrt|Rsqrt|" P "/batchnorm/add",                                            \
      P "/batchnorm/mul|Mul|" P "/batchnorm/Rsqrt," P "/gamma",                                  \
      P "/batchnorm/mul_1|Mul|x," P "/batchnorm/mul",                                            \
      P "/batchnorm/mul_2|Mul|" P "/moments/mean," P "/batchnorm/mul",                           \
      P "/batchnorm/sub|Sub|" P "/beta," P "/batchnorm/mul_2",                                   \
      P "/batchnorm/add_1|AddV2|" P "/batchnorm/mul_1," P "/batchnorm/sub"

/* The LayerNorm pass of docs/LANGUAGE.md §3.1, hand-assembled: batchnorm and moments groups;
 * for each batchnorm scope b: scopes [b, b.parent + "moments/"], name before(b.name,
 * "batchnorm"), the index maps of the doc. */
static inline uint32_t ft_layernorm_pass(vt *f, const char *name) {
  uint32_t r = ft_pass(f, name, 1, 1);
  ft_simple(f, r, "batchnorm", "count Sub 1; count AddV2 2; count Rsqrt 1; count Mul 3; absent Identity; name batchnorm");
  ft_simple(f, r, "moments", "count Mean 2; count SquaredDifference 1; absent Squeeze; name moments");
  ft_sel_begin(f, r, 20);
  uint32_t loop, done;
  ft_each(f, "batchnorm", &loop, &done);
  ft_begin(f);
  ft_scopes_with_sibling(f, "moments/");
  ft_name_before(f, "batchnorm");
  ft_type(f, "LayerNorm");
  ft_map(f, 0, "batchnorm/mul_1", 0, 0);
  ft_map(f, 0, "batchnorm/mul_1", 1, 0);
  ft_map(f, 0, "batchnorm/mul", 1, 1);
  ft_map(f, 0, "batchnorm/sub", 0, 2);
  ft_map(f, 1, "batchnorm/add_1", 0, 0);
  ft_map(f, 1, "moments/mean", 0, 1);
  ft_map(f, 1, "batchnorm/Rsqrt", 0, 2);
  ft_end(f);
  ft_each_end(f, loop, done);
  ft_ret(f, 1);
  ft_sel_end(f);
  return r;
}

#endif
