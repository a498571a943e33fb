/* Unit tests for the scope-fusion engine's matching and result handling against Ascend's
 * ScopeBasePass semantics (docs/ASCEND.md §2.4-4.5): layering and
 * rollback, the first failing layer stopping its group, no descent into a matched scope, the
 * root never tested, pattern overwrite order, sub_types persisting across passes, a false
 * `require` clearing sub_types (descendants included), same-name replacement, invalid results
 * dropped with a warning (later ones of the pass too), CheckInnerNodesInfo, the enable set,
 * and the JSON report's determinism. Packs are hand-assembled (tfx_asm). */
#include "test_fusion_util.h"

/* Two moments scopes, only one under a LayerNorm scope. */
static const char *const g_two[] = {
    "a/LayerNorm/moments/m1|Mean", "a/LayerNorm/moments/m2|Mean", "a/LayerNorm/x|Add",
    "b/moments/m1|Mean",           "b/moments/m2|Mean",
};

/* ASCEND.md §3.2: earlier-layer sub_types survive only under a last-layer result. */
static void layering_and_rollback(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t r = ft_pass(f, "P", 1, 1);
  uint32_t g = tfx_asm_group(&f->as, r);
  ft_pattern(f, tfx_asm_layer(&f->as, g), "moments", "count Mean 2; name moments");
  ft_pattern(f, tfx_asm_layer(&f->as, g), "ln", "subtypes moments 1; name LayerNorm");
  /* a second group whose first layer fails: its second layer never runs */
  uint32_t g2 = tfx_asm_group(&f->as, r);
  ft_pattern(f, tfx_asm_layer(&f->as, g2), "never", "count Mean 7");
  ft_pattern(f, tfx_asm_layer(&f->as, g2), "would", "present Add");
  ft_finish(f);
  tfx_fusion_graph_report *gr = ft_run(f);
  assert_string_equal(ft_st(f, "a/LayerNorm/"), "ln");
  assert_string_equal(ft_st(f, "a/LayerNorm/moments/"), "moments"); /* under the result */
  assert_string_equal(ft_st(f, "b/moments/"), "");                  /* rolled back */
  assert_string_equal(ft_st(f, "a/"), "");
  const tfx_fusion_pass_report *pr = &gr->passes[0];
  assert_int_equal(pr->n_layers, 3); /* g0 l0, g0 l1, g1 l0 (stops) */
  assert_string_equal(ft_layer_scopes(&pr->layers[0]), "a/LayerNorm/moments/=moments b/moments/=moments");
  assert_string_equal(ft_layer_scopes(&pr->layers[1]), "a/LayerNorm/=ln");
  assert_int_equal(pr->layers[2].group, 1);
  assert_false(pr->layers[2].matched);
  /* set then rolled back within the pass: not listed */
  assert_int_equal(pr->n_set, 2);
  assert_string_equal(pr->set[0].scope, "a/LayerNorm/");
  assert_string_equal(pr->set[1].scope, "a/LayerNorm/moments/");
  assert_int_equal(pr->n_cleared, 0);
  assert_int_equal(pr->status, TFX_FUSION_SUCCESS); /* matched, no select program */
  assert_int_equal(pr->select_ran, 0);
}

/* ASCEND.md §3.1: depth-first from the root's children; a matched scope is not entered; the root
 * (which would match too) is never tested. */
static void no_descend_root_never_tested(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t r = ft_pass(f, "P", 1, 1);
  ft_simple(f, r, "has_mean", "present Mean");
  ft_finish(f);
  tfx_fusion_graph_report *gr = ft_run(f);
  assert_string_equal(ft_layer_scopes(&gr->passes[0].layers[0]), "a/=has_mean b/=has_mean");
  assert_string_equal(ft_st(f, "a/LayerNorm/"), "");
  assert_int_equal(f->t.scopes[0].sub_type, TFX_NO_ID);
}

/* ASCEND.md §3.1: patterns of a layer run in order, each over the whole tree; a later one overwrites
 * an earlier one's sub_type and may match inside a scope the earlier one matched. */
static void pattern_overwrite_order(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t r = ft_pass(f, "P", 1, 1);
  uint32_t l = tfx_asm_layer(&f->as, tfx_asm_group(&f->as, r));
  ft_pattern(f, l, "first", "present Mean");
  ft_pattern(f, l, "second", "count Mean 2; name moments");
  ft_pattern(f, l, "third", "present Add");
  ft_finish(f);
  tfx_fusion_graph_report *gr = ft_run(f);
  assert_string_equal(ft_layer_scopes(&gr->passes[0].layers[0]),
                      "a/=first b/=first a/LayerNorm/moments/=second b/moments/=second a/=third");
  assert_string_equal(ft_st(f, "a/"), "third");
  assert_string_equal(ft_st(f, "b/"), "first");
  assert_string_equal(ft_st(f, "b/moments/"), "second");
  assert_int_equal(gr->passes[0].layers[0].m[4].pattern, 2);
}

/* ASCEND.md §3.1: sub_types live on the tree, so a later pass sees an earlier pass's tags. */
static void subtypes_persist_across_passes(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t p1 = ft_pass(f, "P1", 1, 1);
  ft_simple(f, p1, "moments", "count Mean 2; name moments");
  uint32_t p2 = ft_pass(f, "P2", 1, 10);
  ft_simple(f, p2, "ln", "subtypes moments 1; name LayerNorm");
  ft_finish(f);
  tfx_fusion_graph_report *gr = ft_run(f);
  assert_int_equal(gr->n_passes, 2);
  assert_string_equal(ft_layer_scopes(&gr->passes[1].layers[0]), "a/LayerNorm/=ln");
  assert_string_equal(ft_st(f, "b/moments/"), "moments");
  assert_int_equal(gr->n_final_sub_types, 3);
  /* and across runs on the same tree */
  tfx_fusion_graph_report *again = ft_run(f);
  assert_int_equal(again->passes[0].n_set, 0); /* same sub_type again: not a change */
}

/* ASCEND.md §3.3: SELECT false = LastMatchScopesAndOPs failed: every result's sub_type and its
 * descendants' are cleared, nothing is kept. */
static void require_false_clears(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t p0 = ft_pass(f, "Tag", 1, 1);
  ft_simple(f, p0, "moments", "count Mean 2; name moments");
  uint32_t p1 = ft_pass(f, "Req", 1, 10);
  ft_simple(f, p1, "ln", "name LayerNorm");
  ft_sel_begin(f, p1, 12);
  uint32_t loop, done;
  ft_each(f, "ln", &loop, &done);
  ft_begin(f);
  ft_scopes(f);
  ft_type(f, "T");
  ft_end(f);
  ft_each_end(f, loop, done);
  ft_ret(f, 0); /* require failed */
  ft_sel_end(f);
  ft_finish(f);
  tfx_fusion_graph_report *gr = ft_run(f);
  const tfx_fusion_pass_report *pr = &gr->passes[1];
  assert_int_equal(pr->status, TFX_FUSION_NOT_CHANGED);
  assert_true(pr->select_ran);
  assert_false(pr->select_value);
  assert_int_equal(pr->n_results, 0);
  assert_int_equal(gr->n_final, 0);
  assert_string_equal(ft_st(f, "a/LayerNorm/"), "");
  assert_string_equal(ft_st(f, "a/LayerNorm/moments/"), ""); /* descendant of a result */
  assert_string_equal(ft_st(f, "b/moments/"), "moments");     /* elsewhere: untouched */
  assert_int_equal(pr->n_cleared, 1);
  assert_string_equal(pr->cleared[0].scope, "a/LayerNorm/moments/");
  assert_string_equal(pr->cleared[0].sub_type, "moments");
}

/* Sub_types the tree carries into a run (set by hand here; a second run on one tree) are seen
 * by `scopes(...)`, listed among the final sub_types and reported when a false `require`
 * clears them: the engine lists them before its first program runs (the VM reads sub_types
 * only at the dfs positions the engine lists, host.h `subtyped`). */
static void preset_subtypes_seen(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t p0 = ft_pass(f, "Keep", 1, 1);
  ft_simple(f, p0, "ln", "name LayerNorm");
  ft_sel_begin(f, p0, 5);
  uint32_t loop, done;
  ft_each(f, "pre", &loop, &done);
  ft_begin(f);
  ft_scopes(f);
  ft_type(f, "T");
  ft_end(f);
  ft_each_end(f, loop, done);
  ft_ret(f, 1);
  ft_sel_end(f);
  uint32_t p1 = ft_pass(f, "Drop", 1, 20);
  ft_simple(f, p1, "ln2", "name LayerNorm");
  ft_sel_begin(f, p1, 22);
  ft_each(f, "ln2", &loop, &done);
  ft_begin(f);
  ft_scopes(f);
  ft_type(f, "T");
  ft_end(f);
  ft_each_end(f, loop, done);
  ft_ret(f, 0); /* require failed: clears a/LayerNorm/ and the scopes under it */
  ft_sel_end(f);
  ft_finish(f);
  uint32_t pre = tfx_intern_id(&ftx->e.subtypes, "pre", 3);
  f->t.scopes[vt_scope(f, "b/moments/")].sub_type = pre;
  f->t.scopes[vt_scope(f, "a/LayerNorm/moments/")].sub_type = pre;
  tfx_fusion_graph_report *gr = ft_run(f);
  const tfx_fusion_pass_report *keep = &gr->passes[0], *drop = &gr->passes[1];
  assert_int_equal(keep->n_results, 2); /* scopes("pre"), depth-first */
  assert_string_equal(keep->results[0]->name, "a/LayerNorm/moments");
  assert_string_equal(keep->results[1]->name, "b/moments");
  assert_int_equal(keep->n_set, 1);
  assert_string_equal(keep->set[0].scope, "a/LayerNorm/");
  assert_false(drop->select_value);
  assert_int_equal(drop->n_set, 0);
  assert_int_equal(drop->n_cleared, 2); /* the earlier pass's ln, and a preset one under it */
  assert_string_equal(drop->cleared[0].scope, "a/LayerNorm/");
  assert_string_equal(drop->cleared[0].sub_type, "ln");
  assert_string_equal(drop->cleared[1].scope, "a/LayerNorm/moments/");
  assert_string_equal(drop->cleared[1].sub_type, "pre");
  assert_int_equal(gr->n_final_sub_types, 1);
  assert_string_equal(gr->final_sub_types[0].scope, "b/moments/");
  assert_string_equal(gr->final_sub_types[0].sub_type, "pre");
}

/* A pass that emits results named by `names` (type = types[i]) over the scopes of sub_type st. */
static void emit_named(vt *f, uint32_t rule, uint32_t line, const char *const *names,
                       const char *const *types, int n, int invalid_at) {
  ft_sel_begin(f, rule, line);
  for (int i = 0; i < n; i++) {
    ft_loc(f, line + 1 + (uint32_t)i);
    ft_begin(f);
    ft_name(f, names[i]);
    ft_type(f, types[i]);
    if (i == invalid_at) ft_invalid(f, "no Rsqrt consumer");
    ft_end(f);
  }
  ft_ret(f, 1);
  ft_sel_end(f);
}

/* ASCEND.md §4.1: results keyed by name; a later one (same or later pass) replaces the earlier. */
static void same_name_replaces(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t p1 = ft_pass(f, "P1", 1, 1);
  ft_simple(f, p1, "m", "present Mean");
  const char *n1[] = {"X", "Y", "X"}, *t1[] = {"A", "B", "C"};
  emit_named(f, p1, 2, n1, t1, 3, -1);
  uint32_t p2 = ft_pass(f, "P2", 1, 10);
  ft_simple(f, p2, "m2", "present Mean");
  const char *n2[] = {"Y"}, *t2[] = {"D"};
  emit_named(f, p2, 11, n2, t2, 1, -1);
  ft_finish(f);
  tfx_fusion_graph_report *gr = ft_run(f);
  assert_int_equal(gr->passes[0].n_results, 3);
  assert_int_equal(gr->n_final, 2);
  assert_string_equal(gr->final[0]->name, "X");
  assert_string_equal(gr->final[0]->type, "C");
  assert_string_equal(gr->final[1]->name, "Y");
  assert_string_equal(gr->final[1]->type, "D");
  assert_string_equal(gr->final[1]->pass, "P2");
}

/* ASCEND.md §4.1 (metadef master): an invalid result is dropped with a warning; results the pass
 * added before stay; the pass adds nothing after it; status SCOPE_NOT_CHANGED. */
static void invalid_result_dropped(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t p = ft_pass(f, "ScopeLNPass", 1, 1);
  ft_simple(f, p, "m", "present Mean");
  const char *n[] = {"r1", "r2", "r3"}, *t[] = {"LayerNorm", "LayerNorm", "LayerNorm"};
  emit_named(f, p, 30, n, t, 3, 1);
  ft_finish(f);
  tfx_fusion_graph_report *gr = ft_run(f);
  const tfx_fusion_pass_report *pr = &gr->passes[0];
  assert_int_equal(pr->status, TFX_FUSION_NOT_CHANGED);
  assert_int_equal(pr->n_results, 1);
  assert_int_equal(gr->n_final, 1);
  assert_string_equal(gr->final[0]->name, "r1");
  assert_int_equal(pr->n_dropped, 2);
  assert_string_equal(pr->dropped[0].name, "r2");
  assert_non_null(strstr(pr->dropped[0].reason, "no Rsqrt consumer"));
  assert_string_equal(pr->dropped[1].name, "r3");
  assert_int_equal(f->d.warnings, 1);
  assert_true(ft_diag_has(&f->d, "scope pass 'ScopeLNPass': fusion result 'r2'"));
  /* the warning sits at the `invalid` statement (the only FR_INVALID of the program) */
  assert_string_equal(f->d.items[0].file, "t.rule");
  assert_int_equal(f->d.items[0].line, 32);
}

/* Type "ScopeInvalidType" set directly is the same as `invalid`. */
static void invalid_type_dropped(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t p = ft_pass(f, "P", 1, 7);
  ft_simple(f, p, "m", "present Mean");
  const char *n[] = {"r1"}, *t[] = {"ScopeInvalidType"};
  emit_named(f, p, 30, n, t, 1, -1);
  ft_finish(f);
  tfx_fusion_graph_report *gr = ft_run(f);
  assert_int_equal(gr->n_final, 0);
  assert_int_equal(gr->passes[0].n_dropped, 1);
  assert_int_equal(f->d.items[0].line, 7); /* no FR_INVALID: the pass's site */
}

/* ASCEND.md §4.4: CheckInnerNodesInfo - unique inner names; boundary uses == enabled map entries. */
static void multi_check(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t p = ft_pass(f, "G", 1, 1);
  ft_simple(f, p, "m", "present Mean");
  ft_sel_begin(f, p, 2);
  /* ok: 2 boundary inputs used, maps enable 2; 1 output, maps enable 1 */
  ft_begin(f);
  ft_name(f, "ok");
  ft_type(f, "ScopeToMultiNodes");
  ft_map(f, 0, "m1", 0, 0);
  ft_map(f, 0, "m2", 0, 1);
  ft_map(f, 0, "m2", 1, -1);
  ft_map(f, 1, "m2", 0, 0);
  ft_node(f, "g", "LayerNormGrad");
  ft_node_in(f, NULL, 0);
  ft_node_in(f, NULL, 1);
  ft_node(f, "a", "Add");
  ft_node_in(f, "g", 0);
  ft_node_const_f(f, 1.0);
  ft_node_out(f, 0, "a", 0);
  ft_end(f);
  /* counts differ: 1 boundary input used, 2 enabled */
  ft_begin(f);
  ft_name(f, "bad");
  ft_type(f, "ScopeToMultiNodes");
  ft_map(f, 0, "m1", 0, 0);
  ft_map(f, 0, "m2", 0, 1);
  ft_node(f, "g", "LayerNormGrad");
  ft_node_in(f, NULL, 0);
  ft_end(f);
  ft_ret(f, 1);
  ft_sel_end(f);
  ft_finish(f);
  tfx_fusion_graph_report *gr = ft_run(f);
  assert_int_equal(gr->n_final, 1);
  const tfx_fusion_result *ok = gr->final[0];
  assert_true(ok->inner_check);
  assert_int_equal(ok->n_inner, 2);
  assert_string_equal(ok->inner[0].name, "ok/g");
  assert_string_equal(ok->inner[1].in[0].src, "ok/g");
  assert_non_null(ok->inner[1].in[1].cval);
  assert_string_equal(ok->outs[0].node, "ok/a");
  assert_int_equal(gr->passes[0].n_dropped, 1);
  assert_non_null(strstr(gr->passes[0].dropped[0].reason, "CheckInnerNodesInfo"));
  assert_true(ft_diag_has(&f->d, "use 1 boundary inputs"));
}

/* Duplicate inner names fail the check too. */
static void multi_check_duplicate(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t p = ft_pass(f, "G", 1, 1);
  ft_simple(f, p, "m", "present Mean");
  ft_sel_begin(f, p, 2);
  ft_begin(f);
  ft_name(f, "dup");
  ft_type(f, "ScopeToMultiNodes");
  ft_node(f, "g", "Add");
  ft_node(f, "g", "Add");
  ft_end(f);
  ft_ret(f, 1);
  ft_sel_end(f);
  ft_finish(f);
  tfx_fusion_graph_report *gr = ft_run(f);
  assert_int_equal(gr->n_final, 0);
  assert_true(ft_diag_has(&f->d, "'dup/g' is not unique"));
}

/* Children (ASCEND.md §4.2): extra nodes or a member scope name as a STRICT prefix; graph order. */
static void children_and_maps(void **state) {
  vt *f = *state;
  const char *g[] = {"x|Placeholder", FT_LAYERNORM("LayerNorm"), "y|Relu|LayerNorm/batchnorm/add_1"};
  vt_model(f, g, TG_N(g));
  ft_layernorm_pass(f, "ScopeLayerNormPass");
  ft_finish(f);
  tfx_fusion_graph_report *gr = ft_run(f);
  assert_int_equal(gr->n_final, 1);
  const tfx_fusion_result *res = gr->final[0];
  assert_string_equal(res->name, "LayerNorm/");
  assert_int_equal(res->n_scopes, 2);
  assert_string_equal(res->scopes[0], "LayerNorm/batchnorm/");
  assert_string_equal(res->scopes[1], "LayerNorm/moments/");
  assert_int_equal(res->n_children, 14); /* as Ascend: gamma/beta are not children */
  assert_string_equal(res->child_names[0], "LayerNorm/moments/mean/reduction_indices");
  assert_int_equal(res->n_inputs, 3);
  assert_string_equal(res->inputs[0].key, "batchnorm/mul");
  assert_string_equal(res->inputs[1].key, "batchnorm/mul_1");
  assert_int_equal(res->inputs[0].n, 2);
  assert_int_equal(res->inputs[0].to[0], -1); /* unset port: disabled */
  assert_int_equal(res->inputs[0].to[1], 1);
  assert_int_equal(res->outputs[0].to[0], 2); /* batchnorm/Rsqrt first in byte order */
}

/* Index-map keys of a result with more children than check_keys measures on its stack (64):
 * "n69" ends the 70th child's name and matches, "nope" matches none and is the error. */
static void keys_of_many_children(void **state) {
  vt *f = *state;
  static char names[70][24];
  const char *g[71];
  g[0] = "x|Placeholder";
  for (int i = 0; i < 70; i++) {
    snprintf(names[i], sizeof names[i], "big/n%02d|Relu|x", i);
    g[i + 1] = names[i];
  }
  vt_model(f, g, 71);
  uint32_t r = ft_pass(f, "Big", 1, 1);
  ft_simple(f, r, "big", "name big");
  ft_sel_begin(f, r, 3);
  uint32_t loop, done;
  ft_each(f, "big", &loop, &done);
  ft_begin(f);
  ft_scopes(f);
  ft_type(f, "T");
  E(f, LOADK, 8, KS(f, "n69"), 0);
  E(f, FR_KEY, 0, 8, 0);
  ft_map(f, 0, "n69", 0, 0);
  E(f, LOADK, 8, KS(f, "nope"), 0);
  E(f, FR_KEY, 0, 8, 0);
  ft_map(f, 0, "nope", 0, 1);
  ft_end(f);
  ft_each_end(f, loop, done);
  ft_ret(f, 1);
  ft_sel_end(f);
  ft_finish(f);
  int rc = tfx_fusion_run(&ftx->e, &ftx->en, &f->m, &f->m.main, &f->t, &ftx->rep, &f->d);
  assert_int_equal(rc, TFX_E_FAIL);
  const tfx_fusion_graph_report *gr = &ftx->rep.graphs[ftx->rep.n_graphs - 1];
  assert_int_equal(gr->n_final, 1);
  assert_int_equal(gr->final[0]->n_children, 70);
  assert_non_null(gr->final[0]->map_error);
  assert_true(ft_diag_has(&f->d, "input key \"nope\" matches no node of the result (70 nodes)"));
  assert_false(ft_diag_has(&f->d, "\"n69\""));
}

/* The JSON report: deterministic, sorted, 99999 for disabled ports. */
static void json_report(void **state) {
  vt *f = *state;
  const char *g[] = {"x|Placeholder", FT_LAYERNORM("b/LayerNorm"), FT_LAYERNORM("a/LayerNorm"),
                     "y|Relu|a/LayerNorm/batchnorm/add_1"};
  vt_model(f, g, TG_N(g));
  ft_layernorm_pass(f, "ScopeLayerNormPass");
  ft_finish(f);
  ft_run(f);
  tfx_strbuf j1, j2;
  tfx_sb_init(&j1);
  tfx_sb_init(&j2);
  assert_int_equal(tfx_fusion_report_json(&ftx->rep, &j1), 0);
  /* a second engine over a fresh tree gives the same bytes */
  tfx_fusion_report rep2;
  tfx_fusion_report_init(&rep2);
  tfx_fusion_engine e2;
  assert_int_equal(tfx_fusion_engine_init(&e2, &f->p, &f->d), 0);
  tfx_scope_tree t2;
  assert_int_equal(tfx_scope_tree_build(&t2, &f->m.main, &f->d), 0);
  assert_int_equal(tfx_fusion_run(&e2, &ftx->en, &f->m, &f->m.main, &t2, &rep2, &f->d), 0);
  assert_int_equal(tfx_fusion_report_json(&rep2, &j2), 0);
  assert_string_equal(tfx_sb_cstr(&j1), tfx_sb_cstr(&j2));
  const char *s = tfx_sb_cstr(&j1);
  assert_non_null(strstr(s, "\"batchnorm/mul\": [99999, 1]"));
  assert_non_null(strstr(s, "\"result_types\": {\n      \"LayerNorm\": 2\n     }"));
  const char *a = strstr(s, "\"name\": \"a/LayerNorm/\""), *b = strstr(s, "\"name\": \"b/LayerNorm/\"");
  assert_non_null(a);
  assert_non_null(b);
  assert_true(a < b); /* results sorted by name */
  assert_non_null(strstr(s, "\"status\": \"SUCCESS\""));
  assert_non_null(strstr(s, "\"require\": true"));
  tfx_scope_tree_free(&t2);
  tfx_fusion_engine_free(&e2);
  tfx_fusion_report_free(&rep2);
  tfx_sb_free(&j1);
  tfx_sb_free(&j2);
}

/* ASCEND.md §4.5: general passes on by default; --enable-scope-fusion-passes turns opt-in
 * ones on (unknown: error listing the names); --disable-pass turns any off. */
static void enable_disable(void **state) {
  vt *f = *state;
  vt_model(f, g_two, TG_N(g_two));
  uint32_t g = ft_pass(f, "Gen", 1, 1);
  ft_simple(f, g, "a", "present Mean");
  uint32_t o = ft_pass(f, "Opt", 0, 5);
  ft_simple(f, o, "b", "present Mean");
  ft_finish(f);
  assert_true(ftx->en.on[g]);
  assert_false(ftx->en.on[o]);
  assert_int_equal(tfx_fusion_enable(&ftx->en, "Opt,,", &f->d), 0);
  assert_true(ftx->en.on[o]);
  assert_int_equal(tfx_fusion_enable(&ftx->en, "Nope,Opt,Zap", &f->d), TFX_EXIT_USAGE);
  assert_int_equal(f->d.errors, 2);
  assert_true(ft_diag_has(&f->d, "unknown scope-fusion pass 'Nope' (known: Gen, Opt)"));
  tfx_strbuf rest;
  tfx_sb_init(&rest);
  assert_int_equal(tfx_fusion_disable(&ftx->en, "prune,Gen,emit-tf", &rest, &f->d), 0);
  assert_false(ftx->en.on[g]);
  assert_string_equal(tfx_sb_cstr(&rest), "prune,emit-tf");
  tfx_sb_free(&rest);
  assert_int_equal(tfx_fusion_disable(&ftx->en, "prune", NULL, &f->d), TFX_EXIT_USAGE);
  tfx_fusion_graph_report *gr = ft_run(f);
  assert_int_equal(gr->n_passes, 1); /* only Opt runs */
  assert_string_equal(gr->passes[0].name, "Opt");
  assert_int_equal(tfx_fusion_find_pass(&f->p, "Opt", 3), o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(layering_and_rollback, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(no_descend_root_never_tested, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(pattern_overwrite_order, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(subtypes_persist_across_passes, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(preset_subtypes_seen, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(keys_of_many_children, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(require_false_clears, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(same_name_replaces, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(invalid_result_dropped, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(invalid_type_dropped, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(multi_check, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(multi_check_duplicate, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(children_and_maps, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(json_report, ft_setup, ft_teardown),
      cmocka_unit_test_setup_teardown(enable_disable, ft_setup, ft_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
