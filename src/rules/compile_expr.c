/* Rule compiler, expressions: AST expressions -> register code through the assembler.
 * Stage: rules, back end (called by compile.c). Output: code leaving a value in a register, or
 * conditional jumps (short-circuit and/or/not; none counts as false). Literal lists and dicts
 * are interned constants. Recursion is bounded by the parser's TFX_AST_MAX_DEPTH. */
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "rules/compile_int.h"
#include "tensorflow/types.pb-c.h"

/* ---------------------------------------------------------------- registers and names */

uint32_t tfx_cc_alloc(tfx_cc *c, uint32_t n, tfx_rules_loc loc) {
  if (c->top + n > TFX_VM_MAX_REGS) {
    if (!c->overflow)
      tfx_cc_error(c, loc, "expression too complex (it needs more than %d registers); split it with 'let'",
                   TFX_VM_MAX_REGS);
    c->overflow = 1;
    return TFX_VM_MAX_REGS - n; /* the program is discarded; keep operands valid */
  }
  uint32_t r = c->top;
  c->top += n;
  return r;
}

int tfx_cc_push_var(tfx_cc *c, const char *name, uint32_t reg, tfx_ck kind) {
  if (c->n_vars == c->cap_vars) {
    uint32_t cap = c->cap_vars ? c->cap_vars * 2 : 16;
    tfx_cvar *v = tfx_realloc(c->vars, (size_t)cap * sizeof *v);
    if (!v) {
      tfx_cc_oom(c);
      return -1;
    }
    c->vars = v;
    c->cap_vars = cap;
  }
  c->vars[c->n_vars++] = (tfx_cvar){name, reg, kind};
  return 0;
}

const tfx_cvar *tfx_cc_find_var(const tfx_cc *c, const char *name) {
  for (uint32_t i = c->n_vars; i-- > 0;)
    if (!strcmp(c->vars[i].name, name)) return &c->vars[i];
  return NULL;
}

#define EMIT(op, a, b, cc_) tfx_asm_emit(&c->as, TFX_OP_##op, (a), (b), (cc_))
#define EMIT4(op, a, b, cc_, d) tfx_asm_emit4(&c->as, TFX_OP_##op, (a), (b), (cc_), (d))

void tfx_cc_load_int(tfx_cc *c, uint32_t reg, int64_t v) {
  if (v >= INT32_MIN && v <= INT32_MAX) EMIT(LOADI, reg, v, 0);
  else EMIT(LOADK, reg, tfx_asm_const_int(&c->as, v), 0);
}

void tfx_cc_load_str(tfx_cc *c, uint32_t reg, const char *s) {
  EMIT(LOADK, reg, tfx_asm_const_str(&c->as, s), 0);
}

/* ---------------------------------------------------------------- constants */

static int64_t dtype_number(const char *name) {
  const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value_by_name(&tensorflow__data_type__descriptor, name);
  return v ? v->value : -1;
}

/* 1 when e is a literal (or a list/dict of literals) that fits a constant. */
static int is_const(const tfx_ast_expr *e) {
  if (e->depth > TFX_V_MAX_DEPTH) return 0; /* constant lists nest at most this deep */
  switch (e->kind) {
    case TFX_AST_E_INT: case TFX_AST_E_FLOAT: case TFX_AST_E_BOOL: case TFX_AST_E_STRING:
    case TFX_AST_E_NONE:
      return 1;
    case TFX_AST_E_DTYPE: return dtype_number(e->u.name) >= 0;
    case TFX_AST_E_LIST:
      for (const tfx_ast_expr *x = e->u.list.items; x; x = x->next)
        if (!is_const(x)) return 0;
      return 1;
    case TFX_AST_E_DICT:
      for (const tfx_ast_expr *x = e->u.dict.keys; x; x = x->next)
        if (!is_const(x)) return 0;
      for (const tfx_ast_expr *x = e->u.dict.values; x; x = x->next)
        if (!is_const(x)) return 0;
      return 1;
    default: return 0;
  }
}

static uint32_t intern(tfx_cc *c, const tfx_ast_expr *e) {
  tfx_asm *as = &c->as;
  switch (e->kind) {
    case TFX_AST_E_INT: return tfx_asm_const_int(as, e->u.i);
    case TFX_AST_E_FLOAT: return tfx_asm_const_float(as, e->u.f);
    case TFX_AST_E_BOOL: return tfx_asm_const_bool(as, e->u.b);
    case TFX_AST_E_STRING: return tfx_asm_const_strn(as, e->u.str.s, e->u.str.len);
    case TFX_AST_E_NONE: return tfx_asm_const_none(as);
    case TFX_AST_E_DTYPE: return tfx_asm_const_dtype(as, dtype_number(e->u.name));
    case TFX_AST_E_LIST:
    case TFX_AST_E_DICT: {
      uint32_t n = e->kind == TFX_AST_E_LIST ? e->u.list.n : 2 * e->u.dict.n;
      uint32_t *el = tfx_malloc(((size_t)n + 1) * sizeof *el);
      if (!el) {
        tfx_cc_oom(c);
        return TFX_PACK_NONE;
      }
      uint32_t i = 0;
      if (e->kind == TFX_AST_E_LIST) {
        for (const tfx_ast_expr *x = e->u.list.items; x && i < n; x = x->next) el[i++] = intern(c, x);
      } else { /* a dict is the flat list [k0, v0, k1, v1, ...] that `lookup` takes */
        const tfx_ast_expr *k = e->u.dict.keys, *v = e->u.dict.values;
        for (; k && v && i + 1 < n + 1; k = k->next, v = v->next) {
          el[i++] = intern(c, k);
          el[i++] = intern(c, v);
        }
      }
      uint32_t r = TFX_PACK_NONE;
      int ok = i == n;
      for (uint32_t j = 0; j < i; j++) ok &= el[j] != TFX_PACK_NONE;
      if (ok) r = tfx_asm_const_list(as, el, n);
      free(el);
      return r;
    }
    default: return TFX_PACK_NONE;
  }
}

uint32_t tfx_cc_const(tfx_cc *c, const tfx_ast_expr *e) {
  if (!e || !is_const(e)) return TFX_PACK_NONE;
  return intern(c, e);
}

/* ---------------------------------------------------------------- static kinds */

static int call_is(const tfx_ast_expr *e, const char *name) {
  return e && e->kind == TFX_AST_E_CALL && !strcmp(e->u.call.name, name);
}
static int prop_is(const tfx_ast_expr *e, const char *name) {
  return e && e->kind == TFX_AST_E_PROP && !strcmp(e->u.prop.name, name);
}

/* Kind of the elements of list expression e. */
static tfx_ck elem_kind(const tfx_cc *c, const tfx_ast_expr *e) {
  (void)c;
  if (call_is(e, "scopes") || prop_is(e, "children")) return TFX_CK_SCOPE;
  return TFX_CK_UNKNOWN;
}

tfx_ck tfx_cc_kind(const tfx_cc *c, const tfx_ast_expr *e) {
  if (!e || e->depth > TFX_AST_MAX_DEPTH) return TFX_CK_UNKNOWN;
  switch (e->kind) {
    case TFX_AST_E_NONE: return TFX_CK_NONE;
    case TFX_AST_E_LIST: case TFX_AST_E_SLICE: case TFX_AST_E_PERMUTE: return TFX_CK_LIST;
    case TFX_AST_E_IDENT: {
      const tfx_cvar *v = tfx_cc_find_var(c, e->u.name);
      return v ? v->kind : TFX_CK_UNKNOWN;
    }
    case TFX_AST_E_PROP: {
      const char *n = e->u.prop.name;
      if (!strcmp(n, "parent") || !strcmp(n, "scope")) return TFX_CK_SCOPE;
      if (!strcmp(n, "children") || !strcmp(n, "nodes") || !strcmp(n, "all_nodes") || !strcmp(n, "inputs"))
        return TFX_CK_LIST;
      return TFX_CK_UNKNOWN;
    }
    case TFX_AST_E_CALL: {
      const char *n = e->u.call.name;
      if (!strcmp(n, "scope")) return TFX_CK_SCOPE;
      if (!strcmp(n, "scopes") || !strcmp(n, "consumers") || !strcmp(n, "producers") || !strcmp(n, "const_value"))
        return TFX_CK_LIST;
      return TFX_CK_UNKNOWN;
    }
    case TFX_AST_E_INDEX: return elem_kind(c, e->u.index.base);
    case TFX_AST_E_QUANT: return e->u.quant.q == TFX_AST_Q_FIRST ? elem_kind(c, e->u.quant.list) : TFX_CK_UNKNOWN;
    case TFX_AST_E_COND: {
      tfx_ck a = tfx_cc_kind(c, e->u.cond.t), b = tfx_cc_kind(c, e->u.cond.f);
      return a == b ? a : a == TFX_CK_NONE ? b : b == TFX_CK_NONE ? a : TFX_CK_UNKNOWN;
    }
    case TFX_AST_E_BINARY:
      if (e->u.op.op == TFX_AST_OP_COALESCE) {
        tfx_ck a = tfx_cc_kind(c, e->u.op.a), b = tfx_cc_kind(c, e->u.op.b);
        return a == b || b == TFX_CK_NONE ? a : TFX_CK_UNKNOWN;
      }
      if (e->u.op.op == TFX_AST_OP_ADD &&
          (tfx_cc_kind(c, e->u.op.a) == TFX_CK_LIST || tfx_cc_kind(c, e->u.op.b) == TFX_CK_LIST))
        return TFX_CK_LIST;
      return TFX_CK_UNKNOWN;
    default: return TFX_CK_UNKNOWN;
  }
}

/* 1 when e always yields a bool in this compiler's code. */
static int is_bool(const tfx_ast_expr *e) {
  switch (e->kind) {
    case TFX_AST_E_BOOL: return 1;
    case TFX_AST_E_UNARY: return e->u.op.op == TFX_AST_OP_NOT;
    case TFX_AST_E_BINARY:
      return e->u.op.op != TFX_AST_OP_COALESCE && e->u.op.op != TFX_AST_OP_ADD && e->u.op.op != TFX_AST_OP_SUB &&
             e->u.op.op != TFX_AST_OP_MUL && e->u.op.op != TFX_AST_OP_DIV && e->u.op.op != TFX_AST_OP_MOD;
    case TFX_AST_E_QUANT: return e->u.quant.q == TFX_AST_Q_ANY || e->u.quant.q == TFX_AST_Q_ALL;
    case TFX_AST_E_CALL:
      return call_is(e, "exists") || call_is(e, "has_input") || call_is(e, "inside");
    default: return 0;
  }
}

/* ---------------------------------------------------------------- expressions */

static int depth_ok(tfx_cc *c, const tfx_ast_expr *e) {
  if (e->depth <= TFX_AST_MAX_DEPTH) return 1;
  tfx_cc_error(c, e->loc, "expression nested too deeply");
  return 0;
}

/* The variable register of e when e names a variable, else TFX_PACK_NONE. */
static uint32_t var_reg(const tfx_cc *c, const tfx_ast_expr *e) {
  if (e->kind != TFX_AST_E_IDENT) return TFX_PACK_NONE;
  const tfx_cvar *v = tfx_cc_find_var(c, e->u.name);
  return v ? v->reg : TFX_PACK_NONE;
}

uint32_t tfx_cc_expr_any(tfx_cc *c, const tfx_ast_expr *e) {
  uint32_t r = var_reg(c, e);
  if (r != TFX_PACK_NONE) return r;
  r = tfx_cc_alloc(c, 1, e->loc);
  tfx_cc_expr(c, e, r);
  return r;
}

/* e into dst when it needs computing; a variable's own register otherwise. */
static uint32_t expr_into(tfx_cc *c, const tfx_ast_expr *e, uint32_t dst) {
  uint32_t r = var_reg(c, e);
  if (r != TFX_PACK_NONE) return r;
  tfx_cc_expr(c, e, dst);
  return dst;
}

/* dst = the truth of e as a bool (none is false), through jumps. */
static void bool_value(tfx_cc *c, const tfx_ast_expr *e, uint32_t dst) {
  uint32_t lf = tfx_asm_label_new(&c->as), le = tfx_asm_label_new(&c->as);
  tfx_cc_jump(c, e, 0, lf);
  EMIT(LOADB, dst, 1, 0);
  EMIT(JMP, le, 0, 0);
  tfx_asm_label_here(&c->as, lf);
  EMIT(LOADB, dst, 0, 0);
  tfx_asm_label_here(&c->as, le);
}

/* Where an expression starts in the source (a binary or postfix node's own location is its
 * operator's). */
static tfx_rules_loc start_loc(const tfx_ast_expr *e) {
  tfx_rules_loc l = e->loc;
  for (int i = 0; e && i < 64; i++) {
    if (e->loc.file == l.file && e->loc.off < l.off) l = e->loc;
    if (e->kind == TFX_AST_E_BINARY) e = e->u.op.a;
    else if (e->kind == TFX_AST_E_COND) e = e->u.cond.c;
    else if (e->kind == TFX_AST_E_INDEX || e->kind == TFX_AST_E_PERMUTE) e = e->u.index.base;
    else if (e->kind == TFX_AST_E_SLICE) e = e->u.slice.base;
    else if (e->kind == TFX_AST_E_PROP) e = e->u.prop.base;
    else break;
  }
  return l;
}

void tfx_cc_jump(tfx_cc *c, const tfx_ast_expr *e, int jump_if, uint32_t label) {
  if (!e || !depth_ok(c, e)) return;
  uint32_t mark = c->top;
  tfx_asm *as = &c->as;
  if (e->kind == TFX_AST_E_BOOL) {
    if ((e->u.b != 0) == (jump_if != 0)) EMIT(JMP, label, 0, 0);
  } else if (e->kind == TFX_AST_E_UNARY && e->u.op.op == TFX_AST_OP_NOT) {
    tfx_cc_jump(c, e->u.op.a, !jump_if, label);
  } else if (e->kind == TFX_AST_E_BINARY && (e->u.op.op == TFX_AST_OP_AND || e->u.op.op == TFX_AST_OP_OR)) {
    int is_and = e->u.op.op == TFX_AST_OP_AND;
    if (is_and != (jump_if != 0)) { /* and/false, or/true: either side decides */
      tfx_cc_jump(c, e->u.op.a, jump_if, label);
      tfx_cc_jump(c, e->u.op.b, jump_if, label);
    } else { /* and/true, or/false: the left side can skip the right */
      uint32_t skip = tfx_asm_label_new(as);
      tfx_cc_jump(c, e->u.op.a, !jump_if, skip);
      tfx_cc_jump(c, e->u.op.b, jump_if, label);
      tfx_asm_label_here(as, skip);
    }
  } else {
    tfx_cc_loc(c, start_loc(e)); /* each leaf of a condition: its own line (--trace, explain) */
    uint32_t r = tfx_cc_expr_any(c, e);
    tfx_cc_loc(c, start_loc(e)); /* the jump is the leaf's, not that of a condition inside it */
    if (is_bool(e)) {
      if (jump_if) EMIT(JT, r, label, 0);
      else EMIT(JF, r, label, 0);
    } else if (!jump_if) {
      EMIT(JNONE, r, label, 0);
      EMIT(JF, r, label, 0);
    } else {
      uint32_t skip = tfx_asm_label_new(as);
      EMIT(JNONE, r, skip, 0);
      EMIT(JT, r, label, 0);
      tfx_asm_label_here(as, skip);
    }
  }
  c->top = mark;
}

static void build_list(tfx_cc *c, const tfx_ast_expr *e, uint32_t dst) {
  uint32_t k = tfx_cc_const(c, e);
  if (k != TFX_PACK_NONE) {
    EMIT(LOADK, dst, k, 0);
    return;
  }
  uint32_t n = e->kind == TFX_AST_E_LIST ? e->u.list.n : 2 * e->u.dict.n;
  uint32_t base = tfx_cc_alloc(c, n, e->loc);
  uint32_t i = 0;
  if (e->kind == TFX_AST_E_LIST) {
    for (const tfx_ast_expr *x = e->u.list.items; x && i < n; x = x->next) tfx_cc_expr(c, x, base + i++);
  } else {
    const tfx_ast_expr *kx = e->u.dict.keys, *vx = e->u.dict.values;
    for (; kx && vx && i + 1 < n + 1; kx = kx->next, vx = vx->next) {
      tfx_cc_expr(c, kx, base + i++);
      tfx_cc_expr(c, vx, base + i++);
    }
  }
  EMIT(NEWLIST, dst, base, n);
}

static int prop_id(const char *name) {
  for (int i = 0; i < TFX_PR__COUNT; i++)
    if (!strcmp(tfx_vm_props[i].name, name)) return i;
  return -1;
}

static int builtin_id(const char *name) {
  for (int i = 0; i < TFX_BI__COUNT; i++)
    if (!strcmp(tfx_vm_builtins[i].name, name)) return i;
  return -1;
}

/* The builtin a bare name of .opmap files calls (`n_inputs`, `op`: SOURCE NAME), or -1. */
static int opmap_name_id(const char *name) {
  int id = builtin_id(name);
  return id >= 0 && tfx_vm_builtins[id].source == TFX_BI_SRC_NAME ? id : -1;
}

/* `in N`: in format_of / dtype_of arguments the port number N (as_port), elsewhere the
 * producer node of data input N. */
static void input_value(tfx_cc *c, const tfx_ast_expr *e, uint32_t dst, int as_port) {
  if (c->kind != TFX_AST_OPMAP) {
    tfx_cc_error(c, e->loc, "'in N' names an input of the TF node; it exists only in .opmap files");
    EMIT(LOADNONE, dst, 0, 0);
    return;
  }
  if (as_port) {
    tfx_cc_load_int(c, dst, e->u.i);
    return;
  }
  /* the producer node of data input N: r0.inputs[N] */
  uint32_t i = tfx_cc_alloc(c, 1, e->loc);
  EMIT(PROP, dst, 0, TFX_PR_inputs);
  tfx_cc_load_int(c, i, e->u.i);
  EMIT(INDEX, dst, dst, i);
}

static void call_expr(tfx_cc *c, const tfx_ast_expr *e, uint32_t dst) {
  const char *fn = e->u.call.name;
  int id = builtin_id(fn);
  uint32_t n = e->u.call.nargs;
  if (id < 0 || n < tfx_vm_builtins[id].min_args || n > tfx_vm_builtins[id].max_args) {
    tfx_cc_error(c, e->u.call.name_loc, id < 0 ? "unknown function '%s'" : "wrong number of arguments to '%s'", fn);
    EMIT(LOADNONE, dst, 0, 0);
    return;
  }
  if (id == TFX_BI_len) {
    uint32_t r = expr_into(c, e->u.call.args, dst);
    EMIT(LEN, dst, r, 0);
    return;
  }
  int port_args = id == TFX_BI_format_of || id == TFX_BI_dtype_of;
  uint32_t base = n ? tfx_cc_alloc(c, n, e->loc) : dst;
  uint32_t i = 0;
  for (const tfx_ast_expr *a = e->u.call.args; a && i < n; a = a->next, i++) {
    if (id == TFX_BI_scopes) { /* scopes(SUBTYPE): the sub_type's name */
      if (a->kind == TFX_AST_E_IDENT) tfx_cc_load_str(c, base + i, a->u.name);
      else if (a->kind == TFX_AST_E_STRING) EMIT(LOADK, base + i, tfx_asm_const_strn(&c->as, a->u.str.s, a->u.str.len), 0);
      else tfx_cc_error(c, a->loc, "'scopes' takes a sub_type name");
    } else if (port_args && a->kind == TFX_AST_E_INPUT) {
      input_value(c, a, base + i, 1);
    } else {
      tfx_cc_expr(c, a, base + i);
    }
  }
  EMIT4(CALL, dst, id, base, n);
}

static void prop_expr(tfx_cc *c, const tfx_ast_expr *e, uint32_t dst) {
  const char *name = e->u.prop.name;
  const tfx_ast_expr *base = e->u.prop.base;
  if (prop_is(base, "attr")) { /* n.attr.NAME */
    uint32_t r = expr_into(c, base->u.prop.base, dst);
    EMIT(ATTR, dst, r, tfx_asm_const_str(&c->as, name));
    return;
  }
  int id = prop_id(name);
  if (id < 0) {
    if (!strcmp(name, "attr")) tfx_cc_error(c, e->u.prop.name_loc, "'.attr' needs an attribute name ('n.attr.NAME')");
    else tfx_cc_error(c, e->u.prop.name_loc, "unknown property '%s'", name);
    EMIT(LOADNONE, dst, 0, 0);
    return;
  }
  uint32_t r = expr_into(c, base, dst);
  EMIT(PROP, dst, r, id);
}

static void quant_expr(tfx_cc *c, const tfx_ast_expr *e, uint32_t dst) {
  tfx_asm *as = &c->as;
  uint32_t list = tfx_cc_expr_any(c, e->u.quant.list);
  uint32_t it = tfx_cc_alloc(c, 2, e->loc), v = tfx_cc_alloc(c, 1, e->loc), one = 0;
  uint32_t vmark = c->n_vars;
  if (tfx_cc_push_var(c, e->u.quant.var, v, elem_kind(c, e->u.quant.list))) return;
  tfx_ast_quant_kind q = e->u.quant.q;
  switch (q) {
    case TFX_AST_Q_ANY: EMIT(LOADB, dst, 0, 0); break;
    case TFX_AST_Q_ALL: EMIT(LOADB, dst, 1, 0); break;
    case TFX_AST_Q_COUNT:
      one = tfx_cc_alloc(c, 1, e->loc);
      EMIT(LOADI, dst, 0, 0);
      EMIT(LOADI, one, 1, 0);
      break;
    case TFX_AST_Q_FIRST: EMIT(LOADNONE, dst, 0, 0); break;
  }
  uint32_t loop = tfx_asm_label_new(as), done = tfx_asm_label_new(as);
  EMIT(ITER, it, list, 0);
  tfx_asm_label_here(as, loop);
  EMIT(NEXT, it, v, done);
  /* all: a false (or none) condition decides; the others: a true one */
  tfx_cc_jump(c, e->u.quant.cond, q == TFX_AST_Q_ALL, loop);
  switch (q) { /* any/all/first: decided, fall out of the loop */
    case TFX_AST_Q_ANY: EMIT(LOADB, dst, 1, 0); break;
    case TFX_AST_Q_ALL: EMIT(LOADB, dst, 0, 0); break;
    case TFX_AST_Q_COUNT: EMIT(ADD, dst, dst, one); EMIT(JMP, loop, 0, 0); break;
    case TFX_AST_Q_FIRST: EMIT(MOVE, dst, v, 0); break;
  }
  tfx_asm_label_here(as, done);
  c->n_vars = vmark;
}

static void ident_expr(tfx_cc *c, const tfx_ast_expr *e, uint32_t dst) {
  const tfx_cvar *v = tfx_cc_find_var(c, e->u.name);
  if (v) {
    if (v->reg != dst) EMIT(MOVE, dst, v->reg, 0);
  } else if (c->kind == TFX_AST_OPMAP) {
    int id = opmap_name_id(e->u.name); /* n_inputs, op */
    if (id >= 0) EMIT4(CALL, dst, (uint32_t)id, dst, 0);
    else EMIT(ATTR, dst, 0, tfx_asm_const_str(&c->as, e->u.name)); /* an attribute of the TF node (r0) */
  } else {
    tfx_cc_error(c, e->loc, "unknown name '%s'", e->u.name);
    EMIT(LOADNONE, dst, 0, 0);
  }
}

static const tfx_opcode binop_code[] = {
    [TFX_AST_OP_EQ] = TFX_OP_EQ, [TFX_AST_OP_NE] = TFX_OP_NE, [TFX_AST_OP_LT] = TFX_OP_LT,
    [TFX_AST_OP_LE] = TFX_OP_LE, [TFX_AST_OP_GT] = TFX_OP_GT, [TFX_AST_OP_GE] = TFX_OP_GE,
    [TFX_AST_OP_CONTAINS] = TFX_OP_CONTAINS, [TFX_AST_OP_STARTS_WITH] = TFX_OP_STARTS,
    [TFX_AST_OP_ENDS_WITH] = TFX_OP_ENDS, [TFX_AST_OP_ADD] = TFX_OP_ADD, [TFX_AST_OP_SUB] = TFX_OP_SUB,
    [TFX_AST_OP_MUL] = TFX_OP_MUL, [TFX_AST_OP_DIV] = TFX_OP_DIV, [TFX_AST_OP_MOD] = TFX_OP_MOD};

void tfx_cc_expr(tfx_cc *c, const tfx_ast_expr *e, uint32_t dst) {
  if (!e) {
    EMIT(LOADNONE, dst, 0, 0);
    return;
  }
  if (!depth_ok(c, e)) return;
  uint32_t mark = c->top;
  tfx_asm *as = &c->as;
  switch (e->kind) {
    case TFX_AST_E_INT: tfx_cc_load_int(c, dst, e->u.i); break;
    case TFX_AST_E_BOOL: EMIT(LOADB, dst, e->u.b != 0, 0); break;
    case TFX_AST_E_NONE: EMIT(LOADNONE, dst, 0, 0); break;
    case TFX_AST_E_FLOAT:
    case TFX_AST_E_STRING:
      EMIT(LOADK, dst, tfx_cc_const(c, e), 0);
      break;
    case TFX_AST_E_DTYPE:
      if (dtype_number(e->u.name) < 0) {
        tfx_cc_error(c, e->loc, "unknown data type '%s'", e->u.name);
        EMIT(LOADNONE, dst, 0, 0);
      } else {
        EMIT(LOADK, dst, tfx_cc_const(c, e), 0);
      }
      break;
    case TFX_AST_E_LIST:
    case TFX_AST_E_DICT: build_list(c, e, dst); break;
    case TFX_AST_E_IDENT: ident_expr(c, e, dst); break;
    case TFX_AST_E_INPUT: input_value(c, e, dst, 0); break;
    case TFX_AST_E_UNARY:
      if (e->u.op.op == TFX_AST_OP_NOT) {
        if (is_bool(e->u.op.a)) EMIT(NOT, dst, expr_into(c, e->u.op.a, dst), 0);
        else bool_value(c, e, dst);
      } else {
        EMIT(NEG, dst, expr_into(c, e->u.op.a, dst), 0);
      }
      break;
    case TFX_AST_E_BINARY: {
      tfx_ast_op op = e->u.op.op;
      if (op == TFX_AST_OP_AND || op == TFX_AST_OP_OR) {
        bool_value(c, e, dst);
      } else if (op == TFX_AST_OP_COALESCE) {
        uint32_t done = tfx_asm_label_new(as);
        tfx_cc_expr(c, e->u.op.a, dst);
        EMIT(JSOME, dst, done, 0);
        tfx_cc_expr(c, e->u.op.b, dst);
        tfx_asm_label_here(as, done);
      } else {
        /* dst holds the left operand while the right one is computed: dst is never a
         * variable, so the right side cannot read it */
        uint32_t a = expr_into(c, e->u.op.a, dst);
        uint32_t b = tfx_cc_expr_any(c, e->u.op.b);
        tfx_asm_emit(as, binop_code[op], dst, a, b);
      }
      break;
    }
    case TFX_AST_E_COND: {
      uint32_t lf = tfx_asm_label_new(as), done = tfx_asm_label_new(as);
      tfx_cc_jump(c, e->u.cond.c, 0, lf);
      tfx_cc_expr(c, e->u.cond.t, dst);
      EMIT(JMP, done, 0, 0);
      tfx_asm_label_here(as, lf);
      tfx_cc_expr(c, e->u.cond.f, dst);
      tfx_asm_label_here(as, done);
      break;
    }
    case TFX_AST_E_INDEX:
    case TFX_AST_E_PERMUTE: {
      uint32_t b = expr_into(c, e->u.index.base, dst);
      uint32_t i = tfx_cc_expr_any(c, e->u.index.index);
      if (e->kind == TFX_AST_E_INDEX) EMIT(INDEX, dst, b, i);
      else EMIT(PERM, dst, b, i);
      break;
    }
    case TFX_AST_E_SLICE: {
      uint32_t b = expr_into(c, e->u.slice.base, dst);
      uint32_t bounds = tfx_cc_alloc(c, 2, e->loc);
      tfx_cc_expr(c, e->u.slice.lo, bounds); /* NULL: none = open */
      tfx_cc_expr(c, e->u.slice.hi, bounds + 1);
      EMIT4(SLICE, dst, b, bounds, bounds + 1);
      break;
    }
    case TFX_AST_E_PROP: prop_expr(c, e, dst); break;
    case TFX_AST_E_CALL: call_expr(c, e, dst); break;
    case TFX_AST_E_QUANT: quant_expr(c, e, dst); break;
  }
  c->top = mark;
}
