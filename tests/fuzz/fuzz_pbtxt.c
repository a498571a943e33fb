/* Fuzz target: bytes -> tfx_pbtxt_parse. The first byte picks the message type ('M' =
 * MetaGraphDef, 'S' = SavedModel, anything else = GraphDef); the rest is the text. When it
 * parses, the round trip is checked (each broken property abort()s):
 *  - tfx_pbtxt_print succeeds and its output parses back (print writes valid text);
 *  - the binary encodings (tfx_io_pack) of the first and second parse are identical: the text
 *    parser cannot produce unknown fields or NaN payloads, so nothing the printer leaves out
 *    can differ (pbtxt.h: unknown fields are not printed; floats round-trip; -nan keeps its
 *    sign; strings/bytes escaped);
 *  - printing the second parse gives the same text (print is a function of the message).
 * A GraphDef that parses is also indexed and scoped (fuzz_common.h invariants). */
#include "fuzz_common.h"

#include "io/io.h"
#include "io/pbtxt.h"
#include "util/arena.h"
#include "util/strbuf.h"

static const ProtobufCMessageDescriptor *pick(uint8_t b) {
  switch (b) {
  case 'M': return &tensorflow__meta_graph_def__descriptor;
  case 'S': return &tensorflow__saved_model__descriptor;
  default: return &tensorflow__graph_def__descriptor;
  }
}

static void roundtrip(const ProtobufCMessageDescriptor *desc, const ProtobufCMessage *m1) {
  tfx_strbuf t1, t2, p1, p2;
  tfx_sb_init(&t1);
  tfx_sb_init(&t2);
  tfx_sb_init(&p1);
  tfx_sb_init(&p2);
  FUZZ_CHECK(tfx_pbtxt_print(m1, &t1) == 0 && !t1.oom, "tfx_pbtxt_print failed");
  tfx_arena a;
  tfx_diag d;
  tfx_arena_init(&a);
  tfx_diag_init(&d);
  ProtobufCMessage *m2 = tfx_pbtxt_parse(desc, tfx_sb_cstr(&t1), t1.len, "printed", &a, NULL, &d);
  if (!m2) {
    tfx_diag_print(&d, stderr);
    fprintf(stderr, "---- printed text ----\n%s\n", tfx_sb_cstr(&t1));
  }
  FUZZ_CHECK(m2 != NULL, "printed %s does not parse back", desc->name);
  FUZZ_CHECK(tfx_io_pack(m1, &p1) == 0 && !p1.oom, "tfx_io_pack failed on the first parse");
  FUZZ_CHECK(tfx_io_pack(m2, &p2) == 0 && !p2.oom, "tfx_io_pack failed on the second parse");
  if (p1.len != p2.len || memcmp(tfx_sb_cstr(&p1), tfx_sb_cstr(&p2), p1.len) != 0)
    fprintf(stderr, "---- printed text ----\n%s\n", tfx_sb_cstr(&t1));
  FUZZ_CHECK(p1.len == p2.len && memcmp(tfx_sb_cstr(&p1), tfx_sb_cstr(&p2), p1.len) == 0,
             "pack(parse(text)) != pack(parse(print(parse(text)))) (%zu vs %zu bytes)", p1.len, p2.len);
  FUZZ_CHECK(tfx_pbtxt_print(m2, &t2) == 0 && !t2.oom, "tfx_pbtxt_print failed (second time)");
  FUZZ_CHECK(t1.len == t2.len && memcmp(tfx_sb_cstr(&t1), tfx_sb_cstr(&t2), t1.len) == 0,
             "print is not stable\n---- first ----\n%s\n---- second ----\n%s", tfx_sb_cstr(&t1), tfx_sb_cstr(&t2));
  tfx_diag_free(&d);
  tfx_arena_free(&a);
  tfx_sb_free(&t1);
  tfx_sb_free(&t2);
  tfx_sb_free(&p1);
  tfx_sb_free(&p2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const ProtobufCMessageDescriptor *desc = pick(data[0]);
  tfx_arena a;
  tfx_diag d;
  tfx_arena_init(&a);
  tfx_diag_init(&d);
  ProtobufCMessage *m = tfx_pbtxt_parse(desc, (const char *)data + 1, size - 1, "fuzz.pbtxt", &a, NULL, &d);
  if (m) {
    roundtrip(desc, m);
    if (desc == &tensorflow__graph_def__descriptor) fuzz_index_and_scope((Tensorflow__GraphDef *)m, &d);
  }
  fuzz_diag_dump(&d);
  tfx_diag_free(&d);
  tfx_arena_free(&a);
  return 0;
}
