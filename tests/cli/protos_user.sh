#!/usr/bin/env bash
# CLI test: user CANN prototype files (-r paths named *.cannops.tsv, and those found under -r
# directories): a prototype for a new op (AddCustom, Ascend's custom-op sample) makes its op
# map check clean (without it: -Wunknown-op), a user prototype replacing a stdlib one (the
# rule check and the GE port names follow it; -v reports the override at the stdlib line),
# malformed lines reported as file:line:col errors with exit 4 (with the rule errors of the
# same run, nothing written), precedence between two -r directories (first wins, -v reports
# the later one), the GE output using the user port names, list-rules, --no-stdlib, packs
# (compile -v note; -r pack.tfxb plus prototype files == -r DIR; a pack with a directory is
# still exit 2), paths that are no prototype file (exit 2), and tfxc test on the golden case.
# Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
: "${TFXC_SRC:?set TFXC_SRC to the repo root}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
# expect CODE [grep-pattern-for-stderr] -- ARGS...
expect() {
  local want=$1 pat=$2; shift 3
  "$TFXC" "$@" >out 2>err
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: tfxc $* -> exit $rc, want $want"; sed 's/^/  | /' err; fail=1; return
  fi
  if [ -n "$pat" ] && ! grep -q -- "$pat" err; then
    echo "FAIL: tfxc $*: stderr lacks '$pat'"; sed 's/^/  | /' err; fail=1
  fi
}
# ports FILE NODE: "TYPE in:NAME ... out:NAME ..." of a node of a GE text file.
ports() {
  awk -v n="\"$2\"" '
    /^  op \{/ { cur = "" }
    /^    name: / { cur = $2 }
    cur == n && /^    type: / { printf "%s", $2 }
    /^    input_desc \{/ { kind = "in" }
    /^    output_desc \{/ { kind = "out" }
    cur == n && /^      name: / { printf " %s:%s", kind, $2 }
    END { print "" }' "$1" | tr -d '"'
}
HDR=$'#name\tinputs\toutputs\tattrs\tsource'

cp "$TFXC_SRC/tests/golden/cases/ge-seed-add-custom/model.pbtxt" m.pbtxt
mkdir -p custom/sub
printf 'op Add -> AddCustom { auto; input x = 0; input y = 1; output z = 0; }\n' >custom/add_custom.opmap
printf '%s\nAddCustom\tx:req:f16|f32|i32,y:req:f16|f32|i32\tz:req:f16|f32|i32\t\tascend-samples AddCustom\n' \
  "$HDR" >custom/sub/add_custom.cannops.tsv

# 1. A new op: clean with its prototype (found under the directory), -Wunknown-op without.
expect 0 "" -- compile -r custom -o c.tfxb
[ -s err ] && { echo "FAIL: a map to a user prototype printed diagnostics"; cat err; fail=1; }
expect 0 "no prototype for CANN op 'AddCustom' \[-Wunknown-op\]" -- compile -r custom/add_custom.opmap -o c.tfxb
printf 'op Add -> AddCustom { auto; }\n' >auto.opmap
expect 0 "no prototype for CANN op 'AddCustom' \[-Wunknown-op\]" -- compile -r auto.opmap -o c.tfxb
expect 4 "\[-Werror=unknown-op\]" -- compile -r auto.opmap -Werror=unknown-op -o c.tfxb
expect 0 "" -- compile -r auto.opmap -r custom/sub/add_custom.cannops.tsv -Werror=unknown-op -o c.tfxb
[ -s err ] && { echo "FAIL: -r FILE.cannops.tsv did not silence -Wunknown-op"; cat err; fail=1; }
echo "ok: a new op with and without its prototype"

# 2. The GE output names the ports after the user prototype (and after TF's indexes without).
expect 0 "" -- m.pbtxt -r custom --emit ge-pbtxt -o ge.pbtxt
[ "$(ports ge.pbtxt add)" = "AddCustom in:x in:y out:z" ] ||
  { echo "FAIL: GE ports with the prototype: $(ports ge.pbtxt add)"; fail=1; }
# Without the prototype the node fails (issue 12 item 4) unless --passthrough-unknown keeps it.
expect 1 "maps to CANN op type 'AddCustom', which no prototype declares" -- m.pbtxt -r auto.opmap --emit ge-pbtxt -o ge0.pbtxt
[ -e ge0.pbtxt ] && { echo "FAIL: output written for an undeclared CANN type"; fail=1; }
expect 0 "" -- m.pbtxt -r auto.opmap --passthrough-unknown --emit ge-pbtxt -o ge0.pbtxt
[ "$(ports ge0.pbtxt add)" = "AddCustom in:x0 in:x1 out:y0" ] ||
  { echo "FAIL: GE ports without a prototype: $(ports ge0.pbtxt add)"; fail=1; }
# --no-stdlib drops the stdlib rules, never the prototypes (user and stdlib ones)
printf 'op Neg -> AddCustom { auto; input y = 0; }\nop Sub -> Add { auto; input x2 = 1; }\n' >ns.opmap
expect 0 "" -- compile -r ns.opmap -r custom/sub/add_custom.cannops.tsv --no-stdlib -o ns.tfxb
[ -s err ] && { echo "FAIL: --no-stdlib lost prototypes"; cat err; fail=1; }
echo "ok: GE port names from the user prototype"

# 3. Overriding a stdlib prototype: the check and the lowering use the user's ports.
mkdir -p ov
printf 'op Add -> Add { auto; input a = 0; input b = 1; output c = 0; }\n' >ov/add.opmap
printf '%s\nAdd\ta:req:f32,b:req:f32\tc:req:f32\t\tmine\n' "$HDR" >ov/add.cannops.tsv
expect 4 "CANN op 'Add' has no input 'a' (inputs: x1, x2)" -- compile -r ov/add.opmap -o o.tfxb
expect 0 "" -- m.pbtxt -r ov --emit ge-pbtxt -o geov.pbtxt
[ -s err ] && { echo "FAIL: an override printed diagnostics without -v"; cat err; fail=1; }
[ "$(ports geov.pbtxt add)" = "Add in:a in:b out:c" ] ||
  { echo "FAIL: GE ports of the overridden prototype: $(ports geov.pbtxt add)"; fail=1; }
expect 0 "" -- compile -r ov -o o.tfxb -v
grep -qxF "<stdlib>/ops/cann-ops.tsv:36:1: warning: CANN prototype 'Add' is ignored: the one at ov/add.cannops.tsv:2:1 was registered first [-Woverride]" err ||
  { echo "FAIL: -v does not report the stdlib prototype override"; cat err; fail=1; }
expect 0 "CANN prototype 'Add' is ignored" -- compile -r ov -o o.tfxb -Woverride
expect 4 "\[-Werror=override\]" -- compile -r ov -o o.tfxb -Werror=override
expect 4 "\[-Werror=override\]" -- compile -r ov -o o.tfxb -Woverride -Werror
echo "ok: a user prototype overrides the stdlib one"

# 4. Precedence: two -r directories, the first one's prototype wins.
mkdir -p d1 d2
printf 'op Neg -> MyOp { auto; }\n' >d1/neg.opmap
printf '%s\nMyOp\ta:req:f32\to1:req:f32\t\td1\n' "$HDR" >d1/my.cannops.tsv
printf '%s\nMyOp\tb:req:f32\to2:req:f32\t\td2\n' "$HDR" >d2/my.cannops.tsv
cat >n.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "neg" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
PB
expect 0 "" -- n.pbtxt -r d1 -r d2 --emit ge-pbtxt -o p12.pbtxt
[ "$(ports p12.pbtxt neg)" = "MyOp in:a out:o1" ] || { echo "FAIL: -r d1 -r d2: $(ports p12.pbtxt neg)"; fail=1; }
[ -s err ] && { echo "FAIL: a prototype override printed diagnostics without -v"; cat err; fail=1; }
expect 0 "" -- n.pbtxt -r d2 -r d1 --emit ge-pbtxt -o p21.pbtxt
[ "$(ports p21.pbtxt neg)" = "MyOp in:b out:o2" ] || { echo "FAIL: -r d2 -r d1: $(ports p21.pbtxt neg)"; fail=1; }
expect 0 "" -- n.pbtxt -r d1 -r d2 --emit ge-pbtxt -o p12.pbtxt -v
grep -qF "d2/my.cannops.tsv:2:1: warning: CANN prototype 'MyOp' is ignored: the one at d1/my.cannops.tsv:2:1 was registered first [-Woverride]" err ||
  { echo "FAIL: -v does not report the later directory's prototype"; cat err; fail=1; }
# the rule check follows the same order
printf 'op Neg -> MyOp { auto; input b = 0; }\n' >portb.opmap
expect 0 "" -- compile -r portb.opmap -r d2 -r d1 -o p.tfxb
expect 4 "CANN op 'MyOp' has no input 'b' (inputs: a)" -- compile -r portb.opmap -r d1 -r d2 -o p.tfxb
# inside one directory: byte order of the paths (a/ before b.cannops.tsv)
mkdir -p d3/a
printf '%s\nMyOp\tfirst:req:f32\ty:req:f32\t\td3\n' "$HDR" >d3/a/z.cannops.tsv
printf '%s\nMyOp\tsecond:req:f32\ty:req:f32\t\td3\n' "$HDR" >d3/b.cannops.tsv
expect 0 "" -- n.pbtxt -r d3 -r d1/neg.opmap --emit ge-pbtxt -o p3.pbtxt
[ "$(ports p3.pbtxt neg)" = "MyOp in:first out:y" ] || { echo "FAIL: order inside a directory: $(ports p3.pbtxt neg)"; fail=1; }
echo "ok: precedence between -r paths"

# 5. Malformed prototype lines: every one reported as file:line:col, with the rule errors of
# the same run; exit 4 (rule errors); nothing written.
mkdir -p bad
printf '%s\nGood\tx:req:f32\ty:req:f32\t\ts\nBad-Name\tx:req:f32\ty:req:f32\t\ts\nK\tx:must:f32\ty:req:f32\t\ts\nShort\tx:req:f32\nD\tx:req:f32\ty:req:f32\tn:Int=abc\ts\nGood\tx:req:f32\ty:req:f32\t\ts\n' \
  "$HDR" >bad/p.cannops.tsv
printf 'op Neg -> Good { auto; input nope = 0; }\n' >bad/m.opmap
cat >want <<'WANT'
bad/p.cannops.tsv:3:1: error: op name 'Bad-Name' is not an identifier
bad/p.cannops.tsv:4:5: error: unknown input kind 'must' (req, opt or dyn)
bad/p.cannops.tsv:5:16: error: expected 5 tab-separated columns, found 2
bad/p.cannops.tsv:6:29: error: bad default 'abc' for Int attribute 'n': expected an integer
bad/p.cannops.tsv:7:1: error: op 'Good' already defined at line 2
bad/m.opmap:1:30: error: CANN op 'Good' has no input 'nope' (inputs: x)
  op Neg -> Good { auto; input nope = 0; }
                               ^~~~
WANT
for cmd in "compile -r bad -o bad.tfxb" "n.pbtxt -r bad --emit ge-pbtxt -o bad.pbtxt" "list-rules -r bad"; do
  # shellcheck disable=SC2086
  "$TFXC" $cmd >out 2>err
  rc=$?
  [ $rc -eq 4 ] || { echo "FAIL: tfxc $cmd with malformed prototypes exited $rc, want 4"; fail=1; }
  cmp -s want err || { echo "FAIL: tfxc $cmd: diagnostics differ:"; diff want err; fail=1; }
done
[ -e bad.tfxb ] || [ -e bad.pbtxt ] && { echo "FAIL: output written despite prototype errors"; fail=1; }
# a prototype file given directly is checked the same way
expect 4 "bad/p.cannops.tsv:4:5: error: unknown input kind 'must'" -- compile -r bad/p.cannops.tsv -o bad.tfxb
echo "ok: malformed prototype files are rule errors (exit 4)"

# 6. list-rules lists the user prototypes the run uses (not the overridden ones).
expect 0 "" -- list-rules -r d1 -r d2 -r custom --no-stdlib
grep -q "^proto  MyOp .*d1/my.cannops.tsv:2 .* a -> o1$" out && grep -q "^proto  AddCustom .* x, y -> z$" out &&
  ! grep -q "d2/my.cannops.tsv" out && tail -1 out | grep -qx "2 rules, 2 CANN prototypes" ||
  { echo "FAIL: list-rules prototype rows"; cat out; fail=1; }
expect 0 "" -- list-rules --json -r custom --no-stdlib
grep -qF '{"name": "AddCustom", "kind": "proto", "source": "custom/sub/add_custom.cannops.tsv:2", "inputs": ["x", "y"], "outputs": ["z"]}' out ||
  { echo "FAIL: list-rules --json prototype entry"; cat out; fail=1; }
expect 0 "" -- list-rules --no-stdlib
tail -1 out | grep -qx "0 rules" || { echo "FAIL: list-rules without prototypes changed"; cat out; fail=1; }
echo "ok: list-rules"

# 7. Packs hold no prototypes: compile -v says so; -r pack.tfxb -r FILE.cannops.tsv converts
# like -r DIR; a pack with a directory is still exit 2; a pack alone lowers with TF indexes.
expect 0 "a pack does not hold them" -- compile -r custom -o c.tfxb -v
expect 0 "" -- m.pbtxt -r c.tfxb -r custom/sub/add_custom.cannops.tsv --emit ge-pbtxt -o gepack.pbtxt
cmp -s ge.pbtxt gepack.pbtxt || { echo "FAIL: -r pack -r FILE.cannops.tsv differs from -r DIR"; diff ge.pbtxt gepack.pbtxt | head; fail=1; }
expect 0 "" -- m.pbtxt -r custom/sub/add_custom.cannops.tsv -r c.tfxb --emit ge-pbtxt -o gepack2.pbtxt
cmp -s ge.pbtxt gepack2.pbtxt || { echo "FAIL: prototype file before the pack differs"; fail=1; }
expect 2 "cannot be combined with other -r paths (except CANN prototype files" -- m.pbtxt -r c.tfxb -r custom --emit ge-pbtxt -o x.pbtxt
expect 4 "bad/p.cannops.tsv:3:1: error" -- m.pbtxt -r c.tfxb -r bad/p.cannops.tsv --emit ge-pbtxt -o x.pbtxt
[ -e x.pbtxt ] && { echo "FAIL: output written with a malformed prototype file next to a pack"; fail=1; }
expect 0 "" -- compile -r auto.opmap -r custom/sub/add_custom.cannops.tsv -o auto.tfxb
expect 1 "which no prototype declares" -- m.pbtxt -r auto.tfxb --emit ge-pbtxt -o gepack0.pbtxt
expect 0 "" -- m.pbtxt -r auto.tfxb --passthrough-unknown --emit ge-pbtxt -o gepack0.pbtxt
[ "$(ports gepack0.pbtxt add)" = "AddCustom in:x0 in:x1 out:y0" ] ||
  { echo "FAIL: a pack alone: $(ports gepack0.pbtxt add)"; fail=1; }
expect 0 "" -- m.pbtxt -r auto.tfxb -r custom/sub/add_custom.cannops.tsv --emit ge-pbtxt -o gepack1.pbtxt
[ "$(ports gepack1.pbtxt add)" = "AddCustom in:x in:y out:z" ] ||
  { echo "FAIL: an auto pack with its prototype file: $(ports gepack1.pbtxt add)"; fail=1; }
expect 0 "" -- list-rules -r c.tfxb -r custom/sub/add_custom.cannops.tsv
grep -q "^proto  AddCustom " out || { echo "FAIL: list-rules of a pack with prototypes"; fail=1; }
echo "ok: packs and prototype files"

# 8. Paths: a .tsv that is no prototype file is exit 2; a missing prototype file exit 3.
printf '%s\n' "$HDR" >plain.tsv
expect 2 "CANN prototype file (.cannops.tsv)" -- compile -r plain.tsv -o x.tfxb
expect 3 "cannot read rules" -- compile -r nosuch.cannops.tsv -o x.tfxb
# a header-only prototype file is fine; files not named *.cannops.tsv inside directories are ignored
mkdir -p quiet
printf '%s\n' "$HDR" >quiet/empty.cannops.tsv
printf 'not a table\n' >quiet/notes.tsv
expect 0 "" -- compile -r quiet -o q.tfxb
[ -s err ] && { echo "FAIL: an empty prototype file printed diagnostics"; cat err; fail=1; }
echo "ok: prototype paths"

# 9. tfxc test: a case's rules/ directory brings its prototypes; without them the case fails
# (the map names a CANN type no prototype declares: exit 1, issue 12 item 4).
CASE="$TFXC_SRC/tests/golden/cases/ge-seed-add-custom"
"$TFXC" test "$CASE" >out 2>&1 || { echo "FAIL: tfxc test ge-seed-add-custom"; cat out; fail=1; }
cp -r "$CASE" case
rm case/rules/add_custom.cannops.tsv
"$TFXC" test case >out 2>&1 && { echo "FAIL: the golden case passes without its prototype file"; fail=1; }
grep -q "which no prototype declares" out && grep -q "exit code 1, expected 0" out ||
  { echo "FAIL: no failure without the prototype file"; cat out; fail=1; }
echo "ok: tfxc test picks the prototypes up from rules/"

[ $fail -eq 0 ] && echo "ok: user prototypes"
exit $fail
