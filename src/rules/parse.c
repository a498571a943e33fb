/* Parses one rule source: runs the flex scanner and the bison parser over its text.
 * Stage: rules, parsing. Input: a source registered in the rule set (text + file kind).
 * Output: its tfx_ast_file (in the rule set's arena); every lexical and syntax error of the
 * file is reported (the grammar recovers and goes on). */
#include <stdlib.h>
#include <string.h>

#include "rules/build.h"
#include "rules/lexer.h"
#include "rules_lex.h"

int tfx_rules_yyparse(void *scanner, tfx_rules_pctx *P);

int tfx_rules_parse_source(tfx_ruleset *rs, uint32_t file, tfx_diag *d) {
  tfx_rules_source *src = &rs->sources[file];
  tfx_rules_pctx P;
  memset(&P, 0, sizeof P);
  P.rs = rs;
  P.d = d;
  P.max_depth = rs->max_depth ? rs->max_depth : TFX_AST_DEFAULT_DEPTH;
  if (P.max_depth > TFX_AST_MAX_DEPTH) P.max_depth = TFX_AST_MAX_DEPTH;
  P.arena = &rs->arena;
  P.file = file;
  P.kind = src->kind;
  P.ast = tfx_arena_calloc(&rs->arena, 1, sizeof *P.ast);
  if (!P.ast) {
    tfx_rules_oom(&P);
    return -1;
  }
  P.ast->kind = src->kind;
  P.ast->file = file;

  tfx_rules_lexer L;
  memset(&L, 0, sizeof L);
  L.P = &P;
  L.buf = src->text;
  L.len = src->len;
  L.blocks.next = L.blocks.prev = &L.blocks;
  yyscan_t sc;
  if (tfx_rules_yylex_init_extra(&L, &sc) != 0) {
    tfx_rules_lex_release(&L);
    tfx_rules_oom(&P);
    return -1;
  }
  tfx_rules_yyparse(sc, &P); /* failures are reported through P */
  tfx_rules_flush_pending(&P);
  tfx_rules_yylex_destroy(sc);
  tfx_rules_lex_release(&L);
  src->ast = P.ast;
  return P.errors ? -1 : 0;
}
