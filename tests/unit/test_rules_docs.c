/* docs/LANGUAGE.md is executable: every fenced block tagged `scoperule` / `opmap` must load
 * and check with no diagnostic at all; every block tagged `scoperule-error` / `opmap-error`
 * must produce exactly the diagnostics of the fenced block right after it (file name
 * `example.scoperule` / `example.opmap`). Env: TFXC_SRC (the repository root). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/compile.h"
#include "rules/load.h"
#include "util/diag.h"
#include "util/fileio.h"

typedef struct block {
  char tag[64];
  const char *text;
  size_t len;
  unsigned line; /* of the opening fence */
} block;

static size_t split_blocks(const char *md, size_t len, block *out, size_t max) {
  size_t n = 0;
  const char *p = md, *end = md + len;
  unsigned line = 1;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    if (eol - p >= 3 && !memcmp(p, "```", 3)) {
      block b;
      memset(&b, 0, sizeof b);
      size_t tl = (size_t)(eol - p - 3);
      if (tl >= sizeof b.tag) tl = sizeof b.tag - 1;
      memcpy(b.tag, p + 3, tl);
      b.line = line;
      const char *q = eol < end ? eol + 1 : end;
      b.text = q;
      line++;
      while (q < end) {
        const char *e2 = memchr(q, '\n', (size_t)(end - q));
        if (!e2) e2 = end;
        if (e2 - q >= 3 && !memcmp(q, "```", 3)) {
          b.len = (size_t)(q - b.text);
          p = e2 < end ? e2 + 1 : end;
          line++;
          break;
        }
        q = e2 < end ? e2 + 1 : end;
        line++;
        p = q;
      }
      if (n < max) out[n++] = b;
      continue;
    }
    p = eol < end ? eol + 1 : end;
    line++;
  }
  return n;
}

/* Loads and checks one block; a block that checks cleanly is also compiled to a pack (which
 * tfx_asm_finish verifies), so every clean example must compile. */
static char *run(const char *name, const char *text, size_t len, size_t *errors) {
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ruleset *rs = tfx_ruleset_new();
  assert_non_null(rs);
  tfx_rules_load_buffer(rs, name, text, len, &d);
  if (tfx_rules_check(rs, NULL, &d) == 0 && d.errors == 0) {
    tfx_pack p;
    int rc = tfx_rules_compile(rs, &p, &d);
    if (rc == 0) assert_true(p.n_rules > 0);
    tfx_pack_free(&p);
  }
  char *out = NULL;
  size_t outlen = 0;
  FILE *f = open_memstream(&out, &outlen);
  assert_non_null(f);
  tfx_diag_print(&d, f);
  fclose(f);
  *errors = d.errors;
  tfx_ruleset_free(rs);
  tfx_diag_free(&d);
  return out;
}

static void language_md_examples(void **state) {
  (void)state;
  const char *src = getenv("TFXC_SRC");
  if (!src) src = ".";
  char path[4096];
  snprintf(path, sizeof path, "%s/docs/LANGUAGE.md", src);
  tfx_diag d;
  tfx_diag_init(&d);
  size_t len;
  char *md = tfx_read_file(path, 0, &len, &d);
  if (!md) tfx_diag_print(&d, stderr);
  assert_non_null(md);
  tfx_diag_free(&d);
  static block blocks[512];
  size_t n = split_blocks(md, len, blocks, 512);
  int failures = 0, good = 0, bad = 0;
  for (size_t i = 0; i < n; i++) {
    const block *b = &blocks[i];
    int is_scope = !strcmp(b->tag, "scoperule") || !strcmp(b->tag, "scoperule-error");
    int is_map = !strcmp(b->tag, "opmap") || !strcmp(b->tag, "opmap-error");
    if (!is_scope && !is_map) continue;
    int want_error = strstr(b->tag, "-error") != NULL;
    size_t errors;
    char *out = run(is_scope ? "example.scoperule" : "example.opmap", b->text, b->len, &errors);
    if (!want_error) {
      good++;
      if (out[0]) {
        fprintf(stderr, "LANGUAGE.md:%u: example must compile cleanly, got:\n%s", b->line, out);
        failures++;
      }
    } else {
      bad++;
      if (i + 1 >= n) {
        fprintf(stderr, "LANGUAGE.md:%u: error example without the expected diagnostics after it\n", b->line);
        failures++;
      } else {
        const block *x = &blocks[i + 1];
        if (!errors || strlen(out) != x->len || memcmp(out, x->text, x->len) != 0) {
          fprintf(stderr, "LANGUAGE.md:%u: expected (block at line %u):\n%.*s---- got:\n%s", b->line, x->line,
                  (int)x->len, x->text, out);
          failures++;
        }
      }
    }
    free(out);
  }
  fprintf(stderr, "LANGUAGE.md: %d clean examples, %d error examples checked\n", good, bad);
  free(md);
  assert_true(good >= 8);
  assert_true(bad >= 1);
  assert_int_equal(failures, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(language_md_examples)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
