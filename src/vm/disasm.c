/* Disassembler, instruction/value printers (shared with the trace) and the docs/opcodes.md
 * generator.
 * Stage: vm (output only). Everything is driven by the tables expanded from the X-macro
 * lists: operands print according to their kind, so a new opcode needs no change here.
 * Output is deterministic (no pointers, no hash order). */
#include <string.h>

#include "vm/vm_int.h"

void tfx_vm_format_value(tfx_strbuf *b, const tfx_value *v, int quote) {
  tfx_vm_value_text(b, NULL, v, quote);
}

/* Pads b with spaces up to column col counted from line start `from`. */
static void pad_to(tfx_strbuf *b, size_t from, size_t col) {
  size_t have = b->len - from;
  if (have < col) tfx_sb_indent(b, (int)(col - have));
  else tfx_sb_putc(b, ' ');
}

void tfx_vm_format_ins(const tfx_pack *p, uint32_t pc, tfx_strbuf *b) {
  const uint32_t *ins = p->code + pc;
  const tfx_opinfo *oi = &tfx_vm_ops[TFX_INS_OP(ins)];
  size_t start = b->len;
  tfx_sb_puts(b, oi->name);
  uint32_t consts[TFX_INS_MAX_OPERANDS];
  unsigned nk = 0;
  for (unsigned i = 0; i < oi->n_operands; i++) {
    uint32_t v = TFX_INS_RAW(ins, i);
    if (i == 0) pad_to(b, start, 12);
    else tfx_sb_puts(b, ", ");
    switch (oi->kinds[i]) {
    case TFX_K_R:
    case TFX_K_R2: tfx_sb_printf(b, "r%u", v); break;
    case TFX_K_N: tfx_sb_printf(b, "%u", v); break;
    case TFX_K_K:
    case TFX_K_KS:
    case TFX_K_KO:
    case TFX_K_KT:
      tfx_sb_printf(b, "k%u", v);
      consts[nk++] = v;
      break;
    case TFX_K_J: tfx_sb_printf(b, "@%u", v); break;
    case TFX_K_I: tfx_sb_printf(b, "#%d", (int32_t)v); break;
    case TFX_K_D: tfx_sb_puts(b, v ? "out" : "in"); break;
    case TFX_K_B: tfx_sb_puts(b, v < TFX_BI__COUNT ? tfx_vm_builtins[v].name : "?"); break;
    case TFX_K_F: tfx_sb_printf(b, "f%u", v); break;
    case TFX_K_P: tfx_sb_printf(b, ".%s", v < TFX_PR__COUNT ? tfx_vm_props[v].name : "?"); break;
    default: break;
    }
  }
  if (nk) {
    pad_to(b, start, 36);
    tfx_sb_puts(b, ";");
    for (unsigned i = 0; i < nk; i++) {
      tfx_sb_putc(b, ' ');
      if (consts[i] < p->n_consts) tfx_vm_format_value(b, &p->consts[consts[i]], 1);
    }
  }
}

static const char *prog_kind(uint32_t k) {
  return k == TFX_PK_SCOPE ? "scope" : k == TFX_PK_SELECT ? "select" : k == TFX_PK_MAP ? "map" : "?";
}

static void put_const(tfx_strbuf *b, const tfx_pack *p, uint32_t k) {
  if (k < p->n_consts) tfx_vm_format_value(b, &p->consts[k], 1);
  else tfx_sb_puts(b, "-");
}

void tfx_vm_disasm(const tfx_pack *p, tfx_strbuf *b) {
  tfx_sb_printf(b, "; tfxb v%u: %u rules, %u programs, %u code words, %u constants, %u features\n",
                TFX_PACK_VERSION, p->n_rules, p->n_progs, p->n_code, p->n_consts, p->n_features);
  for (uint32_t r = 0; r < p->n_rules; r++) {
    const tfx_vm_rule *ru = &p->rules[r];
    tfx_sb_printf(b, "rule %u: %s ", r, ru->kind == TFX_RULE_PASS ? "pass" : ru->kind == TFX_RULE_FLOW ? "rewrite" : "map");
    put_const(b, p, ru->name);
    if (ru->flags & TFX_RULE_GENERAL) tfx_sb_puts(b, " general");
    if (ru->flags & TFX_RULE_GRAPH) tfx_sb_puts(b, " graph");
    if (ru->kind == TFX_RULE_FLOW) {
      tfx_sb_puts(b, " root ");
      put_const(b, p, ru->from);
    }
    if (ru->kind == TFX_RULE_MAP) {
      tfx_sb_printf(b, " priority %d from ", ru->priority);
      put_const(b, p, ru->from);
      tfx_sb_puts(b, " to ");
      put_const(b, p, ru->to);
    }
    if (ru->prog != TFX_PACK_NONE) tfx_sb_printf(b, " main prog %u", ru->prog);
    if (ru->file != TFX_PACK_NONE) tfx_sb_printf(b, " [%s:%u]", tfx_pack_file(p, ru->file), ru->line);
    tfx_sb_putc(b, '\n');
    for (uint32_t g = 0; g < ru->n_groups; g++) {
      const tfx_vm_group *gr = &p->groups[ru->group_first + g];
      tfx_sb_printf(b, "  group %u\n", g);
      for (uint32_t l = 0; l < gr->n_layers; l++) {
        const tfx_vm_layer *la = &p->layers[gr->layer_first + l];
        tfx_sb_printf(b, "    layer %u\n", l);
        for (uint32_t i = 0; i < la->n_patterns; i++) {
          const tfx_vm_pattern *pt = &p->patterns[la->pattern_first + i];
          tfx_sb_puts(b, "      pattern ");
          put_const(b, p, pt->sub_type);
          tfx_sb_printf(b, " prog %u\n", pt->prog);
        }
      }
    }
  }
  if (p->n_consts) tfx_sb_puts(b, "constants:\n");
  for (uint32_t k = 0; k < p->n_consts; k++) {
    tfx_sb_printf(b, "  k%u = ", k);
    put_const(b, p, k);
    tfx_sb_putc(b, '\n');
  }
  if (p->n_features) tfx_sb_puts(b, "features:\n");
  for (uint32_t f = 0; f < p->n_features; f++) {
    const tfx_vm_feature *fe = &p->features[f];
    tfx_sb_printf(b, "  f%u %s ", f, fe->opcode < TFX_OP__COUNT ? tfx_vm_ops[fe->opcode].name : "?");
    put_const(b, p, fe->text);
    if (fe->file != TFX_PACK_NONE) tfx_sb_printf(b, " [%s:%u]", tfx_pack_file(p, fe->file), fe->line);
    tfx_sb_putc(b, '\n');
  }
  for (uint32_t i = 0; i < p->n_progs; i++) {
    const tfx_vm_prog *pr = &p->progs[i];
    tfx_sb_printf(b, "prog %u: %s, %u regs, code [%u, %u)", i, prog_kind(pr->kind), pr->nregs,
                  pr->start, pr->end);
    if (pr->rule != TFX_PACK_NONE) {
      tfx_sb_printf(b, ", rule %u ", pr->rule);
      put_const(b, p, p->rules[pr->rule].name);
    }
    tfx_sb_putc(b, '\n');
    for (uint32_t pc = pr->start; pc < pr->end; pc += TFX_INS_LEN(TFX_INS_OP(p->code + pc))) {
      size_t line = b->len;
      tfx_sb_printf(b, "  %04u  ", pc);
      tfx_vm_format_ins(p, pc, b);
      const tfx_vm_loc *l = tfx_pack_loc_at(p, pc);
      if (l) {
        pad_to(b, line, 56);
        tfx_sb_printf(b, "[%s:%u]", tfx_pack_file(p, l->file), l->line);
      }
      tfx_sb_putc(b, '\n');
    }
  }
}

/* ---------------------------------------------------------------- docs/opcodes.md */

static const char *progs_doc(unsigned m) {
  switch (m) {
  case TFX_PK_ANY: return "any";
  case TFX_PK_SCOPE: return "scope";
  case TFX_PK_SELECT: return "select";
  case TFX_PK_MAP: return "map";
  case TFX_PK_EMIT: return "select, map";
  default: return "?";
  }
}

/* Markdown table cell text: '|' escaped. */
static void cell(tfx_strbuf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '|') tfx_sb_puts(b, "\\|");
    else tfx_sb_putc(b, *s);
  }
}

void tfx_vm_opcodes_doc(tfx_strbuf *b) {
  tfx_sb_puts(b,
              "# tfxc VM opcodes\n\n"
              "<!-- Generated by tfxc_gen_opcodes from src/vm/opcodes.h. Do not edit: change the\n"
              "     X-macro lists and rebuild the `tfxc_opcodes_md` target. -->\n\n"
              "Instructions are variable length, in 32-bit words: word 0 holds the opcode in its\n"
              "low 8 bits (the other 24 bits are zero), then one word per operand (`a`, `b`, `c`,\n"
              "`d`). `R[x]` is register x of the frame (at most 256), `K[x]` constant x of the\n"
              "pack. Jump targets are absolute code addresses inside the same program. The\n"
              "verifier checks every operand against its kind before a pack can run.\n\n"
              "## Operand kinds\n\n| kind | shown as | meaning |\n|---|---|---|\n");
  for (unsigned k = 1; k < TFX_K__COUNT; k++) {
    tfx_sb_printf(b, "| `%s` | %s | ", tfx_vm_kinds[k].name, tfx_vm_kinds[k].doc);
    cell(b, tfx_vm_kinds[k].meaning);
    tfx_sb_puts(b, " |\n");
  }
  tfx_sb_printf(b, "\n## Opcodes (%d)\n\n| # | opcode | operands | programs | effect | synopsis |\n"
                   "|---|---|---|---|---|---|\n", (int)TFX_OP__COUNT);
  for (unsigned op = 0; op < TFX_OP__COUNT; op++) {
    const tfx_opinfo *oi = &tfx_vm_ops[op];
    tfx_sb_printf(b, "| %u | `%s` | ", op, oi->name);
    for (unsigned i = 0; i < oi->n_operands; i++)
      tfx_sb_printf(b, "%s%c:%s", i ? ", " : "", "abcd"[i], tfx_vm_kinds[oi->kinds[i]].doc);
    if (!oi->n_operands) tfx_sb_puts(b, "-");
    tfx_sb_printf(b, " | %s | `", progs_doc(oi->progs));
    cell(b, oi->effect);
    tfx_sb_puts(b, "` | ");
    cell(b, oi->synopsis);
    if (oi->flags & TFX_OPF_END) tfx_sb_puts(b, " (ends control flow)");
    tfx_sb_puts(b, " |\n");
  }
  tfx_sb_printf(b, "\n## Builtins (`CALL`, %d)\n\n| id | name | args | programs | synopsis |\n"
                   "|---|---|---|---|---|\n", (int)TFX_BI__COUNT);
  for (unsigned i = 0; i < TFX_BI__COUNT; i++) {
    const tfx_builtin_info *bi = &tfx_vm_builtins[i];
    tfx_sb_printf(b, "| %u | `%s` | ", i, bi->name);
    if (bi->min_args == bi->max_args) tfx_sb_printf(b, "%u", bi->min_args);
    else tfx_sb_printf(b, "%u..%u", bi->min_args, bi->max_args);
    tfx_sb_printf(b, " | %s | ", progs_doc(bi->progs));
    cell(b, bi->synopsis);
    tfx_sb_puts(b, " |\n");
  }
  tfx_sb_printf(b, "\n## Properties (`PROP`, %d)\n\n| id | name | on | synopsis |\n|---|---|---|---|\n",
                (int)TFX_PR__COUNT);
  for (unsigned i = 0; i < TFX_PR__COUNT; i++) {
    const tfx_prop_info *pi = &tfx_vm_props[i];
    tfx_sb_printf(b, "| %u | `%s` | %s | ", i, pi->name,
                  pi->on == TFX_PROP_ON_BOTH ? "scope, node" : pi->on == TFX_PROP_ON_SCOPE ? "scope" : "node");
    cell(b, pi->synopsis);
    tfx_sb_puts(b, " |\n");
  }
}
