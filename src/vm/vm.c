/* The interpreter: one dispatch loop for every program kind.
 * Stage: vm. Input: a verified pack (so no operand is range-checked here), a linked model,
 * host callbacks. Output: a tfx_vm_result, host effects, or one diagnostic.
 * Dispatch is a switch, or computed goto when built with TFXC_VM_COMPUTED_GOTO (CMake option
 * of the same name); both expand the same VM_CASE bodies. The loop has one exit (`done`);
 * every error jumps to a shared label (err_type, err_runtime, err_nomem, err_heap, err_budget,
 * err_host, err_nohost) that reports once, naming the rule and the instruction's source line,
 * and maps the TFX_VMR_* code to the run's tfx_status (tfx_vm_status, the one mapping).
 * There is no call instruction and no recursion: iteration uses ITER/NEXT register pairs, so
 * the C stack depth is constant whatever the program does. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"
#include "vm/vm_int.h"

tfx_vm *tfx_vm_new(const tfx_pack *pack) {
  tfx_vm *vm = tfx_calloc(1, sizeof *vm);
  if (!vm) return NULL;
  vm->pack = pack;
  vm->max_steps = TFX_VM_DEFAULT_STEPS;
  vm->max_mem = TFX_VM_DEFAULT_MEM;
  vm->retval_op = vm->const_op_id = TFX_NO_ID;
  vm->cur_scope = vm->cur_node = TFX_NO_ID;
  vm->fails = tfx_malloc(TFX_VM_MAX_FAILS * sizeof *vm->fails); /* a run allocates only past it */
  if (!vm->fails) {
    free(vm);
    return NULL;
  }
  vm->cap_fails = TFX_VM_MAX_FAILS;
  tfx_sb_init(&vm->trace_buf);
  return vm;
}

void tfx_vm_free(tfx_vm *vm) {
  if (!vm) return;
  tfx_vm_heap_free(vm);
  free(vm->const_op);
  free(vm->const_st);
  free(vm->fails);
  tfx_sb_free(&vm->trace_buf);
  free(vm);
}

void tfx_vm_set_host(tfx_vm *vm, const tfx_vm_host *host, void *ctx) {
  vm->host = host;
  vm->host_ctx = ctx;
}

void tfx_vm_set_budget(tfx_vm *vm, uint64_t steps, size_t mem_bytes) {
  vm->max_steps = steps ? steps : TFX_VM_DEFAULT_STEPS;
  vm->max_mem = mem_bytes ? mem_bytes : TFX_VM_DEFAULT_MEM;
}

void tfx_vm_get_budget(const tfx_vm *vm, uint64_t *steps, size_t *mem_bytes) {
  if (steps) *steps = vm->max_steps;
  if (mem_bytes) *mem_bytes = vm->max_mem;
}

void tfx_vm_set_trace(tfx_vm *vm, tfx_vm_trace_fn fn, void *ctx) {
  vm->trace = fn;
  vm->trace_ctx = ctx;
}

void tfx_vm_set_flags(tfx_vm *vm, unsigned flags) { vm->flags = flags; }

int tfx_vm_observed(const tfx_vm *vm) { return vm->trace != NULL || vm->flags != 0; }

uint32_t tfx_vm_const_op(const tfx_vm *vm, uint32_t k) {
  return vm->linked && k < vm->pack->n_consts ? vm->const_op[k] : TFX_NO_ID;
}

uint32_t tfx_vm_const_subtype(const tfx_vm *vm, uint32_t k) {
  return vm->linked && k < vm->pack->n_consts ? vm->const_st[k] : TFX_NO_ID;
}

/* Interns sub_type constant k (once). */
static int link_subtype(tfx_vm *vm, uint32_t k) {
  if (vm->const_st[k] != TFX_NO_ID || !vm->subtypes) return 0;
  const tfx_value *v = &vm->pack->consts[k];
  uint32_t id = tfx_intern_id(vm->subtypes, v->u.s, v->n);
  if (id == TFX_HASH_NONE) return -1;
  vm->const_st[k] = id;
  return 0;
}

tfx_status tfx_vm_link(tfx_vm *vm, const tfx_graph *graph, const tfx_intern *ops,
                const tfx_scope_tree *tree, tfx_intern *subtypes, tfx_diag *d) {
  const tfx_pack *p = vm->pack;
  free(vm->const_op);
  free(vm->const_st);
  vm->linked = 0;
  vm->const_op = tfx_malloc(((size_t)p->n_consts + 1) * sizeof *vm->const_op);
  vm->const_st = tfx_malloc(((size_t)p->n_consts + 1) * sizeof *vm->const_st);
  if (!vm->const_op || !vm->const_st) goto nomem;
  vm->graph = graph ? graph : tree ? tree->graph : NULL;
  vm->ops = ops;
  vm->tree = tree;
  vm->subtypes = subtypes;
  for (uint32_t k = 0; k < p->n_consts; k++) {
    const tfx_value *v = &p->consts[k];
    uint32_t id = TFX_NO_ID;
    if (v->tag == TFX_V_STR && ops) {
      id = tfx_intern_find(ops, v->u.s, v->n);
      if (id == TFX_HASH_NONE) id = TFX_NO_ID;
    }
    vm->const_op[k] = id;
    vm->const_st[k] = TFX_NO_ID;
  }
  vm->retval_op = vm->const_op_id = TFX_NO_ID;
  if (ops) {
    uint32_t id = tfx_intern_find(ops, "_Retval", 7);
    vm->retval_op = id == TFX_HASH_NONE ? TFX_NO_ID : id;
    id = tfx_intern_find(ops, "Const", 5);
    vm->const_op_id = id == TFX_HASH_NONE ? TFX_NO_ID : id;
  }
  /* Sub_types: every KT operand and every pattern's sub_type. */
  for (uint32_t pc = 0; pc < p->n_code; pc += TFX_INS_LEN(TFX_INS_OP(p->code + pc))) {
    const uint32_t *ins = p->code + pc;
    const tfx_opinfo *oi = &tfx_vm_ops[TFX_INS_OP(ins)];
    for (unsigned i = 0; i < oi->n_operands; i++)
      if (oi->kinds[i] == TFX_K_KT && link_subtype(vm, TFX_INS_RAW(ins, i))) goto nomem;
  }
  for (uint32_t i = 0; i < p->n_patterns; i++)
    if (link_subtype(vm, p->patterns[i].sub_type)) goto nomem;
  vm->linked = 1;
  return TFX_OK;
nomem:
  tfx_error(d, NULL, 0, 0, "out of memory linking rules to the model");
  return TFX_E_NOMEM;
}

/* ---------------------------------------------------------------- helpers */

/* Records a failed scope feature. */
static void feature_failed(tfx_vm *vm, uint32_t feat, uint32_t pc, tfx_value expected,
                           tfx_value found) {
  if (vm->n_fails == vm->cap_fails && vm->cap_fails < UINT32_MAX / 2) { /* unbounded: explain looks at all */
    uint32_t cap = vm->cap_fails ? vm->cap_fails * 2 : TFX_VM_MAX_FAILS;
    tfx_vm_failure *nf = tfx_realloc(vm->fails, (size_t)cap * sizeof *nf);
    if (nf) {
      vm->fails = nf;
      vm->cap_fails = cap;
    }
  }
  if (vm->n_fails == vm->cap_fails) vm->fails_oom = 1; /* the run fails at its end (all or nothing) */
  if (vm->n_fails < vm->cap_fails) {
    tfx_vm_failure *f = &vm->fails[vm->n_fails++];
    f->feature = feat;
    f->pc = pc;
    f->expected = expected;
    f->found = found;
  }
  vm->n_failed++;
}

#define TRACE_VALUE_MAX 80 /* bytes of one value shown by --trace */

/* Appends "  | rB=VALUE rC=VALUE" to a trace line: the registers the instruction at pc reads
 * (operands of kind R that its effect does not assign, and the ranges of N operands), as they
 * are before it runs; long values are cut ("..."). So a condition's trace shows what each
 * comparison compared and each jump tested. */
static void trace_values(tfx_vm *vm, uint32_t pc, tfx_strbuf *b) {
  const uint32_t *ins = vm->pack->code + pc;
  const tfx_opinfo *oi = &tfx_vm_ops[TFX_INS_OP(ins)];
  int any = 0;
  for (unsigned i = 0; i < oi->n_operands; i++) {
    if (oi->kinds[i] != TFX_K_R) continue;
    char dest[8];
    snprintf(dest, sizeof dest, "R[%c] =", 'a' + i);
    if (oi->effect && !strncmp(oi->effect, dest, strlen(dest))) continue;
    uint32_t r = TFX_INS_RAW(ins, i), n = 1;
    if (i + 1 < oi->n_operands && oi->kinds[i + 1] == TFX_K_N) n = TFX_INS_RAW(ins, i + 1);
    for (uint32_t k = 0; k < n && k < 4 && r + k < TFX_VM_MAX_REGS; k++) {
      tfx_sb_puts(b, any++ ? " " : "  | ");
      tfx_sb_printf(b, "r%u=", r + k);
      size_t at = b->len;
      tfx_vm_format_value(b, &vm->regs[r + k], 1);
      if (!b->oom && b->len - at > TRACE_VALUE_MAX) {
        b->len = at + TRACE_VALUE_MAX;
        b->data[b->len] = 0;
        tfx_sb_puts(b, "...");
      }
    }
  }
}

/* Formats and emits one trace line; -1 on out of memory (errmsg set). */
static int trace_ins(tfx_vm *vm, uint32_t pc) {
  tfx_strbuf *b = &vm->trace_buf;
  tfx_sb_reset(b);
  const tfx_vm_loc *l = tfx_pack_loc_at(vm->pack, pc);
  if (l) tfx_sb_printf(b, "[%s:%u] ", tfx_pack_file(vm->pack, l->file), l->line);
  tfx_sb_printf(b, "%04u  ", pc);
  tfx_vm_format_ins(vm->pack, pc, b);
  trace_values(vm, pc, b);
  if (b->oom) return tfx_vm_err(vm, -1, "out of memory");
  vm->trace(vm->trace_ctx, tfx_sb_cstr(b));
  return 0;
}

/* Reports the run-time error msg at pc. */
static void report(tfx_vm *vm, uint32_t pc, const char *msg, tfx_diag *d) {
  const tfx_pack *p = vm->pack;
  const tfx_vm_loc *l = tfx_pack_loc_at(p, pc);
  const char *rule = tfx_pack_rule_name_at(p, pc);
  char fallback[32];
  if (!rule) {
    snprintf(fallback, sizeof fallback, "<program %u>", tfx_pack_prog_at(p, pc));
    rule = fallback;
  }
  if (l)
    tfx_error(d, tfx_pack_file(p, l->file), l->line, l->col, "rule '%s': %s", rule, msg);
  else
    tfx_error(d, NULL, 0, 0, "rule '%s' (pc %u): %s", rule, pc, msg);
}

/* Ids of a scope or a list of scopes / a node or list of nodes (none elements skipped). */
static int id_array(tfx_vm *vm, const tfx_value *v, int tag, const uint32_t **ids, size_t *n) {
  if (v->tag == tag || v->tag == TFX_V_NONE) {
    uint32_t *one = tfx_vm_alloc(vm, sizeof *one);
    if (!one) return tfx_vm_heap_fail(vm);
    *one = v->u.id;
    *ids = one;
    *n = v->tag == TFX_V_NONE ? 0 : 1;
    return TFX_VMR_OK;
  }
  if (v->tag != TFX_V_LIST)
    return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: expected a %s or a list of them, not %s",
                      tfx_v_tag_name(tag), tfx_v_tag_name(v->tag));
  uint32_t *a = tfx_vm_alloc(vm, ((size_t)v->n + 1) * sizeof *a);
  if (!a) return tfx_vm_heap_fail(vm);
  size_t k = 0;
  for (uint32_t i = 0; i < v->n; i++) {
    const tfx_value *e = &v->u.items[i];
    if (e->tag == TFX_V_NONE) continue;
    if (e->tag != tag)
      return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: list element %u is %s, not %s", i,
                        tfx_v_tag_name(e->tag), tfx_v_tag_name(tag));
    a[k++] = e->u.id;
  }
  *ids = a;
  *n = k;
  return TFX_VMR_OK;
}

static int need(tfx_vm *vm, const tfx_value *v, int tag, const char *what) {
  if (v->tag == tag) return TFX_VMR_OK;
  return tfx_vm_err(vm, TFX_VMR_TYPE, "type error: %s must be %s, not %s", what,
                    tfx_v_tag_name(tag), tfx_v_tag_name(v->tag));
}

/* ---------------------------------------------------------------- the loop */

#ifdef TFXC_VM_COMPUTED_GOTO
#define VM_DISPATCH(o) goto *dispatch[(o)];
#define VM_CASE(name) L_##name:
#define VM_DEFAULT /* the dispatch table has exactly TFX_OP__COUNT labels */
#define VM_NEXT()                      \
  do {                                 \
    VM_FETCH();                        \
    goto *dispatch[TFX_INS_OP(ins)];   \
  } while (0)
#else
#define VM_DISPATCH(o) switch (o)
#define VM_CASE(name) case TFX_OP_##name:
#define VM_DEFAULT \
  default:         \
    break;
#define VM_NEXT() goto fetch
#endif

/* Decodes the instruction at pc, charges one step and traces it. */
#define VM_FETCH()                                  \
  do {                                              \
    ins = code + pc;                                \
    ipc = pc;                                       \
    pc += TFX_INS_LEN(TFX_INS_OP(ins));             \
    if (++vm->steps > vm->max_steps) goto err_budget; \
    if (vm->trace && trace_ins(vm, ipc)) goto err_nomem; \
  } while (0)

/* Calls library helper `call`; a nonzero code goes to its shared error label. */
#define VM_TRY(call)                          \
  do {                                        \
    int rc_ = (call);                         \
    if (rc_ == TFX_VMR_TYPE) goto err_type;   \
    if (rc_ == TFX_VMR_RUNTIME) goto err_runtime; \
    if (rc_ == TFX_VMR_NOMEM) goto err_nomem; \
    if (rc_ == TFX_VMR_HEAP) goto err_heap;   \
    if (rc_ == TFX_VMR_BUDGET) goto err_budget; \
  } while (0)

/* Calls host callback fn with the context and the remaining arguments; its nonzero result is
 * kept in host_rc (TFX_E_NOMEM: the host ran out of memory, see host.h). */
#define VM_HOST(fn, ...)                                 \
  do {                                                   \
    if (!vm->host || !vm->host->fn) goto err_nohost;     \
    if ((host_rc = vm->host->fn(vm->host_ctx, __VA_ARGS__)) != 0) goto err_host; \
  } while (0)
#define VM_HOST0(fn)                                     \
  do {                                                   \
    if (!vm->host || !vm->host->fn) goto err_nohost;     \
    if ((host_rc = vm->host->fn(vm->host_ctx)) != 0) goto err_host; \
  } while (0)

#define RA R[TFX_INS_REG(ins, 0)]
#define RB R[TFX_INS_REG(ins, 1)]
#define RC R[TFX_INS_REG(ins, 2)]
#define RD R[TFX_INS_REG(ins, 3)]
#define SCOPE_NOW (&vm->tree->scopes[vm->cur_scope])

tfx_status tfx_vm_status(int vmr) {
  switch (vmr) {
  case TFX_VMR_OK: return TFX_OK;
  case TFX_VMR_NOMEM: return TFX_E_NOMEM; /* an allocation failed */
  default: return TFX_E_FAIL; /* a rule run-time error or a limit (steps, heap budget) */
  }
}

static tfx_status run(tfx_vm *vm, uint32_t prog_id, tfx_vm_result *res, tfx_diag *d) {
#ifdef TFXC_VM_COMPUTED_GOTO
#define LBL_(name, k1, k2, k3, k4, progs, flags, eff, syn) &&L_##name,
  static const void *const dispatch[TFX_OP__COUNT] = {TFX_VM_OPCODES(LBL_)};
#undef LBL_
#endif
  const tfx_pack *P = vm->pack;
  const tfx_vm_prog *prog = &P->progs[prog_id];
  const uint32_t *code = P->code;
  const tfx_value *K = P->consts;
  tfx_value *R = vm->regs;
  const uint32_t *ins = code + prog->start;
  uint32_t pc = prog->start, ipc = pc;
  tfx_status rc = TFX_OK;
  int host_rc = 0;
  tfx_value t;

  memset(res, 0, sizeof *res);
  res->sub_type = TFX_NO_ID;
  for (uint32_t i = 1; i < prog->nregs; i++) R[i] = tfx_v_none();

#ifndef TFXC_VM_COMPUTED_GOTO
fetch:
#endif
  VM_FETCH();
  VM_DISPATCH(TFX_INS_OP(ins)) {
    /* ---- values ---- */
    VM_CASE(NOP) VM_NEXT();
    VM_CASE(LOADK) RA = K[TFX_INS_K(ins, 1)]; VM_NEXT();
    VM_CASE(LOADI) RA = tfx_v_int(TFX_INS_IMM(ins, 1)); VM_NEXT();
    VM_CASE(LOADB) RA = tfx_v_bool(TFX_INS_IMM(ins, 1) != 0); VM_NEXT();
    VM_CASE(LOADNONE) RA = tfx_v_none(); VM_NEXT();
    VM_CASE(MOVE) RA = RB; VM_NEXT();
    VM_CASE(ADD)
    VM_CASE(SUB)
    VM_CASE(MUL)
    VM_CASE(DIV)
    VM_CASE(MOD)
      VM_TRY(tfx_vm_arith(vm, TFX_INS_OP(ins), &RB, &RC, &t));
      RA = t;
      VM_NEXT();
    VM_CASE(NEG)
      VM_TRY(tfx_vm_arith(vm, TFX_OP_NEG, &RB, &RB, &t));
      RA = t;
      VM_NEXT();
    VM_CASE(EQ) RA = tfx_v_bool(tfx_v_equal(&RB, &RC)); VM_NEXT();
    VM_CASE(NE) RA = tfx_v_bool(!tfx_v_equal(&RB, &RC)); VM_NEXT();
    VM_CASE(LT)
    VM_CASE(LE)
    VM_CASE(GT)
    VM_CASE(GE)
      VM_TRY(tfx_vm_compare(vm, TFX_INS_OP(ins), &RB, &RC, &t));
      RA = t;
      VM_NEXT();
    VM_CASE(NOT)
      VM_TRY(need(vm, &RB, TFX_V_BOOL, "the operand of 'not'"));
      RA = tfx_v_bool(!RB.u.i);
      VM_NEXT();
    VM_CASE(CONTAINS)
    VM_CASE(STARTS)
    VM_CASE(ENDS)
      VM_TRY(tfx_vm_strtest(vm, TFX_INS_OP(ins), &RB, &RC, &t));
      RA = t;
      VM_NEXT();
    VM_CASE(IN) {
      int hit = 0;
      if (RC.tag != TFX_V_NONE) {
        VM_TRY(need(vm, &RC, TFX_V_LIST, "the right side of 'in'"));
        VM_TRY(tfx_vm_charge(vm, RC.n / 8));
        for (uint32_t i = 0; i < RC.n && !hit; i++) hit = tfx_v_equal(&RB, &RC.u.items[i]);
      }
      RA = tfx_v_bool(hit);
      VM_NEXT();
    }
    VM_CASE(INDEX) VM_TRY(tfx_vm_index(vm, &RB, &RC, &t)); RA = t; VM_NEXT();
    VM_CASE(SLICE) VM_TRY(tfx_vm_slice(vm, &RB, &RC, &RD, &t)); RA = t; VM_NEXT();
    VM_CASE(PERM) VM_TRY(tfx_vm_perm(vm, &RB, &RC, &t)); RA = t; VM_NEXT();
    VM_CASE(NEWLIST) {
      uint32_t first = TFX_INS_REG(ins, 1), n = TFX_INS_CNT(ins, 2);
      tfx_value *items = tfx_vm_alloc(vm, (size_t)n * sizeof *items);
      if (!items) VM_TRY(tfx_vm_heap_fail(vm));
      if (n) memcpy(items, &R[first], n * sizeof *items);
      if (tfx_v_list_depth(items, n) > TFX_V_MAX_DEPTH) {
        tfx_vm_err(vm, TFX_VMR_RUNTIME, "lists nested deeper than %d", TFX_V_MAX_DEPTH);
        goto err_runtime;
      }
      RA = tfx_v_list(items, n);
      VM_NEXT();
    }
    VM_CASE(LEN) VM_TRY(tfx_vm_builtin(vm, TFX_BI_len, &RB, 1, &t)); RA = t; VM_NEXT();
    VM_CASE(PROP) VM_TRY(tfx_vm_prop(vm, TFX_INS_PROP(ins, 2), &RB, &t)); RA = t; VM_NEXT();
    VM_CASE(ATTR) VM_TRY(tfx_vm_attr(vm, &RB, K[TFX_INS_KS(ins, 2)].u.s, &t)); RA = t; VM_NEXT();
    VM_CASE(CALL)
      VM_TRY(tfx_vm_builtin(vm, TFX_INS_BUILTIN(ins, 1), &RC, TFX_INS_CNT(ins, 3), &t));
      RA = t;
      VM_NEXT();

    /* ---- control ---- */
    VM_CASE(JMP) pc = TFX_INS_TARGET(ins, 0); VM_NEXT();
    VM_CASE(JT)
    VM_CASE(JF)
      VM_TRY(need(vm, &RA, TFX_V_BOOL, "a condition"));
      if ((RA.u.i != 0) == (TFX_INS_OP(ins) == TFX_OP_JT)) pc = TFX_INS_TARGET(ins, 1);
      VM_NEXT();
    VM_CASE(JNONE) if (RA.tag == TFX_V_NONE) pc = TFX_INS_TARGET(ins, 1); VM_NEXT();
    VM_CASE(JSOME) if (RA.tag != TFX_V_NONE) pc = TFX_INS_TARGET(ins, 1); VM_NEXT();
    VM_CASE(ITER) {
      uint32_t a = TFX_INS_REG2(ins, 0);
      t = RB;
      if (t.tag == TFX_V_NONE) t = tfx_v_list(NULL, 0);
      VM_TRY(need(vm, &t, TFX_V_LIST, "the iterated value"));
      R[a] = t;
      R[a + 1] = tfx_v_int(0);
      VM_NEXT();
    }
    VM_CASE(NEXT) {
      uint32_t a = TFX_INS_REG2(ins, 0);
      if (R[a].tag != TFX_V_LIST || R[a + 1].tag != TFX_V_INT) {
        tfx_vm_err(vm, TFX_VMR_TYPE, "type error: NEXT on a register pair that ITER did not set");
        goto err_type;
      }
      int64_t i = R[a + 1].u.i;
      if (i >= 0 && i < (int64_t)R[a].n) {
        t = R[a].u.items[i];
        R[a + 1].u.i = i + 1;
        R[TFX_INS_REG(ins, 1)] = t;
      } else {
        pc = TFX_INS_TARGET(ins, 2);
      }
      VM_NEXT();
    }
    VM_CASE(RET) res->value = RA; goto done;
    VM_CASE(HALT) res->value = tfx_v_none(); goto done;

    /* ---- scope tests ---- */
    VM_CASE(SC_COUNT) {
      int64_t c = tfx_scope_op_count(SCOPE_NOW, vm->const_op[TFX_INS_KO(ins, 1)]);
      int64_t want = TFX_INS_IMM(ins, 2);
      if (c == want) VM_NEXT();
      feature_failed(vm, TFX_INS_FEAT(ins, 0), ipc, tfx_v_int(want), tfx_v_int(c));
      goto sc_failed;
    }
    VM_CASE(SC_STEP) {
      int64_t c = tfx_scope_op_count(SCOPE_NOW, vm->const_op[TFX_INS_KO(ins, 1)]);
      int64_t num = TFX_INS_IMM(ins, 2), step = TFX_INS_IMM(ins, 3);
      if (c != -1 && c % step == num) VM_NEXT();
      feature_failed(vm, TFX_INS_FEAT(ins, 0), ipc, tfx_v_int(num), tfx_v_int(c));
      goto sc_failed;
    }
    VM_CASE(SC_PRESENT)
    VM_CASE(SC_ABSENT)
    VM_CASE(SC_NORETVAL) {
      tfx_opcode op = TFX_INS_OP(ins);
      uint32_t id = op == TFX_OP_SC_NORETVAL ? vm->retval_op : vm->const_op[TFX_INS_KO(ins, 1)];
      int64_t c = tfx_scope_op_count(SCOPE_NOW, id);
      int present = c != -1;
      if (present == (op == TFX_OP_SC_PRESENT)) VM_NEXT();
      feature_failed(vm, TFX_INS_FEAT(ins, 0), ipc,
                     op == TFX_OP_SC_PRESENT ? tfx_v_bool(1) : tfx_v_int(-1), tfx_v_int(c));
      goto sc_failed;
    }
    VM_CASE(SC_ATTR) {
      int matched = 0;
      const tfx_value *want = &K[TFX_INS_K(ins, 3)];
      VM_TRY(tfx_vm_attr_feature(vm, vm->cur_scope, vm->const_op[TFX_INS_KO(ins, 1)],
                                 K[TFX_INS_KS(ins, 2)].u.s, want, &t, &matched));
      if (matched) VM_NEXT();
      feature_failed(vm, TFX_INS_FEAT(ins, 0), ipc, *want, t);
      goto sc_failed;
    }
    VM_CASE(SC_SUBTYPES) {
      /* Strict descendants carrying the sub_type (GetAllSubScopes excludes the scope). */
      const tfx_scope *s = SCOPE_NOW;
      uint32_t st = vm->const_st[TFX_INS_KT(ins, 1)];
      int64_t c = 0, want = TFX_INS_IMM(ins, 2);
      VM_TRY(tfx_vm_charge(vm, (s->dfs_end - s->dfs_index) / 8));
      for (uint32_t i = s->dfs_index + 1; i < s->dfs_end && st != TFX_NO_ID; i++)
        c += vm->tree->scopes[vm->tree->dfs[i]].sub_type == st;
      if (c == want) VM_NEXT();
      feature_failed(vm, TFX_INS_FEAT(ins, 0), ipc, tfx_v_int(want), tfx_v_int(c));
      goto sc_failed;
    }
    VM_CASE(SC_NAME) {
      /* ScopeFeature suffix (docs/ASCEND.md §2.3 steps 1-2): longer than the full name fails;
       * otherwise it must EQUAL LastName. An empty suffix is no test. */
      const tfx_scope *s = SCOPE_NOW;
      const tfx_value *want = &K[TFX_INS_KS(ins, 1)];
      size_t ln = strlen(s->last_name);
      if (want->n == 0 ||
          (want->n <= strlen(s->name) && ln == want->n && memcmp(s->last_name, want->u.s, ln) == 0))
        VM_NEXT();
      feature_failed(vm, TFX_INS_FEAT(ins, 0), ipc, *want, tfx_v_str(s->last_name, (uint32_t)ln));
      goto sc_failed;
    }
    VM_CASE(SC_MASK) {
      /* Some strict descendant whose full name is longer than the mask has a LastName that
       * contains the mask (docs/ASCEND.md §2.3). An empty mask is no test. */
      const tfx_scope *s = SCOPE_NOW;
      const tfx_value *m = &K[TFX_INS_KS(ins, 1)];
      int hit = m->n == 0;
      VM_TRY(tfx_vm_charge(vm, (s->dfs_end - s->dfs_index) / 8));
      for (uint32_t i = s->dfs_index + 1; i < s->dfs_end && !hit; i++) {
        const tfx_scope *c = &vm->tree->scopes[vm->tree->dfs[i]];
        hit = strlen(c->name) > m->n && strstr(c->last_name, m->u.s) != NULL;
      }
      if (hit) VM_NEXT();
      feature_failed(vm, TFX_INS_FEAT(ins, 0), ipc, *m, tfx_v_bool(0));
      goto sc_failed;
    }
    VM_CASE(SC_CHECK)
      if (RB.tag == TFX_V_BOOL && RB.u.i) VM_NEXT();
      feature_failed(vm, TFX_INS_FEAT(ins, 0), ipc, tfx_v_bool(1), RB);
      goto sc_failed;
    VM_CASE(MATCH)
      res->matched = vm->n_failed == 0;
      res->sub_type = res->matched ? vm->const_st[TFX_INS_KT(ins, 0)] : TFX_NO_ID;
      goto done;

    /* ---- fusion results ---- */
    VM_CASE(FR_BEGIN) VM_HOST0(result_begin); VM_NEXT();
    VM_CASE(FR_END) VM_HOST0(result_end); VM_NEXT();
    VM_CASE(FR_SCOPES) {
      const uint32_t *ids;
      size_t n;
      VM_TRY(id_array(vm, &RA, TFX_V_SCOPE, &ids, &n));
      VM_HOST(result_scopes, ids, n);
      VM_NEXT();
    }
    VM_CASE(FR_NAME)
      VM_TRY(need(vm, &RA, TFX_V_STR, "a result name"));
      VM_HOST(result_name, RA.u.s, RA.n);
      VM_NEXT();
    VM_CASE(FR_TYPE)
      VM_TRY(need(vm, &RA, TFX_V_STR, "a result type"));
      VM_HOST(result_type, RA.u.s, RA.n);
      VM_NEXT();
    VM_CASE(FR_DESC)
      VM_TRY(need(vm, &RA, TFX_V_STR, "a description"));
      VM_HOST(result_description, RA.u.s, RA.n);
      VM_NEXT();
    VM_CASE(FR_INPUT)
    VM_CASE(FR_OUTPUT) {
      VM_TRY(need(vm, &RA, TFX_V_STR, "an index-map key"));
      VM_TRY(need(vm, &RB, TFX_V_INT, "an index-map source port"));
      if (RC.tag != TFX_V_NONE) VM_TRY(need(vm, &RC, TFX_V_INT, "an index-map target port"));
      int dir = TFX_INS_OP(ins) == TFX_OP_FR_OUTPUT;
      VM_HOST(result_map, dir, RA.u.s, RA.n, RB.u.i, RC.tag == TFX_V_NONE ? -1 : RC.u.i);
      VM_NEXT();
    }
    VM_CASE(FR_KEY)
      VM_TRY(need(vm, &RB, TFX_V_STR, "an index-map key"));
      VM_HOST(result_key, (int)TFX_INS_DIR(ins, 0), RB.u.s, RB.n, (int)TFX_INS_IMM(ins, 2), ipc);
      VM_NEXT();
    VM_CASE(FR_ABSORB) {
      const uint32_t *ids;
      size_t n;
      VM_TRY(id_array(vm, &RA, TFX_V_NODE, &ids, &n));
      VM_HOST(result_absorb, ids, n);
      VM_NEXT();
    }
    VM_CASE(FR_ATTR) VM_HOST(result_attr, K[TFX_INS_KS(ins, 0)].u.s, &RB); VM_NEXT();
    VM_CASE(FR_INVALID)
      VM_TRY(need(vm, &RA, TFX_V_STR, "an invalid reason"));
      VM_HOST(result_invalid, RA.u.s, RA.n);
      VM_NEXT();

    /* ---- inner nodes ---- */
    VM_CASE(NODE_NEW)
      VM_TRY(need(vm, &RA, TFX_V_STR, "an inner node name"));
      VM_TRY(need(vm, &RB, TFX_V_STR, "an inner node type"));
      VM_HOST(node_new, RA.u.s, RA.n, RB.u.s, RB.n);
      VM_NEXT();
    VM_CASE(NODE_IN)
      if (RA.tag != TFX_V_NONE) VM_TRY(need(vm, &RA, TFX_V_STR, "an inner input source"));
      VM_TRY(need(vm, &RB, TFX_V_INT, "an inner input port"));
      VM_HOST(node_input, RA.tag == TFX_V_NONE ? NULL : RA.u.s, RA.n, RB.u.i);
      VM_NEXT();
    VM_CASE(NODE_CONST) VM_HOST(node_const, &RA); VM_NEXT();
    VM_CASE(NODE_ATTR) VM_HOST(node_attr, K[TFX_INS_KS(ins, 0)].u.s, &RB); VM_NEXT();
    VM_CASE(NODE_FORMAT)
      VM_TRY(need(vm, &RB, TFX_V_INT, "a port"));
      VM_TRY(need(vm, &RC, TFX_V_STR, "a format"));
      VM_HOST(node_format, (int)TFX_INS_DIR(ins, 0), RB.u.i, RC.u.s, RC.n);
      VM_NEXT();
    VM_CASE(NODE_OUT)
      VM_TRY(need(vm, &RA, TFX_V_INT, "a boundary output index"));
      VM_TRY(need(vm, &RB, TFX_V_STR, "an inner node name"));
      VM_TRY(need(vm, &RC, TFX_V_INT, "a port"));
      VM_HOST(node_out, RA.u.i, RB.u.s, RB.n, RC.u.i);
      VM_NEXT();

    /* ---- op maps ---- */
    VM_CASE(MAP_TYPE)
      VM_TRY(need(vm, &RA, TFX_V_STR, "a CANN type"));
      VM_HOST(map_type, RA.u.s, RA.n);
      VM_NEXT();
    VM_CASE(MAP_AUTO) VM_HOST0(map_auto); VM_NEXT();
    VM_CASE(MAP_ATTR) VM_HOST(map_attr, K[TFX_INS_KS(ins, 0)].u.s, &RB); VM_NEXT();
    VM_CASE(MAP_DROP) VM_HOST(map_drop, K[TFX_INS_KS(ins, 0)].u.s); VM_NEXT();
    VM_CASE(MAP_FORMAT)
      VM_TRY(need(vm, &RB, TFX_V_INT, "a port"));
      VM_TRY(need(vm, &RC, TFX_V_STR, "a format"));
      VM_HOST(map_format, (int)TFX_INS_DIR(ins, 0), RB.u.i, RC.u.s, RC.n);
      VM_NEXT();
    VM_CASE(MAP_PORT)
      VM_TRY(need(vm, &RC, TFX_V_INT, "a port index"));
      VM_HOST(map_port, (int)TFX_INS_DIR(ins, 0), K[TFX_INS_KS(ins, 1)].u.s, RC.u.i);
      VM_NEXT();
    VM_CASE(MAP_OPTIONAL)
      VM_TRY(need(vm, &RB, TFX_V_INT, "a port index"));
      VM_TRY(need(vm, &RC, TFX_V_BOOL, "an optional-input condition"));
      VM_HOST(map_optional, K[TFX_INS_KS(ins, 0)].u.s, RB.u.i, (int)RC.u.i);
      VM_NEXT();
    VM_CASE(MAP_DYNAMIC) {
      int64_t n;
      if (RC.tag == TFX_V_LIST) n = RC.n;
      else if (RC.tag == TFX_V_NONE) n = 0;
      else {
        VM_TRY(need(vm, &RC, TFX_V_INT, "a dynamic port count"));
        n = RC.u.i;
      }
      VM_HOST(map_dynamic, (int)TFX_INS_DIR(ins, 0), K[TFX_INS_KS(ins, 1)].u.s, n);
      VM_NEXT();
    }
    VM_CASE(MAP_DELETE)
      VM_TRY(need(vm, &RA, TFX_V_INT, "an input index"));
      VM_HOST(map_delete_input, RA.u.i);
      VM_NEXT();

    /* ---- dataflow rewrites ---- */
    VM_CASE(DF_CHECK)
      if (RB.tag == TFX_V_BOOL && RB.u.i) VM_NEXT();
      feature_failed(vm, TFX_INS_FEAT(ins, 0), ipc, tfx_v_bool(1), RC);
      pc = TFX_INS_TARGET(ins, 3);
      VM_NEXT();
    VM_CASE(DF_IN)
      VM_TRY(need(vm, &RA, TFX_V_NODE, "a matched node"));
      VM_TRY(need(vm, &RB, TFX_V_INT, "an input number"));
      VM_HOST(flow_input, RA.u.id, RB.u.i);
      VM_NEXT();
    VM_CASE(DF_OUT)
      VM_TRY(need(vm, &RA, TFX_V_NODE, "a matched node"));
      VM_TRY(need(vm, &RB, TFX_V_INT, "a port"));
      VM_TRY(need(vm, &RD, TFX_V_INT, "a port"));
      if (RC.tag == TFX_V_STR) {
        VM_HOST(flow_out, RA.u.id, RB.u.i, RC.u.s, RC.n, TFX_NO_ID, RD.u.i);
      } else {
        VM_TRY(need(vm, &RC, TFX_V_NODE, "a new node name or a matched node"));
        VM_HOST(flow_out, RA.u.id, RB.u.i, NULL, 0, RC.u.id, RD.u.i);
      }
      VM_NEXT();
    VM_CASE(DF_DEL) {
      const uint32_t *ids;
      size_t n;
      VM_TRY(id_array(vm, &RA, TFX_V_NODE, &ids, &n));
      VM_HOST(flow_remove, ids, n);
      VM_NEXT();
    }
    VM_DEFAULT
  }
  /* Not reached: every case ends in VM_NEXT or a goto, and the verifier admits only known
   * opcodes. */
  tfx_vm_err(vm, TFX_VMR_RUNTIME, "internal error: bad opcode");
  goto err_runtime;

sc_failed:
  if (vm->flags & TFX_VM_EXPLAIN_ALL) VM_NEXT();
  res->matched = 0;
  goto done;

err_type:
  report(vm, ipc, vm->errmsg, d);
  rc = tfx_vm_status(TFX_VMR_TYPE);
  goto done;
err_runtime:
  report(vm, ipc, vm->errmsg, d);
  rc = tfx_vm_status(TFX_VMR_RUNTIME);
  goto done;
err_nomem:
  report(vm, ipc, vm->errmsg[0] ? vm->errmsg : "out of memory", d);
  rc = tfx_vm_status(TFX_VMR_NOMEM);
  goto done;
err_heap: /* the rule's heap budget, not the process's memory */
  report(vm, ipc, vm->errmsg, d);
  rc = tfx_vm_status(TFX_VMR_HEAP);
  goto done;
err_budget: {
  char msg[160];
  snprintf(msg, sizeof msg, "step budget of %llu exceeded (raise the vm-steps limit with --limit "
           "vm-steps=N or --vm-budget N)", (unsigned long long)vm->max_steps);
  report(vm, ipc, msg, d);
  rc = tfx_vm_status(TFX_VMR_BUDGET);
  goto done;
}
err_nohost: {
  char msg[96];
  snprintf(msg, sizeof msg, "%s is not supported by this host", tfx_vm_ops[TFX_INS_OP(ins)].name);
  report(vm, ipc, msg, d);
  rc = tfx_vm_status(TFX_VMR_RUNTIME);
  goto done;
}
err_host: {
  if (host_rc == TFX_E_NOMEM) { /* the host reported its allocation failure (host.h) */
    rc = TFX_E_NOMEM;
    goto done;
  }
  char msg[96];
  snprintf(msg, sizeof msg, "%s failed", tfx_vm_ops[TFX_INS_OP(ins)].name);
  report(vm, ipc, msg, d);
  rc = tfx_vm_status(TFX_VMR_RUNTIME);
  goto done;
}
done:
  if (rc == TFX_OK && vm->fails_oom) { /* a failure list cut short would mislead explain */
    report(vm, ipc, "out of memory (recording failed tests)", d);
    rc = tfx_vm_status(TFX_VMR_NOMEM);
  }
  res->fails = vm->fails;
  res->n_fails = vm->n_fails;
  res->n_failed = vm->n_failed;
  res->steps = vm->steps;
  return rc;
}

/* Resets the per-run state; r0 = first. */
static void run_start(tfx_vm *vm, tfx_value first) {
  tfx_vm_heap_reset(vm);
  vm->steps = 0;
  vm->n_fails = vm->n_failed = 0;
  vm->fails_oom = 0;
  vm->heap_rc = TFX_VMR_OK;
  vm->errmsg[0] = 0;
  vm->regs[0] = first;
}

static tfx_status bad_call(tfx_diag *d, const char *what) {
  tfx_error(d, NULL, 0, 0, "internal error: %s", what);
  return TFX_E_FAIL;
}

tfx_status tfx_vm_run_scope(tfx_vm *vm, uint32_t prog, uint32_t scope, tfx_vm_result *res,
                            tfx_diag *d) {
  if (!vm->linked || !vm->tree || prog >= vm->pack->n_progs ||
      vm->pack->progs[prog].kind != TFX_PK_SCOPE || scope >= vm->tree->n_scopes)
    return bad_call(d, "tfx_vm_run_scope: unlinked VM, bad program or scope");
  vm->cur_scope = scope;
  vm->cur_node = TFX_NO_ID;
  run_start(vm, tfx_v_scope(scope));
  return run(vm, prog, res, d);
}

tfx_status tfx_vm_run_select(tfx_vm *vm, uint32_t prog, tfx_vm_result *res, tfx_diag *d) {
  if (!vm->linked || prog >= vm->pack->n_progs || vm->pack->progs[prog].kind != TFX_PK_SELECT)
    return bad_call(d, "tfx_vm_run_select: unlinked VM or bad program");
  vm->cur_scope = vm->cur_node = TFX_NO_ID;
  run_start(vm, tfx_v_none());
  return run(vm, prog, res, d);
}

tfx_status tfx_vm_run_map(tfx_vm *vm, uint32_t prog, uint32_t node, tfx_vm_result *res,
                          tfx_diag *d) {
  if (!vm->linked || !vm->graph || prog >= vm->pack->n_progs ||
      vm->pack->progs[prog].kind != TFX_PK_MAP || node >= vm->graph->n_nodes)
    return bad_call(d, "tfx_vm_run_map: unlinked VM, bad program or node");
  vm->cur_scope = TFX_NO_ID;
  vm->cur_node = node;
  run_start(vm, tfx_v_node(node));
  return run(vm, prog, res, d);
}
