/* tfxc_bench_gen: writes synthetic but realistic TF1 GraphDefs of exactly N nodes for benchmarks.
 * Stage: bench (not part of tfxc). Input: N, a seed. Output: STEM.pb (binary, tfx_io_pack) and
 * STEM.pbtxt (text, tfx_pbtxt_print); the same (N, seed) always gives the same bytes.
 * The graph is a chain of "towers" (tower_0/, tower_1/, ...), each: a MobileNetV2 stem and
 * expanded convs (Conv2D / DepthwiseConv2dNative + FusedBatchNormV3 + Relu6), BERT encoder layers
 * with tf.contrib LayerNorm scopes, two BasicLSTMCell dynamic_rnn loops (rnn/while/..., valid
 * TF1 Enter/Merge/Switch/NextIteration/Exit frames) and an object-detection
 * Postprocessor/BatchMultiClassNonMaxSuppression/map/while loop. Blocks are emitted in a fixed
 * sequence, skipping those that no longer fit; Identity nodes pad to exactly N. Every input names
 * a node of the graph; only NextIteration edges close cycles.
 * Nodes are built one block at a time in an arena, then packed/printed and appended: a GraphDef's
 * binary and text encodings are its node fields in order followed by `versions`, so appending
 * per-block encodings gives the bytes of packing the whole message, in bounded memory. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "io/pbtxt.h"
#include "util/arena.h"
#include "util/strbuf.h"

#define GEN_MAX_IN 8     /* inputs per node (the most is ConcatV2/FusedBatchNormV3 = 5) */
#define GEN_MAX_ATTR 12  /* attrs per node */
#define GEN_NAME 512     /* longest node name */

/* Model dimensions: small so weights do not dominate the files, but every Const has real bytes. */
enum { HID = 8, HEADS = 2, FF = 16, SEQ = 4, CH = 8, EXPAND = 16, LSTM = 8, ANCHORS = 16, CLASSES = 2 };

typedef struct gen {
  tfx_arena arena;               /* the current block; freed after each flush */
  Tensorflow__NodeDef **batch;   /* nodes of the current block (malloc'ed, reused) */
  size_t n, cap;
  uint64_t rng;                  /* splitmix64 state */
  int oom;
  FILE *pb, *txt;                /* NULL in a dry run (block sizes are counted only) */
  tfx_strbuf sb;
  uint64_t written;              /* nodes flushed so far */
  uint64_t weight_bytes;         /* float tensor_content bytes (for -v) */
} gen;

/* ---- allocation and naming ---- */

static void *gen_alloc(gen *g, size_t n) {
  void *p = tfx_arena_alloc(&g->arena, n);
  if (!p) {
    fprintf(stderr, "tfxc_bench_gen: out of memory\n");
    exit(1);
  }
  return p;
}

static char *gen_strdup(gen *g, const char *s) {
  size_t n = strlen(s);
  char *c = gen_alloc(g, n + 1);
  memcpy(c, s, n + 1);
  return c;
}

/* printf into the block arena. */
static char *nm(gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *nm(gen *g, const char *fmt, ...) {
  char buf[GEN_NAME];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (k < 0 || (size_t)k >= sizeof buf) {
    fprintf(stderr, "tfxc_bench_gen: name too long: %s\n", buf);
    exit(1);
  }
  return gen_strdup(g, buf);
}

static uint64_t gen_rand(gen *g) { /* splitmix64: tiny, seedable, same on every platform */
  uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* ---- nodes, inputs, attributes ---- */

static Tensorflow__NodeDef *node(gen *g, const char *op, const char *name) {
  Tensorflow__NodeDef *n = gen_alloc(g, sizeof *n);
  *n = (Tensorflow__NodeDef)TENSORFLOW__NODE_DEF__INIT;
  n->name = gen_strdup(g, name);
  n->op = gen_strdup(g, op);
  n->input = gen_alloc(g, GEN_MAX_IN * sizeof *n->input);
  n->attr = gen_alloc(g, GEN_MAX_ATTR * sizeof *n->attr);
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 256;
    Tensorflow__NodeDef **b = realloc(g->batch, cap * sizeof *b);
    if (!b) {
      fprintf(stderr, "tfxc_bench_gen: out of memory\n");
      exit(1);
    }
    g->batch = b, g->cap = cap;
  }
  g->batch[g->n++] = n;
  return n;
}

static void in(gen *g, Tensorflow__NodeDef *n, const char *src) {
  if (n->n_input == GEN_MAX_IN) {
    fprintf(stderr, "tfxc_bench_gen: too many inputs on %s\n", n->name);
    exit(1);
  }
  n->input[n->n_input++] = gen_strdup(g, src);
}

static void in_port(gen *g, Tensorflow__NodeDef *n, const char *src, int port) {
  in(g, n, port ? nm(g, "%s:%d", src, port) : src);
}

static void in_ctrl(gen *g, Tensorflow__NodeDef *n, const char *src) { in(g, n, nm(g, "^%s", src)); }

static Tensorflow__AttrValue *attr(gen *g, Tensorflow__NodeDef *n, const char *key) {
  if (n->n_attr == GEN_MAX_ATTR) {
    fprintf(stderr, "tfxc_bench_gen: too many attrs on %s\n", n->name);
    exit(1);
  }
  Tensorflow__NodeDef__AttrEntry *e = gen_alloc(g, sizeof *e);
  *e = (Tensorflow__NodeDef__AttrEntry)TENSORFLOW__NODE_DEF__ATTR_ENTRY__INIT;
  e->key = gen_strdup(g, key);
  e->value = gen_alloc(g, sizeof *e->value);
  tensorflow__attr_value__init(e->value); /* the INIT macro trips -Wmissing-braces (union) */
  n->attr[n->n_attr++] = e;
  return e->value;
}

static void a_type(gen *g, Tensorflow__NodeDef *n, const char *key, Tensorflow__DataType t) {
  Tensorflow__AttrValue *v = attr(g, n, key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  v->type = t;
}
static void a_i(gen *g, Tensorflow__NodeDef *n, const char *key, int64_t i) {
  Tensorflow__AttrValue *v = attr(g, n, key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
  v->i = i;
}
static void a_f(gen *g, Tensorflow__NodeDef *n, const char *key, float f) {
  Tensorflow__AttrValue *v = attr(g, n, key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F;
  v->f = f;
}
static void a_b(gen *g, Tensorflow__NodeDef *n, const char *key, int b) {
  Tensorflow__AttrValue *v = attr(g, n, key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
  v->b = b ? 1 : 0;
}
static void a_s(gen *g, Tensorflow__NodeDef *n, const char *key, const char *s) {
  Tensorflow__AttrValue *v = attr(g, n, key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
  v->s.data = (uint8_t *)gen_strdup(g, s);
  v->s.len = strlen(s);
}
static Tensorflow__AttrValue__ListValue *a_list(gen *g, Tensorflow__NodeDef *n, const char *key) {
  Tensorflow__AttrValue *v = attr(g, n, key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  v->list = gen_alloc(g, sizeof *v->list);
  *v->list = (Tensorflow__AttrValue__ListValue)TENSORFLOW__ATTR_VALUE__LIST_VALUE__INIT;
  return v->list;
}
static void a_ints(gen *g, Tensorflow__NodeDef *n, const char *key, size_t k, const int64_t *vals) {
  Tensorflow__AttrValue__ListValue *l = a_list(g, n, key);
  if (!k) return;
  l->i = gen_alloc(g, k * sizeof *l->i);
  memcpy(l->i, vals, k * sizeof *l->i);
  l->n_i = k;
}
/* `_class: ["loc:@NODE"]`, as TF1 writes on nodes colocated with NODE. */
static void a_class(gen *g, Tensorflow__NodeDef *n, const char *loc) {
  Tensorflow__AttrValue__ListValue *l = a_list(g, n, "_class");
  l->s = gen_alloc(g, sizeof *l->s);
  l->s[0].data = (uint8_t *)nm(g, "loc:@%s", loc);
  l->s[0].len = strlen((char *)l->s[0].data);
  l->n_s = 1;
}

/* dims < 0 = unknown size; nd < 0 = unknown rank. */
static Tensorflow__TensorShapeProto *mkshape(gen *g, int nd, const int64_t *dims) {
  Tensorflow__TensorShapeProto *s = gen_alloc(g, sizeof *s);
  *s = (Tensorflow__TensorShapeProto)TENSORFLOW__TENSOR_SHAPE_PROTO__INIT;
  if (nd < 0) {
    s->unknown_rank = 1;
    return s;
  }
  if (!nd) return s;
  s->dim = gen_alloc(g, (size_t)nd * sizeof *s->dim);
  for (int i = 0; i < nd; i++) {
    s->dim[i] = gen_alloc(g, sizeof *s->dim[i]);
    *s->dim[i] = (Tensorflow__TensorShapeProto__Dim)TENSORFLOW__TENSOR_SHAPE_PROTO__DIM__INIT;
    s->dim[i]->size = dims[i];
  }
  s->n_dim = (size_t)nd;
  return s;
}

static void a_shape(gen *g, Tensorflow__NodeDef *n, const char *key, int nd, const int64_t *dims) {
  Tensorflow__AttrValue *v = attr(g, n, key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
  v->shape = mkshape(g, nd, dims);
}

/* ---- Const nodes ---- */

static Tensorflow__TensorProto *mktensor(gen *g, Tensorflow__DataType dt, int nd, const int64_t *dims) {
  Tensorflow__TensorProto *t = gen_alloc(g, sizeof *t);
  *t = (Tensorflow__TensorProto)TENSORFLOW__TENSOR_PROTO__INIT;
  t->dtype = dt;
  t->tensor_shape = mkshape(g, nd, dims);
  return t;
}

static Tensorflow__NodeDef *const_node(gen *g, const char *name, Tensorflow__DataType dt,
                                       Tensorflow__TensorProto *t, const char *ctrl) {
  Tensorflow__NodeDef *n = node(g, "Const", name);
  if (ctrl) in_ctrl(g, n, ctrl); /* constants inside a while body hang off the loop's Identity */
  a_type(g, n, "dtype", dt);
  Tensorflow__AttrValue *v = attr(g, n, "value");
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
  v->tensor = t;
  return n;
}

/* A float weight: random values in [-0.125, 0.125) as little-endian tensor_content. */
static const char *c_weight(gen *g, const char *name, int nd, const int64_t *dims) {
  Tensorflow__TensorProto *t = mktensor(g, TENSORFLOW__DATA_TYPE__DT_FLOAT, nd, dims);
  size_t count = 1;
  for (int i = 0; i < nd; i++) count *= (size_t)dims[i];
  uint8_t *b = gen_alloc(g, count * 4);
  for (size_t i = 0; i < count; i++) {
    float f = (float)((int)(gen_rand(g) >> 40) - (1 << 23)) / (float)(1 << 26);
    uint32_t bits;
    memcpy(&bits, &f, 4);
    for (int k = 0; k < 4; k++) b[4 * i + (size_t)k] = (uint8_t)(bits >> (8 * k));
  }
  t->tensor_content.data = b;
  t->tensor_content.len = count * 4;
  g->weight_bytes += count * 4;
  return const_node(g, name, TENSORFLOW__DATA_TYPE__DT_FLOAT, t, NULL)->name;
}

/* A float scalar (float_val, as TF stores scalars); for a shaped splat give nd/dims. */
static const char *c_float(gen *g, const char *name, float v, int nd, const int64_t *dims, const char *ctrl) {
  Tensorflow__TensorProto *t = mktensor(g, TENSORFLOW__DATA_TYPE__DT_FLOAT, nd, dims);
  t->float_val = gen_alloc(g, sizeof *t->float_val);
  t->float_val[0] = v;
  t->n_float_val = 1;
  return const_node(g, name, TENSORFLOW__DATA_TYPE__DT_FLOAT, t, ctrl)->name;
}

static const char *c_i32(gen *g, const char *name, int32_t v, const char *ctrl) {
  Tensorflow__TensorProto *t = mktensor(g, TENSORFLOW__DATA_TYPE__DT_INT32, 0, NULL);
  t->int_val = gen_alloc(g, sizeof *t->int_val);
  t->int_val[0] = v;
  t->n_int_val = 1;
  return const_node(g, name, TENSORFLOW__DATA_TYPE__DT_INT32, t, ctrl)->name;
}

/* An int32 vector (shapes, perms, slice bounds) as tensor_content, as numpy constants are stored. */
static const char *c_i32v(gen *g, const char *name, int k, const int32_t *vals, const char *ctrl) {
  int64_t dim = k;
  Tensorflow__TensorProto *t = mktensor(g, TENSORFLOW__DATA_TYPE__DT_INT32, 1, &dim);
  uint8_t *b = gen_alloc(g, (size_t)k * 4);
  for (int i = 0; i < k; i++)
    for (int j = 0; j < 4; j++) b[4 * i + j] = (uint8_t)((uint32_t)vals[i] >> (8 * j));
  t->tensor_content.data = b;
  t->tensor_content.len = (size_t)k * 4;
  return const_node(g, name, TENSORFLOW__DATA_TYPE__DT_INT32, t, ctrl)->name;
}

/* ---- common op shapes ---- */

#define DT_F TENSORFLOW__DATA_TYPE__DT_FLOAT
#define DT_I TENSORFLOW__DATA_TYPE__DT_INT32
#define DT_RES TENSORFLOW__DATA_TYPE__DT_RESOURCE

static Tensorflow__NodeDef *op1(gen *g, const char *op, const char *name, const char *a, Tensorflow__DataType t) {
  Tensorflow__NodeDef *n = node(g, op, name);
  in(g, n, a);
  a_type(g, n, "T", t);
  return n;
}

static Tensorflow__NodeDef *op2(gen *g, const char *op, const char *name, const char *a, const char *b,
                                Tensorflow__DataType t) {
  Tensorflow__NodeDef *n = node(g, op, name);
  in(g, n, a);
  in(g, n, b);
  a_type(g, n, "T", t);
  return n;
}

static const char *reshape(gen *g, const char *name, const char *x, int k, const int32_t *shape, const char *ctrl) {
  const char *s = c_i32v(g, nm(g, "%s/shape", name), k, shape, ctrl);
  Tensorflow__NodeDef *n = op2(g, "Reshape", name, x, s, DT_F);
  a_type(g, n, "Tshape", DT_I);
  return n->name;
}

static const char *transpose(gen *g, const char *name, const char *x, int k, const int32_t *perm) {
  const char *p = c_i32v(g, nm(g, "%s/perm", name), k, perm, NULL);
  Tensorflow__NodeDef *n = op2(g, "Transpose", name, x, p, DT_F);
  a_type(g, n, "Tperm", DT_I);
  return n->name;
}

/* kernel/bias/MatMul/BiasAdd of tf.layers.dense (4 nodes). */
static const char *dense(gen *g, const char *s, const char *x, int64_t din, int64_t dout) {
  int64_t kd[2] = {din, dout};
  const char *k = c_weight(g, nm(g, "%s/kernel", s), 2, kd);
  Tensorflow__NodeDef *mm = op2(g, "MatMul", nm(g, "%s/MatMul", s), x, k, DT_F);
  a_b(g, mm, "transpose_a", 0);
  a_b(g, mm, "transpose_b", 0);
  const char *b = c_weight(g, nm(g, "%s/bias", s), 1, &dout);
  Tensorflow__NodeDef *ba = op2(g, "BiasAdd", nm(g, "%s/BiasAdd", s), mm->name, b, DT_F);
  a_s(g, ba, "data_format", "NHWC");
  return ba->name;
}

/* tf.contrib.layers.layer_norm over the last axis (16 nodes). */
static const char *layer_norm(gen *g, const char *s, const char *x, int64_t dim) {
  const char *beta = c_weight(g, nm(g, "%s/beta", s), 1, &dim);
  const char *gamma = c_weight(g, nm(g, "%s/gamma", s), 1, &dim);
  int32_t axes = -1;
  const char *ri = c_i32v(g, nm(g, "%s/moments/mean/reduction_indices", s), 1, &axes, NULL);
  Tensorflow__NodeDef *mean = op2(g, "Mean", nm(g, "%s/moments/mean", s), x, ri, DT_F);
  a_type(g, mean, "Tidx", DT_I);
  a_b(g, mean, "keep_dims", 1);
  const char *sg = op1(g, "StopGradient", nm(g, "%s/moments/StopGradient", s), mean->name, DT_F)->name;
  const char *sq = op2(g, "SquaredDifference", nm(g, "%s/moments/SquaredDifference", s), x, sg, DT_F)->name;
  const char *vri = c_i32v(g, nm(g, "%s/moments/variance/reduction_indices", s), 1, &axes, NULL);
  Tensorflow__NodeDef *var = op2(g, "Mean", nm(g, "%s/moments/variance", s), sq, vri, DT_F);
  a_type(g, var, "Tidx", DT_I);
  a_b(g, var, "keep_dims", 1);
  const char *eps = c_float(g, nm(g, "%s/batchnorm/add/y", s), 1e-12f, 0, NULL, NULL);
  const char *add = op2(g, "AddV2", nm(g, "%s/batchnorm/add", s), var->name, eps, DT_F)->name;
  const char *rs = op1(g, "Rsqrt", nm(g, "%s/batchnorm/Rsqrt", s), add, DT_F)->name;
  const char *mul = op2(g, "Mul", nm(g, "%s/batchnorm/mul", s), rs, gamma, DT_F)->name;
  const char *mul1 = op2(g, "Mul", nm(g, "%s/batchnorm/mul_1", s), x, mul, DT_F)->name;
  const char *mul2 = op2(g, "Mul", nm(g, "%s/batchnorm/mul_2", s), mean->name, mul, DT_F)->name;
  const char *sub = op2(g, "Sub", nm(g, "%s/batchnorm/sub", s), beta, mul2, DT_F)->name;
  return op2(g, "AddV2", nm(g, "%s/batchnorm/add_1", s), mul1, sub, DT_F)->name;
}

/* Conv2D or depthwise conv + FusedBatchNormV3 (+ Relu6): 8 nodes, 7 without the activation. */
static const char *conv_bn(gen *g, const char *s, const char *x, int depthwise, int64_t k, int64_t cin,
                           int64_t cout, int64_t stride, int relu6) {
  int64_t wd[4] = {k, k, cin, depthwise ? 1 : cout};
  const char *w = c_weight(g, nm(g, depthwise ? "%s/depthwise_weights" : "%s/weights", s), 4, wd);
  Tensorflow__NodeDef *c = op2(g, depthwise ? "DepthwiseConv2dNative" : "Conv2D",
                               nm(g, depthwise ? "%s/depthwise" : "%s/Conv2D", s), x, w, DT_F);
  a_s(g, c, "data_format", "NHWC");
  const int64_t ones[4] = {1, 1, 1, 1}, strides[4] = {1, stride, stride, 1};
  a_ints(g, c, "dilations", 4, ones);
  a_ints(g, c, "explicit_paddings", 0, NULL);
  a_s(g, c, "padding", "SAME");
  a_ints(g, c, "strides", 4, strides);
  if (!depthwise) a_b(g, c, "use_cudnn_on_gpu", 1);
  const char *p[4];
  static const char *const pn[4] = {"gamma", "beta", "moving_mean", "moving_variance"};
  for (int i = 0; i < 4; i++) p[i] = c_weight(g, nm(g, "%s/BatchNorm/%s", s, pn[i]), 1, &cout);
  Tensorflow__NodeDef *bn = node(g, "FusedBatchNormV3", nm(g, "%s/BatchNorm/FusedBatchNormV3", s));
  in(g, bn, c->name);
  for (int i = 0; i < 4; i++) in(g, bn, p[i]);
  a_type(g, bn, "T", DT_F);
  a_type(g, bn, "U", DT_F);
  a_s(g, bn, "data_format", "NHWC");
  a_f(g, bn, "epsilon", 0.001f);
  a_f(g, bn, "exponential_avg_factor", 1.0f);
  a_b(g, bn, "is_training", 0);
  if (!relu6) return bn->name;
  return op1(g, "Relu6", nm(g, "%s/Relu6", s), bn->name, DT_F)->name;
}

/* ---- TF1 while-loop pieces ---- */

static Tensorflow__NodeDef *loop_enter(gen *g, const char *name, const char *x, const char *frame, int is_const,
                                       Tensorflow__DataType t) {
  Tensorflow__NodeDef *n = op1(g, "Enter", name, x, t);
  a_s(g, n, "frame_name", frame);
  a_b(g, n, "is_constant", is_const);
  a_i(g, n, "parallel_iterations", 32);
  return n;
}

/* Enter/Merge/Switch/Identity for each loop variable `init[i]` (names Enter, Enter_1, ...),
 * Less/LoopCond against `limit`; returns the body Identity names in ids[]. The Merge inputs name
 * NextIteration[_i], emitted later by loop_close. Exit nodes come from loop_close too. */
static void loop_open(gen *g, const char *w, int k, const char *const *init, const Tensorflow__DataType *types,
                      const char *limit, const char **ids) {
  const char *frame = nm(g, "%s/while_context", w);
  const char *merge[8];
  for (int i = 0; i < k; i++) {
    const char *suf = i ? nm(g, "_%d", i) : "";
    const char *e = loop_enter(g, nm(g, "%s/Enter%s", w, suf), init[i], frame, 0, types[i])->name;
    Tensorflow__NodeDef *m = node(g, "Merge", nm(g, "%s/Merge%s", w, suf));
    in(g, m, e);
    in(g, m, nm(g, "%s/NextIteration%s", w, suf));
    a_i(g, m, "N", 2);
    a_type(g, m, "T", types[i]);
    merge[i] = m->name;
  }
  const char *le = loop_enter(g, nm(g, "%s/Less/Enter", w), limit, frame, 1, DT_I)->name;
  const char *less = op2(g, "Less", nm(g, "%s/Less", w), merge[0], le, DT_I)->name;
  Tensorflow__NodeDef *lc = node(g, "LoopCond", nm(g, "%s/LoopCond", w));
  in(g, lc, less);
  for (int i = 0; i < k; i++) {
    const char *suf = i ? nm(g, "_%d", i) : "";
    Tensorflow__NodeDef *sw = op2(g, "Switch", nm(g, "%s/Switch%s", w, suf), merge[i], lc->name, types[i]);
    a_class(g, sw, merge[i]);
    Tensorflow__NodeDef *id = node(g, "Identity", nm(g, "%s/Identity%s", w, suf));
    in_port(g, id, sw->name, 1);
    a_type(g, id, "T", types[i]);
    ids[i] = id->name;
  }
}

/* NextIteration[_i](next[i]) and Exit[_i](Switch[_i]:0); returns the Exit names. */
static void loop_close(gen *g, const char *w, int k, const char *const *next, const Tensorflow__DataType *types,
                       const char **exits) {
  for (int i = 0; i < k; i++) {
    const char *suf = i ? nm(g, "_%d", i) : "";
    op1(g, "NextIteration", nm(g, "%s/NextIteration%s", w, suf), next[i], types[i]);
  }
  for (int i = 0; i < k; i++) {
    const char *suf = i ? nm(g, "_%d", i) : "";
    exits[i] = op1(g, "Exit", nm(g, "%s/Exit%s", w, suf), nm(g, "%s/Switch%s", w, suf), types[i])->name;
  }
}

/* Shape -> strided_slice(.., [0], [1], [1]) with shrink_axis_mask 1: the leading dimension. */
static const char *leading_dim(gen *g, const char *s, const char *x) {
  Tensorflow__NodeDef *sh = op1(g, "Shape", nm(g, "%s/Shape", s), x, DT_F);
  a_type(g, sh, "out_type", DT_I);
  int32_t zero = 0, one = 1;
  const char *b = c_i32v(g, nm(g, "%s/strided_slice/stack", s), 1, &zero, NULL);
  const char *e = c_i32v(g, nm(g, "%s/strided_slice/stack_1", s), 1, &one, NULL);
  const char *st = c_i32v(g, nm(g, "%s/strided_slice/stack_2", s), 1, &one, NULL);
  Tensorflow__NodeDef *ss = node(g, "StridedSlice", nm(g, "%s/strided_slice", s));
  in(g, ss, sh->name);
  in(g, ss, b);
  in(g, ss, e);
  in(g, ss, st);
  a_type(g, ss, "Index", DT_I);
  a_type(g, ss, "T", DT_I);
  a_i(g, ss, "begin_mask", 0);
  a_i(g, ss, "ellipsis_mask", 0);
  a_i(g, ss, "end_mask", 0);
  a_i(g, ss, "new_axis_mask", 0);
  a_i(g, ss, "shrink_axis_mask", 1);
  return ss->name;
}

static const char *tensor_array(gen *g, const char *name, const char *size, const char *ta_name, int elem_rank) {
  Tensorflow__NodeDef *ta = node(g, "TensorArrayV3", name);
  in(g, ta, size);
  a_b(g, ta, "clear_after_read", 1);
  a_type(g, ta, "dtype", DT_F);
  a_b(g, ta, "dynamic_size", 0);
  const int64_t dims[2] = {-1, LSTM};
  a_shape(g, ta, "element_shape", elem_rank, dims);
  a_b(g, ta, "identical_element_shapes", 1);
  a_s(g, ta, "tensor_array_name", ta_name);
  return ta->name;
}

static const char *range(gen *g, const char *s, const char *limit) {
  const char *st = c_i32(g, nm(g, "%s/start", s), 0, NULL);
  const char *d = c_i32(g, nm(g, "%s/delta", s), 1, NULL);
  Tensorflow__NodeDef *r = node(g, "Range", s);
  in(g, r, st);
  in(g, r, limit);
  in(g, r, d);
  a_type(g, r, "Tidx", DT_I);
  return r->name;
}

static const char *scatter(gen *g, const char *s, const char *ta, const char *idx, const char *value) {
  Tensorflow__NodeDef *sc = node(g, "TensorArrayScatterV3", nm(g, "%s/TensorArrayScatter/TensorArrayScatterV3", s));
  in(g, sc, ta);
  in(g, sc, idx);
  in(g, sc, value);
  in_port(g, sc, ta, 1);
  a_type(g, sc, "T", DT_F);
  a_class(g, sc, value);
  return sc->name;
}

/* TensorArrayReadV3 of `ta` at `index` inside frame; `flow` is the scatter result. */
static const char *ta_read(gen *g, const char *s, const char *frame, const char *ta, const char *flow,
                           const char *index) {
  const char *e = loop_enter(g, nm(g, "%s/Enter", s), ta, frame, 1, DT_RES)->name;
  const char *e1 = loop_enter(g, nm(g, "%s/Enter_1", s), flow, frame, 1, DT_F)->name;
  Tensorflow__NodeDef *r = node(g, "TensorArrayReadV3", s);
  in(g, r, e);
  in(g, r, index);
  in(g, r, e1);
  a_type(g, r, "dtype", DT_F);
  return r->name;
}

static const char *ta_write(gen *g, const char *w, const char *frame, const char *ta, const char *index,
                            const char *value, const char *flow) {
  const char *e = loop_enter(g, nm(g, "%s/TensorArrayWrite/TensorArrayWriteV3/Enter", w), ta, frame, 1, DT_RES)->name;
  Tensorflow__NodeDef *wr = node(g, "TensorArrayWriteV3", nm(g, "%s/TensorArrayWrite/TensorArrayWriteV3", w));
  in(g, wr, e);
  in(g, wr, index);
  in(g, wr, value);
  in(g, wr, flow);
  a_type(g, wr, "T", DT_F);
  a_class(g, wr, value);
  return wr->name;
}

/* TensorArraySizeV3 + range + TensorArrayGatherV3 after the loop. */
static const char *ta_stack(gen *g, const char *s, const char *ta, const char *flow, int elem_rank) {
  Tensorflow__NodeDef *sz = node(g, "TensorArraySizeV3", nm(g, "%s/TensorArraySizeV3", s));
  in(g, sz, ta);
  in(g, sz, flow);
  a_class(g, sz, ta);
  const char *r = range(g, nm(g, "%s/range", s), sz->name);
  Tensorflow__NodeDef *ga = node(g, "TensorArrayGatherV3", nm(g, "%s/TensorArrayGatherV3", s));
  in(g, ga, ta);
  in(g, ga, r);
  in(g, ga, flow);
  a_type(g, ga, "dtype", DT_F);
  const int64_t dims[2] = {-1, LSTM};
  a_shape(g, ga, "element_shape", elem_rank, dims);
  a_class(g, ga, ta);
  return ga->name;
}

/* ---- blocks: each takes the input tensor x and a scope prefix, returns its output ---- */

typedef const char *(*block_fn)(gen *g, const char *prefix, int idx, const char *x);

/* Preprocessor + MobileNetV2 first conv (14 nodes). */
static const char *blk_stem(gen *g, const char *p, int idx, const char *x) {
  (void)idx;
  const int32_t shape[4] = {-1, 32, 32, 3};
  const char *r = reshape(g, nm(g, "%sPreprocessor/Reshape", p), x, 4, shape, NULL);
  const char *mx = c_float(g, nm(g, "%sPreprocessor/mul/x", p), 0.0078431377f, 0, NULL, NULL);
  const char *mul = op2(g, "Mul", nm(g, "%sPreprocessor/mul", p), mx, r, DT_F)->name;
  const char *sy = c_float(g, nm(g, "%sPreprocessor/sub/y", p), 1.0f, 0, NULL, NULL);
  const char *sub = op2(g, "Sub", nm(g, "%sPreprocessor/sub", p), mul, sy, DT_F)->name;
  return conv_bn(g, nm(g, "%sFeatureExtractor/MobilenetV2/Conv", p), sub, 0, 3, 3, CH, 2, 1);
}

/* MobileNetV2 inverted residual: expand, depthwise, project, add (24 nodes). */
static const char *blk_expanded_conv(gen *g, const char *p, int idx, const char *x) {
  const char *s = nm(g, "%sFeatureExtractor/MobilenetV2/expanded_conv_%d", p, idx);
  const char *e = conv_bn(g, nm(g, "%s/expand", s), x, 0, 1, CH, EXPAND, 1, 1);
  const char *d = conv_bn(g, nm(g, "%s/depthwise", s), e, 1, 3, EXPAND, EXPAND, 1, 1);
  const char *pr = conv_bn(g, nm(g, "%s/project", s), d, 0, 1, EXPAND, CH, 1, 0);
  return op2(g, "AddV2", nm(g, "%s/add", s), pr, x, DT_F)->name;
}

/* bert/encoder/Reshape: NHWC features to [tokens, hidden] (2 nodes). */
static const char *blk_encoder_in(gen *g, const char *p, int idx, const char *x) {
  (void)idx;
  const int32_t shape[2] = {-1, HID};
  return reshape(g, nm(g, "%sbert/encoder/Reshape", p), x, 2, shape, NULL);
}

/* One BERT encoder layer (92 nodes). */
static const char *blk_encoder_layer(gen *g, const char *p, int idx, const char *x) {
  const char *s = nm(g, "%sbert/encoder/layer_%d", p, idx);
  const char *sa = nm(g, "%s/attention/self", s);
  static const char *const qkv[3] = {"query", "key", "value"};
  const char *t[3];
  const int32_t heads[4] = {-1, SEQ, HEADS, HID / HEADS}, perm[4] = {0, 2, 1, 3}, flat[2] = {-1, HID};
  for (int i = 0; i < 3; i++) {
    const char *d = dense(g, nm(g, "%s/%s", sa, qkv[i]), x, HID, HID);
    const char *suf = i ? nm(g, "_%d", i) : "";
    const char *r = reshape(g, nm(g, "%s/Reshape%s", sa, suf), d, 4, heads, NULL);
    t[i] = transpose(g, nm(g, "%s/transpose%s", sa, suf), r, 4, perm);
  }
  Tensorflow__NodeDef *qk = op2(g, "BatchMatMulV2", nm(g, "%s/MatMul", sa), t[0], t[1], DT_F);
  a_b(g, qk, "adj_x", 0);
  a_b(g, qk, "adj_y", 1);
  const char *sc = c_float(g, nm(g, "%s/Mul/y", sa), 0.5f, 0, NULL, NULL);
  const char *mul = op2(g, "Mul", nm(g, "%s/Mul", sa), qk->name, sc, DT_F)->name;
  const char *sm = op1(g, "Softmax", nm(g, "%s/Softmax", sa), mul, DT_F)->name;
  Tensorflow__NodeDef *ctx = op2(g, "BatchMatMulV2", nm(g, "%s/MatMul_1", sa), sm, t[2], DT_F);
  a_b(g, ctx, "adj_x", 0);
  a_b(g, ctx, "adj_y", 0);
  const char *tr = transpose(g, nm(g, "%s/transpose_3", sa), ctx->name, 4, perm);
  const char *ctx2 = reshape(g, nm(g, "%s/Reshape_3", sa), tr, 2, flat, NULL);
  const char *ao = dense(g, nm(g, "%s/attention/output/dense", s), ctx2, HID, HID);
  const char *aadd = op2(g, "AddV2", nm(g, "%s/attention/output/add", s), ao, x, DT_F)->name;
  const char *ln1 = layer_norm(g, nm(g, "%s/attention/output/LayerNorm", s), aadd, HID);
  /* intermediate dense + tanh-approximated gelu, named as in google-research/bert */
  const char *ist = nm(g, "%s/intermediate/dense", s);
  const char *h = dense(g, ist, ln1, HID, FF);
  const char *py = c_float(g, nm(g, "%s/Pow/y", ist), 3.0f, 0, NULL, NULL);
  const char *pw = op2(g, "Pow", nm(g, "%s/Pow", ist), h, py, DT_F)->name;
  const char *m0x = c_float(g, nm(g, "%s/mul/x", ist), 0.044715f, 0, NULL, NULL);
  const char *m0 = op2(g, "Mul", nm(g, "%s/mul", ist), m0x, pw, DT_F)->name;
  const char *a0 = op2(g, "AddV2", nm(g, "%s/add", ist), h, m0, DT_F)->name;
  const char *m1x = c_float(g, nm(g, "%s/mul_1/x", ist), 0.7978846f, 0, NULL, NULL);
  const char *m1 = op2(g, "Mul", nm(g, "%s/mul_1", ist), m1x, a0, DT_F)->name;
  const char *th = op1(g, "Tanh", nm(g, "%s/Tanh", ist), m1, DT_F)->name;
  const char *a1x = c_float(g, nm(g, "%s/add_1/x", ist), 1.0f, 0, NULL, NULL);
  const char *a1 = op2(g, "AddV2", nm(g, "%s/add_1", ist), a1x, th, DT_F)->name;
  const char *m2x = c_float(g, nm(g, "%s/mul_2/x", ist), 0.5f, 0, NULL, NULL);
  const char *m2 = op2(g, "Mul", nm(g, "%s/mul_2", ist), m2x, a1, DT_F)->name;
  const char *gelu = op2(g, "Mul", nm(g, "%s/mul_3", ist), h, m2, DT_F)->name;
  const char *od = dense(g, nm(g, "%s/output/dense", s), gelu, FF, HID);
  const char *oadd = op2(g, "AddV2", nm(g, "%s/output/add", s), od, ln1, DT_F)->name;
  return layer_norm(g, nm(g, "%s/output/LayerNorm", s), oadd, HID);
}

/* tf.nn.dynamic_rnn over a BasicLSTMCell: TensorArrays, a 4-variable while loop (time, output
 * flow, c, h), TensorArrayGatherV3 and the final transpose (83 nodes). Scope rnn, rnn_1, ... */
static const char *blk_rnn(gen *g, const char *p, int idx, const char *x) {
  const char *s = idx ? nm(g, "%srnn_%d", p, idx) : nm(g, "%srnn", p);
  const char *w = nm(g, "%s/while", s);
  const char *frame = nm(g, "%s/while_context", w);
  const int32_t perm[3] = {1, 0, 2};
  const char *xt = transpose(g, nm(g, "%s/transpose", s), x, 3, perm);
  const char *steps = leading_dim(g, s, xt);
  const int64_t zd[2] = {1, LSTM};
  const char *c0 = c_float(g, nm(g, "%s/BasicLSTMCellZeroState/zeros", s), 0.0f, 2, zd, NULL);
  const char *h0 = c_float(g, nm(g, "%s/BasicLSTMCellZeroState/zeros_1", s), 0.0f, 2, zd, NULL);
  const char *time = c_i32(g, nm(g, "%s/time", s), 0, NULL);
  const char *out_ta = tensor_array(g, nm(g, "%s/TensorArray", s), steps, "rnn/dynamic_rnn/output_0", 2);
  const char *in_ta = tensor_array(g, nm(g, "%s/TensorArray_1", s), steps, "rnn/dynamic_rnn/input_0", 2);
  const char *us = nm(g, "%s/TensorArrayUnstack", s);
  const char *ulen = leading_dim(g, us, xt);
  const char *idx_r = range(g, nm(g, "%s/range", us), ulen);
  const char *sc = scatter(g, us, in_ta, idx_r, xt);
  const int64_t kd[2] = {2 * LSTM, 4 * LSTM}, bd = 4 * LSTM;
  const char *kernel = c_weight(g, nm(g, "%s/basic_lstm_cell/kernel", s), 2, kd);
  const char *bias = c_weight(g, nm(g, "%s/basic_lstm_cell/bias", s), 1, &bd);

  const char *init[4] = {time, nm(g, "%s:1", out_ta), c0, h0};
  const Tensorflow__DataType ty[4] = {DT_I, DT_F, DT_F, DT_F};
  const char *id[4];
  loop_open(g, w, 4, init, ty, steps, id);
  const char *xi = ta_read(g, nm(g, "%s/TensorArrayReadV3", w), frame, in_ta, sc, id[0]);
  const char *c = nm(g, "%s/basic_lstm_cell", w);
  const char *ax = c_i32(g, nm(g, "%s/concat/axis", c), 1, id[0]);
  Tensorflow__NodeDef *cat = node(g, "ConcatV2", nm(g, "%s/concat", c));
  in(g, cat, xi);
  in(g, cat, id[3]);
  in(g, cat, ax);
  a_i(g, cat, "N", 2);
  a_type(g, cat, "T", DT_F);
  a_type(g, cat, "Tidx", DT_I);
  const char *ke = loop_enter(g, nm(g, "%s/MatMul/Enter", c), kernel, frame, 1, DT_F)->name;
  Tensorflow__NodeDef *mm = op2(g, "MatMul", nm(g, "%s/MatMul", c), cat->name, ke, DT_F);
  a_b(g, mm, "transpose_a", 0);
  a_b(g, mm, "transpose_b", 0);
  const char *be = loop_enter(g, nm(g, "%s/BiasAdd/Enter", c), bias, frame, 1, DT_F)->name;
  Tensorflow__NodeDef *ba = op2(g, "BiasAdd", nm(g, "%s/BiasAdd", c), mm->name, be, DT_F);
  a_s(g, ba, "data_format", "NHWC");
  const char *one = c_i32(g, nm(g, "%s/Const", c), 1, id[0]);
  Tensorflow__NodeDef *sp = op2(g, "Split", nm(g, "%s/split", c), one, ba->name, DT_F);
  a_i(g, sp, "num_split", 4);
  const char *fb = c_float(g, nm(g, "%s/Const_1", c), 1.0f, 0, NULL, id[0]);
  /* split outputs: i, j, f, o */
  const char *fadd = op2(g, "Add", nm(g, "%s/Add", c), nm(g, "%s:2", sp->name), fb, DT_F)->name;
  const char *sf = op1(g, "Sigmoid", nm(g, "%s/Sigmoid", c), fadd, DT_F)->name;
  const char *cf = op2(g, "Mul", nm(g, "%s/Mul", c), id[2], sf, DT_F)->name;
  const char *si = op1(g, "Sigmoid", nm(g, "%s/Sigmoid_1", c), sp->name, DT_F)->name;
  const char *tj = op1(g, "Tanh", nm(g, "%s/Tanh", c), nm(g, "%s:1", sp->name), DT_F)->name;
  const char *ij = op2(g, "Mul", nm(g, "%s/Mul_1", c), si, tj, DT_F)->name;
  const char *newc = op2(g, "Add", nm(g, "%s/Add_1", c), cf, ij, DT_F)->name;
  const char *tc = op1(g, "Tanh", nm(g, "%s/Tanh_1", c), newc, DT_F)->name;
  const char *so = op1(g, "Sigmoid", nm(g, "%s/Sigmoid_2", c), nm(g, "%s:3", sp->name), DT_F)->name;
  const char *newh = op2(g, "Mul", nm(g, "%s/Mul_2", c), tc, so, DT_F)->name;
  const char *flow = ta_write(g, w, frame, out_ta, id[0], newh, id[1]);
  const char *y1 = c_i32(g, nm(g, "%s/add/y", w), 1, id[0]);
  const char *t1 = op2(g, "Add", nm(g, "%s/add", w), id[0], y1, DT_I)->name;
  const char *next[4] = {t1, flow, newc, newh};
  const char *ex[4];
  loop_close(g, w, 4, next, ty, ex);
  const char *out = ta_stack(g, nm(g, "%s/TensorArrayStack", s), out_ta, ex[1], 2);
  return transpose(g, nm(g, "%s/transpose_1", s), out, 3, perm);
}

/* Object-detection post-processing: a tf.map_fn loop running per-class NMS (61 nodes). */
static const char *blk_postprocess(gen *g, const char *p, int idx, const char *x) {
  (void)idx;
  const char *s = nm(g, "%sPostprocessor", p);
  const int32_t bshape[4] = {-1, ANCHORS, 1, 4}, sshape[3] = {-1, ANCHORS, CLASSES};
  const char *boxes = reshape(g, nm(g, "%s/Reshape", s), x, 4, bshape, NULL);
  const char *logits = reshape(g, nm(g, "%s/Reshape_1", s), x, 3, sshape, NULL);
  const char *scores = op1(g, "Sigmoid", nm(g, "%s/convert_scores", s), logits, DT_F)->name;
  const char *m = nm(g, "%s/BatchMultiClassNonMaxSuppression/map", s);
  const char *w = nm(g, "%s/while", m);
  const char *frame = nm(g, "%s/while_context", w);
  const char *n = leading_dim(g, m, boxes);
  const char *ta_b = tensor_array(g, nm(g, "%s/TensorArray", m), n, "", -1);
  const char *ta_s = tensor_array(g, nm(g, "%s/TensorArray_1", m), n, "", -1);
  const char *ta_o = tensor_array(g, nm(g, "%s/TensorArray_2", m), n, "", -1);
  const char *r = range(g, nm(g, "%s/TensorArrayUnstack/range", m), n);
  const char *scb = scatter(g, nm(g, "%s/TensorArrayUnstack", m), ta_b, r, boxes);
  const char *scs = scatter(g, nm(g, "%s/TensorArrayUnstack_1", m), ta_s, r, scores);
  const char *i0 = c_i32(g, nm(g, "%s/Const", m), 0, NULL);

  const char *init[2] = {i0, nm(g, "%s:1", ta_o)};
  const Tensorflow__DataType ty[2] = {DT_I, DT_F};
  const char *id[2];
  loop_open(g, w, 2, init, ty, n, id);
  const char *bx = ta_read(g, nm(g, "%s/TensorArrayReadV3", w), frame, ta_b, scb, id[0]);
  const char *sx = ta_read(g, nm(g, "%s/TensorArrayReadV3_1", w), frame, ta_s, scs, id[0]);
  const char *b = nm(g, "%s/MultiClassNonMaxSuppression", w);
  Tensorflow__NodeDef *un = op1(g, "Unpack", nm(g, "%s/unstack", b), sx, DT_F);
  a_i(g, un, "axis", 1);
  a_i(g, un, "num", CLASSES);
  const int32_t flat[2] = {ANCHORS, 4};
  const char *bb = reshape(g, nm(g, "%s/Reshape", b), bx, 2, flat, id[0]);
  const char *mo = c_i32(g, nm(g, "%s/Const", b), 100, id[0]);
  const char *iou = c_float(g, nm(g, "%s/non_max_suppression/iou_threshold", b), 0.6f, 0, NULL, id[0]);
  const char *st = c_float(g, nm(g, "%s/non_max_suppression/score_threshold", b), 1e-8f, 0, NULL, id[0]);
  Tensorflow__NodeDef *nms = node(g, "NonMaxSuppressionV3", nm(g, "%s/non_max_suppression/NonMaxSuppressionV3", b));
  in(g, nms, bb);
  in(g, nms, un->name);
  in(g, nms, mo);
  in(g, nms, iou);
  in(g, nms, st);
  a_type(g, nms, "T", DT_F);
  a_type(g, nms, "T_threshold", DT_F);
  const char *gax = c_i32(g, nm(g, "%s/GatherV2/axis", b), 0, id[0]);
  const char *gather[2];
  for (int i = 0; i < 2; i++) {
    Tensorflow__NodeDef *ga = node(g, "GatherV2", i ? nm(g, "%s/GatherV2_1", b) : nm(g, "%s/GatherV2", b));
    in(g, ga, i ? nm(g, "%s:1", un->name) : bb);
    in(g, ga, nms->name);
    in(g, ga, gax);
    a_type(g, ga, "Taxis", DT_I);
    a_type(g, ga, "Tindices", DT_I);
    a_type(g, ga, "Tparams", DT_F);
    a_i(g, ga, "batch_dims", 0);
    gather[i] = ga->name;
  }
  const char *flow = ta_write(g, w, frame, ta_o, id[0], gather[0], id[1]);
  const char *y1 = c_i32(g, nm(g, "%s/add/y", w), 1, id[0]);
  const char *i1 = op2(g, "Add", nm(g, "%s/add", w), id[0], y1, DT_I)->name;
  const char *next[2] = {i1, flow};
  const char *ex[2];
  loop_close(g, w, 2, next, ty, ex);
  const char *out = ta_stack(g, nm(g, "%s/TensorArrayStack", m), ta_o, ex[1], -1);
  return op1(g, "Identity", nm(g, "%sdetection_boxes", p), out, DT_F)->name;
}

/* The fixed block sequence of one tower. */
typedef struct block {
  block_fn fn;
  int idx;       /* layer / scope number handed to fn */
  size_t nodes;  /* measured by a dry run */
} block;

static block tower_seq[] = {
    {blk_stem, 0, 0},          {blk_expanded_conv, 1, 0}, {blk_expanded_conv, 2, 0}, {blk_expanded_conv, 3, 0},
    {blk_expanded_conv, 4, 0}, {blk_encoder_in, 0, 0},    {blk_encoder_layer, 0, 0}, {blk_encoder_layer, 1, 0},
    {blk_encoder_layer, 2, 0}, {blk_encoder_layer, 3, 0}, {blk_rnn, 0, 0},           {blk_rnn, 1, 0},
    {blk_postprocess, 0, 0},
};
#define N_SEQ (sizeof tower_seq / sizeof tower_seq[0])

/* ---- output ---- */

static int by_key(const void *a, const void *b) {
  const Tensorflow__NodeDef__AttrEntry *x = *(Tensorflow__NodeDef__AttrEntry *const *)a;
  const Tensorflow__NodeDef__AttrEntry *y = *(Tensorflow__NodeDef__AttrEntry *const *)b;
  return strcmp(x->key, y->key);
}

/* Writes the block's nodes (attrs sorted by key, as TF prints maps) and starts a new block. */
static int flush(gen *g) {
  if (g->pb) {
    for (size_t i = 0; i < g->n; i++)
      qsort(g->batch[i]->attr, g->batch[i]->n_attr, sizeof *g->batch[i]->attr, by_key);
    Tensorflow__GraphDef gd = TENSORFLOW__GRAPH_DEF__INIT;
    gd.node = g->batch;
    gd.n_node = g->n;
    tfx_sb_reset(&g->sb);
    if (tfx_io_pack(&gd.base, &g->sb) != 0 || g->sb.oom) return -1;
    if (g->sb.len && fwrite(g->sb.data, 1, g->sb.len, g->pb) != g->sb.len) return -1;
    tfx_sb_reset(&g->sb);
    if (tfx_pbtxt_print(&gd.base, &g->sb) != 0 || g->sb.oom) return -1;
    if (g->sb.len && fwrite(g->sb.data, 1, g->sb.len, g->txt) != g->sb.len) return -1;
  }
  g->written += g->n;
  g->n = 0;
  tfx_arena_free(&g->arena);
  return 0;
}

static int write_versions(gen *g) {
  Tensorflow__VersionDef v = TENSORFLOW__VERSION_DEF__INIT;
  v.producer = 134; /* TF 1.15 */
  Tensorflow__GraphDef gd = TENSORFLOW__GRAPH_DEF__INIT;
  gd.versions = &v;
  tfx_sb_reset(&g->sb);
  if (tfx_io_pack(&gd.base, &g->sb) != 0 || g->sb.oom) return -1;
  if (fwrite(g->sb.data, 1, g->sb.len, g->pb) != g->sb.len) return -1;
  tfx_sb_reset(&g->sb);
  if (tfx_pbtxt_print(&gd.base, &g->sb) != 0 || g->sb.oom) return -1;
  if (fwrite(g->sb.data, 1, g->sb.len, g->txt) != g->sb.len) return -1;
  return 0;
}

/* Measures every block's node count with a throwaway generator. */
static void measure_blocks(void) {
  gen d;
  memset(&d, 0, sizeof d);
  tfx_arena_init(&d.arena);
  for (size_t i = 0; i < N_SEQ; i++) {
    tower_seq[i].fn(&d, "tower_0/", tower_seq[i].idx, "x");
    tower_seq[i].nodes = d.n;
    d.n = 0;
    tfx_arena_free(&d.arena);
  }
  free(d.batch);
}

/* The whole graph: input placeholder, towers until no block fits, Identity padding. */
static int generate(gen *g, uint64_t total) {
  char x[GEN_NAME];
  Tensorflow__NodeDef *in0 = node(g, "Placeholder", "image_tensor");
  a_type(g, in0, "dtype", DT_F);
  const int64_t dims[4] = {-1, 32, 32, 3};
  a_shape(g, in0, "shape", 4, dims);
  snprintf(x, sizeof x, "%s", in0->name);
  if (flush(g)) return -1;
  size_t min_block = SIZE_MAX;
  for (size_t i = 0; i < N_SEQ; i++)
    if (tower_seq[i].nodes < min_block) min_block = tower_seq[i].nodes;
  for (unsigned tower = 0; total - g->written >= min_block; tower++) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "tower_%u/", tower);
    for (size_t i = 0; i < N_SEQ; i++) {
      if (tower_seq[i].nodes > total - g->written) continue;
      const char *y = tower_seq[i].fn(g, prefix, tower_seq[i].idx, x);
      if (g->n != tower_seq[i].nodes) {
        fprintf(stderr, "tfxc_bench_gen: internal error: block %zu made %zu nodes, expected %zu\n", i, g->n,
                tower_seq[i].nodes);
        return -1;
      }
      snprintf(x, sizeof x, "%s", y);
      if (flush(g)) return -1;
    }
  }
  for (uint64_t k = 0; g->written + g->n < total; k++) {
    const char *y = op1(g, "Identity", k ? nm(g, "output/Identity_%" PRIu64, k) : "output/Identity", x, DT_F)->name;
    snprintf(x, sizeof x, "%s", y);
    if (g->n == 4096 && flush(g)) return -1;
  }
  if (flush(g)) return -1;
  return write_versions(g);
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: tfxc_bench_gen -n NODES [-s SEED] [-v] -o STEM\n"
          "  writes STEM.pb (binary GraphDef) and STEM.pbtxt (text) with exactly NODES nodes (>= 1);\n"
          "  the same NODES and SEED (default 1) give the same bytes.\n"
          "  -v prints the file sizes and the share of weight bytes on stderr.\n"
          "  --sizes prints the node count of each block kind and exits.\n");
}

static int parse_u64(const char *s, uint64_t *v) {
  char *end;
  errno = 0;
  unsigned long long u = strtoull(s, &end, 0);
  if (errno || end == s || *end || *s == '-') return -1;
  *v = u;
  return 0;
}

int main(int argc, char **argv) {
  uint64_t n = 0, seed = 1;
  const char *stem = NULL;
  int sizes = 0, verbose = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "-v")) {
      verbose = 1;
    } else if (!strcmp(a, "--sizes")) {
      sizes = 1;
    } else if ((!strcmp(a, "-n") || !strcmp(a, "-s") || !strcmp(a, "-o")) && i + 1 < argc) {
      const char *v = argv[++i];
      if (a[1] == 'o') stem = v;
      else if (parse_u64(v, a[1] == 'n' ? &n : &seed)) {
        fprintf(stderr, "tfxc_bench_gen: bad number '%s' for %s\n", v, a);
        return 2;
      }
    } else {
      fprintf(stderr, "tfxc_bench_gen: unexpected argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  measure_blocks();
  if (sizes) {
    static const char *const names[] = {"stem", "expanded_conv", "encoder_in", "encoder_layer", "rnn",
                                        "postprocess"};
    block_fn fns[] = {blk_stem, blk_expanded_conv, blk_encoder_in, blk_encoder_layer, blk_rnn, blk_postprocess};
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++)
      for (size_t i = 0; i < N_SEQ; i++)
        if (tower_seq[i].fn == fns[k]) {
          printf("%-14s %zu\n", names[k], tower_seq[i].nodes);
          break;
        }
    size_t tower = 0;
    for (size_t i = 0; i < N_SEQ; i++) tower += tower_seq[i].nodes;
    printf("%-14s %zu\n", "tower", tower);
    return 0;
  }
  if (!n || !stem) {
    usage(stderr);
    return 2;
  }

  gen g;
  memset(&g, 0, sizeof g);
  tfx_arena_init(&g.arena);
  tfx_sb_init(&g.sb);
  g.rng = seed;
  size_t sl = strlen(stem);
  char *pb_path = malloc(sl + 8), *txt_path = malloc(sl + 8);
  if (!pb_path || !txt_path) return 1;
  snprintf(pb_path, sl + 8, "%s.pb", stem);
  snprintf(txt_path, sl + 8, "%s.pbtxt", stem);
  g.pb = fopen(pb_path, "wb");
  g.txt = fopen(txt_path, "wb");
  int rc = 0;
  if (!g.pb || !g.txt) {
    fprintf(stderr, "tfxc_bench_gen: cannot create %s: %s\n", g.pb ? txt_path : pb_path, strerror(errno));
    rc = 1;
  } else if (generate(&g, n) != 0) {
    fprintf(stderr, "tfxc_bench_gen: failed writing %s / %s (out of memory or I/O error)\n", pb_path, txt_path);
    rc = 1;
  }
  long pb_size = g.pb ? ftell(g.pb) : -1, txt_size = g.txt ? ftell(g.txt) : -1;
  if (g.pb && fclose(g.pb) != 0) rc = 1;
  if (g.txt && fclose(g.txt) != 0) rc = 1;
  if (!rc && verbose)
    fprintf(stderr, "tfxc_bench_gen: %s: %" PRIu64 " nodes, %ld bytes (%" PRIu64 " bytes = %.1f%% weights); %s: %ld bytes\n",
            pb_path, g.written, pb_size, g.weight_bytes, pb_size > 0 ? 100.0 * (double)g.weight_bytes / (double)pb_size : 0.0,
            txt_path, txt_size);
  if (rc) {
    remove(pb_path);
    remove(txt_path);
  }
  tfx_arena_free(&g.arena);
  tfx_sb_free(&g.sb);
  free(g.batch);
  free(pb_path);
  free(txt_path);
  return rc;
}
