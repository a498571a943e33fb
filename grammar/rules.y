/* Rule-language grammar: one pure LALR(1) parser for .scoperule and .opmap files.
 * Stage: rules, parsing. Input: tokens from grammar/rules.l (each with a tfx_rules_loc).
 * Output: AST nodes built by the one-line builder calls below (src/rules/build.c), added to
 * the file being parsed; a construct of the other file kind is reported by the builder.
 * Syntax errors go through yyreport_syntax_error and may be refined by the error
 * productions' hints ('=' for '==', unknown feature, '->' typos); yyreport_syntax_error
 * itself recognises a forgotten ';', an unclosed '{' at end of file and a keyword used as a name. */

%define api.pure full
%define api.prefix {tfx_rules_yy}
%define api.token.prefix {TFX_RT_}
%define api.location.type {tfx_rules_loc}
%define parse.error custom
%define parse.lac none
%locations
%expect 0
%lex-param {void *scanner}
%parse-param {void *scanner} {tfx_rules_pctx *P}

%code requires {
#include "rules/build.h"
}

%code provides {
int tfx_rules_yylex(TFX_RULES_YYSTYPE *lval, tfx_rules_loc *lloc, void *scanner);
}

%code {
#include <stdlib.h>
#define YYMAXDEPTH 10000 /* room for --limit rule-depth=1024 (about 4 states per nested block) */
#define YYMALLOC(n) tfx_rules_yymalloc(P, (n)) /* notes a failure: out of memory, not nesting */
#define YYFREE free
#define YYLLOC_DEFAULT(Cur, Rhs, N) tfx_rules_loc_span(&(Cur), (Rhs), (N))
static void tfx_rules_yyerror(tfx_rules_loc *loc, void *scanner, tfx_rules_pctx *P, const char *msg) {
  (void)scanner;
  tfx_rules_parse_failed(P, loc, msg);
}
}

%union {
  tfx_ast_name name;
  tfx_ast_strv str;
  tfx_ast_intv intv;
  double fnum;
  int flag;
  tfx_ast_expr *expr;
  tfx_ast_exprs exprs;
  tfx_ast_dict dict;
  tfx_ast_feature *feature;
  tfx_ast_features features;
  tfx_ast_pattern *pattern;
  tfx_ast_patterns patterns;
  tfx_ast_layer *layer;
  tfx_ast_layers layers;
  tfx_ast_group *group;
  tfx_ast_pass *pass;
  tfx_ast_fuse *fuse;
  tfx_ast_require *req;
  tfx_ast_bindings bindings;
  tfx_ast_stmt *stmt;
  tfx_ast_stmts stmts;
  tfx_ast_portmap *pm;
  tfx_ast_portmaps pms;
  tfx_ast_node_arg *arg;
  tfx_ast_args args;
  tfx_ast_names names;
  tfx_ast_opmap *opmap;
  tfx_ast_op op;
  tfx_ast_rewrite *rewrite;
  tfx_ast_fragbody frag;
}

%token END 0 "end of file"
%token <name> IDENT "identifier"
%token <str> STRING "string"
%token <intv> INT "integer"
%token <fnum> FLOAT "number"
%token PASS "pass" GENERAL "general" GROUP "group" LAYER "layer" PATTERN "pattern"
%token COUNT "count" ABSENT "absent" PRESENT "present" ATTR "attr" SCOPES "scopes"
%token NAME "name" HAS_CHILD "has_child" REQUIRE "require" FUSE "fuse" IN "in"
%token WHERE "where" TYPE "type" DESCRIPTION "description" INPUT "input" OUTPUT "output"
%token ABSORB "absorb" IF "if" ELSE "else" LET "let" NODE "node" OUT "out" OP "op"
%token AUTO "auto" DROP "drop" FORMAT "format" OPTIONAL "optional" DYNAMIC "dynamic"
%token DELETE "delete" WHEN "when" PRIORITY "priority" GRAPH "graph" CONST "const"
%token AND "and" OR "or" NOT "not" CONTAINS "contains" STARTS_WITH "starts_with"
%token ENDS_WITH "ends_with" TRUE "true" FALSE "false" NONE "none" INVALID "invalid"
%token REWRITE "rewrite" MATCH "match" FRAGMENT "fragment" USE "use" TEMPLATE "template"
%token EQ "==" NE "!=" LE "<=" GE ">=" ARROW "->" QQ "??"

%type <name> word optype pass_name callee
%type <flag> opt_general
%type <intv> int_lit
%type <expr> expr cond coalesce or_e and_e not_e cmp strt add mul unary postfix primary opt_expr
%type <expr> opt_where
%type <exprs> exprs
%type <dict> dict_items
%type <op> cmpop
%type <feature> feature
%type <pattern> pattern
%type <patterns> patterns
%type <features> features
%type <layer> layer
%type <layers> layers
%type <group> group
%type <pass> pass pass_body
%type <fuse> fuse
%type <req> require
%type <bindings> bindings
%type <stmt> fuse_stmt if_stmt node_stmt out_stmt node_sub map_stmt
%type <stmts> fuse_stmts node_subs map_stmts
%type <pm> portmap
%type <pms> portmaps
%type <arg> node_arg
%type <args> node_args
%type <names> optypes words
%type <opmap> opmap
%type <rewrite> rewrite
%type <stmt> rw_stmt
%type <stmts> rw_stmts
%type <arg> rw_ref
%type <args> rw_refs
%type <names> rw_types
%type <frag> frag_items
%type <names> tmpl_params
%type <stmts> tmpl_body
%type <stmt> match_stmt

%%

file: items ;

items: %empty
  | items pass                 { tfx_ast_file_add_pass(P, $2); }
  | items opmap                { tfx_ast_file_add_opmap(P, $2); }
  | items rewrite              { tfx_ast_file_add_rewrite(P, $2); }
  | items FRAGMENT IDENT '{' frag_items '}' { tfx_ast_fragment_define(P, @2, &$3, &$5); }
  | items TEMPLATE IDENT '(' tmpl_params ')' ':' optype '(' node_args ')' tmpl_body
                               { tfx_ast_template_define(P, @2, &$3, &$5, &$8, &$10, &$12); }
  | items error                { tfx_rules_recovered(P); }
  ;

/* ------------------------------------------------------------------ scope rules */

pass: PASS pass_name opt_general '{' pass_body '}'   { $$ = tfx_ast_pass_finish(P, $5, @1, &$2, $3); }
  ;
pass_name: IDENT | STRING                            { $$ = tfx_ast_name_str(P, &$1, @1); }
  ;
opt_general: %empty { $$ = 0; } | GENERAL { $$ = 1; } ;

pass_body: %empty                                    { $$ = tfx_ast_pass_begin(P); }
  | pass_body group                                  { $$ = tfx_ast_pass_add_group(P, $1, $2); }
  | pass_body require                                { $$ = tfx_ast_pass_add_require(P, $1, $2); }
  | pass_body fuse                                   { $$ = tfx_ast_pass_add_fuse(P, $1, $2); }
  | pass_body error                                  { $$ = $1; tfx_rules_recovered(P); }
  ;

group: GROUP '{' layers '}'                          { $$ = tfx_ast_group_new(P, @1, &$3); } ;
layers: %empty                                       { $$ = tfx_ast_layers_empty(); }
  | layers layer                                     { $$ = tfx_ast_layers_add($1, $2); }
  | layers error                                     { $$ = $1; tfx_rules_recovered(P); }
  ;
layer: LAYER '{' patterns '}'                        { $$ = tfx_ast_layer_new(P, @1, &$3); } ;
patterns: %empty                                     { $$ = tfx_ast_patterns_empty(); }
  | patterns pattern                                 { $$ = tfx_ast_patterns_add($1, $2); }
  | patterns error                                   { $$ = $1; tfx_rules_recovered(P); }
  ;
pattern: PATTERN IDENT '{' features '}'              { $$ = tfx_ast_pattern_new(P, @1, &$2, &$4); } ;

features: %empty                                     { $$ = tfx_ast_features_empty(); }
  | features feature                                 { $$ = tfx_ast_features_add($1, $2); }
  | features USE IDENT fsemi                         { $$ = tfx_ast_features_use(P, $1, @2, &$3); }
  ;
feature: COUNT optype EQ expr fsemi                  { $$ = tfx_ast_feature_new(P, TFX_AST_F_COUNT_EQ, @1, &$2, NULL, NULL, $4); }
  | COUNT optype '=' expr fsemi                      { $$ = tfx_ast_feature_typo(P, TFX_AST_F_COUNT_EQ, @1, @3, &$2, NULL, NULL, $4); }
  | COUNT optype '%' unary EQ expr fsemi             { $$ = tfx_ast_feature_new(P, TFX_AST_F_COUNT_STEP, @1, &$2, NULL, $4, $6); }
  | COUNT optype '%' unary '=' expr fsemi            { $$ = tfx_ast_feature_typo(P, TFX_AST_F_COUNT_STEP, @1, @5, &$2, NULL, $4, $6); }
  | PRESENT optype fsemi                             { $$ = tfx_ast_feature_new(P, TFX_AST_F_PRESENT, @1, &$2, NULL, NULL, NULL); }
  | ABSENT optype fsemi                              { $$ = tfx_ast_feature_new(P, TFX_AST_F_ABSENT, @1, &$2, NULL, NULL, NULL); }
  | ATTR optype '.' word EQ expr fsemi               { $$ = tfx_ast_feature_new(P, TFX_AST_F_ATTR_EQ, @1, &$2, &$4, NULL, $6); }
  | ATTR optype '.' word '=' expr fsemi              { $$ = tfx_ast_feature_typo(P, TFX_AST_F_ATTR_EQ, @1, @5, &$2, &$4, NULL, $6); }
  | SCOPES IDENT EQ expr fsemi                       { $$ = tfx_ast_feature_new(P, TFX_AST_F_SCOPES_EQ, @1, &$2, NULL, NULL, $4); }
  | SCOPES IDENT '=' expr fsemi                      { $$ = tfx_ast_feature_typo(P, TFX_AST_F_SCOPES_EQ, @1, @3, &$2, NULL, NULL, $4); }
  | NAME EQ expr fsemi                               { $$ = tfx_ast_feature_new(P, TFX_AST_F_NAME_EQ, @1, NULL, NULL, NULL, $3); }
  | NAME '=' expr fsemi                              { $$ = tfx_ast_feature_typo(P, TFX_AST_F_NAME_EQ, @1, @2, NULL, NULL, NULL, $3); }
  | HAS_CHILD expr fsemi                             { $$ = tfx_ast_feature_new(P, TFX_AST_F_HAS_CHILD, @1, NULL, NULL, NULL, $2); }
  | IDENT error ';'                                  { $$ = NULL; tfx_rules_hint_unknown_feature(P, &$1); }
  | error ';'                                        { $$ = NULL; tfx_rules_recovered(P); }
  ;
fsemi: ';' | error                                   { tfx_rules_recovered(P); } ;

require: REQUIRE expr ssemi                          { $$ = tfx_ast_require_new(P, @1, $2); } ;

fuse: FUSE bindings opt_where '{' fuse_stmts '}'     { $$ = tfx_ast_fuse_new(P, @1, &$2, $3, &$5); } ;
bindings: IDENT IN IDENT                             { $$ = tfx_ast_bindings_add(P, tfx_ast_bindings_empty(), &$1, &$3); }
  | bindings ',' IDENT IN IDENT                      { $$ = tfx_ast_bindings_add(P, $1, &$3, &$5); }
  | bindings ',' IDENT                               { $$ = tfx_ast_bindings_add(P, $1, NULL, &$3); }
  | IDENT IN IDENT '(' ')'                           { $$ = tfx_ast_bindings_add_call(P, tfx_ast_bindings_empty(), &$1, tfx_ast_call_new(P, @3, &$3, NULL)); }
  | bindings ',' IDENT IN IDENT '(' ')'              { $$ = tfx_ast_bindings_add_call(P, $1, &$3, tfx_ast_call_new(P, @5, &$5, NULL)); }
  ;
opt_where: %empty { $$ = NULL; } | WHERE expr { $$ = $2; } ;

fuse_stmts: %empty                                   { $$ = tfx_ast_stmts_empty(); }
  | fuse_stmts fuse_stmt                             { $$ = tfx_ast_stmts_add($1, $2); }
  ;
fuse_stmt: SCOPES exprs ssemi                        { $$ = tfx_ast_stmt_exprs(P, TFX_AST_S_SCOPES, @1, &$2); }
  | NAME expr ssemi                                  { $$ = tfx_ast_stmt_expr(P, TFX_AST_S_NAME, @1, $2); }
  | TYPE optype ssemi                                { $$ = tfx_ast_stmt_named(P, TFX_AST_S_TYPE, @1, 0, &$2, NULL, NULL); }
  | DESCRIPTION expr ssemi                           { $$ = tfx_ast_stmt_expr(P, TFX_AST_S_DESCRIPTION, @1, $2); }
  | INPUT expr '{' portmaps '}' opt_semi             { $$ = tfx_ast_stmt_index_map(P, @1, 0, $2, &$4); }
  | OUTPUT expr '{' portmaps '}' opt_semi            { $$ = tfx_ast_stmt_index_map(P, @1, 1, $2, &$4); }
  | OPTIONAL INPUT expr '{' portmaps '}' opt_semi    { $$ = tfx_ast_stmt_index_map(P, @1, 0, $3, &$5); if ($$) $$->optional = 1; }
  | OPTIONAL OUTPUT expr '{' portmaps '}' opt_semi   { $$ = tfx_ast_stmt_index_map(P, @1, 1, $3, &$5); if ($$) $$->optional = 1; }
  | ABSENT INPUT expr ssemi                          { $$ = tfx_ast_stmt_expr(P, TFX_AST_S_ABSENT_PORT, @1, $3); }
  | ABSENT OUTPUT expr ssemi                         { $$ = tfx_ast_stmt_expr(P, TFX_AST_S_ABSENT_PORT, @1, $3); if ($$) $$->is_output = 1; }
  | ABSORB expr ssemi                                { $$ = tfx_ast_stmt_expr(P, TFX_AST_S_ABSORB, @1, $2); }
  | ATTR word '=' expr ssemi                         { $$ = tfx_ast_stmt_named(P, TFX_AST_S_ATTR, @1, 0, &$2, NULL, $4); }
  | LET IDENT '=' expr ssemi                         { $$ = tfx_ast_stmt_named(P, TFX_AST_S_LET, @1, 0, &$2, NULL, $4); }
  | INVALID expr ssemi                               { $$ = tfx_ast_stmt_expr(P, TFX_AST_S_INVALID, @1, $2); }
  | if_stmt | node_stmt | out_stmt
  | error ';'                                        { $$ = NULL; tfx_rules_recovered(P); }
  ;
if_stmt: IF expr '{' fuse_stmts '}'                  { $$ = tfx_ast_stmt_if(P, @1, $2, &$4, NULL); }
  | IF expr '{' fuse_stmts '}' ELSE '{' fuse_stmts '}' { $$ = tfx_ast_stmt_if(P, @1, $2, &$4, &$8); }
  | IF expr '{' fuse_stmts '}' ELSE if_stmt          { $$ = tfx_ast_stmt_elif(P, @1, $2, &$4, $7); }
  ;
opt_semi: %empty | ';' ;
ssemi: ';' | error                                   { tfx_rules_recovered(P); } ;

portmaps: %empty                                     { $$ = tfx_ast_portmaps_empty(); }
  | portmap                                          { $$ = tfx_ast_portmaps_add(tfx_ast_portmaps_empty(), $1); }
  | portmaps ',' portmap                             { $$ = tfx_ast_portmaps_add($1, $3); }
  ;
portmap: int_lit ARROW int_lit                       { $$ = tfx_ast_portmap_new(P, @$, $1.v, $3.v, 0); }
  | int_lit ARROW NONE                               { $$ = tfx_ast_portmap_new(P, @$, $1.v, -1, 1); }
  | int_lit bad_arrow int_lit                        { $$ = tfx_ast_portmap_new(P, @$, $1.v, $3.v, 0); tfx_rules_hint_arrow(P, @2, "index map"); }
  | int_lit bad_arrow NONE                           { $$ = tfx_ast_portmap_new(P, @$, $1.v, -1, 1); tfx_rules_hint_arrow(P, @2, "index map"); }
  ;
bad_arrow: '=' '>' | '-' '>' | '>' | '=' | ':' | GE | EQ ;

node_stmt: NODE IDENT ':' optype '(' node_args ')' ssemi { $$ = tfx_ast_stmt_node(P, @1, &$2, &$4, &$6, NULL); }
  | NODE IDENT ':' optype '(' node_args ')' '{' node_subs '}' opt_semi { $$ = tfx_ast_stmt_node(P, @1, &$2, &$4, &$6, &$9); }
  | NODE IDENT '=' IDENT '(' ')' ssemi               { $$ = tfx_ast_stmt_node_template(P, @1, &$2, &$4, NULL); }
  | NODE IDENT '=' IDENT '(' exprs ')' ssemi         { $$ = tfx_ast_stmt_node_template(P, @1, &$2, &$4, &$6); }
  ;
tmpl_params: %empty                                  { $$ = tfx_ast_names_empty(); }
  | words                                            { $$ = $1; }
  ;
tmpl_body: ';'                                       { $$ = tfx_ast_stmts_empty(); }
  | '{' node_subs '}' opt_semi                       { $$ = $2; }
  ;
node_args: %empty                                    { $$ = tfx_ast_args_empty(); }
  | node_arg                                         { $$ = tfx_ast_args_add(tfx_ast_args_empty(), $1); }
  | node_args ',' node_arg                           { $$ = tfx_ast_args_add($1, $3); }
  ;
node_arg: IN int_lit                                 { $$ = tfx_ast_node_arg_new(P, TFX_AST_ARG_INPUT, @$, $2.v, NULL, NULL); }
  | IDENT ':' int_lit                                { $$ = tfx_ast_node_arg_new(P, TFX_AST_ARG_PORT, @$, $3.v, &$1, NULL); }
  | CONST unary                                      { $$ = tfx_ast_node_arg_new(P, TFX_AST_ARG_CONST, @$, 0, NULL, $2); }
  | IDENT                                            { $$ = tfx_ast_node_arg_new(P, TFX_AST_ARG_NAME, @$, 0, &$1, NULL); }
  ;
node_subs: %empty                                    { $$ = tfx_ast_stmts_empty(); }
  | node_subs node_sub                               { $$ = tfx_ast_stmts_add($1, $2); }
  ;
node_sub: FORMAT INPUT expr '=' expr ssemi           { $$ = tfx_ast_stmt_format(P, @1, 0, $3, $5); }
  | FORMAT OUTPUT expr '=' expr ssemi                { $$ = tfx_ast_stmt_format(P, @1, 1, $3, $5); }
  | ATTR word '=' expr ssemi                         { $$ = tfx_ast_stmt_named(P, TFX_AST_S_ATTR, @1, 0, &$2, NULL, $4); }
  | error ';'                                        { $$ = NULL; tfx_rules_recovered(P); }
  ;
out_stmt: OUT int_lit '=' IDENT ':' int_lit ssemi    { $$ = tfx_ast_stmt_out(P, @1, $2.v, &$4, $6.v); } ;

/* ------------------------------------------------------------------ dataflow rewrites */

rewrite: REWRITE pass_name opt_general '{' rw_stmts '}' { $$ = tfx_ast_rewrite_new(P, @1, &$2, $3, &$5); } ;
rw_stmts: %empty                                     { $$ = tfx_ast_stmts_empty(); }
  | rw_stmts rw_stmt                                 { $$ = tfx_ast_stmts_add($1, $2); }
  | rw_stmts USE IDENT ssemi                         { $$ = tfx_ast_stmts_use(P, $1, @2, &$3); }
  ;
match_stmt: MATCH IDENT ':' rw_types '(' rw_refs ')' opt_where ssemi { $$ = tfx_ast_stmt_match(P, @1, &$2, &$4, &$6, $8); }
  | WHERE expr ssemi                                 { $$ = tfx_ast_stmt_expr(P, TFX_AST_S_WHERE, @1, $2); }
  ;
/* a fragment: pattern features and/or rewrite matches, spliced by `use NAME;` */
frag_items: %empty                                   { $$ = tfx_ast_fragbody_empty(); }
  | frag_items feature                               { $$ = tfx_ast_fragbody_feature($1, $2); }
  | frag_items match_stmt                            { $$ = tfx_ast_fragbody_stmt($1, $2); }
  ;
rw_stmt: match_stmt
  | node_stmt
  | OUT rw_ref '=' rw_ref ssemi                      { $$ = tfx_ast_stmt_rewire(P, @1, $2, $4); }
  | error ';'                                        { $$ = NULL; tfx_rules_recovered(P); }
  ;
rw_types: optype                                     { $$ = tfx_ast_names_add(P, tfx_ast_names_empty(), &$1); }
  | rw_types '|' optype                              { $$ = tfx_ast_names_add(P, $1, &$3); }
  ;
rw_refs: %empty                                      { $$ = tfx_ast_args_empty(); }
  | rw_ref                                           { $$ = tfx_ast_args_add(tfx_ast_args_empty(), $1); }
  | rw_refs ',' rw_ref                               { $$ = tfx_ast_args_add($1, $3); }
  ;
rw_ref: IDENT                                        { $$ = tfx_ast_node_arg_new(P, TFX_AST_ARG_NAME, @$, 0, &$1, NULL); }
  | IDENT ':' int_lit                                { $$ = tfx_ast_node_arg_new(P, TFX_AST_ARG_PORT, @$, $3.v, &$1, NULL); }
  ;

/* ------------------------------------------------------------------ op maps */

opmap: OP optypes ARROW optype '{' map_stmts '}'     { $$ = tfx_ast_opmap_new(P, @1, &$2, &$4, &$6); }
  | OP optypes ARROW GRAPH '{' map_stmts '}'         { $$ = tfx_ast_opmap_new(P, @1, &$2, NULL, &$6); }
  | OP optypes bad_arrow optype '{' map_stmts '}'    { $$ = tfx_ast_opmap_new(P, @1, &$2, &$4, &$6); tfx_rules_hint_arrow(P, @3, "op map"); }
  | OP optypes bad_arrow GRAPH '{' map_stmts '}'     { $$ = tfx_ast_opmap_new(P, @1, &$2, NULL, &$6); tfx_rules_hint_arrow(P, @3, "op map"); }
  ;
optypes: optype                                      { $$ = tfx_ast_names_add(P, tfx_ast_names_empty(), &$1); }
  | optypes ',' optype                               { $$ = tfx_ast_names_add(P, $1, &$3); }
  ;
words: word                                          { $$ = tfx_ast_names_add(P, tfx_ast_names_empty(), &$1); }
  | words ',' word                                   { $$ = tfx_ast_names_add(P, $1, &$3); }
  ;
map_stmts: %empty                                    { $$ = tfx_ast_stmts_empty(); }
  | map_stmts map_stmt                               { $$ = tfx_ast_stmts_add($1, $2); }
  ;
map_stmt: AUTO ssemi                                 { $$ = tfx_ast_stmt_expr(P, TFX_AST_S_AUTO, @1, NULL); }
  | ATTR word '=' expr ssemi                         { $$ = tfx_ast_stmt_named(P, TFX_AST_S_ATTR, @1, 0, &$2, NULL, $4); }
  | DROP words ssemi                                 { $$ = tfx_ast_stmt_drop(P, @1, &$2); }
  | FORMAT INPUT expr '=' expr ssemi                 { $$ = tfx_ast_stmt_format(P, @1, 0, $3, $5); }
  | FORMAT OUTPUT expr '=' expr ssemi                { $$ = tfx_ast_stmt_format(P, @1, 1, $3, $5); }
  | INPUT word '=' expr ssemi                        { $$ = tfx_ast_stmt_named(P, TFX_AST_S_PORT, @1, 0, &$2, $4, NULL); }
  | OUTPUT word '=' expr ssemi                       { $$ = tfx_ast_stmt_named(P, TFX_AST_S_PORT, @1, 1, &$2, $4, NULL); }
  | OPTIONAL INPUT word '=' expr ssemi               { $$ = tfx_ast_stmt_named(P, TFX_AST_S_OPTIONAL, @1, 0, &$3, $5, NULL); }
  | OPTIONAL INPUT word '=' expr WHEN expr ssemi     { $$ = tfx_ast_stmt_named(P, TFX_AST_S_OPTIONAL, @1, 0, &$3, $5, $7); }
  | DYNAMIC INPUT word COUNT expr ssemi              { $$ = tfx_ast_stmt_named(P, TFX_AST_S_DYNAMIC, @1, 0, &$3, NULL, $5); }
  | DYNAMIC OUTPUT word COUNT expr ssemi             { $$ = tfx_ast_stmt_named(P, TFX_AST_S_DYNAMIC, @1, 1, &$3, NULL, $5); }
  | DELETE INPUT expr WHEN expr ssemi                { $$ = tfx_ast_stmt_named(P, TFX_AST_S_DELETE, @1, 0, NULL, $3, $5); }
  | WHEN expr ssemi                                  { $$ = tfx_ast_stmt_expr(P, TFX_AST_S_WHEN, @1, $2); }
  | PRIORITY int_lit ssemi                           { $$ = tfx_ast_stmt_priority(P, @1, $2.v); }
  | node_stmt | out_stmt
  | error ';'                                        { $$ = NULL; tfx_rules_recovered(P); }
  ;

/* ------------------------------------------------------------------ names */

optype: word | STRING                                { $$ = tfx_ast_name_str(P, &$1, @1); } ;
word: IDENT
  | PASS { $$ = tfx_ast_kw(P, @1); } | GENERAL { $$ = tfx_ast_kw(P, @1); } | GROUP { $$ = tfx_ast_kw(P, @1); }
  | LAYER { $$ = tfx_ast_kw(P, @1); } | PATTERN { $$ = tfx_ast_kw(P, @1); } | COUNT { $$ = tfx_ast_kw(P, @1); }
  | ABSENT { $$ = tfx_ast_kw(P, @1); } | PRESENT { $$ = tfx_ast_kw(P, @1); } | ATTR { $$ = tfx_ast_kw(P, @1); }
  | SCOPES { $$ = tfx_ast_kw(P, @1); } | NAME { $$ = tfx_ast_kw(P, @1); } | HAS_CHILD { $$ = tfx_ast_kw(P, @1); }
  | REQUIRE { $$ = tfx_ast_kw(P, @1); } | FUSE { $$ = tfx_ast_kw(P, @1); } | IN { $$ = tfx_ast_kw(P, @1); }
  | WHERE { $$ = tfx_ast_kw(P, @1); } | TYPE { $$ = tfx_ast_kw(P, @1); } | DESCRIPTION { $$ = tfx_ast_kw(P, @1); }
  | INPUT { $$ = tfx_ast_kw(P, @1); } | OUTPUT { $$ = tfx_ast_kw(P, @1); } | ABSORB { $$ = tfx_ast_kw(P, @1); }
  | IF { $$ = tfx_ast_kw(P, @1); } | ELSE { $$ = tfx_ast_kw(P, @1); } | LET { $$ = tfx_ast_kw(P, @1); }
  | NODE { $$ = tfx_ast_kw(P, @1); } | OUT { $$ = tfx_ast_kw(P, @1); } | OP { $$ = tfx_ast_kw(P, @1); }
  | AUTO { $$ = tfx_ast_kw(P, @1); } | DROP { $$ = tfx_ast_kw(P, @1); } | FORMAT { $$ = tfx_ast_kw(P, @1); }
  | OPTIONAL { $$ = tfx_ast_kw(P, @1); } | DYNAMIC { $$ = tfx_ast_kw(P, @1); } | DELETE { $$ = tfx_ast_kw(P, @1); }
  | WHEN { $$ = tfx_ast_kw(P, @1); } | PRIORITY { $$ = tfx_ast_kw(P, @1); } | CONST { $$ = tfx_ast_kw(P, @1); }
  | AND { $$ = tfx_ast_kw(P, @1); } | OR { $$ = tfx_ast_kw(P, @1); } | NOT { $$ = tfx_ast_kw(P, @1); }
  | CONTAINS { $$ = tfx_ast_kw(P, @1); } | STARTS_WITH { $$ = tfx_ast_kw(P, @1); } | ENDS_WITH { $$ = tfx_ast_kw(P, @1); }
  | TRUE { $$ = tfx_ast_kw(P, @1); } | FALSE { $$ = tfx_ast_kw(P, @1); } | NONE { $$ = tfx_ast_kw(P, @1); }
  | INVALID { $$ = tfx_ast_kw(P, @1); } | REWRITE { $$ = tfx_ast_kw(P, @1); } | MATCH { $$ = tfx_ast_kw(P, @1); }
  | FRAGMENT { $$ = tfx_ast_kw(P, @1); } | USE { $$ = tfx_ast_kw(P, @1); } | TEMPLATE { $$ = tfx_ast_kw(P, @1); }
  ;
int_lit: INT                                         { $$ = tfx_ast_int_lit(P, @1, $1, 0); }
  | '-' INT                                          { $$ = tfx_ast_int_lit(P, @$, $2, 1); }
  ;

/* ------------------------------------------------------------------ expressions */

expr: cond ;
cond: coalesce
  | coalesce '?' expr ':' cond                       { $$ = tfx_ast_cond_new(P, @$, $1, $3, $5); }
  ;
coalesce: or_e
  | coalesce QQ or_e                                 { $$ = tfx_ast_binary(P, @2, TFX_AST_OP_COALESCE, $1, $3); }
  ;
or_e: and_e
  | or_e OR and_e                                    { $$ = tfx_ast_binary(P, @2, TFX_AST_OP_OR, $1, $3); }
  ;
and_e: not_e
  | and_e AND not_e                                  { $$ = tfx_ast_binary(P, @2, TFX_AST_OP_AND, $1, $3); }
  ;
not_e: cmp
  | NOT not_e                                        { $$ = tfx_ast_unary(P, @1, TFX_AST_OP_NOT, $2); }
  ;
cmp: strt
  | strt cmpop strt                                  { $$ = tfx_ast_binary(P, @2, $2, $1, $3); }
  ;
cmpop: EQ { $$ = TFX_AST_OP_EQ; } | NE { $$ = TFX_AST_OP_NE; } | '<' { $$ = TFX_AST_OP_LT; }
  | LE { $$ = TFX_AST_OP_LE; } | '>' { $$ = TFX_AST_OP_GT; } | GE { $$ = TFX_AST_OP_GE; }
  ;
strt: add
  | add CONTAINS add                                 { $$ = tfx_ast_binary(P, @2, TFX_AST_OP_CONTAINS, $1, $3); }
  | add STARTS_WITH add                              { $$ = tfx_ast_binary(P, @2, TFX_AST_OP_STARTS_WITH, $1, $3); }
  | add ENDS_WITH add                                { $$ = tfx_ast_binary(P, @2, TFX_AST_OP_ENDS_WITH, $1, $3); }
  ;
add: mul
  | add '+' mul                                      { $$ = tfx_ast_binary(P, @2, TFX_AST_OP_ADD, $1, $3); }
  | add '-' mul                                      { $$ = tfx_ast_binary(P, @2, TFX_AST_OP_SUB, $1, $3); }
  ;
mul: unary
  | mul '*' unary                                    { $$ = tfx_ast_binary(P, @2, TFX_AST_OP_MUL, $1, $3); }
  | mul '/' unary                                    { $$ = tfx_ast_binary(P, @2, TFX_AST_OP_DIV, $1, $3); }
  | mul '%' unary                                    { $$ = tfx_ast_binary(P, @2, TFX_AST_OP_MOD, $1, $3); }
  ;
unary: postfix
  | '-' unary                                        { $$ = tfx_ast_unary(P, @$, TFX_AST_OP_NEG, $2); }
  ;
postfix: primary
  | postfix '[' expr ']'                             { $$ = tfx_ast_index_new(P, @$, $1, $3); }
  | postfix '[' opt_expr ':' opt_expr ']'            { $$ = tfx_ast_slice_new(P, @$, $1, $3, $5); }
  | postfix '.' word                                 { $$ = tfx_ast_prop_new(P, @$, $1, &$3); }
  ;
opt_expr: %empty { $$ = NULL; } | expr ;
primary: INT                                         { $$ = tfx_ast_int_new(P, @1, $1); }
  | FLOAT                                            { $$ = tfx_ast_float_new(P, @1, $1); }
  | STRING                                           { $$ = tfx_ast_string_new(P, @1, $1); }
  | TRUE                                             { $$ = tfx_ast_bool_new(P, @1, 1); }
  | FALSE                                            { $$ = tfx_ast_bool_new(P, @1, 0); }
  | NONE                                             { $$ = tfx_ast_none_new(P, @1); }
  | IDENT                                            { $$ = tfx_ast_ident_new(P, @1, &$1); }
  | OP                                               { $$ = tfx_ast_ident_new(P, @1, NULL); }
  | IN int_lit                                       { $$ = tfx_ast_input_new(P, @$, $2.v); }
  | '(' expr ')'                                     { $$ = tfx_ast_paren(P, @$, $2); }
  | '[' ']'                                          { $$ = tfx_ast_list_new(P, @$, NULL); }
  | '[' exprs opt_comma ']'                          { $$ = tfx_ast_list_new(P, @$, &$2); }
  | '{' '}'                                          { $$ = tfx_ast_dict_new(P, @$, NULL); }
  | '{' dict_items opt_comma '}'                     { $$ = tfx_ast_dict_new(P, @$, &$2); }
  | callee '(' ')'                                   { $$ = tfx_ast_call_new(P, @$, &$1, NULL); }
  | callee '(' exprs ')'                             { $$ = tfx_ast_call_new(P, @$, &$1, &$3); }
  | callee '(' IDENT IN expr ':' expr ')'            { $$ = tfx_ast_quant_new(P, @$, &$1, &$3, $5, $7); }
  ;
callee: IDENT | NODE { $$ = tfx_ast_kw(P, @1); } | COUNT { $$ = tfx_ast_kw(P, @1); } | SCOPES { $$ = tfx_ast_kw(P, @1); } ;
opt_comma: %empty | ',' ;
exprs: expr                                          { $$ = tfx_ast_exprs_add(tfx_ast_exprs_empty(), $1); }
  | exprs ',' expr                                   { $$ = tfx_ast_exprs_add($1, $3); }
  ;
dict_items: expr ':' expr                            { $$ = tfx_ast_dict_add(tfx_ast_dict_empty(), $1, $3); }
  | dict_items ',' expr ':' expr                     { $$ = tfx_ast_dict_add($1, $3, $5); }
  ;

%%

static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, tfx_rules_pctx *P) {
  (void)scanner;
  yysymbol_kind_t expected[YYNTOKENS];
  int n = yypcontext_expected_tokens(ctx, expected, YYNTOKENS);
  const char *names[YYNTOKENS];
  for (int i = 0; i < n; i++) names[i] = yysymbol_name(expected[i]);
  yysymbol_kind_t tok = yypcontext_token(ctx);
  tfx_rules_syntax_error(P, *yypcontext_location(ctx), tok == YYSYMBOL_YYEOF, yysymbol_name(tok),
                         names, n < 0 ? 0 : n);
  return 0;
}
