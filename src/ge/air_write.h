/* The .air writer (air_write.c): ge.proto.ModelDef -> wire bytes, by code written for GE IR's
 * message types, the same bytes as tfx_io_pack. Stage: ge (output side). */
#ifndef TFX_GE_AIR_WRITE_H
#define TFX_GE_AIR_WRITE_H

#include <stddef.h>

#include "ge/ge_ir.pb-c.h"
#include "io/io.h"
#include "util/arena.h"

/* The encoding of m as chunks, first bytes first (what tfx_io_pack_pieces gives for m, with the
 * same return codes): 0 (out filled; free with tfx_io_pieces_free), -1 (nested deeper than
 * 1000), -2 (longer than max: *size = the exact size, nothing kept) or -3 (out of memory). On
 * an error out is empty. size may be NULL. */
int tfx_ge_air_write(const Ge__Proto__ModelDef *m, size_t max, tfx_io_pieces *out, size_t *size);

/* The same bytes written op by op (streaming lowering, lower.c): each op's record is written
 * as soon as the op is complete and the op may then be dropped; the graphs' own fields and the
 * model's come last (tfx_ge_air_stream_finish), from a ModelDef whose graphs need not hold
 * their ops any more. The model and its graphs must have no attr, attr_groups or unknown
 * fields (lowering sets none); ops may have anything. Ops of one graph must be given in the
 * graph's order; graphs may interleave. The op ids are the caller's (set before writing). */
typedef struct tfx_ge_air_stream tfx_ge_air_stream;
tfx_ge_air_stream *tfx_ge_air_stream_new(void); /* NULL on out of memory */
void tfx_ge_air_stream_free(tfx_ge_air_stream *s);
/* Appends op as the next op of graph gi (its index in ModelDef.graph). Returns 0, -1 (nested
 * deeper than 1000) or -3 (out of memory). */
int tfx_ge_air_stream_op(tfx_ge_air_stream *s, size_t gi, const Ge__Proto__OpDef *op);
/* A place for one op of graph gi given later (tfx_ge_air_stream_fill with *slot), when the
 * ops after it are already written. 0 or -3. */
int tfx_ge_air_stream_hole(tfx_ge_air_stream *s, size_t gi, size_t *slot);
int tfx_ge_air_stream_fill(tfx_ge_air_stream *s, size_t slot, const Ge__Proto__OpDef *op);
/* An op's attr map entries written ahead (tfx_ge_air_stream_attrs): n records (tag, length,
 * entry), in key order, back to back in p[0, len), except that the last n_tail bytes of record
 * tail_at (UINT32_MAX: none), the data of a tensor value, are not copied there: they are read
 * from tail (borrowed) when the op is written. */
typedef struct tfx_ge_air_attrs {
  const uint8_t *p, *tail;
  uint32_t len, n, n_tail, tail_at;
} tfx_ge_air_attrs;
/* op's attr entries, in op's order (sort them first), written ahead into *out (bytes in A). A
 * tensor value (AttrDef.t) whose data is borrow (when non-NULL) is not copied: those bytes must
 * outlive the stream's use of out. Equal bytes (up to 4 KiB) are kept once: out->p may be the
 * bytes of an earlier call of this stream (in that call's A, which must live as long as any
 * out; never modify them). Lowering writes an op's own attrs this way in phase 1 and drops
 * their messages. 0, -1 (nested over 1000 levels) or -3 (out of memory). */
int tfx_ge_air_stream_attrs(tfx_ge_air_stream *s, const Ge__Proto__OpDef *op, tfx_arena *A,
                            const uint8_t *borrow, tfx_ge_air_attrs *out);
/* tfx_ge_air_stream_op / _fill for an op whose attr map is op's entries (sorted) merged in key
 * order with pre's (NULL: none); an entry of op replaces an entry of pre with the same key, as
 * setting it on the op would have. When op's entries are all frozen (the memo) and pre has no
 * borrowed tail, the merged bytes are kept by the addresses of pre's bytes and the entries
 * (a bounded table) and copied for the next op with the same ones: pre's bytes, like frozen
 * objects, must not change while the stream is used. The same for an op's descriptor records
 * (input and output descs) when all its descs are frozen: kept by their addresses. */
int tfx_ge_air_stream_op_pre(tfx_ge_air_stream *s, size_t gi, const Ge__Proto__OpDef *op,
                             const tfx_ge_air_attrs *pre);
/* An op's edges given by their parts: input k is "name[k]:port[k]" (name[k] of len[k] bytes,
 * no NUL needed), or "" when name[k] is NULL. */
typedef struct tfx_ge_air_edges {
  size_t n;
  const char *const *name;
  const size_t *len;
  const uint32_t *port;
} tfx_ge_air_edges;
/* tfx_ge_air_stream_op_pre for an op whose inputs are edges (op->input is not read): the same
 * bytes as op_pre writes for the op with those input strings. op may have only name, type,
 * id, attr, input_desc and output_desc set (every other field empty, as
 * ge__proto__op_def__init leaves it). Lowering writes its common ops this way without making
 * their edge strings (lower.c, write_lite). */
int tfx_ge_air_stream_edges(tfx_ge_air_stream *s, size_t gi, const Ge__Proto__OpDef *op,
                            const tfx_ge_air_edges *edges, const tfx_ge_air_attrs *pre);
int tfx_ge_air_stream_fill_pre(tfx_ge_air_stream *s, size_t slot, const Ge__Proto__OpDef *op,
                               const tfx_ge_air_attrs *pre);
/* Sends the op records (not the holes', which stay in memory) to a spill file in the
 * directory of target, the .air's output path, instead of memory (air_sink.c); call it before
 * the first op. 1 when they go there, 0 when they stay in memory (no spill file possible:
 * standard output, a device, a directory that cannot take it). finish then hands back pieces
 * read from that file (tfx_wpiece.fd1), and the file itself (tfx_io_pieces.fd1). jobs: who
 * writes it (tfx_ge_lower_opts.jobs: 1 this thread, 2 or more a writer thread, 0 automatic;
 * air_sink.h); the bytes are the same. */
int tfx_ge_air_stream_spill(tfx_ge_air_stream *s, const char *target, int jobs);
/* Plans the spill file as the whole .air: leaves room in front of the records for the
 * model's fields (m's name, version, custom_version: set by now) and one graph's tag, length
 * (len_bytes, the varint's guessed length) and fields 1/4/5 (graph_fields bytes, predicted).
 * Call it after tfx_ge_air_stream_spill, before the first op. Returns the bytes reserved, or 0
 * (no spill file, too late). When finish finds the guess exact (one graph, every record in
 * the spill file in order), it writes the fields into that room and hands back the file as
 * one piece from offset 0; else the pieces as without a plan (the room is skipped). */
uint64_t tfx_ge_air_stream_plan(tfx_ge_air_stream *s, const Ge__Proto__ModelDef *m,
                                size_t graph_fields, unsigned len_bytes);
/* Keeps (in memory or the spill file) no op record past max bytes of them: later records are
 * only counted, and finish returns -2 with the exact size. Lowering sets the .air's limit
 * (air_max), so a model that is lowered again whole (external weights) never spills or holds
 * more than that. Default: no limit. */
void tfx_ge_air_stream_max(tfx_ge_air_stream *s, size_t max);
/* After finish returned -4: the errno of the spill file's failed write. */
int tfx_ge_air_stream_errno(const tfx_ge_air_stream *s);
/* Bytes of the op records written so far. */
size_t tfx_ge_air_stream_size(const tfx_ge_air_stream *s);
/* The whole encoding of m (its graphs' ops being the streamed ones) as chunks, which move to
 * out (free with tfx_io_pieces_free; s is then empty of them, free it as usual). Returns 0,
 * -1 (m has fields the stream cannot write, or a hole is left), -2 (longer than max, or
 * records were dropped past tfx_ge_air_stream_max: *size set),
 * -3 (out of memory) or -4 (a write to the spill file failed: tfx_ge_air_stream_errno). */
int tfx_ge_air_stream_finish(tfx_ge_air_stream *s, const Ge__Proto__ModelDef *m, size_t max,
                             tfx_io_pieces *out, size_t *size);

/* Frozen messages (streaming lowering): a descriptor or AttrDef frozen here is written once,
 * then its bytes are copied wherever a record meets it (by address) instead of writing it
 * again: the same bytes. A frozen object must not be modified nor freed while the memo is in
 * use, and its maps must be sorted before it is frozen. Its interior is not depth-checked
 * again when copied (lowering freezes objects three levels deep at most). */
typedef struct tfx_ge_air_memo tfx_ge_air_memo;
tfx_ge_air_memo *tfx_ge_air_memo_new(void); /* NULL on out of memory */
void tfx_ge_air_memo_free(tfx_ge_air_memo *m);
/* Freezes td / a. 0, -1 (nested over 1000 levels, or NULL) or -3 (out of memory: not frozen,
 * which changes no byte). */
int tfx_ge_air_memo_desc(tfx_ge_air_memo *m, const Ge__Proto__TensorDescriptor *td);
int tfx_ge_air_memo_attr(tfx_ge_air_memo *m, const Ge__Proto__AttrDef *a);
/* The same for an entry of an OpDef's attr map (written whole: tag, length, key, value). */
int tfx_ge_air_memo_op_entry(tfx_ge_air_memo *m, const Ge__Proto__OpDef__AttrEntry *e);
/* Whether p is frozen in m (m may be NULL). */
int tfx_ge_air_memo_has(const tfx_ge_air_memo *m, const void *p);
/* The records s writes from now on copy m's frozen objects (m outlives that use; NULL: none). */
void tfx_ge_air_stream_set_memo(tfx_ge_air_stream *s, const tfx_ge_air_memo *m);

#endif
