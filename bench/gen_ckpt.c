/* tfxc_bench_gen_ckpt: writes a synthetic TF1 model with its checkpoint, for the freezing
 * benchmark. Stage: bench (not part of tfxc). Input: the number of variables K and the side S
 * of each (a float [S, S] matrix), a seed. Output: STEM.pbtxt (a text GraphDef: K VariableV2
 * nodes with their Identity reads, summed by one AddN named "out") and the tensor bundle
 * STEM.index + STEM.data-00000-of-00001 holding their values (K * S * S * 4 bytes; the default
 * 64 x 2048^2 floats is 1 GiB). The bundle is written the way TensorFlow writes one: an
 * uncompressed LevelDB table (4 KiB data blocks, restart interval 16, index block, empty
 * metaindex block, footer with the magic number), a BundleHeaderProto under the empty key and
 * one BundleEntryProto per variable with its masked crc32c. Same (K, S, seed) -> same bytes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt/ckpt.h"
#include "io/io.h"
#include "tensorflow/tensor_bundle.pb-c.h"
#include "util/strbuf.h"

/* ---- a minimal LevelDB table writer ---- */

typedef struct blk {
  tfx_strbuf b;
  uint32_t restarts[4096];
  size_t nr, count;
  char last[256];
  size_t last_len;
} blk;

static void put_varint(tfx_strbuf *s, uint64_t v) {
  while (v >= 0x80) {
    tfx_sb_putc(s, (char)(v | 0x80));
    v >>= 7;
  }
  tfx_sb_putc(s, (char)v);
}

static void put32(tfx_strbuf *s, uint32_t v) {
  for (int i = 0; i < 4; i++) tfx_sb_putc(s, (char)(v >> (8 * i)));
}

static void blk_add(blk *k, const char *key, size_t klen, const void *val, size_t vlen) {
  size_t shared = 0;
  if (k->count % 16 == 0) k->restarts[k->nr++] = (uint32_t)k->b.len;
  else
    while (shared < klen && shared < k->last_len && k->last[shared] == key[shared]) shared++;
  put_varint(&k->b, shared);
  put_varint(&k->b, klen - shared);
  put_varint(&k->b, vlen);
  tfx_sb_add(&k->b, key + shared, klen - shared);
  tfx_sb_add(&k->b, val, vlen);
  memcpy(k->last, key, klen);
  k->last_len = klen;
  k->count++;
}

/* Appends the block with its trailer to out; *off and *size get its handle; resets k. */
static void blk_flush(blk *k, tfx_strbuf *out, uint64_t *off, uint64_t *size) {
  if (k->nr == 0) k->restarts[k->nr++] = 0;
  for (size_t i = 0; i < k->nr; i++) put32(&k->b, k->restarts[i]);
  put32(&k->b, (uint32_t)k->nr);
  *off = out->len;
  *size = k->b.len;
  tfx_sb_add(out, k->b.data, k->b.len);
  uint8_t type = 0;
  uint32_t crc = tfx_crc32c_mask(tfx_crc32c_extend(tfx_crc32c(k->b.data, k->b.len), &type, 1));
  tfx_sb_putc(out, 0);
  put32(out, crc);
  tfx_sb_free(&k->b);
  tfx_sb_init(&k->b);
  k->nr = k->count = 0;
  k->last_len = 0;
}

static uint64_t rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int main(int argc, char **argv) {
  unsigned k = 64, side = 2048;
  uint64_t seed = 1;
  const char *stem = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-k") && i + 1 < argc) k = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "-n") && i + 1 < argc) side = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "-s") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) stem = argv[++i];
    else {
      fprintf(stderr, "usage: tfxc_bench_gen_ckpt [-k VARIABLES] [-n SIDE] [-s SEED] -o STEM\n"
                      "  K float [SIDE, SIDE] variables (default 64 x 2048^2 = 1 GiB)\n");
      return 2;
    }
  }
  if (!stem || k == 0 || k > 100000 || side == 0 || side > 65536) {
    fprintf(stderr, "tfxc_bench_gen_ckpt: -o STEM is required; 1 <= K <= 100000, 1 <= SIDE <= 65536\n");
    return 2;
  }
  char path[4096];
  /* the graph */
  snprintf(path, sizeof path, "%s.pbtxt", stem);
  FILE *g = fopen(path, "w");
  if (!g) {
    fprintf(stderr, "%s: %s\n", path, strerror(errno));
    return 1;
  }
  for (unsigned i = 0; i < k; i++) {
    fprintf(g, "node { name: \"v%05u\" op: \"VariableV2\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
               "  attr { key: \"shape\" value { shape { dim { size: %u } dim { size: %u } } } } }\n",
            i, side, side);
    fprintf(g, "node { name: \"v%05u/read\" op: \"Identity\" input: \"v%05u\" "
               "attr { key: \"T\" value { type: DT_FLOAT } } }\n", i, i);
  }
  fprintf(g, "node { name: \"out\" op: \"AddN\"");
  for (unsigned i = 0; i < k; i++) fprintf(g, " input: \"v%05u/read\"", i);
  fprintf(g, " attr { key: \"N\" value { i: %u } } attr { key: \"T\" value { type: DT_FLOAT } } }\n", k);
  if (fclose(g) != 0) return 1;
  /* the data shard, tensor by tensor in name order */
  snprintf(path, sizeof path, "%s.data-00000-of-00001", stem);
  FILE *dfile = fopen(path, "wb");
  if (!dfile) {
    fprintf(stderr, "%s: %s\n", path, strerror(errno));
    return 1;
  }
  size_t n = (size_t)side * side;
  float *buf = malloc(n * sizeof *buf);
  uint32_t *crcs = malloc(k * sizeof *crcs);
  if (!buf || !crcs) return 1;
  uint64_t rng = seed;
  for (unsigned i = 0; i < k; i++) {
    for (size_t j = 0; j < n; j++)
      buf[j] = (float)((double)(rng_next(&rng) >> 40) / (double)(1u << 24)) - 0.5f;
    crcs[i] = tfx_crc32c_mask(tfx_crc32c(buf, n * sizeof *buf));
    if (fwrite(buf, sizeof *buf, n, dfile) != n) return 1;
  }
  free(buf);
  if (fclose(dfile) != 0) return 1;
  /* the index table */
  tfx_strbuf out;
  tfx_sb_init(&out);
  blk data = {0}, index = {0};
  tfx_sb_init(&data.b);
  tfx_sb_init(&index.b);
  uint64_t off, size;
  char key[64];
  tfx_strbuf val;
  tfx_sb_init(&val);
  Tensorflow__BundleHeaderProto h = TENSORFLOW__BUNDLE_HEADER_PROTO__INIT;
  h.num_shards = 1;
  tfx_io_pack(&h.base, &val);
  blk_add(&data, "", 0, val.data, val.len);
  Tensorflow__TensorShapeProto__Dim d0 = TENSORFLOW__TENSOR_SHAPE_PROTO__DIM__INIT, d1 = d0;
  d0.size = d1.size = side;
  Tensorflow__TensorShapeProto__Dim *dims[2] = {&d0, &d1};
  Tensorflow__TensorShapeProto shape = TENSORFLOW__TENSOR_SHAPE_PROTO__INIT;
  shape.n_dim = 2;
  shape.dim = dims;
  for (unsigned i = 0; i < k; i++) {
    Tensorflow__BundleEntryProto e = TENSORFLOW__BUNDLE_ENTRY_PROTO__INIT;
    e.dtype = TENSORFLOW__DATA_TYPE__DT_FLOAT;
    e.shape = &shape;
    e.offset = (int64_t)i * (int64_t)(n * 4);
    e.size = (int64_t)(n * 4);
    e.crc32c = crcs[i];
    val.len = 0;
    tfx_io_pack(&e.base, &val);
    int kl = snprintf(key, sizeof key, "v%05u", i);
    blk_add(&data, key, (size_t)kl, val.data, val.len);
    if (data.b.len >= 4096 || i + 1 == k) {
      char hv[32];
      tfx_strbuf hs;
      tfx_sb_init(&hs);
      blk_flush(&data, &out, &off, &size);
      put_varint(&hs, off);
      put_varint(&hs, size);
      memcpy(hv, hs.data, hs.len);
      blk_add(&index, key, (size_t)kl, hv, hs.len); /* the last key of the block separates */
      tfx_sb_free(&hs);
    }
  }
  uint64_t moff, msize, ioff, isize;
  blk meta = {0};
  tfx_sb_init(&meta.b);
  blk_flush(&meta, &out, &moff, &msize);
  blk_flush(&index, &out, &ioff, &isize);
  size_t fstart = out.len;
  put_varint(&out, moff);
  put_varint(&out, msize);
  put_varint(&out, ioff);
  put_varint(&out, isize);
  while (out.len < fstart + 40) tfx_sb_putc(&out, 0);
  put32(&out, 0x8b80fb57u);
  put32(&out, 0xdb477524u);
  snprintf(path, sizeof path, "%s.index", stem);
  FILE *ix = fopen(path, "wb");
  if (!ix || out.oom || fwrite(out.data, 1, out.len, ix) != out.len || fclose(ix) != 0) {
    fprintf(stderr, "%s: write failed\n", path);
    return 1;
  }
  tfx_sb_free(&out);
  tfx_sb_free(&val);
  free(crcs);
  return 0;
}
