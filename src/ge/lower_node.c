/* LOWERING, per node: attributes (mapped, prototype defaults, port names, provenance),
 * output descriptors, the Data layout walk, phase 1 (the ops of each mapped node) and phase 2
 * (their edges and input descriptors). Stage: ge (part of lowering; lower.c drives it and
 * documents the decisions). Input: one graph's nodes and mapping. Output: OpDefs appended to
 * the graph being lowered, in the model's arena.
 * Streaming only (the same bytes, fewer instructions): the attr block cache (a node whose
 * attrs are determined by what an earlier node's were gets that node's written block, and
 * builds no AttrDef: see "attr block cache" below) and the port-name lists found by the
 * mapping's port array (port_list_of). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ge/lower_int.h"
#include "tfxc/tfxc.h"

typedef tfx_lower_ctx lw;
typedef tfx_lower_graph lg;
typedef tfx_lower_node nrec;
typedef tfx_lower_sub subctx;
typedef tfx_lower_ctl ctl;

static Ge__Proto__AttrDef *attr_tensor(lw *w, Ge__Proto__TensorDef *t) {
  Ge__Proto__AttrDef *a = tfx_arena_alloc(w->AT, sizeof *a);
  if (!a) return NULL;
  ge__proto__attr_def__init(a);
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_T;
  a->t = t;
  return a;
}

static Ge__Proto__AttrDef *attr_dt(lw *w, int64_t cpp_dtype) {
  Ge__Proto__AttrDef *a = tfx_arena_alloc(w->AT, sizeof *a);
  if (!a) return NULL;
  ge__proto__attr_def__init(a);
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_DT;
  a->dt = cpp_dtype;
  return a;
}

static const tfx_cann_attr *proto_attr(const tfx_cann_op *p, const char *name) {
  for (uint32_t k = 0; p && k < p->n_attrs; k++)
    if (strcmp(p->attrs[k].name, name) == 0) return &p->attrs[k];
  return NULL;
}

static int is_graph_attr_type(int t) {
  return t == TFX_CANN_A_GRAPH || t == TFX_CANN_A_DYNAMIC_GRAPH;
}

/* ---------------------------------------------------------------- attributes */

/* Names of the subgraph attrs of a mapped op, in IR order. */
uint32_t tfx_lower_subgraph_attrs(const tfx_mapped_op *mop, const tfx_node *nd, const char **out,
                                  uint32_t max) {
  uint32_t n = 0;
  if (mop->proto) {
    for (uint32_t k = 0; k < mop->proto->n_attrs && n < max; k++)
      if (is_graph_attr_type(mop->proto->attrs[k].type)) out[n++] = mop->proto->attrs[k].name;
    return n;
  }
  static const struct {
    const char *op;
    const char *a[2];
  } builtin[] = {
      {"If", {"then_branch", "else_branch"}},
      {"StatelessIf", {"then_branch", "else_branch"}},
      {"While", {"cond", "body"}},
      {"StatelessWhile", {"cond", "body"}},
      {"Case", {"branches", NULL}},
      {"StatelessCase", {"branches", NULL}},
      {"PartitionedCall", {"f", NULL}},
      {"StatefulPartitionedCall", {"f", NULL}},
  };
  for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++) {
    if (!tfx_lower_is_type(mop->type, builtin[i].op) && !tfx_lower_is_type(nd->op, builtin[i].op))
      continue;
    for (int k = 0; k < 2 && builtin[i].a[k] && n < max; k++) out[n++] = builtin[i].a[k];
    break;
  }
  return n;
}

static int in_list(const char *const *v, uint32_t n, const char *s) {
  for (uint32_t k = 0; k < n; k++)
    if (strcmp(v[k], s) == 0) return 1;
  return 0;
}

/* The mapped attrs (skipping the names in skip), then the prototype's defaults for the ones
 * still missing; a missing REQUIRED_ATTR is a warning (GE fails later if it stays missing). */
static int map_attrs(lg *G, Ge__Proto__OpDef *op, const char *tfname, const char *type,
                     const tfx_map_attr *attrs, uint32_t n_attrs, const tfx_cann_op *proto,
                     const char *const *skip, uint32_t n_skip) {
  lw *w = G->w;
  for (uint32_t k = 0; k < n_attrs; k++) {
    const tfx_map_attr *a = &attrs[k];
    if (!a->name || in_list(skip, n_skip, a->name)) continue;
    const tfx_cann_attr *pa = proto_attr(proto, a->name);
    if (pa && is_graph_attr_type(pa->type)) continue; /* a subgraph, not an attribute */
    int ct = pa ? pa->type : -1, err = 0;
    Ge__Proto__AttrDef *v;
    if (a->tf) {
      v = tfx_ge_attr_from_tf_ex(w->AT, a->tf, ct, tfname, w->d, &err);
      if (!v && err == TFX_GE_E_KIND) {
        GWARN(G, "node '%s' (op %s): attribute '%s' has a TF value GE cannot hold; dropped", tfname,
              type, a->name);
        continue;
      }
    } else {
      v = tfx_ge_attr_from_value_ex(w->AT, &a->v, ct, 0, &err);
      if (!v && err == TFX_GE_E_KIND) {
        GERR(G, "node '%s' (op %s): attribute '%s': a %s value cannot be written as %s", tfname,
             type, a->name, tfx_v_tag_name(a->v.tag),
             pa ? "the prototype's type" : "a GE attribute");
        continue;
      }
    }
    if (!v) {
      if (err == TFX_GE_E_OOM) return tfx_lower_oom(w);
      w->failed = 1; /* reported */
      continue;
    }
    /* the opmap's name: copied, except when streaming (the op is written before lowering
     * returns; the mapping outlives it) */
    if (w->S ? tfx_ge_op_attr_put(w->AT, op, a->name, v)
             : tfx_ge_op_attr_set(w->AT, op, a->name, v))
      return tfx_lower_oom(w);
  }
  for (uint32_t k = 0; proto && k < proto->n_attrs; k++) {
    const tfx_cann_attr *pa = &proto->attrs[k];
    if (is_graph_attr_type(pa->type) || tfx_ge_op_attr_get(op, pa->name)) continue;
    if (pa->required) {
      GWARN(G, "node '%s' (op %s): required attribute '%s' is missing", tfname, type, pa->name);
      continue;
    }
    if (pa->value.tag == TFX_V_NONE) continue; /* default not expressible (Tensor) */
    int err = 0;
    Ge__Proto__AttrDef *v = tfx_ge_attr_from_value_ex(w->AT, &pa->value, pa->type, 1, &err);
    if (!v) {
      if (err == TFX_GE_E_OOM) return tfx_lower_oom(w);
      continue; /* GE fills IR defaults itself (docs/AIR.md §6.2) */
    }
    /* absent (looked up above); the table's name: copied unless streaming, as above */
    if (tfx_ge_op_attr_add(w->AT, op, pa->name, v, !w->S)) return tfx_lower_oom(w);
  }
  return 0;
}

/* _input_name_key/_value and _output_name_key/_value from the descriptor names (docs/AIR.md
 * §6.1). These lists are read raw by GE (§6.3's exception) so val_type does not matter
 * to it; tfxc sets it anyway (VT_LIST_STRING / VT_LIST_INT), as the checklist asks of every
 * list attr, which is harmless there and keeps them readable should a GE version stop
 * extracting them. Empty lists are not written. */
/* The list of port names n descriptors have. Ops with the same ports (every Mul: x1, x2) share
 * one AttrDef, as attrs are never mutated once built (tfx_ge_desc_copy shares them too): a
 * ListValue per op was a third of the GE model's memory. NULL on out of memory. */
static Ge__Proto__AttrDef *port_name_list(lw *w, Ge__Proto__TensorDescriptor **v, size_t n,
                                          size_t *index) {
  /* shared by later ops: in the model's arena (w->P), never the per-op scratch */
  size_t len = 0;
  for (size_t k = 0; k < n; k++) len += strlen(v[k]->name) + 1;
  char buf[512];
  char *key = len <= sizeof buf ? buf : tfx_arena_alloc(w->P, len);
  if (!key) return NULL;
  for (size_t k = 0, at = 0; k < n; k++) { /* "name\0name\0..." */
    size_t l = strlen(v[k]->name) + 1;
    memcpy(key + at, v[k]->name, l);
    at += l;
  }
  uint32_t ix = tfx_hmap_get(&w->port_lists, key, len);
  if (ix != TFX_HASH_NONE) {
    *index = ix;
    return w->port_list[ix];
  }
  const char **names = tfx_arena_calloc(w->P, n, sizeof *names);
  if (!names) return NULL;
  for (size_t k = 0; k < n; k++) names[k] = v[k]->name;
  Ge__Proto__AttrDef *a = tfx_ge_attr_list_str(w->P, names, n);
  if (key == buf && (key = tfx_arena_alloc(w->P, len))) memcpy(key, buf, len);
  if (!a || !key || TFX_GE_PUSH(w->P, w->port_list, w->n_port_list, a) ||
      tfx_hmap_put(&w->port_lists, key, len, (uint32_t)(w->n_port_list - 1), NULL) < 0 ||
      (w->memo && tfx_ge_air_memo_attr(w->memo, a)) ||
      TFX_GE_PUSH(w->P, w->port_entry, w->n_port_entry, NULL) ||
      TFX_GE_PUSH(w->P, w->port_entry, w->n_port_entry, NULL))
    return NULL;
  *index = w->n_port_list - 1;
  return a;
}

/* The list [0, 1, .., n - 1], shared by n for small n. NULL on out of memory. */
static Ge__Proto__AttrDef *port_index_list(lw *w, size_t n) {
  size_t cached = sizeof w->port_index / sizeof w->port_index[0];
  if (n < cached && w->port_index[n]) return w->port_index[n];
  tfx_arena *A = n < cached ? w->P : w->AT; /* cached: kept for later ops */
  int64_t *idx = tfx_arena_calloc(A, n, sizeof *idx);
  if (!idx) return NULL;
  for (size_t k = 0; k < n; k++) idx[k] = (int64_t)k;
  Ge__Proto__AttrDef *a = tfx_ge_attr_list_int(A, idx, n);
  if (a && n < cached && w->memo && tfx_ge_air_memo_attr(w->memo, a)) return NULL;
  if (a && n < cached) w->port_index[n] = a;
  return a;
}

/* The shared entry key = v kept in *slot (made in the model's arena on first use; streaming:
 * frozen). */
static Ge__Proto__OpDef__AttrEntry *shared_entry(lw *w, Ge__Proto__OpDef__AttrEntry **slot,
                                                const char *key, Ge__Proto__AttrDef *v) {
  if (!*slot) {
    Ge__Proto__OpDef__AttrEntry *e = tfx_arena_alloc(w->P, sizeof *e);
    if (!e) return NULL;
    ge__proto__op_def__attr_entry__init(e);
    e->key = (char *)key;
    e->value = v;
    if (w->memo && tfx_ge_air_memo_op_entry(w->memo, e)) return NULL; /* written once */
    *slot = e;
  }
  return *slot;
}

/* The port lists of the ops whose descriptors are named after a mapping's port array (most:
 * see port_names), by the array's address and length: the index into w->port_list, found
 * without joining and hashing the names. The arrays live in the op mapping's arena (shared by
 * nodes with the same ports) and are not changed while lowering runs. */
#define PN_SLOTS 512
typedef struct pn_slot {
  const tfx_map_port *p; /* NULL: empty */
  size_t n, ix;
} pn_slot;

#define AC_KEY_MAX 2048

typedef struct ac_slot {
  const uint8_t *key; /* in the cache's arena; NULL: empty slot */
  uint32_t len, hash;
  /* the block's record (lower.c's pre array; NULL: no attr); with a tail (a Const's data,
   * borrowed), the first node's own: a later node gets a copy with its own data */
  const tfx_ge_air_attrs *rec;
  Ge__Proto__TensorDescriptor *out; /* a Const's output desc (interned), else NULL */
} ac_slot;

struct tfx_lower_acache {
  ac_slot *slots; /* malloc, power-of-two capacity, at most half full */
  size_t cap, n;
  tfx_arena keys;
  /* the node being built: its key, kept until pre_encode has written its block (pending),
   * or the record found for it (has_hit) */
  uint8_t key[AC_KEY_MAX];
  uint32_t key_len, key_hash;
  int pending, has_hit;
  const tfx_ge_air_attrs *hit;
  /* a Const being looked up: its data (borrowed when written: the tail) and the slot found */
  const ProtobufCBinaryData *data;
  const ac_slot *found;
  int is_const;
  pn_slot *pn; /* port lists by mapping port array (port_list_of); PN_SLOTS, malloc */
  struct lw_slot *wires; /* tfx_lower_wire_lite's wirings (lw_slot); LW_SLOTS, malloc */
};

/* The port list of descs v (n of them) into *ix: through the memo when every desc's name is
 * the name of mp's port ("" for a port with none), else port_name_list. */
static Ge__Proto__AttrDef *port_list_of(lw *w, Ge__Proto__TensorDescriptor **v, size_t n,
                                        const tfx_map_port *mp, size_t mn, size_t *ix) {
  pn_slot *slot = NULL;
  if (mp && mn == n && w->acache) {
    size_t k = 0;
    for (; k < n && v[k] && v[k]->name; k++) {
      const char *a = v[k]->name, *b = mp[k].name ? mp[k].name : "";
      if (a != b && strcmp(a, b) != 0) break;
    }
    if (k == n && (slot = w->acache->pn)) {
      slot += (((uintptr_t)mp >> 4) ^ n) & (PN_SLOTS - 1);
      if (slot->p == mp && slot->n == n) {
        *ix = slot->ix;
        return w->port_list[slot->ix];
      }
    }
  }
  Ge__Proto__AttrDef *a = port_name_list(w, v, n, ix);
  if (a && slot) *slot = (pn_slot){mp, n, *ix};
  return a;
}

/* tfx_lower_port_names for op, whose input / output descs may be named after mp[0] / mp[1]
 * (mn[] ports; NULL: not known). */
/* The port-name attrs of direction dir (0 inputs, 1 outputs) for descs v (n > 0 of them;
 * mp/mn: the mapping's ports of that direction, or NULL: the descs' names): *ne the names
 * list's entry, *ve the index list's when n is under the cached sizes, else NULL with *index
 * that list (an entry of the op's own). Both lists are shared, so are their entries (an op
 * keeps the entries, not copies). 0, or -1 out of memory (reported). */
static int port_entries(lw *w, Ge__Proto__TensorDescriptor **v, size_t n, const tfx_map_port *mp,
                        size_t mn, int dir, Ge__Proto__OpDef__AttrEntry **ne,
                        Ge__Proto__OpDef__AttrEntry **ve, Ge__Proto__AttrDef **index) {
  size_t cached = sizeof w->port_index / sizeof w->port_index[0];
  size_t ix = 0;
  Ge__Proto__AttrDef *names = mp ? port_list_of(w, v, n, mp, mn, &ix) : port_name_list(w, v, n, &ix);
  *index = names ? port_index_list(w, n) : NULL;
  if (!names || !*index) return tfx_lower_oom(w);
  *ne = shared_entry(w, &w->port_entry[2 * ix + (size_t)dir],
                     dir ? "_output_name_key" : "_input_name_key", names);
  *ve = NULL;
  if (*ne && n < cached)
    *ve = shared_entry(w, &w->index_entry[dir][n], dir ? "_output_name_value" : "_input_name_value",
                       *index);
  if (!*ne || (n < cached && !*ve)) return tfx_lower_oom(w);
  return 0;
}

static int port_names(lw *w, Ge__Proto__OpDef *op, const tfx_map_port *const *mp,
                      const size_t *mn) {
  /* an op with no attr yet (a lite op being wired) takes the four keys, which differ, without
   * looking each up first */
  int fresh = op->n_attr == 0;
  for (int dir = 0; dir < 2; dir++) {
    size_t n = dir ? op->n_output_desc : op->n_input_desc;
    if (!n) continue;
    Ge__Proto__OpDef__AttrEntry *ne, *ve;
    Ge__Proto__AttrDef *index;
    if (port_entries(w, dir ? op->output_desc : op->input_desc, n, mp ? mp[dir] : NULL,
                     mp ? mn[dir] : 0, dir, &ne, &ve, &index))
      return -1;
    if (fresh ? TFX_GE_PUSH(w->AT, op->attr, op->n_attr, ne) : tfx_ge_op_entry_put(w->AT, op, ne))
      return tfx_lower_oom(w);
    if (ve) {
      if (fresh ? TFX_GE_PUSH(w->AT, op->attr, op->n_attr, ve) : tfx_ge_op_entry_put(w->AT, op, ve))
        return tfx_lower_oom(w);
    } else if (tfx_lower_set_attr(w, op, dir ? "_output_name_value" : "_input_name_value", index)) {
      return -1;
    }
  }
  return 0;
}

int tfx_lower_port_names(lw *w, Ge__Proto__OpDef *op) { return port_names(w, op, NULL, NULL); }

/* The same for the op of mapped node mop (descs named after its ports, as a rule). */
static int port_names_mop(lw *w, Ge__Proto__OpDef *op, const tfx_mapped_op *mop) {
  const tfx_map_port *mp[2] = {mop->in, mop->out};
  size_t mn[2] = {mop->n_in, mop->n_out};
  return port_names(w, op, mp, mn);
}

/* Provenance attrs (see the header). */
static int provenance(lg *G, Ge__Proto__OpDef *op, const tfx_node *nd, int graph_inner) {
  lw *w = G->w;
  const Tensorflow__AttrValue *fn = tfx_ge_tf_attr(nd->def, "_fusion_nodes");
  if (fn && fn->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && fn->list && fn->list->n_s) {
    Ge__Proto__AttrDef *names = tfx_ge_attr_from_tf(w->AT, fn);
    if (tfx_lower_set_attr(w, op, "_datadump_original_op_names", names) ||
        tfx_lower_set_attr(w, op, "_fusionop_original_type",
                           tfx_ge_attr_str(w->AT, tfx_lower_node_op(nd))))
      return -1;
    return 0;
  }
  const char *name = NULL;
  if (G->sub)
    name = tfx_lower_fmt_in(w, w->AT, "%s/%s/%s", G->sub->parent->name, G->sub->fn, nd->name);
  else if (graph_inner)
    name = nd->name;
  else
    return 0;
  if (!name) return -1;
  return tfx_lower_set_attr(w, op, "_datadump_original_op_names",
                            tfx_ge_attr_list_str(w->AT, &name, 1));
}

/* ---------------------------------------------------------------- descriptors */

/* tfx_tf_op_find(w->tt, nd's op), through w->tf_ops by the node's op id: the answer kept for
 * the op string it was found by (checked by content: the same answer for the same string). */
static const tfx_tf_op *tf_op_of(lw *w, const tfx_node *nd) {
  const char *o = nd->def ? nd->def->op : NULL;
  if (!w->tt || !o) return NULL;
  if (nd->op_id >= w->n_tf_ops) return tfx_tf_op_find(w->tt, o);
  struct tfx_lower_tfop *m = &w->tf_ops[nd->op_id];
  if (m->name && (m->name == o || strcmp(m->name, o) == 0)) return m->op;
  m->op = tfx_tf_op_find(w->tt, o);
  m->name = o; /* (the NodeDef's: it outlives lowering) */
  return m->op;
}

/* Output desc for TF output tf_port of nd (see the header for the rules). */
static Ge__Proto__TensorDescriptor *out_desc(lg *G, const tfx_node *nd, int32_t tf_port,
                                             const char *name, const char *layout) {
  lw *w = G->w;
  int ge = GE__PROTO__DATA_TYPE__DT_UNDEFINED;
  if (tf_port >= 0)
    ge = tfx_ge_dtype_from_tf(tfx_ge_tf_out_dtype_op(tf_op_of(w, nd), nd->def, tf_port));
  if (ge == GE__PROTO__DATA_TYPE__DT_UNDEFINED) ge = GE__PROTO__DATA_TYPE__DT_FLOAT;
  int64_t *dims = NULL, unk = -2;
  size_t n = 0;
  int r = tf_port >= 0 ? tfx_ge_tf_out_shape(w->AT, nd->def, tf_port, &dims, &n) : 0;
  if (r < 0) {
    tfx_lower_oom(w);
    return NULL;
  }
  Ge__Proto__TensorDescriptor *td =
      r ? tfx_ge_desc_new_shared(w->A, &w->shapes, name, ge, dims, n, 1, layout)
        : tfx_ge_desc_new_shared(w->A, &w->shapes, name, ge, &unk, 1, 0, layout);
  if (!td) tfx_lower_oom(w);
  return td;
}

/* ---------------------------------------------------------------- Data layout */

static int rank_fits(const char *f, size_t rank, int unknown_rank) {
  if (unknown_rank) return 0;
  if (rank == 4) return !strcmp(f, "NCHW") || !strcmp(f, "NHWC");
  if (rank == 5) return !strcmp(f, "NCDHW") || !strcmp(f, "NDHWC");
  return 0;
}

/* ATC's InferInputFormats, per Data: walk consumers over data edges until an op with a
 * data_format attr (BiasAdd walked through, Switch/Merge stop the walk); the formats found
 * must agree. Bounded to TFX_LOWER_FORMAT_WALK_MAX nodes. Returns the format or NULL. */
static const char *consumer_format(lg *G, uint32_t id) {
  const tfx_graph *g = G->g;
  if (!G->stamp) {
    G->stamp = tfx_calloc(g->n_nodes ? g->n_nodes : 1, sizeof *G->stamp);
    G->queue = tfx_calloc(TFX_LOWER_FORMAT_WALK_MAX, sizeof *G->queue);
    if (!G->stamp || !G->queue) {
      tfx_lower_oom(G->w);
      return NULL;
    }
  }
  uint32_t gen = ++G->gen;
  uint32_t head = 0, tail = 0;
  const char *found = NULL;
  int conflict = 0;
  G->stamp[id] = gen;
  G->queue[tail++] = id;
  while (head < tail && !conflict) {
    const tfx_node *nd = &g->nodes[G->queue[head++]];
    for (uint32_t u = 0; u < nd->n_uses; u++) {
      uint32_t c = nd->uses[u].node;
      const tfx_node *cn = &g->nodes[c];
      if (nd->uses[u].slot >= cn->n_data_in || G->stamp[c] == gen) continue;
      G->stamp[c] = gen;
      const char *op = tfx_lower_node_op(cn);
      const Tensorflow__AttrValue *df = tfx_ge_tf_attr(cn->def, "data_format");
      if (df && df->value_case == TENSORFLOW__ATTR_VALUE__VALUE_S && strcmp(op, "BiasAdd") != 0 &&
          strcmp(op, "BiasAddV1") != 0) {
        char buf[8];
        if (df->s.len >= sizeof buf) continue;
        memcpy(buf, df->s.data, df->s.len);
        buf[df->s.len] = '\0';
        static const char *const known[] = {"NCHW", "NHWC", "NCDHW", "NDHWC"};
        const char *f = NULL;
        for (size_t k = 0; k < 4; k++)
          if (!strcmp(buf, known[k])) f = known[k];
        if (!f) continue;
        if (found && found != f) conflict = 1;
        found = f;
        continue;
      }
      if (!strcmp(op, "Switch") || !strcmp(op, "Merge") || !strcmp(op, "RefSwitch") ||
          !strcmp(op, "RefMerge"))
        continue;
      if (tail < TFX_LOWER_FORMAT_WALK_MAX) G->queue[tail++] = c;
    }
  }
  return conflict ? NULL : found;
}

static const char *data_layout(lg *G, uint32_t id, size_t rank, int unknown_rank) {
  const char *f = G->w->o->input_format;
  if (f && *f) return rank_fits(f, rank, unknown_rank) ? f : "ND";
  if (unknown_rank || (rank != 4 && rank != 5)) return "ND";
  const char *c = consumer_format(G, id);
  return c && rank_fits(c, rank, 0) ? c : "ND";
}

/* ---------------------------------------------------------------- phase 1: ops */

static int build_data(lg *G, uint32_t id, Ge__Proto__OpDef *op) {
  lw *w = G->w;
  const tfx_node *nd = &G->g->nodes[id];
  uint32_t index = G->n_data++;
  if (G->sub) {
    GWARN(G, "node '%s' (op %s) becomes a Data op inside a subgraph; it has no parent input",
          nd->name, tfx_lower_node_op(nd));
    index += G->g->n_args;
  }
  if (tfx_lower_set_attr(w, op, "index", tfx_ge_attr_int(w->AT, index))) return -1;
  const Tensorflow__AttrValue *dt = tfx_ge_tf_attr(nd->def, "dtype");
  int ge = GE__PROTO__DATA_TYPE__DT_UNDEFINED;
  if (dt && dt->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE)
    ge = tfx_ge_dtype_from_tf((int)dt->type);
  if (ge == GE__PROTO__DATA_TYPE__DT_UNDEFINED) {
    GWARN(G, "node '%s' (op %s): no usable dtype attr for the Data op; DT_FLOAT assumed", nd->name,
          tfx_lower_node_op(nd));
    ge = GE__PROTO__DATA_TYPE__DT_FLOAT;
  }
  int64_t *dims = NULL, unk = -2;
  size_t n = 0;
  int have = 0;
  const tfx_prune_opts *po = w->o->prune;
  for (uint32_t k = 0; !G->sub && po && k < po->n_shapes; k++)
    if (po->shapes[k].name && strcmp(po->shapes[k].name, nd->name) == 0) {
      dims = po->shapes[k].dims;
      n = po->shapes[k].n_dims;
      have = 1;
    }
  if (!have) {
    const Tensorflow__AttrValue *sh = tfx_ge_tf_attr(nd->def, "shape");
    if (sh && sh->value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE)
      have = tfx_ge_tf_shape(w->A, sh->shape, &dims, &n);
    if (!have) have = tfx_ge_tf_out_shape(w->A, nd->def, 0, &dims, &n);
    if (have < 0) return tfx_lower_oom(w);
  }
  if (!have) {
    dims = &unk;
    n = 1;
  }
  int unknown_rank = n == 1 && dims[0] == -2;
  const char *layout = data_layout(G, id, n, unknown_rank);
  if (w->oom) return -1;
  Ge__Proto__TensorDescriptor *x =
      tfx_ge_desc_new_shared(w->A, &w->shapes, "x", ge, dims, n, !unknown_rank, layout);
  Ge__Proto__TensorDescriptor *y = x ? tfx_ge_desc_copy(w->A, x, "y", NULL) : NULL;
  if (tfx_lower_push_desc(w, &op->input_desc, &op->n_input_desc, x) ||
      tfx_lower_push_desc(w, &op->output_desc, &op->n_output_desc, y))
    return -1;
  return 0;
}

/* A Const's value; streaming: its desc is an interned one (frozen: written once). */
static Ge__Proto__TensorDef *tensor_from_tf(lw *w, const Tensorflow__TensorProto *t,
                                            const char *node, int *err) {
  if (w->memo) return tfx_ge_tensor_from_tf_shared(w->AT, &w->shapes, t, node, w->d, w->file, err);
  return tfx_ge_tensor_from_tf_ex(w->AT, t, node, w->d, w->file, err);
}

static int build_const(lg *G, uint32_t id, Ge__Proto__OpDef *op, const tfx_mapped_op *mop) {
  lw *w = G->w;
  const tfx_node *nd = &G->g->nodes[id];
  Ge__Proto__TensorDef *t = NULL;
  const Tensorflow__TensorProto *tf = NULL;
  int err = 0, found = 0;
  for (uint32_t k = 0; k < mop->n_attrs && !found; k++) {
    const tfx_map_attr *a = &mop->attrs[k];
    if (!a->name || strcmp(a->name, "value") != 0) continue;
    found = 1;
    if (a->tf && a->tf->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TENSOR)
      t = tensor_from_tf(w, a->tf->tensor, nd->name, &err), tf = a->tf->tensor;
    else if (!a->tf)
      t = tfx_ge_tensor_from_value(w->AT, &a->v, GE__PROTO__DATA_TYPE__DT_UNDEFINED, &err);
    else
      err = TFX_GE_E_KIND;
  }
  if (!found) {
    const Tensorflow__AttrValue *v = tfx_ge_tf_attr(nd->def, "value");
    if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TENSOR) {
      found = 1;
      t = tensor_from_tf(w, v->tensor, nd->name, &err);
      tf = v->tensor;
    }
  }
  /* the data borrowed from the TF tensor (attr.c) may stay where it is when written ahead */
  if (t && tf && tf->tensor_content.len && t->data.data == tf->tensor_content.data)
    w->borrow = t->data.data;
  if (!t) {
    if (err == TFX_GE_E_OOM) return tfx_lower_oom(w);
    if (err != TFX_GE_E_REPORTED)
      GERR(G, "node '%s' (op %s): the %s op needs a tensor attr 'value'%s", nd->name,
           tfx_lower_node_op(nd), op->type, found ? " it can hold" : "");
    w->failed = 1;
    return 0;
  }
  if (tfx_lower_set_attr(w, op, "value", attr_tensor(w, t))) return -1;
  const char *yname = mop->n_out && mop->out[0].name ? mop->out[0].name : "y";
  if (w->AT == w->A)
    return tfx_lower_push_out(w, op, tfx_ge_desc_copy(w->A, t->desc, yname, NULL));
  /* the value (and its desc) is in the scratch arena, written ahead with the op's attrs: the
   * output desc is made anew in the model's arena, as the tensor's desc was (attr.c: every
   * TensorDef desc is tfx_ge_desc_new(.., shape known, "ND")) */
  const Ge__Proto__TensorDescriptor *vd = t->desc;
  /* (its layout is "ND"; a copy otherwise, as the descriptor may borrow it) */
  const char *layout = vd->layout && strcmp(vd->layout, "ND") != 0
                           ? tfx_arena_strdup(w->A, vd->layout) : "ND";
  if (!layout) return tfx_lower_oom(w);
  return tfx_lower_push_out(w, op,
                            tfx_ge_desc_new_shared(w->A, &w->shapes, yname, vd->dtype,
                                                   vd->shape ? vd->shape->dim : NULL,
                                                   vd->shape ? vd->shape->n_dim : 0, 1, layout));
}

static int dyn_attrs(lw *w, Ge__Proto__OpDef *op, const tfx_map_dyn *dyn, uint32_t n) {
  for (uint32_t k = 0; k < n; k++) {
    if (!dyn[k].name) continue;
    char *key =
        tfx_lower_fmt_in(w, w->AT, "__dynamic_%s_%s_cnt", dyn[k].is_output ? "output" : "input",
                         dyn[k].name);
    if (!key || tfx_lower_set_attr(w, op, key, tfx_ge_attr_int(w->AT, dyn[k].count))) return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------- attr block cache */

/* Streaming phase 1 writes an op's own attrs ahead as one block of wire bytes (lower.c's
 * pre_encode), and most blocks repeat (10% distinct in the bench graphs). What the block of a
 * RULE / AUTO / PASSTHROUGH op that is neither a Data nor a Const op of the main graph holds
 * is determined by: the prototype (attr types, defaults), the mapped attrs (name; the TF
 * AttrValue or the rule's value), the dynamic-port counts, the optional inputs, and no
 * fusion provenance. Those are encoded into a key (exactly: bytes, lengths and tags, no
 * hash standing in for content); a node whose key was seen gets the block of the first node
 * with that key, and none of its AttrDefs is built, sorted nor written. A build that reported
 * anything (a dropped attr, a missing required one) is never cached, so every node that would
 * report still builds and reports. Keys that do not fit AC_KEY_MAX bytes, tensors, functions,
 * placeholders, scope/node values and fused nodes are not cached (built as before). */
typedef struct ac_buf {
  uint8_t *p;
  size_t n, cap;
  int bad; /* over cap, or a value the key does not describe */
} ac_buf;

/* (once bad, n stays where it was: every later put fails its room check too or is ignored) */
static inline int ac_room(ac_buf *b, size_t n) {
  if (n <= b->cap - b->n) return 1;
  b->bad = 1;
  b->n = b->cap;
  return 0;
}
static inline void ac_put(ac_buf *b, const void *v, size_t n) {
  if (!n || !ac_room(b, n)) return; /* (v may be NULL when n is 0) */
  memcpy(b->p + b->n, v, n);
  b->n += n;
}
static inline void ac_u8(ac_buf *b, uint8_t v) {
  if (ac_room(b, 1)) b->p[b->n++] = v;
}
static inline void ac_u64(ac_buf *b, uint64_t v) {
  if (!ac_room(b, 8)) return;
  memcpy(b->p + b->n, &v, 8);
  b->n += 8;
}
/* a string with its length (NULL and "" differ): 0, or 1, its length (4 bytes) and bytes */
static inline void ac_str(ac_buf *b, const char *s) {
  if (!s) {
    ac_u8(b, 0);
    return;
  }
  size_t n = strlen(s);
  if (n > UINT32_MAX || !ac_room(b, 5 + n)) {
    b->bad = 1;
    return;
  }
  uint32_t l = (uint32_t)n;
  b->p[b->n] = 1;
  memcpy(b->p + b->n + 1, &l, 4);
  memcpy(b->p + b->n + 5, s, n);
  b->n += 5 + n;
}

static void ac_shape(ac_buf *b, const Tensorflow__TensorShapeProto *s) {
  if (!s || s->unknown_rank) {
    ac_u8(b, 'U');
    return;
  }
  ac_u8(b, 'K');
  ac_u64(b, s->n_dim);
  for (size_t k = 0; k < s->n_dim; k++) ac_u64(b, (uint64_t)(s->dim[k] ? s->dim[k]->size : -1));
}

/* A TF AttrValue as attr.c's from_tf reads it (value case and every field it may read). */
static void ac_tf(ac_buf *b, const Tensorflow__AttrValue *v) {
  ac_u8(b, (uint8_t)v->value_case);
  switch (v->value_case) {
  case TENSORFLOW__ATTR_VALUE__VALUE_S:
    ac_u64(b, v->s.len);
    ac_put(b, v->s.data, v->s.len);
    return;
  case TENSORFLOW__ATTR_VALUE__VALUE_I: ac_u64(b, (uint64_t)v->i); return;
  case TENSORFLOW__ATTR_VALUE__VALUE_F: ac_put(b, &v->f, sizeof v->f); return;
  case TENSORFLOW__ATTR_VALUE__VALUE_B: ac_u8(b, v->b != 0); return;
  case TENSORFLOW__ATTR_VALUE__VALUE_TYPE: ac_u64(b, (uint64_t)v->type); return;
  case TENSORFLOW__ATTR_VALUE__VALUE_SHAPE: ac_shape(b, v->shape); return;
  case TENSORFLOW__ATTR_VALUE__VALUE_LIST: {
    const Tensorflow__AttrValue__ListValue *l = v->list;
    if (!l) {
      ac_u8(b, 0);
      return;
    }
    if (l->n_tensor || l->n_func) {
      b->bad = 1;
      return;
    }
    ac_u8(b, 1);
    ac_u64(b, l->n_s);
    for (size_t k = 0; k < l->n_s; k++) {
      ac_u64(b, l->s[k].len);
      ac_put(b, l->s[k].data, l->s[k].len);
    }
    ac_u64(b, l->n_i);
    ac_put(b, l->i, l->n_i * sizeof *l->i);
    ac_u64(b, l->n_f);
    ac_put(b, l->f, l->n_f * sizeof *l->f);
    ac_u64(b, l->n_b);
    for (size_t k = 0; k < l->n_b; k++) ac_u8(b, l->b[k] != 0);
    ac_u64(b, l->n_type);
    for (size_t k = 0; k < l->n_type; k++) ac_u64(b, (uint64_t)l->type[k]);
    ac_u64(b, l->n_shape);
    for (size_t k = 0; k < l->n_shape; k++) ac_shape(b, l->shape[k]);
    return;
  }
  default: b->bad = 1; return; /* tensor, func, placeholder, unset */
  }
}

static void ac_arr(ac_buf *b, const void *v, size_t n, size_t size) {
  ac_u64(b, n);
  if (n) ac_put(b, v, n * size);
}

/* A Const's TF tensor as attr.c's tensor_tf reads it: dtype, shape, and the data's length when
 * it is tensor_content (borrowed: the tail of the block, not part of it), else every typed
 * value field. *content: the tensor_content (NULL when the data is typed values). */
static void ac_tensor(ac_buf *b, const Tensorflow__TensorProto *t,
                      const ProtobufCBinaryData **content) {
  *content = NULL;
  if (!t || t->n_resource_handle_val || t->n_variant_val) {
    b->bad = 1;
    return;
  }
  ac_u64(b, (uint64_t)t->dtype);
  const Tensorflow__TensorShapeProto *sh = t->tensor_shape;
  if (!sh) {
    ac_u8(b, 'N');
  } else if (sh->unknown_rank) {
    ac_u8(b, 'U');
  } else {
    ac_u8(b, 'K');
    ac_u64(b, sh->n_dim);
    for (size_t k = 0; k < sh->n_dim; k++)
      ac_u64(b, (uint64_t)(sh->dim[k] ? sh->dim[k]->size : -1));
  }
  ac_u64(b, t->tensor_content.len);
  if (t->tensor_content.len) {
    *content = &t->tensor_content;
    return;
  }
  ac_arr(b, t->half_val, t->n_half_val, sizeof *t->half_val);
  ac_arr(b, t->float_val, t->n_float_val, sizeof *t->float_val);
  ac_arr(b, t->double_val, t->n_double_val, sizeof *t->double_val);
  ac_arr(b, t->int_val, t->n_int_val, sizeof *t->int_val);
  ac_arr(b, t->scomplex_val, t->n_scomplex_val, sizeof *t->scomplex_val);
  ac_arr(b, t->int64_val, t->n_int64_val, sizeof *t->int64_val);
  ac_u64(b, t->n_bool_val);
  for (size_t k = 0; k < t->n_bool_val; k++) ac_u8(b, t->bool_val[k] != 0);
  ac_arr(b, t->dcomplex_val, t->n_dcomplex_val, sizeof *t->dcomplex_val);
  ac_arr(b, t->uint32_val, t->n_uint32_val, sizeof *t->uint32_val);
  ac_arr(b, t->uint64_val, t->n_uint64_val, sizeof *t->uint64_val);
  ac_arr(b, t->float8_val.data, t->float8_val.len, 1);
  ac_u64(b, t->n_string_val);
  for (size_t k = 0; k < t->n_string_val; k++)
    ac_arr(b, t->string_val[k].data, t->string_val[k].len, 1);
}

/* A rule value (tag, length and content; lists item by item). */
static void ac_value(ac_buf *b, const tfx_value *v, unsigned depth) {
  if (depth > TFX_V_MAX_DEPTH) {
    b->bad = 1;
    return;
  }
  ac_u8(b, v->tag);
  switch (v->tag) {
  case TFX_V_NONE: return;
  case TFX_V_BOOL:
  case TFX_V_INT:
  case TFX_V_DTYPE: ac_u64(b, (uint64_t)v->u.i); return;
  case TFX_V_FLOAT: ac_put(b, &v->u.f, sizeof v->u.f); return;
  case TFX_V_STR:
    ac_u64(b, v->n);
    ac_put(b, v->u.s, v->n);
    return;
  case TFX_V_LIST:
    ac_u64(b, v->n);
    for (uint32_t k = 0; k < v->n && !b->bad; k++) ac_value(b, &v->u.items[k], depth + 1);
    return;
  default: b->bad = 1; return; /* scope, node */
  }
}

/* The key of node id's attr block into b; 0 when it has none (not cached). A Const
 * (is_const): its mapped "value" attrs by ac_tensor (the first one is its value; *content set
 * when that one's data is tensor_content), its output's name (the output desc's). */
static int ac_key(const lg *G, uint32_t id, ac_buf *b, int is_const,
                  const ProtobufCBinaryData **content) {
  const tfx_mapped_op *mop = &G->mg->ops[id];
  int have_value = 0;
  *content = NULL;
  const Tensorflow__AttrValue *fn = tfx_ge_tf_attr(G->g->nodes[id].def, "_fusion_nodes");
  if (fn && fn->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && fn->list && fn->list->n_s)
    return 0; /* provenance: the node's own names */
  ac_str(b, mop->type);
  ac_put(b, &mop->proto, sizeof mop->proto);
  ac_u64(b, mop->n_attrs);
  for (uint32_t k = 0; k < mop->n_attrs && !b->bad; k++) {
    const tfx_map_attr *a = &mop->attrs[k];
    ac_str(b, a->name);
    if (!a->name) continue;
    if (is_const && a->tf && strcmp(a->name, "value") == 0) {
      if (a->tf->value_case != TENSORFLOW__ATTR_VALUE__VALUE_TENSOR) return 0;
      const ProtobufCBinaryData *c = NULL;
      ac_u8(b, 'C');
      ac_tensor(b, a->tf->tensor, &c);
      if (!have_value) *content = c;
      have_value = 1;
    } else if (a->tf) {
      ac_u8(b, 'T');
      ac_tf(b, a->tf);
    } else {
      have_value |= is_const && strcmp(a->name, "value") == 0;
      ac_u8(b, 'V');
      ac_value(b, &a->v, 0);
    }
  }
  if (is_const) { /* its value from the NodeDef (not mapped): not cached */
    if (!have_value) return 0;
    ac_str(b, mop->n_out ? mop->out[0].name : NULL);
  }
  ac_u64(b, mop->n_dyn);
  for (uint32_t k = 0; k < mop->n_dyn; k++) {
    ac_str(b, mop->dyn[k].name);
    ac_u8(b, mop->dyn[k].is_output);
    ac_u64(b, mop->dyn[k].count);
  }
  for (uint32_t k = 0; k < mop->n_in; k++)
    if (mop->in[k].kind == TFX_CANN_OPT)
      ac_str(b, mop->in[k].ir_name ? mop->in[k].ir_name : mop->in[k].name);
  return !b->bad;
}

/* The cache (made on first use). NULL after reporting out of memory. */
static struct tfx_lower_acache *ac_get(lw *w) {
  if (!w->acache) {
    struct tfx_lower_acache *ac = tfx_calloc(1, sizeof *ac);
    if (!ac) {
      tfx_lower_oom(w);
      return NULL;
    }
    tfx_arena_init(&ac->keys);
    ac->pn = tfx_calloc(PN_SLOTS, sizeof *ac->pn); /* NULL: no memo, no error */
    w->acache = ac;
  }
  return w->acache;
}

/* Looks node id up: 1 found (ac->hit), 0 not found (its key pending: tfx_lower_attrs_put
 * adds it once its block is written), -1 not cacheable. */
static int ac_lookup(const lg *G, uint32_t id, struct tfx_lower_acache *ac, int is_const) {
  ac->pending = ac->has_hit = 0;
  ac->found = NULL;
  ac->is_const = is_const;
  ac_buf b = {ac->key, 0, sizeof ac->key, 0};
  if (!ac_key(G, id, &b, is_const, &ac->data) || b.n > UINT32_MAX) return -1;
  ac->key_len = (uint32_t)b.n;
  ac->key_hash = tfx_hash_bytes(ac->key, b.n);
  for (size_t m = ac->cap - 1, i = ac->key_hash & m; ac->cap && ac->slots[i].key; i = (i + 1) & m) {
    const ac_slot *s = &ac->slots[i];
    if (s->hash == ac->key_hash && s->len == ac->key_len && memcmp(s->key, ac->key, b.n) == 0) {
      ac->hit = s->rec;
      ac->found = s;
      ac->has_hit = 1;
      return 1;
    }
  }
  ac->pending = 1;
  return 0;
}

int tfx_lower_attrs_hit(lw *w, const tfx_ge_air_attrs **rec) {
  struct tfx_lower_acache *ac = w->acache;
  if (!ac || !ac->has_hit) return 0;
  ac->has_hit = 0;
  *rec = ac->hit;
  return 1;
}

int tfx_lower_attrs_put(lg *G, size_t first) {
  lw *w = G->w;
  struct tfx_lower_acache *ac = w->acache;
  if (!ac || !ac->pending) return 0;
  ac->pending = 0;
  if (G->gd->n_op != first + 1) return 0; /* (never: one op) */
  const tfx_ge_air_attrs *rec = first < G->cap_pre ? G->pre[first] : NULL;
  /* a tail must be this Const's data (as the key says), and a Const has its output desc */
  const ProtobufCBinaryData *data = ac->data;
  if (rec && rec->tail && (!data || rec->tail != data->data || rec->n_tail != data->len))
    return 0;
  if (!rec && data) return 0;
  Ge__Proto__OpDef *op = G->gd->op[first];
  Ge__Proto__TensorDescriptor *out = NULL;
  if (ac->is_const) {
    if (!op || op->n_output_desc != 1 || !op->output_desc[0]) return 0;
    out = op->output_desc[0];
  }
  if (2 * (ac->n + 1) > ac->cap) {
    size_t nc = ac->cap ? 2 * ac->cap : 1024;
    ac_slot *v = tfx_calloc(nc, sizeof *v);
    if (!v) return tfx_lower_oom(w);
    for (size_t k = 0; k < ac->cap; k++) {
      if (!ac->slots[k].key) continue;
      size_t i = ac->slots[k].hash & (nc - 1);
      while (v[i].key) i = (i + 1) & (nc - 1);
      v[i] = ac->slots[k];
    }
    free(ac->slots);
    ac->slots = v;
    ac->cap = nc;
  }
  uint8_t *key = tfx_arena_alloc(&ac->keys, ac->key_len ? ac->key_len : 1);
  if (!key) return tfx_lower_oom(w);
  memcpy(key, ac->key, ac->key_len);
  size_t i = ac->key_hash & (ac->cap - 1);
  while (ac->slots[i].key) i = (i + 1) & (ac->cap - 1);
  ac->slots[i] = (ac_slot){key, ac->key_len, ac->key_hash, rec, out};
  ac->n++;
  return 0;
}

void tfx_lower_attrs_free(lw *w) {
  struct tfx_lower_acache *ac = w->acache;
  if (!ac) return;
  free(ac->slots);
  free(ac->pn);
  free(ac->wires);
  tfx_arena_free(&ac->keys);
  free(ac);
  w->acache = NULL;
}

/* A Const found in the block cache: its output desc, and its block (a copy of the record with
 * this Const's own data as the tail, when the data is borrowed). 0, -1 (out of memory), or 1:
 * not usable after all (the data's length differs: never, the key has it), build it. */
static int const_hit(lw *w, Ge__Proto__OpDef *op, struct tfx_lower_acache *ac) {
  const ac_slot *sl = ac->found;
  const tfx_ge_air_attrs *rec = sl->rec;
  if (!sl->out || (rec && rec->tail && (!ac->data || ac->data->len != rec->n_tail))) {
    ac->has_hit = ac->pending = 0;
    return 1;
  }
  if (rec && rec->tail) {
    tfx_ge_air_attrs *own = tfx_arena_alloc(w->P, sizeof *own);
    if (!own) return tfx_lower_oom(w);
    *own = *rec;
    own->tail = ac->data->data;
    ac->hit = own;
  }
  return tfx_lower_push_out(w, op, sl->out);
}

/* RULE / AUTO / PASSTHROUGH: one op. Input descs are made when wiring. */
int tfx_lower_build_op(lg *G, uint32_t id) {
  lw *w = G->w;
  const tfx_node *nd = &G->g->nodes[id];
  const tfx_mapped_op *mop = &G->mg->ops[id];
  nrec *r = &G->nr[id];
  const char *type = mop->type && *mop->type ? mop->type : NULL;
  if (!type) {
    GERR(G, "node '%s' (op %s): the mapping gives no GE type", nd->name, tfx_lower_node_op(nd));
    return 0;
  }
  Ge__Proto__OpDef *op = r->gname ? tfx_lower_op_new(G, r->gname, type, r->slot) : NULL;
  if (!op) return -1;
  r->op = op;
  if (tfx_lower_is_type(type, "Data")) {
    r->special = TFX_LOWER_SP_DATA;
    if (build_data(G, id, op) || provenance(G, op, nd, 0) || tfx_lower_port_names(w, op)) return -1;
    return 0;
  }
  const char *skip[8];
  /* (pass 0 counted them: none, as a rule) */
  uint32_t n_skip = r->n_sub ? tfx_lower_subgraph_attrs(mop, nd, skip, 7) : 0;
  /* streaming, its attrs written ahead (lower.c's pre_encode): the block cache */
  struct tfx_lower_acache *ac = NULL;
  size_t n_diag = w->d->errors + w->d->warnings;
  int cache = w->S && w->AT == &w->scratch && !G->sub && !w->failed && r->n_sub == 0 && n_skip == 0;
  if (tfx_lower_is_type(type, "Const") || tfx_lower_is_type(type, "Constant")) {
    r->special = TFX_LOWER_SP_CONST;
    if (cache) {
      if (!(ac = ac_get(w))) return -1;
      if (ac_lookup(G, id, ac, 1) == 1) {
        int rc = const_hit(w, op, ac);
        if (rc <= 0) return rc;
      }
    }
    skip[n_skip++] = "value";
    if (map_attrs(G, op, nd->name, type, mop->attrs, mop->n_attrs, mop->proto, skip, n_skip) ||
        build_const(G, id, op, mop) || provenance(G, op, nd, 0) || port_names_mop(w, op, mop))
      return -1;
    if (ac && (w->failed || w->d->errors + w->d->warnings != n_diag)) ac->pending = 0;
    return 0;
  }
  if (cache) {
    if (!(ac = ac_get(w))) return -1;
    if (ac_lookup(G, id, ac, 0) == 1) { /* the block is known: only the output descs */
      for (uint32_t k = 0; k < mop->n_out; k++) {
        const tfx_map_port *p = &mop->out[k];
        if (tfx_lower_push_out(w, op,
                               out_desc(G, nd, p->tf_port, p->name ? p->name : "", p->format)))
          return -1;
      }
      return 0;
    }
  }
  if (map_attrs(G, op, nd->name, type, mop->attrs, mop->n_attrs, mop->proto, skip, n_skip))
    return -1;
  for (uint32_t k = 0; k < mop->n_out; k++) {
    const tfx_map_port *p = &mop->out[k];
    if (tfx_lower_push_out(w, op, out_desc(G, nd, p->tf_port, p->name ? p->name : "", p->format)))
      return -1;
  }
  if (dyn_attrs(w, op, mop->dyn, mop->n_dyn)) return -1;
  /* _opt_input: the optional IR inputs (GE's optional_input_names), VT_LIST_STRING */
  uint32_t n_opt = 0;
  for (uint32_t k = 0; k < mop->n_in; k++) n_opt += mop->in[k].kind == TFX_CANN_OPT;
  if (n_opt) {
    const char **v = tfx_arena_calloc(w->AT, n_opt, sizeof *v);
    if (!v) return tfx_lower_oom(w);
    n_opt = 0;
    for (uint32_t k = 0; k < mop->n_in; k++)
      if (mop->in[k].kind == TFX_CANN_OPT)
        v[n_opt++] = mop->in[k].ir_name ? mop->in[k].ir_name : mop->in[k].name;
    if (tfx_lower_set_attr(w, op, "_opt_input", tfx_ge_attr_list_str(w->AT, v, n_opt))) return -1;
  }
  if (provenance(G, op, nd, 0)) return -1;
  /* reported something: not cached (each node with this key reports it again) */
  if (ac && (w->failed || w->d->errors + w->d->warnings != n_diag)) ac->pending = 0;
  return 0;
}

/* Ports of an inner node of a graph map: names and kinds from its prototype. */
typedef struct iport {
  const char *name;
  uint8_t kind;
  const char *ir;
} iport;

/* n_have ports are fed; returns how many ports the op gets (>= n_have when optional ones stay
 * unfed) in *out (arena). Dynamic ports take what the fixed ones leave. */
static int inner_ports(lw *w, const tfx_cann_port *pp, uint32_t np, uint32_t n_have, int is_out,
                       iport **out, uint32_t *n_out) {
  uint32_t fixed = 0, n_dyn_ports = 0;
  for (uint32_t k = 0; k < np; k++) {
    if (pp[k].kind == TFX_CANN_DYN)
      n_dyn_ports++;
    else
      fixed++;
  }
  uint32_t dyn_count = n_have > fixed && n_dyn_ports ? n_have - fixed : 0;
  uint32_t total = np ? 0 : n_have;
  for (uint32_t k = 0; k < np; k++) total += pp[k].kind == TFX_CANN_DYN ? 0 : 1;
  total += dyn_count;
  if (np && !n_dyn_ports && n_have > total) total = n_have; /* extra inputs: named by position */
  iport *v = tfx_arena_calloc(w->A, total ? total : 1, sizeof *v);
  if (!v) return tfx_lower_oom(w);
  uint32_t n = 0;
  int first_dyn = 1;
  for (uint32_t k = 0; k < np; k++) {
    if (pp[k].kind == TFX_CANN_DYN) {
      uint32_t c = first_dyn ? dyn_count : 0;
      first_dyn = 0;
      for (uint32_t j = 0; j < c; j++) {
        v[n].name = tfx_lower_fmt(w, "%s%u", pp[k].name, j);
        if (!v[n].name) return -1;
        v[n].kind = TFX_CANN_DYN;
        v[n++].ir = pp[k].name;
      }
      continue;
    }
    v[n].name = pp[k].name;
    v[n].kind = pp[k].kind;
    v[n++].ir = pp[k].name;
  }
  while (n < total) { /* no prototype, or more inputs than it declares */
    v[n].name = total == 1 ? (is_out ? "y" : "x") : tfx_lower_fmt(w, "%s%u", is_out ? "y" : "x", n);
    if (!v[n].name) return -1;
    v[n].kind = TFX_CANN_REQ;
    v[n].ir = v[n].name;
    n++;
  }
  *out = v;
  *n_out = n;
  return 0;
}

static const char *forced_format(const tfx_map_port *v, uint32_t n, uint32_t port) {
  for (uint32_t k = 0; k < n; k++)
    if (v[k].tf_port >= 0 && (uint32_t)v[k].tf_port == port && v[k].format) return v[k].format;
  return "ND";
}

static int inner_index(const tfx_mapped_op *mop, const char *name) {
  for (uint32_t j = 0; name && j < mop->n_inner; j++)
    if (mop->inner[j].name && strcmp(mop->inner[j].name, name) == 0) return (int)j;
  return -1;
}

/* GRAPH: Consts and inner ops (values of the Consts and all inputs come when wiring). */
int tfx_lower_build_graph_node(lg *G, uint32_t id) {
  lw *w = G->w;
  const tfx_node *nd = &G->g->nodes[id];
  const tfx_mapped_op *mop = &G->mg->ops[id];
  nrec *r = &G->nr[id];
  uint32_t ni = mop->n_inner;
  if (!ni) {
    GERR(G, "node '%s' (op %s): its graph map has no nodes", nd->name, tfx_lower_node_op(nd));
    return 0;
  }
  r->inner = tfx_arena_calloc(w->A, ni, sizeof *r->inner);
  r->consts = tfx_arena_calloc(w->A, ni, sizeof *r->consts);
  if (!r->inner || !r->consts) return tfx_lower_oom(w);
  /* highest output port of each inner node that something reads */
  int32_t *max_out = tfx_calloc(ni, sizeof *max_out);
  if (!max_out) return tfx_lower_oom(w);
  for (uint32_t i = 0; i < ni; i++) max_out[i] = -1;
  for (uint32_t i = 0; i < ni; i++)
    for (uint32_t k = 0; k < mop->inner[i].n_in; k++) {
      const tfx_map_inner_in *x = &mop->inner[i].in[k];
      int j = x->cval ? -1 : inner_index(mop, x->src);
      if (j >= 0 && x->port > max_out[j]) max_out[j] = x->port;
    }
  for (uint32_t k = 0; k < mop->n_outs; k++) {
    int j = inner_index(mop, mop->outs[k].node);
    if (j >= 0 && mop->outs[k].port > max_out[j]) max_out[j] = mop->outs[k].port;
  }
  int rc = 0;
  for (uint32_t i = 0; i < ni && rc == 0; i++) {
    const tfx_map_inner *in = &mop->inner[i];
    const char *type = in->type && *in->type ? in->type : NULL;
    if (!in->name || !type) {
      GERR(G, "node '%s' (op %s): inner node %u of its graph map has no name or type", nd->name,
           tfx_lower_node_op(nd), i);
      continue;
    }
    const tfx_cann_op *proto = tfx_cann_find(w->protos, type);
    char *iname = tfx_lower_cat(w, G->prefix, in->name);
    if (!iname) {
      rc = -1;
      break;
    }
    if (in->n_in) {
      r->consts[i] = tfx_arena_calloc(w->A, in->n_in, sizeof *r->consts[i]);
      if (!r->consts[i]) {
        rc = tfx_lower_oom(w);
        break;
      }
    }
    for (uint32_t k = 0; k < in->n_in && rc == 0; k++) {
      if (!in->in[k].cval) continue;
      char *cname = tfx_lower_fmt(w, "%s/const_%u", iname, k);
      Ge__Proto__OpDef *c = cname ? tfx_lower_op_new(G, cname, "Const", TFX_LOWER_NO_SLOT) : NULL;
      if (!c) rc = -1;
      r->consts[i][k] = c;
    }
    if (rc) break;
    Ge__Proto__OpDef *op = tfx_lower_op_new(G, iname, type, TFX_LOWER_NO_SLOT);
    if (!op) {
      rc = -1;
      break;
    }
    r->inner[i] = op;
    if (map_attrs(G, op, nd->name, type, in->attrs, in->n_attrs, proto, NULL, 0)) {
      rc = -1;
      break;
    }
    /* outputs */
    iport *po = NULL;
    uint32_t npo = 0;
    uint32_t want = max_out[i] >= 0 ? (uint32_t)max_out[i] + 1 : 0;
    if (proto) {
      uint32_t fixed = 0;
      for (uint32_t k = 0; k < proto->n_out; k++) fixed += proto->out[k].kind != TFX_CANN_DYN;
      if (want < fixed) want = fixed;
    } else if (!want) {
      want = 1;
    }
    if (inner_ports(w, proto ? proto->out : NULL, proto ? proto->n_out : 0, want, 1, &po, &npo)) {
      rc = -1;
      break;
    }
    int default_dt = tfx_ge_tf_out_dtype(w->tt, nd->def, 0);
    for (uint32_t k = 0; k < npo && rc == 0; k++) {
      const char *layout = forced_format(in->out_fmt, in->n_out_fmt, k);
      int32_t tf_out = -1;
      for (uint32_t q = 0; q < mop->n_outs; q++)
        if (inner_index(mop, mop->outs[q].node) == (int)i && mop->outs[q].port == (int32_t)k)
          tf_out = mop->outs[q].index;
      Ge__Proto__TensorDescriptor *td;
      if (tf_out >= 0) {
        td = out_desc(G, nd, tf_out, po[k].name, layout);
      } else { /* an internal value: the node's first output dtype, unknown shape */
        int64_t unk = -2;
        int ge = tfx_ge_dtype_from_tf(default_dt);
        if (ge == GE__PROTO__DATA_TYPE__DT_UNDEFINED) ge = GE__PROTO__DATA_TYPE__DT_FLOAT;
        td = tfx_ge_desc_new(w->A, po[k].name, ge, &unk, 1, 0, layout);
      }
      rc = tfx_lower_push_desc(w, &op->output_desc, &op->n_output_desc, td);
    }
    if (rc) break;
    /* input port count (names come when wiring) and dynamic counts */
    iport *pi = NULL;
    uint32_t npi = 0;
    if (inner_ports(w, proto ? proto->in : NULL, proto ? proto->n_in : 0, in->n_in, 0, &pi, &npi)) {
      rc = -1;
      break;
    }
    for (int dir = 0; dir < 2 && rc == 0; dir++) {
      const iport *pv = dir ? po : pi;
      uint32_t np = dir ? npo : npi;
      const char *last = NULL;
      uint32_t cnt = 0;
      for (uint32_t k = 0; k <= np && rc == 0; k++) {
        const char *ir = k < np && pv[k].kind == TFX_CANN_DYN ? pv[k].ir : NULL;
        if (last && (!ir || strcmp(ir, last) != 0)) {
          char *key =
              tfx_lower_fmt_in(w, w->AT, "__dynamic_%s_%s_cnt", dir ? "output" : "input", last);
          if (!key || tfx_lower_set_attr(w, op, key, tfx_ge_attr_int(w->AT, cnt))) rc = -1;
          last = NULL;
        }
        if (ir && !last) {
          last = ir;
          cnt = 0;
        }
        if (ir) cnt++;
      }
    }
    if (rc == 0) rc = provenance(G, op, nd, 1);
  }
  free(max_out);
  return rc;
}

/* ---------------------------------------------------------------- phase 2: edges */

/* GE source of TF output port of node src (function bodies: out_arg flattened already). */
Ge__Proto__OpDef *tfx_lower_resolve_out(lg *G, uint32_t src, int32_t port, uint32_t *ge_port,
                                        const char *consumer) {
  const tfx_node *sn = &G->g->nodes[src];
  const tfx_mapped_op *smop = &G->mg->ops[src];
  nrec *r = &G->nr[src];
  Ge__Proto__OpDef *op = tfx_lower_nr_op(G, src);
  if (r->special) {
    if (!op || !op->n_output_desc) return NULL; /* its Const value failed: reported */
    if (port == 0) {
      *ge_port = 0;
      return op;
    }
  } else if (r->inner) {
    for (uint32_t q = 0; q < smop->n_outs; q++) {
      if (smop->outs[q].index != port) continue;
      int j = inner_index(smop, smop->outs[q].node);
      if (j < 0 || !r->inner[j] || smop->outs[q].port < 0 ||
          (size_t)smop->outs[q].port >= r->inner[j]->n_output_desc)
        break;
      *ge_port = (uint32_t)smop->outs[q].port;
      return r->inner[j];
    }
  } else if (op) {
    for (uint32_t k = 0; k < smop->n_out; k++)
      if (smop->out[k].tf_port == port) {
        *ge_port = k;
        return op;
      }
  } else {
    return NULL; /* the producer failed; already reported */
  }
  if (consumer)
    GERR(G, "node '%s' reads output %d of '%s' (op %s), which its mapping does not provide",
         consumer, (int)port, sn->name, tfx_lower_node_op(sn));
  return NULL;
}

/* GE source of a TF input (data: port >= 0). */
static Ge__Proto__OpDef *resolve_in(lg *G, const tfx_input *in, uint32_t *ge_port,
                                    const char *consumer) {
  if (in->kind == TFX_IN_ARG) {
    if (!G->args || in->src >= G->g->n_args || !G->args[in->src]) {
      GERR(G, "node '%s' reads a function argument that has no Data op", consumer);
      return NULL;
    }
    *ge_port = 0;
    return G->args[in->src];
  }
  if (in->src == TFX_NO_ID || in->src >= G->g->n_nodes) {
    GERR(G, "node '%s' has an unresolved input", consumer);
    return NULL;
  }
  int32_t port = in->port;
  if (in->out_arg)
    tfx_ge_tf_flat_port(G->w->tt, G->g->nodes[in->src].def, in->out_arg, in->port, &port);
  return tfx_lower_resolve_out(G, in->src, port, ge_port, consumer);
}

/* Control sources of a TF input (any port): the ops that stand for its producer. */
static int control_sources(lg *G, const tfx_input *in, Ge__Proto__OpDef **out, uint32_t max) {
  if (in->kind == TFX_IN_ARG) {
    if (G->args && in->src < G->g->n_args && G->args[in->src]) {
      out[0] = G->args[in->src];
      return 1;
    }
    return 0;
  }
  if (in->src == TFX_NO_ID || in->src >= G->g->n_nodes) return 0;
  const tfx_mapped_op *smop = &G->mg->ops[in->src];
  nrec *r = &G->nr[in->src];
  Ge__Proto__OpDef *op = tfx_lower_nr_op(G, in->src);
  if (op) {
    out[0] = op;
    return 1;
  }
  if (!r->inner) return 0;
  uint32_t n = 0;
  for (uint32_t q = 0; q < smop->n_outs && n < max; q++) {
    int j = inner_index(smop, smop->outs[q].node);
    if (j < 0 || !r->inner[j]) continue;
    int dup = 0;
    for (uint32_t k = 0; k < n; k++) dup |= out[k] == r->inner[j];
    if (!dup) out[n++] = r->inner[j];
  }
  for (uint32_t j = 0; n == 0 && j < smop->n_inner && j < max; j++)
    if (r->inner[j]) out[n++] = r->inner[j];
  return (int)n;
}

/* Control inputs being collected for one op (deduplicated by op). */
static int ctl_add(lw *w, ctl *c, const Ge__Proto__OpDef *op) {
  for (uint32_t k = 0; k < c->n; k++)
    if (c->v[k] == op->name) return 0;
  if (c->n == c->cap) {
    uint32_t nc = c->cap ? c->cap * 2 : 8;
    const char **v = tfx_realloc(c->v, nc * sizeof *v);
    if (!v) return tfx_lower_oom(w);
    c->v = v;
    c->cap = nc;
  }
  c->v[c->n++] = op->name;
  return 0;
}

int tfx_lower_ctl_add_input(lg *G, ctl *c, const tfx_input *in) {
  Ge__Proto__OpDef *src[16];
  int n = control_sources(G, in, src, 16);
  for (int k = 0; k < n; k++)
    if (ctl_add(G->w, c, src[k])) return -1;
  return 0;
}

/* Appends "src:-1" for each collected control source (not the op itself). */
int tfx_lower_ctl_flush(lw *w, Ge__Proto__OpDef *op, ctl *c) {
  for (uint32_t k = 0; k < c->n; k++) {
    if (c->v[k] == op->name) continue;
    char *s = tfx_lower_edge(w, c->v[k], -1);
    if (!s || tfx_ge_push_ptr(w->A, (void ***)&op->input, &op->n_input, s)) return tfx_lower_oom(w);
  }
  c->n = 0;
  return 0;
}

/* One data input: "src:idx" and the input desc copied from src's output desc, with this
 * port's name and layout (NULL: the producer's). */
int tfx_lower_add_input(lw *w, Ge__Proto__OpDef *op, Ge__Proto__OpDef *src, uint32_t port,
                        const char *name, const char *layout) {
  char *s = tfx_lower_edge(w, src->name, port);
  if (!s || tfx_ge_push_ptr(w->A, (void ***)&op->input, &op->n_input, s)) return tfx_lower_oom(w);
  return tfx_lower_push_desc(w, &op->input_desc, &op->n_input_desc,
                             tfx_ge_desc_copy_shared(w->A, &w->shapes, src->output_desc[port],
                                                     name, layout));
}

/* The unfed desc called name; streaming: one per name, made in the model's arena, sorted and
 * frozen (written once), shared by every op (never modify it). NULL on out of memory. */
static Ge__Proto__TensorDescriptor *unfed_desc(lw *w, const char *name) {
  if (!w->memo) return tfx_ge_desc_unfed(w->A, name);
  if (!name) name = "";
  size_t len = strlen(name);
  uint32_t ix = tfx_hmap_get(&w->unfed, name, len);
  if (ix != TFX_HASH_NONE) return w->unfed_v[ix];
  Ge__Proto__TensorDescriptor *td = tfx_ge_desc_unfed(w->P, name); /* copies name */
  if (!td) return NULL;
  tfx_ge_sort_desc_maps(td);
  if (TFX_GE_PUSH(w->P, w->unfed_v, w->n_unfed, td) ||
      tfx_hmap_put(&w->unfed, td->name, len, (uint32_t)(w->n_unfed - 1), NULL) < 0 ||
      tfx_ge_air_memo_desc(w->memo, td))
    return NULL;
  return td;
}

int tfx_lower_add_unfed(lw *w, Ge__Proto__OpDef *op, const char *name) {
  if (tfx_lower_push_str(w, &op->input, &op->n_input, "")) return -1;
  return tfx_lower_push_desc(w, &op->input_desc, &op->n_input_desc, unfed_desc(w, name));
}

int tfx_lower_wire_op(lg *G, uint32_t id, ctl *c) {
  lw *w = G->w;
  const tfx_node *nd = &G->g->nodes[id];
  const tfx_mapped_op *mop = &G->mg->ops[id];
  nrec *r = &G->nr[id];
  Ge__Proto__OpDef *op = r->op;
  uint32_t nd_in = nd->n_data_in;
  uint8_t few[64]; /* (most nodes: no allocation) */
  uint8_t *bound = nd_in <= sizeof few ? few : tfx_calloc(nd_in, 1);
  if (!bound) return tfx_lower_oom(w);
  if (bound == few) memset(few, 0, sizeof few);
  int rc = 0;
  if (r->special == TFX_LOWER_SP_DATA) {
    if (nd_in)
      GWARN(G, "node '%s' (op %s) becomes a Data op; its %u data input(s) become control inputs",
            nd->name, tfx_lower_node_op(nd), nd_in);
  } else if (r->special == TFX_LOWER_SP_CONST) {
    if (nd_in)
      GWARN(G, "node '%s' (op %s) becomes a Const op; its %u data input(s) become control inputs",
            nd->name, tfx_lower_node_op(nd), nd_in);
  } else {
    for (uint32_t k = 0; k < mop->n_in && rc == 0; k++) {
      const tfx_map_port *p = &mop->in[k];
      const char *pname = p->name ? p->name : "";
      if (p->tf_port < 0) {
        rc = tfx_lower_add_unfed(w, op, pname);
        continue;
      }
      if ((uint32_t)p->tf_port >= nd_in) {
        GERR(G,
             "node '%s' (op %s): its mapping binds TF input %d to '%s', but the node has "
             "%u data input(s)",
             nd->name, tfx_lower_node_op(nd), (int)p->tf_port, pname, nd_in);
        rc = tfx_lower_add_unfed(w, op, pname);
        continue;
      }
      bound[p->tf_port] = 1;
      uint32_t sp = 0;
      Ge__Proto__OpDef *src = resolve_in(G, &nd->in[p->tf_port], &sp, nd->name);
      if (!src) {
        rc = tfx_lower_add_unfed(w, op, pname); /* keeps the slot count; the run has failed */
        continue;
      }
      rc = tfx_lower_add_input(w, op, src, sp, pname, p->format ? p->format : "ND");
    }
    for (uint32_t k = 0; k < mop->n_deleted && rc == 0; k++) {
      int32_t j = mop->deleted[k];
      if (j < 0 || (uint32_t)j >= nd_in) continue;
      bound[j] = 1;
      rc = tfx_lower_ctl_add_input(G, c, &nd->in[j]);
    }
  }
  for (uint32_t j = 0; j < nd_in && rc == 0; j++) {
    if (bound[j]) continue;
    if (!r->special)
      GWARN(G,
            "node '%s' (op %s): TF data input %u is not mapped to a %s input; it becomes a "
            "control input",
            nd->name, tfx_lower_node_op(nd), j, op->type);
    rc = tfx_lower_ctl_add_input(G, c, &nd->in[j]);
  }
  for (uint32_t j = nd_in; j < nd->n_in && rc == 0; j++)
    rc = tfx_lower_ctl_add_input(G, c, &nd->in[j]);
  if (bound != few) free(bound);
  if (rc == 0) rc = tfx_lower_ctl_flush(w, op, c);
  if (rc == 0 && !r->special) rc = port_names_mop(w, op, mop);
  return rc;
}

/* The GE source of TF input in as tfx_lower_resolve_out finds it, when that takes no message
 * and no graph map's inner op: its op and output, or NULL (an argument, an out_arg, a graph
 * map, a port the mapping does not provide or its op lacks, a failed producer: the general
 * path then reports it). */
static Ge__Proto__OpDef *resolve_quiet(lg *G, const tfx_input *in, uint32_t *ge_port) {
  if (in->kind != TFX_IN_NODE || in->out_arg || in->src >= G->g->n_nodes || G->nr[in->src].inner)
    return NULL;
  Ge__Proto__OpDef *op = tfx_lower_resolve_out(G, in->src, in->port, ge_port, NULL);
  return op && *ge_port < op->n_output_desc ? op : NULL;
}

/* tfx_lower_wire_lite's results, by what determines them: the mapping's port arrays (their
 * names and layouts; not changed while lowering runs), the op's output-desc array (shared by
 * content, never modified) and each input's producer desc. Nodes of one kind fed by
 * producers of one kind are wired alike: the same interned input descs (a copy of the same
 * desc with the same name and layout interns to the same one) and the same shared port-name
 * entries. Only wirings whose descs are all frozen (the memo: neither changed nor freed while
 * lowering runs) are kept, in a direct-mapped table of LW_SLOTS slots (one wiring each,
 * replaced by the next one mapping there). A hit skips only look-ups that would find what
 * they made the first time (tfx_ge_desc_copy_shared, unfed_desc, port_list_of,
 * port_index_list, shared_entry): the same pointers, the same bytes. */
#define LW_SLOTS 1024
typedef struct lw_slot {
  const tfx_map_port *in, *out; /* in NULL: empty (a node with no port has no wiring kept) */
  Ge__Proto__TensorDescriptor **lite_out;
  uint32_t n_in, n_out, lite_n, n_attr;
  const Ge__Proto__TensorDescriptor *src[TFX_LOWER_LITE_IN]; /* NULL: unfed */
  Ge__Proto__TensorDescriptor *in_desc[TFX_LOWER_LITE_IN];
  Ge__Proto__OpDef__AttrEntry *attr[4];
} lw_slot;

/* The slot of node (mop, r)'s wiring with producer descs src (o->in_desc, o->src NULL for
 * an unfed port), found (*hit) or to fill; NULL when none (no table). */
static lw_slot *lw_find(lw *w, const tfx_mapped_op *mop, const nrec *r, const tfx_lower_wired *o,
                        int *hit) {
  *hit = 0;
  struct tfx_lower_acache *ac = w->acache;
  if (!ac || !mop->in) return NULL;
  if (!ac->wires && !(ac->wires = tfx_calloc(LW_SLOTS, sizeof *ac->wires))) return NULL;
  const uint64_t mul = 0x9E3779B97F4A7C15u;
  uint64_t h = ((uint64_t)(uintptr_t)mop->in ^ (uint64_t)mop->n_in << 56) * mul;
  h = (h ^ (uint64_t)(uintptr_t)mop->out) * mul;
  h = (h ^ (uint64_t)(uintptr_t)r->lite_out) * mul;
  for (uint32_t k = 0; k < mop->n_in; k++)
    h = (h ^ (uint64_t)(uintptr_t)(o->src[k] ? o->in_desc[k] : NULL)) * mul;
  lw_slot *sl = &ac->wires[(h >> 40) & (LW_SLOTS - 1)];
  if (sl->in != mop->in || sl->n_in != mop->n_in || sl->out != mop->out ||
      sl->n_out != mop->n_out || sl->lite_out != r->lite_out || sl->lite_n != r->lite_n)
    return sl;
  for (uint32_t k = 0; k < mop->n_in; k++)
    if (sl->src[k] != (o->src[k] ? o->in_desc[k] : NULL)) return sl;
  *hit = 1;
  return sl;
}

int tfx_lower_wire_lite(lg *G, uint32_t id, const ctl *c, tfx_lower_wired *o) {
  lw *w = G->w;
  const tfx_node *nd = &G->g->nodes[id];
  const tfx_mapped_op *mop = &G->mg->ops[id];
  const nrec *r = &G->nr[id];
  size_t cached = sizeof w->port_index / sizeof w->port_index[0];
  o->n_in = o->n_attr = 0;
  o->frozen = 0;
  if (!r->lite || c->n || !w->memo) return 0;
  if (r->special) /* a Const with no input at all: no edge, no port names (wire_op's branch) */
    return r->special == TFX_LOWER_SP_CONST && nd->n_in == 0;
  /* every TF input a data input bound by exactly one port (no control input, nothing deleted,
   * no warning), few ports, each producer found without a message */
  uint32_t nd_in = nd->n_data_in, seen = 0, fed = 0;
  if (nd->n_in != nd_in || mop->n_deleted || mop->n_in > TFX_LOWER_LITE_IN || mop->n_in >= cached ||
      r->lite_n >= cached)
    return 0;
  for (uint32_t k = 0; k < mop->n_in; k++) {
    int32_t tp = mop->in[k].tf_port;
    if (tp < 0) {
      o->src[k] = NULL;
      continue;
    }
    if ((uint32_t)tp >= nd_in || (seen >> tp & 1u)) return 0;
    seen |= 1u << tp;
    fed++;
    uint32_t sp = 0;
    const Ge__Proto__OpDef *src = resolve_quiet(G, &nd->in[tp], &sp);
    if (!src || !src->name || !*src->name) return 0;
    o->src[k] = src->name;
    o->port[k] = sp;
    o->in_desc[k] = src->output_desc[sp]; /* (the producer's; copied below) */
  }
  if (fed != nd_in) return 0;
  int hit;
  lw_slot *sl = lw_find(w, mop, r, o, &hit);
  if (sl && hit) {
    for (uint32_t k = 0; k < mop->n_in; k++) {
      o->in_desc[k] = sl->in_desc[k];
      if (o->src[k]) o->len[k] = strlen(o->src[k]);
    }
    o->n_in = mop->n_in;
    memcpy(o->attr, sl->attr, sl->n_attr * sizeof *o->attr);
    o->n_attr = sl->n_attr;
    o->frozen = 1; /* (only such wirings are kept) */
    return 1;
  }
  lw_slot key = {0};
  if (sl) { /* what the slot is filled with when the wiring may be kept */
    for (uint32_t k = 0; k < mop->n_in; k++) {
      key.src[k] = o->src[k] ? o->in_desc[k] : NULL;
      if (key.src[k] && !tfx_ge_air_memo_has(w->memo, key.src[k])) sl = NULL;
    }
  }
  /* wired as tfx_lower_wire_op would, in the same order: each input's desc (a copy of the
   * producer's with the port's name and layout, or the port's unfed desc), then the port-name
   * entries as port_names makes them for an op with no attr yet */
  for (uint32_t k = 0; k < mop->n_in; k++) {
    const tfx_map_port *p = &mop->in[k];
    const char *pname = p->name ? p->name : "";
    o->in_desc[k] = o->src[k] ? tfx_ge_desc_copy_shared(w->A, &w->shapes, o->in_desc[k], pname,
                                                        p->format ? p->format : "ND")
                              : unfed_desc(w, pname);
    if (!o->in_desc[k]) return tfx_lower_oom(w);
    if (o->src[k]) o->len[k] = strlen(o->src[k]);
  }
  o->n_in = mop->n_in;
  for (int dir = 0; dir < 2; dir++) { /* (both counts under the cached sizes: checked above) */
    size_t n = dir ? r->lite_n : o->n_in;
    if (!n) continue;
    Ge__Proto__OpDef__AttrEntry *ne, *ve;
    Ge__Proto__AttrDef *index;
    if (port_entries(w, dir ? r->lite_out : o->in_desc, n, dir ? mop->out : mop->in,
                     dir ? mop->n_out : mop->n_in, dir, &ne, &ve, &index))
      return -1;
    o->attr[o->n_attr++] = ne;
    o->attr[o->n_attr++] = ve;
  }
  for (uint32_t k = 0; sl && k < o->n_in; k++)
    if (!tfx_ge_air_memo_has(w->memo, o->in_desc[k])) sl = NULL;
  for (uint32_t k = 0; sl && k < r->lite_n; k++)
    if (!r->lite_out[k] || !tfx_ge_air_memo_has(w->memo, r->lite_out[k])) sl = NULL;
  if (sl) {
    key.in = mop->in;
    key.out = mop->out;
    key.lite_out = r->lite_out;
    key.n_in = mop->n_in;
    key.n_out = mop->n_out;
    key.lite_n = r->lite_n;
    key.n_attr = (uint32_t)o->n_attr;
    memcpy(key.in_desc, o->in_desc, o->n_in * sizeof *o->in_desc);
    memcpy(key.attr, o->attr, o->n_attr * sizeof *o->attr);
    *sl = key;
    o->frozen = 1;
  }
  return 1;
}

/* The dtype to give a constant of an inner node: that of its first non-constant input when
 * of the same class (float value -> float dtype, int value -> int dtype), else the value's. */
static int const_hint(const tfx_value *v, const Ge__Proto__TensorDescriptor *sibling) {
  if (!sibling) return GE__PROTO__DATA_TYPE__DT_UNDEFINED;
  int dt = sibling->dtype;
  int is_f = dt == GE__PROTO__DATA_TYPE__DT_FLOAT || dt == GE__PROTO__DATA_TYPE__DT_FLOAT16 ||
      dt == GE__PROTO__DATA_TYPE__DT_DOUBLE || dt == GE__PROTO__DATA_TYPE__DT_BF16;
  int is_i = dt == GE__PROTO__DATA_TYPE__DT_INT32 || dt == GE__PROTO__DATA_TYPE__DT_INT64 ||
      dt == GE__PROTO__DATA_TYPE__DT_INT8 || dt == GE__PROTO__DATA_TYPE__DT_INT16 ||
      dt == GE__PROTO__DATA_TYPE__DT_UINT8 || dt == GE__PROTO__DATA_TYPE__DT_UINT16 ||
      dt == GE__PROTO__DATA_TYPE__DT_UINT32 || dt == GE__PROTO__DATA_TYPE__DT_UINT64;
  const tfx_value *x = v;
  while (x->tag == TFX_V_LIST && x->n) x = &x->u.items[0];
  if (x->tag == TFX_V_FLOAT && is_f) return dt;
  if (x->tag == TFX_V_INT && (is_i || is_f)) return dt;
  return GE__PROTO__DATA_TYPE__DT_UNDEFINED;
}

int tfx_lower_wire_graph_node(lg *G, uint32_t id, ctl *c) {
  lw *w = G->w;
  const tfx_node *nd = &G->g->nodes[id];
  const tfx_mapped_op *mop = &G->mg->ops[id];
  nrec *r = &G->nr[id];
  int rc = 0, any_boundary = 0;
  for (uint32_t i = 0; i < mop->n_inner; i++)
    for (uint32_t k = 0; k < mop->inner[i].n_in; k++)
      any_boundary |= !mop->inner[i].in[k].cval && !mop->inner[i].in[k].src;
  for (uint32_t i = 0; i < mop->n_inner && rc == 0; i++) {
    const tfx_map_inner *in = &mop->inner[i];
    Ge__Proto__OpDef *op = r->inner[i];
    if (!op) continue;
    const tfx_cann_op *proto = tfx_cann_find(w->protos, op->type);
    iport *pi = NULL;
    uint32_t npi = 0;
    if (inner_ports(w, proto ? proto->in : NULL, proto ? proto->n_in : 0, in->n_in, 0, &pi, &npi))
      return -1;
    /* a sibling's desc for constant dtypes */
    const Ge__Proto__TensorDescriptor *sib = NULL;
    for (uint32_t k = 0; k < in->n_in && !sib; k++) {
      const tfx_map_inner_in *x = &in->in[k];
      if (x->cval) continue;
      uint32_t sp = 0;
      Ge__Proto__OpDef *src = NULL;
      if (x->src) {
        int j = inner_index(mop, x->src);
        if (j >= 0 && r->inner[j] && x->port >= 0 && (size_t)x->port < r->inner[j]->n_output_desc)
          src = r->inner[j], sp = (uint32_t)x->port;
      } else if (x->port >= 0 && (uint32_t)x->port < nd->n_data_in) {
        const tfx_input *ti = &nd->in[x->port];
        if (ti->kind == TFX_IN_ARG && G->args && ti->src < G->g->n_args)
          src = G->args[ti->src];
        else if (ti->kind == TFX_IN_NODE && ti->src < G->g->n_nodes && !ti->out_arg) {
          const tfx_mapped_op *smop = &G->mg->ops[ti->src];
          const nrec *sr = &G->nr[ti->src];
          Ge__Proto__OpDef *sop = tfx_lower_nr_op(G, ti->src);
          for (uint32_t q = 0; sop && q < smop->n_out && !src; q++)
            if (smop->out[q].tf_port == ti->port) src = sop, sp = q;
          if (sr->special && sop && ti->port == 0) src = sop, sp = 0;
        }
      }
      if (src && sp < src->n_output_desc) sib = src->output_desc[sp];
    }
    int reads_boundary = 0;
    for (uint32_t k = 0; k < npi && rc == 0; k++) {
      const char *layout = forced_format(in->in_fmt, in->n_in_fmt, k);
      if (k >= in->n_in) { /* prototype ports beyond the given inputs */
        if (pi[k].kind != TFX_CANN_OPT)
          GWARN(G, "node '%s' (op %s): inner node '%s' (%s) leaves required input '%s' unfed",
                nd->name, tfx_lower_node_op(nd), op->name, op->type, pi[k].name);
        rc = tfx_lower_add_unfed(w, op, pi[k].name);
        continue;
      }
      const tfx_map_inner_in *x = &in->in[k];
      if (x->cval) {
        Ge__Proto__OpDef *cop = r->consts[i] ? r->consts[i][k] : NULL;
        if (!cop) continue;
        int err = 0;
        Ge__Proto__TensorDef *t =
            tfx_ge_tensor_from_value(w->AT, x->cval, const_hint(x->cval, sib), &err);
        if (!t && err != TFX_GE_E_OOM)
          t = tfx_ge_tensor_from_value(w->AT, x->cval, GE__PROTO__DATA_TYPE__DT_UNDEFINED, &err);
        if (!t) {
          if (err == TFX_GE_E_OOM) return tfx_lower_oom(w);
          GERR(G,
               "node '%s' (op %s): constant input %u of inner node '%s' is not a rectangular "
               "list of numbers, bools or strings",
               nd->name, tfx_lower_node_op(nd), k, op->name);
          rc = tfx_lower_add_unfed(w, op, pi[k].name);
          continue;
        }
        /* attrs value and dtype (a dt: ATC's auto-mapped Const carries both) */
        if (tfx_lower_set_attr(w, cop, "value", attr_tensor(w, t)) ||
            tfx_lower_set_attr(w, cop, "dtype", attr_dt(w, tfx_ge_cpp_dtype(t->desc->dtype))) ||
            tfx_lower_push_desc(w, &cop->output_desc, &cop->n_output_desc,
                                tfx_ge_desc_copy(w->A, t->desc, "y", NULL)))
          return -1;
        if (provenance(G, cop, nd, 1) || tfx_lower_port_names(w, cop)) return -1;
        rc = tfx_lower_add_input(w, op, cop, 0, pi[k].name, layout);
        continue;
      }
      uint32_t sp = 0;
      Ge__Proto__OpDef *src = NULL;
      if (x->src) {
        int j = inner_index(mop, x->src);
        if (j < 0 || !r->inner[j]) {
          GERR(
              G,
              "node '%s' (op %s): inner node '%s' reads '%s', which is not a node of the graph map",
              nd->name, tfx_lower_node_op(nd), op->name, x->src);
        } else if (x->port < 0 || (size_t)x->port >= r->inner[j]->n_output_desc) {
          GERR(
              G,
              "node '%s' (op %s): inner node '%s' reads output %d of '%s', which has %zu output(s)",
              nd->name, tfx_lower_node_op(nd), op->name, (int)x->port, r->inner[j]->name,
              r->inner[j]->n_output_desc);
        } else {
          src = r->inner[j];
          sp = (uint32_t)x->port;
        }
      } else {
        reads_boundary = 1;
        if (x->port < 0 || (uint32_t)x->port >= nd->n_data_in)
          GERR(G,
               "node '%s' (op %s): inner node '%s' reads TF input %d, but the node has %u "
               "data input(s)",
               nd->name, tfx_lower_node_op(nd), op->name, (int)x->port, nd->n_data_in);
        else
          src = resolve_in(G, &nd->in[x->port], &sp, nd->name);
      }
      rc = src ? tfx_lower_add_input(w, op, src, sp, pi[k].name, layout)
               : tfx_lower_add_unfed(w, op, pi[k].name);
    }
    /* TF control inputs go to the inner nodes that read the boundary (else the first) */
    if (rc == 0 && (reads_boundary || (!any_boundary && i == 0)))
      for (uint32_t j = nd->n_data_in; j < nd->n_in && rc == 0; j++)
        rc = tfx_lower_ctl_add_input(G, c, &nd->in[j]);
    if (rc == 0) rc = tfx_lower_ctl_flush(w, op, c);
    if (rc == 0) rc = tfx_lower_port_names(w, op);
  }
  return rc;
}
