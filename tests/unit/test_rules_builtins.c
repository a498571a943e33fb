/* The builtin table (TFX_VM_BUILTINS, src/vm/opcodes.h) is the one both the rule checker and
 * the VM read. For every row and every place rule source can hold an expression (a `fuse`
 * condition and a `rewrite` condition in .scoperule files, a `when` of an .opmap), a call with
 * arguments of the row's types must pass sema exactly where the row's SOURCE column allows
 * it, and then compile into a pack whose CALL of that builtin the VM's verifier accepts (the
 * pack written and loaded back, as a .tfxb is); elsewhere sema reports "only available in"
 * the right file kind. A builtin that sema let through but the VM refused (or the reverse, a
 * VM builtin sema does not know) fails here. The bare .opmap names (`n_inputs`, `op`) are
 * checked the same way. The argument type checks of a few builtins are checked through their
 * messages at file:line:col. With --needs-data (the source tree, TFXC_SRC): docs/LANGUAGE.md
 * names every builtin rule source can use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/compile.h"
#include "rules/load.h"
#include "util/diag.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "vm/bytecode.h"
#include "vm/pack.h"

enum { CTX_FUSE, CTX_REWRITE, CTX_OPMAP, CTX__COUNT };
static const char *const ctx_name[CTX__COUNT] = {"fuse where", "rewrite where", "opmap when"};

/* An expression of one of the types in t, valid in ctx. */
static const char *arg_expr(unsigned t, int ctx) {
  static const char any[] = "lookup(1, {1: 1})"; /* statically: any value */
  if (t & TFX_T_SCOPE && ctx == CTX_FUSE) return "s";
  if (t & TFX_T_NODE && ctx == CTX_REWRITE) return "m";
  if (t & TFX_T_INPUT && ctx == CTX_OPMAP) return "in 0";
  if (t & TFX_T_INT) return "1";
  if (t & TFX_T_FLOAT) return "1.5";
  if (t & TFX_T_STRING) return "\"a\"";
  if (t & TFX_T_BOOL) return "true";
  if (t & TFX_T_LIST) return "[1]";
  if (t & TFX_T_DICT) return "{1: 2}";
  return any;
}

/* The call of builtin i with well-typed arguments (`n_inputs`-like names: the bare name). */
static void call_text(unsigned i, int ctx, char *buf, size_t n) {
  const tfx_builtin_info *bi = &tfx_vm_builtins[i];
  if (bi->source == TFX_BI_SRC_NAME) {
    snprintf(buf, n, "%s", bi->name);
    return;
  }
  size_t k = (size_t)snprintf(buf, n, "%s(", bi->name);
  for (unsigned a = 0; a < bi->source_max && k < n; a++) {
    const char *x = i == TFX_BI_scopes ? "pat" : arg_expr(a < 2 ? bi->args[a] : TFX_T_ANY, ctx);
    k += (size_t)snprintf(buf + k, n - k, "%s%s", a ? ", " : "", x);
  }
  if (k < n) snprintf(buf + k, n - k, ")");
}

/* A source with `call` in ctx; *name gets the file name. */
static void source_text(const char *call, int ctx, char *buf, size_t n, const char **name) {
  const char *fuse_cond = ctx == CTX_FUSE ? call : "true";
  if (ctx == CTX_OPMAP) {
    *name = "b.opmap";
    snprintf(buf, n, "op Identity -> Identity {\n  auto;\n  when exists(%s);\n}\n", call);
    return;
  }
  *name = "b.scoperule";
  size_t k = (size_t)snprintf(buf, n,
                              "pass P {\n  group { layer { pattern pat { count MatMul == 1; } } }\n"
                              "  fuse s in pat where exists(%s) { type Foo; }\n}\n",
                              fuse_cond);
  if (ctx == CTX_REWRITE && k < n)
    snprintf(buf + k, n - k, "rewrite R {\n  match m: StopGradient(x);\n  where exists(%s);\n  out m = x;\n}\n", call);
}

static int has_msg(const tfx_diag *d, const char *needle) {
  for (size_t i = 0; i < d->n; i++)
    if (strstr(d->items[i].msg, needle)) return 1;
  return 0;
}

static void dump(const tfx_diag *d) {
  for (size_t i = 0; i < d->n; i++)
    fprintf(stderr, "  %u:%u: %s\n", d->items[i].line, d->items[i].col, d->items[i].msg);
}

/* 1 if some program of kind `kind` in p calls builtin id (len compiles to LEN). */
static int pack_calls(const tfx_pack *p, unsigned id, uint32_t kind) {
  for (uint32_t g = 0; g < p->n_progs; g++) {
    const tfx_vm_prog *pr = &p->progs[g];
    if (pr->kind != kind) continue;
    for (uint32_t pc = pr->start; pc < pr->end; pc += TFX_INS_LEN(TFX_INS_OP(&p->code[pc]))) {
      const uint32_t *ins = &p->code[pc];
      if (TFX_INS_OP(ins) == TFX_OP_CALL && TFX_INS_RAW(ins, 1) == id) return 1;
      if (id == TFX_BI_len && TFX_INS_OP(ins) == TFX_OP_LEN) return 1;
    }
  }
  return 0;
}

/* Checks, compiles, writes and reloads (verifying) text; returns the number of errors. */
static size_t compile_and_verify(const char *name, const char *text, unsigned id, uint32_t kind, tfx_diag *d) {
  tfx_ruleset *rs = tfx_ruleset_new();
  assert_non_null(rs);
  tfx_rules_load_buffer(rs, name, text, strlen(text), d);
  tfx_rules_check(rs, NULL, d);
  size_t errors = tfx_ruleset_errors(rs);
  if (errors == 0) {
    tfx_pack p, back;
    tfx_pack_init(&p);
    tfx_pack_init(&back);
    assert_int_equal(tfx_rules_compile(rs, &p, d), 0);
    assert_true(pack_calls(&p, id, kind));
    tfx_strbuf b;
    tfx_sb_init(&b);
    assert_int_equal(tfx_pack_write(&p, &b), 0);
    int rc = tfx_pack_load(&back, b.data, b.len, "b.tfxb", d);
    if (rc != 0) dump(d);
    assert_int_equal(rc, 0); /* the verifier accepts the CALL in its program kind */
    assert_true(pack_calls(&back, id, kind));
    tfx_sb_free(&b);
    tfx_pack_free(&p);
    tfx_pack_free(&back);
  }
  tfx_ruleset_free(rs);
  return errors;
}

static void every_builtin_where_source_allows(void **state) {
  (void)state;
  static const uint32_t prog_kind[CTX__COUNT] = {TFX_PK_SELECT, TFX_PK_MAP, TFX_PK_MAP};
  static const unsigned file_bit[CTX__COUNT] = {TFX_BI_SRC_SCOPERULE, TFX_BI_SRC_SCOPERULE, TFX_BI_SRC_OPMAP};
  unsigned accepted = 0, refused = 0;
  for (unsigned i = 0; i < TFX_BI__COUNT; i++) {
    const tfx_builtin_info *bi = &tfx_vm_builtins[i];
    for (int ctx = 0; ctx < CTX__COUNT; ctx++) {
      char call[200], text[1000];
      const char *name;
      call_text(i, ctx, call, sizeof call);
      source_text(call, ctx, text, sizeof text, &name);
      int allowed = bi->source == TFX_BI_SRC_NAME ? ctx == CTX_OPMAP : (bi->source & file_bit[ctx]) != 0;
      tfx_diag d;
      tfx_diag_init(&d);
      size_t errors = compile_and_verify(name, text, i, prog_kind[ctx], &d);
      if ((errors == 0) != allowed) {
        fprintf(stderr, "builtin %s in a %s: %s by sema\n%s", bi->name, ctx_name[ctx],
                errors ? "refused" : "accepted", text);
        dump(&d);
      }
      assert_int_equal(errors == 0, allowed);
      if (allowed) {
        accepted++;
      } else {
        refused++;
        const char *why = bi->source == TFX_BI_SRC_NAME ? "unknown name"
                          : bi->source == TFX_BI_SRC_OPMAP ? "is only available in .opmap files"
                                                            : "is only available in .scoperule files";
        if (!has_msg(&d, why)) dump(&d);
        assert_true(has_msg(&d, why));
      }
      tfx_diag_free(&d);
    }
    /* the call form of a bare name is an error in any file */
    if (bi->source == TFX_BI_SRC_NAME) {
      char call[100], text[1000];
      const char *name;
      snprintf(call, sizeof call, "%s()", bi->name);
      for (int ctx = 0; ctx < CTX__COUNT; ctx++) {
        source_text(call, ctx, text, sizeof text, &name);
        tfx_diag d;
        tfx_diag_init(&d);
        assert_true(compile_and_verify(name, text, i, prog_kind[ctx], &d) > 0);
        tfx_diag_free(&d);
      }
    }
  }
  /* every row was exercised both ways somewhere: 3 contexts per builtin */
  assert_int_equal(accepted + refused, 3 * TFX_BI__COUNT);
  assert_true(accepted > 0 && refused > 0);
}

/* One diagnostic, exactly: "file:line:col: message". */
static void expect_error(const char *name, const char *text, const char *want) {
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ruleset *rs = tfx_ruleset_new();
  assert_non_null(rs);
  tfx_rules_load_buffer(rs, name, text, strlen(text), &d);
  assert_int_equal(tfx_rules_check(rs, NULL, &d), -1);
  if (d.n != 1) dump(&d);
  assert_int_equal(d.n, 1);
  char got[600];
  snprintf(got, sizeof got, "%s:%u:%u: %s", d.items[0].file, d.items[0].line, d.items[0].col, d.items[0].msg);
  assert_string_equal(got, want);
  tfx_ruleset_free(rs);
  tfx_diag_free(&d);
}

static void argument_and_arity_checks(void **state) {
  (void)state;
  expect_error("t.opmap", "op Identity -> Identity {\n  auto;\n  when has_input(\"x\");\n}\n",
               "t.opmap:3:18: type mismatch: argument 1 of 'has_input' must be int, got string");
  expect_error("t.opmap", "op Identity -> Identity {\n  auto;\n  when format_of(1) == \"NCHW\";\n}\n",
               "t.opmap:3:18: type mismatch: argument 1 of 'format_of' must be input, got int");
  expect_error("t.opmap", "op Identity -> Identity {\n  auto;\n  when exists(before(\"a\", 2));\n}\n",
               "t.opmap:3:27: type mismatch: argument 2 of 'before' must be string, got int");
  expect_error("t.opmap", "op Identity -> Identity {\n  auto;\n  when round(\"2\") == 2;\n}\n",
               "t.opmap:3:14: type mismatch: argument 1 of 'round' must be number, got string");
  expect_error("t.scoperule",
               "pass P {\n  group { layer { pattern pat { count MatMul == 1; } } }\n"
               "  fuse s in pat where inside(s, s) { type Foo; }\n}\n",
               "t.scoperule:3:30: type mismatch: argument 1 of 'inside' must be node, got scope");
  expect_error("t.scoperule",
               "pass P {\n  group { layer { pattern pat { count MatMul == 1; } } }\n"
               "  fuse s in pat where exists(scopes(\"pat\", \"pat\")) { type Foo; }\n}\n",
               "t.scoperule:3:30: 'scopes' takes 1 argument, got 2");
  expect_error("t.opmap", "op Identity -> Identity {\n  auto;\n  when exists(consumers(T));\n}\n",
               "t.opmap:3:15: 'consumers' is only available in .scoperule files");
}

/* docs/LANGUAGE.md shows each callable builtin as `name(...)` and each bare .opmap name as
 * `name`. */
static void language_md_names_every_builtin(void **state) {
  (void)state;
  char path[4096];
  snprintf(path, sizeof path, "%s/docs/LANGUAGE.md", getenv("TFXC_SRC"));
  tfx_diag d;
  tfx_diag_init(&d);
  size_t len;
  char *md = tfx_read_file(path, 1u << 24, &len, &d);
  assert_non_null(md);
  for (unsigned i = 0; i < TFX_BI__COUNT; i++) {
    const tfx_builtin_info *bi = &tfx_vm_builtins[i];
    char want[80];
    snprintf(want, sizeof want, bi->source == TFX_BI_SRC_NAME ? "`%s`" : "`%s(", bi->name);
    if (!strstr(md, want)) fprintf(stderr, "docs/LANGUAGE.md does not show %s\n", want);
    assert_non_null(strstr(md, want));
  }
  free(md);
  tfx_diag_free(&d);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--needs-data") == 0) {
    char path[4096];
    const char *src = getenv("TFXC_SRC");
    snprintf(path, sizeof path, "%s/docs/LANGUAGE.md", src ? src : "");
    FILE *f = src ? fopen(path, "r") : NULL;
    if (!f) {
      printf("skipped: the source tree (TFXC_SRC) not found\n");
      return 77;
    }
    fclose(f);
    const struct CMUnitTest data_tests[] = {
        cmocka_unit_test(language_md_names_every_builtin),
    };
    return cmocka_run_group_tests(data_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_builtin_where_source_allows),
      cmocka_unit_test(argument_and_arity_checks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
