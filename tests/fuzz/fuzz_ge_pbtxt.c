/* Fuzz target: bytes -> GE IR text (tfx_pbtxt_parse with the ge.proto.ModelDef descriptor,
 * the format of GE's ge_proto_*.txt dumps and of `tfxc --emit ge-pbtxt`) -> the GE emitters.
 * When the text parses (each broken property abort()s):
 *  - text round trip, as fuzz_pbtxt: print -> parse gives the same binary encoding, and
 *    printing again gives the same text;
 *  - binary round trip: tfx_io_pack -> tfx_io_unpack (the wire walk, then protobuf-c) ->
 *    tfx_io_pack gives the same bytes;
 *  - the emitters, after tfx_ge_sort_maps (what the lowering hands them): air is exactly
 *    tfx_io_pack of the sorted model; ge-pbtxt is exactly tfx_pbtxt_print of it and parses
 *    back to the same air bytes; ge-json is valid JSON (RFC 8259); dot ends its last graph;
 *    an emitter that fails reports an error and appends nothing.
 * The parse runs with small limits (depth 64, strings of 1 MiB, lists of 100 000) so the
 * limit paths are fuzzed too. */
#include "fuzz_ge.h"

#define DESC (&ge__proto__model_def__descriptor)

static void roundtrips(const ProtobufCMessage *m1) {
  tfx_strbuf t1, t2, p1, p2, p3;
  tfx_sb_init(&t1);
  tfx_sb_init(&t2);
  tfx_sb_init(&p1);
  tfx_sb_init(&p2);
  tfx_sb_init(&p3);
  tfx_arena a;
  tfx_diag d;
  tfx_arena_init(&a);
  tfx_diag_init(&d);
  FUZZ_CHECK(tfx_pbtxt_print(m1, &t1) == 0 && !t1.oom, "tfx_pbtxt_print failed");
  ProtobufCMessage *m2 = tfx_pbtxt_parse(DESC, tfx_sb_cstr(&t1), t1.len, "printed", &a, NULL, &d);
  if (!m2) {
    tfx_diag_print(&d, stderr);
    fprintf(stderr, "---- printed text ----\n%s\n", tfx_sb_cstr(&t1));
  }
  FUZZ_CHECK(m2 != NULL, "printed GE text does not parse back");
  FUZZ_CHECK(tfx_io_pack(m1, &p1) == 0 && !p1.oom, "tfx_io_pack failed");
  FUZZ_CHECK(tfx_io_pack(m2, &p2) == 0 && !p2.oom, "tfx_io_pack failed (second parse)");
  fuzz_same(&p1, &p2, "pack(parse(text)) != pack(parse(print(parse(text))))");
  FUZZ_CHECK(tfx_pbtxt_print(m2, &t2) == 0 && !t2.oom, "tfx_pbtxt_print failed (second time)");
  fuzz_same(&t1, &t2, "print is not stable");
  /* binary: the wire walk and protobuf-c accept what tfx_io_pack writes, and it packs back */
  ProtobufCMessage *m3 = tfx_io_unpack(DESC, (const uint8_t *)tfx_sb_cstr(&p1), p1.len, "packed", &a, &d);
  if (!m3) tfx_diag_print(&d, stderr);
  FUZZ_CHECK(m3 != NULL, "the packed model does not unpack");
  FUZZ_CHECK(tfx_io_pack(m3, &p3) == 0 && !p3.oom, "tfx_io_pack failed (unpacked)");
  fuzz_same(&p1, &p3, "pack(unpack(pack(m))) != pack(m)");
  tfx_diag_free(&d);
  tfx_arena_free(&a);
  tfx_sb_free(&t1);
  tfx_sb_free(&t2);
  tfx_sb_free(&p1);
  tfx_sb_free(&p2);
  tfx_sb_free(&p3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tfx_arena a;
  tfx_diag d;
  tfx_arena_init(&a);
  tfx_diag_init(&d);
  tfx_pbtxt_limits lim = {.max_depth = 64, .max_string = 1u << 20, .max_list = 100000};
  ProtobufCMessage *m = tfx_pbtxt_parse(DESC, (const char *)data, size, "fuzz.ge.pbtxt", &a, &lim, &d);
  if (m) {
    FUZZ_CHECK(!tfx_diag_has_errors(&d), "parsed after reporting an error");
    roundtrips(m);
    tfx_ge_sort_maps((Ge__Proto__ModelDef *)m);
    fuzz_ge_emitters((Ge__Proto__ModelDef *)m);
  } else {
    FUZZ_CHECK(tfx_diag_has_errors(&d), "refused without an error");
  }
  fuzz_diag_dump(&d);
  tfx_diag_free(&d);
  tfx_arena_free(&a);
  return 0;
}
