/* Early syntax check of --input-shape / --out-nodes, before the model is read: the library's
 * shared option parser (tfxc_check_option). Stage: cli. */
#include "cli/cli.h"

/* The exit code of one check: 0, TFX_EXIT_USAGE, or the library's for its own failure. */
static int check(const char *name, const char *value, tfx_cli_diag *d) {
  tfxc_status st = tfxc_check_option("tfxc", name, value, tfx_cli_diag_forward_fn, d);
  return st == TFXC_OK ? 0 : st == TFXC_MISUSE ? TFX_EXIT_USAGE : tfxc_status_exit_code(st);
}

int tfx_cli_check_prune_options(const char *input_shape, const char *out_nodes, tfx_cli_diag *d) {
  int rc = input_shape ? check("input-shape", input_shape, d) : 0;
  if (out_nodes) { /* checked too after a usage error; out of memory wins */
    int r2 = check("out-nodes", out_nodes, d);
    if (r2 && (!rc || rc == TFX_EXIT_USAGE)) rc = r2;
  }
  return rc;
}
