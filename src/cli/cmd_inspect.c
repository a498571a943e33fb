/* `tfxc inspect MODEL`: a summary of a model, as text or as one JSON object.
 * Stage: cli. Input: argv; runs the pass pipeline through PRUNE (load, index, scope-tree,
 * prune). Output on stdout, deterministic (sorted keys, DFS scope order, no addresses/times):
 *   text: counts, producer version, op histogram (count desc, name), scope tree to --depth;
 *   JSON: {"nodes", "functions", "op_types", "scopes": [{"name", "last_name", "parent",
 *          "direct_nodes", "op_counts"}...]}, the shape documented in docs/CLI.md.
 * A checkpoint PREFIX is listed instead (tensors, dtypes, shapes). The work is the library's:
 * tfxc_inspect, tfxc_inspect_checkpoint. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_api.h"
#include "tfxc/tfxc.h"

enum { I_JSON, I_DEPTH, I_TAG, I_INPUT_SHAPE, I_OUT_NODES, I_MAX_FILE, I_VERBOSE, I_QUIET, I_HELP,
       I_LIMIT, I_VALUES };

static const tfx_cli_opt inspect_opts[] = {
  {I_JSON, "json", 0, NULL},
  {I_DEPTH, "depth", 0, "N"},
  {I_TAG, "tag", 0, "TAG"},
  {I_INPUT_SHAPE, "input-shape", 0, "SPEC"},
  {I_OUT_NODES, "out-nodes", 0, "SPEC"},
  {I_MAX_FILE, "max-file-size", 0, "SIZE"},
  {I_VERBOSE, "verbose", 'v', NULL},
  {I_QUIET, "quiet", 'q', NULL},
  {I_HELP, "help", 'h', NULL},
  {I_LIMIT, "limit", 0, "NAME=N"},
  {I_VALUES, "values", 0, NULL}, /* checkpoints: every tensor's bytes in hex (JSON) */
};

#define DEFAULT_DEPTH 3u

/* Hands the options to the session. Returns 0 or an exit code (reported). */
static int setup(tfx_cli_session *cs, const char *tag, const char *input_shape,
                 const char *out_nodes, const tfx_cli_limits *lim,
                 int verbose) {
  int rc = 0;
  char num[32];
  if (tag) rc = tfx_cli_session_set(cs, "tag", tag);
  if (rc == 0 && input_shape) rc = tfx_cli_session_set(cs, "input-shape", input_shape);
  if (rc == 0 && out_nodes) rc = tfx_cli_session_set(cs, "out-nodes", out_nodes);
  if (rc == 0) rc = tfx_cli_session_limits(cs, lim);
  snprintf(num, sizeof num, "%d", verbose < -1 ? -1 : verbose > 16 ? 16 : verbose);
  if (rc == 0) rc = tfx_cli_session_set(cs, "verbose", num);
  return rc;
}

static int inspect(int argc, char **argv, int first, tfx_cli_diag *d, tfx_cli_limits *lim) {
  const char *model = NULL, *tag = NULL, *input_shape = NULL, *out_nodes = NULL;
  size_t max_file_size = 0;
  tfx_cli_args a;
  tfx_cli_args_init(&a, argc, argv, first, "tfxc inspect", inspect_opts,
                    sizeof inspect_opts / sizeof inspect_opts[0]);
  int json = 0, help = 0, usage = 0, id, values = 0, verbose = 0;
  unsigned depth = DEFAULT_DEPTH;
  const char *v;
  while ((id = tfx_cli_next(&a, &v, d)) != TFX_CLI_END) {
    switch (id) {
    case TFX_CLI_ERROR: return TFX_EXIT_USAGE;
    case TFX_CLI_POSITIONAL:
      if (model) {
        tfx_cli_usage_error(d, "tfxc inspect", "more than one MODEL given");
        usage = 1;
      }
      model = v;
      break;
    case I_JSON: json = 1; break;
    case I_VALUES: values = 1; break;
    case I_DEPTH:
      if (tfx_cli_parse_uint(v, &depth) != 0) {
        tfx_cli_usage_error(d, "tfxc inspect", "--depth: '%s' is not a non-negative integer", v);
        usage = 1;
      }
      break;
    case I_TAG: tag = v; break;
    case I_INPUT_SHAPE: input_shape = v; break;
    case I_OUT_NODES: out_nodes = v; break;
    case I_MAX_FILE:
      if (tfx_cli_parse_size(v, &max_file_size) != 0 || max_file_size == 0) {
        tfx_cli_usage_error(d, "tfxc inspect", "--max-file-size: '%s' is not a size (e.g. 512M)", v);
        usage = 1;
      } else if (tfx_cli_limits_add(lim, "file-size", v, d) != 0) { /* in order with --limit */
        usage = 1;
      }
      break;
    case I_LIMIT:
      switch (tfx_cli_parse_limit(v, "tfxc inspect", lim, d)) {
      case 0: break;
      case -1: usage = 1; break;
      default: return TFXC_NOMEM;
      }
      break;
    case I_VERBOSE: verbose = verbose < 0 ? 1 : verbose + 1; break;
    case I_QUIET: verbose = -1; break;
    case I_HELP: help = 1; break;
    default: break;
    }
  }
  if (help && !usage) {
    tfx_cli_help_inspect(stdout);
    return TFX_EXIT_OK;
  }
  if (!model && !usage) {
    tfx_cli_usage_error(d, "tfxc inspect", "no MODEL given");
    usage = 1;
  }
  if (!usage) {
    int pr = tfx_cli_check_prune_options(input_shape, out_nodes, d);
    if (pr == TFX_EXIT_USAGE) usage = 1;
    else if (pr) return pr;
  }
  if (values && !usage && !(json && tfxc_is_checkpoint(model))) {
    tfx_cli_usage_error(d, "tfxc inspect", "--values needs --json and a checkpoint PREFIX");
    usage = 1;
  }
  if (usage) return TFX_EXIT_USAGE;
  tfx_cli_session cs;
  int rc = tfx_cli_session_open(&cs, d);
  if (rc == 0) rc = setup(&cs, tag, input_shape, out_nodes, lim, verbose);
  char *text = NULL;
  size_t len = 0;
  if (rc == 0 && tfxc_is_checkpoint(model)) { /* a checkpoint without a graph */
    unsigned flags = (json ? TFXC_INSPECT_JSON : 0) | (values ? TFXC_INSPECT_VALUES : 0);
    rc = tfx_cli_session_rc(&cs, tfxc_inspect_checkpoint(cs.s, model, flags, &text, &len));
  } else if (rc == 0) {
    rc = tfx_cli_session_rc(&cs, tfxc_load_model_path(cs.s, model));
    if (rc == 0)
      rc = tfx_cli_session_rc(&cs, tfxc_inspect(cs.s, json ? TFXC_INSPECT_JSON : 0, depth, &text,
                                                &len));
  }
  if (rc == 0) rc = tfx_cli_write_stdout(text, len, d);
  tfxc_free(text);
  tfx_cli_session_close(&cs);
  tfx_cli_print_diag(d, verbose);
  tfx_cli_diag_clear(d);
  return rc;
}

int tfx_cli_inspect(int argc, char **argv, int first, tfx_cli_diag *d) {
  tfx_cli_limits lim; /* --limit and --max-file-size, in order */
  memset(&lim, 0, sizeof lim);
  int rc = inspect(argc, argv, first, d, &lim);
  tfx_cli_limits_free(&lim);
  return rc;
}
