/* Diagnostics context: errors and warnings collected with locations; only the CLI prints.
 * Stage: shared utility. Messages are copied (owned by the context). A location is a file
 * name plus 1-based line/column; line 0 means "whole file". tfx_diag_print renders
 * `file:line:col: error: message`, then the source line and a caret when it is known. */
#ifndef TFX_UTIL_DIAG_H
#define TFX_UTIL_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

typedef enum { TFX_SEV_ERROR, TFX_SEV_WARNING, TFX_SEV_NOTE } tfx_severity;

typedef struct tfx_diag_item {
  tfx_severity sev;
  char *file;        /* may be NULL */
  unsigned line, col; /* 1-based; 0 = unknown */
  unsigned span;     /* caret length (>= 1 when col known) */
  char *msg;
  char *source_line; /* the source text of that line, may be NULL */
} tfx_diag_item;

typedef struct tfx_diag {
  tfx_diag_item *items;
  size_t n, cap;
  size_t errors, warnings;
  size_t max_items;   /* stop recording after this many (counts still grow); 0 = 1000 */
  int werror;         /* warnings count as errors */
  size_t dropped_errors, dropped_warnings; /* counted but not recorded (over max_items) */
  tfx_diag_item last_dropped_error; /* the last error not recorded (msg NULL: none) */
  int last_dropped;   /* the most recent message was not recorded (tfx_diag_set_source skips) */
} tfx_diag;

void tfx_diag_init(tfx_diag *d);
void tfx_diag_free(tfx_diag *d);
void tfx_diag_clear(tfx_diag *d);

/* Record a message. file may be NULL; line/col 0 when unknown. */
void tfx_diag_add(tfx_diag *d, tfx_severity sev, const char *file, unsigned line, unsigned col,
                  const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void tfx_diag_addv(tfx_diag *d, tfx_severity sev, const char *file, unsigned line, unsigned col,
                   const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));
/* Shorthands for the common case. */
void tfx_error(tfx_diag *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void tfx_warning(tfx_diag *d, const char *file, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Attach the source line (and caret span) to the most recent item. */
void tfx_diag_set_source(tfx_diag *d, const char *line_start, size_t line_len, unsigned span);

/* Print every item to f in order. */
void tfx_diag_print(const tfx_diag *d, FILE *f);
int tfx_diag_has_errors(const tfx_diag *d);

#endif
