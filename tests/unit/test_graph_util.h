/* Test helpers shared by test_graph_*.c and test_scope_*.c: build GraphDefs in C from
 * "name|op|in1,in2" strings (no inputs: "name|op"), FunctionDefs with signature args, attrs,
 * and search the diagnostics. Everything is allocated in the caller's arena. Header-only,
 * static functions, so each test binary stays one .c file. */
#ifndef TFX_TEST_GRAPH_UTIL_H
#define TFX_TEST_GRAPH_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/graph.pb-c.h"
#include "util/arena.h"
#include "util/diag.h"

static inline void *tg_must(void *p) {
  if (!p) {
    fprintf(stderr, "test helper: out of memory\n");
    abort();
  }
  return p;
}

/* One NodeDef from "name|op|in1,in2". An empty piece between commas is an empty input. */
static inline Tensorflow__NodeDef *tg_node(tfx_arena *a, const char *spec) {
  Tensorflow__NodeDef *nd = tg_must(tfx_arena_alloc(a, sizeof *nd));
  tensorflow__node_def__init(nd);
  const char *b1 = strchr(spec, '|');
  if (!b1) {
    nd->name = tg_must(tfx_arena_strdup(a, spec));
    return nd;
  }
  nd->name = tg_must(tfx_arena_strndup(a, spec, (size_t)(b1 - spec)));
  const char *op = b1 + 1, *b2 = strchr(op, '|');
  nd->op = tg_must(tfx_arena_strndup(a, op, b2 ? (size_t)(b2 - op) : strlen(op)));
  if (!b2 || !b2[1]) return nd;
  const char *ins = b2 + 1;
  size_t n = 1;
  for (const char *p = ins; *p; p++) n += *p == ',';
  nd->input = tg_must(tfx_arena_calloc(a, n, sizeof *nd->input));
  nd->n_input = n;
  for (size_t k = 0; k < n; k++) {
    const char *e = strchr(ins, ',');
    size_t len = e ? (size_t)(e - ins) : strlen(ins);
    nd->input[k] = tg_must(tfx_arena_strndup(a, ins, len));
    ins += len + (e ? 1 : 0);
  }
  return nd;
}

static inline Tensorflow__NodeDef **tg_nodes(tfx_arena *a, const char *const *specs, size_t n) {
  Tensorflow__NodeDef **v = tg_must(tfx_arena_calloc(a, n ? n : 1, sizeof *v));
  for (size_t i = 0; i < n; i++) v[i] = tg_node(a, specs[i]);
  return v;
}

static inline Tensorflow__GraphDef *tg_graph(tfx_arena *a, const char *const *specs, size_t n) {
  Tensorflow__GraphDef *gd = tg_must(tfx_arena_alloc(a, sizeof *gd));
  tensorflow__graph_def__init(gd);
  gd->node = tg_nodes(a, specs, n);
  gd->n_node = n;
  return gd;
}

/* FunctionDef named `name` with comma-separated input args (may be "") and a body. */
static inline Tensorflow__FunctionDef *tg_func(tfx_arena *a, const char *name, const char *args,
                                        const char *const *specs, size_t n) {
  Tensorflow__FunctionDef *f = tg_must(tfx_arena_alloc(a, sizeof *f));
  tensorflow__function_def__init(f);
  Tensorflow__OpDef *sig = tg_must(tfx_arena_alloc(a, sizeof *sig));
  tensorflow__op_def__init(sig);
  sig->name = tg_must(tfx_arena_strdup(a, name));
  size_t na = 0;
  if (*args) {
    na = 1;
    for (const char *p = args; *p; p++) na += *p == ',';
  }
  sig->input_arg = tg_must(tfx_arena_calloc(a, na ? na : 1, sizeof *sig->input_arg));
  sig->n_input_arg = na;
  const char *p = args;
  for (size_t k = 0; k < na; k++) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    Tensorflow__OpDef__ArgDef *ad = tg_must(tfx_arena_alloc(a, sizeof *ad));
    tensorflow__op_def__arg_def__init(ad);
    ad->name = tg_must(tfx_arena_strndup(a, p, len));
    sig->input_arg[k] = ad;
    p += len + (e ? 1 : 0);
  }
  f->signature = sig;
  f->node_def = tg_nodes(a, specs, n);
  f->n_node_def = n;
  return f;
}

static inline void tg_set_funcs(tfx_arena *a, Tensorflow__GraphDef *gd, Tensorflow__FunctionDef **fs,
                         size_t n) {
  Tensorflow__FunctionDefLibrary *lib = tg_must(tfx_arena_alloc(a, sizeof *lib));
  tensorflow__function_def_library__init(lib);
  lib->function = fs;
  lib->n_function = n;
  gd->library = lib;
}

/* Appends attr key = AttrValue(type dt) to nd. */
static inline void tg_attr_type(tfx_arena *a, Tensorflow__NodeDef *nd, const char *key,
                         Tensorflow__DataType dt) {
  Tensorflow__NodeDef__AttrEntry **v =
      tg_must(tfx_arena_calloc(a, nd->n_attr + 1, sizeof *v));
  if (nd->n_attr) memcpy(v, nd->attr, nd->n_attr * sizeof *v);
  Tensorflow__NodeDef__AttrEntry *e = tg_must(tfx_arena_alloc(a, sizeof *e));
  tensorflow__node_def__attr_entry__init(e);
  Tensorflow__AttrValue *val = tg_must(tfx_arena_alloc(a, sizeof *val));
  tensorflow__attr_value__init(val);
  val->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
  val->type = dt;
  e->key = tg_must(tfx_arena_strdup(a, key));
  e->value = val;
  v[nd->n_attr] = e;
  nd->attr = v;
  nd->n_attr++;
}

static inline const Tensorflow__AttrValue *tg_attr(const Tensorflow__NodeDef *nd, const char *key) {
  for (size_t k = 0; k < nd->n_attr; k++)
    if (strcmp(nd->attr[k]->key, key) == 0) return nd->attr[k]->value;
  return NULL;
}

/* 1 if some diagnostic of severity sev contains every one of the NULL-terminated substrings. */
static inline int tg_diag_has(const tfx_diag *d, tfx_severity sev, ...) {
  for (size_t i = 0; i < d->n; i++) {
    if (d->items[i].sev != sev) continue;
    va_list ap;
    va_start(ap, sev);
    int all = 1;
    for (const char *s; (s = va_arg(ap, const char *)) != NULL;)
      if (!strstr(d->items[i].msg, s)) all = 0;
    va_end(ap);
    if (all) return 1;
  }
  return 0;
}

/* Prints the diagnostics (for failing tests). */
static inline void tg_dump(const tfx_diag *d) { tfx_diag_print(d, stderr); }

#define TG_N(arr) (sizeof(arr) / sizeof *(arr))
#define TG_ERR(d, ...) tg_diag_has((d), TFX_SEV_ERROR, __VA_ARGS__, (const char *)NULL)

#endif
