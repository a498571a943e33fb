/* Graph index over an unpacked GraphDef (and over each FunctionDef body of its library).
 * Stage: graph (after io, before scope). Input: Tensorflow__GraphDef (borrowed; must outlive
 * the module). Output: node table, name->id hash, parsed inputs (`x`, `x:3`, `^x`; in
 * function bodies `arg`, `node:out_arg:idx`), consumer lists, op types interned to ids shared
 * by every graph of the module, and a topological order that accepts TF1 loops (cycles
 * through NextIteration) and rejects any other cycle. Does not copy attribute payloads.
 * Validation errors (duplicate/empty names, inputs naming missing nodes, bad port syntax, a
 * data input after a control input) are reported with the node and graph names; all of a
 * graph's errors are reported, then the build fails with TFX_E_INPUT. */
#ifndef TFX_GRAPH_GRAPH_H
#define TFX_GRAPH_GRAPH_H

#include <stdint.h>

#include "tensorflow/graph.pb-c.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/status.h"

#define TFX_NO_ID UINT32_MAX

typedef enum {
  TFX_IN_NODE = 0, /* output `port` of node `src` */
  TFX_IN_ARG = 1   /* function bodies only: signature input argument number `src` */
} tfx_input_kind;

/* Function bodies (FunctionDef.node_def) use a different input syntax, resolved as:
 *   `arg`              -> TFX_IN_ARG, src = index of the signature input arg, port 0
 *   `^arg`             -> TFX_IN_ARG, port -1 (a body node of that name wins over an arg)
 *   `^node`            -> TFX_IN_NODE, port -1
 *   `node:out_arg:idx` -> TFX_IN_NODE, out_arg = "out_arg", port = idx. NOTE: idx indexes
 *                         within the named output arg of node's op, it is NOT the flat output
 *                         index; a later stage that knows the OpDef must flatten it.
 *   `node:out_arg`     -> TFX_IN_NODE, out_arg set, port 0 (the whole output arg; found in
 *                         graphdef2mlir/force_shared_name_for_resource_ops.pbtxt).
 * These are the only forms found in real files (../shared/corpus); a bare `node`, `x:3`
 * (digits after one ':') or `arg:3` in a body is reported as an error. */
typedef struct tfx_input {
  uint32_t src;         /* node id (TFX_IN_NODE) or argument index (TFX_IN_ARG) */
  int32_t port;         /* output index; -1 = control input (`^x`) */
  uint8_t kind;         /* tfx_input_kind */
  const char *out_arg;  /* function bodies, `node:out_arg:idx` form: the out_arg name; else NULL */
} tfx_input;

typedef struct tfx_use {  /* one consumer edge */
  uint32_t node;          /* consumer node id */
  uint32_t slot;          /* index into that node's inputs (in[]) */
} tfx_use;

/* Pointers first, then the four counts: 56 bytes with no padding (the order the fields were
 * declared in before left two 4-byte holes: 64 bytes, 8 MB more per index at 10^6 nodes). */
typedef struct tfx_node {
  const char *name;             /* borrowed from the NodeDef */
  const char *op;               /* borrowed from the NodeDef */
  Tensorflow__NodeDef *def;     /* borrowed */
  tfx_input *in;                /* all inputs, data first then control, NodeDef order */
  tfx_use *uses;                /* consumers of this node (data and control), in (consumer id, slot) order */
  uint32_t op_id;               /* interned op type (module->ops) */
  uint32_t n_in;
  uint32_t n_data_in;           /* in[0..n_data_in) are data inputs */
  uint32_t n_uses;
} tfx_node;

typedef struct tfx_graph {
  const char *name;              /* "" for the main graph, else the function's name */
  Tensorflow__FunctionDef *func; /* NULL for the main graph */
  tfx_node *nodes;
  uint32_t n_nodes;
  tfx_hmap by_name;              /* node name -> id (empty once names_dropped) */
  uint32_t *topo;                /* node ids, producers before consumers (NextIteration back edges ignored) */
  const char **args;             /* function signature input arg names (n_args); NULL for main */
  uint32_t n_args;
  int names_dropped;             /* tfx_graph_drop_names ran: by_name is empty */
} tfx_graph;

typedef struct tfx_module {
  tfx_arena arena;         /* owns nodes, inputs, uses, topo, args arrays */
  tfx_intern ops;          /* op type strings -> dense ids, first-seen order */
  tfx_graph main;
  tfx_graph *funcs;        /* one per library function, library order */
  uint32_t n_funcs;
  const char *fname;       /* model file name for diagnostics (borrowed) */
  int has_errors;          /* validation problems were found (lenient builds only get here) */
} tfx_module;

/* tfx_module_build_ex flags. */
#define TFX_MODULE_LENIENT 1u /* report validation problems as warnings and keep going: bad
                                 inputs are left unresolved (src == TFX_NO_ID), duplicate names
                                 resolve to the first node, and a graph with problems has no
                                 topological order (topo == NULL). For inspection tools. */

/* Builds the index for gd's node list and for every library function body.
 * fname is used in diagnostics. Returns 0, TFX_E_INPUT after reporting errors or TFX_E_NOMEM.
 * m needs no prior init; call tfx_module_free(m) afterwards whatever the result.
 * Node numbers in messages ("node #3") are 0-based positions in the NodeDef list. Errors in
 * a function body are prefixed "function 'f': ". Duplicate function names and empty
 * function names are errors. topo is NULL for a graph that had errors. */
TFX_MUST_CHECK tfx_status tfx_module_build(tfx_module *m, Tensorflow__GraphDef *gd,
                                           const char *fname, tfx_diag *d);
TFX_MUST_CHECK tfx_status tfx_module_build_ex(tfx_module *m, Tensorflow__GraphDef *gd,
                                              const char *fname, unsigned flags, tfx_diag *d);
/* The same with the nodes limit (util/limits.h): a graph (the main graph or a function body)
 * with more than max_nodes nodes is an error, lenient or not, reported before anything is
 * indexed (TFX_E_INPUT). max_nodes 0 = no limit (what the two functions above use). */
TFX_MUST_CHECK tfx_status tfx_module_build_lim(tfx_module *m, Tensorflow__GraphDef *gd,
                                               const char *fname, unsigned flags,
                                               size_t max_nodes, tfx_diag *d);
/* The same, calling on_named(user, &m->main) once, from the calling thread, as soon as the
 * main graph's node table is final in n_nodes and every node's name, op, op_id and def (after
 * its one sweep, or its first pass when it has something to report), while the rest of the
 * index (consumer lists, topological order, the function bodies) is still to be built: until
 * the build returns, another thread may read exactly those fields (passes/pass_load.c builds
 * the ScopeTree on one meanwhile), and nothing else of the module. Not called when the main
 * graph has errors and the build is not lenient (it fails). on_named NULL: tfx_module_build_lim. */
typedef void (*tfx_module_named_fn)(void *user, const tfx_graph *main);
TFX_MUST_CHECK tfx_status tfx_module_build_cb(tfx_module *m, Tensorflow__GraphDef *gd,
                                              const char *fname, unsigned flags,
                                              size_t max_nodes, tfx_module_named_fn on_named,
                                              void *user, tfx_diag *d);
void tfx_module_free(tfx_module *m);

/* Node id by name, or TFX_NO_ID. */
uint32_t tfx_graph_find(const tfx_graph *g, const char *name);
/* Fills the consumer list of every node of g (g->n_nodes nodes, inputs resolved) in
 * (consumer id, slot) order, allocated from a. use_start has n_nodes + 1 entries: entry i + 1
 * holds the number of uses of node i, entry 0 is 0; its contents are scratch afterwards. A node
 * nobody reads gets uses = NULL. Returns 0, or -1 when out of memory (nothing reported). */
int tfx_graph_link_uses(tfx_graph *g, tfx_arena *a, uint32_t *use_start);

/* Kahn's algorithm over g's consumer lists, the edges out of nodes whose op id is back_op1 or
 * back_op2 (the NextIteration op ids, or TFX_HASH_NONE) ignored: the nodes with no unordered
 * producer first in id order, then each node's consumers in list order as their last producer
 * is taken. ends is the use_start array tfx_graph_link_uses just filled g's lists with (each
 * list's end; its entries' top bits are used as marks and left set). Writes
 * topo[0 .. *n_ordered) (topo has g->n_nodes entries); indeg (g->n_nodes entries, zeroed by
 * the caller) ends with the in-degree each node has left (> 0 only when *n_ordered <
 * g->n_nodes: nodes on or behind a cycle). The full build and the incremental re-index
 * (passes/reindex.c) both order by it. Returns 0, or -2 when ends and the lists do not agree
 * (not the arrays of one tfx_graph_link_uses call, or 2^31 uses or more); then nothing is
 * ordered. */
int tfx_graph_kahn(const tfx_graph *g, uint32_t *ends, uint32_t back_op1, uint32_t back_op2,
                   uint32_t *topo, uint32_t *indeg, uint32_t *n_ordered);

/* Parses one NodeDef input string of the main-graph form: `x`, `x:3`, `^x`.
 * On success sets *name and *name_len to the node-name part and *port (-1 for control) and
 * returns 0; returns -1 on bad syntax (empty name, bad or overflowing port, `^x:1`). */
int tfx_parse_input(const char *s, const char **name, size_t *name_len, int32_t *port);

/* Parses one function-body input string: `x` (port 0, *out_arg NULL), `^x` (port -1,
 * *out_arg NULL), `node:out_arg:idx` (*out_arg and *out_arg_len set, port = idx) or
 * `node:out_arg` (out_arg set, port 0; out_arg must start with a letter or '_'). Whether `x`
 * is an arg or a node is decided by the caller. Returns 0, or -1 on bad syntax (empty,
 * `x:3`, empty parts, bad or overflowing idx, more than two ':', `^x:...`). */
int tfx_parse_func_input(const char *s, const char **name, size_t *name_len, const char **out_arg,
                         size_t *out_arg_len, int32_t *port);

/* Frees g's name map (by_name: 2^21 slots x 24 B = 48 MiB for a graph of 10^6 nodes) and
 * leaves it empty (names_dropped set): tfx_graph_find then looks names up by a linear scan
 * (correct, slow: no pass after lowering's start should need it), and the incremental
 * re-index refuses g (tfx_module_update answers "full build", which makes a new map). For what reads nodes by id only from there on
 * (passes/context.c: lowering of a run that keeps no report). */
void tfx_graph_drop_names(tfx_graph *g);

#endif
