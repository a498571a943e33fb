/* Unit tests for the .air writer (src/ge/air_write.c): its bytes must be exactly those of the
 * descriptor-driven packer tfx_io_pack (which tests/unit/test_io_pack.c and the corpus tests hold
 * to protoc) for every field of every GE message type: proto3 presence (zero / empty fields left
 * out, -0.0 written), oneof members with zero values, repeated elements that are NULL or empty,
 * map entries with empty keys or no value, unknown fields, nested graphs and lists, chunk
 * boundaries (a model of several MiB), and the two GE text models of tests/cli/ge_emit. Also:
 * every allocation failure is reported (-3) without a leak, the size limit gives -2 with the
 * exact size, nesting over 1000 levels gives -1. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ge/air_write.h"
#include "ge/ge.h"
#include "io/io.h"
#include "io/pbtxt.h"
#include "util/arena.h"
#include "util/fileio.h"

static tfx_arena ar;

static void *A(size_t n) {
  void *p = tfx_arena_calloc(&ar, 1, n ? n : 1);
  assert_non_null(p);
  return p;
}

static char *S(const char *s) {
  char *p = tfx_arena_strdup(&ar, s);
  assert_non_null(p);
  return p;
}

static ProtobufCBinaryData B(const char *s, size_t n) {
  uint8_t *d = A(n);
  memcpy(d, s, n);
  return (ProtobufCBinaryData){n, d};
}

/* Joins the pieces. */
static uint8_t *joined(const tfx_io_pieces *pc) {
  uint8_t *b = malloc(pc->total ? pc->total : 1);
  assert_non_null(b);
  size_t o = 0;
  for (size_t i = 0; i < pc->n; i++) {
    if (pc->p[i].fd1) /* read from the spill file (streaming to a file) */
      assert_int_equal(pread(pc->p[i].fd1 - 1, b + o, pc->p[i].len, (off_t)pc->p[i].off),
                       (ssize_t)pc->p[i].len);
    else
      memcpy(b + o, pc->p[i].data, pc->p[i].len);
    o += pc->p[i].len;
  }
  assert_int_equal(o, pc->total);
  return b;
}

/* The writer's bytes equal tfx_io_pack's; returns the size. */
static size_t same_as_packer(const Ge__Proto__ModelDef *m) {
  tfx_strbuf ref;
  tfx_sb_init(&ref);
  assert_int_equal(tfx_io_pack(&m->base, &ref), 0);
  tfx_io_pieces pc;
  size_t n = 0;
  assert_int_equal(tfx_ge_air_write(m, SIZE_MAX, &pc, &n), 0);
  assert_int_equal(n, ref.len);
  assert_int_equal(pc.total, ref.len);
  uint8_t *b = joined(&pc);
  if (ref.len) assert_memory_equal(b, ref.data, ref.len);
  free(b);
  tfx_io_pieces_free(&pc);
  tfx_sb_free(&ref);
  return n;
}

static void unknown(ProtobufCMessage *m, uint32_t tag) {
  m->n_unknown_fields = 2;
  m->unknown_fields = A(2 * sizeof *m->unknown_fields);
  m->unknown_fields[0] = (ProtobufCMessageUnknownField){tag, PROTOBUF_C_WIRE_TYPE_VARINT, 1, A(1)};
  m->unknown_fields[0].data[0] = 0x2a;
  m->unknown_fields[1] =
      (ProtobufCMessageUnknownField){tag + 1, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, 3, A(3)};
  memcpy(m->unknown_fields[1].data, "\x02hi", 3);
}

static Ge__Proto__AttrDef *attr(int c) {
  Ge__Proto__AttrDef *a = A(sizeof *a);
  ge__proto__attr_def__init(a);
  a->value_case = (Ge__Proto__AttrDef__ValueCase)c;
  return a;
}

static Ge__Proto__TensorDescriptor *desc(int full);

/* One AttrDef per oneof member, zero values included, and NULL message members. */
static Ge__Proto__OpDef__AttrEntry **entries(size_t *n, int depth);

static Ge__Proto__NamedAttrs *named(int depth) {
  Ge__Proto__NamedAttrs *na = A(sizeof *na);
  ge__proto__named_attrs__init(na);
  na->name = S(depth ? "fn" : "");
  if (depth) na->attr = (Ge__Proto__NamedAttrs__AttrEntry **)entries(&na->n_attr, depth - 1);
  return na;
}

static Ge__Proto__GraphDef *graph(const char *name, int nops, int depth);

static Ge__Proto__AttrDef__ListValue *listv(int depth) {
  Ge__Proto__AttrDef__ListValue *l = A(sizeof *l);
  ge__proto__attr_def__list_value__init(l);
  l->val_type = GE__PROTO__ATTR_DEF__LIST_VALUE__LIST_VALUE_TYPE__VT_LIST_DATA_TYPE;
  l->n_s = 3;
  l->s = A(3 * sizeof *l->s);
  l->s[0] = B("a", 1);
  l->s[2] = B("xyz", 3); /* s[1] empty: still written */
  static const int64_t iv[] = {0, -1, 300, INT64_MIN};
  l->n_i = 4;
  l->i = (int64_t *)iv;
  static const float fv[] = {0.0f, -0.0f, 1.5f};
  l->n_f = 3;
  l->f = (float *)fv;
  static const protobuf_c_boolean bv[] = {0, 1, 7};
  l->n_b = 3;
  l->b = (protobuf_c_boolean *)bv;
  l->n_bt = 1;
  l->bt = A(sizeof *l->bt);
  l->bt[0] = B("\0\1", 2);
  l->n_td = 2;
  l->td = A(2 * sizeof *l->td);
  l->td[0] = desc(0); /* td[1] NULL: an empty message */
  l->n_t = 1;
  l->t = A(sizeof *l->t);
  l->t[0] = A(sizeof **l->t);
  ge__proto__tensor_def__init(l->t[0]);
  l->t[0]->data = B("abcd", 4);
  if (depth) {
    l->n_g = 1;
    l->g = A(sizeof *l->g);
    l->g[0] = graph("inner", 1, depth - 1);
    l->n_na = 2;
    l->na = A(2 * sizeof *l->na);
    l->na[0] = named(depth - 1);
    l->na[1] = named(0);
  }
  static const int64_t dv[] = {0, 1, 28};
  l->n_dt = 3;
  l->dt = (int64_t *)dv;
  return l;
}

static Ge__Proto__OpDef__AttrEntry **entries(size_t *n, int depth) {
  enum { N = 24 };
  Ge__Proto__OpDef__AttrEntry **e = A(N * sizeof *e);
  size_t k = 0;
#define ENT(K, V)                                                                                   \
  do {                                                                                             \
    e[k] = A(sizeof **e);                                                                          \
    ge__proto__op_def__attr_entry__init(e[k]);                                                     \
    e[k]->key = S(K);                                                                              \
    e[k]->value = (V);                                                                             \
    k++;                                                                                           \
  } while (0)
  Ge__Proto__AttrDef *a;
  ENT("", attr(GE__PROTO__ATTR_DEF__VALUE_I)); /* empty key, i = 0 */
  ENT("novalue", NULL);
  a = attr(GE__PROTO__ATTR_DEF__VALUE_I);
  a->i = -5;
  ENT("i", a);
  ENT("s0", attr(GE__PROTO__ATTR_DEF__VALUE_S));
  a = attr(GE__PROTO__ATTR_DEF__VALUE_S);
  a->s = B("str", 3);
  ENT("s", a);
  ENT("f0", attr(GE__PROTO__ATTR_DEF__VALUE_F));
  a = attr(GE__PROTO__ATTR_DEF__VALUE_F);
  a->f = -0.0f;
  ENT("fneg0", a);
  a = attr(GE__PROTO__ATTR_DEF__VALUE_F);
  a->f = NAN;
  ENT("fnan", a);
  ENT("b0", attr(GE__PROTO__ATTR_DEF__VALUE_B));
  a = attr(GE__PROTO__ATTR_DEF__VALUE_B);
  a->b = 1;
  ENT("b", a);
  a = attr(GE__PROTO__ATTR_DEF__VALUE_BT);
  a->bt = B("\xff\x00", 2);
  ENT("bt", a);
  ENT("func_null", attr(GE__PROTO__ATTR_DEF__VALUE_FUNC));
  a = attr(GE__PROTO__ATTR_DEF__VALUE_FUNC);
  a->func = named(depth);
  ENT("func", a);
  a = attr(GE__PROTO__ATTR_DEF__VALUE_TD);
  a->td = desc(1);
  ENT("td", a);
  a = attr(GE__PROTO__ATTR_DEF__VALUE_T);
  a->t = A(sizeof *a->t);
  ge__proto__tensor_def__init(a->t);
  a->t->desc = desc(0);
  ENT("t", a);
  if (depth) {
    a = attr(GE__PROTO__ATTR_DEF__VALUE_G);
    a->g = graph("g", 2, depth - 1);
    ENT("g", a);
  }
  a = attr(GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_INT);
  a->list_list_int = A(sizeof *a->list_list_int);
  ge__proto__attr_def__list_list_int__init(a->list_list_int);
  a->list_list_int->n_list_list_i = 3;
  a->list_list_int->list_list_i = A(3 * sizeof(void *));
  for (int j = 0; j < 2; j++) { /* [2] NULL */
    Ge__Proto__AttrDef__ListListInt__ListInt *li = A(sizeof *li);
    ge__proto__attr_def__list_list_int__list_int__init(li);
    static const int64_t v[] = {1, -2, 3};
    li->n_list_i = (size_t)j * 3;
    li->list_i = (int64_t *)v;
    a->list_list_int->list_list_i[j] = li;
  }
  ENT("lli", a);
  a = attr(GE__PROTO__ATTR_DEF__VALUE_DT);
  ENT("dt0", a);
  a = attr(GE__PROTO__ATTR_DEF__VALUE_DT);
  a->dt = 12;
  ENT("dt", a);
  a = attr(GE__PROTO__ATTR_DEF__VALUE_LIST_LIST_FLOAT);
  a->list_list_float = A(sizeof *a->list_list_float);
  ge__proto__attr_def__list_list_float__init(a->list_list_float);
  a->list_list_float->n_list_list_f = 2;
  a->list_list_float->list_list_f = A(2 * sizeof(void *));
  {
    Ge__Proto__AttrDef__ListListFloat__ListFloat *lf = A(sizeof *lf);
    ge__proto__attr_def__list_list_float__list_float__init(lf);
    static const float v[] = {1.0f, -0.0f};
    lf->n_list_f = 2;
    lf->list_f = (float *)v;
    a->list_list_float->list_list_f[1] = lf;
  }
  ENT("llf", a);
  a = attr(GE__PROTO__ATTR_DEF__VALUE_EXPRESSION);
  a->expression = B("e", 1);
  ENT("expr", a);
  a = attr(GE__PROTO__ATTR_DEF__VALUE_LIST);
  a->list = listv(depth);
  ENT("list", a);
  ENT("list_null", attr(GE__PROTO__ATTR_DEF__VALUE_LIST));
  unknown(&e[2]->base, 9);
  unknown(&e[2]->value->base, 40);
  assert_true(k <= N);
  *n = k;
  return e;
#undef ENT
}

static Ge__Proto__TensorDescriptor *desc(int full) {
  Ge__Proto__TensorDescriptor *td = A(sizeof *td);
  ge__proto__tensor_descriptor__init(td);
  td->name = S("x");
  td->dtype = GE__PROTO__DATA_TYPE__DT_FLOAT16;
  td->shape = A(sizeof *td->shape);
  ge__proto__shape_def__init(td->shape);
  static const int64_t dims[] = {-1, 224, 0, -2};
  td->shape->n_dim = 4;
  td->shape->dim = (int64_t *)dims;
  td->layout = S("NHWC");
  if (!full) return td;
  td->n_attr = 1;
  td->attr = A(sizeof *td->attr);
  td->attr[0] = A(sizeof **td->attr);
  ge__proto__tensor_descriptor__attr_entry__init(td->attr[0]);
  td->attr[0]->key = S("origin_format");
  td->attr[0]->value = attr(GE__PROTO__ATTR_DEF__VALUE_S);
  td->attr[0]->value->s = B("NHWC", 4);
  td->attr_groups = A(sizeof *td->attr_groups);
  ge__proto__attr_groups__init(td->attr_groups);
  td->attr_groups->data = B("grp", 3);
  td->has_out_attr = 1;
  td->size = 1 << 20;
  td->weight_size = -7;
  td->reuse_input = 1;
  td->output_tensor = 1;
  td->device_type = S("NPU");
  td->input_tensor = 1;
  td->real_dim_cnt = 4;
  td->reuse_input_index = 2;
  td->data_offset = 128;
  td->cmps_size = 9;
  td->cmps_tab = S("tab");
  td->cmps_tab_offset = 3;
  unknown(&td->base, 50);
  unknown(&td->shape->base, 7);
  return td;
}

static char **strs(size_t n, const char *base) {
  char **v = A(n * sizeof *v);
  for (size_t k = 0; k < n; k++) {
    char b[64];
    snprintf(b, sizeof b, "%s:%zu", base, k);
    v[k] = k == 1 ? S("") : k == 2 ? NULL : S(b); /* empty and NULL elements are written */
  }
  return v;
}

static Ge__Proto__OpDef *op(const char *name, int full, int depth) {
  Ge__Proto__OpDef *o = A(sizeof *o);
  ge__proto__op_def__init(o);
  o->name = S(name);
  o->type = S("Conv2D");
  o->n_input = 4;
  o->input = strs(4, "in");
  o->n_input_desc = 3;
  o->input_desc = A(3 * sizeof *o->input_desc);
  o->input_desc[0] = desc(full);
  o->input_desc[2] = desc(0); /* [1] NULL */
  o->n_output_desc = 1;
  o->output_desc = A(sizeof *o->output_desc);
  o->output_desc[0] = desc(full);
  if (!full) return o;
  o->attr = entries(&o->n_attr, depth);
  o->attr_groups = A(sizeof *o->attr_groups); /* empty AttrGroups: written, length 0 */
  ge__proto__attr_groups__init(o->attr_groups);
  o->has_out_attr = 1;
  o->id = -3;
  o->stream_id = 1LL << 40;
  static const int64_t v[] = {5, 0, -1};
  static const protobuf_c_boolean bv[] = {1, 0};
#define PK(f, n) (o->n_##f = (n), o->f = (int64_t *)v)
  o->n_input_name = 3, o->input_name = strs(3, "iname");
  o->n_src_name = 1, o->src_name = strs(1, "src");
  PK(src_index, 3);
  o->n_dst_name = 3, o->dst_name = strs(3, "dst");
  PK(dst_index, 1);
  PK(input_i, 2);
  PK(output_i, 3);
  PK(workspace, 1);
  PK(workspace_bytes, 3);
#undef PK
  o->n_is_input_const = 2;
  o->is_input_const = (protobuf_c_boolean *)bv;
  o->n_subgraph_name = 3;
  o->subgraph_name = strs(3, "sub");
  unknown(&o->base, 60);
  return o;
}

static Ge__Proto__GraphDef *graph(const char *name, int nops, int depth) {
  Ge__Proto__GraphDef *g = A(sizeof *g);
  ge__proto__graph_def__init(g);
  g->name = S(name);
  g->n_input = 3;
  g->input = strs(3, "data");
  g->n_output = 1;
  g->output = strs(1, "out");
  g->n_op = (size_t)nops + 1;
  g->op = A(g->n_op * sizeof *g->op);
  for (int k = 0; k < nops; k++) {
    char b[32];
    snprintf(b, sizeof b, "op%d", k);
    g->op[k] = op(b, k % 2 == 0, depth);
  } /* the last op is NULL */
  g->attr = (Ge__Proto__GraphDef__AttrEntry **)entries(&g->n_attr, 0);
  g->attr_groups = A(sizeof *g->attr_groups);
  ge__proto__attr_groups__init(g->attr_groups);
  g->attr_groups->data = B("x", 1);
  unknown(&g->base, 70);
  return g;
}

static Ge__Proto__ModelDef *model(int nops, int depth) {
  Ge__Proto__ModelDef *m = A(sizeof *m);
  ge__proto__model_def__init(m);
  m->name = S("model");
  m->version = 0xFFFFFFFFu;
  m->custom_version = S("v1");
  m->n_graph = 3;
  m->graph = A(3 * sizeof *m->graph);
  m->graph[0] = graph("main", nops, depth);
  m->graph[2] = graph("sub", 2, 0); /* [1] NULL */
  m->attr = (Ge__Proto__ModelDef__AttrEntry **)entries(&m->n_attr, depth);
  m->attr_groups = A(sizeof *m->attr_groups);
  ge__proto__attr_groups__init(m->attr_groups);
  unknown(&m->base, 80);
  return m;
}

static int setup(void **state) {
  (void)state;
  tfx_arena_init(&ar);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  tfx_arena_free(&ar);
  return 0;
}

static void every_field(void **state) {
  (void)state;
  same_as_packer(model(6, 2));
}

static void empty_and_defaults(void **state) {
  (void)state;
  Ge__Proto__ModelDef *m = A(sizeof *m);
  ge__proto__model_def__init(m);
  assert_int_equal(same_as_packer(m), 0); /* nothing set: no bytes */
  m->n_graph = 1;
  m->graph = A(sizeof *m->graph);
  m->graph[0] = A(sizeof **m->graph);
  ge__proto__graph_def__init(m->graph[0]);
  assert_int_equal(same_as_packer(m), 2); /* one empty graph: tag + length 0 */
  Ge__Proto__OpDef *o = op("", 0, 0);
  o->type = S("");
  m->graph[0]->n_op = 1;
  m->graph[0]->op = A(sizeof(void *));
  m->graph[0]->op[0] = o;
  same_as_packer(m);
}

/* Several MiB: the writer's chunks (64 KiB doubling) are crossed by strings, bytes and
 * lengths; one bytes payload larger than a chunk gets its own. */
static void chunk_boundaries(void **state) {
  (void)state;
  Ge__Proto__ModelDef *m = model(3000, 0);
  Ge__Proto__AttrDef *big = attr(GE__PROTO__ATTR_DEF__VALUE_BT);
  size_t n = (size_t)5 << 20;
  big->bt.len = n;
  big->bt.data = A(n);
  for (size_t k = 0; k < n; k++) big->bt.data[k] = (uint8_t)(k * 131u);
  m->graph[0]->op[8]->attr[2]->value = big; /* even ops have attrs */
  size_t sz = same_as_packer(m);
  assert_true(sz > n);
}

/* The GE text models of the emitter tests, parsed as GE's dumps are. */
static void text_models(void **state) {
  (void)state;
  static const char *const files[] = {"tests/cli/ge_emit/model.pbtxt", "tests/cli/ge_emit/nasty.pbtxt"};
  const char *src = getenv("TFXC_SRC");
  if (!src) skip(); /* ctest sets it */
  for (size_t i = 0; i < 2; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", src, files[i]);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    tfx_diag d;
    tfx_diag_init(&d);
    ProtobufCMessage *m = tfx_pbtxt_parse(&ge__proto__model_def__descriptor, buf, n, path, &ar, NULL, &d);
    assert_non_null(m);
    tfx_diag_free(&d);
    same_as_packer((Ge__Proto__ModelDef *)m);
    tfx_ge_sort_maps((Ge__Proto__ModelDef *)m);
    same_as_packer((Ge__Proto__ModelDef *)m);
  }
}

/* Every allocation failing in turn: -3, nothing kept (LeakSanitizer in the sanitizer build). */
static void oom_every_allocation(void **state) {
  (void)state;
  Ge__Proto__ModelDef *m = model(2000, 1);
  for (int n = 1;; n++) {
    tfx_io_pieces pc;
    tfx_alloc_fail_at(n);
    int rc = tfx_ge_air_write(m, SIZE_MAX, &pc, NULL);
    tfx_alloc_fail_at(0);
    if (rc == 0) {
      tfx_io_pieces_free(&pc);
      assert_true(n > 3);
      break;
    }
    assert_int_equal(rc, -3);
    assert_int_equal(pc.n, 0);
    assert_null(pc.p);
  }
}

static void limits(void **state) {
  (void)state;
  Ge__Proto__ModelDef *m = model(40, 0);
  tfx_strbuf ref;
  tfx_sb_init(&ref);
  assert_int_equal(tfx_io_pack(&m->base, &ref), 0);
  tfx_io_pieces pc;
  size_t n = 0;
  assert_int_equal(tfx_ge_air_write(m, ref.len - 1, &pc, &n), -2); /* one byte over */
  assert_int_equal(n, ref.len);
  assert_int_equal(pc.n, 0);
  assert_int_equal(tfx_ge_air_write(m, ref.len, &pc, &n), 0); /* exactly at the limit */
  tfx_io_pieces_free(&pc);
  tfx_sb_free(&ref);
  /* NamedAttrs nested 1200 deep (func -> attr -> func ...): too deep, as for the packer */
  Ge__Proto__NamedAttrs *na = named(0);
  for (int k = 0; k < 1200; k++) {
    Ge__Proto__NamedAttrs *up = named(0);
    up->n_attr = 1;
    up->attr = A(sizeof *up->attr);
    up->attr[0] = A(sizeof **up->attr);
    ge__proto__named_attrs__attr_entry__init(up->attr[0]);
    up->attr[0]->value = attr(GE__PROTO__ATTR_DEF__VALUE_FUNC);
    up->attr[0]->value->func = na;
    na = up;
  }
  Ge__Proto__ModelDef *deep = model(1, 0);
  deep->attr[0]->value = attr(GE__PROTO__ATTR_DEF__VALUE_FUNC);
  deep->attr[0]->value->func = na;
  assert_int_equal(tfx_ge_air_write(deep, SIZE_MAX, &pc, NULL), -1);
  assert_int_equal(pc.n, 0);
  tfx_sb_init(&ref);
  assert_int_not_equal(tfx_io_pack(&deep->base, &ref), 0);
  tfx_sb_free(&ref);
}

/* The op stream (lowering's streaming mode): ops given one at a time, graphs interleaved, one
 * op given late through a hole, records larger than a chunk; the bytes equal the whole-model
 * writer's. Then its refusals: a model field it cannot write, a hole left, over the limit. */
/* Entries of dir, but . and .. */
static int n_entries(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

/* The model of the stream tests: graph 0 with a 3 MiB record (op 8), an empty graph 1, graph
 * 2; no field the stream cannot write. */
static Ge__Proto__ModelDef *stream_model(void) {
  Ge__Proto__ModelDef *m = model(3000, 2);
  Ge__Proto__AttrDef *big = attr(GE__PROTO__ATTR_DEF__VALUE_BT);
  size_t nb = (size_t)3 << 20;
  big->bt.len = nb;
  big->bt.data = A(nb);
  for (size_t k = 0; k < nb; k++) big->bt.data[k] = (uint8_t)(k * 7u);
  m->graph[0]->op[8]->attr[2]->value = big;
  /* what the stream writes: no model/graph attrs, no unknown fields there, no NULL graph/op */
  m->n_attr = 0;
  m->attr_groups = NULL;
  m->base.n_unknown_fields = 0;
  m->graph[1] = A(sizeof *m->graph[1]);
  ge__proto__graph_def__init(m->graph[1]); /* an empty graph */
  for (size_t g = 0; g < m->n_graph; g++) {
    Ge__Proto__GraphDef *gd = m->graph[g];
    gd->n_attr = 0;
    gd->attr_groups = NULL;
    gd->base.n_unknown_fields = 0;
    if (gd->n_op && !gd->op[gd->n_op - 1]) gd->n_op--;
  }
  return m;
}

/* spill_dir: NULL, or a directory the op records are spilled to (air_sink.c), written inline
 * (jobs 1) or by its writer thread (jobs 2) */
static void stream_check(const char *spill_dir, int jobs) {
  char target[512] = "";
  if (spill_dir) snprintf(target, sizeof target, "%s/out.air", spill_dir);
  Ge__Proto__ModelDef *m = stream_model();
  tfx_io_pieces ref;
  size_t nref = 0;
  assert_int_equal(tfx_ge_air_write(m, SIZE_MAX, &ref, &nref), 0);
  uint8_t *want = joined(&ref);

  tfx_ge_air_stream *st = tfx_ge_air_stream_new();
  assert_non_null(st);
  if (spill_dir) assert_int_equal(tfx_ge_air_stream_spill(st, target, jobs), 1);
  Ge__Proto__GraphDef *g0 = m->graph[0], *g2 = m->graph[2];
  size_t hole = 0, k2 = 0;
  for (size_t k = 0; k < g0->n_op; k++) {
    if (k == 5)
      assert_int_equal(tfx_ge_air_stream_hole(st, 0, &hole), 0);
    else
      assert_int_equal(tfx_ge_air_stream_op(st, 0, g0->op[k]), 0);
    if (k % 1000 == 7 && k2 < g2->n_op) /* the subgraph's ops come in between */
      assert_int_equal(tfx_ge_air_stream_op(st, 2, g2->op[k2++]), 0);
  }
  tfx_io_pieces none;
  size_t n = 0;
  assert_int_equal(tfx_ge_air_stream_finish(st, m, SIZE_MAX, &none, &n), -1); /* hole left */
  assert_int_equal(none.n, 0);
  assert_int_equal(tfx_ge_air_stream_fill(st, hole, g0->op[5]), 0);
  assert_int_equal(tfx_ge_air_stream_fill(st, hole, g0->op[5]), -1); /* filled already */
  while (k2 < g2->n_op) assert_int_equal(tfx_ge_air_stream_op(st, 2, g2->op[k2++]), 0);
  assert_true(tfx_ge_air_stream_size(st) < nref);
  assert_int_equal(tfx_ge_air_stream_finish(st, m, nref - 1, &none, &n), -2);
  assert_int_equal(n, nref);
  m->n_attr = 1; /* a model attr: not the stream's to write */
  assert_int_equal(tfx_ge_air_stream_finish(st, m, SIZE_MAX, &none, &n), -1);
  m->n_attr = 0;
  tfx_io_pieces pc;
  if (spill_dir) /* the spill file has no name: nothing of it shows in the directory */
    assert_int_equal(n_entries(spill_dir), 0);
  assert_int_equal(tfx_ge_air_stream_finish(st, m, SIZE_MAX, &pc, &n), 0);
  assert_int_equal(n, nref);
  assert_int_equal(pc.total, nref);
  uint8_t *got = joined(&pc);
  assert_memory_equal(got, want, nref);
  free(got);
  size_t from_file = 0;
  for (size_t i = 0; i < pc.n; i++)
    if (pc.p[i].fd1) from_file += pc.p[i].len;
  if (spill_dir) {
    /* every op record but the hole's is read from the spill file */
    assert_int_not_equal(pc.fd1, 0);
    assert_true(from_file > nref / 2);
    /* written (copy_file_range from the spill file) to the output: the same bytes */
    const char *paths[1] = {target};
    const tfx_wpiece *pcs[1] = {pc.p};
    size_t nps[1] = {pc.n};
    tfx_diag d;
    tfx_diag_init(&d);
    assert_int_equal(tfx_write_files_atomic_pieces(1, paths, pcs, nps, &d), TFX_OK);
    tfx_diag_free(&d);
    FILE *f = fopen(target, "rb");
    assert_non_null(f);
    uint8_t *back = malloc(nref + 1);
    assert_non_null(back);
    assert_int_equal(fread(back, 1, nref + 1, f), nref);
    fclose(f);
    assert_memory_equal(back, want, nref);
    free(back);
    assert_int_equal(n_entries(spill_dir), 1); /* the output alone */
    unlink(target);
  } else {
    assert_int_equal(pc.fd1, 0);
    assert_int_equal(from_file, 0);
  }
  free(want);
  tfx_io_pieces_free(&pc);
  tfx_io_pieces_free(&ref);
  tfx_ge_air_stream_free(st);
}

static void stream_same_bytes(void **state) {
  (void)state;
  stream_check(NULL, 1);
}

/* The size of this process's open spill file in dir (its /proc/self/fd link names dir), or -1
 * when there is none. */
static long spill_size(const char *dir) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  long size = -1;
  size_t dl = strlen(dir);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    char p[300], link[600];
    snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(p, link, sizeof link - 1);
    if (n <= 0) continue;
    link[n] = 0;
    struct stat st;
    if (strncmp(link, dir, dl) == 0 && link[dl] == '/' && fstat(atoi(e->d_name), &st) == 0)
      size = (long)st.st_size;
  }
  closedir(d);
  return size;
}

/* With a max (tfx_ge_air_stream_max, lowering's .air limit), the records past it are counted,
 * not kept: finish gives -2 and the exact size, and the spill file stops growing at the max
 * (a model lowered again whole never spills all of its too-large .air). */
static void stream_over_max(void **state) {
  (void)state;
  Ge__Proto__ModelDef *m = stream_model();
  size_t nref = 0;
  tfx_io_pieces ref;
  assert_int_equal(tfx_ge_air_write(m, SIZE_MAX, &ref, &nref), 0);
  tfx_io_pieces_free(&ref);
  size_t max = (size_t)1 << 20; /* op 8's 3 MiB record is past it */
  assert_true(nref > 4 * max);
  char dir[] = "/tmp/tfxc_air_spill_XXXXXX", target[600];
  assert_non_null(mkdtemp(dir));
  snprintf(target, sizeof target, "%s/out.air", dir);
  for (int spill = 0; spill < 3; spill++) { /* in memory, spilled inline, by the thread */
    tfx_ge_air_stream *st = tfx_ge_air_stream_new();
    assert_non_null(st);
    if (spill) assert_int_equal(tfx_ge_air_stream_spill(st, target, spill), 1);
    tfx_ge_air_stream_max(st, max);
    Ge__Proto__GraphDef *g0 = m->graph[0], *g2 = m->graph[2];
    size_t hole = 0;
    for (size_t k = 0; k < g0->n_op; k++) {
      if (k == 5)
        assert_int_equal(tfx_ge_air_stream_hole(st, 0, &hole), 0);
      else
        assert_int_equal(tfx_ge_air_stream_op(st, 0, g0->op[k]), 0);
    }
    assert_int_equal(tfx_ge_air_stream_fill(st, hole, g0->op[5]), 0);
    assert_int_equal(tfx_ge_air_stream_fill(st, hole, g0->op[5]), -1); /* filled (dropped) */
    for (size_t k = 0; k < g2->n_op; k++) assert_int_equal(tfx_ge_air_stream_op(st, 2, g2->op[k]), 0);
    if (spill) {
      long sz = spill_size(dir);
      assert_true(sz >= 0 && (size_t)sz <= max); /* it stopped growing at the max */
    }
    tfx_io_pieces pc;
    size_t n = 0;
    assert_int_equal(tfx_ge_air_stream_finish(st, m, SIZE_MAX, &pc, &n), -2);
    assert_int_equal(n, nref); /* the exact size all the same */
    assert_int_equal(pc.n, 0);
    assert_int_equal(pc.fd1, 0);
    tfx_ge_air_stream_free(st);
  }
  assert_int_equal(n_entries(dir), 0);
  assert_int_equal(rmdir(dir), 0);
}

/* The same with the op records in a spill file beside the output (air_sink.c), written inline
 * and by its writer thread: the pieces read from it, and the output written from them, are
 * the same bytes. Standard output and devices get no spill file. */
static void stream_spill_same_bytes(void **state) {
  (void)state;
  char dir[] = "/tmp/tfxc_air_spill_XXXXXX";
  assert_non_null(mkdtemp(dir));
  stream_check(dir, 1);
  stream_check(dir, 2);
  tfx_ge_air_stream *st = tfx_ge_air_stream_new();
  assert_non_null(st);
  assert_int_equal(tfx_ge_air_stream_spill(st, "-", 2), 0);
  assert_int_equal(tfx_ge_air_stream_spill(st, "/dev/null", 2), 0);
  char missing[600];
  snprintf(missing, sizeof missing, "%s/no/such/dir/x.air", dir);
  assert_int_equal(tfx_ge_air_stream_spill(st, missing, 0), 0);
  tfx_ge_air_stream_free(st);
  assert_int_equal(n_entries(dir), 0);
  assert_int_equal(rmdir(dir), 0);
}

/* The bytes of a string field (tag, length, bytes); 0 for an empty one when not always. */
static size_t str_field(const char *x, int always) {
  size_t n = x ? strlen(x) : 0, v = 1;
  if (!n && !always) return 0;
  for (size_t y = n; y >= 0x80; y >>= 7) v++;
  return 1 + v + n;
}

/* The .air planned in place (tfx_ge_air_stream_plan): a one-graph model streamed to a spill
 * file with room reserved for its fields. Of the varint lengths 1..5 for the graph's length,
 * exactly the right one gives the spill file as one piece from offset 0 (written, then taken
 * as the output by the writer: linkat, no copy); every other guess, a wrong size of the graph's
 * fields, or no plan gives the pieces as before. The bytes are the same every time. */
static void stream_planned(void **state) {
  (void)state;
  Ge__Proto__ModelDef *m = stream_model();
  m->n_graph = 1;
  Ge__Proto__GraphDef *g0 = m->graph[0];
  g0->name = S("g0");
  char *outs[2] = {S("a:0"), S("a_rather_longer_output_name:1")};
  g0->output = outs;
  g0->n_output = 2;
  g0->input = outs;
  g0->n_input = 1;
  tfx_io_pieces ref;
  size_t nref = 0;
  assert_int_equal(tfx_ge_air_write(m, SIZE_MAX, &ref, &nref), 0);
  uint8_t *want = joined(&ref);
  size_t fields = str_field(g0->name, 0);
  for (size_t k = 0; k < g0->n_input; k++) fields += str_field(g0->input[k], 1);
  for (size_t k = 0; k < g0->n_output; k++) fields += str_field(g0->output[k], 1);
  char dir[] = "/tmp/tfxc_air_plan_XXXXXX", target[600];
  assert_non_null(mkdtemp(dir));
  snprintf(target, sizeof target, "%s/out.air", dir);
  int direct = 0;
  for (unsigned vj = 0; vj <= 13; vj++) { /* v 0: no plan; 6: the right v with wrong fields; */
    unsigned v = vj % 7;                   /* inline, then by the writer thread */
    tfx_ge_air_stream *st = tfx_ge_air_stream_new();
    assert_non_null(st);
    assert_int_equal(tfx_ge_air_stream_spill(st, target, vj < 7 ? 1 : 2), 1);
    size_t f = v == 6 ? fields + 1 : fields;
    unsigned len = v == 6 ? 4 : v; /* (nref is a few MiB: a 4-byte varint) */
    uint64_t r = len ? tfx_ge_air_stream_plan(st, m, f, len) : 0;
    if (len) assert_true(r > f);
    for (size_t k = 0; k < g0->n_op; k++)
      assert_int_equal(tfx_ge_air_stream_op(st, 0, g0->op[k]), 0);
    assert_int_equal(tfx_ge_air_stream_plan(st, m, f, len ? len : 1), 0); /* too late */
    tfx_io_pieces pc;
    size_t n = 0;
    assert_int_equal(tfx_ge_air_stream_finish(st, m, SIZE_MAX, &pc, &n), 0);
    assert_int_equal(pc.total, nref);
    uint8_t *got = joined(&pc);
    assert_memory_equal(got, want, nref);
    free(got);
    int one = pc.n == 1 && pc.p[0].fd1 && pc.p[0].off == 0;
    assert_int_equal(one, v == 4);
    direct += one;
    const char *paths[1] = {target};
    const tfx_wpiece *pcs[1] = {pc.p};
    size_t nps[1] = {pc.n};
    tfx_diag d;
    tfx_diag_init(&d);
    assert_int_equal(tfx_write_files_atomic_pieces(1, paths, pcs, nps, &d), TFX_OK);
    tfx_diag_free(&d);
    FILE *fp = fopen(target, "rb");
    assert_non_null(fp);
    uint8_t *back = malloc(nref + 1);
    assert_non_null(back);
    assert_int_equal(fread(back, 1, nref + 1, fp), nref);
    fclose(fp);
    assert_memory_equal(back, want, nref);
    free(back);
    struct stat sb;
    assert_int_equal(stat(target, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0644);
    assert_int_equal(n_entries(dir), 1); /* the output alone */
    unlink(target);
    tfx_io_pieces_free(&pc);
    tfx_ge_air_stream_free(st);
  }
  assert_int_equal(direct, 2);
  free(want);
  tfx_io_pieces_free(&ref);
  assert_int_equal(n_entries(dir), 0);
  assert_int_equal(rmdir(dir), 0);
}

/* An entry key = value, for the attrs-ahead case below. */
static Ge__Proto__OpDef__AttrEntry *kv(const char *key, Ge__Proto__AttrDef *v) {
  Ge__Proto__OpDef__AttrEntry *e = A(sizeof *e);
  ge__proto__op_def__attr_entry__init(e);
  e->key = S(key);
  e->value = v;
  return e;
}

static Ge__Proto__AttrDef *tensor_attr(uint8_t *data, size_t n) {
  Ge__Proto__AttrDef *a = attr(GE__PROTO__ATTR_DEF__VALUE_T);
  a->t = A(sizeof *a->t);
  ge__proto__tensor_def__init(a->t);
  a->t->desc = desc(0);
  a->t->data.data = data;
  a->t->data.len = n;
  return a;
}

static Ge__Proto__OpDef *attr_op(const char *name, Ge__Proto__OpDef__AttrEntry **e, size_t n) {
  Ge__Proto__OpDef *o = op(name, 0, 0);
  o->n_attr = n;
  o->attr = A(n * sizeof *o->attr);
  memcpy(o->attr, e, n * sizeof *e);
  return o;
}

/* Attrs written ahead (lowering's phase 1) and merged with the op's own when it is written:
 * the same bytes as an op holding all of them in key order; an op's entry replaces a written
 * one of the same key; the borrowed tensor data is read when the op is written (not copied),
 * any other data is copied when the attrs are written. */
static void stream_attrs_ahead(void **state) {
  (void)state;
  size_t nw = 5000, nc = 300;
  uint8_t *wdata = A(nw), *cdata = A(nc), *late = A(7);
  for (size_t k = 0; k < nw; k++) wdata[k] = (uint8_t)k;
  for (size_t k = 0; k < nc; k++) cdata[k] = (uint8_t)(k * 3u);
  memset(late, 0x5a, 7);
  Ge__Proto__AttrDef *ia = attr(GE__PROTO__ATTR_DEF__VALUE_I), *ib = attr(GE__PROTO__ATTR_DEF__VALUE_I);
  ia->i = 1;
  ib->i = 300;
  Ge__Proto__AttrDef *w = tensor_attr(wdata, nw), *c = tensor_attr(cdata, nc);
  Ge__Proto__AttrDef *t_late = tensor_attr(late, 7);
  /* op 1: ahead a, c (copied), t (borrowed), z; then b, zz. op 2: ahead a, t (borrowed);
   * then t again (replaces). op 3: nothing ahead. */
  Ge__Proto__OpDef__AttrEntry *ahead1[] = {kv("a", ia), kv("c", c), kv("t", w), kv("z", ib)};
  Ge__Proto__OpDef__AttrEntry *late1[] = {kv("b", ib), kv("zz", ia)};
  Ge__Proto__OpDef__AttrEntry *ahead2[] = {kv("a", ib), kv("t", w)};
  Ge__Proto__OpDef__AttrEntry *late2[] = {kv("t", t_late)};
  Ge__Proto__OpDef *p1 = attr_op("op1", ahead1, 4), *l1 = attr_op("op1", late1, 2);
  Ge__Proto__OpDef *p2 = attr_op("op2", ahead2, 2), *l2 = attr_op("op2", late2, 1);
  Ge__Proto__OpDef *l3 = attr_op("op3", late1, 2);
  tfx_ge_air_stream *st = tfx_ge_air_stream_new();
  assert_non_null(st);
  tfx_ge_air_attrs pre1, pre2, none;
  assert_int_equal(tfx_ge_air_stream_attrs(st, p1, &ar, wdata, &pre1), 0);
  assert_int_equal(pre1.n, 4);
  assert_int_equal(pre1.tail_at, 2);
  assert_int_equal(pre1.n_tail, nw);
  assert_true(pre1.len < nw); /* the borrowed bytes are not in the block */
  assert_int_equal(tfx_ge_air_stream_attrs(st, p2, &ar, wdata, &pre2), 0);
  assert_int_equal(tfx_ge_air_stream_attrs(st, l3, &ar, NULL, &none), 0);
  assert_int_equal(none.tail_at, UINT32_MAX); /* nothing borrowed without borrow */
  /* after writing ahead: the borrowed data changes (read late), the copied one too (not) */
  wdata[0] = 0xee;
  uint8_t c0 = cdata[0];
  cdata[0] = 0xdd;
  assert_int_equal(tfx_ge_air_stream_op_pre(st, 0, l1, &pre1), 0);
  assert_int_equal(tfx_ge_air_stream_op_pre(st, 0, l2, &pre2), 0);
  assert_int_equal(tfx_ge_air_stream_op_pre(st, 0, l3, NULL), 0);

  /* the reference: the same ops holding every attr, written whole */
  cdata[0] = c0;
  Ge__Proto__OpDef__AttrEntry *all1[] = {kv("a", ia), kv("b", ib), kv("c", c),
                                         kv("t", w),  kv("z", ib), kv("zz", ia)};
  Ge__Proto__OpDef__AttrEntry *all2[] = {kv("a", ib), kv("t", t_late)};
  Ge__Proto__ModelDef *m = A(sizeof *m);
  ge__proto__model_def__init(m);
  m->name = S("m");
  m->n_graph = 1;
  m->graph = A(sizeof *m->graph);
  m->graph[0] = A(sizeof **m->graph);
  ge__proto__graph_def__init(m->graph[0]);
  m->graph[0]->name = S("g");
  m->graph[0]->n_op = 3;
  m->graph[0]->op = A(3 * sizeof(void *));
  m->graph[0]->op[0] = attr_op("op1", all1, 6);
  m->graph[0]->op[1] = attr_op("op2", all2, 2);
  m->graph[0]->op[2] = l3;
  tfx_io_pieces ref, pc;
  size_t nref = 0, n = 0;
  assert_int_equal(tfx_ge_air_write(m, SIZE_MAX, &ref, &nref), 0);
  assert_int_equal(tfx_ge_air_stream_finish(st, m, SIZE_MAX, &pc, &n), 0);
  assert_int_equal(n, nref);
  uint8_t *want = joined(&ref), *got = joined(&pc);
  assert_memory_equal(got, want, nref);
  free(got);
  free(want);
  tfx_io_pieces_free(&pc);
  tfx_io_pieces_free(&ref);
  tfx_ge_air_stream_free(st);
}

/* Attrs written ahead with equal bytes are kept once (up to 4 KiB): equal blocks come back at
 * the same address, other blocks at their own, a block over 4 KiB is never shared, a borrowed
 * tail does not make two blocks equal or unequal; the ops written from shared blocks give the
 * whole-model writer's bytes. */
static void stream_attrs_shared(void **state) {
  (void)state;
  size_t nb = 5000;
  uint8_t *bdata = A(nb), *t1 = A(9), *t2 = A(9);
  for (size_t k = 0; k < nb; k++) bdata[k] = (uint8_t)(k * 7u);
  memset(t1, 1, 9);
  memset(t2, 2, 9);
  Ge__Proto__AttrDef *ia = attr(GE__PROTO__ATTR_DEF__VALUE_I), *ib = attr(GE__PROTO__ATTR_DEF__VALUE_I);
  ia->i = 5;
  ib->i = 6;
  Ge__Proto__AttrDef *big = tensor_attr(bdata, nb), *bt1 = tensor_attr(t1, 9);
  Ge__Proto__AttrDef *bt2 = tensor_attr(t2, 9);
  Ge__Proto__OpDef__AttrEntry *e1[] = {kv("a", ia), kv("b", ib)};
  Ge__Proto__OpDef__AttrEntry *e2[] = {kv("a", ia), kv("b", ib)}; /* equal to e1, own objects */
  Ge__Proto__OpDef__AttrEntry *e3[] = {kv("a", ib), kv("b", ib)};
  Ge__Proto__OpDef__AttrEntry *e4[] = {kv("a", ia), kv("v", big)};
  Ge__Proto__OpDef__AttrEntry *e5[] = {kv("a", ia), kv("v", bt1)};
  Ge__Proto__OpDef__AttrEntry *e6[] = {kv("a", ia), kv("v", bt2)};
  Ge__Proto__OpDef *o[6] = {attr_op("o1", e1, 2), attr_op("o2", e2, 2), attr_op("o3", e3, 2),
                            attr_op("o4", e4, 2), attr_op("o5", e4, 2), attr_op("o6", e5, 2)};
  Ge__Proto__OpDef *o7 = attr_op("o7", e6, 2);
  tfx_ge_air_stream *st = tfx_ge_air_stream_new();
  assert_non_null(st);
  tfx_ge_air_attrs pre[7];
  for (int k = 0; k < 5; k++) assert_int_equal(tfx_ge_air_stream_attrs(st, o[k], &ar, NULL, &pre[k]), 0);
  assert_int_equal(tfx_ge_air_stream_attrs(st, o[5], &ar, t1, &pre[5]), 0);
  assert_int_equal(tfx_ge_air_stream_attrs(st, o7, &ar, t2, &pre[6]), 0);
  assert_ptr_equal(pre[0].p, pre[1].p);
  assert_ptr_not_equal(pre[0].p, pre[2].p);
  assert_true(pre[3].len > 4096);
  assert_ptr_not_equal(pre[3].p, pre[4].p);
  assert_memory_equal(pre[3].p, pre[4].p, pre[3].len);
  /* o6 and o7 differ only in their borrowed data: one block, two tails */
  assert_ptr_equal(pre[5].p, pre[6].p);
  assert_ptr_equal(pre[5].tail, t1);
  assert_ptr_equal(pre[6].tail, t2);
  Ge__Proto__OpDef *none[7];
  for (int k = 0; k < 7; k++) {
    none[k] = op(k < 6 ? o[k]->name : o7->name, 0, 0);
    assert_int_equal(tfx_ge_air_stream_op_pre(st, 0, none[k], &pre[k]), 0);
  }
  Ge__Proto__ModelDef *m = A(sizeof *m);
  ge__proto__model_def__init(m);
  m->name = S("m");
  m->n_graph = 1;
  m->graph = A(sizeof *m->graph);
  m->graph[0] = A(sizeof **m->graph);
  ge__proto__graph_def__init(m->graph[0]);
  m->graph[0]->name = S("g");
  m->graph[0]->n_op = 7;
  m->graph[0]->op = A(7 * sizeof(void *));
  for (int k = 0; k < 6; k++) m->graph[0]->op[k] = o[k];
  m->graph[0]->op[6] = o7;
  tfx_io_pieces ref, pc;
  size_t nref = 0, n = 0;
  assert_int_equal(tfx_ge_air_write(m, SIZE_MAX, &ref, &nref), 0);
  assert_int_equal(tfx_ge_air_stream_finish(st, m, SIZE_MAX, &pc, &n), 0);
  assert_int_equal(n, nref);
  uint8_t *want = joined(&ref), *got = joined(&pc);
  assert_memory_equal(got, want, nref);
  free(got);
  free(want);
  tfx_io_pieces_free(&pc);
  tfx_io_pieces_free(&ref);
  tfx_ge_air_stream_free(st);
}

/* The merged attr maps of op records (air_write.c's as_merge): an op whose own entries are all
 * frozen and whose block written ahead is the same as an earlier op's gets that op's merged
 * bytes. The output is the whole-model writer's for ops that share a block and entries, share
 * the block with other entries or fewer, have another block, more entries than are kept, and an
 * entry not frozen whose value changes between two ops at the same address (not kept: it is
 * written as it is now). A hit is observed: a block changed in place after its merge was kept
 * (which air_write.h forbids) still gives the kept bytes. */
static void stream_merge_kept(void **state) {
  (void)state;
  Ge__Proto__AttrDef *i5 = attr(GE__PROTO__ATTR_DEF__VALUE_I);
  Ge__Proto__AttrDef *i6 = attr(GE__PROTO__ATTR_DEF__VALUE_I);
  i5->i = 5;
  i6->i = 6;
  Ge__Proto__OpDef__AttrEntry *pe1[] = {kv("a", i5), kv("m", i6)}, *pe2[] = {kv("a", i6)};
  /* phase 2's entries, frozen: keys between and after the block's */
  Ge__Proto__OpDef__AttrEntry *fb = kv("b", i5), *fz = kv("z", i6), *fy = kv("y", i5);
  Ge__Proto__AttrDef *nv = attr(GE__PROTO__ATTR_DEF__VALUE_I);
  Ge__Proto__OpDef__AttrEntry *nc = kv("c", nv); /* not frozen */
  tfx_ge_air_memo *memo = tfx_ge_air_memo_new();
  assert_non_null(memo);
  Ge__Proto__OpDef__AttrEntry *fr[] = {fb, fz, fy};
  for (int k = 0; k < 3; k++) assert_int_equal(tfx_ge_air_memo_op_entry(memo, fr[k]), 0);
  Ge__Proto__OpDef__AttrEntry *many[8];
  for (int k = 0; k < 8; k++) {
    char key[4] = {'n', (char)('0' + k), 0};
    many[k] = kv(key, k & 1 ? i5 : i6);
    assert_int_equal(tfx_ge_air_memo_op_entry(memo, many[k]), 0);
  }
  tfx_ge_air_stream *st = tfx_ge_air_stream_new();
  assert_non_null(st);
  tfx_ge_air_stream_set_memo(st, memo);
  tfx_ge_air_attrs b1, b2;
  assert_int_equal(tfx_ge_air_stream_attrs(st, attr_op("p1", pe1, 2), &ar, NULL, &b1), 0);
  assert_int_equal(tfx_ge_air_stream_attrs(st, attr_op("p2", pe2, 1), &ar, NULL, &b2), 0);
  /* per op: its block, its phase-2 entries (sorted), and the reference op's whole map */
  enum { NO = 9 };
  struct {
    const tfx_ge_air_attrs *pre;
    Ge__Proto__OpDef__AttrEntry *e[8];
    size_t n;
    int64_t nv; /* value of the unfrozen entry when written */
  } c[NO] = {
      {&b1, {fb, fz}, 2, 0}, {&b1, {fb, fz}, 2, 0}, {&b1, {fb}, 1, 0},
      {&b2, {fb, fz}, 2, 0}, {&b1, {fb, nc}, 2, 1}, {&b1, {fb, nc}, 2, 2},
      {&b1, {fb, fy, fz}, 3, 0}, {&b1, {0}, 8, 0}, {&b1, {fb, fz}, 2, 0},
  };
  memcpy(c[7].e, many, sizeof many);
  Ge__Proto__OpDef *ref[NO];
  for (int i = 0; i < NO; i++) {
    char name[4] = {'o', (char)('0' + i), 0};
    Ge__Proto__OpDef *o = op(name, 0, 0);
    o->n_attr = c[i].n;
    o->attr = A(c[i].n * sizeof *o->attr);
    memcpy(o->attr, c[i].e, c[i].n * sizeof *o->attr);
    nv->i = c[i].nv;
    assert_int_equal(tfx_ge_air_stream_op_pre(st, 0, o, c[i].pre), 0);
    /* the reference: the block's entries and these, by key, an own copy of the unfrozen one */
    Ge__Proto__OpDef__AttrEntry **pe = c[i].pre == &b1 ? pe1 : pe2;
    size_t np = c[i].pre == &b1 ? 2 : 1, n = 0;
    Ge__Proto__OpDef__AttrEntry **all = A((np + c[i].n) * sizeof *all);
    for (size_t k = 0; k < np; k++) all[n++] = pe[k];
    for (size_t k = 0; k < c[i].n; k++) {
      Ge__Proto__OpDef__AttrEntry *e = c[i].e[k];
      if (e == nc) {
        Ge__Proto__AttrDef *v = attr(GE__PROTO__ATTR_DEF__VALUE_I);
        v->i = c[i].nv;
        e = kv("c", v);
      }
      size_t j = n++;
      while (j > 0 && strcmp(all[j - 1]->key, e->key) > 0) all[j] = all[j - 1], j--;
      all[j] = e;
    }
    ref[i] = op(name, 0, 0);
    ref[i]->n_attr = n;
    ref[i]->attr = all;
  }
  Ge__Proto__ModelDef *m = A(sizeof *m);
  ge__proto__model_def__init(m);
  m->name = S("m");
  m->n_graph = 1;
  m->graph = A(sizeof *m->graph);
  m->graph[0] = A(sizeof **m->graph);
  ge__proto__graph_def__init(m->graph[0]);
  m->graph[0]->name = S("g");
  m->graph[0]->n_op = NO;
  m->graph[0]->op = ref;
  tfx_io_pieces rp, pc;
  size_t nref = 0, n = 0;
  assert_int_equal(tfx_ge_air_write(m, SIZE_MAX, &rp, &nref), 0);
  assert_int_equal(tfx_ge_air_stream_finish(st, m, SIZE_MAX, &pc, &n), 0);
  assert_int_equal(n, nref);
  uint8_t *want = joined(&rp), *got = joined(&pc);
  assert_memory_equal(got, want, nref);
  free(got);
  free(want);
  tfx_io_pieces_free(&pc);
  tfx_io_pieces_free(&rp);
  tfx_ge_air_stream_free(st);
  /* a hit: two ops of one name, the block changed in between (5 -> 7: same length) */
  st = tfx_ge_air_stream_new();
  assert_non_null(st);
  tfx_ge_air_stream_set_memo(st, memo);
  tfx_ge_air_attrs b3;
  Ge__Proto__AttrDef *i5b = attr(GE__PROTO__ATTR_DEF__VALUE_I);
  i5b->i = 5;
  Ge__Proto__OpDef__AttrEntry *pe3[] = {kv("a", i5b)};
  assert_int_equal(tfx_ge_air_stream_attrs(st, attr_op("p3", pe3, 1), &ar, NULL, &b3), 0);
  Ge__Proto__OpDef *h = op("h", 0, 0);
  h->n_attr = 1;
  h->attr = &fb;
  assert_int_equal(tfx_ge_air_stream_op_pre(st, 0, h, &b3), 0);
  size_t len = tfx_ge_air_stream_size(st);
  uint8_t *blk = (uint8_t *)b3.p;
  assert_int_equal(blk[b3.len - 1], 5); /* the value's varint, last */
  blk[b3.len - 1] = 7;
  assert_int_equal(tfx_ge_air_stream_op_pre(st, 0, h, &b3), 0);
  assert_int_equal(tfx_ge_air_stream_size(st), 2 * len);
  m->graph[0]->n_op = 0;
  assert_int_equal(tfx_ge_air_stream_finish(st, m, SIZE_MAX, &pc, &n), 0);
  got = joined(&pc);
  assert_memory_equal(got + n - len, got + n - 2 * len, len); /* the same record twice */
  free(got);
  tfx_io_pieces_free(&pc);
  tfx_ge_air_stream_free(st);
  tfx_ge_air_memo_free(memo);
}

/* An op record's descriptor records kept by the descriptors' addresses when all are frozen
 * (air_write.c w_op_descs) and copied for the next op with the same ones: the stream's bytes
 * are the whole-model writer's for ops that repeat a set (hits, also after other sets came in
 * between), that split the same addresses differently between inputs and outputs, reorder
 * them, have fewer or more of them (past what a slot keeps), a NULL one, or an unfrozen one
 * whose content changes between two ops with the same addresses (never kept: the second op
 * must show the change). */
static void stream_descs_kept(void **state) {
  (void)state;
  Ge__Proto__TensorDescriptor *d[10];
  tfx_ge_air_memo *memo = tfx_ge_air_memo_new();
  assert_non_null(memo);
  for (int k = 0; k < 10; k++) {
    d[k] = desc(k & 1);
    d[k]->dtype = (Ge__Proto__DataType)(k + 1); /* each its own bytes */
    if (k & 1) d[k]->n_attr = 0; /* (frozen maps must be sorted: none) */
    assert_int_equal(tfx_ge_air_memo_desc(memo, d[k]), 0);
  }
  Ge__Proto__TensorDescriptor *u = desc(0); /* not frozen */
  enum { NO = 16 };
  struct {
    int in[10], n_in, out[10], n_out;
    int u_dtype; /* u's dtype when written (u is index 10) */
  } c[NO] = {
      {{0, 1}, 2, {2}, 1, 0},  {{0, 1}, 2, {2}, 1, 0}, /* a set, then a hit */
      {{0}, 1, {1, 2}, 2, 0},                           /* the same addresses split otherwise */
      {{1, 0}, 2, {2}, 1, 0},                           /* reordered */
      {{0, 1}, 2, {2}, 1, 0},                           /* the first set again */
      {{0, 1, 2}, 3, {2}, 1, 0},                        /* one more */
      {{0}, 1, {0}, 1, 0},   {{0}, 1, {0}, 1, 0},
      {{0, 1, 2, 3, 4}, 5, {5, 6, 7, 8}, 4, 0}, /* nine: more than a slot keeps */
      {{0, 1, 2, 3, 4}, 5, {5, 6, 7, 8}, 4, 0},
      {{0, 10}, 2, {2}, 1, 3}, {{0, 10}, 2, {2}, 1, 4}, /* u changed between the two */
      {{0, -1}, 2, {2}, 1, 0}, {{0, -1}, 2, {2}, 1, 0}, /* a NULL desc */
      {{0}, 0, {0}, 0, 0},                               /* none */
      {{0, 1}, 2, {2}, 1, 0},
  };
  Ge__Proto__OpDef *ref[NO];
  tfx_ge_air_stream *st = tfx_ge_air_stream_new();
  assert_non_null(st);
  tfx_ge_air_stream_set_memo(st, memo);
  for (int i = 0; i < NO; i++) {
    char name[4] = {'o', (char)('a' + i), 0};
    Ge__Proto__OpDef *o = op(name, 0, 0), *r = op(name, 0, 0);
    u->dtype = (Ge__Proto__DataType)c[i].u_dtype;
    Ge__Proto__TensorDescriptor *uc = desc(0); /* the reference's own copy of u as it is now */
    uc->dtype = u->dtype;
    o->n_input_desc = r->n_input_desc = (size_t)c[i].n_in;
    o->n_output_desc = r->n_output_desc = (size_t)c[i].n_out;
    o->input_desc = A(10 * sizeof *o->input_desc);
    o->output_desc = A(10 * sizeof *o->output_desc);
    r->input_desc = A(10 * sizeof *r->input_desc);
    r->output_desc = A(10 * sizeof *r->output_desc);
    for (int k = 0; k < c[i].n_in; k++) {
      int x = c[i].in[k];
      o->input_desc[k] = x < 0 ? NULL : x == 10 ? u : d[x];
      r->input_desc[k] = x < 0 ? NULL : x == 10 ? uc : d[x];
    }
    for (int k = 0; k < c[i].n_out; k++) o->output_desc[k] = r->output_desc[k] = d[c[i].out[k]];
    assert_int_equal(tfx_ge_air_stream_op(st, 0, o), 0);
    ref[i] = r;
  }
  Ge__Proto__ModelDef *m = A(sizeof *m);
  ge__proto__model_def__init(m);
  m->name = S("m");
  m->n_graph = 1;
  m->graph = A(sizeof *m->graph);
  m->graph[0] = A(sizeof **m->graph);
  ge__proto__graph_def__init(m->graph[0]);
  m->graph[0]->name = S("g");
  m->graph[0]->n_op = NO;
  m->graph[0]->op = ref;
  tfx_io_pieces rp, pc;
  size_t nref = 0, n = 0;
  assert_int_equal(tfx_ge_air_write(m, SIZE_MAX, &rp, &nref), 0);
  assert_int_equal(tfx_ge_air_stream_finish(st, m, SIZE_MAX, &pc, &n), 0);
  assert_int_equal(n, nref);
  uint8_t *want = joined(&rp), *got = joined(&pc);
  assert_memory_equal(got, want, nref);
  free(got);
  free(want);
  tfx_io_pieces_free(&pc);
  tfx_io_pieces_free(&rp);
  tfx_ge_air_stream_free(st);
  tfx_ge_air_memo_free(memo);
}

/* Frozen messages (air_write.h's memo): records that meet a frozen descriptor, AttrDef or op
 * attr entry copy the bytes written when it was frozen; the output is the whole-model writer's,
 * byte for byte, for every op's descriptors and attr values (one of them larger than a chunk)
 * and some whole entries frozen, and when only some ops' are. An object not frozen is written
 * as usual; freezing twice keeps one copy. */
static void stream_memo_same_bytes(void **state) {
  (void)state;
  Ge__Proto__ModelDef *m = model(1500, 1);
  m->n_graph = 1; /* one graph with ops (stream_same_bytes interleaves graphs) */
  m->n_attr = 0;
  m->attr_groups = NULL;
  m->base.n_unknown_fields = 0;
  Ge__Proto__GraphDef *g = m->graph[0];
  g->n_attr = 0;
  g->attr_groups = NULL;
  g->base.n_unknown_fields = 0;
  if (g->n_op && !g->op[g->n_op - 1]) g->n_op--;
  Ge__Proto__AttrDef *big = attr(GE__PROTO__ATTR_DEF__VALUE_BT);
  size_t nb = (size_t)1 << 20;
  big->bt.len = nb;
  big->bt.data = A(nb);
  for (size_t k = 0; k < nb; k++) big->bt.data[k] = (uint8_t)(k * 5u);
  assert_true(g->op[2]->n_attr >= 2 && g->op[8]->n_attr >= 2 && g->op[2]->attr[1]);
  g->op[2]->attr[1]->value = big;
  g->op[8]->attr[1] = g->op[2]->attr[1]; /* one object met twice */
  tfx_io_pieces ref;
  size_t nref = 0;
  assert_int_equal(tfx_ge_air_write(m, SIZE_MAX, &ref, &nref), 0);
  uint8_t *want = joined(&ref);
  for (int every = 1; every <= 3; every += 2) { /* all frozen, then every third op's */
    tfx_ge_air_memo *memo = tfx_ge_air_memo_new();
    assert_non_null(memo);
    size_t frozen = 0;
    for (size_t i = 0; i < g->n_op; i++) {
      const Ge__Proto__OpDef *o = g->op[i];
      if (!o || i % (size_t)every) continue;
      for (size_t k = 0; k < o->n_input_desc; k++)
        if (o->input_desc[k]) frozen += tfx_ge_air_memo_desc(memo, o->input_desc[k]) == 0;
      for (size_t k = 0; k < o->n_output_desc; k++)
        if (o->output_desc[k]) frozen += tfx_ge_air_memo_desc(memo, o->output_desc[k]) == 0;
      for (size_t k = 0; k < o->n_attr; k++)
        if (o->attr[k] && o->attr[k]->value)
          frozen += tfx_ge_air_memo_attr(memo, o->attr[k]->value) == 0;
      for (size_t k = 0; k < o->n_attr && i % 4 == 0; k++) /* whole entries too */
        if (o->attr[k]) frozen += tfx_ge_air_memo_op_entry(memo, o->attr[k]) == 0;
    }
    assert_true(frozen > 100);
    assert_int_equal(tfx_ge_air_memo_has(memo, big), every == 1); /* ops 2 and 8 */
    assert_int_equal(tfx_ge_air_memo_attr(memo, big), 0); /* frozen now, or again */
    assert_false(tfx_ge_air_memo_has(memo, m));
    assert_false(tfx_ge_air_memo_has(NULL, big));
    assert_int_equal(tfx_ge_air_memo_desc(memo, NULL), -1);
    tfx_ge_air_stream *st = tfx_ge_air_stream_new();
    assert_non_null(st);
    tfx_ge_air_stream_set_memo(st, memo);
    for (size_t i = 0; i < g->n_op; i++) assert_int_equal(tfx_ge_air_stream_op(st, 0, g->op[i]), 0);
    tfx_io_pieces pc;
    size_t n = 0;
    assert_int_equal(tfx_ge_air_stream_finish(st, m, SIZE_MAX, &pc, &n), 0);
    assert_int_equal(n, nref);
    uint8_t *got = joined(&pc);
    assert_memory_equal(got, want, nref);
    free(got);
    tfx_io_pieces_free(&pc);
    tfx_ge_air_stream_free(st);
    tfx_ge_air_memo_free(memo);
  }
  free(want);
  tfx_io_pieces_free(&ref);
}

/* Every allocation failing in turn while freezing: -3 (or NULL), and what is frozen is still
 * written right (LeakSanitizer in the sanitizer build checks nothing is kept). */
static void memo_oom_every_allocation(void **state) {
  (void)state;
  Ge__Proto__ModelDef *m = model(200, 0);
  Ge__Proto__GraphDef *g = m->graph[0];
  for (int n = 1;; n++) {
    tfx_alloc_fail_at(n);
    tfx_ge_air_memo *memo = tfx_ge_air_memo_new();
    int rc = memo ? 0 : -3;
    for (size_t i = 0; memo && i < g->n_op && rc == 0; i++) {
      const Ge__Proto__OpDef *o = g->op[i];
      for (size_t k = 0; o && k < o->n_output_desc && rc == 0; k++)
        if (o->output_desc[k]) rc = tfx_ge_air_memo_desc(memo, o->output_desc[k]);
      for (size_t k = 0; o && k < o->n_attr && rc == 0; k++)
        if (o->attr[k] && o->attr[k]->value) rc = tfx_ge_air_memo_attr(memo, o->attr[k]->value);
    }
    tfx_alloc_fail_at(0);
    tfx_ge_air_memo_free(memo);
    if (rc == 0 && memo) {
      assert_true(n > 3);
      break;
    }
    assert_int_equal(rc, -3);
  }
}

int main(int argc, char **argv) {
  /* the fault-injection cases: their own ctest test (unit/NAME/fault-injection), skipped
   * (exit 77) when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        cmocka_unit_test_setup_teardown(oom_every_allocation, setup, teardown),
        cmocka_unit_test_setup_teardown(memo_oom_every_allocation, setup, teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(every_field, setup, teardown),
      cmocka_unit_test_setup_teardown(empty_and_defaults, setup, teardown),
      cmocka_unit_test_setup_teardown(chunk_boundaries, setup, teardown),
      cmocka_unit_test_setup_teardown(text_models, setup, teardown),
      cmocka_unit_test_setup_teardown(limits, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_same_bytes, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_spill_same_bytes, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_planned, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_over_max, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_attrs_ahead, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_attrs_shared, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_memo_same_bytes, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_merge_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_descs_kept, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
