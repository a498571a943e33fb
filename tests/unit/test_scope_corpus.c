/* ScopeTree against Ascend's own output: for every model recorded in
 * the scope-fusion ground truth (docs/ASCEND.md §9; each .json; GraphDef and MetaGraphDef inputs), the tree must
 * have the same scope count (root included), contain every scope Ascend tagged or fused, and
 * give each single-level fusion result the same number of child nodes. Skipped when the corpus
 * (env TFXC_CORPUS) is absent. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "graph/graph.h"
#include "scope/scope.h"
#include "tensorflow/meta_graph.pb-c.h"
#include "test_graph_util.h"

/* Whole file into a malloc'ed, NUL-terminated buffer; NULL if unreadable. */
static char *slurp(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n + 65536 + 1 > cap) {
      cap = (n + 65536 + 1) * 2;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(fp);
        return NULL;
      }
      buf = nb;
    }
    size_t r = fread(buf + n, 1, cap - n - 1, fp);
    n += r;
    if (r == 0) break;
  }
  fclose(fp);
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* Value of the JSON string after `"key": "` at or after p, copied into out; NULL if none. */
static const char *json_str(const char *p, const char *key, char *out, size_t n) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": \"", key);
  const char *s = strstr(p, pat);
  if (!s) return NULL;
  s += strlen(pat);
  const char *e = strchr(s, '"');
  if (!e || (size_t)(e - s) >= n) return NULL;
  memcpy(out, s, (size_t)(e - s));
  out[e - s] = '\0';
  return e + 1;
}

static long json_int(const char *p, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *s = strstr(p, pat);
  return s ? strtol(s + strlen(pat), NULL, 10) : -1;
}

/* Checks one model; returns the number of results compared. */
static int check_model(const char *corpus, const char *json, tfx_arena *a) {
  char graph[256], kind[32], path[1024];
  assert_non_null(json_str(json, "graph", graph, sizeof graph));
  assert_non_null(json_str(json, "input_kind", kind, sizeof kind));
  if (strcmp(kind, "graphdef") != 0 && strcmp(kind, "meta") != 0) return 0;
  snprintf(path, sizeof path, "%s/models/%s", corpus, graph);
  size_t len = 0;
  char *bytes = slurp(path, &len);
  if (!bytes) fail_msg("cannot read %s", path);
  Tensorflow__GraphDef *gd = NULL;
  if (strcmp(kind, "meta") == 0) {
    Tensorflow__MetaGraphDef *mg =
        tensorflow__meta_graph_def__unpack(tfx_arena_pb(a), len, (const uint8_t *)bytes);
    gd = mg ? mg->graph_def : NULL;
  } else {
    gd = tensorflow__graph_def__unpack(tfx_arena_pb(a), len, (const uint8_t *)bytes);
  }
  free(bytes);
  if (!gd) fail_msg("cannot unpack %s", path);

  tfx_diag d;
  tfx_diag_init(&d);
  tfx_module m;
  tfx_scope_tree t;
  int rc = tfx_module_build(&m, gd, graph, &d);
  if (rc) tg_dump(&d);
  assert_int_equal(rc, 0);
  assert_int_equal(tfx_scope_tree_build(&t, &m.main, &d), 0);
  assert_int_equal(json_int(json, "node_count"), (long)m.main.n_nodes);
  if (json_int(json, "scope_count") != (long)t.n_scopes)
    fail_msg("%s: %u scopes, Ascend has %ld", graph, t.n_scopes, json_int(json, "scope_count"));

  /* every tagged scope exists */
  char name[1024];
  for (const char *p = json; (p = json_str(p, "scope", name, sizeof name)) != NULL;)
    if (tfx_scope_find(&t, name) == TFX_NO_ID) fail_msg("%s: no scope '%s'", graph, name);

  /* results: member scopes exist; child_count = nodes under the (outermost) member scopes */
  int compared = 0;
  for (const char *p = json; (p = strstr(p, "\"scopes\": [")) != NULL;) {
    p += strlen("\"scopes\": [");
    const char *end = strchr(p, ']');
    assert_non_null(end);
    uint32_t ids[64];
    uint32_t ni = 0;
    const char *q = p;
    while (ni < 64) {
      const char *s = strchr(q, '"');
      if (!s || s > end) break;
      const char *e = strchr(s + 1, '"');
      size_t l = (size_t)(e - s - 1);
      assert_true(l < sizeof name);
      memcpy(name, s + 1, l);
      name[l] = '\0';
      ids[ni] = tfx_scope_find(&t, name);
      if (ids[ni] == TFX_NO_ID) fail_msg("%s: no member scope '%s'", graph, name);
      ni++;
      q = e + 1;
    }
    const char *next = strstr(end, "\"scopes\": [");
    const char *extra = strstr(end, "\"extra_nodes\": []");
    const char *cc = strstr(end, "\"child_count\": ");
    if (!cc || (next && cc > next) || !extra || (next && extra > next) || extra > cc) {
      p = end;
      continue;
    }
    long want = strtol(cc + strlen("\"child_count\": "), NULL, 10);
    long got = 0;
    for (uint32_t i = 0; i < ni; i++) {
      int nested = 0;
      for (uint32_t j = 0; j < ni; j++)
        if (j != i && (ids[j] == ids[i] ? j < i : tfx_scope_is_descendant(&t, ids[i], ids[j])))
          nested = 1;
      if (!nested) got += t.scopes[ids[i]].n_all_nodes;
    }
    if (got != want) fail_msg("%s: result near '%.60s': %ld children, Ascend %ld", graph, p, got, want);
    compared++;
    p = end;
  }
  tfx_scope_tree_free(&t);
  tfx_module_free(&m);
  tfx_diag_free(&d);
  return compared;
}

static void matches_ascend_ground_truth(void **state) {
  (void)state;
  const char *corpus = getenv("TFXC_CORPUS");
  char dir[1024];
  if (!corpus) skip();
  snprintf(dir, sizeof dir, "%s/../facts/ascend-fusion-truth", corpus);
  DIR *dp = opendir(dir);
  if (!dp) skip();
  int models = 0, results = 0;
  for (struct dirent *de; (de = readdir(dp)) != NULL;) {
    size_t l = strlen(de->d_name);
    if (l < 6 || strcmp(de->d_name + l - 5, ".json") != 0) continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    size_t len = 0;
    char *json = slurp(path, &len);
    assert_non_null(json);
    tfx_arena a;
    tfx_arena_init(&a);
    int r = check_model(corpus, json, &a);
    tfx_arena_free(&a);
    free(json);
    results += r;
    models++;
  }
  closedir(dp);
  print_message("compared %d models, %d fusion results\n", models, results);
  assert_true(models >= 10);
  assert_true(results > 0);
}

/* Needs the corpus and its fusion truth: without them the test reports itself skipped (exit 77),
 * not passed. */
static int data_available(void) {
  const char *corpus = getenv("TFXC_CORPUS");
  char dir[1024];
  if (!corpus) return 0;
  snprintf(dir, sizeof dir, "%s/../facts/ascend-fusion-truth", corpus);
  return access(dir, R_OK) == 0;
}

int main(void) {
  if (!data_available()) {
    printf("skipped: the corpus and its fusion truth (TFXC_CORPUS) not found\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(matches_ascend_ground_truth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
