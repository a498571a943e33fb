/* libtfxc internals shared by the files of src/api (not installed).
 * Stage: api. The session (session.c) drives the pass pipeline as the convert command does
 * (src/cli/cmd_convert.c); the pieces an embedder needs that the command holds today are
 * here as library functions: the --report JSON, the --disable-pass split, output naming and
 * the option values' checks. */
#ifndef TFX_API_API_INT_H
#define TFX_API_API_INT_H

#include <stddef.h>
#include <stdint.h>

#include "passes/passes.h"
#include "util/diag.h"
#include "util/limits.h"
#include "util/strbuf.h"

/* Emit kinds by name, and the default file suffix of each ("air" -> ".air"). */
int tfx_api_emit_kind(const char *name);            /* tfx_emit_kind, or -1 */
const char *tfx_api_emit_name(int kind);
const char *tfx_api_emit_suffix(int kind);
/* Parses a comma list of kinds into a bit set. Returns 0, or -1 (reported, with the kinds
 * and a "did you mean"). */
int tfx_api_parse_emit(const char *s, unsigned *mask, tfx_diag *d);

/* Splits a --disable-pass list: names of pipeline passes (or close to one) go to *pipe, the
 * others (scope fusion passes of the rules) to *rules; both malloc'ed ("" when empty).
 * Returns 0 or -1 (out of memory). */
int tfx_api_split_disable(tfx_pipeline *p, const char *list, char **pipe, char **rules);

/* The --report JSON of a run (docs/CLI.md "Report") appended to sb: the exit code of run_rc,
 * a tfx_status (tfx_status_exit_code), the precheck members when the op mapping ran, the
 * scope fusion report (null when that pass did not run). Returns 0 or -1 (out of memory). */
int tfx_api_report_json(const tfx_ctx *ctx, const char *model, int run_rc, tfx_strbuf *sb);

/* Option values (messages name the option as --NAME). Each returns 0, or -1 (reported). */
int tfx_api_parse_size(const char *s, size_t *out);          /* 4096, 64K, 512M, 4G */
int tfx_api_parse_uint(const char *s, unsigned *out);        /* decimal, < 2^31 */
int tfx_api_parse_limit(const char *spec, tfx_limits *lim, size_t *file_size,
                        uint64_t *vm_steps, tfx_diag *d);

#endif
