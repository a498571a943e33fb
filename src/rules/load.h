/* Rule sets: loading .scoperule / .opmap sources, registration order, semantic checks.
 * Stage: rules, front end. Input: paths (files, or directories searched recursively) and memory
 * buffers (the embedded stdlib, under pseudo names like "<stdlib>/fusion/x.scoperule").
 * Output: a tfx_ruleset owning every source text and AST (one arena), with the registered
 * passes and op maps in registration order. Errors and warnings go to a tfx_diag with
 * `file:line:col`, the source line and a caret; nothing here prints. */
#ifndef TFX_RULES_LOAD_H
#define TFX_RULES_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "rules/ast.h"
#include "util/diag.h"

/* ---------------------------------------------------------------- warnings */

/* One X-macro list: id, -W name, on by default, one-line meaning. */
#define TFX_RULES_WARNINGS(X)                                                                  \
  X(UNUSED_BINDING, "unused-binding", 1, "a let or fuse binding that is never used")           \
  X(SHADOW, "shadow", 1, "a binding hides another binding of the same name")                   \
  X(INVALID_RESULT, "invalid-result", 1, "a fusion result was dropped by `invalid` (run time)") \
  X(OVERRIDE, "override", 0, "a rule is ignored because an earlier one has its name (-v)")      \
  X(UNKNOWN_OP, "unknown-op", 1, "an op map or inner node names a CANN type with no prototype") \
  X(UNKNOWN_TF_OP, "unknown-tf-op", 1, "an op map's TF type has no TF op definition and no rule fuses it") \
  X(UNKNOWN_TF_ATTR, "unknown-tf-attr", 1, "an op map reads a name that is no attribute of its TF op")

typedef enum tfx_rules_warning {
#define TFX_RULES_W_ENUM(id, name, on, doc) TFX_RULES_W_##id,
  TFX_RULES_WARNINGS(TFX_RULES_W_ENUM)
#undef TFX_RULES_W_ENUM
  TFX_RULES_W__COUNT
} tfx_rules_warning;

typedef struct tfx_rules_warnings {
  uint32_t enabled;  /* bit per tfx_rules_warning */
  uint32_t as_error; /* bit per warning promoted by -Werror=<name> */
  int werror;        /* -Werror: every enabled warning is an error */
} tfx_rules_warnings;

void tfx_rules_warnings_init(tfx_rules_warnings *w);  /* the defaults */
/* Turns one warning on or off by name ("unused-binding"). Returns 0, or -1 if unknown. */
int tfx_rules_warning_set(tfx_rules_warnings *w, const char *name, int on);
/* Applies one command-line option: -W<name>, -Wno-<name>, -Werror, -Wno-error,
 * -Werror=<name>, -Wall (every warning on). Returns 0, or -1 if not understood. */
int tfx_rules_warning_option(tfx_rules_warnings *w, const char *opt);
const char *tfx_rules_warning_name(tfx_rules_warning id);
int tfx_rules_warning_lookup(const char *name); /* id or -1 */

/* ---------------------------------------------------------------- CANN prototypes hook */

/* A CANN op's signature, as far as the checks need it (from facts/cann-ops.tsv later). */
typedef enum { TFX_RULES_PORT_REQUIRED, TFX_RULES_PORT_OPTIONAL, TFX_RULES_PORT_DYNAMIC } tfx_rules_port_kind;
typedef struct tfx_rules_proto_port {
  const char *name;
  tfx_rules_port_kind kind;
} tfx_rules_proto_port;
/* What kind of value a prototype attribute takes, as far as a static check can tell. */
typedef enum {
  TFX_RULES_A_OTHER = 0, /* Tensor, subgraphs: not checked */
  TFX_RULES_A_NUMBER,    /* Int, Float */
  TFX_RULES_A_BOOL,
  TFX_RULES_A_STRING,
  TFX_RULES_A_TYPE,
  TFX_RULES_A_LIST       /* ListInt, ListFloat, ... */
} tfx_rules_attr_kind;
typedef struct tfx_rules_proto_attr {
  const char *name;
  const char *type;        /* as the prototype writes it ("ListInt"), for messages */
  tfx_rules_attr_kind kind;
} tfx_rules_proto_attr;
typedef struct tfx_rules_op_proto {
  const char *type;
  const tfx_rules_proto_port *inputs;
  size_t n_inputs;
  const tfx_rules_proto_port *outputs;
  size_t n_outputs;
  const tfx_rules_proto_attr *attrs; /* may be NULL: attribute values are then not checked */
  size_t n_attrs;
} tfx_rules_op_proto;

/* Returns the prototype of a CANN op type, or NULL when unknown. ctx is the caller's. */
typedef const tfx_rules_op_proto *(*tfx_rules_proto_lookup_fn)(void *ctx, const char *type);

typedef struct tfx_rules_protos {
  tfx_rules_proto_lookup_fn lookup;
  void *ctx;
} tfx_rules_protos;

/* A lookup over a plain array (sorted or not), for tests and small tables: ctx is a
 * tfx_rules_proto_table. */
typedef struct tfx_rules_proto_table {
  const tfx_rules_op_proto *ops;
  size_t n;
} tfx_rules_proto_table;
const tfx_rules_op_proto *tfx_rules_proto_table_lookup(void *table, const char *type);

/* ---------------------------------------------------------------- TF op definitions hook */

/* The TF-side names of op maps are checked through this (the stdlib's tf-ops.tsv:
 * cann/cann.h tfx_cann_stdlib_tfops). ctx is the provider's. */
typedef struct tfx_rules_tfops {
  /* 1 when type is a TF op with a definition (its attribute names in *attrs / *n_attrs); 2 when
   * the type is known without a definition (attribute names not checked); 0 when unknown. */
  int (*lookup)(void *ctx, const char *type, const char *const **attrs, size_t *n_attrs);
  /* Up to max defined op names close to name, best first; returns how many. */
  size_t (*similar)(void *ctx, const char *name, const char **out, size_t max);
  void *ctx;
} tfx_rules_tfops;

/* ---------------------------------------------------------------- rule sets */

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

typedef struct tfx_rules_options {
  tfx_rules_warnings warnings;
  const tfx_rules_protos *protos; /* NULL: op-map ports are not checked against prototypes */
  const tfx_rules_tfops *tfops;   /* NULL: TF op types and attribute names are not checked */
} tfx_rules_options;

void tfx_rules_options_init(tfx_rules_options *o);

/* Returns a new empty rule set, or NULL when out of memory. */
tfx_ruleset *tfx_ruleset_new(void);
void tfx_ruleset_free(tfx_ruleset *rs);
/* The rule-depth limit for the sources loaded from now on: nesting of expressions and of
 * blocks deeper than n levels is an error (exit 4). 0 = the default (TFX_AST_DEFAULT_DEPTH,
 * 256); values above TFX_AST_MAX_DEPTH (1024) are clamped to it. */
void tfx_ruleset_set_max_depth(tfx_ruleset *rs, unsigned n);

/* Loads and parses one path: a rule file (by extension .scoperule / .opmap) or a directory,
 * searched recursively, whose rule files are loaded in byte order of their paths. Sources are
 * registered in load order. Returns 0, or -1 when something was reported as an error (the
 * rest of the path is still loaded so that every error is reported). */
int tfx_rules_load_path(tfx_ruleset *rs, const char *path, tfx_diag *d);
/* Loads several paths in the given order. */
int tfx_rules_load_paths(tfx_ruleset *rs, const char *const *paths, size_t n, tfx_diag *d);
/* Parses a memory buffer (copied) under `name`, whose extension gives the file kind. */
int tfx_rules_load_buffer(tfx_ruleset *rs, const char *name, const char *text, size_t len,
                          tfx_diag *d);
/* The same with an explicit file kind (name is only used in diagnostics). */
int tfx_rules_load_buffer_kind(tfx_ruleset *rs, const char *name, tfx_ast_file_kind kind,
                               const char *text, size_t len, tfx_diag *d);

/* Registers the parsed rules (first name wins; later duplicates are overrides) and runs the
 * semantic checks over the whole set. opt may be NULL (defaults). Returns 0 when no error
 * was reported by this call, -1 otherwise. Call once, after every load. */
int tfx_rules_check(tfx_ruleset *rs, const tfx_rules_options *opt, tfx_diag *d);

/* Registered passes and op maps, in registration order (valid after tfx_rules_check). An
 * overridden definition (a later pass with a registered name) is not listed. */
size_t tfx_ruleset_n_passes(const tfx_ruleset *rs);
const tfx_ast_pass *tfx_ruleset_pass(const tfx_ruleset *rs, size_t i);
const tfx_ast_pass *tfx_ruleset_find_pass(const tfx_ruleset *rs, const char *name);
size_t tfx_ruleset_n_opmaps(const tfx_ruleset *rs);
const tfx_ast_opmap *tfx_ruleset_opmap(const tfx_ruleset *rs, size_t i);

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

#endif
