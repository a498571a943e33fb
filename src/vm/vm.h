/* The rule VM: runs the programs of a verified tfx_pack over one model.
 * Stage: vm (after graph and scope; used by the scope-fusion and op-mapping passes).
 * Borrows the pack, the graph, the op interner, the ScopeTree and the sub_type interner; owns
 * only its registers, link tables and the per-run heap (rewound at the start of every run,
 * so values in a tfx_vm_result stay valid until the next run of the same VM).
 *
 * Program kinds and their starting state:
 *   scope  (tfx_vm_run_scope)  r0 = the candidate scope; SC_* tests read it; the run ends
 *                              with MATCH (result.matched, result.sub_type) or at the first
 *                              failing test (matched = 0, the failure is recorded);
 *   select (tfx_vm_run_select) all registers none; effects go to the host (FR_*, NODE_*);
 *   map    (tfx_vm_run_map)    r0 = the TF node; effects go to the host (MAP_*, NODE_*).
 * RET's value (none after HALT) is result.value. Run-time errors (type errors, division by
 * zero, budgets, host failures, out of memory) are reported as one diagnostic at the
 * instruction's source location, naming the rule: `f:3:5: error: rule 'P': ...`. */
#ifndef TFX_VM_VM_H
#define TFX_VM_VM_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "scope/scope.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/status.h"
#include "util/strbuf.h"
#include "vm/host.h"
#include "vm/pack.h"
#include "vm/value.h"

#define TFX_VM_DEFAULT_STEPS 1000000u          /* instructions (+ builtin work) per run */
#define TFX_VM_DEFAULT_MEM ((size_t)64 << 20)  /* per-run heap bytes */
#define TFX_VM_MAX_FAILS 64                    /* first capacity of the failure list (it grows) */
#define TFX_VM_FLOAT_TOLERANCE 1e-6            /* SC_ATTR float equality: |a - b| < this */

/* Run flags. */
#define TFX_VM_EXPLAIN_ALL 1u /* scope programs: keep testing after a failed feature, so
                                 result.fails lists every failing feature (explain) */

typedef struct tfx_vm tfx_vm;

/* One failed scope feature: which feature, where, what it wanted and what it found. */
typedef struct tfx_vm_failure {
  uint32_t feature;     /* index into pack->features */
  uint32_t pc;          /* the test instruction */
  tfx_value expected;   /* e.g. int 3 for `count Mul == 3`, the string for `name == "x"` */
  tfx_value found;      /* e.g. the count (-1 when absent), the LastName, the attr value */
} tfx_vm_failure;

typedef struct tfx_vm_result {
  int matched;          /* scope programs: the pattern matched */
  uint32_t sub_type;    /* scope programs: linked sub_type id set by MATCH (TFX_NO_ID) */
  tfx_value value;      /* RET value; none otherwise */
  const tfx_vm_failure *fails; /* recorded failures: every one (valid until the next run) */
  uint32_t n_fails;     /* recorded */
  uint32_t n_failed;    /* total failed tests (exceeds n_fails only when memory ran out) */
  uint64_t steps;       /* steps used by this run */
} tfx_vm_result;

/* Trace hook: called once per executed instruction with one line of text (no newline):
 * `[file:line] pc  OPCODE operands`. */
typedef void (*tfx_vm_trace_fn)(void *ctx, const char *line);

/* A VM for pack (borrowed; must be verified, e.g. from tfx_pack_load or tfx_asm_finish).
 * Returns NULL on out of memory. */
tfx_vm *tfx_vm_new(const tfx_pack *pack);
/* Frees the VM (not the pack or anything linked). */
void tfx_vm_free(tfx_vm *vm);
/* Links the pack to a model, once per model: op-type constants -> op ids of `ops` (the
 * module's interner), sub_type names -> ids of `subtypes` (interned, so ids are stable across
 * passes; the tree's scope->sub_type uses these ids). graph must be the tree's graph (NULL:
 * take tree->graph). tree and subtypes may be NULL (map programs that need no scopes).
 * Relinking to another model is allowed. Returns TFX_OK, or TFX_E_NOMEM (reported). */
TFX_MUST_CHECK tfx_status tfx_vm_link(tfx_vm *vm, const tfx_graph *graph, const tfx_intern *ops,
                const tfx_scope_tree *tree, tfx_intern *subtypes, tfx_diag *d);
/* Installs the host callbacks (borrowed) and their context. */
void tfx_vm_set_host(tfx_vm *vm, const tfx_vm_host *host, void *ctx);
/* Per-run budgets: steps (0 = default) and heap bytes (0 = default). */
void tfx_vm_set_budget(tfx_vm *vm, uint64_t steps, size_t mem_bytes);
/* The current per-run budgets. */
void tfx_vm_get_budget(const tfx_vm *vm, uint64_t *steps, size_t *mem_bytes);
/* Per-instruction trace (fn NULL turns it off). */
void tfx_vm_set_trace(tfx_vm *vm, tfx_vm_trace_fn fn, void *ctx);
/* Run flags (TFX_VM_EXPLAIN_ALL). */
void tfx_vm_set_flags(tfx_vm *vm, unsigned flags);
/* 1 when runs are observable beyond their result (a trace hook or run flags are set): an
 * engine must then run every program it would run, not skip the runs it can prove fail. */
int tfx_vm_observed(const tfx_vm *vm);

/* The runs return TFX_OK, or after reporting: TFX_E_NOMEM when an allocation failed (the VM's
 * own, or a host callback's that returned TFX_E_NOMEM), TFX_E_FAIL for a rule run-time error
 * or a limit of the run (the step budget, the heap budget: a property of the rule and the
 * model, not out of memory). tfx_vm_status is the one mapping of the VM's internal codes. */
/* Runs scope program prog over scope. */
TFX_MUST_CHECK tfx_status tfx_vm_run_scope(tfx_vm *vm, uint32_t prog, uint32_t scope,
                                           tfx_vm_result *res, tfx_diag *d);
/* Runs selection program prog. */
TFX_MUST_CHECK tfx_status tfx_vm_run_select(tfx_vm *vm, uint32_t prog, tfx_vm_result *res,
                                            tfx_diag *d);
/* Runs map program prog over graph node `node`. */
TFX_MUST_CHECK tfx_status tfx_vm_run_map(tfx_vm *vm, uint32_t prog, uint32_t node,
                                         tfx_vm_result *res, tfx_diag *d);
/* The status of a run that ended with internal code vmr (TFX_VMR_*, src/vm/vm_int.h):
 * TFX_VMR_NOMEM -> TFX_E_NOMEM, any other error (type, run-time, step or heap budget) ->
 * TFX_E_FAIL, TFX_VMR_OK -> TFX_OK. */
tfx_status tfx_vm_status(int vmr);

/* Linked op id of op-type constant k (TFX_NO_ID if the model lacks the type). */
uint32_t tfx_vm_const_op(const tfx_vm *vm, uint32_t k);
/* Linked sub_type id of string constant k (TFX_NO_ID if not linked). */
uint32_t tfx_vm_const_subtype(const tfx_vm *vm, uint32_t k);

/* ---- printing (disasm.c) ---- */
/* Appends one instruction at pc: `OPCODE  a, b  ; constants`. */
void tfx_vm_format_ins(const tfx_pack *p, uint32_t pc, tfx_strbuf *b);
/* Appends a readable form of v (strings quoted if quote). */
void tfx_vm_format_value(tfx_strbuf *b, const tfx_value *v, int quote);
/* Appends the whole pack: rules and pass structure, constants, features, programs with every
 * instruction and its source line. Deterministic. */
void tfx_vm_disasm(const tfx_pack *p, tfx_strbuf *b);
/* Appends docs/opcodes.md (generated from the X-macro lists). */
void tfx_vm_opcodes_doc(tfx_strbuf *b);

#endif
