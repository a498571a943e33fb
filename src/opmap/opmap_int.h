/* Internals of the OP_MAPPING stage shared by its files: the run state, the per-node effect
 * builder the VM host callbacks fill (host.c), and the finishing step that turns recorded
 * effects into a tfx_mapped_op (bind.c). Not a public header.
 * Stage: opmap. Every string and array a finished tfx_mapped_op points to lives in the
 * tfx_opmap arena; the builder's statement vectors are malloc'ed scratch, reused node after
 * node (their strings are already copied into the arena when recorded). */
#ifndef TFX_OPMAP_OPMAP_INT_H
#define TFX_OPMAP_OPMAP_INT_H

#include <stdint.h>

#include "opmap/opmap.h"
#include "util/hash.h"
#include "vm/vm.h"

/* Limits on what one map run may ask for (a rule bug or a hostile pack, never a real op). */
#define TFX_OPMAP_MAX_PORT ((1 << 20) - 1)    /* a TF input / output index (statements, and
                                                 the highest output port a consumer reads) */
#define TFX_OPMAP_MAX_DYN ((int64_t)1 << 20)  /* one dynamic port's count */

/* One `input NAME = N` / `output NAME = N` / `optional input NAME = N [when C]` statement. */
typedef struct om_port_stmt {
  const char *name;     /* arena copy */
  int64_t index;
  uint8_t dir;          /* 0 input, 1 output */
  uint8_t optional;     /* MAP_OPTIONAL */
  uint8_t connected;    /* MAP_OPTIONAL: the condition held (MAP_PORT: 1) */
} om_port_stmt;

typedef struct om_dyn_stmt {   /* `dynamic input|output NAME count E` */
  const char *name;     /* arena copy */
  uint8_t dir;
  int64_t count;
} om_dyn_stmt;

typedef struct om_fmt_stmt {   /* `format input|output N = "F"` */
  uint8_t dir;
  int64_t port;         /* TF input / output index */
  const char *fmt;      /* arena copy */
} om_fmt_stmt;

typedef struct om_attr_stmt {  /* `attr NAME = E` (v deep-copied into the arena) */
  const char *name;
  tfx_value v;
  uint8_t dropped;      /* a later `drop NAME` removed it */
  uint8_t used;         /* bind.c: already placed over an auto attr */
} om_attr_stmt;

typedef struct om_inner_b {    /* capacities of om_builder.inner[k]'s arena vectors */
  uint32_t cap_in, cap_attrs, cap_in_fmt, cap_out_fmt;
} om_inner_b;

/* Effects of one map program run on one node. */
typedef struct om_builder {
  const char *type;     /* MAP_TYPE (arena copy), NULL if none ran */
  const tfx_cann_op *proto; /* MAP_TYPE: type's prototype, NULL if none */
  int auto_;            /* MAP_AUTO ran */
  om_attr_stmt *attrs;  uint32_t n_attrs, cap_attrs;
  const char **drops;   uint32_t n_drops, cap_drops;
  om_port_stmt *ports;  uint32_t n_ports, cap_ports;
  om_dyn_stmt *dyns;    uint32_t n_dyns, cap_dyns;
  om_fmt_stmt *fmts;    uint32_t n_fmts, cap_fmts;
  int64_t *dels;        uint32_t n_dels, cap_dels;   /* MAP_DELETE indexes as given */
  /* graph maps: arena vectors (fresh for every node) */
  tfx_map_inner *inner; uint32_t n_inner, cap_inner;
  om_inner_b *ib;       uint32_t n_ib, cap_ib;        /* malloc'ed scratch, parallel to inner */
  tfx_map_graph_out *outs; uint32_t n_outs, cap_outs;
} om_builder;

/* Port arrays already handed out (tfx_mapped_op.in / out), found by content: nodes of one type
 * bound the same way share one array (lowering only reads them). Open addressing; slot =
 * index + 1 into v, 0 empty. */
typedef struct om_port_arr {
  const tfx_map_port *p;
  uint32_t n;
  uint32_t hash;
} om_port_arr;

typedef struct om_port_set {
  om_port_arr *v; uint32_t n, cap;
  uint32_t *slots; uint32_t cap_slots;  /* power of two (or 0) */
} om_port_set;

typedef struct om_run {
  tfx_opmap *om;
  tfx_arena *A;               /* &om->arena */
  const tfx_module *m;
  const tfx_pack *p;
  const tfx_cann_table *protos;
  const tfx_opmap_opts *o;
  tfx_diag *d;
  int oom;
  tfx_vm *vm;
  /* candidate index: per op id of m->ops, a run of rule indexes in cand[] */
  uint32_t *cand;             /* rule indexes, grouped by op id, each group ordered */
  uint32_t *cand_first, *cand_n;  /* per op id */
  const char **hints;         /* per op id: the unsupported hint, computed once (lazy) */
  /* per pack rule: the prototype its MAP_TYPE found last (h_map_type checks the name) */
  const tfx_cann_op **type_cache; uint32_t *type_cache_len;
  uint8_t *hint_done;         /* per op id */
  /* the node being mapped */
  const tfx_graph *g;
  uint32_t node;
  uint32_t rule;              /* the rule whose program runs */
  int graph_rule;             /* that rule is a graph map */
  om_builder b;
  /* scratch for binding (malloc'ed, reused) */
  uint8_t *mark;   uint32_t cap_mark;
  uint32_t *pool;  uint32_t cap_pool;
  tfx_map_port *ports; uint32_t cap_ports;
  tfx_map_dyn *dyn; uint32_t cap_dyn;
  uint64_t *reserved; uint32_t cap_reserved;
  char msg[512];              /* cause message being built */
  /* sharing (opmap.c): finished port arrays by content, and the names the builder and the
   * binding make, by content; both malloc'ed tables of arena pointers, freed after the run */
  om_port_set port_set;
  /* per op id of m->ops: the input / output arrays its last node got (tried before the set:
   * nodes of one type are usually bound alike) */
  const tfx_map_port **last_ports;  /* 2 per op id: [2 * id] inputs, [2 * id + 1] outputs */
  uint32_t *last_n;
  tfx_hmap names;             /* string -> index in name_v */
  const char **name_v; uint32_t n_name_v, cap_name_v;
} om_run;

/* ---- opmap.c ---- */
int tfx_om_oom(om_run *r);
const char *tfx_om_dup(om_run *r, const char *s, size_t n);
/* As tfx_om_dup, but equal strings share one copy (for names repeated node after node: port,
 * attribute, dynamic-port names, formats; never for text a caller writes into). */
const char *tfx_om_name(om_run *r, const char *s, size_t n);
/* The arena array holding ports[0..n) (formats set), shared with earlier nodes when they have
 * the same content; NULL on out of memory (reported). n > 0. */
tfx_map_port *tfx_om_share_ports(om_run *r, const tfx_map_port *ports, uint32_t n);
/* As tfx_om_share_ports for the inputs (dir 0) or outputs (dir 1) of r->node, trying first
 * the array the last node of the same op type got. */
tfx_map_port *tfx_om_node_ports(om_run *r, int dir, const tfx_map_port *ports, uint32_t n);
/* Grows a malloc'ed vector by one slot (element size el). */
int tfx_om_mgrow(om_run *r, void **v, uint32_t n, uint32_t *cap, size_t el);
/* Grows an arena vector by one slot. */
int tfx_om_agrow(om_run *r, void **v, uint32_t n, uint32_t *cap, size_t el);
#define OM_MGROW(r, v, n, cap) tfx_om_mgrow((r), (void **)&(v), (n), &(cap), sizeof *(v))
#define OM_AGROW(r, v, n, cap) tfx_om_agrow((r), (void **)&(v), (n), &(cap), sizeof *(v))
/* Reports a rule-level error at the rule's definition site, naming rule and node. */
void tfx_om_rule_error(om_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Name of rule i ("?" when missing). */
const char *tfx_om_rule_name(const tfx_pack *p, uint32_t i);

/* ---- host.c ---- */
extern const tfx_vm_host tfx_om_host;
/* Clears the builder for the next run (keeps the scratch vectors' memory). */
void tfx_om_builder_reset(om_builder *b);
void tfx_om_builder_free(om_builder *b);
/* The format AutoMapping gives the node's inputs (dir 0) or outputs (dir 1): data_format,
 * else src_format / dst_format, when one of NCHW NHWC NDHWC NCDHW ND (a ":sub" suffix is
 * ignored); else "ND". A static string. */
const char *tfx_om_auto_format(const tfx_node *nd, int dir);
/* Both directions at once (one walk over the node's attrs): *in = tfx_om_auto_format(nd, 0),
 * *out = tfx_om_auto_format(nd, 1). */
void tfx_om_auto_formats(const tfx_node *nd, const char **in, const char **out);
/* Both at once, and the node's `_fusion_input_ports` attr (NULL if none) in the same walk;
 * in, out or fused_ports may be NULL when not wanted. */
void tfx_om_scan_attrs(const tfx_node *nd, const char **in, const char **out,
                       const Tensorflow__AttrValue **fused_ports);
/* The TF attr called name of nd, or NULL. */
const Tensorflow__AttrValue *tfx_om_node_attr(const tfx_node *nd, const char *name);

/* ---- bind.c ---- */
/* Turns the builder's effects for r->node into *op (how RULE / GRAPH / AUTO / PASSTHROUGH
 * already set, type and proto too). Sets cause/message when the node does not fit its
 * prototype. Returns 0, or -1 on out of memory (reported). */
int tfx_om_finish(om_run *r, tfx_mapped_op *op);

/* ---- check.c ---- */
/* Checks a finished RULE / AUTO op against its prototype: an undeclared CANN type, attribute
 * kinds, required attributes left unset (sets cause/message). Returns 0 or -1 (out of memory). */
int tfx_om_check(om_run *r, tfx_mapped_op *op);

#endif
