/* Rule options shared by the commands that load rules (convert, compile, list-rules, disasm).
 * Stage: cli. Input: -r / --no-stdlib / -W option values. Output: a tfx_cli_rules, handed to
 * the library's session (cli_api.c, tfx_cli_session_rules). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tfxc/tfxc.h"

void tfx_cli_rules_free(tfx_cli_rules *r) {
  for (size_t i = 0; i < r->n_warns; i++) free(r->warns[i]);
  free(r->warns);
  free((void *)r->paths);
  tfx_cli_limits_free(&r->limits);
  memset(r, 0, sizeof *r);
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem) {
  if (n < *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 8;
  void *na = realloc(*arr, nc * elem);
  if (!na) return -1;
  *arr = na;
  *cap = nc;
  return 0;
}

int tfx_cli_rules_add_path(tfx_cli_rules *r, const char *path, tfx_cli_diag *d) {
  void *arr = (void *)r->paths;
  if (grow(&arr, &r->cap_paths, r->n_paths, sizeof *r->paths) != 0) {
    tfx_cli_error(d, NULL, 0, 0, "out of memory");
    return -1;
  }
  r->paths = arr;
  r->paths[r->n_paths++] = path;
  return 0;
}

int tfx_cli_rules_add_warn(tfx_cli_rules *r, const char *value, const char *cmd, tfx_cli_diag *d) {
  /* checked by the library's shared option parser (tfxc_check_option) */
  tfxc_status st = tfxc_check_option(cmd, "W", value, tfx_cli_diag_forward_fn, d);
  if (st != TFXC_OK) return st == TFXC_NOMEM ? -2 : -1;
  size_t n = strlen(value);
  char *opt = malloc(n + 3);
  if (!opt) {
    tfx_cli_error(d, NULL, 0, 0, "out of memory");
    return -2;
  }
  memcpy(opt, "-W", 2);
  memcpy(opt + 2, value, n + 1);
  void *arr = r->warns;
  if (grow(&arr, &r->cap_warns, r->n_warns, sizeof *r->warns) != 0) {
    free(opt);
    tfx_cli_error(d, NULL, 0, 0, "out of memory");
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
