/* SCOPE_FUSION group, pass "scope-fusion": runs the rule pack's scope passes (fusion engine)
 * over the main graph and over every library function body (each with its own ScopeTree, as
 * ATC does), applies the results to the GraphDef and re-indexes it.
 * Stage: passes/SCOPE_FUSION. Input: ctx->pack (pass "rules"; none -> nothing to do),
 * ctx->module, ctx->scopes, opts->enable_scope_passes / opts->disable_rules. Output: the
 * rewritten GraphDef, a fresh index, ctx->fusion_report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusion/engine.h"
#include "passes/passes.h"
#include "util/status.h"

/* Re-indexes into a scratch diagnostics context; its messages are forwarded only on success
 * (on failure the caller rolls back and explains). */
static int reindex_quiet(tfx_ctx *ctx, tfx_diag *scratch) {
  tfx_diag *real = ctx->diag;
  ctx->diag = scratch;
  /* what apply changed, per graph of the index: only those graphs are re-read */
  const tfx_fusion_report *rep = ctx->fusion_report;
  uint32_t ng = 1 + ctx->module.n_funcs;
  tfx_graph_change *ch = tfx_calloc(ng, sizeof *ch);
  for (uint32_t i = 0; ch && rep && i < rep->n_graphs; i++) {
    const tfx_fusion_graph_report *gr = &rep->graphs[i];
    if (!gr->applied || !gr->new_id || !gr->g) continue;
    uint32_t k = gr->g == &ctx->module.main ? 0
                 : gr->g >= ctx->module.funcs && gr->g < ctx->module.funcs + ctx->module.n_funcs
                     ? 1 + (uint32_t)(gr->g - ctx->module.funcs) : ng;
    if (k == ng) { /* not a graph of this index: re-index in full */
      free(ch);
      ch = NULL;
      break;
    }
    ch[k].new_id = gr->new_id;
    ch[k].rewired = gr->rewired;
  }
  int rc = tfx_ctx_reindex_changed(ctx, ch);
  free(ch);
  ctx->diag = real;
  return rc;
}

static void forward(tfx_diag *to, const tfx_diag *from) {
  for (size_t i = 0; i < from->n; i++) {
    const tfx_diag_item *it = &from->items[i];
    tfx_diag_add(to, it->sev, it->file, it->line, it->col, "%s", it->msg);
  }
  to->errors += from->dropped_errors; /* counted there, not recorded: counted here too */
  to->warnings += from->dropped_warnings;
  to->dropped_errors += from->dropped_errors;
  to->dropped_warnings += from->dropped_warnings;
}

/* Data inputs the fusion dropped (the results do not export what a surviving node read).
 * --allow-dangling-inputs, or a run that writes nothing (explain): warnings, as ATC drops such
 * edges. A run with op mapping (a GE output, --check): the op mapping fails each consumer
 * (tfx_precheck_dangling), so the precheck reports it too. --emit tf-pbtxt alone: errors here.
 * Returns 0 or TFX_E_FAIL. */
static int dangling_inputs(tfx_ctx *ctx, const tfx_fusion_report *rep) {
  const tfx_options *o = ctx->opts;
  int allow = !o || o->allow_dangling_inputs;
  int writes_tf = o && (o->emit & (1u << TFX_EMIT_TF_PBTXT)) != 0;
  if (!allow && tfx_ctx_wants_mapping(ctx)) return 0;
  if (!allow && !writes_tf) allow = 1;
  uint32_t n = 0;
  char site[512];
  for (uint32_t i = 0; i < rep->n_graphs; i++) {
    const tfx_fusion_graph_report *gr = &rep->graphs[i];
    for (uint32_t k = 0; k < gr->n_dangling; k++) {
      const tfx_fusion_dangling *e = &gr->dangling[k];
      tfx_precheck_rule_site(ctx, e->rule, site, sizeof site);
      char in_fn[300] = "";
      if (*gr->graph) snprintf(in_fn, sizeof in_fn, " in function '%s'", gr->graph);
      if (allow)
        tfx_warning(ctx->diag, ctx->model.path, 0, 0,
                    "node '%s'%s: data input '%s' dropped (--allow-dangling-inputs): '%s' was "
                    "absorbed into '%s' by scope pass '%s' (%s), whose index maps do not export "
                    "that output",
                    e->consumer, in_fn, e->input, e->producer, e->result, e->pass, site);
      else
        tfx_error(ctx->diag, ctx->model.path, 0, 0,
                  "node '%s'%s: data input '%s' is lost: '%s' was absorbed into '%s' by scope "
                  "pass '%s' (%s), whose index maps do not export that output",
                  e->consumer, in_fn, e->input, e->producer, e->result, e->pass, site);
      n++;
    }
  }
  if (allow || !n) return 0;
  tfx_diag_add(ctx->diag, TFX_SEV_NOTE, NULL, 0, 0, "%u data input%s lost to scope fusion; fix the "
               "rule's index maps, or give --allow-dangling-inputs to drop such edges as ATC does",
               n, n == 1 ? "" : "s");
  return TFX_E_FAIL;
}

tfx_status tfx_pass_scope_fusion(tfx_ctx *ctx, void *user) {
  (void)user;
  if (!ctx->have_pack) return 0; /* no rules loaded */
  if (!ctx->have_module) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'scope-fusion' needs the graph index (pass 'index')");
    return TFX_E_FAIL;
  }
  const tfx_pack *p = &ctx->pack;
  const tfx_options *o = ctx->opts;
  tfx_fusion_enables en;
  int rc = tfx_fusion_enables_init(&en, p, ctx->diag);
  if (rc) return rc;
  if (o && (rc = tfx_fusion_enable(&en, o->enable_scope_passes, ctx->diag)) != 0) goto out_en;
  if (o && (rc = tfx_fusion_disable(&en, o->disable_rules, NULL, ctx->diag)) != 0) goto out_en;
  int any = 0;
  for (uint32_t i = 0; i < en.n; i++) any |= en.on[i] && p->rules[i].kind == TFX_RULE_PASS;
  if (!any) goto out_en;

  if (ctx->fusion_report) tfx_fusion_report_free(ctx->fusion_report);
  else if (!(ctx->fusion_report = tfx_malloc(sizeof *ctx->fusion_report))) {
    tfx_error(ctx->diag, NULL, 0, 0, "out of memory (scope fusion)");
    rc = TFX_E_NOMEM;
    goto out_en;
  }
  tfx_fusion_report *rep = ctx->fusion_report;
  tfx_fusion_report_init(rep);

  tfx_fusion_engine eng;
  if ((rc = tfx_fusion_engine_init(&eng, p, ctx->diag)) != 0) goto out_en;
  tfx_ctx_setup_vm(ctx, eng.vm);
  eng.on_pattern = ctx->fusion_on_pattern;
  eng.on_pattern_user = ctx->fusion_on_pattern_user;

  /* main graph: the context's tree (built now if the scope-tree pass was switched off) */
  tfx_scope_tree tmp;
  memset(&tmp, 0, sizeof tmp);
  if (ctx->scopes_stale && !tfx_ctx_scopes(ctx)) { /* an earlier re-index: the tree, now */
    rc = TFX_E_FAIL;
    goto out_eng;
  }
  tfx_scope_tree *t = ctx->have_scopes ? &ctx->scopes : &tmp;
  uint32_t max_scope_depth =
      tfx_limit_uint(ctx->opts ? &ctx->opts->limits : NULL, TFX_LIMIT_SCOPE_DEPTH);
  if (!ctx->have_scopes &&
      (rc = tfx_scope_tree_build_lim(&tmp, &ctx->module.main, max_scope_depth, ctx->diag)) != 0) {
    tfx_scope_tree_free(&tmp);
    goto out_eng;
  }
  rc = tfx_fusion_run(&eng, &en, &ctx->module, &ctx->module.main, t, rep, ctx->diag);
  if (!ctx->have_scopes) tfx_scope_tree_free(&tmp);
  /* every function body with a tree of its own (its sub_types start empty) */
  for (uint32_t i = 0; i < ctx->module.n_funcs && rc == 0; i++) {
    const tfx_graph *g = &ctx->module.funcs[i];
    memset(&tmp, 0, sizeof tmp);
    rc = tfx_scope_tree_build_lim(&tmp, g, max_scope_depth, ctx->diag);
    if (rc == 0) rc = tfx_fusion_run(&eng, &en, &ctx->module, g, &tmp, rep, ctx->diag);
    tfx_scope_tree_free(&tmp);
  }
  if (rc) goto out_eng;

  int fused = 0;
  for (uint32_t i = 0; i < rep->n_graphs; i++) fused |= rep->graphs[i].n_final > 0;
  if (!fused) goto out_eng;
  tfx_fusion_undo undo;
  tfx_fusion_undo_init(&undo);
  rc = tfx_fusion_apply(rep, &ctx->module, ctx->model.graph, &ctx->model.arena, &undo, ctx->diag);
  int applied = 0;
  for (uint32_t i = 0; i < rep->n_graphs; i++) applied |= rep->graphs[i].applied;
  if (rc == 0 && applied) {
    tfx_diag scratch;
    tfx_diag_init(&scratch);
    int rrc = reindex_quiet(ctx, &scratch);
    if (rrc == 0) {
      forward(ctx->diag, &scratch);
      ctx->graph_edits++;
    } else {
      /* Never leave an unindexable graph behind: undo everything and say why. */
      const char *why = NULL;
      int oom = rrc == TFX_E_NOMEM;
      for (size_t k = 0; k < scratch.n; k++)
        if (scratch.items[k].sev == TFX_SEV_ERROR && !why) why = scratch.items[k].msg;
      if (!why) why = "the rewritten graph does not index";
      tfx_fusion_undo_rollback(&undo);
      for (uint32_t i = 0; i < rep->n_graphs; i++) {
        rep->graphs[i].applied = 0;
        rep->graphs[i].n_applied = rep->graphs[i].n_removed = 0;
      }
      if (oom) { /* not a property of the graph: the run fails instead of going on unfused */
        forward(ctx->diag, &scratch);
        tfx_ctx_reindex(ctx);
        rc = TFX_E_NOMEM;
      } else {
        tfx_warning(ctx->diag, NULL, 0, 0, "scope fusion not applied: %s", why);
        rc = tfx_ctx_reindex(ctx);
      }
      for (uint32_t i = 0; i < rep->n_graphs; i++) rep->graphs[i].n_dangling = 0;
    }
    tfx_diag_free(&scratch);
    if (rc == 0) rc = dangling_inputs(ctx, rep);
  } else if (rc) {
    tfx_fusion_undo_rollback(&undo);
    int r2 = tfx_ctx_reindex(ctx); /* the index may point at abandoned arrays: rebuild */
    (void)r2;
  }
  tfx_fusion_undo_free(&undo);
out_eng:
  for (uint32_t i = 0; i < rep->n_graphs; i++) rep->graphs[i].g = NULL; /* index is rebuilt */
  tfx_fusion_engine_free(&eng);
out_en:
  tfx_fusion_enables_free(&en);
  return rc;
}
