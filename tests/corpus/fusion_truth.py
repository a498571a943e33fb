#!/usr/bin/env python3
"""Compares tfxc's scope fusion (`tfxc --report`) with Ascend's ground truth.

For every `<model>.json` of the truth directory (docs/ASCEND.md §9, produced by Huawei's
unmodified scope-fusion code), runs tfxc on the corpus model with every scope pass of the
stdlib enabled and compares, per pass in run order: the status class (changed / not changed /
failed / not run), sub_types_set, sub_types_cleared, the results (name, type, scopes,
extra_nodes, inputs/outputs maps with trailing 99999s stripped, children, inner nodes), then
final_sub_types and final_fusion_results; and the same for every `single_pass_enable` entry
(pass X enabled alone, plus the general passes).

Passes that are not in the loaded rules yet are reported as "not in stdlib yet" and not
compared; they are not passed to --enable-scope-fusion-passes (an unknown name is an error).
--passes A,B (or TFXC_TRUTH_PASSES) compares only those passes (all existing ones still run).

Exit: 0 all compared passes agree, 1 a mismatch (or a run failed), 77 truth or corpus absent.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

DISABLED = 99999


def status_class(s):
    if s is None or s == "NOT_RUN":
        return "not run"
    if s == "SUCCESS":
        return "changed"
    if s == "SCOPE_NOT_CHANGED":
        return "not changed"
    return "failed"


def norm_map(m):
    out = {}
    for k, v in (m or {}).items():
        v = list(v)
        while v and v[-1] == DISABLED:
            v.pop()
        out[k] = v
    return out


def norm_inner(nodes):
    res = []
    for n in nodes or []:
        res.append({"name": n.get("name"), "type": n.get("type"),
                    "inputs": [list(x) for x in n.get("inputs", [])],
                    "outputs": [list(x) for x in n.get("outputs", [])]})
    return sorted(res, key=lambda n: n["name"] or "")


def norm_result(r, children=True):
    d = {"type": r.get("type"), "scopes": list(r.get("scopes", [])),
         "extra_nodes": sorted(r.get("extra_nodes", [])),
         "inputs": norm_map(r.get("inputs")), "outputs": norm_map(r.get("outputs")),
         "inner_nodes": norm_inner(r.get("inner_nodes"))}
    if children:
        d["children"] = sorted(r.get("children", []))
    return d


def subset_pairs(lst, key2):
    return sorted((e["scope"], e.get(key2)) for e in lst or [])


def diff_list(label, want, got, out):
    """Appends a precise diff of two sorted lists of hashables."""
    ws, gs = set(want), set(got)
    miss = [x for x in want if x not in gs]
    extra = [x for x in got if x not in ws]
    if not miss and not extra and list(want) == list(got):
        return
    if not miss and not extra:
        out.append("%s: same elements, different order: want %s, got %s" % (label, want, got))
        return
    out.append("%s: %d expected, %d got" % (label, len(want), len(got)))
    for x in miss[:20]:
        out.append("  - missing %s" % (x,))
    if len(miss) > 20:
        out.append("  - ... %d more missing" % (len(miss) - 20))
    for x in extra[:20]:
        out.append("  + unexpected %s" % (x,))
    if len(extra) > 20:
        out.append("  + ... %d more unexpected" % (len(extra) - 20))


def diff_results(want, got, out, children=True):
    wn = {r["name"]: r for r in want or []}
    gn = {r["name"]: r for r in got or []}
    diff_list("results (names)", sorted(wn), sorted(gn), out)
    for name in sorted(set(wn) & set(gn)):
        a, b = norm_result(wn[name], children), norm_result(gn[name], children)
        for f in a:
            if a[f] != b[f]:
                if isinstance(a[f], list) and all(isinstance(x, str) for x in a[f] + b[f]):
                    sub = []
                    diff_list("result %r %s" % (name, f), a[f], b[f], sub)
                    out.extend(sub)
                elif isinstance(a[f], dict):
                    for k in sorted(set(a[f]) | set(b[f])):
                        if a[f].get(k) != b[f].get(k):
                            out.append("result %r %s[%r]: want %s, got %s" %
                                       (name, f, k, a[f].get(k), b[f].get(k)))
                else:
                    out.append("result %r %s: want %s, got %s" % (name, f, a[f], b[f]))


def run_tfxc(tfxc, model, enable, workdir, tag):
    rep = os.path.join(workdir, tag + ".json")
    # Ascend's semantics: an input a result does not export is dropped, not an error
    cmd = [tfxc, "--report", rep, "--emit", "tf-pbtxt", "-o", "/dev/null", "-q",
           "--allow-dangling-inputs"]
    if enable:
        cmd += ["--enable-scope-fusion-passes", ",".join(enable)]
    cmd.append(model)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not os.path.exists(rep):
        return None, "tfxc exit %d, no report: %s" % (p.returncode, p.stderr.strip()[:500])
    with open(rep) as f:
        r = json.load(f)
    sf = r.get("scope_fusion")
    graphs = (sf or {}).get("graphs") or []
    main = next((g for g in graphs if g.get("graph") == ""), None)
    return {"main": main, "exit": p.returncode, "stderr": p.stderr}, None


def loaded_passes(tfxc):
    p = subprocess.run([tfxc, "list-rules", "--json"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("tfxc list-rules failed: " + p.stderr)
    rules = json.loads(p.stdout)
    return [(r["name"], bool(r.get("general"))) for r in rules if r.get("kind") == "scope"]


def compare_model(args, truth_path, existing, compared, workdir):
    with open(truth_path) as f:
        t = json.load(f)
    lines = []
    model = os.path.join(args.models, t["graph"])
    stem = os.path.basename(truth_path)
    if not os.path.exists(model):
        return stem, ["SKIP: model %s not in the corpus" % t["graph"]], 0, 0
    fails = 0
    npass = 0
    enable = [n for n, g in existing]
    run, err = run_tfxc(args.tfxc, model, enable, workdir, stem + ".all")
    if err:
        return stem, ["FAIL: " + err], 1, 0
    g = run["main"] or {"passes": [], "final_sub_types": [], "final_fusion_results": []}
    got_passes = {p["pass"]: p for p in g.get("passes", [])}
    # the last pass touching each scope (sub_types), on each side
    def last_touch(passes):
        lt = {}
        for p in passes:
            for e in p.get("sub_types_set", []) + p.get("sub_types_cleared", []):
                lt[e["scope"]] = p["pass"]
        return lt
    for tp in t["passes"]:
        name = tp["pass"]
        if name not in compared:
            continue
        npass += 1
        gp = got_passes.get(name)
        out = []
        ws, gs = status_class(tp["status"]), status_class(gp["status"] if gp else None)
        if ws != gs:
            out.append("status: want %s (%s), got %s (%s)" %
                       (ws, tp["status"], gs, gp["status"] if gp else "not run"))
        gp = gp or {}
        diff_list("sub_types_set", subset_pairs(tp.get("sub_types_set"), "sub_type"),
                  subset_pairs(gp.get("sub_types_set"), "sub_type"), out)
        diff_list("sub_types_cleared",
                  subset_pairs(tp.get("sub_types_cleared"), "previous_sub_type"),
                  subset_pairs(gp.get("sub_types_cleared"), "previous_sub_type"), out)
        diff_results(tp.get("results"), gp.get("results"), out)
        if out:
            fails += 1
            lines.append("MISMATCH %s: %s" % (stem, name))
            lines.extend("    " + x for x in out)
        else:
            lines.append("ok       %s: %s (%s, %d results)" %
                         (stem, name, tp["status"], len(tp.get("results", []))))
    # final state, restricted to what the compared passes decided
    lt_t, lt_g = last_touch(t["passes"]), last_touch(g.get("passes", []))
    # (a scope whose truth history ends in a skipped pass is left out: that pass decided it)
    scopes = {s for s, p in lt_t.items() if p in compared} | \
             {s for s, p in lt_g.items() if p in compared and s not in lt_t}
    wf = {e["scope"]: e["sub_type"] for e in t.get("final_sub_types", [])}
    gf = {e["scope"]: e["sub_type"] for e in g.get("final_sub_types", [])}
    out = []
    diff_list("final_sub_types", sorted((s, wf[s]) for s in scopes if s in wf),
              sorted((s, gf[s]) for s in scopes if s in gf), out)
    diff_list("final_fusion_results",
              sorted((e["name"], e["type"], e["pass"]) for e in t.get("final_fusion_results", [])
                     if e["pass"] in compared),
              sorted((e["name"], e["type"], e["pass"]) for e in g.get("final_fusion_results", [])
                     if e["pass"] in compared), out)
    if out:
        fails += 1
        lines.append("MISMATCH %s: final state" % stem)
        lines.extend("    " + x for x in out)
    else:
        lines.append("ok       %s: final_sub_types, final_fusion_results" % stem)
    # single_pass_enable: X alone (plus the general passes)
    general = [n for n, gen in existing if gen]
    for x, sp in sorted((t.get("single_pass_enable") or {}).items()):
        if x not in compared:
            continue
        npass += 1
        run, err = run_tfxc(args.tfxc, model, [x], workdir, stem + "." + x)
        if err:
            fails += 1
            lines.append("MISMATCH %s: single %s: %s" % (stem, x, err))
            continue
        gs = {p["pass"]: p for p in (run["main"] or {}).get("passes", [])}
        gp = gs.get(x) or {}
        out = []
        ws, gsc = status_class(sp["status"]), status_class(gp.get("status"))
        if ws != gsc:
            out.append("status: want %s (%s), got %s" % (ws, sp["status"], gsc))
        if sp.get("result_types", {}) != gp.get("result_types", {}):
            out.append("result_types: want %s, got %s" % (sp.get("result_types"),
                                                          gp.get("result_types")))
        diff_list("sub_types_set", subset_pairs(sp.get("sub_types_set"), "sub_type"),
                  subset_pairs(gp.get("sub_types_set"), "sub_type"), out)
        diff_results(sp.get("results"), gp.get("results"), out, children=False)
        if out:
            fails += 1
            lines.append("MISMATCH %s: single %s (+ %s)" % (stem, x, ",".join(general)))
            lines.extend("    " + y for y in out)
        else:
            lines.append("ok       %s: single %s (%s, %d results)" %
                         (stem, x, sp["status"], sp.get("result_count", 0)))
    return stem, lines, fails, npass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tfxc", default=os.environ.get("TFXC"))
    ap.add_argument("--truth", default=os.environ.get("TFXC_TRUTH"))
    ap.add_argument("--models", default=None)
    ap.add_argument("--passes", default=os.environ.get("TFXC_TRUTH_PASSES", ""),
                    help="compare only these passes (comma list); default: every pass in "
                         "the loaded rules")
    ap.add_argument("--model", action="append", default=[],
                    help="only truth files whose name contains this (repeatable)")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    corpus = os.environ.get("TFXC_CORPUS")
    src = os.environ.get("TFXC_SRC", ".")
    if not a.truth:
        a.truth = os.path.join(src, "..", "shared", "facts", "ascend-fusion-truth")
    if not a.models:
        a.models = os.path.join(corpus or os.path.join(src, "..", "shared", "corpus"), "models")
    if not a.tfxc:
        sys.exit("set TFXC or --tfxc")
    if not os.path.isdir(a.truth) or not os.path.isdir(a.models):
        print("SKIP: truth (%s) or corpus models (%s) absent" % (a.truth, a.models))
        return 77
    truths = sorted(f for f in os.listdir(a.truth) if f.endswith(".json"))
    if a.model:
        truths = [f for f in truths if any(m in f for m in a.model)]
    if not truths:
        print("SKIP: no truth JSON in %s" % a.truth)
        return 77
    existing = loaded_passes(a.tfxc)
    names = [n for n, _ in existing]
    with open(os.path.join(a.truth, truths[0])) as f:
        order = json.load(f)["enabled_passes"]
    if a.passes:
        want = [p for p in a.passes.split(",") if p]
        bad = [p for p in want if p not in order]
        if bad:
            sys.exit("--passes: unknown pass(es) %s (the truth has %s)" % (bad, ", ".join(order)))
        compared = {p for p in want if p in names}
        absent = [p for p in want if p not in names]
    else:
        compared = {p for p in order if p in names}
        absent = [p for p in order if p not in names]
    print("compared: %s" % ", ".join(p for p in order if p in compared))
    for p in absent:
        print("skipped:  %s (not in stdlib yet)" % p)
    not_selected = [p for p in order if p in names and p not in compared]
    for p in not_selected:
        print("skipped:  %s (not selected; still enabled)" % p)
    total_fail = 0
    total = 0
    with tempfile.TemporaryDirectory() as wd, \
            concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as ex:
        futs = [ex.submit(compare_model, a, os.path.join(a.truth, f), existing, compared, wd)
                for f in truths]
        for fu in futs:
            stem, lines, fails, n = fu.result()
            for ln in lines:
                print(ln)
            total_fail += fails
            total += n
    print("fusion truth: %d models, %d pass comparisons, %d mismatch(es), %d pass(es) not in "
          "stdlib yet" % (len(truths), total, total_fail, len(absent)))
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
