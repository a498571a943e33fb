/* Fuzz target: bytes -> --input-shape and --out-nodes strings -> the option parsers
 * (graph/prune.h) -> tfx_prune_graphdef on a fixed small graph. The bytes before the first
 * '\n' are the --input-shape value, the bytes after it the --out-nodes value; an empty value
 * (or no '\n') means the option is not given, as in the CLI. The graph is parsed from a fixed
 * text every run (pruning edits it in place) and has scopes, control inputs, ports, a
 * NextIteration loop and nodes whose dtype comes from dtype / T / DstT / out_type /
 * output_types / nothing. Properties (abort() when broken):
 *  - a failed prune leaves the GraphDef unchanged;
 *  - a successful prune leaves a graph that indexes without errors (no dangling inputs), in
 *    which every --input-shape node is a Placeholder without inputs. */
#include "fuzz_common.h"

#include "graph/prune.h"
#include "io/pbtxt.h"
#include "util/arena.h"

static const char graph_text[] =
    "node { name: 'a' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
    "node { name: 'b' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } }\n"
    "  attr { key: 'value' value { tensor { dtype: DT_INT32 int_val: 3 } } } }\n"
    "node { name: 'c' op: 'Add' input: 'a' input: 'b' attr { key: 'T' value { type: DT_FLOAT } } }\n"
    "node { name: 's/d' op: 'Relu' input: 'c:0' attr { key: 'T' value { type: DT_FLOAT } } }\n"
    "node { name: 's/e' op: 'Cast' input: 's/d' input: '^b' attr { key: 'DstT' value { type: DT_HALF } } }\n"
    "node { name: 'f' op: 'Shape' input: 's/e' attr { key: 'out_type' value { type: DT_INT64 } } }\n"
    "node { name: 'g' op: 'IteratorGetNext'\n"
    "  attr { key: 'output_types' value { list { type: DT_FLOAT type: DT_INT32 } } } }\n"
    "node { name: 'h' op: 'AddN' input: 'g' input: 'g:1' input: 'f' }\n"
    "node { name: 'i' op: 'NoOp' input: '^h' input: '^a' }\n"
    "node { name: 'm/Enter' op: 'Enter' input: 'c' }\n"
    "node { name: 'm/Merge' op: 'Merge' input: 'm/Enter' input: 'm/Next' }\n"
    "node { name: 'm/Next' op: 'NextIteration' input: 'm/Merge' }\n"
    "node { name: 'm/Exit' op: 'Exit' input: 'm/Merge' }\n"
    "node { name: 'x' op: 'Identity' input: 'm/Exit' }\n"
    "node { name: 'z' op: 'Identity' input: 'x' input: '^i' }\n"
    "node { name: 'w:v' op: 'Const' }\n"
    "library { function { signature { name: 'fn' } node_def { name: 'q' op: 'Const' } } }\n";

/* NUL-terminated copy of data[0..n), or NULL when n == 0 (option not given). */
static char *dup_opt(const uint8_t *data, size_t n) {
  if (n == 0) return NULL;
  char *s = malloc(n + 1);
  FUZZ_CHECK(s != NULL, "out of memory in the fuzz harness");
  memcpy(s, data, n);
  s[n] = '\0';
  return s;
}

static void check_pruned(Tensorflow__GraphDef *gd, const tfx_prune_opts *o) {
  for (uint32_t i = 0; i < o->n_shapes; i++) {
    const Tensorflow__NodeDef *nd = NULL;
    for (size_t k = 0; k < gd->n_node && !nd; k++)
      if (strcmp(gd->node[k]->name, o->shapes[i].name) == 0) nd = gd->node[k];
    FUZZ_CHECK(nd != NULL, "input-shape node '%s' was pruned away", o->shapes[i].name);
    FUZZ_CHECK(strcmp(nd->op, "Placeholder") == 0 && nd->n_input == 0,
               "input-shape node '%s' is not an input-less Placeholder (op %s, %zu inputs)", nd->name, nd->op,
               nd->n_input);
  }
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_module m;
  int rc = tfx_module_build(&m, gd, "pruned", &d);
  if (rc != 0) tfx_diag_print(&d, stderr);
  FUZZ_CHECK(rc == 0, "the pruned graph does not index");
  fuzz_check_graph(&m, &m.main);
  tfx_module_free(&m);
  tfx_diag_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nl = memchr(data, '\n', size);
  size_t n1 = nl ? (size_t)(nl - data) : size;
  char *shapes = dup_opt(data, n1);
  char *outs = nl ? dup_opt(nl + 1, size - n1 - 1) : NULL;

  tfx_arena a;
  tfx_diag d;
  tfx_arena_init(&a);
  tfx_diag_init(&d);
  Tensorflow__GraphDef *gd = (Tensorflow__GraphDef *)tfx_pbtxt_parse(
      &tensorflow__graph_def__descriptor, graph_text, sizeof graph_text - 1, "fixed.pbtxt", &a, NULL, &d);
  if (!gd) tfx_diag_print(&d, stderr);
  FUZZ_CHECK(gd != NULL, "the fixed graph does not parse");
  static int checked;
  if (!checked) { /* the properties below assume the unpruned graph is valid */
    checked = 1;
    tfx_prune_opts none = {0};
    check_pruned(gd, &none);
  }

  tfx_prune_opts o = {0};
  tfx_prune_shape *sv = NULL;
  tfx_prune_out *ov = NULL;
  int ok = 1;
  if (shapes && tfx_prune_parse_input_shape(shapes, &a, &sv, &o.n_shapes, &d) != 0) ok = 0;
  if (outs && tfx_prune_parse_out_nodes(outs, &a, &ov, &o.n_outs, &d) != 0) ok = 0;
  o.shapes = sv;
  o.outs = ov;
  if (ok) {
    Tensorflow__NodeDef **before = gd->node;
    size_t n_before = gd->n_node;
    if (tfx_prune_graphdef(gd, &o, &a, "fixed.pbtxt", &d) == 0)
      check_pruned(gd, &o);
    else
      FUZZ_CHECK(gd->node == before && gd->n_node == n_before, "a failed prune changed the GraphDef");
  }
  fuzz_diag_dump(&d);
  tfx_diag_free(&d);
  tfx_arena_free(&a);
  free(shapes);
  free(outs);
  return 0;
}
