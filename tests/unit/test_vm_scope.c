/* Unit tests for the scope-test opcodes (SC_*, MATCH) against Ascend's exact feature
 * semantics (docs/ASCEND.md §2): absent counts -1 so
 * `count T == 0` never matches, the step idiom (T, 0, k), NodeAttrFeature's walk over DIRECT
 * nodes (missing attr fails, unequal moves on, float tolerance, other types), descendant
 * sub_type counts, LastName equality (not a suffix test), the sub-scope mask, the hidden
 * no-_Retval rule, failure records for explain, and coverage of every scope opcode. */
#include "test_vm_util.h"

/* A scope program with one test `op feat, b, c, d` followed by MATCH "m". */
static uint32_t one_test(vt *f, tfx_opcode op, const char *text, int64_t b, int64_t c, int64_t d) {
  uint32_t prog = tfx_asm_prog_begin(&f->as, TFX_PK_SCOPE, TFX_PACK_NONE);
  uint32_t feat = tfx_asm_feature(&f->as, op, text, TFX_PACK_NONE, 0);
  tfx_asm_emit4(&f->as, op, feat, b, c, d);
  tfx_asm_emit(&f->as, TFX_OP_MATCH, KS(f, "m"), 0, 0);
  if (tfx_asm_prog_end(&f->as)) fail_msg("asm: %s", f->as.err);
  return prog;
}

/* Runs prog over the scope named full; returns whether it matched. */
static int matches(vt *f, uint32_t prog, const char *full) {
  int rc = vt_run_prog(f, prog, TFX_PK_SCOPE, vt_scope(f, full));
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  return f->res.matched;
}

static const char *found(vt *f) {
  assert_true(f->res.n_fails >= 1);
  return vt_val(f, &f->res.fails[0].found);
}

static const char *expected(vt *f) {
  assert_true(f->res.n_fails >= 1);
  return vt_val(f, &f->res.fails[0].expected);
}

/* ASCEND.md §2.1 (step 0): exact count; absent is -1, so == 0 never matches. */
static void count_absent_is_minus_one(void **state) {
  vt *f = *state;
  const char *g[] = {"a/Mul|Mul", "a/b/Mul_1|Mul", "c/Add|Add"};
  vt_model(f, g, TG_N(g));
  uint32_t mul2 = one_test(f, TFX_OP_SC_COUNT, "count Mul == 2", KS(f, "Mul"), 2, 0);
  uint32_t add0 = one_test(f, TFX_OP_SC_COUNT, "count Add == 0", KS(f, "Add"), 0, 0);
  uint32_t addm1 = one_test(f, TFX_OP_SC_COUNT, "count Add == -1", KS(f, "Add"), -1, 0);
  uint32_t foo0 = one_test(f, TFX_OP_SC_COUNT, "count Foo == 0", KS(f, "Foo"), 0, 0);
  vt_finish_pack(f);
  assert_true(matches(f, mul2, "a/"));   /* subtree count includes a/b/ */
  assert_false(matches(f, mul2, "a/b/"));
  assert_string_equal(found(f), "1");
  assert_string_equal(expected(f), "2");
  assert_false(matches(f, add0, "a/"));  /* Add absent in a/: -1, not 0 */
  assert_string_equal(found(f), "-1");
  assert_true(matches(f, addm1, "a/"));
  assert_false(matches(f, addm1, "c/"));
  assert_false(matches(f, foo0, "a/")); /* a type the model never saw is absent too */
  assert_int_equal(f->res.fails[0].feature, 3);
  assert_int_equal(f->res.sub_type, TFX_NO_ID);
}

/* ASCEND.md §2.1 (step != 0): present and count % step == num. */
static void count_step_idiom(void **state) {
  vt *f = *state;
  const char *g[] = {"a/Sigmoid|Sigmoid", "a/Sigmoid_1|Sigmoid", "a/x/Sigmoid_2|Sigmoid", "a/Mul|Mul"};
  vt_model(f, g, TG_N(g));
  uint32_t s03 = one_test(f, TFX_OP_SC_STEP, "count Sigmoid % 3 == 0", KS(f, "Sigmoid"), 0, 3);
  uint32_t s02 = one_test(f, TFX_OP_SC_STEP, "count Sigmoid % 2 == 0", KS(f, "Sigmoid"), 0, 2);
  uint32_t s12 = one_test(f, TFX_OP_SC_STEP, "count Sigmoid % 2 == 1", KS(f, "Sigmoid"), 1, 2);
  uint32_t t01 = one_test(f, TFX_OP_SC_STEP, "count Tanh % 1 == 0", KS(f, "Tanh"), 0, 1);
  uint32_t tm1 = one_test(f, TFX_OP_SC_STEP, "count Tanh % 2 == -1", KS(f, "Tanh"), -1, 2);
  vt_finish_pack(f);
  assert_true(matches(f, s03, "a/"));
  assert_false(matches(f, s02, "a/"));
  assert_string_equal(found(f), "3");
  assert_true(matches(f, s12, "a/"));
  assert_false(matches(f, t01, "a/")); /* absent: -1 % 1 == 0 in C, but absent never matches */
  assert_false(matches(f, tm1, "a/")); /* -1 % 2 == -1 in C: still absent */
  assert_true(matches(f, s12, "a/x/"));
}

static void present_absent_noretval(void **state) {
  vt *f = *state;
  const char *g[] = {"a/Mul|Mul", "b/Add|Add", "b/out|_Retval|b/Add"};
  vt_model(f, g, TG_N(g));
  uint32_t pres = one_test(f, TFX_OP_SC_PRESENT, "present Mul", KS(f, "Mul"), 0, 0);
  uint32_t abs = one_test(f, TFX_OP_SC_ABSENT, "absent Mul", KS(f, "Mul"), 0, 0);
  uint32_t ret = one_test(f, TFX_OP_SC_NORETVAL, "no _Retval", 0, 0, 0);
  vt_finish_pack(f);
  assert_true(matches(f, pres, "a/"));
  assert_false(matches(f, pres, "b/"));
  assert_string_equal(found(f), "-1");
  assert_false(matches(f, abs, "a/"));
  assert_string_equal(found(f), "1");
  assert_true(matches(f, abs, "b/"));
  assert_true(matches(f, ret, "a/"));
  assert_false(matches(f, ret, "b/"));
  assert_string_equal(expected(f), "-1");
  assert_string_equal(found(f), "1");
}

/* ASCEND.md §2.2: NodeAttrFeature walks DIRECT nodes of the type in order. */
static void attr_walk(void **state) {
  vt *f = *state;
  const char *g[] = {
      "s1/Split|Split",     "s1/Split_1|Split", /* 2 then 4: unequal moves on */
      "s2/Split|Split",     "s2/Split_1|Split", /* missing then 4: fails at once */
      "s3/sub/Split|Split",                     /* not direct in s3/ */
      "s4/Sig|Sigmoid",     "s4/fmt|Conv2D",     "s4/mm|MatMul",
  };
  vt_graph(f, g, TG_N(g));
  vt_attr_i(f, "s1/Split", "num_split", 2);
  vt_attr_i(f, "s1/Split_1", "num_split", 4);
  vt_attr_i(f, "s2/Split_1", "num_split", 4);
  vt_attr_i(f, "s3/sub/Split", "num_split", 4);
  vt_attr_f(f, "s4/Sig", "alpha", 0.5f);
  vt_attr_s(f, "s4/fmt", "data_format", "NHWC");
  vt_attr_b(f, "s4/mm", "transpose_a", 0);
  vt_model_build(f);
  int64_t ns = KS(f, "num_split");
  uint32_t a4 = one_test(f, TFX_OP_SC_ATTR, "attr Split.num_split == 4", KS(f, "Split"), ns, tfx_asm_const_int(&f->as, 4));
  uint32_t a4s = one_test(f, TFX_OP_SC_ATTR, "attr Split.num_split == \"4\"", KS(f, "Split"), ns, KS(f, "4"));
  uint32_t fok = one_test(f, TFX_OP_SC_ATTR, "attr Sigmoid.alpha == 0.5000005", KS(f, "Sigmoid"), KS(f, "alpha"),
                          tfx_asm_const_float(&f->as, 0.5000005));
  uint32_t fbad = one_test(f, TFX_OP_SC_ATTR, "attr Sigmoid.alpha == 0.502", KS(f, "Sigmoid"), KS(f, "alpha"),
                           tfx_asm_const_float(&f->as, 0.502));
  uint32_t sok = one_test(f, TFX_OP_SC_ATTR, "attr Conv2D.data_format == \"NHWC\"", KS(f, "Conv2D"),
                          KS(f, "data_format"), KS(f, "NHWC"));
  uint32_t bok = one_test(f, TFX_OP_SC_ATTR, "attr MatMul.transpose_a == false", KS(f, "MatMul"),
                          KS(f, "transpose_a"), tfx_asm_const_bool(&f->as, 0));
  uint32_t bbad = one_test(f, TFX_OP_SC_ATTR, "attr MatMul.transpose_a == true", KS(f, "MatMul"),
                           KS(f, "transpose_a"), tfx_asm_const_bool(&f->as, 1));
  /* Another data type (dtype): matches once one node of the type exists, attr or not. */
  uint32_t other = one_test(f, TFX_OP_SC_ATTR, "attr MatMul.T == DT_FLOAT", KS(f, "MatMul"), KS(f, "T"),
                            tfx_asm_const_dtype(&f->as, 1));
  vt_finish_pack(f);
  assert_true(matches(f, a4, "s1/"));
  assert_false(matches(f, a4, "s2/"));
  assert_string_equal(found(f), "none");      /* the missing attribute */
  assert_false(matches(f, a4, "s3/"));         /* only direct nodes count */
  assert_false(matches(f, a4s, "s1/"));        /* int attr vs string value: GetAttr fails */
  assert_true(matches(f, fok, "s4/"));         /* |0.5 - 0.5000005| < 1e-6 */
  assert_false(matches(f, fbad, "s4/"));
  assert_string_equal(found(f), "0.5");
  assert_string_equal(expected(f), "0.502");
  assert_true(matches(f, sok, "s4/"));
  assert_true(matches(f, bok, "s4/"));
  assert_false(matches(f, bbad, "s4/"));
  assert_string_equal(found(f), "false");
  assert_true(matches(f, other, "s4/"));
  assert_false(matches(f, other, "s1/"));      /* no MatMul at all */
}

/* ASCEND.md §2.3: exactly n strict descendants carry the sub_type. */
static void subtype_count(void **state) {
  vt *f = *state;
  const char *g[] = {"rnn/while/cell/MatMul|MatMul", "rnn/while/cell_1/MatMul|MatMul", "rnn/x|Add",
                     "one/while/cell/MatMul|MatMul"};
  vt_model(f, g, TG_N(g));
  vt_set_subtype(f, "rnn/while/cell/", "cell");
  vt_set_subtype(f, "rnn/while/cell_1/", "cell");
  vt_set_subtype(f, "one/while/cell/", "cell");
  vt_set_subtype(f, "one/while/", "cell"); /* the scope itself is not counted from inside */
  uint32_t c1 = one_test(f, TFX_OP_SC_SUBTYPES, "scopes cell == 1", KS(f, "cell"), 1, 0);
  uint32_t c2 = one_test(f, TFX_OP_SC_SUBTYPES, "scopes cell == 2", KS(f, "cell"), 2, 0);
  vt_finish_pack(f);
  assert_true(matches(f, c2, "rnn/"));
  assert_true(matches(f, c2, "rnn/while/"));
  assert_false(matches(f, c1, "rnn/"));
  assert_string_equal(found(f), "2");
  assert_true(matches(f, c1, "one/while/"));
  assert_true(matches(f, c2, "one/"));
}

/* ASCEND.md §2.3, §1.3: the suffix must EQUAL LastName (trailing _N with N > 0 trimmed). */
static void name_is_lastname_equality(void **state) {
  vt *f = *state;
  const char *g[] = {"lstm_1/a|Add", "foo_lstm/a|Add", "lstm_0/a|Add", "x/lstm/a|Add"};
  vt_model(f, g, TG_N(g));
  uint32_t lstm = one_test(f, TFX_OP_SC_NAME, "name == \"lstm\"", KS(f, "lstm"), 0, 0);
  uint32_t lstm1 = one_test(f, TFX_OP_SC_NAME, "name == \"lstm_1\"", KS(f, "lstm_1"), 0, 0);
  uint32_t lstm0 = one_test(f, TFX_OP_SC_NAME, "name == \"lstm_0\"", KS(f, "lstm_0"), 0, 0);
  uint32_t empty = one_test(f, TFX_OP_SC_NAME, "name == \"\"", KS(f, ""), 0, 0);
  vt_finish_pack(f);
  assert_true(matches(f, lstm, "lstm_1/"));
  assert_false(matches(f, lstm1, "lstm_1/"));
  assert_string_equal(found(f), "\"lstm\"");
  assert_false(matches(f, lstm, "foo_lstm/")); /* not a suffix test */
  assert_string_equal(found(f), "\"foo_lstm\"");
  assert_false(matches(f, lstm, "lstm_0/"));   /* _0 is not trimmed */
  assert_true(matches(f, lstm0, "lstm_0/"));
  assert_true(matches(f, lstm, "x/lstm/"));
  assert_true(matches(f, empty, "foo_lstm/"));  /* an empty suffix tests nothing */
}

/* ASCEND.md §2.3: some strict descendant whose full name is longer than the mask has a LastName
 * containing the mask. */
static void sub_scope_mask(void **state) {
  vt *f = *state;
  const char *g[] = {"map/while/MultiClassNonMaxSuppression/a|Add", "m/while_1/a|Add", "while/a|Add"};
  vt_model(f, g, TG_N(g));
  uint32_t w = one_test(f, TFX_OP_SC_MASK, "has_child \"while\"", KS(f, "while"), 0, 0);
  uint32_t mc = one_test(f, TFX_OP_SC_MASK, "has_child \"MultiClass\"", KS(f, "MultiClass"), 0, 0);
  uint32_t w1 = one_test(f, TFX_OP_SC_MASK, "has_child \"while_1\"", KS(f, "while_1"), 0, 0);
  vt_finish_pack(f);
  assert_true(matches(f, w, "map/"));
  assert_true(matches(f, mc, "map/"));       /* substring of a deeper descendant */
  assert_true(matches(f, w, "m/"));          /* LastName of m/while_1/ is "while" */
  assert_false(matches(f, w1, "m/"));        /* ... which does not contain "while_1" */
  assert_false(matches(f, w, "while/"));     /* the scope itself is not a descendant */
  assert_string_equal(expected(f), "\"while\"");
}

/* SC_CHECK (expression features), MATCH's sub_type, and explain-all failure records. */
static void check_match_and_explain(void **state) {
  vt *f = *state;
  const char *g[] = {"batchnorm/Sub|Sub", "batchnorm/Mul|Mul", "batchnorm/Mul_1|Mul",
                     "LayerNorm/batchnorm/Rsqrt|Rsqrt"};
  vt_model(f, g, TG_N(g));
  tfx_asm *as = &f->as;
  uint32_t prog = tfx_asm_prog_begin(as, TFX_PK_SCOPE, TFX_PACK_NONE);
  uint32_t f0 = tfx_asm_feature(as, TFX_OP_SC_COUNT, "count Sub == 1", TFX_PACK_NONE, 0);
  uint32_t f1 = tfx_asm_feature(as, TFX_OP_SC_COUNT, "count Mul == 3", TFX_PACK_NONE, 0);
  uint32_t f2 = tfx_asm_feature(as, TFX_OP_SC_CHECK, "s.parent == none", TFX_PACK_NONE, 0);
  uint32_t f3 = tfx_asm_feature(as, TFX_OP_SC_NAME, "name == \"batchnorm\"", TFX_PACK_NONE, 0);
  uint32_t f4 = tfx_asm_feature(as, TFX_OP_SC_NORETVAL, NULL, TFX_PACK_NONE, 0);
  tfx_asm_emit(as, TFX_OP_SC_COUNT, f0, KS(f, "Sub"), 1);
  tfx_asm_emit(as, TFX_OP_SC_COUNT, f1, KS(f, "Mul"), 3);
  tfx_asm_emit(as, TFX_OP_PROP, 1, 0, TFX_PR_parent);
  tfx_asm_emit(as, TFX_OP_PROP, 1, 1, TFX_PR_parent); /* root's parent: none */
  tfx_asm_emit(as, TFX_OP_LOADNONE, 2, 0, 0);
  tfx_asm_emit(as, TFX_OP_EQ, 3, 1, 2);
  tfx_asm_emit(as, TFX_OP_SC_CHECK, f2, 3, 0);
  tfx_asm_emit(as, TFX_OP_SC_NAME, f3, KS(f, "batchnorm"), 0);
  tfx_asm_emit(as, TFX_OP_SC_NORETVAL, f4, 0, 0);
  tfx_asm_emit(as, TFX_OP_MATCH, KS(f, "batchnorm"), 0, 0);
  tfx_asm_prog_end(as);
  vt_finish_pack(f);
  /* Fails at the first failing feature by default. */
  assert_false(matches(f, prog, "batchnorm/"));
  assert_int_equal(f->res.n_fails, 1);
  assert_int_equal(f->res.fails[0].feature, f1);
  assert_string_equal(expected(f), "3");
  assert_string_equal(found(f), "2");
  /* Explain: every failing feature, then no match. */
  tfx_vm_set_flags(f->vm, TFX_VM_EXPLAIN_ALL);
  assert_false(matches(f, prog, "LayerNorm/batchnorm/"));
  assert_int_equal(f->res.n_fails, 3);
  assert_int_equal(f->res.n_failed, 3);
  assert_int_equal(f->res.fails[0].feature, f0);
  assert_int_equal(f->res.fails[1].feature, f1);
  assert_int_equal(f->res.fails[2].feature, f2);
  assert_string_equal(vt_val(f, &f->res.fails[2].found), "false");
  assert_int_equal(f->res.sub_type, TFX_NO_ID);
  tfx_vm_set_flags(f->vm, 0);
  /* A match returns the linked sub_type id (interned into the engine's table). */
  uint32_t st = tfx_intern_find(&f->subtypes, "batchnorm", 9);
  assert_int_not_equal(st, TFX_HASH_NONE);
  assert_int_equal(tfx_vm_const_subtype(f->vm, (uint32_t)KS(f, "batchnorm")), st);
}

static void check_match_success(void **state) {
  vt *f = *state;
  const char *g[] = {"a/batchnorm/Sub|Sub", "a/batchnorm/Mul|Mul", "a/batchnorm/Mul_1|Mul", "a/batchnorm/Mul_2|Mul"};
  vt_model(f, g, TG_N(g));
  tfx_asm *as = &f->as;
  uint32_t prog = tfx_asm_prog_begin(as, TFX_PK_SCOPE, TFX_PACK_NONE);
  tfx_asm_emit(as, TFX_OP_SC_COUNT, tfx_asm_feature(as, TFX_OP_SC_COUNT, NULL, TFX_PACK_NONE, 0), KS(f, "Mul"), 3);
  tfx_asm_emit(as, TFX_OP_SC_NAME, tfx_asm_feature(as, TFX_OP_SC_NAME, NULL, TFX_PACK_NONE, 0), KS(f, "batchnorm"), 0);
  tfx_asm_emit(as, TFX_OP_LOADB, 1, 1, 0);
  tfx_asm_emit(as, TFX_OP_SC_CHECK, tfx_asm_feature(as, TFX_OP_SC_CHECK, NULL, TFX_PACK_NONE, 0), 1, 0);
  tfx_asm_emit(as, TFX_OP_SC_NORETVAL, tfx_asm_feature(as, TFX_OP_SC_NORETVAL, NULL, TFX_PACK_NONE, 0), 0, 0);
  tfx_asm_emit(as, TFX_OP_MATCH, KS(f, "batchnorm"), 0, 0);
  tfx_asm_prog_end(as);
  vt_finish_pack(f);
  assert_true(matches(f, prog, "a/batchnorm/"));
  assert_int_equal(f->res.sub_type, tfx_intern_find(&f->subtypes, "batchnorm", 9));
  assert_int_equal(f->res.n_fails, 0);
  assert_false(matches(f, prog, "a/"));
}

/* Must run last. */
static void all_scope_opcodes_covered(void **state) {
  (void)state;
  for (unsigned op = 0; op < TFX_OP__COUNT; op++)
    if (tfx_vm_ops[op].progs == TFX_PK_SCOPE && !vt_covered[op])
      fail_msg("opcode %s never executed by test_vm_scope", tfx_vm_ops[op].name);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(count_absent_is_minus_one, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(count_step_idiom, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(present_absent_noretval, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(attr_walk, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(subtype_count, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(name_is_lastname_equality, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(sub_scope_mask, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(check_match_and_explain, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(check_match_success, vt_setup, vt_teardown),
      cmocka_unit_test(all_scope_opcodes_covered),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
