/* GE IR emitters, binary and text: the .air file and GE's text dump format.
 * Stage: ge (output side, after lowering). Input: a finished ge.proto.ModelDef (maps already
 * sorted by tfx_ge_sort_maps). Output: bytes appended to a strbuf; nothing is appended on
 * error. Both reuse the io module's descriptor-driven writers: tfx_io_pack (bytes identical to
 * C++ protobuf, so identical to what GE's own SaveToFile would write for the same content) and
 * tfx_pbtxt_print (protoc's text format). JSON is in emit_json.c, Graphviz in emit_dot.c. */
#include "ge/ge.h"

#include <limits.h>

#include "io/io.h"
#include "io/pbtxt.h"
#include "tfxc/tfxc.h"

/* C++ protobuf refuses to parse more than INT_MAX bytes, and GE's loader refuses lengths above
 * INT32_MAX (facts/air.md item 2): the largest loadable .air is INT_MAX bytes, i.e. < 2 GiB. */
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
  return TFX_EXIT_FAIL;
}

int tfx_ge_emit_air(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d) {
  /* protobuf-c's size never exceeds tfx_io_pack's (which only adds forced map keys/values and
   * -0.0 floats), so a model far too big is refused before anything is allocated; the exact
   * size is checked after packing. */
  size_t est = protobuf_c_message_get_packed_size(&m->base);
  if (est > TFX_GE_AIR_MAX) return tfx_ge_air_too_big(d, est);
  size_t start = out->len;
  if (tfx_io_pack(&m->base, out) != 0 || out->oom) {
    tfx_ge_emit_undo(out, start);
    if (out->oom)
      tfx_error(d, NULL, 0, 0, "out of memory serializing the GE model");
    else
      tfx_error(d, NULL, 0, 0, "the GE model is nested too deeply to serialize (over 1000 levels)");
    return TFX_EXIT_FAIL;
  }
  size_t n = out->len - start;
  if (n > TFX_GE_AIR_MAX) {
    tfx_ge_emit_undo(out, start);
    return tfx_ge_air_too_big(d, n);
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
    return TFX_EXIT_FAIL;
  }
  return 0;
}
