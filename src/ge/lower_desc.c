/* GE tensor descriptors and what lowering knows about TF outputs: their dtypes (from the TF
 * OpDef table, else from the usual attrs), their shapes (`_output_shapes`) and the flat index
 * of a function-body output reference `node:out_arg:idx`.
 * Also the setters of descriptor attrs (tfx_ge_td_*).
 * Stage: ge (used by lower.c). Input: NodeDefs (borrowed), the stdlib TF op table (may be NULL).
 * Output: descriptors in the caller's arena.
 * Descriptor rules (docs/AIR.md §5.2, §7): name = the port name, dtype in proto
 * numbering, layout always written ("ND" unless the port has a format), attr origin_format =
 * layout (a string: readable by every GE version; origin_format_for_int / format_for_int are
 * not written, §7.1), origin_shape (VT_LIST_INT) + origin_shape_initialized when the rank
 * is known. Unknown rank is [-2], an unknown dim -1.
 * Streaming lowering interns descriptors (one per distinct name, dtype, shape and layout:
 * desc_intern), found first by the caller's pointers and values (struct tfx_ge_desc_front),
 * then by content. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ge/lower_int.h"

/* ---------------------------------------------------------------- descriptors */

/* Map setters of a descriptor's attrs (lower_int.h; the OpDef ones are in attr.c). */
TFX_GE_MAP_SET(td_attr_set, Ge__Proto__TensorDescriptor, Ge__Proto__TensorDescriptor__AttrEntry,
               ge__proto__tensor_descriptor__attr_entry__init)

int tfx_ge_td_attr_set(tfx_arena *A, Ge__Proto__TensorDescriptor *td, const char *key,
                       Ge__Proto__AttrDef *v) {
  return td_attr_set(A, td, key, v, 1);
}
int tfx_ge_td_attr_put(tfx_arena *A, Ge__Proto__TensorDescriptor *td, const char *key,
                       Ge__Proto__AttrDef *v) {
  return td_attr_set(A, td, key, v, 0);
}
int tfx_ge_td_entry_put(tfx_arena *A, Ge__Proto__TensorDescriptor *td,
                        Ge__Proto__TensorDescriptor__AttrEntry *e) {
  for (size_t k = 0; k < td->n_attr; k++)
    if (td->attr[k]->key[0] == e->key[0] && strcmp(td->attr[k]->key, e->key) == 0) {
      td->attr[k] = e;
      return 0;
    }
  return TFX_GE_PUSH(A, td->attr, td->n_attr, e);
}
int tfx_ge_td_entries_copy(tfx_arena *A, Ge__Proto__TensorDescriptor *td,
                           const Ge__Proto__TensorDescriptor *src) {
  td->attr = NULL;
  td->n_attr = 0;
  size_t n = src->n_attr;
  if (!n) return 0;
  size_t cap = 4; /* the capacity tfx_ge_grow implies for n elements */
  while (cap < n) cap *= 2;
  td->attr = tfx_arena_alloc(A, cap * sizeof *td->attr);
  if (!td->attr) return -1;
  memcpy(td->attr, src->attr, n * sizeof *td->attr);
  td->n_attr = n;
  return 0;
}
Ge__Proto__AttrDef *tfx_ge_td_attr_get(const Ge__Proto__TensorDescriptor *td, const char *key) {
  for (size_t k = 0; k < td->n_attr; k++)
    if (td->attr[k]->key[0] == key[0] && strcmp(td->attr[k]->key, key) == 0)
      return td->attr[k]->value;
  return NULL;
}


static Ge__Proto__TensorDescriptor *desc_alloc(tfx_arena *A, const char *name) {
  Ge__Proto__TensorDescriptor *td = tfx_arena_alloc(A, sizeof *td);
  if (!td) return NULL;
  ge__proto__tensor_descriptor__init(td);
  td->name = tfx_arena_strdup(A, name ? name : "");
  return td->name ? td : NULL;
}

/* Shared read-only AttrDefs. Attrs are never mutated once built (tfx_ge_desc_copy shares them
 * too), so origin_format for the usual layouts and origin_shape_initialized = true are one
 * static object each rather than one per descriptor: at 10^5 nodes that was ~20 MiB, a tenth
 * of the GE model. The emitters only read them; nothing frees them (arenas free chunks). */
static const char *const common_layouts[] = {"ND", "NHWC", "NCHW", "HWCN", "NCDHW", "NDHWC", "DHWCN"};
#define N_COMMON_LAYOUTS (sizeof common_layouts / sizeof common_layouts[0])
static Ge__Proto__AttrDef layout_attrs[N_COMMON_LAYOUTS], shape_known_attr;
static Ge__Proto__TensorDescriptor__AttrEntry layout_entries[N_COMMON_LAYOUTS], shape_known_entry;
static pthread_once_t shared_attrs_once = PTHREAD_ONCE_INIT; /* built once, then read-only */

static void shared_attrs_build(void) {
  for (size_t i = 0; i < N_COMMON_LAYOUTS; i++) {
    ge__proto__attr_def__init(&layout_attrs[i]);
    layout_attrs[i].value_case = GE__PROTO__ATTR_DEF__VALUE_S;
    layout_attrs[i].s.data = (uint8_t *)(uintptr_t)common_layouts[i];
    layout_attrs[i].s.len = strlen(common_layouts[i]);
    ge__proto__tensor_descriptor__attr_entry__init(&layout_entries[i]);
    layout_entries[i].key = (char *)(uintptr_t)"origin_format";
    layout_entries[i].value = &layout_attrs[i];
  }
  ge__proto__attr_def__init(&shape_known_attr);
  shape_known_attr.value_case = GE__PROTO__ATTR_DEF__VALUE_B;
  shape_known_attr.b = 1;
  ge__proto__tensor_descriptor__attr_entry__init(&shape_known_entry);
  shape_known_entry.key = (char *)(uintptr_t)"origin_shape_initialized";
  shape_known_entry.value = &shape_known_attr;
}

static void shared_attrs_init(void) { pthread_once(&shared_attrs_once, shared_attrs_build); }

static Ge__Proto__AttrDef *origin_format(tfx_arena *A, char *layout);

/* Puts attr origin_format = layout into td: a shared entry for the usual layouts, else a new
 * one whose bytes are shared with the (arena) layout string. */
static int put_origin_format(tfx_arena *A, Ge__Proto__TensorDescriptor *td) {
  shared_attrs_init();
  for (size_t i = 0; i < N_COMMON_LAYOUTS; i++)
    if (strcmp(td->layout, common_layouts[i]) == 0) return tfx_ge_td_entry_put(A, td, &layout_entries[i]);
  Ge__Proto__AttrDef *a = origin_format(A, td->layout);
  return a ? tfx_ge_td_attr_put(A, td, "origin_format", a) : -1;
}

static Ge__Proto__AttrDef *origin_format(tfx_arena *A, char *layout) {
  Ge__Proto__AttrDef *a = tfx_arena_alloc(A, sizeof *a);
  if (!a) return NULL;
  ge__proto__attr_def__init(a);
  a->value_case = GE__PROTO__ATTR_DEF__VALUE_S;
  a->s.data = (uint8_t *)layout;
  a->s.len = strlen(layout);
  return a;
}

/* The origin_shape entry of dims from cache c (made in c->A on first use). NULL on OOM. */
static Ge__Proto__TensorDescriptor__AttrEntry *shape_entry(tfx_ge_shape_cache *c,
                                                           const int64_t *dims, size_t n) {
  int64_t kbuf[9];
  size_t klen = (n + 1) * sizeof *dims;
  int64_t *key = n < 9 ? kbuf : tfx_arena_alloc(c->A, klen);
  if (!key) return NULL;
  key[0] = (int64_t)n; /* [n, dims...]: never an empty key */
  if (n) memcpy(key + 1, dims, n * sizeof *dims);
  uint32_t ix = tfx_hmap_get(&c->map, (const char *)key, klen);
  if (ix != TFX_HASH_NONE) return c->v[ix];
  if (key == kbuf) {
    if (!(key = tfx_arena_alloc(c->A, klen))) return NULL;
    memcpy(key, kbuf, klen);
  }
  Ge__Proto__TensorDescriptor__AttrEntry *e = tfx_arena_alloc(c->A, sizeof *e);
  Ge__Proto__AttrDef *os = tfx_ge_attr_list_int(c->A, dims, n);
  if (!e || !os) return NULL;
  ge__proto__tensor_descriptor__attr_entry__init(e);
  e->key = (char *)(uintptr_t)"origin_shape";
  e->value = os;
  if (TFX_GE_PUSH(c->A, c->v, c->n, e) ||
      tfx_hmap_put(&c->map, (const char *)key, klen, (uint32_t)(c->n - 1), NULL) < 0)
    return NULL;
  return e;
}

void tfx_ge_shape_cache_init(tfx_ge_shape_cache *c, tfx_arena *A) {
  memset(c, 0, sizeof *c);
  c->A = A;
  tfx_hmap_init(&c->map);
  tfx_hmap_init(&c->descs);
}

void tfx_ge_shape_cache_free(tfx_ge_shape_cache *c) {
  tfx_hmap_free(&c->map);
  tfx_hmap_free(&c->descs);
  free(c->front);
  c->front = NULL;
}

/* tfx_ge_desc_front: the interned descriptors by what tfx_ge_desc_new_shared was given: the
 * same name and layout pointers (strings are not changed while lowering runs, so the same
 * content), dtype, shape_known and dims give the descriptor desc_intern found for them,
 * without building and hashing its key (a Const or output desc per node: the same few again
 * and again). A direct-mapped table; a slot keeps the latest. */
#define FRONT_SLOTS 1024
#define FRONT_DIMS 8
struct tfx_ge_desc_front {
  const char *name, *layout;
  Ge__Proto__TensorDescriptor *td; /* NULL: empty */
  int32_t dtype, known;
  uint32_t n_dims;
  int64_t dims[FRONT_DIMS];
};

static struct tfx_ge_desc_front *front_slot(tfx_ge_shape_cache *c, const char *name, int dtype,
                                            const int64_t *dims, size_t n_dims, int known,
                                            const char *layout) {
  if (n_dims > FRONT_DIMS) return NULL;
  if (!c->front && !(c->front = tfx_calloc(FRONT_SLOTS, sizeof *c->front))) return NULL;
  const uint64_t mul = 0x9E3779B97F4A7C15u;
  uint64_t h = ((uint64_t)(uintptr_t)name ^ (uint64_t)(uintptr_t)layout << 7) * mul;
  h = (h ^ ((uint64_t)(uint32_t)dtype << 32 | (uint64_t)(uint32_t)known << 8 | n_dims)) * mul;
  for (size_t k = 0; k < n_dims; k++) h = (h ^ (uint64_t)dims[k]) * mul;
  return &c->front[(h >> 40) & (FRONT_SLOTS - 1)];
}

static Ge__Proto__TensorDescriptor *desc_new(tfx_arena *A, tfx_ge_shape_cache *c,
                                             const char *name, int dtype, const int64_t *dims,
                                             size_t n_dims, int shape_known, const char *layout);

Ge__Proto__TensorDescriptor *tfx_ge_desc_new(tfx_arena *A, const char *name, int dtype,
                                             const int64_t *dims, size_t n_dims, int shape_known,
                                             const char *layout) {
  return desc_new(A, NULL, name, dtype, dims, n_dims, shape_known, layout);
}

Ge__Proto__TensorDescriptor *tfx_ge_desc_new_shared(tfx_arena *A, tfx_ge_shape_cache *c,
                                                    const char *name, int dtype,
                                                    const int64_t *dims, size_t n_dims,
                                                    int shape_known, const char *layout) {
  return desc_new(A, c, name, dtype, dims, n_dims, shape_known, layout);
}

static Ge__Proto__TensorDescriptor *desc_make(tfx_arena *A, tfx_ge_shape_cache *c,
                                              const char *name, int dtype, const int64_t *dims,
                                              size_t n_dims, int shape_known, const char *layout);
static Ge__Proto__TensorDescriptor *desc_intern(tfx_ge_shape_cache *c, const char *name,
                                                int dtype, const int64_t *dims, size_t n_dims,
                                                int shape_known, const char *layout,
                                                int copy_strings);

static Ge__Proto__TensorDescriptor *desc_new(tfx_arena *A, tfx_ge_shape_cache *c,
                                             const char *name, int dtype, const int64_t *dims,
                                             size_t n_dims, int shape_known, const char *layout) {
  if (!c || !c->intern) return desc_make(A, c, name, dtype, dims, n_dims, shape_known, layout);
  struct tfx_ge_desc_front *f = front_slot(c, name, dtype, dims, n_dims, shape_known, layout);
  if (f && f->td && f->name == name && f->layout == layout && f->dtype == dtype &&
      f->known == shape_known && f->n_dims == n_dims &&
      (!n_dims || memcmp(f->dims, dims, n_dims * sizeof *dims) == 0))
    return f->td;
  Ge__Proto__TensorDescriptor *td =
      desc_intern(c, name, dtype, dims, n_dims, shape_known, layout, 0);
  if (f && td) {
    f->name = name;
    f->layout = layout;
    f->td = td;
    f->dtype = dtype;
    f->known = shape_known;
    f->n_dims = (uint32_t)n_dims;
    if (n_dims) memcpy(f->dims, dims, n_dims * sizeof *dims);
  }
  return td;
}

/* c->intern: one descriptor per distinct (name, dtype, shape, layout), made in c->A (its name
 * and layout copied there when copy_strings, else borrowed as c->borrow_strings says), sorted
 * and frozen in c->memo when there is one. The key: dtype, shape_known, n_dims, dims, then name
 * and layout with their NULs. */
static Ge__Proto__TensorDescriptor *desc_intern(tfx_ge_shape_cache *c, const char *name,
                                                int dtype, const int64_t *dims, size_t n_dims,
                                                int shape_known, const char *layout,
                                                int copy_strings) {
  if (!name) name = "";
  if (!layout || !*layout) layout = "ND";
  size_t ln = strlen(name) + 1, ll = strlen(layout) + 1;
  size_t klen = (3 + n_dims) * sizeof(int64_t) + ln + ll;
  int64_t kbuf[32];
  int64_t *key = klen <= sizeof kbuf ? kbuf : tfx_malloc(klen);
  if (!key) return NULL;
  key[0] = dtype;
  key[1] = shape_known;
  key[2] = (int64_t)n_dims;
  if (n_dims) memcpy(key + 3, dims, n_dims * sizeof *dims);
  char *kc = (char *)(key + 3 + n_dims);
  memcpy(kc, name, ln);
  memcpy(kc + ln, layout, ll);
  Ge__Proto__TensorDescriptor *td = NULL;
  uint32_t ix = tfx_hmap_get(&c->descs, (const char *)key, klen);
  if (ix != TFX_HASH_NONE) {
    td = c->dv[ix];
  } else {
    char *kept = tfx_arena_alloc(c->A, klen);
    if (kept) memcpy(kept, key, klen);
    if (kept && copy_strings) { /* the copies in the key (see above) */
      name = kc - (char *)key + kept;
      layout = name + ln;
    }
    td = kept ? desc_make(c->A, c, name, dtype, dims, n_dims, shape_known, layout) : NULL;
    if (td) tfx_ge_sort_desc_maps(td);
    if (td && (TFX_GE_PUSH(c->A, c->dv, c->n_dv, td) ||
               tfx_hmap_put(&c->descs, kept, klen, (uint32_t)(c->n_dv - 1), NULL) < 0 ||
               (c->memo && tfx_ge_air_memo_desc(c->memo, td))))
      td = NULL;
  }
  if (key != kbuf) free(key);
  return td;
}

static Ge__Proto__TensorDescriptor *desc_make(tfx_arena *A, tfx_ge_shape_cache *c,
                                              const char *name, int dtype, const int64_t *dims,
                                              size_t n_dims, int shape_known, const char *layout) {
  Ge__Proto__TensorDescriptor *td;
  if (c && c->borrow_strings) { /* name (and layout below) kept as given */
    if ((td = tfx_arena_alloc(A, sizeof *td))) {
      ge__proto__tensor_descriptor__init(td);
      td->name = (char *)(name ? name : "");
    }
  } else {
    td = desc_alloc(A, name);
  }
  Ge__Proto__ShapeDef *sh = tfx_arena_alloc(A, sizeof *sh);
  if (!td || !sh) return NULL;
  ge__proto__shape_def__init(sh);
  if (n_dims) {
    if (!(sh->dim = tfx_arena_calloc(A, n_dims, sizeof *sh->dim))) return NULL;
    memcpy(sh->dim, dims, n_dims * sizeof *dims);
  }
  sh->n_dim = n_dims;
  td->shape = sh;
  td->dtype = (Ge__Proto__DataType)dtype;
  if (!layout || !*layout) layout = "ND";
  if (c && c->borrow_strings)
    td->layout = (char *)layout;
  else if (!(td->layout = tfx_arena_strdup(A, layout)))
    return NULL;
  if (put_origin_format(A, td)) return NULL;
  int unknown_rank = n_dims == 1 && dims[0] == -2;
  if (shape_known && !unknown_rank && c) {
    Ge__Proto__TensorDescriptor__AttrEntry *e = shape_entry(c, dims, n_dims);
    shared_attrs_init();
    if (!e || tfx_ge_td_entry_put(A, td, e) || tfx_ge_td_entry_put(A, td, &shape_known_entry))
      return NULL;
  } else if (shape_known && !unknown_rank) {
    Ge__Proto__AttrDef *os = tfx_ge_attr_list_int(A, dims, n_dims);
    shared_attrs_init();
    if (!os || tfx_ge_td_attr_put(A, td, "origin_shape", os) ||
        tfx_ge_td_entry_put(A, td, &shape_known_entry))
      return NULL;
  }
  return td;
}

/* GE's own serializer (GeTensorSerializeUtils::GeTensorDescAsProto) writes the desc of an
 * absent optional input, GeTensorDesc(GeShape(), FORMAT_RESERVED, DT_UNDEFINED), with layout
 * "FORMAT_RESERVED" (TypeUtils::FormatToSerialString), an empty shape and origin_format "ND"
 * (that desc's default origin format); the loader maps "FORMAT_RESERVED" back without a
 * warning, whereas an empty layout logs "Format not support" for each desc. */
Ge__Proto__TensorDescriptor *tfx_ge_desc_unfed(tfx_arena *A, const char *name) {
  Ge__Proto__TensorDescriptor *td = tfx_ge_desc_new(A, name, GE__PROTO__DATA_TYPE__DT_UNDEFINED,
                                                    NULL, 0, 0, "ND");
  if (!td) return NULL;
  td->layout = (char *)"FORMAT_RESERVED"; /* with DT_UNDEFINED: "not present" (docs/AIR.md §7.2) */
  Ge__Proto__AttrDef *u = tfx_ge_attr_int(A, 1);
  if (!u || tfx_ge_td_attr_put(A, td, "_is_unfed_optional", u)) return NULL;
  return td;
}

Ge__Proto__TensorDescriptor *tfx_ge_desc_copy(tfx_arena *A, const Ge__Proto__TensorDescriptor *src,
                                              const char *name, const char *layout) {
  Ge__Proto__TensorDescriptor *td = tfx_arena_alloc(A, sizeof *td);
  if (!td) return NULL;
  *td = *src;
  td->name = tfx_arena_strdup(A, name ? name : "");
  if (!td->name) return NULL;
  /* own entry array; the entries are shared (never modified once made) */
  if (tfx_ge_td_entries_copy(A, td, src)) return NULL;
  if (layout && strcmp(layout, src->layout ? src->layout : "") != 0) {
    if (!*layout) layout = "ND";
    if (!(td->layout = tfx_arena_strdup(A, layout)) || put_origin_format(A, td)) return NULL;
  }
  return td;
}

Ge__Proto__TensorDescriptor *tfx_ge_desc_copy_shared(tfx_arena *A, tfx_ge_shape_cache *c,
                                                     const Ge__Proto__TensorDescriptor *src,
                                                     const char *name, const char *layout) {
  if (!c || !c->intern || !c->memo || !tfx_ge_air_memo_has(c->memo, src) || !src->shape)
    return tfx_ge_desc_copy(A, src, name, layout);
  /* src is an interned descriptor (only those are frozen here): its entries are origin_format
   * (= its layout) and, when its shape was known, origin_shape and origin_shape_initialized;
   * tfx_ge_desc_copy would give it the new name and, for another layout, the new
   * origin_format in place: what a descriptor made with these values has */
  if (!layout || layout == src->layout || !strcmp(layout, src->layout ? src->layout : ""))
    layout = src->layout;
  if (!layout || !*layout) layout = "ND";
  if (!name) name = "";
  /* the same src, name and layout: the same interned descriptor as last time */
  uint64_t h = (uint64_t)(uintptr_t)src ^ ((uint64_t)(uintptr_t)name << 7);
  h *= 0x9e3779b97f4a7c15ull;
  size_t slot = (size_t)(h >> 55) % (sizeof c->recent / sizeof c->recent[0]);
  Ge__Proto__TensorDescriptor *r = c->recent[slot].td;
  if (r && c->recent[slot].src == src && (r->name == name || !strcmp(r->name, name)) &&
      (r->layout == layout || !strcmp(r->layout, layout)))
    return r;
  int known = tfx_ge_td_attr_get(src, "origin_shape") != NULL;
  r = desc_intern(c, name, src->dtype, src->shape->dim, src->shape->n_dim, known, layout, 1);
  if (r) {
    c->recent[slot].src = src;
    c->recent[slot].td = r;
  }
  return r;
}

/* ---------------------------------------------------------------- TF node facts */

const Tensorflow__AttrValue *tfx_ge_tf_attr(const Tensorflow__NodeDef *nd, const char *key) {
  for (size_t k = 0; nd && k < nd->n_attr; k++)
    if (nd->attr[k] && nd->attr[k]->key && nd->attr[k]->key[0] == key[0] &&
        strcmp(nd->attr[k]->key, key) == 0)
      return nd->attr[k]->value;
  return NULL;
}

/* DT_* name -> TF DataType number; 0 when unknown. */
static int tf_dtype_by_name(const char *s, size_t n) {
  char buf[48];
  if (n == 0 || n >= sizeof buf) return 0;
  memcpy(buf, s, n);
  buf[n] = '\0';
  const ProtobufCEnumValue *ev =
      protobuf_c_enum_descriptor_get_value_by_name(&tensorflow__data_type__descriptor, buf);
  return ev ? ev->value : 0;
}

/* The op def's attr called name, or NULL. */
static const tfx_tf_attr *opdef_attr(const tfx_tf_op *op, const char *name) {
  for (uint32_t k = 0; k < op->n_attrs; k++)
    if (strcmp(op->attrs[k].name, name) == 0) return &op->attrs[k];
  return NULL;
}

/* Value of int attr name on nd, else its op-def default; -1 when unknown. */
static int64_t int_attr(const tfx_tf_op *op, const Tensorflow__NodeDef *nd, const char *name) {
  const Tensorflow__AttrValue *v = tfx_ge_tf_attr(nd, name);
  if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_I) return v->i;
  const tfx_tf_attr *a = opdef_attr(op, name);
  if (a && a->def) {
    char *end;
    long long x = strtoll(a->def, &end, 10);
    if (end != a->def && !*end) return x;
  }
  return -1;
}

/* dtype held by type attr name on nd, else its default; 0 when unknown. */
static int type_attr(const tfx_tf_op *op, const Tensorflow__NodeDef *nd, const char *name) {
  const Tensorflow__AttrValue *v = tfx_ge_tf_attr(nd, name);
  if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE) return (int)v->type;
  const tfx_tf_attr *a = opdef_attr(op, name);
  return a && a->def ? tf_dtype_by_name(a->def, strlen(a->def)) : 0;
}

/* How many flat outputs output arg a of op has on nd (-1 when unknown), and the dtype of its
 * element k (0 when unknown or k < 0). */
static int64_t arg_count(const tfx_tf_op *op, const tfx_tf_arg *a, const Tensorflow__NodeDef *nd) {
  if (a->number_attr) return int_attr(op, nd, a->number_attr);
  if (a->list_attr) {
    const Tensorflow__AttrValue *v = tfx_ge_tf_attr(nd, a->list_attr);
    if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST)
      return v->list ? (int64_t)v->list->n_type : 0;
    return -1;
  }
  return 1;
}

static int arg_dtype(const tfx_tf_op *op, const tfx_tf_arg *a, const Tensorflow__NodeDef *nd,
                     int64_t k) {
  if (a->list_attr) {
    const Tensorflow__AttrValue *v = tfx_ge_tf_attr(nd, a->list_attr);
    if (v && v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list && k >= 0 &&
        (size_t)k < v->list->n_type)
      return (int)v->list->type[k];
    return 0;
  }
  if (!a->type) return 0;
  if (strncmp(a->type, "DT_", 3) == 0) return tf_dtype_by_name(a->type, strlen(a->type));
  return type_attr(op, nd, a->type);
}

/* Attr-based guess of the dtype of output port (ops the table does not know: fused types,
 * custom ops). The first of these that is set: a type, or a list(type) long enough. */
static int guess_dtype(const Tensorflow__NodeDef *nd, int32_t port) {
  static const char *const keys[] = {"DstT",  "out_type", "output_type", "Tout", "output_types",
                                     "dtype", "T"};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
    const Tensorflow__AttrValue *v = tfx_ge_tf_attr(nd, keys[i]);
    if (!v) continue;
    if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_TYPE) return (int)v->type;
    if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list && port >= 0 &&
        (size_t)port < v->list->n_type)
      return (int)v->list->type[port];
  }
  return 0;
}

int tfx_ge_tf_out_dtype(const tfx_tf_table *tt, const Tensorflow__NodeDef *nd, int32_t port) {
  return tfx_ge_tf_out_dtype_op(tt && nd && nd->op ? tfx_tf_op_find(tt, nd->op) : NULL, nd, port);
}

int tfx_ge_tf_out_dtype_op(const tfx_tf_op *op, const Tensorflow__NodeDef *nd, int32_t port) {
  if (op && port >= 0) {
    int64_t base = 0;
    for (uint32_t i = 0; i < op->n_out; i++) {
      int64_t n = arg_count(op, &op->out[i], nd);
      if (n < 0) break; /* unknown count: later ports cannot be placed */
      if (port < base + n) {
        int dt = arg_dtype(op, &op->out[i], nd, port - base);
        if (dt) return dt;
        break;
      }
      base += n;
    }
  }
  return guess_dtype(nd, port);
}

int tfx_ge_tf_flat_port(const tfx_tf_table *tt, const Tensorflow__NodeDef *nd, const char *out_arg,
                        int32_t idx, int32_t *port) {
  *port = idx;
  const tfx_tf_op *op = tt && nd && nd->op ? tfx_tf_op_find(tt, nd->op) : NULL;
  if (!op || !out_arg) return -1;
  int64_t base = 0;
  for (uint32_t i = 0; i < op->n_out; i++) {
    int64_t n = arg_count(op, &op->out[i], nd);
    if (strcmp(op->out[i].name, out_arg) == 0) {
      if (n >= 0 && idx >= n) return -1;
      if (base + idx > INT32_MAX) return -1;
      *port = (int32_t)(base + idx);
      return 0;
    }
    if (n < 0) return -1;
    base += n;
  }
  return -1;
}

int tfx_ge_tf_out_shape(tfx_arena *A, const Tensorflow__NodeDef *nd, int32_t port, int64_t **dims,
                        size_t *n) {
  const Tensorflow__AttrValue *v = tfx_ge_tf_attr(nd, "_output_shapes");
  if (!v || v->value_case != TENSORFLOW__ATTR_VALUE__VALUE_LIST || !v->list || port < 0 ||
      (size_t)port >= v->list->n_shape)
    return 0;
  return tfx_ge_tf_shape(A, v->list->shape[port], dims, n);
}

int tfx_ge_tf_shape(tfx_arena *A, const Tensorflow__TensorShapeProto *s, int64_t **dims,
                    size_t *n) {
  if (!s) return 0;
  size_t nd = s->unknown_rank ? 1 : s->n_dim;
  int64_t *v = tfx_arena_calloc(A, nd ? nd : 1, sizeof *v);
  if (!v) return -1;
  if (s->unknown_rank) {
    v[0] = -2;
  } else {
    for (size_t k = 0; k < nd; k++) {
      int64_t x = s->dim[k] ? s->dim[k]->size : -1;
      v[k] = x < 0 ? -1 : x;
    }
  }
  *dims = v;
  *n = nd;
  return 1;
}
