/* The one mapping from a status to the command line's exit code. Stage: shared utility. */
#include "util/status.h"

#include "tfxc/tfxc.h"

_Static_assert(TFX_OK == (int)TFXC_OK && TFX_E_FAIL == (int)TFXC_FAILED &&
                   TFX_E_USAGE == (int)TFXC_MISUSE && TFX_E_INPUT == (int)TFXC_INPUT &&
                   TFX_E_RULES == (int)TFXC_RULES && TFX_E_NOMEM == (int)TFXC_NOMEM,
               "tfx_status and the public tfxc_status are one for one");

int tfx_status_exit_code(tfx_status st) {
  switch (st) {
  case TFX_OK: return TFX_EXIT_OK;
  case TFX_E_USAGE: return TFX_EXIT_USAGE;
  case TFX_E_INPUT: return TFX_EXIT_INPUT;
  case TFX_E_RULES: return TFX_EXIT_RULES;
  case TFX_E_FAIL:
  case TFX_E_NOMEM: return TFX_EXIT_FAIL;
  }
  return TFX_EXIT_FAIL;
}

const char *tfx_status_name(tfx_status st) {
  switch (st) {
  case TFX_OK: return "ok";
  case TFX_E_FAIL: return "failed";
  case TFX_E_USAGE: return "misuse";
  case TFX_E_INPUT: return "input";
  case TFX_E_RULES: return "rules";
  case TFX_E_NOMEM: return "nomem";
  }
  return "unknown";
}
