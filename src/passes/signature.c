/* Signatures: choosing one, trimming the graph to it (see signature.h).
 * Stage: passes/PRUNE. Input: ctx->model and the parsed --input-shape list. Output: the
 * trimmed GraphDef (model arena) and ctx->prune. Deterministic: signature order is key order. */
#include "passes/signature.h"

#include <stdlib.h>
#include <string.h>

#include "util/status.h"
#include "util/hash.h"
#include "util/strbuf.h"

const Tensorflow__MetaGraphDef *tfx_sig_meta_graph(const tfx_model *m) {
  if (!m || !m->root) return NULL;
  if (m->kind == TFX_MSG_METAGRAPHDEF) return (const Tensorflow__MetaGraphDef *)m->root;
  if (m->kind == TFX_MSG_SAVEDMODEL) {
    const Tensorflow__SavedModel *sm = (const Tensorflow__SavedModel *)m->root;
    for (size_t i = 0; i < sm->n_meta_graphs; i++)
      if (sm->meta_graphs[i] && sm->meta_graphs[i]->graph_def == m->graph) return sm->meta_graphs[i];
  }
  return NULL;
}

/* ---------------------------------------------------------------- sorting */

typedef struct keyed {
  const char *key;
  size_t i;
} keyed;

static int by_key(const void *x, const void *y) {
  const keyed *a = x, *b = y;
  int c = strcmp(a->key, b->key);
  return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int sort_keys(const char *const *keys, size_t n, size_t **idx, size_t *nout) {
  *idx = NULL;
  *nout = 0;
  if (n == 0) return 0;
  keyed *k = tfx_malloc(n * sizeof *k);
  size_t *r = tfx_malloc(n * sizeof *r);
  if (!k || !r) {
    free(k);
    free(r);
    return -1;
  }
  for (size_t i = 0; i < n; i++) k[i].key = keys[i] ? keys[i] : "", k[i].i = i;
  qsort(k, n, sizeof *k, by_key);
  for (size_t i = 0; i < n; i++) r[i] = k[i].i;
  free(k);
  *idx = r;
  *nout = n;
  return 0;
}

int tfx_sig_sorted(const Tensorflow__MetaGraphDef *mg, size_t **idx, size_t *n) {
  size_t m = mg ? mg->n_signature_def : 0;
  const char **keys = m ? tfx_malloc(m * sizeof *keys) : NULL;
  if (m && !keys) return -1;
  for (size_t i = 0; i < m; i++) keys[i] = mg->signature_def[i] ? mg->signature_def[i]->key : "";
  int rc = sort_keys(keys, m, idx, n);
  free(keys);
  return rc;
}

int tfx_sig_sorted_ports(const Tensorflow__SignatureDef *s, int outputs, size_t **idx, size_t *n) {
  size_t m = !s ? 0 : outputs ? s->n_outputs : s->n_inputs;
  const char **keys = m ? tfx_malloc(m * sizeof *keys) : NULL;
  if (m && !keys) return -1;
  for (size_t i = 0; i < m; i++) {
    const char *k = outputs ? (s->outputs[i] ? s->outputs[i]->key : "")
                            : (s->inputs[i] ? s->inputs[i]->key : "");
    keys[i] = k;
  }
  int rc = sort_keys(keys, m, idx, n);
  free(keys);
  return rc;
}

/* ---------------------------------------------------------------- choosing */

static int reserved_name(const char *s) { return strncmp(s, "__saved_model_", 14) == 0; }

const Tensorflow__MetaGraphDef__SignatureDefEntry *tfx_sig_default(const Tensorflow__MetaGraphDef *mg) {
  const Tensorflow__MetaGraphDef__SignatureDefEntry *only = NULL;
  size_t usable = 0;
  for (size_t k = 0; mg && k < mg->n_signature_def; k++) {
    const Tensorflow__MetaGraphDef__SignatureDefEntry *e = mg->signature_def[k];
    const char *key = e && e->key ? e->key : "";
    if (strcmp(key, "serving_default") == 0) return e;
    if (!reserved_name(key)) usable++, only = e;
  }
  return usable == 1 ? only : NULL;
}

/* "a, b, c" of the signature names (sorted) into sb. */
static void list_names(const Tensorflow__MetaGraphDef *mg, const size_t *idx, size_t n, tfx_strbuf *sb) {
  for (size_t k = 0; k < n; k++) {
    const Tensorflow__MetaGraphDef__SignatureDefEntry *e = mg->signature_def[idx[k]];
    if (k) tfx_sb_puts(sb, ", ");
    tfx_sb_putc(sb, '\'');
    tfx_sb_puts(sb, e && e->key ? e->key : "");
    tfx_sb_putc(sb, '\'');
  }
}

int tfx_sig_choose(tfx_ctx *ctx, const Tensorflow__SignatureDef **sig, const char **name) {
  *sig = NULL;
  *name = NULL;
  const tfx_options *o = ctx->opts;
  const char *want = o ? o->signature : NULL;
  const char *file = ctx->model.path;
  const Tensorflow__MetaGraphDef *mg = tfx_sig_meta_graph(&ctx->model);
  size_t *idx = NULL, n = 0;
  if (tfx_sig_sorted(mg, &idx, &n) != 0) {
    tfx_error(ctx->diag, file, 0, 0, "out of memory");
    return TFX_E_NOMEM;
  }
  int rc = 0;
  const Tensorflow__MetaGraphDef__SignatureDefEntry *pick = NULL;
  if (want) {
    for (size_t k = 0; k < n && !pick; k++) {
      const Tensorflow__MetaGraphDef__SignatureDefEntry *e = mg->signature_def[idx[k]];
      if (e && e->key && strcmp(e->key, want) == 0) pick = e;
    }
    if (!pick) {
      if (n == 0) {
        tfx_error(ctx->diag, file, 0, 0, "--signature '%s': the model has no signatures (%s)", want,
                  mg ? "its MetaGraphDef has no signature_def" : "a GraphDef has none: signatures "
                  "come with a MetaGraphDef or a SavedModel");
      } else {
        tfx_strbuf sb;
        tfx_sb_init(&sb);
        list_names(mg, idx, n, &sb);
        tfx_error(ctx->diag, file, 0, 0, "--signature '%s': the model has no signature of that name; "
                  "available: %s", want, sb.oom ? "(out of memory)" : tfx_sb_cstr(&sb));
        tfx_sb_free(&sb);
      }
      rc = TFX_E_INPUT;
    }
  } else if (n) {
    size_t usable = 0;
    for (size_t k = 0; k < n; k++) {
      const Tensorflow__MetaGraphDef__SignatureDefEntry *e = mg->signature_def[k];
      usable += !reserved_name(e && e->key ? e->key : "");
    }
    pick = tfx_sig_default(mg);
    if (!pick && usable > 1) {
      tfx_strbuf sb;
      tfx_sb_init(&sb);
      list_names(mg, idx, n, &sb);
      tfx_warning(ctx->diag, file, 0, 0, "the model has %zu signatures and none is named "
                  "'serving_default': no signature is used, the outputs are the graph's own; "
                  "choose one with --signature NAME (%s)", usable,
                  sb.oom ? "(out of memory)" : tfx_sb_cstr(&sb));
      tfx_sb_free(&sb);
    }
  }
  if (pick && !pick->value) {
    tfx_error(ctx->diag, file, 0, 0, "signature '%s' is empty", pick->key);
    rc = TFX_E_INPUT;
    pick = NULL;
  }
  if (pick) {
    *sig = pick->value;
    *name = pick->key;
  }
  free(idx);
  return rc;
}

/* ---------------------------------------------------------------- applying */

/* Splits a TensorInfo name "node:port" (a bare "node" is port 0). Returns 0, or -1 when the
 * port is not a decimal number. */
static int split_tensor(tfx_arena *a, const char *s, const char **node, int32_t *port) {
  const char *c = strrchr(s, ':');
  *port = 0;
  if (!c) {
    *node = s;
    return 0;
  }
  if (!c[1]) return -1;
  long v = 0;
  for (const char *p = c + 1; *p; p++) {
    if (*p < '0' || *p > '9' || v > 100000000) return -1;
    v = v * 10 + (*p - '0');
  }
  *port = (int32_t)v;
  *node = tfx_arena_strndup(a, s, (size_t)(c - s));
  return *node ? 0 : -2;
}

static Tensorflow__AttrValue *node_attr(Tensorflow__NodeDef *nd, const char *key) {
  for (size_t k = 0; k < nd->n_attr; k++)
    if (nd->attr[k] && nd->attr[k]->key && strcmp(nd->attr[k]->key, key) == 0) return nd->attr[k]->value;
  return NULL;
}

typedef struct sig_in {
  const char *key;
  const char *node;
  int dtype;         /* signature dtype; 0 = not given */
  int unknown_rank;  /* no usable shape: the Placeholder's shape gets unknown_rank */
  int user_shape;    /* an --input-shape entry set the shape */
} sig_in;

int tfx_sig_apply(tfx_ctx *ctx, const Tensorflow__SignatureDef *sig, const char *name,
                  const tfx_prune_shape *shapes, uint32_t n_shapes) {
  tfx_arena *a = &ctx->model.arena;
  tfx_diag *d = ctx->diag;
  const char *file = ctx->model.path;
  Tensorflow__GraphDef *gd = ctx->model.graph;
  size_t *ii = NULL, ni = 0, *oi = NULL, no = 0;
  sig_in *in = NULL;
  tfx_prune_shape *all = NULL;
  tfx_prune_out *outs = NULL;
  tfx_hmap names;
  tfx_hmap_init(&names);
  int rc = TFX_E_INPUT, errs = 0;
  if (tfx_sig_sorted_ports(sig, 0, &ii, &ni) || tfx_sig_sorted_ports(sig, 1, &oi, &no)) goto nomem;
  if (no == 0) {
    tfx_error(d, file, 0, 0, "signature '%s' has no outputs", name);
    goto out;
  }
  size_t nall = ni + n_shapes;
  in = tfx_calloc(ni ? ni : 1, sizeof *in);
  all = tfx_arena_calloc(a, nall ? nall : 1, sizeof *all);
  outs = tfx_arena_calloc(a, no, sizeof *outs);
  if (!in || !all || !outs || tfx_hmap_reserve(&names, gd->n_node) < 0) goto nomem;
  for (size_t i = 0; i < gd->n_node; i++) {
    const char *nm = gd->node[i] && gd->node[i]->name ? gd->node[i]->name : "";
    uint32_t ex;
    if (tfx_hmap_put(&names, nm, strlen(nm), (uint32_t)i, &ex) < 0) goto nomem;
  }
  /* inputs, in key order; a node named twice counts once (its first key) */
  uint32_t na = 0;
  size_t nin = 0;
  for (size_t k = 0; k < ni; k++) {
    const Tensorflow__SignatureDef__InputsEntry *e = sig->inputs[ii[k]];
    const char *key = e && e->key ? e->key : "";
    const Tensorflow__TensorInfo *t = e ? e->value : NULL;
    if (!t || t->encoding_case != TENSORFLOW__TENSOR_INFO__ENCODING_NAME || !t->name) {
      tfx_error(d, file, 0, 0, "signature '%s': input '%s' is %s: only dense tensors can be model "
                "inputs", name, key, !t ? "empty" : t->encoding_case == TENSORFLOW__TENSOR_INFO__ENCODING_COO_SPARSE
                ? "a sparse tensor" : t->encoding_case == TENSORFLOW__TENSOR_INFO__ENCODING_COMPOSITE_TENSOR
                ? "a composite tensor" : "not named");
      errs++;
      continue;
    }
    const char *node;
    int32_t port;
    int sr = split_tensor(a, t->name, &node, &port);
    if (sr == -2) goto nomem;
    if (sr < 0) {
      tfx_error(d, file, 0, 0, "signature '%s': input '%s' names tensor '%s', which is not "
                "NODE:PORT", name, key, t->name);
      errs++;
      continue;
    }
    if (tfx_hmap_get(&names, node, strlen(node)) == TFX_HASH_NONE) {
      tfx_error(d, file, 0, 0, "signature '%s': input '%s' names tensor '%s', but the graph has "
                "no node '%s'", name, key, t->name, node);
      errs++;
      continue;
    }
    if (port != 0) {
      tfx_error(d, file, 0, 0, "signature '%s': input '%s' is output %d of node '%s': only "
                "output 0 of a node can become a model input (give --out-nodes and --input-shape "
                "instead)", name, key, (int)port, node);
      errs++;
      continue;
    }
    size_t dup = 0;
    while (dup < nin && strcmp(in[dup].node, node) != 0) dup++;
    if (dup < nin) continue;
    sig_in *s = &in[nin++];
    s->key = key;
    s->node = node;
    s->dtype = (int)t->dtype;
    tfx_prune_shape *sh = &all[na++];
    sh->name = node;
    for (uint32_t u = 0; u < n_shapes; u++)
      if (strcmp(shapes[u].name, node) == 0) *sh = shapes[u], s->user_shape = 1;
    if (s->user_shape) continue;
    const Tensorflow__TensorShapeProto *tp = t->tensor_shape;
    if (!tp || tp->unknown_rank) {
      s->unknown_rank = 1; /* the shape attr is fixed below */
      continue;
    }
    sh->n_dims = (uint32_t)tp->n_dim;
    sh->dims = tp->n_dim ? tfx_arena_calloc(a, tp->n_dim, sizeof *sh->dims) : NULL;
    if (tp->n_dim && !sh->dims) goto nomem;
    for (size_t q = 0; q < tp->n_dim; q++)
      sh->dims[q] = tp->dim[q] && tp->dim[q]->size >= 0 ? tp->dim[q]->size : -1;
  }
  /* extra --input-shape entries (not a signature input) */
  for (uint32_t u = 0; u < n_shapes; u++) {
    size_t k = 0;
    while (k < nin && strcmp(in[k].node, shapes[u].name) != 0) k++;
    if (k == nin) all[na++] = shapes[u];
  }
  for (size_t k = 0; k < no; k++) {
    const Tensorflow__SignatureDef__OutputsEntry *e = sig->outputs[oi[k]];
    const char *key = e && e->key ? e->key : "";
    const Tensorflow__TensorInfo *t = e ? e->value : NULL;
    if (!t || t->encoding_case != TENSORFLOW__TENSOR_INFO__ENCODING_NAME || !t->name) {
      tfx_error(d, file, 0, 0, "signature '%s': output '%s' is %s: only dense tensors can be model "
                "outputs", name, key, !t ? "empty" : "a sparse or composite tensor");
      errs++;
      continue;
    }
    int sr = split_tensor(a, t->name, &outs[k].name, &outs[k].port);
    if (sr == -2) goto nomem;
    if (sr < 0) {
      tfx_error(d, file, 0, 0, "signature '%s': output '%s' names tensor '%s', which is not "
                "NODE:PORT", name, key, t->name);
      errs++;
    } else if (tfx_hmap_get(&names, outs[k].name, strlen(outs[k].name)) == TFX_HASH_NONE) {
      tfx_error(d, file, 0, 0, "signature '%s': output '%s' names tensor '%s', but the graph has "
                "no node '%s'", name, key, t->name, outs[k].name);
      errs++;
    }
  }
  if (errs) goto out;
  tfx_prune_opts po = {all, na, outs, (uint32_t)no};
  int pr = tfx_prune_graphdef(gd, &po, a, file, d);
  if (pr) {
    rc = pr == TFX_E_USAGE ? TFX_E_INPUT : pr;
    goto out;
  }
  /* dtypes, unknown ranks, and the signature inputs first, in signature order */
  tfx_hmap_free(&names);
  tfx_hmap_init(&names);
  if (tfx_hmap_reserve(&names, gd->n_node) < 0) goto nomem;
  for (size_t i = 0; i < gd->n_node; i++) {
    uint32_t ex;
    if (tfx_hmap_put(&names, gd->node[i]->name, strlen(gd->node[i]->name), (uint32_t)i, &ex) < 0)
      goto nomem;
  }
  Tensorflow__NodeDef **order = tfx_arena_calloc(a, gd->n_node ? gd->n_node : 1, sizeof *order);
  uint8_t *moved = tfx_calloc(gd->n_node ? gd->n_node : 1, 1);
  if (!order || !moved) {
    free(moved);
    goto nomem;
  }
  size_t w = 0;
  for (size_t k = 0; k < nin; k++) {
    uint32_t id = tfx_hmap_get(&names, in[k].node, strlen(in[k].node));
    if (id == TFX_HASH_NONE || moved[id]) continue;
    Tensorflow__NodeDef *nd = gd->node[id];
    Tensorflow__AttrValue *dt = node_attr(nd, "dtype");
    if (in[k].dtype && dt && dt->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE &&
        (int)dt->type != in[k].dtype) {
      const ProtobufCEnumValue *x = protobuf_c_enum_descriptor_get_value(&tensorflow__data_type__descriptor, in[k].dtype);
      const ProtobufCEnumValue *y = protobuf_c_enum_descriptor_get_value(&tensorflow__data_type__descriptor, (int)dt->type);
      tfx_error(d, file, 0, 0, "signature '%s': input '%s' has dtype %s, but its node '%s' has "
                "dtype %s", name, in[k].key, x ? x->name : "?", nd->name, y ? y->name : "?");
      errs++;
    } else if (in[k].dtype && dt && dt->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE) {
      dt->type = (Tensorflow__DataType)in[k].dtype;
    }
    Tensorflow__AttrValue *sh = node_attr(nd, "shape");
    if (in[k].unknown_rank && sh && sh->value_case == TENSORFLOW__ATTR_VALUE__VALUE_SHAPE && sh->shape) {
      sh->shape->n_dim = 0;
      sh->shape->dim = NULL;
      sh->shape->unknown_rank = 1;
    }
    moved[id] = 1;
    order[w++] = nd;
  }
  for (size_t i = 0; i < gd->n_node; i++)
    if (!moved[i]) order[w++] = gd->node[i];
  free(moved);
  if (errs) goto out;
  gd->node = order;
  /* the lowering reads Data shapes from the user's --input-shape entries and the NetOutput
   * order from outs */
  ctx->prune.shapes = shapes;
  ctx->prune.n_shapes = n_shapes;
  ctx->prune.outs = outs;
  ctx->prune.n_outs = (uint32_t)no;
  if (ctx->opts && ctx->opts->verbose > 0)
    tfx_diag_add(d, TFX_SEV_NOTE, file, 0, 0, "signature '%s': %zu input%s, %zu output%s", name,
                 nin, nin == 1 ? "" : "s", no, no == 1 ? "" : "s");
  rc = 0;
  goto out;
nomem:
  tfx_error(d, file, 0, 0, "out of memory while applying signature '%s'", name);
  rc = TFX_E_FAIL;
out:
  tfx_hmap_free(&names);
  free(ii);
  free(oi);
  free(in);
  return rc;
}
