/* What the convert command decides around the pipeline, as library functions: emit kinds and
 * their file suffixes, the --disable-pass split, the --report JSON, option value parsing.
 * Stage: api. Output: what the command line does (it calls these through the session;
 * tests/api/api_vs_cli.sh compares library and command outputs). */
#define _POSIX_C_SOURCE 200809L
#include "api/api_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fusion/dataflow.h"
#include "fusion/engine.h"
#include "opmap/opmap.h"
#include "util/status.h"

#define EMIT_ROW(id, name, suffix, what) [TFX_EMIT_##id] = {name, suffix},
static const struct {
  const char *name;
  const char *suffix; /* default output: <model stem><suffix> */
} emit_kinds[TFX_EMIT__COUNT] = {TFXC_EMIT_KINDS(EMIT_ROW)};
#undef EMIT_ROW

int tfx_api_emit_kind(const char *name) {
  for (int k = 0; name && k < TFX_EMIT__COUNT; k++)
    if (strcmp(emit_kinds[k].name, name) == 0) return k;
  return -1;
}
const char *tfx_api_emit_name(int kind) { return emit_kinds[kind].name; }
const char *tfx_api_emit_suffix(int kind) { return emit_kinds[kind].suffix; }

int tfx_api_parse_emit(const char *s, unsigned *mask, tfx_diag *d) {
  *mask = 0;
  tfx_api_list l;
  if (tfx_api_list_split(s, &l) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    return -2;
  }
  for (size_t i = 0; i < l.n; i++) {
    int k = tfx_api_emit_kind(l.items[i]);
    if (k < 0) {
      char word[64], all[128];
      size_t an = 0;
      snprintf(word, sizeof word, "%s", l.items[i]);
      const char *names[TFX_EMIT__COUNT];
      for (int j = 0; j < TFX_EMIT__COUNT; j++) {
        names[j] = emit_kinds[j].name;
        an += (size_t)snprintf(all + an, sizeof all - an, "%s%s", j ? ", " : "", names[j]);
      }
      const char *hint = tfx_pipeline_closest(word, names, TFX_EMIT__COUNT);
      tfx_error(d, NULL, 0, 0, "--emit: unknown kind '%s'%s%s%s (kinds: %s)", word,
                hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "", all);
      tfx_api_list_free(&l);
      return -1;
    }
    *mask |= 1u << k;
  }
  tfx_api_list_free(&l);
  return 0;
}

int tfx_api_output_wants_ext(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (!*base || strchr(base, '.') || strcmp(path, "-") == 0) return 0;
  struct stat st; /* an existing device, FIFO or directory is taken as given */
  return stat(path, &st) != 0 || S_ISREG(st.st_mode);
}

int tfx_api_output_paths(const char *model, const char *output, unsigned mask,
                         char *paths[TFX_EMIT__COUNT], tfx_diag *d) {
  unsigned kinds = 0;
  for (int k = 0; k < TFX_EMIT__COUNT; k++) {
    paths[k] = NULL;
    kinds += (mask >> k) & 1u;
  }
  for (int k = 0; k < TFX_EMIT__COUNT; k++) {
    if (!(mask & (1u << k))) continue;
    const char *suffix = emit_kinds[k].suffix;
    if (output && kinds == 1 && !tfx_api_output_wants_ext(output)) { /* -o is the file */
      paths[k] = strdup(output);
    } else if (output) { /* several kinds: -o is a stem, each kind adds its extension */
      if (kinds == 1) /* ATC's --output=NAME: the extension is added */
        tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "-o %s has no extension: writing %s%s (as ATC's "
                     "--output adds .om)", output, output, suffix);
      size_t n = strlen(output) + strlen(suffix) + 1;
      paths[k] = malloc(n);
      if (paths[k]) snprintf(paths[k], n, "%s%s", output, suffix);
    } else {
      paths[k] = tfx_ctx_default_output(model, suffix);
    }
    if (!paths[k]) {
      for (int j = 0; j < TFX_EMIT__COUNT; j++) {
        free(paths[j]);
        paths[j] = NULL;
      }
      tfx_error(d, NULL, 0, 0, "out of memory");
      return -1;
    }
  }
  return 0;
}

int tfx_api_split_disable(tfx_pipeline *p, const char *list, char **pipe, char **rules) {
  tfx_strbuf a, b;
  tfx_sb_init(&a);
  tfx_sb_init(&b);
  const char *names[64];
  size_t nn = 0;
  for (size_t i = 0; i < p->n && nn < 64; i++) names[nn++] = p->passes[i].name;
  tfx_api_list l;
  if (tfx_api_list_split(list, &l) != 0) a.oom = 1;
  for (size_t i = 0; i < l.n; i++) {
    const char *word = l.items[i];
    size_t n = strlen(word);
    int pipeline = n == 0 || n >= 128 || tfx_pipeline_find(p, word) ||
                   strcmp(word, "all") == 0 || tfx_pipeline_closest(word, names, nn);
    tfx_strbuf *t = pipeline ? &a : &b;
    if (t->len) tfx_sb_putc(t, ',');
    tfx_sb_add(t, word, n);
  }
  tfx_api_list_free(&l);
  int rc = a.oom || b.oom ? -1 : 0;
  *pipe = rc ? NULL : strdup(tfx_sb_cstr(&a));
  *rules = rc ? NULL : strdup(tfx_sb_cstr(&b));
  tfx_sb_free(&a);
  tfx_sb_free(&b);
  if (!*pipe || !*rules) {
    free(*pipe);
    free(*rules);
    *pipe = *rules = NULL;
    return -1;
  }
  return 0;
}

int tfx_api_report_json(const tfx_ctx *ctx, const char *model, int run_rc, tfx_strbuf *sb) {
  tfx_strbuf fj;
  tfx_sb_init(&fj);
  tfx_sb_puts(sb, "{\n \"tfxc_report\": 1,\n \"model\": ");
  tfx_sb_json_str(sb, model, strlen(model));
  tfx_sb_printf(sb, ",\n \"exit_code\": %d,\n ", tfx_status_exit_code((tfx_status)run_rc));
  uint32_t n_fail = 0;
  if (ctx->opmap) { /* ATC's check_result.json members */
    /* a failed run is a failed precheck, also when no node is to blame (issue 15) */
    if (tfx_precheck_json_run(ctx, model, run_rc != 0, sb, &n_fail) != 0) sb->oom = 1;
    tfx_sb_puts(sb, ",\n ");
  }
  tfx_sb_puts(sb, "\"scope_fusion\": ");
  if (!ctx->fusion_report) tfx_sb_puts(sb, "null");
  else if (tfx_fusion_report_json(ctx->fusion_report, &fj) == 0 && !fj.oom) {
    /* re-indent: JSON strings hold no raw newline, so every '\n' is a line break */
    size_t n = fj.len;
    while (n && fj.data[n - 1] == '\n') n--;
    for (size_t i = 0; i < n; i++) {
      tfx_sb_putc(sb, fj.data[i]);
      if (fj.data[i] == '\n') tfx_sb_putc(sb, ' ');
    }
  } else sb->oom = 1;
  if (ctx->flow_report) { /* dataflow rewrites (present when some rewrite was enabled) */
    tfx_sb_reset(&fj);
    tfx_sb_puts(sb, ",\n \"dataflow\": ");
    if (tfx_flow_report_json(ctx->flow_report, &fj) == 0 && !fj.oom)
      for (size_t i = 0; i < fj.len; i++) {
        tfx_sb_putc(sb, fj.data[i]);
        if (fj.data[i] == '\n') tfx_sb_putc(sb, ' ');
      }
    else sb->oom = 1;
  }
  tfx_sb_puts(sb, "\n}\n");
  tfx_sb_free(&fj);
  return sb->oom ? -1 : 0;
}

int tfx_api_parse_uint(const char *s, unsigned *out) {
  if (!s || !*s) return -1;
  unsigned long v = 0;
  for (const char *p = s; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    v = v * 10 + (unsigned long)(*p - '0');
    if (v > 1000000000ul) return -1;
  }
  *out = (unsigned)v;
  return 0;
}

int tfx_api_parse_size(const char *s, size_t *out) {
  if (!s || *s < '0' || *s > '9') return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno) return -1;
  unsigned shift = 0;
  if (*end) {
    switch (*end) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: return -1;
    }
    end++;
    if (*end == 'i' || *end == 'I') end++; /* "Mi" */
    if (*end == 'b' || *end == 'B') end++; /* "MB", "MiB" */
    if (*end) return -1;
  }
  if (v > (SIZE_MAX >> shift)) return -1;
  *out = (size_t)(v << shift);
  return 0;
}

int tfx_api_check_verdict(tfx_pipeline *p, const tfx_ctx *ctx, int rc, uint32_t *n_failed,
                          tfx_diag *d) {
  *n_failed = ctx->opmap ? ctx->opmap->n_failed : 0;
  if (rc) return rc;
  if (!ctx->opmap) {
    const tfx_pass *om = tfx_pipeline_find(p, "op-mapping");
    tfx_error(d, NULL, 0, 0, "--check: the op mapping did not run%s",
              om && !om->enabled ? " (pass 'op-mapping' is disabled)" : "");
    return TFX_EXIT_FAIL;
  }
  return *n_failed ? TFX_EXIT_FAIL : 0; /* the report lists them */
}
