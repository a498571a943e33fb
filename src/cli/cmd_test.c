/* `tfxc test PATH... [--update]`: the golden test runner.
 * Stage: cli. Input: case directories (a directory holding model.pbtxt or model.pb), or
 * directories searched recursively for them (byte order of paths). Each case is run by
 * re-executing this tfxc binary (/proc/self/exe) in the case directory:
 *   tfxc MODEL --emit tf-pbtxt -o <tmp>/out.tf.pbtxt [-r rules] ARGS...
 * or, for a case with an expected.ge.pbtxt (an empty one is filled by --update),
 *   tfxc MODEL --emit tf-pbtxt,ge-pbtxt -o <tmp>/out [-r rules] ARGS...
 * where ARGS come from the case's `args` file (whitespace-separated, '...'/"..." quoting,
 * lines starting with '#' are comments). Output on stdout: one line per case (PASS / FAIL /
 * UPDATED), a unified diff under a failing one, then `N passed, N failed`. Exit 0 when all
 * passed, 1 when any failed, 2 usage, 3 a PATH that is missing or holds no case.
 * Expectations: expected.exit (default 0), expected.stderr (the temporary directory written
 * as <tmp>), expected.tf.pbtxt, expected.ge.pbtxt (the GE IR text).
 * A case with an `explain` file (explain options, same syntax as `args`) is also run as
 *   tfxc explain MODEL [-r rules] ARGS... EXPLAIN-OPTIONS
 * (the `args` pass through: explain accepts the rule/pipeline options; a convert-only option
 * makes explain exit 2, failing the case), which must exit 0; its stdout is compared with
 * expected.explain. expected.explain without `explain` fails the case. A case with no
 * expectation file at all fails ("nothing to compare") unless --update creates them.
 * --update rewrites the expectations from the actual run: the files a case changes are
 * written all or nothing, each within --limit output-size. The comparison, its report (with
 * diffs) and the updates are the library's (tfxc_test_check); this file finds and runs the
 * cases. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_api.h"
#include "tfxc/tfxc.h"

enum { O_UPDATE, O_VERBOSE, O_QUIET, O_HELP, O_LIMIT };

static const tfx_cli_opt test_opts[] = {
  {O_UPDATE, "update", 0, NULL},
  {O_VERBOSE, "verbose", 'v', NULL},
  {O_QUIET, "quiet", 'q', NULL},
  {O_HELP, "help", 'h', NULL},
  {O_LIMIT, "limit", 0, "NAME=N"},
};

#define CASE_TIMEOUT_S 600u  /* a hung conversion is killed (SIGALRM) */
#define MAX_ARGS 256

/* ---------------------------------------------------------------- text buffers */

typedef struct tbuf {
  char *data; /* NUL-terminated when not NULL */
  size_t len, cap;
  int oom;    /* an append failed: the text is incomplete */
} tbuf;

static void tb_add(tbuf *b, const void *p, size_t n) {
  if (b->oom) return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n + 1) cap *= 2;
    char *nd = realloc(b->data, cap);
    if (!nd) {
      b->oom = 1;
      return;
    }
    b->data = nd;
    b->cap = cap;
  }
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = 0;
}

static void tb_puts(tbuf *b, const char *s) { tb_add(b, s, strlen(s)); }
static void tb_putc(tbuf *b, char c) { tb_add(b, &c, 1); }

static void tb_printf(tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tb_printf(tbuf *b, const char *fmt, ...) {
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    tb_add(b, small, (size_t)n);
    return;
  }
  char *big = malloc((size_t)n + 1);
  if (!big) {
    b->oom = 1;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  tb_add(b, big, (size_t)n);
  free(big);
}

static const char *tb_cstr(const tbuf *b) { return b->data ? b->data : ""; }

static void tb_free(tbuf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

/* ---------------------------------------------------------------- string lists */

typedef struct strvec {
  char **v;
  size_t n, cap;
} strvec;

static int sv_push(strvec *sv, char *s) {
  if (!s) return -1;
  if (sv->n == sv->cap) {
    size_t cap = sv->cap ? sv->cap * 2 : 16;
    char **nv = realloc(sv->v, cap * sizeof *nv);
    if (!nv) {
      free(s);
      return -1;
    }
    sv->v = nv;
    sv->cap = cap;
  }
  sv->v[sv->n++] = s;
  return 0;
}

static void sv_free(strvec *sv) {
  for (size_t i = 0; i < sv->n; i++) free(sv->v[i]);
  free(sv->v);
  memset(sv, 0, sizeof *sv);
}

static char *join(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  int slash = a && dir[a - 1] != '/';
  char *p = malloc(a + (size_t)slash + b + 1);
  if (!p) return NULL;
  memcpy(p, dir, a);
  if (slash) p[a] = '/';
  memcpy(p + a + (size_t)slash, name, b + 1);
  return p;
}

/* dir/name into buf (no allocation: a failed allocation must not read as "no such file").
 * Returns 0, or -1 when it does not fit (longer than any path the system accepts). */
#define PATH_BUF 4096
static int path_in(char *buf, const char *dir, const char *name) {
  size_t a = strlen(dir);
  int n = snprintf(buf, PATH_BUF, "%s%s%s", dir, a && dir[a - 1] != '/' ? "/" : "", name);
  return n >= 0 && n < PATH_BUF ? 0 : -1;
}

static int exists_in(const char *dir, const char *name, int want_dir) {
  char p[PATH_BUF];
  struct stat st;
  return path_in(p, dir, name) == 0 && stat(p, &st) == 0 &&
         (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

static int is_case(const char *dir) {
  return exists_in(dir, "model.pbtxt", 0) || exists_in(dir, "model.pb", 0);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collects the cases under dir (itself when it is one). Returns 0, -1 (a directory cannot be
 * read) or -2 (out of memory); reported. */
static int collect(const char *dir, int depth, strvec *out, tfx_cli_diag *d) {
  if (is_case(dir)) {
    if (sv_push(out, strdup(dir)) == 0) return 0;
    tfx_cli_error(d, dir, 0, 0, "out of memory");
    return -2;
  }
  if (depth > 32) return 0;
  DIR *dh = opendir(dir);
  if (!dh) {
    tfx_cli_error(d, dir, 0, 0, "cannot read directory: %s", strerror(errno));
    return -1;
  }
  strvec subs = {0};
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(dh))) {
    if (e->d_name[0] == '.') continue; /* ".", "..", hidden */
    char *p = join(dir, e->d_name);
    struct stat st;
    if (!p) {
      rc = -2;
      break;
    }
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
      if (sv_push(&subs, p) != 0) {
        rc = -2;
        break;
      }
    } else {
      free(p);
    }
  }
  closedir(dh);
  if (subs.n) qsort(subs.v, subs.n, sizeof *subs.v, cmp_str);
  for (size_t i = 0; i < subs.n && rc == 0; i++) rc = collect(subs.v[i], depth + 1, out, d);
  sv_free(&subs);
  if (rc == -2 && !tfx_cli_diag_has_errors(d)) tfx_cli_error(d, dir, 0, 0, "out of memory");
  return rc;
}

/* ---------------------------------------------------------------- files */

/* Reads dir/name into *data (*data = NULL, *len = 0 when there is no such regular file).
 * Returns 0, or -1 when it exists but cannot be read (out of memory, an I/O error; reported
 * into d): an unreadable file must not count as an absent one. */
static int read_opt(const char *dir, const char *name, char **data, size_t *len, tfx_cli_diag *d,
                    int *oom) {
  *data = NULL;
  *len = 0;
  char p[PATH_BUF];
  struct stat st;
  if (path_in(p, dir, name) != 0 || stat(p, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
  FILE *f = fopen(p, "rb");
  if (!f) {
    tfx_cli_error(d, p, 0, 0, "cannot open: %s", strerror(errno));
    return -1;
  }
  tbuf b = {0};
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) tb_add(&b, chunk, got);
  int err = ferror(f);
  int e = errno;
  fclose(f);
  if (err || b.oom || (!b.data && (tb_add(&b, "", 0), b.oom))) {
    if (err) tfx_cli_error(d, p, 0, 0, "read error: %s", strerror(e));
    else {
      tfx_cli_error(d, p, 0, 0, "out of memory reading file");
      *oom = 1;
    }
    tb_free(&b);
    return -1;
  }
  *data = b.data;
  *len = b.len;
  return 0;
}

/* Splits the args file into *out (strings owned by *out). Returns 0 or -1 (reported; *oom set
 * when for want of memory). */
static int split_args(const char *text, strvec *out, const char *where, tfx_cli_diag *d,
                      int *oom) {
  const char *s = text;
  while (*s) {
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
    if (!*s) break;
    if (*s == '#') { /* a comment line (also after tokens: '#' starts a comment) */
      while (*s && *s != '\n') s++;
      continue;
    }
    tbuf tok;
    memset(&tok, 0, sizeof tok);
    while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') {
      if (*s == '\'' || *s == '"') {
        char q = *s++;
        const char *e = strchr(s, q);
        if (!e) {
          tfx_cli_error(d, where, 0, 0, "unterminated %c quote", q);
          tb_free(&tok);
          return -1;
        }
        tb_add(&tok, s, (size_t)(e - s));
        s = e + 1;
      } else {
        tb_putc(&tok, *s++);
      }
    }
    if (tok.oom || out->n >= MAX_ARGS || sv_push(out, strdup(tb_cstr(&tok))) != 0) {
      tfx_cli_error(d, where, 0, 0, out->n >= MAX_ARGS ? "too many arguments" : "out of memory");
      if (out->n < MAX_ARGS) *oom = 1;
      tb_free(&tok);
      return -1;
    }
    tb_free(&tok);
  }
  return 0;
}

/* Replaces every occurrence of from in s with to. Returns a malloc'ed string or NULL. */
static char *replace_all(const char *s, size_t len, const char *from, const char *to, size_t *olen) {
  tbuf b;
  memset(&b, 0, sizeof b);
  size_t fl = strlen(from);
  for (size_t i = 0; i < len;) {
    if (fl && i + fl <= len && memcmp(s + i, from, fl) == 0) {
      tb_puts(&b, to);
      i += fl;
    } else {
      tb_putc(&b, s[i++]);
    }
  }
  tb_putc(&b, 0);
  if (b.oom) {
    tb_free(&b);
    return NULL;
  }
  *olen = b.len - 1;
  return b.data; /* the strbuf's buffer, malloc'ed */
}

/* ---------------------------------------------------------------- running a case */

typedef struct run_result {
  int exit_code;        /* 0..255, or 128 + signal */
  char *err;            /* normalised stderr */
  size_t err_len;
  char *out;            /* convert: the tf-pbtxt output, NULL when none was written;
                           explain: stdout */
  size_t out_len;
  char *ge;             /* convert of a GE case: the ge-pbtxt output, NULL when none */
  size_t ge_len;
} run_result;

static void run_result_free(run_result *r) {
  free(r->err);
  free(r->ge);
  free(r->out);
  memset(r, 0, sizeof *r);
}

/* Runs the conversion, or with explain != NULL `tfxc explain MODEL [-r rules] ARGS EXPLAIN`. */
static int run_case(const char *exe, const char *dir, const strvec *args, const strvec *explain,
                    int ge, run_result *res, tfx_cli_diag *d, int *oom) {
  memset(res, 0, sizeof *res);
  const char *tmpbase = getenv("TMPDIR");
  if (!tmpbase || !*tmpbase) tmpbase = "/tmp";
  char *tmpl = join(tmpbase, "tfxc-test-XXXXXX");
  if (!tmpl) {
    tfx_cli_error(d, NULL, 0, 0, "out of memory");
    *oom = 1;
    return -1;
  }
  if (!mkdtemp(tmpl)) {
    tfx_cli_error(d, NULL, 0, 0, "cannot create a temporary directory in %s: %s", tmpbase,
              strerror(errno));
    free(tmpl);
    return -1;
  }
  char *outp = join(tmpl, "out.tf.pbtxt"), *errp = join(tmpl, "stderr"),
       *stdp = join(tmpl, "stdout"), *stem = join(tmpl, "out"), *gep = join(tmpl, "out.ge.pbtxt");
  const char *model = exists_in(dir, "model.pbtxt", 0) ? "model.pbtxt" : "model.pb";
  const char *argv[2 * MAX_ARGS + 16];
  size_t n = 0;
  argv[n++] = "tfxc";
  if (explain) argv[n++] = "explain";
  argv[n++] = model;
  if (!explain) {
    argv[n++] = "--emit";
    argv[n++] = ge ? "tf-pbtxt,ge-pbtxt" : "tf-pbtxt";
    argv[n++] = "-o";
    argv[n++] = ge ? stem : outp;
  }
  if (exists_in(dir, "rules", 1)) {
    argv[n++] = "-r";
    argv[n++] = "rules";
  }
  for (size_t i = 0; i < args->n; i++) argv[n++] = args->v[i];
  for (size_t i = 0; explain && i < explain->n; i++) argv[n++] = explain->v[i];
  argv[n] = NULL;
  int rc = -1;
  if (!outp || !errp || !stdp || !stem || !gep) {
    tfx_cli_error(d, NULL, 0, 0, "out of memory");
    *oom = 1;
    goto cleanup;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    tfx_cli_error(d, NULL, 0, 0, "cannot start %s: %s", exe, strerror(errno));
    goto cleanup;
  }
  if (pid == 0) {
    int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int fo = open(stdp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fe < 0 || fo < 0 || dup2(fe, 2) < 0 || dup2(fo, 1) < 0 || chdir(dir) != 0) _exit(126);
    close(fe);
    close(fo);
    alarm(CASE_TIMEOUT_S);
    execv(exe, (char *const *)argv);
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) {
      tfx_cli_error(d, NULL, 0, 0, "waiting for %s: %s", exe, strerror(errno));
      goto cleanup;
    }
  res->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
  size_t len;
  char *raw;
  if (read_opt(tmpl, "stderr", &raw, &len, d, oom) != 0) goto cleanup;
  res->err = replace_all(raw ? raw : "", raw ? len : 0, tmpl, "<tmp>", &res->err_len);
  free(raw);
  if (!res->err) {
    tfx_cli_error(d, NULL, 0, 0, "out of memory");
    *oom = 1;
    goto cleanup;
  }
  if (read_opt(tmpl, explain ? "stdout" : "out.tf.pbtxt", &res->out, &res->out_len, d, oom) != 0)
    goto cleanup;
  if (explain && !res->out && !(res->out = strdup(""))) { /* empty stdout */
    tfx_cli_error(d, NULL, 0, 0, "out of memory");
    *oom = 1;
    goto cleanup;
  }
  if (ge && !explain && read_opt(tmpl, "out.ge.pbtxt", &res->ge, &res->ge_len, d, oom) != 0)
    goto cleanup;
  rc = 0;
cleanup:
  if (outp) unlink(outp);
  if (errp) unlink(errp);
  if (stdp) unlink(stdp);
  if (gep) unlink(gep);
  rmdir(tmpl);
  free(gep);
  free(stem);
  free(outp);
  free(errp);
  free(stdp);
  free(tmpl);
  return rc;
}

typedef enum { R_PASS, R_FAIL, R_UPDATED } case_status;

/* Appends "    what: FILE: message" (the first error of l) to rep. */
static void rep_error(tbuf *rep, const char *what, const tfx_cli_diag *l) {
  const tfx_cli_diag_item *e = l->n ? &l->items[0] : NULL;
  tb_printf(rep, "    %s: %s%s%s\n", what, e && e->file ? e->file : "", e && e->file ? ": " : "",
                e ? e->msg : "?");
}

/* Runs one case; appends its report (after the status line) to rep. *oom set when an
 * allocation failed (its error is then reported into d too, first): the command stops. */
static case_status test_case(const char *exe, const char *dir, int update,
                             tfx_cli_session *cs, tbuf *rep, tfx_cli_diag *d, int *oom) {
  strvec args = {0}, xargs = {0};
  char *atext = NULL, *xtext = NULL;
  size_t alen, xlen;
  char where[PATH_BUF], xwhere[PATH_BUF];
  case_status status = R_FAIL;
  run_result r, x;
  memset(&r, 0, sizeof r);
  memset(&x, 0, sizeof x);
  tfx_cli_diag local;
  tfx_cli_diag_init(&local);
  if (read_opt(dir, "args", &atext, &alen, &local, oom) != 0 ||
      read_opt(dir, "explain", &xtext, &xlen, &local, oom) != 0) {
    rep_error(rep, "cannot read the case", &local);
    goto done;
  }
  if (atext &&
      (path_in(where, dir, "args") != 0 || split_args(atext, &args, where, &local, oom) != 0)) {
    rep_error(rep, "bad args file", &local);
    goto done;
  }
  if (xtext &&
      (path_in(xwhere, dir, "explain") != 0 ||
       split_args(xtext, &xargs, xwhere, &local, oom) != 0)) {
    rep_error(rep, "bad explain file", &local);
    goto done;
  }
  if (!xtext && exists_in(dir, "expected.explain", 0)) {
    tb_puts(rep, "    expected.explain without an explain file (the explain options, e.g. "
                "--scope NAME or --rule PASS)\n");
    goto done;
  }
  int ge = exists_in(dir, "expected.ge.pbtxt", 0);
  if (run_case(exe, dir, &args, NULL, ge, &r, &local, oom) != 0) {
    rep_error(rep, "cannot run the case", &local);
    goto done;
  }
  if (xtext && run_case(exe, dir, &args, &xargs, 0, &x, &local, oom) != 0) {
    rep_error(rep, "cannot run explain", &local);
    goto done;
  }
  tfxc_test_run tr;
  memset(&tr, 0, sizeof tr);
  tr.exit_code = r.exit_code;
  tr.err = r.err;
  tr.err_len = r.err_len;
  tr.tf = r.out;
  tr.tf_len = r.out_len;
  tr.ge = r.ge;
  tr.ge_len = r.ge_len;
  tr.explained = xtext != NULL;
  tr.explain_exit = x.exit_code;
  tr.explain_err = x.err;
  tr.explain_err_len = x.err_len;
  tr.explain = x.out;
  tr.explain_len = x.out_len;
  tfxc_test_result res = TFXC_TEST_FAIL;
  char *text = NULL;
  size_t len = 0;
  int crc = tfx_cli_session_rc(cs, tfxc_test_check(cs->s, dir, &tr, update, &res, &text, &len));
  if (crc == 0) {
    tb_add(rep, text, len);
    status = res == TFXC_TEST_PASS ? R_PASS : res == TFXC_TEST_UPDATED ? R_UPDATED : R_FAIL;
  } else if (crc == TFXC_NOMEM) {
    *oom = 1; /* reported into d by the session */
  }
  tfxc_free(text);
done:
  if (*oom && local.n) { /* the allocation's own error, as the command's */
    const tfx_cli_diag_item *e = &local.items[0];
    tfx_cli_error(d, e->file, e->line, e->col, "%s", e->msg ? e->msg : "out of memory");
  }
  tfx_cli_diag_free(&local);
  run_result_free(&r);
  run_result_free(&x);
  sv_free(&args);
  sv_free(&xargs);
  free(atext);
  free(xtext);
  return status;
}

int tfx_cli_test(int argc, char **argv, int first, tfx_cli_diag *d) {
  static const char cmd[] = "tfxc test";
  tfx_cli_args a;
  tfx_cli_args_init(&a, argc, argv, first, cmd, test_opts, sizeof test_opts / sizeof test_opts[0]);
  const char *v;
  int id, rc = 0, verbose = 0, help = 0, update = 0;
  strvec paths = {0}, cases = {0};
  tfx_cli_limits lim; /* --limit: output-size bounds the files --update writes */
  memset(&lim, 0, sizeof lim);
  while ((id = tfx_cli_next(&a, &v, d)) != TFX_CLI_END) {
    switch (id) {
    case TFX_CLI_ERROR: rc = TFX_EXIT_USAGE; goto done;
    case TFX_CLI_POSITIONAL:
      if (sv_push(&paths, strdup(v)) != 0) {
        tfx_cli_error(d, NULL, 0, 0, "out of memory");
        rc = TFXC_NOMEM;
        goto done;
      }
      break;
    case O_UPDATE: update = 1; break;
    case O_LIMIT:
      switch (tfx_cli_parse_limit(v, cmd, &lim, d)) {
      case 0: break;
      case -1: rc = TFX_EXIT_USAGE; break;
      default: rc = TFXC_NOMEM; goto done;
      }
      break;
    case O_VERBOSE: verbose = verbose < 0 ? 1 : verbose + 1; break;
    case O_QUIET: verbose = -1; break;
    case O_HELP: help = 1; break;
    default: break;
    }
  }
  if (help && rc == 0) {
    tfx_cli_help_test(stdout);
    goto done;
  }
  if (rc != 0) goto done;
  if (paths.n == 0) {
    tfx_cli_usage_error(d, cmd, "no PATH given (a case directory or a directory of cases)");
    rc = TFX_EXIT_USAGE;
    goto done;
  }
  for (size_t i = 0; i < paths.n; i++) {
    struct stat st;
    int missing = stat(paths.v[i], &st) != 0;
    if (missing || !S_ISDIR(st.st_mode)) {
      tfx_cli_error(d, paths.v[i], 0, 0, "%s", missing ? strerror(errno)
                                                   : "not a directory (a test case is a directory)");
      rc = TFX_EXIT_INPUT;
      continue;
    }
    size_t before = cases.n;
    int cr = collect(paths.v[i], 0, &cases, d);
    if (cr == -2) {
      rc = TFXC_NOMEM;
      break;
    }
    if (cr != 0) rc = TFX_EXIT_INPUT;
    else if (cases.n == before) {
      tfx_cli_error(d, paths.v[i], 0, 0, "no test case here (a case is a directory with model.pbtxt "
                "or model.pb)");
      rc = TFX_EXIT_INPUT;
    }
  }
  if (rc != 0) goto done;
  char exe[4096];
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (k <= 0) {
    tfx_cli_error(d, NULL, 0, 0, "cannot find the tfxc binary (/proc/self/exe): %s", strerror(errno));
    rc = TFX_EXIT_FAIL;
    goto done;
  }
  exe[k] = 0;
  tfx_cli_session cs;
  if ((rc = tfx_cli_session_open(&cs, d)) != 0) goto done;
  if ((rc = tfx_cli_session_limits(&cs, &lim)) != 0) {
    tfx_cli_session_close(&cs);
    goto done;
  }
  size_t passed = 0, failed = 0;
  int oom_stop = 0;
  for (size_t i = 0; i < cases.n; i++) {
    tbuf rep;
    memset(&rep, 0, sizeof rep);
    int oom = 0;
    case_status s = test_case(exe, cases.v[i], update, &cs, &rep, d, &oom);
    printf("%s %s\n", s == R_PASS ? "PASS" : s == R_UPDATED ? "UPDATED" : "FAIL", cases.v[i]);
    if (s == R_FAIL || verbose > 0 || (rep.len && strstr(tb_cstr(&rep), "note:")))
      fputs(tb_cstr(&rep), stdout);
    tb_free(&rep);
    fflush(stdout);
    if (s == R_FAIL) failed++;
    else passed++;
    if ((oom_stop = oom) != 0) break; /* the cases after it are not run: out of memory is the
                                          command's status */
  }
  tfx_cli_session_close(&cs);
  printf("%zu passed, %zu failed\n", passed, failed);
  fflush(stdout);
  rc = oom_stop ? TFXC_NOMEM : failed ? TFX_EXIT_FAIL : TFX_EXIT_OK;
done:
  sv_free(&paths);
  sv_free(&cases);
  tfx_cli_limits_free(&lim);
  tfx_cli_print_diag(d, verbose);
  tfx_cli_diag_clear(d);
  return rc;
}
