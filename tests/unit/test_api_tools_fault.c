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
  T__COUNT
};
static const char *const tool_names[T__COUNT] = {
    "tfxc_compile_rules",   "tfxc_disasm",         "tfxc_list_rules",
    "tfxc_list_rules json", "tfxc_format_model pb", "tfxc_format_model pbtxt",
    "tfxc_inspect",         "tfxc_inspect json",   "tfxc_explain_scope",
    "tfxc_explain_rule",
};

/* A session ready for the tool call (set up before any allocation is made to fail). */
static tfxc_session *session(void) {
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
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
  }
  *out = text;
  return st;
}

/* Each call without a failure: TFXC_OK and a result that is not empty. */
static void tools_succeed(void **state) {
  (void)state;
  for (int t = 0; t < T__COUNT; t++) {
    tfxc_session *s = session();
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
  tfxc_session *s = session();
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
    tfxc_session *s = session();
    void *ref;
    size_t ref_len;
    tfx_alloc_fail_at(0);
    assert_int_equal(call(t, s, &ref, &ref_len), TFXC_OK);
    long total = tfx_alloc_calls();
    tfxc_close(s);
    assert_true(total > 5);
    int failures = 0;
    for (long at = 1; at <= total; at++) {
      s = session();
      tfx_alloc_fail_at(at);
      void *out;
      size_t len;
      tfxc_status st = call(t, s, &out, &len);
      long hit = tfx_alloc_failures();
      tfx_alloc_fail_at(0);
      if (st == TFXC_OK) {
        assert_int_equal(len, ref_len); /* worked around */
        assert_memory_equal(out, ref, len);
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

int main(int argc, char **argv) {
  const char *src = getenv("TFXC_SRC");
  snprintf(model_path, sizeof model_path, "%s/examples/dense_layernorm/model.pbtxt",
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
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(tools_succeed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
