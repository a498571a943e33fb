/* The tools over models and checkpoints (tfxc.h "Tools"): fmt's GraphDef conversion and
 * inspect's summaries.
 * Stage: api. Input: the session's model (a path or bytes) and its options (tag, limits,
 * max-file-size, input-shape, out-nodes, verbose), or a checkpoint prefix. Output: new buffers
 * (tfxc_free) holding exactly what `tfxc fmt -o OUT` writes and `tfxc inspect [--json]` prints.
 *   model summary: the pass pipeline through PRUNE (load, index, scope-tree, prune) without
 *     the rules and without freezing (the model as stored); a graph that does not validate is
 *     indexed anyway, its problems reported as warnings. Deterministic (sorted keys, DFS scope
 *     order): text: counts, producer version, signatures, op histogram (count desc, name),
 *     scope tree to a depth; JSON: {"nodes", "functions", "op_types", "scopes": [{"name",
 *     "last_name", "parent", "direct_nodes", "op_counts"}...], "signatures"} (docs/CLI.md).
 *   checkpoint: every tensor's bytes are read and checked (bounds, crc32c, string layout)
 *     first, then one line (or JSON object) per tensor in index order with dtype, shape and
 *     byte size, and with TFXC_INSPECT_VALUES the bytes in hex. */
#define _POSIX_C_SOURCE 200809L
#define TFXC_BUILDING_LIBRARY 1
#include "tfxc/tfxc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/status.h"
#include "api/tools_int.h"
#include "ckpt/ckpt.h"
#include "io/io.h"
#include "io/pbtxt.h"
#include "passes/passes.h"
#include "passes/signature.h"
#include "util/arena.h"
#include "util/status.h"
#include "util/strbuf.h"

/* ---------------------------------------------------------------- fmt */

/* The load options of the session (tag, file-size and parser limits). */
static void load_opts(const tfx_options *o, tfx_load_opts *lo) {
  memset(lo, 0, sizeof *lo);
  lo->tag = o->tag;
  lo->max_file_size = o->max_file_size;
  lo->max_depth = tfx_limit_uint(&o->limits, TFX_LIMIT_DEPTH);
  lo->max_string = tfx_limit_size(&o->limits, TFX_LIMIT_STRING);
  lo->max_list = tfx_limit_size(&o->limits, TFX_LIMIT_LIST);
  lo->jobs = o->jobs;
}

tfxc_status tfxc_format_model(tfxc_session *s, const char *to, void **data, size_t *len,
                              size_t *nodes) {
  if (!s) return TFXC_MISUSE;
  tfx_diag *d = tfx_api_diag(s);
  tfxc_status st0 = tfx_api_result_start(s, "tfxc_format_model", data, len, 1);
  if (st0 != TFXC_OK) return st0;
  if (nodes) *nodes = 0;
  int text;
  if (to && strcmp(to, "pbtxt") == 0) text = 1;
  else if (to && strcmp(to, "pb") == 0) text = 0;
  else {
    tfx_error(d, NULL, 0, 0, "tfxc_format_model: '%s' is not 'pb' or 'pbtxt'", to ? to : "(null)");
    return tfx_api_finish(s, TFXC_MISUSE);
  }
  const void *bytes;
  size_t n_bytes;
  const char *name = tfx_api_model(s, &bytes, &n_bytes);
  if (!name) {
    tfx_error(d, NULL, 0, 0, "no model given (tfxc_load_model_path / tfxc_load_model_buffer)");
    return tfx_api_finish(s, TFXC_MISUSE);
  }
  const tfx_options *o = tfx_api_options(s);
  tfx_load_opts lo;
  load_opts(o, &lo);
  tfx_model m;
  int rc;
  size_t max = o->max_file_size ? o->max_file_size : (size_t)4 << 30; /* io's default */
  if (bytes && n_bytes > max) {
    tfx_error(d, name, 0, 0, "model of %zu bytes is over the file-size limit (%zu); raise it "
              "with the option limit file-size=SIZE", n_bytes, max);
    return tfx_api_finish(s, TFXC_INPUT);
  }
  rc = bytes ? tfx_io_load_model_buffer(bytes, n_bytes, name, &lo, &m, d)
             : tfx_io_load_model(name, &lo, &m, d);
  if (rc != 0) return tfx_api_finish(s, tfx_api_status_from_rc(rc));
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  const ProtobufCMessage *msg = &m.graph->base;
  if ((text ? tfx_pbtxt_print(msg, &sb) : tfx_io_pack(msg, &sb)) != 0) sb.oom = 1;
  if (sb.oom) tfx_error(d, NULL, 0, 0, "out of memory while serializing %s", msg->descriptor->name);
  if (nodes) *nodes = m.graph->n_node;
  tfx_model_free(&m);
  return tfx_api_finish(s, tfx_api_give(s, &sb, data, len));
}

/* ---------------------------------------------------------------- inspect: models */

typedef struct op_stat {
  const char *name;
  uint32_t count;
} op_stat;

static int by_name(const void *a, const void *b) {
  return strcmp(((const op_stat *)a)->name, ((const op_stat *)b)->name);
}

static int by_count_then_name(const void *a, const void *b) {
  const op_stat *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Histogram of the main graph's op types; *n distinct types. NULL on out of memory. */
static op_stat *op_histogram(const tfx_module *m, size_t *n) {
  uint32_t n_ops = m->ops.n;
  uint32_t *counts = tfx_calloc(n_ops ? n_ops : 1, sizeof *counts);
  op_stat *st = tfx_calloc(n_ops ? n_ops : 1, sizeof *st);
  if (!counts || !st) {
    free(counts);
    free(st);
    return NULL;
  }
  for (uint32_t i = 0; i < m->main.n_nodes; i++)
    if (m->main.nodes[i].op_id < n_ops) counts[m->main.nodes[i].op_id]++;
  size_t k = 0;
  for (uint32_t id = 0; id < n_ops; id++)
    if (counts[id]) st[k++] = (op_stat){tfx_intern_str(&m->ops, id), counts[id]};
  free(counts);
  *n = k;
  return st;
}

/* One scope's subtree counts sorted by op name. NULL on out of memory. */
static op_stat *scope_counts(const tfx_module *m, const tfx_scope *s) {
  op_stat *st = tfx_calloc(s->n_counts ? s->n_counts : 1, sizeof *st);
  if (!st) return NULL;
  for (uint32_t i = 0; i < s->n_counts; i++)
    st[i] = (op_stat){tfx_intern_str(&m->ops, s->counts[i].op_id), s->counts[i].count};
  qsort(st, s->n_counts, sizeof *st, by_name);
  return st;
}

static void json_ops(tfx_strbuf *sb, const op_stat *st, size_t n) {
  tfx_sb_putc(sb, '{');
  for (size_t i = 0; i < n; i++) {
    if (i) tfx_sb_puts(sb, ", ");
    tfx_sb_json_str(sb, st[i].name, strlen(st[i].name));
    tfx_sb_printf(sb, ": %u", st[i].count);
  }
  tfx_sb_putc(sb, '}');
}

/* ---- signatures (MetaGraphDef / SavedModel only; passes/signature.h) ---- */

static const char *dtype_name(int dt) {
  const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(&tensorflow__data_type__descriptor, dt);
  return v ? v->name : "DT_INVALID";
}

/* One tensor of a signature: its tensor name, dtype and shape (text or JSON). */
static void sig_tensor(tfx_strbuf *sb, const char *key, const Tensorflow__TensorInfo *t, int json) {
  const char *name = t && t->encoding_case == TENSORFLOW__TENSOR_INFO__ENCODING_NAME && t->name ? t->name : NULL;
  const char *enc = !t ? "none" : t->encoding_case == TENSORFLOW__TENSOR_INFO__ENCODING_COO_SPARSE ? "coo_sparse"
                   : t->encoding_case == TENSORFLOW__TENSOR_INFO__ENCODING_COMPOSITE_TENSOR ? "composite_tensor"
                   : name ? "name" : "none";
  const Tensorflow__TensorShapeProto *sh = t ? t->tensor_shape : NULL;
  int rank_known = sh && !sh->unknown_rank;
  if (json) {
    tfx_sb_puts(sb, "{\"key\": ");
    tfx_sb_json_str(sb, key, strlen(key));
    tfx_sb_puts(sb, ", \"tensor\": ");
    if (name) tfx_sb_json_str(sb, name, strlen(name));
    else tfx_sb_puts(sb, "null");
    tfx_sb_printf(sb, ", \"encoding\": \"%s\", \"dtype\": \"%s\", \"shape\": ", enc,
                  dtype_name(t ? (int)t->dtype : 0));
  } else {
    tfx_sb_printf(sb, "%s: %s %s ", key, name ? name : enc, dtype_name(t ? (int)t->dtype : 0));
  }
  if (!rank_known) {
    tfx_sb_puts(sb, json ? "null}" : "(unknown rank)");
    return;
  }
  tfx_sb_putc(sb, '[');
  for (size_t q = 0; q < sh->n_dim; q++)
    tfx_sb_printf(sb, "%s%lld", q ? ", " : "", (long long)(sh->dim[q] ? sh->dim[q]->size : -1));
  tfx_sb_puts(sb, json ? "]}" : "]");
}

/* Every signature, by name, with its inputs and outputs by key. -1 on out of memory. */
static int render_sigs(const tfx_ctx *ctx, tfx_strbuf *sb, int json) {
  const Tensorflow__MetaGraphDef *mg = tfx_sig_meta_graph(&ctx->model);
  if (!mg) return 0;
  const Tensorflow__MetaGraphDef__SignatureDefEntry *def = tfx_sig_default(mg);
  size_t *idx = NULL, n = 0;
  if (tfx_sig_sorted(mg, &idx, &n) != 0) return -1;
  tfx_sb_printf(sb, json ? ", \"signatures\": [" : "signatures: %zu\n", n);
  for (size_t k = 0; k < n; k++) {
    const Tensorflow__MetaGraphDef__SignatureDefEntry *e = mg->signature_def[idx[k]];
    const char *nm = e && e->key ? e->key : "";
    const Tensorflow__SignatureDef *s = e ? e->value : NULL;
    const char *method = s && s->method_name ? s->method_name : "";
    if (json) {
      tfx_sb_puts(sb, k ? ",\n  {\"name\": " : "\n  {\"name\": ");
      tfx_sb_json_str(sb, nm, strlen(nm));
      tfx_sb_puts(sb, ", \"method_name\": ");
      tfx_sb_json_str(sb, method, strlen(method));
      tfx_sb_printf(sb, ", \"default\": %s", e == def ? "true" : "false");
    } else {
      tfx_sb_printf(sb, "  %s%s%s%s%s\n", nm, *method ? " (" : "", method, *method ? ")" : "",
                    e == def ? " [default]" : "");
    }
    for (int out = 0; out < 2; out++) {
      size_t *pi = NULL, np = 0;
      if (tfx_sig_sorted_ports(s, out, &pi, &np) != 0) {
        free(idx);
        return -1;
      }
      if (json) tfx_sb_puts(sb, out ? ", \"outputs\": [" : ", \"inputs\": [");
      for (size_t q = 0; q < np; q++) {
        const char *key = out ? s->outputs[pi[q]]->key : s->inputs[pi[q]]->key;
        const Tensorflow__TensorInfo *t = out ? s->outputs[pi[q]]->value : s->inputs[pi[q]]->value;
        if (json) {
          if (q) tfx_sb_puts(sb, ", ");
        } else {
          tfx_sb_puts(sb, out ? "    output " : "    input  ");
        }
        sig_tensor(sb, key ? key : "", t, json);
        if (!json) tfx_sb_putc(sb, '\n');
      }
      if (json) tfx_sb_putc(sb, ']');
      free(pi);
    }
    if (json) tfx_sb_putc(sb, '}');
  }
  if (json) tfx_sb_puts(sb, n ? "\n]" : "]");
  free(idx);
  return sb->oom ? -1 : 0;
}

static int render_json(const tfx_ctx *ctx, tfx_strbuf *sb) {
  const Tensorflow__GraphDef *gd = ctx->model.graph;
  const tfx_module *m = &ctx->module;
  const tfx_scope_tree *t = &ctx->scopes;
  size_t n_ops;
  op_stat *ops = op_histogram(m, &n_ops);
  if (!ops) return -1;
  qsort(ops, n_ops, sizeof *ops, by_name);
  tfx_sb_printf(sb, "{\"nodes\": %zu, \"functions\": %zu, \"op_types\": ", gd->n_node,
                gd->library ? gd->library->n_function : (size_t)0);
  json_ops(sb, ops, n_ops);
  free(ops);
  tfx_sb_puts(sb, ", \"scopes\": [");
  for (uint32_t k = 0; k < t->n_scopes; k++) {
    const tfx_scope *s = &t->scopes[t->dfs[k]];
    tfx_sb_puts(sb, k ? ",\n  {\"name\": " : "\n  {\"name\": ");
    tfx_sb_json_str(sb, s->name, strlen(s->name));
    tfx_sb_puts(sb, ", \"last_name\": ");
    tfx_sb_json_str(sb, s->last_name, strlen(s->last_name));
    tfx_sb_puts(sb, ", \"parent\": ");
    if (s->parent == TFX_NO_ID) {
      tfx_sb_puts(sb, "null");
    } else {
      const char *pn = t->scopes[s->parent].name;
      tfx_sb_json_str(sb, pn, strlen(pn));
    }
    tfx_sb_puts(sb, ", \"direct_nodes\": [");
    for (uint32_t i = 0; i < s->n_nodes; i++) {
      const char *nn = t->graph->nodes[s->nodes[i]].name;
      if (i) tfx_sb_puts(sb, ", ");
      tfx_sb_json_str(sb, nn, strlen(nn));
    }
    tfx_sb_puts(sb, "], \"op_counts\": ");
    op_stat *sc = scope_counts(m, s);
    if (!sc) return -1;
    json_ops(sb, sc, s->n_counts);
    free(sc);
    tfx_sb_putc(sb, '}');
  }
  tfx_sb_puts(sb, t->n_scopes ? "\n]" : "]");
  if (render_sigs(ctx, sb, 1) != 0) return -1;
  tfx_sb_puts(sb, "}\n");
  return sb->oom ? -1 : 0;
}

/* The scope's name relative to its parent ("b/" under "a/"); root children keep their name. */
static const char *rel_name(const tfx_scope_tree *t, const tfx_scope *s) {
  if (s->parent == TFX_NO_ID || s->parent == 0) return s->name;
  const char *pn = t->scopes[s->parent].name;
  size_t pl = strlen(pn);
  return strncmp(s->name, pn, pl) == 0 ? s->name + pl : s->name;
}

static int render_text(const tfx_ctx *ctx, unsigned depth, tfx_strbuf *sb) {
  const Tensorflow__GraphDef *gd = ctx->model.graph;
  const tfx_module *m = &ctx->module;
  const tfx_scope_tree *t = &ctx->scopes;
  tfx_sb_printf(sb, "model:      %s (%s %s)\n", ctx->model.path ? ctx->model.path : "?",
                ctx->model.wire == TFX_WIRE_TEXT ? "text" : "binary",
                tfx_msg_kind_name(ctx->model.kind));
  tfx_sb_printf(sb, "nodes:      %zu\n", gd->n_node);
  tfx_sb_printf(sb, "functions:  %zu\n", gd->library ? gd->library->n_function : (size_t)0);
  if (gd->versions)
    tfx_sb_printf(sb, "producer:   %d (min_consumer %d)\n", (int)gd->versions->producer,
                  (int)gd->versions->min_consumer);
  else
    tfx_sb_puts(sb, "producer:   none (no versions field)\n");
  tfx_sb_printf(sb, "version:    %d (legacy GraphDef.version)\n", (int)gd->version);
  if (render_sigs(ctx, sb, 0) != 0) return -1;

  size_t n_ops;
  op_stat *ops = op_histogram(m, &n_ops);
  if (!ops) return -1;
  qsort(ops, n_ops, sizeof *ops, by_count_then_name);
  tfx_sb_printf(sb, "op types:   %zu\n", n_ops);
  int w = 0;
  for (size_t i = 0; i < n_ops; i++)
    if ((int)strlen(ops[i].name) > w) w = (int)strlen(ops[i].name);
  for (size_t i = 0; i < n_ops; i++) tfx_sb_printf(sb, "  %-*s %u\n", w, ops[i].name, ops[i].count);
  free(ops);

  uint32_t shown = 0;
  w = 0;
  for (uint32_t k = 0; k < t->n_scopes; k++) {
    const tfx_scope *s = &t->scopes[t->dfs[k]];
    if (depth && s->depth > depth) continue;
    shown++;
    int l = 2 * (int)s->depth + (int)strlen(rel_name(t, s));
    if (l > w) w = l;
  }
  tfx_sb_printf(sb, "scopes:     %u", t->n_scopes);
  if (shown < t->n_scopes)
    tfx_sb_printf(sb, " (%u shown, depth <= %u; --depth 0 shows all)", shown, depth);
  tfx_sb_putc(sb, '\n');
  for (uint32_t k = 0; k < t->n_scopes; k++) {
    const tfx_scope *s = &t->scopes[t->dfs[k]];
    if (depth && s->depth > depth) continue;
    const char *rn = rel_name(t, s);
    int indent = 2 * (int)s->depth;
    tfx_sb_indent(sb, 2 + indent);
    tfx_sb_printf(sb, "%-*s  %u node%s (%u direct)\n", w - indent, rn, s->n_all_nodes,
                  s->n_all_nodes == 1 ? "" : "s", s->n_nodes);
  }
  return sb->oom ? -1 : 0;
}

tfxc_status tfxc_inspect(tfxc_session *s, unsigned flags, unsigned depth, char **text, size_t *len) {
  if (!s) return TFXC_MISUSE;
  tfx_diag *d = tfx_api_diag(s);
  tfxc_status st0 = tfx_api_result_start(s, "tfxc_inspect", (void **)text, len, 0);
  if (st0 != TFXC_OK) return st0;
  const void *bytes;
  size_t n_bytes;
  if (!tfx_api_model(s, &bytes, &n_bytes)) {
    tfx_error(d, NULL, 0, 0, "no model given (tfxc_load_model_path / tfxc_load_model_buffer)");
    return tfx_api_finish(s, TFXC_MISUSE);
  }
  const tfx_options *so = tfx_api_options(s);
  tfx_options o;
  memset(&o, 0, sizeof o);
  o.model_path = so->model_path;
  o.tag = so->tag;
  o.max_file_size = so->max_file_size;
  o.input_shape = so->input_shape;
  o.out_nodes = so->out_nodes;
  o.verbose = so->verbose;
  o.limits = so->limits;
  /* inspect shows what is there even when the graph does not validate (inputs naming missing
   * nodes, duplicate names...): the problems are reported as warnings. */
  o.lenient_index = 1;
  tfx_pipeline p;
  tfx_pipeline_init(&p);
  tfx_ctx ctx;
  tfx_ctx_init(&ctx, &o, d);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  int rc;
  if (tfx_pass_register_builtin(&p) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory registering passes");
    rc = TFX_E_NOMEM;
    goto done;
  }
  tfx_api_use_model(s, &p);
  /* inspect looks at the model only: no rules are loaded. */
  tfx_pipeline_disable(&p, "rules", d);
  tfx_pipeline_disable(&p, "freeze", d); /* the model as stored, variables and all */
  rc = tfx_pipeline_run(&p, &ctx, TFX_GROUP_PRUNE);
  if (rc != 0) goto done;
  if (!ctx.have_scopes) {
    tfx_error(d, NULL, 0, 0, "inspect: no scope tree was built");
    rc = TFX_EXIT_FAIL;
    goto done;
  }
  if (((flags & TFXC_INSPECT_JSON) ? render_json(&ctx, &sb) : render_text(&ctx, depth, &sb)) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory rendering the summary");
    rc = TFX_E_NOMEM;
    goto done;
  }
done:
  tfx_ctx_free(&ctx);
  tfx_pipeline_free(&p);
  if (rc != 0) {
    tfx_sb_free(&sb);
    return tfx_api_finish(s, tfx_api_status_from_rc(rc));
  }
  return tfx_api_finish(s, tfx_api_give(s, &sb, (void **)text, len));
}

/* ---------------------------------------------------------------- inspect: checkpoints */

int tfxc_is_checkpoint(const char *path) {
  if (!path) return 0;
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) return 0;
  size_t n = strlen(path);
  if (n > 6 && strcmp(path + n - 6, ".index") == 0) return 1;
  return stat(path, &st) != 0 && tfx_ckpt_exists(path);
}

static void hex(tfx_strbuf *sb, const uint8_t *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  tfx_sb_putc(sb, '"');
  for (size_t i = 0; i < n; i++) {
    tfx_sb_putc(sb, digits[p[i] >> 4]);
    tfx_sb_putc(sb, digits[p[i] & 15]);
  }
  tfx_sb_putc(sb, '"');
}

/* "data": the bytes in hex; strings: "strings": [hex per element]. */
static int json_values(tfx_ckpt *c, const tfx_ckpt_tensor *t, tfx_strbuf *sb, tfx_diag *d) {
  if (t->n_slices) return 0;
  if (t->dtype == 7) {
    const uint8_t **s;
    size_t *l;
    int rc = tfx_ckpt_strings(c, t, &s, &l, d);
    if (rc) return rc;
    tfx_sb_puts(sb, ", \"strings\": [");
    for (int64_t i = 0; i < t->elems; i++) {
      if (i) tfx_sb_puts(sb, ", ");
      hex(sb, s[i], l[i]);
    }
    tfx_sb_putc(sb, ']');
    return 0;
  }
  const uint8_t *p;
  size_t n;
  int rc = tfx_ckpt_bytes(c, t, &p, &n, d);
  if (rc) return rc;
  tfx_sb_puts(sb, ", \"data\": ");
  hex(sb, p, n);
  return 0;
}

/* The listing of checkpoint path into sb. Returns an exit code (reported). */
static int list_ckpt(const char *path, unsigned flags, size_t max_file_size, tfx_strbuf *sb,
                     tfx_diag *d) {
  int values = (flags & TFXC_INSPECT_VALUES) != 0;
  int json = (flags & TFXC_INSPECT_JSON) != 0;
  char *prefix = strdup(path);
  if (!prefix) {
    tfx_error(d, NULL, 0, 0, "out of memory");
    return TFX_E_NOMEM;
  }
  size_t pn = strlen(prefix);
  if (pn > 6 && strcmp(prefix + pn - 6, ".index") == 0) prefix[pn - 6] = 0;
  tfx_ckpt c;
  tfx_ckpt_init(&c);
  int rc = tfx_ckpt_open(&c, prefix, max_file_size, d);
  for (size_t i = 0; rc == 0 && i < c.n; i++) {
    const tfx_ckpt_tensor *t = &c.t[i];
    if (t->n_slices) continue; /* listed; its slices are entries of their own */
    if (t->dtype == 7) {
      const uint8_t **s;
      size_t *l;
      rc = tfx_ckpt_strings(&c, t, &s, &l, d);
    } else {
      const uint8_t *p;
      size_t n;
      rc = tfx_ckpt_bytes(&c, t, &p, &n, d);
    }
  }
  if (rc) goto done;
  if (json) {
    tfx_sb_puts(sb, "{\n  \"checkpoint\": ");
    tfx_sb_json_str(sb, prefix, strlen(prefix));
    tfx_sb_printf(sb, ",\n  \"shards\": %u,\n  \"tensors\": [", c.num_shards);
    for (size_t i = 0; i < c.n; i++) {
      const tfx_ckpt_tensor *t = &c.t[i];
      tfx_sb_puts(sb, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
      tfx_sb_json_str(sb, t->name, strlen(t->name));
      tfx_sb_printf(sb, ", \"dtype\": \"%s\", \"shape\": ", tfx_ckpt_dtype_name(t->dtype));
      if (t->unknown_rank) tfx_sb_puts(sb, "null");
      else {
        tfx_sb_putc(sb, '[');
        for (uint32_t k = 0; k < t->rank; k++)
          tfx_sb_printf(sb, "%s%lld", k ? ", " : "", (long long)t->dims[k]);
        tfx_sb_putc(sb, ']');
      }
      tfx_sb_printf(sb, ", \"bytes\": %llu, \"shard\": %u, \"slices\": %u",
                    (unsigned long long)t->size, t->shard, t->n_slices);
      if (values && (rc = json_values(&c, t, sb, d)) != 0) goto done;
      tfx_sb_putc(sb, '}');
    }
    tfx_sb_puts(sb, c.n ? "\n  ]\n}\n" : "]\n}\n");
  } else {
    uint64_t total = 0;
    size_t w = 4;
    for (size_t i = 0; i < c.n; i++) {
      total += c.t[i].size;
      if (strlen(c.t[i].name) > w) w = strlen(c.t[i].name);
    }
    if (w > 60) w = 60;
    tfx_sb_printf(sb, "checkpoint: %s\nshards:     %u\ntensors:    %zu (%llu bytes)\n", prefix,
                  c.num_shards, c.n, (unsigned long long)total);
    if (c.n_slice_parts)
      tfx_sb_printf(sb, "slices:     %zu (parts of partitioned variables, not listed)\n",
                    c.n_slice_parts);
    for (size_t i = 0; i < c.n; i++) {
      char desc[512];
      tfx_ckpt_describe(&c.t[i], desc, sizeof desc);
      tfx_sb_printf(sb, "  %-*s  %s  %llu bytes", (int)w, c.t[i].name, desc,
                    (unsigned long long)c.t[i].size);
      if (c.t[i].n_slices) tfx_sb_printf(sb, "  (partitioned: %u slices)", c.t[i].n_slices);
      tfx_sb_putc(sb, '\n');
    }
  }
  if (sb->oom) {
    tfx_error(d, NULL, 0, 0, "out of memory rendering the listing");
    rc = TFX_E_NOMEM;
  }
done:
  tfx_ckpt_free(&c);
  free(prefix);
  return rc;
}

tfxc_status tfxc_inspect_checkpoint(tfxc_session *s, const char *prefix, unsigned flags,
                                    char **text, size_t *len) {
  if (!s) return TFXC_MISUSE;
  tfx_diag *d = tfx_api_diag(s);
  if (!text || !prefix || !*prefix) {
    tfx_error(d, NULL, 0, 0, "tfxc_inspect_checkpoint: no prefix or result pointer");
    return tfx_api_finish(s, TFXC_MISUSE);
  }
  *text = NULL;
  if (len) *len = 0;
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  int rc = list_ckpt(prefix, flags, tfx_api_options(s)->max_file_size, &sb, d);
  if (rc != 0) {
    tfx_sb_free(&sb);
    return tfx_api_finish(s, tfx_api_status_from_rc(rc));
  }
  return tfx_api_finish(s, tfx_api_give(s, &sb, (void **)text, len));
}
