/* LOWERING: the mapped TF module -> one ge.proto.ModelDef (an .air file's content).
 * Stage: ge (after opmap, before the emitters). Input: the indexed module, the per-node mapping
 * decisions (opmap.h), the CANN prototype table, --input-format / --input-shape / --out-nodes.
 * Output: tfx_ge_model (its own arena; every string and payload is copied there).
 * Invariants of the result (docs/AIR.md): graph[0] is the main graph, named after
 * the model; subgraphs follow, flattened in pre-order; every op name is unique in the whole
 * model; every edge names an op of the same graph and an in-range output; every port has a
 * TensorDescriptor; every list attr has its val_type; maps are sorted by key (deterministic).
 *
 * Decisions (each also noted where it is implemented):
 *  - Ops: one OpDef per mapped TF node, in NodeDef order, named like the node; `-> graph` maps
 *    give one OpDef per inner node (the opmap's full names) preceded by a Const per constant
 *    input (`<inner>/const_<k>`). TF node names are reserved first, so a generated name that
 *    clashes gets a `_<n>` suffix (warned), never a TF node.
 *  - Edges: data inputs in CANN port order ("" for an unfed optional), then control inputs
 *    "src:-1" (deduplicated). tfx_map_port.tf_port and tfx_mapped_op.deleted are TF data-input
 *    positions (NodeDef order); a deleted input, and a TF data input no port takes (warned),
 *    become control inputs. A TF output k is the GE output whose tf_port is k.
 *  - Data (CANN type "Data"): attr index = 0.. in node order; input_desc "x" = output_desc
 *    "y"; dtype from attr dtype; shape from --input-shape, else attr shape, else
 *    _output_shapes; layout: --input-format for 4-D/5-D shapes it fits, else the data_format
 *    the consumers agree on (ATC's InferInputFormats walk, bounded; disagreement gives ND where
 *    ATC picks NHWC), else ND. Data ops carry no other attrs (TorchAir and ATC write none).
 *  - Const/Constant: attr value = the TensorDef (byte size checked), output_desc = value.desc.
 *  - NetOutput (docs/AIR.md §9.1: both forms are safe): an op "NetOutput" whose data inputs are
 *    the outputs, plus GraphDef.output "src:idx" listing the same (GE's serializer writes
 *    both, docs/AIR.md §2.2). Outputs = --out-nodes in order (ATC ignores --out_nodes for .air
 *    input, docs/AIR.md §9.1, so they must be in the file), else every output of each leaf op
 *    (no output feeds a data edge), in op order, except Data and Const ops (ATC's
 *    RemoveIsolateNode drops unconsumed Consts; an unused input is not an output). A model
 *    left with no output is a warning (GE would add an empty NetOutput).
 *    Input descs are named input0.. (TorchAir; GE ignores them) and copy the producers'.
 *    GraphDef.input lists "data:0" for the main graph's Data ops.
 *  - Descriptors: see lower_desc.c. Output dtype from the TF op def / attrs, else DT_FLOAT
 *    (TorchAir's rule, docs/AIR.md §7.4); shape from _output_shapes, else unknown rank [-2];
 *    input descs copy the producer's output desc with this port's name and format.
 *  - Provenance: a fused node (attrs _fusion_nodes from src/fusion/apply.c) gets
 *    _datadump_original_op_names = the absorbed names and _fusionop_original_type = its TF
 *    type (docs/ASCEND.md §4.6); inner nodes of a `-> graph` map get [the TF node name]; nodes in a
 *    subgraph get ["<parent op>/<function>/<node>"] (the TF parser's PostOpProcessForSubgraph,
 *    docs/ASCEND.md §7.4). Other main-graph nodes get none: the parser sets none on them.
 *  - Subgraphs (If, While, Case, PartitionedCall...: the prototype's GRAPH / DYNAMIC_GRAPH
 *    attrs in declaration order, or a built-in list when the op has no prototype): each
 *    function instance becomes a GraphDef named "<parent op>_<attr>" ("<parent op>_<attr><k>"
 *    for list(func), AutoMapping's instance numbering), made unique with `_<n>`; its nodes are
 *    renamed "<graph>/<node>" like the TF parser does, so names stay unique model-wide. Data
 *    per signature arg: index = arg position, _parent_node_index = the parent's GE input
 *    index of TF input (arg + offset), offset = parent data inputs - args (1 for If/Case's
 *    condition); dtype and shape from the parent's input desc (the arg's declared type wins).
 *    NetOutput inputs from FunctionDef.ret, in signature output order, each input desc with
 *    _parent_node_index = the parent's GE output of that TF output; control_ret entries are
 *    control inputs. A function used twice gives one graph per instance. Subgraphs get no
 *    GraphDef.input/output (their Data are registered automatically, docs/AIR.md §4.3).
 *    Limits: `node:out_arg:idx` references (body inputs and ret values) are flattened with
 *    the TF op table (an op it does not know: idx is taken as the flat index, exact for
 *    single-output-arg ops); polymorphic functions are not instantiated (an attr placeholder
 *    stays a string); recursion is an error; nesting is limited to 32 levels.
 *  - Size: nothing here limits the model to 2 GiB except single tensors; the air emitter
 *    refuses a serialized model of 2 GiB or more (ge.h). External weights (docs/AIR.md §12.1) are
 *    made after lowering, by external.c (called from the emit pass).
 *  - Streaming (tfx_ge_lower_opts.stream_air; the CLI's conversion to an .air alone): the same
 *    phases, but each op is serialized (air_write.c's stream) as soon as it is complete and
 *    then loses what only it needed. Phase 1 (ops, attrs, output descs) stays whole: input
 *    descs copy their producers' output descs, NetOutput is chosen from the whole graph. In
 *    phase 2 a node is wired in a scratch arena (input descs, edge strings, port-name attrs, a
 *    graph map's Const values), its edges are checked, its ops written (ids = position in the
 *    flattened model, maps sorted) and given back their phase-1 state; the scratch is reset.
 *    A node with subgraphs is written after them (phase 3) into a hole kept in the stream.
 *    The NetOutput is written last. Every check of the whole-model path runs, on the same
 *    data, before anything reaches a file (the emit pass writes the bytes afterwards). The
 *    graphs' own fields are written at the end; the ModelDef is then freed. With the .air's
 *    path (tfx_ge_lower_opts.air_path) the records go to a spill file with no name beside it
 *    (air_sink.c), not memory; the emit pass copies them from there into the output. Its
 *    write(2)s are made by a writer thread (tfx_ge_lower_opts.jobs), not the lowering's.
 *    What phase 1 keeps per op is what later ops and checks read: the OpDef (name, type), its
 *    output descs, a Data op's attrs. The node's own attrs are built in the scratch arena and
 *    written ahead as wire bytes (pre_encode: air_write.c's tfx_ge_air_stream_attrs, a Const's
 *    data borrowed from the TF tensor, not copied; equal blocks kept once, one record each),
 *    merged in key order with phase 2's when the op is written. A node whose block is
 *    determined by the same inputs as an earlier node's (prototype, mapped attr values,
 *    dynamic counts, optional inputs; a Const's dtype, shape and data length) takes that block
 *    without building its attrs (lower_node.c's attr block cache: tfx_lower_attrs_hit and
 *    tfx_lower_attrs_put). The op of such a RULE / AUTO / PASSTHROUGH node is kept "lite"
 *    (keep_lite): its OpDef and output-desc array are made in the scratch arena too and
 *    dropped; what stays is the node's name, the mapping's type and an output-desc array
 *    shared by content (tfx_lower_node.lite_out; per op only the node id,
 *    tfx_lower_graph.lite). Wiring and the checks read such a producer through an OpDef made
 *    on demand (tfx_lower_op_get: a small ring, read at once, never kept; control inputs are
 *    collected by name), and the node's own OpDef is made anew in the scratch while it is
 *    wired and written. As a rule not even that: a lite op whose wiring takes nothing
 *    unusual (data inputs each bound by one port, producers found at once, no control,
 *    deleted or unbound input, no message; a Const with no input) is wired by its parts
 *    (lower_node.c's tfx_lower_wire_lite: the same input descs and port-name entries, made in
 *    the same order, or taken from an earlier node wired alike: lw_slot), its edges checked as check_edges would, and its record written from
 *    the parts (write_lite: air_write.c's tfx_ge_air_stream_edges writes each "src:port"
 *    from the producer's name and port, no string made; no OpDef is built, no map sorted).
 *    Anything else takes the OpDef's path; TFXC_LOWER_LITE_GENERAL=1 forces it for every op
 *    (tests/cli/lower_lite.sh compares the two). At 10^6 nodes that is 20 bytes per op where the OpDef and its array
 *    were 352. Not for Data ops (their index is checked at the end) and nodes with
 *    subgraphs (written whole in phase 3). Output descs are shared by value (one per distinct
 *    name, dtype, shape and layout), and the tree's strings are borrowed from the TF side and
 *    the op mapping, which outlive the call.
 *    What many ops share is written once (air_write.h's memo: frozen objects' bytes copied by
 *    address): the interned descs, which input descs (copies of an interned output desc with
 *    their own name and layout), Const value descs and unfed-input descs (one per port name)
 *    are too when streaming, and the port-name lists with their map entries. A frozen object is
 *    never modified (a subgraph NetOutput's input desc, which gets _parent_node_index, is an
 *    own copy). TF node ops take the name slot pass 0 reserved (no look-up). An op record's
 *    descriptor records are kept whole when all its descs are frozen (air_write.c
 *    w_op_descs), as its merged attr map is.
 *  - Memory traffic (the same bytes; at 10^6 nodes most of lowering's time is first reads of
 *    scattered TF data): pass 0 hashes a block of names, then probes the name table with the
 *    entries prefetched (reserve_names); phase 2 prefetches each record's name a few nodes
 *    ahead; check_edges finds an input's producer through the TF graph (hinted_index, checked
 *    by name) before the name table's hash probe; each op's kind (Data, Const) is kept as
 *    phase 1 makes it, for the sweeps after it (outputs, inputs, Data indices, plan_air).
 * Files: this one drives (graphs, subgraphs, outputs, checks); lower_node.c lowers each node
 * (attributes, Data layout, ops, edges); lower_desc.c makes descriptors; attr.c converts
 * values. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ge/lower_int.h"
#include "tfxc/tfxc.h"
#include "util/progress.h"

#define MAX_SUBGRAPH_DEPTH 32

typedef tfx_lower_ctx lw;
typedef tfx_lower_graph lg;
typedef tfx_lower_node nrec;
typedef tfx_lower_sub subctx;
typedef tfx_lower_ctl ctl;

/* ---------------------------------------------------------------- diagnostics */

void tfx_lower_msg(lg *G, tfx_severity sev, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (G->fn)
    tfx_diag_add(G->w->d, sev, G->w->file, 0, 0, "function '%s': %s", G->fn, buf);
  else
    tfx_diag_add(G->w->d, sev, G->w->file, 0, 0, "%s", buf);
  if (sev == TFX_SEV_ERROR) G->w->failed = 1;
}

int tfx_lower_oom(lw *w) {
  if (!w->oom) tfx_error(w->d, w->file, 0, 0, "out of memory (lowering to GE IR)");
  w->oom = w->failed = 1;
  return -1;
}

/* ---------------------------------------------------------------- small helpers */

char *tfx_lower_cat(lw *w, const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *s = tfx_arena_alloc(w->A, la + lb + 1);
  if (!s) {
    tfx_lower_oom(w);
    return NULL;
  }
  memcpy(s, a, la);
  memcpy(s + la, b, lb + 1);
  return s;
}

static char *lower_vfmt(lw *w, tfx_arena *A, const char *f, va_list ap)
    __attribute__((format(printf, 3, 0)));
static char *lower_vfmt(lw *w, tfx_arena *A, const char *f, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, f, aq);
  va_end(aq);
  char *s = n < 0 ? NULL : tfx_arena_alloc(A, (size_t)n + 1);
  if (!s) {
    tfx_lower_oom(w);
    return NULL;
  }
  vsnprintf(s, (size_t)n + 1, f, ap);
  return s;
}

char *tfx_lower_fmt(lw *w, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char *s = lower_vfmt(w, w->A, f, ap);
  va_end(ap);
  return s;
}

char *tfx_lower_fmt_in(lw *w, tfx_arena *A, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char *s = lower_vfmt(w, A, f, ap);
  va_end(ap);
  return s;
}

char *tfx_lower_edge(lw *w, const char *name, int64_t port) {
  char num[24], *q = num + sizeof num;
  uint64_t u = port < 0 ? (uint64_t)0 - (uint64_t)port : (uint64_t)port;
  do *--q = (char)('0' + u % 10); while ((u /= 10) != 0);
  if (port < 0) *--q = '-';
  size_t n = name ? strlen(name) : 0, k = (size_t)(num + sizeof num - q);
  char *s = tfx_arena_alloc(w->A, n + k + 2);
  if (!s) {
    tfx_lower_oom(w);
    return NULL;
  }
  if (n) memcpy(s, name, n);
  s[n] = ':';
  memcpy(s + n + 1, q, k);
  s[n + 1 + k] = '\0';
  return s;
}

/* key: static or in the model's arena (borrowed) */
int tfx_lower_set_attr(lw *w, Ge__Proto__OpDef *op, const char *key, Ge__Proto__AttrDef *v) {
  if (!v || tfx_ge_op_attr_put(w->AT, op, key, v)) return tfx_lower_oom(w);
  return 0;
}

int tfx_lower_push_str(lw *w, char ***arr, size_t *n, const char *s) {
  char *c = tfx_arena_strdup(w->A, s);
  if (!c || tfx_ge_push_ptr(w->A, (void ***)arr, n, c)) return tfx_lower_oom(w);
  return 0;
}

int tfx_lower_push_desc(lw *w, Ge__Proto__TensorDescriptor ***arr, size_t *n,
                        Ge__Proto__TensorDescriptor *td) {
  if (!td || tfx_ge_push_ptr(w->A, (void ***)arr, n, td)) return tfx_lower_oom(w);
  return 0;
}

int tfx_lower_push_out(lw *w, Ge__Proto__OpDef *op, Ge__Proto__TensorDescriptor *td) {
  if (!td || tfx_ge_push_ptr(w->OPA, (void ***)&op->output_desc, &op->n_output_desc, td))
    return tfx_lower_oom(w);
  return 0;
}

/* ---------------------------------------------------------------- ops kept lite */

/* op = the op of lite node id as phase 1 made it (its attrs written ahead). */
static void lite_op(const lg *G, uint32_t id, Ge__Proto__OpDef *op) {
  const nrec *r = &G->nr[id];
  ge__proto__op_def__init(op);
  op->name = (char *)r->gname;
  op->type = (char *)G->mg->ops[id].type;
  op->output_desc = r->lite_out;
  op->n_output_desc = r->lite_n;
}

Ge__Proto__OpDef *tfx_lower_op_get(lg *G, size_t i) {
  Ge__Proto__OpDef *op = G->gd->op[i];
  if (op) return op;
  /* a ring slot keeps its init'ed fields (nothing modifies it): only these four change */
  const nrec *r = &G->nr[G->lite[i]];
  op = &G->ring[G->ring_next++ % TFX_LOWER_RING];
  op->name = (char *)r->gname;
  op->type = (char *)G->mg->ops[G->lite[i]].type;
  op->output_desc = r->lite_out;
  op->n_output_desc = r->lite_n;
  return op;
}

Ge__Proto__OpDef *tfx_lower_nr_op(lg *G, uint32_t id) {
  const nrec *r = &G->nr[id];
  return r->op ? r->op : r->lite ? tfx_lower_op_get(G, r->op_end - 1) : NULL;
}

/* The name, type and output count of op i (no OpDef made for a lite one). */
static const char *op_name(const lg *G, size_t i) {
  return G->gd->op[i] ? G->gd->op[i]->name : G->nr[G->lite[i]].gname;
}
static const char *op_type(const lg *G, size_t i) {
  return G->gd->op[i] ? G->gd->op[i]->type : G->mg->ops[G->lite[i]].type;
}
/* TFX_LOWER_K_* of a type */
static uint8_t type_kind(const char *t) {
  if (!t) return 0;
  if (t[0] == 'D') return strcmp(t, "Data") == 0 ? TFX_LOWER_K_DATA : 0;
  if (t[0] == 'C')
    return strcmp(t, "Const") == 0 || strcmp(t, "Constant") == 0 ? TFX_LOWER_K_CONST : 0;
  return 0;
}
/* ... of op i (G->kind for the ops of phase 1) */
static uint8_t op_kind(const lg *G, size_t i) {
  return i < G->n_kind ? G->kind[i] & (TFX_LOWER_K_DATA | TFX_LOWER_K_CONST)
                       : type_kind(op_type(G, i));
}
static size_t op_n_out(const lg *G, size_t i) {
  return G->gd->op[i] ? G->gd->op[i]->n_output_desc : G->nr[G->lite[i]].lite_n;
}

/* Streaming, phase 1: node id's one op i (made in the scratch arena, its attrs written ahead)
 * is kept lite; an op with anything else (never: what tfx_lower_build_op makes) is copied into
 * the model's arena instead. 0 or -1 (out of memory). */
static int keep_lite(lg *G, uint32_t id, size_t i) {
  lw *w = G->w;
  nrec *r = &G->nr[id];
  Ge__Proto__OpDef *op = G->gd->op[i];
  /* the output-desc array: one per distinct array (the descs are interned: few of them) */
  Ge__Proto__TensorDescriptor **out = NULL;
  size_t len = op->n_output_desc * sizeof *out;
  /* first the array last seen with this first desc and length (checked by content) */
  uint32_t fs = len ? (uint32_t)((uintptr_t)op->output_desc[0] >> 4) * 0x9E3779B1u >> 24 : 0;
  uint32_t ix = TFX_HASH_NONE;
  if (len && w->outs_front[fs].n == op->n_output_desc &&
      memcmp(w->outs_v[w->outs_front[fs].ix], op->output_desc, len) == 0)
    ix = w->outs_front[fs].ix;
  else if (len && (ix = tfx_hmap_get(&w->outs_map, (const char *)op->output_desc, len)) !=
                      TFX_HASH_NONE)
    w->outs_front[fs].n = (uint32_t)op->n_output_desc, w->outs_front[fs].ix = ix;
  if (len && ix != TFX_HASH_NONE) {
    out = w->outs_v[ix];
  } else if (len) {
    if (!(out = tfx_arena_alloc(w->P, len))) return tfx_lower_oom(w);
    memcpy(out, op->output_desc, len);
    if (TFX_GE_PUSH(w->P, w->outs_v, w->n_outs_v, out) ||
        tfx_hmap_put(&w->outs_map, (const char *)out, len, (uint32_t)(w->n_outs_v - 1), NULL) < 0)
      return tfx_lower_oom(w);
  }
  op->output_desc = out;
  if (op->n_attr || op->n_input || op->n_input_desc || op->n_subgraph_name || r->op != op ||
      i + 1 != r->op_end || op->name != r->gname || op->type != G->mg->ops[id].type ||
      op->n_output_desc > UINT32_MAX) {
    Ge__Proto__OpDef *keep = tfx_arena_alloc(w->P, sizeof *keep);
    if (!keep) return tfx_lower_oom(w);
    *keep = *op;
    G->gd->op[i] = keep;
    if (r->op == op) r->op = keep;
    return 0;
  }
  G->lite[i] = id;
  r->lite_out = out;
  r->lite_n = (uint32_t)op->n_output_desc;
  G->gd->op[i] = NULL;
  r->op = NULL;
  r->lite = 1;
  return 0;
}

/* ---------------------------------------------------------------- op names */

/* The name table holds what a name is needed for (a TF name is reserved before any op is made,
 * a generated one must not take a name in use, an edge names its producer) in 8 bytes an entry
 * at a load of at most 3/4: 8 MiB for 10^6 names, where a tfx_hmap (24 bytes, load 1/2) took
 * 48 MiB. A TF node's slot is its id (its name is tfx_lower_node.gname); generated names are
 * kept in gen_names[]. */

static const char *slot_name(const lg *G, uint32_t slot) {
  return slot < G->g->n_nodes ? G->nr[slot].gname : G->gen_names[slot - G->g->n_nodes].name;
}

/* Slot of the name name[0..len) whose hash is h, or TFX_HASH_NONE. */
static uint32_t names_get(const lg *G, const char *name, size_t len, uint32_t h) {
  if (!G->cap_names) return TFX_HASH_NONE;
  uint32_t mask = G->cap_names - 1;
  for (uint32_t j = h & mask;; j = (j + 1) & mask) {
    uint64_t e = G->names[j];
    if (!e) return TFX_HASH_NONE;
    if ((uint32_t)e != h) continue;
    uint32_t slot = (uint32_t)(e >> 32) - 1;
    const char *k = slot_name(G, slot);
    if (strncmp(k, name, len) == 0 && k[len] == '\0') return slot;
  }
}

/* Room for n names at a load of at most 3/4 (entries moved by their stored hash). 0 or -1. */
static int names_reserve(lg *G, size_t n) {
  size_t cap = G->cap_names ? G->cap_names : 16;
  while (cap * 3 < n * 4) cap *= 2;
  if (cap == G->cap_names) return 0;
  if (cap > UINT32_MAX / 2 + 1) return tfx_lower_oom(G->w);
  uint64_t *v = tfx_calloc(cap, sizeof *v);
  if (!v) return tfx_lower_oom(G->w);
  for (uint32_t i = 0; i < G->cap_names; i++) {
    uint64_t e = G->names[i];
    if (!e) continue;
    size_t j = (uint32_t)e & (cap - 1);
    while (v[j]) j = (j + 1) & (cap - 1);
    v[j] = e;
  }
  free(G->names);
  G->names = v;
  G->cap_names = (uint32_t)cap;
  return 0;
}

/* Adds slot under hash h (its name is not in the table). 0 or -1 (out of memory). */
static int names_add(lg *G, uint32_t h, uint32_t slot) {
  if ((size_t)(G->n_names + 1) * 4 > (size_t)G->cap_names * 3 &&
      names_reserve(G, (size_t)G->n_names + 1))
    return -1;
  uint32_t mask = G->cap_names - 1, j = h & mask;
  while (G->names[j]) j = (j + 1) & mask;
  G->names[j] = (uint64_t)h | (uint64_t)(slot + 1) << 32;
  G->n_names++;
  return 0;
}

/* Reserves the name of TF node id for its op (pass 0): slot id, in *out (one probe: the
 * name is looked up and added where the look-up ends). len and h: the name's length and
 * hash (reserve_names computes them a block ahead). */
static int reserve_name(lg *G, uint32_t id, size_t len, uint32_t h, uint32_t *out) {
  const char *name = G->nr[id].gname;
  if ((size_t)(G->n_names + 1) * 4 > (size_t)G->cap_names * 3 &&
      names_reserve(G, (size_t)G->n_names + 1))
    return -1;
  uint32_t mask = G->cap_names - 1, j = h & mask;
  for (uint64_t e; (e = G->names[j]) != 0; j = (j + 1) & mask) {
    if ((uint32_t)e != h) continue;
    uint32_t slot = (uint32_t)(e >> 32) - 1;
    const char *k = slot_name(G, slot);
    if (strncmp(k, name, len) == 0 && k[len] == '\0') {
      *out = slot; /* duplicate TF names cannot happen (the index rejects them) */
      return 0;
    }
  }
  G->names[j] = (uint64_t)h | (uint64_t)(id + 1) << 32;
  G->n_names++;
  *out = id;
  return 0;
}

/* Pass 0: the names of the TF nodes that get an op of their own (RULE / AUTO / PASSTHROUGH)
 * are reserved in node order, slot = id, and their subgraph attrs counted. By blocks of
 * RESERVE_BLOCK nodes: first each name's length and hash, with the table entry its probe
 * starts at prefetched, then the probes. The entries are random reads in a table of 8 MiB at
 * 10^6 nodes: one at a time, each stalled (half of lower_graph's own time at 10^6). 0 or -1
 * (out of memory). */
#define RESERVE_BLOCK 32
static int reserve_names(lg *G) {
  lw *w = G->w;
  const tfx_graph *g = G->g;
  const tfx_mapped_graph *mg = G->mg;
  uint32_t hs[RESERVE_BLOCK];
  size_t ls[RESERVE_BLOCK];
  for (uint32_t base = 0; base < g->n_nodes; base += RESERVE_BLOCK) {
    uint32_t end = g->n_nodes - base < RESERVE_BLOCK ? g->n_nodes : base + RESERVE_BLOCK;
    /* the next block's names (read first here: their strlen stalled on each) */
    for (uint32_t id = end; id < end + RESERVE_BLOCK && id < g->n_nodes; id++)
      __builtin_prefetch(g->nodes[id].name);
    for (uint32_t id = base; id < end; id++) {
      uint8_t how = mg->ops[id].how;
      if (how != TFX_MAP_RULE && how != TFX_MAP_AUTO && how != TFX_MAP_PASSTHROUGH) continue;
      /* streaming, main graph: the TF name itself (borrowed: see tfx_ge_lower) */
      char *name = w->S && !*G->prefix ? (char *)g->nodes[id].name
                                       : tfx_lower_cat(w, G->prefix, g->nodes[id].name);
      if (!name) return -1;
      G->nr[id].gname = name;
      ls[id - base] = strlen(name);
      hs[id - base] = tfx_hash_bytes(name, ls[id - base]);
      if (G->cap_names) __builtin_prefetch(&G->names[hs[id - base] & (G->cap_names - 1)]);
    }
    for (uint32_t id = base; id < end; id++) {
      if (!G->nr[id].gname) continue; /* (set above for the nodes that reserve) */
      if (reserve_name(G, id, ls[id - base], hs[id - base], &G->nr[id].slot)) return -1;
      const char *names[8];
      G->nr[id].n_sub = (uint8_t)tfx_lower_subgraph_attrs(&mg->ops[id], &g->nodes[id], names, 8);
    }
  }
  return 0;
}

/* A new generated name's slot (its op: index), *slot. 0 or -1 (out of memory). */
static int slot_new(lg *G, const char *name, uint32_t h, uint32_t index, uint32_t *slot) {
  if (G->n_gen == G->cap_gen) {
    uint32_t nc = G->cap_gen ? G->cap_gen * 2 : 16;
    if (nc <= G->cap_gen || (uint64_t)G->g->n_nodes + nc >= UINT32_MAX) return tfx_lower_oom(G->w);
    struct tfx_lower_gen *v = tfx_realloc(G->gen_names, (size_t)nc * sizeof *v);
    if (!v) return tfx_lower_oom(G->w);
    G->gen_names = v;
    G->cap_gen = nc;
  }
  G->gen_names[G->n_gen].name = name;
  G->gen_names[G->n_gen].op = index;
  *slot = G->g->n_nodes + G->n_gen++;
  return names_add(G, h, *slot);
}

/* Appends a new op called name (arena or static string; reserved: the TF node's name reserved
 * in pass 0: its slot, no look-up) of type to the graph. A generated name that is taken gets a
 * `_<n>` suffix (warned). */
Ge__Proto__OpDef *tfx_lower_op_new(lg *G, const char *name, const char *type, uint32_t reserved) {
  lw *w = G->w;
  Ge__Proto__OpDef *op = tfx_arena_alloc(w->OPA, sizeof *op);
  if (!op) {
    tfx_lower_oom(w);
    return NULL;
  }
  ge__proto__op_def__init(op);
  uint32_t index = (uint32_t)G->gd->n_op;
  /* (a reserved name is not read: its first read, in its record, comes much later) */
  size_t len = reserved != TFX_LOWER_NO_SLOT ? 0 : strlen(name);
  uint32_t h = reserved != TFX_LOWER_NO_SLOT ? 0 : tfx_hash_bytes(name, len);
  uint32_t slot = reserved != TFX_LOWER_NO_SLOT ? reserved : names_get(G, name, len, h);
  const char *final = name;
  if (reserved != TFX_LOWER_NO_SLOT && reserved < G->g->n_nodes &&
      G->slot_op[reserved] == TFX_LOWER_NAME_RESERVED) {
    G->slot_op[reserved] = index;
  } else {
    if (slot != TFX_HASH_NONE) {
      for (unsigned k = 1;; k++) {
        char *cand = tfx_lower_fmt(w, "%s_%u", name, k);
        if (!cand) return NULL;
        size_t cl = strlen(cand);
        uint32_t ch = tfx_hash_bytes(cand, cl);
        if (names_get(G, cand, cl, ch) == TFX_HASH_NONE) {
          GWARN(G, "GE op name '%s' is taken; the generated op is called '%s'", name, cand);
          final = cand;
          h = ch;
          break;
        }
      }
    }
    if (slot_new(G, final, h, index, &slot)) return NULL;
  }
  op->name = (char *) final;
  if (w->S) /* borrowed: see tfx_ge_lower */
    op->type = (char *)(type ? type : "");
  else if (!(op->type = tfx_arena_strdup(w->A, type ? type : ""))) {
    tfx_lower_oom(w);
    return NULL;
  }
  if (G->gd->n_op < G->cap_op) /* the array lower_graph sized (no arena garbage) */
    G->gd->op[G->gd->n_op++] = op;
  else if (tfx_ge_push_ptr(w->A, (void ***)&G->gd->op, &G->gd->n_op, op)) {
    tfx_lower_oom(w);
    return NULL;
  }
  return op;
}

/* Index in gd->op of the op called name, or TFX_LOWER_NAME_RESERVED. */
static uint32_t op_index(const lg *G, const char *name, size_t len) {
  uint32_t slot = names_get(G, name, len, tfx_hash_bytes(name, len));
  if (slot == TFX_HASH_NONE) return TFX_LOWER_NAME_RESERVED;
  return slot < G->g->n_nodes ? G->slot_op[slot] : G->gen_names[slot - G->g->n_nodes].op;
}

/* ---------------------------------------------------------------- subgraphs */

static int lower_graph(lw *w, const tfx_graph *g, const tfx_mapped_graph *mg, const char *gname,
                       const subctx *sub);

static const Tensorflow__AttrValue *func_attr(const tfx_mapped_op *mop, const tfx_node *nd,
                                              const char *name) {
  for (uint32_t k = 0; k < mop->n_attrs; k++)
    if (mop->attrs[k].name && mop->attrs[k].tf && strcmp(mop->attrs[k].name, name) == 0)
      return mop->attrs[k].tf;
  return tfx_ge_tf_attr(nd->def, name);
}

/* A unique GraphDef name from base. */
static const char *graph_name(lw *w, const char *base) {
  const char *name = base;
  for (unsigned k = 1; tfx_hmap_get(&w->graph_names, name, strlen(name)) != TFX_HASH_NONE; k++)
    if (!(name = tfx_lower_fmt(w, "%s_%u", base, k))) return NULL;
  uint32_t existing;
  if (tfx_hmap_put(&w->graph_names, name, strlen(name), 1, &existing) < 0) {
    tfx_lower_oom(w);
    return NULL;
  }
  return name;
}

static int lower_subgraphs(lg *G, uint32_t id) {
  lw *w = G->w;
  const tfx_node *nd = &G->g->nodes[id];
  const tfx_mapped_op *mop = &G->mg->ops[id];
  Ge__Proto__OpDef *op = G->nr[id].op;
  if (!op || G->nr[id].special || !G->nr[id].n_sub) return 0;
  const char *names[8];
  uint32_t n = tfx_lower_subgraph_attrs(mop, nd, names, 8);
  for (uint32_t a = 0; a < n; a++) {
    const Tensorflow__AttrValue *v = func_attr(mop, nd, names[a]);
    const Tensorflow__NameAttrList *one = NULL;
    Tensorflow__NameAttrList *const *many = NULL;
    size_t count = 0;
    int is_list = 0;
    if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC && v->func) {
      one = v->func;
      count = 1;
    } else if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST) {
      is_list = 1;
      if (v->list) {
        many = v->list->func;
        count = v->list->n_func;
      }
    } else {
      GERR(G, "node '%s' (op %s): subgraph attribute '%s' is missing or not a function", nd->name,
           tfx_lower_node_op(nd), names[a]);
      continue;
    }
    for (size_t k = 0; k < count; k++) {
      const Tensorflow__NameAttrList *f = one ? one : many[k];
      const char *fname = f && f->name ? f->name : "";
      uint32_t fi = tfx_hmap_get(&w->fn_index, fname, strlen(fname));
      if (fi == TFX_HASH_NONE) {
        GERR(G,
             "node '%s' (op %s): attribute '%s' names function '%s', which is not in the library",
             nd->name, tfx_lower_node_op(nd), names[a], fname);
        continue;
      }
      if (w->fn_busy[fi]) {
        GERR(G, "node '%s' (op %s): function '%s' calls itself; recursion cannot be lowered",
             nd->name, tfx_lower_node_op(nd), fname);
        continue;
      }
      if (w->depth >= MAX_SUBGRAPH_DEPTH) {
        GERR(G, "node '%s' (op %s): subgraphs nest deeper than %d levels", nd->name,
             tfx_lower_node_op(nd), MAX_SUBGRAPH_DEPTH);
        continue;
      }
      const tfx_graph *fg = &w->m->funcs[fi];
      int64_t offset = (int64_t)nd->n_data_in - (int64_t)fg->n_args;
      if (offset < 0) {
        GERR(G,
             "node '%s' (op %s): function '%s' takes %u argument(s), the node has %u data input(s)",
             nd->name, tfx_lower_node_op(nd), fname, fg->n_args, nd->n_data_in);
        continue;
      }
      char *base = is_list ? tfx_lower_fmt(w, "%s_%s%zu", op->name, names[a], k)
                           : tfx_lower_fmt(w, "%s_%s", op->name, names[a]);
      const char *gname = base ? graph_name(w, base) : NULL;
      if (!gname) return -1;
      /* Ascend's subgraph post functions: a While's cond output is the loop condition, no
       * output of the While (retval index -1); For's body takes (i, args...) where the For
       * node takes (start, limit, delta, args...). */
      const char *pt = tfx_lower_node_op(nd);
      int is_while = strcmp(pt, "While") == 0 || strcmp(pt, "StatelessWhile") == 0 ||
                     strcmp(pt, "_While") == 0;
      int is_for = strcmp(pt, "For") == 0;
      subctx sc = {op, mop, nd, (int32_t)(is_for ? 0 : offset), fname, (uint8_t)is_for,
                   (uint8_t)(is_while && strcmp(names[a], "cond") == 0)};
      w->fn_busy[fi] = 1;
      w->depth++;
      int rc = lower_graph(w, fg, &w->om->funcs[fi], gname, &sc);
      w->depth--;
      w->fn_busy[fi] = 0;
      if (rc) return -1;
      if (tfx_lower_push_str(w, &op->subgraph_name, &op->n_subgraph_name, gname)) return -1;
    }
  }
  return 0;
}

/* Data per signature arg of a subgraph. */
static int build_args(lg *G) {
  lw *w = G->w;
  const subctx *sc = G->sub;
  const Tensorflow__OpDef *sig = G->g->func ? G->g->func->signature : NULL;
  for (uint32_t i = 0; i < G->g->n_args; i++) {
    const char *aname = G->g->args[i] ? G->g->args[i] : "arg";
    char *name = tfx_lower_cat(w, G->prefix, aname);
    Ge__Proto__OpDef *op = name ? tfx_lower_op_new(G, name, "Data", TFX_LOWER_NO_SLOT) : NULL;
    if (!op) return -1;
    G->args[i] = op;
    int32_t tf_in = sc->is_for ? (i == 0 ? 0 : (int32_t)i + 2) : sc->offset + (int32_t)i;
    int64_t pidx = -1;
    for (uint32_t k = 0; k < sc->pmop->n_in; k++)
      if (sc->pmop->in[k].tf_port == tf_in) pidx = k;
    if (pidx < 0 || (size_t)pidx >= sc->parent->n_input_desc)
      GERR(G, "argument '%s': input %d of the parent node '%s' is not one of its GE inputs", aname,
           (int)tf_in, sc->pnode->name);
    const Ge__Proto__TensorDescriptor *pd =
        pidx >= 0 && (size_t)pidx < sc->parent->n_input_desc ? sc->parent->input_desc[pidx] : NULL;
    int ge = GE__PROTO__DATA_TYPE__DT_UNDEFINED;
    if (sig && i < sig->n_input_arg && sig->input_arg[i] && sig->input_arg[i]->type)
      ge = tfx_ge_dtype_from_tf((int)sig->input_arg[i]->type);
    if (ge == GE__PROTO__DATA_TYPE__DT_UNDEFINED && pd) ge = pd->dtype;
    if (ge == GE__PROTO__DATA_TYPE__DT_UNDEFINED) ge = GE__PROTO__DATA_TYPE__DT_FLOAT;
    int64_t unk = -2;
    const int64_t *dims = &unk;
    size_t n = 1;
    int known = 0;
    if (pd && pd->shape) {
      dims = pd->shape->dim;
      n = pd->shape->n_dim;
      known = tfx_ge_td_attr_get(pd, "origin_shape") != NULL;
    }
    Ge__Proto__TensorDescriptor *x =
        tfx_ge_desc_new_shared(w->A, &w->shapes, "x", ge, dims, n, known, "ND");
    Ge__Proto__TensorDescriptor *y = x ? tfx_ge_desc_copy(w->A, x, "y", NULL) : NULL;
    if (tfx_lower_push_desc(w, &op->input_desc, &op->n_input_desc, x) ||
        tfx_lower_push_desc(w, &op->output_desc, &op->n_output_desc, y) ||
        tfx_lower_set_attr(w, op, "index", tfx_ge_attr_int(w->A, i)) ||
        tfx_lower_set_attr(w, op, "_parent_node_index",
                           tfx_ge_attr_int(w->A, pidx < 0 ? 0 : pidx)) ||
        tfx_lower_port_names(w, op))
      return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------- outputs */

static int netoutput_input(lg *G, Ge__Proto__OpDef *no, Ge__Proto__OpDef *src, uint32_t port,
                           int64_t parent_index) {
  lw *w = G->w;
  char *name = tfx_lower_fmt(w, "input%zu", no->n_input_desc);
  if (!name || tfx_lower_add_input(w, no, src, port, name, NULL)) return -1; /* producer's layout */
  Ge__Proto__TensorDescriptor *td = no->input_desc[no->n_input_desc - 1];
  if (parent_index >= 0 && tfx_ge_air_memo_has(w->memo, td)) { /* shared: an own copy to modify */
    if (!(td = tfx_ge_desc_copy(w->A, td, td->name, NULL))) return tfx_lower_oom(w);
    no->input_desc[no->n_input_desc - 1] = td;
  }
  Ge__Proto__AttrDef *pi = parent_index >= 0 ? tfx_ge_attr_int(w->A, parent_index) : NULL;
  if (parent_index >= 0 && (!pi || tfx_ge_td_attr_put(w->A, td, "_parent_node_index", pi)))
    return tfx_lower_oom(w);
  if (!G->sub) {
    char *s = tfx_lower_edge(w, src->name, port);
    if (!s || tfx_ge_push_ptr(w->A, (void ***)&G->gd->output, &G->gd->n_output, s))
      return tfx_lower_oom(w);
  }
  return 0;
}

/* Subgraph outputs: FunctionDef.ret in signature output order. */
static int sub_outputs(lg *G, Ge__Proto__OpDef *no) {
  lw *w = G->w;
  const Tensorflow__FunctionDef *f = G->g->func;
  const Tensorflow__OpDef *sig = f ? f->signature : NULL;
  for (size_t k = 0; sig && k < sig->n_output_arg; k++) {
    const char *oname =
        sig->output_arg[k] && sig->output_arg[k]->name ? sig->output_arg[k]->name : "";
    const char *val = NULL;
    for (size_t j = 0; j < f->n_ret; j++)
      if (f->ret[j] && f->ret[j]->key && strcmp(f->ret[j]->key, oname) == 0) val = f->ret[j]->value;
    if (!val) {
      GERR(G, "output '%s' has no entry in the function's ret map", oname);
      continue;
    }
    const char *name, *out_arg;
    size_t nlen, alen;
    int32_t port;
    if (tfx_parse_func_input(val, &name, &nlen, &out_arg, &alen, &port) || port < 0) {
      GERR(G, "output '%s': cannot read ret value '%s'", oname, val);
      continue;
    }
    Ge__Proto__OpDef *src = NULL;
    uint32_t sp = 0;
    char *nm = tfx_arena_strndup(w->A, name, nlen);
    if (!nm) return tfx_lower_oom(w);
    uint32_t id = tfx_graph_find(G->g, nm);
    if (!out_arg) /* a bare name is an input arg (nodes are written node:out_arg:idx) */
      for (uint32_t i = 0; i < G->g->n_args && !src; i++)
        if (G->g->args[i] && strcmp(G->g->args[i], nm) == 0) src = G->args[i];
    if (!src && id != TFX_NO_ID) {
      if (out_arg) {
        char *oa = tfx_arena_strndup(w->A, out_arg, alen);
        if (!oa) return tfx_lower_oom(w);
        tfx_ge_tf_flat_port(w->tt, G->g->nodes[id].def, oa, port, &port);
      }
      char *who = tfx_lower_fmt(w, "output '%s'", oname);
      if (!who) return -1;
      src = tfx_lower_resolve_out(G, id, port, &sp, who);
      if (!src) continue;
    }
    if (!src) {
      GERR(G, "output '%s': ret value '%s' names no node or argument", oname, val);
      continue;
    }
    int64_t pidx = -1;
    for (uint32_t q = 0; q < G->sub->pmop->n_out && !G->sub->no_out_index; q++)
      if (G->sub->pmop->out[q].tf_port == (int32_t)k) pidx = q;
    if (pidx < 0 && !G->sub->no_out_index)
      GWARN(G,
            "output '%s': the parent node '%s' has no GE output for TF output %zu; no "
            "_parent_node_index",
            oname, G->sub->pnode->name, k);
    if (netoutput_input(G, no, src, sp, pidx)) return -1;
  }
  /* control outputs */
  ctl c = {0};
  int rc = 0;
  for (size_t j = 0; f && j < f->n_control_ret && rc == 0; j++) {
    const char *v = f->control_ret[j] ? f->control_ret[j]->value : NULL;
    uint32_t id = v ? tfx_graph_find(G->g, v) : TFX_NO_ID;
    if (id == TFX_NO_ID) continue;
    tfx_input in = {id, -1, TFX_IN_NODE, NULL};
    rc = tfx_lower_ctl_add_input(G, &c, &in);
  }
  if (rc == 0) rc = tfx_lower_ctl_flush(w, no, &c);
  free(c.v);
  return rc;
}

/* Parses "name:idx" of an input string; -1 when malformed. */
static int split_input(const char *s, size_t *name_len, long long *idx) {
  const char *colon = strrchr(s, ':');
  if (!colon || colon == s) return -1;
  /* what tfx_lower_edge writes ("-1", or up to 18 digits), without strtoll; anything else
   * (never written, but checked all the same) as strtoll reads it */
  const char *q = colon + 1 + (colon[1] == '-');
  size_t nd = 0; /* strspn(q, "0123456789"), inline: a digit or two as a rule */
  while (q[nd] >= '0' && q[nd] <= '9') nd++;
  if (nd && nd <= 18 && !q[nd]) {
    long long v = 0;
    for (size_t k = 0; k < nd; k++) v = v * 10 + (q[k] - '0');
    *idx = colon[1] == '-' ? -v : v;
    *name_len = (size_t)(colon - s);
    return 0;
  }
  char *end;
  *idx = strtoll(colon + 1, &end, 10);
  if (end == colon + 1 || *end) return -1;
  *name_len = (size_t)(colon - s);
  return 0;
}

/* The index of the op that input k of node id's own op should name, by the TF graph: the
 * producer of the TF input its k-th port binds (wire_op adds one input per port, in port
 * order), when that producer reserved its name in pass 0 and has its op; checked against the
 * input's name[0..len): TFX_LOWER_NAME_RESERVED when it differs or there is no such producer.
 * When it is returned it is what op_index finds for that name (a reserved name is in the
 * table once, under slot id, and slot_op[id] is its op), without the hash and the probe: a
 * random read in the 8 MiB table per edge at 10^6 nodes, where the producer's record and
 * name were just read by the wiring. */
static uint32_t hinted_index(const lg *G, uint32_t id, size_t k, const char *name, size_t len) {
  const tfx_mapped_op *mop = &G->mg->ops[id];
  const tfx_node *nd = &G->g->nodes[id];
  if (k >= mop->n_in || mop->in[k].tf_port < 0 || (uint32_t)mop->in[k].tf_port >= nd->n_data_in)
    return TFX_LOWER_NAME_RESERVED;
  const tfx_input *in = &nd->in[mop->in[k].tf_port];
  if (in->kind != TFX_IN_NODE || in->src >= G->g->n_nodes) return TFX_LOWER_NAME_RESERVED;
  const nrec *r = &G->nr[in->src];
  /* gname is set only for nodes that reserved their name (pass 0); slot: where it went */
  if (!r->gname || r->slot != in->src || (r->gname != name && strncmp(r->gname, name, len) != 0) ||
      r->gname[len])
    return TFX_LOWER_NAME_RESERVED;
  return G->slot_op[in->src];
}

/* The index of the op an edge of input k of node id's op names (name[0..len)): by the TF graph
 * first (id TFX_NO_ID: not known), then the name table; TFX_LOWER_NAME_RESERVED for none. */
static uint32_t edge_src(const lg *G, uint32_t id, size_t k, const char *name, size_t len) {
  uint32_t si = id != TFX_NO_ID ? hinted_index(G, id, k, name, len) : TFX_LOWER_NAME_RESERVED;
  return si != TFX_LOWER_NAME_RESERVED ? si : op_index(G, name, len);
}

/* Checks the edges of ops from..to - 1 of the graph (docs/AIR.md §5.3) and marks consumed ops
 * (consumed may be NULL; it has a flag for each of the first from_n ops). An inconsistency is
 * an internal error: reported, never written. id: the TF node whose one op is op from (to ==
 * from + 1; its producers are looked for through hinted_index first), or TFX_NO_ID. */
static int check_edges(lg *G, size_t from, size_t to, uint8_t *consumed, size_t from_n,
                       uint32_t id) {
  Ge__Proto__GraphDef *gd = G->gd;
  int bad = 0;
  if (id != TFX_NO_ID && (to != from + 1 || id >= G->g->n_nodes || !G->nr[id].op ||
                          G->nr[id].op != gd->op[from] || G->nr[id].special))
    id = TFX_NO_ID;
  for (size_t i = from; i < to; i++) {
    const Ge__Proto__OpDef *op = gd->op[i];
    size_t n_data = 0;
    for (size_t k = 0; k < op->n_input; k++) {
      const char *s = op->input[k];
      if (!*s) {
        n_data++;
        continue;
      }
      size_t nl;
      long long idx;
      uint32_t si = TFX_LOWER_NAME_RESERVED;
      int found = split_input(s, &nl, &idx) == 0;
      if (found) si = edge_src(G, id, k, s, nl);
      found = found && si != TFX_LOWER_NAME_RESERVED;
      if (!found || idx < -1 || (idx >= 0 && (size_t)idx >= op_n_out(G, si))) {
        GERR(G, "internal error: op '%s' has input '%s', which names no op or output of graph '%s'",
             op->name, s, gd->name);
        bad = 1;
        continue;
      }
      if (idx >= 0) {
        n_data++;
        if (consumed && si < from_n) consumed[si] |= TFX_LOWER_CONSUMED;
      }
    }
    if (n_data > op->n_input_desc) {
      GERR(G, "internal error: op '%s' has %zu data inputs but %zu input descriptors", op->name,
           n_data, op->n_input_desc);
      bad = 1;
    }
  }
  return bad;
}

static int main_outputs(lg *G, Ge__Proto__OpDef *no, const uint8_t *consumed, size_t n_ops) {
  lw *w = G->w;
  const tfx_prune_opts *po = w->o->prune;
  if (po && po->n_outs) {
    for (uint32_t k = 0; k < po->n_outs; k++) {
      const tfx_prune_out *o = &po->outs[k];
      uint32_t id = w->o->out_ids ? w->o->out_ids[k]
                    : o->name        ? tfx_graph_find(G->g, o->name)
                                     : TFX_NO_ID;
      if (id == TFX_NO_ID) {
        GERR(G, "--out-nodes: node '%s' is not in the graph", o->name ? o->name : "");
        continue;
      }
      uint32_t sp = 0;
      Ge__Proto__OpDef *src = tfx_lower_resolve_out(G, id, o->port, &sp, "--out-nodes");
      if (src && netoutput_input(G, no, src, sp, -1)) return -1;
    }
    return 0;
  }
  for (size_t i = 0; i < n_ops; i++) {
    if (consumed[i] || op_kind(G, i)) continue; /* (Data, Const, Constant) */
    size_t n_out = op_n_out(G, i);
    if (!n_out) continue;
    for (size_t k = 0; k < n_out; k++)
      if (netoutput_input(G, no, tfx_lower_op_get(G, i), (uint32_t)k, -1)) return -1;
  }
  if (!no->n_input_desc)
    GWARN(G,
          "the model has no outputs: no --out-nodes, and no op but Data and Const ones has an "
          "unconsumed output");
  return 0;
}

/* ---------------------------------------------------------------- streaming */

/* The bytes of a string field of n bytes (tag, length, bytes). */
static size_t str_field_len(size_t n) {
  size_t v = 1;
  for (size_t x = n; x >= 0x80; x >>= 7) v++;
  return 1 + v + n;
}
/* ... holding name ":" port (tfx_lower_edge). */
static size_t edge_field_len(const char *name, size_t port) {
  size_t n = strlen(name) + 2;
  while (port >= 10) port /= 10, n++;
  return str_field_len(n);
}

/* The .air written in place (tfx_ge_air_stream_plan): after phase 1 of the main graph, before
 * its first record, the size of the graph's fields in front of the ops is predicted: its name,
 * its inputs (the Data ops), its outputs as main_outputs will find them, taking an op's outputs
 * as consumed when its TF node has a data consumer, and the length's varint from 512 bytes an
 * op. A wrong guess only costs the copy the plan saves (finish checks it), never a byte. */
static void plan_air(lg *G) {
  lw *w = G->w;
  const Ge__Proto__GraphDef *gd = G->gd;
  const tfx_graph *g = G->g;
  if (!w->S || (w->o->prune && w->o->prune->n_outs)) return;
  const char *env = getenv("TFXC_AIR_PLAN_LEN"); /* tests: the varint's length, 0 no plan */
  int forced = env && *env >= '0' && *env <= '9' && !env[1] ? *env - '0' : -1;
  if (forced == 0) return;
  size_t fields = 0, n = gd->name ? strlen(gd->name) : 0, lo = 0;
  if (n) fields += str_field_len(n);
  for (uint32_t id = 0; id < g->n_nodes; id++) {
    const tfx_node *nd = &g->nodes[id];
    int used = 0;
    for (uint32_t u = 0; u < nd->n_uses && !used; u++)
      used = g->nodes[nd->uses[u].node].in[nd->uses[u].slot].port >= 0;
    for (size_t i = lo; i < G->nr[id].op_end; i++) {
      uint8_t kind = op_kind(G, i);
      if (kind == TFX_LOWER_K_DATA) {
        fields += edge_field_len(op_name(G, i), 0);
        continue;
      }
      size_t n_out = op_n_out(G, i);
      if (used || kind == TFX_LOWER_K_CONST) continue;
      for (size_t k = 0; k < n_out; k++) fields += edge_field_len(op_name(G, i), k);
    }
    if (G->nr[id].op_end > lo) lo = G->nr[id].op_end;
  }
  uint64_t guess = (uint64_t)gd->n_op * 512 + fields;
  unsigned v = 1;
  while (guess >= 0x80) guess >>= 7, v++;
  if (forced > 0) v = (unsigned)forced;
  tfx_ge_air_stream_plan(w->S, w->model, fields, v);
}

/* Writes op i of the graph to the stream (into hole *hole when non-NULL): its id, its maps
 * sorted (the op's own attr array sorted in a scratch copy, so the op itself keeps its phase-1
 * order for what reads it later; own: the op is G->wired, which nothing reads later, sorted
 * and given its id in place), then its record. Nothing is written once the run has failed
 * (no output will be). 0 or -1 (out of memory). */
static int stream_op(lg *G, size_t i, const size_t *hole, int own) {
  lw *w = G->w;
  if (w->failed) return 0;
  Ge__Proto__OpDef t, *o = G->gd->op[i];
  if (!own) {
    t = *o;
    o = &t;
    if (t.n_attr > 1) {
      void *a = tfx_arena_alloc(&w->scratch, t.n_attr * sizeof *t.attr);
      if (!a) return tfx_lower_oom(w);
      memcpy(a, t.attr, t.n_attr * sizeof *t.attr);
      t.attr = a;
    }
  }
  o->id = G->id_base + (int64_t)i;
  tfx_ge_sort_op_maps_memo(o, w->memo);
  const tfx_ge_air_attrs *pre = i < G->cap_pre ? G->pre[i] : NULL;
  int r = hole ? tfx_ge_air_stream_fill_pre(w->S, *hole, o, pre)
               : tfx_ge_air_stream_op_pre(w->S, G->gi, o, pre);
  if (r == -3) return tfx_lower_oom(w);
  if (r != 0)
    GERR(G, "internal error: op '%s' cannot be serialized (nested over 1000 levels deep)", o->name);
  return 0;
}

static int stream_one(lg *G, size_t i, const size_t *hole) { return stream_op(G, i, hole, 0); }

/* Phase 2 of lite node id's op i wired by its parts (tfx_lower_wire_lite): check_edges' checks
 * on its edges, then its record written from the parts (air_write.c's
 * tfx_ge_air_stream_edges), the bytes stream_op writes for the OpDef tfx_lower_wire_op makes:
 * that op's attrs are the port-name entries, already in key order ("_input_name_key" <
 * "_input_name_value" < "_output_name_key" < "_output_name_value") with list values
 * tfx_ge_sort_op_maps_memo leaves as they are, so only its descs not frozen are sorted here, as
 * there. 1 (done), or -1 (out of memory). */
static int write_lite(lg *G, size_t i, uint32_t id, const tfx_lower_wired *o) {
  lw *w = G->w;
  const nrec *r = &G->nr[id];
  /* check_edges for this op: each edge names an op and one of its outputs (a producer's name
   * has no ':' to split at but the edge's own: an empty one is what split_input refuses) */
  for (size_t k = 0; k < o->n_in; k++) {
    if (!o->src[k]) continue; /* "" (unfed): a data input with its desc */
    uint32_t si = o->len[k] ? edge_src(G, id, k, o->src[k], o->len[k]) : TFX_LOWER_NAME_RESERVED;
    if (si == TFX_LOWER_NAME_RESERVED || o->port[k] >= op_n_out(G, si)) {
      char *s = tfx_lower_fmt_in(w, &w->scratch, "%.*s:%u", (int)o->len[k], o->src[k], o->port[k]);
      if (!s) return -1;
      GERR(G, "internal error: op '%s' has input '%s', which names no op or output of graph '%s'",
           r->gname, s, G->gd->name);
      continue;
    }
    if (G->consumed && si < G->n_phase1) G->consumed[si] |= TFX_LOWER_CONSUMED;
  }
  /* (check_edges' count of data inputs against input descs holds by construction: one desc
   * per input) */
  if (w->failed) return 1; /* nothing is written once the run has failed (stream_op) */
  Ge__Proto__OpDef t;
  ge__proto__op_def__init(&t);
  t.name = (char *)r->gname;
  t.type = (char *)G->mg->ops[id].type;
  t.id = G->id_base + (int64_t)i;
  t.attr = (Ge__Proto__OpDef__AttrEntry **)o->attr;
  t.n_attr = o->n_attr;
  t.input_desc = (Ge__Proto__TensorDescriptor **)o->in_desc;
  t.n_input_desc = o->n_in;
  t.output_desc = r->lite_out;
  t.n_output_desc = r->lite_n;
  for (size_t k = 0; !o->frozen && k < t.n_input_desc; k++)
    if (!tfx_ge_air_memo_has(w->memo, t.input_desc[k])) tfx_ge_sort_desc_maps(t.input_desc[k]);
  for (size_t k = 0; !o->frozen && k < t.n_output_desc; k++)
    if (!tfx_ge_air_memo_has(w->memo, t.output_desc[k])) tfx_ge_sort_desc_maps(t.output_desc[k]);
  tfx_ge_air_edges e = {o->n_in, o->src, o->len, o->port};
  const tfx_ge_air_attrs *pre = i < G->cap_pre ? G->pre[i] : NULL;
  int rc = tfx_ge_air_stream_edges(w->S, G->gi, &t, &e, pre);
  if (rc == -3) return tfx_lower_oom(w);
  if (rc != 0)
    GERR(G, "internal error: op '%s' cannot be serialized (nested over 1000 levels deep)", t.name);
  return 1;
}

/* Whether phase 1 of node id writes its ops' own attrs ahead (streaming): not a Data op
 * (its index is checked at the end) nor a node with subgraphs (wired and written whole, in
 * phase 3), nor a graph map with an inner Data op. */
static int pre_node(const lg *G, uint32_t id) {
  const tfx_mapped_op *mop = &G->mg->ops[id];
  switch (mop->how) {
  case TFX_MAP_RULE:
  case TFX_MAP_AUTO:
  case TFX_MAP_PASSTHROUGH:
    return !tfx_lower_is_type(mop->type, "Data") && G->nr[id].n_sub == 0; /* (pass 0) */
  case TFX_MAP_GRAPH:
    for (uint32_t i = 0; i < mop->n_inner; i++)
      if (tfx_lower_is_type(mop->inner[i].type, "Data")) return 0;
    return 1;
  default: return 0;
  }
}

/* Streaming, phase 1: op i's own attrs (built in the scratch arena) become their wire bytes
 * in the model's arena (G->pre[i]) and leave the op; the caller resets the scratch. 0 or -1
 * (out of memory). */
static int pre_encode(lg *G, size_t i) {
  lw *w = G->w;
  if (i >= G->cap_pre) {
    size_t nc = G->cap_pre ? G->cap_pre : 64;
    while (nc <= i) nc *= 2;
    const tfx_ge_air_attrs **v = tfx_realloc(G->pre, nc * sizeof *v);
    if (!v) return tfx_lower_oom(w);
    for (size_t k = G->cap_pre; k < nc; k++) v[k] = NULL; /* nothing written ahead */
    G->pre = v;
    uint32_t *l = tfx_realloc(G->lite, nc * sizeof *l);
    if (!l) return tfx_lower_oom(w);
    G->lite = l;
    G->cap_pre = nc;
  }
  const tfx_ge_air_attrs *hit;
  if (tfx_lower_attrs_hit(w, &hit)) { /* its block, known by what determines it (lower_node.c) */
    G->pre[i] = hit;
    return 0;
  }
  Ge__Proto__OpDef *op = G->gd->op[i];
  if (!op->n_attr) return 0;
  Ge__Proto__OpDef t = *op;
  t.n_input_desc = t.n_output_desc = 0; /* only the attrs are sorted and written here */
  op->attr = NULL;
  op->n_attr = 0;
  void *a = tfx_arena_alloc(&w->scratch, t.n_attr * sizeof *t.attr);
  if (!a) return tfx_lower_oom(w);
  memcpy(a, t.attr, t.n_attr * sizeof *t.attr);
  t.attr = a;
  tfx_ge_sort_op_maps(&t);
  tfx_ge_air_attrs rec;
  int r = tfx_ge_air_stream_attrs(w->S, &t, w->P, w->borrow, &rec);
  if (r == -3) return tfx_lower_oom(w);
  if (r != 0) {
    GERR(G, "internal error: op '%s' cannot be serialized (nested over 1000 levels deep)", t.name);
    return 0;
  }
  /* equal bytes come back at the same address (air_write.h): one record for them, found by
   * that address, unless part of it is borrowed (a Const's data: a record of its own) */
  uint32_t ix = rec.tail ? TFX_HASH_NONE : tfx_hmap_get(&w->pre_map, (const char *)&rec.p,
                                                        sizeof rec.p);
  if (ix != TFX_HASH_NONE) {
    G->pre[i] = w->pre_v[ix];
    return 0;
  }
  tfx_ge_air_attrs *keep = tfx_arena_alloc(w->P, sizeof *keep);
  if (!keep) return tfx_lower_oom(w);
  *keep = rec;
  G->pre[i] = keep;
  if (!rec.tail && (TFX_GE_PUSH(w->P, w->pre_v, w->n_pre_v, keep) ||
                    tfx_hmap_put(&w->pre_map, (const char *)&keep->p, sizeof keep->p,
                                 (uint32_t)(w->n_pre_v - 1), NULL) < 0))
    return tfx_lower_oom(w);
  return 0;
}

/* Phase 2 of node id when streaming: wires it with what only its ops need in the scratch
 * arena, checks and writes its ops, then gives them back their phase-1 state (the scratch is
 * reset: input descs, edges, port-name attrs and a graph map's Const values are gone; later
 * ops read only names, types, output descs and Data indices, all from phase 1). A node with
 * subgraphs is wired in the model's arena and written in phase 3 (its subgraphs read its input
 * descs and it gets subgraph names), into holes kept for it in the stream. */
static int wire_stream(lg *G, uint32_t id, ctl *c) {
  lw *w = G->w;
  nrec *r = &G->nr[id];
  size_t from = G->n_streamed, to = r->op_end;
  int rc = 0;
  if (r->lite) { /* its one op, made anew from what phase 1 kept */
    if (to != from + 1) {
      GERR(G, "internal error: op %zu of graph '%s' is out of order", from, G->gd->name);
      return 0;
    }
    if (!w->lite_general) { /* as a rule by its parts, without an OpDef (write_lite) */
      tfx_lower_wired o;
      w->A = w->AT = &w->scratch;
      rc = tfx_lower_wire_lite(G, id, c, &o);
      if (rc == 1) rc = write_lite(G, from, id, &o);
      w->A = w->AT = w->P;
      if (rc != 0) { /* (0: not wired, nothing made; the OpDef's path below) */
        tfx_arena_reset(&w->scratch);
        G->n_streamed = to;
        return rc < 0 ? -1 : 0;
      }
    }
    Ge__Proto__OpDef *op = &G->wired; /* (nothing keeps it once it is written) */
    lite_op(G, id, op);
    G->gd->op[from] = r->op = op;
    w->A = w->AT = &w->scratch;
    rc = tfx_lower_wire_op(G, id, c);
    if (rc == 0) check_edges(G, from, to, G->consumed, G->n_phase1, id);
    if (rc == 0) rc = stream_op(G, from, NULL, 1);
    G->gd->op[from] = r->op = NULL;
    w->A = w->AT = w->P;
    tfx_arena_reset(&w->scratch);
    G->n_streamed = to;
    return rc;
  }
  if (!r->op && !r->inner) { /* no ops (failed: reported), or none to wire */
    for (size_t i = from; i < to && rc == 0; i++) rc = stream_one(G, i, NULL);
    G->n_streamed = to;
    return rc;
  }
  if (r->op && !r->special && r->n_sub > 0) {
    rc = tfx_lower_wire_op(G, id, c);
    r->deferred = 1;
    for (size_t i = from; i < to && rc == 0; i++) {
      size_t slot;
      if (tfx_ge_air_stream_hole(w->S, G->gi, &slot)) rc = tfx_lower_oom(w);
      if (i == from) r->hole = slot;
    }
    G->n_streamed = to;
    return rc;
  }
  Ge__Proto__OpDef *snap = NULL;
  if (to > from && !(snap = tfx_arena_alloc(&w->scratch, (to - from) * sizeof *snap)))
    return tfx_lower_oom(w);
  for (size_t i = from; i < to; i++) {
    Ge__Proto__OpDef *op = G->gd->op[i];
    snap[i - from] = *op;
    /* the attrs phase 2 adds or replaces go to a scratch copy of the array, never into the
     * phase-1 one (a replaced entry would be left pointing into the reset scratch) */
    size_t cap = 4; /* the capacity tfx_ge_grow implies for n_attr elements */
    while (cap < op->n_attr) cap *= 2;
    void **a = op->n_attr ? tfx_arena_alloc(&w->scratch, cap * sizeof *op->attr) : NULL;
    if (op->n_attr && !a) {
      for (size_t j = from; j < i; j++) *G->gd->op[j] = snap[j - from];
      return tfx_lower_oom(w);
    }
    if (a) memcpy(a, op->attr, op->n_attr * sizeof *op->attr);
    op->attr = (Ge__Proto__OpDef__AttrEntry **)a;
  }
  w->A = w->AT = &w->scratch;
  rc = r->op ? tfx_lower_wire_op(G, id, c) : tfx_lower_wire_graph_node(G, id, c);
  if (rc == 0) check_edges(G, from, to, G->consumed, G->n_phase1, r->op ? id : TFX_NO_ID);
  for (size_t i = from; i < to && rc == 0; i++) rc = stream_one(G, i, NULL);
  for (size_t i = from; i < to; i++) *G->gd->op[i] = snap[i - from];
  w->A = w->AT = w->P;
  tfx_arena_reset(&w->scratch);
  G->n_streamed = to;
  return rc;
}

/* Phase 3 of a deferred node when streaming: its ops into their holes, after its subgraphs. */
static int fill_deferred(lg *G, uint32_t id) {
  nrec *r = &G->nr[id];
  if (!r->deferred) return 0;
  size_t from = r->op_end - 1; /* a node with subgraphs has one op (tfx_lower_build_op) */
  check_edges(G, from, r->op_end, G->consumed, G->n_phase1, id);
  int rc = stream_one(G, from, &r->hole);
  tfx_arena_reset(&G->w->scratch);
  return rc;
}

/* ---------------------------------------------------------------- prefetching */

/* The node loops read each TF node's name for the first time in a while: scattered over the
 * model's arena (one node's far from the next), each first read stalled (at 10^6 nodes the
 * first byte of an op's name was 7% of lowering's time, in its record). A hint fetches it a
 * few nodes ahead. (The same for phase 1's NodeDefs and attr entries, fetched in stages 12,
 * 8, 4 and 2 nodes ahead, showed no difference in perf's samples at 10^6: not kept.) */

/* Phase 2: the name node id + 8's record will start with. */
static inline void prefetch_name(const lg *G, uint32_t id) {
  if (id + 8 < G->g->n_nodes && G->nr[id + 8].gname) __builtin_prefetch(G->nr[id + 8].gname);
}

/* ---------------------------------------------------------------- one graph */

static int lower_graph(lw *w, const tfx_graph *g, const tfx_mapped_graph *mg, const char *gname,
                       const subctx *sub) {
  lg G;
  memset(&G, 0, sizeof G);
  G.w = w;
  G.g = g;
  G.mg = mg;
  G.sub = sub;
  G.fn = sub ? sub->fn : NULL;
  int rc = 0;
  uint8_t *consumed = NULL;
  if (!mg || !mg->ops) {
    GERR(&G, "internal error: graph '%s' has no mapping", gname);
    return 0;
  }
  Ge__Proto__GraphDef *gd = tfx_arena_alloc(w->A, sizeof *gd);
  if (!gd) return tfx_lower_oom(w);
  ge__proto__graph_def__init(gd);
  gd->name = (char *)gname;
  G.gd = gd;
  if (tfx_ge_push_ptr(w->A, (void ***)&w->model->graph, &w->model->n_graph, gd))
    return tfx_lower_oom(w);
  G.gi = w->model->n_graph - 1;
  G.id_base = w->next_id;
  G.prefix = sub ? tfx_lower_cat(w, gname, "/") : "";
  G.nr = tfx_calloc(g->n_nodes ? g->n_nodes : 1, sizeof *G.nr);
  G.args = tfx_calloc(g->n_args ? g->n_args : 1, sizeof *G.args);
  G.ring = w->S ? tfx_calloc(TFX_LOWER_RING, sizeof *G.ring) : NULL;
  if (!G.prefix || !G.nr || !G.args || (w->S && !G.ring)) {
    rc = tfx_lower_oom(w);
    goto out;
  }
  for (unsigned k = 0; G.ring && k < TFX_LOWER_RING; k++) ge__proto__op_def__init(&G.ring[k]);
  /* the op array and (streaming) the per-op arrays for the ops expected: one per node, one
   * per argument, the NetOutput (graph maps may make more: then they grow). The op array's
   * capacity is a power of two, what tfx_ge_grow implies for any count from half of it on,
   * so that pushing past it with tfx_ge_push_ptr grows it right; growing it from 4 left each
   * smaller copy in the arena (8 MB of 16 at 10^6 nodes) */
  size_t expect = (size_t)g->n_nodes + g->n_args + 1, cap_op = 4;
  while (cap_op < expect) cap_op *= 2;
  if (cap_op <= UINT32_MAX && !(gd->op = tfx_arena_alloc(w->A, cap_op * sizeof *gd->op))) {
    rc = tfx_lower_oom(w);
    goto out;
  }
  G.cap_op = gd->op ? (uint32_t)cap_op : 0;
  if (w->S) {
    G.pre = tfx_calloc(expect, sizeof *G.pre);
    G.lite = tfx_malloc(expect * sizeof *G.lite);
    if (!G.pre || !G.lite) {
      rc = tfx_lower_oom(w);
      goto out;
    }
    G.cap_pre = expect;
  }
  G.slot_op = tfx_malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *G.slot_op);
  if (!G.slot_op || names_reserve(&G, (size_t)g->n_nodes + 16)) {
    rc = tfx_lower_oom(w);
    goto out;
  }
  for (uint32_t id = 0; id < g->n_nodes; id++) G.slot_op[id] = TFX_LOWER_NAME_RESERVED;
  /* pass 0: TF node names are reserved, so generated names never take them */
  rc = reserve_names(&G);
  if (rc == 0 && sub) rc = build_args(&G);
  size_t n_pre = gd->n_op; /* a subgraph's Data ops (build_args) */
  /* phase 1: ops, attributes, output descs */
  for (uint32_t id = 0; id < g->n_nodes && rc == 0; id++) {
    tfx_progress_nodes(id, g->n_nodes);
    const tfx_node *nd = &g->nodes[id];
    const tfx_mapped_op *mop = &mg->ops[id];
    size_t first = gd->n_op;
    int pre = w->S && pre_node(&G, id);
    if (pre) w->AT = &w->scratch; /* its attrs: written ahead below, then dropped */
    /* its one op kept lite below: the OpDef and its output-desc array in the scratch too */
    int lite = pre && mop->how != TFX_MAP_GRAPH;
    if (lite) w->OPA = &w->scratch;
    w->borrow = NULL;
    switch (mop->how) {
    case TFX_MAP_RULE:
    case TFX_MAP_AUTO:
    case TFX_MAP_PASSTHROUGH: rc = tfx_lower_build_op(&G, id); break;
    case TFX_MAP_GRAPH: rc = tfx_lower_build_graph_node(&G, id); break;
    default:
      GERR(&G, "node '%s' (op %s): %s%s%s", nd->name, tfx_lower_node_op(nd),
           mop->message ? mop->message : "not mapped to a CANN op; it cannot be lowered",
           mop->hint ? "; " : "", mop->hint ? mop->hint : "");
      break;
    }
    G.nr[id].op_end = (uint32_t)gd->n_op;
    if (gd->n_op > G.cap_kind && rc == 0) {
      size_t nc = G.cap_kind ? 2 * G.cap_kind : expect;
      while (nc < gd->n_op) nc *= 2;
      uint8_t *k = tfx_realloc(G.kind, nc);
      if (!k) rc = tfx_lower_oom(w);
      else G.kind = k, G.cap_kind = nc;
    }
    for (size_t i = G.n_kind; i < gd->n_op && rc == 0; i++) /* (gd->op[i] set: not lite yet) */
      G.kind[G.n_kind++] = type_kind(gd->op[i]->type);
    if (pre) {
      for (size_t i = first; i < gd->n_op && rc == 0; i++) rc = pre_encode(&G, i);
      if (rc == 0) rc = tfx_lower_attrs_put(&G, first); /* a new block, for later nodes */
      if (rc) /* the ops keep no attr in the scratch being reset */
        for (size_t i = first; i < gd->n_op; i++) gd->op[i]->attr = NULL, gd->op[i]->n_attr = 0;
      for (size_t i = first; lite && i < gd->n_op && rc == 0; i++) rc = keep_lite(&G, id, i);
      if (lite && rc) { /* (out of memory: the run stops) nothing points into the scratch */
        for (size_t i = first; i < gd->n_op; i++) gd->op[i] = NULL;
        G.nr[id].op = NULL;
      }
      w->AT = w->OPA = w->A;
      tfx_arena_reset(&w->scratch);
    }
  }
  /* the ops phase 1 made; streaming: the flags check_edges sets as ops are written, the ids
   * (this graph's ops and its NetOutput come before its subgraphs'), the subgraph's Data ops
   * (complete: they need no wiring) */
  G.n_phase1 = gd->n_op;
  if (rc == 0 && !sub) plan_air(&G);
  if (rc == 0 && w->S) {
    w->next_id += (int64_t)G.n_phase1 + 1;
    /* the flags go into the kinds' bytes (one per op of phase 1: no array of their own) */
    G.consumed = G.kind && G.n_kind == G.n_phase1 ? G.kind
                                                 : tfx_calloc(G.n_phase1 ? G.n_phase1 : 1, 1);
    if (!G.consumed) rc = tfx_lower_oom(w);
    for (size_t i = 0; i < n_pre && rc == 0; i++) rc = stream_one(&G, i, NULL);
    G.n_streamed = n_pre;
  }
  /* phase 2: edges and input descs */
  ctl c = {0};
  for (uint32_t id = 0; id < g->n_nodes && rc == 0; id++) {
    tfx_progress_nodes(id, g->n_nodes);
    prefetch_name(&G, id);
    if (w->S)
      rc = wire_stream(&G, id, &c);
    else if (G.nr[id].op)
      rc = tfx_lower_wire_op(&G, id, &c);
    else if (G.nr[id].inner)
      rc = tfx_lower_wire_graph_node(&G, id, &c);
  }
  free(c.v);
  /* phase 3: subgraphs (the parents' input descs are ready) */
  for (uint32_t id = 0; id < g->n_nodes && rc == 0; id++) {
    rc = lower_subgraphs(&G, id);
    if (rc == 0 && w->S) rc = fill_deferred(&G, id);
  }
  if (rc) goto out;
  /* outputs and checks */
  size_t n_ops = gd->n_op;
  if (w->S) {
    consumed = G.consumed; /* set as the ops were written */
    G.consumed = NULL;
  } else {
    consumed = tfx_calloc(n_ops ? n_ops : 1, 1);
    if (!consumed) {
      rc = tfx_lower_oom(w);
      goto out;
    }
    check_edges(&G, 0, n_ops, consumed, n_ops, TFX_NO_ID);
  }
  const char *no_name = sub ? tfx_lower_cat(w, G.prefix, "NetOutput") : "NetOutput";
  Ge__Proto__OpDef *no =
      no_name ? tfx_lower_op_new(&G, no_name, "NetOutput", TFX_LOWER_NO_SLOT) : NULL;
  if (!no) {
    rc = -1;
    goto out;
  }
  rc = sub ? sub_outputs(&G, no) : main_outputs(&G, no, consumed, n_ops);
  if (rc == 0) rc = tfx_lower_port_names(w, no);
  if (rc == 0 && !sub) {
    /* GraphDef.input: the Data ops, by index (= op order) */
    for (size_t i = 0; i < gd->n_op && rc == 0; i++) {
      if (op_kind(&G, i) != TFX_LOWER_K_DATA) continue;
      char *s = tfx_lower_edge(w, op_name(&G, i), 0);
      if (!s || tfx_ge_push_ptr(w->A, (void ***)&gd->input, &gd->n_input, s)) rc = tfx_lower_oom(w);
    }
  }
  if (rc == 0) {
    /* Data indices: 0..n-1, each once (docs/AIR.md §8.1) */
    size_t n_data = 0;
    for (size_t i = 0; i < gd->n_op; i++) n_data += op_kind(&G, i) == TFX_LOWER_K_DATA;
    uint8_t *seen = tfx_calloc(n_data ? n_data : 1, 1);
    if (!seen) {
      rc = tfx_lower_oom(w);
      goto out;
    }
    for (size_t i = 0; i < gd->n_op; i++) {
      if (op_kind(&G, i) != TFX_LOWER_K_DATA) continue; /* (a Data op is never lite) */
      const Ge__Proto__AttrDef *ix = tfx_ge_op_attr_get(gd->op[i], "index");
      if (!ix || ix->value_case != GE__PROTO__ATTR_DEF__VALUE_I || ix->i < 0 ||
          (uint64_t)ix->i >= n_data || seen[ix->i]) {
        GERR(&G,
             "internal error: Data op '%s' of graph '%s' has a missing, repeated or "
             "out-of-range index",
             gd->op[i]->name, gd->name);
        continue;
      }
      seen[ix->i] = 1;
    }
    free(seen);
    /* the NetOutput's own edges */
    check_edges(&G, n_ops, gd->n_op, NULL, 0, TFX_NO_ID);
  }
  if (rc == 0 && w->S) { /* the NetOutput, last */
    if (gd->n_op != G.n_phase1 + 1)
      GERR(&G, "internal error: graph '%s' got %zu ops after phase 1, not one NetOutput", gd->name,
           gd->n_op - G.n_phase1);
    for (size_t i = n_ops; i < gd->n_op && rc == 0; i++) rc = stream_one(&G, i, NULL);
    tfx_arena_reset(&w->scratch);
  }
out:
  if (G.consumed != G.kind) free(G.consumed);
  if (consumed != G.kind) free(consumed);
  free(G.pre);
  free(G.lite);
  free(G.kind);
  free(G.ring);
  free(G.nr);
  free(G.args);
  free(G.slot_op);
  free(G.gen_names);
  free(G.names);
  free(G.stamp);
  free(G.queue);
  return rc;
}

/* ---------------------------------------------------------------- entry */

tfx_status tfx_ge_lower(tfx_ge_model *gm, const tfx_module *m, const tfx_opmap *om,
                        const tfx_cann_table *protos, const tfx_ge_lower_opts *o, tfx_diag *d) {
  tfx_arena_init(&gm->arena);
  gm->model = NULL;
  memset(&gm->air, 0, sizeof gm->air);
  gm->streamed = 0;
  gm->air_size = 0;
  if (!m || !om || !o || !om->main.ops || (m->n_funcs && !om->funcs) || om->n_funcs != m->n_funcs) {
    tfx_error(d, m ? m->fname : NULL, 0, 0,
              "internal error: lowering needs the module and its full op mapping");
    return TFX_E_FAIL;
  }
  lw w;
  memset(&w, 0, sizeof w);
  w.A = w.P = w.AT = w.OPA = &gm->arena;
  tfx_arena_init(&w.scratch);
  w.m = m;
  w.om = om;
  w.protos = protos;
  w.o = o;
  w.d = d;
  w.file = m->fname;
  /* the TF op table types outputs; without it the attr rules apply (not an error) */
  tfx_diag scratch;
  tfx_diag_init(&scratch);
  w.tt = tfx_tf_ops_stdlib(&scratch);
  tfx_diag_free(&scratch);
  tfx_hmap_init(&w.graph_names);
  tfx_hmap_init(&w.fn_index);
  tfx_hmap_init(&w.port_lists);
  tfx_hmap_init(&w.unfed);
  tfx_hmap_init(&w.pre_map);
  tfx_hmap_init(&w.outs_map);
  tfx_ge_shape_cache_init(&w.shapes, w.P);
  /* streaming: the tree is gone when lowering returns, so its strings may be borrowed from
   * the TF side and the op mapping, which outlive the call (names, types, port names) */
  w.shapes.borrow_strings = o->stream_air;
  w.shapes.intern = o->stream_air;
  w.fn_busy = tfx_calloc(m->n_funcs ? m->n_funcs : 1, 1);
  const char *gen = getenv("TFXC_LOWER_LITE_GENERAL"); /* tests: "1" wires every op as an OpDef */
  w.lite_general = gen && gen[0] == '1';
  /* (NULL: every node looks its TF op up; nothing else changes) */
  if (m->ops.n && (w.tf_ops = tfx_calloc(m->ops.n, sizeof *w.tf_ops)) != NULL)
    w.n_tf_ops = m->ops.n;
  Ge__Proto__ModelDef *model = tfx_arena_alloc(w.A, sizeof *model);
  if (o->stream_air && (!(w.S = tfx_ge_air_stream_new()) || !(w.memo = tfx_ge_air_memo_new())))
    model = NULL;
  if (w.S && o->air_path) /* else in memory; written by a thread of its own unless jobs is 1 */
    tfx_ge_air_stream_spill(w.S, o->air_path, o->jobs);
  if (w.S) tfx_ge_air_stream_max(w.S, o->air_max); /* past it: lowered again, whole */
  int io_err = 0; /* the spill file could not be written */
  /* streaming: shared descriptors and port lists are written once (air_write.h's memo) */
  w.shapes.memo = w.memo;
  tfx_ge_air_stream_set_memo(w.S, w.memo);
  if (!w.fn_busy || !model) {
    tfx_lower_oom(&w);
    goto done;
  }
  ge__proto__model_def__init(model);
  w.model = model;
  model->version = 1;
  model->name = tfx_arena_strdup(w.A, o->model_name && *o->model_name ? o->model_name : "model");
  if (!model->name) {
    tfx_lower_oom(&w);
    goto done;
  }
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    uint32_t existing;
    const char *fn = m->funcs[i].name ? m->funcs[i].name : "";
    if (tfx_hmap_put(&w.fn_index, fn, strlen(fn), i, &existing) < 0) {
      tfx_lower_oom(&w);
      goto done;
    }
  }
  const char *gname = graph_name(&w, model->name);
  if (!gname || lower_graph(&w, &m->main, &om->main, gname, NULL)) goto done;
  if (w.S) { /* the ops are written (ids and maps done as they went): the graphs' fields */
    if (w.failed) goto done;
    size_t size = 0;
    int r = tfx_ge_air_stream_finish(w.S, model, o->air_max, &gm->air, &size);
    gm->air_size = size;
    if (r == 0) {
      gm->streamed = 1;
    } else if (r == -3) {
      tfx_lower_oom(&w);
    } else if (r == -4) {
      tfx_error(d, o->air_path, 0, 0, "cannot write output: %s",
                strerror(tfx_ge_air_stream_errno(w.S)));
      w.failed = io_err = 1;
    } else if (r != -2) { /* -2: over air_max; the caller lowers again, whole */
      tfx_error(d, w.file, 0, 0, "internal error: the GE model cannot be written op by op");
      w.failed = 1;
    }
    goto done;
  }
  /* sequential ids over the model (docs/AIR.md §5.4) */
  int64_t id = 0;
  for (size_t i = 0; i < model->n_graph; i++)
    for (size_t k = 0; k < model->graph[i]->n_op; k++) model->graph[i]->op[k]->id = id++;
  tfx_ge_sort_maps(model);
done:
  free(w.fn_busy);
  free(w.tf_ops);
  tfx_hmap_free(&w.graph_names);
  tfx_hmap_free(&w.fn_index);
  tfx_hmap_free(&w.port_lists);
  tfx_hmap_free(&w.unfed);
  tfx_hmap_free(&w.pre_map);
  tfx_hmap_free(&w.outs_map);
  tfx_lower_attrs_free(&w);
  tfx_ge_shape_cache_free(&w.shapes);
  tfx_arena_free(&w.scratch);
  tfx_ge_air_stream_free(w.S);
  tfx_ge_air_memo_free(w.memo);
  if (w.failed || w.oom) {
    tfx_io_pieces_free(&gm->air);
    gm->streamed = 0;
    /* the boundary: no TFX_GE_E_* goes further */
    return w.oom ? TFX_E_NOMEM : io_err ? TFX_E_INPUT : TFX_E_FAIL;
  }
  if (w.S) { /* the tree is not needed any more: only the bytes are kept */
    tfx_arena_free(&gm->arena);
    return TFX_OK;
  }
  gm->model = model;
  return TFX_OK;
}

void tfx_ge_model_free(tfx_ge_model *gm) {
  if (!gm) return;
  tfx_arena_free(&gm->arena);
  tfx_io_pieces_free(&gm->air);
  gm->streamed = 0;
  gm->model = NULL;
}
