/* AST builders called by the grammar's one-line actions, and the parse context they share.
 * Stage: rules, parsing (internal to src/rules). Input: values of tokens and of reduced
 * symbols. Output: arena-allocated AST nodes (rules/ast.h) appended to the file being parsed;
 * builder-level errors (a construct of the other file kind, nesting limits, out-of-range
 * literals, '=' for '==') and syntax-error hints are reported with their locations.
 * Builders return NULL only when out of memory (reported once); lists skip NULL items. */
#ifndef TFX_RULES_BUILD_H
#define TFX_RULES_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "rules/ast.h"
#include "rules/load.h"
#include "util/arena.h"
#include "util/diag.h"

/* ---- the rule set's internals (shared by build.c, load.c, sema.c) ---- */
struct tfx_ruleset {
  tfx_arena arena;             /* ASTs, names, source copies */
  tfx_rules_source *sources;   /* malloc'ed array */
  uint32_t n_sources, cap_sources;
  const tfx_ast_pass **passes; /* registered, in order (malloc'ed) */
  size_t n_passes;
  const tfx_ast_opmap **opmaps;
  size_t n_opmaps;
  size_t errors;
  int checked;
  int oom;                     /* a load, parse, registration or check ran out of memory (the
                                  ASTs may be partial): tfx_ruleset_oom */
  unsigned max_depth;          /* rule-depth limit (tfx_ruleset_set_max_depth); 0 = default */
};

/* ---- token values ---- */
typedef struct { const char *s; size_t len; } tfx_ast_strv;
typedef struct { int64_t v; int min; } tfx_ast_intv; /* min: the literal was 2^63 */

/* ---- list accumulators used while parsing (head/tail/count) ---- */
#define TFX_AST_LIST_TYPE(T, L) typedef struct { T *head, *tail; uint32_t n; } L
TFX_AST_LIST_TYPE(tfx_ast_expr, tfx_ast_exprs);
TFX_AST_LIST_TYPE(tfx_ast_stmt, tfx_ast_stmts);
TFX_AST_LIST_TYPE(tfx_ast_name, tfx_ast_names);
TFX_AST_LIST_TYPE(tfx_ast_portmap, tfx_ast_portmaps);
TFX_AST_LIST_TYPE(tfx_ast_node_arg, tfx_ast_args);
TFX_AST_LIST_TYPE(tfx_ast_feature, tfx_ast_features);
TFX_AST_LIST_TYPE(tfx_ast_pattern, tfx_ast_patterns);
TFX_AST_LIST_TYPE(tfx_ast_layer, tfx_ast_layers);
TFX_AST_LIST_TYPE(tfx_ast_binding, tfx_ast_bindings);
typedef struct { tfx_ast_expr *kh, *kt, *vh, *vt; uint32_t n; } tfx_ast_dict;
typedef struct { tfx_ast_features features; tfx_ast_stmts stmts; } tfx_ast_fragbody;
/* A `fragment NAME { ... }` of the file being parsed (spliced by `use NAME;`). */
typedef struct tfx_ast_fragment {
  tfx_ast_name name;
  tfx_ast_fragbody body;
  struct tfx_ast_fragment *next;
} tfx_ast_fragment;

#define TFX_RULES_MAX_BRACES 256

typedef struct tfx_rules_pctx {
  tfx_ruleset *rs;
  tfx_diag *d;
  unsigned max_depth;         /* nesting limit of expressions and blocks (<= TFX_AST_MAX_DEPTH) */
  tfx_arena *arena;
  uint32_t file;
  tfx_ast_file_kind kind;
  tfx_ast_file *ast;
  tfx_ast_pass *pass_tail;
  tfx_ast_opmap *opmap_tail;
  tfx_ast_rewrite *rewrite_tail;
  tfx_ast_fragment *fragments; /* defined so far in this file, newest first */
  struct tfx_ast_template *templates; /* node templates defined so far in this file */
  /* the pass being built (passes do not nest) */
  tfx_ast_group *gtail;
  tfx_ast_require *rtail;
  tfx_ast_fuse *ftail;
  int oom;
  int stack_oom;              /* growing the parser stack failed (tfx_rules_yymalloc) */
  size_t errors;              /* errors reported while parsing this file */
  /* the last syntax error, held back so an error production can refine it */
  int pending;
  tfx_rules_loc pend_loc;
  uint32_t pend_prev_end;     /* end of the token before the unexpected one */
  int pend_eof;
  char pend_msg[512];
  /* maintained by the lexer */
  uint32_t prev_end, last_end;
  tfx_rules_loc braces[TFX_RULES_MAX_BRACES];
  uint32_t n_braces;          /* open '{' (may exceed the array; only the first are kept) */
} tfx_rules_pctx;

/* Parses source `file` of rs into rs->sources[file].ast. Returns 0 or -1 (errors reported). */
int tfx_rules_parse_source(tfx_ruleset *rs, uint32_t file, tfx_diag *d);

/* ---- reporting ---- */
void tfx_rules_perror(tfx_rules_pctx *P, tfx_rules_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tfx_rules_oom(tfx_rules_pctx *P);
/* The parser's stack allocator (YYMALLOC): tfx_malloc, noting a failure in P->stack_oom so
 * that bison's "memory exhausted" is told apart from a stack over YYMAXDEPTH. */
void *tfx_rules_yymalloc(tfx_rules_pctx *P, size_t n);
void tfx_rules_loc_span(tfx_rules_loc *cur, const tfx_rules_loc *rhs, int n);
void tfx_rules_syntax_error(tfx_rules_pctx *P, tfx_rules_loc loc, int eof, const char *unexpected,
                            const char *const *expected, int n_expected);
void tfx_rules_parse_failed(tfx_rules_pctx *P, const tfx_rules_loc *loc, const char *msg);
void tfx_rules_flush_pending(tfx_rules_pctx *P);
void tfx_rules_recovered(tfx_rules_pctx *P);
void tfx_rules_hint_unknown_feature(tfx_rules_pctx *P, const tfx_ast_name *word);
void tfx_rules_hint_arrow(tfx_rules_pctx *P, tfx_rules_loc loc, const char *what);

/* ---- names ---- */
tfx_ast_name tfx_ast_name_str(tfx_rules_pctx *P, const tfx_ast_strv *s, tfx_rules_loc loc);
tfx_ast_name tfx_ast_kw(tfx_rules_pctx *P, tfx_rules_loc loc); /* a keyword used as a name */
tfx_ast_names tfx_ast_names_empty(void);
tfx_ast_names tfx_ast_names_add(tfx_rules_pctx *P, tfx_ast_names l, const tfx_ast_name *n);
tfx_ast_intv tfx_ast_int_lit(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_intv v, int negate);

/* ---- expressions ---- */
tfx_ast_expr *tfx_ast_int_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_intv v);
tfx_ast_expr *tfx_ast_float_new(tfx_rules_pctx *P, tfx_rules_loc loc, double v);
tfx_ast_expr *tfx_ast_string_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_strv s);
tfx_ast_expr *tfx_ast_bool_new(tfx_rules_pctx *P, tfx_rules_loc loc, int b);
tfx_ast_expr *tfx_ast_none_new(tfx_rules_pctx *P, tfx_rules_loc loc);
tfx_ast_expr *tfx_ast_ident_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *n);
tfx_ast_expr *tfx_ast_input_new(tfx_rules_pctx *P, tfx_rules_loc loc, int64_t port);
tfx_ast_expr *tfx_ast_paren(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *e);
tfx_ast_expr *tfx_ast_list_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_exprs *items);
tfx_ast_expr *tfx_ast_dict_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_dict *items);
tfx_ast_expr *tfx_ast_call_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *fn,
                               const tfx_ast_exprs *args);
tfx_ast_expr *tfx_ast_quant_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *fn,
                                const tfx_ast_name *var, tfx_ast_expr *list, tfx_ast_expr *cond);
tfx_ast_expr *tfx_ast_unary(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_op op, tfx_ast_expr *a);
tfx_ast_expr *tfx_ast_binary(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_op op, tfx_ast_expr *a,
                             tfx_ast_expr *b);
tfx_ast_expr *tfx_ast_cond_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *c,
                               tfx_ast_expr *t, tfx_ast_expr *f);
tfx_ast_expr *tfx_ast_index_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *base,
                                tfx_ast_expr *index);
tfx_ast_expr *tfx_ast_slice_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *base,
                                tfx_ast_expr *lo, tfx_ast_expr *hi);
tfx_ast_expr *tfx_ast_prop_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *base,
                               const tfx_ast_name *name);
tfx_ast_exprs tfx_ast_exprs_empty(void);
tfx_ast_exprs tfx_ast_exprs_add(tfx_ast_exprs l, tfx_ast_expr *e);
tfx_ast_dict tfx_ast_dict_empty(void);
tfx_ast_dict tfx_ast_dict_add(tfx_ast_dict d, tfx_ast_expr *k, tfx_ast_expr *v);

/* ---- scope rules ---- */
tfx_ast_feature *tfx_ast_feature_new(tfx_rules_pctx *P, tfx_ast_feature_kind kind, tfx_rules_loc loc,
                                     const tfx_ast_name *first, const tfx_ast_name *attr,
                                     tfx_ast_expr *step, tfx_ast_expr *value);
/* The same, after reporting '=' written for '==' at eq_loc. */
tfx_ast_feature *tfx_ast_feature_typo(tfx_rules_pctx *P, tfx_ast_feature_kind kind,
                                      tfx_rules_loc loc, tfx_rules_loc eq_loc,
                                      const tfx_ast_name *first, const tfx_ast_name *attr,
                                      tfx_ast_expr *step, tfx_ast_expr *value);
tfx_ast_features tfx_ast_features_empty(void);
tfx_ast_features tfx_ast_features_add(tfx_ast_features l, tfx_ast_feature *f);
tfx_ast_pattern *tfx_ast_pattern_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *sub_type,
                                     const tfx_ast_features *features);
tfx_ast_patterns tfx_ast_patterns_empty(void);
tfx_ast_patterns tfx_ast_patterns_add(tfx_ast_patterns l, tfx_ast_pattern *p);
tfx_ast_layer *tfx_ast_layer_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_patterns *patterns);
tfx_ast_layers tfx_ast_layers_empty(void);
tfx_ast_layers tfx_ast_layers_add(tfx_ast_layers l, tfx_ast_layer *x);
tfx_ast_group *tfx_ast_group_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_layers *layers);
tfx_ast_require *tfx_ast_require_new(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *cond);
tfx_ast_bindings tfx_ast_bindings_empty(void);
/* var NULL: another sub_type for the last binding. */
tfx_ast_bindings tfx_ast_bindings_add(tfx_rules_pctx *P, tfx_ast_bindings l, const tfx_ast_name *var,
                                      const tfx_ast_name *sub_type);
/* `var in f()`: the candidates are the list the call returns. */
tfx_ast_bindings tfx_ast_bindings_add_call(tfx_rules_pctx *P, tfx_ast_bindings l, const tfx_ast_name *var,
                                           tfx_ast_expr *call);
tfx_ast_fuse *tfx_ast_fuse_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_bindings *b,
                               tfx_ast_expr *where, const tfx_ast_stmts *body);
tfx_ast_pass *tfx_ast_pass_begin(tfx_rules_pctx *P);
tfx_ast_pass *tfx_ast_pass_add_group(tfx_rules_pctx *P, tfx_ast_pass *p, tfx_ast_group *g);
tfx_ast_pass *tfx_ast_pass_add_require(tfx_rules_pctx *P, tfx_ast_pass *p, tfx_ast_require *r);
tfx_ast_pass *tfx_ast_pass_add_fuse(tfx_rules_pctx *P, tfx_ast_pass *p, tfx_ast_fuse *f);
tfx_ast_pass *tfx_ast_pass_finish(tfx_rules_pctx *P, tfx_ast_pass *p, tfx_rules_loc loc,
                                  const tfx_ast_name *name, int general);
void tfx_ast_file_add_pass(tfx_rules_pctx *P, tfx_ast_pass *p);
/* Fragments (reuse): `fragment NAME { features and/or match/where statements }` defined before
 * use in the same file; `use NAME;` in a pattern splices copies of its features, in a rewrite
 * copies of its match/where statements (shallow copies: the AST is read-only after parsing). */
tfx_ast_fragbody tfx_ast_fragbody_empty(void);
tfx_ast_fragbody tfx_ast_fragbody_feature(tfx_ast_fragbody b, tfx_ast_feature *f);
tfx_ast_fragbody tfx_ast_fragbody_stmt(tfx_ast_fragbody b, tfx_ast_stmt *s);
void tfx_ast_fragment_define(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                             const tfx_ast_fragbody *body);
tfx_ast_features tfx_ast_features_use(tfx_rules_pctx *P, tfx_ast_features l, tfx_rules_loc loc,
                                      const tfx_ast_name *name);
tfx_ast_stmts tfx_ast_stmts_use(tfx_rules_pctx *P, tfx_ast_stmts l, tfx_rules_loc loc,
                                const tfx_ast_name *name);
/* Node templates (reuse with parameters): `template NAME(P, ...): Type(args) { attr/format }`
 * defined before use in the same file; `node N = NAME(E, ...);` is the node statement with each
 * parameter replaced by its argument (in expressions; a bare-name argument also renames a node
 * or capture argument). */
void tfx_ast_template_define(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                             const tfx_ast_names *params, const tfx_ast_name *type,
                             const tfx_ast_args *args, const tfx_ast_stmts *body);
tfx_ast_stmt *tfx_ast_stmt_node_template(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                                         const tfx_ast_name *tmpl, const tfx_ast_exprs *args);
/* Dataflow rewrites. */
tfx_ast_rewrite *tfx_ast_rewrite_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                                     int general, const tfx_ast_stmts *body);
void tfx_ast_file_add_rewrite(tfx_rules_pctx *P, tfx_ast_rewrite *r);
tfx_ast_stmt *tfx_ast_stmt_match(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                                 const tfx_ast_names *types, const tfx_ast_args *args, tfx_ast_expr *where);
tfx_ast_stmt *tfx_ast_stmt_rewire(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_node_arg *from,
                                  tfx_ast_node_arg *to);

/* ---- statements ---- */
tfx_ast_stmts tfx_ast_stmts_empty(void);
tfx_ast_stmts tfx_ast_stmts_add(tfx_ast_stmts l, tfx_ast_stmt *s);
tfx_ast_stmt *tfx_ast_stmt_expr(tfx_rules_pctx *P, tfx_ast_stmt_kind kind, tfx_rules_loc loc,
                                tfx_ast_expr *e);
tfx_ast_stmt *tfx_ast_stmt_exprs(tfx_rules_pctx *P, tfx_ast_stmt_kind kind, tfx_rules_loc loc,
                                 const tfx_ast_exprs *l);
tfx_ast_stmt *tfx_ast_stmt_named(tfx_rules_pctx *P, tfx_ast_stmt_kind kind, tfx_rules_loc loc,
                                 int is_output, const tfx_ast_name *name, tfx_ast_expr *index,
                                 tfx_ast_expr *e);
tfx_ast_stmt *tfx_ast_stmt_index_map(tfx_rules_pctx *P, tfx_rules_loc loc, int is_output,
                                     tfx_ast_expr *key, const tfx_ast_portmaps *ports);
tfx_ast_stmt *tfx_ast_stmt_if(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *cond,
                              const tfx_ast_stmts *then_body, const tfx_ast_stmts *else_body);
tfx_ast_stmt *tfx_ast_stmt_elif(tfx_rules_pctx *P, tfx_rules_loc loc, tfx_ast_expr *cond,
                                const tfx_ast_stmts *then_body, tfx_ast_stmt *else_if);
tfx_ast_stmt *tfx_ast_stmt_node(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_name *name,
                                const tfx_ast_name *type, const tfx_ast_args *args,
                                const tfx_ast_stmts *body);
tfx_ast_stmt *tfx_ast_stmt_out(tfx_rules_pctx *P, tfx_rules_loc loc, int64_t index,
                               const tfx_ast_name *node, int64_t port);
tfx_ast_stmt *tfx_ast_stmt_format(tfx_rules_pctx *P, tfx_rules_loc loc, int is_output,
                                  tfx_ast_expr *index, tfx_ast_expr *value);
tfx_ast_stmt *tfx_ast_stmt_drop(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_names *names);
tfx_ast_stmt *tfx_ast_stmt_priority(tfx_rules_pctx *P, tfx_rules_loc loc, int64_t prio);
tfx_ast_portmaps tfx_ast_portmaps_empty(void);
tfx_ast_portmaps tfx_ast_portmaps_add(tfx_ast_portmaps l, tfx_ast_portmap *m);
tfx_ast_portmap *tfx_ast_portmap_new(tfx_rules_pctx *P, tfx_rules_loc loc, int64_t from, int64_t to,
                                     int to_none);
tfx_ast_args tfx_ast_args_empty(void);
tfx_ast_args tfx_ast_args_add(tfx_ast_args l, tfx_ast_node_arg *a);
tfx_ast_node_arg *tfx_ast_node_arg_new(tfx_rules_pctx *P, tfx_ast_arg_kind kind, tfx_rules_loc loc,
                                       int64_t port, const tfx_ast_name *node, tfx_ast_expr *value);

/* ---- op maps ---- */
tfx_ast_opmap *tfx_ast_opmap_new(tfx_rules_pctx *P, tfx_rules_loc loc, const tfx_ast_names *from,
                                 const tfx_ast_name *to, const tfx_ast_stmts *body);
void tfx_ast_file_add_opmap(tfx_rules_pctx *P, tfx_ast_opmap *m);

#endif
