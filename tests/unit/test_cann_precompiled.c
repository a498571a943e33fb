/* Unit tests for the stdlib op tables compiled at build time (src/cann/gen/gen_op_tables.c,
 * src/cann/stdlib_tables.c): tfx_cann_stdlib and tfx_tf_ops_stdlib must hold exactly what the
 * text readers make of the embedded <stdlib>/ops/cann-ops.tsv and tf-ops.tsv, and of the
 * files in the source tree (TFXC_SRC), field by field: every op, port, attribute, parsed
 * default (lists of lists, strings with their exact bytes, floats bit for bit), source, file
 * and line, in the same order, and every name found at its own index. The comparison itself
 * is tested to find a difference in each kind of field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "cann/cann_int.h"
#include "tfxc/tfxc.h"
#include "util/fileio.h"

static char why[512]; /* the first difference found */

static int differ(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int differ(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return 1;
}

static int str_ne(const char *a, const char *b) {
  if (!a || !b) return a != b;
  return strcmp(a, b) != 0;
}

static int value_ne(const tfx_value *a, const tfx_value *b) {
  if (a->tag != b->tag || a->depth != b->depth || a->n != b->n) return 1;
  switch (a->tag) {
    case TFX_V_BOOL:
    case TFX_V_INT:
    case TFX_V_DTYPE:
      return a->u.i != b->u.i;
    case TFX_V_FLOAT:
      return memcmp(&a->u.f, &b->u.f, sizeof a->u.f) != 0;
    case TFX_V_STR:
      return memcmp(a->u.s, b->u.s, a->n) != 0 || a->u.s[a->n] != 0 || b->u.s[b->n] != 0;
    case TFX_V_LIST:
      for (uint32_t i = 0; i < a->n; i++)
        if (value_ne(&a->u.items[i], &b->u.items[i])) return 1;
      return 0;
    default:
      return 0;
  }
}

static int ports_ne(const char *op, const char *what, const tfx_cann_port *a, const tfx_cann_port *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (str_ne(a[i].name, b[i].name) || a[i].kind != b[i].kind || str_ne(a[i].dtypes, b[i].dtypes))
      return differ("%s: %s %u", op, what, i);
  return 0;
}

/* 0 when a and b hold the same ops (why: the first difference otherwise). */
static int cann_differ(const tfx_cann_table *a, const tfx_cann_table *b) {
  if (a->n_ops != b->n_ops) return differ("%u ops against %u", a->n_ops, b->n_ops);
  for (uint32_t i = 0; i < a->n_ops; i++) {
    const tfx_cann_op *x = &a->ops[i], *y = &b->ops[i];
    if (str_ne(x->name, y->name)) return differ("op %u: '%s' against '%s'", i, x->name, y->name);
    if (x->n_in != y->n_in || x->n_out != y->n_out || x->n_attrs != y->n_attrs)
      return differ("%s: port or attribute counts", x->name);
    if (str_ne(x->source, y->source) || str_ne(x->file, y->file) || x->line != y->line)
      return differ("%s: source, file or line", x->name);
    if (ports_ne(x->name, "input", x->in, y->in, x->n_in) || ports_ne(x->name, "output", x->out, y->out, x->n_out))
      return 1;
    for (uint32_t k = 0; k < x->n_attrs; k++) {
      const tfx_cann_attr *p = &x->attrs[k], *q = &y->attrs[k];
      if (str_ne(p->name, q->name) || p->type != q->type || p->required != q->required || str_ne(p->def, q->def))
        return differ("%s: attribute %u", x->name, k);
      if (value_ne(&p->value, &q->value)) return differ("%s: default of attribute '%s'", x->name, p->name);
    }
    if (tfx_cann_find(a, x->name) != x || tfx_cann_find(b, y->name) != y)
      return differ("%s: not found at its index", x->name);
  }
  return 0;
}

static int args_ne(const char *op, const tfx_tf_arg *a, const tfx_tf_arg *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (str_ne(a[i].name, b[i].name) || str_ne(a[i].type, b[i].type) || str_ne(a[i].number_attr, b[i].number_attr) ||
        str_ne(a[i].list_attr, b[i].list_attr) || a[i].is_ref != b[i].is_ref)
      return differ("%s: arg %u", op, i);
  return 0;
}

static int tf_differ(const tfx_tf_table *a, const tfx_tf_table *b) {
  if (a->n_ops != b->n_ops) return differ("%u ops against %u", a->n_ops, b->n_ops);
  for (uint32_t i = 0; i < a->n_ops; i++) {
    const tfx_tf_op *x = &a->ops[i], *y = &b->ops[i];
    if (str_ne(x->name, y->name)) return differ("op %u: '%s' against '%s'", i, x->name, y->name);
    if (x->n_in != y->n_in || x->n_out != y->n_out || x->n_attrs != y->n_attrs || x->is_stateful != y->is_stateful ||
        x->line != y->line)
      return differ("%s: counts, is_stateful or line", x->name);
    if (args_ne(x->name, x->in, y->in, x->n_in) || args_ne(x->name, x->out, y->out, x->n_out)) return 1;
    for (uint32_t k = 0; k < x->n_attrs; k++) {
      const tfx_tf_attr *p = &x->attrs[k], *q = &y->attrs[k];
      if (str_ne(p->name, q->name) || str_ne(p->type, q->type) || str_ne(p->def, q->def) ||
          str_ne(p->allowed, q->allowed) || p->minimum != q->minimum || p->has_minimum != q->has_minimum)
        return differ("%s: attribute %u", x->name, k);
    }
    if (tfx_tf_op_find(a, x->name) != x || tfx_tf_op_find(b, y->name) != y)
      return differ("%s: not found at its index", x->name);
  }
  return 0;
}

static void load_cann_text(tfx_cann_table *t, const char *text, size_t len) {
  tfx_diag d;
  tfx_diag_init(&d);
  int rc = tfx_cann_load(t, text, len, "<stdlib>/ops/cann-ops.tsv", &d);
  if (rc) tfx_diag_print(&d, stderr);
  assert_int_equal(rc, 0);
  tfx_diag_free(&d);
}

static void load_tf_text(tfx_tf_table *t, const char *text, size_t len) {
  tfx_diag d;
  tfx_diag_init(&d);
  int rc = tfx_tf_ops_load(t, text, len, "<stdlib>/ops/tf-ops.tsv", &d);
  if (rc) tfx_diag_print(&d, stderr);
  assert_int_equal(rc, 0);
  tfx_diag_free(&d);
}

static const tfx_cann_table *cann_stdlib(void) {
  tfx_diag d;
  tfx_diag_init(&d);
  const tfx_cann_table *t = tfx_cann_stdlib(&d);
  assert_non_null(t);
  assert_int_equal(d.n, 0);
  assert_ptr_equal(tfx_cann_stdlib(&d), t); /* built once */
  tfx_diag_free(&d);
  return t;
}

static const tfx_tf_table *tf_stdlib(void) {
  tfx_diag d;
  tfx_diag_init(&d);
  const tfx_tf_table *t = tfx_tf_ops_stdlib(&d);
  assert_non_null(t);
  assert_int_equal(d.n, 0);
  assert_ptr_equal(tfx_tf_ops_stdlib(&d), t);
  tfx_diag_free(&d);
  return t;
}

static void cann_equals_embedded_text(void **state) {
  (void)state;
  const tfx_embedded_file *f = tfx_cann_embedded("<stdlib>/ops/cann-ops.tsv", NULL);
  assert_non_null(f);
  tfx_cann_table text;
  load_cann_text(&text, f->data, (size_t)f->len);
  const tfx_cann_table *pre = cann_stdlib();
  assert_true(pre->n_ops > 1900);
  if (cann_differ(pre, &text)) fail_msg("precompiled CANN table differs from the text: %s", why);
  tfx_cann_free(&text);
}

static void tf_equals_embedded_text(void **state) {
  (void)state;
  const tfx_embedded_file *f = tfx_cann_embedded("<stdlib>/ops/tf-ops.tsv", NULL);
  assert_non_null(f);
  tfx_tf_table text;
  load_tf_text(&text, f->data, (size_t)f->len);
  const tfx_tf_table *pre = tf_stdlib();
  assert_true(pre->n_ops > 1500);
  if (tf_differ(pre, &text)) fail_msg("precompiled TF table differs from the text: %s", why);
  tfx_tf_ops_free(&text);
}

/* The files of the source tree, read now: a table compiled from anything else fails here. */
static char *source_file(const char *rel, size_t *len) {
  const char *src = getenv("TFXC_SRC");
  if (!src) return NULL;
  char path[4096];
  snprintf(path, sizeof path, "%s/stdlib/ops/%s", src, rel);
  tfx_diag d;
  tfx_diag_init(&d);
  char *text = tfx_read_file(path, 0, len, &d);
  if (!text) tfx_diag_print(&d, stderr);
  tfx_diag_free(&d);
  return text;
}

static void equal_source_files(void **state) {
  (void)state;
  size_t n;
  char *text = source_file("cann-ops.tsv", &n);
  if (!text) skip();
  tfx_cann_table ct;
  load_cann_text(&ct, text, n);
  if (cann_differ(cann_stdlib(), &ct)) fail_msg("precompiled CANN table differs from the source file: %s", why);
  tfx_cann_free(&ct);
  free(text);
  text = source_file("tf-ops.tsv", &n);
  assert_non_null(text);
  tfx_tf_table tt;
  load_tf_text(&tt, text, n);
  if (tf_differ(tf_stdlib(), &tt)) fail_msg("precompiled TF table differs from the source file: %s", why);
  tfx_tf_ops_free(&tt);
  free(text);
}

/* The comparison finds a change in each kind of field (the texts are edited copies). */
static void comparison_finds_changes(void **state) {
  (void)state;
  static const char *const base =
      "#name\tinputs\toutputs\tattrs\tsource\n"
      "A\tx:req:f16,y:opt:f32\tz:dyn:T=@ALL\tn:Int=3,l:ListListInt=[[1 2] [3]],s:String=\"a\\0b\","
      "f:Float=0.5,t:Type=DT_FLOAT\tsrc\n"
      "B\t\t\tr:Int\tsrc\n";
  static const char *const edits[] = {
      "y:opt:f32", "y:req:f32",       /* a port's kind */
      "z:dyn:T=@ALL", "z:dyn:T=@N",   /* a port's dtypes */
      "[[1 2] [3]]", "[[1 2] [4]]",   /* an item of a list of lists */
      "\"a\\0b\"", "\"a\\0c\"",       /* a byte after a NUL */
      "0.5", "0.50000001",            /* a float */
      "r:Int", "r:Int=1",             /* required */
      "\tsrc\nB", "\tsrd\nB",         /* a source */
  };
  tfx_cann_table a;
  load_cann_text(&a, base, strlen(base));
  tfx_cann_table same;
  load_cann_text(&same, base, strlen(base));
  assert_int_equal(cann_differ(&a, &same), 0);
  tfx_cann_free(&same);
  for (size_t k = 0; k + 1 < sizeof edits / sizeof edits[0]; k += 2) {
    const char *at = strstr(base, edits[k]);
    assert_non_null(at);
    char text[1024];
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - base), base, edits[k + 1], at + strlen(edits[k]));
    tfx_cann_table b;
    load_cann_text(&b, text, strlen(text));
    why[0] = 0;
    assert_int_equal(cann_differ(&a, &b), 1);
    assert_true(why[0] != 0);
    tfx_cann_free(&b);
  }
  /* a line moved down (same ops) and an op missing */
  char text[1024];
  snprintf(text, sizeof text, "#\n%s", base);
  tfx_cann_table b;
  load_cann_text(&b, text, strlen(text));
  assert_int_equal(cann_differ(&a, &b), 1);
  tfx_cann_free(&b);
  snprintf(text, sizeof text, "%.*s", (int)(strstr(base, "B\t") - base), base);
  load_cann_text(&b, text, strlen(text));
  assert_int_equal(cann_differ(&a, &b), 1);
  tfx_cann_free(&b);
  tfx_cann_free(&a);

  static const char *const tbase = "#name\tinputs\toutputs\tattrs\tis_stateful\n"
                                   "A\tx:T\ty:T\tT:type{DT_INT32|DT_INT64}=DT_INT32,N:int>=1=2\t0\n";
  static const char *const tedits[] = {"DT_INT64}", "DT_HALF}", ">=1", ">=2", "=2\t0", "=3\t0", "\t0\n", "\t1\n",
                                       "y:T", "y:T:ref"};
  tfx_tf_table ta;
  load_tf_text(&ta, tbase, strlen(tbase));
  for (size_t k = 0; k + 1 < sizeof tedits / sizeof tedits[0]; k += 2) {
    const char *at = strstr(tbase, tedits[k]);
    assert_non_null(at);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - tbase), tbase, tedits[k + 1], at + strlen(tedits[k]));
    tfx_tf_table tb;
    load_tf_text(&tb, text, strlen(text));
    assert_int_equal(tf_differ(&ta, &tb), 1);
    tfx_tf_ops_free(&tb);
  }
  tfx_tf_ops_free(&ta);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cann_equals_embedded_text),
      cmocka_unit_test(tf_equals_embedded_text),
      cmocka_unit_test(equal_source_files),
      cmocka_unit_test(comparison_finds_changes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
