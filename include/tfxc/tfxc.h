/* tfxc public API: exit codes and version.
 * Stage: shared by every stage. The library API grows here as the pipeline lands
 * (load model, compile rules, run pipeline, emit); internals stay in src/. */
#ifndef TFXC_TFXC_H
#define TFXC_TFXC_H

#define TFXC_VERSION "0.1.0"

/* Process exit codes; documented in docs/CLI.md. */
enum tfx_exit {
  TFX_EXIT_OK = 0,      /* success */
  TFX_EXIT_FAIL = 1,    /* conversion failed, unsupported ops, test failures */
  TFX_EXIT_USAGE = 2,   /* bad command line */
  TFX_EXIT_INPUT = 3,   /* unreadable or malformed input (model, text format, I/O) */
  TFX_EXIT_RULES = 4    /* rule compile errors */
};

#endif
