/* Rule compiler tests (Lua code.lua style): small rules compile to the expected opcode
 * sequences (golden listings), and compiled packs run on the VM over small graphs through a
 * recording host (scope matching per docs/ASCEND.md, selection results, op-map effects).
 * Also: determinism (byte-identical packs), a 1000-pass compile timing (printed, not
 * asserted), compile errors with locations, and fault injection over load+check+compile. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "test_vm_util.h"
#include "rules/compile.h"
#include "rules/load.h"
#include "util/arena.h"
#include "util/status.h"

/* ---------------------------------------------------------------- helpers */

/* Loads, checks and compiles one source (kind from the name) into *p. Returns the compile
 * result, or -1 when load/check failed. */
static int compile_src(const char *name, const char *text, tfx_pack *p, tfx_diag *d) {
  tfx_ruleset *rs = tfx_ruleset_new();
  assert_non_null(rs);
  int rc = -1;
  tfx_pack_init(p);
  if (tfx_rules_load_buffer(rs, name, text, strlen(text), d) == 0 && tfx_rules_check(rs, NULL, d) == 0)
    rc = tfx_rules_compile(rs, p, d);
  tfx_ruleset_free(rs);
  return rc;
}

static void must_compile(const char *name, const char *text, tfx_pack *p) {
  tfx_diag d;
  tfx_diag_init(&d);
  int rc = compile_src(name, text, p, &d);
  if (rc || d.n) tg_dump(&d);
  assert_int_equal(rc, 0);
  assert_int_equal(d.n, 0);
  tfx_diag_free(&d);
}

/* A program as text: one instruction per line, `pc OPCODE operands ; constants` with runs
 * of spaces collapsed. */
static tfx_strbuf g_list;
static const char *listing(const tfx_pack *p, uint32_t prog) {
  tfx_sb_reset(&g_list);
  tfx_strbuf ins;
  tfx_sb_init(&ins);
  const tfx_vm_prog *pr = &p->progs[prog];
  for (uint32_t pc = pr->start; pc < pr->end; pc += TFX_INS_LEN(TFX_INS_OP(p->code + pc))) {
    tfx_sb_reset(&ins);
    tfx_vm_format_ins(p, pc, &ins);
    tfx_sb_printf(&g_list, "%u ", pc);
    const char *s = tfx_sb_cstr(&ins);
    for (size_t i = 0; s[i]; i++)
      if (s[i] != ' ' || (s[i + 1] != ' ' && s[i + 1])) tfx_sb_putc(&g_list, s[i]);
    tfx_sb_putc(&g_list, '\n');
  }
  tfx_sb_free(&ins);
  return tfx_sb_cstr(&g_list);
}

/* Compares a listing with its golden text; on mismatch prints the actual one as C literals. */
static void expect_text(const char *what, const char *got, const char *want) {
  if (strcmp(got, want) == 0) return;
  fprintf(stderr, "---- %s: expected:\n%s---- got:\n", what, want);
  for (const char *s = got; *s;) {
    const char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    fputs("      \"", stderr);
    for (size_t i = 0; i < n; i++) {
      if (s[i] == '"' || s[i] == '\\') fputc('\\', stderr);
      fputc(s[i], stderr);
    }
    fputs(e ? "\\n\"\n" : "\"\n", stderr);
    s += n + (e != NULL);
  }
  fail_msg("%s: listing differs", what);
}

/* The programs of a pack: rule r's main program and pattern i's scope program. */
static uint32_t main_prog(const tfx_pack *p, uint32_t r) {
  assert_true(r < p->n_rules);
  return p->rules[r].prog;
}
static uint32_t pattern_prog(const tfx_pack *p, uint32_t i) {
  assert_true(i < p->n_patterns);
  return p->patterns[i].prog;
}

/* Compiles text into the fixture's pack, makes and links the VM over the fixture's model. */
static void ct_compile(vt *f, const char *name, const char *text) {
  must_compile(name, text, &f->p);
  f->vm = tfx_vm_new(&f->p);
  assert_non_null(f->vm);
  tfx_vm_set_host(f->vm, &vt_host, f);
  assert_int_equal(tfx_vm_link(f->vm, f->have_model ? &f->m.main : NULL, f->have_model ? &f->m.ops : NULL,
                               f->have_model ? &f->t : NULL, &f->subtypes, &f->d),
                   0);
}

static int run_ok(vt *f, uint32_t prog, uint32_t kind, uint32_t arg) {
  int rc = vt_run_prog(f, prog, kind, arg);
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  return 0;
}

/* Runs the scope program of pattern i over the scope named full; returns matched. */
static int matches(vt *f, uint32_t i, const char *full) {
  run_ok(f, pattern_prog(&f->p, i), TFX_PK_SCOPE, vt_scope(f, full));
  return f->res.matched;
}

/* Runs map rule r over node `name`; returns the log. */
static const char *run_map(vt *f, uint32_t r, const char *node) {
  tfx_sb_reset(&f->log);
  run_ok(f, main_prog(&f->p, r), TFX_PK_MAP, vt_node(f, node));
  return tfx_sb_cstr(&f->log);
}

static const char *run_select(vt *f, uint32_t r) {
  tfx_sb_reset(&f->log);
  run_ok(f, main_prog(&f->p, r), TFX_PK_SELECT, 0);
  return tfx_sb_cstr(&f->log);
}

/* ---------------------------------------------------------------- golden listings */

static void golden_pattern_features(void **state) {
  (void)state;
  tfx_pack p;
  must_compile("t.scoperule",
               "pass P {\n"
               "  group {\n"
               "    layer { pattern q { present Relu; } }\n"
               "    layer { pattern p {\n"
               "      name == \"x\"; has_child \"m\"; scopes q == 1;\n"
               "      attr Split.num_split == 4; absent Identity; count Mul % 3 == 0;\n"
               "      present Tanh; count Sub == 1; attr Conv.alpha == 0.5;\n"
               "      attr A.s == \"a\\\"b\"; attr A.b == true;\n"
               "    } }\n"
               "  }\n"
               "  fuse s in p { type X; }\n"
               "}\n",
               &p);
  expect_text("pattern q", listing(&p, pattern_prog(&p, 0)),
      "0 SC_PRESENT f0, k3 ; \"Relu\"\n"
      "3 SC_NORETVAL f1\n"
      "5 MATCH k5 ; \"q\"\n");
  expect_text("pattern p", listing(&p, pattern_prog(&p, 1)),
      "7 SC_ABSENT f2, k7 ; \"Identity\"\n"
      "10 SC_STEP f3, k9, #0, #3 ; \"Mul\"\n"
      "15 SC_PRESENT f4, k11 ; \"Tanh\"\n"
      "18 SC_COUNT f5, k13, #1 ; \"Sub\"\n"
      "22 SC_ATTR f6, k17, k16, k15 ; \"Split\" \"num_split\" 4\n"
      "27 SC_ATTR f7, k21, k20, k19 ; \"Conv\" \"alpha\" 0.5\n"
      "32 SC_ATTR f8, k25, k24, k23 ; \"A\" \"s\" \"a\\\"b\"\n"
      "37 SC_ATTR f9, k25, k28, k27 ; \"A\" \"b\" true\n"
      "42 SC_NAME f10, k30 ; \"x\"\n"
      "45 SC_MASK f11, k32 ; \"m\"\n"
      "48 SC_SUBTYPES f12, k5, #1 ; \"q\"\n"
      "52 SC_NORETVAL f13\n"
      "54 MATCH k34 ; \"p\"\n");
  /* every feature is registered with its canonical text and line */
  tfx_strbuf b;
  tfx_sb_init(&b);
  for (uint32_t i = 0; i < p.n_features; i++)
    tfx_sb_printf(&b, "%s %s:%u\n", tfx_vm_ops[p.features[i].opcode].name, tfx_pack_str(&p, p.features[i].text),
                  p.features[i].line);
  expect_text("features", tfx_sb_cstr(&b),
      "SC_PRESENT present Relu:3\n"
      "SC_NORETVAL no _Retval node (hidden rule):3\n"
      "SC_ABSENT absent Identity:6\n"
      "SC_STEP count Mul % 3 == 0:6\n"
      "SC_PRESENT present Tanh:7\n"
      "SC_COUNT count Sub == 1:7\n"
      "SC_ATTR attr Split.num_split == 4:6\n"
      "SC_ATTR attr Conv.alpha == 0.5:7\n"
      "SC_ATTR attr A.s == \"a\\\"b\":8\n"
      "SC_ATTR attr A.b == true:8\n"
      "SC_NAME name == \"x\":5\n"
      "SC_MASK has_child \"m\":5\n"
      "SC_SUBTYPES scopes q == 1:5\n"
      "SC_NORETVAL no _Retval node (hidden rule):4\n");
  tfx_sb_free(&b);
  tfx_pack_free(&p);
}

static void golden_fuse_one_binding(void **state) {
  (void)state;
  tfx_pack p;
  must_compile("t.scoperule",
               "pass P {\n"
               "  group { layer { pattern cell { count MatMul == 1; } } }\n"
               "  fuse s in cell where not s.name contains \"while\" {\n"
               "    type BasicLSTMCell;\n"
               "    input \"concat\" { 0 -> 0, 1 -> none };\n"
               "    output \"Add_1\" { 0 -> 0 };\n"
               "    attr forget_bias = 1.0;\n"
               "    description \"cell\";\n"
               "  }\n"
               "}\n",
               &p);
  expect_text("select", listing(&p, main_prog(&p, 0)),
      "8 LOADK r4, k5 ; \"cell\"\n"
      "11 CALL r1, scopes, r4, 1\n"
      "16 ITER r2, r1\n"
      "19 NEXT r2, r0, @132\n"
      "23 PROP r4, r0, .name\n"
      "27 LOADK r5, k6 ; \"while\"\n"
      "30 CONTAINS r4, r4, r5\n"
      "34 JT r4, @19\n"
      "37 FR_BEGIN\n"
      "38 FR_SCOPES r0\n"
      "40 PROP r4, r0, .name\n"
      "44 JNONE r4, @70\n"
      "47 LOADK r5, k7 ; \"/\"\n"
      "50 ENDS r5, r4, r5\n"
      "54 JF r5, @68\n"
      "57 LOADI r6, #0\n"
      "60 LOADI r7, #-1\n"
      "63 SLICE r4, r4, r6, r7\n"
      "68 FR_NAME r4\n"
      "70 LOADK r4, k8 ; \"BasicLSTMCell\"\n"
      "73 FR_TYPE r4\n"
      "75 LOADK r4, k9 ; \"concat\"\n"
      "78 FR_KEY in, r4, #0\n"
      "82 LOADI r5, #0\n"
      "85 LOADI r6, #0\n"
      "88 FR_INPUT r4, r5, r6\n"
      "92 LOADI r5, #1\n"
      "95 LOADNONE r6\n"
      "97 FR_INPUT r4, r5, r6\n"
      "101 LOADK r4, k10 ; \"Add_1\"\n"
      "104 FR_KEY out, r4, #0\n"
      "108 LOADI r5, #0\n"
      "111 LOADI r6, #0\n"
      "114 FR_OUTPUT r4, r5, r6\n"
      "118 LOADK r4, k11 ; 1.0\n"
      "121 FR_ATTR k12, r4 ; \"forget_bias\"\n"
      "124 LOADK r4, k5 ; \"cell\"\n"
      "127 FR_DESC r4\n"
      "129 FR_END\n"
      "130 JMP @19\n"
      "132 LOADB r0, #1\n"
      "135 RET r0\n");
  tfx_pack_free(&p);
}

static void golden_fuse_paired(void **state) {
  (void)state;
  tfx_pack p;
  must_compile("t.scoperule",
               "pass P {\n"
               "  group { layer { pattern bn { count Rsqrt == 1; } pattern mo { count Mean == 2; } } }\n"
               "  fuse b in bn, m in mo where before(m.name, \"moments\") == before(b.name, \"batchnorm\") {\n"
               "    name before(b.name, \"batchnorm\");\n"
               "    type LayerNorm;\n"
               "  }\n"
               "}\n",
               &p);
  expect_text("select", listing(&p, main_prog(&p, 0)),
      "16 LOADK r9, k5 ; \"bn\"\n"
      "19 CALL r2, scopes, r9, 1\n"
      "24 LOADK r9, k8 ; \"mo\"\n"
      "27 CALL r3, scopes, r9, 1\n"
      "32 NEWLIST r4, r4, 0\n"
      "36 ITER r5, r2\n"
      "39 NEXT r5, r0, @125\n"
      "43 ITER r7, r3\n"
      "46 NEXT r7, r1, @39\n"
      "50 IN r9, r1, r4\n"
      "54 JT r9, @46\n"
      "57 PROP r10, r1, .name\n"
      "61 LOADK r11, k9 ; \"moments\"\n"
      "64 CALL r9, before, r10, 2\n"
      "69 PROP r11, r0, .name\n"
      "73 LOADK r12, k10 ; \"batchnorm\"\n"
      "76 CALL r10, before, r11, 2\n"
      "81 EQ r9, r9, r10\n"
      "85 JF r9, @46\n"
      "88 NEWLIST r9, r1, 1\n"
      "92 ADD r4, r4, r9\n"
      "96 FR_BEGIN\n"
      "97 NEWLIST r9, r0, 2\n"
      "101 FR_SCOPES r9\n"
      "103 PROP r10, r0, .name\n"
      "107 LOADK r11, k10 ; \"batchnorm\"\n"
      "110 CALL r9, before, r10, 2\n"
      "115 FR_NAME r9\n"
      "117 LOADK r9, k11 ; \"LayerNorm\"\n"
      "120 FR_TYPE r9\n"
      "122 FR_END\n"
      "123 JMP @39\n"
      "125 LOADB r0, #1\n"
      "128 RET r0\n");
  tfx_pack_free(&p);
}

static void golden_require_if_else(void **state) {
  (void)state;
  tfx_pack p;
  must_compile("t.scoperule",
               "pass P {\n"
               "  group { layer { pattern nms { name == \"map\"; } } }\n"
               "  require not any(s in scopes(nms) : s.name contains \"loop/while\");\n"
               "  fuse m in nms {\n"
               "    scopes m.parent;\n"
               "    let p = m.parent.name;\n"
               "    if p == \"a/\" { type A; } else if p == \"b/\" { type B; } else { type C; invalid \"no\"; }\n"
               "  }\n"
               "}\n",
               &p);
  expect_text("select", listing(&p, main_prog(&p, 0)),
      "7 LOADK r2, k5 ; \"nms\"\n"
      "10 CALL r1, scopes, r2, 1\n"
      "15 LOADB r0, #0\n"
      "18 ITER r2, r1\n"
      "21 NEXT r2, r4, @42\n"
      "25 PROP r5, r4, .name\n"
      "29 LOADK r6, k6 ; \"loop/while\"\n"
      "32 CONTAINS r5, r5, r6\n"
      "36 JF r5, @21\n"
      "39 LOADB r0, #1\n"
      "42 JT r0, @183\n"
      "45 LOADK r4, k5 ; \"nms\"\n"
      "48 CALL r1, scopes, r4, 1\n"
      "53 ITER r2, r1\n"
      "56 NEXT r2, r0, @178\n"
      "60 FR_BEGIN\n"
      "61 NEWLIST r4, r0, 1\n"
      "65 NEWLIST r5, r5, 0\n"
      "69 PROP r6, r0, .parent\n"
      "73 NEWLIST r7, r6, 1\n"
      "77 ADD r5, r5, r7\n"
      "81 MOVE r4, r5\n"
      "84 PROP r5, r0, .parent\n"
      "88 PROP r5, r5, .name\n"
      "92 LOADK r7, k7 ; \"a/\"\n"
      "95 EQ r6, r5, r7\n"
      "99 JF r6, @109\n"
      "102 LOADK r6, k8 ; \"A\"\n"
      "105 FR_TYPE r6\n"
      "107 JMP @136\n"
      "109 LOADK r7, k9 ; \"b/\"\n"
      "112 EQ r6, r5, r7\n"
      "116 JF r6, @126\n"
      "119 LOADK r6, k10 ; \"B\"\n"
      "122 FR_TYPE r6\n"
      "124 JMP @136\n"
      "126 LOADK r6, k11 ; \"C\"\n"
      "129 FR_TYPE r6\n"
      "131 LOADK r6, k12 ; \"no\"\n"
      "134 FR_INVALID r6\n"
      "136 FR_SCOPES r4\n"
      "138 LOADI r5, #0\n"
      "141 INDEX r5, r4, r5\n"
      "145 PROP r5, r5, .name\n"
      "149 JNONE r5, @175\n"
      "152 LOADK r6, k13 ; \"/\"\n"
      "155 ENDS r6, r5, r6\n"
      "159 JF r6, @173\n"
      "162 LOADI r7, #0\n"
      "165 LOADI r8, #-1\n"
      "168 SLICE r5, r5, r7, r8\n"
      "173 FR_NAME r5\n"
      "175 FR_END\n"
      "176 JMP @56\n"
      "178 LOADB r0, #1\n"
      "181 RET r0\n"
      "183 LOADB r0, #0\n"
      "186 RET r0\n");
  tfx_pack_free(&p);
}

static void golden_inner_nodes(void **state) {
  (void)state;
  tfx_pack p;
  must_compile("t.scoperule",
               "pass P {\n"
               "  group { layer { pattern g { count Mul == 6; } } }\n"
               "  fuse s in g {\n"
               "    type ScopeToMultiNodes;\n"
               "    name \"n\";\n"
               "    input \"a\" { 0 -> 0, 1 -> 1 };\n"
               "    output \"b\" { 0 -> 0 };\n"
               "    node x: LayerNormGrad(in 0, in 1, const 2) { format input 0 = \"ND\"; attr k = 1; }\n"
               "    node y: Add(x:0, in 1);\n"
               "    out 0 = y:0;\n"
               "  }\n"
               "}\n",
               &p);
  expect_text("select", listing(&p, main_prog(&p, 0)),
      "8 LOADK r4, k5 ; \"g\"\n"
      "11 CALL r1, scopes, r4, 1\n"
      "16 ITER r2, r1\n"
      "19 NEXT r2, r0, @168\n"
      "23 FR_BEGIN\n"
      "24 FR_SCOPES r0\n"
      "26 LOADK r4, k6 ; \"ScopeToMultiNodes\"\n"
      "29 FR_TYPE r4\n"
      "31 LOADK r4, k7 ; \"n\"\n"
      "34 FR_NAME r4\n"
      "36 LOADK r4, k8 ; \"a\"\n"
      "39 FR_KEY in, r4, #0\n"
      "43 LOADI r5, #0\n"
      "46 LOADI r6, #0\n"
      "49 FR_INPUT r4, r5, r6\n"
      "53 LOADI r5, #1\n"
      "56 LOADI r6, #1\n"
      "59 FR_INPUT r4, r5, r6\n"
      "63 LOADK r4, k9 ; \"b\"\n"
      "66 FR_KEY out, r4, #0\n"
      "70 LOADI r5, #0\n"
      "73 LOADI r6, #0\n"
      "76 FR_OUTPUT r4, r5, r6\n"
      "80 LOADK r4, k10 ; \"x\"\n"
      "83 LOADK r5, k11 ; \"LayerNormGrad\"\n"
      "86 NODE_NEW r4, r5\n"
      "89 LOADNONE r4\n"
      "91 LOADI r5, #0\n"
      "94 NODE_IN r4, r5\n"
      "97 LOADNONE r4\n"
      "99 LOADI r5, #1\n"
      "102 NODE_IN r4, r5\n"
      "105 LOADI r4, #2\n"
      "108 NODE_CONST r4\n"
      "110 LOADI r6, #0\n"
      "113 LOADK r7, k12 ; \"ND\"\n"
      "116 NODE_FORMAT in, r6, r7\n"
      "120 LOADI r6, #1\n"
      "123 NODE_ATTR k13, r6 ; \"k\"\n"
      "126 LOADK r4, k14 ; \"y\"\n"
      "129 LOADK r5, k15 ; \"Add\"\n"
      "132 NODE_NEW r4, r5\n"
      "135 LOADK r4, k10 ; \"x\"\n"
      "138 LOADI r5, #0\n"
      "141 NODE_IN r4, r5\n"
      "144 LOADNONE r4\n"
      "146 LOADI r5, #1\n"
      "149 NODE_IN r4, r5\n"
      "152 LOADI r4, #0\n"
      "155 LOADK r5, k14 ; \"y\"\n"
      "158 LOADI r6, #0\n"
      "161 NODE_OUT r4, r5, r6\n"
      "165 FR_END\n"
      "166 JMP @19\n"
      "168 LOADB r0, #1\n"
      "171 RET r0\n");
  tfx_pack_free(&p);
}

static void golden_opmaps(void **state) {
  (void)state;
  tfx_pack p;
  must_compile("t.opmap",
               "op Add, AddV2 -> Add { auto; }\n"
               "op MatMul -> MatMulV2 { auto; attr transpose_x1 = transpose_a; drop transpose_a, transpose_b; }\n"
               "op C -> D {\n"
               "  format input 1 = \"HWCN\";\n"
               "  input x = 1; output y = 0;\n"
               "  optional input bias = 2 when len(b) > 0;\n"
               "  optional input o = 3;\n"
               "  dynamic input xs count N;\n"
               "  delete input 4 when is_training == true;\n"
               "}\n"
               "op Pad -> PadV3 { when len(paddings) > 0; priority 1; auto; }\n"
               "op Softplus -> graph { node e: Exp(in 0); node a: Add(e:0, const 1.0); out 0 = a:0; }\n",
               &p);
  assert_int_equal(p.n_rules, 5);
  tfx_strbuf b;
  tfx_sb_init(&b);
  for (uint32_t r = 0; r < p.n_rules; r++) {
    const tfx_vm_rule *ru = &p.rules[r];
    tfx_sb_printf(&b, "%s flags %u priority %d from ", tfx_pack_str(&p, ru->name), ru->flags, ru->priority);
    tfx_vm_format_value(&b, &p.consts[ru->from], 1);
    tfx_sb_printf(&b, " to %s line %u\n", tfx_pack_str(&p, ru->to), ru->line);
  }
  expect_text("rules", tfx_sb_cstr(&b),
      "Add,AddV2->Add flags 0 priority 0 from [\"Add\", \"AddV2\"] to Add line 1\n"
      "MatMul->MatMulV2 flags 0 priority 0 from [\"MatMul\"] to MatMulV2 line 2\n"
      "C->D flags 0 priority 0 from [\"C\"] to D line 3\n"
      "Pad->PadV3 flags 0 priority 1 from [\"Pad\"] to PadV3 line 11\n"
      "Softplus->graph flags 2 priority 0 from [\"Softplus\"] to graph line 12\n");
  tfx_sb_free(&b);
  expect_text("auto", listing(&p, main_prog(&p, 0)),
      "0 LOADK r1, k1 ; \"Add\"\n"
      "3 MAP_TYPE r1\n"
      "5 MAP_AUTO\n"
      "6 LOADB r1, #1\n"
      "9 RET r1\n");
  expect_text("attr/drop", listing(&p, main_prog(&p, 1)),
      "11 LOADK r1, k8 ; \"MatMulV2\"\n"
      "14 MAP_TYPE r1\n"
      "16 MAP_AUTO\n"
      "17 ATTR r1, r0, k9 ; \"transpose_a\"\n"
      "21 MAP_ATTR k10, r1 ; \"transpose_x1\"\n"
      "24 MAP_DROP k9 ; \"transpose_a\"\n"
      "26 MAP_DROP k11 ; \"transpose_b\"\n"
      "28 LOADB r1, #1\n"
      "31 RET r1\n");
  expect_text("ports", listing(&p, main_prog(&p, 2)),
      "33 LOADK r1, k15 ; \"D\"\n"
      "36 MAP_TYPE r1\n"
      "38 LOADI r1, #1\n"
      "41 LOADK r2, k16 ; \"HWCN\"\n"
      "44 MAP_FORMAT in, r1, r2\n"
      "48 LOADI r1, #1\n"
      "51 MAP_PORT in, k17, r1 ; \"x\"\n"
      "55 LOADI r1, #0\n"
      "58 MAP_PORT out, k18, r1 ; \"y\"\n"
      "62 LOADI r1, #2\n"
      "65 ATTR r3, r0, k19 ; \"b\"\n"
      "69 LEN r3, r3\n"
      "72 LOADI r4, #0\n"
      "75 GT r3, r3, r4\n"
      "79 JF r3, @87\n"
      "82 LOADB r2, #1\n"
      "85 JMP @90\n"
      "87 LOADB r2, #0\n"
      "90 MAP_OPTIONAL k20, r1, r2 ; \"bias\"\n"
      "94 LOADI r1, #3\n"
      "97 CALL r2, has_input, r1, 1\n"
      "102 MAP_OPTIONAL k21, r1, r2 ; \"o\"\n"
      "106 ATTR r1, r0, k22 ; \"N\"\n"
      "110 MAP_DYNAMIC in, k23, r1 ; \"xs\"\n"
      "114 ATTR r1, r0, k24 ; \"is_training\"\n"
      "118 LOADB r2, #1\n"
      "121 EQ r1, r1, r2\n"
      "125 JF r1, @133\n"
      "128 LOADI r1, #4\n"
      "131 MAP_DELETE r1\n"
      "133 LOADB r1, #1\n"
      "136 RET r1\n");
  expect_text("when", listing(&p, main_prog(&p, 3)),
      "138 ATTR r1, r0, k29 ; \"paddings\"\n"
      "142 LEN r1, r1\n"
      "145 LOADI r2, #0\n"
      "148 GT r1, r1, r2\n"
      "152 JF r1, @166\n"
      "155 LOADK r1, k28 ; \"PadV3\"\n"
      "158 MAP_TYPE r1\n"
      "160 MAP_AUTO\n"
      "161 LOADB r1, #1\n"
      "164 RET r1\n"
      "166 LOADB r1, #0\n"
      "169 RET r1\n");
  expect_text("graph", listing(&p, main_prog(&p, 4)),
      "171 LOADK r1, k34 ; \"e\"\n"
      "174 LOADK r2, k35 ; \"Exp\"\n"
      "177 NODE_NEW r1, r2\n"
      "180 LOADNONE r1\n"
      "182 LOADI r2, #0\n"
      "185 NODE_IN r1, r2\n"
      "188 LOADK r1, k36 ; \"a\"\n"
      "191 LOADK r2, k1 ; \"Add\"\n"
      "194 NODE_NEW r1, r2\n"
      "197 LOADK r1, k34 ; \"e\"\n"
      "200 LOADI r2, #0\n"
      "203 NODE_IN r1, r2\n"
      "206 LOADK r1, k37 ; 1.0\n"
      "209 NODE_CONST r1\n"
      "211 LOADI r1, #0\n"
      "214 LOADK r2, k36 ; \"a\"\n"
      "217 LOADI r3, #0\n"
      "220 NODE_OUT r1, r2, r3\n"
      "224 LOADB r1, #1\n"
      "227 RET r1\n");
  tfx_pack_free(&p);
}

static void golden_expressions(void **state) {
  (void)state;
  tfx_pack p;
  must_compile("t.opmap",
               "op E -> E {\n"
               "  attr a = [1, \"s\", 2.5, true, none, DT_FLOAT];\n"
               "  attr b = [x, 1];\n"
               "  attr c = lookup(x, {\"NHWC\": 1, \"NCHW\": 2});\n"
               "  attr d = -x + 2 * y - y / 3 % 4;\n"
               "  attr e = not (x == 1) and (y != 2 or z < 3);\n"
               "  attr f = x ?? y ?? 0;\n"
               "  attr g = x > 1 ? \"big\" : \"small\";\n"
               "  attr h = s contains \"a\" or s starts_with \"b\" or s ends_with \"c\";\n"
               "  attr i = l[0] + l[1:] + l[:-1] + l[[2, 0]];\n"
               "  attr j = format_of(in 0) == \"NCHW\" and has_input(1);\n"
               "  attr k = any(v in l : v > 0) or all(v in l : v > 0);\n"
               "  attr m = count(v in l : v % 2 == 0) + len(first(v in l : v > n_inputs) ?? []);\n"
               "  attr n = const_value(in 1)[0] ?? op;\n"
               "  attr o = l contains 3;\n"
               "}\n",
               &p);
  expect_text("expressions", listing(&p, main_prog(&p, 0)),
      "0 LOADK r1, k1 ; \"E\"\n"
      "3 MAP_TYPE r1\n"
      "5 LOADK r1, k10 ; [1, \"s\", 2.5, true, none, DT_FLOAT]\n"
      "8 MAP_ATTR k11, r1 ; \"a\"\n"
      "11 ATTR r2, r0, k12 ; \"x\"\n"
      "15 LOADI r3, #1\n"
      "18 NEWLIST r1, r2, 2\n"
      "22 MAP_ATTR k13, r1 ; \"b\"\n"
      "25 ATTR r2, r0, k12 ; \"x\"\n"
      "29 LOADK r3, k17 ; [\"NHWC\", 1, \"NCHW\", 2]\n"
      "32 CALL r1, lookup, r2, 2\n"
      "37 MAP_ATTR k18, r1 ; \"c\"\n"
      "40 ATTR r1, r0, k12 ; \"x\"\n"
      "44 NEG r1, r1\n"
      "47 LOADI r2, #2\n"
      "50 ATTR r3, r0, k19 ; \"y\"\n"
      "54 MUL r2, r2, r3\n"
      "58 ADD r1, r1, r2\n"
      "62 ATTR r2, r0, k19 ; \"y\"\n"
      "66 LOADI r3, #3\n"
      "69 DIV r2, r2, r3\n"
      "73 LOADI r3, #4\n"
      "76 MOD r2, r2, r3\n"
      "80 SUB r1, r1, r2\n"
      "84 MAP_ATTR k20, r1 ; \"d\"\n"
      "87 ATTR r2, r0, k12 ; \"x\"\n"
      "91 LOADI r3, #1\n"
      "94 EQ r2, r2, r3\n"
      "98 JT r2, @134\n"
      "101 ATTR r2, r0, k19 ; \"y\"\n"
      "105 LOADI r3, #2\n"
      "108 NE r2, r2, r3\n"
      "112 JT r2, @129\n"
      "115 ATTR r2, r0, k21 ; \"z\"\n"
      "119 LOADI r3, #3\n"
      "122 LT r2, r2, r3\n"
      "126 JF r2, @134\n"
      "129 LOADB r1, #1\n"
      "132 JMP @137\n"
      "134 LOADB r1, #0\n"
      "137 MAP_ATTR k22, r1 ; \"e\"\n"
      "140 ATTR r1, r0, k12 ; \"x\"\n"
      "144 JSOME r1, @151\n"
      "147 ATTR r1, r0, k19 ; \"y\"\n"
      "151 JSOME r1, @157\n"
      "154 LOADI r1, #0\n"
      "157 MAP_ATTR k23, r1 ; \"f\"\n"
      "160 ATTR r2, r0, k12 ; \"x\"\n"
      "164 LOADI r3, #1\n"
      "167 GT r2, r2, r3\n"
      "171 JF r2, @179\n"
      "174 LOADK r1, k24 ; \"big\"\n"
      "177 JMP @182\n"
      "179 LOADK r1, k25 ; \"small\"\n"
      "182 MAP_ATTR k26, r1 ; \"g\"\n"
      "185 ATTR r2, r0, k5 ; \"s\"\n"
      "189 LOADK r3, k11 ; \"a\"\n"
      "192 CONTAINS r2, r2, r3\n"
      "196 JT r2, @227\n"
      "199 ATTR r2, r0, k5 ; \"s\"\n"
      "203 LOADK r3, k13 ; \"b\"\n"
      "206 STARTS r2, r2, r3\n"
      "210 JT r2, @227\n"
      "213 ATTR r2, r0, k5 ; \"s\"\n"
      "217 LOADK r3, k18 ; \"c\"\n"
      "220 ENDS r2, r2, r3\n"
      "224 JF r2, @232\n"
      "227 LOADB r1, #1\n"
      "230 JMP @235\n"
      "232 LOADB r1, #0\n"
      "235 MAP_ATTR k27, r1 ; \"h\"\n"
      "238 ATTR r1, r0, k28 ; \"l\"\n"
      "242 LOADI r2, #0\n"
      "245 INDEX r1, r1, r2\n"
      "249 ATTR r2, r0, k28 ; \"l\"\n"
      "253 LOADI r3, #1\n"
      "256 LOADNONE r4\n"
      "258 SLICE r2, r2, r3, r4\n"
      "263 ADD r1, r1, r2\n"
      "267 ATTR r2, r0, k28 ; \"l\"\n"
      "271 LOADNONE r3\n"
      "273 LOADI r4, #-1\n"
      "276 SLICE r2, r2, r3, r4\n"
      "281 ADD r1, r1, r2\n"
      "285 ATTR r2, r0, k28 ; \"l\"\n"
      "289 LOADK r3, k30 ; [2, 0]\n"
      "292 PERM r2, r2, r3\n"
      "296 ADD r1, r1, r2\n"
      "300 MAP_ATTR k31, r1 ; \"i\"\n"
      "303 LOADI r3, #0\n"
      "306 CALL r2, format_of, r3, 1\n"
      "311 LOADK r3, k15 ; \"NCHW\"\n"
      "314 EQ r2, r2, r3\n"
      "318 JF r2, @337\n"
      "321 LOADI r3, #1\n"
      "324 CALL r2, has_input, r3, 1\n"
      "329 JF r2, @337\n"
      "332 LOADB r1, #1\n"
      "335 JMP @340\n"
      "337 LOADB r1, #0\n"
      "340 MAP_ATTR k32, r1 ; \"j\"\n"
      "343 ATTR r3, r0, k28 ; \"l\"\n"
      "347 LOADB r2, #0\n"
      "350 ITER r4, r3\n"
      "353 NEXT r4, r6, @370\n"
      "357 LOADI r8, #0\n"
      "360 GT r7, r6, r8\n"
      "364 JF r7, @353\n"
      "367 LOADB r2, #1\n"
      "370 JT r2, @403\n"
      "373 ATTR r3, r0, k28 ; \"l\"\n"
      "377 LOADB r2, #1\n"
      "380 ITER r4, r3\n"
      "383 NEXT r4, r6, @400\n"
      "387 LOADI r8, #0\n"
      "390 GT r7, r6, r8\n"
      "394 JT r7, @383\n"
      "397 LOADB r2, #0\n"
      "400 JF r2, @408\n"
      "403 LOADB r1, #1\n"
      "406 JMP @411\n"
      "408 LOADB r1, #0\n"
      "411 MAP_ATTR k33, r1 ; \"k\"\n"
      "414 ATTR r2, r0, k28 ; \"l\"\n"
      "418 LOADI r1, #0\n"
      "421 LOADI r6, #1\n"
      "424 ITER r3, r2\n"
      "427 NEXT r3, r5, @454\n"
      "431 LOADI r8, #2\n"
      "434 MOD r7, r5, r8\n"
      "438 LOADI r8, #0\n"
      "441 EQ r7, r7, r8\n"
      "445 JF r7, @427\n"
      "448 ADD r1, r1, r6\n"
      "452 JMP @427\n"
      "454 ATTR r3, r0, k28 ; \"l\"\n"
      "458 LOADNONE r2\n"
      "460 ITER r4, r3\n"
      "463 NEXT r4, r6, @482\n"
      "467 CALL r8, n_inputs, r8, 0\n"
      "472 GT r7, r6, r8\n"
      "476 JF r7, @463\n"
      "479 MOVE r2, r6\n"
      "482 JSOME r2, @488\n"
      "485 LOADK r2, k34 ; []\n"
      "488 LEN r2, r2\n"
      "491 ADD r1, r1, r2\n"
      "495 MAP_ATTR k35, r1 ; \"m\"\n"
      "498 PROP r2, r0, .inputs\n"
      "502 LOADI r3, #1\n"
      "505 INDEX r2, r2, r3\n"
      "509 CALL r1, const_value, r2, 1\n"
      "514 LOADI r2, #0\n"
      "517 INDEX r1, r1, r2\n"
      "521 JSOME r1, @529\n"
      "524 CALL r1, op, r1, 0\n"
      "529 MAP_ATTR k36, r1 ; \"n\"\n"
      "532 ATTR r1, r0, k28 ; \"l\"\n"
      "536 LOADI r2, #3\n"
      "539 CONTAINS r1, r1, r2\n"
      "543 MAP_ATTR k37, r1 ; \"o\"\n"
      "546 LOADB r1, #1\n"
      "549 RET r1\n");
  tfx_pack_free(&p);
}

static void golden_scope_expressions(void **state) {
  (void)state;
  tfx_pack p;
  must_compile("t.scoperule",
               "pass P {\n"
               "  group { layer { pattern c { present MatMul; } } }\n"
               "  fuse s in c {\n"
               "    type T;\n"
               "    absorb find(s, \"x\");\n"
               "    attr a = find(s, \"y\").attr.alpha;\n"
               "    attr b = s.last_name + s.parent.name;\n"
               "    scopes s, s.children;\n"
               "  }\n"
               "}\n",
               &p);
  expect_text("select", listing(&p, main_prog(&p, 0)),
      "7 LOADK r4, k5 ; \"c\"\n"
      "10 CALL r1, scopes, r4, 1\n"
      "15 ITER r2, r1\n"
      "18 NEXT r2, r0, @147\n"
      "22 FR_BEGIN\n"
      "23 NEWLIST r4, r0, 1\n"
      "27 LOADK r5, k6 ; \"T\"\n"
      "30 FR_TYPE r5\n"
      "32 MOVE r6, r0\n"
      "35 LOADK r7, k7 ; \"x\"\n"
      "38 CALL r5, find, r6, 2\n"
      "43 FR_ABSORB r5\n"
      "45 MOVE r6, r0\n"
      "48 LOADK r7, k8 ; \"y\"\n"
      "51 CALL r5, find, r6, 2\n"
      "56 ATTR r5, r5, k9 ; \"alpha\"\n"
      "60 FR_ATTR k10, r5 ; \"a\"\n"
      "63 PROP r5, r0, .last_name\n"
      "67 PROP r6, r0, .parent\n"
      "71 PROP r6, r6, .name\n"
      "75 ADD r5, r5, r6\n"
      "79 FR_ATTR k11, r5 ; \"b\"\n"
      "82 NEWLIST r5, r5, 0\n"
      "86 NEWLIST r6, r0, 1\n"
      "90 ADD r5, r5, r6\n"
      "94 PROP r6, r0, .children\n"
      "98 ADD r5, r5, r6\n"
      "102 MOVE r4, r5\n"
      "105 FR_SCOPES r4\n"
      "107 LOADI r5, #0\n"
      "110 INDEX r5, r4, r5\n"
      "114 PROP r5, r5, .name\n"
      "118 JNONE r5, @144\n"
      "121 LOADK r6, k12 ; \"/\"\n"
      "124 ENDS r6, r5, r6\n"
      "128 JF r6, @142\n"
      "131 LOADI r7, #0\n"
      "134 LOADI r8, #-1\n"
      "137 SLICE r5, r5, r7, r8\n"
      "142 FR_NAME r5\n"
      "144 FR_END\n"
      "145 JMP @18\n"
      "147 LOADB r0, #1\n"
      "150 RET r0\n");
  tfx_pack_free(&p);
}

/* ---------------------------------------------------------------- execution: scope programs */

static const char *g_scope_model[] = {
    "x|Placeholder",
    "bn/batchnorm/mul|Mul|x",
    "bn/batchnorm/mul_1|Mul|x",
    "bn/batchnorm/mul_2|Mul|x",
    "bn/batchnorm/sub|Sub|x",
    "bn/batchnorm/Rsqrt|Rsqrt|x",
    "bn/batchnorm/add|Add|x",
    "bn/batchnorm/add_1|Add|x",
    "lstm_1/cell/MatMul|MatMul|x",
    "lstm_1/cell/Split|Split|lstm_1/cell/MatMul",
    "lstm_1/cell/Sigmoid|Sigmoid|lstm_1/cell/Split",
    "lstm_1/cell/Sigmoid_1|Sigmoid|lstm_1/cell/Split:1",
    "lstm_1/cell/Sigmoid_2|Sigmoid|lstm_1/cell/Split:2",
    "lstm_1/while/Identity|Identity|x",
    "ret/Mul|Mul|x",
    "ret/out|_Retval|ret/Mul",
};

static void build_scope_model(vt *f) {
  vt_graph(f, g_scope_model, sizeof g_scope_model / sizeof *g_scope_model);
  vt_attr_i(f, "lstm_1/cell/Split", "num_split", 4);
  vt_attr_f(f, "bn/batchnorm/mul", "alpha", 0.5f);
  vt_model_build(f);
}

static void exec_scope_features(void **state) {
  vt *f = *state;
  build_scope_model(f);
  ct_compile(f, "t.scoperule",
             "pass P {\n"
             "  group { layer {\n"
             "    pattern p0 { count Mul == 3; }\n"
             "    pattern p1 { count Mul == 2; }\n"
             "    pattern p2 { count Sigmoid % 3 == 0; }\n"
             "    pattern p3 { count Tanh % 1 == 0; }\n"
             "    pattern p4 { absent Identity; }\n"
             "    pattern p5 { present Identity; }\n"
             "    pattern p6 { attr Split.num_split == 4; }\n"
             "    pattern p7 { attr Split.num_split == 3; }\n"
             "    pattern p8 { attr Mul.alpha == 0.5; }\n"
             "    pattern p9 { name == \"lstm\"; }\n"
             "    pattern p10 { name == \"lstm_1\"; }\n"
             "    pattern p11 { has_child \"whi\"; }\n"
             "    pattern p12 { count Mul == 1; }\n"
             "  }\n"
             "  layer { pattern p13 { scopes p0 == 1; } }\n"
             "  }\n"
             "  fuse s in p0 { type X; }\n"
             "}\n");
  assert_true(matches(f, 0, "bn/batchnorm/"));
  assert_true(matches(f, 0, "bn/"));
  assert_false(matches(f, 1, "bn/"));
  assert_true(matches(f, 2, "lstm_1/cell/"));
  assert_false(matches(f, 2, "bn/"));      /* Sigmoid absent: -1, a step test fails */
  assert_false(matches(f, 3, "lstm_1/"));  /* Tanh absent */
  assert_true(matches(f, 4, "bn/"));
  assert_false(matches(f, 4, "lstm_1/"));
  assert_true(matches(f, 5, "lstm_1/"));
  assert_false(matches(f, 6, "lstm_1/"));  /* attr looks at DIRECT nodes only */
  assert_true(matches(f, 6, "lstm_1/cell/"));
  assert_false(matches(f, 7, "lstm_1/cell/"));
  assert_true(matches(f, 8, "bn/batchnorm/"));
  assert_true(matches(f, 9, "lstm_1/"));   /* LastName trims _1 */
  assert_false(matches(f, 10, "lstm_1/"));
  assert_true(matches(f, 11, "lstm_1/"));
  assert_false(matches(f, 11, "bn/"));
  assert_false(matches(f, 12, "ret/"));    /* hidden rule: no _Retval in the scope */
  vt_set_subtype(f, "bn/batchnorm/", "p0");
  assert_true(matches(f, 13, "bn/"));
  assert_false(matches(f, 13, "bn/batchnorm/")); /* strict descendants only */
}

/* ---------------------------------------------------------------- execution: selection */

static const char *g_pair_model[] = {
    "x|Placeholder",
    "L1/batchnorm/Rsqrt|Rsqrt|x", "L1/moments/mean|Mean|x",
    "L2/batchnorm/Rsqrt|Rsqrt|x", "L2/moments/mean|Mean|x",
    "a1/Relu|Relu|x", "a2/Relu|Relu|x", "a3/Relu|Relu|x",
    "b1/Tanh|Tanh|x", "b2/Tanh|Tanh|x",
};

static void build_pair_model(vt *f) {
  vt_model(f, g_pair_model, sizeof g_pair_model / sizeof *g_pair_model);
  vt_set_subtype(f, "L1/batchnorm/", "bn");
  vt_set_subtype(f, "L2/batchnorm/", "bn");
  vt_set_subtype(f, "L2/moments/", "mo");
  vt_set_subtype(f, "L1/moments/", "mo");
  vt_set_subtype(f, "a1/", "A");
  vt_set_subtype(f, "a2/", "A");
  vt_set_subtype(f, "a3/", "A");
  vt_set_subtype(f, "b1/", "B");
  vt_set_subtype(f, "b2/", "B");
}

static const char *g_pair_rules =
    "pass S {\n"
    "  group { layer { pattern bn { count Rsqrt == 1; } pattern mo { count Mean == 1; } } }\n"
    "  group { layer { pattern A { present Relu; } pattern B { present Tanh; } } }\n"
    "  fuse b in bn, m in mo where before(m.name, \"moments\") == before(b.name, \"batchnorm\") {\n"
    "    name before(b.name, \"batchnorm\") + \"ln\";\n"
    "    type LayerNorm;\n"
    "    input \"batchnorm/Rsqrt\" { 0 -> 0 };\n"
    "    output \"moments/mean\" { 0 -> 0 };\n"
    "  }\n"
    "  fuse a in A, b in B { type AB; }\n"
    "  fuse a in A where a.name != \"a2/\" { type One; description a.last_name; }\n"
    "}\n"
    "pass R {\n"
    "  group { layer { pattern C { present Relu; } } }\n"
    "  require exists(scope(scopes(A)[0], \"x/\")) or len(scopes(B)) == 2;\n"
    "  require true;\n"
    "  fuse a in A { type Ok; }\n"
    "}\n";

static void exec_select_pairing(void **state) {
  vt *f = *state;
  build_pair_model(f);
  ct_compile(f, "t.scoperule", g_pair_rules);
  const char *log = run_select(f, 0);
  assert_string_equal(vt_ret(f), "true");
  assert_string_equal(log,
                      "begin\n"
                      "scopes L1/batchnorm/ L1/moments/\n"
                      "name L1/ln\n"
                      "type LayerNorm\n"
                      "input batchnorm/Rsqrt 0->0\n"
                      "output moments/mean 0->0\n"
                      "end\n"
                      "begin\n"
                      "scopes L2/batchnorm/ L2/moments/\n"
                      "name L2/ln\n"
                      "type LayerNorm\n"
                      "input batchnorm/Rsqrt 0->0\n"
                      "output moments/mean 0->0\n"
                      "end\n"
                      /* first partner, each used once; a3 has none left */
                      "begin\n"
                      "scopes a1/ b1/\n"
                      "name a1\n"
                      "type AB\n"
                      "end\n"
                      "begin\n"
                      "scopes a2/ b2/\n"
                      "name a2\n"
                      "type AB\n"
                      "end\n"
                      "begin\n"
                      "scopes a1/\n"
                      "name a1\n"
                      "type One\n"
                      "desc a1\n"
                      "end\n"
                      "begin\n"
                      "scopes a3/\n"
                      "name a3\n"
                      "type One\n"
                      "desc a3\n"
                      "end\n");
  /* pass R: both requires hold */
  log = run_select(f, 1);
  assert_string_equal(vt_ret(f), "true");
  assert_string_equal(log,
                      "begin\nscopes a1/\nname a1\ntype Ok\nend\n"
                      "begin\nscopes a2/\nname a2\ntype Ok\nend\n"
                      "begin\nscopes a3/\nname a3\ntype Ok\nend\n");
}

static void exec_select_require_false(void **state) {
  vt *f = *state;
  build_pair_model(f);
  ct_compile(f, "t.scoperule",
             "pass P {\n"
             "  group { layer { pattern A { present Relu; } } }\n"
             "  require not any(s in scopes(A) : s.name contains \"a2\");\n"
             "  fuse a in A { type X; }\n"
             "}\n"
             "pass Q {\n"
             "  group { layer { pattern B { present Tanh; } } }\n"
             "  require count(s in scopes(B) : s.last_name starts_with \"b\") == 2;\n"
             "  fuse b in B where b.name == \"b2/\" {\n"
             "    scopes b, b.parent;\n"
             "    let k = b.last_name;\n"
             "    if k == \"b2\" { attr t = 1; invalid \"because\"; } else { attr t = 2; }\n"
             "    type Y;\n"
             "  }\n"
             "}\n"
             "pass Z {\n"
             "  group { layer { pattern C { present Tanh; } } }\n"
             "  fuse b in B { type T; if b.name == \"b1/\" { name \"first\"; } else { scopes b.children; } }\n"
             "}\n");
  assert_string_equal(run_select(f, 0), "");
  assert_string_equal(vt_ret(f), "false");
  assert_string_equal(run_select(f, 1),
                      "begin\n"
                      "attr t=1\n"
                      "invalid because\n"
                      "type Y\n"
                      "scopes b2/ root\n" /* `b.parent` of a top-level scope is the root */
                      "name b2\n"
                      "end\n");
  assert_string_equal(vt_ret(f), "true");
  /* a conditional `name`: the default only where it did not run; conditional `scopes`: the
   * members are emitted once per result either way */
  assert_string_equal(run_select(f, 2),
                      "begin\ntype T\nname first\nscopes b1/\nend\n"
                      "begin\ntype T\nscopes\nend\n");
}

/* ---------------------------------------------------------------- execution: op maps */

static const char *g_map_model[] = {
    "x|Placeholder",
    "w|Const",
    "mm|MatMul|x,w",
    "conv|Conv2D|x,w",
    "conv2|Conv2D|x,w",
    "cat|ConcatV2|x,x,x,w",
    "bn|FusedBatchNorm|x,w,w,w,w",
    "bn2|FusedBatchNorm|x,w,w,w,w",
    "fa|FlashAttentionScore|x,x,x,w,w",
    "pad|Pad|x,w",
    "sp|Softplus|x",
};

static void build_map_model(vt *f) {
  vt_graph(f, g_map_model, sizeof g_map_model / sizeof *g_map_model);
  vt_attr_b(f, "mm", "transpose_a", 1);
  vt_attr_b(f, "mm", "transpose_b", 0);
  int64_t pads[8] = {0, 0, 1, 2, 3, 4, 5, 6};
  vt_attr_ilist(f, "conv", "explicit_paddings", pads, 8);
  vt_attr_i(f, "cat", "N", 3);
  vt_attr_b(f, "bn", "is_training", 1);
  vt_attr_b(f, "bn2", "is_training", 0);
  int64_t one[1] = {1};
  vt_attr_ilist(f, "fa", "real_shift_type", one, 1);
  vt_attr_ilist(f, "fa", "atten_mask_type", one, 0);
  vt_attr_ilist(f, "pad", "paddings", one, 0);
  vt_model_build(f);
}

static const char *g_map_rules =
    "op MatMul -> MatMulV2 {\n"
    "  auto;\n"
    "  attr transpose_x1 = transpose_a;\n"
    "  attr transpose_x2 = transpose_b;\n"
    "  drop transpose_a, transpose_b;\n"
    "}\n"
    "op Conv2D -> Conv2D {\n"
    "  auto;\n"
    "  format input 1 = \"HWCN\";\n"
    "  attr pads = len(explicit_paddings) == 8\n"
    "      ? (format_of(in 0) == \"NCHW\" ? explicit_paddings[4:8] : explicit_paddings[2:6])\n"
    "      : [0, 0, 0, 0];\n"
    "}\n"
    "op ConcatV2 -> ConcatV2 { auto; dynamic input x count N; input concat_dim = N; }\n"
    "op FusedBatchNorm -> BatchNorm {\n"
    "  auto;\n"
    "  delete input 3 when is_training == true;\n"
    "  delete input 4 when is_training;\n"
    "}\n"
    "op FlashAttentionScore -> FlashAttentionScore {\n"
    "  input query = 0; input key = 1; optional input value = 2;\n"
    "  optional input real_shift = 3 when len(real_shift_type) > 0;\n"
    "  optional input atten_mask = 4 when len(atten_mask_type) > 0;\n"
    "  optional input padding_mask = 5;\n"

    "}\n"
    "op Pad -> PadV3 { when len(paddings) > 0; priority 1; auto; }\n"
    "op Softplus -> graph {\n"
    "  when op == \"Softplus\" and n_inputs == 1 and dtype_of(in 0) == DT_FLOAT;\n"
    "  node e: Exp(in 0);\n"
    "  node a: Add(e:0, const 1.0) { attr T = DT_FLOAT; format output 0 = \"ND\"; }\n"
    "  node l: Log(a:0);\n"
    "  out 0 = l:0;\n"
    "}\n";

static void exec_maps(void **state) {
  vt *f = *state;
  build_map_model(f);
  ct_compile(f, "t.opmap", g_map_rules);
  assert_string_equal(run_map(f, 0, "mm"),
                      "map_type MatMulV2\nmap_auto\nmap_attr transpose_x1=true\nmap_attr transpose_x2=false\n"
                      "map_drop transpose_a\nmap_drop transpose_b\n");
  assert_string_equal(vt_ret(f), "true");
  /* the test host says input 0 is NCHW: pads = explicit_paddings[4:8] */
  assert_string_equal(run_map(f, 1, "conv"),
                      "map_type Conv2D\nmap_auto\nmap_format in 1 HWCN\nmap_attr pads=[3, 4, 5, 6]\n");
  assert_string_equal(run_map(f, 1, "conv2"),
                      "map_type Conv2D\nmap_auto\nmap_format in 1 HWCN\nmap_attr pads=[0, 0, 0, 0]\n");
  assert_string_equal(run_map(f, 2, "cat"),
                      "map_type ConcatV2\nmap_auto\nmap_dynamic in x count 3\nmap_port in concat_dim=3\n");
  assert_string_equal(run_map(f, 3, "bn"), "map_type BatchNorm\nmap_auto\nmap_delete 3\nmap_delete 4\n");
  assert_string_equal(run_map(f, 3, "bn2"), "map_type BatchNorm\nmap_auto\n");
  assert_string_equal(run_map(f, 4, "fa"),
                      "map_type FlashAttentionScore\nmap_port in query=0\nmap_port in key=1\n"
                      "map_optional value=2 connected\n" /* by presence of the TF input */
                      "map_optional real_shift=3 connected\nmap_optional atten_mask=4 unconnected\n"
                      "map_optional padding_mask=5 unconnected\n");
  /* `when` false: no effect at all, RET false */
  assert_string_equal(run_map(f, 5, "pad"), "");
  assert_string_equal(vt_ret(f), "false");
  assert_string_equal(run_map(f, 6, "sp"),
                      "node e:Exp\nnode_in in 0\nnode a:Add\nnode_in e:0\nnode_const 1.0\nnode_attr T=DT_FLOAT\n"
                      "node_format out 0 ND\nnode l:Log\nnode_in a:0\nnode_out 0=l:0\n");
  assert_string_equal(vt_ret(f), "true");
  assert_int_equal(f->p.rules[5].priority, 1);
}

static void exec_expressions(void **state) {
  vt *f = *state;
  build_map_model(f);
  ct_compile(f, "t.opmap",
             "op Conv2D -> X {\n"
             "  attr a = [1, \"s\", 2.5, true, none, DT_FLOAT];\n"
             "  attr b = lookup(\"NCHW\", {\"NHWC\": 1, \"NCHW\": 2}) ?? 0;\n"
             "  attr c = -2 + 2 * 7 - 9 / 3 % 4;\n"
             "  attr d = not (1 == 1) or (2 != 2 or 1 < 3);\n"
             "  attr e = missing ?? also_missing ?? \"dflt\";\n"
             "  attr f = len(explicit_paddings) > 1 ? \"big\" : \"small\";\n"
             "  attr g = \"abc\" contains \"b\" and \"abc\" starts_with \"a\" and not (\"abc\" ends_with \"b\");\n"
             "  attr h = explicit_paddings[-1] + explicit_paddings[1:3][0] + len(explicit_paddings[:-2]);\n"
             "  attr i = explicit_paddings[[7, 2]];\n"
             "  attr j = [any(v in explicit_paddings : v > 5), all(v in explicit_paddings : v >= 0),\n"
             "            count(v in explicit_paddings : v % 2 == 0), first(v in explicit_paddings : v > 2),\n"
             "            first(v in explicit_paddings : v > 99)];\n"
             "  attr k = [op, n_inputs, has_input(1), has_input(2), in 1 == in 1, format_of(in 1) ?? \"none\"];\n"
             "  attr l = explicit_paddings contains 6 and not (explicit_paddings contains 60);\n"
             "  attr m = missing and true;\n"
             "  attr n = not missing;\n"
             "  attr o = [str(1.5), int(\"42\"), round(2.5), before(\"a/b\", \"/\"), after(\"a/b\", \"/\"), exists(missing)];\n"
             "}\n");
  assert_string_equal(run_map(f, 0, "conv"),
                      "map_type X\n"
                      "map_attr a=[1, \"s\", 2.5, true, none, DT_FLOAT]\n"
                      "map_attr b=2\n"
                      "map_attr c=9\n"
                      "map_attr d=true\n"
                      "map_attr e=\"dflt\"\n"
                      "map_attr f=\"big\"\n"
                      "map_attr g=true\n"
                      "map_attr h=12\n"
                      "map_attr i=[6, 1]\n"
                      "map_attr j=[true, true, 5, 3, none]\n"
                      "map_attr k=[\"Conv2D\", 2, true, false, true, \"none\"]\n"
                      "map_attr l=true\n"
                      "map_attr m=false\n"
                      "map_attr n=true\n"
                      "map_attr o=[\"1.5\", 42, 3, \"a\", \"b\", false]\n");
}

/* ---------------------------------------------------------------- errors, determinism, speed */

static void compile_errors_have_locations(void **state) {
  (void)state;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_pack p;
  /* counts beyond int32 cannot be immediates */
  int rc = compile_src("e.scoperule",
                       "pass P { group { layer { pattern p { count Mul == 5000000000; } } } fuse s in p { type X; } }\n",
                       &p, &d);
  if (rc != TFX_EXIT_RULES) tg_dump(&d);
  assert_int_equal(rc, TFX_EXIT_RULES);
  assert_true(TG_ERR(&d, "'count' 5000000000 is out of range"));
  assert_int_equal(d.items[0].line, 1);
  assert_int_equal(d.items[0].col, 51);
  assert_int_equal(p.n_rules, 0);
  tfx_pack_free(&p);
  tfx_diag_free(&d);
  /* an expression that needs more registers than a frame has */
  tfx_strbuf s;
  tfx_sb_init(&s);
  tfx_sb_puts(&s, "op A -> B { attr x = ");
  for (int i = 0; i < 100; i++) tfx_sb_puts(&s, "[a, a, a, "); /* 4 registers per level */
  tfx_sb_puts(&s, "a");
  for (int i = 0; i < 100; i++) tfx_sb_puts(&s, "]");
  tfx_sb_puts(&s, "; }\n");
  tfx_diag_init(&d);
  rc = compile_src("e.opmap", tfx_sb_cstr(&s), &p, &d);
  assert_int_equal(rc, TFX_EXIT_RULES);
  assert_true(TG_ERR(&d, "expression too complex"));
  assert_int_equal(d.errors, 1);
  tfx_pack_free(&p);
  tfx_diag_free(&d);
  tfx_sb_free(&s);
}

static void determinism(void **state) {
  (void)state;
  tfx_pack a, b;
  tfx_strbuf x, y;
  tfx_sb_init(&x);
  tfx_sb_init(&y);
  must_compile("t.scoperule", g_pair_rules, &a);
  must_compile("t.scoperule", g_pair_rules, &b);
  assert_int_equal(tfx_pack_write(&a, &x), 0);
  assert_int_equal(tfx_pack_write(&b, &y), 0);
  assert_int_equal(x.len, y.len);
  assert_memory_equal(x.data, y.data, x.len);
  tfx_pack_free(&a);
  tfx_pack_free(&b);
  tfx_sb_reset(&x);
  tfx_sb_reset(&y);
  must_compile("t.opmap", g_map_rules, &a);
  must_compile("t.opmap", g_map_rules, &b);
  assert_int_equal(tfx_pack_write(&a, &x), 0);
  assert_int_equal(tfx_pack_write(&b, &y), 0);
  assert_int_equal(x.len, y.len);
  assert_memory_equal(x.data, y.data, x.len);
  tfx_pack_free(&a);
  tfx_pack_free(&b);
  tfx_sb_free(&x);
  tfx_sb_free(&y);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* 1000 passes with mixed features, requires and fuse blocks (most would match nothing). */
static void speed_1000_passes(void **state) {
  (void)state;
  tfx_strbuf s;
  tfx_sb_init(&s);
  for (int i = 0; i < 1000; i++) {
    tfx_sb_printf(&s,
                  "pass P%d%s {\n"
                  "  group {\n"
                  "    layer { pattern c%d { count MatMul == %d; attr Split.num_split == %d; count Sigmoid %% 3 == 0; absent T%d; } }\n"
                  "    layer { pattern w%d { scopes c%d == 1; name == \"while\"; has_child \"cell\"; present TensorArrayV3; } }\n"
                  "  }\n"
                  "  require not any(s in scopes(w%d) : s.name contains \"loop%d\");\n"
                  "  fuse s in w%d where s.parent != none and exists(scope(s.parent, \"x/\")) {\n"
                  "    type DynamicRNN;\n"
                  "    let p = s.parent.name;\n"
                  "    input p + \"transpose\" { 0 -> 0, 1 -> none };\n"
                  "    output \"transpose_1\" { 0 -> 0 };\n"
                  "    if len(p) > %d { attr k = [1, 2, %d]; } else { attr k = lookup(p, {\"a\": 1}) ?? 0; }\n"
                  "  }\n"
                  "}\n",
                  i, i % 3 ? "" : " general", i, 1 + i % 5, 2 + i % 7, i, i, i, i, i, i, i % 9, i);
  }
  assert_false(s.oom);
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_pack p;
  double t0 = now_ms();
  tfx_ruleset *rs = tfx_ruleset_new();
  assert_non_null(rs);
  assert_int_equal(tfx_rules_load_buffer(rs, "gen.scoperule", s.data, s.len, &d), 0);
  assert_int_equal(tfx_rules_check(rs, NULL, &d), 0);
  double t1 = now_ms();
  int rc = tfx_rules_compile(rs, &p, &d);
  double t2 = now_ms();
  if (rc) tg_dump(&d);
  assert_int_equal(rc, 0);
  assert_int_equal(p.n_rules, 1000);
  printf("compile speed: 1000 passes (%zu bytes): load+check %.1f ms, compile+verify %.1f ms, "
         "%u code words, %u constants\n",
         s.len, t1 - t0, t2 - t1, p.n_code, p.n_consts);
  tfx_pack_free(&p);
  tfx_ruleset_free(rs);
  tfx_diag_free(&d);
  tfx_sb_free(&s);
}

/* Fails the Nth allocation of load + check + compile for every N until a run succeeds, with
 * every arena allocation counted (the parser's AST nodes, sema, the compiler). Out of memory
 * is a resource failure, not a rule error: every failing run reports "out of memory ..." and
 * tfx_rules_compile (called as the rules pass does, also after load/check errors) returns
 * TFX_E_NOMEM (exit 1), never TFX_EXIT_RULES (exit 4). Failures are seen in the parser,
 * sema and the compiler, not only in loading. */
static void fault_injection(void **state) {
  (void)state;
  static const char *text[2];
  text[0] = g_pair_rules;
  text[1] = g_map_rules;
  const char *names[2] = {"t.scoperule", "t.opmap"};
  static const char *const phases[] = {"out of memory while loading rules",
                                       "out of memory while parsing",
                                       "out of memory while registering rules",
                                       "out of memory while checking rules",
                                       "out of memory while compiling rules"};
  int seen[5] = {0};
  int ok = 0;
  long k;
  for (k = 1; k < 100000 && !ok; k++) {
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_pack p;
    tfx_pack_init(&p);
    tfx_alloc_fail_arena(1);
    tfx_alloc_fail_at(k);
    int rc = -1;
    tfx_ruleset *rs = tfx_ruleset_new();
    if (rs) {
      tfx_rules_load_buffer(rs, names[0], text[0], strlen(text[0]), &d);
      tfx_rules_load_buffer(rs, names[1], text[1], strlen(text[1]), &d);
      tfx_rules_check(rs, NULL, &d);
      rc = tfx_rules_compile(rs, &p, &d);
    }
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    tfx_alloc_fail_arena(0);
    if (hits == 0) {
      if (rc) tg_dump(&d);
      assert_int_equal(rc, 0);
      assert_int_equal(p.n_rules, 2 + 7);
      ok = 1;
    } else if (rs) {
      if (rc != TFX_E_NOMEM || !TG_ERR(&d, "out of memory")) {
        tg_dump(&d);
        fail_msg("allocation %ld failed: status %d, want %d with an 'out of memory' error", k, rc,
                 TFX_E_NOMEM);
      }
      if (tfx_ruleset_errors(rs)) assert_true(tfx_ruleset_oom(rs));
      for (int i = 0; i < 5; i++) seen[i] += TG_ERR(&d, phases[i]);
      assert_int_equal(p.n_rules, 0);
    }
    tfx_pack_free(&p);
    tfx_ruleset_free(rs);
    tfx_diag_free(&d);
  }
  printf("fault injection: %ld allocations failed one at a time (loading %d, parsing %d, "
         "registering %d, checking %d, compiling %d)\n",
         k - 2, seen[0], seen[1], seen[2], seen[3], seen[4]);
  assert_true(ok);
  assert_true(seen[1] > 0); /* the parser */
  assert_true(seen[3] > 0); /* sema */
  assert_true(seen[4] > 0); /* the compiler */
  /* genuine rule errors stay exit 4 */
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_pack p;
  tfx_ruleset *rs = tfx_ruleset_new();
  assert_non_null(rs);
  tfx_rules_load_buffer(rs, "e.opmap", "op A -> B { attr x = ; }\n", 25, &d);
  tfx_rules_check(rs, NULL, &d);
  assert_false(tfx_ruleset_oom(rs));
  assert_int_equal(tfx_rules_compile(rs, &p, &d), TFX_EXIT_RULES);
  assert_false(TG_ERR(&d, "out of memory"));
  tfx_ruleset_free(rs);
  tfx_pack_free(&p);
  tfx_diag_free(&d);
}

static int teardown_all(void **state) {
  (void)state;
  tfx_sb_free(&g_list);
  return 0;
}

int main(int argc, char **argv) {
  /* the fault-injection cases: their own ctest test (unit/NAME/fault-injection), skipped
   * (exit 77) when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    const struct CMUnitTest fault_tests[] = {
        cmocka_unit_test(fault_injection),
    };
    return cmocka_run_group_tests(fault_tests, NULL, teardown_all);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(golden_pattern_features),
      cmocka_unit_test(golden_fuse_one_binding),
      cmocka_unit_test(golden_fuse_paired),
      cmocka_unit_test(golden_require_if_else),
      cmocka_unit_test(golden_inner_nodes),
      cmocka_unit_test(golden_opmaps),
      cmocka_unit_test(golden_expressions),
      cmocka_unit_test(golden_scope_expressions),
      cmocka_unit_test_setup_teardown(exec_scope_features, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(exec_select_pairing, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(exec_select_require_false, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(exec_maps, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(exec_expressions, vt_setup, vt_teardown),
      cmocka_unit_test(compile_errors_have_locations),
      cmocka_unit_test(determinism),
      cmocka_unit_test(speed_1000_passes),
  };
  return cmocka_run_group_tests(tests, NULL, teardown_all);
}
