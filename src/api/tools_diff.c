/* The line diff of `tfxc test` (tfxc.h "Tools": tfxc_diff).
 * Stage: api. Input: two texts and their labels. Output: a unified diff with 3 lines of
 * context (deletions before insertions in a change, as diff -u prints them), every line
 * indented; at most 200 diff lines, texts of more than 4000 lines only say from which line
 * on they differ. Deterministic; a failed allocation makes the call TFXC_NOMEM. */
#define TFXC_BUILDING_LIBRARY 1
#include "tfxc/tfxc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/strbuf.h"

#define MAX_DIFF_LINES 4000u /* larger files are compared without a line diff */
#define MAX_DIFF_OUT 200u    /* diff lines printed per file */

typedef struct lines {
  const char **s;
  size_t *n;
  size_t count;
} lines;

static int split_lines(const char *t, size_t len, lines *l) {
  l->count = 0;
  size_t cap = 1;
  for (size_t i = 0; i < len; i++) cap += t[i] == '\n';
  l->s = tfx_malloc(cap * sizeof *l->s);
  l->n = tfx_malloc(cap * sizeof *l->n);
  if (!l->s || !l->n) return -1;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++)
    if (i == len || t[i] == '\n') {
      if (i == len && start == len) break; /* no empty last line after the final '\n' */
      l->s[l->count] = t + start;
      l->n[l->count] = i - start;
      l->count++;
      start = i + 1;
    }
  return 0;
}

static int line_eq(const lines *a, size_t i, const lines *b, size_t j) {
  return a->n[i] == b->n[j] && memcmp(a->s[i], b->s[j], a->n[i]) == 0;
}

/* Appends a unified diff (3 lines of context) of a -> b, labelled la / lb, every line after
 * indent spaces (I below). */
static void unified_diff(const char *ta, size_t na, const char *tb, size_t nb, const char *la,
                         const char *lb, int ind, tfx_strbuf *out) {
  lines a = {0}, b = {0};
  uint32_t *lcs = NULL;
  char *ops = NULL;
  size_t *ai = NULL, *bi = NULL;
  if (split_lines(ta, na, &a) != 0 || split_lines(tb, nb, &b) != 0) goto oom;
  if (a.count > MAX_DIFF_LINES || b.count > MAX_DIFF_LINES) {
    size_t k = 0;
    while (k < a.count && k < b.count && line_eq(&a, k, &b, k)) k++;
    tfx_sb_printf(out, "%*s%s and %s differ from line %zu on (too long for a line diff)\n", ind,
                  "", la, lb, k + 1);
    goto done;
  }
  size_t W = b.count + 1;
  lcs = tfx_calloc((a.count + 1) * W, sizeof *lcs);
  if (!lcs) goto oom;
  for (size_t i = a.count; i-- > 0;)
    for (size_t j = b.count; j-- > 0;)
      lcs[i * W + j] = line_eq(&a, i, &b, j) ? lcs[(i + 1) * W + j + 1] + 1
                       : lcs[(i + 1) * W + j] >= lcs[i * W + j + 1] ? lcs[(i + 1) * W + j]
                                                                    : lcs[i * W + j + 1];
  size_t nops = a.count + b.count;
  ops = tfx_malloc(nops + 1);
  ai = tfx_malloc((nops + 1) * sizeof *ai);
  bi = tfx_malloc((nops + 1) * sizeof *bi);
  if (!ops || !ai || !bi) goto oom;
  size_t n = 0, i = 0, j = 0;
  while (i < a.count || j < b.count) {
    ai[n] = i;
    bi[n] = j;
    if (i < a.count && j < b.count && line_eq(&a, i, &b, j)) {
      ops[n++] = ' ';
      i++, j++;
    } else if (i < a.count && (j == b.count || lcs[(i + 1) * W + j] >= lcs[i * W + j + 1])) {
      ops[n++] = '-'; /* deletions first, as diff -u prints them */
      i++;
    } else {
      ops[n++] = '+';
      j++;
    }
  }
  int any = 0;
  for (size_t k = 0; k < n; k++) any |= ops[k] != ' ';
  if (!any) {
    tfx_sb_printf(out, "%*s%s and %s differ only in the final newline\n", ind, "", la, lb);
    goto done;
  }
  tfx_sb_printf(out, "%*s--- %s\n%*s+++ %s\n", ind, "", la, ind, "", lb);
  unsigned printed = 0;
  for (size_t k = 0; k < n;) {
    if (ops[k] == ' ') {
      k++;
      continue;
    }
    size_t hs = k >= 3 ? k - 3 : 0, he = k; /* hunk [hs, he) */
    for (;;) {
      while (he < n && ops[he] != ' ') he++;
      size_t nx = he;
      while (nx < n && ops[nx] == ' ' && nx - he < 7) nx++;
      if (nx < n && ops[nx] != ' ') {
        he = nx;
        continue;
      }
      he = he + 3 < n ? he + 3 : n;
      break;
    }
    size_t ac = 0, bc = 0;
    for (size_t q = hs; q < he; q++) {
      ac += ops[q] != '+';
      bc += ops[q] != '-';
    }
    size_t as = ai[hs] + (ac ? 1 : 0), bs = bi[hs] + (bc ? 1 : 0);
    tfx_sb_printf(out, "%*s@@ -%zu,%zu +%zu,%zu @@\n", ind, "", as, ac, bs, bc);
    for (size_t q = hs; q < he && printed < MAX_DIFF_OUT; q++, printed++) {
      const lines *src = ops[q] == '+' ? &b : &a;
      size_t li = ops[q] == '+' ? bi[q] : ai[q];
      tfx_sb_printf(out, "%*s%c%.*s\n", ind, "", ops[q], (int)src->n[li], src->s[li]);
    }
    if (printed >= MAX_DIFF_OUT) {
      tfx_sb_printf(out, "%*s... (diff truncated)\n", ind, "");
      break;
    }
    k = he;
  }
  goto done;
oom:
  out->oom = 1; /* tfxc_diff: TFXC_NOMEM */
done:
  free(a.s);
  free(a.n);
  free(b.s);
  free(b.n);
  free(lcs);
  free(ops);
  free(ai);
  free(bi);
}

tfxc_status tfxc_diff(const char *a, size_t len_a, const char *b, size_t len_b,
                      const char *label_a, const char *label_b, unsigned indent, char **text,
                      size_t *len) {
  if (!text) return TFXC_MISUSE;
  *text = NULL;
  if (len) *len = 0;
  if ((!a && len_a) || (!b && len_b) || !label_a || !label_b || indent > 64) return TFXC_MISUSE;
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  if (len_a != len_b || (len_a && memcmp(a, b, len_a) != 0))
    unified_diff(a ? a : "", len_a, b ? b : "", len_b, label_a, label_b, (int)indent, &sb);
  if (sb.oom || (!sb.data && !tfx_sb_reserve(&sb, 1))) {
    tfx_sb_free(&sb);
    return TFXC_NOMEM;
  }
  sb.data[sb.len] = 0;
  *text = sb.data;
  if (len) *len = sb.len;
  return TFXC_OK;
}
