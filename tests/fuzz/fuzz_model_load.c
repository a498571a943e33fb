/* Fuzz target: bytes -> a model file -> tfx_io_load_model (binary/text sniffing, GraphDef /
 * MetaGraphDef / SavedModel, meta graph selection). io has no in-memory entry point, so the
 * bytes are written to one temporary file per process (created on the first input, rewritten
 * and truncated for every input, removed at exit). A model that loads must have a GraphDef
 * (io.h: "never NULL after a successful load"); it is then indexed and scoped. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, pwrite, ftruncate */

#include "fuzz_common.h"
#include "fuzz_file.h"

#include "io/io.h"
#include "util/arena.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *model_path = fuzz_file_write("model", data, size);
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_model m;
  int rc = tfx_io_load_model(model_path, NULL, &m, &d);
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
