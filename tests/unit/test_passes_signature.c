/* Unit tests for pass "prune" with signatures and training machinery (src/passes/signature.c,
 * src/graph/training.c), in process on tests/cli/signatures/model.pbtxt and a generated TF1
 * training graph: the trimmed node list (signature inputs first, in key order), ctx->prune's
 * outputs (key order), the removed training nodes and library functions; then every
 * allocation failure in turn (arena allocations included): each run fails with an error or
 * gives the same result. The CLI side is tests/cli/signatures.sh. Env: TFXC_SRC. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph/training.h"
#include "passes/passes.h"
#include "tfxc/tfxc.h"
#include "util/strbuf.h"
#include "util/arena.h"

static char model_path[4096];
static char train_path[64];

static const char train_model[] =
    "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
    "node { name: 'y' op: 'Neg' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } }\n"
    "node { name: 'v' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
    "node { name: 'v/Assign' op: 'Assign' input: 'v' input: 'y' }\n"
    "node { name: 'init' op: 'NoOp' input: '^v/Assign' }\n"
    "node { name: 's' op: 'ScalarSummary' input: 'y' }\n"
    "node { name: 'q' op: 'FIFOQueueV2' }\n"
    "node { name: 'q/enq' op: 'QueueEnqueueV2' input: 'q' input: 'y' }\n"
    "node { name: 'call' op: 'StatefulPartitionedCall' input: 'v' attr { key: 'f' value { func { name: 'saver' } } } }\n"
    "node { name: 'grad' op: 'f_used' input: 'x' }\n"
    "library {\n"
    "  function { signature { name: 'saver' } node_def { name: 'r' op: 'RestoreV2' } }\n"
    "  function { signature { name: 'f_used' } node_def { name: 'k' op: 'Neg' } }\n"
    "  function { signature { name: 'unused' } node_def { name: 'k' op: 'Neg' } }\n"
    "}\n";

static int setup(void **state) {
  (void)state;
  const char *src = getenv("TFXC_SRC");
  if (!src) src = ".";
  snprintf(model_path, sizeof model_path, "%s/tests/cli/signatures/model.pbtxt", src);
  strcpy(train_path, "/tmp/tfxc_sig_train_XXXXXX");
  int fd = mkstemp(train_path);
  if (fd < 0) return -1;
  FILE *f = fdopen(fd, "w");
  for (const char *p = train_model; *p; p++) fputc(*p == '\'' ? '"' : *p, f);
  fclose(f);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  unlink(train_path);
  return 0;
}

/* Runs load + prune; returns the exit code and "names|outs|functions" in sb. */
static int run(const char *path, const char *sig, tfx_strbuf *sb) {
  tfx_options o;
  memset(&o, 0, sizeof o);
  o.model_path = path;
  o.signature = sig;
  o.select_outputs = 1;
  o.emit = 1u << TFX_EMIT_AIR;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_pipeline p;
  tfx_pipeline_init(&p);
  tfx_ctx ctx;
  tfx_ctx_init(&ctx, &o, &d);
  int rc = 0;
  if (tfx_pass_register_builtin(&p) != 0 || tfx_pipeline_disable(&p, "rules,scope-tree", &d) != 0) {
    tfx_error(&d, NULL, 0, 0, "out of memory setting up the pipeline"); /* the harness's own */
    rc = TFX_EXIT_FAIL;
  }
  if (rc == 0) rc = tfx_pipeline_run(&p, &ctx, TFX_GROUP_PRUNE);
  tfx_sb_reset(sb);
  if (rc == 0) {
    const Tensorflow__GraphDef *gd = ctx.model.graph;
    for (size_t i = 0; i < gd->n_node; i++) tfx_sb_printf(sb, "%s ", gd->node[i]->name);
    tfx_sb_puts(sb, "|");
    for (uint32_t k = 0; k < ctx.prune.n_outs; k++)
      tfx_sb_printf(sb, "%s:%d ", ctx.prune.outs[k].name, (int)ctx.prune.outs[k].port);
    tfx_sb_puts(sb, "|");
    for (size_t k = 0; gd->library && k < gd->library->n_function; k++)
      tfx_sb_printf(sb, "%s ", gd->library->function[k]->signature->name);
  } else {
    assert_true(tfx_diag_has_errors(&d));
  }
  tfx_ctx_free(&ctx);
  tfx_pipeline_free(&p);
  tfx_diag_free(&d);
  return rc;
}

static void expect(const char *path, const char *sig, int want_rc, const char *want) {
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  int rc = run(path, sig, &sb);
  assert_int_equal(rc, want_rc);
  if (want) assert_string_equal(tfx_sb_cstr(&sb), want);
  tfx_sb_free(&sb);
}

static void signatures(void **state) {
  (void)state;
  expect(model_path, NULL, 0, "p0 p1 w add mul sub |sub:0 add:0 |");
  expect(model_path, "other", 0, "p1 w mul |mul:0 |");
  expect(model_path, "nosuch", TFX_EXIT_INPUT, NULL);
  expect(model_path, "bad_port", TFX_EXIT_INPUT, NULL);
}

static void training(void **state) {
  (void)state;
  /* outputs: y feeds an assignment, a summary and an enqueue (all training), the call runs a
   * function that restores (training); grad (a call of f_used) is the one inference sink */
  expect(train_path, NULL, 0, "x grad ||f_used ");
  assert_int_equal(tfx_train_classify("ScatterNd"), TFX_TRAIN_NONE);
  assert_int_equal(tfx_train_classify("ScatterUpdate"), TFX_TRAIN_ASSIGN);
  assert_int_equal(tfx_train_classify("ResourceApplyAdam"), TFX_TRAIN_OPTIMIZER);
  assert_int_equal(tfx_train_classify("WriteScalarSummary"), TFX_TRAIN_SUMMARY);
  assert_int_equal(tfx_train_classify("ReadVariableOp"), TFX_TRAIN_NONE);
  assert_int_equal(tfx_train_classify("VariableV2"), TFX_TRAIN_NONE);
  assert_false(tfx_train_is_effect("QueueDequeueV2"));
  assert_true(tfx_train_is_effect("QueueEnqueueV2"));
}

/* Every allocation failure: an error, or the same result. */
static void sweep(const char *path, const char *sig) {
  tfx_strbuf ref, sb; /* reserved up front: the result strings need no allocation in a run */
  tfx_sb_init(&ref);
  tfx_sb_init(&sb);
  assert_true(tfx_sb_reserve(&ref, 4096));
  assert_true(tfx_sb_reserve(&sb, 4096));
  tfx_alloc_fail_arena(1);
  tfx_alloc_fail_at(0);
  long before = tfx_alloc_calls();
  assert_int_equal(run(path, sig, &ref), 0);
  long total = tfx_alloc_calls() - before;
  (void)before;
  assert_true(total > 0);
  long step = total > 3000 ? total / 3000 : 1;
  int failed_runs = 0;
  for (long n = 1; n <= total; n += step) {
    tfx_alloc_fail_at(n);
    int rc = run(path, sig, &sb);
    tfx_alloc_fail_at(0);
    if (rc != 0) failed_runs++;
    else assert_string_equal(tfx_sb_cstr(&sb), tfx_sb_cstr(&ref));
  }
  tfx_alloc_fail_arena(0);
  assert_true(failed_runs > 0);
  tfx_sb_free(&ref);
  tfx_sb_free(&sb);
}

static void alloc_failures(void **state) {
  (void)state;
  sweep(model_path, NULL);
  sweep(train_path, NULL);
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
        cmocka_unit_test(alloc_failures),
    };
    return cmocka_run_group_tests(fault_tests, setup, teardown);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(signatures),
      cmocka_unit_test(training),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
