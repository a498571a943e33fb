/* SCOPE_FUSION group, pass "dataflow" (after "scope-fusion", before op mapping): applies the
 * rule pack's `rewrite` rules (fusion/dataflow.h) to the main graph and to every library
 * function body, round after round, until a round changes nothing.
 * Stage: passes/SCOPE_FUSION. Input: ctx->pack (none -> nothing to do), ctx->module,
 * opts->enable_scope_passes / opts->disable_rules (rewrites are switched by name like scope
 * passes; `general` ones are on by default). Output: the rewritten GraphDef, a fresh index
 * (updated from the old one with what each round changed: tfx_ctx_reindex_changed),
 * ctx->flow_report.
 *
 * Env: TFXC_DATAFLOW_NO_SCREEN=1 turns the rule-signature screen off (for tests and bench/);
 * TFXC_DATAFLOW_DROP_BY_NAME=1 makes the dead-producer sweep read the input strings of the main
 * graph as it does in function bodies, instead of the index's ids (for tests).
 *
 * Termination: at most TFX_FLOW_MAX_ROUNDS rounds (each round removes at least one node per
 * rewrite it applies; a rule set that keeps rewriting, e.g. A -> B and B -> A, stops there
 * with a warning and the report's "capped"); each program run is bounded by the VM budget. */
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "fusion/dataflow.h"
#include "fusion/engine.h"
#include "passes/passes.h"
#include "util/status.h"

#define TFX_FLOW_MAX_ROUNDS 64u

/* The single output arg of TF op `type` (function-body references), else NULL. */
static const char *tf_out_arg(const char *type) {
  tfx_diag scratch; /* a table that fails to load only costs the exact arg name */
  tfx_diag_init(&scratch);
  const tfx_tf_table *t = tfx_tf_ops_stdlib(&scratch);
  tfx_diag_free(&scratch);
  const tfx_tf_op *op = t ? tfx_tf_op_find(t, type) : NULL;
  return op && op->n_out == 1 ? op->out[0].name : NULL;
}

tfx_status tfx_pass_dataflow(tfx_ctx *ctx, void *user) {
  (void)user;
  if (!ctx->have_pack) return 0;
  if (!ctx->have_module) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'dataflow' needs the graph index (pass 'index')");
    return TFX_E_FAIL;
  }
  const tfx_pack *p = &ctx->pack;
  int has_flow = 0;
  for (uint32_t i = 0; i < p->n_rules && !has_flow; i++) has_flow = p->rules[i].kind == TFX_RULE_FLOW;
  if (!has_flow) return 0;
  const tfx_options *o = ctx->opts;
  tfx_fusion_enables en;
  int rc = tfx_fusion_enables_init(&en, p, ctx->diag);
  if (rc) return rc;
  if (o && (rc = tfx_fusion_enable(&en, o->enable_scope_passes, ctx->diag)) != 0) goto out_en;
  if (o && (rc = tfx_fusion_disable(&en, o->disable_rules, NULL, ctx->diag)) != 0) goto out_en;
  tfx_flow_engine eng;
  const char **keep = NULL;
  int any = 0;
  if ((rc = tfx_flow_engine_init(&eng, p, en.on, &any, ctx->diag)) != 0) goto out_en;
  if (!any) goto out_eng;
  eng.out_arg = tf_out_arg;
  if (ctx->prune.n_outs) { /* requested outputs are never dropped as dead producers */
    if (!(keep = tfx_malloc(ctx->prune.n_outs * sizeof *keep))) {
      tfx_error(ctx->diag, NULL, 0, 0, "out of memory (dataflow rewrites)");
      rc = TFX_E_NOMEM;
      goto out_eng;
    }
    for (uint32_t i = 0; i < ctx->prune.n_outs; i++) keep[i] = ctx->prune.outs[i].name;
    eng.keep = keep;
    eng.n_keep = ctx->prune.n_outs;
  }
  /* TFXC_DATAFLOW_NO_SCREEN=1: every candidate runs its program (tests/cli/dataflow_screen.sh
   * checks that the output is the same with and without the signature screen) */
  const char *ns = getenv("TFXC_DATAFLOW_NO_SCREEN");
  eng.no_screen = ns && *ns && strcmp(ns, "0") != 0;
  /* TFXC_DATAFLOW_DROP_BY_NAME=1: dead producers found from the input strings in the main graph
   * too (tests/cli/dataflow_dead.sh checks that the output is the same both ways) */
  const char *dn = getenv("TFXC_DATAFLOW_DROP_BY_NAME");
  eng.drop_by_name = dn && *dn && strcmp(dn, "0") != 0;
  tfx_ctx_setup_vm(ctx, eng.vm);
  if (ctx->flow_report) tfx_flow_report_free(ctx->flow_report);
  else if (!(ctx->flow_report = tfx_malloc(sizeof *ctx->flow_report))) {
    tfx_error(ctx->diag, NULL, 0, 0, "out of memory (dataflow rewrites)");
    rc = TFX_E_NOMEM;
    goto out_eng;
  }
  tfx_flow_report *rep = ctx->flow_report;
  tfx_flow_report_init(rep);
  for (uint32_t round = 1; rc == 0; round++) {
    if (round > TFX_FLOW_MAX_ROUNDS) {
      rep->capped = 1;
      tfx_warning(ctx->diag, NULL, 0, 0,
                  "dataflow rewrites still change the graph after %u rounds; stopped (rules that "
                  "undo each other?)", TFX_FLOW_MAX_ROUNDS);
      break;
    }
    rep->rounds = round;
    uint32_t changed = 0, c, ng = 1 + ctx->module.n_funcs;
    /* what each graph's round changed (changes[0] main, 1 + i function i): the re-index
     * updates the old index from it (tfx_ctx_reindex_changed); none recorded: a full one */
    tfx_flow_change *fc = tfx_calloc(ng, sizeof *fc);
    int complete = fc != NULL;
    for (uint32_t i = 0; i < ng && rc == 0; i++) {
      eng.change = fc ? &fc[i] : NULL;
      rc = tfx_flow_round(&eng, &ctx->module, i ? &ctx->module.funcs[i - 1] : &ctx->module.main,
                          ctx->model.graph, &ctx->model.arena, rep, round, &c, ctx->diag);
      changed += c;
      if (c && fc && !fc[i].new_id) complete = 0;
    }
    eng.change = NULL;
    tfx_graph_change *gc = !rc && changed && complete ? tfx_calloc(ng, sizeof *gc) : NULL;
    for (uint32_t i = 0; gc && i < ng; i++)
      gc[i] = (tfx_graph_change){fc[i].new_id, fc[i].rewired, fc[i].fix_node, fc[i].fix_first, fc[i].fix_in, fc[i].n_fix};
    if (!rc && changed) {
      ctx->graph_edits++;
      if ((rc = tfx_ctx_reindex_changed(ctx, gc)) != 0)
        tfx_error(ctx->diag, NULL, 0, 0, "internal error: the graph does not index after dataflow rewrites");
    }
    for (uint32_t i = 0; fc && i < ng; i++) {
      free(fc[i].new_id);
      free(fc[i].rewired);
      free(fc[i].fix_node);
      free(fc[i].fix_first);
      free(fc[i].fix_in);
    }
    free(fc);
    free(gc);
    if (rc || !changed) break;
  }
out_eng:
  free(keep);
  tfx_flow_engine_free(&eng);
out_en:
  tfx_fusion_enables_free(&en);
  return rc;
}
