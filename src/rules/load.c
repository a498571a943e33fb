/* Rule sets, the driver: loading from paths and buffers, registration, the checks.
 * Stage: rules, front end. Input: paths / buffers. Output: a tfx_ruleset whose sources are
 * parsed in load order; tfx_rules_check registers passes (first name wins) and op maps, then
 * runs sema (sema.c) over the whole set. The rule set object, its sources, locations and
 * reporting (file:line:col and a caret line) are the service in source.c (rules/source.h). */
#define _POSIX_C_SOURCE 200809L
#include "rules/load.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rules/build.h"
#include "util/fileio.h"
#include "util/hash.h"

#define TFX_RULES_MAX_DIR_DEPTH 64

int tfx_rules_sema(tfx_ruleset *rs, const tfx_rules_options *opt, tfx_diag *d);

size_t tfx_ruleset_n_passes(const tfx_ruleset *rs) { return rs->n_passes; }
const tfx_ast_pass *tfx_ruleset_pass(const tfx_ruleset *rs, size_t i) {
  return i < rs->n_passes ? rs->passes[i] : NULL;
}
const tfx_ast_pass *tfx_ruleset_find_pass(const tfx_ruleset *rs, const char *name) {
  for (size_t i = 0; i < rs->n_passes; i++)
    if (!strcmp(rs->passes[i]->name.s, name)) return rs->passes[i];
  return NULL;
}
size_t tfx_ruleset_n_opmaps(const tfx_ruleset *rs) { return rs->n_opmaps; }
const tfx_ast_opmap *tfx_ruleset_opmap(const tfx_ruleset *rs, size_t i) {
  return i < rs->n_opmaps ? rs->opmaps[i] : NULL;
}
/* ---------------------------------------------------------------- sources */

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !memcmp(s + n - m, suffix, m);
}

static int kind_of(const char *name, tfx_ast_file_kind *kind) {
  if (ends_with(name, ".scoperule")) *kind = TFX_AST_SCOPERULE;
  else if (ends_with(name, ".opmap")) *kind = TFX_AST_OPMAP;
  else return -1;
  return 0;
}

int tfx_rules_load_buffer_kind(tfx_ruleset *rs, const char *name, tfx_ast_file_kind kind,
                               const char *text, size_t len, tfx_diag *d) {
  return tfx_rules_source_add(rs, name, kind, text, len, d);
}

int tfx_rules_load_buffer(tfx_ruleset *rs, const char *name, const char *text, size_t len,
                          tfx_diag *d) {
  tfx_ast_file_kind kind;
  if (kind_of(name, &kind) < 0) {
    tfx_error(d, name, 0, 0, "not a rule file (the name must end in .scoperule or .opmap)");
    rs->errors++;
    return -1;
  }
  return tfx_rules_source_add(rs, name, kind, text, len, d);
}

static int load_file(tfx_ruleset *rs, const char *path, tfx_ast_file_kind kind, tfx_diag *d) {
  size_t len;
  tfx_status st;
  char *text = tfx_read_file_st(path, TFX_RULES_MAX_FILE, NULL, &len, &st, d);
  if (!text) {
    rs->errors++;
    if (st == TFX_E_NOMEM) rs->oom = 1; /* not an error of the rule file */
    return -1;
  }
  int r = tfx_rules_source_add(rs, path, kind, text, len, d);
  free(text);
  return r;
}

/* ---------------------------------------------------------------- directories */

typedef struct pathvec {
  char **v;
  size_t n, cap;
} pathvec;

static int pv_push(pathvec *pv, char *s) {
  if (pv->n == pv->cap) {
    size_t cap = pv->cap ? pv->cap * 2 : 16;
    char **nv = tfx_realloc(pv->v, cap * sizeof *nv);
    if (!nv) return -1;
    pv->v = nv;
    pv->cap = cap;
  }
  pv->v[pv->n++] = s;
  return 0;
}

static char *join(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  int slash = a && dir[a - 1] != '/';
  char *p = tfx_malloc(a + (size_t)slash + b + 1);
  if (!p) return NULL;
  memcpy(p, dir, a);
  if (slash) p[a] = '/';
  memcpy(p + a + (size_t)slash, name, b + 1);
  return p;
}

/* Collects every rule file under dir. Returns 0 or -1 (reported). */
static int collect(tfx_ruleset *rs, const char *dir, int depth, pathvec *out, tfx_diag *d) {
  if (depth > TFX_RULES_MAX_DIR_DEPTH) {
    tfx_error(d, dir, 0, 0, "directories nested too deeply (symbolic link loop?)");
    rs->errors++;
    return -1;
  }
  DIR *dh = opendir(dir);
  if (!dh) {
    tfx_error(d, dir, 0, 0, "cannot read directory: %s", strerror(errno));
    rs->errors++;
    return -1;
  }
  int rc = 0, oom = 0;
  struct dirent *e;
  while ((e = readdir(dh))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char *p = join(dir, e->d_name);
    if (!p) {
      rc = -1;
      oom = 1;
      break;
    }
    struct stat st;
    if (stat(p, &st) != 0) {
      free(p); /* a dangling link: not a rule file */
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      if (collect(rs, p, depth + 1, out, d) < 0) rc = -1;
      free(p);
    } else {
      tfx_ast_file_kind k;
      if (S_ISREG(st.st_mode) && kind_of(p, &k) == 0) {
        if (pv_push(out, p) < 0) {
          free(p);
          rc = -1;
          oom = 1;
          break;
        }
      } else {
        free(p);
      }
    }
  }
  closedir(dh);
  if (oom && !rs->oom) { /* reported once (a nested directory may have reported it) */
    tfx_error(d, dir, 0, 0, "out of memory while listing rule files");
    rs->errors++;
    rs->oom = 1;
  }
  return rc;
}

static int cmp_paths(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int tfx_rules_load_path(tfx_ruleset *rs, const char *path, tfx_diag *d) {
  struct stat st;
  if (stat(path, &st) != 0) {
    tfx_error(d, path, 0, 0, "cannot read rules: %s", strerror(errno));
    rs->errors++;
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    tfx_ast_file_kind kind;
    if (kind_of(path, &kind) < 0) {
      tfx_error(d, path, 0, 0, "not a rule file (the name must end in .scoperule or .opmap)");
      rs->errors++;
      return -1;
    }
    return load_file(rs, path, kind, d);
  }
  pathvec pv = {0};
  int rc = collect(rs, path, 0, &pv, d);
  if (pv.n) qsort(pv.v, pv.n, sizeof *pv.v, cmp_paths); /* byte order of the paths */
  for (size_t i = 0; i < pv.n; i++) {
    tfx_ast_file_kind kind;
    kind_of(pv.v[i], &kind);
    if (load_file(rs, pv.v[i], kind, d) < 0) rc = -1;
    free(pv.v[i]);
  }
  free(pv.v);
  return rc;
}

int tfx_rules_load_paths(tfx_ruleset *rs, const char *const *paths, size_t n, tfx_diag *d) {
  int rc = 0;
  for (size_t i = 0; i < n; i++)
    if (tfx_rules_load_path(rs, paths[i], d) < 0) rc = -1;
  return rc;
}

/* ---------------------------------------------------------------- registration */

/* Grows a pointer array whose length is n (capacity: 16, then powers of two). Returns the
 * array to use, or NULL when out of memory (the old one is still valid). */
static void *grow(void *arr, size_t n, size_t elem) {
  if (n != 0 && (n < 16 || (n & (n - 1)))) return arr;
  size_t cap = n ? n * 2 : 16;
  return tfx_realloc(arr, cap * elem);
}
#define PUSH(arr, n, x, fail)                          \
  do {                                                 \
    void *nv_ = grow((void *)(arr), (n), sizeof *(arr)); \
    if (!nv_) { fail; }                                \
    else {                                             \
      (arr) = nv_;                                     \
      (arr)[(n)++] = (x);                              \
    }                                                  \
  } while (0)

static void warn_override(tfx_ruleset *rs, const tfx_rules_options *opt, tfx_diag *d,
                          tfx_rules_loc at, tfx_rules_loc first, const char *what) {
  const tfx_rules_warnings *w = &opt->warnings;
  if (!(w->enabled & (1u << TFX_RULES_W_OVERRIDE))) return;
  int err = w->werror || (w->as_error & (1u << TFX_RULES_W_OVERRIDE));
  char where[512];
  tfx_ruleset_where(rs, first, UINT32_MAX, where, sizeof where);
  tfx_rules_report(rs, d, err ? TFX_SEV_ERROR : TFX_SEV_WARNING, at,
                   "%s is ignored: the one at %s was registered first [-W%soverride]", what, where,
                   err ? "error=" : "");
}

static int register_rules(tfx_ruleset *rs, const tfx_rules_options *opt, tfx_diag *d) {
  tfx_hmap names, maps;
  tfx_hmap_init(&names);
  tfx_hmap_init(&maps);
  const tfx_ast_pass **all_p = NULL; /* index -> pass, for the name map values */
  size_t n_all_p = 0;
  const tfx_ast_opmap **all_m = NULL;
  size_t n_all_m = 0;
  int rc = 0;
  char buf[600], where[512];
  for (uint32_t f = 0; f < rs->n_sources && rc == 0; f++) {
    const tfx_ast_file *file = rs->sources[f].ast;
    if (!file) continue;
    for (tfx_ast_pass *p = file->passes; p && rc == 0; p = p->next) {
      uint32_t prev;
      int r = tfx_hmap_put(&names, p->name.s, strlen(p->name.s), (uint32_t)n_all_p, &prev);
      if (r < 0) {
        rc = -1;
        break;
      }
      PUSH(all_p, n_all_p, p, goto oom);
      if (r == 1) {
        PUSH(rs->passes, rs->n_passes, p, goto oom);
        continue;
      }
      const tfx_ast_pass *first = all_p[prev];
      p->overridden = 1;
      if (first->name.loc.file == f) {
        tfx_rules_report(rs, d, TFX_SEV_ERROR, p->name.loc, "pass '%s' already defined at %s",
                         p->name.s, tfx_ruleset_where(rs, first->name.loc, f, where, sizeof where));
      } else {
        snprintf(buf, sizeof buf, "pass '%s'", p->name.s);
        warn_override(rs, opt, d, p->name.loc, first->name.loc, buf);
      }
    }
    for (tfx_ast_opmap *m = file->opmaps; m && rc == 0; m = m->next) {
      PUSH(rs->opmaps, rs->n_opmaps, m, goto oom);
      PUSH(all_m, n_all_m, m, goto oom);
      if (m->when) continue; /* guarded maps never shadow each other statically */
      for (const tfx_ast_name *t = m->from; t; t = t->next) {
        int k = snprintf(buf, sizeof buf, "%s%c%lld", t->s, 1, (long long)m->priority);
        char *key = tfx_arena_strndup(&rs->arena, buf, (size_t)k);
        uint32_t prev;
        int r = key ? tfx_hmap_put(&maps, key, strlen(key), (uint32_t)(n_all_m - 1), &prev) : -1;
        if (r < 0) {
          rc = -1;
          break;
        }
        if (r == 1) continue;
        const tfx_ast_opmap *first = all_m[prev];
        if (first->loc.file == f) {
          tfx_rules_report(rs, d, TFX_SEV_ERROR, t->loc,
                           "op map for '%s' with priority %lld and no 'when' already defined at %s",
                           t->s, (long long)m->priority,
                           tfx_ruleset_where(rs, first->loc, f, where, sizeof where));
        } else {
          snprintf(buf, sizeof buf, "op map for '%s' (priority %lld, no 'when')", t->s,
                   (long long)m->priority);
          warn_override(rs, opt, d, t->loc, first->loc, buf);
        }
      }
    }
  }
  if (rc < 0) {
  oom:
    rc = -1;
    tfx_error(d, NULL, 0, 0, "out of memory while registering rules");
    rs->errors++;
    rs->oom = 1;
  }
  free(all_p);
  free(all_m);
  tfx_hmap_free(&names);
  tfx_hmap_free(&maps);
  return rc;
}

int tfx_rules_check(tfx_ruleset *rs, const tfx_rules_options *opt, tfx_diag *d) {
  tfx_rules_options defaults;
  if (!opt) {
    tfx_rules_options_init(&defaults);
    opt = &defaults;
  }
  size_t before = rs->errors;
  if (rs->checked) return 0;
  rs->checked = 1;
  if (rs->oom) { /* out of memory, the ASTs may be partial: report nothing more */
    rs->errors++;
    return -1;
  }
  if (register_rules(rs, opt, d) == 0) tfx_rules_sema(rs, opt, d);
  return rs->errors > before ? -1 : 0;
}
