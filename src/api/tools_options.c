/* Option values checked without a session, the limits' table and the "did you mean" of the
 * messages (tfxc.h "Tools"): what a command line needs to check its options before it does
 * anything, with the library's parsers and messages (options.c, util/limits.h).
 * Stage: api. Input: option names and values as written. Output: a status and diagnostics to
 * the caller's handler. */
#define _POSIX_C_SOURCE 200809L
#define TFXC_BUILDING_LIBRARY 1
#include "tfxc/tfxc.h"

#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "api/status.h"
#include "util/limits.h"

/* Hands d's items to fn (NULL: none), in order. */
static void deliver(const tfx_diag *d, tfxc_diagnostic_fn fn, void *user) {
  for (size_t i = 0; fn && i < d->n; i++) {
    const tfx_diag_item *it = &d->items[i];
    tfxc_diagnostic dg = tfx_api_diagnostic(it);
    fn(user, &dg);
  }
}

tfxc_status tfxc_check_option(const char *cmd, const char *name, const char *value,
                              tfxc_diagnostic_fn fn, void *user) {
  tfx_diag d;
  tfx_diag_init(&d);
  tfxc_status st = TFXC_OK;
  int r = 0;
  if (!name || !value) {
    tfx_error(&d, NULL, 0, 0, "tfxc_check_option: %s", !name ? "no option name" : "no value");
    st = TFXC_MISUSE;
  } else if (strcmp(name, "W") == 0) {
    char *opt = NULL;
    r = tfx_api_opt_warn(value, cmd, &opt, &d);
    free(opt);
    st = r == -2 ? TFXC_NOMEM : r ? TFXC_MISUSE : TFXC_OK;
  } else if (strcmp(name, "vm-budget") == 0) {
    uint64_t n;
    if (tfx_api_opt_vm_budget(value, cmd, &n, &d) != 0) st = TFXC_MISUSE;
  } else if (strcmp(name, "jobs") == 0) {
    unsigned n;
    if (tfx_api_opt_jobs(value, cmd, &n, &d) != 0) st = TFXC_MISUSE;
  } else if (strcmp(name, "max-file-size") == 0) {
    size_t n;
    if (tfx_api_opt_max_file_size(value, cmd, &n, &d) != 0) st = TFXC_MISUSE;
  } else if (strcmp(name, "input-format") == 0) {
    if (tfx_api_opt_input_format(value, cmd, &d) != 0) st = TFXC_MISUSE;
  } else if (strcmp(name, "limit") == 0) {
    r = tfx_api_parse_limit(value, cmd, NULL, NULL, NULL, &d);
    st = r == -2 ? TFXC_NOMEM : r ? TFXC_MISUSE : TFXC_OK;
  } else if (strcmp(name, "input-shape") == 0 || strcmp(name, "out-nodes") == 0) {
    int shape = name[0] == 'i';
    r = tfx_api_check_prune_options(shape ? value : NULL, shape ? NULL : value, cmd, &d);
    st = r == TFX_EXIT_USAGE ? TFXC_MISUSE : tfx_api_status_from_rc(r);
  } else if (strcmp(name, "disable-pass") == 0 || strcmp(name, "enable-scope-fusion-passes") == 0 ||
             strcmp(name, "pass") == 0) {
    if (tfx_api_opt_list(name, value, cmd, &d) != 0) st = TFXC_MISUSE;
  } else if (strcmp(name, "emit") == 0) {
    unsigned mask;
    r = tfx_api_parse_emit(value, &mask, &d);
    st = r == -2 ? TFXC_NOMEM : r ? TFXC_MISUSE : TFXC_OK;
  } else {
    tfx_error(&d, NULL, 0, 0, "tfxc_check_option: '%s' is not an option it checks (W, vm-budget, jobs, "
              "max-file-size, input-format, limit, input-shape, out-nodes, disable-pass, "
              "enable-scope-fusion-passes, pass, emit)", name);
    st = TFXC_MISUSE;
  }
  deliver(&d, fn, user);
  tfx_diag_free(&d);
  return st;
}

int tfxc_parse_number(const char *text, int size, unsigned long long *out) {
  if (!text || !out) return -1;
  if (size) {
    size_t v;
    if (tfx_api_parse_size(text, &v) != 0) return -1;
    *out = v;
    return 0;
  }
  unsigned v;
  if (tfx_api_parse_uint(text, &v) != 0) return -1;
  *out = v;
  return 0;
}

int tfxc_limit_info(unsigned i, tfxc_limit *out) {
  if (!out || i >= TFX_LIMIT__COUNT) return -1;
  const tfx_limit_info *l = &tfx_limit_table[i];
  out->name = l->name;
  out->what = l->what;
  out->def = l->def;
  out->max = l->max;
  out->is_size = l->is_size;
  return 0;
}

const char *tfxc_closest(const char *word, const char *const *candidates, size_t n) {
  if (!word || (!candidates && n)) return NULL;
  return tfx_pipeline_closest(word, candidates, n);
}
