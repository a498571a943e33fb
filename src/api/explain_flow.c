/* `tfxc explain MODEL --rule REWRITE --node NODE`: why a dataflow rewrite does (not) match at
 * a node. Stage: api (called by explain.c after the pipeline ran through SCOPE_FUSION
 * with the "dataflow" pass switched off, so the graph is the one the rewrites would see).
 * The rule's program runs once with NODE as the root; every failed test is recorded (one per
 * tried order of commutative operands), and the one furthest into the pattern (the largest
 * test number: tests are numbered in program order) is the nearest partial match. Printed:
 * the rule and its source, the node and its op, then either "matches" or the failing test
 * (its text holds the expectation, e.g. "m: op is MatMul"), what was found, and its source
 * line. Output deterministic. */
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "fusion/dataflow.h"
#include "passes/passes.h"
#include "vm/bytecode.h"
#include "vm/vm.h"

uint32_t tfx_api_find_rewrite(const tfx_pack *p, const char *name) {
  for (uint32_t i = 0; i < p->n_rules; i++)
    if (p->rules[i].kind == TFX_RULE_FLOW && strcmp(tfx_pack_str(p, p->rules[i].name), name) == 0)
      return i;
  return TFX_PACK_NONE;
}

static void found_str(tfx_strbuf *b, const tfx_graph *g, const tfx_value *v) {
  if (v->tag == TFX_V_NODE) {
    if (v->u.id < g->n_nodes) tfx_sb_printf(b, "node '%s' (%s)", g->nodes[v->u.id].name, g->nodes[v->u.id].op);
    else tfx_sb_puts(b, "a node");
  } else if (v->tag == TFX_V_NONE) {
    tfx_sb_puts(b, "none");
  } else {
    tfx_vm_format_value(b, v, 1);
  }
}

int tfx_api_explain_flow(tfx_strbuf *b, tfx_ctx *ctx, uint32_t rule, const char *function,
                         const char *node, const char *cmd, tfx_diag *d) {
  const tfx_pack *p = &ctx->pack;
  const tfx_graph *g = &ctx->module.main;
  if (function)
    for (uint32_t i = 0; i < ctx->module.n_funcs; i++)
      if (!strcmp(ctx->module.funcs[i].name, function)) g = &ctx->module.funcs[i];
  uint32_t n = tfx_graph_find(g, node);
  if (n == TFX_NO_ID) {
    if (function) tfx_api_usage_error(d, cmd, "--node: no node '%s' in function '%s'", node, function);
    else tfx_api_usage_error(d, cmd, "--node: no node '%s' in the main graph", node);
    return TFX_EXIT_USAGE;
  }
  const tfx_vm_rule *ru = &p->rules[rule];
  /* the rule's tests: the DF_CHECK features of its program */
  uint32_t f_lo = UINT32_MAX, f_hi = 0;
  if (ru->prog < p->n_progs) {
    const tfx_vm_prog *pr = &p->progs[ru->prog];
    for (uint32_t pc = pr->start; pc < pr->end; pc += TFX_INS_LEN(TFX_INS_OP(p->code + pc)))
      if (TFX_INS_OP(p->code + pc) == TFX_OP_DF_CHECK) {
        uint32_t f = TFX_INS_RAW(p->code + pc, 0);
        if (f < f_lo) f_lo = f;
        if (f > f_hi) f_hi = f;
      }
  }
  tfx_sb_printf(b, "rewrite %s [%s:%u]\n", tfx_pack_str(p, ru->name), tfx_pack_file(p, ru->file), ru->line);
  tfx_sb_printf(b, "node '%s' (%s)%s%s\n", g->nodes[n].name, g->nodes[n].op, function ? " in function " : "",
                function ? function : "");
  int root_ok = 0;
  if (ru->from < p->n_consts && p->consts[ru->from].tag == TFX_V_LIST) {
    const tfx_value *l = &p->consts[ru->from];
    uint32_t nr = 0; /* root types end at "" (then the engine's second index level) */
    while (nr < l->n && l->u.items[nr].n) nr++;
    for (uint32_t i = 0; i < nr && !root_ok; i++) root_ok = !strcmp(l->u.items[i].u.s, g->nodes[n].op);
    if (!root_ok) {
      tfx_sb_puts(b, "  not a candidate: the root is ");
      for (uint32_t i = 0; i < nr; i++) tfx_sb_printf(b, "%s%s", i ? " or " : "", l->u.items[i].u.s);
      tfx_sb_puts(b, " (the tests below are what running the rule here would check)\n");
    }
  }
  tfx_flow_engine e;
  uint8_t *on = calloc(p->n_rules ? p->n_rules : 1, 1);
  if (!on) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    return TFX_E_NOMEM;
  }
  on[rule] = 1;
  int any = 0;
  int rc = tfx_flow_engine_init(&e, p, on, &any, d);
  if (rc) {
    free(on);
    return rc;
  }
  tfx_ctx_setup_vm(ctx, e.vm);
  tfx_vm_result res;
  rc = tfx_flow_explain(&e, &ctx->module, g, rule, n, &res, d);
  if (rc == 0) {
    uint32_t n_tests = f_hi >= f_lo ? f_hi - f_lo + 1 : 0;
    if (res.value.tag == TFX_V_BOOL && res.value.u.i) {
      tfx_sb_printf(b, "  matches: all %u tests pass%s\n", n_tests,
                    root_ok ? " (the rewrite applies unless an earlier overlapping match takes its nodes,"
                              " or a removed node has a reader the rewrite does not rewire)" : "");
    } else if (!res.n_fails) {
      tfx_sb_puts(b, "  no match (no test failed: the rule returned false)\n");
    } else {
      const tfx_vm_failure *best = &res.fails[0];
      for (uint32_t i = 1; i < res.n_fails; i++)
        if (res.fails[i].feature > best->feature) best = &res.fails[i];
      const tfx_vm_feature *fe = &p->features[best->feature];
      tfx_sb_printf(b, "  no match; nearest partial match: %u of %u tests passed", best->feature - f_lo, n_tests);
      if (res.n_failed > 1)
        tfx_sb_printf(b, " (%u attempt%s over commutative operand orders)", res.n_failed,
                      res.n_failed == 1 ? "" : "s");
      tfx_sb_printf(b, "\n  failed: %s [%s:%u]\n  found: ", tfx_pack_str(p, fe->text), tfx_pack_file(p, fe->file), fe->line);
      found_str(b, g, &best->found);
      tfx_sb_putc(b, '\n');
    }
  }
  tfx_flow_engine_free(&e);
  free(on);
  return rc;
}
