/* ScopeTree builder: Ascend's ScopeTreeImpl::AddNodeToScope/SplitNodeName and Scope LastName.
 * Stage: scope (after graph). Input: one tfx_graph (node names and interned op ids); or
 * (tfx_scope_tree_build_defs, a thread beside the index: passes/pass_load.c) the NodeDefs the
 * main graph is being indexed from, their names placed before the index is done, the graph
 * read only once the wait hook says its op ids are final (just before the direct-node lists
 * and counts, the part of finish() that reads them).
 * Output: tfx_scope_tree (scope.h), all of it in t->arena but the name map (malloc'ed: the
 * builder's scope table, kept); build-time scratch is malloc'ed.
 * Cost: O(total name length + N * depth) to place nodes, then O(sum of count-array sizes) for
 * the subtree counts (children merged into parents in reverse DFS order); no recursion.
 * Scopes are keyed by full name, which for a name without empty pieces is a prefix of the
 * node name: a look-ahead hashes the pieces a node will look up several nodes early and
 * fetches their table slots, so the table's cache misses overlap (at 10^6 nodes they were a
 * third of the build). */
#include "scope/scope.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"

/* ---- LastName (docs/ASCEND.md §1.3) ----------------------------------------------------- */

/* Ascend TrimScopeIndex: strip "_N" when everything after the last '_' is digits and
 * std::stoi of it is > 0. Empty N and N beyond INT_MAX make stoi throw: the name stays. */
static size_t trim_scope_index(const char *s, size_t n) {
  size_t us = n;
  while (us > 0 && s[us - 1] != '_') us--;
  if (us == 0) return n; /* no '_' */
  size_t idx = us - 1, d0 = us;
  if (d0 == n) return n; /* "a_": stoi("") throws */
  for (size_t i = d0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') return n;
  while (d0 < n && s[d0] == '0') d0++; /* leading zeros do not change the value */
  if (d0 == n) return n;                /* value 0 */
  if (n - d0 > 10) return n;            /* out of int range */
  uint64_t v = 0;
  for (size_t i = d0; i < n; i++) v = v * 10 + (uint64_t)(s[i] - '0');
  if (v > INT_MAX) return n;
  return idx;
}

/* LastName span of a full name: the second-to-last piece of a split on '/' that keeps empty
 * pieces (ge::StringUtils::Split), then TrimScopeIndex; a name without '/' is returned whole
 * and untrimmed (Ascend returns name_ when the split has fewer than 2 pieces). */
static void last_name_span(const char *full, size_t n, size_t *start, size_t *len) {
  size_t q = n;
  while (q > 0 && full[q - 1] != '/') q--;
  if (q == 0) { /* no '/' */
    *start = 0;
    *len = n;
    return;
  }
  size_t end = q - 1, b = end; /* full[end] is the last '/' */
  while (b > 0 && full[b - 1] != '/') b--;
  *start = b;
  *len = trim_scope_index(full + b, end - b);
}

const char *tfx_scope_last_name(const char *full_name, char *buf, size_t n) {
  if (!buf || n == 0) return buf;
  size_t st = 0, len = 0;
  if (full_name) last_name_span(full_name, strlen(full_name), &st, &len);
  if (len >= n) len = n - 1;
  if (len) memcpy(buf, full_name + st, len);
  buf[len] = '\0';
  return buf;
}

/* ---- build-time scope table ---------------------------------------------------------------- */

typedef struct sinfo {
  char *name;         /* full name, arena, NUL-terminated */
  uint32_t name_len;
  uint32_t piece_len; /* the last piece is name[name_len - 1 - piece_len .. name_len - 1) */
  uint32_t parent;
  uint32_t depth;
  uint32_t n_kids;    /* child scopes made so far: 0 = a look-up under it finds nothing */
} sinfo;

/* A scope boundary of the previous node name: after placing the pieces of name[0..pos)
 * (pos just after a '/'), the innermost scope was `scope`; `odd` when name[0..pos) has an
 * empty piece (then it is not the scope's full name). */
typedef struct sbound {
  size_t pos;
  uint32_t scope;
  uint32_t odd;
} sbound;

/* What the look-ahead (see ahead()) found for a node: its name's length and, for up to
 * AHEAD_PIECES pieces after the boundary it shares with the previous name, where the piece
 * ends (the '/' after it) and the hash of the name up to that '/' inclusive. */
#define AHEAD_PIECES 4u
typedef struct slook {
  size_t len;
  size_t common; /* common prefix length with the previous node's name */
  size_t last, e; /* last_piece's answers */
  uint32_t n;
  uint32_t end[AHEAD_PIECES];
  uint32_t hash[AHEAD_PIECES];
} slook;
#define AHEAD_RING 16u /* a power of two, more than AHEAD_DIST */
#define AHEAD_DIST 8u  /* nodes between a look-ahead and the placement */

typedef struct sbuild {
  tfx_scope_tree *t;
  tfx_diag *d;
  uint32_t max_depth; /* scope-depth limit; 0 = none */
  sinfo *info; /* malloc'ed, grows */
  uint32_t n, cap;
  /* Scope table, keyed by full name: open addressing, a slot is (hash << 32) | (id + 1),
   * 0 = empty, hash = tfx_hash_bytes of the full name. A child is found by its full name
   * (parent's full name + piece + '/'), which for a name without empty pieces is the node
   * name's own prefix, so the hash of a piece's slot is known from the name alone and the
   * look-ahead can fetch the slot before it is probed. The finished table is the tree's name
   * map (tfx_scope_find). */
  uint64_t *slot;
  uint32_t scap;  /* power of two */
  /* The previous name and its boundaries: the scopes of a shared prefix are reused instead
   * of looked up piece by piece (neighbouring nodes mostly share their scopes). */
  const char *prev;
  size_t prev_len;
  sbound *bound;
  uint32_t n_bound, cap_bound;
  char *scratch; /* a full name built from the parent's (names with empty pieces) */
  size_t cap_scratch;
  slook ring[AHEAD_RING];
} sbuild;

/* Rebuilds the table with cap slots (a power of two, more than twice the scopes). */
static int stab_resize(sbuild *b, uint32_t cap) {
  uint64_t *s = tfx_malloc((size_t)cap * sizeof *s);
  if (!s) return -1;
  memset(s, 0, (size_t)cap * sizeof *s);
  for (uint32_t i = 0; i < b->scap; i++) { /* the hash is in the slot: no name is read */
    uint64_t e = b->slot[i];
    if (!e) continue;
    uint32_t j = (uint32_t)(e >> 32) & (cap - 1);
    while (s[j]) j = (j + 1) & (cap - 1);
    s[j] = e;
  }
  free(b->slot);
  b->slot = s;
  b->scap = cap;
  return 0;
}

/* Hash of a full scope name (the scope table's key). Built word by word so that the names
 * of a node's nested scopes, which are prefixes of one another, are hashed in one sweep:
 * sh_words runs the state over the 8-byte words of p[from..to) (multiples of 8), sh_final
 * mixes in the last n % 8 bytes and the length. */
static inline uint64_t sh_words(uint64_t h, const char *p, size_t from, size_t to) {
  for (size_t i = from; i < to; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return h;
}

static inline uint32_t sh_final(uint64_t h, const char *p, size_t n) {
  const unsigned char *t = (const unsigned char *)p + (n & ~(size_t)7);
  size_t r = n & 7;
  uint64_t w = 0;
  for (size_t i = 0; i < r; i++) w |= (uint64_t)t[i] << (8 * i);
  h ^= w ^ ((uint64_t)n << 56);
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return (uint32_t)h;
}

#define SH_SEED 0x9E3779B97F4A7C15ull

static uint32_t scope_hash(const char *p, size_t n) {
  return sh_final(sh_words(SH_SEED, p, 0, n & ~(size_t)7), p, n);
}

static int stab_grow(sbuild *b) {
  uint32_t cap = b->scap ? b->scap * 2 : 1024;
  if (cap == 0 || cap > (UINT32_MAX >> 1)) return -1;
  return stab_resize(b, cap);
}

/* Puts scope id (full name hash h) into the table, which has room. */
static void stab_put(sbuild *b, uint32_t h, uint32_t id) {
  uint32_t j = h & (b->scap - 1);
  while (b->slot[j]) j = (j + 1) & (b->scap - 1);
  b->slot[j] = ((uint64_t)h << 32) | (uint64_t)(id + 1);
}

/* Returned by child_get / place_node when a scope would be deeper than b->max_depth. */
#define PLACE_TOO_DEEP (TFX_NO_ID - 2)

/* Child scope of `parent` whose full name is fn[0..fl) (hash h), last piece pn bytes long,
 * created if absent; TFX_NO_ID on OOM, PLACE_TOO_DEEP over the scope-depth limit. */
static uint32_t child_get(sbuild *b, uint32_t parent, const char *fn, size_t fl, size_t pn,
                          uint32_t h) {
  if (b->info[parent].n_kids) /* a scope with no child yet has none of this name */
    for (uint32_t j = h & (b->scap - 1); b->slot[j]; j = (j + 1) & (b->scap - 1)) {
      uint64_t e = b->slot[j];
      if ((uint32_t)(e >> 32) != h) continue;
      const sinfo *s = &b->info[(uint32_t)e - 1];
      if (s->name_len == fl && memcmp(s->name, fn, fl) == 0) return (uint32_t)e - 1;
    }
  /* New scope: full name = parent's full name (empty for root) + piece + '/'. */
  const sinfo *par = &b->info[parent];
  if (b->max_depth && par->depth >= b->max_depth) return PLACE_TOO_DEEP;
  if (fl >= UINT32_MAX || b->n >= TFX_NO_ID - 2) return TFX_NO_ID;
  if (b->n == b->cap) {
    uint32_t cap = b->cap * 2;
    sinfo *ni = tfx_realloc(b->info, (size_t)cap * sizeof *ni);
    if (!ni) return TFX_NO_ID;
    b->info = ni;
    b->cap = cap;
  }
  if ((uint64_t)(b->n + 1) * 2 > b->scap && stab_grow(b) < 0) return TFX_NO_ID;
  char *name = tfx_arena_alloc(&b->t->arena, fl + 1);
  if (!name) return TFX_NO_ID;
  memcpy(name, fn, fl);
  name[fl] = '\0';
  uint32_t id = b->n++;
  sinfo *s = &b->info[id];
  s->name = name;
  s->name_len = (uint32_t)fl;
  s->piece_len = (uint32_t)pn;
  s->parent = parent;
  s->depth = b->info[parent].depth + 1;
  s->n_kids = 0;
  b->info[parent].n_kids++;
  stab_put(b, h, id);
  return id;
}

/* Places node name `nm` (SplitNodeName semantics): the non-empty pieces but the last one are
 * nested scopes; the node goes to the innermost. Returns the scope id, TFX_NO_ID when the
 * name has no non-empty piece (Ascend adds such a node nowhere), UINT32_MAX - 1 on OOM, or
 * PLACE_TOO_DEEP over the scope-depth limit. */
#define PLACE_OOM (TFX_NO_ID - 1)
/* Length of the common prefix of a[0..n) and b[0..n), eight bytes at a time. */
static size_t common_prefix(const char *a, const char *b, size_t n) {
  size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    memcpy(&x, a + i, 8);
    memcpy(&y, b + i, 8);
    if (x != y) return i + (size_t)(__builtin_ctzll(x ^ y) >> 3);
  }
#endif
  while (i < n && a[i] == b[i]) i++;
  return i;
}

/* Start of the last non-empty piece of nm[0..n), and in *e the end of the name without its
 * trailing '/'s (0: no non-empty piece). */
static size_t last_piece(const char *nm, size_t n, size_t *e) {
  size_t x = n;
  while (x > 0 && nm[x - 1] == '/') x--;
  *e = x;
  size_t last = x;
  while (last > 0 && nm[last - 1] != '/') last--;
  return last;
}

/* Look-ahead for the node AHEAD_DIST before its placement (its name nm, the previous node's
 * pv of length pl): the pieces after the last '/' the two names share are the ones
 * place_node will look up (or make); their full names' hashes are computed now and their
 * table slots fetched, so that probe (a miss in a table of megabytes) overlaps the work on
 * the nodes in between. A hint only: place_node uses a hash when a piece ends where this
 * one did and the name has no empty piece before it. */
static void ahead(sbuild *b, slook *L, const char *nm, const char *pv, size_t pl) {
  size_t n = strlen(nm), e;
  L->len = n;
  L->n = 0;
  size_t c = common_prefix(nm, pv, n < pl ? n : pl);
  L->common = c;
  size_t last = last_piece(nm, n, &e);
  L->last = last;
  L->e = e;
  if (e == 0 || nm[0] == '/' || n >= UINT32_MAX) return;
  if (c > last) c = last;
  size_t i = c;
  while (i > 0 && nm[i - 1] != '/') i--;
  uint64_t hs = SH_SEED; /* over nm[0..hw) */
  size_t hw = 0;
  while (i < last && L->n < AHEAD_PIECES) {
    const char *sl = memchr(nm + i, '/', last - i);
    if (!sl || sl == nm + i) return; /* an empty piece: place_node builds the full name */
    size_t j = (size_t)(sl - nm), fw = (j + 1) & ~(size_t)7;
    hs = sh_words(hs, nm, hw, fw);
    hw = fw;
    uint32_t h = sh_final(hs, nm, j + 1);
    __builtin_prefetch(&b->slot[h & (b->scap - 1)]);
    L->end[L->n] = (uint32_t)j;
    L->hash[L->n++] = h;
    i = j + 1;
  }
}

static uint32_t place_node(sbuild *b, const char *nm, const slook *L) {
  size_t n, e, last;
  if (L) {
    n = L->len;
    e = L->e;
    last = L->last;
  } else {
    n = strlen(nm);
    last = last_piece(nm, n, &e);
  }
  if (e < n || e == 0) b->t->odd_names = 1;
  /* Resume after the deepest boundary of the previous name that lies in the prefix both
   * names share and not past this name's last piece: the pieces before it are the same
   * bytes, so they lead to the same scope (child_get would find each one again). The
   * look-ahead measured the shared prefix already (b->prev is the previous node's name). */
  size_t common = L ? L->common : common_prefix(nm, b->prev, n < b->prev_len ? n : b->prev_len);
  if (e == 0) { /* no scope: nothing to share with the next name */
    b->prev = nm;
    b->prev_len = n;
    b->n_bound = 0;
    return TFX_NO_ID;
  }
  uint32_t k = b->n_bound;
  while (k > 0 && (b->bound[k - 1].pos > common || b->bound[k - 1].pos > last)) k--;
  uint32_t cur = k ? b->bound[k - 1].scope : 0;
  size_t i = k ? b->bound[k - 1].pos : 0;
  int odd = k ? (int)b->bound[k - 1].odd : 0; /* nm[0..i) has an empty piece */
  uint32_t la = 0; /* next look-ahead piece to try */
  uint64_t hs = SH_SEED; /* the full-name hash's state over nm[0..hw) */
  size_t hw = 0;
  b->n_bound = k;
  b->prev = nm;
  b->prev_len = n;
  while (i < last) {
    if (nm[i] == '/') {
      b->t->odd_names = 1; /* an empty piece */
      odd = 1;
      i++;
      continue;
    }
    const char *sl = memchr(nm + i, '/', last - i); /* i < last: a '/' comes before the last piece */
    size_t j = (size_t)(sl - nm), pn = j - i;
    const char *fn = nm; /* the child's full name: nm[0..j] when nm[0..i) has no empty piece */
    size_t fl = j + 1;
    uint32_t h;
    if (odd) { /* the parent's full name (none for the root) + piece + '/' */
      const sinfo *par = &b->info[cur];
      size_t plen = cur ? par->name_len : 0;
      fl = plen + pn + 1;
      if (fl + 1 > b->cap_scratch) {
        size_t cap = b->cap_scratch ? b->cap_scratch : 256;
        while (cap < fl + 1) cap *= 2;
        char *ns = tfx_realloc(b->scratch, cap);
        if (!ns) return PLACE_OOM;
        b->scratch = ns;
        b->cap_scratch = cap;
        par = &b->info[cur];
      }
      if (plen) memcpy(b->scratch, par->name, plen);
      memcpy(b->scratch + plen, nm + i, pn);
      b->scratch[fl - 1] = '/';
      fn = b->scratch;
      h = scope_hash(fn, fl);
    } else {
      while (L && la < L->n && L->end[la] < j) la++;
      if (L && la < L->n && L->end[la] == j) {
        h = L->hash[la];
      } else {
        hs = sh_words(hs, nm, hw, fl & ~(size_t)7);
        hw = fl & ~(size_t)7;
        h = sh_final(hs, nm, fl);
      }
    }
    cur = child_get(b, cur, fn, fl, pn, h);
    if (cur == TFX_NO_ID) return PLACE_OOM;
    if (cur == PLACE_TOO_DEEP) return cur;
    i = j + 1;
    if (b->n_bound == b->cap_bound) {
      uint32_t cap = b->cap_bound ? b->cap_bound * 2 : 64;
      sbound *nb = tfx_realloc(b->bound, (size_t)cap * sizeof *nb);
      if (!nb) return PLACE_OOM;
      b->bound = nb;
      b->cap_bound = cap;
    }
    b->bound[b->n_bound++] = (sbound){i, cur, (uint32_t)odd};
  }
  return cur;
}

/* ---- finishing: children, nodes, DFS, counts ------------------------------------------------ */

typedef struct name_id {
  const char *name;
  uint32_t id;
} name_id;

static int cmp_name_id(const void *a, const void *b) {
  return strcmp(((const name_id *)a)->name, ((const name_id *)b)->name);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Most child lists and op-count lists are short: an insertion sort up to this length, qsort
 * above (a qsort call was a quarter of the pass's instructions). Both orders are total (names
 * of siblings differ, op ids in one list differ), so the result is the same either way. */
#define SMALL_SORT 16u

static void sort_name_ids(name_id *v, uint32_t n) {
  if (n > SMALL_SORT) {
    qsort(v, n, sizeof *v, cmp_name_id);
    return;
  }
  for (uint32_t i = 1; i < n; i++) {
    name_id x = v[i];
    uint32_t j = i;
    while (j > 0 && strcmp(v[j - 1].name, x.name) > 0) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
}

static void sort_u32(uint32_t *v, uint32_t n) {
  if (n > SMALL_SORT) {
    qsort(v, n, sizeof *v, cmp_u32);
    return;
  }
  for (uint32_t i = 1; i < n; i++) {
    uint32_t x = v[i], j = i;
    while (j > 0 && v[j - 1] > x) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
}

/* Returns 0, -1 (out of memory) or -2 (wait said the index failed: abandoned). nn is the number
 * of nodes placed; g is not read before wait(wait_user) returned 0 (NULL: no waiting): the
 * scopes, their names and children are made first, over what the placement found alone. */
static int finish(sbuild *b, const tfx_graph *g, uint32_t nn, int (*wait)(void *),
                  void *wait_user) {
  tfx_scope_tree *t = b->t;
  uint32_t ns = b->n;
  tfx_arena *a = &t->arena;
  int rc = -1;
  uint32_t *cnt = NULL, *scratch = NULL, *touched = NULL, *stack = NULL, *node_op = NULL;
  name_id *pairs = NULL;
  char *spare = (char *)b->info; /* see "Children" below */
  size_t spare_len = (size_t)b->cap * sizeof *b->info;
  int own_pairs = 0, own_node_op = 0, own_stack = 0; /* malloc'ed, not carved from spare */

  t->scopes = tfx_arena_calloc(a, ns, sizeof *t->scopes);
  t->dfs = tfx_arena_calloc(a, ns, sizeof *t->dfs);
  uint32_t *child_all = tfx_arena_calloc(a, ns, sizeof *child_all);
  uint32_t *node_all = tfx_arena_calloc(a, nn ? nn : 1, sizeof *node_all);
  cnt = tfx_calloc((size_t)ns + 1, sizeof *cnt);
  if (!t->scopes || !t->dfs || !child_all || !node_all || !cnt) goto out;
  t->n_scopes = ns;
  /* The scope table becomes the name map (tfx_scope_find). Sized for the nodes, it is made
   * smaller first when the graph has far fewer scopes (load under 1/8). */
  if (b->scap > 1024 && (uint64_t)ns * 8 < b->scap) {
    uint32_t cap = 1024;
    while ((uint64_t)cap < (uint64_t)ns * 2) cap *= 2;
    if (stab_resize(b, cap) < 0) goto out;
  }
  t->name_slots = b->slot;
  t->name_cap = b->scap;
  b->slot = NULL;
  b->scap = 0;

  for (uint32_t i = 0; i < ns; i++) {
    tfx_scope *s = &t->scopes[i];
    const sinfo *si = &b->info[i];
    s->name = si->name;
    s->parent = si->parent;
    s->depth = si->depth;
    s->sub_type = TFX_NO_ID;
    size_t st, ln;
    last_name_span(si->name, si->name_len, &st, &ln);
    s->last_name = i == 0 ? "root" : tfx_arena_strndup(a, si->name + st, ln);
    if (!s->last_name) goto out;
  }

  /* Children (CSR), each list sorted by full name. */
  for (uint32_t i = 1; i < ns; i++) cnt[t->scopes[i].parent + 1]++;
  for (uint32_t i = 0; i < ns; i++) cnt[i + 1] += cnt[i];
  /* The build's scope records (b->info, b->cap entries of 32 bytes, resident) are not read
   * from here on: the scratch arrays below are carved from them when they fit, instead of
   * fresh pages (the command maps every large block anew: a page fault per 4 KiB). */
  if ((size_t)ns * sizeof *pairs <= spare_len) {
    pairs = (name_id *)(void *)spare;
  } else {
    if (!(pairs = tfx_malloc((size_t)ns * sizeof *pairs))) goto out;
    own_pairs = 1;
  }
  for (uint32_t i = 0; i < ns; i++) {
    t->scopes[i].children = child_all + cnt[i];
    t->scopes[i].n_children = 0;
  }
  for (uint32_t i = 1; i < ns; i++) {
    tfx_scope *p = &t->scopes[t->scopes[i].parent];
    uint32_t at = (uint32_t)(p->children - child_all) + p->n_children++;
    pairs[at].name = t->scopes[i].name;
    pairs[at].id = i;
  }
  for (uint32_t i = 0; i < ns; i++) {
    tfx_scope *s = &t->scopes[i];
    name_id *seg = pairs + (s->children - child_all);
    if (s->n_children > 1) sort_name_ids(seg, s->n_children);
    for (uint32_t k = 0; k < s->n_children; k++) s->children[k] = seg[k].id;
    if (!s->n_children) s->children = NULL;
  }
  if (own_pairs) free(pairs); /* before node_op is allocated: the same heap serves it */
  pairs = NULL;

  /* From here on the op ids of g are read (a thread beside the index: it has them now) */
  if (wait && (wait(wait_user) != 0 || g->n_nodes != nn)) {
    rc = -2;
    goto out;
  }

  /* Direct nodes (CSR), graph order. node_op (scratch) holds each listed node's op id at the
   * same position, read by the counts below: the node records (56 bytes each, in graph order)
   * are then read once in order instead of once per scope in reverse depth-first order. */
  memset(cnt, 0, ((size_t)ns + 1) * sizeof *cnt);
  for (uint32_t i = 0; i < g->n_nodes; i++)
    if (t->node_scope[i] != TFX_NO_ID) cnt[t->node_scope[i] + 1]++;
  for (uint32_t i = 0; i < ns; i++) cnt[i + 1] += cnt[i];
  for (uint32_t i = 0; i < ns; i++) t->scopes[i].nodes = node_all + cnt[i];
  size_t op_bytes = (size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *node_op;
  if (op_bytes <= spare_len) {
    node_op = (uint32_t *)(void *)spare;
  } else {
    if (!(node_op = tfx_malloc(op_bytes))) goto out;
    own_node_op = 1;
  }
  uint32_t n_ops = 0; /* one more than the largest op id */
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    uint32_t s = t->node_scope[i], op = g->nodes[i].op_id;
    if (op != TFX_NO_ID && op >= n_ops) n_ops = op + 1;
    if (s == TFX_NO_ID) continue;
    uint32_t at = cnt[s]++; /* cnt[s]: scope s's fill cursor (4-byte entries, not the records) */
    node_all[at] = i;
    node_op[at] = op;
  }
  for (uint32_t i = 0; i < ns; i++) { /* cnt[i] is now the end of scope i's list */
    t->scopes[i].n_nodes = cnt[i] - (uint32_t)(t->scopes[i].nodes - node_all);
    if (!t->scopes[i].n_nodes) t->scopes[i].nodes = NULL;
  }

  /* Pre-order DFS with an explicit stack; children pushed in reverse so they pop in order. */
  size_t op_used = own_node_op ? 0 : (op_bytes + 15) & ~(size_t)15; /* node_op's part */
  if (op_used + (size_t)ns * sizeof *stack <= spare_len) {
    stack = (uint32_t *)(void *)(spare + op_used);
  } else {
    if (!(stack = tfx_malloc((size_t)ns * sizeof *stack))) goto out;
    own_stack = 1;
  }
  uint32_t sp = 0, k = 0;
  stack[sp++] = 0;
  while (sp) {
    uint32_t s = stack[--sp];
    t->scopes[s].dfs_index = k;
    t->dfs[k++] = s;
    const tfx_scope *sc = &t->scopes[s];
    for (uint32_t c = sc->n_children; c > 0; c--) {
      stack[sp++] = sc->children[c - 1];
      __builtin_prefetch(&t->scopes[sc->children[c - 1]]); /* records in id order, read in dfs order */
    }
  }

  /* Bottom-up (reverse pre-order): subtree sizes, all-node counts, op-type counts. */
  scratch = tfx_calloc(n_ops ? n_ops : 1, sizeof *scratch);
  touched = tfx_malloc((n_ops ? n_ops : 1) * sizeof *touched);
  if (!scratch || !touched) goto out;
  for (uint32_t i = 0; i < ns; i++) t->scopes[i].dfs_end = 1; /* subtree size for now */
  enum { DFS_AHEAD = 8 };
  for (uint32_t r = ns; r > 0; r--) {
    /* the records are read in reverse dfs order, i.e. scattered: fetched DFS_AHEAD ahead (a
     * scope's children were visited just before it and are in cache) */
    if (r > DFS_AHEAD) {
      const tfx_scope *ahead = &t->scopes[t->dfs[r - 1 - DFS_AHEAD]];
      __builtin_prefetch(ahead);
      __builtin_prefetch((const char *)ahead + sizeof *ahead - 1);
    }
    tfx_scope *s = &t->scopes[t->dfs[r - 1]];
    uint32_t nt = 0;
    uint64_t all = s->n_nodes;
    const uint32_t *sop = s->n_nodes ? node_op + (s->nodes - node_all) : NULL;
    for (uint32_t q = 0; q < s->n_nodes; q++) {
      uint32_t op = sop[q];
      if (op == TFX_NO_ID) continue;
      if (scratch[op]++ == 0) touched[nt++] = op;
    }
    for (uint32_t c = 0; c < s->n_children; c++) {
      const tfx_scope *ch = &t->scopes[s->children[c]];
      all += ch->n_all_nodes;
      s->dfs_end += ch->dfs_end;
      for (uint32_t q = 0; q < ch->n_counts; q++) {
        uint32_t op = ch->counts[q].op_id;
        if (scratch[op] == 0) touched[nt++] = op;
        scratch[op] += ch->counts[q].count;
      }
    }
    s->n_all_nodes = (uint32_t)all;
    s->n_counts = nt;
    s->counts = NULL;
    if (nt) {
      if (nt > 1) sort_u32(touched, nt);
      s->counts = tfx_arena_alloc(a, (size_t)nt * sizeof *s->counts);
      if (!s->counts) goto out;
      for (uint32_t q = 0; q < nt; q++) {
        s->counts[q].op_id = touched[q];
        s->counts[q].count = scratch[touched[q]];
        scratch[touched[q]] = 0;
      }
    }
  }
  for (uint32_t i = 0; i < ns; i++) t->scopes[i].dfs_end += t->scopes[i].dfs_index;
  rc = 0;
out:
  free(cnt);
  if (own_pairs) free(pairs);
  if (own_stack) free(stack);
  free(scratch);
  free(touched);
  if (own_node_op) free(node_op);
  return rc;
}

/* How far ahead the placement loop prefetches node names. */
#define PREFETCH_NAMES 16u

tfx_status tfx_scope_tree_build(tfx_scope_tree *t, const tfx_graph *g, tfx_diag *d) {
  return tfx_scope_tree_build_lim(t, g, 0, d);
}

/* A node's name: from the index, or (defs) from the NodeDef the index takes it from, as the
 * index does (a missing name is ""). */
static inline const char *node_name(const tfx_graph *g, Tensorflow__NodeDef *const *defs, uint32_t i) {
  if (defs) return defs[i] && defs[i]->name ? defs[i]->name : "";
  return g->nodes[i].name ? g->nodes[i].name : "";
}

/* The build over g (defs NULL), or over the n NodeDefs defs that g's index is being built from
 * (tfx_scope_tree_build_defs): their names are placed, then wait() must return 0 before g is
 * read at all (its n_nodes, op ids); a non-zero return abandons the build (TFX_E_FAIL, nothing
 * reported). */
static tfx_status build(tfx_scope_tree *t, const tfx_graph *g, Tensorflow__NodeDef *const *defs,
                        uint32_t n_defs, int (*wait)(void *), void *wait_user, uint32_t max_depth,
                        tfx_diag *d) {
  memset(t, 0, sizeof *t);
  tfx_arena_init(&t->arena);
  t->graph = g;
  sbuild *bp = tfx_calloc(1, sizeof *bp); /* with its look-ahead ring: not on the stack */
  tfx_status rc = TFX_E_INPUT;
  if (!bp) goto fail;
  sbuild b_init = {t, d, max_depth, NULL, 0, 64, NULL, 0, "", 0, NULL, 0, 0, NULL, 0, {{0}}};
  *bp = b_init;
  sbuild *b = bp;
  b->info = tfx_malloc((size_t)b->cap * sizeof *b->info);
  /* The scope table starts with a slot per node (at least 1024): it grows past half full, and
   * graphs have fewer scopes than half their nodes (368 290 for 10^6 in the bench graph), so
   * it is not rehashed while the nodes are placed (growing from 1024 rehashed ~20 times) */
  const uint32_t nn = defs ? n_defs : g->n_nodes; /* g->n_nodes not read before wait() */
  uint32_t cap0 = 1024;
  while (cap0 < (UINT32_MAX >> 2) && cap0 < nn) cap0 *= 2;
  if (!b->info || stab_resize(b, cap0) < 0) goto fail;
  b->info[0] = (sinfo){(char *)"root", 4, 0, TFX_NO_ID, 0, 0};
  b->n = 1;
  stab_put(b, scope_hash("root", 4), 0);
  t->node_scope = tfx_arena_calloc(&t->arena, nn ? nn : 1, sizeof *t->node_scope);
  if (!t->node_scope) goto fail;
  /* The look-ahead runs AHEAD_DIST nodes before the placement (ring entry q % AHEAD_RING) */
  uint32_t n_ahead = 0;
  for (uint32_t i = 0; i < nn; i++) {
    /* The names are scattered over the GraphDef's arena (hundreds of bytes apart, cold since
     * the index read them): their first lines are fetched PREFETCH_NAMES nodes ahead, so the
     * misses overlap instead of stalling the look-ahead one by one. */
    if (i + PREFETCH_NAMES < nn) {
      const char *pf = defs ? (defs[i + PREFETCH_NAMES] ? defs[i + PREFETCH_NAMES]->name : NULL)
                            : g->nodes[i + PREFETCH_NAMES].name;
      if (pf) {
        __builtin_prefetch(pf);
        __builtin_prefetch(pf + 63);
      }
      /* the NodeDefs too (defs): read PREFETCH_NAMES nodes later than here for their names */
      if (defs && i + 2 * PREFETCH_NAMES < nn) __builtin_prefetch(defs[i + 2 * PREFETCH_NAMES]);
    }
    for (; n_ahead < nn && n_ahead <= i + AHEAD_DIST; n_ahead++) {
      const char *qn = node_name(g, defs, n_ahead);
      const char *pn = "";
      size_t pl = 0;
      if (n_ahead > 0) {
        pn = node_name(g, defs, n_ahead - 1);
        pl = b->ring[(n_ahead - 1) & (AHEAD_RING - 1)].len;
      }
      ahead(b, &b->ring[n_ahead & (AHEAD_RING - 1)], qn, pn, pl);
    }
    uint32_t s = place_node(b, node_name(g, defs, i), &b->ring[i & (AHEAD_RING - 1)]);
    if (s == PLACE_OOM) goto fail;
    if (s == PLACE_TOO_DEEP) {
      const char *nm = node_name(g, defs, i);
      /* defs: the main graph's (func NULL), g's fields not read yet */
      int fn = !defs && g->func;
      tfx_error(d, NULL, 0, 0, "%s%s%snode '%.200s%s': its scopes nest deeper than the limit of "
                "%" PRIu32 " (raise the scope-depth limit with --limit scope-depth=N)",
                fn ? "function '" : "", fn ? g->name : "", fn ? "': " : "", nm,
                strlen(nm) > 200 ? "..." : "", max_depth);
      rc = TFX_E_INPUT;
      goto done;
    }
    t->node_scope[i] = s;
  }
  int fr = finish(b, g, nn, wait, wait_user);
  if (fr == -2) { /* the index failed: abandoned */
    rc = TFX_E_FAIL;
    goto done;
  }
  if (fr < 0) goto fail;
  rc = 0;
  goto done;
fail:
  tfx_error(d, NULL, 0, 0, "out of memory while building the scope tree (%" PRIu32 " scopes)",
            bp ? bp->n : 0);
  rc = TFX_E_NOMEM;
done:
  if (bp) {
    free(bp->info);
    free(bp->slot);
    free(bp->bound);
    free(bp->scratch);
    free(bp);
  }
  return rc;
}

tfx_status tfx_scope_tree_build_lim(tfx_scope_tree *t, const tfx_graph *g, uint32_t max_depth,
                                    tfx_diag *d) {
  return build(t, g, NULL, 0, NULL, NULL, max_depth, d);
}

tfx_status tfx_scope_tree_build_defs(tfx_scope_tree *t, const tfx_graph *g,
                                     Tensorflow__NodeDef *const *defs, uint32_t n,
                                     int (*wait)(void *user), void *user, uint32_t max_depth,
                                     tfx_diag *d) {
  return build(t, g, defs, n, wait, user, max_depth, d);
}

void tfx_scope_tree_free(tfx_scope_tree *t) {
  free(t->name_slots);
  tfx_arena_free(&t->arena);
  memset(t, 0, sizeof *t);
}

int64_t tfx_scope_op_count(const tfx_scope *s, uint32_t op_id) {
  uint32_t lo = 0, hi = s->n_counts;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->counts[mid].op_id < op_id)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < s->n_counts && s->counts[lo].op_id == op_id) return s->counts[lo].count;
  return -1;
}

uint32_t tfx_scope_find(const tfx_scope_tree *t, const char *full_name) {
  if (!full_name || !t->name_cap) return TFX_NO_ID;
  size_t n = strlen(full_name);
  uint32_t h = scope_hash(full_name, n), cap = t->name_cap;
  for (uint32_t j = h & (cap - 1); t->name_slots[j]; j = (j + 1) & (cap - 1)) {
    uint64_t e = t->name_slots[j];
    if ((uint32_t)(e >> 32) != h) continue;
    const char *nm = t->scopes[(uint32_t)e - 1].name;
    if (strcmp(nm, full_name) == 0) return (uint32_t)e - 1;
  }
  return TFX_NO_ID;
}

int tfx_scope_is_descendant(const tfx_scope_tree *t, uint32_t a, uint32_t b) {
  if (a >= t->n_scopes || b >= t->n_scopes) return 0;
  const tfx_scope *sa = &t->scopes[a], *sb = &t->scopes[b];
  return sa->dfs_index > sb->dfs_index && sa->dfs_index < sb->dfs_end;
}
