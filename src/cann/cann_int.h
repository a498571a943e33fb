/* Internals shared by the op-table readers (cann.c, tf_ops.c): TSV lines, columns and items,
 * string unescaping and error reporting.
 * Stage: cann (data only). A tfx_tsv walks a borrowed text line by line; columns and items are
 * spans into that text, never copied until a reader keeps them (in its table's arena). Every
 * error is reported at `file:line:col` (col 1-based, in bytes) and counted in tsv->errors;
 * readers go on with the next line so that one run reports every malformed line. */
#ifndef TFX_CANN_CANN_INT_H
#define TFX_CANN_CANN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/diag.h"
#include "stdlib_embed.h"

/* A span of the text. */
typedef struct tfx_span {
  const char *s;
  size_t n;
} tfx_span;

typedef struct tfx_tsv {
  const char *text, *end, *p; /* whole text, its end, the next unread byte */
  const char *fname;
  tfx_diag *d;
  unsigned line;              /* line number of the line last returned (1-based) */
  const char *line_start;     /* its first byte (columns are counted from here) */
  size_t errors;
} tfx_tsv;

#define TFX_TSV_MAX_COLS 5

void tfx_tsv_init(tfx_tsv *t, const char *text, size_t len, const char *fname, tfx_diag *d);
/* The next data line (without its '\n' and a trailing '\r'), skipping blank lines and lines
 * starting with '#'. Returns 0 at the end of the text. */
int tfx_tsv_next(tfx_tsv *t, tfx_span *line);
/* Splits line at tabs into exactly want columns; reports and returns -1 otherwise (the column
 * reported is the end of the line when a column is missing, the first extra tab otherwise). */
int tfx_tsv_columns(tfx_tsv *t, tfx_span line, tfx_span *cols, size_t want);
/* Reports an error at the byte at of the current line (NULL: the line start). */
void tfx_tsv_error(tfx_tsv *t, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Reports out of memory (at the current line) and counts an error. */
void tfx_tsv_oom(tfx_tsv *t);

/* The ','-separated items of a column, in order. An empty column has no items; an empty
 * item between two commas is returned as such (readers report it). */
typedef struct tfx_items {
  const char *p, *end;
  int done;
} tfx_items;
void tfx_items_init(tfx_items *it, tfx_span col);
int tfx_items_next(tfx_items *it, tfx_span *item); /* 0 when none is left */
/* Index of the first c in sp (from byte from), or -1. */
long tfx_span_find(tfx_span sp, size_t from, char c);
int tfx_span_eq(tfx_span sp, const char *lit);
/* 1 if sp is a nonempty [A-Za-z_][A-Za-z0-9_]* identifier. */
int tfx_span_is_ident(tfx_span sp);

/* Decodes the body of a quoted string (the text between the quotes) into a new NUL-terminated
 * arena string: \xHH, \t, \n, \r, \\, \", \' and \0. *len gets its length. Returns NULL with
 * *bad pointing at the offending backslash when an escape is unknown or truncated, or with
 * *bad NULL when out of memory. */
char *tfx_unescape(tfx_arena *a, tfx_span body, size_t *len, const char **bad);

/* The embedded stdlib file called name ("<stdlib>/ops/cann-ops.tsv"), or NULL (reported). */
const tfx_embedded_file *tfx_cann_embedded(const char *name, tfx_diag *d);

#endif
