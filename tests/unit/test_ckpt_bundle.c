/* Unit tests of the tensor bundle reader (src/ckpt): crc32c against the published check
 * value and the hardware/software paths against each other, and index parsing of damaged
 * inputs (every prefix of a valid index, a bad footer) failing cleanly with exit 3; with fault
 * injection, every failed allocation while opening and reading a checkpoint is TFX_E_NOMEM
 * (out of memory), never a damaged checkpoint (TFX_E_INPUT). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ckpt/ckpt.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"
#include "util/fileio.h"

static void test_crc32c(void **state) {
  (void)state;
  assert_int_equal(tfx_crc32c("123456789", 9), 0xE3069283u); /* the CRC-32C check value */
  assert_int_equal(tfx_crc32c("", 0), 0u);
  /* extend over pieces = one pass; odd alignments and lengths */
  uint8_t buf[1000];
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)(i * 131 + 7);
  uint32_t whole = tfx_crc32c(buf, sizeof buf);
  for (size_t cut = 0; cut < 40; cut++)
    assert_int_equal(tfx_crc32c_extend(tfx_crc32c(buf, cut), buf + cut, sizeof buf - cut), whole);
  assert_int_equal(tfx_crc32c_mask(0), 0xa282ead8u);
  /* the hardware path (when the CPU has one) and the software path agree */
  assert_int_equal(tfx_crc32c_extend_soft(0, "123456789", 9), 0xE3069283u);
  for (size_t off = 0; off < 9; off++)
    for (size_t n = 0; n + off <= sizeof buf; n += 37)
      assert_int_equal(tfx_crc32c_extend(5, buf + off, n), tfx_crc32c_extend_soft(5, buf + off, n));
}

static uint8_t *read_corpus(const char *rel, size_t *len) {
  const char *corpus = getenv("TFXC_CORPUS");
  if (!corpus) return NULL;
  char path[4096];
  snprintf(path, sizeof path, "%s/checkpoints/%s", corpus, rel);
  tfx_diag d;
  tfx_diag_init(&d);
  uint8_t *b = (uint8_t *)tfx_read_file(path, 1 << 20, len, &d);
  tfx_diag_free(&d);
  return b;
}

static void test_index_prefixes(void **state) {
  (void)state;
  size_t len;
  uint8_t *b = read_corpus("half_plus_two/variables/variables.index", &len);
  if (!b) skip();
  tfx_diag d;
  tfx_diag_init(&d);
  tfx_ckpt c;
  tfx_ckpt_init(&c);
  assert_int_equal(tfx_ckpt_parse_index(&c, b, len, "x.index", &d), 0);
  assert_int_equal(c.n, 3);
  assert_string_equal(c.t[0].name, "a");
  assert_int_equal(c.num_shards, 1);
  tfx_ckpt_free(&c);
  for (size_t n = 0; n < len; n++) { /* every truncation is refused with a message */
    uint8_t *cp = malloc(n ? n : 1);
    memcpy(cp, b, n);
    tfx_ckpt_init(&c);
    assert_int_equal(tfx_ckpt_parse_index(&c, cp, n, "x.index", &d), TFX_EXIT_INPUT);
    assert_true(d.errors > 0);
    tfx_diag_clear(&d);
    tfx_ckpt_free(&c);
    free(cp);
  }
  for (size_t i = 0; i < len; i++) { /* every flipped byte is refused (checksums, magic) */
    b[i] ^= 0x40;
    tfx_ckpt_init(&c);
    int rc = tfx_ckpt_parse_index(&c, b, len, "x.index", &d);
    /* the footer's padding bytes are not covered by any checksum */
    if (rc == 0) assert_true(i >= len - 48 && i < len - 8);
    else assert_int_equal(rc, TFX_EXIT_INPUT);
    tfx_diag_clear(&d);
    tfx_ckpt_free(&c);
    b[i] ^= 0x40;
  }
  tfx_diag_free(&d);
  free(b);
}

/* Opens the corpus's half_plus_two checkpoint and reads every tensor, failing the allocations
 * one at a time. Returns the status; *hits gets the failed allocations. */
static tfx_status open_and_read(const char *prefix, long fail_at, long *hits, tfx_diag *d) {
  tfx_ckpt c;
  tfx_ckpt_init(&c);
  tfx_alloc_fail_at(fail_at);
  tfx_status st = tfx_ckpt_open(&c, prefix, 0, d);
  for (size_t i = 0; st == TFX_OK && i < c.n; i++) {
    const uint8_t *data, **strs;
    size_t len, *lens;
    st = c.t[i].dtype == 7 /* DT_STRING */ ? tfx_ckpt_strings(&c, &c.t[i], &strs, &lens, d)
                                          : tfx_ckpt_bytes(&c, &c.t[i], &data, &len, d);
  }
  *hits = tfx_alloc_failures();
  tfx_alloc_fail_at(0);
  tfx_ckpt_free(&c);
  return st;
}

static int ckpt_out_of_memory(void) {
  const char *corpus = getenv("TFXC_CORPUS");
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/checkpoints/half_plus_two/variables/variables",
           corpus ? corpus : "");
  if (!corpus || !tfx_ckpt_exists(prefix)) {
    printf("skipped: no corpus checkpoint (TFXC_CORPUS)\n");
    return 77;
  }
  tfx_diag d;
  tfx_diag_init(&d);
  long hits, failed = 0;
  if (open_and_read(prefix, 0, &hits, &d) != TFX_OK) {
    printf("FAIL: the checkpoint does not read without fault injection\n");
    return 1;
  }
  for (long at = 1; at < 1000; at++) {
    tfx_diag_clear(&d);
    tfx_status st = open_and_read(prefix, at, &hits, &d);
    if (!hits) {
      if (st != TFX_OK) {
        printf("FAIL: status %d without a failed allocation\n", st);
        return 1;
      }
      break;
    }
    if (st == TFX_OK) continue; /* the failure was not on a path that matters */
    failed++;
    if (st != TFX_E_NOMEM || !d.n || !d.items[0].msg || !strstr(d.items[0].msg, "out of memory")) {
      printf("FAIL: allocation %ld failed: status %d (want %d, TFX_E_NOMEM), first error '%s'\n",
             at, st, TFX_E_NOMEM, d.n && d.items[0].msg ? d.items[0].msg : "(none)");
      return 1;
    }
  }
  tfx_diag_free(&d);
  printf("checkpoint out of memory: %ld failed allocations, each TFX_E_NOMEM\n", failed);
  return failed > 3 ? 0 : 1;
}

int main(int argc, char **argv) {
  /* the fault-injection cases: their own ctest test (unit/NAME/fault-injection), skipped
   * (exit 77) when the hooks are compiled out (TFXC_FAULT_INJECTION=OFF) or without corpus */
  if (argc > 1 && strcmp(argv[1], "--fault-injection") == 0) {
    if (!tfx_fault_injection_enabled()) {
      printf("skipped: fault injection is compiled out (TFXC_FAULT_INJECTION=OFF)\n");
      return 77;
    }
    return ckpt_out_of_memory();
  }
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_crc32c),
    cmocka_unit_test(test_index_prefixes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
