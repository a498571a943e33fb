#!/usr/bin/env bash
# CLI test: a rule whose run needs more than its per-run VM heap ("memory budget of N bytes
# exceeded") is a rule run-time error: exit 1 with the rule's location and name, no output,
# and never reported as out of memory (that is a failed allocation: TFX_E_NOMEM, see
# tests/unit/test_vm_ops.c, heap_budget_is_not_out_of_memory). The same rule with a small
# string converts. Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
cat >m.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "s/y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
PB
# heapN.scoperule: the fuse body doubles a 16-byte string N times (16 << N bytes)
gen() {
  local n=$1 i
  {
    echo "pass HeapPass general {"
    echo "  group { layer { pattern negs { count Neg == 1; } } }"
    echo "  fuse s in negs {"
    echo "    type Neg;"
    echo '    let a0 = "0123456789abcdef";'
    for ((i = 1; i <= n; i++)); do echo "    let a$i = a$((i - 1)) + a$((i - 1));"; done
    echo "    name a$n;"
    echo "  }"
    echo "}"
  } >"heap$n.scoperule"
}
gen 4
gen 23 # 128 MiB: over the 64 MiB per-run heap
"$TFXC" m.pbtxt --emit tf-pbtxt -o small.pbtxt --no-stdlib -r heap4.scoperule >out 2>err
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: the small rule -> exit $rc, want 0"; sed 's/^/  | /' err; fail=1; }
"$TFXC" m.pbtxt --emit tf-pbtxt -o big.pbtxt --no-stdlib -r heap23.scoperule --report r.json >out 2>err
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: over the heap budget -> exit $rc, want 1"; sed 's/^/  | /' err; fail=1; }
grep -q "^heap23.scoperule:27:5: error: rule 'HeapPass': memory budget of [0-9]* bytes exceeded$" err ||
  { echo "FAIL: no heap budget error at the rule's line"; sed 's/^/  | /' err; fail=1; }
grep -qi "out of memory" err && { echo "FAIL: the heap budget reported as out of memory"; fail=1; }
[ -e big.pbtxt ] && { echo "FAIL: output written after the heap budget error"; fail=1; }
grep -q '"exit_code": 1' r.json || { echo "FAIL: the report lacks exit code 1"; head -c 400 r.json; fail=1; }
exit $fail
