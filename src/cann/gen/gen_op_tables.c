/* tfxc_gen_op_tables: compiles the stdlib's op tables (<stdlib>/ops/cann-ops.tsv and
 * tf-ops.tsv) into C data at build time (src/cann/stdlib_tables.h), so that a run never
 * parses them.
 * Stage: build tool, run by CMake. It is linked with the readers themselves (cann.c, tf_ops.c,
 * tsv.c, not the library tfxc_cann that holds its output) and reads the embedded copies of the
 * files, so the data is whatever tfx_cann_load / tfx_tf_ops_load make of the text of this
 * build. A malformed table fails the build (printed as file:line:col).
 * Usage: tfxc_gen_op_tables OUT.c
 *
 * Output: flat arrays of ports, attributes, list items and args, and one array of ops per
 * table pointing into them. Every field is written out, strings as escaped literals with
 * their exact bytes (a string default may hold NUL), floats in hexadecimal (exact). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "cann/cann_int.h"
#include "util/diag.h"
#include "util/fileio.h"
#include "util/strbuf.h"

static void put_str(tfx_strbuf *b, const char *s, size_t n) {
  tfx_sb_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?') tfx_sb_putc(b, (char)c);
    else tfx_sb_printf(b, "\\%03o", c); /* three octal digits: ends where it should */
  }
  tfx_sb_putc(b, '"');
}

static void put_cstr(tfx_strbuf *b, const char *s) {
  if (!s) tfx_sb_puts(b, "0");
  else put_str(b, s, strlen(s));
}

/* ---------------------------------------------------------------- list values, flattened */

typedef struct flat {
  tfx_value v;
  long child; /* offset of its items in the flat array (lists with items), else -1 */
} flat;

typedef struct flats {
  flat *v;
  size_t n, cap;
} flats;

static long place(flats *f, const tfx_value *items, uint32_t n) {
  if (f->n + n > f->cap) {
    size_t nc = f->cap ? f->cap * 2 : 256;
    while (nc < f->n + n) nc *= 2;
    flat *nv = realloc(f->v, nc * sizeof *nv);
    if (!nv) {
      fprintf(stderr, "tfxc_gen_op_tables: out of memory\n");
      exit(1);
    }
    f->v = nv;
    f->cap = nc;
  }
  long base = (long)f->n;
  f->n += n;
  for (uint32_t i = 0; i < n; i++) {
    f->v[base + i].v = items[i];
    f->v[base + i].child = -1;
    if (items[i].tag == TFX_V_LIST && items[i].n) {
      long c = place(f, items[i].u.items, items[i].n);
      f->v[base + i].child = c;
    }
  }
  return base;
}

/* A tfx_value initializer; child: offset of its items in cv_ (lists), else ignored. */
static void put_value(tfx_strbuf *b, const tfx_value *v, long child) {
  tfx_sb_printf(b, "{.tag = %u, .depth = %u, .n = %" PRIu32, (unsigned)v->tag, (unsigned)v->depth, v->n);
  switch (v->tag) {
    case TFX_V_NONE:
      break;
    case TFX_V_BOOL:
    case TFX_V_INT:
    case TFX_V_DTYPE:
      if (v->u.i == INT64_MIN) tfx_sb_puts(b, ", .u.i = INT64_MIN");
      else tfx_sb_printf(b, ", .u.i = %" PRId64, v->u.i);
      break;
    case TFX_V_FLOAT:
      if (isnan(v->u.f)) tfx_sb_printf(b, ", .u.f = %sNAN", signbit(v->u.f) ? "-" : "");
      else if (isinf(v->u.f)) tfx_sb_printf(b, ", .u.f = %s(double)INFINITY", v->u.f < 0 ? "-" : "");
      else tfx_sb_printf(b, ", .u.f = %a", v->u.f);
      break;
    case TFX_V_STR:
      tfx_sb_puts(b, ", .u.s = ");
      put_str(b, v->u.s, v->n);
      break;
    case TFX_V_LIST:
      if (v->n) tfx_sb_printf(b, ", .u.items = cv_ + %ld", child);
      break;
    default:
      fprintf(stderr, "tfxc_gen_op_tables: value of kind %u in an op table\n", (unsigned)v->tag);
      exit(1);
  }
  tfx_sb_puts(b, "}");
}

/* ---------------------------------------------------------------- the CANN table */

static void put_cann(tfx_strbuf *b, const tfx_cann_table *t) {
  /* list items first (attr defaults point into them) */
  flats f = {0};
  size_t n_attrs = 0, n_ports = 0;
  for (uint32_t i = 0; i < t->n_ops; i++) n_attrs += t->ops[i].n_attrs;
  long *child = calloc(n_attrs ? n_attrs : 1, sizeof *child);
  if (!child) exit(1);
  size_t k = 0;
  for (uint32_t i = 0; i < t->n_ops; i++)
    for (uint32_t j = 0; j < t->ops[i].n_attrs; j++, k++) {
      const tfx_value *v = &t->ops[i].attrs[j].value;
      child[k] = v->tag == TFX_V_LIST && v->n ? place(&f, v->u.items, v->n) : -1;
    }
  tfx_sb_puts(b, "static const tfx_value cv_[] = {\n");
  for (size_t i = 0; i < f.n; i++) {
    put_value(b, &f.v[i].v, f.v[i].child);
    tfx_sb_puts(b, ",\n");
  }
  tfx_sb_puts(b, "{0}};\n\nstatic const tfx_cann_port cp_[] = {\n");
  for (uint32_t i = 0; i < t->n_ops; i++) {
    const tfx_cann_op *op = &t->ops[i];
    for (int side = 0; side < 2; side++) {
      const tfx_cann_port *p = side ? op->out : op->in;
      uint32_t n = side ? op->n_out : op->n_in;
      for (uint32_t j = 0; j < n; j++, n_ports++) {
        tfx_sb_puts(b, "{.name = ");
        put_cstr(b, p[j].name);
        tfx_sb_printf(b, ", .kind = %u, .dtypes = ", (unsigned)p[j].kind);
        put_cstr(b, p[j].dtypes);
        tfx_sb_puts(b, "},\n");
      }
    }
  }
  tfx_sb_puts(b, "{0}};\n\nstatic const tfx_cann_attr ca_[] = {\n");
  k = 0;
  for (uint32_t i = 0; i < t->n_ops; i++)
    for (uint32_t j = 0; j < t->ops[i].n_attrs; j++, k++) {
      const tfx_cann_attr *a = &t->ops[i].attrs[j];
      tfx_sb_puts(b, "{.name = ");
      put_cstr(b, a->name);
      tfx_sb_printf(b, ", .type = %u, .required = %u, .def = ", (unsigned)a->type, (unsigned)a->required);
      put_cstr(b, a->def);
      tfx_sb_puts(b, ", .value = ");
      put_value(b, &a->value, child[k]);
      tfx_sb_puts(b, "},\n");
    }
  tfx_sb_puts(b, "{0}};\n\nstatic const char cann_file_[] = ");
  put_cstr(b, t->n_ops ? t->ops[0].file : "");
  tfx_sb_puts(b, ";\n\nconst tfx_cann_op tfx_gen_cann_ops[] = {\n");
  size_t po = 0, ao = 0;
  for (uint32_t i = 0; i < t->n_ops; i++) {
    const tfx_cann_op *op = &t->ops[i];
    if (!op->file || strcmp(op->file, t->ops[0].file) != 0) {
      fprintf(stderr, "tfxc_gen_op_tables: ops of one table from two files\n");
      exit(1);
    }
    tfx_sb_puts(b, "{.name = ");
    put_cstr(b, op->name);
    if (op->n_in) tfx_sb_printf(b, ", .in = cp_ + %zu", po);
    tfx_sb_printf(b, ", .n_in = %" PRIu32, op->n_in);
    po += op->n_in;
    if (op->n_out) tfx_sb_printf(b, ", .out = cp_ + %zu", po);
    tfx_sb_printf(b, ", .n_out = %" PRIu32, op->n_out);
    po += op->n_out;
    if (op->n_attrs) tfx_sb_printf(b, ", .attrs = ca_ + %zu", ao);
    tfx_sb_printf(b, ", .n_attrs = %" PRIu32 ", .source = ", op->n_attrs);
    ao += op->n_attrs;
    put_cstr(b, op->source);
    tfx_sb_printf(b, ", .file = cann_file_, .line = %" PRIu32 "},\n", op->line);
  }
  tfx_sb_printf(b, "{0}};\nconst uint32_t tfx_gen_cann_n_ops = %" PRIu32 "u;\n\n", t->n_ops);
  free(child);
  free(f.v);
}

/* ---------------------------------------------------------------- the TF table */

static void put_tf(tfx_strbuf *b, const tfx_tf_table *t) {
  tfx_sb_puts(b, "static const tfx_tf_arg ta_[] = {\n");
  for (uint32_t i = 0; i < t->n_ops; i++) {
    const tfx_tf_op *op = &t->ops[i];
    for (int side = 0; side < 2; side++) {
      const tfx_tf_arg *a = side ? op->out : op->in;
      uint32_t n = side ? op->n_out : op->n_in;
      for (uint32_t j = 0; j < n; j++) {
        tfx_sb_puts(b, "{.name = ");
        put_cstr(b, a[j].name);
        tfx_sb_puts(b, ", .type = ");
        put_cstr(b, a[j].type);
        tfx_sb_puts(b, ", .number_attr = ");
        put_cstr(b, a[j].number_attr);
        tfx_sb_puts(b, ", .list_attr = ");
        put_cstr(b, a[j].list_attr);
        tfx_sb_printf(b, ", .is_ref = %u},\n", (unsigned)a[j].is_ref);
      }
    }
  }
  tfx_sb_puts(b, "{0}};\n\nstatic const tfx_tf_attr tt_[] = {\n");
  for (uint32_t i = 0; i < t->n_ops; i++)
    for (uint32_t j = 0; j < t->ops[i].n_attrs; j++) {
      const tfx_tf_attr *a = &t->ops[i].attrs[j];
      tfx_sb_puts(b, "{.name = ");
      put_cstr(b, a->name);
      tfx_sb_puts(b, ", .type = ");
      put_cstr(b, a->type);
      tfx_sb_puts(b, ", .def = ");
      put_cstr(b, a->def);
      tfx_sb_puts(b, ", .allowed = ");
      put_cstr(b, a->allowed);
      if (a->minimum == INT64_MIN) tfx_sb_puts(b, ", .minimum = INT64_MIN");
      else tfx_sb_printf(b, ", .minimum = %" PRId64, a->minimum);
      tfx_sb_printf(b, ", .has_minimum = %u},\n", (unsigned)a->has_minimum);
    }
  tfx_sb_puts(b, "{0}};\n\nconst tfx_tf_op tfx_gen_tf_ops[] = {\n");
  size_t ao = 0, to = 0;
  for (uint32_t i = 0; i < t->n_ops; i++) {
    const tfx_tf_op *op = &t->ops[i];
    tfx_sb_puts(b, "{.name = ");
    put_cstr(b, op->name);
    if (op->n_in) tfx_sb_printf(b, ", .in = ta_ + %zu", ao);
    tfx_sb_printf(b, ", .n_in = %" PRIu32, op->n_in);
    ao += op->n_in;
    if (op->n_out) tfx_sb_printf(b, ", .out = ta_ + %zu", ao);
    tfx_sb_printf(b, ", .n_out = %" PRIu32, op->n_out);
    ao += op->n_out;
    if (op->n_attrs) tfx_sb_printf(b, ", .attrs = tt_ + %zu", to);
    to += op->n_attrs;
    tfx_sb_printf(b, ", .n_attrs = %" PRIu32 ", .is_stateful = %u, .line = %" PRIu32 "},\n",
                  op->n_attrs, (unsigned)op->is_stateful, op->line);
  }
  tfx_sb_printf(b, "{0}};\nconst uint32_t tfx_gen_tf_n_ops = %" PRIu32 "u;\n", t->n_ops);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: tfxc_gen_op_tables OUT.c\n");
    return 2;
  }
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_cann_table ct;
  tfx_tf_table tt;
  memset(&ct, 0, sizeof ct);
  memset(&tt, 0, sizeof tt);
  const tfx_embedded_file *cf = tfx_cann_embedded("<stdlib>/ops/cann-ops.tsv", &d);
  const tfx_embedded_file *tf = tfx_cann_embedded("<stdlib>/ops/tf-ops.tsv", &d);
  int rc = !cf || !tf;
  if (!rc) rc = tfx_cann_load(&ct, cf->data, (size_t)cf->len, cf->name, &d) != 0;
  if (!rc) rc = tfx_tf_ops_load(&tt, tf->data, (size_t)tf->len, tf->name, &d) != 0;
  tfx_strbuf b;
  tfx_sb_init(&b);
  if (!rc) {
    tfx_sb_puts(&b, "/* Generated by tfxc_gen_op_tables (src/cann/gen/gen_op_tables.c) from "
                    "<stdlib>/ops/cann-ops.tsv\n * and tf-ops.tsv. Do not edit. */\n"
                    "#include <math.h>\n#include <stdint.h>\n\n#include \"cann/stdlib_tables.h\"\n\n");
    put_cann(&b, &ct);
    put_tf(&b, &tt);
    if (b.oom) {
      fprintf(stderr, "tfxc_gen_op_tables: out of memory\n");
      rc = 1;
    } else
      rc = tfx_write_file_atomic(argv[1], b.data, b.len, &d) != 0;
  }
  tfx_diag_print(&d, stderr);
  if (rc) fprintf(stderr, "tfxc_gen_op_tables: the stdlib op tables do not load\n");
  tfx_sb_free(&b);
  tfx_cann_free(&ct);
  tfx_tf_ops_free(&tt);
  tfx_diag_free(&d);
  return rc ? 1 : 0;
}
