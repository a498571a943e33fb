/* Rule sets as a service (src/rules/source.c): the rule set object, its sources, locations
 * and reporting. Stage: rules, front end. Loading (paths, directories, buffers), registration
 * and the checks are the driver's, rules/load.h (which includes this header). */
#ifndef TFX_RULES_SOURCE_H
#define TFX_RULES_SOURCE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/ast.h"
#include "util/diag.h"

#define TFX_RULES_MAX_FILE (16u << 20) /* offsets are 32-bit; rule files are small */

typedef struct tfx_rules_source {
  const char *name;         /* path or pseudo name, as shown in diagnostics */
  const char *text;         /* NUL-terminated copy (owned by the rule set) */
  size_t len;
  tfx_ast_file_kind kind;
  tfx_ast_file *ast;        /* NULL until parsed (or when the file kind is unknown) */
  uint32_t *line_starts;    /* offsets of each line start, computed on first use */
  uint32_t n_lines;
} tfx_rules_source;

typedef struct tfx_ruleset tfx_ruleset;

/* Returns a new empty rule set, or NULL when out of memory. */
tfx_ruleset *tfx_ruleset_new(void);
void tfx_ruleset_free(tfx_ruleset *rs);
/* The rule-depth limit for the sources loaded from now on: nesting of expressions and of
 * blocks deeper than n levels is an error (exit 4). 0 = the default (TFX_AST_DEFAULT_DEPTH,
 * 256); values above TFX_AST_MAX_DEPTH (1024) are clamped to it. */
void tfx_ruleset_set_max_depth(tfx_ruleset *rs, unsigned n);

size_t tfx_ruleset_n_sources(const tfx_ruleset *rs);
const tfx_rules_source *tfx_ruleset_source(const tfx_ruleset *rs, size_t i);
/* Errors reported so far by loads and checks of this rule set. */
size_t tfx_ruleset_errors(const tfx_ruleset *rs);
/* 1 when a load, parse or check of this rule set ran out of memory (reported as "out of
 * memory ..."): its errors are then a resource failure, not errors in the rule files, and the
 * callers return TFX_E_FAIL (exit 1), not TFX_E_RULES (exit 4). */
int tfx_ruleset_oom(const tfx_ruleset *rs);

/* 1-based line and column (in bytes) of loc's start. 0/0 for an unknown file. */
void tfx_ruleset_linecol(const tfx_ruleset *rs, tfx_rules_loc loc, unsigned *line, unsigned *col);
/* Reports a diagnostic at loc with file:line:col, the source line and a caret span. */
void tfx_rules_report(tfx_ruleset *rs, tfx_diag *d, tfx_severity sev, tfx_rules_loc loc,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* "12:5" (same file as `from`) or "file:12:5" into buf. Returns buf. */
const char *tfx_ruleset_where(const tfx_ruleset *rs, tfx_rules_loc loc, uint32_t from_file,
                              char *buf, size_t size);

/* Adds a source (text copied into the rule set, line starts computed) and parses it
 * (build.c). Returns the parse result, or -1 when the text is too large or memory runs out
 * (reported; out of memory also sets the rule set's oom flag). For the driver (load.c). */
int tfx_rules_source_add(tfx_ruleset *rs, const char *name, tfx_ast_file_kind kind, const char *text,
                         size_t len, tfx_diag *d);
/* tfx_rules_report with a va_list (the parser's error hook). */
void tfx_rules_reportv(tfx_ruleset *rs, tfx_diag *d, tfx_severity sev, tfx_rules_loc loc,
                       const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

#endif
