/* Assembler: the official way to emit bytecode (used by the rule compiler and the tests).
 * Stage: vm (input: calls from the compiler; output: a verified tfx_pack).
 * Ownership: a tfx_asm owns its growing tables; tfx_asm_finish copies everything into the
 * pack's arena, so the assembler can be freed right after. Errors are sticky: after the first
 * misuse or allocation failure every call is a no-op returning TFX_PACK_NONE, and
 * tfx_asm_finish reports the first error. Constants are interned (same value, same index);
 * frame sizes are computed from the registers each program uses.
 *
 * Typical use:
 *   uint32_t r = tfx_asm_rule(as, TFX_RULE_PASS, "P", TFX_RULE_GENERAL);
 *   uint32_t g = tfx_asm_group(as, r), l = tfx_asm_layer(as, g);
 *   uint32_t pr = tfx_asm_prog_begin(as, TFX_PK_SCOPE, r);
 *   tfx_asm_loc(as, file, 5, 9);
 *   tfx_asm_emit(as, TFX_OP_SC_COUNT, feat, tfx_asm_const_str(as, "Mul"), 3);
 *   tfx_asm_emit(as, TFX_OP_MATCH, tfx_asm_const_str(as, "batchnorm"), 0, 0);
 *   tfx_asm_prog_end(as);
 *   tfx_asm_pattern(as, l, "batchnorm", pr);
 * Jump operands (kind J) take LABELS from tfx_asm_label_new, bound with tfx_asm_label_here;
 * they are patched to absolute addresses at tfx_asm_prog_end. */
#ifndef TFX_VM_ASM_H
#define TFX_VM_ASM_H

#include <stdint.h>

#include "util/arena.h"
#include "util/diag.h"
#include "util/hash.h"
#include "vm/pack.h"

typedef struct tfx_asm_fixup { uint32_t at, label; } tfx_asm_fixup;

typedef struct tfx_asm {
  tfx_arena arena;          /* interned strings and constant keys */
  tfx_hmap const_map;       /* encoded constant -> index */
  tfx_pack p;               /* tables under construction (arrays are tfx_realloc'ed) */
  uint32_t cap_consts, cap_list_elems, cap_code, cap_progs, cap_rules, cap_groups, cap_layers,
      cap_patterns, cap_features, cap_files, cap_locs;
  uint32_t *labels;         /* label -> address, TFX_PACK_NONE while unbound */
  uint32_t n_labels, cap_labels;
  tfx_asm_fixup *fixups;    /* jump operands of the open program */
  uint32_t n_fixups, cap_fixups;
  uint32_t cur_prog;        /* open program or TFX_PACK_NONE */
  uint32_t cur_file, cur_line, cur_col;
  int loc_dirty;            /* next instruction starts a new source-map entry */
  char err[200];            /* first error, "" if none */
  int oom;                  /* that error is a failed allocation */
} tfx_asm;

/* Prepares an empty assembler. */
void tfx_asm_init(tfx_asm *as);
/* Releases everything the assembler owns (not packs made by tfx_asm_finish). */
void tfx_asm_free(tfx_asm *as);
/* 1 once an error happened (its text is in as->err). */
int tfx_asm_failed(const tfx_asm *as);
/* 1 when that first error is a failed allocation. */
int tfx_asm_oom(const tfx_asm *as);

/* ---- constants (interned; strings are copied) ---- */
uint32_t tfx_asm_const_none(tfx_asm *as);                        /* none */
uint32_t tfx_asm_const_bool(tfx_asm *as, int b);                 /* true/false */
uint32_t tfx_asm_const_int(tfx_asm *as, int64_t i);              /* int */
uint32_t tfx_asm_const_float(tfx_asm *as, double f);             /* float (bitwise interned) */
uint32_t tfx_asm_const_dtype(tfx_asm *as, int64_t dt);           /* dtype */
uint32_t tfx_asm_const_strn(tfx_asm *as, const char *s, size_t n); /* string of n bytes */
uint32_t tfx_asm_const_str(tfx_asm *as, const char *s);          /* NUL-terminated string */
/* A list of earlier constants (by index). */
uint32_t tfx_asm_const_list(tfx_asm *as, const uint32_t *elems, uint32_t n);

/* ---- tables ---- */
/* A source file name; returns its file index (interned). */
uint32_t tfx_asm_file(tfx_asm *as, const char *name);
/* Sets the source location of the instructions emitted next. */
void tfx_asm_loc(tfx_asm *as, uint32_t file, uint32_t line, uint32_t col);
/* A feature tested by scope-test opcode op, with its source text (may be NULL) and site. */
uint32_t tfx_asm_feature(tfx_asm *as, tfx_opcode op, const char *text, uint32_t file,
                         uint32_t line);
/* A rule (TFX_RULE_PASS or TFX_RULE_MAP) named name; returns its index. */
uint32_t tfx_asm_rule(tfx_asm *as, uint32_t kind, const char *name, uint32_t flags);
/* Direct access to a rule's fields (priority, from, to, file, line) until finish; NULL on error. */
tfx_vm_rule *tfx_asm_rule_at(tfx_asm *as, uint32_t rule);
/* Appends a group to `rule` (must be the newest rule); returns the group index. */
uint32_t tfx_asm_group(tfx_asm *as, uint32_t rule);
/* Appends a layer to `group` (must be the newest group). */
uint32_t tfx_asm_layer(tfx_asm *as, uint32_t group);
/* Appends pattern (sub_type, scope program prog) to `layer` (must be the newest layer). */
uint32_t tfx_asm_pattern(tfx_asm *as, uint32_t layer, const char *sub_type, uint32_t prog);

/* ---- code ---- */
/* Opens a program of kind TFX_PK_SCOPE/SELECT/MAP owned by rule (or TFX_PACK_NONE). A SELECT
 * or MAP program becomes its rule's main program. Returns the program index. */
uint32_t tfx_asm_prog_begin(tfx_asm *as, uint32_t kind, uint32_t rule);
/* Closes the open program: patches its jumps (every used label must be bound inside it) and
 * fixes its frame size. Returns 0 or -1 (error recorded). */
int tfx_asm_prog_end(tfx_asm *as);
/* A new, unbound label. */
uint32_t tfx_asm_label_new(tfx_asm *as);
/* Binds label to the address of the next instruction. */
void tfx_asm_label_here(tfx_asm *as, uint32_t label);
/* Appends one instruction; operands beyond the opcode's count are ignored. J operands are
 * labels. Returns the instruction's address. */
uint32_t tfx_asm_emit(tfx_asm *as, tfx_opcode op, int64_t a, int64_t b, int64_t c);
/* Same for four-operand opcodes (SLICE, CALL, SC_STEP, SC_ATTR). */
uint32_t tfx_asm_emit4(tfx_asm *as, tfx_opcode op, int64_t a, int64_t b, int64_t c, int64_t d);
/* Address the next instruction will get. */
uint32_t tfx_asm_pc(const tfx_asm *as);

/* Builds and verifies the pack (out is initialized here). name is used in messages.
 * Returns TFX_OK, TFX_E_NOMEM (out of memory, in the assembler or here) or TFX_E_FAIL (the
 * assembler's first error or the verifier's), reported. */
tfx_status tfx_asm_finish(tfx_asm *as, tfx_pack *out, const char *name, tfx_diag *d)
    TFX_MUST_CHECK;

#endif
