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

#endif
