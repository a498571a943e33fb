/* Test helpers shared by test_vm_*.c: a fixture with a model (graph + ScopeTree + sub_type
 * interner) built from "name|op|in1,in2" strings, attribute setters, a recording host that
 * logs every effect as one text line, and shortcuts to assemble, link and run one program.
 * Opcode coverage: every run traces into vt_covered[], so a test can assert that the suite
 * executed every opcode. Header-only, static functions. */
#ifndef TFX_TEST_VM_UTIL_H
#define TFX_TEST_VM_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "test_graph_util.h"
#include "tfxc/tfxc.h"
#include "vm/asm.h"
#include "vm/pack.h"
#include "vm/vm.h"
#include "vm/vm_int.h" /* tfx_vm_value_text */

static unsigned char vt_covered[TFX_OP__COUNT];
static tfx_strbuf vt_valbuf; /* vt_val output */

typedef struct vt {
  tfx_arena a;
  tfx_diag d;
  tfx_module m;
  tfx_scope_tree t;
  tfx_intern subtypes;
  int have_model;
  Tensorflow__GraphDef *gd;
  tfx_asm as;
  tfx_pack p;
  int have_pack;
  tfx_vm *vm;
  tfx_strbuf log;   /* host effects, one line each */
  tfx_strbuf trace; /* trace lines when tracing */
  int tracing;
  int fail_effect;  /* host callbacks return nonzero */
  const uint32_t *typed; /* host.h `subtyped`: this list (typed_set), else "sweep every scope" */
  uint32_t n_typed;
  int typed_set;
  uint32_t typed_calls;  /* how often the VM asked */
  uint32_t rule, prog;
  tfx_vm_result res;
} vt;

static inline int vt_setup(void **state) {
  vt *f = calloc(1, sizeof *f);
  if (!f) return -1;
  tfx_arena_init(&f->a);
  tfx_diag_init(&f->d);
  tfx_intern_init(&f->subtypes);
  tfx_asm_init(&f->as);
  tfx_pack_init(&f->p);
  tfx_sb_init(&f->log);
  tfx_sb_init(&f->trace);
  *state = f;
  return 0;
}

static inline int vt_teardown(void **state) {
  vt *f = *state;
  tfx_vm_free(f->vm);
  tfx_pack_free(&f->p);
  tfx_asm_free(&f->as);
  if (f->have_model) {
    tfx_scope_tree_free(&f->t);
    tfx_module_free(&f->m);
  }
  tfx_intern_free(&f->subtypes);
  tfx_sb_free(&f->log);
  tfx_sb_free(&f->trace);
  tfx_sb_free(&vt_valbuf);
  tfx_diag_free(&f->d);
  tfx_arena_free(&f->a);
  free(f);
  return 0;
}

/* ---- model ---- */

/* The GraphDef under construction (add attrs before vt_model_build). */
static inline void vt_graph(vt *f, const char *const *specs, size_t n) { f->gd = tg_graph(&f->a, specs, n); }

static inline Tensorflow__NodeDef *vt_nd(vt *f, const char *name) {
  for (size_t i = 0; i < f->gd->n_node; i++)
    if (strcmp(f->gd->node[i]->name, name) == 0) return f->gd->node[i];
  fail_msg("no node %s", name);
  return NULL;
}

static inline Tensorflow__AttrValue *vt_attr_new(vt *f, const char *node, const char *key) {
  Tensorflow__NodeDef *nd = vt_nd(f, node);
  Tensorflow__NodeDef__AttrEntry **v = tg_must(tfx_arena_calloc(&f->a, nd->n_attr + 1, sizeof *v));
  if (nd->n_attr) memcpy(v, nd->attr, nd->n_attr * sizeof *v);
  Tensorflow__NodeDef__AttrEntry *e = tg_must(tfx_arena_alloc(&f->a, sizeof *e));
  tensorflow__node_def__attr_entry__init(e);
  Tensorflow__AttrValue *val = tg_must(tfx_arena_alloc(&f->a, sizeof *val));
  tensorflow__attr_value__init(val);
  e->key = tg_must(tfx_arena_strdup(&f->a, key));
  e->value = val;
  v[nd->n_attr] = e;
  nd->attr = v;
  nd->n_attr++;
  return val;
}

static inline void vt_attr_i(vt *f, const char *node, const char *key, int64_t i) {
  Tensorflow__AttrValue *v = vt_attr_new(f, node, key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
  v->i = i;
}
static inline void vt_attr_f(vt *f, const char *node, const char *key, float x) {
  Tensorflow__AttrValue *v = vt_attr_new(f, node, key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F;
  v->f = x;
}
static inline void vt_attr_b(vt *f, const char *node, const char *key, int b) {
  Tensorflow__AttrValue *v = vt_attr_new(f, node, key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B;
  v->b = b;
}
static inline void vt_attr_s(vt *f, const char *node, const char *key, const char *s) {
  Tensorflow__AttrValue *v = vt_attr_new(f, node, key);
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
  v->s.data = (uint8_t *)tg_must(tfx_arena_strdup(&f->a, s));
  v->s.len = strlen(s);
}
static inline void vt_attr_ilist(vt *f, const char *node, const char *key, const int64_t *xs, size_t n) {
  Tensorflow__AttrValue *v = vt_attr_new(f, node, key);
  Tensorflow__AttrValue__ListValue *l = tg_must(tfx_arena_alloc(&f->a, sizeof *l));
  tensorflow__attr_value__list_value__init(l);
  l->i = tg_must(tfx_arena_calloc(&f->a, n + 1, sizeof *l->i));
  memcpy(l->i, xs, n * sizeof *xs);
  l->n_i = n;
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
  v->list = l;
}
/* A float tensor `value` attr with the given values and a 1-D shape of `dim` elements. */
static inline void vt_attr_ftensor(vt *f, const char *node, const float *xs, size_t n, int64_t dim) {
  Tensorflow__AttrValue *v = vt_attr_new(f, node, "value");
  Tensorflow__TensorProto *t = tg_must(tfx_arena_alloc(&f->a, sizeof *t));
  tensorflow__tensor_proto__init(t);
  t->dtype = TENSORFLOW__DATA_TYPE__DT_FLOAT;
  t->float_val = tg_must(tfx_arena_calloc(&f->a, n + 1, sizeof(float)));
  memcpy(t->float_val, xs, n * sizeof(float));
  t->n_float_val = n;
  Tensorflow__TensorShapeProto *sh = tg_must(tfx_arena_alloc(&f->a, sizeof *sh));
  tensorflow__tensor_shape_proto__init(sh);
  Tensorflow__TensorShapeProto__Dim *d = tg_must(tfx_arena_alloc(&f->a, sizeof *d));
  tensorflow__tensor_shape_proto__dim__init(d);
  d->size = dim;
  sh->dim = tg_must(tfx_arena_calloc(&f->a, 1, sizeof *sh->dim));
  sh->dim[0] = d;
  sh->n_dim = 1;
  t->tensor_shape = sh;
  v->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
  v->tensor = t;
}

static inline void vt_model_build(vt *f) {
  int rc = tfx_module_build(&f->m, f->gd, "m.pb", &f->d);
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  assert_int_equal(tfx_scope_tree_build(&f->t, &f->m.main, &f->d), 0);
  f->have_model = 1;
}

static inline void vt_model(vt *f, const char *const *specs, size_t n) {
  vt_graph(f, specs, n);
  vt_model_build(f);
}

static inline uint32_t vt_scope(vt *f, const char *full) {
  uint32_t id = tfx_scope_find(&f->t, full);
  if (id == TFX_NO_ID) fail_msg("no scope '%s'", full);
  return id;
}

static inline uint32_t vt_node(vt *f, const char *name) {
  uint32_t id = tfx_graph_find(&f->m.main, name);
  if (id == TFX_NO_ID) fail_msg("no node '%s'", name);
  return id;
}

/* Sets a scope's sub_type (by name) as a pass would. */
static inline void vt_set_subtype(vt *f, const char *scope, const char *st) {
  uint32_t id = tfx_intern_id(&f->subtypes, st, strlen(st));
  f->t.scopes[vt_scope(f, scope)].sub_type = id;
}

/* ---- recording host ---- */

static inline void vt_logv(vt *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void vt_logv(vt *f, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tfx_sb_puts(&f->log, buf);
  tfx_sb_putc(&f->log, '\n');
}

/* v as text, scopes and nodes by name (valid until the next call). */
static inline const char *vt_val(vt *f, const tfx_value *v) {
  tfx_sb_reset(&vt_valbuf);
  tfx_vm_value_text(&vt_valbuf, f->vm, v, 1);
  return tfx_sb_cstr(&vt_valbuf);
}

static inline int h_result_begin(void *c) { vt_logv(c, "begin"); return ((vt *)c)->fail_effect; }
static inline int h_result_end(void *c) { vt_logv(c, "end"); return ((vt *)c)->fail_effect; }
static inline int h_result_scopes(void *c, const uint32_t *s, size_t n) {
  vt *f = c;
  tfx_sb_puts(&f->log, "scopes");
  for (size_t i = 0; i < n; i++) tfx_sb_printf(&f->log, " %s", f->t.scopes[s[i]].name);
  tfx_sb_putc(&f->log, '\n');
  return f->fail_effect;
}
static inline int h_result_name(void *c, const char *s, size_t n) { vt_logv(c, "name %.*s", (int)n, s); return ((vt *)c)->fail_effect; }
static inline int h_result_type(void *c, const char *s, size_t n) { vt_logv(c, "type %.*s", (int)n, s); return ((vt *)c)->fail_effect; }
static inline int h_result_desc(void *c, const char *s, size_t n) { vt_logv(c, "desc %.*s", (int)n, s); return ((vt *)c)->fail_effect; }
static inline int h_result_map(void *c, int dir, const char *k, size_t kl, int64_t from, int64_t to) {
  vt_logv(c, "%s %.*s %lld->%lld", dir ? "output" : "input", (int)kl, k, (long long)from, (long long)to);
  return ((vt *)c)->fail_effect;
}
static inline int h_result_absorb(void *c, const uint32_t *nodes, size_t n) {
  vt *f = c;
  tfx_sb_puts(&f->log, "absorb");
  for (size_t i = 0; i < n; i++) tfx_sb_printf(&f->log, " %s", f->m.main.nodes[nodes[i]].name);
  tfx_sb_putc(&f->log, '\n');
  return f->fail_effect;
}
static inline int h_result_attr(void *c, const char *name, const tfx_value *v) { vt_logv(c, "attr %s=%s", name, vt_val(c, v)); return ((vt *)c)->fail_effect; }
static inline int h_result_invalid(void *c, const char *s, size_t n) { vt_logv(c, "invalid %.*s", (int)n, s); return ((vt *)c)->fail_effect; }
static inline int h_node_new(void *c, const char *n, size_t nl, const char *t, size_t tl) {
  vt_logv(c, "node %.*s:%.*s", (int)nl, n, (int)tl, t);
  return ((vt *)c)->fail_effect;
}
static inline int h_node_input(void *c, const char *s, size_t sl, int64_t port) {
  if (s) vt_logv(c, "node_in %.*s:%lld", (int)sl, s, (long long)port);
  else vt_logv(c, "node_in in %lld", (long long)port);
  return ((vt *)c)->fail_effect;
}
static inline int h_node_const(void *c, const tfx_value *v) { vt_logv(c, "node_const %s", vt_val(c, v)); return ((vt *)c)->fail_effect; }
static inline int h_node_attr(void *c, const char *name, const tfx_value *v) { vt_logv(c, "node_attr %s=%s", name, vt_val(c, v)); return ((vt *)c)->fail_effect; }
static inline int h_node_format(void *c, int dir, int64_t port, const char *s, size_t n) {
  vt_logv(c, "node_format %s %lld %.*s", dir ? "out" : "in", (long long)port, (int)n, s);
  return ((vt *)c)->fail_effect;
}
static inline int h_node_out(void *c, int64_t idx, const char *s, size_t n, int64_t port) {
  vt_logv(c, "node_out %lld=%.*s:%lld", (long long)idx, (int)n, s, (long long)port);
  return ((vt *)c)->fail_effect;
}
static inline int h_map_type(void *c, const char *s, size_t n) { vt_logv(c, "map_type %.*s", (int)n, s); return ((vt *)c)->fail_effect; }
static inline int h_map_auto(void *c) { vt_logv(c, "map_auto"); return ((vt *)c)->fail_effect; }
static inline int h_map_attr(void *c, const char *name, const tfx_value *v) { vt_logv(c, "map_attr %s=%s", name, vt_val(c, v)); return ((vt *)c)->fail_effect; }
static inline int h_map_drop(void *c, const char *name) { vt_logv(c, "map_drop %s", name); return ((vt *)c)->fail_effect; }
static inline int h_map_format(void *c, int dir, int64_t port, const char *s, size_t n) {
  vt_logv(c, "map_format %s %lld %.*s", dir ? "out" : "in", (long long)port, (int)n, s);
  return ((vt *)c)->fail_effect;
}
static inline int h_map_port(void *c, int dir, const char *name, int64_t idx) {
  vt_logv(c, "map_port %s %s=%lld", dir ? "out" : "in", name, (long long)idx);
  return ((vt *)c)->fail_effect;
}
static inline int h_map_optional(void *c, const char *name, int64_t idx, int conn) {
  vt_logv(c, "map_optional %s=%lld %s", name, (long long)idx, conn ? "connected" : "unconnected");
  return ((vt *)c)->fail_effect;
}
static inline int h_map_dynamic(void *c, int dir, const char *name, int64_t n) {
  vt_logv(c, "map_dynamic %s %s count %lld", dir ? "out" : "in", name, (long long)n);
  return ((vt *)c)->fail_effect;
}
static inline int h_map_delete(void *c, int64_t idx) { vt_logv(c, "map_delete %lld", (long long)idx); return ((vt *)c)->fail_effect; }
static inline const char *h_format_of(void *c, uint32_t node, int64_t port) {
  (void)c;
  (void)node;
  return port == 0 ? "NCHW" : NULL;
}
static inline int64_t h_dtype_of(void *c, uint32_t node, int64_t port) {
  (void)c;
  (void)node;
  return port == 0 ? 1 : -1;
}

/* FR_KEY (the site of an index-map statement): accepted, not logged. */
static inline int h_result_key(void *c, int dir, const char *key, size_t n, int flags, uint32_t pc) {
  (void)c, (void)dir, (void)key, (void)n, (void)flags, (void)pc;
  return 0;
}

static inline int h_flow_input(void *c, uint32_t node, int64_t slot) {
  vt *f = c;
  vt_logv(c, "flow_in %s:%lld", f->m.main.nodes[node].name, (long long)slot);
  return f->fail_effect;
}
static inline int h_flow_out(void *c, uint32_t node, int64_t port, const char *t, size_t tl, uint32_t tnode,
                             int64_t tport) {
  vt *f = c;
  if (t) vt_logv(c, "flow_out %s:%lld=%.*s:%lld", f->m.main.nodes[node].name, (long long)port, (int)tl, t, (long long)tport);
  else vt_logv(c, "flow_out %s:%lld=input %lld of %s", f->m.main.nodes[node].name, (long long)port, (long long)tport,
               f->m.main.nodes[tnode].name);
  return f->fail_effect;
}
static inline int h_flow_remove(void *c, const uint32_t *nodes, size_t n) {
  vt *f = c;
  tfx_sb_puts(&f->log, "flow_remove");
  for (size_t i = 0; i < n; i++) tfx_sb_printf(&f->log, " %s", f->m.main.nodes[nodes[i]].name);
  tfx_sb_putc(&f->log, '\n');
  return f->fail_effect;
}

static inline int h_subtyped(void *c, const uint32_t **pos, uint32_t *n) {
  vt *f = c;
  f->typed_calls++;
  if (!f->typed_set) return 1;
  *pos = f->typed;
  *n = f->n_typed;
  return 0;
}

static const tfx_vm_host vt_host = {
    h_result_begin, h_result_end, h_result_scopes, h_result_name, h_result_type,
    h_result_desc, h_result_map, h_result_absorb, h_result_attr, h_result_invalid,
    h_node_new, h_node_input, h_node_const, h_node_attr, h_node_format, h_node_out,
    h_map_type, h_map_auto, h_map_attr, h_map_drop, h_map_format, h_map_port,
    h_map_optional, h_map_dynamic, h_map_delete, h_format_of, h_dtype_of, h_result_key, h_flow_input,
    h_flow_out, h_flow_remove, h_subtyped};

/* ---- assembling and running ---- */

/* Trace hook: marks the executed opcode in vt_covered (parsed from the line, which is
 * `[file:line] pc  NAME ...`) and records the line when f->tracing. */
static inline void vt_trace_fn(void *ctx, const char *line) {
  vt *f = ctx;
  const char *p = line;
  if (*p == '[') p = strstr(p, "] ") + 2;
  while (*p >= '0' && *p <= '9') p++;
  while (*p == ' ') p++;
  size_t n = strcspn(p, " ");
  for (unsigned op = 0; op < TFX_OP__COUNT; op++)
    if (strlen(tfx_vm_ops[op].name) == n && memcmp(tfx_vm_ops[op].name, p, n) == 0) vt_covered[op] = 1;
  if (f->tracing) {
    tfx_sb_puts(&f->trace, line);
    tfx_sb_putc(&f->trace, '\n');
  }
}

/* Opens a rule "R" (pass or map by kind) with one program of that kind; source file t.rule. */
static inline void vt_begin(vt *f, uint32_t kind) {
  uint32_t file = tfx_asm_file(&f->as, "t.rule");
  f->rule = tfx_asm_rule(&f->as, kind == TFX_PK_MAP ? TFX_RULE_MAP : TFX_RULE_PASS, "R", 0);
  tfx_vm_rule *r = tfx_asm_rule_at(&f->as, f->rule);
  assert_non_null(r);
  r->file = file;
  r->line = 1;
  f->prog = tfx_asm_prog_begin(&f->as, kind, kind == TFX_PK_SCOPE ? TFX_PACK_NONE : f->rule);
  tfx_asm_loc(&f->as, file, 10, 3);
}

#define E(f, op, a, b, c) tfx_asm_emit(&(f)->as, TFX_OP_##op, (a), (b), (c))
#define E4(f, op, a, b, c, d) tfx_asm_emit4(&(f)->as, TFX_OP_##op, (a), (b), (c), (d))
#define KS(f, s) ((int64_t)tfx_asm_const_str(&(f)->as, (s)))
#define LOC(f, line) tfx_asm_loc(&(f)->as, 0, (line), 1)

/* Finishes the pack (every program closed), makes and links the VM (model optional). */
static inline void vt_finish_pack(vt *f) {
  int rc = tfx_asm_finish(&f->as, &f->p, "t.tfxb", &f->d);
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  f->vm = tfx_vm_new(&f->p);
  assert_non_null(f->vm);
  tfx_vm_set_host(f->vm, &vt_host, f);
  assert_int_equal(tfx_vm_link(f->vm, f->have_model ? &f->m.main : NULL, f->have_model ? &f->m.ops : NULL,
                               f->have_model ? &f->t : NULL, &f->subtypes, &f->d),
                   0);
}

/* Closes the program opened by vt_begin, then vt_finish_pack. */
static inline void vt_finish(vt *f) {
  if (tfx_asm_prog_end(&f->as) != 0) fail_msg("asm: %s", f->as.err);
  vt_finish_pack(f);
}

/* Runs program prog of kind over arg (scope id, node id; ignored for select) with the
 * coverage/trace hook installed. Returns the run's result code; f->res holds the result. */
static inline int vt_run_prog(vt *f, uint32_t prog, uint32_t kind, uint32_t arg) {
  tfx_vm_set_trace(f->vm, vt_trace_fn, f);
  return kind == TFX_PK_SCOPE ? tfx_vm_run_scope(f->vm, prog, arg, &f->res, &f->d)
         : kind == TFX_PK_MAP ? tfx_vm_run_map(f->vm, prog, arg, &f->res, &f->d)
                              : tfx_vm_run_select(f->vm, prog, &f->res, &f->d);
}

/* Finishes and runs the single program opened by vt_begin; asserts success. */
static inline void vt_run_ok(vt *f, uint32_t kind, uint32_t arg) {
  vt_finish(f);
  int rc = vt_run_prog(f, f->prog, kind, arg);
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
}

/* The result value as text (strings quoted; scopes/nodes as <scope N>/<node N>). */
static inline const char *vt_ret(vt *f) { return vt_val(f, &f->res.value); }

#endif
