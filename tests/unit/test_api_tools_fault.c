/* Out of memory in the tool functions of the public API (the "Tools" part of tfxc.h and the
 * explain calls): every allocation of a call fails in turn, and the call returns TFXC_OK (the
 * failure was worked around: the same bytes) or TFXC_NOMEM with the "out of memory" error as
 * tfxc_errmsg; never TFXC_FAILED or another status (issue 15 item 4: the drivers outside the
 * pass pipeline). Without --fault-injection: each call succeeds and gives what it gives
 * without a failure, its reference.
 * Stage: tests (api). Model: examples/dense_layernorm (env TFXC_SRC: the source tree). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tfxc/tfxc.h"
#include "util/arena.h"

static char model_path[4096];
static char flow_case[4096]; /* a golden case with a dataflow rewrite to explain */

/* A small rule set of each kind, so that a sweep stays short: a scope pass (with a require)
 * that matches the model's LayerNorm/batchnorm scope and an op map. */
static const char scope_rule[] =
    "pass SmallLayerNorm general {\n"
    "  group { layer { pattern bn { count Rsqrt == 1; name == \"batchnorm\"; } } }\n"
    "  require len(scopes(bn)) == 1;\n"
    "  fuse b in bn { type LayerNorm; }\n"
    "}\n";
static const char op_rule[] = "op Relu -> Relu6 { auto; }\n";

enum {
  T_COMPILE,
  T_DISASM,
  T_LIST_RULES,
  T_LIST_RULES_JSON,
  T_FMT_PB,
  T_FMT_PBTXT,
  T_INSPECT,
  T_INSPECT_JSON,
  T_EXPLAIN_SCOPE,
  T_EXPLAIN_RULE,
  T_EXPLAIN_REWRITE,
  T_TEST_CHECK,
  T__COUNT
};
static const char *const tool_names[T__COUNT] = {
    "tfxc_compile_rules",   "tfxc_disasm",         "tfxc_list_rules",
    "tfxc_list_rules json", "tfxc_format_model pb", "tfxc_format_model pbtxt",
    "tfxc_inspect",         "tfxc_inspect json",   "tfxc_explain_scope",
    "tfxc_explain_rule",    "tfxc_explain_rule rewrite", "tfxc_test_check",
};

/* A session ready for tool call t (set up before any allocation is made to fail): the small
 * rules and the example model; for the rewrite, the stdlib and the golden case's model. */
static tfxc_session *session(int t) {
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  if (t == T_EXPLAIN_REWRITE) {
    char path[4200];
    snprintf(path, sizeof path, "%s/model.pbtxt", flow_case);
    assert_int_equal(tfxc_load_model_path(s, path), TFXC_OK);
    return s;
  }
  assert_int_equal(tfxc_set_option(s, "no-stdlib", "1"), TFXC_OK);
  assert_int_equal(tfxc_load_model_path(s, model_path), TFXC_OK);
  assert_int_equal(
      tfxc_add_rules_buffer(s, "small.scoperule", scope_rule, sizeof scope_rule - 1), TFXC_OK);
  assert_int_equal(tfxc_add_rules_buffer(s, "small.opmap", op_rule, sizeof op_rule - 1), TFXC_OK);
  return s;
}

/* The tool call t on s: its result in *out / *len (NULL when it failed). */
static tfxc_status call(int t, tfxc_session *s, void **out, size_t *len) {
  char *text = NULL;
  tfxc_status st = TFXC_MISUSE;
  *out = NULL;
  *len = 0;
  switch (t) {
  case T_COMPILE: return tfxc_compile_rules(s, out, len, NULL);
  case T_DISASM: st = tfxc_disasm(s, &text, len); break;
  case T_LIST_RULES: st = tfxc_list_rules(s, 0, &text, len); break;
  case T_LIST_RULES_JSON: st = tfxc_list_rules(s, 1, &text, len); break;
  case T_FMT_PB: return tfxc_format_model(s, "pb", out, len, NULL);
  case T_FMT_PBTXT: return tfxc_format_model(s, "pbtxt", out, len, NULL);
  case T_INSPECT: st = tfxc_inspect(s, 0, 0, &text, len); break;
  case T_INSPECT_JSON: st = tfxc_inspect(s, TFXC_INSPECT_JSON, 0, &text, len); break;
  case T_EXPLAIN_SCOPE:
    st = tfxc_explain_scope(s, "dense/LayerNorm/batchnorm/", NULL, NULL, &text, len);
    break;
  case T_EXPLAIN_RULE: st = tfxc_explain_rule(s, "SmallLayerNorm", NULL, NULL, &text, len); break;
  case T_EXPLAIN_REWRITE:
    st = tfxc_explain_rule(s, "Conv2DBiasAddFusion", NULL, "cb", &text, len);
    break;
  case T_TEST_CHECK: {
    /* a run that differs from the case's expectations: a report with two diffs */
    static const char tf[] = "node { name: \"x\" }\n", x[] = "something else\n";
    tfxc_test_run run;
    memset(&run, 0, sizeof run);
    run.tf = tf;
    run.tf_len = sizeof tf - 1;
    run.explained = 1;
    run.explain = x;
    run.explain_len = sizeof x - 1;
    tfxc_test_result res;
    st = tfxc_test_check(s, flow_case, &run, 0, &res, &text, len);
    if (st == TFXC_OK) assert_int_equal(res, TFXC_TEST_FAIL);
    break;
  }
  }
  *out = text;
  return st;
}

/* Each call without a failure: TFXC_OK and a result that is not empty. */
static void tools_succeed(void **state) {
  (void)state;
  for (int t = 0; t < T__COUNT; t++) {
    tfxc_session *s = session(t);
    void *out;
    size_t len;
    tfxc_status st = call(t, s, &out, &len);
    if (st != TFXC_OK) fail_msg("%s: %s: %s", tool_names[t], tfxc_status_name(st), tfxc_errmsg(s));
    assert_non_null(out);
    assert_true(len > 0);
    tfxc_free(out);
    tfxc_close(s);
  }
  /* the explanation names what the small scope pass matched */
  tfxc_session *s = session(T_EXPLAIN_SCOPE);
  void *out;
  size_t len;
  assert_int_equal(call(T_EXPLAIN_SCOPE, s, &out, &len), TFXC_OK);
  assert_non_null(strstr(out, "SmallLayerNorm"));
  tfxc_free(out);
  tfxc_close(s);
}

/* Every allocation of each call fails in turn: TFXC_OK with the reference bytes, or
 * TFXC_NOMEM with "out of memory" as tfxc_errmsg (the first error: the allocation's). */
static void tools_out_of_memory_is_nomem(void **state) {
  (void)state;
  tfx_alloc_fail_arena(1);
  for (int t = 0; t < T__COUNT; t++) {
    tfxc_session *s = session(t);
    void *ref;
    size_t ref_len;
    tfx_alloc_fail_at(0);
    assert_int_equal(call(t, s, &ref, &ref_len), TFXC_OK);
    long total = tfx_alloc_calls();
    tfxc_close(s);
    printf("%s: %ld allocations\n", tool_names[t], total);
    assert_true(total > 5);
    int failures = 0;
    for (long at = 1; at <= total; at++) {
      s = session(t);
      tfx_alloc_fail_at(at);
      void *out;
      size_t len;
      tfxc_status st = call(t, s, &out, &len);
      long hit = tfx_alloc_failures();
      tfx_alloc_fail_at(0);
      if (st == TFXC_OK) { /* worked around: the same result */
        if (len != ref_len || memcmp(out, ref, len) != 0)
          fail_msg("%s: allocation %ld of %ld failed: TFXC_OK but a different result (%zu bytes, "
                   "want %zu)", tool_names[t], at, total, len, ref_len);
      } else {
        failures++;
        assert_true(hit > 0);
        assert_null(out);
        if (st != TFXC_NOMEM)
          fail_msg("%s: allocation %ld of %ld failed: status %s, want nomem (%s)", tool_names[t],
                   at, total, tfxc_status_name(st), tfxc_errmsg(s));
        if (!strstr(tfxc_errmsg(s), "out of memory"))
          fail_msg("%s: allocation %ld: the message is not the allocation's: %s", tool_names[t],
                   at, tfxc_errmsg(s));
      }
      tfxc_free(out);
      tfxc_close(s);
    }
    tfxc_free(ref);
    assert_true(failures > 0);
  }
  tfx_alloc_fail_arena(0);
}

/* tfxc_inspect_checkpoint over the corpus's smallest checkpoint (TFXC_CORPUS; skipped
 * without it), text and JSON with values: TFXC_OK with the same text, or TFXC_NOMEM. */
static void checkpoint_out_of_memory_is_nomem(void **state) {
  (void)state;
  const char *corpus = getenv("TFXC_CORPUS");
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/checkpoints/half_plus_two/variables/variables",
           corpus ? corpus : "");
  if (!corpus || !tfxc_is_checkpoint(prefix)) {
    printf("skipped: no corpus checkpoint (TFXC_CORPUS)\n");
    skip();
  }
  tfx_alloc_fail_arena(1);
  for (unsigned flags = 0; flags <= (TFXC_INSPECT_JSON | TFXC_INSPECT_VALUES); flags += 3) {
    tfxc_session *s;
    assert_int_equal(tfxc_open(&s), TFXC_OK);
    char *ref, *out;
    size_t ref_len, len;
    tfx_alloc_fail_at(0);
    assert_int_equal(tfxc_inspect_checkpoint(s, prefix, flags, &ref, &ref_len), TFXC_OK);
    long total = tfx_alloc_calls();
    int failures = 0;
    for (long at = 1; at <= total; at++) {
      tfx_alloc_fail_at(at);
      tfxc_status st = tfxc_inspect_checkpoint(s, prefix, flags, &out, &len);
      tfx_alloc_fail_at(0);
      if (st == TFXC_OK) {
        assert_int_equal(len, ref_len);
        assert_memory_equal(out, ref, len);
      } else {
        failures++;
        if (st != TFXC_NOMEM || !strstr(tfxc_errmsg(s), "out of memory"))
          fail_msg("tfxc_inspect_checkpoint: allocation %ld of %ld failed: status %s (%s)", at,
                   total, tfxc_status_name(st), tfxc_errmsg(s));
      }
      tfxc_free(out);
    }
    assert_true(failures > 0);
    tfxc_free(ref);
    tfxc_close(s);
  }
  tfx_alloc_fail_arena(0);
}

/* The first error a tfxc_check_option call hands to its handler. */
static void first_error(void *user, const tfxc_diagnostic *dg) {
  char *first = user;
  if (dg->severity == TFXC_SEV_ERROR && !first[0])
    snprintf(first, 256, "%s", dg->message ? dg->message : "");
}

/* The option lists split by the shared option parser (tfxc_check_option and tfxc_set_option):
 * every allocation failing in turn gives TFXC_OK or TFXC_NOMEM with "out of memory" first,
 * never TFXC_MISUSE (a bad value) as before. */
static void option_lists_out_of_memory_is_nomem(void **state) {
  (void)state;
  static const char *const opts[][2] = {
      {"limit", "depth=10,nodes=100,file-size=1M"},
      {"emit", "air,tf-pbtxt"},
      {"W", "all"},
      {"input-shape", "x:1,2,3"},
      {"out-nodes", "y,z"},
  };
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
    for (int with_session = 0; with_session < 2; with_session++) {
      tfxc_session *s = NULL;
      if (with_session) assert_int_equal(tfxc_open(&s), TFXC_OK);
      char first[256] = "";
      tfx_alloc_fail_at(0);
      tfxc_status st = with_session ? tfxc_set_option(s, opts[i][0], opts[i][1])
                                    : tfxc_check_option(NULL, opts[i][0], opts[i][1], first_error,
                                                        first);
      assert_int_equal(st, TFXC_OK);
      long total = tfx_alloc_calls();
      int failures = 0;
      for (long at = 1; at <= total; at++) {
        first[0] = 0;
        tfx_alloc_fail_at(at);
        st = with_session ? tfxc_set_option(s, opts[i][0], opts[i][1])
                          : tfxc_check_option(NULL, opts[i][0], opts[i][1], first_error, first);
        tfx_alloc_fail_at(0);
        if (st == TFXC_OK) continue;
        failures++;
        const char *msg = with_session ? tfxc_errmsg(s) : first;
        if (st != TFXC_NOMEM || !strstr(msg, "out of memory"))
          fail_msg("%s %s=%s: allocation %ld of %ld failed: status %s (%s), want nomem",
                   with_session ? "tfxc_set_option" : "tfxc_check_option", opts[i][0],
                   opts[i][1], at, total, tfxc_status_name(st), msg);
      }
      if (total) assert_true(failures > 0);
      tfxc_close(s);
    }
  }
}

int main(int argc, char **argv) {
  const char *src = getenv("TFXC_SRC");
  snprintf(model_path, sizeof model_path, "%s/examples/dense_layernorm/model.pbtxt",
           src && *src ? src : ".");
  snprintf(flow_case, sizeof flow_case, "%s/tests/golden/cases/dataflow-neg-wrong-attr",
           src && *src ? src : ".");
  if (access(model_path, R_OK) != 0) {
    fprintf(stderr, "test_api_tools_fault: %s not found (set TFXC_SRC): skipped\n", model_path);
    return 77;
  }
  /* the fault-injection cases: their own ctest test (unit/NAME/fault-injection), skipped
   * (exit 77) when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        cmocka_unit_test(tools_out_of_memory_is_nomem),
        cmocka_unit_test(option_lists_out_of_memory_is_nomem),
        cmocka_unit_test(checkpoint_out_of_memory_is_nomem),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(tools_succeed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
