/* The tools over rules (tfxc.h "Tools"): compile to a pack, disassemble, list.
 * Stage: api. Input: the session's rule sources (-r paths and buffers in order, then the
 * stdlib unless the no-stdlib option), its -W options, verbose level and limits (rule-depth;
 * output-size for the pack). Output: new buffers (tfxc_free) holding exactly what `tfxc
 * compile` writes, `tfxc disasm` and `tfxc list-rules [--json]` print. The listing is read from
 * the pack's rule table, so a directory and its compiled pack list the same: in registration
 * order (scope passes, dataflow rewrites, op maps), then the CANN prototypes of the user's
 * prototype files (-r *.cannops.tsv) that the run uses (an overridden one is not listed). */
#define _POSIX_C_SOURCE 200809L
#define TFXC_BUILDING_LIBRARY 1
#include "tfxc/tfxc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/status.h"
#include "api/tools_int.h"
#include "cann/cann.h"
#include "passes/passes.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "vm/bytecode.h"
#include "vm/pack.h"
#include "vm/vm.h"

/* ---------------------------------------------------------------- building the rules */

/* The rules of the session's options into *pack (and the run's prototype table when protos is
 * not NULL). Returns an exit code (reported). */
static int build(tfxc_session *s, tfx_pack *pack, tfx_cann_table **protos) {
  tfx_rules_spec r;
  tfx_rules_spec_from_options(&r, tfx_api_options(s));
  return tfx_rules_build(&r, pack, protos, tfx_api_diag(s));
}

tfxc_status tfxc_compile_rules(tfxc_session *s, void **pack, size_t *len, tfxc_pack_info *info) {
  if (!s) return TFXC_MISUSE;
  if (info) memset(info, 0, sizeof *info);
  tfxc_status st0 = tfx_api_result_start(s, "tfxc_compile_rules", pack, len, 1);
  if (st0 != TFXC_OK) return st0;
  tfx_pack p;
  tfx_cann_table *protos = NULL;
  int rc = build(s, &p, &protos);
  if (rc != 0) return tfx_api_finish(s, tfx_api_status_from_rc(rc));
  if (info) {
    info->rules = p.n_rules;
    info->programs = p.n_progs;
    info->has_protos = protos != NULL;
  }
  tfx_rules_protos_free(protos);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  tfxc_status st = TFXC_OK;
  if (tfx_pack_write(&p, &sb) != 0 || sb.oom) {
    tfx_error(tfx_api_diag(s), NULL, 0, 0, "out of memory writing the pack");
    tfx_sb_free(&sb);
    st = TFXC_NOMEM;
  } else {
    st = tfx_api_give(s, &sb, pack, len);
  }
  tfx_pack_free(&p);
  return tfx_api_finish(s, st);
}

tfxc_status tfxc_disasm(tfxc_session *s, char **text, size_t *len) {
  if (!s) return TFXC_MISUSE;
  tfxc_status st0 = tfx_api_result_start(s, "tfxc_disasm", (void **)text, len, 0);
  if (st0 != TFXC_OK) return st0;
  tfx_pack p;
  int rc = build(s, &p, NULL);
  if (rc != 0) return tfx_api_finish(s, tfx_api_status_from_rc(rc));
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  tfx_vm_disasm(&p, &sb);
  tfx_pack_free(&p);
  return tfx_api_finish(s, tfx_api_give(s, &sb, (void **)text, len));
}

/* ---------------------------------------------------------------- list-rules */

/* The string elements of list constant k (at most cap) into out; returns how many. */
static uint32_t list_strs(const tfx_pack *p, uint32_t k, const char **out, uint32_t cap) {
  if (k >= p->n_consts || p->consts[k].tag != TFX_V_LIST || p->list_first[k] == TFX_PACK_NONE)
    return 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->consts[k].n && n < cap; i++) {
    const char *s = tfx_pack_str(p, p->list_elems[p->list_first[k] + i]);
    if (s) out[n++] = s;
  }
  return n;
}

/* A graph map stores "graph" as its target; its CANN types are those of the inner nodes.
 * They are recovered from the map program: NODE_NEW's type register, loaded by LOADK from a
 * string constant (the compiler's shape for `node n: Type(...)`). Distinct, in program order. */
static uint32_t graph_types(const tfx_pack *p, uint32_t prog, const char **out, uint32_t cap) {
  if (prog >= p->n_progs) return 0;
  const tfx_vm_prog *pr = &p->progs[prog];
  uint32_t regk[TFX_VM_MAX_REGS];
  for (uint32_t i = 0; i < TFX_VM_MAX_REGS; i++) regk[i] = TFX_PACK_NONE;
  uint32_t n = 0;
  for (uint32_t pc = pr->start; pc < pr->end && pc < p->n_code;) {
    const uint32_t *ins = &p->code[pc];
    tfx_opcode op = TFX_INS_OP(ins);
    if ((unsigned)op >= TFX_OP__COUNT) break;
    const tfx_opinfo *oi = &tfx_vm_ops[op];
    if (op == TFX_OP_LOADK) {
      uint32_t r = ins[1];
      if (r < TFX_VM_MAX_REGS) regk[r] = ins[2];
    } else if (op == TFX_OP_NODE_NEW) {
      uint32_t r = ins[2];
      const char *s = r < TFX_VM_MAX_REGS ? tfx_pack_str(p, regk[r]) : NULL;
      int dup = 0;
      for (uint32_t i = 0; s && i < n; i++) dup |= strcmp(out[i], s) == 0;
      if (s && !dup && n < cap) out[n++] = s;
    } else if (oi->n_operands > 0 && (oi->kinds[0] == TFX_K_R || oi->kinds[0] == TFX_K_R2)) {
      uint32_t r = ins[1]; /* most instructions write their first register operand */
      if (r < TFX_VM_MAX_REGS) regk[r] = TFX_PACK_NONE;
      if (oi->kinds[0] == TFX_K_R2 && r + 1 < TFX_VM_MAX_REGS) regk[r + 1] = TFX_PACK_NONE;
    }
    pc += TFX_INS_LEN(op);
  }
  return n;
}

#define MAX_TYPES 256

typedef struct entry {
  const char *name, *kind, *file;
  unsigned line;
  int is_map, general;
  int is_flow;      /* a dataflow rewrite: general like a scope pass, from (root types) -> to */
  const char *from[MAX_TYPES];
  uint32_t n_from;
  const char *to[MAX_TYPES];
  uint32_t n_to;
  int to_is_list;
} entry;

static void fill(const tfx_pack *p, uint32_t i, entry *e) {
  const tfx_vm_rule *ru = &p->rules[i];
  memset(e, 0, sizeof *e);
  e->name = tfx_pack_str(p, ru->name);
  if (!e->name) e->name = "?";
  e->is_map = ru->kind == TFX_RULE_MAP;
  e->is_flow = ru->kind == TFX_RULE_FLOW;
  e->kind = e->is_map ? "map" : e->is_flow ? "flow" : "scope";
  e->general = (ru->flags & TFX_RULE_GENERAL) != 0;
  e->file = tfx_pack_file(p, ru->file);
  e->line = ru->line;
  if (!e->is_map && !e->is_flow) return;
  e->n_from = list_strs(p, ru->from, e->from, MAX_TYPES);
  if (e->is_flow) /* a rewrite's from: root types, then "" and the engine's second index level */
    for (uint32_t k = 0; k < e->n_from; k++)
      if (!e->from[k][0]) e->n_from = k;
  const char *to = tfx_pack_str(p, ru->to);
  if (ru->to < p->n_consts && p->consts[ru->to].tag == TFX_V_LIST) {
    e->n_to = list_strs(p, ru->to, e->to, MAX_TYPES);
    e->to_is_list = 1;
  } else if ((ru->flags & TFX_RULE_GRAPH) &&
             (e->n_to = graph_types(p, ru->prog, e->to, MAX_TYPES)) > 0) {
    e->to_is_list = 1;
  } else {
    e->to[0] = to ? to : "?";
    e->n_to = 1;
  }
}

static void json_strs(tfx_strbuf *b, const char *const *v, uint32_t n) {
  tfx_sb_putc(b, '[');
  for (uint32_t i = 0; i < n; i++) {
    if (i) tfx_sb_puts(b, ", ");
    tfx_sb_json_str(b, v[i], strlen(v[i]));
  }
  tfx_sb_putc(b, ']');
}

/* The ops of a merged prototype table that come from the user's files: a prefix of its ops
 * (tfx_cann_add registers them before tfx_cann_add_base appends the stdlib's). */
static uint32_t n_user_protos(const tfx_cann_table *t, tfx_diag *d) {
  if (!t) return 0;
  const tfx_cann_table *std = tfx_cann_stdlib(d);
  const char *std_file = std && std->n_ops ? std->ops[0].file : NULL;
  uint32_t n = 0;
  while (n < t->n_ops && t->ops[n].file != std_file) n++;
  return n;
}

static void json_ports(tfx_strbuf *b, const tfx_cann_port *v, uint32_t n) {
  tfx_sb_putc(b, '[');
  for (uint32_t i = 0; i < n; i++) {
    if (i) tfx_sb_puts(b, ", ");
    tfx_sb_json_str(b, v[i].name, strlen(v[i].name));
  }
  tfx_sb_putc(b, ']');
}

static void render_json(const tfx_pack *p, const tfx_cann_table *t, uint32_t n_protos, entry *e,
                        tfx_strbuf *b) {
  if (p->n_rules == 0 && n_protos == 0) {
    tfx_sb_puts(b, "[]\n");
    return;
  }
  tfx_sb_puts(b, "[\n");
  for (uint32_t i = 0; i < p->n_rules; i++) {
    fill(p, i, e);
    char src[64];
    snprintf(src, sizeof src, ":%u", e->line);
    tfx_sb_puts(b, "  {\"name\": ");
    tfx_sb_json_str(b, e->name, strlen(e->name));
    tfx_sb_printf(b, ", \"kind\": \"%s\"", e->kind);
    if (!e->is_map) tfx_sb_printf(b, ", \"general\": %s", e->general ? "true" : "false");
    tfx_sb_puts(b, ", \"source\": ");
    tfx_strbuf s;
    tfx_sb_init(&s);
    tfx_sb_puts(&s, e->file);
    tfx_sb_puts(&s, src);
    tfx_sb_json_str(b, tfx_sb_cstr(&s), s.len);
    if (s.oom) b->oom = 1; /* else the entry would show an empty source */
    tfx_sb_free(&s);
    if (e->is_map || e->is_flow) {
      tfx_sb_puts(b, ", \"from\": ");
      json_strs(b, e->from, e->n_from);
      tfx_sb_puts(b, ", \"to\": ");
      if (e->to_is_list) json_strs(b, e->to, e->n_to);
      else tfx_sb_json_str(b, e->to[0], strlen(e->to[0]));
    }
    tfx_sb_puts(b, i + 1 < p->n_rules || n_protos ? "},\n" : "}\n");
  }
  for (uint32_t i = 0; i < n_protos; i++) {
    const tfx_cann_op *op = &t->ops[i];
    tfx_sb_puts(b, "  {\"name\": ");
    tfx_sb_json_str(b, op->name, strlen(op->name));
    tfx_sb_puts(b, ", \"kind\": \"proto\", \"source\": ");
    tfx_strbuf s;
    tfx_sb_init(&s);
    tfx_sb_printf(&s, "%s:%u", op->file, (unsigned)op->line);
    tfx_sb_json_str(b, tfx_sb_cstr(&s), s.len);
    if (s.oom) b->oom = 1; /* else the entry would show an empty source */
    tfx_sb_free(&s);
    tfx_sb_puts(b, ", \"inputs\": ");
    json_ports(b, op->in, op->n_in);
    tfx_sb_puts(b, ", \"outputs\": ");
    json_ports(b, op->out, op->n_out);
    tfx_sb_puts(b, i + 1 < n_protos ? "},\n" : "}\n");
  }
  tfx_sb_puts(b, "]\n");
}

static void join(tfx_strbuf *b, const char *const *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) tfx_sb_puts(b, ", ");
    tfx_sb_puts(b, v[i]);
  }
}

static void join_ports(tfx_strbuf *b, const tfx_cann_port *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (i) tfx_sb_puts(b, ", ");
    tfx_sb_puts(b, v[i].name);
  }
}

static void render_text(const tfx_pack *p, const tfx_cann_table *t, uint32_t n_protos, entry *e,
                        tfx_strbuf *b) {
  size_t wname = 4, wsrc = 6;
  for (uint32_t i = 0; i < p->n_rules; i++) {
    fill(p, i, e);
    char src[32];
    size_t ls = strlen(e->file) + (size_t)snprintf(src, sizeof src, ":%u", e->line);
    if (strlen(e->name) > wname) wname = strlen(e->name);
    if (ls > wsrc) wsrc = ls;
  }
  for (uint32_t i = 0; i < n_protos; i++) {
    char src[32];
    size_t ls = strlen(t->ops[i].file) + (size_t)snprintf(src, sizeof src, ":%u", (unsigned)t->ops[i].line);
    if (strlen(t->ops[i].name) > wname) wname = strlen(t->ops[i].name);
    if (ls > wsrc) wsrc = ls;
  }
  tfx_sb_printf(b, "%-5s  %-*s  %-7s  %-*s  %s\n", "kind", (int)wname, "name", "general", (int)wsrc,
                "source", "from -> to");
  for (uint32_t i = 0; i < p->n_rules; i++) {
    fill(p, i, e);
    tfx_strbuf src;
    tfx_sb_init(&src);
    tfx_sb_printf(&src, "%s:%u", e->file, e->line);
    tfx_sb_printf(b, "%-5s  %-*s  %-7s  ", e->kind, (int)wname, e->name,
                  e->is_map ? "-" : e->general ? "yes" : "no");
    if (e->is_map || e->is_flow) {
      tfx_sb_printf(b, "%-*s  ", (int)wsrc, tfx_sb_cstr(&src));
      join(b, e->from, e->n_from);
      tfx_sb_puts(b, " -> ");
      if (e->to_is_list) tfx_sb_puts(b, "graph: ");
      join(b, e->to, e->n_to);
    } else {
      tfx_sb_puts(b, tfx_sb_cstr(&src));
    }
    tfx_sb_putc(b, '\n');
    if (src.oom) b->oom = 1;
    tfx_sb_free(&src);
  }
  for (uint32_t i = 0; i < n_protos; i++) {
    const tfx_cann_op *op = &t->ops[i];
    tfx_strbuf src;
    tfx_sb_init(&src);
    tfx_sb_printf(&src, "%s:%u", op->file, (unsigned)op->line);
    tfx_sb_printf(b, "%-5s  %-*s  %-7s  %-*s  ", "proto", (int)wname, op->name, "-", (int)wsrc,
                  tfx_sb_cstr(&src));
    join_ports(b, op->in, op->n_in);
    tfx_sb_puts(b, op->n_in ? " -> " : "-> ");
    join_ports(b, op->out, op->n_out);
    tfx_sb_putc(b, '\n');
    if (src.oom) b->oom = 1;
    tfx_sb_free(&src);
  }
  tfx_sb_printf(b, "%u rule%s", p->n_rules, p->n_rules == 1 ? "" : "s");
  if (n_protos) tfx_sb_printf(b, ", %u CANN prototype%s", n_protos, n_protos == 1 ? "" : "s");
  tfx_sb_putc(b, '\n');
}

tfxc_status tfxc_list_rules(tfxc_session *s, int json, char **text, size_t *len) {
  if (!s) return TFXC_MISUSE;
  tfxc_status st0 = tfx_api_result_start(s, "tfxc_list_rules", (void **)text, len, 0);
  if (st0 != TFXC_OK) return st0;
  entry *e = malloc(sizeof *e);
  if (!e) {
    tfx_error(tfx_api_diag(s), NULL, 0, 0, "out of memory");
    return tfx_api_finish(s, TFXC_NOMEM);
  }
  tfx_pack p;
  tfx_cann_table *protos = NULL;
  int rc = build(s, &p, &protos);
  if (rc != 0) {
    free(e);
    return tfx_api_finish(s, tfx_api_status_from_rc(rc));
  }
  uint32_t n_protos = n_user_protos(protos, tfx_api_diag(s));
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  if (json) render_json(&p, protos, n_protos, e, &sb);
  else render_text(&p, protos, n_protos, e, &sb);
  tfx_pack_free(&p);
  tfx_rules_protos_free(protos);
  free(e);
  return tfx_api_finish(s, tfx_api_give(s, &sb, (void **)text, len));
}
