/* Pass pipeline: a registry of passes keyed by (group, phase, name), in the shape of
 * TensorFlow's OptimizationPassRegistry, plus the runner.
 * Stage: passes (drives every stage after the CLI). Input: registered passes and a tfx_ctx.
 * Output: the passes run in order (groups LOAD..EMIT, phases ascending inside a group,
 * registration order for ties), each one timed with the monotonic clock; the TF graph is
 * dumped after selected passes. The first pass returning non-zero stops the run and its code
 * becomes the result. Library code: nothing is printed; tables are rendered into strbufs. */
#ifndef TFX_PASSES_PIPELINE_H
#define TFX_PASSES_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "passes/context.h"
#include "util/diag.h"
#include "util/status.h"
#include "util/strbuf.h"

typedef enum {
  TFX_GROUP_LOAD = 0,      /* read the model, index it, build the ScopeTree */
  TFX_GROUP_PRUNE,         /* --input-shape / --out-nodes trimming */
  TFX_GROUP_SCOPE_FUSION,  /* rule-driven scope fusion */
  TFX_GROUP_GRAPH_FUSION,  /* optional graph-level fusion */
  TFX_GROUP_OP_MAPPING,    /* TF op -> CANN op */
  TFX_GROUP_LOWERING,      /* Data/Const/NetOutput, formats, dtypes, subgraphs */
  TFX_GROUP_EMIT,          /* write outputs */
  TFX_GROUP__COUNT
} tfx_pass_group;

/* A pass. Returns TFX_OK to continue, or a tfx_status (util/status.h) after reporting into
 * ctx->diag (out of memory: TFX_E_NOMEM). */
typedef tfx_status (*tfx_pass_fn)(tfx_ctx *ctx, void *user);

enum {
  TFX_PASS_REQUIRED = 1u << 0  /* may not be switched off with --disable-pass */
};

typedef struct tfx_pass {
  tfx_pass_group group;
  int phase;
  const char *name;     /* borrowed; unique within a pipeline */
  tfx_pass_fn run;
  void *user;           /* borrowed; handed to run */
  unsigned flags;       /* TFX_PASS_* */
  unsigned seq;         /* registration order */
  int enabled;          /* 1 unless disabled */
  /* Filled by tfx_pipeline_run: */
  int ran;              /* the pass was started */
  int rc;               /* its return code */
  unsigned position;    /* 1-based position among the passes that ran (dump file prefix) */
  double ms;            /* wall time in milliseconds (monotonic clock) */
} tfx_pass;

/* Called after a pass selected by --dump-after succeeded. pos is the pass's run position.
 * Returns 0 or a tfx_status (reported). */
typedef int (*tfx_dump_fn)(tfx_ctx *ctx, const tfx_pass *pass, unsigned pos, void *user);

/* Progress hook (the CLI's progress line): called before each pass runs (finished 0) and
 * once after the run (pass NULL, finished 1). pos is the pass's 1-based run position, n_run
 * how many passes this run will start. Prints nothing itself; never changes the run. */
typedef void (*tfx_progress_fn)(void *user, const tfx_ctx *ctx, const tfx_pass *pass,
                                unsigned pos, unsigned n_run, int finished);

typedef struct tfx_pipeline {
  tfx_pass *passes;     /* kept in run order after tfx_pipeline_sort */
  size_t n, cap;
  unsigned next_seq;
  int sorted;
  tfx_dump_fn dump;     /* default tfx_pipeline_dump_tf_graph */
  void *dump_user;
  double total_ms;      /* sum over the passes that ran in the last run */
  tfx_progress_fn progress; /* NULL: none (the default) */
  void *progress_user;
} tfx_pipeline;

void tfx_pipeline_init(tfx_pipeline *p);
void tfx_pipeline_free(tfx_pipeline *p);

/* Registers a pass. name is borrowed. Returns 0, -1 out of memory, -2 duplicate name,
 * -3 bad group. */
int tfx_pipeline_register(tfx_pipeline *p, tfx_pass_group group, int phase, const char *name,
                          tfx_pass_fn run, void *user, unsigned flags);

/* Puts the passes in run order (stable: group, phase, registration). Idempotent. */
void tfx_pipeline_sort(tfx_pipeline *p);

/* The pass named name, or NULL. */
tfx_pass *tfx_pipeline_find(tfx_pipeline *p, const char *name);

/* Checks a comma-separated list of pass names ("all" allowed when allow_all) and reports the
 * unknown ones into d, with a "did you mean" hint; option names the option for messages.
 * Returns 0 or -1. Empty items are errors too. */
int tfx_pipeline_check_names(tfx_pipeline *p, const char *list, int allow_all,
                             const char *option, tfx_diag *d);

/* Disables the passes of a comma-separated list (checked first with check_names).
 * A TFX_PASS_REQUIRED pass is an error. Returns 0 or -1 (reported). */
int tfx_pipeline_disable(tfx_pipeline *p, const char *list, tfx_diag *d);

/* Runs the enabled passes of groups <= last_group in order. Dumps after passes named by
 * ctx->opts->dump_after. Returns 0, or the status of the first failing pass (or of a
 * failing dump). Timing of every pass that ran is kept in the pass table. */
tfx_status tfx_pipeline_run(tfx_pipeline *p, tfx_ctx *ctx, tfx_pass_group last_group)
    TFX_MUST_CHECK;

/* "LOAD", "PRUNE", ... */
const char *tfx_pipeline_group_name(tfx_pass_group g);

/* The --list-passes table: position, group, phase, name (and "disabled"), run order. */
void tfx_pipeline_list(tfx_pipeline *p, tfx_strbuf *out);
/* The --time-passes table over the passes that ran: group, phase, name, ms, % of total. */
void tfx_pipeline_timing_table(const tfx_pipeline *p, tfx_strbuf *out);

/* The default dump hook: writes ctx->model.graph as a text GraphDef to
 * "<dump_dir>/<NN>-<pass>.pbtxt", creating dump_dir (and its parents) when missing. */
int tfx_pipeline_dump_tf_graph(tfx_ctx *ctx, const tfx_pass *pass, unsigned pos, void *user);

/* The candidate closest to word by edit distance when it is close enough to be a likely typo
 * (distance <= max(1, len/3)), else NULL. Used for "did you mean" hints. */
const char *tfx_pipeline_closest(const char *word, const char *const *cands, size_t n);

/* Monotonic clock in milliseconds (arbitrary origin). */
double tfx_pipeline_now_ms(void);

#endif
