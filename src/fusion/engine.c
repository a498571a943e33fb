/* Scope-fusion engine: Ascend's ScopeBasePass::Run over one graph's ScopeTree, driven by the
 * pack's pattern (SCOPE) and selection (SELECT) programs.
 * Stage: fusion. Input: pack, graph index + ScopeTree, enable set. Output: one graph entry of
 * a tfx_fusion_report (matches per layer, sub_type changes, results, final name-keyed map).
 * See engine.h for the semantics; scope_pass.cc MatchAllBatches / MatchOneBatch /
 * MatchOneScope / Run / AddFusionScopesResultToScopeGraph are the reference. */
#include <stdlib.h>
#include <string.h>

#include "fusion/engine.h"
#include "fusion/fusion_int.h"
#include "util/status.h"
#include "util/progress.h"
#include "vm/bytecode.h"

/* ---------------------------------------------------------------- engine / report life */

tfx_status tfx_fusion_engine_init(tfx_fusion_engine *e, const tfx_pack *pack, tfx_diag *d) {
  memset(e, 0, sizeof *e);
  e->pack = pack;
  tfx_intern_init(&e->subtypes);
  e->vm = tfx_vm_new(pack);
  if (!e->vm) {
    tfx_intern_free(&e->subtypes);
    tfx_error(d, NULL, 0, 0, "out of memory (scope-fusion VM)");
    return TFX_E_NOMEM;
  }
  return TFX_OK;
}

void tfx_fusion_engine_free(tfx_fusion_engine *e) {
  tfx_vm_free(e->vm);
  tfx_intern_free(&e->subtypes);
  memset(e, 0, sizeof *e);
}

void tfx_fusion_report_init(tfx_fusion_report *r) {
  memset(r, 0, sizeof *r);
  tfx_arena_init(&r->arena);
}

void tfx_fusion_report_free(tfx_fusion_report *r) {
  tfx_arena_free(&r->arena);
  memset(r, 0, sizeof *r);
  tfx_arena_init(&r->arena);
}

/* ---------------------------------------------------------------- run state */

typedef struct map_b {             /* an index map under construction */
  const char *key;
  uint32_t klen;
  int64_t *to;
  uint32_t n, cap;
} map_b;

typedef struct key_site {          /* one index-map statement (FR_KEY) of the open result */
  int dir, optional;
  int64_t absent;                  /* `absent input N`: N (the key is ""), else -1 */
  int unmatched;                   /* an optional key that matches no child (check_keys) */
  const char *key;                 /* copy in the report arena */
  uint32_t klen, pc;
} key_site;

typedef struct builder {           /* the fusion result between FR_BEGIN and FR_END */
  int open;
  key_site *keys;
  uint32_t n_keys, cap_keys;
  tfx_fusion_result *r;
  uint32_t cap_scopes, cap_scope_names, cap_extra, cap_extra_names, cap_attrs, cap_inner, cap_outs;
  map_b *maps[2];
  uint32_t n_maps[2], cap_maps[2];
  tfx_hmap mh[2];                  /* key -> index into maps[dir], once there are many keys */
  int mh_on[2];                    /* mh[dir] holds every key of maps[dir] */
  tfx_fusion_inner *cur;           /* newest inner node */
  const char *prefix;              /* result name at the first NODE_NEW (NULL: not set then) */
  int prefix_known;
  int invalid;
  const char *reason;
} builder;

typedef struct run {
  tfx_fusion_engine *e;
  const tfx_pack *p;
  const tfx_module *m;
  const tfx_graph *g;
  tfx_scope_tree *t;
  tfx_arena *A;                    /* the report's arena */
  tfx_diag *d;
  int oom;
  const char **scope_names;        /* per scope: copy in A (lazy) */
  const char **node_names;         /* per node: copy in A (lazy) */
  const char **st_names;           /* per sub_type id: copy in A (lazy) */
  const char **op_names;           /* per module op id: copy in A (lazy; children's types) */
  uint32_t n_op_names;
  uint32_t n_st_names;
  /* children lookup */
  tfx_fusion_name_ix *by_name;     /* nodes sorted by name (lazy) */
  uint32_t *mark, stamp;
  /* the pass being run */
  uint32_t rule;
  const char *pass_name;
  tfx_fusion_pass_report *pr;
  uint32_t cap_results, cap_dropped;
  builder b;
  int stopped;                     /* an invalid result ended the pass's additions */
  tfx_fusion_result **pending;     /* results of this select run */
  uint32_t n_pending, cap_pending;
  /* the graph's name-keyed final map */
  tfx_fusion_result **final;
  uint32_t n_final, cap_final;
  tfx_hmap final_ix;
  char why[200];                   /* CheckInnerNodesInfo failure text */
  /* pattern index (see pattern_req): what each pattern requires, and scopes by LastName */
  int use_index;                   /* 0 when the VM is observed (--trace, explain) */
  struct pat_req *reqs;            /* per pack pattern, computed on first use */
  tfx_hmap ln_ix;                  /* LastName -> group in ln_start */
  uint32_t *ln_start, *ln_list;    /* group g: ln_list[ln_start[g] .. ln_start[g + 1]) */
  int ln_built;
  struct op_ix **by_op;            /* per module op id: scopes whose subtree has it (lazy) */
  uint32_t n_by_op;
  uint32_t max_direct;             /* most direct nodes of any scope (ATTR's step charge) */
  int max_direct_known;
  int snapped;                     /* snap holds the sub_types from before this pass's writes */
  uint32_t *snap;
  /* The dfs positions of every scope that had a sub_type at some point of this run (those set
   * before it, and every match since; a cleared one stays listed): a superset of the scopes
   * with a sub_type, so a sweep for sub_types (the `scopes(...)` builtin, a pass's changes,
   * the final sub_types) reads these instead of every scope. typed_sorted: ascending, no
   * repeats (else sorted on the next read). */
  uint32_t *typed;
  uint32_t n_typed, cap_typed;
  int typed_sorted;
  uint64_t tests, tests_total;     /* progress: scope tests made, and at most to make */
} run;

/* A VM run that failed with st (reported): out of memory is the run's too. Returns -1. */
static int vm_failed(run *r, tfx_status st) {
  if (st == TFX_E_NOMEM) r->oom = 1;
  return -1;
}

static int oom(run *r) {
  if (!r->oom) tfx_error(r->d, NULL, 0, 0, "out of memory (scope fusion)");
  r->oom = 1;
  return -1;
}

/* Grows an arena vector *v of *n elements (capacity *cap) by one slot. */
static int agrow(run *r, void **v, uint32_t *n, uint32_t *cap, size_t el) {
  if (*n < *cap) return 0;
  uint32_t nc = *cap ? *cap * 2 : 4;
  void *nv = tfx_arena_alloc(r->A, (size_t)nc * el);
  if (!nv) return oom(r);
  if (*n) memcpy(nv, *v, (size_t)*n * el);
  *v = nv;
  *cap = nc;
  return 0;
}
#define AGROW(r, v, n, cap) agrow((r), (void **)&(v), &(n), &(cap), sizeof *(v))

/* Same with malloc (run-local arrays). */
static int mgrow(run *r, void **v, uint32_t *n, uint32_t *cap, size_t el) {
  if (*n < *cap) return 0;
  uint32_t nc = *cap ? *cap * 2 : 8;
  void *nv = tfx_realloc(*v, (size_t)nc * el);
  if (!nv) return oom(r);
  *v = nv;
  *cap = nc;
  return 0;
}
#define MGROW(r, v, n, cap) mgrow((r), (void **)&(v), &(n), &(cap), sizeof *(v))

static const char *adup(run *r, const char *s, size_t n) {
  char *c = tfx_arena_strndup(r->A, s ? s : "", s ? n : 0);
  if (!c) oom(r);
  return c;
}

static const char *scope_name(run *r, uint32_t s) {
  if (!r->scope_names[s]) r->scope_names[s] = adup(r, r->t->scopes[s].name, strlen(r->t->scopes[s].name));
  return r->scope_names[s] ? r->scope_names[s] : "";
}

static const char *node_name(run *r, uint32_t n) {
  if (!r->node_names[n]) r->node_names[n] = adup(r, r->g->nodes[n].name, strlen(r->g->nodes[n].name));
  return r->node_names[n] ? r->node_names[n] : "";
}

/* Node n's op type, one copy in A per op type (the node's own string past the module's ops). */
static const char *op_name(run *r, uint32_t n) {
  const tfx_node *nd = &r->g->nodes[n];
  const char *op = nd->op ? nd->op : "";
  if (nd->op_id >= r->n_op_names) return adup(r, op, strlen(op));
  if (!r->op_names[nd->op_id]) r->op_names[nd->op_id] = adup(r, op, strlen(op));
  return r->op_names[nd->op_id];
}

static const char *st_name(run *r, uint32_t id) {
  if (id == TFX_NO_ID) return "";
  if (id >= r->n_st_names) {
    uint32_t nn = r->e->subtypes.n > id ? r->e->subtypes.n : id + 1;
    const char **v = tfx_realloc(r->st_names, (size_t)nn * sizeof *v);
    if (!v) {
      oom(r);
      return "";
    }
    for (uint32_t i = r->n_st_names; i < nn; i++) v[i] = NULL;
    r->st_names = v;
    r->n_st_names = nn;
  }
  if (!r->st_names[id]) {
    const char *s = tfx_intern_str(&r->e->subtypes, id);
    r->st_names[id] = adup(r, s, strlen(s));
  }
  return r->st_names[id] ? r->st_names[id] : "";
}

/* Deep copy of a VM value into the report arena; scopes and nodes become their names. */
static int copy_value(run *r, const tfx_value *in, tfx_value *out, unsigned depth) {
  if (depth > TFX_V_MAX_DEPTH) return oom(r);
  switch (in->tag) {
    case TFX_V_STR: {
      const char *s = adup(r, in->u.s, in->n);
      if (!s) return -1;
      *out = tfx_v_str(s, in->n);
      return 0;
    }
    case TFX_V_SCOPE: {
      const char *s = scope_name(r, in->u.id);
      *out = tfx_v_str(s, (uint32_t)strlen(s));
      return r->oom ? -1 : 0;
    }
    case TFX_V_NODE: {
      const char *s = node_name(r, in->u.id);
      *out = tfx_v_str(s, (uint32_t)strlen(s));
      return r->oom ? -1 : 0;
    }
    case TFX_V_LIST: {
      tfx_value *items = NULL;
      if (in->n) {
        items = tfx_arena_calloc(r->A, in->n, sizeof *items);
        if (!items) return oom(r);
        for (uint32_t i = 0; i < in->n; i++)
          if (copy_value(r, &in->u.items[i], &items[i], depth + 1)) return -1;
      }
      *out = tfx_v_list(items, in->n);
      return 0;
    }
    default:
      *out = *in;
      return 0;
  }
}

/* ---------------------------------------------------------------- diagnostics helpers */

/* Source site of the rule (pass) and, when the select program has exactly one FR_INVALID,
 * of that statement (the `invalid` site). */
static void rule_site(const tfx_pack *p, uint32_t rule, int want_invalid, const char **file,
                      unsigned *line, unsigned *col) {
  const tfx_vm_rule *ru = &p->rules[rule];
  *file = tfx_pack_file(p, ru->file);
  *line = ru->line;
  *col = 0;
  if (!want_invalid || ru->prog == TFX_PACK_NONE || ru->prog >= p->n_progs) return;
  const tfx_vm_prog *pg = &p->progs[ru->prog];
  uint32_t found = TFX_PACK_NONE, count = 0;
  for (uint32_t pc = pg->start; pc < pg->end;) {
    tfx_opcode op = TFX_INS_OP(&p->code[pc]);
    if (op == TFX_OP_FR_INVALID) {
      found = pc;
      count++;
    }
    pc += TFX_INS_LEN(op);
  }
  if (count != 1) return;
  const tfx_vm_loc *loc = tfx_pack_loc_at(p, found);
  if (!loc) return;
  *file = tfx_pack_file(p, loc->file);
  *line = loc->line;
  *col = loc->col;
}

static void host_error(run *r, const char *what) {
  const char *file;
  unsigned line, col;
  rule_site(r->p, r->rule, 0, &file, &line, &col);
  tfx_error(r->d, file, line, col, "rule '%s': %s", r->pass_name, what);
}

/* ---------------------------------------------------------------- children */

static int cmp_ix(const void *a, const void *b) {
  return strcmp(((const tfx_fusion_name_ix *)a)->name, ((const tfx_fusion_name_ix *)b)->name);
}

tfx_fusion_name_ix *tfx_fusion_name_index(const tfx_graph *g) {
  tfx_fusion_name_ix *ix = tfx_malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *ix);
  if (!ix) return NULL;
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    ix[i].name = g->nodes[i].name ? g->nodes[i].name : "";
    ix[i].id = i;
  }
  qsort(ix, g->n_nodes, sizeof *ix, cmp_ix);
  return ix;
}

uint32_t tfx_fusion_prefix_first(const tfx_fusion_name_ix *ix, uint32_t n, const char *prefix) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (strcmp(ix[mid].name, prefix) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Sorts v[0 .. n) ascending: by insertion when short (a result's children come as a few
 * ascending runs, one per scope), else qsort. */
static void sort_u32(uint32_t *v, uint32_t n) {
  if (n > 32) {
    qsort(v, n, sizeof *v, cmp_u32);
    return;
  }
  for (uint32_t i = 1; i < n; i++) {
    uint32_t x = v[i], j = i;
    for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
    v[j] = x;
  }
}

/* Children (docs/ASCEND.md §4.2): extra nodes, and nodes whose name has a member scope name as a strict
 * prefix. Graph order. When no node name has an empty piece (tfx_scope_tree.odd_names), the
 * nodes a scope's name prefixes are the nodes of its subtree, read from the tree; otherwise
 * (and for the root, named "root") they are looked up in the nodes sorted by name, which
 * costs a sort of every name on first use. */
static int compute_children(run *r, tfx_fusion_result *res) {
  const tfx_graph *g = r->g;
  const tfx_scope_tree *t = r->t;
  int by_tree = !t->odd_names && t->graph == g && t->node_scope;
  int need_ix = 0;
  for (uint32_t s = 0; s < res->n_scopes && !need_ix; s++) need_ix = !by_tree || res->scope_ids[s] == 0;
  if (!r->mark) {
    r->mark = tfx_calloc(g->n_nodes ? g->n_nodes : 1, sizeof *r->mark);
    if (!r->mark) return oom(r);
  }
  if (need_ix && !r->by_name) {
    r->by_name = tfx_fusion_name_index(g);
    if (!r->by_name) return oom(r);
  }
  if (++r->stamp == 0) {
    memset(r->mark, 0, (size_t)g->n_nodes * sizeof *r->mark);
    r->stamp = 1;
  }
  uint32_t *v = NULL, n = 0, cap = 0;
  for (uint32_t i = 0; i < res->n_extra; i++) {
    uint32_t id = res->extra_ids[i];
    if (r->mark[id] == r->stamp) continue;
    r->mark[id] = r->stamp;
    if (MGROW(r, v, n, cap)) goto fail;
    v[n++] = id;
  }
  for (uint32_t s = 0; s < res->n_scopes; s++) {
    uint32_t sid = res->scope_ids[s];
    if (by_tree && sid != 0) {
      const tfx_scope *sc = &t->scopes[sid];
      for (uint32_t q = sc->dfs_index; q < sc->dfs_end; q++) {
        const tfx_scope *in = &t->scopes[t->dfs[q]];
        for (uint32_t k = 0; k < in->n_nodes; k++) {
          uint32_t id = in->nodes[k];
          if (r->mark[id] == r->stamp) continue;
          r->mark[id] = r->stamp;
          if (MGROW(r, v, n, cap)) goto fail;
          v[n++] = id;
        }
      }
      continue;
    }
    const char *pre = r->t->scopes[sid].name;
    size_t pl = strlen(pre);
    for (uint32_t k = tfx_fusion_prefix_first(r->by_name, g->n_nodes, pre); k < g->n_nodes; k++) {
      const char *nm = r->by_name[k].name;
      if (strncmp(nm, pre, pl) != 0) break;
      if (nm[pl] == '\0') continue; /* strict prefix only */
      uint32_t id = r->by_name[k].id;
      if (r->mark[id] == r->stamp) continue;
      r->mark[id] = r->stamp;
      if (MGROW(r, v, n, cap)) goto fail;
      v[n++] = id;
    }
  }
  sort_u32(v, n);
#ifndef NDEBUG
  /* debug builds (the sanitizer runs of the tests): the tree gave what the name prefixes give */
  if (by_tree) {
    uint32_t at = 0;
    for (uint32_t id = 0; id < g->n_nodes; id++) {
      int want = 0;
      for (uint32_t i = 0; i < res->n_extra && !want; i++) want = res->extra_ids[i] == id;
      const char *nm = g->nodes[id].name ? g->nodes[id].name : "";
      for (uint32_t s = 0; s < res->n_scopes && !want; s++) {
        const char *pre = t->scopes[res->scope_ids[s]].name;
        size_t pl = strlen(pre);
        want = strncmp(nm, pre, pl) == 0 && nm[pl] != '\0';
      }
      int have = at < n && v[at] == id;
      at += have;
      if (want != have) {
        tfx_error(r->d, NULL, 0, 0, "internal error: children of fusion result '%s' from the scope "
                  "tree differ from the name prefixes at node '%s'", res->name ? res->name : "", nm);
        r->oom = 1;
        goto fail;
      }
    }
  }
#endif
  res->children = tfx_arena_alloc(r->A, (n ? n : 1) * sizeof *res->children);
  if (!res->children) goto fail_oom;
  res->child_names = tfx_arena_alloc(r->A, (n ? n : 1) * sizeof *res->child_names);
  if (!res->child_names) goto fail_oom;
  res->child_types = tfx_arena_alloc(r->A, (n ? n : 1) * sizeof *res->child_types);
  if (!res->child_types) goto fail_oom;
  if (n) memcpy(res->children, v, (size_t)n * sizeof *v);
  for (uint32_t i = 0; i < n; i++) {
    res->child_names[i] = node_name(r, v[i]);
    res->child_types[i] = op_name(r, v[i]);
  }
  if (r->oom) goto fail;
  res->n_children = n;
  free(v);
  return 0;
fail_oom:
  oom(r);
fail:
  free(v);
  return -1;
}

/* ---------------------------------------------------------------- host callbacks */

static int need_open(run *r, const char *op) {
  if (r->b.open) return 0;
  char msg[96];
  snprintf(msg, sizeof msg, "%s outside a fusion result", op);
  host_error(r, msg);
  return -1;
}

static void builder_reset(run *r) {
  free(r->b.keys);
  for (int dir = 0; dir < 2; dir++) {
    for (uint32_t i = 0; i < r->b.n_maps[dir]; i++) free(r->b.maps[dir][i].to);
    free(r->b.maps[dir]);
    tfx_hmap_free(&r->b.mh[dir]);
  }
  memset(&r->b, 0, sizeof r->b);
}

static int h_begin(void *c) {
  run *r = c;
  if (r->b.open) {
    host_error(r, "FR_BEGIN inside a fusion result");
    return -1;
  }
  builder_reset(r);
  r->b.r = tfx_arena_calloc(r->A, 1, sizeof *r->b.r);
  if (!r->b.r) return oom(r);
  r->b.r->pass = r->pass_name;
  r->b.r->rule = r->rule;
  r->b.r->description = "";
  r->b.r->inner_check = 1;
  r->b.open = 1;
  return 0;
}

static int h_scopes(void *c, const uint32_t *ids, size_t n) {
  run *r = c;
  if (need_open(r, "FR_SCOPES")) return -1;
  tfx_fusion_result *res = r->b.r;
  for (size_t i = 0; i < n; i++) {
    uint32_t n1 = res->n_scopes, n2 = res->n_scopes;
    if (AGROW(r, res->scope_ids, n1, r->b.cap_scopes) ||
        AGROW(r, res->scopes, n2, r->b.cap_scope_names))
      return -1;
    res->scope_ids[res->n_scopes] = ids[i];
    res->scopes[res->n_scopes] = scope_name(r, ids[i]);
    res->n_scopes++;
  }
  return r->oom ? -1 : 0;
}

static int set_str(run *r, const char **dst, const char *s, size_t n) {
  const char *c = adup(r, s, n);
  if (!c) return -1;
  *dst = c;
  return 0;
}

static int h_name(void *c, const char *s, size_t n) {
  run *r = c;
  if (need_open(r, "FR_NAME")) return -1;
  return set_str(r, &r->b.r->name, s, n);
}

static int h_type(void *c, const char *s, size_t n) {
  run *r = c;
  if (need_open(r, "FR_TYPE")) return -1;
  return set_str(r, &r->b.r->type, s, n);
}

static int h_desc(void *c, const char *s, size_t n) {
  run *r = c;
  if (need_open(r, "FR_DESC")) return -1;
  return set_str(r, &r->b.r->description, s, n);
}

static int h_map(void *c, int dir, const char *key, size_t klen, int64_t from, int64_t to) {
  run *r = c;
  if (need_open(r, dir ? "FR_OUTPUT" : "FR_INPUT")) return -1;
  if (from < 0 || from >= (1 << 20)) {
    host_error(r, "index-map source port out of range (0..1048575)");
    return -1;
  }
  if (to < -1 || to > INT32_MAX) {
    host_error(r, "index-map target port out of range");
    return -1;
  }
  if (to == TFX_FUSION_DISABLE_INDEX) to = -1;
  builder *b = &r->b;
  uint32_t k = TFX_HASH_NONE;
  if (!b->mh_on[dir] && b->n_maps[dir] > 16) { /* many keys: a table from now on */
    for (uint32_t i = 0; i < b->n_maps[dir]; i++)
      if (tfx_hmap_put(&b->mh[dir], b->maps[dir][i].key, b->maps[dir][i].klen, i, NULL) < 0) return oom(r);
    b->mh_on[dir] = 1;
  }
  if (b->mh_on[dir]) {
    k = tfx_hmap_get(&b->mh[dir], key, klen);
  } else { /* a few keys (a result's statements): compared in turn */
    for (uint32_t i = 0; i < b->n_maps[dir] && k == TFX_HASH_NONE; i++)
      if (b->maps[dir][i].klen == klen && memcmp(b->maps[dir][i].key, key, klen) == 0) k = i;
  }
  if (k == TFX_HASH_NONE) {
    if (MGROW(r, b->maps[dir], b->n_maps[dir], b->cap_maps[dir])) return -1;
    map_b *mb = &b->maps[dir][b->n_maps[dir]];
    memset(mb, 0, sizeof *mb);
    mb->key = adup(r, key, klen);
    if (!mb->key) return -1;
    mb->klen = (uint32_t)klen;
    k = b->n_maps[dir]++;
    if (b->mh_on[dir] && tfx_hmap_put(&b->mh[dir], mb->key, klen, k, NULL) < 0) return oom(r);
  }
  map_b *mb = &b->maps[dir][k];
  while (mb->n <= (uint32_t)from) {
    if (MGROW(r, mb->to, mb->n, mb->cap)) return -1;
    mb->to[mb->n++] = TFX_FUSION_UNSET;
  }
  if (mb->to[from] == TFX_FUSION_UNSET) mb->to[from] = to; /* map insert: the first wins */
  return 0;
}

static int h_key(void *c, int dir, const char *key, size_t klen, int flags, uint32_t pc) {
  run *r = c;
  if (need_open(r, dir ? "FR_KEY output" : "FR_KEY input")) return -1;
  builder *b = &r->b;
  if (MGROW(r, b->keys, b->n_keys, b->cap_keys)) return -1;
  key_site *k = &b->keys[b->n_keys];
  k->key = adup(r, key, klen);
  if (!k->key) return -1;
  k->dir = dir ? 1 : 0;
  k->optional = flags & 1;
  k->unmatched = 0;
  k->absent = flags & 2 ? (int64_t)((uint32_t)flags >> 2) : -1;
  k->klen = (uint32_t)klen;
  k->pc = pc;
  b->n_keys++;
  return 0;
}

static int h_absorb(void *c, const uint32_t *ids, size_t n) {
  run *r = c;
  if (need_open(r, "FR_ABSORB")) return -1;
  tfx_fusion_result *res = r->b.r;
  for (size_t i = 0; i < n; i++) {
    uint32_t n1 = res->n_extra, n2 = res->n_extra;
    if (AGROW(r, res->extra_ids, n1, r->b.cap_extra) ||
        AGROW(r, res->extra, n2, r->b.cap_extra_names))
      return -1;
    res->extra_ids[res->n_extra] = ids[i];
    res->extra[res->n_extra] = node_name(r, ids[i]);
    res->n_extra++;
  }
  return r->oom ? -1 : 0;
}

static int add_attr(run *r, tfx_fusion_attr **v, uint32_t *n, uint32_t *cap, const char *name,
                    const tfx_value *val) {
  if (agrow(r, (void **)v, n, cap, sizeof **v)) return -1;
  tfx_fusion_attr *a = &(*v)[*n];
  a->name = adup(r, name, strlen(name));
  if (!a->name || copy_value(r, val, &a->v, 0)) return -1;
  (*n)++;
  return 0;
}

static int h_attr(void *c, const char *name, const tfx_value *v) {
  run *r = c;
  if (need_open(r, "FR_ATTR")) return -1;
  return add_attr(r, &r->b.r->attrs, &r->b.r->n_attrs, &r->b.cap_attrs, name, v);
}

static int h_invalid(void *c, const char *s, size_t n) {
  run *r = c;
  if (need_open(r, "FR_INVALID")) return -1;
  r->b.invalid = 1;
  return set_str(r, &r->b.reason, s, n);
}

static int h_node_new(void *c, const char *name, size_t nl, const char *type, size_t tl) {
  run *r = c;
  if (need_open(r, "NODE_NEW")) return -1;
  tfx_fusion_result *res = r->b.r;
  if (!r->b.prefix_known) { /* Ascend prefixes with the name the result has at AddInnerNode */
    r->b.prefix_known = 1;
    r->b.prefix = res->name;
  }
  if (AGROW(r, res->inner, res->n_inner, r->b.cap_inner)) return -1;
  tfx_fusion_inner *in = &res->inner[res->n_inner];
  memset(in, 0, sizeof *in);
  in->name = adup(r, name, nl);
  in->type = adup(r, type, tl);
  if (!in->name || !in->type) return -1;
  res->n_inner++;
  r->b.cur = in;
  return 0;
}

static int need_inner(run *r, const char *op) {
  if (need_open(r, op)) return -1;
  if (r->b.cur) return 0;
  char msg[96];
  snprintf(msg, sizeof msg, "%s before any inner node", op);
  host_error(r, msg);
  return -1;
}

static int h_node_input(void *c, const char *src, size_t sl, int64_t port) {
  run *r = c;
  if (need_inner(r, "NODE_IN")) return -1;
  if (port < 0 || port > INT32_MAX) {
    host_error(r, "inner-node input port out of range");
    return -1;
  }
  tfx_fusion_inner *in = r->b.cur;
  if (AGROW(r, in->in, in->n_in, in->cap_in)) return -1;
  tfx_fusion_inner_in *x = &in->in[in->n_in];
  memset(x, 0, sizeof *x);
  if (src) {
    x->src = adup(r, src, sl);
    if (!x->src) return -1;
  }
  x->port = port;
  in->n_in++;
  return 0;
}

static int h_node_const(void *c, const tfx_value *v) {
  run *r = c;
  if (need_inner(r, "NODE_CONST")) return -1;
  tfx_fusion_inner *in = r->b.cur;
  if (AGROW(r, in->in, in->n_in, in->cap_in)) return -1;
  tfx_fusion_inner_in *x = &in->in[in->n_in];
  memset(x, 0, sizeof *x);
  tfx_value *cv = tfx_arena_alloc(r->A, sizeof *cv);
  if (!cv) return oom(r);
  if (copy_value(r, v, cv, 0)) return -1;
  x->cval = cv;
  in->n_in++;
  return 0;
}

static int h_node_attr(void *c, const char *name, const tfx_value *v) {
  run *r = c;
  if (need_inner(r, "NODE_ATTR")) return -1;
  tfx_fusion_inner *in = r->b.cur;
  return add_attr(r, &in->attrs, &in->n_attrs, &in->cap_attrs, name, v);
}

static int h_node_format(void *c, int dir, int64_t port, const char *fmt, size_t n) {
  run *r = c;
  if (need_inner(r, "NODE_FORMAT")) return -1;
  tfx_fusion_inner *in = r->b.cur;
  if (AGROW(r, in->formats, in->n_formats, in->cap_formats)) return -1;
  tfx_fusion_port_format *f = &in->formats[in->n_formats];
  f->dir = dir;
  f->port = port;
  f->fmt = adup(r, fmt, n);
  if (!f->fmt) return -1;
  in->n_formats++;
  return 0;
}

static int h_node_out(void *c, int64_t index, const char *node, size_t nl, int64_t port) {
  run *r = c;
  if (need_open(r, "NODE_OUT")) return -1;
  if (index < 0 || index > INT32_MAX || port < 0 || port > INT32_MAX) {
    host_error(r, "boundary output index or port out of range");
    return -1;
  }
  tfx_fusion_result *res = r->b.r;
  if (AGROW(r, res->outs, res->n_outs, r->b.cap_outs)) return -1;
  tfx_fusion_out *o = &res->outs[res->n_outs];
  o->index = index;
  o->node = adup(r, node, nl);
  o->port = port;
  if (!o->node) return -1;
  res->n_outs++;
  return 0;
}

/* ---------------------------------------------------------------- index-map checks
 * tfxc is stricter than Ascend here (docs/LANGUAGE.md §3.4): Ascend ignores a key that matches
 * no child and numbers the fused ports by the entries it found, so a typo in a key silently
 * wires the next input into the wrong slot. Each key of an `input`/`output` statement must
 * end the name of at least one child of the result unless the statement is `optional`, and
 * the fused ports of each direction must be numbered 0..max without a gap: the ports of an
 * optional key that matched nothing give nothing, and only `absent input N` declares a port
 * deliberately unfed (a trailing unmatched optional key just leaves the fused op shorter).
 * The first failure of a result is kept
 * (tfx_fusion_result.map_error) and reported at the statement once every pass ran, for the
 * final results only: a result the pass's `require` discards or a later result of the same
 * name replaces is never an error. */

static int ends_with_n(const char *s, size_t n, const char *tail, size_t tl) {
  return n >= tl && memcmp(s + n - tl, tail, tl) == 0;
}

/* 1 when key (a map of direction dir) is an optional key that matched no child. */
static int map_unmatched(const builder *b, int dir, const char *key) {
  for (uint32_t k = 0; k < b->n_keys; k++)
    if (b->keys[k].dir == dir && b->keys[k].unmatched && strcmp(b->keys[k].key, key) == 0) {
      int matched_too = 0; /* the same key written again without `optional` matched */
      for (uint32_t j = 0; j < b->n_keys; j++)
        matched_too |= b->keys[j].dir == dir && !b->keys[j].unmatched && b->keys[j].absent < 0 &&
                       strcmp(b->keys[j].key, key) == 0;
      return !matched_too;
    }
  return 0;
}

/* check_keys with the children's name lengths len[]; the message is written into buf. */
static int check_keys_len(run *r, tfx_fusion_result *res, const size_t *len, char *buf, size_t bufn) {
  builder *b = &r->b;
  for (uint32_t k = 0; k < b->n_keys; k++) {
    key_site *ks = &b->keys[k];
    if (ks->absent >= 0) continue;
    int hit = 0;
    for (uint32_t i = 0; i < res->n_children && !hit; i++) hit = ends_with_n(res->child_names[i], len[i], ks->key, ks->klen);
    if (hit) continue;
    if (ks->optional) {
      ks->unmatched = 1; /* its ports give nothing: they count as gaps below */
      continue;
    }
    snprintf(buf, bufn,
             "scope pass '%s': fusion result '%.120s' (type %.60s): %s key \"%.120s\" matches no node "
             "of the result (%u node%s); fix the key, or write 'optional %s' if it may be absent",
             r->pass_name, res->name, res->type, ks->dir ? "output" : "input", ks->key,
             res->n_children, res->n_children == 1 ? "" : "s", ks->dir ? "output" : "input");
    res->map_error = adup(r, buf, strlen(buf));
    res->map_error_pc = ks->pc;
    return res->map_error ? 0 : -1;
  }
  for (int dir = 0; dir < 2 && b->n_keys; dir++) { /* programs without FR_KEY: not checked */
    const tfx_fusion_map *v = dir ? res->outputs : res->inputs;
    uint32_t n = dir ? res->n_outputs : res->n_inputs;
    int64_t max = -1;
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t p = 0; p < v[i].n && !map_unmatched(b, dir, v[i].key); p++)
        if (v[i].to[p] > max) max = v[i].to[p];
    if (max < 0) continue;
    for (int64_t q = 0; q < max; q++) {
      int given = 0;
      for (uint32_t k = 0; k < b->n_keys && !given; k++) given = b->keys[k].dir == dir && b->keys[k].absent == q;
      for (uint32_t i = 0; i < n && !given; i++)
        for (uint32_t p = 0; p < v[i].n && !given && !map_unmatched(b, dir, v[i].key); p++) given = v[i].to[p] == q;
      if (given) continue;
      uint32_t pc = TFX_PACK_NONE;
      for (uint32_t k = 0; k < b->n_keys; k++)
        if (b->keys[k].dir == dir) pc = b->keys[k].pc;
      snprintf(buf, bufn,
               "scope pass '%s': fusion result '%.120s' (type %.60s): fused %s %lld is given by no "
               "index map, but %s %lld is (the fused ports are numbered without gaps; "
               "'absent %s %lld;' declares an unfed port)",
               r->pass_name, res->name, res->type, dir ? "output" : "input", (long long)q,
               dir ? "output" : "input", (long long)max, dir ? "output" : "input", (long long)q);
      res->map_error = adup(r, buf, strlen(buf));
      res->map_error_pc = pc;
      return res->map_error ? 0 : -1;
    }
  }
  return 0;
}

/* Fills *e for res (children computed), or leaves e->msg NULL. Returns -1 on out of memory. */
static int check_keys(run *r, tfx_fusion_result *res) {
  builder *b = &r->b;
  res->map_error = NULL;
  char buf[512];
  size_t lens[64], *len = lens; /* the children's name lengths, measured once */
  if (b->n_keys && res->n_children > 64 && !(len = tfx_malloc(res->n_children * sizeof *len))) return oom(r);
  for (uint32_t i = 0; i < res->n_children && b->n_keys; i++) len[i] = strlen(res->child_names[i]);
  int rc = check_keys_len(r, res, len, buf, sizeof buf);
  if (len != lens) free(len);
  return rc;
}

/* Reports the index-map failures of the graph's final results (a result replaced by a later
 * one of the same name, or discarded by a `require`, is never an error); -1 when there was one. */
static int report_map_errs(run *r) {
  int bad = 0;
  for (uint32_t k = 0; k < r->n_final; k++) {
    const tfx_fusion_result *res = r->final[k];
    if (!res->map_error) continue;
    const tfx_vm_loc *loc = res->map_error_pc != TFX_PACK_NONE ? tfx_pack_loc_at(r->p, res->map_error_pc) : NULL;
    if (loc) {
      tfx_error(r->d, tfx_pack_file(r->p, loc->file), loc->line, loc->col, "%s", res->map_error);
    } else {
      const char *file;
      unsigned line, col;
      rule_site(r->p, res->rule, 0, &file, &line, &col);
      tfx_error(r->d, file, line, col, "%s", res->map_error);
    }
    bad = 1;
  }
  return bad ? -1 : 0;
}

/* ---------------------------------------------------------------- committing a result */

static int cmp_map(const void *a, const void *b) {
  const map_b *x = a, *y = b;
  size_t n = x->klen < y->klen ? x->klen : y->klen;
  int c = memcmp(x->key, y->key, n);
  if (c) return c;
  return x->klen < y->klen ? -1 : x->klen > y->klen;
}

/* Freezes the builder's maps of one direction into the result (sorted by key; unset ports
 * become disabled). */
static int freeze_maps(run *r, int dir, tfx_fusion_map **out, uint32_t *nout) {
  builder *b = &r->b;
  uint32_t n = b->n_maps[dir];
  *nout = 0;
  *out = NULL;
  if (!n) return 0;
  if (n > 16) {
    qsort(b->maps[dir], n, sizeof *b->maps[dir], cmp_map);
  } else { /* by insertion (keys differ: the same order) */
    for (uint32_t i = 1; i < n; i++) {
      map_b x = b->maps[dir][i];
      uint32_t j = i;
      for (; j > 0 && cmp_map(&b->maps[dir][j - 1], &x) > 0; j--) b->maps[dir][j] = b->maps[dir][j - 1];
      b->maps[dir][j] = x;
    }
  }
  tfx_fusion_map *v = tfx_arena_calloc(r->A, n, sizeof *v);
  if (!v) return oom(r);
  for (uint32_t i = 0; i < n; i++) {
    map_b *mb = &b->maps[dir][i];
    v[i].key = mb->key;
    v[i].n = mb->n;
    v[i].to = tfx_arena_alloc(r->A, (mb->n ? mb->n : 1) * sizeof *v[i].to);
    if (!v[i].to) return oom(r);
    for (uint32_t p = 0; p < mb->n; p++) v[i].to[p] = mb->to[p] == TFX_FUSION_UNSET ? -1 : mb->to[p];
  }
  *out = v;
  *nout = n;
  return 0;
}

static char *join_name(run *r, const char *prefix, const char *rel) {
  size_t a = strlen(prefix), b = strlen(rel);
  char *s = tfx_arena_alloc(r->A, a + b + 2);
  if (!s) {
    oom(r);
    return NULL;
  }
  memcpy(s, prefix, a);
  s[a] = '/';
  memcpy(s + a + 1, rel, b + 1);
  return s;
}

/* Prefixes inner names and peers with the result name; runs CheckInnerNodesInfo. Returns 0
 * (check result in res->inner_check, a failure reason in *why) or -1 on out of memory. */
static int finish_inner(run *r, tfx_fusion_result *res, const char **why) {
  const char *prefix = r->b.prefix ? r->b.prefix : res->name;
  *why = NULL;
  for (uint32_t i = 0; i < res->n_inner; i++) {
    tfx_fusion_inner *in = &res->inner[i];
    if (!(in->name = join_name(r, prefix, in->name))) return -1;
    for (uint32_t k = 0; k < in->n_in; k++)
      if (in->in[k].src && !(in->in[k].src = join_name(r, prefix, in->in[k].src))) return -1;
  }
  for (uint32_t i = 0; i < res->n_outs; i++)
    if (!(res->outs[i].node = join_name(r, prefix, res->outs[i].node))) return -1;
  if (!res->type || strcmp(res->type, TFX_FUSION_MULTI_TYPE) != 0) return 0;
  /* CheckInnerNodesInfo: unique names; boundary uses == non-disabled index entries. */
  tfx_hmap names;
  tfx_hmap_init(&names);
  uint64_t in_used = 0, out_used = res->n_outs, in_idx = 0, out_idx = 0;
  char *buf = r->why;
  const size_t bufn = sizeof r->why;
  for (uint32_t i = 0; i < res->n_inner && !*why; i++) {
    const tfx_fusion_inner *in = &res->inner[i];
    int put = tfx_hmap_put(&names, in->name, strlen(in->name), i, NULL);
    if (put < 0) {
      tfx_hmap_free(&names);
      return oom(r);
    }
    if (put == 0) {
      snprintf(buf, bufn, "inner node name '%.100s' is not unique", in->name);
      *why = buf;
    }
    for (uint32_t k = 0; k < in->n_in; k++) in_used += !in->in[k].src && !in->in[k].cval;
  }
  for (uint32_t i = 0; i < res->n_inner && !*why; i++) {
    const tfx_fusion_inner *in = &res->inner[i];
    for (uint32_t k = 0; k < in->n_in && !*why; k++)
      if (in->in[k].src && tfx_hmap_get(&names, in->in[k].src, strlen(in->in[k].src)) == TFX_HASH_NONE) {
        snprintf(buf, bufn, "inner node '%.60s' reads unknown inner node '%.60s'", in->name, in->in[k].src);
        *why = buf;
      }
  }
  for (uint32_t i = 0; i < res->n_outs && !*why; i++)
    if (tfx_hmap_get(&names, res->outs[i].node, strlen(res->outs[i].node)) == TFX_HASH_NONE) {
      snprintf(buf, bufn, "boundary output %lld names unknown inner node '%.100s'",
               (long long)res->outs[i].index, res->outs[i].node);
      *why = buf;
    }
  tfx_hmap_free(&names);
  for (uint32_t i = 0; i < res->n_inputs; i++)
    for (uint32_t p = 0; p < res->inputs[i].n; p++) in_idx += res->inputs[i].to[p] >= 0;
  for (uint32_t i = 0; i < res->n_outputs; i++)
    for (uint32_t p = 0; p < res->outputs[i].n; p++) out_idx += res->outputs[i].to[p] >= 0;
  if (!*why && (in_used != in_idx || out_used != out_idx)) {
    snprintf(buf, bufn,
             "inner nodes use %llu boundary inputs and %llu boundary outputs, the index maps "
             "enable %llu and %llu",
             (unsigned long long)in_used, (unsigned long long)out_used,
             (unsigned long long)in_idx, (unsigned long long)out_idx);
    *why = buf;
  }
  if (!*why && res->n_inner == 0) *why = "a ScopeToMultiNodes result without inner nodes";
  res->inner_check = *why == NULL;
  return 0;
}

static int add_dropped(run *r, const tfx_fusion_result *res, const char *reason) {
  tfx_fusion_pass_report *pr = r->pr;
  if (AGROW(r, pr->dropped, pr->n_dropped, r->cap_dropped)) return -1;
  tfx_fusion_dropped *x = &pr->dropped[pr->n_dropped];
  x->name = res->name ? res->name : "";
  x->type = res->type ? res->type : "";
  x->reason = adup(r, reason, strlen(reason));
  if (!x->reason) return -1;
  pr->n_dropped++;
  return 0;
}

/* Drops res with a warning at the rule (or its `invalid` statement) and stops the pass's
 * additions, as AddFusionScopesResultToScopeGraph returns at the first invalid result. */
static int drop_invalid(run *r, tfx_fusion_result *res, const char *reason, int at_invalid) {
  const char *file;
  unsigned line, col;
  rule_site(r->p, r->rule, at_invalid, &file, &line, &col);
  tfx_warning(r->d, file, line, col,
              "scope pass '%s': fusion result '%s' (type %s) dropped: %s; the pass adds no "
              "further results (ScopeInvalidType)",
              r->pass_name, res->name ? res->name : "", res->type ? res->type : "?", reason);
  r->stopped = 1;
  return add_dropped(r, res, reason);
}

static int h_end(void *c) {
  run *r = c;
  if (need_open(r, "FR_END")) return -1;
  tfx_fusion_result *res = r->b.r;
  r->b.open = 0;
  if (r->stopped) {
    int rc = add_dropped(r, res, "not added: an earlier result of this pass was invalid");
    builder_reset(r);
    return rc;
  }
  if (!res->name) { /* default: the first member scope's name without its trailing '/' */
    if (res->n_scopes) {
      const char *s = res->scopes[0];
      size_t n = strlen(s);
      if (n > 1 && s[n - 1] == '/') n--;
      res->name = adup(r, s, n);
      if (!res->name) return -1;
    } else {
      res->name = "";
    }
  }
  if (freeze_maps(r, 0, &res->inputs, &res->n_inputs) ||
      freeze_maps(r, 1, &res->outputs, &res->n_outputs))
    return -1;
  const char *why = NULL;
  if (finish_inner(r, res, &why)) return -1;
  int rc = 0;
  if (r->b.invalid || (res->type && strcmp(res->type, TFX_FUSION_INVALID_TYPE) == 0)) {
    char msg[300];
    snprintf(msg, sizeof msg, "marked invalid%s%.250s", r->b.reason && *r->b.reason ? ": " : "",
             r->b.reason ? r->b.reason : "");
    rc = drop_invalid(r, res, msg, 1);
  } else if (!res->type || !*res->type) {
    rc = drop_invalid(r, res, "no type", 0);
  } else if (!*res->name) {
    rc = drop_invalid(r, res, "no name and no member scope", 0);
  } else if (why) {
    char msg[300];
    snprintf(msg, sizeof msg, "CheckInnerNodesInfo failed: %.260s", why);
    rc = drop_invalid(r, res, msg, 0);
  } else {
    if (compute_children(r, res)) rc = -1;
    else if (check_keys(r, res)) rc = -1;
    else if (MGROW(r, r->pending, r->n_pending, r->cap_pending)) rc = -1;
    else r->pending[r->n_pending++] = res;
  }
  builder_reset(r);
  return rc;
}

static int h_subtyped(void *c, const uint32_t **pos, uint32_t *n);

static const tfx_vm_host fusion_host = {
    .subtyped = h_subtyped,
    .result_begin = h_begin,
    .result_end = h_end,
    .result_scopes = h_scopes,
    .result_name = h_name,
    .result_type = h_type,
    .result_description = h_desc,
    .result_map = h_map,
    .result_absorb = h_absorb,
    .result_attr = h_attr,
    .result_invalid = h_invalid,
    .result_key = h_key,
    .node_new = h_node_new,
    .node_input = h_node_input,
    .node_const = h_node_const,
    .node_attr = h_node_attr,
    .node_format = h_node_format,
    .node_out = h_node_out,
};

/* ---------------------------------------------------------------- matching */

/* The sub_type id a pattern sets ("" means none). */
static uint32_t pattern_subtype(run *r, const tfx_vm_pattern *pat, const tfx_vm_result *res) {
  uint32_t id = res->sub_type;
  if (id == TFX_NO_ID) id = tfx_vm_const_subtype(r->e->vm, pat->sub_type);
  if (id != TFX_NO_ID && !*tfx_intern_str(&r->e->subtypes, id)) id = TFX_NO_ID;
  return id;
}

/* ---------------------------------------------------------------- pattern index
 * With R passes, trying every pattern on every scope costs R x scopes VM runs although a
 * rule set's patterns almost never match. A pattern's SCOPE program starts with its scope
 * tests (compile.h: op-type tests, attribute tests, scope tests, then SC_NORETVAL), and the
 * first failing test ends the run with no match and no effect. From the leading run of tests
 * (SC_COUNT/STEP/PRESENT/ABSENT/NORETVAL/NAME/MASK/SUBTYPES/ATTR, up to the first other
 * instruction) the engine reads conditions every matching scope must meet:
 *   - op types its subtree must have (`count T == n` with n >= 1: exactly n; `count T % k
 *     == m`, `present T`, `attr T.a == v`: at least one); a type the graph lacks makes the
 *     pattern match nowhere;
 *   - a LastName (`name == "x"`).
 * Each condition names a set of scopes, found through an index built on first use in a run:
 * scopes by LastName, and per op type the scopes whose subtree has it, by count. The pattern
 * runs only on the smallest of its sets (a LastName set of at most an eighth of the scopes is
 * taken as it is, without building op-type sets to compare: pattern_cands), in depth-first
 * order, skipping scopes inside one it matched, as the full sweep does, and only where the
 * other conditions hold too.
 * A skipped run is one that would have failed on one of those tests, so matches, sub_types and
 * reports are unchanged. The tests cannot fail with an error except by running out of steps:
 * one step per instruction, plus (dfs_end - dfs_index) / 8 for a MASK or SUBTYPES test and one
 * per direct node of the type for an ATTR test. A pattern is indexed only when the worst case
 * of those charges, over every scope, fits in the step budget, so a skipped run could not have
 * ended in a budget error either. The index is off while runs are observable (--trace,
 * explain's EXPLAIN_ALL), where every run must happen. */
#define PAT_REQ_OPS 4

typedef struct pat_req {
  int done;                        /* computed */
  int usable;                      /* the conditions may be used */
  int never;                       /* a required op type is not in the graph */
  uint32_t n_ops;
  uint32_t ops[PAT_REQ_OPS];       /* linked op ids that must be present */
  int64_t want[PAT_REQ_OPS];       /* their exact subtree count (`count T == n`), or -1 */
  const char *name;                /* required LastName, or NULL */
  uint32_t name_len;
} pat_req;

static const pat_req *pattern_req(run *r, uint32_t pattern) {
  pat_req *q = &r->reqs[pattern];
  if (q->done) return q;
  q->done = 1;
  const tfx_pack *p = r->p;
  const tfx_vm_prog *pg = &p->progs[p->patterns[pattern].prog];
  uint64_t steps = 0, worst = 0; /* the budget; the most steps the tests read can take */
  tfx_vm_get_budget(r->e->vm, &steps, NULL);
  const tfx_scope_tree *t = r->t;
  if (!r->max_direct_known) {
    r->max_direct_known = 1;
    for (uint32_t i = 0; i < t->n_scopes; i++)
      if (t->scopes[i].n_nodes > r->max_direct) r->max_direct = t->scopes[i].n_nodes;
  }
  for (uint32_t pc = pg->start; pc < pg->end; worst++) {
    const uint32_t *ins = &p->code[pc];
    tfx_opcode op = TFX_INS_OP(ins);
    uint32_t k = TFX_PACK_NONE;
    int64_t want = -1;
    if (op == TFX_OP_SC_COUNT) {
      if (TFX_INS_IMM(ins, 2) >= 1) k = TFX_INS_KO(ins, 1), want = TFX_INS_IMM(ins, 2);
    } else if (op == TFX_OP_SC_STEP || op == TFX_OP_SC_PRESENT) {
      k = TFX_INS_KO(ins, 1);
    } else if (op == TFX_OP_SC_NAME) {
      const tfx_value *v = &p->consts[TFX_INS_KS(ins, 1)];
      if (v->tag == TFX_V_STR && v->n > 0 && !q->name) {
        q->name = v->u.s;
        q->name_len = v->n;
      }
    } else if (op == TFX_OP_SC_MASK || op == TFX_OP_SC_SUBTYPES) {
      worst += t->n_scopes / 8;
    } else if (op == TFX_OP_SC_ATTR) { /* needs a direct node of the type */
      worst += r->max_direct;
      k = TFX_INS_KO(ins, 1);
    } else if (op != TFX_OP_SC_ABSENT && op != TFX_OP_SC_NORETVAL) {
      break;
    }
    if (k != TFX_PACK_NONE) {
      uint32_t id = tfx_vm_const_op(r->e->vm, k);
      if (id == TFX_NO_ID) q->never = 1;
      else if (q->n_ops < PAT_REQ_OPS) {
        q->ops[q->n_ops] = id;
        q->want[q->n_ops++] = want;
      }
    }
    pc += TFX_INS_LEN(op);
  }
  q->usable = worst <= steps && (q->never || q->n_ops || q->name);
  return q;
}

/* 1 if scope s meets q's op-type conditions. */
static int req_ops(const tfx_scope *s, const pat_req *q) {
  for (uint32_t i = 0; i < q->n_ops; i++) {
    int64_t c = tfx_scope_op_count(s, q->ops[i]);
    if (c < 0 || (q->want[i] >= 0 && c != q->want[i])) return 0;
  }
  return 1;
}

/* The scopes whose subtree has one op type: ids in depth-first order, and the same sorted by
 * (count, depth-first position) so that the scopes with count n are one contiguous run. */
typedef struct op_ix {
  uint32_t n;
  uint32_t *dfs_order;
  uint32_t *by_count;
  uint32_t *count;       /* count of by_count[i] */
} op_ix;

static const op_ix *op_index(run *r, uint32_t op) {
  if (op >= r->n_by_op) return NULL;
  if (r->by_op[op]) return r->by_op[op];
  const tfx_scope_tree *t = r->t;
  /* one walk over the scopes in depth-first order (arrays sized for all of them), then a
   * stable LSD radix sort of the {count, scope} pairs by count: the pairs come in depth-first
   * order, so equal counts keep it, which is the (count, depth-first position) order */
  uint32_t ns = t->n_scopes ? t->n_scopes : 1;
  op_ix *x = tfx_calloc(1, sizeof *x);
  uint32_t *tmp = tfx_malloc((size_t)ns * 4 * sizeof *tmp); /* two {count, scope} arrays */
  if (x) {
    x->dfs_order = tfx_malloc((size_t)ns * sizeof *x->dfs_order);
    x->by_count = tfx_malloc((size_t)ns * sizeof *x->by_count);
    x->count = tfx_malloc((size_t)ns * sizeof *x->count);
  }
  if (!x || !tmp || !x->dfs_order || !x->by_count || !x->count) {
    if (x) {
      free(x->dfs_order);
      free(x->by_count);
      free(x->count);
    }
    free(x);
    free(tmp);
    oom(r);
    return NULL;
  }
  uint32_t *a = tmp, *b = tmp + 2 * (size_t)ns;
  for (uint32_t k = 0; k < t->n_scopes; k++) {
    uint32_t s = t->dfs[k];
    int64_t c = tfx_scope_op_count(&t->scopes[s], op);
    if (c <= 0) continue;
    a[2 * x->n] = (uint32_t)c;
    a[2 * x->n + 1] = s;
    x->dfs_order[x->n++] = s;
  }
  for (unsigned shift = 0; x->n > 1 && shift < 32; shift += 8) {
    uint32_t pos[257] = {0};
    for (uint32_t i = 0; i < x->n; i++) pos[((a[2 * i] >> shift) & 0xff) + 1]++;
    if (pos[((a[0] >> shift) & 0xff) + 1] == x->n) continue; /* one digit value: order stays */
    for (unsigned d = 0; d < 256; d++) pos[d + 1] += pos[d];
    for (uint32_t i = 0; i < x->n; i++) {
      uint32_t at = pos[(a[2 * i] >> shift) & 0xff]++;
      b[2 * at] = a[2 * i];
      b[2 * at + 1] = a[2 * i + 1];
    }
    uint32_t *sw = a;
    a = b;
    b = sw;
  }
  for (uint32_t i = 0; i < x->n; i++) {
    x->count[i] = a[2 * i];
    x->by_count[i] = a[2 * i + 1];
  }
  free(tmp);
  r->by_op[op] = x;
  return x;
}

/* The scopes of x with count want: *first and the number of them. */
static uint32_t op_bucket(const op_ix *x, int64_t want, const uint32_t **first) {
  uint32_t lo = 0, hi = x->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if ((int64_t)x->count[mid] < want) lo = mid + 1;
    else hi = mid;
  }
  uint32_t end = lo;
  while (end < x->n && (int64_t)x->count[end] == want) end++;
  *first = x->by_count + lo;
  return end - lo;
}

/* Scopes grouped by LastName, each group in depth-first order. */
static int build_ln_index(run *r) {
  const tfx_scope_tree *t = r->t;
  uint32_t n = t->n_scopes, groups = 0;
  r->ln_built = 1;
  uint32_t *gid = tfx_malloc((size_t)(n ? n : 1) * sizeof *gid);
  if (!gid || tfx_hmap_reserve(&r->ln_ix, n) < 0) {
    free(gid);
    return oom(r);
  }
  /* gid per scope id: the scope records (and their names, allocated in the same order) are
   * read in order, not in depth-first order, which at 10^6 nodes is a random walk over them */
  for (uint32_t s = 0; s < n; s++) {
    const char *ln = t->scopes[s].last_name;
    uint32_t old;
    int put = tfx_hmap_put(&r->ln_ix, ln, strlen(ln), groups, &old);
    if (put < 0) {
      free(gid);
      return oom(r);
    }
    gid[s] = put ? groups++ : old;
  }
  r->ln_start = tfx_calloc((size_t)groups + 1, sizeof *r->ln_start);
  r->ln_list = tfx_malloc((size_t)(n ? n : 1) * sizeof *r->ln_list);
  if (!r->ln_start || !r->ln_list) {
    free(gid);
    return oom(r);
  }
  for (uint32_t s = 0; s < n; s++) r->ln_start[gid[s] + 1]++;
  for (uint32_t g = 0; g < groups; g++) r->ln_start[g + 1] += r->ln_start[g];
  for (uint32_t k = 0; k < n; k++) r->ln_list[r->ln_start[gid[t->dfs[k]]]++] = t->dfs[k]; /* dfs order */
  for (uint32_t g = groups; g > 0; g--) r->ln_start[g] = r->ln_start[g - 1]; /* undo the fill */
  r->ln_start[0] = 0;
  free(gid);
  return 0;
}

static int cmp_u32v(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* r->typed in ascending order without repeats. */
static void typed_sort(run *r) {
  if (r->typed_sorted) return;
  r->typed_sorted = 1;
  if (r->n_typed < 2) return;
  qsort(r->typed, r->n_typed, sizeof *r->typed, cmp_u32v);
  uint32_t u = 1;
  for (uint32_t i = 1; i < r->n_typed; i++)
    if (r->typed[i] != r->typed[u - 1]) r->typed[u++] = r->typed[i];
  r->n_typed = u;
}

/* host.h `subtyped`: the listed dfs positions include every scope with a sub_type. */
static int h_subtyped(void *c, const uint32_t **pos, uint32_t *n) {
  run *r = c;
  typed_sort(r);
  *pos = r->typed;
  *n = r->n_typed;
  return 0;
}

/* Before the first sub_type write of a pass: remember every sub_type (the pass's changes are
 * reported against this). A pass that writes nothing never copies. */
static void snapshot(run *r) {
  if (r->snapped) return;
  r->snapped = 1;
  const tfx_scope_tree *t = r->t;
  for (uint32_t i = 0; i < t->n_scopes; i++) r->snap[i] = t->scopes[i].sub_type;
}

/* One matching scope: sets its sub_type and records it in the layer report. */
static int record_match(run *r, const tfx_vm_pattern *pat, const tfx_vm_result *res, uint32_t s,
                        uint32_t k, tfx_fusion_layer_report *lr, uint32_t *cap_m, uint32_t **out,
                        uint32_t *n_out, uint32_t *cap_out) {
  uint32_t st = pattern_subtype(r, pat, res);
  snapshot(r);
  if (MGROW(r, r->typed, r->n_typed, r->cap_typed)) return -1;
  r->typed[r->n_typed++] = r->t->scopes[s].dfs_index;
  r->typed_sorted = 0;
  r->t->scopes[s].sub_type = st;
  if (MGROW(r, *out, *n_out, *cap_out)) return -1;
  (*out)[(*n_out)++] = s;
  if (AGROW(r, lr->m, lr->n, *cap_m)) return -1;
  lr->m[lr->n].scope = scope_name(r, s);
  lr->m[lr->n].sub_type = st_name(r, st);
  lr->m[lr->n].pattern = k;
  lr->n++;
  return 0;
}

/* One layer (MatchOneBatch): every pattern over the tree. Appends matched scopes to *out.
 * Returns 1 matched, 0 not, -1 error. */
/* The scopes an indexed pattern is tried on: the smallest set one of its conditions allows
 * (a short LastName set without comparing; depth-first order): *list[0 .. *n), or *n =
 * UINT32_MAX (every scope). -1 out of memory. */
static int pattern_cands(run *r, const pat_req *q, const uint32_t **list, uint32_t *n) {
  *list = NULL;
  *n = UINT32_MAX;
  if (q->name) {
    if (!r->ln_built && build_ln_index(r)) return -1;
    uint32_t g = tfx_hmap_get(&r->ln_ix, q->name, q->name_len);
    *n = 0;
    if (g != TFX_HASH_NONE) {
      *list = r->ln_list + r->ln_start[g];
      *n = r->ln_start[g + 1] - r->ln_start[g];
    }
  }
  /* With a LastName list, that list filtered by req_ops is already exactly the scopes meeting
   * every indexed condition: an op-type index (one count look-up per scope of the tree, per
   * op type) could only shorten the list, never the VM runs. Built only when the name list
   * is a sizeable part of the tree (at 10^6 nodes, 8 op indexes cost 8 x 368 000 look-ups
   * to shorten 11 000-scope lists). */
  if (q->name && *n <= r->t->n_scopes / 8) return 0;
  for (uint32_t i = 0; i < q->n_ops && *n; i++) {
    if (q->ops[i] >= r->n_by_op) continue; /* not a module op id: no index, req_ops decides */
    const op_ix *x = op_index(r, q->ops[i]);
    if (!x) return -1;
    const uint32_t *l = x->dfs_order;
    uint32_t c = q->want[i] >= 0 ? op_bucket(x, q->want[i], &l) : x->n;
    if (c < *n) *list = l, *n = c;
  }
  return 0;
}

/* Progress (util/progress.h) in scope tests: one pattern program run on one scope, the unit
 * of the matching's work. The listener hears every 1024th; the total is an upper bound
 * (progress_tests_total: later layers run only after a match). */
static void progress_test(run *r) {
  if (__builtin_expect(tfx_progress_current != 0, 0) && (++r->tests & 1023u) == 0)
    tfx_progress_units(r->tests, r->tests_total > r->tests ? r->tests_total : r->tests, "scope tests");
}

/* Every scope test the enabled passes could make: each pattern's candidate scopes (the index
 * as match_layer uses it), or every scope but the root. Only with a progress listener. */
static int progress_tests_total(run *r, const tfx_fusion_enables *en) {
  const tfx_pack *p = r->p;
  uint64_t total = 0;
  for (uint32_t i = 0; i < p->n_rules; i++) {
    if (p->rules[i].kind != TFX_RULE_PASS || i >= en->n || !en->on[i]) continue;
    const tfx_vm_rule *ru = &p->rules[i];
    for (uint32_t gi = 0; gi < ru->n_groups; gi++) {
      const tfx_vm_group *gr = &p->groups[ru->group_first + gi];
      for (uint32_t li = 0; li < gr->n_layers; li++) {
        const tfx_vm_layer *ly = &p->layers[gr->layer_first + li];
        for (uint32_t k = 0; k < ly->n_patterns; k++) {
          const pat_req *q = r->use_index ? pattern_req(r, ly->pattern_first + k) : NULL;
          if (q && !q->usable) q = NULL;
          const uint32_t *list;
          uint32_t n = UINT32_MAX;
          if (q && q->never) n = 0;
          else if (q && pattern_cands(r, q, &list, &n)) return -1;
          total += n == UINT32_MAX ? (r->t->n_scopes ? r->t->n_scopes - 1 : 0) : n;
        }
      }
    }
  }
  r->tests_total = total;
  return 0;
}

static int match_layer(run *r, uint32_t group, uint32_t layer, uint32_t **out, uint32_t *n_out,
                       uint32_t *cap_out, uint32_t *cap_layers) {
  const tfx_pack *p = r->p;
  const tfx_vm_layer *ly = &p->layers[layer];
  tfx_fusion_pass_report *pr = r->pr;
  if (AGROW(r, pr->layers, pr->n_layers, *cap_layers)) return -1;
  tfx_fusion_layer_report *lr = &pr->layers[pr->n_layers++];
  memset(lr, 0, sizeof *lr);
  lr->group = group;
  lr->layer = layer - p->groups[p->rules[r->rule].group_first + group].layer_first;
  uint32_t cap_m = 0;
  int found = 0;
  const tfx_scope_tree *t = r->t;
  for (uint32_t k = 0; k < ly->n_patterns; k++) {
    const tfx_vm_pattern *pat = &p->patterns[ly->pattern_first + k];
    if (r->e->on_pattern)
      r->e->on_pattern(r->e->on_pattern_user, r->e, t, r->rule, group, lr->layer, k,
                       ly->pattern_first + k);
    const pat_req *q = r->use_index ? pattern_req(r, ly->pattern_first + k) : NULL;
    if (q && !q->usable) q = NULL;
    if (q && q->never) continue;
    if (q) {
      const uint32_t *list = NULL;
      uint32_t n = UINT32_MAX;
      if (pattern_cands(r, q, &list, &n)) return -1;
      uint32_t skip_end = 1; /* dfs[0] is the root: never tested */
      for (uint32_t j = 0; j < n; j++) {
        uint32_t s = list[j];
        if (t->scopes[s].dfs_index < skip_end || !req_ops(&t->scopes[s], q)) continue;
        tfx_vm_result res;
        progress_test(r);
        tfx_status vst = tfx_vm_run_scope(r->e->vm, pat->prog, s, &res, r->d);
        if (vst) return vm_failed(r, vst);
        if (!res.matched) continue;
        found = 1;
        if (record_match(r, pat, &res, s, k, lr, &cap_m, out, n_out, cap_out)) return -1;
        skip_end = t->scopes[s].dfs_end; /* do not descend into a matched scope */
      }
      continue;
    }
    uint32_t i = 1; /* dfs[0] is the root: never tested */
    while (i < t->n_scopes) {
      uint32_t s = t->dfs[i];
      tfx_vm_result res;
      progress_test(r);
      tfx_status vst = tfx_vm_run_scope(r->e->vm, pat->prog, s, &res, r->d);
      if (vst) return vm_failed(r, vst);
      if (!res.matched) {
        i++;
        continue;
      }
      found = 1;
      if (record_match(r, pat, &res, s, k, lr, &cap_m, out, n_out, cap_out)) return -1;
      i = t->scopes[s].dfs_end; /* do not descend into a matched scope */
    }
  }
  lr->matched = found;
  return r->oom ? -1 : found;
}

/* MatchAllBatches over every group of the pass; *results gets the last layers' matches. */
static int match_all(run *r, uint32_t **results, uint32_t *n_results, uint32_t *cap_results) {
  const tfx_pack *p = r->p;
  const tfx_vm_rule *ru = &p->rules[r->rule];
  uint32_t cap_layers = 0;
  uint32_t *tmp = NULL, n_tmp = 0, cap_tmp = 0;
  uint32_t *one = NULL, n_one = 0, cap_one = 0;
  int rc = 0;
  const tfx_scope_tree *t = r->t;
  for (uint32_t gi = 0; gi < ru->n_groups && rc == 0; gi++) {
    const tfx_vm_group *gr = &p->groups[ru->group_first + gi];
    n_tmp = 0;
    uint32_t last_first = *n_results;
    for (uint32_t li = 0; li < gr->n_layers; li++) {
      n_one = 0;
      int m = match_layer(r, gi, gr->layer_first + li, &one, &n_one, &cap_one, &cap_layers);
      if (m < 0) {
        rc = -1;
        break;
      }
      if (!m) break;
      uint32_t **dst = li + 1 == gr->n_layers ? results : &tmp;
      uint32_t *dn = li + 1 == gr->n_layers ? n_results : &n_tmp;
      uint32_t *dc = li + 1 == gr->n_layers ? cap_results : &cap_tmp;
      for (uint32_t k = 0; k < n_one; k++) {
        if (MGROW(r, *dst, *dn, *dc)) {
          rc = -1;
          break;
        }
        (*dst)[(*dn)++] = one[k];
      }
    }
    if (rc) break;
    /* Rollback: an earlier-layer match keeps its sub_type only under (or at) a last-layer
     * result of this group. Marks: stamp the group's last results. */
    if (n_tmp) {
      uint32_t *smark = tfx_calloc(t->n_scopes ? t->n_scopes : 1, sizeof *smark);
      if (!smark) {
        rc = oom(r);
        break;
      }
      for (uint32_t k = last_first; k < *n_results; k++) smark[(*results)[k]] = 1;
      for (uint32_t k = 0; k < n_tmp; k++) {
        int keep = 0;
        for (uint32_t s = tmp[k]; s != TFX_NO_ID && !keep; s = t->scopes[s].parent) keep = smark[s];
        if (!keep) t->scopes[tmp[k]].sub_type = TFX_NO_ID;
      }
      free(smark);
    }
  }
  free(tmp);
  free(one);
  return rc;
}

/* ---------------------------------------------------------------- final map */

static int final_put(run *r, tfx_fusion_result *res) {
  uint32_t k = tfx_hmap_get(&r->final_ix, res->name, strlen(res->name));
  if (k != TFX_HASH_NONE) { /* a later result with the same name replaces the earlier one */
    r->final[k] = res;
    return 0;
  }
  if (MGROW(r, r->final, r->n_final, r->cap_final)) return -1;
  if (tfx_hmap_put(&r->final_ix, res->name, strlen(res->name), r->n_final, NULL) < 0) return oom(r);
  r->final[r->n_final++] = res;
  return 0;
}

static int cmp_result(const void *a, const void *b) {
  return strcmp((*(tfx_fusion_result *const *)a)->name, (*(tfx_fusion_result *const *)b)->name);
}

/* ---------------------------------------------------------------- one pass */

static int run_pass(run *r, uint32_t rule) {
  const tfx_pack *p = r->p;
  const tfx_vm_rule *ru = &p->rules[rule];
  tfx_scope_tree *t = r->t;
  tfx_fusion_pass_report *pr = r->pr;
  r->rule = rule;
  r->pass_name = pr->name;
  r->stopped = 0;
  r->n_pending = 0;
  r->cap_results = r->cap_dropped = 0;
  r->snapped = 0; /* taken before the first sub_type write (snapshot) */
  const uint32_t *snap = r->snap;

  uint32_t *results = NULL, n_results = 0, cap_results = 0;
  int rc = match_all(r, &results, &n_results, &cap_results);
  pr->status = TFX_FUSION_NOT_CHANGED;
  if (rc == 0 && n_results > 0) {
    int verdict = 1;
    if (ru->prog != TFX_PACK_NONE) {
      tfx_vm_result res;
      pr->select_ran = 1;
      /* The selection program (require, fuse) iterates over the matched scopes, so its
       * budgets grow with them: the per-run budget plus 1/1000 of it (steps) and 1/256 of it
       * (heap) per matched scope. Still linear in the graph; restored after the run. */
      uint64_t steps0;
      size_t mem0;
      tfx_vm_get_budget(r->e->vm, &steps0, &mem0);
      tfx_vm_set_budget(r->e->vm, steps0 + steps0 / 1000 * n_results,
                        mem0 + mem0 / 256 * (size_t)n_results);
      tfx_status src = tfx_vm_run_select(r->e->vm, ru->prog, &res, r->d);
      tfx_vm_set_budget(r->e->vm, steps0, mem0);
      if (src) {
        rc = vm_failed(r, src);
      } else {
        verdict = !(res.value.tag == TFX_V_BOOL && res.value.u.i == 0);
      }
      builder_reset(r);
    }
    pr->select_value = verdict;
    if (rc == 0 && !verdict) {
      /* LastMatchScopesAndOPs failed: ClearTypeAndSubType on every result (and below). */
      for (uint32_t k = 0; k < n_results; k++) {
        const tfx_scope *s = &t->scopes[results[k]];
        for (uint32_t i = s->dfs_index; i < s->dfs_end; i++) t->scopes[t->dfs[i]].sub_type = TFX_NO_ID;
      }
      r->n_pending = 0;
    } else if (rc == 0) {
      pr->status = r->stopped ? TFX_FUSION_NOT_CHANGED : TFX_FUSION_SUCCESS;
      if (r->n_pending) {
        pr->results = tfx_arena_alloc(r->A, (size_t)r->n_pending * sizeof *pr->results);
        if (!pr->results) rc = oom(r);
        for (uint32_t k = 0; k < r->n_pending && rc == 0; k++) {
          pr->results[k] = r->pending[k];
          if (final_put(r, r->pending[k])) rc = -1;
        }
        if (rc == 0) pr->n_results = r->n_pending;
      }
    }
  }
  free(results);
  if (rc) pr->status = TFX_FUSION_FAILED;

  /* Sub_type changes (dfs order = byte order of scope names). Every write follows a match,
   * and the first one took the snapshot: no snapshot, no change. A changed scope had a
   * sub_type before or after: it is listed in r->typed. */
  uint32_t cap_set = 0, cap_cl = 0;
  if (r->snapped) typed_sort(r);
  for (uint32_t j = 0; j < r->n_typed && !r->oom && r->snapped; j++) {
    uint32_t s = t->dfs[r->typed[j]];
    uint32_t now = t->scopes[s].sub_type, was = snap[s];
    if (now == was) continue;
    if (now != TFX_NO_ID) {
      if (AGROW(r, pr->set, pr->n_set, cap_set)) break;
      pr->set[pr->n_set].scope = scope_name(r, s);
      pr->set[pr->n_set++].sub_type = st_name(r, now);
    } else {
      if (AGROW(r, pr->cleared, pr->n_cleared, cap_cl)) break;
      pr->cleared[pr->n_cleared].scope = scope_name(r, s);
      pr->cleared[pr->n_cleared++].sub_type = st_name(r, was);
    }
  }
  return rc || r->oom ? -1 : 0;
}

/* ---------------------------------------------------------------- entry point */

tfx_status tfx_fusion_run(tfx_fusion_engine *e, const tfx_fusion_enables *en, const tfx_module *m,
                          const tfx_graph *g, tfx_scope_tree *t, tfx_fusion_report *rep,
                          tfx_diag *d) {
  const tfx_pack *p = e->pack;
  run r;
  memset(&r, 0, sizeof r);
  r.e = e;
  r.p = p;
  r.m = m;
  r.g = g;
  r.t = t;
  r.A = &rep->arena;
  r.d = d;
  tfx_hmap_init(&r.final_ix);
  tfx_hmap_init(&r.ln_ix);
  int rc = 0;

  if (rep->n_graphs == rep->cap_graphs) {
    uint32_t nc = rep->cap_graphs ? rep->cap_graphs * 2 : 4;
    tfx_fusion_graph_report *v = tfx_arena_calloc(r.A, nc, sizeof *v);
    if (!v) goto nomem;
    if (rep->n_graphs) memcpy(v, rep->graphs, (size_t)rep->n_graphs * sizeof *v);
    rep->graphs = v;
    rep->cap_graphs = nc;
  }
  tfx_fusion_graph_report *gr = &rep->graphs[rep->n_graphs++];
  memset(gr, 0, sizeof *gr);
  gr->graph = adup(&r, g->name ? g->name : "", g->name ? strlen(g->name) : 0);
  gr->g = g;
  gr->node_count = g->n_nodes;
  gr->scope_count = t->n_scopes;
  r.scope_names = tfx_calloc(t->n_scopes ? t->n_scopes : 1, sizeof *r.scope_names);
  r.node_names = tfx_calloc(g->n_nodes ? g->n_nodes : 1, sizeof *r.node_names);
  r.snap = tfx_malloc((t->n_scopes ? t->n_scopes : 1) * sizeof *r.snap);
  r.reqs = tfx_calloc(p->n_patterns ? p->n_patterns : 1, sizeof *r.reqs);
  r.n_by_op = m->ops.n;
  r.by_op = tfx_calloc(r.n_by_op ? r.n_by_op : 1, sizeof *r.by_op);
  r.n_op_names = m->ops.n;
  r.op_names = tfx_calloc(r.n_op_names ? r.n_op_names : 1, sizeof *r.op_names);
  if (!gr->graph || !r.scope_names || !r.node_names || !r.snap || !r.reqs || !r.by_op || !r.op_names) goto nomem;

  /* the scopes with a sub_type already (none for a fresh tree): one pass in id order */
  r.typed_sorted = 0;
  for (uint32_t i = 0; i < t->n_scopes; i++) {
    if (t->scopes[i].sub_type == TFX_NO_ID) continue;
    if (MGROW(&r, r.typed, r.n_typed, r.cap_typed)) goto nomem;
    r.typed[r.n_typed++] = t->scopes[i].dfs_index;
  }
  if ((rc = tfx_vm_link(e->vm, g, &m->ops, t, &e->subtypes, d)) != 0) goto out;
  tfx_vm_set_host(e->vm, &fusion_host, &r);
  r.use_index = !tfx_vm_observed(e->vm);

  uint32_t n_on = 0;
  for (uint32_t i = 0; i < p->n_rules; i++)
    n_on += p->rules[i].kind == TFX_RULE_PASS && i < en->n && en->on[i];
  gr->passes = tfx_arena_calloc(r.A, n_on ? n_on : 1, sizeof *gr->passes);
  if (!gr->passes) goto nomem;
  if (tfx_progress_current) { /* someone listens: how many scope tests there may be */
    if (progress_tests_total(&r, en)) goto nomem;
    tfx_progress_units(0, r.tests_total, "scope tests");
  }
  for (uint32_t i = 0; i < p->n_rules; i++) {
    if (p->rules[i].kind != TFX_RULE_PASS || i >= en->n || !en->on[i]) continue;
    tfx_fusion_pass_report *pr = &gr->passes[gr->n_passes++];
    const char *nm = tfx_pack_str(p, p->rules[i].name);
    pr->name = adup(&r, nm ? nm : "?", nm ? strlen(nm) : 1);
    pr->rule = i;
    char site[300];
    snprintf(site, sizeof site, "%s:%u", tfx_pack_file(p, p->rules[i].file), p->rules[i].line);
    pr->site = adup(&r, site, strlen(site));
    if (!pr->name || !pr->site) goto nomem;
    r.pr = pr;
    if (run_pass(&r, i)) {
      rc = r.oom ? TFX_E_NOMEM : TFX_E_FAIL; /* reported; ATC aborts the parse */
      break;
    }
  }

  /* A final result whose index maps failed check_keys fails the run. */
  if (rc == 0 && !r.oom && report_map_errs(&r)) rc = TFX_E_FAIL;
  /* Final sub_types (those listed in r.typed, in dfs order) and the final result map (sorted
   * by name). */
  uint32_t cap_fs = 0;
  typed_sort(&r);
  for (uint32_t j = 0; j < r.n_typed && !r.oom; j++) {
    uint32_t s = t->dfs[r.typed[j]];
    if (t->scopes[s].sub_type == TFX_NO_ID) continue;
    if (AGROW(&r, gr->final_sub_types, gr->n_final_sub_types, cap_fs)) break;
    gr->final_sub_types[gr->n_final_sub_types].scope = scope_name(&r, s);
    gr->final_sub_types[gr->n_final_sub_types++].sub_type = st_name(&r, t->scopes[s].sub_type);
  }
  if (r.n_final && !r.oom) {
    gr->final = tfx_arena_alloc(r.A, (size_t)r.n_final * sizeof *gr->final);
    if (!gr->final) goto nomem;
    memcpy(gr->final, r.final, (size_t)r.n_final * sizeof *gr->final);
    qsort(gr->final, r.n_final, sizeof *gr->final, cmp_result);
    gr->n_final = r.n_final;
  }
  if (r.oom) rc = TFX_E_NOMEM;
  goto out;
nomem:
  oom(&r);
  rc = TFX_E_NOMEM;
out:
  tfx_vm_set_host(e->vm, NULL, NULL);
  builder_reset(&r);
  tfx_hmap_free(&r.final_ix);
  free(r.final);
  free(r.pending);
  free(r.by_name);
  free(r.mark);
  free(r.scope_names);
  free(r.node_names);
  free(r.st_names);
  free(r.op_names);
  free(r.snap);
  free(r.typed);
  free(r.reqs);
  tfx_hmap_free(&r.ln_ix);
  free(r.ln_start);
  free(r.ln_list);
  for (uint32_t i = 0; r.by_op && i < r.n_by_op; i++)
    if (r.by_op[i]) {
      free(r.by_op[i]->dfs_order);
      free(r.by_op[i]->by_count);
      free(r.by_op[i]->count);
      free(r.by_op[i]);
    }
  free(r.by_op);
  return (tfx_status)rc;
}
