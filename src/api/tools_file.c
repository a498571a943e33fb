/* Output files for the tools (tfxc.h "Tools"): several files written all or nothing.
 * Stage: api. Input: paths and the caller's bytes. Output: the files, each checked against the
 * session's output-size limit first, then written through temporary files renamed into place
 * (util/fileio.h): a failure leaves none of them. "-" is standard output, written only because
 * the caller named it. */
#define _POSIX_C_SOURCE 200809L
#define TFXC_BUILDING_LIBRARY 1
#include "tfxc/tfxc.h"

#include <string.h>

#include "api/status.h"
#include "api/tools_int.h"
#include "util/fileio.h"
#include "util/limits.h"

tfxc_status tfx_api_give(tfxc_session *s, tfx_strbuf *sb, void **data, size_t *len) {
  if (sb->oom || (!sb->data && !tfx_sb_reserve(sb, 1))) {
    tfx_error(tfx_api_diag(s), NULL, 0, 0, "out of memory");
    tfx_sb_free(sb);
    return TFXC_NOMEM;
  }
  sb->data[sb->len] = 0;
  *data = sb->data;
  if (len) *len = sb->len;
  sb->data = NULL;
  tfx_sb_free(sb);
  return TFXC_OK;
}

tfxc_status tfxc_write_files(tfxc_session *s, size_t n, const char *const *paths,
                             const void *const *data, const size_t *lens) {
  if (!s) return TFXC_MISUSE;
  tfx_diag *d = tfx_api_diag(s);
  if (n && (!paths || !data || !lens)) {
    tfx_error(d, NULL, 0, 0, "tfxc_write_files: no paths, data or lengths");
    return tfx_api_finish(s, TFXC_MISUSE);
  }
  for (size_t i = 0; i < n; i++)
    if (!paths[i] || !*paths[i] || (!data[i] && lens[i])) {
      tfx_error(d, NULL, 0, 0, "tfxc_write_files: file %zu has no name or no data", i);
      return tfx_api_finish(s, TFXC_MISUSE);
    }
  size_t max = tfx_limit_size(&tfx_api_options(s)->limits, TFX_LIMIT_OUTPUT_SIZE);
  for (size_t i = 0; i < n; i++)
    if (tfx_check_output_size(paths[i], lens[i], max, d) != 0) return tfx_api_finish(s, TFXC_FAILED);
  /* TFX_E_INPUT (cannot write) or TFX_E_NOMEM */
  return tfx_api_finish(s, tfx_api_status_from_rc(tfx_write_files_atomic(n, paths, data, lens, d)));
}
