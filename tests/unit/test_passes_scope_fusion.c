/* Unit tests for the "scope-fusion" pass with COMPILED rules (the rule compiler, not
 * hand-assembled packs): the LayerNorm pass of docs/LANGUAGE.md §3.1 over
 * examples/dense_layernorm/model.pbtxt through the real pipeline (load, rules, index,
 * scope-tree, scope-fusion) must leave one `LayerNorm` node wired x <- dense/BiasAdd (0),
 * gamma (1), beta (2), read by dense/Relu; an opt-in pass only runs when enabled; a `require`
 * that fails leaves the graph alone; the JSON report is deterministic. Lives under passes/
 * because it links the whole pipeline (rules + fusion). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "fusion/engine.h"
#include "passes/passes.h"
#include "tfxc/tfxc.h"

static const char *ln_rule =
    "pass ScopeLayerNormPass general {\n"
    "  group {\n"
    "    layer {\n"
    "      pattern batchnorm {\n"
    "        count Sub == 1;\n"
    "        count Add == 2;\n"
    "        count Rsqrt == 1;\n"
    "        count Mul == 3;\n"
    "        absent Identity;\n"
    "        name == \"batchnorm\";\n"
    "      }\n"
    "      pattern batchnorm {\n"
    "        count Sub == 1; count AddV2 == 2; count Rsqrt == 1; count Mul == 3;\n"
    "        absent Identity; name == \"batchnorm\";\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  group {\n"
    "    layer {\n"
    "      pattern moments {\n"
    "        count Mean == 2; count SquaredDifference == 1; absent Squeeze; name == \"moments\";\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  fuse b in batchnorm, m in moments where before(m.name, \"moments\") == before(b.name, \"batchnorm\") {\n"
    "    name before(b.name, \"batchnorm\");\n"
    "    type LayerNorm;\n"
    "    input \"batchnorm/mul_1\" { 0 -> 0, 1 -> 0 };\n"
    "    input \"batchnorm/mul\"   { 1 -> 1 };\n"
    "    input \"batchnorm/sub\"   { 0 -> 2 };\n"
    "    output \"batchnorm/add_1\" { 0 -> 0 };\n"
    "    output \"moments/mean\"    { 0 -> 1 };\n"
    "    output \"batchnorm/Rsqrt\" { 0 -> 2 };\n"
    "  }\n"
    "}\n";

typedef struct fx {
  tfx_pipeline p;
  tfx_options o;
  tfx_diag d;
  tfx_ctx ctx;
  char model[1024];
  const char *paths[1];
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f) return -1;
  const char *src = getenv("TFXC_SRC");
  snprintf(f->model, sizeof f->model, "%s/examples/dense_layernorm/model.pbtxt", src ? src : "..");
  tfx_pipeline_init(&f->p);
  tfx_diag_init(&f->d);
  tfx_ctx_init(&f->ctx, &f->o, &f->d);
  f->o.model_path = f->model;
  f->o.no_stdlib = 1;
  if (tfx_pass_register_builtin(&f->p)) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  tfx_ctx_free(&f->ctx);
  tfx_pipeline_free(&f->p);
  tfx_diag_free(&f->d);
  if (f->paths[0]) unlink(f->paths[0]);
  free(f);
  return 0;
}

static void dump(const tfx_diag *d) {
  for (size_t i = 0; i < d->n; i++) fprintf(stderr, "diag: %s\n", d->items[i].msg);
}

/* Writes text to a fresh .scoperule file and points -r at it. */
static void rules(fx *f, const char *text) {
  static char path[96];
  int fd;
  snprintf(path, sizeof path, "/tmp/tfxc_fusion_XXXXXX");
  fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  unlink(path);
  strcat(path, ".scoperule");
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs(text, fp);
  fclose(fp);
  f->paths[0] = path;
  f->o.rule_paths = f->paths;
  f->o.n_rule_paths = 1;
}

static void run(fx *f) {
  int rc = tfx_pipeline_run(&f->p, &f->ctx, TFX_GROUP_SCOPE_FUSION);
  if (rc) dump(&f->d);
  assert_int_equal(rc, 0);
}

static Tensorflow__NodeDef *find(fx *f, const char *name) {
  Tensorflow__GraphDef *gd = f->ctx.model.graph;
  for (size_t i = 0; i < gd->n_node; i++)
    if (strcmp(gd->node[i]->name, name) == 0) return gd->node[i];
  return NULL;
}

static void layernorm_example(void **state) {
  fx *f = *state;
  rules(f, ln_rule);
  run(f);
  Tensorflow__GraphDef *gd = f->ctx.model.graph;
  assert_int_equal(gd->n_node, 23 - 14 + 1);
  Tensorflow__NodeDef *ln = find(f, "dense/LayerNorm/");
  assert_non_null(ln);
  assert_string_equal(ln->op, "LayerNorm");
  assert_int_equal(ln->n_input, 3);
  assert_string_equal(ln->input[0], "dense/BiasAdd");
  assert_string_equal(ln->input[1], "dense/LayerNorm/gamma");
  assert_string_equal(ln->input[2], "dense/LayerNorm/beta");
  Tensorflow__NodeDef *relu = find(f, "dense/Relu");
  assert_non_null(relu);
  assert_int_equal(relu->n_input, 1);
  assert_string_equal(relu->input[0], "dense/LayerNorm/"); /* output 0 */
  assert_null(find(f, "dense/LayerNorm/batchnorm/add_1"));
  /* the index and tree were rebuilt over the new graph */
  assert_true(f->ctx.have_module);
  assert_int_equal(f->ctx.module.main.n_nodes, gd->n_node);
  assert_int_equal(f->d.warnings, 0);
  /* report */
  assert_non_null(f->ctx.fusion_report);
  tfx_strbuf j;
  tfx_sb_init(&j);
  assert_int_equal(tfx_fusion_report_json(f->ctx.fusion_report, &j), 0);
  assert_non_null(strstr(tfx_sb_cstr(&j), "\"name\": \"dense/LayerNorm/\""));
  assert_non_null(strstr(tfx_sb_cstr(&j), "\"child_count\": 14"));
  assert_non_null(strstr(tfx_sb_cstr(&j), "\"applied\": true"));
  tfx_sb_free(&j);
}

/* An opt-in pass runs only when named by --enable-scope-fusion-passes; --disable-pass
 * (names left for the rules: opts->disable_rules) switches a general one off. */
static void opt_in_and_disable(void **state) {
  fx *f = *state;
  char text[4096];
  snprintf(text, sizeof text, "%s", ln_rule);
  char *g = strstr(text, " general {");
  assert_non_null(g);
  memmove(g, g + 8, strlen(g + 8) + 1); /* drop "general" */
  rules(f, text);
  run(f);
  assert_non_null(find(f, "dense/LayerNorm/batchnorm/add_1")); /* not fused */
  tfx_ctx_free(&f->ctx);
  tfx_ctx_init(&f->ctx, &f->o, &f->d);
  f->o.enable_scope_passes = "ScopeLayerNormPass";
  run(f);
  assert_non_null(find(f, "dense/LayerNorm/"));
  tfx_ctx_free(&f->ctx);
  tfx_ctx_init(&f->ctx, &f->o, &f->d);
  f->o.disable_rules = "ScopeLayerNormPass";
  run(f);
  assert_null(find(f, "dense/LayerNorm/"));
}

/* A failing `require`: nothing changes. */
static void require_fails(void **state) {
  fx *f = *state;
  char text[4096];
  snprintf(text, sizeof text, "%s", ln_rule);
  char *fuse = strstr(text, "  fuse b in");
  assert_non_null(fuse);
  const char *req = "  require len(scopes(batchnorm)) > 5;\n";
  memmove(fuse + strlen(req), fuse, strlen(fuse) + 1);
  memcpy(fuse, req, strlen(req));
  rules(f, text);
  run(f);
  assert_int_equal(f->ctx.model.graph->n_node, 23);
  const tfx_fusion_graph_report *gr = &f->ctx.fusion_report->graphs[0];
  assert_true(gr->passes[0].select_ran);
  assert_false(gr->passes[0].select_value);
  assert_int_equal(gr->n_final_sub_types, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(layernorm_example, setup, teardown),
      cmocka_unit_test_setup_teardown(opt_in_and_disable, setup, teardown),
      cmocka_unit_test_setup_teardown(require_fails, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
