#!/usr/bin/env bash
# The progress line of long conversions (src/cli/progress.c): shown on stderr only when
# stderr is a terminal, never in a pipe or file; -q turns it off; erased before the end; the
# output model is the same bytes either way. TFXC_PROGRESS_AFTER_MS=0 removes the 2 s delay
# so a small model shows it. The terminal case runs under script(1) (skipped without it).
# On a terminal it also shows how far a pass is ("index, 0/23 nodes"). Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
cd "${TFXC_SRC:?set TFXC_SRC to the repo root}" || exit 1
M=examples/dense_layernorm/model.pbtxt
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
export TFXC_PROGRESS_AFTER_MS=0
# not a terminal: nothing on stderr (a file, then a pipe)
"$TFXC" "$M" -o "$T/file.air" 2>"$T/err" || { echo "FAIL: conversion failed"; cat "$T/err"; fail=1; }
[ -s "$T/err" ] && { echo "FAIL: progress written to a file:"; od -c "$T/err" | head; fail=1; }
out=$("$TFXC" "$M" -o "$T/pipe.air" 2>&1 | wc -c)
[ "$out" -ne 0 ] && { echo "FAIL: progress written to a pipe: $out"; fail=1; }
if ! command -v script >/dev/null 2>&1; then
  echo "script(1) not found: terminal case skipped"
  [ "$fail" = 0 ] && exit 77
  exit 1
fi
# a terminal: the line names passes with their position, nodes once indexed, and is erased
script -qec "'$TFXC' '$M' -o '$T/tty.air'" /dev/null >"$T/tty" 2>&1 </dev/null
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: conversion on a terminal: exit $rc"; cat "$T/tty"; fail=1; }
grep -q $'\rtfxc: \[1/[0-9]*\] load' "$T/tty" || { echo "FAIL: no progress for pass load:"; od -c "$T/tty" | head; fail=1; }
grep -q 'lowering, [0-9]* nodes' "$T/tty" || { echo "FAIL: no node count for lowering:"; od -c "$T/tty" | head; fail=1; }
# within a pass: how far its node loop is (the first report of each pass is always shown)
for want in 'index, 0/[0-9]* nodes' 'scope-fusion, [0-9]*/[0-9]* scope tests' 'op-mapping, 0/[0-9]* nodes' \
            'lowering, 0/[0-9]* nodes'; do
  grep -q "$want" "$T/tty" || { echo "FAIL: no '$want' on the terminal:"; od -c "$T/tty" | head -20; fail=1; }
done
tail -c 4 "$T/tty" | od -c | grep -q '\\r 033   \[   K' || { echo "FAIL: the line is not erased at the end:"; tail -c 40 "$T/tty" | od -c; fail=1; }
cmp -s "$T/file.air" "$T/tty.air" || { echo "FAIL: output differs on a terminal"; fail=1; }
# -q: nothing even on a terminal
script -qec "'$TFXC' -q '$M' -o '$T/q.air'" /dev/null >"$T/q" 2>&1 </dev/null
[ -s "$T/q" ] && { echo "FAIL: -q still shows progress:"; od -c "$T/q" | head; fail=1; }
# the default delay: a small model finishes before 2 s and shows nothing on a terminal
unset TFXC_PROGRESS_AFTER_MS
script -qec "'$TFXC' '$M' -o '$T/d.air'" /dev/null >"$T/d" 2>&1 </dev/null
[ -s "$T/d" ] && { echo "FAIL: a short run shows progress:"; od -c "$T/d" | head; fail=1; }
exit $fail
