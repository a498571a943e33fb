/* Freezing: variables become Consts holding their checkpoint values.
 * Stage: passes/LOAD ("freeze", after "load", before pruning and indexing). Input: the loaded
 * GraphDef (main graph + function library), the SavedModel's object graph when there is one,
 * and a checkpoint: --checkpoint PREFIX, else SavedModel/variables/variables, else for a .meta
 * file the prefix beside it or the one its `checkpoint` state file names. Output: the GraphDef
 * edited in place (new strings and tensors in model.arena; tensor bytes point into the
 * checkpoint's mapped shards, kept alive by ctx->ckpt):
 * - TF1 ref variables (VariableV2 / Variable) become Const; their Identity ("read") users stay.
 * - Resource variables: every ReadVariableOp of a frozen handle becomes a Const, in the main
 *   graph and in the function bodies the handle reaches through call ops (captured inputs of
 *   StatefulPartitionedCall / PartitionedCall, followed through nested calls). A resource
 *   argument nothing reads any more is removed from the function and from its call sites
 *   (when every use of the function is such a call), and a VarHandleOp left without users is
 *   removed.
 * - Keys: TF2 follows the object graph (a concrete function's bound_inputs are SavedObjectGraph
 *   node ids = TrackableObjectGraph node ids of the checkpoint, whose VARIABLE_VALUE attribute
 *   holds the key), else a SavedVariable of the same name; TF1 maps by the variable's name, or
 *   by the tensor name the saver's RestoreV2 restores into it.
 * Errors (exit 3): a variable whose key is missing from the checkpoint, dtype/shape mismatch
 * (both named), any damage in the bundle. Without a checkpoint nothing is done here: the
 * op mapping (tfx_freeze_check_mapping) refuses a model whose variables would reach lowering. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt/ckpt.h"
#include "opmap/opmap.h"
#include "passes/passes.h"
#include "tensorflow/trackable_object_graph.pb-c.h"
#include "tfxc/object_graph_view.pb-c.h"
#include "util/status.h"
#include "util/hash.h"

#define DT_STRING 7
#define DT_RESOURCE 20
#define OBJECT_GRAPH_KEY "_CHECKPOINTABLE_OBJECT_GRAPH"

typedef Tensorflow__NodeDef node_t;

typedef struct fz {
  tfx_ctx *ctx;
  tfx_arena *A;         /* model arena */
  tfx_ckpt *ck;
  Tensorflow__GraphDef *g;
  tfx_diag *d;
  const char *model;    /* for messages */
  /* object graph (TF2): node id -> checkpoint key (NULL when not a variable) */
  const char **obj_key;
  size_t n_obj;
  Tfxc__SavedObjectGraphView *sog;
  unsigned frozen;      /* variables / reads turned into Consts */
  /* main-graph index, built once (rewrites only drop inputs, so it stays a superset):
   * node name -> index, and per node the nodes naming it as an input (CSR) */
  tfx_hmap byname;
  uint32_t *ustart, *users;
} fz;

/* ---- small GraphDef helpers ---- */

static int is_var_op(const char *op) {
  return strcmp(op, "VariableV2") == 0 || strcmp(op, "Variable") == 0;
}

static Tensorflow__AttrValue *attr(const node_t *n, const char *key) {
  for (size_t i = 0; i < n->n_attr; i++)
    if (strcmp(n->attr[i]->key, key) == 0) return n->attr[i]->value;
  return NULL;
}

static const char *func_attr(const node_t *n, const char *key) {
  Tensorflow__AttrValue *v = attr(n, key);
  return v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC && v->func ? v->func->name : NULL;
}

static int is_call(const node_t *n) {
  return strcmp(n->op, "StatefulPartitionedCall") == 0 || strcmp(n->op, "PartitionedCall") == 0;
}

/* Does input string s name node/arg `name` output 0 (or any output when any_port)? */
static int input_is(const char *s, const char *name, int any_port) {
  size_t n = strlen(name);
  if (strncmp(s, name, n) != 0) return 0;
  if (s[n] == 0) return 1;
  if (s[n] != ':') return 0;
  return any_port || strcmp(s + n, ":0") == 0;
}

/* Splits "node:port" (port 0 when absent). Returns the node name in buf. */
static const char *split_input(const char *s, char *buf, size_t cap, unsigned *port) {
  const char *c = strrchr(s, ':');
  *port = 0;
  size_t n = c ? (size_t)(c - s) : strlen(s);
  if (c) *port = (unsigned)strtoul(c + 1, NULL, 10);
  if (n >= cap) n = cap - 1;
  memcpy(buf, s, n);
  buf[n] = 0;
  return buf;
}

/* A main-graph node by name (the index), or NULL. */
static node_t *main_find(const fz *z, const char *name) {
  uint32_t i = tfx_hmap_get(&z->byname, name, strlen(name));
  return i == TFX_HASH_NONE ? NULL : z->g->node[i];
}

/* The main-graph nodes that name node `name` as an input (possibly more, never fewer):
 * *out (malloc'ed, may be NULL when *n is 0). Returns 0 or -1 (out of memory). */
static int main_users(const fz *z, const char *name, node_t ***out, size_t *n) {
  *out = NULL;
  *n = 0;
  uint32_t i = tfx_hmap_get(&z->byname, name, strlen(name));
  if (i == TFX_HASH_NONE) return 0;
  size_t k = z->ustart[i + 1] - z->ustart[i];
  if (!k) return 0;
  node_t **a = tfx_malloc(k * sizeof *a);
  if (!a) return -1;
  for (size_t j = 0; j < k; j++) a[j] = z->g->node[z->users[z->ustart[i] + j]];
  *out = a;
  *n = k;
  return 0;
}

/* Builds byname and the users lists of the main graph. Returns 0 or -1 (out of memory). */
static int main_index(fz *z) {
  const Tensorflow__GraphDef *g = z->g;
  tfx_hmap_init(&z->byname);
  if (g->n_node >= UINT32_MAX || tfx_hmap_reserve(&z->byname, g->n_node) != 0) return -1;
  for (size_t i = 0; i < g->n_node; i++)
    if (tfx_hmap_put(&z->byname, g->node[i]->name, strlen(g->node[i]->name), (uint32_t)i, NULL) < 0)
      return -1;
  z->ustart = tfx_calloc(g->n_node + 2, sizeof *z->ustart);
  if (!z->ustart) return -1;
  size_t total = 0;
  char buf[1024];
  unsigned port;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < g->n_node; i++)
      for (size_t k = 0; k < g->node[i]->n_input; k++) {
        const char *s = g->node[i]->input[k];
        split_input(s[0] == '^' ? s + 1 : s, buf, sizeof buf, &port);
        uint32_t p = tfx_hmap_get(&z->byname, buf, strlen(buf));
        if (p == TFX_HASH_NONE) continue;
        if (pass == 0) z->ustart[p + 2]++, total++;
        else z->users[z->ustart[p + 1]++] = (uint32_t)i;
      }
    if (pass == 0) {
      for (size_t i = 2; i < g->n_node + 2; i++) z->ustart[i] += z->ustart[i - 1];
      z->users = tfx_malloc((total ? total : 1) * sizeof *z->users);
      if (!z->users) return -1;
    }
  }
  return 0;
}

static Tensorflow__FunctionDef *find_func(const Tensorflow__GraphDef *g, const char *name) {
  if (!g->library || !name) return NULL;
  for (size_t i = 0; i < g->library->n_function; i++) {
    Tensorflow__FunctionDef *f = g->library->function[i];
    if (f->signature && f->signature->name && strcmp(f->signature->name, name) == 0) return f;
  }
  return NULL;
}

static int oom(fz *z) {
  tfx_error(z->d, z->model, 0, 0, "out of memory while freezing variables");
  return TFX_E_NOMEM;
}

/* ---- the checkpoint ---- */

/* The checkpoint prefix for this run (malloc'ed), or NULL when none is found. */
static char *find_prefix(const tfx_ctx *ctx) {
  const tfx_options *o = ctx->opts;
  if (o->checkpoint) return strdup(o->checkpoint);
  const char *mp = o->model_path;
  struct stat st;
  int is_dir = stat(mp, &st) == 0 && S_ISDIR(st.st_mode);
  if (is_dir || ctx->model.kind == TFX_MSG_SAVEDMODEL) { /* a SavedModel directory, or its .pb */
    size_t n = strlen(mp) + 32;
    char *p = malloc(n);
    if (!p) return NULL;
    if (is_dir) snprintf(p, n, "%s/variables/variables", mp);
    else {
      const char *slash = strrchr(mp, '/');
      if (slash) snprintf(p, n, "%.*s/variables/variables", (int)(slash - mp), mp);
      else snprintf(p, n, "variables/variables");
    }
    if (tfx_ckpt_exists(p)) return p;
    free(p);
    return NULL;
  }
  if (ctx->model.kind != TFX_MSG_METAGRAPHDEF) return NULL;
  /* model.ckpt.meta -> model.ckpt, else the `checkpoint` state file beside it */
  size_t n = strlen(mp);
  if (n > 5 && strcmp(mp + n - 5, ".meta") == 0) {
    char *p = strdup(mp);
    if (!p) return NULL;
    p[n - 5] = 0;
    if (tfx_ckpt_exists(p)) return p;
    free(p);
  }
  char *dir = strdup(mp);
  if (!dir) return NULL;
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  else strcpy(dir, ".");
  char *p = tfx_ckpt_state_prefix(dir);
  if (p && !tfx_ckpt_exists(p)) { /* an absolute path from another machine: its base name here */
    const char *base = strrchr(p, '/');
    size_t m = strlen(dir) + strlen(base ? base : p) + 2;
    char *q = malloc(m);
    if (q) snprintf(q, m, "%s/%s", dir, base ? base + 1 : p);
    free(p);
    p = q;
    if (p && !tfx_ckpt_exists(p)) {
      free(p);
      p = NULL;
    }
  }
  free(dir);
  return p;
}

/* ---- Const construction ---- */

static void describe_attr_shape(const Tensorflow__TensorShapeProto *s, char *buf, size_t n) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (size_t i = 0; s && i < s->n_dim && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "," : "", (long long)s->dim[i]->size);
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* Checks a graph-side dtype (and shape when known) against the bundle entry. */
static int check_match(fz *z, const char *what, const char *var, int gdtype,
                       const Tensorflow__TensorShapeProto *gshape, const tfx_ckpt_tensor *t) {
  int bad = gdtype && gdtype != t->dtype;
  if (!bad && gshape && !gshape->unknown_rank && !t->unknown_rank) {
    int known = 1;
    for (size_t i = 0; i < gshape->n_dim; i++)
      if (gshape->dim[i]->size < 0) known = 0;
    if (known) {
      if (gshape->n_dim != t->rank) bad = 1;
      for (size_t i = 0; !bad && i < gshape->n_dim; i++)
        if (gshape->dim[i]->size != t->dims[i]) bad = 1;
    }
  }
  if (!bad) return 0;
  char gs[256], bs[512];
  describe_attr_shape(gshape, gs, sizeof gs);
  tfx_ckpt_describe(t, bs, sizeof bs);
  tfx_error(z->d, z->model, 0, 0, "%s '%s' is %s %s in the graph, but checkpoint tensor '%s' in "
            "%s is %s", what, var, tfx_ckpt_dtype_name(gdtype), gshape ? gs : "[?]", t->name,
            z->ck->index_path, bs);
  return TFX_E_INPUT;
}

/* The checkpoint entry of key for variable var (reported when missing). */
static const tfx_ckpt_tensor *lookup(fz *z, const char *var, const char *key) {
  const tfx_ckpt_tensor *t = tfx_ckpt_find(z->ck, key);
  if (!t)
    tfx_error(z->d, z->model, 0, 0, "variable '%s': tensor '%s' is not in the checkpoint %s",
              var, key, z->ck->index_path);
  return t;
}

/* Turns node n into a Const holding t's value (control inputs kept, other attrs dropped). */
static int make_const(fz *z, node_t *n, const tfx_ckpt_tensor *t) {
  tfx_arena *A = z->A;
  Tensorflow__TensorProto *tp = tfx_arena_calloc(A, 1, sizeof *tp);
  Tensorflow__TensorShapeProto *sh = tfx_arena_calloc(A, 1, sizeof *sh);
  if (!tp || !sh) return oom(z);
  tensorflow__tensor_proto__init(tp);
  tensorflow__tensor_shape_proto__init(sh);
  tp->dtype = (Tensorflow__DataType)t->dtype;
  tp->tensor_shape = sh;
  if (t->rank) {
    sh->dim = tfx_arena_calloc(A, t->rank, sizeof *sh->dim);
    if (!sh->dim) return oom(z);
    for (uint32_t i = 0; i < t->rank; i++) {
      Tensorflow__TensorShapeProto__Dim *dm = tfx_arena_calloc(A, 1, sizeof *dm);
      if (!dm) return oom(z);
      tensorflow__tensor_shape_proto__dim__init(dm);
      dm->size = t->dims[i];
      sh->dim[i] = dm;
    }
    sh->n_dim = t->rank;
  }
  int rc;
  if (t->dtype == DT_STRING) {
    const uint8_t **s;
    size_t *l;
    if ((rc = tfx_ckpt_strings(z->ck, t, &s, &l, z->d)) != 0) return rc;
    size_t ne = (size_t)t->elems;
    tp->string_val = tfx_arena_calloc(A, ne ? ne : 1, sizeof *tp->string_val);
    if (!tp->string_val) return oom(z);
    for (size_t i = 0; i < ne; i++) tp->string_val[i] = (ProtobufCBinaryData){l[i], (uint8_t *)s[i]};
    tp->n_string_val = ne;
  } else {
    if (!tfx_ckpt_dtype_size(t->dtype)) {
      tfx_error(z->d, z->model, 0, 0, "variable '%s': checkpoint tensor '%s' has dtype %s, "
                "which cannot be a constant", n->name, t->name, tfx_ckpt_dtype_name(t->dtype));
      return TFX_E_INPUT;
    }
    const uint8_t *p;
    size_t len;
    if ((rc = tfx_ckpt_bytes(z->ck, t, &p, &len, z->d)) != 0) return rc;
    tp->tensor_content = (ProtobufCBinaryData){len, (uint8_t *)p}; /* the mapping, not a copy */
  }
  Tensorflow__AttrValue *dv = tfx_arena_calloc(A, 1, sizeof *dv);
  Tensorflow__AttrValue *vv = tfx_arena_calloc(A, 1, sizeof *vv);
  Tensorflow__NodeDef__AttrEntry **ents = tfx_arena_calloc(A, 2, sizeof *ents);
  Tensorflow__NodeDef__AttrEntry *e0 = tfx_arena_calloc(A, 1, sizeof *e0);
  Tensorflow__NodeDef__AttrEntry *e1 = tfx_arena_calloc(A, 1, sizeof *e1);
  if (!dv || !vv || !ents || !e0 || !e1) return oom(z);
  tensorflow__attr_value__init(dv);
  tensorflow__attr_value__init(vv);
  tensorflow__node_def__attr_entry__init(e0);
  tensorflow__node_def__attr_entry__init(e1);
  dv->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  dv->type = (Tensorflow__DataType)t->dtype;
  vv->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
  vv->tensor = tp;
  e0->key = "dtype";
  e0->value = dv;
  e1->key = "value";
  e1->value = vv;
  ents[0] = e0;
  ents[1] = e1;
  n->attr = ents;
  n->n_attr = 2;
  n->op = "Const";
  size_t k = 0;
  for (size_t i = 0; i < n->n_input; i++)
    if (n->input[i][0] == '^') n->input[k++] = n->input[i];
  n->n_input = k;
  z->frozen++;
  return 0;
}

/* ---- keys ---- */

/* node id -> key from the checkpoint's TrackableObjectGraph, when it has one. */
static int load_object_graph(fz *z) {
  const tfx_ckpt_tensor *t = tfx_ckpt_find(z->ck, OBJECT_GRAPH_KEY);
  if (!t) return 0;
  const uint8_t **s;
  size_t *l;
  int rc = tfx_ckpt_strings(z->ck, t, &s, &l, z->d);
  if (rc) return rc;
  if (t->elems != 1) return 0;
  tfx_status ust;
  Tensorflow__TrackableObjectGraph *og = (Tensorflow__TrackableObjectGraph *)tfx_io_unpack_st(
      &tensorflow__trackable_object_graph__descriptor, s[0], l[0], z->ck->index_path,
      &z->ck->arena, &ust, z->d);
  if (!og && ust == TFX_E_NOMEM) return TFX_E_NOMEM; /* reported */
  if (!og) {
    tfx_error(z->d, z->ck->index_path, 0, 0, "the object graph (%s) is malformed", OBJECT_GRAPH_KEY);
    return TFX_E_INPUT;
  }
  z->n_obj = og->n_nodes;
  z->obj_key = tfx_arena_calloc(&z->ck->arena, og->n_nodes ? og->n_nodes : 1, sizeof *z->obj_key);
  if (!z->obj_key) return oom(z);
  for (size_t i = 0; i < og->n_nodes; i++)
    for (size_t a = 0; a < og->nodes[i]->n_attributes; a++) {
      Tensorflow__TrackableObjectGraph__TrackableObject__SerializedTensor *st =
          og->nodes[i]->attributes[a];
      if (st->name && strcmp(st->name, "VARIABLE_VALUE") == 0 && st->checkpoint_key)
        z->obj_key[i] = st->checkpoint_key;
    }
  return 0;
}

/* The SavedModel's object graph, re-encoded and read through tfxc's view messages. */
static int load_saved_object_graph(fz *z) {
  const tfx_model *m = &z->ctx->model;
  if (m->kind != TFX_MSG_SAVEDMODEL) return 0;
  const Tensorflow__SavedModel *sm = (const Tensorflow__SavedModel *)m->root;
  const Tensorflow__MetaGraphDef *mg = NULL;
  for (size_t i = 0; i < sm->n_meta_graphs; i++)
    if (sm->meta_graphs[i]->graph_def == m->graph) mg = sm->meta_graphs[i];
  if (!mg || !mg->object_graph_def) return 0;
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  if (tfx_io_pack(&mg->object_graph_def->base, &sb) != 0 || sb.oom) {
    tfx_sb_free(&sb);
    return oom(z);
  }
  tfx_status ust;
  z->sog = (Tfxc__SavedObjectGraphView *)tfx_io_unpack_st(
      &tfxc__saved_object_graph_view__descriptor, (const uint8_t *)sb.data, sb.len, z->model, z->A,
      &ust, z->d);
  tfx_sb_free(&sb);
  if (!z->sog && ust == TFX_E_NOMEM) return TFX_E_NOMEM; /* reported */
  if (!z->sog) {
    tfx_error(z->d, z->model, 0, 0, "the SavedModel's object graph is malformed");
    return TFX_E_INPUT;
  }
  return 0;
}

/* Key of object-graph node id, or NULL. */
static const char *obj_key(const fz *z, int32_t id) {
  return id >= 0 && (size_t)id < z->n_obj ? z->obj_key[id] : NULL;
}

/* TF1 savers: Assign/AssignVariableOp(var, [Identity...] RestoreV2:i) with RestoreV2's
 * tensor_names Const -> the key restored into var; NULL when there is no such saver. */
static const char *restore_key(fz *z, const char *var) {
  char buf[1024];
  unsigned port;
  node_t **us;
  size_t nu;
  if (main_users(z, var, &us, &nu) != 0) return NULL;
  const char *res = NULL;
  for (size_t i = 0; i < nu && !res; i++) {
    node_t *a = us[i];
    if ((strcmp(a->op, "Assign") != 0 && strcmp(a->op, "AssignVariableOp") != 0) || a->n_input < 2 ||
        !input_is(a->input[0], var, 0))
      continue;
    node_t *src = main_find(z, split_input(a->input[1], buf, sizeof buf, &port));
    for (int hops = 0; src && strcmp(src->op, "Identity") == 0 && src->n_input && hops < 8; hops++)
      src = main_find(z, split_input(src->input[0], buf, sizeof buf, &port));
    if (!src || strcmp(src->op, "RestoreV2") != 0 || src->n_input < 2) continue;
    node_t *names = main_find(z, split_input(src->input[1], buf, sizeof buf, &port));
    Tensorflow__AttrValue *v = names && strcmp(names->op, "Const") == 0 ? attr(names, "value") : NULL;
    if (!v || v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_TENSOR || !v->tensor) continue;
    /* the port of the RestoreV2 output that was followed */
    split_input(a->input[1], buf, sizeof buf, &port);
    node_t *first = main_find(z, buf);
    unsigned rport = port;
    while (first && first != src && first->n_input) {
      split_input(first->input[0], buf, sizeof buf, &rport);
      first = main_find(z, buf);
    }
    if (rport < v->tensor->n_string_val) {
      ProtobufCBinaryData s = v->tensor->string_val[rport];
      res = tfx_arena_strndup(z->A, (const char *)s.data, s.len);
    }
  }
  free(us);
  return res;
}

/* Key of a main-graph variable node: object graph (through the calls it feeds, or a
 * SavedVariable of its name), the saver's RestoreV2, or its own name. */
static const char *var_key(fz *z, const node_t *v) {
  Tensorflow__GraphDef *g = z->g;
  if (z->sog && z->obj_key) {
    node_t **us;
    size_t nu;
    if (main_users(z, v->name, &us, &nu) != 0) return NULL;
    for (size_t i = 0; i < nu; i++) {
      node_t *c = us[i];
      if (!is_call(c)) continue;
      const char *fname = func_attr(c, "f");
      Tensorflow__FunctionDef *f = find_func(g, fname);
      if (!f || !f->signature) continue;
      for (size_t k = 0; k < z->sog->n_concrete_functions; k++) {
        Tfxc__SavedObjectGraphView__ConcreteFunctionsEntry *cf = z->sog->concrete_functions[k];
        if (!cf->key || strcmp(cf->key, fname) != 0 || !cf->value) continue;
        size_t nb = cf->value->n_bound_inputs, na = f->signature->n_input_arg;
        if (nb > na) continue;
        for (size_t p = na - nb; p < na && p < c->n_input; p++)
          if (input_is(c->input[p], v->name, 0)) {
            const char *key = obj_key(z, cf->value->bound_inputs[p - (na - nb)]);
            if (key) {
              free(us);
              return key;
            }
          }
      }
    }
    free(us);
    const char *found = NULL;
    int count = 0;
    Tensorflow__AttrValue *sn = attr(v, "shared_name");
    const char *vname = sn && sn->value_case == TENSORFLOW__ATTR_VALUE__VALUE_S && sn->s.len
                            ? NULL : v->name;
    for (size_t i = 0; i < z->sog->n_nodes; i++) {
      Tfxc__SavedObjectGraphView__Variable *sv = z->sog->nodes[i]->variable;
      if (!sv || !sv->name) continue;
      int match = vname ? strcmp(sv->name, vname) == 0
                        : strlen(sv->name) == sn->s.len && memcmp(sv->name, sn->s.data, sn->s.len) == 0;
      if (match && obj_key(z, (int32_t)i)) {
        found = obj_key(z, (int32_t)i);
        count++;
      }
    }
    if (count == 1) return found;
  }
  const char *rk = restore_key(z, v->name);
  return rk ? rk : v->name;
}

/* ---- resource handles through functions ---- */

typedef struct work {
  Tensorflow__FunctionDef *f;
  size_t arg;
  const char *key;
  const char *var; /* main-graph variable, for messages */
} work;

typedef struct worklist {
  work *w;
  size_t n, cap;
} worklist;

static int push(fz *z, worklist *wl, Tensorflow__FunctionDef *f, size_t arg, const char *key,
                const char *var) {
  for (size_t i = 0; i < wl->n; i++)
    if (wl->w[i].f == f && wl->w[i].arg == arg) return 0;
  if (wl->n == wl->cap) {
    size_t nc = wl->cap ? wl->cap * 2 : 16;
    work *w2 = tfx_realloc(wl->w, nc * sizeof *w2);
    if (!w2) return oom(z);
    wl->w = w2;
    wl->cap = nc;
  }
  wl->w[wl->n++] = (work){f, arg, key, var};
  return 0;
}

/* Pushes the callees of every call node among nodes that takes `name` as data input. */
static int push_calls(fz *z, worklist *wl, node_t **nodes, size_t n, const char *name,
                      const char *key, const char *var) {
  for (size_t i = 0; i < n; i++) {
    node_t *c = nodes[i];
    if (!is_call(c)) continue;
    Tensorflow__FunctionDef *f = find_func(z->g, func_attr(c, "f"));
    if (!f || !f->signature) continue;
    for (size_t p = 0; p < c->n_input && p < f->signature->n_input_arg; p++)
      if (input_is(c->input[p], name, 0) && f->signature->input_arg[p]->type == DT_RESOURCE) {
        int rc = push(z, wl, f, p, key, var);
        if (rc) return rc;
      }
  }
  return 0;
}

/* ReadVariableOp of `name` among nodes -> Const of t. */
static int freeze_reads(fz *z, node_t **nodes, size_t n, const char *name, const char *var,
                        const tfx_ckpt_tensor *t) {
  for (size_t i = 0; i < n; i++) {
    node_t *r = nodes[i];
    if (strcmp(r->op, "ReadVariableOp") != 0 || r->n_input < 1 || !input_is(r->input[0], name, 0))
      continue;
    Tensorflow__AttrValue *dt = attr(r, "dtype");
    int rc = check_match(z, "variable", var, dt && dt->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE
                                                 ? (int)dt->type : 0, NULL, t);
    if (rc || (rc = make_const(z, r, t)) != 0) return rc;
  }
  return 0;
}

static int refers(node_t **nodes, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < nodes[i]->n_input; k++) {
      const char *s = nodes[i]->input[k];
      if (input_is(s[0] == '^' ? s + 1 : s, name, 1)) return 1;
    }
  return 0;
}

/* Every use of function fname is the "f" of a call node (so its arguments can change). */
static int only_called(const Tensorflow__GraphDef *g, const char *fname) {
  for (int pass = 0; pass < 2; pass++) {
    size_t nf = g->library ? g->library->n_function : 0;
    for (size_t fi = 0; fi < (pass ? nf : 1); fi++) {
      node_t **nodes = pass ? g->library->function[fi]->node_def : g->node;
      size_t n = pass ? g->library->function[fi]->n_node_def : g->n_node;
      for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < nodes[i]->n_attr; a++) {
          Tensorflow__AttrValue *v = nodes[i]->attr[a]->value;
          int uses = v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC && v->func &&
                     v->func->name && strcmp(v->func->name, fname) == 0;
          if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list)
            for (size_t k = 0; k < v->list->n_func; k++)
              if (v->list->func[k]->name && strcmp(v->list->func[k]->name, fname) == 0) uses = 1;
          if (strcmp(nodes[i]->op, fname) == 0) return 0; /* called as an op */
          if (uses && !(is_call(nodes[i]) && strcmp(nodes[i]->attr[a]->key, "f") == 0)) return 0;
        }
    }
  }
  return 1;
}

/* Removes data input p of call node c (and its Tin entry). */
static void drop_call_input(node_t *c, size_t p) {
  if (p >= c->n_input || c->input[p][0] == '^') return;
  memmove(&c->input[p], &c->input[p + 1], (c->n_input - p - 1) * sizeof *c->input);
  c->n_input--;
  Tensorflow__AttrValue *tin = attr(c, "Tin");
  if (tin && tin->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && tin->list &&
      p < tin->list->n_type) {
    memmove(&tin->list->type[p], &tin->list->type[p + 1],
            (tin->list->n_type - p - 1) * sizeof *tin->list->type);
    tin->list->n_type--;
  }
}

static void drop_calls_input(node_t **nodes, size_t n, const char *fname, size_t p) {
  for (size_t i = 0; i < n; i++) {
    const char *f = is_call(nodes[i]) ? func_attr(nodes[i], "f") : NULL;
    if (f && strcmp(f, fname) == 0) drop_call_input(nodes[i], p);
  }
}

/* Removes resource argument p of f, which nothing in f refers to any more. */
static int drop_arg(fz *z, Tensorflow__FunctionDef *f, size_t p) {
  Tensorflow__OpDef *s = f->signature;
  const char *fname = s->name;
  if (!only_called(z->g, fname)) return 0;
  drop_calls_input(z->g->node, z->g->n_node, fname, p);
  for (size_t i = 0; z->g->library && i < z->g->library->n_function; i++)
    drop_calls_input(z->g->library->function[i]->node_def, z->g->library->function[i]->n_node_def,
                     fname, p);
  memmove(&s->input_arg[p], &s->input_arg[p + 1], (s->n_input_arg - p - 1) * sizeof *s->input_arg);
  s->n_input_arg--;
  size_t k = 0;
  for (size_t i = 0; i < f->n_arg_attr; i++) {
    if (f->arg_attr[i]->key == p) continue;
    if (f->arg_attr[i]->key > p) f->arg_attr[i]->key--;
    f->arg_attr[k++] = f->arg_attr[i];
  }
  f->n_arg_attr = k;
  k = 0;
  for (size_t i = 0; i < f->n_resource_arg_unique_id; i++) {
    if (f->resource_arg_unique_id[i]->key == p) continue;
    if (f->resource_arg_unique_id[i]->key > p) f->resource_arg_unique_id[i]->key--;
    f->resource_arg_unique_id[k++] = f->resource_arg_unique_id[i];
  }
  f->n_resource_arg_unique_id = k;
  return 1;
}

/* Drops resource args nothing reads, repeatedly (a nested call's input going away frees its
 * caller's argument), then VarHandleOps without users. */
static void drop_unused(fz *z, worklist *wl) {
  Tensorflow__GraphDef *g = z->g;
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < wl->n; i++) {
      Tensorflow__FunctionDef *f = wl->w[i].f;
      if (!f) continue;
      Tensorflow__OpDef *s = f->signature;
      size_t p = wl->w[i].arg;
      if (p >= s->n_input_arg) continue;
      const char *an = s->input_arg[p]->name;
      int used = refers(f->node_def, f->n_node_def, an);
      for (size_t r = 0; !used && r < f->n_ret; r++)
        if (input_is(f->ret[r]->value, an, 1)) used = 1;
      if (used || !drop_arg(z, f, p)) continue;
      wl->w[i].f = NULL;
      for (size_t j = 0; j < wl->n; j++) /* later args of f moved down by one */
        if (wl->w[j].f == f && wl->w[j].arg > p) wl->w[j].arg--;
      changed = 1;
    }
  }
  tfx_hmap used; /* names some main-graph node still reads */
  tfx_hmap_init(&used);
  char buf[1024];
  unsigned port;
  for (size_t i = 0; i < g->n_node; i++)
    for (size_t k = 0; k < g->node[i]->n_input; k++) {
      const char *s = g->node[i]->input[k];
      split_input(s[0] == '^' ? s + 1 : s, buf, sizeof buf, &port);
      if (tfx_hmap_get(&used, buf, strlen(buf)) != TFX_HASH_NONE) continue;
      const char *key = tfx_arena_strdup(z->A, buf);
      uint32_t old;
      if (!key || tfx_hmap_put(&used, key, strlen(key), 1, &old) < 0) {
        tfx_hmap_free(&used);
        return; /* out of memory: the handles stay (the variables check reports them) */
      }
    }
  size_t k = 0;
  for (size_t i = 0; i < g->n_node; i++) {
    node_t *v = g->node[i];
    if (strcmp(v->op, "VarHandleOp") == 0 && v->n_input == 0 &&
        tfx_hmap_get(&used, v->name, strlen(v->name)) == TFX_HASH_NONE)
      continue;
    g->node[k++] = v;
  }
  g->n_node = k;
  tfx_hmap_free(&used);
}

/* In function bodies outputs are named by their op's output arg: a ReadVariableOp's is
 * "value", a Const's "output". References "X:value:N" to a node X that is now a Const are
 * renamed "X:output:N" (inputs and ret values). Returns 0 or an exit code. */
static int fix_function_refs(fz *z, Tensorflow__FunctionDef *f) {
  for (size_t pass = 0; pass < 2; pass++) {
    size_t n = pass ? f->n_ret : 0;
    for (size_t i = 0; i < (pass ? n : f->n_node_def); i++) {
      size_t ni = pass ? 1 : f->node_def[i]->n_input;
      for (size_t k = 0; k < ni; k++) {
        char **ref = pass ? &f->ret[i]->value : &f->node_def[i]->input[k];
        const char *s = *ref, *c = s ? strstr(s, ":value:") : NULL;
        if (!c) continue;
        size_t nl = (size_t)(c - s);
        int is_const = 0;
        for (size_t j = 0; j < f->n_node_def && !is_const; j++)
          is_const = strlen(f->node_def[j]->name) == nl && strncmp(f->node_def[j]->name, s, nl) == 0 &&
                     strcmp(f->node_def[j]->op, "Const") == 0;
        if (!is_const) continue;
        size_t len = nl + strlen(":output:") + strlen(c + 7) + 1;
        char *r = tfx_arena_alloc(z->A, len);
        if (!r) return oom(z);
        snprintf(r, len, "%.*s:output:%s", (int)nl, s, c + 7);
        *ref = r;
      }
    }
  }
  return 0;
}

/* ---- the pass ---- */

static int note_missing(fz *z, const char *var, const char *key) {
  tfx_ckpt *c = z->ck;
  const char **mv = tfx_arena_calloc(&c->arena, c->n_missing + 1, sizeof *mv);
  const char **mk = tfx_arena_calloc(&c->arena, c->n_missing + 1, sizeof *mk);
  if (!mv || !mk) return oom(z);
  if (c->n_missing) {
    memcpy(mv, c->missing_var, c->n_missing * sizeof *mv);
    memcpy(mk, c->missing_key, c->n_missing * sizeof *mk);
  }
  mv[c->n_missing] = var;
  mk[c->n_missing] = key;
  c->missing_var = mv;
  c->missing_key = mk;
  c->n_missing++;
  return 0;
}

static int run_indexed(fz *z) {
  Tensorflow__GraphDef *g = z->g;
  int rc;
  if ((rc = load_object_graph(z)) != 0 || (rc = load_saved_object_graph(z)) != 0) return rc;
  worklist wl = {0};
  for (size_t i = 0; i < g->n_node && !rc; i++) {
    node_t *v = g->node[i];
    int ref = is_var_op(v->op), res = strcmp(v->op, "VarHandleOp") == 0;
    if (!ref && !res) continue;
    const char *key = var_key(z, v);
    if (!key) {
      rc = oom(z);
      break;
    }
    const tfx_ckpt_tensor *t = tfx_ckpt_find(z->ck, key);
    if (!t) { /* an error only if the outputs need it (tfx_freeze_check_mapping) */
      rc = note_missing(z, v->name, key);
      continue;
    }
    Tensorflow__AttrValue *dt = attr(v, "dtype"), *sh = attr(v, "shape");
    rc = check_match(z, "variable", v->name,
                     dt && dt->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE ? (int)dt->type : 0,
                     sh && sh->value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE ? sh->shape : NULL, t);
    if (rc) break;
    if (ref) {
      rc = make_const(z, v, t);
      continue;
    }
    char *name = tfx_arena_strdup(z->A, v->name);
    node_t **us;
    size_t nu;
    if (!name || main_users(z, name, &us, &nu) != 0) {
      rc = oom(z);
      break;
    }
    if ((rc = freeze_reads(z, us, nu, name, name, t)) == 0)
      rc = push_calls(z, &wl, us, nu, name, key, name);
    free(us);
  }
  for (size_t i = 0; i < wl.n && !rc; i++) { /* wl grows while it is walked */
    work w = wl.w[i];
    const char *an = w.f->signature->input_arg[w.arg]->name;
    const tfx_ckpt_tensor *t = lookup(z, w.var, w.key);
    if (!t) rc = TFX_E_INPUT;
    else if ((rc = freeze_reads(z, w.f->node_def, w.f->n_node_def, an, w.var, t)) == 0)
      rc = push_calls(z, &wl, w.f->node_def, w.f->n_node_def, an, w.key, w.var);
  }
  for (size_t i = 0; i < wl.n && !rc; i++) {
    int seen = 0; /* each function once */
    for (size_t j = 0; j < i; j++) seen |= wl.w[j].f == wl.w[i].f;
    if (!seen) rc = fix_function_refs(z, wl.w[i].f);
  }
  if (!rc) drop_unused(z, &wl);
  free(wl.w);
  return rc;
}

static int run(fz *z) {
  int rc = main_index(z) != 0 ? oom(z) : run_indexed(z);
  tfx_hmap_free(&z->byname);
  free(z->ustart);
  free(z->users);
  return rc;
}

/* 1 if the main graph holds a variable op. */
static int has_variables(const Tensorflow__GraphDef *g) {
  for (size_t i = 0; i < g->n_node; i++) {
    const char *op = g->node[i]->op;
    if (op[0] == 'V' && (is_var_op(op) || strcmp(op, "VarHandleOp") == 0)) return 1;
  }
  return 0;
}

tfx_status tfx_pass_freeze(tfx_ctx *ctx, void *user) {
  (void)user;
  const tfx_options *o = ctx->opts;
  if (!ctx->have_model) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'freeze' needs a loaded model");
    return TFX_E_FAIL;
  }
  if (o->no_freeze) return 0;
  /* Where the weights would come from first (a few file-system checks): without a checkpoint
   * nothing is frozen, so the scan for variable ops is not needed -- a plain GraphDef without
   * --checkpoint never has one. The scan reads every NodeDef's op string, cold and scattered in
   * the model arena: ~20 ms of cache misses at 10^6 nodes for a few instructions each. */
  char *prefix = find_prefix(ctx);
  if (!prefix) {
    if (o->checkpoint) return oom(&(fz){.d = ctx->diag, .model = ctx->model.path});
    return 0; /* no weights: the op mapping reports what would reach lowering */
  }
  if (!o->checkpoint && !has_variables(ctx->model.graph)) {
    free(prefix);
    return 0;
  }
  tfx_ckpt *ck = tfx_malloc(sizeof *ck);
  if (!ck) {
    free(prefix);
    return oom(&(fz){.d = ctx->diag, .model = ctx->model.path});
  }
  tfx_ckpt_init(ck);
  ctx->ckpt = ck;
  int rc = tfx_ckpt_open(ck, prefix, o->max_file_size, ctx->diag);
  free(prefix);
  if (rc) return rc;
  fz z = {.ctx = ctx, .A = &ctx->model.arena, .ck = ck, .g = ctx->model.graph, .d = ctx->diag,
          .model = ctx->model.path};
  rc = run(&z);
  if (!rc && o->verbose > 0)
    tfx_diag_add(ctx->diag, TFX_SEV_NOTE, NULL, 0, 0, "froze %u variable reads from %s", z.frozen,
                 ck->prefix);
  if (!rc) ctx->graph_edits++;
  return rc;
}

/* ---- never a weightless model ---- */

/* The nodes that hold a variable, and in the main graph the reads of a handle that comes
 * from elsewhere (a resource Placeholder). Reads of a VarHandleOp are not counted: the handle
 * is, and a model can have thousands of reads; in function bodies the handle is counted where
 * the main graph creates it. */
static int is_variable_node(const tfx_graph *g, const tfx_node *nd) {
  if (nd->op[0] != 'V' && nd->op[0] != 'R') return 0; /* every node passes here: no strcmp */
  if (is_var_op(nd->op) || strcmp(nd->op, "VarHandleOp") == 0) return 1;
  if (g->func || strcmp(nd->op, "ReadVariableOp") != 0 || !nd->def || nd->def->n_input < 1) return 0;
  char buf[1024];
  unsigned port;
  const char *s = nd->def->input[0];
  uint32_t id = tfx_graph_find(g, split_input(s, buf, sizeof buf, &port));
  return id == TFX_NO_ID || strcmp(g->nodes[id].op, "VarHandleOp") != 0;
}

/* Library functions by name: first index in `by_name`, the others of the same name (a
 * malformed library) chained in library order through next (UINT32_MAX ends a chain). */
typedef struct fn_index {
  tfx_hmap by_name;
  uint32_t *next;
} fn_index;

static int fn_index_build(fn_index *x, const Tensorflow__GraphDef *g, size_t nf) {
  tfx_hmap_init(&x->by_name);
  x->next = tfx_malloc((nf ? nf : 1) * sizeof *x->next);
  uint32_t *last = tfx_malloc((nf ? nf : 1) * sizeof *last);
  int rc = x->next && last && nf < UINT32_MAX ? 0 : -1;
  for (size_t f = 0; rc == 0 && f < nf; f++) {
    x->next[f] = UINT32_MAX;
    const Tensorflow__OpDef *sg = g->library->function[f]->signature;
    if (!sg || !sg->name) continue;
    uint32_t first;
    int put = tfx_hmap_put(&x->by_name, sg->name, strlen(sg->name), (uint32_t)f, &first);
    if (put < 0) rc = -1;
    else if (put == 1) last[f] = (uint32_t)f;
    else { /* same name again: append to the chain of the first */
      x->next[last[first]] = (uint32_t)f;
      last[first] = (uint32_t)f;
    }
  }
  free(last);
  return rc;
}

static void fn_index_free(fn_index *x) {
  tfx_hmap_free(&x->by_name);
  free(x->next);
}

/* Marks the functions nodes refer to (function attributes, or a function name as op). */
static void mark_called(const fn_index *x, node_t **nodes, size_t n, uint8_t *seen, size_t *stack,
                        size_t *top) {
  for (size_t i = 0; i < n; i++) {
    const char *names[64];
    size_t k = 0;
    names[k++] = nodes[i]->op;
    for (size_t a = 0; a < nodes[i]->n_attr; a++) {
      Tensorflow__AttrValue *v = nodes[i]->attr[a]->value;
      if (!v) continue;
      if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC && v->func && v->func->name && k < 64)
        names[k++] = v->func->name;
      if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list)
        for (size_t j = 0; j < v->list->n_func && k < 64; j++)
          if (v->list->func[j]->name) names[k++] = v->list->func[j]->name;
    }
    for (size_t j = 0; j < k; j++)
      for (uint32_t f = tfx_hmap_get(&x->by_name, names[j], strlen(names[j])); f != UINT32_MAX;
           f = x->next[f])
        if (!seen[f]) {
          seen[f] = 1;
          stack[(*top)++] = f;
        }
  }
}

/* 1 when function fname is reached from the main graph (seen: per library function). */
static int reached(const fn_index *x, const uint8_t *seen, const char *fname) {
  if (!fname) return 0;
  for (uint32_t f = tfx_hmap_get(&x->by_name, fname, strlen(fname)); f != UINT32_MAX; f = x->next[f])
    if (seen[f]) return 1;
  return 0;
}

static void fail_op(tfx_opmap *om, tfx_mapped_op *op, const char *msg) {
  if (op->cause != TFX_CAUSE_OK || op->how == TFX_MAP_UNSUPPORTED) return; /* already failed */
  op->cause = TFX_CAUSE_PARAM_INVALID;
  op->message = msg;
  om->n_failed++;
  if (om->n_ok) om->n_ok--;
}

tfx_status tfx_freeze_check_mapping(tfx_ctx *ctx) {
  const tfx_options *o = ctx->opts;
  tfx_opmap *om = ctx->opmap;
  if (!o || o->no_freeze || !om || !ctx->have_model) return 0;
  /* the op types is_variable_node accepts, as ids of the module's op table (the mapped graphs
   * are the module's): a model without them has nothing to check, and the other nodes are
   * passed over without reading their op strings */
  uint32_t var_ids[4];
  int by_id = ctx->have_module;
  if (by_id) {
    static const char *const var_ops[4] = {"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp"};
    int any = 0;
    for (int k = 0; k < 4; k++) {
      var_ids[k] = tfx_intern_find(&ctx->module.ops, var_ops[k], strlen(var_ops[k]));
      any |= var_ids[k] != TFX_HASH_NONE;
    }
    if (!any) return 0;
  }
  const Tensorflow__GraphDef *g = ctx->model.graph;
  size_t nf = g->library ? g->library->n_function : 0;
  uint8_t *seen = tfx_calloc(nf ? nf : 1, 1);
  size_t *stack = tfx_calloc(nf ? nf : 1, sizeof *stack), top = 0;
  fn_index fx;
  if (!seen || !stack || fn_index_build(&fx, g, nf) < 0) {
    if (seen && stack) fn_index_free(&fx);
    free(seen);
    free(stack);
    tfx_error(ctx->diag, NULL, 0, 0, "out of memory");
    return TFX_E_NOMEM;
  }
  if (nf) { /* only the functions the main graph reaches are lowered */
    mark_called(&fx, g->node, g->n_node, seen, stack, &top);
    while (top) {
      const Tensorflow__FunctionDef *f = g->library->function[stack[--top]];
      mark_called(&fx, f->node_def, f->n_node_def, seen, stack, &top);
    }
  }
  const tfx_ckpt *ck = ctx->ckpt;
  char *msg_none = tfx_arena_strdup(&om->arena, "a variable without weights: no checkpoint found: "
                                    "give --checkpoint PREFIX or a SavedModel directory "
                                    "(--no-freeze keeps variables)");
  char *msg_unres = NULL;
  if (ck) {
    tfx_strbuf sb;
    tfx_sb_init(&sb);
    tfx_sb_printf(&sb, "a variable without weights: the freezing with checkpoint %s could not "
                  "resolve it (--no-freeze keeps variables)", ck->prefix);
    msg_unres = sb.oom ? NULL : tfx_arena_strdup(&om->arena, tfx_sb_cstr(&sb));
    tfx_sb_free(&sb);
  }
  unsigned n = 0;
  const char *first = NULL, *missing_var = NULL, *missing_key = NULL;
  for (uint32_t gi = 0; gi <= om->n_funcs; gi++) {
    tfx_mapped_graph *mg = gi == 0 ? &om->main : &om->funcs[gi - 1];
    if (!mg->g || !mg->ops || (gi && !reached(&fx, seen, mg->g->name))) continue;
    for (uint32_t i = 0; i < mg->g->n_nodes; i++) {
      const tfx_node *nd = &mg->g->nodes[i];
      if (by_id && (nd->op_id == TFX_HASH_NONE ||
                    (nd->op_id != var_ids[0] && nd->op_id != var_ids[1] &&
                     nd->op_id != var_ids[2] && nd->op_id != var_ids[3])))
        continue;
      if (!is_variable_node(mg->g, nd)) continue;
      if (!n++) first = nd->name;
      const char *msg = ck ? msg_unres : msg_none;
      for (size_t k = 0; gi == 0 && ck && k < ck->n_missing; k++)
        if (strcmp(ck->missing_var[k], nd->name) == 0) {
          missing_var = ck->missing_var[k];
          missing_key = ck->missing_key[k];
          tfx_strbuf sb;
          tfx_sb_init(&sb);
          tfx_sb_printf(&sb, "tensor '%s' is not in the checkpoint %s", missing_key, ck->index_path);
          msg = sb.oom ? NULL : tfx_arena_strdup(&om->arena, tfx_sb_cstr(&sb));
          tfx_sb_free(&sb);
        }
      fail_op(om, &mg->ops[i], msg ? msg : "a variable without weights");
    }
  }
  fn_index_free(&fx);
  free(seen);
  free(stack);
  if (!n || o->check_only) return 0; /* --check: the report lists them */
  if (missing_var) {
    tfx_error(ctx->diag, ctx->model.path, 0, 0, "variable '%s': tensor '%s' is not in the "
              "checkpoint %s", missing_var, missing_key, ck->index_path);
    return TFX_E_INPUT;
  }
  if (ck)
    tfx_error(ctx->diag, ctx->model.path, 0, 0, "%u variable node%s (first: '%s') would reach "
              "lowering without weights although checkpoint %s was read: the outputs need a "
              "variable the freezing could not resolve; --no-freeze keeps variables as they are",
              n, n == 1 ? "" : "s", first, ck->prefix);
  else
    tfx_error(ctx->diag, ctx->model.path, 0, 0, "%u variable node%s (first: '%s') would reach "
              "lowering without weights: no checkpoint found: give --checkpoint PREFIX or a "
              "SavedModel directory (--no-freeze keeps variables as they are)",
              n, n == 1 ? "" : "s", first);
  return TFX_E_FAIL;
}
