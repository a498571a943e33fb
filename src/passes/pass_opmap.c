/* OP_MAPPING group, pass "op-mapping": decides the CANN op of every node (opmap/opmap.h) and,
 * unless this is a precheck (--check), turns every unsupported node into an error.
 * Stage: passes/OP_MAPPING. Input: ctx->module (after scope fusion), ctx->pack (op maps; none
 * when the rules pass is off: then only ATC's auto mapping by prototype name applies), the
 * run's CANN prototypes (tfx_ctx_protos: user *.cannops.tsv files over the stdlib's). Output: ctx->opmap
 * (with what lowering cannot express marked per node as it is mapped: validate_node). Runs only when a GE output (--emit air,
 * ge-pbtxt, ge-json, dot) or the precheck is asked for: `--emit tf-pbtxt` alone never maps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cann/cann.h"
#include "opmap/opmap.h"
#include "passes/passes.h"
#include "passes/rules_protos.h"
#include "tfxc/tfxc.h"
#include "util/hash.h"
#include "util/status.h"

/* 1 when the run asks for anything the op mapping feeds. */
int tfx_ctx_wants_mapping(const tfx_ctx *ctx) {
  const tfx_options *o = ctx->opts;
  if (!o) return 0;
  return o->check_only || (o->emit & ~(1u << TFX_EMIT_TF_PBTXT)) != 0;
}

/* ---- what lowering cannot express, found here so the precheck reports it per node ---- */

/* fnames: the module's function names (empty when it has none). */
static int has_function(const tfx_hmap *fnames, const char *name) {
  return fnames->n && tfx_hmap_get(fnames, name, strlen(name)) != TFX_HASH_NONE;
}

/* The names of m's functions into fnames (initialised); -1 on out of memory (reported). */
static int function_names(const tfx_module *m, tfx_hmap *fnames, tfx_diag *d) {
  tfx_hmap_init(fnames);
  for (uint32_t i = 0; i < m->n_funcs; i++) {
    uint32_t ex;
    if (m->funcs[i].name &&
        tfx_hmap_put(fnames, m->funcs[i].name, strlen(m->funcs[i].name), i, &ex) < 0) {
      tfx_error(d, NULL, 0, 0, "out of memory (op mapping)");
      return -1;
    }
  }
  return 0;
}

/* Marks op failed with cause 2 and a message (arena copy). */
static void invalid(tfx_opmap *om, tfx_mapped_op *op, const char *msg) {
  if (op->cause != TFX_CAUSE_OK || op->how == TFX_MAP_UNSUPPORTED) return;
  char *m = tfx_arena_strdup(&om->arena, msg);
  op->cause = TFX_CAUSE_PARAM_INVALID;
  op->message = m ? m : "invalid node";
  om->n_failed++;
  if (om->n_ok) om->n_ok--;
}

/* Three things the GE model cannot hold, checked on every mapped node: a func attr naming no
 * library function (ATC: "Subgraph not found"), an attr that is still a placeholder of a
 * generic function (polymorphic functions are not instantiated), and a Const of a dtype with
 * no fixed byte layout in GE (variant, resource). Called by the op mapping for each node as
 * soon as it is mapped (tfx_opmap_opts.after_node; user: the function names): a walk of its
 * own after the mapping read every node's attributes a second time (91 ms of cache misses at
 * 10^6 nodes). */
static void validate_node(void *user, tfx_opmap *om, tfx_mapped_op *op, const tfx_node *nd) {
  const tfx_hmap *fnames = user;
  char msg[512];
  const Tensorflow__NodeDef *def = nd->def;
  for (size_t a = 0; def && a < def->n_attr; a++) {
    const Tensorflow__NodeDef__AttrEntry *e = def->attr[a];
    const Tensorflow__AttrValue *v = e ? e->value : NULL;
    if (!v) continue;
    const char *missing = NULL;
    if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_FUNC && v->func && v->func->name &&
        !has_function(fnames, v->func->name))
      missing = v->func->name;
    if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST && v->list)
      for (size_t k = 0; k < v->list->n_func && !missing; k++)
        if (v->list->func[k] && v->list->func[k]->name &&
            !has_function(fnames, v->list->func[k]->name))
          missing = v->list->func[k]->name;
    if (missing) {
      snprintf(msg, sizeof msg, "attribute '%s' names function '%s', which is not in the "
               "library", e->key, missing);
      invalid(om, op, msg);
    } else if (v->value_case == TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER) {
      snprintf(msg, sizeof msg, "attribute '%s' is the placeholder '%s' of a generic function; "
               "tfxc does not instantiate polymorphic functions", e->key,
               v->placeholder ? v->placeholder : "");
      invalid(om, op, msg);
    }
  }
  if (op->type && op->type[0] == 'C' && strcmp(op->type, "Const") == 0 && def) {
    for (size_t a = 0; a < def->n_attr; a++) {
      const Tensorflow__NodeDef__AttrEntry *e = def->attr[a];
      if (!e || !e->key || strcmp(e->key, "dtype") != 0 || !e->value ||
          e->value->value_case != TENSORFLOW__ATTR_VALUE__VALUE_TYPE)
        continue;
      int dt = (int)e->value->type % 100; /* *_REF types are base + 100 */
      if (dt == TENSORFLOW__DATA_TYPE__DT_VARIANT || dt == TENSORFLOW__DATA_TYPE__DT_RESOURCE) {
        snprintf(msg, sizeof msg, "a Const of dtype %s has no byte layout in GE IR",
                 dt == TENSORFLOW__DATA_TYPE__DT_VARIANT ? "DT_VARIANT" : "DT_RESOURCE");
        invalid(om, op, msg);
      }
    }
  }
}

tfx_status tfx_pass_opmap(tfx_ctx *ctx, void *user) {
  (void)user;
  if (!tfx_ctx_wants_mapping(ctx)) return 0;
  if (!ctx->have_module) {
    tfx_error(ctx->diag, NULL, 0, 0, "pass 'op-mapping' needs the graph index (pass 'index')");
    return TFX_E_FAIL;
  }
  const tfx_cann_table *protos = tfx_ctx_protos(ctx); /* user prototypes over the stdlib's */
  if (!protos) return TFX_E_FAIL;
  /* the GraphDef is final (op-defaults was the last pass to edit it): with a second thread
   * allowed, the sweep of its unreachable pages starts now, beside the op mapping, rather than
   * beside lowering, whose pass joins it (context.h) */
  if (tfx_io_jobs((unsigned)tfx_ctx_lower_jobs(ctx)) >= 2) tfx_ctx_sweep_model(ctx, -1);
  tfx_ctx_drop_mapping(ctx);
  ctx->opmap = tfx_malloc(sizeof *ctx->opmap);
  if (!ctx->opmap) {
    tfx_error(ctx->diag, NULL, 0, 0, "out of memory (op mapping)");
    return TFX_E_NOMEM;
  }
  const tfx_options *o = ctx->opts;
  tfx_opmap_opts mo;
  memset(&mo, 0, sizeof mo);
  mo.passthrough_unknown = o->passthrough_unknown;
  mo.vm_budget = o->vm_budget;
  mo.known_types = tfx_cann_stdlib_protos; /* asked only for a type without a prototype */
  if (o->trace) {
    mo.trace_fn = o->trace_fn;
    mo.trace_user = o->trace_user;
  }
  tfx_hmap fnames; /* function names, for the func attrs' check (validate_node) */
  if (function_names(&ctx->module, &fnames, ctx->diag)) {
    tfx_hmap_free(&fnames);
    free(ctx->opmap); /* not run yet: nothing in it to free */
    ctx->opmap = NULL;
    return TFX_E_NOMEM;
  }
  mo.after_node = validate_node;
  mo.after_user = &fnames;
  tfx_pack empty;
  tfx_pack_init(&empty);
  int rc = tfx_opmap_run(ctx->opmap, &ctx->module, ctx->have_pack ? &ctx->pack : &empty, protos,
                         &mo, ctx->diag);
  tfx_pack_free(&empty);
  tfx_hmap_free(&fnames);
  if (rc != 0) return rc;
  if (tfx_precheck_dangling(ctx) != 0) return TFX_E_FAIL; /* data inputs lost to fusion */
  tfx_status vrc = tfx_freeze_check_mapping(ctx); /* variables without weights (pass_freeze.c) */
  if (vrc == TFX_E_NOMEM) return vrc; /* reported */
  tfx_precheck_runtime_hints(ctx); /* variables, save/restore, ...: say what to do instead */
  if (o->check_only) return 0; /* the CLI prints the summary after the lowering ran too */
  /* grouped by TF type and cause (precheck_summary.c); -v: one line per node */
  uint32_t lines = 0, errors = tfx_precheck_summary(ctx, o->verbose > 0, &lines);
  if (errors) {
    tfx_diag_add(ctx->diag, TFX_SEV_NOTE, NULL, 0, 0, "%u node%s cannot be converted; `tfxc --check "
                 "MODEL` lists every node with the rule that handled it%s, --passthrough-unknown "
                 "keeps unknown types as they are", errors, errors == 1 ? "" : "s",
                 lines < errors ? " (-v lists each one here)" : "");
    return vrc ? vrc : TFX_E_FAIL;
  }
  return 0;
}
