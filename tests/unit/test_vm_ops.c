/* Unit tests for the VM interpreter (src/vm/vm.c, lib.c): every value, control, effect and
 * map opcode, every builtin and property, run-time errors (type error, division by zero,
 * budgets, host failures) with the rule name and source line, the trace, and a final check
 * that the suite executed every non-scope opcode (scope tests live in test_vm_scope.c). */
#include "test_vm_util.h"

#define KI(f, i) ((int64_t)tfx_asm_const_int(&(f)->as, (i)))
#define KF(f, x) ((int64_t)tfx_asm_const_float(&(f)->as, (x)))
#define BI(name) ((int64_t)TFX_BI_##name)
#define PR(name) ((int64_t)TFX_PR_##name)

/* Emits `NEWLIST r99, r100, n; RET r99` for results collected in r100.. */
static void ret_results(vt *f, int n) {
  E(f, NEWLIST, 99, 100, n);
  E(f, RET, 99, 0, 0);
}

static void values_and_arith(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  E(f, NOP, 0, 0, 0);
  E(f, LOADI, 1, 7, 0);
  E(f, LOADI, 2, -2, 0);
  E(f, ADD, 100, 1, 2);
  E(f, SUB, 101, 1, 2);
  E(f, MUL, 102, 1, 2);
  E(f, DIV, 103, 1, 2);  /* truncates: -3 */
  E(f, MOD, 104, 1, 2);  /* sign of the dividend: 1 */
  E(f, NEG, 105, 1, 0);
  E(f, LOADK, 106, KF(f, 1.5), 0);
  E(f, ADD, 107, 1, 106); /* int + float -> float */
  E(f, LOADK, 108, KS(f, "ab"), 0);
  E(f, LOADK, 109, KS(f, "cd"), 0);
  E(f, ADD, 110, 108, 109);
  E(f, NEWLIST, 111, 1, 2);
  E(f, ADD, 112, 111, 111);
  E(f, LOADB, 113, 1, 0);
  E(f, LOADNONE, 114, 0, 0);
  E(f, MOVE, 115, 113, 0);
  E(f, LOADK, 116, KF(f, 7.0), 0);
  E(f, DIV, 117, 116, 2); /* float division */
  ret_results(f, 18);
  vt_run_ok(f, TFX_PK_SELECT, 0);
  assert_string_equal(vt_ret(f), "[5, 9, -14, -3, 1, -7, 1.5, 8.5, \"ab\", \"cd\", \"abcd\", [7, -2], "
                                 "[7, -2, 7, -2], true, none, true, 7.0, -3.5]");
}

static void compare_and_strings(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  E(f, LOADI, 1, 1, 0);
  E(f, LOADK, 2, KF(f, 1.0), 0);
  E(f, LOADK, 3, KS(f, "abc"), 0);
  E(f, LOADK, 4, KS(f, "abd"), 0);
  E(f, LOADK, 5, KS(f, "b"), 0);
  E(f, EQ, 100, 1, 2);       /* 1 == 1.0 */
  E(f, NE, 101, 3, 4);
  E(f, LT, 102, 3, 4);       /* bytewise */
  E(f, LE, 103, 1, 2);
  E(f, GT, 104, 1, 2);
  E(f, GE, 105, 4, 3);
  E(f, NOT, 106, 105, 0);
  E(f, CONTAINS, 107, 3, 5);
  E(f, STARTS, 108, 3, 5);
  E(f, ENDS, 109, 4, 5);
  E(f, NEWLIST, 6, 3, 2);    /* ["abc", "abd"] */
  E(f, IN, 110, 4, 6);
  E(f, IN, 111, 5, 6);
  E(f, NEWLIST, 7, 3, 2);
  E(f, EQ, 112, 6, 7);       /* deep list equality */
  E(f, LOADNONE, 8, 0, 0);
  E(f, EQ, 113, 8, 1);       /* none == 1 */
  E(f, CONTAINS, 114, 8, 5); /* none contains "b": false */
  E(f, EQ, 115, 1, 3);       /* int == string: false, no error */
  ret_results(f, 16);
  vt_run_ok(f, TFX_PK_SELECT, 0);
  assert_string_equal(vt_ret(f), "[true, true, true, true, false, true, false, true, false, false, "
                                 "true, false, true, false, false, false]");
}

/* `contains` and before()/after() find the first occurrence: a candidate whose first byte
 * matches but the rest does not, a match at the very end, the whole string, the empty needle,
 * a needle longer than the string, a byte past the string's end not read. */
static void substring_search(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  const char *cases[][2] = {{"abacabad", "abad"}, {"abacabad", "d"},   {"abc", "abc"}, {"abc", ""},
                            {"ab", "abc"},          {"aaaab", "aab"},  {"xyz", "a"},   {"a/b/while/c", "while"},
                            {"", ""},               {"", "a"}};
  int o = 100;
  for (int i = 0; i < 10; i++) {
    E(f, LOADK, 1, KS(f, cases[i][0]), 0);
    E(f, LOADK, 2, KS(f, cases[i][1]), 0);
    E(f, CONTAINS, o++, 1, 2);
  }
  E(f, LOADK, 1, KS(f, "x/batchnorm/y/batchnorm/z"), 0);
  E(f, LOADK, 2, KS(f, "batchnorm"), 0);
  E4(f, CALL, o++, BI(before), 1, 2);
  E4(f, CALL, o++, BI(after), 1, 2);
  /* "ab" taken from "abc" as a 2-byte string: "bc" must not be found past its end */
  E(f, LOADK, 3, KS(f, "abc"), 0);
  E(f, LOADI, 4, 0, 0);
  E(f, LOADI, 5, 2, 0);
  E4(f, SLICE, 6, 3, 4, 5);
  E(f, LOADK, 7, KS(f, "bc"), 0);
  E(f, CONTAINS, o++, 6, 7);
  E(f, LOADK, 7, KS(f, "b"), 0);
  E(f, CONTAINS, o++, 6, 7);
  ret_results(f, o - 100);
  vt_run_ok(f, TFX_PK_SELECT, 0);
  assert_string_equal(vt_ret(f), "[true, true, true, true, false, true, false, true, true, false, "
                                 "\"x/\", \"/y/batchnorm/z\", false, true]");
}

static void index_slice_perm_len(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  uint32_t e[6];
  for (int i = 0; i < 6; i++) e[i] = tfx_asm_const_int(&f->as, i * 10);
  E(f, LOADK, 1, tfx_asm_const_list(&f->as, e, 6), 0); /* [0, 10, 20, 30, 40, 50] */
  E(f, LOADI, 2, -1, 0);
  E(f, LOADI, 3, 6, 0);
  E(f, LOADI, 4, 2, 0);
  E(f, LOADNONE, 5, 0, 0);
  E(f, LOADK, 6, KS(f, "hello"), 0);
  E(f, INDEX, 100, 1, 2);          /* 50 */
  E(f, INDEX, 101, 1, 3);          /* out of range: none */
  E(f, INDEX, 102, 6, 4);          /* "l" */
  E4(f, SLICE, 103, 1, 4, 5);      /* [20, 30, 40, 50] */
  E4(f, SLICE, 104, 1, 5, 2);      /* [0, 10, 20, 30, 40] */
  E4(f, SLICE, 105, 6, 4, 3);      /* "llo" */
  E4(f, SLICE, 106, 1, 3, 4);      /* empty (lo > hi) */
  uint32_t pe[3] = {(uint32_t)KI(f, 3), (uint32_t)KI(f, 0), (uint32_t)KI(f, -1)};
  E(f, LOADK, 7, tfx_asm_const_list(&f->as, pe, 3), 0);
  E(f, PERM, 107, 1, 7);           /* [30, 0, 50] */
  E(f, LEN, 108, 1, 0);
  E(f, LEN, 109, 6, 0);
  E(f, LEN, 110, 5, 0);            /* len(none) = 0 */
  E(f, INDEX, 111, 5, 4);          /* none[2] = none */
  ret_results(f, 12);
  vt_run_ok(f, TFX_PK_SELECT, 0);
  assert_string_equal(vt_ret(f), "[50, none, \"l\", [20, 30, 40, 50], [0, 10, 20, 30, 40], \"llo\", [], "
                                 "[30, 0, 50], 6, 5, 0, none]");
}

static void control_flow_and_iteration(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  tfx_asm *as = &f->as;
  uint32_t e[4];
  for (int i = 0; i < 4; i++) e[i] = tfx_asm_const_int(as, i + 1);
  E(f, LOADK, 1, tfx_asm_const_list(as, e, 4), 0);
  E(f, LOADI, 2, 0, 0);
  E(f, LOADI, 9, 2, 0);
  E(f, LOADI, 10, 0, 0);
  E(f, LOADI, 11, 1, 0);
  /* count(v in L : v % 2 == 0) */
  uint32_t l1 = tfx_asm_label_new(as), d1 = tfx_asm_label_new(as);
  E(f, ITER, 3, 1, 0);
  tfx_asm_label_here(as, l1);
  E(f, NEXT, 3, 5, d1);
  E(f, MOD, 6, 5, 9);
  E(f, EQ, 7, 6, 10);
  E(f, JF, 7, l1, 0);
  E(f, ADD, 2, 2, 11);
  E(f, JMP, l1, 0, 0);
  tfx_asm_label_here(as, d1);
  /* first(v in L : v > 2) */
  uint32_t l2 = tfx_asm_label_new(as), d2 = tfx_asm_label_new(as);
  E(f, LOADNONE, 12, 0, 0);
  E(f, ITER, 3, 1, 0);
  tfx_asm_label_here(as, l2);
  E(f, NEXT, 3, 5, d2);
  E(f, GT, 7, 5, 9);
  E(f, JF, 7, l2, 0);
  E(f, MOVE, 12, 5, 0);
  E(f, JMP, d2, 0, 0);
  tfx_asm_label_here(as, d2);
  /* none ?? 7 */
  uint32_t l3 = tfx_asm_label_new(as);
  E(f, LOADNONE, 13, 0, 0);
  E(f, JSOME, 13, l3, 0);
  E(f, LOADI, 13, 7, 0);
  tfx_asm_label_here(as, l3);
  /* r12 == none ? "none" : "some" */
  uint32_t ln = tfx_asm_label_new(as), le = tfx_asm_label_new(as);
  E(f, JNONE, 12, ln, 0);
  E(f, LOADK, 14, KS(f, "some"), 0);
  E(f, JMP, le, 0, 0);
  tfx_asm_label_here(as, ln);
  E(f, LOADK, 14, KS(f, "none"), 0);
  tfx_asm_label_here(as, le);
  /* all(v in L : v > 0) */
  uint32_t l5 = tfx_asm_label_new(as), d5 = tfx_asm_label_new(as);
  E(f, LOADB, 15, 1, 0);
  E(f, ITER, 3, 1, 0);
  tfx_asm_label_here(as, l5);
  E(f, NEXT, 3, 5, d5);
  E(f, GT, 7, 5, 10);
  E(f, JT, 7, l5, 0);
  E(f, LOADB, 15, 0, 0);
  tfx_asm_label_here(as, d5);
  /* iterating none is an empty loop */
  uint32_t l6 = tfx_asm_label_new(as), d6 = tfx_asm_label_new(as);
  E(f, LOADNONE, 16, 0, 0);
  E(f, ITER, 3, 16, 0);
  tfx_asm_label_here(as, l6);
  E(f, NEXT, 3, 5, d6);
  E(f, LOADB, 16, 1, 0);
  E(f, JMP, l6, 0, 0);
  tfx_asm_label_here(as, d6);
  E(f, MOVE, 100, 2, 0);
  E(f, MOVE, 101, 12, 0);
  E(f, MOVE, 102, 13, 0);
  E(f, MOVE, 103, 14, 0);
  E(f, MOVE, 104, 15, 0);
  E(f, MOVE, 105, 16, 0);
  ret_results(f, 6);
  vt_run_ok(f, TFX_PK_SELECT, 0);
  assert_string_equal(vt_ret(f), "[2, 3, 7, \"some\", true, none]");
}

/* ---- model-based tests ---- */

static const char *g_model[] = {
    "x|Placeholder",
    "w|Const",
    "lstm_1/cell/MatMul|MatMul|x,w",
    "lstm_1/cell/Split|Split|lstm_1/cell/MatMul",
    "lstm_1/cell/Sigmoid|Sigmoid|lstm_1/cell/Split",
    "lstm_1/cell/Sigmoid_1|Sigmoid|lstm_1/cell/Split:1",
    "lstm_1/Add|Add|lstm_1/cell/Sigmoid,lstm_1/cell/Sigmoid_1",
    "out|Identity|lstm_1/Add,^x",
};

static void build_model(vt *f) {
  vt_graph(f, g_model, TG_N(g_model));
  vt_attr_i(f, "lstm_1/cell/Split", "num_split", 4);
  vt_attr_s(f, "lstm_1/cell/Split", "data_format", "NHWC");
  vt_attr_b(f, "lstm_1/cell/MatMul", "transpose_a", 0);
  int64_t pads[4] = {1, 2, 3, 4};
  vt_attr_ilist(f, "lstm_1/cell/MatMul", "pads", pads, 4);
  vt_attr_f(f, "lstm_1/cell/Sigmoid", "alpha", 0.5f);
  float w[2] = {1.5f, 2.5f};
  vt_attr_ftensor(f, "w", w, 2, 3);
  vt_model_build(f);
  vt_set_subtype(f, "lstm_1/cell/", "cell");
}

static void properties_and_attrs(void **state) {
  vt *f = *state;
  build_model(f);
  vt_begin(f, TFX_PK_MAP); /* r0 = lstm_1/cell/MatMul */
  E(f, PROP, 1, 0, PR(scope));
  E(f, PROP, 2, 1, PR(parent));
  E(f, MOVE, 100, 1, 0);
  E(f, PROP, 101, 1, PR(name));
  E(f, PROP, 102, 2, PR(last_name));     /* lstm_1/ -> "lstm" */
  E(f, PROP, 103, 2, PR(children));
  E(f, PROP, 104, 1, PR(sub_type));
  E(f, PROP, 105, 2, PR(sub_type));      /* none */
  E(f, PROP, 106, 2, PR(nodes));
  E(f, PROP, 107, 2, PR(all_nodes));
  E(f, PROP, 3, 2, PR(parent));          /* root */
  E(f, PROP, 108, 3, PR(name));
  E(f, PROP, 109, 3, PR(parent));        /* none */
  E(f, PROP, 110, 0, PR(name));
  E(f, PROP, 111, 0, PR(op));
  E(f, PROP, 112, 0, PR(inputs));
  E(f, ATTR, 113, 0, KS(f, "transpose_a"));
  E(f, ATTR, 114, 0, KS(f, "pads"));
  E(f, ATTR, 115, 0, KS(f, "missing"));
  E(f, LOADNONE, 4, 0, 0);
  E(f, ATTR, 116, 4, KS(f, "x"));        /* none.attr.x = none */
  E(f, PROP, 117, 4, PR(name));          /* none.name = none */
  ret_results(f, 18);
  vt_run_ok(f, TFX_PK_MAP, vt_node(f, "lstm_1/cell/MatMul"));
  assert_string_equal(vt_ret(f),
                      "[lstm_1/cell/, \"lstm_1/cell/\", \"lstm\", [lstm_1/cell/], \"cell\", none, "
                      "[lstm_1/Add], [lstm_1/cell/MatMul, lstm_1/cell/Split, lstm_1/cell/Sigmoid, "
                      "lstm_1/cell/Sigmoid_1, lstm_1/Add], \"root\", none, \"lstm_1/cell/MatMul\", "
                      "\"MatMul\", [x, w], false, [1, 2, 3, 4], none, none, none]");
}

static void attr_kinds(void **state) {
  vt *f = *state;
  build_model(f);
  vt_begin(f, TFX_PK_SELECT);
  E(f, LOADK, 1, KS(f, "cell"), 0);
  E4(f, CALL, 2, BI(scopes), 1, 1);
  E(f, LOADI, 3, 0, 0);
  E(f, INDEX, 4, 2, 3);                   /* lstm_1/cell/ */
  E(f, PROP, 5, 4, PR(nodes));
  E(f, LOADI, 3, 1, 0);
  E(f, INDEX, 6, 5, 3);                   /* Split */
  E(f, ATTR, 100, 6, KS(f, "num_split"));
  E(f, ATTR, 101, 6, KS(f, "data_format"));
  E(f, LOADI, 3, 2, 0);
  E(f, INDEX, 7, 5, 3);                   /* Sigmoid */
  E(f, ATTR, 102, 7, KS(f, "alpha"));
  E(f, ATTR, 7, 7, KS(f, "alpha"));
  E(f, LOADK, 8, KF(f, 0.5), 0);
  E(f, EQ, 103, 7, 8);                    /* float attr compares exactly with 0.5 */
  ret_results(f, 4);
  vt_run_ok(f, TFX_PK_SELECT, 0);
  assert_string_equal(vt_ret(f), "[4, \"NHWC\", 0.5, true]");
}

static void builtins_general(void **state) {
  vt *f = *state;
  build_model(f);
  vt_begin(f, TFX_PK_SELECT);
  int o = 100;
#define CALL1(name, k) (E(f, LOADK, 1, (k), 0), E4(f, CALL, o++, BI(name), 1, 1))
#define CALL2(name, k1, k2) (E(f, LOADK, 1, (k1), 0), E(f, LOADK, 2, (k2), 0), E4(f, CALL, o++, BI(name), 1, 2))
  CALL1(len, KS(f, "abc"));
  CALL1(int, KF(f, -2.9));
  CALL1(int, KS(f, "42"));
  CALL1(int, KS(f, "4x"));
  CALL1(float, KI(f, 3));
  CALL1(float, KS(f, "2.5"));
  CALL1(round, KF(f, 2.5));
  CALL1(round, KF(f, -2.5));
  CALL1(str, KF(f, 1.0));
  CALL1(str, tfx_asm_const_dtype(&f->as, 1));
  uint32_t le[2] = {(uint32_t)KI(f, 1), (uint32_t)KS(f, "a")};
  CALL1(str, tfx_asm_const_list(&f->as, le, 2));
  CALL2(before, KS(f, "a/batchnorm/x"), KS(f, "batchnorm"));
  CALL2(after, KS(f, "a/batchnorm/x"), KS(f, "batchnorm"));
  CALL2(before, KS(f, "abc"), KS(f, "z"));
  uint32_t kv[4] = {(uint32_t)KS(f, "a"), (uint32_t)KI(f, 1), (uint32_t)KS(f, "b"), (uint32_t)KI(f, 2)};
  CALL2(lookup, KS(f, "b"), tfx_asm_const_list(&f->as, kv, 4));
  CALL2(lookup, KS(f, "z"), tfx_asm_const_list(&f->as, kv, 4));
  CALL1(exists, tfx_asm_const_none(&f->as));
  /* scope values: s = scopes("cell")[0].parent = lstm_1/; root = s.parent */
  E(f, LOADK, 1, KS(f, "cell"), 0);
  E4(f, CALL, 10, BI(scopes), 1, 1);
  E(f, LOADI, 2, 0, 0);
  E(f, INDEX, 11, 10, 2);
  E(f, PROP, 12, 11, PR(parent));   /* lstm_1/ */
  E(f, PROP, 13, 12, PR(parent));   /* root */
  E(f, MOVE, o++, 10, 0);
#define CALLS(name, sreg, k) (E(f, MOVE, 1, (sreg), 0), E(f, LOADK, 2, (k), 0), E4(f, CALL, o++, BI(name), 1, 2))
  CALLS(scope, 12, KS(f, "cell/"));
  CALLS(scope, 12, KS(f, "nope/"));
  CALLS(scope, 13, KS(f, "lstm_1/"));   /* Ascend quirk: "rootlstm_1/" never exists */
  CALLS(node, 12, KS(f, "Add"));
  CALLS(find, 12, KS(f, "Sigmoid_1"));
  CALLS(find_contains, 12, KS(f, "Sig"));
  CALLS(find, 12, KS(f, "nothing"));
  /* node-based */
  E(f, MOVE, 1, 12, 0);
  E(f, LOADK, 2, KS(f, "cell/Split"), 0);
  E4(f, CALL, 14, BI(node), 1, 2);    /* Split */
  E(f, MOVE, 1, 14, 0);
  E4(f, CALL, o++, BI(consumers), 1, 1);
  E(f, MOVE, 1, 12, 0);
  E(f, LOADK, 2, KS(f, "cell/MatMul"), 0);
  E4(f, CALL, 15, BI(node), 1, 2);    /* MatMul */
  E(f, MOVE, 1, 15, 0);
  E4(f, CALL, o++, BI(producers), 1, 1);
  E4(f, CALL, o++, BI(const_value), 1, 1); /* via its Const input w */
  E(f, MOVE, 1, 15, 0);
  E(f, MOVE, 2, 12, 0);
  E4(f, CALL, o++, BI(inside), 1, 2);
  E(f, MOVE, 1, 15, 0);
  E(f, MOVE, 2, 11, 0);
  E(f, PROP, 2, 14, PR(scope));
  E4(f, CALL, o++, BI(inside), 1, 2);
  int n = o - 100;
  ret_results(f, n);
  vt_run_ok(f, TFX_PK_SELECT, 0);
  assert_string_equal(vt_ret(f),
                      "[3, -2, 42, none, 3.0, 2.5, 3, -3, \"1.0\", \"DT_FLOAT\", \"[1, \\\"a\\\"]\", "
                      "\"a/\", \"/x\", none, 2, none, false, [lstm_1/cell/], lstm_1/cell/, none, none, "
                      "lstm_1/Add, lstm_1/cell/Sigmoid_1, lstm_1/cell/Sigmoid, none, "
                      "[lstm_1/cell/Sigmoid, lstm_1/cell/Sigmoid_1], [x, w], [1.5, 2.5, 2.5], true, true]");
#undef CALL1
#undef CALL2
#undef CALLS
}

static void builtins_map_and_effects(void **state) {
  vt *f = *state;
  build_model(f);
  vt_begin(f, TFX_PK_MAP); /* r0 = MatMul */
  int o = 100;
  E(f, LOADI, 1, 0, 0);
  E4(f, CALL, o++, BI(format_of), 1, 1);
  E4(f, CALL, o++, BI(dtype_of), 1, 1);
  E(f, LOADI, 1, 1, 0);
  E4(f, CALL, o++, BI(format_of), 1, 1);
  E4(f, CALL, o++, BI(has_input), 1, 1);
  E(f, LOADI, 1, 2, 0);
  E4(f, CALL, o++, BI(has_input), 1, 1);
  E4(f, CALL, o++, BI(n_inputs), 1, 0);
  E4(f, CALL, o++, BI(op), 1, 0);
  E(f, LOADK, 2, KS(f, "MatMulV2"), 0);
  E(f, MAP_TYPE, 2, 0, 0);
  E(f, MAP_AUTO, 0, 0, 0);
  E(f, ATTR, 3, 0, KS(f, "transpose_a"));
  E(f, MAP_ATTR, KS(f, "transpose_x1"), 3, 0);
  E(f, MAP_DROP, KS(f, "transpose_a"), 0, 0);
  E(f, LOADK, 4, KS(f, "HWCN"), 0);
  E(f, LOADI, 5, 1, 0);
  E(f, MAP_FORMAT, 0, 5, 4);
  E(f, MAP_PORT, 0, KS(f, "x2"), 5);
  E(f, LOADB, 6, 0, 0);
  E(f, MAP_OPTIONAL, KS(f, "bias"), 5, 6);
  E(f, ATTR, 7, 0, KS(f, "pads"));
  E(f, MAP_DYNAMIC, 1, KS(f, "y"), 7);
  E(f, MAP_DELETE, 5, 0, 0);
  /* op -> graph: inner nodes */
  E(f, LOADK, 8, KS(f, "e"), 0);
  E(f, LOADK, 9, KS(f, "Exp"), 0);
  E(f, NODE_NEW, 8, 9, 0);
  E(f, LOADNONE, 10, 0, 0);
  E(f, LOADI, 11, 0, 0);
  E(f, NODE_IN, 10, 11, 0);
  E(f, NODE_IN, 8, 11, 0);
  E(f, LOADK, 12, KF(f, 1.0), 0);
  E(f, NODE_CONST, 12, 0, 0);
  E(f, NODE_ATTR, KS(f, "T"), 12, 0);
  E(f, NODE_FORMAT, 1, 11, 4);
  E(f, NODE_OUT, 11, 8, 11);
  ret_results(f, o - 100);
  vt_run_ok(f, TFX_PK_MAP, vt_node(f, "lstm_1/cell/MatMul"));
  assert_string_equal(vt_ret(f), "[\"NCHW\", DT_FLOAT, none, true, false, 2, \"MatMul\"]");
  assert_string_equal(tfx_sb_cstr(&f->log),
                      "map_type MatMulV2\n"
                      "map_auto\n"
                      "map_attr transpose_x1=false\n"
                      "map_drop transpose_a\n"
                      "map_format in 1 HWCN\n"
                      "map_port in x2=1\n"
                      "map_optional bias=1 unconnected\n"
                      "map_dynamic out y count 4\n"
                      "map_delete 1\n"
                      "node e:Exp\n"
                      "node_in in 0\n"
                      "node_in e:0\n"
                      "node_const 1.0\n"
                      "node_attr T=1.0\n"
                      "node_format out 0 HWCN\n"
                      "node_out 0=e:0\n");
}

/* Dataflow rewrite opcodes (map programs of `rewrite` rules): a failing DF_CHECK records the
 * failure and jumps; the effects reach the host; input_port / input_ref read an edge. */
static void dataflow_effects(void **state) {
  vt *f = *state;
  build_model(f);
  vt_begin(f, TFX_PK_MAP); /* r0 = MatMul (inputs x, w) */
  uint32_t fid = tfx_asm_feature(&f->as, TFX_OP_DF_CHECK, "m: op is Conv2D", TFX_PACK_NONE, 0);
  uint32_t fid2 = tfx_asm_feature(&f->as, TFX_OP_DF_CHECK, "m: op is MatMul", TFX_PACK_NONE, 0);
  uint32_t no = tfx_asm_label_new(&f->as), go = tfx_asm_label_new(&f->as);
  E(f, PROP, 1, 0, TFX_PR_op);
  E(f, LOADK, 2, KS(f, "Conv2D"), 0);
  E(f, EQ, 3, 1, 2);
  E4(f, DF_CHECK, fid, 3, 1, no); /* fails: recorded, jumps */
  E(f, LOADB, 4, 0, 0);
  E(f, RET, 4, 0, 0);
  tfx_asm_label_here(&f->as, no);
  E(f, LOADK, 2, KS(f, "MatMul"), 0);
  E(f, EQ, 3, 1, 2);
  E4(f, DF_CHECK, fid2, 3, 1, go); /* holds: falls through */
  tfx_asm_label_here(&f->as, go);
  E(f, MOVE, 10, 0, 0);
  E(f, LOADI, 11, 1, 0);
  E4(f, CALL, 5, BI(input_port), 10, 2);
  E4(f, CALL, 6, BI(input_ref), 10, 2);
  E(f, LOADI, 11, 7, 0);
  E4(f, CALL, 7, BI(input_ref), 10, 2); /* no input 7: none */
  E(f, LOADK, 8, KS(f, "f"), 0);
  E(f, LOADK, 9, KS(f, "Relu"), 0);
  E(f, NODE_NEW, 8, 9, 0);
  E(f, LOADI, 11, 0, 0);
  E(f, DF_IN, 0, 11, 0);
  E(f, LOADI, 12, 0, 0);
  E4(f, DF_OUT, 0, 12, 8, 12);
  E4(f, DF_OUT, 0, 12, 0, 11);
  E(f, DF_DEL, 0, 0, 0);
  E(f, NEWLIST, 13, 5, 3);
  E(f, RET, 13, 0, 0);
  vt_run_ok(f, TFX_PK_MAP, vt_node(f, "lstm_1/cell/MatMul"));
  assert_string_equal(vt_ret(f), "[0, \"w\", none]");
  assert_int_equal(f->res.n_fails, 1);
  assert_int_equal(f->res.fails[0].feature, fid);
  assert_string_equal(tfx_sb_cstr(&f->log),
                      "node f:Relu\n"
                      "flow_in lstm_1/cell/MatMul:0\n"
                      "flow_out lstm_1/cell/MatMul:0=f:0\n"
                      "flow_out lstm_1/cell/MatMul:0=input 0 of lstm_1/cell/MatMul\n"
                      "flow_remove lstm_1/cell/MatMul\n");
}

/* scopes(...) with a host that lists the dfs positions that may have a sub_type (host.h
 * `subtyped`): the same list as a sweep of every scope when the list covers them (extra
 * positions are tested, not taken), and the same steps charged; a position left out is not
 * read (the builtin trusts the list: what the fusion engine relies on for speed). */
static void scopes_from_subtyped_list(void **state) {
  vt *f = *state;
  build_model(f);
  vt_set_subtype(f, "lstm_1/", "cell");
  vt_begin(f, TFX_PK_SELECT);
  E(f, LOADK, 1, KS(f, "cell"), 0);
  E4(f, CALL, 2, BI(scopes), 1, 1);
  E(f, RET, 2, 0, 0);
  vt_finish(f);
  uint32_t lstm = vt_scope(f, "lstm_1/"), cell = vt_scope(f, "lstm_1/cell/");
  uint32_t d_root = f->t.scopes[0].dfs_index, d_lstm = f->t.scopes[lstm].dfs_index,
           d_cell = f->t.scopes[cell].dfs_index;
  assert_true(d_root < d_lstm && d_lstm < d_cell);
  /* no list: every scope is swept */
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), 0);
  assert_string_equal(vt_ret(f), "[lstm_1/, lstm_1/cell/]");
  uint64_t steps = f->res.steps;
  assert_int_equal(f->typed_calls, 1);
  /* exactly the typed scopes; a superset (the root has no sub_type) */
  uint32_t exact[2] = {d_lstm, d_cell}, super[3] = {d_root, d_lstm, d_cell}, part[1] = {d_cell};
  f->typed_set = 1;
  f->typed = exact;
  f->n_typed = 2;
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), 0);
  assert_string_equal(vt_ret(f), "[lstm_1/, lstm_1/cell/]");
  assert_int_equal(f->res.steps, steps);
  f->typed = super;
  f->n_typed = 3;
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), 0);
  assert_string_equal(vt_ret(f), "[lstm_1/, lstm_1/cell/]");
  assert_int_equal(f->res.steps, steps);
  /* the list is what is read */
  f->typed = part;
  f->n_typed = 1;
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), 0);
  assert_string_equal(vt_ret(f), "[lstm_1/cell/]");
  f->n_typed = 0;
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), 0);
  assert_string_equal(vt_ret(f), "[]");
  assert_int_equal(f->typed_calls, 5);
}

static void selection_effects(void **state) {
  vt *f = *state;
  build_model(f);
  vt_begin(f, TFX_PK_SELECT);
  E(f, LOADK, 1, KS(f, "cell"), 0);
  E4(f, CALL, 2, BI(scopes), 1, 1);
  E(f, FR_BEGIN, 0, 0, 0);
  E(f, FR_SCOPES, 2, 0, 0);
  E(f, LOADK, 3, KS(f, "lstm_1/cell"), 0);
  E(f, FR_NAME, 3, 0, 0);
  E(f, LOADK, 3, KS(f, "BasicLSTMCell"), 0);
  E(f, FR_TYPE, 3, 0, 0);
  E(f, LOADK, 3, KS(f, "a cell"), 0);
  E(f, FR_DESC, 3, 0, 0);
  E(f, LOADK, 3, KS(f, "MatMul"), 0);
  E(f, LOADI, 4, 0, 0);
  E(f, LOADI, 5, 1, 0);
  E(f, LOADNONE, 6, 0, 0);
  E(f, FR_KEY, 0, 3, 1); /* the statement's key (optional): accepted, not logged */
  E(f, FR_INPUT, 3, 4, 5);
  E(f, FR_INPUT, 3, 5, 6); /* none -> dropped edge (-1) */
  E(f, LOADK, 3, KS(f, "Add"), 0);
  E(f, FR_OUTPUT, 3, 4, 4);
  E(f, LOADI, 7, 0, 0);
  E(f, INDEX, 8, 2, 7);
  E(f, PROP, 9, 8, PR(nodes));
  E(f, FR_ABSORB, 9, 0, 0);
  E(f, FR_ATTR, KS(f, "forget_bias"), 5, 0);
  E(f, LOADK, 3, KS(f, "unsupported"), 0);
  E(f, FR_INVALID, 3, 0, 0);
  E(f, FR_END, 0, 0, 0);
  E(f, HALT, 0, 0, 0);
  vt_run_ok(f, TFX_PK_SELECT, 0);
  assert_string_equal(vt_ret(f), "none");
  assert_string_equal(tfx_sb_cstr(&f->log),
                      "begin\n"
                      "scopes lstm_1/cell/\n"
                      "name lstm_1/cell\n"
                      "type BasicLSTMCell\n"
                      "desc a cell\n"
                      "input MatMul 0->1\n"
                      "input MatMul 1->-1\n"
                      "output Add 0->0\n"
                      "absorb lstm_1/cell/MatMul lstm_1/cell/Split lstm_1/cell/Sigmoid lstm_1/cell/Sigmoid_1\n"
                      "attr forget_bias=1\n"
                      "invalid unsupported\n"
                      "end\n");
}

/* ---- errors ---- */

static const tfx_diag_item *only_error(vt *f) {
  assert_int_equal(f->d.errors, 1);
  return &f->d.items[0];
}

static void type_error_names_rule_and_line(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  E(f, LOADI, 1, 1, 0);
  LOC(f, 12);
  E(f, LOADK, 2, KS(f, "x"), 0);
  E(f, ADD, 3, 1, 2);
  E(f, RET, 3, 0, 0);
  vt_finish(f);
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), TFX_EXIT_FAIL);
  const tfx_diag_item *it = only_error(f);
  assert_string_equal(it->file, "t.rule");
  assert_int_equal(it->line, 12);
  assert_string_equal(it->msg, "rule 'R': type error: cannot add int and string");
}

static void runtime_errors(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  E(f, LOADI, 1, 1, 0);
  E(f, LOADI, 2, 0, 0);
  LOC(f, 20);
  E(f, DIV, 3, 1, 2);
  E(f, RET, 3, 0, 0);
  vt_finish(f);
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), TFX_EXIT_FAIL);
  const tfx_diag_item *it = only_error(f);
  assert_int_equal(it->line, 20);
  assert_string_equal(it->msg, "rule 'R': division by zero");
}

static void condition_must_be_bool(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  uint32_t l = tfx_asm_label_new(&f->as);
  E(f, LOADI, 1, 1, 0);
  E(f, JT, 1, l, 0);
  tfx_asm_label_here(&f->as, l);
  E(f, HALT, 0, 0, 0);
  vt_finish(f);
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), TFX_EXIT_FAIL);
  assert_true(TG_ERR(&f->d, "rule 'R'", "type error: a condition must be bool, not int"));
}

static void step_budget_names_rule_and_line(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  uint32_t l = tfx_asm_label_new(&f->as);
  LOC(f, 7);
  tfx_asm_label_here(&f->as, l);
  E(f, JMP, l, 0, 0);
  vt_finish(f);
  tfx_vm_set_budget(f->vm, 1000, 0);
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), TFX_EXIT_FAIL);
  const tfx_diag_item *it = only_error(f);
  assert_string_equal(it->file, "t.rule");
  assert_int_equal(it->line, 7);
  assert_string_equal(it->msg, "rule 'R': step budget of 1000 exceeded (raise the vm-steps limit "
                               "with --limit vm-steps=N or --vm-budget N)");
  assert_int_equal(f->res.steps, 1001);
}

static void memory_budget(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  uint32_t l = tfx_asm_label_new(&f->as);
  E(f, LOADK, 1, KS(f, "0123456789abcdef"), 0);
  tfx_asm_label_here(&f->as, l);
  LOC(f, 30);
  E(f, ADD, 1, 1, 1); /* doubles each time */
  E(f, JMP, l, 0, 0);
  vt_finish(f);
  tfx_vm_set_budget(f->vm, 0, 1 << 20);
  /* a limit of the rule's run (TFX_E_FAIL), not out of memory (TFX_E_NOMEM) */
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), TFX_E_FAIL);
  const tfx_diag_item *it = only_error(f);
  assert_int_equal(it->line, 30);
  assert_string_equal(it->msg, "rule 'R': memory budget of 1048576 bytes exceeded");
  /* The VM is reusable after a failed run: the heap is rewound. */
  tfx_diag_clear(&f->d);
  tfx_vm_set_budget(f->vm, 10, 1 << 20);
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), TFX_EXIT_FAIL);
  assert_true(TG_ERR(&f->d, "step budget of 10 exceeded"));
}

static void host_errors(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  LOC(f, 40);
  E(f, FR_BEGIN, 0, 0, 0);
  E(f, HALT, 0, 0, 0);
  vt_finish(f);
  f->fail_effect = 1;
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), TFX_EXIT_FAIL);
  assert_string_equal(only_error(f)->msg, "rule 'R': FR_BEGIN failed");
  tfx_diag_clear(&f->d);
  /* a host that ran out of memory: the run's status is TFX_E_NOMEM and the VM adds nothing
   * (the host reports its own failure, host.h) */
  f->fail_effect = TFX_E_NOMEM;
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), TFX_E_NOMEM);
  assert_int_equal(f->d.errors, 0);
  f->fail_effect = 1;
  tfx_vm_host none;
  memset(&none, 0, sizeof none);
  tfx_vm_set_host(f->vm, &none, f);
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), TFX_EXIT_FAIL);
  assert_string_equal(only_error(f)->msg, "rule 'R': FR_BEGIN is not supported by this host");
  assert_int_equal(only_error(f)->line, 40);
}

static void misc_type_errors(void **state) {
  vt *f = *state;
  /* Each case: a tiny program whose last instruction fails with the given message. */
  static const struct {
    int op;
    const char *msg;
  } cases[] = {
      {TFX_OP_NEG, "type error: cannot negate string"},
      {TFX_OP_LT, "type error: cannot order string and int"},
      {TFX_OP_NOT, "type error: the operand of 'not' must be bool, not string"},
      {TFX_OP_PERM, "type error: cannot permute string and int"},
      {TFX_OP_CONTAINS, "type error: contains needs strings, not string and int"},
      {TFX_OP_FR_NAME, "type error: a result name must be string, not int"},
  };
  for (size_t i = 0; i < TG_N(cases); i++) {
    tfx_asm_free(&f->as);
    tfx_asm_init(&f->as);
    tfx_pack_free(&f->p);
    tfx_vm_free(f->vm);
    f->vm = NULL;
    tfx_diag_clear(&f->d);
    vt_begin(f, TFX_PK_SELECT);
    E(f, LOADK, 1, KS(f, "s"), 0);
    E(f, LOADI, 2, 3, 0);
    if (cases[i].op == TFX_OP_FR_NAME) E(f, FR_NAME, 2, 0, 0);
    else tfx_asm_emit(&f->as, (tfx_opcode)cases[i].op, 3, 1, 2);
    E(f, HALT, 0, 0, 0);
    vt_finish(f);
    assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), TFX_EXIT_FAIL);
    assert_true(TG_ERR(&f->d, cases[i].msg));
  }
}

static void trace_output(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  LOC(f, 3);
  E(f, LOADI, 1, 2, 0);
  E(f, LOADK, 2, KS(f, "two"), 0);
  LOC(f, 4);
  E(f, RET, 2, 0, 0);
  f->tracing = 1;
  vt_run_ok(f, TFX_PK_SELECT, 0);
  assert_string_equal(tfx_sb_cstr(&f->trace),
                      "[t.rule:3] 0000  LOADI       r1, #2\n"
                      "[t.rule:3] 0003  LOADK       r2, k2                  ; \"two\"\n"
                      "[t.rule:4] 0006  RET         r2  | r2=\"two\"\n");
}

static void runs_are_independent(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  /* r1 starts none in every run, whatever the previous run left there */
  uint32_t l = tfx_asm_label_new(&f->as);
  E(f, JSOME, 1, l, 0);
  E(f, LOADK, 1, KS(f, "first"), 0);
  E(f, RET, 1, 0, 0);
  tfx_asm_label_here(&f->as, l);
  E(f, LOADK, 1, KS(f, "again"), 0);
  E(f, RET, 1, 0, 0);
  vt_run_ok(f, TFX_PK_SELECT, 0);
  assert_string_equal(vt_ret(f), "\"first\"");
  assert_int_equal(vt_run_prog(f, f->prog, TFX_PK_SELECT, 0), 0);
  assert_string_equal(vt_ret(f), "\"first\"");
}

/* Must run last: every opcode allowed outside scope programs was executed above. */
static void all_non_scope_opcodes_covered(void **state) {
  (void)state;
  for (unsigned op = 0; op < TFX_OP__COUNT; op++)
    if (tfx_vm_ops[op].progs != TFX_PK_SCOPE && !vt_covered[op])
      fail_msg("opcode %s never executed by test_vm_ops", tfx_vm_ops[op].name);
}

/* The same program, which doubles a string until something gives: over the heap budget it is
 * a limit of the rule (TFX_E_FAIL, "memory budget ... exceeded"); when an allocation fails
 * under the budget it is out of memory (TFX_E_NOMEM, "out of memory"). Same exit code (1,
 * docs/CLI.md), different statuses and messages. Every allocation of a run is failed in turn:
 * each is out of memory, never the budget. */
/* A new VM for f's pack (no heap chunks yet), linked without a model. */
static void fresh_vm(vt *f) {
  tfx_vm_free(f->vm);
  f->vm = tfx_vm_new(&f->p);
  assert_non_null(f->vm);
  tfx_vm_set_host(f->vm, &vt_host, f);
  assert_int_equal(tfx_vm_link(f->vm, NULL, NULL, NULL, &f->subtypes, &f->d), 0);
}

static void heap_budget_is_not_out_of_memory(void **state) {
  vt *f = *state;
  vt_begin(f, TFX_PK_SELECT);
  uint32_t l = tfx_asm_label_new(&f->as);
  E(f, LOADK, 1, KS(f, "0123456789abcdef"), 0);
  tfx_asm_label_here(&f->as, l);
  LOC(f, 30);
  E(f, ADD, 1, 1, 1);
  E(f, JMP, l, 0, 0);
  vt_finish(f);
  fresh_vm(f);
  tfx_vm_set_budget(f->vm, 0, 1 << 20);
  tfx_alloc_fail_at(0);
  tfx_status budget = vt_run_prog(f, f->prog, TFX_PK_SELECT, 0);
  long total = tfx_alloc_calls(); /* the allocations of one run up to the budget */
  assert_int_equal(budget, TFX_E_FAIL);
  assert_string_equal(only_error(f)->msg, "rule 'R': memory budget of 1048576 bytes exceeded");
  assert_true(total > 0);
  for (long at = 1; at <= total; at++) {
    tfx_diag_clear(&f->d);
    fresh_vm(f);
    tfx_vm_set_budget(f->vm, 0, 1 << 20);
    tfx_alloc_fail_at(at);
    tfx_status st = vt_run_prog(f, f->prog, TFX_PK_SELECT, 0);
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    assert_true(hits > 0);
    if (st != TFX_E_NOMEM) fail_msg("allocation %ld failed: status %d, want TFX_E_NOMEM", at, st);
    assert_true(TG_ERR(&f->d, "rule 'R'", "out of memory"));
    assert_false(TG_ERR(&f->d, "budget"));
  }
  assert_int_equal(tfx_status_exit_code(TFX_E_FAIL), tfx_status_exit_code(TFX_E_NOMEM));
  assert_string_not_equal(tfx_status_name(TFX_E_FAIL), tfx_status_name(TFX_E_NOMEM));
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
        cmocka_unit_test_setup_teardown(heap_budget_is_not_out_of_memory, vt_setup, vt_teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(values_and_arith, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(compare_and_strings, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(index_slice_perm_len, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(control_flow_and_iteration, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(properties_and_attrs, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(attr_kinds, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(builtins_general, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(builtins_map_and_effects, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(dataflow_effects, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(scopes_from_subtyped_list, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(substring_search, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(selection_effects, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(type_error_names_rule_and_line, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(runtime_errors, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(condition_must_be_bool, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(step_budget_names_rule_and_line, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(memory_budget, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(host_errors, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(misc_type_errors, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(trace_output, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(runs_are_independent, vt_setup, vt_teardown),
      cmocka_unit_test(all_non_scope_opcodes_covered),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
