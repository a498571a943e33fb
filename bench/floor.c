/* tfxc_bench_floor: the floor tfxc is measured against, timed in-process.
 * Stage: bench (not part of tfxc). Input: a GraphDef file, a mode, a run count. Output: one
 * line of key=value pairs on stdout; each timing is "median/min/max" in milliseconds.
 *   --mode malloc  read(2) the file + protobuf_c_message_unpack with the system allocator
 *                  (+ protobuf_c_message_free_unpacked, timed separately)
 *   --mode arena   the same unpack into a tfx_arena, as tfxc's loader does (+ tfx_arena_free)
 *   --mode text    tfx_pbtxt_parse alone on a text GraphDef already in memory (+ arena free)
 * No validation, no wire pre-walk: this is what any protobuf-c reader must pay at least.
 *   --mode stages  not a floor: tfxc's own stages called in-process, once (tfx_io_load_model,
 *                  tfx_module_build, tfx_scope_tree_build, tfx_pbtxt_print into a strbuf), with
 *                  each one's time, the resident memory after it and the bytes its arena/buffer
 *                  holds, so peak RSS can be attributed to a stage.
 *   --mode layout  not a floor: unpacks once and walks the message tree with its descriptors,
 *                  printing the bytes protobuf-c allocated per message type, for strings, bytes
 *                  payloads and repeated-field arrays, and what the arena's 16-byte rounding adds.
 *   --mode ge      FILE is a .air (ge.proto.ModelDef) tfxc wrote: read + unpack it into a
 *                  tfx_arena, then protobuf_c_message_pack it into one buffer (+ write it to
 *                  /dev/null). Not tfxc's floor but the least any converter that builds the GE
 *                  model as protobuf-c messages and then serializes it must pay for an output
 *                  of that size: unpacking allocates and fills the same message tree lowering
 *                  builds, with no logic at all, and protobuf-c's packer is the fastest there is.
 *   --mode sweep   not a floor of the whole run but of one pass over the graph: unpacks once
 *                  (untimed), then per run one sweep over every NodeDef that hashes its name,
 *                  op, every input string and every attr key (tfx_hash_bytes after strlen, as
 *                  a pass that looks nodes up by name must) and writes a 64-byte record per
 *                  node into freshly allocated memory (as a pass that builds a per-node table
 *                  must): sweep_ms is the read side, record_ms the fresh-page side (wall;
 *                  *_cpu_ms the same in CPU time). The least
 *                  any pass that reads every node's strings and keeps a record per node pays
 *                  on this machine for this graph (bench/RESULTS.md uses it to bound the total).
 * cpu_ms is the CPU time (user + system) of the timed work of a mode (read + unpack, or parse).
 * peak_rss_kb is the process high-water mark (getrusage), so run one mode per process. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ge/ge_ir.pb-c.h"
#include "graph/graph.h"
#include "io/io.h"
#include "io/pbtxt.h"
#include "scope/scope.h"
#include "tensorflow/graph.pb-c.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/strbuf.h"

#define MAX_RUNS 1000

static double clock_ms(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }
/* CPU time of this process (user + system): less disturbed than wall time on a busy machine. */
static double cpu_ms(void) { return clock_ms(CLOCK_PROCESS_CPUTIME_ID); }

/* Whole file into a malloc'ed buffer with plain read(2) calls. */
static uint8_t *read_all(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return NULL;
  struct stat st;
  uint8_t *buf = NULL;
  if (fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1))) {
    size_t got = 0, want = (size_t)st.st_size;
    while (got < want) {
      ssize_t r = read(fd, buf + got, want - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += (size_t)r;
    }
    if (got != want) {
      free(buf);
      buf = NULL;
    } else {
      buf[got] = 0;
      *len = got;
    }
  }
  close(fd);
  return buf;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* "median/min/max" of v[0..n) (sorts v). */
static void put_stat(const char *key, double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  printf(" %s=%.3f/%.3f/%.3f", key, med, v[0], v[n - 1]);
}

static void usage(FILE *f) {
  fprintf(f, "usage: tfxc_bench_floor --mode malloc|arena|text|stages|layout|ge|sweep [--runs K] FILE\n");
}

/* Resident set size now, in KB (/proc/self/statm). */
static long rss_now_kb(void) {
  long size = 0, res = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f) return -1;
  if (fscanf(f, "%ld %ld", &size, &res) != 2) res = -1;
  fclose(f);
  return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* ---- layout: where the unpacked GraphDef's bytes are ---- */

#define LAYOUT_TYPES 64
typedef struct layout {
  const ProtobufCMessageDescriptor *desc[LAYOUT_TYPES];
  size_t count[LAYOUT_TYPES], bytes[LAYOUT_TYPES];
  size_t n_types;
  size_t strings, n_strings, payload, n_payload, arrays, n_arrays, rounding, allocs;
} layout;

static void layout_alloc(layout *l, size_t n) {
  l->allocs++;
  l->rounding += ((n + 15) & ~(size_t)15) - n;
}

static void layout_msg(layout *l, const ProtobufCMessage *m);

/* One value of field f at p (a message pointer, string pointer, bytes, or scalar). */
static void layout_value(layout *l, const ProtobufCFieldDescriptor *f, const void *p) {
  if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
    const ProtobufCMessage *sub = *(ProtobufCMessage *const *)p;
    if (sub) layout_msg(l, sub);
  } else if (f->type == PROTOBUF_C_TYPE_STRING) {
    const char *str = *(char *const *)p;
    if (str && str != (const char *)f->default_value) {
      size_t n = strlen(str) + 1;
      l->strings += n, l->n_strings++;
      layout_alloc(l, n);
    }
  } else if (f->type == PROTOBUF_C_TYPE_BYTES) {
    const ProtobufCBinaryData *bd = p;
    if (bd->len) {
      l->payload += bd->len, l->n_payload++;
      layout_alloc(l, bd->len);
    }
  }
}

static size_t layout_elem_size(const ProtobufCFieldDescriptor *f) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_INT32: case PROTOBUF_C_TYPE_SINT32: case PROTOBUF_C_TYPE_SFIXED32:
  case PROTOBUF_C_TYPE_UINT32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_FLOAT:
  case PROTOBUF_C_TYPE_ENUM: return 4;
  case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
  case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE: return 8;
  case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
  case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
  case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
  }
  return 0;
}

static void layout_msg(layout *l, const ProtobufCMessage *m) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  size_t t = 0;
  while (t < l->n_types && l->desc[t] != d) t++;
  if (t == l->n_types && t < LAYOUT_TYPES) l->desc[l->n_types++] = d;
  if (t < LAYOUT_TYPES) l->count[t]++, l->bytes[t] += d->sizeof_message;
  layout_alloc(l, d->sizeof_message);
  const char *base = (const char *)m;
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n = *(const size_t *)(base + f->quantifier_offset);
      const char *arr = *(char *const *)(base + f->offset);
      if (!n || !arr) continue;
      size_t es = layout_elem_size(f);
      l->arrays += n * es, l->n_arrays++;
      layout_alloc(l, n * es);
      for (size_t k = 0; k < n; k++) layout_value(l, f, arr + k * es);
      continue;
    }
    if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *(const uint32_t *)(base + f->quantifier_offset) != f->id)
      continue;
    layout_value(l, f, base + f->offset);
  }
}

static int run_layout(const char *path) {
  size_t len = 0;
  uint8_t *buf = read_all(path, &len);
  if (!buf) {
    fprintf(stderr, "tfxc_bench_floor: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  tfx_arena a;
  tfx_arena_init(&a);
  ProtobufCMessage *m = protobuf_c_message_unpack(&tensorflow__graph_def__descriptor, tfx_arena_pb(&a), len, buf);
  free(buf);
  if (!m) {
    fprintf(stderr, "tfxc_bench_floor: %s: protobuf_c_message_unpack failed\n", path);
    tfx_arena_free(&a);
    return 1;
  }
  static layout l;
  layout_msg(&l, m);
  size_t nodes = ((Tensorflow__GraphDef *)m)->n_node, total = l.strings + l.payload + l.arrays + l.rounding;
  for (size_t t = 0; t < l.n_types; t++) total += l.bytes[t];
  printf("unpacked %s: %zu nodes, file %zu bytes, arena %zu bytes (%.2fx the file)\n", path, nodes, len, a.total,
         (double)a.total / (double)len);
  printf("%-42s %10s %6s %14s %7s %9s\n", "what", "count", "size", "bytes", "share", "per node");
  for (size_t t = 0; t < l.n_types; t++)
    printf("%-42s %10zu %6zu %14zu %6.1f%% %9.1f\n", l.desc[t]->name, l.count[t], l.desc[t]->sizeof_message,
           l.bytes[t], 100.0 * (double)l.bytes[t] / (double)total, (double)l.bytes[t] / (double)nodes);
  struct { const char *what; size_t count, bytes; } rows[] = {
      {"strings (NUL-terminated copies)", l.n_strings, l.strings},
      {"bytes payloads (tensor_content, s)", l.n_payload, l.payload},
      {"repeated-field arrays", l.n_arrays, l.arrays},
      {"arena 16-byte rounding", l.allocs, l.rounding},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    printf("%-42s %10zu %6s %14zu %6.1f%% %9.1f\n", rows[i].what, rows[i].count, "", rows[i].bytes,
           100.0 * (double)rows[i].bytes / (double)total, (double)rows[i].bytes / (double)nodes);
  printf("%-42s %10zu %6s %14zu %6.1f%% %9.1f\n", "total (allocations)", l.allocs, "", total, 100.0,
         (double)total / (double)nodes);
  tfx_arena_free(&a);
  return 0;
}

/* tfxc's stages in-process: time, RSS after, and the memory each one holds. */
static int run_stages(const char *path) {
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_model m;
  tfx_module mod;
  tfx_scope_tree t;
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  int rc = 1;
  long rss0 = rss_now_kb();
  double t0 = now_ms();
  if (tfx_io_load_model(path, NULL, &m, &d) != 0) goto out_diag;
  double t1 = now_ms();
  long rss1 = rss_now_kb();
  if (tfx_module_build(&mod, m.graph, path, &d) != 0) goto out_model;
  double t2 = now_ms();
  long rss2 = rss_now_kb();
  if (tfx_scope_tree_build(&t, &mod.main, &d) != 0) goto out_module;
  double t3 = now_ms();
  long rss3 = rss_now_kb();
  if (tfx_pbtxt_print(&m.graph->base, &sb) != 0 || sb.oom) goto out_tree;
  double t4 = now_ms();
  long rss4 = rss_now_kb();
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("mode=stages nodes=%zu rss_start_kb=%ld load_ms=%.3f load_rss_kb=%ld model_arena_bytes=%zu"
         " index_ms=%.3f index_rss_kb=%ld index_arena_bytes=%zu scope_ms=%.3f scope_rss_kb=%ld"
         " scope_arena_bytes=%zu print_ms=%.3f print_rss_kb=%ld text_bytes=%zu text_cap_bytes=%zu"
         " peak_rss_kb=%ld\n",
         m.graph->n_node, rss0, t1 - t0, rss1, m.arena.total, t2 - t1, rss2, mod.arena.total, t3 - t2, rss3,
         t.arena.total, t4 - t3, rss4, sb.len, sb.cap, ru.ru_maxrss);
  rc = 0;
out_tree:
  tfx_scope_tree_free(&t);
out_module:
  tfx_module_free(&mod);
out_model:
  tfx_model_free(&m);
out_diag:
  if (rc) tfx_diag_print(&d, stderr);
  tfx_diag_free(&d);
  tfx_sb_free(&sb);
  return rc;
}

/* --mode ge: read + unpack + pack + write of a GE ModelDef, each timed. */
static int run_ge(const char *path, int runs) {
  static double t_read[MAX_RUNS], t_unpack[MAX_RUNS], t_pack[MAX_RUNS], t_write[MAX_RUNS],
      t_cpu[MAX_RUNS];
  size_t len = 0, n_op = 0, arena_bytes = 0;
  for (int r = 0; r < runs; r++) {
    double c0 = cpu_ms(), t0 = now_ms();
    uint8_t *buf = read_all(path, &len);
    double t1 = now_ms();
    if (!buf) {
      fprintf(stderr, "tfxc_bench_floor: cannot read %s: %s\n", path, strerror(errno));
      return 1;
    }
    tfx_arena a;
    tfx_arena_init(&a);
    Ge__Proto__ModelDef *m = ge__proto__model_def__unpack(tfx_arena_pb(&a), len, buf);
    double t2 = now_ms();
    if (!m) {
      fprintf(stderr, "tfxc_bench_floor: %s: not a ge.proto.ModelDef\n", path);
      free(buf);
      tfx_arena_free(&a);
      return 1;
    }
    free(buf); /* the output buffer below takes its place, as in a converter */
    n_op = 0;
    for (size_t g = 0; g < m->n_graph; g++) n_op += m->graph[g]->n_op;
    size_t sz = ge__proto__model_def__get_packed_size(m);
    uint8_t *out = malloc(sz ? sz : 1);
    if (!out) {
      fprintf(stderr, "tfxc_bench_floor: out of memory\n");
      tfx_arena_free(&a);
      return 1;
    }
    size_t got = ge__proto__model_def__pack(m, out);
    double t3 = now_ms();
    int fd = open("/dev/null", O_WRONLY);
    size_t off = 0;
    while (fd >= 0 && off < got) {
      ssize_t k = write(fd, out + off, got - off);
      if (k <= 0) break;
      off += (size_t)k;
    }
    if (fd >= 0) close(fd);
    double t4 = now_ms();
    t_cpu[r] = cpu_ms() - c0;
    arena_bytes = a.total;
    free(out);
    tfx_arena_free(&a);
    if (got != sz || off != got) {
      fprintf(stderr, "tfxc_bench_floor: %s: pack/write came short\n", path);
      return 1;
    }
    t_read[r] = t1 - t0, t_unpack[r] = t2 - t1, t_pack[r] = t3 - t2, t_write[r] = t4 - t3;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("mode=ge runs=%d bytes=%zu ops=%zu", runs, len, n_op);
  put_stat("read_ms", t_read, runs);
  put_stat("unpack_ms", t_unpack, runs);
  put_stat("pack_ms", t_pack, runs);
  put_stat("write_ms", t_write, runs);
  put_stat("cpu_ms", t_cpu, runs);
  printf(" arena_bytes=%zu peak_rss_kb=%ld\n", arena_bytes, ru.ru_maxrss);
  return 0;
}

/* --mode sweep: one pass's least cost (see the file comment). */
static int run_sweep(const char *path, int runs) {
  static double t_sweep[MAX_RUNS], t_rec[MAX_RUNS], t_cpu[MAX_RUNS], c_sweep[MAX_RUNS], c_rec[MAX_RUNS];
  size_t len = 0;
  uint8_t *buf = read_all(path, &len);
  if (!buf) {
    fprintf(stderr, "tfxc_bench_floor: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  tfx_arena a;
  tfx_arena_init(&a);
  Tensorflow__GraphDef *g = tensorflow__graph_def__unpack(tfx_arena_pb(&a), len, buf);
  free(buf);
  if (!g) {
    fprintf(stderr, "tfxc_bench_floor: %s: protobuf_c_message_unpack failed\n", path);
    tfx_arena_free(&a);
    return 1;
  }
  uint64_t sum = 0;
  size_t n = g->n_node, strings = 0;
  for (int r = 0; r < runs; r++) {
    double c0 = cpu_ms(), t0 = now_ms();
    strings = 0;
    for (size_t i = 0; i < n; i++) {
      const Tensorflow__NodeDef *nd = g->node[i];
      sum += tfx_hash_bytes(nd->name, strlen(nd->name));
      sum += tfx_hash_bytes(nd->op, strlen(nd->op));
      for (size_t k = 0; k < nd->n_input; k++) sum += tfx_hash_bytes(nd->input[k], strlen(nd->input[k]));
      for (size_t k = 0; k < nd->n_attr; k++) sum += tfx_hash_bytes(nd->attr[k]->key, strlen(nd->attr[k]->key));
      strings += 2 + nd->n_input + nd->n_attr;
    }
    double t1 = now_ms(), c1 = cpu_ms();
    uint64_t *rec = malloc((n ? n : 1) * 64);
    if (!rec) {
      fprintf(stderr, "tfxc_bench_floor: out of memory\n");
      tfx_arena_free(&a);
      return 1;
    }
    for (size_t i = 0; i < n; i++) {
      uint64_t *w = rec + 8 * i;
      for (int k = 0; k < 8; k++) w[k] = sum + i + (uint64_t)k;
    }
    for (size_t i = 0; i < n; i += 4096) sum += rec[8 * i];
    free(rec);
    double t2 = now_ms();
    t_cpu[r] = cpu_ms() - c0;
    t_sweep[r] = t1 - t0, t_rec[r] = t2 - t1;
    c_sweep[r] = c1 - c0, c_rec[r] = t_cpu[r] - c_sweep[r];
  }
  tfx_arena_free(&a);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("mode=sweep runs=%d bytes=%zu nodes=%zu strings=%zu", runs, len, n, strings);
  put_stat("sweep_ms", t_sweep, runs);
  put_stat("record_ms", t_rec, runs);
  put_stat("sweep_cpu_ms", c_sweep, runs);
  put_stat("record_cpu_ms", c_rec, runs);
  put_stat("cpu_ms", t_cpu, runs);
  printf(" checksum=%llu peak_rss_kb=%ld\n", (unsigned long long)(sum & 0xffff), ru.ru_maxrss);
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = NULL, *path = NULL;
  int runs = 5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--mode") && i + 1 < argc) mode = argv[++i];
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    } else if (argv[i][0] != '-' && !path) path = argv[i];
    else {
      usage(stderr);
      return 2;
    }
  }
  if (!mode || !path || runs < 1 || runs > MAX_RUNS ||
      (strcmp(mode, "malloc") && strcmp(mode, "arena") && strcmp(mode, "text") && strcmp(mode, "stages") &&
       strcmp(mode, "layout") && strcmp(mode, "ge") && strcmp(mode, "sweep"))) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(mode, "stages")) return run_stages(path);
  if (!strcmp(mode, "layout")) return run_layout(path);
  if (!strcmp(mode, "ge")) return run_ge(path, runs);
  if (!strcmp(mode, "sweep")) return run_sweep(path, runs);
  static double t_read[MAX_RUNS], t_work[MAX_RUNS], t_free[MAX_RUNS], t_cpu[MAX_RUNS];
  const ProtobufCMessageDescriptor *desc = &tensorflow__graph_def__descriptor;
  size_t len = 0, n_node = 0, arena_bytes = 0;
  uint8_t *text = NULL;
  if (!strcmp(mode, "text") && !(text = read_all(path, &len))) {
    fprintf(stderr, "tfxc_bench_floor: cannot read %s: %s\n", path, strerror(errno));
    return 1;
  }
  for (int r = 0; r < runs; r++) {
    if (text) {
      tfx_arena a;
      tfx_diag d;
      tfx_arena_init(&a);
      tfx_diag_init(&d);
      double c0 = cpu_ms(), t0 = now_ms();
      ProtobufCMessage *m = tfx_pbtxt_parse(desc, (const char *)text, len, path, &a, NULL, &d);
      double t1 = now_ms();
      t_cpu[r] = cpu_ms() - c0;
      if (!m) {
        tfx_diag_print(&d, stderr);
        tfx_diag_free(&d);
        tfx_arena_free(&a);
        free(text);
        return 1;
      }
      n_node = ((Tensorflow__GraphDef *)m)->n_node;
      arena_bytes = a.total;
      tfx_arena_free(&a);
      double t2 = now_ms();
      tfx_diag_free(&d);
      t_read[r] = 0, t_work[r] = t1 - t0, t_free[r] = t2 - t1;
      continue;
    }
    double c0 = cpu_ms(), t0 = now_ms();
    uint8_t *buf = read_all(path, &len);
    double t1 = now_ms();
    if (!buf) {
      fprintf(stderr, "tfxc_bench_floor: cannot read %s: %s\n", path, strerror(errno));
      return 1;
    }
    tfx_arena a;
    tfx_arena_init(&a);
    int use_arena = !strcmp(mode, "arena");
    ProtobufCMessage *m = protobuf_c_message_unpack(desc, use_arena ? tfx_arena_pb(&a) : NULL, len, buf);
    double t2 = now_ms();
    t_cpu[r] = cpu_ms() - c0;
    if (!m) {
      fprintf(stderr, "tfxc_bench_floor: %s: protobuf_c_message_unpack failed\n", path);
      free(buf);
      return 1;
    }
    n_node = ((Tensorflow__GraphDef *)m)->n_node;
    arena_bytes = a.total;
    if (use_arena) tfx_arena_free(&a);
    else protobuf_c_message_free_unpacked(m, NULL);
    double t3 = now_ms();
    free(buf);
    t_read[r] = t1 - t0, t_work[r] = t2 - t1, t_free[r] = t3 - t2;
  }
  free(text);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("mode=%s runs=%d bytes=%zu nodes=%zu", mode, runs, len, n_node);
  if (strcmp(mode, "text")) put_stat("read_ms", t_read, runs);
  put_stat(strcmp(mode, "text") ? "unpack_ms" : "parse_ms", t_work, runs);
  put_stat("free_ms", t_free, runs);
  put_stat("cpu_ms", t_cpu, runs);
  if (arena_bytes) printf(" arena_bytes=%zu", arena_bytes);
  printf(" peak_rss_kb=%ld\n", ru.ru_maxrss);
  return 0;
}
