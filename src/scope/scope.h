/* ScopeTree: TensorFlow name scopes exactly as Ascend's ScopeGraph builds them
 * (docs/ASCEND.md §1, §2).
 * Stage: scope (after graph). Input: one tfx_graph plus the module's op-type interner.
 * Output: scopes with full names (trailing '/'; the root is named "root"), LastName (a trailing
 * `_N` trimmed only when N > 0), parent/children, direct nodes, and subtree op-type counts in
 * which every node, Identity and Const included, is counted; a type that never occurs in a
 * subtree is "absent" (count -1), distinct from zero. Scope ids: 0 is the root; `dfs` lists
 * every scope in depth-first pre-order with children visited in byte order of their names.
 *
 * Odd node names follow Ascend's SplitNodeName, which splits with a Split that keeps empty
 * pieces and then skips them: empty pieces never make a scope, so "/a/b", "a//b" and "a/b"
 * all land in scope "a/"; a trailing '/' is an empty last piece, so "a/b/" is the node "b"
 * in scope "a/" and "a/" is a node in the root. A name with no non-empty piece ("", "/",
 * "//") is placed in no scope and counted nowhere: node_scope[id] = TFX_NO_ID.
 * LastName (docs/ASCEND.md §1.3, tfx_scope_last_name): the second-to-last piece of the full name split on
 * '/' keeping empty pieces; a name without '/' (e.g. "root") is returned whole. Then a
 * trailing "_N" is cut when N is all digits and std::stoi(N) > 0: "lstm_1" -> "lstm",
 * "lstm_01" -> "lstm" (stoi gives 1), "lstm_0"/"lstm_00" stay, "a_" stays (stoi throws),
 * "_1" -> "" , "x_1_2" -> "x_1", "a_2147483648" stays (out of int range, stoi throws).
 * Counts are merged bottom-up (children into parents in reverse DFS order) through a dense
 * op-id scratch array, so the cost is the total size of the count arrays, not N * depth. */
#ifndef TFX_SCOPE_SCOPE_H
#define TFX_SCOPE_SCOPE_H

#include <stdint.h>

#include "graph/graph.h"
#include "util/arena.h"
#include "util/hash.h"
#include "util/status.h"

typedef struct tfx_opcount {
  uint32_t op_id;
  uint32_t count;
} tfx_opcount;

/* The counts after the pointers they count: 80 bytes with no padding (88 with each count
 * after its pointer). */
typedef struct tfx_scope {
  const char *name;        /* full name: "a/b/"; the root is "root" */
  const char *last_name;   /* LastName, docs/ASCEND.md §1.3 */
  uint32_t parent;         /* TFX_NO_ID for the root */
  uint32_t depth;          /* root 0 */
  uint32_t *children;      /* direct sub-scopes, sorted by name (byte order) */
  uint32_t *nodes;         /* direct nodes (graph node ids), graph order */
  uint32_t n_children;
  uint32_t n_nodes;
  tfx_opcount *counts;     /* whole-subtree counts, sorted by op_id, counts > 0 only */
  uint32_t n_counts;
  uint32_t n_all_nodes;    /* nodes in the whole subtree */
  uint32_t dfs_index;      /* position in tree->dfs */
  uint32_t dfs_end;        /* one past the last descendant in tree->dfs (descendant test) */
  uint32_t sub_type;       /* set by scope fusion; TFX_NO_ID = none */
} tfx_scope;

typedef struct tfx_scope_tree {
  tfx_arena arena;         /* owns everything below */
  const tfx_graph *graph;  /* borrowed */
  tfx_scope *scopes;       /* scopes[0] is the root */
  uint32_t n_scopes;
  uint64_t *name_slots;    /* full name -> scope id ("root" -> 0), read by tfx_scope_find:
                              open addressing, a slot is (hash << 32) | (id + 1), 0 = empty,
                              the hash scope.c's own of the full name; malloc'ed. The builder's
                              scope table, kept (8 bytes a slot where a tfx_hmap's was 24) */
  uint32_t name_cap;       /* slots; a power of two, load <= 1/2 (at least 1/8 when over 1024) */
  uint32_t *dfs;           /* depth-first pre-order of scope ids */
  uint32_t *node_scope;    /* graph node id -> innermost scope id (TFX_NO_ID: see odd names) */
  int odd_names;           /* some node name has an empty piece ("", "/a", "a//b", "a/"); when
                              0, a node's name starts with the full name of a scope (not the
                              root) exactly when the node is in that scope's subtree */
} tfx_scope_tree;

/* Builds the tree. Returns TFX_OK, TFX_E_INPUT (a limit) or TFX_E_NOMEM (reported). */
TFX_MUST_CHECK tfx_status tfx_scope_tree_build(tfx_scope_tree *t, const tfx_graph *g, tfx_diag *d);
/* The same with the scope-depth limit (util/limits.h): a node name that would put a scope
 * deeper than max_depth (the root is 0, "a/" is 1) is an error naming the node. 0 = no limit
 * (what tfx_scope_tree_build uses). Every scope costs its full name, so deep names cost
 * O(depth^2) bytes: the limit bounds that. */
TFX_MUST_CHECK tfx_status tfx_scope_tree_build_lim(tfx_scope_tree *t, const tfx_graph *g,
                                                   uint32_t max_depth, tfx_diag *d);
/* The same for the main graph g while its index is being built from the n NodeDefs defs (the
 * GraphDef's node list; passes/pass_load.c runs it on a thread beside the index): the names are
 * read from defs as the index reads them (a missing name is ""), g is not read until
 * wait(user) returned, then only its n_nodes and op ids; wait returns 0 when the index has
 * them final (n_nodes must then be n), else non-zero: the build is abandoned (TFX_E_FAIL, nothing
 * reported; tfx_scope_tree_free as after any failure). The
 * result is tfx_scope_tree_build_lim's over the finished index, byte for byte: the same
 * placement over the same names, the same finish. */
TFX_MUST_CHECK tfx_status tfx_scope_tree_build_defs(tfx_scope_tree *t, const tfx_graph *g,
                                                    Tensorflow__NodeDef *const *defs, uint32_t n,
                                                    int (*wait)(void *user), void *user,
                                                    uint32_t max_depth, tfx_diag *d);
void tfx_scope_tree_free(tfx_scope_tree *t);

/* Subtree count of op_id in scope s, or -1 when absent (docs/ASCEND.md §1.2). */
int64_t tfx_scope_op_count(const tfx_scope *s, uint32_t op_id);
/* Scope id by full name ("a/b/" or "root"), or TFX_NO_ID. */
uint32_t tfx_scope_find(const tfx_scope_tree *t, const char *full_name);
/* 1 if scope a is a strict descendant of scope b. */
int tfx_scope_is_descendant(const tfx_scope_tree *t, uint32_t a, uint32_t b);

/* LastName of a full scope name (docs/ASCEND.md §1.3), written into buf (size n). Returns buf. */
const char *tfx_scope_last_name(const char *full_name, char *buf, size_t n);

#endif
