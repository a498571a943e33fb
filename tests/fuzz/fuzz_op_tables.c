/* Fuzz target: the op-table TSV readers that user files reach (`-r X.cannops.tsv`,
 * `-r X.tfops.tsv`): first byte even -> tfx_tf_ops_load (TF op definitions), odd ->
 * tfx_cann_add into an empty table then tfx_cann_add_base of the stdlib table (CANN
 * prototypes, as pass_rules.c merges them). Properties: never a crash; a load that reports no
 * error returns 0; for TF definitions, every op of an accepted text is found by name, and the
 * view the rule checker uses (tfx_tf_view_new) answers a lookup of each op. */
#include "fuzz_common.h"

#include "cann/cann.h"
#include "rules/load.h"
#include "tfxc/tfxc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int kind = data[0] & 1;
  const char *text = (const char *)data + 1;
  size_t len = size - 1;
  tfx_diag d;
  tfx_diag_init(&d);
  if (kind == 0) {
    tfx_tf_table t;
    int rc = tfx_tf_ops_load(&t, text, len, "f.tfops.tsv", &d);
    FUZZ_CHECK(rc == 0 || d.errors > 0, "load failed (%d) without an error", rc);
    if (rc == 0) {
      const tfx_tf_table *u = &t;
      tfx_tf_view *v = tfx_tf_view_new(&u, 1, NULL, &d);
      const tfx_rules_tfops *h = tfx_tf_view_hook(v);
      for (uint32_t i = 0; i < t.n_ops; i++) {
        FUZZ_CHECK(tfx_tf_op_find(&t, t.ops[i].name) != NULL, "op %s not found", t.ops[i].name);
        const char *const *attrs;
        size_t n;
        if (h) FUZZ_CHECK(h->lookup(h->ctx, t.ops[i].name, &attrs, &n) == 1, "view misses %s", t.ops[i].name);
      }
      tfx_tf_view_free(v);
    }
    tfx_tf_ops_free(&t);
  } else {
    tfx_cann_table t;
    tfx_cann_init(&t);
    int rc = tfx_cann_add(&t, text, len, "f.cannops.tsv", TFX_CANN_OV_WARN, &d);
    FUZZ_CHECK(rc == 0 || d.errors > 0, "add failed (%d) without an error", rc);
    const tfx_cann_table *std = tfx_cann_stdlib(&d);
    if (rc != TFX_E_NOMEM && std) { /* the merge must not crash; its result is not a property */
      tfx_status br = tfx_cann_add_base(&t, std, TFX_CANN_OV_QUIET, &d);
      (void)br;
    }
    tfx_cann_free(&t);
  }
  fuzz_diag_dump(&d);
  tfx_diag_free(&d);
  return 0;
}
