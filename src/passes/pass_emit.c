/* EMIT group: write the requested outputs.
 * Stage: passes/EMIT. Input: ctx->model (the TF GraphDef after every earlier pass; pass
 * "emit-tf") and ctx->ge (the lowered GE model, or the .air bytes when lowering streamed them:
 * pass_lower.c; pass "emit-ge"; with -o FILE their op records are in a spill file beside the
 * .air, ge/air_sink.c, which becomes the .air itself when lowering planned its fields' size
 * right, else is copied from in the kernel), ctx->opts->emit / out_path.
 * Output: files, written all or nothing (tfx_write_files_atomic: temp files, then renames),
 * so a failure leaves no partial file. emit-ge serializes every requested kind (and the
 * tf-pbtxt, when that is asked for too: emit-tf leaves it to emit-ge then) before it writes
 * the first file, so a kind that cannot be produced (e.g. a model over 2 GiB for air), an
 * output over the output-size limit (--limit output-size, exit 1) or a failed write leaves
 * none of the run's outputs. */
#include "passes/passes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ge/ge.h"
#include "io/pbtxt.h"
#include "util/status.h"
#include "util/fileio.h"

#define EMIT_NAME(id, name, suffix, what) name,
static const char *const emit_names[TFX_EMIT__COUNT] = {TFXC_EMIT_KINDS(EMIT_NAME)};
#undef EMIT_NAME

typedef int (*ge_emit_fn)(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d);
static const ge_emit_fn ge_emitters[TFX_EMIT__COUNT] = {
  [TFX_EMIT_AIR] = tfx_ge_emit_air,
  [TFX_EMIT_GE_PBTXT] = tfx_ge_emit_pbtxt,
  [TFX_EMIT_GE_JSON] = tfx_ge_emit_json,
  [TFX_EMIT_DOT] = tfx_ge_emit_dot,
};

/* 1 when the GE kinds are written by emit-ge together with the tf-pbtxt: a GE kind is asked
 * for and emit-ge is not switched off (--disable-pass). */
static int ge_writes_tf(const tfx_options *o) {
  if (!(o->emit & ~(1u << TFX_EMIT_TF_PBTXT)) || !(o->emit & (1u << TFX_EMIT_TF_PBTXT))) return 0;
  for (const char *s = o->disable; s && *s;) {
    const char *e = strchr(s, ',');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n == 7 && memcmp(s, "emit-ge", 7) == 0) return 0;
    if (!e) break;
    s = e + 1;
  }
  return 1;
}

/* External weight files (ge/external.c): when the .air would be larger than --limit
 * external-weights, its Const weights move to files under air_weight/ beside it. Fills
 * paths[k] (malloc'ed) for ext->files[k] and creates the directories (those it made are listed
 * in *made, to be removed again when the run fails). Returns 0 or an exit code (reported). */
static int external_weights(tfx_ctx *ctx, tfx_ge_external *ext, char ***paths, char **made, size_t *n_made) {
  const tfx_options *o = ctx->opts;
  const char *air = o->out_path[TFX_EMIT_AIR];
  int rc = tfx_ge_externalize(ctx->ge, tfx_limit_size(&o->limits, TFX_LIMIT_EXTERNAL_WEIGHTS), ext,
                              ctx->diag);
  if (rc || ext->n == 0) return rc;
  struct stat st;
  if (strcmp(air, "-") == 0 || (stat(air, &st) == 0 && !S_ISREG(st.st_mode))) {
    tfx_error(ctx->diag, air, 0, 0, "the GE model is larger than %zu bytes (--limit external-weights), so its "
              "%zu weights go to files under air_weight/ beside the .air: that needs -o FILE, not "
              "standard output or a device", tfx_limit_size(&o->limits, TFX_LIMIT_EXTERNAL_WEIGHTS), ext->n);
    return TFX_E_FAIL;
  }
  const char *slash = strrchr(air, '/');
  size_t dl = slash ? (size_t)(slash - air) + 1 : 0;
  *paths = tfx_calloc(ext->n, sizeof **paths);
  if (!*paths) goto nomem;
  for (size_t k = 0; k < ext->n; k++) {
    size_t pl = strlen(ext->files[k].path);
    char *p = tfx_malloc(dl + pl + 1);
    if (!p) goto nomem;
    memcpy(p, air, dl);
    memcpy(p + dl, ext->files[k].path, pl + 1);
    (*paths)[k] = p;
    /* air_weight/ and air_weight/<model>/: every directory of the relative path */
    for (char *q = p + dl; (q = strchr(q, '/')) != NULL; q++) {
      *q = 0;
      int exists = tfx_is_dir(p);
      if (!exists && mkdir(p, 0777) != 0 && errno != EEXIST) {
        tfx_error(ctx->diag, p, 0, 0, "cannot create the directory for external weights: %s",
                  strerror(errno));
        *q = '/';
        return TFX_E_INPUT;
      }
      if (!exists && *n_made < 2) {
        made[*n_made] = tfx_malloc(strlen(p) + 1);
        if (made[*n_made]) strcpy(made[(*n_made)++], p);
      }
      *q = '/';
    }
  }
  if (o->verbose > 0)
    tfx_diag_add(ctx->diag, TFX_SEV_NOTE, air, 0, 0, "the GE model is larger than %zu bytes: %zu "
                 "weights go to external files under %.*sair_weight/",
                 tfx_limit_size(&o->limits, TFX_LIMIT_EXTERNAL_WEIGHTS), ext->n, (int)dl, air);
  return 0;
nomem:
  tfx_error(ctx->diag, NULL, 0, 0, "out of memory preparing external weight files");
  return TFX_E_FAIL;
}

tfx_status tfx_pass_emit_ge(tfx_ctx *ctx, void *user) {
  (void)user;
  const tfx_options *o = ctx->opts;
  if (!o || o->check_only || !(o->emit & ~(1u << TFX_EMIT_TF_PBTXT))) return 0;
  if (!ctx->ge || (!ctx->ge->model && !ctx->ge->streamed)) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'emit-ge' needs the GE model (pass 'lowering')");
    return TFX_E_FAIL;
  }
  int with_tf = ge_writes_tf(o);
  tfx_strbuf out[TFX_EMIT__COUNT];
  tfx_io_pieces air; /* the .air stays in the packer's chunks: no joined copy */
  memset(&air, 0, sizeof air);
  int rc = 0;
  for (int k = 0; k < TFX_EMIT__COUNT; k++) tfx_sb_init(&out[k]);
  tfx_ge_external ext = {NULL, 0};
  char **ext_paths = NULL, *made[2];
  size_t n_made = 0;
  if ((o->emit & (1u << TFX_EMIT_AIR)) && o->out_path[TFX_EMIT_AIR])
    rc = external_weights(ctx, &ext, &ext_paths, made, &n_made);
  for (int k = 0; k < TFX_EMIT__COUNT && rc == 0; k++) {
    int tf = k == TFX_EMIT_TF_PBTXT;
    if (!(o->emit & (1u << k)) || (!ge_emitters[k] && !(tf && with_tf))) continue;
    if (!o->out_path[k]) {
      tfx_error(ctx->diag, NULL, 0, 0, "--emit %s: no output file", emit_names[k]);
      rc = TFX_E_USAGE;
      break;
    }
    if (tf) {
      if (!ctx->have_model) {
        tfx_error(ctx->diag, NULL, 0, 0, "--emit tf-pbtxt: no model loaded");
        rc = TFX_E_FAIL;
      } else if (tfx_pbtxt_print(&ctx->model.graph->base, &out[k]) != 0) {
        out[k].oom = 1;
      }
    } else if (k == TFX_EMIT_AIR && ctx->ge->streamed) { /* lowered straight into bytes */
      air = ctx->ge->air;
      memset(&ctx->ge->air, 0, sizeof ctx->ge->air);
      ctx->ge->streamed = 0;
    } else if (!ctx->ge->model) {
      tfx_error(ctx->diag, NULL, 0, 0, "internal error: --emit %s needs the GE model, which was "
                "lowered straight into the .air", emit_names[k]);
      rc = TFX_EXIT_FAIL;
    } else if (k == TFX_EMIT_AIR) {
      rc = tfx_ge_emit_air_pieces(ctx->ge->model, &air, ctx->diag);
    } else {
      rc = ge_emitters[k](ctx->ge->model, &out[k], ctx->diag);
    }
    if (rc == 0 && out[k].oom) {
      tfx_error(ctx->diag, NULL, 0, 0, "out of memory writing --emit %s", emit_names[k]);
      rc = TFX_E_NOMEM;
    }
  }
  /* --limit output-size, for every kind before the first file is written */
  size_t max_out = tfx_limit_size(&o->limits, TFX_LIMIT_OUTPUT_SIZE);
  size_t cap = TFX_EMIT__COUNT + ext.n, n = 0;
  const char **paths = tfx_calloc(cap, sizeof *paths);
  tfx_wpiece *one = tfx_calloc(cap, sizeof *one);
  const tfx_wpiece **pieces = tfx_calloc(cap, sizeof *pieces);
  size_t *n_pieces = tfx_calloc(cap, sizeof *n_pieces);
  if (rc == 0 && (!paths || !one || !pieces || !n_pieces)) {
    tfx_error(ctx->diag, NULL, 0, 0, "out of memory writing the outputs");
    rc = TFX_E_NOMEM;
  }
  for (int k = 0; k < TFX_EMIT__COUNT && rc == 0; k++) {
    if (!(o->emit & (1u << k)) || (!ge_emitters[k] && !(k == TFX_EMIT_TF_PBTXT && with_tf))) continue;
    int is_air = k == TFX_EMIT_AIR;
    size_t len = is_air ? air.total : out[k].len;
    if (tfx_check_output_size(o->out_path[k], len, max_out, ctx->diag) != 0) rc = TFX_E_FAIL;
    paths[n] = o->out_path[k];
    one[n].data = out[k].data;
    one[n].len = out[k].len;
    pieces[n] = is_air ? air.p : &one[n];
    n_pieces[n++] = is_air ? air.n : 1;
  }
  for (size_t k = 0; k < ext.n && rc == 0; k++) { /* the external weight files, with the .air */
    if (tfx_check_output_size(ext_paths[k], ext.files[k].len, max_out, ctx->diag) != 0) rc = TFX_E_FAIL;
    paths[n] = ext_paths[k];
    one[n].data = ext.files[k].data;
    one[n].len = ext.files[k].len;
    pieces[n] = &one[n];
    n_pieces[n++] = 1;
  }
  if (rc == 0) rc = tfx_write_files_atomic_pieces(n, paths, pieces, n_pieces, ctx->diag);
  if (rc != 0)
    while (n_made) rmdir(made[--n_made]); /* only when empty; nothing of this run is in them */
  for (size_t k = 0; k < n_made; k++) free(made[k]);
  for (size_t k = 0; ext_paths && k < ext.n; k++) free(ext_paths[k]);
  free(ext_paths);
  tfx_ge_external_free(&ext);
  free(paths);
  free(one);
  free(pieces);
  free(n_pieces);
  for (int k = 0; k < TFX_EMIT__COUNT; k++) tfx_sb_free(&out[k]);
  tfx_io_pieces_free(&air);
  return rc;
}

tfx_status tfx_pass_emit_tf(tfx_ctx *ctx, void *user) {
  (void)user;
  const tfx_options *o = ctx->opts;
  if (!o || o->check_only) return 0;
  if (!(o->emit & (1u << TFX_EMIT_TF_PBTXT))) return 0;
  if (ge_writes_tf(o)) return 0; /* written by emit-ge with the GE kinds, all or nothing */
  const char *path = o->out_path[TFX_EMIT_TF_PBTXT];
  if (!path) {
    tfx_error(ctx->diag, NULL, 0, 0, "--emit tf-pbtxt: no output file");
    return TFX_E_USAGE;
  }
  if (!ctx->have_model) {
    tfx_error(ctx->diag, NULL, 0, 0, "--emit tf-pbtxt: no model loaded");
    return TFX_E_FAIL;
  }
  int rc = tfx_io_write_message_max(path, &ctx->model.graph->base, TFX_WIRE_TEXT,
                                    tfx_limit_size(&o->limits, TFX_LIMIT_OUTPUT_SIZE), ctx->diag);
  return rc; /* a tfx_status */
}
