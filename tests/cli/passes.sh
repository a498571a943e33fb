#!/usr/bin/env bash
# CLI test: --list-passes, --time-passes, --dump-after/--dump-dir, --disable-pass. Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
cat >m.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "s/y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "z" op: "NoOp" }
PB

# --list-passes: no model needed; run order with group and phase.
"$TFXC" --list-passes >list.txt 2>err || { echo "FAIL: --list-passes exited $?"; cat err; fail=1; }
# (passes of later stages, e.g. scope fusion, may sit in between: only these are checked)
order=$(awk 'NR>1 {print $2"/"$4}' list.txt | grep -E '/(load|rules|prune|index|scope-tree|emit-tf)$' | tr '\n' ' ')
[ "$order" = "LOAD/load LOAD/rules PRUNE/prune PRUNE/index PRUNE/scope-tree EMIT/emit-tf " ] ||
  { echo "FAIL: --list-passes order '$order'"; cat list.txt; fail=1; }
head -1 list.txt | grep -q "group.*phase.*pass" || { echo "FAIL: --list-passes header"; fail=1; }
"$TFXC" --list-passes --disable-pass scope-tree | grep -q "scope-tree  *(disabled)" ||
  { echo "FAIL: --list-passes does not mark disabled passes"; fail=1; }

# --time-passes: a table on stderr, nothing on stdout.
"$TFXC" m.pbtxt --emit tf-pbtxt --time-passes >out.txt 2>time.txt || { echo "FAIL: --time-passes run"; cat time.txt; fail=1; }
[ -s out.txt ] && { echo "FAIL: --time-passes printed to stdout"; fail=1; }
grep -q "group.*phase.*pass.*ms.*%" time.txt || { echo "FAIL: timing header"; cat time.txt; fail=1; }
for p in load rules index scope-tree prune emit-tf; do
  grep -Eq "^[A-Z_]+ +-?[0-9]+ +$p +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]%" time.txt ||
    { echo "FAIL: timing row for $p"; cat time.txt; fail=1; }
done
grep -Eq "^total .* 100\.0%" time.txt || { echo "FAIL: timing total"; cat time.txt; fail=1; }
# On failure the table still shows what ran.
"$TFXC" --emit tf-pbtxt --time-passes --out-nodes ghost:0 m.pbtxt 2>tf.txt >/dev/null
grep -q "prune .*(failed)" tf.txt || { echo "FAIL: timing of a failed run"; cat tf.txt; fail=1; }
grep -q "emit-tf" tf.txt && { echo "FAIL: emit-tf ran after a failure"; fail=1; }

# --dump-after PASS into the default dir; file named NN-<pass>.pbtxt, NN = run position.
"$TFXC" m.pbtxt --emit tf-pbtxt --dump-after prune 2>err || { echo "FAIL: --dump-after run"; cat err; fail=1; }
[ -f tfxc-dump/04-prune.pbtxt ] || { echo "FAIL: tfxc-dump/04-prune.pbtxt missing: $(ls -R tfxc-dump 2>&1)"; fail=1; }
grep -q 'name: "s/y"' tfxc-dump/04-prune.pbtxt 2>/dev/null || { echo "FAIL: dump content"; fail=1; }
[ "$(ls tfxc-dump | wc -l)" -eq 1 ] || { echo "FAIL: extra dumps: $(ls tfxc-dump)"; fail=1; }
# The dump is the graph after that pass: after prune with --out-nodes only s/y's cone is left.
"$TFXC" m.pbtxt --emit tf-pbtxt --out-nodes s/y:0 --dump-after load,prune --dump-dir d/nested 2>err ||
  { echo "FAIL: --dump-dir run"; cat err; fail=1; }
grep -q 'name: "z"' d/nested/01-load.pbtxt 2>/dev/null || { echo "FAIL: 01-load dump lacks z"; fail=1; }
grep -q 'name: "z"' d/nested/04-prune.pbtxt 2>/dev/null && { echo "FAIL: 04-prune dump still has z"; fail=1; }
[ -f d/nested/04-prune.pbtxt ] || { echo "FAIL: d/nested/04-prune.pbtxt missing"; fail=1; }
# all: one file per pass that ran; disabled passes shift the positions.
"$TFXC" m.pbtxt --emit tf-pbtxt --dump-after all --dump-dir all --disable-pass scope-tree,rules 2>err ||
  { echo "FAIL: --dump-after all"; cat err; fail=1; }
got=$(ls all 2>/dev/null | grep -E -- '-(load|rules|prune|index|scope-tree)\.pbtxt$' | tr '\n' ' ')
[ "$got" = "01-load.pbtxt 03-prune.pbtxt 04-index.pbtxt " ] || { echo "FAIL: dump-after all wrote '$got'"; fail=1; }
[ -f "all/$(ls all | wc -l | xargs printf '%02d')-emit-ge.pbtxt" ] || { echo "FAIL: emit-ge is not the last dump: $(ls all)"; fail=1; }
ls all | grep -q -- '-emit-tf\.pbtxt$' || { echo "FAIL: no emit-tf dump: $(ls all)"; fail=1; }
exit $fail
