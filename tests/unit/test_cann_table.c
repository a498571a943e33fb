/* Unit tests for the op tables (src/cann): the cann-ops and tf-ops TSV readers on small texts,
 * every kind of malformed line reported with its file:line:col, parsed defaults (ge::DataType
 * numbers, UNKNOWN_RANK/SHAPE, lists of lists, escapes), lookups, "did you mean", the embedded
 * tables in full (1979 CANN ops, 1563 TF ops) with spot checks (ConcatV2, FlashAttentionScore,
 * BatchNorm, Const), and fault injection over the whole load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cann/cann.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"
#include "util/status.h"

#define HDR "#name\tinputs\toutputs\tattrs\tsource\n"
#define TF_HDR "#name\tinputs\toutputs\tattrs\tis_stateful\n"

static int load(tfx_cann_table *t, const char *text, tfx_diag *d) {
  return tfx_cann_load(t, text, strlen(text), "t.tsv", d);
}

/* The only diagnostic of d, rendered "file:line:col: message". */
static void expect_one(const tfx_diag *d, const char *want) {
  char got[1024];
  if (d->n != 1) {
    for (size_t i = 0; i < d->n; i++) fprintf(stderr, "  diag: %u:%u %s\n", d->items[i].line, d->items[i].col, d->items[i].msg);
  }
  assert_int_equal(d->n, 1);
  const tfx_diag_item *it = &d->items[0];
  if (it->col) snprintf(got, sizeof got, "%s:%u:%u: %s", it->file, it->line, it->col, it->msg);
  else snprintf(got, sizeof got, "%s:%u: %s", it->file, it->line, it->msg);
  if (strcmp(got, want) != 0) fprintf(stderr, "got:  %s\nwant: %s\n", got, want);
  assert_string_equal(got, want);
}

static void small_table(void **state) {
  (void)state;
  const char *text = HDR
      "Add\tx1:req:T=f16|f32,x2:req:T=f16|f32\ty:req:T=f16|f32\t\tsrc:add.h\n"
      "\n"
      "# a comment line\n"
      "ConcatV2\tx:dyn:@BasicType,concat_dim:req:@IndexNumberType\ty:req:@BasicType\tN:Int=1\tsrc:c.h\r\n"
      "Fa\tq:req:f16,m:opt:\ty:req:f16,z:dyn:f32\thead:Int,layout:String,sc:Float=1.0,flag:Bool=false,"
      "dt:Type=DT_BF16,dti:Int=DT_FLOAT16,hx:Int=0x1F,neg:Int=-65530,d:ListInt=UNKNOWN_RANK,"
      "e:ListInt=UNKNOWN_SHAPE,f:ListFloat=[1./4 0.5 -2],g:ListListInt=[[] [1 2]],h:ListString=[\"a b\" \"\\x2c\"],"
      "i:ListBool=[true false],j:ListType=[DT_INT64 DT_UNDEFINED],k:Tensor=Tensor(),br:GRAPH,s:String=\"\\x7c\\t\"\tsrc:f.h";
  tfx_cann_table t;
  tfx_diag d;
  tfx_diag_init(&d);
  assert_int_equal(load(&t, text, &d), 0);
  assert_int_equal(d.n, 0);
  assert_int_equal(t.n_ops, 3);
  const tfx_cann_op *add = tfx_cann_find(&t, "Add");
  assert_non_null(add);
  assert_int_equal(add->n_in, 2);
  assert_string_equal(add->in[1].name, "x2");
  assert_string_equal(add->in[1].dtypes, "T=f16|f32");
  assert_int_equal(add->n_attrs, 0);
  assert_string_equal(add->source, "src:add.h");
  assert_int_equal(add->line, 2);
  assert_null(tfx_cann_find(&t, "add"));
  assert_null(tfx_cann_find(&t, "Ad"));

  const tfx_cann_op *c = tfx_cann_find(&t, "ConcatV2");
  assert_int_equal(c->line, 5);
  assert_int_equal(c->in[0].kind, TFX_CANN_DYN);
  assert_int_equal(tfx_cann_input(c, "concat_dim"), 1);
  assert_int_equal(tfx_cann_input(c, "y"), -1);
  assert_int_equal(tfx_cann_output(c, "y"), 0);
  assert_string_equal(c->source, "src:c.h"); /* '\r' dropped */
  const tfx_cann_attr *n = tfx_cann_attr_find(c, "N");
  assert_int_equal(n->type, TFX_CANN_A_INT);
  assert_int_equal(n->required, 0);
  assert_string_equal(n->def, "1");
  assert_int_equal(n->value.tag, TFX_V_INT);
  assert_int_equal(n->value.u.i, 1);

  const tfx_cann_op *f = tfx_cann_find(&t, "Fa");
  assert_int_equal(f->in[1].kind, TFX_CANN_OPT);
  assert_string_equal(f->in[1].dtypes, "");
  assert_int_equal(f->out[1].kind, TFX_CANN_DYN);
  const tfx_cann_attr *a = tfx_cann_attr_find(f, "head");
  assert_int_equal(a->required, 1);
  assert_null(a->def);
  assert_int_equal(a->value.tag, TFX_V_NONE);
  a = tfx_cann_attr_find(f, "sc");
  assert_int_equal(a->value.tag, TFX_V_FLOAT);
  assert_true(a->value.u.f == 1.0);
  a = tfx_cann_attr_find(f, "flag");
  assert_int_equal(a->value.tag, TFX_V_BOOL);
  assert_int_equal(a->value.u.i, 0);
  a = tfx_cann_attr_find(f, "dt");
  assert_int_equal(a->value.tag, TFX_V_DTYPE);
  assert_int_equal(a->value.u.i, 27); /* ge::DT_BF16 */
  a = tfx_cann_attr_find(f, "dti");
  assert_int_equal(a->value.tag, TFX_V_INT);
  assert_int_equal(a->value.u.i, 1); /* ge::DT_FLOAT16 */
  assert_int_equal(tfx_cann_attr_find(f, "hx")->value.u.i, 31);
  assert_int_equal(tfx_cann_attr_find(f, "neg")->value.u.i, -65530);
  a = tfx_cann_attr_find(f, "d");
  assert_int_equal(a->value.tag, TFX_V_LIST);
  assert_int_equal(a->value.n, 1);
  assert_int_equal(a->value.u.items[0].u.i, -2);
  assert_string_equal(a->def, "UNKNOWN_RANK");
  a = tfx_cann_attr_find(f, "e");
  assert_int_equal(a->value.u.items[0].u.i, -1);
  a = tfx_cann_attr_find(f, "f");
  assert_int_equal(a->value.n, 3);
  assert_true(a->value.u.items[0].u.f == 0.25);
  assert_true(a->value.u.items[2].u.f == -2.0);
  a = tfx_cann_attr_find(f, "g");
  assert_int_equal(a->value.n, 2);
  assert_int_equal(a->value.depth, 2);
  assert_int_equal(a->value.u.items[0].tag, TFX_V_LIST);
  assert_int_equal(a->value.u.items[0].n, 0);
  assert_int_equal(a->value.u.items[1].n, 2);
  assert_int_equal(a->value.u.items[1].u.items[1].u.i, 2);
  a = tfx_cann_attr_find(f, "h");
  assert_int_equal(a->value.n, 2);
  assert_string_equal(a->value.u.items[0].u.s, "a b");
  assert_string_equal(a->value.u.items[1].u.s, ",");
  a = tfx_cann_attr_find(f, "i");
  assert_int_equal(a->value.u.items[0].u.i, 1);
  a = tfx_cann_attr_find(f, "j");
  assert_int_equal(a->value.u.items[0].tag, TFX_V_DTYPE);
  assert_int_equal(a->value.u.items[0].u.i, 9);
  assert_int_equal(a->value.u.items[1].u.i, 28);
  a = tfx_cann_attr_find(f, "k");
  assert_int_equal(a->type, TFX_CANN_A_TENSOR);
  assert_string_equal(a->def, "Tensor()");
  assert_int_equal(a->value.tag, TFX_V_NONE);
  a = tfx_cann_attr_find(f, "br");
  assert_int_equal(a->type, TFX_CANN_A_GRAPH);
  assert_int_equal(a->required, 0);
  assert_null(a->def);
  a = tfx_cann_attr_find(f, "s");
  assert_string_equal(a->value.u.s, "|\t");
  assert_int_equal(a->value.n, 2);
  assert_string_equal(a->def, "\"\\x7c\\t\"");
  assert_null(tfx_cann_attr_find(f, "nope"));
  tfx_cann_free(&t);
  tfx_cann_free(&t); /* idempotent */
  tfx_diag_free(&d);
}

static void empty_and_header_only(void **state) {
  (void)state;
  tfx_cann_table t;
  tfx_diag d;
  tfx_diag_init(&d);
  assert_int_equal(tfx_cann_load(&t, NULL, 0, "t.tsv", &d), 0);
  assert_int_equal(t.n_ops, 0);
  assert_null(tfx_cann_find(&t, "Add"));
  tfx_cann_free(&t);
  assert_int_equal(load(&t, HDR, &d), 0);
  assert_int_equal(t.n_ops, 0);
  tfx_cann_free(&t);
  assert_int_equal(d.n, 0);
  tfx_diag_free(&d);
}

/* One malformed line (line 2, after the header) and the exact diagnostic. */
typedef struct bad_case {
  const char *line;
  const char *want;
} bad_case;

static void malformed_lines(void **state) {
  (void)state;
  static const bad_case cases[] = {
      {"Add\tx:req:f16\ty:req:f16\t", "t.tsv:2:25: expected 5 tab-separated columns, found 4"},
      {"Add\tx:req:f16\ty:req:f16\t\ts\textra", "t.tsv:2:27: expected 5 tab-separated columns, found 6"},
      {"Ad-d\tx:req:f16\ty:req:f16\t\ts", "t.tsv:2:1: op name 'Ad-d' is not an identifier"},
      {"\tx:req:f16\ty:req:f16\t\ts", "t.tsv:2:1: op name '' is not an identifier"},
      {"Add\tx:req\ty:req:f16\t\ts", "t.tsv:2:5: input 'x:req' is not 'name:kind:dtypes'"},
      {"Add\tx:req:f16,\ty:req:f16\t\ts", "t.tsv:2:15: input '' is not 'name:kind:dtypes'"},
      {"Add\t1x:req:f16\ty:req:f16\t\ts", "t.tsv:2:5: input name '1x' is not an identifier"},
      {"Add\tx:must:f16\ty:req:f16\t\ts", "t.tsv:2:7: unknown input kind 'must' (req, opt or dyn)"},
      {"Add\tx:req:f16\ty:opt:f16\t\ts", "t.tsv:2:17: unknown output kind 'opt' (req or dyn)"},
      {"Add\tx:req:f16,x:opt:f16\ty:req:f16\t\ts", "t.tsv:2:15: duplicate input 'x'"},
      {"Add\tx:req:f16\ty:req:f16,y:dyn:f16\t\ts", "t.tsv:2:25: duplicate output 'y'"},
      {"Add\tx:req:f16\ty:req:f16\tN\ts", "t.tsv:2:25: attribute 'N' is not 'name:Type[=default]'"},
      {"Add\tx:req:f16\ty:req:f16\tN:Integer=1\ts", "t.tsv:2:27: unknown attribute type 'Integer' (Int Float Bool "
       "String Type Tensor ListInt ListFloat ListBool ListString ListType ListListInt GRAPH DYNAMIC_GRAPH)"},
      {"Add\tx:req:f16\ty:req:f16\tN:Int=1,N:Int=2\ts", "t.tsv:2:33: duplicate attribute 'N'"},
      {"Add\tx:req:f16\ty:req:f16\tN:Int=1.5\ts", "t.tsv:2:31: bad default '1.5' for Int attribute 'N': expected an integer"},
      {"Add\tx:req:f16\ty:req:f16\tN:Int=99999999999999999999\ts",
       "t.tsv:2:31: bad default '99999999999999999999' for Int attribute 'N': expected an integer in 64-bit range"},
      {"Add\tx:req:f16\ty:req:f16\tN:Int=DT_FLOAT99\ts",
       "t.tsv:2:31: bad default 'DT_FLOAT99' for Int attribute 'N': expected a known DT_* data type"},
      {"Add\tx:req:f16\ty:req:f16\tf:Float=fast\ts", "t.tsv:2:33: bad default 'fast' for Float attribute 'f': expected a number"},
      {"Add\tx:req:f16\ty:req:f16\tb:Bool=yes\ts", "t.tsv:2:32: bad default 'yes' for Bool attribute 'b': expected true or false"},
      {"Add\tx:req:f16\ty:req:f16\ts:String=abc\ts", "t.tsv:2:34: bad default 'abc' for String attribute 's': expected a quoted string"},
      {"Add\tx:req:f16\ty:req:f16\ts:String=\"ab\ts", "t.tsv:2:34: bad default '\"ab' for String attribute 's': expected a closing '\"'"},
      {"Add\tx:req:f16\ty:req:f16\ts:String=\"a\\q\"\ts",
       "t.tsv:2:36: bad default '\"a\\q\"' for String attribute 's': expected a known escape (\\xHH \\t \\n \\r \\\\ \\\" \\' \\0)"},
      {"Add\tx:req:f16\ty:req:f16\ts:String=\"a\\x2\"\ts",
       "t.tsv:2:36: bad default '\"a\\x2\"' for String attribute 's': expected a known escape (\\xHH \\t \\n \\r \\\\ \\\" \\' \\0)"},
      {"Add\tx:req:f16\ty:req:f16\ts:String=\"a\"b\ts",
       "t.tsv:2:37: bad default '\"a\"b' for String attribute 's': expected the end of the default"},
      {"Add\tx:req:f16\ty:req:f16\tt:Type=DT_FLOAT32\ts",
       "t.tsv:2:32: bad default 'DT_FLOAT32' for Type attribute 't': expected a known DT_* data type"},
      {"Add\tx:req:f16\ty:req:f16\tl:ListInt=[1 2\ts", "t.tsv:2:39: bad default '[1 2' for ListInt attribute 'l': expected ']'"},
      {"Add\tx:req:f16\ty:req:f16\tl:ListInt=1 2\ts", "t.tsv:2:35: bad default '1 2' for ListInt attribute 'l': expected '['"},
      {"Add\tx:req:f16\ty:req:f16\tl:ListInt=[1 x]\ts", "t.tsv:2:38: bad default '[1 x]' for ListInt attribute 'l': expected an integer"},
      {"Add\tx:req:f16\ty:req:f16\tl:ListInt=[1]]\ts", "t.tsv:2:38: bad default '[1]]' for ListInt attribute 'l': expected the end of the default"},
      {"Add\tx:req:f16\ty:req:f16\tl:ListListInt=[1 2]\ts",
       "t.tsv:2:40: bad default '[1 2]' for ListListInt attribute 'l': expected '['"},
      {"Add\tx:req:f16\ty:req:f16\tl:ListString=[\"a\"\"b\"]\ts",
       "t.tsv:2:42: bad default '[\"a\"\"b\"]' for ListString attribute 'l': expected ' ' or ']' between list items"},
      {"Add\tx:req:f16\ty:req:f16\tl:ListFloat=[1/0]\ts", "t.tsv:2:38: bad default '[1/0]' for ListFloat attribute 'l': expected a number"},
      {"Add\tx:req:f16\ty:req:f16\tg:GRAPH=x\ts", "t.tsv:2:33: bad default 'x' for GRAPH attribute 'g': expected no default (a subgraph has none)"},
      {"Add\tx:req:f16\ty:req:f16\tN:Int=\ts", "t.tsv:2:31: bad default '' for Int attribute 'N': expected a value"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[1024];
    snprintf(text, sizeof text, "%s%s\n", HDR, cases[i].line);
    tfx_cann_table t;
    tfx_diag d;
    tfx_diag_init(&d);
    fprintf(stderr, "case %zu: %s\n", i, cases[i].line);
    assert_int_equal(load(&t, text, &d), TFX_EXIT_INPUT);
    assert_int_equal(t.n_ops, 0);
    expect_one(&d, cases[i].want);
    assert_int_equal(d.items[0].sev, TFX_SEV_ERROR);
    tfx_cann_free(&t);
    tfx_diag_free(&d);
  }
}

static void every_bad_line_reported(void **state) {
  (void)state;
  const char *text = HDR
      "A\tx:req:f16\ty:req:f16\t\ts\n"
      "B\tx:huh:f16\ty:req:f16\t\ts\n"
      "C\tx:req:f16\ty:req:f16\t\ts\n"
      "A\tx:req:f16\ty:req:f16\t\ts\n"
      "D\tonly-two\n";
  tfx_cann_table t;
  tfx_diag d;
  tfx_diag_init(&d);
  assert_int_equal(load(&t, text, &d), TFX_EXIT_INPUT);
  assert_int_equal(d.n, 3);
  assert_int_equal(d.items[0].line, 3);
  assert_int_equal(d.items[1].line, 5);
  assert_string_equal(d.items[1].msg, "op 'A' already defined at line 2");
  assert_int_equal(d.items[2].line, 6);
  /* the good lines are still there */
  assert_int_equal(t.n_ops, 2);
  assert_non_null(tfx_cann_find(&t, "C"));
  tfx_cann_free(&t);
  tfx_diag_free(&d);
}

static void similar_names(void **state) {
  (void)state;
  const char *text = HDR
      "Conv2D\tx:req:f16\ty:req:f16\t\ts\n"
      "Conv2DBackpropInput\tx:req:f16\ty:req:f16\t\ts\n"
      "Conv3D\tx:req:f16\ty:req:f16\t\ts\n"
      "MatMulV2\tx:req:f16\ty:req:f16\t\ts\n"
      "MatMul\tx:req:f16\ty:req:f16\t\ts\n"
      "Add\tx:req:f16\ty:req:f16\t\ts\n";
  tfx_cann_table t;
  tfx_diag d;
  tfx_diag_init(&d);
  assert_int_equal(load(&t, text, &d), 0);
  const char *out[8];
  size_t n = tfx_cann_similar(&t, "conv2d", out, 8);
  assert_true(n >= 2);
  assert_string_equal(out[0], "Conv2D"); /* case only: distance 0 */
  assert_string_equal(out[1], "Conv3D");
  n = tfx_cann_similar(&t, "Conv2D", out, 8); /* itself is not a suggestion */
  assert_string_equal(out[0], "Conv3D");
  n = tfx_cann_similar(&t, "MatMulV3", out, 1);
  assert_int_equal(n, 1);
  assert_string_equal(out[0], "MatMulV2");
  n = tfx_cann_similar(&t, "BackpropInput", out, 8); /* substring */
  assert_int_equal(n, 1);
  assert_string_equal(out[0], "Conv2DBackpropInput");
  n = tfx_cann_similar(&t, "Zzzzzzzzzz", out, 8);
  assert_int_equal(n, 0);
  assert_int_equal(tfx_cann_similar(&t, "x", out, 0), 0);
  tfx_cann_free(&t);
  tfx_diag_free(&d);
}

static void dtype_names(void **state) {
  (void)state;
  assert_int_equal(tfx_cann_dtype("DT_FLOAT", 8), 0);
  assert_int_equal(tfx_cann_dtype("DT_INT32", 8), 3);
  assert_int_equal(tfx_cann_dtype("DT_UNDEFINED", 12), 28);
  assert_int_equal(tfx_cann_dtype("DT_HIFLOAT4", 11), 42);
  assert_int_equal(tfx_cann_dtype("DT_HALF", 7), -1);
  assert_int_equal(tfx_cann_dtype("DT_FLOAT16x", 8), 0); /* n counts */
  assert_string_equal(tfx_cann_dtype_name(9), "DT_INT64");
  assert_null(tfx_cann_dtype_name(5));
  assert_null(tfx_cann_dtype_name(43));
  assert_null(tfx_cann_dtype_name(-1));
}

static void embedded_cann_table(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  const tfx_cann_table *t = tfx_cann_stdlib(&d);
  assert_non_null(t);
  assert_int_equal(d.n, 0);
  assert_int_equal(t->n_ops, 1979);
  assert_ptr_equal(tfx_cann_stdlib(&d), t); /* parsed once */
  const tfx_cann_op *c = tfx_cann_find(t, "ConcatV2");
  assert_non_null(c);
  assert_int_equal(c->n_in, 2);
  assert_string_equal(c->in[0].name, "x");
  assert_int_equal(c->in[0].kind, TFX_CANN_DYN);
  assert_string_equal(c->in[1].name, "concat_dim");
  assert_int_equal(c->in[1].kind, TFX_CANN_REQ);
  const tfx_cann_op *fa = tfx_cann_find(t, "FlashAttentionScore");
  assert_non_null(fa);
  assert_int_equal(fa->in[tfx_cann_input(fa, "query")].kind, TFX_CANN_REQ);
  assert_int_equal(fa->in[tfx_cann_input(fa, "real_shift")].kind, TFX_CANN_OPT);
  assert_int_equal(fa->in[tfx_cann_input(fa, "atten_mask")].kind, TFX_CANN_OPT);
  assert_int_equal(fa->n_out, 4);
  assert_int_equal(tfx_cann_attr_find(fa, "head_num")->required, 1);
  assert_int_equal(tfx_cann_attr_find(fa, "pre_tockens")->value.u.i, 2147483647);
  const tfx_cann_op *bn = tfx_cann_find(t, "BatchNorm");
  assert_true(fabs(tfx_cann_attr_find(bn, "epsilon")->value.u.f - 1e-4) < 1e-12);
  assert_string_equal(tfx_cann_attr_find(bn, "data_format")->value.u.s, "NHWC");
  assert_int_equal(tfx_cann_attr_find(bn, "is_training")->value.u.i, 1);
  const tfx_cann_op *k = tfx_cann_find(t, "Const");
  assert_int_equal(k->n_in, 0);
  assert_int_equal(tfx_cann_attr_find(k, "value")->type, TFX_CANN_A_TENSOR);
  const tfx_cann_op *sm = tfx_cann_find(t, "SoftmaxV2");
  const tfx_cann_attr *axes = tfx_cann_attr_find(sm, "axes");
  assert_int_equal(axes->value.n, 1);
  assert_int_equal(axes->value.u.items[0].u.i, -1);
  const tfx_cann_op *w = tfx_cann_find(t, "While");
  assert_int_equal(tfx_cann_attr_find(w, "body")->type, TFX_CANN_A_GRAPH);
  /* every default that is written parses to a value, except Tensor ones */
  size_t with_def = 0;
  for (uint32_t i = 0; i < t->n_ops; i++)
    for (uint32_t j = 0; j < t->ops[i].n_attrs; j++) {
      const tfx_cann_attr *a = &t->ops[i].attrs[j];
      if (!a->def) continue;
      with_def++;
      if (a->type != TFX_CANN_A_TENSOR) assert_int_not_equal(a->value.tag, TFX_V_NONE);
    }
  assert_true(with_def > 3000);
  const char *sim[4];
  assert_true(tfx_cann_similar(t, "Conv2d", sim, 4) >= 1);
  assert_string_equal(sim[0], "Conv2D");
  tfx_diag_free(&d);
}

static void tf_small_table(void **state) {
  (void)state;
  const char *text = TF_HDR
      "ConcatV2\tvalues:T*N,axis:Tidx\toutput:T\tN:int>=2,T:type,Tidx:type{DT_INT32|DT_INT64}=DT_INT32\t0\n"
      "IdentityN\tinput:*T\toutput:*T\tT:list(type)>=1\t0\n"
      "Assign\tref:T:ref,value:T\toutput_ref:T:ref\tT:type,validate_shape:bool=true\t0\n"
      "Dec\tin:DT_STRING\t\tfield_delim:string=\"\\x2c\",fmt:string{\"NHWC\"|\"N}C\"}=\"NHWC\",m:int>=-1=-1,"
      "s:shape=?,v:tensor=tensor(DT_UINT8[4]:255 0 0 255)\t1\n";
  tfx_tf_table t;
  tfx_diag d;
  tfx_diag_init(&d);
  assert_int_equal(tfx_tf_ops_load(&t, text, strlen(text), "tf.tsv", &d), 0);
  assert_int_equal(d.n, 0);
  assert_int_equal(t.n_ops, 4);
  const tfx_tf_op *c = tfx_tf_op_find(&t, "ConcatV2");
  assert_string_equal(c->in[0].name, "values");
  assert_string_equal(c->in[0].type, "T");
  assert_string_equal(c->in[0].number_attr, "N");
  assert_null(c->in[0].list_attr);
  assert_string_equal(c->in[1].type, "Tidx");
  assert_null(c->in[1].number_attr);
  assert_int_equal(c->n_attrs, 3);
  assert_string_equal(c->attrs[0].type, "int");
  assert_int_equal(c->attrs[0].has_minimum, 1);
  assert_int_equal(c->attrs[0].minimum, 2);
  assert_null(c->attrs[0].def);
  assert_string_equal(c->attrs[2].allowed, "DT_INT32|DT_INT64");
  assert_string_equal(c->attrs[2].def, "DT_INT32");
  assert_int_equal(c->is_stateful, 0);
  const tfx_tf_op *idn = tfx_tf_op_find(&t, "IdentityN");
  assert_null(idn->in[0].type);
  assert_string_equal(idn->in[0].list_attr, "T");
  assert_string_equal(idn->attrs[0].type, "list(type)");
  const tfx_tf_op *as = tfx_tf_op_find(&t, "Assign");
  assert_int_equal(as->in[0].is_ref, 1);
  assert_int_equal(as->in[1].is_ref, 0);
  assert_string_equal(as->attrs[1].def, "true");
  const tfx_tf_op *dec = tfx_tf_op_find(&t, "Dec");
  assert_string_equal(dec->in[0].type, "DT_STRING");
  assert_int_equal(dec->n_out, 0);
  assert_int_equal(dec->is_stateful, 1);
  assert_string_equal(dec->attrs[0].def, "\"\\x2c\"");
  assert_string_equal(dec->attrs[1].allowed, "\"NHWC\"|\"N}C\"");
  assert_int_equal(dec->attrs[2].minimum, -1);
  assert_string_equal(dec->attrs[2].def, "-1");
  assert_string_equal(dec->attrs[3].def, "?");
  assert_string_equal(dec->attrs[4].def, "tensor(DT_UINT8[4]:255 0 0 255)");
  assert_null(tfx_tf_op_find(&t, "concatv2"));
  tfx_tf_ops_free(&t);
  tfx_diag_free(&d);
}

static void tf_malformed_lines(void **state) {
  (void)state;
  static const bad_case cases[] = {
      {"A\tx:T\ty:T\tT:type", "tf.tsv:2:17: expected 5 tab-separated columns, found 4"},
      {"A\tx:T\ty:T\tT:type\tyes", "tf.tsv:2:18: is_stateful must be 0 or 1, found 'yes'"},
      {"A.b\tx:T\ty:T\tT:type\t0", "tf.tsv:2:1: op name 'A.b' is not an identifier"},
      {"A\tx\ty:T\tT:type\t0", "tf.tsv:2:3: input 'x' is not 'name:TYPE'"},
      {"A\tx:T:mut\ty:T\tT:type\t0", "tf.tsv:2:7: unknown input flag 'mut' (only ':ref')"},
      {"A\tx:T,x:T\ty:T\tT:type\t0", "tf.tsv:2:7: duplicate input 'x'"},
      {"A\tx:T*\ty:T\tT:type\t0", "tf.tsv:2:5: input type 'T*' is not DT_X, T, T*N or *Tlist"},
      {"A\tx:T\ty:*\tT:type\t0", "tf.tsv:2:9: output type '*' is not DT_X, T, T*N or *Tlist"},
      {"A\tx:T\ty:T\tT\t0", "tf.tsv:2:11: attribute 'T' is not 'name:type[{allowed}][>=min][=default]'"},
      {"A\tx:T\ty:T\tT:typo\t0", "tf.tsv:2:13: unknown attribute type 'typo' (int float bool string type shape tensor "
       "func, or list(...) of them)"},
      {"A\tx:T\ty:T\tT:list(typo)\t0", "tf.tsv:2:13: unknown attribute type 'list(typo)' (int float bool string type "
       "shape tensor func, or list(...) of them)"},
      {"A\tx:T\ty:T\tT:type{DT_INT32\t0", "tf.tsv:2:17: unclosed '{' in attribute 'T'"},
      {"A\tx:T\ty:T\tN:int>=x\t0", "tf.tsv:2:18: bad minimum in attribute 'N': expected an integer after '>='"},
      {"A\tx:T\ty:T\tN:int=1.5\t0", "tf.tsv:2:17: bad default '1.5' for int attribute 'N': expected an integer"},
      {"A\tx:T\ty:T\tN:int=\t0", "tf.tsv:2:17: bad default '' for int attribute 'N': expected a default value after '='"},
      {"A\tx:T\ty:T\tb:bool=1\t0", "tf.tsv:2:18: bad default '1' for bool attribute 'b': expected true or false"},
      {"A\tx:T\ty:T\ts:string=abc\t0", "tf.tsv:2:20: bad default 'abc' for string attribute 's': expected a quoted string"},
      {"A\tx:T\ty:T\ts:string=\"\\z\"\t0",
       "tf.tsv:2:21: bad default '\"\\z\"' for string attribute 's': expected a known escape (\\xHH \\t \\n \\r \\\\ \\\" \\' \\0)"},
      {"A\tx:T\ty:T\tT:type=float\t0", "tf.tsv:2:18: bad default 'float' for type attribute 'T': expected a DT_* name"},
      {"A\tx:T\ty:T\tT:type!\t0", "tf.tsv:2:13: unknown attribute type 'type!' (int float bool string type shape tensor "
       "func, or list(...) of them)"},
      {"A\tx:T\ty:T\tT:type{DT_INT32}x\t0", "tf.tsv:2:27: unexpected 'x' in attribute 'T' (expected '{', '>=' or '=')"},
      {"A\tx:T\ty:T\tT:type,T:int\t0", "tf.tsv:2:18: duplicate attribute 'T'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[1024];
    snprintf(text, sizeof text, "%s%s\n", TF_HDR, cases[i].line);
    tfx_tf_table t;
    tfx_diag d;
    tfx_diag_init(&d);
    fprintf(stderr, "case %zu: %s\n", i, cases[i].line);
    assert_int_equal(tfx_tf_ops_load(&t, text, strlen(text), "tf.tsv", &d), TFX_EXIT_INPUT);
    assert_int_equal(t.n_ops, 0);
    expect_one(&d, cases[i].want);
    tfx_tf_ops_free(&t);
    tfx_diag_free(&d);
  }
}

static void embedded_tf_table(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  const tfx_tf_table *t = tfx_tf_ops_stdlib(&d);
  assert_non_null(t);
  assert_int_equal(d.n, 0);
  assert_int_equal(t->n_ops, 1563);
  const tfx_tf_op *fb = tfx_tf_op_find(t, "FusedBatchNormV3");
  assert_non_null(fb);
  assert_int_equal(fb->n_in, 5);
  assert_int_equal(fb->n_out, 6);
  const tfx_tf_op *pl = tfx_tf_op_find(t, "Placeholder");
  assert_int_equal(pl->n_in, 0);
  assert_string_equal(pl->out[0].type, "dtype");
  const tfx_tf_op *v = tfx_tf_op_find(t, "VariableV2");
  assert_int_equal(v->is_stateful, 1);
  assert_int_equal(v->out[0].is_ref, 1);
  assert_null(tfx_tf_op_find(t, "_Retval")); /* internal ops are not in ops.pbtxt */
  tfx_diag_free(&d);
}

/* Fails the Nth allocation of a full-table load for every N until a load succeeds: each run
 * must fail cleanly (reported, TFX_E_NOMEM) and leak nothing (ASan). */
static void fault_injection(void **state) {
  (void)state;
  const char *text = HDR
      "Add\tx1:req:f16,x2:req:f16\ty:req:f16\tN:Int=1,l:ListListInt=[[1] [2 3]],s:ListString=[\"a\"]\tsrc\n"
      "B\tx:dyn:f16\ty:req:f16\t\ts\n";
  const char *tf = TF_HDR "A\tx:T*N\ty:T\tN:int>=1,T:type=DT_FLOAT,s:string=\"x\"\t0\n";
  int done = 0;
  for (long n = 1; n < 200 && !done; n++) {
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_cann_table t;
    tfx_alloc_fail_at(n);
    int rc = load(&t, text, &d);
    long hit = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (rc == 0) {
      assert_int_equal(t.n_ops, 2);
      done = 1;
    } else {
      assert_int_equal(rc, TFX_E_NOMEM);
      assert_true(hit > 0);
    }
    tfx_cann_free(&t);
    tfx_diag_free(&d);
  }
  assert_true(done);
  done = 0;
  for (long n = 1; n < 200 && !done; n++) {
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_tf_table t;
    tfx_alloc_fail_at(n);
    int rc = tfx_tf_ops_load(&t, tf, strlen(tf), "tf.tsv", &d);
    tfx_alloc_fail_at(0);
    if (rc == 0) done = 1;
    else assert_int_equal(rc, TFX_E_NOMEM);
    tfx_tf_ops_free(&t);
    tfx_diag_free(&d);
  }
  assert_true(done);
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
        cmocka_unit_test(fault_injection),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(small_table),        cmocka_unit_test(empty_and_header_only),
      cmocka_unit_test(malformed_lines),    cmocka_unit_test(every_bad_line_reported),
      cmocka_unit_test(similar_names),      cmocka_unit_test(dtype_names),
      cmocka_unit_test(embedded_cann_table), cmocka_unit_test(tf_small_table),
      cmocka_unit_test(tf_malformed_lines), cmocka_unit_test(embedded_tf_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
