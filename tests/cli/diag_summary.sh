#!/usr/bin/env bash
# Diagnostics a user can act on (issue 12 item 9). A graph with 150 VariableV2 (each read by an
# Identity), 120 RestoreV2 and 60 nodes of an unknown type FooBarOp, plus one SoftMax. The
# RestoreV2 nodes are checkpoint machinery no output needs: the prune pass removes them. The
# variables have no weights: without --no-freeze one error says so first (pass freeze); the
# grouping is checked with --no-freeze, where they are plain unsupported nodes:
#  - the conversion prints one error per group (type and cause) with its count, an example
#    node and the hint, largest group first, then one note; never a line per node;
#  - runtime-only types get a cause hint instead of "did you mean" ('Variable', 'ResizeV2');
#  - --check prints the same summary on stderr while its JSON report still lists every node;
#  - -v prints one line per node; --passthrough-unknown groups its warnings the same way.
# Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
python3 - "$T/m.pbtxt" <<'PY'
import sys
f = open(sys.argv[1], "w")
for i in range(150):
    f.write('node { name: "w%d" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } '
            'attr { key: "shape" value { shape { dim { size: 2 } } } } }\n' % i)
    f.write('node { name: "r%d" op: "Identity" input: "w%d" attr { key: "T" value { type: DT_FLOAT } } }\n' % (i, i))
f.write('node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } } '
        'attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "m" } } } }\n')
for i in range(120):
    f.write('node { name: "save/RestoreV2_%d" op: "RestoreV2" input: "save/Const" input: "save/Const" '
            'input: "save/Const" attr { key: "dtypes" value { list { type: DT_FLOAT } } } }\n' % i)
for i in range(60):
    f.write('node { name: "foo%d" op: "FooBarOp" input: "r0" }\n' % i)
f.write('node { name: "probs" op: "SoftMax" input: "r1" attr { key: "T" value { type: DT_FLOAT } } }\n')
PY
"$TFXC" "$T/m.pbtxt" -o "$T/m.air" 2>"$T/e0"; rc=$?
[ "$rc" -eq 1 ] || bad "conversion without weights: exit $rc, want 1"
sed -n 1p "$T/e0" | grep -qF "error: 150 variable nodes (first: 'w0') would reach lowering without weights: no checkpoint found" ||
  bad "without --no-freeze the first line is not the missing-weights error: $(sed -n 1p "$T/e0")"
grep -q RestoreV2 "$T/e0" && bad "pruned save/restore machinery reported"

"$TFXC" --no-freeze "$T/m.pbtxt" -o "$T/m.air" 2>"$T/e1"; rc=$?
[ "$rc" -eq 1 ] || bad "conversion exit $rc, want 1"
[ -e "$T/m.air" ] && bad "an .air was written"
n=$(grep -c ': error: ' "$T/e1")
[ "$n" -eq 3 ] || { bad "conversion: $n error lines, want 3 (one per group)"; head -5 "$T/e1"; }
sed -n 1p "$T/e1" | grep -qF "error: 150 nodes of op type 'VariableV2' are not supported: no op map and no CANN prototype of that name; the graph still holds variables: give it weights (--checkpoint / a SavedModel directory) or freeze it (e.g. node 'w0')" ||
  bad "first line is not the VariableV2 group: $(sed -n 1p "$T/e1")"
sed -n 2p "$T/e1" | grep -qF "error: 60 nodes of op type 'FooBarOp' are not supported" ||
  bad "second line is not the FooBarOp group: $(sed -n 2p "$T/e1")"
sed -n 3p "$T/e1" | grep -qF "error: node 'probs': op type 'SoftMax' is not supported: no op map and no CANN prototype of that name; did you mean the CANN type 'SoftmaxV2'" ||
  bad "a group of one is not the per-node message: $(sed -n 3p "$T/e1")"
grep -qE "did you mean the CANN type '(Variable|ResizeV2)'" "$T/e1" && bad "misleading 'did you mean' for a runtime-only op"
grep -qF "note: 211 nodes cannot be converted" "$T/e1" || bad "no closing note with the total"
[ "$(wc -l <"$T/e1")" -eq 4 ] || bad "conversion printed $(wc -l <"$T/e1") lines, want 4"

"$TFXC" --no-freeze --check "$T/m.pbtxt" >"$T/r.json" 2>"$T/e2"; rc=$?
[ "$rc" -eq 1 ] || bad "--check exit $rc, want 1"
diff <(grep ': error: ' "$T/e1") <(grep ': error: ' "$T/e2") >/dev/null || bad "--check's summary differs from the conversion's"
grep -qF "note: 211 nodes fail the precheck" "$T/e2" || bad "--check: no closing note"
python3 - "$T/r.json" <<'PY' || bad "--check report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["result"] == "failed" and r["fail"] == 211 and r["total"] == 361, (r["fail"], r["total"])
ops = {o["name"]: o for o in r["op"]}
assert len(ops) == 361
assert "still holds variables" in ops["w7"]["hint"], ops["w7"]
assert "save/RestoreV2_3" not in ops
assert ops["w7"]["cause"] == [{"code": 1, "message": "The type is not supported."}], ops["w7"]
PY

"$TFXC" --no-freeze -v "$T/m.pbtxt" -o "$T/m.air" 2>"$T/e3"
n=$(grep -c ': error: node ' "$T/e3")
[ "$n" -eq 211 ] || bad "-v: $n per-node error lines, want 211"

"$TFXC" --no-freeze --passthrough-unknown "$T/m.pbtxt" -o "$T/m.air" 2>"$T/e4"
grep -qF "warning: 150 nodes of op type 'VariableV2' have no CANN mapping; kept as 'VariableV2' (--passthrough-unknown); the graph still holds variables" "$T/e4" ||
  bad "--passthrough-unknown: no grouped VariableV2 warning"
[ "$(grep -c "have no CANN mapping\|has no CANN mapping" "$T/e4")" -eq 3 ] || bad "--passthrough-unknown: want 3 grouped warnings"

[ "$fail" -eq 0 ] && echo "OK: grouped diagnostics"
exit "$fail"
