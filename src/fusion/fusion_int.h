/* Scope-fusion internals shared by engine.c and apply.c (not part of the module's API).
 * Stage: fusion. A name-sorted node index answers "every node whose name starts with P" in
 * O(log N + k), which keeps children lookup linear on 10^5-node graphs. */
#ifndef TFX_FUSION_INT_H
#define TFX_FUSION_INT_H

#include <stdint.h>

#include "graph/graph.h"

#define TFX_FUSION_UNSET INT64_MIN /* an index-map port not yet given */

typedef struct tfx_fusion_name_ix {
  const char *name;
  uint32_t id;
} tfx_fusion_name_ix;

/* g's nodes sorted by name (byte order); malloc'ed, NULL on out of memory. */
tfx_fusion_name_ix *tfx_fusion_name_index(const tfx_graph *g);
/* First position whose name is >= prefix (the start of the names having that prefix). */
uint32_t tfx_fusion_prefix_first(const tfx_fusion_name_ix *ix, uint32_t n, const char *prefix);

#endif
