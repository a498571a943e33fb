/* Op signature tables: CANN op prototypes (stdlib/ops/cann-ops.tsv) and TensorFlow op
 * definitions (stdlib/ops/tf-ops.tsv), both copied from extracted tables (see
 * stdlib/ops/README.md for how the copies are made and checked).
 * Stage: cann (data only; used by the rules checker, the op-mapping pass and lowering).
 * Ownership: a table owns its arena; every pointer it returns lives as long as the table.
 *
 * TSV formats are docs/ASCEND.md §8.2-8.3: one op per line,
 * tab-separated, a '#' header line; inside a column items are ',' separated. Lines starting
 * with '#' and blank lines are skipped; a trailing '\r' is ignored. A malformed line is
 * reported as `file:line:col: error: ...` (col = the offending item), every malformed line of
 * the text is reported, and the load fails (TFX_E_INPUT). Malformed means: not exactly 5
 * columns, a name that is not an identifier, a duplicate op / port / attribute name, a port
 * or attribute not of the documented shape, an unknown port kind, attribute type or DT_*
 * name, a default that does not parse as its type, or a bad escape in a string. */
#ifndef TFX_CANN_CANN_H
#define TFX_CANN_CANN_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/status.h"
#include "vm/value.h"

/* ---------------------------------------------------------------- CANN prototypes */

typedef enum { TFX_CANN_REQ = 0, TFX_CANN_OPT = 1, TFX_CANN_DYN = 2 } tfx_cann_port_kind;

typedef struct tfx_cann_port {
  const char *name;
  uint8_t kind;           /* tfx_cann_port_kind (outputs: REQ or DYN) */
  const char *dtypes;     /* the TSV dtype column as written ("f16|f32", "T=@ALL"), or "" */
} tfx_cann_port;

/* Attribute types of the TSV: Int Float Bool String Type Tensor ListInt ListFloat ListBool
 * ListString ListType ListListInt, and the pseudo types GRAPH / DYNAMIC_GRAPH (subgraphs). */
typedef enum {
  TFX_CANN_A_INT, TFX_CANN_A_FLOAT, TFX_CANN_A_BOOL, TFX_CANN_A_STRING, TFX_CANN_A_TYPE,
  TFX_CANN_A_TENSOR, TFX_CANN_A_LIST_INT, TFX_CANN_A_LIST_FLOAT, TFX_CANN_A_LIST_BOOL,
  TFX_CANN_A_LIST_STRING, TFX_CANN_A_LIST_TYPE, TFX_CANN_A_LIST_LIST_INT,
  TFX_CANN_A_GRAPH, TFX_CANN_A_DYNAMIC_GRAPH, TFX_CANN_A__COUNT
} tfx_cann_attr_type;

typedef struct tfx_cann_attr {
  const char *name;
  uint8_t type;           /* tfx_cann_attr_type */
  uint8_t required;       /* REQUIRED_ATTR: no default */
  const char *def;        /* default literal as in the TSV (normalized), NULL when required
                             and for GRAPH / DYNAMIC_GRAPH (which are never `required`) */
  tfx_value value;        /* the default parsed (tfx_cann_table owns it): Int -> int (DT_*
                             names as their C++ ge::DataType value), Float -> float, Bool ->
                             bool, String -> str, Type -> dtype holding the C++ ge::DataType
                             number, List* -> list (ListListInt: a list of lists; ListFloat
                             items written `1./4` are divided), UNKNOWN_RANK -> [-2],
                             UNKNOWN_SHAPE -> [-1]; none when required, for GRAPH pseudo
                             attrs, and for Tensor (the literal is only kept in def) */
} tfx_cann_attr;

typedef struct tfx_cann_op {
  const char *name;
  const tfx_cann_port *in;   uint32_t n_in;     /* declaration order */
  const tfx_cann_port *out;  uint32_t n_out;
  const tfx_cann_attr *attrs; uint32_t n_attrs; /* declaration order; GRAPH pseudo attrs too */
  const char *source;        /* the TSV source column ("owner/repo:path") */
  const char *file;          /* the TSV it was read from (the fname given to the load) */
  uint32_t line;             /* line of the TSV it was read from */
} tfx_cann_op;

typedef struct tfx_cann_table {
  tfx_arena arena;
  tfx_cann_op *ops;  uint32_t n_ops;   /* registration order: file order for one TSV (the
                                          stdlib's is sorted by name); see tfx_cann_add */
  uint32_t cap_ops;                    /* capacity of ops (internal) */
  tfx_hmap by_name;                    /* name -> index */
} tfx_cann_table;

/* Parses a cann-ops TSV held in text (borrowed; copied as needed). fname for messages.
 * t needs no prior init. Returns 0, TFX_E_INPUT (malformed lines, all reported; the good
 * lines are still in t) or TFX_E_NOMEM (out of memory, reported). Free with tfx_cann_free
 * whatever the result. */
tfx_status tfx_cann_load(tfx_cann_table *t, const char *text, size_t len, const char *fname,
                         tfx_diag *d) TFX_MUST_CHECK;
/* The stdlib's table (<stdlib>/ops/cann-ops.tsv), compiled into C data at build time
 * (stdlib_tables.h; no text is parsed at run time), set up once per process and shared (never
 * freed; thread-safe). NULL after reporting when out of memory. */
const tfx_cann_table *tfx_cann_stdlib(tfx_diag *d);
void tfx_cann_free(tfx_cann_table *t);

/* ---------------------------------------------------------------- merged tables
 *
 * User prototype files (`-r` paths named *.cannops.tsv, passes/pass_rules.c) layered over a
 * base table (the stdlib's): build an empty table with tfx_cann_init, add each user file with
 * tfx_cann_add in load order, then the base with tfx_cann_add_base. The first op registered
 * under a name wins, like rules: a later op of that name is an override, skipped and reported
 * according to `ov` (a tfx_cann_override). Ops are kept in registration order; pointers into
 * t->ops are valid until the next add. */

typedef enum {
  TFX_CANN_OV_QUIET = 0, /* overrides are not reported (-Woverride off, the default) */
  TFX_CANN_OV_WARN,      /* `warning: ... [-Woverride]` (-v, -Woverride) */
  TFX_CANN_OV_ERROR      /* `error: ... [-Werror=override]` (-Werror, -Werror=override) */
} tfx_cann_override;

/* An empty table (free with tfx_cann_free). */
void tfx_cann_init(tfx_cann_table *t);
/* Parses one more cann-ops TSV into t (same format and checks as tfx_cann_load; fname is
 * copied). An op whose name an earlier add registered is validated, then skipped as an
 * override, reported at its own line: `CANN prototype 'X' is ignored: the one at F:L:1 was
 * registered first [-Woverride]`; two ops of one name in one text are an error. Returns 0,
 * TFX_E_INPUT (malformed lines, override errors; all reported, the good lines are added)
 * or TFX_E_NOMEM (out of memory, reported). */
tfx_status tfx_cann_add(tfx_cann_table *t, const char *text, size_t len, const char *fname,
                        tfx_cann_override ov, tfx_diag *d) TFX_MUST_CHECK;
/* Adds every op of base that t does not have (shallow copies: base must outlive t; the stdlib
 * table always does). Each base op t already has is an override, reported at the base op's
 * file:line. Returns 0, TFX_E_INPUT (override errors) or TFX_E_NOMEM (out of memory). */
tfx_status tfx_cann_add_base(tfx_cann_table *t, const tfx_cann_table *base, tfx_cann_override ov,
                             tfx_diag *d) TFX_MUST_CHECK;

const tfx_cann_op *tfx_cann_find(const tfx_cann_table *t, const char *name);
/* Index of the input / output / attr called name in op, or -1. */
int tfx_cann_input(const tfx_cann_op *op, const char *name);
int tfx_cann_output(const tfx_cann_op *op, const char *name);
const tfx_cann_attr *tfx_cann_attr_find(const tfx_cann_op *op, const char *name);

/* Up to max names of t that are closest to name (case-insensitive edit distance <= 3, or a
 * case-insensitive prefix/substring match), best first; returns how many were written. For
 * "did you mean" hints in the precheck report. */
size_t tfx_cann_similar(const tfx_cann_table *t, const char *name, const char **out, size_t max);

/* The same over a plain array of names (NULL entries skipped). */
size_t tfx_names_similar(const char *const *names, uint32_t count, const char *name, const char **out, size_t max);

/* C++ ge::DataType number of a DT_* name ("DT_FLOAT16" -> 1, "DT_BF16" -> 27; docs/AIR.md
 * §3.1), or -1 when unknown. n is the name's length. */
int tfx_cann_dtype(const char *name, size_t n);
/* The DT_* name of a ge::DataType number ("DT_FLOAT16"), or NULL. */
const char *tfx_cann_dtype_name(int ge_dtype);

/* ---------------------------------------------------------------- TensorFlow op defs */

typedef struct tfx_tf_arg {
  const char *name;
  const char *type;        /* fixed dtype ("DT_INT32"), a type attr name ("T"), or NULL */
  const char *number_attr; /* `T*N`: the attr holding the count, else NULL */
  const char *list_attr;   /* `*Tlist`: the type-list attr, else NULL */
  uint8_t is_ref;
} tfx_tf_arg;

typedef struct tfx_tf_attr {
  const char *name;
  const char *type;        /* "int", "list(type)", ... */
  const char *def;         /* default literal, NULL when none */
  const char *allowed;     /* the allowed values as written between { } ("DT_INT32|DT_INT64"),
                              NULL when unrestricted */
  int64_t minimum;         /* `>=N`; meaningful when has_minimum */
  uint8_t has_minimum;
} tfx_tf_attr;

typedef struct tfx_tf_op {
  const char *name;
  const tfx_tf_arg *in;  uint32_t n_in;
  const tfx_tf_arg *out; uint32_t n_out;
  const tfx_tf_attr *attrs; uint32_t n_attrs;
  uint8_t is_stateful;
  uint32_t line;           /* line of the TSV it was read from */
} tfx_tf_op;

typedef struct tfx_tf_table {
  tfx_arena arena;
  tfx_tf_op *ops; uint32_t n_ops;
  tfx_hmap by_name;
} tfx_tf_table;

/* Parses a tf-ops TSV (columns name, inputs, outputs, attrs, is_stateful), as tfx_cann_load:
 * every malformed line is reported and the load then fails with TFX_E_INPUT (TFX_E_NOMEM
 * when out of memory). Defaults are kept as written; int, bool, type and string defaults are
 * checked. Free with tfx_tf_ops_free whatever the result. */
tfx_status tfx_tf_ops_load(tfx_tf_table *t, const char *text, size_t len, const char *fname,
                           tfx_diag *d) TFX_MUST_CHECK;
/* The stdlib's <stdlib>/ops/tf-ops.tsv, compiled at build time and shared (as tfx_cann_stdlib). */
const tfx_tf_table *tfx_tf_ops_stdlib(tfx_diag *d);
void tfx_tf_ops_free(tfx_tf_table *t);
const tfx_tf_op *tfx_tf_op_find(const tfx_tf_table *t, const char *name);

/* The rule checker's view of the stdlib's TF op definitions (rules/load.h tfx_rules_tfops:
 * -Wunknown-tf-op, -Wunknown-tf-attr), built on first use and shared (never freed; not
 * thread-safe on first use). NULL after reporting when the table cannot be loaded. */
struct tfx_rules_tfops;
const struct tfx_rules_tfops *tfx_cann_stdlib_tfops(tfx_diag *d);
/* A view over user TF op definition tables (files named *.tfops.tsv, the tf-ops.tsv format;
 * the first definition of a name wins, in the order given) over the stdlib's table and its
 * extra list. Borrows the tables. NULL after reporting, with *st (st may be NULL) saying
 * why: TFX_E_NOMEM, or TFX_E_FAIL for a stdlib table missing from the build. */
typedef struct tfx_tf_view tfx_tf_view;
tfx_tf_view *tfx_tf_view_new(const tfx_tf_table *const *user, uint32_t n_user, tfx_status *st,
                             tfx_diag *d);
void tfx_tf_view_free(tfx_tf_view *v);
const struct tfx_rules_tfops *tfx_tf_view_hook(const tfx_tf_view *v);

#endif
