/* `tfxc explain MODEL --scope NAME | --rule PASS`: why scope fusion did (not) match, and
 * `--rule REWRITE --node NODE`: why a dataflow rewrite does (not) match at a node.
 * Stage: cli. Input: argv with the convert command's rule and model options. The evaluator
 * and the text it produces are the library's (src/api/explain.c, tfxc_explain_scope and
 * tfxc_explain_rule); this checks the command line and prints that text on stdout. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_api.h"
#include "tfxc/tfxc.h"

enum {
  E_SCOPE, E_RULE, E_FUNCTION, E_RULES, E_NO_STDLIB, E_WARN, E_ENABLE_SCOPE, E_DISABLE_PASS, E_VM_BUDGET,
  E_TAG, E_INPUT_SHAPE, E_OUT_NODES, E_MAX_FILE, E_VERBOSE, E_QUIET, E_HELP, E_LIMIT, E_PASS, E_NODE
};

static const tfx_cli_opt explain_opts[] = {
  {E_SCOPE, "scope", 0, "NAME"},
  {E_RULE, "rule", 0, "PASS"},
  {E_FUNCTION, "function", 0, "NAME"},
  {E_RULES, "rules", 'r', "PATH"},
  {E_NO_STDLIB, "no-stdlib", 0, NULL},
  {E_WARN, NULL, 'W', "WARNING"},
  {E_ENABLE_SCOPE, "enable-scope-fusion-passes", 0, "A,B"},
  {E_DISABLE_PASS, "disable-pass", 0, "A,B"},
  {E_VM_BUDGET, "vm-budget", 0, "N"},
  {E_TAG, "tag", 0, "TAG"},
  {E_INPUT_SHAPE, "input-shape", 0, "SPEC"},
  {E_OUT_NODES, "out-nodes", 0, "SPEC"},
  {E_MAX_FILE, "max-file-size", 0, "SIZE"},
  {E_VERBOSE, "verbose", 'v', NULL},
  {E_QUIET, "quiet", 'q', NULL},
  {E_HELP, "help", 'h', NULL},
  {E_LIMIT, "limit", 0, "NAME=N"},
  {E_PASS, "pass", 0, "A,B"},
  {E_NODE, "node", 0, "NODE"}, /* with --rule REWRITE: src/api/explain_flow.c */
};

/* The command line's settings, handed to the session. */
typedef struct explain_opts_t {
  const char *model_path, *enable_scope_passes, *disable_rules, *tag, *input_shape, *out_nodes;
  int verbose;
} explain_opts_t;

/* Hands o and the rules to the session. Returns 0 or an exit code (reported). */
static int setup(tfx_cli_session *cs, const explain_opts_t *o, const tfx_cli_rules *rules) {
  int rc = tfx_cli_session_set(cs, "usage-command", "tfxc explain");
  if (rc == 0) rc = tfx_cli_session_rules(cs, rules, o->verbose);
  if (rc == 0 && o->enable_scope_passes)
    rc = tfx_cli_session_set(cs, "enable-scope-fusion-passes", o->enable_scope_passes);
  if (rc == 0 && o->disable_rules) rc = tfx_cli_session_set(cs, "disable-pass", o->disable_rules);
  if (rc == 0 && o->tag) rc = tfx_cli_session_set(cs, "tag", o->tag);
  if (rc == 0 && o->input_shape) rc = tfx_cli_session_set(cs, "input-shape", o->input_shape);
  if (rc == 0 && o->out_nodes) rc = tfx_cli_session_set(cs, "out-nodes", o->out_nodes);
  if (rc == 0) rc = tfx_cli_session_rc(cs, tfxc_load_model_path(cs->s, o->model_path));
  return rc;
}

int tfx_cli_explain(int argc, char **argv, int first, tfx_cli_diag *d) {
  explain_opts_t o;
  memset(&o, 0, sizeof o);
  tfx_cli_rules rules;
  memset(&rules, 0, sizeof rules);
  tfx_cli_args a;
  tfx_cli_args_init(&a, argc, argv, first, "tfxc explain", explain_opts,
                    sizeof explain_opts / sizeof explain_opts[0]);
  const char *scope = NULL, *rule = NULL, *function = NULL, *only = NULL, *node = NULL, *v;
  int help = 0, usage = 0, id, rc = 0;
  while ((id = tfx_cli_next(&a, &v, d)) != TFX_CLI_END) {
    switch (id) {
    case TFX_CLI_ERROR: tfx_cli_rules_free(&rules); return TFX_EXIT_USAGE;
    case TFX_CLI_POSITIONAL:
      if (o.model_path) {
        tfx_cli_usage_error(d, "tfxc explain", "more than one MODEL given ('%s' and '%s')",
                            o.model_path, v);
        usage = 1;
      }
      o.model_path = v;
      break;
    case E_SCOPE: scope = v; break;
    case E_RULE: rule = v; break;
    case E_FUNCTION: function = v; break;
    case E_PASS: only = v; break;
    case E_NODE: node = v; break;
    case E_RULES:
      if (tfx_cli_rules_add_path(&rules, v, d) != 0) {
        tfx_cli_rules_free(&rules);
        return TFXC_NOMEM;
      }
      break;
    case E_NO_STDLIB: rules.no_stdlib = 1; break;
    case E_WARN:
      switch (tfx_cli_rules_add_warn(&rules, v, "tfxc explain", d)) {
      case 0: break;
      case -1: usage = 1; break;
      default:
        tfx_cli_rules_free(&rules);
        return TFXC_NOMEM;
      }
      break;
    case E_ENABLE_SCOPE:
      if (tfx_cli_opt_list("enable-scope-fusion-passes", v, "tfxc explain", d) != 0) usage = 1;
      o.enable_scope_passes = v;
      break;
    case E_DISABLE_PASS:
      if (tfx_cli_opt_list("disable-pass", v, "tfxc explain", d) != 0) usage = 1;
      o.disable_rules = v;
      break;
    case E_VM_BUDGET:
      if (tfx_cli_opt_vm_budget(v, "tfxc explain", d) != 0) usage = 1;
      else if (tfx_cli_limits_add(&rules.limits, "vm-steps", v, d) != 0) usage = 1;
      break;
    case E_TAG: o.tag = v; break;
    case E_INPUT_SHAPE: o.input_shape = v; break;
    case E_OUT_NODES: o.out_nodes = v; break;
    case E_MAX_FILE:
      if (tfx_cli_opt_max_file_size(v, "tfxc explain", d) != 0) usage = 1;
      else if (tfx_cli_limits_add(&rules.limits, "file-size", v, d) != 0) usage = 1;
      break;
    case E_LIMIT:
      /* with the rules' options: the session takes every --limit, in order */
      switch (tfx_cli_parse_limit(v, "tfxc explain", &rules.limits, d)) {
      case 0: break;
      case -1: usage = 1; break;
      default: tfx_cli_rules_free(&rules); return TFXC_NOMEM;
      }
      break;
    case E_VERBOSE: o.verbose = o.verbose < 0 ? 1 : o.verbose + 1; break;
    case E_QUIET: o.verbose = -1; break;
    case E_HELP: help = 1; break;
    default: break;
    }
  }
  if (help) {
    tfx_cli_help_explain(stdout);
    tfx_cli_rules_free(&rules);
    return usage ? TFX_EXIT_USAGE : 0;
  }
  if (!usage && !o.model_path) {
    tfx_cli_usage_error(d, "tfxc explain", "no MODEL given");
    usage = 1;
  }
  if (!usage && !scope == !rule) {
    tfx_cli_usage_error(d, "tfxc explain", "give exactly one of --scope NAME and --rule PASS");
    usage = 1;
  }
  if (!usage && only && (rule || !*only)) {
    tfx_cli_usage_error(d, "tfxc explain", rule ? "--pass limits --scope; --rule names its one "
                        "pass already" : "--pass: empty list");
    usage = 1;
  }
  if (!usage && node && scope) {
    tfx_cli_usage_error(d, "tfxc explain", "--node goes with --rule REWRITE, not --scope");
    usage = 1;
  }
  if (!usage && function && !*function) {
    tfx_cli_usage_error(d, "tfxc explain", "--function: empty function name");
    usage = 1;
  }
  /* TFX_EXIT_USAGE, or another code when the check itself failed (out of memory) */
  int pr = usage ? TFX_EXIT_USAGE : tfx_cli_check_prune_options(o.input_shape, o.out_nodes, d);
  if (pr) {
    tfx_cli_rules_free(&rules);
    tfx_cli_print_diag(d, o.verbose);
    tfx_cli_diag_clear(d);
    return pr;
  }
  /* the evaluator is the library's (tfxc_explain_scope / tfxc_explain_rule); this prints the
   * text it returns */
  tfx_cli_session cs;
  rc = tfx_cli_session_open(&cs, d);
  if (rc == 0) rc = setup(&cs, &o, &rules);
  char *text = NULL;
  size_t len = 0;
  if (rc == 0)
    rc = tfx_cli_session_rc(&cs, scope ? tfxc_explain_scope(cs.s, scope, function, only, &text, &len)
                                       : tfxc_explain_rule(cs.s, rule, function, node, &text, &len));
  if (rc == 0) rc = tfx_cli_write_stdout(text, len, d);
  tfxc_free(text);
  tfx_cli_session_close(&cs);
  tfx_cli_rules_free(&rules);
  tfx_cli_print_diag(d, o.verbose);
  tfx_cli_diag_clear(d);
  return rc;
}
