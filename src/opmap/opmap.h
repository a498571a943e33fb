/* The OP_MAPPING stage: decides, for every node of every graph of the module (after scope
 * fusion), which CANN op it becomes, and records the decision as data for LOWERING.
 * Stage: opmap (after fusion, before ge lowering). Input: the indexed module, the compiled
 * rule pack (op maps), the CANN prototype table. Output: a tfx_opmap (owns its arena).
 *
 * Choice per node (docs/ASCEND.md §6.1, §6.5):
 *  1. the op maps whose `from` lists the node's TF type, ordered by priority (highest first),
 *     then registration order (pack rule order); the first whose program returns true (its
 *     `when` guards hold) maps the node (how = TFX_MAP_RULE, or TFX_MAP_GRAPH for `-> graph`);
 *  2. else, a CANN prototype named like the TF type: auto-mapped under that name with
 *     Ascend's AutoMapping (how = TFX_MAP_AUTO; the report says so);
 *  3. else unsupported (how = TFX_MAP_UNSUPPORTED, cause code 1), or with
 *     --passthrough-unknown kept under its TF type (how = TFX_MAP_PASSTHROUGH).
 * Port binding for RULE/AUTO (no explicit `input NAME = N`): the prototype's inputs in
 * declaration order take the TF data inputs in order (after deleted inputs are removed);
 * a dynamic port takes `count` consecutive inputs (named <port><k>, k = 0..count-1, as GE
 * names dynamic ports); an optional port not fed is present with tf_port -1. Outputs the same
 * way. A node whose data-input count does not fit the prototype gets cause code 2 with an
 * E19014-style message ("input number of tensorflow[N] should be equal to factory size[M]").
 * Formats: `format` statements win; else with `auto`, inputs take src_format or data_format and
 * outputs dst_format or data_format (docs/ASCEND.md §6.3) when it is one of NCHW NHWC NDHWC
 * NCDHW ND; else "ND".
 * Attributes: `auto` copies every TF attr (except input/output_tensor_desc and names starting
 * with '_') as a tfx_map_attr with tf set; `attr` statements add or override (v set); `drop`
 * removes. Missing prototype attrs with defaults are NOT added here (lowering does that).
 *
 * Details (src/opmap/bind.c has the full binding rules):
 *  - `format input|output N`: N is the TF data input / output index; the CANN port bound to
 *    it gets the format (a port bound to nothing cannot be forced). format_of(in N) in a rule
 *    is that forced format when a `format input N` ran before it, else the node's AutoMapping
 *    input format (data_format, else src_format; "ND"), whether or not the map says `auto`.
 *  - dtype_of(in N): the producer's output dtype from its attrs (a type list indexed by the
 *    output port: Tout, output_types, out_types, T; else out_type, output_type, DstT, dtype,
 *    T, Tout), or the function signature's type for a body argument; none when unknown.
 *  - `attr NAME = E` where E is none removes NAME (as `drop`); `drop` then `attr` sets it again.
 *  - a dynamic port without a `dynamic` statement (AUTO, or a rule that leaves it out) takes
 *    the TF inputs the later ports do not need (outputs: enough for the highest TF output a
 *    consumer reads); `delete input N` with a negative N counts from the end; an index the
 *    node lacks is ignored.
 *  - no prototype (RULE to a CANN type the table lacks, PASSTHROUGH): inputs are the kept TF
 *    data inputs in order, named by their `input`/`optional input` statement or "x<k>"
 *    (k = port position); outputs "y0".."y<n-1>" (or the `output` statement's name), n = the
 *    highest TF output port a consumer reads + 1, at least 1 unless the TF or CANN type is
 *    NoOp, ControlTrigger or _Retval. `dynamic` statements are then only recorded in dyn.
 *  - GRAPH: type is "graph", proto NULL, in/out/attrs empty; inner names and inner input
 *    sources are full GE names ("<tf node name>/<inner>"); inner attrs with v set; a graph
 *    map that names a missing inner node or TF input, repeats an out, or leaves a consumed
 *    TF output without `out` gets cause 2.
 *  - ownership: arrays, rule values and built names live in the tfx_opmap arena; TF attr
 *    names/values (tf), TF type names (type of PASSTHROUGH/UNSUPPORTED) and the graphs are
 *    borrowed from the module, prototype names from the CANN table: the result must not
 *    outlive m or protos. hint is shared by every unsupported node of one TF type; the in /
 *    out port arrays and the port, attribute and format names are shared by every node that
 *    has the same ones (one copy each): read-only for every user of the result.
 *  - after a failed run (a rule run-time error, out of memory) the result is partial: only
 *    free it. */
#ifndef TFX_OPMAP_OPMAP_H
#define TFX_OPMAP_OPMAP_H

#include <stdint.h>

#include "cann/cann.h"
#include "graph/graph.h"
#include "tensorflow/attr_value.pb-c.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/status.h"
#include "vm/pack.h"
#include "vm/value.h"

typedef enum {
  TFX_MAP_NONE = 0,       /* not decided (never left in a finished result) */
  TFX_MAP_RULE,           /* an op map rule */
  TFX_MAP_GRAPH,          /* an op map rule `-> graph`: see inner */
  TFX_MAP_AUTO,           /* no rule; CANN prototype of the same name (ATC's fallback) */
  TFX_MAP_PASSTHROUGH,    /* unsupported, kept under its TF type (--passthrough-unknown) */
  TFX_MAP_UNSUPPORTED     /* no rule, no prototype: conversion fails (cause 1) */
} tfx_map_how;

/* Precheck cause codes (docs/ASCEND.md §7.3). */
enum { TFX_CAUSE_OK = 0, TFX_CAUSE_TYPE_UNSUPPORTED = 1, TFX_CAUSE_PARAM_INVALID = 2,
       TFX_CAUSE_TYPE_AMBIGUOUS = 8, TFX_CAUSE_NAME_REPEATED = 9 };

typedef struct tfx_map_attr {
  const char *name;                 /* GE attribute name */
  const Tensorflow__AttrValue *tf;  /* TF attr (auto; borrowed from the NodeDef): converted by
                                       AutoMapping rules */
  tfx_value v;                      /* else the rule's value (deep copy, owned by the result) */
} tfx_map_attr;

typedef struct tfx_map_port {
  const char *name;     /* CANN port name; dynamic ports numbered ("x0", "x1", ...) */
  int32_t tf_port;      /* TF data input / output index; -1: an optional input not fed */
  const char *format;   /* final format of this port ("ND", "NHWC", "HWCN", ...), never NULL */
  uint8_t kind;         /* tfx_cann_port_kind of the prototype port (REQ when unknown) */
  const char *ir_name;  /* prototype port name ("x" for dynamic "x0") */
} tfx_map_port;

typedef struct tfx_map_dyn {   /* one dynamic port and its count (__dynamic_*_cnt attrs) */
  const char *name;
  uint8_t is_output;
  uint32_t count;
} tfx_map_dyn;

/* One input of an inner node of a graph map. */
typedef struct tfx_map_inner_in {
  const char *src;      /* inner node's full GE name, or NULL: boundary (TF data input `port`) */
  int32_t port;
  const tfx_value *cval;/* non-NULL: a constant (lowered as a Const node); src/port unused */
} tfx_map_inner_in;

typedef struct tfx_map_inner {
  const char *name;     /* full GE name: "<tf node name>/<inner name>" */
  const char *type;     /* CANN type */
  tfx_map_inner_in *in; uint32_t n_in;
  tfx_map_attr *attrs;  uint32_t n_attrs;   /* v set */
  tfx_map_port *in_fmt; uint32_t n_in_fmt;  /* formats forced by `format` (tf_port = port) */
  tfx_map_port *out_fmt; uint32_t n_out_fmt;
} tfx_map_inner;

typedef struct tfx_map_graph_out {   /* TF output `index` is inner node `node` output `port` */
  int32_t index;
  const char *node;     /* full GE name */
  int32_t port;
} tfx_map_graph_out;

/* One per node; pointers first, then the counts, so the struct has no padding holes (128
 * bytes instead of 144: 16 MB at 10^6 nodes). */
typedef struct tfx_mapped_op {
  const char *type;               /* CANN type (TF type for PASSTHROUGH/UNSUPPORTED) */
  const tfx_cann_op *proto;       /* its prototype, NULL if none */
  const char *message;            /* cause message, NULL when fine */
  const char *hint;               /* failures: "did you mean ..." / the rule that almost matched */
  tfx_map_attr *attrs;            /* n_attrs */
  tfx_map_port *in;               /* n_in: CANN input ports in prototype order */
  tfx_map_port *out;              /* n_out: CANN output ports */
  tfx_map_dyn *dyn;               /* n_dyn */
  int32_t *deleted;               /* n_deleted: TF data inputs dropped (become control edges) */
  tfx_map_inner *inner;           /* n_inner: GRAPH */
  tfx_map_graph_out *outs;        /* n_outs: GRAPH */
  uint32_t rule;                  /* pack rule index, TFX_PACK_NONE for AUTO/PASSTHROUGH/... */
  uint32_t n_attrs, n_in, n_out, n_dyn, n_deleted, n_inner, n_outs;
  uint8_t how;                    /* tfx_map_how */
  uint8_t cause;                  /* TFX_CAUSE_* (0 = fine) */
} tfx_mapped_op;

typedef struct tfx_mapped_graph {
  const tfx_graph *g;             /* borrowed from the module */
  tfx_mapped_op *ops;             /* one per node id */
} tfx_mapped_graph;

typedef struct tfx_opmap {
  tfx_arena arena;
  tfx_mapped_graph main;
  tfx_mapped_graph *funcs;  uint32_t n_funcs;   /* module function order */
  uint32_t n_ok, n_failed;  /* over every graph */
} tfx_opmap;

struct tfx_rules_protos; /* rules/load.h */
typedef struct tfx_opmap_opts {
  int passthrough_unknown;   /* --passthrough-unknown */
  uint64_t vm_budget;        /* steps per map run; 0 = VM default */
  void (*trace_fn)(void *user, const char *line);  /* --trace, NULL = off */
  void *trace_user;
  /* CANN types known to exist without a prototype (the stdlib's cann-ops-noir list), asked
   * only when a rule maps to a type no prototype declares: returns a prototype hook (NULL after
   * reporting into d). NULL: no such list (the passes give tfx_cann_stdlib_protos). */
  const struct tfx_rules_protos *(*known_types)(tfx_diag *d);
  /* Called for each node right after it is mapped and counted (n_ok / n_failed), while its
   * NodeDef is still in the cache: checks the caller makes on every mapped node (pass
   * op-mapping: what lowering cannot express) without a second walk over the graph. NULL:
   * none. */
  void (*after_node)(void *user, tfx_opmap *om, tfx_mapped_op *op, const tfx_node *nd);
  void *after_user;
} tfx_opmap_opts;

/* Maps every node of m. pack may have no op maps (then only AUTO / unsupported apply); protos
 * must not be NULL. Unsupported nodes are not errors here (the result records them); rule
 * run-time errors are (reported at the rule's location). Returns TFX_OK, TFX_E_FAIL (a rule
 * run-time error or limit) or TFX_E_NOMEM (reported). om needs no init; call tfx_opmap_free
 * afterwards whatever the result. */
TFX_MUST_CHECK tfx_status tfx_opmap_run(tfx_opmap *om, const tfx_module *m, const tfx_pack *pack,
                                        const tfx_cann_table *protos, const tfx_opmap_opts *o,
                                        tfx_diag *d);
void tfx_opmap_free(tfx_opmap *om);

/* "how" as a word ("rule", "graph", "auto", "passthrough", "unsupported"). */
const char *tfx_map_how_name(int how);

#endif
