/* Unit tests for rule-set loading, registration and semantic checks: directory order,
 * first-name-wins registration and overrides, sub_types across passes and files, the warning
 * policy API, the CANN prototype hook (with a tiny fake table), and a clean run over every
 * kind of statement. The exact messages are covered by tests/golden/rule-errors. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/load.h"

static int check(tfx_ruleset *rs, const tfx_rules_options *opt, tfx_diag *d) {
  int r = tfx_rules_check(rs, opt, d);
  return r;
}

static int has_msg(const tfx_diag *d, const char *needle) {
  for (size_t i = 0; i < d->n; i++)
    if (strstr(d->items[i].msg, needle)) return 1;
  return 0;
}

static void load_str(tfx_ruleset *rs, const char *name, const char *text, tfx_diag *d) {
  tfx_rules_load_buffer(rs, name, text, strlen(text), d);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void directory_order_and_registration(void **state) {
  (void)state;
  char dir[] = "/tmp/tfxc_rules_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char p[512];
  snprintf(p, sizeof p, "%s/a", dir);
  assert_int_equal(mkdir(p, 0700), 0);
  snprintf(p, sizeof p, "%s/a/x.scoperule", dir);
  write_file(p, "pass Second { group { layer { pattern s2 { scopes s1 == 1; } } } fuse s in s2 { type B; } }\n");
  snprintf(p, sizeof p, "%s/a.scoperule", dir); /* "a.scoperule" < "a/x.scoperule" in byte order */
  write_file(p, "pass First { group { layer { pattern s1 { name == \"x\"; } } } fuse s in s1 { type A; } }\n");
  snprintf(p, sizeof p, "%s/m.opmap", dir);
  write_file(p, "op Add -> Add { auto; }\nop Add -> Add2 { when T == DT_FLOAT; priority 1; auto; }\n");
  snprintf(p, sizeof p, "%s/notes.txt", dir);
  write_file(p, "ignored");
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ruleset *rs = tfx_ruleset_new();
  const char *paths[] = {dir};
  assert_int_equal(tfx_rules_load_paths(rs, paths, 1, &d), 0);
  /* user rules first, then a stdlib buffer that defines First again: it is ignored */
  load_str(rs, "<stdlib>/fusion/first.scoperule",
           "pass First general { group { layer { pattern other { name == \"y\"; } } } fuse s in other { type C; } }\n", &d);
  tfx_rules_options opt;
  tfx_rules_options_init(&opt);
  assert_int_equal(check(rs, &opt, &d), 0);
  assert_int_equal(d.n, 0); /* -Woverride is off by default */
  assert_int_equal(tfx_ruleset_n_sources(rs), 4);
  assert_non_null(strstr(tfx_ruleset_source(rs, 0)->name, "/a.scoperule"));
  assert_non_null(strstr(tfx_ruleset_source(rs, 1)->name, "/a/x.scoperule"));
  assert_non_null(strstr(tfx_ruleset_source(rs, 2)->name, "/m.opmap"));
  assert_int_equal(tfx_ruleset_n_passes(rs), 2);
  assert_string_equal(tfx_ruleset_pass(rs, 0)->name.s, "First");
  assert_false(tfx_ruleset_pass(rs, 0)->general); /* the user's definition won */
  assert_string_equal(tfx_ruleset_pass(rs, 1)->name.s, "Second");
  assert_null(tfx_ruleset_pass(rs, 2));
  assert_non_null(tfx_ruleset_find_pass(rs, "Second"));
  assert_int_equal(tfx_ruleset_n_opmaps(rs), 2);
  assert_int_equal(tfx_ruleset_opmap(rs, 1)->priority, 1);
  tfx_ruleset_free(rs);

  /* the same with -Woverride reports the ignored stdlib pass */
  tfx_diag_clear(&d);
  rs = tfx_ruleset_new();
  tfx_rules_load_path(rs, dir, &d);
  load_str(rs, "<stdlib>/fusion/first.scoperule",
           "pass First general { group { layer { pattern other { name == \"y\"; } } } fuse s in other { type C; } }\n", &d);
  assert_int_equal(tfx_rules_warning_option(&opt.warnings, "-Woverride"), 0);
  assert_int_equal(check(rs, &opt, &d), 0);
  assert_int_equal(d.warnings, 1);
  assert_true(has_msg(&d, "pass 'First' is ignored: the one at"));
  assert_string_equal(d.items[0].file, "<stdlib>/fusion/first.scoperule");
  tfx_ruleset_free(rs);

  /* errors: a missing path, a non-rule file */
  tfx_diag_clear(&d);
  rs = tfx_ruleset_new();
  snprintf(p, sizeof p, "%s/missing", dir);
  assert_int_equal(tfx_rules_load_path(rs, p, &d), -1);
  snprintf(p, sizeof p, "%s/notes.txt", dir);
  assert_int_equal(tfx_rules_load_path(rs, p, &d), -1);
  assert_int_equal(d.errors, 2);
  assert_int_equal(tfx_ruleset_errors(rs), 2);
  tfx_ruleset_free(rs);
  tfx_diag_free(&d);

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

static void warning_policy(void **state) {
  (void)state;
  tfx_rules_warnings w;
  tfx_rules_warnings_init(&w);
  int ub = tfx_rules_warning_lookup("unused-binding");
  int ov = tfx_rules_warning_lookup("override");
  assert_true(ub >= 0 && ov >= 0);
  assert_true(w.enabled & (1u << ub));
  assert_false(w.enabled & (1u << ov));
  assert_int_equal(tfx_rules_warning_option(&w, "-Wno-unused-binding"), 0);
  assert_false(w.enabled & (1u << ub));
  assert_int_equal(tfx_rules_warning_set(&w, "unused-binding", 1), 0);
  assert_true(w.enabled & (1u << ub));
  assert_int_equal(tfx_rules_warning_option(&w, "-Werror=override"), 0);
  assert_true(w.enabled & (1u << ov));
  assert_true(w.as_error & (1u << ov));
  assert_int_equal(tfx_rules_warning_option(&w, "-Werror"), 0);
  assert_true(w.werror);
  assert_int_equal(tfx_rules_warning_option(&w, "-Wno-error"), 0);
  assert_false(w.werror);
  assert_int_equal(tfx_rules_warning_option(&w, "-Wbogus"), -1);
  assert_int_equal(tfx_rules_warning_set(&w, "bogus", 1), -1);
  assert_int_equal(tfx_rules_warning_option(&w, "-Wall"), 0);
  assert_string_equal(tfx_rules_warning_name(TFX_RULES_W_SHADOW), "shadow");

  /* switched off, the warning disappears; with -Werror it is an error */
  const char *text = "pass P { group { layer { pattern p { name == \"x\"; } } } fuse s in p { type X; let u = 1; } }";
  tfx_rules_options opt;
  for (int mode = 0; mode < 3; mode++) {
    tfx_rules_options_init(&opt);
    if (mode == 1) tfx_rules_warning_option(&opt.warnings, "-Wno-unused-binding");
    if (mode == 2) tfx_rules_warning_option(&opt.warnings, "-Werror");
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_ruleset *rs = tfx_ruleset_new();
    load_str(rs, "w.scoperule", text, &d);
    int r = check(rs, &opt, &d);
    assert_int_equal(d.warnings, mode == 0 ? 1 : 0);
    assert_int_equal(d.errors, mode == 2 ? 1 : 0);
    assert_int_equal(r, mode == 2 ? -1 : 0);
    tfx_ruleset_free(rs);
    tfx_diag_free(&d);
  }
}

static const tfx_rules_proto_port mm_in[] = {{"x1", TFX_RULES_PORT_REQUIRED}, {"x2", TFX_RULES_PORT_REQUIRED},
                                             {"bias", TFX_RULES_PORT_OPTIONAL}};
static const tfx_rules_proto_port pk_in[] = {{"x", TFX_RULES_PORT_DYNAMIC}};
static const tfx_rules_proto_port one_out[] = {{"y", TFX_RULES_PORT_REQUIRED}};
static const tfx_rules_op_proto ops[] = {{"MatMulV2", mm_in, 3, one_out, 1, NULL, 0},
                                         {"Pack", pk_in, 1, one_out, 1, NULL, 0},
                                         {"Exp", pk_in, 1, one_out, 1, NULL, 0}};

static void prototype_hook(void **state) {
  (void)state;
  tfx_rules_proto_table table = {ops, 3};
  tfx_rules_protos protos = {tfx_rules_proto_table_lookup, &table};
  tfx_rules_options opt;
  tfx_rules_options_init(&opt);
  opt.protos = &protos;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ruleset *rs = tfx_ruleset_new();
  load_str(rs, "p.opmap",
           "op MatMul -> MatMulV2 { input x1 = 0; input x2 = 1; optional input bias = 2; output y = 0; }\n"
           "op Pack -> Pack { dynamic input x count N; }\n"
           "op Softplus -> graph { node e: Exp(in 0); node l: Log(e:0); out 0 = l:0; }\n",
           &d);
  assert_int_equal(check(rs, &opt, &d), 0);
  assert_int_equal(d.errors, 0);
  assert_int_equal(d.warnings, 1); /* Log has no prototype in the fake table */
  assert_true(has_msg(&d, "no prototype for CANN op 'Log'"));
  tfx_ruleset_free(rs);

  tfx_diag_clear(&d);
  rs = tfx_ruleset_new();
  load_str(rs, "p.opmap",
           "op MatMul -> MatMulV2 { input a = 0; optional input x1 = 0; output z = 0; }\n"
           "op Pack -> Pack { input x = 0; }\n",
           &d);
  assert_int_equal(check(rs, &opt, &d), -1);
  assert_true(has_msg(&d, "CANN op 'MatMulV2' has no input 'a' (inputs: x1, x2, bias)"));
  assert_true(has_msg(&d, "input 'x1' of 'MatMulV2' is required, not optional"));
  assert_true(has_msg(&d, "CANN op 'MatMulV2' has no output 'z' (outputs: y)"));
  assert_true(has_msg(&d, "input 'x' of 'Pack' is dynamic"));
  assert_true(has_msg(&d, "TF input 0 is already mapped to 'a'"));
  tfx_ruleset_free(rs);

  /* without the hook nothing is checked against prototypes */
  tfx_diag_clear(&d);
  rs = tfx_ruleset_new();
  load_str(rs, "p.opmap", "op MatMul -> MatMulV2 { input a = 0; }\n", &d);
  assert_int_equal(check(rs, NULL, &d), 0);
  assert_int_equal(d.n, 0);
  tfx_ruleset_free(rs);
  tfx_diag_free(&d);
}

static void subtypes_across_passes(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ruleset *rs = tfx_ruleset_new();
  load_str(rs, "a.scoperule",
           "pass A { group { layer { pattern cell { count MatMul == 1; } } }\n"
           "         group { layer { pattern w { scopes cell == 1; } } layer { pattern r { scopes w == 1; } } }\n"
           "  fuse s in r { type X; } }\n", &d);
  load_str(rs, "b.scoperule",
           "pass B { group { layer { pattern z { scopes r == 1; scopes cell == 2; } } }\n"
           "  require all(x in scopes(z) : x.parent != none);\n"
           "  fuse s in z, cell where s.name starts_with \"a\" { type Y; } }\n", &d);
  assert_int_equal(check(rs, NULL, &d), 0);
  assert_int_equal(d.n, 0);
  /* a pattern cannot use a sub_type of its own layer */
  tfx_ruleset_free(rs);
  rs = tfx_ruleset_new();
  load_str(rs, "c.scoperule",
           "pass C { group { layer { pattern a { name == \"a\"; } pattern b { scopes a == 1; } } } fuse s in b { type X; } }\n",
           &d);
  assert_int_equal(check(rs, NULL, &d), -1);
  assert_true(has_msg(&d, "unknown sub_type 'a'"));
  tfx_ruleset_free(rs);
  tfx_diag_free(&d);
}

static void clean_rules_of_every_kind(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ruleset *rs = tfx_ruleset_new();
  load_str(rs, "all.scoperule",
           "pass P { group { layer { pattern p { count A % 2 == 1; attr T.a == -1.5; has_child \"m\"; } } }\n"
           "  require count(x in scopes(p) : true) > 0;\n"
           "  fuse s in p where exists(scope(s, \"x/\")) and inside(find(s, \"y\"), s) {\n"
           "    let n = find_contains(s, \"z\"); let q = node(s, \"k\");\n"
           "    scopes s, s.parent ?? s; name after(s.name, \"/\") ?? s.last_name; type ScopeToMultiNodes;\n"
           "    description \"d\" + str(len(s.nodes)); absorb consumers(n) + producers(q);\n"
           "    input \"a\" { 0 -> 0, 1 -> 1 }; output \"b\" { 0 -> 0 };\n"
           "    attr k = lookup(s.sub_type, {\"a\": 1}) ?? int(\"2\") + round(1.5) + float(1) * 2;\n"
           "    if first(c in s.children : c.name ends_with \"x/\") != none { invalid \"why\"; }\n"
           "    node g: Add(in 0, in 1, const [1, 2]) { attr t = DT_FLOAT; format input 0 = \"ND\"; }\n"
           "    node h: Relu(g:0);\n"
           "    out 0 = h:0;\n"
           "  } }\n", &d);
  load_str(rs, "all.opmap",
           "op Cv -> Cv2 { auto; attr pads = len(p) == 8 ? (format_of(in 0) == \"NCHW\" ? p[4:8] : p[2:6]) : [0, 0];\n"
           "  attr perm = p[[1, 0]]; attr dt = dtype_of(in 1); attr c = const_value(in 1)[0];\n"
           "  optional input b = 2 when has_input(2) and n_inputs > 2; when op == \"Cv\"; }\n", &d);
  assert_int_equal(check(rs, NULL, &d), 0);
  if (d.n) tfx_diag_print(&d, stderr);
  assert_int_equal(d.n, 0);
  /* a second check is a no-op */
  assert_int_equal(check(rs, NULL, &d), 0);
  tfx_ruleset_free(rs);
  tfx_diag_free(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(directory_order_and_registration),
      cmocka_unit_test(warning_policy),
      cmocka_unit_test(prototype_hook),
      cmocka_unit_test(subtypes_across_passes),
      cmocka_unit_test(clean_rules_of_every_kind),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
