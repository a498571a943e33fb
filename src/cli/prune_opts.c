/* Early syntax check of --input-shape / --out-nodes, before the model is read.
 * Stage: cli. Uses the graph module's option parsers (graph/prune.h) on a scratch arena, so a
 * typo costs no model load; the names are checked against the graph by the prune pass. */
#include "cli/cli.h"

#include "graph/prune.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"

int tfx_cli_check_prune_options(const char *input_shape, const char *out_nodes, tfx_diag *d) {
  tfx_arena a;
  tfx_arena_init(&a);
  int rc = 0;
  if (input_shape) {
    tfx_prune_shape *s = NULL;
    uint32_t n = 0;
    if (!*input_shape) {
      tfx_cli_usage_error(d, "tfxc", "--input-shape: empty value");
      rc = -1;
    } else if (tfx_prune_parse_input_shape(input_shape, &a, &s, &n, d) != 0) {
      rc = -1;
    }
  }
  if (out_nodes) {
    tfx_prune_out *o = NULL;
    uint32_t n = 0;
    if (!*out_nodes) {
      tfx_cli_usage_error(d, "tfxc", "--out-nodes: empty value");
      rc = -1;
    } else if (tfx_prune_parse_out_nodes(out_nodes, &a, &o, &n, d) != 0) {
      rc = -1;
    }
  }
  tfx_arena_free(&a);
  return rc;
}
