/* Fuzz target: the public API (include/tfxc/tfxc.h) on untrusted bytes held in memory, as an
 * embedder (or the Python module) hands them over: tfxc_load_model_buffer, optionally a rule
 * source from memory (tfxc_add_rules_buffer), tfxc_run, then every tfxc_emit kind, the report
 * and explain. Input: byte 0 = flags (bit 0: the model is named .pbtxt instead of .pb; bit 1:
 * the "check" option; bit 2: "passthrough-unknown"; bit 3: the bytes up to the first NUL are a
 * .opmap rule source and the rest is the model); the rest = the model. Seeds: those of
 * fuzz_model_load with a flag byte in front (any file works). Properties (abort() when broken):
 *  - every status is one of tfxc_status, and a failing call leaves an error message
 *    (tfxc_errmsg non-empty: no silent failure);
 *  - after a successful conversion every kind can be emitted, twice with the same bytes
 *    (deterministic), and the report is JSON text starting with '{' and ending in "}\n";
 *  - after a successful op mapping the report's "op" list explains its first node. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfxc/tfxc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, what)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "%s:%d: property failed: %s (%s)\n", __FILE__, __LINE__, #cond, what); \
      abort();                                                             \
    }                                                                      \
  } while (0)

static int valid(tfxc_status st) { return st >= TFXC_OK && st <= TFXC_NOMEM; }

static void explained(tfxc_session *s, const char *report) {
  const char *p = strstr(report, "\"op\": [\n  {\"name\": \"");
  if (!p) return;
  p += strlen("\"op\": [\n  {\"name\": \"");
  const char *e = strchr(p, '"');
  if (!e || memchr(p, '\\', (size_t)(e - p))) return; /* escaped names: skip */
  char name[256];
  size_t n = (size_t)(e - p);
  if (n >= sizeof name) return;
  memcpy(name, p, n);
  name[n] = 0;
  char *j = NULL;
  tfxc_status st = tfxc_explain(s, name, &j, NULL);
  CHECK(st == TFXC_OK, tfxc_errmsg(s));
  CHECK(j && j[0] == '{' && strstr(j, name), "explain output");
  tfxc_free(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  unsigned flags = data[0];
  const uint8_t *model = data + 1;
  size_t len = size - 1;
  tfxc_session *s;
  if (tfxc_open(&s) != TFXC_OK) return 0;
  tfxc_status st = TFXC_OK;
  if (flags & 8) {
    const uint8_t *z = memchr(model, 0, len);
    size_t rl = z ? (size_t)(z - model) : len;
    st = tfxc_add_rules_buffer(s, "fuzz.opmap", model, rl);
    CHECK(st == TFXC_OK, tfxc_errmsg(s));
    model += z ? rl + 1 : rl;
    len -= z ? rl + 1 : rl;
  }
  if (flags & 2) st = tfxc_set_option(s, "check", "1");
  if (st == TFXC_OK && (flags & 4)) st = tfxc_set_option(s, "passthrough-unknown", "1");
  if (st == TFXC_OK) st = tfxc_set_option(s, "limit", "depth=64,nodes=100000,list=100000,string=1M");
  if (st == TFXC_OK) st = tfxc_set_option(s, "emit", "air,ge-pbtxt,ge-json,dot,tf-pbtxt");
  CHECK(st == TFXC_OK, tfxc_errmsg(s));
  st = tfxc_load_model_buffer(s, flags & 1 ? "fuzz.pbtxt" : "fuzz.pb", model, len);
  CHECK(st == TFXC_OK, tfxc_errmsg(s));
  st = tfxc_run(s, NULL);
  CHECK(valid(st), "status");
  if (st != TFXC_OK) CHECK(*tfxc_errmsg(s), "a failed run reported no error");
  if (st == TFXC_OK && !(flags & 2)) {
    static const char *const kinds[] = {"air", "ge-pbtxt", "ge-json", "dot", "tf-pbtxt"};
    for (size_t k = 0; k < 5; k++) {
      void *a = NULL, *b = NULL;
      size_t na = 0, nb = 0;
      CHECK(tfxc_emit(s, kinds[k], &a, &na) == TFXC_OK, tfxc_errmsg(s));
      CHECK(tfxc_emit(s, kinds[k], &b, &nb) == TFXC_OK, tfxc_errmsg(s));
      CHECK(na == nb && memcmp(a, b, na) == 0, kinds[k]);
      tfxc_free(a);
      tfxc_free(b);
    }
  }
  char *rep = NULL;
  size_t rn = 0;
  CHECK(tfxc_report_json(s, &rep, &rn) == TFXC_OK, tfxc_errmsg(s));
  CHECK(rn >= 3 && rep[0] == '{' && strcmp(rep + rn - 2, "}\n") == 0, "report shape");
  if (st == TFXC_OK) explained(s, rep);
  tfxc_free(rep);
  tfxc_close(s);
  return 0;
}
