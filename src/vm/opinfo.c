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

#define BI_(name, lo, hi, progs, syn) {#name, lo, hi, TFX_PK_##progs, syn},
const tfx_builtin_info tfx_vm_builtins[TFX_BI__COUNT] = {TFX_VM_BUILTINS(BI_)};
#undef BI_

#define PR_(name, on, syn) {#name, TFX_PROP_ON_##on, syn},
const tfx_prop_info tfx_vm_props[TFX_PR__COUNT] = {TFX_VM_PROPS(PR_)};
#undef PR_

#define KI_(name, doc, meaning) {#name, doc, meaning},
const tfx_kind_info tfx_vm_kinds[TFX_K__COUNT] = {TFX_VM_KINDS(KI_)};
#undef KI_
