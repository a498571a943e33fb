/* The explain evaluator of `tfxc explain` and tfxc_explain_scope / tfxc_explain_rule: why scope
 * fusion did (not) match, and why a dataflow rewrite does (not) match at a node.
 * Stage: api. Input: the convert options (rules, model) and the request (tfx_api_explain_req);
 * runs the pipeline through SCOPE_FUSION (load, rules, prune, index, scope-tree,
 * scope-fusion). Output: the explanation as text (deterministic: no addresses or times);
 * nothing is printed here.
 * scope: an observer of the fusion engine evaluates the scope with every pattern of every
 * enabled pass just before that pattern sweeps the tree (so with the sub_types it sees), in
 * the VM's explain mode; the text says matched or not, the first failing feature with its
 * expected and found values and its rule source line, and the results holding the scope.
 * rule PASS: the pass's fusion report (layers, require, sub_type changes, results, final map).
 * function NAME: scope names a scope of that library function's body (its own ScopeTree)
 * instead of the main graph; with rule, only that graph is reported.
 * rule on a model with library functions: a heading per graph that has anything for the
 * pass (`graph <main>`, then `function NAME` in library order), then one line naming the
 * graphs where nothing matched. Without library functions the output has no headings.
 * rule REWRITE with node: explain_flow.c. */
#define _POSIX_C_SOURCE 200809L
#include "api/api_int.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/explain_cond.h"
#include "fusion/engine.h"
#include "scope/scope.h"
#include "util/hash.h"
#include "vm/vm.h"

void tfx_api_usage_error(tfx_diag *d, const char *cmd, const char *fmt, ...) {
  char buf[768]; /* the command line's length for a usage message */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tfx_error(d, cmd, 0, 0, "%s", buf);
  if (cmd) tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "run '%s --help' for usage", cmd);
}

/* One evaluation of the scope by one pattern. */
typedef struct eval {
  uint32_t rule, group, layer, k;
  int matched, error;
  uint32_t feature;     /* first failing feature, or TFX_PACK_NONE */
  char *expected, *found;
  uint32_t n_failed;
} eval;

typedef struct explain {
  const tfx_ctx *ctx;
  const char *scope;    /* full name with the trailing '/' */
  const char *graph;    /* "" the main graph, else the function name */
  const tfx_api_list *only; /* --pass: the passes --scope explains, or NULL (all) */
  int seen;             /* the scope existed in that graph when a pattern ran */
  eval *ev;
  size_t n, cap;
  int oom;
  tfx_xcond cond;       /* where/require verdicts from the VM trace (explain_cond.c) */
} explain;

static void on_trace(void *user, const char *line) {
  explain *x = user;
  if (x->cond.active) tfx_xcond_line(&x->cond, line);
}

static char *value_str(const tfx_value *v) {
  tfx_strbuf b;
  tfx_sb_init(&b);
  tfx_vm_format_value(&b, v, 1);
  char *s = b.oom ? NULL : strdup(tfx_sb_cstr(&b));
  tfx_sb_free(&b);
  return s;
}

static void on_pattern(void *user, tfx_fusion_engine *e, const tfx_scope_tree *t, uint32_t rule,
                       uint32_t group, uint32_t layer, uint32_t k, uint32_t pattern) {
  explain *x = user;
  x->cond.active = 0;
  if (x->oom || !t->graph || strcmp(t->graph->name ? t->graph->name : "", x->graph) != 0) return;
  uint32_t s = tfx_scope_find(t, x->scope);
  if (s == TFX_NO_ID) return;
  x->cond.active = 1; /* the pass's selection on this graph follows its patterns */
  x->cond.scope_id = s;
  x->seen = 1;
  if (x->n == x->cap) {
    size_t nc = x->cap ? 2 * x->cap : 32;
    eval *ne = realloc(x->ev, nc * sizeof *ne);
    if (!ne) {
      x->oom = 1;
      return;
    }
    x->ev = ne;
    x->cap = nc;
  }
  eval *v = &x->ev[x->n++];
  memset(v, 0, sizeof *v);
  v->rule = rule;
  v->group = group;
  v->layer = layer;
  v->k = k;
  v->feature = TFX_PACK_NONE;
  tfx_diag scratch;
  tfx_diag_init(&scratch);
  tfx_vm_result res;
  tfx_vm_set_flags(e->vm, TFX_VM_EXPLAIN_ALL);
  int rc = tfx_vm_run_scope(e->vm, e->pack->patterns[pattern].prog, s, &res, &scratch);
  tfx_vm_set_flags(e->vm, 0);
  tfx_diag_free(&scratch);
  if (rc == TFX_E_NOMEM) { /* reported as out of memory, not as the pattern's error */
    x->oom = 1;
    return;
  }
  if (rc) {
    v->error = 1;
    return;
  }
  v->matched = res.matched;
  v->n_failed = res.n_failed;
  if (!res.matched && res.n_fails) {
    v->feature = res.fails[0].feature;
    v->expected = value_str(&res.fails[0].expected);
    v->found = value_str(&res.fails[0].found);
    if (!v->expected || !v->found) x->oom = 1;
  }
}

static const char *site_file(const tfx_pack *p, uint32_t file) {
  return file < p->n_files ? tfx_pack_str(p, p->files[file]) : "?";
}

/* The report entry of graph name ("" main), or NULL. */
static const tfx_fusion_graph_report *graph_report(const tfx_ctx *ctx, const char *name) {
  const tfx_fusion_report *r = ctx->fusion_report;
  if (!r) return NULL;
  for (uint32_t i = 0; i < r->n_graphs; i++)
    if (strcmp(r->graphs[i].graph, name) == 0) return &r->graphs[i];
  return NULL;
}

static const tfx_fusion_pass_report *pass_report(const tfx_fusion_graph_report *g,
                                                 const char *name) {
  for (uint32_t i = 0; g && i < g->n_passes; i++)
    if (strcmp(g->passes[i].name, name) == 0) return &g->passes[i];
  return NULL;
}

static const char *status_str(tfx_fusion_status s) {
  return s == TFX_FUSION_SUCCESS ? "SUCCESS" : s == TFX_FUSION_FAILED ? "FAILED" : "SCOPE_NOT_CHANGED";
}

/* 1 if name is an item of the list. */
static int in_list(const tfx_api_list *l, const char *name) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->items[i], name) == 0) return 1;
  return 0;
}

/* "pass NAME (general, file:line)" */
static void pass_head(tfx_strbuf *b, const tfx_pack *p, uint32_t ri) {
  const tfx_vm_rule *ru = &p->rules[ri];
  tfx_sb_printf(b, "pass %s (%s, %s:%u)", tfx_pack_str(p, ru->name),
                (ru->flags & TFX_RULE_GENERAL) ? "general" : "opt-in", site_file(p, ru->file),
                ru->line);
}

static void not_enabled(tfx_strbuf *b, const tfx_pack *p, uint32_t ri) {
  const tfx_vm_rule *ru = &p->rules[ri];
  if (ru->flags & TFX_RULE_GENERAL)
    tfx_sb_puts(b, ": disabled (--disable-pass)\n");
  else
    tfx_sb_printf(b, ": not enabled (opt-in: --enable-scope-fusion-passes %s)\n",
                  tfx_pack_str(p, ru->name));
}

static void print_map(tfx_strbuf *b, const char *dir, const tfx_fusion_map *m) {
  tfx_sb_printf(b, "      %s %s [", dir, m->key);
  for (uint32_t i = 0; i < m->n; i++)
    tfx_sb_printf(b, "%s%lld", i ? ", " : "",
                  m->to[i] < 0 ? (long long)TFX_FUSION_DISABLE_INDEX : (long long)m->to[i]);
  tfx_sb_puts(b, "]\n");
}

static void print_result(tfx_strbuf *b, const tfx_fusion_result *r, int detail) {
  tfx_sb_printf(b, "    %s (%s): scopes", r->name, r->type);
  for (uint32_t i = 0; i < r->n_scopes; i++) tfx_sb_printf(b, "%s %s", i ? "," : "", r->scopes[i]);
  if (r->n_extra) {
    tfx_sb_puts(b, "; extra nodes");
    for (uint32_t i = 0; i < r->n_extra; i++) tfx_sb_printf(b, "%s %s", i ? "," : "", r->extra[i]);
  }
  tfx_sb_printf(b, "; %u children\n", r->n_children);
  if (!detail) return;
  for (uint32_t i = 0; i < r->n_inputs; i++) print_map(b, "input ", &r->inputs[i]);
  for (uint32_t i = 0; i < r->n_outputs; i++) print_map(b, "output", &r->outputs[i]);
  for (uint32_t i = 0; i < r->n_inner; i++)
    tfx_sb_printf(b, "      inner %s (%s)\n", r->inner[i].name, r->inner[i].type);
}

/* 1 if the layer report lists scope for pattern k; *encl gets an enclosing scope it lists for
 * pattern k (or NULL). */
static int listed(const tfx_fusion_pass_report *pr, uint32_t group, uint32_t layer, uint32_t k,
                  const char *scope, const char **encl) {
  *encl = NULL;
  for (uint32_t i = 0; pr && i < pr->n_layers; i++) {
    const tfx_fusion_layer_report *l = &pr->layers[i];
    if (l->group != group || l->layer != layer) continue;
    for (uint32_t j = 0; j < l->n; j++) {
      if (l->m[j].pattern != k) continue;
      if (strcmp(l->m[j].scope, scope) == 0) return 1;
      size_t n = strlen(l->m[j].scope);
      if (strncmp(scope, l->m[j].scope, n) == 0) *encl = l->m[j].scope;
    }
  }
  return 0;
}

static void explain_scope(tfx_strbuf *b, const explain *x) {
  const tfx_ctx *ctx = x->ctx;
  const tfx_pack *p = &ctx->pack;
  const tfx_fusion_graph_report *g = graph_report(ctx, x->graph);
  if (*x->graph) tfx_sb_printf(b, "function %s\n", x->graph);
  tfx_sb_printf(b, "scope %s\n", x->scope);
  for (uint32_t ri = 0; ri < p->n_rules; ri++) {
    const tfx_vm_rule *ru = &p->rules[ri];
    if (ru->kind != TFX_RULE_PASS) continue;
    if (x->only && !in_list(x->only, tfx_pack_str(p, ru->name))) continue;
    const tfx_fusion_pass_report *pr = pass_report(g, tfx_pack_str(p, ru->name));
    pass_head(b, p, ri);
    if (!pr) {
      not_enabled(b, p, ri);
      continue;
    }
    tfx_sb_printf(b, ": %s\n", status_str(pr->status));
    for (uint32_t gi = 0; gi < ru->n_groups; gi++) {
      const tfx_vm_group *gr = &p->groups[ru->group_first + gi];
      for (uint32_t li = 0; li < gr->n_layers; li++) {
        const tfx_vm_layer *ly = &p->layers[gr->layer_first + li];
        for (uint32_t k = 0; k < ly->n_patterns; k++) {
          const tfx_vm_pattern *pat = &p->patterns[ly->pattern_first + k];
          tfx_sb_printf(b, "  group %u layer %u pattern %u %s: ", gi, li, k,
                        tfx_pack_str(p, pat->sub_type));
          const eval *v = NULL;
          for (size_t i = 0; i < x->n; i++)
            if (x->ev[i].rule == ri && x->ev[i].group == gi && x->ev[i].layer == li &&
                x->ev[i].k == k)
              v = &x->ev[i];
          const char *encl;
          int in_run = listed(pr, gi, li, k, x->scope, &encl);
          if (!v) {
            tfx_sb_puts(b, "not run (the group stopped at an earlier layer that matched no "
                           "scope)\n");
          } else if (v->error) {
            tfx_sb_puts(b, "run-time error evaluating the pattern\n");
          } else if (v->matched && in_run) {
            tfx_sb_puts(b, "matched\n");
          } else if (v->matched) {
            if (encl)
              tfx_sb_printf(b, "matches, but was not tested: the enclosing %s matched this "
                               "pattern first (matched scopes are not descended into)\n", encl);
            else
              tfx_sb_puts(b, "matches, but the run did not record it\n");
          } else if (v->feature != TFX_PACK_NONE && v->feature < p->n_features) {
            const tfx_vm_feature *f = &p->features[v->feature];
            const char *txt = f->text != TFX_PACK_NONE ? tfx_pack_str(p, f->text) : "?";
            tfx_sb_printf(b, "no match\n    %s:%u: %s: expected %s, found %s", site_file(p, f->file),
                          f->line, txt, v->expected, v->found);
            if (v->n_failed > 1)
              tfx_sb_printf(b, " (%u more failing feature%s)", v->n_failed - 1,
                            v->n_failed == 2 ? "" : "s");
            tfx_sb_putc(b, '\n');
          } else {
            tfx_sb_puts(b, "no match (a scope holding a _Retval node never matches)\n");
          }
        }
      }
    }
    if (pr->select_ran && !pr->select_value)
      tfx_sb_puts(b, "  require: false (the pass changed nothing; its sub_types were cleared)\n");
    int in_result = 0, matched = 0;
    for (uint32_t i = 0; i < pr->n_results && !in_result; i++)
      for (uint32_t j = 0; j < pr->results[i]->n_scopes; j++)
        if (strncmp(x->scope, pr->results[i]->scopes[j], strlen(pr->results[i]->scopes[j])) == 0)
          in_result = 1;
    for (size_t i = 0; i < x->n; i++) matched |= x->ev[i].rule == ri && x->ev[i].matched;
    tfx_xcond_print(&x->cond, ri, matched && !in_result && pr->select_value, b);
    for (uint32_t i = 0; i < pr->n_cleared; i++)
      if (strcmp(pr->cleared[i].scope, x->scope) == 0)
        tfx_sb_printf(b, "  sub_type %s cleared by this pass\n", pr->cleared[i].sub_type);
    for (uint32_t i = 0; i < pr->n_results; i++) {
      const tfx_fusion_result *r = pr->results[i];
      for (uint32_t j = 0; j < r->n_scopes; j++)
        if (strncmp(x->scope, r->scopes[j], strlen(r->scopes[j])) == 0) {
          tfx_sb_printf(b, "  in result %s (%s)\n", r->name, r->type);
          break;
        }
    }
  }
}

/* The pass's report on graph g (the lines after its status line). */
static void rule_body(tfx_strbuf *b, const tfx_fusion_graph_report *g,
                      const tfx_fusion_pass_report *pr) {
  for (uint32_t i = 0; i < pr->n_layers; i++) {
    const tfx_fusion_layer_report *l = &pr->layers[i];
    tfx_sb_printf(b, "  group %u layer %u: %u scope%s\n", l->group, l->layer, l->n,
                  l->n == 1 ? "" : "s");
    for (uint32_t j = 0; j < l->n; j++)
      tfx_sb_printf(b, "    %s  pattern %u -> %s\n", l->m[j].scope, l->m[j].pattern,
                    l->m[j].sub_type ? l->m[j].sub_type : "(none)");
  }
  tfx_sb_printf(b, "  require: %s\n", !pr->select_ran ? "not run" : pr->select_value ? "true" : "false");
  tfx_sb_printf(b, "  sub_types set: %u, cleared: %u\n", pr->n_set, pr->n_cleared);
  tfx_sb_printf(b, "  results: %u\n", pr->n_results);
  for (uint32_t i = 0; i < pr->n_results; i++) print_result(b, pr->results[i], 1);
  for (uint32_t i = 0; i < pr->n_dropped; i++)
    tfx_sb_printf(b, "  dropped %s (%s): %s\n", pr->dropped[i].name, pr->dropped[i].type,
                  pr->dropped[i].reason);
  uint32_t nf = 0;
  for (uint32_t i = 0; i < g->n_final; i++) nf += strcmp(g->final[i]->pass, pr->name) == 0;
  tfx_sb_printf(b, "  final results: %u\n", nf);
  for (uint32_t i = 0; i < g->n_final; i++)
    if (strcmp(g->final[i]->pass, pr->name) == 0) print_result(b, g->final[i], 0);
}

/* 1 if the pass did anything on graph g: a matched scope, a sub_type change, a result (kept
 * or dropped) or an entry in the final result map. */
static int rule_any(const tfx_fusion_graph_report *g, const tfx_fusion_pass_report *pr) {
  if (pr->n_set || pr->n_cleared || pr->n_results || pr->n_dropped) return 1;
  for (uint32_t i = 0; i < pr->n_layers; i++)
    if (pr->layers[i].n) return 1;
  for (uint32_t i = 0; i < g->n_final; i++)
    if (strcmp(g->final[i]->pass, pr->name) == 0) return 1;
  return 0;
}

static void graph_heading(tfx_strbuf *b, const char *graph) {
  if (*graph) tfx_sb_printf(b, "function %s", graph);
  else tfx_sb_puts(b, "graph <main>");
}

#define EXPLAIN_LIST_MAX 20 /* names listed in one summary or error line */

/* only: NULL (every graph) or the one graph to report ("" main). */
static void explain_rule(tfx_strbuf *b, const tfx_ctx *ctx, uint32_t ri, const char *only) {
  const tfx_pack *p = &ctx->pack;
  const char *name = tfx_pack_str(p, p->rules[ri].name);
  const tfx_fusion_report *rep = ctx->fusion_report;
  if (!only && ctx->module.n_funcs == 0) { /* main graph only: no headings */
    const tfx_fusion_graph_report *g = graph_report(ctx, "");
    const tfx_fusion_pass_report *pr = pass_report(g, name);
    pass_head(b, p, ri);
    if (!pr) {
      not_enabled(b, p, ri);
      return;
    }
    tfx_sb_printf(b, ": %s\n", status_str(pr->status));
    rule_body(b, g, pr);
    return;
  }
  /* the pass is enabled for every graph or for none */
  const tfx_fusion_pass_report *any_pr = NULL;
  for (uint32_t i = 0; rep && i < rep->n_graphs && !any_pr; i++)
    any_pr = pass_report(&rep->graphs[i], name);
  pass_head(b, p, ri);
  if (!any_pr) {
    not_enabled(b, p, ri);
    return;
  }
  tfx_sb_putc(b, '\n');
  uint32_t n_quiet = 0;
  for (uint32_t i = 0; i < rep->n_graphs; i++) {
    const tfx_fusion_graph_report *g = &rep->graphs[i];
    if (only && strcmp(g->graph, only) != 0) continue;
    const tfx_fusion_pass_report *pr = pass_report(g, name);
    if (!pr) continue;
    if (!only && !rule_any(g, pr)) {
      n_quiet++;
      continue;
    }
    graph_heading(b, g->graph);
    tfx_sb_printf(b, ": %s\n", status_str(pr->status));
    rule_body(b, g, pr);
  }
  if (!n_quiet) return;
  tfx_sb_printf(b, "nothing matched in %u graph%s:", n_quiet, n_quiet == 1 ? "" : "s");
  uint32_t k = 0;
  for (uint32_t i = 0; i < rep->n_graphs && k < EXPLAIN_LIST_MAX; i++) {
    const tfx_fusion_graph_report *g = &rep->graphs[i];
    const tfx_fusion_pass_report *pr = pass_report(g, name);
    if (!pr || rule_any(g, pr)) continue;
    tfx_sb_puts(b, k++ ? ", " : " ");
    graph_heading(b, g->graph);
  }
  if (n_quiet > k) tfx_sb_printf(b, " and %u more", n_quiet - k);
  tfx_sb_putc(b, '\n');
}

static uint32_t find_pass(const tfx_pack *p, const char *name) {
  for (uint32_t i = 0; i < p->n_rules; i++)
    if (p->rules[i].kind == TFX_RULE_PASS && strcmp(tfx_pack_str(p, p->rules[i].name), name) == 0)
      return i;
  return TFX_PACK_NONE;
}


/* The pass names of the rules, comma-separated, into b. */
static void pass_names(tfx_strbuf *b, const tfx_pack *p) {
  for (uint32_t i = 0; i < p->n_rules; i++)
    if (p->rules[i].kind == TFX_RULE_PASS)
      tfx_sb_printf(b, "%s%s", b->len ? ", " : "", tfx_pack_str(p, p->rules[i].name));
}

int tfx_api_explain(const tfx_options *opts, const tfx_api_explain_req *r, tfx_strbuf *out,
                    tfx_diag *d) {
  const char *cmd = r->cmd, *scope = r->scope, *rule = r->rule, *function = r->function;
  const char *node = r->node;
  tfx_options o = *opts;
  int rc = 0;
  explain x;
  memset(&x, 0, sizeof x);
  x.graph = function ? function : "";
  tfx_api_list only; /* --pass, split once */
  memset(&only, 0, sizeof only);
  if (r->passes && tfx_api_list_split(r->passes, &only) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    return TFX_E_NOMEM;
  }
  x.only = r->passes ? &only : NULL;
  char *sname = NULL;
  if (scope) {
    size_t n = strlen(scope);
    sname = malloc(n + 2);
    if (!sname) {
      tfx_api_list_free(&only);
      tfx_error(d, NULL, 0, 0, "out of memory");
      return TFX_E_NOMEM;
    }
    memcpy(sname, scope, n + 1);
    if (n && scope[n - 1] != '/' && strcmp(scope, "root") != 0) memcpy(sname + n, "/", 2);
    x.scope = sname;
  }
  tfx_pipeline p;
  tfx_pipeline_init(&p);
  tfx_ctx ctx;
  tfx_ctx_init(&ctx, &o, d);
  x.ctx = &ctx;
  tfx_xcond_init(&x.cond, &ctx.pack, UINT32_MAX);
  if (scope) {
    ctx.fusion_on_pattern = on_pattern;
    ctx.fusion_on_pattern_user = &x;
    o.trace = 1; /* the selection programs' trace says which condition rejected the scope */
    o.trace_fn = on_trace;
    o.trace_user = &x;
  }
  tfx_strbuf b; /* scratch for the name lists of messages */
  tfx_sb_init(&b);
  if (tfx_pass_register_builtin(&p) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory registering passes");
    rc = TFX_E_NOMEM;
    goto done;
  }
  if (r->load) {
    tfx_pass *lp = tfx_pipeline_find(&p, "load");
    if (lp) {
      lp->run = r->load;
      lp->user = r->load_user;
    }
  }
  if (node && !scope && tfx_pipeline_disable(&p, "dataflow", d) != 0) { /* the graph before rewrites */
    rc = TFX_EXIT_FAIL;
    goto done;
  }
  rc = tfx_pipeline_run(&p, &ctx, TFX_GROUP_SCOPE_FUSION);
  if (rc) goto done;
  if (x.oom || x.cond.oom) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    rc = TFX_E_NOMEM;
    goto done;
  }
  if (!ctx.have_pack) {
    tfx_error(d, cmd, 0, 0, "no rules loaded (rules pass disabled)");
    rc = TFX_EXIT_USAGE;
    goto done;
  }
  uint32_t fi = 0; /* index of the function in the module */
  if (function) {
    while (fi < ctx.module.n_funcs && strcmp(ctx.module.funcs[fi].name, function) != 0) fi++;
    if (fi == ctx.module.n_funcs) {
      for (uint32_t i = 0; i < ctx.module.n_funcs && i < EXPLAIN_LIST_MAX; i++)
        tfx_sb_printf(&b, "%s%s", i ? ", " : "", ctx.module.funcs[i].name);
      if (ctx.module.n_funcs > EXPLAIN_LIST_MAX)
        tfx_sb_printf(&b, " and %u more", ctx.module.n_funcs - EXPLAIN_LIST_MAX);
      if (ctx.module.n_funcs)
        tfx_api_usage_error(d, cmd, "--function: no function '%s' (%u function%s: %s)",
                            function, ctx.module.n_funcs, ctx.module.n_funcs == 1 ? "" : "s",
                            tfx_sb_cstr(&b));
      else
        tfx_api_usage_error(d, cmd,
                            "--function: no function '%s' (the model has no library functions)",
                            function);
      rc = TFX_EXIT_USAGE;
      goto done;
    }
  }
  for (size_t i = 0; i < only.n; i++) { /* every --pass name is a scope pass of the rules */
    char name[256];
    snprintf(name, sizeof name, "%s", only.items[i]);
    if (find_pass(&ctx.pack, name) == TFX_PACK_NONE) {
      pass_names(&b, &ctx.pack);
      tfx_api_usage_error(d, cmd, "--pass: no scope pass '%s' (passes: %s)", name,
                          b.len ? tfx_sb_cstr(&b) : "none");
      rc = TFX_EXIT_USAGE;
      goto done;
    }
  }
  if (rule && (node || tfx_api_find_rewrite(&ctx.pack, rule) != TFX_PACK_NONE)) {
    uint32_t ri = tfx_api_find_rewrite(&ctx.pack, rule);
    if (ri == TFX_PACK_NONE || !node) {
      tfx_api_usage_error(d, cmd, ri == TFX_PACK_NONE ? "--node: '%s' is not a rewrite rule"
                                                      : "--rule %s: a rewrite is explained at a node (add --node NODE)",
                          rule);
      rc = TFX_EXIT_USAGE;
      goto done;
    }
    rc = tfx_api_explain_flow(out, &ctx, ri, function, node, cmd, d);
  } else if (rule) {
    uint32_t ri = find_pass(&ctx.pack, rule);
    if (ri == TFX_PACK_NONE) {
      pass_names(&b, &ctx.pack);
      tfx_api_usage_error(d, cmd, "--rule: no scope pass '%s' (passes: %s)", rule,
                          b.len ? tfx_sb_cstr(&b) : "none");
      rc = TFX_EXIT_USAGE;
      goto done;
    }
    explain_rule(out, &ctx, ri, function);
  } else {
    int exists = x.seen;
    if (!exists && !function)
      exists = (ctx.have_scopes || ctx.scopes_stale) && tfx_ctx_scopes(&ctx) &&
               tfx_scope_find(&ctx.scopes, x.scope) != TFX_NO_ID;
    else if (!exists) { /* no pattern ran: look in the function body's own tree */
      tfx_scope_tree t;
      memset(&t, 0, sizeof t);
      if ((rc = tfx_scope_tree_build(&t, &ctx.module.funcs[fi], d)) != 0) {
        tfx_scope_tree_free(&t);
        goto done;
      }
      exists = tfx_scope_find(&t, x.scope) != TFX_NO_ID;
      tfx_scope_tree_free(&t);
    }
    if (!exists) {
      if (function)
        tfx_api_usage_error(d, cmd, "--scope: no scope '%s' in function '%s'", x.scope, function);
      else
        tfx_api_usage_error(d, cmd, "--scope: no scope '%s' in the main graph "
                            "(tfxc inspect lists them)", x.scope);
      rc = TFX_EXIT_USAGE;
      goto done;
    }
    explain_scope(out, &x);
  }
  if (!rc && out->oom) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    rc = TFX_E_NOMEM;
  }
done:
  tfx_sb_free(&b);
  for (size_t i = 0; i < x.n; i++) {
    free(x.ev[i].expected);
    free(x.ev[i].found);
  }
  free(x.ev);
  tfx_xcond_free(&x.cond);
  free(sname);
  tfx_api_list_free(&only);
  tfx_ctx_free(&ctx);
  tfx_pipeline_free(&p);
  return rc;
}
