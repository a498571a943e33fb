/* Rule compiler: a checked rule set (AST) -> one verified bytecode pack.
 * Stage: rules, back end (after load.h's tfx_rules_check; output runs on the VM). Emits code
 * only through the assembler (vm/asm.h), one source location per statement, so run-time
 * errors name the rule's file:line. Registration order is kept: pack rules appear in
 * ruleset order (passes then op maps, each in registration order; overridden rules are not
 * compiled). Deterministic: the same rule set gives byte-identical packs.
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
 *     MAP_* / NODE_* effects and returns true. `priority` lives in the rule table. */
#ifndef TFX_RULES_COMPILE_H
#define TFX_RULES_COMPILE_H

#include "rules/load.h"
#include "util/diag.h"
#include "vm/pack.h"

/* Compiles rs (which must have passed tfx_rules_check without errors) into out (initialized
 * here). Returns 0, or TFX_EXIT_RULES after reporting errors with rule locations. */
int tfx_rules_compile(const tfx_ruleset *rs, tfx_pack *out, tfx_diag *d);

#endif
