/* Model input/output: binary and text GraphDef, MetaGraphDef, SavedModel.
 * Stage: io (first stage of the pipeline). Input: a path (file or SavedModel directory).
 * Output: a tfx_model whose GraphDef and everything it points to live in model->arena.
 * The input kind is sniffed from the content (binary vs text; GraphDef vs MetaGraphDef vs
 * SavedModel); the file name is only a tie-breaker. Failures are reported into the
 * diagnostics context and return TFX_EXIT_INPUT. Knows nothing about scopes or rules. */
#ifndef TFX_IO_IO_H
#define TFX_IO_IO_H

#include <stddef.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>

#include "tensorflow/graph.pb-c.h"
#include "tensorflow/meta_graph.pb-c.h"
#include "tensorflow/saved_model.pb-c.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/strbuf.h"

typedef enum { TFX_WIRE_BINARY, TFX_WIRE_TEXT } tfx_wire;
typedef enum { TFX_MSG_GRAPHDEF, TFX_MSG_METAGRAPHDEF, TFX_MSG_SAVEDMODEL } tfx_msg_kind;

typedef struct tfx_load_opts {
  const char *tag;         /* SavedModel meta graph tag; NULL = "serve" (falls back to the
                              only meta graph when there is exactly one) */
  size_t max_file_size;    /* 0 = default (4 GiB) */
  unsigned max_depth;      /* message nesting limit; 0 = 100 */
} tfx_load_opts;

typedef struct tfx_model {
  tfx_arena arena;             /* owns everything below */
  const char *path;            /* the file actually read (in arena) */
  tfx_wire wire;
  tfx_msg_kind kind;
  ProtobufCMessage *root;      /* the whole unpacked message (GraphDef/MetaGraphDef/SavedModel) */
  Tensorflow__GraphDef *graph; /* the GraphDef inside root (never NULL after a successful load) */
} tfx_model;

/* Loads path. opts may be NULL. On failure the model is left empty (arena freed). */
int tfx_io_load_model(const char *path, const tfx_load_opts *opts, tfx_model *out, tfx_diag *d);
void tfx_model_free(tfx_model *m);

/* Unpacks a binary message into arena; NULL after reporting (fname used in the message). */
ProtobufCMessage *tfx_io_unpack(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                                size_t len, const char *fname, tfx_arena *arena, tfx_diag *d);
/* Serializes msg into out (appends). Returns 0, -1 on out of memory. */
int tfx_io_pack(const ProtobufCMessage *msg, tfx_strbuf *out);

/* Writes msg to path atomically, binary or text. Returns 0 or -1 (reported). */
int tfx_io_write_message(const char *path, const ProtobufCMessage *msg, tfx_wire wire, tfx_diag *d);

const char *tfx_msg_kind_name(tfx_msg_kind k);

#endif
