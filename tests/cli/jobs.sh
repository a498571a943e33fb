#!/usr/bin/env bash
# CLI test: -j N / --jobs N (threads unpacking a binary GraphDef of 1 MiB and more, io.c).
# Accepted: 0..64 in every spelling (-j 2, -j2, --jobs 2, --jobs=2); anything else is exit 2
# with the library's message and the note pointing at --help, before the model is read. A convert option before a command is
# exit 2. And the point of it: a binary GraphDef over 1 MiB (written here as text, made binary
# by tfxc fmt) converts to the same bytes with --jobs 1, 2, 3 and 0, for every --emit kind.
# Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0

# expect CODE PATTERN -- ARGS...: exit code and a fixed string in stderr (empty = no check).
expect() {
  local want=$1 pat=$2; shift 3
  "$TFXC" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: tfxc $* -> exit $rc, want $want"; sed 's/^/  | /' "$T/err" | head -n 8; fail=1; return
  fi
  if [ -n "$pat" ] && ! grep -qF -- "$pat" "$T/err"; then
    echo "FAIL: tfxc $*: stderr lacks '$pat'"; sed 's/^/  | /' "$T/err" | head -n 8; fail=1
  fi
}

# A chain of 6000 nodes, ~1.3 MiB binary: Placeholder -> Relu -> Relu ... with a Const beside.
awk 'BEGIN {
  print "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } }"
  print "  attr { key: \"shape\" value { shape { dim { size: 1 } dim { size: 8 } } } } }"
  prev = "x"
  for (i = 0; i < 6000; i++) {
    n = sprintf("block%d/relu_with_a_rather_long_name_%d", i % 50, i)
    printf "node { name: \"%s\" op: \"Relu\" input: \"%s\" attr { key: \"T\" value { type: DT_FLOAT } } ", n, prev
    printf "attr { key: \"_class\" value { list { s: \"loc:@%s_colocated_with_something_long\" } } } }\n", prev
    prev = n
  }
  print "versions { producer: 1087 }"
}' >g.pbtxt
"$TFXC" fmt g.pbtxt -o g.pb || { echo "FAIL: tfxc fmt"; exit 1; }
size=$(wc -c <g.pb)
[ "$size" -gt 1048576 ] || { echo "FAIL: g.pb is $size bytes, not over 1 MiB"; fail=1; }

usage="is not a number of threads from 0 (automatic) to 64"
for bad in 65 -1 x 1.5 "" 99999999999; do
  expect 2 "--jobs: '$bad' $usage" -- -j "$bad" g.pb
  expect 2 "--jobs: '$bad' $usage" -- --jobs="$bad" g.pb
done
expect 2 "run 'tfxc --help' for usage" -- --jobs 65 g.pb
expect 2 "" -- g.pb -j # no value
expect 2 "'inspect' is a command and must come first" -- -j 2 inspect g.pb
expect 2 "'inspect' is a command and must come first" -- --jobs 2 inspect g.pb
[ -e g.air ] && { echo "FAIL: a usage error wrote g.air"; fail=1; rm -f g.air; }

kinds=air,ge-pbtxt,ge-json,dot,tf-pbtxt
for j in 1 2 3 0 64; do
  for form in "-j $j" "-j$j" "--jobs $j" "--jobs=$j"; do
    # shellcheck disable=SC2086
    expect 0 "" -- $form --emit $kinds -o "out$j" g.pb
    [ "$form" = "-j $j" ] || continue
    [ -s "out$j.air" ] || { echo "FAIL: --jobs $j wrote no out$j.air"; fail=1; }
  done
done
for j in 2 3 0 64; do
  for ext in air ge.pbtxt ge.json dot tf.pbtxt; do
    cmp -s "out1.$ext" "out$j.$ext" || { echo "FAIL: --jobs $j: out$j.$ext differs from --jobs 1's"; fail=1; }
  done
done
# also written after MODEL
expect 0 "" -- g.pb --jobs 2 -o after.air
cmp -s out1.air after.air || { echo "FAIL: --jobs after MODEL: a different .air"; fail=1; }

# The ScopeTree is built on a thread of the index pass unless --jobs 1 (passes/pass_load.c):
# its error (the scope-depth limit: deep.pbtxt's node 1500 is the first three scopes deep) is
# the same message, exit code and stderr whatever the jobs, and nothing is written.
# --dump-after index,scope-tree and --time-passes see the tree's pass as before.
awk 'BEGIN {
  print "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }"
  for (i = 0; i < 3000; i++) {
    n = i < 1500 ? sprintf("s%d/t%d/n%d", i % 7, i % 3, i) : sprintf("s%d/t%d/u%d/n%d", i % 7, i % 3, i % 2, i)
    printf "node { name: \"%s\" op: \"Relu\" input: \"x\" attr { key: \"T\" value { type: DT_FLOAT } } }\n", n
  }
  print "versions { producer: 1087 }"
}' >deep.pbtxt
for j in 1 2 0; do
  expect 3 "node 's2/t0/u0/n1500': its scopes nest deeper than the limit of 2" -- \
    --jobs $j --limit scope-depth=2 -o "deep$j.air" deep.pbtxt
  cp "$T/err" "deep$j.err"
  expect 0 "" -- --jobs $j --dump-after index,scope-tree --dump-dir "dump$j" --time-passes -o "d$j.air" g.pb
  grep -q "scope-tree" "$T/err" || { echo "FAIL: --jobs $j: --time-passes has no scope-tree row"; fail=1; }
  [ -f "dump$j/06-scope-tree.pbtxt" ] || { echo "FAIL: --jobs $j: no dump after scope-tree: $(ls "dump$j" | tr '\n' ' ')"; fail=1; }
done
for j in 2 0; do
  cmp -s deep1.err "deep$j.err" || { echo "FAIL: --jobs $j: the scope-depth error differs from --jobs 1's"; diff deep1.err "deep$j.err"; fail=1; }
  diff -r dump1 "dump$j" >/dev/null || { echo "FAIL: --jobs $j: the dumps differ from --jobs 1's"; fail=1; }
  cmp -s d1.air "d$j.air" || { echo "FAIL: --jobs $j: the .air with dumps differs"; fail=1; }
  [ -e "deep$j.air" ] && { echo "FAIL: a failed run wrote deep$j.air"; fail=1; }
done

[ "$fail" -eq 0 ] && echo "ok: -j/--jobs parsed and checked; same outputs for 1, 2, 3, 0, 64 jobs; the scope tree's error and dumps too"
exit $fail
