/* The precheck report: ATC's check_result.json fields (docs/ASCEND.md §7.3) plus, per node,
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fusion/engine.h"
#include "opmap/opmap.h"
#include "passes/passes.h"
#include "util/status.h"

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

/* ---- lowering failures as precheck failures (--check runs the lowering, never emits) ---- */

/* The mapped graph of function fname ("" or NULL: the main graph), or NULL. */
static tfx_mapped_graph *mapped_graph(tfx_opmap *om, const char *fname, size_t n) {
  if (!fname) return &om->main;
  for (uint32_t i = 0; i < om->n_funcs; i++) {
    const tfx_graph *g = om->funcs[i].g;
    if (g && g->name && strlen(g->name) == n && memcmp(g->name, fname, n) == 0) return &om->funcs[i];
  }
  return NULL;
}

/* The node a lowering message is about: "[function 'F': ]... node 'N'...". N may hold quotes,
 * so every closing quote after "node '" is tried until the name is a node of the graph.
 * Returns the node id (and its mapped graph in *mg) or TFX_NO_ID. */
static uint32_t message_node(tfx_opmap *om, const char *msg, tfx_mapped_graph **mg) {
  const char *fn = NULL;
  size_t fn_len = 0;
  if (strncmp(msg, "function '", 10) == 0) {
    const char *e = strstr(msg + 10, "': ");
    if (!e) return TFX_NO_ID;
    fn = msg + 10;
    fn_len = (size_t)(e - fn);
    msg = e + 3;
  }
  *mg = mapped_graph(om, fn, fn_len);
  if (!*mg || !(*mg)->g || !(*mg)->ops) return TFX_NO_ID;
  const char *s = strstr(msg, "node '");
  if (!s) return TFX_NO_ID;
  s += 6;
  char buf[1024];
  for (const char *q = strchr(s, '\''); q; q = strchr(q + 1, '\'')) {
    size_t n = (size_t)(q - s);
    if (n >= sizeof buf) break;
    memcpy(buf, s, n);
    buf[n] = '\0';
    uint32_t id = tfx_graph_find((*mg)->g, buf);
    if (id != TFX_NO_ID) return id;
  }
  return TFX_NO_ID;
}

static void drop_item(tfx_diag *d, size_t i) {
  tfx_diag_item *it = &d->items[i];
  if (it->sev == TFX_SEV_ERROR && d->errors) d->errors--;
  free(it->file);
  free(it->msg);
  free(it->source_line);
  memmove(it, it + 1, (d->n - i - 1) * sizeof *it);
  d->n--;
}

int tfx_precheck_lowering(tfx_ctx *ctx, size_t first_diag, int rc) {
  tfx_opmap *om = ctx->opmap;
  tfx_diag *d = ctx->diag;
  /* out of memory names no node to blame: the run fails with it (tfx_ge_lower's status) */
  if (rc == 0 || !om || rc == TFX_E_NOMEM) return rc;
  int unattributed = 0;
  for (size_t i = first_diag; i < d->n;) {
    tfx_diag_item *it = &d->items[i];
    if (it->sev != TFX_SEV_ERROR) {
      i++;
      continue;
    }
    tfx_mapped_graph *mg = NULL;
    uint32_t id = it->msg ? message_node(om, it->msg, &mg) : TFX_NO_ID;
    if (id == TFX_NO_ID) {
      unattributed = 1;
      i++;
      continue;
    }
    tfx_mapped_op *op = &mg->ops[id];
    const char *m = it->msg;
    if (strncmp(m, "function '", 10) == 0 && strstr(m, "': ")) m = strstr(m, "': ") + 3;
    /* "node 'N' (op T): what" -> "what": the report entry and the summary name the node */
    const char *nm = mg->g->nodes[id].name;
    size_t nl = strlen(nm);
    if (strncmp(m, "node '", 6) == 0 && strncmp(m + 6, nm, nl) == 0 && m[6 + nl] == '\'') {
      const char *p = m + 7 + nl;
      if (strncmp(p, " (op ", 5) == 0 && strstr(p, "): ")) p = strstr(p, "): ") + 3;
      else if (strncmp(p, ": ", 2) == 0) p += 2;
      else p = m;
      if (*p) m = p;
    }
    if (op->cause == TFX_CAUSE_OK && op->how != TFX_MAP_UNSUPPORTED) {
      char *c = tfx_arena_strdup(&om->arena, m);
      if (!c) return TFX_E_FAIL; /* the item stays: the run fails with it */
      op->cause = TFX_CAUSE_PARAM_INVALID;
      op->message = c;
      op->hint = NULL;
      om->n_failed++;
      if (om->n_ok) om->n_ok--;
    }
    drop_item(d, i); /* the report holds it now */
  }
  /* every error names its node: the report's failed nodes make the precheck fail */
  return unattributed || d->errors ? rc : 0;
}

/* ---- data inputs lost to scope fusion ---- */

void tfx_precheck_rule_site(const tfx_ctx *ctx, uint32_t rule, char *buf, size_t n) {
  if (!ctx->have_pack || rule >= ctx->pack.n_rules) {
    snprintf(buf, n, "unknown rule location");
    return;
  }
  const tfx_vm_rule *ru = &ctx->pack.rules[rule];
  const char *f = tfx_pack_file(&ctx->pack, ru->file);
  snprintf(buf, n, "%s:%u", f ? f : "?", ru->line);
}

int tfx_precheck_dangling(tfx_ctx *ctx) {
  const tfx_fusion_report *fr = ctx->fusion_report;
  tfx_opmap *om = ctx->opmap;
  if (!fr || !om || (ctx->opts && ctx->opts->allow_dangling_inputs)) return 0;
  char site[512], msg[2048];
  for (uint32_t i = 0; i < fr->n_graphs; i++) {
    const tfx_fusion_graph_report *gr = &fr->graphs[i];
    if (!gr->n_dangling) continue;
    tfx_mapped_graph *mg = mapped_graph(om, *gr->graph ? gr->graph : NULL, strlen(gr->graph));
    if (!mg || !mg->g || !mg->ops) continue;
    for (uint32_t k = 0; k < gr->n_dangling; k++) {
      const tfx_fusion_dangling *e = &gr->dangling[k];
      uint32_t id = tfx_graph_find(mg->g, e->consumer);
      if (id == TFX_NO_ID) continue; /* gone since (pruning, a later rewrite): nothing dangles */
      tfx_mapped_op *op = &mg->ops[id];
      tfx_precheck_rule_site(ctx, e->rule, site, sizeof site);
      snprintf(msg, sizeof msg, "data input '%s' is lost: '%s' was absorbed into '%s' by scope "
               "pass '%s' (%s), whose index maps do not export that output", e->input,
               e->producer, e->result, e->pass, site);
      /* an unsupported type keeps its cause; a mapping failure is most likely the missing
       * input itself (e.g. "input number of tensorflow[0] should be equal to factory size"):
       * the lost input is the cause to report */
      if (op->how == TFX_MAP_UNSUPPORTED || op->how == TFX_MAP_NONE) continue;
      char *c = tfx_arena_strdup(&om->arena, msg);
      if (!c) {
        tfx_error(ctx->diag, NULL, 0, 0, "out of memory (precheck)");
        return -1;
      }
      if (op->cause == TFX_CAUSE_OK) {
        om->n_failed++;
        if (om->n_ok) om->n_ok--;
      }
      op->cause = TFX_CAUSE_PARAM_INVALID;
      op->message = c;
      op->hint = "fix the rule's index maps, or give --allow-dangling-inputs to drop the edge "
                 "as ATC does";
    }
  }
  return 0;
}

int tfx_precheck_json(const tfx_ctx *ctx, const char *model, tfx_strbuf *b, uint32_t *n_fail) {
  return tfx_precheck_json_run(ctx, model, 0, b, n_fail);
}

int tfx_precheck_json_run(const tfx_ctx *ctx, const char *model, int run_failed, tfx_strbuf *b,
                          uint32_t *n_fail) {
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
                " \"op\": [", fail || run_failed ? "failed" : "success", total, total - fail, fail);
  tfx_sb_add(b, ops.data ? ops.data : "", ops.len);
  tfx_sb_puts(b, first ? "]" : "\n ]");
  int rc = ops.oom || b->oom ? -1 : 0;
  tfx_sb_free(&ops);
  *n_fail = fail;
  return rc;
}
