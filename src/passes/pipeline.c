/* Pass registry and runner (see pipeline.h).
 * Stage: passes. Sorting is stable on (group, phase, registration order); the runner times
 * each pass with CLOCK_MONOTONIC, stops at the first non-zero return code, and calls the dump
 * hook after passes selected by --dump-after. From the OP_MAPPING group on, a run that keeps no
 * report drops the dataflow report (tfx_ctx_release_flow_report). */
#define _POSIX_C_SOURCE 200809L
#include "passes/pipeline.h"

#include "passes/passes.h" /* tfx_pass_scope_tree: the index pass may thread it */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "util/status.h"
#include "util/arena.h"
#include "util/progress.h"
#include "util/fileio.h"

static const char *const group_names[TFX_GROUP__COUNT] = {
  "LOAD", "PRUNE", "SCOPE_FUSION", "GRAPH_FUSION", "OP_MAPPING", "LOWERING", "EMIT",
};
_Static_assert(sizeof group_names / sizeof group_names[0] == TFX_GROUP__COUNT,
               "one name per pass group");

const char *tfx_pipeline_group_name(tfx_pass_group g) {
  return (unsigned)g < TFX_GROUP__COUNT ? group_names[g] : "?";
}

double tfx_pipeline_now_ms(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0.0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void tfx_pipeline_init(tfx_pipeline *p) {
  memset(p, 0, sizeof *p);
  p->dump = tfx_pipeline_dump_tf_graph;
}

void tfx_pipeline_free(tfx_pipeline *p) {
  free(p->passes);
  tfx_pipeline_init(p);
}

tfx_pass *tfx_pipeline_find(tfx_pipeline *p, const char *name) {
  for (size_t i = 0; i < p->n; i++)
    if (strcmp(p->passes[i].name, name) == 0) return &p->passes[i];
  return NULL;
}

int tfx_pipeline_register(tfx_pipeline *p, tfx_pass_group group, int phase, const char *name,
                          tfx_pass_fn run, void *user, unsigned flags) {
  if ((unsigned)group >= TFX_GROUP__COUNT || !name || !run) return -3;
  if (tfx_pipeline_find(p, name)) return -2;
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 16;
    tfx_pass *np = tfx_realloc(p->passes, cap * sizeof *np);
    if (!np) return -1;
    p->passes = np;
    p->cap = cap;
  }
  tfx_pass *ps = &p->passes[p->n++];
  memset(ps, 0, sizeof *ps);
  ps->group = group;
  ps->phase = phase;
  ps->name = name;
  ps->run = run;
  ps->user = user;
  ps->flags = flags;
  ps->seq = p->next_seq++;
  ps->enabled = 1;
  p->sorted = 0;
  return 0;
}

static int pass_cmp(const void *a, const void *b) {
  const tfx_pass *x = a, *y = b;
  if (x->group != y->group) return x->group < y->group ? -1 : 1;
  if (x->phase != y->phase) return x->phase < y->phase ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void tfx_pipeline_sort(tfx_pipeline *p) {
  /* seq is unique, so qsort's instability cannot reorder ties. */
  if (!p->sorted && p->n > 1) qsort(p->passes, p->n, sizeof *p->passes, pass_cmp);
  p->sorted = 1;
}

/* ---- names lists ---- */

/* Calls fn for each comma-separated item of list (items are not NUL-terminated). */
typedef int (*item_fn)(const char *s, size_t n, void *user);
static int for_each_item(const char *list, item_fn fn, void *user) {
  const char *s = list;
  int rc = 0;
  for (;;) {
    const char *e = strchr(s, ',');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (fn(s, n, user) != 0) rc = -1;
    if (!e) break;
    s = e + 1;
  }
  return rc;
}

static tfx_pass *find_n(tfx_pipeline *p, const char *s, size_t n) {
  for (size_t i = 0; i < p->n; i++)
    if (strlen(p->passes[i].name) == n && memcmp(p->passes[i].name, s, n) == 0)
      return &p->passes[i];
  return NULL;
}

/* Optimal string alignment distance: insert, delete, substitute, swap two neighbours. */
static size_t edit_distance(const char *a, const char *b) {
  enum { MAXL = 64 };
  size_t la = strlen(a), lb = strlen(b);
  if (la > MAXL || lb > MAXL) return (size_t)-1;
  size_t pp[MAXL + 1], prev[MAXL + 1], cur[MAXL + 1];
  for (size_t j = 0; j <= lb; j++) prev[j] = j;
  memset(pp, 0, sizeof pp);
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
      size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
      size_t m = sub < del ? sub : del;
      m = m < ins ? m : ins;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < m)
        m = pp[j - 2] + 1;
      cur[j] = m;
    }
    memcpy(pp, prev, (lb + 1) * sizeof *pp);
    memcpy(prev, cur, (lb + 1) * sizeof *prev);
  }
  return prev[lb];
}

const char *tfx_pipeline_closest(const char *word, const char *const *cands, size_t n) {
  size_t len = strlen(word), limit = len / 3 > 1 ? len / 3 : 1;
  const char *best = NULL;
  size_t best_d = (size_t)-1;
  for (size_t i = 0; i < n; i++) {
    size_t dist = edit_distance(word, cands[i]);
    if (dist < best_d) {
      best_d = dist;
      best = cands[i];
    }
  }
  return best && best_d <= limit ? best : NULL;
}

typedef struct check_st {
  tfx_pipeline *p;
  int allow_all;
  const char *option;
  tfx_diag *d;
} check_st;

static int check_item(const char *s, size_t n, void *user) {
  check_st *st = user;
  if (n == 0) {
    tfx_error(st->d, NULL, 0, 0, "%s: empty pass name in the list", st->option);
    return -1;
  }
  if (st->allow_all && n == 3 && memcmp(s, "all", 3) == 0) return 0;
  if (find_n(st->p, s, n)) return 0;
  char word[128];
  size_t wn = n < sizeof word - 1 ? n : sizeof word - 1;
  memcpy(word, s, wn);
  word[wn] = 0;
  const char *hint = NULL;
  const char **names = tfx_malloc((st->p->n ? st->p->n : 1) * sizeof *names);
  if (names) {
    for (size_t i = 0; i < st->p->n; i++) names[i] = st->p->passes[i].name;
    hint = tfx_pipeline_closest(word, names, st->p->n);
  }
  if (hint)
    tfx_error(st->d, NULL, 0, 0, "%s: unknown pass '%s'; did you mean '%s'? (see --list-passes)",
              st->option, word, hint);
  else
    tfx_error(st->d, NULL, 0, 0, "%s: unknown pass '%s' (see --list-passes)", st->option, word);
  free(names);
  return -1;
}

int tfx_pipeline_check_names(tfx_pipeline *p, const char *list, int allow_all,
                             const char *option, tfx_diag *d) {
  check_st st = {p, allow_all, option, d};
  return for_each_item(list, check_item, &st);
}

static int disable_item(const char *s, size_t n, void *user) {
  check_st *st = user;
  tfx_pass *ps = find_n(st->p, s, n);
  if (!ps) return -1; /* already reported by check_names */
  if (ps->flags & TFX_PASS_REQUIRED) {
    tfx_error(st->d, NULL, 0, 0, "--disable-pass: pass '%s' is required and cannot be disabled",
              ps->name);
    return -1;
  }
  ps->enabled = 0;
  return 0;
}

int tfx_pipeline_disable(tfx_pipeline *p, const char *list, tfx_diag *d) {
  if (tfx_pipeline_check_names(p, list, 0, "--disable-pass", d) != 0) return -1;
  check_st st = {p, 0, "--disable-pass", d};
  return for_each_item(list, disable_item, &st);
}

typedef struct match_st {
  const char *name;
  int hit;
} match_st;

static int match_item(const char *s, size_t n, void *user) {
  match_st *m = user;
  if ((n == 3 && memcmp(s, "all", 3) == 0) ||
      (strlen(m->name) == n && memcmp(m->name, s, n) == 0))
    m->hit = 1;
  return 0;
}

static int dump_selected(const tfx_options *o, const char *name) {
  if (!o || !o->dump_after) return 0;
  match_st m = {name, 0};
  for_each_item(o->dump_after, match_item, &m);
  return m.hit;
}

/* ---- running ---- */

static int run_passes(tfx_pipeline *p, tfx_ctx *ctx, tfx_pass_group last_group);

tfx_status tfx_pipeline_run(tfx_pipeline *p, tfx_ctx *ctx, tfx_pass_group last_group) {
  /* the pages a pass frees stay in this thread's pool for the next pass's big blocks, and go
   * back at the end (util/arena.h): a library thread keeps none after a run, whichever pass it
   * stopped at */
  tfx_pages_pool_begin();
  int rc = run_passes(p, ctx, last_group);
  ctx->scope_tree_next = 0;
  /* a ScopeTree thread the index pass started and no scope-tree pass joined (the run stopped
   * in between: an error, a dump that failed): joined, its tree dropped, before the pool goes
   * (the tree's pages go to it); no thread outlives a run (docs/API.md) */
  (void)tfx_ctx_scope_join(ctx, 0);
  (void)tfx_ctx_release_join(ctx); /* (the lowering pass joins its sweep itself: a safeguard) */
  tfx_pages_pool_end();
  if (p->progress) { /* the run is over: the hook may clear its line */
    unsigned pos = 0;
    for (size_t i = 0; i < p->n; i++) pos += p->passes[i].ran != 0;
    p->progress(p->progress_user, ctx, NULL, pos, pos, 1);
  }
  return (tfx_status)rc;
}

/* The progress hook during a pass: what a node loop reports (util/progress.h) goes into
 * ctx->progress_* and to the pipeline's hook, as for the pass start (finished 0). */
typedef struct in_pass {
  tfx_pipeline *p;
  tfx_ctx *ctx;
  const tfx_pass *ps;
  unsigned pos, n_run;
} in_pass;

static void on_units(void *user, uint64_t done, uint64_t total, const char *unit) {
  in_pass *ip = user;
  ip->ctx->progress_done = done;
  ip->ctx->progress_total = total;
  ip->ctx->progress_unit = unit;
  ip->p->progress(ip->p->progress_user, ip->ctx, ip->ps, ip->pos, ip->n_run, 0);
}

static int run_passes(tfx_pipeline *p, tfx_ctx *ctx, tfx_pass_group last_group) {
  tfx_pipeline_sort(p);
  for (size_t i = 0; i < p->n; i++) {
    p->passes[i].ran = 0;
    p->passes[i].rc = 0;
    p->passes[i].position = 0;
    p->passes[i].ms = 0.0;
  }
  p->total_ms = 0.0;
  unsigned pos = 0, n_run = 0;
  for (size_t i = 0; p->progress && i < p->n && p->passes[i].group <= last_group; i++)
    n_run += p->passes[i].enabled != 0;
  for (size_t i = 0; i < p->n; i++) {
    tfx_pass *ps = &p->passes[i];
    if (ps->group > last_group) break;
    if (!ps->enabled) continue;
    ps->position = ++pos;
    ps->ran = 1;
    /* a run that keeps no report: the dataflow report is not read from here on */
    if (ps->group >= TFX_GROUP_OP_MAPPING) tfx_ctx_release_flow_report(ctx);
    ctx->progress_done = ctx->progress_total = 0;
    ctx->progress_unit = NULL;
    if (p->progress) p->progress(p->progress_user, ctx, ps, pos, n_run, 0);
    in_pass ip = {p, ctx, ps, pos, n_run};
    tfx_progress_sink sink = {on_units, &ip};
    const tfx_progress_sink *outer = p->progress ? tfx_progress_install(&sink) : NULL;
    size_t errors_before = ctx->diag->errors;
    /* the index pass may build the ScopeTree on a thread when the scope-tree pass joins it next
     * (passes/pass_load.c): not when another pass, which could edit the GraphDef, runs first */
    ctx->scope_tree_next = 0;
    for (size_t j = i + 1; j < p->n && p->passes[j].group <= last_group; j++) {
      if (!p->passes[j].enabled) continue;
      ctx->scope_tree_next = p->passes[j].run == tfx_pass_scope_tree;
      break;
    }
    double t0 = tfx_pipeline_now_ms();
    int rc = ps->run(ctx, ps->user);
    ctx->scope_tree_next = 0;
    if (p->progress) tfx_progress_install(outer);
    ctx->progress_done = ctx->progress_total = 0;
    ctx->progress_unit = NULL;
    ps->ms = tfx_pipeline_now_ms() - t0;
    if (ps->ms < 0) ps->ms = 0;
    p->total_ms += ps->ms;
    ps->rc = rc;
    if (rc != 0) {
      /* Every failure must be explained; a pass that forgot gets a generic message. */
      if (ctx->diag->errors == errors_before)
        tfx_error(ctx->diag, NULL, 0, 0, "pass '%s' failed (exit code %d)", ps->name,
                  tfx_status_exit_code((tfx_status)rc));
      return rc;
    }
    if (p->dump && dump_selected(ctx->opts, ps->name)) {
      rc = p->dump(ctx, ps, pos, p->dump_user);
      if (rc != 0) return rc;
    }
  }
  return 0;
}

/* ---- dumping ---- */

/* mkdir -p. Returns 0 or -1 with errno set. */
static int make_dirs(char *path) {
  size_t n = strlen(path);
  for (size_t i = 1; i <= n; i++) {
    if (path[i] != '/' && path[i] != 0) continue;
    char c = path[i];
    path[i] = 0;
    int r = mkdir(path, 0777);
    int e = errno;
    path[i] = c;
    if (r != 0 && e != EEXIST) {
      errno = e;
      return -1;
    }
  }
  if (!tfx_is_dir(path)) {
    errno = ENOTDIR;
    return -1;
  }
  return 0;
}

int tfx_pipeline_dump_tf_graph(tfx_ctx *ctx, const tfx_pass *pass, unsigned pos, void *user) {
  (void)user;
  if (!ctx->have_model || !ctx->model.graph) {
    tfx_warning(ctx->diag, NULL, 0, 0, "--dump-after %s: no TF graph loaded yet, nothing dumped",
                pass->name);
    return 0;
  }
  const char *dir = ctx->opts && ctx->opts->dump_dir ? ctx->opts->dump_dir : "tfxc-dump";
  if (!*dir) dir = ".";
  size_t dl = strlen(dir), nl = strlen(pass->name);
  char *path = tfx_malloc(dl + nl + 32);
  if (!path) {
    tfx_error(ctx->diag, dir, 0, 0, "out of memory");
    return TFX_E_NOMEM;
  }
  memcpy(path, dir, dl + 1);
  while (dl > 1 && path[dl - 1] == '/') path[--dl] = 0;
  if (make_dirs(path) != 0) {
    tfx_error(ctx->diag, dir, 0, 0, "cannot create dump directory: %s", strerror(errno));
    free(path);
    return TFX_E_INPUT;
  }
  snprintf(path + dl, nl + 32, "/%02u-%s.pbtxt", pos, pass->name);
  int rc = tfx_io_write_message_max(path, &ctx->model.graph->base, TFX_WIRE_TEXT,
                                    tfx_limit_size(ctx->opts ? &ctx->opts->limits : NULL,
                                                   TFX_LIMIT_OUTPUT_SIZE),
                                    ctx->diag);
  free(path);
  return rc; /* a tfx_status */
}

/* ---- tables ---- */

static size_t name_width(const tfx_pipeline *p, int ran_only) {
  size_t w = 4;
  for (size_t i = 0; i < p->n; i++) {
    if (ran_only && !p->passes[i].ran) continue;
    size_t l = strlen(p->passes[i].name);
    if (l > w) w = l;
  }
  return w;
}

void tfx_pipeline_list(tfx_pipeline *p, tfx_strbuf *out) {
  tfx_pipeline_sort(p);
  int w = (int)name_width(p, 0);
  tfx_sb_printf(out, "%3s  %-12s %6s  %s\n", "#", "group", "phase", "pass");
  unsigned pos = 0;
  for (size_t i = 0; i < p->n; i++) {
    const tfx_pass *ps = &p->passes[i];
    tfx_sb_printf(out, "%3u  %-12s %6d  %-*s%s\n", ++pos, tfx_pipeline_group_name(ps->group),
                  ps->phase, ps->enabled ? 0 : w, ps->name, ps->enabled ? "" : "  (disabled)");
  }
}

void tfx_pipeline_timing_table(const tfx_pipeline *p, tfx_strbuf *out) {
  int w = (int)name_width(p, 1);
  double total = p->total_ms;
  tfx_sb_printf(out, "%-12s %6s  %-*s %10s %7s\n", "group", "phase", w, "pass", "ms", "%");
  for (size_t i = 0; i < p->n; i++) {
    const tfx_pass *ps = &p->passes[i];
    if (!ps->ran) continue;
    double pct = total > 0 ? ps->ms * 100.0 / total : 0.0;
    tfx_sb_printf(out, "%-12s %6d  %-*s %10.3f %6.1f%%%s\n", tfx_pipeline_group_name(ps->group),
                  ps->phase, w, ps->name, ps->ms, pct, ps->rc ? "  (failed)" : "");
  }
  tfx_sb_printf(out, "%-12s %6s  %-*s %10.3f %6.1f%%\n", "total", "", w, "", total, 100.0);
}
