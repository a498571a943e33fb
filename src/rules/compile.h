/* Rule compiler: a checked rule set (AST) -> one verified bytecode pack.
 * Stage: rules, back end (after load.h's tfx_rules_check; output runs on the VM). Emits code
 * only through the assembler (vm/asm.h), one source location per statement, so run-time
 * errors name the rule's file:line. Registration order is kept: pack rules appear in
 * ruleset order (passes then op maps, each in registration order; overridden passes are not
 * compiled; every op map is, since an op-map override is per TF type and the engine's
 * candidate order, priority then registration, already lets the first one win).
 * Deterministic: the same rule set gives byte-identical packs.
 *
 * Program shapes (the contract with the engines that run packs):
 *   - every pattern of a pass: a SCOPE program (features in Ascend's order: op-type tests,
 *     attribute tests, scope tests, then SC_NORETVAL, then MATCH sub_type);
 *   - every pass: one SELECT program = the pass's `require`s and `fuse` blocks in source order.
 *     It returns (RET) true when the pass's results stand, false when a `require` failed
 *     (the engine then discards every result of this run and clears the sub_types, as
 *     Ascend does when LastMatchScopesAndOPs fails). Results are emitted with FR_* / NODE_*;
 *   - every op map: one MAP program; r0 = the TF node. It first evaluates the `when` guards
 *     and returns false (RET) without any effect when one does not hold; otherwise it emits
 *     MAP_* / NODE_* effects and returns true. `priority` lives in the rule table; the rule
 *     is named "TF1,TF2->CANN" ("->graph" for graph maps; "#2", "#3"... keep names unique),
 *     its `from` is the list of TF types and `to` the CANN type or "graph".
 *
 * Details the engines can rely on:
 *   - conditions (`require`, `where`, `when`, `if`, `?:`, quantifier and `optional ... when`
 *     conditions, `and`/`or`/`not`) treat none as false; and/or are short-circuit;
 *   - a fusion result is FR_BEGIN ... FR_END with FR_SCOPES exactly once (default: the bound
 *     scopes in binding order) and FR_NAME at least once unless there is no member to take
 *     the default from (explicit `name`s where they stand, the last one wins; the default is
 *     the first member's name without its trailing '/'); the other effects follow the
 *     statements in source order;
 *   - `fuse a in S1, b in S2 ...`: candidates are scopes(S...) in depth-first order, taken once
 *     before the loop; for each driver `a` the first tuple of unused partners for which
 *     `where` holds is taken (nested loops = lexicographic order), and the partners are then
 *     marked used for the rest of this block;
 *   - in op maps a bare name is an attribute of r0 (ATTR; `n_inputs` and `op` are the
 *     builtins); `in N` is the port number N inside format_of/dtype_of and the producer node
 *     of data input N (r0.inputs[N]) elsewhere (e.g. const_value(in 1)). */
#ifndef TFX_RULES_COMPILE_H
#define TFX_RULES_COMPILE_H

#include "rules/load.h"
#include "util/diag.h"
#include "vm/pack.h"

/* Compiles rs (which must have passed tfx_rules_check without errors) into out (initialized
 * here; empty on failure). Returns 0; TFX_E_RULES after reporting errors with rule
 * locations (or without a new report when rs already has errors); TFX_E_NOMEM after
 * reporting out of memory (also when rs already has errors and ran out of memory,
 * tfx_ruleset_oom); TFX_E_FAIL after an internal error (the verifier rejects the pack). */
tfx_status tfx_rules_compile(const tfx_ruleset *rs, tfx_pack *out, tfx_diag *d) TFX_MUST_CHECK;

#endif
