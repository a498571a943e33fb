/* The options the commands share, parsed once: the command line (src/cli: convert, explain,
 * compile, list-rules, disasm, inspect, fmt, test) and tfxc_set_option check values here, so
 * an option gets the same message everywhere. Stage: api. Input: option values as written.
 * Output: the parsed value, or a usage error in the diagnostics (attributed to cmd, the
 * command line's "tfxc explain", with the note pointing at its --help; cmd NULL for a library
 * caller). Comma lists are split here once (tfx_api_list_split). */
#define _POSIX_C_SOURCE 200809L
#include "api/api_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/prune.h"
#include "io/io.h"
#include "rules/load.h"
#include "util/arena.h"

int tfx_api_opt_warn(const char *value, const char *cmd, char **opt, tfx_diag *d) {
  *opt = NULL;
  size_t n = strlen(value);
  char *o = tfx_malloc(n + 3);
  if (!o) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    return -2;
  }
  memcpy(o, "-W", 2);
  memcpy(o + 2, value, n + 1);
  if (tfx_rules_check_warn_option(o) != 0) {
    char names[512];
    size_t k = 0;
    names[0] = 0;
    for (int i = 0; i < TFX_RULES_W__COUNT && k < sizeof names; i++)
      k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", i ? ", " : "",
                            tfx_rules_warning_name((tfx_rules_warning)i));
    tfx_api_usage_error(d, cmd, "unknown warning option '%s' (warnings: %s; also -Wall, -Werror, "
                        "-Werror=NAME, -Wno-NAME)", o, names);
    free(o);
    return -1;
  }
  *opt = o;
  return 0;
}

int tfx_api_opt_vm_budget(const char *value, const char *cmd, uint64_t *out, tfx_diag *d) {
  unsigned n;
  if (tfx_api_parse_uint(value, &n) != 0 || n == 0) {
    tfx_api_usage_error(d, cmd, "--vm-budget: '%s' is not a positive number of steps (at most "
                        "1000000000)", value);
    return -1;
  }
  *out = n;
  return 0;
}

int tfx_api_opt_jobs(const char *value, const char *cmd, unsigned *out, tfx_diag *d) {
  unsigned n;
  if (tfx_api_parse_uint(value, &n) != 0 || n > TFX_IO_JOBS_MAX) {
    tfx_api_usage_error(d, cmd, "--jobs: '%s' is not a number of threads from 0 (automatic) to %u",
                        value, TFX_IO_JOBS_MAX);
    return -1;
  }
  *out = n;
  return 0;
}

int tfx_api_opt_max_file_size(const char *value, const char *cmd, size_t *out, tfx_diag *d) {
  size_t n;
  if (tfx_api_parse_size(value, &n) != 0 || n == 0) {
    tfx_api_usage_error(d, cmd, "--max-file-size: '%s' is not a size (e.g. 512M, 4G)", value);
    return -1;
  }
  *out = n;
  return 0;
}

int tfx_api_opt_input_format(const char *value, const char *cmd, tfx_diag *d) {
  static const char *const ok[] = {"NCHW", "NHWC", "ND", "NCDHW", "NDHWC"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (strcmp(value, ok[i]) == 0) return 0;
  tfx_api_usage_error(d, cmd, "--input-format: '%s' is not one of NCHW, NHWC, ND, NCDHW, NDHWC",
                      value);
  return -1;
}

int tfx_api_opt_list(const char *name, const char *value, const char *cmd, tfx_diag *d) {
  if (*value) return 0;
  tfx_api_usage_error(d, cmd, "--%s: empty list", name);
  return -1;
}

/* Syntax only, on a scratch arena (a typo costs no model load); the names are checked
 * against the graph by the prune pass. */
int tfx_api_check_prune_options(const char *input_shape, const char *out_nodes, const char *cmd,
                                tfx_diag *d) {
  tfx_arena a;
  tfx_arena_init(&a);
  int rc = 0; /* TFX_EXIT_USAGE, or the parser's code for out of memory (which wins) */
  if (input_shape) {
    tfx_prune_shape *s = NULL;
    uint32_t n = 0;
    if (!*input_shape) {
      tfx_api_usage_error(d, cmd, "--input-shape: empty value");
      rc = TFX_EXIT_USAGE;
    } else {
      rc = tfx_prune_parse_input_shape(input_shape, &a, &s, &n, d);
    }
  }
  if (out_nodes) {
    tfx_prune_out *o = NULL;
    uint32_t n = 0;
    if (!*out_nodes) {
      tfx_api_usage_error(d, cmd, "--out-nodes: empty value");
      if (!rc) rc = TFX_EXIT_USAGE;
    } else {
      int r2 = tfx_prune_parse_out_nodes(out_nodes, &a, &o, &n, d);
      if (r2 && (!rc || rc == TFX_EXIT_USAGE)) rc = r2;
    }
  }
  tfx_arena_free(&a);
  return rc;
}

int tfx_api_list_split(const char *list, tfx_api_list *out) {
  memset(out, 0, sizeof *out);
  size_t n = 1, len = strlen(list);
  for (const char *c = list; *c; c++) n += *c == ',';
  out->buf = tfx_malloc(len + 1);
  out->items = tfx_malloc(n * sizeof *out->items);
  if (!out->buf || !out->items) {
    tfx_api_list_free(out);
    return -1;
  }
  memcpy(out->buf, list, len + 1);
  char *s = out->buf;
  for (;;) {
    out->items[out->n++] = s;
    char *e = strchr(s, ',');
    if (!e) break;
    *e = 0;
    s = e + 1;
  }
  return 0;
}

void tfx_api_list_free(tfx_api_list *l) {
  free(l->buf);
  free(l->items);
  memset(l, 0, sizeof *l);
}

#define LIMIT_VM_STEPS_MAX 1000000000u

static int parse_limit_value(const char *s, size_t n, int is_size, uint64_t *out) {
  char buf[64];
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, s, n);
  buf[n] = 0;
  if (is_size) {
    size_t v;
    if (tfx_api_parse_size(buf, &v) != 0) return -1;
    *out = v;
    return 0;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (buf[i] < '0' || buf[i] > '9') return -1;
    if (v > (UINT64_MAX - 9) / 10) return -1;
    v = v * 10 + (uint64_t)(buf[i] - '0');
  }
  *out = v;
  return 0;
}

int tfx_api_parse_limit(const char *spec, const char *cmd, tfx_limits *lim, size_t *file_size,
                        uint64_t *vm_steps, tfx_diag *d) {
  if (!*spec) {
    tfx_api_usage_error(d, cmd, "--limit: empty value (expected NAME=N[,NAME=N...])");
    return -1;
  }
  tfx_api_list l;
  if (tfx_api_list_split(spec, &l) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    return -2;
  }
  int rc = 0;
  for (size_t li = 0; li < l.n && rc == 0; li++) {
    const char *s = l.items[li];
    size_t n = strlen(s);
    const char *eq = memchr(s, '=', n);
    size_t nl = eq ? (size_t)(eq - s) : n;
    char name[64];
    size_t wn = nl < sizeof name - 1 ? nl : sizeof name - 1;
    memcpy(name, s, wn);
    name[wn] = 0;
    int id = wn == nl ? tfx_limit_lookup(s, nl) : -1;
    int alias = 0; /* 1 file-size, 2 vm-steps */
    if (id < 0 && strcmp(name, "file-size") == 0) alias = 1;
    if (id < 0 && strcmp(name, "vm-steps") == 0) alias = 2;
    if (id < 0 && !alias) {
      const char *names[TFX_LIMIT__COUNT + 2];
      for (int i = 0; i < TFX_LIMIT__COUNT; i++) names[i] = tfx_limit_table[i].name;
      names[TFX_LIMIT__COUNT] = "file-size";
      names[TFX_LIMIT__COUNT + 1] = "vm-steps";
      const char *hint = tfx_pipeline_closest(name, names, TFX_LIMIT__COUNT + 2);
      tfx_api_usage_error(d, cmd, "--limit: unknown limit '%s'%s%s%s (limits: file-size, depth, "
                "string, list, nodes, scope-depth, rule-depth, vm-steps, output-size)",
                name, hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
      rc = -1;
      break;
    }
    int is_size = alias == 1 || (id >= 0 && tfx_limit_table[id].is_size);
    uint64_t max = alias == 1   ? (uint64_t)SIZE_MAX
                   : alias == 2 ? LIMIT_VM_STEPS_MAX
                                : tfx_limit_table[id].max;
    uint64_t v;
    if (!eq || parse_limit_value(eq + 1, n - nl - 1, is_size, &v) != 0 || v == 0 || v > max) {
      int vn = eq ? (int)(n - nl - 1) : 0;
      tfx_api_usage_error(d, cmd, "--limit %s: '%.*s' is not a %s from 1 to %llu%s", name,
                vn > 40 ? 40 : vn, eq ? eq + 1 : "", is_size ? "size" : "number",
                (unsigned long long)max, is_size ? " (K, M, G suffixes allowed)" : "");
      rc = -1;
      break;
    }
    if (alias == 1) {
      if (file_size) *file_size = (size_t)v;
    } else if (alias == 2) {
      if (vm_steps) *vm_steps = v;
    } else if (lim) {
      lim->v[id] = v;
    }
  }
  tfx_api_list_free(&l);
  return rc;
}
