/* Scanner state and helpers shared by grammar/rules.l and src/rules/lexer.c (internal).
 * Stage: rules, scanning. Input: one rule source (a caller buffer of explicit length, read
 * through YY_INPUT). Output: tokens with a tfx_rules_loc (file id + byte offsets) and decoded
 * values (identifiers and strings copied into the rule set's arena, integers range-checked to
 * int64). Lexical errors are reported and scanning continues. Flex memory is tracked so an
 * allocation failure (a longjmp out of the scanner) leaks nothing. */
#ifndef TFX_RULES_LEXER_H
#define TFX_RULES_LEXER_H

#include <setjmp.h>
#include <stddef.h>

#include "rules/build.h"
#include "rules_parse.h"

typedef struct tfx_rules_lblk {
  struct tfx_rules_lblk *prev, *next;
  size_t size;
  size_t pad; /* keeps the user block 16-byte aligned on LP64 */
} tfx_rules_lblk;

typedef struct tfx_rules_lexer {
  tfx_rules_pctx *P;
  const char *buf;  /* the whole source (borrowed) */
  size_t len;
  size_t rd;        /* YY_INPUT read position */
  size_t off;       /* offset just past the last match */
  tfx_rules_lblk blocks;
  jmp_buf *oom_jmp;
  int oom;
} tfx_rules_lexer;

size_t tfx_rules_lex_read(tfx_rules_lexer *L, char *dst, size_t max);
void tfx_rules_lex_step(tfx_rules_lexer *L, tfx_rules_loc *loc, size_t len);
int tfx_rules_lex_ident(tfx_rules_lexer *L, TFX_RULES_YYSTYPE *v, const tfx_rules_loc *loc,
                        const char *text, size_t len);
int tfx_rules_lex_string(tfx_rules_lexer *L, TFX_RULES_YYSTYPE *v, const tfx_rules_loc *loc,
                         const char *text, size_t len, int terminated);
int tfx_rules_lex_int(tfx_rules_lexer *L, TFX_RULES_YYSTYPE *v, const tfx_rules_loc *loc,
                      const char *text, size_t len);
int tfx_rules_lex_float(tfx_rules_lexer *L, TFX_RULES_YYSTYPE *v, const tfx_rules_loc *loc,
                        const char *text);
int tfx_rules_lex_badnum(tfx_rules_lexer *L, TFX_RULES_YYSTYPE *v, const tfx_rules_loc *loc);
/* Reports a stray character; for '&&' / '||' returns the token meant ('and' / 'or'). */
int tfx_rules_lex_bad(tfx_rules_lexer *L, const tfx_rules_loc *loc, const char *text, size_t len);

void *tfx_rules_lex_alloc(tfx_rules_lexer *L, size_t n);
void *tfx_rules_lex_realloc(tfx_rules_lexer *L, void *p, size_t n);
void tfx_rules_lex_free(tfx_rules_lexer *L, void *p);
void tfx_rules_lex_release(tfx_rules_lexer *L);
_Noreturn void tfx_rules_lex_fatal(tfx_rules_lexer *L);

#endif
