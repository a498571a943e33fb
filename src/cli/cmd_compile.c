/* `tfxc compile -r PATH... [-o FILE]`: rule sources -> one verified bytecode pack (.tfxb).
 * Stage: cli. Input: -r paths (directories, rule files, or one pack) and the stdlib (unless
 * --no-stdlib), loaded in the documented order (passes/pass_rules.c). Output: the pack,
 * written atomically (default rules.tfxb); nothing on stdout. Exit 4 on rule errors, with
 * every error of every file printed (file:line:col, source line, caret). CANN prototype files
 * (*.cannops.tsv) among the paths are used to check the rules but not stored in the pack
 * (-v says so): conversions pass them next to the pack. A pack over the output-size limit
 * (--limit output-size) is refused before anything is written (exit 1). The work is the
 * library's: tfxc_compile_rules, tfxc_write_files. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_api.h"
#include "tfxc/tfxc.h"

enum { O_RULES, O_NO_STDLIB, O_OUTPUT, O_WARN, O_VERBOSE, O_QUIET, O_HELP, O_LIMIT };

static const tfx_cli_opt compile_opts[] = {
  {O_RULES, "rules", 'r', "PATH"},  {O_NO_STDLIB, "no-stdlib", 0, NULL},
  {O_OUTPUT, "output", 'o', "FILE"}, {O_WARN, NULL, 'W', "WARNING"},
  {O_VERBOSE, "verbose", 'v', NULL}, {O_QUIET, "quiet", 'q', NULL},
  {O_HELP, "help", 'h', NULL},       {O_LIMIT, "limit", 0, "NAME=N"},
};

#define DEFAULT_PACK "rules.tfxb"

int tfx_cli_compile(int argc, char **argv, int first, tfx_cli_diag *d) {
  static const char cmd[] = "tfxc compile";
  tfx_cli_rules r;
  memset(&r, 0, sizeof r);
  tfx_cli_limits lim; /* --limit: rule-depth and output-size matter */
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
      if (tfx_cli_rules_add_path(&r, v, d) != 0) { rc = TFXC_NOMEM; goto done; }
      break;
    case O_NO_STDLIB: r.no_stdlib = 1; break;
    case O_OUTPUT: output = v; break;
    case O_WARN:
      switch (tfx_cli_rules_add_warn(&r, v, cmd, d)) {
      case 0: break;
      case -1: rc = TFX_EXIT_USAGE; break;
      default: rc = TFXC_NOMEM; goto done;
      }
      break;
    case O_LIMIT:
      switch (tfx_cli_parse_limit(v, cmd, &lim, d)) {
      case 0: break;
      case -1: rc = TFX_EXIT_USAGE; break;
      default: rc = TFXC_NOMEM; goto done;
      }
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
  tfx_cli_session cs;
  rc = tfx_cli_session_open(&cs, d);
  if (rc != 0) goto done;
  void *pack = NULL;
  size_t len = 0;
  tfxc_pack_info info;
  rc = tfx_cli_session_rules(&cs, &r, verbose);
  if (rc == 0) rc = tfx_cli_session_limits(&cs, &lim);
  if (rc == 0) rc = tfx_cli_session_rc(&cs, tfxc_compile_rules(cs.s, &pack, &len, &info));
  if (rc == 0 && info.has_protos && verbose > 0)
    tfx_cli_diag_add(d, TFXC_SEV_NOTE, NULL, 0, 0, "the rules were checked against the CANN prototype "
                 "files (.cannops.tsv) given with -r; a pack does not hold them: pass "
                 "them again next to it (-r %s -r FILE.cannops.tsv)", output);
  if (rc == 0) {
    const void *data = pack;
    rc = tfx_cli_session_rc(&cs, tfxc_write_files(cs.s, 1, &output, &data, &len));
  }
  if (rc == 0 && verbose > 0)
    tfx_cli_diag_add(d, TFXC_SEV_NOTE, NULL, 0, 0, "wrote %s (%u rules, %u programs, %zu bytes)", output,
                 info.rules, info.programs, len);
  tfxc_free(pack);
  tfx_cli_session_close(&cs);
done:
  tfx_cli_rules_free(&r);
  tfx_cli_limits_free(&lim);
  tfx_cli_print_diag(d, verbose);
  tfx_cli_diag_clear(d);
  return rc;
}
