#!/usr/bin/env bash
# CLI test: dataflow rewrites (docs/LANGUAGE.md §7): switching by name (--disable-pass REWRITE,
# --disable-pass dataflow, --enable-scope-fusion-passes), the --report section, list-rules kind
# flow, explain --rule REWRITE --node (matches / usage errors), rule errors (exit 4 with
# locations), byte-identical output over two runs, and the round limit on rules that undo each
# other (warning, "capped", the run still succeeds and terminates), and explain past 64 failed
# tests (the VM keeps every failure, so the nearest partial match is the furthest of all), and
# the inputs of rewired readers: repeated control inputs are dropped (those the round rewrote
# to the new node and those that were repeats already), a data input read twice stays twice.
# Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
SRC="${TFXC_SRC:?set TFXC_SRC to the repo root}"
M="$SRC/tests/golden/cases/dataflow-flat-pos/model.pbtxt"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
applied() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])).get("dataflow"); print("none" if d is None else ",".join(a["rule"] for a in d["applied"]))' "$1"; }

"$TFXC" "$M" --emit tf-pbtxt -o a.pbtxt --report a.json 2>err || { echo "FAIL: default run"; cat err; fail=1; }
[ "$(applied a.json)" = "MatMulBiasAddFusion,MatMulBiasAddFusion,Conv2DBiasAddFusion,SwishFusion,GeluTanhFusion" ] ||
  { echo "FAIL: default rewrites: $(applied a.json)"; fail=1; }
"$TFXC" "$M" --emit tf-pbtxt -o b.pbtxt 2>err && cmp -s a.pbtxt b.pbtxt || { echo "FAIL: two runs differ"; fail=1; }
"$TFXC" "$M" --emit tf-pbtxt -o c.pbtxt --report c.json --disable-pass MatMulBiasAddFusion,SwishFusion 2>err ||
  { echo "FAIL: --disable-pass REWRITE"; cat err; fail=1; }
[ "$(applied c.json)" = "Conv2DBiasAddFusion,GeluTanhFusion" ] || { echo "FAIL: disabled rewrites ran: $(applied c.json)"; fail=1; }
grep -q 'op: "BiasAdd"' c.pbtxt || { echo "FAIL: BiasAdd should stay with MatMulBiasAddFusion off"; fail=1; }
"$TFXC" "$M" --emit tf-pbtxt -o d.pbtxt --report d.json --disable-pass dataflow 2>err || { echo "FAIL: --disable-pass dataflow"; fail=1; }
[ "$(applied d.json)" = none ] || { echo "FAIL: the dataflow pass ran although disabled"; fail=1; }
"$TFXC" "$M" -o e.air --disable-pass NoSuchRewrite 2>err; rc=$?
[ $rc = 2 ] && grep -q "unknown pass 'NoSuchRewrite'.*GeluTanhFusion" err || { echo "FAIL: unknown rewrite name: exit $rc"; cat err; fail=1; }
[ ! -e e.air ] || { echo "FAIL: output written after a usage error"; fail=1; }

# list-rules: kind flow, root types -> new type
"$TFXC" list-rules --json >lr.json 2>err || { echo "FAIL: list-rules"; fail=1; }
python3 - lr.json <<'PY' || { echo "FAIL: list-rules rewrites"; fail=1; }
import json, sys
r = {x["name"]: x for x in json.load(open(sys.argv[1]))}
m = r["MatMulBiasAddFusion"]
assert m["kind"] == "flow" and m["general"] is True and m["from"] == ["BiasAdd"] and m["to"] == "MatMul", m
assert m["source"].startswith("<stdlib>/fusion/20-dataflow.scoperule:"), m
PY

# explain
"$TFXC" explain "$M" --rule SwishFusion --node swish >ex.txt 2>err || { echo "FAIL: explain --node"; cat err; fail=1; }
grep -q "matches: all 9 tests pass" ex.txt || { echo "FAIL: explain of a match"; cat ex.txt; fail=1; }
"$TFXC" explain "$M" --rule SwishFusion --node sig >ex2.txt 2>err || { echo "FAIL: explain of a non-candidate"; fail=1; }
grep -q "not a candidate: the root is Mul" ex2.txt && grep -q 'failed: m: op is Mul' ex2.txt ||
  { echo "FAIL: explain of a non-candidate"; cat ex2.txt; fail=1; }
for bad in "--rule SwishFusion" "--rule SwishFusion --node nosuch" "--rule ScopeLayerNormPass --node swish" \
           "--scope root --node swish"; do
  # shellcheck disable=SC2086
  "$TFXC" explain "$M" $bad >/dev/null 2>err; rc=$?
  [ $rc = 2 ] || { echo "FAIL: explain $bad: exit $rc, want 2"; cat err; fail=1; }
done

# rule errors: exit 4 with file:line:col
cat >bad.scoperule <<'R'
rewrite Bad {
  match a: Add(a, x);
  out a = zz;
}
R
"$TFXC" compile --no-stdlib bad.scoperule -o bad.tfxb 2>err; rc=$?
[ $rc = 4 ] && grep -q "bad.scoperule:2:16: error: matched node 'a' cannot read its own output" err &&
  grep -q "bad.scoperule:3:11: error: unknown name 'zz'" err || { echo "FAIL: rewrite errors: exit $rc"; cat err; fail=1; }

# two rewrites that undo each other: the pass stops at its round limit and says so
cat >flip.scoperule <<'R'
rewrite ReluToRelu6 general { match a: Relu(x); node n: Relu6(x) { attr T = a.attr.T; } out a = n; }
rewrite Relu6ToRelu general { match a: Relu6(x); node n: Relu(x) { attr T = a.attr.T; } out a = n; }
R
cat >flip.pbtxt <<'R'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "Identity" input: "r" attr { key: "T" value { type: DT_FLOAT } } }
R
"$TFXC" flip.pbtxt --no-stdlib -r flip.scoperule --emit tf-pbtxt -o flip.out --report flip.json 2>err ||
  { echo "FAIL: flip run"; cat err; fail=1; }
grep -q "still change the graph after 64 rounds" err || { echo "FAIL: no round-limit warning"; cat err; fail=1; }
python3 -c 'import json,sys; d=json.load(open("flip.json"))["dataflow"]; sys.exit(not (d["capped"] and d["rounds"] == 64 and len(d["applied"]) == 64))' ||
  { echo "FAIL: flip report"; fail=1; }
# explain looks at every failed test: 7 commutative Muls give 128 operand orders; 127 fail at
# the leaf's type and only the last one gets as far as the `where` (more failures than the
# VM's first 64-entry list holds)
{
  echo 'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }'
  echo 'node { name: "L7" op: "Sigmoid" input: "x" attr { key: "T" value { type: DT_FLOAT } } }'
  echo 'node { name: "R7" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }'
  for i in 6 5 4 3 2 1 0; do
    j=$((i + 1))
    [ $i -gt 0 ] && echo "node { name: \"L$i\" op: \"Mul\" input: \"L$j\" input: \"L$j\" attr { key: \"T\" value { type: DT_FLOAT } } }"
    echo "node { name: \"R$i\" op: \"Mul\" input: \"L$j\" input: \"R$j\" attr { key: \"T\" value { type: DT_FLOAT } } }"
  done
  echo 'node { name: "y" op: "Identity" input: "R0" attr { key: "T" value { type: DT_FLOAT } } }'
} >deep.pbtxt
{
  echo 'rewrite Deep {'
  for i in 0 1 2 3 4 5; do echo "  match m$i: Mul(m$((i + 1)), a$i);"; done
  echo '  match m6: Mul(z, a6);'
  echo '  match z: Relu(_);'
  echo '  where m0.attr.T == DT_HALF;'
  echo '  node n: Identity(a0) { attr T = m0.attr.T; }'
  echo '  out m0 = n;'
  echo '}'
} >deep.scoperule
"$TFXC" explain deep.pbtxt --no-stdlib -r deep.scoperule --rule Deep --node R0 >deep.txt 2>err || { echo "FAIL: explain deep"; cat err; fail=1; }
grep -q "(128 attempts over commutative operand orders)" deep.txt && grep -q "failed: where m0.attr.T == DT_HALF" deep.txt &&
  grep -q "found: DT_FLOAT" deep.txt || { echo "FAIL: explain past 64 failures"; cat deep.txt; fail=1; }

# rewired readers' inputs (apply drops a control input that repeats one before it; data stays)
cat >ctl.pbtxt <<'R'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "q" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "b" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "a" op: "Neg" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "Identity" input: "a" input: "^a" input: "^a" input: "^x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "z" op: "Identity" input: "x" input: "^a" input: "^q" input: "^a" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "w" op: "AddV2" input: "a" input: "a" input: "^q" input: "^q" attr { key: "T" value { type: DT_FLOAT } } }
R
cat >ctl.scoperule <<'R'
rewrite NegNeg general {
  match a: Neg(b);
  match b: Neg(x);
  node n: Identity(x) { attr T = a.attr.T; }
  out a = n;
}
R
"$TFXC" ctl.pbtxt --no-stdlib -r ctl.scoperule --emit tf-pbtxt -o ctl.out 2>err || { echo "FAIL: ctl run"; cat err; fail=1; }
got=$(python3 -c '
import re, sys
t = open(sys.argv[1]).read()
print(";".join(re.search(r"name: \"([^\"]*)\"", b).group(1) + "=" + ",".join(re.findall(r"input: \"([^\"]*)\"", b))
               for b in re.findall(r"node \{(.*?)\n\}", t, re.S)))' ctl.out)
want='x=;q=;a=x;y=a,^a,^x;z=x,^a,^q;w=a,a,^q'
[ "$got" = "$want" ] || { echo "FAIL: rewired inputs: $got, want $want"; fail=1; }
exit $fail
