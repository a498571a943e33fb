/* Tagged values of the rule VM.
 * Stage: vm. A value is 16 bytes and never owns memory: strings and lists point either into
 * the pack (constants, immutable for the pack's lifetime) or into the VM's per-run heap,
 * which is rewound at the start of every run. Lists are immutable once built. Strings are
 * always NUL-terminated as well as length-counted (n). Scopes and nodes are ids into the
 * linked ScopeTree / graph; dtypes are TensorFlow DataType numbers (proto numbering). */
#ifndef TFX_VM_VALUE_H
#define TFX_VM_VALUE_H

#include <stdint.h>

typedef enum {
  TFX_V_NONE = 0,
  TFX_V_BOOL,
  TFX_V_INT,   /* int64 */
  TFX_V_FLOAT, /* double */
  TFX_V_STR,   /* s, n */
  TFX_V_DTYPE, /* i = Tensorflow__DataType */
  TFX_V_LIST,  /* items, n */
  TFX_V_SCOPE, /* id = scope id */
  TFX_V_NODE,  /* id = node id in the linked graph */
  TFX_V__COUNT
} tfx_vtag;

/* Lists nest at most this deep (built lists and constants alike), which bounds the
 * recursion of equality and printing. */
#define TFX_V_MAX_DEPTH 32

typedef struct tfx_value tfx_value;
struct tfx_value {
  uint8_t tag;     /* tfx_vtag */
  uint8_t depth;   /* lists: 1 + deepest element list (<= TFX_V_MAX_DEPTH); else 0 */
  uint8_t pad_[2];
  uint32_t n;      /* string length in bytes, or list length */
  union {
    int64_t i;     /* BOOL (0/1), INT, DTYPE */
    double f;
    const char *s;
    const tfx_value *items;
    uint32_t id;   /* SCOPE, NODE */
  } u;
};
_Static_assert(sizeof(tfx_value) == 16, "tfx_value is 16 bytes");

/* Constructors (no allocation). */
static inline tfx_value tfx_v_none(void) { tfx_value v = {0}; return v; }
static inline tfx_value tfx_v_bool(int b) { tfx_value v = {0}; v.tag = TFX_V_BOOL; v.u.i = b != 0; return v; }
static inline tfx_value tfx_v_int(int64_t i) { tfx_value v = {0}; v.tag = TFX_V_INT; v.u.i = i; return v; }
static inline tfx_value tfx_v_float(double f) { tfx_value v = {0}; v.tag = TFX_V_FLOAT; v.u.f = f; return v; }
static inline tfx_value tfx_v_dtype(int64_t dt) { tfx_value v = {0}; v.tag = TFX_V_DTYPE; v.u.i = dt; return v; }
/* s must stay alive and be NUL-terminated at s[n]. */
static inline tfx_value tfx_v_str(const char *s, uint32_t n) { tfx_value v = {0}; v.tag = TFX_V_STR; v.n = n; v.u.s = s; return v; }
/* depth is computed from the items (items may be NULL when n == 0). */
static inline tfx_value tfx_v_list(const tfx_value *items, uint32_t n);
static inline tfx_value tfx_v_scope(uint32_t id) { tfx_value v = {0}; v.tag = TFX_V_SCOPE; v.u.id = id; return v; }
static inline tfx_value tfx_v_node(uint32_t id) { tfx_value v = {0}; v.tag = TFX_V_NODE; v.u.id = id; return v; }

/* Nesting depth a list of these n items gets (1 + deepest element), for v.depth. */
static inline unsigned tfx_v_list_depth(const tfx_value *items, uint32_t n) {
  unsigned d = 0;
  for (uint32_t i = 0; i < n; i++)
    if (items[i].tag == TFX_V_LIST && items[i].depth > d) d = items[i].depth;
  return d + 1;
}

/* Name of a tag ("int", "string", ...) for type-error messages. */
const char *tfx_v_tag_name(int tag);
/* Deep equality as the EQ opcode defines it: same tag and value; int and float compare
 * numerically; lists element-wise; none equals only none. */
int tfx_v_equal(const tfx_value *a, const tfx_value *b);

static inline tfx_value tfx_v_list(const tfx_value *items, uint32_t n) {
  tfx_value v = {0};
  v.tag = TFX_V_LIST;
  v.n = n;
  v.u.items = items;
  v.depth = (uint8_t)(items ? (tfx_v_list_depth(items, n) > 255 ? 255 : tfx_v_list_depth(items, n)) : 1);
  return v;
}

#endif
