/* `tfxc [OPTIONS] MODEL`: the convert command.
 * Stage: cli. Input: argv. Output: the options handed to a library session (tfxc.h), its run
 * (the pipeline through the EMIT passes, which write the outputs: tfxc_run with the option
 * write-outputs; and no-report without --report or --check: nothing asks about the run
 * afterwards), the --report JSON (tfxc_report_json), the --time-passes table on stderr
 * (tfxc_pass_timing), diagnostics printed once at the end.
 * Checks run cheapest first: usage errors (exit 2) before options whose feature does not exist
 * yet (exit 1), both before the model is read. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_api.h"
#include "cli/progress.h"
#include "tfxc/tfxc.h"

enum {
  O_RULES, O_NO_STDLIB, O_OUTPUT, O_EMIT, O_INPUT_SHAPE, O_INPUT_FORMAT, O_OUT_NODES,
  O_ENABLE_SCOPE, O_DISABLE_PASS, O_CHECK, O_REPORT, O_TIME_PASSES, O_DUMP_AFTER, O_DUMP_DIR,
  O_TRACE, O_VERBOSE, O_QUIET, O_TAG, O_MAX_FILE, O_LIST_PASSES, O_HELP, O_VERSION,
  O_WARN, O_VM_BUDGET, O_PASSTHROUGH, O_LIMIT, O_FRAMEWORK, O_MODEL, O_ALLOW_DANGLING, O_SIGNATURE, O_CHECKPOINT, O_NO_FREEZE, O_JOBS
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
  {O_JOBS, "jobs", 'j', "N"},         /* threads loading a big binary GraphDef */
};

#define KIND_NAME(id, name, suffix, what) name,
static const char *const kind_names[] = {TFXC_EMIT_KINDS(KIND_NAME)};
#undef KIND_NAME
enum { N_KINDS = sizeof kind_names / sizeof kind_names[0] };

/* The kinds of an --emit list (checked by the session first: "emit") as a bit set, in the
 * order of TFXC_EMIT_KINDS. */
static unsigned emit_mask(const char *list) {
  unsigned mask = 0;
  for (const char *s = list;;) {
    size_t n = strcspn(s, ",");
    for (int k = 0; k < N_KINDS; k++)
      if (strlen(kind_names[k]) == n && strncmp(kind_names[k], s, n) == 0) mask |= 1u << k;
    if (!s[n]) break;
    s += n + 1;
  }
  return mask;
}

typedef struct convert_args {
  tfx_cli_rules rules;
  const char *model, *output, *emit, *report; /* MODEL, -o, --emit, --report FILE */
  const char *input_shape, *out_nodes, *signature, *checkpoint, *dump_after, *dump_dir;
  int check, no_freeze, trace, time_passes, verbose;
  const char **set_name, **set_value; /* the session's options, in command-line order */
  size_t n_set;
  int list_passes, help, version;
} convert_args;

static void set(convert_args *ca, const char *name, const char *value) {
  ca->set_name[ca->n_set] = name;
  ca->set_value[ca->n_set++] = value;
}

/* Returns 0, or an exit code (reported). */
static int parse_convert(int argc, char **argv, int first, convert_args *ca,
                         tfx_cli_session *cs) {
  tfx_cli_diag *d = cs->d;
  tfx_cli_args a;
  tfx_cli_args_init(&a, argc, argv, first, "tfxc", convert_opts,
                    sizeof convert_opts / sizeof convert_opts[0]);
  /* at most one session option per argument */
  ca->set_name = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *ca->set_name);
  ca->set_value = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *ca->set_value);
  if (!ca->set_name || !ca->set_value) {
    tfx_cli_error(d, NULL, 0, 0, "out of memory");
    return TFXC_NOMEM;
  }
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
        tfx_cli_diag_add(d, TFXC_SEV_NOTE, NULL, 0, 0, "--framework=3: TensorFlow is the only "
                     "framework tfxc reads; the option can be left out");
      break;
    case O_MODEL: /* fall through: the MODEL argument */
    case TFX_CLI_POSITIONAL:
      if (ca->model) {
        tfx_cli_usage_error(d, "tfxc", "more than one MODEL given ('%s' and '%s')", ca->model, v);
        usage = 1;
      }
      ca->model = v;
      break;
    case O_RULES:
      if (tfx_cli_rules_add_path(&ca->rules, v, d) != 0) return TFXC_NOMEM;
      break;
    case O_NO_STDLIB: ca->rules.no_stdlib = 1; break;
    case O_WARN:
      switch (tfx_cli_rules_add_warn(&ca->rules, v, "tfxc", d)) {
      case 0: break;
      case -1: usage = 1; break;
      default: return TFXC_NOMEM;
      }
      break;
    case O_ENABLE_SCOPE:
      if (tfx_cli_opt_list("enable-scope-fusion-passes", v, "tfxc", d) != 0) usage = 1;
      else set(ca, "enable-scope-fusion-passes", v);
      break;
    case O_VM_BUDGET:
      if (tfx_cli_opt_vm_budget(v, "tfxc", d) != 0) usage = 1;
      else set(ca, "vm-budget", v);
      break;
    case O_JOBS:
      if (tfx_cli_opt_jobs(v, "tfxc", d) != 0) usage = 1;
      else set(ca, "jobs", v);
      break;
    case O_CHECK: ca->check = 1; break;
    case O_PASSTHROUGH: set(ca, "passthrough-unknown", "1"); break;
    case O_ALLOW_DANGLING: set(ca, "allow-dangling-inputs", "1"); break;
    case O_CHECKPOINT:
      if (!*v) {
        tfx_cli_usage_error(d, "tfxc", "--checkpoint: empty prefix");
        usage = 1;
      }
      ca->checkpoint = v;
      break;
    case O_NO_FREEZE: ca->no_freeze = 1; break;
    case O_REPORT:
      if (!*v) {
        tfx_cli_usage_error(d, "tfxc", "--report: empty file name");
        usage = 1;
      }
      ca->report = v;
      break;
    case O_TRACE: ca->trace = 1; break;
    case O_OUTPUT: ca->output = v; break;
    case O_EMIT: ca->emit = v; break;
    case O_INPUT_SHAPE: ca->input_shape = v; break;
    case O_OUT_NODES: ca->out_nodes = v; break;
    case O_SIGNATURE: ca->signature = v; break;
    case O_INPUT_FORMAT:
      if (tfx_cli_check_input_format(v, d) != 0) usage = 1;
      else set(ca, "input-format", v);
      break;
    case O_DISABLE_PASS:
      if (tfx_cli_opt_list("disable-pass", v, "tfxc", d) != 0) usage = 1;
      else set(ca, "disable-pass", v);
      break;
    case O_TIME_PASSES: ca->time_passes = 1; break;
    case O_DUMP_AFTER: ca->dump_after = v; break;
    case O_DUMP_DIR: ca->dump_dir = v; break;
    case O_VERBOSE: ca->verbose = ca->verbose < 0 ? 1 : ca->verbose + 1; break;
    case O_QUIET: ca->verbose = -1; break;
    case O_TAG: set(ca, "tag", v); break;
    case O_MAX_FILE:
      if (tfx_cli_opt_max_file_size(v, "tfxc", d) != 0) usage = 1;
      else set(ca, "max-file-size", v);
      break;
    case O_LIMIT:
      switch (tfx_cli_parse_limit(v, "tfxc", NULL, d)) {
      case 0: set(ca, "limit", v); break;
      case -1: usage = 1; break;
      default: return TFXC_NOMEM;
      }
      break;
    case O_LIST_PASSES: ca->list_passes = 1; break;
    case O_HELP: ca->help = 1; break;
    case O_VERSION: ca->version = 1; break;
    default: break;
    }
  }
  if (ca->help || ca->version || ca->list_passes) return usage ? TFX_EXIT_USAGE : 0;
  unsigned mask = 1u << 0; /* air, the first kind */
  if (ca->emit) { /* checked by the library (the kind table, "did you mean") */
    int r = tfx_cli_session_set(cs, "emit", ca->emit);
    if (r == TFX_EXIT_USAGE) {
      tfx_cli_diag_add(d, TFXC_SEV_NOTE, NULL, 0, 0, "run 'tfxc --help' for usage");
      usage = 1;
    } else if (r) {
      return r;
    }
    mask = emit_mask(ca->emit);
  }
  unsigned kinds = 0;
  for (int k = 0; k < N_KINDS; k++) kinds += (mask >> k) & 1u;
  if (ca->output && strcmp(ca->output, "-") == 0 && kinds > 1) {
    tfx_cli_usage_error(d, "tfxc", "-o -: standard output takes a single --emit kind (%u given)",
                        kinds);
    usage = 1;
  }
  if (ca->check && (ca->emit || ca->output)) {
    tfx_cli_usage_error(d, "tfxc", "--check writes only the precheck report (--report FILE, "
                        "default standard output); drop %s", ca->emit ? "--emit" : "-o/--output");
    usage = 1;
  }
  if (ca->output && !*ca->output) {
    tfx_cli_usage_error(d, "tfxc", "-o/--output: empty file name");
    usage = 1;
  }
  if (ca->checkpoint && ca->no_freeze) {
    tfx_cli_usage_error(d, "tfxc", "--checkpoint and --no-freeze contradict each other");
    usage = 1;
  }
  if (ca->dump_dir && !ca->dump_after)
    tfx_cli_diag_add(d, TFXC_SEV_WARNING, NULL, 0, 0, "--dump-dir has no effect without --dump-after");
  if (!ca->model && !usage) {
    tfx_cli_usage_error(d, "tfxc", "no MODEL given");
    usage = 1;
  }
  if (ca->signature && ca->out_nodes && !usage) {
    tfx_cli_usage_error(d, "tfxc", "--signature and --out-nodes both choose the outputs; give one");
    usage = 1;
  }
  if (!usage) {
    int pr = tfx_cli_check_prune_options(ca->input_shape, ca->out_nodes, d);
    if (pr == TFX_EXIT_USAGE) usage = 1;
    else if (pr) return pr;
  }
  return usage ? TFX_EXIT_USAGE : 0;
}

/* The session's options, rules and model from the command line. Returns 0 or an exit code
 * (reported). */
static int setup_session(tfx_cli_session *cs, const convert_args *ca) {
  int rc = 0;
  for (size_t i = 0; i < ca->n_set && !rc; i++)
    rc = tfx_cli_session_set(cs, ca->set_name[i], ca->set_value[i]);
  const char *const names[] = {"input-shape", "out-nodes", "signature", "checkpoint",
                               "dump-after", "dump-dir", "output"};
  const char *const values[] = {ca->input_shape, ca->out_nodes, ca->signature, ca->checkpoint,
                                ca->dump_after, ca->dump_dir, ca->output};
  for (size_t i = 0; i < sizeof names / sizeof *names && !rc; i++)
    if (values[i]) rc = tfx_cli_session_set(cs, names[i], values[i]);
  if (!rc && ca->check) rc = tfx_cli_session_set(cs, "check", "1");
  if (!rc && ca->no_freeze) rc = tfx_cli_session_set(cs, "no-freeze", "1");
  if (!rc && !ca->check) rc = tfx_cli_session_set(cs, "write-outputs", "1");
  /* nothing asks about the run afterwards: the reports and the graph's name map go before
   * lowering (the peak of a large conversion) */
  if (!rc && !ca->check && !ca->report) rc = tfx_cli_session_set(cs, "no-report", "1");
  if (!rc) rc = tfx_cli_session_rules(cs, &ca->rules, ca->verbose);
  if (!rc && ca->model) { /* --list-passes needs none */
    cs->mark = cs->errors;
    tfxc_status st = tfxc_load_model_path(cs->s, ca->model);
    if (st != TFXC_OK) rc = tfx_cli_session_rc(cs, st);
  }
  if (!rc && ca->trace) tfxc_set_trace_handler(cs->s, tfx_cli_trace_stderr, NULL);
  return rc;
}

/* Writes the --report JSON (shape: docs/CLI.md "Report"; the library's, tfxc_report_json): to
 * path, or standard output when NULL, after the output-size check (tfxc_write_files). Returns
 * 0 or an exit code (reported). */
static int write_report(tfx_cli_session *cs, const char *path, int verbose) {
  char *json = NULL;
  size_t len = 0;
  cs->mark = cs->errors;
  int rc = tfx_cli_session_rc(cs, tfxc_report_json(cs->s, &json, &len));
  if (rc == 0) {
    const char *to = path ? path : "-";
    const void *data = json;
    rc = tfx_cli_session_rc(cs, tfxc_write_files(cs->s, 1, &to, &data, &len));
  }
  tfxc_free(json);
  if (rc == 0 && path && verbose > 0)
    tfx_cli_diag_add(cs->d, TFXC_SEV_NOTE, NULL, 0, 0, "wrote %s (report)", path);
  return rc;
}

/* Prints the --time-passes table of the last run on stderr. */
static void print_timing(tfx_cli_session *cs) {
  char *table = NULL;
  size_t len;
  tfxc_status st = tfxc_pass_timing(cs->s, &table, &len);
  fputs("tfxc: pass timing (wall clock, monotonic)\n", stderr);
  if (st == TFXC_OK) fputs(table, stderr);
  else fputs("tfxc: out of memory printing a table\n", stderr);
  cs->mark = cs->errors; /* its failure is said here */
  tfxc_free(table);
}

/* The run and what is reported around it. Returns the exit code. */
static int convert(tfx_cli_session *cs, const convert_args *ca) {
  tfx_cli_diag *d = cs->d;
  char *outs[N_KINDS] = {0};
  char *list = NULL;
  size_t len;
  /* the pass list: also the check of --disable-pass and --dump-after, before anything else */
  cs->mark = cs->errors;
  int rc = tfx_cli_session_rc(cs, tfxc_list_passes(cs->s, &list, &len));
  if (rc || ca->list_passes) {
    if (!rc) rc = tfx_cli_write_stdout(list, len, d);
    tfxc_free(list);
    return rc;
  }
  tfxc_free(list);
  /* output naming is the library's (tfxc_output_name: -o among the --emit kinds) */
  unsigned mask = ca->check ? 0 : ca->emit ? emit_mask(ca->emit) : 1u;
  for (int k = 0; k < N_KINDS && !rc; k++)
    if (mask & (1u << k)) {
      cs->mark = cs->errors;
      rc = tfx_cli_session_rc(cs, tfxc_output_name(cs->s, kind_names[k], &outs[k]));
    }
  for (int k = 0; k < N_KINDS && !rc; k++)
    if (outs[k] && tfx_cli_check_output_path(outs[k], "tfxc", d) != 0) rc = TFX_EXIT_USAGE;
  if (!rc && ca->report && tfx_cli_check_output_path(ca->report, "tfxc", d) != 0)
    rc = TFX_EXIT_USAGE;
  if (rc) goto done;
  tfx_cli_progress prog; /* a progress line on a terminal after 2 s (progress.c) */
  if (tfx_cli_progress_init(&prog, ca->verbose))
    tfxc_set_progress_handler(cs->s, tfx_cli_progress_fn, &prog);
  /* the run writes the outputs (write-outputs); the precheck (--check) runs the lowering too,
   * never the emitters: it fails when conversion would */
  cs->mark = cs->errors;
  tfxc_status st = tfxc_run(cs->s, NULL);
  tfxc_set_progress_handler(cs->s, NULL, NULL);
  rc = (int)st; /* a status: tfx_cli_main chooses the exit code */
  tfxc_run_info info;
  if (tfxc_last_run(cs->s, &info) != TFXC_OK) memset(&info, 0, sizeof info);
  d->errors += info.errors_not_reported; /* counted in the "N more not shown" note */
  d->warnings += info.warnings_not_reported;
  /* the report is written after a failed run too (its exit_code says so), unless nothing
   * was read (usage and input errors before any pass produced data stay report-less). The
   * precheck writes it to standard output unless --report names a file. */
  if ((ca->report || (ca->check && info.mapped)) && (rc == 0 || info.fused || info.mapped)) {
    int r2 = write_report(cs, ca->report, ca->verbose);
    if (rc == 0) rc = r2;
  }
  if (ca->time_passes) print_timing(cs);
  if (rc == 0 && ca->verbose > 0 && info.wrote)
    for (int k = 0; k < N_KINDS; k++)
      if (outs[k]) tfx_cli_diag_add(d, TFXC_SEV_NOTE, NULL, 0, 0, "wrote %s (%s)", outs[k], kind_names[k]);
done:
  for (int k = 0; k < N_KINDS; k++) tfxc_free(outs[k]);
  return rc;
}

int tfx_cli_convert(int argc, char **argv, int first, tfx_cli_diag *d) {
  convert_args ca;
  memset(&ca, 0, sizeof ca);
  tfx_cli_session cs;
  int rc = tfx_cli_session_open(&cs, d);
  if (rc == 0) rc = parse_convert(argc, argv, first, &ca, &cs);
  if (rc == 0 && ca.help) tfx_cli_help_main(stdout);
  else if (rc == 0 && ca.version) printf("tfxc %s\n", TFXC_VERSION);
  else if (rc == 0) {
    rc = setup_session(&cs, &ca);
    if (rc == 0) rc = convert(&cs, &ca);
  }
  if (cs.s) tfx_cli_session_close(&cs);
  tfx_cli_rules_free(&ca.rules);
  free(ca.set_name);
  free(ca.set_value);
  tfx_cli_print_diag(d, ca.verbose);
  tfx_cli_diag_clear(d);
  return rc;
}
