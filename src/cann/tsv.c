/* TSV lines, columns and items for the op tables (see cann_int.h).
 * Stage: cann (data only). Input: a borrowed text. Output: spans into it and diagnostics. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cann/cann_int.h"

void tfx_tsv_init(tfx_tsv *t, const char *text, size_t len, const char *fname, tfx_diag *d) {
  memset(t, 0, sizeof *t);
  t->text = t->p = text ? text : "";
  t->end = t->text + (text ? len : 0);
  t->fname = fname ? fname : "<op table>";
  t->d = d;
  t->line_start = t->text;
}

int tfx_tsv_next(tfx_tsv *t, tfx_span *line) {
  while (t->p < t->end) {
    const char *s = t->p;
    const char *nl = memchr(s, '\n', (size_t)(t->end - s));
    const char *e = nl ? nl : t->end;
    t->p = nl ? nl + 1 : t->end;
    t->line++;
    t->line_start = s;
    if (e > s && e[-1] == '\r') e--;
    if (e == s || *s == '#') continue;
    line->s = s;
    line->n = (size_t)(e - s);
    return 1;
  }
  return 0;
}

void tfx_tsv_error(tfx_tsv *t, const char *at, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  unsigned col = at && at >= t->line_start ? (unsigned)(at - t->line_start) + 1 : 0;
  tfx_error(t->d, t->fname, t->line, col, "%s", msg);
  t->errors++;
}

void tfx_tsv_oom(tfx_tsv *t) { tfx_tsv_error(t, NULL, "out of memory reading the op table"); }

int tfx_tsv_columns(tfx_tsv *t, tfx_span line, tfx_span *cols, size_t want) {
  size_t n = 0;
  const char *s = line.s, *end = line.s + line.n, *extra = NULL;
  for (;;) {
    const char *tab = memchr(s, '\t', (size_t)(end - s));
    const char *e = tab ? tab : end;
    if (n < want) cols[n] = (tfx_span){s, (size_t)(e - s)};
    n++;
    if (!tab) break;
    if (n == want) extra = tab; /* the tab that starts the first extra column */
    s = tab + 1;
  }
  if (n != want) { /* at the end of the line (a column is missing) or at the first extra tab */
    tfx_tsv_error(t, n < want ? end : extra, "expected %zu tab-separated columns, found %zu", want, n);
    return -1;
  }
  return 0;
}

void tfx_items_init(tfx_items *it, tfx_span col) {
  it->p = col.s;
  it->end = col.s + col.n;
  it->done = col.n == 0;
}

int tfx_items_next(tfx_items *it, tfx_span *item) {
  if (it->done) return 0;
  const char *c = memchr(it->p, ',', (size_t)(it->end - it->p));
  const char *e = c ? c : it->end;
  item->s = it->p;
  item->n = (size_t)(e - it->p);
  if (c) it->p = c + 1;
  else it->done = 1;
  return 1;
}

long tfx_span_find(tfx_span sp, size_t from, char c) {
  for (size_t i = from; i < sp.n; i++)
    if (sp.s[i] == c) return (long)i;
  return -1;
}

int tfx_span_eq(tfx_span sp, const char *lit) {
  size_t n = strlen(lit);
  return sp.n == n && memcmp(sp.s, lit, n) == 0;
}

int tfx_span_is_ident(tfx_span sp) {
  if (sp.n == 0) return 0;
  for (size_t i = 0; i < sp.n; i++) {
    unsigned char c = (unsigned char)sp.s[i];
    int ok = c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return 0;
  }
  return 1;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char *tfx_unescape(tfx_arena *a, tfx_span body, size_t *len, const char **bad) {
  *bad = NULL;
  char *out = tfx_arena_alloc(a, body.n + 1);
  if (!out) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < body.n; i++) {
    char c = body.s[i];
    if (c != '\\') {
      out[k++] = c;
      continue;
    }
    if (i + 1 >= body.n) {
      *bad = body.s + i;
      return NULL;
    }
    char e = body.s[++i];
    switch (e) {
      case 't': out[k++] = '\t'; break;
      case 'n': out[k++] = '\n'; break;
      case 'r': out[k++] = '\r'; break;
      case '0': out[k++] = '\0'; break;
      case '\\': case '"': case '\'': out[k++] = e; break;
      case 'x': {
        int h = i + 2 < body.n ? hexval(body.s[i + 1]) : -1, l = h >= 0 ? hexval(body.s[i + 2]) : -1;
        if (h < 0 || l < 0) {
          *bad = body.s + i - 1;
          return NULL;
        }
        out[k++] = (char)(h * 16 + l);
        i += 2;
        break;
      }
      default: *bad = body.s + i - 1; return NULL;
    }
  }
  out[k] = 0;
  *len = k;
  return out;
}
