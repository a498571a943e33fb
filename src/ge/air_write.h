/* The .air writer (air_write.c): ge.proto.ModelDef -> wire bytes, by code written for GE IR's
 * message types, the same bytes as tfx_io_pack. Stage: ge (output side). */
#ifndef TFX_GE_AIR_WRITE_H
#define TFX_GE_AIR_WRITE_H

#include <stddef.h>

#include "ge/ge_ir.pb-c.h"
#include "io/io.h"

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
/* Bytes of the op records written so far. */
size_t tfx_ge_air_stream_size(const tfx_ge_air_stream *s);
/* The whole encoding of m (its graphs' ops being the streamed ones) as chunks, which move to
 * out (free with tfx_io_pieces_free; s is then empty of them, free it as usual). Returns 0,
 * -1 (m has fields the stream cannot write, or a hole is left), -2 (longer than max: *size set)
 * or -3 (out of memory). */
int tfx_ge_air_stream_finish(tfx_ge_air_stream *s, const Ge__Proto__ModelDef *m, size_t max,
                             tfx_io_pieces *out, size_t *size);

#endif
