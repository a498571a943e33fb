/* Growable byte buffer for building output (text, JSON, binary).
 * Stage: shared utility. On allocation failure the buffer is marked failed (oom = 1) and
 * further appends are ignored; callers check oom once at the end. */
#ifndef TFX_UTIL_STRBUF_H
#define TFX_UTIL_STRBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfx_strbuf {
  char *data;   /* NUL-terminated when len > 0 or after tfx_sb_cstr */
  size_t len, cap;
  int oom;
} tfx_strbuf;

void tfx_sb_init(tfx_strbuf *b);
void tfx_sb_free(tfx_strbuf *b);
void tfx_sb_reset(tfx_strbuf *b);
int tfx_sb_reserve(tfx_strbuf *b, size_t extra);
void tfx_sb_add(tfx_strbuf *b, const void *p, size_t n);
void tfx_sb_puts(tfx_strbuf *b, const char *s);
void tfx_sb_putc(tfx_strbuf *b, char c);
void tfx_sb_printf(tfx_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tfx_sb_indent(tfx_strbuf *b, int n); /* n spaces */
/* A JSON string literal (with quotes), escaping control chars and non-UTF-8 bytes as \u00XX. */
void tfx_sb_json_str(tfx_strbuf *b, const char *s, size_t n);
const char *tfx_sb_cstr(tfx_strbuf *b); /* "" when empty */

#endif
