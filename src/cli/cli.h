/* Command-line front end: shared pieces of the subcommands.
 * Stage: cli (the only stage that prints to the terminal). Input: argv. Output: exit codes
 * (tfx_exit), results on stdout, diagnostics on stderr via tfx_cli_diag_print. The CLI uses
 * the library through tfxc/tfxc.h only (tests/cli/cli_includes.sh).
 * The option parser is table-driven: `--name VALUE`, `--name=VALUE`, `-x VALUE`, `-xVALUE`,
 * clustered short flags (`-vv`), `--` ends options; unknown options get a "did you mean". */
#ifndef TFX_CLI_CLI_H
#define TFX_CLI_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tfxc/tfxc.h"

/* ---- diagnostics (diag.c): the commands' and the library's, printed once at the end ---- */
typedef struct tfx_cli_diag_item {
  tfxc_severity sev;
  char *file;         /* may be NULL */
  unsigned line, col; /* 1-based; 0 = unknown */
  unsigned span;      /* caret length (>= 1) */
  char *msg;
  char *rule;         /* the rule source line the message points at, or NULL */
} tfx_cli_diag_item;

typedef struct tfx_cli_diag {
  tfx_cli_diag_item *items; /* the first 1000 (the rest are only counted) */
  size_t n, cap;
  size_t errors, warnings;
} tfx_cli_diag;

void tfx_cli_diag_init(tfx_cli_diag *d);
void tfx_cli_diag_free(tfx_cli_diag *d);
void tfx_cli_diag_clear(tfx_cli_diag *d);
void tfx_cli_diag_add(tfx_cli_diag *d, tfxc_severity sev, const char *file, unsigned line,
                      unsigned col, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void tfx_cli_error(tfx_cli_diag *d, const char *file, unsigned line, unsigned col,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void tfx_cli_warning(tfx_cli_diag *d, const char *file, unsigned line, unsigned col,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Adds a copy of a library diagnostic (with its rule line and caret). */
void tfx_cli_diag_forward(tfx_cli_diag *d, const tfxc_diagnostic *dg);
/* The same as a tfxc_diagnostic_fn (user: the tfx_cli_diag). */
void tfx_cli_diag_forward_fn(void *user, const tfxc_diagnostic *dg);
int tfx_cli_diag_has_errors(const tfx_cli_diag *d);
/* Prints every item to f in order (`file:line:col: error: message`, the rule line and a
 * caret), then how many were not kept. */
void tfx_cli_diag_print(const tfx_cli_diag *d, FILE *f);

/* ---- --limit values (args.c): checked when parsed, handed to a session in order ---- */
typedef struct tfx_cli_limits {
  char **specs; /* "NAME=N[,NAME=N...]" as given, and "file-size=SIZE" / "vm-steps=N" for
                   --max-file-size / --vm-budget, in command-line order (owned) */
  size_t n, cap;
} tfx_cli_limits;
void tfx_cli_limits_free(tfx_cli_limits *lim);
/* Appends "name=value" (name NULL: value as it is). Returns 0 or -1 (out of memory, reported). */
int tfx_cli_limits_add(tfx_cli_limits *lim, const char *name, const char *value, tfx_cli_diag *d);

typedef struct tfx_cli_opt {
  int id;                 /* returned by tfx_cli_next (>= 0) */
  const char *name;       /* long name without "--", or NULL */
  char short_name;        /* 0 if none */
  const char *metavar;    /* NULL: a flag without a value */
} tfx_cli_opt;

enum {
  TFX_CLI_END = -1,        /* no more arguments */
  TFX_CLI_POSITIONAL = -2, /* *value is a positional argument */
  TFX_CLI_ERROR = -3       /* reported into the diagnostics */
};

typedef struct tfx_cli_args {
  int argc;
  char **argv;
  int i;                   /* next argv index */
  const char *cmd;         /* "tfxc" or "tfxc inspect", for messages */
  const tfx_cli_opt *opts;
  size_t n_opts;
  const char *cluster;     /* rest of a short-option cluster being read */
  int only_positional;     /* after "--" */
} tfx_cli_args;

void tfx_cli_args_init(tfx_cli_args *a, int argc, char **argv, int first, const char *cmd,
                       const tfx_cli_opt *opts, size_t n_opts);
/* Next option id (and its value in *value), TFX_CLI_POSITIONAL, TFX_CLI_END or TFX_CLI_ERROR. */
int tfx_cli_next(tfx_cli_args *a, const char **value, tfx_cli_diag *d);

/* Prints d to stderr: errors always, warnings and notes unless verbose < 0 (-q). */
void tfx_cli_print_diag(const tfx_cli_diag *d, int verbose);
/* Reports a usage error ("cmd: message") plus the hint to run --help. */
void tfx_cli_usage_error(tfx_cli_diag *d, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Parses a size like 4096, 64K, 512M, 4G (binary units). Returns 0 or -1. */
int tfx_cli_parse_size(const char *s, size_t *out);
/* Parses a non-negative decimal int. Returns 0 or -1. */
int tfx_cli_parse_uint(const char *s, unsigned *out);
/* --limit NAME=N[,NAME=N...] (repeatable; docs/CLI.md "Limits"): checked by the library
 * (tfxc_check_option) and appended to lim (NULL: checked only). Every command takes every
 * name, so one --limit value fits every command. Returns 0, -1 (a usage error of cmd,
 * reported: unknown name, bad or out-of-range value) or -2 (out of memory, reported). */
int tfx_cli_parse_limit(const char *spec, const char *cmd, tfx_cli_limits *lim,
                        tfx_cli_diag *d);
/* The candidate closest to word ("did you mean"), or NULL when none is close enough. */
const char *tfx_cli_closest(const char *word, const char *const *cands, size_t n);
/* The shared option checks with the library's messages (src/api/options.c), as usage errors
 * of cmd: a comma list of names (--disable-pass, --enable-scope-fusion-passes), --vm-budget N,
 * --max-file-size SIZE. Each returns 0 or -1 (reported). */
int tfx_cli_opt_list(const char *name, const char *value, const char *cmd, tfx_cli_diag *d);
int tfx_cli_opt_vm_budget(const char *value, const char *cmd, tfx_cli_diag *d);
int tfx_cli_opt_max_file_size(const char *value, const char *cmd, tfx_cli_diag *d);
int tfx_cli_opt_jobs(const char *value, const char *cmd, tfx_cli_diag *d); /* -j N, 0..64 */
/* One --help line per limit name ("  depth  message nesting ... (default 100)"), for the
 * commands' help texts. */
void tfx_cli_help_limits(FILE *f);
/* Writes len bytes to stdout and flushes. Returns 0, or TFX_EXIT_INPUT (reported). */
int tfx_cli_write_stdout(const char *data, size_t len, tfx_cli_diag *d);
/* Refuses an output path that exists and is not a regular file (a directory, /dev/null, a
 * FIFO): outputs are replaced by rename, which would swap the device or pipe for a file.
 * "-" (stdout) is fine. Returns 0 or -1 (reported as a usage error of cmd). */
int tfx_cli_check_output_path(const char *path, const char *cmd, tfx_cli_diag *d);
/* Checks --input-format: NCHW NHWC ND NCDHW NDHWC. Returns 0 or -1 (reported). */
int tfx_cli_check_input_format(const char *s, tfx_cli_diag *d);
/* Validates the syntax of --input-shape / --out-nodes without a model (the names are checked
 * against the graph by the prune pass). Returns 0, TFX_EXIT_USAGE, or another exit code when
 * the check itself failed (out of memory); reported. */
int tfx_cli_check_prune_options(const char *input_shape, const char *out_nodes, tfx_cli_diag *d);

/* Rule options shared by convert, compile, list-rules and disasm (rules_opts.c): -r PATH
 * (repeatable, command-line order), --no-stdlib, -W<name>/-Wno-<name>/-Werror[=<name>]/-Wall. */
typedef struct tfx_cli_rules {
  const char **paths;   /* borrowed argv strings; the array is owned */
  size_t n_paths, cap_paths;
  char **warns;         /* owned "-W..." strings */
  size_t n_warns, cap_warns;
  int no_stdlib;
  tfx_cli_limits limits; /* --limit values handed over with the rules (tfx_cli_session_rules;
                            list-rules, disasm: the rule-depth items, tfx_cli_rules_limit) */
} tfx_cli_rules;

void tfx_cli_rules_free(tfx_cli_rules *r);
/* Appends a -r path. Returns 0 or -1 (out of memory, reported). */
int tfx_cli_rules_add_path(tfx_cli_rules *r, const char *path, tfx_cli_diag *d);
/* Appends -W<value> after checking it. Returns 0, -1 (usage error of cmd, reported) or -2
 * (out of memory, reported). */
int tfx_cli_rules_add_warn(tfx_cli_rules *r, const char *value, const char *cmd, tfx_cli_diag *d);
/* --limit for the commands that only compile rules and write no file (list-rules, disasm):
 * every name is checked, only the rule-depth items are kept (in r). Returns 0 or -1 (usage
 * error, reported). compile parses --limit itself (rule-depth and output-size). */
int tfx_cli_rules_limit(tfx_cli_rules *r, const char *spec, const char *cmd, tfx_cli_diag *d);
/* Prints VM trace lines to stderr (the --trace sink). */
void tfx_cli_trace_stderr(void *user, const char *line);

/* The whole command line (cli_main.c; main() only calls it): dispatches on argv[1], prints
 * the diagnostics, flushes stdout and stderr. Returns the exit code (tfx_exit). It keeps no
 * state between calls, so it can run repeatedly in one process (tests/unit/test_cli_fault.c):
 * the commands free what they allocate and reset stdout's error flag. */
int tfx_cli_main(int argc, char **argv);

/* Subcommands: argv[first] is the first argument after the command name. */
int tfx_cli_convert(int argc, char **argv, int first, tfx_cli_diag *d);
int tfx_cli_inspect(int argc, char **argv, int first, tfx_cli_diag *d);
int tfx_cli_fmt(int argc, char **argv, int first, tfx_cli_diag *d);
int tfx_cli_compile(int argc, char **argv, int first, tfx_cli_diag *d);
int tfx_cli_disasm(int argc, char **argv, int first, tfx_cli_diag *d);
int tfx_cli_list_rules(int argc, char **argv, int first, tfx_cli_diag *d);
int tfx_cli_test(int argc, char **argv, int first, tfx_cli_diag *d);
int tfx_cli_explain(int argc, char **argv, int first, tfx_cli_diag *d);

/* Help texts. */
void tfx_cli_help_main(FILE *f);
void tfx_cli_help_inspect(FILE *f);
void tfx_cli_help_fmt(FILE *f);
void tfx_cli_help_compile(FILE *f);
void tfx_cli_help_disasm(FILE *f);
void tfx_cli_help_list_rules(FILE *f);
void tfx_cli_help_test(FILE *f);
void tfx_cli_help_explain(FILE *f);
/* Help for a command name (NULL = main). Returns 0, or -1 if the command is unknown. */
int tfx_cli_help_for(const char *cmd, FILE *f);

#endif
