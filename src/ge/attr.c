/* GE attributes: TF AttrValue -> AttrDef with Ascend's AutoMapping conversion, rule values ->
 * AttrDef typed by the CANN prototype, TensorProto / rule values -> TensorDef, map setters and
 * the final key sort of every map in a ModelDef.
 * Stage: ge (used by lowering). Input: borrowed TF messages and rule values. Output: messages
 * in the caller's arena; payloads are copied, except a TensorProto's tensor_content, which the
 * TensorDef's data borrows (the input must outlive the output).
 * Conversions (docs/ASCEND.md §6.2, §6.4; docs/AIR.md §6.3-6.4, §10):
 *  s -> s (bytes), i -> i, f -> f, b -> b, type -> dt (C++ ge::DataType number), shape ->
 *  list.i with VT_LIST_INT (unknown rank -> [-1], AutoMapping's UNKNOWN_SHAPE), tensor -> t,
 *  func -> func (NamedAttrs, attrs converted recursively), placeholder -> s; list(s/i/f/b/
 *  type/tensor/func) -> list with val_type VT_LIST_STRING/INT/FLOAT/BOOL/DATA_TYPE/TENSOR/
 *  NAMED_ATTRS, list(shape) -> list_list_int. Every list gets its val_type (docs/AIR.md §6.3).
 * Tensors: tensor_content is used as is (borrowed); otherwise the typed *_val field is expanded to the
 * element count, a shorter field repeating its last value (TF's splat rule; no values = zeros).
 * half_val carries FLOAT16 and BFLOAT16 as int32 bit patterns. Data is little-endian.
 * DT_STRING tensors: GE's string tensor layout (header + offsets) is unknown (docs/AIR.md §14); tfxc
 * writes the string_val bytes concatenated (or tensor_content as is). GE does not size-check
 * DT_STRING consts (docs/AIR.md §10.2), so such a file loads, but the values may be misread. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ge/lower_int.h"

/* ---------------------------------------------------------------- arrays and maps */

void *tfx_ge_grow(tfx_arena *A, void *arr, size_t n, size_t elem) {
  /* capacity: 0 -> 4 -> 8 -> 16 ...: room unless n is 0 or a power of two >= 4 */
  if (n > 0 && (n < 4 || (n & (n - 1)) != 0)) return arr;
  size_t cap = n ? n * 2 : 4;
  if (cap < n || cap > SIZE_MAX / elem) return NULL;
  void *v = tfx_arena_alloc(A, cap * elem);
  if (!v) return NULL;
  if (n) memcpy(v, arr, n * elem);
  return v;
}

int tfx_ge_push_ptr(tfx_arena *A, void ***arr, size_t *n, void *p) {
  void **v = tfx_ge_grow(A, *arr, *n, sizeof *v);
  if (!v) return -1;
  v[(*n)++] = p;
  *arr = v;
  return 0;
}

TFX_GE_MAP_SET(op_attr_set, Ge__Proto__OpDef, Ge__Proto__OpDef__AttrEntry,
               ge__proto__op_def__attr_entry__init)
TFX_GE_MAP_SET(na_attr_set_, Ge__Proto__NamedAttrs, Ge__Proto__NamedAttrs__AttrEntry,
               ge__proto__named_attrs__attr_entry__init)

int tfx_ge_op_attr_set(tfx_arena *A, Ge__Proto__OpDef *op, const char *key, Ge__Proto__AttrDef *v) {
  return op_attr_set(A, op, key, v, 1);
}
int tfx_ge_op_attr_put(tfx_arena *A, Ge__Proto__OpDef *op, const char *key, Ge__Proto__AttrDef *v) {
  return op_attr_set(A, op, key, v, 0);
}
int tfx_ge_op_attr_add(tfx_arena *A, Ge__Proto__OpDef *op, const char *key, Ge__Proto__AttrDef *v,
                       int copy) {
  Ge__Proto__OpDef__AttrEntry *e = tfx_arena_alloc(A, sizeof *e);
  char *kc = copy ? tfx_arena_strdup(A, key) : (char *)key;
  if (!e || !kc) return -1;
  ge__proto__op_def__attr_entry__init(e);
  e->key = kc;
  e->value = v;
  return TFX_GE_PUSH(A, op->attr, op->n_attr, e);
}
int tfx_ge_op_entry_put(tfx_arena *A, Ge__Proto__OpDef *op, Ge__Proto__OpDef__AttrEntry *e) {
  for (size_t k = 0; k < op->n_attr; k++)
    if (op->attr[k]->key[0] == e->key[0] && strcmp(op->attr[k]->key, e->key) == 0) {
      op->attr[k] = e;
      return 0;
    }
  return TFX_GE_PUSH(A, op->attr, op->n_attr, e);
}
static int na_attr_set(tfx_arena *A, Ge__Proto__NamedAttrs *na, const char *key,
                       Ge__Proto__AttrDef *v) {
  return na_attr_set_(A, na, key, v, 1);
}

Ge__Proto__AttrDef *tfx_ge_op_attr_get(const Ge__Proto__OpDef *op, const char *key) {
  for (size_t k = 0; k < op->n_attr; k++)
    if (op->attr[k]->key[0] == key[0] && strcmp(op->attr[k]->key, key) == 0)
      return op->attr[k]->value;
  return NULL;
}

/* ---------------------------------------------------------------- small constructors */

static Ge__Proto__AttrDef *attr_new(tfx_arena *A, Ge__Proto__AttrDef__ValueCase c) {
  Ge__Proto__AttrDef *a = tfx_arena_alloc(A, sizeof *a);
  if (!a) return NULL;
  ge__proto__attr_def__init(a);
  a->value_case = c;
  return a;
}

static Ge__Proto__AttrDef__ListValue *list_new(tfx_arena *A, Ge__Proto__AttrDef **out,
                                               Ge__Proto__AttrDef__ListValue__ListValueType vt) {
  Ge__Proto__AttrDef *a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_LIST);
  Ge__Proto__AttrDef__ListValue *l = tfx_arena_alloc(A, sizeof *l);
  if (!a || !l) return NULL;
  ge__proto__attr_def__list_value__init(l);
  l->val_type = vt;
  a->list = l;
  *out = a;
  return l;
}

static int bytes_dup(tfx_arena *A, ProtobufCBinaryData *dst, const void *p, size_t n) {
  dst->len = n;
  dst->data = NULL;
  if (!n) return 0;
  dst->data = tfx_arena_alloc(A, n);
  if (!dst->data) return -1;
  memcpy(dst->data, p, n);
  return 0;
}

Ge__Proto__AttrDef *tfx_ge_attr_int(tfx_arena *A, int64_t i) {
  Ge__Proto__AttrDef *a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_I);
  if (a) a->i = i;
  return a;
}

Ge__Proto__AttrDef *tfx_ge_attr_str(tfx_arena *A, const char *s) {
  Ge__Proto__AttrDef *a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_S);
  if (!a || bytes_dup(A, &a->s, s, strlen(s))) return NULL;
  return a;
}

Ge__Proto__AttrDef *tfx_ge_attr_bool(tfx_arena *A, int b) {
  Ge__Proto__AttrDef *a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_B);
  if (a) a->b = b != 0;
  return a;
}

Ge__Proto__AttrDef *tfx_ge_attr_list_str(tfx_arena *A, const char *const *s, size_t n) {
  Ge__Proto__AttrDef *a = NULL;
  Ge__Proto__AttrDef__ListValue *l =
      list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_STRING);
  if (!l) return NULL;
  if (n) {
    l->s = tfx_arena_calloc(A, n, sizeof *l->s);
    if (!l->s) return NULL;
    for (size_t k = 0; k < n; k++)
      if (bytes_dup(A, &l->s[k], s[k], strlen(s[k]))) return NULL;
  }
  l->n_s = n;
  return a;
}

Ge__Proto__AttrDef *tfx_ge_attr_list_int(tfx_arena *A, const int64_t *i, size_t n) {
  Ge__Proto__AttrDef *a = NULL;
  Ge__Proto__AttrDef__ListValue *l =
      list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT);
  if (!l) return NULL;
  if (n) {
    l->i = tfx_arena_calloc(A, n, sizeof *l->i);
    if (!l->i) return NULL;
    memcpy(l->i, i, n * sizeof *i);
  }
  l->n_i = n;
  return a;
}

/* ---------------------------------------------------------------- TF AttrValue */

typedef struct cvt {
  tfx_arena *A;
  const char *node; /* for tensor messages */
  const char *file;
  tfx_diag *d; /* NULL: tensor problems are E_KIND, not reported */
  int err;
  tfx_ge_shape_cache *shapes; /* non-NULL: tensor descs from it (tfx_ge_desc_new_shared) */
} cvt;

static void *fail(cvt *c, int err) {
  if (!c->err) c->err = err;
  return NULL;
}

/* Dims of a TF shape; unknown rank -> [-1] (AutoMapping's UNKNOWN_SHAPE, docs/ASCEND.md §6.2). */
static int64_t *shape_dims(cvt *c, const Tensorflow__TensorShapeProto *s, size_t *n) {
  if (!s || s->unknown_rank) {
    int64_t *v = tfx_arena_alloc(c->A, sizeof *v);
    if (!v) return fail(c, TFX_GE_E_OOM);
    v[0] = -1;
    *n = 1;
    return v;
  }
  int64_t *v = tfx_arena_calloc(c->A, s->n_dim ? s->n_dim : 1, sizeof *v);
  if (!v) return fail(c, TFX_GE_E_OOM);
  for (size_t k = 0; k < s->n_dim; k++) v[k] = s->dim[k] ? s->dim[k]->size : -1;
  *n = s->n_dim;
  return v;
}

static Ge__Proto__AttrDef *from_tf(cvt *c, const Tensorflow__AttrValue *v, int cann_type,
                                   int depth);

static Ge__Proto__NamedAttrs *named_attrs(cvt *c, const Tensorflow__NameAttrList *f, int depth) {
  if (depth > TFX_GE_MAX_NEST) return fail(c, TFX_GE_E_KIND);
  Ge__Proto__NamedAttrs *na = tfx_arena_alloc(c->A, sizeof *na);
  if (!na) return fail(c, TFX_GE_E_OOM);
  ge__proto__named_attrs__init(na);
  na->name = tfx_arena_strdup(c->A, f && f->name ? f->name : "");
  if (!na->name) return fail(c, TFX_GE_E_OOM);
  for (size_t k = 0; f && k < f->n_attr; k++) {
    const Tensorflow__NameAttrList__AttrEntry *e = f->attr[k];
    if (!e || !e->key) continue;
    Ge__Proto__AttrDef *a = from_tf(c, e->value, -1, depth + 1);
    if (!a) return NULL;
    if (na_attr_set(c->A, na, e->key, a)) return fail(c, TFX_GE_E_OOM);
  }
  return na;
}

static Ge__Proto__TensorDef *tensor_tf(cvt *c, const Tensorflow__TensorProto *t);

static Ge__Proto__AttrDef *list_from_tf(cvt *c, const Tensorflow__AttrValue__ListValue *l,
                                        int cann_type, int depth) {
  Ge__Proto__AttrDef *a = NULL;
  Ge__Proto__AttrDef__ListValue *lv;
  tfx_arena *A = c->A;
  if (l->n_s) {
    if (!(lv = list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_STRING)))
      return fail(c, TFX_GE_E_OOM);
    if (!(lv->s = tfx_arena_calloc(A, l->n_s, sizeof *lv->s))) return fail(c, TFX_GE_E_OOM);
    for (size_t k = 0; k < l->n_s; k++)
      if (bytes_dup(A, &lv->s[k], l->s[k].data, l->s[k].len)) return fail(c, TFX_GE_E_OOM);
    lv->n_s = l->n_s;
    return a;
  }
  if (l->n_i) {
    if (cann_type == TFX_CANN_A_LIST_FLOAT) { /* coerce list(int) -> ListFloat */
      if (!(lv =
                list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_FLOAT)) ||
          !(lv->f = tfx_arena_calloc(A, l->n_i, sizeof *lv->f)))
        return fail(c, TFX_GE_E_OOM);
      for (size_t k = 0; k < l->n_i; k++) lv->f[k] = (float)l->i[k];
      lv->n_f = l->n_i;
      return a;
    }
    if (!(lv = list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT)) ||
        !(lv->i = tfx_arena_calloc(A, l->n_i, sizeof *lv->i)))
      return fail(c, TFX_GE_E_OOM);
    memcpy(lv->i, l->i, l->n_i * sizeof *lv->i);
    lv->n_i = l->n_i;
    return a;
  }
  if (l->n_f) {
    if (!(lv = list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_FLOAT)) ||
        !(lv->f = tfx_arena_calloc(A, l->n_f, sizeof *lv->f)))
      return fail(c, TFX_GE_E_OOM);
    memcpy(lv->f, l->f, l->n_f * sizeof *lv->f);
    lv->n_f = l->n_f;
    return a;
  }
  if (l->n_b) {
    if (!(lv = list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_BOOL)) ||
        !(lv->b = tfx_arena_calloc(A, l->n_b, sizeof *lv->b)))
      return fail(c, TFX_GE_E_OOM);
    for (size_t k = 0; k < l->n_b; k++) lv->b[k] = l->b[k] != 0;
    lv->n_b = l->n_b;
    return a;
  }
  if (l->n_type) {
    int as_int = cann_type == TFX_CANN_A_LIST_INT; /* coerce list(type) -> ListInt */
    if (!(lv = list_new(A, &a,
                        as_int
                            ? GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT
                            : GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_DATA_TYPE)))
      return fail(c, TFX_GE_E_OOM);
    int64_t *v = tfx_arena_calloc(A, l->n_type, sizeof *v);
    if (!v) return fail(c, TFX_GE_E_OOM);
    for (size_t k = 0; k < l->n_type; k++)
      v[k] = tfx_ge_cpp_dtype(tfx_ge_dtype_from_tf((int)l->type[k]));
    if (as_int) {
      lv->i = v;
      lv->n_i = l->n_type;
    } else {
      lv->dt = v;
      lv->n_dt = l->n_type;
    }
    return a;
  }
  if (l->n_shape) {
    Ge__Proto__AttrDef__ListListInt *ll = tfx_arena_alloc(A, sizeof *ll);
    a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_INT);
    if (!ll || !a) return fail(c, TFX_GE_E_OOM);
    ge__proto__attr_def__list_list_int__init(ll);
    a->list_list_int = ll;
    if (!(ll->list_list_i = tfx_arena_calloc(A, l->n_shape, sizeof *ll->list_list_i)))
      return fail(c, TFX_GE_E_OOM);
    for (size_t k = 0; k < l->n_shape; k++) {
      Ge__Proto__AttrDef__ListListInt__ListInt *li = tfx_arena_alloc(A, sizeof *li);
      if (!li) return fail(c, TFX_GE_E_OOM);
      ge__proto__attr_def__list_list_int__list_int__init(li);
      if (!(li->list_i = shape_dims(c, l->shape[k], &li->n_list_i))) return NULL;
      ll->list_list_i[k] = li;
    }
    ll->n_list_list_i = l->n_shape;
    return a;
  }
  if (l->n_tensor) {
    if (!(lv = list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_TENSOR)) ||
        !(lv->t = tfx_arena_calloc(A, l->n_tensor, sizeof *lv->t)))
      return fail(c, TFX_GE_E_OOM);
    for (size_t k = 0; k < l->n_tensor; k++)
      if (!(lv->t[k] = tensor_tf(c, l->tensor[k]))) return NULL;
    lv->n_t = l->n_tensor;
    return a;
  }
  if (l->n_func) {
    if (!(lv = list_new(A, &a,
                        GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_NAMED_ATTRS)) ||
        !(lv->na = tfx_arena_calloc(A, l->n_func, sizeof *lv->na)))
      return fail(c, TFX_GE_E_OOM);
    for (size_t k = 0; k < l->n_func; k++)
      if (!(lv->na[k] = named_attrs(c, l->func[k], depth + 1))) return NULL;
    lv->n_na = l->n_func;
    return a;
  }
  /* empty list: its kind comes from the prototype, VT_LIST_INT when unknown */
  Ge__Proto__AttrDef__ListValue__ListValueType vt;
  switch (cann_type) {
  case TFX_CANN_A_LIST_FLOAT:
    vt = GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_FLOAT;
    break;
  case TFX_CANN_A_LIST_BOOL:
    vt = GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_BOOL;
    break;
  case TFX_CANN_A_LIST_STRING:
    vt = GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_STRING;
    break;
  case TFX_CANN_A_LIST_TYPE:
    vt = GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_DATA_TYPE;
    break;
  case TFX_CANN_A_LIST_LIST_INT: {
    Ge__Proto__AttrDef__ListListInt *ll = tfx_arena_alloc(A, sizeof *ll);
    a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_INT);
    if (!ll || !a) return fail(c, TFX_GE_E_OOM);
    ge__proto__attr_def__list_list_int__init(ll);
    a->list_list_int = ll;
    return a;
  }
  default: vt = GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT; break;
  }
  if (!list_new(A, &a, vt)) return fail(c, TFX_GE_E_OOM);
  return a;
}

static Ge__Proto__AttrDef *from_tf(cvt *c, const Tensorflow__AttrValue *v, int cann_type,
                                   int depth) {
  if (!v) return fail(c, TFX_GE_E_KIND);
  tfx_arena *A = c->A;
  Ge__Proto__AttrDef *a = NULL;
  switch (v->value_case) {
  case TENSORFLOW__ATTR_VALUE__VALUE_S:
    if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_S)) ||
        bytes_dup(A, &a->s, v->s.data, v->s.len))
      return fail(c, TFX_GE_E_OOM);
    return a;
  case TENSORFLOW__ATTR_VALUE__VALUE_I:
    if (cann_type == TFX_CANN_A_FLOAT) {
      if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_F))) return fail(c, TFX_GE_E_OOM);
      a->f = (float)v->i;
      return a;
    }
    if (cann_type == TFX_CANN_A_BOOL) {
      if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_B))) return fail(c, TFX_GE_E_OOM);
      a->b = v->i != 0;
      return a;
    }
    if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_I))) return fail(c, TFX_GE_E_OOM);
    a->i = v->i;
    return a;
  case TENSORFLOW__ATTR_VALUE__VALUE_F:
    if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_F))) return fail(c, TFX_GE_E_OOM);
    a->f = v->f;
    return a;
  case TENSORFLOW__ATTR_VALUE__VALUE_B:
    if (cann_type == TFX_CANN_A_INT) {
      if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_I))) return fail(c, TFX_GE_E_OOM);
      a->i = v->b != 0;
      return a;
    }
    if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_B))) return fail(c, TFX_GE_E_OOM);
    a->b = v->b != 0;
    return a;
  case TENSORFLOW__ATTR_VALUE__VALUE_TYPE: {
    int64_t dt = tfx_ge_cpp_dtype(tfx_ge_dtype_from_tf((int)v->type));
    /* an Int IR attr holding a dtype (Cast.dst_type) takes the C++ number as i (docs/AIR.md §6.4) */
    if (!(a = attr_new(A,
                       cann_type == TFX_CANN_A_INT ? GE__PROTO__ATTR_DEF__VALUE_I
                                                   : GE__PROTO__ATTR_DEF__VALUE_DT)))
      return fail(c, TFX_GE_E_OOM);
    if (cann_type == TFX_CANN_A_INT)
      a->i = dt;
    else
      a->dt = dt;
    return a;
  }
  case TENSORFLOW__ATTR_VALUE__VALUE_SHAPE: {
    size_t n = 0;
    int64_t *dims = shape_dims(c, v->shape, &n);
    if (!dims) return NULL;
    Ge__Proto__AttrDef__ListValue *l =
        list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT);
    if (!l) return fail(c, TFX_GE_E_OOM);
    l->i = dims;
    l->n_i = n;
    return a;
  }
  case TENSORFLOW__ATTR_VALUE__VALUE_TENSOR: {
    Ge__Proto__TensorDef *t = tensor_tf(c, v->tensor);
    if (!t) return NULL;
    if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_T))) return fail(c, TFX_GE_E_OOM);
    a->t = t;
    return a;
  }
  case TENSORFLOW__ATTR_VALUE__VALUE_LIST:
    if (!v->list) {
      static const Tensorflow__AttrValue__ListValue empty =
          TENSORFLOW__ATTR_VALUE__LIST_VALUE__INIT;
      return list_from_tf(c, &empty, cann_type, depth);
    }
    return list_from_tf(c, v->list, cann_type, depth);
  case TENSORFLOW__ATTR_VALUE__VALUE_FUNC: {
    Ge__Proto__NamedAttrs *na = named_attrs(c, v->func, depth + 1);
    if (!na) return NULL;
    if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_FUNC))) return fail(c, TFX_GE_E_OOM);
    a->func = na;
    return a;
  }
  case TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER: {
    const char *p = v->placeholder ? v->placeholder : "";
    if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_S)) || bytes_dup(A, &a->s, p, strlen(p)))
      return fail(c, TFX_GE_E_OOM);
    return a;
  }
  default: return fail(c, TFX_GE_E_KIND);
  }
}

Ge__Proto__AttrDef *tfx_ge_attr_from_tf_ex(tfx_arena *A, const Tensorflow__AttrValue *v,
                                           int cann_type, const char *node, tfx_diag *d, int *err) {
  cvt c = {A, node, NULL, d, 0, NULL};
  Ge__Proto__AttrDef *a = from_tf(&c, v, cann_type, 0);
  if (err) *err = a ? TFX_GE_OK : (c.err ? c.err : TFX_GE_E_KIND);
  return a;
}

Ge__Proto__AttrDef *tfx_ge_attr_from_tf(tfx_arena *A, const Tensorflow__AttrValue *v) {
  return tfx_ge_attr_from_tf_ex(A, v, -1, NULL, NULL, NULL);
}

/* ---------------------------------------------------------------- tensors */

static void put_le(uint8_t *p, uint64_t v, size_t n) {
  for (size_t k = 0; k < n; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static uint64_t f64_bits(double f) {
  uint64_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* IEEE half from float, round to nearest even. */
static uint16_t f32_to_f16(float f) {
  uint32_t x = f32_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = (int32_t)((x >> 23) & 0xffu);
  uint32_t man = x & 0x7fffffu;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
  int32_t e = exp - 127 + 15;
  if (e >= 0x1f) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++; /* may carry into the exponent: ok */
  return (uint16_t)(sign | h);
}

static uint16_t f32_to_bf16(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu)) return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

static const char *ge_dtype_name(int dt) {
  const ProtobufCEnumValue *ev =
      protobuf_c_enum_descriptor_get_value(&ge__proto__data_type__descriptor, dt);
  return ev ? ev->name : "DT_UNDEFINED";
}

static const char *tf_dtype_name(int dt) {
  const ProtobufCEnumValue *ev =
      protobuf_c_enum_descriptor_get_value(&tensorflow__data_type__descriptor, dt);
  return ev ? ev->name : "unknown";
}

static void *tensor_error(cvt *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void *tensor_error(cvt *c, const char *fmt, ...) {
  if (!c->d) return fail(c, TFX_GE_E_KIND);
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tfx_error(c->d, c->file, 0, 0, "node '%s': tensor value: %s", c->node ? c->node : "?", msg);
  return fail(c, TFX_GE_E_REPORTED);
}

/* Maximum bytes of one tensor: the whole .air must stay below 2 GiB (docs/AIR.md §1.2). */
#define TENSOR_MAX_BYTES ((uint64_t)INT32_MAX)

/* Typed values of t for its TF dtype: the field, its count in elements, the width of one
 * stored item. Returns 0 when the dtype has no typed field tfxc can read. */
static int typed_field(const Tensorflow__TensorProto *t, int tf_base, size_t *count) {
  switch (tf_base) {
  case TENSORFLOW__DATA_TYPE__DT_FLOAT: *count = t->n_float_val; return 1;
  case TENSORFLOW__DATA_TYPE__DT_DOUBLE: *count = t->n_double_val; return 1;
  case TENSORFLOW__DATA_TYPE__DT_INT32:
  case TENSORFLOW__DATA_TYPE__DT_INT16:
  case TENSORFLOW__DATA_TYPE__DT_INT8:
  case TENSORFLOW__DATA_TYPE__DT_UINT8:
  case TENSORFLOW__DATA_TYPE__DT_UINT16:
  case TENSORFLOW__DATA_TYPE__DT_QINT8:
  case TENSORFLOW__DATA_TYPE__DT_QUINT8:
  case TENSORFLOW__DATA_TYPE__DT_QINT16:
  case TENSORFLOW__DATA_TYPE__DT_QUINT16:
  case TENSORFLOW__DATA_TYPE__DT_QINT32: *count = t->n_int_val; return 1;
  case TENSORFLOW__DATA_TYPE__DT_INT64: *count = t->n_int64_val; return 1;
  case TENSORFLOW__DATA_TYPE__DT_UINT32: *count = t->n_uint32_val; return 1;
  case TENSORFLOW__DATA_TYPE__DT_UINT64: *count = t->n_uint64_val; return 1;
  case TENSORFLOW__DATA_TYPE__DT_BOOL: *count = t->n_bool_val; return 1;
  case TENSORFLOW__DATA_TYPE__DT_HALF:
  case TENSORFLOW__DATA_TYPE__DT_BFLOAT16: *count = t->n_half_val; return 1;
  case TENSORFLOW__DATA_TYPE__DT_COMPLEX64: *count = t->n_scomplex_val / 2; return 1;
  case TENSORFLOW__DATA_TYPE__DT_COMPLEX128: *count = t->n_dcomplex_val / 2; return 1;
  case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E5M2:
  case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E4M3FN: *count = t->float8_val.len; return 1;
  default: return 0;
  }
}

/* Writes element k (< count) of the typed field into p (esize bytes). */
static void typed_put(const Tensorflow__TensorProto *t, int tf_base, size_t k, uint8_t *p,
                      size_t esize) {
  switch (tf_base) {
  case TENSORFLOW__DATA_TYPE__DT_FLOAT: put_le(p, f32_bits(t->float_val[k]), 4); break;
  case TENSORFLOW__DATA_TYPE__DT_DOUBLE: put_le(p, f64_bits(t->double_val[k]), 8); break;
  case TENSORFLOW__DATA_TYPE__DT_INT64: put_le(p, (uint64_t)t->int64_val[k], 8); break;
  case TENSORFLOW__DATA_TYPE__DT_UINT32: put_le(p, t->uint32_val[k], 4); break;
  case TENSORFLOW__DATA_TYPE__DT_UINT64: put_le(p, t->uint64_val[k], 8); break;
  case TENSORFLOW__DATA_TYPE__DT_BOOL: p[0] = t->bool_val[k] != 0; break;
  case TENSORFLOW__DATA_TYPE__DT_HALF:
  case TENSORFLOW__DATA_TYPE__DT_BFLOAT16: put_le(p, (uint32_t)t->half_val[k] & 0xffffu, 2); break;
  case TENSORFLOW__DATA_TYPE__DT_COMPLEX64:
    put_le(p, f32_bits(t->scomplex_val[2 * k]), 4);
    put_le(p + 4, f32_bits(t->scomplex_val[2 * k + 1]), 4);
    break;
  case TENSORFLOW__DATA_TYPE__DT_COMPLEX128:
    put_le(p, f64_bits(t->dcomplex_val[2 * k]), 8);
    put_le(p + 8, f64_bits(t->dcomplex_val[2 * k + 1]), 8);
    break;
  case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E5M2:
  case TENSORFLOW__DATA_TYPE__DT_FLOAT8_E4M3FN: p[0] = t->float8_val.data[k]; break;
  default: /* int_val types */ put_le(p, (uint64_t)(int64_t)t->int_val[k], esize); break;
  }
}

static Ge__Proto__TensorDef *tensor_tf(cvt *c, const Tensorflow__TensorProto *t) {
  tfx_arena *A = c->A;
  if (!t) return tensor_error(c, "no tensor");
  int tf_base = (int)t->dtype > 100 ? (int)t->dtype - 100 : (int)t->dtype;
  int ge = tfx_ge_dtype_from_tf((int)t->dtype);
  if (ge == GE__PROTO__DATA_TYPE__DT_UNDEFINED)
    return tensor_error(c, "dtype %s has no GE equivalent", tf_dtype_name((int)t->dtype));
  const Tensorflow__TensorShapeProto *sh = t->tensor_shape;
  size_t nd = sh ? sh->n_dim : 0;
  if (sh && sh->unknown_rank) return tensor_error(c, "the shape has an unknown rank");
  int64_t *dims = tfx_arena_calloc(A, nd ? nd : 1, sizeof *dims);
  if (!dims) return fail(c, TFX_GE_E_OOM);
  uint64_t elems = 1;
  int overflow = 0;
  for (size_t k = 0; k < nd; k++) {
    int64_t s = sh->dim[k] ? sh->dim[k]->size : -1;
    if (s < 0) return tensor_error(c, "dimension %zu is unknown (%lld)", k, (long long)s);
    dims[k] = s;
    if (s && elems > UINT64_MAX / (uint64_t)s) overflow = 1;
    elems *= (uint64_t)s;
  }
  size_t esize = tfx_ge_dtype_size(ge);
  int is_str = ge == GE__PROTO__DATA_TYPE__DT_STRING;
  if (!esize && !is_str)
    return tensor_error(c, "dtype %s has no fixed element size; its data cannot be written",
                        ge_dtype_name(ge));
  if (overflow || (!is_str && elems > TENSOR_MAX_BYTES / esize))
    return tensor_error(c, "%llu elements are too many (the .air limit is 2 GiB)",
                        (unsigned long long)elems);

  Ge__Proto__TensorDef *td = tfx_arena_alloc(A, sizeof *td);
  if (!td) return fail(c, TFX_GE_E_OOM);
  ge__proto__tensor_def__init(td);
  td->desc = c->shapes ? tfx_ge_desc_new_shared(A, c->shapes, "", ge, dims, nd, 1, "ND")
                      : tfx_ge_desc_new(A, "", ge, dims, nd, 1, "ND");
  if (!td->desc) return fail(c, TFX_GE_E_OOM);

  if (t->tensor_content.len) {
    if (!is_str && t->tensor_content.len != elems * esize)
      return tensor_error(c, "tensor_content has %zu bytes, shape and dtype %s need %llu",
                          t->tensor_content.len, ge_dtype_name(ge),
                          (unsigned long long)(elems * esize));
    /* borrowed, not copied: the bytes are already GE's (little-endian, as is) and the TF
     * model (or the checkpoint mapping its Consts point into) outlives the GE model
     * (tfx_ctx_free frees the GE model first); nothing writes through or frees td->data */
    td->data.data = t->tensor_content.data;
    td->data.len = t->tensor_content.len;
    return td;
  }
  if (is_str) {
    /* raw bytes concatenated (see the header comment); splat as for numbers */
    size_t n = t->n_string_val;
    if (n > elems)
      return tensor_error(c, "%zu values for %llu elements", n, (unsigned long long)elems);
    uint64_t total = 0;
    for (uint64_t k = 0; k < elems && n; k++) {
      total += t->string_val[k < n ? k : n - 1].len;
      if (total > TENSOR_MAX_BYTES)
        return tensor_error(c, "string data is too large (the .air limit is 2 GiB)");
    }
    td->data.len = (size_t)total;
    if (total) {
      uint8_t *p = tfx_arena_alloc(A, (size_t)total);
      if (!p) return fail(c, TFX_GE_E_OOM);
      td->data.data = p;
      for (uint64_t k = 0; k < elems; k++) {
        const ProtobufCBinaryData *s = &t->string_val[k < n ? k : n - 1];
        if (s->len) memcpy(p, s->data, s->len);
        p += s->len;
      }
    }
    return td;
  }
  size_t count = 0;
  if (!typed_field(t, tf_base, &count))
    return tensor_error(c, "dtype %s: no typed value field is known", tf_dtype_name((int)t->dtype));
  if (count > elems)
    return tensor_error(c, "%zu values for %llu elements", count, (unsigned long long)elems);
  size_t nbytes = (size_t)(elems * esize);
  td->data.len = nbytes;
  if (!nbytes) return td;
  uint8_t *p = tfx_arena_calloc(A, nbytes, 1); /* no values: zeros (TF) */
  if (!p) return fail(c, TFX_GE_E_OOM);
  td->data.data = p;
  if (count) {
    for (size_t k = 0; k < count; k++) typed_put(t, tf_base, k, p + k * esize, esize);
    /* splat: the remaining elements repeat the last value */
    for (uint64_t k = count; k < elems; k++) memcpy(p + k * esize, p + (count - 1) * esize, esize);
  }
  if (td->data.len != elems * esize) /* cannot happen; the checklist's byte-size invariant */
    return tensor_error(c, "internal: %zu data bytes for %llu expected", td->data.len,
                        (unsigned long long)(elems * esize));
  return td;
}

Ge__Proto__TensorDef *tfx_ge_tensor_from_tf_ex(tfx_arena *A, const Tensorflow__TensorProto *t,
                                               const char *node, tfx_diag *d, const char *file,
                                               int *err) {
  cvt c = {A, node, file, d, 0, NULL};
  Ge__Proto__TensorDef *td = tensor_tf(&c, t);
  if (err) *err = td ? TFX_GE_OK : (c.err ? c.err : TFX_GE_E_KIND);
  return td;
}

Ge__Proto__TensorDef *tfx_ge_tensor_from_tf_shared(tfx_arena *A, tfx_ge_shape_cache *shapes,
                                                   const Tensorflow__TensorProto *t,
                                                   const char *node, tfx_diag *d, const char *file,
                                                   int *err) {
  cvt c = {A, node, file, d, 0, shapes};
  Ge__Proto__TensorDef *td = tensor_tf(&c, t);
  if (err) *err = td ? TFX_GE_OK : (c.err ? c.err : TFX_GE_E_KIND);
  return td;
}

Ge__Proto__TensorDef *tfx_ge_tensor_from_tf(tfx_arena *A, const Tensorflow__TensorProto *t,
                                            const char *node, tfx_diag *d) {
  int err = 0;
  Ge__Proto__TensorDef *td = tfx_ge_tensor_from_tf_ex(A, t, node, d, NULL, &err);
  if (!td && err == TFX_GE_E_OOM && d)
    tfx_error(d, NULL, 0, 0, "out of memory converting the tensor of node '%s'", node ? node : "?");
  return td;
}

/* ---------------------------------------------------------------- rule values */

/* Leaf kinds met in a (nested) value. */
enum { LK_INT = 1, LK_FLOAT = 2, LK_BOOL = 4, LK_STR = 8, LK_OTHER = 16 };

/* The shape of a (nested) value, read along first elements: rank and dims. -1 when too deep. */
static int value_rank(const tfx_value *v, int64_t *dims, unsigned *rank) {
  *rank = 0;
  for (const tfx_value *x = v; x->tag == TFX_V_LIST; x = &x->u.items[0]) {
    if (*rank >= TFX_V_MAX_DEPTH) return -1;
    dims[(*rank)++] = x->n;
    if (!x->n) break;
  }
  return 0;
}

/* Checks that v is rectangular with that shape; counts leaves and collects their kinds. */
static int value_check(const tfx_value *v, unsigned level, const int64_t *dims, unsigned rank,
                       int *kinds, uint64_t *leaves) {
  if (v->tag != TFX_V_LIST) {
    if (level != rank) return -1;
    switch (v->tag) {
    case TFX_V_INT: *kinds |= LK_INT; break;
    case TFX_V_FLOAT: *kinds |= LK_FLOAT; break;
    case TFX_V_BOOL: *kinds |= LK_BOOL; break;
    case TFX_V_STR: *kinds |= LK_STR; break;
    default: *kinds |= LK_OTHER; break;
    }
    (*leaves)++;
    return 0;
  }
  if (level >= rank || dims[level] != (int64_t)v->n) return -1;
  for (uint32_t k = 0; k < v->n; k++)
    if (value_check(&v->u.items[k], level + 1, dims, rank, kinds, leaves)) return -1;
  return 0;
}

/* Leaves of v in row-major order. */
static void value_leaves(const tfx_value *v, const tfx_value **out, uint64_t *n) {
  if (v->tag != TFX_V_LIST) {
    out[(*n)++] = v;
    return;
  }
  for (uint32_t k = 0; k < v->n; k++) value_leaves(&v->u.items[k], out, n);
}

static int is_float_dt(int dt) {
  return dt == GE__PROTO__DATA_TYPE__DT_FLOAT || dt == GE__PROTO__DATA_TYPE__DT_FLOAT16 ||
      dt == GE__PROTO__DATA_TYPE__DT_DOUBLE || dt == GE__PROTO__DATA_TYPE__DT_BF16;
}

Ge__Proto__TensorDef *tfx_ge_tensor_from_value(tfx_arena *A, const tfx_value *v, int ge_dtype,
                                               int *err) {
  int64_t dims[TFX_V_MAX_DEPTH + 1];
  unsigned rank = 0;
  int kinds = 0;
  uint64_t n = 0;
  *err = TFX_GE_E_KIND;
  if (!v || value_rank(v, dims, &rank) || value_check(v, 0, dims, rank, &kinds, &n) ||
      (kinds & LK_OTHER))
    return NULL;
  if ((kinds & LK_STR) && (kinds & ~LK_STR)) return NULL;
  if (ge_dtype == GE__PROTO__DATA_TYPE__DT_UNDEFINED) {
    if (kinds & LK_STR)
      ge_dtype = GE__PROTO__DATA_TYPE__DT_STRING;
    else if (kinds & LK_FLOAT)
      ge_dtype = GE__PROTO__DATA_TYPE__DT_FLOAT;
    else if (kinds == LK_BOOL)
      ge_dtype = GE__PROTO__DATA_TYPE__DT_BOOL;
    else
      ge_dtype = GE__PROTO__DATA_TYPE__DT_INT32;
  }
  int is_str = ge_dtype == GE__PROTO__DATA_TYPE__DT_STRING;
  if (is_str != !!(kinds & LK_STR) && n) return NULL;
  size_t esize = tfx_ge_dtype_size(ge_dtype);
  if (!esize && !is_str) return NULL;
  if (n > TENSOR_MAX_BYTES / (esize ? esize : 1)) return NULL;
  const tfx_value **leaf = NULL;
  if (n) {
    leaf = tfx_calloc((size_t)n, sizeof *leaf);
    if (!leaf) {
      *err = TFX_GE_E_OOM;
      return NULL;
    }
    uint64_t m = 0;
    value_leaves(v, leaf, &m);
  }
  /* ints that do not fit int32 widen the default int type */
  if (ge_dtype == GE__PROTO__DATA_TYPE__DT_INT32 && !(kinds & LK_FLOAT) && !is_str)
    for (uint64_t k = 0; k < n; k++)
      if (leaf[k]->tag == TFX_V_INT && (leaf[k]->u.i < INT32_MIN || leaf[k]->u.i > INT32_MAX))
        ge_dtype = GE__PROTO__DATA_TYPE__DT_INT64, esize = 8;
  Ge__Proto__TensorDef *td = tfx_arena_alloc(A, sizeof *td);
  if (!td) goto oom;
  ge__proto__tensor_def__init(td);
  if (!(td->desc = tfx_ge_desc_new(A, "", ge_dtype, dims, rank, 1, "ND"))) goto oom;
  if (is_str) {
    size_t total = 0;
    for (uint64_t k = 0; k < n; k++) total += leaf[k]->n;
    if (total) {
      uint8_t *p = tfx_arena_alloc(A, total);
      if (!p) goto oom;
      td->data.data = p;
      td->data.len = total;
      for (uint64_t k = 0; k < n; k++) {
        memcpy(p, leaf[k]->u.s, leaf[k]->n);
        p += leaf[k]->n;
      }
    }
  } else if (n) {
    uint8_t *p = tfx_arena_calloc(A, (size_t)n, esize);
    if (!p) goto oom;
    td->data.data = p;
    td->data.len = (size_t)n * esize;
    for (uint64_t k = 0; k < n; k++, p += esize) {
      const tfx_value *x = leaf[k];
      double f = x->tag == TFX_V_FLOAT ? x->u.f : (double)x->u.i;
      int64_t i = x->tag == TFX_V_FLOAT ? 0 : x->u.i;
      if (x->tag == TFX_V_FLOAT && !is_float_dt(ge_dtype)) {
        /* a float into an integer tensor only when it is integral */
        if (!(f == floor(f)) || f < -9.2e18 || f > 9.2e18) goto kind;
        i = (int64_t)f;
      }
      switch (ge_dtype) {
      case GE__PROTO__DATA_TYPE__DT_FLOAT: put_le(p, f32_bits((float)f), 4); break;
      case GE__PROTO__DATA_TYPE__DT_DOUBLE: put_le(p, f64_bits(f), 8); break;
      case GE__PROTO__DATA_TYPE__DT_FLOAT16: put_le(p, f32_to_f16((float)f), 2); break;
      case GE__PROTO__DATA_TYPE__DT_BF16: put_le(p, f32_to_bf16((float)f), 2); break;
      case GE__PROTO__DATA_TYPE__DT_BOOL: p[0] = (x->tag == TFX_V_FLOAT ? f != 0 : i != 0); break;
      case GE__PROTO__DATA_TYPE__DT_COMPLEX64: put_le(p, f32_bits((float)f), 4); break;
      case GE__PROTO__DATA_TYPE__DT_COMPLEX128: put_le(p, f64_bits(f), 8); break;
      default: put_le(p, (uint64_t)i, esize); break;
      }
    }
  }
  free(leaf);
  *err = TFX_GE_OK;
  return td;
oom:
  free(leaf);
  *err = TFX_GE_E_OOM;
  return NULL;
kind:
  free(leaf);
  *err = TFX_GE_E_KIND;
  return NULL;
}

static Ge__Proto__AttrDef *from_value(tfx_arena *A, const tfx_value *v, int ct, int cpp, int depth,
                                      int *err);

/* The list element kinds of v: LK_* bits; LK_OTHER for nested lists of lists of lists... */
static int list_kinds(const tfx_value *v, int *nested_kinds) {
  int k = 0;
  *nested_kinds = 0;
  for (uint32_t j = 0; j < v->n; j++) {
    const tfx_value *x = &v->u.items[j];
    switch (x->tag) {
    case TFX_V_INT: k |= LK_INT; break;
    case TFX_V_FLOAT: k |= LK_FLOAT; break;
    case TFX_V_BOOL: k |= LK_BOOL; break;
    case TFX_V_STR: k |= LK_STR; break;
    case TFX_V_DTYPE: k |= 32; break;
    case TFX_V_LIST:
      k |= 64;
      for (uint32_t q = 0; q < x->n; q++) {
        int t = x->u.items[q].tag;
        *nested_kinds |= t == TFX_V_INT ? LK_INT : t == TFX_V_FLOAT ? LK_FLOAT : LK_OTHER;
      }
      break;
    default: k |= LK_OTHER; break;
    }
  }
  return k;
}

static Ge__Proto__AttrDef *list_from_value(tfx_arena *A, const tfx_value *v, int ct, int cpp,
                                           int *err) {
  int nk = 0, k = list_kinds(v, &nk);
  Ge__Proto__AttrDef *a = NULL;
  Ge__Proto__AttrDef__ListValue *l;
  *err = TFX_GE_E_KIND;
  if (k & LK_OTHER) return NULL;
  /* the form: the prototype's, else the elements' */
  if (ct < 0 || ct == TFX_CANN_A_TENSOR) {
    if (ct == TFX_CANN_A_TENSOR) {
      Ge__Proto__TensorDef *t =
          tfx_ge_tensor_from_value(A, v, GE__PROTO__DATA_TYPE__DT_UNDEFINED, err);
      if (!t) return NULL;
      if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_T))) goto oom;
      a->t = t;
      return a;
    }
    if (!v->n || k == LK_INT)
      ct = TFX_CANN_A_LIST_INT;
    else if (k == LK_FLOAT || k == (LK_INT | LK_FLOAT))
      ct = TFX_CANN_A_LIST_FLOAT;
    else if (k == LK_BOOL)
      ct = TFX_CANN_A_LIST_BOOL;
    else if (k == LK_STR)
      ct = TFX_CANN_A_LIST_STRING;
    else if (k == 32)
      ct = TFX_CANN_A_LIST_TYPE;
    else if (k == 64 && nk == LK_INT)
      ct = TFX_CANN_A_LIST_LIST_INT;
    else if (k == 64 && (nk & LK_FLOAT) && !(nk & LK_OTHER))
      ct = -2; /* list_list_float */
    else if (k == 64 && !nk)
      ct = TFX_CANN_A_LIST_LIST_INT; /* [[], []] */
    else
      return NULL;
  }
  switch (ct) {
  case TFX_CANN_A_LIST_INT:
    if (k & ~(LK_INT | LK_BOOL | 32)) return NULL;
    if (!(l = list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_INT)))
      goto oom;
    if (v->n && !(l->i = tfx_arena_calloc(A, v->n, sizeof *l->i))) goto oom;
    for (uint32_t j = 0; j < v->n; j++) {
      const tfx_value *x = &v->u.items[j];
      l->i[j] = x->tag == TFX_V_DTYPE && !cpp ? tfx_ge_cpp_dtype(tfx_ge_dtype_from_tf((int)x->u.i))
                                              : x->u.i;
    }
    l->n_i = v->n;
    break;
  case TFX_CANN_A_LIST_FLOAT:
    if (k & ~(LK_INT | LK_FLOAT)) return NULL;
    if (!(l = list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_FLOAT)))
      goto oom;
    if (v->n && !(l->f = tfx_arena_calloc(A, v->n, sizeof *l->f))) goto oom;
    for (uint32_t j = 0; j < v->n; j++) {
      const tfx_value *x = &v->u.items[j];
      l->f[j] = x->tag == TFX_V_FLOAT ? (float)x->u.f : (float)x->u.i;
    }
    l->n_f = v->n;
    break;
  case TFX_CANN_A_LIST_BOOL:
    if (k & ~(LK_BOOL | LK_INT)) return NULL;
    if (!(l = list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_BOOL)))
      goto oom;
    if (v->n && !(l->b = tfx_arena_calloc(A, v->n, sizeof *l->b))) goto oom;
    for (uint32_t j = 0; j < v->n; j++) l->b[j] = v->u.items[j].u.i != 0;
    l->n_b = v->n;
    break;
  case TFX_CANN_A_LIST_STRING:
    if (k & ~LK_STR) return NULL;
    if (!(l = list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_STRING)))
      goto oom;
    if (v->n && !(l->s = tfx_arena_calloc(A, v->n, sizeof *l->s))) goto oom;
    for (uint32_t j = 0; j < v->n; j++)
      if (bytes_dup(A, &l->s[j], v->u.items[j].u.s, v->u.items[j].n)) goto oom;
    l->n_s = v->n;
    break;
  case TFX_CANN_A_LIST_TYPE:
    /* dtypes; an int is taken as a C++ ge::DataType number already */
    if (k & ~(32 | LK_INT)) return NULL;
    if (!(l = list_new(A, &a, GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_DATA_TYPE)))
      goto oom;
    if (v->n && !(l->dt = tfx_arena_calloc(A, v->n, sizeof *l->dt))) goto oom;
    for (uint32_t j = 0; j < v->n; j++) {
      const tfx_value *x = &v->u.items[j];
      l->dt[j] = x->tag == TFX_V_DTYPE && !cpp ? tfx_ge_cpp_dtype(tfx_ge_dtype_from_tf((int)x->u.i))
                                               : x->u.i;
    }
    l->n_dt = v->n;
    break;
  case TFX_CANN_A_LIST_LIST_INT: {
    if ((k & ~64) || (nk & ~LK_INT)) return NULL;
    Ge__Proto__AttrDef__ListListInt *ll = tfx_arena_alloc(A, sizeof *ll);
    if (!ll || !(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_INT))) goto oom;
    ge__proto__attr_def__list_list_int__init(ll);
    a->list_list_int = ll;
    if (v->n && !(ll->list_list_i = tfx_arena_calloc(A, v->n, sizeof *ll->list_list_i))) goto oom;
    for (uint32_t j = 0; j < v->n; j++) {
      const tfx_value *x = &v->u.items[j];
      Ge__Proto__AttrDef__ListListInt__ListInt *li = tfx_arena_alloc(A, sizeof *li);
      if (!li) goto oom;
      ge__proto__attr_def__list_list_int__list_int__init(li);
      if (x->n && !(li->list_i = tfx_arena_calloc(A, x->n, sizeof *li->list_i))) goto oom;
      for (uint32_t q = 0; q < x->n; q++) li->list_i[q] = x->u.items[q].u.i;
      li->n_list_i = x->n;
      ll->list_list_i[j] = li;
    }
    ll->n_list_list_i = v->n;
    break;
  }
  case -2: {
    Ge__Proto__AttrDef__ListListFloat *ll = tfx_arena_alloc(A, sizeof *ll);
    if (!ll || !(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_FLOAT))) goto oom;
    ge__proto__attr_def__list_list_float__init(ll);
    a->list_list_float = ll;
    if (!(ll->list_list_f = tfx_arena_calloc(A, v->n, sizeof *ll->list_list_f))) goto oom;
    for (uint32_t j = 0; j < v->n; j++) {
      const tfx_value *x = &v->u.items[j];
      Ge__Proto__AttrDef__ListListFloat__ListFloat *lf = tfx_arena_alloc(A, sizeof *lf);
      if (!lf) goto oom;
      ge__proto__attr_def__list_list_float__list_float__init(lf);
      if (x->n && !(lf->list_f = tfx_arena_calloc(A, x->n, sizeof *lf->list_f))) goto oom;
      for (uint32_t q = 0; q < x->n; q++)
        lf->list_f[q] =
            x->u.items[q].tag == TFX_V_FLOAT ? (float)x->u.items[q].u.f : (float)x->u.items[q].u.i;
      lf->n_list_f = x->n;
      ll->list_list_f[j] = lf;
    }
    ll->n_list_list_f = v->n;
    break;
  }
  default: return NULL; /* a list for a scalar attr type */
  }
  *err = TFX_GE_OK;
  return a;
oom:
  *err = TFX_GE_E_OOM;
  return NULL;
}

static Ge__Proto__AttrDef *from_value(tfx_arena *A, const tfx_value *v, int ct, int cpp, int depth,
                                      int *err) {
  Ge__Proto__AttrDef *a = NULL;
  *err = TFX_GE_E_KIND;
  if (!v || depth > TFX_GE_MAX_NEST) return NULL;
  if (ct == TFX_CANN_A_TENSOR && v->tag != TFX_V_LIST) {
    Ge__Proto__TensorDef *t =
        tfx_ge_tensor_from_value(A, v, GE__PROTO__DATA_TYPE__DT_UNDEFINED, err);
    if (!t) return NULL;
    if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_T))) goto oom;
    a->t = t;
    *err = TFX_GE_OK;
    return a;
  }
  switch (v->tag) {
  case TFX_V_BOOL:
    if (ct == TFX_CANN_A_INT) {
      if (!(a = tfx_ge_attr_int(A, v->u.i))) goto oom;
    } else if (ct == TFX_CANN_A_FLOAT) {
      if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_F))) goto oom;
      a->f = (float)v->u.i;
    } else if (ct < 0 || ct == TFX_CANN_A_BOOL) {
      if (!(a = tfx_ge_attr_bool(A, (int)v->u.i))) goto oom;
    } else {
      return NULL;
    }
    break;
  case TFX_V_INT:
    if (ct == TFX_CANN_A_FLOAT) {
      if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_F))) goto oom;
      a->f = (float)v->u.i;
    } else if (ct == TFX_CANN_A_BOOL) {
      if (!(a = tfx_ge_attr_bool(A, v->u.i != 0))) goto oom;
    } else if (ct == TFX_CANN_A_TYPE) { /* an int for a Type attr: a C++ ge::DataType number */
      if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_DT))) goto oom;
      a->dt = v->u.i;
    } else if (ct < 0 || ct == TFX_CANN_A_INT) {
      if (!(a = tfx_ge_attr_int(A, v->u.i))) goto oom;
    } else {
      return NULL;
    }
    break;
  case TFX_V_FLOAT:
    if (ct == TFX_CANN_A_INT) {
      if (!(v->u.f == floor(v->u.f)) || v->u.f < -9.2e18 || v->u.f > 9.2e18) return NULL;
      if (!(a = tfx_ge_attr_int(A, (int64_t)v->u.f))) goto oom;
    } else if (ct < 0 || ct == TFX_CANN_A_FLOAT) {
      if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_F))) goto oom;
      a->f = (float)v->u.f;
    } else {
      return NULL;
    }
    break;
  case TFX_V_STR:
    if (ct >= 0 && ct != TFX_CANN_A_STRING) return NULL;
    if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_S)) || bytes_dup(A, &a->s, v->u.s, v->n))
      goto oom;
    break;
  case TFX_V_DTYPE: {
    int64_t dt = cpp ? v->u.i : tfx_ge_cpp_dtype(tfx_ge_dtype_from_tf((int)v->u.i));
    if (ct == TFX_CANN_A_INT) {
      if (!(a = tfx_ge_attr_int(A, dt))) goto oom;
    } else if (ct < 0 || ct == TFX_CANN_A_TYPE) {
      if (!(a = attr_new(A, GE__PROTO__ATTR_DEF__VALUE_DT))) goto oom;
      a->dt = dt;
    } else {
      return NULL;
    }
    break;
  }
  case TFX_V_LIST: return list_from_value(A, v, ct, cpp, err);
  default: return NULL;
  }
  *err = TFX_GE_OK;
  return a;
oom:
  *err = TFX_GE_E_OOM;
  return NULL;
}

Ge__Proto__AttrDef *tfx_ge_attr_from_value_ex(tfx_arena *A, const tfx_value *v, int cann_type,
                                              int dtype_is_cpp, int *err) {
  int e = 0;
  if (cann_type >= TFX_CANN_A__COUNT) cann_type = -1;
  Ge__Proto__AttrDef *a = from_value(A, v, cann_type, dtype_is_cpp, 0, &e);
  if (err) *err = e;
  return a;
}

Ge__Proto__AttrDef *tfx_ge_attr_from_value(tfx_arena *A, const tfx_value *v, int cann_type) {
  return tfx_ge_attr_from_value_ex(A, v, cann_type, 0, NULL);
}

/* ---------------------------------------------------------------- sorting maps */

static int cmp_key(const void *a, const void *b) {
  /* every entry type starts with base, key */
  const Ge__Proto__OpDef__AttrEntry *x = *(const Ge__Proto__OpDef__AttrEntry *const *)a;
  const Ge__Proto__OpDef__AttrEntry *y = *(const Ge__Proto__OpDef__AttrEntry *const *)b;
  if (x->key[0] != y->key[0]) return (unsigned char)x->key[0] < (unsigned char)y->key[0] ? -1 : 1;
  return strcmp(x->key, y->key);
}

static void sort_attr(const Ge__Proto__AttrDef *a, int depth);
static void sort_graph(Ge__Proto__GraphDef *g, int depth);

/* Whether n entries are already in key order (most descriptors' are: built in that order). */
static int sorted_keys(void *const *arr, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (cmp_key(&arr[i - 1], &arr[i]) > 0) return 0;
  return 1;
}

/* Sorts n entries by key: by insertion when few (an op's map; no library call, and no work
 * when sorted already), else qsort. Keys of one map differ, so the order is the same. */
static void sort_keys(void **arr, size_t n) {
  if (n > 24) {
    if (!sorted_keys(arr, n)) qsort(arr, n, sizeof *arr, cmp_key);
    return;
  }
  for (size_t i = 1; i < n; i++) {
    void *x = arr[i];
    size_t j = i;
    while (j > 0 && cmp_key(&arr[j - 1], &x) > 0) {
      arr[j] = arr[j - 1];
      j--;
    }
    arr[j] = x;
  }
}

#define SORT_ENTRIES(o, depth)                                                                     \
  do {                                                                                             \
    if ((o)->n_attr > 1) sort_keys((void **)(o)->attr, (o)->n_attr);                               \
    for (size_t k_ = 0; k_ < (o)->n_attr; k_++) sort_attr((o)->attr[k_]->value, (depth) + 1);      \
  } while (0)

static void sort_td(Ge__Proto__TensorDescriptor *td, int depth) {
  if (td) SORT_ENTRIES(td, depth);
}

static void sort_na(Ge__Proto__NamedAttrs *na, int depth) {
  if (na) SORT_ENTRIES(na, depth);
}

static void sort_attr(const Ge__Proto__AttrDef *a, int depth) {
  /* structures tfxc builds nest at most TFX_GE_MAX_NEST deep; the bound is defensive */
  if (!a || depth > 4 * TFX_GE_MAX_NEST) return;
  switch (a->value_case) {
  case GE__PROTO__ATTR_DEF__VALUE_FUNC: sort_na(a->func, depth); break;
  case GE__PROTO__ATTR_DEF__VALUE_TD: sort_td(a->td, depth); break;
  case GE__PROTO__ATTR_DEF__VALUE_T:
    if (a->t) sort_td(a->t->desc, depth);
    break;
  case GE__PROTO__ATTR_DEF__VALUE_G: sort_graph(a->g, depth); break;
  case GE__PROTO__ATTR_DEF__VALUE_LIST:
    if (!a->list) break;
    for (size_t k = 0; k < a->list->n_td; k++) sort_td(a->list->td[k], depth + 1);
    for (size_t k = 0; k < a->list->n_t; k++)
      if (a->list->t[k]) sort_td(a->list->t[k]->desc, depth + 1);
    for (size_t k = 0; k < a->list->n_g; k++) sort_graph(a->list->g[k], depth + 1);
    for (size_t k = 0; k < a->list->n_na; k++) sort_na(a->list->na[k], depth + 1);
    break;
  default: break;
  }
}

static void sort_graph(Ge__Proto__GraphDef *g, int depth) {
  if (!g || depth > 4 * TFX_GE_MAX_NEST) return;
  SORT_ENTRIES(g, depth);
  for (size_t i = 0; i < g->n_op; i++) {
    Ge__Proto__OpDef *op = g->op[i];
    SORT_ENTRIES(op, depth);
    for (size_t k = 0; k < op->n_input_desc; k++) sort_td(op->input_desc[k], depth + 1);
    for (size_t k = 0; k < op->n_output_desc; k++) sort_td(op->output_desc[k], depth + 1);
  }
}

void tfx_ge_sort_op_maps(Ge__Proto__OpDef *op) {
  if (!op) return;
  SORT_ENTRIES(op, 0);
  for (size_t k = 0; k < op->n_input_desc; k++) sort_td(op->input_desc[k], 1);
  for (size_t k = 0; k < op->n_output_desc; k++) sort_td(op->output_desc[k], 1);
}

void tfx_ge_sort_desc_maps(Ge__Proto__TensorDescriptor *td) { sort_td(td, 1); }

void tfx_ge_sort_op_maps_memo(Ge__Proto__OpDef *op, const tfx_ge_air_memo *memo) {
  if (!op) return;
  SORT_ENTRIES(op, 0);
  for (size_t k = 0; k < op->n_input_desc; k++)
    if (!tfx_ge_air_memo_has(memo, op->input_desc[k])) sort_td(op->input_desc[k], 1);
  for (size_t k = 0; k < op->n_output_desc; k++)
    if (!tfx_ge_air_memo_has(memo, op->output_desc[k])) sort_td(op->output_desc[k], 1);
}

void tfx_ge_sort_maps(Ge__Proto__ModelDef *m) {
  if (!m) return;
  SORT_ENTRIES(m, 0);
  for (size_t i = 0; i < m->n_graph; i++) sort_graph(m->graph[i], 0);
}
