/* The ScopeTree built on a thread of the index pass (issue 16, passes/pass_load.c).
 * Stage: tests (passes, in process). A generated model (a main graph of nested scopes, odd
 * names, several op types; a library function, so the index goes on after the main graph) is
 * loaded and indexed with the run's jobs 1, 2 and 0 (automatic), and:
 *  - same_tree: with jobs 2 the index pass has a thread pending when the scope-tree pass is next
 *    (ctx->scope_tree_next), with jobs 1 never; the tree the scope-tree pass then holds is the
 *    jobs-1 tree field for field (every scope's names, parent, depth, children, nodes, counts,
 *    subtree sizes and dfs positions, the dfs order, node -> scope, the name map's slots), both
 *    passes called directly and through tfx_pipeline_run; a threaded tree that differed fails.
 *  - depth_limit: --limit scope-depth below the model's depth: the same messages in the same
 *    order and the same status (TFX_E_INPUT) with jobs 1, 2 and 0; also after the index's own
 *    warnings (a lenient index of a model with a dangling input: its warnings come first).
 *  - index_fails: a function body with a duplicate node name fails the index after the main
 *    graph's callback (the main graph was fine, and too deep for the limit): the thread is
 *    joined, its tree and its message dropped (the diagnostics are jobs 1's: the index's errors
 *    only); a duplicate name in the main graph fails it before the callback: the thread,
 *    waiting for the op ids, is told they are not coming (or found the depth error before).
 *  - joins: a pending thread is joined by tfx_ctx_free, by the index pass run again, and at
 *    the end of a run that stops between index and scope-tree (a --dump-after dump of "index"
 *    that fails); nothing is left (LeakSanitizer, ThreadSanitizer in the tsan build).
 *  - (--fault-injection) every allocation of load, index and scope-tree with jobs 2 fails in
 *    turn (tfx_alloc_fail_arena(1)): the run fails with TFX_E_NOMEM and an error, or succeeds
 *    with the jobs-1 tree; the thread's allocations are counted on the caller's hooks (the
 *    total is jobs 1's plus the job's record). The same file runs under ThreadSanitizer (tests/api). */
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
#include "util/strbuf.h"

typedef struct fx {
  char dir[256];
  char model[300];     /* the main model */
  char bad_fn[300];    /* a function body with a duplicate name */
  char dangling[300];  /* a dangling input (lenient index: a warning) */
  char small[300];     /* the fault sweep's model */
  char bad_main[300];  /* a duplicate name in the main graph */
} fx;

static void put(const char *path, const char *s) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fputs(s, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
}

/* n nodes in scopes up to 5 deep (a/b_1/c/...), some odd names, four op types; with a
 * function whose body has a duplicate name when bad_fn, and a dangling input when dangling. */
static char *model_text(unsigned n, int bad_fn, int dangling) {
  size_t cap = (size_t)n * 200 + 4096, len = 0;
  char *s = malloc(cap);
  assert_non_null(s);
  static const char *ops[] = {"Relu", "Identity", "Add", "Mul"};
  len += (size_t)snprintf(s + len, cap - len,
                          "node { name: \"x\" op: \"Placeholder\" "
                          "attr { key: \"dtype\" value { type: DT_FLOAT } } }\n");
  for (unsigned i = 0; i < n; i++) {
    char name[160];
    unsigned d = i % 6;
    int o = snprintf(name, sizeof name, "%s", "");
    for (unsigned k = 0; k < d; k++)
      o += snprintf(name + o, sizeof name - (size_t)o, "s%u_%u/", (i / (k + 3)) % 4, k % 2);
    if (i % 97 == 5) snprintf(name + o, sizeof name - (size_t)o, "/odd//n%u", i);
    else snprintf(name + o, sizeof name - (size_t)o, "n%u", i);
    len += (size_t)snprintf(s + len, cap - len, "node { name: \"%s\" op: \"%s\" input: \"%s\" }\n",
                            name, ops[i % 4], dangling && i == n / 2 ? "nowhere" : "x");
  }
  len += (size_t)snprintf(s + len, cap - len,
                          "library { function { signature { name: \"f\" input_arg { name: \"a\" "
                          "type: DT_FLOAT } }\n"
                          "  node_def { name: \"p/q\" op: \"Relu\" input: \"a\" }\n"
                          "  node_def { name: \"%s\" op: \"Relu\" input: \"a\" } } }\n",
                          bad_fn ? "p/q" : "p/r");
  return s;
}

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  assert_non_null(f);
  const char *tmp = getenv("TMPDIR");
  snprintf(f->dir, sizeof f->dir, "%s/tfxc-scope-jobs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(f->dir));
  snprintf(f->model, sizeof f->model, "%s/m.pbtxt", f->dir);
  snprintf(f->bad_fn, sizeof f->bad_fn, "%s/bad.pbtxt", f->dir);
  snprintf(f->dangling, sizeof f->dangling, "%s/dangling.pbtxt", f->dir);
  snprintf(f->small, sizeof f->small, "%s/small.pbtxt", f->dir);
  snprintf(f->bad_main, sizeof f->bad_main, "%s/bad_main.pbtxt", f->dir);
  char *t = model_text(3000, 0, 0);
  put(f->model, t);
  free(t);
  t = model_text(300, 1, 0);
  put(f->bad_fn, t);
  free(t);
  t = model_text(300, 0, 1);
  put(f->dangling, t);
  free(t);
  t = model_text(40, 0, 0);
  put(f->small, t);
  free(t);
  t = model_text(300, 0, 0); /* node "x" twice: the index fails before its callback */
  char *t2 = malloc(strlen(t) + 200);
  assert_non_null(t2);
  snprintf(t2, strlen(t) + 200, "%snode { name: \"x\" op: \"Relu\" }\n", t);
  put(f->bad_main, t2);
  free(t2);
  free(t);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  unlink(f->model);
  unlink(f->bad_fn);
  unlink(f->dangling);
  unlink(f->small);
  unlink(f->bad_main);
  rmdir(f->dir);
  free(f);
  return 0;
}

/* ---- the tree, field for field ---- */

static void put_u32s(tfx_strbuf *b, const uint32_t *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) tfx_sb_printf(b, " %u", v[i]);
  tfx_sb_printf(b, "\n");
}

static void tree_text(const tfx_scope_tree *t, tfx_strbuf *b) {
  tfx_sb_printf(b, "scopes %u odd %d cap %u\n", t->n_scopes, t->odd_names, t->name_cap);
  for (uint32_t i = 0; i < t->n_scopes; i++) {
    const tfx_scope *s = &t->scopes[i];
    tfx_sb_printf(b, "%u '%s' '%s' p%u d%u all%u dfs%u..%u sub%u\n children", i, s->name,
                  s->last_name, s->parent, s->depth, s->n_all_nodes, s->dfs_index, s->dfs_end,
                  s->sub_type);
    put_u32s(b, s->children, s->n_children);
    tfx_sb_printf(b, " nodes");
    put_u32s(b, s->nodes, s->n_nodes);
    for (uint32_t k = 0; k < s->n_counts; k++)
      tfx_sb_printf(b, " %u:%u", s->counts[k].op_id, s->counts[k].count);
    tfx_sb_printf(b, "\n");
  }
  tfx_sb_printf(b, "dfs");
  put_u32s(b, t->dfs, t->n_scopes);
  tfx_sb_printf(b, "node_scope");
  put_u32s(b, t->node_scope, t->graph ? t->graph->n_nodes : 0);
  for (uint32_t i = 0; i < t->name_cap; i++)
    if (t->name_slots[i]) tfx_sb_printf(b, "%u=%llu ", i, (unsigned long long)t->name_slots[i]);
  tfx_sb_printf(b, "\n");
}

static void diag_text(const tfx_diag *d, tfx_strbuf *b) {
  tfx_sb_printf(b, "errors %zu warnings %zu\n", d->errors, d->warnings);
  for (size_t i = 0; i < d->n; i++) tfx_sb_printf(b, "%d %s\n", (int)d->items[i].sev, d->items[i].msg);
}

static void opts_for(tfx_options *o, const char *model, unsigned jobs) {
  memset(o, 0, sizeof *o);
  o->model_path = model;
  o->jobs = jobs;
  o->verbose = -1;
  o->no_stdlib = 1; /* the rules pass compiles nothing */
}

/* load, index (with the scope-tree pass next), scope-tree, called directly. Returns the status
 * of the first failing pass; *threaded: a thread was pending after the index. The tree (when
 * built) and the diagnostics go to text. */
static int direct(const tfx_options *o, int *threaded, tfx_strbuf *text) {
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ctx ctx;
  tfx_ctx_init(&ctx, o, &d);
  int rc = tfx_pass_load(&ctx, NULL);
  *threaded = 0;
  if (!rc) {
    ctx.scope_tree_next = 1;
    rc = tfx_pass_index(&ctx, NULL);
    ctx.scope_tree_next = 0;
    *threaded = ctx.scope_job != NULL;
    if (rc) assert_null(ctx.scope_job); /* a failed index joined it */
  }
  if (!rc) {
    rc = tfx_pass_scope_tree(&ctx, NULL);
    assert_null(ctx.scope_job);
    assert_int_equal(ctx.have_scopes, rc == 0);
    if (!rc) tree_text(&ctx.scopes, text);
  }
  diag_text(&d, text);
  tfx_ctx_free(&ctx);
  tfx_diag_free(&d);
  return rc;
}

/* fault injection around the run only (not the test's own buffers): arm_at >= 0 arms it
 * (tfx_alloc_fail_at(arm_at), every arena allocation counted) for tfx_pipeline_run alone, and
 * what it counted is left here */
static long arm_at = -1, run_calls, run_hits;

/* The pipeline's load .. scope-tree (the PRUNE group; the rules pass with no rule files). */
static int piped(const tfx_options *o, tfx_strbuf *text, tfx_dump_fn dump) {
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_pipeline p;
  tfx_pipeline_init(&p);
  assert_int_equal(tfx_pass_register_builtin(&p), 0);
  if (dump) p.dump = dump;
  tfx_ctx ctx;
  tfx_ctx_init(&ctx, o, &d);
  if (arm_at >= 0) {
    tfx_alloc_fail_arena(1);
    tfx_alloc_fail_at(arm_at);
  }
  int rc = tfx_pipeline_run(&p, &ctx, TFX_GROUP_PRUNE);
  if (arm_at >= 0) {
    run_calls = tfx_alloc_calls();
    run_hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    tfx_alloc_fail_arena(0);
  }
  assert_null(ctx.scope_job); /* no thread outlives a run */
  if (!rc && ctx.have_scopes) tree_text(&ctx.scopes, text);
  diag_text(&d, text);
  tfx_ctx_free(&ctx);
  tfx_pipeline_free(&p);
  tfx_diag_free(&d);
  return rc;
}

static void same_text(const tfx_strbuf *a, const tfx_strbuf *b, const char *what) {
  if (a->len != b->len || memcmp(a->data, b->data, a->len) != 0) {
    fprintf(stderr, "--- jobs 1:\n%.2000s\n--- %s:\n%.2000s\n", a->data, what, b->data);
    fail_msg("%s: not the jobs-1 result", what);
  }
}

static void same_tree(void **state) {
  fx *f = *state;
  tfx_options o;
  tfx_strbuf one, other;
  tfx_sb_init(&one);
  int threaded = 0;
  opts_for(&o, f->model, 1);
  assert_int_equal(direct(&o, &threaded, &one), 0);
  assert_int_equal(threaded, 0); /* jobs 1: today's serial build */
  assert_true(one.len > 1000);
  static const unsigned jobs[] = {2, 0, 2};
  for (int k = 0; k < 3; k++) {
    opts_for(&o, f->model, jobs[k]);
    tfx_sb_init(&other);
    assert_int_equal(direct(&o, &threaded, &other), 0);
    assert_int_equal(threaded, tfx_io_jobs(jobs[k]) >= 2);
    same_text(&one, &other, "direct, jobs 2/0");
    tfx_sb_free(&other);
  }
  for (int k = 0; k < 2; k++) { /* the pipeline: the same tree again */
    opts_for(&o, f->model, k ? 2 : 1);
    tfx_sb_init(&other);
    assert_int_equal(piped(&o, &other, NULL), 0);
    same_text(&one, &other, k ? "pipeline, jobs 2" : "pipeline, jobs 1");
    tfx_sb_free(&other);
  }
  tfx_sb_free(&one);
}

static void depth_limit(void **state) {
  fx *f = *state;
  const char *models[] = {f->model, f->dangling};
  for (int m = 0; m < 2; m++) {
    tfx_options o;
    tfx_strbuf one, other;
    tfx_sb_init(&one);
    int threaded = 0;
    opts_for(&o, models[m], 1);
    o.limits.v[TFX_LIMIT_SCOPE_DEPTH] = 3;
    o.lenient_index = m == 1;
    assert_int_equal(direct(&o, &threaded, &one), TFX_E_INPUT);
    assert_non_null(strstr(one.data, "its scopes nest deeper than the limit of 3"));
    if (m == 1) /* the index's warning, then the tree's error */
      assert_true(strstr(one.data, "nowhere") < strstr(one.data, "nest deeper"));
    for (unsigned j = 0; j < 3; j++) {
      opts_for(&o, models[m], j == 1 ? 2 : j);
      o.limits.v[TFX_LIMIT_SCOPE_DEPTH] = 3;
      o.lenient_index = m == 1;
      tfx_sb_init(&other);
      assert_int_equal(direct(&o, &threaded, &other), TFX_E_INPUT);
      if (j) assert_int_equal(threaded, tfx_io_jobs(o.jobs) >= 2);
      same_text(&one, &other, "depth limit");
      tfx_sb_free(&other);
      tfx_sb_init(&other);
      assert_int_equal(piped(&o, &other, NULL), TFX_E_INPUT);
      same_text(&one, &other, "depth limit, pipeline");
      tfx_sb_free(&other);
    }
    tfx_sb_free(&one);
  }
}

static void index_fails(void **state) {
  fx *f = *state;
  tfx_options o;
  tfx_strbuf one, two;
  tfx_sb_init(&one);
  tfx_sb_init(&two);
  int threaded = 0;
  opts_for(&o, f->bad_fn, 1);
  o.limits.v[TFX_LIMIT_SCOPE_DEPTH] = 2;
  assert_int_equal(direct(&o, &threaded, &one), TFX_E_INPUT);
  assert_non_null(strstr(one.data, "duplicate node name 'p/q'"));
  assert_null(strstr(one.data, "nest deeper"));
  opts_for(&o, f->bad_fn, 2);
  o.limits.v[TFX_LIMIT_SCOPE_DEPTH] = 2;
  assert_int_equal(direct(&o, &threaded, &two), TFX_E_INPUT);
  same_text(&one, &two, "index failing after the thread started");
  tfx_sb_free(&one);
  tfx_sb_free(&two);
  /* the main graph fails: the thread, waiting for op ids that never come, is told so (with
   * and without a scope-depth error it found before waiting) */
  for (uint32_t lim = 0; lim < 3; lim += 2) {
    tfx_sb_init(&one);
    tfx_sb_init(&two);
    opts_for(&o, f->bad_main, 1);
    o.limits.v[TFX_LIMIT_SCOPE_DEPTH] = lim;
    assert_int_equal(direct(&o, &threaded, &one), TFX_E_INPUT);
    assert_non_null(strstr(one.data, "duplicate node name 'x'"));
    opts_for(&o, f->bad_main, 2);
    o.limits.v[TFX_LIMIT_SCOPE_DEPTH] = lim;
    assert_int_equal(direct(&o, &threaded, &two), TFX_E_INPUT);
    same_text(&one, &two, "main graph failing");
    tfx_sb_free(&two);
    tfx_sb_init(&two);
    assert_int_equal(piped(&o, &two, NULL), TFX_E_INPUT);
    same_text(&one, &two, "main graph failing, pipeline");
    tfx_sb_free(&one);
    tfx_sb_free(&two);
  }
}

static int failing_dump(tfx_ctx *ctx, const tfx_pass *pass, unsigned pos, void *user) {
  (void)pass, (void)pos, (void)user;
  assert_non_null(ctx->scope_job); /* between index and scope-tree: the thread runs */
  tfx_error(ctx->diag, NULL, 0, 0, "dump failed");
  return TFX_E_INPUT;
}

static void joins(void **state) {
  fx *f = *state;
  tfx_options o;
  opts_for(&o, f->model, 2);
  for (int way = 0; way < 2; way++) {
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_ctx ctx;
    tfx_ctx_init(&ctx, &o, &d);
    assert_int_equal(tfx_pass_load(&ctx, NULL), 0);
    ctx.scope_tree_next = 1;
    assert_int_equal(tfx_pass_index(&ctx, NULL), 0);
    assert_non_null(ctx.scope_job);
    if (way == 1) { /* the index again: the first thread's tree is dropped */
      assert_int_equal(tfx_pass_index(&ctx, NULL), 0);
      assert_non_null(ctx.scope_job);
    }
    tfx_ctx_free(&ctx); /* joins */
    assert_null(ctx.scope_job);
    assert_int_equal(ctx.have_scopes, 0);
    assert_int_equal((int)d.n, 0);
    tfx_diag_free(&d);
  }
  /* a run that stops between index and scope-tree */
  o.dump_after = "index";
  tfx_strbuf text;
  tfx_sb_init(&text);
  assert_int_equal(piped(&o, &text, failing_dump), TFX_E_INPUT);
  assert_non_null(strstr(text.data, "dump failed"));
  assert_null(strstr(text.data, "scopes ")); /* no tree */
  tfx_sb_free(&text);
}

/* ---- fault injection ---- */

static long count_run(const tfx_options *o, tfx_strbuf *text) {
  arm_at = 0;
  int rc = piped(o, text, NULL);
  arm_at = -1;
  assert_int_equal(rc, 0);
  return run_calls;
}

static void alloc_failures(void **state) {
  fx *f = *state;
  tfx_options o1, o2;
  opts_for(&o1, f->small, 1);
  opts_for(&o2, f->small, 2);
  tfx_strbuf ref, two;
  tfx_sb_init(&ref);
  tfx_sb_init(&two);
  assert_int_equal(piped(&o1, &ref, NULL), 0); /* warm-up: process-wide tables get built */
  tfx_sb_reset(&ref);
  long total = count_run(&o1, &ref);
  long total2 = count_run(&o2, &two);
  same_text(&ref, &two, "jobs 2, no failure");
  tfx_sb_free(&two);
  /* the thread's allocations are counted as the caller's: every one of the serial run's, and
   * the job's record (tfx_calloc in pass_load.c); uncounted, the tree's would be missing */
  assert_int_equal(total2, total + 1);
  total = total2;
  long failed = 0, ok = 0;
  for (long n = 1; n <= total; n++) {
    tfx_strbuf got;
    tfx_sb_init(&got);
    arm_at = n;
    int rc = piped(&o2, &got, NULL);
    arm_at = -1;
    int hit = run_hits > 0;
    if (!hit) fail_msg("allocation %ld of %ld was never made", n, total);
    if (rc) {
      failed++;
      if (rc != TFX_E_NOMEM) fail_msg("allocation %ld: status %d, not TFX_E_NOMEM", n, rc);
      if (!strstr(got.data, "out of memory")) fail_msg("allocation %ld: no error: %s", n, got.data);
    } else {
      ok++;
      same_text(&ref, &got, "a run that survived a failed allocation");
    }
    tfx_sb_free(&got);
  }
  fprintf(stderr, "scope jobs: %ld allocations, %ld runs failed, %ld succeeded\n", total, failed, ok);
  tfx_sb_free(&ref);
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
      cmocka_unit_test_setup_teardown(same_tree, setup, teardown),
      cmocka_unit_test_setup_teardown(depth_limit, setup, teardown),
      cmocka_unit_test_setup_teardown(index_fails, setup, teardown),
      cmocka_unit_test_setup_teardown(joins, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
