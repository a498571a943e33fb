/* The bytecode encoding: the one place that knows how instructions are laid out.
 * Stage: vm. Everything else decodes through the accessor macros below and the tables that
 * expand TFX_VM_OPCODES (opcodes.h); the verifier (pack.c) guarantees, before any program
 * runs, that every instruction is well formed, so the interpreter does no checks of its own.
 *
 * Encoding: variable length, in 32-bit little-endian words (one `uint32_t` each in memory).
 *
 *      word 0                         word 1      word 2      word 3      word 4
 *   +--------------+--------------+ +----------+ +----------+ +----------+ +----------+
 *   | 0 (24 bits)  | opcode (8)   | |    a     | |    b     | |    c     | |    d     |
 *   +--------------+--------------+ +----------+ +----------+ +----------+ +----------+
 *    31          8  7            0    only as many operand words as the opcode has
 *
 * The length of an instruction is 1 + its operand count, both given by the X-macro (unused
 * slots are `_`). Every operand is a full word: registers, constant indexes, jump targets
 * (absolute code addresses), feature/builtin/property ids are unsigned; immediates (I) are
 * two's-complement int32. Why not Lua's packed 32-bit format: the scope tests need up to four
 * operands (feature, op type, num, step) and constant pools can exceed 2^8..2^16 entries, so
 * whole-word operands avoid EXTRAARG-style escapes; the verifier checks instruction
 * boundaries, so variable length costs nothing at run time. The upper 24 bits of word 0 are
 * reserved and must be zero. */
#ifndef TFX_VM_BYTECODE_H
#define TFX_VM_BYTECODE_H

#include <assert.h>
#include <stdint.h>

#include "vm/opcodes.h"

/* Opcode enum: TFX_OP_LOADK, ... and TFX_OP__COUNT. */
typedef enum {
#define TFX_X_(name, k1, k2, k3, k4, progs, flags, eff, syn) TFX_OP_##name,
  TFX_VM_OPCODES(TFX_X_)
#undef TFX_X_
  TFX_OP__COUNT
} tfx_opcode;
_Static_assert(TFX_OP__COUNT <= 256, "opcodes must fit in 8 bits");

/* Operand kinds: TFX_K__ (unused), TFX_K_R, ... */
typedef enum {
#define TFX_X_(name, doc, meaning) TFX_K_##name,
  TFX_VM_KINDS(TFX_X_)
#undef TFX_X_
  TFX_K__COUNT
} tfx_operand_kind;

/* Builtins: TFX_BI_len, ... */
typedef enum {
#define TFX_X_(name, lo, hi, progs, syn, src, src_max, a1, a2, res) TFX_BI_##name,
  TFX_VM_BUILTINS(TFX_X_)
#undef TFX_X_
  TFX_BI__COUNT
} tfx_builtin;

/* Properties: TFX_PR_name, ... */
typedef enum {
#define TFX_X_(name, on, syn) TFX_PR_##name,
  TFX_VM_PROPS(TFX_X_)
#undef TFX_X_
  TFX_PR__COUNT
} tfx_prop;

/* Program kinds (a bit each, so an opcode's PROGS column is a mask). */
enum {
  TFX_PK_SCOPE = 1u,  /* pattern program: run per candidate scope, ends in MATCH */
  TFX_PK_SELECT = 2u, /* selection program: require + fuse blocks of a pass */
  TFX_PK_MAP = 4u,    /* map program: run per TF node */
  TFX_PK_EMIT = 6u,
  TFX_PK_ANY = 7u
};
/* Static types of rule expressions, a bit each (a set of bits: "one of"); the builtin table's
 * argument and result columns (opcodes.h) and sema's type checks use them. */
enum {
  TFX_T_INT = 1 << 0, TFX_T_FLOAT = 1 << 1, TFX_T_BOOL = 1 << 2, TFX_T_STRING = 1 << 3,
  TFX_T_DTYPE = 1 << 4, TFX_T_LIST = 1 << 5, TFX_T_SCOPE = 1 << 6, TFX_T_NODE = 1 << 7,
  TFX_T_NONE = 1 << 8, TFX_T_DICT = 1 << 9, TFX_T_INPUT = 1 << 10 /* `in N` */,
  TFX_T_ATTRS = 1 << 11, /* n.attr: any name is a property */
  TFX_T_NUM = TFX_T_INT | TFX_T_FLOAT,
  TFX_T_ANY = (1 << 11) - 1 /* every value type except TFX_T_ATTRS */
};
/* Where rule source may call a builtin (column SOURCE): a bit per file kind; NAME = none (a
 * bare name of .opmap files). */
#define TFX_BI_SRC_NAME 0u
#define TFX_BI_SRC_SCOPERULE 1u
#define TFX_BI_SRC_OPMAP 2u
#define TFX_BI_SRC_ANY 3u
/* The program kinds rule source of those file kinds compiles to: .scoperule -> pattern,
 * selection and rewrite (map) programs; .opmap (names included) -> map programs. */
#define TFX_BI_SRC_PROGS(src) \
  (((src) & TFX_BI_SRC_SCOPERULE ? TFX_PK_ANY : 0u) | ((src) & TFX_BI_SRC_SCOPERULE ? 0u : TFX_PK_MAP))

#define TFX_PROP_ON_SCOPE 1u
#define TFX_PROP_ON_NODE 2u
#define TFX_PROP_ON_BOTH 3u

#define TFX_OPF_0 0u
#define TFX_OPF_END 1u /* control never falls through (JMP, RET, HALT, MATCH) */

#define TFX_INS_MAX_OPERANDS 4
#define TFX_INS_MAX_WORDS (1 + TFX_INS_MAX_OPERANDS)

/* Static description of one opcode, generated from the X-macro (opinfo.c). */
typedef struct tfx_opinfo {
  const char *name;       /* "LOADK" */
  uint8_t n_operands;     /* 0..4 */
  uint8_t kinds[TFX_INS_MAX_OPERANDS];
  uint8_t progs;          /* TFX_PK_* mask */
  uint8_t flags;          /* TFX_OPF_* */
  const char *effect;     /* "R[a] = K[b]" */
  const char *synopsis;   /* one line */
} tfx_opinfo;

typedef struct tfx_builtin_info {
  const char *name;
  uint8_t min_args, max_args;
  uint8_t progs;
  const char *synopsis;
  /* the rule language's columns (read by sema) */
  uint8_t source;         /* TFX_BI_SRC_* */
  uint8_t source_max;     /* most arguments in rule source */
  uint16_t args[2];       /* TFX_T_* sets required of arguments 1 and 2; 0 = not checked */
  uint16_t result;        /* TFX_T_* set */
} tfx_builtin_info;

typedef struct tfx_prop_info {
  const char *name;
  uint8_t on;             /* TFX_PROP_ON_* */
  const char *synopsis;
} tfx_prop_info;

typedef struct tfx_kind_info {
  const char *name;       /* "R" */
  const char *doc;        /* "reg" */
  const char *meaning;
} tfx_kind_info;

extern const tfx_opinfo tfx_vm_ops[TFX_OP__COUNT];            /* by opcode */
extern const tfx_builtin_info tfx_vm_builtins[TFX_BI__COUNT]; /* by builtin id */
extern const tfx_prop_info tfx_vm_props[TFX_PR__COUNT];       /* by property id */
extern const tfx_kind_info tfx_vm_kinds[TFX_K__COUNT];        /* by operand kind */

/* ---- accessors: `p` points at word 0 of an instruction ---- */
#define TFX_INS_OP(p) ((tfx_opcode)((p)[0] & 0xffu))
#define TFX_INS_RESERVED(p) ((p)[0] >> 8)
#define TFX_INS_LEN(op) (1u + tfx_vm_ops[(op)].n_operands)
#define TFX_INS_WORD0(op) ((uint32_t)(op) & 0xffu)

#ifdef NDEBUG
#define TFX_INS_ARG_(p, i, kind) ((p)[1 + (i)])
#else
/* Debug builds assert that operand i of this opcode has the kind the caller expects. */
#define TFX_INS_ARG_(p, i, kind) \
  (assert(tfx_vm_ops[TFX_INS_OP(p)].kinds[(i)] == (kind)), (p)[1 + (i)])
#endif
/* Operand i (0 = a) read as a register, constant, target, ... */
#define TFX_INS_REG(p, i) TFX_INS_ARG_(p, i, TFX_K_R)
#define TFX_INS_REG2(p, i) TFX_INS_ARG_(p, i, TFX_K_R2)
#define TFX_INS_CNT(p, i) TFX_INS_ARG_(p, i, TFX_K_N)
#define TFX_INS_K(p, i) TFX_INS_ARG_(p, i, TFX_K_K)
#define TFX_INS_KS(p, i) TFX_INS_ARG_(p, i, TFX_K_KS)
#define TFX_INS_KO(p, i) TFX_INS_ARG_(p, i, TFX_K_KO)
#define TFX_INS_KT(p, i) TFX_INS_ARG_(p, i, TFX_K_KT)
#define TFX_INS_TARGET(p, i) TFX_INS_ARG_(p, i, TFX_K_J)
#define TFX_INS_IMM(p, i) ((int32_t)TFX_INS_ARG_(p, i, TFX_K_I))
#define TFX_INS_DIR(p, i) TFX_INS_ARG_(p, i, TFX_K_D)
#define TFX_INS_BUILTIN(p, i) TFX_INS_ARG_(p, i, TFX_K_B)
#define TFX_INS_FEAT(p, i) TFX_INS_ARG_(p, i, TFX_K_F)
#define TFX_INS_PROP(p, i) TFX_INS_ARG_(p, i, TFX_K_P)
/* Raw operand word without a kind check (verifier, disassembler). */
#define TFX_INS_RAW(p, i) ((p)[1 + (i)])

/* Frame limits. */
#define TFX_VM_MAX_REGS 256

#endif
