/* Opcode, builtin, property and operand-kind tables, all expanded from the X-macro lists in
 * opcodes.h (no hand-kept parallel tables).
 * Stage: vm. Read by the assembler, verifier, interpreter, disassembler and docs generator. */
#include "vm/bytecode.h"

#define NK_(k) (TFX_K_##k != TFX_K__)
#define OP_(name, k1, k2, k3, k4, progs, flags, eff, syn)                                 \
  {#name,                                                                                 \
   (uint8_t)(NK_(k1) + NK_(k2) + NK_(k3) + NK_(k4)),                                      \
   {TFX_K_##k1, TFX_K_##k2, TFX_K_##k3, TFX_K_##k4},                                      \
   TFX_PK_##progs,                                                                        \
   TFX_OPF_##flags,                                                                       \
   eff,                                                                                   \
   syn},
const tfx_opinfo tfx_vm_ops[TFX_OP__COUNT] = {TFX_VM_OPCODES(OP_)};
#undef OP_

#define BI_(name, lo, hi, progs, syn, src, src_max, a1, a2, res) \
  {#name, lo, hi, TFX_PK_##progs, syn, TFX_BI_SRC_##src, src_max, {a1, a2}, res},
const tfx_builtin_info tfx_vm_builtins[TFX_BI__COUNT] = {TFX_VM_BUILTINS(BI_)};
#undef BI_
/* The rule checker and the VM agree: every program kind the rule source that may call a
 * builtin compiles to is one the verifier lets it appear in; a source call takes no more
 * arguments than CALL may pass. */
#define BI_AGREE_(name, lo, hi, progs, syn, src, src_max, a1, a2, res)                         \
  _Static_assert((TFX_PK_##progs & TFX_BI_SRC_PROGS(TFX_BI_SRC_##src)) ==                       \
                     TFX_BI_SRC_PROGS(TFX_BI_SRC_##src),                                        \
                 "builtin " #name ": callable from rule source compiled to programs it may not appear in"); \
  _Static_assert(lo <= src_max && src_max <= hi, "builtin " #name ": source arity outside the VM's");
TFX_VM_BUILTINS(BI_AGREE_)
#undef BI_AGREE_

#define PR_(name, on, syn) {#name, TFX_PROP_ON_##on, syn},
const tfx_prop_info tfx_vm_props[TFX_PR__COUNT] = {TFX_VM_PROPS(PR_)};
#undef PR_

#define KI_(name, doc, meaning) {#name, doc, meaning},
const tfx_kind_info tfx_vm_kinds[TFX_K__COUNT] = {TFX_VM_KINDS(KI_)};
#undef KI_
