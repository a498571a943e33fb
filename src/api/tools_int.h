/* The session's insides that the tool functions (src/api/tools*.c, the "Tools" section of
 * tfxc.h) use; implemented at the end of session.c. Not installed.
 * Stage: api. */
#ifndef TFX_API_TOOLS_INT_H
#define TFX_API_TOOLS_INT_H

#include <stddef.h>

#include "passes/passes.h"
#include "tfxc/tfxc.h"
#include "util/diag.h"
#include "util/strbuf.h"

/* Where a call reports its diagnostics: every one is recorded until tfx_api_finish. */
tfx_diag *tfx_api_diag(tfxc_session *s);
/* Ends a call: hands the diagnostics to the handler, keeps the last error. Returns st. */
tfxc_status tfx_api_finish(tfxc_session *s, tfxc_status st);
/* The start of a call that hands back text or bytes: *out = NULL, *len = 0 (len may be NULL
 * unless need_len). A missing result pointer is TFXC_MISUSE, reported as "FN: no result
 * pointer(s)" and finished; else TFXC_OK. */
tfxc_status tfx_api_result_start(tfxc_session *s, const char *fn, void **out, size_t *len,
                                 int need_len);
/* The session's options filled as for a run (model, rule sources, warnings, limits...). */
const tfx_options *tfx_api_options(tfxc_session *s);
/* Makes p's "load" pass read the session's model from memory when it was given as a buffer. */
void tfx_api_use_model(tfxc_session *s, tfx_pipeline *p);
/* The model's name (NULL when none) and, for a model in memory, its bytes (*data NULL: the
 * name is a path). */
const char *tfx_api_model(const tfxc_session *s, const void **data, size_t *len);
/* Hands sb's bytes to the caller as *data (NUL-terminated; never NULL: an empty result is a
 * block holding NUL) and *len (len may be NULL); frees sb. Returns TFXC_OK, or TFXC_NOMEM
 * ("out of memory" reported) when sb ran out of memory. */
tfxc_status tfx_api_give(tfxc_session *s, tfx_strbuf *sb, void **data, size_t *len);

#endif
