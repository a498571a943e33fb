#!/usr/bin/env bash
# CLI test: unreadable or malformed input exits 3 and leaves no output (or temp) file; a
# warning-free -q run prints nothing. Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
three() { # three FILE...: convert must exit 3 and write nothing
  for m in "$@"; do
    "$TFXC" --emit tf-pbtxt "$m" >out 2>err; rc=$?
    [ $rc -eq 3 ] || { echo "FAIL: $m: exit $rc, want 3"; cat err; fail=1; }
    [ -s err ] || { echo "FAIL: $m: no diagnostic"; fail=1; }
    grep -q "error" err || { echo "FAIL: $m: diagnostic lacks 'error'"; cat err; fail=1; }
  done
}
printf 'node { name: "a" op: "NoOp" ' >truncated.pbtxt
printf 'node { nmae: "a" op: "NoOp" }\n' >badfield.pbtxt
printf '\x0a\xff\xff\xff\xff\x0f' >garbage.pb
cat >dangling.pbtxt <<'PB'
node { name: "a" op: "Identity" input: "missing" }
PB
cat >dup.pbtxt <<'PB'
node { name: "a" op: "NoOp" }
node { name: "a" op: "NoOp" }
PB
mkdir emptydir
three truncated.pbtxt badfield.pbtxt garbage.pb dangling.pbtxt dup.pbtxt nosuch.pb emptydir
left=$(ls -A | grep -v -x -e truncated.pbtxt -e badfield.pbtxt -e garbage.pb -e dangling.pbtxt \
       -e dup.pbtxt -e emptydir -e out -e err)
[ -z "$left" ] || { echo "FAIL: files left behind: $left"; fail=1; }
# The diagnostic names the file.
"$TFXC" --emit tf-pbtxt truncated.pbtxt 2>err
grep -q "truncated.pbtxt" err || { echo "FAIL: diagnostic does not name the file"; cat err; fail=1; }
# An existing output is not clobbered by a failed run.
echo keep >dangling.tf.pbtxt
"$TFXC" --emit tf-pbtxt dangling.pbtxt 2>/dev/null
[ "$(cat dangling.tf.pbtxt)" = keep ] || { echo "FAIL: failed run replaced an existing output"; fail=1; }
# Unwritable output: exit 3.
printf 'node { name: "a" op: "NoOp" }\n' >ok.pbtxt
"$TFXC" --emit tf-pbtxt -o nodir/x.pbtxt ok.pbtxt 2>err; rc=$?
[ $rc -eq 3 ] || { echo "FAIL: unwritable output exit $rc, want 3"; cat err; fail=1; }
# -q on a successful run: silent.
"$TFXC" -q --emit tf-pbtxt ok.pbtxt >out 2>err || { echo "FAIL: -q run"; fail=1; }
[ -s err ] || [ -s out ] && { echo "FAIL: -q printed something"; cat out err; fail=1; }
exit $fail
