#!/usr/bin/env bash
# CLI test: usage errors exit 2 (with hints), options whose feature does not exist yet exit 1,
# (rule options themselves: tests/cli/rules.sh)
# and neither leaves files behind. Env: TFXC (binary).
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
expect 2 "did you mean '--input-shape'" -- --input_shape x:1 m.pbtxt
expect 2 "did you mean '--out-nodes'" -- -out-nodes x:0 m.pbtxt
expect 2 "unknown option '--frobnicate'" -- --frobnicate m.pbtxt
expect 2 "run 'tfxc --help'" -- --frobnicate m.pbtxt
expect 2 "unknown option '-Z'" -- -Z m.pbtxt
expect 2 "needs a value" -- m.pbtxt --out-nodes
expect 2 "takes no value" -- --time-passes=1 m.pbtxt
expect 2 "more than one MODEL" -- m.pbtxt m.pbtxt
expect 2 "not one of NCHW" -- --input-format NWHC --emit tf-pbtxt m.pbtxt
expect 2 "unknown kind 'tf-pbtx'; did you mean 'tf-pbtxt'" -- --emit tf-pbtx m.pbtxt
expect 2 "single --emit kind" -- --emit tf-pbtxt,dot -o x m.pbtxt
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

# Features that do not exist yet: exit 1 with a clear message, before the model is read.
expect 1 "--emit air (the default): not implemented yet" -- m.pbtxt
expect 1 "not implemented yet" -- --emit air nosuch.pb
expect 1 "--emit: not implemented yet" -- --emit ge-pbtxt m.pbtxt
expect 1 "--check: not implemented yet" -- --check --emit tf-pbtxt m.pbtxt
expect 1 "--check: not implemented yet" -- --check -r rules --trace --emit tf-pbtxt m.pbtxt
expect 2 "--report: empty file name" -- --report "" --emit tf-pbtxt m.pbtxt
expect 2 "give exactly one of --scope NAME and --rule PASS" -- explain m.pbtxt
# Rule options are usage-checked before the model is read.
expect 2 "unknown warning option '-Wfrob'" -- -Wfrob --emit tf-pbtxt m.pbtxt
expect 2 "--vm-budget: 'x' is not" -- --vm-budget x --emit tf-pbtxt m.pbtxt
expect 2 "--vm-budget: '0' is not" -- --vm-budget 0 --emit tf-pbtxt m.pbtxt
expect 2 "unknown option '--rule'; did you mean '--rules'" -- --rule x --emit tf-pbtxt m.pbtxt

# Nothing but the model was written by any of the above.
left=$(ls -A "$T" | grep -v -x -e m.pbtxt -e out -e err)
if [ -n "$left" ]; then echo "FAIL: files left behind: $left"; fail=1; fi
exit $fail
