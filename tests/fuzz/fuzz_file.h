/* The model file of the fuzz targets whose entry point takes a path (tfx_io_load_model has no
 * in-memory form): one temporary file per process, created on the first input under $TMPDIR
 * (else /tmp), rewritten and truncated for every input, removed at exit. Header-only like
 * fuzz_common.h; the target defines _POSIX_C_SOURCE 200809L (mkstemp, pwrite, ftruncate)
 * before its first include. */
#ifndef TFX_FUZZ_FILE_H
#define TFX_FUZZ_FILE_H

#include <unistd.h>

#include "fuzz_common.h"

static char fuzz_file_path_buf[4096];
static int fuzz_file_fd = -1;

static void fuzz_file_remove(void) {
  if (fuzz_file_fd >= 0) {
    close(fuzz_file_fd);
    unlink(fuzz_file_path_buf);
  }
}

/* Writes data to the process's file (named tfxc-fuzz-TAG-XXXXXX) and returns its path. */
static inline const char *fuzz_file_write(const char *tag, const uint8_t *data, size_t size) {
  if (fuzz_file_fd < 0) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    int n = snprintf(fuzz_file_path_buf, sizeof fuzz_file_path_buf, "%s/tfxc-fuzz-%s-XXXXXX",
                     dir, tag);
    FUZZ_CHECK(n > 0 && (size_t)n < sizeof fuzz_file_path_buf, "TMPDIR too long");
    fuzz_file_fd = mkstemp(fuzz_file_path_buf);
    FUZZ_CHECK(fuzz_file_fd >= 0, "mkstemp(%s) failed", fuzz_file_path_buf);
    atexit(fuzz_file_remove);
  }
  FUZZ_CHECK(ftruncate(fuzz_file_fd, 0) == 0, "ftruncate failed");
  size_t off = 0;
  while (off < size) {
    ssize_t w = pwrite(fuzz_file_fd, data + off, size - off, (off_t)off);
    FUZZ_CHECK(w > 0, "pwrite failed");
    off += (size_t)w;
  }
  return fuzz_file_path_buf;
}

#endif
