/* Tensor bundle reader (TensorFlow checkpoint format V2).
 * Stage: ckpt (read by the freezing pass and by `tfxc inspect PREFIX`). Input: a checkpoint
 * prefix: PREFIX.index (a LevelDB-format table of BundleEntryProto, the empty key holding the
 * BundleHeaderProto) and the data shards PREFIX.data-NNNNN-of-MMMMM. Output: the sorted entry
 * list, and each tensor's bytes verified against its masked crc32c, pointing into the shards,
 * which are mapped read-only (never copied). Everything lives in the tfx_ckpt (its arena and
 * its mappings) until tfx_ckpt_free. Errors name the tensor and the file and are reported
 * into the diagnostics context and returned as TFX_E_INPUT (TFX_E_NOMEM when out of memory).
 * The layout as tfxc relies on it is described in docs/CHECKPOINTS.md. */
#ifndef TFX_CKPT_CKPT_H
#define TFX_CKPT_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/diag.h"
#include "util/status.h"

/* CRC-32C (Castagnoli), as LevelDB and TensorFlow use it, and their "masked" form. */
uint32_t tfx_crc32c_extend(uint32_t crc, const void *data, size_t n);
static inline uint32_t tfx_crc32c(const void *data, size_t n) { return tfx_crc32c_extend(0, data, n); }
uint32_t tfx_crc32c_mask(uint32_t crc);
/* The portable table-driven path of tfx_crc32c_extend (which uses the CPU's instruction when
 * there is one); exposed so tests can compare the two. */
uint32_t tfx_crc32c_extend_soft(uint32_t crc, const void *data, size_t n);

typedef struct tfx_ckpt_tensor {
  const char *name;       /* the table key (NUL-terminated copy) */
  int dtype;              /* tensorflow.DataType */
  uint32_t rank;
  const int64_t *dims;    /* rank sizes */
  int unknown_rank;
  uint32_t shard;
  uint64_t offset, size;  /* bytes in the shard */
  uint32_t crc;           /* masked crc32c of those bytes */
  uint32_t n_slices;      /* > 0: a partitioned variable (its data are other entries) */
  int64_t elems;          /* product of dims (-1 when a dim is negative or it overflows) */
} tfx_ckpt_tensor;

typedef struct tfx_ckpt_shard {
  char *path;
  const uint8_t *data;    /* mapped read-only; NULL when empty or not yet mapped */
  size_t len;
  int mapped;             /* tried: 1 mapped/empty, -1 failed (reported) */
} tfx_ckpt_shard;

typedef struct tfx_ckpt {
  tfx_arena arena;        /* entries, names, strings */
  char *prefix;           /* in arena */
  char *index_path;       /* in arena */
  uint32_t num_shards;
  int version_producer;
  tfx_ckpt_tensor *t;     /* n entries, sorted by name (the table order), header excluded */
  size_t n;
  size_t n_slice_parts;   /* entries holding slices of partitioned variables (keys with a 0
                             byte, not listed in t: tfxc does not assemble them) */
  tfx_ckpt_shard *shards; /* num_shards (in arena) */
  /* variables of the graph whose key the bundle lacks (kept by the freeze pass: an error
   * only when the outputs need them); borrowed strings of the model */
  const char **missing_var, **missing_key;
  size_t n_missing;
} tfx_ckpt;

/* Parses an index table (the bytes of PREFIX.index) into c's entry list. fname is used in
 * messages. Checks the footer magic, every block's masked crc32c, the compression byte (only
 * uncompressed blocks are read), the key order, the header (num_shards >= 1, little endian)
 * and each entry (dtype, shape, shard id < num_shards, sizes). Returns TFX_OK or TFX_E_INPUT
 * / TFX_E_NOMEM (reported). c must have been initialized with tfx_ckpt_init. Does not touch
 * any data file. */
TFX_MUST_CHECK tfx_status tfx_ckpt_parse_index(tfx_ckpt *c, const uint8_t *buf, size_t len,
                                               const char *fname, tfx_diag *d);

void tfx_ckpt_init(tfx_ckpt *c);
/* Reads PREFIX.index and checks that every shard file exists (not mapped yet). Returns TFX_OK
 * or TFX_E_INPUT / TFX_E_NOMEM (reported). max_file_size bounds the index file (0 = 4 GiB). */
TFX_MUST_CHECK tfx_status tfx_ckpt_open(tfx_ckpt *c, const char *prefix, size_t max_file_size,
                                        tfx_diag *d);
void tfx_ckpt_free(tfx_ckpt *c);

/* 1 when PREFIX.index exists as a regular file. */
int tfx_ckpt_exists(const char *prefix);

/* The entry named name, or NULL. */
const tfx_ckpt_tensor *tfx_ckpt_find(const tfx_ckpt *c, const char *name);

/* Bytes of one element of a numeric/bool dtype, 0 for strings, resources, variants and
 * unknown types. */
size_t tfx_ckpt_dtype_size(int dtype);
/* "float", "half", "string", ...; "dtype(N)" for an unknown one (static storage for known,
 * a buffer for unknown: not reentrant for unknown values). */
const char *tfx_ckpt_dtype_name(int dtype);

/* The raw bytes of a tensor: bounds-checked against its shard and crc-verified. For a
 * numeric dtype size must equal elems * element size. Returns TFX_OK or TFX_E_INPUT
 * (reported: tensor and file named); a sliced entry is an error naming the variable. */
TFX_MUST_CHECK tfx_status tfx_ckpt_bytes(tfx_ckpt *c, const tfx_ckpt_tensor *t,
                                         const uint8_t **data, size_t *len, tfx_diag *d);

/* The elements of a string tensor (TF's bundle layout: varint lengths, a masked crc32c of
 * the lengths, then the bytes), crc-verified. *strs gets elems pointers into the shard
 * mapping, *lens their lengths (both arrays in c->arena). Returns TFX_OK or TFX_E_INPUT /
 * TFX_E_NOMEM (reported). */
TFX_MUST_CHECK tfx_status tfx_ckpt_strings(tfx_ckpt *c, const tfx_ckpt_tensor *t,
                                           const uint8_t ***strs, size_t **lens, tfx_diag *d);

/* Writes "float [2,3]" style text of t's dtype and shape into buf. */
void tfx_ckpt_describe(const tfx_ckpt_tensor *t, char *buf, size_t n);

/* The checkpoint prefix stored in a `checkpoint` state file (text CheckpointState:
 * model_checkpoint_path: "..."), resolved against dir when relative. Returns a malloc'ed
 * string or NULL (no file, no entry, or out of memory). */
char *tfx_ckpt_state_prefix(const char *dir);

#endif
