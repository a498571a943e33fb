/* Internal interface of the ge lowering files (attr.c, lower.c, lower_node.c, lower_desc.c):
 * arena-grown repeated fields, map setters, attribute conversions that say why they failed,
 * tensor descriptors, TF node facts, and the lowering state shared by lower.c / lower_node.c.
 * Stage: ge. Everything allocates in the caller's arena; nothing is freed. */
#ifndef TFX_GE_LOWER_INT_H
#define TFX_GE_LOWER_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cann/cann.h"
#include "ge/air_write.h"
#include "ge/ge.h"

/* Why a conversion returned NULL. */
enum {
  TFX_GE_OK = 0,
  TFX_GE_E_OOM = 1,     /* out of memory (not reported) */
  TFX_GE_E_KIND = 2,    /* the value cannot be written in that form (not reported) */
  TFX_GE_E_REPORTED = 3 /* an error was reported into the diag (bad tensor...) */
};

/* Nesting limit for NamedAttrs / nested lists met while converting (TF func attrs can nest
 * without bound; a deeper value is TFX_GE_E_KIND). Keeps tfx_ge_sort_maps' recursion bounded. */
#define TFX_GE_MAX_NEST 48

/* Room for one more element in an arena array of n elements that has only ever been grown by
 * this function (capacity is implied: 4, then powers of two). Returns the (possibly moved)
 * array, or NULL on out of memory (the old array stays valid). */
void *tfx_ge_grow(tfx_arena *A, void *arr, size_t n, size_t elem);

/* Appends p to a pointer array (arr, *n) grown with tfx_ge_grow. Returns 0 or -1 (OOM). */
#define TFX_GE_PUSH(A, arr, n, p)                                                                  \
  (tfx_ge_push_ptr((A), (void ***)(void *)&(arr), &(n), (void *)(p)))
int tfx_ge_push_ptr(tfx_arena *A, void ***arr, size_t *n, void *p);

/* A map setter static function fn(A, owner, key, value, copy) for one map entry type (they
 * share one layout: base, key, value); copy: key copied, else borrowed. Entries are never
 * modified once made (replacing a value makes a new entry), so descriptors may share them
 * (tfx_ge_desc_copy, tfx_ge_td_entry_put). Replaces the value of an existing key, else
 * appends. 0 or -1 (out of memory). */
#define TFX_GE_MAP_SET(fn, Owner, Entry, init)                                                     \
  static int fn(tfx_arena *A, Owner *o, const char *key, Ge__Proto__AttrDef *v, int copy) {        \
    size_t k = 0;                                                                                  \
    while (k < o->n_attr && (o->attr[k]->key[0] != key[0] || strcmp(o->attr[k]->key, key) != 0))  \
      k++;                                                                                         \
    Entry *e = tfx_arena_alloc(A, sizeof *e);                                                      \
    char *kc = k < o->n_attr ? o->attr[k]->key : copy ? tfx_arena_strdup(A, key) : (char *)key;    \
    if (!e || !kc) return -1;                                                                      \
    init(e);                                                                                       \
    e->key = kc;                                                                                   \
    e->value = v;                                                                                  \
    if (k < o->n_attr) {                                                                           \
      o->attr[k] = e;                                                                              \
      return 0;                                                                                    \
    }                                                                                              \
    return TFX_GE_PUSH(A, o->attr, o->n_attr, e);                                                  \
  }

/* Map setters: replace the value of an existing key, else append. Return 0 or -1 (OOM).
 * key is copied. The OpDef ones are in attr.c, the descriptor ones in lower_desc.c. */
int tfx_ge_op_attr_set(tfx_arena *A, Ge__Proto__OpDef *op, const char *key, Ge__Proto__AttrDef *v);
int tfx_ge_td_attr_set(tfx_arena *A, Ge__Proto__TensorDescriptor *td, const char *key,
                       Ge__Proto__AttrDef *v);
/* The same, borrowing key: it must be static or live in the model's arena. */
int tfx_ge_op_attr_put(tfx_arena *A, Ge__Proto__OpDef *op, const char *key, Ge__Proto__AttrDef *v);
int tfx_ge_td_attr_put(tfx_arena *A, Ge__Proto__TensorDescriptor *td, const char *key,
                       Ge__Proto__AttrDef *v);
/* Appends key = v to op's map, whose keys must not include key (no look-up); key copied when
 * copy, else borrowed. 0 or -1 (OOM). */
int tfx_ge_op_attr_add(tfx_arena *A, Ge__Proto__OpDef *op, const char *key, Ge__Proto__AttrDef *v,
                       int copy);
/* Puts an existing (shared, never modified) entry into op's map, replacing one of the same key.
 * 0 or -1 (OOM). */
int tfx_ge_op_entry_put(tfx_arena *A, Ge__Proto__OpDef *op, Ge__Proto__OpDef__AttrEntry *e);
/* Puts an existing (shared, never modified) entry into td's map, replacing one of the same key. */
int tfx_ge_td_entry_put(tfx_arena *A, Ge__Proto__TensorDescriptor *td,
                        Ge__Proto__TensorDescriptor__AttrEntry *e);
/* Gives td its own entry array holding src's entries (shared). */
int tfx_ge_td_entries_copy(tfx_arena *A, Ge__Proto__TensorDescriptor *td,
                           const Ge__Proto__TensorDescriptor *src);
/* tfx_ge_sort_maps for one op: its attrs and its descriptors' (nested values too). */
void tfx_ge_sort_op_maps(Ge__Proto__OpDef *op);
/* The same for one descriptor. */
void tfx_ge_sort_desc_maps(Ge__Proto__TensorDescriptor *td);
/* tfx_ge_sort_op_maps, except the descriptors frozen in memo (sorted when they were frozen). */
void tfx_ge_sort_op_maps_memo(Ge__Proto__OpDef *op, const tfx_ge_air_memo *memo);
Ge__Proto__AttrDef *tfx_ge_op_attr_get(const Ge__Proto__OpDef *op, const char *key);
Ge__Proto__AttrDef *tfx_ge_td_attr_get(const Ge__Proto__TensorDescriptor *td, const char *key);

/* tfx_ge_attr_from_tf with the prototype attr type (tfx_cann_attr_type or -1: picks the form
 * of empty lists and coerces type->Int, int->Float, list(int)->ListFloat, list(type)->ListInt)
 * and the node name for tensor errors (reported into d when d is non-NULL). *err says why
 * NULL was returned. */
Ge__Proto__AttrDef *tfx_ge_attr_from_tf_ex(tfx_arena *A, const Tensorflow__AttrValue *v,
                                           int cann_type, const char *node, tfx_diag *d, int *err);
/* tfx_ge_attr_from_value with *err; dtype_is_cpp: DTYPE values already hold C++ ge::DataType
 * numbers (prototype defaults, cann.h) instead of TF numbers (rule values). */
Ge__Proto__AttrDef *tfx_ge_attr_from_value_ex(tfx_arena *A, const tfx_value *v, int cann_type,
                                              int dtype_is_cpp, int *err);
/* A TensorDef from a rule value: a scalar or a rectangular nested list of ints, floats, bools
 * or strings. ge_dtype picks the element type (GE proto numbering); DT_UNDEFINED means the
 * value's own: int -> DT_INT32 (DT_INT64 when a value does not fit), float -> DT_FLOAT, bool
 * -> DT_BOOL, string -> DT_STRING. */
Ge__Proto__TensorDef *tfx_ge_tensor_from_value(tfx_arena *A, const tfx_value *v, int ge_dtype,
                                               int *err);
/* tfx_ge_tensor_from_tf with *err (d may be NULL: nothing reported, err = E_KIND). */
Ge__Proto__TensorDef *tfx_ge_tensor_from_tf_ex(tfx_arena *A, const Tensorflow__TensorProto *t,
                                               const char *node, tfx_diag *d, const char *file,
                                               int *err);

/* tfx_ge_tensor_from_tf_ex whose desc is tfx_ge_desc_new_shared's from shapes (with interning:
 * shared, never modify it). */
struct tfx_ge_shape_cache;
Ge__Proto__TensorDef *tfx_ge_tensor_from_tf_shared(tfx_arena *A, struct tfx_ge_shape_cache *shapes,
                                                   const Tensorflow__TensorProto *t,
                                                   const char *node, tfx_diag *d, const char *file,
                                                   int *err);
/* A TensorDescriptor: name, dtype (GE proto), shape (dims; n_dims == 1 && dims[0] == -2 means
 * unknown rank; shape_known = 0 leaves origin_shape out), layout, and the attrs origin_format
 * (= layout) and, when shape_known, origin_shape + origin_shape_initialized. dims copied. */
Ge__Proto__TensorDescriptor *tfx_ge_desc_new(tfx_arena *A, const char *name, int dtype,
                                             const int64_t *dims, size_t n_dims, int shape_known,
                                             const char *layout);
/* Shared origin_shape entries, one per distinct shape (entries are never modified once made):
 * an origin_shape list per output descriptor was a quarter of phase 1's memory. */
typedef struct tfx_ge_shape_cache {
  tfx_arena *A; /* where the shared entries live (the model's arena) */
  tfx_hmap map; /* [n, dims...] as bytes -> index into v */
  Ge__Proto__TensorDescriptor__AttrEntry **v;
  size_t n;
  /* the descriptors' name and layout are borrowed, not copied (streaming lowering: they
   * outlive the descriptors, which are gone when lowering returns) */
  int borrow_strings;
  /* one descriptor per distinct (name, dtype, shape, layout), shared by every op that makes
   * such an output descriptor (streaming lowering: nothing modifies an output descriptor
   * once made; input descriptors are copies) */
  int intern;
  tfx_hmap descs;
  Ge__Proto__TensorDescriptor **dv;
  size_t n_dv;
  /* with intern: where the interned descriptors are frozen (their bytes written once) */
  tfx_ge_air_memo *memo;
  /* tfx_ge_desc_copy_shared's last results by (src, name pointer), checked by content before
   * use (a name pointer may be reused by another string) */
  struct {
    const Ge__Proto__TensorDescriptor *src;
    Ge__Proto__TensorDescriptor *td;
  } recent[512];
  /* with intern: tfx_ge_desc_new_shared's last results by (name and layout pointers, dtype,
   * shape), in front of the look-up by content (lower_desc.c desc_front; malloc on first use,
   * NULL when that failed: every call looks up) */
  struct tfx_ge_desc_front *front;
} tfx_ge_shape_cache;
void tfx_ge_shape_cache_init(tfx_ge_shape_cache *c, tfx_arena *A);
void tfx_ge_shape_cache_free(tfx_ge_shape_cache *c);
/* tfx_ge_desc_new with its origin_shape entry from c (the same bytes); name and layout
 * borrowed when c->borrow_strings; with c->intern, a descriptor made before with the same
 * values (never modify it). */
Ge__Proto__TensorDescriptor *tfx_ge_desc_new_shared(tfx_arena *A, tfx_ge_shape_cache *c,
                                                    const char *name, int dtype,
                                                    const int64_t *dims, size_t n_dims,
                                                    int shape_known, const char *layout);
/* tfx_ge_desc_copy; when src is an interned descriptor frozen in c->memo, the interned
 * descriptor with the same bytes instead (name and layout copied into c->A when it is new):
 * never modify it. */
Ge__Proto__TensorDescriptor *tfx_ge_desc_copy_shared(tfx_arena *A, tfx_ge_shape_cache *c,
                                                     const Ge__Proto__TensorDescriptor *src,
                                                     const char *name, const char *layout);
/* The descriptor of an optional input left unfed, as GE's serializer writes it (docs/AIR.md
 * §7.2): dtype DT_UNDEFINED, layout "FORMAT_RESERVED", an empty shape, attr origin_format "ND",
 * and TorchAir's attr _is_unfed_optional = 1. */
Ge__Proto__TensorDescriptor *tfx_ge_desc_unfed(tfx_arena *A, const char *name);
/* A copy of src (attrs shared, they are never mutated after creation) with another name and,
 * when layout is non-NULL, another layout and origin_format. */
Ge__Proto__TensorDescriptor *tfx_ge_desc_copy(tfx_arena *A, const Ge__Proto__TensorDescriptor *src,
                                              const char *name, const char *layout);

/* ---- TF node facts (lower_desc.c) ---- */

/* The attr called key of nd, or NULL. */
const Tensorflow__AttrValue *tfx_ge_tf_attr(const Tensorflow__NodeDef *nd, const char *key);
/* TF dtype of flat output port of nd: from the TF OpDef table tt (fixed types, type attrs and
 * their defaults, T*N and list(type) args), else the first of the attrs DstT, out_type,
 * output_type, Tout, output_types, dtype, T (a list(type) indexed by port); 0 when unknown. */
int tfx_ge_tf_out_dtype(const tfx_tf_table *tt, const Tensorflow__NodeDef *nd, int32_t port);
/* The same with nd's op already looked up in the table (tfx_tf_op_find's answer, or NULL). */
int tfx_ge_tf_out_dtype_op(const tfx_tf_op *op, const Tensorflow__NodeDef *nd, int32_t port);
/* Flat output index of `node:out_arg:idx` (function bodies): the output args before out_arg
 * counted with their lengths. Returns 0, or -1 when the op or arg is unknown (then *port =
 * idx, exact for single-output-arg ops). */
int tfx_ge_tf_flat_port(const tfx_tf_table *tt, const Tensorflow__NodeDef *nd, const char *out_arg,
                        int32_t idx, int32_t *port);
/* Shape of output port from nd's `_output_shapes` (unknown rank [-2], unknown dims -1): 1 and
 * *dims / *n set; 0 when absent; -1 on out of memory. */
int tfx_ge_tf_out_shape(tfx_arena *A, const Tensorflow__NodeDef *nd, int32_t port, int64_t **dims,
                        size_t *n);
/* The same for one TensorShapeProto (0 when s is NULL). */
int tfx_ge_tf_shape(tfx_arena *A, const Tensorflow__TensorShapeProto *s, int64_t **dims, size_t *n);

/* ---- lowering state, shared by lower.c and lower_node.c (prefix tfx_lower_) ---- */

#define TFX_LOWER_NAME_RESERVED UINT32_MAX
#define TFX_LOWER_FORMAT_WALK_MAX 4096 /* nodes visited per Data when inferring its layout */

typedef struct tfx_lower_ctx tfx_lower_ctx;

/* Per TF node: what lowering made of it. */
typedef struct tfx_lower_node {
  Ge__Proto__OpDef *op;     /* RULE / AUTO / PASSTHROUGH (lite: NULL but while it is wired) */
  Ge__Proto__OpDef **inner; /* GRAPH: one per inner node */
  union {                   /* (one of them, by the kind of node) */
    Ge__Proto__OpDef ***consts; /* GRAPH: per inner node, per input: the Const or NULL */
    size_t hole;                /* streaming, deferred: its place in the stream */
    Ge__Proto__TensorDescriptor **lite_out; /* lite: its op's output descs (lite_n of them) */
  };
  const char *gname; /* its GE name (reserved in pass 0) */
  uint32_t slot;     /* the name's slot in tfx_lower_graph.names */
  uint32_t op_end;   /* its ops end here in the graph's op array (phase 1) */
  uint32_t lite_n;
  uint8_t special;   /* TFX_LOWER_SP_* */
  uint8_t deferred;  /* streaming: written after its subgraphs (phase 3) */
  uint8_t n_sub;     /* RULE / AUTO / PASSTHROUGH: its subgraph attrs (pass 0; <= 8) */
  /* streaming: its one op (op_end - 1) is kept lite after phase 1: name gname, type the
   * mapping's, output descs lite_out; its OpDef is dropped (read it through tfx_lower_nr_op) */
  uint8_t lite;
} tfx_lower_node;

enum { TFX_LOWER_SP_NONE = 0, TFX_LOWER_SP_DATA, TFX_LOWER_SP_CONST };

/* Parent of a subgraph being lowered. */
typedef struct tfx_lower_sub {
  Ge__Proto__OpDef *parent;
  const tfx_mapped_op *pmop;
  const tfx_node *pnode;
  int32_t offset; /* TF data input of arg 0 */
  const char *fn; /* function name */
  uint8_t is_for;       /* parent is For: arg 0 is input 0 (start), arg k > 0 is input k + 2 */
  uint8_t no_out_index; /* a While's cond graph: its output maps to no parent output */
} tfx_lower_sub;

#define TFX_LOWER_RING 16 /* OpDefs tfx_lower_op_get made that stay valid at once */

typedef struct tfx_lower_graph {
  tfx_lower_ctx *w;
  const tfx_graph *g;
  const tfx_mapped_graph *mg;
  Ge__Proto__GraphDef *gd;
  const char *prefix; /* "" for the main graph, "<graph>/" for subgraphs */
  const char *fn;     /* function name for messages; NULL for the main graph */
  const tfx_lower_sub *sub;
  tfx_lower_node *nr;      /* per node (malloc) */
  Ge__Proto__OpDef **args; /* subgraphs: Data per signature input arg (malloc) */
  /* op name -> slot (lower.c, "op names"): a TF node's slot is its id, the k-th generated
   * name's n_nodes + k. Open addressing, 8 bytes an entry: the name's hash | (slot + 1) << 32
   * (0: empty); the name itself is read through the slot (tfx_lower_node.gname,
   * gen_names[k].name). malloc */
  uint64_t *names;
  uint32_t cap_names, n_names;
  /* node id -> index in gd->op, TFX_LOWER_NAME_RESERVED until created (malloc) */
  uint32_t *slot_op;
  struct tfx_lower_gen {
    const char *name;
    uint32_t op; /* index in gd->op */
  } *gen_names;    /* generated names, in slot order (malloc) */
  uint32_t n_gen, cap_gen;
  uint32_t cap_op; /* gd->op's capacity while lower_graph's own array (0: tfx_ge_grow's) */
  uint32_t n_data;
  uint32_t *stamp; /* layout walk: visit generation per node (malloc, lazy) */
  uint32_t *queue;
  uint32_t gen;
  /* streaming (w->S set): the graph's index in the model, the id of its first op, how many
   * ops phase 1 made (consumed has a flag each) and how many are written */
  size_t gi;
  int64_t id_base;
  size_t n_phase1, n_streamed;
  uint8_t *consumed;
  /* streaming: per op of phase 1, its own attrs as wire bytes (written in phase 1, the
   * messages dropped; merged with the attrs phase 2 adds when the op is written), NULL when
   * none; ops with the same bytes share one (tfx_lower_ctx.pre_map). malloc */
  const tfx_ge_air_attrs **pre;
  size_t cap_pre;
  /* streaming: per op of phase 1 (same indexing and capacity as pre), the node of an op kept
   * lite (gd->op[i] NULL: see tfx_lower_node.lite; what later ops and checks read of it, 4 +
   * 16 bytes where its OpDef was 320 and its output-desc array 32), and the ring of OpDefs
   * made from them (tfx_lower_op_get). malloc */
  uint32_t *lite;
  Ge__Proto__OpDef *ring;
  unsigned ring_next;
  /* per op of phase 1, set as it is made: TFX_LOWER_K_DATA, _K_CONST (Const or Constant) or
   * 0, what the sweeps after phase 1 (outputs, inputs, Data indices, the .air plan) ask of
   * its type, without reading it again (a lite op's type is in its mapping record); when
   * streaming also the flag TFX_LOWER_CONSUMED check_edges sets (consumed is this array).
   * malloc */
  uint8_t *kind;
  size_t n_kind, cap_kind;
  /* streaming phase 2: the OpDef a lite op is made anew in while it is wired and written */
  Ge__Proto__OpDef wired;
} tfx_lower_graph;

enum { TFX_LOWER_K_DATA = 1, TFX_LOWER_K_CONST = 2, TFX_LOWER_CONSUMED = 4 };

struct tfx_lower_ctx {
  tfx_arena *A; /* where lowering allocates now: P, or scratch while one op is wired */
  tfx_arena *P; /* the model's arena */
  /* where an op's attrs (values, entries, their arrays) go: A, except while streaming phase 1
   * builds a node whose attrs are written ahead (tfx_lower_graph.pre): the scratch arena */
  tfx_arena *AT;
  /* where an op's own struct and its output-desc array go: A, except while streaming phase 1
   * builds a node whose op is kept as a tfx_lower_lite: the scratch arena */
  tfx_arena *OPA;
  /* streaming phase 1: a Const value's data borrowed from the TF tensor (or the checkpoint
   * mapping), which its written attrs may point at instead of copying; NULL: none */
  const uint8_t *borrow;
  /* streaming (NULL: the whole ModelDef is built): each op's record goes to S once the op is
   * complete; what only that op needed (its input descs, edges, port-name attrs) lives in
   * scratch, reset per node */
  tfx_ge_air_stream *S;
  tfx_ge_air_memo *memo; /* streaming: frozen descriptors and port lists (air_write.h) */
  /* streaming: the ops' attrs written ahead (tfx_lower_graph.pre) without borrowed bytes, one
   * record (in P) per block of bytes: the block's address -> index into pre_v */
  tfx_hmap pre_map;
  tfx_ge_air_attrs **pre_v; /* tfx_ge_grow'n array in P */
  size_t n_pre_v;
  /* streaming: the output-desc arrays of lite ops, one per content (never modified) */
  tfx_hmap outs_map;
  Ge__Proto__TensorDescriptor ***outs_v; /* tfx_ge_grow'n array in P */
  size_t n_outs_v;
  /* in front of outs_map: by the first desc's address, an array's length and index in outs_v
   * (n 0: empty; checked by content before use) */
  struct {
    uint32_t n, ix;
  } outs_front[256];
  tfx_hmap unfed;        /* streaming: port name -> index into unfed_v (frozen unfed descs) */
  Ge__Proto__TensorDescriptor **unfed_v; /* tfx_ge_grow'n array in P */
  size_t n_unfed;
  tfx_arena scratch;
  int64_t next_id; /* streaming: id of the first op of the next graph */
  const tfx_module *m;
  const tfx_opmap *om;
  const tfx_cann_table *protos;
  const tfx_tf_table *tt;
  const tfx_ge_lower_opts *o;
  tfx_diag *d;
  const char *file;
  tfx_ge_shape_cache shapes; /* origin_shape entries shared by the descriptors (in P) */
  Ge__Proto__ModelDef *model;
  tfx_hmap graph_names;
  tfx_hmap fn_index; /* function name -> module index */
  uint8_t *fn_busy;
  unsigned depth;
  int oom, failed;
  /* streaming phase 2: every lite op wired as an OpDef (tfx_lower_wire_op), none by its parts
   * (tfx_lower_wire_lite): the environment's TFXC_LOWER_LITE_GENERAL=1, for tests comparing
   * the two */
  int lite_general;
  /* port-name lists shared by every op with the same ports (tfx_lower_port_names) */
  tfx_hmap port_lists;                 /* names joined by NULs -> index into port_list */
  Ge__Proto__AttrDef **port_list;      /* tfx_ge_grow'n array in A */
  size_t n_port_list;
  Ge__Proto__AttrDef *port_index[32];  /* [0, 1, .., n-1] by n */
  /* their map entries, made once and shared (entries are never modified once made): per
   * port_list, [2 k] _input_name_key and [2 k + 1] _output_name_key (NULL until needed; a
   * tfx_ge_grow'n array in A of 2 n_port_list); per n, _input_name_value / _output_name_value */
  Ge__Proto__OpDef__AttrEntry **port_entry;
  size_t n_port_entry;
  Ge__Proto__OpDef__AttrEntry *index_entry[2][32];
  /* streaming phase 1: attr blocks by what determines them (lower_node.c; NULL until used) */
  struct tfx_lower_acache *acache;
  /* the TF op table's entry for each op type of the module (tfx_node.op_id), looked up once:
   * name is the op string it was looked up by (NULL: not yet), op the answer (lower_node.c
   * tf_op_of; malloc, NULL when it could not be made: every node looks its op up) */
  struct tfx_lower_tfop {
    const char *name;
    const tfx_tf_op *op;
  } *tf_ops;
  uint32_t n_tf_ops;
};

/* Streaming phase 2, a lite op wired by its parts (tfx_lower_wire_lite): input k is
 * "src[k]:port[k]" (src[k] of len[k] bytes; NULL: an unfed optional input, "") with input
 * desc in_desc[k]; its attrs are attr[0..n_attr) (the port-name entries, in key order). */
#define TFX_LOWER_LITE_IN 8 /* inputs a node may have to be wired this way */
typedef struct tfx_lower_wired {
  size_t n_in, n_attr;
  int frozen; /* every input and output desc is known frozen (the memo): none to sort */
  const char *src[TFX_LOWER_LITE_IN];
  size_t len[TFX_LOWER_LITE_IN];
  uint32_t port[TFX_LOWER_LITE_IN];
  Ge__Proto__TensorDescriptor *in_desc[TFX_LOWER_LITE_IN];
  Ge__Proto__OpDef__AttrEntry *attr[4];
} tfx_lower_wired;

/* Control inputs being collected for one op (deduplicated by op: by name pointer, which is
 * one op's own in a graph; malloc'ed). */
typedef struct tfx_lower_ctl {
  const char **v;
  uint32_t n, cap;
} tfx_lower_ctl;

/* Reports into the run's diag ("function 'f': " prefixed in subgraphs); an error marks the
 * run failed. */
void tfx_lower_msg(tfx_lower_graph *G, tfx_severity sev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define GERR(G, ...) tfx_lower_msg((G), TFX_SEV_ERROR, __VA_ARGS__)
#define GWARN(G, ...) tfx_lower_msg((G), TFX_SEV_WARNING, __VA_ARGS__)
/* Reports out of memory once; returns -1. */
int tfx_lower_oom(tfx_lower_ctx *w);
/* Arena strings: a + b, printf. NULL after reporting out of memory. */
char *tfx_lower_cat(tfx_lower_ctx *w, const char *a, const char *b);
char *tfx_lower_fmt(tfx_lower_ctx *w, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* The same in arena A. */
char *tfx_lower_fmt_in(tfx_lower_ctx *w, tfx_arena *A, const char *f, ...)
    __attribute__((format(printf, 3, 4)));
/* "name:port" (an edge; port -1 is a control edge), what tfx_lower_fmt(w, "%s:%d", ...) gives,
 * without printf: one per edge, it was 6% of a conversion's instructions. NULL after reporting
 * out of memory. */
char *tfx_lower_edge(tfx_lower_ctx *w, const char *name, int64_t port);
/* op attr key (static or arena: borrowed) = v; a NULL v is out of memory. 0 or -1. */
int tfx_lower_set_attr(tfx_lower_ctx *w, Ge__Proto__OpDef *op, const char *key,
                       Ge__Proto__AttrDef *v);
int tfx_lower_push_str(tfx_lower_ctx *w, char ***arr, size_t *n, const char *s);
int tfx_lower_push_desc(tfx_lower_ctx *w, Ge__Proto__TensorDescriptor ***arr, size_t *n,
                        Ge__Proto__TensorDescriptor *td);
/* Appends an output desc to op (phase 1; the array in w->OPA). A NULL td is out of memory. */
int tfx_lower_push_out(tfx_lower_ctx *w, Ge__Proto__OpDef *op, Ge__Proto__TensorDescriptor *td);
/* Op i of the graph: gd->op[i], or, when phase 1 kept it lite, an OpDef made from what was
 * kept (name, type, output descs; no attr), valid until TFX_LOWER_RING more are made:
 * read it, never keep it nor modify it. */
Ge__Proto__OpDef *tfx_lower_op_get(tfx_lower_graph *G, size_t i);
/* The op of node id (tfx_lower_node.op, or its lite op's through tfx_lower_op_get), or NULL. */
Ge__Proto__OpDef *tfx_lower_nr_op(tfx_lower_graph *G, uint32_t id);
/* A new op appended to the graph (see lower.c for the naming rule); reserved: the slot pass 0
 * reserved name in (tfx_lower_node.slot), else TFX_LOWER_NO_SLOT. NULL on out of memory. */
#define TFX_LOWER_NO_SLOT UINT32_MAX
Ge__Proto__OpDef *tfx_lower_op_new(tfx_lower_graph *G, const char *name, const char *type,
                                   uint32_t reserved);
/* Names of the subgraph attrs of a mapped op, in IR order; returns how many (<= max). */
uint32_t tfx_lower_subgraph_attrs(const tfx_mapped_op *mop, const tfx_node *nd, const char **out,
                                  uint32_t max);
/* _input_name_key/_value, _output_name_key/_value from op's descriptors. 0 or -1. */
int tfx_lower_port_names(tfx_lower_ctx *w, Ge__Proto__OpDef *op);
/* Phase 1 (ops, attrs, output descs) and phase 2 (edges, input descs) of node id. Return 0,
 * or -1 on out of memory; mapping problems are reported and mark the run failed. */
int tfx_lower_build_op(tfx_lower_graph *G, uint32_t id);
int tfx_lower_build_graph_node(tfx_lower_graph *G, uint32_t id);
int tfx_lower_wire_op(tfx_lower_graph *G, uint32_t id, tfx_lower_ctl *c);
int tfx_lower_wire_graph_node(tfx_lower_graph *G, uint32_t id, tfx_lower_ctl *c);
/* Streaming phase 2: lite node id wired by its parts into *o, as tfx_lower_wire_op would wire
 * its op (the same input descs and port-name entries, made in the same order), when that
 * takes nothing unusual: no control, deleted or unbound input, no message, at most
 * TFX_LOWER_LITE_IN inputs, every producer found at once (c: the control inputs being
 * collected, none). 1 wired, 0 not (nothing made or reported: wire it with
 * tfx_lower_wire_op), -1 out of memory. */
int tfx_lower_wire_lite(tfx_lower_graph *G, uint32_t id, const tfx_lower_ctl *c,
                        tfx_lower_wired *o);
/* The GE op and output standing for TF output port of node src; NULL after reporting (naming
 * consumer; NULL: nothing reported), or silently when src itself failed. */
Ge__Proto__OpDef *tfx_lower_resolve_out(tfx_lower_graph *G, uint32_t src, int32_t port,
                                        uint32_t *ge_port, const char *consumer);
/* Control inputs: collect the ops standing for a TF input's producer; flush as "src:-1". */
int tfx_lower_ctl_add_input(tfx_lower_graph *G, tfx_lower_ctl *c, const tfx_input *in);
int tfx_lower_ctl_flush(tfx_lower_ctx *w, Ge__Proto__OpDef *op, tfx_lower_ctl *c);
/* A data input "src:port" with an input desc copied from src's output desc (name; layout, NULL
 * keeps the producer's); an unfed optional input "" with the unfed desc. 0 or -1. */
int tfx_lower_add_input(tfx_lower_ctx *w, Ge__Proto__OpDef *op, Ge__Proto__OpDef *src,
                        uint32_t port, const char *name, const char *layout);
int tfx_lower_add_unfed(tfx_lower_ctx *w, Ge__Proto__OpDef *op, const char *name);

static inline const char *tfx_lower_node_op(const tfx_node *nd) { return nd->op ? nd->op : "?"; }
static inline int tfx_lower_is_type(const char *t, const char *a) { return t && strcmp(t, a) == 0; }

/* The attr block cache of streaming phase 1 (lower_node.c): tfx_lower_build_op looks a node's
 * attrs up by what determines them; when found, its op gets no attrs and the next call of
 * tfx_lower_attrs_hit (pre_encode, for that op) returns 1 with the block's record (NULL: the
 * op has no attr) to use as is; else 0. When not found, tfx_lower_attrs_put (after the op's
 * block was written into G->pre[first]) keeps that record for later nodes. put: 0 or -1
 * (out of memory). */
int tfx_lower_attrs_hit(tfx_lower_ctx *w, const tfx_ge_air_attrs **rec);
int tfx_lower_attrs_put(tfx_lower_graph *G, size_t first);
void tfx_lower_attrs_free(tfx_lower_ctx *w);

#endif
