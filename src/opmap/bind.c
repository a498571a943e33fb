/* Finishing one mapped node: the builder's recorded effects -> a tfx_mapped_op.
 * Stage: opmap. Input: om_builder after a map program returned true (or an empty builder
 * with auto set, for AUTO / PASSTHROUGH), the node, its prototype (may be NULL).
 * Output: attrs, ports (bound against the prototype), dynamic counts, deleted inputs and
 * formats; for graph maps the inner nodes checked for consistency. A node that does not fit
 * gets cause TFX_CAUSE_PARAM_INVALID and a message; nothing here is a run error except
 * running out of memory.
 *
 * Port binding (inputs; opmap.h has the summary):
 *  - `delete input N` (negative N counts from the end, as DelInputWithCond; an index the
 *    node does not have is ignored) removes TF data inputs first; they are listed in
 *    `deleted`, ascending;
 *  - explicit `input NAME = N` / connected `optional input NAME = N` bind NAME to TF input N
 *    and take N out of the sequential pool; a not-connected optional port is present with
 *    tf_port -1 and takes nothing; if the node has TF input N anyway and no other statement
 *    takes it, that is the node's PARAM_INVALID (it would otherwise shift onto the next port);
 *  - the other prototype ports, in declaration order, take the pool's inputs in order: a
 *    required port one; a dynamic port `count` of them (its `dynamic` statement), or, with no
 *    statement, whatever is left after the ports declared after it are served (one for each
 *    required port, `count` for each counted dynamic port); an optional port one when more
 *    are left than those later ports need, else it is present unfed (tf_port -1);
 *  - inputs left over, a required port left unfed, or an explicit index the node lacks: the
 *    E19014 message "input number of tensorflow[N] should be equal to factory size[M]",
 *    N = data inputs after deletion, M = required ports + fed optional ports + dynamic counts;
 *    except for the CANN types ATC does not check (Data, Variable, FrameworkOp, LayerNorm:
 *    docs/ASCEND.md §6.6), whose unfed required ports stay at tf_port -1 and whose left-over inputs are
 *    not bound (Placeholder -> Data has no input for Data's `x`);
 *  - a statement naming a port the prototype lacks (possible only when the rules were
 *    compiled without prototypes): "CANN type T has no input 'NAME'";
 *  - no prototype (a CANN type the table does not know, or PASSTHROUGH): one port per kept TF
 *    input in order, named by its `input` / `optional input` statement or "x<k>" (k = port
 *    position); `dynamic` statements are only recorded in dyn.
 * Outputs: prototype outputs in order, TF outputs 0, 1, ... in order (explicit
 * `output NAME = N` binds N and skips it); a dynamic output takes its `count`, or with no
 * statement enough to cover the highest TF output port any consumer reads. A TF output a
 * consumer reads that no CANN output is bound to is the node's PARAM_INVALID. No prototype:
 * ports "y0".."y<n-1>", n = highest consumed output port + 1, at least 1 unless the type is
 * NoOp-like (NoOp, ControlTrigger, _Retval). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opmap/opmap_int.h"

/* ---------------------------------------------------------------- small helpers */

static const om_port_stmt *port_stmt(const om_builder *b, int dir, const char *name) {
  for (uint32_t i = b->n_ports; i-- > 0;)
    if (b->ports[i].dir == dir && strcmp(b->ports[i].name, name) == 0) return &b->ports[i];
  return NULL;
}

static const om_dyn_stmt *dyn_stmt(const om_builder *b, int dir, const char *name) {
  for (uint32_t i = 0; i < b->n_dyns; i++)
    if (b->dyns[i].dir == dir && strcmp(b->dyns[i].name, name) == 0) return &b->dyns[i];
  return NULL;
}

static const char *forced_format(const om_builder *b, int dir, int64_t port) {
  if (port < 0) return NULL;
  for (uint32_t i = b->n_fmts; i-- > 0;) /* the last statement for a port wins */
    if (b->fmts[i].dir == dir && b->fmts[i].port == port) return b->fmts[i].fmt;
  return NULL;
}

/* Sets the node's cause 2 with a formatted message (the first one stays). */
static int param_invalid(om_run *r, tfx_mapped_op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int param_invalid(om_run *r, tfx_mapped_op *op, const char *fmt, ...) {
  if (op->cause) return 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->msg, sizeof r->msg, fmt, ap);
  va_end(ap);
  op->cause = TFX_CAUSE_PARAM_INVALID;
  op->message = tfx_om_dup(r, r->msg, strlen(r->msg));
  return op->message ? 0 : -1;
}

/* Scratch port vector (r->ports) append. */
static int push_port(om_run *r, uint32_t *n, const char *name, int32_t tf, uint8_t kind, const char *ir) {
  if (OM_MGROW(r, r->ports, *n, r->cap_ports)) return -1;
  tfx_map_port *p = &r->ports[(*n)++];
  p->name = name;
  p->tf_port = tf;
  p->kind = kind;
  p->ir_name = ir;
  p->format = "ND";
  return 0;
}

/* "<base><k>" in the arena (one copy per distinct name: tfx_om_name). */
static const char *numbered(om_run *r, const char *base, uint64_t k) {
  char buf[128];
  size_t bl = strlen(base);
  if (bl > sizeof buf - 24) { /* a port name that long is not a real prototype's */
    char num[24];
    int n = snprintf(num, sizeof num, "%llu", (unsigned long long)k);
    char *s = tfx_arena_alloc(r->A, bl + (size_t)n + 1);
    if (!s) {
      tfx_om_oom(r);
      return NULL;
    }
    memcpy(s, base, bl);
    memcpy(s + bl, num, (size_t)n + 1);
    return s;
  }
  memcpy(buf, base, bl);
  size_t n = bl;
  char rev[24];
  size_t nr = 0;
  do {
    rev[nr++] = (char)('0' + k % 10);
    k /= 10;
  } while (k);
  while (nr) buf[n++] = rev[--nr];
  buf[n] = 0;
  return tfx_om_name(r, buf, n);
}

static int push_dyn(om_run *r, uint32_t *n, const char *name, int is_output, uint32_t count) {
  if (OM_MGROW(r, r->dyn, *n, r->cap_dyn)) return -1;
  tfx_map_dyn *y = &r->dyn[(*n)++];
  y->name = name;
  y->is_output = (uint8_t)is_output;
  y->count = count;
  return 0;
}

/* Sets the formats of the first n scratch ports and hands out an arena array with them (shared
 * with the earlier nodes whose ports are the same). */
static int freeze_ports(om_run *r, uint32_t n, int dir, const char *auto_fmt, tfx_map_port **out,
                        uint32_t *nout) {
  *out = NULL;
  *nout = 0;
  if (!n) return 0;
  tfx_map_port *v = r->ports;
  for (uint32_t i = 0; i < n; i++) {
    const char *f = r->b.n_fmts ? forced_format(&r->b, dir, v[i].tf_port) : NULL;
    v[i].format = f ? f : auto_fmt;
  }
  if (!(*out = tfx_om_node_ports(r, dir, v, n))) return -1;
  *nout = n;
  return 0;
}

static int ensure_scratch(om_run *r, uint32_t n) {
  if (n > r->cap_mark) {
    uint8_t *m = tfx_realloc(r->mark, n);
    if (!m) return tfx_om_oom(r);
    r->mark = m;
    r->cap_mark = n;
  }
  if (n > r->cap_pool) {
    uint32_t *p = tfx_realloc(r->pool, (size_t)n * sizeof *p);
    if (!p) return tfx_om_oom(r);
    r->pool = p;
    r->cap_pool = n;
  }
  if (n) memset(r->mark, 0, n);
  return 0;
}

/* Highest TF output port a data consumer reads + 1 (0: none). */
static uint32_t outputs_used(const tfx_graph *g, const tfx_node *nd) {
  uint32_t n = 0;
  for (uint32_t u = 0; u < nd->n_uses; u++) {
    const tfx_use *us = &nd->uses[u];
    if (us->node >= g->n_nodes || us->slot >= g->nodes[us->node].n_in) continue;
    const tfx_input *in = &g->nodes[us->node].in[us->slot];
    if (in->kind == TFX_IN_NODE && in->port >= 0 && (uint32_t)in->port + 1 > n) n = (uint32_t)in->port + 1;
  }
  return n;
}

/* CANN types whose input count ATC does not check (docs/ASCEND.md §6.6). */
static int count_exempt(const char *t) {
  return !strcmp(t, "Data") || !strcmp(t, "Variable") || !strcmp(t, "FrameworkOp") || !strcmp(t, "LayerNorm");
}

static int noop_like(const char *t) {
  return t && (!strcmp(t, "NoOp") || !strcmp(t, "ControlTrigger") || !strcmp(t, "_Retval"));
}

/* ---------------------------------------------------------------- attributes */

static int skip_auto_attr(const om_builder *b, const char *key) {
  if (key[0] == '_' || (key[0] == 'i' && !strcmp(key, "input_tensor_desc")) ||
      (key[0] == 'o' && !strcmp(key, "output_tensor_desc")))
    return 1;
  for (uint32_t i = 0; i < b->n_drops; i++)
    if (strcmp(b->drops[i], key) == 0) return 1;
  return 0;
}

/* auto: every TF attr (NodeDef order) except the skipped ones, an explicit `attr` of the same
 * name taking its place; then the other explicit attrs in statement order. */
static int finish_attrs(om_run *r, const tfx_node *nd, tfx_mapped_op *op) {
  om_builder *b = &r->b;
  size_t n_tf = b->auto_ && nd->def ? nd->def->n_attr : 0;
  size_t cap = n_tf + b->n_attrs;
  if (!cap) return 0;
  tfx_map_attr *v = tfx_arena_calloc(r->A, cap, sizeof *v);
  if (!v) return tfx_om_oom(r);
  uint32_t n = 0;
  for (uint32_t i = 0; i < b->n_attrs; i++) b->attrs[i].used = 0;
  for (size_t k = 0; k < n_tf; k++) {
    const Tensorflow__NodeDef__AttrEntry *e = nd->def->attr[k];
    if (!e || !e->key || !e->value || skip_auto_attr(b, e->key)) continue;
    tfx_map_attr *a = &v[n++];
    a->name = e->key;
    a->tf = e->value;
    for (uint32_t i = 0; i < b->n_attrs; i++)
      if (!b->attrs[i].dropped && !b->attrs[i].used && strcmp(b->attrs[i].name, e->key) == 0) {
        a->name = b->attrs[i].name;
        a->tf = NULL;
        a->v = b->attrs[i].v;
        b->attrs[i].used = 1;
        break;
      }
  }
  for (uint32_t i = 0; i < b->n_attrs; i++) {
    if (b->attrs[i].dropped || b->attrs[i].used) continue;
    v[n].name = b->attrs[i].name;
    v[n].v = b->attrs[i].v;
    n++;
  }
  op->attrs = n ? v : NULL;
  op->n_attrs = n;
  return 0;
}

/* ---------------------------------------------------------------- inputs */

/* mark[i]: 1 deleted, 2 claimed by an explicit statement, 0 in the sequential pool. */
static int finish_deleted(om_run *r, const tfx_node *nd, tfx_mapped_op *op, uint32_t *n_del) {
  uint32_t T = nd->n_data_in;
  *n_del = 0;
  for (uint32_t k = 0; k < r->b.n_dels; k++) {
    int64_t i = r->b.dels[k];
    if (i < 0) i += T;
    if (i < 0 || i >= (int64_t)T || r->mark[i]) continue;
    r->mark[i] = 1;
    (*n_del)++;
  }
  if (!*n_del) return 0;
  op->deleted = tfx_arena_alloc(r->A, (size_t)*n_del * sizeof *op->deleted);
  if (!op->deleted) return tfx_om_oom(r);
  for (uint32_t i = 0; i < T; i++)
    if (r->mark[i] == 1) op->deleted[op->n_deleted++] = (int32_t)i;
  return 0;
}

/* A scope-fusion result whose fused ports have a gap (`absent input N`, or index maps that feed
 * port 4 but not 3) lists its inputs in port order and says each one's port in
 * `_fusion_input_ports` (src/fusion/apply.c). Binding them in order would shift every input
 * after the gap onto the wrong port (DynamicRNN's init_h onto seq_length), so input i goes to
 * the prototype's input ports[i]; the ports no input names stay unfed. Maps that place ports
 * themselves (port or dynamic statements, deleted inputs) or prototypes with dynamic inputs
 * cannot be combined with that; the node fails instead of being bound by guess.
 * Returns 1 when the node has the attribute (bound or failed), 0 when not, -1 out of memory. */
static int bind_fused_ports(om_run *r, const tfx_node *nd, const tfx_cann_op *pr, tfx_mapped_op *op,
                            const Tensorflow__AttrValue *fp, uint32_t n_del, uint32_t *n_ports,
                            uint32_t *n_dyn) {
  if (!fp) return 0;
  const om_builder *b = &r->b;
  uint32_t T = nd->n_data_in;
  int has_dyn = 0;
  for (uint32_t k = 0; k < pr->n_in; k++) has_dyn |= pr->in[k].kind == TFX_CANN_DYN;
  if (fp->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST || !fp->list || fp->list->n_i != T)
    return param_invalid(r, op, "attribute '_fusion_input_ports' does not give one port per data "
                         "input (%u)", T) ? -1 : 1;
  if (has_dyn || n_del || b->n_ports || b->n_dyns)
    return param_invalid(r, op, "its fused input ports have gaps ('_fusion_input_ports'), which "
                         "cannot be bound together with %s", has_dyn ? "dynamic CANN inputs"
                         : "input statements or deleted inputs") ? -1 : 1;
  for (uint32_t i = 0; i < T; i++) {
    int64_t port = fp->list->i[i];
    int dup = 0;
    for (uint32_t j = 0; j < i; j++) dup |= fp->list->i[j] == port;
    if (port < 0 || port >= (int64_t)pr->n_in || dup)
      return param_invalid(r, op, "fused input %u goes to port %lld, which CANN type %s does not "
                           "have%s", i, (long long)port, pr->name, dup ? " twice" : "") ? -1 : 1;
  }
  uint32_t np = 0, missing = 0;
  for (uint32_t k = 0; k < pr->n_in; k++) {
    int32_t tf = -1;
    for (uint32_t i = 0; i < T && tf < 0; i++)
      if (fp->list->i[i] == (int64_t)k) tf = (int32_t)i;
    if (tf < 0 && pr->in[k].kind == TFX_CANN_REQ) missing++;
    if (push_port(r, &np, pr->in[k].name, tf, pr->in[k].kind, pr->in[k].name)) return -1;
  }
  if (missing && !count_exempt(pr->name))
    if (param_invalid(r, op, "%u required input%s of CANN type %s no fused port feeds", missing,
                      missing == 1 ? "" : "s", pr->name))
      return -1;
  *n_ports = np;
  *n_dyn = 0;
  return 1;
}

static int bind_inputs_proto(om_run *r, const tfx_node *nd, const tfx_cann_op *pr, tfx_mapped_op *op,
                             const Tensorflow__AttrValue *fp, uint32_t n_del, uint32_t *n_ports,
                             uint32_t *n_dyn) {
  const om_builder *b = &r->b;
  uint32_t T = nd->n_data_in, N = T - n_del;
  int fused = bind_fused_ports(r, nd, pr, op, fp, n_del, n_ports, n_dyn);
  if (fused) return fused < 0 ? -1 : 0;
  int too_few = 0;
  /* statements: known ports, explicit claims */
  for (uint32_t i = 0; i < b->n_ports; i++) {
    const om_port_stmt *ps = &b->ports[i];
    if (ps->dir) continue;
    if (tfx_cann_input(pr, ps->name) < 0) {
      if (param_invalid(r, op, "CANN type %s has no input '%s'", pr->name, ps->name)) return -1;
      continue;
    }
    if (!ps->connected) continue;
    if (ps->index >= T || r->mark[ps->index] == 1) too_few = 1; /* missing or deleted */
    else r->mark[ps->index] = 2;
  }
  /* an optional input switched off by its `when` although the node has that TF input (and no
   * other statement takes it): binding it to the next port in order would silently rewire the
   * node, so it is the node's error */
  for (uint32_t i = 0; i < b->n_ports; i++) {
    const om_port_stmt *ps = &b->ports[i];
    if (ps->dir || ps->connected || !ps->optional || ps->index < 0 || ps->index >= T ||
        r->mark[ps->index] != 0 || tfx_cann_input(pr, ps->name) < 0)
      continue;
    if (param_invalid(r, op, "optional input '%s' is not connected (its condition is false), but "
                      "the node has TF input %lld; map that input or delete it",
                      ps->name, (long long)ps->index))
      return -1;
  }
  for (uint32_t i = 0; i < b->n_dyns; i++) {
    if (b->dyns[i].dir) continue;
    int k = tfx_cann_input(pr, b->dyns[i].name);
    if (k < 0) {
      if (param_invalid(r, op, "CANN type %s has no input '%s'", pr->name, b->dyns[i].name)) return -1;
    } else if (pr->in[k].kind != TFX_CANN_DYN) {
      if (param_invalid(r, op, "input '%s' of CANN type %s is not dynamic", b->dyns[i].name, pr->name)) return -1;
    }
  }
  uint32_t pool_n = 0;
  for (uint32_t i = 0; i < T; i++)
    if (!r->mark[i]) r->pool[pool_n++] = i;
  /* reserved[i] = what ports after i take from the pool for sure; computed right to left */
  if (pr->n_in + 1 > r->cap_reserved) {
    uint64_t *v = tfx_realloc(r->reserved, ((size_t)pr->n_in + 1) * sizeof *v);
    if (!v) return tfx_om_oom(r);
    r->reserved = v;
    r->cap_reserved = pr->n_in + 1;
  }
  uint64_t *reserved = r->reserved;
  reserved[pr->n_in] = 0;
  for (uint32_t i = pr->n_in; i-- > 0;) {
    const tfx_cann_port *pp = &pr->in[i];
    uint64_t need = 0;
    if (!port_stmt(b, 0, pp->name)) {
      const om_dyn_stmt *ds = dyn_stmt(b, 0, pp->name);
      if (pp->kind == TFX_CANN_REQ) need = 1;
      else if (pp->kind == TFX_CANN_DYN && ds) need = (uint64_t)ds->count;
    }
    reserved[i] = reserved[i + 1] + need;
  }
  uint64_t M = 0;
  uint32_t cur = 0, np = 0, nd_ = 0;
  int rc = 0;
  for (uint32_t i = 0; i < pr->n_in && rc == 0; i++) {
    const tfx_cann_port *pp = &pr->in[i];
    const om_port_stmt *ps = port_stmt(b, 0, pp->name);
    uint64_t rem = pool_n - cur, after = reserved[i + 1];
    if (ps) {
      int fed = ps->connected && ps->index < T && r->mark[ps->index] == 2;
      M += pp->kind != TFX_CANN_OPT || fed;
      const char *name = pp->name;
      if (pp->kind == TFX_CANN_DYN) { /* one explicit input into a dynamic port: "<port>0" */
        if (!(name = numbered(r, pp->name, 0)) || push_dyn(r, &nd_, pp->name, 0, 1)) rc = -1;
      }
      if (!rc) rc = push_port(r, &np, name, fed ? (int32_t)ps->index : -1, pp->kind, pp->name);
      continue;
    }
    if (pp->kind == TFX_CANN_DYN) {
      const om_dyn_stmt *ds = dyn_stmt(b, 0, pp->name);
      uint64_t count = ds ? (uint64_t)ds->count : (rem > after ? rem - after : 0);
      M += count;
      for (uint64_t k = 0; k < count && rc == 0; k++) {
        const char *name = numbered(r, pp->name, k);
        int32_t tf = -1;
        if (cur < pool_n) tf = (int32_t)r->pool[cur++];
        else too_few = 1;
        rc = name ? push_port(r, &np, name, tf, TFX_CANN_DYN, pp->name) : -1;
      }
      if (!rc) rc = push_dyn(r, &nd_, pp->name, 0, (uint32_t)count);
    } else if (pp->kind == TFX_CANN_OPT) {
      int32_t tf = -1;
      if (rem > after) {
        tf = (int32_t)r->pool[cur++];
        M++;
      }
      rc = push_port(r, &np, pp->name, tf, TFX_CANN_OPT, pp->name);
    } else {
      int32_t tf = -1;
      M++;
      if (rem > 0) tf = (int32_t)r->pool[cur++];
      else too_few = 1;
      rc = push_port(r, &np, pp->name, tf, TFX_CANN_REQ, pp->name);
    }
  }
  if (rc) return -1;
  if ((too_few || cur < pool_n) && !count_exempt(pr->name))
    if (param_invalid(r, op, "input number of tensorflow[%u] should be equal to factory size[%llu]", N,
                      (unsigned long long)M))
      return -1;
  *n_ports = np;
  *n_dyn = nd_;
  return 0;
}

static int bind_inputs_plain(om_run *r, const tfx_node *nd, tfx_mapped_op *op, uint32_t *n_ports,
                             uint32_t *n_dyn) {
  const om_builder *b = &r->b;
  uint32_t T = nd->n_data_in, np = 0, nd_ = 0;
  for (uint32_t i = 0; i < b->n_ports; i++) {
    const om_port_stmt *ps = &b->ports[i];
    if (ps->dir || !ps->connected) continue;
    if (ps->index >= T || r->mark[ps->index] == 1) {
      if (param_invalid(r, op, "input '%s' = %lld, but the tensorflow node has %u data inputs%s",
                        ps->name, (long long)ps->index, T, ps->index < T ? " (that one is deleted)" : ""))
        return -1;
    }
  }
  for (uint32_t i = 0; i < T; i++) {
    if (r->mark[i] == 1) continue;
    const om_port_stmt *named = NULL;
    for (uint32_t k = b->n_ports; k-- > 0 && !named;)
      if (!b->ports[k].dir && b->ports[k].connected && b->ports[k].index == i) named = &b->ports[k];
    const char *name = named ? named->name : numbered(r, "x", np);
    if (!name || push_port(r, &np, name, (int32_t)i, named && named->optional ? TFX_CANN_OPT : TFX_CANN_REQ, name))
      return -1;
  }
  for (uint32_t i = 0; i < b->n_dyns; i++)
    if (!b->dyns[i].dir && push_dyn(r, &nd_, b->dyns[i].name, 0, (uint32_t)b->dyns[i].count)) return -1;
  *n_ports = np;
  *n_dyn = nd_;
  return 0;
}

/* ---------------------------------------------------------------- outputs */

/* Next TF output index at or after *cur that no `output NAME = N` statement claims. */
static int32_t next_out(const om_builder *b, int64_t *cur) {
  for (;;) {
    int claimed = 0;
    for (uint32_t i = 0; i < b->n_ports && !claimed; i++)
      claimed = b->ports[i].dir == 1 && b->ports[i].index == *cur;
    if (!claimed || *cur >= TFX_OPMAP_MAX_PORT) break;
    (*cur)++;
  }
  int64_t v = *cur;
  if (*cur < TFX_OPMAP_MAX_PORT) (*cur)++;
  return (int32_t)v;
}

static int bind_outputs(om_run *r, const tfx_node *nd, const tfx_cann_op *pr, tfx_mapped_op *op,
                        uint32_t *n_ports, uint32_t *n_dyn) {
  const om_builder *b = &r->b;
  uint32_t used = outputs_used(r->g, nd), np = 0, ndy = *n_dyn;
  int64_t cur = 0;
  if (used > (uint32_t)TFX_OPMAP_MAX_PORT + 1) { /* a consumer reads `x:2000000000` */
    if (param_invalid(r, op, "output %u of the tensorflow node is used; at most %d outputs are supported",
                      used - 1, TFX_OPMAP_MAX_PORT + 1))
      return -1;
    used = 0;
  }
  if (pr) {
    for (uint32_t i = 0; i < b->n_ports; i++)
      if (b->ports[i].dir == 1 && tfx_cann_output(pr, b->ports[i].name) < 0)
        if (param_invalid(r, op, "CANN type %s has no output '%s'", pr->name, b->ports[i].name)) return -1;
    for (uint32_t i = 0; i < b->n_dyns; i++)
      if (b->dyns[i].dir == 1 && tfx_cann_output(pr, b->dyns[i].name) < 0)
        if (param_invalid(r, op, "CANN type %s has no output '%s'", pr->name, b->dyns[i].name)) return -1;
    /* fixed = outputs every port but the uncounted dynamic ones provide */
    uint64_t fixed = 0;
    for (uint32_t i = 0; i < pr->n_out; i++) {
      const om_dyn_stmt *ds = dyn_stmt(b, 1, pr->out[i].name);
      if (port_stmt(b, 1, pr->out[i].name) || pr->out[i].kind != TFX_CANN_DYN) fixed++;
      else if (ds) fixed += (uint64_t)ds->count;
    }
    for (uint32_t i = 0; i < pr->n_out; i++) {
      const tfx_cann_port *pp = &pr->out[i];
      const om_port_stmt *ps = port_stmt(b, 1, pp->name);
      if (ps) {
        const char *name = pp->name;
        if (pp->kind == TFX_CANN_DYN && (!(name = numbered(r, pp->name, 0)) || push_dyn(r, &ndy, pp->name, 1, 1)))
          return -1;
        if (push_port(r, &np, name, (int32_t)ps->index, pp->kind, pp->name)) return -1;
        continue;
      }
      if (pp->kind == TFX_CANN_DYN) {
        const om_dyn_stmt *ds = dyn_stmt(b, 1, pp->name);
        uint64_t count = ds ? (uint64_t)ds->count : (used > fixed ? used - fixed : 0);
        if (!ds) fixed += count; /* a second uncounted dynamic output gets what is left: 0 */
        for (uint64_t k = 0; k < count; k++) {
          const char *name = numbered(r, pp->name, k);
          if (!name || push_port(r, &np, name, next_out(b, &cur), TFX_CANN_DYN, pp->name)) return -1;
        }
        if (push_dyn(r, &ndy, pp->name, 1, (uint32_t)count)) return -1;
      } else if (push_port(r, &np, pp->name, next_out(b, &cur), TFX_CANN_REQ, pp->name)) {
        return -1;
      }
    }
  } else {
    uint64_t n = used;
    for (uint32_t i = 0; i < b->n_ports; i++)
      if (b->ports[i].dir == 1 && (uint64_t)b->ports[i].index + 1 > n) n = (uint64_t)b->ports[i].index + 1;
    if (n == 0 && !noop_like(nd->op) && !noop_like(op->type)) n = 1;
    for (uint64_t k = 0; k < n; k++) {
      const om_port_stmt *named = NULL;
      for (uint32_t i = b->n_ports; i-- > 0 && !named;)
        if (b->ports[i].dir == 1 && b->ports[i].index == (int64_t)k) named = &b->ports[i];
      const char *name = named ? named->name : numbered(r, "y", k);
      if (!name || push_port(r, &np, name, (int32_t)k, TFX_CANN_REQ, name)) return -1;
    }
    for (uint32_t i = 0; i < b->n_dyns; i++)
      if (b->dyns[i].dir == 1 && push_dyn(r, &ndy, b->dyns[i].name, 1, (uint32_t)b->dyns[i].count)) return -1;
  }
  /* every TF output a consumer reads needs a CANN output bound to it */
  for (uint32_t u = 0; u < nd->n_uses && !op->cause; u++) {
    const tfx_use *us = &nd->uses[u];
    if (us->node >= r->g->n_nodes || us->slot >= r->g->nodes[us->node].n_in) continue;
    const tfx_input *in = &r->g->nodes[us->node].in[us->slot];
    if (in->kind != TFX_IN_NODE || in->port < 0) continue;
    int have = 0;
    for (uint32_t i = 0; i < np && !have; i++) have = r->ports[i].tf_port == in->port;
    if (!have && param_invalid(r, op, "output %d of the tensorflow node is used, but no output of CANN type %s is bound to it",
                               in->port, op->type))
      return -1;
  }
  *n_ports = np;
  *n_dyn = ndy;
  return 0;
}

/* ---------------------------------------------------------------- graph maps */

static int finish_graph(om_run *r, const tfx_node *nd, tfx_mapped_op *op) {
  om_builder *b = &r->b;
  op->inner = b->n_inner ? b->inner : NULL;
  op->n_inner = b->n_inner;
  op->outs = b->n_outs ? b->outs : NULL;
  op->n_outs = b->n_outs;
  if (!b->n_outs) return param_invalid(r, op, "the graph map gives the node no output (`out`)");
  tfx_hmap names;
  tfx_hmap_init(&names);
  int rc = 0;
  for (uint32_t i = 0; i < op->n_inner && rc == 0 && !op->cause; i++) {
    const char *nm = op->inner[i].name;
    int put = tfx_hmap_put(&names, nm, strlen(nm), i, NULL);
    if (put < 0) rc = tfx_om_oom(r);
    else if (put == 0) rc = param_invalid(r, op, "inner node name '%s' is not unique", nm);
  }
  for (uint32_t i = 0; i < op->n_inner && rc == 0 && !op->cause; i++) {
    const tfx_map_inner *in = &op->inner[i];
    for (uint32_t k = 0; k < in->n_in && rc == 0 && !op->cause; k++) {
      const tfx_map_inner_in *x = &in->in[k];
      if (x->cval) continue;
      if (x->src && tfx_hmap_get(&names, x->src, strlen(x->src)) == TFX_HASH_NONE)
        rc = param_invalid(r, op, "inner node '%s' reads unknown inner node '%s'", in->name, x->src);
      else if (!x->src && (uint32_t)x->port >= nd->n_data_in)
        rc = param_invalid(r, op, "inner node '%s' reads input %d, but the tensorflow node has %u data inputs",
                           in->name, x->port, nd->n_data_in);
    }
  }
  for (uint32_t i = 0; i < op->n_outs && rc == 0 && !op->cause; i++) {
    const tfx_map_graph_out *o = &op->outs[i];
    if (tfx_hmap_get(&names, o->node, strlen(o->node)) == TFX_HASH_NONE)
      rc = param_invalid(r, op, "out %d names unknown inner node '%s'", o->index, o->node);
    for (uint32_t k = 0; k < i && rc == 0 && !op->cause; k++)
      if (op->outs[k].index == o->index) rc = param_invalid(r, op, "out %d is given twice", o->index);
  }
  tfx_hmap_free(&names);
  /* every TF output a consumer reads needs an `out` */
  for (uint32_t u = 0; u < nd->n_uses && rc == 0 && !op->cause; u++) {
    const tfx_use *us = &nd->uses[u];
    if (us->node >= r->g->n_nodes || us->slot >= r->g->nodes[us->node].n_in) continue;
    const tfx_input *in = &r->g->nodes[us->node].in[us->slot];
    if (in->kind != TFX_IN_NODE || in->port < 0) continue;
    int have = 0;
    for (uint32_t i = 0; i < op->n_outs && !have; i++) have = op->outs[i].index == in->port;
    if (!have)
      rc = param_invalid(r, op, "output %d of the tensorflow node is used, but the graph map has no `out %d`",
                         in->port, in->port);
  }
  return rc;
}

/* ---------------------------------------------------------------- entry */

int tfx_om_finish(om_run *r, tfx_mapped_op *op) {
  const tfx_node *nd = &r->g->nodes[r->node];
  if (op->how == TFX_MAP_GRAPH) return finish_graph(r, nd, op);
  if (finish_attrs(r, nd, op)) return -1;
  uint32_t T = nd->n_data_in, n_del = 0, n_in = 0, n_out = 0, n_dyn = 0;
  if (ensure_scratch(r, T) || finish_deleted(r, nd, op, &n_del)) return -1;
  const tfx_cann_op *pr = op->proto;
  /* one walk over the node's attrs: AutoMapping formats (auto only) and fused input ports */
  const char *fin = "ND", *fout = "ND";
  const Tensorflow__AttrValue *fp = NULL;
  if (r->b.auto_) tfx_om_scan_attrs(nd, &fin, &fout, pr ? &fp : NULL);
  else if (pr) tfx_om_scan_attrs(nd, NULL, NULL, &fp);
  int rc = pr ? bind_inputs_proto(r, nd, pr, op, fp, n_del, &n_in, &n_dyn) : bind_inputs_plain(r, nd, op, &n_in, &n_dyn);
  if (rc) return -1;
  if (freeze_ports(r, n_in, 0, fin, &op->in, &op->n_in)) return -1;
  if (bind_outputs(r, nd, pr, op, &n_out, &n_dyn)) return -1;
  if (freeze_ports(r, n_out, 1, fout, &op->out, &op->n_out)) return -1;
  if (n_dyn) {
    op->dyn = tfx_arena_alloc(r->A, (size_t)n_dyn * sizeof *op->dyn);
    if (!op->dyn) return tfx_om_oom(r);
    memcpy(op->dyn, r->dyn, (size_t)n_dyn * sizeof *op->dyn);
    op->n_dyn = n_dyn;
  }
  return 0;
}
