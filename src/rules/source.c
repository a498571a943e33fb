/* Rule sets as a service: the object, its sources (text, kind, line starts), locations and
 * reporting. Stage: rules, front end (used by the loading driver load.c, the parser and sema).
 * Input: source texts handed over by the driver. Output: sources owned by the rule set's arena,
 * parsed on arrival (build.c); `file:line:col` diagnostics with the source line and a caret. */
#include "rules/source.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/build.h"

tfx_ruleset *tfx_ruleset_new(void) {
  tfx_ruleset *rs = tfx_calloc(1, sizeof *rs);
  if (rs) tfx_arena_init(&rs->arena);
  return rs;
}

void tfx_ruleset_set_max_depth(tfx_ruleset *rs, unsigned n) {
  rs->max_depth = n > TFX_AST_MAX_DEPTH ? TFX_AST_MAX_DEPTH : n;
}

void tfx_ruleset_free(tfx_ruleset *rs) {
  if (!rs) return;
  tfx_arena_free(&rs->arena);
  free(rs->sources);
  free(rs->passes);
  free(rs->opmaps);
  free(rs);
}

size_t tfx_ruleset_n_sources(const tfx_ruleset *rs) { return rs->n_sources; }
const tfx_rules_source *tfx_ruleset_source(const tfx_ruleset *rs, size_t i) {
  return i < rs->n_sources ? &rs->sources[i] : NULL;
}
size_t tfx_ruleset_errors(const tfx_ruleset *rs) { return rs->errors; }
int tfx_ruleset_oom(const tfx_ruleset *rs) { return rs->oom; }

/* ---------------------------------------------------------------- locations */

void tfx_ruleset_linecol(const tfx_ruleset *rs, tfx_rules_loc loc, unsigned *line, unsigned *col) {
  *line = *col = 0;
  if (loc.file >= rs->n_sources) return;
  const tfx_rules_source *s = &rs->sources[loc.file];
  if (!s->line_starts || !s->n_lines) return;
  uint32_t lo = 0, hi = s->n_lines; /* last line start <= off */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->line_starts[mid] <= loc.off) lo = mid;
    else hi = mid;
  }
  *line = lo + 1;
  *col = loc.off - s->line_starts[lo] + 1;
}

const char *tfx_ruleset_where(const tfx_ruleset *rs, tfx_rules_loc loc, uint32_t from_file,
                              char *buf, size_t size) {
  unsigned line, col;
  tfx_ruleset_linecol(rs, loc, &line, &col);
  if (loc.file == from_file || loc.file >= rs->n_sources) snprintf(buf, size, "%u:%u", line, col);
  else snprintf(buf, size, "%s:%u:%u", rs->sources[loc.file].name, line, col);
  return buf;
}

void tfx_rules_reportv(tfx_ruleset *rs, tfx_diag *d, tfx_severity sev, tfx_rules_loc loc,
                       const char *fmt, va_list ap) {
  if (sev == TFX_SEV_ERROR || (sev == TFX_SEV_WARNING && d->werror)) rs->errors++;
  if (loc.file >= rs->n_sources) {
    tfx_diag_addv(d, sev, NULL, 0, 0, fmt, ap);
    return;
  }
  const tfx_rules_source *s = &rs->sources[loc.file];
  unsigned line, col;
  tfx_ruleset_linecol(rs, loc, &line, &col);
  size_t before = d->n;
  tfx_diag_addv(d, sev, s->name, line, col, fmt, ap);
  if (d->n == before || !line) return; /* not recorded (limit reached) */
  uint32_t ls = s->line_starts[line - 1];
  uint32_t le = ls;
  while (le < s->len && s->text[le] != '\n') le++;
  uint32_t end = loc.end < le ? loc.end : le;
  unsigned span = end > loc.off ? end - loc.off : 1;
  tfx_diag_set_source(d, s->text + ls, le - ls, span);
}

void tfx_rules_report(tfx_ruleset *rs, tfx_diag *d, tfx_severity sev, tfx_rules_loc loc,
                      const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tfx_rules_reportv(rs, d, sev, loc, fmt, ap);
  va_end(ap);
}

/* ---------------------------------------------------------------- sources */

int tfx_rules_source_add(tfx_ruleset *rs, const char *name, tfx_ast_file_kind kind, const char *text,
                         size_t len, tfx_diag *d) {
  if (len >= TFX_RULES_MAX_FILE) {
    tfx_error(d, name, 0, 0, "rule file too large (%zu bytes; the limit is %u)", len, TFX_RULES_MAX_FILE);
    rs->errors++;
    return -1;
  }
  if (rs->n_sources == rs->cap_sources) {
    uint32_t cap = rs->cap_sources ? rs->cap_sources * 2 : 8;
    tfx_rules_source *ns = tfx_realloc(rs->sources, cap * sizeof *ns);
    if (!ns) goto oom;
    rs->sources = ns;
    rs->cap_sources = cap;
  }
  tfx_rules_source *s = &rs->sources[rs->n_sources];
  memset(s, 0, sizeof *s);
  s->name = tfx_arena_strdup(&rs->arena, name);
  char *t = tfx_arena_alloc(&rs->arena, len + 1);
  if (!s->name || !t) goto oom;
  memcpy(t, text, len);
  t[len] = 0;
  s->text = t;
  s->len = len;
  s->kind = kind;
  uint32_t n = 1;
  for (size_t i = 0; i < len; i++)
    if (text[i] == '\n') n++;
  s->line_starts = tfx_arena_calloc(&rs->arena, n, sizeof *s->line_starts);
  if (!s->line_starts) goto oom;
  n = 1;
  for (size_t i = 0; i < len; i++)
    if (text[i] == '\n') s->line_starts[n++] = (uint32_t)(i + 1);
  s->n_lines = n;
  uint32_t id = rs->n_sources++;
  return tfx_rules_parse_source(rs, id, d);
oom:
  tfx_error(d, name, 0, 0, "out of memory while loading rules");
  rs->errors++;
  rs->oom = 1;
  return -1;
}
