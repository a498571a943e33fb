/* Whole-file reading with a size limit, and atomic output files.
 * Stage: shared utility. Errors are reported into the diagnostics context with the path.
 * Atomic writes go to a temporary file in the target's directory and are renamed into place
 * only when everything was written and flushed, so no failure leaves a partial file. */
#ifndef TFX_UTIL_FILEIO_H
#define TFX_UTIL_FILEIO_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

/* Reads path into a malloc'ed buffer (NUL-terminated, *len excludes the NUL).
 * max_size 0 = no limit. Returns NULL after reporting an error. */
char *tfx_read_file(const char *path, size_t max_size, size_t *len, tfx_diag *d);

/* Writes data to path atomically. path "-" writes to stdout. An existing path that is a
 * device or FIFO (/dev/null, a pipe) is written through directly, never replaced; a directory
 * is an error. Returns 0 or -1 (reported). */
int tfx_write_file_atomic(const char *path, const void *data, size_t len, tfx_diag *d);

/* 1 if path is a directory, 0 if not (or missing). */
int tfx_is_dir(const char *path);

#endif
