/* Unit tests for merged CANN prototype tables (src/cann/cann.c: tfx_cann_init / tfx_cann_add /
 * tfx_cann_add_base; src/passes/rules_protos.c: tfx_cann_protos_merged): user prototype files
 * registered first-wins over a base table, overrides reported (quiet, warning, error, and
 * diag-level -Werror) at the ignored op's file:line:1, a duplicate inside one file still an
 * error, a malformed overridden line still reported, shallow base copies, the merge over the
 * embedded stdlib table, the merged rule-checker hook (a user prototype for a type of
 * cann-ops-noir.tsv gives it ports) and fault injection. End to end (tfxc -r *.cannops.tsv):
 * tests/cli/protos_user.sh and the golden case ge-seed-add-custom. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cann/cann.h"
#include "passes/rules_protos.h"
#include "rules/load.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"
#include "util/status.h"

#define HDR "#name\tinputs\toutputs\tattrs\tsource\n"

static const char k_user_a[] = HDR
    "AddCustom\tx:req:f16|f32|i32,y:req:f16|f32|i32\tz:req:f16|f32|i32\t\tascend-samples AddCustom\n"
    "Add\ta:req:f32,b:req:f32\tc:req:f32\t\tmine\n";
static const char k_user_b[] = HDR
    "Add\tp:req:f32,q:req:f32\tr:req:f32\t\tlater\n"
    "OnlyB\tx:req:f32\ty:req:f32\tk:Int=3\tb\n";
static const char k_base[] = HDR
    "Add\tx1:req:f16,x2:req:f16\ty:req:f16\t\tbase\n"
    "Sub\tx1:req:f16,x2:req:f16\ty:req:f16\t\tbase\n";

/* Diagnostic i of d rendered "sev file:line:col: message". */
static void expect_diag(const tfx_diag *d, size_t i, const char *want) {
  assert_true(i < d->n);
  const tfx_diag_item *it = &d->items[i];
  char got[1024];
  snprintf(got, sizeof got, "%s %s:%u:%u: %s", it->sev == TFX_SEV_ERROR ? "error" : it->sev == TFX_SEV_WARNING ? "warning" : "note",
           it->file ? it->file : "", it->line, it->col, it->msg);
  if (strcmp(got, want) != 0) fprintf(stderr, "got:  %s\nwant: %s\n", got, want);
  assert_string_equal(got, want);
}

/* Builds a.tsv, b.tsv over base.tsv with ov; returns the worst add result. */
static int build(tfx_cann_table *t, tfx_cann_table *base, tfx_cann_override ov, tfx_diag *d) {
  tfx_diag quiet;
  tfx_diag_init(&quiet);
  assert_int_equal(tfx_cann_load(base, k_base, strlen(k_base), "base.tsv", &quiet), 0);
  tfx_diag_free(&quiet);
  tfx_cann_init(t);
  int rc = 0, r;
  if ((r = tfx_cann_add(t, k_user_a, strlen(k_user_a), "a.cannops.tsv", ov, d)) != 0) rc = r;
  if ((r = tfx_cann_add(t, k_user_b, strlen(k_user_b), "b.cannops.tsv", ov, d)) != 0) rc = r;
  if ((r = tfx_cann_add_base(t, base, ov, d)) != 0) rc = r;
  return rc;
}

static void first_wins(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_cann_table t, base;
  assert_int_equal(build(&t, &base, TFX_CANN_OV_QUIET, &d), 0);
  assert_int_equal(d.n, 0);
  /* registration order: a's ops, b's new ones, then the base ops no file named */
  assert_int_equal(t.n_ops, 4);
  assert_string_equal(t.ops[0].name, "AddCustom");
  assert_string_equal(t.ops[1].name, "Add");
  assert_string_equal(t.ops[2].name, "OnlyB");
  assert_string_equal(t.ops[3].name, "Sub");
  const tfx_cann_op *add = tfx_cann_find(&t, "Add");
  assert_ptr_equal(add, &t.ops[1]);
  assert_string_equal(add->file, "a.cannops.tsv");
  assert_int_equal(add->line, 3);
  assert_string_equal(add->source, "mine");
  assert_int_equal(add->n_in, 2);
  assert_string_equal(add->in[0].name, "a");
  assert_string_equal(add->out[0].name, "c");
  const tfx_cann_op *ac = tfx_cann_find(&t, "AddCustom");
  assert_int_equal(tfx_cann_input(ac, "y"), 1);
  assert_int_equal(tfx_cann_output(ac, "z"), 0);
  assert_string_equal(ac->in[0].dtypes, "f16|f32|i32");
  const tfx_cann_op *ob = tfx_cann_find(&t, "OnlyB");
  assert_string_equal(ob->file, "b.cannops.tsv");
  assert_int_equal(ob->line, 3);
  assert_int_equal(tfx_cann_attr_find(ob, "k")->value.u.i, 3);
  /* base ops are shallow copies: the strings are the base table's */
  const tfx_cann_op *sub = tfx_cann_find(&t, "Sub");
  assert_ptr_equal(sub->name, tfx_cann_find(&base, "Sub")->name);
  assert_string_equal(sub->file, "base.tsv");
  assert_null(tfx_cann_find(&t, "add"));
  /* "did you mean" sees user and base ops */
  const char *sim[3];
  assert_true(tfx_cann_similar(&t, "AddCustm", sim, 3) >= 1);
  assert_string_equal(sim[0], "AddCustom");
  tfx_cann_free(&t);
  tfx_cann_free(&base);
  tfx_diag_free(&d);
}

static void overrides_reported(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_cann_table t, base;
  assert_int_equal(build(&t, &base, TFX_CANN_OV_WARN, &d), 0);
  assert_int_equal(d.n, 2);
  expect_diag(&d, 0, "warning b.cannops.tsv:2:1: CANN prototype 'Add' is ignored: the one at "
                     "a.cannops.tsv:3:1 was registered first [-Woverride]");
  expect_diag(&d, 1, "warning base.tsv:2:1: CANN prototype 'Add' is ignored: the one at "
                     "a.cannops.tsv:3:1 was registered first [-Woverride]");
  assert_string_equal(tfx_cann_find(&t, "Add")->in[0].name, "a");
  tfx_cann_free(&t);
  tfx_cann_free(&base);
  tfx_diag_clear(&d);

  /* -Werror=override: the same reports as errors, and the adds fail */
  assert_int_equal(build(&t, &base, TFX_CANN_OV_ERROR, &d), TFX_EXIT_INPUT);
  assert_int_equal(d.n, 2);
  expect_diag(&d, 0, "error b.cannops.tsv:2:1: CANN prototype 'Add' is ignored: the one at "
                     "a.cannops.tsv:3:1 was registered first [-Werror=override]");
  expect_diag(&d, 1, "error base.tsv:2:1: CANN prototype 'Add' is ignored: the one at "
                     "a.cannops.tsv:3:1 was registered first [-Werror=override]");
  assert_int_equal(t.n_ops, 4); /* the table is still complete */
  tfx_cann_free(&t);
  tfx_cann_free(&base);
  tfx_diag_clear(&d);

  /* a diagnostics context that makes warnings errors fails the add too */
  d.werror = 1;
  assert_int_equal(build(&t, &base, TFX_CANN_OV_WARN, &d), TFX_EXIT_INPUT);
  assert_int_equal(d.errors, 2);
  tfx_cann_free(&t);
  tfx_cann_free(&base);
  tfx_diag_free(&d);
}

static void errors_in_user_files(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_cann_table t;
  tfx_cann_init(&t);
  assert_int_equal(tfx_cann_add(&t, k_user_a, strlen(k_user_a), "a.cannops.tsv", TFX_CANN_OV_WARN, &d), 0);
  /* a duplicate inside one file is an error, not an override; a malformed line whose name was
   * registered by an earlier file is still reported; good lines are kept */
  const char *bad = HDR
      "New\tx:req:f32\ty:req:f32\t\ts\n"
      "New\tx:req:f32\ty:req:f32\t\ts\n"
      "Add\tx:maybe:f32\ty:req:f32\t\ts\n"
      "Short\tx:req:f32\n";
  assert_int_equal(tfx_cann_add(&t, bad, strlen(bad), "bad.cannops.tsv", TFX_CANN_OV_WARN, &d), TFX_EXIT_INPUT);
  assert_int_equal(d.n, 3);
  expect_diag(&d, 0, "error bad.cannops.tsv:3:1: op 'New' already defined at line 2");
  expect_diag(&d, 1, "error bad.cannops.tsv:4:7: unknown input kind 'maybe' (req, opt or dyn)");
  expect_diag(&d, 2, "error bad.cannops.tsv:5:16: expected 5 tab-separated columns, found 2");
  assert_non_null(tfx_cann_find(&t, "New"));
  assert_string_equal(tfx_cann_find(&t, "Add")->file, "a.cannops.tsv");
  assert_int_equal(t.n_ops, 3);
  /* an empty or header-only file adds nothing */
  tfx_diag_clear(&d);
  assert_int_equal(tfx_cann_add(&t, HDR, strlen(HDR), "h.cannops.tsv", TFX_CANN_OV_WARN, &d), 0);
  assert_int_equal(tfx_cann_add(&t, NULL, 0, NULL, TFX_CANN_OV_WARN, &d), 0);
  assert_int_equal(tfx_cann_add_base(&t, NULL, TFX_CANN_OV_WARN, &d), 0);
  assert_int_equal(t.n_ops, 3);
  assert_int_equal(d.n, 0);
  tfx_cann_free(&t);
  tfx_cann_free(&t); /* twice is fine */
  tfx_diag_free(&d);
}

static const tfx_rules_op_proto *lookup(const tfx_rules_protos *h, const char *type) {
  return h->lookup(h->ctx, type);
}

static void over_stdlib(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  const tfx_cann_table *std = tfx_cann_stdlib(&d);
  assert_non_null(std);
  tfx_cann_table t;
  tfx_cann_init(&t);
  /* a new op, an override of a stdlib op, and a prototype for a type the stdlib knows only
   * without IR (cann-ops-noir.tsv) */
  const char *user = HDR
      "AddCustom\tx:req:f32,y:req:f32\tz:req:f32\t\tsample\n"
      "Add\tx:req:f32,y:req:f32\tz:req:f32\t\tmine\n"
      "FrameworkOp\tx:dyn:f32\ty:dyn:f32\t\tmine\n";
  assert_int_equal(tfx_cann_add(&t, user, strlen(user), "u.cannops.tsv", TFX_CANN_OV_WARN, &d), 0);
  assert_int_equal(tfx_cann_add_base(&t, std, TFX_CANN_OV_WARN, &d), 0);
  assert_int_equal(t.n_ops, std->n_ops + 2); /* Add replaced, AddCustom and FrameworkOp added */
  assert_int_equal(d.n, 1);
  expect_diag(&d, 0, "warning <stdlib>/ops/cann-ops.tsv:36:1: CANN prototype 'Add' is ignored: the "
                     "one at u.cannops.tsv:3:1 was registered first [-Woverride]");
  assert_string_equal(tfx_cann_find(&t, "Add")->in[0].name, "x");
  assert_string_equal(tfx_cann_find(std, "Add")->in[0].name, "x1"); /* the stdlib is untouched */
  assert_ptr_equal(tfx_cann_find(&t, "ConcatV2")->name, tfx_cann_find(std, "ConcatV2")->name);
  tfx_diag_clear(&d);

  tfx_cann_protos *p = tfx_cann_protos_merged(&t, &d);
  assert_non_null(p);
  assert_int_equal(d.n, 0); /* FrameworkOp in the noir list is no error: the user gave it an IR */
  const tfx_rules_protos *h = tfx_cann_protos_hook(p);
  const tfx_rules_op_proto *ac = lookup(h, "AddCustom");
  assert_non_null(ac);
  assert_int_equal(ac->n_inputs, 2);
  assert_string_equal(ac->inputs[1].name, "y");
  assert_string_equal(lookup(h, "Add")->inputs[0].name, "x");
  const tfx_rules_op_proto *fw = lookup(h, "FrameworkOp");
  assert_int_equal(fw->n_inputs, 1);
  assert_int_equal(fw->inputs[0].kind, TFX_RULES_PORT_DYNAMIC);
  assert_int_equal(lookup(h, "_Arg")->n_inputs, 0); /* other noir types: known, no ports */
  assert_non_null(lookup(h, "ConcatV2"));
  assert_null(lookup(h, "NoSuchCannOp"));
  tfx_cann_protos_free(p);
  /* the stdlib's own hook still has no AddCustom */
  assert_null(lookup(tfx_cann_stdlib_protos(&d), "AddCustom"));
  tfx_cann_free(&t);
  tfx_diag_free(&d);
}

static void fault_injection(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_cann_table base;
  assert_int_equal(tfx_cann_load(&base, k_base, strlen(k_base), "base.tsv", &d), 0);
  int done = 0;
  for (long n = 1; n < 200 && !done; n++) {
    tfx_cann_table t;
    tfx_alloc_fail_at(n);
    tfx_cann_init(&t);
    int rc = tfx_cann_add(&t, k_user_a, strlen(k_user_a), "a.cannops.tsv", TFX_CANN_OV_QUIET, &d);
    if (rc == 0) rc = tfx_cann_add(&t, k_user_b, strlen(k_user_b), "b.cannops.tsv", TFX_CANN_OV_QUIET, &d);
    if (rc == 0) rc = tfx_cann_add_base(&t, &base, TFX_CANN_OV_QUIET, &d);
    tfx_cann_protos *p = rc == 0 ? tfx_cann_protos_merged(&t, &d) : NULL;
    tfx_alloc_fail_at(0);
    if (rc == 0 && p) {
      assert_int_equal(t.n_ops, 4);
      assert_non_null(lookup(tfx_cann_protos_hook(p), "OnlyB"));
      done = 1;
    } else {
      if (rc != 0) assert_int_equal(rc, TFX_E_NOMEM);
      assert_true(d.errors > 0); /* reported */
    }
    tfx_cann_protos_free(p);
    tfx_cann_free(&t);
    tfx_diag_clear(&d);
  }
  assert_true(done);
  tfx_cann_free(&base);
  tfx_diag_free(&d);
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
        cmocka_unit_test(fault_injection),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(first_wins),
      cmocka_unit_test(overrides_reported),
      cmocka_unit_test(errors_in_user_files),
      cmocka_unit_test(over_stdlib),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
