/* Assembler: builds a tfx_pack instruction by instruction (see asm.h).
 * Stage: vm. Growing arrays use tfx_realloc so fault injection reaches them; every failure
 * is recorded once (sticky) and reported by tfx_asm_finish. The finished pack is copied into
 * its own arena and checked by tfx_pack_verify, so compiler bugs surface as diagnostics. */
#include "vm/asm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void asm_fail(tfx_asm *as, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void asm_fail(tfx_asm *as, const char *fmt, ...) {
  if (as->err[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(as->err, sizeof as->err, fmt, ap);
  va_end(ap);
}

/* The first error is a failed allocation (tfx_asm_finish returns TFX_E_NOMEM). */
static void asm_oom(tfx_asm *as) {
  if (as->err[0]) return;
  as->oom = 1;
  asm_fail(as, "out of memory");
}

void tfx_asm_init(tfx_asm *as) {
  memset(as, 0, sizeof *as);
  tfx_arena_init(&as->arena);
  tfx_hmap_init(&as->const_map);
  tfx_pack_init(&as->p);
  as->cur_prog = TFX_PACK_NONE;
  as->cur_file = TFX_PACK_NONE;
}

void tfx_asm_free(tfx_asm *as) {
  free(as->p.consts);
  free(as->p.list_first);
  free(as->p.list_elems);
  free(as->p.code);
  free(as->p.progs);
  free(as->p.rules);
  free(as->p.groups);
  free(as->p.layers);
  free(as->p.patterns);
  free(as->p.features);
  free(as->p.files);
  free(as->p.locs);
  free(as->labels);
  free(as->fixups);
  tfx_hmap_free(&as->const_map);
  tfx_arena_free(&as->arena);
  tfx_arena_free(&as->p.arena);
  memset(as, 0, sizeof *as);
  as->cur_prog = TFX_PACK_NONE;
}

int tfx_asm_failed(const tfx_asm *as) { return as->err[0] != 0; }
int tfx_asm_oom(const tfx_asm *as) { return as->oom; }

/* Makes room for one more element of size sz in *arr (count n, capacity *cap). */
static int grow(tfx_asm *as, void **arr, uint32_t n, uint32_t *cap, size_t sz) {
  if (as->err[0]) return -1;
  if (n < *cap) return 0;
  if (n >= TFX_PACK_MAX_CODE) {
    asm_fail(as, "table too large");
    return -1;
  }
  uint32_t nc = *cap ? *cap * 2 : 16;
  void *p = tfx_realloc(*arr, (size_t)nc * sz);
  if (!p) {
    asm_oom(as);
    return -1;
  }
  *arr = p;
  *cap = nc;
  return 0;
}
#define GROW(as, arr, n, cap) grow((as), (void **)&(arr), (n), &(cap), sizeof *(arr))

/* ---------------------------------------------------------------- constants */

/* Interns constant v whose identity is the byte string key (tag byte first). */
static uint32_t intern(tfx_asm *as, const unsigned char *key, size_t klen, tfx_value v,
                       const uint32_t *elems, unsigned depth) {
  if (as->err[0]) return TFX_PACK_NONE;
  uint32_t k = tfx_hmap_get(&as->const_map, (const char *)key, klen);
  if (k != TFX_HASH_NONE) return k;
  tfx_pack *p = &as->p;
  if (p->n_consts >= TFX_PACK_MAX_CONSTS) {
    asm_fail(as, "too many constants");
    return TFX_PACK_NONE;
  }
  if (GROW(as, p->consts, p->n_consts, as->cap_consts)) return TFX_PACK_NONE;
  uint32_t cap2 = as->cap_consts; /* list_first grows in step with consts */
  uint32_t *lf = tfx_realloc(p->list_first, (size_t)cap2 * sizeof *lf);
  if (!lf) {
    asm_oom(as);
    return TFX_PACK_NONE;
  }
  p->list_first = lf;
  char *kcopy = tfx_arena_strndup(&as->arena, (const char *)key, klen);
  if (!kcopy) {
    asm_oom(as);
    return TFX_PACK_NONE;
  }
  k = p->n_consts;
  p->list_first[k] = TFX_PACK_NONE;
  if (v.tag == TFX_V_STR) {
    char *s = tfx_arena_strndup(&as->arena, v.u.s, v.n);
    if (!s) {
      asm_oom(as);
      return TFX_PACK_NONE;
    }
    v.u.s = s;
  }
  if (v.tag == TFX_V_LIST) {
    p->list_first[k] = p->n_list_elems;
    for (uint32_t i = 0; i < v.n; i++) {
      if (GROW(as, p->list_elems, p->n_list_elems, as->cap_list_elems)) return TFX_PACK_NONE;
      p->list_elems[p->n_list_elems++] = elems[i];
    }
    v.u.items = NULL; /* materialized by finish */
    v.depth = (uint8_t)depth;
  }
  if (tfx_hmap_put(&as->const_map, kcopy, klen, k, NULL) < 0) {
    asm_oom(as);
    return TFX_PACK_NONE;
  }
  p->consts[k] = v;
  p->n_consts++;
  return k;
}

static uint32_t intern_scalar(tfx_asm *as, tfx_value v) {
  unsigned char key[9];
  key[0] = v.tag;
  memcpy(key + 1, &v.u, 8);
  return intern(as, key, v.tag == TFX_V_NONE ? 1 : 9, v, NULL, 0);
}

uint32_t tfx_asm_const_none(tfx_asm *as) { return intern_scalar(as, tfx_v_none()); }
uint32_t tfx_asm_const_bool(tfx_asm *as, int b) { return intern_scalar(as, tfx_v_bool(b)); }
uint32_t tfx_asm_const_int(tfx_asm *as, int64_t i) { return intern_scalar(as, tfx_v_int(i)); }
uint32_t tfx_asm_const_float(tfx_asm *as, double f) { return intern_scalar(as, tfx_v_float(f)); }
uint32_t tfx_asm_const_dtype(tfx_asm *as, int64_t dt) { return intern_scalar(as, tfx_v_dtype(dt)); }

uint32_t tfx_asm_const_strn(tfx_asm *as, const char *s, size_t n) {
  if (as->err[0]) return TFX_PACK_NONE;
  if (n > TFX_PACK_MAX_STR) {
    asm_fail(as, "string constant too long");
    return TFX_PACK_NONE;
  }
  unsigned char *key = tfx_arena_alloc(&as->arena, n + 1);
  if (!key) {
    asm_oom(as);
    return TFX_PACK_NONE;
  }
  key[0] = TFX_V_STR;
  if (n) memcpy(key + 1, s, n);
  return intern(as, key, n + 1, tfx_v_str(s, (uint32_t)n), NULL, 0);
}

uint32_t tfx_asm_const_str(tfx_asm *as, const char *s) { return tfx_asm_const_strn(as, s, strlen(s)); }

uint32_t tfx_asm_const_list(tfx_asm *as, const uint32_t *elems, uint32_t n) {
  if (as->err[0]) return TFX_PACK_NONE;
  if (n > TFX_PACK_MAX_LIST) {
    asm_fail(as, "list constant too long");
    return TFX_PACK_NONE;
  }
  for (uint32_t i = 0; i < n; i++)
    if (elems[i] >= as->p.n_consts) {
      asm_fail(as, "list element %u is not a constant", elems[i]);
      return TFX_PACK_NONE;
    }
  unsigned depth = 1;
  for (uint32_t i = 0; i < n; i++) {
    const tfx_value *e = &as->p.consts[elems[i]];
    if (e->tag == TFX_V_LIST && e->depth + 1u > depth) depth = e->depth + 1u;
  }
  if (depth > TFX_V_MAX_DEPTH) {
    asm_fail(as, "list constant nested deeper than %d", TFX_V_MAX_DEPTH);
    return TFX_PACK_NONE;
  }
  size_t klen = 1 + (size_t)n * 4;
  unsigned char *key = tfx_arena_alloc(&as->arena, klen);
  if (!key) {
    asm_oom(as);
    return TFX_PACK_NONE;
  }
  key[0] = TFX_V_LIST;
  if (n) memcpy(key + 1, elems, (size_t)n * 4);
  return intern(as, key, klen, tfx_v_list(NULL, n), elems, depth);
}

/* ---------------------------------------------------------------- tables */

uint32_t tfx_asm_file(tfx_asm *as, const char *name) {
  uint32_t k = tfx_asm_const_str(as, name);
  if (k == TFX_PACK_NONE) return k;
  for (uint32_t i = 0; i < as->p.n_files; i++)
    if (as->p.files[i] == k) return i;
  if (GROW(as, as->p.files, as->p.n_files, as->cap_files)) return TFX_PACK_NONE;
  as->p.files[as->p.n_files] = k;
  return as->p.n_files++;
}

void tfx_asm_loc(tfx_asm *as, uint32_t file, uint32_t line, uint32_t col) {
  if (file != as->cur_file || line != as->cur_line || col != as->cur_col) as->loc_dirty = 1;
  as->cur_file = file;
  as->cur_line = line;
  as->cur_col = col;
}

uint32_t tfx_asm_feature(tfx_asm *as, tfx_opcode op, const char *text, uint32_t file,
                         uint32_t line) {
  uint32_t t = text ? tfx_asm_const_str(as, text) : TFX_PACK_NONE;
  if (GROW(as, as->p.features, as->p.n_features, as->cap_features)) return TFX_PACK_NONE;
  tfx_vm_feature *f = &as->p.features[as->p.n_features];
  f->opcode = (uint32_t)op;
  f->text = t;
  f->file = file;
  f->line = line;
  return as->p.n_features++;
}

uint32_t tfx_asm_rule(tfx_asm *as, uint32_t kind, const char *name, uint32_t flags) {
  uint32_t k = tfx_asm_const_str(as, name);
  if (GROW(as, as->p.rules, as->p.n_rules, as->cap_rules)) return TFX_PACK_NONE;
  tfx_vm_rule *r = &as->p.rules[as->p.n_rules];
  memset(r, 0, sizeof *r);
  r->name = k;
  r->kind = kind;
  r->flags = flags;
  r->from = r->to = r->prog = r->file = TFX_PACK_NONE;
  r->group_first = as->p.n_groups;
  return as->p.n_rules++;
}

tfx_vm_rule *tfx_asm_rule_at(tfx_asm *as, uint32_t rule) {
  if (as->err[0] || rule >= as->p.n_rules) return NULL;
  return &as->p.rules[rule];
}

uint32_t tfx_asm_group(tfx_asm *as, uint32_t rule) {
  if (as->err[0]) return TFX_PACK_NONE;
  if (rule + 1 != as->p.n_rules) {
    asm_fail(as, "groups must be added to the newest rule");
    return TFX_PACK_NONE;
  }
  if (GROW(as, as->p.groups, as->p.n_groups, as->cap_groups)) return TFX_PACK_NONE;
  as->p.groups[as->p.n_groups].layer_first = as->p.n_layers;
  as->p.groups[as->p.n_groups].n_layers = 0;
  as->p.rules[rule].n_groups++;
  return as->p.n_groups++;
}

uint32_t tfx_asm_layer(tfx_asm *as, uint32_t group) {
  if (as->err[0]) return TFX_PACK_NONE;
  if (group + 1 != as->p.n_groups) {
    asm_fail(as, "layers must be added to the newest group");
    return TFX_PACK_NONE;
  }
  if (GROW(as, as->p.layers, as->p.n_layers, as->cap_layers)) return TFX_PACK_NONE;
  as->p.layers[as->p.n_layers].pattern_first = as->p.n_patterns;
  as->p.layers[as->p.n_layers].n_patterns = 0;
  as->p.groups[group].n_layers++;
  return as->p.n_layers++;
}

uint32_t tfx_asm_pattern(tfx_asm *as, uint32_t layer, const char *sub_type, uint32_t prog) {
  uint32_t k = tfx_asm_const_str(as, sub_type);
  if (as->err[0]) return TFX_PACK_NONE;
  if (layer + 1 != as->p.n_layers) {
    asm_fail(as, "patterns must be added to the newest layer");
    return TFX_PACK_NONE;
  }
  if (GROW(as, as->p.patterns, as->p.n_patterns, as->cap_patterns)) return TFX_PACK_NONE;
  as->p.patterns[as->p.n_patterns].sub_type = k;
  as->p.patterns[as->p.n_patterns].prog = prog;
  as->p.layers[layer].n_patterns++;
  return as->p.n_patterns++;
}

/* ---------------------------------------------------------------- code */

uint32_t tfx_asm_prog_begin(tfx_asm *as, uint32_t kind, uint32_t rule) {
  if (as->err[0]) return TFX_PACK_NONE;
  if (as->cur_prog != TFX_PACK_NONE) {
    asm_fail(as, "program %u is still open", as->cur_prog);
    return TFX_PACK_NONE;
  }
  if (rule != TFX_PACK_NONE && rule >= as->p.n_rules) {
    asm_fail(as, "no rule %u", rule);
    return TFX_PACK_NONE;
  }
  if (GROW(as, as->p.progs, as->p.n_progs, as->cap_progs)) return TFX_PACK_NONE;
  uint32_t id = as->p.n_progs++;
  tfx_vm_prog *pr = &as->p.progs[id];
  pr->start = pr->end = as->p.n_code;
  pr->nregs = 1;
  pr->kind = kind;
  pr->rule = rule;
  if (rule != TFX_PACK_NONE && kind != TFX_PK_SCOPE) {
    if (as->p.rules[rule].prog != TFX_PACK_NONE) {
      asm_fail(as, "rule %u already has a main program", rule);
      return TFX_PACK_NONE;
    }
    as->p.rules[rule].prog = id;
  }
  as->cur_prog = id;
  as->n_fixups = 0;
  as->loc_dirty = 1;
  return id;
}

uint32_t tfx_asm_label_new(tfx_asm *as) {
  if (GROW(as, as->labels, as->n_labels, as->cap_labels)) return TFX_PACK_NONE;
  as->labels[as->n_labels] = TFX_PACK_NONE;
  return as->n_labels++;
}

void tfx_asm_label_here(tfx_asm *as, uint32_t label) {
  if (as->err[0]) return;
  if (label >= as->n_labels || as->labels[label] != TFX_PACK_NONE) {
    asm_fail(as, "label %u is unknown or already bound", label);
    return;
  }
  as->labels[label] = as->p.n_code;
}

uint32_t tfx_asm_pc(const tfx_asm *as) { return as->p.n_code; }

static void note_reg(tfx_asm *as, uint64_t top) { /* top: one past the highest register used */
  tfx_vm_prog *pr = &as->p.progs[as->cur_prog];
  if (top > TFX_VM_MAX_REGS) {
    asm_fail(as, "register %llu beyond the frame limit %d", (unsigned long long)top - 1,
             TFX_VM_MAX_REGS);
    return;
  }
  if (top > pr->nregs) pr->nregs = (uint32_t)top;
}

uint32_t tfx_asm_emit4(tfx_asm *as, tfx_opcode op, int64_t a, int64_t b, int64_t c, int64_t d) {
  if (as->err[0]) return TFX_PACK_NONE;
  if (as->cur_prog == TFX_PACK_NONE) {
    asm_fail(as, "instruction outside a program");
    return TFX_PACK_NONE;
  }
  if ((unsigned)op >= TFX_OP__COUNT) {
    asm_fail(as, "bad opcode %d", (int)op);
    return TFX_PACK_NONE;
  }
  const tfx_opinfo *oi = &tfx_vm_ops[op];
  int64_t args[TFX_INS_MAX_OPERANDS] = {a, b, c, d};
  uint32_t pc = as->p.n_code;
  if (as->loc_dirty && as->cur_file != TFX_PACK_NONE) {
    if (GROW(as, as->p.locs, as->p.n_locs, as->cap_locs)) return TFX_PACK_NONE;
    tfx_vm_loc *l = &as->p.locs[as->p.n_locs++];
    l->pc = pc;
    l->file = as->cur_file;
    l->line = as->cur_line;
    l->col = as->cur_col;
    as->loc_dirty = 0;
  }
  for (unsigned i = 0; i < TFX_INS_LEN(op); i++)
    if (GROW(as, as->p.code, as->p.n_code + i, as->cap_code)) return TFX_PACK_NONE;
  as->p.code[pc] = TFX_INS_WORD0(op);
  for (unsigned i = 0; i < oi->n_operands; i++) {
    int64_t v = args[i];
    switch (oi->kinds[i]) {
    case TFX_K_I:
      if (v < INT32_MIN || v > INT32_MAX) asm_fail(as, "%s: immediate %lld out of range", oi->name, (long long)v);
      break;
    case TFX_K_R:
    case TFX_K_R2:
      if (v < 0) asm_fail(as, "%s: negative register", oi->name);
      else note_reg(as, (uint64_t)v + (oi->kinds[i] == TFX_K_R2 ? 2 : 1));
      break;
    case TFX_K_N:
      if (v < 0) asm_fail(as, "%s: negative count", oi->name);
      else note_reg(as, (uint64_t)args[i - 1] + (uint64_t)v);
      break;
    case TFX_K_J:
      if (v < 0 || (uint64_t)v >= as->n_labels) {
        asm_fail(as, "%s: unknown label %lld", oi->name, (long long)v);
      } else if (!GROW(as, as->fixups, as->n_fixups, as->cap_fixups)) {
        as->fixups[as->n_fixups].at = pc + 1 + i;
        as->fixups[as->n_fixups++].label = (uint32_t)v;
      }
      break;
    default:
      if (v < 0 || v > UINT32_MAX) asm_fail(as, "%s: operand %u out of range", oi->name, i);
      break;
    }
    as->p.code[pc + 1 + i] = (uint32_t)v;
  }
  as->p.n_code = pc + TFX_INS_LEN(op);
  return as->err[0] ? TFX_PACK_NONE : pc;
}

uint32_t tfx_asm_emit(tfx_asm *as, tfx_opcode op, int64_t a, int64_t b, int64_t c) {
  return tfx_asm_emit4(as, op, a, b, c, 0);
}

int tfx_asm_prog_end(tfx_asm *as) {
  if (as->err[0]) return -1;
  if (as->cur_prog == TFX_PACK_NONE) {
    asm_fail(as, "no open program");
    return -1;
  }
  tfx_vm_prog *pr = &as->p.progs[as->cur_prog];
  pr->end = as->p.n_code;
  for (uint32_t i = 0; i < as->n_fixups; i++) {
    uint32_t t = as->labels[as->fixups[i].label];
    if (t == TFX_PACK_NONE || t < pr->start || t >= pr->end) {
      asm_fail(as, "program %u: label %u is not bound inside the program", as->cur_prog,
               as->fixups[i].label);
      return -1;
    }
    as->p.code[as->fixups[i].at] = t;
  }
  as->n_fixups = 0;
  as->cur_prog = TFX_PACK_NONE;
  return 0;
}

/* ---------------------------------------------------------------- finish */

/* Copies n elements of size sz into the pack arena (NULL-safe for n == 0). */
static void *dup_arr(tfx_pack *out, const void *src, uint32_t n, size_t sz, int *oom) {
  void *dst = tfx_arena_calloc(&out->arena, (size_t)n + 1, sz);
  if (!dst) {
    *oom = 1;
    return NULL;
  }
  if (n) memcpy(dst, src, (size_t)n * sz);
  return dst;
}

tfx_status tfx_asm_finish(tfx_asm *as, tfx_pack *out, const char *name, tfx_diag *d) {
  tfx_pack_init(out);
  if (!as->err[0] && as->cur_prog != TFX_PACK_NONE) asm_fail(as, "program %u is still open", as->cur_prog);
  if (as->err[0]) {
    tfx_error(d, name, 0, 0, "assembler: %s", as->err);
    return as->oom ? TFX_E_NOMEM : TFX_E_FAIL;
  }
  const tfx_pack *p = &as->p;
  int oom = 0;
  out->n_consts = p->n_consts;
  out->consts = dup_arr(out, p->consts, p->n_consts, sizeof *p->consts, &oom);
  out->list_first = dup_arr(out, p->list_first, p->n_consts, sizeof *p->list_first, &oom);
  out->n_list_elems = p->n_list_elems;
  out->list_elems = dup_arr(out, p->list_elems, p->n_list_elems, sizeof *p->list_elems, &oom);
#define DUP_(f, n) out->n = p->n, out->f = dup_arr(out, p->f, p->n, sizeof *p->f, &oom)
  DUP_(code, n_code);
  DUP_(progs, n_progs);
  DUP_(rules, n_rules);
  DUP_(groups, n_groups);
  DUP_(layers, n_layers);
  DUP_(patterns, n_patterns);
  DUP_(features, n_features);
  DUP_(files, n_files);
  DUP_(locs, n_locs);
#undef DUP_
  /* Strings into the pack arena; lists materialized from their element indexes (elements
   * are earlier constants, so one forward pass suffices). */
  for (uint32_t k = 0; k < out->n_consts && !oom; k++) {
    tfx_value *v = &out->consts[k];
    if (v->tag == TFX_V_STR) {
      char *s = tfx_arena_strndup(&out->arena, v->u.s, v->n);
      if (!s) oom = 1;
      v->u.s = s;
    } else if (v->tag == TFX_V_LIST) {
      tfx_value *items = tfx_arena_calloc(&out->arena, (size_t)v->n + 1, sizeof *items);
      if (!items) {
        oom = 1;
        break;
      }
      for (uint32_t i = 0; i < v->n; i++) items[i] = out->consts[out->list_elems[out->list_first[k] + i]];
      *v = tfx_v_list(items, v->n);
    }
  }
  if (oom) {
    tfx_pack_free(out);
    tfx_error(d, name, 0, 0, "assembler: out of memory");
    return TFX_E_NOMEM;
  }
  tfx_status vr = tfx_pack_verify(out, name, d);
  if (vr != TFX_OK) {
    tfx_pack_free(out);
    return vr == TFX_E_NOMEM ? vr : TFX_E_FAIL;
  }
  out->sigs_trusted = 1; /* written by the compiler in this process (pack.h) */
  return TFX_OK;
}
