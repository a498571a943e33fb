/* tfxc_bench_passes: tfxc's conversion pipeline run in-process, once, with each pass's wall
 * time, CPU time and memory.
 * Stage: bench (not part of tfxc). Input: a model and the options of `tfxc MODEL -o OUT`
 * (-r PATH..., --no-stdlib, --emit KIND, --passthrough-unknown; --report: as with tfxc's
 * --report, the reports are kept, else released before lowering). Output: one line of key=value
 * pairs on stdout:
 *   passes=load,rules,...  (the passes that ran, in order)
 *   wall_<pass>=ms cpu_<pass>=ms rss_<pass>=KB hwm_<pass>=KB   (per pass, '-' in names -> '_')
 *   wall_total=ms cpu_total=ms peak_rss_kb=KB
 * It registers tfxc's built-in passes and runs them exactly as `tfxc` does (same tfx_options
 * for these flags, everything else at its default). wall is the pipeline's own per-pass time
 * (the --time-passes figure); cpu is CLOCK_PROCESS_CPUTIME_ID around the pass, which a busy
 * machine disturbs much less than wall time; rss is the resident set after the pass (VmRSS)
 * and hwm the high-water mark so far (VmHWM), so peak memory can be attributed to a pass.
 * The per-pass hook is the pipeline's --dump-after hook (selected for "all"), replaced by one
 * that only reads the clocks and /proc/self/status. Exit 0, or tfxc's exit code after printing
 * the diagnostics.
 * --fusion K: scope matching alone. Runs the LOAD and PRUNE groups (load, rules, index,
 * scope-tree), then the scope-fusion engine (tfx_fusion_run: every enabled scope pass of the
 * rules over the main graph's ScopeTree, with selection and the report, but no apply and no
 * re-index) K times, clearing the tree's sub_types before each run, and prints
 * fusion_ms=median/min/max fusion_cpu_ms=median/min/max results=N (fusion results of the last
 * run) after the pass fields.
 * --tree K: the index and the scope tree alone. Runs the LOAD and PRUNE groups, then K times
 * frees the tree and the index and builds them again as passes index and scope-tree do, and
 * prints index_cpu_ms=median/min/max tree_cpu_ms=median/min/max (CPU time of each build) and
 * scopes=N after the pass fields. Repeated builds take memory the previous ones gave back,
 * so they fault fewer fresh pages than the pipeline's first build: compare builds of the
 * same tool.
 * --layout: afterwards, also prints where the GE model's memory is (stderr, a table): the
 * bytes its arena took from malloc, and a walk of the ModelDef by message type counting each
 * object once (lowering shares some AttrDefs and strings), with the arena's 16-byte rounding;
 * plus the op-mapping arena's size. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fusion/engine.h"
#include "ge/ge.h"
#include "opmap/opmap.h"
#include "passes/passes.h"
#include "passes/pipeline.h"
#include "util/diag.h"

#define MAX_PATHS 64

static double clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* VmRSS and VmHWM of this process in KB (0 when /proc is unavailable). */
static void mem_kb(long *rss, long *hwm) {
  *rss = *hwm = 0;
  FILE *f = fopen("/proc/self/status", "r");
  if (!f) return;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "VmRSS:", 6)) *rss = atol(line + 6);
    else if (!strncmp(line, "VmHWM:", 6)) *hwm = atol(line + 6);
  }
  fclose(f);
}

typedef struct rec {
  double cpu0;           /* CPU clock at the end of the previous pass (or the start) */
  struct {
    const char *name;
    double wall, cpu;
    long rss, hwm;
  } v[64];
  size_t n;
} rec;

static int on_pass(tfx_ctx *ctx, const tfx_pass *pass, unsigned pos, void *user) {
  (void)ctx;
  (void)pos;
  rec *r = user;
  double now = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
  if (r->n < sizeof r->v / sizeof r->v[0]) {
    r->v[r->n].name = pass->name;
    r->v[r->n].wall = pass->ms;
    r->v[r->n].cpu = now - r->cpu0;
    mem_kb(&r->v[r->n].rss, &r->v[r->n].hwm);
    r->n++;
  }
  r->cpu0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
  return 0;
}

/* ---- --layout: a walk of the GE model, each object counted once ---- */

typedef struct pset {           /* open-addressing set of pointers */
  uintptr_t *v;
  size_t cap, n;
} pset;

static int pset_add(pset *s, const void *p) { /* 1 if new */
  if (2 * (s->n + 1) > s->cap) {
    size_t nc = s->cap ? 2 * s->cap : 1024;
    uintptr_t *nv = calloc(nc, sizeof *nv);
    if (!nv) abort();
    for (size_t i = 0; i < s->cap; i++)
      if (s->v[i]) {
        size_t h = (s->v[i] >> 4) * 0x9e3779b97f4a7c15ull % nc;
        while (nv[h]) h = (h + 1) % nc;
        nv[h] = s->v[i];
      }
    free(s->v);
    s->v = nv;
    s->cap = nc;
  }
  uintptr_t x = (uintptr_t)p;
  size_t h = (x >> 4) * 0x9e3779b97f4a7c15ull % s->cap;
  while (s->v[h]) {
    if (s->v[h] == x) return 0;
    h = (h + 1) % s->cap;
  }
  s->v[h] = x;
  s->n++;
  return 1;
}

typedef struct lay_row {
  const char *what;
  uint64_t count, bytes;
} lay_row;

typedef struct lay {
  pset seen;
  lay_row rows[128];
  size_t n;
  uint64_t rounding;
  lay_row keys[256];    /* map entries by key: count, bytes of their (unshared) values */
  size_t n_keys;
} lay;

static size_t r16(size_t n) { return (n + 15) & ~(size_t)15; }

static void lay_add(lay *l, const char *what, size_t bytes) {
  size_t i = 0;
  while (i < l->n && strcmp(l->rows[i].what, what)) i++;
  if (i == l->n) {
    if (l->n == sizeof l->rows / sizeof l->rows[0]) return;
    l->rows[l->n++].what = what;
  }
  l->rows[i].count++;
  l->rows[i].bytes += bytes;
  l->rounding += r16(bytes) - bytes;
}

static size_t elem_size(ProtobufCType t) {
  switch (t) {
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
  case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE: return 8;
  case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
  case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
  case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
  default: return 4;
  }
}

static void lay_value(lay *l, const ProtobufCFieldDescriptor *f, const void *v);

static uint64_t lay_total(const lay *l) {
  uint64_t t = 0;
  for (size_t i = 0; i < l->n; i++) t += l->rows[i].bytes;
  return t;
}

static void lay_msg(lay *l, const ProtobufCMessage *m) {
  if (!m || !pset_add(&l->seen, m)) return;
  const ProtobufCMessageDescriptor *d = m->descriptor;
  lay_add(l, d->short_name, d->sizeof_message);
  size_t nl = strlen(d->name);
  if (d->n_fields == 2 && nl > 5 && !strcmp(d->name + nl - 5, "Entry") &&
      d->fields[0].type == PROTOBUF_C_TYPE_STRING) { /* a map entry: account it by key */
    const char *key = *(const char *const *)((const char *)m + d->fields[0].offset);
    uint64_t before = lay_total(l);
    lay_value(l, &d->fields[1], (const char *)m + d->fields[1].offset);
    size_t i = 0;
    while (i < l->n_keys && strcmp(l->keys[i].what, key ? key : "")) i++;
    if (i == l->n_keys && l->n_keys < sizeof l->keys / sizeof l->keys[0]) l->keys[l->n_keys++].what = key ? key : "";
    if (i < l->n_keys) {
      l->keys[i].count++;
      l->keys[i].bytes += lay_total(l) - before + d->sizeof_message;
    }
    return;
  }
  const char *base = (const char *)m;
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n = *(const size_t *)(base + f->quantifier_offset);
      const char *arr = *(const char *const *)(base + f->offset);
      if (!n || !arr) continue;
      if (pset_add(&l->seen, arr)) lay_add(l, "(repeated-field arrays)", n * elem_size(f->type));
      for (size_t k = 0; k < n; k++) lay_value(l, f, arr + k * elem_size(f->type));
    } else {
      if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
          *(const uint32_t *)(base + f->quantifier_offset) != f->id)
        continue;
      lay_value(l, f, base + f->offset);
    }
  }
}

static void lay_value(lay *l, const ProtobufCFieldDescriptor *f, const void *v) {
  if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
    lay_msg(l, *(const ProtobufCMessage *const *)v);
  } else if (f->type == PROTOBUF_C_TYPE_STRING) {
    const char *s = *(const char *const *)v;
    if (s && s != f->default_value && *s && pset_add(&l->seen, s)) lay_add(l, "(strings)", strlen(s) + 1);
  } else if (f->type == PROTOBUF_C_TYPE_BYTES) {
    const ProtobufCBinaryData *b = v;
    if (b->len && b->data && pset_add(&l->seen, b->data)) lay_add(l, "(bytes payloads)", b->len);
  }
}

static int cmp_row(const void *a, const void *b) {
  const lay_row *x = a, *y = b;
  return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

static void print_layout(const tfx_ctx *ctx) {
  if (ctx->opmap)
    fprintf(stderr, "op-mapping arena: %.1f MiB\n", (double)ctx->opmap->arena.total / 1048576);
  if (ctx->ge && !ctx->ge->model)
    fprintf(stderr, "GE model: lowered straight into the .air (%zu bytes), no tree to walk; "
                    "--emit ge-pbtxt keeps the whole model\n", ctx->ge->air_size);
  if (!ctx->ge || !ctx->ge->model) return;
  lay l;
  memset(&l, 0, sizeof l);
  lay_msg(&l, &ctx->ge->model->base);
  qsort(l.rows, l.n, sizeof l.rows[0], cmp_row);
  uint64_t sum = 0;
  for (size_t i = 0; i < l.n; i++) sum += l.rows[i].bytes;
  fprintf(stderr, "GE model arena: %.1f MiB from malloc; walked objects %.1f MiB + %.1f MiB "
                  "16-byte rounding\n", (double)ctx->ge->arena.total / 1048576,
          (double)sum / 1048576, (double)l.rounding / 1048576);
  fprintf(stderr, "%-40s %12s %12s %8s\n", "what", "count", "MiB", "share");
  for (size_t i = 0; i < l.n; i++)
    fprintf(stderr, "%-40s %12llu %12.1f %7.1f%%\n", l.rows[i].what,
            (unsigned long long)l.rows[i].count, (double)l.rows[i].bytes / 1048576,
            100.0 * (double)l.rows[i].bytes / (double)(sum ? sum : 1));
  qsort(l.keys, l.n_keys, sizeof l.keys[0], cmp_row);
  fprintf(stderr, "map entries by key (entry + value objects not shared with an earlier one):\n");
  for (size_t i = 0; i < l.n_keys && i < 15; i++)
    fprintf(stderr, "  %-38s %12llu %12.1f\n", l.keys[i].what, (unsigned long long)l.keys[i].count,
            (double)l.keys[i].bytes / 1048576);
  free(l.seen.v);
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* "median/min/max" of v[0..n) (sorts v). */
static void put_stat(const char *key, double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  printf(" %s=%.3f/%.3f/%.3f", key, med, v[0], v[n - 1]);
}

/* --fusion K: the scope-fusion engine alone, K times, on the context's main graph. */
static int run_fusion(tfx_ctx *ctx, int runs) {
  if (!ctx->have_pack || !ctx->have_scopes) {
    fprintf(stderr, "tfxc_bench_passes: --fusion needs the rules and the scope tree\n");
    return 1;
  }
  double *wall = calloc((size_t)runs, sizeof *wall), *cpu = calloc((size_t)runs, sizeof *cpu);
  tfx_fusion_enables en;
  tfx_fusion_engine eng;
  if (!wall || !cpu || tfx_fusion_enables_init(&en, &ctx->pack, ctx->diag)) return 1;
  if (tfx_fusion_engine_init(&eng, &ctx->pack, ctx->diag)) return 1;
  tfx_ctx_setup_vm(ctx, eng.vm);
  uint32_t results = 0;
  int rc = 0;
  for (int k = 0; k < runs && rc == 0; k++) {
    tfx_scope_tree *t = &ctx->scopes;
    for (uint32_t i = 0; i < t->n_scopes; i++) t->scopes[i].sub_type = TFX_NO_ID;
    tfx_fusion_report rep;
    tfx_fusion_report_init(&rep);
    double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    rc = tfx_fusion_run(&eng, &en, &ctx->module, &ctx->module.main, t, &rep, ctx->diag);
    cpu[k] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
    wall[k] = clock_ms(CLOCK_MONOTONIC) - w0;
    results = rep.n_graphs ? rep.graphs[0].n_final : 0;
    tfx_fusion_report_free(&rep);
  }
  if (rc == 0) {
    put_stat("fusion_ms", wall, runs);
    put_stat("fusion_cpu_ms", cpu, runs);
    printf(" results=%u", results);
  }
  tfx_fusion_engine_free(&eng);
  tfx_fusion_enables_free(&en);
  free(wall);
  free(cpu);
  return rc;
}

/* --tree K: index and scope tree rebuilt K times on the context's model. */
static int run_tree(tfx_ctx *ctx, int runs) {
  if (!ctx->have_model || !ctx->have_module) {
    fprintf(stderr, "tfxc_bench_passes: --tree needs the model and its index\n");
    return 1;
  }
  double *ix = calloc((size_t)runs, sizeof *ix), *tr = calloc((size_t)runs, sizeof *tr);
  if (!ix || !tr) return 1;
  int rc = 0;
  for (int k = 0; k < runs && rc == 0; k++) {
    if (ctx->have_scopes) tfx_scope_tree_free(&ctx->scopes);
    ctx->have_scopes = 0;
    tfx_module_free(&ctx->module);
    ctx->have_module = 0;
    double c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    rc = tfx_pass_index(ctx, NULL);
    double c1 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    if (rc == 0) rc = tfx_pass_scope_tree(ctx, NULL);
    double c2 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    ix[k] = c1 - c0;
    tr[k] = c2 - c1;
  }
  if (rc == 0) {
    put_stat("index_cpu_ms", ix, runs);
    put_stat("tree_cpu_ms", tr, runs);
    printf(" scopes=%u", ctx->scopes.n_scopes);
  }
  free(ix);
  free(tr);
  return rc;
}

static void put_name(const char *s) {
  for (; *s; s++) putchar(*s == '-' ? '_' : *s);
}

static int usage(void) {
  fprintf(stderr, "usage: tfxc_bench_passes [-r PATH]... [--no-stdlib] [--emit KIND] "
                  "[--passthrough-unknown] [--report] [--layout] [--fusion K] [--tree K] -o OUT MODEL\n");
  return 2;
}

int main(int argc, char **argv) {
  static const char *const kinds[TFX_EMIT__COUNT] = {"air", "ge-pbtxt", "ge-json", "dot",
                                                     "tf-pbtxt"};
  const char *paths[MAX_PATHS];
  size_t n_paths = 0;
  tfx_options o;
  memset(&o, 0, sizeof o);
  const char *out = NULL;
  int emit = TFX_EMIT_AIR, layout = 0, fusion = 0, report = 0, tree = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-r") && i + 1 < argc && n_paths < MAX_PATHS) {
      paths[n_paths++] = argv[++i];
    } else if (!strcmp(argv[i], "--no-stdlib")) {
      o.no_stdlib = 1;
    } else if (!strcmp(argv[i], "--fusion") && i + 1 < argc) {
      fusion = atoi(argv[++i]);
      if (fusion < 1 || fusion > 1000) return usage();
    } else if (!strcmp(argv[i], "--tree") && i + 1 < argc) {
      tree = atoi(argv[++i]);
      if (tree < 1 || tree > 1000) return usage();
    } else if (!strcmp(argv[i], "--layout")) {
      layout = 1;
    } else if (!strcmp(argv[i], "--passthrough-unknown")) {
      o.passthrough_unknown = 1;
    } else if (!strcmp(argv[i], "--report")) {
      report = 1;
    } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      out = argv[++i];
    } else if (!strcmp(argv[i], "--emit") && i + 1 < argc) {
      const char *k = argv[++i];
      for (emit = 0; emit < TFX_EMIT__COUNT && strcmp(kinds[emit], k); emit++) {}
      if (emit == TFX_EMIT__COUNT) return usage();
    } else if (argv[i][0] != '-' && !o.model_path) {
      o.model_path = argv[i];
    } else {
      return usage();
    }
  }
  if (!o.model_path || !out) return usage();
  o.emit = 1u << emit;
  o.out_path[emit] = out;
  o.rule_paths = paths;
  o.n_rule_paths = n_paths;
  o.verbose = -1;
  o.dump_after = "all";
  o.no_report = !report; /* as tfxc without --report: the reports go before lowering */
  o.select_outputs = 1; /* as the command: signatures and training machinery (pass prune) */

  tfx_diag d;
  tfx_diag_init(&d);
  tfx_pipeline p;
  tfx_pipeline_init(&p);
  rec r;
  memset(&r, 0, sizeof r);
  p.dump = on_pass;
  p.dump_user = &r;
  tfx_ctx ctx;
  tfx_ctx_init(&ctx, &o, &d);
  int rc = tfx_pass_register_builtin(&p) != 0 ? 1 : 0;
  double c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
  r.cpu0 = c0;
  if (rc == 0) rc = tfx_pipeline_run(&p, &ctx, fusion || tree ? TFX_GROUP_PRUNE : TFX_GROUP_EMIT);
  double c1 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
  if (rc == 0) {
    printf("passes=");
    for (size_t i = 0; i < r.n; i++) {
      if (i) putchar(',');
      put_name(r.v[i].name);
    }
    for (size_t i = 0; i < r.n; i++) {
      printf(" wall_");
      put_name(r.v[i].name);
      printf("=%.3f cpu_", r.v[i].wall);
      put_name(r.v[i].name);
      printf("=%.3f rss_", r.v[i].cpu);
      put_name(r.v[i].name);
      printf("=%ld hwm_", r.v[i].rss);
      put_name(r.v[i].name);
      printf("=%ld", r.v[i].hwm);
    }
    printf(" wall_total=%.3f cpu_total=%.3f", p.total_ms, c1 - c0);
    if (fusion) rc = run_fusion(&ctx, fusion);
    if (tree && rc == 0) rc = run_tree(&ctx, tree);
    long rss, hwm;
    mem_kb(&rss, &hwm);
    printf(" peak_rss_kb=%ld\n", hwm);
    if (layout) print_layout(&ctx);
  }
  if (rc != 0) {
    for (size_t i = 0; i < d.n; i++)
      fprintf(stderr, "tfxc_bench_passes: %s\n", d.items[i].msg);
  }
  tfx_ctx_free(&ctx);
  tfx_pipeline_free(&p);
  tfx_diag_clear(&d);
  return rc;
}
