/* The table of built-in passes (see passes.h).
 * Stage: passes. One row per pass; the runner orders rows by (group, phase, row order). */
#include "passes/passes.h"

#include <stddef.h>

typedef struct builtin_pass {
  tfx_pass_group group;
  int phase;
  const char *name;
  tfx_pass_fn run;
  unsigned flags;
} builtin_pass;

static const builtin_pass builtin[] = {
  {TFX_GROUP_LOAD, 0, "load", tfx_pass_load, TFX_PASS_REQUIRED},
  {TFX_GROUP_LOAD, 10, "freeze", tfx_pass_freeze, 0}, /* variables -> checkpoint Consts */
  {TFX_GROUP_LOAD, 50, "rules", tfx_pass_rules, 0}, /* -r paths + stdlib -> ctx->pack */
  /* As in ATC, trimming works on the raw GraphDef before it is validated and indexed, so a
   * broken part that --input-shape / --out-nodes cut away does not stop the conversion. */
  {TFX_GROUP_PRUNE, 0, "prune", tfx_pass_prune, 0},
  {TFX_GROUP_PRUNE, 100, "index", tfx_pass_index, TFX_PASS_REQUIRED},
  {TFX_GROUP_PRUNE, 110, "scope-tree", tfx_pass_scope_tree, 0},
  {TFX_GROUP_SCOPE_FUSION, 0, "scope-fusion", tfx_pass_scope_fusion, 0},
  {TFX_GROUP_SCOPE_FUSION, 50, "dataflow", tfx_pass_dataflow, 0}, /* `rewrite` rules, TF-level types */
  /* op mapping and lowering run only when a GE output or the precheck is asked for */
  {TFX_GROUP_OP_MAPPING, 0, "op-defaults", tfx_pass_op_defaults, 0}, /* TF op-def defaults */
  {TFX_GROUP_OP_MAPPING, 10, "op-mapping", tfx_pass_opmap, 0},
  {TFX_GROUP_LOWERING, 0, "lowering", tfx_pass_lower, 0},
  {TFX_GROUP_EMIT, 0, "emit-tf", tfx_pass_emit_tf, 0},
  {TFX_GROUP_EMIT, 10, "emit-ge", tfx_pass_emit_ge, 0},
};

int tfx_pass_register_builtin(tfx_pipeline *p) {
  for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
    const builtin_pass *b = &builtin[i];
    if (tfx_pipeline_register(p, b->group, b->phase, b->name, b->run, NULL, b->flags) != 0)
      return -1;
  }
  return 0;
}
