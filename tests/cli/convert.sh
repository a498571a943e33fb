#!/usr/bin/env bash
# CLI test: the convert command with --emit tf-pbtxt: default output name, -o, -v/-q,
# --input-format accepted values, SavedModel --tag, --report. Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
mkdir sub
cat >sub/net.v1.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "s/y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
PB
# Default output: <model stem>.tf.pbtxt in the working directory.
"$TFXC" sub/net.v1.pbtxt --emit tf-pbtxt >out 2>err || { echo "FAIL: convert exited $?"; cat err; fail=1; }
[ -f net.v1.tf.pbtxt ] || { echo "FAIL: net.v1.tf.pbtxt not written: $(ls)"; fail=1; }
[ -s out ] && { echo "FAIL: convert printed to stdout"; fail=1; }
[ -s err ] && { echo "FAIL: a quiet successful run wrote to stderr"; cat err; fail=1; }
grep -q 'name: "s/y"' net.v1.tf.pbtxt || { echo "FAIL: output content"; fail=1; }
# -o FILE; -v reports what was written; equal to fmt's canonical text.
"$TFXC" -v --emit tf-pbtxt -o o.pbtxt sub/net.v1.pbtxt 2>err || { echo "FAIL: -o"; cat err; fail=1; }
grep -q "wrote o.pbtxt" err || { echo "FAIL: -v does not report the output"; cat err; fail=1; }
"$TFXC" fmt sub/net.v1.pbtxt -o canon.pbtxt 2>/dev/null
cmp -s o.pbtxt canon.pbtxt || { echo "FAIL: --emit tf-pbtxt differs from fmt output"; fail=1; }
"$TFXC" --emit=tf-pbtxt --output=eq.pbtxt sub/net.v1.pbtxt 2>/dev/null && [ -f eq.pbtxt ] ||
  { echo "FAIL: --opt=value form"; fail=1; }
"$TFXC" --emit tf-pbtxt -oshort.pbtxt sub/net.v1.pbtxt 2>/dev/null && [ -f short.pbtxt ] ||
  { echo "FAIL: -oFILE form"; fail=1; }
# Every valid --input-format is accepted.
for f in NCHW NHWC ND NCDHW NDHWC; do
  "$TFXC" --input-format $f --emit tf-pbtxt -o f.pbtxt sub/net.v1.pbtxt 2>err || { echo "FAIL: --input-format $f"; cat err; fail=1; }
done
# -- ends options (a model whose name starts with '-').
cp sub/net.v1.pbtxt ./-dash.pbtxt
"$TFXC" --emit tf-pbtxt -o dash.out -- -dash.pbtxt 2>err || { echo "FAIL: -- before a dash model"; cat err; fail=1; }
# SavedModel directory with --tag.
mkdir -p sm
cat >sm/saved_model.pbtxt <<'PB'
saved_model_schema_version: 1
meta_graphs { meta_info_def { tags: "train" } graph_def { node { name: "t" op: "NoOp" } } }
meta_graphs { meta_info_def { tags: "serve" } graph_def { node { name: "s" op: "NoOp" } } }
PB
"$TFXC" sm --emit tf-pbtxt --tag train 2>err || { echo "FAIL: SavedModel --tag train"; cat err; fail=1; }
grep -q 'name: "t"' sm.tf.pbtxt 2>/dev/null || { echo "FAIL: --tag train did not pick the train graph"; fail=1; }
"$TFXC" sm --emit tf-pbtxt -o serve.pbtxt 2>err || { echo "FAIL: SavedModel default tag"; cat err; fail=1; }
grep -q 'name: "s"' serve.pbtxt 2>/dev/null || { echo "FAIL: default tag is not serve"; fail=1; }
# --report FILE: the JSON report (docs/CLI.md "Report"), with the stdlib's LayerNorm fusing the
# example model; standalone with -o /dev/null; "scope_fusion": null without rules.
EX="${TFXC_SRC:+$TFXC_SRC/examples/dense_layernorm/model.pbtxt}"
if [ -n "$EX" ] && [ -f "$EX" ] && command -v python3 >/dev/null; then
  "$TFXC" --report r.json --emit tf-pbtxt -o /dev/null "$EX" 2>err || { echo "FAIL: --report"; cat err; fail=1; }
  python3 - r.json <<'PY' || { echo "FAIL: --report content"; fail=1; }
import json, sys
r = json.load(open(sys.argv[1]))
assert list(r) == ["tfxc_report", "model", "exit_code", "scope_fusion", "dataflow"], list(r)
d = r["dataflow"]  # the stdlib's MatMulBiasAddFusion takes dense/MatMul + dense/BiasAdd
assert d["rounds"] == 2 and d["rejected"] == 0 and d["capped"] is False, d
assert d["applied"] == [{"rule": "MatMulBiasAddFusion", "graph": "", "round": 1, "root": "dense/BiasAdd",
                         "matched": ["dense/BiasAdd", "dense/MatMul"], "dropped": [],
                         "replacement": [{"name": "dense/BiasAdd", "type": "MatMul"}]}], d["applied"]
assert r["tfxc_report"] == 1 and r["exit_code"] == 0
g = r["scope_fusion"]["graphs"][0]
assert g["graph"] == "" and "ScopeLayerNormPass" in g["enabled_passes"]
p = next(p for p in g["passes"] if p["pass"] == "ScopeLayerNormPass")
assert p["status"] == "SUCCESS" and p["result_types"] == {"LayerNorm": 1}, p["status"]
res = p["results"][0]
assert res["name"] == "dense/LayerNorm/", res["name"]
assert res["inputs"]["batchnorm/mul_1"] == [0, 99999], res["inputs"]
assert g["final_fusion_results"] == [{"name": "dense/LayerNorm/", "type": "LayerNorm", "pass": "ScopeLayerNormPass"}]
assert g["applied"] is True
PY
  "$TFXC" --report r2.json --no-stdlib --emit tf-pbtxt -o /dev/null "$EX" 2>err || { echo "FAIL: --report --no-stdlib"; cat err; fail=1; }
  python3 -c 'import json,sys; r=json.load(open("r2.json")); sys.exit(r["scope_fusion"] is not None or "dataflow" in r)' ||
    { echo "FAIL: --report without rules: scope_fusion should be null"; fail=1; }
  mkdir rdir
  "$TFXC" --report rdir --emit tf-pbtxt -o /dev/null "$EX" 2>err; rc=$?
  [ $rc = 2 ] || { echo "FAIL: --report DIR: exit $rc, want 2"; fail=1; }
fi
exit $fail
