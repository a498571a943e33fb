/* Unit tests for external weight files (src/ge/external.c): the decision with the default
 * threshold (2 GiB - 1) on models whose Const tensors *claim* gigabytes -- only the lengths are
 * read, so no memory is used -- and the edit of a separated Const (empty data, `location`,
 * `length`, GE's file names with regulated characters and clash suffixes). The CLI path, the
 * written files and GE's loader are in tests/cli/external_weights.sh. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "ge/ge.h"
#include "util/arena.h"

static uint8_t bytes[64]; /* what every Const points at; long lengths are never read */

static Ge__Proto__OpDef *const_op(tfx_arena *A, const char *name, const char *type, size_t len) {
  Ge__Proto__OpDef *op = tfx_arena_calloc(A, 1, sizeof *op);
  Ge__Proto__TensorDef *t = tfx_arena_calloc(A, 1, sizeof *t);
  Ge__Proto__TensorDescriptor *desc = tfx_arena_calloc(A, 1, sizeof *desc);
  Ge__Proto__AttrDef *v = tfx_arena_calloc(A, 1, sizeof *v);
  Ge__Proto__OpDef__AttrEntry *e = tfx_arena_calloc(A, 1, sizeof *e);
  Ge__Proto__OpDef__AttrEntry **es = tfx_arena_calloc(A, 1, sizeof *es);
  assert_true(op && t && desc && v && e && es);
  ge__proto__op_def__init(op);
  ge__proto__tensor_def__init(t);
  ge__proto__tensor_descriptor__init(desc);
  ge__proto__attr_def__init(v);
  ge__proto__op_def__attr_entry__init(e);
  op->name = tfx_arena_strdup(A, name);
  op->type = tfx_arena_strdup(A, type);
  desc->dtype = GE__PROTO__DATA_TYPE__DT_UINT8;
  t->desc = desc;
  t->data.data = bytes;
  t->data.len = len;
  v->value_case = GE__PROTO__ATTR_DEF__VALUE_T;
  v->t = t;
  e->key = tfx_arena_strdup(A, "value");
  e->value = v;
  es[0] = e;
  op->attr = es;
  op->n_attr = 1;
  return op;
}

static void model(tfx_ge_model *gm, const char *name, Ge__Proto__OpDef **ops, size_t n) {
  Ge__Proto__ModelDef *m = tfx_arena_calloc(&gm->arena, 1, sizeof *m);
  Ge__Proto__GraphDef *g = tfx_arena_calloc(&gm->arena, 1, sizeof *g);
  Ge__Proto__GraphDef **gs = tfx_arena_calloc(&gm->arena, 1, sizeof *gs);
  assert_true(m && g && gs);
  ge__proto__model_def__init(m);
  ge__proto__graph_def__init(g);
  m->name = tfx_arena_strdup(&gm->arena, name);
  g->name = tfx_arena_strdup(&gm->arena, name);
  g->op = ops;
  g->n_op = n;
  gs[0] = g;
  m->graph = gs;
  m->n_graph = 1;
  gm->model = m;
}

static const Ge__Proto__AttrDef *attr(const Ge__Proto__OpDef *op, const char *key) {
  for (size_t k = 0; k < op->n_attr; k++)
    if (strcmp(op->attr[k]->key, key) == 0) return op->attr[k]->value;
  return NULL;
}

/* default threshold: 2 GiB of weights must go out, 1 GiB (a model under 2 GiB) must not */
static void default_threshold(void **state) {
  (void)state;
  assert_int_equal(tfx_ge_external_default(), (size_t)INT_MAX);
  tfx_diag d;
  tfx_diag_init(&d);
  for (int big = 0; big < 2; big++) {
    tfx_ge_model gm = {0}; /* model_free also frees .air (streaming lowering) */
    tfx_arena_init(&gm.arena);
    size_t len = big ? (size_t)1 << 31 : (size_t)1 << 30;
    Ge__Proto__OpDef **ops = tfx_arena_calloc(&gm.arena, 2, sizeof *ops);
    ops[0] = const_op(&gm.arena, "w", "Const", len);
    ops[1] = const_op(&gm.arena, "b", "Const", 16);
    model(&gm, "m", ops, 2);
    tfx_ge_external x;
    assert_int_equal(tfx_ge_externalize(&gm, 0, &x, &d), 0);
    if (!big) {
      assert_int_equal(x.n, 0);
      assert_int_equal(ops[0]->n_attr, 1);
      assert_int_equal(ops[0]->attr[0]->value->t->data.len, len);
    } else {
      /* every Const with data moves (GE's rule), the small one too */
      assert_int_equal(x.n, 2);
      assert_string_equal(x.files[0].path, "air_weight/m/Const_m_w_file");
      assert_int_equal(x.files[0].len, len);
      assert_ptr_equal(x.files[0].data, bytes);
      assert_string_equal(x.files[1].path, "air_weight/m/Const_m_b_file");
      const Ge__Proto__AttrDef *v = attr(ops[0], "value"), *l = attr(ops[0], "length"),
                               *p = attr(ops[0], "location");
      assert_non_null(v);
      assert_non_null(l);
      assert_non_null(p);
      assert_int_equal(v->t->data.len, 0);
      assert_int_equal(l->i, (int64_t)len);
      assert_int_equal(p->s.len, strlen("air_weight/m/Const_m_w_file"));
      assert_memory_equal(p->s.data, "air_weight/m/Const_m_w_file", p->s.len);
      /* attrs stay sorted by key */
      assert_string_equal(ops[0]->attr[0]->key, "length");
      assert_string_equal(ops[0]->attr[1]->key, "location");
      assert_string_equal(ops[0]->attr[2]->key, "value");
    }
    tfx_ge_external_free(&x);
    tfx_ge_model_free(&gm);
  }
  assert_false(tfx_diag_has_errors(&d));
  tfx_diag_free(&d);
}

/* a lower threshold; GE's name regulation ('/', '\\', '.' -> '_'); clashes get _2, _3; ops
 * without data and non-Const ops stay */
static void names_and_threshold(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ge_model gm = {0}; /* model_free also frees .air (streaming lowering) */
  tfx_arena_init(&gm.arena);
  Ge__Proto__OpDef **ops = tfx_arena_calloc(&gm.arena, 6, sizeof *ops);
  ops[0] = const_op(&gm.arena, "a/b.c", "Const", 64);
  ops[1] = const_op(&gm.arena, "a_b_c", "Const", 64);
  ops[2] = const_op(&gm.arena, "a.b/c", "Const", 64);
  ops[3] = const_op(&gm.arena, "k", "Constant", 8);
  ops[4] = const_op(&gm.arena, "empty", "Const", 0);
  ops[5] = const_op(&gm.arena, "notconst", "Data", 64);
  model(&gm, "net.v1", ops, 6);
  tfx_ge_external x;
  /* weights 200 bytes: below half of 1000 nothing is measured or moved */
  assert_int_equal(tfx_ge_externalize(&gm, 1000, &x, &d), 0);
  assert_int_equal(x.n, 0);
  assert_int_equal(tfx_ge_externalize(&gm, 300, &x, &d), 0);
  assert_int_equal(x.n, 4);
  assert_string_equal(x.files[0].path, "air_weight/net_v1/Const_net_v1_a_b_c_file");
  assert_string_equal(x.files[1].path, "air_weight/net_v1/Const_net_v1_a_b_c_2_file");
  assert_string_equal(x.files[2].path, "air_weight/net_v1/Const_net_v1_a_b_c_3_file");
  assert_string_equal(x.files[3].path, "air_weight/net_v1/Constant_net_v1_k_file");
  assert_int_equal(x.files[3].len, 8);
  assert_null(attr(ops[4], "location"));
  assert_null(attr(ops[5], "location"));
  assert_int_equal(attr(ops[5], "value")->t->data.len, 64);
  Ge__Proto__TensorDef *t;
  assert_int_equal(tfx_ge_const_weight(ops[0], &t), 0); /* moved: no data left */
  assert_int_equal(tfx_ge_const_weight(ops[5], &t), 0); /* not a Const */
  tfx_ge_external_free(&x);
  /* a second call finds nothing left to move */
  assert_int_equal(tfx_ge_externalize(&gm, 1, &x, &d), 0);
  assert_int_equal(x.n, 0);
  tfx_ge_model_free(&gm);
  assert_false(tfx_diag_has_errors(&d));
  tfx_diag_free(&d);
}

/* every allocation failure: an error and a return code, or success */
static void alloc_failures(void **state) {
  (void)state;
  for (long n = 1; n < 200; n++) {
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_ge_model gm = {0}; /* model_free also frees .air (streaming lowering) */
    tfx_arena_init(&gm.arena);
    Ge__Proto__OpDef **ops = tfx_arena_calloc(&gm.arena, 2, sizeof *ops);
    ops[0] = const_op(&gm.arena, "w", "Const", 64);
    ops[1] = const_op(&gm.arena, "v", "Const", 64);
    model(&gm, "m", ops, 2);
    tfx_ge_external x;
    tfx_alloc_fail_arena(1);
    tfx_alloc_fail_at(n);
    int rc = tfx_ge_externalize(&gm, 10, &x, &d);
    long failed = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    tfx_alloc_fail_arena(0);
    if (rc == 0) assert_int_equal(x.n, 2);
    else assert_true(tfx_diag_has_errors(&d) && x.n == 0 && x.files == NULL);
    tfx_ge_external_free(&x);
    tfx_ge_model_free(&gm);
    tfx_diag_free(&d);
    if (!failed) break;
  }
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
        cmocka_unit_test(alloc_failures),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(default_threshold),
      cmocka_unit_test(names_and_threshold),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
