/* LOAD group, pass "rules": the rule set of a run, compiled into one bytecode pack.
 * Stage: passes/LOAD (after "load"; its output is read by the scope-fusion and op-mapping
 * engines). Input: ctx->opts (-r paths, --no-stdlib, -W options, -v) and the embedded stdlib
 * (stdlib/stdlib_embed.h). Output: ctx->pack (have_pack), ctx->protos / own_protos. The same
 * loader serves `tfxc compile`, `tfxc list-rules` and `tfxc disasm` (tfx_rules_build_pack), so
 * every command sees the same rules in the same order.
 *
 * Load order: the -r paths in command-line order (a directory recursively, its rule files in
 * byte order of their paths), then the stdlib files (`<stdlib>/...`, byte order of names). The
 * first rule registered under a name wins; -v turns on -Woverride so every override is
 * reported. A -r path ending in .tfxb is a compiled pack: it is a complete rule set (the stdlib
 * it was compiled with included), so it must be the only -r path (prototype files aside) and
 * no stdlib is added.
 * Op maps (and inner-node / fusion result types) are checked against the CANN prototype table
 * of the run: the user's prototype files (-r paths named *.cannops.tsv, and those found under
 * -r directories, same order as rule files) registered first-wins over the embedded table
 * (src/cann, <stdlib>/ops/cann-ops.tsv), which is always used, with or without --no-stdlib.
 * Malformed prototype files are rule errors (exit 4). The merged table becomes ctx->protos for
 * the op mapping and the lowering; a pack does not store prototypes, so prototype files may
 * be given next to a pack (the only -r paths a pack combines with).
 * Running out of memory anywhere here (reading, parsing, checking or compiling rules and
 * prototype files, loading a pack) is reported as "out of memory ..." and is TFX_E_NOMEM
 * (exit 1), never a rule error (exit 4) or a corrupt pack (exit 3). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cann/cann.h"
#include "passes/passes.h"
#include "passes/rules_protos.h"
#include "rules/compile.h"
#include "rules/load.h"
#include "stdlib_embed.h"
#include "stdlib_pack.h"
#include "util/status.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "vm/vm.h"

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

int tfx_rules_path_is_pack(const char *path) { return ends_with(path, ".tfxb"); }

int tfx_rules_check_warn_option(const char *opt) {
  tfx_rules_warnings w;
  tfx_rules_warnings_init(&w);
  return tfx_rules_warning_option(&w, opt);
}

int tfx_rules_buffer_is_pack(const tfx_rules_buffer *b) {
  return b->len >= 4 && memcmp(b->data, TFX_PACK_MAGIC, 4) == 0;
}

int tfx_rules_path_is_protos(const char *path) { return ends_with(path, TFX_RULES_PROTOS_SUFFIX); }
int tfx_rules_path_is_tfops(const char *path) { return ends_with(path, TFX_RULES_TFOPS_SUFFIX); }

/* Classifies the -r paths: missing ones are exit 3, other files exit 2, a pack mixed with
 * anything but prototype files exit 2. *pack gets the index of the pack path or -1. */
static int classify(const tfx_rules_spec *s, long *pack, tfx_diag *d) {
  *pack = -1;
  int rc = 0;
  size_t n_packs = 0, n_protos = 0;
  for (size_t i = 0; i < s->n_paths; i++) {
    const char *p = s->paths[i];
    struct stat st;
    if (stat(p, &st) != 0) {
      tfx_error(d, p, 0, 0, "cannot read rules: %s", strerror(errno));
      if (rc == 0) rc = TFX_E_INPUT;
      continue;
    }
    if (S_ISDIR(st.st_mode)) continue;
    if (tfx_rules_path_is_pack(p)) {
      n_packs++;
      *pack = (long)i;
      continue;
    }
    if (tfx_rules_path_is_protos(p) || tfx_rules_path_is_tfops(p)) {
      n_protos++;
      continue;
    }
    if (!ends_with(p, ".scoperule") && !ends_with(p, ".opmap")) {
      tfx_error(d, NULL, 0, 0, "-r %s: not a rule directory, rule file (.scoperule, .opmap), "
                "CANN prototype file (" TFX_RULES_PROTOS_SUFFIX "), TF op definitions ("
                TFX_RULES_TFOPS_SUFFIX ") or pack (.tfxb)", p);
      rc = TFX_E_USAGE;
    }
  }
  if (n_packs && s->n_paths > 1 + n_protos) {
    tfx_error(d, NULL, 0, 0, "-r %s: a pack (.tfxb) holds a complete rule set and cannot be "
              "combined with other -r paths (except CANN prototype files, " TFX_RULES_PROTOS_SUFFIX
              "); compile them together with 'tfxc compile'", s->paths[*pack]);
    rc = TFX_E_USAGE;
  }
  return rc;
}

/* ---------------------------------------------------------------- user prototypes */

typedef struct pathvec {
  char **v;
  size_t n, cap;
} pathvec;

static int pv_push(pathvec *pv, const char *s) {
  if (pv->n == pv->cap) {
    size_t cap = pv->cap ? pv->cap * 2 : 8;
    char **nv = tfx_realloc(pv->v, cap * sizeof *nv);
    if (!nv) return -1;
    pv->v = nv;
    pv->cap = cap;
  }
  size_t n = strlen(s);
  char *c = tfx_malloc(n + 1);
  if (!c) return -1;
  memcpy(c, s, n + 1);
  pv->v[pv->n++] = c;
  return 0;
}

static void pv_free(pathvec *pv) {
  for (size_t i = 0; i < pv->n; i++) free(pv->v[i]);
  free(pv->v);
  memset(pv, 0, sizeof *pv);
}

static int cmp_paths(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

#define PROTOS_MAX_DIR_DEPTH 64 /* as the rule loader's directory walk (rules/load.c) */

/* Appends every regular *.cannops.tsv file under dir to out (unsorted), following symbolic
 * links like the rule loader. A directory that cannot be read or is nested too deeply is
 * skipped silently: the rule loader walks the same tree and reports it (a rule error). Returns
 * 0 or -2 (out of memory). */
static int walk_protos_as(const char *dir, int depth, pathvec *out, int (*want)(const char *));
static int walk_protos(const char *dir, int depth, pathvec *out) {
  return walk_protos_as(dir, depth, out, tfx_rules_path_is_protos);
}
static int walk_protos_as(const char *dir, int depth, pathvec *out, int (*want)(const char *)) {
  if (depth > PROTOS_MAX_DIR_DEPTH) return 0;
  DIR *dh = opendir(dir);
  if (!dh) return 0;
  int rc = 0;
  tfx_strbuf p;
  tfx_sb_init(&p);
  struct dirent *e;
  while (rc != -2 && (e = readdir(dh))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    tfx_sb_reset(&p);
    tfx_sb_puts(&p, dir);
    if (p.len && p.data[p.len - 1] != '/') tfx_sb_putc(&p, '/');
    tfx_sb_puts(&p, e->d_name);
    if (p.oom) {
      rc = -2;
      break;
    }
    struct stat st;
    if (stat(tfx_sb_cstr(&p), &st) != 0) continue; /* a dangling link */
    if (S_ISDIR(st.st_mode)) {
      rc = walk_protos_as(tfx_sb_cstr(&p), depth + 1, out, want);
    } else if (S_ISREG(st.st_mode) && want(e->d_name)) {
      if (pv_push(out, tfx_sb_cstr(&p)) != 0) rc = -2;
    }
  }
  closedir(dh);
  tfx_sb_free(&p);
  return rc;
}

#define PROTOS_MAX_FILE (64u << 20)

/* Loads the CANN prototype files of the -r paths (a *.cannops.tsv path, and every one under
 * a directory, in byte order of its path) in -r order into a new table, over the stdlib's.
 * *out stays NULL when there is none. Returns 0, TFX_E_RULES (malformed or unreadable
 * files, override errors: all reported; *out holds what could be read), TFX_E_NOMEM
 * (out of memory) or TFX_E_FAIL (the stdlib's table cannot be loaded), reported. */
static tfx_status load_protos(const tfx_rules_spec *s, tfx_cann_override ov, tfx_cann_table **out,
                              tfx_diag *d) {
  *out = NULL;
  pathvec files = {0};
  int bad = 0;
  for (size_t i = 0; i < s->n_paths; i++) {
    const char *p = s->paths[i];
    if (tfx_is_dir(p)) {
      size_t first = files.n;
      if (walk_protos(p, 0, &files) != 0) goto oom;
      if (files.n - first > 1) qsort(files.v + first, files.n - first, sizeof *files.v, cmp_paths);
    } else if (tfx_rules_path_is_protos(p)) {
      if (pv_push(&files, p) != 0) goto oom;
    }
  }
  if (!files.n) {
    pv_free(&files);
    return 0;
  }
  const tfx_cann_table *std = tfx_cann_stdlib(d);
  tfx_cann_table *t = std ? tfx_malloc(sizeof *t) : NULL;
  if (!t) {
    pv_free(&files);
    if (std) tfx_error(d, NULL, 0, 0, "out of memory loading CANN prototypes");
    return std ? TFX_E_NOMEM : TFX_E_FAIL;
  }
  tfx_cann_init(t);
  int rc = 0;
  for (size_t i = 0; i < files.n && rc != TFX_E_NOMEM; i++) {
    size_t len;
    tfx_status st;
    char *text = tfx_read_file_st(files.v[i], PROTOS_MAX_FILE, NULL, &len, &st, d);
    if (!text) {
      if (st == TFX_E_NOMEM) rc = st; /* a resource failure, not a malformed file */
      bad = 1;
      continue;
    }
    tfx_status r = tfx_cann_add(t, text, len, files.v[i], ov, d);
    free(text);
    if (r == TFX_E_NOMEM) rc = r;
    else if (r != 0) bad = 1;
  }
  pv_free(&files);
  if (rc == 0) {
    tfx_status r = tfx_cann_add_base(t, std, ov, d);
    if (r == TFX_E_NOMEM) rc = r;
    else if (r != 0) bad = 1;
  }
  if (rc != 0) {
    tfx_rules_protos_free(t);
    return rc;
  }
  *out = t;
  return bad ? TFX_E_RULES : 0;
oom:
  pv_free(&files);
  tfx_error(d, NULL, 0, 0, "out of memory listing CANN prototype files");
  return TFX_E_NOMEM;
}

/* ---------------------------------------------------------------- user TF op definitions */

typedef struct tfops_set {
  tfx_tf_table **t;
  uint32_t n;
} tfops_set;

static void tfops_free(tfops_set *u) {
  for (uint32_t i = 0; i < u->n; i++) {
    tfx_tf_ops_free(u->t[i]);
    free(u->t[i]);
  }
  free(u->t);
  memset(u, 0, sizeof *u);
}

/* Loads the TF op definition files of the -r paths (a *.tfops.tsv path, and every one under a
 * directory, in byte order of its path), each into its own table, in -r order. Returns 0,
 * TFX_E_RULES (malformed or unreadable files: all reported) or TFX_E_NOMEM (out of
 * memory, reported). */
static tfx_status load_tfops(const tfx_rules_spec *s, tfops_set *u, tfx_diag *d) {
  memset(u, 0, sizeof *u);
  pathvec files = {0};
  int bad = 0, rc = 0;
  for (size_t i = 0; i < s->n_paths; i++) {
    const char *p = s->paths[i];
    if (tfx_is_dir(p)) {
      size_t first = files.n;
      if (walk_protos_as(p, 0, &files, tfx_rules_path_is_tfops) != 0) goto oom;
      if (files.n - first > 1) qsort(files.v + first, files.n - first, sizeof *files.v, cmp_paths);
    } else if (tfx_rules_path_is_tfops(p)) {
      if (pv_push(&files, p) != 0) goto oom;
    }
  }
  if (files.n && !(u->t = tfx_calloc(files.n, sizeof *u->t))) goto oom;
  for (size_t i = 0; i < files.n && rc == 0; i++) {
    size_t len;
    char *text = tfx_read_file(files.v[i], PROTOS_MAX_FILE, &len, d);
    if (!text) {
      bad = 1;
      continue;
    }
    tfx_tf_table *t = tfx_calloc(1, sizeof *t);
    if (!t) {
      free(text);
      goto oom;
    }
    u->t[u->n++] = t;
    tfx_status r = tfx_tf_ops_load(t, text, len, files.v[i], d);
    free(text);
    if (r == TFX_E_NOMEM) rc = r;
    else if (r != 0) bad = 1;
  }
  pv_free(&files);
  if (rc) return rc;
  return bad ? TFX_E_RULES : 0;
oom:
  pv_free(&files);
  tfx_error(d, NULL, 0, 0, "out of memory loading TF op definitions");
  return TFX_E_NOMEM;
}

void tfx_rules_protos_free(tfx_cann_table *t) {
  if (!t) return;
  tfx_cann_free(t);
  free(t);
}

static int is_rule_name(const char *name) {
  return ends_with(name, ".scoperule") || ends_with(name, ".opmap");
}

/* 1 when the run's rules are the stdlib alone and the embedded pack (stdlib/stdlib_pack.h)
 * gives what a compile of the sources would, diagnostics included: a compile that reports
 * nothing under the run's warning options (the build step records whether the stdlib compiles
 * silently by default and with -Wall). */
static int use_stdlib_pack(const tfx_rules_spec *s) {
  if (s->n_paths || s->n_buffers || s->no_stdlib || s->stdlib_from_source || !tfx_stdlib_pack_size) return 0;
  if (tfx_stdlib_pack_flags & TFX_STDLIB_PACK_CLEAN_ALL) return 1;
  return (tfx_stdlib_pack_flags & TFX_STDLIB_PACK_CLEAN_DEFAULT) && !s->n_warn_opts && s->verbose <= 0;
}

int tfx_rules_build(const tfx_rules_spec *s, tfx_pack *out, tfx_cann_table **protos,
                    tfx_diag *d) {
  tfx_pack_init(out);
  if (protos) *protos = NULL;
  long pack;
  int rc = classify(s, &pack, d);
  if (rc != 0) return rc;

  tfx_rules_options ro;
  tfx_rules_options_init(&ro);
  if (s->verbose > 0) tfx_rules_warning_set(&ro.warnings, "override", 1);
  for (size_t i = 0; i < s->n_warn_opts; i++)
    if (tfx_rules_warning_option(&ro.warnings, s->warn_opts[i]) != 0) {
      tfx_error(d, NULL, 0, 0, "unknown warning option '%s'", s->warn_opts[i]);
      return TFX_E_USAGE;
    }
  const tfx_rules_warnings *w = &ro.warnings;
  tfx_cann_override ov = !(w->enabled & (1u << TFX_RULES_W_OVERRIDE)) ? TFX_CANN_OV_QUIET
                         : w->werror || (w->as_error & (1u << TFX_RULES_W_OVERRIDE))
                             ? TFX_CANN_OV_ERROR : TFX_CANN_OV_WARN;
  /* User prototypes first: the rules are checked against them. Their errors do not stop the
   * load, so that every error of every file is reported in one run. */
  tfx_cann_table *user = NULL;
  int prc = load_protos(s, ov, &user, d);
  if (prc == TFX_E_NOMEM || prc == TFX_E_FAIL) return prc;

  const tfx_rules_buffer *pack_buf =
      s->n_buffers == 1 && tfx_rules_buffer_is_pack(&s->buffers[0]) ? &s->buffers[0] : NULL;
  if (s->n_paths == 0 && s->n_buffers == 0 && use_stdlib_pack(s)) {
    /* The stdlib alone, compiled at build time: loaded and verified as any pack. */
    rc = tfx_pack_load_builtin(out, tfx_stdlib_pack, (size_t)tfx_stdlib_pack_size, "<stdlib>", d);
  } else if (pack >= 0 || pack_buf) {
    rc = pack_buf ? tfx_pack_load(out, pack_buf->data, pack_buf->len, pack_buf->name, d)
                  : tfx_pack_load_file(out, s->paths[pack], d);
    if (rc == 0 && prc != 0) {
      tfx_pack_free(out);
      rc = prc;
    }
  } else {
    tfx_cann_protos *view = NULL;
    if (user) {
      if (!(view = tfx_cann_protos_merged(user, d))) {
        tfx_rules_protos_free(user);
        return TFX_E_FAIL;
      }
      ro.protos = tfx_cann_protos_hook(view);
    } else if (!(ro.protos = tfx_cann_stdlib_protos(d))) {
      return TFX_E_FAIL;
    }
    /* -Wunknown-tf-op, -Wunknown-tf-attr: the user's TF op definitions over the stdlib's */
    tfops_set tfu;
    int trc = load_tfops(s, &tfu, d);
    tfx_status vst = trc; /* NOMEM: the user tables ran out of memory (reported) */
    tfx_tf_view *tfv = trc == TFX_E_NOMEM ? NULL
                       : tfx_tf_view_new((const tfx_tf_table *const *)tfu.t, tfu.n, &vst, d);
    if (!tfv) {
      tfops_free(&tfu);
      tfx_cann_protos_free(view);
      tfx_rules_protos_free(user);
      return vst;
    }
    if (trc != 0 && prc == 0) prc = trc; /* malformed definition files are rule errors */
    ro.tfops = tfx_tf_view_hook(tfv);
    tfx_ruleset *rs = tfx_ruleset_new();
    if (!rs) {
      tfx_tf_view_free(tfv);
      tfops_free(&tfu);
      tfx_cann_protos_free(view);
      tfx_rules_protos_free(user);
      tfx_error(d, NULL, 0, 0, "out of memory loading rules");
      return TFX_E_NOMEM;
    }
    tfx_ruleset_set_max_depth(rs, s->max_rule_depth); /* --limit rule-depth: -r sources only */
    for (size_t i = 0; i < s->n_paths; i++) /* prototype files were loaded above */
      if ((!tfx_rules_path_is_protos(s->paths[i]) && !tfx_rules_path_is_tfops(s->paths[i])) ||
          tfx_is_dir(s->paths[i]))
        tfx_rules_load_path(rs, s->paths[i], d);
    for (size_t i = 0; i < s->n_buffers; i++)
      tfx_rules_load_buffer(rs, s->buffers[i].name, s->buffers[i].data, s->buffers[i].len, d);
    tfx_ruleset_set_max_depth(rs, 0);
    if (!s->no_stdlib)
      for (unsigned i = 0; i < tfx_stdlib_count; i++) {
        const tfx_embedded_file *f = &tfx_stdlib_files[i];
        if (is_rule_name(f->name)) tfx_rules_load_buffer(rs, f->name, f->data, (size_t)f->len, d);
      }
    /* Checked even after load errors: every error of every file is reported in one run. */
    tfx_rules_check(rs, &ro, d);
    if (tfx_ruleset_oom(rs)) { /* reported: out of memory is exit 1, not a rule error */
      rc = TFX_E_NOMEM;
    } else if (tfx_ruleset_errors(rs) > 0 || prc != 0) {
      rc = TFX_E_RULES;
    } else {
      rc = tfx_rules_compile(rs, out, d);
      if (rc != 0) {
        tfx_pack_free(out);
        if (rc != TFX_E_FAIL && rc != TFX_E_NOMEM) rc = TFX_E_RULES;
      }
    }
    tfx_ruleset_free(rs);
    tfx_tf_view_free(tfv);
    tfops_free(&tfu);
    tfx_cann_protos_free(view);
  }
  if (rc == 0 && protos) *protos = user;
  else tfx_rules_protos_free(user);
  return rc;
}

int tfx_rules_build_pack(const tfx_rules_spec *s, tfx_pack *out, tfx_diag *d) {
  return tfx_rules_build(s, out, NULL, d);
}

/* Checks that every name of a comma list is a scope pass of the pack; option names the
 * option in messages. Returns 0 or TFX_E_USAGE (reported, with the known names). */
static int check_scope_names(const tfx_pack *p, const char *list, const char *option,
                             tfx_diag *d) {
  int rc = 0;
  const char *s = list;
  for (;;) {
    const char *e = strchr(s, ',');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    int found = 0;
    for (uint32_t i = 0; i < p->n_rules && !found; i++) {
      const char *name = p->rules[i].kind == TFX_RULE_PASS || p->rules[i].kind == TFX_RULE_FLOW ? tfx_pack_str(p, p->rules[i].name) : NULL;
      found = name && strlen(name) == n && memcmp(name, s, n) == 0;
    }
    if (!found) {
      tfx_strbuf known;
      tfx_sb_init(&known);
      for (uint32_t i = 0; i < p->n_rules; i++) {
        const char *name = p->rules[i].kind == TFX_RULE_PASS || p->rules[i].kind == TFX_RULE_FLOW ? tfx_pack_str(p, p->rules[i].name) : NULL;
        if (!name) continue;
        tfx_sb_puts(&known, known.len ? ", " : "");
        tfx_sb_puts(&known, name);
      }
      tfx_error(d, NULL, 0, 0, "%s: unknown %spass '%.*s' (scope fusion passes of the loaded rules: %s)",
                option, strcmp(option, "--disable-pass") == 0 ? "" : "scope fusion ", (int)n, s,
                known.len ? tfx_sb_cstr(&known) : "none");
      tfx_sb_free(&known);
      rc = TFX_E_USAGE;
    }
    if (!e) break;
    s = e + 1;
  }
  return rc;
}

void tfx_rules_spec_from_options(tfx_rules_spec *s, const tfx_options *o) {
  memset(s, 0, sizeof *s);
  if (!o) return;
  s->paths = o->rule_paths;
  s->n_paths = o->n_rule_paths;
  s->buffers = o->rule_buffers;
  s->n_buffers = o->n_rule_buffers;
  s->no_stdlib = o->no_stdlib;
  s->warn_opts = o->warn_opts;
  s->n_warn_opts = o->n_warn_opts;
  s->verbose = o->verbose;
  s->max_rule_depth = tfx_limit_uint(&o->limits, TFX_LIMIT_RULE_DEPTH);
}

tfx_status tfx_pass_rules(tfx_ctx *ctx, void *user) {
  (void)user;
  const tfx_options *o = ctx->opts;
  if (ctx->have_pack) tfx_pack_free(&ctx->pack);
  ctx->have_pack = 0;
  tfx_rules_spec s;
  tfx_rules_spec_from_options(&s, o);
  tfx_ctx_drop_mapping(ctx); /* it may refer to the prototype table replaced here */
  tfx_rules_protos_free(ctx->own_protos);
  ctx->own_protos = NULL;
  ctx->protos = NULL;
  int rc = tfx_rules_build(&s, &ctx->pack, &ctx->own_protos, ctx->diag);
  if (rc != 0) return rc;
  ctx->have_pack = 1;
  ctx->protos = ctx->own_protos; /* NULL: the stdlib table (tfx_ctx_protos) */
  if (o && o->enable_scope_passes)
    rc = check_scope_names(&ctx->pack, o->enable_scope_passes, "--enable-scope-fusion-passes",
                           ctx->diag);
  if (o && o->disable_rules) {
    int r2 = check_scope_names(&ctx->pack, o->disable_rules, "--disable-pass", ctx->diag);
    if (rc == 0) rc = r2;
  }
  return rc;
}

void tfx_ctx_setup_vm(const tfx_ctx *ctx, tfx_vm *vm) {
  const tfx_options *o = ctx->opts;
  if (!o || !vm) return;
  tfx_vm_set_budget(vm, o->vm_budget, 0);
  if (o->trace && o->trace_fn) tfx_vm_set_trace(vm, o->trace_fn, o->trace_user);
}
