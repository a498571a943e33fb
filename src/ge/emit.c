/* GE IR emitters, binary and text: the .air file and GE's text dump format.
 * Stage: ge (output side, after lowering). Input: a finished ge.proto.ModelDef (maps already
 * sorted by tfx_ge_sort_maps). Output: bytes appended to a strbuf; nothing is appended on
 * error. The .air comes from air_write.c (the bytes of the io module's tfx_io_pack, identical to
 * C++ protobuf, so to what GE's own SaveToFile would write for the same content, by code
 * specialised for GE IR's messages); the text from tfx_pbtxt_print (protoc's text format). JSON is in emit_json.c, Graphviz in emit_dot.c. */
#include "ge/ge.h"

#include <limits.h>
#include <string.h>

#include "ge/air_write.h"

#include "io/io.h"
#include "io/pbtxt.h"
#include "util/status.h"

/* C++ protobuf refuses to parse more than INT_MAX bytes, and GE's loader refuses lengths above
 * INT32_MAX (docs/AIR.md §1.2): the largest loadable .air is INT_MAX bytes, i.e. < 2 GiB. */
#define TFX_GE_AIR_MAX ((size_t)INT_MAX)

/* Drops what an emitter appended after start (out->oom stays set for the caller to see). */
static void tfx_ge_emit_undo(tfx_strbuf *out, size_t start) {
  out->len = start;
  if (out->data) out->data[start] = 0;
}

static int tfx_ge_air_too_big(tfx_diag *d, size_t n) {
  tfx_error(d, NULL, 0, 0,
            "the GE model serializes to %zu bytes, over the %d bytes (2 GiB - 1) that ATC's C++ "
            "protobuf reads: it cannot be one .air file",
            n, INT_MAX);
  return TFX_E_FAIL;
}

int tfx_ge_emit_air(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d) {
  /* the writer stops once the output passes the limit (checked per chunk, so at most the
   * limit plus one chunk is ever allocated) and reports the exact size; nothing is appended
   * then. The chunks are joined here. */
  tfx_io_pieces pc;
  int rc = tfx_ge_emit_air_pieces(m, &pc, d);
  if (rc) return rc;
  size_t start = out->len;
  if (!tfx_sb_reserve(out, pc.total)) {
    tfx_io_pieces_free(&pc);
    tfx_ge_emit_undo(out, start);
    tfx_error(d, NULL, 0, 0, "out of memory serializing the GE model");
    return TFX_E_NOMEM;
  }
  for (size_t i = 0; i < pc.n; i++) {
    memcpy(out->data + out->len, pc.p[i].data, pc.p[i].len);
    out->len += pc.p[i].len;
  }
  out->data[out->len] = 0;
  tfx_io_pieces_free(&pc);
  return 0;
}

int tfx_ge_emit_air_pieces(const Ge__Proto__ModelDef *m, tfx_io_pieces *out, tfx_diag *d) {
  size_t n = 0;
  int rc = tfx_ge_air_write(m, TFX_GE_AIR_MAX, out, &n);
  if (rc == -2) return tfx_ge_air_too_big(d, n);
  if (rc == -3) {
    tfx_error(d, NULL, 0, 0, "out of memory serializing the GE model");
    return TFX_E_NOMEM;
  }
  if (rc != 0) {
    tfx_error(d, NULL, 0, 0, "the GE model is nested too deeply to serialize (over 1000 levels)");
    return TFX_E_FAIL;
  }
  return 0;
}

/* C++ TextFormat (protoc --decode, GE's ge_proto_*.txt dumps) prints every map entry as
 * `attr {\n  key: "k"\n  value {\n ... }\n}` in key order; tfx_pbtxt_print prints map entries
 * as the repeated XxxEntry messages protobuf-c makes of them, which is the same text as long
 * as the entries are sorted (lowering sorts them), the key is non-empty and the value is set.
 * An entry with key "" or no value prints without that line; protoc --encode reads both forms
 * to the same bytes (tests/cli/ge_emit.sh checks the re-encoding). */
int tfx_ge_emit_pbtxt(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d) {
  size_t start = out->len;
  if (tfx_pbtxt_print(&m->base, out) != 0 || out->oom) {
    tfx_ge_emit_undo(out, start);
    tfx_error(d, NULL, 0, 0, "out of memory printing the GE model as text");
    return TFX_E_NOMEM;
  }
  return 0;
}
