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
  int rc = 0; /* TFX_EXIT_USAGE, or the parser's code for out of memory (which wins) */
  if (input_shape) {
    tfx_prune_shape *s = NULL;
    uint32_t n = 0;
    if (!*input_shape) {
      tfx_cli_usage_error(d, "tfxc", "--input-shape: empty value");
      rc = TFX_EXIT_USAGE;
    } else {
      rc = tfx_prune_parse_input_shape(input_shape, &a, &s, &n, d);
    }
  }
  if (out_nodes) {
    tfx_prune_out *o = NULL;
    uint32_t n = 0;
    if (!*out_nodes) {
      tfx_cli_usage_error(d, "tfxc", "--out-nodes: empty value");
      if (!rc) rc = TFX_EXIT_USAGE;
    } else {
      int r2 = tfx_prune_parse_out_nodes(out_nodes, &a, &o, &n, d);
      if (r2 && (!rc || rc == TFX_EXIT_USAGE)) rc = r2;
    }
  }
  tfx_arena_free(&a);
  return rc;
}
