/* The sweep of the model's arena on a thread beside lowering (issue 16, passes/context.c
 * tfx_ctx_release_unused with threads, tfx_ctx_release_join).
 * Stage: tests (passes, in process). A generated chain of N Identity nodes with --out-nodes at
 * its middle (prune removes half of the NodeDefs, so the sweep has pages to give back; the
 * model's arena is over TFX_RELEASE_THREAD_MIN, so the thread is used):
 *  - same_release: with jobs 1 the op mapping starts no sweep; then tfx_ctx_release_unused(ctx,
 *    1) leaves a job pending and returns 0, and the join sets ctx->released, which equals the
 *    inline sweep's on a second context (threads 0: no job, the count returned) and the sweep
 *    the op mapping started with jobs 2 (joined at the end of that run; lowering's release
 *    then sweeps nothing again); the model's arena counts the same; the GraphDef packs to the
 *    same bytes before the release and after each (a sweep that gave back a page the tree
 *    reaches reads zeros there, or is reported by AddressSanitizer, which poisons released
 *    pages).
 *  - small_model_inline: a model under the threshold gets no early sweep (tfx_ctx_sweep_model
 *    -1), and is swept inline by the release even with threads.
 *  - same_air: the whole conversion to an .air with jobs 1 and 2 gives the same bytes, and the
 *    same ctx->released; no job is left after the run.
 *  - joins: a pending sweep is joined by tfx_ctx_free, by a re-index (tfx_ctx_reindex) and at
 *    the end of a pipeline run; one sweep per state of the GraphDef (graph_edits); nothing is left (LeakSanitizer; ThreadSanitizer when the
 *    same file runs in the tsan build, tests/api).
 *  - edited_while_pending: a GraphDef edited while the sweep reads it is an internal error of
 *    the lowering pass and of a re-index.
 *  - (--fault-injection) alloc_failures, below. */
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

#include "passes/context.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "util/arena.h"

enum { N_BIG = 12000, N_SMALL = 200 };

typedef struct fx {
  char dir[256];
  char big[300], small[300];
  char out_nodes_big[64], out_nodes_small[64];
} fx;

static void write_chain(const char *path, int n) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
             "attr { key: \"shape\" value { shape { dim { size: 2 } } } } }\n");
  for (int i = 0; i < n; i++) {
    char in[32] = "x";
    if (i) snprintf(in, sizeof in, "chain/n%d", i - 1);
    fprintf(f, "node { name: \"chain/n%d\" op: \"Identity\" input: \"%s\" attr { key: \"T\" "
               "value { type: DT_FLOAT } } }\n", i, in);
  }
  assert_int_equal(fclose(f), 0);
}

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  assert_non_null(f);
  const char *tmp = getenv("TMPDIR");
  snprintf(f->dir, sizeof f->dir, "%s/tfxc-release-jobs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(f->dir));
  snprintf(f->big, sizeof f->big, "%s/big.pbtxt", f->dir);
  snprintf(f->small, sizeof f->small, "%s/small.pbtxt", f->dir);
  write_chain(f->big, N_BIG);
  write_chain(f->small, N_SMALL);
  snprintf(f->out_nodes_big, sizeof f->out_nodes_big, "chain/n%d:0", N_BIG / 2 - 1);
  snprintf(f->out_nodes_small, sizeof f->out_nodes_small, "chain/n%d:0", N_SMALL / 2 - 1);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  unlink(f->big);
  unlink(f->small);
  rmdir(f->dir);
  free(f);
  return 0;
}

static void opts_for(tfx_options *o, const char *model, const char *outs, unsigned jobs) {
  memset(o, 0, sizeof *o);
  o->model_path = model;
  o->out_nodes = outs;
  o->jobs = jobs;
  o->verbose = -1;
  o->emit = 1u << TFX_EMIT_AIR; /* a GE output: op mapping and lowering run */
}

/* A session run to the end of op mapping (the state lowering starts from). */
typedef struct run {
  tfx_options o;
  tfx_diag d;
  tfx_ctx ctx;
  tfx_pipeline p;
} run;

static void run_open(run *r, const char *model, const char *outs, unsigned jobs) {
  opts_for(&r->o, model, outs, jobs);
  tfx_diag_init(&r->d);
  tfx_ctx_init(&r->ctx, &r->o, &r->d);
  tfx_pipeline_init(&r->p);
  assert_int_equal(tfx_pass_register_builtin(&r->p), 0);
  int rc = tfx_pipeline_run(&r->p, &r->ctx, TFX_GROUP_OP_MAPPING);
  if (rc) tfx_diag_print(&r->d, stderr);
  assert_int_equal(rc, 0);
  assert_true(r->ctx.graph_edits > 0); /* prune removed nodes: the sweep has work */
}

static void run_close(run *r) {
  tfx_ctx_free(&r->ctx);
  assert_null(r->ctx.release_job);
  tfx_pipeline_free(&r->p);
  tfx_diag_free(&r->d);
}

static uint8_t *pack_graph(const tfx_ctx *ctx, size_t *n) {
  const ProtobufCMessage *m = &ctx->model.graph->base;
  *n = protobuf_c_message_get_packed_size(m);
  uint8_t *b = malloc(*n ? *n : 1);
  assert_non_null(b);
  assert_int_equal(protobuf_c_message_pack(m, b), *n);
  return b;
}

static void same_release(void **state) {
  fx *f = *state;
  run a, b, c;
  run_open(&a, f->big, f->out_nodes_big, 1); /* no early sweep: pending only when asked below */
  run_open(&b, f->big, f->out_nodes_big, 1);
  run_open(&c, f->big, f->out_nodes_big, 2); /* the op mapping started it; the run's end joined */
  assert_true(a.ctx.model.arena.total >= TFX_RELEASE_THREAD_MIN);
  assert_int_equal(a.ctx.model.graph->n_node, N_BIG / 2 + 1);
  assert_int_equal(a.ctx.swept, 0);
  assert_int_equal(c.ctx.swept, 1);
  assert_null(c.ctx.release_job);
  size_t n0, n1, n2, n3;
  uint8_t *before = pack_graph(&a.ctx, &n0);
  /* threaded: pending until the join */
  assert_int_equal(tfx_ctx_release_unused(&a.ctx, 1), 0);
  assert_non_null(a.ctx.release_job);
  assert_int_equal(a.ctx.have_scopes, 0); /* what goes at once went at once */
  tfx_ctx_release_join(&a.ctx);
  assert_null(a.ctx.release_job);
  /* inline */
  size_t inl = tfx_ctx_release_unused(&b.ctx, 0);
  assert_null(b.ctx.release_job);
  assert_int_equal(b.ctx.released, inl);
  /* ~6000 removed NodeDefs of ~150 arena bytes: most of their pages went back */
  assert_true(inl >= (size_t)(N_BIG / 2) * 50);
  assert_int_equal(a.ctx.released, inl);
  assert_int_equal(a.ctx.model.arena.released, a.ctx.released);
  assert_int_equal(c.ctx.released, inl);
  assert_int_equal(c.ctx.model.arena.released, inl);
  /* lowering's release after the op mapping's sweep sweeps nothing again */
  assert_int_equal(tfx_ctx_release_unused(&c.ctx, 1), inl);
  assert_null(c.ctx.release_job);
  assert_int_equal(c.ctx.model.arena.released, inl);
  uint8_t *after_a = pack_graph(&a.ctx, &n1);
  uint8_t *after_b = pack_graph(&b.ctx, &n2);
  uint8_t *after_c = pack_graph(&c.ctx, &n3);
  assert_int_equal(n1, n0);
  assert_int_equal(n2, n0);
  assert_int_equal(n3, n0);
  assert_memory_equal(after_a, before, n0);
  assert_memory_equal(after_b, before, n0);
  assert_memory_equal(after_c, before, n0);
  free(before);
  free(after_a);
  free(after_b);
  free(after_c);
  run_close(&a);
  run_close(&b);
  run_close(&c);
}

static void small_model_inline(void **state) {
  fx *f = *state;
  run a;
  run_open(&a, f->small, f->out_nodes_small, 2);
  assert_true(a.ctx.model.arena.total < TFX_RELEASE_THREAD_MIN);
  assert_int_equal(a.ctx.swept, 0); /* the early sweep is a thread's or none */
  tfx_ctx_sweep_model(&a.ctx, -1);
  assert_int_equal(a.ctx.swept, 0);
  assert_true(tfx_ctx_release_unused(&a.ctx, 1) > 0);
  assert_null(a.ctx.release_job); /* swept here: a thread would cost more than the walk */
  assert_int_equal(a.ctx.swept, 1);
  run_close(&a);
}

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *fp = fopen(path, "rb");
  assert_non_null(fp);
  assert_int_equal(fseek(fp, 0, SEEK_END), 0);
  long len = ftell(fp);
  assert_true(len > 0);
  rewind(fp);
  uint8_t *b = malloc((size_t)len);
  assert_non_null(b);
  assert_int_equal(fread(b, 1, (size_t)len, fp), (size_t)len);
  fclose(fp);
  *n = (size_t)len;
  return b;
}

static void same_air(void **state) {
  fx *f = *state;
  char path[2][320];
  size_t released[2], len[2];
  uint8_t *bytes[2];
  for (int k = 0; k < 2; k++) {
    unsigned jobs = k ? 2 : 1;
    snprintf(path[k], sizeof path[k], "%s/out%u.air", f->dir, jobs);
    run r;
    opts_for(&r.o, f->big, f->out_nodes_big, jobs);
    r.o.out_path[TFX_EMIT_AIR] = path[k];
    tfx_diag_init(&r.d);
    tfx_ctx_init(&r.ctx, &r.o, &r.d);
    tfx_pipeline_init(&r.p);
    assert_int_equal(tfx_pass_register_builtin(&r.p), 0);
    int rc = tfx_pipeline_run(&r.p, &r.ctx, TFX_GROUP_EMIT);
    if (rc) tfx_diag_print(&r.d, stderr);
    assert_int_equal(rc, 0);
    assert_null(r.ctx.release_job); /* the lowering pass joined it */
    released[k] = r.ctx.released;
    assert_int_equal(r.ctx.model.arena.released, released[k]);
    run_close(&r);
    bytes[k] = slurp(path[k], &len[k]);
    unlink(path[k]);
  }
  assert_true(released[0] > 0);
  assert_int_equal(released[1], released[0]);
  assert_int_equal(len[1], len[0]);
  assert_memory_equal(bytes[1], bytes[0], len[0]);
  free(bytes[0]);
  free(bytes[1]);
}

static void joins(void **state) {
  fx *f = *state;
  run a;
  /* tfx_ctx_free with the sweep pending (run_close asserts it is gone) */
  run_open(&a, f->big, f->out_nodes_big, 1);
  tfx_ctx_sweep_model(&a.ctx, -1);
  assert_non_null(a.ctx.release_job);
  run_close(&a);
  /* a re-index joins first (it rebuilds the module from the GraphDef the sweep reads) */
  run_open(&a, f->big, f->out_nodes_big, 1);
  (void)tfx_ctx_release_unused(&a.ctx, 1);
  assert_non_null(a.ctx.release_job);
  assert_int_equal(tfx_ctx_reindex(&a.ctx), 0);
  assert_null(a.ctx.release_job);
  size_t first = a.ctx.released;
  assert_true(first > 0);
  /* once per state of the GraphDef: nothing pending, nothing new */
  tfx_ctx_sweep_model(&a.ctx, 1);
  assert_null(a.ctx.release_job);
  assert_int_equal(a.ctx.released, first);
  /* an edit makes a new state: swept again, a pending one joined
   * by the end of a pipeline run */
  a.ctx.graph_edits++;
  tfx_ctx_sweep_model(&a.ctx, 1);
  assert_non_null(a.ctx.release_job);
  tfx_pipeline p;
  tfx_pipeline_init(&p); /* no pass: the run only ends */
  assert_int_equal(tfx_pipeline_run(&p, &a.ctx, TFX_GROUP_LOAD), 0);
  tfx_pipeline_free(&p);
  assert_null(a.ctx.release_job);
  /* the same unreachable pages again (a page given back twice counts twice) */
  assert_int_equal(a.ctx.released, first);
  assert_int_equal(a.ctx.model.arena.released, 2 * first);
  run_close(&a);
}

/* The invariant the early sweep rests on, checked: a GraphDef edited (graph_edits bumped)
 * while the sweep is pending fails the lowering pass, and a re-index, with an internal error
 * (not silently: what was given back may have been reachable). */
static int has_error(const tfx_diag *d, const char *needle) {
  for (size_t i = 0; i < d->n; i++)
    if (d->items[i].sev == TFX_SEV_ERROR && strstr(d->items[i].msg, needle)) return 1;
  return 0;
}

static void edited_while_pending(void **state) {
  fx *f = *state;
  run a;
  run_open(&a, f->big, f->out_nodes_big, 1);
  tfx_ctx_sweep_model(&a.ctx, -1);
  assert_non_null(a.ctx.release_job);
  assert_int_equal(tfx_pass_lower(&a.ctx, NULL), TFX_OK); /* untouched: lowering is fine */
  assert_null(a.ctx.release_job);
  assert_int_equal(a.d.errors, 0);
  a.ctx.graph_edits++; /* a new state: swept again, and "edited" while that sweep runs */
  tfx_ctx_sweep_model(&a.ctx, -1);
  assert_non_null(a.ctx.release_job);
  a.ctx.graph_edits++;
  assert_int_equal(tfx_pass_lower(&a.ctx, NULL), TFX_E_FAIL);
  assert_null(a.ctx.release_job);
  assert_true(has_error(&a.d, "GraphDef was edited while"));
  run_close(&a);
  /* the same through a re-index */
  run_open(&a, f->big, f->out_nodes_big, 1);
  tfx_ctx_sweep_model(&a.ctx, -1);
  assert_non_null(a.ctx.release_job);
  a.ctx.graph_edits++;
  assert_int_equal(tfx_ctx_reindex(&a.ctx), TFX_E_FAIL);
  assert_null(a.ctx.release_job);
  assert_true(has_error(&a.d, "GraphDef was edited while"));
  run_close(&a);
}

/* (--fault-injection) each allocation of the early sweep and lowering's release fails in turn
 * (the job record, the sweep's span and bit tables): no crash, no leak; the GraphDef packs to
 * the same bytes. With the early sweep (early 1), any failure leaves the sweep to lowering's
 * release, which makes it: the failure-free count. Without it, a missing record makes the
 * release sweep inline (the same count), a missing table gives nothing back (not an error:
 * the pages stay). */
static void alloc_failures(void **state) {
  fx *f = *state;
  for (int early = 1; early >= 0; early--) {
    size_t want = 0;
    long total = 0, kept = 0, swept = 0;
    for (long k = 0;; k++) {
      run a;
      run_open(&a, f->big, f->out_nodes_big, 1);
      size_t n0, n1;
      uint8_t *before = pack_graph(&a.ctx, &n0);
      tfx_alloc_fail_at(k);
      if (early) tfx_ctx_sweep_model(&a.ctx, -1);
      (void)tfx_ctx_release_unused(&a.ctx, 1);
      tfx_ctx_release_join(&a.ctx);
      long hits = tfx_alloc_failures(), calls = tfx_alloc_calls();
      tfx_alloc_fail_at(0);
      uint8_t *after = pack_graph(&a.ctx, &n1);
      assert_int_equal(n1, n0);
      assert_memory_equal(after, before, n0);
      free(before);
      free(after);
      if (k == 0) {
        want = a.ctx.released;
        total = calls;
        assert_true(want > 0);
        assert_int_equal(total, 3); /* the record, the spans, the bits */
      } else {
        assert_int_equal(hits, 1);
        assert_true(a.ctx.released == want || a.ctx.released == 0);
        assert_int_equal(a.ctx.model.arena.released, a.ctx.released);
        kept += a.ctx.released == 0;
        swept += a.ctx.released == want;
      }
      run_close(&a);
      if (k >= total) break;
    }
    fprintf(stderr, "release jobs (early %d): %ld allocations; %ld failures kept the pages, %ld "
            "swept\n", early, total, kept, swept);
    assert_int_equal(kept, early ? 0 : 2);
    assert_int_equal(swept, early ? 3 : 1);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        cmocka_unit_test_setup_teardown(alloc_failures, setup, teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(same_release, setup, teardown),
      cmocka_unit_test_setup_teardown(small_model_inline, setup, teardown),
      cmocka_unit_test_setup_teardown(same_air, setup, teardown),
      cmocka_unit_test_setup_teardown(joins, setup, teardown),
      cmocka_unit_test_setup_teardown(edited_while_pending, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
