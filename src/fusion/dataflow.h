/* Dataflow rewrite engine: runs the `rewrite` rules (TFX_RULE_FLOW) of a pack over one graph
 * (the main graph or a library function body) and rewrites its GraphDef / FunctionDef.
 * Stage: fusion (after scope fusion, before op mapping; driven by the "dataflow" pass, which
 * repeats rounds until nothing changes). Input: a verified pack, the enable set (per rule),
 * a module index. Output: the rewritten NodeDef lists and a tfx_flow_report.
 *
 * One round over a graph (deterministic):
 *   - candidates: the graph's nodes in topological order; for each, the enabled rewrites whose
 *     root types contain the node's op (an index by type: cost per node does not grow with
 *     the number of rules for other types), in pack (registration) order; the first rewrite
 *     whose program matches and whose rewrite is valid is taken, the next node follows. Before
 *     a program runs, the rule's signature (dataflow_sig.h) screens the node: a node where
 *     the pattern's types, edges or leading literal `where` tests cannot hold is skipped
 *     (the report's "screened"), so a rule costs a few comparisons where it cannot match;
 *     only a pack whose signatures this build's compiler wrote screens (vm/pack.h,
 *     sigs_trusted): a pack loaded from bytes runs every candidate's program;
 *   - a match is taken only if it does not overlap an earlier match of the round (no matched
 *     node already removed, no matched node read by a new node of the round, no value it reads
 *     produced by a node removed in the round) and is complete: every consumer (data, control,
 *     function return) of a removed node is inside the match or reads an output that an
 *     `out` rewires, and no function control return names it; a removed node nobody reads
 *     (a graph output) must pass its name to the new
 *     node that replaces the root's output 0; removed nodes' control inputs move to that node
 *     (a pure rewire with control inputs is rejected). Rejected matches change nothing; they
 *     are counted in the report;
 *   - producers that only removed nodes read (a GELU's 0.5, 0.044715 and sqrt(2/pi) Consts
 *     captured by the pattern) are removed too when no node, function return or control
 *     return reads them any more, they are not a requested output (keep), and their op is
 *     side-effect free (Const, Identity, Cast, Reshape, ...); the producers those read follow
 *     by the same rule. The report lists them per rewrite ("dropped"), in a fixed order;
 *   - the new node that replaces the root's output 0 takes the root's name (so fetches and
 *     --out-nodes keep working) and the root's device and `_output_shapes`; other new nodes
 *     are named ROOT/NAME (made unique). Every new node gets `_fusion_pass` (the rule),
 *     `_fusion_nodes` (the removed nodes) and `_fusion_description`.
 * The VM runs with the pass's budget; a program error fails the pass. */
#ifndef TFX_FUSION_DATAFLOW_H
#define TFX_FUSION_DATAFLOW_H

#include <stdint.h>

#include "fusion/dataflow_sig.h"
#include "graph/graph.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "vm/pack.h"
#include "vm/vm.h"

typedef struct tfx_flow_applied {
  const char *rule;
  const char *graph;            /* "" for the main graph, else the function name */
  const char *root;             /* the root node's name */
  const char **removed;         /* matched (removed) node names, match order */
  uint32_t n_removed;
  const char **created;         /* new node names */
  const char **created_types;
  uint32_t n_created;
  const char **dropped;         /* producers left without readers and removed (dead Consts) */
  uint32_t n_dropped;
  uint32_t round;               /* 1-based */
} tfx_flow_applied;

typedef struct tfx_flow_report {
  tfx_arena A;                  /* owns every string and list */
  char *pool;                   /* the strings' current block in A (packed), and room left */
  size_t pool_left;
  tfx_flow_applied *v;
  uint32_t n, cap;
  uint32_t rounds;              /* rounds run (the last one changed nothing, unless capped) */
  uint32_t rejected;            /* matches found but not applied (overlap, outside readers) */
  uint32_t candidates;          /* program runs */
  uint32_t screened;            /* candidate (rule, node) pairs the rule's signature ruled out */
  int capped;                   /* stopped at the round limit with changes pending */
} tfx_flow_report;

void tfx_flow_report_init(tfx_flow_report *r);
void tfx_flow_report_free(tfx_flow_report *r);
/* Appends the report as JSON (one object). Returns 0 or -1 (out of memory). */
int tfx_flow_report_json(const tfx_flow_report *r, tfx_strbuf *out);

typedef struct tfx_flow_engine {
  const tfx_pack *pack;
  const uint8_t *on;            /* per rule: enabled (borrowed; NULL = every rewrite) */
  tfx_vm *vm;
  tfx_hmap by_type;             /* index key ("T" or "T\x1fC") -> index into first/count */
  tfx_arena keys;               /* the index keys (the map borrows them) */
  tfx_hmap roots;               /* every enabled rewrite's root types (keys borrowed from the pack) */
  uint32_t *first, *count;      /* per type: a run of rules in `rules` */
  uint32_t *rules;              /* rule ids grouped by type, pack order inside a group */
  uint32_t n_types, n_rules;
  tfx_flow_sig **sig;           /* per rule: its signature (in `keys`), or NULL: always run */
  tfx_flow_sig_ws ws;           /* scratch for the signature tests */
  int no_screen;                /* run every candidate's program (tests compare both ways) */
  int drop_by_name;             /* dead producers: count readers from the input strings in every
                                 * graph (else by id in the main graph; tests compare both ways) */
  /* Function bodies: the name of the single output arg of TF op `type` (new nodes are read as
   * `name:ARG:port`), or NULL (then "output", as scope fusion writes). NULL hook: "output". */
  const char *(*out_arg)(const char *type);
  /* Main graph: node names the user asked for as outputs (--out-nodes, a signature); a
   * producer named here is never dropped as dead. Borrowed. */
  const char *const *keep;
  uint32_t n_keep;
  /* Optional (NULL: not recorded): set by the caller before each tfx_flow_round. A round that
   * rewrites its graph leaves here what it changed, for the incremental re-index
   * (tfx_ctx_reindex_changed): per node id of the graph's index, its id in the new node list
   * (TFX_NO_ID: removed by a rewrite or dropped as a dead producer) and whether its inputs
   * were rewritten (1); nodes of the new list no old id maps to are new. Both arrays are
   * malloc'd (the caller frees them); both stay NULL when the round changed nothing or could
   * not allocate them (then only a full re-index is right). In the main graph also the
   * resolved inputs of the new and rewired nodes (tfx_flow_change.fix_*). */
  struct tfx_flow_change *change;
} tfx_flow_engine;

typedef struct tfx_flow_change {
  uint32_t *new_id;
  uint8_t *rewired;
  /* Main graph, when recorded: the inputs of the nodes the round wrote (new NodeDefs) and of
   * those it rewired, as the index resolves their input strings (producers as ids of the new
   * list; kind TFX_IN_NODE), so the re-index does not parse and look up those strings: node
   * fix_node[k] (ascending new ids) has inputs fix_in[fix_first[k] .. fix_first[k + 1]).
   * Every string the round writes is a new node's name or a copy of an input string of the old
   * graph, whose producer the old index resolved; fix_node NULL: none (the re-index parses).
   * One malloc'd block each (the caller frees fix_node, fix_first, fix_in). */
  uint32_t *fix_node, *fix_first;
  tfx_input *fix_in;
  uint32_t n_fix;
} tfx_flow_change;

/* Builds the type index of the enabled rewrites and a VM. Returns TFX_OK, or TFX_E_NOMEM
 * (reported). *any is set to 1 when some rewrite is enabled. */
TFX_MUST_CHECK tfx_status tfx_flow_engine_init(tfx_flow_engine *e, const tfx_pack *p,
                                               const uint8_t *on, int *any, tfx_diag *d);
void tfx_flow_engine_free(tfx_flow_engine *e);

/* One round over graph g of module m: matches, then rewrites g's NodeDef list (gd for the main
 * graph, g->func for a function body; new NodeDefs in arena). *changed = number of rewrites
 * applied. The module index is stale afterwards when *changed > 0. Returns TFX_OK,
 * TFX_E_FAIL (a rule's run-time error or limit) or TFX_E_NOMEM (reported). */
TFX_MUST_CHECK tfx_status tfx_flow_round(tfx_flow_engine *e, const tfx_module *m,
                                         const tfx_graph *g, Tensorflow__GraphDef *gd,
                                         tfx_arena *arena, tfx_flow_report *rep, uint32_t round,
                                         uint32_t *changed, tfx_diag *d);

/* Explain: runs rule `rule` on node `node` of g with every failure recorded; res gets the
 * run's result (fails valid until the next run). Returns TFX_OK, TFX_E_FAIL or TFX_E_NOMEM
 * (reported). */
TFX_MUST_CHECK tfx_status tfx_flow_explain(tfx_flow_engine *e, const tfx_module *m,
                                           const tfx_graph *g, uint32_t rule, uint32_t node,
                                           tfx_vm_result *res, tfx_diag *d);

#endif
