/* Per-node checks of a mapped op against its CANN prototype (issue 12 items 3 and 4), run
 * right after binding so that the precheck and the conversion both fail the node with a
 * message naming the rule. Stage: opmap (called by map_node in opmap.c). Input: a finished
 * tfx_mapped_op (RULE or AUTO). Output: cause/message/hint set on failure:
 *  - a rule's CANN type that no prototype declares (not in the table, user *.cannops.tsv
 *    included, nor in the stdlib's known-without-prototype list) fails the node (cause 1) with
 *    "did you mean", unless --passthrough-unknown;
 *  - a rule `attr` value whose kind cannot be the prototype attribute's type (a list for a
 *    scalar type, a scalar for a list type, a string for a number or bool) fails the node
 *    (cause 2) naming the rule file:line, the attribute, the expected and the found type;
 *  - a REQUIRED_ATTR of the prototype that the mapping leaves unset (no default exists) fails
 *    the node (cause 2), as ATC does. */
#include <stdio.h>
#include <string.h>

#include "cann/cann.h"
#include "opmap/opmap_int.h"
#include "rules/load.h"

static const char *const cann_type_names[TFX_CANN_A__COUNT] = {
    "Int", "Float", "Bool", "String", "Type", "Tensor", "ListInt", "ListFloat", "ListBool",
    "ListString", "ListType", "ListListInt", "GRAPH", "DYNAMIC_GRAPH"};

static int is_list_type(int t) { return t >= TFX_CANN_A_LIST_INT && t <= TFX_CANN_A_LIST_LIST_INT; }

/* 1 when a value of v's kind can never be written as CANN type t. */
static int kind_mismatch(int t, const tfx_value *v) {
  if (v->tag == TFX_V_NONE || t == TFX_CANN_A_TENSOR || t >= TFX_CANN_A_GRAPH) return 0;
  int list = v->tag == TFX_V_LIST;
  if (is_list_type(t)) return !list;
  if (list) return 1;
  if (v->tag == TFX_V_STR) return t == TFX_CANN_A_INT || t == TFX_CANN_A_FLOAT || t == TFX_CANN_A_BOOL;
  return 0;
}

static void rule_site(om_run *r, const tfx_mapped_op *op, char *buf, size_t n) {
  if (op->rule != TFX_PACK_NONE && op->rule < r->p->n_rules) {
    const tfx_vm_rule *ru = &r->p->rules[op->rule];
    snprintf(buf, n, "rule '%s' (%s:%u)", tfx_om_rule_name(r->p, op->rule), tfx_pack_file(r->p, ru->file),
             ru->line);
  } else {
    snprintf(buf, n, "AutoMapping (no op map)");
  }
}

static int fail(om_run *r, tfx_mapped_op *op, int cause, const char *msg) {
  op->cause = (uint8_t)cause;
  op->message = tfx_om_dup(r, msg, strlen(msg));
  return op->message ? 0 : -1;
}

static int known_without_proto(om_run *r, const char *type) {
  const tfx_rules_protos *h = r->o->known_types ? r->o->known_types(r->d) : NULL;
  return h && h->lookup && h->lookup(h->ctx, type) != NULL;
}

int tfx_om_check(om_run *r, tfx_mapped_op *op) {
  if (op->cause || (op->how != TFX_MAP_RULE && op->how != TFX_MAP_AUTO)) return 0;
  char site[400], msg[900]; /* site: formatted only for a message (most nodes pass) */
  if (!op->proto) {
    if (op->how != TFX_MAP_RULE || r->o->passthrough_unknown || known_without_proto(r, op->type)) return 0;
    const char *sim[3];
    size_t ns = tfx_cann_similar(r->protos, op->type, sim, 3);
    char hint[300] = "";
    size_t k = 0;
    for (size_t i = 0; i < ns && k < sizeof hint; i++)
      k += (size_t)snprintf(hint + k, sizeof hint - k, "%s'%s'", i == 0 ? "did you mean " : i + 1 == ns ? " or " : ", ",
                            sim[i]);
    if (ns && k < sizeof hint) snprintf(hint + k, sizeof hint - k, "?");
    rule_site(r, op, site, sizeof site);
    snprintf(msg, sizeof msg,
             "%s maps to CANN op type '%s', which no prototype declares (give its prototype in a "
             "*.cannops.tsv file, or --passthrough-unknown to keep it)",
             site, op->type);
    if (ns && !(op->hint = tfx_om_dup(r, hint, strlen(hint)))) return -1;
    return fail(r, op, TFX_CAUSE_TYPE_UNSUPPORTED, msg);
  }
  const tfx_cann_op *pr = op->proto;
  for (uint32_t k = 0; k < op->n_attrs; k++) {
    const tfx_map_attr *a = &op->attrs[k];
    if (a->tf || !a->name) continue;
    const tfx_cann_attr *pa = tfx_cann_attr_find(pr, a->name);
    if (!pa || !kind_mismatch(pa->type, &a->v)) continue;
    rule_site(r, op, site, sizeof site);
    snprintf(msg, sizeof msg, "%s: attribute '%s' of CANN op '%s': expected %s, found %s", site, a->name,
             pr->name, cann_type_names[pa->type], tfx_v_tag_name(a->v.tag));
    return fail(r, op, TFX_CAUSE_PARAM_INVALID, msg);
  }
  for (uint32_t k = 0; k < pr->n_attrs; k++) {
    const tfx_cann_attr *pa = &pr->attrs[k];
    if (!pa->required || pa->type >= TFX_CANN_A_GRAPH) continue;
    int set = 0;
    for (uint32_t j = 0; j < op->n_attrs && !set; j++) set = op->attrs[j].name && !strcmp(op->attrs[j].name, pa->name);
    if (set) continue;
    rule_site(r, op, site, sizeof site);
    snprintf(msg, sizeof msg,
             "%s: required attribute '%s' (%s) of CANN op '%s' is not set and has no default", site,
             pa->name, cann_type_names[pa->type], pr->name);
    return fail(r, op, TFX_CAUSE_PARAM_INVALID, msg);
  }
  return 0;
}
