/* GE IR emitter, Graphviz: a picture of a ge.proto.ModelDef for `dot -Tsvg`.
 * Stage: ge (output side). Input: a finished ModelDef. Output: one `digraph` appended to a
 * strbuf. Layout of the drawing:
 * - one cluster per GE graph (graph[0] is the root; subgraphs are clusters too), and inside it
 *   one cluster per name scope (the '/'-separated prefixes of node names, as Ascend's ScopeTree
 *   splits them); a scope holding a single node, or only one sub-scope, gets no cluster of its
 *   own, and clusters nest at most TFX_DOT_MAX_NEST deep;
 * - nodes labelled "name\ntype"; Data also shows its index; fused nodes (attr
 *   _fusionop_original_type, or _datadump_original_op_names with more than one name) are
 *   filled orange and list what they replaced; ops with subgraphs name them and get a dotted
 *   edge to each subgraph's cluster;
 * - data edges labelled "out->in" (source output index -> destination input slot, slots counted
 *   as GE's loader counts them: "" keeps a slot, "x:-1" does not), control edges ("x:-1")
 *   dashed; an edge whose source is missing or whose output index is past the source's
 *   output_desc count is drawn red, to a red placeholder node when the source is missing.
 * Every id and label is a quoted DOT string with '"' and '\' escaped, control characters and
 * bytes that are not UTF-8 shown as \xNN, '&' as &amp;, so any node name renders. Node ids are
 * "g<graph index>/<node name>" (a repeated name gets "#<op index>"), so they are unique. The
 * output depends only on the model (nodes, and each node's incoming edges, in name order; the
 * inputs of a node in their stored order). */
#include "ge/ge.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"

#define TFX_DOT_MAX_NEST 32      /* nested scope clusters per graph */
#define TFX_DOT_MAX_REPLACED 8   /* original op names listed on a fused node */

/* Length of a valid UTF-8 sequence at s (at most n bytes), 0 when not valid. */
static size_t tfx_dot_utf8(const unsigned char *s, size_t n) {
  unsigned c = s[0], min;
  size_t len;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) len = 2, min = 0x80, c &= 0x1F;
  else if ((c & 0xF0) == 0xE0) len = 3, min = 0x800, c &= 0x0F;
  else if ((c & 0xF8) == 0xF0) len = 4, min = 0x10000, c &= 0x07;
  else return 0;
  if (len > n) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    c = (c << 6) | (s[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  return len;
}

/* The body of a quoted DOT string (no quotes). In labels (escString) "\\" shows one backslash
 * and "\n" breaks the line; label text also has '&' written as &amp; because Graphviz reads
 * HTML entities in labels. Ids keep '&' as is; their "\\" stays two backslashes, which is still
 * one id per name. */
static void tfx_dot_esc(tfx_strbuf *out, const char *s, size_t n, int label) {
  const unsigned char *u = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    unsigned char c = u[i];
    if (c == '"' || c == '\\') {
      tfx_sb_putc(out, '\\');
      tfx_sb_putc(out, (char)c);
      i++;
    } else if (c == '\n') {
      tfx_sb_puts(out, "\\n");
      i++;
    } else if (c == '&' && label) {
      tfx_sb_puts(out, "&amp;");
      i++;
    } else if (c < 0x20 || c == 0x7F) {
      tfx_sb_printf(out, "\\\\x%02X", c);
      i++;
    } else {
      size_t l = tfx_dot_utf8(u + i, n - i);
      if (!l) {
        tfx_sb_printf(out, "\\\\x%02X", c);
        i++;
      } else {
        tfx_sb_add(out, u + i, l);
        i += l;
      }
    }
  }
}

static void tfx_dot_label_str(tfx_strbuf *out, const char *s) {
  if (s) tfx_dot_esc(out, s, strlen(s), 1);
}

static const char *tfx_dot_s(const char *s) { return s ? s : ""; }

static const Ge__Proto__AttrDef *tfx_dot_attr(const Ge__Proto__OpDef *op, const char *key) {
  for (size_t i = 0; i < op->n_attr; i++)
    if (op->attr[i] && op->attr[i]->key && strcmp(op->attr[i]->key, key) == 0) return op->attr[i]->value;
  return NULL;
}

/* A string attr's text: s (or bt) as bytes; NULL when absent or of another kind. */
static const ProtobufCBinaryData *tfx_dot_attr_s(const Ge__Proto__OpDef *op, const char *key) {
  const Ge__Proto__AttrDef *a = tfx_dot_attr(op, key);
  if (!a) return NULL;
  if (a->value_case == GE__PROTO__ATTR_DEF__VALUE_S) return &a->s;
  if (a->value_case == GE__PROTO__ATTR_DEF__VALUE_BT) return &a->bt;
  return NULL;
}

/* ---------------------------------------------------------------- per-graph index */

typedef struct tfx_dot_ent {
  const char *name;
  size_t op;       /* index in GraphDef.op */
} tfx_dot_ent;

typedef struct tfx_dot_graph {
  const Ge__Proto__GraphDef *g;
  size_t gi;
  tfx_dot_ent *order;  /* the ops sorted by name (bytewise), ties by op index */
  size_t n;
} tfx_dot_graph;

static int tfx_dot_cmp_ops(const void *a, const void *b) {
  const tfx_dot_ent *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  if (c) return c;
  return x->op < y->op ? -1 : x->op > y->op;
}

static const char *tfx_dot_opname(const tfx_dot_graph *G, size_t k) { return G->order[k].name; }

static const Ge__Proto__OpDef *tfx_dot_op(const tfx_dot_graph *G, size_t k) { return G->g->op[G->order[k].op]; }

/* First sorted position whose name compares >= (strict=0) or > (strict=1) with the prefix
 * p[0..len), comparing only the first len bytes of each name. */
static size_t tfx_dot_bound(const tfx_dot_graph *G, const char *p, size_t len, int strict) {
  size_t lo = 0, hi = G->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strncmp(tfx_dot_opname(G, mid), p, len);
    if (c < 0 || (strict && c == 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* How many nodes have a name starting with p[0..len). */
static size_t tfx_dot_count(const tfx_dot_graph *G, const char *p, size_t len) {
  return tfx_dot_bound(G, p, len, 1) - tfx_dot_bound(G, p, len, 0);
}

/* Sorted position of the node named exactly name[0..len) (the first of duplicates), or
 * SIZE_MAX. */
static size_t tfx_dot_find(const tfx_dot_graph *G, const char *name, size_t len) {
  size_t k = tfx_dot_bound(G, name, len, 0);
  if (k < G->n && strlen(tfx_dot_opname(G, k)) == len && strncmp(tfx_dot_opname(G, k), name, len) == 0)
    return k;
  return SIZE_MAX;
}

/* Whether sorted position k repeats the previous node's name. */
static int tfx_dot_dup(const tfx_dot_graph *G, size_t k) {
  return k > 0 && strcmp(tfx_dot_opname(G, k - 1), tfx_dot_opname(G, k)) == 0;
}

/* The quoted id of the node at sorted position k. */
static void tfx_dot_id(tfx_strbuf *out, const tfx_dot_graph *G, size_t k) {
  const char *nm = tfx_dot_opname(G, k);
  tfx_sb_printf(out, "\"g%zu/", G->gi);
  tfx_dot_esc(out, nm, strlen(nm), 0);
  if (tfx_dot_dup(G, k)) tfx_sb_printf(out, "#%zu", G->order[k].op);
  tfx_sb_putc(out, '"');
}

/* The id of a node that an input names but that does not exist. */
static void tfx_dot_missing_id(tfx_strbuf *out, size_t gi, const char *name, size_t len) {
  tfx_sb_printf(out, "\"g%zu/?", gi);
  tfx_dot_esc(out, name, len, 0);
  tfx_sb_putc(out, '"');
}

/* Index of the graph named name in the model, or SIZE_MAX. */
static size_t tfx_dot_graph_index(const Ge__Proto__ModelDef *m, const char *name) {
  for (size_t i = 0; i < m->n_graph; i++)
    if (m->graph[i] && strcmp(tfx_dot_s(m->graph[i]->name), tfx_dot_s(name)) == 0) return i;
  return SIZE_MAX;
}

/* ---------------------------------------------------------------- nodes */

static void tfx_dot_node(tfx_strbuf *out, const Ge__Proto__ModelDef *m, const tfx_dot_graph *G, size_t k,
                         int indent) {
  const Ge__Proto__OpDef *op = tfx_dot_op(G, k);
  const char *type = tfx_dot_s(op->type);
  tfx_sb_indent(out, indent);
  tfx_dot_id(out, G, k);
  tfx_sb_puts(out, " [label=\"");
  tfx_dot_label_str(out, op->name);
  tfx_sb_puts(out, "\\n");
  tfx_dot_label_str(out, type);

  const Ge__Proto__AttrDef *idx = tfx_dot_attr(op, "index");
  if (strcmp(type, "Data") == 0 && idx && idx->value_case == GE__PROTO__ATTR_DEF__VALUE_I)
    tfx_sb_printf(out, "\\nindex %" PRId64, idx->i);

  const ProtobufCBinaryData *orig = tfx_dot_attr_s(op, "_fusionop_original_type");
  const Ge__Proto__AttrDef *names = tfx_dot_attr(op, "_datadump_original_op_names");
  size_t n_names = names && names->value_case == GE__PROTO__ATTR_DEF__VALUE_LIST && names->list ? names->list->n_s : 0;
  int fused = (orig && orig->len) || n_names > 1;
  if (orig && orig->len) {
    tfx_sb_puts(out, "\\nfused: ");
    tfx_dot_esc(out, (const char *)orig->data, orig->len, 1);
  }
  if (n_names > 1) {
    tfx_sb_printf(out, "\\nreplaces %zu ops:", n_names);
    for (size_t i = 0; i < n_names && i < TFX_DOT_MAX_REPLACED; i++) {
      tfx_sb_puts(out, "\\n");
      tfx_dot_esc(out, (const char *)names->list->s[i].data, names->list->s[i].len, 1);
    }
    if (n_names > TFX_DOT_MAX_REPLACED) tfx_sb_printf(out, "\\n(+%zu more)", n_names - TFX_DOT_MAX_REPLACED);
  }
  for (size_t i = 0; i < op->n_subgraph_name; i++) {
    tfx_sb_printf(out, "\\nsubgraph %zu: ", i);
    tfx_dot_label_str(out, op->subgraph_name[i]);
    size_t sj = tfx_dot_graph_index(m, op->subgraph_name[i]);
    if (sj == SIZE_MAX) tfx_sb_puts(out, " (missing)");
    else if (sj == G->gi) tfx_sb_puts(out, " (its own graph)");
  }
  tfx_sb_putc(out, '"');
  if (fused)
    tfx_sb_puts(out, ", fillcolor=\"#ffc870\", penwidth=2");
  else if (strcmp(type, "Data") == 0 || strcmp(type, "RefData") == 0)
    tfx_sb_puts(out, ", shape=ellipse, fillcolor=\"#d6e6ff\"");
  else if (strcmp(type, "NetOutput") == 0)
    tfx_sb_puts(out, ", shape=ellipse, fillcolor=\"#d6f5d6\"");
  else if (strcmp(type, "Const") == 0 || strcmp(type, "Constant") == 0 || strcmp(type, "FileConstant") == 0)
    tfx_sb_puts(out, ", fillcolor=\"#eeeeee\"");
  if (op->n_subgraph_name) tfx_sb_puts(out, ", peripheries=2");
  tfx_sb_puts(out, "];\n");
}

/* Nodes of one graph in name order, with a cluster per scope (see the header comment). */
static void tfx_dot_scoped_nodes(tfx_strbuf *out, const Ge__Proto__ModelDef *m, const tfx_dot_graph *G,
                                 size_t *ncluster) {
  size_t open[TFX_DOT_MAX_NEST]; /* lengths of the open scope prefixes, innermost last */
  int depth = 0;
  const char *prev = NULL;
  for (size_t k = 0; k < G->n && !out->oom; k++) {
    const char *nm = tfx_dot_opname(G, k);
    /* close the scopes this name is not in */
    while (depth > 0 && strncmp(nm, prev, open[depth - 1]) != 0) {
      depth--;
      tfx_sb_indent(out, 4 + 2 * depth);
      tfx_sb_puts(out, "}\n");
    }
    /* open the scopes that get a cluster: more than one node, and not just one sub-scope */
    size_t from = depth ? open[depth - 1] : 0;
    for (const char *p = strchr(nm + from, '/'); p && depth < TFX_DOT_MAX_NEST; p = strchr(p + 1, '/')) {
      size_t len = (size_t)(p - nm) + 1;
      size_t cnt = tfx_dot_count(G, nm, len);
      const char *q = strchr(p + 1, '/');
      int open_it = q ? cnt != tfx_dot_count(G, nm, (size_t)(q - nm) + 1) : cnt >= 2;
      if (!open_it) continue;
      tfx_sb_indent(out, 4 + 2 * depth);
      tfx_sb_printf(out, "subgraph \"cluster_g%zu_s%zu\" {\n", G->gi, (*ncluster)++);
      tfx_sb_indent(out, 6 + 2 * depth);
      tfx_sb_puts(out, "label=\"");
      tfx_dot_esc(out, nm, len, 1);
      tfx_sb_puts(out, "\"; style=\"rounded,dashed\"; color=\"#9a9a9a\";\n");
      open[depth++] = len;
    }
    prev = nm;
    tfx_dot_node(out, m, G, k, 4 + 2 * depth);
  }
  while (depth > 0) {
    depth--;
    tfx_sb_indent(out, 4 + 2 * depth);
    tfx_sb_puts(out, "}\n");
  }
}

/* ---------------------------------------------------------------- edges */

static void tfx_dot_edges(tfx_strbuf *out, const tfx_dot_graph *G) {
  for (size_t k = 0; k < G->n && !out->oom; k++) {
    const Ge__Proto__OpDef *op = tfx_dot_op(G, k);
    int64_t slot = 0;
    for (size_t i = 0; i < op->n_input; i++) {
      const char *in = tfx_dot_s(op->input[i]);
      const char *colon = strrchr(in, ':');
      if (!colon) { /* "" (unfed optional input) or a name without ":idx": takes a slot */
        slot++;
        continue;
      }
      char *end;
      long long idx = strtoll(colon + 1, &end, 10);
      if (end == colon + 1 || *end) { /* not GE's "name:idx": nothing to draw */
        slot++;
        continue;
      }
      size_t len = (size_t)(colon - in);
      size_t src = tfx_dot_find(G, in, len);
      int ctrl = idx < 0;
      int past = src != SIZE_MAX && !ctrl && (uint64_t)idx >= tfx_dot_op(G, src)->n_output_desc;
      int bad = src == SIZE_MAX || past;
      if (src == SIZE_MAX) {
        tfx_sb_puts(out, "    ");
        tfx_dot_missing_id(out, G->gi, in, len);
        tfx_sb_puts(out, " [label=\"");
        tfx_dot_esc(out, in, len, 1);
        tfx_sb_puts(out, "\\n(missing)\", color=red, fontcolor=red, style=dashed];\n    ");
        tfx_dot_missing_id(out, G->gi, in, len);
      } else {
        tfx_sb_puts(out, "    ");
        tfx_dot_id(out, G, src);
      }
      tfx_sb_puts(out, " -> ");
      tfx_dot_id(out, G, k);
      if (ctrl) {
        tfx_sb_puts(out, bad ? " [style=dashed, color=red];\n" : " [style=dashed, color=\"#808080\"];\n");
      } else {
        tfx_sb_printf(out, " [label=\"%lld->%" PRId64 "%s\"%s];\n", idx, slot, past ? " (no such output)" : "",
                      bad ? ", color=red, fontcolor=red" : "");
        slot++;
      }
    }
  }
}

/* ---------------------------------------------------------------- the model */

static void tfx_dot_graph_label(tfx_strbuf *out, const Ge__Proto__GraphDef *g, size_t gi) {
  tfx_sb_printf(out, "    label=\"graph %zu: ", gi);
  tfx_dot_label_str(out, g->name);
  if (gi == 0) tfx_sb_puts(out, " (root)");
  if (g->n_output) {
    tfx_sb_puts(out, "\\noutputs:");
    for (size_t i = 0; i < g->n_output; i++) {
      tfx_sb_putc(out, ' ');
      tfx_dot_label_str(out, g->output[i]);
    }
  }
  tfx_sb_puts(out, "\";\n");
}

int tfx_ge_emit_dot(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d) {
  size_t start = out->len;
  size_t ng = m->n_graph;
  tfx_dot_graph *gs = tfx_calloc(ng ? ng : 1, sizeof *gs);
  if (!gs) out->oom = 1;
  for (size_t gi = 0; gi < ng && !out->oom; gi++) {
    const Ge__Proto__GraphDef *g = m->graph[gi];
    gs[gi].g = g;
    gs[gi].gi = gi;
    if (!g || !g->n_op) continue;
    gs[gi].order = tfx_malloc(g->n_op * sizeof *gs[gi].order);
    if (!gs[gi].order) {
      out->oom = 1;
      break;
    }
    for (size_t k = 0; k < g->n_op; k++) gs[gi].order[k] = (tfx_dot_ent){tfx_dot_s(g->op[k]->name), k};
    gs[gi].n = g->n_op;
    qsort(gs[gi].order, g->n_op, sizeof *gs[gi].order, tfx_dot_cmp_ops);
  }

  tfx_sb_puts(out, "// GE IR (ge.proto.ModelDef) drawn by tfxc; render with: dot -Tsvg FILE -o FILE.svg\n"
                   "digraph \"");
  tfx_dot_label_str(out, m->name);
  tfx_sb_puts(out, "\" {\n"
                   "  compound=true;\n"
                   "  rankdir=TB;\n"
                   "  fontname=\"Helvetica\";\n"
                   "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\", fontsize=10];\n"
                   "  edge [fontname=\"Helvetica\", fontsize=8];\n"
                   "  label=\"model ");
  tfx_dot_label_str(out, m->name);
  tfx_sb_printf(out, " (%zu graph%s)\";\n  labelloc=t;\n", ng, ng == 1 ? "" : "s");

  size_t ncluster = 0;
  for (size_t gi = 0; gi < ng && !out->oom; gi++) {
    const tfx_dot_graph *G = &gs[gi];
    if (!G->g) continue;
    tfx_sb_printf(out, "  subgraph \"cluster_g%zu\" {\n", gi);
    tfx_dot_graph_label(out, G->g, gi);
    tfx_sb_printf(out, "    style=rounded; color=\"%s\"; penwidth=%d;\n", gi == 0 ? "#303030" : "#3060c0",
                  gi == 0 ? 2 : 1);
    if (!G->n) tfx_sb_printf(out, "    \"g%zu/\" [label=\"(no ops)\", shape=plaintext, style=\"\"];\n", gi);
    tfx_dot_scoped_nodes(out, m, G, &ncluster);
    tfx_dot_edges(out, G);
    tfx_sb_puts(out, "  }\n");
  }

  /* parent op -> subgraph cluster, clipped at the cluster (compound=true, lhead) */
  for (size_t gi = 0; gi < ng && !out->oom; gi++) {
    const tfx_dot_graph *G = &gs[gi];
    for (size_t k = 0; k < G->n; k++) {
      const Ge__Proto__OpDef *op = tfx_dot_op(G, k);
      for (size_t i = 0; i < op->n_subgraph_name; i++) {
        size_t sj = tfx_dot_graph_index(m, op->subgraph_name[i]);
        if (sj == SIZE_MAX || sj == gi) continue; /* no edge into the op's own cluster */
        tfx_sb_puts(out, "  ");
        tfx_dot_id(out, G, k);
        tfx_sb_puts(out, " -> ");
        if (gs[sj].n) tfx_dot_id(out, &gs[sj], 0);
        else tfx_sb_printf(out, "\"g%zu/\"", sj);
        tfx_sb_printf(out, " [lhead=\"cluster_g%zu\", style=dotted, color=\"#3060c0\", fontcolor=\"#3060c0\", "
                           "label=\"subgraph %zu\"];\n",
                      sj, i);
      }
    }
  }
  tfx_sb_puts(out, "}\n");

  for (size_t gi = 0; gs && gi < ng; gi++) free(gs[gi].order);
  free(gs);
  if (out->oom) {
    out->len = start;
    if (out->data) out->data[start] = 0;
    tfx_error(d, NULL, 0, 0, "out of memory writing the GE model as Graphviz");
    return TFX_E_NOMEM;
  }
  return 0;
}
