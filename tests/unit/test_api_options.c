/* The shared option parser (src/api/options.c) and the comma lists split once: items and
 * empty items, the --limit aliases with NULL destinations, messages attributed to the command
 * with its --help note (and without for a library caller), the -W check.
 * Stage: tests (api). No data needed. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/api_int.h"

static void lists_split_once(void **state) {
  (void)state;
  tfx_api_list l;
  assert_int_equal(tfx_api_list_split("a,bb,,c", &l), 0);
  assert_int_equal(l.n, 4);
  assert_string_equal(l.items[0], "a");
  assert_string_equal(l.items[1], "bb");
  assert_string_equal(l.items[2], "");
  assert_string_equal(l.items[3], "c");
  tfx_api_list_free(&l);
  assert_null(l.items);
  assert_int_equal(tfx_api_list_split("", &l), 0);
  assert_int_equal(l.n, 1);
  assert_string_equal(l.items[0], "");
  tfx_api_list_free(&l);
  assert_int_equal(tfx_api_list_split("x,", &l), 0);
  assert_int_equal(l.n, 2);
  assert_string_equal(l.items[1], "");
  tfx_api_list_free(&l);
}

static void limit_values_and_aliases(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_limits lim;
  memset(&lim, 0, sizeof lim);
  size_t fs = 0;
  uint64_t steps = 0;
  assert_int_equal(tfx_api_parse_limit("nodes=7,file-size=2K,vm-steps=9", "tfxc", &lim, &fs,
                                       &steps, &d), 0);
  assert_int_equal(lim.v[TFX_LIMIT_NODES], 7);
  assert_int_equal(fs, 2048);
  assert_int_equal(steps, 9);
  /* a command without those limits checks the names and drops the values */
  assert_int_equal(tfx_api_parse_limit("file-size=1M,vm-steps=3,depth=5", "tfxc fmt", NULL, NULL,
                                       NULL, &d), 0);
  assert_int_equal(d.n, 0);
  /* the item after a bad one is not applied */
  assert_int_equal(tfx_api_parse_limit("nodes=0,depth=9", "tfxc explain", &lim, &fs, &steps, &d),
                   -1);
  assert_int_not_equal(lim.v[TFX_LIMIT_DEPTH], 9);
  assert_int_equal(d.n, 2);
  assert_string_equal(d.items[0].file, "tfxc explain");
  assert_non_null(strstr(d.items[0].msg, "--limit nodes: '0' is not a number from 1 to"));
  assert_int_equal(d.items[1].sev, TFX_SEV_NOTE);
  assert_string_equal(d.items[1].msg, "run 'tfxc explain --help' for usage");
  tfx_diag_clear(&d);
  /* the library: the error alone */
  assert_int_equal(tfx_api_parse_limit("nodez=1", NULL, &lim, &fs, &steps, &d), -1);
  assert_int_equal(d.n, 1);
  assert_null(d.items[0].file);
  assert_non_null(strstr(d.items[0].msg, "unknown limit 'nodez'; did you mean 'nodes'?"));
  tfx_diag_clear(&d);
  assert_int_equal(tfx_api_parse_limit("", NULL, &lim, &fs, &steps, &d), -1);
  assert_non_null(strstr(d.items[0].msg, "--limit: empty value"));
  tfx_diag_free(&d);
}

static void shared_values(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  char *opt = NULL;
  assert_int_equal(tfx_api_opt_warn("error", "tfxc", &opt, &d), 0);
  assert_string_equal(opt, "-Werror");
  free(opt);
  assert_int_equal(tfx_api_opt_warn("frob", NULL, &opt, &d), -1);
  assert_null(opt);
  assert_non_null(strstr(d.items[0].msg, "unknown warning option '-Wfrob' (warnings: "));
  tfx_diag_clear(&d);
  uint64_t b = 0;
  assert_int_equal(tfx_api_opt_vm_budget("12", NULL, &b, &d), 0);
  assert_int_equal(b, 12);
  assert_int_equal(tfx_api_opt_vm_budget("0", NULL, &b, &d), -1);
  assert_int_equal(b, 12);
  size_t sz = 0;
  assert_int_equal(tfx_api_opt_max_file_size("64K", NULL, &sz, &d), 0);
  assert_int_equal(sz, 65536);
  assert_int_equal(tfx_api_opt_max_file_size("0", NULL, &sz, &d), -1);
  assert_int_equal(tfx_api_opt_input_format("NHWC", NULL, &d), 0);
  assert_int_equal(tfx_api_opt_input_format("NWHC", NULL, &d), -1);
  assert_int_equal(tfx_api_opt_list("disable-pass", "a,b", NULL, &d), 0);
  assert_int_equal(tfx_api_opt_list("disable-pass", "", NULL, &d), -1);
  assert_int_equal(d.n, 4);
  assert_string_equal(d.items[3].msg, "--disable-pass: empty list");
  tfx_diag_clear(&d);
  unsigned j = 7; /* --jobs: 0 (automatic) to 64 */
  assert_int_equal(tfx_api_opt_jobs("0", NULL, &j, &d), 0);
  assert_int_equal(j, 0);
  assert_int_equal(tfx_api_opt_jobs("64", "tfxc", &j, &d), 0);
  assert_int_equal(j, 64);
  assert_int_equal(tfx_api_opt_jobs("65", NULL, &j, &d), -1);
  assert_int_equal(tfx_api_opt_jobs("-1", NULL, &j, &d), -1);
  assert_int_equal(tfx_api_opt_jobs("", NULL, &j, &d), -1);
  assert_int_equal(j, 64);
  assert_int_equal(d.n, 3);
  assert_string_equal(d.items[0].msg, "--jobs: '65' is not a number of threads from 0 (automatic) to 64");
  tfx_diag_free(&d);
}

static void emit_kinds_from_one_table(void **state) {
  (void)state;
#define NAME(id, name, suffix, what) name,
  static const char *const names[] = {TFXC_EMIT_KINDS(NAME)};
#undef NAME
  assert_int_equal(sizeof names / sizeof names[0], TFX_EMIT__COUNT);
  for (int k = 0; k < TFX_EMIT__COUNT; k++) {
    assert_string_equal(tfx_api_emit_name(k), names[k]);
    assert_int_equal(tfx_api_emit_kind(names[k]), k);
  }
  assert_string_equal(tfx_api_emit_suffix(TFX_EMIT_GE_PBTXT), ".ge.pbtxt");
  unsigned mask = 0;
  tfx_diag d;
  tfx_diag_init(&d);
  assert_int_equal(tfx_api_parse_emit("dot,air", &mask, &d), 0);
  assert_int_equal(mask, (1u << TFX_EMIT_DOT) | (1u << TFX_EMIT_AIR));
  assert_int_equal(tfx_api_parse_emit("air,", &mask, &d), -1);
  assert_non_null(strstr(d.items[0].msg, "(kinds: air, ge-pbtxt, ge-json, dot, tf-pbtxt)"));
  tfx_diag_free(&d);
}

static void output_names(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  char *p[TFX_EMIT__COUNT];
  unsigned air = 1u << TFX_EMIT_AIR, two = air | (1u << TFX_EMIT_TF_PBTXT);
  assert_int_equal(tfx_api_output_paths("dir/net.v1.pb", NULL, two, p, &d), 0);
  assert_string_equal(p[TFX_EMIT_AIR], "net.v1.air");
  assert_string_equal(p[TFX_EMIT_TF_PBTXT], "net.v1.tf.pbtxt");
  assert_null(p[TFX_EMIT_DOT]);
  for (int k = 0; k < TFX_EMIT__COUNT; k++) free(p[k]);
  assert_int_equal(tfx_api_output_paths("net.pb", "out/x.air", air, p, &d), 0); /* as given */
  assert_string_equal(p[TFX_EMIT_AIR], "out/x.air");
  free(p[TFX_EMIT_AIR]);
  assert_int_equal(tfx_api_output_paths("net.pb", "-", air, p, &d), 0);
  assert_string_equal(p[TFX_EMIT_AIR], "-");
  free(p[TFX_EMIT_AIR]);
  assert_int_equal(d.n, 0);
  /* ATC's --output=NAME: one kind, no extension, with a note */
  assert_int_equal(tfx_api_output_paths("net.pb", "build/model", air, p, &d), 0);
  assert_string_equal(p[TFX_EMIT_AIR], "build/model.air");
  free(p[TFX_EMIT_AIR]);
  assert_int_equal(d.n, 1);
  assert_int_equal(d.items[0].sev, TFX_SEV_NOTE);
  /* several kinds: a stem, no note */
  assert_int_equal(tfx_api_output_paths("net.pb", "a.b", two, p, &d), 0);
  assert_string_equal(p[TFX_EMIT_AIR], "a.b.air");
  assert_string_equal(p[TFX_EMIT_TF_PBTXT], "a.b.tf.pbtxt");
  for (int k = 0; k < TFX_EMIT__COUNT; k++) free(p[k]);
  assert_int_equal(d.n, 1);
  tfx_diag_free(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lists_split_once),
      cmocka_unit_test(limit_values_and_aliases),
      cmocka_unit_test(shared_values),
      cmocka_unit_test(emit_kinds_from_one_table),
      cmocka_unit_test(output_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
