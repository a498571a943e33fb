/* Dataflow rewrites: the rule signature, a screen the engine applies to a candidate root before
 * it runs a rewrite's program (fusion/dataflow.c). Stage: fusion.
 * Input: the "#sig ..." string the rule compiler appends to a rewrite's `from` list
 * (src/rules/compile_flow.c documents its tokens): every match's op types, data input count,
 * edges and captures, and the leading `where` conjuncts that compare an attribute or an op type
 * with a literal. Output: per candidate root, "no" (the program would return false: every
 * order of the commutative operands fails a type, an input count, an edge, a repeated capture
 * or one of those conjuncts) or "maybe" (the program runs).
 * A signature that does not parse is ignored: the program always runs. The engine parses
 * signatures only of a pack whose signatures this build's compiler wrote (vm/pack.h,
 * sigs_trusted): nothing checks a signature against its program, and a pack edited and
 * re-hashed by hand may carry one that does not mirror it.
 * The screen is exact: it says "no" only where the program's own tests fail without an error
 * (they run in that order in the program: types and edges first, then the `where`s). */
#ifndef TFX_FUSION_DATAFLOW_SIG_H
#define TFX_FUSION_DATAFLOW_SIG_H

#include <stdint.h>

#include "graph/graph.h"
#include "util/arena.h"
#include "vm/pack.h"

typedef struct tfx_flow_sig tfx_flow_sig;

/* Parses signature string s (n bytes) of pack p into arena A. NULL when s is not a valid
 * signature (or out of memory): then the rule has none. */
tfx_flow_sig *tfx_flow_sig_parse(const tfx_pack *p, const char *s, uint32_t n, tfx_arena *A);

/* Looks the signature's op types up in ops (the module's interned op types); once per round,
 * before tfx_flow_sig_test (ids change when the module is re-indexed). */
void tfx_flow_sig_link(tfx_flow_sig *s, const tfx_intern *ops);

/* Scratch for tfx_flow_sig_test: sized for the largest signature (tfx_flow_sig_scratch). */
typedef struct tfx_flow_sig_ws {
  uint32_t *bind;    /* per match: bound node or TFX_NO_ID */
  uint32_t *cnode;   /* per capture: consumer node ... */
  uint32_t *cslot;   /* ... and its data input (cnode TFX_NO_ID: unbound) */
  uint32_t *stack;   /* bindings to undo (match i, or nm + capture k); 2 * n entries */
  uint32_t sp;
  uint32_t n;        /* capacity of bind, cnode, cslot */
} tfx_flow_sig_ws;

/* Grows ws to fit s. Returns 0 or -1 (out of memory). */
int tfx_flow_sig_scratch(tfx_flow_sig_ws *ws, const tfx_flow_sig *s);
void tfx_flow_sig_ws_free(tfx_flow_sig_ws *ws);

/* 0: the rewrite cannot match at root (skip the program); 1: it may (run it). */
int tfx_flow_sig_test(const tfx_flow_sig *s, const tfx_pack *p, const tfx_graph *g, uint32_t root,
                      tfx_flow_sig_ws *ws);

#endif
