/* The runtime-only TF op table of the precheck summary (src/passes/precheck_summary.c):
 * sorted (it is searched with bsearch), every name a TF op of stdlib/ops/tf-ops.tsv (no typo
 * can hide a type from its hint), the hints by category, and no hint for inference ops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "passes/passes.h"

static void sorted_and_known(void **state) {
  (void)state;
  const char *src = getenv("TFXC_SRC");
  if (!src) skip();
  char path[4096];
  snprintf(path, sizeof path, "%s/stdlib/ops/tf-ops.tsv", src);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  static char text[1 << 21];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  const char *const *types;
  size_t nt = tfx_runtime_only_ops(&types);
  assert_true(nt > 50);
  for (size_t i = 0; i < nt; i++) {
    if (i) assert_true(strcmp(types[i - 1], types[i]) < 0);
    char key[256];
    snprintf(key, sizeof key, "\n%s\t", types[i]);
    if (!strstr(text, key)) fail_msg("'%s' is not a TF op of tf-ops.tsv", types[i]);
    assert_non_null(tfx_runtime_only_hint(types[i]));
  }
}

static void hints(void **state) {
  (void)state;
  assert_non_null(strstr(tfx_runtime_only_hint("VariableV2"), "the graph still holds variables: "
                                                               "give it weights"));
  assert_non_null(strstr(tfx_runtime_only_hint("VarHandleOp"), "still holds variables"));
  assert_non_null(strstr(tfx_runtime_only_hint("RestoreV2"), "save/restore"));
  assert_non_null(strstr(tfx_runtime_only_hint("MergeSummary"), "summary"));
  assert_non_null(strstr(tfx_runtime_only_hint("QueueDequeueManyV2"), "queue"));
  assert_non_null(strstr(tfx_runtime_only_hint("InitializeTableV2"), "initialiser"));
  assert_non_null(strstr(tfx_runtime_only_hint("ApplyAdam"), "optimizer"));
  assert_non_null(strstr(tfx_runtime_only_hint("ResourceSparseApplyFtrl"), "optimizer"));
  assert_null(tfx_runtime_only_hint("Conv2D"));
  assert_null(tfx_runtime_only_hint("Identity"));
  assert_null(tfx_runtime_only_hint("Variables")); /* exact names only */
  assert_null(tfx_runtime_only_hint("Applied"));
  assert_null(tfx_runtime_only_hint(NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sorted_and_known),
      cmocka_unit_test(hints),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
