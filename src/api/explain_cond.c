/* `tfxc explain --scope`: which `where` / `require` sub-condition rejected the scope, and the
 * values it compared. Stage: api (explain.c). Input: the VM trace lines of the scope-fusion run
 * (`--trace` format: "[file:line] PC  OP operands  | rN=VALUE ..."), fed one by one while the
 * selection programs run. Output: per pass, the last `where` jump that skipped the explained
 * scope and the `require` jump that failed the pass, each with the leaf sub-condition's
 * file:line:col, its source text and the values of the last comparison before the jump.
 * Only lines of selection programs are looked at; nothing is kept of the others. */
#define _POSIX_C_SOURCE 200809L
#include "api/explain_cond.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stdlib_embed.h"
#include "util/fileio.h"
#include "vm/vm.h"

#define COND_MAX_LOOPS 64

void tfx_xcond_init(tfx_xcond *x, const tfx_pack *p, uint32_t scope_id) {
  memset(x, 0, sizeof *x);
  x->pack = p;
  x->scope_id = scope_id;
}

void tfx_xcond_free(tfx_xcond *x) {
  for (uint32_t i = 0; i < x->n_rules; i++) {
    free(x->per_rule[i].where_vals);
    free(x->per_rule[i].req_vals);
  }
  free(x->per_rule);
  free(x->last_vals);
  free(x->loops);
  memset(x, 0, sizeof *x);
}

/* The value text of register r in the "rN=V rM=W" list vals, as [*s, *s + *n). */
static int value_of(const char *vals, uint32_t r, const char **s, size_t *n) {
  const char *p = vals;
  while (p && *p) {
    if (*p != 'r') return 0;
    char *e;
    unsigned long reg = strtoul(p + 1, &e, 10);
    if (*e != '=') return 0;
    const char *v = e + 1, *q = v;
    int depth = 0, quote = 0;
    for (; *q; q++) {
      if (quote) {
        if (*q == '\\' && q[1]) q++;
        else if (*q == '"') quote = 0;
        continue;
      }
      if (*q == '"') quote = 1;
      else if (*q == '[' || *q == '{' || *q == '<' || *q == '(') depth++;
      else if (*q == ']' || *q == '}' || *q == '>' || *q == ')') depth--;
      else if (*q == ' ' && depth <= 0 && q[1] == 'r' && q[2] >= '0' && q[2] <= '9') break;
    }
    if (reg == r) {
      *s = v;
      *n = (size_t)(q - v);
      return 1;
    }
    p = *q ? q + 1 : NULL;
  }
  return 0;
}

static char *dup_n(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

/* The values an instruction read, "V, W" (from its trace values). */
static char *values_list(const char *vals) {
  size_t cap = strlen(vals) + 1;
  char *out = malloc(cap), *o = out;
  if (!out) return NULL;
  const char *p = vals;
  while (p && *p == 'r') {
    char *e;
    unsigned long reg = strtoul(p + 1, &e, 10);
    const char *s;
    size_t n;
    if (*e != '=' || !value_of(p, (uint32_t)reg, &s, &n)) break;
    if (o != out) {
      memcpy(o, ", ", 2);
      o += 2;
    }
    memcpy(o, s, n);
    o += n;
    p = s[n] ? s + n + 1 : NULL;
  }
  *o = 0;
  return out;
}

static tfx_xcond_loop *loop_at(tfx_xcond *x, uint32_t pc, int add) {
  for (uint32_t i = 0; i < x->n_loops; i++)
    if (x->loops[i].pc == pc) return &x->loops[i];
  if (!add) return NULL;
  if (x->n_loops == x->cap_loops) {
    uint32_t cap = x->cap_loops ? 2 * x->cap_loops : 8;
    tfx_xcond_loop *nl = realloc(x->loops, cap * sizeof *nl);
    if (!nl) {
      x->oom = 1;
      return NULL;
    }
    x->loops = nl;
    x->cap_loops = cap;
  }
  tfx_xcond_loop *l = &x->loops[x->n_loops++];
  memset(l, 0, sizeof *l);
  l->pc = pc;
  return l;
}

static tfx_xcond_rule *rule_state(tfx_xcond *x, uint32_t rule) {
  if (rule >= x->pack->n_rules) return NULL;
  if (!x->per_rule) {
    x->per_rule = calloc(x->pack->n_rules ? x->pack->n_rules : 1, sizeof *x->per_rule);
    if (!x->per_rule) {
      x->oom = 1;
      return NULL;
    }
    x->n_rules = x->pack->n_rules;
  }
  return &x->per_rule[rule];
}

/* 1 if the instruction at pc is the `require` failure exit: LOADB r0, #0 then RET. */
static int is_fail_exit(const tfx_pack *p, uint32_t pc) {
  if (pc >= p->n_code) return 0;
  const uint32_t *ins = p->code + pc;
  if (TFX_INS_OP(ins) != TFX_OP_LOADB || TFX_INS_RAW(ins, 0) != 0 || TFX_INS_RAW(ins, 1) != 0)
    return 0;
  uint32_t next = pc + TFX_INS_LEN(TFX_OP_LOADB);
  return next < p->n_code && TFX_INS_OP(p->code + next) == TFX_OP_RET;
}

void tfx_xcond_line(tfx_xcond *x, const char *line) {
  if (x->oom) return;
  const char *b = strchr(line, ']');
  if (!b || b[1] != ' ') return;
  char *e;
  unsigned long pcl = strtoul(b + 2, &e, 10);
  const tfx_pack *p = x->pack;
  if (e == b + 2 || pcl >= p->n_code) return;
  uint32_t pc = (uint32_t)pcl;
  uint32_t prog = tfx_pack_prog_at(p, pc);
  if (prog == TFX_PACK_NONE || p->progs[prog].kind != TFX_PK_SELECT) return;
  tfx_xcond_rule *rs = rule_state(x, p->progs[prog].rule);
  if (!rs) return;
  const char *bar = strstr(line, "  | ");
  const char *vals = bar ? bar + 4 : "";
  const uint32_t *ins = p->code + pc;
  uint32_t op = TFX_INS_OP(ins);
  /* a NEXT starts an iteration: the first line reading its variable tells whose it is */
  if (op == TFX_OP_NEXT) {
    tfx_xcond_loop *l = loop_at(x, pc, 1);
    if (!l) return;
    l->var = TFX_INS_RAW(ins, 1);
    l->state = 1; /* waiting for the variable's value */
    return;
  }
  for (uint32_t i = 0; i < x->n_loops; i++) {
    tfx_xcond_loop *l = &x->loops[i];
    const char *s;
    size_t n;
    if (l->state == 1 && value_of(vals, l->var, &s, &n)) {
      char want[32];
      int k = snprintf(want, sizeof want, "<scope %u>", x->scope_id);
      l->state = (size_t)k == n && !memcmp(s, want, n) ? 2 : 3;
    }
  }
  int jump = op == TFX_OP_JT || op == TFX_OP_JF || op == TFX_OP_JNONE;
  if (!jump) {
    if (*vals) { /* the last instruction that read values: what a condition compared */
      free(x->last_vals);
      x->last_vals = values_list(vals);
      x->last_pc = pc;
      if (!x->last_vals) x->oom = 1;
    }
    return;
  }
  const char *s;
  size_t n;
  if (!value_of(vals, TFX_INS_RAW(ins, 0), &s, &n)) return;
  int taken = op == TFX_OP_JT ? n == 4 && !memcmp(s, "true", 4)
              : op == TFX_OP_JF ? !(n == 4 && !memcmp(s, "true", 4))
                                : n == 4 && !memcmp(s, "none", 4);
  if (!taken) return;
  uint32_t target = TFX_INS_RAW(ins, 1);
  tfx_xcond_loop *l = loop_at(x, target, 0);
  if (l && l->state == 2) { /* the scope's iteration was cut short: a `where` leaf */
    rs->where_pc = pc;
    rs->where_cmp_pc = x->last_pc;
    free(rs->where_vals);
    rs->where_vals = x->last_vals ? strdup(x->last_vals) : NULL;
    if (x->last_vals && !rs->where_vals) x->oom = 1;
    rs->have_where = 1;
  } else if (is_fail_exit(p, target)) {
    rs->req_pc = pc;
    rs->req_cmp_pc = x->last_pc;
    free(rs->req_vals);
    rs->req_vals = x->last_vals ? strdup(x->last_vals) : NULL;
    if (x->last_vals && !rs->req_vals) x->oom = 1;
    rs->have_req = 1;
  }
}

/* ---------------------------------------------------------------- printing */

/* The source text of file (a path, or "<stdlib>/..."), malloc'ed, or NULL (*oom set when
 * that is for want of memory; a file that cannot be read just goes without its text). */
static char *source_of(const char *file, size_t *len, int *oom) {
  for (unsigned i = 0; i < tfx_stdlib_count; i++)
    if (!strcmp(tfx_stdlib_files[i].name, file)) {
      *len = (size_t)tfx_stdlib_files[i].len;
      char *t = dup_n(tfx_stdlib_files[i].data, *len);
      if (!t) *oom = 1;
      return t;
    }
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_status st = TFX_OK;
  char *t = tfx_read_file_st(file, 16u << 20, NULL, len, &st, &d);
  tfx_diag_free(&d);
  if (!t && st == TFX_E_NOMEM) *oom = 1;
  return t;
}

/* The leaf condition starting at line:col: up to a top-level `and`, `or`, `{`, `;` or the end
 * of the line. */
static void leaf_text(tfx_strbuf *b, const char *file, unsigned line, unsigned col) {
  size_t len;
  int oom = 0;
  char *t = source_of(file, &len, &oom);
  if (oom) b->oom = 1; /* the caller reports it */
  if (!t) return;
  const char *s = t, *end = t + len;
  for (unsigned l = 1; l < line && s < end; s++)
    if (*s == '\n') l++;
  const char *eol = memchr(s, '\n', (size_t)(end - s));
  if (!eol) eol = end;
  if (col >= 1 && (size_t)(col - 1) < (size_t)(eol - s)) s += col - 1;
  const char *q = s;
  int depth = 0, quote = 0;
  for (; q < eol; q++) {
    if (quote) {
      if (*q == '\\' && q + 1 < eol) q++;
      else if (*q == '"') quote = 0;
      continue;
    }
    if (*q == '"') quote = 1;
    else if (*q == '(' || *q == '[') depth++;
    else if (*q == ')' || *q == ']') {
      if (--depth < 0) break;
    } else if (depth == 0 && (*q == '{' || *q == ';' || *q == ':')) break;
    else if (depth == 0 && q > s && q[-1] == ' ' &&
             ((eol - q >= 4 && !memcmp(q, "and ", 4)) || (eol - q >= 3 && !memcmp(q, "or ", 3)) ||
              (eol - q == 3 && !memcmp(q, "and", 3)) || (eol - q == 2 && !memcmp(q, "or", 2))))
      break;
  }
  while (q > s && (q[-1] == ' ' || (depth > 0 && q[-1] == ':'))) q--;
  tfx_sb_printf(b, ": %.*s%s", (int)(q - s), s, depth > 0 ? " : ...)" : "");
  free(t);
}

static void site(tfx_strbuf *b, const tfx_pack *p, uint32_t pc, int with_text) {
  const tfx_vm_loc *l = tfx_pack_loc_at(p, pc);
  if (!l) {
    tfx_sb_puts(b, "?");
    return;
  }
  const char *f = tfx_pack_file(p, l->file);
  tfx_sb_printf(b, "%s:%u:%u", f, l->line, l->col);
  if (with_text) leaf_text(b, f, l->line, l->col);
}

static void explain_jump(tfx_strbuf *b, const tfx_pack *p, uint32_t jpc, uint32_t cpc,
                         const char *vals) {
  site(b, p, jpc, 1);
  const tfx_vm_loc *lj = tfx_pack_loc_at(p, jpc), *lc = tfx_pack_loc_at(p, cpc);
  if (vals && *vals) {
    if (lc && lj && (lc->line != lj->line || lc->col != lj->col)) { /* decided inside it */
      tfx_sb_puts(b, "\n      decided at ");
      site(b, p, cpc, 1);
    }
    tfx_sb_printf(b, ": compared %s", vals);
  }
  tfx_sb_putc(b, '\n');
}

void tfx_xcond_print(const tfx_xcond *x, uint32_t rule, int where_applies, tfx_strbuf *b) {
  if (!x->per_rule || rule >= x->n_rules) return;
  const tfx_xcond_rule *rs = &x->per_rule[rule];
  if (rs->have_req) {
    tfx_sb_puts(b, "  require failed at ");
    explain_jump(b, x->pack, rs->req_pc, rs->req_cmp_pc, rs->req_vals);
  }
  if (rs->have_where && where_applies) {
    tfx_sb_puts(b, "  where rejected the scope at ");
    explain_jump(b, x->pack, rs->where_pc, rs->where_cmp_pc, rs->where_vals);
  }
}
