/* Tensor bundle reader: the PREFIX.index table and the data shards (see ckpt.h).
 * Stage: ckpt. Input: the index bytes (read whole: it is small) and the shard files (mapped
 * read-only on first use). Output: tfx_ckpt entries; tensor bytes checked against bounds and
 * crc32c. Every length and offset read from the files is checked before it is used. */
#define _POSIX_C_SOURCE 200809L
#include "ckpt/ckpt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/io.h"
#include "tensorflow/tensor_bundle.pb-c.h"
#include "util/status.h"
#include "util/fileio.h"

#define TABLE_MAGIC 0xdb4775248b80fb57ull
#define FOOTER_LEN 48u
#define TRAILER_LEN 5u /* compression type byte + masked crc32c */
#define MAX_SHARDS 100000
#define MAX_RANK 64

/* ---- dtypes ---- */

static const struct {
  int dtype;
  const char *name;
  unsigned size;
} dtypes[] = {
  {1, "float", 4},    {2, "double", 8},   {3, "int32", 4},     {4, "uint8", 1},
  {5, "int16", 2},    {6, "int8", 1},     {7, "string", 0},    {8, "complex64", 8},
  {9, "int64", 8},    {10, "bool", 1},    {11, "qint8", 1},    {12, "quint8", 1},
  {13, "qint32", 4},  {14, "bfloat16", 2}, {15, "qint16", 2},  {16, "quint16", 2},
  {17, "uint16", 2},  {18, "complex128", 16}, {19, "half", 2}, {20, "resource", 0},
  {21, "variant", 0}, {22, "uint32", 4},  {23, "uint64", 8},   {24, "float8_e5m2", 1},
  {25, "float8_e4m3fn", 1},
};

size_t tfx_ckpt_dtype_size(int dtype) {
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
    if (dtypes[i].dtype == dtype) return dtypes[i].size;
  return 0;
}

const char *tfx_ckpt_dtype_name(int dtype) {
  static _Thread_local char buf[32];
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
    if (dtypes[i].dtype == dtype) return dtypes[i].name;
  snprintf(buf, sizeof buf, "dtype(%d)", dtype);
  return buf;
}

void tfx_ckpt_describe(const tfx_ckpt_tensor *t, char *buf, size_t n) {
  size_t k = (size_t)snprintf(buf, n, "%s ", tfx_ckpt_dtype_name(t->dtype));
  if (k >= n) return;
  if (t->unknown_rank) {
    snprintf(buf + k, n - k, "[?]");
    return;
  }
  k += (size_t)snprintf(buf + k, n - k, "[");
  for (uint32_t i = 0; i < t->rank && k < n; i++)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "," : "", (long long)t->dims[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* ---- little helpers over untrusted bytes ---- */

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

/* Reads a varint of at most 10 bytes from [*p, end). Returns 0 or -1. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 70 && *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    if (shift == 63 && b > 1) return -1;
    r |= (uint64_t)(b & 0x7F) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return 0;
    }
  }
  return -1;
}

void tfx_ckpt_init(tfx_ckpt *c) {
  memset(c, 0, sizeof *c);
  tfx_arena_init(&c->arena);
}

void tfx_ckpt_free(tfx_ckpt *c) {
  if (c->shards)
    for (uint32_t i = 0; i < c->num_shards; i++)
      if (c->shards[i].data && c->shards[i].len) munmap((void *)c->shards[i].data, c->shards[i].len);
  tfx_arena_free(&c->arena);
  memset(c, 0, sizeof *c);
  tfx_arena_init(&c->arena);
}

/* ---- the table ---- */

typedef struct table_rd {
  tfx_ckpt *c;
  const uint8_t *buf;
  size_t len;
  const char *fname;
  tfx_diag *d;
  uint8_t *last;          /* previous key (malloc'ed), for the order check */
  size_t last_len, last_cap;
  int have_last, have_header;
  size_t cap;             /* of c->t */
} table_rd;

/* Snappy (the one compression LevelDB tables of old TensorFlow versions used): a varint
 * length, then literals and back-references. Returns a malloc'ed buffer or NULL (*err set:
 * 1 malformed, 2 out of memory). */
static uint8_t *snappy_decode(const uint8_t *p, size_t n, size_t *out_len, int *err) {
  const uint8_t *end = p + n;
  uint64_t ulen;
  *err = 1;
  if (varint(&p, end, &ulen) || ulen > ((uint64_t)1 << 32)) return NULL;
  uint8_t *o = tfx_malloc(ulen ? (size_t)ulen : 1);
  if (!o) {
    *err = 2;
    return NULL;
  }
  size_t w = 0;
  while (p < end) {
    uint8_t tag = *p++;
    size_t len, off = 0;
    switch (tag & 3) {
    case 0:
      len = (size_t)(tag >> 2) + 1;
      if (len > 60) {
        size_t nb = len - 60;
        if ((size_t)(end - p) < nb) goto bad;
        len = 0;
        for (size_t k = 0; k < nb; k++) len |= (size_t)p[k] << (8 * k);
        len += 1;
        p += nb;
      }
      if ((size_t)(end - p) < len || ulen - w < len) goto bad;
      memcpy(o + w, p, len);
      p += len;
      w += len;
      continue;
    case 1:
      if (p >= end) goto bad;
      len = (size_t)((tag >> 2) & 7) + 4;
      off = (size_t)(tag >> 5) << 8 | *p++;
      break;
    case 2:
      if (end - p < 2) goto bad;
      len = (size_t)(tag >> 2) + 1;
      off = (size_t)p[0] | (size_t)p[1] << 8;
      p += 2;
      break;
    default:
      if (end - p < 4) goto bad;
      len = (size_t)(tag >> 2) + 1;
      off = le32(p);
      p += 4;
      break;
    }
    if (off == 0 || off > w || ulen - w < len) goto bad;
    for (size_t k = 0; k < len; k++, w++) o[w] = o[w - off]; /* may overlap: byte by byte */
  }
  if (w != ulen) goto bad;
  *out_len = w;
  *err = 0;
  return o;
bad:
  free(o);
  return NULL;
}

/* A block's contents after checking its trailer: *contents points into the file, or into
 * *owned (malloc'ed, the caller frees) when the block was compressed. */
static int read_block(table_rd *r, uint64_t off, uint64_t size, const char *what,
                      const uint8_t **contents, size_t *clen, uint8_t **owned) {
  *owned = NULL;
  if (off > r->len || size > r->len - off || r->len - off - size < TRAILER_LEN) {
    tfx_error(r->d, r->fname, 0, 0, "%s block (offset %llu, %llu bytes) runs past the end of the "
              "file (%zu bytes): truncated index", what, (unsigned long long)off,
              (unsigned long long)size, r->len);
    return TFX_E_INPUT;
  }
  const uint8_t *b = r->buf + off;
  uint8_t type = b[size];
  uint32_t want = le32(b + size + 1);
  uint32_t got = tfx_crc32c_mask(tfx_crc32c_extend(tfx_crc32c(b, (size_t)size), &type, 1));
  if (want != got) {
    tfx_error(r->d, r->fname, 0, 0, "%s block at offset %llu: crc32c mismatch (stored %08x, "
              "computed %08x): the index is corrupt", what, (unsigned long long)off, want, got);
    return TFX_E_INPUT;
  }
  if (type == 1) {
    int err;
    *owned = snappy_decode(b, (size_t)size, clen, &err);
    if (!*owned) {
      if (err == 2) tfx_error(r->d, r->fname, 0, 0, "out of memory");
      else
        tfx_error(r->d, r->fname, 0, 0, "%s block at offset %llu: malformed snappy compression",
                  what, (unsigned long long)off);
      return err == 2 ? TFX_E_NOMEM : TFX_E_INPUT;
    }
    *contents = *owned;
    return 0;
  }
  if (type != 0) {
    tfx_error(r->d, r->fname, 0, 0, "%s block at offset %llu uses compression type %u; only "
              "uncompressed and snappy-compressed tables are read", what,
              (unsigned long long)off, type);
    return TFX_E_INPUT;
  }
  *contents = b;
  *clen = (size_t)size;
  return 0;
}

typedef int (*entry_fn)(table_rd *r, const uint8_t *key, size_t klen, const uint8_t *val,
                        size_t vlen);

/* Walks the entries of the block at [off, off+size): prefix-compressed keys, restart array. */
static int walk_block(table_rd *r, uint64_t off, uint64_t bsize, const char *what, entry_fn fn) {
  const uint8_t *b;
  size_t size;
  uint8_t *owned;
  int rc = read_block(r, off, bsize, what, &b, &size, &owned);
  if (rc) return rc;
  uint8_t *key = NULL;
  size_t klen = 0, kcap = 0;
  if (size < 4) goto bad;
  uint32_t nr = le32(b + size - 4);
  if (nr == 0 || nr > (size - 4) / 4) goto bad;
  const uint8_t *p = b, *end = b + size - 4 - 4 * (size_t)nr;
  for (uint32_t i = 0; i < nr; i++) /* every restart offset lies inside the entry area */
    if (le32(end + 4 * (size_t)i) > (size_t)(end - b)) goto bad;
  while (p < end) {
    uint64_t shared, nonshared, vlen;
    if (varint(&p, end, &shared) || varint(&p, end, &nonshared) || varint(&p, end, &vlen) ||
        shared > klen || nonshared > (uint64_t)(end - p) || vlen > (uint64_t)(end - p) - nonshared)
      goto bad;
    size_t nk = (size_t)(shared + nonshared);
    if (nk + 1 > kcap) {
      size_t nc = kcap ? kcap : 64;
      while (nc < nk + 1) nc *= 2;
      uint8_t *k2 = tfx_realloc(key, nc);
      if (!k2) {
        tfx_error(r->d, r->fname, 0, 0, "out of memory");
        rc = TFX_E_NOMEM;
        goto out;
      }
      key = k2;
      kcap = nc;
    }
    memcpy(key + shared, p, (size_t)nonshared);
    klen = nk;
    p += nonshared;
    rc = fn(r, key, klen, p, (size_t)vlen);
    p += vlen;
    if (rc) goto out;
  }
  goto out;
bad:
  tfx_error(r->d, r->fname, 0, 0, "%s block at offset %llu is malformed (entry lengths or "
            "restart array out of range)", what, (unsigned long long)off);
  rc = TFX_E_INPUT;
out:
  free(key);
  free(owned);
  return rc;
}

static int key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  int c = memcmp(a, b, an < bn ? an : bn);
  if (c) return c;
  return an < bn ? -1 : an > bn;
}

/* Prints a key for messages (non-printable bytes as \xNN, long keys cut). */
static void key_text(const uint8_t *k, size_t n, char *buf, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n && o + 5 < cap; i++) {
    if (k[i] >= 0x20 && k[i] < 0x7F) buf[o++] = (char)k[i];
    else o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", k[i]);
  }
  buf[o] = 0;
}

static int on_header(table_rd *r, const uint8_t *val, size_t vlen) {
  tfx_arena tmp;
  tfx_arena_init(&tmp);
  tfx_status ust;
  Tensorflow__BundleHeaderProto *h = (Tensorflow__BundleHeaderProto *)tfx_io_unpack_st(
      &tensorflow__bundle_header_proto__descriptor, val, vlen, r->fname, &tmp, &ust, r->d);
  int rc = 0;
  if (!h && ust == TFX_E_NOMEM) {
    rc = TFX_E_NOMEM; /* reported */
  } else if (!h) {
    tfx_error(r->d, r->fname, 0, 0, "the bundle header (empty key) is malformed");
    rc = TFX_E_INPUT;
  } else if (h->num_shards < 1 || h->num_shards > MAX_SHARDS) {
    tfx_error(r->d, r->fname, 0, 0, "bundle header: num_shards %d is out of range (1..%d)",
              h->num_shards, MAX_SHARDS);
    rc = TFX_E_INPUT;
  } else if (h->endianness != TENSORFLOW__BUNDLE_HEADER_PROTO__ENDIANNESS__LITTLE) {
    tfx_error(r->d, r->fname, 0, 0, "bundle header: big-endian bundles are not supported");
    rc = TFX_E_INPUT;
  } else {
    r->c->num_shards = (uint32_t)h->num_shards;
    r->c->version_producer = h->version ? h->version->producer : 0;
    r->have_header = 1;
  }
  tfx_arena_free(&tmp);
  return rc;
}

static int on_entry(table_rd *r, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
  char kt[256];
  if (r->have_last && key_cmp(r->last, r->last_len, key, klen) >= 0) {
    key_text(key, klen, kt, sizeof kt);
    tfx_error(r->d, r->fname, 0, 0, "index keys out of order at '%s': the index is corrupt", kt);
    return TFX_E_INPUT;
  }
  if (klen + 1 > r->last_cap) {
    size_t nc = r->last_cap ? r->last_cap : 64;
    while (nc < klen + 1) nc *= 2;
    uint8_t *l2 = tfx_realloc(r->last, nc);
    if (!l2) goto oom;
    r->last = l2;
    r->last_cap = nc;
  }
  memcpy(r->last, key, klen);
  r->last_len = klen;
  r->have_last = 1;
  if (klen == 0) return on_header(r, val, vlen);
  if (memchr(key, 0, klen)) { /* the parts of a partitioned variable: keys start with a 0 byte */
    r->c->n_slice_parts++;
    return 0;
  }
  key_text(key, klen, kt, sizeof kt);
  tfx_arena tmp;
  tfx_arena_init(&tmp);
  tfx_status ust;
  Tensorflow__BundleEntryProto *e = (Tensorflow__BundleEntryProto *)tfx_io_unpack_st(
      &tensorflow__bundle_entry_proto__descriptor, val, vlen, r->fname, &tmp, &ust, r->d);
  if (!e) {
    tfx_arena_free(&tmp);
    if (ust == TFX_E_NOMEM) return TFX_E_NOMEM; /* reported */
    tfx_error(r->d, r->fname, 0, 0, "the entry of tensor '%s' is malformed", kt);
    return TFX_E_INPUT;
  }
  int rc = TFX_E_INPUT;
  if (r->c->n == r->cap) {
    size_t nc = r->cap ? r->cap * 2 : 64;
    tfx_ckpt_tensor *t2 = tfx_arena_calloc(&r->c->arena, nc, sizeof *t2);
    if (!t2) goto oom_tmp;
    if (r->c->n) memcpy(t2, r->c->t, r->c->n * sizeof *t2);
    r->c->t = t2;
    r->cap = nc;
  }
  tfx_ckpt_tensor *t = &r->c->t[r->c->n];
  memset(t, 0, sizeof *t);
  t->name = tfx_arena_strndup(&r->c->arena, (const char *)key, klen);
  if (!t->name) goto oom_tmp;
  t->dtype = (int)e->dtype;
  if (e->shard_id < 0 || e->offset < 0 || e->size < 0) {
    tfx_error(r->d, r->fname, 0, 0, "tensor '%s': negative shard id, offset or size", kt);
    goto out;
  }
  t->shard = (uint32_t)e->shard_id;
  t->offset = (uint64_t)e->offset;
  t->size = (uint64_t)e->size;
  t->crc = e->crc32c;
  t->n_slices = (uint32_t)(e->n_slices > UINT32_MAX ? UINT32_MAX : e->n_slices);
  t->elems = 1;
  if (e->shape) {
    t->unknown_rank = e->shape->unknown_rank;
    if (e->shape->n_dim > MAX_RANK) {
      tfx_error(r->d, r->fname, 0, 0, "tensor '%s': rank %zu is more than %d", kt,
                e->shape->n_dim, MAX_RANK);
      goto out;
    }
    t->rank = (uint32_t)e->shape->n_dim;
    int64_t *dims = tfx_arena_calloc(&r->c->arena, t->rank ? t->rank : 1, sizeof *dims);
    if (!dims) goto oom_tmp;
    for (uint32_t i = 0; i < t->rank; i++) {
      int64_t s = e->shape->dim[i]->size;
      dims[i] = s;
      if (s < 0 || t->elems < 0) t->elems = -1;
      else if (s && t->elems > INT64_MAX / s) t->elems = -1;
      else t->elems *= s;
    }
    t->dims = dims;
  }
  if (t->unknown_rank) t->elems = -1;
  r->c->n++;
  rc = 0;
out:
  tfx_arena_free(&tmp);
  return rc;
oom_tmp:
  tfx_arena_free(&tmp);
oom:
  tfx_error(r->d, r->fname, 0, 0, "out of memory");
  return TFX_E_NOMEM;
}

/* Index block entry: a handle of one data block. */
static int on_index(table_rd *r, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
  (void)key;
  (void)klen;
  const uint8_t *p = val, *end = val + vlen;
  uint64_t off, size;
  if (varint(&p, end, &off) || varint(&p, end, &size)) {
    tfx_error(r->d, r->fname, 0, 0, "index block: malformed block handle");
    return TFX_E_INPUT;
  }
  return walk_block(r, off, size, "data", on_entry);
}

tfx_status tfx_ckpt_parse_index(tfx_ckpt *c, const uint8_t *buf, size_t len, const char *fname,
                                tfx_diag *d) {
  table_rd r = {.c = c, .buf = buf, .len = len, .fname = fname, .d = d};
  if (len < FOOTER_LEN) {
    tfx_error(d, fname, 0, 0, "%zu bytes is too short for a tensor bundle index (footer is %u "
              "bytes): truncated or not an index", len, FOOTER_LEN);
    return TFX_E_INPUT;
  }
  const uint8_t *f = buf + len - FOOTER_LEN;
  if (le64(buf + len - 8) != TABLE_MAGIC) {
    tfx_error(d, fname, 0, 0, "bad table footer: no magic number 0xdb4775248b80fb57 in the last "
              "8 bytes (truncated, or not a tensor bundle index)");
    return TFX_E_INPUT;
  }
  const uint8_t *p = f, *end = buf + len - 8;
  uint64_t moff, msize, ioff, isize;
  if (varint(&p, end, &moff) || varint(&p, end, &msize) || varint(&p, end, &ioff) ||
      varint(&p, end, &isize)) {
    tfx_error(d, fname, 0, 0, "bad table footer: malformed block handles");
    return TFX_E_INPUT;
  }
  /* the metaindex block names filter blocks, which bundles do not have: only checked */
  const uint8_t *mb;
  size_t mlen;
  uint8_t *mown;
  int rc = read_block(&r, moff, msize, "metaindex", &mb, &mlen, &mown);
  free(mown);
  if (rc) return rc;
  rc = walk_block(&r, ioff, isize, "index", on_index);
  free(r.last);
  if (rc) return rc;
  if (!r.have_header) {
    tfx_error(d, fname, 0, 0, "no bundle header (the entry under the empty key is missing)");
    return TFX_E_INPUT;
  }
  for (size_t i = 0; i < c->n; i++)
    if (c->t[i].shard >= c->num_shards && !c->t[i].n_slices) {
      tfx_error(d, fname, 0, 0, "tensor '%s' is in shard %u, but the header says there are %u "
                "shards", c->t[i].name, c->t[i].shard, c->num_shards);
      return TFX_E_INPUT;
    }
  return 0;
}

/* ---- files ---- */

static char *join(tfx_arena *a, const char *x, const char *y) {
  size_t n = strlen(x) + strlen(y) + 1;
  char *s = tfx_arena_alloc(a, n);
  if (s) snprintf(s, n, "%s%s", x, y);
  return s;
}

int tfx_ckpt_exists(const char *prefix) {
  char buf[4096];
  if ((size_t)snprintf(buf, sizeof buf, "%s.index", prefix) >= sizeof buf) return 0;
  struct stat st;
  return stat(buf, &st) == 0 && S_ISREG(st.st_mode);
}

tfx_status tfx_ckpt_open(tfx_ckpt *c, const char *prefix, size_t max_file_size, tfx_diag *d) {
  c->prefix = tfx_arena_strdup(&c->arena, prefix);
  c->index_path = join(&c->arena, prefix, ".index");
  if (!c->prefix || !c->index_path) {
    tfx_error(d, prefix, 0, 0, "out of memory");
    return TFX_E_NOMEM;
  }
  size_t len = 0;
  tfx_status rst;
  char *buf = tfx_read_file_st(c->index_path, max_file_size ? max_file_size : ((size_t)4 << 30),
                               NULL, &len, &rst, d);
  if (!buf) return rst;
  int rc = tfx_ckpt_parse_index(c, (const uint8_t *)buf, len, c->index_path, d);
  free(buf);
  if (rc) return rc;
  c->shards = tfx_arena_calloc(&c->arena, c->num_shards, sizeof *c->shards);
  if (!c->shards) {
    tfx_error(d, c->index_path, 0, 0, "out of memory");
    return TFX_E_NOMEM;
  }
  for (uint32_t i = 0; i < c->num_shards; i++) {
    char suf[64];
    snprintf(suf, sizeof suf, ".data-%05u-of-%05u", i, c->num_shards);
    c->shards[i].path = join(&c->arena, prefix, suf);
    if (!c->shards[i].path) {
      tfx_error(d, c->index_path, 0, 0, "out of memory");
      return TFX_E_NOMEM;
    }
    struct stat st;
    if (stat(c->shards[i].path, &st) != 0 || !S_ISREG(st.st_mode)) {
      tfx_error(d, c->shards[i].path, 0, 0, "cannot open data shard %u of %u (named by %s): %s",
                i, c->num_shards, c->index_path,
                errno ? strerror(errno) : "not a regular file");
      return TFX_E_INPUT;
    }
  }
  return 0;
}

static int map_shard(tfx_ckpt *c, uint32_t i, tfx_diag *d) {
  tfx_ckpt_shard *s = &c->shards[i];
  if (s->mapped) return s->mapped < 0 ? TFX_E_INPUT : 0;
  s->mapped = -1;
  int fd = open(s->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    tfx_error(d, s->path, 0, 0, "cannot open data shard: %s", strerror(errno));
    return TFX_E_INPUT;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
    tfx_error(d, s->path, 0, 0, "cannot read data shard: not a regular file");
    close(fd);
    return TFX_E_INPUT;
  }
  s->len = (size_t)st.st_size;
  if (s->len) {
    void *m = mmap(NULL, s->len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      tfx_error(d, s->path, 0, 0, "cannot map data shard: %s", strerror(errno));
      close(fd);
      s->len = 0;
      return TFX_E_INPUT;
    }
    s->data = m;
  }
  close(fd);
  s->mapped = 1;
  return 0;
}

const tfx_ckpt_tensor *tfx_ckpt_find(const tfx_ckpt *c, const char *name) {
  size_t lo = 0, hi = c->n, nl = strlen(name);
  while (lo < hi) { /* keys are sorted bytewise (checked when parsed) */
    size_t mid = lo + (hi - lo) / 2;
    int r = key_cmp((const uint8_t *)c->t[mid].name, strlen(c->t[mid].name),
                    (const uint8_t *)name, nl);
    if (r == 0) return &c->t[mid];
    if (r < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* Bounds + crc of t's bytes. */
static int raw_bytes(tfx_ckpt *c, const tfx_ckpt_tensor *t, const uint8_t **data, size_t *len,
                     int check_crc, tfx_diag *d) {
  if (t->n_slices) {
    tfx_error(d, c->index_path, 0, 0, "variable '%s' is partitioned into %u slices; assembling "
              "partitioned variables is not supported", t->name, t->n_slices);
    return TFX_E_INPUT;
  }
  if (t->shard >= c->num_shards) {
    tfx_error(d, c->index_path, 0, 0, "tensor '%s' names shard %u of %u", t->name, t->shard,
              c->num_shards);
    return TFX_E_INPUT;
  }
  int rc = map_shard(c, t->shard, d);
  if (rc) return rc;
  const tfx_ckpt_shard *s = &c->shards[t->shard];
  if (t->offset > s->len || t->size > s->len - t->offset) {
    tfx_error(d, s->path, 0, 0, "tensor '%s' (bytes %llu..%llu) runs past the end of its shard "
              "(%zu bytes): truncated data file", t->name, (unsigned long long)t->offset,
              (unsigned long long)(t->offset + t->size), s->len);
    return TFX_E_INPUT;
  }
  const uint8_t *p = s->data ? s->data + t->offset : (const uint8_t *)"";
  *data = p;
  *len = (size_t)t->size;
  if (!check_crc) return 0;
  uint32_t got = tfx_crc32c_mask(tfx_crc32c(p, (size_t)t->size));
  if (got != t->crc) {
    tfx_error(d, s->path, 0, 0, "tensor '%s': crc32c mismatch (index %s says %08x, data has "
              "%08x): the data file is corrupt", t->name, c->index_path, t->crc, got);
    return TFX_E_INPUT;
  }
  *data = p;
  *len = (size_t)t->size;
  return 0;
}

tfx_status tfx_ckpt_bytes(tfx_ckpt *c, const tfx_ckpt_tensor *t, const uint8_t **data,
                          size_t *len, tfx_diag *d) {
  if (t->dtype == 7) { /* strings: their own checksum layout */
    const uint8_t **sv;
    size_t *lv;
    int r2 = tfx_ckpt_strings(c, t, &sv, &lv, d);
    return r2 ? r2 : raw_bytes(c, t, data, len, 0, d);
  }
  int rc = raw_bytes(c, t, data, len, 1, d);
  if (rc) return rc;
  size_t es = tfx_ckpt_dtype_size(t->dtype);
  if (es && (t->elems < 0 || (uint64_t)t->elems > UINT64_MAX / es ||
             (uint64_t)t->elems * es != t->size)) {
    char desc[256];
    tfx_ckpt_describe(t, desc, sizeof desc);
    tfx_error(d, c->index_path, 0, 0, "tensor '%s' (%s) has %llu bytes, its shape needs %llu",
              t->name, desc, (unsigned long long)t->size,
              t->elems < 0 ? 0ull : (unsigned long long)t->elems * es);
    return TFX_E_INPUT;
  }
  return 0;
}

tfx_status tfx_ckpt_strings(tfx_ckpt *c, const tfx_ckpt_tensor *t, const uint8_t ***strs,
                            size_t **lens, tfx_diag *d) {
  const uint8_t *p;
  size_t len;
  if (t->dtype != 7) {
    tfx_error(d, c->index_path, 0, 0, "tensor '%s' is %s, not string", t->name,
              tfx_ckpt_dtype_name(t->dtype));
    return TFX_E_INPUT;
  }
  int rc = raw_bytes(c, t, &p, &len, 0, d);
  if (rc) return rc;
  const char *spath = c->shards[t->shard].path;
  if (t->elems < 0 || (uint64_t)t->elems > len) { /* each element takes >= 1 length byte */
    tfx_error(d, spath, 0, 0, "string tensor '%s': %lld elements cannot fit in %zu bytes",
              t->name, (long long)t->elems, len);
    return TFX_E_INPUT;
  }
  size_t n = (size_t)t->elems;
  const uint8_t **sv = tfx_arena_calloc(&c->arena, n ? n : 1, sizeof *sv);
  size_t *lv = tfx_arena_calloc(&c->arena, n ? n : 1, sizeof *lv);
  if (!sv || !lv) {
    tfx_error(d, spath, 0, 0, "out of memory");
    return TFX_E_NOMEM;
  }
  /* The checksums cover each length as a 4-byte little-endian integer (8 bytes when it does
   * not fit in 32 bits), not its varint: TensorFlow keeps the first layout's checksum. */
  const uint8_t *q = p, *end = p + len;
  uint64_t total = 0;
  uint32_t crc = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t l;
    if (varint(&q, end, &l) || l > len) goto bad;
    lv[i] = (size_t)l;
    total += l;
    uint8_t w[8];
    for (int k = 0; k < 8; k++) w[k] = (uint8_t)(l >> (8 * k));
    crc = tfx_crc32c_extend(crc, w, l <= UINT32_MAX ? 4 : 8);
  }
  if ((size_t)(end - q) < 4) goto bad;
  uint32_t want = le32(q), got = tfx_crc32c_mask(crc);
  if (want != got) {
    tfx_error(d, spath, 0, 0, "string tensor '%s': crc32c of the lengths mismatch (stored %08x, "
              "computed %08x): the data file is corrupt", t->name, want, got);
    return TFX_E_INPUT;
  }
  crc = tfx_crc32c_extend(crc, q, 4);
  q += 4;
  if (total != (uint64_t)(end - q)) goto bad;
  crc = tfx_crc32c_mask(tfx_crc32c_extend(crc, q, total));
  if (crc != t->crc) {
    tfx_error(d, spath, 0, 0, "tensor '%s': crc32c mismatch (index %s says %08x, data has "
              "%08x): the data file is corrupt", t->name, c->index_path, t->crc, crc);
    return TFX_E_INPUT;
  }
  for (size_t i = 0; i < n; i++) {
    sv[i] = q;
    q += lv[i];
  }
  *strs = sv;
  *lens = lv;
  return 0;
bad:
  tfx_error(d, spath, 0, 0, "string tensor '%s': malformed string layout (lengths do not add up "
            "to the %zu bytes of the entry)", t->name, len);
  return TFX_E_INPUT;
}

/* ---- the `checkpoint` state file ---- */

char *tfx_ckpt_state_prefix(const char *dir) {
  char path[4096];
  if ((size_t)snprintf(path, sizeof path, "%s/checkpoint", dir) >= sizeof path) return NULL;
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char line[4096], *res = NULL;
  while (!res && fgets(line, sizeof line, f)) {
    const char *k = "model_checkpoint_path:";
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (strncmp(s, k, strlen(k)) != 0) continue;
    s = strchr(s, '"');
    char *e = s ? strrchr(s + 1, '"') : NULL;
    if (!s || !e || e == s + 1) continue;
    *e = 0;
    s++;
    size_t n = strlen(dir) + strlen(s) + 2;
    res = malloc(n);
    if (res) {
      if (s[0] == '/') snprintf(res, n, "%s", s);
      else snprintf(res, n, "%s/%s", dir, s);
    }
  }
  fclose(f);
  return res;
}
