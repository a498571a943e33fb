#!/usr/bin/env bash
# Corpus test: signatures and training machinery on real SavedModels and MetaGraphDefs
# (passes/signature.h, graph/training.h, docs/CLI.md "Signatures and training machinery"):
# - `tfxc inspect` (text and --json) of checkpoints/half_plus_two (TF1, six signatures) and
#   checkpoints/x_plus_y_v2_debuginfo (TF2) against tests/golden/corpus/signatures/;
# - half_plus_two: 65 nodes; the default signature (serving_default) keeps the 7 that y needs,
#   without save/restore, initialisers or assignments; --signature regress_x2_to_y3 keeps x2's
#   path; an unknown name is exit 3 listing the six;
# - x_plus_y_v2_debuginfo (TF2): converts, Data serving_default_x then serving_default_y (key
#   order), NetOutput <- PartitionedCall:0, the two save/restore functions of its library gone;
#   the SimpleWhileLoop SavedModel converts too; GE's loader (../ge_oracle/build/air_load or
#   $AIR_LOAD, when present) accepts both;
# - models/tf2onnx__regression__model.meta (a TF1 training graph, no signatures): pruned from 128
#   to the 19 nodes of the forward graph for a GE output, with no training op left.
# UPDATE=1 rewrites the inspect goldens. Env: TFXC, TFXC_CORPUS, TFXC_SRC; python3.
. "$(dirname "$0")/lib.bash"
: "${TFXC_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
GOLD="$TFXC_SRC/tests/golden/corpus/signatures"
AIR_LOAD=${AIR_LOAD:-$TFXC_SRC/../ge_oracle/build/air_load}
C="$TFXC_CORPUS/checkpoints"
cd "$WORK" || exit 1
mkdir -p "$GOLD" 2>/dev/null

for m in half_plus_two x_plus_y_v2_debuginfo; do
  "$TFXC" inspect "$C/$m" 2>err | sed "s|$TFXC_CORPUS/||" >$m.inspect.txt || fail "$m: inspect exit"
  "$TFXC" inspect --json "$C/$m" >$m.inspect.json 2>>err || fail "$m: inspect --json exit"
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' $m.inspect.json || fail "$m: not JSON"
  for f in $m.inspect.txt $m.inspect.json; do
    if [ "${UPDATE:-0}" = 1 ]; then cp $f "$GOLD/$f"
    else diff -u "$GOLD/$f" $f || fail "$f differs from tests/golden/corpus/signatures/$f (UPDATE=1 rewrites it)"; fi
  done
done

names() { grep -o '^  name: "[^"]*"' "$1" | sed 's/.*"\(.*\)"/\1/' | tr '\n' ' '; }
ops() { grep -o '^  op: "[^"]*"' "$1" | sed 's/.*"\(.*\)"/\1/' | sort | uniq -c | tr -s ' ' | tr '\n' ';'; }
TRAIN_RE='"(SaveV2|RestoreV2|MergeV2Checkpoints|ShardedFilename|Assign|AssignVariableOp|VarIsInitializedOp|ApplyGradientDescent|ScalarSummary)"'

# half_plus_two: 65 -> 7 nodes with the default signature
H="$C/half_plus_two"
"$TFXC" inspect "$H" | grep -q '^nodes:      65$' || fail "half_plus_two: not 65 nodes before pruning"
"$TFXC" fmt "$H" -o whole.pbtxt 2>err || fail "half_plus_two: fmt"
grep -Eq "^  op: $TRAIN_RE" whole.pbtxt || fail "half_plus_two: no save/restore machinery before pruning"
"$TFXC" "$H" --emit tf-pbtxt -o h.pbtxt 2>err || fail "half_plus_two: exit $?: $(head -c 300 err)"
[ "$(names h.pbtxt)" = "x a a/read b b/read Mul y " ] || fail "half_plus_two: kept '$(names h.pbtxt)'"
grep -Eq "^  op: $TRAIN_RE" h.pbtxt && fail "half_plus_two: training machinery left: $(ops h.pbtxt)"
"$TFXC" "$H" --signature regress_x2_to_y3 --emit tf-pbtxt -o h2.pbtxt 2>err || fail "regress_x2_to_y3: exit $?"
[ "$(names h2.pbtxt)" = "x2 a a/read c c/read Mul_2 y3 " ] || fail "regress_x2_to_y3: kept '$(names h2.pbtxt)'"
"$TFXC" "$H" --signature serve -o e.air 2>err; rc=$?
[ "$rc" = 3 ] || fail "unknown signature: exit $rc, want 3"
grep -q "available: 'classify_x2_to_y3', 'classify_x_to_y', 'regress_x2_to_y3', 'regress_x_to_y', 'regress_x_to_y2', 'serving_default'" err ||
  fail "unknown signature: message $(head -c 300 err)"
[ ! -e e.air ] || fail "unknown signature: wrote e.air"

# TF2: x + y
X="$C/x_plus_y_v2_debuginfo"
"$TFXC" inspect "$X" | grep -q '^functions:  4$' || fail "x_plus_y: not 4 library functions before pruning"
"$TFXC" "$X" --emit air,ge-json,tf-pbtxt -o xy 2>err || fail "x_plus_y: exit $?: $(head -c 300 err)"
python3 - xy.ge.json <<'PY' || fail "x_plus_y: Data / NetOutput"
import json, sys
g = json.load(open(sys.argv[1]))["graph"][0]
data = [(op["name"], op["attr"]["index"]["i"]) for op in g["op"] if op["type"] == "Data"]
assert data == [("serving_default_x", "0"), ("serving_default_y", "1")], data
no = [op for op in g["op"] if op["type"] == "NetOutput"]
assert len(no) == 1 and no[0]["input"] == ["PartitionedCall:0"], no
PY
[ "$(grep -c '^    signature {' xy.tf.pbtxt)" = 2 ] || fail "x_plus_y: expected 2 library functions after pruning"
grep -q 'name: "__inference__traced_save' xy.tf.pbtxt && fail "x_plus_y: the save function is still in the library"
W="$TFXC_CORPUS/tf_testdata/c__experimental__saved_model__internal__testdata__SimpleWhileLoop__saved_model.pb"
"$TFXC" "$W" -o w.air 2>err || fail "SimpleWhileLoop: exit $?: $(head -c 300 err)"
if [ -x "$AIR_LOAD" ]; then
  for a in xy.air w.air; do "$AIR_LOAD" $a >ge.txt 2>&1 || fail "GE loader refuses $a: $(tail -2 ge.txt)"; done
else
  echo "note: GE loader not found at $AIR_LOAD; its check skipped"
fi

# TF1 training graph without signatures: the forward graph only, for a GE output
R="$TFXC_CORPUS/models/tf2onnx__regression__model.meta"
"$TFXC" inspect "$R" | grep -q '^nodes:      128$' || fail "regression: not 128 nodes before pruning"
"$TFXC" "$R" --dump-after prune --dump-dir dd -o r.air 2>err
n=$(grep -c '^node {' dd/*-prune.pbtxt)
[ "$n" = 19 ] || fail "regression: $n nodes after pruning, want 19"
grep -Eq "^  op: $TRAIN_RE" dd/*-prune.pbtxt && fail "regression: training machinery left: $(ops dd/*-prune.pbtxt)"
grep -q 'name: "gradients/' dd/*-prune.pbtxt && fail "regression: gradient nodes left"
grep -q 'name: "truediv"' dd/*-prune.pbtxt || fail "regression: the output truediv is gone"
[ "$FAILS" = 0 ] && echo "PASS: signatures and training machinery on the corpus"
exit $((FAILS > 0))
