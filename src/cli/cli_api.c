/* The commands' sessions (see cli_api.h). */
#include "cli/cli_api.h"

#include <stdio.h>
#include <string.h>

static void forward(void *user, const tfxc_diagnostic *dg) {
  tfx_cli_session *cs = user;
  if (dg->severity == TFXC_SEV_ERROR) cs->errors++;
  tfx_cli_diag_forward(cs->d, dg);
}

int tfx_cli_session_open(tfx_cli_session *cs, tfx_cli_diag *d) {
  memset(cs, 0, sizeof *cs);
  cs->d = d;
  if (tfxc_open(&cs->s) != TFXC_OK) {
    tfx_cli_error(d, NULL, 0, 0, "out of memory");
    return TFXC_NOMEM;
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
  if (st != TFXC_OK && none) tfx_cli_error(cs->d, NULL, 0, 0, "out of memory");
  return (int)st; /* the exit code is chosen once, by tfx_cli_main */
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
  if ((rc = tfx_cli_session_limits(cs, &r->limits)) != 0) return rc;
  snprintf(num, sizeof num, "%d", verbose < -1 ? -1 : verbose > 16 ? 16 : verbose);
  return tfx_cli_session_set(cs, "verbose", num);
}

int tfx_cli_session_limits(tfx_cli_session *cs, const tfx_cli_limits *lim) {
  for (size_t i = 0; i < lim->n; i++) {
    int rc = tfx_cli_session_set(cs, "limit", lim->specs[i]);
    if (rc) return rc;
  }
  return 0;
}
