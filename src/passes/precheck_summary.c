/* What a user can act on when nodes cannot be converted: cause hints for TF ops that only
 * exist at run time, and the failures grouped on stderr.
 * Stage: passes (after OP_MAPPING; the CLI after the precheck). Input: ctx->opmap. Output:
 * op->hint of unsupported / passthrough nodes whose TF type is runtime-only (variables,
 * save/restore, summaries, queues and readers, initialisers and tables, optimizer updates),
 * replacing the "did you mean" guess ('VariableV2' is no typo of the CANN 'Variable'); and
 * diagnostics, one per group of nodes that share TF type, outcome, message and hint (count,
 * first node as the example, the hint), largest group first, ties in graph order (main graph,
 * then function bodies). A group of one node reads as the per-node message did; `per_node`
 * (tfxc -v) gives one line per node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opmap/opmap.h"
#include "passes/passes.h"
#include "util/hash.h"

/* ---------------------------------------------------------------- runtime-only TF ops */

static const char H_VAR[] = "the graph still holds variables: give it weights (--checkpoint / a "
                            "SavedModel directory) or freeze it";
static const char H_CKPT[] = "checkpoint save/restore machinery, not part of inference: freeze the "
                             "graph, or trim it away with --out-nodes";
static const char H_SUMMARY[] = "a TensorBoard summary op (training only): trim it away with "
                                "--out-nodes";
static const char H_QUEUE[] = "an input-pipeline queue or reader op: feed the model through a "
                              "Placeholder (--input-shape NAME:DIMS makes a node one), or trim it "
                              "away with --out-nodes";
static const char H_INIT[] = "an initialiser or lookup-table op that runs before inference: freeze "
                             "the graph, or trim it away with --out-nodes";
static const char H_TRAIN[] = "an optimizer update (a training graph): convert the inference "
                              "graph (freeze it, or trim with --out-nodes)";

typedef struct runtime_op {
  const char *type;
  const char *hint;
} runtime_op;

/* Sorted by type (bsearch); every name is a TF op (tests/cli/diag_summary.sh checks them
 * against stdlib/ops/tf-ops.tsv). */
static const runtime_op runtime_ops[] = {
  {"Assign", H_VAR}, {"AssignAdd", H_VAR}, {"AssignAddVariableOp", H_VAR},
  {"AssignSub", H_VAR}, {"AssignSubVariableOp", H_VAR}, {"AssignVariableOp", H_VAR},
  {"AudioSummary", H_SUMMARY}, {"AudioSummaryV2", H_SUMMARY},
  {"CloseSummaryWriter", H_SUMMARY}, {"CreateSummaryDbWriter", H_SUMMARY},
  {"CreateSummaryFileWriter", H_SUMMARY}, {"DestroyResourceOp", H_VAR},
  {"DestroyTemporaryVariable", H_VAR}, {"FIFOQueue", H_QUEUE}, {"FIFOQueueV2", H_QUEUE},
  {"FakeQueue", H_QUEUE}, {"FixedLengthRecordReader", H_QUEUE},
  {"FixedLengthRecordReaderV2", H_QUEUE}, {"FlushSummaryWriter", H_SUMMARY},
  {"HashTable", H_INIT}, {"HashTableV2", H_INIT}, {"HistogramSummary", H_SUMMARY},
  {"IdentityReader", H_QUEUE}, {"IdentityReaderV2", H_QUEUE}, {"ImageSummary", H_SUMMARY},
  {"ImportEvent", H_SUMMARY}, {"InitializeTable", H_INIT},
  {"InitializeTableFromDataset", H_INIT}, {"InitializeTableFromTextFile", H_INIT},
  {"InitializeTableFromTextFileV2", H_INIT}, {"InitializeTableV2", H_INIT},
  {"IsVariableInitialized", H_VAR}, {"LookupTableImport", H_INIT},
  {"LookupTableImportV2", H_INIT}, {"LookupTableInsert", H_INIT},
  {"LookupTableInsertV2", H_INIT}, {"MergeSummary", H_SUMMARY},
  {"MergeV2Checkpoints", H_CKPT}, {"MutableDenseHashTable", H_INIT},
  {"MutableDenseHashTableV2", H_INIT}, {"MutableHashTable", H_INIT},
  {"MutableHashTableOfTensors", H_INIT}, {"MutableHashTableOfTensorsV2", H_INIT},
  {"MutableHashTableV2", H_INIT}, {"PaddingFIFOQueue", H_QUEUE},
  {"PaddingFIFOQueueV2", H_QUEUE}, {"PriorityQueue", H_QUEUE}, {"PriorityQueueV2", H_QUEUE},
  {"QueueClose", H_QUEUE}, {"QueueCloseV2", H_QUEUE}, {"QueueDequeue", H_QUEUE},
  {"QueueDequeueMany", H_QUEUE}, {"QueueDequeueManyV2", H_QUEUE},
  {"QueueDequeueUpTo", H_QUEUE}, {"QueueDequeueUpToV2", H_QUEUE},
  {"QueueDequeueV2", H_QUEUE}, {"QueueEnqueue", H_QUEUE}, {"QueueEnqueueMany", H_QUEUE},
  {"QueueEnqueueManyV2", H_QUEUE}, {"QueueEnqueueV2", H_QUEUE}, {"QueueIsClosed", H_QUEUE},
  {"QueueIsClosedV2", H_QUEUE}, {"QueueSize", H_QUEUE}, {"QueueSizeV2", H_QUEUE},
  {"RandomShuffleQueue", H_QUEUE}, {"RandomShuffleQueueV2", H_QUEUE},
  {"ReadVariableOp", H_VAR}, {"ReaderNumRecordsProduced", H_QUEUE},
  {"ReaderNumRecordsProducedV2", H_QUEUE}, {"ReaderRead", H_QUEUE},
  {"ReaderReadUpTo", H_QUEUE}, {"ReaderReadUpToV2", H_QUEUE}, {"ReaderReadV2", H_QUEUE},
  {"ReaderReset", H_QUEUE}, {"ReaderResetV2", H_QUEUE}, {"Restore", H_CKPT},
  {"RestoreSlice", H_CKPT}, {"RestoreV2", H_CKPT}, {"Save", H_CKPT}, {"SaveSlices", H_CKPT},
  {"SaveV2", H_CKPT}, {"ScalarSummary", H_SUMMARY}, {"ShardedFilename", H_CKPT},
  {"ShardedFilespec", H_CKPT}, {"TFRecordReader", H_QUEUE}, {"TFRecordReaderV2", H_QUEUE},
  {"TemporaryVariable", H_VAR}, {"TensorSummary", H_SUMMARY}, {"TensorSummaryV2", H_SUMMARY},
  {"TextLineReader", H_QUEUE}, {"TextLineReaderV2", H_QUEUE}, {"VarHandleOp", H_VAR},
  {"VarIsInitializedOp", H_VAR}, {"Variable", H_VAR}, {"VariableV2", H_VAR},
  {"WholeFileReader", H_QUEUE}, {"WholeFileReaderV2", H_QUEUE},
  {"WriteAudioSummary", H_SUMMARY}, {"WriteGraphSummary", H_SUMMARY},
  {"WriteHistogramSummary", H_SUMMARY}, {"WriteImageSummary", H_SUMMARY},
  {"WriteRawProtoSummary", H_SUMMARY}, {"WriteScalarSummary", H_SUMMARY},
  {"WriteSummary", H_SUMMARY},
};

static int cmp_runtime(const void *k, const void *e) {
  return strcmp((const char *)k, ((const runtime_op *)e)->type);
}

const char *tfx_runtime_only_hint(const char *tf_type) {
  if (!tf_type) return NULL;
  const runtime_op *r = bsearch(tf_type, runtime_ops, sizeof runtime_ops / sizeof runtime_ops[0],
                                sizeof runtime_ops[0], cmp_runtime);
  if (r) return r->hint;
  /* optimizer updates: ApplyAdam, ResourceApplyAdam, SparseApplyFtrl, ResourceSparseApply... */
  if (strncmp(tf_type, "Apply", 5) == 0 || strncmp(tf_type, "ResourceApply", 13) == 0 ||
      strncmp(tf_type, "SparseApply", 11) == 0 || strncmp(tf_type, "ResourceSparseApply", 19) == 0)
    return H_TRAIN;
  return NULL;
}

size_t tfx_runtime_only_ops(const char *const **types) {
  static const char *names[sizeof runtime_ops / sizeof runtime_ops[0]];
  for (size_t i = 0; i < sizeof runtime_ops / sizeof runtime_ops[0]; i++)
    names[i] = runtime_ops[i].type;
  *types = names;
  return sizeof runtime_ops / sizeof runtime_ops[0];
}

static void hints_graph(tfx_mapped_graph *mg) {
  for (uint32_t i = 0; mg->g && mg->ops && i < mg->g->n_nodes; i++) {
    tfx_mapped_op *op = &mg->ops[i];
    if (op->how != TFX_MAP_UNSUPPORTED && op->how != TFX_MAP_PASSTHROUGH) continue;
    const char *h = tfx_runtime_only_hint(mg->g->nodes[i].op);
    if (h) op->hint = h;
  }
}

void tfx_precheck_runtime_hints(tfx_ctx *ctx) {
  tfx_opmap *om = ctx->opmap;
  if (!om) return;
  hints_graph(&om->main);
  for (uint32_t i = 0; i < om->n_funcs; i++) hints_graph(&om->funcs[i]);
}

/* ---------------------------------------------------------------- grouped summary */

enum { K_UNSUPPORTED, K_INVALID, K_PASSTHROUGH };

typedef struct group {
  int kind;
  const char *type, *mapped, *message, *hint;
  const tfx_graph *g;   /* the example node's graph */
  const char *example;  /* its name */
  uint32_t count, order;
} group;

static int kind_of(const tfx_mapped_op *op) {
  if (op->how == TFX_MAP_UNSUPPORTED) return K_UNSUPPORTED;
  if (op->how == TFX_MAP_NONE || op->cause != TFX_CAUSE_OK) return K_INVALID;
  if (op->how == TFX_MAP_PASSTHROUGH) return K_PASSTHROUGH;
  return -1;
}

static const char *none_msg(const tfx_mapped_op *op) {
  if (op->message) return op->message;
  return op->how == TFX_MAP_NONE ? "not mapped: the op mapping stopped at a rule run-time error"
                                 : "invalid mapping";
}

/* "node 'n'" or "node 'n' in function 'f'". */
static void where(char *buf, size_t n, const tfx_graph *g, const char *node) {
  if (g->func) snprintf(buf, n, "node '%s' in function '%s'", node, g->name);
  else snprintf(buf, n, "node '%s'", node);
}

static void report(tfx_diag *d, const char *file, const group *gr) {
  char w[1024];
  where(w, sizeof w, gr->g, gr->example);
  /* a passthrough node runs under its TF type: only a runtime-only cause is worth saying */
  const char *h = gr->kind == K_PASSTHROUGH && !tfx_runtime_only_hint(gr->type) ? NULL : gr->hint;
  const char *sep = h ? "; " : "", *hint = h ? h : "";
  if (gr->count == 1) { /* as each node was reported before grouping */
    if (gr->kind == K_UNSUPPORTED)
      tfx_error(d, file, 0, 0, "%s: op type '%s' is not supported: no op map and no CANN "
                "prototype of that name%s%s", w, gr->type, sep, hint);
    else if (gr->kind == K_INVALID)
      tfx_error(d, file, 0, 0, "%s (op '%s' -> '%s'): %s%s%s", w, gr->type, gr->mapped,
                gr->message, sep, hint);
    else
      tfx_warning(d, file, 0, 0, "%s: op type '%s' has no CANN mapping; kept as '%s' "
                  "(--passthrough-unknown)%s%s", w, gr->type, gr->mapped, sep, hint);
    return;
  }
  if (gr->kind == K_UNSUPPORTED)
    tfx_error(d, file, 0, 0, "%u nodes of op type '%s' are not supported: no op map and no CANN "
              "prototype of that name%s%s (e.g. %s)", gr->count, gr->type, sep, hint, w);
  else if (gr->kind == K_INVALID)
    tfx_error(d, file, 0, 0, "%u nodes of op type '%s' (-> '%s'): %s%s%s (e.g. %s)", gr->count,
              gr->type, gr->mapped, gr->message, sep, hint, w);
  else
    tfx_warning(d, file, 0, 0, "%u nodes of op type '%s' have no CANN mapping; kept as '%s' "
                "(--passthrough-unknown)%s%s (e.g. %s)", gr->count, gr->type, gr->mapped, sep,
                hint, w);
}

static int cmp_group(const void *a, const void *b) {
  const group *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* Appends s and a separator byte to the key buffer. */
static void key_add(tfx_strbuf *k, const char *s) {
  if (s) tfx_sb_puts(k, s);
  tfx_sb_putc(k, '\x1f');
}

uint32_t tfx_precheck_summary(const tfx_ctx *ctx, int per_node, uint32_t *n_lines) {
  const tfx_opmap *om = ctx->opmap;
  tfx_diag *d = ctx->diag;
  const char *file = ctx->model.path;
  uint32_t lines = 0;
  if (n_lines) *n_lines = 0;
  if (!om) return 0;
  uint32_t failed = 0;
  group *gs = NULL;
  uint32_t n = 0, cap = 0;
  tfx_hmap idx;
  tfx_hmap_init(&idx);
  tfx_arena keys;
  tfx_arena_init(&keys);
  tfx_strbuf k;
  tfx_sb_init(&k);
  int oom = 0;
  uint32_t order = 0;
  for (uint32_t gi = 0; gi <= om->n_funcs && !oom; gi++) {
    const tfx_mapped_graph *mg = gi == 0 ? &om->main : &om->funcs[gi - 1];
    for (uint32_t i = 0; mg->g && mg->ops && i < mg->g->n_nodes && !oom; i++) {
      const tfx_mapped_op *op = &mg->ops[i];
      int kind = kind_of(op);
      if (kind < 0) continue;
      if (kind != K_PASSTHROUGH) failed++;
      group gr = {kind, mg->g->nodes[i].op ? mg->g->nodes[i].op : "",
                  op->type ? op->type : "?", kind == K_INVALID ? none_msg(op) : NULL, op->hint,
                  mg->g, mg->g->nodes[i].name, 1, order++};
      if (per_node) {
        report(d, file, &gr);
        lines += kind != K_PASSTHROUGH;
        continue;
      }
      k.len = 0;
      tfx_sb_putc(&k, (char)('0' + kind));
      key_add(&k, gr.type);
      key_add(&k, kind == K_UNSUPPORTED ? "" : gr.mapped);
      key_add(&k, gr.message);
      key_add(&k, gr.hint);
      char *key = k.oom ? NULL : tfx_arena_alloc(&keys, k.len ? k.len : 1);
      if (!key) {
        oom = 1;
        break;
      }
      memcpy(key, k.data, k.len);
      uint32_t prev;
      int put = tfx_hmap_put(&idx, key, k.len, n, &prev);
      if (put < 0) {
        oom = 1;
        break;
      }
      if (put == 0) {
        gs[prev].count++;
        continue;
      }
      if (n == cap) {
        uint32_t nc = cap ? cap * 2 : 16;
        group *v = tfx_realloc(gs, (size_t)nc * sizeof *v);
        if (!v) {
          oom = 1;
          break;
        }
        gs = v;
        cap = nc;
      }
      gs[n++] = gr;
    }
  }
  if (per_node && n_lines) *n_lines = lines;
  if (oom) { /* out of memory: one line per node still says everything */
    tfx_sb_free(&k);
    tfx_arena_free(&keys);
    tfx_hmap_free(&idx);
    free(gs);
    return tfx_precheck_summary(ctx, 1, n_lines);
  }
  if (n) qsort(gs, n, sizeof *gs, cmp_group);
  for (uint32_t i = 0; i < n; i++) {
    report(d, file, &gs[i]);
    lines += gs[i].kind != K_PASSTHROUGH;
  }
  if (n_lines) *n_lines = lines;
  tfx_sb_free(&k);
  tfx_arena_free(&keys);
  tfx_hmap_free(&idx);
  free(gs);
  return failed;
}
