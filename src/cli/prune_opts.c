/* Early syntax check of --input-shape / --out-nodes, before the model is read: the library's
 * shared option parser (src/api/options.c, tfx_api_check_prune_options). Stage: cli. */
#include "api/api_int.h"
#include "cli/cli.h"

int tfx_cli_check_prune_options(const char *input_shape, const char *out_nodes, tfx_diag *d) {
  return tfx_api_check_prune_options(input_shape, out_nodes, "tfxc", d);
}
