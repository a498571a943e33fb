/* Unit tests for the pass pipeline (src/passes/pipeline.c, context.c).
 * Stage: tests (passes). Covers run order by (group, phase, registration), timing, stop on
 * failure with the pass's exit code, group limits, --disable-pass, --dump-after selection
 * (custom hook and the real text dump), the --list-passes / --time-passes tables, the
 * release of what nothing reads before lowering, and the name helpers. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ge/ge.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"

/* ---- a recording pass ---- */

typedef struct run_log {
  char names[32][32];
  int n;
  int fail_at;   /* name index (in names order) that fails, -1 none */
  int fail_code;
  int report;    /* the failing pass reports an error itself */
} run_log;

typedef struct rec {
  run_log *log;
  const char *name;
  int rc;          /* returned */
  double spin_ms;  /* busy wait */
} rec;

static tfx_status rec_pass(tfx_ctx *ctx, void *user) {
  rec *r = user;
  snprintf(r->log->names[r->log->n++], 32, "%s", r->name);
  if (r->spin_ms > 0) {
    double t0 = tfx_pipeline_now_ms();
    while (tfx_pipeline_now_ms() - t0 < r->spin_ms) {
    }
  }
  if (r->rc && r->log->report) tfx_error(ctx->diag, NULL, 0, 0, "pass %s says no", r->name);
  return r->rc;
}

typedef struct fixture {
  tfx_pipeline p;
  tfx_options o;
  tfx_diag d;
  tfx_ctx ctx;
  run_log log;
  rec recs[16];
  int n_recs;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f) return -1;
  tfx_pipeline_init(&f->p);
  tfx_diag_init(&f->d);
  tfx_ctx_init(&f->ctx, &f->o, &f->d);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  tfx_ctx_free(&f->ctx);
  tfx_pipeline_free(&f->p);
  tfx_diag_free(&f->d);
  free(f);
  return 0;
}

static void add(fixture *f, tfx_pass_group g, int phase, const char *name, int rc, unsigned flags) {
  rec *r = &f->recs[f->n_recs++];
  r->log = &f->log;
  r->name = name;
  r->rc = rc;
  assert_int_equal(tfx_pipeline_register(&f->p, g, phase, name, rec_pass, r, flags), 0);
}

static void assert_log(const fixture *f, const char *const *want, int n) {
  assert_int_equal(f->log.n, n);
  for (int i = 0; i < n; i++) assert_string_equal(f->log.names[i], want[i]);
}

/* ---- tests ---- */

static void test_order(void **state) {
  fixture *f = *state;
  add(f, TFX_GROUP_EMIT, 0, "e", 0, 0);
  add(f, TFX_GROUP_LOAD, 10, "b", 0, 0);
  add(f, TFX_GROUP_LOAD, 0, "a", 0, 0);
  add(f, TFX_GROUP_LOAD, 10, "c", 0, 0);            /* same phase as b: registration order */
  add(f, TFX_GROUP_PRUNE, -5, "p", 0, 0);
  add(f, TFX_GROUP_SCOPE_FUSION, 100, "s2", 0, 0);
  add(f, TFX_GROUP_SCOPE_FUSION, 1, "s1", 0, 0);
  add(f, TFX_GROUP_LOWERING, 0, "lo", 0, 0);
  add(f, TFX_GROUP_OP_MAPPING, 0, "om", 0, 0);
  add(f, TFX_GROUP_GRAPH_FUSION, 0, "gf", 0, 0);
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), 0);
  static const char *const want[] = {"a", "b", "c", "p", "s1", "s2", "gf", "om", "lo", "e"};
  assert_log(f, want, 10);
  for (size_t i = 0; i < f->p.n; i++) {
    assert_true(f->p.passes[i].ran);
    assert_int_equal(f->p.passes[i].position, i + 1);
  }
  /* A second run gives the same order and fresh results. */
  f->log.n = 0;
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), 0);
  assert_log(f, want, 10);
}

static void test_register_errors(void **state) {
  fixture *f = *state;
  add(f, TFX_GROUP_LOAD, 0, "x", 0, 0);
  rec r = {&f->log, "x", 0, 0};
  assert_int_equal(tfx_pipeline_register(&f->p, TFX_GROUP_PRUNE, 0, "x", rec_pass, &r, 0), -2);
  assert_int_equal(tfx_pipeline_register(&f->p, TFX_GROUP__COUNT, 0, "y", rec_pass, &r, 0), -3);
  assert_int_equal(tfx_pipeline_register(&f->p, TFX_GROUP_LOAD, 0, "z", NULL, &r, 0), -3);
  assert_non_null(tfx_pipeline_find(&f->p, "x"));
  assert_null(tfx_pipeline_find(&f->p, "y"));
}

static void test_timing(void **state) {
  fixture *f = *state;
  add(f, TFX_GROUP_LOAD, 0, "fast", 0, 0);
  add(f, TFX_GROUP_PRUNE, 0, "slow", 0, 0);
  f->recs[1].spin_ms = 5.0;
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), 0);
  const tfx_pass *slow = tfx_pipeline_find(&f->p, "slow");
  const tfx_pass *fast = tfx_pipeline_find(&f->p, "fast");
  assert_true(slow->ms >= 4.5);
  assert_true(fast->ms >= 0.0);
  assert_true(f->p.total_ms >= slow->ms);
  double sum = slow->ms + fast->ms;
  assert_true(f->p.total_ms > sum - 1e-9 && f->p.total_ms < sum + 1e-9);

  tfx_strbuf sb;
  tfx_sb_init(&sb);
  tfx_pipeline_timing_table(&f->p, &sb);
  const char *t = tfx_sb_cstr(&sb);
  assert_non_null(strstr(t, "group"));
  assert_non_null(strstr(t, "LOAD"));
  assert_non_null(strstr(t, "PRUNE"));
  assert_non_null(strstr(t, "slow"));
  assert_non_null(strstr(t, "total"));
  assert_non_null(strstr(t, "100.0%"));
  assert_true(strstr(t, "fast") < strstr(t, "slow"));
  tfx_sb_free(&sb);
}

static void test_failure_stops(void **state) {
  fixture *f = *state;
  add(f, TFX_GROUP_LOAD, 0, "one", 0, 0);
  add(f, TFX_GROUP_PRUNE, 0, "bad", TFX_EXIT_INPUT, 0);
  add(f, TFX_GROUP_EMIT, 0, "never", 0, 0);
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), TFX_EXIT_INPUT);
  static const char *const want[] = {"one", "bad"};
  assert_log(f, want, 2);
  assert_false(tfx_pipeline_find(&f->p, "never")->ran);
  assert_int_equal(tfx_pipeline_find(&f->p, "bad")->rc, TFX_EXIT_INPUT);
  /* The pass said nothing, so the runner explained the failure. */
  assert_int_equal(f->d.errors, 1);
  assert_non_null(strstr(f->d.items[0].msg, "bad"));

  tfx_strbuf sb;
  tfx_sb_init(&sb);
  tfx_pipeline_timing_table(&f->p, &sb);
  assert_non_null(strstr(tfx_sb_cstr(&sb), "(failed)"));
  assert_null(strstr(tfx_sb_cstr(&sb), "never"));
  tfx_sb_free(&sb);
}

static void test_failure_reported_once(void **state) {
  fixture *f = *state;
  f->log.report = 1;
  add(f, TFX_GROUP_LOAD, 0, "bad", 4, 0);
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), 4);
  assert_int_equal(f->d.errors, 1);
  assert_string_equal(f->d.items[0].msg, "pass bad says no");
}

static void test_last_group(void **state) {
  fixture *f = *state;
  add(f, TFX_GROUP_LOAD, 0, "l", 0, 0);
  add(f, TFX_GROUP_PRUNE, 0, "p", 0, 0);
  add(f, TFX_GROUP_SCOPE_FUSION, 0, "s", 0, 0);
  add(f, TFX_GROUP_EMIT, 0, "e", 0, 0);
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_PRUNE), 0);
  static const char *const want[] = {"l", "p"};
  assert_log(f, want, 2);
}

static void test_disable(void **state) {
  fixture *f = *state;
  add(f, TFX_GROUP_LOAD, 0, "load", 0, TFX_PASS_REQUIRED);
  add(f, TFX_GROUP_PRUNE, 0, "prune", 0, 0);
  add(f, TFX_GROUP_EMIT, 0, "emit", 0, 0);
  assert_int_equal(tfx_pipeline_disable(&f->p, "prune", &f->d), 0);
  assert_int_equal(f->d.errors, 0);
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), 0);
  static const char *const want[] = {"load", "emit"};
  assert_log(f, want, 2);
  assert_int_equal(tfx_pipeline_find(&f->p, "emit")->position, 2);

  assert_int_equal(tfx_pipeline_disable(&f->p, "load", &f->d), -1);
  assert_non_null(strstr(f->d.items[f->d.n - 1].msg, "required"));
  assert_int_equal(tfx_pipeline_disable(&f->p, "prnue", &f->d), -1);
  assert_non_null(strstr(f->d.items[f->d.n - 1].msg, "did you mean 'prune'"));
  assert_int_equal(tfx_pipeline_disable(&f->p, "emit,", &f->d), -1); /* empty item */

  tfx_strbuf sb;
  tfx_sb_init(&sb);
  tfx_pipeline_list(&f->p, &sb);
  const char *t = tfx_sb_cstr(&sb);
  assert_non_null(strstr(t, "prune  (disabled)"));
  assert_true(strstr(t, "LOAD") < strstr(t, "PRUNE") && strstr(t, "PRUNE") < strstr(t, "EMIT"));
  tfx_sb_free(&sb);
}

typedef struct dump_log {
  char names[16][32];
  unsigned pos[16];
  int n;
} dump_log;

static int rec_dump(tfx_ctx *ctx, const tfx_pass *pass, unsigned pos, void *user) {
  (void)ctx;
  dump_log *l = user;
  snprintf(l->names[l->n], 32, "%s", pass->name);
  l->pos[l->n++] = pos;
  return 0;
}

static void test_dump_selection(void **state) {
  fixture *f = *state;
  dump_log dl = {0};
  f->p.dump = rec_dump;
  f->p.dump_user = &dl;
  add(f, TFX_GROUP_LOAD, 0, "load", 0, 0);
  add(f, TFX_GROUP_LOAD, 1, "off", 0, 0);
  add(f, TFX_GROUP_PRUNE, 0, "prune", 0, 0);
  add(f, TFX_GROUP_EMIT, 0, "emit", 0, 0);
  assert_int_equal(tfx_pipeline_disable(&f->p, "off", &f->d), 0);

  f->o.dump_after = "prune,emit";
  assert_int_equal(tfx_pipeline_check_names(&f->p, f->o.dump_after, 1, "--dump-after", &f->d), 0);
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), 0);
  assert_int_equal(dl.n, 2);
  assert_string_equal(dl.names[0], "prune");
  assert_int_equal(dl.pos[0], 2); /* "off" did not run, so prune is second */
  assert_string_equal(dl.names[1], "emit");
  assert_int_equal(dl.pos[1], 3);

  dl.n = 0;
  f->o.dump_after = "all";
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), 0);
  assert_int_equal(dl.n, 3);

  dl.n = 0;
  f->o.dump_after = NULL;
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), 0);
  assert_int_equal(dl.n, 0);

  /* A failing pass is not dumped. */
  dl.n = 0;
  f->o.dump_after = "all";
  f->recs[2].rc = TFX_EXIT_FAIL;
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), TFX_EXIT_FAIL);
  assert_int_equal(dl.n, 1);
  assert_string_equal(dl.names[0], "load");

  assert_int_equal(tfx_pipeline_check_names(&f->p, "all", 0, "--disable-pass", &f->d), -1);
  assert_int_equal(tfx_pipeline_check_names(&f->p, "prun", 1, "--dump-after", &f->d), -1);
  assert_non_null(strstr(f->d.items[f->d.n - 1].msg, "did you mean 'prune'"));
}

/* The default hook writes <dump_dir>/<NN>-<pass>.pbtxt as a text GraphDef. */
static void test_dump_file(void **state) {
  fixture *f = *state;
  char dir[] = "/tmp/tfxc-pipeline-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char sub[128], file[192];
  snprintf(sub, sizeof sub, "%s/a/b", dir);
  f->o.dump_dir = sub;
  f->o.dump_after = "second";

  Tensorflow__NodeDef node = TENSORFLOW__NODE_DEF__INIT;
  node.name = "n1";
  node.op = "NoOp";
  Tensorflow__NodeDef *nodes[] = {&node};
  Tensorflow__GraphDef gd = TENSORFLOW__GRAPH_DEF__INIT;
  gd.n_node = 1;
  gd.node = nodes;
  f->ctx.model.graph = &gd;
  f->ctx.have_model = 1;

  add(f, TFX_GROUP_LOAD, 0, "first", 0, 0);
  add(f, TFX_GROUP_PRUNE, 0, "second", 0, 0);
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), 0);
  f->ctx.have_model = 0; /* the GraphDef is on the stack, not in a model arena */
  f->ctx.model.graph = NULL;

  snprintf(file, sizeof file, "%s/02-second.pbtxt", sub);
  FILE *fp = fopen(file, "r");
  assert_non_null(fp);
  char buf[256] = {0};
  size_t got = fread(buf, 1, sizeof buf - 1, fp);
  fclose(fp);
  assert_true(got > 0);
  assert_non_null(strstr(buf, "name: \"n1\""));
  assert_non_null(strstr(buf, "op: \"NoOp\""));
  snprintf(file, sizeof file, "%s/01-first.pbtxt", sub);
  assert_int_not_equal(access(file, F_OK), 0);

  /* Clean up the temp tree. */
  snprintf(file, sizeof file, "%s/02-second.pbtxt", sub);
  unlink(file);
  rmdir(sub);
  snprintf(sub, sizeof sub, "%s/a", dir);
  rmdir(sub);
  rmdir(dir);
}

static void test_dump_without_model_warns(void **state) {
  fixture *f = *state;
  f->o.dump_after = "all";
  f->o.dump_dir = "/nonexistent/never-created";
  add(f, TFX_GROUP_LOAD, 0, "x", 0, 0);
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), 0);
  assert_int_equal(f->d.warnings, 1);
  assert_int_equal(f->d.errors, 0);
}

static void test_builtin(void **state) {
  fixture *f = *state;
  assert_int_equal(tfx_pass_register_builtin(&f->p), 0);
  assert_int_equal(tfx_pass_register_builtin(&f->p), -1); /* names are unique */
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  tfx_pipeline_list(&f->p, &sb);
  const char *t = tfx_sb_cstr(&sb);
  const char *l = strstr(t, "load"), *i = strstr(t, "index"), *s = strstr(t, "scope-tree"),
             *p = strstr(t, "prune"), *e = strstr(t, "emit-tf");
  assert_true(l && i && s && p && e);
  assert_true(l < p && p < i && i < s && s < e); /* prune runs before indexing, as in ATC */
  tfx_sb_free(&sb);
  assert_int_equal(tfx_pipeline_disable(&f->p, "index", &f->d), -1);
  assert_int_equal(tfx_pipeline_disable(&f->p, "scope-tree", &f->d), 0);
  /* With no model path the load pass fails as a usage error and stops the run. */
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT), TFX_EXIT_USAGE);
  assert_false(tfx_pipeline_find(&f->p, "index")->ran);
}

/* Before lowering, what nothing reads any more is released (tfx_ctx_release_unused): the
 * ScopeTree (marked stale, rebuilt on demand) and the pages of the NodeDefs prune removed
 * (--out-nodes keeps the first half of a chain); the conversion still succeeds. */
static void test_release_before_lowering(void **state) {
  fixture *f = *state;
  enum { N = 3000 };
  char path[] = "/tmp/tfxc_release_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *fp = fdopen(fd, "w");
  assert_non_null(fp);
  fprintf(fp, "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
              "attr { key: \"shape\" value { shape { dim { size: 2 } } } } }\n");
  for (int i = 0; i < N; i++) {
    char in[32] = "x";
    if (i) snprintf(in, sizeof in, "chain/n%d", i - 1);
    fprintf(fp, "node { name: \"chain/n%d\" op: \"Identity\" input: \"%s\" attr { key: \"T\" "
                "value { type: DT_FLOAT } } }\n", i, in);
  }
  fclose(fp);
  f->o.model_path = path;
  f->o.out_nodes = "chain/n1499:0";
  f->o.emit = 1u << TFX_EMIT_AIR; /* a GE output: op mapping and lowering run (in memory) */
  assert_int_equal(tfx_pass_register_builtin(&f->p), 0);
  int rc = tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_LOWERING);
  unlink(path);
  if (rc) tfx_diag_print(&f->d, stderr);
  assert_int_equal(rc, 0);
  assert_non_null(f->ctx.ge);
  assert_int_equal(f->ctx.model.graph->n_node, 1501);
  /* 1500 removed NodeDefs of ~200 arena bytes each: most of their pages went back */
  assert_true(f->ctx.released >= 1500 * 100);
  assert_int_equal(f->ctx.model.arena.released, f->ctx.released);
  assert_int_equal(f->ctx.have_scopes, 0); /* dropped before lowering */
  assert_int_equal(f->ctx.scopes_stale, 1);
  const tfx_scope_tree *t = tfx_ctx_scopes(&f->ctx); /* rebuilt when asked */
  assert_non_null(t);
  assert_int_equal(f->ctx.have_scopes, 1);
  /* without --out-nodes no pass edits this graph: no sweep, the tree is dropped all the same */
  fp = fopen(path, "w");
  assert_non_null(fp);
  fprintf(fp, "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
              "attr { key: \"shape\" value { shape { dim { size: 2 } } } } }\n"
              "node { name: \"y\" op: \"Identity\" input: \"x\" attr { key: \"T\" value { type: DT_FLOAT } } }\n");
  fclose(fp);
  f->o.out_nodes = NULL;
  rc = tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_LOWERING);
  unlink(path);
  assert_int_equal(rc, 0);
  assert_int_equal(f->ctx.graph_edits, 0);
  assert_int_equal(f->ctx.released, 0);
  assert_int_equal(f->ctx.have_scopes, 0);
  assert_int_equal(f->ctx.scopes_stale, 1);
}

/* A pass that frees a big block: its pages go to this thread's page pool (util/arena.h). */
static tfx_status pool_pass(tfx_ctx *ctx, void *user) {
  (void)ctx;
  size_t *pooled = user;
  void *blk = tfx_pages_alloc((size_t)1 << 20, 0);
  if (!blk) return TFX_E_NOMEM;
  tfx_pages_free(blk, (size_t)1 << 20);
  *pooled = tfx_pages_get_stats().pooled;
  return 0;
}

/* A run leaves nothing in this thread's page pool, whichever pass it stops at (lowering's
 * tfx_ctx_release_unused empties it too, but a run may stop before). */
static void test_run_empties_page_pool(void **state) {
  fixture *f = *state;
  size_t pooled = 0;
  assert_int_equal(tfx_pipeline_register(&f->p, TFX_GROUP_PRUNE, 0, "pool", pool_pass, &pooled, 0), 0);
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_OP_MAPPING), 0);
  assert_true(pooled >= (size_t)1 << 20); /* the pool had it during the run */
  assert_int_equal(tfx_pages_get_stats().pooled, 0);
  /* after the run the pool is off: the same block freed now is not kept */
  assert_int_equal(pool_pass(&f->ctx, &pooled), 0);
  assert_int_equal(pooled, 0);
}

/* The option no_report: before op mapping the dataflow report goes, before lowering the
 * fusion report and the main graph's name map (and the --out-nodes reach lowering as ids,
 * looked up before); without it, or with --check, they stay. The lowered models are the same. */
static void test_no_report_release(void **state) {
  fixture *f = *state;
  enum { N = 40 };
  char path[] = "/tmp/tfxc_noreport_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *fp = fdopen(fd, "w");
  assert_non_null(fp);
  fprintf(fp, "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
              "attr { key: \"shape\" value { shape { dim { size: 2 } } } } }\n");
  for (int i = 0; i < N; i++) {
    char in[32] = "x";
    if (i) snprintf(in, sizeof in, "chain/n%d", i - 1);
    fprintf(fp, "node { name: \"chain/n%d\" op: \"Identity\" input: \"%s\" attr { key: \"T\" "
                "value { type: DT_FLOAT } } }\n", i, in);
  }
  fclose(fp);
  f->o.model_path = path;
  f->o.out_nodes = "chain/n29:0;chain/n9";
  f->o.emit = 1u << TFX_EMIT_AIR; /* a GE output: op mapping and lowering run (in memory) */
  assert_int_equal(tfx_pass_register_builtin(&f->p), 0);
  /* 0: kept (the default); 1: no_report; 2: no_report with --check (the report is the output) */
  for (int run = 0; run < 3; run++) {
    f->o.no_report = run > 0;
    f->o.check_only = run == 2;
    int rc = tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_LOWERING);
    if (rc) tfx_diag_print(&f->d, stderr);
    assert_int_equal(rc, 0);
    assert_non_null(f->ctx.ge);
    int gone = run == 1;
    assert_int_equal(f->ctx.no_report_kept, gone);
    assert_int_equal(f->ctx.fusion_report == NULL, gone);
    assert_int_equal(f->ctx.flow_report == NULL, gone);
    assert_int_equal(f->ctx.module.main.by_name.cap == 0, gone);
    assert_int_equal(f->ctx.module.main.names_dropped, gone);
    /* found all the same (by a scan once the map is gone) */
    uint32_t n9 = tfx_graph_find(&f->ctx.module.main, "chain/n9");
    assert_int_not_equal(n9, TFX_NO_ID);
    assert_string_equal(f->ctx.module.main.nodes[n9].name, "chain/n9");
    assert_int_equal(f->ctx.module.main.n_nodes, 31); /* x .. chain/n29 */
    if (run == 2) continue; /* the precheck: no model kept */
    const Ge__Proto__GraphDef *g = f->ctx.ge->model->graph[0];
    assert_int_equal(g->n_output, 2); /* --out-nodes, in option order */
    assert_string_equal(g->output[0], "chain/n29:0");
    assert_string_equal(g->output[1], "chain/n9:0");
  }
  /* up to op mapping: the dataflow report is gone already (nothing but the report reads it
   * after its pass), what the op mapping read (fusion report, names) is still there */
  f->o.no_report = 1;
  f->o.check_only = 0;
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_OP_MAPPING), 0);
  assert_non_null(f->ctx.opmap);
  assert_int_equal(f->ctx.no_report_kept, 1);
  assert_null(f->ctx.flow_report);
  assert_non_null(f->ctx.fusion_report);
  assert_int_not_equal(tfx_graph_find(&f->ctx.module.main, "chain/n9"), TFX_NO_ID);
  /* up to dataflow: everything kept */
  assert_int_equal(tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_SCOPE_FUSION), 0);
  assert_int_equal(f->ctx.no_report_kept, 0);
  assert_non_null(f->ctx.flow_report);
  unlink(path);
  f->o.no_report = f->o.check_only = 0;
}

/* Failed allocations are reported, never ignored (arena.h fault injection). */
static void test_alloc_failure(void **state) {
  fixture *f = *state;
  rec r = {&f->log, "x", 0, 0};
  tfx_alloc_fail_at(1);
  assert_int_equal(tfx_pipeline_register(&f->p, TFX_GROUP_LOAD, 0, "x", rec_pass, &r, 0), -1);
  tfx_alloc_fail_at(0);
  assert_int_equal(f->p.n, 0);
  assert_int_equal(tfx_pipeline_register(&f->p, TFX_GROUP_LOAD, 0, "x", rec_pass, &r, 0), 0);
  /* The "did you mean" table cannot be allocated: the error is still reported, without hint. */
  tfx_alloc_fail_at(1);
  assert_int_equal(tfx_pipeline_check_names(&f->p, "y", 0, "--dump-after", &f->d), -1);
  tfx_alloc_fail_at(0);
  assert_int_equal(f->d.errors, 1);
  assert_non_null(strstr(f->d.items[0].msg, "unknown pass 'y'"));
  tfx_alloc_fail_at(1);
  assert_null(tfx_ctx_default_output("m.pb", ".air"));
  tfx_alloc_fail_at(0);
  /* The dump path cannot be allocated: an error, and the run stops. */
  Tensorflow__GraphDef gd = TENSORFLOW__GRAPH_DEF__INIT;
  f->ctx.model.graph = &gd;
  f->ctx.have_model = 1;
  f->o.dump_after = "x";
  tfx_alloc_fail_at(1);
  int rc = tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_EMIT);
  tfx_alloc_fail_at(0);
  f->ctx.have_model = 0;
  f->ctx.model.graph = NULL;
  assert_int_equal(rc, TFX_E_NOMEM); /* out of memory, exit 1 */
  assert_int_equal(f->d.errors, 2);
}

static void test_group_names(void **state) {
  (void)state;
  assert_string_equal(tfx_pipeline_group_name(TFX_GROUP_LOAD), "LOAD");
  assert_string_equal(tfx_pipeline_group_name(TFX_GROUP_SCOPE_FUSION), "SCOPE_FUSION");
  assert_string_equal(tfx_pipeline_group_name(TFX_GROUP_EMIT), "EMIT");
  assert_string_equal(tfx_pipeline_group_name(TFX_GROUP__COUNT), "?");
}

static void test_closest(void **state) {
  (void)state;
  static const char *const c[] = {"--out-nodes", "--input-shape", "--output", "--emit"};
  assert_string_equal(tfx_pipeline_closest("--out-node", c, 4), "--out-nodes");
  assert_string_equal(tfx_pipeline_closest("--out_nodes", c, 4), "--out-nodes");
  assert_string_equal(tfx_pipeline_closest("--input_shape", c, 4), "--input-shape");
  assert_null(tfx_pipeline_closest("--zzzzzzzz", c, 4));
  assert_null(tfx_pipeline_closest("x", c, 0));
}

static void test_default_output(void **state) {
  (void)state;
  static const struct { const char *in, *suffix, *want; } cases[] = {
    {"model.pb", ".air", "model.air"},
    {"/a/b/net.pbtxt", ".tf.pbtxt", "net.tf.pbtxt"},
    {"dir/x.y.pb", ".air", "x.y.air"},
    {"noext", ".air", "noext.air"},
    {".hidden", ".air", ".hidden.air"},
    {"a/b/", ".air", "b.air"},
    {"", ".air", "model.air"},
    {"..", ".air", "model.air"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *s = tfx_ctx_default_output(cases[i].in, cases[i].suffix);
    assert_non_null(s);
    assert_string_equal(s, cases[i].want);
    free(s);
  }
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
      cmocka_unit_test_setup_teardown(test_alloc_failure, setup, teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_order, setup, teardown),
    cmocka_unit_test_setup_teardown(test_register_errors, setup, teardown),
    cmocka_unit_test_setup_teardown(test_timing, setup, teardown),
    cmocka_unit_test_setup_teardown(test_failure_stops, setup, teardown),
    cmocka_unit_test_setup_teardown(test_failure_reported_once, setup, teardown),
    cmocka_unit_test_setup_teardown(test_last_group, setup, teardown),
    cmocka_unit_test_setup_teardown(test_disable, setup, teardown),
    cmocka_unit_test_setup_teardown(test_dump_selection, setup, teardown),
    cmocka_unit_test_setup_teardown(test_dump_file, setup, teardown),
    cmocka_unit_test_setup_teardown(test_dump_without_model_warns, setup, teardown),
    cmocka_unit_test_setup_teardown(test_builtin, setup, teardown),
    cmocka_unit_test_setup_teardown(test_release_before_lowering, setup, teardown),
    cmocka_unit_test_setup_teardown(test_run_empties_page_pool, setup, teardown),
    cmocka_unit_test_setup_teardown(test_no_report_release, setup, teardown),
    cmocka_unit_test(test_group_names),
    cmocka_unit_test(test_closest),
    cmocka_unit_test(test_default_output),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
