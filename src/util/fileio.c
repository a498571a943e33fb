/* File reading and atomic writing (see fileio.h). */
#define _POSIX_C_SOURCE 200809L
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/arena.h"

int tfx_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *tfx_read_file(const char *path, size_t max_size, size_t *len, tfx_diag *d) {
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) {
    tfx_error(d, path, 0, 0, "cannot open: %s", strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    tfx_error(d, path, 0, 0, "is a directory");
    if (f != stdin) fclose(f);
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    if (max_size && (uint64_t)st.st_size > max_size) {
      tfx_error(d, path, 0, 0, "file is %lld bytes, larger than the limit of %zu (raise it with --max-file-size)",
                (long long)st.st_size, max_size);
      if (f != stdin) fclose(f);
      return NULL;
    }
    cap = (size_t)st.st_size + 1;
  }
  char *buf = tfx_malloc(cap);
  if (!buf) goto oom;
  for (;;) {
    if (n + 1 >= cap) {
      size_t ncap = cap * 2;
      char *p = tfx_realloc(buf, ncap);
      if (!p) goto oom;
      buf = p;
      cap = ncap;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (max_size && n > max_size) {
      tfx_error(d, path, 0, 0, "file is larger than the limit of %zu bytes (raise it with --max-file-size)", max_size);
      free(buf);
      if (f != stdin) fclose(f);
      return NULL;
    }
    if (got == 0) break;
  }
  if (ferror(f)) {
    tfx_error(d, path, 0, 0, "read error: %s", strerror(errno));
    free(buf);
    if (f != stdin) fclose(f);
    return NULL;
  }
  if (f != stdin) fclose(f);
  buf[n] = 0;
  *len = n;
  return buf;
oom:
  free(buf);
  if (f != stdin) fclose(f);
  tfx_error(d, path, 0, 0, "out of memory reading file");
  return NULL;
}

static int write_direct(const char *path, const void *data, size_t len, tfx_diag *d) {
  int fd = open(path, O_WRONLY);
  if (fd < 0) {
    tfx_error(d, path, 0, 0, "cannot write output: %s", strerror(errno));
    return -1;
  }
  const char *p = data;
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0) {
      if (errno == EINTR) continue;
      tfx_error(d, path, 0, 0, "cannot write output: %s", strerror(errno));
      close(fd);
      return -1;
    }
    p += w;
    len -= (size_t)w;
  }
  if (close(fd) != 0) {
    tfx_error(d, path, 0, 0, "cannot write output: %s", strerror(errno));
    return -1;
  }
  return 0;
}

int tfx_write_file_atomic(const char *path, const void *data, size_t len, tfx_diag *d) {
  if (strcmp(path, "-") == 0) {
    if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
      tfx_error(d, "<stdout>", 0, 0, "write error: %s", strerror(errno));
      return -1;
    }
    return 0;
  }
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      tfx_error(d, path, 0, 0, "cannot write output: is a directory");
      return -1;
    }
    /* A device or FIFO (/dev/null, /dev/stdout, a pipe): write through it; renaming a temp
     * file over it would replace the device node. */
    return write_direct(path, data, len, d);
  }
  size_t pl = strlen(path);
  char *tmp = tfx_malloc(pl + 16);
  if (!tmp) {
    tfx_error(d, path, 0, 0, "out of memory");
    return -1;
  }
  /* Temp file next to the target: rename() is atomic only within one file system. */
  memcpy(tmp, path, pl);
  memcpy(tmp + pl, ".tmp.XXXXXX", 12);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    tfx_error(d, path, 0, 0, "cannot create output: %s", strerror(errno));
    free(tmp);
    return -1;
  }
  const char *p = data;
  size_t left = len;
  while (left) {
    ssize_t w = write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      goto fail;
    }
    p += w;
    left -= (size_t)w;
  }
  if (fchmod(fd, 0644) != 0) goto fail;
  if (close(fd) != 0) { fd = -1; goto fail; }
  fd = -1;
  if (rename(tmp, path) != 0) goto fail;
  free(tmp);
  return 0;
fail:
  tfx_error(d, path, 0, 0, "cannot write output: %s", strerror(errno));
  if (fd >= 0) close(fd);
  unlink(tmp);
  free(tmp);
  return -1;
}
