#!/usr/bin/env bash
# Issue 12 item 11, `tfxc test`: a case with no expectation file fails ("nothing to compare")
# instead of passing, and --update fills it; an explain file may limit expected.explain to the
# passes under test with `explain --pass A,B`, so other rules (the stdlib's) do not appear in
# it; --pass names are checked. Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
SRC=${TFXC_SRC:?set TFXC_SRC to the repo root}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
M=$SRC/examples/dense_layernorm/model.pbtxt
mkdir -p "$T/s/bare" "$T/s/x"
cp "$M" "$T/s/bare/model.pbtxt"
# 1. nothing to compare
"$TFXC" test "$T/s/bare" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: a case without expectations: exit $rc, want 1"; cat "$T/out"; fail=1; }
grep -q "^FAIL $T/s/bare" "$T/out" && grep -q "nothing to compare" "$T/out" ||
  { echo "FAIL: no 'nothing to compare' report:"; cat "$T/out"; fail=1; }
grep -q "0 passed, 1 failed" "$T/out" || { echo "FAIL: summary"; cat "$T/out"; fail=1; }
"$TFXC" test --update "$T/s/bare" >"$T/out" 2>&1 || { echo "FAIL: --update"; cat "$T/out"; fail=1; }
[ -s "$T/s/bare/expected.tf.pbtxt" ] || { echo "FAIL: --update did not create expected.tf.pbtxt"; fail=1; }
"$TFXC" test "$T/s/bare" >"$T/out" 2>&1 || { echo "FAIL: the updated case fails"; cat "$T/out"; fail=1; }
# an expected.exit alone is an expectation
rm "$T/s/bare/expected.tf.pbtxt"; echo 0 >"$T/s/bare/expected.exit"
"$TFXC" test "$T/s/bare" >"$T/out" 2>&1 || { echo "FAIL: a case with expected.exit only"; cat "$T/out"; fail=1; }
# 2. explain --pass: only the passes under test
cp "$M" "$T/s/x/model.pbtxt"
printf -- '--scope dense/LayerNorm/batchnorm/ --pass ScopeLayerNormPass\n' >"$T/s/x/explain"
"$TFXC" test --update "$T/s/x" >"$T/out" 2>&1 || { echo "FAIL: --update of the explain case"; cat "$T/out"; fail=1; }
n=$(grep -c '^pass ' "$T/s/x/expected.explain")
[ "$n" = 1 ] && grep -q '^pass ScopeLayerNormPass ' "$T/s/x/expected.explain" ||
  { echo "FAIL: expected.explain holds $n passes:"; cat "$T/s/x/expected.explain"; fail=1; }
"$TFXC" test "$T/s/x" >"$T/out" 2>&1 || { echo "FAIL: the explain case fails"; cat "$T/out"; fail=1; }
all=$("$TFXC" explain "$M" --scope dense/LayerNorm/batchnorm/ | grep -c '^pass ')
[ "$all" -gt 1 ] || { echo "FAIL: without --pass explain shows $all passes"; fail=1; }
# the same lines as in the full explanation
"$TFXC" explain "$M" --scope dense/LayerNorm/batchnorm/ | sed -n '/^pass ScopeLayerNormPass /,/^pass /p' | sed '$d' >"$T/full"
tail -n +2 "$T/s/x/expected.explain" | cmp -s - "$T/full" || { echo "FAIL: --pass output differs from the full one's section"; diff "$T/full" "$T/s/x/expected.explain"; fail=1; }
# 3. bad --pass
"$TFXC" explain "$M" --scope dense/LayerNorm/batchnorm/ --pass Nope >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q "tfxc explain: error: --pass: no scope pass 'Nope' (passes: " "$T/err" ||
  { echo "FAIL: --pass Nope: exit $rc"; cat "$T/err"; fail=1; }
[ -s "$T/out" ] && { echo "FAIL: --pass Nope printed on stdout"; fail=1; }
"$TFXC" explain "$M" --rule ScopeLayerNormPass --pass ScopeLayerNormPass >/dev/null 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--pass limits --scope" "$T/err" || { echo "FAIL: --pass with --rule: exit $rc"; cat "$T/err"; fail=1; }
exit $fail
