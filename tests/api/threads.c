/* Two sessions converting in two threads at once (built with -fsanitize=thread: any data race
 * in the library, e.g. on the stdlib tables built on first use, aborts the run with exit 66).
 * Both threads start together at a barrier before anything has touched the library, so the
 * first-use initialization itself is raced; each converts examples/dense_layernorm (from a
 * path and from memory) and a small model with a user rule from memory, several times, and
 * every output must equal the other thread's and a conversion made afterwards. Env: TFXC_SRC. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tfxc/tfxc.h"

#define ROUNDS 3
#define KINDS 3
static const char *const kinds[KINDS] = {"air", "ge-json", "tf-pbtxt"};

static char model_path[4096];
static pthread_barrier_t start;

typedef struct out {
  void *data[2][KINDS];
  size_t len[2][KINDS];
  int failed;
} out;

static const char tiny[] =
    "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n"
    "node { name: \"y\" op: \"Relu\" input: \"x\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
static const char rule[] = "op Relu -> Relu6 { auto; }\n";

/* One conversion; model 0 = the example (from a path when by_path), 1 = tiny with the rule. */
static int convert(int model, int by_path, void **data, size_t *len) {
  tfxc_session *s;
  if (tfxc_open(&s) != TFXC_OK) return -1;
  tfxc_status st;
  if (model == 0) {
    if (by_path) {
      st = tfxc_load_model_path(s, model_path);
    } else {
      FILE *f = fopen(model_path, "rb");
      char *buf = malloc(1 << 20);
      size_t n = f && buf ? fread(buf, 1, 1 << 20, f) : 0;
      if (f) fclose(f);
      st = n ? tfxc_load_model_buffer(s, model_path, buf, n) : TFXC_INPUT;
      free(buf);
    }
  } else {
    st = tfxc_add_rules_buffer(s, "mine.opmap", rule, sizeof rule - 1);
    if (st == TFXC_OK) st = tfxc_load_model_buffer(s, "tiny.pbtxt", tiny, sizeof tiny - 1);
  }
  if (st == TFXC_OK) st = tfxc_set_option(s, "emit", "air,ge-json,tf-pbtxt");
  if (st == TFXC_OK) st = tfxc_run(s, NULL);
  for (int k = 0; k < KINDS && st == TFXC_OK; k++) st = tfxc_emit(s, kinds[k], &data[k], &len[k]);
  if (st != TFXC_OK) fprintf(stderr, "conversion failed: %s\n", tfxc_errmsg(s));
  tfxc_close(s);
  return st == TFXC_OK ? 0 : -1;
}

static int same(void *const a[KINDS], const size_t na[KINDS], void *const b[KINDS],
                const size_t nb[KINDS]) {
  for (int k = 0; k < KINDS; k++)
    if (na[k] != nb[k] || memcmp(a[k], b[k], na[k]) != 0) return 0;
  return 1;
}

static void *worker(void *arg) {
  out *o = arg;
  pthread_barrier_wait(&start);
  for (int r = 0; r < ROUNDS && !o->failed; r++)
    for (int m = 0; m < 2 && !o->failed; m++) {
      void *d[KINDS] = {0};
      size_t n[KINDS] = {0};
      if (convert(m, r % 2 == 0, d, n) != 0) {
        o->failed = 1;
        break;
      }
      if (r == 0) {
        memcpy(o->data[m], d, sizeof d);
        memcpy(o->len[m], n, sizeof n);
        continue;
      }
      if (!same(d, n, o->data[m], o->len[m])) {
        fprintf(stderr, "round %d model %d: output differs from round 0\n", r, m);
        o->failed = 1;
      }
      for (int k = 0; k < KINDS; k++) tfxc_free(d[k]);
    }
  return NULL;
}

int main(void) {
  const char *src = getenv("TFXC_SRC");
  snprintf(model_path, sizeof model_path, "%s/examples/dense_layernorm/model.pbtxt",
           src && *src ? src : ".");
  if (access(model_path, R_OK) != 0) {
    fprintf(stderr, "%s not found (set TFXC_SRC): skipped\n", model_path);
    return 77;
  }
  out o[2];
  memset(o, 0, sizeof o);
  pthread_t t[2];
  pthread_barrier_init(&start, NULL, 2);
  for (int i = 0; i < 2; i++)
    if (pthread_create(&t[i], NULL, worker, &o[i]) != 0) return 1;
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&start);
  int rc = o[0].failed || o[1].failed;
  for (int m = 0; m < 2 && !rc; m++) {
    void *d[KINDS];
    size_t n[KINDS];
    if (!same(o[0].data[m], o[0].len[m], o[1].data[m], o[1].len[m])) {
      fprintf(stderr, "model %d: the two threads' outputs differ\n", m);
      rc = 1;
    } else if (convert(m, 1, d, n) != 0 || !same(d, n, o[0].data[m], o[0].len[m])) {
      fprintf(stderr, "model %d: a later single-threaded conversion differs\n", m);
      rc = 1;
    } else {
      for (int k = 0; k < KINDS; k++) tfxc_free(d[k]);
    }
  }
  for (int i = 0; i < 2; i++)
    for (int m = 0; m < 2; m++)
      for (int k = 0; k < KINDS; k++) tfxc_free(o[i].data[m][k]);
  if (!rc) printf("2 threads x %d rounds x 2 models: outputs identical\n", ROUNDS);
  return rc;
}
