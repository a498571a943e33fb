/* Unit test for tfx_lower_edge (src/ge/lower.c): the "name:port" strings of GE edges, built
 * without printf, must be exactly what snprintf("%s:%lld") gives (every edge of every .air is
 * one): ports 0, 1, 9, 10, large, UINT32_MAX, -1 (control edges), INT64_MIN; empty and long
 * names; and out of memory is NULL (reported). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ge/lower_int.h"
#include "util/arena.h"

static void same_as_printf(void **state) {
  (void)state;
  tfx_arena a;
  tfx_arena_init(&a);
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_lower_ctx w;
  memset(&w, 0, sizeof w);
  w.A = &a;
  w.d = &d;
  static const int64_t ports[] = {0, 1, 9, 10, 99, 100, 12345, 4294967295LL, -1, -10, INT64_MAX, INT64_MIN};
  static const char *const names[] = {"", "a", "encoder/layer_0/attention/self/query/MatMul", "x:y"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    for (size_t k = 0; k < sizeof ports / sizeof *ports; k++) {
      char want[128];
      snprintf(want, sizeof want, "%s:%lld", names[i], (long long)ports[k]);
      char *got = tfx_lower_edge(&w, names[i], ports[k]);
      assert_non_null(got);
      assert_string_equal(got, want);
    }
  assert_int_equal(w.oom, 0);
  tfx_diag_free(&d);
  tfx_arena_free(&a);
}

static void out_of_memory_is_null(void **state) {
  (void)state;
  tfx_arena a;
  tfx_arena_init(&a);
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_lower_ctx w;
  memset(&w, 0, sizeof w);
  w.A = &a;
  w.d = &d;
  tfx_alloc_fail_arena(1);
  tfx_alloc_fail_at(1);
  char *none = tfx_lower_edge(&w, "n", 3);
  tfx_alloc_fail_arena(0);
  tfx_alloc_fail_at(0);
  assert_null(none);
  assert_int_not_equal(w.oom, 0);
  tfx_diag_free(&d);
  tfx_arena_free(&a);
}

int main(int argc, char **argv) {
  /* the fault-injection case: its own ctest test (unit/NAME/fault-injection), skipped (exit 77)
   * when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {cmocka_unit_test(out_of_memory_is_null)};
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {cmocka_unit_test(same_as_printf)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
