/* File reading and atomic writing (see fileio.h). */
#define _GNU_SOURCE /* O_TMPFILE, copy_file_range (Linux); else POSIX 2008 */
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

/* ---- write fault injection (tfx_write_fail_at) ---- */

#ifdef TFXC_FAULT_INJECTION
/* Per thread, like the allocation fault injection (arena.c). A thread that writes on another's
 * behalf (the spill file's writer thread, ge/air_sink.c) counts its steps on that thread's
 * state (tfx_write_fault_follow): wf points at it; else at the thread's own. */
typedef struct wf_state {
  long countdown, hits, calls;
  int enospc; /* a short write was injected: the next write() fails with ENOSPC */
} wf_state;
static _Thread_local wf_state wf_own;
static _Thread_local wf_state *wf_follow;
#define wf (wf_follow ? wf_follow : &wf_own)

void tfx_write_fail_at(long n) { *wf = (wf_state){n, 0, 0, 0}; }
long tfx_write_failures(void) { return wf->hits; }
long tfx_write_calls(void) { return wf->calls; }
void *tfx_write_fault_state(void) { return wf; }
void tfx_write_fault_follow(void *state) { wf_follow = state; }

/* 1 when this file-system step is the one to fail. */
static int wf_step(void) {
  wf->calls++;
  if (wf->countdown <= 0) return 0;
  if (--wf->countdown == 0) {
    wf->hits++;
    return 1;
  }
  return 0;
}
#else
/* Built without the hooks (TFXC_FAULT_INJECTION off): no step is counted or fails. */
void tfx_write_fail_at(long n) { (void)n; }
long tfx_write_failures(void) { return 0; }
long tfx_write_calls(void) { return 0; }
void *tfx_write_fault_state(void) { return NULL; }
void tfx_write_fault_follow(void *state) { (void)state; }
#define wf_step() 0
#endif

/* The write-fault hook for one step that writes n bytes (a write() or a copy_file_range()):
 * -1 with errno ENOSPC when the step fails; else 0, with *n halved when the step is to be short
 * (the next step then fails with ENOSPC). */
static int wf_inject(size_t *n) {
#ifdef TFXC_FAULT_INJECTION
  if (wf->enospc) {
    wf->enospc = 0;
    errno = ENOSPC;
    return -1;
  }
  if (wf_step()) {
    if (*n < 2) {
      errno = ENOSPC;
      return -1;
    }
    *n /= 2;
    wf->enospc = 1;
  }
#else
  (void)n;
#endif
  return 0;
}

static ssize_t fi_write(int fd, const void *p, size_t n) {
  if (wf_inject(&n) != 0) return -1;
  ssize_t w = write(fd, p, n);
#ifdef TFXC_FAULT_INJECTION
  if (w < 0) wf->enospc = 0; /* a real failure: no injected one after it */
#endif
  return w;
}

static int fi_mkstemp(char *tmpl) {
  if (wf_step()) {
    errno = ENOSPC;
    return -1;
  }
  return mkstemp(tmpl);
}

static int fi_open_wronly(const char *path) {
  if (wf_step()) {
    errno = EACCES;
    return -1;
  }
  return open(path, O_WRONLY);
}

static int fi_fchmod(int fd, mode_t mode) {
  if (wf_step()) {
    errno = EPERM;
    return -1;
  }
  return fchmod(fd, mode);
}

/* Closes fd in any case; an injected failure reports EIO (as a failed delayed write would). */
static int fi_close(int fd) {
  int fail = wf_step();
  int rc = close(fd);
  if (fail) {
    errno = EIO;
    return -1;
  }
  return rc;
}

static int fi_rename(const char *from, const char *to) {
  if (wf_step()) {
    errno = EACCES;
    return -1;
  }
  return rename(from, to);
}

/* ---- reading ---- */

char *tfx_read_file(const char *path, size_t max_size, size_t *len, tfx_diag *d) {
  return tfx_read_file_hint(path, max_size, NULL, len, d);
}

int tfx_check_output_size(const char *path, size_t len, size_t max_size, tfx_diag *d) {
  if (!max_size || len <= max_size) return 0;
  tfx_error(d, strcmp(path, "-") == 0 ? "<stdout>" : path, 0, 0,
            "output of %zu bytes is larger than the limit of %zu bytes (raise the output-size "
            "limit with --limit output-size=SIZE); nothing was written",
            len, max_size);
  return -1;
}

char *tfx_read_file_hint(const char *path, size_t max_size, const char *hint, size_t *len,
                         tfx_diag *d) {
  tfx_status st;
  return tfx_read_file_st(path, max_size, hint, len, &st, d);
}

char *tfx_read_file_st(const char *path, size_t max_size, const char *hint, size_t *len,
                       tfx_status *status, tfx_diag *d) {
  *status = TFX_E_INPUT;
  const char *h0 = hint ? " (" : "", *h1 = hint ? hint : "", *h2 = hint ? ")" : "";
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
      tfx_error(d, path, 0, 0, "file is %lld bytes, larger than the limit of %zu bytes%s%s%s",
                (long long)st.st_size, max_size, h0, h1, h2);
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
      tfx_error(d, path, 0, 0, "file is larger than the limit of %zu bytes%s%s%s", max_size, h0, h1, h2);
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
  *status = TFX_OK;
  return buf;
oom:
  free(buf);
  if (f != stdin) fclose(f);
  tfx_error(d, path, 0, 0, "out of memory reading file");
  *status = TFX_E_NOMEM;
  return NULL;
}

/* ---- spill files (tfx_spill_open) and pieces read from a file ---- */

int tfx_spill_open(const char *path) {
  if (!path || strcmp(path, "-") == 0) return -1;
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return -1;
  const char *slash = strrchr(path, '/');
  size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
  char *tmp = tfx_malloc(dl + 24);
  if (!tmp) return -1;
  memcpy(tmp, path, dl);
  memcpy(tmp + dl, dl ? "" : ".", dl ? 1 : 2); /* the directory (with its '/'), or "." */
  int fd = -1;
#ifdef O_TMPFILE
  /* TFXC_SPILL_NAMED=1: the named fallback below even where O_TMPFILE works (tests) */
  const char *named = getenv("TFXC_SPILL_NAMED");
  if (!named || strcmp(named, "1") != 0)
    fd = open(tmp, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd < 0) { /* no O_TMPFILE here: a named temp file, unlinked at once */
    memcpy(tmp + dl, ".tfxc-spill.XXXXXX", 19);
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd >= 0 && unlink(tmp) != 0) {
      close(fd);
      fd = -1;
    }
  }
  free(tmp);
  return fd;
}

int tfx_write_all(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n) {
    ssize_t w = fi_write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Reads len bytes of file descriptor in at offset off into buf (len <= its size). 0 or -1. */
static int read_at(int in, uint64_t off, char *buf, size_t len) {
  while (len) {
    ssize_t r = pread(in, buf, len, (off_t)off);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = EIO; /* the spill file is shorter than its pieces say */
      return -1;
    }
    buf += r;
    off += (uint64_t)r;
    len -= (size_t)r;
  }
  return 0;
}

#define COPY_BUF ((size_t)1 << 20)

/* Copies len bytes of in at off to out's position through a buffer (out not a file that
 * copy_file_range can write, or no copy_file_range). fn writes (fi_write or stdout). */
static int copy_buffered(int in, uint64_t off, size_t len, int (*fn)(void *, const char *, size_t),
                         void *ctx) {
  char *buf = tfx_malloc(len < COPY_BUF ? (len ? len : 1) : COPY_BUF);
  if (!buf) {
    errno = ENOMEM;
    return -1;
  }
  int rc = 0;
  while (len && rc == 0) {
    size_t n = len < COPY_BUF ? len : COPY_BUF;
    rc = read_at(in, off, buf, n) != 0 || fn(ctx, buf, n) != 0 ? -1 : 0;
    off += n;
    len -= n;
  }
  int err = errno;
  free(buf);
  errno = err;
  return rc;
}

static int to_fd(void *ctx, const char *p, size_t n) { return tfx_write_all(*(int *)ctx, p, n); }

/* Copies len bytes of in at off to out's position: in the kernel (copy_file_range) when it
 * can, else through a buffer. Each copy_file_range() is a step of the fault-injection hook,
 * failing like a write(): a short copy, then ENOSPC. 0 or -1 (errno set). */
static int copy_piece(int out, int in, uint64_t off, size_t len) {
#if defined(__linux__)
  int kernel = 1;
  while (len && kernel) {
    size_t ask = len;
    if (wf_inject(&ask) != 0) return -1;
    loff_t o = (loff_t)off;
    ssize_t c = copy_file_range(in, &o, out, NULL, ask, 0);
    if (c < 0 && errno == EINTR) continue;
    if (c < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ||
                  errno == EBADF || errno == ETXTBSY)) {
      kernel = 0; /* not between these two: the buffered copy below */
      break;
    }
    if (c < 0) return -1;
    if (c == 0) { /* the source ended early */
      errno = EIO;
      return -1;
    }
    off += (uint64_t)c;
    len -= (size_t)c;
  }
#endif
  if (!len) return 0;
  return copy_buffered(in, off, len, to_fd, &out);
}

/* Writes every piece to fd, in order. Returns 0 or -1 (errno set). */
static int write_pieces(int fd, const tfx_wpiece *pc, size_t np) {
  for (size_t i = 0; i < np; i++) {
    if (pc[i].fd1) {
      if (copy_piece(fd, pc[i].fd1 - 1, pc[i].off, pc[i].len) != 0) return -1;
      continue;
    }
    if (tfx_write_all(fd, pc[i].data, pc[i].len) != 0) return -1;
  }
  return 0;
}

static int write_direct(const char *path, const tfx_wpiece *pc, size_t np, tfx_diag *d) {
  int fd = fi_open_wronly(path);
  if (fd < 0) {
    tfx_error(d, path, 0, 0, "cannot write output: %s", strerror(errno));
    return -1;
  }
  if (write_pieces(fd, pc, np) != 0) {
    tfx_error(d, path, 0, 0, "cannot write output: %s", strerror(errno));
    close(fd);
    return -1;
  }
  if (fi_close(fd) != 0) {
    tfx_error(d, path, 0, 0, "cannot write output: %s", strerror(errno));
    return -1;
  }
  return 0;
}

/* An output that is one piece, a whole spill file from offset 0 (the streamed .air when its
 * fields were planned: ge/air_write.c tfx_ge_air_stream_plan): the spill file itself is given
 * the temp file's name (tmp, just made by mkstemp as empty file fd; linkat of the O_TMPFILE
 * through /proc/self/fd), so nothing is copied. 0 when done (tmp names the spill file), else
 * -1 with tmp and fd as they were (the caller copies, as for any piece), or -2 (a failure
 * the caller reports: errno set, tmp and fd as they were). */
static int adopt_spill(const char *tmp, int fd, const tfx_wpiece *pc, size_t np) {
#if defined(__linux__) && defined(O_TMPFILE)
  struct stat st;
  const char *off = getenv("TFXC_SPILL_COPY"); /* tests: "1" copies as before */
  if (np != 1 || !pc[0].fd1 || pc[0].off != 0 || (off && strcmp(off, "1") == 0)) return -1;
  int in = pc[0].fd1 - 1;
  if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 0 ||
      (uint64_t)st.st_size != (uint64_t)pc[0].len)
    return -1;
  char proc[40];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", in);
  if (fi_fchmod(in, 0644) != 0) return -2; /* as write_temp's own fchmod failing */
  /* tmp is free for the link only while it is unlinked: made again below if the link fails */
  if (unlink(tmp) != 0) return -1;
  if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) return 0;
  int again = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (again < 0 || dup2(again, fd) < 0) { /* the name is gone: the caller's write fails */
    if (again >= 0) close(again);
    return -1;
  }
  close(again);
  return -1;
#else
  (void)tmp, (void)fd, (void)pc, (void)np;
  return -1;
#endif
}

/* Writes data to a new temporary file next to path (rename() is atomic only within one file
 * system); *tmp_out gets its malloc'ed name. Returns 0, -1 (reported; nothing left) or -2
 * (out of memory, reported). */
static int write_temp(const char *path, const tfx_wpiece *pc, size_t np, char **tmp_out, tfx_diag *d) {
  *tmp_out = NULL;
  size_t pl = strlen(path);
  char *tmp = tfx_malloc(pl + 16);
  if (!tmp) {
    tfx_error(d, path, 0, 0, "out of memory");
    return -2;
  }
  memcpy(tmp, path, pl);
  memcpy(tmp + pl, ".tmp.XXXXXX", 12);
  int fd = fi_mkstemp(tmp);
  if (fd < 0) {
    tfx_error(d, path, 0, 0, "cannot create output: %s", strerror(errno));
    free(tmp);
    return -1;
  }
  int adopted = adopt_spill(tmp, fd, pc, np);
  if (adopted == 0) {
    close(fd); /* the name now holds the spill file itself (fchmod'ed and named by adopt_spill) */
    *tmp_out = tmp;
    return 0;
  }
  if (adopted == -2) goto fail;
  if (write_pieces(fd, pc, np) != 0) goto fail;
  if (fi_fchmod(fd, 0644) != 0) goto fail;
  int cfd = fd;
  fd = -1;
  if (fi_close(cfd) != 0) goto fail; /* the fd is closed even when this fails */
  *tmp_out = tmp;
  return 0;
fail: {
  int err = errno;
  tfx_error(d, path, 0, 0, "cannot write output: %s", strerror(err));
  if (fd >= 0) close(fd);
  unlink(tmp);
  free(tmp);
  return -1;
}
}

static int to_stdout(void *ctx, const char *p, size_t n) {
  (void)ctx;
  return fwrite(p, 1, n, stdout) == n ? 0 : -1;
}

static int write_stdout(const tfx_wpiece *pc, size_t np, tfx_diag *d) {
  if (wf_step()) {
    tfx_error(d, "<stdout>", 0, 0, "write error: %s", strerror(EIO));
    return -1;
  }
  int bad = 0;
  for (size_t i = 0; i < np && !bad; i++)
    bad = pc[i].fd1 ? copy_buffered(pc[i].fd1 - 1, pc[i].off, pc[i].len, to_stdout, NULL) != 0
                    : pc[i].len && fwrite(pc[i].data, 1, pc[i].len, stdout) != pc[i].len;
  if (bad || fflush(stdout) != 0) {
    tfx_error(d, "<stdout>", 0, 0, "write error: %s", strerror(errno));
    return -1;
  }
  return 0;
}

enum { TARGET_FILE, TARGET_STDOUT, TARGET_DIRECT };

/* How path is written: through a temp file and rename, to stdout ("-"), or directly (an
 * existing device or FIFO: /dev/null, /dev/stdout, a pipe; renaming a temp file over it would
 * replace the device node). -1 for a directory (reported). */
static int target_kind(const char *path, tfx_diag *d) {
  if (strcmp(path, "-") == 0) return TARGET_STDOUT;
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      tfx_error(d, path, 0, 0, "cannot write output: is a directory");
      return -1;
    }
    return TARGET_DIRECT;
  }
  return TARGET_FILE;
}

tfx_status tfx_write_file_atomic(const char *path, const void *data, size_t len, tfx_diag *d) {
  return tfx_write_files_atomic(1, &path, &data, &len, d);
}

tfx_status tfx_write_files_atomic(size_t n, const char *const *paths, const void *const *data,
                                  const size_t *lens, tfx_diag *d) {
  if (n == 0) return TFX_OK;
  tfx_wpiece *pc = tfx_calloc(n, sizeof *pc);
  const tfx_wpiece **pcs = tfx_calloc(n, sizeof *pcs);
  size_t *nps = tfx_calloc(n, sizeof *nps);
  tfx_status rc = TFX_E_NOMEM;
  if (!pc || !pcs || !nps) {
    tfx_error(d, paths[0], 0, 0, "out of memory");
  } else {
    for (size_t i = 0; i < n; i++) {
      pc[i].data = data[i];
      pc[i].len = lens[i];
      pcs[i] = &pc[i];
      nps[i] = 1;
    }
    rc = tfx_write_files_atomic_pieces(n, paths, pcs, nps, d);
  }
  free(pc);
  free(pcs);
  free(nps);
  return rc;
}

tfx_status tfx_write_files_atomic_pieces(size_t n, const char *const *paths,
                                         const tfx_wpiece *const *pieces, const size_t *n_pieces,
                                         tfx_diag *d) {
#ifdef TFXC_FAULT_INJECTION
  wf->enospc = 0;
#endif
  if (n == 0) return TFX_OK;
  char **tmp = tfx_calloc(n, sizeof *tmp);
  int *kind = tfx_calloc(n, sizeof *kind);
  tfx_status rc = TFX_E_INPUT;
  size_t renamed = 0;
  if (!tmp || !kind) {
    tfx_error(d, paths[0], 0, 0, "out of memory");
    rc = TFX_E_NOMEM;
    goto out;
  }
  for (size_t i = 0; i < n; i++)
    if ((kind[i] = target_kind(paths[i], d)) < 0) goto out;
  /* 1. every regular file into its temp file */
  for (size_t i = 0; i < n; i++) {
    int wt = kind[i] == TARGET_FILE ? write_temp(paths[i], pieces[i], n_pieces[i], &tmp[i], d) : 0;
    if (wt != 0) {
      if (wt == -2) rc = TFX_E_NOMEM;
      goto out;
    }
  }
  /* 2. what cannot be taken back: standard output, devices and FIFOs */
  for (size_t i = 0; i < n; i++) {
    if (kind[i] == TARGET_STDOUT && write_stdout(pieces[i], n_pieces[i], d) != 0) goto out;
    if (kind[i] == TARGET_DIRECT && write_direct(paths[i], pieces[i], n_pieces[i], d) != 0) goto out;
  }
  /* 3. rename into place, in order */
  for (size_t i = 0; i < n; i++) {
    if (kind[i] != TARGET_FILE) continue;
    if (fi_rename(tmp[i], paths[i]) != 0) {
      tfx_error(d, paths[i], 0, 0, "cannot write output: %s", strerror(errno));
      goto out;
    }
    free(tmp[i]);
    tmp[i] = NULL;
    renamed = i + 1;
  }
  rc = TFX_OK;
out:
  if (rc != TFX_OK) {
    /* all or nothing: the files this call already put in place go again */
    for (size_t i = 0; i < renamed; i++)
      if (kind[i] == TARGET_FILE) unlink(paths[i]);
  }
  for (size_t i = 0; tmp && i < n; i++) {
    if (tmp[i]) unlink(tmp[i]);
    free(tmp[i]);
  }
  free(tmp);
  free(kind);
  return rc;
}
