/* Internal results -> tfxc_status (see status.h). */
#define TFXC_BUILDING_LIBRARY 1
#include "api/status.h"
#include "util/status.h"

tfxc_status tfx_api_status_from_rc(int rc) {
  switch (rc) {
  case TFX_EXIT_OK: return TFXC_OK;
  case TFX_EXIT_USAGE: return TFXC_MISUSE;
  case TFX_EXIT_INPUT: return TFXC_INPUT;
  case TFX_EXIT_RULES: return TFXC_RULES;
  case TFX_E_NOMEM: return TFXC_NOMEM;
  default: return TFXC_FAILED;
  }
}
