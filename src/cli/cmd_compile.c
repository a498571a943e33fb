/* `tfxc compile -r PATH... [-o FILE]`: rule sources -> one verified bytecode pack (.tfxb).
 * Stage: cli. Input: -r paths (directories, rule files, or one pack) and the stdlib (unless
 * --no-stdlib), loaded in the documented order (passes/pass_rules.c). Output: the pack,
 * written atomically (default rules.tfxb); nothing on stdout. Exit 4 on rule errors, with
 * every error of every file printed (file:line:col, source line, caret). CANN prototype files
 * (*.cannops.tsv) among the paths are used to check the rules but not stored in the pack
 * (-v says so): conversions pass them next to the pack. A pack over the output-size limit
 * (--limit output-size) is refused before anything is written (exit 1). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "passes/passes.h"
#include "tfxc/tfxc.h"
#include "util/fileio.h"
#include "util/strbuf.h"

enum { O_RULES, O_NO_STDLIB, O_OUTPUT, O_WARN, O_VERBOSE, O_QUIET, O_HELP, O_LIMIT };

static const tfx_cli_opt compile_opts[] = {
  {O_RULES, "rules", 'r', "PATH"},  {O_NO_STDLIB, "no-stdlib", 0, NULL},
  {O_OUTPUT, "output", 'o', "FILE"}, {O_WARN, NULL, 'W', "WARNING"},
  {O_VERBOSE, "verbose", 'v', NULL}, {O_QUIET, "quiet", 'q', NULL},
  {O_HELP, "help", 'h', NULL},       {O_LIMIT, "limit", 0, "NAME=N"},
};

#define DEFAULT_PACK "rules.tfxb"

int tfx_cli_compile(int argc, char **argv, int first, tfx_diag *d) {
  static const char cmd[] = "tfxc compile";
  tfx_cli_rules r;
  memset(&r, 0, sizeof r);
  tfx_limits lim; /* --limit: rule-depth (kept in r) and output-size */
  memset(&lim, 0, sizeof lim);
  tfx_cli_args a;
  tfx_cli_args_init(&a, argc, argv, first, cmd, compile_opts,
                    sizeof compile_opts / sizeof compile_opts[0]);
  const char *v, *output = NULL;
  int id, rc = 0, verbose = 0, help = 0;
  while ((id = tfx_cli_next(&a, &v, d)) != TFX_CLI_END) {
    switch (id) {
    case TFX_CLI_ERROR: rc = TFX_EXIT_USAGE; goto done;
    case TFX_CLI_POSITIONAL: /* fall through: a bare PATH is a rule path too */
    case O_RULES:
      if (tfx_cli_rules_add_path(&r, v, d) != 0) { rc = TFX_EXIT_FAIL; goto done; }
      break;
    case O_NO_STDLIB: r.no_stdlib = 1; break;
    case O_OUTPUT: output = v; break;
    case O_WARN:
      switch (tfx_cli_rules_add_warn(&r, v, cmd, d)) {
      case 0: break;
      case -1: rc = TFX_EXIT_USAGE; break;
      default: rc = TFX_EXIT_FAIL; goto done;
      }
      break;
    case O_LIMIT:
      if (tfx_cli_parse_limit(v, cmd, &lim, NULL, NULL, d) != 0) rc = TFX_EXIT_USAGE;
      r.max_rule_depth = (unsigned)lim.v[TFX_LIMIT_RULE_DEPTH];
      break;
    case O_VERBOSE: verbose = verbose < 0 ? 1 : verbose + 1; break;
    case O_QUIET: verbose = -1; break;
    case O_HELP: help = 1; break;
    default: break;
    }
  }
  if (help) {
    tfx_cli_help_compile(stdout);
    rc = TFX_EXIT_OK;
    goto done;
  }
  if (rc != 0) goto done;
  if (!output) output = DEFAULT_PACK;
  if (!*output) {
    tfx_cli_usage_error(d, cmd, "-o/--output: empty file name");
    rc = TFX_EXIT_USAGE;
    goto done;
  }
  if (tfx_cli_check_output_path(output, cmd, d) != 0) {
    rc = TFX_EXIT_USAGE;
    goto done;
  }
  tfx_pack pack;
  struct tfx_cann_table *protos = NULL;
  rc = tfx_cli_rules_build_protos(&r, verbose, &pack, &protos, d);
  if (rc != 0) goto done;
  if (protos && verbose > 0)
    tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "the rules were checked against the CANN prototype "
                 "files (" TFX_RULES_PROTOS_SUFFIX ") given with -r; a pack does not hold them: pass "
                 "them again next to it (-r %s -r FILE" TFX_RULES_PROTOS_SUFFIX ")", output);
  tfx_rules_protos_free(protos);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  if (tfx_pack_write(&pack, &sb) != 0 || sb.oom) {
    tfx_error(d, NULL, 0, 0, "out of memory writing the pack");
    rc = TFX_EXIT_FAIL;
  } else if (tfx_check_output_size(output, sb.len, tfx_limit_size(&lim, TFX_LIMIT_OUTPUT_SIZE),
                                    d) != 0) {
    rc = TFX_EXIT_FAIL;
  } else if (tfx_write_file_atomic(output, sb.data, sb.len, d) != 0) {
    rc = TFX_EXIT_INPUT;
  } else if (verbose > 0) {
    tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "wrote %s (%u rules, %u programs, %zu bytes)", output,
                 pack.n_rules, pack.n_progs, sb.len);
  }
  tfx_sb_free(&sb);
  tfx_pack_free(&pack);
done:
  tfx_cli_rules_free(&r);
  tfx_cli_print_diag(d, verbose);
  tfx_diag_clear(d);
  return rc;
}
