/* The command line's diagnostics (cli.h): what the commands and the library's sessions report,
 * collected and printed once at the end.
 * Stage: cli. Input: messages of the commands and the library's tfxc_diagnostic records
 * (tfx_cli_diag_forward). Output: stderr, `file:line:col: error: message`, then the rule
 * source line and a caret when known; after the first 1000 a count of those not shown. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define MAX_SHOWN 1000 /* diagnostics kept for printing; the rest are counted */

void tfx_cli_diag_init(tfx_cli_diag *d) { memset(d, 0, sizeof *d); }

void tfx_cli_diag_clear(tfx_cli_diag *d) {
  for (size_t i = 0; i < d->n; i++) {
    free(d->items[i].file);
    free(d->items[i].msg);
    free(d->items[i].rule);
  }
  d->n = 0;
  d->errors = d->warnings = 0;
}

void tfx_cli_diag_free(tfx_cli_diag *d) {
  tfx_cli_diag_clear(d);
  free(d->items);
  d->items = NULL;
  d->cap = 0;
}

static char *dupstr(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *p = malloc(n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

/* A new item (counted), or NULL when it is not kept (over the cap, out of memory). */
static tfx_cli_diag_item *add_item(tfx_cli_diag *d, tfxc_severity sev) {
  if (sev == TFXC_SEV_ERROR) d->errors++;
  else if (sev == TFXC_SEV_WARNING) d->warnings++;
  if (d->n >= MAX_SHOWN) return NULL;
  if (d->n == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 8;
    tfx_cli_diag_item *it = realloc(d->items, cap * sizeof *it);
    if (!it) return NULL;
    d->items = it;
    d->cap = cap;
  }
  tfx_cli_diag_item *it = &d->items[d->n++];
  memset(it, 0, sizeof *it);
  it->sev = sev;
  it->span = 1;
  return it;
}

static void addv(tfx_cli_diag *d, tfxc_severity sev, const char *file, unsigned line,
                 unsigned col, const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));
static void addv(tfx_cli_diag *d, tfxc_severity sev, const char *file, unsigned line,
                 unsigned col, const char *fmt, va_list ap) {
  tfx_cli_diag_item *it = add_item(d, sev);
  if (!it) return;
  char buf[1024]; /* the library's length for a message */
  vsnprintf(buf, sizeof buf, fmt, ap);
  it->file = dupstr(file);
  it->line = line;
  it->col = col;
  it->msg = dupstr(buf);
}

void tfx_cli_diag_add(tfx_cli_diag *d, tfxc_severity sev, const char *file, unsigned line,
                      unsigned col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  addv(d, sev, file, line, col, fmt, ap);
  va_end(ap);
}

void tfx_cli_error(tfx_cli_diag *d, const char *file, unsigned line, unsigned col,
                   const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  addv(d, TFXC_SEV_ERROR, file, line, col, fmt, ap);
  va_end(ap);
}

void tfx_cli_warning(tfx_cli_diag *d, const char *file, unsigned line, unsigned col,
                     const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  addv(d, TFXC_SEV_WARNING, file, line, col, fmt, ap);
  va_end(ap);
}

void tfx_cli_diag_forward(tfx_cli_diag *d, const tfxc_diagnostic *dg) {
  tfx_cli_diag_item *it = add_item(d, dg->severity);
  if (!it) return;
  it->file = dupstr(dg->file);
  it->line = dg->line;
  it->col = dg->column;
  it->msg = dupstr(dg->message);
  if (dg->rule) {
    it->rule = dupstr(dg->rule);
    it->span = dg->span ? dg->span : 1;
  }
}

void tfx_cli_diag_forward_fn(void *user, const tfxc_diagnostic *dg) {
  tfx_cli_diag_forward(user, dg);
}

int tfx_cli_diag_has_errors(const tfx_cli_diag *d) { return d->errors > 0; }

static const char *sev_name(tfxc_severity s) {
  return s == TFXC_SEV_ERROR ? "error" : s == TFXC_SEV_WARNING ? "warning" : "note";
}

void tfx_cli_diag_print(const tfx_cli_diag *d, FILE *f) {
  for (size_t i = 0; i < d->n; i++) {
    const tfx_cli_diag_item *it = &d->items[i];
    if (it->file && it->line && it->col) fprintf(f, "%s:%u:%u: ", it->file, it->line, it->col);
    else if (it->file && it->line) fprintf(f, "%s:%u: ", it->file, it->line);
    else if (it->file) fprintf(f, "%s: ", it->file);
    else fputs("tfxc: ", f);
    fprintf(f, "%s: %s\n", sev_name(it->sev), it->msg ? it->msg : "(out of memory)");
    if (it->rule && it->col) {
      fprintf(f, "  %s\n  ", it->rule);
      /* tabs are kept so the caret lines up under tab-indented source */
      for (unsigned c = 1; c < it->col && it->rule[c - 1]; c++)
        fputc(it->rule[c - 1] == '\t' ? '\t' : ' ', f);
      fputc('^', f);
      for (unsigned s = 1; s < it->span; s++) fputc('~', f);
      fputc('\n', f);
    }
  }
  if (d->errors + d->warnings > d->n)
    fprintf(f, "tfxc: note: %zu more diagnostics not shown\n", d->errors + d->warnings - d->n);
}
