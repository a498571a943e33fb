/* Scope-fusion engine: runs the scope passes of a rule pack over one graph's ScopeTree with
 * Ascend's ScopeBasePass semantics, records what happened, and applies the results to the
 * GraphDef (apply.c). Stage: fusion (after scope and vm; driven by the SCOPE_FUSION pass).
 * Input: a verified pack, a graph index + its ScopeTree (the main graph, or one library
 * function body with its own tree, as ATC does), the enable set. Output: a tfx_fusion_report
 * (owns every string it holds; outlives the tree and the graph index) and, after apply, the
 * rewritten GraphDef. Semantics: docs/ASCEND.md §2.4, §3, §4.
 *
 * Matching (per enabled pass, pack rule order):
 *   - every group: layers in order; a layer runs its patterns in order, each over the root's
 *     children depth-first (the root is never tested), a matching scope gets the pattern's
 *     sub_type and is not descended into BY THAT PATTERN (a later pattern searches the whole
 *     tree again and may overwrite the sub_type or match inside); a layer matches if any of
 *     its patterns matched any scope; the first layer without a match stops the group; the
 *     last layer's matches are the group's results; sub_types set by the group's earlier
 *     layers are rolled back unless the scope's name has a last-layer result's name as prefix
 *     (an ancestor or the scope itself);
 *   - nothing matched in any group -> SCOPE_NOT_CHANGED, the SELECT program is not run;
 *   - SELECT returns false -> every result of this run is discarded, the sub_types of every
 *     last-layer result and of its descendants are cleared, SCOPE_NOT_CHANGED;
 *   - a result marked invalid (FR_INVALID, type "ScopeInvalidType") or whose many-to-many
 *     check (CheckInnerNodesInfo) fails is dropped with a warning naming the pass and the
 *     rule site; as in scope_pass.cc the pass then stops adding results: the results it
 *     added before stay, later ones of the same run are dropped too (listed in the report),
 *     status SCOPE_NOT_CHANGED;
 *   - results are keyed by name per graph: a later result (any pass) with the same name
 *     replaces the earlier one (docs/ASCEND.md §4.1).
 * Sub_types live on the tree (scope->sub_type = id in the engine's interner) and persist
 * across passes and across tfx_fusion_run calls on the same tree.
 *
 * Children of a result (docs/ASCEND.md §4.2): its absorbed (extra) nodes, plus every node whose name has a
 * member scope's full name as a STRICT prefix (found through a name-sorted index, so the cost
 * is O(log N + k) per scope). Index maps (docs/ASCEND.md §4.3) are stored as Ascend vectors: entry p is
 * the fused port of original port p, -1 for kFusionDisableIndex (printed as 99999). */
#ifndef TFX_FUSION_ENGINE_H
#define TFX_FUSION_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "scope/scope.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "vm/pack.h"
#include "vm/value.h"
#include "vm/vm.h"

#define TFX_FUSION_DISABLE_INDEX 99999    /* Ascend's kFusionDisableIndex (reports only) */
#define TFX_FUSION_INVALID_TYPE "ScopeInvalidType"
#define TFX_FUSION_MULTI_TYPE "ScopeToMultiNodes"
#define TFX_FUSION_IN_BOUNDARY "InputFromFusionScope"   /* kInputFromFusionScope */
#define TFX_FUSION_OUT_BOUNDARY "OutputToFusionScope"   /* kOutputToFusionScope */

/* ---- enable set (enable.c) ---- */

/* One flag per pack rule (only TFX_RULE_PASS rules matter). */
typedef struct tfx_fusion_enables {
  const tfx_pack *pack; /* borrowed */
  uint8_t *on;          /* per rule index: 1 = the pass runs */
  uint32_t n;
} tfx_fusion_enables;

/* Default enable set: general passes (TFX_RULE_GENERAL) on, the others off.
 * Returns TFX_OK, or TFX_E_NOMEM (reported). */
TFX_MUST_CHECK tfx_status tfx_fusion_enables_init(tfx_fusion_enables *e, const tfx_pack *p,
                                                  tfx_diag *d);
void tfx_fusion_enables_free(tfx_fusion_enables *e);
/* --enable-scope-fusion-passes A,B: switches the named passes on. Empty items are skipped
 * (as ATC does). An unknown name is an error listing the known pass names (ATC only warns;
 * tfxc is stricter). All unknown names are reported. Returns TFX_OK or TFX_E_USAGE. */
TFX_MUST_CHECK tfx_status tfx_fusion_enable(tfx_fusion_enables *e, const char *list, tfx_diag *d);
/* --disable-pass A,B: switches the named scope passes off (general ones too). Names that are
 * not passes of the pack are appended, comma-separated in list order, to rest when rest is
 * non-NULL (they are pipeline pass names the caller checks itself); with rest NULL each one
 * is an error listing the known scope-pass names. Returns TFX_OK, TFX_E_USAGE or TFX_E_NOMEM
 * (reported). */
TFX_MUST_CHECK tfx_status tfx_fusion_disable(tfx_fusion_enables *e, const char *list,
                                             tfx_strbuf *rest, tfx_diag *d);
/* The pack's scope-pass names, ", "-separated, in registration order (for messages). */
void tfx_fusion_pass_names(const tfx_pack *p, tfx_strbuf *out);
/* Rule index of the scope pass named name, or TFX_PACK_NONE. */
uint32_t tfx_fusion_find_pass(const tfx_pack *p, const char *name, size_t len);

/* ---- report ---- */

typedef struct tfx_fusion_map {   /* one InsertInputs / InsertOutputs entry */
  const char *key;
  int64_t *to;                    /* to[p] = fused port of original port p; -1 = disabled */
  uint32_t n;
} tfx_fusion_map;

typedef struct tfx_fusion_attr {  /* FR_ATTR / NODE_ATTR; value deep-copied (scopes and nodes
                                     become their names as strings) */
  const char *name;
  tfx_value v;
} tfx_fusion_attr;

typedef struct tfx_fusion_port_format {
  int dir;                        /* 0 input, 1 output */
  int64_t port;
  const char *fmt;
} tfx_fusion_port_format;

typedef struct tfx_fusion_inner_in {
  const char *src;                /* full inner node name; NULL: boundary (`in port`) or const */
  int64_t port;
  const tfx_value *cval;          /* NODE_CONST value, else NULL */
} tfx_fusion_inner_in;

typedef struct tfx_fusion_inner {
  const char *name;               /* full: "<result name>/<inner name>" */
  const char *type;
  tfx_fusion_inner_in *in;  uint32_t n_in, cap_in;
  tfx_fusion_attr *attrs;   uint32_t n_attrs, cap_attrs;
  tfx_fusion_port_format *formats; uint32_t n_formats, cap_formats;
} tfx_fusion_inner;

typedef struct tfx_fusion_out {   /* `out index = node:port` */
  int64_t index;
  const char *node;               /* full inner node name */
  int64_t port;
} tfx_fusion_out;

typedef struct tfx_fusion_result {
  const char *name, *type, *description;
  const char *pass;               /* the pass that produced it */
  uint32_t rule;                  /* its pack rule */
  uint32_t *scope_ids; const char **scopes; uint32_t n_scopes; /* member scopes */
  uint32_t *extra_ids; const char **extra;  uint32_t n_extra;  /* absorbed extra nodes */
  tfx_fusion_map *inputs;  uint32_t n_inputs;   /* sorted by key (byte order) */
  tfx_fusion_map *outputs; uint32_t n_outputs;
  tfx_fusion_attr *attrs;  uint32_t n_attrs;    /* emission order; a repeated name: last wins */
  tfx_fusion_inner *inner; uint32_t n_inner;    /* many-to-many */
  tfx_fusion_out *outs;    uint32_t n_outs;
  int inner_check;                /* CheckInnerNodesInfo (1 ok; meaningful with inner nodes) */
  uint32_t *children;             /* node ids of the run's graph, graph order */
  const char **child_names;       /* their names (copies), same order */
  const char **child_types;       /* their op types (copies, one per type), same order (precheck report) */
  uint32_t n_children;
  const char *map_error;          /* index-map check (engine.c check_keys): the first failure,
                                     reported at map_error_pc if the result is final; or NULL */
  uint32_t map_error_pc;
} tfx_fusion_result;

typedef struct tfx_fusion_match {
  const char *scope;
  const char *sub_type;
  uint32_t pattern;               /* index of the pattern within its layer */
} tfx_fusion_match;

typedef struct tfx_fusion_layer_report {
  uint32_t group, layer;
  int matched;
  tfx_fusion_match *m; uint32_t n;
} tfx_fusion_layer_report;

typedef struct tfx_fusion_subchange {
  const char *scope;
  const char *sub_type;           /* new (set) or previous (cleared) */
} tfx_fusion_subchange;

typedef struct tfx_fusion_dropped {
  const char *name, *type, *reason;
} tfx_fusion_dropped;

typedef enum {
  TFX_FUSION_NOT_CHANGED = 0, /* SCOPE_NOT_CHANGED */
  TFX_FUSION_SUCCESS = 1,     /* SUCCESS */
  TFX_FUSION_FAILED = 2       /* a VM run-time error: the run stops (ATC aborts the parse) */
} tfx_fusion_status;

typedef struct tfx_fusion_pass_report {
  const char *name;
  uint32_t rule;
  const char *site;               /* "file:line" of the pass */
  tfx_fusion_status status;
  int select_ran;                 /* the SELECT program ran */
  int select_value;               /* its verdict (1 true) */
  tfx_fusion_layer_report *layers; uint32_t n_layers;  /* layers that ran, in order */
  tfx_fusion_subchange *set;       uint32_t n_set;      /* sorted by scope name */
  tfx_fusion_subchange *cleared;   uint32_t n_cleared;
  tfx_fusion_result **results;     uint32_t n_results;  /* added by this pass, emission order */
  tfx_fusion_dropped *dropped;     uint32_t n_dropped;
} tfx_fusion_pass_report;

/* An outside data edge apply dropped: the consumer (a node that stays) read an output of a
 * node absorbed into a result whose index maps do not export that output. */
typedef struct tfx_fusion_dangling {
  const char *consumer;           /* the node left without that data input */
  const char *input;              /* the input as it was written ("prod:1") */
  const char *producer;           /* the absorbed node it read */
  const char *result;             /* the fusion result that absorbed it */
  const char *pass;               /* the scope pass of that result */
  uint32_t rule;                  /* its pack rule (location: file:line) */
} tfx_fusion_dangling;

typedef struct tfx_fusion_graph_report {
  const char *graph;              /* "" main graph, else the function name */
  const tfx_graph *g;             /* the graph index the ids refer to (until re-indexed) */
  uint32_t node_count, scope_count;
  tfx_fusion_pass_report *passes;  uint32_t n_passes;   /* enabled passes, run order */
  tfx_fusion_subchange *final_sub_types; uint32_t n_final_sub_types; /* by scope name */
  tfx_fusion_result **final;       uint32_t n_final;    /* the name-keyed map, by name */
  /* filled by tfx_fusion_apply: */
  int applied;
  uint32_t n_applied, n_removed;
  tfx_fusion_dangling *dangling;  uint32_t n_dangling; /* dropped edges, graph order */
  /* what apply changed, for the incremental re-index (passes/reindex.c), when applied: per
   * node id of g, its id in the new node list (TFX_NO_ID: absorbed) and whether its inputs
   * were rewritten (1); nodes of the new list that no old id maps to are new */
  uint32_t *new_id;
  uint8_t *rewired;
} tfx_fusion_graph_report;

typedef struct tfx_fusion_report {
  tfx_arena arena;                /* owns everything reachable from graphs */
  tfx_fusion_graph_report *graphs; uint32_t n_graphs, cap_graphs;
} tfx_fusion_report;

void tfx_fusion_report_init(tfx_fusion_report *r);
void tfx_fusion_report_free(tfx_fusion_report *r);

/* Deterministic JSON of the whole report (sorted keys where Ascend has maps, names sorted as
 * the ground truth does, docs/ASCEND.md §9). Shape:
 * {
 *  "graphs": [ {
 *   "graph": "" | "<function name>", "node_count": N, "scope_count": S,
 *   "enabled_passes": ["P", ...],
 *   "passes": [ {
 *     "pass": "P", "site": "file:line", "status": "SUCCESS" | "SCOPE_NOT_CHANGED",
 *     "layers": [ {"group": g, "layer": l, "matched": true|false,
 *                  "scopes": [ {"scope": "a/b/", "sub_type": "t", "pattern": i} ]} ],
 *     "require": true | false | null,          (SELECT verdict; null when it did not run)
 *     "sub_types_set": [ {"scope", "sub_type"} ], "sub_types_cleared": [ {"scope",
 *     "previous_sub_type"} ],                  (by scope name)
 *     "result_count": n, "result_types": {"T": n},
 *     "results": [ RESULT ],                   (by name)
 *     "dropped": [ {"name", "type", "reason"} ] } ],
 *   "final_sub_types": [ {"scope", "sub_type"} ],
 *   "final_fusion_results": [ {"name", "type", "pass"} ],
 *   "applied": true|false, "fused_nodes": n, "removed_nodes": n } ] }
 * RESULT = {"name", "type", "description", "scopes": [...], "extra_nodes": [...],
 *   "inputs": {"key": [port...]}, "outputs": {...} (99999 = disabled),
 *   "attrs": {"name": value}, "child_count": n, "children": [names, sorted],
 *   "inner_nodes": [ {"name", "type", "inputs": [[peer, port]], "outputs": [[peer, port]],
 *                     "attrs": {...}, "formats": [[in|out, port, fmt]]} ],
 *   "inner_nodes_check": true|false (only with inner nodes) }
 * Inner-node peers are full inner names, or "InputFromFusionScope" / "OutputToFusionScope"
 * for the boundary, or "const" for a NODE_CONST input (then the port is the value).
 * Indented with one space per level. Returns 0 or -1 on out of memory (out->oom). */
int tfx_fusion_report_json(const tfx_fusion_report *r, tfx_strbuf *out);

/* ---- engine ---- */

typedef struct tfx_fusion_engine tfx_fusion_engine;

/* Observer called before pattern `pattern` (index into pack->patterns; `k`-th of its layer) of
 * layer `layer` (within the group) of group `group` of pass `rule` sweeps tree t, i.e. with
 * the sub_types that pattern sees. It may run scope programs on e->vm (tfxc explain) but must
 * not change t. */
typedef void (*tfx_fusion_pattern_fn)(void *user, tfx_fusion_engine *e, const tfx_scope_tree *t,
                                      uint32_t rule, uint32_t group, uint32_t layer, uint32_t k,
                                      uint32_t pattern);

struct tfx_fusion_engine {
  const tfx_pack *pack;  /* borrowed */
  tfx_vm *vm;
  tfx_intern subtypes;   /* sub_type names -> the ids stored in scope->sub_type */
  tfx_fusion_pattern_fn on_pattern; /* optional observer (NULL after init) */
  void *on_pattern_user;
};

/* Prepares an engine for pack. Returns TFX_OK or TFX_E_NOMEM (reported). */
TFX_MUST_CHECK tfx_status tfx_fusion_engine_init(tfx_fusion_engine *e, const tfx_pack *pack,
                                                 tfx_diag *d);
void tfx_fusion_engine_free(tfx_fusion_engine *e);
/* The engine's VM (budgets, trace: configure it before running). */
static inline tfx_vm *tfx_fusion_engine_vm(tfx_fusion_engine *e) { return e->vm; }

/* Runs every enabled pass of the pack, in rule order, over graph g (of module m) and its
 * tree t (t->graph == g), appending one graph entry to rep. Sub_types on t persist. Returns
 * TFX_OK, TFX_E_FAIL on a VM run-time error or limit, TFX_E_NOMEM on out of memory (reported;
 * as ATC aborts the parse when a pass fails, the remaining passes do not run). */
TFX_MUST_CHECK tfx_status tfx_fusion_run(tfx_fusion_engine *e, const tfx_fusion_enables *en,
                                         const tfx_module *m, const tfx_graph *g,
                                         tfx_scope_tree *t, tfx_fusion_report *rep, tfx_diag *d);

/* ---- apply (apply.c) ---- */

/* Everything apply changed, so it can be undone (e.g. when the rewritten graph fails to
 * index). Allocations live in the model arena and are simply abandoned on undo. */
typedef struct tfx_fusion_undo_item {
  void *where;   /* address of a pointer field (char **input / NodeDef **node / ...) */
  void *old_ptr;
  size_t *count; /* address of its n_* field, or NULL */
  size_t old_n;
} tfx_fusion_undo_item;

typedef struct tfx_fusion_undo {
  tfx_fusion_undo_item *items;
  size_t n, cap;
} tfx_fusion_undo;

void tfx_fusion_undo_init(tfx_fusion_undo *u);
/* Restores every recorded field, newest first, and empties the log. */
void tfx_fusion_undo_rollback(tfx_fusion_undo *u);
void tfx_fusion_undo_free(tfx_fusion_undo *u);

/* Applies the final results of every graph entry of rep to the GraphDef gd that module m
 * indexes (entries refer to m's graphs; the main graph edits gd->node, a function entry its
 * FunctionDef's node_def / ret / control_ret). New NodeDefs and arrays are allocated in
 * arena (the model's). The index m is stale afterwards: re-index (tfx_ctx_reindex). Records
 * undo information in u. Outside data inputs it has to drop are not reported here: they are
 * listed in each graph entry's `dangling` (the caller decides: error or warning). Semantics and decisions: see apply.c. Returns TFX_OK,
 * TFX_E_NOMEM (reported), or TFX_E_FAIL when a graph changed since it was indexed (reported);
 * after a failure call tfx_fusion_undo_rollback. */
TFX_MUST_CHECK tfx_status tfx_fusion_apply(tfx_fusion_report *rep, const tfx_module *m,
                                           Tensorflow__GraphDef *gd, tfx_arena *arena,
                                           tfx_fusion_undo *u, tfx_diag *d);

#endif
