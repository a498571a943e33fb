/* Scope-pass enable set: Ascend's registry flags (is_general = enabled by default) plus the
 * --enable-scope-fusion-passes / --disable-pass switches (docs/ASCEND.md §4.5).
 * Stage: fusion. Passes are the TFX_RULE_PASS rules of the pack, in pack (registration)
 * order; the rule compiler keeps only the first registration of a name, so names are unique.
 * Dataflow rewrites (TFX_RULE_FLOW) are switched by name the same way (`general` = on). */
#include <stdlib.h>
#include <string.h>

#include "fusion/engine.h"
#include "util/status.h"

tfx_status tfx_fusion_enables_init(tfx_fusion_enables *e, const tfx_pack *p, tfx_diag *d) {
  memset(e, 0, sizeof *e);
  e->pack = p;
  e->n = p->n_rules;
  e->on = tfx_calloc(e->n ? e->n : 1, 1);
  if (!e->on) {
    tfx_error(d, NULL, 0, 0, "out of memory (scope-fusion enable set)");
    return TFX_E_NOMEM;
  }
  for (uint32_t i = 0; i < p->n_rules; i++)
    e->on[i] = (p->rules[i].kind == TFX_RULE_PASS || p->rules[i].kind == TFX_RULE_FLOW) && (p->rules[i].flags & TFX_RULE_GENERAL);
  return TFX_OK;
}

void tfx_fusion_enables_free(tfx_fusion_enables *e) {
  free(e->on);
  memset(e, 0, sizeof *e);
}

uint32_t tfx_fusion_find_pass(const tfx_pack *p, const char *name, size_t len) {
  for (uint32_t i = 0; i < p->n_rules; i++) {
    if (p->rules[i].kind != TFX_RULE_PASS && p->rules[i].kind != TFX_RULE_FLOW) continue;
    const char *s = tfx_pack_str(p, p->rules[i].name);
    if (s && strlen(s) == len && memcmp(s, name, len) == 0) return i;
  }
  return TFX_PACK_NONE;
}

void tfx_fusion_pass_names(const tfx_pack *p, tfx_strbuf *out) {
  int first = 1;
  for (uint32_t i = 0; i < p->n_rules; i++) {
    if (p->rules[i].kind != TFX_RULE_PASS && p->rules[i].kind != TFX_RULE_FLOW) continue;
    const char *s = tfx_pack_str(p, p->rules[i].name);
    if (!first) tfx_sb_puts(out, ", ");
    tfx_sb_puts(out, s ? s : "?");
    first = 0;
  }
  if (first) tfx_sb_puts(out, "(none)");
}

static void unknown(const tfx_pack *p, const char *opt, const char *s, size_t n, tfx_diag *d) {
  tfx_strbuf b;
  tfx_sb_init(&b);
  tfx_fusion_pass_names(p, &b);
  tfx_error(d, NULL, 0, 0, "%s: unknown scope-fusion pass '%.*s' (known: %s)", opt, (int)n, s,
            b.oom ? "?" : tfx_sb_cstr(&b));
  tfx_sb_free(&b);
}

/* Walks the comma-separated items of list; sets on[] to value for known names. */
static tfx_status walk(tfx_fusion_enables *e, const char *list, int value, const char *opt,
                       tfx_strbuf *rest, tfx_diag *d) {
  tfx_status rc = TFX_OK;
  if (!list) return 0;
  const char *p = list;
  for (;;) {
    const char *c = strchr(p, ',');
    size_t n = c ? (size_t)(c - p) : strlen(p);
    if (n > 0) {
      uint32_t r = tfx_fusion_find_pass(e->pack, p, n);
      if (r != TFX_PACK_NONE && r < e->n) {
        e->on[r] = (uint8_t)value;
      } else if (rest) {
        if (rest->len) tfx_sb_putc(rest, ',');
        tfx_sb_add(rest, p, n);
        if (rest->oom) {
          tfx_error(d, NULL, 0, 0, "out of memory");
          return TFX_E_NOMEM;
        }
      } else {
        unknown(e->pack, opt, p, n, d);
        rc = TFX_E_USAGE;
      }
    }
    if (!c) break;
    p = c + 1;
  }
  return rc;
}

tfx_status tfx_fusion_enable(tfx_fusion_enables *e, const char *list, tfx_diag *d) {
  return walk(e, list, 1, "--enable-scope-fusion-passes", NULL, d);
}

tfx_status tfx_fusion_disable(tfx_fusion_enables *e, const char *list, tfx_strbuf *rest,
                              tfx_diag *d) {
  return walk(e, list, 0, "--disable-pass", rest, d);
}
