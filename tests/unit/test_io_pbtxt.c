/* Unit tests for the protobuf text format reader and printer (src/io/pbtxt_*.c, grammar/pbtxt.l):
 * every accepted construct, every error kind with its exact line:col, print -> parse -> pack
 * byte equality, opaque-message skipping, limits and allocation-failure paths. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "io/pbtxt.h"
#include "util/fileio.h"
#include "util/arena.h"

typedef struct fx {
  tfx_arena a;
  tfx_diag d;
} fx;

static int fx_setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f) return -1;
  tfx_arena_init(&f->a);
  tfx_diag_init(&f->d);
  *state = f;
  return 0;
}

static int fx_teardown(void **state) {
  fx *f = *state;
  tfx_arena_free(&f->a);
  tfx_diag_free(&f->d);
  free(f);
  return 0;
}

static ProtobufCMessage *parse_as(fx *f, const ProtobufCMessageDescriptor *desc, const char *text) {
  tfx_diag_clear(&f->d);
  return tfx_pbtxt_parse(desc, text, strlen(text), "t.pbtxt", &f->a, NULL, &f->d);
}

static Tensorflow__GraphDef *parse_gd(fx *f, const char *text) {
  return (Tensorflow__GraphDef *)parse_as(f, &tensorflow__graph_def__descriptor, text);
}

/* The first attr value of the first node of: node { attr { key: "a" value { <body> } } } */
static Tensorflow__AttrValue *attr_of(fx *f, const char *body) {
  char buf[4096];
  snprintf(buf, sizeof buf, "node { name: \"n\" attr { key: \"a\" value { %s } } }", body);
  Tensorflow__GraphDef *g = parse_gd(f, buf);
  if (!g || g->n_node != 1 || g->node[0]->n_attr != 1) return NULL;
  return g->node[0]->attr[0]->value;
}

/* Asserts that parsing fails with exactly one error at line:col whose message contains want. */
static void expect_err(fx *f, const ProtobufCMessageDescriptor *desc, const char *text, unsigned line,
                       unsigned col, const char *want) {
  ProtobufCMessage *m = parse_as(f, desc, text);
  if (m || f->d.errors != 1 || f->d.items[f->d.n - 1].line != line || f->d.items[f->d.n - 1].col != col ||
      !strstr(f->d.items[f->d.n - 1].msg, want)) {
    fprintf(stderr, "input: %s\nwanted %u:%u '%s', got:\n", text, line, col, want);
    tfx_diag_print(&f->d, stderr);
    fail();
  }
  assert_non_null(f->d.items[f->d.n - 1].source_line);
}

static void expect_gd_err(fx *f, const char *text, unsigned line, unsigned col, const char *want) {
  expect_err(f, &tensorflow__graph_def__descriptor, text, line, col, want);
}

/* ---- accepted constructs ---- */

static void comments_whitespace_crlf(void **state) {
  fx *f = *state;
  Tensorflow__GraphDef *g = parse_gd(f, "# leading comment\r\nnode {\r\n  name: \"a\" # trailing\r\n\top: 'Op'\r\n}\r\n"
                                         "\f\vversion: 7\r\n#last");
  assert_non_null(g);
  assert_int_equal(g->n_node, 1);
  assert_string_equal(g->node[0]->name, "a");
  assert_string_equal(g->node[0]->op, "Op");
  assert_int_equal(g->version, 7);
}

static void message_delimiters_and_colons(void **state) {
  fx *f = *state;
  Tensorflow__GraphDef *g = parse_gd(f, "node { name: \"a\" } node: { name: \"b\" } node < name: \"c\" > "
                                         "node: < name: \"d\" > versions {producer: 3}");
  assert_non_null(g);
  assert_int_equal(g->n_node, 4);
  assert_string_equal(g->node[2]->name, "c");
  assert_string_equal(g->node[3]->name, "d");
  assert_non_null(g->versions);
  assert_int_equal(g->versions->producer, 3);
  assert_null(g->library);
}

static void separators(void **state) {
  fx *f = *state;
  Tensorflow__GraphDef *g = parse_gd(f, "node { name: \"a\"; op: \"b\", input: \"x\" }; version: 2, node {}");
  assert_non_null(g);
  assert_int_equal(g->n_node, 2);
  assert_string_equal(g->node[0]->op, "b");
  assert_int_equal(g->version, 2);
}

static void lists_scalar_and_message(void **state) {
  fx *f = *state;
  Tensorflow__GraphDef *g = parse_gd(f, "node: [{name: \"a\" input: [\"x\", 'y', \"z\"]}, <name: \"b\">] "
                                         "node [] node { input: [] input: \"w\" } versions { bad_consumers: [1, -2, 0x3] }");
  assert_non_null(g);
  assert_int_equal(g->n_node, 3);
  assert_int_equal(g->node[0]->n_input, 3);
  assert_string_equal(g->node[0]->input[1], "y");
  assert_string_equal(g->node[1]->name, "b");
  assert_int_equal(g->node[2]->n_input, 1);
  assert_int_equal(g->versions->n_bad_consumers, 3);
  assert_int_equal(g->versions->bad_consumers[1], -2);
  assert_int_equal(g->versions->bad_consumers[2], 3);
}

static void enums_by_name_and_number(void **state) {
  fx *f = *state;
  Tensorflow__AttrValue *v = attr_of(f, "list { type: DT_FLOAT type: 3 type: [DT_INT64, 999, -1] }");
  assert_non_null(v);
  assert_int_equal(v->value_case, TENSORFLOW__ATTR_VALUE__VALUE_LIST);
  assert_int_equal(v->list->n_type, 5);
  assert_int_equal(v->list->type[0], TENSORFLOW__DATA_TYPE__DT_FLOAT);
  assert_int_equal(v->list->type[1], TENSORFLOW__DATA_TYPE__DT_INT32);
  assert_int_equal(v->list->type[2], TENSORFLOW__DATA_TYPE__DT_INT64);
  assert_int_equal(v->list->type[3], 999); /* proto3 enums are open */
  assert_true((int)v->list->type[4] == -1);
}

static void string_escapes(void **state) {
  fx *f = *state;
  Tensorflow__AttrValue *v = attr_of(f, "s: \"\\n\\t\\r\\\\\\'\\\"\\a\\b\\f\\v\\?\\101\\x41\\x4a\\0\\7\\400\\u00e9\\U0001F600\"");
  assert_non_null(v);
  static const char want[] = "\n\t\r\\'\"\a\b\f\v?AAJ\0\7\0\xc3\xa9\xf0\x9f\x98\x80";
  assert_int_equal(v->s.len, sizeof want - 1);
  assert_memory_equal(v->s.data, want, sizeof want - 1);
  v = attr_of(f, "s: 'single \"q\"' \"+adjacent\" '+three'");
  assert_non_null(v);
  assert_int_equal(v->s.len, strlen("single \"q\"+adjacent+three"));
  assert_memory_equal(v->s.data, "single \"q\"+adjacent+three", v->s.len);
  v = attr_of(f, "s: \"\"");
  assert_non_null(v);
  assert_int_equal(v->value_case, TENSORFLOW__ATTR_VALUE__VALUE_S);
  assert_int_equal(v->s.len, 0);
  v = attr_of(f, "s: \"\\xfff\\u00\"");
  assert_null(v);
  assert_true(strstr(f->d.items[0].msg, "unicode") != NULL);
}

static void floats_inf_nan(void **state) {
  fx *f = *state;
  Tensorflow__AttrValue *v = attr_of(f, "list { f: [1, -2.5, .5, 1e5, 1.0f, 2F, -1.5e-3, inf, -inf, Infinity, -INF, nan, NaN, -nan, 1e400, 99999999999999999999999] }");
  assert_non_null(v);
  float *x = v->list->f;
  assert_int_equal(v->list->n_f, 16);
  assert_true(x[0] == 1.0f && x[1] == -2.5f && x[2] == 0.5f && x[3] == 1e5f && x[4] == 1.0f && x[5] == 2.0f);
  assert_true(x[6] == -1.5e-3f);
  assert_true(isinf(x[7]) && x[7] > 0 && isinf(x[8]) && x[8] < 0 && isinf(x[9]) && isinf(x[10]) && x[10] < 0);
  assert_true(isnan(x[11]) && isnan(x[12]) && isnan(x[13]) && signbit(x[13]) && !signbit(x[11]));
  assert_true(isinf(x[14]) && x[15] > 9.9e22f);
  v = attr_of(f, "f: - 5");
  assert_non_null(v);
  assert_true(v->f == -5.0f);
  /* doubles keep full precision */
  Tensorflow__TensorProto *t = (Tensorflow__TensorProto *)parse_as(f, &tensorflow__tensor_proto__descriptor,
                                                                   "double_val: 0.1 double_val: -1e-300 double_val: 123456789012345678");
  assert_non_null(t);
  assert_true(t->double_val[0] == 0.1 && t->double_val[1] == -1e-300 && t->double_val[2] == 123456789012345678.0);
}

static void bools(void **state) {
  fx *f = *state;
  Tensorflow__AttrValue *v = attr_of(f, "list { b: [true, True, t, 1, false, False, f, 0, 0x1] }");
  assert_non_null(v);
  static const int want[] = {1, 1, 1, 1, 0, 0, 0, 0, 1};
  assert_int_equal(v->list->n_b, 9);
  for (int i = 0; i < 9; i++) assert_int_equal(v->list->b[i], want[i]);
}

static void integers_and_ranges(void **state) {
  fx *f = *state;
  Tensorflow__AttrValue *v = attr_of(f, "list { i: [0, -1, 0x7fffffffffffffff, -9223372036854775808, 010, -0x10, - 3] }");
  assert_non_null(v);
  assert_int_equal(v->list->n_i, 7);
  assert_true(v->list->i[2] == INT64_MAX && v->list->i[3] == INT64_MIN);
  assert_int_equal(v->list->i[4], 8);
  assert_int_equal(v->list->i[5], -16);
  assert_int_equal(v->list->i[6], -3);
  Tensorflow__GraphDef *g = parse_gd(f, "version: 2147483647");
  assert_non_null(g);
  g = parse_gd(f, "version: -2147483648");
  assert_non_null(g);
  assert_int_equal(g->version, INT32_MIN);
  Tensorflow__ResourceHandleProto *r = (Tensorflow__ResourceHandleProto *)parse_as(
      f, &tensorflow__resource_handle_proto__descriptor, "hash_code: 18446744073709551615");
  assert_non_null(r);
  assert_true(r->hash_code == UINT64_MAX);
  Tensorflow__TensorProto *t = (Tensorflow__TensorProto *)parse_as(f, &tensorflow__tensor_proto__descriptor,
                                                                   "uint32_val: 4294967295 uint64_val: [0, 0xffffffffffffffff]");
  assert_non_null(t);
  assert_true(t->uint32_val[0] == UINT32_MAX && t->uint64_val[1] == UINT64_MAX);
  Tensorflow__GraphDebugInfo *di = (Tensorflow__GraphDebugInfo *)parse_as(
      f, &tensorflow__graph_debug_info__descriptor, "traces_by_id { key: 18446744073709551615 value { frame_id: [1, 2] } }");
  assert_non_null(di);
  assert_true(di->traces_by_id[0]->key == UINT64_MAX);
  assert_int_equal(di->traces_by_id[0]->value->n_frame_id, 2);
}

static void maps_and_oneof_case(void **state) {
  fx *f = *state;
  Tensorflow__GraphDef *g = parse_gd(f, "library { function { signature { name: \"fn\" } ret { key: \"o\" value: \"n:0\" } "
                                         "arg_attr { key: 0 value { attr { key: \"x\" value { i: 0 } } } } "
                                         "resource_arg_unique_id { key: 4294967295 value: 7 } } }");
  assert_non_null(g);
  Tensorflow__FunctionDef *fn = g->library->function[0];
  assert_string_equal(fn->signature->name, "fn");
  assert_int_equal(fn->n_ret, 1);
  assert_string_equal(fn->ret[0]->key, "o");
  assert_string_equal(fn->ret[0]->value, "n:0");
  assert_int_equal(fn->arg_attr[0]->key, 0);
  Tensorflow__AttrValue *v = fn->arg_attr[0]->value->attr[0]->value;
  assert_int_equal(v->value_case, TENSORFLOW__ATTR_VALUE__VALUE_I); /* set although zero */
  assert_true(fn->resource_arg_unique_id[0]->key == UINT32_MAX);
}

static void proto3_duplicates_follow_protoc(void **state) {
  fx *f = *state;
  /* protoc's HasField: a proto3 scalar at its default value does not count as set */
  Tensorflow__GraphDef *g = parse_gd(f, "version: 0 version: 5");
  assert_non_null(g);
  assert_int_equal(g->version, 5);
}

static void opaque_messages_are_skipped(void **state) {
  fx *f = *state;
  const char *text = "graph_def { node { name: \"a\" } }\n"
                     "object_graph_def { nodes { children { node_id: 1 local_name: \"x\" } "
                     "user_object < identifier: \"y\" > } concrete_functions { key: \"f\" value { bound_inputs: [1, 2] } } }\n"
                     "signature_def { key: \"serving_default\" value { inputs { key: \"x\" value { "
                     "composite_tensor { type_spec { type_spec_class: TENSOR_SPEC type_state { tuple_value { } } } } } } } }";
  ProtobufCMessage *m = parse_as(f, &tensorflow__meta_graph_def__descriptor, text);
  if (!m) tfx_diag_print(&f->d, stderr);
  assert_non_null(m);
  Tensorflow__MetaGraphDef *mg = (Tensorflow__MetaGraphDef *)m;
  assert_non_null(mg->object_graph_def);
  assert_string_equal(mg->graph_def->node[0]->name, "a");
  assert_int_equal(mg->n_signature_def, 1);
  /* a whole input of an opaque type */
  assert_non_null(parse_as(f, &tensorflow__saved_object_graph__descriptor, "nodes { x: 1 } y: [1, {z: 2}]"));
  expect_err(f, &tensorflow__meta_graph_def__descriptor, "object_graph_def { nodes { a: 1 ]", 1, 33,
             "expected \"}\" to close \"{\" at 1:26");
  expect_err(f, &tensorflow__meta_graph_def__descriptor, "object_graph_def {\n nodes {", 2, 8, "never closed");
}

/* ---- errors, each with its exact position ---- */

static void error_unknown_field(void **state) {
  fx *f = *state;
  expect_gd_err(f, "this: 1", 1, 1, "message type \"tensorflow.GraphDef\" has no field named \"this\"");
  expect_gd_err(f, "node {\n  name: \"a\"\n  nmae: \"b\"\n}", 3, 3,
                "message type \"tensorflow.NodeDef\" has no field named \"nmae\"");
  expect_gd_err(f, "node { a.b: 1 }", 1, 8, "has no field named \"a.b\"");
}

static void error_duplicates_and_oneof(void **state) {
  fx *f = *state;
  expect_gd_err(f, "version: 1\nversion: 2", 2, 1, "non-repeated field \"version\" is specified multiple times");
  expect_gd_err(f, "versions {} versions {}", 1, 13, "non-repeated field \"versions\" is specified multiple times");
  expect_gd_err(f, "node { attr { key: \"a\" value { i: 1 s: \"x\" } } }", 1, 37,
                "field \"s\" is specified along with field \"i\", another member of the same oneof");
  expect_gd_err(f, "node { attr { key: \"a\" value { i: 0 i: 1 } } }", 1, 37,
                "non-repeated field \"i\" is specified multiple times");
}

static void error_values(void **state) {
  fx *f = *state;
  expect_gd_err(f, "version: 2147483648", 1, 10, "integer out of range (2147483648)");
  expect_gd_err(f, "version: -2147483649", 1, 10, "integer out of range");
  expect_gd_err(f, "version: 1e5", 1, 10, "expected integer, got \"1e5\"");
  expect_gd_err(f, "version: 1.0", 1, 10, "expected integer");
  expect_gd_err(f, "version: \"1\"", 1, 10, "expected integer");
  expect_gd_err(f, "version: 99999999999999999999", 1, 10, "integer out of range");
  expect_gd_err(f, "library { function { resource_arg_unique_id { key: -1 } } }", 1, 52,
                "negative value for unsigned field \"key\"");
  expect_gd_err(f, "library { function { resource_arg_unique_id { key: 4294967296 } } }", 1, 52, "integer out of range");
  expect_gd_err(f, "node { attr { key: \"a\" value { b: FALSE } } }", 1, 35, "invalid value for boolean field \"b\"");
  expect_gd_err(f, "node { attr { key: \"a\" value { b: 2 } } }", 1, 35, "integer out of range for boolean");
  expect_gd_err(f, "node { attr { key: \"a\" value { type: DT_FOO } } }", 1, 38,
                "unknown enumeration value of \"DT_FOO\" for field \"type\"");
  expect_gd_err(f, "node { attr { key: \"a\" value { type: \"DT_FLOAT\" } } }", 1, 38, "expected an enum value");
  expect_gd_err(f, "node { attr { key: \"a\" value { f: 0x10 } } }", 1, 35, "expected a decimal number");
  expect_gd_err(f, "node { attr { key: \"a\" value { f: 010 } } }", 1, 35, "expected a decimal number");
  expect_gd_err(f, "node { attr { key: \"a\" value { f: infinite } } }", 1, 35, "expected a number");
  expect_gd_err(f, "node { name: x }", 1, 14, "expected string, got \"x\"");
  expect_gd_err(f, "node { name: 5 }", 1, 14, "expected string");
  expect_gd_err(f, "version 1", 1, 9, "expected \":\"");
  expect_gd_err(f, "node: 1", 1, 7, "expected \"{\" or \"<\"");
  expect_gd_err(f, "version: [1]", 1, 10, "is not repeated");
  expect_gd_err(f, "node { input: [\"a\",] }", 1, 20, "expected string, got \"]\"");
  expect_gd_err(f, "node { input: [\"a\" \"b\" 5] }", 1, 24, "expected \",\" or \"]\"");
  expect_gd_err(f, "node [{name: \"a\"} {}]", 1, 19, "expected \",\" or \"]\"");
}

static void error_structure(void **state) {
  fx *f = *state;
  expect_gd_err(f, "node {\n  name: \"a\"\n", 1, 6, "\"{\" is never closed");
  expect_gd_err(f, "node < name: \"a\" }", 1, 18, "expected \">\" to close \"<\" at 1:6, got \"}\"");
  expect_gd_err(f, "node { } }", 1, 10, "unexpected \"}\"");
  expect_gd_err(f, "node { 123 }", 1, 8, "expected a field name, got \"123\"");
  expect_gd_err(f, "node { name: \"a\";; }", 1, 18, "expected a field name, got \";\"");
  expect_gd_err(f, "{", 1, 1, "expected a field name");
  expect_gd_err(f, "[type.googleapis.com/x] { }", 1, 1, "extension fields");
  ProtobufCMessage *m = parse_as(f, &google__protobuf__any__descriptor, "[type.googleapis.com/tensorflow.GraphDef] { node {} }");
  assert_null(m);
  assert_true(strstr(f->d.items[0].msg, "expanded google.protobuf.Any form") != NULL);
}

static void error_lexical(void **state) {
  fx *f = *state;
  expect_gd_err(f, "node { name: \"abc }", 1, 14, "unterminated string literal");
  expect_gd_err(f, "node { name: \"a\nb\" }", 1, 14, "unterminated string literal");
  expect_gd_err(f, "node { name: \"\\q\" }", 1, 15, "invalid escape sequence \"\\q\"");
  expect_gd_err(f, "node {\n name: \"ab\\x\" }", 2, 11, "expected hex digits");
  expect_gd_err(f, "version: 123abc", 1, 10, "invalid number \"123abc\"");
  expect_gd_err(f, "version: 08", 1, 10, "invalid number \"08\"");
  expect_gd_err(f, "version: 1.2.3", 1, 10, "invalid number");
  expect_gd_err(f, "node { name: @ }", 1, 14, "unexpected character '@'");
  expect_gd_err(f, "node { name: \xff }", 1, 14, "unexpected byte 0xff");
  /* NUL bytes are errors, not end of input */
  static const char nul[] = "version: 1\n\0version: 2";
  tfx_diag_clear(&f->d);
  assert_null(tfx_pbtxt_parse(&tensorflow__graph_def__descriptor, nul, sizeof nul - 1, "t.pbtxt", &f->a, NULL, &f->d));
  assert_int_equal(f->d.items[0].line, 2);
  assert_int_equal(f->d.items[0].col, 1);
  assert_non_null(strstr(f->d.items[0].msg, "NUL byte"));
  static const char nul2[] = "node { name: \"a\0b\" }";
  tfx_diag_clear(&f->d);
  assert_null(tfx_pbtxt_parse(&tensorflow__graph_def__descriptor, nul2, sizeof nul2 - 1, "t.pbtxt", &f->a, NULL, &f->d));
  assert_int_equal(f->d.items[0].col, 16);
  assert_non_null(strstr(f->d.items[0].msg, "NUL byte"));
  /* a NUL inside a comment too */
  static const char nul3[] = "# comment \0 more\nversion: 1";
  tfx_diag_clear(&f->d);
  assert_null(tfx_pbtxt_parse(&tensorflow__graph_def__descriptor, nul3, sizeof nul3 - 1, "t.pbtxt", &f->a, NULL, &f->d));
  assert_int_equal(f->d.items[0].col, 11);
}

static void error_caret_source_line(void **state) {
  fx *f = *state;
  assert_null(parse_gd(f, "node {\r\n  bogus: 1\r\n}\r\n"));
  assert_int_equal(f->d.items[0].line, 2);
  assert_int_equal(f->d.items[0].col, 3);
  assert_string_equal(f->d.items[0].source_line, "  bogus: 1"); /* CR dropped */
  assert_int_equal(f->d.items[0].span, 5);
}

static void embedded_nul_in_string_warns(void **state) {
  fx *f = *state;
  Tensorflow__GraphDef *g = parse_gd(f, "node { name: \"a\\000b\" }");
  assert_non_null(g);
  assert_int_equal(f->d.warnings, 1);
  assert_string_equal(g->node[0]->name, "a");
}

/* Builds text nested n AttrValue levels deep: node{attr{value{list{func{attr{value{...}}}}}}} */
static char *deep_text(int levels) {
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  tfx_sb_puts(&sb, "node { attr { key: \"k\" value {");
  for (int i = 0; i < levels; i++) tfx_sb_puts(&sb, " func { attr { key: \"k\" value {");
  for (int i = 0; i < levels; i++) tfx_sb_puts(&sb, " } } }");
  tfx_sb_puts(&sb, " } } }");
  char *s = strdup(tfx_sb_cstr(&sb));
  tfx_sb_free(&sb);
  return s;
}

static void depth_and_string_limits(void **state) {
  fx *f = *state;
  /* node=1, attr=2, value=3, then 3 per level: 32 levels = depth 99, 33 levels = 102 */
  char *ok = deep_text(32), *bad = deep_text(33), *huge = deep_text(100000);
  assert_non_null(parse_gd(f, ok));
  assert_null(parse_gd(f, bad));
  assert_non_null(strstr(f->d.items[0].msg, "deeper than the limit of 100"));
  assert_null(parse_gd(f, huge)); /* no stack overflow */
  tfx_pbtxt_limits lim = {.max_depth = 10, .max_string = 3};
  tfx_diag_clear(&f->d);
  assert_null(tfx_pbtxt_parse(&tensorflow__graph_def__descriptor, ok, strlen(ok), "t", &f->a, &lim, &f->d));
  assert_non_null(strstr(f->d.items[0].msg, "limit of 10"));
  tfx_diag_clear(&f->d);
  const char *s = "node { name: \"abcd\" }";
  assert_null(tfx_pbtxt_parse(&tensorflow__graph_def__descriptor, s, strlen(s), "t", &f->a, &lim, &f->d));
  assert_non_null(strstr(f->d.items[0].msg, "longer than the limit of 3"));
  s = "node { name: \"abc\" }";
  tfx_diag_clear(&f->d);
  assert_non_null(tfx_pbtxt_parse(&tensorflow__graph_def__descriptor, s, strlen(s), "t", &f->a, &lim, &f->d));
  free(ok);
  free(bad);
  free(huge);
}

static void empty_input(void **state) {
  fx *f = *state;
  Tensorflow__GraphDef *g = parse_gd(f, "  # only a comment\n");
  assert_non_null(g);
  assert_int_equal(g->n_node, 0);
  tfx_diag_clear(&f->d);
  assert_non_null(tfx_pbtxt_parse(&tensorflow__graph_def__descriptor, NULL, 0, "t", &f->a, NULL, &f->d));
}

/* ---- printer ---- */

static void print_format(void **state) {
  fx *f = *state;
  Tensorflow__GraphDef *g = parse_gd(f, "versions { producer: 0 min_consumer: 2 } node { attr { key: \"a\" value { list { f: [0.1, -0.0, inf, nan] "
                                         "type: [DT_FLOAT, 999] s: \"\\n\\\"\\'\\\\\\001\\377\" b: false } } } name: \"n\" } version: 0");
  assert_non_null(g);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  assert_int_equal(tfx_pbtxt_print(&g->base, &sb), 0);
  assert_string_equal(tfx_sb_cstr(&sb),
                      "node {\n"
                      "  name: \"n\"\n"
                      "  attr {\n"
                      "    key: \"a\"\n"
                      "    value {\n"
                      "      list {\n"
                      "        s: \"\\n\\\"\\'\\\\\\001\\377\"\n"
                      "        f: 0.1\n"
                      "        f: -0\n"
                      "        f: inf\n"
                      "        f: nan\n"
                      "        b: false\n"
                      "        type: DT_FLOAT\n"
                      "        type: 999\n"
                      "      }\n"
                      "    }\n"
                      "  }\n"
                      "}\n"
                      "versions {\n"
                      "  min_consumer: 2\n"
                      "}\n");
  tfx_sb_free(&sb);
}

static void pack_of(const ProtobufCMessage *m, tfx_strbuf *sb) {
  tfx_sb_init(sb);
  assert_int_equal(tfx_io_pack(m, sb), 0);
}

/* print -> parse -> pack equals pack of the original */
static void roundtrip_one(fx *f, const ProtobufCMessage *m) {
  tfx_strbuf a, t, b;
  pack_of(m, &a);
  tfx_sb_init(&t);
  assert_int_equal(tfx_pbtxt_print(m, &t), 0);
  tfx_diag_clear(&f->d);
  ProtobufCMessage *m2 = tfx_pbtxt_parse(m->descriptor, t.data, t.len, "printed", &f->a, NULL, &f->d);
  if (!m2) {
    tfx_diag_print(&f->d, stderr);
    fail();
  }
  pack_of(m2, &b);
  assert_int_equal(a.len, b.len);
  assert_memory_equal(a.data, b.data, a.len);
  tfx_sb_free(&a);
  tfx_sb_free(&b);
  tfx_sb_free(&t);
}

static void print_parse_pack_roundtrip(void **state) {
  fx *f = *state;
  const char *text =
      "node { name: \"a/b\" op: \"Const\" input: [\"^c\", \"d:1\"] device: \"/cpu:0\" "
      "attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: -1 name: \"n\" } unknown_rank: true } "
      "float_val: [0.1, 3.4028235e38, 1e-45, -0.0, -inf, nan] double_val: [0.1, 1e308, 5e-324, -nan] "
      "int64_val: -9223372036854775808 uint64_val: 18446744073709551615 uint32_val: 4294967295 half_val: -1 "
      "bool_val: [true, false] string_val: [\"\\000\\377\\n\", \"\"] tensor_content: \"\\001\\002\" } } } "
      "attr { key: \"\" value { } } attr { key: \"f\" value { func { name: \"fn\" attr { key: \"x\" value { placeholder: \"\" } } } } } "
      "attr { key: \"e\" value { type: 77 } } "
      "experimental_type { type_id: TFT_PRODUCT args { type_id: TFT_TENSOR i: 0 } args { s: \"x\" } } } "
      "library { function { signature { name: \"fn\" input_arg { name: \"x\" type: DT_INT32 is_ref: true } } "
      "arg_attr { key: 0 value { } } resource_arg_unique_id { key: 0 value: 0 } ret { key: \"\" value: \"\" } } "
      "gradient { function_name: \"fn\" } } versions { producer: 1 bad_consumers: [0, -5] } version: -1 "
      "debug_info { files: \"f.py\" traces_by_id { key: 0 value { frame_id: [0, 18446744073709551615] file_line_cols { line: 3 } } } }";
  Tensorflow__GraphDef *g = parse_gd(f, text);
  assert_non_null(g);
  roundtrip_one(f, &g->base);
  /* a MetaGraphDef with every oneof of CollectionDef and a SaverDef */
  const char *mtext =
      "meta_info_def { tags: [\"serve\", \"gpu\"] any_info { type_url: \"type.googleapis.com/x\" value: \"\\377\" } "
      "function_aliases { key: \"a\" value: \"b\" } stripped_default_attrs: true } "
      "saver_def { keep_checkpoint_every_n_hours: 10000 version: V2 sharded: true } "
      "collection_def { key: \"n\" value { node_list { value: \"x\" } } } "
      "collection_def { key: \"i\" value { int64_list { value: [1, -1] } } } "
      "collection_def { key: \"f\" value { float_list { value: [] } } } "
      "signature_def { key: \"s\" value { inputs { key: \"x\" value { name: \"x:0\" dtype: DT_FLOAT } } method_name: \"m\" } }";
  ProtobufCMessage *m = parse_as(f, &tensorflow__meta_graph_def__descriptor, mtext);
  if (!m) tfx_diag_print(&f->d, stderr);
  assert_non_null(m);
  roundtrip_one(f, m);
}

static void pack_map_entries_like_protoc(void **state) {
  fx *f = *state;
  /* C++ protobuf always writes a map entry's key and value, even at their defaults */
  Tensorflow__GraphDef *g = parse_gd(f, "library { function { arg_attr { key: 0 } } }");
  assert_non_null(g);
  tfx_strbuf sb;
  pack_of(&g->base, &sb);
  static const uint8_t want[] = {0x12, 0x08, 0x0a, 0x06, 0x3a, 0x04, 0x08, 0x00, 0x12, 0x00};
  assert_int_equal(sb.len, sizeof want);
  assert_memory_equal(sb.data, want, sizeof want);
  tfx_sb_free(&sb);
}

static void roundtrip_corpus_text(void **state) {
  fx *f = *state;
  const char *dir = getenv("TFXC_CORPUS");
  char path[4096];
  if (!dir || !*dir) skip();
  snprintf(path, sizeof path, "%s/graphdef2mlir/case_op.pbtxt", dir);
  tfx_diag_clear(&f->d);
  size_t len;
  char *buf = tfx_read_file(path, 0, &len, &f->d);
  if (!buf) skip();
  ProtobufCMessage *m = tfx_pbtxt_parse(&tensorflow__graph_def__descriptor, buf, len, path, &f->a, NULL, &f->d);
  assert_non_null(m);
  roundtrip_one(f, m);
  free(buf);
}

/* Every allocation failure is reported (or the parse succeeds): no crash, no leak. */
static void allocation_failures(void **state) {
  fx *f = *state;
  const char *text = "node { name: \"a\" input: [\"x\", \"y\", \"z\", \"w\", \"v\"] attr { key: \"k\" value { list { i: [1,2,3,4,5,6] } } } } "
                     "node { name: \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\" } version: 3";
  int succeeded = 0;
  for (long n = 1; n < 400 && !succeeded; n++) {
    tfx_arena a;
    tfx_arena_init(&a);
    tfx_diag_clear(&f->d);
    tfx_alloc_fail_at(n);
    tfx_status st;
    ProtobufCMessage *m = tfx_pbtxt_parse_st(&tensorflow__graph_def__descriptor, text, strlen(text),
                                             "t", &a, NULL, &st, &f->d);
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (m) {
      assert_int_equal(st, TFX_OK);
      succeeded = hits == 0;
    } else {
      assert_int_equal(st, TFX_E_NOMEM); /* not malformed input */
      assert_true(f->d.errors >= 1);
      assert_non_null(strstr(f->d.items[0].msg, "out of memory"));
    }
    if (m) {
      tfx_strbuf sb;
      tfx_sb_init(&sb);
      tfx_alloc_fail_at(1);
      int rc = tfx_pbtxt_print(m, &sb);
      tfx_alloc_fail_at(0);
      assert_int_equal(rc, -1);
      tfx_sb_free(&sb);
    }
    tfx_arena_free(&a);
  }
  assert_true(succeeded);
}

/* The tests that need the corpus (TFXC_CORPUS) run as their own ctest test (`--needs-data`, exit 77 =
 * skipped when it is absent: TFXC_UNIT_DATA_PART in tests/CMakeLists.txt); the others run
 * without it. */
static int data_available(void) {
  const char *dir = getenv("TFXC_CORPUS");
  char path[4096];
  if (!dir || !*dir) return 0;
  snprintf(path, sizeof path, "%s/graphdef2mlir/case_op.pbtxt", dir);
  return access(path, R_OK) == 0;
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
        cmocka_unit_test_setup_teardown(allocation_failures, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  if (argc > 1 && strcmp(argv[1], "--needs-data") == 0) {
    if (!data_available()) {
      printf("skipped: the corpus (TFXC_CORPUS) not found\n");
      return 77;
    }
    const struct CMUnitTest data_tests[] = {
        cmocka_unit_test_setup_teardown(roundtrip_corpus_text, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(data_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(comments_whitespace_crlf, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(message_delimiters_and_colons, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(separators, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(lists_scalar_and_message, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(enums_by_name_and_number, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(string_escapes, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(floats_inf_nan, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(bools, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(integers_and_ranges, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(maps_and_oneof_case, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(proto3_duplicates_follow_protoc, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(opaque_messages_are_skipped, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(error_unknown_field, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(error_duplicates_and_oneof, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(error_values, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(error_structure, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(error_lexical, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(error_caret_source_line, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(embedded_nul_in_string_warns, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(depth_and_string_limits, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(empty_input, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(print_format, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(print_parse_pack_roundtrip, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(pack_map_entries_like_protoc, fx_setup, fx_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
