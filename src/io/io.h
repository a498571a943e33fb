/* Model input/output: binary and text GraphDef, MetaGraphDef, SavedModel.
 * Stage: io (first stage of the pipeline). Input: a path (file or SavedModel directory).
 * Output: a tfx_model whose GraphDef and everything it points to live in model->arena.
 * The input kind is sniffed from the content (binary vs text; GraphDef vs MetaGraphDef vs
 * SavedModel); the file name is only a tie-breaker. Failures are reported into the
 * diagnostics context and return TFX_E_INPUT. Knows nothing about scopes or rules.
 *
 * Sniffing rules (tfx_io_load_model):
 * - A directory is a SavedModel dir: saved_model.pb is read, else saved_model.pbtxt.
 * - Text vs binary: text when the first 4 KiB hold no control bytes other than \t \n \v \f \r
 *   (binary protobufs almost always start with a tag/length byte below 0x20) and the first thing
 *   after whitespace and # comments is an identifier, '[' or end of file. A zero-byte file is an
 *   empty *binary* message and whitespace/comment-only text an empty text message (both as protoc
 *   reads them): each loads as an empty GraphDef (a SavedModel if named saved_model.pb*).
 * - Text type: the first top-level field name. node/library/versions/version/debug_info ->
 *   GraphDef; meta_info_def/graph_def/saver_def/collection_def/signature_def/asset_file_def/
 *   object_graph_def -> MetaGraphDef; saved_model_schema_version/meta_graphs -> SavedModel;
 *   files/traces/... -> refused as a GraphDebugInfo; anything else -> "not a TensorFlow model".
 * - Binary type: the bytes are walked (wire.c) as each of GraphDef, MetaGraphDef, SavedModel.
 *   A type is a candidate when every known field carries its declared wire type (so protobuf-c
 *   would unpack it). Among candidates the one with the fewest anomalies wins (unknown fields and
 *   repeated singular fields, which TF's serializers never write); ties go to the type whose key
 *   field is present (GraphDef node/library, MetaGraphDef graph_def, SavedModel meta_graphs), then
 *   to the file name (saved_model.pb -> SavedModel, *.meta -> MetaGraphDef, else GraphDef), then
 *   to GraphDef. No candidate -> "malformed protobuf" with a byte offset.
 * - SavedModel: the meta graph tagged opts->tag (default "serve"); with no tag given and exactly
 *   one meta graph, that one; otherwise an error listing the tag sets. No graph_def -> error.
 * - Limits: max_file_size (default 4 GiB); max_depth (default 100, as protoc; capped at 1000 so
 *   the recursive text parser and protobuf-c's recursive unpack stay within the C stack);
 *   max_string and max_list (util/limits.h; none by default here, the CLI always sets them).
 *   Binary input is walked iteratively before protobuf-c ever sees it, so deep or oversized
 *   input is refused cleanly. Each limit error names the limit and the option that raises it.
 * - Strings: protobuf-c keeps `string` fields as C strings, so a value with an embedded NUL is
 *   truncated there (text input gets a warning). `bytes` fields keep every byte.
 * A loaded tfx_model must not be copied by value: its arena's protobuf-c adapter points at it. */
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
#include "util/fileio.h"
#include "util/status.h"
#include "util/strbuf.h"

typedef enum { TFX_WIRE_BINARY, TFX_WIRE_TEXT } tfx_wire;
typedef enum { TFX_MSG_GRAPHDEF, TFX_MSG_METAGRAPHDEF, TFX_MSG_SAVEDMODEL } tfx_msg_kind;

typedef struct tfx_load_opts {
  const char *tag;         /* SavedModel meta graph tag; NULL = "serve" (falls back to the
                              only meta graph when there is exactly one) */
  size_t max_file_size;    /* 0 = default (4 GiB) */
  unsigned max_depth;      /* message nesting limit; 0 = 100 */
  size_t max_string;       /* bytes of one string/bytes value; 0 = no limit */
  size_t max_list;         /* values of one field in one message (wire.h); 0 = no limit */
  unsigned jobs;           /* threads unpacking a big binary GraphDef's nodes: 1 = none (the
                              calling thread alone), 0 = automatic (2 when more than one
                              processor, tfx_jobs_auto, else 1); at most TFX_IO_JOBS_MAX */
  size_t par_min_bytes;    /* tests: a binary GraphDef of this many bytes and more is unpacked
                              in parallel; 0 = TFX_IO_PAR_MIN_BYTES */
} tfx_load_opts;

/* Parallel unpacking (io.c, tfx_io_load_model_buffer): a binary GraphDef of at least
 * TFX_IO_PAR_MIN_BYTES bytes (about 5000 typical NodeDefs), alone, as the graph_def of a
 * MetaGraphDef, or as that of a SavedModel's only meta graph, with jobs > 1, has its NodeDefs
 * unpacked by `jobs` threads, each a part of the bytes; below that, threads cost more than they
 * save (a SavedModel of several meta graphs is unpacked whole). The model is the same as one
 * thread's, field for field (unknown fields too). */
#define TFX_IO_JOBS_MAX 64u
#define TFX_IO_PAR_MIN_BYTES ((size_t)1 << 20)
/* The number of threads opts->jobs asks for (0 resolved, capped). */
unsigned tfx_io_jobs(unsigned jobs);

typedef struct tfx_model {
  tfx_arena arena;             /* owns everything below */
  const char *path;            /* the file actually read (in arena) */
  tfx_wire wire;
  tfx_msg_kind kind;
  ProtobufCMessage *root;      /* the whole unpacked message (GraphDef/MetaGraphDef/SavedModel) */
  Tensorflow__GraphDef *graph; /* the GraphDef inside root (never NULL after a successful load) */
  int mapped;                  /* tfx_io_load_model read the file through a mapping (a regular,
                                  non-empty file), not into a buffer */
  unsigned jobs;               /* threads that unpacked its NodeDefs (the calling thread counted),
                                  0 when it was unpacked as one message */
} tfx_model;

/* io/reach.c. Tells a sweep of m's arena (util/arena.h) everything m->root reaches (every
 * message, repeated array, string and bytes payload, descriptor-driven) and m->path: what is
 * left unkept is memory the model no longer uses (NodeDefs passes removed, lists they replaced,
 * the unpacker's scratch that protobuf-c "frees" into the arena). */
void tfx_model_keep_reachable(tfx_arena_sweep *s, const tfx_model *m);

/* Loads path. opts may be NULL. On failure the model is left empty (arena freed). Returns
 * TFX_OK, TFX_E_INPUT (unreadable or malformed, over a limit) or TFX_E_NOMEM (reported). */
TFX_MUST_CHECK tfx_status tfx_io_load_model(const char *path, const tfx_load_opts *opts,
                                            tfx_model *out, tfx_diag *d);
/* The same for a model already in memory (len bytes at data, borrowed: the model keeps no
 * pointer into it). file names the model in messages and becomes out->path; the file-size
 * limit of opts is not applied (the caller holds the bytes already). */
TFX_MUST_CHECK tfx_status tfx_io_load_model_buffer(const void *data, size_t len, const char *file,
                                                   const tfx_load_opts *opts, tfx_model *out,
                                                   tfx_diag *d);
void tfx_model_free(tfx_model *m);

/* Unpacks a binary message into arena; NULL after reporting (fname used in the message). */
ProtobufCMessage *tfx_io_unpack(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                                size_t len, const char *fname, tfx_arena *arena, tfx_diag *d);
/* The same, with the kind of a failure in *st: TFX_OK, TFX_E_INPUT (malformed, too deep) or
 * TFX_E_NOMEM (out of memory, reported as such). */
ProtobufCMessage *tfx_io_unpack_st(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                                   size_t len, const char *fname, tfx_arena *arena, tfx_status *st,
                                   tfx_diag *d);
/* Serializes msg into out (appends), byte-identical to C++ protobuf / protoc --encode: field
 * order, packed proto3 repeated scalars, unknown fields kept (after the known ones), map entries
 * always with key and value (protobuf_c_message_pack would drop default keys/values).
 * Returns 0, -1 on out of memory or nesting deeper than 1000. */
int tfx_io_pack(const ProtobufCMessage *msg, tfx_strbuf *out);

/* tfx_io_pack with a size limit: returns -2, appending nothing, when the encoding is longer
 * than max bytes (it stops writing then: at most max plus one 64 MiB chunk is allocated).
 * *size (when size is not NULL) gets the exact encoded size on success and on -2. Out of
 * memory sets out->oom. */
int tfx_io_pack_max(const ProtobufCMessage *msg, tfx_strbuf *out, size_t max, size_t *size);

/* The encoding of tfx_io_pack as the packer's own chunks, first bytes first, never copied into
 * one buffer (an output of hundreds of MiB is written piece by piece: no second copy, no fresh
 * pages for it). Returns 0 (out filled; free with tfx_io_pieces_free), -1 (nesting deeper than
 * 1000), -2 (longer than max: *size = the exact size, nothing kept) or -3 (out of memory). On
 * an error out is empty. */
typedef struct tfx_io_pieces {
  tfx_wpiece *p;   /* n pieces, in output order */
  void **blocks;   /* what to free */
  size_t n, total;
  int fd1;         /* 0, or the spill file (descriptor + 1) pieces read from: closed by
                      tfx_io_pieces_free (the streamed .air, ge/air_sink.c) */
} tfx_io_pieces;
int tfx_io_pack_pieces(const ProtobufCMessage *msg, size_t max, tfx_io_pieces *out, size_t *size);
void tfx_io_pieces_free(tfx_io_pieces *p);

/* Writes msg to path atomically, binary or text. Returns TFX_OK or, reported: TFX_E_INPUT (the
 * file cannot be written), TFX_E_NOMEM, TFX_E_FAIL (nested too deeply to encode). */
TFX_MUST_CHECK tfx_status tfx_io_write_message(const char *path, const ProtobufCMessage *msg,
                                               tfx_wire wire, tfx_diag *d);
/* The same, refusing (reported, nothing written) more than max_size bytes (TFX_E_FAIL: a
 * limit); 0 = no limit. */
TFX_MUST_CHECK tfx_status tfx_io_write_message_max(const char *path, const ProtobufCMessage *msg,
                                                   tfx_wire wire, size_t max_size, tfx_diag *d);

const char *tfx_msg_kind_name(tfx_msg_kind k);

#endif
