/* The stdlib's TF op definitions (<stdlib>/ops/tf-ops.tsv) as the rule checker's TF hook
 * (rules/load.h tfx_rules_tfops): op lookup with attribute names, and "did you mean" over op
 * names. Stage: cann (adapter, like rules_protos.c; only rules/load.h's types are used). */
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "cann/cann_int.h"
#include "rules/load.h"

typedef struct tf_view {
  const tfx_tf_table *t;
  tfx_hmap extra;            /* <stdlib>/ops/tf-ops-extra.tsv: known without a definition */
  const char **op_names;     /* per op */
  const char **attr_names;   /* all ops' attribute names, op after op */
  uint32_t *attr_first;      /* per op: index into attr_names */
  tfx_rules_tfops hook;
} tf_view;

static int tf_lookup(void *ctx, const char *type, const char *const **attrs, size_t *n) {
  const tf_view *v = ctx;
  const tfx_tf_op *op = tfx_tf_op_find(v->t, type);
  if (!op) return tfx_hmap_get(&v->extra, type, strlen(type)) != TFX_HASH_NONE ? 2 : 0;
  uint32_t i = (uint32_t)(op - v->t->ops);
  *attrs = v->attr_names + v->attr_first[i];
  *n = op->n_attrs;
  return 1;
}

static size_t tf_similar(void *ctx, const char *name, const char **out, size_t max) {
  const tf_view *v = ctx;
  return tfx_names_similar(v->op_names, v->t->n_ops, name, out, max);
}

const struct tfx_rules_tfops *tfx_cann_stdlib_tfops(tfx_diag *d) {
  static tf_view view;
  static int done;
  if (done) return &view.hook;
  const tfx_tf_table *t = tfx_tf_ops_stdlib(d);
  if (!t) return NULL;
  size_t total = 0;
  for (uint32_t i = 0; i < t->n_ops; i++) total += t->ops[i].n_attrs;
  const char **on = tfx_calloc(t->n_ops ? t->n_ops : 1, sizeof *on);
  const char **an = tfx_calloc(total ? total : 1, sizeof *an);
  uint32_t *af = tfx_calloc(t->n_ops ? t->n_ops : 1, sizeof *af);
  if (!on || !an || !af) {
    free(on);
    free(an);
    free(af);
    tfx_error(d, NULL, 0, 0, "out of memory building the TF op table view");
    return NULL;
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < t->n_ops; i++) {
    on[i] = t->ops[i].name;
    af[i] = k;
    for (uint32_t j = 0; j < t->ops[i].n_attrs; j++) an[k++] = t->ops[i].attrs[j].name;
  }
  view = (tf_view){t, {0}, on, an, af, {tf_lookup, tf_similar, NULL}};
  tfx_hmap_init(&view.extra);
  view.hook.ctx = &view;
  /* the extra list: "name<TAB>reason" lines, '#' comments; names point into the embedded text */
  const tfx_embedded_file *x = tfx_cann_embedded("<stdlib>/ops/tf-ops-extra.tsv", d);
  if (!x) return NULL;
  const char *p = x->data, *end = x->data + x->len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
    const char *tab = memchr(p, '\t', (size_t)(le - p));
    if (*p != '#' && tab && tab > p && tfx_hmap_put(&view.extra, p, (size_t)(tab - p), 1, NULL) < 0) {
      tfx_error(d, NULL, 0, 0, "out of memory building the TF op table view");
      return NULL;
    }
    p = le + 1;
  }
  done = 1;
  return &view.hook;
}
