/* Growable byte buffer (see strbuf.h). */
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

void tfx_sb_init(tfx_strbuf *b) { memset(b, 0, sizeof *b); }
void tfx_sb_free(tfx_strbuf *b) { free(b->data); tfx_sb_init(b); }
void tfx_sb_reset(tfx_strbuf *b) { b->len = 0; b->oom = 0; if (b->data) b->data[0] = 0; }

int tfx_sb_reserve(tfx_strbuf *b, size_t extra) {
  if (b->oom) return 0;
  if (extra > SIZE_MAX - b->len - 1) { b->oom = 1; return 0; }
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  char *p = tfx_realloc(b->data, cap);
  if (!p) { b->oom = 1; return 0; }
  b->data = p;
  b->cap = cap;
  return 1;
}

void tfx_sb_add(tfx_strbuf *b, const void *p, size_t n) {
  if (!tfx_sb_reserve(b, n)) return;
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = 0;
}

void tfx_sb_puts(tfx_strbuf *b, const char *s) { tfx_sb_add(b, s, strlen(s)); }
void tfx_sb_putc(tfx_strbuf *b, char c) { tfx_sb_add(b, &c, 1); }

void tfx_sb_printf(tfx_strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[256];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) { va_end(ap2); b->oom = 1; return; }
  if ((size_t)n < sizeof tmp) {
    tfx_sb_add(b, tmp, (size_t)n);
  } else if (tfx_sb_reserve(b, (size_t)n)) {
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    b->len += (size_t)n;
  }
  va_end(ap2);
}

void tfx_sb_indent(tfx_strbuf *b, int n) {
  static const char sp[] = "                                ";
  while (n > 0) {
    int k = n > 32 ? 32 : n;
    tfx_sb_add(b, sp, (size_t)k);
    n -= k;
  }
}

/* Length of a valid UTF-8 sequence at s (max n bytes), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t len;
  unsigned min;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) { len = 2; min = 0x80; c &= 0x1F; }
  else if ((c & 0xF0) == 0xE0) { len = 3; min = 0x800; c &= 0x0F; }
  else if ((c & 0xF8) == 0xF0) { len = 4; min = 0x10000; c &= 0x07; }
  else return 0;
  if (len > n) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    c = (c << 6) | (s[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  return len;
}

void tfx_sb_json_str(tfx_strbuf *b, const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  tfx_sb_putc(b, '"');
  for (size_t i = 0; i < n;) {
    unsigned char c = u[i];
    switch (c) {
      case '"': tfx_sb_puts(b, "\\\""); i++; continue;
      case '\\': tfx_sb_puts(b, "\\\\"); i++; continue;
      case '\n': tfx_sb_puts(b, "\\n"); i++; continue;
      case '\r': tfx_sb_puts(b, "\\r"); i++; continue;
      case '\t': tfx_sb_puts(b, "\\t"); i++; continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7F) { tfx_sb_printf(b, "\\u%04x", c); i++; continue; }
    size_t l = utf8_len(u + i, n - i);
    if (!l) { tfx_sb_printf(b, "\\u%04x", c); i++; continue; } /* raw byte, as Latin-1 */
    tfx_sb_add(b, u + i, l);
    i += l;
  }
  tfx_sb_putc(b, '"');
}

const char *tfx_sb_cstr(tfx_strbuf *b) { return b->data && !b->oom ? b->data : ""; }
