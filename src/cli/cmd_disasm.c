/* `tfxc disasm PATH...`: a pack, or rule sources compiled on the fly, in readable form.
 * Stage: cli. Input: one .tfxb pack (loaded with the verifier), or rule files/directories
 * compiled alone (no stdlib, as with --no-stdlib). Output on stdout: the rule table and pass
 * structure, constants, features and every program's instructions with their rule source
 * `file:line` (vm/disasm.c). Deterministic. The work is the library's: tfxc_disasm. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_api.h"
#include "tfxc/tfxc.h"

enum { O_WARN, O_VERBOSE, O_QUIET, O_HELP, O_LIMIT };

static const tfx_cli_opt disasm_opts[] = {
  {O_WARN, NULL, 'W', "WARNING"},
  {O_VERBOSE, "verbose", 'v', NULL},
  {O_QUIET, "quiet", 'q', NULL},
  {O_HELP, "help", 'h', NULL},
  {O_LIMIT, "limit", 0, "NAME=N"},
};

int tfx_cli_disasm(int argc, char **argv, int first, tfx_cli_diag *d) {
  static const char cmd[] = "tfxc disasm";
  tfx_cli_rules r;
  memset(&r, 0, sizeof r);
  r.no_stdlib = 1;
  tfx_cli_args a;
  tfx_cli_args_init(&a, argc, argv, first, cmd, disasm_opts,
                    sizeof disasm_opts / sizeof disasm_opts[0]);
  const char *v;
  int id, rc = 0, verbose = 0, help = 0;
  while ((id = tfx_cli_next(&a, &v, d)) != TFX_CLI_END) {
    switch (id) {
    case TFX_CLI_ERROR: rc = TFX_EXIT_USAGE; goto done;
    case TFX_CLI_POSITIONAL:
      if (tfx_cli_rules_add_path(&r, v, d) != 0) { rc = TFXC_NOMEM; goto done; }
      break;
    case O_WARN:
      switch (tfx_cli_rules_add_warn(&r, v, cmd, d)) {
      case 0: break;
      case -1: rc = TFX_EXIT_USAGE; break;
      default: rc = TFXC_NOMEM; goto done;
      }
      break;
    case O_LIMIT:
      if (tfx_cli_rules_limit(&r, v, cmd, d) != 0) rc = TFX_EXIT_USAGE;
      break;
    case O_VERBOSE: verbose = verbose < 0 ? 1 : verbose + 1; break;
    case O_QUIET: verbose = -1; break;
    case O_HELP: help = 1; break;
    default: break;
    }
  }
  if (help) {
    tfx_cli_help_disasm(stdout);
    rc = TFX_EXIT_OK;
    goto done;
  }
  if (rc != 0) goto done;
  if (r.n_paths == 0) {
    tfx_cli_usage_error(d, cmd, "no PATH given (a .tfxb pack, or rule files or directories)");
    rc = TFX_EXIT_USAGE;
    goto done;
  }
  tfx_cli_session cs;
  rc = tfx_cli_session_open(&cs, d);
  if (rc != 0) goto done;
  char *text = NULL;
  size_t len = 0;
  rc = tfx_cli_session_rules(&cs, &r, verbose);
  if (rc == 0) rc = tfx_cli_session_rc(&cs, tfxc_disasm(cs.s, &text, &len));
  if (rc == 0) rc = tfx_cli_write_stdout(text, len, d);
  tfxc_free(text);
  tfx_cli_session_close(&cs);
done:
  tfx_cli_rules_free(&r);
  tfx_cli_print_diag(d, verbose);
  tfx_cli_diag_clear(d);
  return rc;
}
