/* The precheck report: ATC's check_result.json fields (facts/ascend.md fact 22) plus, per node,
 * how tfxc handled it.
 * Stage: passes (after OP_MAPPING). Input: ctx->opmap, ctx->pack (rule names and sites),
 * ctx->fusion_report (nodes absorbed by scope fusion). Output: JSON members appended to a
 * buffer (the caller writes the braces), deterministic: graphs in module order (main graph
 * first, then function bodies), nodes in graph order, then the absorbed nodes by name.
 *
 *  "name": MODEL, "result": "success" | "failed", "total": N, "pass": P, "fail": F,
 *  "op": [ { "name", "type" (TF type), "result": "success" | "failed",
 *            "cause": [ {"code": C, "message": M} ]       (failures and absorbed nodes only)
 *            "graph": "f"                                  (function-body nodes only)
 *            "mapped_type": CANN type, "mapping": "rule" | "graph" | "auto" | "passthrough"
 *                       | "unsupported" | "fused",
 *            "rule": {"name": R, "site": "file:line"}      (nodes mapped by a rule)
 *            "fused_into": node                            (absorbed nodes)
 *            "hint": text }                                (failures with a hint) ] */
#include <string.h>

#include "fusion/engine.h"
#include "opmap/opmap.h"
#include "passes/passes.h"

static void rule_json(tfx_strbuf *b, const tfx_pack *p, uint32_t r) {
  const tfx_vm_rule *ru = &p->rules[r];
  const char *name = tfx_pack_str(p, ru->name);
  tfx_sb_puts(b, ", \"rule\": {\"name\": ");
  tfx_sb_json_str(b, name ? name : "", name ? strlen(name) : 0);
  tfx_sb_puts(b, ", \"site\": ");
  const char *f = tfx_pack_file(p, ru->file);
  tfx_strbuf s;
  tfx_sb_init(&s);
  tfx_sb_printf(&s, "%s:%u", f, ru->line);
  tfx_sb_json_str(b, s.oom ? "" : tfx_sb_cstr(&s), s.oom ? 0 : s.len);
  if (s.oom) b->oom = 1;
  tfx_sb_free(&s);
  tfx_sb_putc(b, '}');
}

static void str_member(tfx_strbuf *b, const char *key, const char *v) {
  tfx_sb_printf(b, ", \"%s\": ", key);
  tfx_sb_json_str(b, v ? v : "", v ? strlen(v) : 0);
}

static void op_entry(tfx_strbuf *b, const tfx_ctx *ctx, const tfx_mapped_graph *mg, uint32_t i,
                     int *first) {
  const tfx_node *nd = &mg->g->nodes[i];
  const tfx_mapped_op *op = &mg->ops[i];
  /* NONE: the mapping stopped at a rule run-time error before this node was decided */
  int failed = op->how == TFX_MAP_UNSUPPORTED || op->how == TFX_MAP_NONE ||
               op->cause != TFX_CAUSE_OK;
  tfx_sb_puts(b, *first ? "\n  {\"name\": " : ",\n  {\"name\": ");
  *first = 0;
  tfx_sb_json_str(b, nd->name, strlen(nd->name));
  str_member(b, "type", nd->op);
  tfx_sb_puts(b, failed ? ", \"result\": \"failed\"" : ", \"result\": \"success\"");
  if (failed) {
    int code = op->how == TFX_MAP_UNSUPPORTED ? TFX_CAUSE_TYPE_UNSUPPORTED
               : op->how == TFX_MAP_NONE       ? TFX_CAUSE_PARAM_INVALID
                                               : op->cause;
    const char *msg = op->message ? op->message
                      : op->how == TFX_MAP_UNSUPPORTED ? "The type is not supported."
                      : op->how == TFX_MAP_NONE
                          ? "not mapped: the op mapping stopped at a rule run-time error (see "
                            "the diagnostics)"
                          : "";
    tfx_sb_printf(b, ", \"cause\": [{\"code\": %d, \"message\": ", code);
    tfx_sb_json_str(b, msg, strlen(msg));
    tfx_sb_puts(b, "}]");
  }
  if (mg->g->func) str_member(b, "graph", mg->g->name);
  if (op->type && op->how != TFX_MAP_UNSUPPORTED) str_member(b, "mapped_type", op->type);
  str_member(b, "mapping", tfx_map_how_name(op->how));
  if (op->rule != TFX_PACK_NONE && ctx->have_pack && op->rule < ctx->pack.n_rules)
    rule_json(b, &ctx->pack, op->rule);
  if (op->hint) str_member(b, "hint", op->hint);
  tfx_sb_putc(b, '}');
}

/* Nodes absorbed by applied fusion results of one graph report: reported as ATC does
 * (code 0, "fused and removed."), when they are really gone from the graph. */
static uint32_t fused_entries(tfx_strbuf *b, const tfx_graph *g,
                              const tfx_fusion_graph_report *gr, int *first) {
  uint32_t n = 0;
  for (uint32_t r = 0; r < gr->n_final; r++) {
    const tfx_fusion_result *res = gr->final[r];
    if (tfx_graph_find(g, res->name) == TFX_NO_ID) continue; /* not applied */
    for (uint32_t c = 0; c < res->n_children; c++) {
      const char *cn = res->child_names[c];
      if (tfx_graph_find(g, cn) != TFX_NO_ID) continue; /* still there (e.g. kept) */
      tfx_sb_puts(b, *first ? "\n  {\"name\": " : ",\n  {\"name\": ");
      *first = 0;
      tfx_sb_json_str(b, cn, strlen(cn));
      str_member(b, "type", res->child_types ? res->child_types[c] : "");
      tfx_sb_puts(b, ", \"result\": \"success\", \"cause\": [{\"code\": 0, \"message\": "
                     "\"fused and removed.\"}]");
      if (g->func) str_member(b, "graph", g->name);
      str_member(b, "mapping", "fused");
      str_member(b, "fused_into", res->name);
      tfx_sb_putc(b, '}');
      n++;
    }
  }
  return n;
}

static const tfx_fusion_graph_report *graph_report(const tfx_ctx *ctx, const tfx_graph *g) {
  const tfx_fusion_report *fr = ctx->fusion_report;
  if (!fr) return NULL;
  for (uint32_t i = 0; i < fr->n_graphs; i++)
    if (strcmp(fr->graphs[i].graph, g->func ? g->name : "") == 0) return &fr->graphs[i];
  return NULL;
}

int tfx_precheck_json(const tfx_ctx *ctx, const char *model, tfx_strbuf *b, uint32_t *n_fail) {
  const tfx_opmap *om = ctx->opmap;
  *n_fail = 0;
  if (!om) return -1;
  uint32_t total = 0, fail = 0;
  tfx_strbuf ops;
  tfx_sb_init(&ops);
  int first = 1;
  for (uint32_t gi = 0; gi <= om->n_funcs; gi++) {
    const tfx_mapped_graph *mg = gi == 0 ? &om->main : &om->funcs[gi - 1];
    if (!mg->g || !mg->ops) continue; /* not reached: the mapping stopped at an error */
    for (uint32_t i = 0; i < mg->g->n_nodes; i++) {
      const tfx_mapped_op *op = &mg->ops[i];
      total++;
      if (op->how == TFX_MAP_UNSUPPORTED || op->how == TFX_MAP_NONE || op->cause != TFX_CAUSE_OK)
        fail++;
      op_entry(&ops, ctx, mg, i, &first);
    }
    const tfx_fusion_graph_report *gr = graph_report(ctx, mg->g);
    if (gr) total += fused_entries(&ops, mg->g, gr, &first);
  }
  tfx_sb_puts(b, "\"name\": ");
  tfx_sb_json_str(b, model, strlen(model));
  tfx_sb_printf(b, ",\n \"result\": \"%s\",\n \"total\": %u,\n \"pass\": %u,\n \"fail\": %u,\n"
                " \"op\": [", fail ? "failed" : "success", total, total - fail, fail);
  tfx_sb_add(b, ops.data ? ops.data : "", ops.len);
  tfx_sb_puts(b, first ? "]" : "\n ]");
  int rc = ops.oom || b->oom ? -1 : 0;
  tfx_sb_free(&ops);
  *n_fail = fail;
  return rc;
}
