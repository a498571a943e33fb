/* The stdlib's TF op definitions (<stdlib>/ops/tf-ops.tsv) as the rule checker's TF hook
 * (rules/load.h tfx_rules_tfops): op lookup with attribute names, and "did you mean" over op
 * names. Stage: cann (adapter, like passes/rules_protos.c; only rules/load.h's types are used). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "cann/cann_int.h"
#include "rules/load.h"
#include "util/status.h"

struct tfx_tf_view {
  const tfx_tf_table **tables; /* user tables in -r order, then the stdlib's */
  uint32_t n_tables;
  const tfx_hmap *extra;       /* <stdlib>/ops/tf-ops-extra.tsv: known without a definition */
  const char **op_names;       /* every table's op names, table after table */
  uint32_t n_op_names;
  const char *attr_buf[256];   /* tf_lookup's answer (valid until the next lookup) */
  tfx_rules_tfops hook;
};

static const tfx_tf_op *find(const tfx_tf_view *v, const char *type) {
  for (uint32_t k = 0; k < v->n_tables; k++) {
    const tfx_tf_op *op = tfx_tf_op_find(v->tables[k], type);
    if (op) return op;
  }
  return NULL;
}

/* Attribute names of the op, in the view's buffer (valid until the next lookup: sema uses
 * them before asking again). */
static int tf_lookup(void *ctx, const char *type, const char *const **attrs, size_t *n) {
  tfx_tf_view *v = ctx;
  const tfx_tf_op *op = find(v, type);
  if (!op) return v->extra && tfx_hmap_get(v->extra, type, strlen(type)) != TFX_HASH_NONE ? 2 : 0;
  size_t k = 0;
  for (uint32_t j = 0; j < op->n_attrs && k < 256; j++) v->attr_buf[k++] = op->attrs[j].name;
  *attrs = v->attr_buf;
  *n = k;
  return 1;
}

static size_t tf_similar(void *ctx, const char *name, const char **out, size_t max) {
  const tfx_tf_view *v = ctx;
  return tfx_names_similar(v->op_names, v->n_op_names, name, out, max);
}

/* The stdlib's extra TF type names (tf-ops-extra.tsv): built once, under a lock, and immutable
 * afterwards (sessions in several threads share it; a failed build is retried and reported). */
static tfx_status build_extra(tfx_hmap *extra, tfx_diag *d) {
  const tfx_embedded_file *x = tfx_cann_embedded("<stdlib>/ops/tf-ops-extra.tsv", d);
  if (!x) return TFX_E_FAIL; /* a broken build (reported) */
  tfx_hmap_init(extra);
  /* "name<TAB>reason" lines, '#' comments; the keys point into the embedded text */
  const char *p = x->data, *end = x->data + x->len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
    const char *tab = memchr(p, '\t', (size_t)(le - p));
    if (*p != '#' && tab && tab > p && tfx_hmap_put(extra, p, (size_t)(tab - p), 1, NULL) < 0) {
      tfx_error(d, NULL, 0, 0, "out of memory building the TF op table view");
      tfx_hmap_free(extra);
      return TFX_E_NOMEM;
    }
    p = le + 1;
  }
  return TFX_OK;
}

/* The shared extra list, or NULL with *st set (reported). */
static const tfx_hmap *stdlib_extra(tfx_status *st, tfx_diag *d) {
  static tfx_hmap extra;
  static atomic_int state; /* 0 not built, 1 built */
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  if (atomic_load_explicit(&state, memory_order_acquire) == 1) return &extra;
  pthread_mutex_lock(&lock);
  int ok = atomic_load_explicit(&state, memory_order_relaxed) == 1;
  if (!ok && (*st = build_extra(&extra, d)) == TFX_OK) {
    atomic_store_explicit(&state, 1, memory_order_release);
    ok = 1;
  }
  pthread_mutex_unlock(&lock);
  return ok ? &extra : NULL;
}

tfx_tf_view *tfx_tf_view_new(const tfx_tf_table *const *user, uint32_t n_user, tfx_status *st,
                             tfx_diag *d) {
  tfx_status dummy;
  if (!st) st = &dummy;
  *st = TFX_E_NOMEM; /* tfx_tf_ops_stdlib fails only for memory */
  const tfx_tf_table *std = tfx_tf_ops_stdlib(d);
  const tfx_hmap *extra = std ? stdlib_extra(st, d) : NULL;
  if (!std || !extra) return NULL;
  *st = TFX_E_NOMEM;
  tfx_tf_view *v = tfx_calloc(1, sizeof *v);
  uint32_t total = std->n_ops;
  for (uint32_t k = 0; k < n_user; k++) total += user[k]->n_ops;
  if (v) v->tables = tfx_calloc(n_user + 1, sizeof *v->tables);
  if (v) v->op_names = tfx_calloc(total ? total : 1, sizeof *v->op_names);
  if (!v || !v->tables || !v->op_names) {
    tfx_tf_view_free(v);
    tfx_error(d, NULL, 0, 0, "out of memory building the TF op table view");
    return NULL;
  }
  *st = TFX_OK;
  for (uint32_t k = 0; k < n_user; k++) v->tables[v->n_tables++] = user[k];
  v->tables[v->n_tables++] = std;
  for (uint32_t k = 0; k < v->n_tables; k++)
    for (uint32_t i = 0; i < v->tables[k]->n_ops; i++) v->op_names[v->n_op_names++] = v->tables[k]->ops[i].name;
  v->extra = extra;
  v->hook = (tfx_rules_tfops){tf_lookup, tf_similar, v};
  return v;
}

void tfx_tf_view_free(tfx_tf_view *v) {
  if (!v) return;
  free(v->tables);
  free(v->op_names);
  free(v);
}

const struct tfx_rules_tfops *tfx_tf_view_hook(const tfx_tf_view *v) { return v ? &v->hook : NULL; }

const struct tfx_rules_tfops *tfx_cann_stdlib_tfops(tfx_diag *d) {
  static tfx_tf_view *shared;
  if (!shared) shared = tfx_tf_view_new(NULL, 0, NULL, d);
  return shared ? &shared->hook : NULL;
}
