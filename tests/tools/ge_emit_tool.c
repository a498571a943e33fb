/* ge_emit_tool: test driver for the GE IR emitters (src/ge/emit*.c), without the lowering.
 * Stage: tests. Input: a ge.proto.ModelDef as text (tfx_pbtxt_parse with the ge descriptor) or
 * as binary (--from air). Output: the model written by one emitter (--to air|pbtxt|json|dot) to
 * -o FILE or stdout. Gives the shell tests an end-to-end path pbtxt -> air -> air_check.py.
 * Usage: ge_emit_tool [--from pbtxt|air] --to air|pbtxt|json|dot [-o OUT] IN
 * Exit codes: 0 ok, 1 emitter error, 2 usage, 3 unreadable input (diagnostics on stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ge/ge.h"
#include "io/io.h"
#include "io/pbtxt.h"
#include "tfxc/tfxc.h"
#include "util/fileio.h"

static int usage(void) {
  fputs("usage: ge_emit_tool [--from pbtxt|air] --to air|pbtxt|json|dot [-o OUT] IN\n", stderr);
  return TFX_EXIT_USAGE;
}

int main(int argc, char **argv) {
  const char *from = "pbtxt", *to = NULL, *out_path = "-", *in = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) from = argv[++i];
    else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc) to = argv[++i];
    else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) out_path = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) return usage();
    else if (!in) in = argv[i];
    else return usage();
  }
  if (!in || !to || (strcmp(from, "pbtxt") != 0 && strcmp(from, "air") != 0)) return usage();
  int (*emit)(const Ge__Proto__ModelDef *, tfx_strbuf *, tfx_diag *) = NULL;
  if (strcmp(to, "air") == 0) emit = tfx_ge_emit_air;
  else if (strcmp(to, "pbtxt") == 0) emit = tfx_ge_emit_pbtxt;
  else if (strcmp(to, "json") == 0) emit = tfx_ge_emit_json;
  else if (strcmp(to, "dot") == 0) emit = tfx_ge_emit_dot;
  else return usage();

  tfx_diag d;
  tfx_arena a;
  tfx_strbuf out;
  tfx_diag_init(&d);
  tfx_arena_init(&a);
  tfx_sb_init(&out);
  int rc = TFX_EXIT_INPUT;
  size_t len;
  char *text = tfx_read_file(in, 0, &len, &d);
  if (text) {
    ProtobufCMessage *msg =
        strcmp(from, "air") == 0
            ? tfx_io_unpack(&ge__proto__model_def__descriptor, (const uint8_t *)text, len, in, &a, &d)
            : tfx_pbtxt_parse(&ge__proto__model_def__descriptor, text, len, in, &a, NULL, &d);
    if (msg) {
      rc = emit((const Ge__Proto__ModelDef *)msg, &out, &d);
      if (rc == 0 && tfx_write_file_atomic(out_path, out.data, out.len, &d) != 0) rc = TFX_EXIT_INPUT;
    }
  }
  tfx_diag_print(&d, stderr);
  free(text);
  tfx_sb_free(&out);
  tfx_arena_free(&a);
  tfx_diag_free(&d);
  return rc;
}
