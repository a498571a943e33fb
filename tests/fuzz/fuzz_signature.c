/* Fuzz target: bytes -> a model file -> passes load, prune (with signatures and the removal of
 * training machinery, as a conversion runs them: select_outputs, a GE output) and index. The
 * first byte picks --signature: 0 none (the default), 1 "serving_default", 2 "other", else the
 * model's first signature name if any (passes/signature.h). A run that succeeds must leave a
 * graph that indexes strictly, outputs that name nodes of it, and a listing of every signature
 * and its ports (what inspect prints) that does not crash; a failed run must report an error.
 * The bytes go to one temporary file per process (as fuzz_model_load). */
#define _POSIX_C_SOURCE 200809L /* mkstemp, pwrite, ftruncate */

#include "fuzz_common.h"
#include "fuzz_file.h"

#include "passes/passes.h"
#include "passes/signature.h"
#include "tfxc/tfxc.h"

/* Walks every signature and its ports in sorted order, as inspect does. */
static void list_signatures(const tfx_model *m) {
  const Tensorflow__MetaGraphDef *mg = tfx_sig_meta_graph(m);
  size_t *idx = NULL, n = 0;
  if (tfx_sig_sorted(mg, &idx, &n) != 0) return;
  (void)tfx_sig_default(mg);
  for (size_t k = 0; k < n; k++) {
    const Tensorflow__MetaGraphDef__SignatureDefEntry *e = mg->signature_def[idx[k]];
    FUZZ_CHECK(e != NULL, "NULL signature entry");
    for (int out = 0; out < 2; out++) {
      size_t *pi = NULL, np = 0;
      if (tfx_sig_sorted_ports(e->value, out, &pi, &np) != 0) continue;
      for (size_t q = 1; q < np; q++) {
        const char *a = out ? e->value->outputs[pi[q - 1]]->key : e->value->inputs[pi[q - 1]]->key;
        const char *b = out ? e->value->outputs[pi[q]]->key : e->value->inputs[pi[q]]->key;
        FUZZ_CHECK(strcmp(a, b) <= 0, "ports not in key order");
      }
      free(pi);
    }
  }
  free(idx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const char *model_path = fuzz_file_write("sig", data + 1, size - 1);
  tfx_options o;
  memset(&o, 0, sizeof o);
  o.model_path = model_path;
  o.select_outputs = 1;
  o.emit = 1u << TFX_EMIT_AIR;
  o.limits.v[TFX_LIMIT_DEPTH] = 64;
  o.limits.v[TFX_LIMIT_STRING] = 1u << 20;
  o.limits.v[TFX_LIMIT_LIST] = 100000;
  o.limits.v[TFX_LIMIT_NODES] = 100000;
  o.limits.v[TFX_LIMIT_SCOPE_DEPTH] = 64;
  static const char *const names[] = {NULL, "serving_default", "other"};
  int first_sig = data[0] > 2;
  o.signature = data[0] <= 2 ? names[data[0]] : NULL;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_pipeline p;
  tfx_pipeline_init(&p);
  FUZZ_CHECK(tfx_pass_register_builtin(&p) == 0, "out of memory registering passes");
  FUZZ_CHECK(tfx_pipeline_disable(&p, "rules,scope-tree", &d) == 0, "cannot disable passes");
  tfx_ctx ctx;
  tfx_ctx_init(&ctx, &o, &d);
  if (first_sig) { /* load first to learn the first signature's name, then run again */
    tfx_model m;
    tfx_load_opts lo = {NULL, 0, 64, 1u << 20, 100000};
    if (tfx_io_load_model(model_path, &lo, &m, &d) == 0) {
      const Tensorflow__MetaGraphDef *mg = tfx_sig_meta_graph(&m);
      static char name[256];
      name[0] = 0;
      if (mg && mg->n_signature_def && mg->signature_def[0] && mg->signature_def[0]->key)
        snprintf(name, sizeof name, "%s", mg->signature_def[0]->key);
      o.signature = name[0] ? name : NULL;
      list_signatures(&m);
      tfx_model_free(&m);
    }
    tfx_diag_clear(&d);
  }
  int rc = tfx_pipeline_run(&p, &ctx, TFX_GROUP_PRUNE);
  if (rc == 0) {
    FUZZ_CHECK(!tfx_diag_has_errors(&d), "load/prune returned 0 after reporting an error");
    FUZZ_CHECK(ctx.have_module && !ctx.module.has_errors, "a successful run left no strict index");
    for (uint32_t k = 0; k < ctx.prune.n_outs; k++)
      FUZZ_CHECK(tfx_graph_find(&ctx.module.main, ctx.prune.outs[k].name) != TFX_NO_ID,
                 "output %u names no node", k);
  } else {
    FUZZ_CHECK(tfx_diag_has_errors(&d), "load/prune failed (%d) without reporting an error", rc);
  }
  tfx_ctx_free(&ctx);
  tfx_pipeline_free(&p);
  fuzz_diag_dump(&d);
  tfx_diag_free(&d);
  return 0;
}
