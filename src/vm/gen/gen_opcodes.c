/* tfxc_gen_opcodes: writes docs/opcodes.md from the X-macro lists (src/vm/opcodes.h).
 * Stage: build tool. Usage: tfxc_gen_opcodes [OUT]  (OUT "-" or absent: stdout). The unit
 * test test_vm_docs checks that the committed docs/opcodes.md equals this output. */
#include <stdio.h>

#include "util/diag.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "vm/vm.h"

int main(int argc, char **argv) {
  tfx_strbuf b;
  tfx_sb_init(&b);
  tfx_vm_opcodes_doc(&b);
  if (b.oom) {
    fprintf(stderr, "tfxc_gen_opcodes: out of memory\n");
    return 1;
  }
  tfx_diag d;
  tfx_diag_init(&d);
  int rc = tfx_write_file_atomic(argc > 1 ? argv[1] : "-", b.data, b.len, &d);
  tfx_diag_print(&d, stderr);
  tfx_diag_free(&d);
  tfx_sb_free(&b);
  return rc ? 1 : 0;
}
