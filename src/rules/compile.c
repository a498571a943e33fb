/* Rule compiler: a checked rule set -> one verified bytecode pack (see compile.h).
 * Stage: rules, back end. Input: the registered passes and op maps (after tfx_rules_check).
 * Output: a tfx_pack built only through vm/asm.h: a scope program per pattern, a selection
 * program per pass, a map program per op map. Statements and fuse blocks are here,
 * expressions in compile_expr.c; block recursion is bounded by TFX_AST_MAX_DEPTH. */
#include "rules/compile.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/compile_int.h"
#include "util/status.h"
#include "util/arena.h"

#define EMIT(op, a, b, cc_) tfx_asm_emit(&c->as, TFX_OP_##op, (a), (b), (cc_))
#define EMIT4(op, a, b, cc_, d) tfx_asm_emit4(&c->as, TFX_OP_##op, (a), (b), (cc_), (d))
#define KSTR(s) ((int64_t)tfx_asm_const_str(&c->as, (s)))

/* ---------------------------------------------------------------- diagnostics, locations */

void tfx_cc_error(tfx_cc *c, tfx_rules_loc loc, const char *fmt, ...) {
  char buf[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tfx_rules_report(c->rs, c->d, TFX_SEV_ERROR, loc, "%s", buf);
  c->errors++;
}

void tfx_cc_oom(tfx_cc *c) {
  if (c->oom) return;
  c->oom = 1;
  tfx_error(c->d, NULL, 0, 0, "out of memory while compiling rules");
}

static uint32_t file_index(tfx_cc *c, uint32_t file) {
  if (file >= c->n_files) return TFX_PACK_NONE;
  if (c->files[file] == TFX_PACK_NONE)
    c->files[file] = tfx_asm_file(&c->as, tfx_ruleset_source(c->rs, file)->name);
  return c->files[file];
}

void tfx_cc_loc(tfx_cc *c, tfx_rules_loc loc) {
  unsigned line, col;
  tfx_ruleset_linecol(c->rs, loc, &line, &col);
  uint32_t f = file_index(c, loc.file);
  if (f != TFX_PACK_NONE) tfx_asm_loc(&c->as, f, line, col);
}

static unsigned line_of(tfx_cc *c, tfx_rules_loc loc) {
  unsigned line, col;
  tfx_ruleset_linecol(c->rs, loc, &line, &col);
  return line;
}

/* Immediate operands are int32; rule-language integers are int64. */
static int imm_ok(tfx_cc *c, const tfx_ast_expr *e, const char *what, int64_t *v) {
  if (!e || e->kind != TFX_AST_E_INT) {
    if (e) tfx_cc_error(c, e->loc, "%s takes an integer literal", what);
    return 0;
  }
  if (e->u.i < INT32_MIN || e->u.i > INT32_MAX) {
    tfx_cc_error(c, e->loc, "%s %lld is out of range (at most %d)", what, (long long)e->u.i, INT32_MAX);
    return 0;
  }
  *v = e->u.i;
  return 1;
}

/* ---------------------------------------------------------------- feature text */

static void put_str_lit(tfx_strbuf *b, const char *s, size_t n) {
  tfx_sb_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    switch (ch) {
      case '"': tfx_sb_puts(b, "\\\""); break;
      case '\\': tfx_sb_puts(b, "\\\\"); break;
      case '\n': tfx_sb_puts(b, "\\n"); break;
      case '\t': tfx_sb_puts(b, "\\t"); break;
      case '\r': tfx_sb_puts(b, "\\r"); break;
      case 0: tfx_sb_puts(b, "\\0"); break;
      default:
        if (ch < 0x20 || ch == 0x7f) tfx_sb_printf(b, "\\x%02X", ch);
        else tfx_sb_putc(b, (char)ch);
    }
  }
  tfx_sb_putc(b, '"');
}

/* A literal as the rule language writes it (floats in their shortest round-trip form). */
static void put_lit(tfx_strbuf *b, const tfx_ast_expr *e) {
  if (!e) return;
  switch (e->kind) {
    case TFX_AST_E_INT: tfx_sb_printf(b, "%lld", (long long)e->u.i); break;
    case TFX_AST_E_BOOL: tfx_sb_puts(b, e->u.b ? "true" : "false"); break;
    case TFX_AST_E_STRING: put_str_lit(b, e->u.str.s, e->u.str.len); break;
    case TFX_AST_E_FLOAT: {
      double f = e->u.f;
      if (isnan(f)) {
        tfx_sb_puts(b, "nan");
      } else if (isinf(f)) {
        tfx_sb_puts(b, f < 0 ? "-inf" : "inf");
      } else {
        char buf[40];
        for (int prec = 1; prec <= 17; prec++) {
          snprintf(buf, sizeof buf, "%.*g", prec, f);
          if (strtod(buf, NULL) == f) break;
        }
        tfx_sb_puts(b, buf);
        if (!strpbrk(buf, ".e")) tfx_sb_puts(b, ".0");
      }
      break;
    }
    default: tfx_sb_puts(b, "?"); break;
  }
}

static void feature_text(tfx_strbuf *b, const tfx_ast_feature *f) {
  tfx_sb_reset(b);
  switch (f->kind) {
    case TFX_AST_F_COUNT_EQ: tfx_sb_printf(b, "count %s == ", f->op_type.s); put_lit(b, f->value); break;
    case TFX_AST_F_COUNT_STEP:
      tfx_sb_printf(b, "count %s %% ", f->op_type.s);
      put_lit(b, f->step);
      tfx_sb_puts(b, " == ");
      put_lit(b, f->value);
      break;
    case TFX_AST_F_PRESENT: tfx_sb_printf(b, "present %s", f->op_type.s); break;
    case TFX_AST_F_ABSENT: tfx_sb_printf(b, "absent %s", f->op_type.s); break;
    case TFX_AST_F_ATTR_EQ: tfx_sb_printf(b, "attr %s.%s == ", f->op_type.s, f->attr.s); put_lit(b, f->value); break;
    case TFX_AST_F_SCOPES_EQ: tfx_sb_printf(b, "scopes %s == ", f->sub_type.s); put_lit(b, f->value); break;
    case TFX_AST_F_NAME_EQ: tfx_sb_puts(b, "name == "); put_lit(b, f->value); break;
    case TFX_AST_F_HAS_CHILD: tfx_sb_puts(b, "has_child "); put_lit(b, f->value); break;
  }
}

/* ---------------------------------------------------------------- scope programs */

/* Ascend's order (ScopePatternImpl::Match): op-type features, attribute features, scope features. */
static int feature_class(const tfx_ast_feature *f) {
  switch (f->kind) {
    case TFX_AST_F_COUNT_EQ: case TFX_AST_F_COUNT_STEP: case TFX_AST_F_PRESENT: case TFX_AST_F_ABSENT: return 0;
    case TFX_AST_F_ATTR_EQ: return 1;
    default: return 2;
  }
}

static const tfx_opcode feature_op[] = {
    [TFX_AST_F_COUNT_EQ] = TFX_OP_SC_COUNT, [TFX_AST_F_COUNT_STEP] = TFX_OP_SC_STEP,
    [TFX_AST_F_PRESENT] = TFX_OP_SC_PRESENT, [TFX_AST_F_ABSENT] = TFX_OP_SC_ABSENT,
    [TFX_AST_F_ATTR_EQ] = TFX_OP_SC_ATTR, [TFX_AST_F_SCOPES_EQ] = TFX_OP_SC_SUBTYPES,
    [TFX_AST_F_NAME_EQ] = TFX_OP_SC_NAME, [TFX_AST_F_HAS_CHILD] = TFX_OP_SC_MASK};

static void emit_feature(tfx_cc *c, const tfx_ast_feature *f) {
  tfx_asm *as = &c->as;
  tfx_opcode op = feature_op[f->kind];
  feature_text(&c->tmp, f);
  if (c->tmp.oom) {
    tfx_cc_oom(c);
    return;
  }
  tfx_cc_loc(c, f->loc);
  uint32_t fid = tfx_asm_feature(as, op, tfx_sb_cstr(&c->tmp), file_index(c, f->loc.file), line_of(c, f->loc));
  int64_t v = 0, k = 0;
  switch (f->kind) {
    case TFX_AST_F_COUNT_EQ:
      if (imm_ok(c, f->value, "'count'", &v)) EMIT(SC_COUNT, fid, KSTR(f->op_type.s), v);
      break;
    case TFX_AST_F_COUNT_STEP:
      if (imm_ok(c, f->step, "the step of 'count T % k'", &k) && imm_ok(c, f->value, "'count'", &v)) {
        if (k <= 0) tfx_cc_error(c, f->step->loc, "the step of 'count T %% k' must be positive");
        else EMIT4(SC_STEP, fid, KSTR(f->op_type.s), v, k);
      }
      break;
    case TFX_AST_F_PRESENT:
    case TFX_AST_F_ABSENT:
      tfx_asm_emit(as, op, fid, KSTR(f->op_type.s), 0);
      break;
    case TFX_AST_F_ATTR_EQ: {
      const tfx_ast_expr *x = f->value;
      if (!x || (x->kind != TFX_AST_E_INT && x->kind != TFX_AST_E_FLOAT && x->kind != TFX_AST_E_STRING &&
                 x->kind != TFX_AST_E_BOOL)) {
        tfx_cc_error(c, x ? x->loc : f->loc, "'attr' compares with an integer, float, string or bool literal");
        break;
      }
      EMIT4(SC_ATTR, fid, KSTR(f->op_type.s), KSTR(f->attr.s), tfx_cc_const(c, x));
      break;
    }
    case TFX_AST_F_SCOPES_EQ:
      if (imm_ok(c, f->value, "'scopes'", &v)) EMIT(SC_SUBTYPES, fid, KSTR(f->sub_type.s), v);
      break;
    case TFX_AST_F_NAME_EQ:
    case TFX_AST_F_HAS_CHILD:
      if (!f->value || f->value->kind != TFX_AST_E_STRING)
        tfx_cc_error(c, f->value ? f->value->loc : f->loc, "this feature takes a string literal");
      else
        tfx_asm_emit(as, op, fid, tfx_cc_const(c, f->value), 0);
      break;
  }
}

static uint32_t compile_pattern(tfx_cc *c, uint32_t rule, const tfx_ast_pattern *pt) {
  tfx_asm *as = &c->as;
  uint32_t prog = tfx_asm_prog_begin(as, TFX_PK_SCOPE, rule);
  c->top = 1; /* r0 = the candidate scope */
  for (int cls = 0; cls < 3; cls++)
    for (const tfx_ast_feature *f = pt->features; f; f = f->next)
      if (feature_class(f) == cls) emit_feature(c, f);
  tfx_cc_loc(c, pt->loc);
  uint32_t fid = tfx_asm_feature(as, TFX_OP_SC_NORETVAL, "no _Retval node (hidden rule)",
                                 file_index(c, pt->loc.file), line_of(c, pt->loc));
  EMIT(SC_NORETVAL, fid, 0, 0);
  EMIT(MATCH, KSTR(pt->sub_type.s), 0, 0);
  tfx_asm_prog_end(as);
  return prog;
}

/* ---------------------------------------------------------------- statements */

/* What a block of statements is compiled for. */
typedef enum { BODY_FUSE, BODY_MAP, BODY_NODE } body_kind;

typedef struct body {
  body_kind kind;
  uint32_t members;   /* fuse with `scopes` statements: register holding the member list */
  uint32_t named;     /* fuse with `name` only in nested blocks: bool register "FR_NAME done" */
} body;

static int has_stmt(const tfx_ast_stmt *list, tfx_ast_stmt_kind kind) {
  for (const tfx_ast_stmt *st = list; st; st = st->next)
    if (st->kind == kind) return 1;
  return 0;
}

/* 1 when a statement of this kind occurs in list or its nested blocks. */
static int has_stmt_deep(const tfx_ast_stmt *list, tfx_ast_stmt_kind kind) {
  for (const tfx_ast_stmt *st = list; st; st = st->next) {
    if (st->kind == kind) return 1;
    if (st->kind == TFX_AST_S_IF && st->depth <= TFX_AST_MAX_DEPTH &&
        (has_stmt_deep(st->body, kind) || has_stmt_deep(st->else_body, kind)))
      return 1;
  }
  return 0;
}

/* FR_NAME for the default result name: the first member's name without its trailing '/'
 * (nothing when there is no member). members holds a scope (is_list 0) or a list of scopes. */
static void default_name(tfx_cc *c, uint32_t members, int is_list, tfx_rules_loc loc) {
  tfx_asm *as = &c->as;
  uint32_t mark = c->top;
  uint32_t t = tfx_cc_alloc(c, 1, loc), u = tfx_cc_alloc(c, 1, loc), v = tfx_cc_alloc(c, 2, loc);
  uint32_t keep = tfx_asm_label_new(as), none = tfx_asm_label_new(as);
  if (is_list) {
    EMIT(LOADI, t, 0, 0);
    EMIT(INDEX, t, members, t);
    EMIT(PROP, t, t, TFX_PR_name);
  } else {
    EMIT(PROP, t, members, TFX_PR_name);
  }
  EMIT(JNONE, t, none, 0);
  EMIT(LOADK, u, KSTR("/"), 0);
  EMIT(ENDS, u, t, u);
  EMIT(JF, u, keep, 0);
  EMIT(LOADI, v, 0, 0);
  EMIT(LOADI, v + 1, -1, 0);
  EMIT4(SLICE, t, t, v, v + 1);
  tfx_asm_label_here(as, keep);
  EMIT(FR_NAME, t, 0, 0);
  tfx_asm_label_here(as, none);
  c->top = mark;
}

static void compile_block(tfx_cc *c, const tfx_ast_stmt *list, body *b);

static void node_stmt(tfx_cc *c, const tfx_ast_stmt *st) {
  uint32_t r = tfx_cc_alloc(c, 2, st->loc);
  tfx_cc_load_str(c, r, st->name.s);
  tfx_cc_load_str(c, r + 1, st->type.s);
  EMIT(NODE_NEW, r, r + 1, 0);
  for (const tfx_ast_node_arg *a = st->args; a; a = a->next) {
    switch (a->kind) {
      case TFX_AST_ARG_INPUT: /* boundary input N */
        EMIT(LOADNONE, r, 0, 0);
        tfx_cc_load_int(c, r + 1, a->port);
        EMIT(NODE_IN, r, r + 1, 0);
        break;
      case TFX_AST_ARG_PORT:
        tfx_cc_load_str(c, r, a->node.s);
        tfx_cc_load_int(c, r + 1, a->port);
        EMIT(NODE_IN, r, r + 1, 0);
        break;
      case TFX_AST_ARG_CONST:
        tfx_cc_expr(c, a->value, r);
        EMIT(NODE_CONST, r, 0, 0);
        break;
      case TFX_AST_ARG_NAME: break; /* rewrites only (compile_flow.c); sema rejects it here */
    }
  }
  body nb = {BODY_NODE, TFX_PACK_NONE, TFX_PACK_NONE};
  compile_block(c, st->body, &nb);
}

static void stmt(tfx_cc *c, const tfx_ast_stmt *st, body *b) {
  tfx_asm *as = &c->as;
  uint32_t mark = c->top, r, r2;
  tfx_cc_loc(c, st->loc);
  switch (st->kind) {
    case TFX_AST_S_SCOPES: { /* members = one flat list: lists concatenated, scopes appended */
      uint32_t m = b->members;
      const tfx_ast_expr *e = st->exprs;
      if (st->n_exprs == 1 && tfx_cc_kind(c, e) == TFX_CK_LIST) {
        tfx_cc_expr(c, e, m);
        break;
      }
      uint32_t acc = tfx_cc_alloc(c, 1, st->loc);
      EMIT(NEWLIST, acc, acc, 0);
      for (; e; e = e->next) {
        uint32_t x = tfx_cc_expr_any(c, e);
        if (tfx_cc_kind(c, e) != TFX_CK_LIST) {
          uint32_t t = tfx_cc_alloc(c, 1, e->loc);
          EMIT(NEWLIST, t, x, 1);
          x = t;
        }
        EMIT(ADD, acc, acc, x);
        c->top = acc + 1;
      }
      EMIT(MOVE, m, acc, 0);
      break;
    }
    case TFX_AST_S_NAME:
      EMIT(FR_NAME, tfx_cc_expr_any(c, st->expr), 0, 0);
      if (b->named != TFX_PACK_NONE) EMIT(LOADB, b->named, 1, 0);
      break;
    case TFX_AST_S_TYPE:
      r = tfx_cc_alloc(c, 1, st->loc);
      tfx_cc_load_str(c, r, st->name.s);
      EMIT(FR_TYPE, r, 0, 0);
      break;
    case TFX_AST_S_DESCRIPTION: EMIT(FR_DESC, tfx_cc_expr_any(c, st->expr), 0, 0); break;
    case TFX_AST_S_INDEX_MAP:
      r = tfx_cc_expr_any(c, st->expr);
      r2 = tfx_cc_alloc(c, 2, st->loc);
      tfx_cc_loc(c, st->loc); /* FR_KEY: the statement's site, for the fusion-time key check */
      EMIT(FR_KEY, (uint32_t)st->is_output, r, (uint32_t)(st->optional ? 1 : 0));
      for (const tfx_ast_portmap *p = st->ports; p; p = p->next) {
        tfx_cc_loc(c, p->loc);
        tfx_cc_load_int(c, r2, p->from);
        if (p->to_none) EMIT(LOADNONE, r2 + 1, 0, 0);
        else tfx_cc_load_int(c, r2 + 1, p->to);
        if (st->is_output) EMIT(FR_OUTPUT, r, r2, r2 + 1);
        else EMIT(FR_INPUT, r, r2, r2 + 1);
      }
      break;
    case TFX_AST_S_ABSORB: EMIT(FR_ABSORB, tfx_cc_expr_any(c, st->expr), 0, 0); break;
    case TFX_AST_S_INVALID: EMIT(FR_INVALID, tfx_cc_expr_any(c, st->expr), 0, 0); break;
    case TFX_AST_S_LET: {
      tfx_ck kind = tfx_cc_kind(c, st->expr);
      r = tfx_cc_alloc(c, 1, st->loc);
      tfx_cc_expr(c, st->expr, r); /* the name is visible from the next statement on */
      tfx_cc_push_var(c, st->name.s, r, kind);
      mark = c->top = r + 1;
      break;
    }
    case TFX_AST_S_IF: {
      uint32_t lelse = tfx_asm_label_new(as);
      tfx_cc_jump(c, st->expr, 0, lelse);
      compile_block(c, st->body, b);
      if (st->has_else && st->else_body) {
        uint32_t lend = tfx_asm_label_new(as);
        EMIT(JMP, lend, 0, 0);
        tfx_asm_label_here(as, lelse);
        compile_block(c, st->else_body, b);
        tfx_asm_label_here(as, lend);
      } else {
        tfx_asm_label_here(as, lelse);
      }
      break;
    }
    case TFX_AST_S_ATTR: {
      uint32_t v = tfx_cc_expr_any(c, st->expr);
      int64_t k = KSTR(st->name.s);
      if (b->kind == BODY_FUSE) EMIT(FR_ATTR, k, v, 0);
      else if (b->kind == BODY_NODE) EMIT(NODE_ATTR, k, v, 0);
      else EMIT(MAP_ATTR, k, v, 0);
      break;
    }
    case TFX_AST_S_NODE: node_stmt(c, st); break;
    case TFX_AST_S_OUT:
      r = tfx_cc_alloc(c, 3, st->loc);
      tfx_cc_load_int(c, r, st->index);
      tfx_cc_load_str(c, r + 1, st->port_node.s);
      tfx_cc_load_int(c, r + 2, st->port);
      EMIT(NODE_OUT, r, r + 1, r + 2);
      break;
    case TFX_AST_S_FORMAT:
      r = tfx_cc_alloc(c, 2, st->loc);
      tfx_cc_expr(c, st->index_expr, r);
      tfx_cc_expr(c, st->expr, r + 1);
      if (b->kind == BODY_NODE) EMIT(NODE_FORMAT, st->is_output != 0, r, r + 1);
      else EMIT(MAP_FORMAT, st->is_output != 0, r, r + 1);
      break;
    case TFX_AST_S_AUTO: EMIT(MAP_AUTO, 0, 0, 0); break;
    case TFX_AST_S_DROP:
      for (const tfx_ast_name *n = st->names; n; n = n->next) EMIT(MAP_DROP, KSTR(n->s), 0, 0);
      break;
    case TFX_AST_S_PORT:
      EMIT(MAP_PORT, st->is_output != 0, KSTR(st->name.s), tfx_cc_expr_any(c, st->index_expr));
      break;
    case TFX_AST_S_OPTIONAL:
      r = tfx_cc_alloc(c, 2, st->loc);
      tfx_cc_expr(c, st->index_expr, r);
      if (st->expr) { /* connected when the condition holds (none: not connected) */
        uint32_t lf = tfx_asm_label_new(as), le = tfx_asm_label_new(as);
        tfx_cc_jump(c, st->expr, 0, lf);
        EMIT(LOADB, r + 1, 1, 0);
        EMIT(JMP, le, 0, 0);
        tfx_asm_label_here(as, lf);
        EMIT(LOADB, r + 1, 0, 0);
        tfx_asm_label_here(as, le);
      } else { /* connected when the TF node has that input */
        EMIT4(CALL, r + 1, TFX_BI_has_input, r, 1);
      }
      EMIT(MAP_OPTIONAL, KSTR(st->name.s), r, r + 1);
      break;
    case TFX_AST_S_DYNAMIC:
      EMIT(MAP_DYNAMIC, st->is_output != 0, KSTR(st->name.s), tfx_cc_expr_any(c, st->expr));
      break;
    case TFX_AST_S_DELETE: {
      uint32_t skip = tfx_asm_label_new(as);
      if (st->expr) tfx_cc_jump(c, st->expr, 0, skip);
      EMIT(MAP_DELETE, tfx_cc_expr_any(c, st->index_expr), 0, 0);
      tfx_asm_label_here(as, skip);
      break;
    }
    case TFX_AST_S_ABSENT_PORT: /* FR_KEY with flags 2 | N << 2 and key "": fused port N is unfed */
      if (st->expr && st->expr->kind == TFX_AST_E_INT && st->expr->u.i >= 0 && st->expr->u.i < (1 << 20)) {
        r = tfx_cc_alloc(c, 1, st->loc);
        tfx_cc_load_str(c, r, "");
        tfx_cc_loc(c, st->loc);
        EMIT(FR_KEY, (uint32_t)st->is_output, r, (uint32_t)(2 | st->expr->u.i << 2));
      }
      break;
    case TFX_AST_S_WHEN:     /* evaluated first by compile_opmap */
    case TFX_AST_S_PRIORITY: /* lives in the rule table */
    case TFX_AST_S_MATCH:    /* rewrites: compile_flow.c */
    case TFX_AST_S_WHERE:
    case TFX_AST_S_REWIRE:
      break;
  }
  c->top = mark;
}

static void compile_block(tfx_cc *c, const tfx_ast_stmt *list, body *b) {
  if (list && list->depth > TFX_AST_MAX_DEPTH) {
    tfx_cc_error(c, list->loc, "blocks nested too deeply");
    return;
  }
  uint32_t mark = c->top, vmark = c->n_vars;
  for (const tfx_ast_stmt *st = list; st && !c->oom; st = st->next) stmt(c, st, b);
  c->top = mark;
  c->n_vars = vmark;
}

/* ---------------------------------------------------------------- passes: selection */

/* One fusion result for the bound scopes in registers bv .. bv+n-1. Every path emits
 * FR_SCOPES exactly once (the default members are the bound scopes in binding order; with
 * `scopes` statements the members are collected in a register and emitted before FR_END),
 * and FR_NAME at least once: explicit `name`s where they stand (the last one wins), the
 * default (first member's name without '/') when no `name` ran. */
static void fuse_result(tfx_cc *c, const tfx_ast_fuse *f, uint32_t bv, uint32_t n) {
  tfx_asm *as = &c->as;
  uint32_t mark = c->top;
  int any_scopes = has_stmt_deep(f->body, TFX_AST_S_SCOPES);
  int any_name = has_stmt_deep(f->body, TFX_AST_S_NAME), top_name = has_stmt(f->body, TFX_AST_S_NAME);
  body b = {BODY_FUSE, TFX_PACK_NONE, TFX_PACK_NONE};
  tfx_cc_loc(c, f->loc);
  EMIT(FR_BEGIN, 0, 0, 0);
  if (any_name && !top_name) {
    b.named = tfx_cc_alloc(c, 1, f->loc);
    EMIT(LOADB, b.named, 0, 0);
  }
  if (any_scopes) {
    b.members = tfx_cc_alloc(c, 1, f->loc);
    EMIT(NEWLIST, b.members, bv, n);
  } else {
    if (n == 1) {
      EMIT(FR_SCOPES, bv, 0, 0);
    } else {
      uint32_t t = tfx_cc_alloc(c, 1, f->loc);
      EMIT(NEWLIST, t, bv, n);
      EMIT(FR_SCOPES, t, 0, 0);
      c->top = t;
    }
    if (!any_name) default_name(c, bv, 0, f->loc);
  }
  compile_block(c, f->body, &b);
  tfx_cc_loc(c, f->loc);
  if (any_scopes) {
    EMIT(FR_SCOPES, b.members, 0, 0);
    if (!any_name) default_name(c, b.members, 1, f->loc);
  }
  if (b.named != TFX_PACK_NONE) {
    uint32_t skip = tfx_asm_label_new(as);
    EMIT(JT, b.named, skip, 0);
    if (any_scopes) default_name(c, b.members, 1, f->loc);
    else default_name(c, bv, 0, f->loc);
    tfx_asm_label_here(as, skip);
  }
  EMIT(FR_END, 0, 0, 0);
  c->top = mark;
}

/* `fuse a in S1, b in S2 ... where C { body }`. The first binding drives; the later ones are
 * searched in nested loops (depth-first candidate order, skipping partners already used by
 * this block), so the first tuple for which C holds is taken; a driver without one yields
 * nothing. Lists of candidates are computed once, before the driver loop. */
static void compile_fuse(tfx_cc *c, const tfx_ast_fuse *f) {
  tfx_asm *as = &c->as;
  uint32_t mark = c->top, vmark = c->n_vars;
  uint32_t n = f->n_bindings;
  if (!n) return;
  tfx_cc_loc(c, f->loc);
  uint32_t bv = tfx_cc_alloc(c, n, f->loc), lists = tfx_cc_alloc(c, n, f->loc);
  uint32_t used = n > 1 ? tfx_cc_alloc(c, n - 1, f->loc) : 0;
  uint32_t it = tfx_cc_alloc(c, 2 * n, f->loc);
  uint32_t k = 0;
  for (const tfx_ast_binding *b = f->bindings; b && k < n; b = b->next, k++) {
    if (b->source) { /* `v in f()`: the call's list is the candidates */
      tfx_cc_expr(c, b->source, lists + k);
      if (k) EMIT(NEWLIST, used + k - 1, used + k - 1, 0);
      if (tfx_cc_push_var(c, b->var.s, bv + k, TFX_CK_SCOPE)) return;
      continue;
    }
    uint32_t nst = b->n_sub_types, i = 0, max = tfx_vm_builtins[TFX_BI_scopes].max_args;
    if (nst > max) {
      tfx_cc_error(c, b->var.loc, "a binding takes at most %u sub_types, got %u", max, nst);
      nst = max;
    }
    uint32_t args = tfx_cc_alloc(c, nst ? nst : 1, b->var.loc);
    for (const tfx_ast_name *t = b->sub_types; t && i < nst; t = t->next, i++) tfx_cc_load_str(c, args + i, t->s);
    EMIT4(CALL, lists + k, TFX_BI_scopes, args, nst);
    c->top = args;
    if (k) EMIT(NEWLIST, used + k - 1, used + k - 1, 0);
    if (tfx_cc_push_var(c, b->var.s, bv + k, TFX_CK_SCOPE)) return;
  }
  uint32_t *next = tfx_malloc((size_t)n * sizeof *next);
  if (!next) {
    tfx_cc_oom(c);
    return;
  }
  for (k = 0; k < n; k++) next[k] = tfx_asm_label_new(as);
  uint32_t done = tfx_asm_label_new(as);
  EMIT(ITER, it, lists, 0);
  tfx_asm_label_here(as, next[0]);
  EMIT(NEXT, it, bv, done);
  for (k = 1; k < n; k++) {
    EMIT(ITER, it + 2 * k, lists + k, 0);
    tfx_asm_label_here(as, next[k]);
    EMIT(NEXT, it + 2 * k, bv + k, next[k - 1]);
    uint32_t t = tfx_cc_alloc(c, 1, f->loc);
    EMIT(IN, t, bv + k, used + k - 1);
    EMIT(JT, t, next[k], 0);
    c->top = t;
  }
  if (f->where) {
    tfx_cc_loc(c, f->where->loc);
    tfx_cc_jump(c, f->where, 0, next[n - 1]);
  }
  for (k = 1; k < n; k++) { /* the partners are taken */
    uint32_t t = tfx_cc_alloc(c, 1, f->loc);
    EMIT(NEWLIST, t, bv + k, 1);
    EMIT(ADD, used + k - 1, used + k - 1, t);
    c->top = t;
  }
  fuse_result(c, f, bv, n);
  EMIT(JMP, next[0], 0, 0);
  tfx_asm_label_here(as, done);
  free(next);
  c->top = mark;
  c->n_vars = vmark;
}

static void compile_select(tfx_cc *c, uint32_t rule, const tfx_ast_pass *p) {
  tfx_asm *as = &c->as;
  tfx_asm_prog_begin(as, TFX_PK_SELECT, rule);
  c->top = 0;
  c->overflow = 0;
  tfx_cc_loc(c, p->loc);
  uint32_t fail = p->requires ? tfx_asm_label_new(as) : TFX_PACK_NONE;
  /* requires and fuse blocks in source order */
  const tfx_ast_require *rq = p->requires;
  const tfx_ast_fuse *fz = p->fuses;
  while ((rq || fz) && !c->oom) {
    if (rq && (!fz || rq->loc.off <= fz->loc.off)) {
      tfx_cc_loc(c, rq->loc);
      tfx_cc_jump(c, rq->cond, 0, fail);
      rq = rq->next;
    } else {
      compile_fuse(c, fz);
      fz = fz->next;
    }
  }
  tfx_cc_loc(c, p->loc);
  EMIT(LOADB, 0, 1, 0);
  EMIT(RET, 0, 0, 0);
  if (fail != TFX_PACK_NONE) {
    tfx_asm_label_here(as, fail);
    EMIT(LOADB, 0, 0, 0);
    EMIT(RET, 0, 0, 0);
  }
  tfx_asm_prog_end(as);
}

static void compile_pass(tfx_cc *c, const tfx_ast_pass *p) {
  tfx_asm *as = &c->as;
  c->kind = TFX_AST_SCOPERULE;
  uint32_t r = tfx_asm_rule(as, TFX_RULE_PASS, p->name.s, p->general ? TFX_RULE_GENERAL : 0);
  uint32_t file = file_index(c, p->loc.file);
  tfx_vm_rule *ru = tfx_asm_rule_at(as, r);
  if (ru) {
    ru->file = file;
    ru->line = line_of(c, p->loc);
  }
  for (const tfx_ast_group *g = p->groups; g; g = g->next) {
    uint32_t gi = tfx_asm_group(as, r);
    for (const tfx_ast_layer *l = g->layers; l; l = l->next) {
      uint32_t li = tfx_asm_layer(as, gi);
      for (const tfx_ast_pattern *pt = l->patterns; pt; pt = pt->next) {
        uint32_t prog = compile_pattern(c, r, pt);
        tfx_asm_pattern(as, li, pt->sub_type.s, prog);
      }
    }
  }
  compile_select(c, r, p);
}

/* ---------------------------------------------------------------- op maps */

/* "TF1,TF2->CANN" (or "->graph"), made unique with "#2", "#3", ... */
static const char *map_name(tfx_cc *c, const tfx_ast_opmap *m, tfx_intern *names) {
  tfx_strbuf *b = &c->tmp;
  tfx_sb_reset(b);
  for (const tfx_ast_name *t = m->from; t; t = t->next) tfx_sb_printf(b, "%s%s", t == m->from ? "" : ",", t->s);
  tfx_sb_printf(b, "->%s", m->is_graph ? "graph" : m->to.s);
  size_t base = b->len;
  for (unsigned i = 2; !b->oom && tfx_intern_find(names, tfx_sb_cstr(b), b->len) != TFX_HASH_NONE; i++) {
    b->len = base;
    tfx_sb_printf(b, "#%u", i);
  }
  if (b->oom || tfx_intern_id(names, tfx_sb_cstr(b), b->len) == TFX_HASH_NONE) {
    tfx_cc_oom(c);
    return NULL;
  }
  return tfx_sb_cstr(b);
}

static void compile_opmap(tfx_cc *c, const tfx_ast_opmap *m, tfx_intern *names) {
  tfx_asm *as = &c->as;
  c->kind = TFX_AST_OPMAP;
  const char *name = map_name(c, m, names);
  if (!name) return;
  uint32_t r = tfx_asm_rule(as, TFX_RULE_MAP, name, m->is_graph ? TFX_RULE_GRAPH : 0);
  uint32_t *from = tfx_malloc(((size_t)m->n_from + 1) * sizeof *from);
  if (!from) {
    tfx_cc_oom(c);
    return;
  }
  uint32_t nf = 0;
  for (const tfx_ast_name *t = m->from; t && nf < m->n_from; t = t->next) from[nf++] = tfx_asm_const_str(as, t->s);
  uint32_t kfrom = tfx_asm_const_list(as, from, nf);
  free(from);
  uint32_t kto = tfx_asm_const_str(as, m->is_graph ? "graph" : m->to.s);
  if (m->priority < INT32_MIN || m->priority > INT32_MAX)
    tfx_cc_error(c, m->loc, "priority %lld is out of range", (long long)m->priority);
  tfx_vm_rule *ru = tfx_asm_rule_at(as, r);
  if (ru) {
    ru->from = kfrom;
    ru->to = kto;
    ru->priority = (int32_t)m->priority;
    ru->file = file_index(c, m->loc.file);
    ru->line = line_of(c, m->loc);
  }
  tfx_asm_prog_begin(as, TFX_PK_MAP, r);
  c->top = 1; /* r0 = the TF node */
  c->overflow = 0;
  uint32_t fail = TFX_PACK_NONE;
  for (const tfx_ast_stmt *st = m->body; st; st = st->next) /* guards first: no effect before */
    if (st->kind == TFX_AST_S_WHEN) {
      if (fail == TFX_PACK_NONE) fail = tfx_asm_label_new(as);
      tfx_cc_loc(c, st->loc);
      tfx_cc_jump(c, st->expr, 0, fail);
    }
  if (!m->is_graph) {
    tfx_cc_loc(c, m->loc);
    EMIT(LOADK, 1, kto, 0);
    EMIT(MAP_TYPE, 1, 0, 0);
  }
  body b = {BODY_MAP, TFX_PACK_NONE, TFX_PACK_NONE};
  compile_block(c, m->body, &b);
  tfx_cc_loc(c, m->loc);
  EMIT(LOADB, 1, 1, 0);
  EMIT(RET, 1, 0, 0);
  if (fail != TFX_PACK_NONE) {
    tfx_asm_label_here(as, fail);
    EMIT(LOADB, 1, 0, 0);
    EMIT(RET, 1, 0, 0);
  }
  tfx_asm_prog_end(as);
}

/* ---------------------------------------------------------------- entry */

tfx_status tfx_rules_compile(const tfx_ruleset *rs, tfx_pack *out, tfx_diag *d) {
  tfx_pack_init(out);
  if (tfx_ruleset_errors(rs)) /* already reported; the AST may be partial */
    return tfx_ruleset_oom(rs) ? TFX_E_NOMEM : TFX_E_RULES;
  tfx_cc c;
  memset(&c, 0, sizeof c);
  c.rs = (tfx_ruleset *)rs; /* reporting counts errors in the rule set; nothing else changes */
  c.d = d;
  tfx_asm_init(&c.as);
  tfx_sb_init(&c.tmp);
  tfx_intern names;
  tfx_intern_init(&names);
  c.n_files = (uint32_t)tfx_ruleset_n_sources(rs);
  c.files = tfx_malloc(((size_t)c.n_files + 1) * sizeof *c.files);
  if (!c.files) tfx_cc_oom(&c);
  for (uint32_t i = 0; c.files && i < c.n_files; i++) c.files[i] = TFX_PACK_NONE;
  for (size_t i = 0; i < tfx_ruleset_n_passes(rs) && !c.oom; i++) compile_pass(&c, tfx_ruleset_pass(rs, i));
  tfx_cc_rewrites(&c);
  for (size_t i = 0; i < tfx_ruleset_n_opmaps(rs) && !c.oom; i++) compile_opmap(&c, tfx_ruleset_opmap(rs, i), &names);
  tfx_status rc = TFX_OK;
  if (c.oom) { /* a resource failure, even after rule errors: exit 1, not 4 */
    rc = TFX_E_NOMEM;
  } else if (c.errors) {
    rc = TFX_E_RULES;
  } else {
    rc = tfx_asm_finish(&c.as, out, "<rules>", d);
    if (rc != TFX_OK && rc != TFX_E_NOMEM) {
      rc = TFX_E_FAIL;
      tfx_error(d, NULL, 0, 0, "internal error: the rule compiler produced an invalid pack (a compiler bug)");
    }
  }
  free(c.files);
  free(c.vars);
  tfx_intern_free(&names);
  tfx_sb_free(&c.tmp);
  tfx_asm_free(&c.as);
  return rc;
}
