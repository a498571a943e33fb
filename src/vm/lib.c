/* VM library: the per-run heap, value operations, properties, attribute conversion and the
 * builtin functions (TFX_VM_BUILTINS).
 * Stage: vm (called by the interpreter in vm.c). Every helper returns a TFX_VMR_* code and
 * leaves its message in vm->errmsg; nothing here prints or reports. Loops over graph nodes
 * charge the step budget, so a builtin cannot run unbounded work for free. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/types.pb-c.h"
#include "vm/vm_int.h"

int tfx_vm_err(tfx_vm *vm, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(vm->errmsg, sizeof vm->errmsg, fmt, ap);
  va_end(ap);
  return code;
}

/* ---------------------------------------------------------------- heap */

#define CHUNK_MIN ((size_t)64 << 10)

void *tfx_vm_alloc(tfx_vm *vm, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (n == 0) n = 16;
  if (n > vm->max_mem || vm->mem_used > vm->max_mem - n) {
    vm->heap_rc = tfx_vm_err(vm, TFX_VMR_HEAP, "memory budget of %zu bytes exceeded", vm->max_mem);
    return NULL;
  }
  tfx_vm_chunk *c = vm->cur;
  while (c && c->cap - c->used < n) {
    c = c->next;
    if (c) c->used = 0; /* a chunk kept from an earlier run */
  }
  if (!c) {
    size_t cap = n > CHUNK_MIN ? n : CHUNK_MIN;
    c = tfx_malloc(sizeof *c + cap);
    if (!c) {
      vm->heap_rc = tfx_vm_err(vm, TFX_VMR_NOMEM, "out of memory");
      return NULL;
    }
    c->cap = cap;
    c->used = 0;
    c->next = NULL;
    /* Append at the tail so reset can walk every chunk from the first. */
    if (!vm->chunks) {
      vm->chunks = c;
    } else {
      tfx_vm_chunk *t = vm->cur ? vm->cur : vm->chunks;
      while (t->next) t = t->next;
      t->next = c;
    }
  }
  vm->cur = c;
  void *p = (char *)c->data + c->used;
  c->used += n;
  vm->mem_used += n;
  return p;
}

void tfx_vm_heap_reset(tfx_vm *vm) {
  vm->cur = vm->chunks;
  if (vm->cur) vm->cur->used = 0;
  vm->mem_used = 0;
}

void tfx_vm_heap_free(tfx_vm *vm) {
  tfx_vm_chunk *c = vm->chunks;
  while (c) {
    tfx_vm_chunk *n = c->next;
    free(c);
    c = n;
  }
  vm->chunks = vm->cur = NULL;
  vm->mem_used = 0;
}

int tfx_vm_charge(tfx_vm *vm, uint64_t n) {
  vm->steps += n;
  if (vm->steps > vm->max_steps)
    return tfx_vm_err(vm, TFX_VMR_BUDGET, "step budget of %llu exceeded (raise the vm-steps "
                      "limit with --limit vm-steps=N or --vm-budget N)",
                      (unsigned long long)vm->max_steps);
  return TFX_VMR_OK;
}

int tfx_vm_make_str(tfx_vm *vm, const char *s, size_t n, tfx_value *out) {
  if (n >= UINT32_MAX) return tfx_vm_err(vm, TFX_VMR_RUNTIME, "string too long");
  char *p = tfx_vm_alloc(vm, n + 1);
  if (!p) return tfx_vm_heap_fail(vm);
  if (n) memcpy(p, s, n);
  p[n] = 0;
  *out = tfx_v_str(p, (uint32_t)n);
  return TFX_VMR_OK;
}

static tfx_value *alloc_items(tfx_vm *vm, size_t n) {
  if (n >= UINT32_MAX / sizeof(tfx_value)) {
    vm->heap_rc = tfx_vm_err(vm, TFX_VMR_HEAP, "list too long");
    return NULL;
  }
  return tfx_vm_alloc(vm, n * sizeof(tfx_value));
}

/* Wraps items as a list value, enforcing the nesting limit. */
static int make_list(tfx_vm *vm, const tfx_value *items, uint32_t n, tfx_value *out) {
  if (tfx_v_list_depth(items, n) > TFX_V_MAX_DEPTH)
    return tfx_vm_err(vm, TFX_VMR_RUNTIME, "lists nested deeper than %d", TFX_V_MAX_DEPTH);
  *out = tfx_v_list(items, n);
  return TFX_VMR_OK;
}

int tfx_vm_id_list(tfx_vm *vm, int tag, const uint32_t *ids, uint32_t n, tfx_value *out) {
  tfx_value *items = alloc_items(vm, n);
  if (!items) return tfx_vm_heap_fail(vm);
  for (uint32_t i = 0; i < n; i++)
    items[i] = tag == TFX_V_SCOPE ? tfx_v_scope(ids[i]) : tfx_v_node(ids[i]);
  *out = tfx_v_list(items, n);
  return TFX_VMR_OK;
}

/* ---------------------------------------------------------------- values */

const char *tfx_v_tag_name(int tag) {
  static const char *const names[TFX_V__COUNT] = {"none", "bool", "int", "float", "string",
                                                  "dtype", "list", "scope", "node"};
  return tag >= 0 && tag < TFX_V__COUNT ? names[tag] : "?";
}

static int is_num(const tfx_value *v) { return v->tag == TFX_V_INT || v->tag == TFX_V_FLOAT; }
static double num(const tfx_value *v) { return v->tag == TFX_V_INT ? (double)v->u.i : v->u.f; }

/* Recursion is bounded by TFX_V_MAX_DEPTH (list nesting is capped at construction). */
int tfx_v_equal(const tfx_value *a, const tfx_value *b) {
  if (is_num(a) && is_num(b)) {
    if (a->tag == TFX_V_INT && b->tag == TFX_V_INT) return a->u.i == b->u.i;
    return num(a) == num(b);
  }
  if (a->tag != b->tag) return 0;
  switch (a->tag) {
  case TFX_V_NONE: return 1;
  case TFX_V_BOOL:
  case TFX_V_DTYPE: return a->u.i == b->u.i;
  case TFX_V_STR: return a->n == b->n && (a->n == 0 || memcmp(a->u.s, b->u.s, a->n) == 0);
  case TFX_V_SCOPE:
  case TFX_V_NODE: return a->u.id == b->u.id;
  case TFX_V_LIST:
    if (a->n != b->n) return 0;
    for (uint32_t i = 0; i < a->n; i++)
      if (!tfx_v_equal(&a->u.items[i], &b->u.items[i])) return 0;
    return 1;
  default: return 0;
  }
}

static int type_err2(tfx_vm *vm, const char *what, const tfx_value *a, const tfx_value *b) {
  return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: %s %s and %s", what, tfx_v_tag_name(a->tag),
                    tfx_v_tag_name(b->tag));
}

static int concat(tfx_vm *vm, const tfx_value *a, const tfx_value *b, tfx_value *out) {
  if (a->tag == TFX_V_STR) {
    size_t n = (size_t)a->n + b->n;
    if (n >= UINT32_MAX) return tfx_vm_err(vm, TFX_VMR_RUNTIME, "string too long");
    char *p = tfx_vm_alloc(vm, n + 1);
    if (!p) return tfx_vm_heap_fail(vm);
    memcpy(p, a->u.s, a->n);
    memcpy(p + a->n, b->u.s, b->n);
    p[n] = 0;
    *out = tfx_v_str(p, (uint32_t)n);
    return TFX_VMR_OK;
  }
  size_t n = (size_t)a->n + b->n;
  tfx_value *items = alloc_items(vm, n);
  if (!items) return tfx_vm_heap_fail(vm);
  if (a->n) memcpy(items, a->u.items, a->n * sizeof *items);
  if (b->n) memcpy(items + a->n, b->u.items, b->n * sizeof *items);
  int rc = tfx_vm_charge(vm, n / 16);
  return rc ? rc : make_list(vm, items, (uint32_t)n, out);
}

int tfx_vm_arith(tfx_vm *vm, tfx_opcode op, const tfx_value *a, const tfx_value *b, tfx_value *out) {
  if (op == TFX_OP_NEG) {
    if (a->tag == TFX_V_INT) {
      if (a->u.i == INT64_MIN) return tfx_vm_err(vm, TFX_VMR_RUNTIME, "integer overflow");
      *out = tfx_v_int(-a->u.i);
    } else if (a->tag == TFX_V_FLOAT) {
      *out = tfx_v_float(-a->u.f);
    } else {
      return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: cannot negate %s", tfx_v_tag_name(a->tag));
    }
    return TFX_VMR_OK;
  }
  if (op == TFX_OP_ADD && a->tag == b->tag && (a->tag == TFX_V_STR || a->tag == TFX_V_LIST))
    return concat(vm, a, b, out);
  /* Indexed by op - ADD: the X-macro keeps ADD..MOD consecutive. */
  static const char *const what[] = {"cannot add", "cannot subtract", "cannot multiply",
                                     "cannot divide", "cannot take the remainder of"};
  _Static_assert(TFX_OP_SUB == TFX_OP_ADD + 1 && TFX_OP_MUL == TFX_OP_ADD + 2 &&
                     TFX_OP_DIV == TFX_OP_ADD + 3 && TFX_OP_MOD == TFX_OP_ADD + 4 &&
                     sizeof what / sizeof *what == TFX_OP_MOD - TFX_OP_ADD + 1,
                 "arith message table");
  int k = op - TFX_OP_ADD;
  if (!is_num(a) || !is_num(b)) return type_err2(vm, what[k], a, b);
  if (a->tag == TFX_V_INT && b->tag == TFX_V_INT) {
    int64_t x = a->u.i, y = b->u.i, r = 0;
    int ovf = 0;
    switch (op) {
    case TFX_OP_ADD: ovf = __builtin_add_overflow(x, y, &r); break;
    case TFX_OP_SUB: ovf = __builtin_sub_overflow(x, y, &r); break;
    case TFX_OP_MUL: ovf = __builtin_mul_overflow(x, y, &r); break;
    case TFX_OP_DIV:
    case TFX_OP_MOD:
      if (y == 0) return tfx_vm_err(vm, TFX_VMR_RUNTIME, "division by zero");
      if (x == INT64_MIN && y == -1) {
        ovf = op == TFX_OP_DIV;
        r = 0;
      } else {
        r = op == TFX_OP_DIV ? x / y : x % y;
      }
      break;
    default: break;
    }
    if (ovf) return tfx_vm_err(vm, TFX_VMR_RUNTIME, "integer overflow");
    *out = tfx_v_int(r);
    return TFX_VMR_OK;
  }
  double x = num(a), y = num(b), r = 0;
  switch (op) {
  case TFX_OP_ADD: r = x + y; break;
  case TFX_OP_SUB: r = x - y; break;
  case TFX_OP_MUL: r = x * y; break;
  case TFX_OP_DIV:
  case TFX_OP_MOD:
    if (y == 0) return tfx_vm_err(vm, TFX_VMR_RUNTIME, "division by zero");
    r = op == TFX_OP_DIV ? x / y : fmod(x, y);
    break;
  default: break;
  }
  *out = tfx_v_float(r);
  return TFX_VMR_OK;
}

int tfx_vm_compare(tfx_vm *vm, tfx_opcode op, const tfx_value *a, const tfx_value *b, tfx_value *out) {
  int c;
  if (is_num(a) && is_num(b)) {
    if (a->tag == TFX_V_INT && b->tag == TFX_V_INT) {
      c = (a->u.i > b->u.i) - (a->u.i < b->u.i);
    } else {
      double x = num(a), y = num(b);
      if (x != x || y != y) { /* NaN: every ordering is false */
        *out = tfx_v_bool(0);
        return TFX_VMR_OK;
      }
      c = (x > y) - (x < y);
    }
  } else if (a->tag == TFX_V_STR && b->tag == TFX_V_STR) {
    uint32_t n = a->n < b->n ? a->n : b->n;
    c = n ? memcmp(a->u.s, b->u.s, n) : 0;
    if (c == 0) c = (a->n > b->n) - (a->n < b->n);
  } else {
    return type_err2(vm, "cannot order", a, b);
  }
  int r = op == TFX_OP_LT ? c < 0 : op == TFX_OP_LE ? c <= 0 : op == TFX_OP_GT ? c > 0 : c >= 0;
  *out = tfx_v_bool(r);
  return TFX_VMR_OK;
}

/* The first occurrence of sub[0 .. m) in s[0 .. n), or NULL. Candidates are found with
 * memchr on the first byte (`name contains "..."` over long names was a byte loop). */
static const char *find_sub(const char *s, size_t n, const char *sub, size_t m) {
  if (m == 0) return s;
  if (m > n) return NULL;
  const char *p = s, *last = s + (n - m); /* the last possible start */
  while (p <= last) {
    p = memchr(p, (unsigned char)sub[0], (size_t)(last - p) + 1);
    if (!p) return NULL;
    if (memcmp(p, sub, m) == 0) return p;
    p++;
  }
  return NULL;
}

int tfx_vm_strtest(tfx_vm *vm, tfx_opcode op, const tfx_value *a, const tfx_value *b, tfx_value *out) {
  if (a->tag == TFX_V_NONE && b->tag == TFX_V_STR) { /* none.name contains "x": false */
    *out = tfx_v_bool(0);
    return TFX_VMR_OK;
  }
  if (op == TFX_OP_CONTAINS && a->tag == TFX_V_LIST) { /* `list contains x`: membership */
    int rc = tfx_vm_charge(vm, a->n / 8);
    if (rc) return rc;
    int hit = 0;
    for (uint32_t i = 0; i < a->n && !hit; i++) hit = tfx_v_equal(&a->u.items[i], b);
    *out = tfx_v_bool(hit);
    return TFX_VMR_OK;
  }
  if (a->tag != TFX_V_STR || b->tag != TFX_V_STR) {
    const char *w = op == TFX_OP_CONTAINS ? "contains" : op == TFX_OP_STARTS ? "starts_with" : "ends_with";
    return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: %s needs strings, not %s and %s", w,
                      tfx_v_tag_name(a->tag), tfx_v_tag_name(b->tag));
  }
  int r;
  if (op == TFX_OP_CONTAINS)
    r = find_sub(a->u.s, a->n, b->u.s, b->n) != NULL;
  else if (op == TFX_OP_STARTS)
    r = b->n <= a->n && memcmp(a->u.s, b->u.s, b->n) == 0;
  else
    r = b->n <= a->n && memcmp(a->u.s + a->n - b->n, b->u.s, b->n) == 0;
  *out = tfx_v_bool(r);
  return TFX_VMR_OK;
}

int tfx_vm_index(tfx_vm *vm, const tfx_value *x, const tfx_value *i, tfx_value *out) {
  if (x->tag == TFX_V_NONE) {
    *out = tfx_v_none();
    return TFX_VMR_OK;
  }
  if ((x->tag != TFX_V_LIST && x->tag != TFX_V_STR) || i->tag != TFX_V_INT)
    return type_err2(vm, "cannot index", x, i);
  int64_t k = i->u.i < 0 ? i->u.i + (int64_t)x->n : i->u.i;
  if (k < 0 || k >= (int64_t)x->n) {
    *out = tfx_v_none();
    return TFX_VMR_OK;
  }
  if (x->tag == TFX_V_LIST) {
    *out = x->u.items[k];
    return TFX_VMR_OK;
  }
  return tfx_vm_make_str(vm, x->u.s + k, 1, out);
}

/* Python-style bound: none = default, negative counts from the end, then clamped. */
static int slice_bound(tfx_vm *vm, const tfx_value *b, int64_t n, int64_t dflt, int64_t *out) {
  if (b->tag == TFX_V_NONE) {
    *out = dflt;
    return TFX_VMR_OK;
  }
  if (b->tag != TFX_V_INT)
    return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: slice bound is %s, not int", tfx_v_tag_name(b->tag));
  int64_t k = b->u.i < 0 ? b->u.i + n : b->u.i;
  *out = k < 0 ? 0 : k > n ? n : k;
  return TFX_VMR_OK;
}

int tfx_vm_slice(tfx_vm *vm, const tfx_value *x, const tfx_value *lo, const tfx_value *hi, tfx_value *out) {
  if (x->tag == TFX_V_NONE) {
    *out = tfx_v_none();
    return TFX_VMR_OK;
  }
  if (x->tag != TFX_V_LIST && x->tag != TFX_V_STR)
    return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: cannot slice %s", tfx_v_tag_name(x->tag));
  int64_t a = 0, b = 0;
  int rc = slice_bound(vm, lo, x->n, 0, &a);
  if (!rc) rc = slice_bound(vm, hi, x->n, x->n, &b);
  if (rc) return rc;
  if (b < a) b = a;
  if (x->tag == TFX_V_STR) return tfx_vm_make_str(vm, x->u.s + a, (size_t)(b - a), out);
  *out = tfx_v_list(x->u.items + a, (uint32_t)(b - a)); /* lists are immutable: share */
  out->depth = x->depth;
  return TFX_VMR_OK;
}

int tfx_vm_perm(tfx_vm *vm, const tfx_value *x, const tfx_value *idx, tfx_value *out) {
  if (x->tag != TFX_V_LIST || idx->tag != TFX_V_LIST) return type_err2(vm, "cannot permute", x, idx);
  tfx_value *items = alloc_items(vm, idx->n);
  if (!items) return tfx_vm_heap_fail(vm);
  for (uint32_t j = 0; j < idx->n; j++) {
    const tfx_value *i = &idx->u.items[j];
    if (i->tag != TFX_V_INT)
      return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: permutation index is %s", tfx_v_tag_name(i->tag));
    int64_t k = i->u.i < 0 ? i->u.i + (int64_t)x->n : i->u.i;
    if (k < 0 || k >= (int64_t)x->n)
      return tfx_vm_err(vm, TFX_VMR_RUNTIME, "permutation index %lld out of range for a list of %u",
                        (long long)i->u.i, x->n);
    items[j] = x->u.items[k];
  }
  *out = tfx_v_list(items, idx->n);
  return TFX_VMR_OK;
}

/* ---------------------------------------------------------------- scopes, nodes, attrs */

static int need_tree(tfx_vm *vm) {
  return vm->tree ? TFX_VMR_OK : tfx_vm_err(vm, TFX_VMR_RUNTIME, "no scope tree linked");
}

/* 1 if node n lies in the subtree of scope s. */
static int node_inside(const tfx_vm *vm, uint32_t n, uint32_t s) {
  uint32_t ns = vm->tree->node_scope[n];
  if (ns == TFX_NO_ID) return 0;
  const tfx_scope *sc = &vm->tree->scopes[s];
  uint32_t di = vm->tree->scopes[ns].dfs_index;
  return di >= sc->dfs_index && di < sc->dfs_end;
}

static int cmp_node_value(const void *a, const void *b) {
  uint32_t x = ((const tfx_value *)a)->u.id, y = ((const tfx_value *)b)->u.id;
  return x < y ? -1 : x > y;
}

/* Nodes of scope s's subtree in graph order: the direct nodes of every scope of the subtree
 * (a dfs range), sorted by node id. Cost O(subtree scopes + k log k), not O(graph), so a
 * rule calling it once per matched scope stays linear on large graphs. */
static int subtree_nodes(tfx_vm *vm, uint32_t s, tfx_value *out) {
  const tfx_scope_tree *t = vm->tree;
  const tfx_scope *sc = &t->scopes[s];
  uint32_t n = sc->n_all_nodes, k = 0;
  int rc = tfx_vm_charge(vm, (uint64_t)(sc->dfs_end - sc->dfs_index) / 8 + n / 8 + 1);
  if (rc) return rc;
  tfx_value *items = alloc_items(vm, n);
  if (!items) return tfx_vm_heap_fail(vm);
  for (uint32_t d = sc->dfs_index; d < sc->dfs_end; d++) {
    const tfx_scope *c = &t->scopes[t->dfs[d]];
    for (uint32_t j = 0; j < c->n_nodes && k < n; j++) items[k++] = tfx_v_node(c->nodes[j]);
  }
  if (k > 32) {
    qsort(items, k, sizeof *items, cmp_node_value);
  } else { /* short: by insertion (ascending runs, one per scope; ids differ: the same order) */
    for (uint32_t i = 1; i < k; i++) {
      tfx_value x = items[i];
      uint32_t j = i;
      for (; j > 0 && items[j - 1].u.id > x.u.id; j--) items[j] = items[j - 1];
      items[j] = x;
    }
  }
  *out = tfx_v_list(items, k);
  return TFX_VMR_OK;
}

static const Tensorflow__AttrValue *node_attr(const tfx_node *nd, const char *name) {
  const Tensorflow__NodeDef *def = nd->def;
  if (!def) return NULL;
  for (size_t k = 0; k < def->n_attr; k++)
    if (def->attr[k]->key && strcmp(def->attr[k]->key, name) == 0) return def->attr[k]->value;
  return NULL;
}

static float half_to_float(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400), e - 25);
  return (h & 0x8000) ? -v : v;
}

static float bf16_to_float(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

#define TENSOR_MAX_ELEMS ((size_t)1 << 20)

/* The values of a TensorProto as a flat list (scalars give a one-element list). */
static int tensor_list(tfx_vm *vm, const Tensorflow__TensorProto *t, tfx_value *out) {
  size_t want = 1;
  int shaped = 0;
  if (t->tensor_shape && !t->tensor_shape->unknown_rank) {
    shaped = 1;
    for (size_t i = 0; i < t->tensor_shape->n_dim; i++) {
      int64_t d = t->tensor_shape->dim[i]->size;
      if (d < 0) {
        shaped = 0;
        break;
      }
      if (d > 0 && want > TENSOR_MAX_ELEMS / (size_t)d) return tfx_vm_err(vm, TFX_VMR_RUNTIME, "tensor too large");
      want *= (size_t)d;
    }
  }
  const unsigned char *raw = t->tensor_content.data;
  size_t rawn = t->tensor_content.len, esz = 0, have = 0;
  switch (t->dtype) {
  case TENSORFLOW__DATA_TYPE__DT_FLOAT: case TENSORFLOW__DATA_TYPE__DT_INT32:
  case TENSORFLOW__DATA_TYPE__DT_UINT32: esz = 4; have = t->dtype == TENSORFLOW__DATA_TYPE__DT_FLOAT ? t->n_float_val : t->dtype == TENSORFLOW__DATA_TYPE__DT_INT32 ? t->n_int_val : t->n_uint32_val; break;
  case TENSORFLOW__DATA_TYPE__DT_DOUBLE: esz = 8; have = t->n_double_val; break;
  case TENSORFLOW__DATA_TYPE__DT_INT64: esz = 8; have = t->n_int64_val; break;
  case TENSORFLOW__DATA_TYPE__DT_UINT64: esz = 8; have = t->n_uint64_val; break;
  case TENSORFLOW__DATA_TYPE__DT_INT16: case TENSORFLOW__DATA_TYPE__DT_UINT16: esz = 2; have = t->n_int_val; break;
  case TENSORFLOW__DATA_TYPE__DT_HALF: case TENSORFLOW__DATA_TYPE__DT_BFLOAT16: esz = 2; have = t->n_half_val; break;
  case TENSORFLOW__DATA_TYPE__DT_INT8: case TENSORFLOW__DATA_TYPE__DT_UINT8: esz = 1; have = t->n_int_val; break;
  case TENSORFLOW__DATA_TYPE__DT_BOOL: esz = 1; have = t->n_bool_val; break;
  case TENSORFLOW__DATA_TYPE__DT_STRING: esz = 0; have = t->n_string_val; break;
  default: return tfx_vm_err(vm, TFX_VMR_RUNTIME, "const_value: unsupported tensor dtype %d", (int)t->dtype);
  }
  int from_raw = rawn > 0 && esz > 0;
  if (from_raw) have = rawn / esz;
  size_t n = shaped ? want : have;
  if (n > TENSOR_MAX_ELEMS) return tfx_vm_err(vm, TFX_VMR_RUNTIME, "tensor too large");
  int rc = tfx_vm_charge(vm, n / 8 + 1);
  if (rc) return rc;
  tfx_value *items = alloc_items(vm, n);
  if (!items) return tfx_vm_heap_fail(vm);
  for (size_t i = 0; i < n; i++) {
    if (have == 0) { /* TF: no values means zeros */
      items[i] = t->dtype == TENSORFLOW__DATA_TYPE__DT_FLOAT || t->dtype == TENSORFLOW__DATA_TYPE__DT_DOUBLE ||
                         t->dtype == TENSORFLOW__DATA_TYPE__DT_HALF || t->dtype == TENSORFLOW__DATA_TYPE__DT_BFLOAT16
                     ? tfx_v_float(0)
                 : t->dtype == TENSORFLOW__DATA_TYPE__DT_BOOL ? tfx_v_bool(0)
                 : t->dtype == TENSORFLOW__DATA_TYPE__DT_STRING ? tfx_v_str("", 0)
                                                                : tfx_v_int(0);
      continue;
    }
    size_t j = i < have ? i : have - 1; /* TF: the last value repeats */
    if (from_raw) {
      const unsigned char *e = raw + j * esz;
      uint64_t u = 0;
      for (size_t b = 0; b < esz; b++) u |= (uint64_t)e[b] << (8 * b);
      switch (t->dtype) {
      case TENSORFLOW__DATA_TYPE__DT_FLOAT: { uint32_t w = (uint32_t)u; float f; memcpy(&f, &w, 4); items[i] = tfx_v_float(f); break; }
      case TENSORFLOW__DATA_TYPE__DT_DOUBLE: { double f; memcpy(&f, &u, 8); items[i] = tfx_v_float(f); break; }
      case TENSORFLOW__DATA_TYPE__DT_INT32: items[i] = tfx_v_int((int32_t)(uint32_t)u); break;
      case TENSORFLOW__DATA_TYPE__DT_INT16: items[i] = tfx_v_int((int16_t)(uint16_t)u); break;
      case TENSORFLOW__DATA_TYPE__DT_INT8: items[i] = tfx_v_int((int8_t)(uint8_t)u); break;
      case TENSORFLOW__DATA_TYPE__DT_INT64: items[i] = tfx_v_int((int64_t)u); break;
      case TENSORFLOW__DATA_TYPE__DT_UINT64: items[i] = tfx_v_int(u > INT64_MAX ? INT64_MAX : (int64_t)u); break;
      case TENSORFLOW__DATA_TYPE__DT_HALF: items[i] = tfx_v_float(half_to_float((uint16_t)u)); break;
      case TENSORFLOW__DATA_TYPE__DT_BFLOAT16: items[i] = tfx_v_float(bf16_to_float((uint16_t)u)); break;
      case TENSORFLOW__DATA_TYPE__DT_BOOL: items[i] = tfx_v_bool(u != 0); break;
      default: items[i] = tfx_v_int((int64_t)u); break; /* unsigned 8/16/32 */
      }
      continue;
    }
    switch (t->dtype) {
    case TENSORFLOW__DATA_TYPE__DT_FLOAT: items[i] = tfx_v_float(t->float_val[j]); break;
    case TENSORFLOW__DATA_TYPE__DT_DOUBLE: items[i] = tfx_v_float(t->double_val[j]); break;
    case TENSORFLOW__DATA_TYPE__DT_INT64: items[i] = tfx_v_int(t->int64_val[j]); break;
    case TENSORFLOW__DATA_TYPE__DT_UINT32: items[i] = tfx_v_int(t->uint32_val[j]); break;
    case TENSORFLOW__DATA_TYPE__DT_UINT64: items[i] = tfx_v_int(t->uint64_val[j] > INT64_MAX ? INT64_MAX : (int64_t)t->uint64_val[j]); break;
    case TENSORFLOW__DATA_TYPE__DT_HALF: items[i] = tfx_v_float(half_to_float((uint16_t)t->half_val[j])); break;
    case TENSORFLOW__DATA_TYPE__DT_BFLOAT16: items[i] = tfx_v_float(bf16_to_float((uint16_t)t->half_val[j])); break;
    case TENSORFLOW__DATA_TYPE__DT_BOOL: items[i] = tfx_v_bool(t->bool_val[j]); break;
    case TENSORFLOW__DATA_TYPE__DT_STRING:
      rc = tfx_vm_make_str(vm, (const char *)t->string_val[j].data, t->string_val[j].len, &items[i]);
      if (rc) return rc;
      break;
    default: items[i] = tfx_v_int(t->int_val[j]); break;
    }
  }
  *out = tfx_v_list(items, (uint32_t)n);
  return TFX_VMR_OK;
}

static int shape_list(tfx_vm *vm, const Tensorflow__TensorShapeProto *sh, tfx_value *out) {
  if (!sh || sh->unknown_rank) { /* AutoMapping: unknown rank -> UNKNOWN_SHAPE [-1] (ASCEND.md §6.2) */
    tfx_value *one = alloc_items(vm, 1);
    if (!one) return tfx_vm_heap_fail(vm);
    one[0] = tfx_v_int(-1);
    *out = tfx_v_list(one, 1);
    return TFX_VMR_OK;
  }
  tfx_value *items = alloc_items(vm, sh->n_dim);
  if (!items) return tfx_vm_heap_fail(vm);
  for (size_t i = 0; i < sh->n_dim; i++) items[i] = tfx_v_int(sh->dim[i]->size);
  *out = tfx_v_list(items, (uint32_t)sh->n_dim);
  return TFX_VMR_OK;
}

/* One AttrValue as a VM value: s string, i int, f float, b bool, type dtype, shape list of
 * dims, tensor its value list, func its name, list(...) a list of those. */
static int attr_value(tfx_vm *vm, const Tensorflow__AttrValue *av, tfx_value *out) {
  switch (av->value_case) {
  case TENSORFLOW__ATTR_VALUE__VALUE_S: return tfx_vm_make_str(vm, (const char *)av->s.data, av->s.len, out);
  case TENSORFLOW__ATTR_VALUE__VALUE_I: *out = tfx_v_int(av->i); return TFX_VMR_OK;
  case TENSORFLOW__ATTR_VALUE__VALUE_F: *out = tfx_v_float(av->f); return TFX_VMR_OK;
  case TENSORFLOW__ATTR_VALUE__VALUE_B: *out = tfx_v_bool(av->b); return TFX_VMR_OK;
  case TENSORFLOW__ATTR_VALUE__VALUE_TYPE: *out = tfx_v_dtype(av->type); return TFX_VMR_OK;
  case TENSORFLOW__ATTR_VALUE__VALUE_SHAPE: return shape_list(vm, av->shape, out);
  case TENSORFLOW__ATTR_VALUE__VALUE_TENSOR:
    if (!av->tensor) break;
    return tensor_list(vm, av->tensor, out);
  case TENSORFLOW__ATTR_VALUE__VALUE_FUNC:
    if (!av->func || !av->func->name) break;
    return tfx_vm_make_str(vm, av->func->name, strlen(av->func->name), out);
  case TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER:
    if (!av->placeholder) break;
    return tfx_vm_make_str(vm, av->placeholder, strlen(av->placeholder), out);
  case TENSORFLOW__ATTR_VALUE__VALUE_LIST: {
    const Tensorflow__AttrValue__ListValue *l = av->list;
    if (!l) break;
    size_t n = l->n_s + l->n_i + l->n_f + l->n_b + l->n_type + l->n_shape + l->n_tensor + l->n_func;
    tfx_value *items = alloc_items(vm, n);
    if (!items) return tfx_vm_heap_fail(vm);
    int rc = tfx_vm_charge(vm, n / 8);
    size_t k = 0;
    for (size_t i = 0; i < l->n_s && !rc; i++) rc = tfx_vm_make_str(vm, (const char *)l->s[i].data, l->s[i].len, &items[k++]);
    for (size_t i = 0; i < l->n_i; i++) items[k++] = tfx_v_int(l->i[i]);
    for (size_t i = 0; i < l->n_f; i++) items[k++] = tfx_v_float(l->f[i]);
    for (size_t i = 0; i < l->n_b; i++) items[k++] = tfx_v_bool(l->b[i]);
    for (size_t i = 0; i < l->n_type; i++) items[k++] = tfx_v_dtype(l->type[i]);
    for (size_t i = 0; i < l->n_shape && !rc; i++) rc = shape_list(vm, l->shape[i], &items[k++]);
    for (size_t i = 0; i < l->n_tensor && !rc; i++) rc = tensor_list(vm, l->tensor[i], &items[k++]);
    for (size_t i = 0; i < l->n_func && !rc; i++)
      rc = tfx_vm_make_str(vm, l->func[i]->name ? l->func[i]->name : "", l->func[i]->name ? strlen(l->func[i]->name) : 0, &items[k++]);
    if (rc) return rc;
    *out = tfx_v_list(items, (uint32_t)n);
    return TFX_VMR_OK;
  }
  default: break;
  }
  *out = tfx_v_none();
  return TFX_VMR_OK;
}

int tfx_vm_attr(tfx_vm *vm, const tfx_value *obj, const char *name, tfx_value *out) {
  if (obj->tag == TFX_V_NONE) {
    *out = tfx_v_none();
    return TFX_VMR_OK;
  }
  if (obj->tag != TFX_V_NODE)
    return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: %s has no attributes (attr '%s')",
                      tfx_v_tag_name(obj->tag), name);
  const Tensorflow__AttrValue *av = node_attr(&vm->graph->nodes[obj->u.id], name);
  if (!av) {
    *out = tfx_v_none();
    return TFX_VMR_OK;
  }
  return attr_value(vm, av, out);
}

int tfx_vm_attr_feature(tfx_vm *vm, uint32_t scope, uint32_t op, const char *name,
                        const tfx_value *want, tfx_value *found, int *matched) {
  const tfx_scope *s = &vm->tree->scopes[scope];
  *found = tfx_v_none();
  *matched = 0;
  for (uint32_t i = 0; i < s->n_nodes; i++) {
    const tfx_node *nd = &vm->graph->nodes[s->nodes[i]];
    if (op == TFX_NO_ID || nd->op_id != op) continue;
    int rc = tfx_vm_charge(vm, 1);
    if (rc) return rc;
    if (want->tag != TFX_V_INT && want->tag != TFX_V_FLOAT && want->tag != TFX_V_STR &&
        want->tag != TFX_V_BOOL) {
      *matched = 1; /* unsupported data type: one node of the type suffices (docs/ASCEND.md §2.2) */
      return TFX_VMR_OK;
    }
    const Tensorflow__AttrValue *av = node_attr(nd, name);
    int ok = 0, present = 0;
    if (av) {
      switch (want->tag) {
      case TFX_V_INT:
        present = av->value_case == TENSORFLOW__ATTR_VALUE__VALUE_I;
        ok = present && av->i == want->u.i;
        break;
      case TFX_V_FLOAT:
        present = av->value_case == TENSORFLOW__ATTR_VALUE__VALUE_F;
        ok = present && fabs((double)av->f - want->u.f) < TFX_VM_FLOAT_TOLERANCE;
        break;
      case TFX_V_STR:
        present = av->value_case == TENSORFLOW__ATTR_VALUE__VALUE_S;
        ok = present && av->s.len == want->n && (want->n == 0 || memcmp(av->s.data, want->u.s, want->n) == 0);
        break;
      default:
        present = av->value_case == TENSORFLOW__ATTR_VALUE__VALUE_B;
        ok = present && (av->b != 0) == (want->u.i != 0);
        break;
      }
    }
    if (!present) { /* missing (or of another type: GetAttr fails) -> the feature fails */
      *found = tfx_v_none();
      return TFX_VMR_OK;
    }
    rc = attr_value(vm, av, found);
    if (rc) return rc;
    if (ok) {
      *matched = 1;
      return TFX_VMR_OK;
    }
  }
  return TFX_VMR_OK;
}

int tfx_vm_prop(tfx_vm *vm, uint32_t prop, const tfx_value *obj, tfx_value *out) {
  if (obj->tag == TFX_V_NONE) {
    *out = tfx_v_none();
    return TFX_VMR_OK;
  }
  unsigned on = obj->tag == TFX_V_SCOPE ? TFX_PROP_ON_SCOPE : obj->tag == TFX_V_NODE ? TFX_PROP_ON_NODE : 0;
  if (!(tfx_vm_props[prop].on & on))
    return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: %s has no property '%s'",
                      tfx_v_tag_name(obj->tag), tfx_vm_props[prop].name);
  if (obj->tag == TFX_V_SCOPE) {
    const tfx_scope *s = &vm->tree->scopes[obj->u.id];
    switch ((tfx_prop)prop) {
    case TFX_PR_name: *out = tfx_v_str(s->name, (uint32_t)strlen(s->name)); return TFX_VMR_OK;
    case TFX_PR_last_name: *out = tfx_v_str(s->last_name, (uint32_t)strlen(s->last_name)); return TFX_VMR_OK;
    case TFX_PR_parent: *out = s->parent == TFX_NO_ID ? tfx_v_none() : tfx_v_scope(s->parent); return TFX_VMR_OK;
    case TFX_PR_children: return tfx_vm_id_list(vm, TFX_V_SCOPE, s->children, s->n_children, out);
    case TFX_PR_sub_type:
      if (s->sub_type == TFX_NO_ID || !vm->subtypes || s->sub_type >= vm->subtypes->n) {
        *out = tfx_v_none();
      } else {
        const char *st = tfx_intern_str(vm->subtypes, s->sub_type);
        *out = tfx_v_str(st, (uint32_t)strlen(st));
      }
      return TFX_VMR_OK;
    case TFX_PR_nodes: return tfx_vm_id_list(vm, TFX_V_NODE, s->nodes, s->n_nodes, out);
    case TFX_PR_all_nodes: return subtree_nodes(vm, obj->u.id, out);
    default: break;
    }
  } else {
    const tfx_node *nd = &vm->graph->nodes[obj->u.id];
    switch ((tfx_prop)prop) {
    case TFX_PR_name: *out = tfx_v_str(nd->name, (uint32_t)strlen(nd->name)); return TFX_VMR_OK;
    case TFX_PR_op: {
      /* the linked op table's copy of the same string (nd->op_id interns nd->op): a few
       * hundred short strings that stay in cache, where nd->op is a cold read per node */
      const char *op = vm->ops && nd->op_id < vm->ops->n ? tfx_intern_str(vm->ops, nd->op_id) : nd->op;
      *out = tfx_v_str(op ? op : "", op ? (uint32_t)strlen(op) : 0);
      return TFX_VMR_OK;
    }
    case TFX_PR_scope: {
      uint32_t s = vm->tree ? vm->tree->node_scope[obj->u.id] : TFX_NO_ID;
      *out = s == TFX_NO_ID ? tfx_v_none() : tfx_v_scope(s);
      return TFX_VMR_OK;
    }
    case TFX_PR_inputs: {
      tfx_value *items = alloc_items(vm, nd->n_data_in);
      if (!items) return tfx_vm_heap_fail(vm);
      for (uint32_t i = 0; i < nd->n_data_in; i++)
        items[i] = nd->in[i].kind == TFX_IN_NODE && nd->in[i].src != TFX_NO_ID ? tfx_v_node(nd->in[i].src) : tfx_v_none();
      *out = tfx_v_list(items, nd->n_data_in);
      return TFX_VMR_OK;
    }
    default: break;
    }
  }
  *out = tfx_v_none();
  return TFX_VMR_OK;
}

/* ---------------------------------------------------------------- builtins */

static int arg_type(tfx_vm *vm, uint32_t id, uint32_t i, const tfx_value *v, int tag) {
  if (v->tag == tag) return TFX_VMR_OK;
  return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: %s() argument %u is %s, not %s",
                    tfx_vm_builtins[id].name, i + 1, tfx_v_tag_name(v->tag), tfx_v_tag_name(tag));
}

/* Shortest decimal that reads back as the same double; integral values get ".0". */
static void fmt_float(char *buf, size_t n, double f) {
  if (f != f) {
    snprintf(buf, n, "nan");
    return;
  }
  if (isinf(f)) {
    snprintf(buf, n, f < 0 ? "-inf" : "inf");
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, n, "%.*g", prec, f);
    if (strtod(buf, NULL) == f) break;
  }
  if (!strpbrk(buf, ".en")) {
    size_t l = strlen(buf);
    if (l + 2 < n) memcpy(buf + l, ".0", 3);
  }
}

/* Recursion depth is bounded by TFX_V_MAX_DEPTH. */
void tfx_vm_value_text(tfx_strbuf *b, const tfx_vm *vm, const tfx_value *v, int quote) {
  char buf[64];
  switch (v->tag) {
  case TFX_V_NONE: tfx_sb_puts(b, "none"); break;
  case TFX_V_BOOL: tfx_sb_puts(b, v->u.i ? "true" : "false"); break;
  case TFX_V_INT: tfx_sb_printf(b, "%lld", (long long)v->u.i); break;
  case TFX_V_FLOAT: fmt_float(buf, sizeof buf, v->u.f); tfx_sb_puts(b, buf); break;
  case TFX_V_DTYPE: {
    const ProtobufCEnumValue *ev =
        protobuf_c_enum_descriptor_get_value(&tensorflow__data_type__descriptor, (int)v->u.i);
    if (ev)
      tfx_sb_puts(b, ev->name);
    else
      tfx_sb_printf(b, "DT_%lld", (long long)v->u.i);
    break;
  }
  case TFX_V_STR:
    if (!quote) {
      tfx_sb_add(b, v->u.s, v->n);
      break;
    }
    tfx_sb_putc(b, '"');
    for (uint32_t i = 0; i < v->n; i++) {
      unsigned char c = (unsigned char)v->u.s[i];
      if (c == '"' || c == '\\') tfx_sb_printf(b, "\\%c", c);
      else if (c == '\n') tfx_sb_puts(b, "\\n");
      else if (c == '\t') tfx_sb_puts(b, "\\t");
      else if (c < 0x20 || c >= 0x7f) tfx_sb_printf(b, "\\x%02x", c);
      else tfx_sb_putc(b, (char)c);
    }
    tfx_sb_putc(b, '"');
    break;
  case TFX_V_LIST:
    tfx_sb_putc(b, '[');
    for (uint32_t i = 0; i < v->n; i++) {
      if (i) tfx_sb_puts(b, ", ");
      tfx_vm_value_text(b, vm, &v->u.items[i], 1);
    }
    tfx_sb_putc(b, ']');
    break;
  case TFX_V_SCOPE:
    if (vm && vm->tree) tfx_sb_puts(b, vm->tree->scopes[v->u.id].name);
    else tfx_sb_printf(b, "<scope %u>", v->u.id);
    break;
  case TFX_V_NODE:
    if (vm && vm->graph) tfx_sb_puts(b, vm->graph->nodes[v->u.id].name);
    else tfx_sb_printf(b, "<node %u>", v->u.id);
    break;
  default: tfx_sb_puts(b, "?"); break;
  }
}

static int b_str(tfx_vm *vm, const tfx_value *x, tfx_value *out) {
  if (x->tag == TFX_V_STR) {
    *out = *x;
    return TFX_VMR_OK;
  }
  tfx_strbuf b;
  tfx_sb_init(&b);
  tfx_vm_value_text(&b, vm, x, 0);
  int rc = b.oom ? tfx_vm_err(vm, TFX_VMR_NOMEM, "out of memory") : tfx_vm_make_str(vm, b.data ? b.data : "", b.len, out);
  tfx_sb_free(&b);
  return rc;
}

static int parse_num(const tfx_value *s, int want_int, tfx_value *out) {
  char *end;
  errno = 0;
  if (s->n == 0 || s->u.s[0] == ' ' || s->u.s[0] == '\t' || s->u.s[0] == '\n') {
    *out = tfx_v_none();
    return TFX_VMR_OK;
  }
  if (want_int) {
    long long v = strtoll(s->u.s, &end, 10);
    *out = (errno || end != s->u.s + s->n) ? tfx_v_none() : tfx_v_int(v);
  } else {
    double v = strtod(s->u.s, &end);
    *out = end != s->u.s + s->n ? tfx_v_none() : tfx_v_float(v);
  }
  return TFX_VMR_OK;
}

/* Float -> int64 with a range check (truncating or rounding half away from zero). */
static int to_int(tfx_vm *vm, double f, int rnd, tfx_value *out) {
  double r = rnd ? round(f) : trunc(f);
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0))
    return tfx_vm_err(vm, TFX_VMR_RUNTIME, "%g does not fit in an int", f);
  *out = tfx_v_int((int64_t)r);
  return TFX_VMR_OK;
}

static int name_plus(tfx_vm *vm, const tfx_value *s, const tfx_value *rel, char **out) {
  const char *base = vm->tree->scopes[s->u.id].name;
  size_t bl = strlen(base);
  char *p = tfx_vm_alloc(vm, bl + rel->n + 1);
  if (!p) return tfx_vm_heap_fail(vm);
  memcpy(p, base, bl);
  memcpy(p + bl, rel->u.s, rel->n);
  p[bl + rel->n] = 0;
  *out = p;
  return TFX_VMR_OK;
}

/* find / find_contains: the first subtree node (graph order) whose name passes the test. */
static int b_find(tfx_vm *vm, const tfx_value *s, const tfx_value *sub, int contains, tfx_value *out) {
  /* the subtree's scopes (a dfs range) and their direct nodes; the lowest id wins */
  const tfx_graph *g = vm->graph;
  const tfx_scope_tree *t = vm->tree;
  const tfx_scope *sc = &t->scopes[s->u.id];
  int rc = tfx_vm_charge(vm, (uint64_t)(sc->dfs_end - sc->dfs_index) / 8 + sc->n_all_nodes / 8 + 1);
  if (rc) return rc;
  *out = tfx_v_none();
  uint32_t best = TFX_NO_ID;
  for (uint32_t d = sc->dfs_index; d < sc->dfs_end; d++) {
    const tfx_scope *c = &t->scopes[t->dfs[d]];
    for (uint32_t j = 0; j < c->n_nodes; j++) {
      uint32_t i = c->nodes[j];
      if (best != TFX_NO_ID && i >= best) continue;
      const char *nm = g->nodes[i].name;
      size_t l = strlen(nm);
      int hit = contains ? find_sub(nm, l, sub->u.s, sub->n) != NULL
                         : l >= sub->n && memcmp(nm + l - sub->n, sub->u.s, sub->n) == 0;
      if (hit) best = i;
    }
  }
  if (best != TFX_NO_ID) *out = tfx_v_node(best);
  return TFX_VMR_OK;
}

/* Distinct ids in first-seen order, written into a heap list of node values. */
static int distinct_nodes(tfx_vm *vm, const uint32_t *ids, uint32_t n, tfx_value *out) {
  tfx_value *items = alloc_items(vm, n);
  if (!items) return tfx_vm_heap_fail(vm);
  int rc = tfx_vm_charge(vm, (uint64_t)n * n / 64);
  if (rc) return rc;
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (ids[i] == TFX_NO_ID) continue;
    uint32_t j = 0;
    while (j < k && items[j].u.id != ids[i]) j++;
    if (j == k) items[k++] = tfx_v_node(ids[i]);
  }
  *out = tfx_v_list(items, k);
  return TFX_VMR_OK;
}

/* 1 if nd's op is "Const": by the linked op id (the node record only), else by name. */
static int is_const_op(const tfx_vm *vm, const tfx_node *nd) {
  if (vm->ops) return nd->op_id != TFX_NO_ID && nd->op_id == vm->const_op_id;
  return nd->op && strcmp(nd->op, "Const") == 0;
}

static int const_node_value(tfx_vm *vm, uint32_t n, tfx_value *out) {
  const tfx_node *nd = &vm->graph->nodes[n];
  uint32_t src = TFX_NO_ID;
  if (is_const_op(vm, nd)) {
    src = n;
  } else {
    for (uint32_t i = 0; i < nd->n_data_in && src == TFX_NO_ID; i++) {
      const tfx_input *in = &nd->in[i];
      if (in->kind == TFX_IN_NODE && in->src != TFX_NO_ID && is_const_op(vm, &vm->graph->nodes[in->src]))
        src = in->src;
    }
  }
  *out = tfx_v_none();
  if (src == TFX_NO_ID) return TFX_VMR_OK;
  const Tensorflow__AttrValue *av = node_attr(&vm->graph->nodes[src], "value");
  if (!av || av->value_case != TENSORFLOW__ATTR_VALUE__VALUE_TENSOR || !av->tensor) return TFX_VMR_OK;
  return tensor_list(vm, av->tensor, out);
}

int tfx_vm_builtin(tfx_vm *vm, uint32_t id, const tfx_value *a, uint32_t argc, tfx_value *out) {
  int rc = TFX_VMR_OK;
  (void)argc;
  switch ((tfx_builtin)id) {
  case TFX_BI_len:
    if (a[0].tag == TFX_V_NONE) *out = tfx_v_int(0);
    else if (a[0].tag == TFX_V_STR || a[0].tag == TFX_V_LIST) *out = tfx_v_int(a[0].n);
    else return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: len() of %s", tfx_v_tag_name(a[0].tag));
    return TFX_VMR_OK;
  case TFX_BI_int:
  case TFX_BI_float:
  case TFX_BI_round: {
    const tfx_value *x = &a[0];
    int want_int = id != TFX_BI_float;
    switch (x->tag) {
    case TFX_V_NONE: *out = tfx_v_none(); return TFX_VMR_OK;
    case TFX_V_BOOL:
    case TFX_V_INT: *out = want_int ? tfx_v_int(x->u.i) : tfx_v_float((double)x->u.i); return TFX_VMR_OK;
    case TFX_V_FLOAT:
      if (!want_int) {
        *out = *x;
        return TFX_VMR_OK;
      }
      return to_int(vm, x->u.f, id == TFX_BI_round, out);
    case TFX_V_STR:
      if (id == TFX_BI_round) break;
      return parse_num(x, want_int, out);
    default: break;
    }
    return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: %s() of %s", tfx_vm_builtins[id].name, tfx_v_tag_name(x->tag));
  }
  case TFX_BI_str: return b_str(vm, &a[0], out);
  case TFX_BI_before:
  case TFX_BI_after: {
    if (a[0].tag == TFX_V_NONE) {
      *out = tfx_v_none();
      return TFX_VMR_OK;
    }
    if ((rc = arg_type(vm, id, 0, &a[0], TFX_V_STR)) || (rc = arg_type(vm, id, 1, &a[1], TFX_V_STR))) return rc;
    const char *hit = find_sub(a[0].u.s, a[0].n, a[1].u.s, a[1].n);
    if (!hit) {
      *out = tfx_v_none();
      return TFX_VMR_OK;
    }
    size_t at = (size_t)(hit - a[0].u.s);
    if (id == TFX_BI_before) return tfx_vm_make_str(vm, a[0].u.s, at, out);
    return tfx_vm_make_str(vm, hit + a[1].n, a[0].n - at - a[1].n, out);
  }
  case TFX_BI_lookup:
    if ((rc = arg_type(vm, id, 1, &a[1], TFX_V_LIST))) return rc;
    *out = tfx_v_none();
    for (uint32_t i = 0; i + 1 < a[1].n; i += 2)
      if (tfx_v_equal(&a[0], &a[1].u.items[i])) {
        *out = a[1].u.items[i + 1];
        break;
      }
    return tfx_vm_charge(vm, a[1].n / 8);
  case TFX_BI_exists: *out = tfx_v_bool(a[0].tag != TFX_V_NONE); return TFX_VMR_OK;
  case TFX_BI_scope:
  case TFX_BI_node: {
    if ((rc = need_tree(vm))) return rc;
    if (a[0].tag == TFX_V_NONE) {
      *out = tfx_v_none();
      return TFX_VMR_OK;
    }
    if ((rc = arg_type(vm, id, 0, &a[0], TFX_V_SCOPE)) || (rc = arg_type(vm, id, 1, &a[1], TFX_V_STR))) return rc;
    char *full;
    if ((rc = name_plus(vm, &a[0], &a[1], &full))) return rc;
    uint32_t r = id == TFX_BI_scope ? tfx_scope_find(vm->tree, full) : tfx_graph_find(vm->graph, full);
    *out = r == TFX_NO_ID ? tfx_v_none() : id == TFX_BI_scope ? tfx_v_scope(r) : tfx_v_node(r);
    return TFX_VMR_OK;
  }
  case TFX_BI_find:
  case TFX_BI_find_contains:
    if ((rc = need_tree(vm))) return rc;
    if (a[0].tag == TFX_V_NONE) {
      *out = tfx_v_none();
      return TFX_VMR_OK;
    }
    if ((rc = arg_type(vm, id, 0, &a[0], TFX_V_SCOPE)) || (rc = arg_type(vm, id, 1, &a[1], TFX_V_STR))) return rc;
    return b_find(vm, &a[0], &a[1], id == TFX_BI_find_contains, out);
  case TFX_BI_scopes: {
    if ((rc = need_tree(vm))) return rc;
    uint32_t want[8];
    for (uint32_t i = 0; i < argc; i++) {
      if ((rc = arg_type(vm, id, i, &a[i], TFX_V_STR))) return rc;
      want[i] = vm->subtypes ? tfx_intern_find(vm->subtypes, a[i].u.s, a[i].n) : TFX_NO_ID;
      if (want[i] == TFX_HASH_NONE) want[i] = TFX_NO_ID;
    }
    const tfx_scope_tree *t = vm->tree;
    if ((rc = tfx_vm_charge(vm, t->n_scopes / 8 + 1))) return rc;
    uint32_t k = 0;
    tfx_value *items = alloc_items(vm, t->n_scopes); /* the heap charge does not depend on k */
    if (!items) return tfx_vm_heap_fail(vm);
    /* the host may know which dfs positions can have a sub_type (host.h `subtyped`): those
     * are read in the same (depth-first) order instead of every scope record, which at 10^6
     * nodes is a sweep of 368 000 records in random order per call */
    const uint32_t *pos = NULL;
    uint32_t np = t->n_scopes;
    if (!vm->host || !vm->host->subtyped || vm->host->subtyped(vm->host_ctx, &pos, &np) != 0) pos = NULL, np = t->n_scopes;
    for (uint32_t i = 0; i < np; i++) {
      uint32_t d = pos ? pos[i] : i;
      if (d >= t->n_scopes) continue;
      uint32_t s = t->dfs[d], st = t->scopes[s].sub_type;
      if (st == TFX_NO_ID) continue;
      for (uint32_t j = 0; j < argc; j++)
        if (want[j] == st) {
          items[k++] = tfx_v_scope(s);
          break;
        }
    }
    *out = tfx_v_list(items, k);
    return TFX_VMR_OK;
  }
  case TFX_BI_all_scopes: { /* GetAllScopes: the root, then every scope depth-first */
    if ((rc = need_tree(vm))) return rc;
    const tfx_scope_tree *t = vm->tree;
    if ((rc = tfx_vm_charge(vm, t->n_scopes / 8 + 1))) return rc;
    tfx_value *items = alloc_items(vm, t->n_scopes);
    if (!items) return tfx_vm_heap_fail(vm);
    for (uint32_t i = 0; i < t->n_scopes; i++) items[i] = tfx_v_scope(t->dfs[i]);
    *out = tfx_v_list(items, t->n_scopes);
    return TFX_VMR_OK;
  }
  case TFX_BI_consumers:
  case TFX_BI_producers: {
    if (a[0].tag == TFX_V_NONE) {
      *out = tfx_v_none();
      return TFX_VMR_OK;
    }
    if ((rc = arg_type(vm, id, 0, &a[0], TFX_V_NODE))) return rc;
    const tfx_node *nd = &vm->graph->nodes[a[0].u.id];
    uint32_t n = id == TFX_BI_consumers ? nd->n_uses : nd->n_in;
    uint32_t *ids = tfx_vm_alloc(vm, (size_t)n * sizeof *ids);
    if (!ids) return tfx_vm_heap_fail(vm);
    for (uint32_t i = 0; i < n; i++)
      ids[i] = id == TFX_BI_consumers ? nd->uses[i].node : nd->in[i].kind == TFX_IN_NODE ? nd->in[i].src : TFX_NO_ID;
    return distinct_nodes(vm, ids, n, out);
  }
  case TFX_BI_const_value:
    if (a[0].tag == TFX_V_NONE) {
      *out = tfx_v_none();
      return TFX_VMR_OK;
    }
    if ((rc = arg_type(vm, id, 0, &a[0], TFX_V_NODE))) return rc;
    return const_node_value(vm, a[0].u.id, out);
  case TFX_BI_inside:
    if ((rc = need_tree(vm))) return rc;
    if (a[0].tag == TFX_V_NONE || a[1].tag == TFX_V_NONE) {
      *out = tfx_v_bool(0);
      return TFX_VMR_OK;
    }
    if ((rc = arg_type(vm, id, 0, &a[0], TFX_V_NODE)) || (rc = arg_type(vm, id, 1, &a[1], TFX_V_SCOPE))) return rc;
    *out = tfx_v_bool(node_inside(vm, a[0].u.id, a[1].u.id));
    return TFX_VMR_OK;
  case TFX_BI_format_of:
  case TFX_BI_dtype_of:
    if ((rc = arg_type(vm, id, 0, &a[0], TFX_V_INT))) return rc;
    if (!vm->host || (id == TFX_BI_format_of ? !vm->host->format_of : !vm->host->dtype_of))
      return tfx_vm_err(vm, TFX_VMR_RUNTIME, "%s() is not supported by this host", tfx_vm_builtins[id].name);
    if (id == TFX_BI_format_of) {
      const char *f = vm->host->format_of(vm->host_ctx, vm->cur_node, a[0].u.i);
      *out = f ? tfx_v_str(f, (uint32_t)strlen(f)) : tfx_v_none();
    } else {
      int64_t dt = vm->host->dtype_of(vm->host_ctx, vm->cur_node, a[0].u.i);
      *out = dt < 0 ? tfx_v_none() : tfx_v_dtype(dt);
    }
    return TFX_VMR_OK;
  case TFX_BI_input_port:
  case TFX_BI_input_ref: {
    if (a[0].tag == TFX_V_NONE) {
      *out = tfx_v_none();
      return TFX_VMR_OK;
    }
    if ((rc = arg_type(vm, id, 0, &a[0], TFX_V_NODE))) return rc;
    if ((rc = arg_type(vm, id, 1, &a[1], TFX_V_INT))) return rc;
    const tfx_node *nd = &vm->graph->nodes[a[0].u.id];
    if (a[1].u.i < 0 || a[1].u.i >= (int64_t)nd->n_data_in) {
      *out = tfx_v_none();
      return TFX_VMR_OK;
    }
    const tfx_input *in = &nd->in[a[1].u.i];
    if (id == TFX_BI_input_port) {
      *out = in->kind == TFX_IN_NODE ? tfx_v_int(in->port) : tfx_v_none();
      return TFX_VMR_OK;
    }
    /* The value's identity: function bodies keep the input as written (`x`, `n:y:0`); the
     * main graph writes `n` for port 0 (so `n` and `n:0` compare equal). */
    char buf[64];
    if (vm->graph->func || in->kind != TFX_IN_NODE || in->src >= vm->graph->n_nodes) {
      const char *t = nd->def && (size_t)a[1].u.i < nd->def->n_input ? nd->def->input[a[1].u.i] : "";
      return tfx_vm_make_str(vm, t, strlen(t), out);
    }
    const char *src = vm->graph->nodes[in->src].name;
    if (in->port == 0) return tfx_vm_make_str(vm, src, strlen(src), out);
    tfx_strbuf b;
    tfx_sb_init(&b);
    snprintf(buf, sizeof buf, ":%d", (int)in->port);
    tfx_sb_puts(&b, src);
    tfx_sb_puts(&b, buf);
    rc = b.oom ? tfx_vm_err(vm, TFX_VMR_NOMEM, "out of memory") : tfx_vm_make_str(vm, b.data, b.len, out);
    tfx_sb_free(&b);
    return rc;
  }
  case TFX_BI_has_input:
    if ((rc = arg_type(vm, id, 0, &a[0], TFX_V_INT))) return rc;
    *out = tfx_v_bool(a[0].u.i >= 0 && a[0].u.i < (int64_t)vm->graph->nodes[vm->cur_node].n_data_in);
    return TFX_VMR_OK;
  case TFX_BI_n_inputs: *out = tfx_v_int(vm->graph->nodes[vm->cur_node].n_data_in); return TFX_VMR_OK;
  case TFX_BI_op: {
    const char *op = vm->graph->nodes[vm->cur_node].op;
    *out = tfx_v_str(op ? op : "", op ? (uint32_t)strlen(op) : 0);
    return TFX_VMR_OK;
  }
  case TFX_BI__COUNT: break; /* no default: a builtin row without a case is a -Wswitch warning */
  }
  return tfx_vm_err(vm, TFX_VMR_RUNTIME, "unknown builtin %u", id);
}
