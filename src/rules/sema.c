/* Semantic checks over a whole rule set.
 * Stage: rules, after parsing and registration (called by tfx_rules_check). Input: every
 * parsed file in load order. Output: diagnostics only (the AST is not changed): unknown
 * names, functions, properties and sub_types; statically known type mismatches; missing or
 * repeated fusion fields; many-to-many wiring; op-map port conflicts; CANN prototype checks
 * through the optional hook; named warnings (unused bindings, shadowing, unknown ops).
 * Recursion is bounded: expressions and blocks deeper than TFX_AST_MAX_DEPTH were already
 * reported by the builders and are not entered. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/build.h"
#include "util/hash.h"
#include "vm/bytecode.h"

int tfx_rules_sema(tfx_ruleset *rs, const tfx_rules_options *opt, tfx_diag *d);

/* ---------------------------------------------------------------- static types */

/* The VM's static type bits (vm/bytecode.h), which the builtin table's columns use. */
enum {
  T_INT = TFX_T_INT, T_FLOAT = TFX_T_FLOAT, T_BOOL = TFX_T_BOOL, T_STRING = TFX_T_STRING,
  T_DTYPE = TFX_T_DTYPE, T_LIST = TFX_T_LIST, T_SCOPE = TFX_T_SCOPE, T_NODE = TFX_T_NODE,
  T_NONE = TFX_T_NONE, T_DICT = TFX_T_DICT, T_INPUT = TFX_T_INPUT, T_ATTRS = TFX_T_ATTRS,
  T_NUM = TFX_T_NUM, T_ANY = TFX_T_ANY
};

static const char *const type_names[] = {"int", "float", "bool", "string", "dtype", "list", "scope",
                                         "node", "none", "dict", "input", "attributes"};

static const char *tname(unsigned t, char *buf, size_t size) {
  if (t == T_ANY) return "any value";
  if (t == T_NUM) return "number";
  size_t n = 0;
  buf[0] = 0;
  for (unsigned i = 0; i < 12; i++)
    if (t & (1u << i)) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? " or " : "", type_names[i]);
  return buf;
}

typedef enum { B_FUSE, B_LET, B_QUANT } bkind;

typedef struct binding {
  const char *name;
  tfx_rules_loc loc;
  bkind kind;
  unsigned type;
  int used;
} binding;

typedef struct sema {
  tfx_ruleset *rs;
  tfx_diag *d;
  const tfx_rules_options *opt;
  uint32_t file;
  tfx_ast_file_kind kind;
  binding *b;
  size_t nb, capb;
  int fuse_has_scopes; /* explicit `scopes`: fuse bindings are not implicitly used */
  tfx_hmap known;      /* sub_types set by registered passes so far */
  tfx_hmap local;      /* sub_types set by the current pass so far */
  int oom;
  /* TF-side names of op maps (check_tf_*): */
  tfx_hmap fused_types;                /* types of fusion results and inner nodes (all files) */
  const tfx_rules_op_proto *fuse_proto; /* prototype of the current fuse body's `type` */
  const char *fuse_type;
  const struct tfx_ast_opmap *cur_map; /* the op map being checked, NULL elsewhere */
  const tfx_ast_expr *coalesce_lhs;    /* left operand of the `??` or argument of the
                                          `exists()` being typed: a probe, not checked */
} sema;

static void err(sema *s, tfx_rules_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(sema *s, tfx_rules_loc loc, const char *fmt, ...) {
  char buf[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tfx_rules_report(s->rs, s->d, TFX_SEV_ERROR, loc, "%s", buf);
}

static void warn(sema *s, tfx_rules_warning w, tfx_rules_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void warn(sema *s, tfx_rules_warning w, tfx_rules_loc loc, const char *fmt, ...) {
  const tfx_rules_warnings *p = &s->opt->warnings;
  if (!(p->enabled & (1u << w))) return;
  int e = p->werror || (p->as_error & (1u << w));
  char buf[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tfx_rules_report(s->rs, s->d, e ? TFX_SEV_ERROR : TFX_SEV_WARNING, loc, "%s [-W%s%s]", buf,
                   e ? "error=" : "", tfx_rules_warning_name(w));
}

static const char *at(sema *s, tfx_rules_loc loc, char *buf, size_t size) {
  return tfx_ruleset_where(s->rs, loc, s->file, buf, size);
}

static void oom(sema *s) {
  if (s->oom) return;
  s->oom = 1;
  tfx_error(s->d, s->file < s->rs->n_sources ? s->rs->sources[s->file].name : NULL, 0, 0,
            "out of memory while checking rules");
  s->rs->errors++;
  s->rs->oom = 1;
}

/* ---------------------------------------------------------------- bindings */

static binding *find_binding(sema *s, const char *name) {
  for (size_t i = s->nb; i-- > 0;)
    if (!strcmp(s->b[i].name, name)) return &s->b[i];
  return NULL;
}

static void push_binding(sema *s, const char *name, tfx_rules_loc loc, bkind kind, unsigned type) {
  binding *prev = find_binding(s, name);
  if (prev && kind != B_FUSE) {
    char w[300];
    warn(s, TFX_RULES_W_SHADOW, loc, "'%s' shadows the binding at %s", name, at(s, prev->loc, w, sizeof w));
  }
  if (s->nb == s->capb) {
    size_t cap = s->capb ? s->capb * 2 : 16;
    binding *nb = tfx_realloc(s->b, cap * sizeof *nb);
    if (!nb) {
      oom(s);
      return;
    }
    s->b = nb;
    s->capb = cap;
  }
  s->b[s->nb++] = (binding){name, loc, kind, type, 0};
}

static void pop_bindings(sema *s, size_t to) {
  while (s->nb > to) {
    binding *b = &s->b[--s->nb];
    if (b->used || b->kind == B_QUANT || b->name[0] == '_') continue;
    if (b->kind == B_FUSE && !s->fuse_has_scopes) continue; /* the default member scopes */
    warn(s, TFX_RULES_W_UNUSED_BINDING, b->loc, "unused binding '%s'", b->name);
  }
}

/* ---------------------------------------------------------------- sub_types */

static int subtype_known(sema *s, const char *name) {
  size_t n = strlen(name);
  return tfx_hmap_get(&s->known, name, n) != TFX_HASH_NONE || tfx_hmap_get(&s->local, name, n) != TFX_HASH_NONE;
}

static void check_subtype(sema *s, const char *name, tfx_rules_loc loc) {
  if (!subtype_known(s, name))
    err(s, loc, "unknown sub_type '%s' (set by no earlier layer or pass)", name);
}

/* ---------------------------------------------------------------- builtins */

/* Builtins are the VM's table (TFX_VM_BUILTINS, vm/opcodes.h): arity, where rule source may
 * call them, argument and result types. Returns the row of a function callable by name in
 * rule source (a call, not a bare .opmap name), or NULL. */
static const tfx_builtin_info *find_builtin(const char *name) {
  for (int i = 0; i < TFX_BI__COUNT; i++)
    if (tfx_vm_builtins[i].source != TFX_BI_SRC_NAME && !strcmp(tfx_vm_builtins[i].name, name))
      return &tfx_vm_builtins[i];
  return NULL;
}

/* The row of a bare name of .opmap files (`n_inputs`, `op`), or NULL. */
static const tfx_builtin_info *find_opmap_name(const char *name) {
  for (int i = 0; i < TFX_BI__COUNT; i++)
    if (tfx_vm_builtins[i].source == TFX_BI_SRC_NAME && !strcmp(tfx_vm_builtins[i].name, name))
      return &tfx_vm_builtins[i];
  return NULL;
}

typedef struct prop {
  const char *name;
  unsigned type;
} prop;
static const prop scope_props[] = {{"name", T_STRING},       {"last_name", T_STRING},
                                   {"parent", T_SCOPE | T_NONE}, {"children", T_LIST},
                                   {"sub_type", T_STRING | T_NONE}, {"nodes", T_LIST},
                                   {"all_nodes", T_LIST}};
static const prop node_props[] = {{"name", T_STRING}, {"op", T_STRING}, {"scope", T_SCOPE},
                                  {"inputs", T_LIST}, {"attr", T_ATTRS}};

static const char *const dtypes[] = {
    "DT_FLOAT", "DT_DOUBLE", "DT_INT32", "DT_UINT8", "DT_INT16", "DT_INT8", "DT_STRING",
    "DT_COMPLEX64", "DT_INT64", "DT_BOOL", "DT_QINT8", "DT_QUINT8", "DT_QINT32", "DT_BFLOAT16",
    "DT_QINT16", "DT_QUINT16", "DT_UINT16", "DT_COMPLEX128", "DT_HALF", "DT_RESOURCE",
    "DT_VARIANT", "DT_UINT32", "DT_UINT64", "DT_FLOAT8_E5M2", "DT_FLOAT8_E4M3FN", "DT_INT4",
    "DT_UINT4"};

static int known_dtype(const char *name) {
  size_t n = strlen(name);
  if (n > 4 && !strcmp(name + n - 4, "_REF")) n -= 4;
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
    if (strlen(dtypes[i]) == n && !strncmp(dtypes[i], name, n)) return 1;
  return 0;
}

/* ---------------------------------------------------------------- expressions */

static unsigned expr_type(sema *s, const tfx_ast_expr *e);
static void check_tf_attr_ident(sema *s, const tfx_ast_expr *e);
static void check_attr_proto(sema *s, const char *to, const tfx_rules_op_proto *op, const tfx_ast_stmt *st,
                             unsigned t);

static void need(sema *s, const tfx_ast_expr *e, unsigned have, unsigned want, const char *what) {
  if (have & want) return;
  char a[128], b[128];
  err(s, e->loc, "type mismatch: %s must be %s, got %s", what, tname(want, a, sizeof a), tname(have, b, sizeof b));
}

static unsigned cond_type(sema *s, const tfx_ast_expr *e, const char *what) {
  unsigned t = expr_type(s, e);
  if (e) need(s, e, t, T_BOOL | T_NONE, what);
  return t;
}

static unsigned call_type(sema *s, const tfx_ast_expr *e) {
  const char *fn = e->u.call.name;
  const tfx_builtin_info *bi = find_builtin(fn);
  if (!bi) {
    for (const tfx_ast_expr *a = e->u.call.args; a; a = a->next) expr_type(s, a);
    if (!strcmp(fn, "any") || !strcmp(fn, "all") || !strcmp(fn, "count") || !strcmp(fn, "first")) {
      err(s, e->u.call.name_loc, "'%s' needs the form %s(v in LIST : COND)", fn, fn);
      return !strcmp(fn, "count") ? T_INT : !strcmp(fn, "first") ? T_ANY : T_BOOL;
    }
    err(s, e->u.call.name_loc, "unknown function '%s'", fn);
    return T_ANY;
  }
  if (bi->source == TFX_BI_SRC_SCOPERULE && s->kind != TFX_AST_SCOPERULE)
    err(s, e->u.call.name_loc, "'%s' is only available in .scoperule files", fn);
  if (bi->source == TFX_BI_SRC_OPMAP && s->kind != TFX_AST_OPMAP)
    err(s, e->u.call.name_loc, "'%s' is only available in .opmap files", fn);
  uint32_t n = e->u.call.nargs;
  int max = bi->source_max;
  if ((int)n < bi->min_args || (int)n > max) {
    err(s, e->loc, "'%s' takes %d argument%s, got %u", fn, max, max == 1 ? "" : "s", n);
    for (const tfx_ast_expr *a = e->u.call.args; a; a = a->next) expr_type(s, a);
    return bi->result;
  }
  if (bi == &tfx_vm_builtins[TFX_BI_scopes]) { /* scopes(SUBTYPE): the argument names a sub_type */
    const tfx_ast_expr *a = e->u.call.args;
    if (a->kind == TFX_AST_E_IDENT) check_subtype(s, a->u.name, a->loc);
    else if (a->kind == TFX_AST_E_STRING) check_subtype(s, a->u.str.s, a->loc);
    else err(s, a->loc, "'scopes' takes a sub_type name");
    return bi->result;
  }
  int i = 0;
  if (bi == &tfx_vm_builtins[TFX_BI_exists]) s->coalesce_lhs = e->u.call.args; /* x may be absent */
  for (const tfx_ast_expr *a = e->u.call.args; a; a = a->next, i++) {
    unsigned t = expr_type(s, a);
    char what[96];
    snprintf(what, sizeof what, "argument %d of '%s'", i + 1, fn);
    need(s, a, t, bi->args[i], what);
  }
  return bi->result;
}

static unsigned prop_type(sema *s, const tfx_ast_expr *e) {
  unsigned bt = expr_type(s, e->u.prop.base);
  const char *name = e->u.prop.name;
  if (bt == T_ATTRS) return T_ANY;
  if (!(bt & (T_SCOPE | T_NODE))) {
    char b[128];
    err(s, e->u.prop.name_loc, "type mismatch: '.%s' needs a scope or a node, got %s", name, tname(bt, b, sizeof b));
    return T_ANY;
  }
  unsigned r = 0;
  int found = 0;
  if (bt & T_SCOPE)
    for (size_t i = 0; i < sizeof scope_props / sizeof scope_props[0]; i++)
      if (!strcmp(scope_props[i].name, name)) r |= scope_props[i].type, found = 1;
  if (bt & T_NODE)
    for (size_t i = 0; i < sizeof node_props / sizeof node_props[0]; i++)
      if (!strcmp(node_props[i].name, name)) r |= node_props[i].type, found = 1;
  if (!found) {
    if (!(bt & T_NODE))
      err(s, e->u.prop.name_loc, "unknown property '%s' of a scope (name, last_name, parent, children, sub_type, nodes, all_nodes)", name);
    else if (!(bt & T_SCOPE))
      err(s, e->u.prop.name_loc, "unknown property '%s' of a node (name, op, scope, inputs, attr)", name);
    else
      err(s, e->u.prop.name_loc, "unknown property '%s'", name);
    return T_ANY;
  }
  if (r & T_ATTRS && r != T_ATTRS) r = (r & ~(unsigned)T_ATTRS) | T_ANY; /* ambiguous base */
  return r;
}

static unsigned binary_type(sema *s, const tfx_ast_expr *e) {
  tfx_ast_op op = e->u.op.op;
  if (op == TFX_AST_OP_COALESCE) s->coalesce_lhs = e->u.op.a;
  unsigned a = expr_type(s, e->u.op.a), b = expr_type(s, e->u.op.b);
  char x[128], y[128];
  const char *on = tfx_ast_op_name(op);
  switch (op) {
    case TFX_AST_OP_OR:
    case TFX_AST_OP_AND:
      need(s, e->u.op.a, a, T_BOOL | T_NONE, on[0] == 'o' ? "the left side of 'or'" : "the left side of 'and'");
      need(s, e->u.op.b, b, T_BOOL | T_NONE, on[0] == 'o' ? "the right side of 'or'" : "the right side of 'and'");
      return T_BOOL;
    case TFX_AST_OP_COALESCE:
      return (a & ~(unsigned)T_NONE) | b;
    case TFX_AST_OP_EQ:
    case TFX_AST_OP_NE:
      /* "maybe none" does not make a scope comparable with a string; the literal none does */
      if (!(a & b & ~(unsigned)T_NONE) && a != T_NONE && b != T_NONE && !((a & T_NUM) && (b & T_NUM)))
        err(s, e->loc, "type mismatch: comparing %s with %s", tname(a, x, sizeof x), tname(b, y, sizeof y));
      return T_BOOL;
    case TFX_AST_OP_LT: case TFX_AST_OP_LE: case TFX_AST_OP_GT: case TFX_AST_OP_GE:
      if (!((a & T_NUM) && (b & T_NUM)) && !((a & T_STRING) && (b & T_STRING)))
        err(s, e->loc, "type mismatch: '%s' compares two numbers or two strings, got %s and %s", on,
            tname(a, x, sizeof x), tname(b, y, sizeof y));
      return T_BOOL;
    case TFX_AST_OP_CONTAINS:
      if (!((a & T_STRING) && (b & T_STRING)) && !(a & T_LIST))
        err(s, e->loc, "type mismatch: 'contains' tests a string in a string or a value in a list, got %s and %s",
            tname(a, x, sizeof x), tname(b, y, sizeof y));
      return T_BOOL;
    case TFX_AST_OP_STARTS_WITH:
    case TFX_AST_OP_ENDS_WITH:
      if (!((a & T_STRING) && (b & T_STRING)))
        err(s, e->loc, "type mismatch: '%s' tests two strings, got %s and %s", on, tname(a, x, sizeof x),
            tname(b, y, sizeof y));
      return T_BOOL;
    case TFX_AST_OP_ADD:
      if (!((a & T_NUM) && (b & T_NUM)) && !((a & T_STRING) && (b & T_STRING)) && !((a & T_LIST) && (b & T_LIST))) {
        err(s, e->loc, "type mismatch: %s + %s ('+' adds numbers and concatenates strings or lists)",
            tname(a, x, sizeof x), tname(b, y, sizeof y));
        return T_ANY;
      }
      return (a | b) & (T_NUM | T_STRING | T_LIST);
    default: /* - * / % */
      if (!((a & T_NUM) && (b & T_NUM))) {
        err(s, e->loc, "type mismatch: '%s' needs two numbers, got %s and %s", on, tname(a, x, sizeof x),
            tname(b, y, sizeof y));
        return T_NUM;
      }
      return (a | b) & T_NUM;
  }
}

static unsigned expr_type(sema *s, const tfx_ast_expr *e) {
  if (!e) return T_ANY;
  if (e->depth > TFX_AST_MAX_DEPTH) return T_ANY; /* reported by the builder */
  switch (e->kind) {
    case TFX_AST_E_INT:
      if (e->int_min) err(s, e->loc, "integer literal out of range (the limit is 9223372036854775807)");
      return T_INT;
    case TFX_AST_E_FLOAT: return T_FLOAT;
    case TFX_AST_E_BOOL: return T_BOOL;
    case TFX_AST_E_STRING: return T_STRING;
    case TFX_AST_E_NONE: return T_NONE;
    case TFX_AST_E_DTYPE:
      if (!known_dtype(e->u.name)) err(s, e->loc, "unknown data type '%s'", e->u.name);
      return T_DTYPE;
    case TFX_AST_E_LIST:
      for (const tfx_ast_expr *x = e->u.list.items; x; x = x->next) expr_type(s, x);
      return T_LIST;
    case TFX_AST_E_DICT:
      for (const tfx_ast_expr *x = e->u.dict.keys; x; x = x->next) expr_type(s, x);
      for (const tfx_ast_expr *x = e->u.dict.values; x; x = x->next) expr_type(s, x);
      return T_DICT;
    case TFX_AST_E_IDENT: {
      binding *b = find_binding(s, e->u.name);
      if (b) {
        b->used = 1;
        return b->type;
      }
      if (s->kind == TFX_AST_OPMAP) {
        const tfx_builtin_info *bn = find_opmap_name(e->u.name); /* n_inputs, op */
        if (bn) return bn->result;
        check_tf_attr_ident(s, e);
        return T_ANY; /* an attribute of the TF node, or none */
      }
      err(s, e->loc, "unknown name '%s'", e->u.name);
      return T_ANY;
    }
    case TFX_AST_E_INPUT:
      if (s->kind != TFX_AST_OPMAP) {
        err(s, e->loc, "'in N' names an input of the TF node; it exists only in .opmap files");
        return T_ANY;
      }
      if (e->u.i < 0) err(s, e->loc, "input numbers start at 0");
      return T_INPUT;
    case TFX_AST_E_UNARY: {
      unsigned t = expr_type(s, e->u.op.a);
      if (e->u.op.op == TFX_AST_OP_NOT) {
        need(s, e->u.op.a, t, T_BOOL | T_NONE, "the operand of 'not'");
        return T_BOOL;
      }
      need(s, e->u.op.a, t, T_NUM, "the operand of '-'");
      return t & T_NUM ? t & T_NUM : T_NUM;
    }
    case TFX_AST_E_BINARY: return binary_type(s, e);
    case TFX_AST_E_COND:
      cond_type(s, e->u.cond.c, "the condition of '?:'");
      return expr_type(s, e->u.cond.t) | expr_type(s, e->u.cond.f);
    case TFX_AST_E_INDEX: {
      unsigned b = expr_type(s, e->u.index.base), i = expr_type(s, e->u.index.index);
      need(s, e->u.index.base, b, T_LIST | T_STRING, "an indexed value");
      need(s, e->u.index.index, i, T_INT, "an index");
      return (b & (T_LIST | T_STRING)) == T_STRING ? T_STRING : T_ANY;
    }
    case TFX_AST_E_SLICE: {
      unsigned b = expr_type(s, e->u.slice.base);
      need(s, e->u.slice.base, b, T_LIST | T_STRING, "a sliced value");
      if (e->u.slice.lo) need(s, e->u.slice.lo, expr_type(s, e->u.slice.lo), T_INT, "a slice bound");
      if (e->u.slice.hi) need(s, e->u.slice.hi, expr_type(s, e->u.slice.hi), T_INT, "a slice bound");
      return b & (T_LIST | T_STRING) ? b & (T_LIST | T_STRING) : T_LIST;
    }
    case TFX_AST_E_PERMUTE: {
      unsigned b = expr_type(s, e->u.index.base);
      need(s, e->u.index.base, b, T_LIST, "a permuted value");
      for (const tfx_ast_expr *x = e->u.index.index->u.list.items; x; x = x->next)
        need(s, x, expr_type(s, x), T_INT, "a permutation index");
      return T_LIST;
    }
    case TFX_AST_E_PROP: return prop_type(s, e);
    case TFX_AST_E_CALL: return call_type(s, e);
    case TFX_AST_E_QUANT: {
      unsigned lt = expr_type(s, e->u.quant.list);
      need(s, e->u.quant.list, lt, T_LIST, "the range of a quantifier");
      size_t mark = s->nb;
      push_binding(s, e->u.quant.var, e->u.quant.var_loc, B_QUANT, T_ANY);
      cond_type(s, e->u.quant.cond, "a quantifier's condition");
      pop_bindings(s, mark);
      switch (e->u.quant.q) {
        case TFX_AST_Q_COUNT: return T_INT;
        case TFX_AST_Q_FIRST: return T_ANY;
        default: return T_BOOL;
      }
    }
  }
  return T_ANY;
}

/* ---------------------------------------------------------------- scope rules: patterns */

static const char *lit_name(const tfx_ast_expr *e) {
  switch (e->kind) {
    case TFX_AST_E_INT: return "an integer";
    case TFX_AST_E_FLOAT: return "a float";
    case TFX_AST_E_BOOL: return "a bool";
    case TFX_AST_E_STRING: return "a string";
    case TFX_AST_E_NONE: return "none";
    case TFX_AST_E_DTYPE: return "a data type";
    case TFX_AST_E_LIST: return "a list";
    case TFX_AST_E_DICT: return "a dict";
    default: return "an expression";
  }
}

static int int_lit(sema *s, const tfx_ast_expr *e, const char *what, int64_t *v) {
  if (!e) return 0;
  if (e->kind != TFX_AST_E_INT) {
    err(s, e->loc, "type mismatch: %s takes an integer literal, got %s", what, lit_name(e));
    return 0;
  }
  if (e->int_min) {
    err(s, e->loc, "integer literal out of range (the limit is 9223372036854775807)");
    return 0;
  }
  *v = e->u.i;
  return 1;
}

static int str_lit(sema *s, const tfx_ast_expr *e, const char *what) {
  if (!e) return 0;
  if (e->kind != TFX_AST_E_STRING) {
    err(s, e->loc, "type mismatch: %s takes a string literal, got %s", what, lit_name(e));
    return 0;
  }
  return 1;
}

static void check_feature(sema *s, const tfx_ast_feature *f) {
  int64_t v, k;
  switch (f->kind) {
    case TFX_AST_F_COUNT_EQ:
      if (int_lit(s, f->value, "'count'", &v) && (v == 0 || v < -1))
        err(s, f->value->loc, "'count %s == %lld' never matches (a missing type counts -1); use 'absent %s'",
            f->op_type.s, (long long)v, f->op_type.s);
      break;
    case TFX_AST_F_COUNT_STEP: {
      int ok = int_lit(s, f->step, "the step of 'count T % k'", &k);
      if (ok && k <= 0) {
        err(s, f->step->loc, "the step of 'count T %% k' must be positive");
        ok = 0;
      }
      if (int_lit(s, f->value, "'count'", &v) && ok && (v < 0 || v >= k))
        err(s, f->value->loc, "'count %s %% %lld == %lld' never matches (the remainder is 0..%lld)",
            f->op_type.s, (long long)k, (long long)v, (long long)(k - 1));
      break;
    }
    case TFX_AST_F_PRESENT:
    case TFX_AST_F_ABSENT:
      break;
    case TFX_AST_F_ATTR_EQ:
      if (f->value && f->value->kind != TFX_AST_E_INT && f->value->kind != TFX_AST_E_FLOAT &&
          f->value->kind != TFX_AST_E_STRING && f->value->kind != TFX_AST_E_BOOL)
        err(s, f->value->loc, "type mismatch: 'attr' compares with an integer, float, string or bool literal, got %s",
            lit_name(f->value));
      else if (f->value && f->value->kind == TFX_AST_E_INT && f->value->int_min)
        err(s, f->value->loc, "integer literal out of range (the limit is 9223372036854775807)");
      break;
    case TFX_AST_F_SCOPES_EQ:
      check_subtype(s, f->sub_type.s, f->sub_type.loc);
      if (int_lit(s, f->value, "'scopes'", &v) && v < 0)
        err(s, f->value->loc, "'scopes %s == %lld' never matches (a count is never negative)", f->sub_type.s,
            (long long)v);
      break;
    case TFX_AST_F_NAME_EQ:
      str_lit(s, f->value, "'name =='");
      break;
    case TFX_AST_F_HAS_CHILD:
      if (str_lit(s, f->value, "'has_child'") && f->value->u.str.len == 0)
        err(s, f->value->loc, "'has_child \"\"' is ignored by the matcher; give a name part");
      break;
  }
}

static void add_subtype(sema *s, tfx_hmap *m, const char *name) {
  if (tfx_hmap_put(m, name, strlen(name), 1, NULL) < 0) oom(s);
}

/* ---------------------------------------------------------------- statements */

typedef struct inner {
  const char *name;
  tfx_rules_loc loc;
} inner;

typedef struct body_ctx {
  int is_fuse;          /* fuse body (else: graph op map) */
  inner *nodes;
  size_t n_nodes, cap_nodes;
  int n_outs;
  tfx_rules_loc first_out;
  const tfx_ast_stmt *outs_seen[64]; /* duplicate `out N` detection (first 64) */
  int n_outs_seen;
  int has_type;
  const tfx_ast_stmt *type_stmt;
  int64_t max_in, max_out; /* highest fused port produced by index maps; -1 none */
} body_ctx;

static const inner *find_inner(const body_ctx *c, const char *name) {
  for (size_t i = 0; i < c->n_nodes; i++)
    if (!strcmp(c->nodes[i].name, name)) return &c->nodes[i];
  return NULL;
}

static void check_proto_type(sema *s, const tfx_ast_name *type) {
  const tfx_rules_protos *p = s->opt->protos;
  if (!p || !p->lookup || !type->s) return;
  if (!p->lookup(p->ctx, type->s))
    warn(s, TFX_RULES_W_UNKNOWN_OP, type->loc, "no prototype for CANN op '%s'", type->s);
}

static void check_node_stmt(sema *s, body_ctx *c, const tfx_ast_stmt *st) {
  char w[300];
  for (const tfx_ast_node_arg *a = st->args; a; a = a->next) {
    if (a->kind == TFX_AST_ARG_PORT) {
      if (!find_inner(c, a->node.s)) {
        if (!strcmp(a->node.s, st->name.s))
          err(s, a->node.loc, "inner node '%s' cannot take its own output", a->node.s);
        else
          err(s, a->node.loc, "unknown inner node '%s' (inner nodes are defined before use)", a->node.s);
      }
      if (a->port < 0) err(s, a->loc, "port numbers start at 0");
    } else if (a->kind == TFX_AST_ARG_NAME) {
      err(s, a->loc, "'%s' alone is an input of a rewrite; here write 'in N', 'NODE:PORT' or 'const V'", a->node.s);
  } else if (a->kind == TFX_AST_ARG_INPUT) {
      if (a->port < 0) err(s, a->loc, "input numbers start at 0");
      else if (c->is_fuse && c->max_in >= 0 && a->port > c->max_in)
        err(s, a->loc, "boundary input %lld is produced by no index map (the fused inputs are 0..%lld)",
            (long long)a->port, (long long)c->max_in);
    } else {
      const tfx_ast_expr *v = a->value;
      int lit = v && (v->kind == TFX_AST_E_INT || v->kind == TFX_AST_E_FLOAT || v->kind == TFX_AST_E_BOOL ||
                      v->kind == TFX_AST_E_STRING || v->kind == TFX_AST_E_LIST || v->kind == TFX_AST_E_DTYPE);
      if (!lit && v) err(s, v->loc, "type mismatch: 'const' takes a literal, got %s", lit_name(v));
      else expr_type(s, v);
    }
  }
  const inner *prev = find_inner(c, st->name.s);
  if (prev) {
    err(s, st->name.loc, "inner node '%s' already defined at %s", st->name.s, at(s, prev->loc, w, sizeof w));
  } else {
    if (c->n_nodes == c->cap_nodes) {
      size_t cap = c->cap_nodes ? c->cap_nodes * 2 : 8;
      inner *nn = tfx_realloc(c->nodes, cap * sizeof *nn);
      if (!nn) {
        oom(s);
        return;
      }
      c->nodes = nn;
      c->cap_nodes = cap;
    }
    c->nodes[c->n_nodes++] = (inner){st->name.s, st->name.loc};
  }
  check_proto_type(s, &st->type);
  const tfx_ast_stmt *fmt_in[32] = {0}, *fmt_out[32] = {0};
  for (const tfx_ast_stmt *b = st->body; b; b = b->next) {
    if (b->kind == TFX_AST_S_FORMAT) {
      need(s, b->index_expr, expr_type(s, b->index_expr), T_INT, "a port number");
      need(s, b->expr, expr_type(s, b->expr), T_STRING, "a format");
      if (b->index_expr && b->index_expr->kind == TFX_AST_E_INT && b->index_expr->u.i >= 0 && b->index_expr->u.i < 32) {
        const tfx_ast_stmt **slot = b->is_output ? &fmt_out[b->index_expr->u.i] : &fmt_in[b->index_expr->u.i];
        if (*slot)
          err(s, b->loc, "format of %s %lld already set at %s", b->is_output ? "output" : "input",
              (long long)b->index_expr->u.i, at(s, (*slot)->loc, w, sizeof w));
        else *slot = b;
      }
    } else if (b->kind == TFX_AST_S_ATTR) {
      expr_type(s, b->expr);
    }
  }
}

static void check_out(sema *s, body_ctx *c, const tfx_ast_stmt *st) {
  char w[300];
  if (!c->n_outs) c->first_out = st->loc;
  c->n_outs++;
  if (!find_inner(c, st->port_node.s))
    err(s, st->port_node.loc, "unknown inner node '%s'", st->port_node.s);
  if (st->index < 0) err(s, st->loc, "output numbers start at 0");
  if (st->port < 0) err(s, st->port_node.loc, "port numbers start at 0");
  if (c->is_fuse && c->max_out >= 0 && st->index > c->max_out)
    err(s, st->loc, "boundary output %lld is produced by no index map (the fused outputs are 0..%lld)",
        (long long)st->index, (long long)c->max_out);
  for (int i = 0; i < c->n_outs_seen; i++)
    if (c->outs_seen[i]->index == st->index) {
      err(s, st->loc, "boundary output %lld already defined at %s", (long long)st->index,
          at(s, c->outs_seen[i]->loc, w, sizeof w));
      return;
    }
  if (c->n_outs_seen < 64) c->outs_seen[c->n_outs_seen++] = st;
}

/* Per-block bookkeeping of single-valued fuse statements. */
typedef struct block_seen {
  const tfx_ast_stmt *type, *name, *desc, *scopes;
} block_seen;

static void once(sema *s, const tfx_ast_stmt **slot, const tfx_ast_stmt *st, const char *what) {
  char w[300];
  if (*slot) err(s, st->loc, "'%s' already given at %s", what, at(s, (*slot)->loc, w, sizeof w));
  else *slot = st;
}

static void check_index_maps(sema *s, const tfx_ast_stmt *list, body_ctx *c) {
  char w[300];
  const tfx_ast_stmt *seen[2][64];
  int n_seen[2] = {0, 0};
  for (const tfx_ast_stmt *st = list; st; st = st->next) {
    if (st->kind != TFX_AST_S_INDEX_MAP) continue;
    const tfx_ast_portmap *first[64] = {0};
    for (const tfx_ast_portmap *m = st->ports; m; m = m->next) {
      if (m->from < 0 || (!m->to_none && m->to < 0)) {
        err(s, m->loc, "port numbers start at 0 (write 'none' to drop an edge)");
        continue;
      }
      if (!m->to_none) {
        int64_t *mx = st->is_output ? &c->max_out : &c->max_in;
        if (m->to > *mx) *mx = m->to;
      }
      if (m->from < 64) {
        if (first[m->from])
          err(s, m->loc, "port %lld is mapped twice (first at %s)", (long long)m->from,
              at(s, first[m->from]->loc, w, sizeof w));
        else first[m->from] = m;
      }
    }
    const tfx_ast_expr *k = st->expr;
    if (k && k->kind == TFX_AST_E_STRING) {
      int o = st->is_output;
      for (int i = 0; i < n_seen[o]; i++) {
        const tfx_ast_expr *pk = seen[o][i]->expr;
        if (pk->u.str.len == k->u.str.len && !memcmp(pk->u.str.s, k->u.str.s, k->u.str.len)) {
          err(s, k->loc, "%s map for \"%s\" already given at %s", o ? "output" : "input", k->u.str.s,
              at(s, seen[o][i]->loc, w, sizeof w));
          break;
        }
      }
      if (n_seen[o] < 64) seen[o][n_seen[o]++] = st;
    }
  }
}

static void check_fuse_block(sema *s, const tfx_ast_stmt *list, body_ctx *c) {
  if (list && list->depth > TFX_AST_MAX_DEPTH) return;
  size_t mark = s->nb;
  block_seen seen = {0};
  char w[300];
  const tfx_ast_stmt *attrs[64];
  int n_attrs = 0;
  for (const tfx_ast_stmt *st = list; st; st = st->next) {
    switch (st->kind) {
      case TFX_AST_S_SCOPES:
        once(s, &seen.scopes, st, "scopes");
        for (const tfx_ast_expr *e = st->exprs; e; e = e->next)
          need(s, e, expr_type(s, e), T_SCOPE | T_LIST | T_NONE, "a member of 'scopes'");
        break;
      case TFX_AST_S_NAME:
        once(s, &seen.name, st, "name");
        need(s, st->expr, expr_type(s, st->expr), T_STRING, "the name of a result");
        break;
      case TFX_AST_S_TYPE:
        once(s, &seen.type, st, "type");
        c->has_type = 1;
        if (!c->type_stmt) c->type_stmt = st;
        if (strcmp(st->name.s, "ScopeToMultiNodes") != 0) check_proto_type(s, &st->name);
        break;
      case TFX_AST_S_DESCRIPTION:
        once(s, &seen.desc, st, "description");
        need(s, st->expr, expr_type(s, st->expr), T_STRING, "a description");
        break;
      case TFX_AST_S_INDEX_MAP:
        need(s, st->expr, expr_type(s, st->expr), T_STRING, "an index-map key");
        break;
      case TFX_AST_S_ABSORB:
        need(s, st->expr, expr_type(s, st->expr), T_NODE | T_LIST | T_NONE, "what 'absorb' takes");
        break;
      case TFX_AST_S_ATTR: {
        unsigned t = expr_type(s, st->expr);
        if (s->fuse_proto) check_attr_proto(s, s->fuse_type, s->fuse_proto, st, t);
        int dup = 0;
        for (int i = 0; i < n_attrs && !dup; i++)
          if (!strcmp(attrs[i]->name.s, st->name.s)) {
            err(s, st->name.loc, "attribute '%s' already set at %s", st->name.s, at(s, attrs[i]->loc, w, sizeof w));
            dup = 1;
          }
        if (!dup && n_attrs < 64) attrs[n_attrs++] = st;
        break;
      }
      case TFX_AST_S_LET: {
        unsigned t = expr_type(s, st->expr);
        push_binding(s, st->name.s, st->name.loc, B_LET, t);
        break;
      }
      case TFX_AST_S_IF:
        cond_type(s, st->expr, "an 'if' condition");
        check_fuse_block(s, st->body, c);
        if (st->has_else) check_fuse_block(s, st->else_body, c);
        break;
      case TFX_AST_S_INVALID:
        need(s, st->expr, expr_type(s, st->expr), T_STRING, "the reason of 'invalid'");
        break;
      case TFX_AST_S_ABSENT_PORT: {
        int64_t v;
        if (int_lit(s, st->expr, st->is_output ? "'absent output'" : "'absent input'", &v) && v < 0)
          err(s, st->expr->loc, "port numbers start at 0");
        break;
      }
      case TFX_AST_S_NODE: check_node_stmt(s, c, st); break;
      case TFX_AST_S_OUT: check_out(s, c, st); break;
      default: break; /* op-map statements cannot be parsed here */
    }
  }
  check_index_maps(s, list, c);
  pop_bindings(s, mark);
}

static void fuse_max_ports(const tfx_ast_stmt *list, body_ctx *c) {
  for (const tfx_ast_stmt *st = list; st; st = st->next)
    if (st->kind == TFX_AST_S_INDEX_MAP)
      for (const tfx_ast_portmap *m = st->ports; m; m = m->next)
        if (!m->to_none && m->to >= 0) {
          int64_t *mx = st->is_output ? &c->max_out : &c->max_in;
          if (m->to > *mx) *mx = m->to;
        }
}

/* ---------------------------------------------------------------- fused port numbering
 * (issue 12 item 1; kept apart from check_fuse_block). The index maps of a result, in every
 * branch together, must give each fused port 0..max of a direction: a port no map can give
 * would make the fused op's later inputs shift into its slot. Keys themselves are checked at
 * fusion time against the result's nodes (fusion/engine.c, check_keys): a pattern describes
 * a scope by op-type counts and names, not by the names of its nodes. */

typedef struct port_set {
  uint64_t bits[2][4];                /* ports 0..255 per direction */
  const tfx_ast_portmap *max_at[2];   /* the entry giving the highest port */
} port_set;

static void collect_ports(const tfx_ast_stmt *list, port_set *ps) {
  if (list && list->depth > TFX_AST_MAX_DEPTH) return;
  for (const tfx_ast_stmt *st = list; st; st = st->next) {
    if (st->kind == TFX_AST_S_IF) {
      collect_ports(st->body, ps);
      collect_ports(st->else_body, ps);
      continue;
    }
    int o = st->is_output ? 1 : 0;
    if (st->kind == TFX_AST_S_ABSENT_PORT) { /* declared unfed: not a gap */
      const tfx_ast_expr *e = st->expr;
      if (e && e->kind == TFX_AST_E_INT && e->u.i >= 0 && e->u.i < 256) ps->bits[o][e->u.i / 64] |= 1ull << (e->u.i % 64);
      continue;
    }
    if (st->kind != TFX_AST_S_INDEX_MAP) continue;
    for (const tfx_ast_portmap *m = st->ports; m; m = m->next) {
      if (m->to_none || m->to < 0) continue;
      if (m->to < 256) ps->bits[o][m->to / 64] |= 1ull << (m->to % 64);
      if (!ps->max_at[o] || m->to > ps->max_at[o]->to) ps->max_at[o] = m;
    }
  }
}

static void check_port_gaps(sema *s, const tfx_ast_fuse *f) {
  port_set ps;
  memset(&ps, 0, sizeof ps);
  collect_ports(f->body, &ps);
  for (int o = 0; o < 2; o++) {
    const tfx_ast_portmap *m = ps.max_at[o];
    if (!m || m->to >= 256) continue; /* past 255: left to the fusion-time check */
    for (int64_t q = 0; q < m->to; q++)
      if (!(ps.bits[o][q / 64] & (1ull << (q % 64)))) {
        err(s, m->loc, "fused %s %lld is given by no index map of this result, but %s %lld is (the fused "
            "ports are numbered without gaps; 'absent %s %lld;' declares an unfed port)", o ? "output" : "input",
            (long long)q, o ? "output" : "input", (long long)m->to, o ? "output" : "input", (long long)q);
        break;
      }
  }
}

static int has_scopes_stmt(const tfx_ast_stmt *list) {
  for (const tfx_ast_stmt *st = list; st; st = st->next) {
    if (st->kind == TFX_AST_S_SCOPES) return 1;
    if (st->kind == TFX_AST_S_IF && st->depth <= TFX_AST_MAX_DEPTH &&
        (has_scopes_stmt(st->body) || has_scopes_stmt(st->else_body)))
      return 1;
  }
  return 0;
}

static void check_fuse(sema *s, const tfx_ast_fuse *f) {
  char w[300];
  size_t mark = s->nb;
  int saved = s->fuse_has_scopes;
  s->fuse_has_scopes = has_scopes_stmt(f->body);
  for (const tfx_ast_binding *b = f->bindings; b; b = b->next) {
    for (const tfx_ast_name *t = b->sub_types; t; t = t->next) check_subtype(s, t->s, t->loc);
    if (b->source) { /* `v in f()`: the call must give a list (of scopes) */
      if (b->sub_types) err(s, b->sub_types->loc, "a binding over '%s()' takes no sub_types", b->source->u.call.name);
      unsigned t = expr_type(s, b->source);
      need(s, b->source, t, T_LIST, "the candidates of a 'fuse' binding");
    }
    binding *prev = find_binding(s, b->var.s);
    if (prev) err(s, b->var.loc, "binding '%s' already defined at %s", b->var.s, at(s, prev->loc, w, sizeof w));
    push_binding(s, b->var.s, b->var.loc, B_FUSE, T_SCOPE);
  }
  if (f->where) cond_type(s, f->where, "a 'where' condition");
  body_ctx c;
  memset(&c, 0, sizeof c);
  c.is_fuse = 1;
  c.max_in = c.max_out = -1;
  fuse_max_ports(f->body, &c); /* top-level maps give the boundary port counts */
  c.max_in = c.max_in;
  s->fuse_proto = NULL; /* the result's attributes are checked against its type's prototype */
  s->fuse_type = NULL;
  for (const tfx_ast_stmt *st = f->body; st && s->opt->protos && s->opt->protos->lookup; st = st->next)
    if (st->kind == TFX_AST_S_TYPE) {
      s->fuse_proto = s->opt->protos->lookup(s->opt->protos->ctx, st->name.s);
      s->fuse_type = st->name.s;
      break;
    }
  check_fuse_block(s, f->body, &c);
  s->fuse_proto = NULL;
  check_port_gaps(s, f);
  if (!c.has_type)
    err(s, f->loc, "fusion result without a 'type' (add 'type OpType;')");
  if (c.n_nodes && !c.n_outs)
    err(s, f->loc, "many-to-many result without 'out' (inner nodes need at least one 'out N = node:port;')");
  if (c.n_outs && !c.n_nodes)
    err(s, c.first_out, "'out' needs inner nodes ('node NAME: Type(...)')");
  if (c.n_nodes && c.type_stmt && strcmp(c.type_stmt->name.s, "ScopeToMultiNodes") != 0)
    err(s, c.type_stmt->name.loc, "a result with inner nodes has 'type ScopeToMultiNodes', not '%s'",
        c.type_stmt->name.s);
  free(c.nodes);
  pop_bindings(s, mark);
  s->fuse_has_scopes = saved;
}

static void check_pass(sema *s, const tfx_ast_pass *p) {
  tfx_hmap_free(&s->local);
  tfx_hmap_init(&s->local);
  for (const tfx_ast_group *g = p->groups; g; g = g->next) {
    for (const tfx_ast_layer *l = g->layers; l; l = l->next) {
      for (const tfx_ast_pattern *pt = l->patterns; pt; pt = pt->next)
        for (const tfx_ast_feature *f = pt->features; f; f = f->next) check_feature(s, f);
      for (const tfx_ast_pattern *pt = l->patterns; pt; pt = pt->next) add_subtype(s, &s->local, pt->sub_type.s);
      if (!l->n_patterns) err(s, l->loc, "empty layer (a layer holds at least one pattern)");
    }
    if (!g->n_layers) err(s, g->loc, "empty group (a group holds at least one layer)");
  }
  for (const tfx_ast_require *r = p->requires; r; r = r->next) cond_type(s, r->cond, "a 'require' condition");
  for (const tfx_ast_fuse *f = p->fuses; f; f = f->next) check_fuse(s, f);
  if (!p->overridden) /* only registered passes set sub_types for later ones */
    for (const tfx_ast_group *g = p->groups; g; g = g->next)
      for (const tfx_ast_layer *l = g->layers; l; l = l->next)
        for (const tfx_ast_pattern *pt = l->patterns; pt; pt = pt->next) add_subtype(s, &s->known, pt->sub_type.s);
}

/* ---------------------------------------------------------------- op maps */

static const tfx_rules_proto_port *proto_port(const tfx_rules_op_proto *op, int output, const char *name) {
  const tfx_rules_proto_port *v = output ? op->outputs : op->inputs;
  size_t n = output ? op->n_outputs : op->n_inputs;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(v[i].name, name)) return &v[i];
  return NULL;
}

static void port_list(const tfx_rules_op_proto *op, int output, char *buf, size_t size) {
  const tfx_rules_proto_port *v = output ? op->outputs : op->inputs;
  size_t n = output ? op->n_outputs : op->n_inputs, k = 0;
  buf[0] = 0;
  for (size_t i = 0; i < n && k < size; i++) k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? ", " : "", v[i].name);
}

static void check_port_proto(sema *s, const tfx_ast_opmap *m, const tfx_rules_op_proto *op, const tfx_ast_stmt *st) {
  const char *dir = st->is_output ? "output" : "input";
  const tfx_rules_proto_port *pp = proto_port(op, st->is_output, st->name.s);
  if (!pp) {
    char list[400];
    port_list(op, st->is_output, list, sizeof list);
    err(s, st->name.loc, "CANN op '%s' has no %s '%s' (%ss: %s)", m->to.s, dir, st->name.s, dir,
        list[0] ? list : "none");
    return;
  }
  if (st->kind == TFX_AST_S_DYNAMIC && pp->kind != TFX_RULES_PORT_DYNAMIC)
    err(s, st->name.loc, "%s '%s' of '%s' is not dynamic", dir, st->name.s, m->to.s);
  else if (st->kind != TFX_AST_S_DYNAMIC && pp->kind == TFX_RULES_PORT_DYNAMIC)
    err(s, st->name.loc, "%s '%s' of '%s' is dynamic: map it with 'dynamic %s %s count N;'", dir, st->name.s,
        m->to.s, dir, st->name.s);
  else if (st->kind == TFX_AST_S_OPTIONAL && pp->kind != TFX_RULES_PORT_OPTIONAL)
    err(s, st->name.loc, "input '%s' of '%s' is required, not optional", st->name.s, m->to.s);
}

/* ---------------------------------------------------------------- CANN attribute types
 * (issue 12 item 3; kept apart from check_opmap). `attr NAME = E` of an op map whose value has
 * a statically known type that can never be the prototype attribute's (an int for ListInt, a
 * list for Int, a string for a number or bool) is an error here; values known only when a
 * node is mapped are checked then (opmap/check.c). */
static void check_attr_proto(sema *s, const char *to, const tfx_rules_op_proto *op, const tfx_ast_stmt *st,
                             unsigned t) {
  const tfx_rules_proto_attr *pa = NULL;
  for (size_t i = 0; i < op->n_attrs && !pa; i++)
    if (!strcmp(op->attrs[i].name, st->name.s)) pa = &op->attrs[i];
  if (!pa || pa->kind == TFX_RULES_A_OTHER || (t & T_NONE) || t == T_ANY || !st->expr) return;
  int bad;
  switch (pa->kind) {
    case TFX_RULES_A_LIST: bad = !(t & T_LIST); break;
    case TFX_RULES_A_NUMBER: case TFX_RULES_A_BOOL: bad = !(t & ~(unsigned)(T_LIST | T_STRING)); break;
    case TFX_RULES_A_STRING: case TFX_RULES_A_TYPE: bad = !(t & ~(unsigned)T_LIST); break;
    default: bad = 0; break;
  }
  if (!bad) return;
  char b[128];
  err(s, st->expr->loc, "type mismatch: attribute '%s' of CANN op '%s' is %s, the value is %s", st->name.s, to,
      pa->type, tname(t, b, sizeof b));
}

static const char *port_stmt_name(const tfx_ast_stmt *st) {
  switch (st->kind) {
    case TFX_AST_S_DYNAMIC: return st->is_output ? "dynamic output" : "dynamic input";
    case TFX_AST_S_OPTIONAL: return "optional input";
    default: return st->is_output ? "output" : "input";
  }
}

static void check_opmap(sema *s, const tfx_ast_opmap *m) {
  char w[300];
  const tfx_ast_stmt *auto_s = NULL, *when_s = NULL, *prio_s = NULL;
  const tfx_ast_stmt *ports[2][64];
  int n_ports[2] = {0, 0};
  const tfx_ast_stmt *attrs[64], *drops[64];
  int n_attrs = 0, n_drops = 0;
  const tfx_ast_stmt *tf_in[64] = {0}; /* literal TF input index -> the statement using it */
  const tfx_ast_stmt *fmt[2][32] = {{0}};
  body_ctx c;
  memset(&c, 0, sizeof c);
  c.max_in = c.max_out = -1;
  const tfx_rules_op_proto *proto = NULL;
  if (!m->is_graph && s->opt->protos && s->opt->protos->lookup) {
    proto = s->opt->protos->lookup(s->opt->protos->ctx, m->to.s);
    if (!proto) warn(s, TFX_RULES_W_UNKNOWN_OP, m->to.loc, "no prototype for CANN op '%s'", m->to.s);
  }
  for (const tfx_ast_stmt *st = m->body; st; st = st->next) {
    int graph_ok = st->kind == TFX_AST_S_NODE || st->kind == TFX_AST_S_OUT || st->kind == TFX_AST_S_WHEN ||
                   st->kind == TFX_AST_S_PRIORITY;
    if (m->is_graph && !graph_ok) {
      const tfx_rules_source *src = tfx_ruleset_source(s->rs, st->loc.file);
      int n = 0;
      while (st->loc.off + (uint32_t)n < src->len && src->text[st->loc.off + (uint32_t)n] >= 'a' &&
             src->text[st->loc.off + (uint32_t)n] <= 'z')
        n++;
      err(s, st->loc, "'%.*s' is not allowed in a graph map (it holds node, out, when and priority)", n,
          src->text + st->loc.off);
      continue;
    }
    if (!m->is_graph && (st->kind == TFX_AST_S_NODE || st->kind == TFX_AST_S_OUT)) {
      err(s, st->loc, "'%s' belongs in a graph map ('op %s -> graph { ... }')",
          st->kind == TFX_AST_S_NODE ? "node" : "out", m->from ? m->from->s : "T");
      continue;
    }
    switch (st->kind) {
      case TFX_AST_S_AUTO: once(s, &auto_s, st, "auto"); break;
      case TFX_AST_S_WHEN:
        once(s, &when_s, st, "when");
        cond_type(s, st->expr, "a 'when' condition");
        break;
      case TFX_AST_S_PRIORITY: once(s, &prio_s, st, "priority"); break;
      case TFX_AST_S_ATTR: {
        unsigned t = expr_type(s, st->expr);
        if (proto) check_attr_proto(s, m->to.s, proto, st, t);
        int dup = 0;
        for (int i = 0; i < n_attrs && !dup; i++)
          if (!strcmp(attrs[i]->name.s, st->name.s)) {
            err(s, st->name.loc, "attribute '%s' already set at %s", st->name.s, at(s, attrs[i]->loc, w, sizeof w));
            dup = 1;
          }
        if (!dup && n_attrs < 64) attrs[n_attrs++] = st;
        break;
      }
      case TFX_AST_S_DROP:
        if (n_drops < 64) drops[n_drops++] = st;
        break;
      case TFX_AST_S_FORMAT: {
        need(s, st->index_expr, expr_type(s, st->index_expr), T_INT, "a port number");
        need(s, st->expr, expr_type(s, st->expr), T_STRING, "a format");
        const tfx_ast_expr *ix = st->index_expr;
        if (ix && ix->kind == TFX_AST_E_INT && ix->u.i >= 0 && ix->u.i < 32) {
          const tfx_ast_stmt **slot = &fmt[st->is_output][ix->u.i];
          if (*slot)
            err(s, st->loc, "format of %s %lld already set at %s", st->is_output ? "output" : "input",
                (long long)ix->u.i, at(s, (*slot)->loc, w, sizeof w));
          else *slot = st;
        }
        break;
      }
      case TFX_AST_S_PORT:
      case TFX_AST_S_OPTIONAL:
      case TFX_AST_S_DYNAMIC: {
        if (st->kind == TFX_AST_S_DYNAMIC)
          need(s, st->expr, expr_type(s, st->expr), T_INT | T_LIST | T_NONE, "a dynamic port count");
        else
          need(s, st->index_expr, expr_type(s, st->index_expr), T_INT, "a TF port number");
        if (st->kind == TFX_AST_S_OPTIONAL && st->expr) cond_type(s, st->expr, "a 'when' condition");
        int o = st->is_output, dup = 0;
        for (int i = 0; i < n_ports[o] && !dup; i++) {
          const tfx_ast_stmt *p = ports[o][i];
          if (strcmp(p->name.s, st->name.s) != 0) continue;
          dup = 1;
          if (p->kind == st->kind)
            err(s, st->name.loc, "%s '%s' already mapped at %s", o ? "output" : "input", st->name.s,
                at(s, p->loc, w, sizeof w));
          else
            err(s, st->loc, "'%s %s' conflicts with '%s %s' at %s", port_stmt_name(st), st->name.s,
                port_stmt_name(p), p->name.s, at(s, p->loc, w, sizeof w));
        }
        if (!dup && n_ports[o] < 64) ports[o][n_ports[o]++] = st;
        const tfx_ast_expr *ix = st->index_expr;
        if (!o && st->kind != TFX_AST_S_DYNAMIC && ix && ix->kind == TFX_AST_E_INT && ix->u.i >= 0 && ix->u.i < 64) {
          const tfx_ast_stmt *p = tf_in[ix->u.i];
          if (p && p->kind == TFX_AST_S_DELETE)
            err(s, ix->loc, "TF input %lld is deleted at %s", (long long)ix->u.i, at(s, p->loc, w, sizeof w));
          else if (p)
            err(s, ix->loc, "TF input %lld is already mapped to '%s' at %s", (long long)ix->u.i, p->name.s,
                at(s, p->loc, w, sizeof w));
          else tf_in[ix->u.i] = st;
        }
        if (proto && !dup) check_port_proto(s, m, proto, st); /* one error per statement */
        break;
      }
      case TFX_AST_S_DELETE: {
        need(s, st->index_expr, expr_type(s, st->index_expr), T_INT, "a TF port number");
        cond_type(s, st->expr, "a 'when' condition");
        const tfx_ast_expr *ix = st->index_expr;
        if (ix && ix->kind == TFX_AST_E_INT && ix->u.i >= 0 && ix->u.i < 64) {
          const tfx_ast_stmt *p = tf_in[ix->u.i];
          if (p && p->kind == TFX_AST_S_DELETE)
            err(s, st->loc, "TF input %lld is already deleted at %s", (long long)ix->u.i, at(s, p->loc, w, sizeof w));
          else if (p)
            err(s, st->loc, "TF input %lld is mapped to '%s' at %s and cannot be deleted", (long long)ix->u.i,
                p->name.s, at(s, p->loc, w, sizeof w));
          else tf_in[ix->u.i] = st;
        }
        break;
      }
      case TFX_AST_S_NODE: check_node_stmt(s, &c, st); break;
      case TFX_AST_S_OUT: check_out(s, &c, st); break;
      default: break;
    }
  }
  for (int i = 0; i < n_drops; i++)
    for (const tfx_ast_name *n = drops[i]->names; n; n = n->next)
      for (int j = 0; j < n_attrs; j++)
        if (!strcmp(attrs[j]->name.s, n->s))
          err(s, n->loc, "attribute '%s' is set at %s and dropped here", n->s, at(s, attrs[j]->loc, w, sizeof w));
  if (m->is_graph && !c.n_outs) err(s, m->loc, "graph map without 'out' (add 'out 0 = node:port;')");
  free(c.nodes);
}

/* ---------------------------------------------------------------- TF-side names of op maps
 * (issue 12 item 2; kept apart from check_opmap). An op map's TF types must have a TF op
 * definition (the tfops hook: the stdlib's tf-ops.tsv) or be produced by a scope rule of the
 * set (a fusion result's `type`, an inner node's type), else -Wunknown-tf-op; a bare name an
 * op map reads (a TF attribute) must be an attribute of at least one of its defined TF types,
 * else -Wunknown-tf-attr (not the left side of `??` nor the argument of exists(): probes for
 * an attribute that may be missing). Maps with a TF type the hook does not define are not checked for
 * attribute names. Both warnings say "did you mean". */

static void collect_fused_types(sema *s, const tfx_ast_stmt *list) {
  if (list && list->depth > TFX_AST_MAX_DEPTH) return;
  for (const tfx_ast_stmt *st = list; st; st = st->next) {
    const char *t = st->kind == TFX_AST_S_TYPE ? st->name.s : st->kind == TFX_AST_S_NODE ? st->type.s : NULL;
    if (t && tfx_hmap_put(&s->fused_types, t, strlen(t), 1, NULL) < 0) oom(s);
    if (st->kind == TFX_AST_S_IF) {
      collect_fused_types(s, st->body);
      collect_fused_types(s, st->else_body);
    }
  }
}

/* Edit distance of a and b (case-sensitive), capped at 4 (longer names: 4). */
static size_t edit4(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  if (na > 63 || nb > 63) return 4;
  size_t row[64];
  for (size_t j = 0; j <= nb; j++) row[j] = j;
  for (size_t i = 1; i <= na; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= nb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[nb] < 4 ? row[nb] : 4;
}

/* Up to max names of v within edit distance 3 of name, closest first (then in v's order). */
static size_t tfx_rules_names_similar(const char *const *v, size_t n, const char *name, const char **out, size_t max) {
  size_t k = 0;
  for (size_t d = 1; d <= 3 && k < max; d++)
    for (size_t i = 0; i < n && k < max; i++) {
      int dup = 0;
      for (size_t j = 0; j < k; j++) dup |= !strcmp(out[j], v[i]);
      if (!dup && edit4(name, v[i]) == d) out[k++] = v[i];
    }
  return k;
}

static void hint_list(const char **v, size_t n, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = 0;
  for (size_t i = 0; i < n && k < size; i++)
    k += (size_t)snprintf(buf + k, size - k, "%s'%s'", i == 0 ? "; did you mean " : i + 1 == n ? " or " : ", ", v[i]);
  if (n && k < size) snprintf(buf + k, size - k, "?");
}

static void check_tf_types(sema *s, const tfx_ast_opmap *m) {
  const tfx_rules_tfops *h = s->opt->tfops;
  if (!h || !h->lookup) return;
  for (const tfx_ast_name *f = m->from; f; f = f->next) {
    const char *const *attrs;
    size_t na;
    if (h->lookup(h->ctx, f->s, &attrs, &na)) continue;
    if (tfx_hmap_get(&s->fused_types, f->s, strlen(f->s)) != TFX_HASH_NONE) continue;
    const char *sim[3];
    size_t ns = h->similar ? h->similar(h->ctx, f->s, sim, 3) : 0;
    char hint[300];
    hint_list(sim, ns, hint, sizeof hint);
    warn(s, TFX_RULES_W_UNKNOWN_TF_OP, f->loc, "unknown TF op type '%s': no TF op definition and no scope rule "
         "fuses into it%s", f->s, hint);
  }
}

static void check_tf_attr_ident(sema *s, const tfx_ast_expr *e) {
  const tfx_rules_tfops *h = s->opt->tfops;
  const tfx_ast_opmap *m = s->cur_map;
  if (!h || !h->lookup || !m || e == s->coalesce_lhs) return; /* `x ?? d`: may be absent */
  const char *cand[64];
  size_t nc = 0;
  const char *first = NULL;
  for (const tfx_ast_name *f = m->from; f; f = f->next) {
    const char *const *attrs;
    size_t na;
    if (h->lookup(h->ctx, f->s, &attrs, &na) != 1) return; /* no definition: not checked */
    for (size_t i = 0; i < na; i++) {
      if (!strcmp(attrs[i], e->u.name)) return;
      if (nc < 64) cand[nc++] = attrs[i];
    }
    if (!first) first = f->s;
  }
  if (!first) return;
  const char *sim[3];
  size_t ns = tfx_rules_names_similar(cand, nc, e->u.name, sim, 3);
  char hint[300];
  hint_list(sim, ns, hint, sizeof hint);
  warn(s, TFX_RULES_W_UNKNOWN_TF_ATTR, e->loc, "'%s' is not an attribute of TF op '%s'%s (it reads as none)", e->u.name,
       m->n_from > 1 ? "any of the map's TF ops" : first, hint);
}
/* ---------------------------------------------------------------- dataflow rewrites */

#include "rules/sema_flow.inc" /* check_rewrites(): the `rewrite` rules, kept apart */

/* ---------------------------------------------------------------- entry */

int tfx_rules_sema(tfx_ruleset *rs, const tfx_rules_options *opt, tfx_diag *d) {
  sema s;
  memset(&s, 0, sizeof s);
  s.rs = rs;
  s.d = d;
  s.opt = opt;
  tfx_hmap_init(&s.known);
  tfx_hmap_init(&s.local);
  tfx_hmap_init(&s.fused_types);
  for (uint32_t f = 0; f < rs->n_sources && opt->tfops; f++) /* every file: maps may come first */
    for (const tfx_ast_pass *p = rs->sources[f].ast ? rs->sources[f].ast->passes : NULL; p; p = p->next)
      for (const tfx_ast_fuse *fu = p->fuses; fu; fu = fu->next) collect_fused_types(&s, fu->body);
  size_t before = rs->errors;
  for (uint32_t f = 0; f < rs->n_sources && !s.oom; f++) {
    const tfx_ast_file *file = rs->sources[f].ast;
    if (!file) continue;
    s.file = f;
    s.kind = file->kind;
    for (const tfx_ast_pass *p = file->passes; p; p = p->next) check_pass(&s, p);
    for (const tfx_ast_opmap *m = file->opmaps; m; m = m->next) {
      check_tf_types(&s, m);
      s.cur_map = m;
      check_opmap(&s, m);
      s.cur_map = NULL;
    }
  }
  if (!s.oom) check_rewrites(&s);
  free(s.b);
  tfx_hmap_free(&s.known);
  tfx_hmap_free(&s.local);
  tfx_hmap_free(&s.fused_types);
  return rs->errors > before ? -1 : 0;
}
