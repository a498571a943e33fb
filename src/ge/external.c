/* External weight files for GE models too large for one .air (docs/AIR.md §12.1, GE's
 * "separated" Const: metadef model_serialize.cc SeparateModelDef / SetWeightForModel).
 * Stage: ge (after lowering, before the air emitter). Input: a lowered tfx_ge_model and the
 * threshold (--limit external-weights). Output: the model edited in place -- every Const /
 * Constant op whose `value` TensorDef holds data gets that data moved out: the TensorDef keeps
 * its desc with empty data, attr `location` (string) = the file's path relative to the .air's
 * directory, attr `length` (int) = the byte count -- and the list of files to write (paths and
 * byte ranges borrowed from the model's arena or, for a tensor_content, from the TF model the
 * TensorDef borrows them from; nothing is copied).
 *
 * When: the model's serialized size would be larger than the threshold (default 2 GiB - 1, the
 * most one .air can hold). The size is measured (protobuf_c_message_get_packed_size: a walk,
 * no copy) only when the weights alone are at least half the threshold; below that the
 * structure would have to be as large as the weights, and the air emitter's own size check
 * still refuses such a model.
 * Which: every Const/Constant with data, as GE's SeparateModelDef does (it moves all of them).
 * Names: `air_weight/<model name>/<type>_<graph>_<op>_file`, GE's scheme, with '/', '\\' and
 * '.' replaced by '_' in the model name and in the tag (GE's GetRegulatedName); a name that
 * clashes with an earlier one gets `_<n>` before `_file`. GE's loader reads each file back
 * relative to the .air's directory and requires its size to equal `length`. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ge/ge.h"
#include "ge/lower_int.h"
#include "util/status.h"
#include "util/hash.h"

size_t tfx_ge_external_default(void) { return (size_t)INT_MAX; }

int tfx_ge_const_weight(const Ge__Proto__OpDef *op, Ge__Proto__TensorDef **t) {
  *t = NULL;
  if (!op || !op->type || (strcmp(op->type, "Const") != 0 && strcmp(op->type, "Constant") != 0))
    return 0;
  const Ge__Proto__AttrDef *v = tfx_ge_op_attr_get(op, "value");
  if (!v || v->value_case != GE__PROTO__ATTR_DEF__VALUE_T || !v->t || v->t->data.len == 0) return 0;
  *t = v->t;
  return 1;
}

/* GE's GetRegulatedName: '/', '\\' and '.' become '_'. Appends to out. */
static void regulated(tfx_strbuf *out, const char *s) {
  for (; s && *s; s++) tfx_sb_putc(out, *s == '/' || *s == '\\' || *s == '.' ? '_' : *s);
}

void tfx_ge_external_free(tfx_ge_external *x) {
  if (!x) return;
  free(x->files);
  x->files = NULL;
  x->n = 0;
}

int tfx_ge_externalize(tfx_ge_model *gm, size_t threshold, tfx_ge_external *out, tfx_diag *d) {
  out->files = NULL;
  out->n = 0;
  Ge__Proto__ModelDef *m = gm ? gm->model : NULL;
  if (!m) return 0;
  if (threshold == 0) threshold = tfx_ge_external_default();
  size_t weights = 0, count = 0;
  for (size_t g = 0; g < m->n_graph; g++)
    for (size_t i = 0; m->graph[g] && i < m->graph[g]->n_op; i++) {
      Ge__Proto__TensorDef *t;
      if (tfx_ge_const_weight(m->graph[g]->op[i], &t)) {
        weights += t->data.len < SIZE_MAX - weights ? t->data.len : SIZE_MAX - weights;
        count++;
      }
    }
  if (count == 0 || weights < threshold / 2) return 0;
  if (weights <= threshold && protobuf_c_message_get_packed_size(&m->base) <= threshold) return 0;

  tfx_arena *A = &gm->arena;
  out->files = tfx_calloc(count, sizeof *out->files);
  tfx_hmap seen;
  tfx_hmap_init(&seen);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  if (!out->files || tfx_hmap_reserve(&seen, count) < 0) goto nomem;
  for (size_t g = 0; g < m->n_graph; g++) {
    Ge__Proto__GraphDef *gd = m->graph[g];
    for (size_t i = 0; gd && i < gd->n_op; i++) {
      Ge__Proto__OpDef *op = gd->op[i];
      Ge__Proto__TensorDef *t;
      if (!tfx_ge_const_weight(op, &t)) continue;
      if (t->data.len > (size_t)INT64_MAX) goto nomem;
      /* air_weight/<model>/<type>_<graph>_<op>[_n]_file */
      tfx_sb_reset(&sb);
      tfx_sb_puts(&sb, "air_weight/");
      if (m->name && *m->name) {
        regulated(&sb, m->name);
        tfx_sb_putc(&sb, '/');
      }
      size_t tag_at = sb.len;
      regulated(&sb, op->type);
      tfx_sb_putc(&sb, '_');
      regulated(&sb, gd->name);
      tfx_sb_putc(&sb, '_');
      regulated(&sb, op->name);
      size_t base = sb.len;
      char *path = NULL;
      for (unsigned k = 1;; k++) {
        sb.len = base;
        if (k > 1) tfx_sb_printf(&sb, "_%u", k);
        tfx_sb_puts(&sb, "_file");
        if (sb.oom) goto nomem;
        path = tfx_arena_strndup(A, sb.data, sb.len);
        if (!path) goto nomem;
        uint32_t ex;
        int r = tfx_hmap_put(&seen, path + tag_at, sb.len - tag_at, (uint32_t)out->n, &ex);
        if (r < 0) goto nomem;
        if (r == 1) break;
      }
      Ge__Proto__AttrDef *loc = tfx_ge_attr_str(A, path);
      Ge__Proto__AttrDef *len = tfx_ge_attr_int(A, (int64_t)t->data.len);
      if (!loc || !len || tfx_ge_op_attr_set(A, op, "location", loc) ||
          tfx_ge_op_attr_set(A, op, "length", len))
        goto nomem;
      tfx_ge_extfile *f = &out->files[out->n++];
      f->path = path;
      f->data = t->data.data;
      f->len = t->data.len;
      t->data.data = NULL;
      t->data.len = 0;
    }
  }
  tfx_ge_sort_maps(m);
  tfx_hmap_free(&seen);
  tfx_sb_free(&sb);
  return 0;
nomem:
  /* the run fails: the half-edited model is never emitted */
  tfx_error(d, NULL, 0, 0, "out of memory moving weights to external files");
  tfx_hmap_free(&seen);
  tfx_sb_free(&sb);
  tfx_ge_external_free(out);
  return TFX_E_FAIL;
}
