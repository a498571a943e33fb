/* tfxc entry point. Stage: cli (top). The command line itself is tfx_cli_main (cli_main.c),
 * a function so that tests can run it in process.
 *
 * Memory (glibc only): a conversion frees large blocks between passes (the index rebuilt by a
 * re-index, the ScopeTree after scope fusion, lowering's scratch). glibc's mmap threshold grows
 * each time such a block is freed, so later large blocks come from the heap, where freed memory
 * mostly stays with the process; the next pass then grows the process again. The command fixes
 * the threshold at glibc's initial 128 KiB, so large malloc blocks are always mapped and given
 * back when freed (tfxc's own big blocks, arena chunks and hash tables, come from the page pool
 * of util/arena.c instead, which keeps freed pages for the next block): peak RSS of the 10^6-node bench graph 1.86 -> 1.80 GB, the same CPU time
 * (bench/RESULTS.md). This is a process setting, so the command makes it, not the library;
 * a MALLOC_MMAP_THRESHOLD_ in the environment wins. */
#include "cli/cli.h"

#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

int main(int argc, char **argv) {
#ifdef __GLIBC__
  if (!getenv("MALLOC_MMAP_THRESHOLD_")) mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
  return tfx_cli_main(argc, argv);
}
