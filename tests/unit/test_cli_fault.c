/* Fault injection over the command line, in process (the Hardening issue).
 * Stage: tests (cli). test_passes_fault.c sweeps the pass pipeline; this sweeps what the CLI
 * adds around it -- option handling, the commands and the files they write -- by calling
 * tfx_cli_main (src/cli/cli_main.c) repeatedly in this process on small inputs in a temporary
 * directory (the working directory during the test):
 *   fmt (pbtxt -> pb, and pbtxt to stdout), compile (a small rule pair -> pack), convert
 *   (examples/dense_layernorm with the stdlib from a pack: air + tf-pbtxt), --check with
 *   --report, inspect --json, explain --scope, list-rules --json, disasm, --list-passes,
 *   help, usage errors (an unknown --limit name, a bad -W), and test --update of a tiny golden
 *   case (a GE case with an explain file: expected.tf.pbtxt, .ge.pbtxt and .explain are
 *   rewritten).
 * Each command's stdout and stderr go to files (dup2), so the test output stays readable.
 *
 * Allocations (tfx_alloc_fail_at, tfx_alloc_fail_arena(1)): a reference run counts the N
 * allocations of a command and the first allocation of every distinct site (the allocation
 * observer); then the n-th allocation fails for every n up to a per-command dense prefix, the
 * first n of every site and an even spread over 1..N (at most a per-command number of runs,
 * so the sweep stays near a minute under ASan). Each run must either fail -- exit nonzero,
 * an error printed, no output file created or changed (an existing one is kept), no
 * TARGET.tmp.* file, nothing on stdout (test --update: its FAIL report) -- or succeed with
 * stdout and every output byte-identical to the reference. Commands whose reference exits
 * nonzero (usage errors) must exit nonzero with an error every time.
 *
 * Writes (tfx_write_fail_at): every file-system step of the commands that write files is
 * made to fail in turn, with no previous outputs and over outputs of an earlier run: the run
 * exits nonzero with "cannot write/create output", leaves no temporary file, and each output
 * is absent or still the old file.
 *
 * `tfxc test` runs each case by re-executing /proc/self/exe -- here this test binary --, so
 * main() below acts as tfxc when argv[0] is "tfxc" (only the parent's allocations and writes
 * are failed; the child starts afresh). LeakSanitizer (the sanitizer build) checks the
 * failure paths free what they took; FAULT_LEAKCHECK=1 checks after every run and names it.
 * FAULT_VERBOSE=1 prints every run. Env: TFXC_SRC (the source tree). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli.h"
#include "util/arena.h"
#include "util/fileio.h"
#include "util/strbuf.h"

int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

#define MAX_OUTS 4

/* One command of the sweep. Paths are relative to the temporary directory. */
typedef struct spec {
  const char *label;
  const char *argv[20];       /* after "tfxc"; NULL-terminated */
  const char *outs[MAX_OUTS]; /* files it writes (NULL-terminated) */
  int is_test;                /* tfxc test --update: the case is reset before every run */
  int dense;                  /* every n up to this, */
  int max_runs;               /* at most this many runs in all (the sites first, then spread) */
  int report;                 /* outs[0] is a --report: written after a failed run too (with
                                 the run's exit code in it), by design (docs/CLI.md "Report") */
} spec;

static const spec specs[] = {
  {"fmt", {"fmt", "model.pbtxt", "-o", "out/m.pb"}, {"out/m.pb"}, 0, 300, 700, 0},
  {"fmt-stdout", {"fmt", "-q", "model.pbtxt", "-o", "-", "--to", "pbtxt"}, {NULL}, 0, 100, 250, 0},
  {"compile",
   {"compile", "--no-stdlib", "-Wall", "rules/fault.scoperule", "rules/fault.opmap", "-o",
    "out/r.tfxb", "--limit", "output-size=1M"},
   {"out/r.tfxb"}, 0, 300, 900, 0},
  {"convert",
   {"model.pbtxt", "-r", "stdlib.tfxb", "--emit", "air,tf-pbtxt", "-o", "out/m", "--input-shape",
    "input:2,4", "--limit", "output-size=1M"},
   {"out/m.air", "out/m.tf.pbtxt"}, 0, 300, 900, 0},
  {"check", {"--check", "model.pbtxt", "-r", "stdlib.tfxb", "--report", "out/check.json"},
   {"out/check.json"}, 0, 100, 400, 1},
  {"inspect", {"inspect", "--json", "model.pbtxt"}, {NULL}, 0, 300, 500, 0},
  {"inspect-text", {"inspect", "--depth", "0", "model.pbtxt"}, {NULL}, 0, 50, 150, 0},
  {"explain", {"explain", "model.pbtxt", "-r", "stdlib.tfxb", "--scope", "dense/LayerNorm/"},
   {NULL}, 0, 100, 400, 0},
  {"explain-rule",
   {"explain", "model.pbtxt", "--no-stdlib", "-r", "rules", "--rule", "FaultFusePass",
    "--enable-scope-fusion-passes", "FaultFusePass", "-Wno-unknown-op"},
   {NULL}, 0, 100, 300, 0},
  {"list-rules", {"list-rules", "--no-stdlib", "-r", "rules", "--json"}, {NULL}, 0, 300, 500, 0},
  {"list-rules-text", {"list-rules", "--no-stdlib", "-r", "rules"}, {NULL}, 0, 100, 300, 0},
  {"disasm", {"disasm", "rules/fault.scoperule", "rules/fault.opmap"}, {NULL}, 0, 300, 500, 0},
  {"list-passes", {"--list-passes"}, {NULL}, 0, 100, 100, 0},
  {"help", {"help", "compile"}, {NULL}, 0, 10, 10, 0},
  {"usage-limit", {"--limit", "nodez=3", "model.pbtxt"}, {NULL}, 0, 50, 50, 0},
  {"usage-warn", {"compile", "-Wbogus", "rules"}, {NULL}, 0, 50, 50, 0},
  {"test-update", {"test", "--update", "--limit", "output-size=1M", "case"},
   {"case/expected.tf.pbtxt", "case/expected.ge.pbtxt", "case/expected.explain"}, 1, 20, 30, 0},
};
enum { N_SPECS = sizeof specs / sizeof specs[0] };

typedef struct fx {
  char root[256], cwd[4096], tmpdir[4096]; /* tmpdir: TMPDIR before the test ("" unset) */
  tfx_strbuf ref_out, ref_files[MAX_OUTS];
  int ref_rc;
  /* the sweep's tables (here so that a failing check, which longjmps, leaks nothing) */
  const void **site_addr;
  long *site_first, *ns;
} fx;

/* ---- small file helpers ---- */

static void put_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

static void put_str(const char *path, const char *s) { put_file(path, s, strlen(s)); }

static int same(const tfx_strbuf *a, const tfx_strbuf *b) {
  return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
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

static int has_tmp_files(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += strstr(e->d_name, ".tmp.") != NULL;
  closedir(d);
  return n;
}

static int n_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
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

/* ---- one in-process run ---- */

static int real_stderr = -1; /* the test's stderr while a run's goes to cap.err */

/* Runs `tfxc ARGV...` with stdout and stderr going to cap.out and cap.err. */
static int run_cli(const char *const *args) {
  char *argv[24];
  int argc = 0;
  argv[argc++] = strdup("tfxc");
  for (int i = 0; args[i]; i++) argv[argc++] = strdup(args[i]);
  argv[argc] = NULL;
  for (int i = 0; i < argc; i++) assert_non_null(argv[i]);
  fflush(stdout);
  fflush(stderr);
  int save1 = dup(1), save2 = dup(2);
  int fo = open("cap.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int fe = open("cap.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(save1 >= 0 && save2 >= 0 && fo >= 0 && fe >= 0);
  assert_true(dup2(fo, 1) >= 0 && dup2(fe, 2) >= 0);
  close(fo);
  close(fe);
  real_stderr = save2;
  int rc = tfx_cli_main(argc, argv);
  real_stderr = -1;
  fflush(stdout);
  fflush(stderr);
  dup2(save1, 1);
  dup2(save2, 2);
  close(save1);
  close(save2);
  for (int i = 0; i < argc; i++) free(argv[i]);
  return rc;
}

/* The golden case of test-update, as it is before every run: a GE case with an explain file
 * and stale expectations (all three get rewritten). */
static tfx_strbuf model_text; /* model.pbtxt, read once: a run's preparation allocates nothing
                                 through tfx_malloc, which would count as the run's */

static void reset_case(void) {
  clear_dir("case");
  put_file("case/model.pbtxt", model_text.data, model_text.len);
  put_str("case/args", "--input-shape input:2,4  # a comment\n");
  put_str("case/explain", "--scope dense/LayerNorm/\n");
  put_str("case/expected.tf.pbtxt", "stale\n");
  put_str("case/expected.ge.pbtxt", "");
  put_str("case/expected.explain", "stale explain\n");
}

static const char old_content[] = "old output\n";

/* Before a run: no outputs (over = 0) or every output holding old_content (over = 1). */
static void prepare(const spec *s, int over) {
  clear_dir("out");
  if (s->is_test) {
    reset_case();
    return;
  }
  for (int k = 0; over && k < MAX_OUTS && s->outs[k]; k++) put_str(s->outs[k], old_content);
}

/* The state an output must be in after a failed run: the case's file as reset_case left it,
 * old_content (over), or absent. Returns 1 when it is. */
static int output_untouched(const spec *s, int k, int over, int absent_ok) {
  tfx_strbuf got;
  tfx_sb_init(&got);
  int ok;
  if (get_file(s->outs[k], &got) != 0) {
    ok = absent_ok || (!over && !s->is_test);
  } else if (s->is_test) {
    const char *want = strstr(s->outs[k], ".tf.") ? "stale\n" : strstr(s->outs[k], ".ge.") ? ""
                                                                                         : "stale explain\n";
    ok = got.len == strlen(want) && (!got.len || memcmp(got.data, want, got.len) == 0);
  } else {
    ok = over && got.len == sizeof old_content - 1 && memcmp(got.data, old_content, got.len) == 0;
  }
  tfx_sb_free(&got);
  return ok;
}

static int file_has(const char *path, const char *needle) {
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  int r = get_file(path, &sb) == 0 && sb.len && strstr(tfx_sb_cstr(&sb), needle) != NULL;
  tfx_sb_free(&sb);
  return r;
}

static void show_capture(void) {
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  if (get_file("cap.err", &sb) == 0 && sb.len) fprintf(stderr, "--- stderr:\n%s", tfx_sb_cstr(&sb));
  if (get_file("cap.out", &sb) == 0 && sb.len)
    fprintf(stderr, "--- stdout:\n%.2000s\n", tfx_sb_cstr(&sb));
  tfx_sb_free(&sb);
}

static void leak_check(const char *label, const char *what, long n) {
  if (!getenv("FAULT_LEAKCHECK") || !__lsan_do_recoverable_leak_check) return;
  if (__lsan_do_recoverable_leak_check())
    fail_msg("%s: leak after the run with %s %ld failing", label, what, n);
}

/* ---- allocation sites (the observer) ---- */

typedef struct sites {
  const void **addr; /* open addressing, NULL = empty */
  long *first;       /* the n of the first allocation from addr */
  size_t cap, n;
} sites;

static sites *cur_sites;
static long watch_n;
static const void *watch_site;

static void observe(const void *site, void *user) {
  (void)user;
  if (tfx_alloc_calls() == watch_n) {
    watch_site = site;
    const char *bt_at = getenv("FAULT_BACKTRACE"); /* FAULT_BACKTRACE=n: where n is made */
    if (bt_at && strtol(bt_at, NULL, 10) == watch_n) {
      void *bt[32];
      backtrace_symbols_fd(bt, backtrace(bt, 32), real_stderr >= 0 ? real_stderr : 2);
    }
  }
  sites *s = cur_sites;
  if (!s || s->n * 2 >= s->cap) return;
  size_t h = ((uintptr_t)site >> 2) * 0x9E3779B97F4A7C15ull % s->cap;
  while (s->addr[h] && s->addr[h] != site) h = (h + 1) % s->cap;
  if (!s->addr[h]) {
    s->addr[h] = site;
    s->first[h] = tfx_alloc_calls();
    s->n++;
  }
}

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

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  assert_non_null(f);
  assert_non_null(getcwd(f->cwd, sizeof f->cwd));
  const char *tmp = getenv("TMPDIR");
  snprintf(f->tmpdir, sizeof f->tmpdir, "%s", tmp ? tmp : "");
  snprintf(f->root, sizeof f->root, "%s/tfxc-clifault-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  assert_non_null(mkdtemp(f->root));
  const char *src = getenv("TFXC_SRC");
  assert_non_null(src);
  char path[600];
  snprintf(path, sizeof path, "%s/examples/dense_layernorm/model.pbtxt", src);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  assert_int_equal(get_file(path, &sb), 0);
  assert_int_equal(chdir(f->root), 0);
  /* `tfxc test` runs its cases with TMPDIR: keep its temporary directories in here */
  assert_int_equal(mkdir("tmp", 0755), 0);
  char tmpdir[600];
  snprintf(tmpdir, sizeof tmpdir, "%s/tmp", f->root);
  setenv("TMPDIR", tmpdir, 1);
  put_file("model.pbtxt", sb.data, sb.len);
  model_text = sb;
  assert_int_equal(mkdir("out", 0755), 0);
  assert_int_equal(mkdir("rules", 0755), 0);
  assert_int_equal(mkdir("case", 0755), 0);
  put_str("rules/fault.scoperule", fault_scoperule);
  put_str("rules/fault.opmap", fault_opmap);
  /* the stdlib, compiled once into a pack by the CLI itself */
  static const char *const mk[] = {"compile", "-o", "stdlib.tfxb", NULL};
  int rc = run_cli(mk);
  if (rc) show_capture();
  assert_int_equal(rc, 0);
  tfx_sb_init(&f->ref_out);
  for (int k = 0; k < MAX_OUTS; k++) tfx_sb_init(&f->ref_files[k]);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  clear_dir("out");
  clear_dir("case");
  clear_dir("rules");
  rmdir("out");
  rmdir("case");
  rmdir("rules");
  rmdir("tmp");
  unlink("model.pbtxt");
  tfx_sb_free(&model_text);
  unlink("stdlib.tfxb");
  unlink("cap.out");
  unlink("cap.err");
  assert_int_equal(chdir(f->cwd), 0);
  rmdir(f->root);
  if (*f->tmpdir) setenv("TMPDIR", f->tmpdir, 1);
  else unsetenv("TMPDIR");
  tfx_sb_free(&f->ref_out);
  for (int k = 0; k < MAX_OUTS; k++) tfx_sb_free(&f->ref_files[k]);
  free(f->site_addr);
  free(f->site_first);
  free(f->ns);
  free(f);
  return 0;
}

/* The reference run of s: its exit code, stdout and outputs. */
static void reference(fx *f, const spec *s) {
  prepare(s, 0);
  f->ref_rc = run_cli(s->argv);
  if (f->ref_rc != 0 && !strstr(s->label, "usage")) {
    show_capture();
    fail_msg("%s: the reference run failed (exit %d)", s->label, f->ref_rc);
  }
  assert_int_equal(get_file("cap.out", &f->ref_out), 0);
  for (int k = 0; k < MAX_OUTS && s->outs[k]; k++)
    if (get_file(s->outs[k], &f->ref_files[k]) != 0) fail_msg("%s: no %s", s->label, s->outs[k]);
}

/* Checks the state after a run of s that exited rc with something failing (what, n).
 * Returns 1 when the run failed, 0 when it succeeded (identical results). */
static int check_run(fx *f, const spec *s, int rc, int over, const char *what, long n) {
  const char *l = s->label;
  if (has_tmp_files("out") || has_tmp_files("case") || has_tmp_files("."))
    fail_msg("%s: %s %ld failed (exit %d): a temporary file is left", l, what, n, rc);
  if (n_entries("tmp") != 0)
    fail_msg("%s: %s %ld failed (exit %d): a temporary directory of tfxc test is left", l, what,
             n, rc);
  if (rc != 0 || f->ref_rc != 0) {
    if (rc == 0) {
      show_capture();
      fail_msg("%s: %s %ld failed: exit 0, the reference exits %d", l, what, n, f->ref_rc);
    }
    int said = file_has("cap.err", "error") || (s->is_test && file_has("cap.out", "FAIL "));
    if (!said) {
      show_capture();
      fail_msg("%s: %s %ld failed: exit %d without an error printed", l, what, n, rc);
    }
    /* a failed allocation in a command that succeeds without it is out of memory: exit 1
     * (TFXC_NOMEM), with "out of memory" in the first error, never a usage (2), input (3) or
     * rules (4) error (issue 15 item 4: the commands' drivers too) */
    if (f->ref_rc == 0 && !strcmp(what, "allocation")) {
      tfx_strbuf sb;
      tfx_sb_init(&sb);
      get_file("cap.err", &sb);
      const char *e = strstr(tfx_sb_cstr(&sb), "error: "); /* the first error's line */
      const char *eol = e ? strchr(e, '\n') : NULL;
      const char *oom = e ? strstr(e, "out of memory") : NULL;
      int first_oom = oom && (!eol || oom < eol);
      tfx_sb_free(&sb);
      if (rc != 1 || !first_oom) {
        show_capture();
        fail_msg("%s: %s %ld failed: exit %d (want 1) or the first error is not 'out of memory'",
                 l, what, n, rc);
      }
    }
    for (int k = 0; k < MAX_OUTS && s->outs[k]; k++) {
      if (s->report && k == 0) {
        char want[32];
        snprintf(want, sizeof want, "\"exit_code\": %d,", rc);
        if (access(s->outs[0], F_OK) == 0 && !file_has(s->outs[0], want))
          fail_msg("%s: %s %ld failed (exit %d), but the report does not say so", l, what, n, rc);
        continue;
      }
      if (!output_untouched(s, k, over, 0)) {
        show_capture();
        fail_msg("%s: %s %ld failed (exit %d), but %s was written", l, what, n, rc, s->outs[k]);
      }
    }
    if (!s->is_test) {
      tfx_strbuf sb;
      tfx_sb_init(&sb);
      get_file("cap.out", &sb);
      int len = (int)sb.len;
      tfx_sb_free(&sb);
      if (len && f->ref_rc == 0) {
        show_capture();
        fail_msg("%s: %s %ld failed (exit %d), but %d bytes went to stdout", l, what, n, rc, len);
      }
    }
    return 1;
  }
  if (file_has("cap.err", "error:")) {
    show_capture();
    fail_msg("%s: %s %ld failed: exit 0 after an error", l, what, n);
  }
  tfx_strbuf got;
  tfx_sb_init(&got);
  if (get_file("cap.out", &got) != 0 || !same(&got, &f->ref_out))
    fail_msg("%s: %s %ld failed, the run succeeded, but stdout differs from the reference", l,
             what, n);
  for (int k = 0; k < MAX_OUTS && s->outs[k]; k++)
    if (get_file(s->outs[k], &got) != 0 || !same(&got, &f->ref_files[k]))
      fail_msg("%s: %s %ld failed, the run succeeded, but %s differs from the reference", l,
               what, n, s->outs[k]);
  tfx_sb_free(&got);
  return 0;
}

/* ---- the allocation sweep ---- */

static void alloc_sweep(fx *f, const spec *s) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  reference(f, s); /* warm-up: process-wide caches (the CANN prototype table) get built */
  sites st = {0};
  st.cap = 1u << 16;
  free(f->site_addr);
  free(f->site_first);
  st.addr = f->site_addr = calloc(st.cap, sizeof *st.addr);
  st.first = f->site_first = calloc(st.cap, sizeof *st.first);
  assert_true(st.addr && st.first);
  cur_sites = &st;
  watch_n = -1;
  tfx_alloc_set_observer(observe, NULL);
  tfx_alloc_fail_arena(1);
  tfx_alloc_fail_at(0);
  reference(f, s);
  long total = tfx_alloc_calls();

  tfx_alloc_set_observer(NULL, NULL);
  tfx_alloc_fail_arena(0);
  cur_sites = NULL;
  assert_true(st.n * 2 < st.cap);

  /* the n to try: the dense prefix, every site's first allocation, then an even spread up
   * to max_runs in all */
  size_t cap = (size_t)(s->dense > s->max_runs ? s->dense : s->max_runs) + st.n + (size_t)s->max_runs + 2, m = 0;
  free(f->ns);
  long *ns = f->ns = malloc(cap * sizeof *ns);
  assert_non_null(ns);
  long dense = total <= s->max_runs ? total : s->dense; /* few enough: every n */
  for (long n = 1; n <= dense; n++) ns[m++] = n;
  for (size_t i = 0; i < st.cap; i++)
    if (st.addr[i]) ns[m++] = st.first[i];
  long spread = (long)s->max_runs - (long)m;
  if (spread > total) spread = total;
  for (long i = 0; i < spread; i++)
    ns[m++] = 1 + (long)((double)i * (double)(total - 1) / (double)(spread > 1 ? spread - 1 : 1));
  if (total > 0) ns[m++] = total;
  qsort(ns, m, sizeof *ns, cmp_long);
  size_t u = 0;
  for (size_t i = 0; i < m; i++)
    if (ns[i] >= 1 && ns[i] <= total && (u == 0 || ns[u - 1] != ns[i])) ns[u++] = ns[i];

  long failed = 0, tolerated = 0;
  int codes[8] = {0};
  for (size_t i = 0; i < u; i++) {
    long n = ns[i];
    prepare(s, 0);
    tfx_alloc_fail_arena(1);
    tfx_alloc_fail_at(n);
    watch_n = n;
    watch_site = NULL;
    tfx_alloc_set_observer(observe, NULL);
    int rc = run_cli(s->argv);
    int hit = tfx_alloc_failures() > 0;
    long calls = tfx_alloc_calls();
    tfx_alloc_set_observer(NULL, NULL);
    tfx_alloc_fail_at(0);
    tfx_alloc_fail_arena(0);
    if (getenv("FAULT_VERBOSE")) {
      char line[160] = "";
      FILE *ef = fopen("cap.err", "r");
      if (ef) {
        if (!fgets(line, sizeof line, ef)) line[0] = 0;
        fclose(ef);
      }
      line[strcspn(line, "\n")] = 0;
      fprintf(stderr, "%s: n=%ld rc=%d allocations=%ld site=%p (tfx_cli_main=%p): %s\n", s->label,
              n, rc, calls, watch_site, (void *)(uintptr_t)tfx_cli_main, line);
    }
    if (check_run(f, s, rc, 0, "allocation", n)) {
      failed++;
      codes[rc > 0 && rc < 8 ? rc : 0]++;
    } else {
      tolerated++;
    }
    if (!hit) {
      show_capture();
      fail_msg("%s: allocation %ld of %ld was never made", s->label, n, total);
    }
    leak_check(s->label, "allocation", n);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr,
          "fault(%s): %ld allocations from %zu sites; %zu runs with one failing allocation: %ld "
          "failed (exit 1: %d, 2: %d, 3: %d, 4: %d), %ld succeeded with identical results "
          "(%.1f s)\n",
          s->label, total, st.n, u, failed, codes[1], codes[2], codes[3], codes[4], tolerated,
          (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
}

static void alloc_failures(void **state) {
  fx *f = *state;
  const char *only = getenv("FAULT_ONLY"); /* FAULT_ONLY=label: one command */
  for (int i = 0; i < N_SPECS; i++)
    if (!only || strcmp(only, specs[i].label) == 0) alloc_sweep(f, &specs[i]);
}

/* ---- write failures ---- */

static void write_sweep(fx *f, const spec *s) {
  reference(f, s);
  prepare(s, 0);
  tfx_write_fail_at(0);
  assert_int_equal(run_cli(s->argv), 0);
  long steps = tfx_write_calls();
  assert_true(steps >= 1);
  long runs = 0;
  for (int over = 0; over < 2; over++) {
    if (over && s->is_test) break; /* the case always has its old expectations */
    for (long n = 1; n <= steps; n++) {
      prepare(s, over);
      tfx_write_fail_at(n);
      int rc = run_cli(s->argv);
      long hit = tfx_write_failures();
      tfx_write_fail_at(0);
      runs++;
      if (hit != 1) fail_msg("%s: write step %ld of %ld: %ld failures injected", s->label, n, steps, hit);
      if (rc == 0) fail_msg("%s: write step %ld failed: exit 0", s->label, n);
      if (!file_has("cap.err", "cannot write output") && !file_has("cap.err", "cannot create output") &&
          !file_has("cap.err", "write error")) {
        show_capture();
        fail_msg("%s: write step %ld failed without a 'cannot write/create output' error", s->label, n);
      }
      if (has_tmp_files("out") || has_tmp_files("case") || has_tmp_files("."))
        fail_msg("%s: write step %ld failed: a temporary file is left", s->label, n);
      for (int k = 0; k < MAX_OUTS && s->outs[k]; k++)
        if (!output_untouched(s, k, over, 1))
          fail_msg("%s: write step %ld failed, but %s holds new content", s->label, n, s->outs[k]);
      leak_check(s->label, "write step", n);
    }
  }
  fprintf(stderr, "fault(%s writes): %ld file-system steps per run; %ld runs, each failing one "
          "step, all failed cleanly\n", s->label, steps, runs);
}

static void write_failures(void **state) {
  fx *f = *state;
  static const char *const writers[] = {"fmt", "fmt-stdout", "compile", "convert", "check",
                                        "test-update"};
  for (size_t w = 0; w < sizeof writers / sizeof writers[0]; w++)
    for (int i = 0; i < N_SPECS; i++)
      if (strcmp(specs[i].label, writers[w]) == 0) write_sweep(f, &specs[i]);
}

/* Repeated in-process runs give the same results (no state kept between calls). */
static void repeatable(void **state) {
  fx *f = *state;
  for (int i = 0; i < N_SPECS; i++) {
    reference(f, &specs[i]);
    for (int r = 0; r < 2; r++) {
      prepare(&specs[i], 0);
      int rc = run_cli(specs[i].argv);
      check_run(f, &specs[i], rc, 0, "(nothing: repeat)", r);
      if (rc != f->ref_rc) fail_msg("%s: exit %d on a repeat, %d the first time", specs[i].label, rc, f->ref_rc);
    }
  }
}

int main(int argc, char **argv) {
  /* `tfxc test` re-executes /proc/self/exe, this binary, as "tfxc": be tfxc then */
  if (argc > 0 && strcmp(argv[0], "tfxc") == 0) return tfx_cli_main(argc, argv);
  /* the fault-injection cases: their own ctest test (unit/NAME/fault-injection), skipped
   * (exit 77) when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        cmocka_unit_test_setup_teardown(write_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(alloc_failures, setup, teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(repeatable, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
