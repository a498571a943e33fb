/* Whole-file reading with a size limit, and atomic output files.
 * Stage: shared utility. Errors are reported into the diagnostics context with the path.
 * Atomic writes go to a temporary file in the target's directory and are renamed into place
 * only when everything was written and closed, so no failure leaves a partial file; several
 * outputs of one run can be written all or nothing (tfx_write_files_atomic). Temporary files
 * are named TARGET.tmp.XXXXXX. The guarantee covers the failures tfxc sees (errors, a full
 * disk): a killed tfxc may leave a temporary file behind, never a partial TARGET; writes are
 * not fsync'ed, so a crash of the machine is not covered. */
#ifndef TFX_UTIL_FILEIO_H
#define TFX_UTIL_FILEIO_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"
#include "util/status.h"

/* Reads path into a malloc'ed buffer (NUL-terminated, *len excludes the NUL).
 * max_size 0 = no limit. Returns NULL after reporting an error. */
char *tfx_read_file(const char *path, size_t max_size, size_t *len, tfx_diag *d);
/* The same; a file over max_size is reported with hint (how to raise the limit; NULL = none)
 * in parentheses after the message. */
char *tfx_read_file_hint(const char *path, size_t max_size, const char *hint, size_t *len,
                         tfx_diag *d);
/* The same, with the reason of a failure in *st: TFX_OK, TFX_E_INPUT (cannot open or read, over
 * max_size) or TFX_E_NOMEM (out of memory). */
char *tfx_read_file_st(const char *path, size_t max_size, const char *hint, size_t *len,
                       tfx_status *status, tfx_diag *d);

/* The output-size limit: 0 when len <= max_size (or max_size is 0), else -1 after reporting
 * that path would get len bytes, over the limit, and how to raise it (--limit output-size). */
int tfx_check_output_size(const char *path, size_t len, size_t max_size, tfx_diag *d);

/* Writes data to path atomically. path "-" writes to stdout. An existing path that is a
 * device or FIFO (/dev/null, a pipe) is written through directly, never replaced; a directory
 * is an error. Returns TFX_OK, or (reported) TFX_E_INPUT (the file cannot be written) or
 * TFX_E_NOMEM. */
tfx_status tfx_write_file_atomic(const char *path, const void *data, size_t len, tfx_diag *d);
/* Writes n files as one: every regular file goes to its temporary file first, then "-"
 * (stdout) and devices/FIFOs are written through, then the temporary files are renamed into
 * place in order. Any failure removes every temporary file and the files this call already
 * renamed into place (what they replaced is gone), so it leaves none of the n outputs (only
 * what went to stdout or a device cannot be taken back). Returns as tfx_write_file_atomic. */
tfx_status tfx_write_files_atomic(size_t n, const char *const *paths, const void *const *data,
                                  const size_t *lens, tfx_diag *d);

/* One piece of an output held in several buffers (written in order, never joined). */
typedef struct tfx_wpiece {
  const void *data; /* may be NULL when len is 0 or fd1 is set */
  size_t len;
  /* 0: the bytes are data[0, len); else they are len bytes of the file open as descriptor
   * fd1 - 1 (readable) at offset off (a spill file: tfx_spill_open), copied in the kernel
   * (copy_file_range) when the output is a file */
  int fd1;
  uint64_t off;
} tfx_wpiece;
/* tfx_write_files_atomic with file i made of pieces[i][0 .. n_pieces[i]-1]: the same
 * guarantees; each write() of each piece, and each copy_file_range() of a piece read from a
 * file (fd1), is a step of the fault-injection hook. */
tfx_status tfx_write_files_atomic_pieces(size_t n, const char *const *paths,
                                         const tfx_wpiece *const *pieces, const size_t *n_pieces,
                                         tfx_diag *d);

/* A spill file for bytes of an output made before it can be written (the streamed .air,
 * ge/air_sink.c): a file with no name (O_TMPFILE, else a temp file unlinked at once) in the
 * directory of path, so that nothing of it can be left behind and it is on the output's file
 * system (tfx_write_files_atomic_pieces then copies from it in the kernel, or, when an output
 * is one piece that is the whole file from offset 0, links the file itself as the output's
 * temp file: no copy). Returns a
 * read-write descriptor, or -1 (path is "-", an existing non-regular file, or the directory
 * cannot take it: the caller keeps the bytes in memory instead; nothing reported). */
int tfx_spill_open(const char *path);
/* Writes n bytes to fd (each write() a step of the fault-injection hook). 0, or -1 with errno
 * set. */
int tfx_write_all(int fd, const void *p, size_t n);

/* 1 if path is a directory, 0 if not (or missing). */
int tfx_is_dir(const char *path);

/* Test hook (fault injection), like tfx_alloc_fail_at for allocations: when n > 0, the nth
 * file-system step of tfx_write_file_atomic from now on fails. The steps of one atomic write
 * are: create the temp file (mkstemp), each write() call (also tfx_write_all's) and each
 * copy_file_range() call (a piece read from a file, failing like a write()), fchmod, close,
 * rename; of a write
 * through a device or FIFO: open, each write() call, close. A failing write() is a short write
 * (half of what was asked, when that is at least one byte), and the next write() then fails
 * with ENOSPC, as when a disk fills up; the other steps fail with a plausible errno. 0
 * disables. tfx_write_failures() counts the injected failures since the last call. Writes
 * to stdout ("-") are one step. */
void tfx_write_fail_at(long n);
long tfx_write_failures(void);
/* File-system steps counted since the last tfx_write_fail_at (also when disabled). */
long tfx_write_calls(void);
/* The hooks are per thread. A thread that works on behalf of another (every library thread:
 * util/thread.h tfx_thread_start does this) calls tfx_write_fault_follow with what
 * tfx_write_fault_state returned in that other thread: its steps are then counted on, and
 * fail as, that thread's (a test arming the hook before a run sees every write of the run,
 * wherever it is made). The two threads must not make steps at the same time (the counters are
 * plain: of the library's threads only the spill file's writer, ge/air_sink.c, writes, and its
 * owner makes no step while it runs; the writer's end is a join). NULL, nothing, when the
 * hooks are compiled out; tfx_write_fault_follow(NULL) goes back to the thread's own. */
void *tfx_write_fault_state(void);
void tfx_write_fault_follow(void *state);

#endif
