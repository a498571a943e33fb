/* The parallel GraphDef unpack (io.c tfx_io_unpack_graph_par) under ThreadSanitizer: a
 * synthetic binary GraphDef of 20000 nodes (about 1.5 MiB: over the default threshold, and
 * each part's arena grows into page-pool chunks) is loaded with 1, 2, 3 and 8 jobs, twice each,
 * once inside a page-pool run (tfx_pages_pool_begin/end: the main thread's pool then takes the
 * workers' big chunks when the model is freed) and once outside; every load must pack to the
 * bytes of the one-thread load. Any data race between the workers, or between them and the
 * calling thread (the node array, the arenas handed over, the fault-injection hooks they
 * share when compiled in), aborts the run with exit 66. The same through the library API:
 * a session with the option jobs 2 converts the graph to the .air of one with jobs 1. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"

typedef struct wbuf {
  unsigned char *p;
  size_t n, cap;
} wbuf;

static void put(wbuf *b, const void *p, size_t n) {
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
    if (!b->p) abort();
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
}

static void varint(wbuf *b, unsigned long long v) {
  unsigned char t[10];
  size_t n = 0;
  do {
    t[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  put(b, t, n);
}

static void field(wbuf *b, unsigned f, const void *p, size_t n) {
  varint(b, (unsigned long long)f << 3 | 2);
  varint(b, n);
  put(b, p, n);
}

static wbuf graph(size_t n) {
  wbuf g = {0};
  static const char attr[] = "\x0a\x01T\x12\x02\x30\x01"; /* attr { key: "T" value { type: DT_FLOAT } } */
  char name[64], prev[64] = "x";
  wbuf nd = {0};
  field(&nd, 1, "x", 1);
  field(&nd, 2, "Placeholder", 11);
  field(&nd, 5, "\x0a\x05" "dtype\x12\x02\x30\x01", 11);
  field(&g, 1, nd.p, nd.n);
  for (size_t i = 0; i < n; i++) {
    nd.n = 0;
    snprintf(name, sizeof name, "block%zu/relu_%zu", i % 50, i);
    field(&nd, 1, name, strlen(name));
    field(&nd, 2, "Relu", 4);
    field(&nd, 3, prev, strlen(prev));
    field(&nd, 5, attr, sizeof attr - 1);
    field(&g, 1, nd.p, nd.n);
    memcpy(prev, name, sizeof prev);
  }
  field(&g, 4, "\x08\xbf\x08", 3); /* versions { producer: 1087 } */
  free(nd.p);
  return g;
}

static int packed(const wbuf *g, unsigned jobs, tfx_strbuf *out) {
  tfx_load_opts lo = {0};
  lo.jobs = jobs;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_model m;
  int rc = tfx_io_load_model_buffer(g->p, g->n, "g.pb", &lo, &m, &d);
  if (rc == 0 && m.jobs != (jobs > 1 ? jobs : 0)) {
    fprintf(stderr, "jobs %u: unpacked by %u\n", jobs, m.jobs);
    rc = 1;
  }
  tfx_sb_init(out);
  if (rc == 0 && tfx_io_pack(m.root, out) != 0) rc = 1;
  tfx_model_free(&m);
  tfx_diag_free(&d);
  return rc;
}

static int convert(const wbuf *g, const char *jobs, void **air, size_t *len) {
  tfxc_session *s;
  if (tfxc_open(&s) != TFXC_OK) return -1;
  int rc = tfxc_set_option(s, "jobs", jobs) != TFXC_OK ||
           tfxc_load_model_buffer(s, "g.pb", g->p, g->n) != TFXC_OK || tfxc_run(s, NULL) != TFXC_OK ||
           tfxc_emit(s, "air", air, len) != TFXC_OK;
  if (rc) fprintf(stderr, "jobs %s: %s\n", jobs, tfxc_errmsg(s));
  tfxc_close(s);
  return rc;
}

int main(void) {
  wbuf g = graph(20000);
  tfx_strbuf one;
  int rc = packed(&g, 1, &one);
  static const unsigned jobs[] = {2, 3, 8};
  for (int pool = 0; pool < 2 && !rc; pool++)
    for (int j = 0; j < 3 && !rc; j++) {
      tfx_strbuf par;
      if (pool) tfx_pages_pool_begin();
      rc = packed(&g, jobs[j], &par);
      if (pool) tfx_pages_pool_end();
      if (!rc && (par.len != one.len || memcmp(par.data, one.data, one.len) != 0)) {
        fprintf(stderr, "jobs %u: the model differs from the one-thread load\n", jobs[j]);
        rc = 1;
      }
      tfx_sb_free(&par);
    }
  tfx_sb_free(&one);
  void *a1 = NULL, *a2 = NULL;
  size_t n1 = 0, n2 = 0;
  if (!rc) rc = convert(&g, "1", &a1, &n1) || convert(&g, "2", &a2, &n2);
  if (!rc && (n1 != n2 || memcmp(a1, a2, n1) != 0)) {
    fprintf(stderr, "the .air of jobs 2 differs from jobs 1's\n");
    rc = 1;
  }
  tfxc_free(a1);
  tfxc_free(a2);
  free(g.p);
  if (!rc) printf("%zu bytes: loads with 2, 3, 8 jobs identical to one thread's, and the .air\n", g.n);
  return rc;
}
