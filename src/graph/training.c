/* Training machinery: classification, pruning when no outputs are chosen, and the report of
 * what the outputs still need (see training.h).
 * Stage: prune. Input: an arena-owned GraphDef. Output: the GraphDef's node list replaced by
 * the kept nodes, or diagnostics. Deterministic: graph order everywhere, reports sorted by op
 * type. */
#include "graph/training.h"

#include <stdlib.h>
#include <string.h>

#include "util/status.h"
#include "util/hash.h"

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }
static int ends(const char *s, const char *p) {
  size_t a = strlen(s), b = strlen(p);
  return a >= b && strcmp(s + a - b, p) == 0;
}
static int in_list(const char *s, const char *const *l) {
  for (; *l; l++)
    if (strcmp(s, *l) == 0) return 1;
  return 0;
}

static const char *const save_ops[] = {"SaveV2", "Save", "SaveSlices", "RestoreV2", "Restore",
                                       "RestoreSlice", "MergeV2Checkpoints", "ShardedFilename",
                                       "ShardedFilespec", NULL};
static const char *const init_ops[] = {"IsVariableInitialized", "VarIsInitializedOp", NULL};
static const char *const assign_ops[] = {"Assign", "AssignAdd", "AssignSub", "AssignVariableOp",
                                         "AssignAddVariableOp", "AssignSubVariableOp", NULL};
static const char *const summary_ops[] = {"MergeSummary", "SummaryWriter", "CreateSummaryFileWriter",
                                          "CreateSummaryDbWriter", "FlushSummaryWriter",
                                          "CloseSummaryWriter", NULL};

tfx_train_kind tfx_train_classify(const char *op) {
  if (!op || !*op) return TFX_TRAIN_NONE;
  /* fast rejection (this runs on every node): the suffix rules, then the first letters the
   * prefix and name rules start with */
  size_t len = strlen(op);
  char last = op[len - 1];
  if (last == 'y' && ends(op, "Summary")) return TFX_TRAIN_SUMMARY;
  if (last == '2' && ends(op, "SummaryV2")) return TFX_TRAIN_SUMMARY;
  if (last == '2' && ends(op, "ReaderV2")) return TFX_TRAIN_QUEUE;
  if (!strchr("ACFIMPQRSVW", op[0])) return TFX_TRAIN_NONE;
  if (in_list(op, save_ops)) return TFX_TRAIN_SAVE;
  if (in_list(op, init_ops) || starts(op, "InitializeTable")) return TFX_TRAIN_INIT;
  if (in_list(op, assign_ops) || starts(op, "ResourceScatter") ||
      (starts(op, "Scatter") && strcmp(op, "ScatterNd") != 0 &&
       strcmp(op, "ScatterNdNonAliasingAdd") != 0)) /* those two make a new tensor */
    return TFX_TRAIN_ASSIGN;
  if (in_list(op, summary_ops) || ends(op, "Summary") || ends(op, "SummaryV2") ||
      (starts(op, "Write") && (ends(op, "Summary") || ends(op, "SummaryV2"))))
    return TFX_TRAIN_SUMMARY;
  if (starts(op, "FIFOQueue") || starts(op, "RandomShuffleQueue") ||
      starts(op, "PaddingFIFOQueue") || starts(op, "PriorityQueue") || starts(op, "Queue") ||
      starts(op, "Reader") || ends(op, "ReaderV2"))
    return TFX_TRAIN_QUEUE;
  if (starts(op, "Apply") || starts(op, "ResourceApply") || starts(op, "SparseApply") ||
      starts(op, "ResourceSparseApply"))
    return TFX_TRAIN_OPTIMIZER;
  return TFX_TRAIN_NONE;
}

const char *tfx_train_kind_name(tfx_train_kind k) {
  switch (k) {
  case TFX_TRAIN_SAVE: return "save/restore";
  case TFX_TRAIN_INIT: return "initialiser";
  case TFX_TRAIN_ASSIGN: return "assignment";
  case TFX_TRAIN_SUMMARY: return "summary";
  case TFX_TRAIN_QUEUE: return "queue";
  case TFX_TRAIN_OPTIMIZER: return "optimizer";
  case TFX_TRAIN_NONE: break;
  }
  return "";
}

int tfx_train_is_effect(const char *op) {
  tfx_train_kind k = tfx_train_classify(op);
  if (k == TFX_TRAIN_NONE) return 0;
  if (k != TFX_TRAIN_QUEUE) return 1;
  /* queues: putting data in and closing are effects; the queue, dequeue and size produce */
  return strstr(op, "Enqueue") != NULL || strstr(op, "Close") != NULL ||
         strstr(op, "Restore") != NULL || strstr(op, "Reset") != NULL;
}

/* Classification of op through a per-call cache (op type -> kind | effect << 4): graphs repeat a
 * few dozen op types over many nodes. Keys are borrowed from the graph. -1 on out of memory. */
static int classify_cached(tfx_hmap *cache, const char *op) {
  if (!op) op = "";
  size_t n = strlen(op);
  /* tfx_train_classify's fast rejection, without the hash lookup: no kind, hence no effect */
  if (n == 0 || (op[n - 1] != 'y' && op[n - 1] != '2' && !strchr("ACFIMPQRSVW", op[0])))
    return 0;
  uint32_t v = tfx_hmap_get(cache, op, n);
  if (v != TFX_HASH_NONE) return (int)v;
  v = (uint32_t)tfx_train_classify(op) | (uint32_t)tfx_train_is_effect(op) << 4;
  uint32_t ex;
  if (tfx_hmap_put(cache, op, n, v, &ex) < 0) return -1;
  return (int)v;
}

/* ---------------------------------------------------------------- functions */

/* 1 when attr value v names (a list of) functions, one of which has fx set. */
static int attr_calls(const Tensorflow__AttrValue *v, const tfx_hmap *fn, const uint8_t *fx) {
  if (!v) return 0;
  if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC && v->func && v->func->name) {
    uint32_t i = tfx_hmap_get(fn, v->func->name, strlen(v->func->name));
    return i != TFX_HASH_NONE && fx[i];
  }
  if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list)
    for (size_t k = 0; k < v->list->n_func; k++) {
      const Tensorflow__NameAttrList *f = v->list->func[k];
      uint32_t i = f && f->name ? tfx_hmap_get(fn, f->name, strlen(f->name)) : TFX_HASH_NONE;
      if (i != TFX_HASH_NONE && fx[i]) return 1;
    }
  return 0;
}

/* 1 when node nd runs a side effect itself or through a function it calls. */
static int node_effect(const Tensorflow__NodeDef *nd, const tfx_hmap *fn, const uint8_t *fx) {
  const char *op = nd->op ? nd->op : "";
  if (tfx_train_is_effect(op)) return 1;
  uint32_t i = tfx_hmap_get(fn, op, strlen(op));
  if (i != TFX_HASH_NONE && fx[i]) return 1;
  for (size_t k = 0; k < nd->n_attr; k++)
    if (nd->attr[k] && attr_calls(nd->attr[k]->value, fn, fx)) return 1;
  return 0;
}

/* fn: function name -> index; *fx: per function, 1 when its body (or a function it calls)
 * holds a side effect. Returns 0 or -1 (out of memory). */
static int function_effects(const Tensorflow__GraphDef *gd, tfx_hmap *fn, uint8_t **fx) {
  const Tensorflow__FunctionDefLibrary *lib = gd->library;
  size_t nf = lib ? lib->n_function : 0;
  *fx = tfx_calloc(nf ? nf : 1, 1);
  if (!*fx) return -1;
  for (size_t i = 0; i < nf; i++) {
    const Tensorflow__FunctionDef *f = lib->function[i];
    const char *nm = f && f->signature && f->signature->name ? f->signature->name : NULL;
    uint32_t ex;
    if (nm && tfx_hmap_put(fn, nm, strlen(nm), (uint32_t)i, &ex) < 0) return -1;
  }
  for (int changed = 1; changed;) { /* fixed point: at most nf + 1 rounds */
    changed = 0;
    for (size_t i = 0; i < nf; i++) {
      const Tensorflow__FunctionDef *f = lib->function[i];
      if ((*fx)[i] || !f) continue;
      for (size_t k = 0; k < f->n_node_def; k++)
        if (f->node_def[k] && node_effect(f->node_def[k], fn, *fx)) {
          (*fx)[i] = 1;
          changed = 1;
          break;
        }
    }
  }
  return 0;
}

/* ---------------------------------------------------------------- graph walks */

static void input_name(const char *s, const char **name, size_t *len) {
  if (*s == '^') s++;
  const char *c = strchr(s, ':');
  *name = s;
  *len = c ? (size_t)(c - s) : strlen(s);
}

/* TF1's gradient tuples: "gradients[_N]/.../tuple/control_dependency[_N]", the Identity nodes
 * tf.gradients + an optimizer group the gradients with; as sinks they only feed nothing. */
static int gradient_tuple(const char *name) {
  if (strncmp(name, "gradients", 9) != 0) return 0;
  const char *p = name + 9;
  if (*p == '_') {
    p++;
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9') p++;
  }
  if (*p != '/') return 0;
  const char *t = strstr(p, "/tuple/control_dependency");
  if (!t) return 0;
  t += strlen("/tuple/control_dependency");
  if (*t == '_') {
    t++;
    if (*t < '0' || *t > '9') return 0;
    while (*t >= '0' && *t <= '9') t++;
  }
  return *t == 0;
}

enum { T_EFFECT = 1, T_SERVES = 2, T_DONE = 4, T_OPEN = 8, T_CONSUMED = 16, T_KEEP = 32 };

tfx_status tfx_train_prune(Tensorflow__GraphDef *gd, tfx_arena *a, const char *fname,
                           tfx_diag *d, uint32_t *removed, int *any_train) {
  if (removed) *removed = 0;
  if (any_train) *any_train = 0;
  if (!gd || gd->n_node == 0) return 0;
  if (gd->n_node >= UINT32_MAX) {
    if (any_train) *any_train = 1; /* not looked at */
    return 0;
  }
  uint32_t n = (uint32_t)gd->n_node;
  tfx_hmap names, fn, cache;
  tfx_hmap_init(&names);
  tfx_hmap_init(&fn);
  tfx_hmap_init(&cache);
  uint8_t *fx = NULL, *fl = tfx_calloc(n, 1);
  uint32_t *stack = NULL, *src = NULL, *pos = NULL;
  size_t *first = NULL;
  tfx_status rc = TFX_E_NOMEM; /* the only failure */
  if (!fl || function_effects(gd, &fn, &fx) < 0) goto nomem;
  /* no side effect anywhere (a frozen graph): nothing serves training, nothing to do */
  size_t effects = 0, edges = 0;
  for (uint32_t i = 0; i < n; i++) {
    /* the NodeDefs and their op strings are cold and scattered after the load: fetch them in
     * two stages ahead (the record 32 nodes ahead, its op string 16 ahead), as the index does */
    if (i + 32 < n) __builtin_prefetch(gd->node[i + 32]);
    if (i + 16 < n && gd->node[i + 16] && gd->node[i + 16]->op) __builtin_prefetch(gd->node[i + 16]->op);
    const Tensorflow__NodeDef *nd = gd->node[i];
    if (!nd) continue;
    edges += nd->n_input;
    int c = classify_cached(&cache, nd->op);
    if (c < 0) goto nomem;
    if ((c & 15) != TFX_TRAIN_NONE && any_train) *any_train = 1;
    int eff = (c >> 4) & 1;
    if (!eff && fn.n)
      eff = node_effect(nd, &fn, fx); /* calls of functions with effects */
    if (eff) fl[i] |= T_EFFECT | T_SERVES, effects++;
  }
  if (effects == 0) {
    rc = 0;
    goto out;
  }
  /* every input resolved once: src[first[i] .. first[i+1]) are node i's producers */
  stack = tfx_malloc((size_t)n * sizeof *stack);
  pos = tfx_malloc((size_t)n * sizeof *pos);
  first = tfx_malloc(((size_t)n + 1) * sizeof *first);
  src = tfx_malloc((edges ? edges : 1) * sizeof *src);
  if (!stack || !pos || !first || !src || tfx_hmap_reserve(&names, n) < 0) goto nomem;
  for (uint32_t i = 0; i < n; i++) {
    const char *nm = gd->node[i] && gd->node[i]->name ? gd->node[i]->name : "";
    uint32_t ex;
    if (tfx_hmap_put(&names, nm, strlen(nm), i, &ex) < 0) goto nomem;
  }
  size_t e = 0;
  for (uint32_t i = 0; i < n; i++) {
    const Tensorflow__NodeDef *nd = gd->node[i];
    first[i] = e;
    for (size_t k = 0; nd && k < nd->n_input; k++) {
      const char *nm;
      size_t nl;
      input_name(nd->input[k] ? nd->input[k] : "", &nm, &nl);
      uint32_t p = tfx_hmap_get(&names, nm, nl);
      src[e++] = p;
      if (p != TFX_HASH_NONE && p != i) fl[p] |= T_CONSUMED;
    }
  }
  first[n] = e;
  /* "serves training" = a side effect upstream (iterative post-order DFS) */
  for (uint32_t r = 0; r < n; r++) {
    if (fl[r] & T_DONE) continue;
    uint32_t sp = 0;
    stack[sp++] = r;
    pos[r] = 0;
    fl[r] |= T_OPEN;
    while (sp) {
      uint32_t u = stack[sp - 1];
      if (first[u] + pos[u] < first[u + 1]) {
        uint32_t p = src[first[u] + pos[u]++];
        if (p == TFX_HASH_NONE || (fl[p] & T_OPEN)) continue; /* unknown, or a loop back edge */
        if (fl[p] & T_DONE) {
          if (fl[p] & T_SERVES) fl[u] |= T_SERVES;
          continue;
        }
        fl[p] |= T_OPEN;
        pos[p] = 0;
        stack[sp++] = p;
        continue;
      }
      fl[u] = (uint8_t)((fl[u] & ~T_OPEN) | T_DONE);
      sp--;
      if (sp && (fl[u] & T_SERVES)) fl[stack[sp - 1]] |= T_SERVES;
    }
  }
  /* outputs: sinks that do not serve training and are no gradient tuple; keep what they reach */
  uint32_t sp = 0;
  for (uint32_t i = 0; i < n; i++) {
    const char *nm = gd->node[i] && gd->node[i]->name ? gd->node[i]->name : "";
    if ((fl[i] & (T_CONSUMED | T_SERVES)) || gradient_tuple(nm)) continue;
    fl[i] |= T_KEEP;
    stack[sp++] = i;
  }
  if (sp == 0) { /* every sink serves training: leave the graph as it is */
    rc = 0;
    goto out;
  }
  while (sp) {
    uint32_t u = stack[--sp];
    for (size_t k = first[u]; k < first[u + 1]; k++) {
      uint32_t p = src[k];
      if (p == TFX_HASH_NONE || (fl[p] & T_KEEP)) continue;
      fl[p] |= T_KEEP;
      stack[sp++] = p;
    }
  }
  size_t nk = 0;
  for (uint32_t i = 0; i < n; i++) nk += (fl[i] & T_KEEP) != 0;
  if (nk < n) {
    Tensorflow__NodeDef **kept = tfx_arena_calloc(a, nk ? nk : 1, sizeof *kept);
    if (!kept) goto nomem;
    size_t w = 0;
    for (uint32_t i = 0; i < n; i++)
      if (fl[i] & T_KEEP) kept[w++] = gd->node[i];
    gd->node = kept;
    gd->n_node = w;
    if (removed) *removed = n - (uint32_t)w;
  }
  rc = 0;
  goto out;
nomem:
  tfx_error(d, fname, 0, 0, "out of memory while pruning training machinery");
out:
  tfx_hmap_free(&names);
  tfx_hmap_free(&fn);
  tfx_hmap_free(&cache);
  free(fx);
  free(fl);
  free(stack);
  free(pos);
  free(first);
  free(src);
  return rc;
}

/* ---------------------------------------------------------------- unused functions */

/* Marks the functions attr value v names (a func, a list of funcs, and funcs in their attrs one
 * level down) and pushes the newly marked ones. */
static void mark_attr_funcs(const Tensorflow__AttrValue *v, const tfx_hmap *fn, uint8_t *mk,
                            uint32_t *stack, uint32_t *sp, int depth);
static void mark_func(const Tensorflow__NameAttrList *f, const tfx_hmap *fn, uint8_t *mk,
                      uint32_t *stack, uint32_t *sp, int depth) {
  if (!f) return;
  uint32_t i = f->name ? tfx_hmap_get(fn, f->name, strlen(f->name)) : TFX_HASH_NONE;
  if (i != TFX_HASH_NONE && !mk[i]) {
    mk[i] = 1;
    stack[(*sp)++] = i;
  }
  for (size_t k = 0; depth < 4 && k < f->n_attr; k++)
    if (f->attr[k]) mark_attr_funcs(f->attr[k]->value, fn, mk, stack, sp, depth + 1);
}
static void mark_attr_funcs(const Tensorflow__AttrValue *v, const tfx_hmap *fn, uint8_t *mk,
                            uint32_t *stack, uint32_t *sp, int depth) {
  if (!v) return;
  if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC) mark_func(v->func, fn, mk, stack, sp, depth);
  if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list)
    for (size_t k = 0; k < v->list->n_func; k++) mark_func(v->list->func[k], fn, mk, stack, sp, depth);
}
static void mark_node_funcs(const Tensorflow__NodeDef *nd, const tfx_hmap *fn, uint8_t *mk,
                            uint32_t *stack, uint32_t *sp) {
  if (!nd) return;
  uint32_t i = nd->op ? tfx_hmap_get(fn, nd->op, strlen(nd->op)) : TFX_HASH_NONE;
  if (i != TFX_HASH_NONE && !mk[i]) {
    mk[i] = 1;
    stack[(*sp)++] = i;
  }
  for (size_t k = 0; k < nd->n_attr; k++)
    if (nd->attr[k]) mark_attr_funcs(nd->attr[k]->value, fn, mk, stack, sp, 0);
}

tfx_status tfx_train_strip_functions(Tensorflow__GraphDef *gd, tfx_arena *a, const char *fname,
                                     tfx_diag *d, uint32_t *removed) {
  if (removed) *removed = 0;
  Tensorflow__FunctionDefLibrary *lib = gd ? gd->library : NULL;
  if (!lib || lib->n_function == 0 || lib->n_function >= UINT32_MAX) return 0;
  uint32_t nf = (uint32_t)lib->n_function;
  tfx_hmap fn;
  tfx_hmap_init(&fn);
  uint8_t *mk = tfx_calloc(nf, 1);
  uint32_t *stack = tfx_malloc((size_t)nf * sizeof *stack);
  tfx_status rc = TFX_E_NOMEM; /* the only failure */
  if (!mk || !stack || tfx_hmap_reserve(&fn, nf) < 0) goto nomem;
  for (uint32_t i = 0; i < nf; i++) {
    const Tensorflow__FunctionDef *f = lib->function[i];
    const char *nm = f && f->signature && f->signature->name ? f->signature->name : NULL;
    uint32_t ex;
    if (nm && tfx_hmap_put(&fn, nm, strlen(nm), i, &ex) < 0) goto nomem;
  }
  uint32_t sp = 0;
  for (size_t i = 0; i < gd->n_node; i++) mark_node_funcs(gd->node[i], &fn, mk, stack, &sp);
  while (sp) {
    const Tensorflow__FunctionDef *f = lib->function[stack[--sp]];
    for (size_t k = 0; f && k < f->n_node_def; k++) mark_node_funcs(f->node_def[k], &fn, mk, stack, &sp);
  }
  size_t nk = 0;
  for (uint32_t i = 0; i < nf; i++) nk += mk[i];
  if (nk < nf) {
    Tensorflow__FunctionDef **kept = tfx_arena_calloc(a, nk ? nk : 1, sizeof *kept);
    Tensorflow__GradientDef **gk = tfx_arena_calloc(a, lib->n_gradient ? lib->n_gradient : 1, sizeof *gk);
    if (!kept || !gk) goto nomem;
    size_t w = 0;
    for (uint32_t i = 0; i < nf; i++)
      if (mk[i]) kept[w++] = lib->function[i];
    /* gradient entries of removed functions (or naming a removed gradient function) go too */
    size_t g = 0;
    for (size_t k = 0; k < lib->n_gradient; k++) {
      const Tensorflow__GradientDef *e = lib->gradient[k];
      if (!e) continue;
      uint32_t x = tfx_hmap_get(&fn, (const char *)e->function_name.data, e->function_name.len);
      uint32_t y = tfx_hmap_get(&fn, (const char *)e->gradient_func.data, e->gradient_func.len);
      if ((x == TFX_HASH_NONE || mk[x]) && (y == TFX_HASH_NONE || mk[y])) gk[g++] = lib->gradient[k];
    }
    lib->function = kept;
    lib->n_function = w;
    lib->gradient = g ? gk : NULL;
    lib->n_gradient = g;
    if (removed) *removed = nf - (uint32_t)w;
  }
  rc = 0;
  goto out;
nomem:
  tfx_error(d, fname, 0, 0, "out of memory while removing unused functions");
out:
  tfx_hmap_free(&fn);
  free(mk);
  free(stack);
  return rc;
}

/* ---------------------------------------------------------------- report */

typedef struct op_count {
  const char *op;
  const char *example;
  long n;
} op_count;

static int by_op(const void *x, const void *y) {
  return strcmp(((const op_count *)x)->op, ((const op_count *)y)->op);
}

long tfx_train_report(const Tensorflow__GraphDef *gd, const char *fname, tfx_severity sev,
                      tfx_diag *d) {
  if (!gd || gd->n_node == 0) return 0;
  size_t n = gd->n_node, m = 0;
  op_count *c = NULL;
  long total = 0;
  tfx_hmap cache;
  tfx_hmap_init(&cache);
  for (size_t i = 0; i < n; i++) {
    const Tensorflow__NodeDef *nd = gd->node[i];
    int kind = nd ? classify_cached(&cache, nd->op) : 0;
    if (kind < 0) {
      free(c);
      tfx_hmap_free(&cache);
      tfx_error(d, fname, 0, 0, "out of memory while checking for training machinery");
      return -1;
    }
    if ((kind & 15) == TFX_TRAIN_NONE) continue;
    total++;
    size_t k = 0;
    while (k < m && strcmp(c[k].op, nd->op) != 0) k++;
    if (k == m) {
      op_count *g = tfx_realloc(c, (m + 1) * sizeof *c);
      if (!g) {
        free(c);
        tfx_hmap_free(&cache);
        tfx_error(d, fname, 0, 0, "out of memory while checking for training machinery");
        return -1;
      }
      c = g;
      c[m].op = nd->op;
      c[m].example = nd->name ? nd->name : "";
      c[m++].n = 0;
    }
    c[k].n++;
  }
  tfx_hmap_free(&cache);
  if (m) qsort(c, m, sizeof *c, by_op);
  for (size_t k = 0; k < m; k++)
    tfx_diag_add(d, sev, fname, 0, 0,
                 "the outputs need %ld node%s of op type %s (%s), which cannot run in an Ascend "
                 "inference model, e.g. '%s'",
                 c[k].n, c[k].n == 1 ? "" : "s", c[k].op,
                 tfx_train_kind_name(tfx_train_classify(c[k].op)), c[k].example);
  free(c);
  return total;
}
