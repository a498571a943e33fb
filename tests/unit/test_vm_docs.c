/* Unit tests for the X-macro tables (src/vm/opinfo.c) and docs/opcodes.md: the committed
 * file must equal tfxc_gen_opcodes' output (regenerate with `make tfxc_opcodes_md`), operand
 * slots are leading, names are unique, every opcode has an effect and a synopsis, and every
 * scope test takes a feature operand first. */
#include <unistd.h>
#include "test_vm_util.h"

#include "util/fileio.h"

static void docs_match_generator(void **state) {
  (void)state;
  const char *src = getenv("TFXC_SRC");
  if (!src) skip();
  char path[4096];
  snprintf(path, sizeof path, "%s/docs/opcodes.md", src);
  tfx_diag d;
  tfx_diag_init(&d);
  size_t len = 0;
  char *have = tfx_read_file(path, 0, &len, &d);
  if (!have) tg_dump(&d);
  assert_non_null(have);
  tfx_strbuf want;
  tfx_sb_init(&want);
  tfx_vm_opcodes_doc(&want);
  if (len != want.len || memcmp(have, want.data, len) != 0)
    fail_msg("docs/opcodes.md is stale: run `make tfxc_opcodes_md` and commit the result");
  free(have);
  tfx_sb_free(&want);
  tfx_diag_free(&d);
}

static void xmacro_tables_consistent(void **state) {
  (void)state;
  for (unsigned op = 0; op < TFX_OP__COUNT; op++) {
    const tfx_opinfo *oi = &tfx_vm_ops[op];
    assert_true(oi->n_operands <= TFX_INS_MAX_OPERANDS);
    for (unsigned i = 0; i < TFX_INS_MAX_OPERANDS; i++)
      assert_true((i < oi->n_operands) == (oi->kinds[i] != TFX_K__)); /* used slots lead */
    assert_true(oi->effect[0] && oi->synopsis[0]);
    assert_true(oi->progs != 0);
    for (unsigned j = 0; j < op; j++) assert_string_not_equal(oi->name, tfx_vm_ops[j].name);
    if (oi->progs == TFX_PK_SCOPE && op != TFX_OP_MATCH) assert_int_equal(oi->kinds[0], TFX_K_F);
    for (unsigned i = 0; i < oi->n_operands; i++)
      if (oi->kinds[i] == TFX_K_N) assert_true(i > 0 && oi->kinds[i - 1] == TFX_K_R);
  }
  for (unsigned i = 0; i < TFX_BI__COUNT; i++) {
    assert_true(tfx_vm_builtins[i].min_args <= tfx_vm_builtins[i].max_args);
    assert_true(tfx_vm_builtins[i].max_args <= 8);
    for (unsigned j = 0; j < i; j++) assert_string_not_equal(tfx_vm_builtins[i].name, tfx_vm_builtins[j].name);
  }
  for (unsigned i = 0; i < TFX_PR__COUNT; i++)
    for (unsigned j = 0; j < i; j++) assert_string_not_equal(tfx_vm_props[i].name, tfx_vm_props[j].name);
  assert_string_equal(tfx_vm_ops[TFX_OP_LOADK].name, "LOADK");
  assert_int_equal(TFX_INS_LEN(TFX_OP_SC_STEP), 5);
  assert_int_equal(TFX_INS_LEN(TFX_OP_HALT), 1);
}

/* The tests that need the source tree (TFXC_SRC) run as their own ctest test (`--needs-data`, exit 77 =
 * skipped when it is absent: TFXC_UNIT_DATA_PART in tests/CMakeLists.txt); the others run
 * without it. */
static int data_available(void) {
  const char *src = getenv("TFXC_SRC");
  char path[4096];
  if (!src) return 0;
  snprintf(path, sizeof path, "%s/docs/opcodes.md", src);
  return access(path, R_OK) == 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--needs-data") == 0) {
    if (!data_available()) {
      printf("skipped: the source tree (TFXC_SRC) not found\n");
      return 77;
    }
    const struct CMUnitTest data_tests[] = {
        cmocka_unit_test(docs_match_generator),
    };
    return cmocka_run_group_tests(data_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(xmacro_tables_consistent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
