/* Model loading and message I/O: file or SavedModel directory -> sniffed wire format and
 * message type -> unpacked/parsed message in the model arena -> the GraphDef inside it.
 * Stage: io. A regular file is read through a read-only mapping (tfx_io_map_file), anything
 * else into a buffer. Binary input is pre-walked (wire.c) so malformed or too-deep data is reported with
 * a byte offset instead of reaching protobuf-c; text goes through pbtxt_parse.c. Every failure
 * is one diagnostic and TFX_E_INPUT. The sniffing rules are documented in io.h. */
#define _DEFAULT_SOURCE /* MAP_POPULATE */
#include "io/io.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/pbtxt.h"
#include "io/wire.h"
#include "util/status.h"
#include "util/fileio.h"
#include "util/thread.h"

#define TFX_IO_DEFAULT_MAX_FILE ((size_t)4 << 30)

const char *tfx_msg_kind_name(tfx_msg_kind k) {
  switch (k) {
  case TFX_MSG_GRAPHDEF: return "tensorflow.GraphDef";
  case TFX_MSG_METAGRAPHDEF: return "tensorflow.MetaGraphDef";
  case TFX_MSG_SAVEDMODEL: return "tensorflow.SavedModel";
  }
  return "?";
}

static const ProtobufCMessageDescriptor *tfx_io_kind_desc(tfx_msg_kind k) {
  switch (k) {
  case TFX_MSG_GRAPHDEF: return &tensorflow__graph_def__descriptor;
  case TFX_MSG_METAGRAPHDEF: return &tensorflow__meta_graph_def__descriptor;
  case TFX_MSG_SAVEDMODEL: return &tensorflow__saved_model__descriptor;
  }
  return NULL;
}

/* ---- binary messages ---- */

/* The arena's protobuf-c allocator, noting whether an allocation failed: protobuf-c returns
 * NULL for malformed bytes and for out of memory alike. It also remembers its big allocations
 * (TFX_IO_BIG bytes and more): what protobuf-c frees of them (the slabs of scanned fields of
 * a message with many fields: ~32 bytes per field, 32 MB for a GraphDef of 10^6 nodes) is
 * scratch that nothing reads again, and its whole pages are given back at once
 * (tfx_arena_give_back). A block it cannot note (out of memory) simply stays. */
#define TFX_IO_BIG ((size_t)64 * 1024)
typedef struct tfx_io_big {
  void *p;
  size_t n;
} tfx_io_big;
typedef struct tfx_io_pb_alloc {
  ProtobufCAllocator pb;
  ProtobufCAllocator *arena;
  tfx_arena *a;
  int failed;
  tfx_io_big *big;
  size_t n_big, cap_big;
} tfx_io_pb_alloc;

/* A failed or big allocation (out of line: the common small one stays a call and a test). */
static __attribute__((noinline)) void *tfx_io_pb_alloc_rare(tfx_io_pb_alloc *a, void *p, size_t n) {
  if (!p) {
    a->failed = 1;
    return NULL;
  }
  if (a->n_big == a->cap_big) {
    size_t cap = a->cap_big ? a->cap_big * 2 : 64;
    tfx_io_big *b = realloc(a->big, cap * sizeof *b); /* not counted: losing it loses nothing */
    if (!b) return p;
    a->big = b;
    a->cap_big = cap;
  }
  a->big[a->n_big++] = (tfx_io_big){p, n};
  return p;
}

static void *tfx_io_pb_alloc_fn(void *data, size_t n) {
  tfx_io_pb_alloc *a = data;
  void *p = tfx_arena_alloc(a->a, n); /* what a->arena->alloc does, without the indirect call */
  if (__builtin_expect(!p || n >= TFX_IO_BIG, 0)) return tfx_io_pb_alloc_rare(a, p, n);
  return p;
}

static void tfx_io_pb_free_fn(void *data, void *p) {
  tfx_io_pb_alloc *a = data;
  a->arena->free(a->arena->allocator_data, p);
  for (size_t i = a->n_big; i-- > 0;) /* slabs are freed soon after they were made */
    if (a->big[i].p == p) {
      tfx_arena_give_back(a->a, p, a->big[i].n);
      a->big[i] = a->big[--a->n_big];
      break;
    }
}

/* Unpacks after the wire walk has accepted the bytes (protobuf-c itself has no depth limit).
 * *st: TFX_OK, TFX_E_INPUT or TFX_E_NOMEM. */
static ProtobufCMessage *tfx_io_unpack_walked_as(const ProtobufCMessageDescriptor *desc, const char *what,
                                                 const uint8_t *data, size_t len, const char *fname,
                                                 tfx_arena *arena, tfx_status *st, tfx_diag *d);
static ProtobufCMessage *tfx_io_unpack_walked(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                                              size_t len, const char *fname, tfx_arena *arena,
                                              tfx_status *st, tfx_diag *d) {
  return tfx_io_unpack_walked_as(desc, desc->name, data, len, fname, arena, st, d);
}

/* The same, naming the message `what` in an error (a part of a bigger message is reported as
 * that message, as its whole-message unpack would be). */
static ProtobufCMessage *tfx_io_unpack_walked_as(const ProtobufCMessageDescriptor *desc, const char *what,
                                                 const uint8_t *data, size_t len, const char *fname,
                                                 tfx_arena *arena, tfx_status *st, tfx_diag *d) {
  tfx_io_pb_alloc a = {{tfx_io_pb_alloc_fn, tfx_io_pb_free_fn, NULL}, tfx_arena_pb(arena), arena, 0,
                       NULL, 0, 0};
  a.pb.allocator_data = &a;
  ProtobufCMessage *m = protobuf_c_message_unpack(desc, &a.pb, len, data);
  free(a.big);
  *st = m ? TFX_OK : a.failed ? TFX_E_NOMEM : TFX_E_INPUT;
  if (!m && a.failed) tfx_error(d, fname, 0, 0, "out of memory decoding %s", what);
  else if (!m) tfx_error(d, fname, 0, 0, "malformed protobuf: cannot decode as %s", what);
  return m;
}

/* ---- a big GraphDef unpacked by several threads ----
 * protobuf_c_message_unpack is one thread's work, and for a GraphDef of 10^6 nodes it is most
 * of the load (as much CPU as mapping the file). The NodeDefs are independent messages, so
 * tfx_io_unpack_graph_par splits them. The bytes are cut into `jobs` parts of about equal
 * size: part k takes the top-level fields that start in [k * step, (k + 1) * step) (the last
 * one the rest), so part k begins at the first field starting at or after k * step, which only
 * a scan of the fields before it can find (tags and lengths: a field's bytes are skipped).
 * The calling thread scans and starts a thread for each part as soon as its beginning is
 * found (part 0 at once), and unpacks the last part itself: the scan of all but the last part
 * is the only serial work (for 2 jobs, half the tags; the other fields are few). Each part
 * unpacks its `node` fields (field 1) in order with the allocator of tfx_io_unpack_walked
 * into its own arena (an arena is not thread-safe; the calling thread's part uses the
 * model's), collecting the pointers, and notes where its other fields are. After the join
 * the other fields, concatenated in their original order, are unpacked as a GraphDef
 * (protobuf-c then merges a repeated singular field such as versions, and keeps unknown
 * fields, exactly as in the whole message: their order among themselves is all it sees of
 * them), the node pointers go into one array in the model arena, and the workers' arenas to
 * the model's (tfx_arena_adopt). The result is the whole-message unpack's: the same messages
 * in the same order (each NodeDef unpacked by the same protobuf-c call the whole message makes
 * for its bytes), the same unknown fields, only where the bytes live differs.
 * Failures are reported after the join, by the calling thread, in the whole-message unpack's
 * words ("out of memory decoding tensorflow.GraphDef", TFX_E_NOMEM); every arena is freed and
 * no model is left. What the scan leaves to protobuf-c (a node field that is not
 * length-delimited, a group: the walk refused groups already) sends the whole message to
 * tfx_io_unpack_walked instead. A thread that cannot be started has its part done by the
 * calling thread. Only the size decides (TFX_IO_PAR_MIN_BYTES): a count of nodes would take
 * the scan before any thread starts, and the bytes are the work anyway. */

unsigned tfx_io_jobs(unsigned jobs) {
  if (jobs == 0) {
    return tfx_jobs_auto(); /* util/thread.h */
  }
  return jobs > TFX_IO_JOBS_MAX ? TFX_IO_JOBS_MAX : jobs;
}

/* The top-level field at *p (< end): its number and wire type, its value [*val, *val + *vlen)
 * when length-delimited, *p moved past it. Returns 0, or -1 for what this reader leaves to
 * protobuf-c (groups, wire types 6 and 7, a truncated field: the walk refused those already,
 * but the caller then simply unpacks the whole message). */
static int tfx_io_top_field(const uint8_t **p, const uint8_t *end, uint64_t *num, unsigned *wt,
                            const uint8_t **val, size_t *vlen) {
  uint64_t key, n;
  if (tfx_wire_read_varint(p, end, &key) != 0) return -1;
  *num = key >> 3;
  *wt = (unsigned)(key & 7);
  switch (*wt) {
  case 0: return tfx_wire_read_varint(p, end, &n);
  case 1:
    if (end - *p < 8) return -1;
    *p += 8;
    return 0;
  case 5:
    if (end - *p < 4) return -1;
    *p += 4;
    return 0;
  case 2:
    if (tfx_wire_read_varint(p, end, &n) != 0 || n > (uint64_t)(end - *p)) return -1;
    *val = *p;
    *vlen = (size_t)n;
    *p += n;
    return 0;
  default: return -1;
  }
}

typedef struct tfx_io_range {
  const uint8_t *p;
  size_t n;
} tfx_io_range;

typedef struct tfx_io_part {
  const uint8_t *b, *lim, *end; /* it takes the fields starting in [b, lim); the data end */
  Tensorflow__NodeDef **node;  /* its nodes, in order (tfx_realloc'ed) */
  size_t n, cap;
  tfx_io_range *rest;          /* its other fields, in order (tfx_realloc'ed) */
  size_t n_rest, cap_rest;
  tfx_arena *arena;            /* the model's (the calling thread's part) or &own */
  tfx_arena own;
  int failed;                  /* 0; TFX_IO_PART_NOMEM, _MALFORMED, _WHOLE (leave it to protobuf-c) */
  int started;
  pthread_t th;
} tfx_io_part;
enum { TFX_IO_PART_NOMEM = 1, TFX_IO_PART_MALFORMED, TFX_IO_PART_WHOLE };

static void tfx_io_part_run(tfx_io_part *w) {
  tfx_io_pb_alloc a = {{tfx_io_pb_alloc_fn, tfx_io_pb_free_fn, NULL}, tfx_arena_pb(w->arena), w->arena, 0,
                       NULL, 0, 0};
  a.pb.allocator_data = &a;
  for (const uint8_t *p = w->b; p < w->lim;) {
    const uint8_t *f = p, *val = NULL;
    uint64_t num;
    unsigned wt;
    size_t vlen = 0;
    if (tfx_io_top_field(&p, w->end, &num, &wt, &val, &vlen) != 0 || (num == 1 && wt != 2)) {
      w->failed = TFX_IO_PART_WHOLE;
      break;
    }
    if (num != 1) {
      if (w->n_rest && w->rest[w->n_rest - 1].p + w->rest[w->n_rest - 1].n == f) {
        w->rest[w->n_rest - 1].n += (size_t)(p - f); /* adjacent: one range */
        continue;
      }
      if (w->n_rest == w->cap_rest) {
        size_t cap = w->cap_rest ? w->cap_rest * 2 : 8;
        tfx_io_range *r = tfx_realloc(w->rest, cap * sizeof *r);
        if (!r) {
          w->failed = TFX_IO_PART_NOMEM;
          break;
        }
        w->rest = r;
        w->cap_rest = cap;
      }
      w->rest[w->n_rest++] = (tfx_io_range){f, (size_t)(p - f)};
      continue;
    }
    if (w->n == w->cap) {
      size_t cap = w->cap ? w->cap * 2 : 1024;
      Tensorflow__NodeDef **v = tfx_realloc(w->node, cap * sizeof *v);
      if (!v) {
        w->failed = TFX_IO_PART_NOMEM;
        break;
      }
      w->node = v;
      w->cap = cap;
    }
    ProtobufCMessage *m = protobuf_c_message_unpack(&tensorflow__node_def__descriptor, &a.pb, vlen, val);
    if (!m) {
      w->failed = a.failed ? TFX_IO_PART_NOMEM : TFX_IO_PART_MALFORMED;
      break;
    }
    w->node[w->n++] = (Tensorflow__NodeDef *)m;
  }
  free(a.big);
}

/* (a worker's allocations count as the caller's: tfx_thread_start) */
static void *tfx_io_part_main(void *arg) {
  tfx_io_part_run(arg);
  return NULL;
}

/* A worker's stack: protobuf-c's unpack recurses once per nesting level (up to
 * TFX_WIRE_DEPTH_CAP, sized for the main thread's usual 8 MiB), and a thread's default stack
 * can be smaller (glibc takes it from RLIMIT_STACK, 2 MiB when that is unlimited). Reserved,
 * not touched: it costs address space only. */
#define TFX_IO_WORKER_STACK ((size_t)16 << 20)

static void tfx_io_part_start(tfx_io_part *w) {
  if (w->b < w->lim) {
    w->started = tfx_thread_start(&w->th, tfx_io_part_main, w, TFX_IO_WORKER_STACK) == 0;
  }
  if (!w->started) tfx_io_part_run(w); /* (nothing to do when empty) */
}

/* Unpacks the GraphDef data (walked already) with jobs (2..TFX_IO_JOBS_MAX) threads. Returns
 * 0 when the caller is to unpack the whole message (something the scan leaves to protobuf-c;
 * nothing reported, out as it was), else 1: out->root is the GraphDef, or NULL with *rc the
 * error (reported; a failure names the message `what`, the one the caller unpacks). */
static int tfx_io_unpack_graph_par(const uint8_t *data, size_t len, const char *file, unsigned jobs,
                                   const char *what, tfx_model *out, tfx_status *rc, tfx_diag *d) {
  const uint8_t *end = data + len;
  size_t step = len / jobs;
  tfx_io_part part[TFX_IO_JOBS_MAX];
  memset(part, 0, jobs * sizeof *part);
  for (unsigned k = 0; k < jobs; k++) {
    tfx_arena_init(&part[k].own);
    part[k].arena = k + 1 < jobs ? &part[k].own : &out->arena;
    part[k].lim = k + 1 < jobs ? data + step * (k + 1) : end;
    part[k].end = end;
  }
  part[0].b = data;
  tfx_io_part_start(&part[0]);
  const uint8_t *p = data;
  for (unsigned k = 1; k < jobs; k++) { /* part k begins at the first field at or after k * step */
    while (p < data + step * k) {
      const uint8_t *val;
      uint64_t num;
      unsigned wt;
      size_t vlen;
      if (tfx_io_top_field(&p, end, &num, &wt, &val, &vlen) != 0) {
        p = end; /* the part holding it says so (TFX_IO_PART_WHOLE) */
        break;
      }
    }
    part[k].b = p < part[k].lim ? p : part[k].lim; /* empty when a field spans it */
    if (k + 1 < jobs) tfx_io_part_start(&part[k]);
    else tfx_io_part_run(&part[k]);
  }
  int failed = 0;
  size_t n = 0, rest = 0;
  for (unsigned k = 0; k < jobs; k++) {
    if (part[k].started) pthread_join(part[k].th, NULL);
    if (part[k].failed && (!failed || part[k].failed < failed)) failed = part[k].failed; /* out of memory first */
    n += part[k].n;
    for (size_t i = 0; i < part[k].n_rest; i++) rest += part[k].rest[i].n;
  }
  ProtobufCMessage *root = NULL;
  Tensorflow__NodeDef **nodes = NULL;
  uint8_t *rb = NULL;
  *rc = TFX_E_NOMEM;
  if (failed == TFX_IO_PART_NOMEM)
    tfx_error(d, file, 0, 0, "out of memory decoding %s", what);
  else if (failed == TFX_IO_PART_MALFORMED) { /* cannot happen after the walk */
    *rc = TFX_E_INPUT;
    tfx_error(d, file, 0, 0, "malformed protobuf: cannot decode as %s", what);
  } else if (!failed) {
    rb = rest ? tfx_malloc(rest) : NULL;
    nodes = rest && !rb ? NULL : n ? tfx_arena_alloc(&out->arena, n * sizeof *nodes) : NULL;
    if ((rest && !rb) || (n && !nodes))
      tfx_error(d, file, 0, 0, "out of memory decoding %s", what);
    else {
      size_t at = 0, i = 0;
      for (unsigned k = 0; k < jobs; k++) {
        for (size_t r = 0; r < part[k].n_rest; r++) {
          memcpy(rb + at, part[k].rest[r].p, part[k].rest[r].n);
          at += part[k].rest[r].n;
        }
        if (part[k].n) memcpy(nodes + i, part[k].node, part[k].n * sizeof *nodes);
        i += part[k].n;
      }
      root = tfx_io_unpack_walked_as(&tensorflow__graph_def__descriptor, what, rest ? rb : data, rest, file,
                                     &out->arena, rc, d);
    }
  }
  free(rb);
  for (unsigned k = 0; k < jobs; k++) {
    free(part[k].node);
    free(part[k].rest);
    if (root) tfx_arena_adopt(&out->arena, &part[k].own);
    else tfx_arena_free(&part[k].own);
  }
  if (failed == TFX_IO_PART_WHOLE) {
    /* the model arena holds the last part's messages: start it afresh (only out->path so far) */
    tfx_arena_free(&out->arena);
    out->path = tfx_arena_strdup(&out->arena, file);
    if (!out->path) {
      tfx_error(d, file, 0, 0, "out of memory");
      *rc = TFX_E_NOMEM;
      return 1;
    }
    return 0;
  }
  if (root) {
    Tensorflow__GraphDef *g = (Tensorflow__GraphDef *)root;
    g->n_node = n;
    g->node = nodes;
    out->jobs = jobs;
  }
  out->root = root;
  return 1;
}

/* Where the length-delimited field `want` of a message (data, len) is when it occurs exactly
 * once (*val, *vlen), and how many bytes the other top-level fields take (*rest). 0, or -1
 * when it does not occur once with wire type 2, or the scan meets what tfx_io_top_field leaves
 * to protobuf-c (the caller then unpacks the whole message). */
static int tfx_io_one_field(const uint8_t *data, size_t len, uint64_t want, const uint8_t **val,
                            size_t *vlen, size_t *rest) {
  const uint8_t *end = data + len;
  int seen = 0;
  *rest = 0;
  for (const uint8_t *p = data; p < end;) {
    const uint8_t *f = p, *v = NULL;
    uint64_t num;
    unsigned wt;
    size_t n = 0;
    if (tfx_io_top_field(&p, end, &num, &wt, &v, &n) != 0) return -1;
    if (num != want) {
      *rest += (size_t)(p - f);
      continue;
    }
    if (wt != 2 || seen++) return -1; /* (protobuf-c merges a repeated one: left to it) */
    *val = v, *vlen = n;
  }
  return seen ? 0 : -1;
}

/* The top-level fields of (data, len) other than `skip`, concatenated in their order: a
 * malloc'd buffer of `rest` bytes (tfx_io_one_field's count), NULL when rest is 0 or out of
 * memory. */
static uint8_t *tfx_io_other_fields(const uint8_t *data, size_t len, uint64_t skip, size_t rest) {
  uint8_t *rb = rest ? tfx_malloc(rest) : NULL;
  const uint8_t *end = data + len;
  size_t at = 0;
  for (const uint8_t *p = data; rb && p < end;) {
    const uint8_t *f = p, *val;
    uint64_t num;
    unsigned wt;
    size_t vlen;
    (void)tfx_io_top_field(&p, end, &num, &wt, &val, &vlen); /* read once already */
    if (num != skip) memcpy(rb + at, f, (size_t)(p - f)), at += (size_t)(p - f);
  }
  return rb;
}

/* A MetaGraphDef whose graph_def is big: that field's bytes by tfx_io_unpack_graph_par, the
 * other fields, concatenated in their order, as the MetaGraphDef, which then gets the GraphDef
 * as its graph_def: what protobuf-c makes of a graph_def that occurs once (its unknown fields
 * are all among the others, in order). Returns as tfx_io_unpack_graph_par: 0 when the caller
 * is to unpack the whole message (no graph_def, one of fewer than min_bytes, several: protobuf-c
 * merges those, or a field the scan leaves to protobuf-c). what: the message the caller
 * unpacks (a MetaGraphDef, or the SavedModel holding it), named by its errors. */
static int tfx_io_unpack_meta_par(const uint8_t *data, size_t len, const char *file, unsigned jobs,
                                  size_t min_bytes, const char *what, tfx_model *out, tfx_status *rc,
                                  tfx_diag *d) {
  const uint8_t *g = NULL;
  size_t glen = 0, rest = 0;
  if (tfx_io_one_field(data, len, 2, &g, &glen, &rest) != 0 || glen < min_bytes ||
      !tfx_io_unpack_graph_par(g, glen, file, jobs, what, out, rc, d))
    return 0;
  ProtobufCMessage *graph = out->root;
  out->root = NULL;
  if (!graph) return 1;
  uint8_t *rb = tfx_io_other_fields(data, len, 2, rest);
  if (rest && !rb) {
    tfx_error(d, file, 0, 0, "out of memory decoding %s", what);
    *rc = TFX_E_NOMEM;
    return 1;
  }
  ProtobufCMessage *mg = tfx_io_unpack_walked_as(&tensorflow__meta_graph_def__descriptor, what,
                                                 rest ? rb : data, rest, file, &out->arena, rc, d);
  free(rb);
  if (mg) ((Tensorflow__MetaGraphDef *)mg)->graph_def = (Tensorflow__GraphDef *)graph;
  out->root = mg;
  return 1;
}

/* A SavedModel of one meta graph whose graph_def is big: that meta graph by
 * tfx_io_unpack_meta_par (its graph_def's nodes by several threads), the SavedModel's other
 * fields (the schema version, unknown fields), concatenated in their order, as the SavedModel,
 * which then gets the meta graph as its one meta_graphs entry: what protobuf-c makes of the
 * whole message. Returns as tfx_io_unpack_graph_par: 0 when the caller is to unpack the whole
 * message (no meta graph or several: each would need its own split, and their graphs are
 * rarely all big; a graph_def under min_bytes; anything tfx_io_unpack_meta_par leaves). */
static int tfx_io_unpack_saved_par(const uint8_t *data, size_t len, const char *file, unsigned jobs,
                                   size_t min_bytes, tfx_model *out, tfx_status *rc, tfx_diag *d) {
  const char *what = tensorflow__saved_model__descriptor.name;
  const uint8_t *m = NULL;
  size_t mlen = 0, rest = 0;
  if (tfx_io_one_field(data, len, 2, &m, &mlen, &rest) != 0 || mlen < min_bytes ||
      !tfx_io_unpack_meta_par(m, mlen, file, jobs, min_bytes, what, out, rc, d))
    return 0;
  Tensorflow__MetaGraphDef *mg = (Tensorflow__MetaGraphDef *)out->root;
  out->root = NULL;
  if (!mg) return 1;
  uint8_t *rb = tfx_io_other_fields(data, len, 2, rest);
  Tensorflow__MetaGraphDef **one = tfx_arena_alloc(&out->arena, sizeof *one);
  if ((rest && !rb) || !one) {
    free(rb);
    tfx_error(d, file, 0, 0, "out of memory decoding %s", what);
    *rc = TFX_E_NOMEM;
    return 1;
  }
  ProtobufCMessage *sm = tfx_io_unpack_walked_as(&tensorflow__saved_model__descriptor, what,
                                                 rest ? rb : data, rest, file, &out->arena, rc, d);
  free(rb);
  if (sm) {
    one[0] = mg;
    ((Tensorflow__SavedModel *)sm)->meta_graphs = one;
    ((Tensorflow__SavedModel *)sm)->n_meta_graphs = 1;
  }
  out->root = sm;
  return 1;
}

static ProtobufCMessage *tfx_io_unpack_lim(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                                           size_t len, const char *fname, const tfx_wire_limits *lim,
                                           tfx_arena *arena, tfx_status *rst, tfx_diag *d) {
  tfx_wire_stats st;
  *rst = TFX_E_INPUT;
  switch (tfx_io_wire_walk_lim(desc, data, len, lim, &st)) {
  case TFX_WIRE_OK: break;
  case TFX_WIRE_NOMEM:
    tfx_error(d, fname, 0, 0, "out of memory");
    *rst = TFX_E_NOMEM;
    return NULL;
  case TFX_WIRE_TOO_DEEP:
  case TFX_WIRE_LIMIT:
    tfx_error(d, fname, 0, 0, "cannot decode as %s at byte offset %zu: %s", desc->name, st.err_off, st.err);
    return NULL;
  case TFX_WIRE_MALFORMED:
    tfx_error(d, fname, 0, 0, "malformed protobuf: cannot decode as %s: %s at byte offset %zu", desc->name,
              st.err, st.err_off);
    return NULL;
  }
  return tfx_io_unpack_walked(desc, data, len, fname, arena, rst, d);
}

ProtobufCMessage *tfx_io_unpack(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
                                const char *fname, tfx_arena *arena, tfx_diag *d) {
  tfx_status st;
  return tfx_io_unpack_lim(desc, data, len, fname, NULL, arena, &st, d);
}

ProtobufCMessage *tfx_io_unpack_st(const ProtobufCMessageDescriptor *desc, const uint8_t *data,
                                   size_t len, const char *fname, tfx_arena *arena, tfx_status *st,
                                   tfx_diag *d) {
  return tfx_io_unpack_lim(desc, data, len, fname, NULL, arena, st, d);
}

tfx_status tfx_io_write_message_max(const char *path, const ProtobufCMessage *msg, tfx_wire wire,
                                    size_t max_size, tfx_diag *d) {
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  int rc = wire == TFX_WIRE_TEXT ? tfx_pbtxt_print(msg, &sb) : tfx_io_pack(msg, &sb);
  if (rc != 0 || sb.oom) {
    int oom = sb.oom; /* else nested too deeply to encode */
    tfx_error(d, path, 0, 0, "%s while serializing %s", oom ? "out of memory" : "nesting too deep",
              msg->descriptor->name);
    tfx_sb_free(&sb);
    return oom ? TFX_E_NOMEM : TFX_E_FAIL;
  }
  tfx_status st = TFX_OK;
  if (tfx_check_output_size(path, sb.len, max_size, d) != 0) st = TFX_E_FAIL; /* a limit */
  else st = tfx_write_file_atomic(path, sb.data ? sb.data : "", sb.len, d);
  tfx_sb_free(&sb);
  return st;
}

tfx_status tfx_io_write_message(const char *path, const ProtobufCMessage *msg, tfx_wire wire,
                                tfx_diag *d) {
  return tfx_io_write_message_max(path, msg, wire, 0, d);
}

/* ---- sniffing ---- */

static int tfx_io_is_ident_start(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int tfx_io_is_ident(unsigned char c) { return tfx_io_is_ident_start(c) || (c >= '0' && c <= '9'); }

/* Skips whitespace and # comments from *pos. */
static void tfx_io_skip_space(const char *s, size_t len, size_t *pos) {
  while (*pos < len) {
    unsigned char c = (unsigned char)s[*pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') (*pos)++;
    else if (c == '#') {
      while (*pos < len && s[*pos] != '\n') (*pos)++;
    } else break;
  }
}

/* Text if the first 4 KiB hold no control bytes other than whitespace and the first thing after
 * whitespace/comments is an identifier, '[' or the end. */
static int tfx_io_looks_text(const char *s, size_t len) {
  size_t lim = len < 4096 ? len : 4096;
  for (size_t i = 0; i < lim; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x20 && !(c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f')) || c == 0x7f) return 0;
  }
  size_t pos = 0;
  tfx_io_skip_space(s, len, &pos);
  return pos == len || tfx_io_is_ident_start((unsigned char)s[pos]) || s[pos] == '[';
}

static int tfx_io_word_in(const char *w, size_t n, const char *const *list) {
  for (; *list; list++)
    if (strlen(*list) == n && memcmp(*list, w, n) == 0) return 1;
  return 0;
}

/* 1-based line/col of a byte offset, and the source line for the caret. */
static void tfx_io_error_at(tfx_diag *d, const char *fname, const char *s, size_t len, size_t off, size_t span,
                            const char *msg) {
  unsigned line = 1;
  size_t ls = 0;
  for (size_t i = 0; i < off; i++)
    if (s[i] == '\n') line++, ls = i + 1;
  tfx_error(d, fname, line, (unsigned)(off - ls + 1), "%s", msg);
  const char *nl = memchr(s + ls, '\n', len - ls);
  size_t ll = nl ? (size_t)(nl - (s + ls)) : len - ls;
  if (ll > off - ls + span + 120) ll = off - ls + span + 120;
  tfx_diag_set_source(d, s + ls, ll, (unsigned)span);
}

static const char *const tfx_io_graphdef_fields[] = {"node", "library", "versions", "version", "debug_info", NULL};
static const char *const tfx_io_meta_fields[] = {"meta_info_def",  "graph_def",     "saver_def",
                                                 "collection_def", "signature_def", "asset_file_def",
                                                 "object_graph_def", NULL};
static const char *const tfx_io_saved_fields[] = {"saved_model_schema_version", "meta_graphs", NULL};
static const char *const tfx_io_debuginfo_fields[] = {"files", "traces", "frames_by_id", "traces_by_id",
                                                      "name_to_trace_id", NULL};

/* Kind of a text model from its first top-level field name. Returns -1 after reporting. */
static int tfx_io_sniff_text(const char *s, size_t len, const char *fname, tfx_msg_kind hint, tfx_msg_kind *kind,
                             tfx_diag *d) {
  size_t pos = 0;
  tfx_io_skip_space(s, len, &pos);
  if (pos == len) { /* only whitespace/comments: an empty message, as protoc reads it */
    *kind = hint;
    return 0;
  }
  size_t b = pos;
  while (pos < len && tfx_io_is_ident((unsigned char)s[pos])) pos++;
  size_t n = pos - b;
  if (n == 0) { /* starts with '[' or similar: let the parser report it with a location */
    *kind = hint;
    return 0;
  }
  if (tfx_io_word_in(s + b, n, tfx_io_graphdef_fields)) *kind = TFX_MSG_GRAPHDEF;
  else if (tfx_io_word_in(s + b, n, tfx_io_meta_fields)) *kind = TFX_MSG_METAGRAPHDEF;
  else if (tfx_io_word_in(s + b, n, tfx_io_saved_fields)) *kind = TFX_MSG_SAVEDMODEL;
  else {
    char msg[512];
    if (tfx_io_word_in(s + b, n, tfx_io_debuginfo_fields))
      snprintf(msg, sizeof msg, "this is a tensorflow.GraphDebugInfo (first field \"%.*s\"), not a model: "
                                "expected a GraphDef, MetaGraphDef or SavedModel", (int)n, s + b);
    else
      snprintf(msg, sizeof msg, "not a TensorFlow model in text format: \"%.*s\" is not a field of "
                                "tensorflow.GraphDef, tensorflow.MetaGraphDef or tensorflow.SavedModel",
               (int)(n > 64 ? 64 : n), s + b);
    tfx_io_error_at(d, fname, s, len, b, n, msg);
    return -1;
  }
  return 0;
}

static tfx_msg_kind tfx_io_name_hint(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (strcmp(base, "saved_model.pb") == 0 || strcmp(base, "saved_model.pbtxt") == 0) return TFX_MSG_SAVEDMODEL;
  if (n >= 5 && strcmp(base + n - 5, ".meta") == 0) return TFX_MSG_METAGRAPHDEF;
  return TFX_MSG_GRAPHDEF;
}

/* Kind of a binary model (rule in io.h). Returns TFX_OK, or TFX_E_INPUT / TFX_E_NOMEM after
 * reporting. *depth receives the nesting depth the chosen kind's walk found, so the caller can
 * skip a second walk when it is within the user's limit. */
static tfx_status tfx_io_sniff_binary(const uint8_t *data, size_t len, const char *fname,
                                      tfx_msg_kind hint, const tfx_wire_limits *lim,
                                      tfx_msg_kind *kind, unsigned *depth, tfx_diag *d) {
  unsigned max_depth = lim->max_depth;
  /* Score with the hard depth cap, not the user's limit: a model that is merely too deep must
   * still be recognised so the depth error names the right type (unpack checks the limit). The
   * string and list limits apply as given: a walk that stops on one reports it for that type. */
  tfx_wire_limits sniff = *lim;
  sniff.max_depth = TFX_WIRE_DEPTH_CAP;
  static const tfx_msg_kind kinds[3] = {TFX_MSG_GRAPHDEF, TFX_MSG_METAGRAPHDEF, TFX_MSG_SAVEDMODEL};
  /* The field whose presence marks each kind: GraphDef node/library, MetaGraphDef graph_def,
   * SavedModel meta_graphs. */
  static const uint64_t key[3] = {(1u << 1) | (1u << 2), 1u << 2, 1u << 2};
  tfx_wire_stats st[3];
  for (int i = 0; i < 3; i++) st[i].status = TFX_WIRE_MALFORMED, st[i].err[0] = 0, st[i].err_off = 0;
  int best = -1;
  for (int i = 0; i < 3; i++) {
    tfx_io_wire_walk_lim(tfx_io_kind_desc(kinds[i]), data, len, &sniff, &st[i]);
    if (st[i].status == TFX_WIRE_NOMEM) {
      tfx_error(d, fname, 0, 0, "out of memory");
      return TFX_E_NOMEM;
    }
    if (st[i].status == TFX_WIRE_LIMIT) { /* over a string or list limit (as this type) */
      tfx_error(d, fname, 0, 0, "cannot decode as %s at byte offset %zu: %s",
                tfx_msg_kind_name(kinds[i]), st[i].err_off, st[i].err);
      return TFX_E_INPUT;
    }
    if (st[i].status == TFX_WIRE_TOO_DEEP) break; /* deeper than the hard cap as any type */
    if (st[i].status != TFX_WIRE_OK) continue;
    if (best < 0) {
      best = i;
      continue;
    }
    /* fewer anomalies, then key field present, then the file-name hint, then table order */
    int ki = (st[i].top_fields & key[i]) != 0, kb = (st[best].top_fields & key[best]) != 0;
    if (st[i].anomalies != st[best].anomalies) {
      if (st[i].anomalies < st[best].anomalies) best = i;
    } else if (ki != kb) {
      if (ki) best = i;
    } else if (kinds[i] == hint && kinds[best] != hint) {
      best = i;
    }
  }
  int too_deep = st[0].status == TFX_WIRE_TOO_DEEP || st[1].status == TFX_WIRE_TOO_DEEP ||
                 st[2].status == TFX_WIRE_TOO_DEEP;
  if (best >= 0 && !too_deep) {
    *kind = kinds[best];
    *depth = st[best].depth;
    return TFX_OK;
  }
  int h = hint == TFX_MSG_GRAPHDEF ? 0 : hint == TFX_MSG_METAGRAPHDEF ? 1 : 2;
  for (int i = 0; i < 3; i++) /* a depth problem is the more useful message */
    if (st[i].status == TFX_WIRE_TOO_DEEP) h = i;
  if (st[h].status == TFX_WIRE_TOO_DEEP) {
    unsigned lim_depth = max_depth && max_depth < TFX_WIRE_DEPTH_CAP ? max_depth : TFX_WIRE_DEPTH_CAP;
    tfx_error(d, fname, 0, 0, "cannot decode as %s at byte offset %zu: message nesting is deeper "
              "than the limit of %u (%s)", tfx_msg_kind_name(kinds[h]), st[h].err_off, lim_depth,
              lim_depth < TFX_WIRE_DEPTH_CAP ? "raise the depth limit with --limit depth=N, at most 1000"
                                             : "1000 is the largest depth limit");
  }
  else
    tfx_error(d, fname, 0, 0, "malformed protobuf: not a binary tensorflow.GraphDef, MetaGraphDef or SavedModel "
              "(as %s: %s at byte offset %zu)", tfx_msg_kind_name(kinds[h]), st[h].err, st[h].err_off);
  return TFX_E_INPUT;
}

/* ---- picking the graph ---- */

static int tfx_io_has_tag(const Tensorflow__MetaGraphDef *mg, const char *tag) {
  if (!mg->meta_info_def) return 0;
  for (size_t i = 0; i < mg->meta_info_def->n_tags; i++)
    if (strcmp(mg->meta_info_def->tags[i], tag) == 0) return 1;
  return 0;
}

static Tensorflow__MetaGraphDef *tfx_io_pick_meta(const Tensorflow__SavedModel *sm, const char *want,
                                                  const char *fname, tfx_diag *d) {
  if (sm->n_meta_graphs == 0) {
    tfx_error(d, fname, 0, 0, "SavedModel has no meta graphs");
    return NULL;
  }
  const char *tag = want ? want : "serve";
  for (size_t i = 0; i < sm->n_meta_graphs; i++)
    if (tfx_io_has_tag(sm->meta_graphs[i], tag)) return sm->meta_graphs[i];
  if (!want && sm->n_meta_graphs == 1) return sm->meta_graphs[0];
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  for (size_t i = 0; i < sm->n_meta_graphs; i++) {
    const Tensorflow__MetaGraphDef__MetaInfoDef *mi = sm->meta_graphs[i]->meta_info_def;
    tfx_sb_puts(&sb, i ? ", [" : "[");
    for (size_t j = 0; mi && j < mi->n_tags; j++) {
      if (j) tfx_sb_puts(&sb, ", ");
      tfx_sb_puts(&sb, mi->tags[j]);
    }
    tfx_sb_putc(&sb, ']');
  }
  tfx_error(d, fname, 0, 0, "SavedModel has no meta graph tagged \"%s\"; available tag sets: %s (choose one with --tag)",
            tag, sb.oom ? "(out of memory)" : tfx_sb_cstr(&sb));
  tfx_sb_free(&sb);
  return NULL;
}

/* ---- loading ---- */

static char *tfx_io_join(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  char *p = tfx_malloc(a + b + 2);
  if (!p) return NULL;
  memcpy(p, dir, a);
  p[a] = '/';
  memcpy(p + a + 1, name, b + 1);
  return p;
}

static int tfx_io_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

void tfx_model_free(tfx_model *m) {
  if (!m) return;
  tfx_arena_free(&m->arena);
  m->jobs = 0;
  m->path = NULL;
  m->root = NULL;
  m->graph = NULL;
}

/* Maps the regular file path read-only, all of it, its pages populated at once: the loader
 * then reads the page cache in place instead of a buffer of the file's size that must be
 * faulted in (fresh zeroed pages) and copied into (~0.1 s of CPU for a 216 MB GraphDef).
 * NULL when it is not mapped -- stdin, not a regular file, empty, over max_size, or mmap
 * refuses -- and the caller reads it instead (which reports whatever is wrong). The model
 * keeps no pointer into the bytes (protobuf-c and the text parser copy what they keep), so
 * the mapping goes as soon as the model is loaded. */
static void *tfx_io_map_file(const char *path, size_t max_size, size_t *len) {
  struct stat st;
  /* stat first: opening a FIFO would block, and closing it again would lose its writer */
  if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* not blocking if it changed since */
  if (fd < 0) return NULL;
  void *m = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= max_size &&
      (uint64_t)st.st_size <= (uint64_t)SIZE_MAX) {
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE;
#endif
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0);
    if (m == MAP_FAILED) m = NULL;
    else *len = (size_t)st.st_size;
  }
  close(fd);
  return m;
}

tfx_status tfx_io_load_model(const char *path, const tfx_load_opts *opts, tfx_model *out,
                             tfx_diag *d) {
  memset(out, 0, sizeof *out);
  tfx_arena_init(&out->arena);
  size_t max_size = opts && opts->max_file_size ? opts->max_file_size : TFX_IO_DEFAULT_MAX_FILE;

  char *file = NULL;
  if (tfx_is_dir(path)) {
    file = tfx_io_join(path, "saved_model.pb");
    if (file && !tfx_io_exists(file)) {
      free(file);
      file = tfx_io_join(path, "saved_model.pbtxt");
      if (file && !tfx_io_exists(file)) {
        tfx_error(d, path, 0, 0, "directory holds neither saved_model.pb nor saved_model.pbtxt "
                                 "(not a SavedModel directory)");
        free(file);
        return TFX_E_INPUT;
      }
    }
  } else {
    size_t n = strlen(path);
    file = tfx_malloc(n + 1);
    if (file) memcpy(file, path, n + 1);
  }
  if (!file) {
    tfx_error(d, path, 0, 0, "out of memory");
    return TFX_E_NOMEM;
  }
  size_t len = 0;
  tfx_status rc;
  void *map = tfx_io_map_file(file, max_size, &len);
  if (map) {
    rc = tfx_io_load_model_buffer(map, len, file, opts, out, d);
    munmap(map, len);
    if (rc == TFX_OK) out->mapped = 1;
    free(file);
    return rc;
  }
  char *buf = tfx_read_file_st(
      file, max_size, "raise the file-size limit with --limit file-size=SIZE or --max-file-size SIZE",
      &len, &rc, d);
  if (buf) rc = tfx_io_load_model_buffer(buf, len, file, opts, out, d);
  free(buf);
  free(file);
  return rc;
}

tfx_status tfx_io_load_model_buffer(const void *data, size_t len, const char *file,
                                    const tfx_load_opts *opts, tfx_model *out, tfx_diag *d) {
  const char *buf = data;
  memset(out, 0, sizeof *out);
  tfx_arena_init(&out->arena);
  unsigned max_depth = opts && opts->max_depth ? opts->max_depth : 100;
  const char *tag = opts ? opts->tag : NULL;
  tfx_status rc = TFX_E_INPUT;
  out->path = tfx_arena_strdup(&out->arena, file);
  if (!out->path) {
    tfx_error(d, file, 0, 0, "out of memory");
    rc = TFX_E_NOMEM;
    goto out;
  }
  tfx_msg_kind hint = tfx_io_name_hint(file), kind;
  if (len > 0 && tfx_io_looks_text(buf, len)) {
    out->wire = TFX_WIRE_TEXT;
    if (tfx_io_sniff_text(buf, len, file, hint, &kind, d)) goto out;
    tfx_pbtxt_limits lim = {max_depth, opts ? opts->max_string : 0, opts ? opts->max_list : 0};
    out->root =
        tfx_pbtxt_parse_st(tfx_io_kind_desc(kind), buf, len, file, &out->arena, &lim, &rc, d);
  } else {
    out->wire = TFX_WIRE_BINARY;
    unsigned depth = 0, limit = max_depth ? max_depth : 100;
    if (limit > TFX_WIRE_DEPTH_CAP) limit = TFX_WIRE_DEPTH_CAP;
    tfx_wire_limits wl = {max_depth, opts ? opts->max_string : 0, opts ? opts->max_list : 0, 0};
    rc = tfx_io_sniff_binary((const uint8_t *)buf, len, file, hint, &wl, &kind, &depth, d);
    if (rc != TFX_OK) goto out;
    /* The sniffing walk already validated these bytes as this kind (string and list limits
     * included); walk again only when the nesting exceeds the user's limit (to report it with
     * the right offset). */
    unsigned jobs = tfx_io_jobs(opts ? opts->jobs : 0);
    size_t min_bytes = opts && opts->par_min_bytes ? opts->par_min_bytes : TFX_IO_PAR_MIN_BYTES;
    if (depth <= limit && kind == TFX_MSG_GRAPHDEF && jobs > 1 && len >= min_bytes &&
        tfx_io_unpack_graph_par((const uint8_t *)buf, len, file, jobs, tensorflow__graph_def__descriptor.name,
                                out, &rc, d))
      ; /* out->root set, or NULL with the error reported */
    else if (depth <= limit && kind == TFX_MSG_METAGRAPHDEF && jobs > 1 && len >= min_bytes &&
             tfx_io_unpack_meta_par((const uint8_t *)buf, len, file, jobs, min_bytes,
                                    tensorflow__meta_graph_def__descriptor.name, out, &rc, d))
      ; /* the same */
    else if (depth <= limit && kind == TFX_MSG_SAVEDMODEL && jobs > 1 && len >= min_bytes &&
             tfx_io_unpack_saved_par((const uint8_t *)buf, len, file, jobs, min_bytes, out, &rc, d))
      ; /* the same */
    else if (depth <= limit)
      out->root = tfx_io_unpack_walked(tfx_io_kind_desc(kind), (const uint8_t *)buf, len, file,
                                       &out->arena, &rc, d);
    else
      out->root = tfx_io_unpack_lim(tfx_io_kind_desc(kind), (const uint8_t *)buf, len, file, &wl,
                                    &out->arena, &rc, d);
  }
  if (!out->root) goto out;
  rc = TFX_E_INPUT; /* until a graph is found */
  out->kind = kind;
  switch (kind) {
  case TFX_MSG_GRAPHDEF: out->graph = (Tensorflow__GraphDef *)out->root; break;
  case TFX_MSG_METAGRAPHDEF:
    out->graph = ((Tensorflow__MetaGraphDef *)out->root)->graph_def;
    if (!out->graph) tfx_error(d, file, 0, 0, "MetaGraphDef has no graph_def");
    break;
  case TFX_MSG_SAVEDMODEL: {
    Tensorflow__MetaGraphDef *mg = tfx_io_pick_meta((Tensorflow__SavedModel *)out->root, tag, file, d);
    if (mg) {
      out->graph = mg->graph_def;
      if (!out->graph) tfx_error(d, file, 0, 0, "the selected SavedModel meta graph has no graph_def");
    }
    break;
  }
  }
  if (out->graph) rc = TFX_OK;
out:
  if (rc != TFX_OK) tfx_model_free(out);
  return rc;
}
