/* VM host for map programs: MAP_* and NODE_* effects recorded into the per-node builder, and
 * the format_of / dtype_of queries.
 * Stage: opmap. Input: one map program run over one TF node (om_run.node of om_run.g).
 * Output: om_builder (strings and values copied into the tfx_opmap arena). Index checks here
 * are rule bugs (a negative port, a count beyond 2^20): reported at the rule's site and
 * returned as a host failure, which makes the VM report the instruction and fail the run.
 * An index that only does not fit this node (input 5 of a 2-input node) is not checked here;
 * bind.c turns it into the node's PARAM_INVALID cause. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opmap/opmap_int.h"

/* ---------------------------------------------------------------- node helpers */

const Tensorflow__AttrValue *tfx_om_node_attr(const tfx_node *nd, const char *name) {
  const Tensorflow__NodeDef *def = nd->def;
  if (!def) return NULL;
  for (size_t k = 0; k < def->n_attr; k++) {
    const Tensorflow__NodeDef__AttrEntry *e = def->attr[k];
    if (e && e->key && e->value && strcmp(e->key, name) == 0) return e->value;
  }
  return NULL;
}

static const char *const k_formats[] = {"NCHW", "NHWC", "NDHWC", "NCDHW", "ND"};

/* The AutoMapping format a string attr names (docs/ASCEND.md §6.3: DataFormatToFormat
 * accepts these five, optionally with a ":sub" suffix), or NULL. */
static const char *format_of(const Tensorflow__AttrValue *av) {
  if (!av || av->value_case != TENSORFLOW__ATTR_VALUE__VALUE_S || !av->s.data) return NULL;
  size_t n = av->s.len;
  const void *colon = memchr(av->s.data, ':', n);
  if (colon) n = (size_t)((const uint8_t *)colon - av->s.data);
  for (size_t i = 0; i < sizeof k_formats / sizeof *k_formats; i++)
    if (strlen(k_formats[i]) == n && memcmp(k_formats[i], av->s.data, n) == 0) return k_formats[i];
  return NULL;
}

static const char *format_attr(const tfx_node *nd, const char *name) {
  return format_of(tfx_om_node_attr(nd, name));
}

const char *tfx_om_auto_format(const tfx_node *nd, int dir) {
  const char *f = format_attr(nd, "data_format"); /* overrides both directions */
  if (!f) f = format_attr(nd, dir ? "dst_format" : "src_format");
  return f ? f : "ND";
}

void tfx_om_scan_attrs(const tfx_node *nd, const char **in, const char **out,
                       const Tensorflow__AttrValue **fused_ports) {
  /* one walk over the attrs for what tfx_om_auto_format(nd, 0) and (nd, 1) and
   * tfx_om_node_attr(nd, "_fusion_input_ports") look up: the first entry of each key */
  const Tensorflow__AttrValue *df = NULL, *sf = NULL, *tf = NULL, *fp = NULL;
  const Tensorflow__NodeDef *def = nd->def;
  for (size_t k = 0; def && k < def->n_attr; k++) {
    const Tensorflow__NodeDef__AttrEntry *e = def->attr[k];
    if (!e || !e->key || !e->value) continue;
    const char *key = e->key;
    if (key[0] == 'd') {
      if (!df && strcmp(key, "data_format") == 0) df = e->value;
      else if (!tf && strcmp(key, "dst_format") == 0) tf = e->value;
    } else if (key[0] == 's') {
      if (!sf && strcmp(key, "src_format") == 0) sf = e->value;
    } else if (key[0] == '_' && !fp && strcmp(key, "_fusion_input_ports") == 0) {
      fp = e->value;
    }
  }
  if (in || out) {
    const char *f = format_of(df), *fi = f ? f : format_of(sf), *fo = f ? f : format_of(tf);
    if (in) *in = fi ? fi : "ND";
    if (out) *out = fo ? fo : "ND";
  }
  if (fused_ports) *fused_ports = fp;
}

void tfx_om_auto_formats(const tfx_node *nd, const char **in, const char **out) {
  tfx_om_scan_attrs(nd, in, out, NULL);
}

/* ---------------------------------------------------------------- builder life */

void tfx_om_builder_reset(om_builder *b) {
  b->type = NULL;
  b->proto = NULL;
  b->auto_ = 0;
  b->n_attrs = b->n_drops = b->n_ports = b->n_dyns = b->n_fmts = b->n_dels = 0;
  b->n_ib = 0;
  /* graph-map vectors live in the arena: start fresh for the next node */
  b->inner = NULL;
  b->n_inner = b->cap_inner = 0;
  b->outs = NULL;
  b->n_outs = b->cap_outs = 0;
}

void tfx_om_builder_free(om_builder *b) {
  free(b->attrs);
  free(b->drops);
  free(b->ports);
  free(b->dyns);
  free(b->fmts);
  free(b->dels);
  free(b->ib);
  memset(b, 0, sizeof *b);
}

/* ---------------------------------------------------------------- values */

/* Deep copy of a VM value into the arena; nodes become their names, scopes "" (map programs
 * have no ScopeTree). */
static int copy_value(om_run *r, const tfx_value *in, tfx_value *out, unsigned depth) {
  if (depth > TFX_V_MAX_DEPTH) {
    tfx_om_rule_error(r, "value nested too deeply");
    return -1;
  }
  switch (in->tag) {
    case TFX_V_STR: {
      const char *s = tfx_om_dup(r, in->u.s, in->n);
      if (!s) return -1;
      *out = tfx_v_str(s, in->n);
      return 0;
    }
    case TFX_V_NODE: {
      const char *nm = in->u.id < r->g->n_nodes && r->g->nodes[in->u.id].name ? r->g->nodes[in->u.id].name : "";
      const char *s = tfx_om_dup(r, nm, strlen(nm));
      if (!s) return -1;
      *out = tfx_v_str(s, (uint32_t)strlen(s));
      return 0;
    }
    case TFX_V_SCOPE: *out = tfx_v_str("", 0); return 0;
    case TFX_V_LIST: {
      tfx_value *items = NULL;
      if (in->n) {
        items = tfx_arena_calloc(r->A, in->n, sizeof *items);
        if (!items) return tfx_om_oom(r);
        for (uint32_t i = 0; i < in->n; i++)
          if (copy_value(r, &in->u.items[i], &items[i], depth + 1)) return -1;
      }
      *out = tfx_v_list(items, in->n);
      return 0;
    }
    default: *out = *in; return 0;
  }
}

/* ---------------------------------------------------------------- MAP_* */

static int need_map(om_run *r, const char *op) {
  if (!r->graph_rule) return 0;
  tfx_om_rule_error(r, "%s in a graph map (a `-> graph` map holds only node, out, when and priority)", op);
  return -1;
}

static int h_map_type(void *c, const char *s, size_t n) {
  om_run *r = c;
  if (need_map(r, "MAP_TYPE")) return -1;
  if (n == 0) {
    tfx_om_rule_error(r, "empty CANN type");
    return -1;
  }
  /* a rule names the same type node after node: its last prototype is checked first */
  const tfx_cann_op *pr = NULL;
  int cached = r->type_cache && r->rule < r->p->n_rules;
  if (cached && (pr = r->type_cache[r->rule]) &&
      !(r->type_cache_len[r->rule] == n && memcmp(pr->name, s, n) == 0))
    pr = NULL;
  if (!pr && (pr = tfx_cann_find(r->protos, s)) != NULL && cached) {
    size_t len = strlen(pr->name);
    r->type_cache[r->rule] = len < UINT32_MAX ? pr : NULL;
    r->type_cache_len[r->rule] = (uint32_t)len;
  }
  r->b.proto = pr;
  r->b.type = pr ? pr->name : tfx_om_dup(r, s, n); /* the table's name: no copy per node */
  return r->b.type ? 0 : -1;
}

static int h_map_auto(void *c) {
  om_run *r = c;
  if (need_map(r, "MAP_AUTO")) return -1;
  r->b.auto_ = 1;
  return 0;
}

static int h_map_drop(void *c, const char *name);

static int h_map_attr(void *c, const char *name, const tfx_value *v) {
  om_run *r = c;
  om_builder *b = &r->b;
  if (need_map(r, "MAP_ATTR")) return -1;
  if (v->tag == TFX_V_NONE) return h_map_drop(c, name); /* `attr k = none`: no such attr */
  for (uint32_t i = 0; i < b->n_drops; i++) /* an attr set after `drop` of its name is back */
    if (strcmp(b->drops[i], name) == 0) b->drops[i] = "";
  om_attr_stmt *a = NULL;
  for (uint32_t i = 0; i < b->n_attrs && !a; i++)
    if (strcmp(b->attrs[i].name, name) == 0) a = &b->attrs[i];
  if (!a) {
    if (OM_MGROW(r, b->attrs, b->n_attrs, b->cap_attrs)) return -1;
    a = &b->attrs[b->n_attrs++];
    memset(a, 0, sizeof *a);
    if (!(a->name = tfx_om_name(r, name, strlen(name)))) return -1;
  }
  a->dropped = 0;
  return copy_value(r, v, &a->v, 0);
}

static int h_map_drop(void *c, const char *name) {
  om_run *r = c;
  om_builder *b = &r->b;
  if (need_map(r, "MAP_DROP")) return -1;
  for (uint32_t i = 0; i < b->n_attrs; i++)
    if (strcmp(b->attrs[i].name, name) == 0) b->attrs[i].dropped = 1;
  for (uint32_t i = 0; i < b->n_drops; i++)
    if (strcmp(b->drops[i], name) == 0) return 0;
  if (OM_MGROW(r, b->drops, b->n_drops, b->cap_drops)) return -1;
  const char *s = tfx_om_name(r, name, strlen(name));
  if (!s) return -1;
  b->drops[b->n_drops++] = s;
  return 0;
}

static int port_ok(om_run *r, const char *what, int64_t i) {
  if (i >= 0 && i <= TFX_OPMAP_MAX_PORT) return 0;
  tfx_om_rule_error(r, "%s %lld is out of range (0..%d)", what, (long long)i, TFX_OPMAP_MAX_PORT);
  return -1;
}

static int h_map_format(void *c, int dir, int64_t port, const char *fmt, size_t n) {
  om_run *r = c;
  om_builder *b = &r->b;
  if (need_map(r, "MAP_FORMAT") || port_ok(r, dir ? "format output" : "format input", port)) return -1;
  if (OM_MGROW(r, b->fmts, b->n_fmts, b->cap_fmts)) return -1;
  om_fmt_stmt *f = &b->fmts[b->n_fmts];
  f->dir = (uint8_t)(dir != 0);
  f->port = port;
  if (!(f->fmt = tfx_om_name(r, fmt, n))) return -1;
  b->n_fmts++;
  return 0;
}

static int add_port(om_run *r, int dir, const char *name, int64_t index, int optional, int connected) {
  om_builder *b = &r->b;
  if (OM_MGROW(r, b->ports, b->n_ports, b->cap_ports)) return -1;
  om_port_stmt *p = &b->ports[b->n_ports];
  p->dir = (uint8_t)(dir != 0);
  p->index = index;
  p->optional = (uint8_t)optional;
  p->connected = (uint8_t)(connected != 0);
  if (!(p->name = tfx_om_name(r, name, strlen(name)))) return -1;
  b->n_ports++;
  return 0;
}

static int h_map_port(void *c, int dir, const char *name, int64_t index) {
  om_run *r = c;
  if (need_map(r, "MAP_PORT") || port_ok(r, dir ? "output index" : "input index", index)) return -1;
  return add_port(r, dir, name, index, 0, 1);
}

static int h_map_optional(void *c, const char *name, int64_t index, int connected) {
  om_run *r = c;
  if (need_map(r, "MAP_OPTIONAL")) return -1;
  if (connected && port_ok(r, "optional input index", index)) return -1;
  return add_port(r, 0, name, index, 1, connected);
}

static int h_map_dynamic(void *c, int dir, const char *name, int64_t count) {
  om_run *r = c;
  om_builder *b = &r->b;
  if (need_map(r, "MAP_DYNAMIC")) return -1;
  if (count < 0 || count > TFX_OPMAP_MAX_DYN) {
    tfx_om_rule_error(r, "dynamic %s '%s' count %lld is out of range (0..%lld)", dir ? "output" : "input",
                      name, (long long)count, (long long)TFX_OPMAP_MAX_DYN);
    return -1;
  }
  for (uint32_t i = 0; i < b->n_dyns; i++) /* the same port again: the last count wins */
    if (b->dyns[i].dir == (dir != 0) && strcmp(b->dyns[i].name, name) == 0) {
      b->dyns[i].count = count;
      return 0;
    }
  if (OM_MGROW(r, b->dyns, b->n_dyns, b->cap_dyns)) return -1;
  om_dyn_stmt *y = &b->dyns[b->n_dyns];
  y->dir = (uint8_t)(dir != 0);
  y->count = count;
  if (!(y->name = tfx_om_name(r, name, strlen(name)))) return -1;
  b->n_dyns++;
  return 0;
}

static int h_map_delete(void *c, int64_t index) {
  om_run *r = c;
  om_builder *b = &r->b;
  if (need_map(r, "MAP_DELETE")) return -1;
  if (OM_MGROW(r, b->dels, b->n_dels, b->cap_dels)) return -1;
  b->dels[b->n_dels++] = index; /* negative counts from the end (DelInputWithCond); bind.c */
  return 0;
}

/* ---------------------------------------------------------------- NODE_* (graph maps) */

static int need_graph(om_run *r, const char *op) {
  if (r->graph_rule) return 0;
  tfx_om_rule_error(r, "%s outside a graph map (inner nodes belong to `-> graph` maps)", op);
  return -1;
}

/* The newest inner node (and its capacities in *ib), or NULL after reporting. */
static tfx_map_inner *cur_inner(om_run *r, const char *op, om_inner_b **ib) {
  if (need_graph(r, op)) return NULL;
  if (r->b.n_ib) {
    *ib = &r->b.ib[r->b.n_ib - 1];
    return &r->b.inner[r->b.n_ib - 1];
  }
  tfx_om_rule_error(r, "%s before any inner node", op);
  return NULL;
}

/* "<tf node name>/<rel>" in the arena. */
static const char *full_name(om_run *r, const char *rel, size_t rl) {
  const char *tf = r->g->nodes[r->node].name ? r->g->nodes[r->node].name : "";
  size_t a = strlen(tf);
  char *s = tfx_arena_alloc(r->A, a + rl + 2);
  if (!s) {
    tfx_om_oom(r);
    return NULL;
  }
  memcpy(s, tf, a);
  s[a] = '/';
  memcpy(s + a + 1, rel, rl);
  s[a + 1 + rl] = '\0';
  return s;
}

static int h_node_new(void *c, const char *name, size_t nl, const char *type, size_t tl) {
  om_run *r = c;
  om_builder *b = &r->b;
  if (need_graph(r, "NODE_NEW")) return -1;
  if (OM_AGROW(r, b->inner, b->n_inner, b->cap_inner) || OM_MGROW(r, b->ib, b->n_ib, b->cap_ib)) return -1;
  tfx_map_inner *in = &b->inner[b->n_inner];
  memset(in, 0, sizeof *in);
  in->name = full_name(r, name, nl);
  in->type = tfx_om_dup(r, type, tl);
  if (!in->name || !in->type) return -1;
  om_inner_b *ib = &b->ib[b->n_ib];
  memset(ib, 0, sizeof *ib);
  b->n_inner++;
  b->n_ib++;
  return 0;
}

static int h_node_input(void *c, const char *src, size_t sl, int64_t port) {
  om_run *r = c;
  om_inner_b *ib = NULL;
  tfx_map_inner *in = cur_inner(r, "NODE_IN", &ib);
  if (!in || port_ok(r, src ? "inner-node output port" : "boundary input", port)) return -1;
  if (OM_AGROW(r, in->in, in->n_in, ib->cap_in)) return -1;
  tfx_map_inner_in *x = &in->in[in->n_in];
  memset(x, 0, sizeof *x);
  if (src && !(x->src = full_name(r, src, sl))) return -1;
  x->port = (int32_t)port;
  in->n_in++;
  return 0;
}

static int h_node_const(void *c, const tfx_value *v) {
  om_run *r = c;
  om_inner_b *ib = NULL;
  tfx_map_inner *in = cur_inner(r, "NODE_CONST", &ib);
  if (!in) return -1;
  if (OM_AGROW(r, in->in, in->n_in, ib->cap_in)) return -1;
  tfx_map_inner_in *x = &in->in[in->n_in];
  memset(x, 0, sizeof *x);
  tfx_value *cv = tfx_arena_alloc(r->A, sizeof *cv);
  if (!cv) return tfx_om_oom(r);
  if (copy_value(r, v, cv, 0)) return -1;
  x->cval = cv;
  x->port = 0;
  in->n_in++;
  return 0;
}

static int h_node_attr(void *c, const char *name, const tfx_value *v) {
  om_run *r = c;
  om_inner_b *ib = NULL;
  tfx_map_inner *in = cur_inner(r, "NODE_ATTR", &ib);
  if (!in) return -1;
  tfx_map_attr *a = NULL;
  uint32_t at = 0;
  for (uint32_t i = 0; i < in->n_attrs && !a; i++) /* the same attr again: the last wins */
    if (strcmp(in->attrs[i].name, name) == 0) a = &in->attrs[at = i];
  if (v->tag == TFX_V_NONE) { /* `attr k = none`: no such attr */
    if (a) {
      memmove(a, a + 1, (size_t)(in->n_attrs - at - 1) * sizeof *a);
      in->n_attrs--;
    }
    return 0;
  }
  if (!a) {
    if (OM_AGROW(r, in->attrs, in->n_attrs, ib->cap_attrs)) return -1;
    a = &in->attrs[in->n_attrs];
    memset(a, 0, sizeof *a);
    if (!(a->name = tfx_om_dup(r, name, strlen(name)))) return -1;
    in->n_attrs++;
  }
  a->tf = NULL;
  return copy_value(r, v, &a->v, 0);
}

static int h_node_format(void *c, int dir, int64_t port, const char *fmt, size_t n) {
  om_run *r = c;
  om_inner_b *ib = NULL;
  tfx_map_inner *in = cur_inner(r, "NODE_FORMAT", &ib);
  if (!in || port_ok(r, dir ? "format output" : "format input", port)) return -1;
  tfx_map_port **v = dir ? &in->out_fmt : &in->in_fmt;
  uint32_t *nv = dir ? &in->n_out_fmt : &in->n_in_fmt;
  uint32_t *cap = dir ? &ib->cap_out_fmt : &ib->cap_in_fmt;
  if (tfx_om_agrow(r, (void **)v, *nv, cap, sizeof **v)) return -1;
  tfx_map_port *p = &(*v)[*nv];
  memset(p, 0, sizeof *p);
  p->name = "";
  p->ir_name = "";
  p->tf_port = (int32_t)port;
  p->kind = TFX_CANN_REQ;
  if (!(p->format = tfx_om_dup(r, fmt, n))) return -1;
  (*nv)++;
  return 0;
}

static int h_node_out(void *c, int64_t index, const char *node, size_t nl, int64_t port) {
  om_run *r = c;
  om_builder *b = &r->b;
  if (need_graph(r, "NODE_OUT") || port_ok(r, "boundary output index", index) ||
      port_ok(r, "inner-node output port", port))
    return -1;
  if (OM_AGROW(r, b->outs, b->n_outs, b->cap_outs)) return -1;
  tfx_map_graph_out *o = &b->outs[b->n_outs];
  o->index = (int32_t)index;
  o->port = (int32_t)port;
  if (!(o->node = full_name(r, node, nl))) return -1;
  b->n_outs++;
  return 0;
}

/* ---------------------------------------------------------------- queries */

/* format_of(in N): the format a `format input N` statement run before the call set, else
 * the node's AutoMapping input format (data_format / src_format, "ND" by default) whether
 * or not the map says `auto`; none for an input the node does not have. */
static const char *h_format_of(void *c, uint32_t node, int64_t port) {
  om_run *r = c;
  if (node >= r->g->n_nodes || port < 0 || port >= (int64_t)r->g->nodes[node].n_data_in) return NULL;
  if (node == r->node)
    for (uint32_t i = r->b.n_fmts; i-- > 0;)
      if (r->b.fmts[i].dir == 0 && r->b.fmts[i].port == port) return r->b.fmts[i].fmt;
  return tfx_om_auto_format(&r->g->nodes[node], 0);
}

static int64_t fold_ref(int64_t dt) { return dt > 100 ? dt - 100 : dt; }

/* Output `port` dtype of producer nd from its attrs: a type list indexed by port (Tout,
 * output_types, out_types, T), else the first type attr of out_type, output_type, DstT,
 * dtype, T, Tout; -1 when none says. */
static int64_t out_dtype(const tfx_node *nd, int32_t port) {
  static const char *const lists[] = {"Tout", "output_types", "out_types", "T"};
  static const char *const types[] = {"out_type", "output_type", "DstT", "dtype", "T", "Tout"};
  for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
    const Tensorflow__AttrValue *av = tfx_om_node_attr(nd, lists[i]);
    if (av && av->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && av->list && av->list->n_type) {
      if (port >= 0 && (size_t)port < av->list->n_type) return fold_ref(av->list->type[port]);
      return -1;
    }
  }
  for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
    const Tensorflow__AttrValue *av = tfx_om_node_attr(nd, types[i]);
    if (av && av->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE && av->type > 0) return fold_ref(av->type);
  }
  return -1;
}

/* dtype_of(in N): the DataType of data input N read from its producer's attrs (out_dtype), or
 * from the function signature for a body argument; -1 (none) when unknown. */
static int64_t h_dtype_of(void *c, uint32_t node, int64_t port) {
  om_run *r = c;
  const tfx_graph *g = r->g;
  if (node >= g->n_nodes || port < 0 || port >= (int64_t)g->nodes[node].n_data_in) return -1;
  const tfx_input *in = &g->nodes[node].in[port];
  if (in->kind == TFX_IN_ARG) {
    const Tensorflow__FunctionDef *f = g->func;
    if (!f || !f->signature || in->src >= f->signature->n_input_arg || !f->signature->input_arg[in->src]) return -1;
    int64_t dt = f->signature->input_arg[in->src]->type;
    return dt > 0 ? fold_ref(dt) : -1;
  }
  if (in->src >= g->n_nodes) return -1;
  return out_dtype(&g->nodes[in->src], in->port);
}

const tfx_vm_host tfx_om_host = {
    .node_new = h_node_new,
    .node_input = h_node_input,
    .node_const = h_node_const,
    .node_attr = h_node_attr,
    .node_format = h_node_format,
    .node_out = h_node_out,
    .map_type = h_map_type,
    .map_auto = h_map_auto,
    .map_attr = h_map_attr,
    .map_drop = h_map_drop,
    .map_format = h_map_format,
    .map_port = h_map_port,
    .map_optional = h_map_optional,
    .map_dynamic = h_map_dynamic,
    .map_delete_input = h_map_delete,
    .format_of = h_format_of,
    .dtype_of = h_dtype_of,
};
