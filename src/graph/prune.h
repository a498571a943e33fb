/* Pruning: ATC's TrimGraph (--input-shape / --out-nodes) applied to a GraphDef before indexing.
 * Stage: prune (after io, before graph). Input: Tensorflow__GraphDef (its main node list; the
 * function library is not touched) and the parsed option lists. Output: the same GraphDef,
 * edited in place: gd->node is replaced by an array of the kept nodes in original order, and
 * input-shape nodes are rewritten as Placeholders. Every new array, string and message is
 * allocated in the caller's arena; nothing is freed, so gd must be arena-owned (unpacked with
 * tfx_arena_pb) or at least never be freed with protobuf_c_message_free_unpacked.
 *
 * Semantics, read from Ascend/parser tensorflow_parser.cc (TrimGraph, TrimGraphByInput,
 * TrimGraphByOutput, NodeNameFromInput; docs/ASCEND.md §7.2):
 *  - input-shape only (TrimGraphByInput): starting from the input-shape nodes, every node
 *    reachable backwards over ANY input (data and control; the name is the input string with
 *    a leading '^' and everything from the first ':' removed) is deleted; the input-shape
 *    nodes themselves are kept. Deletion is by reachability alone: a node upstream of an
 *    input node is deleted even when other kept nodes also consume it. ATC then fails on the
 *    dangling edge; tfxc reports each such edge as an error naming both nodes instead.
 *  - out-nodes given (TrimGraphByOutput, with or without input-shape): kept = the out-nodes,
 *    the input-shape nodes (even when no output reaches them), and every node reachable
 *    backwards from the out-nodes over data and control inputs, not walking past an
 *    input-shape node.
 *  - An input-shape node becomes op "Placeholder": inputs cleared, attr `shape` set to the
 *    given dims (-1 = unknown dim, no dims = scalar), attr `dtype` kept. DIFFERENCE FROM ATC:
 *    ATC keeps every other attr of the node; tfxc keeps only `dtype` (taken from attr dtype,
 *    else T, out_type, DstT, the first of output_types; else DT_FLOAT with a note), because
 *    stray attrs (a Const's `value`, an op's `T`) would otherwise be auto-mapped onto Data.
 *  - Names that are not nodes of the graph are errors ("... name 'x' not found in the graph",
 *    ATC E10016), for user-given names and for inputs met during the walk alike. ATC skips
 *    the check for input-shape names when out-nodes are given; tfxc always checks.
 * The requested outputs (name, port) stay in tfx_prune_opts.outs, in option order (duplicates
 * kept, as ATC's out_nodes list does), for later stages to make them the net outputs. */
#ifndef TFX_GRAPH_PRUNE_H
#define TFX_GRAPH_PRUNE_H

#include <stdint.h>

#include "tensorflow/graph.pb-c.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/status.h"

typedef struct tfx_prune_shape {
  const char *name; /* node name (arena copy) */
  int64_t *dims;    /* n_dims values, each >= -1; -1 = unknown */
  uint32_t n_dims;  /* 0 = scalar ("a:") */
} tfx_prune_shape;

typedef struct tfx_prune_out {
  const char *name; /* node name (arena copy) */
  int32_t port;     /* output index; a bare "n" means 0 */
} tfx_prune_out;

typedef struct tfx_prune_opts {
  const tfx_prune_shape *shapes; /* --input-shape entries, option order */
  uint32_t n_shapes;
  const tfx_prune_out *outs;     /* --out-nodes entries, option order */
  uint32_t n_outs;
} tfx_prune_opts;

/* Parses --input-shape "a:1,224,224,3;b:-1,10;c:" (';' separates entries, one trailing ';' is
 * allowed; the name is everything before the last ':'; dims are decimal int64 >= -1). Errors
 * are reported with file "--input-shape", line 1 and the column in s, plus the source line and
 * a caret. Returns TFX_OK (results in *out / *n, arena-owned), TFX_E_USAGE or TFX_E_NOMEM. */
TFX_MUST_CHECK tfx_status tfx_prune_parse_input_shape(const char *s, tfx_arena *a,
                                                      tfx_prune_shape **out, uint32_t *n,
                                                      tfx_diag *d);

/* Parses --out-nodes "n:0;m:1;k" (port after the last ':', a bare name means port 0; one
 * trailing ';' allowed). Errors as above with file "--out-nodes". Returns TFX_OK, TFX_E_USAGE
 * or TFX_E_NOMEM. */
TFX_MUST_CHECK tfx_status tfx_prune_parse_out_nodes(const char *s, tfx_arena *a,
                                                    tfx_prune_out **out, uint32_t *n,
                                                    tfx_diag *d);

/* Trims gd as described at the top. A no-op when both lists are empty. fname is used in
 * diagnostics. Returns TFX_OK; TFX_E_USAGE when a name is not found or trimming would leave a
 * dangling input; TFX_E_INPUT for a graph too large to trim; TFX_E_NOMEM on out of memory. gd
 * is unchanged unless TFX_OK is returned. */
TFX_MUST_CHECK tfx_status tfx_prune_graphdef(Tensorflow__GraphDef *gd, const tfx_prune_opts *o,
                                             tfx_arena *a, const char *fname, tfx_diag *d);

#endif
