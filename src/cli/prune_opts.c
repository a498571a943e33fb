/* Early syntax check of --input-shape / --out-nodes, before the model is read: the library's
 * shared option parser (tfxc_check_option). Stage: cli. */
#include "cli/cli.h"

/* The status of one check: 0, TFXC_MISUSE (TFX_EXIT_USAGE), or the library's for its own
 * failure (TFXC_NOMEM); tfx_cli_main chooses the exit code. */
static int check(const char *name, const char *value, tfx_cli_diag *d) {
  return (int)tfxc_check_option("tfxc", name, value, tfx_cli_diag_forward_fn, d);
}

int tfx_cli_check_prune_options(const char *input_shape, const char *out_nodes, tfx_cli_diag *d) {
  int rc = input_shape ? check("input-shape", input_shape, d) : 0;
  if (out_nodes) { /* checked too after a usage error; out of memory wins */
    int r2 = check("out-nodes", out_nodes, d);
    if (r2 && (!rc || rc == TFX_EXIT_USAGE)) rc = r2;
  }
  return rc;
}
