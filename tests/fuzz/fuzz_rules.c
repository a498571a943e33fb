/* Fuzz target: bytes -> a rule source -> the whole rule front and back end.
 * The first byte picks the file kind (even: .scoperule, odd: .opmap) and, with bit 1 set, the
 * largest rule-depth limit (1024, --limit rule-depth=1024: the deepest nesting any recursive
 * walk of sema and the compiler must survive) instead of the default 256; the rest is the source
 * text, loaded with tfx_rules_load_buffer and checked with tfx_rules_check (default options,
 * no CANN prototypes). A source that checks without errors is compiled. Properties (abort()
 * when broken):
 *  - load/check/compile report an error whenever they fail, and none when they succeed;
 *  - tfx_rules_compile never fails with TFX_EXIT_FAIL (out of memory or the compiler's own
 *    verifier rejecting its pack: a compiler/verifier disagreement);
 *  - the compiled pack serializes, and tfx_pack_load (header, hash, framing, verifier)
 *    accepts those bytes: the compiler only emits what the loader takes;
 *  - writing the loaded pack gives the same bytes again (determinism, lossless round trip),
 *    and compiling the same rule set twice gives the same bytes. */
#include "fuzz_common.h"

#include "rules/compile.h"
#include "rules/load.h"
#include "tfxc/tfxc.h"
#include "util/strbuf.h"
#include "vm/pack.h"

/* Compiles rs into bytes (appended to out). Returns the compiler's code. */
static int compile_to(const tfx_ruleset *rs, tfx_strbuf *out, tfx_diag *d) {
  tfx_pack p;
  int rc = tfx_rules_compile(rs, &p, d);
  if (rc == 0) {
    FUZZ_CHECK(tfx_pack_write(&p, out) == 0 && !out->oom, "tfx_pack_write failed");
  } else {
    FUZZ_CHECK(p.n_progs == 0 && p.n_rules == 0 && p.n_code == 0, "a failed compile left a non-empty pack");
  }
  tfx_pack_free(&p);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  const char *name = (data[0] & 1u) ? "fuzz.opmap" : "fuzz.scoperule";
  const char *text = (const char *)data + 1;
  size_t len = size - 1;

  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ruleset *rs = tfx_ruleset_new();
  FUZZ_CHECK(rs != NULL, "tfx_ruleset_new failed");
  if (data[0] & 2u) tfx_ruleset_set_max_depth(rs, TFX_AST_MAX_DEPTH);
  int lrc = tfx_rules_load_buffer(rs, name, text, len, &d);
  if (lrc != 0) FUZZ_CHECK(tfx_diag_has_errors(&d), "load failed (%d) without reporting an error", lrc);
  int crc = tfx_rules_check(rs, NULL, &d);
  if (crc != 0) FUZZ_CHECK(tfx_diag_has_errors(&d), "check failed (%d) without reporting an error", crc);
  if (tfx_ruleset_errors(rs) == 0) {
    FUZZ_CHECK(lrc == 0 && crc == 0 && !tfx_diag_has_errors(&d), "errors reported but not counted by the rule set");
    tfx_strbuf b1, b2, b3;
    tfx_sb_init(&b1);
    tfx_sb_init(&b2);
    tfx_sb_init(&b3);
    int rc = compile_to(rs, &b1, &d);
    if (rc != 0) fuzz_diag_dump(&d);
    FUZZ_CHECK(rc != TFX_EXIT_FAIL, "tfx_rules_compile failed with TFX_EXIT_FAIL (internal error or OOM)");
    if (rc != 0) {
      FUZZ_CHECK(tfx_diag_has_errors(&d), "compile failed (%d) without reporting an error", rc);
    } else {
      tfx_pack p;
      tfx_diag d2;
      tfx_diag_init(&d2);
      int prc = tfx_pack_load(&p, b1.data, b1.len, "fuzz.tfxb", &d2);
      if (prc != 0) tfx_diag_print(&d2, stderr);
      FUZZ_CHECK(prc == 0, "tfx_pack_load rejects the compiler's pack (%zu bytes)", b1.len);
      FUZZ_CHECK(tfx_pack_write(&p, &b2) == 0 && !b2.oom, "tfx_pack_write of the loaded pack failed");
      FUZZ_CHECK(b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0,
                 "write(load(bytes)) != bytes (%zu vs %zu bytes)", b1.len, b2.len);
      tfx_pack_free(&p);
      tfx_diag_free(&d2);
      /* Determinism of the compiler itself. */
      FUZZ_CHECK(compile_to(rs, &b3, &d) == 0, "the second compile of the same rule set failed");
      FUZZ_CHECK(b1.len == b3.len && memcmp(b1.data, b3.data, b1.len) == 0,
                 "two compiles of the same rule set differ (%zu vs %zu bytes)", b1.len, b3.len);
    }
    tfx_sb_free(&b1);
    tfx_sb_free(&b2);
    tfx_sb_free(&b3);
  }
  fuzz_diag_dump(&d);
  tfx_ruleset_free(rs);
  tfx_diag_free(&d);
  return 0;
}
