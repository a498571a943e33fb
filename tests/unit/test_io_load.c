/* Unit tests for model loading (src/io/io.c, wire.c, pack.c, reach.c): binary/text and message-type
 * sniffing, SavedModel directories and tag selection, malformed/truncated/too-deep input,
 * write -> load round trips, and the whole corpus (TFXC_CORPUS; skipped when absent). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/io.h"
#include "io/pbtxt.h"
#include "io/wire.h"
#include "tfxc/tfxc.h"
#include "util/fileio.h"
#include "util/arena.h"

typedef struct fx {
  char dir[256];
  tfx_diag d;
  tfx_arena a;
} fx;

static int fx_setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f) return -1;
  snprintf(f->dir, sizeof f->dir, "/tmp/tfxc_io_test_XXXXXX");
  if (!mkdtemp(f->dir)) return -1;
  tfx_diag_init(&f->d);
  tfx_arena_init(&f->a);
  *state = f;
  return 0;
}

static int fx_teardown(void **state) {
  fx *f = *state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
  if (system(cmd) != 0) return -1;
  tfx_diag_free(&f->d);
  tfx_arena_free(&f->a);
  free(f);
  return 0;
}

static const char *path_in(fx *f, const char *name) {
  static char buf[512];
  snprintf(buf, sizeof buf, "%s/%s", f->dir, name);
  return buf;
}

static void write_bytes(const char *path, const void *data, size_t n) {
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(data, 1, n, fp), n);
  fclose(fp);
}

/* Parses text as desc and writes it in binary to path. */
static void write_binary_from_text(fx *f, const char *path, const ProtobufCMessageDescriptor *desc, const char *text) {
  tfx_diag_clear(&f->d);
  ProtobufCMessage *m = tfx_pbtxt_parse(desc, text, strlen(text), "t", &f->a, NULL, &f->d);
  assert_non_null(m);
  assert_int_equal(tfx_io_write_message(path, m, TFX_WIRE_BINARY, &f->d), 0);
}

static int load(fx *f, const char *path, const tfx_load_opts *o, tfx_model *m) {
  tfx_diag_clear(&f->d);
  return tfx_io_load_model(path, o, m, &f->d);
}

static void expect_fail(fx *f, const char *path, const tfx_load_opts *o, const char *want) {
  tfx_model m;
  int rc = load(f, path, o, &m);
  if (rc != TFX_EXIT_INPUT || f->d.errors != 1 || !strstr(f->d.items[0].msg, want)) {
    fprintf(stderr, "%s: wanted failure '%s', rc %d:\n", path, want, rc);
    tfx_diag_print(&f->d, stderr);
    fail();
  }
  assert_null(m.graph);
  tfx_model_free(&m);
}

static const char *GD = "node { name: \"a\" op: \"Placeholder\" } node { name: \"b\" op: \"Identity\" input: \"a\" } "
                        "library { function { signature { name: \"f\" } } } versions { producer: 1 }";

static void binary_kinds_are_sniffed(void **state) {
  fx *f = *state;
  char meta[1024], saved[2048];
  snprintf(meta, sizeof meta, "meta_info_def { tags: \"serve\" } graph_def { %s } saver_def { version: V2 }", GD);
  snprintf(saved, sizeof saved, "saved_model_schema_version: 1 meta_graphs { %s }", meta);
  /* names that mislead: the content decides */
  write_binary_from_text(f, path_in(f, "x.meta"), &tensorflow__graph_def__descriptor, GD);
  write_binary_from_text(f, path_in(f, "y.pb"), &tensorflow__meta_graph_def__descriptor, meta);
  write_binary_from_text(f, path_in(f, "z.bin"), &tensorflow__saved_model__descriptor, saved);
  static const struct { const char *name; tfx_msg_kind kind; } cases[] = {
      {"x.meta", TFX_MSG_GRAPHDEF}, {"y.pb", TFX_MSG_METAGRAPHDEF}, {"z.bin", TFX_MSG_SAVEDMODEL}};
  for (int i = 0; i < 3; i++) {
    tfx_model m;
    assert_int_equal(load(f, path_in(f, cases[i].name), NULL, &m), 0);
    assert_int_equal(m.wire, TFX_WIRE_BINARY);
    assert_int_equal(m.kind, cases[i].kind);
    assert_int_equal(m.graph->n_node, 2);
    assert_string_equal(m.graph->node[1]->input[0], "a");
    tfx_model_free(&m);
  }
}

static void text_kinds_are_sniffed(void **state) {
  fx *f = *state;
  static const struct { const char *text; tfx_msg_kind kind; } cases[] = {
      {"# c\nversions { producer: 1 } node { name: \"a\" }", TFX_MSG_GRAPHDEF},
      {"graph_def { node { name: \"a\" } }", TFX_MSG_METAGRAPHDEF},
      {"meta_graphs { graph_def { node { name: \"a\" } } }", TFX_MSG_SAVEDMODEL},
  };
  for (int i = 0; i < 3; i++) {
    write_bytes(path_in(f, "m.pb"), cases[i].text, strlen(cases[i].text));
    tfx_model m;
    assert_int_equal(load(f, path_in(f, "m.pb"), NULL, &m), 0);
    assert_int_equal(m.wire, TFX_WIRE_TEXT);
    assert_int_equal(m.kind, cases[i].kind);
    assert_int_equal(m.graph->n_node, 1);
    tfx_model_free(&m);
  }
  /* comment-only text and a zero-byte file are empty GraphDefs, as protoc reads them */
  write_bytes(path_in(f, "e.pbtxt"), "# nothing\n", 10);
  tfx_model m;
  assert_int_equal(load(f, path_in(f, "e.pbtxt"), NULL, &m), 0);
  assert_int_equal(m.graph->n_node, 0);
  tfx_model_free(&m);
  write_bytes(path_in(f, "e.pb"), "", 0);
  assert_int_equal(load(f, path_in(f, "e.pb"), NULL, &m), 0);
  assert_int_equal(m.wire, TFX_WIRE_BINARY);
  assert_int_equal(m.graph->n_node, 0);
  tfx_model_free(&m);
}

static void bad_inputs_fail_cleanly(void **state) {
  fx *f = *state;
  write_bytes(path_in(f, "words.pbtxt"), "this is not a valid graph def\n", 30);
  expect_fail(f, path_in(f, "words.pbtxt"), NULL, "not a TensorFlow model in text format: \"this\"");
  assert_int_equal(f->d.items[0].line, 1);
  assert_int_equal(f->d.items[0].col, 1);
  write_bytes(path_in(f, "dbg.pbtxt"), "files: \"a.py\"\n", 14);
  expect_fail(f, path_in(f, "dbg.pbtxt"), NULL, "tensorflow.GraphDebugInfo");
  write_bytes(path_in(f, "bad.pbtxt"), "node {\n  name: 1\n}\n", 19);
  expect_fail(f, path_in(f, "bad.pbtxt"), NULL, "expected string");
  assert_int_equal(f->d.items[0].line, 2);
  assert_int_equal(f->d.items[0].col, 9);
  static const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02, 0x00, 0x13, 0x37};
  write_bytes(path_in(f, "junk.pb"), junk, sizeof junk);
  expect_fail(f, path_in(f, "junk.pb"), NULL, "malformed protobuf");
  /* a valid GraphDef cut short */
  write_binary_from_text(f, path_in(f, "full.pb"), &tensorflow__graph_def__descriptor, GD);
  size_t len;
  tfx_diag_clear(&f->d);
  char *buf = tfx_read_file(path_in(f, "full.pb"), 0, &len, &f->d);
  assert_non_null(buf);
  write_bytes(path_in(f, "cut.pb"), buf, len - 3);
  free(buf);
  expect_fail(f, path_in(f, "cut.pb"), NULL, "malformed protobuf");
  expect_fail(f, path_in(f, "missing.pb"), NULL, "cannot open");
  tfx_load_opts o = {.max_file_size = 8};
  expect_fail(f, path_in(f, "full.pb"), &o, "larger than the limit");
}

static void savedmodel_directory_and_tags(void **state) {
  fx *f = *state;
  expect_fail(f, f->dir, NULL, "neither saved_model.pb nor saved_model.pbtxt");
  const char *two = "saved_model_schema_version: 1 "
                    "meta_graphs { meta_info_def { tags: [\"train\"] } graph_def { node { name: \"t\" } node { name: \"t2\" } } } "
                    "meta_graphs { meta_info_def { tags: [\"serve\", \"gpu\"] } graph_def { node { name: \"s\" } } }";
  write_bytes(path_in(f, "saved_model.pbtxt"), two, strlen(two));
  tfx_model m;
  assert_int_equal(load(f, f->dir, NULL, &m), 0); /* default tag "serve" */
  assert_int_equal(m.kind, TFX_MSG_SAVEDMODEL);
  assert_string_equal(m.graph->node[0]->name, "s");
  assert_non_null(strstr(m.path, "saved_model.pbtxt"));
  tfx_model_free(&m);
  tfx_load_opts o = {.tag = "train"};
  assert_int_equal(load(f, f->dir, &o, &m), 0);
  assert_string_equal(m.graph->node[0]->name, "t");
  tfx_model_free(&m);
  o.tag = "eval";
  expect_fail(f, f->dir, &o, "no meta graph tagged \"eval\"; available tag sets: [train], [serve, gpu]");
  /* saved_model.pb wins over saved_model.pbtxt */
  write_binary_from_text(f, path_in(f, "saved_model.pb"), &tensorflow__saved_model__descriptor,
                         "meta_graphs { meta_info_def { tags: \"foo\" } graph_def { node { name: \"only\" } } }");
  assert_int_equal(load(f, f->dir, NULL, &m), 0); /* no tag given, exactly one meta graph */
  assert_string_equal(m.graph->node[0]->name, "only");
  assert_int_equal(m.wire, TFX_WIRE_BINARY);
  tfx_model_free(&m);
  o.tag = "serve";
  expect_fail(f, f->dir, &o, "available tag sets: [foo]");
  write_bytes(path_in(f, "nograph.pbtxt"), "meta_info_def { tags: \"serve\" }", 31);
  expect_fail(f, path_in(f, "nograph.pbtxt"), NULL, "MetaGraphDef has no graph_def");
  write_bytes(path_in(f, "nometa.pbtxt"), "saved_model_schema_version: 1", 29);
  expect_fail(f, path_in(f, "nometa.pbtxt"), NULL, "SavedModel has no meta graphs");
}

/* Binary GraphDef nested `levels` AttrValue.func levels deep, built inside out. */
static void deep_binary(tfx_strbuf *out, int levels) {
  tfx_strbuf cur, nxt;
  tfx_sb_init(&cur);
  tfx_sb_init(&nxt);
  /* innermost AttrValue: empty */
  for (int i = 0; i < levels + 1; i++) {
    /* AttrEntry { key "k" (0a 01 6b), value (12 len AttrValue) } */
    tfx_sb_reset(&nxt);
    uint8_t hdr[16];
    size_t h = 0;
    hdr[h++] = 0x0a, hdr[h++] = 0x01, hdr[h++] = 'k', hdr[h++] = 0x12;
    size_t n = cur.len;
    do { hdr[h++] = (uint8_t)((n & 0x7f) | (n > 0x7f ? 0x80 : 0)); n >>= 7; } while (n);
    tfx_sb_add(&nxt, hdr, h);
    tfx_sb_add(&nxt, cur.data ? cur.data : "", cur.len);
    /* wrap the entry: as NameAttrList.attr (field 2) then AttrValue.func (field 10), or NodeDef.attr (5) */
    tfx_strbuf tmp;
    tfx_sb_init(&tmp);
    int last = i == levels;
    uint8_t t2[16];
    size_t k = 0;
    t2[k++] = last ? 0x2a : 0x12;
    n = nxt.len;
    do { t2[k++] = (uint8_t)((n & 0x7f) | (n > 0x7f ? 0x80 : 0)); n >>= 7; } while (n);
    tfx_sb_add(&tmp, t2, k);
    tfx_sb_add(&tmp, nxt.data, nxt.len);
    if (!last) { /* NameAttrList inside AttrValue.func = field 10 -> tag 0x52 */
      tfx_strbuf tmp2;
      tfx_sb_init(&tmp2);
      k = 0;
      t2[k++] = 0x52;
      n = tmp.len;
      do { t2[k++] = (uint8_t)((n & 0x7f) | (n > 0x7f ? 0x80 : 0)); n >>= 7; } while (n);
      tfx_sb_add(&tmp2, t2, k);
      tfx_sb_add(&tmp2, tmp.data, tmp.len);
      tfx_sb_free(&tmp);
      tmp = tmp2;
    }
    tfx_sb_free(&cur);
    cur = tmp;
  }
  /* GraphDef.node (0a len NodeDef) */
  uint8_t t[16];
  size_t k = 0, n = cur.len;
  t[k++] = 0x0a;
  do { t[k++] = (uint8_t)((n & 0x7f) | (n > 0x7f ? 0x80 : 0)); n >>= 7; } while (n);
  tfx_sb_init(out);
  tfx_sb_add(out, t, k);
  tfx_sb_add(out, cur.data, cur.len);
  tfx_sb_free(&cur);
  tfx_sb_free(&nxt);
}

static void binary_depth_limit(void **state) {
  fx *f = *state;
  /* depth: node 1, attr 2, value 3, then func/attr/value 3 per level */
  tfx_strbuf ok, bad, huge;
  deep_binary(&ok, 32);
  deep_binary(&bad, 33);
  deep_binary(&huge, 400); /* 1203 levels: beyond the hard cap of 1000 */
  write_bytes(path_in(f, "ok.pb"), ok.data, ok.len);
  write_bytes(path_in(f, "bad.pb"), bad.data, bad.len);
  write_bytes(path_in(f, "huge.pb"), huge.data, huge.len);
  tfx_model m;
  assert_int_equal(load(f, path_in(f, "ok.pb"), NULL, &m), 0);
  assert_int_equal(m.kind, TFX_MSG_GRAPHDEF);
  assert_int_equal(m.graph->n_node, 1);
  tfx_model_free(&m);
  expect_fail(f, path_in(f, "bad.pb"), NULL, "deeper than the limit of 100");
  expect_fail(f, path_in(f, "huge.pb"), NULL, "deeper than the limit of 100");
  tfx_load_opts o = {.max_depth = 200};
  assert_int_equal(load(f, path_in(f, "bad.pb"), &o, &m), 0);
  tfx_model_free(&m);
  /* tfx_io_unpack applies the default limit too */
  tfx_diag_clear(&f->d);
  assert_null(tfx_io_unpack(&tensorflow__graph_def__descriptor, (const uint8_t *)huge.data, huge.len, "h", &f->a, &f->d));
  tfx_sb_free(&ok);
  tfx_sb_free(&bad);
  tfx_sb_free(&huge);
}

static void write_text_and_binary_then_load(void **state) {
  fx *f = *state;
  tfx_diag_clear(&f->d);
  ProtobufCMessage *g = tfx_pbtxt_parse(&tensorflow__graph_def__descriptor, GD, strlen(GD), "t", &f->a, NULL, &f->d);
  assert_non_null(g);
  tfx_strbuf want;
  tfx_sb_init(&want);
  assert_int_equal(tfx_io_pack(g, &want), 0);
  const char *names[2] = {"w.pbtxt", "w.pb"};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(tfx_io_write_message(path_in(f, names[i]), g, i ? TFX_WIRE_BINARY : TFX_WIRE_TEXT, &f->d), 0);
    tfx_model m;
    assert_int_equal(load(f, path_in(f, names[i]), NULL, &m), 0);
    assert_int_equal(m.wire, i ? TFX_WIRE_BINARY : TFX_WIRE_TEXT);
    tfx_strbuf got;
    tfx_sb_init(&got);
    assert_int_equal(tfx_io_pack(m.root, &got), 0);
    assert_int_equal(got.len, want.len);
    assert_memory_equal(got.data, want.data, want.len);
    tfx_sb_free(&got);
    tfx_model_free(&m);
  }
  tfx_sb_free(&want);
  assert_string_equal(tfx_msg_kind_name(TFX_MSG_SAVEDMODEL), "tensorflow.SavedModel");
}

/* After nodes are removed from a loaded GraphDef, a sweep that keeps what the tree reaches
 * (tfx_model_keep_reachable) gives the removed nodes' pages back and leaves the rest intact:
 * the graph packs to the same bytes as before the sweep (in ASan builds, a read of a page
 * given back is reported). Every field kind is there: strings, repeated strings, maps, oneofs,
 * nested and repeated messages, packed scalars, bytes. Binary and text loads. */
static void removed_nodes_are_given_back(void **state) {
  fx *f = *state;
  enum { N = 3000 };
  tfx_strbuf txt;
  tfx_sb_init(&txt);
  for (int i = 0; i < N; i++)
    tfx_sb_printf(&txt,
                  "node { name: \"block_%d/weights/read\" op: \"Const\" input: \"block_%d/x:1\" "
                  "input: \"^block_%d/ctl\" device: \"/device:CPU:0\" attr { key: \"value\" value { "
                  "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 name: \"c\" } } "
                  "tensor_content: \"0123456789abcdefghijklmn\" } } } attr { key: \"l\" value { list { "
                  "i: 1 i: %d i: 3 f: 1.5 s: \"ab\" s: \"cd\" } } } attr { key: \"T\" value { type: "
                  "DT_FLOAT } } attr { key: \"s\" value { s: \"node %d\" } } }\n",
                  i, i, i, i, i);
  /* payloads of several pages in kept nodes: a page held by nothing but one of them goes
   * back when the walk misses that kind of field */
  tfx_sb_puts(&txt, "node { name: \"big");
  for (int i = 0; i < 20000; i++) tfx_sb_putc(&txt, (char)('a' + i % 26)); /* a string field */
  tfx_sb_puts(&txt, "\" op: \"Const\" attr { key: \"b\" value { tensor { dtype: DT_INT8 "
                    "tensor_content: \"");
  for (int i = 0; i < 20000; i++) tfx_sb_putc(&txt, (char)('a' + i % 26));
  tfx_sb_puts(&txt, "\" } } } attr { key: \"s\" value { s: \"");
  for (int i = 0; i < 20000; i++) tfx_sb_putc(&txt, (char)('A' + i % 26));
  tfx_sb_puts(&txt, "\" } } attr { key: \"i\" value { list {");
  for (int i = 0; i < 5000; i++) tfx_sb_printf(&txt, " i: %d", i * 7);
  tfx_sb_puts(&txt, " } } } attr { key: \"names\" value { list {");
  for (int i = 0; i < 3000; i++) tfx_sb_printf(&txt, " s: \"n%d\"", i);
  tfx_sb_puts(&txt, " } } } }\n");
  tfx_sb_puts(&txt, "versions { producer: 134 bad_consumers: 1 bad_consumers: 2 }\n");
  assert_false(txt.oom);
  write_bytes(path_in(f, "g.pbtxt"), txt.data, txt.len);
  tfx_model m0;
  assert_int_equal(load(f, path_in(f, "g.pbtxt"), NULL, &m0), 0);
  assert_int_equal(tfx_io_write_message(path_in(f, "g.pb"), m0.root, TFX_WIRE_BINARY, &f->d), 0);
  tfx_model_free(&m0);
  const char *names[2] = {"g.pb", "g.pbtxt"};
  for (int t = 0; t < 2; t++) {
    tfx_model m;
    assert_int_equal(load(f, path_in(f, names[t]), NULL, &m), 0);
    assert_int_equal(m.graph->n_node, N + 1);
    /* remove the nodes 1000..1999 (as a pass does: a new node array) */
    Tensorflow__GraphDef *g = m.graph;
    Tensorflow__NodeDef **keep = tfx_arena_alloc(&m.arena, (N + 1 - 1000) * sizeof *keep);
    assert_non_null(keep);
    for (int i = 0, k = 0; i < N + 1; i++)
      if (i < 1000 || i >= 2000) keep[k++] = g->node[i];
    g->node = keep;
    g->n_node = N + 1 - 1000;
    tfx_strbuf before, after;
    tfx_sb_init(&before);
    tfx_sb_init(&after);
    assert_int_equal(tfx_io_pack(m.root, &before), 0);
    tfx_arena_sweep s;
    tfx_arena_mark now;
    tfx_arena_get_mark(&m.arena, &now);
    assert_int_equal(tfx_arena_sweep_begin(&s, &m.arena, &now), 0);
    tfx_model_keep_reachable(&s, &m);
    size_t got = tfx_arena_sweep_release(&s);
    /* 1000 nodes of several hundred bytes each: most of their pages (and the unpacker's
     * scratch) */
    assert_true(got >= 1000 * 256);
    assert_int_equal(tfx_io_pack(m.root, &after), 0);
    assert_int_equal(after.len, before.len);
    assert_memory_equal(after.data, before.data, before.len);
    assert_string_equal(m.path, path_in(f, names[t]));
    tfx_sb_free(&before);
    tfx_sb_free(&after);
    tfx_model_free(&m);
  }
  tfx_sb_free(&txt);
}

/* A binary load gives back the scratch protobuf-c frees into the arena at once (its slabs of
 * scanned fields: 32 bytes per node of a GraphDef, in blocks that double), and the model is
 * whole: it packs to the bytes it was loaded from. */
static void binary_load_gives_back_unpack_scratch(void **state) {
  fx *f = *state;
  enum { N = 20000 };
  tfx_strbuf txt;
  tfx_sb_init(&txt);
  for (int i = 0; i < N; i++)
    tfx_sb_printf(&txt, "node { name: \"n%d\" op: \"NoOp\" }\n", i);
  assert_false(txt.oom);
  write_bytes(path_in(f, "s.pbtxt"), txt.data, txt.len);
  tfx_model m0;
  assert_int_equal(load(f, path_in(f, "s.pbtxt"), NULL, &m0), 0);
  assert_int_equal(m0.arena.released, 0); /* text: no protobuf-c scratch */
  tfx_strbuf want;
  tfx_sb_init(&want);
  assert_int_equal(tfx_io_pack(m0.root, &want), 0);
  write_bytes(path_in(f, "s.pb"), want.data, want.len);
  tfx_model_free(&m0);
  tfx_model m;
  assert_int_equal(load(f, path_in(f, "s.pb"), NULL, &m), 0);
  /* the slabs of 64 KiB and more (64 + 128 + 256 + 512 KiB for 20 000 fields), less partial pages */
  assert_true(m.arena.released >= (size_t)400 * 1024);
  tfx_strbuf got;
  tfx_sb_init(&got);
  assert_int_equal(tfx_io_pack(m.root, &got), 0);
  assert_int_equal(got.len, want.len);
  assert_memory_equal(got.data, want.data, want.len);
  tfx_sb_free(&got);
  tfx_sb_free(&want);
  tfx_sb_free(&txt);
  tfx_model_free(&m);
}

/* Each allocation failure while loading (a binary SavedModel directory, a text GraphDef) is one
 * clean "out of memory" error and TFX_E_NOMEM (or the load succeeds): no leaks. */
static void allocation_failures_in_load(void **state) {
  fx *f = *state;
  char saved[1024];
  snprintf(saved, sizeof saved, "meta_graphs { meta_info_def { tags: \"serve\" } graph_def { %s } }", GD);
  write_binary_from_text(f, path_in(f, "saved_model.pb"), &tensorflow__saved_model__descriptor, saved);
  write_bytes(path_in(f, "g.pbtxt"), GD, strlen(GD));
  const char *paths[2] = {f->dir, "g.pbtxt"};
  for (int k = 0; k < 2; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s", k ? path_in(f, paths[k]) : paths[k]);
    int succeeded = 0;
    for (long n = 1; n < 500 && !succeeded; n++) {
      tfx_model m;
      tfx_diag_clear(&f->d);
      tfx_alloc_fail_at(n);
      int rc = tfx_io_load_model(path, NULL, &m, &f->d);
      long hits = tfx_alloc_failures();
      tfx_alloc_fail_at(0);
      if (rc == 0) {
        assert_int_equal(m.graph->n_node, 2);
        succeeded = hits == 0;
      } else { /* out of memory, never "malformed" input (exit 3) */
        assert_true(hits > 0);
        assert_int_equal(rc, TFX_E_NOMEM);
        assert_true(f->d.errors >= 1);
        assert_non_null(strstr(f->d.items[0].msg, "out of memory"));
      }
      tfx_model_free(&m);
    }
    assert_true(succeeded);
  }
}

/* ---- a GraphDef's nodes unpacked by several threads (io.c tfx_io_unpack_graph_par) ---- */

typedef struct wbuf {
  uint8_t *p;
  size_t n, cap;
} wbuf;

static void wb_bytes(wbuf *b, const void *p, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
    assert_non_null(b->p);
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

static void wb_varint(wbuf *b, uint64_t v) {
  uint8_t t[10];
  size_t n = 0;
  do {
    t[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  wb_bytes(b, t, n);
}

static void wb_len(wbuf *b, unsigned field, const void *p, size_t n) {
  wb_varint(b, (uint64_t)field << 3 | 2);
  wb_varint(b, n);
  wb_bytes(b, p, n);
}

static void wb_str(wbuf *b, unsigned field, const char *s) { wb_len(b, field, s, strlen(s)); }

static void wb_uint(wbuf *b, unsigned field, uint64_t v) {
  wb_varint(b, (uint64_t)field << 3);
  wb_varint(b, v);
}

/* A GraphDef with n nodes (node i: name, op, an input, an attr, and in every seventh an unknown
 * field), an empty NodeDef, and between the nodes: versions twice (combined by protobuf-c as it sees fit),
 * the deprecated version, an empty library and unknown fields of every wire type. */
static wbuf synthetic_graph(size_t n) {
  wbuf g = {0};
  wb_uint(&g, 77, 12345); /* unknown, first */
  for (size_t i = 0; i < n; i++) {
    wbuf nd = {0}, attr = {0}, val = {0};
    char name[32];
    snprintf(name, sizeof name, "scope%zu/n%zu", i % 13, i);
    wb_str(&nd, 1, name);
    wb_str(&nd, 2, i % 2 ? "Identity" : "Const");
    if (i) {
      snprintf(name, sizeof name, "scope%zu/n%zu", (i - 1) % 13, i - 1);
      wb_str(&nd, 3, name);
    }
    wb_uint(&val, 3, i); /* AttrValue.i */
    wb_str(&attr, 1, "k");
    wb_len(&attr, 2, val.p, val.n);
    wb_len(&nd, 5, attr.p, attr.n);
    if (i % 7 == 3) wb_uint(&nd, 50, i); /* unknown in a NodeDef */
    wb_len(&g, 1, nd.p, nd.n);
    if (i == n / 3) {
      wbuf v = {0};
      wb_uint(&v, 1, 27); /* producer */
      wb_len(&g, 4, v.p, v.n);
      wb_len(&g, 1, "", 0); /* an empty NodeDef */
      wb_varint(&g, 78u << 3 | 1);
      wb_bytes(&g, "\1\2\3\4\5\6\7\10", 8); /* unknown fixed64 */
      wb_uint(&g, 3, 9); /* version */
      free(v.p);
    }
    if (i == n / 2) {
      wbuf v = {0};
      wb_uint(&v, 2, 12); /* min_consumer: merged into the first versions */
      wb_uint(&v, 3, 5);
      wb_len(&g, 4, v.p, v.n);
      wb_len(&g, 2, "", 0); /* library */
      wb_str(&g, 79, "unknown bytes");
      wb_varint(&g, 80u << 3 | 5);
      wb_bytes(&g, "abcd", 4); /* unknown fixed32 */
      free(v.p);
    }
    free(nd.p);
    free(attr.p);
    free(val.p);
  }
  wb_uint(&g, 81, 1); /* unknown, last */
  return g;
}

/* data loaded with jobs threads (parallel from min_bytes bytes on) as a GraphDef, or with name
 * "g.meta" a MetaGraphDef, packed again; the model's jobs in *used. */
static tfx_strbuf load_packed_as(fx *f, const char *name, const wbuf *g, unsigned jobs, size_t min_bytes,
                                 unsigned *used) {
  tfx_load_opts lo = {0};
  lo.jobs = jobs;
  lo.par_min_bytes = min_bytes;
  tfx_model m;
  tfx_diag_clear(&f->d);
  assert_int_equal(tfx_io_load_model_buffer(g->p ? (const void *)g->p : "", g->n, name, &lo, &m, &f->d),
                   TFX_OK);
  assert_int_equal(m.kind, strstr(name, ".meta")          ? TFX_MSG_METAGRAPHDEF
                           : strstr(name, "saved_model.pb") ? TFX_MSG_SAVEDMODEL
                                                            : TFX_MSG_GRAPHDEF);
  *used = m.jobs;
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  assert_int_equal(tfx_io_pack(m.root, &sb), 0);
  tfx_model_free(&m);
  return sb;
}

static tfx_strbuf load_packed(fx *f, const wbuf *g, unsigned jobs, size_t min_bytes, unsigned *used) {
  return load_packed_as(f, "g.pb", g, jobs, min_bytes, used);
}

/* The GraphDef g inside a MetaGraphDef, between meta_info_def (tags "serve"), signature_def
 * and unknown fields. */
static wbuf meta_of(const wbuf *g) {
  wbuf m = {0}, info = {0}, sig = {0};
  wb_uint(&m, 90, 1);
  wb_str(&info, 4, "serve");
  wb_len(&m, 1, info.p, info.n);
  wb_len(&m, 2, g->p ? (const void *)g->p : "", g->n);
  wb_str(&sig, 1, "serving_default");
  wb_len(&m, 5, sig.p, sig.n);
  wb_str(&m, 91, "unknown");
  free(info.p);
  free(sig.p);
  return m;
}

/* The MetaGraphDef m as a SavedModel's one meta graph, between the schema version and an
 * unknown field; two meta graphs when twice (the second tagged "train"). */
static wbuf saved_of(const wbuf *m, int twice) {
  wbuf s = {0}, info = {0}, m2 = {0};
  wb_uint(&s, 1, 1);
  wb_len(&s, 2, m->p ? (const void *)m->p : "", m->n);
  wb_str(&s, 77, "unknown");
  if (twice) {
    wb_str(&info, 4, "train");
    wb_len(&m2, 1, info.p, info.n);
    wb_len(&s, 2, m2.p, m2.n);
  }
  free(info.p);
  free(m2.p);
  return s;
}

/* Loading with 2, 3, 5 and 64 threads gives the model of one thread, to the byte when packed:
 * the nodes in order (an empty one too), the other fields interleaved with them (versions
 * twice), unknown fields at the top and in NodeDefs. Also a graph of no node and one of a
 * single empty NodeDef, each also as a MetaGraphDef's graph_def and as that MetaGraphDef in
 * a SavedModel (whole with a second meta graph), and the default threshold (1 MiB) keeping
 * small graphs whole. */
static void parallel_unpack_is_the_same(void **state) {
  fx *f = *state;
  size_t sizes[4] = {3000, 0, 1, 10};
  for (int s = 0; s < 4; s++) {
    wbuf g = sizes[s] == 1 ? (wbuf){0} : synthetic_graph(sizes[s]);
    if (sizes[s] == 1) wb_len(&g, 1, "", 0);
    unsigned used;
    tfx_strbuf one = load_packed(f, &g, 1, 1, &used);
    assert_int_equal(used, 0);
    static const unsigned jobs[] = {2, 3, 5, 64};
    for (int j = 0; j < 4; j++) {
      tfx_strbuf par = load_packed(f, &g, jobs[j], 1, &used);
      assert_int_equal(used, jobs[j]);
      assert_int_equal(par.len, one.len);
      assert_memory_equal(par.data, one.data, one.len);
      tfx_sb_free(&par);
    }
    tfx_strbuf small = load_packed(f, &g, 2, 0, &used);
    assert_int_equal(used, 0); /* under 1 MiB: one thread */
    tfx_sb_free(&small);
    /* the same graph as a MetaGraphDef's graph_def: its nodes in parallel too */
    wbuf mg = meta_of(&g);
    tfx_strbuf mone = load_packed_as(f, "g.meta", &mg, 1, 1, &used);
    assert_int_equal(used, 0);
    for (int j = 0; j < 4; j++) {
      tfx_strbuf par = load_packed_as(f, "g.meta", &mg, jobs[j], 1, &used);
      assert_int_equal(used, jobs[j]);
      assert_int_equal(par.len, mone.len);
      assert_memory_equal(par.data, mone.data, mone.len);
      tfx_sb_free(&par);
    }
    tfx_sb_free(&mone);
    /* and that MetaGraphDef as a SavedModel's one meta graph: its graph's nodes in parallel
     * too; with two meta graphs the SavedModel is unpacked whole (one thread) */
    for (int twice = 0; twice < 2; twice++) {
      wbuf sm = saved_of(&mg, twice);
      tfx_strbuf sone = load_packed_as(f, "saved_model.pb", &sm, 1, 1, &used);
      assert_int_equal(used, 0);
      for (int j = 0; j < 4; j++) {
        tfx_strbuf par = load_packed_as(f, "saved_model.pb", &sm, jobs[j], 1, &used);
        assert_int_equal(used, twice ? 0 : jobs[j]);
        assert_int_equal(par.len, sone.len);
        assert_memory_equal(par.data, sone.data, sone.len);
        tfx_sb_free(&par);
      }
      tfx_sb_free(&sone);
      free(sm.p);
    }
    free(mg.p);
    if (s == 0) { /* the sample itself: nodes in order, versions as protobuf-c has them, unknown
                     fields kept (a check of the sample, the bytes compared above are the test) */
      tfx_load_opts lo = {0};
      lo.jobs = 3;
      lo.par_min_bytes = 1;
      tfx_model m, w;
      assert_int_equal(tfx_io_load_model_buffer(g.p, g.n, "g.pb", &lo, &m, &f->d), TFX_OK);
      lo.jobs = 1;
      assert_int_equal(tfx_io_load_model_buffer(g.p, g.n, "g.pb", &lo, &w, &f->d), TFX_OK);
      assert_int_equal(m.graph->versions->producer, w.graph->versions->producer);
      assert_int_equal(m.graph->versions->n_bad_consumers, 1);
      tfx_model_free(&w);
      assert_int_equal(m.graph->n_node, 3001);
      assert_string_equal(m.graph->node[0]->name, "scope0/n0");
      assert_string_equal(m.graph->node[1001]->name, ""); /* the empty one, after node 1000 */
      assert_string_equal(m.graph->node[3000]->name, "scope9/n2999");
      assert_non_null(m.graph->versions);
      assert_int_equal(m.graph->versions->min_consumer, 12);
      assert_int_equal(m.graph->version, 9);
      assert_non_null(m.graph->library);
      assert_int_equal(m.graph->base.n_unknown_fields, 5);
      assert_int_equal(m.graph->node[3]->base.n_unknown_fields, 1);
      tfx_model_free(&m);
    }
    tfx_sb_free(&one);
    free(g.p);
  }
}

/* Each allocation failure while unpacking with 2 and 3 threads -- in the calling thread or a
 * worker, counted on the caller's hooks (arena.h tfx_alloc_hooks_use) -- is one clean "out of
 * memory" error and TFX_E_NOMEM, no model and nothing leaked (or, for an allocation the
 * loader can do without, the same model); every protobuf-c allocation counted too
 * (tfx_alloc_fail_arena): most of them are the workers'. A GraphDef, and the same as a
 * MetaGraphDef's graph_def, and that MetaGraphDef as a SavedModel's meta graph. */
static void parallel_unpack_allocation_failures(void **state) {
  fx *f = *state;
  wbuf graph = synthetic_graph(40), meta = meta_of(&graph), saved = saved_of(&meta, 0);
  for (int form = 0; form < 3; form++) { /* a GraphDef, as a MetaGraphDef's graph_def, in a SavedModel */
    const wbuf *g = form == 2 ? &saved : form ? &meta : &graph;
    const char *name = form == 2 ? "saved_model.pb" : form ? "g.meta" : "g.pb";
    unsigned used;
    tfx_strbuf ref = load_packed_as(f, name, g, 1, 1, &used);
    for (int arena = 0; arena < 2; arena++)
      for (unsigned jobs = 2; jobs <= 3; jobs++) {
        tfx_load_opts lo = {0};
        lo.jobs = jobs;
        lo.par_min_bytes = 1;
        tfx_alloc_fail_arena(arena);
        tfx_alloc_fail_at(0);
        tfx_model m;
        assert_int_equal(tfx_io_load_model_buffer(g->p, g->n, name, &lo, &m, &f->d), TFX_OK);
        long calls = tfx_alloc_calls();
        assert_int_equal(m.jobs, jobs);
        tfx_model_free(&m);
        assert_true(calls > (arena ? 300 : 3)); /* the workers' allocations are counted */
        long nomem = 0;
        for (long n = 1; n <= calls; n++) {
          tfx_diag_clear(&f->d);
          tfx_alloc_fail_at(n);
          tfx_status rc = tfx_io_load_model_buffer(g->p, g->n, name, &lo, &m, &f->d);
          long hits = tfx_alloc_failures();
          tfx_alloc_fail_at(0);
          assert_int_equal(hits, 1);
          if (rc == TFX_OK) { /* an allocation the loader can do without (wire.c's lookup tables) */
            tfx_strbuf sb;
            tfx_sb_init(&sb);
            assert_int_equal(tfx_io_pack(m.root, &sb), 0);
            assert_int_equal(sb.len, ref.len);
            assert_memory_equal(sb.data, ref.data, ref.len);
            tfx_sb_free(&sb);
            tfx_model_free(&m);
            continue;
          }
          nomem++;
          assert_int_equal(rc, TFX_E_NOMEM);
          assert_null(m.root);
          assert_null(m.graph);
          assert_int_equal(f->d.errors, 1);
          assert_non_null(strstr(f->d.items[0].msg, "out of memory"));
          tfx_model_free(&m);
        }
        assert_true(nomem > calls / 2);
        tfx_alloc_fail_arena(0);
      }
    tfx_sb_free(&ref);
  }
  free(graph.p);
  free(meta.p);
  free(saved.p);
}

/* ---- the wire walk's fast path (wire.c wire_fast) against its general way ---- */

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Walks b as each model type under several limits, with and without the fast path: every
 * figure a walk reports must be the same. Returns how many walks succeeded. */
static int walk_both_ways(const uint8_t *b, size_t n, const char *what) {
  static const ProtobufCMessageDescriptor *const ds[3] = {&tensorflow__graph_def__descriptor,
                                                          &tensorflow__meta_graph_def__descriptor,
                                                          &tensorflow__saved_model__descriptor};
  /* default; shallow; tight string and list limits (counted messages); list limit 2 only */
  static const tfx_wire_limits lims[4] = {{0, 0, 0, 0}, {3, 0, 0, 0}, {100, 12, 3, 0}, {1000, 0, 2, 0}};
  int ok = 0;
  for (int d = 0; d < 3; d++)
    for (int l = 0; l < 4; l++) {
      tfx_wire_limits gl = lims[l];
      gl.general_only = 1;
      tfx_wire_stats a, c;
      tfx_wire_status ra = tfx_io_wire_walk_lim(ds[d], b, n, &gl, &a);
      tfx_wire_status rc = tfx_io_wire_walk_lim(ds[d], b, n, &lims[l], &c);
      if (ra != rc || a.anomalies != c.anomalies || a.depth != c.depth || a.top_fields != c.top_fields ||
          a.err_off != c.err_off || strcmp(a.err, c.err) != 0) {
        fprintf(stderr, "%s as %s, limits %d: general %d (%zu anomalies, depth %u, top %llx, at %zu: %s), "
                "fast %d (%zu, %u, %llx, at %zu: %s)\n", what, ds[d]->name, l, ra, a.anomalies, a.depth,
                (unsigned long long)a.top_fields, a.err_off, a.err, rc, c.anomalies, c.depth,
                (unsigned long long)c.top_fields, c.err_off, c.err);
        fail();
      }
      ok += ra == TFX_WIRE_OK;
    }
  return ok;
}

/* Walks n_mut damaged copies of b (bit flips, random bytes, continuation bytes, random tags,
 * truncation) both ways. Returns the successful walks. */
static int mutate_and_walk(const uint8_t *b, size_t n, int n_mut, uint64_t seed, const char *what) {
  uint8_t *m = malloc(n ? n : 1);
  assert_non_null(m);
  int ok = walk_both_ways(b, n, what);
  for (int it = 0; it < n_mut && n > 0; it++) {
    size_t len = it % 7 == 0 ? 1 + xorshift(&seed) % n : n;
    memcpy(m, b, len);
    for (int k = 1 + (int)(xorshift(&seed) % 4); k > 0; k--) {
      size_t at = xorshift(&seed) % len;
      switch (xorshift(&seed) % 4) {
      case 0: m[at] ^= (uint8_t)(1u << xorshift(&seed) % 8); break;
      case 1: m[at] = (uint8_t)xorshift(&seed); break;
      case 2: m[at] = (uint8_t)(0x80 | xorshift(&seed)); break;
      default: m[at] = (uint8_t)((xorshift(&seed) % 16) << 3 | xorshift(&seed) % 8); break;
      }
    }
    ok += walk_both_ways(m, len, what);
  }
  free(m);
  return ok;
}

/* A SavedModel using more message types than the walk keeps tables for (so some messages
 * are walked without one), packed and unpacked repeated scalars, maps, oneofs, nesting. */
static const char *RICH_MG =
    "meta_info_def { meta_graph_version: \"v\" tags: \"serve\" tags: \"gpu\" tensorflow_version: \"2\" "
    "  stripped_op_list { op { name: \"X\" input_arg { name: \"a\" type: DT_FLOAT } attr { name: \"T\" type: \"type\" } } } "
    "  function_aliases { key: \"k\" value: \"v\" } } "
    "graph_def { "
    "  node { name: \"a\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
    "    attr { key: \"shape\" value { shape { dim { size: -1 } dim { size: 3 name: \"c\" } } } } } "
    "  node { name: \"w\" op: \"Const\" device: \"/cpu:0\" attr { key: \"value\" value { tensor { dtype: DT_FLOAT "
    "    tensor_shape { dim { size: 3 } } float_val: 1.5 float_val: 2 float_val: -3 } } } } "
    "  node { name: \"i\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_INT64 "
    "    tensor_shape { dim { size: 2 } } int64_val: 300 int64_val: -1 } } } } "
    "  node { name: \"m\" op: \"MatMul\" input: \"a\" input: \"w\" input: \"^i\" input: \"^w\" "
    "    attr { key: \"l\" value { list { i: 1 i: 2 i: 3 i: 200000 f: 0.5 s: \"xy\" b: true type: DT_INT32 shape { dim { size: 2 } } } } } "
    "    attr { key: \"f\" value { func { name: \"g\" attr { key: \"x\" value { i: 7 } } } } } } "
    "  library { function { signature { name: \"g\" input_arg { name: \"x\" type: DT_FLOAT } "
    "    output_arg { name: \"y\" type: DT_FLOAT } } node_def { name: \"n\" op: \"Identity\" input: \"x\" } "
    "    ret { key: \"y\" value: \"n:output:0\" } attr { key: \"_noinline\" value { b: true } } } } "
    "  versions { producer: 27 min_consumer: 12 bad_consumers: 3 bad_consumers: 4 } } "
    "saver_def { filename_tensor_name: \"save/Const:0\" max_to_keep: 5 sharded: true "
    "  keep_checkpoint_every_n_hours: 10000 version: V2 } "
    "collection_def { key: \"c1\" value { node_list { value: \"a\" value: \"b\" } } } "
    "collection_def { key: \"c2\" value { int64_list { value: 1 value: 2 } } } "
    "collection_def { key: \"c3\" value { float_list { value: 1 } } } "
    "collection_def { key: \"c4\" value { bytes_list { value: \"zz\" } } } "
    "signature_def { key: \"serving_default\" value { "
    "  inputs { key: \"x\" value { name: \"a:0\" dtype: DT_FLOAT tensor_shape { dim { size: -1 } } } } "
    "  outputs { key: \"y\" value { coo_sparse { values_tensor_name: \"v\" } dtype: DT_FLOAT } } "
    "  method_name: \"tensorflow/serving/predict\" defaults { key: \"d\" value { dtype: DT_INT32 int_val: 4 } } } } "
    "asset_file_def { tensor_info { name: \"asset:0\" } filename: \"vocab.txt\" }";

static void pack_text(fx *f, const ProtobufCMessageDescriptor *desc, const char *text, tfx_strbuf *out) {
  tfx_diag_clear(&f->d);
  ProtobufCMessage *m = tfx_pbtxt_parse(desc, text, strlen(text), "t", &f->a, NULL, &f->d);
  if (!m) tfx_diag_print(&f->d, stderr);
  assert_non_null(m);
  tfx_sb_init(out);
  assert_int_equal(tfx_io_pack(m, out), 0);
  assert_false(out->oom);
}

/* The fast path gives what the general way gives, on valid and damaged models of each type
 * (fails if it takes a field, a limit, a nesting level or an error position differently). */
static void wire_fast_path_agrees(void **state) {
  fx *f = *state;
  char *saved = malloc(strlen(RICH_MG) * 2 + 64);
  assert_non_null(saved);
  sprintf(saved, "saved_model_schema_version: 1 meta_graphs { %s } meta_graphs { %s }", RICH_MG, RICH_MG);
  tfx_strbuf gd, mg, sm;
  pack_text(f, &tensorflow__graph_def__descriptor, GD, &gd);
  pack_text(f, &tensorflow__meta_graph_def__descriptor, RICH_MG, &mg);
  pack_text(f, &tensorflow__saved_model__descriptor, saved, &sm);
  free(saved);
  /* the intact models are valid as their own type */
  tfx_wire_stats st;
  assert_int_equal(tfx_io_wire_walk(&tensorflow__saved_model__descriptor, (const uint8_t *)sm.data, sm.len, 0, &st),
                   TFX_WIRE_OK);
  assert_int_equal(tfx_io_wire_walk(&tensorflow__meta_graph_def__descriptor, (const uint8_t *)mg.data, mg.len, 0, &st),
                   TFX_WIRE_OK);
  int ok = 0;
  ok += mutate_and_walk((const uint8_t *)gd.data, gd.len, 2000, 1, "GraphDef");
  ok += mutate_and_walk((const uint8_t *)mg.data, mg.len, 2000, 2, "MetaGraphDef");
  ok += mutate_and_walk((const uint8_t *)sm.data, sm.len, 3000, 3, "SavedModel");
  assert_true(ok > 1000); /* many damaged copies still walk: the fast path ran */
  tfx_sb_free(&gd);
  tfx_sb_free(&mg);
  tfx_sb_free(&sm);
}

/* A regular file is loaded through a mapping (io.c tfx_io_map_file), anything else through
 * the read path: a FIFO gives the same model unmapped; an empty file and a file over the
 * size limit go the read path, which reports them as before. */
static void regular_files_are_mapped(void **state) {
  fx *f = *state;
  tfx_strbuf gd;
  tfx_diag_clear(&f->d);
  ProtobufCMessage *msg = tfx_pbtxt_parse(&tensorflow__graph_def__descriptor, GD, strlen(GD), "t", &f->a, NULL, &f->d);
  assert_non_null(msg);
  tfx_sb_init(&gd);
  assert_int_equal(tfx_io_pack(msg, &gd), 0);
  write_bytes(path_in(f, "g.pb"), gd.data, gd.len);
  write_bytes(path_in(f, "g.pbtxt"), GD, strlen(GD));
  const char *files[2] = {"g.pb", "g.pbtxt"};
  for (int i = 0; i < 2; i++) {
    tfx_model m;
    assert_int_equal(load(f, path_in(f, files[i]), NULL, &m), 0);
    assert_int_equal(m.mapped, 1);
    assert_int_equal(m.graph->n_node, 2);
    assert_string_equal(m.graph->node[1]->input[0], "a");
    tfx_strbuf again;
    tfx_sb_init(&again);
    assert_int_equal(tfx_io_pack(m.root, &again), 0);
    assert_int_equal(again.len, gd.len);
    assert_memory_equal(again.data, gd.data, gd.len);
    tfx_sb_free(&again);
    tfx_model_free(&m);
  }
  /* a FIFO: read, not mapped, the same model */
  char fifo[512];
  snprintf(fifo, sizeof fifo, "%s", path_in(f, "fifo.pb"));
  assert_int_equal(mkfifo(fifo, 0600), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    FILE *w = fopen(fifo, "wb");
    size_t put = w ? fwrite(gd.data, 1, gd.len, w) : 0;
    if (w) fclose(w);
    _exit(put == gd.len ? 0 : 1);
  }
  tfx_model m;
  int rc = load(f, fifo, NULL, &m);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  assert_int_equal(rc, 0);
  assert_int_equal(m.mapped, 0);
  assert_int_equal(m.graph->n_node, 2);
  assert_string_equal(m.graph->node[1]->input[0], "a");
  tfx_model_free(&m);
  /* empty: an empty GraphDef, read */
  write_bytes(path_in(f, "empty.pb"), "", 0);
  assert_int_equal(load(f, path_in(f, "empty.pb"), NULL, &m), 0);
  assert_int_equal(m.mapped, 0);
  assert_int_equal(m.graph->n_node, 0);
  tfx_model_free(&m);
  /* over the size limit: not mapped, refused by the read path */
  tfx_load_opts small = {.max_file_size = gd.len - 1};
  expect_fail(f, path_in(f, "g.pb"), &small, "larger than the limit");
  tfx_load_opts exact = {.max_file_size = gd.len};
  assert_int_equal(load(f, path_in(f, "g.pb"), &exact, &m), 0);
  assert_int_equal(m.mapped, 1);
  tfx_model_free(&m);
  tfx_sb_free(&gd);
}

/* Every MANIFEST row: ok rows load with the recorded kind, wire and top-level node count; the
 * rest (malformed, fails, GraphDebugInfo) fail with one error. */
static void corpus_manifest(void **state) {
  fx *f = *state;
  const char *dir = getenv("TFXC_CORPUS");
  if (!dir || !*dir) skip();
  char path[4096];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
  FILE *fp = fopen(path, "r");
  if (!fp) skip();
  char line[8192];
  int rows = 0, loaded = 0, failures = 0, bad = 0;
  while (fgets(line, sizeof line, fp)) {
    if (rows++ == 0) continue; /* header */
    char *col[9] = {0};
    int nc = 0;
    for (char *s = line; s && nc < 9;) {
      col[nc++] = s;
      s = strpbrk(s, "\t\n");
      if (s) *s++ = 0;
    }
    if (nc < 9) continue;
    /* a MANIFEST path too long for the buffer is a test error, not a silent truncation */
    assert_true(strlen(dir) < 2048 && strlen(col[0]) < 2048);
    snprintf(path, sizeof path, "%.2047s/%.2047s", dir, col[0]);
    const char *fmt = col[5], *check = col[8];
    int expect_ok = strcmp(check, "ok") == 0 && !strstr(fmt, "GraphDebugInfo");
    tfx_model m;
    int rc = load(f, path, NULL, &m);
    if (expect_ok) {
      char want[64];
      const char *kind = rc == 0 ? tfx_msg_kind_name(m.kind) + strlen("tensorflow.") : "";
      snprintf(want, sizeof want, "%s (%s)", rc == 0 && m.wire == TFX_WIRE_TEXT ? "pbtxt" : "pb", kind);
      if (rc != 0 || strcmp(want, fmt) != 0 || m.graph->n_node != strtoul(col[6], NULL, 10)) {
        fprintf(stderr, "%s: expected %s with %s nodes, got rc %d %s %zu nodes\n", col[0], fmt, col[6], rc, want,
                rc == 0 ? m.graph->n_node : 0);
        tfx_diag_print(&f->d, stderr);
        bad++;
      } else {
        loaded++;
      }
    } else {
      if (rc != TFX_EXIT_INPUT || f->d.errors != 1) {
        fprintf(stderr, "%s (%s): expected one error, got rc %d\n", col[0], check, rc);
        bad++;
      } else {
        failures++;
      }
    }
    tfx_model_free(&m);
  }
  fclose(fp);
  fprintf(stderr, "corpus: %d loaded, %d failed as expected, %d wrong\n", loaded, failures, bad);
  assert_int_equal(bad, 0);
  assert_true(loaded > 200);
}

/* The tests that need the corpus (TFXC_CORPUS) run as their own ctest test (`--needs-data`, exit 77 =
 * skipped when it is absent: TFXC_UNIT_DATA_PART in tests/CMakeLists.txt); the others run
 * without it. */
static int data_available(void) {
  const char *dir = getenv("TFXC_CORPUS");
  char path[4096];
  if (!dir || !*dir) return 0;
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
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
        cmocka_unit_test_setup_teardown(allocation_failures_in_load, fx_setup, fx_teardown),
        cmocka_unit_test_setup_teardown(parallel_unpack_allocation_failures, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  if (argc > 1 && strcmp(argv[1], "--needs-data") == 0) {
    if (!data_available()) {
      printf("skipped: the corpus (TFXC_CORPUS) not found\n");
      return 77;
    }
    const struct CMUnitTest data_tests[] = {
        cmocka_unit_test_setup_teardown(corpus_manifest, fx_setup, fx_teardown),
    };
    return cmocka_run_group_tests(data_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(binary_kinds_are_sniffed, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(text_kinds_are_sniffed, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(bad_inputs_fail_cleanly, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(savedmodel_directory_and_tags, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(binary_depth_limit, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(write_text_and_binary_then_load, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(removed_nodes_are_given_back, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(binary_load_gives_back_unpack_scratch, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(wire_fast_path_agrees, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(regular_files_are_mapped, fx_setup, fx_teardown),
      cmocka_unit_test_setup_teardown(parallel_unpack_is_the_same, fx_setup, fx_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
