/* The CANN prototype table as the rule checker's prototype hook (rules/load.h).
 * Stage: passes (adapter between the cann op table and rules/sema; rules_protos.h). Input: a
 * tfx_cann_table, and
 * optionally a list of CANN types known to exist without a prototype (the stdlib's
 * <stdlib>/ops/cann-ops-noir.tsv: GE-internal types built without an IR, and CANN ops whose
 * prototype header was not extracted). Output: one tfx_rules_op_proto per op (port names and
 * kinds, arrays in the view's arena) and a lookup by name through the table's hash map; a
 * known type without a prototype gets an empty prototype (no ports), so an `auto` map to it
 * is accepted without -Wunknown-op while a port statement naming one of its ports is an
 * error (there is no IR to check it against). For a merged table (user prototypes over the
 * stdlib's, tfx_cann_protos_merged) a listed type the table has a prototype for is skipped: the
 * user's prototype gives it ports. Only rules/load.h's types are used (no rules code is
 * called). The op-table internals it reads (TSV lines, embedded files) are cann/cann_int.h's. */
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "cann/cann.h"
#include "cann/cann_int.h"
#include "passes/rules_protos.h"
#include "rules/load.h"
#include "util/status.h"

struct tfx_cann_protos {
  tfx_arena arena;
  const tfx_cann_table *t;
  tfx_rules_op_proto *ops; /* parallel to t->ops */
  tfx_rules_protos hook;   /* lookup = cann_lookup, ctx = this view */
  tfx_rules_op_proto *known; uint32_t n_known, cap_known; /* types without a prototype */
  tfx_hmap by_known;       /* name -> index into known */
};

static const tfx_rules_op_proto *cann_lookup(void *ctx, const char *type) {
  const tfx_cann_protos *p = ctx;
  const tfx_cann_op *op = tfx_cann_find(p->t, type);
  if (op) return &p->ops[op - p->t->ops];
  uint32_t k = type ? tfx_hmap_get(&p->by_known, type, strlen(type)) : TFX_HASH_NONE;
  return k == TFX_HASH_NONE ? NULL : &p->known[k];
}

static tfx_rules_port_kind port_kind(uint8_t k) {
  return k == TFX_CANN_OPT ? TFX_RULES_PORT_OPTIONAL
         : k == TFX_CANN_DYN ? TFX_RULES_PORT_DYNAMIC : TFX_RULES_PORT_REQUIRED;
}

static const char *const attr_type_names[TFX_CANN_A__COUNT] = {
    "Int", "Float", "Bool", "String", "Type", "Tensor", "ListInt", "ListFloat", "ListBool",
    "ListString", "ListType", "ListListInt", "GRAPH", "DYNAMIC_GRAPH"};

static tfx_rules_attr_kind attr_kind(uint8_t t) {
  switch (t) {
    case TFX_CANN_A_INT: case TFX_CANN_A_FLOAT: return TFX_RULES_A_NUMBER;
    case TFX_CANN_A_BOOL: return TFX_RULES_A_BOOL;
    case TFX_CANN_A_STRING: return TFX_RULES_A_STRING;
    case TFX_CANN_A_TYPE: return TFX_RULES_A_TYPE;
    case TFX_CANN_A_LIST_INT: case TFX_CANN_A_LIST_FLOAT: case TFX_CANN_A_LIST_BOOL:
    case TFX_CANN_A_LIST_STRING: case TFX_CANN_A_LIST_TYPE: case TFX_CANN_A_LIST_LIST_INT:
      return TFX_RULES_A_LIST;
    default: return TFX_RULES_A_OTHER;
  }
}

static tfx_rules_proto_attr *attrs(tfx_arena *a, const tfx_cann_attr *src, uint32_t n, int *oom) {
  if (!n) return NULL;
  tfx_rules_proto_attr *out = tfx_arena_calloc(a, n, sizeof *out);
  if (!out) {
    *oom = 1;
    return NULL;
  }
  for (uint32_t i = 0; i < n; i++)
    out[i] = (tfx_rules_proto_attr){src[i].name, src[i].type < TFX_CANN_A__COUNT ? attr_type_names[src[i].type] : "?",
                                    attr_kind(src[i].type)};
  return out;
}

static tfx_rules_proto_port *ports(tfx_arena *a, const tfx_cann_port *src, uint32_t n, int *oom) {
  if (!n) return NULL;
  tfx_rules_proto_port *out = tfx_arena_calloc(a, n, sizeof *out);
  if (!out) {
    *oom = 1;
    return NULL;
  }
  for (uint32_t i = 0; i < n; i++) out[i] = (tfx_rules_proto_port){src[i].name, port_kind(src[i].kind)};
  return out;
}

tfx_cann_protos *tfx_cann_protos_new(const tfx_cann_table *t) {
  tfx_cann_protos *p = tfx_calloc(1, sizeof *p);
  if (!p) return NULL;
  tfx_arena_init(&p->arena);
  tfx_hmap_init(&p->by_known);
  p->t = t;
  p->hook.lookup = cann_lookup;
  p->hook.ctx = p;
  int oom = 0;
  if (t->n_ops && !(p->ops = tfx_arena_calloc(&p->arena, t->n_ops, sizeof *p->ops))) oom = 1;
  for (uint32_t i = 0; !oom && i < t->n_ops; i++) {
    const tfx_cann_op *op = &t->ops[i];
    tfx_rules_op_proto *r = &p->ops[i];
    r->type = op->name;
    r->inputs = ports(&p->arena, op->in, op->n_in, &oom);
    r->n_inputs = op->n_in;
    r->outputs = ports(&p->arena, op->out, op->n_out, &oom);
    r->n_outputs = op->n_out;
    r->attrs = attrs(&p->arena, op->attrs, op->n_attrs, &oom);
    r->n_attrs = op->n_attrs;
  }
  if (oom) {
    tfx_cann_protos_free(p);
    return NULL;
  }
  return p;
}

void tfx_cann_protos_free(tfx_cann_protos *p) {
  if (!p) return;
  tfx_hmap_free(&p->by_known);
  free(p->known);
  tfx_arena_free(&p->arena);
  free(p);
}

/* skip_defined: a listed name t has a prototype for is skipped silently (a merged table whose
 * user prototype gives the type its ports) instead of being an error. */
static int add_known(tfx_cann_protos *p, const char *text, size_t len, const char *fname,
                     int skip_defined, tfx_diag *d) {
  tfx_tsv r;
  tfx_tsv_init(&r, text, text ? len : 0, fname, d);
  tfx_span line, col[2];
  while (tfx_tsv_next(&r, &line)) {
    if (tfx_tsv_columns(&r, line, col, 2) != 0) continue;
    if (!tfx_span_is_ident(col[0])) {
      tfx_tsv_error(&r, col[0].s, "op name '%.*s' is not an identifier", (int)col[0].n, col[0].s);
      continue;
    }
    if (col[1].n == 0) {
      tfx_tsv_error(&r, col[1].s, "'%.*s' needs a reason in the second column", (int)col[0].n, col[0].s);
      continue;
    }
    char *name = tfx_arena_strndup(&p->arena, col[0].s, col[0].n);
    if (!name) goto oom;
    if (tfx_cann_find(p->t, name)) {
      if (skip_defined) continue;
      tfx_tsv_error(&r, col[0].s, "'%s' has a prototype; remove it from this list", name);
      continue;
    }
    if (tfx_hmap_get(&p->by_known, name, col[0].n) != TFX_HASH_NONE) {
      tfx_tsv_error(&r, col[0].s, "'%s' is listed twice", name);
      continue;
    }
    if (p->n_known == p->cap_known) {
      uint32_t cap = p->cap_known ? p->cap_known * 2 : 16;
      tfx_rules_op_proto *v = tfx_realloc(p->known, cap * sizeof *v);
      if (!v) goto oom;
      p->known = v;
      p->cap_known = cap;
    }
    if (tfx_hmap_put(&p->by_known, name, col[0].n, p->n_known, NULL) < 0) goto oom;
    p->known[p->n_known++] = (tfx_rules_op_proto){name, NULL, 0, NULL, 0, NULL, 0};
  }
  return r.errors ? TFX_E_INPUT : 0;
oom:
  tfx_tsv_oom(&r);
  return TFX_E_NOMEM;
}

tfx_status tfx_cann_protos_add_known(tfx_cann_protos *p, const char *text, size_t len,
                                     const char *fname, tfx_diag *d) {
  return add_known(p, text, len, fname, 0, d);
}

tfx_cann_protos *tfx_cann_protos_merged(const tfx_cann_table *t, tfx_diag *d) {
  tfx_cann_protos *p = tfx_cann_protos_new(t);
  if (!p) {
    tfx_error(d, NULL, 0, 0, "out of memory building the CANN prototype table");
    return NULL;
  }
  const tfx_embedded_file *f = tfx_cann_embedded("<stdlib>/ops/cann-ops-noir.tsv", d);
  if (!f || add_known(p, f->data, (size_t)f->len, f->name, 1, d) != 0) {
    tfx_cann_protos_free(p);
    return NULL;
  }
  return p;
}

const struct tfx_rules_protos *tfx_cann_protos_hook(const tfx_cann_protos *p) { return p ? &p->hook : NULL; }

/* Built once per process and immutable afterwards (shared by sessions in several threads);
 * a failed build is retried by the next caller. */
static tfx_cann_protos *stdlib_protos_build(tfx_diag *d) {
  const tfx_cann_table *t = tfx_cann_stdlib(d);
  if (!t) return NULL;
  tfx_cann_protos *p = tfx_cann_protos_new(t);
  if (!p) {
    tfx_error(d, NULL, 0, 0, "out of memory building the CANN prototype table");
    return NULL;
  }
  const tfx_embedded_file *f = tfx_cann_embedded("<stdlib>/ops/cann-ops-noir.tsv", d);
  if (!f || tfx_cann_protos_add_known(p, f->data, (size_t)f->len, f->name, d) != 0) {
    tfx_cann_protos_free(p);
    return NULL;
  }
  return p;
}

const struct tfx_rules_protos *tfx_cann_stdlib_protos(tfx_diag *d) {
  static _Atomic(tfx_cann_protos *) shared;
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  tfx_cann_protos *p = atomic_load_explicit(&shared, memory_order_acquire);
  if (p) return &p->hook;
  pthread_mutex_lock(&lock);
  p = atomic_load_explicit(&shared, memory_order_relaxed);
  if (!p) {
    p = stdlib_protos_build(d);
    if (p) atomic_store_explicit(&shared, p, memory_order_release);
  }
  pthread_mutex_unlock(&lock);
  return p ? &p->hook : NULL;
}
