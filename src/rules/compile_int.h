/* Rule compiler internals shared by compile.c and compile_expr.c (private to src/rules).
 * Stage: rules, back end. Registers are a stack: `top` is the first free register; a construct
 * takes registers at `top` and returns them by restoring a mark, so a frame holds only what
 * the deepest expression needs (checked against TFX_VM_MAX_REGS: `expression too complex`). */
#ifndef TFX_RULES_COMPILE_INT_H
#define TFX_RULES_COMPILE_INT_H

#include <stdint.h>

#include "rules/ast.h"
#include "rules/load.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "vm/asm.h"

/* What the compiler statically knows about a value's kind (for `scopes` flattening and the
 * default result name). */
typedef enum { TFX_CK_UNKNOWN, TFX_CK_SCOPE, TFX_CK_LIST, TFX_CK_NONE } tfx_ck;

/* A named value living in a register: fuse bindings, lets, quantifier variables. */
typedef struct tfx_cvar {
  const char *name;
  uint32_t reg;
  tfx_ck kind;
} tfx_cvar;

typedef struct tfx_cc {
  tfx_ruleset *rs;          /* for diagnostics only (reporting counts errors) */
  tfx_diag *d;
  tfx_asm as;
  uint32_t *files;          /* source id -> assembler file index (TFX_PACK_NONE: not yet) */
  uint32_t n_files;
  tfx_ast_file_kind kind;   /* file kind of the rule being compiled */
  uint32_t top;             /* first free register */
  int overflow;             /* the open program ran out of registers (reported once) */
  tfx_cvar *vars;
  uint32_t n_vars, cap_vars;
  tfx_strbuf tmp;           /* scratch text */
  size_t errors;            /* compile errors reported */
  int oom;                  /* reported once */
} tfx_cc;

/* ---- diagnostics (compile.c) ---- */
void tfx_cc_error(tfx_cc *c, tfx_rules_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tfx_cc_oom(tfx_cc *c);
/* Sets the source location of the next instructions to loc. */
void tfx_cc_loc(tfx_cc *c, tfx_rules_loc loc);

/* ---- registers and names (compile_expr.c) ---- */
/* Takes n consecutive registers at top (reports `expression too complex` on overflow). */
uint32_t tfx_cc_alloc(tfx_cc *c, uint32_t n, tfx_rules_loc loc);
int tfx_cc_push_var(tfx_cc *c, const char *name, uint32_t reg, tfx_ck kind);
const tfx_cvar *tfx_cc_find_var(const tfx_cc *c, const char *name);
/* Loads an integer (LOADI when it fits 32 bits, else LOADK). */
void tfx_cc_load_int(tfx_cc *c, uint32_t reg, int64_t v);
void tfx_cc_load_str(tfx_cc *c, uint32_t reg, const char *s);

/* ---- expressions (compile_expr.c) ---- */
/* Compiles e into register dst (dst < top). */
void tfx_cc_expr(tfx_cc *c, const tfx_ast_expr *e, uint32_t dst);
/* Returns a register holding e's value: a variable's own register, or a new temporary at
 * top (the caller restores top). */
uint32_t tfx_cc_expr_any(tfx_cc *c, const tfx_ast_expr *e);
/* Emits a jump to label when e's truth equals jump_if (none counts as false); falls through
 * otherwise. */
void tfx_cc_jump(tfx_cc *c, const tfx_ast_expr *e, int jump_if, uint32_t label);
/* The static kind of e's value. */
tfx_ck tfx_cc_kind(const tfx_cc *c, const tfx_ast_expr *e);
/* Interns the constant of a literal expression; TFX_PACK_NONE if e is not a constant. */
uint32_t tfx_cc_const(tfx_cc *c, const tfx_ast_expr *e);

/* ---- dataflow rewrites (compile_flow.c) ---- */
/* Compiles every registered `rewrite` of c->rs (TFX_RULE_FLOW rules), in load order. */
void tfx_cc_rewrites(tfx_cc *c);
/* 1 when the TF op type's two data inputs commute (Add, Mul, Maximum, ...). */
int tfx_flow_commutative(const char *op);

#endif
