/* The CANN prototype table as the rule checker's prototype hook (src/passes/rules_protos.c).
 * Stage: passes (adapter between the cann op tables and the rules checker). */
#ifndef TFX_PASSES_RULES_PROTOS_H
#define TFX_PASSES_RULES_PROTOS_H

#include "cann/cann.h"
#include "util/diag.h"

/* ---------------------------------------------------------------- rules checker hook */

/* The rule checker's view of a table (rules/load.h: tfx_rules_protos, whose lookup gives an op
 * map's target ports with their kinds), so that every op map is checked against the CANN
 * prototypes when it is compiled. Opaque; borrows the table, which must outlive it. */
struct tfx_rules_protos;
typedef struct tfx_cann_protos tfx_cann_protos;
/* Returns a new view of t, or NULL when out of memory. */
tfx_cann_protos *tfx_cann_protos_new(const tfx_cann_table *t);
void tfx_cann_protos_free(tfx_cann_protos *p);
/* Adds the CANN types of a "known without prototype" list (TSV: name, reason; the stdlib's
 * <stdlib>/ops/cann-ops-noir.tsv): the hook then gives each an empty prototype, so maps to
 * them are accepted (no -Wunknown-op) but cannot name ports. A name that has a prototype, a
 * duplicate or a line without a reason is reported; returns 0, TFX_E_INPUT or
 * TFX_E_NOMEM (out of memory). */
tfx_status tfx_cann_protos_add_known(tfx_cann_protos *p, const char *text, size_t len,
                                     const char *fname, tfx_diag *d) TFX_MUST_CHECK;
/* The hook to put in tfx_rules_options.protos (lives as long as p). */
const struct tfx_rules_protos *tfx_cann_protos_hook(const tfx_cann_protos *p);
/* A new view of t, a table holding the stdlib's ops (user prototypes added over
 * tfx_cann_stdlib() with tfx_cann_add_base), plus the stdlib's types known without a
 * prototype (<stdlib>/ops/cann-ops-noir.tsv) except those t has a prototype for (a user
 * prototype gives such a type its ports). NULL after reporting (out of memory, a stdlib list
 * that cannot be loaded). Free with tfx_cann_protos_free. */
tfx_cann_protos *tfx_cann_protos_merged(const tfx_cann_table *t, tfx_diag *d);
/* The hook over tfx_cann_stdlib() and <stdlib>/ops/cann-ops-noir.tsv, built on first use and
 * shared (never freed; not thread-safe on first use). NULL after reporting when a table
 * cannot be loaded. */
const struct tfx_rules_protos *tfx_cann_stdlib_protos(tfx_diag *d);

#endif
