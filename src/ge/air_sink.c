/* The streamed .air's spill file (air_sink.h).
 *
 * Why: streaming lowering (lower.c) writes each op's record once, but the records cannot go to
 * the output as they come: the model's and the main graph's fields come first in the file, and
 * the graph's length and its output names are known only when the last node is lowered. The
 * records used to stay in memory until then (0.45 GB at 10^6 nodes). They now go to a file
 * with no name (O_TMPFILE) in the output's directory, through a 1 MiB buffer; when every check
 * has passed, emit-ge writes the output's temp file as the fields, then the records copied in
 * the kernel from the spill file (copy_file_range: no user-space copy and no anonymous pages),
 * and renames it. A file with no name disappears when it is closed or tfxc dies, so a failed
 * or killed run leaves nothing of it; the output's own temp file exists only while emit-ge
 * writes it, as for every other output (util/fileio.c; docs/CLI.md "Output files").
 *
 * The copy itself (0.26-0.39 s for the 447 MB at 10^6 nodes) is avoided when lowering plans
 * the fields' size (lower.c plan_air, air_write.c tfx_ge_air_stream_plan): the main graph's
 * output names (GraphDef.output, one per NetOutput input, known for certain only after the
 * last node) are predicted after phase 1 from the TF consumer lists, the varint of the graph's
 * length from the op count. The spill file then starts with that much room (a sparse gap,
 * tfx_ge_air_spill_reserve); when finish finds the guess exact, the fields are written into it
 * (tfx_ge_air_spill_head) and the spill file is the whole .air, which the atomic writer links
 * into the output's directory as its temp file (util/fileio.c adopt_spill) instead of copying.
 * A wrong guess costs only the copy: the pieces then skip the gap. bench/RESULTS.md (issue 16,
 * branches airfile and emitcopy) has the figures. */
#include "ge/air_sink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "util/arena.h"
#include "util/fileio.h"

#define SPILL_BUF ((size_t)1 << 20)

struct tfx_ge_air_spill {
  int fd;
  uint8_t *buf;
  size_t used;
  uint64_t pos; /* bytes appended */
  int err;      /* errno of the first failed write; 0 none */
};

tfx_ge_air_spill *tfx_ge_air_spill_open(const char *target) {
  int fd = tfx_spill_open(target);
  if (fd < 0) return NULL;
  tfx_ge_air_spill *sp = tfx_calloc(1, sizeof *sp);
  uint8_t *buf = tfx_malloc(SPILL_BUF);
  if (!sp || !buf) {
    free(sp);
    free(buf);
    close(fd);
    return NULL;
  }
  sp->fd = fd;
  sp->buf = buf;
  return sp;
}

static void spill_write(tfx_ge_air_spill *sp, const void *p, size_t n) {
  if (!sp->err && n && tfx_write_all(sp->fd, p, n) != 0) sp->err = errno ? errno : EIO;
}

void tfx_ge_air_spill_put(tfx_ge_air_spill *sp, const void *p, size_t n) {
  sp->pos += n;
  if (sp->err) return;
  if (n > SPILL_BUF - sp->used) {
    spill_write(sp, sp->buf, sp->used);
    sp->used = 0;
    if (n >= SPILL_BUF) { /* a large record (a Const's weights): straight to the file */
      spill_write(sp, p, n);
      return;
    }
  }
  memcpy(sp->buf + sp->used, p, n);
  sp->used += n;
}

uint64_t tfx_ge_air_spill_pos(const tfx_ge_air_spill *sp) { return sp->pos; }

int tfx_ge_air_spill_reserve(tfx_ge_air_spill *sp, uint64_t n) {
  if (sp->pos || sp->used || sp->err || n > (uint64_t)INT64_MAX) return -1;
  if (lseek(sp->fd, (off_t)n, SEEK_SET) == (off_t)-1) return -1;
  sp->pos = n;
  return 0;
}

int tfx_ge_air_spill_head(int fd, const void *p, size_t n) {
  if (lseek(fd, 0, SEEK_SET) == (off_t)-1) return -1;
  return tfx_write_all(fd, p, n);
}

int tfx_ge_air_spill_end(tfx_ge_air_spill *sp, int *err) {
  spill_write(sp, sp->buf, sp->used);
  sp->used = 0;
  int fd = sp->fd;
  *err = sp->err;
  if (sp->err) close(fd);
  free(sp->buf);
  free(sp);
  return *err ? -1 : fd;
}

void tfx_ge_air_spill_free(tfx_ge_air_spill *sp) {
  if (!sp) return;
  close(sp->fd);
  free(sp->buf);
  free(sp);
}
