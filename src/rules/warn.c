/* Warning policy for rule diagnostics: which named warnings are on, and which are errors.
 * Stage: rules, shared by sema and the CLI (which maps -W options onto it). Input: option
 * strings. Output: the tfx_rules_warnings bit sets (see load.h for the list of names). */
#include <string.h>

#include "rules/load.h"

static const char *const names[] = {
#define TFX_RULES_W_NAME(id, name, on, doc) name,
    TFX_RULES_WARNINGS(TFX_RULES_W_NAME)
#undef TFX_RULES_W_NAME
};
static const int defaults[] = {
#define TFX_RULES_W_ON(id, name, on, doc) on,
    TFX_RULES_WARNINGS(TFX_RULES_W_ON)
#undef TFX_RULES_W_ON
};
_Static_assert(sizeof names / sizeof names[0] == TFX_RULES_W__COUNT, "warning names");
_Static_assert(TFX_RULES_W__COUNT <= 32, "warning bits fit in uint32_t");

void tfx_rules_warnings_init(tfx_rules_warnings *w) {
  memset(w, 0, sizeof *w);
  for (int i = 0; i < TFX_RULES_W__COUNT; i++)
    if (defaults[i]) w->enabled |= 1u << i;
}

int tfx_rules_warning_lookup(const char *name) {
  for (int i = 0; i < TFX_RULES_W__COUNT; i++)
    if (!strcmp(names[i], name)) return i;
  return -1;
}

const char *tfx_rules_warning_name(tfx_rules_warning id) {
  return (unsigned)id < TFX_RULES_W__COUNT ? names[id] : "?";
}

int tfx_rules_warning_set(tfx_rules_warnings *w, const char *name, int on) {
  int id = tfx_rules_warning_lookup(name);
  if (id < 0) return -1;
  if (on) w->enabled |= 1u << id;
  else w->enabled &= ~(1u << id);
  return 0;
}

int tfx_rules_warning_option(tfx_rules_warnings *w, const char *opt) {
  if (strncmp(opt, "-W", 2) != 0) return -1;
  const char *s = opt + 2;
  if (!strcmp(s, "error")) {
    w->werror = 1;
    return 0;
  }
  if (!strcmp(s, "no-error")) {
    w->werror = 0;
    w->as_error = 0;
    return 0;
  }
  if (!strcmp(s, "all")) {
    w->enabled = (TFX_RULES_W__COUNT >= 32) ? UINT32_MAX : (1u << TFX_RULES_W__COUNT) - 1;
    return 0;
  }
  if (!strncmp(s, "error=", 6)) {
    int id = tfx_rules_warning_lookup(s + 6);
    if (id < 0) return -1;
    w->enabled |= 1u << id;
    w->as_error |= 1u << id;
    return 0;
  }
  if (!strncmp(s, "no-", 3)) return tfx_rules_warning_set(w, s + 3, 0);
  return tfx_rules_warning_set(w, s, 1);
}

void tfx_rules_options_init(tfx_rules_options *o) {
  memset(o, 0, sizeof *o);
  tfx_rules_warnings_init(&o->warnings);
}

const tfx_rules_op_proto *tfx_rules_proto_table_lookup(void *table, const char *type) {
  const tfx_rules_proto_table *t = table;
  for (size_t i = 0; i < t->n; i++)
    if (!strcmp(t->ops[i].type, type)) return &t->ops[i];
  return NULL;
}
