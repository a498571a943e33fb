/* Fault injection over the whole conversion pipeline (issue 7, item 3).
 * Stage: tests (passes, in process). A small model (examples/dense_layernorm: 23 nodes, a
 * LayerNorm the stdlib fuses, Const weights) runs through every built-in pass -- load, rules
 * (the compiled stdlib, loaded and verified from a .tfxb pack), prune, index, scope-tree,
 * scope-fusion, op-mapping, lowering, emit-tf, emit-ge -- writing every --emit kind (air,
 * ge-pbtxt, ge-json, dot, tf-pbtxt) into a temporary directory, plus a --dump-after dump.
 *
 * Allocations (tfx_alloc_fail_at, with tfx_alloc_fail_arena(1): every arena allocation counts,
 * not only new chunks). A reference run counts the N allocations and records, with the
 * allocation observer, the code address each one is made from. The N-th allocation is then
 * made to fail for: every n up to DENSE, the first occurrence of every distinct allocation
 * site of the run, and n spread evenly over the whole range (STRIDED runs). Each run must
 * either fail with an error reported and the status TFX_E_NOMEM (never exit 4 or "corrupt
 * pack": out of memory is not the rule files' or the pack's fault) and no output and no temporary file in the output
 * directory (dumps are debugging files written as the passes go: only their temporary files
 * must not remain), or succeed with outputs byte-identical to the reference (an allocation
 * whose failure the code works around). A run in which no allocation failed must succeed.
 * LeakSanitizer (the sanitizer build) checks that every failure path frees what it took.
 *
 * Writes (tfx_write_fail_at): every file-system step of the run's writes (temp file creation,
 * each write() -- a short write, then ENOSPC --, fchmod, close, rename) is made to fail in
 * turn, once with no previous outputs and once over outputs of an earlier run: the run fails
 * (exit 3) with "cannot ... output", leaves no temporary file, and each output is either
 * absent or still the old file (all or nothing; never new or partial content).
 *
 * The model run and the subgraph run are swept again asking for the .air (and tf-pbtxt) only,
 * which makes lowering stream the .air op by op (src/ge/lower.c, "Streaming"); their .air must
 * equal the whole-model runs' byte for byte (stream_same_air). Both get the write sweep too:
 * the op records then go to a spill file beside the .air (src/ge/air_sink.c), whose writes
 * during lowering and the copy from it at emit-ge are steps that must fail as cleanly. The
 * spill file is written by its writer thread (the lowering's jobs, set for every run here by
 * TFXC_LOWER_JOBS=2, whatever the CPU count: passes/pass_lower.c), whose write(2)s count and
 * fail on this thread's hook (util/fileio.h tfx_write_fault_follow), so the sweep reaches them
 * and the error's way back from the thread to the run; the two streaming write sweeps run
 * again with TFXC_LOWER_JOBS=1 (written inline, by lowering itself), and stream_same_air holds
 * the .air of both to the whole-model runs'.
 *
 * The rules pass itself (loading and compiling rule sources) gets the same allocation sweep
 * with a small -r rule pair and --no-stdlib (compiling the whole stdlib in every run would
 * take too long), emitting the fused TF graph. Env: TFXC_SRC (the source tree). */
#define _GNU_SOURCE /* backtrace (a debugging aid: FAULT_BACKTRACE) */
#include <dirent.h>
#include <execinfo.h>
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

#include "passes/context.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"
#include "util/fileio.h"
#include "util/status.h"
#include "util/strbuf.h"
#include "vm/pack.h"

#define ALL_MAX 30000 /* runs with at most this many allocations get every n tried */
#define DENSE 300     /* else: every n up to this, */
#define STRIDED 3000  /* the first of every site and this many spread evenly */

static const char *const ext[TFX_EMIT__COUNT] = {
  [TFX_EMIT_AIR] = ".air", [TFX_EMIT_GE_PBTXT] = ".ge.pbtxt", [TFX_EMIT_GE_JSON] = ".ge.json",
  [TFX_EMIT_DOT] = ".dot", [TFX_EMIT_TF_PBTXT] = ".tf.pbtxt",
};

typedef struct fx {
  char root[256];
  char model[320], model_if[320], pack[320], outdir[320], dumpdir[320], rules_s[320],
      rules_o[320];
  char out_path[TFX_EMIT__COUNT][400];
  tfx_strbuf ref[TFX_EMIT__COUNT];
  const char *rule_paths[2];
} fx;

/* ---- small file helpers ---- */

static void put_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

/* Reads path into sb (reset first). 0, or -1 when it cannot be opened. */
static int get_file(const char *path, tfx_strbuf *sb) {
  tfx_sb_reset(sb);
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) tfx_sb_add(sb, buf, n);
  fclose(f);
  assert_false(sb->oom);
  return 0;
}

/* Number of entries of dir (without . and ..); with tmp_only, only TARGET.tmp.* files. */
static int count_entries(const char *dir, int tmp_only) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (tmp_only && !strstr(e->d_name, ".tmp.")) continue;
    n++;
  }
  closedir(d);
  return n;
}

static void clear_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  char p[600];
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  closedir(d);
}

/* ---- one run of the pipeline ---- */

/* RUN_STREAM / RUN_STREAM_SUB: RUN_FULL / RUN_SUBGRAPH asking for the .air (and tf-pbtxt)
 * only, so lowering writes the .air op by op (streaming, ge.h) instead of building the model */
typedef enum { RUN_FULL, RUN_SUBGRAPH, RUN_RULES, RUN_STREAM, RUN_STREAM_SUB } run_kind;

static int run(fx *f, run_kind kind, tfx_diag *d) {
  tfx_options o;
  memset(&o, 0, sizeof o);
  o.model_path = kind == RUN_SUBGRAPH || kind == RUN_STREAM_SUB ? f->model_if : f->model;
  o.verbose = -1;
  if (kind != RUN_RULES) {
    f->rule_paths[0] = f->pack;
    o.rule_paths = f->rule_paths;
    o.n_rule_paths = 1;
    o.emit = (1u << TFX_EMIT__COUNT) - 1;
    o.dump_after = "scope-fusion";
    o.dump_dir = f->dumpdir;
    if (kind == RUN_STREAM) o.emit = 1u << TFX_EMIT_AIR | 1u << TFX_EMIT_TF_PBTXT;
    if (kind == RUN_STREAM_SUB) o.emit = 1u << TFX_EMIT_AIR;
    if (kind == RUN_FULL || kind == RUN_STREAM) { /* the prune pass too */
      o.input_shape = "input:2,4";
      o.out_nodes = "output:0";
    }
  } else {
    f->rule_paths[0] = f->rules_s;
    f->rule_paths[1] = f->rules_o;
    o.rule_paths = f->rule_paths;
    o.n_rule_paths = 2;
    o.no_stdlib = 1;
    o.enable_scope_passes = "FaultFusePass";
    o.emit = 1u << TFX_EMIT_TF_PBTXT;
  }
  for (int k = 0; k < TFX_EMIT__COUNT; k++)
    if (o.emit & (1u << k)) o.out_path[k] = f->out_path[k];
  tfx_pipeline p;
  tfx_pipeline_init(&p);
  if (tfx_pass_register_builtin(&p) != 0) { /* as the CLI does */
    tfx_error(d, NULL, 0, 0, "out of memory registering passes");
    tfx_pipeline_free(&p);
    return TFX_E_NOMEM;
  }
  tfx_ctx ctx;
  int rc;
  tfx_ctx_init(&ctx, &o, d);
  rc = tfx_pipeline_run(&p, &ctx, TFX_GROUP_EMIT);
  tfx_ctx_free(&ctx);
  tfx_pipeline_free(&p);
  return rc;
}

static unsigned kinds_of(run_kind kind) {
  switch (kind) {
  case RUN_RULES: return 1u << TFX_EMIT_TF_PBTXT;
  case RUN_STREAM: return 1u << TFX_EMIT_AIR | 1u << TFX_EMIT_TF_PBTXT;
  case RUN_STREAM_SUB: return 1u << TFX_EMIT_AIR;
  default: return (1u << TFX_EMIT__COUNT) - 1;
  }
}

/* ---- allocation sites of a run (the observer) ---- */

typedef struct sites {
  const void **addr; /* open addressing, NULL = empty */
  long *first;       /* the n of the first allocation from addr */
  size_t cap, n;
} sites;

static sites *cur_sites;
static long watch_n;            /* record the site of this allocation (for messages) */
static const void *watch_site;

static void observe(const void *site, void *user) {
  (void)user;
  if (tfx_alloc_calls() == watch_n) {
    watch_site = site;
    if (getenv("FAULT_BACKTRACE")) { /* FAULT_BACKTRACE=n: where allocation n is made */
      char *end;
      long want = strtol(getenv("FAULT_BACKTRACE"), &end, 10);
      if (want == watch_n) {
        void *bt[32];
        backtrace_symbols_fd(bt, backtrace(bt, 32), 2);
      }
    }
  }
  sites *s = cur_sites;
  if (!s || s->n * 2 >= s->cap) return; /* full: the test checks this below */
  size_t h = ((uintptr_t)site >> 2) * 0x9E3779B97F4A7C15ull % s->cap;
  while (s->addr[h] && s->addr[h] != site) h = (h + 1) % s->cap;
  if (!s->addr[h]) {
    s->addr[h] = site;
    s->first[h] = tfx_alloc_calls();
    s->n++;
  }
}

int main(void);

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* ---- setup ---- */

static const char fault_scoperule[] =
    "pass FaultFusePass {\n"
    "  group { layer { pattern ln { name == \"LayerNorm\"; count Mean == 2; count Rsqrt == 1; } } }\n"
    "  fuse s in ln {\n"
    "    type FaultLayerNorm;\n"
    "    name s.name + \"fused\";\n"
    "    attr depth = len(s.name);\n"
    "    input \"moments/mean\" { 0 -> 0 };\n"
    "    output \"batchnorm/add_1\" { 0 -> 0 };\n"
    "  }\n"
    "}\n";
static const char fault_opmap[] =
    "op Relu -> Relu { auto; }\n"
    "op Foo, Bar -> graph { node a: Add(in 0, in 1) { attr T = dtype_of(in 0); } out 0 = a:0; }\n";

/* Functional If with two library functions: GE subgraphs, function bodies in every pass. */
static const char model_if[] =
    "node { name: \"pred\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_BOOL } }\n"
    "       attr { key: \"shape\" value { shape { } } } }\n"
    "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
    "       attr { key: \"shape\" value { shape { dim { size: 3 } } } } }\n"
    "node { name: \"w\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
    "       attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } }\n"
    "       tensor_content: \"\\000\\000\\200?\\000\\000\\000@\\000\\000@@\" } } } }\n"
    "node { name: \"s/cond_if\" op: \"StatelessIf\" input: \"pred\" input: \"x\" input: \"w\"\n"
    "       attr { key: \"Tcond\" value { type: DT_BOOL } }\n"
    "       attr { key: \"Tin\" value { list { type: DT_FLOAT type: DT_FLOAT } } }\n"
    "       attr { key: \"Tout\" value { list { type: DT_FLOAT } } }\n"
    "       attr { key: \"then_branch\" value { func { name: \"then_fn\" } } }\n"
    "       attr { key: \"else_branch\" value { func { name: \"else_fn\" } } }\n"
    "       attr { key: \"output_shapes\" value { list { shape { dim { size: 3 } } } } } }\n"
    "node { name: \"out\" op: \"Identity\" input: \"s/cond_if\" input: \"^x\"\n"
    "       attr { key: \"T\" value { type: DT_FLOAT } } }\n"
    "library {\n"
    "  function {\n"
    "    signature { name: \"then_fn\" input_arg { name: \"x\" type: DT_FLOAT }\n"
    "      input_arg { name: \"y\" type: DT_FLOAT } output_arg { name: \"product\" type: DT_FLOAT } }\n"
    "    node_def { name: \"a/mul\" op: \"Mul\" input: \"x\" input: \"y\" attr { key: \"T\" value { type: DT_FLOAT } } }\n"
    "    ret { key: \"product\" value: \"a/mul:z:0\" }\n"
    "  }\n"
    "  function {\n"
    "    signature { name: \"else_fn\" input_arg { name: \"x\" type: DT_FLOAT }\n"
    "      input_arg { name: \"y\" type: DT_FLOAT } output_arg { name: \"negated\" type: DT_FLOAT } }\n"
    "    node_def { name: \"neg\" op: \"Neg\" input: \"x\" attr { key: \"T\" value { type: DT_FLOAT } } }\n"
    "    ret { key: \"negated\" value: \"neg:y:0\" }\n"
    "  }\n"
    "}\n";

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  assert_non_null(f);
  const char *tmp = getenv("TMPDIR");
  snprintf(f->root, sizeof f->root, "%s/tfxc-fault-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(f->root));
  snprintf(f->model, sizeof f->model, "%s/model.pbtxt", f->root);
  snprintf(f->model_if, sizeof f->model_if, "%s/model_if.pbtxt", f->root);
  snprintf(f->pack, sizeof f->pack, "%s/stdlib.tfxb", f->root);
  snprintf(f->outdir, sizeof f->outdir, "%s/out", f->root);
  snprintf(f->dumpdir, sizeof f->dumpdir, "%s/dump", f->root);
  snprintf(f->rules_s, sizeof f->rules_s, "%s/fault.scoperule", f->root);
  snprintf(f->rules_o, sizeof f->rules_o, "%s/fault.opmap", f->root);
  assert_int_equal(mkdir(f->outdir, 0755), 0);
  for (int k = 0; k < TFX_EMIT__COUNT; k++) {
    snprintf(f->out_path[k], sizeof f->out_path[k], "%s/m%s", f->outdir, ext[k]);
    tfx_sb_init(&f->ref[k]);
  }
  /* the model: the example, read from the source tree */
  const char *src = getenv("TFXC_SRC");
  assert_non_null(src);
  char path[600];
  snprintf(path, sizeof path, "%s/examples/dense_layernorm/model.pbtxt", src);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  assert_int_equal(get_file(path, &sb), 0);
  put_file(f->model, sb.data, sb.len);
  tfx_sb_free(&sb);
  put_file(f->model_if, model_if, sizeof model_if - 1);
  put_file(f->rules_s, fault_scoperule, sizeof fault_scoperule - 1);
  put_file(f->rules_o, fault_opmap, sizeof fault_opmap - 1);
  /* the stdlib, compiled once into a pack */
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_rules_spec s;
  memset(&s, 0, sizeof s);
  tfx_pack pack;
  int rc = tfx_rules_build_pack(&s, &pack, &d);
  if (rc) tfx_diag_print(&d, stderr);
  assert_int_equal(rc, 0);
  tfx_strbuf pb;
  tfx_sb_init(&pb);
  assert_int_equal(tfx_pack_write(&pack, &pb), 0);
  assert_int_equal(tfx_write_file_atomic(f->pack, pb.data, pb.len, &d), 0);
  tfx_sb_free(&pb);
  tfx_pack_free(&pack);
  tfx_diag_free(&d);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  clear_dir(f->outdir);
  clear_dir(f->dumpdir);
  rmdir(f->outdir);
  rmdir(f->dumpdir);
  unlink(f->model);
  unlink(f->model_if);
  unlink(f->pack);
  unlink(f->rules_s);
  unlink(f->rules_o);
  rmdir(f->root);
  for (int k = 0; k < TFX_EMIT__COUNT; k++) tfx_sb_free(&f->ref[k]);
  free(f);
  return 0;
}

/* A successful run: no error, and (when ref is set) every output equal to the reference. */
static void reference(fx *f, run_kind kind) {
  tfx_diag d;
  tfx_diag_init(&d);
  clear_dir(f->outdir);
  int rc = run(f, kind, &d);
  if (rc) tfx_diag_print(&d, stderr);
  assert_int_equal(rc, 0);
  tfx_diag_free(&d);
  for (int k = 0; k < TFX_EMIT__COUNT; k++)
    if (kinds_of(kind) & (1u << k)) assert_int_equal(get_file(f->out_path[k], &f->ref[k]), 0);
}

static void check_same_outputs(fx *f, run_kind kind, long n) {
  tfx_strbuf got;
  tfx_sb_init(&got);
  for (int k = 0; k < TFX_EMIT__COUNT; k++) {
    if (!(kinds_of(kind) & (1u << k))) continue;
    if (get_file(f->out_path[k], &got) != 0 || got.len != f->ref[k].len ||
        memcmp(got.data, f->ref[k].data, got.len) != 0)
      fail_msg("allocation %ld (made at %p; main is at %p) failed, the run succeeded, but %s "
               "differs from the reference", n, watch_site, (void *)(uintptr_t)main, f->out_path[k]);
  }
  tfx_sb_free(&got);
}

/* Open file descriptors of the process (/proc/self/fd), -1 when that cannot be read: a sweep
 * ends with as many as it started with (the spill file of a streamed .air, ge/air_sink.c, and
 * every temp file are closed on every path). */
static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static void same_fds(int before, const char *label) {
  int after = open_fds();
  if (before >= 0 && after != before)
    fail_msg("%s: %d file descriptors open before the sweep, %d after", label, before, after);
}

/* The allocation sweep of one run kind. */
static void alloc_sweep(fx *f, run_kind kind, const char *label) {
  int fds = open_fds();
  reference(f, kind); /* warm-up: process-wide caches (the CANN prototype table) get built */
  /* the measured run: N allocations, the first n of every site */
  sites s = {0};
  s.cap = 1u << 16;
  s.addr = calloc(s.cap, sizeof *s.addr);
  s.first = calloc(s.cap, sizeof *s.first);
  assert_true(s.addr && s.first);
  cur_sites = &s;
  tfx_alloc_set_observer(observe, NULL);
  tfx_alloc_fail_arena(1);
  tfx_alloc_fail_at(0);
  reference(f, kind);
  long total = tfx_alloc_calls();
  tfx_alloc_set_observer(NULL, NULL);
  tfx_alloc_fail_arena(0);
  cur_sites = NULL;
  assert_true(s.n * 2 < s.cap); /* the table did not fill up */
  assert_true(total > 0);

  /* the n to try: dense prefix, every site's first allocation, an even spread */
  size_t cap = DENSE + s.n + STRIDED + 2, m = 0;
  long *ns = malloc(cap * sizeof *ns);
  assert_non_null(ns);
  if (total <= ALL_MAX) {
    free(ns);
    ns = malloc((size_t)total * sizeof *ns);
    assert_non_null(ns);
    for (long n = 1; n <= total; n++) ns[m++] = n;
  } else {
    for (long n = 1; n <= DENSE; n++) ns[m++] = n;
    for (size_t i = 0; i < s.cap; i++)
      if (s.addr[i]) ns[m++] = s.first[i];
    for (long i = 0; i < STRIDED; i++)
      ns[m++] = 1 + (long)((double)i * (double)(total - 1) / (STRIDED - 1));
    ns[m++] = total;
  }
  qsort(ns, m, sizeof *ns, cmp_long);
  size_t u = 0;
  for (size_t i = 0; i < m; i++)
    if (ns[i] >= 1 && ns[i] <= total && (u == 0 || ns[u - 1] != ns[i])) ns[u++] = ns[i];

  long failed_runs = 0, tolerated = 0;
  int codes[8] = {0};
  for (size_t i = 0; i < u; i++) {
    long n = ns[i];
    clear_dir(f->outdir);
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_alloc_fail_arena(1);
    tfx_alloc_fail_at(n);
    watch_n = n;
    watch_site = NULL;
    tfx_alloc_set_observer(observe, NULL);
    int rc = run(f, kind, &d);
    int hit = tfx_alloc_failures() > 0;
    tfx_alloc_set_observer(NULL, NULL);
    tfx_alloc_fail_at(0);
    tfx_alloc_fail_arena(0);
    if (getenv("FAULT_VERBOSE"))
      fprintf(stderr, "n=%ld rc=%d site=%p (main=%p)\n", n, rc, watch_site, (void *)(uintptr_t)main);
    if (!hit) fail_msg("%s: allocation %ld of %ld was never made", label, n, total);
    if (rc != 0) {
      failed_runs++;
      codes[rc > 0 && rc < 8 ? rc : 0]++;
      if (!tfx_diag_has_errors(&d))
        fail_msg("%s: allocation %ld failed: exit %d without an error reported", label, n, rc);
      /* out of memory is neither an error in the rule files (exit 4) nor a corrupt pack */
      int blamed = rc == TFX_EXIT_RULES;
      for (size_t j = 0; j < d.n; j++)
        if (d.items[j].msg && strstr(d.items[j].msg, "corrupt pack")) blamed = 1;
      if (blamed) {
        tfx_diag_print(&d, stderr);
        fail_msg("%s: allocation %ld failed: exit %d, reported as a rule error or a corrupt pack",
                 label, n, rc);
      }
      if (count_entries(f->outdir, 0) != 0)
        fail_msg("%s: allocation %ld failed (exit %d), but %d files are left in the output "
                 "directory", label, n, rc, count_entries(f->outdir, 0));
      if (count_entries(f->dumpdir, 1) != 0)
        fail_msg("%s: allocation %ld failed: a temporary dump file is left", label, n);
    } else {
      tolerated++;
      if (tfx_diag_has_errors(&d)) {
        tfx_diag_print(&d, stderr);
        fail_msg("%s: allocation %ld failed: exit 0 after an error", label, n);
      }
      check_same_outputs(f, kind, n);
    }
    tfx_diag_free(&d);
  }
  fprintf(stderr,
          "fault(%s): %ld allocations from %zu sites; %zu runs with one failing allocation: %ld "
          "failed (exit 1: %d, 3: %d, 4: %d; out of memory as its own status: %d), %ld succeeded "
          "with identical outputs\n",
          label, total, s.n, u, failed_runs, codes[1] + codes[5], codes[3], codes[4], codes[5],
          tolerated);
  /* out of memory reaches the caller as a status (TFX_E_NOMEM), not only as message text:
   * every run that failed because of the failed allocation says so */
  if (codes[TFX_E_NOMEM] != failed_runs)
    fail_msg("%s: %ld runs failed, only %d of them with TFX_E_NOMEM (FAULT_VERBOSE=1 lists "
             "each run's status)", label, failed_runs, codes[TFX_E_NOMEM]);
  free(ns);
  free(s.addr);
  free(s.first);
  same_fds(fds, label);
}

static void alloc_failures_full(void **state) { alloc_sweep(*state, RUN_FULL, "pipeline"); }
static void alloc_failures_rules(void **state) { alloc_sweep(*state, RUN_RULES, "rules"); }
static void alloc_failures_subgraph(void **state) { alloc_sweep(*state, RUN_SUBGRAPH, "subgraphs"); }
static void alloc_failures_stream(void **state) { alloc_sweep(*state, RUN_STREAM, "streaming"); }
static void alloc_failures_stream_sub(void **state) {
  alloc_sweep(*state, RUN_STREAM_SUB, "streaming subgraphs");
}

/* The .air lowering writes op by op is the one the emitter writes from the whole model: the
 * same bytes, with and without subgraphs. */
static void stream_same_air(void **state) {
  fx *f = *state;
  static const run_kind pairs[2][2] = {{RUN_FULL, RUN_STREAM}, {RUN_SUBGRAPH, RUN_STREAM_SUB}};
  for (int i = 0; i < 4; i++) { /* the spill file by the writer thread, then inline */
    setenv("TFXC_LOWER_JOBS", i < 2 ? "2" : "1", 1);
    reference(f, pairs[i % 2][0]);
    tfx_strbuf whole = f->ref[TFX_EMIT_AIR];
    tfx_sb_init(&f->ref[TFX_EMIT_AIR]);
    reference(f, pairs[i % 2][1]);
    assert_true(whole.len > 0);
    assert_int_equal(whole.len, f->ref[TFX_EMIT_AIR].len);
    assert_memory_equal(whole.data, f->ref[TFX_EMIT_AIR].data, whole.len);
    tfx_sb_free(&whole);
  }
  setenv("TFXC_LOWER_JOBS", "2", 1);
}

/* ---- write failures ---- */

static void write_sweep(fx *f, run_kind kind, const char *what) {
  int fds = open_fds();
  reference(f, kind);
  clear_dir(f->outdir);
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_write_fail_at(0);
  assert_int_equal(run(f, kind, &d), 0);
  long steps = tfx_write_calls();
  tfx_diag_free(&d);
  if (kind == RUN_FULL)
    assert_true(steps >= 5 * 5); /* five outputs, at least five steps each (+ the dump) */
  else /* the .air (and tf-pbtxt); the .air's records go to the spill file (a write) and are
        * copied from it into the .air's temp file (a copy_file_range), ge/air_sink.c */
    assert_true(steps >= 5 + 2);
  static const char old[] = "old output\n";
  long runs = 0;
  for (int over = 0; over < 2; over++) {
    for (long n = 1; n <= steps; n++) {
      clear_dir(f->outdir);
      if (over)
        for (int k = 0; k < TFX_EMIT__COUNT; k++) put_file(f->out_path[k], old, sizeof old - 1);
      tfx_diag_init(&d);
      tfx_write_fail_at(n);
      int rc = run(f, kind, &d);
      long hit = tfx_write_failures();
      tfx_write_fail_at(0);
      runs++;
      if (hit != 1) fail_msg("write step %ld of %ld: %ld failures injected", n, steps, hit);
      if (rc != TFX_EXIT_INPUT) fail_msg("write step %ld failed: exit %d, want 3", n, rc);
      int said = 0;
      for (size_t i = 0; i < d.n; i++)
        if (d.items[i].sev == TFX_SEV_ERROR &&
            (strstr(d.items[i].msg, "cannot write output") || strstr(d.items[i].msg, "cannot create output")))
          said = 1;
      if (!said) {
        tfx_diag_print(&d, stderr);
        fail_msg("write step %ld failed without a 'cannot write/create output' error", n);
      }
      if (count_entries(f->outdir, 1) || count_entries(f->dumpdir, 1))
        fail_msg("write step %ld failed: a temporary file is left", n);
      tfx_strbuf got;
      tfx_sb_init(&got);
      for (int k = 0; k < TFX_EMIT__COUNT; k++) {
        if (get_file(f->out_path[k], &got) != 0) continue; /* absent: fine */
        if (!over || got.len != sizeof old - 1 || memcmp(got.data, old, got.len) != 0)
          fail_msg("write step %ld failed, but %s holds %zu bytes of new content", n,
                   f->out_path[k], got.len);
      }
      tfx_sb_free(&got);
      tfx_diag_free(&d);
    }
  }
  fprintf(stderr, "fault(writes, %s): %ld file-system steps per run; %ld runs, each failing one "
          "step, all failed cleanly\n", what, steps, runs);
  same_fds(fds, what);
}

static void write_failures(void **state) { write_sweep(*state, RUN_FULL, "every kind"); }
/* Streaming to a file: a failed write of the spill file during lowering, or of the copy from it
 * at emit-ge, leaves nothing either (the spill file has no name; the .air's temp file goes). */
static void write_failures_stream(void **state) { write_sweep(*state, RUN_STREAM, "streaming"); }
static void write_failures_stream_sub(void **state) {
  write_sweep(*state, RUN_STREAM_SUB, "streaming subgraphs");
}
/* The same with the spill file written inline (no writer thread). */
static void write_failures_stream_inline(void **state) {
  setenv("TFXC_LOWER_JOBS", "1", 1);
  write_sweep(*state, RUN_STREAM, "streaming, inline spill");
  write_sweep(*state, RUN_STREAM_SUB, "streaming subgraphs, inline spill");
  setenv("TFXC_LOWER_JOBS", "2", 1);
}

int main(void) {
  if (!tfx_fault_injection_enabled()) { /* Release build: the hooks are compiled out */
    printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
    return 77;
  }
  /* the streamed .air's spill file written by its writer thread (see the top) */
  setenv("TFXC_LOWER_JOBS", "2", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(write_failures, setup, teardown),
      cmocka_unit_test_setup_teardown(write_failures_stream, setup, teardown),
      cmocka_unit_test_setup_teardown(write_failures_stream_sub, setup, teardown),
      cmocka_unit_test_setup_teardown(write_failures_stream_inline, setup, teardown),
      cmocka_unit_test_setup_teardown(alloc_failures_rules, setup, teardown),
      cmocka_unit_test_setup_teardown(alloc_failures_full, setup, teardown),
      cmocka_unit_test_setup_teardown(alloc_failures_subgraph, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_same_air, setup, teardown),
      cmocka_unit_test_setup_teardown(alloc_failures_stream, setup, teardown),
      cmocka_unit_test_setup_teardown(alloc_failures_stream_sub, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
