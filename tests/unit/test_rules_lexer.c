/* Unit tests for the rule-language scanner (grammar/rules.l + src/rules/lexer.c): token kinds,
 * locations (byte offsets), decoded values (escapes, int64 range, hex, floats, inf/nan),
 * keywords, comments and lexical errors that report and keep scanning. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/build.h"
#include "rules/lexer.h"
#include "rules_lex.h"

typedef struct tok {
  int kind;
  tfx_rules_loc loc;
  TFX_RULES_YYSTYPE v;
} tok;

typedef struct lexed {
  tfx_ruleset *rs;
  tfx_diag d;
  tok toks[256];
  int n;
} lexed;

/* Scans text completely (as the parser would) into L->toks. */
static void lex(lexed *L, const char *text) {
  memset(L, 0, sizeof *L);
  tfx_diag_init(&L->d);
  L->rs = tfx_ruleset_new();
  assert_non_null(L->rs);
  /* register the text as a source (the parser output is ignored here) */
  tfx_rules_load_buffer(L->rs, "t.opmap", text, strlen(text), &L->d);
  tfx_diag_clear(&L->d);
  tfx_rules_pctx P;
  memset(&P, 0, sizeof P);
  P.rs = L->rs;
  P.d = &L->d;
  P.arena = &L->rs->arena;
  P.file = 0;
  tfx_rules_lexer lx;
  memset(&lx, 0, sizeof lx);
  lx.P = &P;
  lx.buf = tfx_ruleset_source(L->rs, 0)->text;
  lx.len = strlen(text);
  lx.blocks.next = lx.blocks.prev = &lx.blocks;
  yyscan_t sc;
  assert_int_equal(tfx_rules_yylex_init_extra(&lx, &sc), 0);
  for (;;) {
    tok t;
    memset(&t, 0, sizeof t);
    t.kind = tfx_rules_yylex(&t.v, &t.loc, sc);
    if (L->n < 256) L->toks[L->n++] = t;
    if (t.kind == TFX_RT_END) break;
  }
  tfx_rules_flush_pending(&P);
  tfx_rules_yylex_destroy(sc);
  tfx_rules_lex_release(&lx);
}

static void unlex(lexed *L) {
  tfx_ruleset_free(L->rs);
  tfx_diag_free(&L->d);
}

static void keywords_identifiers_punctuation(void **state) {
  (void)state;
  lexed L;
  lex(&L, "pass Foo_1 general { count -> ?? == != <= >= ; } # comment\n has_child invalid x.y");
  int want[] = {TFX_RT_PASS, TFX_RT_IDENT, TFX_RT_GENERAL, '{', TFX_RT_COUNT, TFX_RT_ARROW, TFX_RT_QQ,
                TFX_RT_EQ, TFX_RT_NE, TFX_RT_LE, TFX_RT_GE, ';', '}', TFX_RT_HAS_CHILD, TFX_RT_INVALID,
                TFX_RT_IDENT, '.', TFX_RT_IDENT, TFX_RT_END};
  assert_int_equal(L.n, (int)(sizeof want / sizeof want[0]));
  for (int i = 0; i < L.n; i++) assert_int_equal(L.toks[i].kind, want[i]);
  assert_string_equal(L.toks[1].v.name.s, "Foo_1");
  /* byte offsets: "Foo_1" is at 5..10 */
  assert_int_equal(L.toks[1].loc.off, 5);
  assert_int_equal(L.toks[1].loc.end, 10);
  assert_int_equal(L.d.n, 0);
  unlex(&L);
}

static void numbers(void **state) {
  (void)state;
  lexed L;
  lex(&L, "42 0x1F 9223372036854775807 9223372036854775808 1.5 1e-5 2.5E+3 inf nan 007");
  assert_int_equal(L.toks[0].kind, TFX_RT_INT);
  assert_int_equal(L.toks[0].v.intv.v, 42);
  assert_int_equal(L.toks[1].v.intv.v, 31);
  assert_int_equal(L.toks[2].v.intv.v, INT64_MAX);
  assert_int_equal(L.toks[3].v.intv.min, 1); /* only valid negated */
  assert_int_equal(L.toks[4].kind, TFX_RT_FLOAT);
  assert_true(L.toks[4].v.fnum == 1.5);
  assert_true(fabs(L.toks[5].v.fnum - 1e-5) < 1e-20);
  assert_true(L.toks[6].v.fnum == 2500.0);
  assert_true(isinf(L.toks[7].v.fnum));
  assert_true(isnan(L.toks[8].v.fnum));
  assert_int_equal(L.toks[9].v.intv.v, 7);
  assert_int_equal(L.d.n, 0);
  unlex(&L);
}

static void number_errors(void **state) {
  (void)state;
  lexed L;
  lex(&L, "99999999999999999999 0xFFFFFFFFFFFFFFFFF 12ab 1e999");
  assert_int_equal(L.d.errors, 4);
  assert_string_equal(L.d.items[0].msg, "integer literal out of range (the limit is 9223372036854775807)");
  assert_string_equal(L.d.items[2].msg, "invalid number (a number cannot run into letters)");
  assert_int_equal(L.d.items[2].col, 42);
  assert_int_equal(L.d.items[2].span, 4);
  assert_int_equal(L.toks[4].kind, TFX_RT_END);
  unlex(&L);
}

static void strings_and_escapes(void **state) {
  (void)state;
  lexed L;
  lex(&L, "\"a\\n\\t\\r\\\\\\\"\\'\\0\\x41z\" \"\"");
  assert_int_equal(L.toks[0].kind, TFX_RT_STRING);
  assert_int_equal(L.toks[0].v.str.len, 10);
  assert_memory_equal(L.toks[0].v.str.s, "a\n\t\r\\\"'\0Az", 10);
  assert_int_equal(L.toks[1].kind, TFX_RT_STRING);
  assert_int_equal(L.toks[1].v.str.len, 0);
  assert_int_equal(L.d.n, 0);
  unlex(&L);
}

static void string_errors_keep_scanning(void **state) {
  (void)state;
  lexed L;
  lex(&L, "\"bad \\q \\x4\" x\n\"open\nnext");
  assert_int_equal(L.d.errors, 3);
  assert_string_equal(L.d.items[0].msg, "unknown escape '\\q' (use \\n \\t \\r \\\\ \\\" \\' \\0 or \\xHH)");
  assert_string_equal(L.d.items[1].msg, "'\\x' needs two hex digits");
  assert_string_equal(L.d.items[2].msg, "unterminated string (a string ends on the line it starts)");
  assert_int_equal(L.d.items[2].line, 2);
  /* tokens after the errors are still produced */
  assert_int_equal(L.toks[1].kind, TFX_RT_IDENT);
  assert_int_equal(L.toks[2].kind, TFX_RT_STRING);
  assert_string_equal(L.toks[2].v.str.s, "open");
  assert_int_equal(L.toks[3].kind, TFX_RT_IDENT);
  unlex(&L);
}

static void stray_characters(void **state) {
  (void)state;
  lexed L;
  lex(&L, "a $ b && c || d ! e 'f' \x01");
  /* && and || are reported and read as and / or */
  int kinds[] = {TFX_RT_IDENT, TFX_RT_IDENT, TFX_RT_AND, TFX_RT_IDENT, TFX_RT_OR, TFX_RT_IDENT,
                 TFX_RT_IDENT, TFX_RT_IDENT};
  for (int i = 0; i < 8; i++) assert_int_equal(L.toks[i].kind, kinds[i]);
  assert_int_equal(L.d.errors, 7);
  assert_string_equal(L.d.items[0].msg, "stray '$' in rule file");
  assert_string_equal(L.d.items[1].msg, "use 'and' instead of '&&'");
  assert_string_equal(L.d.items[2].msg, "use 'or' instead of '||'");
  assert_string_equal(L.d.items[3].msg, "use 'not' instead of '!'");
  assert_string_equal(L.d.items[4].msg, "strings are written in double quotes");
  assert_string_equal(L.d.items[6].msg, "stray byte 0x01 in rule file");
  unlex(&L);
}

static void line_and_column_on_demand(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ruleset *rs = tfx_ruleset_new();
  const char *text = "op A -> B {\n\tauto;\n  when x;\n}\n";
  assert_int_equal(tfx_rules_load_buffer(rs, "m.opmap", text, strlen(text), &d), 0);
  unsigned line, col;
  tfx_rules_loc loc = {0, 21, 25}; /* "when" */
  tfx_ruleset_linecol(rs, loc, &line, &col);
  assert_int_equal(line, 3);
  assert_int_equal(col, 3);
  tfx_rules_report(rs, &d, TFX_SEV_NOTE, loc, "here");
  assert_string_equal(d.items[0].source_line, "  when x;");
  assert_int_equal(d.items[0].span, 4);
  char buf[64];
  assert_string_equal(tfx_ruleset_where(rs, loc, 0, buf, sizeof buf), "3:3");
  assert_string_equal(tfx_ruleset_where(rs, loc, 1, buf, sizeof buf), "m.opmap:3:3");
  tfx_ruleset_free(rs);
  tfx_diag_free(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(keywords_identifiers_punctuation),
      cmocka_unit_test(numbers),
      cmocka_unit_test(number_errors),
      cmocka_unit_test(strings_and_escapes),
      cmocka_unit_test(string_errors_keep_scanning),
      cmocka_unit_test(stray_characters),
      cmocka_unit_test(line_and_column_on_demand),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
