/* Rule compiler, dataflow rewrites: every `rewrite` -> one TFX_RULE_FLOW rule with one MAP
 * program (r0 = the candidate root node). Stage: rules, back end (after tfx_rules_check).
 * The rule's `from` lists the root's op types (the engine indexes rules by them), then, when the
 * root reads a matched node, "" and that node's op types (the engine's second index level: a
 * candidate runs the rule only if one of its data inputs is produced by such a node), then the
 * rule's signature "#sig ..." (see flow_signature below; after a "" when there is no child
 * type), which the engine tests before it runs the program; `to` is
 * the type of the new node that replaces the root's output 0 ("rewire" when a capture does).
 *
 * Program shape (the contract with src/fusion/dataflow.c):
 *   - the matches are visited in source order; a match's node is bound when an earlier match
 *     reads it (the root is r0). Each test is a DF_CHECK with a feature (text shown by
 *     `explain`): op type, number of data inputs, each edge (producer node and port), repeated
 *     captures (the same value, compared by input_ref), then every `where` in source order,
 *     then "no consumer outside the match" for every matched node without an `out`;
 *   - operands of commutative ops (two inputs, every type alternative commutative: Add,
 *     AddV2, Mul, Maximum, Minimum, ...) are tried in both orders: a mask register holds one
 *     choice bit per commutative match (the first one the most significant), and a failing
 *     test after u choices jumps to the next mask that differs in those u choices
 *     (depth-first, so at most 2^K attempts for K commutative matches, usually far fewer);
 *   - on success the effects are NODE_NEW / NODE_ATTR / DF_IN / NODE_IN / NODE_CONST (a `const`
 *     input: the engine makes a Const node) for the new nodes in
 *     source order, DF_OUT for each `out`, DF_DEL with every matched node, then RET true;
 *     when nothing matches, RET false and no effect. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/compile_int.h"
#include "tensorflow/types.pb-c.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"

#define EMIT(op, a, b, cc_) tfx_asm_emit(&c->as, TFX_OP_##op, (a), (b), (cc_))
#define EMIT4(op, a, b, cc_, d) tfx_asm_emit4(&c->as, TFX_OP_##op, (a), (b), (cc_), (d))

#define FLOW_MAX_CHOICES 16 /* commutative matches per rewrite that are tried both ways */

/* TF op types whose two data inputs can be swapped without changing the result. */
static const char *const commutative_ops[] = {
    "Add", "AddV2", "Mul", "Maximum", "Minimum", "LogicalAnd", "LogicalOr", "Equal", "NotEqual",
    "BitwiseAnd", "BitwiseOr", "BitwiseXor", "SquaredDifference", "MulNoNan"};

int tfx_flow_commutative(const char *op) {
  for (size_t i = 0; i < sizeof commutative_ops / sizeof *commutative_ops; i++)
    if (!strcmp(commutative_ops[i], op)) return 1;
  return 0;
}

typedef struct fmatch {
  const tfx_ast_stmt *st;
  uint32_t reg;      /* the matched node */
  uint32_t ins;      /* its `inputs` list */
  int bound;         /* compile time: bound by an earlier edge (or the root) */
  int choice;        /* index of its commutative choice, -1 if none */
  int rewired;       /* some `out` rewires one of its outputs */
} fmatch;

typedef struct fcap {
  const char *name;
  uint32_t reg;      /* reg: consumer node, reg+1: input number, reg+2: input_ref, reg+3: producer */
  int bound;
} fcap;

typedef struct flow_cc {
  tfx_cc *c;
  const tfx_ast_rewrite *rw;
  fmatch *m;
  uint32_t nm;
  fcap *cap;
  uint32_t ncap;
  uint32_t mask, t;  /* mask register; t..t+6 temporaries */
  uint32_t k;        /* commutative choices */
  uint32_t *fail;    /* fail[u]: label after u choices */
} flow_cc;

static fmatch *find_match(flow_cc *f, const char *name) {
  for (uint32_t i = 0; i < f->nm; i++)
    if (!strcmp(f->m[i].st->name.s, name)) return &f->m[i];
  return NULL;
}

static fcap *find_cap(flow_cc *f, const char *name) {
  for (uint32_t i = 0; i < f->ncap; i++)
    if (!strcmp(f->cap[i].name, name)) return &f->cap[i];
  return NULL;
}

static uint32_t feature(flow_cc *f, tfx_rules_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static uint32_t feature(flow_cc *f, tfx_rules_loc loc, const char *fmt, ...) {
  tfx_cc *c = f->c;
  char buf[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  unsigned line, col;
  tfx_ruleset_linecol(c->rs, loc, &line, &col);
  tfx_cc_loc(c, loc);
  uint32_t file = tfx_asm_file(&c->as, tfx_ruleset_source(c->rs, loc.file)->name);
  return tfx_asm_feature(&c->as, TFX_OP_DF_CHECK, buf, file, line);
}

static void check(flow_cc *f, uint32_t fid, uint32_t cond, uint32_t found, uint32_t u) {
  tfx_cc *c = f->c;
  EMIT4(DF_CHECK, fid, cond, found, f->fail[u]);
}

/* The source span of e and all its subexpressions (a binary expression's own location is its
 * operator). */
static void expr_span(const tfx_ast_expr *e, uint32_t *lo, uint32_t *hi, unsigned depth) {
  if (!e || depth > TFX_AST_MAX_DEPTH) return;
  if (e->loc.off < *lo) *lo = e->loc.off;
  if (e->loc.end > *hi) *hi = e->loc.end;
  switch (e->kind) {
    case TFX_AST_E_UNARY: case TFX_AST_E_BINARY:
      expr_span(e->u.op.a, lo, hi, depth + 1);
      expr_span(e->u.op.b, lo, hi, depth + 1);
      break;
    case TFX_AST_E_COND:
      expr_span(e->u.cond.c, lo, hi, depth + 1);
      expr_span(e->u.cond.f, lo, hi, depth + 1);
      break;
    case TFX_AST_E_INDEX: case TFX_AST_E_PERMUTE:
      expr_span(e->u.index.base, lo, hi, depth + 1);
      expr_span(e->u.index.index, lo, hi, depth + 1);
      break;
    case TFX_AST_E_PROP: expr_span(e->u.prop.base, lo, hi, depth + 1); break;
    default: break;
  }
}

/* The expression's source text (for `where` features), clipped. */
static void expr_text(flow_cc *f, const tfx_ast_expr *e, char *buf, size_t n) {
  const tfx_rules_source *src = tfx_ruleset_source(f->c->rs, e->loc.file);
  uint32_t lo = e->loc.off, hi = e->loc.end;
  expr_span(e, &lo, &hi, 0);
  size_t len = hi > lo ? hi - lo : 0;
  if (!src || !src->text || len >= n) {
    snprintf(buf, n, "the condition");
    return;
  }
  /* a parenthesized operand's location excludes its parentheses: take them back in */
  int depth = 0, low = 0;
  for (uint32_t i = lo; i < hi; i++) {
    depth += src->text[i] == '(' ? 1 : src->text[i] == ')' ? -1 : 0;
    if (depth < low) low = depth;
  }
  for (int open = -low; open > 0 && lo > 0;) /* the '(' closed inside */
    if (src->text[--lo] == '(') open--;
  for (int close = depth - low; close > 0 && src->text[hi]; hi++) /* the ')' of those opened */
    if (src->text[hi] == ')') close--;
  len = hi - lo;
  if (len >= n) {
    snprintf(buf, n, "the condition");
    return;
  }
  memcpy(buf, src->text + lo, len);
  buf[len] = 0;
  for (size_t i = 0; i < len; i++)
    if (buf[i] == '\n' || buf[i] == '\t') buf[i] = ' ';
}

static void types_text(const tfx_ast_stmt *st, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
  for (const tfx_ast_name *t = st->names; t; t = t->next)
    k += (size_t)snprintf(buf + (k < n ? k : n - 1), k < n ? n - k : 1, "%s%s", t == st->names ? "" : "|", t->s);
}

/* Registers: slot register of argument ai of match i (a constant, or the choice's order). */
static void match_edges(flow_cc *f, fmatch *mi, uint32_t *u) {
  tfx_cc *c = f->c;
  const tfx_ast_stmt *st = mi->st;
  uint32_t t = f->t;
  const char *nm = st->name.s;
  char types[200];
  types_text(st, types, sizeof types);
  /* op type */
  uint32_t fid = feature(f, st->loc, "%s: op is %s", nm, types);
  uint32_t nty = 0;
  for (const tfx_ast_name *x = st->names; x; x = x->next) nty++;
  uint32_t *el = tfx_malloc((nty + 1) * sizeof *el);
  if (!el) {
    tfx_cc_oom(c);
    return;
  }
  nty = 0;
  for (const tfx_ast_name *x = st->names; x; x = x->next) el[nty++] = tfx_asm_const_str(&c->as, x->s);
  uint32_t kl = tfx_asm_const_list(&c->as, el, nty);
  free(el);
  EMIT(PROP, t, mi->reg, TFX_PR_op);
  EMIT(LOADK, t + 1, kl, 0);
  EMIT(IN, t + 2, t, t + 1);
  check(f, fid, t + 2, t, *u);
  /* number of data inputs */
  fid = feature(f, st->loc, "%s: %u data input%s", nm, st->n_args, st->n_args == 1 ? "" : "s");
  EMIT(PROP, mi->ins, mi->reg, TFX_PR_inputs);
  EMIT(LEN, t, mi->ins, 0);
  tfx_cc_load_int(c, t + 1, st->n_args);
  EMIT(EQ, t + 2, t, t + 1);
  check(f, fid, t + 2, t, *u);
  /* the order of the operands */
  uint32_t swap = t + 3; /* slot of argument 0; 1 - swap for argument 1 */
  if (mi->choice >= 0) {
    tfx_cc_load_int(c, t + 1, (int64_t)1 << (f->k - 1 - (uint32_t)mi->choice));
    EMIT(DIV, swap, f->mask, t + 1);
    tfx_cc_load_int(c, t + 1, 2);
    EMIT(MOD, swap, swap, t + 1);
    (*u)++;
  }
  uint32_t ai = 0;
  for (const tfx_ast_node_arg *a = st->args; a; a = a->next, ai++) {
    const char *an = a->node.s;
    if (!strcmp(an, "_")) continue;
    uint32_t slot = t + 6; /* the input number this argument reads (t+4, t+5: call arguments) */
    if (mi->choice >= 0) {
      if (ai == 0) {
        EMIT(MOVE, slot, swap, 0);
      } else {
        tfx_cc_load_int(c, t + 1, 1);
        EMIT(SUB, slot, t + 1, swap);
      }
    } else {
      tfx_cc_load_int(c, slot, ai);
    }
    fmatch *q = find_match(f, an);
    if (q) {
      int64_t port = a->kind == TFX_AST_ARG_PORT ? a->port : 0;
      EMIT(INDEX, t, mi->ins, slot);
      if (!q->bound) {
        EMIT(MOVE, q->reg, t, 0);
        q->bound = 1;
        fid = feature(f, a->loc, "%s: input %u is produced by a node", nm, ai);
        EMIT(LOADNONE, t + 1, 0, 0);
        EMIT(NE, t + 2, t, t + 1);
        check(f, fid, t + 2, t, *u);
      } else {
        fid = feature(f, a->loc, "%s: input %u is %s", nm, ai, an);
        EMIT(EQ, t + 2, t, q->reg);
        check(f, fid, t + 2, t, *u);
      }
      fid = feature(f, a->loc, "%s: input %u reads output %lld of %s", nm, ai, (long long)port, an);
      EMIT(MOVE, t + 5, slot, 0);
      EMIT(MOVE, t + 4, mi->reg, 0);
      EMIT4(CALL, t, TFX_BI_input_port, t + 4, 2);
      tfx_cc_load_int(c, t + 1, port);
      EMIT(EQ, t + 2, t, t + 1);
      check(f, fid, t + 2, t, *u);
      continue;
    }
    fcap *k = find_cap(f, an);
    if (!k) continue; /* sema reported it */
    EMIT(MOVE, t + 5, slot, 0);
    EMIT(MOVE, t + 4, mi->reg, 0);
    if (!k->bound) {
      k->bound = 1;
      EMIT(MOVE, k->reg, mi->reg, 0);
      EMIT(MOVE, k->reg + 1, slot, 0);
      EMIT4(CALL, k->reg + 2, TFX_BI_input_ref, t + 4, 2);
      EMIT(INDEX, k->reg + 3, mi->ins, k->reg + 1);
    } else {
      fid = feature(f, a->loc, "%s: input %u is the value captured as %s", nm, ai, an);
      EMIT4(CALL, t, TFX_BI_input_ref, t + 4, 2);
      EMIT(EQ, t + 2, t, k->reg + 2);
      check(f, fid, t + 2, t, *u);
    }
  }
}

static void where_check(flow_cc *f, const tfx_ast_expr *e) {
  tfx_cc *c = f->c;
  char text[300];
  expr_text(f, e, text, sizeof text);
  uint32_t fid = feature(f, e->loc, "where %s", text);
  uint32_t mark = c->top;
  uint32_t r = tfx_cc_alloc(c, 2, e->loc);
  /* found: the left side of a comparison (what was compared), else the condition's value */
  if (e->kind == TFX_AST_E_BINARY && e->u.op.op >= TFX_AST_OP_EQ && e->u.op.op <= TFX_AST_OP_GE) {
    tfx_cc_expr(c, e->u.op.a, r + 1);
  }
  uint32_t no = tfx_asm_label_new(&c->as), done = tfx_asm_label_new(&c->as);
  tfx_cc_jump(c, e, 0, no);
  EMIT(LOADB, r, 1, 0);
  EMIT(JMP, done, 0, 0);
  tfx_asm_label_here(&c->as, no);
  EMIT(LOADB, r, 0, 0);
  tfx_asm_label_here(&c->as, done);
  if (!(e->kind == TFX_AST_E_BINARY && e->u.op.op >= TFX_AST_OP_EQ && e->u.op.op <= TFX_AST_OP_GE))
    EMIT(MOVE, r + 1, r, 0);
  check(f, fid, r, r + 1, f->k);
  c->top = mark;
}

static void new_node(flow_cc *f, const tfx_ast_stmt *st) {
  tfx_cc *c = f->c;
  uint32_t mark = c->top;
  uint32_t r = tfx_cc_alloc(c, 2, st->loc);
  tfx_cc_loc(c, st->loc);
  tfx_cc_load_str(c, r, st->name.s);
  tfx_cc_load_str(c, r + 1, st->type.s);
  EMIT(NODE_NEW, r, r + 1, 0);
  for (const tfx_ast_node_arg *a = st->args; a; a = a->next) {
    fcap *k = a->kind == TFX_AST_ARG_NAME ? find_cap(f, a->node.s) : NULL;
    if (a->kind == TFX_AST_ARG_CONST) { /* the engine adds a Const node */
      tfx_cc_expr(c, a->value, r);
      EMIT(NODE_CONST, r, 0, 0);
    } else if (k) {
      EMIT(DF_IN, k->reg, k->reg + 1, 0);
    } else {
      tfx_cc_load_str(c, r, a->node.s);
      tfx_cc_load_int(c, r + 1, a->kind == TFX_AST_ARG_PORT ? a->port : 0);
      EMIT(NODE_IN, r, r + 1, 0);
    }
  }
  for (const tfx_ast_stmt *b = st->body; b; b = b->next) {
    if (b->kind != TFX_AST_S_ATTR) continue;
    tfx_cc_loc(c, b->loc);
    uint32_t v = tfx_cc_expr_any(c, b->expr);
    EMIT(NODE_ATTR, tfx_asm_const_str(&c->as, b->name.s), v, 0);
    c->top = r + 2;
  }
  c->top = mark;
}

static void rewire(flow_cc *f, const tfx_ast_stmt *st) {
  tfx_cc *c = f->c;
  const tfx_ast_node_arg *from = st->args, *to = from->next;
  fmatch *q = find_match(f, from->node.s);
  if (!q) return;
  uint32_t mark = c->top;
  uint32_t r = tfx_cc_alloc(c, 3, st->loc);
  tfx_cc_loc(c, st->loc);
  tfx_cc_load_int(c, r, from->kind == TFX_AST_ARG_PORT ? from->port : 0);
  fcap *k = to->kind == TFX_AST_ARG_NAME ? find_cap(f, to->node.s) : NULL;
  if (k) {
    EMIT4(DF_OUT, q->reg, r, k->reg, k->reg + 1);
  } else {
    tfx_cc_load_str(c, r + 1, to->node.s);
    tfx_cc_load_int(c, r + 2, to->kind == TFX_AST_ARG_PORT ? to->port : 0);
    EMIT4(DF_OUT, q->reg, r, r + 1, r + 2);
  }
  c->top = mark;
}

/* The rule's `to`: the type of the new node the root's output 0 goes to, else "rewire". */
static const char *flow_to(const tfx_ast_rewrite *rw) {
  const char *root = NULL;
  for (const tfx_ast_stmt *st = rw->body; st && !root; st = st->next)
    if (st->kind == TFX_AST_S_MATCH) root = st->name.s;
  for (const tfx_ast_stmt *st = rw->body; st; st = st->next) {
    if (st->kind != TFX_AST_S_REWIRE || !root) continue;
    const tfx_ast_node_arg *from = st->args, *to = from->next;
    if (strcmp(from->node.s, root) || (from->kind == TFX_AST_ARG_PORT && from->port != 0)) continue;
    for (const tfx_ast_stmt *n = rw->body; n; n = n->next)
      if (n->kind == TFX_AST_S_NODE && !strcmp(n->name.s, to->node.s)) return n->type.s;
  }
  return "rewire";
}

/* ---- the rule's signature (the engine's screen before it runs the program) ----
 * One string item "#sig ..." at the end of the rule's `from` list (after the "" that ends the
 * root types and the second-level child types). Space-separated tokens:
 *   #sig NM NC                     matches, captures
 *   then per match, in order:      m NT TYPE... NARGS COMM ARG...    (COMM 1: operands either way)
 *       ARG:  _ | e Q PORT (reads output PORT of match Q) | c K (capture K)
 *   then: w NW COND...             the leading `where` tests the engine can decide, in order
 *       COND (prefix): & A B | "|" A B | ! A | = V K   with V: a REF NAME (attr) | o REF (op),
 *       REF: mI (match I) or cK (capture K), K: the index of a scalar literal in the constants.
 * The program checks every match's type, input count and edges (they cannot fail with an
 * error), then the `where`s in source order; a leading run of conjuncts that are attribute or
 * op comparisons with a literal (and/or/not of them) is copied here, up to the first other
 * one (which might stop the program with an error, so nothing after it is decided early).
 * The engine skips a node when no order of the commutative operands passes the signature: the
 * program could only have returned false there. No signature (a name with a space, too long):
 * the program always runs. */
#define FLOW_SIG_MAX_DEPTH 16

static int sig_name_ok(const char *s) {
  if (!s || !*s) return 0;
  for (; *s; s++)
    if ((unsigned char)*s <= ' ') return 0;
  return 1;
}

/* REF of name nm (a match or a capture), or 0. */
static int sig_ref(flow_cc *f, const char *nm, tfx_strbuf *b) {
  for (uint32_t i = 0; i < f->nm; i++)
    if (!strcmp(f->m[i].st->name.s, nm)) return tfx_sb_printf(b, " m%u", i), 1;
  for (uint32_t i = 0; i < f->ncap; i++)
    if (!strcmp(f->cap[i].name, nm)) return tfx_sb_printf(b, " c%u", i), 1;
  return 0;
}

/* V: `X.attr.NAME` or `X.op` with X a match or capture. */
static int sig_value(flow_cc *f, const tfx_ast_expr *e, tfx_strbuf *b) {
  if (e->kind != TFX_AST_E_PROP) return 0;
  const tfx_ast_expr *base = e->u.prop.base;
  if (base->kind == TFX_AST_E_PROP && !strcmp(base->u.prop.name, "attr") && base->u.prop.base->kind == TFX_AST_E_IDENT) {
    if (!sig_name_ok(e->u.prop.name)) return 0;
    tfx_sb_puts(b, " a");
    if (!sig_ref(f, base->u.prop.base->u.name, b)) return 0;
    tfx_sb_printf(b, " %s", e->u.prop.name);
    return 1;
  }
  if (base->kind == TFX_AST_E_IDENT && !strcmp(e->u.prop.name, "op")) {
    tfx_sb_puts(b, " o");
    return sig_ref(f, base->u.name, b);
  }
  return 0;
}

static uint32_t sig_literal(flow_cc *f, const tfx_ast_expr *e) {
  tfx_asm *as = &f->c->as;
  switch (e->kind) {
    case TFX_AST_E_INT: return e->int_min ? TFX_PACK_NONE : tfx_asm_const_int(as, e->u.i);
    case TFX_AST_E_FLOAT: return tfx_asm_const_float(as, e->u.f);
    case TFX_AST_E_BOOL: return tfx_asm_const_bool(as, e->u.b);
    case TFX_AST_E_STRING: return tfx_asm_const_strn(as, e->u.str.s, e->u.str.len);
    case TFX_AST_E_DTYPE: {
      const ProtobufCEnumValue *v =
          protobuf_c_enum_descriptor_get_value_by_name(&tensorflow__data_type__descriptor, e->u.name);
      return v ? tfx_asm_const_dtype(as, v->value) : TFX_PACK_NONE;
    }
    default: return TFX_PACK_NONE;
  }
}

/* A condition the engine decides: and/or/not of `V == LITERAL` / `V != LITERAL`. */
static int sig_cond(flow_cc *f, const tfx_ast_expr *e, tfx_strbuf *b, unsigned depth) {
  if (!e || depth > FLOW_SIG_MAX_DEPTH) return 0;
  if (e->kind == TFX_AST_E_UNARY && e->u.op.op == TFX_AST_OP_NOT) {
    tfx_sb_puts(b, " !");
    return sig_cond(f, e->u.op.a, b, depth + 1);
  }
  if (e->kind != TFX_AST_E_BINARY) return 0;
  tfx_ast_op op = e->u.op.op;
  if (op == TFX_AST_OP_AND || op == TFX_AST_OP_OR) {
    tfx_sb_puts(b, op == TFX_AST_OP_AND ? " &" : " |");
    return sig_cond(f, e->u.op.a, b, depth + 1) && sig_cond(f, e->u.op.b, b, depth + 1);
  }
  if (op != TFX_AST_OP_EQ && op != TFX_AST_OP_NE) return 0;
  const tfx_ast_expr *v = e->u.op.a, *lit = e->u.op.b;
  uint32_t k = sig_literal(f, lit);
  if (k == TFX_PACK_NONE) {
    v = e->u.op.b;
    lit = e->u.op.a;
    k = sig_literal(f, lit);
  }
  if (k == TFX_PACK_NONE) return 0;
  if (op == TFX_AST_OP_NE) tfx_sb_puts(b, " !");
  tfx_sb_puts(b, " =");
  if (!sig_value(f, v, b)) return 0;
  tfx_sb_printf(b, " %u", k);
  return 1;
}

/* Appends the conjuncts of e (left to right) while the engine can decide them; 0 at the first
 * one it cannot (the caller stops there). */
static int sig_conjuncts(flow_cc *f, const tfx_ast_expr *e, tfx_strbuf *b, uint32_t *n, unsigned depth) {
  if (depth > TFX_AST_MAX_DEPTH) return 0;
  if (e->kind == TFX_AST_E_BINARY && e->u.op.op == TFX_AST_OP_AND)
    return sig_conjuncts(f, e->u.op.a, b, n, depth + 1) && sig_conjuncts(f, e->u.op.b, b, n, depth + 1);
  size_t mark = b->len;
  if (!sig_cond(f, e, b, 0)) {
    b->len = mark;
    return 0;
  }
  (*n)++;
  return 1;
}

/* The signature string, or NULL (none: the program always runs). */
static uint32_t flow_signature(flow_cc *f) {
  tfx_strbuf b, w;
  tfx_sb_init(&b);
  tfx_sb_init(&w);
  int ok = 1;
  tfx_sb_printf(&b, "#sig %u %u", f->nm, f->ncap);
  for (uint32_t i = 0; i < f->nm && ok; i++) {
    const tfx_ast_stmt *st = f->m[i].st;
    uint32_t nt = 0;
    for (const tfx_ast_name *t = st->names; t; t = t->next) nt++;
    tfx_sb_printf(&b, " m %u", nt);
    for (const tfx_ast_name *t = st->names; t && ok; t = t->next) {
      ok = sig_name_ok(t->s);
      tfx_sb_printf(&b, " %s", t->s);
    }
    tfx_sb_printf(&b, " %u %d", st->n_args, f->m[i].choice >= 0);
    for (const tfx_ast_node_arg *a = st->args; a; a = a->next) {
      fmatch *q = a->kind == TFX_AST_ARG_NAME || a->kind == TFX_AST_ARG_PORT ? find_match(f, a->node.s) : NULL;
      fcap *k = a->kind == TFX_AST_ARG_NAME && !q ? find_cap(f, a->node.s) : NULL;
      if (q && strcmp(a->node.s, "_"))
        tfx_sb_printf(&b, " e %u %lld", (unsigned)(q - f->m), (long long)(a->kind == TFX_AST_ARG_PORT ? a->port : 0));
      else if (k && strcmp(a->node.s, "_"))
        tfx_sb_printf(&b, " c %u", (unsigned)(k - f->cap));
      else
        tfx_sb_puts(&b, " _");
    }
  }
  uint32_t nw = 0;
  int more = 1;
  for (const tfx_ast_stmt *st = f->rw->body; st && more; st = st->next)
    if ((st->kind == TFX_AST_S_MATCH || st->kind == TFX_AST_S_WHERE) && st->expr)
      more = sig_conjuncts(f, st->expr, &w, &nw, 0);
  tfx_sb_printf(&b, " w %u", nw);
  tfx_sb_add(&b, w.data, w.len);
  uint32_t k = TFX_PACK_NONE;
  if (b.oom || w.oom) tfx_cc_oom(f->c);
  else if (ok && b.len < 65536) k = tfx_asm_const_strn(&f->c->as, b.data, b.len);
  tfx_sb_free(&b);
  tfx_sb_free(&w);
  return k;
}

static void compile_rewrite(tfx_cc *c, const tfx_ast_rewrite *rw) {
  tfx_asm *as = &c->as;
  flow_cc F;
  memset(&F, 0, sizeof F);
  F.c = c;
  F.rw = rw;
  c->kind = TFX_AST_SCOPERULE;
  uint32_t nm = 0, nargs = 0;
  for (const tfx_ast_stmt *st = rw->body; st; st = st->next)
    if (st->kind == TFX_AST_S_MATCH) {
      nm++;
      nargs += st->n_args;
    }
  if (!nm) return;
  F.m = tfx_calloc(nm, sizeof *F.m);
  F.cap = tfx_calloc(nargs + 1, sizeof *F.cap);
  F.fail = tfx_calloc(FLOW_MAX_CHOICES + 2, sizeof *F.fail);
  if (!F.m || !F.cap || !F.fail) {
    tfx_cc_oom(c);
    goto out;
  }
  const tfx_ast_stmt *root = NULL;
  for (const tfx_ast_stmt *st = rw->body; st; st = st->next) {
    if (st->kind != TFX_AST_S_MATCH) continue;
    if (!root) root = st;
    fmatch *mi = &F.m[F.nm++];
    mi->st = st;
    mi->choice = -1;
    int comm = st->n_args == 2;
    for (const tfx_ast_name *t = st->names; t && comm; t = t->next) comm = tfx_flow_commutative(t->s);
    if (comm) {
      if (F.k >= FLOW_MAX_CHOICES) {
        tfx_cc_error(c, st->loc, "more than %d commutative matches in one rewrite", FLOW_MAX_CHOICES);
        goto out;
      }
      mi->choice = (int)F.k++;
    }
  }
  for (uint32_t i = 0; i < F.nm; i++) /* captures: names that are not matches, in order */
    for (const tfx_ast_node_arg *a = F.m[i].st->args; a; a = a->next)
      if (a->kind == TFX_AST_ARG_NAME && strcmp(a->node.s, "_") && !find_match(&F, a->node.s) &&
          !find_cap(&F, a->node.s))
        F.cap[F.ncap++].name = a->node.s;
  for (const tfx_ast_stmt *st = rw->body; st; st = st->next)
    if (st->kind == TFX_AST_S_REWIRE) {
      fmatch *q = find_match(&F, st->args->node.s);
      if (q) q->rewired = 1;
    }

  /* the rule */
  uint32_t r = tfx_asm_rule(as, TFX_RULE_FLOW, rw->name.s, rw->general ? TFX_RULE_GENERAL : 0);
  uint32_t nty = 0;
  for (const tfx_ast_name *t = root->names; t; t = t->next) nty++;
  uint32_t *el = tfx_malloc((nty + 1) * sizeof *el);
  if (!el) {
    tfx_cc_oom(c);
    goto out;
  }
  nty = 0;
  for (const tfx_ast_name *t = root->names; t; t = t->next) el[nty++] = tfx_asm_const_str(as, t->s);
  /* index key (engine, second level): "" then the types of the first match the root reads */
  const tfx_ast_stmt *child = NULL;
  for (const tfx_ast_node_arg *a = root->args; a && !child; a = a->next) {
    fmatch *q = a->kind == TFX_AST_ARG_NAME || a->kind == TFX_AST_ARG_PORT ? find_match(&F, a->node.s) : NULL;
    if (q && q->st != root) child = q->st;
  }
  if (child) {
    uint32_t nc = 0;
    for (const tfx_ast_name *t = child->names; t; t = t->next) nc++;
    uint32_t *el2 = tfx_realloc(el, (nty + nc + 2) * sizeof *el2);
    if (!el2) {
      free(el);
      tfx_cc_oom(c);
      goto out;
    }
    el = el2;
    el[nty++] = tfx_asm_const_str(as, "");
    for (const tfx_ast_name *t = child->names; t; t = t->next) el[nty++] = tfx_asm_const_str(as, t->s);
  }
  uint32_t ksig = flow_signature(&F);
  if (ksig != TFX_PACK_NONE) {
    uint32_t *el2 = tfx_realloc(el, (nty + 3) * sizeof *el2);
    if (!el2) {
      free(el);
      tfx_cc_oom(c);
      goto out;
    }
    el = el2;
    if (!child) el[nty++] = tfx_asm_const_str(as, "");
    el[nty++] = ksig;
  }
  uint32_t kfrom = tfx_asm_const_list(as, el, nty);
  free(el);
  tfx_vm_rule *ru = tfx_asm_rule_at(as, r);
  if (ru) {
    unsigned line, col;
    tfx_ruleset_linecol(c->rs, rw->loc, &line, &col);
    ru->from = kfrom;
    ru->to = tfx_asm_const_str(as, flow_to(rw));
    ru->file = tfx_asm_file(as, tfx_ruleset_source(c->rs, rw->loc.file)->name);
    ru->line = line;
  }

  /* the program */
  tfx_asm_prog_begin(as, TFX_PK_MAP, r);
  c->top = 1;
  c->overflow = 0;
  uint32_t vmark = c->n_vars;
  uint32_t mbase = tfx_cc_alloc(c, F.nm, rw->loc);
  uint32_t ibase = tfx_cc_alloc(c, F.nm, rw->loc);
  uint32_t cbase = F.ncap ? tfx_cc_alloc(c, 4 * F.ncap, rw->loc) : 0;
  F.mask = tfx_cc_alloc(c, 1, rw->loc);
  F.t = tfx_cc_alloc(c, 7, rw->loc);
  for (uint32_t i = 0; i < F.nm; i++) {
    F.m[i].reg = mbase + i;
    F.m[i].ins = ibase + i;
    if (tfx_cc_push_var(c, F.m[i].st->name.s, F.m[i].reg, TFX_CK_UNKNOWN)) goto out;
  }
  for (uint32_t i = 0; i < F.ncap; i++) {
    F.cap[i].reg = cbase + 4 * i;
    if (tfx_cc_push_var(c, F.cap[i].name, F.cap[i].reg + 3, TFX_CK_UNKNOWN)) goto out;
  }
  for (uint32_t u = 0; u <= F.k; u++) F.fail[u] = tfx_asm_label_new(as);
  uint32_t again = tfx_asm_label_new(as);
  tfx_cc_loc(c, rw->loc);
  EMIT(LOADI, F.mask, 0, 0);
  tfx_asm_label_here(as, again);
  for (uint32_t i = 0; i < F.nm; i++) F.m[i].bound = i == 0;
  for (uint32_t i = 0; i < F.ncap; i++) F.cap[i].bound = 0;
  EMIT(MOVE, F.m[0].reg, 0, 0);
  uint32_t u = 0;
  for (uint32_t i = 0; i < F.nm && !c->oom; i++) match_edges(&F, &F.m[i], &u);
  /* conditions, in source order */
  for (const tfx_ast_stmt *st = rw->body; st; st = st->next)
    if ((st->kind == TFX_AST_S_MATCH || st->kind == TFX_AST_S_WHERE) && st->expr) where_check(&F, st->expr);
  /* use constraints: a matched node without `out` is read only inside the match */
  uint32_t t = F.t;
  uint32_t mark = c->top;
  uint32_t list = tfx_cc_alloc(c, 4, rw->loc);
  EMIT(NEWLIST, list, mbase, F.nm);
  for (uint32_t i = 0; i < F.nm; i++) {
    if (F.m[i].rewired) continue;
    const char *nm2 = F.m[i].st->name.s;
    uint32_t fid = feature(&F, F.m[i].st->loc, "%s: no consumer outside the match", nm2);
    uint32_t loop = tfx_asm_label_new(as), done = tfx_asm_label_new(as);
    EMIT4(CALL, t, TFX_BI_consumers, F.m[i].reg, 1);
    EMIT(ITER, list + 1, t, 0);
    tfx_asm_label_here(as, loop);
    EMIT(NEXT, list + 1, list + 3, done);
    EMIT(IN, t + 2, list + 3, list);
    check(&F, fid, t + 2, list + 3, F.k);
    EMIT(JMP, loop, 0, 0);
    tfx_asm_label_here(as, done);
  }
  /* effects */
  for (const tfx_ast_stmt *st = rw->body; st; st = st->next)
    if (st->kind == TFX_AST_S_NODE) new_node(&F, st);
  for (const tfx_ast_stmt *st = rw->body; st; st = st->next)
    if (st->kind == TFX_AST_S_REWIRE) rewire(&F, st);
  tfx_cc_loc(c, rw->loc);
  EMIT(DF_DEL, list, 0, 0);
  EMIT(LOADB, t, 1, 0);
  EMIT(RET, t, 0, 0);
  c->top = mark;
  /* failures: the next order of the commutative operands, or no match */
  for (uint32_t v = 0; v <= F.k; v++) {
    tfx_asm_label_here(as, F.fail[v]);
    if (v > 0) {
      tfx_cc_load_int(c, t + 1, (int64_t)1 << (F.k - v));
      EMIT(DIV, t, F.mask, t + 1);
      tfx_cc_load_int(c, t + 2, 1);
      EMIT(ADD, t, t, t + 2);
      EMIT(MUL, F.mask, t, t + 1);
      tfx_cc_load_int(c, t + 1, (int64_t)1 << F.k);
      EMIT(LT, t + 2, F.mask, t + 1);
      EMIT(JT, t + 2, again, 0);
    }
    EMIT(LOADB, t, 0, 0);
    EMIT(RET, t, 0, 0);
  }
  tfx_asm_prog_end(as);
  c->n_vars = vmark;
out:
  free(F.m);
  free(F.cap);
  free(F.fail);
}

void tfx_cc_rewrites(tfx_cc *c) {
  for (size_t f = 0; f < tfx_ruleset_n_sources(c->rs) && !c->oom; f++) {
    const tfx_rules_source *src = tfx_ruleset_source(c->rs, (uint32_t)f);
    if (!src || !src->ast) continue;
    for (const tfx_ast_rewrite *rw = src->ast->rewrites; rw && !c->oom; rw = rw->next)
      if (!rw->overridden) compile_rewrite(c, rw);
  }
}
