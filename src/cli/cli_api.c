/* The commands' sessions (see cli_api.h). */
#include "cli/cli_api.h"

#include <stdio.h>
#include <string.h>

static void forward(void *user, const tfxc_diagnostic *dg) {
  tfx_cli_session *cs = user;
  tfx_severity sev = dg->severity == TFXC_SEV_ERROR     ? TFX_SEV_ERROR
                     : dg->severity == TFXC_SEV_WARNING ? TFX_SEV_WARNING
                                                        : TFX_SEV_NOTE;
  if (sev == TFX_SEV_ERROR) cs->errors++;
  size_t n = cs->d->n;
  tfx_diag_add(cs->d, sev, dg->file, dg->line, dg->column, "%s", dg->message);
  if (dg->rule && cs->d->n > n) /* not when the context is full: it would go to the last one */
    tfx_diag_set_source(cs->d, dg->rule, strlen(dg->rule), dg->span);
}

int tfx_cli_session_open(tfx_cli_session *cs, tfx_diag *d) {
  memset(cs, 0, sizeof *cs);
  cs->d = d;
  if (tfxc_open(&cs->s) != TFXC_OK) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    return TFX_EXIT_FAIL;
  }
  tfxc_set_diagnostic_handler(cs->s, forward, cs);
  return 0;
}

void tfx_cli_session_close(tfx_cli_session *cs) {
  tfxc_close(cs->s);
  cs->s = NULL;
}

int tfx_cli_session_rc(tfx_cli_session *cs, tfxc_status st) {
  int none = cs->errors == cs->mark; /* the call reported no error of its own */
  cs->mark = cs->errors;
  if (st != TFXC_OK && none) tfx_error(cs->d, NULL, 0, 0, "out of memory");
  return tfxc_status_exit_code(st);
}

int tfx_cli_session_set(tfx_cli_session *cs, const char *name, const char *value) {
  cs->mark = cs->errors;
  tfxc_status st = tfxc_set_option(cs->s, name, value);
  return st == TFXC_OK ? 0 : tfx_cli_session_rc(cs, st);
}

int tfx_cli_session_rules(tfx_cli_session *cs, const tfx_cli_rules *r, int verbose) {
  char num[32];
  int rc;
  for (size_t i = 0; i < r->n_paths; i++) {
    cs->mark = cs->errors;
    tfxc_status st = tfxc_add_rules_path(cs->s, r->paths[i]);
    if (st != TFXC_OK) return tfx_cli_session_rc(cs, st);
  }
  for (size_t i = 0; i < r->n_warns; i++) /* "-Wname": the option's value is "name" */
    if ((rc = tfx_cli_session_set(cs, "W", r->warns[i] + 2)) != 0) return rc;
  if (r->no_stdlib && (rc = tfx_cli_session_set(cs, "no-stdlib", "1")) != 0) return rc;
  if (r->max_rule_depth) {
    snprintf(num, sizeof num, "rule-depth=%u", r->max_rule_depth);
    if ((rc = tfx_cli_session_set(cs, "limit", num)) != 0) return rc;
  }
  snprintf(num, sizeof num, "%d", verbose < -1 ? -1 : verbose > 16 ? 16 : verbose);
  return tfx_cli_session_set(cs, "verbose", num);
}

int tfx_cli_session_limits(tfx_cli_session *cs, const tfx_limits *lim) {
  for (int i = 0; i < TFX_LIMIT__COUNT; i++) {
    if (!lim->v[i]) continue;
    char spec[96];
    snprintf(spec, sizeof spec, "%s=%llu", tfx_limit_table[i].name, (unsigned long long)lim->v[i]);
    int rc = tfx_cli_session_set(cs, "limit", spec);
    if (rc) return rc;
  }
  return 0;
}
