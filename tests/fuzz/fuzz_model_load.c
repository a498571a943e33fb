/* Fuzz target: bytes -> a model file -> tfx_io_load_model (binary/text sniffing, GraphDef /
 * MetaGraphDef / SavedModel, meta graph selection). io has no in-memory entry point, so the
 * bytes are written to one temporary file per process (created on the first input, rewritten
 * and truncated for every input, removed at exit). A model that loads must have a GraphDef
 * (io.h: "never NULL after a successful load"); it is then indexed and scoped.
 * Parallel unpacking (io.c tfx_io_unpack_graph_par) from the first byte on: the input's last
 * byte picks the jobs (1 to 4: 1 is the whole-message unpack). A load with more than one job
 * must agree with the one-thread load of the same file: the same status and, when it loads,
 * the same bytes packed again. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, pwrite, ftruncate */

#include <string.h>

#include "fuzz_common.h"
#include "fuzz_file.h"

#include "io/io.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *model_path = fuzz_file_write("model", data, size);
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_model m;
  tfx_load_opts lo = {0};
  lo.jobs = size ? 1u + data[size - 1] % 4u : 1u;
  lo.par_min_bytes = 1;
  int rc = tfx_io_load_model(model_path, &lo, &m, &d);
  if (lo.jobs > 1) { /* the one-thread load agrees */
    tfx_diag d1;
    tfx_diag_init(&d1);
    tfx_model m1;
    lo.jobs = 1;
    int rc1 = tfx_io_load_model(model_path, &lo, &m1, &d1);
    FUZZ_CHECK(rc1 == rc, "jobs %u: status %d, one thread: %d", 1u + data[size - 1] % 4u, rc, rc1);
    if (rc == 0 && rc1 == 0) {
      tfx_strbuf a, b;
      tfx_sb_init(&a);
      tfx_sb_init(&b);
      int pa = tfx_io_pack(m.root, &a), pb = tfx_io_pack(m1.root, &b);
      FUZZ_CHECK(pa == pb && (pa != 0 || a.oom || b.oom ||
                              (a.len == b.len && (!a.len || memcmp(a.data, b.data, a.len) == 0))),
                 "jobs %u: the model packs differently from the one-thread load", 1u + data[size - 1] % 4u);
      tfx_sb_free(&a);
      tfx_sb_free(&b);
    }
    tfx_model_free(&m1);
    tfx_diag_free(&d1);
  }
  if (rc == 0) {
    FUZZ_CHECK(m.graph != NULL && m.root != NULL, "tfx_io_load_model returned 0 without a graph");
    FUZZ_CHECK(!tfx_diag_has_errors(&d), "tfx_io_load_model returned 0 after reporting an error");
    fuzz_index_and_scope(m.graph, &d);
  } else {
    FUZZ_CHECK(tfx_diag_has_errors(&d), "tfx_io_load_model failed (%d) without reporting an error", rc);
    FUZZ_CHECK(m.graph == NULL && m.root == NULL, "a failed load left the model non-empty");
  }
  tfx_model_free(&m);
  fuzz_diag_dump(&d);
  tfx_diag_free(&d);
  return 0;
}
