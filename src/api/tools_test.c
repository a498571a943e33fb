/* The expectations of a `tfxc test` case (tfxc.h "Tools": tfxc_test_check).
 * Stage: api. Input: a case directory and what its run produced (the command runs the case;
 * see src/cli/cmd_test.c). Output: the comparison report (the lines `tfxc test` prints under
 * a case, each indented by 4), the result, and with update the expectation files rewritten
 * from the run: the files that change are written together, all or nothing, each within the
 * output-size limit; a stale expected.tf.pbtxt is removed only after that.
 * Expectations: expected.exit (default 0), expected.stderr, expected.tf.pbtxt,
 * expected.ge.pbtxt (its presence makes a GE case), expected.explain (with an explain file). */
#define _POSIX_C_SOURCE 200809L
#define TFXC_BUILDING_LIBRARY 1
#include "tfxc/tfxc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/tools_int.h"
#include "util/arena.h"
#include "util/fileio.h"
#include "util/limits.h"

/* dir/name into buf (no allocation: a failed allocation must not read as "no such file").
 * Returns 0, or -1 when it does not fit. */
#define PATH_BUF 4096
static int path_in(char *buf, const char *dir, const char *name) {
  size_t a = strlen(dir);
  int n = snprintf(buf, PATH_BUF, "%s%s%s", dir, a && dir[a - 1] != '/' ? "/" : "", name);
  return n >= 0 && n < PATH_BUF ? 0 : -1;
}

static int exists_in(const char *dir, const char *name) {
  char p[PATH_BUF];
  struct stat st;
  return path_in(p, dir, name) == 0 && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads dir/name into *data (*data = NULL, *len = 0 when there is no such regular file).
 * Returns 0, or -1 when it exists but cannot be read (reported into d): an unreadable file
 * must not count as an absent one; *oom set when that was for want of memory. */
static int read_opt(const char *dir, const char *name, char **data, size_t *len, tfx_diag *d,
                    int *oom) {
  *data = NULL;
  *len = 0;
  char p[PATH_BUF];
  struct stat st;
  if (path_in(p, dir, name) != 0 || stat(p, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  tfx_status rs = TFX_OK;
  *data = tfx_read_file_st(p, 0, NULL, len, &rs, d);
  if (!*data && rs == TFX_E_NOMEM) *oom = 1;
  return *data ? 0 : -1;
}

static void remove_in(const char *dir, const char *name) {
  char p[PATH_BUF];
  if (path_in(p, dir, name) == 0) unlink(p);
}

/* The expectation files an update writes, written together. */
#define MAX_UPDATES 5
typedef struct updates {
  const char *name[MAX_UPDATES];
  const char *data[MAX_UPDATES];
  size_t len[MAX_UPDATES];
  size_t n;
} updates;

static void add_update(updates *u, const char *name, const char *data, size_t len) {
  u->name[u->n] = name;
  u->data[u->n] = data;
  u->len[u->n] = len;
  u->n++;
}

/* Writes the files of u into dir, all or nothing, after checking every one against the
 * session's output-size limit: one over it and nothing is written. Returns 0 or -1 (reported
 * into the session's diagnostics); *oom set when it failed for want of memory. */
static int write_updates(tfxc_session *s, const char *dir, const updates *u, int *oom) {
  tfx_diag *d = tfx_api_diag(s);
  size_t max_out = tfx_limit_size(&tfx_api_options(s)->limits, TFX_LIMIT_OUTPUT_SIZE);
  char *paths[MAX_UPDATES] = {0};
  int rc = 0;
  for (size_t i = 0; i < u->n && rc == 0; i++) {
    size_t a = strlen(dir), b = strlen(u->name[i]);
    int slash = a && dir[a - 1] != '/';
    if (!(paths[i] = tfx_malloc(a + (size_t)slash + b + 1))) {
      tfx_error(d, dir, 0, 0, "out of memory");
      *oom = 1;
      rc = -1;
      break;
    }
    memcpy(paths[i], dir, a);
    if (slash) paths[i][a] = '/';
    memcpy(paths[i] + a + (size_t)slash, u->name[i], b + 1);
  }
  for (size_t i = 0; i < u->n && rc == 0; i++)
    if (tfx_check_output_size(paths[i], u->len[i], max_out, d) != 0) rc = -1;
  if (rc == 0 && u->n) {
    tfx_status ws = tfx_write_files_atomic(u->n, (const char *const *)paths,
                                           (const void *const *)u->data, u->len, d);
    if (ws == TFX_E_NOMEM) *oom = 1;
    rc = ws == TFX_OK ? 0 : -1;
  }
  for (size_t i = 0; i < u->n; i++) free(paths[i]);
  return rc;
}

/* Replaces every occurrence of from in s with to. Returns a malloc'ed string or NULL. */
static char *replace_all(const char *s, size_t len, const char *from, const char *to, size_t *olen) {
  tfx_strbuf b;
  tfx_sb_init(&b);
  size_t fl = strlen(from);
  for (size_t i = 0; i < len;) {
    if (fl && i + fl <= len && memcmp(s + i, from, fl) == 0) {
      tfx_sb_puts(&b, to);
      i += fl;
    } else {
      tfx_sb_putc(&b, s[i++]);
    }
  }
  tfx_sb_putc(&b, 0);
  if (b.oom) {
    tfx_sb_free(&b);
    return NULL;
  }
  *olen = b.len - 1;
  return b.data;
}

static int parse_exit(const char *s, size_t len, int *code) {
  while (len && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\r')) len--;
  if (!len || len > 3) return -1;
  int v = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  if (v > 255) return -1;
  *code = v;
  return 0;
}

/* Appends "    what: FILE: message" (the first error of l) to rep. */
static void rep_error(tfx_strbuf *rep, const char *what, const tfx_diag *l) {
  const tfx_diag_item *e = l->n ? &l->items[0] : NULL;
  tfx_sb_printf(rep, "    %s: %s%s%s\n", what, e && e->file ? e->file : "", e && e->file ? ": " : "",
                e ? e->msg : "?");
}

/* Appends the diff of a -> b, indented as the report, to rep; *oom set when it ran out of
 * memory. */
static void diff_into(tfx_strbuf *rep, const char *a, size_t na, const char *b, size_t nb,
                      const char *la, const char *lb, int *oom) {
  char *t = NULL;
  size_t n = 0;
  if (tfxc_diff(a, na, b, nb, la, lb, 4, &t, &n) == TFXC_OK) tfx_sb_add(rep, t, n);
  else *oom = 1;
  free(t);
}

/* The comparison (or update) of one case; *oom set when an allocation failed on the way (the
 * result then says nothing: the caller returns TFXC_NOMEM). */
static tfxc_test_result check(tfxc_session *s, const char *dir, const tfxc_test_run *run,
                              int update, tfx_strbuf *rep, int *oom) {
  char *e_exit = NULL, *e_err = NULL, *e_tf = NULL, *e_x = NULL, *e_ge = NULL;
  size_t n_exit, n_err, n_tf, n_x, n_ge = 0;
  tfxc_test_result status = TFXC_TEST_FAIL;
  tfx_diag local;
  tfx_diag_init(&local);
  int ge = exists_in(dir, "expected.ge.pbtxt");
  if (read_opt(dir, "expected.exit", &e_exit, &n_exit, &local, oom) != 0 ||
      read_opt(dir, "expected.stderr", &e_err, &n_err, &local, oom) != 0 ||
      read_opt(dir, "expected.tf.pbtxt", &e_tf, &n_tf, &local, oom) != 0 ||
      read_opt(dir, "expected.explain", &e_x, &n_x, &local, oom) != 0 ||
      (ge && read_opt(dir, "expected.ge.pbtxt", &e_ge, &n_ge, &local, oom) != 0)) {
    rep_error(rep, "cannot read the expectations", &local);
    goto done;
  }
  int want_exit = 0, bad = 0, changed = 0;
  if (!update && !e_exit && !e_err && !e_tf && !ge && !e_x && !run->explained) {
    /* a case that compares nothing would pass whatever tfxc does */
    tfx_sb_puts(rep, "    nothing to compare: no expected.exit, expected.stderr, "
                "expected.tf.pbtxt, expected.ge.pbtxt or explain file (tfxc test --update "
                "creates them from this run)\n");
    goto done;
  }
  if (e_exit && parse_exit(e_exit, n_exit, &want_exit) != 0) {
    tfx_sb_puts(rep, "    expected.exit: not an exit code (0..255)\n");
    bad = 1;
  }
  if (run->explained && run->explain_exit != 0) { /* explain must succeed, in both modes */
    size_t tl, el = run->explain_err_len;
    while (el && run->explain_err[el - 1] == '\n') el--;
    char *t = replace_all(run->explain_err, el, "\n", "\n      ", &tl);
    if (!t) *oom = 1;
    tfx_sb_printf(rep, "    explain exited %d, expected 0 (tfxc explain MODEL [-r rules] ARGS "
                  "EXPLAIN-OPTIONS)\n    explain stderr:\n      %s\n", run->explain_exit, t ? t : "");
    free(t);
    bad = 1;
  }
  if (update) {
    /* the changed files are written together, all or nothing (each checked against the
     * output-size limit first); a stale expected.tf.pbtxt is removed only after that */
    updates u = {0};
    int stale_tf = 0;
    char buf[16];
    int k = snprintf(buf, sizeof buf, "%d\n", run->exit_code);
    if ((e_exit || run->exit_code != 0) &&
        (!e_exit || n_exit != (size_t)k || memcmp(e_exit, buf, (size_t)k) != 0))
      add_update(&u, "expected.exit", buf, (size_t)k);
    if ((e_err || run->exit_code != 0) &&
        (!e_err || n_err != run->err_len || memcmp(e_err, run->err, run->err_len) != 0))
      add_update(&u, "expected.stderr", run->err, run->err_len);
    if (run->tf && (e_tf || run->exit_code == 0) &&
        (!e_tf || n_tf != run->tf_len || memcmp(e_tf, run->tf, run->tf_len) != 0))
      add_update(&u, "expected.tf.pbtxt", run->tf, run->tf_len);
    else if (!run->tf && e_tf)
      stale_tf = 1;
    if (ge && run->ge && (n_ge != run->ge_len || memcmp(e_ge, run->ge, run->ge_len) != 0))
      add_update(&u, "expected.ge.pbtxt", run->ge, run->ge_len);
    if (run->explained && run->explain_exit == 0 &&
        (!e_x || n_x != run->explain_len || memcmp(e_x, run->explain, run->explain_len) != 0))
      add_update(&u, "expected.explain", run->explain, run->explain_len);
    if (write_updates(s, dir, &u, oom) != 0) {
      tfx_sb_puts(rep, "    could not update the expectations (nothing was changed)\n");
      bad = 1;
    } else {
      if (stale_tf) remove_in(dir, "expected.tf.pbtxt");
      changed = u.n || stale_tf;
    }
    status = bad ? TFXC_TEST_FAIL : changed ? TFXC_TEST_UPDATED : TFXC_TEST_PASS;
  } else {
    if (run->exit_code != want_exit) {
      tfx_sb_printf(rep, "    exit code %d, expected %d\n", run->exit_code, want_exit);
      bad = 1;
      if (!e_err && run->err_len) { /* show what went wrong */
        tfx_sb_puts(rep, "    stderr:\n");
        char *t = replace_all(run->err, run->err_len, "\n", "\n      ", &n_err);
        if (t) tfx_sb_printf(rep, "      %s\n", t);
        else *oom = 1;
        free(t);
      }
    }
    if (e_err && (n_err != run->err_len || memcmp(e_err, run->err, run->err_len) != 0)) {
      diff_into(rep, e_err, n_err, run->err, run->err_len, "expected.stderr", "stderr", oom);
      bad = 1;
    }
    if (e_tf) {
      if (!run->tf) {
        tfx_sb_puts(rep, "    no tf-pbtxt output was written (expected.tf.pbtxt exists)\n");
        bad = 1;
      } else if (n_tf != run->tf_len || memcmp(e_tf, run->tf, run->tf_len) != 0) {
        diff_into(rep, e_tf, n_tf, run->tf, run->tf_len, "expected.tf.pbtxt", "output", oom);
        bad = 1;
      }
    }
    if (ge && run->exit_code == 0) {
      if (!run->ge) {
        tfx_sb_puts(rep, "    no ge-pbtxt output was written (expected.ge.pbtxt exists)\n");
        bad = 1;
      } else if (n_ge != run->ge_len || memcmp(e_ge, run->ge, run->ge_len) != 0) {
        diff_into(rep, e_ge ? e_ge : "", n_ge, run->ge, run->ge_len, "expected.ge.pbtxt", "output",
                  oom);
        bad = 1;
      }
    }
    if (run->explained && run->explain_exit == 0) {
      if (!e_x) {
        tfx_sb_puts(rep, "    an explain file but no expected.explain (tfxc test --update "
                    "creates it)\n");
        bad = 1;
      } else if (n_x != run->explain_len || memcmp(e_x, run->explain, run->explain_len) != 0) {
        diff_into(rep, e_x, n_x, run->explain, run->explain_len, "expected.explain", "explain",
                  oom);
        bad = 1;
      }
    }
    status = bad ? TFXC_TEST_FAIL : TFXC_TEST_PASS;
  }
done:
  free(e_ge);
  free(e_exit);
  free(e_err);
  free(e_tf);
  free(e_x);
  tfx_diag_free(&local);
  return status;
}

tfxc_status tfxc_test_check(tfxc_session *s, const char *dir, const tfxc_test_run *run,
                            int update, tfxc_test_result *result, char **report, size_t *len) {
  if (!s) return TFXC_MISUSE;
  if (result) *result = TFXC_TEST_FAIL;
  if (report) *report = NULL;
  if (len) *len = 0;
  if (!dir || !run || !result || !report || (!run->err && run->err_len) ||
      (run->explained && !run->explain_err && run->explain_err_len) ||
      (run->explained && !run->explain && run->explain_len)) {
    tfx_error(tfx_api_diag(s), NULL, 0, 0, "tfxc_test_check: no directory, run or result pointers");
    return tfx_api_finish(s, TFXC_MISUSE);
  }
  tfxc_test_run r = *run; /* absent texts read as empty */
  if (!r.err) r.err = "";
  if (!r.explain_err) r.explain_err = "";
  if (r.explained && !r.explain) r.explain = "";
  tfx_strbuf rep; /* taken before anything is written: a case that updates its files and
                   * reports nothing needs no allocation after the write */
  tfx_sb_init(&rep);
  if (!tfx_sb_reserve(&rep, 256)) {
    tfx_sb_free(&rep);
    tfx_error(tfx_api_diag(s), NULL, 0, 0, "out of memory");
    return tfx_api_finish(s, TFXC_NOMEM);
  }
  int oom = 0;
  tfxc_test_result res = check(s, dir, &r, update, &rep, &oom);
  if (oom) { /* the allocation that failed was reported into the report or the diagnostics */
    tfx_sb_free(&rep);
    tfx_error(tfx_api_diag(s), dir, 0, 0, "out of memory");
    return tfx_api_finish(s, TFXC_NOMEM);
  }
  tfxc_status st = tfx_api_give(s, &rep, (void **)report, len);
  if (st == TFXC_OK) *result = res;
  return tfx_api_finish(s, st);
}
