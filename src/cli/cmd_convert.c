/* `tfxc [OPTIONS] MODEL`: the convert command.
 * Stage: cli. Input: argv. Output: tfx_options for the pass pipeline, the pipeline run
 * (LOAD .. EMIT), the --time-passes table on stderr, diagnostics printed once at the end.
 * Checks run cheapest first: usage errors (exit 2) before options whose feature does not exist
 * yet (exit 1), both before the model is read. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "cli/cli.h"
#include "cli/progress.h"
#include "passes/passes.h"
#include "tfxc/tfxc.h"

enum {
  O_RULES, O_NO_STDLIB, O_OUTPUT, O_EMIT, O_INPUT_SHAPE, O_INPUT_FORMAT, O_OUT_NODES,
  O_ENABLE_SCOPE, O_DISABLE_PASS, O_CHECK, O_REPORT, O_TIME_PASSES, O_DUMP_AFTER, O_DUMP_DIR,
  O_TRACE, O_VERBOSE, O_QUIET, O_TAG, O_MAX_FILE, O_LIST_PASSES, O_HELP, O_VERSION,
  O_WARN, O_VM_BUDGET, O_PASSTHROUGH, O_LIMIT, O_FRAMEWORK, O_MODEL, O_ALLOW_DANGLING, O_SIGNATURE, O_CHECKPOINT, O_NO_FREEZE
};

static const tfx_cli_opt convert_opts[] = {
  {O_RULES, "rules", 'r', "PATH"},
  {O_NO_STDLIB, "no-stdlib", 0, NULL},
  {O_OUTPUT, "output", 'o', "FILE"},
  {O_EMIT, "emit", 0, "KIND[,KIND]"},
  {O_INPUT_SHAPE, "input-shape", 0, "SPEC"},
  {O_INPUT_FORMAT, "input-format", 0, "FMT"},
  {O_OUT_NODES, "out-nodes", 0, "SPEC"},
  {O_ENABLE_SCOPE, "enable-scope-fusion-passes", 0, "A,B"},
  {O_DISABLE_PASS, "disable-pass", 0, "A,B"},
  {O_CHECK, "check", 0, NULL},
  {O_REPORT, "report", 0, "FILE"},
  {O_TIME_PASSES, "time-passes", 0, NULL},
  {O_DUMP_AFTER, "dump-after", 0, "PASS|all"},
  {O_DUMP_DIR, "dump-dir", 0, "DIR"},
  {O_TRACE, "trace", 0, NULL},
  {O_VERBOSE, "verbose", 'v', NULL},
  {O_QUIET, "quiet", 'q', NULL},
  {O_TAG, "tag", 0, "TAG"},
  {O_MAX_FILE, "max-file-size", 0, "SIZE"},
  {O_LIST_PASSES, "list-passes", 0, NULL},
  {O_HELP, "help", 'h', NULL},
  {O_VERSION, "version", 0, NULL},
  {O_WARN, NULL, 'W', "WARNING"},
  {O_VM_BUDGET, "vm-budget", 0, "N"},
  {O_PASSTHROUGH, "passthrough-unknown", 0, NULL},
  {O_LIMIT, "limit", 0, "NAME=N"},
  {O_FRAMEWORK, "framework", 0, "N"}, /* ATC's: 3 (TensorFlow) is the only one */
  {O_MODEL, "model", 0, "FILE"},      /* ATC's spelling of MODEL */
  {O_ALLOW_DANGLING, "allow-dangling-inputs", 0, NULL},
  {O_SIGNATURE, "signature", 0, "NAME"},
  {O_CHECKPOINT, "checkpoint", 0, "PREFIX"}, /* weights to freeze variables with */
  {O_NO_FREEZE, "no-freeze", 0, NULL},
};

/* Parses --emit with the library's kind table (TFXC_EMIT_KINDS). Returns 0 or -1 (reported,
 * usage). */
static int parse_emit(const char *s, unsigned *mask, tfx_diag *d) {
  if (tfx_api_parse_emit(s, mask, d) == 0) return 0;
  tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "run 'tfxc --help' for usage");
  return -1;
}

typedef struct convert_args {
  tfx_options o;
  tfx_cli_rules rules;
  const char *output;
  const char *emit;
  const char *report;  /* --report FILE */
  int list_passes, help, version;
} convert_args;

/* Returns 0, or an exit code (reported). */
static int parse_convert(int argc, char **argv, int first, convert_args *ca, tfx_diag *d) {
  tfx_cli_args a;
  tfx_cli_args_init(&a, argc, argv, first, "tfxc", convert_opts,
                    sizeof convert_opts / sizeof convert_opts[0]);
  const char *v;
  int usage = 0, id;
  while ((id = tfx_cli_next(&a, &v, d)) != TFX_CLI_END) {
    switch (id) {
    case TFX_CLI_ERROR: return TFX_EXIT_USAGE;
    case O_FRAMEWORK:
      if (strcmp(v, "3") != 0) {
        tfx_cli_usage_error(d, "tfxc", "--framework=%s: tfxc converts TensorFlow models only "
                            "(ATC's --framework=3)", v);
        usage = 1;
      } else
        tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "--framework=3: TensorFlow is the only "
                     "framework tfxc reads; the option can be left out");
      break;
    case O_MODEL: /* fall through: the MODEL argument */
    case TFX_CLI_POSITIONAL:
      if (ca->o.model_path) {
        tfx_cli_usage_error(d, "tfxc", "more than one MODEL given ('%s' and '%s')",
                            ca->o.model_path, v);
        usage = 1;
      }
      ca->o.model_path = v;
      break;
    case O_RULES:
      if (tfx_cli_rules_add_path(&ca->rules, v, d) != 0) return TFX_EXIT_FAIL;
      break;
    case O_NO_STDLIB: ca->rules.no_stdlib = 1; break;
    case O_WARN:
      switch (tfx_cli_rules_add_warn(&ca->rules, v, "tfxc", d)) {
      case 0: break;
      case -1: usage = 1; break;
      default: return TFX_EXIT_FAIL;
      }
      break;
    case O_ENABLE_SCOPE:
      if (tfx_api_opt_list("enable-scope-fusion-passes", v, "tfxc", d) != 0) usage = 1;
      ca->o.enable_scope_passes = v;
      break;
    case O_VM_BUDGET:
      if (tfx_api_opt_vm_budget(v, "tfxc", &ca->o.vm_budget, d) != 0) usage = 1;
      break;
    case O_CHECK: ca->o.check_only = 1; break;
    case O_PASSTHROUGH: ca->o.passthrough_unknown = 1; break;
    case O_ALLOW_DANGLING: ca->o.allow_dangling_inputs = 1; break;
    case O_CHECKPOINT:
      if (!*v) {
        tfx_cli_usage_error(d, "tfxc", "--checkpoint: empty prefix");
        usage = 1;
      }
      ca->o.checkpoint = v;
      break;
    case O_NO_FREEZE: ca->o.no_freeze = 1; break;
    case O_REPORT:
      if (!*v) {
        tfx_cli_usage_error(d, "tfxc", "--report: empty file name");
        usage = 1;
      }
      ca->report = v;
      break;
    case O_TRACE: ca->o.trace = 1; break;
    case O_OUTPUT: ca->output = v; break;
    case O_EMIT: ca->emit = v; break;
    case O_INPUT_SHAPE: ca->o.input_shape = v; break;
    case O_OUT_NODES: ca->o.out_nodes = v; break;
    case O_SIGNATURE: ca->o.signature = v; break;
    case O_INPUT_FORMAT:
      if (tfx_api_opt_input_format(v, "tfxc", d) != 0) usage = 1;
      ca->o.input_format = v;
      break;
    case O_DISABLE_PASS:
      if (tfx_api_opt_list("disable-pass", v, "tfxc", d) != 0) usage = 1;
      ca->o.disable = v;
      break;
    case O_TIME_PASSES: ca->o.time_passes = 1; break;
    case O_DUMP_AFTER: ca->o.dump_after = v; break;
    case O_DUMP_DIR: ca->o.dump_dir = v; break;
    case O_VERBOSE: ca->o.verbose = ca->o.verbose < 0 ? 1 : ca->o.verbose + 1; break;
    case O_QUIET: ca->o.verbose = -1; break;
    case O_TAG: ca->o.tag = v; break;
    case O_MAX_FILE:
      if (tfx_api_opt_max_file_size(v, "tfxc", &ca->o.max_file_size, d) != 0) usage = 1;
      break;
    case O_LIMIT:
      if (tfx_api_parse_limit(v, "tfxc", &ca->o.limits, &ca->o.max_file_size, &ca->o.vm_budget,
                              d) != 0)
        usage = 1;
      break;
    case O_LIST_PASSES: ca->list_passes = 1; break;
    case O_HELP: ca->help = 1; break;
    case O_VERSION: ca->version = 1; break;
    default: break;
    }
  }
  ca->o.rule_paths = ca->rules.paths;
  ca->o.n_rule_paths = ca->rules.n_paths;
  ca->o.no_stdlib = ca->rules.no_stdlib;
  ca->o.warn_opts = (const char *const *)ca->rules.warns;
  ca->o.n_warn_opts = ca->rules.n_warns;
  if (ca->o.trace) {
    ca->o.trace_fn = tfx_cli_trace_stderr;
    ca->o.trace_user = NULL;
  }
  if (ca->help || ca->version || ca->list_passes) return usage ? TFX_EXIT_USAGE : 0;
  unsigned mask = 1u << TFX_EMIT_AIR;
  if (ca->emit && parse_emit(ca->emit, &mask, d) != 0) usage = 1;
  ca->o.emit = mask;
  unsigned kinds = 0;
  for (int k = 0; k < TFX_EMIT__COUNT; k++) kinds += (mask >> k) & 1u;
  if (ca->output && strcmp(ca->output, "-") == 0 && kinds > 1) {
    tfx_cli_usage_error(d, "tfxc", "-o -: standard output takes a single --emit kind (%u given)",
                        kinds);
    usage = 1;
  }
  if (ca->o.check_only && (ca->emit || ca->output)) {
    tfx_cli_usage_error(d, "tfxc", "--check writes only the precheck report (--report FILE, "
                        "default standard output); drop %s", ca->emit ? "--emit" : "-o/--output");
    usage = 1;
  }
  if (ca->output && !*ca->output) {
    tfx_cli_usage_error(d, "tfxc", "-o/--output: empty file name");
    usage = 1;
  }
  if (ca->o.checkpoint && ca->o.no_freeze) {
    tfx_cli_usage_error(d, "tfxc", "--checkpoint and --no-freeze contradict each other");
    usage = 1;
  }
  if (ca->o.dump_dir && !ca->o.dump_after)
    tfx_warning(d, NULL, 0, 0, "--dump-dir has no effect without --dump-after");
  if (!ca->o.model_path && !usage) {
    tfx_cli_usage_error(d, "tfxc", "no MODEL given");
    usage = 1;
  }
  if (ca->o.signature && ca->o.out_nodes && !usage) {
    tfx_cli_usage_error(d, "tfxc", "--signature and --out-nodes both choose the outputs; give one");
    usage = 1;
  }
  ca->o.select_outputs = 1; /* signatures and training machinery (pass prune) */
  if (!usage) {
    int pr = tfx_cli_check_prune_options(ca->o.input_shape, ca->o.out_nodes, d);
    if (pr == TFX_EXIT_USAGE) usage = 1;
    else if (pr) return pr;
  }
  if (usage) return TFX_EXIT_USAGE;
  if (ca->o.check_only) ca->o.emit = 0;
  return 0;
}

/* Writes the --report JSON (shape: docs/CLI.md "Report"; built by the library, as
 * tfxc_report_json does): to path, or standard output when NULL. Returns 0 or an exit code
 * (reported). */
static int write_report(const char *path, const tfx_ctx *ctx, const char *model, int run_rc,
                        tfx_diag *d) {
  int rc;
  if (path) {
    rc = tfx_api_write_report(path, ctx, model, run_rc, d);
    if (!rc && ctx->opts && ctx->opts->verbose > 0)
      tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "wrote %s (report)", path);
    return rc;
  }
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  if (tfx_api_report_json(ctx, model, run_rc, &sb) != 0) sb.oom = 1;
  if (sb.oom) {
    tfx_error(d, NULL, 0, 0, "out of memory writing the report");
    rc = TFX_EXIT_FAIL;
  } else if (sb.len > tfx_limit_size(ctx->opts ? &ctx->opts->limits : NULL,
                                     TFX_LIMIT_OUTPUT_SIZE)) {
    rc = tfx_api_write_report("-", ctx, model, run_rc, d); /* reports the limit */
  } else {
    rc = tfx_cli_write_stdout(sb.data, sb.len, d);
  }
  tfx_sb_free(&sb);
  return rc;
}

static void print_table(tfx_strbuf *sb) {
  if (!sb->oom) fputs(tfx_sb_cstr(sb), stderr);
  else fputs("tfxc: out of memory printing a table\n", stderr);
}

int tfx_cli_convert(int argc, char **argv, int first, tfx_diag *d) {
  convert_args ca;
  memset(&ca, 0, sizeof ca);
  int rc = parse_convert(argc, argv, first, &ca, d);
  if (rc != 0 || ca.help || ca.version) {
    if (rc == 0 && ca.help) tfx_cli_help_main(stdout);
    else if (rc == 0) printf("tfxc %s\n", TFXC_VERSION);
    tfx_cli_rules_free(&ca.rules);
    return rc;
  }
  tfx_pipeline p;
  tfx_pipeline_init(&p);
  char *outs[TFX_EMIT__COUNT] = {0};
  char *dis_pipe = NULL, *dis_rules = NULL;
  tfx_ctx ctx;
  tfx_ctx_init(&ctx, &ca.o, d);
  if (tfx_pass_register_builtin(&p) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory registering passes");
    rc = TFX_EXIT_FAIL;
    goto done;
  }
  if (ca.o.disable && tfx_api_split_disable(&p, ca.o.disable, &dis_pipe, &dis_rules) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    rc = TFX_EXIT_FAIL;
    goto done;
  }
  if ((dis_pipe && *dis_pipe && tfx_pipeline_disable(&p, dis_pipe, d) != 0) ||
      (ca.o.dump_after && tfx_pipeline_check_names(&p, ca.o.dump_after, 1, "--dump-after", d) != 0)) {
    rc = TFX_EXIT_USAGE;
    goto done;
  }
  if (dis_rules && *dis_rules) {
    const tfx_pass *rp = tfx_pipeline_find(&p, "rules");
    if (!rp || !rp->enabled) { /* no rules are loaded: nothing else can have these names */
      tfx_pipeline_check_names(&p, dis_rules, 0, "--disable-pass", d);
      rc = TFX_EXIT_USAGE;
      goto done;
    }
    ca.o.disable_rules = dis_rules;
  }
  if (ca.list_passes) {
    tfx_strbuf sb;
    tfx_sb_init(&sb);
    tfx_pipeline_list(&p, &sb);
    rc = sb.oom ? TFX_EXIT_FAIL : tfx_cli_write_stdout(sb.data, sb.len, d);
    if (sb.oom) tfx_error(d, NULL, 0, 0, "out of memory");
    tfx_sb_free(&sb);
    goto done;
  }
  /* output naming is the library's (tfx_api_output_paths; tfxc_output_name) */
  if (tfx_api_output_paths(ca.o.model_path, ca.output, ca.o.emit, outs, d) != 0) {
    rc = TFX_EXIT_FAIL;
    goto done;
  }
  for (int k = 0; k < TFX_EMIT__COUNT; k++) ca.o.out_path[k] = outs[k];
  for (int k = 0; k < TFX_EMIT__COUNT; k++)
    if (ca.o.out_path[k] && tfx_cli_check_output_path(ca.o.out_path[k], "tfxc", d) != 0) {
      rc = TFX_EXIT_USAGE;
      goto done;
    }
  if (ca.report && tfx_cli_check_output_path(ca.report, "tfxc", d) != 0) {
    rc = TFX_EXIT_USAGE;
    goto done;
  }
  tfx_cli_progress prog; /* a progress line on a terminal after 2 s (progress.c) */
  tfx_api_progress aprog; /* through the library's public progress hook */
  if (tfx_cli_progress_init(&prog, ca.o.verbose))
    tfx_api_progress_install(&aprog, &p, tfx_cli_progress_fn, &prog);
  /* the precheck runs the lowering too (never the emitters): it fails when conversion would */
  rc = tfx_pipeline_run(&p, &ctx, ca.o.check_only ? TFX_GROUP_LOWERING : TFX_GROUP_EMIT);
  uint32_t n_failed = 0;
  if (ca.o.check_only) rc = tfx_api_check_verdict(&p, &ctx, rc, &n_failed, d);
  /* the precheck's failures grouped on stderr too (the report on stdout lists every node) */
  if (ca.o.check_only && ctx.opmap) {
    uint32_t nf = tfx_precheck_summary(&ctx, ca.o.verbose > 0, NULL);
    if (nf)
      tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "%u node%s the precheck; the report lists "
                   "every node with the rule that handled it", nf, nf == 1 ? " fails" : "s fail");
  }
  /* the report is written after a failed run too (its exit_code says so), unless nothing
   * was read (usage and input errors before any pass produced data stay report-less). The
   * precheck writes it to standard output unless --report names a file. */
  if ((ca.report || (ca.o.check_only && ctx.opmap)) &&
      (rc == 0 || ctx.fusion_report || ctx.opmap)) {
    int r2 = write_report(ca.report, &ctx, ca.o.model_path, rc, d);
    if (rc == 0) rc = r2;
  }
  if (ca.o.time_passes) {
    tfx_strbuf sb;
    tfx_sb_init(&sb);
    tfx_pipeline_timing_table(&p, &sb);
    fputs("tfxc: pass timing (wall clock, monotonic)\n", stderr);
    print_table(&sb);
    tfx_sb_free(&sb);
  }
  const tfx_pass *emit = tfx_pipeline_find(&p, "emit-tf");
  if (rc == 0 && ca.o.verbose > 0 && emit && emit->ran && !ca.o.check_only)
    for (int k = 0; k < TFX_EMIT__COUNT; k++)
      if (ca.o.out_path[k])
        tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "wrote %s (%s)", ca.o.out_path[k],
                     tfx_api_emit_name(k));
done:
  tfx_ctx_free(&ctx);
  tfx_pipeline_free(&p);
  for (int k = 0; k < TFX_EMIT__COUNT; k++) free(outs[k]);
  tfx_cli_rules_free(&ca.rules);
  free(dis_pipe);
  free(dis_rules);
  tfx_cli_print_diag(d, ca.o.verbose);
  tfx_diag_clear(d);
  return rc;
}
