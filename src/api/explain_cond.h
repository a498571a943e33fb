/* Why a `where` or `require` condition rejected a scope, from the VM trace (explain_cond.c).
 * Stage: api (explain.c). */
#ifndef TFX_API_EXPLAIN_COND_H
#define TFX_API_EXPLAIN_COND_H

#include <stdint.h>

#include "util/strbuf.h"
#include "vm/pack.h"

typedef struct tfx_xcond_loop {
  uint32_t pc;    /* the NEXT instruction of a loop */
  uint32_t var;   /* the register it binds */
  int state;      /* 1 value not seen yet, 2 bound to the explained scope, 3 to another */
} tfx_xcond_loop;

typedef struct tfx_xcond_rule {
  int have_where, have_req;
  uint32_t where_pc, where_cmp_pc, req_pc, req_cmp_pc;
  char *where_vals, *req_vals;
} tfx_xcond_rule;

typedef struct tfx_xcond {
  const tfx_pack *pack;
  uint32_t scope_id;        /* the explained scope in the tree of the graph being run */
  int active;               /* the graph being run is the explained one (set by explain) */
  tfx_xcond_rule *per_rule; /* per pack rule, allocated on first use */
  uint32_t n_rules;
  tfx_xcond_loop *loops;
  uint32_t n_loops, cap_loops;
  char *last_vals;          /* values read by the last non-jump instruction */
  uint32_t last_pc;
  int oom;
} tfx_xcond;

void tfx_xcond_init(tfx_xcond *x, const tfx_pack *p, uint32_t scope_id);
void tfx_xcond_free(tfx_xcond *x);
/* Feeds one trace line (a tfx_vm_trace_fn sink). */
void tfx_xcond_line(tfx_xcond *x, const char *line);
/* Appends the lines for pass `rule`: the failed `require`, and the `where` that skipped the
 * scope when where_applies (the scope matched but is in no result of the pass). */
void tfx_xcond_print(const tfx_xcond *x, uint32_t rule, int where_applies, tfx_strbuf *b);

#endif
