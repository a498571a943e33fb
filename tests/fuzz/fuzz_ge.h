/* GE emitter properties shared by fuzz_ge_pbtxt and fuzz_convert (header-only, static). */
#ifndef TFX_FUZZ_GE_H
#define TFX_FUZZ_GE_H

#include "fuzz_common.h"

#include "ge/ge.h"
#include "io/io.h"
#include "io/pbtxt.h"
#include "util/arena.h"
#include "util/strbuf.h"

static inline void fuzz_same(tfx_strbuf *a, tfx_strbuf *b, const char *what) {
  FUZZ_CHECK(a->len == b->len && memcmp(tfx_sb_cstr(a), tfx_sb_cstr(b), a->len) == 0,
             "%s (%zu vs %zu bytes)", what, a->len, b->len);
}

typedef int (*emit_fn)(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d);

/* Runs one emitter after a 3-byte prefix; 1 when it produced output (in out, prefix dropped). */
static inline int fuzz_ge_emit(emit_fn fn, const Ge__Proto__ModelDef *m, tfx_strbuf *out, const char *name) {
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_sb_puts(out, "pre");
  int rc = fn(m, out, &d);
  if (rc != 0) {
    FUZZ_CHECK(tfx_diag_has_errors(&d), "--emit %s failed (%d) without an error", name, rc);
    FUZZ_CHECK(out->len == 3, "--emit %s failed but appended %zu bytes", name, out->len - 3);
  } else {
    FUZZ_CHECK(!out->oom, "--emit %s: out of memory", name);
    FUZZ_CHECK(!tfx_diag_has_errors(&d), "--emit %s succeeded after an error", name);
    memmove(out->data, out->data + 3, out->len - 3 + 1);
    out->len -= 3;
  }
  fuzz_diag_dump(&d);
  tfx_diag_free(&d);
  return rc == 0;
}

/* The emitters on m, whose maps are sorted (tfx_ge_sort_maps: what the lowering hands them):
 * air is exactly tfx_io_pack of m; ge-pbtxt is exactly tfx_pbtxt_print of m and parses back
 * to the same air bytes; ge-json is valid JSON (RFC 8259); dot ends its last graph; an emitter
 * that fails reports an error and appends nothing. */
static inline void fuzz_ge_emitters(const Ge__Proto__ModelDef *m) {
  tfx_strbuf air, txt, js, dot, ref;
  tfx_sb_init(&air);
  tfx_sb_init(&txt);
  tfx_sb_init(&js);
  tfx_sb_init(&dot);
  tfx_sb_init(&ref);
  if (fuzz_ge_emit(tfx_ge_emit_air, m, &air, "air")) {
    FUZZ_CHECK(tfx_io_pack(&m->base, &ref) == 0 && !ref.oom, "tfx_io_pack failed");
    fuzz_same(&air, &ref, "--emit air differs from tfx_io_pack");
  }
  if (fuzz_ge_emit(tfx_ge_emit_pbtxt, m, &txt, "ge-pbtxt")) {
    tfx_sb_reset(&ref);
    FUZZ_CHECK(tfx_pbtxt_print(&m->base, &ref) == 0 && !ref.oom, "tfx_pbtxt_print failed");
    fuzz_same(&txt, &ref, "--emit ge-pbtxt differs from tfx_pbtxt_print");
    tfx_arena a;
    tfx_diag d;
    tfx_arena_init(&a);
    tfx_diag_init(&d);
    ProtobufCMessage *back = tfx_pbtxt_parse(&ge__proto__model_def__descriptor, tfx_sb_cstr(&txt), txt.len, "emitted", &a, NULL, &d);
    if (!back) tfx_diag_print(&d, stderr);
    FUZZ_CHECK(back != NULL, "--emit ge-pbtxt output does not parse back");
    tfx_sb_reset(&ref);
    FUZZ_CHECK(tfx_io_pack(back, &ref) == 0 && !ref.oom, "tfx_io_pack failed");
    if (air.len || ref.len) fuzz_same(&air, &ref, "--emit ge-pbtxt parsed back packs differently from --emit air");
    tfx_diag_free(&d);
    tfx_arena_free(&a);
  }
  if (fuzz_ge_emit(tfx_ge_emit_json, m, &js, "ge-json")) {
    size_t at = 0;
    int ok = fuzz_json_valid(tfx_sb_cstr(&js), js.len, &at);
    if (!ok)
      fprintf(stderr, "---- json near byte %zu ----\n%.*s\n", at, (int)(js.len - at < 200 ? js.len - at : 200),
              tfx_sb_cstr(&js) + at);
    FUZZ_CHECK(ok, "--emit ge-json is not valid JSON (byte %zu)", at);
  }
  if (fuzz_ge_emit(tfx_ge_emit_dot, m, &dot, "dot"))
    FUZZ_CHECK(dot.len >= 2 && tfx_sb_cstr(&dot)[dot.len - 1] == '\n' && tfx_sb_cstr(&dot)[dot.len - 2] == '}',
               "--emit dot does not end with a closing brace");
  tfx_sb_free(&air);
  tfx_sb_free(&txt);
  tfx_sb_free(&js);
  tfx_sb_free(&dot);
  tfx_sb_free(&ref);
}

#endif
