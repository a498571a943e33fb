/* Host interface: the effects and queries a VM run delegates to the engine that uses it.
 * Stage: vm. The VM knows nothing about fusion results, op maps or GE IR; the scope-fusion
 * pass and the op-mapping pass each fill a tfx_vm_host with callbacks and a context pointer.
 *
 * Contract for every callback:
 *  - `ctx` is the pointer given to tfx_vm_set_host.
 *  - Strings are (pointer, length) and also NUL-terminated; values, strings and id arrays
 *    are BORROWED and valid only during the call (they live in the per-run heap or the
 *    pack): copy what you keep.
 *  - Return 0 to continue. Nonzero aborts the run with "rule 'R': <OPCODE> failed" at the
 *    instruction's source line (the host may add its own, more precise diagnostic first),
 *    status TFX_E_FAIL. A host that ran out of memory reports it and returns TFX_E_NOMEM
 *    (util/status.h): the run then ends with that status and no message of the VM's.
 *  - A NULL callback means "not supported by this host": executing the opcode is a run-time
 *    error naming the opcode (so a map program run by the fusion engine fails loudly).
 * Port indexes are int64 as computed by the program; `to` in result_map is -1 for `none`
 * (Ascend's kFusionDisableIndex: the edge is dropped). dir is 0 for inputs, 1 for outputs. */
#ifndef TFX_VM_HOST_H
#define TFX_VM_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "vm/value.h"

typedef struct tfx_vm_host {
  /* ---- fusion results (selection programs; FR_* opcodes) ---- */
  int (*result_begin)(void *ctx);                                        /* FR_BEGIN */
  int (*result_end)(void *ctx);                                          /* FR_END */
  int (*result_scopes)(void *ctx, const uint32_t *scopes, size_t n);     /* FR_SCOPES */
  int (*result_name)(void *ctx, const char *s, size_t n);                /* FR_NAME */
  int (*result_type)(void *ctx, const char *s, size_t n);                /* FR_TYPE */
  int (*result_description)(void *ctx, const char *s, size_t n);         /* FR_DESC */
  int (*result_map)(void *ctx, int dir, const char *key, size_t klen, int64_t from,
                    int64_t to);                                         /* FR_INPUT/OUTPUT */
  int (*result_absorb)(void *ctx, const uint32_t *nodes, size_t n);      /* FR_ABSORB */
  int (*result_attr)(void *ctx, const char *name, const tfx_value *v);   /* FR_ATTR */
  int (*result_invalid)(void *ctx, const char *reason, size_t n);        /* FR_INVALID */

  /* ---- inner nodes (selection and map programs; NODE_* opcodes) ---- */
  int (*node_new)(void *ctx, const char *name, size_t nlen, const char *type,
                  size_t tlen);                                          /* NODE_NEW */
  /* src NULL: boundary input `in port`; else output `port` of inner node `src`. */
  int (*node_input)(void *ctx, const char *src, size_t slen, int64_t port); /* NODE_IN */
  int (*node_const)(void *ctx, const tfx_value *v);                      /* NODE_CONST */
  int (*node_attr)(void *ctx, const char *name, const tfx_value *v);     /* NODE_ATTR */
  int (*node_format)(void *ctx, int dir, int64_t port, const char *fmt,
                     size_t n);                                          /* NODE_FORMAT */
  int (*node_out)(void *ctx, int64_t index, const char *node, size_t nlen,
                  int64_t port);                                         /* NODE_OUT */

  /* ---- op maps (map programs; MAP_* opcodes) ---- */
  int (*map_type)(void *ctx, const char *s, size_t n);                   /* MAP_TYPE */
  int (*map_auto)(void *ctx);                                            /* MAP_AUTO */
  int (*map_attr)(void *ctx, const char *name, const tfx_value *v);      /* MAP_ATTR */
  int (*map_drop)(void *ctx, const char *name);                          /* MAP_DROP */
  int (*map_format)(void *ctx, int dir, int64_t port, const char *fmt, size_t n); /* MAP_FORMAT */
  int (*map_port)(void *ctx, int dir, const char *name, int64_t index);  /* MAP_PORT */
  int (*map_optional)(void *ctx, const char *name, int64_t index, int connected); /* MAP_OPTIONAL */
  int (*map_dynamic)(void *ctx, int dir, const char *name, int64_t count); /* MAP_DYNAMIC */
  int (*map_delete_input)(void *ctx, int64_t index);                     /* MAP_DELETE */

  /* ---- queries (map builtins) ---- */
  /* Format string of data input `port` of `node` ("NHWC", ...), or NULL for none. The string
   * must stay valid until the run ends. */
  const char *(*format_of)(void *ctx, uint32_t node, int64_t port);
  /* DataType (proto numbering) of data input `port` of `node`, or -1 for none. */
  int64_t (*dtype_of)(void *ctx, uint32_t node, int64_t port);

  /* ---- fusion results, added later (kept last so positional initializers stay valid) ---- */
  /* One index-map statement's key, before its entries (FR_INPUT/OUTPUT): flags bit 0 = the
   * key is optional (`optional input KEY {...}`); flags 2 | N << 2 (key ""): `absent input N`,
   * fused port N is deliberately unfed. pc is the FR_KEY instruction (its source site:
   * tfx_pack_loc_at). */
  int (*result_key)(void *ctx, int dir, const char *key, size_t klen, int flags,
                    uint32_t pc);                                        /* FR_KEY */

  /* ---- dataflow rewrites (map programs of `rewrite` rules; DF_* opcodes) ---- */
  /* Next input of the newest new node: the value data input `slot` of matched node `node` reads. */
  int (*flow_input)(void *ctx, uint32_t node, int64_t slot);             /* DF_IN */
  /* Output `port` of matched node `node` is read, after the rewrite, from output `tport` of the
   * new node named `tname` (tname != NULL), or from the value data input `tport` of matched
   * node `tnode` reads (tname == NULL). */
  int (*flow_out)(void *ctx, uint32_t node, int64_t port, const char *tname, size_t tlen,
                  uint32_t tnode, int64_t tport);                        /* DF_OUT */
  int (*flow_remove)(void *ctx, const uint32_t *nodes, size_t n);        /* DF_DEL */

  /* ---- queries, added later ---- */
  /* Optional speed-up of the `scopes(...)` builtin: *pos gets n tree->dfs positions, in
   * ascending order without repeats, that include the position of every scope of the linked
   * tree whose sub_type is set now (others may be listed too: each is tested). The list must
   * stay valid until the builtin returns. Return 0, or nonzero to have the builtin sweep every
   * scope instead. NULL: the builtin sweeps every scope. Never observable in a run's result:
   * the builtin charges the same steps and heap either way. */
  int (*subtyped)(void *ctx, const uint32_t **pos, uint32_t *n);
} tfx_vm_host;

#endif
