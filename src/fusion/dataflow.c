/* Dataflow rewrite engine (see dataflow.h): the host of `rewrite` programs, one matching round
 * over a graph, and the GraphDef edits of the rewrites it takes.
 * Stage: fusion. Input: verified pack, module index, enable flags. Output: rewritten NodeDef
 * lists (new NodeDefs and input arrays in the model's arena) and report entries. */
#include "fusion/dataflow.h"

#include <stdlib.h>
#include <string.h>

#include "util/status.h"

/* ---------------------------------------------------------------- report */

void tfx_flow_report_init(tfx_flow_report *r) {
  memset(r, 0, sizeof *r);
  tfx_arena_init(&r->A);
}

void tfx_flow_report_free(tfx_flow_report *r) {
  free(r->v);
  tfx_arena_free(&r->A);
  memset(r, 0, sizeof *r);
  tfx_arena_init(&r->A);
}

/* A copy of s in the report: packed one after another into 64 KiB blocks of its arena (an
 * arena string each was rounded up to 16 bytes, and the report holds ~200 000 names at 10^6
 * nodes). NULL when out of memory. */
static const char *rep_str(tfx_flow_report *r, const char *s) {
  size_t n = strlen(s) + 1;
  if (n > r->pool_left) {
    size_t blk = n > 65536 ? n : 65536;
    char *b = tfx_arena_alloc(&r->A, blk);
    if (!b) return NULL;
    r->pool = b;
    r->pool_left = blk;
  }
  char *c = r->pool;
  memcpy(c, s, n);
  r->pool += n;
  r->pool_left -= n;
  return c;
}

static void json_strs(tfx_strbuf *b, const char *const *v, uint32_t n) {
  tfx_sb_putc(b, '[');
  for (uint32_t i = 0; i < n; i++) {
    if (i) tfx_sb_puts(b, ", ");
    tfx_sb_json_str(b, v[i], strlen(v[i]));
  }
  tfx_sb_putc(b, ']');
}

int tfx_flow_report_json(const tfx_flow_report *r, tfx_strbuf *b) {
  tfx_sb_printf(b, "{\n  \"rounds\": %u,\n  \"candidates\": %u,\n  \"screened\": %u,\n  \"rejected\": %u,\n  \"capped\": %s,\n  \"applied\": [",
                r->rounds, r->candidates, r->screened, r->rejected, r->capped ? "true" : "false");
  for (uint32_t i = 0; i < r->n; i++) {
    const tfx_flow_applied *a = &r->v[i];
    tfx_sb_puts(b, i ? ",\n    {\"rule\": " : "\n    {\"rule\": ");
    tfx_sb_json_str(b, a->rule, strlen(a->rule));
    tfx_sb_puts(b, ", \"graph\": ");
    tfx_sb_json_str(b, a->graph, strlen(a->graph));
    tfx_sb_printf(b, ", \"round\": %u, \"root\": ", a->round);
    tfx_sb_json_str(b, a->root, strlen(a->root));
    tfx_sb_puts(b, ", \"matched\": ");
    json_strs(b, a->removed, a->n_removed);
    tfx_sb_puts(b, ", \"dropped\": ");
    json_strs(b, a->dropped, a->n_dropped);
    tfx_sb_puts(b, ", \"replacement\": [");
    for (uint32_t k = 0; k < a->n_created; k++) {
      tfx_sb_puts(b, k ? ", {\"name\": " : "{\"name\": ");
      tfx_sb_json_str(b, a->created[k], strlen(a->created[k]));
      tfx_sb_puts(b, ", \"type\": ");
      tfx_sb_json_str(b, a->created_types[k], strlen(a->created_types[k]));
      tfx_sb_putc(b, '}');
    }
    tfx_sb_puts(b, "]}");
  }
  tfx_sb_puts(b, r->n ? "\n  ]\n}" : "]\n}");
  return b->oom ? -1 : 0;
}

/* ---------------------------------------------------------------- engine */

/* The index: key "T" (root type T, rules without a second level) or "T\x1fC" (root type T
 * reading a matched node of type C: `from` is the root types, "", the child types). */
static uint32_t key_slot(tfx_flow_engine *e, const char *a, size_t an, const char *b, size_t bn, int add) {
  char buf[512];
  size_t n = an + (b ? 1 + bn : 0);
  if (n > sizeof buf) return TFX_HASH_NONE;
  memcpy(buf, a, an);
  if (b) {
    buf[an] = '\x1f';
    memcpy(buf + an + 1, b, bn);
  }
  uint32_t slot = tfx_hmap_get(&e->by_type, buf, n);
  if (slot == TFX_HASH_NONE && add) {
    slot = e->n_types;
    char *key = tfx_arena_strndup(&e->keys, buf, n);
    if (!key || tfx_hmap_put(&e->by_type, key, n, slot, NULL) < 0) return TFX_HASH_NONE - 1;
    e->n_types++;
  }
  return slot;
}

/* The parts of a rewrite's `from` list (compile_flow.c): root types [0, nr), then "" and the
 * child types [c0, c0 + nc), then the signature string (NULL when the pack has none). */
static void from_parts(const tfx_value *l, uint32_t *nr, uint32_t *c0, uint32_t *nc, const tfx_value **sig) {
  uint32_t i = 0;
  while (i < l->n && l->u.items[i].n) i++;
  *nr = i;
  *c0 = i < l->n ? i + 1 : i;
  *sig = NULL;
  uint32_t j = *c0;
  while (j < l->n && !(l->u.items[j].n >= 4 && !memcmp(l->u.items[j].u.s, "#sig", 4))) j++;
  *nc = j - *c0;
  if (j < l->n) *sig = &l->u.items[j];
}

tfx_status tfx_flow_engine_init(tfx_flow_engine *e, const tfx_pack *p, const uint8_t *on,
                                int *any, tfx_diag *d) {
  memset(e, 0, sizeof *e);
  tfx_hmap_init(&e->by_type);
  tfx_hmap_init(&e->roots);
  tfx_arena_init(&e->keys);
  e->pack = p;
  e->on = on;
  *any = 0;
  uint32_t n_pairs = 0;
  for (uint32_t r = 0; r < p->n_rules; r++)
    if (p->rules[r].kind == TFX_RULE_FLOW && (!on || on[r]) && p->rules[r].from < p->n_consts) {
      uint32_t nr, c0, nc;
      const tfx_value *sig;
      from_parts(&p->consts[p->rules[r].from], &nr, &c0, &nc, &sig);
      n_pairs += nr * (nc ? nc : 1);
    }
  uint32_t *pt = tfx_malloc(((size_t)n_pairs + 1) * sizeof *pt), *pr = tfx_malloc(((size_t)n_pairs + 1) * sizeof *pr);
  e->rules = tfx_malloc(((size_t)n_pairs + 1) * sizeof *e->rules);
  e->first = tfx_calloc((size_t)n_pairs + 1, sizeof *e->first);
  e->count = tfx_calloc((size_t)n_pairs + 1, sizeof *e->count);
  e->vm = tfx_vm_new(p);
  e->sig = tfx_calloc(p->n_rules ? p->n_rules : 1, sizeof *e->sig);
  if (!pt || !pr || !e->rules || !e->first || !e->count || !e->vm || !e->sig) goto nomem;
  uint32_t k = 0;
  for (uint32_t r = 0; r < p->n_rules; r++) {
    if (p->rules[r].kind != TFX_RULE_FLOW || (on && !on[r]) || p->rules[r].from >= p->n_consts) continue;
    *any = 1;
    const tfx_value *l = &p->consts[p->rules[r].from];
    uint32_t nr, c0, nc;
    const tfx_value *sig;
    from_parts(l, &nr, &c0, &nc, &sig);
    if (sig && p->sigs_trusted) { /* a loaded pack's signatures are not checked (pack.h) */
      e->sig[r] = tfx_flow_sig_parse(p, sig->u.s, sig->n, &e->keys);
      if (e->sig[r] && tfx_flow_sig_scratch(&e->ws, e->sig[r])) goto nomem;
    }
    for (uint32_t i = 0; i < nr; i++) {
      const tfx_value *rt = &l->u.items[i];
      if (tfx_hmap_put(&e->roots, rt->u.s, rt->n, 1, NULL) < 0) goto nomem;
      for (uint32_t j = c0; j < c0 + nc || j == c0; j++) { /* one pair per child type, or one */
        const tfx_value *ct = j < c0 + nc ? &l->u.items[j] : NULL;
        uint32_t slot = key_slot(e, rt->u.s, rt->n, ct ? ct->u.s : NULL, ct ? ct->n : 0, 1);
        if (slot == TFX_HASH_NONE - 1) goto nomem;
        if (slot == TFX_HASH_NONE) continue; /* an absurdly long type name: never matches */
        pt[k] = slot;
        pr[k++] = r;
        e->count[slot]++;
        if (!ct) break;
      }
    }
  }
  for (uint32_t s2 = 1; s2 < e->n_types; s2++) e->first[s2] = e->first[s2 - 1] + e->count[s2 - 1];
  uint32_t *fill = tfx_calloc((size_t)e->n_types + 1, sizeof *fill);
  if (!fill) goto nomem;
  for (uint32_t i = 0; i < k; i++) e->rules[e->first[pt[i]] + fill[pt[i]]++] = pr[i];
  free(fill);
  e->n_rules = k;
  free(pt);
  free(pr);
  return 0;
nomem:
  free(pt);
  free(pr);
  tfx_flow_engine_free(e);
  tfx_error(d, NULL, 0, 0, "out of memory (dataflow rewrites)");
  return TFX_E_NOMEM;
}

void tfx_flow_engine_free(tfx_flow_engine *e) {
  if (e->vm) tfx_vm_free(e->vm);
  tfx_hmap_free(&e->by_type);
  tfx_hmap_free(&e->roots);
  tfx_arena_free(&e->keys);
  free(e->first);
  free(e->count);
  free(e->rules);
  free(e->sig);
  tfx_flow_sig_ws_free(&e->ws);
  memset(e, 0, sizeof *e);
}

/* ---------------------------------------------------------------- host */

typedef struct fin {
  uint32_t node;     /* capture: matched node ... */
  int64_t slot;      /* ... and its data input; or, with src: */
  const char *src;   /* a new node's name (NULL: a capture, or cval) */
  int64_t port;
  const tfx_value *cval; /* a `const` input: a new Const node holds it (node TFX_NO_ID) */
  const char *cname;     /* apply: that Const node's name */
} fin;

typedef struct fattr {
  const char *name;
  tfx_value v;
} fattr;

typedef struct fnew {
  const char *name, *type;
  fin *in;
  uint32_t n_in, cap_in;
  fattr *at;
  uint32_t n_at, cap_at;
  const char *final; /* its name in the graph (apply) */
} fnew;

typedef struct fout {
  uint32_t node;
  int64_t port;
  const char *tname; /* new node, or NULL: what input tport of matched node tnode reads */
  uint32_t tnode;
  int64_t tport;
} fout;

typedef struct frun {
  uint32_t rule, root;
  fnew *nw;
  uint32_t n_new, cap_new;
  fout *out;
  uint32_t n_out, cap_out;
  uint32_t *rm;
  uint32_t n_rm;
  uint32_t n_const;  /* `const` inputs of the new nodes (each becomes a Const node) */
  int taker;         /* index of the new node that replaces the root's output 0, or -1 */
} frun;

typedef struct fhost {
  tfx_arena *A;      /* round scratch */
  const tfx_graph *g;
  frun cur;
  int oom;
  const char *err;   /* a host failure's reason */
} fhost;

static void *agrow(fhost *h, void *p, uint32_t n, uint32_t *cap, size_t size) {
  if (n < *cap) return p;
  uint32_t nc = *cap ? *cap * 2 : 4;
  void *q = tfx_arena_calloc(h->A, nc, size);
  if (!q) {
    h->oom = 1;
    return NULL;
  }
  if (n) memcpy(q, p, (size_t)n * size);
  *cap = nc;
  return q;
}

static const char *hdup(fhost *h, const char *s, size_t n) {
  char *c = tfx_arena_strndup(h->A, s, n);
  if (!c) h->oom = 1;
  return c;
}

static int copy_value(fhost *h, const tfx_value *in, tfx_value *out, unsigned depth) {
  if (depth > TFX_V_MAX_DEPTH) return -1;
  switch (in->tag) {
    case TFX_V_STR: {
      const char *s = hdup(h, in->u.s, in->n);
      if (!s) return -1;
      *out = tfx_v_str(s, in->n);
      return 0;
    }
    case TFX_V_NODE: {
      const char *nm = in->u.id < h->g->n_nodes ? h->g->nodes[in->u.id].name : "";
      const char *s = hdup(h, nm, strlen(nm));
      if (!s) return -1;
      *out = tfx_v_str(s, (uint32_t)strlen(s));
      return 0;
    }
    case TFX_V_LIST: {
      tfx_value *items = NULL;
      if (in->n) {
        items = tfx_arena_calloc(h->A, in->n, sizeof *items);
        if (!items) {
          h->oom = 1;
          return -1;
        }
        for (uint32_t i = 0; i < in->n; i++)
          if (copy_value(h, &in->u.items[i], &items[i], depth + 1)) return -1;
      }
      *out = tfx_v_list(items, in->n);
      return 0;
    }
    default: *out = *in; return 0;
  }
}

static fnew *newest(fhost *h, const char *what) {
  if (!h->cur.n_new) {
    h->err = what;
    return NULL;
  }
  return &h->cur.nw[h->cur.n_new - 1];
}

/* A host callback's failure: TFX_E_NOMEM when an allocation failed (the VM then adds nothing;
 * the round reports it), else -1 (the VM names the instruction, the round gives h->err). */
static int hfail(const fhost *h) { return h->oom ? TFX_E_NOMEM : -1; }

static int h_node_new(void *ctx, const char *name, size_t nlen, const char *type, size_t tlen) {
  fhost *h = ctx;
  frun *r = &h->cur;
  fnew *v = agrow(h, r->nw, r->n_new, &r->cap_new, sizeof *r->nw);
  if (!v) return hfail(h);
  r->nw = v;
  fnew *n = &r->nw[r->n_new];
  memset(n, 0, sizeof *n);
  n->name = hdup(h, name, nlen);
  n->type = hdup(h, type, tlen);
  if (h->oom) return hfail(h);
  r->n_new++;
  return 0;
}

static int add_in(fhost *h, fin x) {
  fnew *n = newest(h, "an input before the first new node");
  if (!n) return hfail(h);
  fin *v = agrow(h, n->in, n->n_in, &n->cap_in, sizeof *n->in);
  if (!v) return hfail(h);
  n->in = v;
  n->in[n->n_in++] = x;
  return 0;
}

static int h_node_input(void *ctx, const char *src, size_t slen, int64_t port) {
  fhost *h = ctx;
  if (!src) {
    h->err = "'in N' has no meaning in a rewrite";
    return hfail(h);
  }
  fin x = {TFX_NO_ID, 0, hdup(h, src, slen), port, NULL, NULL};
  if (h->oom) return hfail(h);
  return add_in(h, x);
}

static int h_node_attr(void *ctx, const char *name, const tfx_value *v) {
  fhost *h = ctx;
  fnew *n = newest(h, "an attribute before the first new node");
  if (!n) return hfail(h);
  fattr *a = agrow(h, n->at, n->n_at, &n->cap_at, sizeof *n->at);
  if (!a) return hfail(h);
  n->at = a;
  fattr *x = &n->at[n->n_at];
  x->name = hdup(h, name, strlen(name));
  if (h->oom || copy_value(h, v, &x->v, 0)) return hfail(h);
  n->n_at++;
  return 0;
}

/* A `const` input: a scalar or a flat list of numbers, bools or strings (sema checks the
 * literal; a template argument could still be anything, so it is checked again here). */
static int h_node_const(void *ctx, const tfx_value *v) {
  fhost *h = ctx;
  const tfx_value *items = v->tag == TFX_V_LIST ? v->u.items : v;
  uint32_t n = v->tag == TFX_V_LIST ? v->n : 1;
  int kind = -1;
  for (uint32_t i = 0; i < n; i++) {
    int t = items[i].tag == TFX_V_FLOAT ? TFX_V_INT : items[i].tag;
    if ((t != TFX_V_INT && t != TFX_V_BOOL && t != TFX_V_STR) || (kind >= 0 && t != kind)) {
      h->err = "a 'const' input is a number, bool or string, or a list of one kind of them";
      return hfail(h);
    }
    kind = t;
  }
  tfx_value *cv = tfx_arena_alloc(h->A, sizeof *cv);
  if (!cv) {
    h->oom = 1;
    return hfail(h);
  }
  if (copy_value(h, v, cv, 0)) return hfail(h);
  fin x = {TFX_NO_ID, 0, NULL, 0, cv, NULL};
  if (add_in(h, x)) return hfail(h);
  h->cur.n_const++;
  return 0;
}

static int h_flow_input(void *ctx, uint32_t node, int64_t slot) {
  fhost *h = ctx;
  if (node >= h->g->n_nodes || slot < 0 || slot >= (int64_t)h->g->nodes[node].n_data_in) {
    h->err = "a capture names no data input";
    return hfail(h);
  }
  fin x = {node, slot, NULL, 0, NULL, NULL};
  return add_in(h, x);
}

static int h_flow_out(void *ctx, uint32_t node, int64_t port, const char *tname, size_t tlen,
                      uint32_t tnode, int64_t tport) {
  fhost *h = ctx;
  frun *r = &h->cur;
  if (node >= h->g->n_nodes || port < 0 || tport < 0 ||
      (!tname && (tnode >= h->g->n_nodes || tport >= (int64_t)h->g->nodes[tnode].n_data_in))) {
    h->err = "a rewired output or its new source does not exist";
    return hfail(h);
  }
  fout *v = agrow(h, r->out, r->n_out, &r->cap_out, sizeof *r->out);
  if (!v) return hfail(h);
  r->out = v;
  fout o = {node, port, tname ? hdup(h, tname, tlen) : NULL, tnode, tport};
  if (h->oom) return hfail(h);
  r->out[r->n_out++] = o;
  return 0;
}

static int h_flow_remove(void *ctx, const uint32_t *nodes, size_t n) {
  fhost *h = ctx;
  uint32_t *v = tfx_arena_calloc(h->A, n ? n : 1, sizeof *v);
  if (!v) {
    h->oom = 1;
    return hfail(h);
  }
  /* distinct ids, first occurrence order (a node matched twice is removed once) */
  uint32_t k = 0;
  for (size_t i = 0; i < n; i++) {
    int dup = 0;
    for (uint32_t j = 0; j < k && !dup; j++) dup = v[j] == nodes[i];
    if (!dup) v[k++] = nodes[i];
  }
  h->cur.rm = v;
  h->cur.n_rm = k;
  return 0;
}

static const tfx_vm_host flow_host = {
    .node_new = h_node_new,
    .node_input = h_node_input,
    .node_attr = h_node_attr,
    .node_const = h_node_const,
    .flow_input = h_flow_input,
    .flow_out = h_flow_out,
    .flow_remove = h_flow_remove,
};

/* ---------------------------------------------------------------- one round */

enum { ST_FREE = 0, ST_REMOVED = 1, ST_PINNED = 2 };

typedef struct round_st {
  const tfx_graph *g;
  uint8_t *st;       /* per node */
  uint32_t *mark;    /* per node: stamp of the rewrite being checked */
  uint32_t stamp;
} round_st;

static const fout *find_out(const frun *r, uint32_t node, int64_t port) {
  for (uint32_t i = 0; i < r->n_out; i++)
    if (r->out[i].node == node && r->out[i].port == port) return &r->out[i];
  return NULL;
}

/* The producer node of data input slot of node (TFX_NO_ID: an argument). */
static uint32_t producer(const tfx_graph *g, uint32_t node, int64_t slot) {
  const tfx_input *in = &g->nodes[node].in[slot];
  return in->kind == TFX_IN_NODE ? in->src : TFX_NO_ID;
}

static int reads_ok(round_st *rs, uint32_t node, int64_t slot) {
  uint32_t p = producer(rs->g, node, slot);
  return p == TFX_NO_ID || (rs->st[p] != ST_REMOVED && rs->mark[p] != rs->stamp);
}

/* Is the run's rewrite complete and disjoint from the round's earlier ones? */
static int acceptable(round_st *rs, frun *r) {
  const tfx_graph *g = rs->g;
  if (!r->n_rm) return 0;
  rs->stamp++;
  for (uint32_t i = 0; i < r->n_rm; i++) {
    if (r->rm[i] >= g->n_nodes || rs->st[r->rm[i]] != ST_FREE) return 0;
    rs->mark[r->rm[i]] = rs->stamp;
  }
  if (rs->mark[r->root] != rs->stamp) return 0; /* the root is always matched */
  r->taker = -1;
  const fout *ro = find_out(r, r->root, 0);
  if (ro && ro->tname)
    for (uint32_t k = 0; k < r->n_new; k++)
      if (!strcmp(r->nw[k].name, ro->tname)) r->taker = (int)k;
  for (uint32_t k = 0; k < r->n_new; k++) {
    for (uint32_t j = 0; j < r->nw[k].n_in; j++) {
      const fin *x = &r->nw[k].in[j];
      if (x->cval) continue;
      if (!x->src && !reads_ok(rs, x->node, x->slot)) return 0;
      if (x->src) { /* an earlier new node of this rewrite */
        int found = 0;
        for (uint32_t q = 0; q < k && !found; q++) found = !strcmp(r->nw[q].name, x->src);
        if (!found) return 0;
      }
    }
  }
  for (uint32_t i = 0; i < r->n_out; i++) {
    const fout *o = &r->out[i];
    if (rs->mark[o->node] != rs->stamp) return 0; /* rewires only removed nodes */
    if (!o->tname && !reads_ok(rs, o->tnode, o->tport)) return 0;
    if (o->tname) {
      int found = 0;
      for (uint32_t q = 0; q < r->n_new && !found; q++) found = !strcmp(r->nw[q].name, o->tname);
      if (!found) return 0;
    }
  }
  for (uint32_t i = 0; i < r->n_rm; i++) {
    const tfx_node *n = &g->nodes[r->rm[i]];
    if (n->n_uses == 0 && !(r->rm[i] == r->root && r->taker >= 0)) return 0; /* a graph output */
    if (n->n_in > n->n_data_in && !r->n_new) return 0; /* control inputs need a new node */
    for (uint32_t k = n->n_data_in; k < n->n_in; k++) /* ... and their sources must stay */
      if (n->in[k].kind == TFX_IN_NODE && n->in[k].src < g->n_nodes && rs->mark[n->in[k].src] != rs->stamp &&
          rs->st[n->in[k].src] == ST_REMOVED)
        return 0;
    for (uint32_t u = 0; u < n->n_uses; u++) {
      uint32_t c = n->uses[u].node;
      if (rs->mark[c] == rs->stamp || rs->st[c] == ST_REMOVED) continue;
      int32_t port = g->nodes[c].in[n->uses[u].slot].port;
      if (port < 0) {
        if (!r->n_new) return 0;
      } else if (!find_out(r, r->rm[i], port)) {
        return 0;
      }
    }
  }
  if (g->func) /* a control return names a node by name: a removed one would dangle */
    for (size_t i = 0; i < g->func->n_control_ret; i++) {
      const char *v = g->func->control_ret[i] ? g->func->control_ret[i]->value : NULL;
      uint32_t id = v ? tfx_graph_find(g, v) : TFX_NO_ID;
      if (id < g->n_nodes && rs->mark[id] == rs->stamp) return 0;
    }
  if (g->func) { /* function returns reading a removed node need an `out` */
    for (size_t i = 0; i < g->func->n_ret; i++) {
      const char *v = g->func->ret[i]->value, *nm, *oa;
      size_t nl, ol;
      int32_t port;
      if (!v || tfx_parse_func_input(v, &nm, &nl, &oa, &ol, &port) || port < 0) continue;
      for (uint32_t k = 0; k < r->n_rm; k++) {
        const char *rn = g->nodes[r->rm[k]].name;
        if (strlen(rn) == nl && !memcmp(rn, nm, nl) && !find_out(r, r->rm[k], port)) return 0;
      }
    }
  }
  return 1;
}

/* ---- GraphDef edits ---- */

typedef struct edit {
  tfx_arena *A;
  tfx_diag *d;
  const tfx_graph *g;
  int oom;
  const char *(*out_arg)(const char *type);
  const char *const *keep;
  uint32_t n_keep;
  tfx_flow_change *change; /* what the round changed (NULL: not recorded) */
  const tfx_intern *ops;   /* the module's op types (g's op ids) */
  uint8_t *sef;            /* per op id: 0 not known yet, 1 side effects, 2 side-effect free */
  int drop_by_name;        /* drop_dead reads every reader's input strings (tests) */
  const char *opv[16];     /* the op types of the round's new NodeDefs, one model-arena copy each */
  uint32_t n_opv;
  tfx_arena *S;            /* the round's scratch (the resolved inputs of the change record) */
} edit;

/* The concatenation of parts[0..n), n <= 8 (NULL parts are skipped), in the model's arena; NULL and
 * e->oom when out of memory. Names are built this way, not with snprintf: a rewrite makes
 * several per new node, and vsnprintf was 7% of the pass at 10^5 nodes. */
static char *ejoin(edit *e, const char *const *parts, size_t n) {
  size_t len[8], total = 0;
  if (n > 8) n = 8;
  for (size_t i = 0; i < n; i++) total += len[i] = parts[i] ? strlen(parts[i]) : 0;
  char *s = tfx_arena_alloc(e->A, total + 1);
  if (!s) {
    e->oom = 1;
    return NULL;
  }
  char *w = s;
  for (size_t i = 0; i < n; i++) {
    if (len[i]) memcpy(w, parts[i], len[i]);
    w += len[i];
  }
  *w = 0;
  return s;
}

/* Decimal digits of v (with a '-' when negative) into buf (at least 21 bytes); returns buf. */
static char *dec(char *buf, long long v) {
  char tmp[24];
  unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  size_t n = 0;
  do tmp[n++] = (char)('0' + u % 10); while ((u /= 10) != 0);
  size_t k = 0;
  if (v < 0) buf[k++] = '-';
  while (n) buf[k++] = tmp[--n];
  buf[k] = 0;
  return buf;
}

static char *edup(edit *e, const char *s) {
  char *c = tfx_arena_strdup(e->A, s);
  if (!c) e->oom = 1;
  return c;
}

/* The op type of a new NodeDef: one copy per type and round in the model's arena, shared by
 * the round's NodeDefs of that type (read-only from here on; a copy each was 36 828 copies of
 * "MatMul" in round 1 at 10^6 nodes). */
static char *op_copy(edit *e, const char *type) {
  for (uint32_t i = 0; i < e->n_opv; i++)
    if (!strcmp(e->opv[i], type)) return (char *)e->opv[i];
  char *c = edup(e, type);
  if (c && e->n_opv < sizeof e->opv / sizeof *e->opv) e->opv[e->n_opv++] = c;
  return c;
}

/* Reference to output q of new node `name` of type `type`. */
static char *new_ref(edit *e, const char *name, const char *type, int64_t q) {
  const char *arg = e->g->func && e->out_arg && type ? e->out_arg(type) : NULL;
  char num[24];
  dec(num, (long long)q);
  if (e->g->func) {
    const char *p[] = {name, ":", arg ? arg : "output", ":", num};
    return ejoin(e, p, 5);
  }
  if (q == 0) return edup(e, name);
  const char *p[] = {name, ":", num};
  return ejoin(e, p, 3);
}

/* An attribute entry and its value, allocated together. */
typedef struct attr_cell {
  Tensorflow__NodeDef__AttrEntry en;
  Tensorflow__AttrValue val;
} attr_cell;

/* Room for cap attributes on a new NodeDef (add_attr appends without copying the array while
 * n_attr < *room; it grew by one entry per attribute before, a copy each time). */
static int attr_room(edit *e, Tensorflow__NodeDef *nd, size_t cap, size_t *room) {
  nd->attr = tfx_arena_calloc(e->A, cap ? cap : 1, sizeof *nd->attr);
  if (!nd->attr) return e->oom = 1, -1;
  nd->n_attr = 0;
  *room = cap;
  return 0;
}

/* The value of attribute key of nd, a fresh one (an existing entry of that key gets a new
 * value). room: the capacity of nd->attr (attr_room), or NULL: unknown (the array is copied).
 * key_static: key lives as long as the model (a literal, or the model's arena): not copied. */
static Tensorflow__AttrValue *add_attr(edit *e, Tensorflow__NodeDef *nd, const char *key, size_t *room,
                                       int key_static) {
  for (size_t i = 0; i < nd->n_attr; i++)
    if (strcmp(nd->attr[i]->key, key) == 0) {
      Tensorflow__AttrValue *val = tfx_arena_alloc(e->A, sizeof *val);
      if (!val) {
        e->oom = 1;
        return NULL;
      }
      tensorflow__attr_value__init(val);
      nd->attr[i]->value = val;
      return val;
    }
  if (!room || nd->n_attr >= *room) {
    size_t cap = room && *room ? *room * 2 : nd->n_attr + 1;
    Tensorflow__NodeDef__AttrEntry **v = tfx_arena_calloc(e->A, cap, sizeof *v);
    if (!v) return e->oom = 1, NULL;
    if (nd->n_attr) memcpy(v, nd->attr, nd->n_attr * sizeof *v);
    nd->attr = v;
    if (room) *room = cap;
  }
  attr_cell *c = tfx_arena_alloc(e->A, sizeof *c);
  char *k = key_static ? (char *)key : tfx_arena_strdup(e->A, key);
  if (!c || !k) {
    e->oom = 1;
    return NULL;
  }
  tensorflow__node_def__attr_entry__init(&c->en);
  tensorflow__attr_value__init(&c->val);
  c->en.key = k;
  c->en.value = &c->val;
  nd->attr[nd->n_attr++] = &c->en;
  return &c->val;
}

/* Sets attribute key from a rule value; 1 when the value has no AttrValue form. room: as
 * add_attr. lasting: the key and the value's strings live as long as the model (literals, the
 * model's arena): borrowed, not copied; else (a program run's values die with the round)
 * copied. */
static int set_attr(edit *e, Tensorflow__NodeDef *nd, const char *key, const tfx_value *x, size_t *room,
                    int lasting) {
  if (x->tag == TFX_V_NONE) return 0;
  if (x->tag == TFX_V_LIST) {
    int kind = x->n ? x->u.items[0].tag : TFX_V_INT;
    for (uint32_t i = 0; i < x->n; i++) {
      int t = x->u.items[i].tag;
      if (t == TFX_V_INT && kind == TFX_V_FLOAT) t = TFX_V_FLOAT;
      if (t == TFX_V_FLOAT && kind == TFX_V_INT) kind = TFX_V_FLOAT;
      if (t != kind || (t != TFX_V_INT && t != TFX_V_FLOAT && t != TFX_V_BOOL && t != TFX_V_STR && t != TFX_V_DTYPE))
        return 1;
    }
    Tensorflow__AttrValue *v = add_attr(e, nd, key, room, lasting);
    Tensorflow__AttrValue__ListValue *l = tfx_arena_alloc(e->A, sizeof *l);
    if (!v || !l) return e->oom = 1, -1;
    tensorflow__attr_value__list_value__init(l);
    size_t n = x->n;
    if (kind == TFX_V_INT) {
      if (!(l->i = tfx_arena_calloc(e->A, n ? n : 1, sizeof *l->i))) return e->oom = 1, -1;
      for (size_t i = 0; i < n; i++) l->i[i] = x->u.items[i].u.i;
      l->n_i = n;
    } else if (kind == TFX_V_FLOAT) {
      if (!(l->f = tfx_arena_calloc(e->A, n ? n : 1, sizeof *l->f))) return e->oom = 1, -1;
      for (size_t i = 0; i < n; i++)
        l->f[i] = (float)(x->u.items[i].tag == TFX_V_INT ? (double)x->u.items[i].u.i : x->u.items[i].u.f);
      l->n_f = n;
    } else if (kind == TFX_V_DTYPE) {
      if (!(l->type = tfx_arena_calloc(e->A, n ? n : 1, sizeof *l->type))) return e->oom = 1, -1;
      for (size_t i = 0; i < n; i++) l->type[i] = (Tensorflow__DataType)x->u.items[i].u.i;
      l->n_type = n;
    } else if (kind == TFX_V_BOOL) {
      if (!(l->b = tfx_arena_calloc(e->A, n ? n : 1, sizeof *l->b))) return e->oom = 1, -1;
      for (size_t i = 0; i < n; i++) l->b[i] = x->u.items[i].u.i != 0;
      l->n_b = n;
    } else {
      if (!(l->s = tfx_arena_calloc(e->A, n ? n : 1, sizeof *l->s))) return e->oom = 1, -1;
      for (size_t i = 0; i < n; i++) { /* copied: the run's values die with the round */
        char *c = lasting ? (char *)x->u.items[i].u.s : tfx_arena_strndup(e->A, x->u.items[i].u.s, x->u.items[i].n);
        if (!c) return e->oom = 1, -1;
        l->s[i].data = (uint8_t *)c;
        l->s[i].len = x->u.items[i].n;
      }
      l->n_s = n;
    }
    v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
    v->list = l;
    return 0;
  }
  if (x->tag != TFX_V_STR && x->tag != TFX_V_BOOL && x->tag != TFX_V_INT && x->tag != TFX_V_FLOAT &&
      x->tag != TFX_V_DTYPE)
    return 1;
  Tensorflow__AttrValue *v = add_attr(e, nd, key, room, lasting);
  if (!v) return -1;
  switch (x->tag) {
    case TFX_V_STR: {
      char *c = lasting ? (char *)x->u.s : tfx_arena_strndup(e->A, x->u.s, x->n);
      if (!c) return e->oom = 1, -1;
      v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
      v->s.data = (uint8_t *)c;
      v->s.len = x->n;
      break;
    }
    case TFX_V_BOOL: v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B; v->b = x->u.i != 0; break;
    case TFX_V_INT: v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I; v->i = x->u.i; break;
    case TFX_V_FLOAT: v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F; v->f = (float)x->u.f; break;
    default: v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE; v->type = (Tensorflow__DataType)x->u.i; break;
  }
  return 0;
}

static const Tensorflow__AttrValue *get_attr(const Tensorflow__NodeDef *nd, const char *key) {
  for (size_t i = 0; nd && i < nd->n_attr; i++)
    if (!strcmp(nd->attr[i]->key, key)) return nd->attr[i]->value;
  return NULL;
}

static void set_attr_raw(edit *e, Tensorflow__NodeDef *nd, const char *key, const Tensorflow__AttrValue *src,
                         size_t *room) {
  Tensorflow__AttrValue *v = add_attr(e, nd, key, room, 1);
  if (v) *v = *src; /* shares the payload (read-only from here on) */
}

typedef struct svec {
  char **v;
  size_t n, cap;
} svec;

static int svec_push(svec *s, char *x) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 8;
    char **nv = tfx_realloc(s->v, cap * sizeof *nv);
    if (!nv) return -1;
    s->v = nv;
    s->cap = cap;
  }
  s->v[s->n++] = x;
  return 0;
}

static int svec_has(const svec *s, const char *x) {
  for (size_t i = 0; i < s->n; i++)
    if (!strcmp(s->v[i], x)) return 1;
  return 0;
}

typedef struct taken {
  frun r;
} taken;

/* Unique name for a new node: base, else base_1, base_2, ... */
static const char *unique_name(edit *e, tfx_hmap *used, const char *base) {
  const char *s = edup(e, base);
  for (unsigned i = 1; s && (tfx_graph_find(e->g, s) != TFX_NO_ID || tfx_hmap_get(used, s, strlen(s)) != TFX_HASH_NONE); i++) {
    char num[24];
    const char *p[] = {base, "_", dec(num, (long long)i)};
    s = ejoin(e, p, 3);
  }
  if (s && tfx_hmap_put(used, s, strlen(s), 1, NULL) < 0) e->oom = 1;
  return s;
}

/* A Const NodeDef holding v: a scalar, or a 1-D list (h_node_const checked the kinds). Integers
 * are DT_INT32 when every one fits, else DT_INT64; a number list with a float is DT_FLOAT
 * (the dtypes scope fusion gives its `const` inputs). */
static Tensorflow__NodeDef *const_node(edit *e, const char *name, const tfx_value *v, const char *device) {
  Tensorflow__NodeDef *nd = tfx_arena_alloc(e->A, sizeof *nd);
  Tensorflow__TensorProto *t = tfx_arena_alloc(e->A, sizeof *t);
  Tensorflow__TensorShapeProto *sh = tfx_arena_alloc(e->A, sizeof *sh);
  if (!nd || !t || !sh) return e->oom = 1, NULL;
  tensorflow__node_def__init(nd);
  tensorflow__tensor_proto__init(t);
  tensorflow__tensor_shape_proto__init(sh);
  nd->name = (char *)name;
  nd->op = op_copy(e, "Const");
  if (device && *device) nd->device = (char *)device;
  const tfx_value *items = v->tag == TFX_V_LIST ? v->u.items : v;
  size_t n = v->tag == TFX_V_LIST ? v->n : 1, cnt = n ? n : 1;
  int kind = n ? items[0].tag : TFX_V_FLOAT, fits32 = 1;
  for (size_t i = 0; i < n; i++) {
    if (items[i].tag == TFX_V_FLOAT) kind = TFX_V_FLOAT;
    if (items[i].tag == TFX_V_INT && (items[i].u.i < INT32_MIN || items[i].u.i > INT32_MAX)) fits32 = 0;
  }
  if (v->tag == TFX_V_LIST) {
    Tensorflow__TensorShapeProto__Dim *dim = tfx_arena_alloc(e->A, sizeof *dim);
    sh->dim = tfx_arena_alloc(e->A, sizeof *sh->dim);
    if (!dim || !sh->dim) return e->oom = 1, NULL;
    tensorflow__tensor_shape_proto__dim__init(dim);
    dim->size = (int64_t)n;
    sh->dim[0] = dim;
    sh->n_dim = 1;
  }
  t->tensor_shape = sh;
  if (kind == TFX_V_INT && fits32) {
    t->dtype = TENSORFLOW__DATA_TYPE__DT_INT32;
    if (!(t->int_val = tfx_arena_calloc(e->A, cnt, sizeof *t->int_val))) return e->oom = 1, NULL;
    for (size_t i = 0; i < n; i++) t->int_val[i] = (int32_t)items[i].u.i;
    t->n_int_val = n;
  } else if (kind == TFX_V_INT) {
    t->dtype = TENSORFLOW__DATA_TYPE__DT_INT64;
    if (!(t->int64_val = tfx_arena_calloc(e->A, cnt, sizeof *t->int64_val))) return e->oom = 1, NULL;
    for (size_t i = 0; i < n; i++) t->int64_val[i] = items[i].u.i;
    t->n_int64_val = n;
  } else if (kind == TFX_V_BOOL) {
    t->dtype = TENSORFLOW__DATA_TYPE__DT_BOOL;
    if (!(t->bool_val = tfx_arena_calloc(e->A, cnt, sizeof *t->bool_val))) return e->oom = 1, NULL;
    for (size_t i = 0; i < n; i++) t->bool_val[i] = items[i].u.i != 0;
    t->n_bool_val = n;
  } else if (kind == TFX_V_STR) {
    t->dtype = TENSORFLOW__DATA_TYPE__DT_STRING;
    if (!(t->string_val = tfx_arena_calloc(e->A, cnt, sizeof *t->string_val))) return e->oom = 1, NULL;
    for (size_t i = 0; i < n; i++) {
      char *c = tfx_arena_strndup(e->A, items[i].u.s, items[i].n); /* the run's values die with the round */
      if (!c) return e->oom = 1, NULL;
      t->string_val[i].data = (uint8_t *)c;
      t->string_val[i].len = items[i].n;
    }
    t->n_string_val = n;
  } else {
    t->dtype = TENSORFLOW__DATA_TYPE__DT_FLOAT;
    if (!(t->float_val = tfx_arena_calloc(e->A, cnt, sizeof *t->float_val))) return e->oom = 1, NULL;
    for (size_t i = 0; i < n; i++)
      t->float_val[i] = (float)(items[i].tag == TFX_V_FLOAT ? items[i].u.f : (double)items[i].u.i);
    t->n_float_val = n;
  }
  size_t room; /* dtype, value, _fusion_pass, _fusion_description */
  if (attr_room(e, nd, 4, &room)) return NULL;
  Tensorflow__AttrValue *dt = add_attr(e, nd, "dtype", &room, 1);
  Tensorflow__AttrValue *val = add_attr(e, nd, "value", &room, 1);
  if (!dt || !val) return NULL;
  dt->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  dt->type = t->dtype;
  val->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
  val->tensor = t;
  return nd;
}

/* ---- producers left without readers ---- */

/* Ops whose only effect is their output: removed when a rewrite leaves them unread. */
static int side_effect_free(const char *op) {
  static const char *const ops[] = {"Const", "HostConst", "Identity", "Cast", "Reshape", "ExpandDims",
                                    "Squeeze", "Shape", "Fill", "ZerosLike", "OnesLike"};
  for (size_t i = 0; op && i < sizeof ops / sizeof *ops; i++)
    if (!strcmp(op, ops[i])) return 1;
  return 0;
}

/* side_effect_free of node p's op, known per op id (the op string of each producer a removed
 * node reads was a cache miss at 10^6 nodes); without the table (out of memory) or an op id,
 * by the node's op string. */
static int node_side_effect_free(const edit *e, uint32_t p) {
  const tfx_node *n = &e->g->nodes[p];
  if (!e->sef || n->op_id >= e->ops->n) return side_effect_free(n->op);
  if (!e->sef[n->op_id]) e->sef[n->op_id] = side_effect_free(tfx_intern_str(e->ops, n->op_id)) ? 2 : 1;
  return e->sef[n->op_id] == 2;
}

/* Removes from v[0..*k) the side-effect-free producers of the round's removed nodes that
 * nothing reads any more, and those that only they read; records them on the round's report
 * entries (the last n_tk of rep). Deterministic: rewrites in taken order, each removed node's
 * inputs in order, then the inputs of each dropped node. */
/* Open-addressing set of NodeDef pointers (the dropped ones; cap a power of two, at least
 * twice the entries): v[] is filtered with one probe per entry instead of a binary search
 * over a sorted copy (which was most of drop_dead at 10^6 nodes). */
static size_t ptr_slot(const void *p, size_t mask) {
  uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 32) & mask;
}
static int ptr_set_has(const void *const *set, size_t mask, const void *p) {
  for (size_t j = ptr_slot(p, mask); set[j]; j = (j + 1) & mask)
    if (set[j] == p) return 1;
  return 0;
}

/* The node an input / return string names in g (`x`, `^x`, `x:1`, `x:out:0`: the graph's name
 * map asked for the text before the first ':'), here called ref_id.
 * The candidates' names (drop_dead): what ref_id answers, restricted to the candidates, from
 * a table of their names only. drop_dead asks about every input that reads a removed node's
 * old reader, every new node's input and the dropped nodes' inputs, and reads the answer only
 * for candidates; the graph's name map is two cache misses per question at 10^6 nodes, this
 * table stays in the cache. Names are unique in a graph a round runs on (a round needs the
 * topological order, which an index with validation problems such as a duplicate name does
 * not have: graph.h), so the map gives each candidate for its own name: a hit is exactly
 * ref_id's answer, and a miss means ref_id's answer is no candidate. */
typedef struct cand_names {
  uint32_t *id;   /* slot -> candidate id, TFX_NO_ID = empty */
  uint32_t *h;    /* slot -> the name's hash */
  size_t mask;
} cand_names;

static int cand_names_make(cand_names *t, const tfx_graph *g, const uint32_t *ids, uint32_t n) {
  size_t cap = 16;
  while (cap < (size_t)n * 2) cap *= 2;
  t->mask = cap - 1;
  t->id = tfx_malloc(cap * sizeof *t->id);
  t->h = tfx_malloc(cap * sizeof *t->h);
  if (!t->id || !t->h) return -1;
  for (size_t j = 0; j < cap; j++) t->id[j] = TFX_NO_ID;
  for (uint32_t i = 0; i < n; i++) {
    const char *nm = g->nodes[ids[i]].name;
    size_t len = strlen(nm);
    if (!g->topo && tfx_hmap_get(&g->by_name, nm, len) != ids[i]) continue; /* (not reached: see above) */
    uint32_t h = tfx_hash_bytes(nm, len);
    size_t j = h & t->mask;
    while (t->id[j] != TFX_NO_ID) j = (j + 1) & t->mask;
    t->id[j] = ids[i];
    t->h[j] = h;
  }
  return 0;
}

static void cand_names_free(cand_names *t) {
  free(t->id);
  free(t->h);
}

/* The table for ids[0..n), made on first use (t->id NULL until then). Returns 0 or -1. */
static int cand_names_need(cand_names *t, const tfx_graph *g, const uint32_t *ids, uint32_t n) {
  return t->id ? 0 : cand_names_make(t, g, ids, n);
}

/* ref_id(g, s) when that is a candidate, else TFX_NO_ID (s: NULL or an input / return string). */
static uint32_t cand_ref(const cand_names *t, const tfx_graph *g, const char *s) {
  if (!s) return TFX_NO_ID;
  if (*s == '^') s++;
  size_t n = strcspn(s, ":");
  uint32_t h = tfx_hash_bytes(s, n);
  for (size_t j = h & t->mask; t->id[j] != TFX_NO_ID; j = (j + 1) & t->mask) {
    if (t->h[j] != h) continue;
    const char *nm = g->nodes[t->id[j]].name;
    if (strncmp(nm, s, n) == 0 && nm[n] == 0) return t->id[j];
  }
  return TFX_NO_ID;
}

/* The old node whose output data input `slot` of node reads (TFX_NO_ID: an argument). */
static uint32_t producer_of(const tfx_graph *g, uint32_t node, uint32_t slot) {
  const tfx_input *in = &g->nodes[node].in[slot];
  return in->kind == TFX_IN_NODE ? in->src : TFX_NO_ID;
}

/* drop_dead: who reads the candidates after the round. In the main graph the answer comes from
 * the index (by id), not from the input strings the round wrote: every string a rewrite puts on
 * a surviving reader or a new node is either the name of a node new in this round (no
 * candidate: a new node takes a removed root's name or one the graph does not hold) or a copy
 * of an input string of the old graph, whose producer the index resolved; so the counts are
 * ref_id's, without reading and hashing a string per reader (two cache misses each at 10^6
 * nodes). Only the count's being zero matters for readers that are never dropped (new nodes),
 * so the anchor's control inputs are counted before apply's de-duplication. A dropped node
 * whose inputs the round rewrote (apply de-duplicated its control inputs) and function bodies
 * (a bare name there is an argument, which ref_id still reads as a node name) go by the strings;
 * so does every graph with drop_by_name (TFXC_DATAFLOW_DROP_BY_NAME=1: tests compare both). */
static int drop_dead(edit *e, taken *tk, uint32_t n_tk, uint8_t *removed, char *const *const *newin,
                     Tensorflow__NodeDef **v, size_t *k, Tensorflow__NodeDef ***made, const uint32_t *n_made,
                     tfx_flow_report *rep) {
  const tfx_graph *g = e->g;
  uint32_t N = g->n_nodes;
  int by_id = !g->func && !e->drop_by_name;
  uint32_t *owner = tfx_calloc(N ? N : 1, sizeof *owner); /* watched: 1 + taken index */
  uint32_t *cnt = tfx_calloc(N ? N : 1, sizeof *cnt);
  uint32_t *work = tfx_malloc((size_t)(N ? N : 1) * sizeof *work);
  uint8_t *gone = tfx_calloc(N ? N : 1, 1);
  cand_names cn = {NULL, NULL, 0};
  int rc = -1;
  if (!owner || !cnt || !work || !gone) goto out;
  /* the candidates: side-effect-free producers the removed nodes read, and (closure) the
   * side-effect-free producers those read; work[] holds them in discovery order */
  uint32_t nw = 0;
  for (uint32_t t = 0; t < n_tk; t++)
    for (uint32_t i = 0; i < tk[t].r.n_rm; i++) {
      const tfx_node *n = &g->nodes[tk[t].r.rm[i]];
      for (uint32_t q = 0; q < n->n_in; q++) {
        uint32_t p = n->in[q].kind == TFX_IN_NODE ? n->in[q].src : TFX_NO_ID;
        if (p < N && !removed[p] && !owner[p] && node_side_effect_free(e, p)) {
          owner[p] = t + 1;
          work[nw++] = p;
        }
      }
    }
  if (!nw) {
    rc = 0;
    goto out;
  }
  uint32_t n_seed = nw;
  for (uint32_t w = 0; w < nw; w++) {
    const tfx_node *n = &g->nodes[work[w]];
    for (uint32_t q = 0; q < n->n_in; q++) {
      uint32_t p = n->in[q].kind == TFX_IN_NODE ? n->in[q].src : TFX_NO_ID;
      if (p < N && !removed[p] && !owner[p] && node_side_effect_free(e, p)) {
        owner[p] = owner[work[w]];
        work[nw++] = p;
      }
    }
  }
  if (!by_id && cand_names_make(&cn, g, work, nw)) goto out;
  /* readers after the rewrites: the surviving old readers (a reader that is not removed keeps
   * its input: only inputs that read removed nodes are rewired), the data inputs rewired by
   * the round, the new nodes' inputs, returns and kept names */
  for (uint32_t w = 0; w < nw; w++) {
    const tfx_node *n = &g->nodes[work[w]];
    for (uint32_t u = 0; u < n->n_uses; u++) cnt[work[w]] += !removed[n->uses[u].node];
  }
  for (uint32_t t = 0; t < n_tk; t++) {
    const frun *r = &tk[t].r;
    for (uint32_t i = 0; i < r->n_rm; i++) {
      const tfx_node *n = &g->nodes[r->rm[i]];
      for (uint32_t u = 0; u < n->n_uses; u++) {
        uint32_t c = n->uses[u].node, slot = n->uses[u].slot;
        if (removed[c] || slot >= g->nodes[c].n_data_in) continue; /* a control input now names a new node */
        uint32_t id;
        if (by_id) { /* what apply wrote there: a new node, the `out`'s source, or (none) the old string */
          const fout *o = find_out(r, r->rm[i], g->nodes[c].in[slot].port);
          id = !o ? r->rm[i] : o->tname ? TFX_NO_ID : producer_of(g, o->tnode, (uint32_t)o->tport);
        } else { /* the reader's input as rewired (newin: the copy apply just wrote, in the
                  * cache; its data slots are the NodeDef's, only repeated control inputs were
                  * dropped after them) */
          id = cand_ref(&cn, g, newin[c] ? newin[c][slot] : g->nodes[c].def->input[slot]);
        }
        if (id < N && owner[id] && !removed[id]) cnt[id]++;
      }
    }
    if (by_id) { /* the new nodes' inputs: captures, and the anchor's control inputs */
      for (uint32_t q = 0; q < r->n_new; q++)
        for (uint32_t j = 0; j < r->nw[q].n_in; j++) {
          const fin *x = &r->nw[q].in[j];
          uint32_t id = x->cval || x->src ? TFX_NO_ID : producer_of(g, x->node, (uint32_t)x->slot);
          if (id < N && owner[id] && !removed[id]) cnt[id]++;
        }
      for (uint32_t i = 0; r->n_new && i < r->n_rm; i++) {
        const tfx_node *n = &g->nodes[r->rm[i]];
        for (uint32_t q = n->n_data_in; q < n->n_in; q++) {
          uint32_t id = n->in[q].kind == TFX_IN_NODE ? n->in[q].src : TFX_NO_ID;
          if (id < N && owner[id] && !removed[id]) cnt[id]++;
        }
      }
      continue;
    }
    for (uint32_t q = 0; q < n_made[t]; q++)
      for (size_t j = 0; j < made[t][q]->n_input; j++) {
        uint32_t id = cand_ref(&cn, g, made[t][q]->input[j]);
        if (id < N && owner[id] && !removed[id]) cnt[id]++;
      }
  }
  if (g->func) {
    for (size_t i = 0; i < g->func->n_ret; i++) {
      uint32_t id = g->func->ret[i] ? cand_ref(&cn, g, g->func->ret[i]->value) : TFX_NO_ID;
      if (id < N && owner[id]) cnt[id]++;
    }
    for (size_t i = 0; i < g->func->n_control_ret; i++) {
      uint32_t id = g->func->control_ret[i] ? cand_ref(&cn, g, g->func->control_ret[i]->value) : TFX_NO_ID;
      if (id < N && owner[id]) cnt[id]++;
    }
  }
  for (uint32_t i = 0; i < e->n_keep; i++) {
    uint32_t id = tfx_graph_find(g, e->keep[i]);
    if (id < N && owner[id]) cnt[id]++;
  }
  /* drop: the seeds in order; a dropped node's producers as they lose their last reader */
  uint32_t nd = 0; /* dropped ids, in drop order */
  uint32_t *dropped = tfx_malloc((size_t)nw * sizeof *dropped), *queue = tfx_malloc((size_t)nw * sizeof *queue);
  if (!dropped || !queue) {
    free(dropped);
    free(queue);
    goto out;
  }
  for (uint32_t s0 = 0; s0 < n_seed; s0++) {
    if (gone[work[s0]] || cnt[work[s0]]) continue;
    uint32_t qh = 0, qt = 0;
    queue[qt++] = work[s0];
    gone[work[s0]] = 1;
    while (qh < qt) {
      uint32_t x = queue[qh++];
      dropped[nd++] = x;
      const Tensorflow__NodeDef *def = g->nodes[x].def;
      int ids = by_id && !newin[x]; /* its inputs as the index has them */
      if (!ids && cand_names_need(&cn, g, work, nw)) {
        free(dropped);
        free(queue);
        goto out;
      }
      for (size_t j = 0; j < (ids ? g->nodes[x].n_in : def->n_input); j++) {
        uint32_t p = ids ? producer_of(g, x, (uint32_t)j) : cand_ref(&cn, g, def->input[j]);
        if (p >= N || !owner[p] || removed[p] || gone[p] || !cnt[p]) continue;
        if (--cnt[p] == 0) {
          gone[p] = 1;
          owner[p] = owner[x]; /* reported with the rewrite that freed it */
          queue[qt++] = p;
        }
      }
    }
  }
  free(queue);
  if (nd) {
    size_t scap = 16;
    while (scap < (size_t)nd * 2) scap *= 2;
    const void **defs = tfx_calloc(scap, sizeof *defs); /* the dropped NodeDefs, for lookups */
    if (!defs) {
      free(dropped);
      goto out;
    }
    for (uint32_t i = 0; i < nd; i++) {
      const void *p = g->nodes[dropped[i]].def;
      size_t j = ptr_slot(p, scap - 1);
      while (defs[j] && defs[j] != p) j = (j + 1) & (scap - 1);
      defs[j] = p;
    }
    size_t m = 0;
    for (size_t i = 0; i < *k; i++)
      if (!ptr_set_has(defs, scap - 1, v[i])) v[m++] = v[i];
    free(defs);
    *k = m;
    /* the report: per rewrite, in drop order. One count pass and one fill pass over the
     * dropped nodes (a pass per rewrite was n_tk x nd: 5 666 GELU rewrites dropping ~28 000
     * Consts made round 2 at 10^6 nodes cost more than round 1) */
    tfx_flow_applied *base = &rep->v[rep->n - n_tk];
    uint32_t *per = tfx_calloc((size_t)n_tk + 1, sizeof *per);
    if (!per) {
      free(dropped);
      goto out;
    }
    for (uint32_t i = 0; i < nd; i++) /* owner: 1 + the rewrite (always in range) */
      if (owner[dropped[i]] - 1 < n_tk) per[owner[dropped[i]] - 1]++;
    for (uint32_t t = 0; t < n_tk; t++) {
      if (!per[t]) continue;
      base[t].dropped = tfx_arena_calloc(&rep->A, per[t], sizeof *base[t].dropped);
      if (!base[t].dropped) {
        free(per);
        free(dropped);
        goto out;
      }
    }
    free(per);
    for (uint32_t i = 0; i < nd; i++) {
      if (owner[dropped[i]] - 1 >= n_tk) continue;
      tfx_flow_applied *a = &base[owner[dropped[i]] - 1];
      if (!(a->dropped[a->n_dropped++] = rep_str(rep, g->nodes[dropped[i]].name))) {
        free(dropped);
        goto out;
      }
    }
  }
  for (uint32_t i = 0; i < nd; i++) removed[dropped[i]] = 2; /* gone too (the change record) */
  free(dropped);
  rc = 0;
out:
  cand_names_free(&cn);
  free(owner);
  free(cnt);
  free(work);
  free(gone);
  return rc;
}

/* The resolved inputs apply kept beside the strings it wrote (main graph, change recorded):
 * per rewired old node (nspec, parallel to newin) and per made NodeDef (mspec, by the round's
 * made index: made_base[t] + q for made[t][q]); a producer is an old node id (< N) or N + the
 * made index of a node of the round. on: still recorded (an allocation failure or an input
 * the strings do not express this way only costs the record: the re-index parses). */
typedef struct spec_rec {
  int on;
  tfx_input **nspec;
  tfx_input **mspec;
  uint32_t *made_base; /* n_tk + 1 */
  uint32_t n_made_all;
} spec_rec;

static void spec_free(spec_rec *sp) {
  free(sp->nspec);
  free(sp->mspec);
  free(sp->made_base);
  memset(sp, 0, sizeof *sp);
}

/* Copies n resolved inputs from x into out, producers translated to new ids; 0, or -1 when a
 * producer has none (gone: then no record is right). */
static int spec_out(const tfx_input *x, size_t n, uint32_t N, const uint32_t *new_id, const uint32_t *made_pos,
                    uint32_t n_made_all, tfx_input *out) {
  for (size_t k = 0; k < n; k++) {
    uint32_t s = x[k].src;
    uint32_t t = s < N ? new_id[s] : s - N < n_made_all ? made_pos[s - N] : TFX_NO_ID;
    if (t == TFX_NO_ID || x[k].kind != TFX_IN_NODE) return -1;
    out[k] = x[k];
    out[k].src = t;
    out[k].out_arg = NULL;
  }
  return 0;
}

/* The change record (tfx_flow_engine.change): old node i is gone when removed[i] (a rewrite's
 * match, or 2: dropped as dead), else it is the next v[] entry after the new nodes of the
 * rewrites whose roots come before it (apply lays the list out so: for each old node, the new
 * nodes of the rewrite rooted there, then the node itself if it stays; drop_dead only takes
 * old nodes out), so its id is counted, not searched (which read every node record); the
 * re-index checks each kept node's NodeDef at that id and rebuilds in full if one differs.
 * Rewired when its inputs were rewritten (newin[i]). With sp->on, also the resolved inputs of
 * the made and the rewired nodes (tfx_flow_change.fix_*). Out of memory only costs the record
 * (the caller re-indexes in full), or only the resolved inputs (the re-index parses). */
static void record_change(edit *e, const uint8_t *removed, char ***newin, const uint32_t *root_of,
                          const uint32_t *n_made, Tensorflow__NodeDef ***made, const spec_rec *sp) {
  if (!e->change) return;
  const tfx_graph *g = e->g;
  uint32_t N = g->n_nodes;
  uint32_t *new_id = tfx_malloc((size_t)(N ? N : 1) * sizeof *new_id);
  uint8_t *rewired = tfx_malloc(N ? N : 1);
  uint32_t *made_pos = sp->on ? tfx_malloc(((size_t)sp->n_made_all + 1) * sizeof *made_pos) : NULL;
  if (!new_id || !rewired) {
    free(new_id);
    free(rewired);
    free(made_pos);
    return;
  }
  uint32_t j = 0;
  size_t n_fix = 0, n_in = 0;
  for (uint32_t i = 0; i < N; i++) {
    rewired[i] = newin[i] != NULL;
    if (root_of[i] != TFX_NO_ID) {
      uint32_t t = root_of[i];
      for (uint32_t q = 0; made_pos && q < n_made[t]; q++) {
        made_pos[sp->made_base[t] + q] = j + q;
        if (made[t][q]->n_input) n_fix++, n_in += made[t][q]->n_input;
      }
      j += n_made[t];
    }
    new_id[i] = removed[i] ? TFX_NO_ID : j++;
    if (made_pos && !removed[i] && newin[i]) n_fix++, n_in += sp->nspec[i] ? sp->nspec[i][-1].src : 0;
  }
  e->change->new_id = new_id;
  e->change->rewired = rewired;
  if (!made_pos) return;
  tfx_flow_change *c = e->change;
  c->fix_node = tfx_malloc((n_fix ? n_fix : 1) * sizeof *c->fix_node);
  c->fix_first = tfx_malloc((n_fix + 1) * sizeof *c->fix_first);
  c->fix_in = tfx_malloc((n_in ? n_in : 1) * sizeof *c->fix_in);
  int ok = c->fix_node && c->fix_first && c->fix_in && n_in < UINT32_MAX;
  uint32_t f = 0, pos = 0;
  for (uint32_t i = 0; ok && i < N; i++) {
    if (root_of[i] != TFX_NO_ID) {
      uint32_t t = root_of[i];
      for (uint32_t q = 0; ok && q < n_made[t]; q++) {
        size_t n = made[t][q]->n_input;
        if (!n) continue;
        const tfx_input *x = sp->mspec[sp->made_base[t] + q];
        c->fix_node[f] = made_pos[sp->made_base[t] + q];
        c->fix_first[f++] = pos;
        ok = x && !spec_out(x, n, N, new_id, made_pos, sp->n_made_all, c->fix_in + pos);
        pos += (uint32_t)n;
      }
    }
    if (ok && !removed[i] && newin[i]) {
      size_t n = sp->nspec[i] ? sp->nspec[i][-1].src : 0;
      c->fix_node[f] = new_id[i];
      c->fix_first[f++] = pos;
      ok = sp->nspec[i] && !spec_out(sp->nspec[i], n, N, new_id, made_pos, sp->n_made_all, c->fix_in + pos);
      pos += (uint32_t)n;
    }
  }
  free(made_pos);
  if (!ok) {
    free(c->fix_node);
    free(c->fix_first);
    free(c->fix_in);
    c->fix_node = c->fix_first = NULL;
    c->fix_in = NULL;
    return;
  }
  c->fix_first[f] = pos;
  c->n_fix = f;
}

/* The op types of a round's report entries, each copied once (a handful per round). */
typedef struct type_names {
  const char *v[32];
  uint32_t n;
} type_names;

static const char *rep_type(tfx_flow_report *r, type_names *t, const char *type) {
  for (uint32_t i = 0; i < t->n; i++)
    if (!strcmp(t->v[i], type)) return t->v[i];
  const char *c = rep_str(r, type);
  if (c && t->n < sizeof t->v / sizeof *t->v) t->v[t->n++] = c;
  return c;
}

static int apply(edit *e, const tfx_pack *p, taken *tk, uint32_t n_tk, Tensorflow__GraphDef *gd,
                 tfx_flow_report *rep, uint32_t round) {
  const tfx_graph *g = e->g;
  uint32_t N = g->n_nodes;
  Tensorflow__NodeDef ***arr = g->func ? &g->func->node_def : &gd->node;
  size_t *count = g->func ? &g->func->n_node_def : &gd->n_node;
  if (*count != N) {
    tfx_error(e->d, NULL, 0, 0, "dataflow rewrites: graph '%s' changed since it was indexed", g->name);
    return TFX_E_FAIL;
  }
  int rc = 0;
  uint8_t *removed = tfx_calloc(N ? N : 1, 1);
  char ***newin = tfx_calloc(N ? N : 1, sizeof *newin);
  uint32_t *root_of = tfx_malloc((N ? N : 1) * sizeof *root_of); /* root pos -> taken index */
  const char **rule_copy = NULL; /* per rule: its name in the model's arena (provenance attrs) */
  tfx_value *items = NULL;        /* scratch: a rewrite's removed names (_fusion_nodes) */
  uint32_t cap_items = 0;
  const char **rep_rule = NULL;   /* per rule: its name in the report */
  const char *rep_graph = NULL;   /* the graph's name in the report */
  type_names types = {{0}, 0};
  tfx_hmap used;
  tfx_hmap_init(&used);
  svec ctl = {0};
  uint32_t *ctl_id = NULL; /* the producer of each ctl entry (the change record) */
  size_t cap_ctl_id = 0;
  spec_rec sp = {0, NULL, NULL, NULL, 0};
  if (!removed || !newin || !root_of) goto nomem;
  if (e->change && !g->func) { /* resolved inputs for the re-index (none: it parses) */
    sp.made_base = tfx_malloc(((size_t)n_tk + 1) * sizeof *sp.made_base);
    uint64_t all = 0;
    for (uint32_t t = 0; sp.made_base && t < n_tk; t++) {
      sp.made_base[t] = (uint32_t)all;
      all += (uint64_t)tk[t].r.n_const + tk[t].r.n_new;
    }
    sp.n_made_all = (uint32_t)all;
    sp.nspec = tfx_calloc(N ? N : 1, sizeof *sp.nspec);
    sp.mspec = tfx_calloc(all ? all : 1, sizeof *sp.mspec);
    sp.on = sp.made_base && sp.nspec && sp.mspec && all < UINT32_MAX - N;
    if (sp.made_base) sp.made_base[n_tk] = (uint32_t)all;
  }
  for (uint32_t i = 0; i < N; i++) root_of[i] = TFX_NO_ID;
  for (uint32_t t = 0; t < n_tk; t++) {
    frun *r = &tk[t].r;
    for (uint32_t i = 0; i < r->n_rm; i++) removed[r->rm[i]] = 1;
    root_of[r->root] = t;
  }
  /* names first: references between rewrites of the round never cross (acceptable()) */
  for (uint32_t t = 0; t < n_tk; t++) {
    frun *r = &tk[t].r;
    const char *root = g->nodes[r->root].name;
    /* the taker: the root's name (not put in `used`: unique_name finds it in the graph's map) */
    if (r->taker >= 0 && (uint32_t)r->taker < r->n_new) r->nw[r->taker].final = edup(e, root);
    for (uint32_t k = 0; k < r->n_new; k++)
      if ((int)k != r->taker) {
        const char *parts[] = {root, "/", r->nw[k].name};
        char *base = ejoin(e, parts, 3);
        r->nw[k].final = base ? unique_name(e, &used, base) : NULL;
      }
    for (uint32_t k = 0; k < r->n_new && !e->oom; k++) /* `const` inputs: NODE/const_J */
      for (uint32_t j = 0; j < r->nw[k].n_in && !e->oom; j++)
        if (r->nw[k].in[j].cval) {
          char num[24];
          const char *parts[] = {r->nw[k].final, "/const_", dec(num, (long long)j)};
          char *base = ejoin(e, parts, 3);
          r->nw[k].in[j].cname = base ? unique_name(e, &used, base) : NULL;
        }
    if (e->oom) goto nomem;
  }
  /* consumers: rewired inputs; new NodeDefs */
  Tensorflow__NodeDef ***made = tfx_calloc(n_tk ? n_tk : 1, sizeof *made);
  if (!made) goto nomem;
  rule_copy = tfx_calloc(p->n_rules ? p->n_rules : 1, sizeof *rule_copy);
  rep_rule = tfx_calloc(p->n_rules ? p->n_rules : 1, sizeof *rep_rule);
  if (!rule_copy || !rep_rule) goto nomem_made;
  for (uint32_t t = 0; t < n_tk && rc == 0; t++) {
    frun *r = &tk[t].r;
    const char *rule = tfx_pack_str(p, p->rules[r->rule].name);
    const Tensorflow__NodeDef *rootdef = g->nodes[r->root].def;
    made[t] = tfx_arena_calloc(e->A, r->n_new + r->n_const + 1, sizeof **made); /* Consts, then new nodes */
    if (!made[t]) goto nomem_made;
    if (r->n_rm > cap_items) { /* scratch: the removed names as rule values */
      tfx_value *nv = tfx_realloc(items, (size_t)r->n_rm * sizeof *nv);
      if (!nv) goto nomem_made;
      items = nv;
      cap_items = r->n_rm;
    }
    /* control inputs of the removed nodes (from outside the match) */
    ctl.n = 0;
    for (uint32_t i = 0; i < r->n_rm; i++) {
      const tfx_node *n = &g->nodes[r->rm[i]];
      for (uint32_t k = n->n_data_in; k < n->n_in; k++) {
        if (n->in[k].kind == TFX_IN_NODE && n->in[k].src < N && removed[n->in[k].src]) continue;
        char *s = n->def->input[k];
        if (svec_has(&ctl, s)) continue;
        if (svec_push(&ctl, s)) goto nomem_made;
        if (sp.on && ctl.n > cap_ctl_id) {
          uint32_t *nv = tfx_realloc(ctl_id, ctl.cap * sizeof *nv);
          if (!nv) sp.on = 0;
          else ctl_id = nv, cap_ctl_id = ctl.cap;
        }
        if (sp.on) ctl_id[ctl.n - 1] = n->in[k].kind == TFX_IN_NODE ? n->in[k].src : TFX_NO_ID;
      }
    }
    int anchor = r->taker >= 0 ? r->taker : 0;
    uint32_t nc = 0;
    for (uint32_t k = 0; k < r->n_new; k++)
      for (uint32_t j = 0; j < r->nw[k].n_in; j++) {
        const fin *x = &r->nw[k].in[j];
        if (!x->cval || nc >= r->n_const) continue;
        Tensorflow__NodeDef *cd = const_node(e, x->cname, x->cval, rootdef->device);
        if (!cd) goto nomem_made;
        made[t][nc++] = cd;
      }
    /* provenance, one copy per rewrite shared by its new nodes and Consts (read-only from
     * here on): the rule's name (one model-arena copy per rule and round), the removed
     * nodes' names (the NodeDefs' own, which stay in the model's arena), the description */
    if (!rule_copy[r->rule] && !(rule_copy[r->rule] = edup(e, rule))) goto nomem_made;
    tfx_value pv = tfx_v_str(rule_copy[r->rule], (uint32_t)strlen(rule));
    for (uint32_t i = 0; i < r->n_rm; i++) {
      const char *rn = g->nodes[r->rm[i]].name;
      items[i] = tfx_v_str(rn, (uint32_t)strlen(rn));
    }
    tfx_value lv = tfx_v_list(items, r->n_rm);
    const char *dp[] = {"dataflow rewrite '", rule, "' of '", g->nodes[r->root].name, "'"};
    char *desc = ejoin(e, dp, 5);
    if (!desc) goto nomem_made;
    tfx_value dv = tfx_v_str(desc, (uint32_t)strlen(desc));
    uint32_t ci = 0; /* `const` inputs met so far (the Const's index in made[t]) */
    for (uint32_t k = 0; k < r->n_new; k++) {
      fnew *w = &r->nw[k];
      Tensorflow__NodeDef *nd = tfx_arena_alloc(e->A, sizeof *nd);
      if (!nd) goto nomem_made;
      tensorflow__node_def__init(nd);
      nd->name = (char *)w->final;
      nd->op = op_copy(e, w->type);
      if (rootdef->device && *rootdef->device) nd->device = rootdef->device;
      size_t nin = w->n_in + ((int)k == anchor ? ctl.n : 0);
      nd->input = tfx_arena_calloc(e->A, nin ? nin : 1, sizeof *nd->input);
      if (!nd->input || e->oom) goto nomem_made;
      tfx_input *ms = sp.on && nin ? tfx_arena_alloc(e->S, nin * sizeof *ms) : NULL;
      if (nin && !ms) sp.on = 0;
      uint32_t mb = sp.on ? sp.made_base[t] : 0;
      for (uint32_t j = 0; j < w->n_in; j++) {
        const fin *x = &w->in[j];
        tfx_input xi = {TFX_NO_ID, 0, TFX_IN_NODE, NULL};
        if (x->cval) {
          nd->input[j] = new_ref(e, x->cname, "Const", 0);
          xi.src = N + mb + ci++; /* the Consts come first in made[t], in this order */
        } else if (x->src) {
          const fnew *src = NULL;
          for (uint32_t q = 0; q < r->n_new && !src; q++)
            if (!strcmp(r->nw[q].name, x->src)) src = &r->nw[q];
          nd->input[j] = new_ref(e, src ? src->final : x->src, src ? src->type : NULL, x->port);
          if (src && x->port >= 0 && x->port <= INT32_MAX) {
            xi.src = N + mb + r->n_const + (uint32_t)(src - r->nw);
            xi.port = (int32_t)x->port;
          }
        } else {
          nd->input[j] = g->nodes[x->node].def->input[x->slot];
          xi = g->nodes[x->node].in[x->slot];
        }
        if (ms) ms[j] = xi;
      }
      if ((int)k == anchor)
        for (size_t j = 0; j < ctl.n; j++) {
          nd->input[w->n_in + j] = ctl.v[j];
          if (ms) ms[w->n_in + j] = (tfx_input){ctl_id[j], -1, TFX_IN_NODE, NULL};
        }
      if (sp.on) sp.mspec[sp.made_base[t] + r->n_const + k] = ms;
      nd->n_input = nin;
      size_t room; /* the rule's attrs, _output_shapes, _fusion_pass, _fusion_nodes, _fusion_description */
      if (attr_room(e, nd, (size_t)w->n_at + 4, &room)) goto nomem_made;
      for (uint32_t j = 0; j < w->n_at; j++) {
        int ar = set_attr(e, nd, w->at[j].name, &w->at[j].v, &room, 0);
        if (ar < 0) goto nomem_made;
        if (ar > 0)
          tfx_warning(e->d, NULL, 0, 0,
                      "rewrite '%s': attribute '%s' of new node '%s' has no TensorFlow attr form; skipped",
                      rule, w->at[j].name, nd->name);
      }
      if ((int)k == r->taker) {
        const Tensorflow__AttrValue *os = get_attr(rootdef, "_output_shapes");
        if (os) set_attr_raw(e, nd, "_output_shapes", os, &room);
      }
      set_attr(e, nd, "_fusion_pass", &pv, &room, 1);
      set_attr(e, nd, "_fusion_nodes", &lv, &room, 1);
      set_attr(e, nd, "_fusion_description", &dv, &room, 1);
      if (e->oom) goto nomem_made;
      made[t][r->n_const + k] = nd;
    }
    for (uint32_t q = 0; q < nc; q++) { /* the Consts: provenance like the new nodes */
      size_t room = 4; /* const_node made room for 4 attrs and used 2 */
      set_attr(e, made[t][q], "_fusion_pass", &pv, &room, 1);
      set_attr(e, made[t][q], "_fusion_description", &dv, &room, 1);
      if (e->oom) goto nomem_made;
    }
    /* rewire readers of the removed nodes */
    const char *anchor_name = r->n_new ? r->nw[anchor].final : NULL;
    for (uint32_t i = 0; i < r->n_rm; i++) {
      const tfx_node *n = &g->nodes[r->rm[i]];
      for (uint32_t u = 0; u < n->n_uses; u++) {
        uint32_t c = n->uses[u].node, slot = n->uses[u].slot;
        if (removed[c]) continue;
        if (!newin[c]) {
          const Tensorflow__NodeDef *cd = g->nodes[c].def;
          newin[c] = tfx_arena_calloc(e->A, cd->n_input ? cd->n_input : 1, sizeof **newin);
          if (!newin[c]) goto nomem_made;
          memcpy(newin[c], cd->input, cd->n_input * sizeof **newin);
          if (sp.on) { /* the index's inputs, the rewritten ones replaced below; before them
                        * (entry -1, src) their count once de-duplicated (record_change reads
                        * that, not the NodeDef) */
            tfx_input *xs = tfx_arena_alloc(e->S, ((size_t)cd->n_input + 1) * sizeof *xs);
            if (!xs || cd->n_input != g->nodes[c].n_in) {
              sp.on = 0;
            } else {
              xs[0].src = (uint32_t)cd->n_input;
              memcpy(xs + 1, g->nodes[c].in, cd->n_input * sizeof *xs);
              sp.nspec[c] = xs + 1;
            }
          }
        }
        int32_t port = g->nodes[c].in[slot].port;
        char *s = NULL;
        tfx_input xi = {TFX_NO_ID, 0, TFX_IN_NODE, NULL};
        if (port < 0) {
          const char *parts[] = {"^", anchor_name ? anchor_name : "?"};
          s = ejoin(e, parts, 2);
          if (anchor_name) xi = (tfx_input){N + (sp.on ? sp.made_base[t] : 0) + r->n_const + (uint32_t)anchor, -1, TFX_IN_NODE, NULL};
        } else {
          const fout *o = find_out(r, r->rm[i], port);
          if (!o) continue; /* acceptable() made sure this does not happen */
          if (o->tname) {
            const fnew *tn = NULL;
            for (uint32_t q = 0; q < r->n_new && !tn; q++)
              if (!strcmp(r->nw[q].name, o->tname)) tn = &r->nw[q];
            s = new_ref(e, tn ? tn->final : o->tname, tn ? tn->type : NULL, o->tport);
            if (tn && o->tport <= INT32_MAX)
              xi = (tfx_input){N + (sp.on ? sp.made_base[t] : 0) + r->n_const + (uint32_t)(tn - r->nw), (int32_t)o->tport,
                               TFX_IN_NODE, NULL};
          } else {
            s = g->nodes[o->tnode].def->input[o->tport];
            xi = g->nodes[o->tnode].in[o->tport];
          }
        }
        if (!s) goto nomem_made;
        newin[c][slot] = s;
        if (sp.on) sp.nspec[c][slot] = xi; /* TFX_NO_ID: not expressed, the record is dropped */
      }
    }
    if (g->func) {
      for (size_t i = 0; i < g->func->n_ret; i++) {
        char **val = &g->func->ret[i]->value;
        const char *nm, *oa;
        size_t nl, ol;
        int32_t port;
        if (!*val || tfx_parse_func_input(*val, &nm, &nl, &oa, &ol, &port) || port < 0) continue;
        for (uint32_t k = 0; k < r->n_rm; k++) {
          const char *rn = g->nodes[r->rm[k]].name;
          if (strlen(rn) != nl || memcmp(rn, nm, nl)) continue;
          const fout *o = find_out(r, r->rm[k], port);
          if (!o) continue;
          const fnew *tn = NULL;
          for (uint32_t q = 0; o->tname && q < r->n_new && !tn; q++)
            if (!strcmp(r->nw[q].name, o->tname)) tn = &r->nw[q];
          char *s = o->tname ? new_ref(e, tn ? tn->final : o->tname, tn ? tn->type : NULL, o->tport)
                             : g->nodes[o->tnode].def->input[o->tport];
          if (!s) goto nomem_made;
          *val = s;
          break;
        }
      }
    }
    /* the report */
    if (rep->n == rep->cap) {
      uint32_t cap = rep->cap ? rep->cap * 2 : 16;
      tfx_flow_applied *nv = tfx_realloc(rep->v, cap * sizeof *nv);
      if (!nv) goto nomem_made;
      rep->v = nv;
      rep->cap = cap;
    }
    tfx_flow_applied *a = &rep->v[rep->n];
    memset(a, 0, sizeof *a);
    /* one copy per rule, graph and type in the report (not one per rewrite); the root is one
     * of the removed nodes (acceptable()): its name is that copy; the pointer lists are one
     * allocation */
    if (!rep_rule[r->rule] && !(rep_rule[r->rule] = rep_str(rep, rule))) goto nomem_made;
    if (!rep_graph && !(rep_graph = rep_str(rep, g->name ? g->name : ""))) goto nomem_made;
    a->rule = rep_rule[r->rule];
    a->graph = rep_graph;
    uint32_t n_cr = r->n_new + r->n_const + 1;
    const char **lists = tfx_arena_calloc(&rep->A, (size_t)r->n_rm + 2u * n_cr, sizeof *lists);
    if (!lists) goto nomem_made;
    a->removed = lists;
    a->created = lists + r->n_rm;
    a->created_types = lists + r->n_rm + n_cr;
    for (uint32_t i = 0; i < r->n_rm; i++) {
      if (!(a->removed[i] = rep_str(rep, g->nodes[r->rm[i]].name))) goto nomem_made;
      if (r->rm[i] == r->root && !a->root) a->root = a->removed[i];
    }
    if (!a->root && !(a->root = rep_str(rep, g->nodes[r->root].name))) goto nomem_made;
    for (uint32_t k = 0; k < r->n_new; k++)
      if (!(a->created[k] = rep_str(rep, r->nw[k].final)) || !(a->created_types[k] = rep_type(rep, &types, r->nw[k].type)))
        goto nomem_made;
    a->n_removed = r->n_rm;
    for (uint32_t q = 0; q < nc; q++) /* then the Consts of `const` inputs */
      if (!(a->created[r->n_new + q] = rep_str(rep, made[t][q]->name)) ||
          !(a->created_types[r->n_new + q] = rep_type(rep, &types, "Const")))
        goto nomem_made;
    a->n_created = r->n_new + nc;
    a->round = round;
    rep->n++;
  }
  /* the new node list: survivors in order, a rewrite's new nodes where its root was */
  {
    size_t total = 0;
    for (uint32_t i = 0; i < N; i++) total += !removed[i];
    for (uint32_t t = 0; t < n_tk; t++) total += tk[t].r.n_new + tk[t].r.n_const;
    /* the old array when the new list fits in it (each rewrite removes at least one node, so
     * it usually does): nothing reads it any more (the walk below reads the index's NodeDef
     * pointers), and an array per round stayed behind in the model's arena (6.5 + 6.0 MB at
     * 10^6 nodes) */
    uint32_t *n_made = tfx_malloc((size_t)(n_tk ? n_tk : 1) * sizeof *n_made);
    if (!n_made) goto nomem_made;
    for (uint32_t t = 0; t < n_tk; t++) n_made[t] = tk[t].r.n_const + tk[t].r.n_new;
    Tensorflow__NodeDef **v = total <= N && *arr ? *arr : tfx_arena_calloc(e->A, total ? total : 1, sizeof *v);
    if (!v) {
      free(n_made);
      goto nomem_made;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < N; i++) {
      if (root_of[i] != TFX_NO_ID) {
        frun *r = &tk[root_of[i]].r;
        for (uint32_t q = 0; q < r->n_const + r->n_new; q++) v[k++] = made[root_of[i]][q];
      }
      if (removed[i]) continue;
      const tfx_node *o = &g->nodes[i];
      Tensorflow__NodeDef *nd = o->def;
      if (newin[i]) { /* drop repeated control inputs ('^x' strings) */
        /* The data slots come first; one the round did not rewrite is the old string, which
         * the index read as data, so it is no '^' string (only a rewritten one is read). When
         * none is, the data slots stay and a control slot is compared only with the control
         * slots kept before it (a '^' string equals no other string); else the full loop. */
        size_t m = 0, nd_in = o->n_data_in < nd->n_input ? o->n_data_in : nd->n_input;
        int hat = 0;
        for (size_t j = 0; j < nd_in && !hat; j++) hat = newin[i][j] != nd->input[j] && newin[i][j][0] == '^';
        size_t from = hat ? 0 : nd_in; /* the first slot that may be a '^' string */
        m = from;
        tfx_input *xs = sp.on ? sp.nspec[i] : NULL; /* compacted alike */
        for (size_t j = from; j < nd->n_input; j++) {
          int dup = 0;
          if (newin[i][j][0] == '^')
            for (size_t q = from; q < m && !dup; q++) dup = !strcmp(newin[i][q], newin[i][j]);
          if (dup) continue;
          if (xs) xs[m] = xs[j];
          newin[i][m++] = newin[i][j];
        }
        if (xs) xs[-1].src = (uint32_t)m;
        nd->input = newin[i];
        nd->n_input = m;
      }
      v[k++] = nd;
    }
    int dr = drop_dead(e, tk, n_tk, removed, (char *const *const *)newin, v, &k, made, n_made, rep);
    *arr = v; /* also after a failure: v[0..k) is the rewritten list (dead producers kept) */
    *count = k;
    if (!dr) record_change(e, removed, newin, root_of, n_made, made, &sp);
    free(n_made);
    if (dr) goto nomem_made;
  }
  free(made);
  goto out;
nomem_made:
  free(made);
nomem:
  tfx_error(e->d, NULL, 0, 0, "out of memory (dataflow rewrites)");
  rc = TFX_E_NOMEM;
out:
  free(rule_copy);
  free(rep_rule);
  free(items);
  free(ctl.v);
  free(ctl_id);
  spec_free(&sp);
  tfx_hmap_free(&used);
  free(removed);
  free(newin);
  free(root_of);
  return rc;
}

/* (root op id, producer op id) -> type slot of the index (key_slot), per round: the candidate
 * walk looked the pair up by name for every input of every possible root, which read the
 * producer's op string (a cache miss per input at 10^6 nodes) and hashed both names. */
typedef struct pair_cache {
  uint64_t *key;  /* (root + 1) << 32 | (producer + 1); 0 = empty */
  uint32_t *val;
  uint32_t n, cap;
} pair_cache;

static size_t pair_hash(uint64_t k, uint32_t mask) {
  return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

/* 1 and *slot when the pair is cached, 0 when not, -1 when the cache cannot be made. */
static int pair_get(pair_cache *c, uint32_t a, uint32_t b, uint32_t *slot) {
  if (!c->cap) {
    c->cap = 256;
    c->key = tfx_calloc(c->cap, sizeof *c->key);
    c->val = tfx_malloc(c->cap * sizeof *c->val);
    if (!c->key || !c->val) return -1;
  }
  uint64_t k = ((uint64_t)a + 1) << 32 | ((uint64_t)b + 1);
  for (size_t j = pair_hash(k, c->cap - 1); c->key[j]; j = (j + 1) & (c->cap - 1))
    if (c->key[j] == k) {
      *slot = c->val[j];
      return 1;
    }
  return 0;
}

/* Caches the pair (a full table only stops caching: the caller looks pairs up by name). */
static void pair_put(pair_cache *c, uint32_t a, uint32_t b, uint32_t slot) {
  if ((c->n + 1) * 2 > c->cap) {
    uint32_t nc = c->cap * 2;
    uint64_t *nk = nc > c->cap ? tfx_calloc(nc, sizeof *nk) : NULL;
    uint32_t *nv = nk ? tfx_malloc(nc * sizeof *nv) : NULL;
    if (!nv) {
      free(nk);
      return;
    }
    for (uint32_t i = 0; i < c->cap; i++) {
      if (!c->key[i]) continue;
      size_t j = pair_hash(c->key[i], nc - 1);
      while (nk[j]) j = (j + 1) & (nc - 1);
      nk[j] = c->key[i];
      nv[j] = c->val[i];
    }
    free(c->key);
    free(c->val);
    c->key = nk;
    c->val = nv;
    c->cap = nc;
  }
  uint64_t k = ((uint64_t)a + 1) << 32 | ((uint64_t)b + 1);
  size_t j = pair_hash(k, c->cap - 1);
  while (c->key[j]) j = (j + 1) & (c->cap - 1);
  c->key[j] = k;
  c->val[j] = slot;
  c->n++;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

tfx_status tfx_flow_round(tfx_flow_engine *e, const tfx_module *m, const tfx_graph *g,
                          Tensorflow__GraphDef *gd, tfx_arena *arena, tfx_flow_report *rep,
                          uint32_t round, uint32_t *changed, tfx_diag *d) {
  *changed = 0;
  if (e->change) memset(e->change, 0, sizeof *e->change);
  if (!e->n_rules || !g->n_nodes || !g->topo) return 0;
  int linked = 0; /* the VM is linked to g before the first program runs (it costs a pass over the pack) */
  tfx_arena scratch;
  tfx_arena_init(&scratch);
  fhost h;
  memset(&h, 0, sizeof h);
  h.A = &scratch;
  h.g = g;
  tfx_vm_set_host(e->vm, &flow_host, &h);
  round_st rs = {g, tfx_calloc(g->n_nodes, 1), tfx_calloc(g->n_nodes, sizeof(uint32_t)), 0};
  taken *tk = NULL;
  uint32_t n_tk = 0, cap_tk = 0;
  int rc = 0;
  if (!rs.st || !rs.mark) goto nomem;
  /* per op id: the type slot of the index (looked up once per op type of the module) */
  uint32_t n_ops = m->ops.n;
  uint32_t *slot_of = tfx_malloc(((size_t)n_ops + 1) * sizeof *slot_of);
  if (!slot_of) goto nomem;
  uint8_t *has_root = tfx_calloc((size_t)n_ops + 1, 1); /* some rule has this root type */
  if (!has_root) {
    free(slot_of);
    goto nomem;
  }
  for (uint32_t o = 0; o < n_ops; o++) {
    const char *s = tfx_intern_str(&m->ops, o);
    slot_of[o] = s ? tfx_hmap_get(&e->by_type, s, strlen(s)) : TFX_HASH_NONE;
    has_root[o] = s && tfx_hmap_get(&e->roots, s, strlen(s)) != TFX_HASH_NONE;
  }
  for (uint32_t r = 0; r < e->pack->n_rules; r++)
    if (e->sig[r]) tfx_flow_sig_link(e->sig[r], &m->ops);
  /* per node, in id order: whether its type is some rule's root type. The walk below goes in
   * topological order, i.e. all over the node array; this byte per node is what it reads for
   * the many nodes no rule can start at (reading each node's op id there was a cache miss per
   * node at 10^6 nodes). */
  uint8_t *rootish = tfx_malloc(g->n_nodes);
  if (!rootish) {
    free(slot_of);
    free(has_root);
    goto nomem;
  }
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    uint32_t op = g->nodes[i].op_id;
    rootish[i] = op < n_ops && has_root[op];
  }
  uint32_t *cand = NULL, cap_cand = 0;
  pair_cache pairs = {0};
  for (uint32_t ti = 0; ti < g->n_nodes && rc == 0; ti++) {
    uint32_t n = g->topo[ti];
    if (!rootish[n] || rs.st[n] != ST_FREE) continue;
    uint32_t op = g->nodes[n].op_id;
    /* the rules to try: the root type's, and those whose child type produces one of n's inputs */
    uint32_t n_cand = 0, runs = 0;
    const tfx_node *nd = &g->nodes[n];
    for (uint32_t i = 0; i <= nd->n_data_in; i++) {
      uint32_t slot;
      if (i == nd->n_data_in) {
        slot = slot_of[op];
      } else {
        const tfx_input *in = &nd->in[i];
        if (in->kind != TFX_IN_NODE || in->src >= g->n_nodes) continue;
        int seen = 0; /* a producer type already looked up */
        for (uint32_t j = 0; j < i && !seen; j++)
          seen = nd->in[j].kind == TFX_IN_NODE && nd->in[j].src < g->n_nodes &&
                 g->nodes[nd->in[j].src].op_id == g->nodes[in->src].op_id;
        if (seen) continue;
        uint32_t pop_id = g->nodes[in->src].op_id;
        if (op < n_ops && pop_id < n_ops) { /* interned types: the pair's slot, cached */
          int pr = pair_get(&pairs, op, pop_id, &slot);
          if (pr < 0) {
            rc = -1;
            break;
          }
          if (pr == 0) {
            const char *rs_ = tfx_intern_str(&m->ops, op), *ps_ = tfx_intern_str(&m->ops, pop_id);
            slot = rs_ && ps_ ? key_slot(e, rs_, strlen(rs_), ps_, strlen(ps_), 0) : TFX_HASH_NONE;
            pair_put(&pairs, op, pop_id, slot);
          }
        } else {
          const char *pop = g->nodes[in->src].op ? g->nodes[in->src].op : "";
          slot = key_slot(e, nd->op, strlen(nd->op), pop, strlen(pop), 0);
        }
      }
      if (slot == TFX_HASH_NONE || slot >= e->n_types || !e->count[slot]) continue;
      runs++;
      if (n_cand + e->count[slot] > cap_cand) {
        uint32_t nc = (n_cand + e->count[slot]) * 2;
        uint32_t *v = tfx_realloc(cand, nc * sizeof *v);
        if (!v) {
          rc = -1;
          break;
        }
        cand = v;
        cap_cand = nc;
      }
      for (uint32_t k = 0; k < e->count[slot]; k++) cand[n_cand++] = e->rules[e->first[slot] + k];
    }
    if (rc) break;
    if (n_cand > 1) { /* pack (registration) order (one run already is), each rule once */
      if (runs > 1) qsort(cand, n_cand, sizeof *cand, cmp_u32);
      uint32_t u = 0;
      for (uint32_t k = 0; k < n_cand; k++)
        if (!u || cand[u - 1] != cand[k]) cand[u++] = cand[k];
      n_cand = u;
    }
    for (uint32_t k = 0; k < n_cand; k++) {
      uint32_t rule = cand[k];
      memset(&h.cur, 0, sizeof h.cur);
      h.cur.rule = rule;
      h.cur.root = n;
      h.err = NULL;
      if (e->sig[rule] && !e->no_screen && !tfx_flow_sig_test(e->sig[rule], e->pack, g, n, &e->ws)) {
        rep->screened++;
        continue;
      }
      if (!linked) {
        if ((rc = tfx_vm_link(e->vm, g, &m->ops, NULL, NULL, d)) != 0) break;
        linked = 1;
      }
      tfx_vm_result res;
      rep->candidates++;
      tfx_status vst = tfx_vm_run_map(e->vm, e->pack->rules[rule].prog, n, &res, d);
      if (vst) {
        if (h.oom) /* a host call ran out of memory (the VM added nothing: host.h) */
          tfx_error(d, NULL, 0, 0, "out of memory (dataflow rewrites)");
        else if (h.err)
          tfx_error(d, NULL, 0, 0, "rewrite '%s' on node '%s': %s", tfx_pack_str(e->pack, e->pack->rules[rule].name),
                    g->nodes[n].name, h.err);
        rc = h.oom ? TFX_E_NOMEM : vst;
        break;
      }
      if (h.oom) {
        tfx_error(d, NULL, 0, 0, "out of memory (dataflow rewrites)");
        rc = TFX_E_NOMEM;
        break;
      }
      if (res.value.tag != TFX_V_BOOL || !res.value.u.i) continue;
      if (!acceptable(&rs, &h.cur)) {
        rep->rejected++;
        continue;
      }
      if (n_tk == cap_tk) {
        uint32_t cap = cap_tk ? cap_tk * 2 : 16;
        taken *nv = tfx_realloc(tk, cap * sizeof *nv);
        if (!nv) {
          rc = -1;
          break;
        }
        tk = nv;
        cap_tk = cap;
      }
      tk[n_tk].r = h.cur;
      n_tk++;
      for (uint32_t i = 0; i < h.cur.n_rm; i++) rs.st[h.cur.rm[i]] = ST_REMOVED;
      for (uint32_t q = 0; q < h.cur.n_new; q++)
        for (uint32_t j = 0; j < h.cur.nw[q].n_in; j++)
          if (!h.cur.nw[q].in[j].src && !h.cur.nw[q].in[j].cval) {
            uint32_t p = producer(g, h.cur.nw[q].in[j].node, h.cur.nw[q].in[j].slot);
            if (p != TFX_NO_ID && rs.st[p] == ST_FREE) rs.st[p] = ST_PINNED;
          }
      for (uint32_t i = 0; i < h.cur.n_rm; i++) { /* control inputs moved to the new node */
        const tfx_node *rn = &g->nodes[h.cur.rm[i]];
        for (uint32_t q = rn->n_data_in; q < rn->n_in; q++)
          if (rn->in[q].kind == TFX_IN_NODE && rn->in[q].src < g->n_nodes && rs.st[rn->in[q].src] == ST_FREE)
            rs.st[rn->in[q].src] = ST_PINNED;
      }
      for (uint32_t j = 0; j < h.cur.n_out; j++)
        if (!h.cur.out[j].tname) {
          uint32_t p = producer(g, h.cur.out[j].tnode, h.cur.out[j].tport);
          if (p != TFX_NO_ID && rs.st[p] == ST_FREE) rs.st[p] = ST_PINNED;
        }
      break; /* the node is taken */
    }
  }
  free(slot_of);
  free(has_root);
  free(rootish);
  free(cand);
  free(pairs.key);
  free(pairs.val);
  if (rc == -1) goto nomem;
  if (rc == 0 && n_tk) {
    edit ed = {arena, d, g, 0, e->out_arg, g->func ? NULL : e->keep, g->func ? 0 : e->n_keep, e->change,
               &m->ops, tfx_calloc((size_t)m->ops.n + 1, 1), e->drop_by_name, {0}, 0, &scratch};
    rc = apply(&ed, e->pack, tk, n_tk, gd, rep, round);
    free(ed.sef);
    if (rc == 0) *changed = n_tk;
  }
  goto out;
nomem:
  tfx_error(d, NULL, 0, 0, "out of memory (dataflow rewrites)");
  rc = TFX_E_NOMEM;
out:
  tfx_vm_set_host(e->vm, NULL, NULL);
  free(tk);
  free(rs.st);
  free(rs.mark);
  tfx_arena_free(&scratch);
  return rc;
}

tfx_status tfx_flow_explain(tfx_flow_engine *e, const tfx_module *m, const tfx_graph *g,
                            uint32_t rule, uint32_t node, tfx_vm_result *res, tfx_diag *d) {
  if (rule >= e->pack->n_rules || e->pack->rules[rule].kind != TFX_RULE_FLOW || node >= g->n_nodes) {
    tfx_error(d, NULL, 0, 0, "internal error: tfx_flow_explain: bad rule or node");
    return TFX_E_FAIL;
  }
  tfx_status st = tfx_vm_link(e->vm, g, &m->ops, NULL, NULL, d);
  if (st) return st;
  tfx_arena scratch;
  tfx_arena_init(&scratch);
  fhost h;
  memset(&h, 0, sizeof h);
  h.A = &scratch;
  h.g = g;
  tfx_vm_set_host(e->vm, &flow_host, &h);
  st = tfx_vm_run_map(e->vm, e->pack->rules[rule].prog, node, res, d);
  tfx_vm_set_host(e->vm, NULL, NULL);
  tfx_arena_free(&scratch);
  if (h.oom) { /* a host call's (the VM added nothing: host.h) */
    tfx_error(d, NULL, 0, 0, "out of memory (dataflow rewrites)");
    st = TFX_E_NOMEM;
  }
  return st;
}
