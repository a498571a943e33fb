/* Resource limits of a run: how big or deep an input may be, how big an output.
 * Stage: shared utility. The CLI fills a tfx_limits from `--limit NAME=N` (docs/CLI.md,
 * "Limits"); every stage reads the value it enforces through tfx_limit_get, so 0 in a field
 * always means "the documented default". Two more limits live elsewhere for historical
 * reasons: file-size is tfx_options.max_file_size / tfx_load_opts.max_file_size, and vm-steps
 * is tfx_options.vm_budget (the CLI's --limit sets those). Where each limit is enforced:
 *   depth        io: wire.c (binary walk), pbtxt_parse.c (text)           exit 3
 *   string       io: wire.c (known string/bytes fields), pbtxt_parse.c     exit 3
 *   list         io: wire.c (per repeated field, packed values counted
 *                one by one; unknown fields per message), pbtxt_parse.c    exit 3
 *   nodes        graph: tfx_module_build_lim (main graph and every function) exit 3
 *   scope-depth  scope: tfx_scope_tree_build_lim                           exit 3
 *   rule-depth   rules: the rule parser (expressions and blocks)           exit 4
 *   external-weights  passes/pass_emit.c (ge/external.c): not an error, the
 *                size above which an .air's Const weights go to external files
 *   output-size  passes/pass_emit.c, pipeline dumps, --report, tfxc fmt,
 *                tfxc compile (the pack: cli/cmd_compile.c), tfxc test --update
 *                (the expectation files: cli/cmd_test.c)                  exit 1
 * Every limit error names the limit and says how to raise it. */
#ifndef TFX_UTIL_LIMITS_H
#define TFX_UTIL_LIMITS_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
  TFX_LIMIT_DEPTH,        /* message nesting of a model (binary and text) */
  TFX_LIMIT_STRING,       /* bytes of one string/bytes value of a model */
  TFX_LIMIT_LIST,         /* elements of one repeated field of a model */
  TFX_LIMIT_NODES,        /* nodes per graph (main graph, each function body) */
  TFX_LIMIT_SCOPE_DEPTH,  /* ScopeTree depth (root 0) */
  TFX_LIMIT_RULE_DEPTH,   /* nesting of rule expressions and blocks */
  TFX_LIMIT_OUTPUT_SIZE,  /* bytes of one output file */
  TFX_LIMIT_EXTERNAL_WEIGHTS, /* .air size above which Const weights go to external files */
  TFX_LIMIT__COUNT
} tfx_limit_id;

/* Defaults and hard maxima (the largest value --limit accepts). */
#define TFX_LIMIT_DEPTH_DEFAULT 100u            /* protoc's default */
#define TFX_LIMIT_DEPTH_MAX 1000u               /* recursive unpack/parse stay in the C stack */
#define TFX_LIMIT_STRING_DEFAULT ((uint64_t)INT32_MAX) /* protobuf's own maximum, 2 GiB - 1 */
#define TFX_LIMIT_LIST_DEFAULT ((uint64_t)1 << 26)      /* 64 Mi elements */
#define TFX_LIMIT_NODES_DEFAULT 10000000u
#define TFX_LIMIT_NODES_MAX ((uint64_t)UINT32_MAX - 1)
#define TFX_LIMIT_SCOPE_DEPTH_DEFAULT 512u
#define TFX_LIMIT_RULE_DEPTH_DEFAULT 256u
#define TFX_LIMIT_RULE_DEPTH_MAX 1024u          /* = TFX_AST_MAX_DEPTH, the parser's hard cap */
#define TFX_LIMIT_OUTPUT_SIZE_DEFAULT ((uint64_t)16 << 30) /* 16 GiB */
#define TFX_LIMIT_EXTERNAL_WEIGHTS_DEFAULT ((uint64_t)INT32_MAX) /* the largest .air ATC reads */

/* One value per tfx_limit_id; 0 = the default. */
typedef struct tfx_limits {
  uint64_t v[TFX_LIMIT__COUNT];
} tfx_limits;

typedef struct tfx_limit_info {
  const char *name;     /* as on the command line: "scope-depth" */
  uint64_t def;         /* default */
  uint64_t max;         /* largest accepted value */
  int is_size;          /* accepts K/M/G suffixes */
  const char *what;     /* one line for --help and messages */
} tfx_limit_info;

extern const tfx_limit_info tfx_limit_table[TFX_LIMIT__COUNT];

/* The value in force: l->v[id], or the default when l is NULL or the field is 0. */
uint64_t tfx_limit_get(const tfx_limits *l, tfx_limit_id id);
/* The same, saturated to size_t / unsigned. */
size_t tfx_limit_size(const tfx_limits *l, tfx_limit_id id);
unsigned tfx_limit_uint(const tfx_limits *l, tfx_limit_id id);
/* Limit id by name, or -1. */
int tfx_limit_lookup(const char *name, size_t len);

#endif
