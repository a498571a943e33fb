/* Golden rule-error cases: tests/golden/rule-errors/NN-name.{scoperule,opmap} (one file) or
 * NN-name/ (a directory of rule files, loaded in path order), each with the exact expected
 * diagnostics (message, location, source line, caret) in NN-name.stderr or NN-name/expected.stderr.
 * A first line `#! OPTIONS` sets -W options, or --protos for a small fake CANN prototype table
 * (for a directory: a file named `args`). TFXC_UPDATE=1 rewrites the expectations.
 * Env: TFXC_SRC (the repository root). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rules/load.h"
#include "util/diag.h"
#include "util/fileio.h"

static const tfx_rules_proto_port add_in[] = {{"x1", TFX_RULES_PORT_REQUIRED}, {"x2", TFX_RULES_PORT_REQUIRED}};
static const tfx_rules_proto_port y_out[] = {{"y", TFX_RULES_PORT_REQUIRED}};
static const tfx_rules_proto_port concat_in[] = {{"x", TFX_RULES_PORT_DYNAMIC}, {"concat_dim", TFX_RULES_PORT_REQUIRED}};
static const tfx_rules_proto_port fa_in[] = {{"query", TFX_RULES_PORT_REQUIRED}, {"key", TFX_RULES_PORT_REQUIRED},
                                             {"value", TFX_RULES_PORT_REQUIRED}, {"real_shift", TFX_RULES_PORT_OPTIONAL}};
static const tfx_rules_proto_attr pool_attrs[] = {{"ksize", "ListInt", TFX_RULES_A_LIST},
                                                  {"alpha", "Float", TFX_RULES_A_NUMBER},
                                                  {"ceil", "Bool", TFX_RULES_A_BOOL},
                                                  {"padding", "String", TFX_RULES_A_STRING},
                                                  {"value", "Tensor", TFX_RULES_A_OTHER}};
static const tfx_rules_op_proto fake_ops[] = {
    {"Add", add_in, 2, y_out, 1, NULL, 0},
    {"ConcatV2", concat_in, 2, y_out, 1, NULL, 0},
    {"FlashAttentionScore", fa_in, 4, y_out, 1, NULL, 0},
    {"Pool", add_in, 1, y_out, 1, pool_attrs, 5},
};
static tfx_rules_proto_table fake_table = {fake_ops, 4};
static tfx_rules_protos fake_protos = {tfx_rules_proto_table_lookup, &fake_table};

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void apply_options(char *line, tfx_rules_options *opt) {
  for (char *tok = strtok(line, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
    if (!strcmp(tok, "--protos")) opt->protos = &fake_protos;
    else assert_int_equal(tfx_rules_warning_option(&opt->warnings, tok), 0);
  }
}

static int run_case(const char *name, int is_dir, int update) {
  tfx_rules_options opt;
  tfx_rules_options_init(&opt);
  char path[1024], expect_path[1024];
  tfx_diag d;
  tfx_diag_init(&d);
  size_t len;
  if (is_dir) {
    snprintf(path, sizeof path, "%s/args", name);
    snprintf(expect_path, sizeof expect_path, "%s/expected.stderr", name);
    struct stat st;
    if (stat(path, &st) == 0) {
      char *args = tfx_read_file(path, 0, &len, &d);
      assert_non_null(args);
      apply_options(args, &opt);
      free(args);
    }
  } else {
    const char *dot = strrchr(name, '.');
    snprintf(expect_path, sizeof expect_path, "%.*s.stderr", (int)(dot - name), name);
    char *text = tfx_read_file(name, 0, &len, &d);
    assert_non_null(text);
    if (len > 2 && text[0] == '#' && text[1] == '!') {
      char *nl = strchr(text, '\n');
      if (nl) *nl = 0;
      apply_options(text + 2, &opt);
    }
    free(text);
  }
  tfx_ruleset *rs = tfx_ruleset_new();
  assert_non_null(rs);
  tfx_rules_load_path(rs, name, &d);
  tfx_rules_check(rs, &opt, &d);
  char *out = NULL;
  size_t outlen = 0;
  FILE *f = open_memstream(&out, &outlen);
  assert_non_null(f);
  tfx_diag_print(&d, f);
  fclose(f);
  int ok = 1;
  if (!d.errors && !d.warnings) {
    fprintf(stderr, "%s: produced no diagnostic\n", name);
    ok = 0;
  }
  tfx_diag_free(&d);
  tfx_diag_init(&d);
  if (update) {
    ok = ok && tfx_write_file_atomic(expect_path, out, outlen, &d) == 0;
  } else {
    char *want = tfx_read_file(expect_path, 0, &len, &d);
    if (!want) {
      fprintf(stderr, "%s: missing %s\n", name, expect_path);
      ok = 0;
    } else if (len != outlen || memcmp(want, out, len) != 0) {
      fprintf(stderr, "%s: diagnostics differ.\n---- expected:\n%s---- got:\n%s", name, want, out);
      ok = 0;
    }
    free(want);
  }
  tfx_diag_free(&d);
  free(out);
  tfx_ruleset_free(rs);
  return ok;
}

static void rule_error_goldens(void **state) {
  (void)state;
  const char *src = getenv("TFXC_SRC");
  if (!src) src = ".";
  const char *upd = getenv("TFXC_UPDATE");
  int update = upd && !strcmp(upd, "1");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/golden/rule-errors", src);
  assert_int_equal(chdir(dir), 0); /* diagnostics name the cases relative to their directory */
  DIR *dh = opendir(".");
  assert_non_null(dh);
  char *names[512];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(dh)) && n < 512) {
    const char *nm = e->d_name;
    if (nm[0] == '.') continue;
    size_t l = strlen(nm);
    struct stat st;
    int is_dir = stat(nm, &st) == 0 && S_ISDIR(st.st_mode);
    int is_rule = (l > 10 && !strcmp(nm + l - 10, ".scoperule")) || (l > 6 && !strcmp(nm + l - 6, ".opmap"));
    if (is_dir || is_rule) names[n++] = strdup(nm);
  }
  closedir(dh);
  qsort(names, n, sizeof *names, cmp_str);
  int failures = 0;
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    int is_dir = stat(names[i], &st) == 0 && S_ISDIR(st.st_mode);
    if (!run_case(names[i], is_dir, update)) failures++;
    free(names[i]);
  }
  fprintf(stderr, "rule-errors: %zu cases, %d failed%s\n", n, failures, update ? " (updated)" : "");
  assert_true(n >= 30);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(rule_error_goldens)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
