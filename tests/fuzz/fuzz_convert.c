/* Fuzz target: bytes -> a binary GraphDef -> tfxc's conversion pipeline in process, end to
 * end: load, prune, index, scope-tree, scope-fusion with every scope-fusion pass of the rules
 * enabled, op mapping (with --passthrough-unknown, so graphs of made-up op types still reach
 * the lowering), lowering to GE IR, and the four GE emitters in memory.
 * The rules are the embedded stdlib plus the passes in extra_rules below (which match the
 * small graphs of the seeds, so fusion and apply are reached even while the stdlib is small),
 * compiled once per process; every input borrows that pack. The pipeline is the built-in one
 * with "rules" replaced by a pass that lends the pack to the context, and without "emit-tf"
 * and "emit-ge" (no output files: the emitters run on ctx->ge after the pipeline). io has no
 * in-memory entry point, so the bytes go to one temporary file per process, as in
 * fuzz_model_load. The input limits are lowered (depth 64, strings of 1 MiB, lists and nodes
 * of 100 000, scope depth 64) so their paths are fuzzed too. Properties (abort() when broken):
 *  - the pipeline fails exactly when an error was reported;
 *  - after a successful run the rewritten GraphDef indexes without errors (strict), its index
 *    and ScopeTree keep their invariants, and the context's own index is consistent;
 *  - a successful run has a GE model, and the emitters keep the properties of fuzz_ge.h;
 *    lowering it again straight into the .air (streaming) gives the emitter's .air bytes
 *    (air = tfx_io_pack, ge-pbtxt parses back to the air bytes, ge-json is valid JSON, ...),
 *    and the air bytes unpack as a ge.proto.ModelDef and pack back identically. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, pwrite, ftruncate */

#include "fuzz_ge.h"
#include "fuzz_file.h"

#include <limits.h>

#include "passes/context.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "rules/compile.h"
#include "rules/load.h"
#include "stdlib_embed.h"
#include "tfxc/tfxc.h"
#include "vm/pack.h"

/* Opt-in passes (not general) over simple scopes; the fuzz target enables every pass. */
static const char extra_rules[] =
    "pass FuzzAddMul {\n"
    "  group { layer { pattern addmul { count Add == 1; count Mul == 1; } } }\n"
    "  fuse s in addmul {\n"
    "    type FusedAddMul;\n"
    "    input \"Add\" { 0 -> 0, 1 -> 1 };\n"
    "    input \"Mul\" { 1 -> 2 };\n"
    "    output \"Mul\" { 0 -> 0 };\n"
    "  }\n"
    "}\n"
    "pass FuzzLayers {\n"
    "  group {\n"
    "    layer { pattern cell { count MatMul == 1; attr Split.num_split == 4; } }\n"
    "    layer { pattern while { scopes cell == 1; present Merge; } }\n"
    "  }\n"
    "  require not any(s in scopes(while) : s.name contains \"skip\");\n"
    "  fuse w in while where w.parent != none {\n"
    "    type DynamicRNN;\n"
    "    name (before(w.name, \"while\") ?? w.name) + \"rnn\";\n"
    "    input \"cell/MatMul\" { 0 -> 0 };\n"
    "    output \"Exit\" { 0 -> 0 };\n"
    "  }\n"
    "}\n"
    "pass FuzzMulti {\n"
    "  group { layer { pattern lngrad { count Mul == 2; has_child \"grad\"; } } }\n"
    "  fuse s in lngrad {\n"
    "    type ScopeToMultiNodes;\n"
    "    input \"grad/Mul\" { 0 -> 0, 1 -> 1 };\n"
    "    output \"grad/Mul_1\" { 0 -> 0 };\n"
    "    node g: Mul(in 0, in 1) { format input 0 = \"ND\"; }\n"
    "    node a: Add(g:0, g:0);\n"
    "    out 0 = a:0;\n"
    "  }\n"
    "}\n"
    "pass FuzzNamed {\n"
    "  group { layer { pattern named { name == \"fuse\"; absent Placeholder; } } }\n"
    "  fuse s in named {\n"
    "    type Named;\n"
    "    attr n = len(s.name);\n"
    "    absorb find(s, \"x\");\n"
    "    if s.name contains \"a\" { invalid \"has an a\"; }\n"
    "  }\n"
    "}\n";

static tfx_pack shared_pack;
static char *enable_list;  /* every scope pass of shared_pack, comma-separated */
static int ready;

static void cleanup(void) {
  tfx_pack_free(&shared_pack);
  free(enable_list);
}

static int is_rule_file(const char *name) {
  size_t n = strlen(name);
  return (n > 10 && strcmp(name + n - 10, ".scoperule") == 0) || (n > 6 && strcmp(name + n - 6, ".opmap") == 0);
}

/* Compiles the stdlib plus extra_rules; when the stdlib does not compile (it is being worked
 * on), extra_rules alone. */
static void build_pack(void) {
  for (int with_stdlib = 1; with_stdlib >= 0; with_stdlib--) {
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_ruleset *rs = tfx_ruleset_new();
    FUZZ_CHECK(rs != NULL, "out of memory");
    if (with_stdlib)
      for (unsigned i = 0; i < tfx_stdlib_count; i++)
        if (is_rule_file(tfx_stdlib_files[i].name))
          tfx_rules_load_buffer(rs, tfx_stdlib_files[i].name, tfx_stdlib_files[i].data,
                                (size_t)tfx_stdlib_files[i].len, &d);
    tfx_rules_load_buffer(rs, "<fuzz>/extra.scoperule", extra_rules, sizeof extra_rules - 1, &d);
    tfx_rules_check(rs, NULL, &d);
    int rc = tfx_ruleset_errors(rs) ? TFX_EXIT_RULES : tfx_rules_compile(rs, &shared_pack, &d);
    tfx_ruleset_free(rs);
    if (rc != 0) {
      fprintf(stderr, "fuzz_convert: the %s rules do not compile:\n", with_stdlib ? "stdlib + extra" : "extra");
      tfx_diag_print(&d, stderr);
    }
    tfx_diag_free(&d);
    if (rc == 0) break;
    FUZZ_CHECK(with_stdlib, "the fuzz target's own rules do not compile");
  }
  tfx_strbuf b;
  tfx_sb_init(&b);
  for (uint32_t i = 0; i < shared_pack.n_rules; i++) {
    if (shared_pack.rules[i].kind != TFX_RULE_PASS) continue;
    if (b.len) tfx_sb_putc(&b, ',');
    tfx_sb_puts(&b, tfx_pack_str(&shared_pack, shared_pack.rules[i].name));
  }
  FUZZ_CHECK(!b.oom, "out of memory");
  enable_list = strdup(tfx_sb_cstr(&b));
  FUZZ_CHECK(enable_list != NULL, "out of memory");
  tfx_sb_free(&b);
}

static void setup(void) {
  tfx_pack_init(&shared_pack);
  build_pack();
  atexit(cleanup);
  ready = 1;
}

/* Lends the shared pack to the context. A pass after "load", which resets the context (and
 * so would free a pack set before the run). */
static tfx_status lend_pack(tfx_ctx *ctx, void *user) {
  (void)user;
  ctx->pack = shared_pack; /* borrowed: have_pack is cleared before tfx_ctx_free */
  ctx->have_pack = 1;
  return 0;
}

/* The .air bytes are a ge.proto.ModelDef the wire walk and protobuf-c accept, packing back to
 * the same bytes. */
static void check_air_unpacks(const Ge__Proto__ModelDef *m) {
  tfx_strbuf air, back;
  tfx_sb_init(&air);
  tfx_sb_init(&back);
  tfx_diag d;
  tfx_diag_init(&d);
  if (tfx_ge_emit_air(m, &air, &d) == 0) {
    tfx_arena a;
    tfx_arena_init(&a);
    ProtobufCMessage *u = tfx_io_unpack(&ge__proto__model_def__descriptor, (const uint8_t *)tfx_sb_cstr(&air),
                                        air.len, "air", &a, &d);
    if (!u) tfx_diag_print(&d, stderr);
    FUZZ_CHECK(u != NULL, "the .air bytes do not unpack as ge.proto.ModelDef");
    FUZZ_CHECK(tfx_io_pack(u, &back) == 0 && !back.oom, "tfx_io_pack failed");
    fuzz_same(&air, &back, "pack(unpack(air)) != air");
    tfx_arena_free(&a);
  }
  tfx_diag_free(&d);
  tfx_sb_free(&air);
  tfx_sb_free(&back);
}

/* Lowering straight into the .air (streaming, ge.h: what a conversion to an .air alone does)
 * succeeds exactly when the whole-model lowering did, with the bytes the emitter writes from
 * that model. */
static void check_stream_air(tfx_ctx *ctx) {
  char *stem = tfx_ctx_default_output(ctx->opts->model_path, "");
  const tfx_cann_table *protos = tfx_ctx_protos(ctx);
  FUZZ_CHECK(stem && protos, "out of memory preparing the streaming lowering");
  tfx_ge_lower_opts lo;
  memset(&lo, 0, sizeof lo);
  lo.model_name = stem;
  lo.input_format = ctx->opts->input_format;
  lo.prune = &ctx->prune;
  lo.stream_air = 1;
  lo.air_max = (size_t)INT_MAX;
  tfx_ge_model gm;
  tfx_diag d;
  tfx_diag_init(&d);
  int rc = tfx_ge_lower(&gm, &ctx->module, ctx->opmap, protos, &lo, &d);
  if (rc) tfx_diag_print(&d, stderr);
  FUZZ_CHECK(rc == 0, "streaming lowering failed where the whole-model lowering succeeded");
  FUZZ_CHECK(gm.model == NULL, "streaming lowering kept the model");
  tfx_strbuf air, got;
  tfx_sb_init(&air);
  tfx_sb_init(&got);
  if (tfx_ge_emit_air(ctx->ge->model, &air, &d) == 0) {
    FUZZ_CHECK(gm.streamed, "streaming lowering kept no .air though the model is not too big");
    for (size_t i = 0; i < gm.air.n; i++) tfx_sb_add(&got, gm.air.p[i].data, gm.air.p[i].len);
    FUZZ_CHECK(!got.oom && got.len == gm.air.total, "the streamed pieces do not add up");
    fuzz_same(&air, &got, "streamed .air != emitted .air");
  }
  tfx_ge_model_free(&gm);
  tfx_sb_free(&air);
  tfx_sb_free(&got);
  tfx_diag_free(&d);
  free(stem);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!ready) setup();
  const char *model_path = fuzz_file_write("convert", data, size);

  tfx_diag d;
  tfx_diag_init(&d);
  tfx_options o;
  memset(&o, 0, sizeof o);
  o.model_path = model_path;
  o.enable_scope_passes = enable_list;
  o.verbose = -1;
  o.passthrough_unknown = 1;
  /* the GE kinds: op mapping and lowering run (the emit passes are off, see below) */
  o.emit = (1u << TFX_EMIT_AIR) | (1u << TFX_EMIT_GE_PBTXT) | (1u << TFX_EMIT_GE_JSON) |
           (1u << TFX_EMIT_DOT);
  o.limits.v[TFX_LIMIT_DEPTH] = 64;
  o.limits.v[TFX_LIMIT_STRING] = 1u << 20;
  o.limits.v[TFX_LIMIT_LIST] = 100000;
  o.limits.v[TFX_LIMIT_NODES] = 100000;
  o.limits.v[TFX_LIMIT_SCOPE_DEPTH] = 64;
  tfx_pipeline p;
  tfx_pipeline_init(&p);
  FUZZ_CHECK(tfx_pass_register_builtin(&p) == 0, "tfx_pass_register_builtin failed");
  tfx_pass *rp = tfx_pipeline_find(&p, "rules");
  tfx_pass *ep = tfx_pipeline_find(&p, "emit-tf");
  tfx_pass *gp = tfx_pipeline_find(&p, "emit-ge");
  if (rp) rp->enabled = 0; /* replaced by lend_pack */
  if (ep) ep->enabled = 0;
  if (gp) gp->enabled = 0;
  FUZZ_CHECK(tfx_pipeline_register(&p, TFX_GROUP_LOAD, 50, "fuzz-lend-pack", lend_pack, NULL, 0) == 0,
             "tfx_pipeline_register failed");
  tfx_ctx ctx;
  tfx_ctx_init(&ctx, &o, &d);

  int rc = tfx_pipeline_run(&p, &ctx, TFX_GROUP_EMIT);
  if (rc == 0) {
    FUZZ_CHECK(!tfx_diag_has_errors(&d), "the pipeline succeeded after reporting an error");
    FUZZ_CHECK(ctx.have_model && ctx.have_module && ctx.model.graph != NULL, "no model after a successful run");
    fuzz_check_graph(&ctx.module, &ctx.module.main);
    if (ctx.have_scopes) fuzz_check_scopes(&ctx.scopes);
    tfx_diag d2;
    tfx_diag_init(&d2);
    tfx_module m;
    int mrc = tfx_module_build(&m, ctx.model.graph, "converted", &d2);
    if (mrc != 0) tfx_diag_print(&d2, stderr);
    FUZZ_CHECK(mrc == 0, "the converted GraphDef does not index");
    tfx_module_free(&m);
    fuzz_index_and_scope(ctx.model.graph, &d2);
    tfx_diag_free(&d2);
    FUZZ_CHECK(ctx.ge && ctx.ge->model, "no GE model after a successful run");
    fuzz_ge_emitters(ctx.ge->model);
    check_air_unpacks(ctx.ge->model);
    check_stream_air(&ctx);
  } else {
    FUZZ_CHECK(tfx_diag_has_errors(&d), "the pipeline failed (%d) without reporting an error", rc);
  }
  if (ctx.have_pack) FUZZ_CHECK(ctx.pack.code == shared_pack.code, "a pass replaced the borrowed pack");
  memset(&ctx.pack, 0, sizeof ctx.pack);
  ctx.have_pack = 0;
  tfx_ctx_free(&ctx);
  tfx_pipeline_free(&p);
  fuzz_diag_dump(&d);
  tfx_diag_free(&d);
  return 0;
}
