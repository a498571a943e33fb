/* Bytecode packs (.tfxb): the in-memory program set the VM runs, its file format, and the
 * verifier that makes every pack safe to run.
 * Stage: vm (output of the rule compiler via tfx_asm, input of the VM and `tfxc disasm`).
 * Ownership: a tfx_pack owns everything it points to (its arena); the VM borrows it.
 *
 * File layout (all integers little-endian; every section is a multiple of 4 bytes):
 *
 *   offset 0   "TFXB"                    magic
 *          4   u32 version               TFX_PACK_VERSION
 *          8   u64 payload size          bytes after the 32-byte header
 *         16   u64 hash                  FNV-1a 64 of the payload bytes
 *         24   u32 section count         TFX_PACK_N_SECTIONS
 *         28   u32 tables fingerprint    TFX_PACK_TABLES_FINGERPRINT: the first 32 bits of
 *                                        the SHA-256 of the operand-kind, opcode, builtin and
 *                                        property lists of vm/opcodes.h (names, order, kinds;
 *                                        cmake/vm_fingerprint.cmake, run at build time)
 *         32   payload: TFX_PACK_N_SECTIONS sections in id order 1..N, each
 *              u32 id, u32 byte size, then `size` bytes:
 *     1 CONST    u32 n; n records: u32 tag, then NONE: -, BOOL/INT/DTYPE: i64, FLOAT: f64
 *                (IEEE bits), STR: u32 len + bytes + zero pad to 4, LIST: u32 n + n u32
 *                indexes of EARLIER constants (so lists are acyclic)
 *     2 CODE     u32 n; n u32 words (bytecode.h)
 *     3 PROG     u32 n; n x {start, end, nregs, kind, rule}   (programs tile CODE in order)
 *     4 RULE     u32 n; n x {name, kind, flags, priority(i32), from, to, prog,
 *                            group_first, n_groups, file, line}
 *     5 GROUP    u32 n; n x {layer_first, n_layers}
 *     6 LAYER    u32 n; n x {pattern_first, n_patterns}
 *     7 PATTERN  u32 n; n x {sub_type, prog}
 *     8 FEATURE  u32 n; n x {opcode, text, file, line}
 *     9 FILE     u32 n; n x {name}                         (string constants)
 *    10 LOC      u32 n; n x {pc, file, line, col}          (strictly increasing pc)
 *
 * A pack of another format version or with another tables fingerprint was compiled by a
 * different tfxc, whose opcode / builtin / property ids may mean something else: it is refused
 * with "compiled by a different tfxc ...: recompile it" (TFX_E_INPUT), before anything else
 * is read.
 * Writing is deterministic (same pack, same bytes). Loading checks, in order: header, hash,
 * section framing and limits, then tfx_pack_verify (every instruction's opcode, operand kinds
 * and ranges, jump targets on instruction boundaries inside their program, program kinds,
 * rule/pass tables). Any failure is one error in the diag ("corrupt pack: ...") and
 * TFX_E_INPUT; nothing is ever read out of bounds. Running out of memory is not the pack's
 * fault: one "out of memory loading pack" (or "... verifying pack") error and TFX_E_FAIL. */
#ifndef TFX_VM_PACK_H
#define TFX_VM_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/diag.h"
#include "util/status.h"
#include "util/strbuf.h"
#include "vm/bytecode.h"
#include "vm/value.h"

#define TFX_PACK_MAGIC "TFXB"
#define TFX_PACK_VERSION 3u /* 2: header word 28 holds the tables fingerprint; 3: DF_* opcodes */
#define TFX_PACK_HEADER_SIZE 32u
#define TFX_PACK_N_SECTIONS 10u
#define TFX_PACK_NONE UINT32_MAX /* "no constant / no program / no rule" in table fields */

/* Limits enforced by the loader and the verifier. */
#define TFX_PACK_MAX_BYTES ((size_t)256 << 20)
#define TFX_PACK_MAX_CONSTS (1u << 22)
#define TFX_PACK_MAX_STR (1u << 24)
#define TFX_PACK_MAX_LIST (1u << 20)
#define TFX_PACK_MAX_CODE (1u << 26)
#define TFX_PACK_MAX_TABLE (1u << 22) /* rows of any other section */

/* Rule kinds and flags. */
enum { TFX_RULE_PASS = 1, TFX_RULE_MAP = 2, TFX_RULE_FLOW = 3 /* rewrite: map program per root node */ };
#define TFX_RULE_GENERAL 1u /* pass: enabled by default */
#define TFX_RULE_GRAPH 2u   /* map: op TF -> graph (inner nodes) */
#define TFX_RULE_FLAGS_ALL 3u

typedef struct tfx_vm_prog {
  uint32_t start, end;  /* code words [start, end) */
  uint32_t nregs;       /* frame size, 1..TFX_VM_MAX_REGS */
  uint32_t kind;        /* one TFX_PK_* bit */
  uint32_t rule;        /* owning rule, or TFX_PACK_NONE */
} tfx_vm_prog;

typedef struct tfx_vm_rule {
  uint32_t name;        /* string constant */
  uint32_t kind;        /* TFX_RULE_PASS / TFX_RULE_MAP */
  uint32_t flags;       /* TFX_RULE_* */
  int32_t priority;     /* maps */
  uint32_t from;        /* maps, rewrites: list-of-strings constant (TF / root types); else NONE */
  uint32_t to;          /* maps: string constant (CANN type, "graph"); else NONE */
  uint32_t prog;        /* pass: selection program; map: map program; NONE if absent */
  uint32_t group_first, n_groups; /* pass structure (into pack->groups) */
  uint32_t file, line;  /* definition site (file index, 1-based line) */
} tfx_vm_rule;

typedef struct tfx_vm_group { uint32_t layer_first, n_layers; } tfx_vm_group;
typedef struct tfx_vm_layer { uint32_t pattern_first, n_patterns; } tfx_vm_layer;
typedef struct tfx_vm_pattern {
  uint32_t sub_type;    /* string constant */
  uint32_t prog;        /* SCOPE program */
} tfx_vm_pattern;

typedef struct tfx_vm_feature {
  uint32_t opcode;      /* the SC_* opcode that tests it */
  uint32_t text;        /* string constant with the source text ("count Mul == 3") or NONE */
  uint32_t file, line;  /* source site */
} tfx_vm_feature;

typedef struct tfx_vm_loc { uint32_t pc, file, line, col; } tfx_vm_loc;

typedef struct tfx_pack {
  tfx_arena arena;      /* owns everything below */
  tfx_value *consts;    uint32_t n_consts;
  uint32_t *list_first; /* per constant: first index into list_elems (lists), else NONE */
  uint32_t *list_elems; uint32_t n_list_elems; /* element constant indexes of list constants */
  uint32_t *code;       uint32_t n_code;
  tfx_vm_prog *progs;   uint32_t n_progs;
  tfx_vm_rule *rules;   uint32_t n_rules;
  tfx_vm_group *groups; uint32_t n_groups;
  tfx_vm_layer *layers; uint32_t n_layers;
  tfx_vm_pattern *patterns; uint32_t n_patterns;
  tfx_vm_feature *features; uint32_t n_features;
  uint32_t *files;      uint32_t n_files;   /* string constants */
  tfx_vm_loc *locs;     uint32_t n_locs;
  /* 1 when this build's rule compiler wrote the pack's rewrite signatures (tfx_asm_finish, or
   * the embedded stdlib, which the build compiles and a test checks against its sources); 0 for
   * a pack loaded from bytes (a file, a buffer). Nothing checks a signature against its
   * program, and a pack edited and re-hashed by hand can carry one that no longer mirrors it,
   * so the dataflow engine screens with signatures only when this is 1 (fusion/dataflow.c).
   * Not serialized. */
  int sigs_trusted;
} tfx_pack;

/* Zeroes p (an empty, valid pack). */
void tfx_pack_init(tfx_pack *p);
/* Releases everything p owns; p is empty afterwards. */
void tfx_pack_free(tfx_pack *p);

/* Serializes p into out (appended). Deterministic. Returns 0, or -1 on out of memory. */
int tfx_pack_write(const tfx_pack *p, tfx_strbuf *out);
/* Parses and verifies bytes (borrowed) into p (initialized here). name is used in messages.
 * Returns 0, TFX_E_INPUT after one "corrupt pack" error, or TFX_E_NOMEM after one "out of
 * memory ..." error (p is then empty). */
tfx_status tfx_pack_load(tfx_pack *p, const void *bytes, size_t len, const char *name,
                         tfx_diag *d) TFX_MUST_CHECK;
/* The same for a pack compiled into the program (the embedded stdlib, stdlib/stdlib_pack.h):
 * every check above runs, the verifier included, except recomputing the content hash, which
 * guards files against damage on the way and costs more than the verifier (the build step
 * loads these bytes with the hash checked). */
tfx_status tfx_pack_load_builtin(tfx_pack *p, const void *bytes, size_t len, const char *name,
                                 tfx_diag *d) TFX_MUST_CHECK;
/* Reads and loads a .tfxb file. Returns 0, TFX_E_INPUT (unreadable or corrupt) or
 * TFX_E_NOMEM (out of memory), reported. */
tfx_status tfx_pack_load_file(tfx_pack *p, const char *path, tfx_diag *d) TFX_MUST_CHECK;
/* Writes p to path atomically. Returns 0, TFX_E_FAIL (cannot write) or TFX_E_NOMEM
 * (reported). */
tfx_status tfx_pack_save_file(const tfx_pack *p, const char *path, tfx_diag *d) TFX_MUST_CHECK;
/* Checks every table and instruction of an in-memory pack (see the file comment).
 * Returns 0, TFX_E_INPUT after reporting "corrupt pack: ..." against name, or TFX_E_NOMEM
 * after reporting "out of memory verifying pack". */
tfx_status tfx_pack_verify(const tfx_pack *p, const char *name, tfx_diag *d) TFX_MUST_CHECK;
/* FNV-1a 64 of n bytes (the pack hash). */
uint64_t tfx_pack_hash(const void *data, size_t n);

/* ---- queries ---- */
/* The program containing code address pc, or TFX_PACK_NONE. */
uint32_t tfx_pack_prog_at(const tfx_pack *p, uint32_t pc);
/* The source location of pc (NULL if none recorded). */
const tfx_vm_loc *tfx_pack_loc_at(const tfx_pack *p, uint32_t pc);
/* Constant string (NUL-terminated) at index k, or NULL if k is not a string constant. */
const char *tfx_pack_str(const tfx_pack *p, uint32_t k);
/* File name of file index f, or "?". */
const char *tfx_pack_file(const tfx_pack *p, uint32_t f);
/* Name of the rule owning pc ("<program N>" style fallback is the caller's business): NULL
 * when the program has no rule. */
const char *tfx_pack_rule_name_at(const tfx_pack *p, uint32_t pc);

#endif
