/* Scanner support for grammar/rules.l: value decoding, lexical errors, tracked flex memory.
 * Stage: rules, scanning. Input: matched token text and its location. Output: token values in
 * the bison semantic value (arena strings, int64, double); errors go to the parse context.
 * tfx_rules_yylex is what the parser calls: it runs the flex scanner under a setjmp so an
 * allocation failure ends the input cleanly, and records brace positions and token ends. */
#include "rules/lexer.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules_lex.h"

int tfx_rules_lex_raw(TFX_RULES_YYSTYPE *yylval_param, tfx_rules_loc *yylloc_param, yyscan_t yyscanner);

size_t tfx_rules_lex_read(tfx_rules_lexer *L, char *dst, size_t max) {
  size_t n = L->len - L->rd;
  if (n > max) n = max;
  memcpy(dst, L->buf + L->rd, n);
  L->rd += n;
  return n;
}

void tfx_rules_lex_step(tfx_rules_lexer *L, tfx_rules_loc *loc, size_t len) {
  loc->file = L->P->file;
  loc->off = (uint32_t)L->off;
  L->off += len;
  loc->end = (uint32_t)L->off;
}

int tfx_rules_lex_ident(tfx_rules_lexer *L, TFX_RULES_YYSTYPE *v, const tfx_rules_loc *loc,
                        const char *text, size_t len) {
  v->name.s = tfx_arena_strndup(L->P->arena, text, len);
  v->name.loc = *loc;
  v->name.next = NULL;
  if (!v->name.s) {
    tfx_rules_oom(L->P);
    v->name.s = "";
  }
  return TFX_RT_IDENT;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static tfx_rules_loc subloc(const tfx_rules_loc *loc, size_t from, size_t n) {
  tfx_rules_loc l = *loc;
  l.off = loc->off + (uint32_t)from;
  l.end = l.off + (uint32_t)n;
  return l;
}

int tfx_rules_lex_string(tfx_rules_lexer *L, TFX_RULES_YYSTYPE *v, const tfx_rules_loc *loc,
                         const char *text, size_t len, int terminated) {
  tfx_rules_pctx *P = L->P;
  if (!terminated) {
    tfx_rules_flush_pending(P);
    tfx_rules_perror(P, *loc, "unterminated string (a string ends on the line it starts)");
  }
  size_t body = terminated ? len - 2 : len - 1; /* without the quotes */
  char *out = tfx_arena_alloc(P->arena, body + 1);
  v->str.s = "";
  v->str.len = 0;
  if (!out) {
    tfx_rules_oom(P);
    return TFX_RT_STRING;
  }
  size_t n = 0;
  for (size_t i = 1; i < 1 + body; i++) {
    char c = text[i];
    if (c != '\\') {
      out[n++] = c;
      continue;
    }
    if (i + 1 >= 1 + body) break; /* a lone trailing backslash of an unterminated string */
    char e = text[++i];
    switch (e) {
      case 'n': out[n++] = '\n'; break;
      case 't': out[n++] = '\t'; break;
      case 'r': out[n++] = '\r'; break;
      case '\\': out[n++] = '\\'; break;
      case '"': out[n++] = '"'; break;
      case '\'': out[n++] = '\''; break;
      case '0': out[n++] = '\0'; break;
      case 'x': {
        int h1 = i + 1 < 1 + body ? hexval((unsigned char)text[i + 1]) : -1;
        int h2 = i + 2 < 1 + body ? hexval((unsigned char)text[i + 2]) : -1;
        if (h1 < 0 || h2 < 0) {
          tfx_rules_flush_pending(P);
          tfx_rules_perror(P, subloc(loc, i - 1, 2), "'\\x' needs two hex digits");
          break;
        }
        out[n++] = (char)(h1 * 16 + h2);
        i += 2;
        break;
      }
      default:
        tfx_rules_flush_pending(P);
        if ((unsigned char)e >= 0x20 && (unsigned char)e < 0x7f)
          tfx_rules_perror(P, subloc(loc, i - 1, 2),
                           "unknown escape '\\%c' (use \\n \\t \\r \\\\ \\\" \\' \\0 or \\xHH)", e);
        else
          tfx_rules_perror(P, subloc(loc, i - 1, 2), "unknown escape sequence in string");
        break;
    }
  }
  out[n] = 0;
  v->str.s = out;
  v->str.len = n;
  return TFX_RT_STRING;
}

int tfx_rules_lex_int(tfx_rules_lexer *L, TFX_RULES_YYSTYPE *v, const tfx_rules_loc *loc,
                      const char *text, size_t len) {
  uint64_t x = 0;
  int hex = len > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  int over = 0;
  for (size_t i = hex ? 2 : 0; i < len; i++) {
    uint64_t d = (uint64_t)(hex ? hexval((unsigned char)text[i]) : text[i] - '0');
    uint64_t base = hex ? 16 : 10;
    if (x > (UINT64_MAX - d) / base) {
      over = 1;
      break;
    }
    x = x * base + d;
  }
  v->intv.min = 0;
  v->intv.v = 0;
  if (!over && x == (uint64_t)INT64_MAX + 1 && !hex) {
    v->intv.v = INT64_MIN; /* valid only when negated: the builder checks */
    v->intv.min = 1;
  } else if (over || x > (uint64_t)INT64_MAX) {
    tfx_rules_flush_pending(L->P);
    tfx_rules_perror(L->P, *loc, "integer literal out of range (the limit is 9223372036854775807)");
  } else {
    v->intv.v = (int64_t)x;
  }
  return TFX_RT_INT;
}

int tfx_rules_lex_float(tfx_rules_lexer *L, TFX_RULES_YYSTYPE *v, const tfx_rules_loc *loc,
                        const char *text) {
  if (!strcmp(text, "inf")) v->fnum = INFINITY;
  else if (!strcmp(text, "nan")) v->fnum = NAN;
  else {
    errno = 0;
    v->fnum = strtod(text, NULL);
    if (isinf(v->fnum)) {
      tfx_rules_flush_pending(L->P);
      tfx_rules_perror(L->P, *loc, "floating-point literal out of range (write 'inf' for infinity)");
      v->fnum = 0;
    }
  }
  return TFX_RT_FLOAT;
}

int tfx_rules_lex_badnum(tfx_rules_lexer *L, TFX_RULES_YYSTYPE *v, const tfx_rules_loc *loc) {
  tfx_rules_flush_pending(L->P);
  tfx_rules_perror(L->P, *loc, "invalid number (a number cannot run into letters)");
  v->intv.v = 0;
  v->intv.min = 0;
  return TFX_RT_INT;
}

int tfx_rules_lex_bad(tfx_rules_lexer *L, const tfx_rules_loc *loc, const char *text, size_t len) {
  tfx_rules_pctx *P = L->P;
  tfx_rules_flush_pending(P);
  unsigned char c = (unsigned char)text[0];
  if (len == 2 && text[0] == '&') {
    tfx_rules_perror(P, *loc, "use 'and' instead of '&&'");
    return TFX_RT_AND;
  }
  if (len == 2 && text[0] == '|') {
    tfx_rules_perror(P, *loc, "use 'or' instead of '||'");
    return TFX_RT_OR;
  }
  if (c == '!') tfx_rules_perror(P, *loc, "use 'not' instead of '!'");
  else if (c == '\'') tfx_rules_perror(P, *loc, "strings are written in double quotes");
  else if (c >= 0x21 && c < 0x7f) tfx_rules_perror(P, *loc, "stray '%c' in rule file", c);
  else tfx_rules_perror(P, *loc, "stray byte 0x%02X in rule file", c);
  return 0;
}

/* ---- tracked flex memory ---- */

static void blk_link(tfx_rules_lexer *L, tfx_rules_lblk *b) {
  b->next = L->blocks.next;
  b->prev = &L->blocks;
  L->blocks.next->prev = b;
  L->blocks.next = b;
}

static void blk_unlink(tfx_rules_lblk *b) {
  b->prev->next = b->next;
  b->next->prev = b->prev;
}

void *tfx_rules_lex_alloc(tfx_rules_lexer *L, size_t n) {
  if (n > SIZE_MAX - sizeof(tfx_rules_lblk)) return NULL;
  tfx_rules_lblk *b = tfx_malloc(sizeof *b + n);
  if (!b) return NULL;
  b->size = n;
  blk_link(L, b);
  return b + 1;
}

void *tfx_rules_lex_realloc(tfx_rules_lexer *L, void *p, size_t n) {
  if (!p) return tfx_rules_lex_alloc(L, n);
  if (n > SIZE_MAX - sizeof(tfx_rules_lblk)) return NULL;
  tfx_rules_lblk *b = (tfx_rules_lblk *)p - 1;
  blk_unlink(b);
  tfx_rules_lblk *nb = tfx_realloc(b, sizeof *b + n);
  if (!nb) {
    blk_link(L, b);
    return NULL;
  }
  nb->size = n;
  blk_link(L, nb);
  return nb + 1;
}

void tfx_rules_lex_free(tfx_rules_lexer *L, void *p) {
  (void)L;
  if (!p) return;
  tfx_rules_lblk *b = (tfx_rules_lblk *)p - 1;
  blk_unlink(b);
  free(b);
}

void tfx_rules_lex_release(tfx_rules_lexer *L) {
  while (L->blocks.next != &L->blocks) {
    tfx_rules_lblk *b = L->blocks.next;
    blk_unlink(b);
    free(b);
  }
}

_Noreturn void tfx_rules_lex_fatal(tfx_rules_lexer *L) { longjmp(*L->oom_jmp, 1); }

/* ---- the token function the parser calls ---- */

int tfx_rules_yylex(TFX_RULES_YYSTYPE *lval, tfx_rules_loc *lloc, void *scanner) {
  tfx_rules_lexer *L = tfx_rules_yyget_extra(scanner);
  tfx_rules_pctx *P = L->P;
  if (L->oom) return TFX_RT_END;
  jmp_buf jb;
  L->oom_jmp = &jb;
  if (setjmp(jb)) {
    L->oom_jmp = NULL;
    L->oom = 1;
    tfx_rules_oom(P);
    lloc->file = P->file;
    lloc->off = lloc->end = (uint32_t)L->len;
    return TFX_RT_END;
  }
  int t = tfx_rules_lex_raw(lval, lloc, scanner);
  L->oom_jmp = NULL;
  if (t == TFX_RT_END) { /* end of input: an empty location just past the text */
    lloc->file = P->file;
    lloc->off = lloc->end = (uint32_t)L->len;
  }
  P->prev_end = P->last_end;
  P->last_end = lloc->end;
  if (t == '{') {
    if (P->n_braces < TFX_RULES_MAX_BRACES) P->braces[P->n_braces] = *lloc;
    P->n_braces++;
  } else if (t == '}' && P->n_braces) {
    P->n_braces--;
  }
  return t;
}
