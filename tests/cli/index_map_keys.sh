#!/usr/bin/env bash
# Index-map keys are checked when a fusion result is committed (issue 12 item 1): the
# LayerNorm scope rule with the typo `input "batchnorm/mull"` used to fuse a LayerNorm whose
# gamma slot received beta and an `input: ""` (exit 0, also --check). Now: exit 1 with an
# error at the statement's file:line:col naming the pass, the result and the key, nothing
# written; `optional input` on that key leaves fused input 1 unfed, which is a gap (exit 1);
# an optional key that matches nothing after the last port converts like the stdlib rule.
# Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
SRC="${TFXC_SRC:?set TFXC_SRC to the repo root}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
M="$SRC/examples/dense_layernorm/model.pbtxt"
LN="$SRC/stdlib/fusion/02-layer_norm.scoperule"

sed 's|input "batchnorm/mul" {|input "batchnorm/mull" {|' "$LN" >"$T/typo.scoperule"
# the map of the branch this model takes (gamma on port 1 of batchnorm/mul)
line=$(grep -n 'input "batchnorm/mull" { 0 -> none, 1 -> 1 }' "$T/typo.scoperule" | cut -d: -f1)
[ -n "$line" ] || { echo "FAIL: no typo line"; exit 1; }
for mode in convert check; do
  if [ $mode = convert ]; then
    "$TFXC" "$M" -r "$T/typo.scoperule" --emit ge-pbtxt -o "$T/out.ge.pbtxt" >/dev/null 2>"$T/err"
  else
    "$TFXC" "$M" -r "$T/typo.scoperule" --check >/dev/null 2>"$T/err"
  fi
  rc=$?
  if [ $rc -ne 1 ] || ! grep -q "typo.scoperule:$line:7: error: scope pass 'ScopeLayerNormPass': fusion result 'dense/LayerNorm/' (type LayerNorm): input key \"batchnorm/mull\" matches no node of the result (14 nodes); fix the key, or write 'optional input' if it may be absent" "$T/err"; then
    echo "FAIL: $mode with a key typo: exit $rc"; cat "$T/err"; fail=1
  else
    echo "ok: $mode fails on the key typo at its statement"
  fi
done
[ -e "$T/out.ge.pbtxt" ] && { echo "FAIL: output written"; fail=1; }

# Marked optional, the key matches nothing and fused input 1 stays a gap.
sed 's|input "batchnorm/mul" {|optional input "batchnorm/mull" {|' "$LN" >"$T/opt.scoperule"
"$TFXC" "$M" -r "$T/opt.scoperule" -o "$T/out.air" >/dev/null 2>"$T/err"; rc=$?
if [ $rc -ne 1 ] || ! grep -q "opt.scoperule:[0-9]*:[0-9]*: error: scope pass 'ScopeLayerNormPass': fusion result 'dense/LayerNorm/' (type LayerNorm): fused input 1 is given by no index map, but input 2 is" "$T/err"; then
  echo "FAIL: optional key leaving a gap: exit $rc"; cat "$T/err"; fail=1
else
  echo "ok: an unmatched optional key that leaves a gap fails"
fi

# An optional key past the last port that matches nothing: same output as the stdlib rule.
sed 's|^    input "batchnorm/sub" { 0 -> 2, 1 -> none };|&\n    optional input "batchnorm/no_such_node" { 0 -> 3 };|' "$LN" >"$T/tail.scoperule"
grep -q no_such_node "$T/tail.scoperule" || { echo "FAIL: no optional tail line"; exit 1; }
"$TFXC" "$M" --emit ge-pbtxt -o "$T/std.ge.pbtxt" 2>"$T/err" || { echo "FAIL: stdlib conversion"; cat "$T/err"; fail=1; }
"$TFXC" "$M" -r "$T/tail.scoperule" --emit ge-pbtxt -o "$T/tail.ge.pbtxt" 2>"$T/err" || { echo "FAIL: optional tail key"; cat "$T/err"; fail=1; }
cmp -s "$T/std.ge.pbtxt" "$T/tail.ge.pbtxt" && echo "ok: an unmatched trailing optional key changes nothing" ||
  { echo "FAIL: the optional tail key changed the output"; fail=1; }
# The stdlib rule wires x, gamma, beta into the LayerNorm.
grep -A5 'type: "LayerNorm"' "$T/std.ge.pbtxt" | grep '^ *input:' | tr -d ' ' >"$T/ln_inputs"
printf 'input:"%s"\n' dense/BiasAdd:0 dense/LayerNorm/gamma:0 dense/LayerNorm/beta:0 | cmp -s - "$T/ln_inputs" ||
  { echo "FAIL: LayerNorm inputs"; cat "$T/ln_inputs"; fail=1; }
exit $fail
