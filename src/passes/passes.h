/* The built-in passes and their registration.
 * Stage: passes. tfx_pass_register_builtin registers every pass tfxc ships, from one table in
 * builtin.c; a later stage adds its pass there (group, phase, name, function) and nothing in
 * the runner changes. Phases are spaced by 10 so passes can be slotted in between. */
#ifndef TFX_PASSES_PASSES_H
#define TFX_PASSES_PASSES_H

#include "passes/pipeline.h"

/* Registers the built-in passes. Returns 0 or -1 (out of memory / duplicate name). */
int tfx_pass_register_builtin(tfx_pipeline *p);

/* LOAD */
int tfx_pass_load(tfx_ctx *ctx, void *user);        /* "load": tfx_io_load_model */
int tfx_pass_index(tfx_ctx *ctx, void *user);       /* "index": tfx_module_build */
int tfx_pass_scope_tree(tfx_ctx *ctx, void *user);  /* "scope-tree": ScopeTree of the main graph */
/* PRUNE */
int tfx_pass_prune(tfx_ctx *ctx, void *user);       /* "prune": --input-shape / --out-nodes */
/* EMIT */
int tfx_pass_emit_tf(tfx_ctx *ctx, void *user);     /* "emit-tf": --emit tf-pbtxt */

#endif
