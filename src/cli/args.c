/* Table-driven option parsing and small helpers shared by the subcommands.
 * Stage: cli. Input: argv and an option table per subcommand. Output: (option id, value)
 * pairs and positional arguments; errors go into the diagnostics context, never to stdout. */
#define _POSIX_C_SOURCE 200809L
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tfxc/tfxc.h"

void tfx_cli_args_init(tfx_cli_args *a, int argc, char **argv, int first, const char *cmd,
                       const tfx_cli_opt *opts, size_t n_opts) {
  memset(a, 0, sizeof *a);
  a->argc = argc;
  a->argv = argv;
  a->i = first;
  a->cmd = cmd;
  a->opts = opts;
  a->n_opts = n_opts;
}

void tfx_cli_usage_error(tfx_cli_diag *d, const char *cmd, const char *fmt, ...) {
  char buf[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  /* printed as "tfxc inspect: error: ...": a message that starts with that prefix itself
   * (or with "tfxc: ") would show it twice */
  const char *msg = buf;
  size_t n = strlen(cmd);
  if (!strncmp(msg, cmd, n) && !strncmp(msg + n, ": ", 2)) msg += n + 2;
  else if (!strncmp(msg, "tfxc: ", 6)) msg += 6;
  tfx_cli_error(d, cmd, 0, 0, "%s", msg);
  if (strcmp(cmd, "tfxc help") == 0)
    tfx_cli_diag_add(d, TFXC_SEV_NOTE, NULL, 0, 0, "run 'tfxc help' for the list of commands");
  else
    tfx_cli_diag_add(d, TFXC_SEV_NOTE, NULL, 0, 0, "run '%s --help' for usage", cmd);
}

/* "did you mean" over the long names of the table (with the leading dashes). */
static void unknown_option(tfx_cli_args *a, const char *arg, size_t len, tfx_cli_diag *d) {
  char word[96];
  size_t wn = len < sizeof word - 1 ? len : sizeof word - 1;
  memcpy(word, arg, wn);
  word[wn] = 0;
  char names[64][64];
  const char *cands[64];
  size_t n = 0;
  for (size_t k = 0; k < a->n_opts && n < 64; k++) {
    if (!a->opts[k].name) continue;
    snprintf(names[n], sizeof names[n], "--%s", a->opts[k].name);
    cands[n] = names[n];
    n++;
  }
  const char *hint = word[1] == '-' ? tfxc_closest(word, cands, n) : NULL;
  if (hint)
    tfx_cli_usage_error(d, a->cmd, "unknown option '%s'; did you mean '%s'?", word,
                        hint);
  else
    tfx_cli_usage_error(d, a->cmd, "unknown option '%s'", word);
}

/* 1 if s[0..n) spells name with '_' for any '-' (ATC's spellings: --input_shape). */
static int atc_spelling(const char *name, const char *s, size_t n) {
  if (strlen(name) != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (s[i] != name[i] && !(s[i] == '_' && name[i] == '-')) return 0;
  return 1;
}

static const tfx_cli_opt *find_long(const tfx_cli_args *a, const char *s, size_t n) {
  for (size_t k = 0; k < a->n_opts; k++)
    if (a->opts[k].name && strlen(a->opts[k].name) == n && memcmp(a->opts[k].name, s, n) == 0)
      return &a->opts[k];
  if (memchr(s, '_', n)) /* ATC writes every long option with underscores */
    for (size_t k = 0; k < a->n_opts; k++)
      if (a->opts[k].name && atc_spelling(a->opts[k].name, s, n)) return &a->opts[k];
  return NULL;
}

static const tfx_cli_opt *find_short(const tfx_cli_args *a, char c) {
  for (size_t k = 0; k < a->n_opts; k++)
    if (a->opts[k].short_name && a->opts[k].short_name == c) return &a->opts[k];
  return NULL;
}

static void opt_label(const tfx_cli_opt *o, char *buf, size_t n) {
  if (o->name) snprintf(buf, n, "--%s", o->name);
  else snprintf(buf, n, "-%c", o->short_name);
}

/* Takes the value of option o: inline (after '=' or in the cluster) or the next argument. */
static int take_value(tfx_cli_args *a, const tfx_cli_opt *o, const char *inl, const char **value,
                      tfx_cli_diag *d) {
  char label[80];
  opt_label(o, label, sizeof label);
  if (inl) {
    *value = inl;
    return o->id;
  }
  if (a->i >= a->argc) {
    tfx_cli_usage_error(d, a->cmd, "option %s needs a value (%s)", label, o->metavar);
    return TFX_CLI_ERROR;
  }
  *value = a->argv[a->i++];
  return o->id;
}

int tfx_cli_next(tfx_cli_args *a, const char **value, tfx_cli_diag *d) {
  *value = NULL;
  if (a->cluster && *a->cluster) {
    char c = *a->cluster++;
    const tfx_cli_opt *o = find_short(a, c);
    if (!o) {
      char w[3] = {'-', c, 0};
      a->cluster = NULL;
      unknown_option(a, w, 2, d);
      return TFX_CLI_ERROR;
    }
    if (!o->metavar) return o->id;
    const char *inl = *a->cluster ? a->cluster : NULL;
    a->cluster = NULL;
    return take_value(a, o, inl, value, d);
  }
  a->cluster = NULL;
  if (a->i >= a->argc) return TFX_CLI_END;
  const char *arg = a->argv[a->i++];
  if (a->only_positional || arg[0] != '-' || arg[1] == 0) { /* "-" is stdin/stdout */
    *value = arg;
    return TFX_CLI_POSITIONAL;
  }
  if (arg[1] == '-') {
    if (arg[2] == 0) {
      a->only_positional = 1;
      return tfx_cli_next(a, value, d);
    }
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    const tfx_cli_opt *o = find_long(a, name, n);
    if (!o) {
      unknown_option(a, arg, n + 2, d);
      return TFX_CLI_ERROR;
    }
    if (!o->metavar) {
      if (eq) {
        tfx_cli_usage_error(d, a->cmd, "option --%s takes no value", o->name);
        return TFX_CLI_ERROR;
      }
      return o->id;
    }
    return take_value(a, o, eq ? eq + 1 : NULL, value, d);
  }
  /* "-out-nodes": a long name written with one dash would otherwise parse as "-o ut-nodes". */
  if (arg[2] && find_long(a, arg + 1, strlen(arg + 1))) {
    tfx_cli_usage_error(d, a->cmd, "unknown option '%s'; did you mean '-%s'?", arg, arg);
    return TFX_CLI_ERROR;
  }
  a->cluster = arg + 1;
  return tfx_cli_next(a, value, d);
}

/* ---- helpers ---- */

void tfx_cli_print_diag(const tfx_cli_diag *d, int verbose) {
  if (verbose >= 0 || d->n == 0) {
    tfx_cli_diag_print(d, stderr);
    return;
  }
  /* -q: a shallow view holding only the errors. */
  tfx_cli_diag view = *d;
  view.items = malloc(d->n * sizeof *view.items);
  if (!view.items) {
    tfx_cli_diag_print(d, stderr);
    return;
  }
  view.n = 0;
  for (size_t i = 0; i < d->n; i++)
    if (d->items[i].sev == TFXC_SEV_ERROR) view.items[view.n++] = d->items[i];
  view.warnings = 0;
  view.errors = view.n < d->errors ? d->errors : view.n;
  tfx_cli_diag_print(&view, stderr);
  free(view.items);
}

/* One parser for the command and the library (tfxc_parse_number). */
int tfx_cli_parse_uint(const char *s, unsigned *out) {
  unsigned long long v;
  if (tfxc_parse_number(s, 0, &v) != 0) return -1;
  *out = (unsigned)v;
  return 0;
}

int tfx_cli_parse_size(const char *s, size_t *out) {
  unsigned long long v;
  if (tfxc_parse_number(s, 1, &v) != 0 || v > SIZE_MAX) return -1;
  *out = (size_t)v;
  return 0;
}

int tfx_cli_write_stdout(const char *data, size_t len, tfx_cli_diag *d) {
  if ((len && fwrite(data, 1, len, stdout) != len) || fflush(stdout) != 0) {
    tfx_cli_error(d, "<stdout>", 0, 0, "write error: %s", strerror(errno));
    return TFX_EXIT_INPUT;
  }
  return 0;
}

/* An option value checked by the library (tfxc_check_option): its message, as a usage error
 * of cmd. Returns 0, -1 or -2 (out of memory); reported. */
static int check(const char *cmd, const char *name, const char *value, tfx_cli_diag *d) {
  tfxc_status st = tfxc_check_option(cmd, name, value, tfx_cli_diag_forward_fn, d);
  return st == TFXC_OK ? 0 : st == TFXC_NOMEM ? -2 : -1;
}

int tfx_cli_check_input_format(const char *s, tfx_cli_diag *d) {
  return check("tfxc", "input-format", s, d);
}

int tfx_cli_check_output_path(const char *path, const char *cmd, tfx_cli_diag *d) {
  struct stat st;
  /* Devices and FIFOs are written through by tfx_write_file_atomic; only a directory is
   * refused here, early, as a usage error. */
  if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
  tfx_cli_usage_error(d, cmd, "output '%s' is a directory", path);
  return -1;
}

/* ---- --limit NAME=N ---- */

/* The aliases of --limit beside the library's limits (tfxc_limit_info): file-size
 * (= --max-file-size) and vm-steps (= --vm-budget). */
#define LIMIT_VM_STEPS_DEFAULT 1000000u

void tfx_cli_limits_free(tfx_cli_limits *lim) {
  for (size_t i = 0; i < lim->n; i++) free(lim->specs[i]);
  free(lim->specs);
  memset(lim, 0, sizeof *lim);
}

int tfx_cli_limits_add(tfx_cli_limits *lim, const char *name, const char *value, tfx_cli_diag *d) {
  if (lim->n == lim->cap) {
    size_t nc = lim->cap ? lim->cap * 2 : 4;
    char **ns = realloc(lim->specs, nc * sizeof *ns);
    if (!ns) goto nomem;
    lim->specs = ns;
    lim->cap = nc;
  }
  size_t n = (name ? strlen(name) + 1 : 0) + strlen(value) + 1;
  char *spec = malloc(n);
  if (!spec) goto nomem;
  snprintf(spec, n, "%s%s%s", name ? name : "", name ? "=" : "", value);
  lim->specs[lim->n++] = spec;
  return 0;
nomem:
  tfx_cli_error(d, NULL, 0, 0, "out of memory");
  return -1;
}

int tfx_cli_parse_limit(const char *spec, const char *cmd, tfx_cli_limits *lim, tfx_cli_diag *d) {
  int r = check(cmd, "limit", spec, d);
  if (r) return r;
  return lim && tfx_cli_limits_add(lim, NULL, spec, d) != 0 ? -2 : 0;
}

const char *tfx_cli_closest(const char *word, const char *const *cands, size_t n) {
  return tfxc_closest(word, cands, n); /* the library's "did you mean" */
}

int tfx_cli_opt_list(const char *name, const char *value, const char *cmd, tfx_cli_diag *d) {
  return check(cmd, name, value, d);
}

int tfx_cli_opt_vm_budget(const char *value, const char *cmd, tfx_cli_diag *d) {
  return check(cmd, "vm-budget", value, d);
}

int tfx_cli_opt_jobs(const char *value, const char *cmd, tfx_cli_diag *d) {
  return check(cmd, "jobs", value, d);
}

int tfx_cli_opt_max_file_size(const char *value, const char *cmd, tfx_cli_diag *d) {
  return check(cmd, "max-file-size", value, d);
}

void tfx_cli_help_limits(FILE *f) {
  fprintf(f, "      --limit NAME=N[,...]    raise or lower a limit (repeatable; docs/CLI.md, Limits):\n");
  fprintf(f, "                              file-size (default 4G, = --max-file-size)\n");
  tfxc_limit l;
  for (unsigned i = 0; tfxc_limit_info(i, &l) == 0; i++) {
    char def[32];
    if (l.is_size && l.def % (1ull << 30) == 0)
      snprintf(def, sizeof def, "%lluG", l.def >> 30);
    else if (l.is_size && l.def == (unsigned long long)INT32_MAX)
      snprintf(def, sizeof def, "2G-1");
    else
      snprintf(def, sizeof def, "%llu", l.def);
    fprintf(f, "                              %s (default %s): %s\n", l.name, def, l.what);
    if (strcmp(l.name, "rule-depth") == 0)
      fprintf(f, "                              vm-steps (default %u, = --vm-budget)\n",
              LIMIT_VM_STEPS_DEFAULT);
  }
}

int tfx_cli_rules_limit(tfx_cli_rules *r, const char *spec, const char *cmd, tfx_cli_diag *d) {
  if (check(cmd, "limit", spec, d) != 0) return -1;
  /* only the rule-depth items are kept: these commands write no file and read no model */
  for (const char *s = spec;;) {
    size_t n = strcspn(s, ",");
    if (n > 11 && strncmp(s, "rule-depth=", 11) == 0) {
      char item[64];
      snprintf(item, sizeof item, "%.*s", (int)(n < 63 ? n : 63), s);
      if (tfx_cli_limits_add(&r->limits, NULL, item, d) != 0) return -1;
    }
    if (!s[n]) break;
    s += n + 1;
  }
  return 0;
}
