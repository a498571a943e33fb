/* Rule-language AST: what grammar/rules.y builds for .scoperule and .opmap files.
 * Stage: rules, between the parser and sema/compiler. Input: builder calls from the grammar
 * (src/rules/build.h). Output: a tree owned by the rule set's arena (never freed piecewise);
 * every node carries a tfx_rules_loc. Lists are singly linked through `next` in source order,
 * with their length alongside. Names are NUL-terminated arena strings; string literals also
 * keep their byte length (they may contain "\0"). See docs/LANGUAGE.md for the meaning. */
#ifndef TFX_RULES_AST_H
#define TFX_RULES_AST_H

#include <stddef.h>
#include <stdint.h>

/* A source range: file id (index into the rule set's sources) and byte offsets [off, end).
 * Line and column are computed on demand (tfx_ruleset_linecol in rules/load.h). */
typedef struct tfx_rules_loc {
  uint32_t file;
  uint32_t off, end;
} tfx_rules_loc;

/* Limits on nesting, so no later recursive walk can overflow the C stack: the hard cap of the
 * rule-depth limit (util/limits.h; default 256, set per rule set with tfx_ruleset_set_max_depth).
 * Depths are stored saturated at TFX_AST_MAX_DEPTH + 1; every recursive walk stops there. */
#define TFX_AST_MAX_DEPTH 1024u
#define TFX_AST_DEFAULT_DEPTH 256u

typedef enum tfx_ast_file_kind { TFX_AST_SCOPERULE, TFX_AST_OPMAP } tfx_ast_file_kind;

/* A name with its own location (op types, attribute names, sub_types, bindings). */
typedef struct tfx_ast_name {
  const char *s;
  tfx_rules_loc loc;
  struct tfx_ast_name *next;
} tfx_ast_name;

/* ---------------------------------------------------------------- expressions */

typedef enum tfx_ast_expr_kind {
  TFX_AST_E_INT,     /* u.i */
  TFX_AST_E_FLOAT,   /* u.f (inf and nan included) */
  TFX_AST_E_BOOL,    /* u.b */
  TFX_AST_E_STRING,  /* u.str */
  TFX_AST_E_NONE,
  TFX_AST_E_DTYPE,   /* u.name: "DT_FLOAT", ... (sema checks the name) */
  TFX_AST_E_LIST,    /* u.list: [a, b, ...] */
  TFX_AST_E_DICT,    /* u.dict: {k: v, ...} */
  TFX_AST_E_IDENT,   /* u.name: a binding (.scoperule) or a TF attribute / builtin (.opmap) */
  TFX_AST_E_INPUT,   /* u.i: `in N` (a data input of the TF node, or a boundary input) */
  TFX_AST_E_UNARY,   /* u.op with a only: not, - */
  TFX_AST_E_BINARY,  /* u.op: a OP b (and/or are short-circuit, ?? is TFX_AST_OP_COALESCE) */
  TFX_AST_E_COND,    /* u.cond: c ? t : f */
  TFX_AST_E_INDEX,   /* u.index: base[index] */
  TFX_AST_E_SLICE,   /* u.slice: base[lo:hi], lo/hi NULL when omitted */
  TFX_AST_E_PERMUTE, /* u.index: base[[i, j, ...]] (index is an E_LIST) */
  TFX_AST_E_PROP,    /* u.prop: base.name */
  TFX_AST_E_CALL,    /* u.call: f(args) */
  TFX_AST_E_QUANT    /* u.quant: any/all/count/first(v in list : cond) */
} tfx_ast_expr_kind;

typedef enum tfx_ast_op {
  TFX_AST_OP_NOT, TFX_AST_OP_NEG,
  TFX_AST_OP_OR, TFX_AST_OP_AND, TFX_AST_OP_COALESCE,
  TFX_AST_OP_EQ, TFX_AST_OP_NE, TFX_AST_OP_LT, TFX_AST_OP_LE, TFX_AST_OP_GT, TFX_AST_OP_GE,
  TFX_AST_OP_CONTAINS, TFX_AST_OP_STARTS_WITH, TFX_AST_OP_ENDS_WITH,
  TFX_AST_OP_ADD, TFX_AST_OP_SUB, TFX_AST_OP_MUL, TFX_AST_OP_DIV, TFX_AST_OP_MOD
} tfx_ast_op;

/* The operator's spelling ("==", "contains", ...). */
const char *tfx_ast_op_name(tfx_ast_op op);

typedef enum tfx_ast_quant_kind { TFX_AST_Q_ANY, TFX_AST_Q_ALL, TFX_AST_Q_COUNT, TFX_AST_Q_FIRST } tfx_ast_quant_kind;

typedef struct tfx_ast_expr tfx_ast_expr;
struct tfx_ast_expr {
  tfx_ast_expr_kind kind;
  tfx_rules_loc loc;
  uint16_t depth;     /* 1 + the deepest child (bounded by TFX_AST_MAX_DEPTH + 1) */
  uint8_t int_min;    /* E_INT: the literal 9223372036854775808 not (yet) negated: an error */
  uint8_t paren;      /* written in parentheses */
  tfx_ast_expr *next; /* next element of an argument / list / dict list */
  union {
    int64_t i;
    double f;
    int b;
    const char *name;
    struct { const char *s; size_t len; } str;
    struct { tfx_ast_expr *items; uint32_t n; } list;
    struct { tfx_ast_expr *keys, *values; uint32_t n; } dict;  /* parallel lists */
    struct { tfx_ast_op op; tfx_ast_expr *a, *b; } op;            /* b NULL for unary */
    struct { tfx_ast_expr *c, *t, *f; } cond;
    struct { tfx_ast_expr *base, *index; } index;
    struct { tfx_ast_expr *base, *lo, *hi; } slice;
    struct { tfx_ast_expr *base; const char *name; tfx_rules_loc name_loc; } prop;
    struct { const char *name; tfx_rules_loc name_loc; tfx_ast_expr *args; uint32_t nargs; } call;
    struct {
      tfx_ast_quant_kind q;
      const char *var;
      tfx_rules_loc var_loc;
      tfx_ast_expr *list, *cond;
    } quant;
  } u;
};

/* ---------------------------------------------------------------- scope rules */

typedef enum tfx_ast_feature_kind {
  TFX_AST_F_COUNT_EQ,   /* count T == n          : op_type, value */
  TFX_AST_F_COUNT_STEP, /* count T % k == m      : op_type, step, value */
  TFX_AST_F_PRESENT,    /* present T             : op_type */
  TFX_AST_F_ABSENT,     /* absent T              : op_type */
  TFX_AST_F_ATTR_EQ,    /* attr T.a == v         : op_type, attr, value (a literal) */
  TFX_AST_F_SCOPES_EQ,  /* scopes S == n         : sub_type, value */
  TFX_AST_F_NAME_EQ,    /* name == "x"           : value */
  TFX_AST_F_HAS_CHILD   /* has_child "m"         : value */
} tfx_ast_feature_kind;

typedef struct tfx_ast_feature {
  tfx_ast_feature_kind kind;
  tfx_rules_loc loc;        /* the feature keyword */
  tfx_ast_name op_type;     /* COUNT_*, PRESENT, ABSENT, ATTR_EQ */
  tfx_ast_name attr;        /* ATTR_EQ */
  tfx_ast_name sub_type;    /* SCOPES_EQ */
  tfx_ast_expr *step;       /* COUNT_STEP: k */
  tfx_ast_expr *value;      /* n, m, v, "x", "m" (sema checks it is a literal of the right type) */
  struct tfx_ast_feature *next;
} tfx_ast_feature;

typedef struct tfx_ast_pattern {
  tfx_ast_name sub_type;    /* the sub_type a matching scope receives */
  tfx_rules_loc loc;
  tfx_ast_feature *features;
  uint32_t n_features;
  struct tfx_ast_pattern *next;
} tfx_ast_pattern;

typedef struct tfx_ast_layer {   /* one batch: its patterns are alternatives */
  tfx_rules_loc loc;
  tfx_ast_pattern *patterns;
  uint32_t n_patterns;
  struct tfx_ast_layer *next;
} tfx_ast_layer;

typedef struct tfx_ast_group {   /* one ScopeFusionPatterns */
  tfx_rules_loc loc;
  tfx_ast_layer *layers;
  uint32_t n_layers;
  struct tfx_ast_group *next;
} tfx_ast_group;

/* `fuse a in S1, S2, b in S3`: one binding per variable with its sub_type alternatives. */
typedef struct tfx_ast_binding {
  tfx_ast_name var;
  tfx_ast_name *sub_types;
  uint32_t n_sub_types;
  struct tfx_ast_expr *source; /* `v in f()`: a call giving the candidate scopes (no sub_types) */
  struct tfx_ast_binding *next;
} tfx_ast_binding;

/* One `p -> q` entry of an index map; q < 0 with to_none set means `none` (dropped). */
typedef struct tfx_ast_portmap {
  tfx_rules_loc loc;
  int64_t from, to;
  int to_none;
  struct tfx_ast_portmap *next;
} tfx_ast_portmap;

/* An argument of an inner node: `in N`, `NAME:PORT` or `const LITERAL`. */
/* In `rewrite` rules also a bare NAME (TFX_AST_ARG_NAME: port 0 of a matched or new node, a
 * capture, or `_`), and NAME:PORT of a matched or new node. */
typedef enum tfx_ast_arg_kind { TFX_AST_ARG_INPUT, TFX_AST_ARG_PORT, TFX_AST_ARG_CONST, TFX_AST_ARG_NAME } tfx_ast_arg_kind;
typedef struct tfx_ast_node_arg {
  tfx_ast_arg_kind kind;
  tfx_rules_loc loc;
  int64_t port;             /* INPUT: N; PORT: PORT */
  tfx_ast_name node;        /* PORT: the inner node */
  tfx_ast_expr *value;      /* CONST */
  struct tfx_ast_node_arg *next;
} tfx_ast_node_arg;

typedef struct tfx_ast_stmt tfx_ast_stmt;

typedef enum tfx_ast_stmt_kind {
  /* fuse bodies (.scoperule) */
  TFX_AST_S_SCOPES,      /* scopes E, ...;        exprs */
  TFX_AST_S_NAME,        /* name E;               expr */
  TFX_AST_S_TYPE,        /* type T;               name */
  TFX_AST_S_DESCRIPTION, /* description E;        expr */
  TFX_AST_S_INDEX_MAP,   /* input|output KEY {p -> q, ...};   is_output, expr = key, ports */
  TFX_AST_S_ABSORB,      /* absorb E;             expr */
  TFX_AST_S_LET,         /* let NAME = E;         name, expr */
  TFX_AST_S_IF,          /* if C {..} else {..};  expr = cond, body, else_body (may be NULL) */
  TFX_AST_S_INVALID,     /* invalid E;            expr */
  /* both fuse bodies and graph maps */
  TFX_AST_S_ATTR,        /* attr NAME = E;        name, expr */
  TFX_AST_S_NODE,        /* node NAME: TYPE(args) { attr / format }   name, type, args, body */
  TFX_AST_S_OUT,         /* out N = NODE:PORT;    index, port_node, port */
  TFX_AST_S_FORMAT,      /* format input|output N = E;   is_output, index_expr, expr */
  /* op maps (.opmap) */
  TFX_AST_S_AUTO,        /* auto; */
  TFX_AST_S_DROP,        /* drop a, b;            names */
  TFX_AST_S_PORT,        /* input|output NAME = N;  is_output, name, index_expr */
  TFX_AST_S_OPTIONAL,    /* optional input NAME = N [when C];  name, index_expr, expr (NULL) */
  TFX_AST_S_DYNAMIC,     /* dynamic input|output NAME count E;  is_output, name, expr */
  TFX_AST_S_DELETE,      /* delete input N when C;  index_expr, expr */
  TFX_AST_S_WHEN,        /* when C;               expr */
  TFX_AST_S_PRIORITY,    /* priority N;           index */
  /* fuse bodies, added later */
  TFX_AST_S_ABSENT_PORT, /* absent input|output N;  is_output, expr (an integer literal) */
  /* dataflow rewrites (`rewrite` in .scoperule) */
  TFX_AST_S_MATCH,       /* match NAME: T1|T2(refs) [where C];  name, names = types, args, expr */
  TFX_AST_S_WHERE,       /* where C;              expr */
  TFX_AST_S_REWIRE       /* out REF = REF;        args = the matched output, args->next = its new source */
} tfx_ast_stmt_kind;

struct tfx_ast_stmt {
  tfx_ast_stmt_kind kind;
  tfx_rules_loc loc;        /* the statement keyword */
  int is_output;
  tfx_ast_name name;        /* LET/ATTR/NODE/PORT/OPTIONAL/DYNAMIC name; TYPE: op type */
  tfx_ast_name type;        /* NODE: op type */
  tfx_ast_expr *expr;       /* see the kinds */
  tfx_ast_expr *exprs;      /* SCOPES: the list (through next) */
  uint32_t n_exprs;
  tfx_ast_expr *index_expr; /* FORMAT/PORT/OPTIONAL/DELETE: the port number */
  int64_t index;            /* OUT: boundary output N; PRIORITY: N */
  tfx_ast_name port_node;   /* OUT: the inner node */
  int64_t port;             /* OUT: its port */
  tfx_ast_portmap *ports;   /* INDEX_MAP */
  uint32_t n_ports;
  tfx_ast_node_arg *args;   /* NODE */
  uint32_t n_args;
  tfx_ast_name *names;      /* DROP; MATCH: the op type alternatives */
  tfx_ast_stmt *body;       /* IF then-branch; NODE attr/format statements */
  tfx_ast_stmt *else_body;  /* IF: else branch (an else-if is a single IF statement) */
  int has_else;
  uint16_t depth;           /* block nesting (bounded by TFX_AST_MAX_DEPTH + 1) */
  uint8_t optional;         /* INDEX_MAP: `optional input|output KEY {...}` (the key may match
                               no node of the result) */
  tfx_ast_stmt *next;
};

typedef struct tfx_ast_fuse {
  tfx_rules_loc loc;        /* the `fuse` keyword */
  tfx_ast_binding *bindings;
  uint32_t n_bindings;
  tfx_ast_expr *where;      /* NULL when absent */
  tfx_ast_stmt *body;
  struct tfx_ast_fuse *next;
} tfx_ast_fuse;

typedef struct tfx_ast_require {
  tfx_rules_loc loc;
  tfx_ast_expr *cond;
  struct tfx_ast_require *next;
} tfx_ast_require;

typedef struct tfx_ast_pass {
  tfx_ast_name name;        /* the registered name */
  tfx_rules_loc loc;        /* the `pass` keyword */
  int general;              /* enabled by default */
  tfx_ast_group *groups;
  uint32_t n_groups;
  tfx_ast_require *requires;
  uint32_t n_requires;
  tfx_ast_fuse *fuses;
  uint32_t n_fuses;
  int overridden;             /* set by tfx_rules_check: an earlier pass has this name, so this
                                 one is not registered (and not listed by tfx_ruleset_pass) */
  struct tfx_ast_pass *next;  /* next pass of the same file */
} tfx_ast_pass;

/* ---------------------------------------------------------------- dataflow rewrites */

/* `rewrite NAME [general] { match ...; where ...; node ...; out ...; }` (docs/LANGUAGE.md,
 * "Dataflow rewrites"). The first `match` is the root. */
typedef struct tfx_ast_rewrite {
  tfx_ast_name name;
  tfx_rules_loc loc;        /* the `rewrite` keyword */
  int general;              /* on by default */
  tfx_ast_stmt *body;       /* MATCH, WHERE, NODE, REWIRE statements in source order */
  int overridden;           /* set by the checker: an earlier rewrite has this name */
  struct tfx_ast_rewrite *next;
} tfx_ast_rewrite;

/* ---------------------------------------------------------------- op maps */

typedef struct tfx_ast_opmap {
  tfx_rules_loc loc;        /* the `op` keyword */
  tfx_ast_name *from;       /* TF op types (at least one) */
  uint32_t n_from;
  tfx_ast_name to;          /* the CANN type; to.s == NULL for a graph map */
  int is_graph;             /* `op T -> graph { ... }` */
  tfx_ast_stmt *body;
  /* Summaries filled in by the builder (the statements stay in body): */
  tfx_ast_expr *when;       /* the `when` condition or NULL */
  int64_t priority;         /* default 0 */
  struct tfx_ast_opmap *next;
} tfx_ast_opmap;

/* ---------------------------------------------------------------- a parsed file */

typedef struct tfx_ast_file {
  tfx_ast_file_kind kind;
  uint32_t file;            /* source id */
  tfx_ast_pass *passes;     /* .scoperule */
  uint32_t n_passes;
  tfx_ast_opmap *opmaps;    /* .opmap */
  uint32_t n_opmaps;
  tfx_ast_rewrite *rewrites; /* .scoperule */
  uint32_t n_rewrites;
} tfx_ast_file;

#endif
