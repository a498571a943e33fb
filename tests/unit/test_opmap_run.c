/* Unit tests for the OP_MAPPING stage (src/opmap): op maps compiled from rule text, run over
 * small GraphDefs built in C, against a small CANN prototype table given as TSV text (not
 * the stdlib's). Covers: rename + auto attrs, attr rename/drop, `when` + priority order,
 * the AUTO fallback, unsupported with hints, --passthrough-unknown, explicit port maps,
 * optional inputs fed and unfed, dynamic inputs/outputs from an int and from a list attr,
 * deleted inputs, the E19014 input-count mismatch, formats (data_format, src/dst_format,
 * forced), graph maps, a rule run-time error at the rule's file:line, function bodies,
 * tracing, the VM budget, port arrays shared by nodes bound the same way, and fault
 * injection over the whole run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cann/cann.h"
#include "graph/graph.h"
#include "opmap/opmap.h"
#include "rules/compile.h"
#include "rules/load.h"
#include "test_graph_util.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"

/* ---------------------------------------------------------------- the prototype table */

static const char k_tsv[] =
    "#name\tinputs\toutputs\tattrs\tsource\n"
    "Add\tx1:req:f32,x2:req:f32\ty:req:f32\t\tt\n"
    "AddN\tx:dyn:f32\ty:req:f32\tN:Int\tt\n"
    "BatchNorm\tx:req:f32,scale:req:f32,offset:req:f32,mean:opt:f32,variance:opt:f32\t"
    "y:req:f32,batch_mean:req:f32,batch_variance:req:f32\tepsilon:Float=0.0001,is_training:Bool=true\tt\n"
    "ConcatV2\tx:dyn:f32,concat_dim:req:i32\ty:req:f32\tN:Int=1\tt\n"
    "Data\tx:req:f32\ty:req:f32\tindex:Int=0\tt\n"
    "Conv2D\tx:req:f32,filter:req:f32,bias:opt:f32,offset_w:opt:i8\ty:req:f32\t"
    "strides:ListInt,pads:ListInt,data_format:String=\"NHWC\"\tt\n"
    "Exp\tx:req:f32\ty:req:f32\t\tt\n"
    "IdentityN\tx:dyn:f32\ty:dyn:f32\t\tt\n"
    "LayerNorm\tx:req:f32,gamma:req:f32,beta:req:f32\ty:req:f32,mean:req:f32,variance:req:f32\t\tt\n"
    "Log\tx:req:f32\ty:req:f32\t\tt\n"
    "MatMulV2\tx1:req:f32,x2:req:f32,bias:opt:f32,offset_w:opt:i8\ty:req:f32\t"
    "transpose_x1:Bool=false,transpose_x2:Bool=false\tt\n"
    "Opt\tx:req:f32,bias:opt:f32\ty:req:f32\t\tt\n"
    "PadV3\tx:req:f32,paddings:req:i32\ty:req:f32\t\tt\n"
    "Relu\tx:req:f32\ty:req:f32\t\tt\n"
    "Swap\ta:req:f32,b:req:f32\ty:req:f32\t\tt\n";

/* ---------------------------------------------------------------- fixture */

typedef struct fx {
  tfx_arena a;
  tfx_diag d;
  tfx_module m;
  int have_model;
  tfx_pack p;
  tfx_cann_table t;
  tfx_opmap om;
  int have_om;
  tfx_opmap_opts o;
  Tensorflow__GraphDef *gd;
  char trace[8192];
  size_t trace_len;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f) return -1;
  tfx_arena_init(&f->a);
  tfx_diag_init(&f->d);
  tfx_pack_init(&f->p);
  if (tfx_cann_load(&f->t, k_tsv, strlen(k_tsv), "t.tsv", &f->d) != 0) {
    tg_dump(&f->d);
    return -1;
  }
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  if (f->have_om) tfx_opmap_free(&f->om);
  if (f->have_model) tfx_module_free(&f->m);
  tfx_cann_free(&f->t);
  tfx_pack_free(&f->p);
  tfx_diag_free(&f->d);
  tfx_arena_free(&f->a);
  free(f);
  return 0;
}

/* Compiles .opmap text (file "t.opmap") into f->p. */
static void rules(fx *f, const char *text) {
  tfx_ruleset *rs = tfx_ruleset_new();
  assert_non_null(rs);
  tfx_pack_free(&f->p);
  int rc = -1;
  if (tfx_rules_load_buffer(rs, "t.opmap", text, strlen(text), &f->d) == 0 && tfx_rules_check(rs, NULL, &f->d) == 0)
    rc = tfx_rules_compile(rs, &f->p, &f->d);
  tfx_ruleset_free(rs);
  if (rc || f->d.errors) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  assert_int_equal(f->d.errors, 0);
}

/* The GraphDef (kept for attribute setters) from "name|op|inputs" specs. */
static void graph(fx *f, const char *const *specs, size_t n) { f->gd = tg_graph(&f->a, specs, n); }

static Tensorflow__NodeDef *nodedef(fx *f, const char *name) {
  for (size_t i = 0; i < f->gd->n_node; i++)
    if (!strcmp(f->gd->node[i]->name, name)) return f->gd->node[i];
  fail_msg("no node '%s'", name);
  return NULL;
}

static Tensorflow__AttrValue *new_attr(fx *f, Tensorflow__NodeDef *nd, const char *key) {
  Tensorflow__NodeDef__AttrEntry **v = tg_must(tfx_arena_calloc(&f->a, nd->n_attr + 1, sizeof *v));
  if (nd->n_attr) memcpy(v, nd->attr, nd->n_attr * sizeof *v);
  Tensorflow__NodeDef__AttrEntry *e = tg_must(tfx_arena_alloc(&f->a, sizeof *e));
  tensorflow__node_def__attr_entry__init(e);
  Tensorflow__AttrValue *val = tg_must(tfx_arena_alloc(&f->a, sizeof *val));
  tensorflow__attr_value__init(val);
  e->key = tg_must(tfx_arena_strdup(&f->a, key));
  e->value = val;
  v[nd->n_attr] = e;
  nd->attr = v;
  nd->n_attr++;
  return val;
}

static void attr_s(fx *f, const char *node, const char *key, const char *s) {
  Tensorflow__AttrValue *v = new_attr(f, nodedef(f, node), key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
  v->s.data = (uint8_t *)tg_must(tfx_arena_strdup(&f->a, s));
  v->s.len = strlen(s);
}

static void attr_i(fx *f, const char *node, const char *key, int64_t i) {
  Tensorflow__AttrValue *v = new_attr(f, nodedef(f, node), key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
  v->i = i;
}

static void attr_b(fx *f, const char *node, const char *key, int b) {
  Tensorflow__AttrValue *v = new_attr(f, nodedef(f, node), key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
  v->b = b;
}

static void attr_t(fx *f, const char *node, const char *key, Tensorflow__DataType t) {
  tg_attr_type(&f->a, nodedef(f, node), key, t);
}

static Tensorflow__AttrValue__ListValue *attr_list(fx *f, const char *node, const char *key) {
  Tensorflow__AttrValue *v = new_attr(f, nodedef(f, node), key);
  Tensorflow__AttrValue__ListValue *l = tg_must(tfx_arena_alloc(&f->a, sizeof *l));
  tensorflow__attr_value__list_value__init(l);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  v->list = l;
  return l;
}

static void attr_types(fx *f, const char *node, const char *key, size_t n) {
  Tensorflow__AttrValue__ListValue *l = attr_list(f, node, key);
  l->type = tg_must(tfx_arena_calloc(&f->a, n ? n : 1, sizeof *l->type));
  for (size_t i = 0; i < n; i++) l->type[i] = TENSORFLOW__DATA_TYPE__DT_FLOAT;
  l->n_type = n;
}

static void attr_ints(fx *f, const char *node, const char *key, const int64_t *xs, size_t n) {
  Tensorflow__AttrValue__ListValue *l = attr_list(f, node, key);
  l->i = tg_must(tfx_arena_calloc(&f->a, n ? n : 1, sizeof *l->i));
  memcpy(l->i, xs, n * sizeof *xs);
  l->n_i = n;
}

static void on_trace(void *user, const char *line) {
  fx *f = user;
  size_t n = strlen(line);
  if (f->trace_len + n + 2 > sizeof f->trace) return;
  memcpy(f->trace + f->trace_len, line, n);
  f->trace_len += n;
  f->trace[f->trace_len++] = '\n';
  f->trace[f->trace_len] = '\0';
}

/* Indexes the GraphDef and maps it; returns tfx_opmap_run's result. */
static int run(fx *f) {
  if (!f->have_model) {
    int rc = tfx_module_build(&f->m, f->gd, "model.pbtxt", &f->d);
    if (rc) tg_dump(&f->d);
    assert_int_equal(rc, 0);
    f->have_model = 1;
  }
  if (f->have_om) tfx_opmap_free(&f->om);
  int rc = tfx_opmap_run(&f->om, &f->m, &f->p, &f->t, &f->o, &f->d);
  f->have_om = 1;
  return rc;
}

static void run_ok(fx *f) {
  int rc = run(f);
  if (rc || f->d.errors) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  assert_int_equal(f->d.errors, 0);
}

static const tfx_mapped_op *op_of(fx *f, const char *name) {
  uint32_t id = tfx_graph_find(&f->m.main, name);
  if (id == TFX_NO_ID) fail_msg("no node '%s'", name);
  return &f->om.main.ops[id];
}

static const char *rule_of(fx *f, const tfx_mapped_op *op) {
  if (op->rule == TFX_PACK_NONE) return "-";
  return tfx_pack_str(&f->p, f->p.rules[op->rule].name);
}

static const tfx_map_attr *attr_of(const tfx_mapped_op *op, const char *name) {
  for (uint32_t i = 0; i < op->n_attrs; i++)
    if (!strcmp(op->attrs[i].name, name)) return &op->attrs[i];
  return NULL;
}

/* Ports as "name=tf@format,..." (kind marks: ? optional, * dynamic). */
static char g_buf[1024];
static const char *ports(const tfx_map_port *p, uint32_t n) {
  size_t len = 0;
  g_buf[0] = '\0';
  for (uint32_t i = 0; i < n && len < sizeof g_buf; i++)
    len += (size_t)snprintf(g_buf + len, sizeof g_buf - len, "%s%s%s=%d@%s", i ? "," : "", p[i].name,
                            p[i].kind == TFX_CANN_OPT ? "?" : p[i].kind == TFX_CANN_DYN ? "*" : "", p[i].tf_port,
                            p[i].format);
  return g_buf;
}

/* ---------------------------------------------------------------- tests */

/* A rename map with `auto`: every TF attr copied (tf set) except the internal `_` ones and
 * input/output_tensor_desc; ports bound in prototype order; the trace names the rule. */
static void rename_auto_attrs(void **state) {
  fx *f = *state;
  rules(f, "op Add, AddV2 -> Add { auto; }\n");
  static const char *const g[] = {"a|Placeholder", "b|Placeholder", "s|AddV2|a,b"};
  graph(f, g, TG_N(g));
  attr_t(f, "s", "T", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  attr_s(f, "s", "_class", "loc:@a");
  attr_s(f, "s", "input_tensor_desc", "x");
  attr_s(f, "s", "output_tensor_desc", "y");
  f->o.trace_fn = on_trace;
  f->o.trace_user = f;
  run_ok(f);
  const tfx_mapped_op *op = op_of(f, "s");
  assert_int_equal(op->how, TFX_MAP_RULE);
  assert_string_equal(tfx_map_how_name(op->how), "rule");
  assert_string_equal(op->type, "Add");
  assert_non_null(op->proto);
  assert_string_equal(rule_of(f, op), "Add,AddV2->Add");
  assert_int_equal(op->cause, 0);
  assert_null(op->message);
  assert_int_equal(op->n_attrs, 1);
  assert_string_equal(op->attrs[0].name, "T");
  assert_non_null(op->attrs[0].tf);
  assert_int_equal(op->attrs[0].tf->type, TENSORFLOW__DATA_TYPE__DT_FLOAT);
  assert_string_equal(ports(op->in, op->n_in), "x1=0@ND,x2=1@ND");
  assert_string_equal(ports(op->out, op->n_out), "y=0@ND");
  assert_int_equal(op->n_deleted, 0);
  assert_int_equal(op->n_dyn, 0);
  assert_non_null(strstr(f->trace, "opmap: node 's' (AddV2): rule 'Add,AddV2->Add' (t.opmap:1)"));
  assert_non_null(strstr(f->trace, "opmap: node 's' -> Add (rule)"));
  /* the Placeholders have no map and no prototype: unsupported */
  assert_int_equal(op_of(f, "a")->how, TFX_MAP_UNSUPPORTED);
  assert_int_equal(f->om.n_ok, 1);
  assert_int_equal(f->om.n_failed, 2);
}

/* `attr` renames (the value from another attr), `drop` removes; optional ports not fed are
 * present with tf_port -1. */
static void attr_rename_and_drop(void **state) {
  fx *f = *state;
  rules(f,
        "op MatMul -> MatMulV2 {\n"
        "  auto;\n"
        "  attr transpose_x1 = transpose_a;\n"
        "  attr transpose_x2 = transpose_b;\n"
        "  attr extra = [1, \"two\", in 0];\n"
        "  drop transpose_a, transpose_b;\n"
        "}\n");
  static const char *const g[] = {"a|Placeholder", "b|Placeholder", "mm|MatMul|a,b"};
  graph(f, g, TG_N(g));
  attr_t(f, "mm", "T", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  attr_b(f, "mm", "transpose_a", 1);
  attr_b(f, "mm", "transpose_b", 0);
  run_ok(f);
  const tfx_mapped_op *op = op_of(f, "mm");
  assert_string_equal(op->type, "MatMulV2");
  assert_int_equal(op->n_attrs, 4);
  assert_null(attr_of(op, "transpose_a"));
  assert_null(attr_of(op, "transpose_b"));
  assert_non_null(attr_of(op, "T")->tf);
  const tfx_map_attr *x1 = attr_of(op, "transpose_x1"), *x2 = attr_of(op, "transpose_x2");
  assert_null(x1->tf);
  assert_int_equal(x1->v.tag, TFX_V_BOOL);
  assert_int_equal(x1->v.u.i, 1);
  assert_int_equal(x2->v.tag, TFX_V_BOOL);
  assert_int_equal(x2->v.u.i, 0);
  const tfx_map_attr *ex = attr_of(op, "extra"); /* deep copy; a node becomes its name */
  assert_int_equal(ex->v.tag, TFX_V_LIST);
  assert_int_equal(ex->v.n, 3);
  assert_string_equal(ex->v.u.items[1].u.s, "two");
  assert_int_equal(ex->v.u.items[2].tag, TFX_V_STR);
  assert_string_equal(ex->v.u.items[2].u.s, "a");
  assert_string_equal(ports(op->in, op->n_in), "x1=0@ND,x2=1@ND,bias?=-1@ND,offset_w?=-1@ND");
}

/* Candidates: highest priority whose `when` holds, registration order among equal
 * priorities, the map without `when` last. */
static void when_and_priority(void **state) {
  fx *f = *state;
  rules(f,
        "op Pad -> PadV3 { when len(paddings) > 0; priority 1; auto; }\n"
        "op Pad -> PadLow { auto; }\n"
        "op Pad -> PadHigh { when mode == \"X\"; priority 5; auto; }\n"
        "op Pad -> PadTie { when mode == \"Y\"; priority 1; auto; }\n");
  static const char *const g[] = {"a|Placeholder", "b|Placeholder", "p1|Pad|a,b", "p2|Pad|a,b",
                                  "p3|Pad|a,b",    "p4|Pad|a,b"};
  graph(f, g, TG_N(g));
  static const int64_t pads[] = {1, 2};
  attr_ints(f, "p1", "paddings", pads, 2);
  attr_s(f, "p1", "mode", "Y"); /* PadV3 and PadTie both hold: PadV3 was registered first */
  attr_ints(f, "p2", "paddings", pads, 2);
  attr_s(f, "p2", "mode", "X"); /* PadHigh: priority 5 */
  attr_s(f, "p4", "mode", "Y"); /* PadV3's when fails: PadTie */
  run_ok(f);
  assert_string_equal(op_of(f, "p1")->type, "PadV3");
  assert_string_equal(rule_of(f, op_of(f, "p1")), "Pad->PadV3");
  assert_non_null(op_of(f, "p1")->proto);
  assert_string_equal(op_of(f, "p2")->type, "PadHigh");
  assert_string_equal(op_of(f, "p3")->type, "PadLow"); /* no when holds but the plain map */
  assert_string_equal(op_of(f, "p4")->type, "PadTie");
  /* PadLow has no prototype: TF inputs in order as x0.., outputs y0 (at least one) */
  const tfx_mapped_op *p3 = op_of(f, "p3");
  assert_int_equal(p3->how, TFX_MAP_RULE);
  assert_null(p3->proto);
  assert_string_equal(ports(p3->in, p3->n_in), "x0=0@ND,x1=1@ND");
  assert_string_equal(ports(p3->out, p3->n_out), "y0=0@ND");
}

/* No map, but a prototype with the TF type's name: AutoMapping under that name. */
static void auto_fallback(void **state) {
  fx *f = *state;
  rules(f, "op AddV2 -> Add { auto; }\n");
  static const char *const g[] = {"a|Placeholder", "r|Relu|a"};
  graph(f, g, TG_N(g));
  attr_t(f, "r", "T", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  run_ok(f);
  const tfx_mapped_op *op = op_of(f, "r");
  assert_int_equal(op->how, TFX_MAP_AUTO);
  assert_string_equal(tfx_map_how_name(op->how), "auto");
  assert_string_equal(op->type, "Relu");
  assert_int_equal(op->rule, TFX_PACK_NONE);
  assert_non_null(op->proto);
  assert_int_equal(op->n_attrs, 1);
  assert_string_equal(ports(op->in, op->n_in), "x=0@ND");
  assert_string_equal(ports(op->out, op->n_out), "y=0@ND");
}

/* No map, no prototype: cause 1 with Ascend's message; the hint names similar CANN types and
 * a map whose `when` failed. */
static void unsupported_with_hint(void **state) {
  fx *f = *state;
  rules(f, "op AddV2 -> Add { auto; }\n"
           "op Conv9 -> Conv2D { when x == 1; auto; }\n");
  static const char *const g[] = {"a|Placeholder", "u|Reluu|a", "c|Conv9|a,a", "z|Zzzzzzzzzzzz"};
  graph(f, g, TG_N(g));
  run_ok(f);
  const tfx_mapped_op *u = op_of(f, "u");
  assert_int_equal(u->how, TFX_MAP_UNSUPPORTED);
  assert_int_equal(u->cause, TFX_CAUSE_TYPE_UNSUPPORTED);
  assert_string_equal(u->message, "The type is not supported.");
  assert_string_equal(u->type, "Reluu");
  assert_null(u->proto);
  assert_non_null(u->hint);
  assert_non_null(strstr(u->hint, "did you mean the CANN type 'Relu'"));
  const tfx_mapped_op *c = op_of(f, "c");
  assert_int_equal(c->how, TFX_MAP_UNSUPPORTED);
  assert_int_equal(c->rule, TFX_PACK_NONE);
  assert_non_null(strstr(c->hint, "rule 'Conv9->Conv2D' (t.opmap:2) did not apply: its when guard was false"));
  assert_null(op_of(f, "z")->hint); /* nothing similar, no map */
  assert_int_equal(f->om.n_failed, 4);
  assert_int_equal(f->om.n_ok, 0);
}

/* --passthrough-unknown keeps unknown types under their TF name, auto-mapped, ports x<k> /
 * y<k>; a NoOp with no consumers gets no output. */
static void passthrough(void **state) {
  fx *f = *state;
  rules(f, "op Placeholder -> Data { auto; }\n");
  static const char *const g[] = {"a|Placeholder", "u|Reluu|a,a", "r|Relu|u:1", "n|NoOp|^r"};
  graph(f, g, TG_N(g));
  attr_s(f, "u", "data_format", "NCHW");
  f->o.passthrough_unknown = 1;
  run_ok(f);
  const tfx_mapped_op *u = op_of(f, "u");
  assert_int_equal(u->how, TFX_MAP_PASSTHROUGH);
  assert_string_equal(tfx_map_how_name(u->how), "passthrough");
  assert_int_equal(u->cause, 0);
  assert_string_equal(u->type, "Reluu");
  assert_non_null(strstr(u->hint, "Relu"));
  assert_int_equal(u->n_attrs, 1); /* data_format, auto */
  assert_string_equal(ports(u->in, u->n_in), "x0=0@NCHW,x1=1@NCHW");
  assert_string_equal(ports(u->out, u->n_out), "y0=0@NCHW,y1=1@NCHW"); /* output 1 is read */
  const tfx_mapped_op *n = op_of(f, "n");
  assert_int_equal(n->how, TFX_MAP_PASSTHROUGH);
  assert_int_equal(n->n_in, 0);
  assert_int_equal(n->n_out, 0);
  /* Data: ATC does not check its input count (docs/ASCEND.md §6.6): x stays unfed */
  const tfx_mapped_op *a = op_of(f, "a");
  assert_string_equal(a->type, "Data");
  assert_int_equal(a->cause, 0);
  assert_string_equal(ports(a->in, a->n_in), "x=-1@ND");
  assert_string_equal(ports(a->out, a->n_out), "y=0@ND");
  assert_int_equal(f->om.n_failed, 0);
  assert_int_equal(f->om.n_ok, 4);
}

/* `input NAME = N` reorders. */
static void explicit_ports_reorder(void **state) {
  fx *f = *state;
  rules(f, "op TSwap -> Swap { input a = 1; input b = 0; output y = 0; }\n");
  static const char *const g[] = {"a|Placeholder", "b|Placeholder", "s|TSwap|a,b"};
  graph(f, g, TG_N(g));
  attr_t(f, "s", "T", TENSORFLOW__DATA_TYPE__DT_FLOAT);
  run_ok(f);
  const tfx_mapped_op *op = op_of(f, "s");
  assert_string_equal(ports(op->in, op->n_in), "a=1@ND,b=0@ND");
  assert_string_equal(ports(op->out, op->n_out), "y=0@ND");
  assert_int_equal(op->n_attrs, 0); /* no auto, no attr */
  assert_string_equal(op->in[0].ir_name, "a");
}

/* `optional input NAME = N when COND` and `optional input NAME = N` (has_input). */
static void optional_inputs(void **state) {
  fx *f = *state;
  rules(f,
        "op TOpt -> Opt { auto; input x = 0; optional input bias = 1 when len(bias_type) > 0; }\n"
        "op TOpt2 -> Opt { input x = 0; optional input bias = 1; }\n");
  static const char *const g[] = {"a|Placeholder", "b|Placeholder", "o1|TOpt|a,b", "o2|TOpt|a",
                                  "o3|TOpt2|a,b",  "o4|TOpt2|a",    "o5|TOpt|a,b"};
  graph(f, g, TG_N(g));
  attr_types(f, "o1", "bias_type", 1);
  attr_types(f, "o2", "bias_type", 0);
  run_ok(f);
  assert_string_equal(ports(op_of(f, "o1")->in, op_of(f, "o1")->n_in), "x=0@ND,bias?=1@ND");
  assert_string_equal(ports(op_of(f, "o2")->in, op_of(f, "o2")->n_in), "x=0@ND,bias?=-1@ND");
  assert_int_equal(op_of(f, "o2")->cause, 0);
  assert_string_equal(ports(op_of(f, "o3")->in, op_of(f, "o3")->n_in), "x=0@ND,bias?=1@ND");
  assert_string_equal(ports(op_of(f, "o4")->in, op_of(f, "o4")->n_in), "x=0@ND,bias?=-1@ND");
  /* bias_type missing: not connected, yet the node has TF input 1: an error naming the port
   * (binding input 1 to the next port in order would rewire the node silently) */
  const tfx_mapped_op *o5 = op_of(f, "o5");
  assert_int_equal(o5->cause, TFX_CAUSE_PARAM_INVALID);
  assert_string_equal(o5->message, "optional input 'bias' is not connected (its condition is "
                                   "false), but the node has TF input 1; map that input or delete it");
}

/* `dynamic input x count N` (an int attr) and counts from a list attr's length; dynamic ports
 * are named x0..x<n-1> with ir_name x, and listed in dyn. */
static void dynamic_counts(void **state) {
  fx *f = *state;
  rules(f,
        "op ConcatV2 -> ConcatV2 { auto; dynamic input x count N; input concat_dim = N; }\n"
        "op IdentityN -> IdentityN { auto; dynamic input x count T; dynamic output y count T; }\n");
  static const char *const g[] = {"a|Placeholder", "b|Placeholder", "c|Placeholder", "axis|Const",
                                  "cc|ConcatV2|a,b,c,axis", "id|IdentityN|a,b", "r|Relu|id:1",
                                  "ax|AddN|a,b,c"};
  graph(f, g, TG_N(g));
  attr_i(f, "cc", "N", 3);
  attr_types(f, "id", "T", 2);
  run_ok(f);
  const tfx_mapped_op *cc = op_of(f, "cc");
  assert_int_equal(cc->cause, 0);
  assert_string_equal(ports(cc->in, cc->n_in), "x0*=0@ND,x1*=1@ND,x2*=2@ND,concat_dim=3@ND");
  assert_string_equal(cc->in[1].ir_name, "x");
  assert_int_equal(cc->n_dyn, 1);
  assert_string_equal(cc->dyn[0].name, "x");
  assert_int_equal(cc->dyn[0].is_output, 0);
  assert_int_equal(cc->dyn[0].count, 3);
  const tfx_mapped_op *id = op_of(f, "id");
  assert_string_equal(ports(id->in, id->n_in), "x0*=0@ND,x1*=1@ND");
  assert_string_equal(ports(id->out, id->n_out), "y0*=0@ND,y1*=1@ND");
  assert_int_equal(id->n_dyn, 2);
  assert_int_equal(id->dyn[1].is_output, 1);
  assert_int_equal(id->dyn[1].count, 2);
  assert_string_equal(tfx_map_how_name(TFX_MAP_GRAPH), "graph");
  /* AddN has no map: AUTO, its dynamic input takes every input */
  const tfx_mapped_op *ax = op_of(f, "ax");
  assert_int_equal(ax->how, TFX_MAP_AUTO);
  assert_string_equal(ports(ax->in, ax->n_in), "x0*=0@ND,x1*=1@ND,x2*=2@ND");
  assert_int_equal(ax->n_dyn, 1);
  assert_int_equal(ax->dyn[0].count, 3);
}

/* Dynamic ports without a `dynamic` statement (AUTO): inputs left for them after the later
 * required ports, outputs up to the highest one read. */
static void dynamic_inferred(void **state) {
  fx *f = *state;
  static const char *const g[] = {"a|Placeholder", "cc|ConcatV2|a,a,a,a", "cc1|ConcatV2|a",
                                  "id|IdentityN|a,a,a", "r|Relu|id:2", "r2|Relu|id"};
  graph(f, g, TG_N(g));
  run_ok(f);
  const tfx_mapped_op *cc = op_of(f, "cc");
  assert_int_equal(cc->how, TFX_MAP_AUTO);
  assert_string_equal(ports(cc->in, cc->n_in), "x0*=0@ND,x1*=1@ND,x2*=2@ND,concat_dim=3@ND");
  assert_int_equal(cc->dyn[0].count, 3);
  const tfx_mapped_op *cc1 = op_of(f, "cc1"); /* one input: concat_dim takes it, x gets 0 */
  assert_string_equal(ports(cc1->in, cc1->n_in), "concat_dim=0@ND");
  assert_int_equal(cc1->n_dyn, 1);
  assert_int_equal(cc1->dyn[0].count, 0);
  assert_int_equal(cc1->cause, 0);
  const tfx_mapped_op *id = op_of(f, "id");
  assert_string_equal(ports(id->in, id->n_in), "x0*=0@ND,x1*=1@ND,x2*=2@ND");
  assert_string_equal(ports(id->out, id->n_out), "y0*=0@ND,y1*=1@ND,y2*=2@ND");
}

/* A CANN type without a prototype: TF inputs in order, named by statements or x<k>; outputs
 * up to the highest one read or named. A statement naming a port the prototype lacks (rules
 * compiled without prototypes) is the node's PARAM_INVALID. */
static void no_prototype_names(void **state) {
  fx *f = *state;
  rules(f, "op Foo -> Bar { auto; input a = 1; output o = 2; }\n"
           "op TSw -> Swap { input zz = 0; }\n");
  static const char *const g[] = {"p|Placeholder", "q|Placeholder", "foo|Foo|p,q", "r|Relu|foo",
                                  "s|TSw|p,q"};
  graph(f, g, TG_N(g));
  run_ok(f);
  const tfx_mapped_op *foo = op_of(f, "foo");
  assert_null(foo->proto);
  assert_string_equal(foo->type, "Bar");
  assert_string_equal(ports(foo->in, foo->n_in), "x0=0@ND,a=1@ND");
  assert_string_equal(ports(foo->out, foo->n_out), "y0=0@ND,y1=1@ND,o=2@ND");
  const tfx_mapped_op *sw = op_of(f, "s");
  assert_int_equal(sw->cause, TFX_CAUSE_PARAM_INVALID);
  assert_string_equal(sw->message, "CANN type Swap has no input 'zz'");
}

/* Rule bugs (an index no node can have) fail the run with a diagnostic at the rule. */
static void rule_bug_negative_index(void **state) {
  fx *f = *state;
  rules(f, "op TSw -> Swap {\n  input a = k;\n  input b = 1;\n}\n");
  static const char *const g[] = {"p|Placeholder", "s|TSw|p,p"};
  graph(f, g, TG_N(g));
  attr_i(f, "s", "k", -1);
  assert_int_equal(run(f), TFX_EXIT_FAIL);
  assert_true(TG_ERR(&f->d, "rule 'TSw->Swap'", "input index -1 is out of range", "node 's'"));
  assert_true(TG_ERR(&f->d, "MAP_PORT failed"));
}

/* `delete input N when COND` (DelInputWithCond): deleted before binding, recorded. */
static void delete_inputs(void **state) {
  fx *f = *state;
  rules(f,
        "op FusedBatchNorm -> BatchNorm {\n"
        "  auto;\n"
        "  delete input 3 when is_training == true;\n"
        "  delete input -1 when is_training == true;\n"
        "}\n");
  static const char *const g[] = {"x|Placeholder", "s|Placeholder", "o|Placeholder", "m|Placeholder",
                                  "v|Placeholder", "bn1|FusedBatchNorm|x,s,o,m,v",
                                  "bn2|FusedBatchNorm|x,s,o,m,v"};
  graph(f, g, TG_N(g));
  attr_b(f, "bn1", "is_training", 1);
  attr_b(f, "bn2", "is_training", 0);
  run_ok(f);
  const tfx_mapped_op *b1 = op_of(f, "bn1");
  assert_int_equal(b1->cause, 0);
  assert_int_equal(b1->n_deleted, 2);
  assert_int_equal(b1->deleted[0], 3);
  assert_int_equal(b1->deleted[1], 4);
  assert_string_equal(ports(b1->in, b1->n_in), "x=0@ND,scale=1@ND,offset=2@ND,mean?=-1@ND,variance?=-1@ND");
  assert_string_equal(ports(b1->out, b1->n_out), "y=0@ND,batch_mean=1@ND,batch_variance=2@ND");
  const tfx_mapped_op *b2 = op_of(f, "bn2");
  assert_int_equal(b2->n_deleted, 0);
  assert_string_equal(ports(b2->in, b2->n_in), "x=0@ND,scale=1@ND,offset=2@ND,mean?=3@ND,variance?=4@ND");
}

/* E19014: data inputs (after deletion) that do not fit the prototype, too many or too few. */
static void input_count_mismatch(void **state) {
  fx *f = *state;
  rules(f, "op AddV2 -> Add { auto; }\n"
           "op Sw -> Swap { input a = 0; input b = 5; }\n");
  static const char *const g[] = {"a|Placeholder", "s3|AddV2|a,a,a", "s1|AddV2|a", "s2|AddV2|a,a",
                                  "w|Sw|a,a", "r|Relu", "s4|AddV2|a,a", "r5|Relu|s4:1",
                                  "ln|LayerNorm|a,a"};
  graph(f, g, TG_N(g));
  run_ok(f);
  const tfx_mapped_op *s3 = op_of(f, "s3");
  assert_int_equal(s3->how, TFX_MAP_RULE);
  assert_int_equal(s3->cause, TFX_CAUSE_PARAM_INVALID);
  assert_string_equal(s3->message, "input number of tensorflow[3] should be equal to factory size[2]");
  assert_string_equal(op_of(f, "s1")->message, "input number of tensorflow[1] should be equal to factory size[2]");
  assert_int_equal(op_of(f, "s2")->cause, 0);
  assert_int_equal(op_of(f, "w")->cause, TFX_CAUSE_PARAM_INVALID); /* input 5 of 2 */
  assert_string_equal(op_of(f, "r")->message, "input number of tensorflow[0] should be equal to factory size[1]");
  assert_int_equal(op_of(f, "ln")->how, TFX_MAP_AUTO); /* LayerNorm is not checked (docs/ASCEND.md §6.6) */
  assert_int_equal(op_of(f, "ln")->cause, 0);
  assert_string_equal(ports(op_of(f, "ln")->in, 3), "x=0@ND,gamma=1@ND,beta=-1@ND");
  /* Add has one output; a consumer reads output 1 */
  assert_string_equal(op_of(f, "s4")->message,
                      "output 1 of the tensorflow node is used, but no output of CANN type Add is bound to it");
  assert_int_equal(f->om.n_ok, 3);
  assert_int_equal(f->om.n_failed, 6); /* a (unsupported) + 5 */
}

/* Formats: data_format for every port with `auto`, a forced `format input 1`, format_of in an
 * expression; src_format / dst_format; an unknown format name becomes ND. */
static void formats(void **state) {
  fx *f = *state;
  rules(f,
        "op Conv2D -> Conv2D {\n"
        "  auto;\n"
        "  format input 1 = \"HWCN\";\n"
        "  attr pads = format_of(in 0) == \"NCHW\" ? [1] : [2];\n"
        "  attr fmt1 = format_of(in 1);\n"
        "  attr dt = dtype_of(in 0);\n"
        "  attr dt1 = dtype_of(in 1);\n"
        "}\n");
  static const char *const g[] = {"a|Placeholder", "w|Const", "c1|Conv2D|a,w", "c2|Conv2D|a,w",
                                  "r1|Relu|a", "r2|Relu|a", "r3|Relu|a"};
  graph(f, g, TG_N(g));
  attr_t(f, "a", "dtype", TENSORFLOW__DATA_TYPE__DT_HALF);
  attr_s(f, "c1", "data_format", "NCHW");
  attr_s(f, "r1", "src_format", "NHWC");
  attr_s(f, "r1", "dst_format", "NCHW");
  attr_s(f, "r2", "src_format", "NHWC");
  attr_s(f, "r2", "data_format", "NCDHW:x"); /* data_format wins, the suffix is ignored */
  attr_s(f, "r3", "data_format", "HWCN");    /* not one of AutoMapping's five: ND */
  run_ok(f);
  const tfx_mapped_op *c1 = op_of(f, "c1"), *c2 = op_of(f, "c2");
  assert_string_equal(ports(c1->in, c1->n_in), "x=0@NCHW,filter=1@HWCN,bias?=-1@NCHW,offset_w?=-1@NCHW");
  assert_string_equal(ports(c1->out, c1->n_out), "y=0@NCHW");
  assert_int_equal(attr_of(c1, "pads")->v.u.items[0].u.i, 1);
  assert_string_equal(attr_of(c1, "fmt1")->v.u.s, "HWCN"); /* format_of sees the forced format */
  assert_int_equal(attr_of(c1, "dt")->v.tag, TFX_V_DTYPE);
  assert_int_equal(attr_of(c1, "dt")->v.u.i, TENSORFLOW__DATA_TYPE__DT_HALF);
  assert_null(attr_of(c1, "dt1")); /* the Const has no dtype attr: none, so no attr */
  assert_string_equal(ports(c2->in, c2->n_in), "x=0@ND,filter=1@HWCN,bias?=-1@ND,offset_w?=-1@ND");
  assert_int_equal(attr_of(c2, "pads")->v.u.items[0].u.i, 2);
  assert_string_equal(ports(op_of(f, "r1")->in, 1), "x=0@NHWC");
  assert_string_equal(ports(op_of(f, "r1")->out, 1), "y=0@NCHW");
  assert_string_equal(ports(op_of(f, "r2")->in, 1), "x=0@NCDHW");
  assert_string_equal(ports(op_of(f, "r2")->out, 1), "y=0@NCDHW");
  assert_string_equal(ports(op_of(f, "r3")->in, 1), "x=0@ND");
}

/* `-> graph`: inner nodes named "<node>/<inner>", boundary inputs, constants, outs. */
static void graph_map(void **state) {
  fx *f = *state;
  rules(f,
        "op Softplus -> graph {\n"
        "  node e: Exp(in 0);\n"
        "  node a: Add(e:0, const 1.0) { attr k = 2; }\n"
        "  node l: Log(a:0) { format input 0 = \"NCHW\"; }\n"
        "  out 0 = l:0;\n"
        "}\n"
        "op Bad -> graph { node e: Exp(in 3); out 0 = e:0; }\n");
  static const char *const g[] = {"x|Placeholder", "sp|Softplus|x", "r|Relu|sp", "b|Bad|x"};
  graph(f, g, TG_N(g));
  run_ok(f);
  const tfx_mapped_op *op = op_of(f, "sp");
  assert_int_equal(op->how, TFX_MAP_GRAPH);
  assert_string_equal(op->type, "graph");
  assert_int_equal(op->cause, 0);
  assert_int_equal(op->n_in, 0);
  assert_int_equal(op->n_inner, 3);
  const tfx_map_inner *e = &op->inner[0], *a = &op->inner[1], *l = &op->inner[2];
  assert_string_equal(e->name, "sp/e");
  assert_string_equal(e->type, "Exp");
  assert_int_equal(e->n_in, 1);
  assert_null(e->in[0].src);
  assert_null(e->in[0].cval);
  assert_int_equal(e->in[0].port, 0);
  assert_string_equal(a->name, "sp/a");
  assert_string_equal(a->type, "Add");
  assert_int_equal(a->n_in, 2);
  assert_string_equal(a->in[0].src, "sp/e");
  assert_non_null(a->in[1].cval);
  assert_int_equal(a->in[1].cval->tag, TFX_V_FLOAT);
  assert_true(a->in[1].cval->u.f == 1.0);
  assert_int_equal(a->n_attrs, 1);
  assert_string_equal(a->attrs[0].name, "k");
  assert_int_equal(a->attrs[0].v.u.i, 2);
  assert_string_equal(l->in[0].src, "sp/a");
  assert_int_equal(l->n_in_fmt, 1);
  assert_int_equal(l->in_fmt[0].tf_port, 0);
  assert_string_equal(l->in_fmt[0].format, "NCHW");
  assert_int_equal(op->n_outs, 1);
  assert_int_equal(op->outs[0].index, 0);
  assert_string_equal(op->outs[0].node, "sp/l");
  assert_int_equal(op->outs[0].port, 0);
  /* a boundary input the node does not have */
  const tfx_mapped_op *b = op_of(f, "b");
  assert_int_equal(b->how, TFX_MAP_GRAPH);
  assert_int_equal(b->cause, TFX_CAUSE_PARAM_INVALID);
  assert_non_null(strstr(b->message, "reads input 3"));
}

/* A run-time error in a map program is reported at the rule's source line and fails the run. */
static void runtime_error(void **state) {
  fx *f = *state;
  rules(f, "op AddV2 -> Add { auto; }\n"
           "op Div -> RealDiv {\n"
           "  auto;\n"
           "  attr k = 10 / x;\n"
           "}\n");
  static const char *const g[] = {"a|Placeholder", "d|Div|a,a"};
  graph(f, g, TG_N(g));
  attr_i(f, "d", "x", 0);
  assert_int_equal(run(f), TFX_EXIT_FAIL);
  int found = 0;
  for (size_t i = 0; i < f->d.n; i++) {
    const tfx_diag_item *it = &f->d.items[i];
    if (it->sev == TFX_SEV_ERROR && it->file && !strcmp(it->file, "t.opmap") && it->line == 4 &&
        strstr(it->msg, "division by zero") && strstr(it->msg, "Div->RealDiv"))
      found = 1;
  }
  if (!found) tg_dump(&f->d);
  assert_true(found);
}

/* The VM budget from the options: a map that needs more steps fails with a diagnostic. */
static void vm_budget(void **state) {
  fx *f = *state;
  rules(f, "op Foo -> Bar { auto; attr k = len([1, 2, 3] + [4, 5] + [6]) + 1 + 2 + 3; }\n");
  static const char *const g[] = {"a|Foo"};
  graph(f, g, TG_N(g));
  f->o.vm_budget = 2;
  assert_int_equal(run(f), TFX_EXIT_FAIL);
  assert_true(TG_ERR(&f->d, "budget"));
  tfx_diag_clear(&f->d);
  f->o.vm_budget = 0; /* default */
  run_ok(f);
  assert_int_equal(attr_of(op_of(f, "a"), "k")->v.u.i, 12);
}

/* Function bodies are mapped too (arguments are not nodes; dtype_of reads the signature). */
static void function_bodies(void **state) {
  fx *f = *state;
  rules(f, "op AddV2 -> Add { auto; attr dt = dtype_of(in 1); }\n");
  static const char *const g[] = {"a|Placeholder"};
  graph(f, g, TG_N(g));
  static const char *const body[] = {"r|Relu|x", "s|AddV2|r:activations:0,x"};
  Tensorflow__FunctionDef *fn = tg_func(&f->a, "fn", "x", body, TG_N(body));
  fn->signature->input_arg[0]->type = TENSORFLOW__DATA_TYPE__DT_INT32;
  Tensorflow__FunctionDef **fs = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *fs));
  fs[0] = fn;
  tg_set_funcs(&f->a, f->gd, fs, 1);
  run_ok(f);
  assert_int_equal(f->om.n_funcs, 1);
  const tfx_mapped_graph *mg = &f->om.funcs[0];
  assert_ptr_equal(mg->g, &f->m.funcs[0]);
  assert_int_equal(mg->g->n_nodes, 2);
  const tfx_mapped_op *r = &mg->ops[tfx_graph_find(mg->g, "r")];
  const tfx_mapped_op *s = &mg->ops[tfx_graph_find(mg->g, "s")];
  assert_int_equal(r->how, TFX_MAP_AUTO);
  assert_string_equal(ports(r->out, r->n_out), "y=0@ND");
  assert_int_equal(s->how, TFX_MAP_RULE);
  assert_string_equal(s->type, "Add");
  assert_string_equal(ports(s->in, s->n_in), "x1=0@ND,x2=1@ND");
  assert_int_equal(attr_of(s, "dt")->v.u.i, TENSORFLOW__DATA_TYPE__DT_INT32);
  assert_int_equal(f->om.n_ok, 2);
  assert_int_equal(f->om.n_failed, 1); /* the main graph's Placeholder */
}

/* A pack with no op maps (or an empty one): only AUTO and unsupported. */
static void no_maps(void **state) {
  fx *f = *state;
  static const char *const g[] = {"a|Placeholder", "r|Relu|a"};
  graph(f, g, TG_N(g));
  run_ok(f);
  assert_int_equal(op_of(f, "r")->how, TFX_MAP_AUTO);
  assert_int_equal(op_of(f, "a")->how, TFX_MAP_UNSUPPORTED);
}

/* Every allocation of a run failing in turn: a clean failure with a diagnostic, never a crash
 * or a leak (ASan), and the run succeeds once no allocation fails. */
static void fault_injection(void **state) {
  fx *f = *state;
  rules(f,
        "op ConcatV2 -> ConcatV2 { auto; dynamic input x count N; input concat_dim = N; attr l = [1, \"s\"]; }\n"
        "op Softplus -> graph { node e: Exp(in 0); node a: Add(e:0, const 1.0); out 0 = a:0; }\n"
        "op Zap -> Swap { when k == 1; auto; }\n");
  static const char *const g[] = {"a|Placeholder", "axis|Const", "cc|ConcatV2|a,a,axis", "sp|Softplus|a",
                                  "r|Relu|sp", "z|Zap|a", "u|Reluu|a"};
  graph(f, g, TG_N(g));
  attr_i(f, "cc", "N", 2);
  attr_s(f, "r", "data_format", "NHWC");
  run_ok(f); /* builds the module outside the injected region */
  int ok = 0;
  long k;
  for (k = 1; k < 5000 && !ok; k++) {
    tfx_diag_clear(&f->d);
    tfx_alloc_fail_at(k);
    int rc = run(f);
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (hits == 0) {
      if (rc) tg_dump(&f->d);
      assert_int_equal(rc, 0);
      ok = 1;
    } else {
      assert_int_equal(rc, TFX_E_NOMEM); /* out of memory, never a rule error */
      if (f->d.errors == 0) fail_msg("allocation %ld failed without a diagnostic", k);
    }
  }
  printf("fault injection: %ld allocation sites failed one at a time\n", k - 2);
  assert_true(k > 10);
  assert_true(ok);
  assert_string_equal(ports(op_of(f, "cc")->in, 3), "x0*=0@ND,x1*=1@ND,concat_dim=2@ND");
}

/* Nodes bound the same way share one port array (lowering only reads them); a node whose
 * binding differs in any field (format, port number, count, name) gets its own, and sharing
 * never changes what a node sees. Dynamic port names ("x0") and statement names are one copy
 * for every node. */
static void shared_ports(void **state) {
  fx *f = *state;
  rules(f,
        "op AddV2 -> Add { auto; }\n"
        "op Swap -> Swap { auto; input a = 1; input b = 0; }\n");
  static const char *const g[] = {"a|Placeholder", "b|Placeholder", "s1|AddV2|a,b", "s2|AddV2|b,a",
                                  "s3|AddV2|a,b",  "w1|Swap|a,b",   "w2|Swap|b,a",  "n1|AddN|a,b",
                                  "n2|AddN|b,a",   "n3|AddN|a,b,a", "r|Relu|s3"};
  graph(f, g, TG_N(g));
  attr_s(f, "s3", "data_format", "NCHW"); /* AutoMapping format: not the others' ports */
  run_ok(f);
  const tfx_mapped_op *s1 = op_of(f, "s1"), *s2 = op_of(f, "s2"), *s3 = op_of(f, "s3");
  assert_ptr_equal(s1->in, s2->in);
  assert_ptr_equal(s1->out, s2->out);
  assert_ptr_not_equal(s1->in, s3->in);
  assert_ptr_not_equal(s1->out, s3->out);
  assert_string_equal(ports(s1->in, s1->n_in), "x1=0@ND,x2=1@ND");
  assert_string_equal(ports(s3->in, s3->n_in), "x1=0@NCHW,x2=1@NCHW");
  assert_string_equal(ports(s3->out, s3->n_out), "y=0@NCHW");
  assert_string_equal(ports(s2->out, s2->n_out), "y=0@ND");
  /* explicit statements: the names are copies made once, the arrays shared */
  const tfx_mapped_op *w1 = op_of(f, "w1"), *w2 = op_of(f, "w2");
  assert_ptr_equal(w1->in, w2->in);
  assert_string_equal(ports(w1->in, w1->n_in), "a=1@ND,b=0@ND");
  /* the same prototype with another dynamic count: its own array, the same "x0" / "x1" */
  const tfx_mapped_op *n1 = op_of(f, "n1"), *n2 = op_of(f, "n2"), *n3 = op_of(f, "n3");
  assert_ptr_equal(n1->in, n2->in);
  assert_ptr_not_equal(n1->in, n3->in);
  assert_ptr_equal(n1->in[0].name, n3->in[0].name);
  assert_ptr_equal(n1->in[1].name, n3->in[1].name);
  assert_string_equal(ports(n1->in, n1->n_in), "x0*=0@ND,x1*=1@ND");
  assert_string_equal(ports(n3->in, n3->n_in), "x0*=0@ND,x1*=1@ND,x2*=2@ND");
  assert_int_equal(n3->dyn[0].count, 3);
  assert_int_equal(n1->dyn[0].count, 2);
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
        cmocka_unit_test_setup_teardown(fault_injection, setup, teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(rename_auto_attrs, setup, teardown),
      cmocka_unit_test_setup_teardown(attr_rename_and_drop, setup, teardown),
      cmocka_unit_test_setup_teardown(when_and_priority, setup, teardown),
      cmocka_unit_test_setup_teardown(auto_fallback, setup, teardown),
      cmocka_unit_test_setup_teardown(unsupported_with_hint, setup, teardown),
      cmocka_unit_test_setup_teardown(passthrough, setup, teardown),
      cmocka_unit_test_setup_teardown(explicit_ports_reorder, setup, teardown),
      cmocka_unit_test_setup_teardown(optional_inputs, setup, teardown),
      cmocka_unit_test_setup_teardown(dynamic_counts, setup, teardown),
      cmocka_unit_test_setup_teardown(dynamic_inferred, setup, teardown),
      cmocka_unit_test_setup_teardown(no_prototype_names, setup, teardown),
      cmocka_unit_test_setup_teardown(rule_bug_negative_index, setup, teardown),
      cmocka_unit_test_setup_teardown(delete_inputs, setup, teardown),
      cmocka_unit_test_setup_teardown(input_count_mismatch, setup, teardown),
      cmocka_unit_test_setup_teardown(formats, setup, teardown),
      cmocka_unit_test_setup_teardown(graph_map, setup, teardown),
      cmocka_unit_test_setup_teardown(runtime_error, setup, teardown),
      cmocka_unit_test_setup_teardown(vm_budget, setup, teardown),
      cmocka_unit_test_setup_teardown(function_bodies, setup, teardown),
      cmocka_unit_test_setup_teardown(no_maps, setup, teardown),
      cmocka_unit_test_setup_teardown(shared_ports, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
