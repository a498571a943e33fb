/* AST builders for the grammar's actions, and syntax-error reporting with hints.
 * Stage: rules, parsing. Input: token values and reduced children from grammar/rules.y.
 * Output: arena nodes (rules/ast.h) linked into the parse context's file; errors reported
 * through the rule set with locations. See build.h for the contract. */
#include "rules/build.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- reporting */

void tfx_rules_reportv(tfx_ruleset *rs, tfx_diag *d, tfx_severity sev, tfx_rules_loc loc,
                       const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

void tfx_rules_perror(tfx_rules_pctx *P, tfx_rules_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tfx_rules_reportv(P->rs, P->d, TFX_SEV_ERROR, loc, fmt, ap);
  va_end(ap);
  P->errors++;
}

void tfx_rules_oom(tfx_rules_pctx *P) {
  if (P->oom) return;
  P->oom = 1;
  P->rs->oom = 1;
  tfx_rules_loc l = {P->file, P->last_end, P->last_end};
  tfx_rules_perror(P, l, "out of memory while parsing");
}

void *tfx_rules_yymalloc(tfx_rules_pctx *P, size_t n) {
  void *p = tfx_malloc(n);
  if (!p) P->stack_oom = 1;
  return p;
}

void tfx_rules_loc_span(tfx_rules_loc *cur, const tfx_rules_loc *rhs, int n) {
  if (n > 0) {
    cur->file = rhs[1].file;
    cur->off = rhs[1].off;
    cur->end = rhs[n].end;
  } else { /* empty rule: an empty range at the end of the previous symbol */
    cur->file = rhs[0].file;
    cur->off = cur->end = rhs[0].end;
  }
}

static int descriptive(const char *name) {
  return !strcmp(name, "identifier") || !strcmp(name, "string") || !strcmp(name, "integer") ||
         !strcmp(name, "number") || !strcmp(name, "end of file");
}

static void quote(char *dst, size_t size, const char *name) {
  if (name[0] == '\'' || descriptive(name)) snprintf(dst, size, "%s", name);
  else snprintf(dst, size, "'%s'", name);
}

void tfx_rules_flush_pending(tfx_rules_pctx *P) {
  if (!P->pending) return;
  P->pending = 0;
  tfx_rules_perror(P, P->pend_loc, "%s", P->pend_msg);
}

static void linecol(tfx_rules_pctx *P, uint32_t off, unsigned *line, unsigned *col) {
  tfx_rules_loc l = {P->file, off, off};
  tfx_ruleset_linecol(P->rs, l, line, col);
}

static int has_name(const char *const *v, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (!strcmp(v[i], name)) return 1;
  return 0;
}

/* 1 when the unexpected token starts a later line than the previous token, or closes a block
 * or the file: the usual shape of a forgotten ';'. */
static int after_line_end(tfx_rules_pctx *P, tfx_rules_loc loc, int eof) {
  const tfx_rules_source *src = tfx_ruleset_source(P->rs, P->file);
  if (eof || (loc.off < src->len && src->text[loc.off] == '}')) return 1;
  for (uint32_t i = P->prev_end; i < loc.off && i < src->len; i++)
    if (src->text[i] == '\n') return 1;
  return 0;
}

void tfx_rules_syntax_error(tfx_rules_pctx *P, tfx_rules_loc loc, int eof, const char *unexpected,
                            const char *const *expected, int n_expected) {
  tfx_rules_flush_pending(P);
  char *m = P->pend_msg;
  size_t cap = sizeof P->pend_msg;
  P->pending = 1;
  P->pend_loc = loc;
  P->pend_prev_end = P->prev_end;
  P->pend_eof = eof;
  char q[64];
  quote(q, sizeof q, unexpected);
  if (has_name(expected, n_expected, "';'") && after_line_end(P, loc, eof) && P->prev_end > 0) {
    snprintf(m, cap, "expected ';' before %s", q);
    P->pend_loc.off = P->prev_end;
    P->pend_loc.end = P->prev_end + 1;
    return;
  }
  if (eof && P->n_braces) {
    uint32_t i = P->n_braces <= TFX_RULES_MAX_BRACES ? P->n_braces - 1 : TFX_RULES_MAX_BRACES - 1;
    unsigned line, col;
    linecol(P, P->braces[i].off, &line, &col);
    snprintf(m, cap, "expected '}' at end of file to close the '{' opened at %u:%u", line, col);
    P->pend_loc.off = P->prev_end;
    P->pend_loc.end = P->prev_end + 1;
    return;
  }
  int kw = unexpected[0] >= 'a' && unexpected[0] <= 'z' && !descriptive(unexpected);
  if (kw && has_name(expected, n_expected, "identifier")) {
    snprintf(m, cap, "%s is a keyword and cannot be used as a name here", q);
    return;
  }
  size_t n = (size_t)snprintf(m, cap, "unexpected %s", q);
  if (has_name(expected, n_expected, "integer") && has_name(expected, n_expected, "string") &&
      has_name(expected, n_expected, "'('")) {
    snprintf(m + n, cap - n, ", expected an expression");
  } else if (n_expected >= 1 && n_expected <= 6) {
    for (int i = 0; i < n_expected && n < cap; i++) {
      quote(q, sizeof q, expected[i]);
      const char *sep = i == 0 ? ", expected " : i == n_expected - 1 ? " or " : ", ";
      n += (size_t)snprintf(m + n, cap - n, "%s%s", sep, q);
    }
  }
}

void tfx_rules_parse_failed(tfx_rules_pctx *P, const tfx_rules_loc *loc, const char *msg) {
  tfx_rules_flush_pending(P);
  if (!strcmp(msg, "memory exhausted") && P->stack_oom)
    tfx_rules_oom(P); /* a resource failure (exit 1), not an error of the rule file */
  else if (!strcmp(msg, "memory exhausted"))
    tfx_rules_perror(P, *loc, "rules nested too deeply (parser stack exhausted)");
  else
    tfx_rules_perror(P, *loc, "%s", msg);
}

void tfx_rules_recovered(tfx_rules_pctx *P) { tfx_rules_flush_pending(P); }

void tfx_rules_hint_unknown_feature(tfx_rules_pctx *P, const tfx_ast_name *word) {
  P->pending = 0;
  tfx_rules_perror(P, word->loc,
                   "unknown feature '%s' (a pattern holds count, present, absent, attr, scopes, "
                   "name and has_child)", word->s);
}

void tfx_rules_hint_arrow(tfx_rules_pctx *P, tfx_rules_loc loc, const char *what) {
  const tfx_rules_source *src = tfx_ruleset_source(P->rs, P->file);
  tfx_rules_perror(P, loc, "expected '->' in the %s, found '%.*s'", what,
                   (int)(loc.end - loc.off), src->text + loc.off);
}

/* ---------------------------------------------------------------- helpers */

static void *node(tfx_rules_pctx *P, size_t size) {
  void *p = tfx_arena_calloc(P->arena, 1, size);
  if (!p) tfx_rules_oom(P);
  return p;
}
#define NEW(T) ((T *)node(P, sizeof(T)))

#define LIST_ADD(l, x)                 \
  do {                                 \
    if (x) {                           \
      if ((l).tail) (l).tail->next = (x); \
      else (l).head = (x);             \
      (l).tail = (x);                  \
      (l).n++;                         \
    }                                  \
  } while (0)

tfx_ast_name tfx_ast_name_str(tfx_rules_pctx *P, const tfx_ast_strv *s, tfx_rules_loc loc) {
  tfx_ast_name n = {s->s, loc, NULL};
  if (memchr(s->s, 0, s->len)) tfx_rules_perror(P, loc, "a name cannot contain a NUL byte");
  return n;
}

tfx_ast_name tfx_ast_kw(tfx_rules_pctx *P, tfx_rules_loc loc) {
  const tfx_rules_source *src = tfx_ruleset_source(P->rs, P->file);
  tfx_ast_name n = {tfx_arena_strndup(P->arena, src->text + loc.off, loc.end - loc.off), loc, NULL};
  if (!n.s) {
    tfx_rules_oom(P);
    n.s = "";
  }
  return n;
}

tfx_ast_names tfx_ast_names_empty(void) { return (tfx_ast_names){0}; }

tfx_ast_names tfx_ast_names_add(tfx_rules_pctx *P, tfx_ast_names l, const tfx_ast_name *n) {
  tfx_ast_name *x = NEW(tfx_ast_name);
  if (x) {
    *x = *n;
    x->next = NULL;
  }
  LIST_ADD(l, x);
  return l;
}

tfx_ast_intv tfx_ast_int_lit(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_intv v, int negate) {
  tfx_ast_intv r = {0, 0};
  if (v.min && !negate) tfx_rules_perror(P, loc, "integer literal out of range (the limit is 9223372036854775807)");
  else if (v.min) r.v = INT64_MIN;
  else r.v = negate ? -v.v : v.v;
  return r;
}

/* ---------------------------------------------------------------- expressions */

static uint16_t depth_of(const tfx_ast_expr *e) { return e ? e->depth : 0; }

/* How to raise the rule-depth limit, after "the limit is N levels". */
static const char *depth_hint(const tfx_rules_pctx *P) {
  return P->max_depth < TFX_AST_MAX_DEPTH
             ? "; raise the rule-depth limit with --limit rule-depth=N, at most 1024"
             : ", the largest rule-depth limit";
}

static tfx_ast_expr *expr(tfx_rules_pctx *P, tfx_ast_expr_kind kind, tfx_rules_loc loc,
                          uint16_t child_depth) {
  tfx_ast_expr *e = NEW(tfx_ast_expr);
  if (!e) return NULL;
  e->kind = kind;
  e->loc = loc;
  unsigned d = (unsigned)child_depth + 1;
  if (d == P->max_depth + 1)
    tfx_rules_perror(P, loc, "expression nested too deeply (the limit is %u levels%s)", P->max_depth,
                     depth_hint(P));
  e->depth = (uint16_t)(d > TFX_AST_MAX_DEPTH + 1 ? TFX_AST_MAX_DEPTH + 1 : d);
  return e;
}

static uint16_t max16(uint16_t a, uint16_t b) { return a > b ? a : b; }

tfx_ast_expr *tfx_ast_int_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_intv v) {
  tfx_ast_expr *e = expr(P, TFX_AST_E_INT, loc, 0);
  if (e) {
    e->u.i = v.v;
    e->int_min = (uint8_t)v.min;
  }
  return e;
}

tfx_ast_expr *tfx_ast_float_new(tfx_rules_pctx *P, tfx_rules_loc loc, double v) {
  tfx_ast_expr *e = expr(P, TFX_AST_E_FLOAT, loc, 0);
  if (e) e->u.f = v;
  return e;
}

tfx_ast_expr *tfx_ast_string_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_strv s) {
  tfx_ast_expr *e = expr(P, TFX_AST_E_STRING, loc, 0);
  if (e) {
    e->u.str.s = s.s;
    e->u.str.len = s.len;
  }
  return e;
}

tfx_ast_expr *tfx_ast_bool_new(tfx_rules_pctx *P, tfx_rules_loc loc, int b) {
  tfx_ast_expr *e = expr(P, TFX_AST_E_BOOL, loc, 0);
  if (e) e->u.b = b;
  return e;
}

tfx_ast_expr *tfx_ast_none_new(tfx_rules_pctx *P, tfx_rules_loc loc) {
  return expr(P, TFX_AST_E_NONE, loc, 0);
}

tfx_ast_expr *tfx_ast_ident_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *n) {
  const char *s = n ? n->s : "op";
  int dt = !strncmp(s, "DT_", 3);
  tfx_ast_expr *e = expr(P, dt ? TFX_AST_E_DTYPE : TFX_AST_E_IDENT, loc, 0);
  if (e) e->u.name = s;
  return e;
}

tfx_ast_expr *tfx_ast_input_new(tfx_rules_pctx *P, tfx_rules_loc loc, int64_t port) {
  tfx_ast_expr *e = expr(P, TFX_AST_E_INPUT, loc, 0);
  if (e) e->u.i = port;
  return e;
}

tfx_ast_expr *tfx_ast_paren(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *e) {
  (void)P;
  (void)loc;
  if (e) e->paren = 1;
  return e;
}

tfx_ast_expr *tfx_ast_list_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_exprs *items) {
  uint16_t d = 0;
  if (items)
    for (const tfx_ast_expr *x = items->head; x; x = x->next) d = max16(d, x->depth);
  tfx_ast_expr *e = expr(P, TFX_AST_E_LIST, loc, d);
  if (e && items) {
    e->u.list.items = items->head;
    e->u.list.n = items->n;
  }
  return e;
}

tfx_ast_expr *tfx_ast_dict_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_dict *items) {
  uint16_t d = 0;
  if (items) {
    for (const tfx_ast_expr *x = items->kh; x; x = x->next) d = max16(d, x->depth);
    for (const tfx_ast_expr *x = items->vh; x; x = x->next) d = max16(d, x->depth);
  }
  tfx_ast_expr *e = expr(P, TFX_AST_E_DICT, loc, d);
  if (e && items) {
    e->u.dict.keys = items->kh;
    e->u.dict.values = items->vh;
    e->u.dict.n = items->n;
  }
  return e;
}

tfx_ast_expr *tfx_ast_call_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *fn,
                               const tfx_ast_exprs *args) {
  uint16_t d = 0;
  if (args)
    for (const tfx_ast_expr *x = args->head; x; x = x->next) d = max16(d, x->depth);
  tfx_ast_expr *e = expr(P, TFX_AST_E_CALL, loc, d);
  if (e) {
    e->u.call.name = fn->s;
    e->u.call.name_loc = fn->loc;
    if (args) {
      e->u.call.args = args->head;
      e->u.call.nargs = args->n;
    }
  }
  return e;
}

tfx_ast_expr *tfx_ast_quant_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *fn,
                                const tfx_ast_name *var, tfx_ast_expr *list, tfx_ast_expr *cond) {
  tfx_ast_expr *e = expr(P, TFX_AST_E_QUANT, loc, max16(depth_of(list), depth_of(cond)));
  if (!e) return NULL;
  static const char *const names[] = {"any", "all", "count", "first"};
  int q = -1;
  for (int i = 0; i < 4; i++)
    if (!strcmp(fn->s, names[i])) q = i;
  if (q < 0) {
    tfx_rules_perror(P, fn->loc, "'%s(v in LIST : COND)': only any, all, count and first take this form",
                     fn->s);
    q = 0;
  }
  e->u.quant.q = (tfx_ast_quant_kind)q;
  e->u.quant.var = var->s;
  e->u.quant.var_loc = var->loc;
  e->u.quant.list = list;
  e->u.quant.cond = cond;
  return e;
}

tfx_ast_expr *tfx_ast_unary(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_op op, tfx_ast_expr *a) {
  /* Fold the sign into a literal so that -3, -0.5 and -9223372036854775808 are literals. */
  if (op == TFX_AST_OP_NEG && a && !a->paren) {
    if (a->kind == TFX_AST_E_INT && (a->int_min || a->u.i != INT64_MIN)) {
      if (a->int_min) a->int_min = 0;
      else a->u.i = -a->u.i;
      a->loc.off = loc.off;
      return a;
    }
    if (a->kind == TFX_AST_E_FLOAT) {
      a->u.f = -a->u.f;
      a->loc.off = loc.off;
      return a;
    }
  }
  tfx_ast_expr *e = expr(P, TFX_AST_E_UNARY, loc, depth_of(a));
  if (e) {
    e->u.op.op = op;
    e->u.op.a = a;
  }
  return e;
}

tfx_ast_expr *tfx_ast_binary(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_op op, tfx_ast_expr *a,
                             tfx_ast_expr *b) {
  tfx_ast_expr *e = expr(P, TFX_AST_E_BINARY, loc, max16(depth_of(a), depth_of(b)));
  if (e) {
    e->u.op.op = op;
    e->u.op.a = a;
    e->u.op.b = b;
  }
  return e;
}

tfx_ast_expr *tfx_ast_cond_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *c,
                               tfx_ast_expr *t, tfx_ast_expr *f) {
  tfx_ast_expr *e = expr(P, TFX_AST_E_COND, loc, max16(depth_of(c), max16(depth_of(t), depth_of(f))));
  if (e) {
    e->u.cond.c = c;
    e->u.cond.t = t;
    e->u.cond.f = f;
  }
  return e;
}

tfx_ast_expr *tfx_ast_index_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *base,
                                tfx_ast_expr *index) {
  int perm = index && index->kind == TFX_AST_E_LIST && !index->paren;
  tfx_ast_expr *e = expr(P, perm ? TFX_AST_E_PERMUTE : TFX_AST_E_INDEX, loc,
                         max16(depth_of(base), depth_of(index)));
  if (e) {
    e->u.index.base = base;
    e->u.index.index = index;
  }
  return e;
}

tfx_ast_expr *tfx_ast_slice_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *base,
                                tfx_ast_expr *lo, tfx_ast_expr *hi) {
  tfx_ast_expr *e = expr(P, TFX_AST_E_SLICE, loc, max16(depth_of(base), max16(depth_of(lo), depth_of(hi))));
  if (e) {
    e->u.slice.base = base;
    e->u.slice.lo = lo;
    e->u.slice.hi = hi;
  }
  return e;
}

tfx_ast_expr *tfx_ast_prop_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *base,
                               const tfx_ast_name *name) {
  tfx_ast_expr *e = expr(P, TFX_AST_E_PROP, loc, depth_of(base));
  if (e) {
    e->u.prop.base = base;
    e->u.prop.name = name->s;
    e->u.prop.name_loc = name->loc;
  }
  return e;
}

tfx_ast_exprs tfx_ast_exprs_empty(void) { return (tfx_ast_exprs){0}; }
tfx_ast_exprs tfx_ast_exprs_add(tfx_ast_exprs l, tfx_ast_expr *e) {
  LIST_ADD(l, e);
  return l;
}

tfx_ast_dict tfx_ast_dict_empty(void) { return (tfx_ast_dict){0}; }
tfx_ast_dict tfx_ast_dict_add(tfx_ast_dict d, tfx_ast_expr *k, tfx_ast_expr *v) {
  if (!k || !v) return d;
  if (d.kt) d.kt->next = k;
  else d.kh = k;
  d.kt = k;
  if (d.vt) d.vt->next = v;
  else d.vh = v;
  d.vt = v;
  d.n++;
  return d;
}

const char *tfx_ast_op_name(tfx_ast_op op) {
  static const char *const names[] = {"not", "-", "or", "and", "??", "==", "!=", "<", "<=",
                                      ">", ">=", "contains", "starts_with", "ends_with",
                                      "+", "-", "*", "/", "%"};
  _Static_assert(sizeof names / sizeof names[0] == TFX_AST_OP_MOD + 1, "operator names");
  return (unsigned)op <= TFX_AST_OP_MOD ? names[op] : "?";
}

/* ---------------------------------------------------------------- scope rules */

tfx_ast_feature *tfx_ast_feature_new(tfx_rules_pctx *P, tfx_ast_feature_kind kind, tfx_rules_loc loc,
                                     const tfx_ast_name *first, const tfx_ast_name *attr,
                                     tfx_ast_expr *step, tfx_ast_expr *value) {
  tfx_ast_feature *f = NEW(tfx_ast_feature);
  if (!f) return NULL;
  f->kind = kind;
  f->loc = loc;
  if (first) {
    if (kind == TFX_AST_F_SCOPES_EQ) f->sub_type = *first;
    else f->op_type = *first;
  }
  if (attr) f->attr = *attr;
  f->op_type.next = f->sub_type.next = f->attr.next = NULL;
  f->step = step;
  f->value = value;
  return f;
}

tfx_ast_feature *tfx_ast_feature_typo(tfx_rules_pctx *P, tfx_ast_feature_kind kind,
                                      tfx_rules_loc loc, tfx_rules_loc eq_loc,
                                      const tfx_ast_name *first, const tfx_ast_name *attr,
                                      tfx_ast_expr *step, tfx_ast_expr *value) {
  tfx_rules_perror(P, eq_loc, "a feature compares with '==', not '='");
  return tfx_ast_feature_new(P, kind, loc, first, attr, step, value);
}

tfx_ast_features tfx_ast_features_empty(void) { return (tfx_ast_features){0}; }
tfx_ast_features tfx_ast_features_add(tfx_ast_features l, tfx_ast_feature *f) {
  LIST_ADD(l, f);
  return l;
}

tfx_ast_pattern *tfx_ast_pattern_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *sub_type,
                                     const tfx_ast_features *features) {
  tfx_ast_pattern *p = NEW(tfx_ast_pattern);
  if (!p) return NULL;
  p->loc = loc;
  p->sub_type = *sub_type;
  p->sub_type.next = NULL;
  p->features = features->head;
  p->n_features = features->n;
  return p;
}

tfx_ast_patterns tfx_ast_patterns_empty(void) { return (tfx_ast_patterns){0}; }
tfx_ast_patterns tfx_ast_patterns_add(tfx_ast_patterns l, tfx_ast_pattern *p) {
  LIST_ADD(l, p);
  return l;
}

tfx_ast_layer *tfx_ast_layer_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_patterns *patterns) {
  tfx_ast_layer *l = NEW(tfx_ast_layer);
  if (!l) return NULL;
  l->loc = loc;
  l->patterns = patterns->head;
  l->n_patterns = patterns->n;
  return l;
}

tfx_ast_layers tfx_ast_layers_empty(void) { return (tfx_ast_layers){0}; }
tfx_ast_layers tfx_ast_layers_add(tfx_ast_layers l, tfx_ast_layer *x) {
  LIST_ADD(l, x);
  return l;
}

tfx_ast_group *tfx_ast_group_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_layers *layers) {
  tfx_ast_group *g = NEW(tfx_ast_group);
  if (!g) return NULL;
  g->loc = loc;
  g->layers = layers->head;
  g->n_layers = layers->n;
  return g;
}

tfx_ast_require *tfx_ast_require_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *cond) {
  tfx_ast_require *r = NEW(tfx_ast_require);
  if (!r) return NULL;
  r->loc = loc;
  r->cond = cond;
  return r;
}

tfx_ast_bindings tfx_ast_bindings_empty(void) { return (tfx_ast_bindings){0}; }

tfx_ast_bindings tfx_ast_bindings_add(tfx_rules_pctx *P, tfx_ast_bindings l, const tfx_ast_name *var,
                                      const tfx_ast_name *sub_type) {
  tfx_ast_name *st = NEW(tfx_ast_name);
  if (!st) return l;
  *st = *sub_type;
  st->next = NULL;
  if (!var && !l.tail) return l; /* the binding itself was lost (out of memory) */
  if (var) {
    tfx_ast_binding *b = NEW(tfx_ast_binding);
    if (!b) return l;
    b->var = *var;
    b->var.next = NULL;
    b->sub_types = st;
    b->n_sub_types = 1;
    LIST_ADD(l, b);
    return l;
  }
  tfx_ast_name *t = l.tail->sub_types;
  if (!t) { /* after `v in f()`: sema reports it */
    l.tail->sub_types = st;
    l.tail->n_sub_types++;
    return l;
  }
  while (t->next) t = t->next; /* sub_type lists are short */
  t->next = st;
  l.tail->n_sub_types++;
  return l;
}

tfx_ast_bindings tfx_ast_bindings_add_call(tfx_rules_pctx *P, tfx_ast_bindings l, const tfx_ast_name *var,
                                           tfx_ast_expr *call) {
  tfx_ast_binding *b = NEW(tfx_ast_binding);
  if (!b || !call) return l;
  b->var = *var;
  b->var.next = NULL;
  b->source = call;
  LIST_ADD(l, b);
  return l;
}

static uint16_t stmts_depth(const tfx_ast_stmt *s) {
  uint16_t d = 0;
  for (; s; s = s->next) d = max16(d, s->depth);
  return d;
}

tfx_ast_fuse *tfx_ast_fuse_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_bindings *b,
                               tfx_ast_expr *where, const tfx_ast_stmts *body) {
  tfx_ast_fuse *f = NEW(tfx_ast_fuse);
  if (!f) return NULL;
  f->loc = loc;
  f->bindings = b->head;
  f->n_bindings = b->n;
  f->where = where;
  f->body = body->head;
  return f;
}

tfx_ast_pass *tfx_ast_pass_begin(tfx_rules_pctx *P) {
  P->gtail = NULL;
  P->rtail = NULL;
  P->ftail = NULL;
  return NEW(tfx_ast_pass);
}

tfx_ast_pass *tfx_ast_pass_add_group(tfx_rules_pctx *P, tfx_ast_pass *p, tfx_ast_group *g) {
  if (!p || !g) return p;
  if (p->n_requires || p->n_fuses)
    tfx_rules_perror(P, g->loc, "'group' must come before 'require' and 'fuse' in a pass");
  if (P->gtail) P->gtail->next = g;
  else p->groups = g;
  P->gtail = g;
  p->n_groups++;
  return p;
}

tfx_ast_pass *tfx_ast_pass_add_require(tfx_rules_pctx *P, tfx_ast_pass *p, tfx_ast_require *r) {
  if (!p || !r) return p;
  if (p->n_fuses) tfx_rules_perror(P, r->loc, "'require' must come before the 'fuse' blocks");
  if (P->rtail) P->rtail->next = r;
  else p->requires = r;
  P->rtail = r;
  p->n_requires++;
  return p;
}

tfx_ast_pass *tfx_ast_pass_add_fuse(tfx_rules_pctx *P, tfx_ast_pass *p, tfx_ast_fuse *f) {
  if (!p || !f) return p;
  if (P->ftail) P->ftail->next = f;
  else p->fuses = f;
  P->ftail = f;
  p->n_fuses++;
  return p;
}

tfx_ast_pass *tfx_ast_pass_finish(tfx_rules_pctx *P, tfx_ast_pass *p, tfx_rules_loc loc,
                                  const tfx_ast_name *name, int general) {
  (void)P;
  if (!p) return NULL;
  p->loc = loc;
  p->name = *name;
  p->name.next = NULL;
  p->general = general;
  return p;
}

void tfx_ast_file_add_pass(tfx_rules_pctx *P, tfx_ast_pass *p) {
  if (!p) return;
  if (P->kind != TFX_AST_SCOPERULE) {
    tfx_rules_perror(P, p->loc, "'pass' definitions belong in .scoperule files");
    return;
  }
  if (P->pass_tail) P->pass_tail->next = p;
  else P->ast->passes = p;
  P->pass_tail = p;
  P->ast->n_passes++;
}

/* ---------------------------------------------------------------- statements */

tfx_ast_stmts tfx_ast_stmts_empty(void) { return (tfx_ast_stmts){0}; }
tfx_ast_stmts tfx_ast_stmts_add(tfx_ast_stmts l, tfx_ast_stmt *s) {
  LIST_ADD(l, s);
  return l;
}

static tfx_ast_stmt *stmt(tfx_rules_pctx *P, tfx_ast_stmt_kind kind, tfx_rules_loc loc) {
  tfx_ast_stmt *s = NEW(tfx_ast_stmt);
  if (!s) return NULL;
  s->kind = kind;
  s->loc = loc;
  s->depth = 1;
  return s;
}

static void set_depth(tfx_rules_pctx *P, tfx_ast_stmt *s, uint16_t inner) {
  unsigned d = (unsigned)inner + 1;
  if (d == P->max_depth + 1)
    tfx_rules_perror(P, s->loc, "blocks nested too deeply (the limit is %u levels%s)", P->max_depth,
                     depth_hint(P));
  s->depth = (uint16_t)(d > TFX_AST_MAX_DEPTH + 1 ? TFX_AST_MAX_DEPTH + 1 : d);
}

tfx_ast_stmt *tfx_ast_stmt_expr(tfx_rules_pctx *P, tfx_ast_stmt_kind kind, tfx_rules_loc loc,
                                tfx_ast_expr *e) {
  tfx_ast_stmt *s = stmt(P, kind, loc);
  if (s) s->expr = e;
  return s;
}

tfx_ast_stmt *tfx_ast_stmt_exprs(tfx_rules_pctx *P, tfx_ast_stmt_kind kind, tfx_rules_loc loc,
                                 const tfx_ast_exprs *l) {
  tfx_ast_stmt *s = stmt(P, kind, loc);
  if (s) {
    s->exprs = l->head;
    s->n_exprs = l->n;
  }
  return s;
}

tfx_ast_stmt *tfx_ast_stmt_named(tfx_rules_pctx *P, tfx_ast_stmt_kind kind, tfx_rules_loc loc,
                                 int is_output, const tfx_ast_name *name, tfx_ast_expr *index,
                                 tfx_ast_expr *e) {
  tfx_ast_stmt *s = stmt(P, kind, loc);
  if (!s) return NULL;
  s->is_output = is_output;
  if (name) {
    s->name = *name;
    s->name.next = NULL;
  }
  s->index_expr = index;
  s->expr = e;
  return s;
}

tfx_ast_stmt *tfx_ast_stmt_index_map(tfx_rules_pctx *P, tfx_rules_loc loc, int is_output,
                                     tfx_ast_expr *key, const tfx_ast_portmaps *ports) {
  tfx_ast_stmt *s = stmt(P, TFX_AST_S_INDEX_MAP, loc);
  if (!s) return NULL;
  s->is_output = is_output;
  s->expr = key;
  s->ports = ports->head;
  s->n_ports = ports->n;
  return s;
}

tfx_ast_stmt *tfx_ast_stmt_if(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *cond,
                              const tfx_ast_stmts *then_body, const tfx_ast_stmts *else_body) {
  tfx_ast_stmt *s = stmt(P, TFX_AST_S_IF, loc);
  if (!s) return NULL;
  s->expr = cond;
  s->body = then_body->head;
  if (else_body) {
    s->else_body = else_body->head;
    s->has_else = 1;
  }
  set_depth(P, s, max16(stmts_depth(s->body), stmts_depth(s->else_body)));
  return s;
}

tfx_ast_stmt *tfx_ast_stmt_elif(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *cond,
                                const tfx_ast_stmts *then_body, tfx_ast_stmt *else_if) {
  tfx_ast_stmts e = {else_if, else_if, else_if ? 1u : 0u};
  return tfx_ast_stmt_if(P, loc, cond, then_body, &e);
}

tfx_ast_stmt *tfx_ast_stmt_node(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                                const tfx_ast_name *type, const tfx_ast_args *args,
                                const tfx_ast_stmts *body) {
  tfx_ast_stmt *s = stmt(P, TFX_AST_S_NODE, loc);
  if (!s) return NULL;
  s->name = *name;
  s->type = *type;
  s->name.next = s->type.next = NULL;
  s->args = args->head;
  s->n_args = args->n;
  if (body) s->body = body->head;
  return s;
}

tfx_ast_stmt *tfx_ast_stmt_out(tfx_rules_pctx *P, tfx_rules_loc loc, int64_t index,
                               const tfx_ast_name *node_name, int64_t port) {
  tfx_ast_stmt *s = stmt(P, TFX_AST_S_OUT, loc);
  if (!s) return NULL;
  s->index = index;
  s->port_node = *node_name;
  s->port_node.next = NULL;
  s->port = port;
  return s;
}

tfx_ast_stmt *tfx_ast_stmt_format(tfx_rules_pctx *P, tfx_rules_loc loc, int is_output,
                                  tfx_ast_expr *index, tfx_ast_expr *value) {
  tfx_ast_stmt *s = stmt(P, TFX_AST_S_FORMAT, loc);
  if (!s) return NULL;
  s->is_output = is_output;
  s->index_expr = index;
  s->expr = value;
  return s;
}

tfx_ast_stmt *tfx_ast_stmt_drop(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_names *names) {
  tfx_ast_stmt *s = stmt(P, TFX_AST_S_DROP, loc);
  if (s) s->names = names->head;
  return s;
}

tfx_ast_stmt *tfx_ast_stmt_priority(tfx_rules_pctx *P, tfx_rules_loc loc, int64_t prio) {
  tfx_ast_stmt *s = stmt(P, TFX_AST_S_PRIORITY, loc);
  if (s) s->index = prio;
  return s;
}

tfx_ast_portmaps tfx_ast_portmaps_empty(void) { return (tfx_ast_portmaps){0}; }
tfx_ast_portmaps tfx_ast_portmaps_add(tfx_ast_portmaps l, tfx_ast_portmap *m) {
  LIST_ADD(l, m);
  return l;
}

tfx_ast_portmap *tfx_ast_portmap_new(tfx_rules_pctx *P, tfx_rules_loc loc, int64_t from, int64_t to,
                                     int to_none) {
  tfx_ast_portmap *m = NEW(tfx_ast_portmap);
  if (!m) return NULL;
  m->loc = loc;
  m->from = from;
  m->to = to;
  m->to_none = to_none;
  return m;
}

tfx_ast_args tfx_ast_args_empty(void) { return (tfx_ast_args){0}; }
tfx_ast_args tfx_ast_args_add(tfx_ast_args l, tfx_ast_node_arg *a) {
  LIST_ADD(l, a);
  return l;
}

tfx_ast_node_arg *tfx_ast_node_arg_new(tfx_rules_pctx *P, tfx_ast_arg_kind kind, tfx_rules_loc loc,
                                       int64_t port, const tfx_ast_name *node_name, tfx_ast_expr *value) {
  tfx_ast_node_arg *a = NEW(tfx_ast_node_arg);
  if (!a) return NULL;
  a->kind = kind;
  a->loc = loc;
  a->port = port;
  if (node_name) {
    a->node = *node_name;
    a->node.next = NULL;
  }
  a->value = value;
  return a;
}

/* ---------------------------------------------------------------- op maps */

tfx_ast_opmap *tfx_ast_opmap_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_names *from,
                                 const tfx_ast_name *to, const tfx_ast_stmts *body) {
  tfx_ast_opmap *m = NEW(tfx_ast_opmap);
  if (!m) return NULL;
  m->loc = loc;
  m->from = from->head;
  m->n_from = from->n;
  if (to) {
    m->to = *to;
    m->to.next = NULL;
  } else {
    m->is_graph = 1;
  }
  m->body = body->head;
  int have_prio = 0; /* the first `when` / `priority` counts; sema reports repeats */
  for (const tfx_ast_stmt *s = m->body; s; s = s->next) {
    if (s->kind == TFX_AST_S_WHEN && !m->when) m->when = s->expr;
    if (s->kind == TFX_AST_S_PRIORITY && !have_prio) {
      m->priority = s->index;
      have_prio = 1;
    }
  }
  return m;
}

void tfx_ast_file_add_opmap(tfx_rules_pctx *P, tfx_ast_opmap *m) {
  if (!m) return;
  if (P->kind != TFX_AST_OPMAP) {
    tfx_rules_perror(P, m->loc, "'op' maps belong in .opmap files");
    return;
  }
  if (P->opmap_tail) P->opmap_tail->next = m;
  else P->ast->opmaps = m;
  P->opmap_tail = m;
  P->ast->n_opmaps++;
}

/* ---------------------------------------------------------------- dataflow rewrites */

tfx_ast_rewrite *tfx_ast_rewrite_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                                     int general, const tfx_ast_stmts *body) {
  tfx_ast_rewrite *r = NEW(tfx_ast_rewrite);
  if (!r) return NULL;
  r->loc = loc;
  r->name = *name;
  r->name.next = NULL;
  r->general = general;
  r->body = body->head;
  return r;
}

void tfx_ast_file_add_rewrite(tfx_rules_pctx *P, tfx_ast_rewrite *r) {
  if (!r) return;
  if (P->kind != TFX_AST_SCOPERULE) {
    tfx_rules_perror(P, r->loc, "'rewrite' rules belong in .scoperule files");
    return;
  }
  if (P->rewrite_tail) P->rewrite_tail->next = r;
  else P->ast->rewrites = r;
  P->rewrite_tail = r;
  P->ast->n_rewrites++;
}

tfx_ast_stmt *tfx_ast_stmt_match(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                                 const tfx_ast_names *types, const tfx_ast_args *args, tfx_ast_expr *where) {
  tfx_ast_stmt *s = stmt(P, TFX_AST_S_MATCH, loc);
  if (!s) return NULL;
  s->name = *name;
  s->name.next = NULL;
  s->names = types->head;
  s->args = args->head;
  s->n_args = args->n;
  s->expr = where;
  return s;
}

tfx_ast_stmt *tfx_ast_stmt_rewire(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_node_arg *from,
                                  tfx_ast_node_arg *to) {
  tfx_ast_stmt *s = stmt(P, TFX_AST_S_REWIRE, loc);
  if (!s || !from || !to) return s;
  from->next = to;
  to->next = NULL;
  s->args = from;
  s->n_args = 2;
  return s;
}

/* ---------------------------------------------------------------- fragments (reuse) */

tfx_ast_fragbody tfx_ast_fragbody_empty(void) { return (tfx_ast_fragbody){{0}, {0}}; }

tfx_ast_fragbody tfx_ast_fragbody_feature(tfx_ast_fragbody b, tfx_ast_feature *f) {
  LIST_ADD(b.features, f);
  return b;
}

tfx_ast_fragbody tfx_ast_fragbody_stmt(tfx_ast_fragbody b, tfx_ast_stmt *s) {
  LIST_ADD(b.stmts, s);
  return b;
}

static const tfx_ast_fragment *find_fragment(tfx_rules_pctx *P, const char *name) {
  for (const tfx_ast_fragment *f = P->fragments; f; f = f->next)
    if (!strcmp(f->name.s, name)) return f;
  return NULL;
}

void tfx_ast_fragment_define(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                             const tfx_ast_fragbody *body) {
  (void)loc;
  const tfx_ast_fragment *prev = find_fragment(P, name->s);
  if (prev) {
    unsigned line, col;
    tfx_ruleset_linecol(P->rs, prev->name.loc, &line, &col);
    tfx_rules_perror(P, name->loc, "fragment '%s' already defined at %u:%u", name->s, line, col);
    return;
  }
  tfx_ast_fragment *f = NEW(tfx_ast_fragment);
  if (!f) return;
  f->name = *name;
  f->name.next = NULL;
  f->body = *body;
  f->next = P->fragments;
  P->fragments = f;
}

static const tfx_ast_fragment *use_fragment(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                                            int want_features) {
  const tfx_ast_fragment *f = find_fragment(P, name->s);
  if (!f) {
    tfx_rules_perror(P, name->loc, "unknown fragment '%s' (fragments are defined before use, in the same file)",
                     name->s);
    return NULL;
  }
  if (want_features ? f->body.stmts.n != 0 : f->body.features.n != 0) {
    tfx_rules_perror(P, loc, "fragment '%s' holds %s; it is used in %s", name->s,
                     want_features ? "match/where statements" : "pattern features",
                     want_features ? "a pattern" : "a rewrite");
    return NULL;
  }
  return f;
}

tfx_ast_features tfx_ast_features_use(tfx_rules_pctx *P, tfx_ast_features l, tfx_rules_loc loc,
                                      const tfx_ast_name *name) {
  const tfx_ast_fragment *f = use_fragment(P, loc, name, 1);
  for (const tfx_ast_feature *x = f ? f->body.features.head : NULL; x; x = x->next) {
    tfx_ast_feature *c = NEW(tfx_ast_feature);
    if (!c) break;
    *c = *x;
    c->next = NULL;
    LIST_ADD(l, c);
  }
  return l;
}

tfx_ast_stmts tfx_ast_stmts_use(tfx_rules_pctx *P, tfx_ast_stmts l, tfx_rules_loc loc,
                                const tfx_ast_name *name) {
  const tfx_ast_fragment *f = use_fragment(P, loc, name, 0);
  for (const tfx_ast_stmt *x = f ? f->body.stmts.head : NULL; x; x = x->next) {
    tfx_ast_stmt *c = NEW(tfx_ast_stmt);
    if (!c) break;
    *c = *x;
    c->next = NULL;
    LIST_ADD(l, c);
  }
  return l;
}

/* ---------------------------------------------------------------- node templates (reuse) */

typedef struct tfx_ast_template {
  tfx_ast_name name;
  tfx_ast_name *params;
  uint32_t n_params;
  tfx_ast_name type;
  tfx_ast_node_arg *args;
  uint32_t n_args;
  tfx_ast_stmt *body;
  struct tfx_ast_template *next;
} tfx_ast_template;

typedef struct subst {
  const tfx_ast_name *params;
  const tfx_ast_expr *const *args; /* by parameter index */
  uint32_t n;
  int too_deep;
} subst;

static const tfx_ast_expr *subst_find(const subst *sb, const char *name) {
  uint32_t i = 0;
  for (const tfx_ast_name *p = sb->params; p && i < sb->n; p = p->next, i++)
    if (!strcmp(p->s, name)) return sb->args[i];
  return NULL;
}

/* A copy of e (next = NULL) with every identifier naming a parameter replaced by (a copy of)
 * its argument; depths recomputed. */
static tfx_ast_expr *copy_expr(tfx_rules_pctx *P, const tfx_ast_expr *e, subst *sb, unsigned depth) {
  if (!e) return NULL;
  if (depth > TFX_AST_MAX_DEPTH) {
    sb->too_deep = 1;
    return NULL;
  }
  if (e->kind == TFX_AST_E_IDENT) {
    const tfx_ast_expr *a = subst_find(sb, e->u.name);
    if (a) {
      tfx_ast_expr *c = NEW(tfx_ast_expr);
      if (!c) return NULL;
      *c = *a; /* the argument's own subtree is shared (read-only); only `next` differs */
      c->next = NULL;
      return c;
    }
  }
  tfx_ast_expr *c = NEW(tfx_ast_expr);
  if (!c) return NULL;
  *c = *e;
  c->next = NULL;
  uint16_t d = 0;
#define SUB(x) do { (x) = copy_expr(P, (x), sb, depth + 1); if ((x)) d = max16(d, (x)->depth); } while (0)
  switch (e->kind) {
    case TFX_AST_E_LIST:
    case TFX_AST_E_CALL: {
      tfx_ast_expr *head = e->kind == TFX_AST_E_LIST ? e->u.list.items : e->u.call.args, *h = NULL, *t = NULL;
      for (const tfx_ast_expr *x = head; x; x = x->next) {
        tfx_ast_expr *y = copy_expr(P, x, sb, depth + 1);
        if (!y) break;
        d = max16(d, y->depth);
        if (t) t->next = y;
        else h = y;
        t = y;
      }
      if (e->kind == TFX_AST_E_LIST) c->u.list.items = h;
      else c->u.call.args = h;
      break;
    }
    case TFX_AST_E_DICT: {
      tfx_ast_expr *kh = NULL, *kt = NULL, *vh = NULL, *vt = NULL;
      for (const tfx_ast_expr *k = e->u.dict.keys, *v = e->u.dict.values; k && v; k = k->next, v = v->next) {
        tfx_ast_expr *k2 = copy_expr(P, k, sb, depth + 1), *v2 = copy_expr(P, v, sb, depth + 1);
        if (!k2 || !v2) break;
        d = max16(d, max16(k2->depth, v2->depth));
        if (kt) kt->next = k2, vt->next = v2;
        else kh = k2, vh = v2;
        kt = k2;
        vt = v2;
      }
      c->u.dict.keys = kh;
      c->u.dict.values = vh;
      break;
    }
    case TFX_AST_E_UNARY: case TFX_AST_E_BINARY: SUB(c->u.op.a); SUB(c->u.op.b); break;
    case TFX_AST_E_COND: SUB(c->u.cond.c); SUB(c->u.cond.t); SUB(c->u.cond.f); break;
    case TFX_AST_E_INDEX: case TFX_AST_E_PERMUTE: SUB(c->u.index.base); SUB(c->u.index.index); break;
    case TFX_AST_E_SLICE: SUB(c->u.slice.base); SUB(c->u.slice.lo); SUB(c->u.slice.hi); break;
    case TFX_AST_E_PROP: SUB(c->u.prop.base); break;
    case TFX_AST_E_QUANT: SUB(c->u.quant.list); SUB(c->u.quant.cond); break;
    default: break;
  }
#undef SUB
  unsigned nd = (unsigned)d + 1;
  if (nd > P->max_depth) sb->too_deep = 1;
  c->depth = (uint16_t)(nd > TFX_AST_MAX_DEPTH + 1 ? TFX_AST_MAX_DEPTH + 1 : nd);
  return c;
}

static const tfx_ast_template *find_template(tfx_rules_pctx *P, const char *name) {
  for (const tfx_ast_template *t = P->templates; t; t = t->next)
    if (!strcmp(t->name.s, name)) return t;
  return NULL;
}

void tfx_ast_template_define(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                             const tfx_ast_names *params, const tfx_ast_name *type,
                             const tfx_ast_args *args, const tfx_ast_stmts *body) {
  (void)loc;
  const tfx_ast_template *prev = find_template(P, name->s);
  if (prev) {
    unsigned line, col;
    tfx_ruleset_linecol(P->rs, prev->name.loc, &line, &col);
    tfx_rules_perror(P, name->loc, "template '%s' already defined at %u:%u", name->s, line, col);
    return;
  }
  for (const tfx_ast_name *p = params->head; p; p = p->next)
    for (const tfx_ast_name *q = p->next; q; q = q->next)
      if (!strcmp(p->s, q->s)) tfx_rules_perror(P, q->loc, "parameter '%s' given twice", q->s);
  tfx_ast_template *t = NEW(tfx_ast_template);
  if (!t) return;
  t->name = *name;
  t->name.next = NULL;
  t->params = params->head;
  t->n_params = params->n;
  t->type = *type;
  t->type.next = NULL;
  t->args = args->head;
  t->n_args = args->n;
  t->body = body->head;
  t->next = P->templates;
  P->templates = t;
}

tfx_ast_stmt *tfx_ast_stmt_node_template(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                                         const tfx_ast_name *tmpl, const tfx_ast_exprs *args) {
  const tfx_ast_template *t = find_template(P, tmpl->s);
  if (!t) {
    tfx_rules_perror(P, tmpl->loc, "unknown template '%s' (templates are defined before use, in the same file)",
                     tmpl->s);
    return NULL;
  }
  uint32_t n = args ? args->n : 0;
  if (n != t->n_params) {
    tfx_rules_perror(P, tmpl->loc, "template '%s' takes %u argument%s, not %u", tmpl->s, t->n_params,
                     t->n_params == 1 ? "" : "s", n);
    return NULL;
  }
  const tfx_ast_expr *av[64];
  if (n > 64) {
    tfx_rules_perror(P, tmpl->loc, "template '%s': more than 64 parameters", tmpl->s);
    return NULL;
  }
  uint32_t i = 0;
  for (const tfx_ast_expr *x = args ? args->head : NULL; x && i < n; x = x->next) av[i++] = x;
  subst sb = {t->params, av, n, 0};
  tfx_ast_args al = tfx_ast_args_empty();
  for (const tfx_ast_node_arg *a = t->args; a; a = a->next) {
    tfx_ast_node_arg *c = NEW(tfx_ast_node_arg);
    if (!c) return NULL;
    *c = *a;
    c->next = NULL;
    if (a->kind == TFX_AST_ARG_CONST) c->value = copy_expr(P, a->value, &sb, 1);
    if (a->kind == TFX_AST_ARG_NAME || a->kind == TFX_AST_ARG_PORT) {
      const tfx_ast_expr *v = subst_find(&sb, a->node.s);
      if (v && v->kind == TFX_AST_E_IDENT) c->node.s = v->u.name; /* a renamed node / capture */
      else if (v) tfx_rules_perror(P, v->loc, "template '%s': argument for '%s' names a node, so it must be a name",
                                   tmpl->s, a->node.s);
    }
    LIST_ADD(al, c);
  }
  tfx_ast_stmts bl = tfx_ast_stmts_empty();
  for (const tfx_ast_stmt *b = t->body; b; b = b->next) {
    tfx_ast_stmt *c = NEW(tfx_ast_stmt);
    if (!c) return NULL;
    *c = *b;
    c->next = NULL;
    c->expr = copy_expr(P, b->expr, &sb, 1);
    c->index_expr = copy_expr(P, b->index_expr, &sb, 1);
    LIST_ADD(bl, c);
  }
  if (sb.too_deep) {
    tfx_rules_perror(P, tmpl->loc, "template '%s': the expanded expressions are nested too deeply", tmpl->s);
    return NULL;
  }
  tfx_ast_name ty = t->type;
  ty.loc = tmpl->loc; /* diagnostics about the type point at the use */
  return tfx_ast_stmt_node(P, loc, name, &ty, &al, &bl);
}
