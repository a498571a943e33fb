/* Resource limits: names, defaults and maxima (see limits.h). */
#include "util/limits.h"

#include <string.h>

const tfx_limit_info tfx_limit_table[TFX_LIMIT__COUNT] = {
  [TFX_LIMIT_DEPTH] = {"depth", TFX_LIMIT_DEPTH_DEFAULT, TFX_LIMIT_DEPTH_MAX, 0,
                       "message nesting of a model"},
  [TFX_LIMIT_STRING] = {"string", TFX_LIMIT_STRING_DEFAULT, TFX_LIMIT_STRING_DEFAULT, 1,
                        "bytes of one string/bytes value of a model"},
  [TFX_LIMIT_LIST] = {"list", TFX_LIMIT_LIST_DEFAULT, (uint64_t)UINT32_MAX, 0,
                      "elements of one repeated field of a model"},
  [TFX_LIMIT_NODES] = {"nodes", TFX_LIMIT_NODES_DEFAULT, TFX_LIMIT_NODES_MAX, 0,
                       "nodes per graph"},
  [TFX_LIMIT_SCOPE_DEPTH] = {"scope-depth", TFX_LIMIT_SCOPE_DEPTH_DEFAULT, (uint64_t)UINT32_MAX - 2, 0,
                             "depth of the scope tree"},
  [TFX_LIMIT_RULE_DEPTH] = {"rule-depth", TFX_LIMIT_RULE_DEPTH_DEFAULT, TFX_LIMIT_RULE_DEPTH_MAX, 0,
                            "nesting of rule expressions and blocks"},
  [TFX_LIMIT_OUTPUT_SIZE] = {"output-size", TFX_LIMIT_OUTPUT_SIZE_DEFAULT, UINT64_MAX >> 1, 1,
                             "bytes of one output file"},
  [TFX_LIMIT_EXTERNAL_WEIGHTS] = {"external-weights", TFX_LIMIT_EXTERNAL_WEIGHTS_DEFAULT,
                                  (uint64_t)INT32_MAX, 1,
                                  "an .air larger than this gets its weights as external files"},
};

uint64_t tfx_limit_get(const tfx_limits *l, tfx_limit_id id) {
  if ((unsigned)id >= TFX_LIMIT__COUNT) return 0;
  uint64_t v = l ? l->v[id] : 0;
  return v ? v : tfx_limit_table[id].def;
}

size_t tfx_limit_size(const tfx_limits *l, tfx_limit_id id) {
  uint64_t v = tfx_limit_get(l, id);
  return v > (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)v;
}

unsigned tfx_limit_uint(const tfx_limits *l, tfx_limit_id id) {
  uint64_t v = tfx_limit_get(l, id);
  return v > (uint64_t)UINT32_MAX ? UINT32_MAX : (unsigned)v;
}

int tfx_limit_lookup(const char *name, size_t len) {
  for (int i = 0; i < TFX_LIMIT__COUNT; i++)
    if (strlen(tfx_limit_table[i].name) == len && memcmp(tfx_limit_table[i].name, name, len) == 0)
      return i;
  return -1;
}
