/* VM internals shared by the interpreter (vm.c) and its library (lib.c): the VM struct, the
 * per-run heap and the error codes that route to the interpreter's shared error labels.
 * Stage: vm (private; nothing outside src/vm includes this). */
#ifndef TFX_VM_VM_INT_H
#define TFX_VM_VM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "vm/vm.h"

/* Result codes of library helpers; the interpreter jumps to the matching error label. The
 * message is in vm->errmsg. They stay inside src/vm: a run's result leaves the VM as a
 * tfx_status, mapped by tfx_vm_status (vm.c), the one place that converts them. */
enum {
  TFX_VMR_OK = 0,
  TFX_VMR_TYPE,    /* run-time type error */
  TFX_VMR_RUNTIME, /* other run-time error (division by zero, index, conversion) */
  TFX_VMR_NOMEM,   /* an allocation failed: out of memory (TFX_E_NOMEM) */
  TFX_VMR_BUDGET,  /* the step budget is exceeded (a limit: TFX_E_FAIL) */
  TFX_VMR_HEAP     /* the per-run heap budget is exceeded, or a list too long for any heap (a
                      limit of the rule's run: TFX_E_FAIL, not out of memory) */
};

typedef struct tfx_vm_chunk tfx_vm_chunk;
struct tfx_vm_chunk {
  tfx_vm_chunk *next;
  size_t cap, used;
  max_align_t data[];
};

struct tfx_vm {
  const tfx_pack *pack;
  /* link */
  const tfx_graph *graph;
  const tfx_intern *ops;
  const tfx_scope_tree *tree;
  tfx_intern *subtypes;
  uint32_t *const_op;     /* per constant: linked op id (strings), else TFX_NO_ID */
  uint32_t *const_st;     /* per constant: linked sub_type id, else TFX_NO_ID */
  uint32_t retval_op;     /* op id of "_Retval" or TFX_NO_ID */
  uint32_t const_op_id;   /* op id of "Const" or TFX_NO_ID (no node of the graph is one) */
  int linked;
  /* settings */
  const tfx_vm_host *host;
  void *host_ctx;
  uint64_t max_steps;
  size_t max_mem;
  unsigned flags;
  tfx_vm_trace_fn trace;
  void *trace_ctx;
  tfx_strbuf trace_buf;
  /* run state */
  tfx_vm_chunk *chunks;   /* heap chunks, first = oldest */
  tfx_vm_chunk *cur;      /* chunk being filled */
  size_t mem_used;        /* bytes handed out this run */
  uint64_t steps;
  uint32_t cur_scope, cur_node;
  tfx_vm_failure *fails;  /* grows (doubling from TFX_VM_MAX_FAILS); kept across runs */
  uint32_t cap_fails;
  uint32_t n_fails, n_failed;
  int fails_oom;          /* this run could not record a failure: it fails (out of memory) */
  int heap_rc;            /* why the last tfx_vm_alloc failed: TFX_VMR_NOMEM or TFX_VMR_HEAP */
  char errmsg[256];
  tfx_value regs[TFX_VM_MAX_REGS];
};

/* Sets vm->errmsg and returns code. */
int tfx_vm_err(tfx_vm *vm, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* n bytes (16-aligned) from the per-run heap, or NULL with errmsg and vm->heap_rc set: the
 * heap budget (TFX_VMR_HEAP) or out of memory (TFX_VMR_NOMEM); callers return
 * tfx_vm_heap_fail(vm). */
void *tfx_vm_alloc(tfx_vm *vm, size_t n);
/* The code to return for a failed tfx_vm_alloc (TFX_VMR_HEAP or TFX_VMR_NOMEM; never OK). */
static inline int tfx_vm_heap_fail(const tfx_vm *vm) {
  return vm->heap_rc != TFX_VMR_OK ? vm->heap_rc : TFX_VMR_NOMEM;
}
/* Rewinds the heap (start of a run). */
void tfx_vm_heap_reset(tfx_vm *vm);
/* Frees the heap chunks. */
void tfx_vm_heap_free(tfx_vm *vm);
/* Adds n to the step count; TFX_VMR_BUDGET when the budget is exceeded. */
int tfx_vm_charge(tfx_vm *vm, uint64_t n);
/* A heap copy of n bytes as a string value (NUL-terminated). */
int tfx_vm_make_str(tfx_vm *vm, const char *s, size_t n, tfx_value *out);

/* ADD..MOD, NEG (b unused) and LT..GE on values; result into *out. */
int tfx_vm_arith(tfx_vm *vm, tfx_opcode op, const tfx_value *a, const tfx_value *b, tfx_value *out);
int tfx_vm_compare(tfx_vm *vm, tfx_opcode op, const tfx_value *a, const tfx_value *b, tfx_value *out);
/* CONTAINS / STARTS / ENDS. */
int tfx_vm_strtest(tfx_vm *vm, tfx_opcode op, const tfx_value *a, const tfx_value *b, tfx_value *out);
/* INDEX, SLICE (c, d bounds), PERM. */
int tfx_vm_index(tfx_vm *vm, const tfx_value *x, const tfx_value *i, tfx_value *out);
int tfx_vm_slice(tfx_vm *vm, const tfx_value *x, const tfx_value *lo, const tfx_value *hi, tfx_value *out);
int tfx_vm_perm(tfx_vm *vm, const tfx_value *x, const tfx_value *idx, tfx_value *out);
/* Property `prop` of obj. */
int tfx_vm_prop(tfx_vm *vm, uint32_t prop, const tfx_value *obj, tfx_value *out);
/* Attribute `name` of node value obj (none if missing or obj is none). */
int tfx_vm_attr(tfx_vm *vm, const tfx_value *obj, const char *name, tfx_value *out);
/* Builtin `id` applied to argc arguments. */
int tfx_vm_builtin(tfx_vm *vm, uint32_t id, const tfx_value *args, uint32_t argc, tfx_value *out);
/* SC_ATTR walk (docs/ASCEND.md §2.2) over the direct nodes of scope with op id op: 1 match, 0 fail;
 * *found gets the last attribute value compared (none if missing / no node). */
int tfx_vm_attr_feature(tfx_vm *vm, uint32_t scope, uint32_t op, const char *name,
                        const tfx_value *want, tfx_value *found, int *matched);
/* Appends v to b (strings quoted with escapes when quote); scopes/nodes by name when vm is
 * given and linked. */
void tfx_vm_value_text(tfx_strbuf *b, const tfx_vm *vm, const tfx_value *v, int quote);
/* Builds a list of node or scope values from ids. */
int tfx_vm_id_list(tfx_vm *vm, int tag, const uint32_t *ids, uint32_t n, tfx_value *out);

#endif
