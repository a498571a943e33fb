/* The commands' link to the library (include/tfxc/tfxc.h): a session whose diagnostics land
 * in the command's diagnostics context, and the command-line settings handed to it.
 * Stage: cli. The library functions do the work (src/api/tools*.c); a command parses its
 * options, passes them here, prints the result and picks the exit code. */
#ifndef TFX_CLI_CLI_API_H
#define TFX_CLI_CLI_API_H

#include "cli/cli.h"
#include "tfxc/tfxc.h"

typedef struct tfx_cli_session {
  tfxc_session *s;
  tfx_cli_diag *d;  /* the command's: every diagnostic of s is added here, in order */
  size_t errors; /* errors forwarded so far */
  size_t mark;   /* errors at the end of the previous call */
} tfx_cli_session;

/* Opens a session forwarding into d. Returns 0, or TFXC_NOMEM ("out of memory" reported). */
int tfx_cli_session_open(tfx_cli_session *cs, tfx_cli_diag *d);
void tfx_cli_session_close(tfx_cli_session *cs);
/* The status of a call on cs->s, as the commands return it (0, or a tfxc_status whose values
 * 1..4 are the exit codes; tfx_cli_main maps TFXC_NOMEM to its exit code). A failure that
 * reported no error of its own (out of memory inside the session) gets "out of memory"
 * reported here. */
int tfx_cli_session_rc(tfx_cli_session *cs, tfxc_status st);
/* Hands option name=value to the session (the command has checked it already). Returns 0 or
 * an exit code (reported). */
int tfx_cli_session_set(tfx_cli_session *cs, const char *name, const char *value);
/* The rule options (-r paths in order, -W..., --no-stdlib, r->limits) and the
 * verbosity (-v count, -1 for -q). Returns 0 or an exit code (reported). */
int tfx_cli_session_rules(tfx_cli_session *cs, const tfx_cli_rules *r, int verbose);
/* Every --limit value of lim, in order, as "limit" options. Returns 0 or an exit code. */
int tfx_cli_session_limits(tfx_cli_session *cs, const tfx_cli_limits *lim);

#endif
