/* The tfxc command line as a function: picks the command and prints what it collected.
 * Stage: cli (top). Input: argv. Output: the exit code (tfx_exit). A command is recognised
 * only as the first argument (a model file named like a command: "./inspect"). Diagnostics
 * are gathered in one context and printed once, by the CLI only. Keeps no state between
 * calls, so tests run it in process (tests/unit/test_cli_fault.c); main.c is the program. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tfxc/tfxc.h"

typedef int (*cmd_fn)(int argc, char **argv, int first, tfx_cli_diag *d);

typedef struct command {
  const char *name;
  cmd_fn run;  /* NULL: not implemented yet */
} command;

static const command commands[] = {
  {"inspect", tfx_cli_inspect}, {"fmt", tfx_cli_fmt},   {"help", NULL},
  {"compile", tfx_cli_compile}, {"disasm", tfx_cli_disasm}, {"test", tfx_cli_test},
  {"explain", tfx_cli_explain},            {"list-rules", tfx_cli_list_rules},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static const command *find_command(const char *s) {
  for (size_t i = 0; i < N_COMMANDS; i++)
    if (strcmp(commands[i].name, s) == 0) return &commands[i];
  return NULL;
}

static int run_help(int argc, char **argv, tfx_cli_diag *d) {
  if (argc <= 2) {
    tfx_cli_help_main(stdout);
    return TFX_EXIT_OK;
  }
  if (argc > 3) {
    tfx_cli_usage_error(d, "tfxc help", "expected at most one command name");
    return TFX_EXIT_USAGE;
  }
  if (tfx_cli_help_for(argv[2], stdout) != 0) {
    tfx_cli_usage_error(d, "tfxc help", "unknown command '%s'", argv[2]);
    return TFX_EXIT_USAGE;
  }
  return TFX_EXIT_OK;
}

/* ---- options written before the command (`tfxc -Wall list-rules`) ---- */

/* What an argument before a command is: 0 not an option, 1 an option the commands share
 * (rules, warnings, verbosity, limits) with its value inline or none, 2 the same with its value
 * in the next argument, 3 another option (of the convert command) taking the next argument, 4
 * another option. */
static int option_kind(const char *arg) {
  static const char *const shared_val[] = {"--rules", "--limit", "--vm-budget", "--tag",
                                           "--max-file-size"};
  static const char *const shared_flag[] = {"--no-stdlib", "--verbose", "--quiet", "--help"};
  static const char *const convert_val[] = {"--output", "--emit", "--input-shape", "--out-nodes",
                                            "--input-format", "--enable-scope-fusion-passes",
                                            "--disable-pass", "--report", "--dump-after",
                                            "--dump-dir", "--jobs"};
  char a[64]; /* ATC's spellings: '_' for '-' in the name */
  snprintf(a, sizeof a, "%s", arg);
  for (char *c = a + 2; *c && *c != '='; c++)
    if (*c == '_' && a[1] == '-') *c = '-';
  if (a[0] != '-' || !a[1]) return 0;
  if (a[1] != '-') {
    if (a[1] == 'W' || a[1] == 'r') return a[2] ? 1 : 2;
    if (a[1] == 'o' || a[1] == 'j') return a[2] ? 4 : 3;
    return strspn(a + 1, "vqh") == strlen(a + 1) ? 1 : 4;
  }
  size_t n = strcspn(a, "=");
  for (size_t i = 0; i < sizeof shared_val / sizeof *shared_val; i++)
    if (strlen(shared_val[i]) == n && !strncmp(a, shared_val[i], n)) return a[n] ? 1 : 2;
  for (size_t i = 0; i < sizeof shared_flag / sizeof *shared_flag; i++)
    if (!strcmp(a, shared_flag[i])) return 1;
  for (size_t i = 0; i < sizeof convert_val / sizeof *convert_val; i++)
    if (strlen(convert_val[i]) == n && !strncmp(a, convert_val[i], n)) return a[n] ? 4 : 3;
  return 4;
}

/* argv[1] is an option: when the first word after the leading options is a command (and no
 * file of that name exists: `tfxc -v inspect` still converts a model named "inspect"), the
 * shared options move after the command name (*moved = 1, argv is permuted in place) or, when
 * another option stands before the command, that is a usage error naming where it belongs.
 * Returns 0 or TFX_EXIT_USAGE (reported). */
static int options_before_command(int argc, char **argv, int *moved, tfx_cli_diag *d) {
  *moved = 0;
  int i = 1, other = 0;
  while (i < argc && strcmp(argv[i], "--") != 0) {
    int k = option_kind(argv[i]);
    if (k == 0) break;
    if (k >= 3) other = 1;
    i += (k == 2 || k == 3) ? 2 : 1;
  }
  if (i >= argc || !find_command(argv[i]) || access(argv[i], F_OK) == 0) return 0;
  if (other) {
    tfx_cli_usage_error(d, "tfxc", "'%s' is a command and must come first: 'tfxc %s [OPTIONS]' "
                        "(options before it are the model conversion's)", argv[i], argv[i]);
    return TFX_EXIT_USAGE;
  }
  char *cmd = argv[i];
  memmove(argv + 2, argv + 1, (size_t)(i - 1) * sizeof *argv);
  argv[1] = cmd;
  *moved = 1;
  return 0;
}

static int dispatch(int argc, char **argv, tfx_cli_diag *d) {
  if (argc < 2) {
    tfx_cli_usage_error(d, "tfxc", "no model given (usage: tfxc [OPTIONS] MODEL, or tfxc COMMAND)");
    return TFX_EXIT_USAGE;
  }
  const char *a1 = argv[1];
  if (strcmp(a1, "--version") == 0) {
    printf("tfxc %s\n", TFXC_VERSION);
    return TFX_EXIT_OK;
  }
  int moved = 0;
  if (a1[0] == '-') {
    int r = options_before_command(argc, argv, &moved, d);
    if (r) return r;
    a1 = argv[1];
  }
  const command *c = find_command(a1);
  if (c) {
    if (strcmp(c->name, "help") == 0) return run_help(argc, argv, d);
    if (c->run) {
      int rc = c->run(argc, argv, 2, d);
      if (rc == TFX_EXIT_USAGE && moved)
        tfx_cli_diag_add(d, TFXC_SEV_NOTE, NULL, 0, 0, "the options before '%s' were given to it, as "
                     "if written after it", c->name);
      return rc;
    }
    for (int i = 2; i < argc; i++)
      if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
        tfx_cli_help_for(c->name, stdout);
        return TFX_EXIT_OK;
      }
    tfx_cli_error(d, NULL, 0, 0, "command '%s' is not implemented yet", c->name);
    return TFX_EXIT_FAIL;
  }
  /* A bare word that is no file but looks like a misspelt command is a usage error. */
  if (a1[0] != '-' && access(a1, F_OK) != 0) {
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++) names[i] = commands[i].name;
    const char *hint = tfx_cli_closest(a1, names, N_COMMANDS);
    if (hint) {
      tfx_cli_usage_error(d, "tfxc", "'%s' is neither a file nor a command; did you mean 'tfxc %s'?",
                          a1, hint);
      return TFX_EXIT_USAGE;
    }
  }
  return tfx_cli_convert(argc, argv, 1, d);
}

int tfx_cli_main(int argc, char **argv) {
  tfx_cli_diag d;
  tfx_cli_diag_init(&d);
  int rc = dispatch(argc, argv, &d);
  /* What went to stdout through stdio (help texts, test reports) is flushed here, so a caller
   * running the CLI in process sees it all, and a failed write (a full disk) is an error. */
  errno = 0;
  if ((fflush(stdout) != 0 || ferror(stdout)) && rc == TFX_EXIT_OK) {
    tfx_cli_error(&d, "<stdout>", 0, 0, "write error: %s", strerror(errno ? errno : EIO));
    rc = TFX_EXIT_INPUT;
  }
  clearerr(stdout);
  /* Verbosity is per command; -q is honoured by the commands' own printing. Here: print all
   * that is left (the commands clear what they printed). */
  tfx_cli_diag_print(&d, stderr);
  tfx_cli_diag_free(&d);
  fflush(stderr);
  return tfxc_status_exit_code((tfxc_status)rc); /* the commands return a status */
}
