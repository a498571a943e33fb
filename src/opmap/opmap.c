/* The OP_MAPPING stage driver: candidate op maps per TF type, the choice per node (rule,
 * AUTO fallback, unsupported / passthrough), the hint for unsupported nodes, counts.
 * Stage: opmap (after fusion, before ge lowering). Input: the indexed module, the compiled
 * pack, the CANN prototype table. Output: tfx_opmap (see opmap.h for the contract).
 * Candidates: for every TF type the module uses, the map rules whose `from` lists it, ordered
 * by priority (highest first) then pack rule index (= registration order); built once per
 * run. Graphs are mapped in module order (main, then function bodies), nodes in NodeDef
 * order, so results and diagnostics are deterministic. A rule run-time error (reported by
 * the VM at the rule's source line) stops the run: TFX_E_FAIL. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opmap/opmap_int.h"
#include "util/status.h"
#include "util/progress.h"

/* ---------------------------------------------------------------- shared helpers */

int tfx_om_oom(om_run *r) {
  if (!r->oom) tfx_error(r->d, NULL, 0, 0, "out of memory (op mapping)");
  r->oom = 1;
  return -1;
}

const char *tfx_om_dup(om_run *r, const char *s, size_t n) {
  char *c = tfx_arena_strndup(r->A, s ? s : "", s ? n : 0);
  if (!c) tfx_om_oom(r);
  return c;
}

const char *tfx_om_name(om_run *r, const char *s, size_t n) {
  if (!s) s = "", n = 0;
  if (n >= UINT32_MAX) return tfx_om_dup(r, s, n);
  uint32_t i = tfx_hmap_get(&r->names, s, n);
  if (i != TFX_HASH_NONE) return r->name_v[i];
  const char *c = tfx_om_dup(r, s, n);
  if (!c || OM_MGROW(r, r->name_v, r->n_name_v, r->cap_name_v)) return NULL;
  uint32_t ex;
  if (tfx_hmap_put(&r->names, c, n, r->n_name_v, &ex) < 0) {
    tfx_om_oom(r);
    return NULL;
  }
  r->name_v[r->n_name_v++] = c;
  return c;
}

/* ---------------------------------------------------------------- shared port arrays */

static uint64_t mix64(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

static uint32_t ports_hash(const tfx_map_port *p, uint32_t n) {
  uint64_t h = n;
  for (uint32_t i = 0; i < n; i++) {
    h = mix64(h, (uint64_t)(uintptr_t)p[i].name);
    h = mix64(h, (uint64_t)(uint32_t)p[i].tf_port | (uint64_t)p[i].kind << 32);
    h = mix64(h, (uint64_t)(uintptr_t)p[i].format);
    h = mix64(h, (uint64_t)(uintptr_t)p[i].ir_name);
  }
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return (uint32_t)h;
}

/* Field by field (the structs have padding bytes): same pointers, same port numbers. */
static int ports_equal(const tfx_map_port *a, const tfx_map_port *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (a[i].name != b[i].name || a[i].tf_port != b[i].tf_port || a[i].format != b[i].format ||
        a[i].kind != b[i].kind || a[i].ir_name != b[i].ir_name)
      return 0;
  return 1;
}

static int port_set_grow(om_run *r, om_port_set *s) {
  uint32_t nc = s->cap_slots ? s->cap_slots * 2 : 64;
  if (nc <= s->cap_slots || nc > (UINT32_MAX >> 2)) return tfx_om_oom(r);
  uint32_t *sl = tfx_calloc(nc, sizeof *sl);
  if (!sl) return tfx_om_oom(r);
  for (uint32_t i = 0; i < s->n; i++) {
    uint32_t k = s->v[i].hash & (nc - 1);
    while (sl[k]) k = (k + 1) & (nc - 1);
    sl[k] = i + 1;
  }
  free(s->slots);
  s->slots = sl;
  s->cap_slots = nc;
  return 0;
}

tfx_map_port *tfx_om_share_ports(om_run *r, const tfx_map_port *ports, uint32_t n) {
  om_port_set *s = &r->port_set;
  uint32_t h = ports_hash(ports, n);
  if ((uint64_t)(s->n + 1) * 2 > s->cap_slots && port_set_grow(r, s)) return NULL;
  uint32_t k = h & (s->cap_slots - 1);
  for (; s->slots[k]; k = (k + 1) & (s->cap_slots - 1)) {
    const om_port_arr *e = &s->v[s->slots[k] - 1];
    if (e->hash == h && e->n == n && ports_equal(e->p, ports, n)) return (tfx_map_port *)e->p;
  }
  tfx_map_port *v = tfx_arena_alloc(r->A, (size_t)n * sizeof *v);
  if (!v) {
    tfx_om_oom(r);
    return NULL;
  }
  memcpy(v, ports, (size_t)n * sizeof *v);
  if (OM_MGROW(r, s->v, s->n, s->cap)) return NULL;
  s->v[s->n] = (om_port_arr){v, n, h};
  s->slots[k] = ++s->n;
  return v;
}

tfx_map_port *tfx_om_node_ports(om_run *r, int dir, const tfx_map_port *ports, uint32_t n) {
  uint32_t id = r->g->nodes[r->node].op_id;
  if (!r->last_ports || id >= r->m->ops.n) return tfx_om_share_ports(r, ports, n);
  size_t k = (size_t)id * 2 + (dir != 0);
  const tfx_map_port *last = r->last_ports[k];
  if (last && r->last_n[k] == n && ports_equal(last, ports, n)) return (tfx_map_port *)last;
  tfx_map_port *v = tfx_om_share_ports(r, ports, n);
  if (v) {
    r->last_ports[k] = v;
    r->last_n[k] = n;
  }
  return v;
}

int tfx_om_mgrow(om_run *r, void **v, uint32_t n, uint32_t *cap, size_t el) {
  if (n < *cap) return 0;
  if (*cap >= UINT32_MAX / 2) return tfx_om_oom(r);
  uint32_t nc = *cap ? *cap * 2 : 8;
  void *nv = tfx_realloc(*v, (size_t)nc * el);
  if (!nv) return tfx_om_oom(r);
  *v = nv;
  *cap = nc;
  return 0;
}

int tfx_om_agrow(om_run *r, void **v, uint32_t n, uint32_t *cap, size_t el) {
  if (n < *cap) return 0;
  if (*cap >= UINT32_MAX / 2) return tfx_om_oom(r);
  uint32_t nc = *cap ? *cap * 2 : 4;
  void *nv = tfx_arena_alloc(r->A, (size_t)nc * el);
  if (!nv) return tfx_om_oom(r);
  if (n) memcpy(nv, *v, (size_t)n * el);
  *v = nv;
  *cap = nc;
  return 0;
}

const char *tfx_om_rule_name(const tfx_pack *p, uint32_t i) {
  const char *s = p && i < p->n_rules ? tfx_pack_str(p, p->rules[i].name) : NULL;
  return s ? s : "?";
}

void tfx_om_rule_error(om_run *r, const char *fmt, ...) {
  char buf[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  const tfx_vm_rule *ru = &r->p->rules[r->rule];
  const char *gname = r->g->name && *r->g->name ? r->g->name : NULL;
  tfx_error(r->d, tfx_pack_file(r->p, ru->file), ru->line, 0, "rule '%s': %s (node '%s'%s%s%s)",
            tfx_om_rule_name(r->p, r->rule), buf, r->g->nodes[r->node].name ? r->g->nodes[r->node].name : "",
            gname ? " in function '" : "", gname ? gname : "", gname ? "'" : "");
}

const char *tfx_map_how_name(int how) {
  switch (how) {
    case TFX_MAP_RULE: return "rule";
    case TFX_MAP_GRAPH: return "graph";
    case TFX_MAP_AUTO: return "auto";
    case TFX_MAP_PASSTHROUGH: return "passthrough";
    case TFX_MAP_UNSUPPORTED: return "unsupported";
    default: return "none";
  }
}

/* ---------------------------------------------------------------- candidate index */

typedef struct cand_pair {
  uint32_t op;      /* op id in m->ops */
  uint32_t rule;
  int32_t prio;
} cand_pair;

static int cmp_pair(const void *a, const void *b) {
  const cand_pair *x = a, *y = b;
  if (x->op != y->op) return x->op < y->op ? -1 : 1;
  if (x->prio != y->prio) return x->prio > y->prio ? -1 : 1; /* highest priority first */
  return x->rule < y->rule ? -1 : x->rule > y->rule;          /* then registration order */
}

/* Fills r->cand / cand_first / cand_n. Types the module never uses are not indexed. */
static int build_index(om_run *r) {
  const tfx_pack *p = r->p;
  uint32_t n_ops = r->m->ops.n;
  r->cand_first = tfx_calloc((size_t)n_ops + 1, sizeof *r->cand_first);
  r->cand_n = tfx_calloc((size_t)n_ops + 1, sizeof *r->cand_n);
  r->hints = tfx_calloc((size_t)n_ops + 1, sizeof *r->hints);
  r->hint_done = tfx_calloc((size_t)n_ops + 1, sizeof *r->hint_done);
  r->last_ports = tfx_calloc(((size_t)n_ops + 1) * 2, sizeof *r->last_ports);
  r->last_n = tfx_calloc(((size_t)n_ops + 1) * 2, sizeof *r->last_n);
  if (!r->cand_first || !r->cand_n || !r->hints || !r->hint_done || !r->last_ports || !r->last_n)
    return tfx_om_oom(r);
  if (!p) return 0;
  r->type_cache = tfx_calloc((size_t)p->n_rules + 1, sizeof *r->type_cache);
  r->type_cache_len = tfx_calloc((size_t)p->n_rules + 1, sizeof *r->type_cache_len);
  if (!r->type_cache || !r->type_cache_len) return tfx_om_oom(r);
  cand_pair *v = NULL;
  uint32_t n = 0, cap = 0;
  for (uint32_t i = 0; i < p->n_rules; i++) {
    const tfx_vm_rule *ru = &p->rules[i];
    if (ru->kind != TFX_RULE_MAP || ru->prog >= p->n_progs || ru->from >= p->n_consts) continue;
    const tfx_value *from = &p->consts[ru->from];
    if (from->tag != TFX_V_LIST) continue;
    for (uint32_t k = 0; k < from->n; k++) {
      const tfx_value *t = &from->u.items[k];
      if (t->tag != TFX_V_STR) continue;
      uint32_t id = tfx_intern_find(&r->m->ops, t->u.s, t->n);
      if (id == TFX_HASH_NONE || id >= n_ops) continue;
      if (OM_MGROW(r, v, n, cap)) {
        free(v);
        return -1;
      }
      v[n].op = id;
      v[n].rule = i;
      v[n].prio = ru->priority;
      n++;
    }
  }
  if (n) qsort(v, n, sizeof *v, cmp_pair);
  r->cand = tfx_malloc(((size_t)n + 1) * sizeof *r->cand);
  if (!r->cand) {
    free(v);
    return tfx_om_oom(r);
  }
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (i && v[i].op == v[i - 1].op && v[i].rule == v[i - 1].rule) continue; /* `op A, A -> B` */
    if (!r->cand_n[v[i].op]) r->cand_first[v[i].op] = m;
    r->cand_n[v[i].op]++;
    r->cand[m++] = v[i].rule;
  }
  free(v);
  return 0;
}

/* ---------------------------------------------------------------- tracing */

static void trace_(om_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void trace_(om_run *r, const char *fmt, ...) {
  char buf[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  r->o->trace_fn(r->o->trace_user, buf);
}

/* The arguments (rule names, file names) are evaluated only when tracing is on. */
#define trace(r, ...) \
  do {                                 \
    if ((r)->o->trace_fn) trace_((r), __VA_ARGS__); \
  } while (0)

/* ---------------------------------------------------------------- one node */

/* "did you mean the CANN type 'A', 'B' or 'C'?" (similar CANN names) and the first candidate map whose `when`
 * failed; NULL when there is nothing to say. */
static int make_hint(om_run *r, const char *tf, uint32_t almost, const char **out) {
  char *b = r->msg;
  size_t cap = sizeof r->msg, len = 0;
  const char *sim[3];
  size_t ns = tfx_cann_similar(r->protos, tf, sim, 3);
  b[0] = '\0';
  if (ns) {
    len += (size_t)snprintf(b + len, cap - len, "did you mean the CANN type ");
    for (size_t i = 0; i < ns && len < cap; i++)
      len += (size_t)snprintf(b + len, cap - len, "%s'%s'", i == 0 ? "" : i + 1 == ns ? " or " : ", ",
                              sim[i]);
    if (len < cap) len += (size_t)snprintf(b + len, cap - len, "?");
  }
  if (almost != TFX_PACK_NONE && len < cap) {
    const tfx_vm_rule *ru = &r->p->rules[almost];
    len += (size_t)snprintf(b + len, cap - len, "%srule '%s' (%s:%u) did not apply: its when guard was false",
                            ns ? "; " : "", tfx_om_rule_name(r->p, almost), tfx_pack_file(r->p, ru->file), ru->line);
  }
  *out = NULL;
  if (!b[0]) return 0;
  if (len >= cap) len = cap - 1;
  *out = tfx_om_dup(r, b, len);
  return *out ? 0 : -1;
}

static int ensure_linked(om_run *r, int *linked) {
  if (*linked) return 0;
  if (tfx_vm_link(r->vm, r->g, &r->m->ops, NULL, NULL, r->d)) { /* only fails for memory */
    r->oom = 1; /* reported */
    return -1;
  }
  *linked = 1;
  return 0;
}

static int map_node(om_run *r, tfx_mapped_op *op, uint32_t id, int *linked) {
  const tfx_node *nd = &r->g->nodes[id];
  const tfx_pack *p = r->p;
  const char *tf = nd->op ? nd->op : "";
  const char *nname = nd->name ? nd->name : "";
  uint32_t first = 0, n = 0, almost = TFX_PACK_NONE;
  if (nd->op_id < r->m->ops.n) {
    first = r->cand_first[nd->op_id];
    n = r->cand_n[nd->op_id];
  }
  memset(op, 0, sizeof *op);
  op->rule = TFX_PACK_NONE;
  r->node = id;
  if (n && (!r->vm || ensure_linked(r, linked))) return -1;
  for (uint32_t k = 0; k < n; k++) {
    uint32_t rule = r->cand[first + k];
    const tfx_vm_rule *ru = &p->rules[rule];
    r->rule = rule;
    r->graph_rule = (ru->flags & TFX_RULE_GRAPH) != 0;
    tfx_om_builder_reset(&r->b);
    trace(r, "opmap: node '%s' (%s): rule '%s' (%s:%u)", nname, tf, tfx_om_rule_name(p, rule),
          tfx_pack_file(p, ru->file), ru->line);
    tfx_vm_result res;
    tfx_status vst = tfx_vm_run_map(r->vm, ru->prog, id, &res, r->d);
    if (vst == TFX_E_NOMEM) r->oom = 1; /* reported by the VM or a host call */
    if (vst || r->oom) {
      if (!r->oom)
        tfx_diag_add(r->d, TFX_SEV_NOTE, NULL, 0, 0, "while mapping node '%s'%s%s (op %s)", nname,
                     r->g->func ? " in function " : "", r->g->func ? r->g->name : "", tf);
      return -1;
    }
    if (res.value.tag == TFX_V_BOOL && res.value.u.i == 0) { /* a `when` failed: no effect */
      trace(r, "opmap: node '%s': rule '%s' did not apply (when false)", nname, tfx_om_rule_name(p, rule));
      if (almost == TFX_PACK_NONE) almost = rule;
      continue;
    }
    op->rule = rule;
    if (r->graph_rule) {
      op->how = TFX_MAP_GRAPH;
      op->type = "graph";
    } else {
      op->how = TFX_MAP_RULE;
      op->type = r->b.type;
      if (!op->type) { /* a program without MAP_TYPE (hand-made pack): the rule's `to` */
        const char *to = tfx_pack_str(p, ru->to);
        if (!to || !*to) {
          tfx_om_rule_error(r, "the map sets no CANN type");
          return -1;
        }
        if (!(op->type = tfx_om_dup(r, to, strlen(to)))) return -1;
      }
      /* MAP_TYPE looked the prototype up already (h_map_type) */
      op->proto = r->b.type && op->type == r->b.type ? r->b.proto : tfx_cann_find(r->protos, op->type);
      if (op->proto) op->type = op->proto->name;
    }
    trace(r, "opmap: node '%s' -> %s (%s)", nname, op->type, tfx_map_how_name(op->how));
    return tfx_om_finish(r, op) ? -1 : tfx_om_check(r, op);
  }
  /* no rule applied */
  tfx_om_builder_reset(&r->b);
  r->graph_rule = 0;
  op->proto = tfx_cann_find(r->protos, tf);
  if (op->proto) { /* AutoMapping under the prototype of the same name */
    op->how = TFX_MAP_AUTO;
    op->type = op->proto->name;
    r->b.auto_ = 1;
    trace(r, "opmap: node '%s' -> %s (auto)", nname, op->type);
    return tfx_om_finish(r, op) ? -1 : tfx_om_check(r, op);
  }
  /* the hint depends only on the type (same candidates, same first failing one): once per
   * op id, since tfx_cann_similar scans the whole table */
  if (nd->op_id < r->m->ops.n) {
    if (!r->hint_done[nd->op_id]) {
      if (make_hint(r, tf, almost, &r->hints[nd->op_id])) return -1;
      r->hint_done[nd->op_id] = 1;
    }
    op->hint = r->hints[nd->op_id];
  } else if (make_hint(r, tf, almost, &op->hint)) {
    return -1;
  }
  op->type = tf; /* borrowed from the NodeDef, like the node itself */
  if (r->o->passthrough_unknown) {
    op->how = TFX_MAP_PASSTHROUGH;
    r->b.auto_ = 1;
    trace(r, "opmap: node '%s' -> %s (passthrough)", nname, op->type);
    return tfx_om_finish(r, op);
  }
  op->how = TFX_MAP_UNSUPPORTED;
  op->cause = TFX_CAUSE_TYPE_UNSUPPORTED;
  op->message = "The type is not supported.";
  trace(r, "opmap: node '%s' (%s): unsupported", nname, tf);
  return 0;
}

static int map_graph(om_run *r, const tfx_graph *g, tfx_mapped_graph *mg) {
  mg->g = g;
  /* not zeroed here: map_node clears each op as it maps it (one pass over the array, not two);
   * after a failure the ops not reached are cleared so that a partial result stays defined */
  mg->ops = tfx_arena_alloc(r->A, (size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *mg->ops);
  if (!mg->ops) return tfx_om_oom(r);
  r->g = g;
  int linked = 0;
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    tfx_progress_nodes(i, g->n_nodes);
    tfx_mapped_op *op = &mg->ops[i];
    if (map_node(r, op, i, &linked)) {
      memset(op + 1, 0, (size_t)(g->n_nodes - i - 1) * sizeof *op);
      return -1;
    }
    if (op->cause || op->how == TFX_MAP_UNSUPPORTED) r->om->n_failed++;
    else r->om->n_ok++;
    if (r->o->after_node) r->o->after_node(r->o->after_user, r->om, op, &g->nodes[i]);
  }
  return 0;
}

/* ---------------------------------------------------------------- entry */

tfx_status tfx_opmap_run(tfx_opmap *om, const tfx_module *m, const tfx_pack *pack,
                         const tfx_cann_table *protos, const tfx_opmap_opts *o, tfx_diag *d) {
  static const tfx_opmap_opts defaults;
  memset(om, 0, sizeof *om);
  tfx_arena_init(&om->arena);
  if (!protos || !m) {
    tfx_error(d, NULL, 0, 0, "internal error: tfx_opmap_run needs a module and a CANN prototype table");
    return TFX_E_FAIL;
  }
  om_run r;
  memset(&r, 0, sizeof r);
  r.om = om;
  r.A = &om->arena;
  r.m = m;
  r.p = pack;
  r.protos = protos;
  r.o = o ? o : &defaults;
  r.d = d;
  int rc = 0;
  if (build_index(&r)) goto fail;
  int any = 0;
  for (uint32_t i = 0; i < m->ops.n && !any; i++) any = r.cand_n[i] != 0;
  if (any) {
    if (!(r.vm = tfx_vm_new(pack))) {
      tfx_om_oom(&r);
      goto fail;
    }
    tfx_vm_set_host(r.vm, &tfx_om_host, &r);
    tfx_vm_set_budget(r.vm, r.o->vm_budget, 0);
    if (r.o->trace_fn) tfx_vm_set_trace(r.vm, r.o->trace_fn, r.o->trace_user);
  }
  if (map_graph(&r, &m->main, &om->main)) goto fail;
  if (m->n_funcs) {
    om->funcs = tfx_arena_calloc(r.A, m->n_funcs, sizeof *om->funcs);
    if (!om->funcs) {
      tfx_om_oom(&r);
      goto fail;
    }
    om->n_funcs = m->n_funcs;
    for (uint32_t i = 0; i < m->n_funcs; i++)
      if (map_graph(&r, &m->funcs[i], &om->funcs[i])) goto fail;
  }
  goto out;
fail:
  rc = r.oom ? TFX_E_NOMEM : TFX_E_FAIL;
out:
  if (r.vm) tfx_vm_set_host(r.vm, NULL, NULL);
  tfx_vm_free(r.vm);
  tfx_om_builder_free(&r.b);
  free(r.cand);
  free(r.cand_first);
  free(r.cand_n);
  free(r.hints);
  free(r.hint_done);
  free(r.type_cache);
  free(r.type_cache_len);
  free(r.mark);
  free(r.pool);
  free(r.ports);
  free(r.dyn);
  free(r.reserved);
  free(r.last_ports);
  free(r.last_n);
  free(r.port_set.v);
  free(r.port_set.slots);
  tfx_hmap_free(&r.names);
  free(r.name_v);
  return rc;
}

void tfx_opmap_free(tfx_opmap *om) {
  tfx_arena_free(&om->arena);
  memset(om, 0, sizeof *om);
  tfx_arena_init(&om->arena);
}
