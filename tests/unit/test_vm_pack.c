/* Unit tests for the pack format (src/vm/pack.c), the assembler (asm.c) and the
 * disassembler (disasm.c): deterministic write -> load -> write round trips, every
 * truncation and byte flip rejected without a crash or leak, mutated packs with a valid hash
 * either rejected by the verifier or safe to run, targeted verifier errors (bad jump,
 * register, constant, opcode, ...), assembler misuse, allocation-failure injection (out of
 * memory loading a pack is exit 1, not a corrupt pack), files,
 * and a golden disassembly. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <stdlib.h>
#include <unistd.h>

#include "test_vm_util.h"
#include "util/arena.h"
#include "util/status.h"

/* A pack with every table populated: a pass with two layers and a selection program, a map
 * rule, all constant kinds, features, two source files. */
static void build_sample(tfx_asm *as) {
  uint32_t f0 = tfx_asm_file(as, "x.scoperule"), f1 = tfx_asm_file(as, "y.opmap");
  uint32_t r0 = tfx_asm_rule(as, TFX_RULE_PASS, "ScopeTestPass", TFX_RULE_GENERAL);
  tfx_vm_rule *ru = tfx_asm_rule_at(as, r0); /* NULL after an (injected) failure */
  if (ru) ru->file = f0, ru->line = 1;
  uint32_t g = tfx_asm_group(as, r0);
  uint32_t l0 = tfx_asm_layer(as, g);
  uint32_t p0 = tfx_asm_prog_begin(as, TFX_PK_SCOPE, r0);
  tfx_asm_loc(as, f0, 5, 9);
  tfx_asm_emit(as, TFX_OP_SC_COUNT, tfx_asm_feature(as, TFX_OP_SC_COUNT, "count MatMul == 1", f0, 5),
               tfx_asm_const_str(as, "MatMul"), 1);
  tfx_asm_loc(as, f0, 6, 9);
  tfx_asm_emit4(as, TFX_OP_SC_ATTR, tfx_asm_feature(as, TFX_OP_SC_ATTR, "attr Split.num_split == 4", f0, 6),
                tfx_asm_const_str(as, "Split"), tfx_asm_const_str(as, "num_split"), tfx_asm_const_int(as, 4));
  tfx_asm_emit(as, TFX_OP_SC_NORETVAL, tfx_asm_feature(as, TFX_OP_SC_NORETVAL, NULL, f0, 4), 0, 0);
  tfx_asm_emit(as, TFX_OP_MATCH, tfx_asm_const_str(as, "cell"), 0, 0);
  tfx_asm_prog_end(as);
  tfx_asm_pattern(as, l0, "cell", p0);
  uint32_t l1 = tfx_asm_layer(as, g);
  uint32_t p1 = tfx_asm_prog_begin(as, TFX_PK_SCOPE, r0);
  tfx_asm_loc(as, f0, 8, 5);
  tfx_asm_emit(as, TFX_OP_SC_SUBTYPES, tfx_asm_feature(as, TFX_OP_SC_SUBTYPES, "scopes cell == 1", f0, 8),
               tfx_asm_const_str(as, "cell"), 1);
  tfx_asm_emit(as, TFX_OP_SC_NAME, tfx_asm_feature(as, TFX_OP_SC_NAME, "name == \"while\"", f0, 8),
               tfx_asm_const_str(as, "while"), 0);
  tfx_asm_emit(as, TFX_OP_SC_MASK, tfx_asm_feature(as, TFX_OP_SC_MASK, "has_child \"cell\"", f0, 8),
               tfx_asm_const_str(as, "cell"), 0);
  tfx_asm_emit4(as, TFX_OP_SC_STEP, tfx_asm_feature(as, TFX_OP_SC_STEP, "count Mul % 3 == 0", f0, 8),
                tfx_asm_const_str(as, "Mul"), 0, 3);
  tfx_asm_emit(as, TFX_OP_SC_PRESENT, tfx_asm_feature(as, TFX_OP_SC_PRESENT, "present Add", f0, 8),
               tfx_asm_const_str(as, "Add"), 0);
  tfx_asm_emit(as, TFX_OP_SC_ABSENT, tfx_asm_feature(as, TFX_OP_SC_ABSENT, "absent Identity", f0, 8),
               tfx_asm_const_str(as, "Identity"), 0);
  tfx_asm_emit(as, TFX_OP_MATCH, tfx_asm_const_str(as, "wrap"), 0, 0);
  tfx_asm_prog_end(as);
  tfx_asm_pattern(as, l1, "wrap", p1);
  tfx_asm_prog_begin(as, TFX_PK_SELECT, r0);
  tfx_asm_loc(as, f0, 10, 3);
  uint32_t loop = tfx_asm_label_new(as), end = tfx_asm_label_new(as);
  tfx_asm_emit(as, TFX_OP_LOADK, 1, tfx_asm_const_str(as, "wrap"), 0);
  tfx_asm_emit4(as, TFX_OP_CALL, 2, TFX_BI_scopes, 1, 1);
  tfx_asm_emit(as, TFX_OP_ITER, 3, 2, 0);
  tfx_asm_label_here(as, loop);
  tfx_asm_emit(as, TFX_OP_NEXT, 3, 5, end);
  tfx_asm_loc(as, f0, 11, 5);
  tfx_asm_emit(as, TFX_OP_FR_BEGIN, 0, 0, 0);
  tfx_asm_emit(as, TFX_OP_FR_SCOPES, 5, 0, 0);
  tfx_asm_emit(as, TFX_OP_PROP, 6, 5, TFX_PR_name);
  tfx_asm_emit(as, TFX_OP_FR_NAME, 6, 0, 0);
  tfx_asm_emit(as, TFX_OP_LOADK, 7, tfx_asm_const_str(as, "DynamicRNN"), 0);
  tfx_asm_emit(as, TFX_OP_FR_TYPE, 7, 0, 0);
  tfx_asm_emit(as, TFX_OP_FR_END, 0, 0, 0);
  tfx_asm_emit(as, TFX_OP_JMP, loop, 0, 0);
  tfx_asm_label_here(as, end);
  tfx_asm_emit(as, TFX_OP_HALT, 0, 0, 0);
  tfx_asm_prog_end(as);
  uint32_t r1 = tfx_asm_rule(as, TFX_RULE_MAP, "MatMul", 0);
  uint32_t from[2] = {tfx_asm_const_str(as, "MatMul"), tfx_asm_const_str(as, "BatchMatMul")};
  uint32_t from_k = tfx_asm_const_list(as, from, 2), to_k = tfx_asm_const_str(as, "MatMulV2");
  ru = tfx_asm_rule_at(as, r1);
  if (ru) ru->from = from_k, ru->to = to_k, ru->priority = 2, ru->file = f1, ru->line = 3;
  tfx_asm_prog_begin(as, TFX_PK_MAP, r1);
  tfx_asm_loc(as, f1, 4, 3);
  tfx_asm_emit(as, TFX_OP_MAP_AUTO, 0, 0, 0);
  tfx_asm_emit(as, TFX_OP_ATTR, 1, 0, tfx_asm_const_str(as, "transpose_a"));
  tfx_asm_emit(as, TFX_OP_MAP_ATTR, tfx_asm_const_str(as, "transpose_x1"), 1, 0);
  uint32_t inner[2] = {tfx_asm_const_int(as, 1), tfx_asm_const_int(as, 2)};
  uint32_t outer[5] = {tfx_asm_const_list(as, inner, 2), tfx_asm_const_str(as, "a\"b\n"),
                       tfx_asm_const_float(as, -1.5), tfx_asm_const_bool(as, 1), tfx_asm_const_dtype(as, 3)};
  tfx_asm_emit(as, TFX_OP_LOADK, 2, tfx_asm_const_list(as, outer, 5), 0);
  tfx_asm_emit(as, TFX_OP_LOADK, 3, tfx_asm_const_none(as), 0);
  tfx_asm_emit(as, TFX_OP_RET, 2, 0, 0);
  tfx_asm_prog_end(as);
}

/* Builds the sample pack into p and its bytes into b. */
static void sample_bytes(vt *f, tfx_strbuf *b) {
  build_sample(&f->as);
  int rc = tfx_asm_finish(&f->as, &f->p, "sample", &f->d);
  if (rc) tg_dump(&f->d);
  assert_int_equal(rc, 0);
  assert_int_equal(tfx_pack_write(&f->p, b), 0);
}

static void roundtrip_byte_identical(void **state) {
  vt *f = *state;
  tfx_strbuf b1, b2, d1, d2;
  tfx_sb_init(&b1);
  tfx_sb_init(&b2);
  tfx_sb_init(&d1);
  tfx_sb_init(&d2);
  sample_bytes(f, &b1);
  tfx_pack q;
  assert_int_equal(tfx_pack_load(&q, b1.data, b1.len, "s.tfxb", &f->d), 0);
  assert_int_equal(tfx_pack_write(&q, &b2), 0);
  assert_int_equal(b1.len, b2.len);
  assert_memory_equal(b1.data, b2.data, b1.len);
  tfx_vm_disasm(&f->p, &d1);
  tfx_vm_disasm(&q, &d2);
  assert_string_equal(tfx_sb_cstr(&d1), tfx_sb_cstr(&d2));
  /* Building again gives the same bytes (no pointers, no hash order). */
  tfx_asm as2;
  tfx_pack p2;
  tfx_strbuf b3;
  tfx_sb_init(&b3);
  tfx_asm_init(&as2);
  build_sample(&as2);
  assert_int_equal(tfx_asm_finish(&as2, &p2, "again", &f->d), 0);
  assert_int_equal(tfx_pack_write(&p2, &b3), 0);
  assert_int_equal(b3.len, b1.len);
  assert_memory_equal(b3.data, b1.data, b1.len);
  tfx_pack_free(&p2);
  tfx_asm_free(&as2);
  tfx_pack_free(&q);
  tfx_sb_free(&b1);
  tfx_sb_free(&b2);
  tfx_sb_free(&b3);
  tfx_sb_free(&d1);
  tfx_sb_free(&d2);
}

static void truncated_and_flipped_rejected(void **state) {
  vt *f = *state;
  tfx_strbuf b;
  tfx_sb_init(&b);
  sample_bytes(f, &b);
  unsigned char *copy = malloc(b.len);
  assert_non_null(copy);
  for (size_t n = 0; n < b.len; n++) { /* every truncation */
    memcpy(copy, b.data, n);
    tfx_pack q;
    tfx_diag_clear(&f->d);
    assert_int_equal(tfx_pack_load(&q, copy, n, "t.tfxb", &f->d), TFX_EXIT_INPUT);
    assert_int_equal(f->d.errors, 1);
    assert_non_null(strstr(f->d.items[0].msg, "corrupt pack: "));
    tfx_pack_free(&q);
  }
  for (size_t i = 0; i < b.len; i++) { /* every byte flipped */
    memcpy(copy, b.data, b.len);
    copy[i] ^= 0x5a;
    tfx_pack q;
    tfx_diag_clear(&f->d);
    assert_int_equal(tfx_pack_load(&q, copy, b.len, "t.tfxb", &f->d), TFX_EXIT_INPUT);
    assert_int_equal(f->d.errors, 1);
    tfx_pack_free(&q);
  }
  /* One extra byte. */
  tfx_sb_putc(&b, 0);
  tfx_pack q;
  assert_int_equal(tfx_pack_load(&q, b.data, b.len, "t.tfxb", &f->d), TFX_EXIT_INPUT);
  free(copy);
  tfx_sb_free(&b);
}

/* Rewrites the header hash so a mutated payload reaches the structural checks. */
static void rehash(unsigned char *bytes, size_t len) {
  uint64_t h = tfx_pack_hash(bytes + TFX_PACK_HEADER_SIZE, len - TFX_PACK_HEADER_SIZE);
  for (int i = 0; i < 8; i++) bytes[16 + i] = (unsigned char)(h >> (8 * i));
}

/* Every payload byte mutated (three ways) with a valid hash: the loader rejects it, or the
 * verifier accepted it and then every program runs without a crash (errors allowed). */
static void mutated_packs_verified_or_safe(void **state) {
  vt *f = *state;
  const char *g[] = {"a/MatMul|MatMul", "a/Split|Split|a/MatMul", "a/while/b|Add", "x|Const"};
  vt_model(f, g, TG_N(g));
  tfx_strbuf b;
  tfx_sb_init(&b);
  sample_bytes(f, &b);
  unsigned char *copy = malloc(b.len);
  assert_non_null(copy);
  size_t accepted = 0, rejected = 0;
  static const unsigned char deltas[3] = {0x01, 0x80, 0xff};
  for (size_t i = TFX_PACK_HEADER_SIZE; i < b.len; i++) {
    for (int k = 0; k < 3; k++) {
      memcpy(copy, b.data, b.len);
      copy[i] ^= deltas[k];
      rehash(copy, b.len);
      tfx_pack q;
      tfx_diag_clear(&f->d);
      if (tfx_pack_load(&q, copy, b.len, "m.tfxb", &f->d) != 0) {
        assert_int_equal(f->d.errors, 1);
        rejected++;
        continue;
      }
      accepted++;
      tfx_vm *vm = tfx_vm_new(&q);
      assert_non_null(vm);
      tfx_vm_set_host(vm, &vt_host, f);
      tfx_vm_set_budget(vm, 10000, 1 << 20);
      assert_int_equal(tfx_vm_link(vm, &f->m.main, &f->m.ops, &f->t, &f->subtypes, &f->d), 0);
      tfx_vm_result res;
      for (uint32_t pi = 0; pi < q.n_progs; pi++) {
        tfx_status st; /* any outcome but a crash */
        if (q.progs[pi].kind == TFX_PK_SCOPE) st = tfx_vm_run_scope(vm, pi, 1, &res, &f->d);
        else if (q.progs[pi].kind == TFX_PK_MAP) st = tfx_vm_run_map(vm, pi, 0, &res, &f->d);
        else st = tfx_vm_run_select(vm, pi, &res, &f->d);
        (void)st;
      }
      tfx_vm_free(vm);
      tfx_pack_free(&q);
    }
  }
  assert_true(rejected > 0);
  assert_true(accepted > 0); /* e.g. a changed immediate or string byte is still valid */
  free(copy);
  tfx_sb_free(&b);
}

/* ---- targeted verifier errors: assemble, patch the in-memory pack, write, load ---- */

typedef void (*patch_fn)(tfx_pack *p);

static void expect_rejected(vt *f, patch_fn patch, const char *msg) {
  tfx_asm_free(&f->as);
  tfx_asm_init(&f->as);
  tfx_pack_free(&f->p);
  tfx_diag_clear(&f->d);
  build_sample(&f->as);
  assert_int_equal(tfx_asm_finish(&f->as, &f->p, "s", &f->d), 0);
  patch(&f->p);
  tfx_strbuf b;
  tfx_sb_init(&b);
  assert_int_equal(tfx_pack_write(&f->p, &b), 0);
  tfx_pack q;
  assert_int_equal(tfx_pack_load(&q, b.data, b.len, "bad.tfxb", &f->d), TFX_EXIT_INPUT);
  if (!TG_ERR(&f->d, "corrupt pack: ", msg)) {
    tg_dump(&f->d);
    fail_msg("expected '%s'", msg);
  }
  assert_string_equal(f->d.items[0].file, "bad.tfxb");
  tfx_pack_free(&q);
  tfx_sb_free(&b);
  /* The in-memory verifier says the same. */
  tfx_diag_clear(&f->d);
  assert_int_equal(tfx_pack_verify(&f->p, "mem", &f->d), TFX_E_INPUT);
  assert_true(TG_ERR(&f->d, msg));
}

/* Address of the first instruction with opcode op. */
static uint32_t find_op(const tfx_pack *p, tfx_opcode op) {
  for (uint32_t pc = 0; pc < p->n_code; pc += TFX_INS_LEN(TFX_INS_OP(p->code + pc)))
    if (TFX_INS_OP(p->code + pc) == op) return pc;
  fail_msg("no %s", tfx_vm_ops[op].name);
  return 0;
}

static void p_jump_mid(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_JMP); p->code[pc + 1] += 1; }
static void p_jump_out(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_JMP); p->code[pc + 1] = 0; }
static void p_bad_reg(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_FR_NAME); p->code[pc + 1] = 200; }
static void p_bad_pair(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_ITER); p->code[pc + 1] = p->progs[2].nregs - 1; }
static void p_bad_const(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_LOADK); p->code[pc + 2] = p->n_consts; }
static void p_not_string(tfx_pack *p) {
  uint32_t pc = find_op(p, TFX_OP_SC_COUNT);
  for (uint32_t k = 0; k < p->n_consts; k++)
    if (p->consts[k].tag == TFX_V_INT) p->code[pc + 2] = k;
}
static void p_bad_opcode(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_FR_END); p->code[pc] = 0xee; }
static void p_reserved(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_FR_END); p->code[pc] |= 0x100; }
static void p_wrong_kind(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_FR_END); p->code[pc] = TFX_OP_MAP_AUTO; }
static void p_bad_builtin(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_CALL); p->code[pc + 2] = TFX_BI__COUNT; }
static void p_map_builtin(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_CALL); p->code[pc + 2] = TFX_BI_n_inputs; }
static void p_arity(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_CALL); p->code[pc + 4] = 0; }
static void p_feature(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_SC_COUNT); p->code[pc + 1] = 1; }
static void p_feature_range(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_SC_COUNT); p->code[pc + 1] = p->n_features; }
static void p_step0(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_SC_STEP); p->code[pc + 4] = 0; }
static void p_falls_off(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_HALT); p->code[pc] = TFX_OP_NOP; }
static void p_bad_prop(tfx_pack *p) { uint32_t pc = find_op(p, TFX_OP_PROP); p->code[pc + 3] = TFX_PR__COUNT; }
static void p_rule_prog(tfx_pack *p) { p->rules[1].prog = 0; }
static void p_pattern_prog(tfx_pack *p) { p->patterns[0].prog = 2; }
static void p_prog_gap(tfx_pack *p) { p->progs[1].start += 1; }
static void p_nregs(tfx_pack *p) { p->progs[0].nregs = 0; }
static void p_loc_order(tfx_pack *p) { p->locs[1].pc = p->locs[0].pc; }
static void p_rule_groups(tfx_pack *p) { p->rules[0].n_groups = 5; }

static void verifier_rejects(void **state) {
  vt *f = *state;
  expect_rejected(f, p_jump_mid, "not an instruction of program 2");
  expect_rejected(f, p_jump_out, "JMP jumps to 0");
  expect_rejected(f, p_bad_reg, "FR_NAME operand 0: register out of frame");
  expect_rejected(f, p_bad_pair, "ITER operand 0: register pair out of frame");
  expect_rejected(f, p_bad_const, "LOADK operand 1: constant index out of range");
  expect_rejected(f, p_not_string, "SC_COUNT operand 1: operand is not a string constant");
  expect_rejected(f, p_bad_opcode, "bad opcode 238");
  expect_rejected(f, p_reserved, "reserved bits set");
  expect_rejected(f, p_wrong_kind, "MAP_AUTO is not allowed in a selection program");
  expect_rejected(f, p_bad_builtin, "bad builtin id");
  expect_rejected(f, p_map_builtin, "builtin not allowed here");
  expect_rejected(f, p_arity, "scopes takes 1..8 arguments, not 0");
  expect_rejected(f, p_feature, "feature belongs to another test");
  expect_rejected(f, p_feature_range, "feature id out of range");
  expect_rejected(f, p_step0, "SC_STEP with step 0");
  expect_rejected(f, p_falls_off, "program 2 can fall off its end");
  expect_rejected(f, p_bad_prop, "bad property id");
  expect_rejected(f, p_rule_prog, "rule 1: bad program 0");
  expect_rejected(f, p_pattern_prog, "pattern 0: bad program");
  expect_rejected(f, p_prog_gap, "program 1: bad code range");
  expect_rejected(f, p_nregs, "program 0: bad frame size 0");
  expect_rejected(f, p_loc_order, "source map entry 1");
  expect_rejected(f, p_rule_groups, "rule 0: bad groups");
}

static void bad_header(void **state) {
  vt *f = *state;
  tfx_strbuf b;
  tfx_sb_init(&b);
  sample_bytes(f, &b);
  tfx_pack q;
  b.data[4] = 9; /* version */
  assert_int_equal(tfx_pack_load(&q, b.data, b.len, "v.tfxb", &f->d), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "compiled by a different tfxc (pack format version 9, this tfxc reads 3): recompile"));
  b.data[4] = (unsigned char)TFX_PACK_VERSION;
  /* Another tables fingerprint (a pack of a tfxc whose opcode/builtin/property ids differ;
   * tests/cli/pack_fingerprint.sh builds one from a shifted table): refused before the hash. */
  b.data[28] ^= 0x40;
  tfx_diag_clear(&f->d);
  assert_int_equal(tfx_pack_load(&q, b.data, b.len, "v.tfxb", &f->d), TFX_EXIT_INPUT);
  assert_int_equal(f->d.errors, 1);
  assert_true(TG_ERR(&f->d, "compiled by a different tfxc (VM tables fingerprint"));
  assert_true(TG_ERR(&f->d, "recompile it with 'tfxc compile'"));
  b.data[28] ^= 0x40;
  b.data[0] = 'X';
  assert_int_equal(tfx_pack_load(&q, b.data, b.len, "v.tfxb", &f->d), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "bad magic"));
  b.data[0] = 'T';
  b.data[b.len - 1] ^= 1;
  assert_int_equal(tfx_pack_load(&q, b.data, b.len, "v.tfxb", &f->d), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "content hash mismatch"));
  tfx_sb_free(&b);
}

static void asm_misuse(void **state) {
  vt *f = *state;
  tfx_pack q;
  /* unbound label */
  tfx_asm_prog_begin(&f->as, TFX_PK_SELECT, TFX_PACK_NONE);
  uint32_t l = tfx_asm_label_new(&f->as);
  tfx_asm_emit(&f->as, TFX_OP_JMP, l, 0, 0);
  assert_int_equal(tfx_asm_prog_end(&f->as), -1);
  assert_int_equal(tfx_asm_finish(&f->as, &q, "a", &f->d), TFX_E_FAIL);
  assert_true(TG_ERR(&f->d, "assembler: program 0: label 0 is not bound inside the program"));
  /* register beyond the frame limit */
  tfx_asm_free(&f->as);
  tfx_asm_init(&f->as);
  tfx_asm_prog_begin(&f->as, TFX_PK_SELECT, TFX_PACK_NONE);
  tfx_asm_emit(&f->as, TFX_OP_LOADI, 256, 0, 0);
  assert_int_equal(tfx_asm_finish(&f->as, &q, "a", &f->d), TFX_E_FAIL);
  assert_true(TG_ERR(&f->d, "register 256 beyond the frame limit 256"));
  /* instruction outside a program; program left open */
  tfx_asm_free(&f->as);
  tfx_asm_init(&f->as);
  tfx_asm_emit(&f->as, TFX_OP_HALT, 0, 0, 0);
  assert_int_equal(tfx_asm_finish(&f->as, &q, "a", &f->d), TFX_E_FAIL);
  assert_true(TG_ERR(&f->d, "instruction outside a program"));
  tfx_asm_free(&f->as);
  tfx_asm_init(&f->as);
  tfx_asm_prog_begin(&f->as, TFX_PK_SELECT, TFX_PACK_NONE);
  tfx_asm_emit(&f->as, TFX_OP_HALT, 0, 0, 0);
  assert_int_equal(tfx_asm_finish(&f->as, &q, "a", &f->d), TFX_E_FAIL);
  assert_true(TG_ERR(&f->d, "program 0 is still open"));
  /* a program the verifier rejects (falls off its end) is reported by finish */
  tfx_asm_free(&f->as);
  tfx_asm_init(&f->as);
  tfx_asm_prog_begin(&f->as, TFX_PK_SELECT, TFX_PACK_NONE);
  tfx_asm_emit(&f->as, TFX_OP_NOP, 0, 0, 0);
  tfx_asm_prog_end(&f->as);
  assert_int_equal(tfx_asm_finish(&f->as, &q, "a", &f->d), TFX_E_FAIL);
  assert_true(TG_ERR(&f->d, "corrupt pack: program 0 can fall off its end"));
  /* constants are interned */
  tfx_asm_free(&f->as);
  tfx_asm_init(&f->as);
  assert_int_equal(tfx_asm_const_str(&f->as, "a"), tfx_asm_const_str(&f->as, "a"));
  assert_int_not_equal(tfx_asm_const_str(&f->as, "1"), tfx_asm_const_int(&f->as, 1));
  assert_int_equal(tfx_asm_const_int(&f->as, 1), tfx_asm_const_int(&f->as, 1));
  assert_int_not_equal(tfx_asm_const_int(&f->as, 1), tfx_asm_const_float(&f->as, 1.0));
}

/* Fails the Nth allocation for every N until a full build/write/load succeeds untouched. */
static void allocation_failures(void **state) {
  vt *f = *state;
  for (long n = 1;; n++) {
    tfx_asm as;
    tfx_pack p, q;
    tfx_strbuf b;
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_sb_init(&b);
    tfx_asm_init(&as);
    tfx_pack_init(&q);
    tfx_alloc_fail_at(n);
    build_sample(&as);
    int rc = tfx_asm_finish(&as, &p, "oom", &d);
    if (rc == 0) {
      if (tfx_pack_write(&p, &b) == 0) rc = tfx_pack_load(&q, b.data, b.len, "oom", &d);
      else rc = -1;
      tfx_pack_free(&p);
    }
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (rc) assert_true(hits > 0); /* only injected failures may fail */
    tfx_pack_free(&q);
    tfx_asm_free(&as);
    tfx_sb_free(&b);
    tfx_diag_free(&d);
    if (!hits) {
      assert_int_equal(rc, 0);
      break;
    }
    assert_true(n < 100000);
  }
  (void)f;
}

/* Out of memory while loading a pack (reading the file, the sections, the verifier) is a
 * resource failure, not a corrupt pack: every failing allocation of tfx_pack_load_file gives
 * one "out of memory ..." error and TFX_E_NOMEM, never "corrupt pack" / TFX_EXIT_INPUT. */
static void pack_load_out_of_memory(void **state) {
  vt *f = *state;
  build_sample(&f->as);
  assert_int_equal(tfx_asm_finish(&f->as, &f->p, "s", &f->d), 0);
  char path[] = "/tmp/tfxc_vm_oom_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(tfx_pack_save_file(&f->p, path, &f->d), 0);
  int seen_read = 0, seen_sections = 0, seen_verify = 0;
  long n;
  for (n = 1; n < 100000; n++) {
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_pack q;
    tfx_alloc_fail_arena(1); /* every arena allocation of the loader counts */
    tfx_alloc_fail_at(n);
    int rc = tfx_pack_load_file(&q, path, &d);
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    tfx_alloc_fail_arena(0);
    if (!hits) {
      if (rc) tg_dump(&d);
      assert_int_equal(rc, 0);
      assert_int_equal(q.n_code, f->p.n_code);
      tfx_pack_free(&q);
      tfx_diag_free(&d);
      break;
    }
    if (rc != TFX_E_NOMEM || d.errors != 1 || TG_ERR(&d, "corrupt pack")) {
      tg_dump(&d);
      fail_msg("allocation %ld failed while loading a pack: status %d, want %d with one "
               "'out of memory' error", n, rc, TFX_E_NOMEM);
    }
    assert_true(TG_ERR(&d, "out of memory"));
    assert_string_equal(d.items[0].file, path);
    seen_read += TG_ERR(&d, "out of memory reading file");
    seen_sections += TG_ERR(&d, "out of memory loading pack");
    seen_verify += TG_ERR(&d, "out of memory verifying pack");
    assert_int_equal(q.n_code, 0); /* empty after a failure */
    tfx_pack_free(&q);
    tfx_diag_free(&d);
  }
  assert_true(n < 100000);
  /* every stage of the load was reached by a failure */
  assert_true(seen_read > 0);
  assert_true(seen_sections > 0);
  assert_true(seen_verify > 0);
  remove(path);
  /* a genuinely corrupt pack keeps its message and exit code */
  tfx_strbuf b;
  tfx_sb_init(&b);
  assert_int_equal(tfx_pack_write(&f->p, &b), 0);
  tfx_pack q;
  assert_int_equal(tfx_pack_load(&q, b.data, b.len - 4, "t.tfxb", &f->d), TFX_EXIT_INPUT);
  assert_true(TG_ERR(&f->d, "corrupt pack: "));
  assert_false(TG_ERR(&f->d, "out of memory"));
  tfx_pack_free(&q);
  tfx_sb_free(&b);
}

static void vm_allocation_failures(void **state) {
  vt *f = *state;
  const char *g[] = {"a/MatMul|MatMul", "a/Split|Split|a/MatMul", "a/b/c|Add", "x|Const"};
  vt_model(f, g, TG_N(g));
  vt_set_subtype(f, "a/", "wrap");
  build_sample(&f->as);
  assert_int_equal(tfx_asm_finish(&f->as, &f->p, "s", &f->d), 0);
  for (long n = 1;; n++) {
    tfx_diag d;
    tfx_diag_init(&d);
    tfx_alloc_fail_at(n);
    int rc = -1;
    tfx_vm *vm = tfx_vm_new(&f->p);
    if (vm) {
      tfx_vm_set_host(vm, &vt_host, f);
      tfx_vm_set_trace(vm, vt_trace_fn, f); /* the trace buffer allocates too */
      rc = tfx_vm_link(vm, &f->m.main, &f->m.ops, &f->t, &f->subtypes, &d);
      tfx_vm_result res;
      if (!rc) rc = tfx_vm_run_select(vm, 2, &res, &d);
      if (!rc) rc = tfx_vm_run_map(vm, 3, 0, &res, &d);
    }
    long hits = tfx_alloc_failures();
    tfx_alloc_fail_at(0);
    if (rc) assert_true(hits > 0);
    if (vm && rc) assert_int_equal(rc, TFX_E_NOMEM); /* out of memory, never a rule error */
    tfx_vm_free(vm);
    tfx_diag_free(&d);
    if (!hits) break;
    assert_true(n < 10000);
  }
}

static void files(void **state) {
  vt *f = *state;
  build_sample(&f->as);
  assert_int_equal(tfx_asm_finish(&f->as, &f->p, "s", &f->d), 0);
  char path[] = "/tmp/tfxc_vm_test_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(tfx_pack_save_file(&f->p, path, &f->d), 0);
  tfx_pack q;
  assert_int_equal(tfx_pack_load_file(&q, path, &f->d), 0);
  assert_int_equal(q.n_code, f->p.n_code);
  tfx_pack_free(&q);
  remove(path);
  assert_int_equal(tfx_pack_load_file(&q, "/nonexistent/x.tfxb", &f->d), TFX_EXIT_INPUT);
  assert_true(f->d.errors >= 1);
  tfx_pack_free(&q);
}

static const char *golden_disasm =
    "; tfxb v3: 1 rules, 2 programs, 18 code words, 7 constants, 1 features\n"
    "rule 0: pass \"P\" general main prog 1 [g.scoperule:1]\n"
    "  group 0\n"
    "    layer 0\n"
    "      pattern \"m\" prog 0\n"
    "constants:\n"
    "  k0 = \"g.scoperule\"\n"
    "  k1 = \"P\"\n"
    "  k2 = \"count Mul == 3\"\n"
    "  k3 = \"Mul\"\n"
    "  k4 = \"m\"\n"
    "  k5 = 2.5\n"
    "  k6 = [\"Mul\", 2.5]\n"
    "features:\n"
    "  f0 SC_COUNT \"count Mul == 3\" [g.scoperule:3]\n"
    "prog 0: scope, 1 regs, code [0, 6)\n"
    "  0000  SC_COUNT    f0, k3, #3              ; \"Mul\"     [g.scoperule:3]\n"
    "  0004  MATCH       k4                      ; \"m\"       [g.scoperule:3]\n"
    "prog 1: select, 4 regs, code [6, 18), rule 0 \"P\"\n"
    "  0006  LOADK       r1, k6                  ; [\"Mul\", 2.5] [g.scoperule:5]\n"
    "  0009  CALL        r2, len, r1, 1                      [g.scoperule:5]\n"
    "  0014  JT          r3, @17                             [g.scoperule:6]\n"
    "  0017  HALT                                            [g.scoperule:7]\n";

static void disassembly_golden(void **state) {
  vt *f = *state;
  tfx_asm *as = &f->as;
  uint32_t file = tfx_asm_file(as, "g.scoperule");
  uint32_t r = tfx_asm_rule(as, TFX_RULE_PASS, "P", TFX_RULE_GENERAL);
  tfx_asm_rule_at(as, r)->file = file;
  tfx_asm_rule_at(as, r)->line = 1;
  uint32_t layer = tfx_asm_layer(as, tfx_asm_group(as, r));
  uint32_t p0 = tfx_asm_prog_begin(as, TFX_PK_SCOPE, TFX_PACK_NONE);
  tfx_asm_loc(as, file, 3, 5);
  uint32_t feat = tfx_asm_feature(as, TFX_OP_SC_COUNT, "count Mul == 3", file, 3);
  tfx_asm_emit(as, TFX_OP_SC_COUNT, feat, tfx_asm_const_str(as, "Mul"), 3);
  tfx_asm_emit(as, TFX_OP_MATCH, tfx_asm_const_str(as, "m"), 0, 0);
  tfx_asm_prog_end(as);
  tfx_asm_pattern(as, layer, "m", p0);
  tfx_asm_prog_begin(as, TFX_PK_SELECT, r);
  tfx_asm_loc(as, file, 5, 3);
  uint32_t e[2] = {tfx_asm_const_str(as, "Mul"), tfx_asm_const_float(as, 2.5)};
  tfx_asm_emit(as, TFX_OP_LOADK, 1, tfx_asm_const_list(as, e, 2), 0);
  tfx_asm_emit4(as, TFX_OP_CALL, 2, TFX_BI_len, 1, 1);
  tfx_asm_loc(as, file, 6, 3);
  uint32_t l = tfx_asm_label_new(as);
  tfx_asm_emit(as, TFX_OP_JT, 3, l, 0);
  tfx_asm_loc(as, file, 7, 1);
  tfx_asm_label_here(as, l);
  tfx_asm_emit(as, TFX_OP_HALT, 0, 0, 0);
  tfx_asm_prog_end(as);
  assert_int_equal(tfx_asm_finish(as, &f->p, "g", &f->d), 0);
  tfx_strbuf b;
  tfx_sb_init(&b);
  tfx_vm_disasm(&f->p, &b);
  assert_string_equal(tfx_sb_cstr(&b), golden_disasm);
  tfx_sb_free(&b);
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
        cmocka_unit_test_setup_teardown(allocation_failures, vt_setup, vt_teardown),
        cmocka_unit_test_setup_teardown(vm_allocation_failures, vt_setup, vt_teardown),
        cmocka_unit_test_setup_teardown(pack_load_out_of_memory, vt_setup, vt_teardown),
    };
    return cmocka_run_group_tests(fault_tests, NULL, NULL);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(roundtrip_byte_identical, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(truncated_and_flipped_rejected, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(mutated_packs_verified_or_safe, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(verifier_rejects, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(bad_header, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(asm_misuse, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(files, vt_setup, vt_teardown),
      cmocka_unit_test_setup_teardown(disassembly_golden, vt_setup, vt_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
