/* Rule options shared by the commands that load rules (convert, compile, list-rules, disasm).
 * Stage: cli. Input: -r / --no-stdlib / -W option values. Output: a tfx_cli_rules that becomes
 * a tfx_rules_spec for the loader in passes/pass_rules.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "cli/cli.h"
#include "passes/passes.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"

void tfx_cli_rules_free(tfx_cli_rules *r) {
  for (size_t i = 0; i < r->n_warns; i++) free(r->warns[i]);
  free(r->warns);
  free((void *)r->paths);
  memset(r, 0, sizeof *r);
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem) {
  if (n < *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 8;
  void *na = tfx_realloc(*arr, nc * elem);
  if (!na) return -1;
  *arr = na;
  *cap = nc;
  return 0;
}

int tfx_cli_rules_add_path(tfx_cli_rules *r, const char *path, tfx_diag *d) {
  void *arr = (void *)r->paths;
  if (grow(&arr, &r->cap_paths, r->n_paths, sizeof *r->paths) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    return -1;
  }
  r->paths = arr;
  r->paths[r->n_paths++] = path;
  return 0;
}

int tfx_cli_rules_add_warn(tfx_cli_rules *r, const char *value, const char *cmd, tfx_diag *d) {
  char *opt; /* checked by the library's shared option parser (src/api/options.c) */
  int rc = tfx_api_opt_warn(value, cmd, &opt, d);
  if (rc) return rc;
  void *arr = r->warns;
  if (grow(&arr, &r->cap_warns, r->n_warns, sizeof *r->warns) != 0) {
    free(opt);
    tfx_error(d, NULL, 0, 0, "out of memory");
    return -2;
  }
  r->warns = arr;
  r->warns[r->n_warns++] = opt;
  return 0;
}

int tfx_cli_rules_build(const tfx_cli_rules *r, int verbose, tfx_pack *out, tfx_diag *d) {
  return tfx_cli_rules_build_protos(r, verbose, out, NULL, d);
}

int tfx_cli_rules_build_protos(const tfx_cli_rules *r, int verbose, tfx_pack *out,
                               struct tfx_cann_table **protos, tfx_diag *d) {
  tfx_rules_spec s;
  memset(&s, 0, sizeof s);
  s.paths = r->paths;
  s.n_paths = r->n_paths;
  s.no_stdlib = r->no_stdlib;
  s.warn_opts = (const char *const *)r->warns;
  s.n_warn_opts = r->n_warns;
  s.verbose = verbose;
  s.max_rule_depth = r->max_rule_depth;
  return tfx_rules_build(&s, out, protos, d);
}

void tfx_cli_trace_stderr(void *user, const char *line) {
  (void)user;
  fputs(line, stderr);
  fputc('\n', stderr);
}
