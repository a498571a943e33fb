/* Dataflow rewrites: parsing and testing rule signatures (see dataflow_sig.h; the token syntax
 * is documented at flow_signature() in src/rules/compile_flow.c).
 * Stage: fusion. Input: a pack's signature strings (untrusted: every index is checked, any
 * malformed token makes the whole signature absent), a graph. Output: per root, 0 or 1.
 * The test mirrors the program (compile_flow.c): matches in order, a commutative match's
 * operands in both orders (depth-first, so at most 2^K leaves for K commutative matches, as
 * in the program), captures bound at their first use, then the conjuncts in order with
 * three-valued logic: false ends this order, "cannot tell" (an attribute kind the screen does
 * not read) accepts the root, true goes on. */
#include "fusion/dataflow_sig.h"

#include <stdlib.h>
#include <string.h>

#include "tfxc/tfxc.h"
#include "vm/value.h"

#define SIG_MAX_ITEMS 4096u /* matches, captures, types per match, arguments, conditions */
#define SIG_MAX_DEPTH 32u   /* condition nesting (the compiler writes at most 16) */

enum { A_SKIP, A_EDGE, A_CAP };
typedef struct sarg {
  uint8_t kind;
  uint32_t idx;   /* match (edge) or capture */
  int64_t port;   /* edge: the output the argument reads */
} sarg;

typedef struct smatch {
  const char **types;
  uint32_t *lens;
  uint32_t *ids;  /* tfx_flow_sig_link: op ids (TFX_HASH_NONE: not in the module) */
  uint32_t n_types, n_args;
  int comm;
  sarg *args;
} smatch;

enum { C_AND, C_OR, C_NOT, C_ATTR, C_OP };
typedef struct scond {
  uint8_t op;
  uint8_t cap;      /* ATTR/OP: the reference is a capture (else a match) */
  uint32_t ref;
  const char *name; /* ATTR */
  uint32_t k;       /* ATTR/OP: the literal's constant */
  uint32_t a, b;    /* AND/OR/NOT: children (indices into conds) */
} scond;

struct tfx_flow_sig {
  uint32_t nm, nc;
  smatch *m;
  scond *c;
  uint32_t n_c;
  uint32_t *conj;   /* roots of the conjuncts, in order */
  uint32_t n_conj;
};

/* ---------------------------------------------------------------- parsing */

typedef struct lexer {
  const char *s, *end;
  const char *tok;
  uint32_t len;
} lexer;

static int next(lexer *l) {
  while (l->s < l->end && *l->s == ' ') l->s++;
  if (l->s >= l->end) return 0;
  l->tok = l->s;
  while (l->s < l->end && *l->s != ' ') l->s++;
  l->len = (uint32_t)(l->s - l->tok);
  return 1;
}

static int is(const lexer *l, const char *w) { return l->len == strlen(w) && !memcmp(l->tok, w, l->len); }

/* A decimal number < lim from the token after skipping `skip` leading bytes. */
static int num(lexer *l, uint32_t skip, uint64_t lim, uint64_t *out) {
  if (l->len <= skip || l->len - skip > 19) return 0;
  uint64_t v = 0;
  for (uint32_t i = skip; i < l->len; i++) {
    if (l->tok[i] < '0' || l->tok[i] > '9') return 0;
    v = v * 10 + (uint64_t)(l->tok[i] - '0');
  }
  if (v >= lim) return 0;
  *out = v;
  return 1;
}

static int next_num(lexer *l, uint64_t lim, uint64_t *out) { return next(l) && num(l, 0, lim, out); }

static int scalar_const(const tfx_pack *p, uint64_t k) {
  if (k >= p->n_consts) return 0;
  int t = p->consts[k].tag;
  return t == TFX_V_INT || t == TFX_V_FLOAT || t == TFX_V_BOOL || t == TFX_V_STR || t == TFX_V_DTYPE;
}

typedef struct pstate {
  lexer l;
  const tfx_pack *p;
  tfx_arena *A;
  tfx_flow_sig *s;
  uint32_t cap_c;
} pstate;

static uint32_t new_cond(pstate *ps) {
  tfx_flow_sig *s = ps->s;
  if (s->n_c >= SIG_MAX_ITEMS) return TFX_NO_ID;
  if (s->n_c == ps->cap_c) {
    uint32_t cap = ps->cap_c ? ps->cap_c * 2 : 8;
    scond *v = tfx_arena_calloc(ps->A, cap, sizeof *v);
    if (!v) return TFX_NO_ID;
    if (s->n_c) memcpy(v, s->c, s->n_c * sizeof *v);
    s->c = v;
    ps->cap_c = cap;
  }
  return s->n_c++;
}

/* REF token: mI or cK. */
static int ref(pstate *ps, scond *c) {
  lexer *l = &ps->l;
  uint64_t v;
  if (!next(l) || l->len < 2 || (l->tok[0] != 'm' && l->tok[0] != 'c')) return 0;
  c->cap = l->tok[0] == 'c';
  if (!num(l, 1, c->cap ? ps->s->nc : ps->s->nm, &v)) return 0;
  c->ref = (uint32_t)v;
  return 1;
}

static uint32_t cond(pstate *ps, unsigned depth) {
  lexer *l = &ps->l;
  if (depth > SIG_MAX_DEPTH || !next(l)) return TFX_NO_ID;
  uint32_t i = new_cond(ps);
  if (i == TFX_NO_ID) return i;
  if (is(l, "&") || is(l, "|")) {
    uint8_t op = is(l, "&") ? C_AND : C_OR;
    uint32_t a = cond(ps, depth + 1);
    uint32_t b = a == TFX_NO_ID ? TFX_NO_ID : cond(ps, depth + 1);
    if (b == TFX_NO_ID) return TFX_NO_ID;
    ps->s->c[i].op = op;
    ps->s->c[i].a = a;
    ps->s->c[i].b = b;
    return i;
  }
  if (is(l, "!")) {
    uint32_t a = cond(ps, depth + 1);
    if (a == TFX_NO_ID) return TFX_NO_ID;
    ps->s->c[i].op = C_NOT;
    ps->s->c[i].a = a;
    return i;
  }
  if (!is(l, "=") || !next(l)) return TFX_NO_ID;
  scond c;
  memset(&c, 0, sizeof c);
  if (is(l, "a")) {
    c.op = C_ATTR;
    if (!ref(ps, &c) || !next(l)) return TFX_NO_ID;
    char *nm = tfx_arena_strndup(ps->A, l->tok, l->len);
    if (!nm) return TFX_NO_ID;
    c.name = nm;
  } else if (is(l, "o")) {
    c.op = C_OP;
    if (!ref(ps, &c)) return TFX_NO_ID;
  } else {
    return TFX_NO_ID;
  }
  uint64_t k;
  if (!next_num(l, UINT32_MAX, &k) || !scalar_const(ps->p, k)) return TFX_NO_ID;
  c.k = (uint32_t)k;
  ps->s->c[i] = c;
  return i;
}

tfx_flow_sig *tfx_flow_sig_parse(const tfx_pack *p, const char *str, uint32_t n, tfx_arena *A) {
  pstate ps;
  memset(&ps, 0, sizeof ps);
  ps.l.s = str;
  ps.l.end = str + n;
  ps.p = p;
  ps.A = A;
  lexer *l = &ps.l;
  uint64_t v, w;
  if (!next(l) || !is(l, "#sig")) return NULL;
  tfx_flow_sig *s = tfx_arena_calloc(A, 1, sizeof *s);
  if (!s) return NULL;
  ps.s = s;
  if (!next_num(l, SIG_MAX_ITEMS, &v) || !v || !next_num(l, SIG_MAX_ITEMS, &w)) return NULL;
  s->nm = (uint32_t)v;
  s->nc = (uint32_t)w;
  if (!(s->m = tfx_arena_calloc(A, s->nm, sizeof *s->m))) return NULL;
  for (uint32_t i = 0; i < s->nm; i++) {
    smatch *m = &s->m[i];
    if (!next(l) || !is(l, "m") || !next_num(l, SIG_MAX_ITEMS, &v) || !v) return NULL;
    m->n_types = (uint32_t)v;
    m->types = tfx_arena_calloc(A, m->n_types, sizeof *m->types);
    m->lens = tfx_arena_calloc(A, m->n_types, sizeof *m->lens);
    m->ids = tfx_arena_calloc(A, m->n_types, sizeof *m->ids);
    if (!m->types || !m->lens || !m->ids) return NULL;
    for (uint32_t t = 0; t < m->n_types; t++) {
      if (!next(l)) return NULL;
      if (!(m->types[t] = tfx_arena_strndup(A, l->tok, l->len))) return NULL;
      m->lens[t] = l->len;
      m->ids[t] = TFX_HASH_NONE;
    }
    if (!next_num(l, SIG_MAX_ITEMS, &v) || !next_num(l, 2, &w)) return NULL;
    m->n_args = (uint32_t)v;
    m->comm = w == 1;
    if (m->comm && m->n_args != 2) return NULL;
    if (!(m->args = tfx_arena_calloc(A, m->n_args ? m->n_args : 1, sizeof *m->args))) return NULL;
    for (uint32_t a = 0; a < m->n_args; a++) {
      sarg *x = &m->args[a];
      if (!next(l)) return NULL;
      if (is(l, "_")) {
        x->kind = A_SKIP;
      } else if (is(l, "e")) {
        x->kind = A_EDGE;
        if (!next_num(l, s->nm, &v) || !next_num(l, (uint64_t)INT32_MAX + 1, &w)) return NULL;
        x->idx = (uint32_t)v;
        x->port = (int64_t)w;
      } else if (is(l, "c")) {
        x->kind = A_CAP;
        if (!next_num(l, s->nc, &v)) return NULL;
        x->idx = (uint32_t)v;
      } else {
        return NULL;
      }
    }
  }
  if (!next(l) || !is(l, "w") || !next_num(l, SIG_MAX_ITEMS, &v)) return NULL;
  s->n_conj = (uint32_t)v;
  if (!(s->conj = tfx_arena_calloc(A, s->n_conj ? s->n_conj : 1, sizeof *s->conj))) return NULL;
  for (uint32_t i = 0; i < s->n_conj; i++)
    if ((s->conj[i] = cond(&ps, 0)) == TFX_NO_ID) return NULL;
  if (next(l)) return NULL; /* trailing tokens */
  return s;
}

void tfx_flow_sig_link(tfx_flow_sig *s, const tfx_intern *ops) {
  for (uint32_t i = 0; i < s->nm; i++)
    for (uint32_t t = 0; t < s->m[i].n_types; t++)
      s->m[i].ids[t] = tfx_intern_find(ops, s->m[i].types[t], s->m[i].lens[t]);
}

int tfx_flow_sig_scratch(tfx_flow_sig_ws *ws, const tfx_flow_sig *s) {
  uint32_t need = (s->nm > s->nc ? s->nm : s->nc) + 1;
  if (need <= ws->n) return 0;
  uint32_t *b = tfx_realloc(ws->bind, need * sizeof *b);
  if (!b) return -1;
  ws->bind = b;
  uint32_t *c = tfx_realloc(ws->cnode, need * sizeof *c);
  if (!c) return -1;
  ws->cnode = c;
  uint32_t *d = tfx_realloc(ws->cslot, need * sizeof *d);
  if (!d) return -1;
  ws->cslot = d;
  uint32_t *st = tfx_realloc(ws->stack, 2 * (size_t)need * sizeof *st);
  if (!st) return -1;
  ws->stack = st;
  ws->n = need;
  return 0;
}

void tfx_flow_sig_ws_free(tfx_flow_sig_ws *ws) {
  free(ws->bind);
  free(ws->cnode);
  free(ws->cslot);
  free(ws->stack);
  memset(ws, 0, sizeof *ws);
}

/* ---------------------------------------------------------------- testing */

enum { T_FALSE = 0, T_TRUE = 1, T_MAYBE = 2 };

typedef struct tstate {
  const tfx_flow_sig *s;
  const tfx_pack *p;
  const tfx_graph *g;
  tfx_flow_sig_ws *ws;
} tstate;

/* The node a reference names, or TFX_NO_ID (none: a capture of a function argument). */
static uint32_t ref_node(const tstate *t, const scond *c) {
  if (!c->cap) return t->ws->bind[c->ref];
  uint32_t n = t->ws->cnode[c->ref];
  if (n == TFX_NO_ID) return TFX_NO_ID;
  const tfx_input *in = &t->g->nodes[n].in[t->ws->cslot[c->ref]];
  return in->kind == TFX_IN_NODE && in->src < t->g->n_nodes ? in->src : TFX_NO_ID;
}

/* The value of attribute name of node n as the VM reads it; 0 when the screen cannot tell
 * (a kind it does not convert). */
static int attr_of(const tfx_graph *g, uint32_t n, const char *name, tfx_value *out) {
  *out = tfx_v_none();
  if (n == TFX_NO_ID) return 1;
  const Tensorflow__NodeDef *def = g->nodes[n].def;
  const Tensorflow__AttrValue *av = NULL;
  for (size_t k = 0; def && k < def->n_attr; k++)
    if (def->attr[k]->key && !strcmp(def->attr[k]->key, name)) {
      av = def->attr[k]->value;
      break;
    }
  if (!av) return 1;
  switch (av->value_case) {
    case TENSORFLOW__ATTR_VALUE__VALUE_S: *out = tfx_v_str((const char *)av->s.data, (uint32_t)av->s.len); return av->s.len < UINT32_MAX;
    case TENSORFLOW__ATTR_VALUE__VALUE_I: *out = tfx_v_int(av->i); return 1;
    case TENSORFLOW__ATTR_VALUE__VALUE_F: *out = tfx_v_float(av->f); return 1;
    case TENSORFLOW__ATTR_VALUE__VALUE_B: *out = tfx_v_bool(av->b); return 1;
    case TENSORFLOW__ATTR_VALUE__VALUE_TYPE: *out = tfx_v_dtype(av->type); return 1;
    case TENSORFLOW__ATTR_VALUE__VALUE__NOT_SET: return 1; /* the VM reads none */
    default: return 0;
  }
}

static int eval(const tstate *t, uint32_t i, unsigned depth) {
  const scond *c = &t->s->c[i];
  if (depth > SIG_MAX_DEPTH) return T_MAYBE;
  switch (c->op) {
    case C_AND: {
      int a = eval(t, c->a, depth + 1);
      return a == T_TRUE ? eval(t, c->b, depth + 1) : a;
    }
    case C_OR: {
      int a = eval(t, c->a, depth + 1);
      return a == T_FALSE ? eval(t, c->b, depth + 1) : a;
    }
    case C_NOT: {
      int a = eval(t, c->a, depth + 1);
      return a == T_MAYBE ? a : !a;
    }
    case C_ATTR: case C_OP: {
      uint32_t n = ref_node(t, c);
      tfx_value v;
      if (c->op == C_OP) {
        const char *op = n == TFX_NO_ID ? NULL : t->g->nodes[n].op ? t->g->nodes[n].op : "";
        v = op ? tfx_v_str(op, (uint32_t)strlen(op)) : tfx_v_none();
      } else if (!attr_of(t->g, n, c->name, &v)) {
        return T_MAYBE;
      }
      return tfx_v_equal(&v, &t->p->consts[c->k]) ? T_TRUE : T_FALSE;
    }
    default: return T_MAYBE;
  }
}

/* The conjuncts on the complete binding: 0 when one is false before any is undecided. */
static int conds_ok(const tstate *t) {
  for (uint32_t i = 0; i < t->s->n_conj; i++) {
    int r = eval(t, t->s->conj[i], 0);
    if (r == T_FALSE) return 0;
    if (r == T_MAYBE) return 1;
  }
  return 1;
}

static int match_from(const tstate *t, uint32_t i);

/* The arguments of match i with operand order swap (0 or 1), then the later matches. */
static int args_then(const tstate *t, uint32_t i, uint32_t swap) {
  const smatch *m = &t->s->m[i];
  tfx_flow_sig_ws *ws = t->ws;
  const tfx_graph *g = t->g;
  uint32_t n = ws->bind[i];
  const tfx_node *nd = &g->nodes[n];
  uint32_t mark = ws->sp; /* bindings made here are undone on return */
  int ok = 1;
  for (uint32_t a = 0; a < m->n_args && ok; a++) {
    const sarg *x = &m->args[a];
    uint32_t slot = m->comm ? (a == 0 ? swap : 1 - swap) : a;
    const tfx_input *in = &nd->in[slot];
    if (x->kind == A_EDGE) {
      uint32_t p = in->kind == TFX_IN_NODE && in->src < g->n_nodes ? in->src : TFX_NO_ID;
      if (ws->bind[x->idx] == TFX_NO_ID) {
        if (p == TFX_NO_ID) ok = 0;
        else ws->bind[x->idx] = p, ws->stack[ws->sp++] = x->idx;
      } else if (ws->bind[x->idx] != p) {
        ok = 0;
      }
      if (ok && (in->kind != TFX_IN_NODE || in->port != x->port)) ok = 0;
    } else if (x->kind == A_CAP) {
      if (ws->cnode[x->idx] == TFX_NO_ID) {
        ws->cnode[x->idx] = n;
        ws->cslot[x->idx] = slot;
        ws->stack[ws->sp++] = t->s->nm + x->idx;
      } else if (!g->func) { /* the same value: main graph node outputs compare by (node, port) */
        const tfx_input *o = &g->nodes[ws->cnode[x->idx]].in[ws->cslot[x->idx]];
        if (o->kind == TFX_IN_NODE && in->kind == TFX_IN_NODE && o->src < g->n_nodes && in->src < g->n_nodes &&
            (o->src != in->src || o->port != in->port))
          ok = 0;
      }
    }
  }
  if (ok) ok = match_from(t, i + 1);
  while (ws->sp > mark) {
    uint32_t k = ws->stack[--ws->sp];
    if (k < t->s->nm) ws->bind[k] = TFX_NO_ID;
    else ws->cnode[k - t->s->nm] = TFX_NO_ID;
  }
  return ok;
}

static int match_from(const tstate *t, uint32_t i) {
  if (i == t->s->nm) return conds_ok(t);
  const smatch *m = &t->s->m[i];
  uint32_t n = t->ws->bind[i];
  if (n == TFX_NO_ID || n >= t->g->n_nodes) return 1; /* not bound by an earlier match: cannot tell */
  const tfx_node *nd = &t->g->nodes[n];
  int type_ok = 0;
  for (uint32_t k = 0; k < m->n_types && !type_ok; k++) type_ok = m->ids[k] == nd->op_id;
  if (!type_ok || nd->n_data_in != m->n_args) return 0;
  if (args_then(t, i, 0)) return 1;
  return m->comm && args_then(t, i, 1);
}

int tfx_flow_sig_test(const tfx_flow_sig *s, const tfx_pack *p, const tfx_graph *g, uint32_t root,
                      tfx_flow_sig_ws *ws) {
  if (ws->n < s->nm + 1 || ws->n < s->nc + 1 || root >= g->n_nodes) return 1;
  for (uint32_t i = 0; i < s->nm; i++) ws->bind[i] = TFX_NO_ID;
  for (uint32_t i = 0; i < s->nc; i++) ws->cnode[i] = TFX_NO_ID;
  ws->bind[0] = root;
  ws->sp = 0;
  tstate t = {s, p, g, ws};
  return match_from(&t, 0);
}
