/* Table-driven option parsing and small helpers shared by the subcommands.
 * Stage: cli. Input: argv and an option table per subcommand. Output: (option id, value)
 * pairs and positional arguments; errors go into the diagnostics context, never to stdout. */
#define _POSIX_C_SOURCE 200809L
#include "api/api_int.h"
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

void tfx_cli_usage_error(tfx_diag *d, const char *cmd, const char *fmt, ...) {
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
  tfx_error(d, cmd, 0, 0, "%s", msg);
  if (strcmp(cmd, "tfxc help") == 0)
    tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "run 'tfxc help' for the list of commands");
  else
    tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "run '%s --help' for usage", cmd);
}

/* "did you mean" over the long names of the table (with the leading dashes). */
static void unknown_option(tfx_cli_args *a, const char *arg, size_t len, tfx_diag *d) {
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
  const char *hint = word[1] == '-' ? tfx_pipeline_closest(word, cands, n) : NULL;
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
                      tfx_diag *d) {
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

int tfx_cli_next(tfx_cli_args *a, const char **value, tfx_diag *d) {
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

void tfx_cli_print_diag(const tfx_diag *d, int verbose) {
  if (verbose >= 0 || d->n == 0) {
    tfx_diag_print(d, stderr);
    return;
  }
  /* -q: a shallow view holding only the errors. */
  tfx_diag view = *d;
  view.items = malloc(d->n * sizeof *view.items);
  if (!view.items) {
    tfx_diag_print(d, stderr);
    return;
  }
  view.n = 0;
  for (size_t i = 0; i < d->n; i++)
    if (d->items[i].sev == TFX_SEV_ERROR) view.items[view.n++] = d->items[i];
  view.warnings = 0;
  view.errors = view.n < d->errors ? d->errors : view.n;
  tfx_diag_print(&view, stderr);
  free(view.items);
}

/* One parser for the command and the library (src/api/convert_util.c). */
int tfx_cli_parse_uint(const char *s, unsigned *out) { return tfx_api_parse_uint(s, out); }

int tfx_cli_parse_size(const char *s, size_t *out) { return tfx_api_parse_size(s, out); }

int tfx_cli_write_stdout(const char *data, size_t len, tfx_diag *d) {
  if ((len && fwrite(data, 1, len, stdout) != len) || fflush(stdout) != 0) {
    tfx_error(d, "<stdout>", 0, 0, "write error: %s", strerror(errno));
    return TFX_EXIT_INPUT;
  }
  return 0;
}

int tfx_cli_check_input_format(const char *s, tfx_diag *d) {
  return tfx_api_opt_input_format(s, "tfxc", d); /* src/api/options.c */
}

int tfx_cli_check_output_path(const char *path, const char *cmd, tfx_diag *d) {
  struct stat st;
  /* Devices and FIFOs are written through by tfx_write_file_atomic; only a directory is
   * refused here, early, as a usage error. */
  if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return 0;
  tfx_cli_usage_error(d, cmd, "output '%s' is a directory", path);
  return -1;
}

/* ---- --limit NAME=N ---- */

/* The aliases of --limit beside util/limits.h's table: file-size (= --max-file-size) and
 * vm-steps (= --vm-budget). */
#define LIMIT_VM_STEPS_DEFAULT 1000000u

int tfx_cli_parse_limit(const char *spec, const char *cmd, tfx_limits *lim, size_t *file_size,
                        uint64_t *vm_steps, tfx_diag *d) {
  return tfx_api_parse_limit(spec, cmd, lim, file_size, vm_steps, d); /* src/api/options.c */
}

const char *tfx_cli_closest(const char *word, const char *const *cands, size_t n) {
  return tfx_pipeline_closest(word, cands, n); /* the library's "did you mean" */
}

int tfx_cli_opt_list(const char *name, const char *value, const char *cmd, tfx_diag *d) {
  return tfx_api_opt_list(name, value, cmd, d); /* src/api/options.c */
}

int tfx_cli_opt_vm_budget(const char *value, const char *cmd, uint64_t *out, tfx_diag *d) {
  return tfx_api_opt_vm_budget(value, cmd, out, d);
}

int tfx_cli_opt_max_file_size(const char *value, const char *cmd, size_t *out, tfx_diag *d) {
  return tfx_api_opt_max_file_size(value, cmd, out, d);
}

void tfx_cli_help_limits(FILE *f) {
  fprintf(f, "      --limit NAME=N[,...]    raise or lower a limit (repeatable; docs/CLI.md, Limits):\n");
  fprintf(f, "                              file-size (default 4G, = --max-file-size)\n");
  for (int i = 0; i < TFX_LIMIT__COUNT; i++) {
    const tfx_limit_info *l = &tfx_limit_table[i];
    char def[32];
    if (l->is_size && l->def % ((uint64_t)1 << 30) == 0)
      snprintf(def, sizeof def, "%lluG", (unsigned long long)(l->def >> 30));
    else if (l->is_size && l->def == (uint64_t)INT32_MAX)
      snprintf(def, sizeof def, "2G-1");
    else
      snprintf(def, sizeof def, "%llu", (unsigned long long)l->def);
    fprintf(f, "                              %s (default %s): %s\n", l->name, def, l->what);
    if (i == TFX_LIMIT_RULE_DEPTH)
      fprintf(f, "                              vm-steps (default %u, = --vm-budget)\n",
              LIMIT_VM_STEPS_DEFAULT);
  }
}

int tfx_cli_rules_limit(tfx_cli_rules *r, const char *spec, const char *cmd, tfx_diag *d) {
  tfx_limits lim;
  memset(&lim, 0, sizeof lim);
  lim.v[TFX_LIMIT_RULE_DEPTH] = r->max_rule_depth;
  if (tfx_cli_parse_limit(spec, cmd, &lim, NULL, NULL, d) != 0) return -1;
  r->max_rule_depth = (unsigned)lim.v[TFX_LIMIT_RULE_DEPTH];
  return 0;
}
