/* `tfxc list-rules [-r PATH]... [--no-stdlib] [--json]`: one entry per registered rule.
 * Stage: cli. Input: the same rules a conversion loads (-r paths in order, then the stdlib),
 * compiled into a pack, or a pack given with -r; the listing is read from the pack's rule
 * table, so `-r DIR` and `-r pack.tfxb` list the same. Output on stdout, in registration
 * order (scope passes, dataflow rewrites, then op maps): a table, or a JSON array of objects
 * with `name`, `kind` ("scope"/"flow"/"map"), `general` (scope rules and rewrites), `source`
 * ("file:line"), `from` (maps: list of TF types; rewrites: the root's op types) and `to`
 * (maps: the CANN type, or the list of inner node types of a graph map; rewrites: the type of
 * the node replacing the root, or "rewire"). The CANN prototypes of the user's prototype files (-r *.cannops.tsv) that the
 * run uses follow the rules, kind "proto" (their inputs -> outputs; JSON `inputs`, `outputs`);
 * an overridden one is not listed. The work is the library's: tfxc_list_rules. */
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_api.h"
#include "tfxc/tfxc.h"

enum { O_RULES, O_NO_STDLIB, O_JSON, O_WARN, O_VERBOSE, O_QUIET, O_HELP, O_LIMIT };

static const tfx_cli_opt list_opts[] = {
  {O_RULES, "rules", 'r', "PATH"},   {O_NO_STDLIB, "no-stdlib", 0, NULL},
  {O_JSON, "json", 0, NULL},         {O_WARN, NULL, 'W', "WARNING"},
  {O_VERBOSE, "verbose", 'v', NULL}, {O_QUIET, "quiet", 'q', NULL},
  {O_HELP, "help", 'h', NULL},       {O_LIMIT, "limit", 0, "NAME=N"},
};

int tfx_cli_list_rules(int argc, char **argv, int first, tfx_cli_diag *d) {
  static const char cmd[] = "tfxc list-rules";
  tfx_cli_rules r;
  memset(&r, 0, sizeof r);
  tfx_cli_args a;
  tfx_cli_args_init(&a, argc, argv, first, cmd, list_opts, sizeof list_opts / sizeof list_opts[0]);
  const char *v;
  int id, rc = 0, verbose = 0, help = 0, json = 0;
  while ((id = tfx_cli_next(&a, &v, d)) != TFX_CLI_END) {
    switch (id) {
    case TFX_CLI_ERROR: rc = TFX_EXIT_USAGE; goto done;
    case TFX_CLI_POSITIONAL:
    case O_RULES:
      if (tfx_cli_rules_add_path(&r, v, d) != 0) { rc = TFXC_NOMEM; goto done; }
      break;
    case O_NO_STDLIB: r.no_stdlib = 1; break;
    case O_JSON: json = 1; break;
    case O_WARN:
      switch (tfx_cli_rules_add_warn(&r, v, cmd, d)) {
      case 0: break;
      case -1: rc = TFX_EXIT_USAGE; break;
      default: rc = TFXC_NOMEM; goto done;
      }
      break;
    case O_LIMIT:
      if (tfx_cli_rules_limit(&r, v, cmd, d) != 0) rc = TFX_EXIT_USAGE;
      break;
    case O_VERBOSE: verbose = verbose < 0 ? 1 : verbose + 1; break;
    case O_QUIET: verbose = -1; break;
    case O_HELP: help = 1; break;
    default: break;
    }
  }
  if (help) {
    tfx_cli_help_list_rules(stdout);
    rc = TFX_EXIT_OK;
    goto done;
  }
  if (rc != 0) goto done;
  tfx_cli_session cs;
  rc = tfx_cli_session_open(&cs, d);
  if (rc != 0) goto done;
  char *text = NULL;
  size_t len = 0;
  rc = tfx_cli_session_rules(&cs, &r, verbose);
  if (rc == 0) rc = tfx_cli_session_rc(&cs, tfxc_list_rules(cs.s, json, &text, &len));
  if (rc == 0) rc = tfx_cli_write_stdout(text, len, d);
  tfxc_free(text);
  tfx_cli_session_close(&cs);
done:
  tfx_cli_rules_free(&r);
  tfx_cli_print_diag(d, verbose);
  tfx_cli_diag_clear(d);
  return rc;
}
