/* LOAD group, pass "rules": the rule set of a run, compiled into one bytecode pack.
 * Stage: passes/LOAD (after "load"; its output is read by the scope-fusion and op-mapping
 * engines). Input: ctx->opts (-r paths, --no-stdlib, -W options, -v) and the embedded stdlib
 * (stdlib/stdlib_embed.h). Output: ctx->pack (have_pack). The same loader serves `tfxc
 * compile`, `tfxc list-rules` and `tfxc disasm` (tfx_rules_build_pack), so every command sees
 * the same rules in the same order.
 *
 * Load order: the -r paths in command-line order (a directory recursively, its rule files in
 * byte order of their paths), then the stdlib files (`<stdlib>/...`, byte order of names). The
 * first rule registered under a name wins; -v turns on -Woverride so every override is
 * reported. A -r path ending in .tfxb is a compiled pack: it is a complete rule set (the stdlib
 * it was compiled with included), so it must be the only -r path and no stdlib is added.
 * Op maps (and inner-node / fusion result types) are checked against the embedded CANN
 * prototype table (src/cann, <stdlib>/ops/cann-ops.tsv), with or without --no-stdlib. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cann/cann.h"
#include "passes/passes.h"
#include "rules/compile.h"
#include "rules/load.h"
#include "stdlib_embed.h"
#include "tfxc/tfxc.h"
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

/* Classifies the -r paths: missing ones are exit 3, other files exit 2, a pack mixed with
 * anything else exit 2. *pack gets the index of the pack path or -1. */
static int classify(const tfx_rules_spec *s, long *pack, tfx_diag *d) {
  *pack = -1;
  int rc = 0;
  size_t n_packs = 0;
  for (size_t i = 0; i < s->n_paths; i++) {
    const char *p = s->paths[i];
    struct stat st;
    if (stat(p, &st) != 0) {
      tfx_error(d, p, 0, 0, "cannot read rules: %s", strerror(errno));
      if (rc == 0) rc = TFX_EXIT_INPUT;
      continue;
    }
    if (S_ISDIR(st.st_mode)) continue;
    if (tfx_rules_path_is_pack(p)) {
      n_packs++;
      *pack = (long)i;
      continue;
    }
    if (!ends_with(p, ".scoperule") && !ends_with(p, ".opmap")) {
      tfx_error(d, NULL, 0, 0, "-r %s: not a rule directory, rule file (.scoperule, .opmap) or "
                "pack (.tfxb)", p);
      rc = TFX_EXIT_USAGE;
    }
  }
  if (n_packs && s->n_paths > 1) {
    tfx_error(d, NULL, 0, 0, "-r %s: a pack (.tfxb) holds a complete rule set and cannot be "
              "combined with other -r paths; compile them together with 'tfxc compile'",
              s->paths[*pack]);
    rc = TFX_EXIT_USAGE;
  }
  return rc;
}

static int is_rule_name(const char *name) {
  return ends_with(name, ".scoperule") || ends_with(name, ".opmap");
}

int tfx_rules_build_pack(const tfx_rules_spec *s, tfx_pack *out, tfx_diag *d) {
  tfx_pack_init(out);
  long pack;
  int rc = classify(s, &pack, d);
  if (rc != 0) return rc;
  if (pack >= 0) return tfx_pack_load_file(out, s->paths[pack], d);

  tfx_rules_options ro;
  tfx_rules_options_init(&ro);
  if (!(ro.protos = tfx_cann_stdlib_protos(d))) return TFX_EXIT_FAIL;
  if (s->verbose > 0) tfx_rules_warning_set(&ro.warnings, "override", 1);
  for (size_t i = 0; i < s->n_warn_opts; i++)
    if (tfx_rules_warning_option(&ro.warnings, s->warn_opts[i]) != 0) {
      tfx_error(d, NULL, 0, 0, "unknown warning option '%s'", s->warn_opts[i]);
      return TFX_EXIT_USAGE;
    }
  tfx_ruleset *rs = tfx_ruleset_new();
  if (!rs) {
    tfx_error(d, NULL, 0, 0, "out of memory loading rules");
    return TFX_EXIT_FAIL;
  }
  for (size_t i = 0; i < s->n_paths; i++) tfx_rules_load_path(rs, s->paths[i], d);
  if (!s->no_stdlib)
    for (unsigned i = 0; i < tfx_stdlib_count; i++) {
      const tfx_embedded_file *f = &tfx_stdlib_files[i];
      if (is_rule_name(f->name)) tfx_rules_load_buffer(rs, f->name, f->data, (size_t)f->len, d);
    }
  /* Checked even after load errors: every error of every file is reported in one run. */
  tfx_rules_check(rs, &ro, d);
  if (tfx_ruleset_errors(rs) > 0) {
    rc = TFX_EXIT_RULES;
  } else {
    rc = tfx_rules_compile(rs, out, d);
    if (rc != 0) {
      tfx_pack_free(out);
      if (rc != TFX_EXIT_FAIL) rc = TFX_EXIT_RULES;
    }
  }
  tfx_ruleset_free(rs);
  return rc;
}

/* Checks that every name of a comma list is a scope pass of the pack; option names the
 * option in messages. Returns 0 or TFX_EXIT_USAGE (reported, with the known names). */
static int check_scope_names(const tfx_pack *p, const char *list, const char *option,
                             tfx_diag *d) {
  int rc = 0;
  const char *s = list;
  for (;;) {
    const char *e = strchr(s, ',');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    int found = 0;
    for (uint32_t i = 0; i < p->n_rules && !found; i++) {
      const char *name = p->rules[i].kind == TFX_RULE_PASS ? tfx_pack_str(p, p->rules[i].name) : NULL;
      found = name && strlen(name) == n && memcmp(name, s, n) == 0;
    }
    if (!found) {
      tfx_strbuf known;
      tfx_sb_init(&known);
      for (uint32_t i = 0; i < p->n_rules; i++) {
        const char *name = p->rules[i].kind == TFX_RULE_PASS ? tfx_pack_str(p, p->rules[i].name) : NULL;
        if (!name) continue;
        tfx_sb_puts(&known, known.len ? ", " : "");
        tfx_sb_puts(&known, name);
      }
      tfx_error(d, NULL, 0, 0, "%s: unknown %spass '%.*s' (scope fusion passes of the loaded rules: %s)",
                option, strcmp(option, "--disable-pass") == 0 ? "" : "scope fusion ", (int)n, s,
                known.len ? tfx_sb_cstr(&known) : "none");
      tfx_sb_free(&known);
      rc = TFX_EXIT_USAGE;
    }
    if (!e) break;
    s = e + 1;
  }
  return rc;
}

int tfx_pass_rules(tfx_ctx *ctx, void *user) {
  (void)user;
  const tfx_options *o = ctx->opts;
  if (ctx->have_pack) tfx_pack_free(&ctx->pack);
  ctx->have_pack = 0;
  tfx_rules_spec s;
  memset(&s, 0, sizeof s);
  if (o) {
    s.paths = o->rule_paths;
    s.n_paths = o->n_rule_paths;
    s.no_stdlib = o->no_stdlib;
    s.warn_opts = o->warn_opts;
    s.n_warn_opts = o->n_warn_opts;
    s.verbose = o->verbose;
  }
  int rc = tfx_rules_build_pack(&s, &ctx->pack, ctx->diag);
  if (rc != 0) return rc;
  ctx->have_pack = 1;
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
