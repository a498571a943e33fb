/* Rule options shared by the commands that load rules (convert, compile, list-rules, disasm).
 * Stage: cli. Input: -r / --no-stdlib / -W option values. Output: a tfx_cli_rules, handed to
 * the library's session (cli_api.c, tfx_cli_session_rules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "cli/cli.h"
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

void tfx_cli_trace_stderr(void *user, const char *line) {
  (void)user;
  fputs(line, stderr);
  fputc('\n', stderr);
}
