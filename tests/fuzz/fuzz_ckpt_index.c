/* Fuzz target: tensor bundle bytes -> the checkpoint reader (src/ckpt).
 * First byte even: the rest is a PREFIX.index file for tfx_ckpt_parse_index (footer, block
 * trailers and checksums, snappy blocks, prefix-compressed keys, restart arrays, header and
 * entry protos). An accepted index must hold strictly increasing names, each found again by
 * tfx_ckpt_find, a shard count >= 1, every unsliced entry in a shard below it, and
 * describe-able shapes. First byte odd: byte 2 is an element count n, the rest a data shard
 * holding one string tensor of n elements (TF's string layout) whose entry crc is taken from
 * the last 4 bytes: tfx_ckpt_strings must either refuse it (reported) or return n strings that
 * lie inside the shard and add up to its size. Failures must be reported, never crash. */
#include "fuzz_common.h"

#include "ckpt/ckpt.h"
#include "tfxc/tfxc.h"

static void fuzz_index(const uint8_t *data, size_t size) {
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ckpt c;
  tfx_ckpt_init(&c);
  int rc = tfx_ckpt_parse_index(&c, data, size, "fuzz.index", &d);
  fuzz_diag_dump(&d);
  if (rc == 0) {
    FUZZ_CHECK(c.num_shards >= 1, "num_shards %u", c.num_shards);
    for (size_t i = 0; i < c.n; i++) {
      const tfx_ckpt_tensor *t = &c.t[i];
      /* keys are compared as bytes; a NUL inside a key cuts its C string short */
      if (i) FUZZ_CHECK(strcmp(c.t[i - 1].name, t->name) <= 0, "names out of order at %zu", i);
      FUZZ_CHECK(tfx_ckpt_find(&c, t->name) != NULL, "find %s", t->name);
      FUZZ_CHECK(t->n_slices || t->shard < c.num_shards, "shard %u of %u", t->shard, c.num_shards);
      char buf[64];
      tfx_ckpt_describe(t, buf, sizeof buf);
      FUZZ_CHECK(strlen(buf) < sizeof buf, "describe");
    }
  } else {
    FUZZ_CHECK(d.errors > 0, "failure without a message (rc %d)", rc);
  }
  tfx_ckpt_free(&c);
  tfx_diag_free(&d);
}

static void fuzz_strings(const uint8_t *data, size_t size) {
  if (size < 5) return;
  unsigned n = data[0];
  const uint8_t *shard = data + 1;
  size_t len = size - 5;
  uint32_t crc = (uint32_t)data[size - 4] | (uint32_t)data[size - 3] << 8 |
                 (uint32_t)data[size - 2] << 16 | (uint32_t)data[size - 1] << 24;
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ckpt c;
  tfx_ckpt_init(&c);
  tfx_ckpt_shard sh = {.path = "fuzz.data", .data = shard, .len = len, .mapped = 1};
  int64_t dim = n;
  tfx_ckpt_tensor t = {.name = "s", .dtype = 7, .rank = 1, .dims = &dim, .elems = n,
                       .offset = 0, .size = len, .crc = crc};
  c.num_shards = 1;
  c.shards = &sh;
  c.index_path = "fuzz.index";
  const uint8_t **s;
  size_t *l;
  int rc = tfx_ckpt_strings(&c, &t, &s, &l, &d);
  fuzz_diag_dump(&d);
  if (rc == 0) {
    size_t total = 0;
    for (unsigned i = 0; i < n; i++) {
      FUZZ_CHECK(s[i] >= shard && l[i] <= len && s[i] + l[i] <= shard + len, "string %u out of the shard", i);
      total += l[i];
    }
    FUZZ_CHECK(total <= len, "strings longer than the shard");
  } else {
    FUZZ_CHECK(d.errors > 0, "failure without a message (rc %d)", rc);
  }
  c.shards = NULL; /* not mapped: nothing to unmap */
  tfx_ckpt_free(&c);
  tfx_diag_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  if (data[0] & 1) fuzz_strings(data + 1, size - 1);
  else fuzz_index(data + 1, size - 1);
  return 0;
}
