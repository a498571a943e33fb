/* `tfxc fmt IN -o OUT [--to pb|pbtxt]`: GraphDef binary <-> text.
 * Stage: cli. Input: any model the loader accepts (GraphDef, MetaGraphDef, SavedModel; binary
 * or text). Output: its GraphDef, written atomically (or to stdout for OUT "-"), in the format
 * given by --to or else by OUT's extension (.pb binary; .pbtxt/.txt text). No graph
 * validation: fmt converts graphs the converter would reject. The work is the library's:
 * tfxc_format_model, tfxc_write_files. */
#include <string.h>

#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_api.h"
#include "tfxc/tfxc.h"

enum { F_OUTPUT, F_TO, F_TAG, F_MAX_FILE, F_VERBOSE, F_QUIET, F_HELP, F_LIMIT };

static const tfx_cli_opt fmt_opts[] = {
  {F_OUTPUT, "output", 'o', "OUT"},
  {F_TO, "to", 0, "pb|pbtxt"},
  {F_TAG, "tag", 0, "TAG"},
  {F_MAX_FILE, "max-file-size", 0, "SIZE"},
  {F_VERBOSE, "verbose", 'v', NULL},
  {F_QUIET, "quiet", 'q', NULL},
  {F_HELP, "help", 'h', NULL},
  {F_LIMIT, "limit", 0, "NAME=N"},
};

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcmp(s + n - m, suffix) == 0;
}

/* Output format ("pb" or "pbtxt") from --to or the extension. Returns 0 or -1 (reported). */
static int pick_wire(const char *to, const char *out, const char **w, tfx_cli_diag *d) {
  if (to) {
    if (strcmp(to, "pb") == 0) *w = "pb";
    else if (strcmp(to, "pbtxt") == 0) *w = "pbtxt";
    else {
      tfx_cli_usage_error(d, "tfxc fmt", "--to: '%s' is not 'pb' or 'pbtxt'", to);
      return -1;
    }
    return 0;
  }
  if (strcmp(out, "-") == 0) {
    tfx_cli_usage_error(d, "tfxc fmt", "output '-' (stdout) needs --to pb|pbtxt");
    return -1;
  }
  if (ends_with(out, ".pb")) *w = "pb";
  else if (ends_with(out, ".pbtxt") || ends_with(out, ".txt")) *w = "pbtxt";
  else {
    tfx_cli_usage_error(d, "tfxc fmt",
                        "cannot tell the format of '%s' from its extension (.pb, .pbtxt, "
                        ".txt); give --to pb|pbtxt", out);
    return -1;
  }
  return 0;
}

static int fmt(int argc, char **argv, int first, tfx_cli_diag *d, tfx_cli_limits *lim) {
  tfx_cli_args a;
  tfx_cli_args_init(&a, argc, argv, first, "tfxc fmt", fmt_opts, sizeof fmt_opts / sizeof fmt_opts[0]);
  const char *in = NULL, *out = NULL, *to = NULL, *tag = NULL, *v;
  size_t max_file_size = 0;
  int help = 0, usage = 0, verbose = 0, id;
  while ((id = tfx_cli_next(&a, &v, d)) != TFX_CLI_END) {
    switch (id) {
    case TFX_CLI_ERROR: return TFX_EXIT_USAGE;
    case TFX_CLI_POSITIONAL:
      if (in) {
        tfx_cli_usage_error(d, "tfxc fmt", "more than one input given ('%s' and '%s'); "
                            "the output goes after -o", in, v);
        usage = 1;
      }
      in = v;
      break;
    case F_OUTPUT: out = v; break;
    case F_TO: to = v; break;
    case F_TAG: tag = v; break;
    case F_MAX_FILE:
      if (tfx_cli_parse_size(v, &max_file_size) != 0 || max_file_size == 0) {
        tfx_cli_usage_error(d, "tfxc fmt", "--max-file-size: '%s' is not a size (e.g. 512M)", v);
        usage = 1;
      } else if (tfx_cli_limits_add(lim, "file-size", v, d) != 0) { /* in order with --limit */
        usage = 1;
      }
      break;
    case F_LIMIT:
      switch (tfx_cli_parse_limit(v, "tfxc fmt", lim, d)) {
      case 0: break;
      case -1: usage = 1; break;
      default: return TFXC_NOMEM;
      }
      break;
    case F_VERBOSE: verbose = verbose < 0 ? 1 : verbose + 1; break;
    case F_QUIET: verbose = -1; break;
    case F_HELP: help = 1; break;
    default: break;
    }
  }
  if (help && !usage) {
    tfx_cli_help_fmt(stdout);
    return TFX_EXIT_OK;
  }
  if (!usage && !in) {
    tfx_cli_usage_error(d, "tfxc fmt", "no input given");
    usage = 1;
  }
  if (!usage && (!out || !*out)) {
    tfx_cli_usage_error(d, "tfxc fmt", "-o OUT is required");
    usage = 1;
  }
  const char *wire = "pbtxt";
  if (!usage && pick_wire(to, out, &wire, d) != 0) usage = 1;
  if (!usage && tfx_cli_check_output_path(out, "tfxc fmt", d) != 0) usage = 1;
  if (usage) return TFX_EXIT_USAGE;

  tfx_cli_session cs;
  int rc = tfx_cli_session_open(&cs, d);
  if (rc == 0 && tag) rc = tfx_cli_session_set(&cs, "tag", tag);
  if (rc == 0) rc = tfx_cli_session_limits(&cs, lim);
  if (rc == 0) rc = tfx_cli_session_rc(&cs, tfxc_load_model_path(cs.s, in));
  void *data = NULL;
  size_t len = 0, nodes = 0;
  if (rc == 0) rc = tfx_cli_session_rc(&cs, tfxc_format_model(cs.s, wire, &data, &len, &nodes));
  if (rc == 0) {
    const void *bytes = data;
    rc = tfx_cli_session_rc(&cs, tfxc_write_files(cs.s, 1, &out, &bytes, &len));
  }
  if (rc == 0 && verbose > 0)
    tfx_cli_diag_add(d, TFXC_SEV_NOTE, NULL, 0, 0, "wrote %s (%s GraphDef, %zu nodes)", out,
                 wire[2] ? "text" : "binary", nodes);
  tfxc_free(data);
  tfx_cli_session_close(&cs);
  tfx_cli_print_diag(d, verbose);
  tfx_cli_diag_clear(d);
  return rc;
}

int tfx_cli_fmt(int argc, char **argv, int first, tfx_cli_diag *d) {
  tfx_cli_limits lim; /* --limit and --max-file-size, in order */
  memset(&lim, 0, sizeof lim);
  int rc = fmt(argc, argv, first, d, &lim);
  tfx_cli_limits_free(&lim);
  return rc;
}
