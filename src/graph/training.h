/* Training machinery: which TF ops only serve training, checkpointing or input pipelines, and
 * pruning them from a GraphDef the way freeze_graph + strip_unused do for an inference model.
 * Stage: prune (after io, before graph). Input: a Tensorflow__GraphDef (its main node list;
 * library function bodies are only read, to classify call nodes). Output: the GraphDef edited
 * in place (gd->node replaced by an arena array of the kept nodes, original order), or a
 * report. Nothing is freed: gd must be arena-owned, as for graph/prune.h.
 *
 * Kinds (tfx_train_classify; op type names as TensorFlow spells them):
 *  - save/restore: SaveV2, Save, SaveSlices, RestoreV2, Restore, RestoreSlice,
 *    MergeV2Checkpoints, ShardedFilename, ShardedFilespec;
 *  - initialiser: IsVariableInitialized, VarIsInitializedOp, InitializeTable*;
 *  - assignment: Assign, AssignAdd, AssignSub, AssignVariableOp, AssignAddVariableOp,
 *    AssignSubVariableOp, Scatter* (not ScatterNd, ScatterNdNonAliasingAdd: they make a new
 *    tensor) and ResourceScatter* (variable updates);
 *  - summary: every op whose type ends in "Summary" or "SummaryV2", MergeSummary, Write*Summary,
 *    SummaryWriter, CreateSummaryFileWriter, CreateSummaryDbWriter, FlushSummaryWriter,
 *    CloseSummaryWriter;
 *  - queue: the queue ops (FIFOQueue*, RandomShuffleQueue*, PaddingFIFOQueue*, PriorityQueue*,
 *    Queue*) and readers (Reader*, *ReaderV2);
 *  - optimizer: Apply*, ResourceApply*, SparseApply*, ResourceSparseApply* (optimizer updates
 *    of weights and slots).
 * Variables (VariableV2, VarHandleOp, ReadVariableOp...) are not training machinery here: an
 * output may need them, and freezing turns them into Consts (another stage).
 *
 * Side effects: every kind except the producing queue/reader ops (dequeue, size, the queue and
 * reader resources) is a side effect: a node that runs one, directly, through a data or
 * control input (transitively), or through a call of a library function whose body (or a
 * function it calls) holds one, *serves training*.
 *
 * tfx_train_prune (used when no outputs are chosen: no signature, no --out-nodes): the sinks of
 * the graph (nodes no other node names as a data or control input) that do not serve training
 * and are no TF1 gradient tuple (`gradients[_N]/.../tuple/control_dependency[_N]`: the
 * Identity nodes tf.gradients makes for an optimizer; other gradient sinks stay, Ascend has
 * scope passes for gradient graphs) are the model's outputs; every node they do not reach over data and control inputs is
 * removed. When every sink serves training nothing is removed (the conversion then fails on
 * those nodes with a clear message; see tfx_train_report). Input names that are not nodes of
 * the graph are left alone here (indexing reports them).
 *
 * tfx_train_report: every training-machinery node still in the graph (what the outputs need)
 * gives one diagnostic per op type with the count and an example node, sorted by op type. */
#ifndef TFX_GRAPH_TRAINING_H
#define TFX_GRAPH_TRAINING_H

#include <stdint.h>

#include "tensorflow/graph.pb-c.h"
#include "util/arena.h"
#include "util/diag.h"
#include "util/status.h"

typedef enum {
  TFX_TRAIN_NONE = 0,
  TFX_TRAIN_SAVE,      /* save/restore */
  TFX_TRAIN_INIT,      /* initialiser */
  TFX_TRAIN_ASSIGN,    /* assignment */
  TFX_TRAIN_SUMMARY,   /* summary */
  TFX_TRAIN_QUEUE,     /* queue / reader */
  TFX_TRAIN_OPTIMIZER, /* optimizer update */
} tfx_train_kind;

/* The kind of an op type (NULL = TFX_TRAIN_NONE). */
tfx_train_kind tfx_train_classify(const char *op);
/* "save/restore", "initialiser", ... ("" for TFX_TRAIN_NONE). */
const char *tfx_train_kind_name(tfx_train_kind k);
/* 1 when running op is a side effect that only training or checkpointing needs. */
int tfx_train_is_effect(const char *op);

/* Removes what only training needs (see above). *removed (may be NULL) gets the number of
 * removed nodes; *any_train (may be NULL) 1 when the graph had a training-machinery node
 * (a kind other than TFX_TRAIN_NONE) before the pruning, else 0: with 0, tfx_train_report
 * on the result would report nothing. Returns TFX_OK, or TFX_E_NOMEM (reported). */
TFX_MUST_CHECK tfx_status tfx_train_prune(Tensorflow__GraphDef *gd, tfx_arena *a,
                                          const char *fname, tfx_diag *d, uint32_t *removed,
                                          int *any_train);

/* strip_unused for the function library: removes every library function that no main-graph
 * node uses (as its op type or through a func / list(func) attr, transitively through the
 * bodies), and the gradient entries naming a removed function. *removed (may be NULL) gets the
 * count. Returns TFX_OK, or TFX_E_NOMEM (reported). */
TFX_MUST_CHECK tfx_status tfx_train_strip_functions(Tensorflow__GraphDef *gd, tfx_arena *a,
                                                    const char *fname, tfx_diag *d,
                                                    uint32_t *removed);

/* Adds one diagnostic of severity sev per op type of training machinery left in gd:
 * "the outputs need N node(s) of op type T (KIND), which cannot run in an Ascend inference
 * model, e.g. 'NAME'". Returns the number of such nodes, or -1 on out of memory (reported). */
long tfx_train_report(const Tensorflow__GraphDef *gd, const char *fname, tfx_severity sev,
                      tfx_diag *d);

#endif
