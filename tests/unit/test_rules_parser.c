/* Unit tests for the rule grammar and AST builders: every feature, fuse statement, op-map
 * statement and expression form builds the expected AST with locations; syntax errors are
 * all reported and parsing recovers; nesting limits hold; running out of memory (also when
 * growing the parser stack) is reported as out of memory, not as a rule error. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/ast.h"
#include "rules/build.h" /* tfx_rules_yymalloc */
#include "rules/load.h"
#include "util/arena.h"

typedef struct parsed {
  tfx_ruleset *rs;
  tfx_diag d;
  const tfx_ast_file *f;
} parsed;

static void parse(parsed *p, const char *name, const char *text) {
  tfx_diag_init(&p->d);
  p->rs = tfx_ruleset_new();
  assert_non_null(p->rs);
  tfx_rules_load_buffer(p->rs, name, text, strlen(text), &p->d);
  p->f = tfx_ruleset_source(p->rs, 0)->ast;
  assert_non_null(p->f);
}

static void done(parsed *p) {
  tfx_ruleset_free(p->rs);
  tfx_diag_free(&p->d);
}

static void no_errors(parsed *p) {
  if (p->d.n) tfx_diag_print(&p->d, stderr);
  assert_int_equal(p->d.n, 0);
}

static const char *src_of(parsed *p, tfx_rules_loc l, char *buf, size_t size) {
  const tfx_rules_source *s = tfx_ruleset_source(p->rs, l.file);
  snprintf(buf, size, "%.*s", (int)(l.end - l.off), s->text + l.off);
  return buf;
}

static void passes_groups_layers_patterns_features(void **state) {
  (void)state;
  parsed p;
  parse(&p, "x.scoperule",
        "pass A general {\n"
        "  group { layer { pattern bn { count Sub == 1; count Mul % 3 == 0; present Rsqrt;\n"
        "    absent Identity; attr Split.num_split == 4; attr T.f == 1.5; attr T.s == \"x\"; attr T.b == true;\n"
        "    name == \"batchnorm\"; has_child \"while\"; } pattern bn { count \"My/Op\" == -1; } }\n"
        "    layer { pattern outer { scopes bn == 1; } } }\n"
        "  group { layer { pattern m { count Mean == 2; } } }\n"
        "}\n"
        "pass \"B\" { }\n");
  no_errors(&p);
  assert_int_equal(p.f->kind, TFX_AST_SCOPERULE);
  assert_int_equal(p.f->n_passes, 2);
  const tfx_ast_pass *a = p.f->passes;
  assert_string_equal(a->name.s, "A");
  assert_true(a->general);
  assert_int_equal(a->n_groups, 2);
  assert_int_equal(a->groups->n_layers, 2);
  const tfx_ast_layer *l = a->groups->layers;
  assert_int_equal(l->n_patterns, 2);
  const tfx_ast_pattern *pt = l->patterns;
  assert_string_equal(pt->sub_type.s, "bn");
  assert_int_equal(pt->n_features, 10);
  tfx_ast_feature_kind kinds[] = {TFX_AST_F_COUNT_EQ, TFX_AST_F_COUNT_STEP, TFX_AST_F_PRESENT, TFX_AST_F_ABSENT,
                                  TFX_AST_F_ATTR_EQ,  TFX_AST_F_ATTR_EQ,    TFX_AST_F_ATTR_EQ, TFX_AST_F_ATTR_EQ,
                                  TFX_AST_F_NAME_EQ,  TFX_AST_F_HAS_CHILD};
  const tfx_ast_feature *f = pt->features;
  for (int i = 0; i < 10; i++, f = f->next) assert_int_equal(f->kind, kinds[i]);
  f = pt->features;
  assert_string_equal(f->op_type.s, "Sub");
  assert_int_equal(f->value->u.i, 1);
  f = f->next;
  assert_int_equal(f->step->u.i, 3);
  assert_int_equal(f->value->u.i, 0);
  f = f->next->next->next;
  assert_string_equal(f->op_type.s, "Split");
  assert_string_equal(f->attr.s, "num_split");
  assert_int_equal(f->value->kind, TFX_AST_E_INT);
  assert_int_equal(f->next->value->kind, TFX_AST_E_FLOAT);
  assert_int_equal(f->next->next->value->kind, TFX_AST_E_STRING);
  assert_int_equal(f->next->next->next->value->kind, TFX_AST_E_BOOL);
  assert_string_equal(pt->next->features->op_type.s, "My/Op");
  assert_int_equal(pt->next->features->value->u.i, -1);
  const tfx_ast_feature *sc = l->next->patterns->features;
  assert_int_equal(sc->kind, TFX_AST_F_SCOPES_EQ);
  assert_string_equal(sc->sub_type.s, "bn");
  assert_string_equal(a->next->name.s, "B");
  assert_false(a->next->general);
  char buf[64];
  assert_string_equal(src_of(&p, a->loc, buf, sizeof buf), "pass");
  assert_string_equal(src_of(&p, pt->features->loc, buf, sizeof buf), "count");
  done(&p);
}

static void fuse_and_require(void **state) {
  (void)state;
  parsed p;
  parse(&p, "x.scoperule",
        "pass P { group { layer { pattern a { name == \"a\"; } pattern b { name == \"b\"; } } }\n"
        "  require not any(s in scopes(a) : s.name contains \"w\");\n"
        "  fuse x in a, b, y in b where x.name != y.name {\n"
        "    scopes x, y; name \"n\"; type T; description \"d\";\n"
        "    input \"k\" { 0 -> 0, 1 -> none } output \"o\" { 0 -> 1 };\n"
        "    absorb find(x, \"AddN\"); attr a = 1; let v = x.parent;\n"
        "    if v == none { invalid \"no parent\"; } else if true { attr b = 2; } else { attr c = 3; }\n"
        "  }\n"
        "}\n");
  no_errors(&p);
  const tfx_ast_pass *ps = p.f->passes;
  assert_int_equal(ps->n_requires, 1);
  assert_int_equal(ps->requires->cond->kind, TFX_AST_E_UNARY);
  assert_int_equal(ps->requires->cond->u.op.a->kind, TFX_AST_E_QUANT);
  assert_int_equal(ps->requires->cond->u.op.a->u.quant.q, TFX_AST_Q_ANY);
  const tfx_ast_fuse *fu = ps->fuses;
  assert_int_equal(fu->n_bindings, 2);
  assert_string_equal(fu->bindings->var.s, "x");
  assert_int_equal(fu->bindings->n_sub_types, 2);
  assert_string_equal(fu->bindings->sub_types->next->s, "b");
  assert_string_equal(fu->bindings->next->var.s, "y");
  assert_non_null(fu->where);
  tfx_ast_stmt_kind kinds[] = {TFX_AST_S_SCOPES, TFX_AST_S_NAME,      TFX_AST_S_TYPE,   TFX_AST_S_DESCRIPTION,
                               TFX_AST_S_INDEX_MAP, TFX_AST_S_INDEX_MAP, TFX_AST_S_ABSORB, TFX_AST_S_ATTR,
                               TFX_AST_S_LET,    TFX_AST_S_IF};
  const tfx_ast_stmt *s = fu->body;
  for (int i = 0; i < 10; i++, s = s->next) assert_int_equal(s->kind, kinds[i]);
  assert_null(s);
  s = fu->body;
  assert_int_equal(s->n_exprs, 2);
  s = s->next->next;
  assert_string_equal(s->name.s, "T");
  s = s->next->next;
  assert_int_equal(s->is_output, 0);
  assert_int_equal(s->n_ports, 2);
  assert_int_equal(s->ports->next->to_none, 1);
  assert_int_equal(s->next->is_output, 1);
  assert_int_equal(s->next->ports->to, 1);
  const tfx_ast_stmt *iff = s->next->next->next->next->next;
  assert_true(iff->has_else);
  assert_int_equal(iff->body->kind, TFX_AST_S_INVALID);
  assert_int_equal(iff->else_body->kind, TFX_AST_S_IF); /* else if */
  assert_int_equal(iff->else_body->else_body->kind, TFX_AST_S_ATTR);
  done(&p);
}

static void inner_nodes_and_outs(void **state) {
  (void)state;
  parsed p;
  parse(&p, "x.scoperule",
        "pass P { group { layer { pattern a { name == \"a\"; } } }\n"
        "  fuse s in a { type ScopeToMultiNodes; input \"i\" { 0 -> 0, 1 -> 1 }; output \"o\" { 0 -> 0 };\n"
        "    node g: LayerNormGrad(in 0, in 1, const -1.5) { format input 0 = \"ND\"; format output 0 = \"NCHW\"; attr k = 1; }\n"
        "    node h: Add(g:0, in 1);\n"
        "    out 0 = h:0;\n"
        "  }\n"
        "}\n");
  no_errors(&p);
  const tfx_ast_stmt *n = p.f->passes->fuses->body->next->next->next;
  assert_int_equal(n->kind, TFX_AST_S_NODE);
  assert_string_equal(n->name.s, "g");
  assert_string_equal(n->type.s, "LayerNormGrad");
  assert_int_equal(n->n_args, 3);
  assert_int_equal(n->args->kind, TFX_AST_ARG_INPUT);
  assert_int_equal(n->args->next->port, 1);
  assert_int_equal(n->args->next->next->kind, TFX_AST_ARG_CONST);
  assert_true(n->args->next->next->value->u.f == -1.5);
  assert_int_equal(n->body->kind, TFX_AST_S_FORMAT);
  assert_int_equal(n->body->next->is_output, 1);
  assert_int_equal(n->body->next->next->kind, TFX_AST_S_ATTR);
  const tfx_ast_stmt *h = n->next;
  assert_int_equal(h->args->kind, TFX_AST_ARG_PORT);
  assert_string_equal(h->args->node.s, "g");
  const tfx_ast_stmt *o = h->next;
  assert_int_equal(o->kind, TFX_AST_S_OUT);
  assert_int_equal(o->index, 0);
  assert_string_equal(o->port_node.s, "h");
  done(&p);
}

static void op_maps(void **state) {
  (void)state;
  parsed p;
  parse(&p, "x.opmap",
        "op Add, AddV2 -> Add { auto; }\n"
        "op MatMul -> MatMulV2 { attr transpose_x1 = transpose_a; drop transpose_a, type; }\n"
        "op C -> \"Odd Type\" { format input 1 = \"HWCN\"; format output 0 = \"NCHW\"; input x = 0; output y = 0;\n"
        "  optional input z = 3 when len(t) > 0; optional input w = 4; dynamic input v count N;\n"
        "  dynamic output u count T; delete input 2 when is_training == true; when op == \"C\"; priority -2; }\n"
        "op S -> graph { node e: Exp(in 0); out 0 = e:0; }\n");
  no_errors(&p);
  assert_int_equal(p.f->kind, TFX_AST_OPMAP);
  assert_int_equal(p.f->n_opmaps, 4);
  const tfx_ast_opmap *m = p.f->opmaps;
  assert_int_equal(m->n_from, 2);
  assert_string_equal(m->from->next->s, "AddV2");
  assert_string_equal(m->to.s, "Add");
  assert_int_equal(m->body->kind, TFX_AST_S_AUTO);
  m = m->next;
  assert_int_equal(m->body->next->kind, TFX_AST_S_DROP);
  assert_string_equal(m->body->next->names->next->s, "type"); /* a keyword as a name */
  m = m->next;
  assert_string_equal(m->to.s, "Odd Type");
  tfx_ast_stmt_kind kinds[] = {TFX_AST_S_FORMAT, TFX_AST_S_FORMAT,   TFX_AST_S_PORT,    TFX_AST_S_PORT,
                               TFX_AST_S_OPTIONAL, TFX_AST_S_OPTIONAL, TFX_AST_S_DYNAMIC, TFX_AST_S_DYNAMIC,
                               TFX_AST_S_DELETE, TFX_AST_S_WHEN,     TFX_AST_S_PRIORITY};
  const tfx_ast_stmt *s = m->body;
  for (int i = 0; i < 11; i++, s = s->next) assert_int_equal(s->kind, kinds[i]);
  s = m->body->next->next->next->next;
  assert_string_equal(s->name.s, "z");
  assert_int_equal(s->index_expr->u.i, 3);
  assert_non_null(s->expr);
  assert_null(s->next->expr);
  assert_int_equal(s->next->next->next->is_output, 1);
  assert_non_null(m->when);
  assert_int_equal(m->priority, -2);
  m = m->next;
  assert_true(m->is_graph);
  assert_null(m->to.s);
  assert_int_equal(m->body->kind, TFX_AST_S_NODE);
  assert_int_equal(m->body->next->kind, TFX_AST_S_OUT);
  done(&p);
}

static const tfx_ast_expr *attr_expr(parsed *p) { return p->f->opmaps->body->expr; }

static void expression_forms_and_precedence(void **state) {
  (void)state;
  parsed p;
  parse(&p, "x.opmap", "op A -> B { attr x = a ?? b or c and not d == e + f * -g[1][2:3].h; }");
  no_errors(&p);
  const tfx_ast_expr *e = attr_expr(&p);
  assert_int_equal(e->kind, TFX_AST_E_BINARY);
  assert_int_equal(e->u.op.op, TFX_AST_OP_COALESCE);
  const tfx_ast_expr *o = e->u.op.b;
  assert_int_equal(o->u.op.op, TFX_AST_OP_OR);
  const tfx_ast_expr *an = o->u.op.b;
  assert_int_equal(an->u.op.op, TFX_AST_OP_AND);
  const tfx_ast_expr *nt = an->u.op.b;
  assert_int_equal(nt->kind, TFX_AST_E_UNARY);
  assert_int_equal(nt->u.op.op, TFX_AST_OP_NOT);
  const tfx_ast_expr *eq = nt->u.op.a;
  assert_int_equal(eq->u.op.op, TFX_AST_OP_EQ);
  const tfx_ast_expr *add = eq->u.op.b;
  assert_int_equal(add->u.op.op, TFX_AST_OP_ADD);
  const tfx_ast_expr *mul = add->u.op.b;
  assert_int_equal(mul->u.op.op, TFX_AST_OP_MUL);
  const tfx_ast_expr *neg = mul->u.op.b;
  assert_int_equal(neg->kind, TFX_AST_E_UNARY);
  assert_int_equal(neg->u.op.op, TFX_AST_OP_NEG);
  const tfx_ast_expr *pr = neg->u.op.a;
  assert_int_equal(pr->kind, TFX_AST_E_PROP);
  assert_string_equal(pr->u.prop.name, "h");
  assert_int_equal(pr->u.prop.base->kind, TFX_AST_E_SLICE);
  assert_int_equal(pr->u.prop.base->u.slice.base->kind, TFX_AST_E_INDEX);
  done(&p);

  parse(&p, "x.opmap",
        "op A -> B { attr x = c ? [1, 2.5, \"s\", none, DT_FLOAT] : {1: \"a\", \"k\": [],};\n"
        " attr y = l[[2, 0, 1]]; attr z = l[:2]; attr w = l[1:]; attr q = (l)[([0])];\n"
        " attr r = format_of(in 0) starts_with \"N\"; attr t = count(v in l : v > 0) + n_inputs;\n"
        " attr u = -9223372036854775808; attr k = x contains \"a\" == s ends_with \"b\"; }");
  no_errors(&p);
  const tfx_ast_stmt *st = p.f->opmaps->body;
  e = st->expr;
  assert_int_equal(e->kind, TFX_AST_E_COND);
  assert_int_equal(e->u.cond.t->kind, TFX_AST_E_LIST);
  assert_int_equal(e->u.cond.t->u.list.n, 5);
  assert_int_equal(e->u.cond.t->u.list.items->next->next->next->kind, TFX_AST_E_NONE);
  assert_int_equal(e->u.cond.t->u.list.items->next->next->next->next->kind, TFX_AST_E_DTYPE);
  assert_int_equal(e->u.cond.f->kind, TFX_AST_E_DICT);
  assert_int_equal(e->u.cond.f->u.dict.n, 2);
  st = st->next;
  assert_int_equal(st->expr->kind, TFX_AST_E_PERMUTE);
  st = st->next;
  assert_int_equal(st->expr->kind, TFX_AST_E_SLICE);
  assert_null(st->expr->u.slice.lo);
  st = st->next;
  assert_null(st->expr->u.slice.hi);
  st = st->next;
  assert_int_equal(st->expr->kind, TFX_AST_E_INDEX); /* a parenthesised list is an index */
  st = st->next;
  assert_int_equal(st->expr->u.op.op, TFX_AST_OP_STARTS_WITH);
  assert_int_equal(st->expr->u.op.a->kind, TFX_AST_E_CALL);
  assert_int_equal(st->expr->u.op.a->u.call.args->kind, TFX_AST_E_INPUT);
  st = st->next;
  assert_int_equal(st->expr->u.op.a->kind, TFX_AST_E_QUANT);
  assert_int_equal(st->expr->u.op.a->u.quant.q, TFX_AST_Q_COUNT);
  st = st->next;
  assert_int_equal(st->expr->kind, TFX_AST_E_INT);
  assert_true(st->expr->u.i == INT64_MIN);
  st = st->next;
  assert_int_equal(st->expr->u.op.op, TFX_AST_OP_EQ);
  assert_int_equal(st->expr->u.op.a->u.op.op, TFX_AST_OP_CONTAINS);
  done(&p);
}

static void several_errors_and_recovery(void **state) {
  (void)state;
  parsed p;
  parse(&p, "x.scoperule",
        "pass P {\n"
        "  group { layer { pattern p { count A = 1; bogus B; count C == 1 } } }\n"
        "  fuse s in p { type X  name \"n\"; }\n"
        "}\n"
        "pass Q { group { layer { pattern q { count A == 1; } } } fuse s in q { type Y; } }\n");
  assert_int_equal(p.d.errors, 4);
  assert_string_equal(p.d.items[0].msg, "a feature compares with '==', not '='");
  assert_string_equal(p.d.items[1].msg,
                      "unknown feature 'bogus' (a pattern holds count, present, absent, attr, scopes, name and has_child)");
  assert_string_equal(p.d.items[2].msg, "expected ';' before '}'");
  assert_string_equal(p.d.items[3].msg, "unexpected 'name', expected ';'");
  /* the second pass is still parsed */
  assert_int_equal(p.f->n_passes, 2);
  assert_string_equal(p.f->passes->next->name.s, "Q");
  done(&p);
}

static void nesting_limits(void **state) {
  (void)state;
  /* deep parentheses overflow the parser stack, cleanly */
  size_t n = 20000;
  char *text = malloc(n * 2 + 64);
  assert_non_null(text);
  strcpy(text, "op A -> B { attr x = ");
  size_t k = strlen(text);
  for (size_t i = 0; i < n; i++) text[k++] = '(';
  text[k++] = '1';
  for (size_t i = 0; i < n; i++) text[k++] = ')';
  strcpy(text + k, "; }");
  parsed p;
  parse(&p, "x.opmap", text);
  assert_true(p.d.errors >= 1);
  assert_non_null(strstr(p.d.items[0].msg, "nested too deeply"));
  done(&p);
  /* deep if blocks hit the AST limit */
  size_t m = 300;
  char *t2 = malloc(m * 12 + 200);
  assert_non_null(t2);
  strcpy(t2, "pass P { group { layer { pattern p { name == \"x\"; } } } fuse s in p { type X; ");
  k = strlen(t2);
  for (size_t i = 0; i < m; i++) k += (size_t)sprintf(t2 + k, "if true { ");
  for (size_t i = 0; i < m; i++) k += (size_t)sprintf(t2 + k, "} ");
  strcpy(t2 + k, "} }");
  parse(&p, "x.scoperule", t2);
  assert_true(p.d.errors >= 1);
  int found = 0;
  for (size_t i = 0; i < p.d.n; i++)
    if (strstr(p.d.items[i].msg, "blocks nested too deeply")) found = 1;
  assert_true(found);
  assert_int_equal(tfx_rules_check(p.rs, NULL, &p.d), 0); /* sema does not enter the deep part */
  done(&p);
  free(text);
  free(t2);
}

static int has_msg(const tfx_diag *d, const char *what) {
  for (size_t i = 0; i < d->n; i++)
    if (d->items[i].msg && strstr(d->items[i].msg, what)) return 1;
  return 0;
}

static void out_of_memory_everywhere(void **state) {
  (void)state;
  const char *text =
      "pass P { group { layer { pattern p { count A == 1; } } } fuse s in p where s.name contains \"a\" {\n"
      "  type X; input \"k\" { 0 -> 0 }; let v = [1, 2]; attr a = v[0] + 1; } }\n";
  /* Fail the Nth allocation for every N until a run succeeds: no crash, no leak. */
  for (long nth = 1; nth < 2000; nth++) {
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_alloc_fail_at(nth);
    tfx_ruleset *rs = tfx_ruleset_new();
    if (rs) {
      tfx_rules_load_buffer(rs, "x.scoperule", text, strlen(text), &d);
      tfx_rules_check(rs, NULL, &d);
    }
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    /* an error after a failed allocation is out of memory (exit 1), not a rule error */
    if (rs && hits && tfx_ruleset_errors(rs)) {
      if (!tfx_ruleset_oom(rs) || !has_msg(&d, "out of memory")) {
        tfx_diag_print(&d, stderr);
        fail_msg("allocation %ld failed: errors, but not out of memory", nth);
      }
    }
    tfx_ruleset_free(rs);
    tfx_diag_free(&d);
    if (hits == 0) break;
  }
}

/* The parser stack grows past its initial 200 entries on deep (but allowed) nesting. When
 * that allocation fails, bison says "memory exhausted" as for a stack over its maximum: it
 * must be reported as out of memory (tfx_ruleset_oom, exit 1), not as nesting (exit 4). */
static long stack_site_first; /* the n of the first allocation made by tfx_rules_yymalloc */
static void stack_observer(const void *site, void *user) {
  (void)user;
  uintptr_t at = (uintptr_t)site, fn = (uintptr_t)&tfx_rules_yymalloc;
  if (!stack_site_first && at > fn && at - fn < 256) stack_site_first = tfx_alloc_calls();
}

static void out_of_memory_parser_stack(void **state) {
  (void)state;
  size_t n = 200; /* within the default rule-depth (256), deeper than the initial stack */
  char *text = malloc(n * 2 + 64);
  assert_non_null(text);
  strcpy(text, "op A -> B { attr x = ");
  size_t k = strlen(text);
  for (size_t i = 0; i < n; i++) text[k++] = '(';
  text[k++] = '1';
  for (size_t i = 0; i < n; i++) text[k++] = ')';
  strcpy(text + k, "; }");
  /* reference: parses cleanly, and the stack did grow */
  stack_site_first = 0;
  tfx_alloc_set_observer(stack_observer, NULL);
  tfx_alloc_fail_at(0);
  parsed p;
  parse(&p, "x.opmap", text);
  tfx_alloc_set_observer(NULL, NULL);
  no_errors(&p);
  done(&p);
  assert_true(stack_site_first > 0);
  long stack_runs = 0;
  for (long nth = 1; nth < 100000; nth++) {
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_alloc_fail_at(nth);
    tfx_ruleset *rs = tfx_ruleset_new();
    if (rs) tfx_rules_load_buffer(rs, "x.opmap", text, strlen(text), &d);
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (hits == 0) {
      assert_int_equal(d.n, 0);
      tfx_ruleset_free(rs);
      tfx_diag_free(&d);
      break;
    }
    if (rs) {
      if (!tfx_ruleset_oom(rs) || has_msg(&d, "nested too deeply")) {
        tfx_diag_print(&d, stderr);
        fail_msg("allocation %ld failed: not reported as out of memory", nth);
      }
      stack_runs += nth == stack_site_first;
    }
    tfx_ruleset_free(rs);
    tfx_diag_free(&d);
  }
  assert_int_equal(stack_runs, 1); /* the stack allocation was among the failures */
  free(text);
}

int main(int argc, char **argv) {
  /* the fault-injection cases: their own ctest test (unit/NAME/fault-injection), skipped
   * (exit 77) when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        cmocka_unit_test(out_of_memory_everywhere),
        cmocka_unit_test(out_of_memory_parser_stack),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(passes_groups_layers_patterns_features),
      cmocka_unit_test(fuse_and_require),
      cmocka_unit_test(inner_nodes_and_outs),
      cmocka_unit_test(op_maps),
      cmocka_unit_test(expression_forms_and_precedence),
      cmocka_unit_test(several_errors_and_recovery),
      cmocka_unit_test(nesting_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
