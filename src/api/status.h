/* One mapping from the internal modules' results to tfxc_status (src/api only, not installed).
 * Stage: api. The modules return process exit codes (tfx_exit) today; when they return one
 * status enum (issue 15 item 4; src/util/status.h, the same values) only this mapping changes. */
#ifndef TFX_API_STATUS_H
#define TFX_API_STATUS_H

#include "tfxc/tfxc.h"

/* 0 -> TFXC_OK, TFX_EXIT_USAGE -> TFXC_MISUSE, TFX_EXIT_INPUT -> TFXC_INPUT, TFX_EXIT_RULES
 * -> TFXC_RULES, TFX_E_NOMEM -> TFXC_NOMEM, anything else -> TFXC_FAILED. */
tfxc_status tfx_api_status_from_rc(int rc);

#endif
