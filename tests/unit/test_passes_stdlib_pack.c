/* Unit tests for the embedded stdlib pack (stdlib/stdlib_pack.h, src/rules/gen/
 * gen_stdlib_pack.c, the fast path of tfx_rules_build in src/passes/pass_rules.c).
 * Stage: tests (passes). The embedded pack must be byte-identical to a fresh compile of the
 * stdlib sources embedded in the same binary (so it is always checkable against them), keep
 * the `<stdlib>/...` source locations, be what a run with no -r path uses (with or without -W
 * options) and still go through the verifier when loaded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "passes/passes.h"
#include "stdlib_pack.h"
#include "tfxc/tfxc.h"
#include "util/strbuf.h"
#include "vm/pack.h"

/* Builds the rules of s and returns the pack's bytes in out. */
static void build_bytes(const tfx_rules_spec *s, tfx_strbuf *out) {
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_pack p;
  int rc = tfx_rules_build_pack(s, &p, &d);
  if (rc != 0 || d.n) tfx_diag_print(&d, stderr);
  assert_int_equal(rc, 0);
  assert_int_equal(d.n, 0);
  tfx_sb_init(out);
  assert_int_equal(tfx_pack_write(&p, out), 0);
  tfx_pack_free(&p);
  tfx_diag_free(&d);
}

static void test_equals_fresh_compile(void **state) {
  (void)state;
  assert_true(tfx_stdlib_pack_size > 32);
  tfx_rules_spec s;
  memset(&s, 0, sizeof s);
  s.stdlib_from_source = 1;
  tfx_strbuf fresh;
  build_bytes(&s, &fresh);
  assert_int_equal(fresh.len, tfx_stdlib_pack_size);
  assert_memory_equal(fresh.data, tfx_stdlib_pack, fresh.len);
  tfx_sb_free(&fresh);
}

/* The stdlib compiles without a diagnostic today, so a run uses the pack whatever its -W
 * options; and what it uses is the embedded pack itself. */
static void test_runs_use_the_pack(void **state) {
  (void)state;
  assert_int_equal(tfx_stdlib_pack_flags & TFX_STDLIB_PACK_CLEAN_ALL, TFX_STDLIB_PACK_CLEAN_ALL);
  const char *wall[] = {"-Wall", "-Werror"};
  for (int k = 0; k < 3; k++) {
    tfx_rules_spec s;
    memset(&s, 0, sizeof s);
    if (k >= 1) {
      s.warn_opts = wall;
      s.n_warn_opts = 2;
    }
    if (k == 2) s.verbose = 1;
    tfx_strbuf b;
    build_bytes(&s, &b);
    assert_int_equal(b.len, tfx_stdlib_pack_size);
    assert_memory_equal(b.data, tfx_stdlib_pack, b.len);
    tfx_sb_free(&b);
  }
}

/* Rules and features carry the stdlib file names and lines of the sources. */
static void test_keeps_locations(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_pack p;
  assert_int_equal(tfx_pack_load_builtin(&p, tfx_stdlib_pack, tfx_stdlib_pack_size, "<stdlib>", &d), 0);
  assert_true(p.n_rules > 0);
  int saw_layer_norm = 0;
  for (uint32_t i = 0; i < p.n_rules; i++) {
    const char *f = tfx_pack_file(&p, p.rules[i].file);
    assert_true(strncmp(f, "<stdlib>/", 9) == 0);
    assert_true(p.rules[i].line > 0);
    const char *name = tfx_pack_str(&p, p.rules[i].name);
    if (name && p.rules[i].kind == TFX_RULE_PASS && strstr(f, "layer_norm.scoperule")) saw_layer_norm = 1;
  }
  assert_true(saw_layer_norm);
  assert_true(p.n_locs > 0);
  tfx_pack_free(&p);
  tfx_diag_free(&d);
}

/* Skipping the content hash does not skip the verifier: a damaged instruction is refused. */
static void test_builtin_load_verifies(void **state) {
  (void)state;
  unsigned char *b = malloc(tfx_stdlib_pack_size);
  assert_non_null(b);
  memcpy(b, tfx_stdlib_pack, tfx_stdlib_pack_size);
  /* section 1 (constants) starts at 32: id, size; section 2 (code) follows it */
  uint32_t s1 = (uint32_t)b[36] | (uint32_t)b[37] << 8 | (uint32_t)b[38] << 16 | (uint32_t)b[39] << 24;
  size_t code = 32 + 8 + s1;
  assert_int_equal(b[code], 2);
  size_t first_word = code + 8 + 4; /* id, size, count */
  memset(b + first_word, 0xff, 4);  /* no such opcode */
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_pack p;
  assert_int_equal(tfx_pack_load_builtin(&p, b, tfx_stdlib_pack_size, "<stdlib>", &d), TFX_EXIT_INPUT);
  assert_true(d.n == 1 && strstr(d.items[0].msg, "corrupt pack"));
  tfx_diag_free(&d);
  /* the file loader still checks the hash first */
  tfx_diag_init(&d);
  assert_int_equal(tfx_pack_load(&p, b, tfx_stdlib_pack_size, "<stdlib>", &d), TFX_EXIT_INPUT);
  assert_true(d.n == 1 && strstr(d.items[0].msg, "hash"));
  tfx_diag_free(&d);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_equals_fresh_compile),
    cmocka_unit_test(test_runs_use_the_pack),
    cmocka_unit_test(test_keeps_locations),
    cmocka_unit_test(test_builtin_load_verifies),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
