/* Diagnostics context (see diag.h). */
#include "util/diag.h"

#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/strbuf.h"

void tfx_diag_init(tfx_diag *d) { memset(d, 0, sizeof *d); }

void tfx_diag_clear(tfx_diag *d) {
  for (size_t i = 0; i < d->n; i++) {
    free(d->items[i].file);
    free(d->items[i].msg);
    free(d->items[i].source_line);
  }
  d->n = 0;
  d->errors = d->warnings = 0;
  d->dropped_errors = d->dropped_warnings = 0;
  free(d->last_dropped_error.file);
  free(d->last_dropped_error.msg);
  memset(&d->last_dropped_error, 0, sizeof d->last_dropped_error);
  d->last_dropped = 0;
}

void tfx_diag_free(tfx_diag *d) {
  tfx_diag_clear(d);
  free(d->items);
  d->items = NULL;
  d->cap = 0;
}

static char *dupstr(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *p = malloc(n + 1); /* diagnostics bypass fault injection so failures can be reported */
  if (p) memcpy(p, s, n + 1);
  return p;
}

void tfx_diag_addv(tfx_diag *d, tfx_severity sev, const char *file, unsigned line, unsigned col,
                   const char *fmt, va_list ap) {
  if (sev == TFX_SEV_WARNING && d->werror) sev = TFX_SEV_ERROR;
  if (sev == TFX_SEV_ERROR) d->errors++;
  else if (sev == TFX_SEV_WARNING) d->warnings++;
  size_t max = d->max_items ? d->max_items : 1000;
  char buf[1024];
  d->last_dropped = 1;
  if (d->n >= max) { /* counted only; the last such error is kept for the caller's summary */
    if (sev == TFX_SEV_ERROR) d->dropped_errors++;
    else if (sev == TFX_SEV_WARNING) d->dropped_warnings++;
    if (sev == TFX_SEV_ERROR) {
      tfx_diag_item *e = &d->last_dropped_error;
      free(e->file);
      free(e->msg);
      vsnprintf(buf, sizeof buf, fmt, ap);
      *e = (tfx_diag_item){sev, dupstr(file), line, col, 1, dupstr(buf), NULL};
    }
    return;
  }
  if (d->n == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 8;
    tfx_diag_item *it = realloc(d->items, cap * sizeof *it);
    if (!it) return;
    d->items = it;
    d->cap = cap;
  }
  d->last_dropped = 0;
  vsnprintf(buf, sizeof buf, fmt, ap);
  tfx_diag_item *it = &d->items[d->n++];
  it->sev = sev;
  it->file = dupstr(file);
  it->line = line;
  it->col = col;
  it->span = 1;
  it->msg = dupstr(buf);
  it->source_line = NULL;
}

void tfx_diag_add(tfx_diag *d, tfx_severity sev, const char *file, unsigned line, unsigned col,
                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tfx_diag_addv(d, sev, file, line, col, fmt, ap);
  va_end(ap);
}

void tfx_error(tfx_diag *d, const char *file, unsigned line, unsigned col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tfx_diag_addv(d, TFX_SEV_ERROR, file, line, col, fmt, ap);
  va_end(ap);
}

void tfx_warning(tfx_diag *d, const char *file, unsigned line, unsigned col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tfx_diag_addv(d, TFX_SEV_WARNING, file, line, col, fmt, ap);
  va_end(ap);
}

void tfx_diag_set_source(tfx_diag *d, const char *line_start, size_t line_len, unsigned span) {
  if (!d->n || d->last_dropped) return; /* the message it belongs to was not recorded */
  tfx_diag_item *it = &d->items[d->n - 1];
  free(it->source_line);
  it->source_line = malloc(line_len + 1);
  if (it->source_line) {
    memcpy(it->source_line, line_start, line_len);
    it->source_line[line_len] = 0;
    /* Drop a CR of a CRLF line end so the caret lines up. */
    if (line_len && it->source_line[line_len - 1] == '\r') it->source_line[line_len - 1] = 0;
  }
  it->span = span ? span : 1;
}

static const char *sev_name(tfx_severity s) {
  return s == TFX_SEV_ERROR ? "error" : s == TFX_SEV_WARNING ? "warning" : "note";
}

void tfx_diag_print(const tfx_diag *d, FILE *f) {
  for (size_t i = 0; i < d->n; i++) {
    const tfx_diag_item *it = &d->items[i];
    if (it->file && it->line && it->col) fprintf(f, "%s:%u:%u: ", it->file, it->line, it->col);
    else if (it->file && it->line) fprintf(f, "%s:%u: ", it->file, it->line);
    else if (it->file) fprintf(f, "%s: ", it->file);
    else fputs("tfxc: ", f);
    fprintf(f, "%s: %s\n", sev_name(it->sev), it->msg ? it->msg : "(out of memory)");
    if (it->source_line && it->col) {
      fprintf(f, "  %s\n  ", it->source_line);
      /* Keep tabs so the caret lines up under tab-indented source. */
      for (unsigned c = 1; c < it->col && it->source_line[c - 1]; c++)
        fputc(it->source_line[c - 1] == '\t' ? '\t' : ' ', f);
      fputc('^', f);
      for (unsigned s = 1; s < it->span; s++) fputc('~', f);
      fputc('\n', f);
    }
  }
  size_t shown = d->n;
  if (d->errors + d->warnings > shown)
    fprintf(f, "tfxc: note: %zu more diagnostics not shown\n", d->errors + d->warnings - shown);
}

int tfx_diag_has_errors(const tfx_diag *d) { return d->errors > 0; }
