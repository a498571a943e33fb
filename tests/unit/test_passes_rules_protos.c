/* Unit tests for the CANN table as the rule checker's prototype hook (src/passes/rules_protos.c):
 * port names and kinds through the hook (required / optional / dynamic, inputs and outputs),
 * unknown types, the "known without prototype" list (empty prototypes, and its errors), the
 * stdlib hook (shared, ConcatV2, FrameworkOp) and fault injection. The checks sema makes with
 * the hook are covered end to end by tests/cli/opmap_protos.sh. */
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

static const char k_table[] = HDR
    "Concat\tconcat_dim:req:i32,x:dyn:f16\ty:req:f16\tN:Int=1\ts\n"
    "Fa\tq:req:f16,m:opt:u8\tout:req:f16,extra:dyn:f32\t\ts\n"
    "NoInputs\t\ty:req:f32\t\ts\n";

static const tfx_rules_op_proto *lookup(const tfx_rules_protos *h, const char *type) {
  return h->lookup(h->ctx, type);
}

static void ports_and_kinds(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_cann_table t;
  assert_int_equal(tfx_cann_load(&t, k_table, strlen(k_table), "t.tsv", &d), 0);
  tfx_cann_protos *p = tfx_cann_protos_new(&t);
  assert_non_null(p);
  const tfx_rules_protos *h = tfx_cann_protos_hook(p);
  assert_non_null(h);
  const tfx_rules_op_proto *c = lookup(h, "Concat");
  assert_non_null(c);
  assert_string_equal(c->type, "Concat");
  assert_int_equal(c->n_inputs, 2);
  assert_string_equal(c->inputs[0].name, "concat_dim");
  assert_int_equal(c->inputs[0].kind, TFX_RULES_PORT_REQUIRED);
  assert_string_equal(c->inputs[1].name, "x");
  assert_int_equal(c->inputs[1].kind, TFX_RULES_PORT_DYNAMIC);
  assert_int_equal(c->n_outputs, 1);
  const tfx_rules_op_proto *f = lookup(h, "Fa");
  assert_int_equal(f->inputs[1].kind, TFX_RULES_PORT_OPTIONAL);
  assert_int_equal(f->outputs[1].kind, TFX_RULES_PORT_DYNAMIC);
  const tfx_rules_op_proto *n = lookup(h, "NoInputs");
  assert_int_equal(n->n_inputs, 0);
  assert_null(n->inputs);
  assert_null(lookup(h, "concat"));
  assert_null(lookup(h, "Missing"));
  assert_null(tfx_cann_protos_hook(NULL));
  tfx_cann_protos_free(p);
  tfx_cann_protos_free(NULL);
  tfx_cann_free(&t);
  tfx_diag_free(&d);
}

static void known_without_prototype(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_cann_table t;
  assert_int_equal(tfx_cann_load(&t, k_table, strlen(k_table), "t.tsv", &d), 0);
  tfx_cann_protos *p = tfx_cann_protos_new(&t);
  assert_non_null(p);
  const char *list = "#name\twhy\nFrameworkOp\tbuilt without IR\n_Arg\tbuilt without IR\n";
  assert_int_equal(tfx_cann_protos_add_known(p, list, strlen(list), "k.tsv", &d), 0);
  const tfx_rules_protos *h = tfx_cann_protos_hook(p);
  const tfx_rules_op_proto *fw = lookup(h, "FrameworkOp");
  assert_non_null(fw);
  assert_string_equal(fw->type, "FrameworkOp");
  assert_int_equal(fw->n_inputs, 0);
  assert_int_equal(fw->n_outputs, 0);
  assert_non_null(lookup(h, "_Arg"));
  assert_non_null(lookup(h, "Concat")); /* the table still answers */
  assert_int_equal(d.n, 0);
  /* errors, each with its line: a type with a prototype, a duplicate, no reason, bad name */
  const char *bad = "Concat\thas one\nFrameworkOp\tagain\nLonely\t\nno-ident\tx\nOk2\tfine\n";
  assert_int_equal(tfx_cann_protos_add_known(p, bad, strlen(bad), "k.tsv", &d), TFX_EXIT_INPUT);
  assert_int_equal(d.n, 4);
  assert_int_equal(d.items[0].line, 1);
  assert_string_equal(d.items[0].msg, "'Concat' has a prototype; remove it from this list");
  assert_int_equal(d.items[1].line, 2);
  assert_string_equal(d.items[1].msg, "'FrameworkOp' is listed twice");
  assert_int_equal(d.items[2].line, 3);
  assert_string_equal(d.items[2].msg, "'Lonely' needs a reason in the second column");
  assert_int_equal(d.items[3].line, 4);
  assert_string_equal(d.items[3].msg, "op name 'no-ident' is not an identifier");
  assert_non_null(lookup(h, "Ok2")); /* good lines are kept */
  tfx_diag_clear(&d);
  const char *cols = "One\ttwo\tthree\n";
  assert_int_equal(tfx_cann_protos_add_known(p, cols, strlen(cols), "k.tsv", &d), TFX_EXIT_INPUT);
  assert_string_equal(d.items[0].msg, "expected 2 tab-separated columns, found 3");
  tfx_cann_protos_free(p);
  tfx_cann_free(&t);
  tfx_diag_free(&d);
}

static void stdlib_hook(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  const tfx_rules_protos *h = tfx_cann_stdlib_protos(&d);
  assert_non_null(h);
  assert_int_equal(d.n, 0);
  assert_ptr_equal(tfx_cann_stdlib_protos(&d), h); /* shared */
  const tfx_rules_op_proto *c = lookup(h, "ConcatV2");
  assert_non_null(c);
  assert_int_equal(c->inputs[0].kind, TFX_RULES_PORT_DYNAMIC);
  assert_string_equal(c->inputs[1].name, "concat_dim");
  const tfx_rules_op_proto *fa = lookup(h, "FlashAttentionScore");
  assert_int_equal(fa->inputs[3].kind, TFX_RULES_PORT_OPTIONAL);
  assert_string_equal(fa->inputs[3].name, "real_shift");
  /* every type of cann-ops-noir.tsv is known, with no ports */
  static const char *const noir[] = {"_Arg", "FrameworkOp", "GetSpan", "InitEmbeddingHashmapV2",
                                     "DeinitEmbeddingHashmapV2", "EmbeddingHashmapSize",
                                     "EmbeddingHashmapFileSize", "TableToResourceV2"};
  for (size_t i = 0; i < sizeof noir / sizeof noir[0]; i++) {
    const tfx_rules_op_proto *o = lookup(h, noir[i]);
    assert_non_null(o);
    assert_int_equal(o->n_inputs + o->n_outputs, 0);
    assert_null(tfx_cann_find(tfx_cann_stdlib(&d), noir[i]));
  }
  assert_null(lookup(h, "NoSuchCannOp"));
  tfx_diag_free(&d);
}

static void fault_injection(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_cann_table t;
  assert_int_equal(tfx_cann_load(&t, k_table, strlen(k_table), "t.tsv", &d), 0);
  const char *list = "A\tr\nB\tr\n";
  int done = 0;
  for (long n = 1; n < 100 && !done; n++) {
    tfx_alloc_fail_at(n);
    tfx_cann_protos *p = tfx_cann_protos_new(&t);
    int rc = p ? (int)tfx_cann_protos_add_known(p, list, strlen(list), "k.tsv", &d) : -1;
    tfx_alloc_fail_at(0);
    if (p && rc == 0) {
      assert_non_null(lookup(tfx_cann_protos_hook(p), "B"));
      done = 1;
    } else if (p) {
      assert_int_equal(rc, TFX_E_NOMEM);
    }
    tfx_cann_protos_free(p);
    tfx_diag_clear(&d);
  }
  assert_true(done);
  tfx_cann_free(&t);
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
      cmocka_unit_test(ports_and_kinds),
      cmocka_unit_test(known_without_prototype),
      cmocka_unit_test(stdlib_hook),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
