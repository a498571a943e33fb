/* Signatures: a MetaGraphDef's / SavedModel's SignatureDefs choose the model's inputs and
 * outputs (--signature NAME), and `tfxc inspect` lists them.
 * Stage: passes/PRUNE (called by pass "prune"; the listing by the inspect command). Input: the
 * loaded model (ctx->model: the MetaGraphDef it came from), the parsed --input-shape list.
 * Output: the GraphDef trimmed to the signature (graph/prune.h semantics: the inputs become
 * Placeholders, what the outputs do not need goes), the signature's input nodes moved to the
 * front of the node list in signature order (the lowering numbers Data ops in node order),
 * and ctx->prune.outs = the signature's outputs in signature order (the NetOutput order).
 *
 * Rules (docs/CLI.md "Signatures"):
 *  - Signature order is the byte order of the keys of the signature's inputs / outputs maps
 *    (a protobuf map has no order of its own; TF's deterministic serialization and
 *    saved_model_cli list them sorted the same way).
 *  - The default (no --signature): "serving_default"; else the only signature whose name does
 *    not start with "__saved_model_" (TF2 stores its init op as "__saved_model_init_op");
 *    else none (a warning lists them when there are several) and the whole graph is converted.
 *  - --out-nodes without --signature: no signature is used (the user chose the outputs).
 *    --signature with --out-nodes is a usage error (the CLI checks it).
 *  - --input-shape with a signature: an entry naming a signature input's node sets that
 *    input's shape (the signature order stays); other entries are extra inputs after them.
 *  - Each input's dtype is the signature's (a node whose own dtype differs is an error); its
 *    shape is the signature's tensor_shape (unknown dims -1; an unknown rank stays unknown).
 *  - An input must be output 0 of its node (only a whole node can become a Data op); sparse
 *    and composite tensors are not supported; every named node must exist. These, an unknown
 *    --signature name (the message lists the model's signatures) and --signature on a model
 *    without signatures are input errors, exit 3. */
#ifndef TFX_PASSES_SIGNATURE_H
#define TFX_PASSES_SIGNATURE_H

#include <stddef.h>

#include "graph/prune.h"
#include "io/io.h"
#include "passes/context.h"
#include "tensorflow/meta_graph.pb-c.h"

/* The MetaGraphDef the model's GraphDef came from (the file itself, or the SavedModel's meta
 * graph that was picked), or NULL for a GraphDef. */
const Tensorflow__MetaGraphDef *tfx_sig_meta_graph(const tfx_model *m);

/* Indices of mg's signatures sorted by name (malloc'ed, *n entries; NULL with *n = 0 when
 * there are none). Returns 0 or -1 (out of memory). */
int tfx_sig_sorted(const Tensorflow__MetaGraphDef *mg, size_t **idx, size_t *n);
/* Indices of a signature's inputs (outputs when outputs is set) sorted by key; as above. */
int tfx_sig_sorted_ports(const Tensorflow__SignatureDef *s, int outputs, size_t **idx, size_t *n);

/* The signature a run uses without --signature (rules above), or NULL. */
const Tensorflow__MetaGraphDef__SignatureDefEntry *tfx_sig_default(const Tensorflow__MetaGraphDef *mg);

/* Picks the signature for the run (rules above): *sig (NULL: none) and *name. Returns 0 or an
 * exit code (reported). */
int tfx_sig_choose(tfx_ctx *ctx, const Tensorflow__SignatureDef **sig, const char **name);

/* Trims ctx->model.graph to sig (rules above) and sets ctx->prune. shapes: the parsed
 * --input-shape entries (arena-owned). Returns 0 or an exit code (reported). Does not
 * re-index. */
int tfx_sig_apply(tfx_ctx *ctx, const Tensorflow__SignatureDef *sig, const char *name,
                  const tfx_prune_shape *shapes, uint32_t n_shapes);

#endif
