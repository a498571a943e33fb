/* `tfxc inspect PREFIX`: the tensors of a checkpoint (tensor bundle) without a graph.
 * Stage: cli. Input: a checkpoint prefix (PREFIX.index + PREFIX.data-*; "PREFIX.index" is
 * accepted too). Output on stdout, in the index order (sorted by name): one line per tensor
 * with dtype, shape and byte size, or one JSON object with --json. Every tensor's bytes are
 * read and checked (bounds, crc32c, string layout) first, so a listing that succeeds is a
 * checkpoint the conversion can read; a damaged one is exit 3 with the tensor and file named. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt/ckpt.h"
#include "cli/cli.h"
#include "tfxc/tfxc.h"
#include "util/strbuf.h"

int tfx_cli_inspect_is_ckpt(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return 0;
  size_t n = strlen(path);
  if (n > 6 && strcmp(path + n - 6, ".index") == 0) return 1;
  return stat(path, &st) != 0 && tfx_ckpt_exists(path);
}

static void hex(tfx_strbuf *sb, const uint8_t *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  tfx_sb_putc(sb, '"');
  for (size_t i = 0; i < n; i++) {
    tfx_sb_putc(sb, digits[p[i] >> 4]);
    tfx_sb_putc(sb, digits[p[i] & 15]);
  }
  tfx_sb_putc(sb, '"');
}

/* "data": the bytes in hex; strings: "strings": [hex per element]. */
static int json_values(tfx_ckpt *c, const tfx_ckpt_tensor *t, tfx_strbuf *sb, tfx_diag *d) {
  if (t->n_slices) return 0;
  if (t->dtype == 7) {
    const uint8_t **s;
    size_t *l;
    int rc = tfx_ckpt_strings(c, t, &s, &l, d);
    if (rc) return rc;
    tfx_sb_puts(sb, ", \"strings\": [");
    for (int64_t i = 0; i < t->elems; i++) {
      if (i) tfx_sb_puts(sb, ", ");
      hex(sb, s[i], l[i]);
    }
    tfx_sb_putc(sb, ']');
    return 0;
  }
  const uint8_t *p;
  size_t n;
  int rc = tfx_ckpt_bytes(c, t, &p, &n, d);
  if (rc) return rc;
  tfx_sb_puts(sb, ", \"data\": ");
  hex(sb, p, n);
  return 0;
}

int tfx_cli_inspect_ckpt(const char *path, int json, size_t max_file_size, tfx_diag *d) {
  int values = json >> 1;
  json &= 1;
  char *prefix = strdup(path);
  if (!prefix) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    return TFX_EXIT_FAIL;
  }
  size_t pn = strlen(prefix);
  if (pn > 6 && strcmp(prefix + pn - 6, ".index") == 0) prefix[pn - 6] = 0;
  tfx_ckpt c;
  tfx_ckpt_init(&c);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  int rc = tfx_ckpt_open(&c, prefix, max_file_size, d);
  for (size_t i = 0; rc == 0 && i < c.n; i++) {
    const tfx_ckpt_tensor *t = &c.t[i];
    if (t->n_slices) continue; /* listed; its slices are entries of their own */
    if (t->dtype == 7) {
      const uint8_t **s;
      size_t *l;
      rc = tfx_ckpt_strings(&c, t, &s, &l, d);
    } else {
      const uint8_t *p;
      size_t n;
      rc = tfx_ckpt_bytes(&c, t, &p, &n, d);
    }
  }
  if (rc) goto done;
  if (json) {
    tfx_sb_puts(&sb, "{\n  \"checkpoint\": ");
    tfx_sb_json_str(&sb, prefix, strlen(prefix));
    tfx_sb_printf(&sb, ",\n  \"shards\": %u,\n  \"tensors\": [", c.num_shards);
    for (size_t i = 0; i < c.n; i++) {
      const tfx_ckpt_tensor *t = &c.t[i];
      tfx_sb_puts(&sb, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
      tfx_sb_json_str(&sb, t->name, strlen(t->name));
      tfx_sb_printf(&sb, ", \"dtype\": \"%s\", \"shape\": ", tfx_ckpt_dtype_name(t->dtype));
      if (t->unknown_rank) tfx_sb_puts(&sb, "null");
      else {
        tfx_sb_putc(&sb, '[');
        for (uint32_t k = 0; k < t->rank; k++)
          tfx_sb_printf(&sb, "%s%lld", k ? ", " : "", (long long)t->dims[k]);
        tfx_sb_putc(&sb, ']');
      }
      tfx_sb_printf(&sb, ", \"bytes\": %llu, \"shard\": %u, \"slices\": %u",
                    (unsigned long long)t->size, t->shard, t->n_slices);
      if (values && (rc = json_values(&c, t, &sb, d)) != 0) goto done;
      tfx_sb_putc(&sb, '}');
    }
    tfx_sb_puts(&sb, c.n ? "\n  ]\n}\n" : "]\n}\n");
  } else {
    uint64_t total = 0;
    size_t w = 4;
    for (size_t i = 0; i < c.n; i++) {
      total += c.t[i].size;
      if (strlen(c.t[i].name) > w) w = strlen(c.t[i].name);
    }
    if (w > 60) w = 60;
    tfx_sb_printf(&sb, "checkpoint: %s\nshards:     %u\ntensors:    %zu (%llu bytes)\n", prefix,
                  c.num_shards, c.n, (unsigned long long)total);
    if (c.n_slice_parts)
      tfx_sb_printf(&sb, "slices:     %zu (parts of partitioned variables, not listed)\n",
                    c.n_slice_parts);
    for (size_t i = 0; i < c.n; i++) {
      char desc[512];
      tfx_ckpt_describe(&c.t[i], desc, sizeof desc);
      tfx_sb_printf(&sb, "  %-*s  %s  %llu bytes", (int)w, c.t[i].name, desc,
                    (unsigned long long)c.t[i].size);
      if (c.t[i].n_slices) tfx_sb_printf(&sb, "  (partitioned: %u slices)", c.t[i].n_slices);
      tfx_sb_putc(&sb, '\n');
    }
  }
  if (sb.oom) {
    tfx_error(d, NULL, 0, 0, "out of memory rendering the listing");
    rc = TFX_EXIT_FAIL;
  } else rc = tfx_cli_write_stdout(sb.data, sb.len, d);
done:
  tfx_sb_free(&sb);
  tfx_ckpt_free(&c);
  free(prefix);
  return rc;
}
