/* The result of library functions: one status model for every module (issue 15, item 4).
 * Stage: shared utility. Library code returns a tfx_status; it never chooses a process exit
 * code. The command line maps a status to its exit code in one place, tfx_status_exit_code
 * (also behind the public tfxc_status_exit_code), and the public API hands the status out
 * unchanged: the values are those of tfxc_status in include/tfxc/tfxc.h, one for one.
 *
 * Out of memory is a status of its own, returned from the allocation that failed up to the
 * caller (never recognised from message text); it exits 1 like any other failure. Pure helpers
 * may keep 0/-1 locally; a module with its own codes (the VM's TFX_VMR_*, the GE writer's
 * TFX_GE_E_*) maps them to a tfx_status at its boundary. docs/HACKING.md, "Status codes". */
#ifndef TFX_UTIL_STATUS_H
#define TFX_UTIL_STATUS_H

typedef enum tfx_status {
  TFX_OK = 0,      /* success */
  TFX_E_FAIL = 1,  /* the conversion failed: unsupported ops, a failed check, a limit, a pass */
  TFX_E_USAGE = 2, /* a bad argument, option name or value */
  TFX_E_INPUT = 3, /* unreadable or malformed input: model, file, pack, I/O error */
  TFX_E_RULES = 4, /* errors in rule files */
  TFX_E_NOMEM = 5  /* out of memory */
} tfx_status;

#if defined(__GNUC__)
#define TFX_MUST_CHECK __attribute__((warn_unused_result))
#else
#define TFX_MUST_CHECK
#endif

/* The exit code of the command line for st (docs/CLI.md): 0, 1 (also out of memory), 2, 3, 4. */
int tfx_status_exit_code(tfx_status st);
/* "ok", "failed", "misuse", "input", "rules", "nomem"; "unknown" otherwise. */
const char *tfx_status_name(tfx_status st);

#endif
