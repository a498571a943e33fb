/* Scope-fusion report as JSON (shape documented in engine.h, next to the structs).
 * Stage: fusion (read by `--report`, `explain --rule` and the ground-truth comparison).
 * Deterministic: lists come in run order or sorted by name, maps sorted by key, values
 * printed with fixed formats; nothing depends on addresses or hash order. */
#include <stdlib.h>
#include <string.h>

#include "fusion/engine.h"

typedef struct jw {
  tfx_strbuf *b;
  int depth;
  int first; /* no element written yet at this level */
} jw;

static void nl(jw *w) {
  tfx_sb_putc(w->b, '\n');
  tfx_sb_indent(w->b, w->depth);
}

static void sep(jw *w) {
  if (!w->first) tfx_sb_putc(w->b, ',');
  w->first = 0;
  nl(w);
}

static void open_(jw *w, char c) {
  tfx_sb_putc(w->b, c);
  w->depth++;
  w->first = 1;
}

static void close_(jw *w, char c) {
  w->depth--;
  if (!w->first) nl(w);
  tfx_sb_putc(w->b, c);
  w->first = 0;
}

static void key(jw *w, const char *k) {
  sep(w);
  tfx_sb_json_str(w->b, k, strlen(k));
  tfx_sb_puts(w->b, ": ");
}

static void str(jw *w, const char *s) { tfx_sb_json_str(w->b, s ? s : "", s ? strlen(s) : 0); }

static void kstr(jw *w, const char *k, const char *s) {
  key(w, k);
  str(w, s);
}

static void kint(jw *w, const char *k, long long v) {
  key(w, k);
  tfx_sb_printf(w->b, "%lld", v);
}

static void kbool(jw *w, const char *k, int v) {
  key(w, k);
  tfx_sb_puts(w->b, v ? "true" : "false");
}

/* A list of strings on one line: ["a", "b"]. */
static void strlist_inline(jw *w, const char *const *v, uint32_t n) {
  tfx_sb_putc(w->b, '[');
  for (uint32_t i = 0; i < n; i++) {
    if (i) tfx_sb_puts(w->b, ", ");
    str(w, v[i]);
  }
  tfx_sb_putc(w->b, ']');
}

static void value(jw *w, const tfx_value *v) {
  switch (v->tag) {
    case TFX_V_NONE: tfx_sb_puts(w->b, "null"); break;
    case TFX_V_BOOL: tfx_sb_puts(w->b, v->u.i ? "true" : "false"); break;
    case TFX_V_INT: tfx_sb_printf(w->b, "%lld", (long long)v->u.i); break;
    case TFX_V_FLOAT:
      if (v->u.f != v->u.f || v->u.f > 1.7976931348623157e308 || v->u.f < -1.7976931348623157e308)
        tfx_sb_puts(w->b, "null"); /* NaN / inf have no JSON form */
      else
        tfx_sb_printf(w->b, "%.17g", v->u.f);
      break;
    case TFX_V_STR: tfx_sb_json_str(w->b, v->u.s, v->n); break;
    case TFX_V_DTYPE: tfx_sb_printf(w->b, "{\"dtype\": %lld}", (long long)v->u.i); break;
    case TFX_V_LIST:
      tfx_sb_putc(w->b, '[');
      for (uint32_t i = 0; i < v->n; i++) {
        if (i) tfx_sb_puts(w->b, ", ");
        value(w, &v->u.items[i]);
      }
      tfx_sb_putc(w->b, ']');
      break;
    default: tfx_sb_puts(w->b, "null"); break; /* scopes/nodes were copied as names */
  }
}

static void maps(jw *w, const char *k, const tfx_fusion_map *m, uint32_t n) {
  key(w, k);
  open_(w, '{');
  for (uint32_t i = 0; i < n; i++) {
    key(w, m[i].key);
    tfx_sb_putc(w->b, '[');
    for (uint32_t p = 0; p < m[i].n; p++)
      tfx_sb_printf(w->b, "%s%lld", p ? ", " : "",
                    m[i].to[p] < 0 ? (long long)TFX_FUSION_DISABLE_INDEX : (long long)m[i].to[p]);
    tfx_sb_putc(w->b, ']');
  }
  close_(w, '}');
}

static int cmp_attr(const void *a, const void *b) {
  return strcmp((*(const tfx_fusion_attr *const *)a)->name, (*(const tfx_fusion_attr *const *)b)->name);
}

/* Attributes by name; a repeated name shows its last value. */
static void attrs(jw *w, const tfx_fusion_attr *a, uint32_t n) {
  key(w, "attrs");
  open_(w, '{');
  const tfx_fusion_attr **v = n ? malloc((size_t)n * sizeof *v) : NULL;
  if (n && !v) {
    w->b->oom = 1;
    close_(w, '}');
    return;
  }
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    int later = 0;
    for (uint32_t j = i + 1; j < n && !later; j++) later = strcmp(a[i].name, a[j].name) == 0;
    if (!later) v[m++] = &a[i];
  }
  if (m) qsort(v, m, sizeof *v, cmp_attr);
  for (uint32_t i = 0; i < m; i++) {
    key(w, v[i]->name);
    value(w, &v[i]->v);
  }
  free(v);
  close_(w, '}');
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static void result(jw *w, const tfx_fusion_result *r) {
  sep(w);
  open_(w, '{');
  kstr(w, "name", r->name);
  kstr(w, "type", r->type);
  kstr(w, "description", r->description);
  key(w, "scopes");
  strlist_inline(w, r->scopes, r->n_scopes);
  key(w, "extra_nodes");
  strlist_inline(w, r->extra, r->n_extra);
  maps(w, "inputs", r->inputs, r->n_inputs);
  maps(w, "outputs", r->outputs, r->n_outputs);
  attrs(w, r->attrs, r->n_attrs);
  kint(w, "child_count", r->n_children);
  key(w, "children");
  /* children by name, as the ground truth lists them */
  const char **names = r->n_children ? malloc((size_t)r->n_children * sizeof *names) : NULL;
  if (r->n_children && !names) {
    w->b->oom = 1;
    tfx_sb_puts(w->b, "[]");
  } else {
    for (uint32_t i = 0; i < r->n_children; i++)
      names[i] = r->child_names[i];
    if (r->n_children) qsort(names, r->n_children, sizeof *names, cmp_str);
    strlist_inline(w, names, r->n_children);
    free(names);
  }
  if (r->n_inner || (r->type && strcmp(r->type, TFX_FUSION_MULTI_TYPE) == 0)) {
    key(w, "inner_nodes");
    open_(w, '[');
    for (uint32_t i = 0; i < r->n_inner; i++) {
      const tfx_fusion_inner *in = &r->inner[i];
      sep(w);
      open_(w, '{');
      kstr(w, "name", in->name);
      kstr(w, "type", in->type);
      key(w, "inputs");
      tfx_sb_putc(w->b, '[');
      for (uint32_t k = 0; k < in->n_in; k++) {
        if (k) tfx_sb_puts(w->b, ", ");
        tfx_sb_putc(w->b, '[');
        if (in->in[k].cval) {
          str(w, "const");
          tfx_sb_puts(w->b, ", ");
          value(w, in->in[k].cval);
        } else {
          str(w, in->in[k].src ? in->in[k].src : TFX_FUSION_IN_BOUNDARY);
          tfx_sb_printf(w->b, ", %lld", (long long)in->in[k].port);
        }
        tfx_sb_putc(w->b, ']');
      }
      tfx_sb_putc(w->b, ']');
      key(w, "outputs");
      tfx_sb_putc(w->b, '[');
      int first = 1;
      /* outputs to other inner nodes, then to the boundary, as InsertOutput records them */
      for (uint32_t j = 0; j < r->n_inner; j++)
        for (uint32_t k = 0; k < r->inner[j].n_in; k++)
          if (r->inner[j].in[k].src && strcmp(r->inner[j].in[k].src, in->name) == 0) {
            tfx_sb_printf(w->b, "%s[", first ? "" : ", ");
            str(w, r->inner[j].name);
            tfx_sb_printf(w->b, ", %lld]", (long long)r->inner[j].in[k].port);
            first = 0;
          }
      for (uint32_t k = 0; k < r->n_outs; k++)
        if (strcmp(r->outs[k].node, in->name) == 0) {
          tfx_sb_printf(w->b, "%s[", first ? "" : ", ");
          str(w, TFX_FUSION_OUT_BOUNDARY);
          tfx_sb_printf(w->b, ", %lld]", (long long)r->outs[k].index);
          first = 0;
        }
      tfx_sb_putc(w->b, ']');
      attrs(w, in->attrs, in->n_attrs);
      key(w, "formats");
      tfx_sb_putc(w->b, '[');
      for (uint32_t k = 0; k < in->n_formats; k++) {
        tfx_sb_printf(w->b, "%s[\"%s\", %lld, ", k ? ", " : "", in->formats[k].dir ? "out" : "in",
                      (long long)in->formats[k].port);
        str(w, in->formats[k].fmt);
        tfx_sb_putc(w->b, ']');
      }
      tfx_sb_putc(w->b, ']');
      close_(w, '}');
    }
    close_(w, ']');
    kbool(w, "inner_nodes_check", r->inner_check);
  }
  close_(w, '}');
}

static void subchanges(jw *w, const char *k, const char *vk, const tfx_fusion_subchange *v, uint32_t n) {
  key(w, k);
  open_(w, '[');
  for (uint32_t i = 0; i < n; i++) {
    sep(w);
    tfx_sb_puts(w->b, "{\"scope\": ");
    str(w, v[i].scope);
    tfx_sb_printf(w->b, ", \"%s\": ", vk);
    str(w, v[i].sub_type);
    tfx_sb_putc(w->b, '}');
  }
  close_(w, ']');
}

static int cmp_res(const void *a, const void *b) {
  return strcmp((*(const tfx_fusion_result *const *)a)->name, (*(const tfx_fusion_result *const *)b)->name);
}

static void pass(jw *w, const tfx_fusion_pass_report *p) {
  static const char *const status[] = {"SCOPE_NOT_CHANGED", "SUCCESS", "FAILED"};
  sep(w);
  open_(w, '{');
  kstr(w, "pass", p->name);
  kstr(w, "site", p->site);
  kstr(w, "status", status[p->status <= TFX_FUSION_FAILED ? p->status : 2]);
  key(w, "layers");
  open_(w, '[');
  for (uint32_t i = 0; i < p->n_layers; i++) {
    const tfx_fusion_layer_report *l = &p->layers[i];
    sep(w);
    open_(w, '{');
    kint(w, "group", l->group);
    kint(w, "layer", l->layer);
    kbool(w, "matched", l->matched);
    key(w, "scopes");
    open_(w, '[');
    for (uint32_t k = 0; k < l->n; k++) {
      sep(w);
      tfx_sb_puts(w->b, "{\"scope\": ");
      str(w, l->m[k].scope);
      tfx_sb_puts(w->b, ", \"sub_type\": ");
      str(w, l->m[k].sub_type);
      tfx_sb_printf(w->b, ", \"pattern\": %u}", l->m[k].pattern);
    }
    close_(w, ']');
    close_(w, '}');
  }
  close_(w, ']');
  key(w, "require");
  tfx_sb_puts(w->b, !p->select_ran ? "null" : p->select_value ? "true" : "false");
  subchanges(w, "sub_types_set", "sub_type", p->set, p->n_set);
  subchanges(w, "sub_types_cleared", "previous_sub_type", p->cleared, p->n_cleared);
  kint(w, "result_count", p->n_results);
  /* result_types: counts by type, sorted by type name */
  key(w, "result_types");
  open_(w, '{');
  const tfx_fusion_result **v = p->n_results ? malloc((size_t)p->n_results * sizeof *v) : NULL;
  if (p->n_results && !v) w->b->oom = 1;
  uint32_t nv = v ? p->n_results : 0;
  for (uint32_t i = 0; i < nv; i++) v[i] = p->results[i];
  for (uint32_t i = 1; i < nv; i++) /* insertion sort by type (small) */
    for (uint32_t j = i; j > 0 && strcmp(v[j - 1]->type, v[j]->type) > 0; j--) {
      const tfx_fusion_result *t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  for (uint32_t i = 0; i < nv;) {
    uint32_t j = i;
    while (j < nv && strcmp(v[j]->type, v[i]->type) == 0) j++;
    kint(w, v[i]->type, j - i);
    i = j;
  }
  close_(w, '}');
  if (nv) qsort(v, nv, sizeof *v, cmp_res);
  key(w, "results");
  open_(w, '[');
  for (uint32_t i = 0; i < nv; i++) result(w, v[i]);
  close_(w, ']');
  free(v);
  key(w, "dropped");
  open_(w, '[');
  for (uint32_t i = 0; i < p->n_dropped; i++) {
    sep(w);
    tfx_sb_puts(w->b, "{\"name\": ");
    str(w, p->dropped[i].name);
    tfx_sb_puts(w->b, ", \"type\": ");
    str(w, p->dropped[i].type);
    tfx_sb_puts(w->b, ", \"reason\": ");
    str(w, p->dropped[i].reason);
    tfx_sb_putc(w->b, '}');
  }
  close_(w, ']');
  close_(w, '}');
}

int tfx_fusion_report_json(const tfx_fusion_report *r, tfx_strbuf *out) {
  jw w = {out, 0, 1};
  open_(&w, '{');
  key(&w, "graphs");
  open_(&w, '[');
  for (uint32_t gi = 0; gi < r->n_graphs; gi++) {
    const tfx_fusion_graph_report *g = &r->graphs[gi];
    sep(&w);
    open_(&w, '{');
    kstr(&w, "graph", g->graph);
    kint(&w, "node_count", g->node_count);
    kint(&w, "scope_count", g->scope_count);
    key(&w, "enabled_passes");
    tfx_sb_putc(out, '[');
    for (uint32_t i = 0; i < g->n_passes; i++) {
      if (i) tfx_sb_puts(out, ", ");
      str(&w, g->passes[i].name);
    }
    tfx_sb_putc(out, ']');
    key(&w, "passes");
    open_(&w, '[');
    for (uint32_t i = 0; i < g->n_passes; i++) pass(&w, &g->passes[i]);
    close_(&w, ']');
    subchanges(&w, "final_sub_types", "sub_type", g->final_sub_types, g->n_final_sub_types);
    key(&w, "final_fusion_results");
    open_(&w, '[');
    for (uint32_t i = 0; i < g->n_final; i++) {
      sep(&w);
      tfx_sb_puts(out, "{\"name\": ");
      str(&w, g->final[i]->name);
      tfx_sb_puts(out, ", \"type\": ");
      str(&w, g->final[i]->type);
      tfx_sb_puts(out, ", \"pass\": ");
      str(&w, g->final[i]->pass);
      tfx_sb_putc(out, '}');
    }
    close_(&w, ']');
    kbool(&w, "applied", g->applied);
    kint(&w, "fused_nodes", g->n_applied);
    kint(&w, "removed_nodes", g->n_removed);
    close_(&w, '}');
  }
  close_(&w, ']');
  close_(&w, '}');
  tfx_sb_putc(out, '\n');
  return out->oom ? -1 : 0;
}
