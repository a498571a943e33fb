/* GE IR: lowering of a mapped TensorFlow module to a ge.proto.ModelDef, and its emitters.
 * Stage: ge (after opmap; the last stage before output). Schema: src/proto/ge/ge_ir.proto
 * (package ge.proto, wire-compatible with GE's own; docs/AIR.md).
 * Ownership: a tfx_ge_model owns its arena; the ModelDef and everything it points to live
 * there, except Const payloads taken from a TF tensor_content: those bytes are borrowed from
 * the TF model (or the checkpoint mapping), which must outlive the GE model. Output is deterministic: same inputs, same bytes. */
#ifndef TFX_GE_GE_H
#define TFX_GE_GE_H

#include <stddef.h>
#include <stdint.h>

#include "ge/ge_ir.pb-c.h"
#include "graph/graph.h"
#include "graph/prune.h"
#include "io/io.h"
#include "opmap/opmap.h"
#include "tensorflow/attr_value.pb-c.h"
#include "tensorflow/tensor.pb-c.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/status.h"
#include "util/strbuf.h"
#include "vm/value.h"

/* ---------------------------------------------------------------- data types (dtype.c) */

/* TF DataType (proto numbering, *_REF folded) -> GE proto DataType (TensorDescriptor.dtype),
 * with Ascend's collapses (docs/ASCEND.md §6.4: quantized -> plain ints, BFLOAT16_REF ->
 * FLOAT16); unknown -> GE__PROTO__DATA_TYPE__DT_UNDEFINED. */
int tfx_ge_dtype_from_tf(int tf_dtype);
/* GE proto DataType -> C++ ge::DataType (for `dt` attrs; docs/AIR.md §3.1); unknown -> 28 (UNDEFINED). */
int64_t tfx_ge_cpp_dtype(int ge_proto_dtype);
/* Bytes per element of a GE proto DataType, 0 when variable or unknown (string, resource...). */
size_t tfx_ge_dtype_size(int ge_proto_dtype);
/* C++ ge::Format number of a format name ("NCHW" -> 0, "NHWC" -> 1, "ND" -> 2, "HWCN" -> 16,
 * ...; docs/AIR.md §3.2), or -1 when unknown. */
int tfx_ge_format_num(const char *name);

/* ---------------------------------------------------------------- attributes (attr.c) */

/* Builds GE AttrDefs in arena A. All return NULL on out of memory or when the value cannot
 * be expressed (the caller reports). Every list gets its val_type (docs/AIR.md §6.3). */
Ge__Proto__AttrDef *tfx_ge_attr_from_tf(tfx_arena *A, const Tensorflow__AttrValue *v);
/* From a rule value; cann_type (tfx_cann_attr_type, or -1 when unknown) picks the GE form
 * when the value alone is ambiguous (an empty list, an int for a Float attr, ...). */
Ge__Proto__AttrDef *tfx_ge_attr_from_value(tfx_arena *A, const tfx_value *v, int cann_type);
Ge__Proto__AttrDef *tfx_ge_attr_int(tfx_arena *A, int64_t i);
Ge__Proto__AttrDef *tfx_ge_attr_str(tfx_arena *A, const char *s);
Ge__Proto__AttrDef *tfx_ge_attr_bool(tfx_arena *A, int b);
Ge__Proto__AttrDef *tfx_ge_attr_list_str(tfx_arena *A, const char *const *s, size_t n);
Ge__Proto__AttrDef *tfx_ge_attr_list_int(tfx_arena *A, const int64_t *i, size_t n);
/* A TensorDef from a TF TensorProto (tensor_content or typed *_val fields, splats expanded to
 * the full element count). tensor_content is borrowed, not copied: t must outlive the result,
 * whose data must not be written through. Returns NULL after reporting into d (node names the Const). */
Ge__Proto__TensorDef *tfx_ge_tensor_from_tf(tfx_arena *A, const Tensorflow__TensorProto *t,
                                            const char *node, tfx_diag *d);
/* Sorts every map field (attr of ModelDef, GraphDef, OpDef, TensorDescriptor, NamedAttrs,
 * nested in lists and tensors too) by key, bytewise. Lowering calls it last, so emitters
 * write maps in stored order and the output is deterministic. */
void tfx_ge_sort_maps(Ge__Proto__ModelDef *m);

/* ---------------------------------------------------------------- lowering (lower.c) */

typedef struct tfx_ge_lower_opts {
  const char *model_name;        /* ModelDef.name (the model file stem) */
  const char *input_format;      /* --input-format: layout of 4-D/5-D Data nodes; NULL = from
                                    the consumers' data_format, else ND */
  const tfx_prune_opts *prune;   /* --input-shape (Data shapes) and --out-nodes (NetOutput
                                    order); may be NULL */
  /* Streaming: write the .air bytes op by op as lowering goes (each op's input descriptors,
   * edges and port-name attrs live only until the op is written) instead of building the
   * whole ModelDef. The result is then tfx_ge_model.air, not .model: the bytes
   * tfx_ge_emit_air_pieces would give for the model, after the same checks. When the .air
   * would be larger than air_max, nothing is kept (streamed = 0, air_size = its size): the
   * caller lowers again without streaming (external weights, the 2 GiB error). */
  int stream_air;
  size_t air_max;
  /* Streaming: the .air's output path (NULL: none). When set, the op records go to a spill
   * file in its directory as they are made (ge/air_sink.c) instead of memory, and
   * tfx_ge_model.air reads them from there (tfx_wpiece.fd1); a failed write of it is
   * reported ("cannot write output", TFX_E_INPUT). */
  const char *air_path;
  /* Threads lowering may use besides its own (the meaning of the run's --jobs): 0 automatic
   * (2 when the process may run on more than one CPU), 1 none, 2 or more some. Today the one
   * use is the spill file's writer thread (air_path set; ge/air_sink.c), which moves its
   * write(2)s off the lowering thread; the output is the same bytes whatever the value.
   * Zeroed options: automatic. */
  int jobs;
  /* The main-graph node id of each prune->outs entry (TFX_NO_ID: not in the graph), looked up
   * before lowering; NULL: lowering looks them up by name (the index's name map, which a run
   * that keeps no report has freed by then: passes/context.h). */
  const uint32_t *out_ids;
} tfx_ge_lower_opts;

typedef struct tfx_ge_model {
  tfx_arena arena;
  Ge__Proto__ModelDef *model;    /* graph[0] = main graph, then subgraphs (flattened); NULL
                                    after streaming lowering */
  tfx_io_pieces air;             /* streaming lowering: the .air (when streamed) */
  int streamed;
  size_t air_size;               /* streaming lowering: the .air's size, also when over air_max */
} tfx_ge_model;

/* Lowers m (every node mapped in om: no UNSUPPORTED left) to GE IR. Returns TFX_OK,
 * TFX_E_NOMEM (out of memory) or TFX_E_FAIL (reported): the lowering's own codes
 * (TFX_GE_E_*, lower_int.h) end here. gm needs no init; call tfx_ge_model_free afterwards
 * whatever the result. */
TFX_MUST_CHECK tfx_status tfx_ge_lower(tfx_ge_model *gm, const tfx_module *m,
                                       const tfx_opmap *om, const tfx_cann_table *protos,
                                       const tfx_ge_lower_opts *o, tfx_diag *d);
void tfx_ge_model_free(tfx_ge_model *gm);

/* ---------------------------------------------------------------- external weights (external.c) */

/* The weight files of a model too large for one .air (docs/AIR.md §12.1). */
typedef struct tfx_ge_extfile {
  const char *path;     /* relative to the .air's directory (in the model's arena) */
  const uint8_t *data;  /* the weight bytes (in the model's arena, or borrowed from the TF model) */
  size_t len;
} tfx_ge_extfile;
typedef struct tfx_ge_external {
  tfx_ge_extfile *files; /* malloc'ed */
  size_t n;
} tfx_ge_external;

/* The default threshold: INT_MAX, the largest .air ATC reads. */
size_t tfx_ge_external_default(void);
/* 1 when op is a Const/Constant whose `value` holds data (*t = that TensorDef): the ops whose
 * weights go to external files. */
int tfx_ge_const_weight(const Ge__Proto__OpDef *op, Ge__Proto__TensorDef **t);
/* When gm's serialized size would be larger than threshold (0 = the default), moves every
 * Const weight to an external file entry: the TensorDef keeps its desc with empty data, the op
 * gets attrs `location` (the path in out) and `length`. out->n = 0 when nothing moved. Rules
 * in external.c. Returns 0 or an exit code (reported; out is empty). Free out with
 * tfx_ge_external_free (the paths and bytes stay in gm's arena). */
int tfx_ge_externalize(tfx_ge_model *gm, size_t threshold, tfx_ge_external *out, tfx_diag *d);
void tfx_ge_external_free(tfx_ge_external *x);

/* ---------------------------------------------------------------- emitters (emit.c) */

/* Binary ModelDef (the .air file). Map entries are written sorted by key. Refuses (error,
 * nothing appended) a serialized size of 2 GiB or more (docs/AIR.md §1.2). Returns 0 or an
 * exit code. */
int tfx_ge_emit_air(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d);
/* The same bytes as the packer's chunks, not joined (tfx_io_pack_pieces): what the emit pass
 * writes, so a large .air is never copied into one buffer. out is empty on error. */
int tfx_ge_emit_air_pieces(const Ge__Proto__ModelDef *m, tfx_io_pieces *out, tfx_diag *d);
/* Text ModelDef in the style of GE's ge_proto_*.txt dumps (protobuf text format, 2-space
 * indent, map entries as `attr { key: "k" value { ... } }`, sorted by key); decodes with
 * protoc --encode=ge.proto.ModelDef. */
int tfx_ge_emit_pbtxt(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d);
/* JSON (protobuf's JSON mapping: lowerCamelCase field names, int64 as strings, bytes base64,
 * enums by name, maps as objects with sorted keys). */
int tfx_ge_emit_json(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d);
/* Graphviz: one cluster per GE graph, one cluster per TF name scope; fused nodes (those with
 * _fusionop_original_type / _datadump_original_op_names) drawn distinctly and labelled with
 * the ops they replace; edges labelled "out->in", control edges dashed. */
int tfx_ge_emit_dot(const Ge__Proto__ModelDef *m, tfx_strbuf *out, tfx_diag *d);

#endif
