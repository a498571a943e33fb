/* Fuzz target: bytes -> tfx_pack_load (header, hash, framing, limits, verifier) -> if the pack
 * is accepted: disassemble it, and run every program on a small fixed graph and its ScopeTree
 * (scope programs on every scope, select programs once, map programs on every node) with a
 * small step and heap budget and a host that accepts every effect (it only reads what it is
 * given, so ASan sees every borrowed string and value). Run-time errors are fine; crashes,
 * sanitizer reports, leaks and hangs are not. Properties (abort() when broken):
 *  - a refused pack reports an error and leaves the pack empty; an accepted one reports none;
 *  - an accepted pack writes, the written bytes load again, and writing that gives the same
 *    bytes (the verifier accepts what the writer produces; the writer is deterministic);
 *  - a run that returns non-zero has reported an error;
 *  - the pack's dataflow rewrites (fusion/dataflow.h) run over a copy of the graph, with and
 *    without the rule-signature screen, and agree: the loader does not trust a loaded pack's
 *    signatures (fixed finding: tests/fuzz/regressions/README.md). A third run trusts them
 *    (see exercise_flow): memory safety, and agreement for a pack loaded as given.
 * The hash is part of the header, so plain mutations are refused early: when an input that
 * starts with the magic is refused, the target patches its payload size and hash and loads it
 * again, so mutations reach the section parser and the verifier (the unpatched input is
 * always tried first, so the header checks are fuzzed too). FUZZ_FIX_HASH=0 turns that off. */
#include "fuzz_common.h"

#include "fusion/dataflow.h"
#include "io/pbtxt.h"
#include "util/arena.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "vm/host.h"
#include "vm/pack.h"
#include "vm/vm.h"

/* A small graph with nested scopes, control inputs, several ports, attributes of every kind
 * and Const tensors, using op types the documented rule examples test. */
static const char graph_text[] =
    "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
    "node { name: 'ln/moments/mean' op: 'Mean' input: 'x' input: 'ln/moments/axes' "
    "  attr { key: 'keep_dims' value { b: true } } }\n"
    "node { name: 'ln/moments/axes' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } }\n"
    "  attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1 int_val: 2 } } } }\n"
    "node { name: 'ln/moments/SquaredDifference' op: 'SquaredDifference' input: 'x' input: 'ln/moments/mean' }\n"
    "node { name: 'ln/moments/variance' op: 'Mean' input: 'ln/moments/SquaredDifference' input: 'ln/moments/axes' }\n"
    "node { name: 'ln/batchnorm/add' op: 'Add' input: 'ln/moments/variance' input: 'ln/batchnorm/eps' }\n"
    "node { name: 'ln/batchnorm/eps' op: 'Const' attr { key: 'value' value { tensor { dtype: DT_FLOAT float_val: 1e-5 } } } }\n"
    "node { name: 'ln/batchnorm/Rsqrt' op: 'Rsqrt' input: 'ln/batchnorm/add' }\n"
    "node { name: 'ln/batchnorm/mul' op: 'Mul' input: 'ln/batchnorm/Rsqrt' input: 'x' }\n"
    "node { name: 'ln/batchnorm/mul_1' op: 'Mul' input: 'x' input: 'ln/batchnorm/mul' }\n"
    "node { name: 'ln/batchnorm/mul_2' op: 'Mul' input: 'ln/moments/mean' input: 'ln/batchnorm/mul' }\n"
    "node { name: 'ln/batchnorm/sub' op: 'Sub' input: 'x' input: 'ln/batchnorm/mul_2' }\n"
    "node { name: 'ln/batchnorm/add_1' op: 'AddV2' input: 'ln/batchnorm/mul_1' input: 'ln/batchnorm/sub' "
    "  input: '^ln/moments/axes' }\n"
    "node { name: 'cell/MatMul' op: 'MatMul' input: 'ln/batchnorm/add_1' input: 'x' "
    "  attr { key: 'transpose_a' value { b: false } } attr { key: 'T' value { type: DT_FLOAT } } }\n"
    "node { name: 'cell/split' op: 'Split' input: 'ln/moments/axes' input: 'cell/MatMul' "
    "  attr { key: 'num_split' value { i: 4 } } attr { key: 'data_format' value { s: 'NHWC' } }\n"
    "  attr { key: 'scale' value { f: 0.5 } } attr { key: 'shape' value { shape { dim { size: -1 } dim { size: 3 } } } }\n"
    "  attr { key: 'l' value { list { i: 1 i: 2 s: 'a' } } } }\n"
    "node { name: 'cell/Sigmoid' op: 'Sigmoid' input: 'cell/split:1' }\n"
    "node { name: 'cell/Tanh' op: 'Tanh' input: 'cell/split:3' }\n"
    "node { name: 'cell/while/Merge' op: 'Merge' input: 'cell/Tanh' input: 'cell/while/Next' }\n"
    "node { name: 'cell/while/Next' op: 'NextIteration' input: 'cell/while/Merge' }\n"
    "node { name: 'map/ResizeToRange/Const' op: 'Const' attr { key: 'value' value { tensor { dtype: DT_INT64 int64_val: 7 } } } }\n"
    "node { name: 'map/ResizeBilinear' op: 'ResizeBilinear' input: 'x' input: 'map/ResizeToRange/Const' "
    "  attr { key: 'align_corners' value { b: true } } }\n"
    "node { name: 'out' op: 'Identity' input: 'cell/Sigmoid' input: 'map/ResizeBilinear' input: '^cell/while/Merge' }\n";

#define STEP_BUDGET 20000u
#define MEM_BUDGET ((size_t)1 << 20)

typedef struct fixture {
  tfx_arena arena;
  tfx_module m;
  tfx_scope_tree tree;
  int ready;
} fixture;

static fixture fx;

static void fixture_free(void) {
  if (!fx.ready) return;
  tfx_scope_tree_free(&fx.tree);
  tfx_module_free(&fx.m);
  tfx_arena_free(&fx.arena);
  fx.ready = 0;
}

static void fixture_init(void) {
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_arena_init(&fx.arena);
  Tensorflow__GraphDef *gd = (Tensorflow__GraphDef *)tfx_pbtxt_parse(
      &tensorflow__graph_def__descriptor, graph_text, sizeof graph_text - 1, "fixed.pbtxt", &fx.arena, NULL, &d);
  if (!gd) tfx_diag_print(&d, stderr);
  FUZZ_CHECK(gd != NULL, "the fixed graph does not parse");
  int rc = tfx_module_build(&fx.m, gd, "fixed.pbtxt", &d);
  if (rc != 0) tfx_diag_print(&d, stderr);
  FUZZ_CHECK(rc == 0, "the fixed graph does not index");
  rc = tfx_scope_tree_build(&fx.tree, &fx.m.main, &d);
  FUZZ_CHECK(rc == 0, "the fixed graph has no scope tree");
  tfx_diag_free(&d);
  fx.ready = 1;
  atexit(fixture_free);
}

/* ---- a host that accepts everything; it touches every byte it is given ---- */

typedef struct host_ctx {
  uint64_t effects;
  uint64_t sum; /* folded bytes, so reads are not optimized away */
  tfx_strbuf fmt;
} host_ctx;

static void touch(host_ctx *h, const char *s, size_t n) {
  h->effects++;
  if (!s) return;
  for (size_t i = 0; i < n; i++) h->sum = h->sum * 31u + (unsigned char)s[i];
}
static void touch_value(host_ctx *h, const tfx_value *v) {
  tfx_sb_reset(&h->fmt);
  tfx_vm_format_value(&h->fmt, v, 1);
  touch(h, h->fmt.data, h->fmt.len);
}
static void touch_ids(host_ctx *h, const uint32_t *ids, size_t n) {
  h->effects++;
  for (size_t i = 0; i < n; i++) h->sum = h->sum * 31u + ids[i];
}

static int h_begin(void *c) { touch(c, NULL, 0); return 0; }
static int h_end(void *c) { touch(c, NULL, 0); return 0; }
static int h_scopes(void *c, const uint32_t *s, size_t n) { touch_ids(c, s, n); return 0; }
static int h_str(void *c, const char *s, size_t n) { touch(c, s, n); return 0; }
static int h_map(void *c, int dir, const char *k, size_t kl, int64_t from, int64_t to) {
  touch(c, k, kl);
  ((host_ctx *)c)->sum += (uint64_t)dir + (uint64_t)from + (uint64_t)to;
  return 0;
}
static int h_key(void *c, int dir, const char *k, size_t kl, int flags, uint32_t pc) {
  touch(c, k, kl);
  ((host_ctx *)c)->sum += (uint64_t)dir + (uint64_t)flags + pc;
  return 0;
}
static int h_ids(void *c, const uint32_t *s, size_t n) { touch_ids(c, s, n); return 0; }
static int h_named_value(void *c, const char *name, const tfx_value *v) {
  touch(c, name, strlen(name));
  touch_value(c, v);
  return 0;
}
static int h_node_new(void *c, const char *n, size_t nl, const char *t, size_t tl) {
  touch(c, n, nl);
  touch(c, t, tl);
  return 0;
}
static int h_node_input(void *c, const char *s, size_t sl, int64_t port) {
  touch(c, s, sl);
  ((host_ctx *)c)->sum += (uint64_t)port;
  return 0;
}
static int h_value(void *c, const tfx_value *v) { touch_value(c, v); return 0; }
static int h_flow_input(void *c, uint32_t node, int64_t slot) {
  ((host_ctx *)c)->sum += node + (uint64_t)slot;
  return 0;
}
static int h_flow_out(void *c, uint32_t node, int64_t port, const char *t, size_t tl, uint32_t tnode,
                      int64_t tport) {
  if (t) touch(c, t, tl);
  ((host_ctx *)c)->sum += node + (uint64_t)port + tnode + (uint64_t)tport;
  return 0;
}
static int h_format(void *c, int dir, int64_t port, const char *f, size_t n) {
  touch(c, f, n);
  ((host_ctx *)c)->sum += (uint64_t)dir + (uint64_t)port;
  return 0;
}
static int h_node_out(void *c, int64_t index, const char *n, size_t nl, int64_t port) {
  touch(c, n, nl);
  ((host_ctx *)c)->sum += (uint64_t)index + (uint64_t)port;
  return 0;
}
static int h_auto(void *c) { touch(c, NULL, 0); return 0; }
static int h_drop(void *c, const char *name) { touch(c, name, strlen(name)); return 0; }
static int h_port(void *c, int dir, const char *name, int64_t index) {
  touch(c, name, strlen(name));
  ((host_ctx *)c)->sum += (uint64_t)dir + (uint64_t)index;
  return 0;
}
static int h_optional(void *c, const char *name, int64_t index, int connected) {
  touch(c, name, strlen(name));
  ((host_ctx *)c)->sum += (uint64_t)index + (uint64_t)connected;
  return 0;
}
static int h_dynamic(void *c, int dir, const char *name, int64_t count) {
  touch(c, name, strlen(name));
  ((host_ctx *)c)->sum += (uint64_t)dir + (uint64_t)count;
  return 0;
}
static int h_delete(void *c, int64_t index) {
  ((host_ctx *)c)->sum += (uint64_t)index;
  return 0;
}
static const char *h_format_of(void *c, uint32_t node, int64_t port) {
  (void)c;
  if (port < 0 || port > 8) return NULL;
  return (node + (uint64_t)port) % 3 == 0 ? "NCHW" : (node % 3 == 1 ? "NHWC" : NULL);
}
static int64_t h_dtype_of(void *c, uint32_t node, int64_t port) {
  (void)c;
  if (port < 0 || port > 8) return -1;
  return (int64_t)(1 + (node + (uint64_t)port) % 3);
}

static const tfx_vm_host host = {
  .result_begin = h_begin, .result_end = h_end, .result_scopes = h_scopes,
  .result_name = h_str, .result_type = h_str, .result_description = h_str,
  .result_map = h_map, .result_key = h_key, .result_absorb = h_ids, .result_attr = h_named_value,
  .result_invalid = h_str,
  .node_new = h_node_new, .node_input = h_node_input, .node_const = h_value,
  .node_attr = h_named_value, .node_format = h_format, .node_out = h_node_out,
  .map_type = h_str, .map_auto = h_auto, .map_attr = h_named_value, .map_drop = h_drop,
  .map_format = h_format, .map_port = h_port, .map_optional = h_optional,
  .map_dynamic = h_dynamic, .map_delete_input = h_delete,
  .format_of = h_format_of, .dtype_of = h_dtype_of,
  .flow_input = h_flow_input, .flow_out = h_flow_out, .flow_remove = h_ids,
};

static void check_result(host_ctx *h, const tfx_pack *p, const tfx_vm_result *r, int rc, const tfx_diag *d) {
  if (rc != 0) {
    FUZZ_CHECK(tfx_diag_has_errors(d), "a VM run failed (%d) without reporting an error", rc);
    return;
  }
  touch_value(h, &r->value);
  FUZZ_CHECK(r->n_fails == r->n_failed, "bad failure counts %u/%u (a successful run records every failure)",
             r->n_fails, r->n_failed);
  for (uint32_t i = 0; i < r->n_fails; i++) {
    const tfx_vm_failure *f = &r->fails[i];
    FUZZ_CHECK(f->feature < p->n_features || f->feature == TFX_PACK_NONE, "failure names feature %u of %u",
               f->feature, p->n_features);
    touch_value(h, &f->expected);
    touch_value(h, &f->found);
  }
}

/* Runs every program of the pack in the given VM over the fixture. */
static void run_all(tfx_vm *vm, const tfx_pack *p, host_ctx *h, tfx_diag *d) {
  for (uint32_t k = 0; k < p->n_progs; k++) {
    tfx_vm_result r;
    int rc;
    switch (p->progs[k].kind) {
    case TFX_PK_SCOPE:
      for (uint32_t s = 0; s < fx.tree.n_scopes; s++) {
        rc = tfx_vm_run_scope(vm, k, s, &r, d);
        check_result(h, p, &r, rc, d);
      }
      break;
    case TFX_PK_SELECT:
      rc = tfx_vm_run_select(vm, k, &r, d);
      check_result(h, p, &r, rc, d);
      break;
    case TFX_PK_MAP:
      for (uint32_t n = 0; n < fx.m.main.n_nodes; n++) {
        rc = tfx_vm_run_map(vm, k, n, &r, d);
        check_result(h, p, &r, rc, d);
      }
      break;
    default:
      FUZZ_CHECK(0, "the verifier accepted program %u of kind %u", k, p->progs[k].kind);
    }
  }
}

/* Verifier's contract, checked from the outside: an accepted pack round-trips. */
static void check_roundtrip(const tfx_pack *p) {
  tfx_strbuf b1, b2;
  tfx_sb_init(&b1);
  tfx_sb_init(&b2);
  FUZZ_CHECK(tfx_pack_write(p, &b1) == 0 && !b1.oom, "tfx_pack_write of an accepted pack failed");
  tfx_pack q;
  tfx_diag d;
  tfx_diag_init(&d);
  int rc = tfx_pack_load(&q, b1.data, b1.len, "rewritten.tfxb", &d);
  if (rc != 0) tfx_diag_print(&d, stderr);
  FUZZ_CHECK(rc == 0, "the rewritten pack does not load");
  FUZZ_CHECK(tfx_pack_write(&q, &b2) == 0 && !b2.oom, "tfx_pack_write of the reloaded pack failed");
  FUZZ_CHECK(b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0, "write/load/write is not stable");
  tfx_pack_free(&q);
  tfx_diag_free(&d);
  tfx_sb_free(&b1);
  tfx_sb_free(&b2);
}

static void exercise_flow(const tfx_pack *p, int patched);

static void exercise(const tfx_pack *p, int patched) {
  tfx_strbuf b;
  tfx_sb_init(&b);
  tfx_vm_disasm(p, &b);
  FUZZ_CHECK(!b.oom, "out of memory disassembling");
  for (uint32_t pc = 0; pc < p->n_code; pc++) { /* queries the disassembler does not make */
    uint32_t k = tfx_pack_prog_at(p, pc);
    FUZZ_CHECK(k == TFX_PACK_NONE || (k < p->n_progs && p->progs[k].start <= pc && pc < p->progs[k].end),
               "tfx_pack_prog_at(%u) = %u", pc, k);
    const tfx_vm_loc *l = tfx_pack_loc_at(p, pc);
    if (l) tfx_sb_puts(&b, tfx_pack_file(p, l->file));
    const char *rn = tfx_pack_rule_name_at(p, pc);
    if (rn) tfx_sb_puts(&b, rn);
  }
  tfx_sb_free(&b);
  check_roundtrip(p);

  host_ctx h = {0};
  tfx_sb_init(&h.fmt);
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_intern subtypes;
  tfx_intern_init(&subtypes);
  tfx_vm *vm = tfx_vm_new(p);
  FUZZ_CHECK(vm != NULL, "tfx_vm_new failed");
  int rc = tfx_vm_link(vm, &fx.m.main, &fx.m.ops, &fx.tree, &subtypes, &d);
  FUZZ_CHECK(rc == 0, "tfx_vm_link failed (%d)", rc);
  for (uint32_t k = 0; k < p->n_consts; k++) { /* link queries: must not crash on any constant */
    h.sum += tfx_vm_const_op(vm, k);
    h.sum += tfx_vm_const_subtype(vm, k);
  }
  tfx_vm_set_host(vm, &host, &h);
  tfx_vm_set_budget(vm, STEP_BUDGET, MEM_BUDGET);
  run_all(vm, p, &h, &d);
  tfx_vm_set_flags(vm, TFX_VM_EXPLAIN_ALL); /* the explain path records every failure */
  run_all(vm, p, &h, &d);
  fuzz_diag_dump(&d);
  tfx_vm_free(vm);
  tfx_intern_free(&subtypes);
  tfx_diag_free(&d);
  tfx_sb_free(&h.fmt);
  exercise_flow(p, patched);
}

/* Dataflow rewrites (the pack's `rewrite` rules, every one enabled) on a fresh copy of the
 * fixed graph, rounds until nothing changes (at most 4), twice: with the rule-signature screen
 * (the pack's "#sig" strings, parsed here from whatever the mutation left) and without it.
 * Properties: a failing round reports an error; a rewritten graph indexes again; when both
 * runs succeed they give the same graph bytes and the same rewrites (the screen only skips
 * programs that would return false). */
static int flow_run(const tfx_pack *p, int no_screen, tfx_strbuf *out) {
  tfx_arena A;
  tfx_arena_init(&A);
  tfx_diag d;
  tfx_diag_init(&d);
  Tensorflow__GraphDef *gd = (Tensorflow__GraphDef *)tfx_pbtxt_parse(
      &tensorflow__graph_def__descriptor, graph_text, sizeof graph_text - 1, "fixed.pbtxt", &A, NULL, &d);
  FUZZ_CHECK(gd != NULL, "the fixed graph does not parse");
  tfx_module m;
  FUZZ_CHECK(tfx_module_build(&m, gd, "fixed.pbtxt", &d) == 0, "the fixed graph does not index");
  tfx_flow_engine e;
  int any = 0, ok = 1;
  FUZZ_CHECK(tfx_flow_engine_init(&e, p, NULL, &any, &d) == 0, "tfx_flow_engine_init failed");
  e.no_screen = no_screen;
  tfx_vm_set_budget(e.vm, STEP_BUDGET, MEM_BUDGET);
  tfx_flow_report rep;
  tfx_flow_report_init(&rep);
  for (uint32_t round = 1; round <= 4 && ok; round++) {
    uint32_t changed = 0;
    int rc = tfx_flow_round(&e, &m, &m.main, gd, &A, &rep, round, &changed, &d);
    if (rc) {
      FUZZ_CHECK(tfx_diag_has_errors(&d), "a dataflow round failed (%d) without reporting an error", rc);
      ok = 0;
      break;
    }
    if (!changed) break;
    tfx_module_free(&m);
    rc = tfx_module_build(&m, gd, "fixed.pbtxt", &d);
    if (rc) tfx_diag_print(&d, stderr);
    FUZZ_CHECK(rc == 0, "the graph does not index after %u dataflow rewrites", changed);
  }
  if (ok) {
    size_t n = protobuf_c_message_get_packed_size(&gd->base);
    uint8_t *buf = malloc(n ? n : 1);
    FUZZ_CHECK(buf != NULL, "out of memory in the fuzz harness");
    protobuf_c_message_pack(&gd->base, buf);
    tfx_sb_add(out, buf, n);
    free(buf);
    for (uint32_t i = 0; i < rep.n; i++) { /* the rewrites, without the screen's own counts */
      tfx_sb_puts(out, rep.v[i].rule);
      tfx_sb_puts(out, rep.v[i].root);
    }
    tfx_strbuf j;
    tfx_sb_init(&j);
    FUZZ_CHECK(tfx_flow_report_json(&rep, &j) == 0, "tfx_flow_report_json failed");
    tfx_sb_free(&j);
  }
  fuzz_diag_dump(&d);
  tfx_flow_report_free(&rep);
  tfx_flow_engine_free(&e);
  tfx_module_free(&m);
  tfx_diag_free(&d);
  tfx_arena_free(&A);
  return ok;
}

static void exercise_flow(const tfx_pack *p, int patched) {
  int has = 0;
  for (uint32_t r = 0; r < p->n_rules && !has; r++) has = p->rules[r].kind == TFX_RULE_FLOW;
  if (!has) return;
  tfx_strbuf a, b, c;
  tfx_sb_init(&a);
  tfx_sb_init(&b);
  tfx_sb_init(&c);
  /* As loaded: the loader does not trust a pack's signatures (vm/pack.h, sigs_trusted), so the
   * screen must not change anything, whatever the mutation did to them. */
  FUZZ_CHECK(!p->sigs_trusted, "tfx_pack_load trusts the signatures of a pack from bytes");
  int ok_a = flow_run(p, 0, &a), ok_b = flow_run(p, 1, &b);
  FUZZ_CHECK(!a.oom && !b.oom, "out of memory in the fuzz harness");
  if (ok_a && ok_b)
    FUZZ_CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0,
               "the rewrites of a loaded pack differ with and without the rule-signature screen");
  /* Trusted, as if this build's compiler had written them: the signature parser and tester
   * see whatever strings the mutation left (memory safety). A pack loaded as given carries
   * the compiler's signatures, which mirror its programs: there the screen agrees too; a pack
   * whose hash the target patched after mutating it may not (that is why the loader does not
   * trust them). */
  tfx_pack q = *p; /* shallow: shares p's arena, never freed */
  q.sigs_trusted = 1;
  int ok_c = flow_run(&q, 0, &c);
  FUZZ_CHECK(!c.oom, "out of memory in the fuzz harness");
  if (ok_c && ok_b && !patched)
    FUZZ_CHECK(c.len == b.len && memcmp(c.data, b.data, c.len) == 0,
               "the rewrites differ with and without the rule-signature screen");
  tfx_sb_free(&a);
  tfx_sb_free(&b);
  tfx_sb_free(&c);
}

static void le64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Loads bytes; an accepted pack is exercised. Returns 1 if accepted. */
static int try_load(const uint8_t *data, size_t size, int patched) {
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_pack p;
  int rc = tfx_pack_load(&p, data, size, "fuzz.tfxb", &d);
  if (rc == 0) {
    FUZZ_CHECK(!tfx_diag_has_errors(&d), "tfx_pack_load returned 0 after reporting an error");
    exercise(&p, patched);
  } else {
    FUZZ_CHECK(tfx_diag_has_errors(&d), "tfx_pack_load failed (%d) without reporting an error", rc);
    FUZZ_CHECK(p.n_consts == 0 && p.n_code == 0 && p.n_progs == 0 && p.n_rules == 0,
               "a refused pack is not empty");
  }
  fuzz_diag_dump(&d);
  tfx_pack_free(&p);
  tfx_diag_free(&d);
  return rc == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!fx.ready) fixture_init();
  if (try_load(data, size, 0)) return 0;
  static int fix = -1;
  if (fix < 0) fix = getenv("FUZZ_FIX_HASH") == NULL || strcmp(getenv("FUZZ_FIX_HASH"), "0") != 0;
  if (!fix || size < TFX_PACK_HEADER_SIZE || memcmp(data, TFX_PACK_MAGIC, 4) != 0) return 0;
  /* Patch the payload size and the hash so the mutation reaches the sections. */
  uint8_t *copy = malloc(size);
  FUZZ_CHECK(copy != NULL, "out of memory in the fuzz harness");
  memcpy(copy, data, size);
  le64(copy + 8, (uint64_t)(size - TFX_PACK_HEADER_SIZE));
  le64(copy + 16, tfx_pack_hash(copy + TFX_PACK_HEADER_SIZE, size - TFX_PACK_HEADER_SIZE));
  if (memcmp(copy, data, size) != 0) try_load(copy, size, 1);
  free(copy);
  return 0;
}
