/* The public API (include/tfxc/tfxc.h): a session around the pass pipeline.
 * Stage: api. Input: options, rule sources and a model (paths or copies of the caller's
 * bytes). Output: the pipeline run (the convert command, src/cli/cmd_convert.c, is a client)
 * stopping before the EMIT group: outputs are serialized on demand by the same emitters the
 * emit passes use, so they are byte-identical to the command's files; or, with the option
 * write-outputs, through the EMIT group, which writes them as the command asks (the lowering
 * then streams a lone .air straight into its bytes: src/passes/pass_lower.c). Diagnostics are
 * collected per call, then handed to the caller's handler. Nothing here prints or exits, and
 * the session holds all of its state (the stdlib tables it shares are built once and never
 * change: src/cann). */
#define _POSIX_C_SOURCE 200809L
#define TFXC_BUILDING_LIBRARY 1
#include "tfxc/tfxc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "api/tools_int.h"
#include "ge/ge.h"
#include "graph/prune.h"
#include "io/pbtxt.h"
#include "util/arena.h"
#include "util/fileio.h"
#include "util/status.h"

typedef struct strvec {
  char **v;
  size_t n, cap;
} strvec;

struct tfxc_session {
  tfx_diag diag;
  tfxc_diagnostic_fn diag_fn;
  void *diag_user;
  char *errmsg;           /* last error, "" when none */

  /* options (owned copies; o's strings point at them) */
  tfx_options o;
  char *tag, *input_shape, *out_nodes, *input_format, *disable, *enable_scope;
  char *signature, *checkpoint;
  char *usage_cmd;        /* "usage-command": explain's usage errors name it (NULL: none) */
  char *output;           /* "output": the -o of the files a run writes (NULL: none) */
  char *dump_after, *dump_dir; /* "dump-after", "dump-dir" */
  int write_outputs;      /* "write-outputs": the run writes the "emit" kinds (EMIT group) */
  tfxc_trace_fn trace_fn; /* tfxc_set_trace_handler (NULL: no trace) */
  void *trace_user;
  unsigned emit_mask;     /* "emit"; 0 = air */
  int check_only;
  strvec warns;           /* "-W..." */
  strvec rule_paths;
  tfx_rules_buffer *bufs; /* data owned */
  size_t n_bufs, cap_bufs;

  /* the model */
  char *model_name;       /* path, or the name of a buffer */
  void *model_data;       /* NULL: model_name is a path */
  size_t model_len;

  /* the last run */
  tfx_pipeline p;
  tfx_ctx ctx;
  int ran;                /* a run happened (ctx holds its results) */
  int run_rc;             /* its status (tfx_status, util/status.h) */
  int wrote;              /* it wrote the outputs (write-outputs; pass emit-tf ran) */
  size_t run_dropped_errors, run_dropped_warnings; /* counted, past the 1000 handed over */
  char *dis_pipe, *dis_rules;
  char *out_paths[TFX_EMIT__COUNT]; /* the files the run writes (write-outputs) */
  tfx_api_progress progress; /* tfxc_set_progress_handler */
};

/* ---------------------------------------------------------------- status and diagnostics */

const char *tfxc_version(void) { return TFXC_VERSION; }

const char *tfxc_status_name(tfxc_status st) {
  switch (st) {
  case TFXC_OK: return "ok";
  case TFXC_FAILED: return "failed";
  case TFXC_MISUSE: return "misuse";
  case TFXC_INPUT: return "input";
  case TFXC_RULES: return "rules";
  case TFXC_NOMEM: return "nomem";
  }
  return "unknown";
}

int tfxc_status_exit_code(tfxc_status st) { return tfx_status_exit_code((tfx_status)st); }

/* The public record of an internal diagnostic (its strings are borrowed from it). */
tfxc_diagnostic tfx_api_diagnostic(const tfx_diag_item *it) {
  tfxc_diagnostic dg;
  dg.severity = it->sev == TFX_SEV_ERROR     ? TFXC_SEV_ERROR
                : it->sev == TFX_SEV_WARNING ? TFXC_SEV_WARNING
                                             : TFXC_SEV_NOTE;
  dg.file = it->file;
  dg.line = it->line;
  dg.column = it->col;
  dg.message = it->msg ? it->msg : "(out of memory)";
  dg.rule = it->source_line;
  dg.span = it->span;
  return dg;
}

/* Hands the call's diagnostics to the handler, keeps the text of the error that explains st,
 * clears the list. That error is the last one, except when st is TFXC_NOMEM: the allocation
 * that failed reports first and whatever follows is its consequence (the VM naming the rule
 * whose host callback gave up, a caller adding context), so the first error is kept. The
 * status alone decides (util/status.h); no message text is inspected. Returns st. */
static tfxc_status finish(tfxc_session *s, tfxc_status st) {
  const tfx_diag_item *last_err = NULL;
  for (size_t i = 0; i < s->diag.n; i++) {
    const tfx_diag_item *it = &s->diag.items[i];
    if (it->sev == TFX_SEV_ERROR && (!last_err || st != TFXC_NOMEM)) last_err = it;
    if (!s->diag_fn) continue;
    tfxc_diagnostic dg = tfx_api_diagnostic(it);
    s->diag_fn(s->diag_user, &dg);
  }
  /* an error past the recorded ones (max_items) explains the status better than an earlier one */
  if (st != TFXC_NOMEM && s->diag.last_dropped_error.msg) last_err = &s->diag.last_dropped_error;
  if (st != TFXC_OK) {
    free(s->errmsg);
    s->errmsg = NULL;
    tfx_strbuf b;
    tfx_sb_init(&b);
    if (last_err) {
      if (last_err->file && last_err->line && last_err->col)
        tfx_sb_printf(&b, "%s:%u:%u: ", last_err->file, last_err->line, last_err->col);
      else if (last_err->file && last_err->line)
        tfx_sb_printf(&b, "%s:%u: ", last_err->file, last_err->line);
      else if (last_err->file)
        tfx_sb_printf(&b, "%s: ", last_err->file);
      tfx_sb_puts(&b, last_err->msg ? last_err->msg : "out of memory");
    } else if (st == TFXC_NOMEM) {
      tfx_sb_puts(&b, "out of memory");
    }
    if (!b.oom) s->errmsg = strdup(tfx_sb_cstr(&b));
    tfx_sb_free(&b);
  }
  tfx_diag_clear(&s->diag);
  return st;
}

void tfxc_set_diagnostic_handler(tfxc_session *s, tfxc_diagnostic_fn fn, void *user) {
  if (!s) return;
  s->diag_fn = fn;
  s->diag_user = user;
}

const char *tfxc_errmsg(const tfxc_session *s) {
  if (!s) return "no session";
  return s->errmsg ? s->errmsg : "";
}

/* ---------------------------------------------------------------- lifetime */

tfxc_status tfxc_open(tfxc_session **out) {
  if (!out) return TFXC_MISUSE;
  *out = NULL;
  tfxc_session *s = tfx_calloc(1, sizeof *s);
  if (!s) return TFXC_NOMEM;
  tfx_diag_init(&s->diag);
  tfx_pipeline_init(&s->p);
  tfx_ctx_init(&s->ctx, &s->o, &s->diag);
  *out = s;
  return TFXC_OK;
}

static void strvec_free(strvec *v) {
  for (size_t i = 0; i < v->n; i++) free(v->v[i]);
  free(v->v);
  memset(v, 0, sizeof *v);
}

/* Appends a copy of str. Returns 0 or -1 (out of memory). */
static int strvec_push(strvec *v, const char *str) {
  if (v->n == v->cap) {
    size_t nc = v->cap ? v->cap * 2 : 8;
    char **nv = tfx_realloc(v->v, nc * sizeof *nv);
    if (!nv) return -1;
    v->v = nv;
    v->cap = nc;
  }
  char *c = strdup(str);
  if (!c) return -1;
  v->v[v->n++] = c;
  return 0;
}

static void drop_run(tfxc_session *s) {
  tfx_ctx_free(&s->ctx);
  tfx_ctx_init(&s->ctx, &s->o, &s->diag);
  tfx_pipeline_free(&s->p);
  tfx_pipeline_init(&s->p);
  free(s->dis_pipe);
  free(s->dis_rules);
  s->dis_pipe = s->dis_rules = NULL;
  for (int k = 0; k < TFX_EMIT__COUNT; k++) {
    free(s->out_paths[k]);
    s->out_paths[k] = NULL;
  }
  s->ran = 0;
  s->run_dropped_errors = s->run_dropped_warnings = 0;
  s->run_rc = 0;
  s->wrote = 0;
}

void tfxc_close(tfxc_session *s) {
  if (!s) return;
  drop_run(s);
  tfx_ctx_free(&s->ctx);
  tfx_pipeline_free(&s->p);
  free(s->tag);
  free(s->input_shape);
  free(s->out_nodes);
  free(s->input_format);
  free(s->disable);
  free(s->enable_scope);
  free(s->signature);
  free(s->checkpoint);
  free(s->usage_cmd);
  free(s->output);
  free(s->dump_after);
  free(s->dump_dir);
  strvec_free(&s->warns);
  strvec_free(&s->rule_paths);
  for (size_t i = 0; i < s->n_bufs; i++) {
    free((void *)s->bufs[i].name);
    free((void *)s->bufs[i].data);
  }
  free(s->bufs);
  free(s->model_name);
  free(s->model_data);
  free(s->errmsg);
  tfx_diag_free(&s->diag);
  free(s);
}

void tfxc_free(void *p) { free(p); }

void tfxc_set_progress_handler(tfxc_session *s, tfxc_progress_fn fn, void *user) {
  if (!s) return;
  s->progress.fn = fn;
  s->progress.user = user;
}

void tfxc_set_trace_handler(tfxc_session *s, tfxc_trace_fn fn, void *user) {
  if (!s) return;
  s->trace_fn = fn;
  s->trace_user = user;
}

/* ---------------------------------------------------------------- options */

/* Replaces *slot with a copy of value. Returns 0 or -1 (out of memory). */
static int set_str(char **slot, const char *value) {
  char *c = strdup(value);
  if (!c) return -1;
  free(*slot);
  *slot = c;
  return 0;
}

/* "1"/"true"/"yes"/"on" -> 1, "0"/"false"/"no"/"off" -> 0, else -1. */
static int parse_flag(const char *v) {
  static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no", "off"};
  for (size_t i = 0; i < 4; i++) {
    if (strcmp(v, yes[i]) == 0) return 1;
    if (strcmp(v, no[i]) == 0) return 0;
  }
  return -1;
}

/* Reports a misuse (an error message) and finishes the call with TFXC_MISUSE. */
static tfxc_status bad(tfxc_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static tfxc_status bad(tfxc_session *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tfx_diag_addv(&s->diag, TFX_SEV_ERROR, NULL, 0, 0, fmt, ap);
  va_end(ap);
  return finish(s, TFXC_MISUSE);
}

static const char *const option_names[] = {
  "tag", "input-shape", "out-nodes", "input-format", "emit", "disable-pass",
  "enable-scope-fusion-passes", "vm-budget", "passthrough-unknown", "check", "no-stdlib",
  "max-file-size", "limit", "W", "verbose", "signature", "checkpoint", "no-freeze",
  "allow-dangling-inputs", "usage-command", "output", "write-outputs", "dump-after",
  "dump-dir", "no-report", "jobs",
};

tfxc_status tfxc_set_option(tfxc_session *s, const char *name, const char *value) {
  if (!s) return TFXC_MISUSE;
  if (!name || !value) return bad(s, "tfxc_set_option: %s", !name ? "no option name" : "no value");
  tfx_diag *d = &s->diag;
  int oom = 0;
  int flag = parse_flag(value);
  if (strcmp(name, "tag") == 0) {
    oom = set_str(&s->tag, value);
  } else if (strcmp(name, "input-shape") == 0 || strcmp(name, "out-nodes") == 0) {
    int shape = name[0] == 'i';
    /* syntax only (the shared option parser); the names are checked by the prune pass */
    int rc = tfx_api_check_prune_options(shape ? value : NULL, shape ? NULL : value, NULL, d);
    if (rc == TFX_EXIT_USAGE) return finish(s, TFXC_MISUSE);
    if (rc) return finish(s, tfx_api_status_from_rc(rc));
    oom = set_str(shape ? &s->input_shape : &s->out_nodes, value);
  } else if (strcmp(name, "signature") == 0 || strcmp(name, "checkpoint") == 0) {
    /* an empty signature is the run's error ("the model has no signature ''"), as the command's */
    if (!*value && name[0] == 'c') return bad(s, "--%s: empty value", name);
    oom = set_str(name[0] == 's' ? &s->signature : &s->checkpoint, value);
  } else if (strcmp(name, "no-freeze") == 0 || strcmp(name, "allow-dangling-inputs") == 0 ||
             strcmp(name, "no-report") == 0) {
    if (flag < 0) return bad(s, "--%s: '%s' is not a flag value (1/0, true/false, yes/no, on/off)", name, value);
    if (name[0] == 'a') s->o.allow_dangling_inputs = flag;
    else if (name[3] == 'f') s->o.no_freeze = flag;
    else s->o.no_report = flag;
  } else if (strcmp(name, "input-format") == 0) {
    if (tfx_api_opt_input_format(value, NULL, d) != 0) return finish(s, TFXC_MISUSE);
    oom = set_str(&s->input_format, value);
  } else if (strcmp(name, "emit") == 0) {
    unsigned mask;
    int r = tfx_api_parse_emit(value, &mask, d);
    if (r) return finish(s, r == -2 ? TFXC_NOMEM : TFXC_MISUSE);
    s->emit_mask = mask;
  } else if (strcmp(name, "disable-pass") == 0 ||
             strcmp(name, "enable-scope-fusion-passes") == 0) {
    if (tfx_api_opt_list(name, value, NULL, d) != 0) return finish(s, TFXC_MISUSE);
    oom = set_str(name[0] == 'd' ? &s->disable : &s->enable_scope, value);
  } else if (strcmp(name, "vm-budget") == 0) {
    if (tfx_api_opt_vm_budget(value, NULL, &s->o.vm_budget, d) != 0) return finish(s, TFXC_MISUSE);
  } else if (strcmp(name, "jobs") == 0) {
    if (tfx_api_opt_jobs(value, NULL, &s->o.jobs, d) != 0) return finish(s, TFXC_MISUSE);
  } else if (strcmp(name, "passthrough-unknown") == 0 || strcmp(name, "check") == 0 ||
             strcmp(name, "no-stdlib") == 0) {
    if (flag < 0) return bad(s, "--%s: '%s' is not a flag value (1/0, true/false, yes/no, on/off)", name, value);
    if (name[0] == 'p') s->o.passthrough_unknown = flag;
    else if (name[0] == 'c') s->check_only = flag;
    else s->o.no_stdlib = flag;
  } else if (strcmp(name, "max-file-size") == 0) {
    if (tfx_api_opt_max_file_size(value, NULL, &s->o.max_file_size, d) != 0)
      return finish(s, TFXC_MISUSE);
  } else if (strcmp(name, "limit") == 0) {
    int r = tfx_api_parse_limit(value, NULL, &s->o.limits, &s->o.max_file_size, &s->o.vm_budget, d);
    if (r) return finish(s, r == -2 ? TFXC_NOMEM : TFXC_MISUSE);
  } else if (strcmp(name, "W") == 0) {
    char *opt;
    int r = tfx_api_opt_warn(value, NULL, &opt, d);
    if (r) return finish(s, r == -2 ? TFXC_NOMEM : TFXC_MISUSE);
    oom = strvec_push(&s->warns, opt);
    free(opt);
  } else if (strcmp(name, "output") == 0 || strcmp(name, "dump-after") == 0 ||
             strcmp(name, "dump-dir") == 0) {
    /* the pass names of dump-after are checked by the run; "" dump-dir: the current one */
    if (!*value && name[0] == 'o') return bad(s, "--%s: empty value", name);
    oom = set_str(name[0] == 'o' ? &s->output : name[5] == 'a' ? &s->dump_after : &s->dump_dir,
                  value);
  } else if (strcmp(name, "write-outputs") == 0) {
    if (flag < 0) return bad(s, "--%s: '%s' is not a flag value (1/0, true/false, yes/no, on/off)", name, value);
    s->write_outputs = flag;
  } else if (strcmp(name, "usage-command") == 0) {
    if (!*value) return bad(s, "--%s: empty value", name);
    oom = set_str(&s->usage_cmd, value);
  } else if (strcmp(name, "verbose") == 0) {
    unsigned n;
    if (strcmp(value, "-1") == 0) s->o.verbose = -1;
    else if (tfx_api_parse_uint(value, &n) == 0 && n <= 16) s->o.verbose = (int)n;
    else return bad(s, "--verbose: '%s' is not a level from -1 to 16", value);
  } else {
    const char *hint = tfx_pipeline_closest(name, option_names,
                                            sizeof option_names / sizeof option_names[0]);
    tfx_error(d, NULL, 0, 0, "unknown option '%s'%s%s%s", name, hint ? "; did you mean '" : "",
              hint ? hint : "", hint ? "'?" : "");
    return finish(s, TFXC_MISUSE);
  }
  return finish(s, oom ? TFXC_NOMEM : TFXC_OK);
}

/* ---------------------------------------------------------------- rules and model */

tfxc_status tfxc_add_rules_path(tfxc_session *s, const char *path) {
  if (!s) return TFXC_MISUSE;
  if (!path) return bad(s, "tfxc_add_rules_path: %s", "no path"); /* "" fails at the run, as -r "" */
  return finish(s, strvec_push(&s->rule_paths, path) ? TFXC_NOMEM : TFXC_OK);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

tfxc_status tfxc_add_rules_buffer(tfxc_session *s, const char *name, const void *data,
                                  size_t len) {
  if (!s) return TFXC_MISUSE;
  if (!name || !*name || (!data && len)) return bad(s, "tfxc_add_rules_buffer: %s", "no name or data");
  tfx_rules_buffer b = {name, data ? data : "", len};
  int pack = tfx_rules_buffer_is_pack(&b);
  if (!pack && !ends_with(name, ".scoperule") && !ends_with(name, ".opmap"))
    return bad(s, "rules '%s': neither a pack (bytes starting TFXB) nor named as rule text "
               "(.scoperule, .opmap)", name);
  if (pack || (s->n_bufs && tfx_rules_buffer_is_pack(&s->bufs[0])))
    if (s->n_bufs)
      return bad(s, "rules '%s': a pack holds a complete rule set and cannot be combined with "
                 "other rules in memory", name);
  if (s->n_bufs == s->cap_bufs) {
    size_t nc = s->cap_bufs ? s->cap_bufs * 2 : 4;
    tfx_rules_buffer *nb = tfx_realloc(s->bufs, nc * sizeof *nb);
    if (!nb) return finish(s, TFXC_NOMEM);
    s->bufs = nb;
    s->cap_bufs = nc;
  }
  char *nm = strdup(name);
  void *copy = tfx_malloc(len);
  if (!nm || !copy) {
    free(nm);
    free(copy);
    return finish(s, TFXC_NOMEM);
  }
  if (len) memcpy(copy, data, len);
  s->bufs[s->n_bufs].name = nm;
  s->bufs[s->n_bufs].data = copy;
  s->bufs[s->n_bufs].len = len;
  s->n_bufs++;
  return finish(s, TFXC_OK);
}

tfxc_status tfxc_load_model_path(tfxc_session *s, const char *path) {
  if (!s) return TFXC_MISUSE;
  if (!path) return bad(s, "tfxc_load_model_path: %s", "no path"); /* "" fails at the run */
  char *c = strdup(path);
  if (!c) return finish(s, TFXC_NOMEM);
  drop_run(s); /* the results of a run refer to the old model */
  free(s->model_name);
  free(s->model_data);
  s->model_name = c;
  s->model_data = NULL;
  s->model_len = 0;
  return finish(s, TFXC_OK);
}

tfxc_status tfxc_load_model_buffer(tfxc_session *s, const char *name, const void *data,
                                   size_t len) {
  if (!s) return TFXC_MISUSE;
  if (!name || !*name || (!data && len)) return bad(s, "tfxc_load_model_buffer: %s", "no name or data");
  char *c = strdup(name);
  void *copy = tfx_malloc(len);
  if (!c || !copy) {
    free(c);
    free(copy);
    return finish(s, TFXC_NOMEM);
  }
  if (len) memcpy(copy, data, len);
  drop_run(s);
  free(s->model_name);
  free(s->model_data);
  s->model_name = c;
  s->model_data = copy;
  s->model_len = len;
  return finish(s, TFXC_OK);
}

/* The "load" pass for a model in memory (the builtin reads ctx->opts->model_path). */
static tfx_status load_buffer_pass(tfx_ctx *ctx, void *user) {
  tfxc_session *s = user;
  tfx_ctx_free(ctx); /* a fresh load invalidates any index or tree */
  const tfx_options *o = ctx->opts;
  tfx_load_opts lo = {0};
  lo.tag = o->tag;
  lo.max_depth = tfx_limit_uint(&o->limits, TFX_LIMIT_DEPTH);
  lo.max_string = tfx_limit_size(&o->limits, TFX_LIMIT_STRING);
  lo.max_list = tfx_limit_size(&o->limits, TFX_LIMIT_LIST);
  lo.jobs = o->jobs;
  size_t max = o->max_file_size ? o->max_file_size : (size_t)4 << 30; /* io's default */
  if (s->model_len > max) {
    tfx_error(ctx->diag, s->model_name, 0, 0, "model of %zu bytes is over the file-size limit "
              "(%zu); raise it with the option limit file-size=SIZE", s->model_len, max);
    return TFX_E_INPUT; /* the value of TFX_EXIT_INPUT */
  }
  int rc = tfx_io_load_model_buffer(s->model_data, s->model_len, s->model_name, &lo,
                                    &ctx->model, ctx->diag);
  if (rc != 0) return rc;
  ctx->have_model = 1;
  return 0;
}

/* ---------------------------------------------------------------- running */

/* Fills s->o from the session's options for a run. */
static void setup_options(tfxc_session *s) {
  tfx_options *o = &s->o;
  o->model_path = s->model_name;
  o->tag = s->tag;
  o->signature = s->signature;
  o->checkpoint = s->checkpoint;
  o->select_outputs = 1; /* signatures and training machinery (pass prune), as the CLI */
  o->input_shape = s->input_shape;
  o->out_nodes = s->out_nodes;
  o->input_format = s->input_format;
  o->disable = s->disable;
  o->enable_scope_passes = s->enable_scope;
  o->rule_paths = (const char *const *)s->rule_paths.v;
  o->n_rule_paths = s->rule_paths.n;
  o->rule_buffers = s->bufs;
  o->n_rule_buffers = s->n_bufs;
  o->warn_opts = (const char *const *)s->warns.v;
  o->n_warn_opts = s->warns.n;
  o->check_only = s->check_only;
  o->emit = s->check_only ? 0 : s->emit_mask ? s->emit_mask : 1u << TFX_EMIT_AIR;
  for (int k = 0; k < TFX_EMIT__COUNT; k++) o->out_path[k] = s->out_paths[k];
  o->disable_rules = NULL;
  o->dump_after = s->dump_after;
  o->dump_dir = s->dump_dir;
  o->time_passes = 0;
  o->trace = s->trace_fn != NULL;
  o->trace_fn = s->trace_fn;
  o->trace_user = s->trace_user;
}

/* Registers the passes of a run on p (empty) as the command line does: the model read from
 * memory when it was given as a buffer, --disable-pass split into pipeline passes and rule
 * passes (*dis_pipe, *dis_rules: malloc'ed, NULL without the option), the pipeline passes
 * switched off, the --dump-after names checked. Returns TFXC_OK, or TFXC_MISUSE / TFXC_NOMEM
 * (reported). */
static tfxc_status prepare_pipeline(tfxc_session *s, tfx_pipeline *p, char **dis_pipe,
                                    char **dis_rules) {
  tfx_diag *d = &s->diag;
  if (tfx_pass_register_builtin(p) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory registering passes");
    return TFXC_NOMEM;
  }
  if (s->model_data) {
    tfx_pass *lp = tfx_pipeline_find(p, "load");
    if (lp) {
      lp->run = load_buffer_pass;
      lp->user = s;
    }
  }
  if (s->disable && tfx_api_split_disable(p, s->disable, dis_pipe, dis_rules) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    return TFXC_NOMEM;
  }
  if ((*dis_pipe && **dis_pipe && tfx_pipeline_disable(p, *dis_pipe, d) != 0) ||
      (s->dump_after && tfx_pipeline_check_names(p, s->dump_after, 1, "--dump-after", d) != 0))
    return TFXC_MISUSE;
  if (*dis_rules && **dis_rules) {
    const tfx_pass *rp = tfx_pipeline_find(p, "rules");
    if (!rp || !rp->enabled) { /* no rules are loaded: nothing else can have these names */
      tfx_pipeline_check_names(p, *dis_rules, 0, "--disable-pass", d);
      return TFXC_MISUSE;
    }
  }
  return TFXC_OK;
}

/* The files a run with "write-outputs" writes, named as the command line names them (the
 * "-o has no extension" note is tfxc_output_name's). Returns TFXC_OK, TFXC_MISUSE or
 * TFXC_NOMEM (reported). */
static tfxc_status output_paths(tfxc_session *s, unsigned mask) {
  unsigned kinds = 0;
  for (int k = 0; k < TFX_EMIT__COUNT; k++) kinds += (mask >> k) & 1u;
  if (s->output && strcmp(s->output, "-") == 0 && kinds > 1) {
    tfx_error(&s->diag, NULL, 0, 0, "output '-' (standard output) takes a single emit kind "
              "(%u given)", kinds);
    return TFXC_MISUSE;
  }
  tfx_diag scratch;
  tfx_diag_init(&scratch);
  int rc = tfx_api_output_paths(s->model_name, s->output, mask, s->out_paths, &scratch);
  tfx_diag_free(&scratch);
  if (rc != 0) {
    tfx_error(&s->diag, NULL, 0, 0, "out of memory");
    return TFXC_NOMEM;
  }
  return TFXC_OK;
}

tfxc_status tfxc_run(tfxc_session *s, const char *last) {
  if (!s) return TFXC_MISUSE;
  tfx_diag *d = &s->diag;
  if (!s->model_name) {
    tfx_error(d, NULL, 0, 0, "no model given (tfxc_load_model_path / tfxc_load_model_buffer)");
    return finish(s, TFXC_MISUSE);
  }
  if (s->signature && s->out_nodes) /* the same checks as the CLI's */
    return bad(s, "--signature and --out-nodes both choose the outputs; give one");
  if (s->checkpoint && s->o.no_freeze) return bad(s, "--checkpoint and --no-freeze contradict each other");
  /* a run records the first 1000 diagnostics and counts the rest (tfxc_run_info): a model
   * can make one per node, and a caller that collects them counts what it does not show */
  s->diag.max_items = 0;
  drop_run(s);
  setup_options(s);
  tfx_pipeline *p = &s->p;
  tfx_api_progress_install(&s->progress, p, s->progress.fn, s->progress.user);
  tfxc_status st = prepare_pipeline(s, p, &s->dis_pipe, &s->dis_rules);
  int write = s->write_outputs && !s->check_only && !last;
  if (st == TFXC_OK && write) {
    st = output_paths(s, s->o.emit);
    setup_options(s); /* out_path[] */
  }
  if (st == TFXC_OK && s->dis_rules && *s->dis_rules) s->o.disable_rules = s->dis_rules;
  if (st != TFXC_OK) {
    s->diag.max_items = 0;
    return finish(s, st);
  }
  /* --check runs the lowering too (never the emitters); written outputs: the EMIT group */
  tfx_pass_group last_group = write ? TFX_GROUP_EMIT : TFX_GROUP_LOWERING;
  tfx_pipeline_sort(p);
  size_t stop = p->n; /* passes from here on are held back */
  if (last) {
    tfx_pass *lp = tfx_pipeline_find(p, last);
    if (!lp) {
      tfx_pipeline_check_names(p, last, 0, "tfxc_run", d);
      s->diag.max_items = 0;
      return finish(s, TFXC_MISUSE);
    }
    if (lp->group == TFX_GROUP_EMIT) {
      tfx_error(d, NULL, 0, 0, "tfxc_run: '%s' writes files; run through 'lowering' and take the "
                "outputs with tfxc_emit or tfxc_emit_file (or set the option write-outputs)", last);
      s->diag.max_items = 0;
      return finish(s, TFXC_MISUSE);
    }
    last_group = lp->group;
    stop = (size_t)(lp - p->passes) + 1;
  }
  int held[64];
  size_t n_held = 0;
  for (size_t i = stop; i < p->n && n_held < 64; i++) {
    held[n_held++] = p->passes[i].enabled;
    p->passes[i].enabled = 0;
  }
  int rc = tfx_pipeline_run(p, &s->ctx, last_group);
  for (size_t i = 0; i < n_held; i++) p->passes[stop + i].enabled = held[i];
  if (s->check_only && !last) {
    uint32_t nf; /* the command's verdict (src/api/convert_util.c) */
    rc = tfx_api_check_verdict(p, &s->ctx, rc, &nf, d);
    /* the failures grouped, as the command prints them (the report lists every node) */
    if (s->ctx.opmap) {
      nf = tfx_precheck_summary(&s->ctx, s->o.verbose > 0, NULL);
      if (nf)
        tfx_diag_add(d, TFX_SEV_NOTE, NULL, 0, 0, "%u node%s the precheck; the report lists "
                     "every node with the rule that handled it", nf, nf == 1 ? " fails" : "s fail");
    }
  }
  s->ran = 1;
  s->run_rc = rc;
  const tfx_pass *ep = tfx_pipeline_find(p, "emit-tf");
  s->wrote = write && ep && ep->ran;
  st = tfx_api_status_from_rc(rc);
  s->run_dropped_errors = s->diag.dropped_errors;
  s->run_dropped_warnings = s->diag.dropped_warnings;
  return finish(s, st);
}

tfxc_status tfxc_list_passes(tfxc_session *s, char **text, size_t *len) {
  if (!s) return TFXC_MISUSE;
  tfxc_status st0 = tfx_api_result_start(s, "tfxc_list_passes", (void **)text, len, 0);
  if (st0 != TFXC_OK) return st0;
  tfx_pipeline p;
  tfx_pipeline_init(&p);
  char *dis_pipe = NULL, *dis_rules = NULL;
  tfxc_status st = prepare_pipeline(s, &p, &dis_pipe, &dis_rules);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  if (st == TFXC_OK) {
    tfx_pipeline_list(&p, &sb);
    st = tfx_api_give(s, &sb, (void **)text, len);
  }
  tfx_pipeline_free(&p);
  free(dis_pipe);
  free(dis_rules);
  tfx_sb_free(&sb);
  return tfx_api_finish(s, st);
}

tfxc_status tfxc_pass_timing(tfxc_session *s, char **text, size_t *len) {
  if (!s) return TFXC_MISUSE;
  tfxc_status st0 = tfx_api_result_start(s, "tfxc_pass_timing", (void **)text, len, 0);
  if (st0 != TFXC_OK) return st0;
  if (!s->ran) return bad(s, "tfxc_pass_timing: %s", "no run yet (tfxc_run)");
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  tfx_pipeline_timing_table(&s->p, &sb);
  return tfx_api_finish(s, tfx_api_give(s, &sb, (void **)text, len));
}

tfxc_status tfxc_last_run(tfxc_session *s, tfxc_run_info *info) {
  if (!s) return TFXC_MISUSE;
  if (!info) return bad(s, "tfxc_last_run: %s", "no result pointer");
  memset(info, 0, sizeof *info);
  info->ran = s->ran;
  if (s->ran) {
    info->status = tfx_api_status_from_rc(s->run_rc);
    info->exit_code = tfx_status_exit_code((tfx_status)s->run_rc);
    info->mapped = s->ctx.opmap != NULL;
    info->fused = s->ctx.fusion_report != NULL;
    info->wrote = s->wrote;
    info->nodes_failed = s->ctx.opmap ? s->ctx.opmap->n_failed : 0;
    info->errors_not_reported = s->run_dropped_errors;
    info->warnings_not_reported = s->run_dropped_warnings;
  }
  return finish(s, TFXC_OK);
}

/* ---------------------------------------------------------------- outputs */

/* Serializes kind into sb. Returns a status (reported). */
static tfxc_status emit_into(tfxc_session *s, int k, tfx_strbuf *sb) {
  tfx_diag *d = &s->diag;
  tfx_ctx *ctx = &s->ctx;
  int rc = 0;
  if (k == TFX_EMIT_TF_PBTXT) {
    if (!ctx->have_model) {
      tfx_error(d, NULL, 0, 0, "tfxc_emit tf-pbtxt: no model loaded (run first)");
      return TFXC_MISUSE;
    }
    if (tfx_pbtxt_print(&ctx->model.graph->base, sb) != 0) sb->oom = 1;
  } else {
    if (ctx->ge && !ctx->ge->model && s->wrote) {
      tfx_error(d, NULL, 0, 0, "tfxc_emit %s: the run wrote its outputs (option write-outputs) "
                "with the .air lowered straight into its file; the GE model was not kept",
                tfx_api_emit_name(k));
      return TFXC_MISUSE;
    }
    if (!ctx->ge || !ctx->ge->model) {
      tfx_error(d, NULL, 0, 0, "tfxc_emit %s: needs the GE model (a run through pass 'lowering')",
                tfx_api_emit_name(k));
      return TFXC_MISUSE;
    }
    switch (k) {
    case TFX_EMIT_AIR: rc = tfx_ge_emit_air(ctx->ge->model, sb, d); break;
    case TFX_EMIT_GE_PBTXT: rc = tfx_ge_emit_pbtxt(ctx->ge->model, sb, d); break;
    case TFX_EMIT_GE_JSON: rc = tfx_ge_emit_json(ctx->ge->model, sb, d); break;
    default: rc = tfx_ge_emit_dot(ctx->ge->model, sb, d); break;
    }
    if (rc) return tfx_api_status_from_rc(rc);
  }
  if (sb->oom) {
    tfx_error(d, NULL, 0, 0, "out of memory writing --emit %s", tfx_api_emit_name(k));
    return TFXC_NOMEM;
  }
  return TFXC_OK;
}

static int kind_of(tfxc_session *s, const char *kind) {
  int k = tfx_api_emit_kind(kind);
  if (k < 0) {
    unsigned mask;
    if (!kind || !*kind) tfx_error(&s->diag, NULL, 0, 0, "no output kind given");
    else if (strchr(kind, ',')) tfx_error(&s->diag, NULL, 0, 0, "one output kind at a time ('%s')", kind);
    else tfx_api_parse_emit(kind, &mask, &s->diag);
  }
  return k;
}

tfxc_status tfxc_emit(tfxc_session *s, const char *kind, void **data, size_t *len) {
  if (!s) return TFXC_MISUSE;
  tfxc_status st0 = tfx_api_result_start(s, "tfxc_emit", data, len, 1);
  if (st0 != TFXC_OK) return st0;
  int k = kind_of(s, kind);
  if (k < 0) return finish(s, TFXC_MISUSE);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  tfxc_status st = emit_into(s, k, &sb);
  if (st == TFXC_OK &&
      tfx_check_output_size(tfx_api_emit_name(k), sb.len,
                            tfx_limit_size(&s->o.limits, TFX_LIMIT_OUTPUT_SIZE), &s->diag) != 0)
    st = TFXC_FAILED;
  if (st == TFXC_OK) {
    if (!sb.data && !(sb.data = tfx_malloc(1))) st = TFXC_NOMEM;
    else {
      *data = sb.data; /* the strbuf's block is malloc'ed: tfxc_free releases it */
      *len = sb.len;
      sb.data = NULL;
    }
  }
  tfx_sb_free(&sb);
  return finish(s, st);
}

tfxc_status tfxc_emit_file(tfxc_session *s, const char *kind, const char *path) {
  if (!s) return TFXC_MISUSE;
  if (!path || !*path || strcmp(path, "-") == 0)
    return bad(s, "tfxc_emit_file: %s", "no file name (standard output is the caller's: use tfxc_emit)");
  int k = kind_of(s, kind);
  if (k < 0) return finish(s, TFXC_MISUSE);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  tfxc_status st = emit_into(s, k, &sb);
  if (st == TFXC_OK &&
      tfx_check_output_size(path, sb.len, tfx_limit_size(&s->o.limits, TFX_LIMIT_OUTPUT_SIZE),
                            &s->diag) != 0)
    st = TFXC_FAILED;
  if (st == TFXC_OK && tfx_write_file_atomic(path, sb.data ? sb.data : "", sb.len, &s->diag) != 0)
    st = TFXC_INPUT;
  tfx_sb_free(&sb);
  return finish(s, st);
}

tfxc_status tfxc_output_name(tfxc_session *s, const char *kind, char **name) {
  if (!s) return TFXC_MISUSE;
  if (!name) return bad(s, "tfxc_output_name: %s", "no result pointer");
  *name = NULL;
  int k = kind_of(s, kind);
  if (k < 0) return finish(s, TFXC_MISUSE);
  if (!s->model_name) return bad(s, "tfxc_output_name: %s", "no model given");
  /* the command's naming: with -o (option output) among the "emit" kinds, else alone */
  unsigned mask = 1u << k;
  if (s->output) mask |= s->emit_mask ? s->emit_mask : 1u << TFX_EMIT_AIR;
  char *paths[TFX_EMIT__COUNT];
  if (tfx_api_output_paths(s->model_name, s->output, mask, paths, &s->diag) != 0)
    return finish(s, TFXC_NOMEM);
  for (int j = 0; j < TFX_EMIT__COUNT; j++)
    if (j != k) free(paths[j]);
  *name = paths[k];
  return finish(s, TFXC_OK);
}

/* ---------------------------------------------------------------- report and explain */

/* Why a run with the option no-report answers no question about itself. */
#define NO_REPORT_KEPT                                                                             \
  "the last run kept no report (option no-report: the dataflow report was released before op "   \
  "mapping, the fusion report and the graph's node names before lowering); run again without it"

tfxc_status tfxc_report_json(tfxc_session *s, char **json, size_t *len) {
  if (!s) return TFXC_MISUSE;
  tfxc_status st0 = tfx_api_result_start(s, "tfxc_report_json", (void **)json, len, 0);
  if (st0 != TFXC_OK) return st0;
  if (!s->ran) return bad(s, "tfxc_report_json: %s", "no run yet (tfxc_run)");
  if (s->ctx.no_report_kept) return bad(s, "tfxc_report_json: %s", NO_REPORT_KEPT);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  if (tfx_api_report_json(&s->ctx, s->model_name, s->run_rc, &sb) != 0) {
    tfx_sb_free(&sb);
    tfx_error(&s->diag, NULL, 0, 0, "out of memory writing the report");
    return finish(s, TFXC_NOMEM);
  }
  *json = sb.data;
  if (len) *len = sb.len;
  return finish(s, TFXC_OK);
}

tfxc_status tfxc_explain(tfxc_session *s, const char *node, char **json, size_t *len) {
  if (!s) return TFXC_MISUSE;
  if (!json || !node) return bad(s, "tfxc_explain: %s", "no node or result pointer");
  *json = NULL;
  if (len) *len = 0;
  if (!s->ctx.opmap)
    return bad(s, "tfxc_explain: %s", "the op mapping has not run (tfxc_run through 'op-mapping')");
  if (s->ctx.no_report_kept) return bad(s, "tfxc_explain: %s", NO_REPORT_KEPT);
  /* the node's object in the precheck's "op" list: one entry per line, "{\"name\": N, ..." */
  tfx_strbuf pre, key;
  tfx_sb_init(&pre);
  tfx_sb_init(&key);
  uint32_t n_fail;
  tfx_sb_puts(&key, "\n  {\"name\": ");
  tfx_sb_json_str(&key, node, strlen(node));
  tfx_sb_putc(&key, ',');
  tfxc_status st = TFXC_OK;
  if (tfx_precheck_json(&s->ctx, s->model_name, &pre, &n_fail) != 0 || pre.oom || key.oom) {
    tfx_error(&s->diag, NULL, 0, 0, "out of memory (explain)");
    st = TFXC_NOMEM;
  } else {
    const char *at = strstr(tfx_sb_cstr(&pre), tfx_sb_cstr(&key));
    if (!at) {
      tfx_error(&s->diag, NULL, 0, 0, "tfxc_explain: no node '%s' in the converted model", node);
      st = TFXC_MISUSE;
    } else {
      at += 3; /* "\n  " */
      const char *end = strchr(at, '\n');
      size_t n = end ? (size_t)(end - at) : strlen(at);
      if (n && at[n - 1] == ',') n--;
      char *out = tfx_malloc(n + 2);
      if (!out) st = TFXC_NOMEM;
      else {
        memcpy(out, at, n);
        out[n] = '\n';
        out[n + 1] = 0;
        *json = out;
        if (len) *len = n + 1;
      }
    }
  }
  tfx_sb_free(&pre);
  tfx_sb_free(&key);
  return finish(s, st);
}

/* ---------------------------------------------------------------- for src/api/tools*.c */

/* A tool call records every diagnostic (no cap of 1000): the handler gets them all, so the
 * command that forwards them into its own context counts what it does not show as before. */
tfx_diag *tfx_api_diag(tfxc_session *s) {
  s->diag.max_items = (size_t)-1;
  return &s->diag;
}

tfxc_status tfx_api_result_start(tfxc_session *s, const char *fn, void **out, size_t *len,
                                 int need_len) {
  if (!out || (need_len && !len)) {
    tfx_error(&s->diag, NULL, 0, 0, "%s: no result pointer%s", fn, need_len ? "s" : "");
    return tfx_api_finish(s, TFXC_MISUSE);
  }
  *out = NULL;
  if (len) *len = 0;
  return TFXC_OK;
}

tfxc_status tfx_api_finish(tfxc_session *s, tfxc_status st) {
  st = finish(s, st);
  s->diag.max_items = 0; /* the default again for the other calls */
  return st;
}

const tfx_options *tfx_api_options(tfxc_session *s) {
  setup_options(s);
  return &s->o;
}

void tfx_api_use_model(tfxc_session *s, tfx_pipeline *p) {
  tfx_pass *lp = s->model_data ? tfx_pipeline_find(p, "load") : NULL;
  if (lp) {
    lp->run = load_buffer_pass;
    lp->user = s;
  }
}

const char *tfx_api_model(const tfxc_session *s, const void **data, size_t *len) {
  *data = s->model_data;
  *len = s->model_len;
  return s->model_name;
}

/* tfxc_explain_scope / tfxc_explain_rule: the library's evaluator (explain.c) on a copy of the
 * session's options, set as the explain command sets them. */
static tfxc_status explain_text(tfxc_session *s, tfx_api_explain_req *req, char **text,
                                size_t *len) {
  if (!s) return TFXC_MISUSE;
  tfxc_status st0 = tfx_api_result_start(s, req->scope ? "tfxc_explain_scope" : "tfxc_explain_rule",
                                         (void **)text, len, 0);
  if (st0 != TFXC_OK) return st0;
  if (!s->model_name)
    return bad(s, "no model given (tfxc_load_model_path / tfxc_load_model_buffer)");
  /* an empty scope or rule name is reported by the evaluator ("no scope ''", with the list) */
  if (req->passes && !*req->passes) return bad(s, "--pass: empty list");
  if (req->function && !*req->function) return bad(s, "--function: empty function name");
  tfx_options saved = s->o; /* the last run's context keeps pointing at s->o unchanged */
  setup_options(s);
  tfx_options o = s->o;
  s->o = saved;
  o.select_outputs = 0; /* as `tfxc explain`: the whole graph */
  o.emit = 0;
  o.check_only = 0;
  o.disable = NULL; /* --disable-pass names rule passes here */
  o.disable_rules = s->disable;
  req->cmd = s->usage_cmd; /* usage errors as "CMD: ..." plus a note on CMD --help */
  if (s->model_data) {
    req->load = load_buffer_pass;
    req->load_user = s;
  }
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  int rc = tfx_api_explain(&o, req, &sb, &s->diag);
  if (rc) {
    tfx_sb_free(&sb);
    return finish(s, tfx_api_status_from_rc(rc));
  }
  if (!sb.data && !(sb.data = tfx_calloc(1, 1))) return finish(s, TFXC_NOMEM);
  *text = sb.data; /* malloc'ed: tfxc_free releases it */
  if (len) *len = sb.len;
  return finish(s, TFXC_OK);
}

tfxc_status tfxc_explain_scope(tfxc_session *s, const char *scope, const char *function,
                               const char *passes, char **text, size_t *len) {
  tfx_api_explain_req req;
  memset(&req, 0, sizeof req);
  req.scope = scope ? scope : "";
  req.function = function;
  req.passes = passes;
  return explain_text(s, &req, text, len);
}

tfxc_status tfxc_explain_rule(tfxc_session *s, const char *rule, const char *function,
                              const char *node, char **text, size_t *len) {
  tfx_api_explain_req req;
  memset(&req, 0, sizeof req);
  req.rule = rule ? rule : "";
  req.function = function;
  req.node = node;
  return explain_text(s, &req, text, len);
}
