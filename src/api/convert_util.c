/* What the convert command decides around the pipeline, as library functions: emit kinds and
 * their file suffixes, the --disable-pass split, the --report JSON, option value parsing.
 * Stage: api. Output: identical to src/cli/cmd_convert.c / args.c (the CLI still holds its own
 * copies until it is ported to the API; tests/api/api_vs_cli.sh compares the outputs). */
#define _POSIX_C_SOURCE 200809L
#include "api/api_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusion/dataflow.h"
#include "fusion/engine.h"
#include "util/status.h"

static const struct {
  const char *name;
  const char *suffix; /* default output: <model stem><suffix> */
} emit_kinds[TFX_EMIT__COUNT] = {
  [TFX_EMIT_AIR] = {"air", ".air"},
  [TFX_EMIT_GE_PBTXT] = {"ge-pbtxt", ".ge.pbtxt"},
  [TFX_EMIT_GE_JSON] = {"ge-json", ".ge.json"},
  [TFX_EMIT_DOT] = {"dot", ".dot"},
  [TFX_EMIT_TF_PBTXT] = {"tf-pbtxt", ".tf.pbtxt"},
};

int tfx_api_emit_kind(const char *name) {
  for (int k = 0; name && k < TFX_EMIT__COUNT; k++)
    if (strcmp(emit_kinds[k].name, name) == 0) return k;
  return -1;
}
const char *tfx_api_emit_name(int kind) { return emit_kinds[kind].name; }
const char *tfx_api_emit_suffix(int kind) { return emit_kinds[kind].suffix; }

int tfx_api_parse_emit(const char *s, unsigned *mask, tfx_diag *d) {
  *mask = 0;
  for (;;) {
    const char *e = strchr(s, ',');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    int k = 0;
    for (; k < TFX_EMIT__COUNT; k++)
      if (strlen(emit_kinds[k].name) == n && memcmp(emit_kinds[k].name, s, n) == 0) break;
    if (k == TFX_EMIT__COUNT) {
      char word[64];
      size_t wn = n < sizeof word - 1 ? n : sizeof word - 1;
      memcpy(word, s, wn);
      word[wn] = 0;
      const char *names[TFX_EMIT__COUNT];
      for (int j = 0; j < TFX_EMIT__COUNT; j++) names[j] = emit_kinds[j].name;
      const char *hint = tfx_pipeline_closest(word, names, TFX_EMIT__COUNT);
      tfx_error(d, NULL, 0, 0,
                "--emit: unknown kind '%s'%s%s%s (kinds: air, ge-pbtxt, ge-json, dot, tf-pbtxt)",
                word, hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
      return -1;
    }
    *mask |= 1u << k;
    if (!e) break;
    s = e + 1;
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
  const char *s = list;
  for (;;) {
    const char *e = strchr(s, ',');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    char word[128];
    size_t wn = n < sizeof word - 1 ? n : sizeof word - 1;
    memcpy(word, s, wn);
    word[wn] = 0;
    int pipeline = n == 0 || wn != n || tfx_pipeline_find(p, word) ||
                   strcmp(word, "all") == 0 || tfx_pipeline_closest(word, names, nn);
    tfx_strbuf *t = pipeline ? &a : &b;
    if (t->len) tfx_sb_putc(t, ',');
    tfx_sb_add(t, s, n);
    if (!e) break;
    s = e + 1;
  }
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
    if (tfx_precheck_json(ctx, model, sb, &n_fail) != 0) sb->oom = 1;
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

#define LIMIT_VM_STEPS_MAX 1000000000u

static int parse_limit_value(const char *s, size_t n, int is_size, uint64_t *out) {
  char buf[64];
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, s, n);
  buf[n] = 0;
  if (is_size) {
    size_t v;
    if (tfx_api_parse_size(buf, &v) != 0) return -1;
    *out = v;
    return 0;
  }
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (buf[i] < '0' || buf[i] > '9') return -1;
    if (v > (UINT64_MAX - 9) / 10) return -1;
    v = v * 10 + (uint64_t)(buf[i] - '0');
  }
  *out = v;
  return 0;
}

int tfx_api_parse_limit(const char *spec, tfx_limits *lim, size_t *file_size, uint64_t *vm_steps,
                        tfx_diag *d) {
  const char *s = spec;
  if (!*s) {
    tfx_error(d, NULL, 0, 0, "--limit: empty value (expected NAME=N[,NAME=N...])");
    return -1;
  }
  for (;;) {
    const char *e = strchr(s, ',');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    const char *eq = memchr(s, '=', n);
    size_t nl = eq ? (size_t)(eq - s) : n;
    char name[64];
    size_t wn = nl < sizeof name - 1 ? nl : sizeof name - 1;
    memcpy(name, s, wn);
    name[wn] = 0;
    int id = wn == nl ? tfx_limit_lookup(s, nl) : -1;
    int alias = 0; /* 1 file-size, 2 vm-steps */
    if (id < 0 && strcmp(name, "file-size") == 0) alias = 1;
    if (id < 0 && strcmp(name, "vm-steps") == 0) alias = 2;
    if (id < 0 && !alias) {
      const char *names[TFX_LIMIT__COUNT + 2];
      for (int i = 0; i < TFX_LIMIT__COUNT; i++) names[i] = tfx_limit_table[i].name;
      names[TFX_LIMIT__COUNT] = "file-size";
      names[TFX_LIMIT__COUNT + 1] = "vm-steps";
      const char *hint = tfx_pipeline_closest(name, names, TFX_LIMIT__COUNT + 2);
      tfx_error(d, NULL, 0, 0, "--limit: unknown limit '%s'%s%s%s (limits: file-size, depth, "
                "string, list, nodes, scope-depth, rule-depth, vm-steps, output-size)",
                name, hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
      return -1;
    }
    int is_size = alias == 1 || (id >= 0 && tfx_limit_table[id].is_size);
    uint64_t max = alias == 1   ? (uint64_t)SIZE_MAX
                   : alias == 2 ? LIMIT_VM_STEPS_MAX
                                : tfx_limit_table[id].max;
    uint64_t v;
    if (!eq || parse_limit_value(eq + 1, n - nl - 1, is_size, &v) != 0 || v == 0 || v > max) {
      int vn = eq ? (int)(n - nl - 1) : 0;
      tfx_error(d, NULL, 0, 0, "--limit %s: '%.*s' is not a %s from 1 to %llu%s", name,
                vn > 40 ? 40 : vn, eq ? eq + 1 : "", is_size ? "size" : "number",
                (unsigned long long)max, is_size ? " (K, M, G suffixes allowed)" : "");
      return -1;
    }
    if (alias == 1) *file_size = (size_t)v;
    else if (alias == 2) *vm_steps = v;
    else lim->v[id] = v;
    if (!e) break;
    s = e + 1;
  }
  return 0;
}
