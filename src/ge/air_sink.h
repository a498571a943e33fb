/* The spill file of the streamed .air (air_sink.c): op records written to a file with no name in
 * the output's directory as lowering makes them, instead of being kept in memory until the
 * end. Stage: ge (output side; used by air_write.c's stream store only). */
#ifndef TFX_GE_AIR_SINK_H
#define TFX_GE_AIR_SINK_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfx_ge_air_spill tfx_ge_air_spill;

/* A spill file for the .air going to target (tfx_spill_open: its directory), or NULL when
 * there can be none (standard output, a device, a directory that cannot take it, out of
 * memory): the stream then keeps its records in memory, as before. jobs (the meaning of
 * tfx_ge_lower_opts.jobs): 1 writes it inline, in put() and end(); 2 or more by a writer
 * thread, through a ring of buffers (4 x 1 MiB); 0 the thread when the process may run on
 * more than one CPU. The file's bytes, and everything below, are the same either way; without
 * the memory for the ring, or a thread, it is written inline. */
tfx_ge_air_spill *tfx_ge_air_spill_open(const char *target, int jobs);
/* Appends n bytes (buffered; with the thread, a full buffer is handed to it and put goes on
 * in the next, waiting only when the whole ring waits for the disk). A failed write is
 * remembered (tfx_ge_air_spill_end reports it) and later bytes are dropped: nothing of the
 * file is used then. */
void tfx_ge_air_spill_put(tfx_ge_air_spill *sp, const void *p, size_t n);
/* Bytes appended so far: the file offset of the next byte (put, not necessarily written yet). */
uint64_t tfx_ge_air_spill_pos(const tfx_ge_air_spill *sp);
/* Leaves the first n bytes of the file a hole (a sparse gap) for the output's own fields: the
 * records then start at offset n (tfx_ge_air_spill_pos). Only before the first byte; 0, or -1
 * (too late, or lseek failed: nothing changed). */
int tfx_ge_air_spill_reserve(tfx_ge_air_spill *sp, uint64_t n);
/* After tfx_ge_air_spill_end: writes n bytes at the start of the file (the reserved gap).
 * 0, or -1 with errno set. */
int tfx_ge_air_spill_head(int fd, const void *p, size_t n);
/* Writes what is buffered (with the thread: hands it over, then joins the thread, so every
 * byte put is in the file) and frees the buffers. Returns the descriptor (the caller owns it
 * from then on: sp is freed) or -1 with *err the errno of the first failed write (sp freed,
 * the file closed: it vanishes). */
int tfx_ge_air_spill_end(tfx_ge_air_spill *sp, int *err);
/* Closes and frees (the file vanishes); a writer thread drops what is queued and is joined
 * first. NULL is fine. */
void tfx_ge_air_spill_free(tfx_ge_air_spill *sp);

#endif
