/* Graph index: node table, name->id hash, parsed inputs, consumer lists, topological order.
 * Stage: graph (after io, before scope). Input: an unpacked Tensorflow__GraphDef and its
 * FunctionDef library (borrowed). Output: tfx_module (graph.h), everything in m->arena.
 * Invariants: O(N + E) per graph, no per-node malloc, no recursion; every validation error of
 * every graph is reported before the build fails with TFX_E_INPUT. The main graph is read in
 * one sweep over its NodeDefs (build_main_sweep); one with anything to report is built again
 * by the two passes (names, then inputs), which report it, as function bodies always are. */
#include "graph/graph.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"
#include "util/progress.h"

/* Limit for reported cycle paths, so a 10^6-node cycle gives a readable message. */
#define CYCLE_SHOW_MAX 8

typedef struct build_ctx {
  tfx_module *m;
  tfx_diag *d;
  const char *fname;
  uint32_t next_iter_id;     /* op id of "NextIteration", or TFX_HASH_NONE */
  uint32_t ref_next_iter_id; /* op id of "RefNextIteration", or TFX_HASH_NONE */
  tfx_severity sev;          /* validation problems: errors, or warnings when lenient */
  tfx_module_named_fn on_named; /* tfx_module_build_cb: the main graph's names and op ids are
                                   final (called once at most), or NULL */
  void *on_named_user;
} build_ctx;

/* ---- input-string syntax ------------------------------------------------------------- */

/* Last ':' in s[0..n), or NULL (memrchr is not C11). Forward memchr steps: most inputs
 * have no ':' at all, and one vectorised scan says so (a byte loop was a quarter of the
 * index pass). */
static const char *last_colon(const char *s, size_t n) {
  const char *c = memchr(s, ':', n), *last = NULL;
  while (c) {
    last = c;
    c = memchr(c + 1, ':', n - (size_t)(c + 1 - s));
  }
  return last;
}

/* Parses a port: non-empty decimal digits, value <= INT32_MAX. Returns NULL or a reason. */
static const char *parse_port(const char *s, size_t n, int32_t *port) {
  if (n == 0) return "missing port after ':'";
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return "port is not a non-negative integer";
    v = v * 10 + (s[i] - '0');
    if (v > INT32_MAX) return "port out of range";
  }
  *port = (int32_t)v;
  return NULL;
}

/* Main-graph input syntax; returns NULL or the reason the string is malformed. */
static const char *parse_main_input(const char *s, const char **name, size_t *name_len,
                                    int32_t *port) {
  size_t n = strlen(s);
  if (n == 0) return "empty input";
  if (s[0] == '^') {
    if (n == 1) return "control input '^' names no node";
    if (memchr(s + 1, ':', n - 1)) return "control input must not have a port";
    *name = s + 1;
    *name_len = n - 1;
    *port = -1;
    return NULL;
  }
  const char *colon = last_colon(s, n);
  if (!colon) {
    *name = s;
    *name_len = n;
    *port = 0;
    return NULL;
  }
  if (colon == s) return "empty node name before ':'";
  const char *why = parse_port(colon + 1, n - (size_t)(colon + 1 - s), port);
  if (why) return why;
  *name = s;
  *name_len = (size_t)(colon - s);
  return NULL;
}

int tfx_parse_input(const char *s, const char **name, size_t *name_len, int32_t *port) {
  if (!s) return -1;
  return parse_main_input(s, name, name_len, port) ? -1 : 0;
}

/* Function-body input syntax; returns NULL or a reason. */
static const char *parse_func_input(const char *s, const char **name, size_t *name_len,
                                    const char **out_arg, size_t *out_arg_len, int32_t *port) {
  size_t n = strlen(s);
  *out_arg = NULL;
  *out_arg_len = 0;
  if (n == 0) return "empty input";
  if (s[0] == '^') {
    if (n == 1) return "control input '^' names no node";
    if (memchr(s + 1, ':', n - 1)) return "control input must not have a port";
    *name = s + 1;
    *name_len = n - 1;
    *port = -1;
    return NULL;
  }
  const char *c1 = memchr(s, ':', n);
  if (!c1) {
    *name = s;
    *name_len = n;
    *port = 0;
    return NULL;
  }
  const char *c2 = memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - s));
  if (!c2) {
    /* `node:out_arg` (the whole output arg; index 0), seen in real files. An out_arg name is
     * an identifier, so `x:3` is the main-graph form used by mistake. */
    const char *oa = c1 + 1;
    size_t oal = n - (size_t)(oa - s);
    if (oal == 0) return "empty output arg name";
    if (!((oa[0] >= 'a' && oa[0] <= 'z') || (oa[0] >= 'A' && oa[0] <= 'Z') || oa[0] == '_'))
      return "expected 'node:out_arg:index' (or an input arg name) in a function body";
    if (c1 == s) return "empty node name before ':'";
    *name = s;
    *name_len = (size_t)(c1 - s);
    *out_arg = oa;
    *out_arg_len = oal;
    *port = 0;
    return NULL;
  }
  if (memchr(c2 + 1, ':', n - (size_t)(c2 + 1 - s))) return "too many ':' in input";
  if (c1 == s) return "empty node name before ':'";
  if (c2 == c1 + 1) return "empty output arg name";
  const char *why = parse_port(c2 + 1, n - (size_t)(c2 + 1 - s), port);
  if (why) return why;
  *name = s;
  *name_len = (size_t)(c1 - s);
  *out_arg = c1 + 1;
  *out_arg_len = (size_t)(c2 - c1 - 1);
  return NULL;
}

int tfx_parse_func_input(const char *s, const char **name, size_t *name_len, const char **out_arg,
                         size_t *out_arg_len, int32_t *port) {
  if (!s) return -1;
  return parse_func_input(s, name, name_len, out_arg, out_arg_len, port) ? -1 : 0;
}

/* ---- diagnostics helpers --------------------------------------------------------------- */

#define GERR(ctx, g, fmt, ...)                                                          \
  do {                                                                                  \
    if ((g)->func)                                                                      \
      tfx_diag_add((ctx)->d, (ctx)->sev, (ctx)->fname, 0, 0, "function '%s': " fmt,     \
                   (g)->name, __VA_ARGS__);                                             \
    else                                                                                \
      tfx_diag_add((ctx)->d, (ctx)->sev, (ctx)->fname, 0, 0, fmt, __VA_ARGS__);         \
  } while (0)

static int oom(build_ctx *c) {
  tfx_error(c->d, c->fname, 0, 0, "out of memory while indexing the graph");
  return -1;
}

/* ---- building one graph ---------------------------------------------------------------- */

static int is_back_edge_op(const build_ctx *c, uint32_t op_id) {
  return op_id != TFX_HASH_NONE &&
         (op_id == c->next_iter_id || op_id == c->ref_next_iter_id);
}

/* Reports one cycle among the nodes Kahn's algorithm could not order (indeg > 0). Walks
 * producer links backwards from the first such node until a node repeats. */
static int report_cycle(build_ctx *c, tfx_graph *g, const uint32_t *indeg) {
  uint32_t n = g->n_nodes, start = TFX_NO_ID, left = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (indeg[i] > 0) {
      if (start == TFX_NO_ID) start = i;
      left++;
    }
  }
  uint32_t *seen_at = tfx_calloc(n, sizeof *seen_at); /* step + 1, 0 = not visited */
  uint32_t *path = tfx_malloc((size_t)n * sizeof *path);
  if (!seen_at || !path) {
    free(seen_at);
    free(path);
    return oom(c);
  }
  uint32_t len = 0, v = start;
  while (!seen_at[v]) {
    seen_at[v] = len + 1;
    path[len++] = v;
    const tfx_node *nd = &g->nodes[v];
    uint32_t next = TFX_NO_ID;
    for (uint32_t k = 0; k < nd->n_in; k++) {
      const tfx_input *in = &nd->in[k];
      if (in->kind != TFX_IN_NODE || in->src == TFX_NO_ID) continue;
      if (is_back_edge_op(c, g->nodes[in->src].op_id)) continue;
      if (indeg[in->src] > 0) {
        next = in->src;
        break;
      }
    }
    if (next == TFX_NO_ID) break; /* cannot happen: an unordered node has an unordered producer */
    v = next;
  }
  /* path[seen_at[v]-1 .. len) is the cycle, walked consumer -> producer; print it forwards. */
  char buf[1024];
  size_t used = 0;
  buf[0] = '\0';
  uint32_t first = seen_at[v] ? seen_at[v] - 1 : 0;
  uint32_t clen = len - first, shown = 0;
  for (uint32_t k = len; k > first && shown < CYCLE_SHOW_MAX; k--, shown++) {
    int w = snprintf(buf + used, sizeof buf - used, "'%s' -> ", g->nodes[path[k - 1]].name);
    if (w < 0 || (size_t)w >= sizeof buf - used) break;
    used += (size_t)w;
  }
  if (clen > CYCLE_SHOW_MAX)
    snprintf(buf + used, sizeof buf - used, "... (%" PRIu32 " nodes) -> '%s'", clen,
             g->nodes[path[len - 1]].name);
  else
    snprintf(buf + used, sizeof buf - used, "'%s'", g->nodes[path[len - 1]].name);
  GERR(c, g,
       "cycle through %s; only edges from NextIteration nodes may close a loop "
       "(%" PRIu32 " nodes could not be ordered)",
       buf, left);
  free(seen_at);
  free(path);
  return 0;
}

/* Top bit of an ends entry in tfx_graph_kahn: the node is a back-edge producer. */
#define KAHN_BACK 0x80000000u

int tfx_graph_kahn(const tfx_graph *g, uint32_t *ends, uint32_t back_op1, uint32_t back_op2,
                   uint32_t *topo, uint32_t *indeg, uint32_t *n_ordered) {
  uint32_t n = g->n_nodes;
  /* The queue visits the nodes in no useful order: it reads the lists through ends (4-byte
   * entries) and the one array tfx_graph_link_uses filled (node u's list is base[ends[u - 1]
   * .. ends[u])), not through the 56-byte node records, which on a large graph is far fewer
   * cache misses. A back-edge producer is marked by the top bit of its ends entry. */
  const tfx_use *base = NULL;
  for (uint32_t i = 0; i < n; i++) {
    const tfx_node *nd = &g->nodes[i];
    uint32_t start = i ? ends[i - 1] & ~KAHN_BACK : 0;
    if (ends[i] >= KAHN_BACK || ends[i] - start != nd->n_uses ||
        (nd->n_uses && base && nd->uses != base + start))
      return -2; /* not the lists tfx_graph_link_uses made with these ends */
    if (nd->n_uses && !base) base = nd->uses - start;
    if (nd->op_id != TFX_HASH_NONE && (nd->op_id == back_op1 || nd->op_id == back_op2)) {
      ends[i] |= KAHN_BACK;
      continue;
    }
    /* in-degrees counted from the producer side: every resolved node input is one entry of
     * its producer's consumer list, so this is the count over the inputs whose producer is
     * no back edge, read sequentially (node records in order, their lists) */
    for (uint32_t k = 0; k < nd->n_uses; k++) indeg[nd->uses[k].node]++;
  }
  uint32_t head = 0, tail = 0;
  for (uint32_t i = 0; i < n; i++)
    if (indeg[i] == 0) topo[tail++] = i;
  while (head < tail) {
    uint32_t u = topo[head++];
    if (ends[u] & KAHN_BACK) continue;
    for (uint32_t k = u ? ends[u - 1] & ~KAHN_BACK : 0, e = ends[u]; k < e; k++) {
      uint32_t v = base[k].node;
      if (--indeg[v] == 0) topo[tail++] = v;
    }
  }
  *n_ordered = tail;
  return 0;
}

/* Kahn's algorithm; edges from NextIteration/RefNextIteration producers are ignored. Returns
 * 1 when a cycle was reported, 0 when ordered, -1 on out of memory. */
static int topo_sort(build_ctx *c, tfx_graph *g, uint32_t *ends) {
  uint32_t n = g->n_nodes;
  g->topo = tfx_arena_alloc(&c->m->arena, (size_t)(n ? n : 1) * sizeof *g->topo); /* all written, or NULL */
  uint32_t *indeg = tfx_calloc(n ? n : 1, sizeof *indeg);
  if (!g->topo || !indeg) {
    free(indeg);
    return oom(c);
  }
  uint32_t tail = 0;
  if (tfx_graph_kahn(g, ends, c->next_iter_id, c->ref_next_iter_id, g->topo, indeg, &tail) != 0) {
    free(indeg); /* cannot fail on the lists build_graph just linked: ends are theirs */
    return oom(c);
  }
  int rc = 0;
  if (tail < n) {
    rc = report_cycle(c, g, indeg) < 0 ? -1 : 1;
    g->topo = NULL; /* a partial order is never exposed */
  }
  free(indeg);
  return rc;
}

/* Resolves the inputs of node i (already parsed table sizes); returns the number of errors,
 * or -1 on out of memory. arg_map is NULL for the main graph. */
/* How many of the nodes just before a node are tried by name before the hash map: inputs
 * mostly name a recent node (80% within 8, all within 32 in the bench graphs), and at 10^6
 * nodes a map lookup is two cache misses (slot, then the stored name), while the tries read
 * the 4-byte name_len entries in order and compare only names of the same length, which the
 * last nodes' processing left in cache (graph-100000: 23 600 map lookups with 8 tries, none
 * with 32). */
#define RECENT_TRIES 32u

static int resolve_inputs(build_ctx *c, tfx_graph *g, uint32_t i, const tfx_hmap *arg_map,
                          const uint32_t *name_len, uint32_t *use_count) {
  tfx_node *nd = &g->nodes[i];
  Tensorflow__NodeDef *def = nd->def;
  int errs = 0, seen_control = 0;
  nd->n_data_in = 0;
  for (uint32_t k = 0; k < nd->n_in; k++) {
    const char *s = def->input[k] ? def->input[k] : "";
    tfx_input *in = &nd->in[k];
    in->out_arg = NULL;
    in->kind = TFX_IN_NODE;
    in->src = TFX_NO_ID;
    in->port = 0; /* kept by a string that does not parse (lenient builds read it) */
    const char *name = NULL, *oa = NULL;
    size_t nl = 0, oal = 0;
    int32_t port = 0;
    const char *why = g->func ? parse_func_input(s, &name, &nl, &oa, &oal, &port)
                              : parse_main_input(s, &name, &nl, &port);
    if (why) {
      GERR(c, g, "node '%s': input %" PRIu32 " ('%s'): %s", nd->name, k, s, why);
      errs++;
      continue;
    }
    in->port = port;
    if (port < 0) {
      seen_control = 1;
    } else if (seen_control) {
      GERR(c, g, "node '%s': data input %" PRIu32 " ('%s') follows a control input", nd->name,
           k, s);
      errs++;
    } else {
      nd->n_data_in = k + 1;
    }
    uint32_t id = TFX_HASH_NONE;
    /* name_len[j]: the length of node j's name when j is the node the map holds for it (the
     * first of that name), else UINT32_MAX; a match is then what the map would return */
    for (uint32_t b = 1; name_len && b <= RECENT_TRIES && b <= i; b++)
      if (name_len[i - b] == nl && memcmp(g->nodes[i - b].name, name, nl) == 0) {
        id = i - b;
        break;
      }
    if (id == TFX_HASH_NONE) id = tfx_hmap_get(&g->by_name, name, nl);
    if (g->func) {
      uint32_t arg = arg_map ? tfx_hmap_get(arg_map, name, nl) : TFX_HASH_NONE;
      if (oa) { /* node:out_arg:idx */
        if (id == TFX_HASH_NONE) {
          GERR(c, g, "node '%s': input %" PRIu32 " ('%s') names missing node '%.*s'", nd->name,
               k, s, (int)nl, name);
          errs++;
          continue;
        }
        in->out_arg = tfx_arena_strndup(&c->m->arena, oa, oal);
        if (!in->out_arg) return oom(c);
      } else if (port >= 0) { /* bare name: must be a signature input arg */
        if (arg != TFX_HASH_NONE) {
          in->kind = TFX_IN_ARG;
          in->src = arg;
          continue;
        }
        if (id != TFX_HASH_NONE)
          GERR(c, g,
               "node '%s': input %" PRIu32 " ('%s') names node '%.*s' without ':out_arg:index' "
               "(function bodies use 'node:out_arg:index')",
               nd->name, k, s, (int)nl, name);
        else
          GERR(c, g, "node '%s': input %" PRIu32 " ('%s') names neither an input arg nor a node",
               nd->name, k, s);
        errs++;
        continue;
      } else if (id == TFX_HASH_NONE) { /* ^x: a node, else an input arg */
        if (arg != TFX_HASH_NONE) {
          in->kind = TFX_IN_ARG;
          in->src = arg;
          continue;
        }
        GERR(c, g, "node '%s': input %" PRIu32 " ('%s') names neither a node nor an input arg",
             nd->name, k, s);
        errs++;
        continue;
      }
    } else if (id == TFX_HASH_NONE) {
      GERR(c, g, "node '%s': input %" PRIu32 " ('%s') names missing node '%.*s'", nd->name, k, s,
           (int)nl, name);
      errs++;
      continue;
    }
    in->src = id;
    use_count[id]++;
  }
  return errs;
}

/* ---- consumer lists --------------------------------------------------------------------- */

int tfx_graph_link_uses(tfx_graph *g, tfx_arena *a, uint32_t *use_start) {
  uint32_t n = g->n_nodes;
  /* prefix sums, then fill in (consumer id, slot) order */
  size_t total_uses = 0;
  for (uint32_t i = 0; i < n; i++) total_uses += use_start[i + 1];
  /* not zeroed: the loop below fills exactly the counted entries */
  tfx_use *uses = tfx_arena_alloc(a, (total_uses ? total_uses : 1) * sizeof *uses);
  if (!uses) return -1;
  for (uint32_t i = 0; i < n; i++) use_start[i + 1] += use_start[i];
  /* use_start[p] is producer p's fill cursor: the random accesses of the fill go to this
   * 4-byte array, not to the (much larger) node records; afterwards use_start[p] is the end
   * of p's list, the start of p + 1's */
  for (uint32_t i = 0; i < n; i++) {
    const tfx_node *nd = &g->nodes[i];
    for (uint32_t k = 0; k < nd->n_in; k++) {
      const tfx_input *in = &nd->in[k];
      if (in->kind != TFX_IN_NODE || in->src == TFX_NO_ID) continue;
      tfx_use *u = &uses[use_start[in->src]++];
      u->node = i;
      u->slot = k;
    }
  }
  uint32_t start = 0;
  for (uint32_t i = 0; i < n; i++) {
    tfx_node *nd = &g->nodes[i];
    nd->n_uses = use_start[i] - start;
    nd->uses = nd->n_uses ? uses + start : NULL;
    start = use_start[i];
  }
  return 0;
}

/* Names hashed a stretch ahead: at every PUT_AHEAD-th node the names of the next PUT_AHEAD
 * nodes are measured and hashed and their name-table slots prefetched, so the table's misses
 * overlap instead of coming one per node. */
enum { PUT_AHEAD = 16 };
typedef struct name_ahead {
  size_t len[PUT_AHEAD];
  uint32_t h[PUT_AHEAD];
  uint32_t to; /* nodes below this have their entry */
} name_ahead;

/* The length and hash of node i's name (nd_name): from the stretch hashed ahead, or computed. */
static void name_hash(name_ahead *a, Tensorflow__NodeDef *const *defs, uint32_t i, uint32_t n,
                      const tfx_hmap *map, const char *nd_name, size_t *len, uint32_t *h) {
  if (i + PUT_AHEAD < n && (i & (PUT_AHEAD - 1)) == 0) {
    for (uint32_t q = i; q < i + PUT_AHEAD; q++) {
      const char *nm = defs[q] && defs[q]->name ? defs[q]->name : "";
      a->len[q & (PUT_AHEAD - 1)] = strlen(nm);
      a->h[q & (PUT_AHEAD - 1)] = tfx_hash_bytes(nm, a->len[q & (PUT_AHEAD - 1)]);
      tfx_hmap_prefetch(map, a->h[q & (PUT_AHEAD - 1)]);
    }
    a->to = i + PUT_AHEAD;
  }
  if (i < a->to) {
    *len = a->len[i & (PUT_AHEAD - 1)];
    *h = a->h[i & (PUT_AHEAD - 1)];
  } else {
    *len = strlen(nd_name);
    *h = tfx_hash_bytes(nd_name, *len);
  }
}

/* Pass 2 reads, per node, its NodeDef's input array, the input strings, and the names of the
 * (mostly recent) nodes they name: pointer chains into the GraphDef's arena, cold since pass 1.
 * Before node i is resolved: the NodeDef of i + 3 * INPUT_AHEAD, the input array of i + 2 *
 * INPUT_AHEAD (its record fetched before), the first strings of i + INPUT_AHEAD (its array
 * fetched before) and the name of i + INPUT_AHEAD, so the misses overlap. Hints only. */
#define INPUT_AHEAD 8u
static inline void prefetch_inputs(const tfx_graph *g, uint32_t i) {
  uint32_t n = g->n_nodes;
  if (i + 3 * INPUT_AHEAD < n) __builtin_prefetch(g->nodes[i + 3 * INPUT_AHEAD].def);
  if (i + 2 * INPUT_AHEAD < n) {
    const Tensorflow__NodeDef *d = g->nodes[i + 2 * INPUT_AHEAD].def;
    if (d && d->n_input) __builtin_prefetch(d->input);
  }
  if (i + INPUT_AHEAD < n) {
    const tfx_node *nd = &g->nodes[i + INPUT_AHEAD];
    __builtin_prefetch(nd->name);
    const Tensorflow__NodeDef *d = nd->def;
    size_t k = d ? d->n_input : 0;
    if (k > 4) k = 4;
    while (k--)
      if (d->input[k]) __builtin_prefetch(d->input[k]);
  }
}

/* An input of the one-sweep build whose node comes later in the list (resolved at the end). */
typedef struct fwd_ref {
  uint32_t node, slot;
  const char *name;
  size_t len;
} fwd_ref;

/* Inputs are taken from chunks of the module arena this size (or one node's, if larger). */
#define INPUT_CHUNK 16384u

/* The main graph in one sweep over the NodeDefs: each node's name, op and input count (pass 1
 * of build_graph) and then its inputs (pass 2) while its NodeDef and strings are in cache,
 * instead of two sweeps over ~800 bytes of scattered GraphDef per node. An input naming a
 * node later in the list is resolved after the sweep, from the complete map; the ids, use
 * counts and op ids are what the two passes give. Reports nothing: at the first problem of
 * any kind (a name empty or taken, an op empty, an input that does not parse, names no node
 * or follows a control input) it returns 1 and the caller builds the graph again with the
 * two passes, which report everything as before. name_len and use_count (n entries, zeroed)
 * as for resolve_inputs. Returns 0, 1, or -1 on out of memory (reported). */
static int build_main_sweep(build_ctx *c, tfx_graph *g, Tensorflow__NodeDef **defs, uint32_t n,
                            uint32_t *name_len, uint32_t *use_count) {
  tfx_arena *a = &c->m->arena;
  name_ahead names = {.to = 0};
  tfx_input *chunk = NULL;
  size_t chunk_left = 0;
  fwd_ref *fw = NULL;
  size_t n_fw = 0, cap_fw = 0;
  int rc = 1;
  for (uint32_t i = 0; i < n; i++) {
    tfx_progress_nodes(i, n);
    /* the NodeDefs, then their name and op, then their input arrays, then the input strings,
     * fetched at decreasing distances (each from what the one before brought in) */
    if (i + 4 * PUT_AHEAD < n && defs[i + 4 * PUT_AHEAD]) __builtin_prefetch(defs[i + 4 * PUT_AHEAD]);
    if (i + 2 * PUT_AHEAD < n && defs[i + 2 * PUT_AHEAD]) {
      const Tensorflow__NodeDef *ahead = defs[i + 2 * PUT_AHEAD];
      if (ahead->name) __builtin_prefetch(ahead->name);
      if (ahead->op) __builtin_prefetch(ahead->op);
      if (ahead->n_input) __builtin_prefetch(ahead->input);
    }
    if (i + INPUT_AHEAD < n && defs[i + INPUT_AHEAD]) {
      const Tensorflow__NodeDef *d = defs[i + INPUT_AHEAD];
      size_t k = d->n_input > 4 ? 4 : d->n_input;
      while (k--)
        if (d->input[k]) __builtin_prefetch(d->input[k]);
    }
    tfx_node *nd = &g->nodes[i];
    Tensorflow__NodeDef *def = defs[i];
    nd->def = def;
    nd->name = def && def->name ? def->name : "";
    nd->op = def && def->op ? def->op : "";
    nd->op_id = TFX_NO_ID;
    size_t nin = def ? def->n_input : 0;
    if (nin >= UINT32_MAX) goto out;
    nd->n_in = (uint32_t)nin;
    nd->n_data_in = 0;
    name_len[i] = UINT32_MAX;
    if (nd->name[0] == '\0' || nd->op[0] == '\0') goto out;
    size_t len;
    uint32_t h;
    name_hash(&names, defs, i, n, &g->by_name, nd->name, &len, &h);
    int r = tfx_hmap_put_hashed(&g->by_name, nd->name, len, h, i, NULL);
    if (r < 0) goto nomem;
    if (r == 0 || len >= UINT32_MAX) goto out; /* a name taken: reported by the two passes */
    name_len[i] = (uint32_t)len;
    nd->op_id = tfx_intern_id(&c->m->ops, nd->op, strlen(nd->op));
    if (nd->op_id == TFX_HASH_NONE) goto nomem;

    /* its inputs */
    nd->in = NULL;
    if (!nin) continue;
    if (chunk_left < nin) {
      size_t want = nin > INPUT_CHUNK ? nin : INPUT_CHUNK;
      /* not zeroed: every field of every input is written below */
      if (!(chunk = tfx_arena_alloc(a, want * sizeof *chunk))) goto nomem;
      chunk_left = want;
    }
    nd->in = chunk;
    chunk += nin;
    chunk_left -= nin;
    int seen_control = 0;
    for (uint32_t k = 0; k < nd->n_in; k++) {
      const char *s = def->input[k] ? def->input[k] : "";
      tfx_input *in = &nd->in[k];
      in->out_arg = NULL;
      in->kind = TFX_IN_NODE;
      in->src = TFX_NO_ID;
      const char *name = NULL;
      size_t nl = 0;
      int32_t port = 0;
      if (parse_main_input(s, &name, &nl, &port)) goto out;
      in->port = port;
      if (port < 0) seen_control = 1;
      else if (seen_control) goto out;
      else nd->n_data_in = k + 1;
      uint32_t id = TFX_HASH_NONE;
      for (uint32_t b = 1; b <= RECENT_TRIES && b <= i; b++)
        if (name_len[i - b] == nl && memcmp(g->nodes[i - b].name, name, nl) == 0) {
          id = i - b;
          break;
        }
      if (id == TFX_HASH_NONE) id = tfx_hmap_get(&g->by_name, name, nl);
      if (id == TFX_HASH_NONE) { /* a node further on, or none: after the sweep */
        if (n_fw == cap_fw) {
          size_t nc = cap_fw ? 2 * cap_fw : 64;
          fwd_ref *v = tfx_realloc(fw, nc * sizeof *v);
          if (!v) goto nomem;
          fw = v;
          cap_fw = nc;
        }
        fw[n_fw++] = (fwd_ref){i, k, name, nl};
        continue;
      }
      in->src = id;
      use_count[id]++;
    }
  }
  for (size_t q = 0; q < n_fw; q++) {
    uint32_t id = tfx_hmap_get(&g->by_name, fw[q].name, fw[q].len);
    if (id == TFX_HASH_NONE) goto out;
    g->nodes[fw[q].node].in[fw[q].slot].src = id;
    use_count[id]++;
  }
  rc = 0;
out:
  free(fw);
  return rc;
nomem:
  free(fw);
  return oom(c);
}

/* Builds g over nodes[0..n). func is NULL for the main graph. Returns the number of errors
 * reported, or -1 on out of memory. */
static int build_graph(build_ctx *c, tfx_graph *g, Tensorflow__NodeDef **defs, size_t n,
                       Tensorflow__FunctionDef *func) {
  tfx_arena *a = &c->m->arena;
  int errs = 0;
  uint32_t *name_len = NULL; /* main graph, pass 1 to 2: see resolve_inputs */
  tfx_hmap args;
  tfx_hmap_init(&args);
  tfx_hmap_init(&g->by_name);
  g->func = func;
  if (n >= TFX_NO_ID) {
    GERR(c, g, "too many nodes (%zu)", n);
    return 1;
  }
  g->n_nodes = (uint32_t)n;
  /* not zeroed: pass 1 writes name, op, op_id, def and n_in of every node, pass 2 in and
   * n_data_in, tfx_graph_link_uses uses and n_uses (a build that stops early fails and is
   * freed unread) */
  g->nodes = tfx_arena_alloc(a, (size_t)(n ? n : 1) * sizeof *g->nodes);
  if (!g->nodes || tfx_hmap_reserve(&g->by_name, n) < 0) return oom(c);
  /* The map is zeroed already, but its fresh pages are not mapped yet: the puts below probe
   * (read) a slot before writing it, and a page first read gets the shared zero page and is
   * faulted again when written. Writing it whole first is one fault per page (at 10^6 nodes
   * 12 000 faults fewer) for one sequential pass. */
  memset(g->by_name.slots, 0, g->by_name.cap * sizeof *g->by_name.slots);

  /* Signature input args (functions only). */
  if (func && func->signature) {
    Tensorflow__OpDef *sig = func->signature;
    if (sig->n_input_arg >= TFX_NO_ID) return oom(c);
    g->n_args = (uint32_t)sig->n_input_arg;
    g->args = tfx_arena_calloc(a, g->n_args ? g->n_args : 1, sizeof *g->args);
    if (!g->args || tfx_hmap_reserve(&args, g->n_args) < 0) goto nomem;
    for (uint32_t k = 0; k < g->n_args; k++) {
      const char *an = sig->input_arg[k] && sig->input_arg[k]->name ? sig->input_arg[k]->name : "";
      g->args[k] = an;
      uint32_t prev = 0;
      int r = tfx_hmap_put(&args, an, strlen(an), k, &prev);
      if (r < 0) goto nomem;
      if (r == 0) {
        GERR(c, g, "duplicate input arg name '%s' (args #%" PRIu32 " and #%" PRIu32 ")", an, prev,
             k);
        errs++;
      }
    }
  }

  uint32_t *use_start = tfx_calloc((size_t)n + 1, sizeof *use_start);
  if (!use_start) goto nomem;
  if (!func && !(name_len = tfx_malloc((size_t)(n ? n : 1) * sizeof *name_len))) goto nomem_uses;
  if (!func) { /* the main graph: one sweep, unless it has something to report */
    int r = build_main_sweep(c, g, defs, (uint32_t)n, name_len, use_start + 1);
    if (r < 0) {
      free(use_start);
      goto nomem_reported;
    }
    if (r == 0) goto linked;
    /* again with the two passes, from an empty map, which report what is wrong */
    memset(g->by_name.slots, 0, g->by_name.cap * sizeof *g->by_name.slots);
    g->by_name.n = 0;
    memset(use_start, 0, ((size_t)n + 1) * sizeof *use_start);
  }

  /* Pass 1: names, ops, duplicate check, input counts. The names are hashed PUT_AHEAD at a
   * time and their slots prefetched (the map was reserved for n names: it does not grow). */
  size_t total_in = 0;
  name_ahead names = {.to = 0};
  for (uint32_t i = 0; i < n; i++) {
    tfx_node *nd = &g->nodes[i];
    Tensorflow__NodeDef *def = defs[i];
    /* the NodeDefs and their strings lie hundreds of bytes apart in the GraphDef's arena: each
     * record is fetched 4 * PUT_AHEAD nodes ahead, its name and op 2 * PUT_AHEAD ahead (a
     * whole stretch before the one that hashes the names), so their misses overlap */
    if (i + 4 * PUT_AHEAD < n && defs[i + 4 * PUT_AHEAD]) __builtin_prefetch(defs[i + 4 * PUT_AHEAD]);
    if (i + 2 * PUT_AHEAD < n && defs[i + 2 * PUT_AHEAD]) {
      const Tensorflow__NodeDef *ahead = defs[i + 2 * PUT_AHEAD];
      if (ahead->name) __builtin_prefetch(ahead->name);
      if (ahead->op) __builtin_prefetch(ahead->op);
    }
    nd->def = def;
    nd->name = def && def->name ? def->name : "";
    nd->op = def && def->op ? def->op : "";
    nd->op_id = TFX_NO_ID;
    size_t nin = def ? def->n_input : 0;
    if (nin >= UINT32_MAX) goto nomem_uses;
    nd->n_in = (uint32_t)nin;
    total_in += nin;
    if (name_len) name_len[i] = UINT32_MAX;
    if (nd->name[0] == '\0') {
      GERR(c, g, "node #%" PRIu32 " has an empty name", i);
      errs++;
    } else {
      uint32_t first = 0;
      size_t len;
      uint32_t h;
      name_hash(&names, defs, i, n, &g->by_name, nd->name, &len, &h);
      int r = tfx_hmap_put_hashed(&g->by_name, nd->name, len, h, i, &first);
      if (r < 0) goto nomem_uses;
      if (r == 1 && name_len && len < UINT32_MAX) name_len[i] = (uint32_t)len;
      if (r == 0) {
        GERR(c, g, "duplicate node name '%s' (first defined as node #%" PRIu32 ")", nd->name,
             first);
        errs++;
      }
    }
    if (nd->op[0] == '\0') {
      GERR(c, g, "node '%s' has an empty op", nd->name);
      errs++;
    } else {
      nd->op_id = tfx_intern_id(&c->m->ops, nd->op, strlen(nd->op));
      if (nd->op_id == TFX_HASH_NONE) goto nomem_uses;
    }
  }

  /* Pass 2: parse and resolve inputs; count uses per producer. */
  /* not zeroed: resolve_inputs writes every field of every input first */
  tfx_input *inputs = tfx_arena_alloc(a, (total_in ? total_in : 1) * sizeof *inputs);
  if (!inputs) goto nomem_uses;
  size_t pos = 0;
  for (uint32_t i = 0; i < n; i++) {
    tfx_progress_nodes(i, n);
    prefetch_inputs(g, i);
    tfx_node *nd = &g->nodes[i];
    nd->in = nd->n_in ? inputs + pos : NULL;
    pos += nd->n_in;
    int r = resolve_inputs(c, g, i, func ? &args : NULL, name_len, use_start + 1);
    if (r < 0) goto nomem_uses;
    errs += r;
  }
linked:
  free(name_len);
  name_len = NULL;
  /* The main graph's node table is final in what a reader of names and op types looks at
   * (name, op, op_id, def, n_nodes): nothing below or in the function bodies writes them. A
   * build with errors that fails anyway (not lenient) does not call: nothing would read it. */
  if (!func && c->on_named && (errs == 0 || c->sev != TFX_SEV_ERROR))
    c->on_named(c->on_named_user, g);

  /* Consumer lists (CSR) */
  if (tfx_graph_link_uses(g, a, use_start)) goto nomem_uses;

  /* Topological order over the edges that resolved, so a cycle is reported alongside other
   * errors; a graph with errors exposes no order. use_start is now each list's end. */
  int r = topo_sort(c, g, use_start);
  free(use_start);
  if (r < 0) goto nomem_reported;
  errs += r;
  if (errs) g->topo = NULL;
  tfx_hmap_free(&args);
  return errs;

nomem_uses:
  free(use_start);
nomem:
  oom(c);
nomem_reported:
  free(name_len);
  tfx_hmap_free(&args);
  return -1;
}

/* ---- module ----------------------------------------------------------------------------- */

tfx_status tfx_module_build(tfx_module *m, Tensorflow__GraphDef *gd, const char *fname,
                            tfx_diag *d) {
  return tfx_module_build_ex(m, gd, fname, 0, d);
}

tfx_status tfx_module_build_ex(tfx_module *m, Tensorflow__GraphDef *gd, const char *fname,
                               unsigned flags, tfx_diag *d) {
  return tfx_module_build_lim(m, gd, fname, flags, 0, d);
}

/* The nodes limit, checked on every graph before anything is built. Returns 0 or -1. */
static int check_node_limit(const Tensorflow__GraphDef *gd, const char *fname, size_t max_nodes,
                            tfx_diag *d) {
  if (!max_nodes || !gd) return 0;
  int bad = 0;
  if (gd->n_node > max_nodes) {
    tfx_error(d, fname, 0, 0, "the graph has %zu nodes, more than the limit of %zu (raise the "
              "nodes limit with --limit nodes=N)", gd->n_node, max_nodes);
    bad = 1;
  }
  const Tensorflow__FunctionDefLibrary *lib = gd->library;
  for (size_t i = 0; lib && i < lib->n_function; i++) {
    const Tensorflow__FunctionDef *f = lib->function[i];
    if (!f || f->n_node_def <= max_nodes) continue;
    tfx_error(d, fname, 0, 0, "function '%s': the body has %zu nodes, more than the limit of %zu "
              "(raise the nodes limit with --limit nodes=N)",
              f->signature && f->signature->name ? f->signature->name : "", f->n_node_def, max_nodes);
    bad = 1;
  }
  return bad ? -1 : 0;
}

tfx_status tfx_module_build_lim(tfx_module *m, Tensorflow__GraphDef *gd, const char *fname,
                                unsigned flags, size_t max_nodes, tfx_diag *d) {
  return tfx_module_build_cb(m, gd, fname, flags, max_nodes, NULL, NULL, d);
}

tfx_status tfx_module_build_cb(tfx_module *m, Tensorflow__GraphDef *gd, const char *fname,
                               unsigned flags, size_t max_nodes, tfx_module_named_fn on_named,
                               void *user, tfx_diag *d) {
  memset(m, 0, sizeof *m);
  tfx_arena_init(&m->arena);
  tfx_intern_init(&m->ops);
  tfx_hmap_init(&m->main.by_name);
  m->fname = fname;
  m->main.name = "";
  build_ctx c = {m, d, fname, TFX_HASH_NONE, TFX_HASH_NONE,
                 (flags & TFX_MODULE_LENIENT) ? TFX_SEV_WARNING : TFX_SEV_ERROR, on_named, user};
  if (!gd) {
    tfx_error(d, fname, 0, 0, "no GraphDef to index");
    return TFX_E_INPUT;
  }
  if (check_node_limit(gd, fname, max_nodes, d) != 0) return TFX_E_INPUT;
  /* Intern the loop back-edge op types first, so their ids are known during every build. */
  c.next_iter_id = tfx_intern_id(&m->ops, "NextIteration", strlen("NextIteration"));
  c.ref_next_iter_id = tfx_intern_id(&m->ops, "RefNextIteration", strlen("RefNextIteration"));
  if (c.next_iter_id == TFX_HASH_NONE || c.ref_next_iter_id == TFX_HASH_NONE) {
    oom(&c);
    return TFX_E_NOMEM;
  }

  int failed = 0;
  int r = build_graph(&c, &m->main, gd->node, gd->n_node, NULL);
  if (r < 0) return TFX_E_NOMEM; /* build_graph fails only for out of memory (reported) */
  failed |= r > 0;

  Tensorflow__FunctionDefLibrary *lib = gd->library;
  size_t nf = lib ? lib->n_function : 0;
  if (nf >= UINT32_MAX) {
    tfx_error(d, fname, 0, 0, "too many library functions (%zu)", nf);
    return TFX_E_INPUT;
  }
  m->n_funcs = (uint32_t)nf;
  if (nf) {
    m->funcs = tfx_arena_calloc(&m->arena, nf, sizeof *m->funcs);
    if (!m->funcs) {
      m->n_funcs = 0;
      oom(&c);
      return TFX_E_NOMEM;
    }
    for (uint32_t i = 0; i < nf; i++) tfx_hmap_init(&m->funcs[i].by_name);
    tfx_hmap fnames;
    tfx_hmap_init(&fnames);
    if (tfx_hmap_reserve(&fnames, nf) < 0) {
      oom(&c);
      return TFX_E_NOMEM;
    }
    for (uint32_t i = 0; i < nf; i++) {
      Tensorflow__FunctionDef *f = lib->function[i];
      tfx_graph *g = &m->funcs[i];
      const char *name = f && f->signature && f->signature->name ? f->signature->name : "";
      g->name = name;
      if (!f) continue;
      if (name[0] == '\0') {
        tfx_diag_add(d, c.sev, fname, 0, 0, "library function #%" PRIu32 " has an empty name", i);
        failed = 1;
      } else {
        uint32_t first = 0;
        int pr = tfx_hmap_put(&fnames, name, strlen(name), i, &first);
        if (pr < 0) {
          tfx_hmap_free(&fnames);
          oom(&c);
          return TFX_E_NOMEM;
        }
        if (pr == 0) {
          tfx_diag_add(d, c.sev, fname, 0, 0,
                       "duplicate function name '%s' (first defined as library function #%" PRIu32
                       ")",
                       name, first);
          failed = 1;
        }
      }
      r = build_graph(&c, g, f->node_def, f->n_node_def, f);
      if (r < 0) {
        tfx_hmap_free(&fnames);
        return TFX_E_NOMEM;
      }
      failed |= r > 0;
    }
    tfx_hmap_free(&fnames);
  }
  m->has_errors = failed;
  return failed && !(flags & TFX_MODULE_LENIENT) ? TFX_E_INPUT : 0;
}

void tfx_module_free(tfx_module *m) {
  tfx_hmap_free(&m->main.by_name);
  for (uint32_t i = 0; i < m->n_funcs; i++) tfx_hmap_free(&m->funcs[i].by_name);
  tfx_intern_free(&m->ops);
  tfx_arena_free(&m->arena);
  memset(m, 0, sizeof *m);
}

uint32_t tfx_graph_find(const tfx_graph *g, const char *name) {
  if (!name) return TFX_NO_ID;
  if (g->names_dropped) { /* no map any more: the first node of that name, as the map holds */
    for (uint32_t i = 0; i < g->n_nodes; i++)
      if (g->nodes[i].name && strcmp(g->nodes[i].name, name) == 0) return i;
    return TFX_NO_ID;
  }
  uint32_t id = tfx_hmap_get(&g->by_name, name, strlen(name));
  return id == TFX_HASH_NONE ? TFX_NO_ID : id;
}

void tfx_graph_drop_names(tfx_graph *g) {
  tfx_hmap_free(&g->by_name);
  tfx_hmap_init(&g->by_name);
  g->names_dropped = 1;
}
