/* Incremental re-index after scope fusion and after each dataflow round: the new graph index
 * is made from the old one and what tfx_fusion_apply (or tfx_flow_round) changed (per old
 * node: its new id or absorbed, inputs rewritten or not), instead of re-reading every
 * NodeDef. A surviving node whose inputs were not rewritten keeps its parsed inputs (their
 * producer ids renumbered); new and rewired nodes take the inputs the change gives resolved
 * (a dataflow round's, main graph: tfx_graph_change.fix_*; checked for a full build's order
 * rules), else they are parsed and resolved by name (a rewired node's input that still names
 * its old, kept producer by comparing that one name, the others through the name map). Op
 * types are re-interned in the order a full build meets them,
 * the consumer lists and the topological order are recomputed by the same algorithm as
 * src/graph/graph.c, so the module is field for field what tfx_module_build_ex builds
 * (tfx_module_diff checks it: always in debug builds, and with TFXC_VERIFY_REINDEX=1).
 * Stage: passes (SCOPE_FUSION). Anything out of the ordinary (a problem a full build would
 * report, a lenient index) makes the caller fall back to the full build, which reports as
 * before. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/context.h"
#include "tfxc/tfxc.h"
#include "util/progress.h"

enum { UPD_OK = 0, UPD_FULL = 1, UPD_OOM = -1 };

typedef struct upd {
  tfx_module *nm;      /* being built */
  tfx_module *om;      /* the old index (its hash maps may be taken over) */
  uint32_t *op_map;    /* old op id -> new op id (TFX_NO_ID until met) */
  uint32_t next_iter, ref_next_iter;
} upd;

/* The new id of op type o of the old module (interned now when first met). */
static uint32_t map_op(upd *u, uint32_t o, const char *op) {
  if (o >= u->om->ops.n) return tfx_intern_id(&u->nm->ops, op, strlen(op));
  if (u->op_map[o] == TFX_NO_ID) u->op_map[o] = tfx_intern_id(&u->nm->ops, op, strlen(op));
  return u->op_map[o];
}

/* The new id of the producer old node o's input k read, when that producer is kept and is
 * named name[0..nl) (then the name map would give that id: names are unique), else
 * TFX_NO_ID. A rewired node mostly still reads most of its old producers: this compares one
 * name instead of hashing it and probing the graph's name map (two cache misses at 10^6). */
static uint32_t kept_producer(const tfx_graph *og, const tfx_node *o, uint32_t k,
                              const uint32_t *new_id, const char *name, size_t nl) {
  if (!o || k >= o->n_in) return TFX_NO_ID;
  const tfx_input *oi = &o->in[k];
  if (oi->kind != TFX_IN_NODE || oi->src >= og->n_nodes || new_id[oi->src] == TFX_NO_ID)
    return TFX_NO_ID;
  const char *on = og->nodes[oi->src].name;
  if (strncmp(on, name, nl) != 0 || on[nl]) return TFX_NO_ID; /* stops at on's end */
  return new_id[oi->src];
}

/* Parses and resolves the inputs of new-graph node nd (main graph form); o is the old node
 * it was (rewired), or NULL (a new node). Returns UPD_OK, or UPD_FULL on anything a full
 * build reports. */
static int resolve_main(tfx_graph *g, tfx_node *nd, uint32_t *use_count, const tfx_graph *og,
                        const tfx_node *o, const uint32_t *new_id) {
  int seen_control = 0;
  nd->n_data_in = 0;
  Tensorflow__NodeDef *def = nd->def;
  for (uint32_t k = 0; k < nd->n_in; k++) {
    tfx_input *in = &nd->in[k];
    const char *name;
    size_t nl;
    int32_t port;
    if (tfx_parse_input(def->input[k] ? def->input[k] : "", &name, &nl, &port) != 0) return UPD_FULL;
    in->out_arg = NULL;
    in->kind = TFX_IN_NODE;
    in->port = port;
    if (port < 0) seen_control = 1;
    else if (seen_control) return UPD_FULL;
    else nd->n_data_in = k + 1;
    uint32_t id = new_id ? kept_producer(og, o, k, new_id, name, nl) : TFX_NO_ID;
    if (id == TFX_NO_ID) id = tfx_hmap_get(&g->by_name, name, nl);
    if (id == TFX_HASH_NONE) return UPD_FULL;
    in->src = id;
    use_count[id]++;
  }
  return UPD_OK;
}

/* The same for a function body (`arg`, `^x`, `node:out_arg[:idx]`; graph.c's rules): args
 * maps the signature's input arg names to their numbers. */
static int resolve_func(tfx_graph *g, tfx_node *nd, const tfx_hmap *args, tfx_arena *a,
                        uint32_t *use_count) {
  int seen_control = 0;
  nd->n_data_in = 0;
  Tensorflow__NodeDef *def = nd->def;
  for (uint32_t k = 0; k < nd->n_in; k++) {
    tfx_input *in = &nd->in[k];
    const char *name, *oa;
    size_t nl, oal;
    int32_t port;
    in->out_arg = NULL;
    in->kind = TFX_IN_NODE;
    in->src = TFX_NO_ID;
    if (tfx_parse_func_input(def->input[k] ? def->input[k] : "", &name, &nl, &oa, &oal, &port) != 0)
      return UPD_FULL;
    in->port = port;
    if (port < 0) seen_control = 1;
    else if (seen_control) return UPD_FULL;
    else nd->n_data_in = k + 1;
    uint32_t id = tfx_hmap_get(&g->by_name, name, nl);
    uint32_t arg = tfx_hmap_get(args, name, nl);
    if (oa) { /* node:out_arg:idx */
      if (id == TFX_HASH_NONE) return UPD_FULL;
      if (!(in->out_arg = tfx_arena_strndup(a, oa, oal))) return UPD_OOM;
    } else if (port >= 0 || id == TFX_HASH_NONE) { /* a bare name is an arg; ^x a node first */
      if (arg == TFX_HASH_NONE) return UPD_FULL;
      in->kind = TFX_IN_ARG;
      in->src = arg;
      continue;
    }
    in->src = id;
    use_count[id]++;
  }
  return UPD_OK;
}

/* How many of the on old nodes new_id drops. */
static uint32_t n_gone(const uint32_t *new_id, uint32_t on) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < on; i++) k += new_id[i] == TFX_NO_ID;
  return k;
}

/* Deletes slot i of m (linear probing, backward shift: the entries after it whose probe
 * started at or before i move up, so every lookup still finds its key; no tombstones). */
static void hmap_delete_at(tfx_hmap *m, size_t i) {
  size_t mask = m->cap - 1, j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (!m->slots[j].key) break;
    size_t home = m->slots[j].hash & mask;
    /* j's entry may fill the hole at i unless its home lies cyclically in (i, j] */
    if (((j - home) & mask) >= ((j - i) & mask)) {
      m->slots[i] = m->slots[j];
      i = j;
    }
  }
  memset(&m->slots[i], 0, sizeof m->slots[i]);
  m->n--;
}

/* The old name map of a graph renumbered by new_id (on old nodes), in place: kept names get
 * their new ids, the names of gone nodes are deleted. Returns 1, or 0 when a slot holds a
 * value that is no old node id (then the update gives up). */
static int patch_names(tfx_hmap *m, const uint32_t *new_id, uint32_t on) {
  if (!m->cap || !m->n) return 1;
  /* One sweep of the slots, renumbering and deleting as it goes. It starts just after an
   * empty slot e and goes round once: a deletion at k (backward shift) pulls only entries
   * from after k and before the next empty slot, at the latest e, i.e. entries the sweep has
   * not reached yet, so slot k is looked at again and nothing is renumbered twice. (TFX_NO_ID
   * is no node id: n < TFX_NO_ID.) */
  size_t mask = m->cap - 1, e = 0;
  while (m->slots[e].key) e++; /* the map is at most half full: there is an empty slot */
  for (size_t k = (e + 1) & mask, left = m->cap; left;) {
    tfx_hmap_slot *s = &m->slots[k];
    if (s->key) {
      if (s->value >= on) return 0;
      uint32_t v = new_id[s->value];
      if (v == TFX_NO_ID) {
        hmap_delete_at(m, k);
        continue;
      }
      s->value = v;
    }
    k = (k + 1) & mask;
    left--;
  }
  return 1;
}

/* The resolved inputs ch gives for new-list node j of a main graph (fix_*, cursor *fc), taken
 * over with the checks a full build makes on their order; UPD_OK, UPD_FULL, or 2: none given
 * (parse the strings). */
static int fixed_inputs(const tfx_graph_change *ch, uint32_t *fc, uint32_t j, tfx_node *nd, uint32_t n,
                        uint32_t *use_count) {
  if (!ch || !ch->fix_node || !ch->fix_first || !ch->fix_in) return 2;
  while (*fc < ch->n_fix && ch->fix_node[*fc] < j) (*fc)++;
  if (*fc >= ch->n_fix || ch->fix_node[*fc] != j) return 2;
  uint32_t a = ch->fix_first[*fc], b = ch->fix_first[*fc + 1];
  (*fc)++;
  if (b < a || b > ch->fix_first[ch->n_fix] || b - a != nd->n_in) return UPD_FULL;
  int seen_control = 0;
  nd->n_data_in = 0;
  for (uint32_t k = 0; k < nd->n_in; k++) {
    const tfx_input *in = &ch->fix_in[a + k];
    if (in->kind != TFX_IN_NODE || in->src >= n || in->out_arg) return UPD_FULL;
    if (in->port < 0) seen_control = 1;
    else if (seen_control) return UPD_FULL;
    else nd->n_data_in = k + 1;
    nd->in[k] = *in;
    use_count[in->src]++;
  }
  return UPD_OK;
}

/* Builds g (new) from og (old) over defs[0..n): new_id / rewired as tfx_fusion_apply left
 * them, or NULL when the graph did not change (then defs must be og's node list); ch: the
 * whole change (its resolved inputs, if any, are taken for the nodes they name). */
static int update_graph(upd *u, tfx_graph *g, tfx_graph *og, Tensorflow__NodeDef **defs, size_t n,
                        const uint32_t *new_id, const uint8_t *rewired, const tfx_graph_change *ch) {
  tfx_arena *a = &u->nm->arena;
  uint32_t on = og->n_nodes;
  g->name = og->name;
  g->func = og->func;
  if (n >= TFX_NO_ID || (!new_id && n != on)) return UPD_FULL;
  g->n_nodes = (uint32_t)n;
  /* not zeroed: every field of every node is written below (an update that stops half way
   * is thrown away) */
  g->nodes = tfx_arena_alloc(a, (size_t)(n ? n : 1) * sizeof *g->nodes);
  if (!g->nodes) return UPD_OOM;
  if (og->n_args) {
    g->n_args = og->n_args;
    g->args = tfx_arena_alloc(a, (size_t)og->n_args * sizeof *g->args);
    if (!g->args) return UPD_OOM;
    memcpy(g->args, og->args, (size_t)og->n_args * sizeof *g->args);
  }
  int rc = UPD_FULL;
  uint32_t *old_of = tfx_malloc((n ? n : 1) * sizeof *old_of);
  uint32_t *use_start = tfx_calloc(n + 1, sizeof *use_start);
  uint32_t *indeg = NULL;
  tfx_hmap args;
  tfx_hmap_init(&args);
  int args_ready = 0;
  if (!old_of || !use_start) {
    rc = UPD_OOM;
    goto out;
  }
  for (size_t j = 0; j < n; j++) old_of[j] = TFX_NO_ID;
  for (uint32_t i = 0; i < on; i++) {
    uint32_t j = new_id ? new_id[i] : i;
    if (j == TFX_NO_ID) continue;
    if (j >= n || old_of[j] != TFX_NO_ID) goto out;
    old_of[j] = i; /* defs[j] == og->nodes[i].def is checked below, where the node is read */
  }

  /* names: the old map is taken over; a changed graph's map is patched in place (values
   * renumbered, the names of gone nodes deleted: no string is read, nothing reallocated),
   * then the new nodes' names are added below with the duplicate check (the map grows as a
   * full build's would; the same names give the same lookups) */
  g->by_name = og->by_name;
  tfx_hmap_init(&og->by_name);
  if (new_id) {
    if (!patch_names(&g->by_name, new_id, on) || g->by_name.n != (size_t)(on - n_gone(new_id, on)))
      goto out; /* a name the old map lacked, or a value it should not hold */
  }
  size_t total_in = 0;
  for (uint32_t j = 0; j < n; j++) {
    tfx_node *nd = &g->nodes[j];
    uint32_t i = old_of[j];
    if (i != TFX_NO_ID) {
      const tfx_node *o = &og->nodes[i];
      if (defs[j] != o->def) goto out; /* apply's lists disagree: the full build */
      nd->def = o->def;
      nd->name = o->name;
      nd->op = o->op;
      nd->op_id = map_op(u, o->op_id, o->op);
      nd->n_in = (new_id && rewired[i]) ? (uint32_t)0 : o->n_in;
      if (new_id && rewired[i]) {
        if (nd->def->n_input >= UINT32_MAX) goto out;
        nd->n_in = (uint32_t)nd->def->n_input;
      }
    } else {
      Tensorflow__NodeDef *def = defs[j];
      if (!def || !def->name || !def->name[0] || !def->op || !def->op[0] || def->n_input >= UINT32_MAX) goto out;
      nd->def = def;
      nd->name = def->name;
      nd->op = def->op;
      nd->op_id = tfx_intern_id(&u->nm->ops, def->op, strlen(def->op));
      nd->n_in = (uint32_t)def->n_input;
    }
    if (nd->op_id == TFX_HASH_NONE) {
      rc = UPD_OOM;
      goto out;
    }
    total_in += nd->n_in;
    if (new_id && i == TFX_NO_ID) {
      int r = tfx_hmap_put(&g->by_name, nd->name, strlen(nd->name), j, NULL);
      if (r < 0) {
        rc = UPD_OOM;
        goto out;
      }
      if (r == 0) goto out; /* a duplicate name: the full build reports it */
    }
  }

  /* inputs: kept (producers renumbered) or parsed */
  tfx_input *inputs = tfx_arena_alloc(a, (total_in ? total_in : 1) * sizeof *inputs); /* all written */
  if (!inputs) {
    rc = UPD_OOM;
    goto out;
  }
  size_t pos = 0;
  uint32_t fc = 0; /* cursor in ch's resolved inputs */
  if (g->func || !new_id) ch = NULL;
  for (uint32_t j = 0; j < n; j++) {
    tfx_progress_nodes(j, n);
    tfx_node *nd = &g->nodes[j];
    nd->in = nd->n_in ? inputs + pos : NULL;
    pos += nd->n_in;
    uint32_t i = old_of[j];
    if (i != TFX_NO_ID && !(new_id && rewired[i])) {
      const tfx_node *o = &og->nodes[i];
      nd->n_data_in = o->n_data_in;
      for (uint32_t k = 0; k < nd->n_in; k++) {
        tfx_input in = o->in[k];
        if (in.kind == TFX_IN_NODE && in.src != TFX_NO_ID) {
          uint32_t s = new_id ? new_id[in.src] : in.src;
          if (s == TFX_NO_ID) goto out; /* read an absorbed node without being rewired */
          in.src = s;
          use_start[s + 1]++;
        }
        if (in.out_arg && !(in.out_arg = tfx_arena_strdup(a, in.out_arg))) {
          rc = UPD_OOM;
          goto out;
        }
        nd->in[k] = in;
      }
    } else {
      int r = fixed_inputs(ch, &fc, j, nd, (uint32_t)n, use_start + 1);
      if (r == UPD_OK) continue;
      if (r != 2) {
        rc = r;
        goto out;
      }
      if (g->func) {
        if (!args_ready) { /* the signature's arg names, as the full build maps them */
          args_ready = 1;
          if (tfx_hmap_reserve(&args, g->n_args) < 0) {
            rc = UPD_OOM;
            goto out;
          }
          for (uint32_t k = 0; k < g->n_args; k++)
            if (tfx_hmap_put(&args, g->args[k], strlen(g->args[k]), k, NULL) < 0) {
              rc = UPD_OOM;
              goto out;
            }
        }
        r = resolve_func(g, nd, &args, a, use_start + 1);
      } else
        r = resolve_main(g, nd, use_start + 1, og, i != TFX_NO_ID ? &og->nodes[i] : NULL, new_id);
      if (r != UPD_OK) {
        rc = r;
        goto out;
      }
    }
  }

  /* consumer lists (CSR), by the same function a full build uses */
  if (tfx_graph_link_uses(g, a, use_start)) {
    rc = UPD_OOM;
    goto out;
  }

  /* topological order: Kahn's algorithm, the function graph.c orders by; a cycle goes to the
   * full build, which reports it */
  g->topo = tfx_arena_alloc(a, (size_t)(n ? n : 1) * sizeof *g->topo); /* all written, or no update */
  indeg = tfx_calloc(n ? n : 1, sizeof *indeg);
  if (!g->topo || !indeg) {
    rc = UPD_OOM;
    goto out;
  }
  uint32_t tail = 0;
  if (tfx_graph_kahn(g, use_start, u->next_iter, u->ref_next_iter, g->topo, indeg, &tail) != 0)
    goto out; /* lists it cannot read (2^31 uses): the full build */
  if (tail < n) goto out;
  rc = UPD_OK;
out:
  tfx_hmap_free(&args);
  free(indeg);
  free(use_start);
  free(old_of);
  return rc;
}

int tfx_module_update(tfx_module *nm, tfx_module *om, Tensorflow__GraphDef *gd,
                      const tfx_graph_change *changes) {
  memset(nm, 0, sizeof *nm);
  tfx_arena_init(&nm->arena);
  tfx_intern_init(&nm->ops);
  tfx_hmap_init(&nm->main.by_name);
  nm->fname = om->fname;
  nm->main.name = "";
  if (!gd || om->has_errors || om->main.names_dropped) return UPD_FULL; /* no map to take over */
  Tensorflow__FunctionDefLibrary *lib = gd->library;
  size_t nf = lib ? lib->n_function : 0;
  if (nf != om->n_funcs) return UPD_FULL;
  upd u = {nm, om, NULL, TFX_HASH_NONE, TFX_HASH_NONE};
  u.next_iter = tfx_intern_id(&nm->ops, "NextIteration", strlen("NextIteration"));
  u.ref_next_iter = tfx_intern_id(&nm->ops, "RefNextIteration", strlen("RefNextIteration"));
  u.op_map = tfx_malloc((om->ops.n ? om->ops.n : 1) * sizeof *u.op_map);
  if (u.next_iter == TFX_HASH_NONE || u.ref_next_iter == TFX_HASH_NONE || !u.op_map) {
    free(u.op_map);
    return UPD_OOM;
  }
  for (uint32_t k = 0; k < om->ops.n; k++) u.op_map[k] = TFX_NO_ID;
  int rc = update_graph(&u, &nm->main, &om->main, gd->node, gd->n_node, changes[0].new_id,
                        changes[0].rewired, &changes[0]);
  if (rc == UPD_OK && nf) {
    nm->funcs = tfx_arena_calloc(&nm->arena, nf, sizeof *nm->funcs);
    if (!nm->funcs) rc = UPD_OOM;
    else {
      nm->n_funcs = (uint32_t)nf;
      for (uint32_t i = 0; i < nf; i++) tfx_hmap_init(&nm->funcs[i].by_name);
    }
    for (uint32_t i = 0; i < nf && rc == UPD_OK; i++) {
      Tensorflow__FunctionDef *f = lib->function[i];
      tfx_graph *g = &nm->funcs[i], *og = &om->funcs[i];
      g->name = og->name;
      if (f != og->func) rc = UPD_FULL;
      else if (f)
        rc = update_graph(&u, g, og, f->node_def, f->n_node_def, changes[1 + i].new_id, changes[1 + i].rewired,
                          &changes[1 + i]);
    }
  }
  free(u.op_map);
  return rc;
}

/* ---------------------------------------------------------------- comparison */

static int diff(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int diff(char *why, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (why && n) vsnprintf(why, n, fmt, ap);
  va_end(ap);
  return 1;
}

static int graph_diff(const tfx_graph *a, const tfx_graph *b, char *why, size_t wn) {
  const char *gn = a->name ? a->name : "?";
  if (a->name != b->name || a->func != b->func || a->n_nodes != b->n_nodes || a->n_args != b->n_args)
    return diff(why, wn, "graph '%s': name, function, node or arg count", gn);
  for (uint32_t k = 0; k < a->n_args; k++)
    if (a->args[k] != b->args[k]) return diff(why, wn, "graph '%s': arg %u", gn, k);
  if ((a->topo == NULL) != (b->topo == NULL)) return diff(why, wn, "graph '%s': topological order", gn);
  if (a->by_name.n != b->by_name.n) return diff(why, wn, "graph '%s': names indexed", gn);
  for (uint32_t i = 0; i < a->n_nodes; i++) {
    const tfx_node *x = &a->nodes[i], *y = &b->nodes[i];
    if (x->name != y->name || x->op != y->op || x->op_id != y->op_id || x->def != y->def)
      return diff(why, wn, "graph '%s': node %u", gn, i);
    if (x->n_in != y->n_in || x->n_data_in != y->n_data_in || x->n_uses != y->n_uses ||
        (x->in == NULL) != (y->in == NULL) || (x->uses == NULL) != (y->uses == NULL))
      return diff(why, wn, "graph '%s': node '%s': input or consumer counts", gn, x->name);
    for (uint32_t k = 0; k < x->n_in; k++) {
      const tfx_input *p = &x->in[k], *q = &y->in[k];
      if (p->src != q->src || p->port != q->port || p->kind != q->kind ||
          (p->out_arg == NULL) != (q->out_arg == NULL) || (p->out_arg && strcmp(p->out_arg, q->out_arg)))
        return diff(why, wn, "graph '%s': node '%s': input %u", gn, x->name, k);
    }
    for (uint32_t k = 0; k < x->n_uses; k++)
      if (x->uses[k].node != y->uses[k].node || x->uses[k].slot != y->uses[k].slot)
        return diff(why, wn, "graph '%s': node '%s': consumer %u", gn, x->name, k);
    if (a->topo && a->topo[i] != b->topo[i]) return diff(why, wn, "graph '%s': topological order at %u", gn, i);
    if (tfx_graph_find(a, x->name) != tfx_graph_find(b, y->name))
      return diff(why, wn, "graph '%s': node '%s' found at another id", gn, x->name);
  }
  return 0;
}

int tfx_module_diff(const tfx_module *a, const tfx_module *b, char *why, size_t why_len) {
  if (a->ops.n != b->ops.n) return diff(why, why_len, "%u op types against %u", a->ops.n, b->ops.n);
  for (uint32_t k = 0; k < a->ops.n; k++)
    if (strcmp(tfx_intern_str(&a->ops, k), tfx_intern_str(&b->ops, k)) != 0)
      return diff(why, why_len, "op type %u: '%s' against '%s'", k, tfx_intern_str(&a->ops, k),
                  tfx_intern_str(&b->ops, k));
  if (a->n_funcs != b->n_funcs || a->has_errors != b->has_errors || a->fname != b->fname)
    return diff(why, why_len, "function count, errors or file name");
  if (graph_diff(&a->main, &b->main, why, why_len)) return 1;
  for (uint32_t i = 0; i < a->n_funcs; i++)
    if (graph_diff(&a->funcs[i], &b->funcs[i], why, why_len)) return 1;
  return 0;
}
