/* `tfxc inspect MODEL`: a summary of a model, as text or as one JSON object.
 * Stage: cli. Input: argv; runs the pass pipeline through PRUNE (load, index, scope-tree,
 * prune). Output on stdout, deterministic (sorted keys, DFS scope order, no addresses/times):
 *   text: counts, producer version, op histogram (count desc, name), scope tree to --depth;
 *   JSON: {"nodes", "functions", "op_types", "scopes": [{"name", "last_name", "parent",
 *          "direct_nodes", "op_counts"}...]}, the shape documented in docs/CLI.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "passes/passes.h"
#include "passes/signature.h"
#include "tfxc/tfxc.h"
#include "util/arena.h"
#include "util/strbuf.h"

enum { I_JSON, I_DEPTH, I_TAG, I_INPUT_SHAPE, I_OUT_NODES, I_MAX_FILE, I_VERBOSE, I_QUIET, I_HELP,
       I_LIMIT, I_VALUES };

static const tfx_cli_opt inspect_opts[] = {
  {I_JSON, "json", 0, NULL},
  {I_DEPTH, "depth", 0, "N"},
  {I_TAG, "tag", 0, "TAG"},
  {I_INPUT_SHAPE, "input-shape", 0, "SPEC"},
  {I_OUT_NODES, "out-nodes", 0, "SPEC"},
  {I_MAX_FILE, "max-file-size", 0, "SIZE"},
  {I_VERBOSE, "verbose", 'v', NULL},
  {I_QUIET, "quiet", 'q', NULL},
  {I_HELP, "help", 'h', NULL},
  {I_LIMIT, "limit", 0, "NAME=N"},
  {I_VALUES, "values", 0, NULL}, /* checkpoints: every tensor's bytes in hex (JSON) */
};

#define DEFAULT_DEPTH 3u

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

int tfx_cli_inspect(int argc, char **argv, int first, tfx_diag *d) {
  tfx_options o;
  memset(&o, 0, sizeof o);
  /* inspect shows what is there even when the graph does not validate (inputs naming missing
   * nodes, duplicate names...): the problems are printed as warnings. */
  o.lenient_index = 1;
  tfx_cli_args a;
  tfx_cli_args_init(&a, argc, argv, first, "tfxc inspect", inspect_opts,
                    sizeof inspect_opts / sizeof inspect_opts[0]);
  int json = 0, help = 0, usage = 0, id, values = 0;
  unsigned depth = DEFAULT_DEPTH;
  const char *v;
  while ((id = tfx_cli_next(&a, &v, d)) != TFX_CLI_END) {
    switch (id) {
    case TFX_CLI_ERROR: return TFX_EXIT_USAGE;
    case TFX_CLI_POSITIONAL:
      if (o.model_path) {
        tfx_cli_usage_error(d, "tfxc inspect", "more than one MODEL given");
        usage = 1;
      }
      o.model_path = v;
      break;
    case I_JSON: json = 1; break;
    case I_VALUES: values = 1; break;
    case I_DEPTH:
      if (tfx_cli_parse_uint(v, &depth) != 0) {
        tfx_cli_usage_error(d, "tfxc inspect", "--depth: '%s' is not a non-negative integer", v);
        usage = 1;
      }
      break;
    case I_TAG: o.tag = v; break;
    case I_INPUT_SHAPE: o.input_shape = v; break;
    case I_OUT_NODES: o.out_nodes = v; break;
    case I_MAX_FILE:
      if (tfx_cli_parse_size(v, &o.max_file_size) != 0 || o.max_file_size == 0) {
        tfx_cli_usage_error(d, "tfxc inspect", "--max-file-size: '%s' is not a size (e.g. 512M)", v);
        usage = 1;
      }
      break;
    case I_LIMIT:
      if (tfx_cli_parse_limit(v, "tfxc inspect", &o.limits, &o.max_file_size, NULL, d) != 0)
        usage = 1;
      break;
    case I_VERBOSE: o.verbose = o.verbose < 0 ? 1 : o.verbose + 1; break;
    case I_QUIET: o.verbose = -1; break;
    case I_HELP: help = 1; break;
    default: break;
    }
  }
  if (help && !usage) {
    tfx_cli_help_inspect(stdout);
    return TFX_EXIT_OK;
  }
  if (!o.model_path && !usage) {
    tfx_cli_usage_error(d, "tfxc inspect", "no MODEL given");
    usage = 1;
  }
  if (!usage) {
    int pr = tfx_cli_check_prune_options(o.input_shape, o.out_nodes, d);
    if (pr == TFX_EXIT_USAGE) usage = 1;
    else if (pr) return pr;
  }
  if (values && !usage && !(json && tfx_cli_inspect_is_ckpt(o.model_path))) {
    tfx_cli_usage_error(d, "tfxc inspect", "--values needs --json and a checkpoint PREFIX");
    usage = 1;
  }
  if (usage) return TFX_EXIT_USAGE;
  if (tfx_cli_inspect_is_ckpt(o.model_path)) { /* a checkpoint without a graph */
    int crc = tfx_cli_inspect_ckpt(o.model_path, json | (values << 1), o.max_file_size, d);
    tfx_cli_print_diag(d, o.verbose);
    tfx_diag_clear(d);
    return crc;
  }

  tfx_pipeline p;
  tfx_pipeline_init(&p);
  tfx_ctx ctx;
  tfx_ctx_init(&ctx, &o, d);
  tfx_strbuf sb;
  tfx_sb_init(&sb);
  int rc;
  if (tfx_pass_register_builtin(&p) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory registering passes");
    rc = TFX_EXIT_FAIL;
    goto done;
  }
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
  if ((json ? render_json(&ctx, &sb) : render_text(&ctx, depth, &sb)) != 0) {
    tfx_error(d, NULL, 0, 0, "out of memory rendering the summary");
    rc = TFX_EXIT_FAIL;
    goto done;
  }
  rc = tfx_cli_write_stdout(sb.data, sb.len, d);
done:
  tfx_sb_free(&sb);
  tfx_ctx_free(&ctx);
  tfx_pipeline_free(&p);
  tfx_cli_print_diag(d, o.verbose);
  tfx_diag_clear(d);
  return rc;
}
