#!/usr/bin/env bash
# Issue 12 item 12, ATC users' habits: ATC's option spellings (--input_shape, --out_nodes,
# --input_format, --enable_scope_fusion_passes, --model, --output without an extension,
# --framework=3 with a note, other frameworks refused), shared options written before a
# command (`tfxc -Wall list-rules`) work or say where they belong, and no message repeats its
# prefix (`tfxc fmt: error: tfxc fmt: ...`), swept over error cases of every command.
# Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
SRC=${TFXC_SRC:?set TFXC_SRC to the repo root}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
cat >m.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "a/add" op: "Add" input: "x" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "a/mul" op: "Mul" input: "a/add" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Identity" input: "a/mul" attr { key: "T" value { type: DT_FLOAT } } }
PB
run() { # expected-exit args...: runs tfxc, stderr in err
  local want=$1; shift
  "$TFXC" "$@" >out 2>err
  local rc=$?
  [ "$rc" -eq "$want" ] || { echo "FAIL: tfxc $* -> exit $rc, want $want"; cat err; fail=1; }
}
# 1. ATC spellings give the same bytes as tfxc's
run 0 m.pbtxt --emit ge-pbtxt -o dash.ge.pbtxt --input-shape "x:1,4" --out-nodes "a/mul:0" --input-format NCHW
run 0 m.pbtxt --emit ge-pbtxt -o under.ge.pbtxt --input_shape="x:1,4" --out_nodes "a/mul:0" --input_format=NCHW
cmp -s dash.ge.pbtxt under.ge.pbtxt || { echo "FAIL: underscore spellings convert differently"; fail=1; }
run 0 --model=m.pbtxt --framework=3 --emit ge-pbtxt -o model.ge.pbtxt --input_shape="x:1,4" --out_nodes "a/mul:0" --input_format=NCHW
cmp -s dash.ge.pbtxt model.ge.pbtxt || { echo "FAIL: --model/--framework=3 convert differently"; fail=1; }
grep -q "note: --framework=3: TensorFlow is the only framework" err || { echo "FAIL: no note for --framework=3"; cat err; fail=1; }
run 2 m.pbtxt --framework=0
grep -q "error: --framework=0: tfxc converts TensorFlow models only" err || { echo "FAIL: --framework=0 message"; cat err; fail=1; }
run 2 m.pbtxt --enable_scope_fusion_passes NoSuchPass -o e.air
grep -q "NoSuchPass" err || { echo "FAIL: --enable_scope_fusion_passes not read as the option"; cat err; fail=1; }
run 1 m.pbtxt --no_stdlib --emit ge-pbtxt -o /dev/null -q  # no op maps: Placeholder unsupported
grep -q "op type 'Placeholder' is not supported" err || { echo "FAIL: --no_stdlib not read as --no-stdlib"; cat err; fail=1; }
# --output without an extension: the kind's extension is added (ATC adds .om), with a note
run 0 m.pbtxt --output=atcout
[ -s atcout.air ] && [ ! -e atcout ] || { echo "FAIL: --output=atcout did not write atcout.air"; ls; fail=1; }
grep -q "note: -o atcout has no extension: writing atcout.air" err || { echo "FAIL: no note for -o without extension"; cat err; fail=1; }
run 0 m.pbtxt -o plain.air
cmp -s plain.air atcout.air || { echo "FAIL: atcout.air differs from -o plain.air"; fail=1; }
run 0 m.pbtxt --emit ge-pbtxt -o - && [ -s out ] || { echo "FAIL: -o - no longer stdout"; fail=1; }
# 2. shared options before a command
run 0 -Wall list-rules --no-stdlib -r "$SRC/stdlib/fusion/02-layer_norm.scoperule"
grep -q "ScopeLayerNormPass" out || { echo "FAIL: tfxc -Wall list-rules listed nothing"; fail=1; }
run 0 -v -r "$SRC/stdlib/fusion/02-layer_norm.scoperule" --no-stdlib list-rules
grep -q "ScopeLayerNormPass" out || { echo "FAIL: tfxc -v -r F --no-stdlib list-rules"; fail=1; }
run 0 -Werror compile --no-stdlib -r "$SRC/stdlib/fusion/02-layer_norm.scoperule" -o p.tfxb
[ -s p.tfxb ] || { echo "FAIL: tfxc -Werror compile wrote nothing"; fail=1; }
run 0 -h inspect
grep -q "^Usage: tfxc inspect" out || { echo "FAIL: tfxc -h inspect is not inspect's help"; head -3 out; fail=1; }
run 2 --tag serve list-rules
grep -q "tfxc list-rules: error: unknown option '--tag'" err && grep -q "note: the options before 'list-rules' were given to it" err ||
  { echo "FAIL: an option list-rules does not take, before it:"; cat err; fail=1; }
run 2 --emit dot list-rules
grep -q "error: 'list-rules' is a command and must come first: 'tfxc list-rules \[OPTIONS\]'" err || { echo "FAIL: a convert option before a command:"; cat err; fail=1; }
# a model file named like a command is still a model
cp m.pbtxt inspect
run 0 -q inspect -o named.air
[ -s named.air ] || { echo "FAIL: tfxc -q inspect (a file) did not convert"; fail=1; }
# 3. no message repeats its prefix, over error cases of every command
sweep() {
  "$TFXC" "$@" >/dev/null 2>err
  if grep -E '^([^:]+): (error|warning|note): \1: |^tfxc: (error|warning|note): tfxc[a-z -]*: ' err; then
    echo "FAIL: repeated prefix in tfxc $*"; fail=1
  fi
}
sweep fmt m.pbtxt -o x.foo
sweep fmt m.pbtxt
sweep fmt nope.pb -o x.pb
sweep fmt m.pbtxt -o - 
sweep inspect
sweep inspect nope.pb
sweep inspect --bogus m.pbtxt
sweep compile -r nope
sweep compile --bogus
sweep disasm
sweep disasm nope.tfxb
sweep list-rules --bogus
sweep list-rules -r nope
sweep test
sweep test nope
sweep explain m.pbtxt
sweep explain m.pbtxt --scope a --disable-pass rules
sweep explain m.pbtxt --rule Nope
sweep help nope
sweep nope.pb
sweep m.pbtxt --emit nope
sweep m.pbtxt --limit nope=1
sweep m.pbtxt --input-format XY
sweep m.pbtxt -Wnope
sweep m.pbtxt --disable-pass nope
sweep m.pbtxt -o ""
sweep -q
sweep inpsect
exit $fail
