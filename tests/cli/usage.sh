#!/usr/bin/env bash
# CLI test: usage errors exit 2 (with hints) and leave no files behind; the GE outputs, -o as
# a stem with several kinds, and --check on a tiny model (rule options themselves:
# tests/cli/rules.sh). Env: TFXC (binary).
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
# expect CODE [grep-pattern-for-stderr] -- ARGS...
expect() {
  local want=$1 pat=$2; shift 3
  "$TFXC" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: tfxc $* -> exit $rc, want $want"; sed 's/^/  | /' "$T/err"; fail=1; return
  fi
  if [ -n "$pat" ] && ! grep -q -- "$pat" "$T/err"; then
    echo "FAIL: tfxc $*: stderr lacks '$pat'"; sed 's/^/  | /' "$T/err"; fail=1
  fi
}
cat >m.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
PB

expect 2 "no model" --
expect 2 "did you mean '--out-nodes'" -- --out-node x:0 m.pbtxt
expect 2 "did you mean '--input-shape'" -- --input_shap x:1 m.pbtxt  # (--input_shape, ATC's spelling, is accepted: atc_habits.sh)
expect 2 "did you mean '--out-nodes'" -- -out-nodes x:0 m.pbtxt
expect 2 "unknown option '--frobnicate'" -- --frobnicate m.pbtxt
expect 2 "run 'tfxc --help'" -- --frobnicate m.pbtxt
expect 2 "unknown option '-Z'" -- -Z m.pbtxt
expect 2 "needs a value" -- m.pbtxt --out-nodes
expect 2 "takes no value" -- --time-passes=1 m.pbtxt
expect 2 "more than one MODEL" -- m.pbtxt m.pbtxt
expect 2 "not one of NCHW" -- --input-format NWHC --emit tf-pbtxt m.pbtxt
expect 2 "unknown kind 'tf-pbtx'; did you mean 'tf-pbtxt'" -- --emit tf-pbtx m.pbtxt
expect 2 "is not a size" -- --max-file-size lots --emit tf-pbtxt m.pbtxt
expect 2 "did you mean 'tfxc inspect'" -- inspekt m.pbtxt
expect 2 "unknown pass 'prun'; did you mean 'prune'" -- --dump-after prun --emit tf-pbtxt m.pbtxt
expect 2 "unknown pass" -- --disable-pass nosuch --emit tf-pbtxt m.pbtxt
expect 2 "cannot be disabled" -- --disable-pass load --emit tf-pbtxt m.pbtxt
expect 2 "input-shape" -- --input-shape "x:1,two" --emit tf-pbtxt m.pbtxt
expect 2 "" -- --input-shape "" --emit tf-pbtxt m.pbtxt
expect 2 "no MODEL" -- inspect
expect 2 "not a non-negative integer" -- inspect --depth -1 m.pbtxt
expect 2 "unknown option '--emit'" -- inspect --emit tf-pbtxt m.pbtxt
expect 2 "-o OUT is required" -- fmt m.pbtxt
expect 2 "needs --to" -- fmt m.pbtxt -o -
expect 2 "extension" -- fmt m.pbtxt -o out.bin
expect 2 "is not 'pb' or 'pbtxt'" -- fmt m.pbtxt -o out.pb --to json
expect 2 "unknown command" -- help nosuch
expect 2 "at most one" -- help inspect fmt
# A directory as output is refused. A FIFO or device is written through, never replaced by
# the atomic rename (a reader drains the FIFO here).
mkfifo fifo && mkdir adir
expect 2 "is a directory" -- fmt m.pbtxt -o adir --to pbtxt
cat fifo >fifo.out & reader=$!
"$TFXC" fmt m.pbtxt -o fifo --to pbtxt || { echo "FAIL: writing through a FIFO"; fail=1; }
wait "$reader"
[ -p fifo ] || { echo "FAIL: the FIFO was replaced"; fail=1; }
grep -q 'node' fifo.out || { echo "FAIL: nothing came through the FIFO"; fail=1; }
rm -f fifo fifo.out; rmdir adir

# --check takes no output options; -o - takes one kind.
expect 2 "--check writes only the precheck report" -- --check --emit tf-pbtxt m.pbtxt
expect 2 "drop -o/--output" -- --check -o x.air m.pbtxt
expect 2 "standard output takes a single --emit kind" -- --emit air,dot -o - m.pbtxt
expect 3 "" -- --emit air nosuch.pb
expect 2 "--report: empty file name" -- --report "" --emit tf-pbtxt m.pbtxt
expect 2 "give exactly one of --scope NAME and --rule PASS" -- explain m.pbtxt
# Rule options are usage-checked before the model is read.
expect 2 "unknown warning option '-Wfrob'" -- -Wfrob --emit tf-pbtxt m.pbtxt
expect 2 "--vm-budget: 'x' is not" -- --vm-budget x --emit tf-pbtxt m.pbtxt
expect 2 "--vm-budget: '0' is not" -- --vm-budget 0 --emit tf-pbtxt m.pbtxt
expect 2 "unknown option '--rule'; did you mean '--rules'" -- --rule x --emit tf-pbtxt m.pbtxt

# The options the commands share have one parser (src/api/options.c): convert and explain
# give the same message for the same bad value, each under its own command name.
same_msg() { # ARGS... : the message of `tfxc ARGS m.pbtxt` and `tfxc explain ARGS --rule X m.pbtxt`
  "$TFXC" "$@" m.pbtxt 2>"$T/e1" >/dev/null; local r1=$?
  "$TFXC" explain "$@" --rule X m.pbtxt 2>"$T/e2" >/dev/null; local r2=$?
  local m1 m2
  m1=$(sed -n '1s/^tfxc: error: //p' "$T/e1"); m2=$(sed -n '1s/^tfxc explain: error: //p' "$T/e2")
  if [ $r1 -ne 2 ] || [ $r2 -ne 2 ] || [ -z "$m1" ] || [ "$m1" != "$m2" ]; then
    echo "FAIL: $*: convert (exit $r1) and explain (exit $r2) differ:"; sed 's/^/  | /' "$T/e1" "$T/e2"; fail=1
  fi
  grep -q "run 'tfxc explain --help' for usage" "$T/e2" || { echo "FAIL: $*: explain lacks its --help note"; fail=1; }
  rm -f "$T/e1" "$T/e2"
}
same_msg --vm-budget 0
same_msg --max-file-size lots
same_msg --limit nodes=0
same_msg -Wfrob
same_msg --enable-scope-fusion-passes ""
same_msg --disable-pass ""
expect 2 "--vm-budget: '0' is not a positive number of steps (at most 1000000000)" -- explain --vm-budget 0 --rule X m.pbtxt
expect 2 "--disable-pass: empty list" -- --disable-pass "" --emit tf-pbtxt m.pbtxt

# Nothing but the model was written by any of the above.
left=$(ls -A "$T" | grep -v -x -e m.pbtxt -e out -e err)
if [ -n "$left" ]; then echo "FAIL: files left behind: $left"; fail=1; fi

# The default output is <stem>.air; several kinds with -o STEM write STEM.<ext> each.
cat >g.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
PB
expect 0 "" -- g.pbtxt
[ -s g.air ] || { echo "FAIL: g.air not written by default"; fail=1; }
mkdir o && expect 0 "" -- g.pbtxt --emit air,ge-pbtxt,ge-json,dot,tf-pbtxt -o o/s
for e in air ge.pbtxt ge.json dot tf.pbtxt; do
  [ -s "o/s.$e" ] || { echo "FAIL: -o o/s did not write o/s.$e"; fail=1; }
done
expect 0 "" -- g.pbtxt --emit ge-pbtxt -o -
grep -q 'type: "Relu"' out || { echo "FAIL: -o - did not print the GE text"; fail=1; }
# --check: report on stdout, exit 0 when everything maps, 1 (and "failed") when not.
expect 0 "" -- --check g.pbtxt
grep -q '"result": "success"' out || { echo "FAIL: --check report"; cat out; fail=1; }
sed 's/"Relu"/"NoSuchOpAnywhere"/' g.pbtxt >u.pbtxt
expect 1 "" -- --check u.pbtxt
grep -q '"code": 1, "message": "The type is not supported."' out || { echo "FAIL: --check cause"; cat out; fail=1; }
expect 1 "op type 'NoSuchOpAnywhere' is not supported" -- u.pbtxt -o u.air
[ -e u.air ] && { echo "FAIL: u.air written for an unsupported op"; fail=1; }
expect 0 "has no CANN mapping; kept as 'NoSuchOpAnywhere'" -- u.pbtxt --passthrough-unknown -o u.air
[ -s u.air ] || { echo "FAIL: --passthrough-unknown wrote no file"; fail=1; }
exit $fail
