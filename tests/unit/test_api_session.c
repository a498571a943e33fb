/* The public API (include/tfxc/tfxc.h, src/api): sessions, options, rule and model sources,
 * runs up to a named pass, emission into memory and files, report and explain, diagnostics
 * with locations, out of memory as a status.
 * Stage: tests (api). Model: examples/dense_layernorm (env TFXC_SRC: the source tree). The
 * comparison with the command line's files is tests/cli/api_vs_cli.sh. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tfxc/tfxc.h"
#include "util/arena.h"

static char model_path[4096];

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (b) b[n] = 0;
  *len = (size_t)n;
  return b;
}

typedef struct seen {
  int n, errors;
  char file[256], msg[512];
  unsigned line, col;
} seen;

static void collect(void *user, const tfxc_diagnostic *d) {
  seen *s = user;
  s->n++;
  if (d->severity != TFXC_SEV_ERROR) return;
  if (s->errors++ == 0) {
    snprintf(s->file, sizeof s->file, "%s", d->file ? d->file : "");
    snprintf(s->msg, sizeof s->msg, "%s", d->message);
    s->line = d->line;
    s->col = d->column;
  }
}

static void version_and_status_names(void **state) {
  (void)state;
  assert_string_equal(tfxc_version(), TFXC_VERSION);
  assert_string_equal(tfxc_status_name(TFXC_NOMEM), "nomem");
  assert_string_equal(tfxc_status_name(TFXC_RULES), "rules");
  assert_string_equal(tfxc_status_name((tfxc_status)99), "unknown");
  assert_int_equal(tfxc_status_exit_code(TFXC_RULES), 4);
  assert_int_equal(tfxc_status_exit_code(TFXC_MISUSE), 2);
  assert_int_equal(tfxc_status_exit_code(TFXC_NOMEM), 1);
}

static void options_are_checked(void **state) {
  (void)state;
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  seen sn;
  memset(&sn, 0, sizeof sn);
  tfxc_set_diagnostic_handler(s, collect, &sn);
  assert_int_equal(tfxc_set_option(s, "input-shap", "x:1"), TFXC_MISUSE);
  assert_non_null(strstr(sn.msg, "did you mean 'input-shape'"));
  assert_non_null(strstr(tfxc_errmsg(s), "unknown option 'input-shap'"));
  assert_int_equal(tfxc_set_option(s, "emit", "air,dott"), TFXC_MISUSE);
  assert_non_null(strstr(tfxc_errmsg(s), "did you mean 'dot'"));
  assert_int_equal(tfxc_set_option(s, "limit", "nodes=0"), TFXC_MISUSE);
  assert_int_equal(tfxc_set_option(s, "input-format", "NCWH"), TFXC_MISUSE);
  assert_int_equal(tfxc_set_option(s, "vm-budget", "-3"), TFXC_MISUSE);
  assert_int_equal(tfxc_set_option(s, "check", "maybe"), TFXC_MISUSE);
  assert_int_equal(tfxc_set_option(s, "W", "no-such-warning"), TFXC_MISUSE);
  /* the command line's message (one parser for the shared options: src/api/options.c) */
  assert_non_null(strstr(tfxc_errmsg(s), "unknown warning option '-Wno-such-warning' (warnings: "));
  assert_int_equal(tfxc_set_option(s, "input-shape", "x:1,,2"), TFXC_MISUSE);
  assert_int_equal(tfxc_set_option(s, "limit", "nodes=100,depth=50"), TFXC_OK);
  assert_int_equal(tfxc_set_option(s, "W", "error"), TFXC_OK);
  assert_int_equal(tfxc_set_option(s, "emit", "air,tf-pbtxt"), TFXC_OK);
  assert_int_equal(sn.errors, 8); /* one per failed call */
  /* no model yet */
  assert_int_equal(tfxc_run(s, NULL), TFXC_MISUSE);
  char *j = NULL;
  assert_int_equal(tfxc_report_json(s, &j, NULL), TFXC_MISUSE);
  assert_null(j);
  tfxc_close(s);
  tfxc_close(NULL);
}

/* Converts the example through lowering; *air gets the .air bytes. */
static tfxc_session *convert(int from_buffer, void **air, size_t *air_len) {
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  if (from_buffer) {
    size_t n;
    char *b = slurp(model_path, &n);
    assert_non_null(b);
    assert_int_equal(tfxc_load_model_buffer(s, model_path, b, n), TFXC_OK);
    memset(b, 0, n); /* the session holds its own copy */
    free(b);
  } else {
    assert_int_equal(tfxc_load_model_path(s, model_path), TFXC_OK);
  }
  assert_int_equal(tfxc_run(s, NULL), TFXC_OK);
  assert_int_equal(tfxc_emit(s, "air", air, air_len), TFXC_OK);
  return s;
}

static void path_and_buffer_convert_alike(void **state) {
  (void)state;
  void *a1, *a2;
  size_t n1, n2;
  tfxc_session *s1 = convert(0, &a1, &n1), *s2 = convert(1, &a2, &n2);
  assert_true(n1 > 1000);
  assert_memory_equal(a1, "\x0a", 1); /* ModelDef field 1 (name) first */
  assert_int_equal(n1, n2);
  assert_memory_equal(a1, a2, n1);
  /* every kind, and the same text twice (deterministic) */
  const char *kinds[] = {"ge-pbtxt", "ge-json", "dot", "tf-pbtxt"};
  for (size_t k = 0; k < 4; k++) {
    void *x, *y;
    size_t nx, ny;
    assert_int_equal(tfxc_emit(s1, kinds[k], &x, &nx), TFXC_OK);
    assert_int_equal(tfxc_emit(s2, kinds[k], &y, &ny), TFXC_OK);
    assert_true(nx > 100);
    assert_int_equal(nx, ny);
    assert_memory_equal(x, y, nx);
    tfxc_free(x);
    tfxc_free(y);
  }
  char *name;
  assert_int_equal(tfxc_output_name(s1, "ge-json", &name), TFXC_OK);
  assert_string_equal(name, "model.ge.json");
  tfxc_free(name);
  void *x;
  size_t nx;
  assert_int_equal(tfxc_emit(s1, "air,dot", &x, &nx), TFXC_MISUSE);
  assert_int_equal(tfxc_emit(s1, "ari", &x, &nx), TFXC_MISUSE);
  assert_non_null(strstr(tfxc_errmsg(s1), "did you mean 'air'"));
  tfxc_free(a1);
  tfxc_free(a2);
  tfxc_close(s1);
  tfxc_close(s2);
}

static void emit_file_and_output_limit(void **state) {
  (void)state;
  void *air;
  size_t n;
  tfxc_session *s = convert(0, &air, &n);
  char dir[] = "/tmp/tfxc_api_XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/out.air", dir);
  assert_int_equal(tfxc_emit_file(s, "air", path), TFXC_OK);
  size_t fn;
  char *f = slurp(path, &fn);
  assert_non_null(f);
  assert_int_equal(fn, n);
  assert_memory_equal(f, air, n);
  free(f);
  assert_int_equal(tfxc_emit_file(s, "air", "-"), TFXC_MISUSE);
  assert_int_equal(tfxc_emit_file(s, "air", dir), TFXC_INPUT); /* a directory */
  /* output-size limit: checked at emission, nothing written */
  assert_int_equal(tfxc_set_option(s, "limit", "output-size=100"), TFXC_OK);
  assert_int_equal(tfxc_run(s, NULL), TFXC_OK);
  unlink(path);
  assert_int_equal(tfxc_emit_file(s, "air", path), TFXC_FAILED);
  assert_int_not_equal(access(path, F_OK), 0);
  void *x = (void *)1;
  size_t nx;
  assert_int_equal(tfxc_emit(s, "air", &x, &nx), TFXC_FAILED);
  assert_null(x);
  assert_non_null(strstr(tfxc_errmsg(s), "output-size"));
  rmdir(dir);
  tfxc_free(air);
  tfxc_close(s);
}

static void run_up_to_a_pass(void **state) {
  (void)state;
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  assert_int_equal(tfxc_load_model_path(s, model_path), TFXC_OK);
  assert_int_equal(tfxc_run(s, "scope-fusoin"), TFXC_MISUSE);
  assert_non_null(strstr(tfxc_errmsg(s), "did you mean 'scope-fusion'"));
  assert_int_equal(tfxc_run(s, "emit-ge"), TFXC_MISUSE);
  assert_int_equal(tfxc_run(s, "scope-fusion"), TFXC_OK);
  void *x;
  size_t n;
  assert_int_equal(tfxc_emit(s, "air", &x, &n), TFXC_MISUSE); /* lowering did not run */
  assert_int_equal(tfxc_emit(s, "tf-pbtxt", &x, &n), TFXC_OK);
  /* the LayerNorm was fused: the TF graph holds the fused node */
  char *t = malloc(n + 1);
  memcpy(t, x, n);
  t[n] = 0;
  assert_non_null(strstr(t, "LayerNorm"));
  free(t);
  tfxc_free(x);
  char *j;
  assert_int_equal(tfxc_explain(s, "input", &j, NULL), TFXC_MISUSE); /* no op mapping yet */
  /* the report: scope fusion ran, the op mapping did not */
  size_t jn;
  assert_int_equal(tfxc_report_json(s, &j, &jn), TFXC_OK);
  assert_int_equal(strlen(j), jn);
  assert_non_null(strstr(j, "\"exit_code\": 0"));
  assert_null(strstr(j, "\"op\": ["));
  assert_non_null(strstr(j, "\"scope_fusion\": {"));
  tfxc_free(j);
  tfxc_close(s);
}

static void report_and_explain(void **state) {
  (void)state;
  void *air;
  size_t n;
  tfxc_session *s = convert(0, &air, &n);
  tfxc_free(air);
  char *j;
  size_t jn;
  assert_int_equal(tfxc_explain(s, "input", &j, &jn), TFXC_OK);
  assert_string_equal(j, "{\"name\": \"input\", \"type\": \"Placeholder\", \"result\": \"success\", "
                         "\"mapped_type\": \"Data\", \"mapping\": \"rule\", \"rule\": {\"name\": "
                         "\"Placeholder->Data\", \"site\": \"<stdlib>/ops/array.opmap:11\"}}\n");
  assert_int_equal(strlen(j), jn);
  tfxc_free(j);
  assert_int_equal(tfxc_explain(s, "no/such/node", &j, NULL), TFXC_MISUSE);
  assert_non_null(strstr(tfxc_errmsg(s), "no node 'no/such/node'"));
  assert_int_equal(tfxc_report_json(s, &j, &jn), TFXC_OK);
  assert_non_null(strstr(j, "\"result\": \"success\""));
  assert_non_null(strstr(j, "\"mapping\": \"fused\""));
  tfxc_free(j);
  tfxc_close(s);
}

/* The option no-report: the run converts alike, then says it kept no report (report and
 * explain fail with that message instead of returning empty data); a run that stops before
 * lowering still has its report, and turning the option off brings it back. */
static void no_report_keeps_none(void **state) {
  (void)state;
  void *a1, *a2;
  size_t n1, n2;
  tfxc_session *s1 = convert(0, &a1, &n1), *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  assert_int_equal(tfxc_set_option(s, "no-report", "maybe"), TFXC_MISUSE);
  assert_int_equal(tfxc_set_option(s, "no-report", "1"), TFXC_OK);
  assert_int_equal(tfxc_load_model_path(s, model_path), TFXC_OK);
  assert_int_equal(tfxc_run(s, NULL), TFXC_OK);
  assert_int_equal(tfxc_emit(s, "air", &a2, &n2), TFXC_OK);
  assert_int_equal(n1, n2);
  assert_memory_equal(a1, a2, n1);
  tfxc_free(a1);
  tfxc_free(a2);
  char *j = NULL;
  assert_int_equal(tfxc_report_json(s, &j, NULL), TFXC_MISUSE);
  assert_null(j);
  assert_non_null(strstr(tfxc_errmsg(s), "the last run kept no report (option no-report"));
  assert_int_equal(tfxc_explain(s, "input", &j, NULL), TFXC_MISUSE);
  assert_non_null(strstr(tfxc_errmsg(s), "kept no report"));
  tfxc_run_info info;
  assert_int_equal(tfxc_last_run(s, &info), TFXC_OK);
  assert_int_equal(info.fused, 0); /* released */
  assert_int_equal(info.mapped, 1);
  /* up to op mapping: the dataflow report is gone (no report), up to dataflow: all kept */
  assert_int_equal(tfxc_run(s, "op-mapping"), TFXC_OK);
  assert_int_equal(tfxc_explain(s, "input", &j, NULL), TFXC_MISUSE);
  assert_int_equal(tfxc_report_json(s, &j, NULL), TFXC_MISUSE);
  assert_int_equal(tfxc_run(s, "dataflow"), TFXC_OK);
  assert_int_equal(tfxc_report_json(s, &j, NULL), TFXC_OK);
  assert_non_null(strstr(j, "\"scope_fusion\": {"));
  assert_non_null(strstr(j, "\"dataflow\": {"));
  tfxc_free(j);
  /* off again: the whole run keeps it */
  assert_int_equal(tfxc_set_option(s, "no-report", "0"), TFXC_OK);
  assert_int_equal(tfxc_run(s, NULL), TFXC_OK);
  assert_int_equal(tfxc_report_json(s, &j, NULL), TFXC_OK);
  assert_non_null(strstr(j, "\"mapping\": \"fused\""));
  tfxc_free(j);
  tfxc_close(s);
  tfxc_close(s1);
}

static void check_fails_on_unsupported_ops(void **state) {
  (void)state;
  static const char model[] =
      "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
      "node { name: \"y\" op: \"NoSuchOpAnywhere\" input: \"x\" }\n";
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  assert_int_equal(tfxc_set_option(s, "check", "1"), TFXC_OK);
  assert_int_equal(tfxc_load_model_buffer(s, "odd.pbtxt", model, sizeof model - 1), TFXC_OK);
  assert_int_equal(tfxc_run(s, NULL), TFXC_FAILED);
  char *j;
  assert_int_equal(tfxc_explain(s, "y", &j, NULL), TFXC_OK);
  assert_non_null(strstr(j, "\"result\": \"failed\""));
  assert_non_null(strstr(j, "\"mapping\": \"unsupported\""));
  tfxc_free(j);
  assert_int_equal(tfxc_report_json(s, &j, NULL), TFXC_OK);
  assert_non_null(strstr(j, "\"exit_code\": 1"));
  assert_non_null(strstr(j, "\"fail\": 1"));
  tfxc_free(j);
  tfxc_close(s);
}

static void bad_model_and_rules_have_locations(void **state) {
  (void)state;
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  seen sn;
  memset(&sn, 0, sizeof sn);
  tfxc_set_diagnostic_handler(s, collect, &sn);
  static const char bad_model[] = "node {\n  name: \"x\"\n  nope: 1\n}\n";
  assert_int_equal(tfxc_load_model_buffer(s, "mem.pbtxt", bad_model, sizeof bad_model - 1), TFXC_OK);
  assert_int_equal(tfxc_run(s, NULL), TFXC_INPUT);
  assert_string_equal(sn.file, "mem.pbtxt");
  assert_int_equal(sn.line, 3);
  assert_int_equal(sn.col, 3);
  assert_non_null(strstr(tfxc_errmsg(s), "mem.pbtxt:3:3: "));

  memset(&sn, 0, sizeof sn);
  static const char bad_rule[] = "pass P {\n  group { layer { pattern p {\n    cnt Mul == 2;\n  } } }\n}\n";
  assert_int_equal(tfxc_add_rules_buffer(s, "notes.txt", bad_rule, sizeof bad_rule - 1), TFXC_MISUSE);
  assert_int_equal(tfxc_add_rules_buffer(s, "mine.scoperule", bad_rule, sizeof bad_rule - 1), TFXC_OK);
  assert_int_equal(tfxc_add_rules_buffer(s, "p.tfxb", "TFXB....", 8), TFXC_MISUSE); /* pack + text */
  assert_int_equal(tfxc_load_model_path(s, model_path), TFXC_OK);
  memset(&sn, 0, sizeof sn);
  assert_int_equal(tfxc_run(s, NULL), TFXC_RULES);
  assert_non_null(strstr(sn.msg, "unknown feature 'cnt'"));
  assert_string_equal(sn.file, "mine.scoperule");
  assert_int_equal(sn.line, 3);
  assert_int_equal(sn.col, 5);
  tfxc_close(s);

  /* a corrupt pack in memory is an input error */
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  assert_int_equal(tfxc_add_rules_buffer(s, "p.tfxb", "TFXB\x01\x02\x03", 7), TFXC_OK);
  assert_int_equal(tfxc_load_model_path(s, model_path), TFXC_OK);
  assert_int_equal(tfxc_run(s, NULL), TFXC_INPUT);
  assert_non_null(strstr(tfxc_errmsg(s), "p.tfxb"));
  tfxc_close(s);
}

/* A run hands the handler its first 1000 diagnostics and counts the rest (a model can make one
 * per node): 1500 inputs naming missing nodes give 1000 errors to the handler, 500 counted in
 * tfxc_run_info, and tfxc_errmsg names the last error of all, not the last one handed over. */
static void diagnostics_past_1000_are_counted(void **state) {
  (void)state;
  size_t cap = 1 << 17, len = 0;
  char *m = malloc(cap);
  assert_non_null(m);
  len += (size_t)snprintf(m, cap, "node { name: \"x\" op: \"Placeholder\" "
                          "attr { key: \"dtype\" value { type: DT_FLOAT } } }\n");
  for (int i = 0; i < 1500; i++)
    len += (size_t)snprintf(m + len, cap - len, "node { name: \"n%d\" op: \"Relu\" input: \"missing%d\" }\n", i, i);
  assert_true(len < cap);
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  seen sn;
  memset(&sn, 0, sizeof sn);
  tfxc_set_diagnostic_handler(s, collect, &sn);
  assert_int_equal(tfxc_load_model_buffer(s, "many.pbtxt", m, len), TFXC_OK);
  assert_int_equal(tfxc_run(s, NULL), TFXC_INPUT);
  assert_int_equal(sn.n, 1000);
  assert_int_equal(sn.errors, 1000);
  assert_non_null(strstr(sn.msg, "'missing0'"));
  assert_non_null(strstr(tfxc_errmsg(s), "'missing1499'"));
  tfxc_run_info info;
  assert_int_equal(tfxc_last_run(s, &info), TFXC_OK);
  assert_int_equal(info.errors_not_reported, 500);
  assert_int_equal(info.warnings_not_reported, 0);
  /* a run that reports little counts nothing */
  static const char ok_model[] =
      "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n";
  assert_int_equal(tfxc_load_model_buffer(s, "ok.pbtxt", ok_model, sizeof ok_model - 1), TFXC_OK);
  assert_int_equal(tfxc_run(s, NULL), TFXC_OK);
  assert_int_equal(tfxc_last_run(s, &info), TFXC_OK);
  assert_int_equal(info.errors_not_reported, 0);
  tfxc_close(s);
  free(m);
}

/* A rule over its own per-run heap (a string doubled 23 times, 128 MiB) is a rule run-time
 * error, TFXC_FAILED with the rule's location; never TFXC_NOMEM, which is a failed allocation
 * (out_of_memory_is_a_status). */
static void heap_budget_is_failed_not_nomem(void **state) {
  (void)state;
  static const char model[] =
      "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
      "node { name: \"s/y\" op: \"Neg\" input: \"x\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
  static const char rule[] =
      "pass HeapPass general {\n"
      "  group { layer { pattern negs { count Neg == 1; } } }\n"
      "  fuse s in negs {\n"
      "    type Neg;\n"
      "    let a0 = \"0123456789abcdef\";\n"
      "    let a1 = a0 + a0;\n"
      "    let a2 = a1 + a1;\n"
      "    let a3 = a2 + a2;\n"
      "    let a4 = a3 + a3;\n"
      "    let a5 = a4 + a4;\n"
      "    let a6 = a5 + a5;\n"
      "    let a7 = a6 + a6;\n"
      "    let a8 = a7 + a7;\n"
      "    let a9 = a8 + a8;\n"
      "    let a10 = a9 + a9;\n"
      "    let a11 = a10 + a10;\n"
      "    let a12 = a11 + a11;\n"
      "    let a13 = a12 + a12;\n"
      "    let a14 = a13 + a13;\n"
      "    let a15 = a14 + a14;\n"
      "    let a16 = a15 + a15;\n"
      "    let a17 = a16 + a16;\n"
      "    let a18 = a17 + a17;\n"
      "    let a19 = a18 + a18;\n"
      "    let a20 = a19 + a19;\n"
      "    let a21 = a20 + a20;\n"
      "    let a22 = a21 + a21;\n"
      "    let a23 = a22 + a22;\n"
      "    name a23;\n"
      "  }\n"
      "}\n";
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  assert_int_equal(tfxc_set_option(s, "no-stdlib", "1"), TFXC_OK);
  assert_int_equal(tfxc_load_model_buffer(s, "m.pbtxt", model, sizeof model - 1), TFXC_OK);
  assert_int_equal(tfxc_add_rules_buffer(s, "heap.scoperule", rule, sizeof rule - 1), TFXC_OK);
  tfxc_status st = tfxc_run(s, NULL);
  assert_int_equal(st, TFXC_FAILED);
  assert_int_equal(tfxc_status_exit_code(st), 1);
  assert_non_null(strstr(tfxc_errmsg(s), "heap.scoperule:"));
  assert_non_null(strstr(tfxc_errmsg(s), "rule 'HeapPass': memory budget of "));
  assert_null(strstr(tfxc_errmsg(s), "out of memory"));
  tfxc_close(s);
}

/* A rule given in memory takes part like a -r file: an op map for a custom op. */
static void rules_from_memory_apply(void **state) {
  (void)state;
  static const char model[] =
      "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
      "node { name: \"y\" op: \"Relu\" input: \"x\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  assert_int_equal(tfxc_load_model_buffer(s, "tiny.pbtxt", model, sizeof model - 1), TFXC_OK);
  assert_int_equal(tfxc_run(s, "op-mapping"), TFXC_OK);
  char *j;
  assert_int_equal(tfxc_explain(s, "y", &j, NULL), TFXC_OK);
  assert_non_null(strstr(j, "\"mapped_type\": \"Relu\""));
  assert_non_null(strstr(j, "<stdlib>/"));
  tfxc_free(j);
  /* the same model with a rule from memory first: it overrides the stdlib's Relu map */
  static const char rule[] = "# mine\nop Relu -> Relu6 { auto; }\n";
  assert_int_equal(tfxc_add_rules_buffer(s, "mine.opmap", rule, sizeof rule - 1), TFXC_OK);
  assert_int_equal(tfxc_run(s, "op-mapping"), TFXC_OK);
  assert_int_equal(tfxc_explain(s, "y", &j, NULL), TFXC_OK);
  assert_non_null(strstr(j, "\"mapped_type\": \"Relu6\""));
  assert_non_null(strstr(j, "\"site\": \"mine.opmap:2\""));
  tfxc_free(j);
  tfxc_close(s);
}

/* Out of memory anywhere in a session's life (open, load, run, emit), every allocation in turn:
 * always TFXC_NOMEM, never a crash nor another status (a malformed model, a rule or pass
 * error), and tfxc_errmsg is the "out of memory" error, not an error that followed it (the
 * status, not the message text, decides: finish in session.c); LeakSanitizer checks the
 * cleanup. */
static void out_of_memory_is_a_status(void **state) {
  (void)state;
  tfx_alloc_fail_arena(0);
  tfx_alloc_fail_at(0);
  void *air0;
  size_t n0;
  tfxc_session *ref = convert(0, &air0, &n0);
  tfxc_free(air0);
  tfxc_close(ref);
  tfx_alloc_fail_at(0);
  {
    tfxc_session *s = convert(0, &air0, &n0);
    tfxc_free(air0);
    tfxc_close(s);
  }
  long total = tfx_alloc_calls();
  assert_true(total > 50);
  int failures = 0;
  for (long at = 1; at <= total; at++) {
    tfx_alloc_fail_at(at);
    tfxc_session *s = NULL;
    tfxc_status st = tfxc_open(&s);
    if (st == TFXC_OK) st = tfxc_load_model_path(s, model_path);
    if (st == TFXC_OK) st = tfxc_run(s, NULL);
    void *air = NULL;
    size_t n = 0;
    if (st == TFXC_OK) st = tfxc_emit(s, "air", &air, &n);
    long hit = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (st == TFXC_OK) {
      assert_int_equal(n, n0); /* the failure was worked around */
    } else {
      failures++;
      assert_true(hit > 0);
      if (st != TFXC_NOMEM)
        fail_msg("allocation %ld failed: status %s, want nomem (%s)", at, tfxc_status_name(st),
                 s ? tfxc_errmsg(s) : "no session");
      if (s) assert_non_null(strstr(tfxc_errmsg(s), "out of memory"));
    }
    tfxc_free(air);
    tfxc_close(s);
  }
  assert_true(failures > 10);
}

/* tfxc_explain_scope / tfxc_explain_rule give the text `tfxc explain` prints: the golden cases
 * with an `explain` file (tests/golden/cases; `tfxc test` checks the command against the same
 * expected.explain), the model handed over as a path and, every other case, in memory. */
static void explain_text_is_the_commands(void **state) {
  (void)state;
  static const struct {
    const char *dir, *option, *value, *scope, *rule, *node;
    int rules;
  } cases[] = {
      {"dataflow-neg-commuted", "enable-scope-fusion-passes", "GeluErfFusion,GeluErfFusionTf",
       NULL, "GeluErfFusion", "g/mul_1", 1},
      {"dataflow-neg-extra-consumer", NULL, NULL, NULL, "MatMulBiasAddFusion", "ba", 0},
      {"dataflow-neg-wrong-attr", NULL, NULL, NULL, "Conv2DBiasAddFusion", "cb", 0},
      {"explain-layernorm-match", NULL, NULL, "dense/LayerNorm/batchnorm/", NULL, NULL, 0},
      {"explain-rule", NULL, NULL, NULL, "ScopeLayerNormPass", NULL, 0},
  };
  const char *src = getenv("TFXC_SRC");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/tests/golden/cases/%s", src && *src ? src : ".", cases[i].dir);
    tfxc_session *s;
    assert_int_equal(tfxc_open(&s), TFXC_OK);
    snprintf(path, sizeof path, "%s/model.pbtxt", dir);
    if (i % 2) {
      size_t n;
      char *m = slurp(path, &n);
      assert_non_null(m);
      assert_int_equal(tfxc_load_model_buffer(s, path, m, n), TFXC_OK);
      free(m);
    } else {
      assert_int_equal(tfxc_load_model_path(s, path), TFXC_OK);
    }
    /* rule sites are shown as given: the path relative to the case, as `tfxc test` runs */
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    if (cases[i].rules) assert_int_equal(tfxc_add_rules_path(s, "rules"), TFXC_OK);
    if (cases[i].option)
      assert_int_equal(tfxc_set_option(s, cases[i].option, cases[i].value), TFXC_OK);
    char *text = NULL;
    size_t len = 0;
    tfxc_status st = cases[i].scope
                         ? tfxc_explain_scope(s, cases[i].scope, NULL, NULL, &text, &len)
                         : tfxc_explain_rule(s, cases[i].rule, NULL, cases[i].node, &text, &len);
    assert_int_equal(chdir(cwd), 0);
    if (st != TFXC_OK) fprintf(stderr, "%s: %s\n", cases[i].dir, tfxc_errmsg(s));
    assert_int_equal(st, TFXC_OK);
    snprintf(path, sizeof path, "%s/expected.explain", dir);
    size_t en;
    char *want = slurp(path, &en);
    assert_non_null(want);
    assert_int_equal(len, strlen(text));
    assert_string_equal(text, want);
    free(want);
    tfxc_free(text);
    tfxc_close(s);
  }
}

/* Misuse of the explain calls: names the model or rules lack, a rewrite without a node. */
static void explain_misuse(void **state) {
  (void)state;
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  char *text = (char *)"x";
  assert_int_equal(tfxc_explain_scope(s, "dense/", NULL, NULL, &text, NULL), TFXC_MISUSE);
  assert_null(text);
  assert_non_null(strstr(tfxc_errmsg(s), "no model given"));
  assert_int_equal(tfxc_load_model_path(s, model_path), TFXC_OK);
  assert_int_equal(tfxc_explain_rule(s, "NoSuchPass", NULL, NULL, &text, NULL), TFXC_MISUSE);
  assert_non_null(strstr(tfxc_errmsg(s), "--rule: no scope pass 'NoSuchPass' (passes: "));
  assert_int_equal(tfxc_explain_rule(s, "MatMulBiasAddFusion", NULL, NULL, &text, NULL),
                   TFXC_MISUSE);
  assert_non_null(strstr(tfxc_errmsg(s), "a rewrite is explained at a node"));
  assert_int_equal(tfxc_explain_scope(s, "dense/", "f", NULL, &text, NULL), TFXC_MISUSE);
  assert_non_null(strstr(tfxc_errmsg(s), "no function 'f' (the model has no library functions)"));
  assert_int_equal(tfxc_explain_scope(s, "dense/", NULL, "NoSuchPass", &text, NULL), TFXC_MISUSE);
  assert_non_null(strstr(tfxc_errmsg(s), "--pass: no scope pass 'NoSuchPass'"));
  assert_int_equal(tfxc_explain_scope(s, "dense/", NULL, "", &text, NULL), TFXC_MISUSE);
  /* the last run is left alone: explain before and after a run */
  assert_int_equal(tfxc_run(s, "op-mapping"), TFXC_OK);
  assert_int_equal(tfxc_explain_scope(s, "dense/LayerNorm", NULL, NULL, &text, NULL), TFXC_OK);
  assert_non_null(strstr(text, "scope dense/LayerNorm/\n"));
  tfxc_free(text);
  assert_int_equal(tfxc_explain(s, "input", &text, NULL), TFXC_OK);
  tfxc_free(text);
  tfxc_close(s);
}

/* Every call that hands back text or bytes refuses a missing result pointer the same way
 * (TFXC_MISUSE, "FN: no result pointer(s)") and clears what it was given. */
static void missing_result_pointers(void **state) {
  (void)state;
  tfxc_session *s;
  assert_int_equal(tfxc_open(&s), TFXC_OK);
  size_t len = 7;
  void *data = (void *)"x";
  assert_int_equal(tfxc_emit(s, "air", NULL, &len), TFXC_MISUSE);
  assert_string_equal(tfxc_errmsg(s), "tfxc_emit: no result pointers");
  assert_int_equal(tfxc_emit(s, "air", &data, NULL), TFXC_MISUSE);
  assert_int_equal(tfxc_compile_rules(s, &data, NULL, NULL), TFXC_MISUSE);
  assert_string_equal(tfxc_errmsg(s), "tfxc_compile_rules: no result pointers");
  assert_int_equal(tfxc_list_passes(s, NULL, &len), TFXC_MISUSE);
  assert_string_equal(tfxc_errmsg(s), "tfxc_list_passes: no result pointer");
  assert_int_equal(tfxc_inspect(s, 0, 0, NULL, NULL), TFXC_MISUSE);
  assert_string_equal(tfxc_errmsg(s), "tfxc_inspect: no result pointer");
  char *text = (char *)"x";
  len = 7;
  assert_int_equal(tfxc_pass_timing(s, &text, &len), TFXC_MISUSE); /* no run yet */
  assert_null(text);
  assert_int_equal(len, 0);
  assert_non_null(strstr(tfxc_errmsg(s), "no run yet"));
  tfxc_close(s);
}

int main(int argc, char **argv) {
  const char *src = getenv("TFXC_SRC");
  snprintf(model_path, sizeof model_path, "%s/examples/dense_layernorm/model.pbtxt",
           src && *src ? src : ".");
  if (access(model_path, R_OK) != 0) {
    fprintf(stderr, "test_api_session: %s not found (set TFXC_SRC): skipped\n", model_path);
    return 77;
  }
  /* the fault-injection cases: their own ctest test (unit/NAME/fault-injection), skipped
   * (exit 77) when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        cmocka_unit_test(out_of_memory_is_a_status),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(version_and_status_names),
      cmocka_unit_test(options_are_checked),
      cmocka_unit_test(path_and_buffer_convert_alike),
      cmocka_unit_test(emit_file_and_output_limit),
      cmocka_unit_test(run_up_to_a_pass),
      cmocka_unit_test(no_report_keeps_none),
      cmocka_unit_test(report_and_explain),
      cmocka_unit_test(check_fails_on_unsupported_ops),
      cmocka_unit_test(bad_model_and_rules_have_locations),
      cmocka_unit_test(rules_from_memory_apply),
      cmocka_unit_test(heap_budget_is_failed_not_nomem),
      cmocka_unit_test(explain_text_is_the_commands),
      cmocka_unit_test(explain_misuse),
      cmocka_unit_test(diagnostics_past_1000_are_counted),
      cmocka_unit_test(missing_result_pointers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
