#!/usr/bin/env bash
# CLI test: `tfxc fmt` binary <-> text, format by extension or --to, stdout, SavedModel input,
# cross-checked with protoc when it is installed. Env: TFXC, TFXC_PROTO_DIR (optional).
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
run() { "$TFXC" "$@" 2>err || { echo "FAIL: tfxc $* -> exit $?"; cat err; fail=1; }; }
cat >m.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "s/y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
versions { producer: 1234 }
PB
run fmt m.pbtxt -o m.pb
run fmt m.pb -o back.pbtxt
run fmt m.pbtxt -o canon.txt
cmp -s back.pbtxt canon.txt || { echo "FAIL: pbtxt -> pb -> pbtxt differs from pbtxt -> pbtxt"; diff back.pbtxt canon.txt; fail=1; }
grep -q 'name: "s/y"' back.pbtxt || { echo "FAIL: node missing after round trip"; fail=1; }
grep -q 'producer: 1234' back.pbtxt || { echo "FAIL: versions missing after round trip"; fail=1; }
# The binary output is binary (not text) and round-trips byte for byte.
grep -q 'name:' m.pb && { echo "FAIL: m.pb looks like text"; fail=1; }
run fmt back.pbtxt -o m2.pb
cmp -s m.pb m2.pb || { echo "FAIL: pb -> pbtxt -> pb is not stable"; fail=1; }
# --to overrides the extension; '-' writes to stdout.
run fmt m.pb -o forced.pb --to pbtxt
grep -q 'name: "x"' forced.pb || { echo "FAIL: --to pbtxt ignored"; fail=1; }
"$TFXC" fmt m.pb -o - --to pbtxt >stdout.txt 2>err || { echo "FAIL: fmt to stdout"; cat err; fail=1; }
cmp -s stdout.txt canon.txt || { echo "FAIL: stdout text differs"; fail=1; }
"$TFXC" fmt m.pbtxt -o - --to pb >stdout.pb 2>err || { echo "FAIL: fmt to stdout (pb)"; cat err; fail=1; }
cmp -s stdout.pb m.pb || { echo "FAIL: stdout binary differs"; fail=1; }
# protoc agrees that the binary is a GraphDef.
if command -v protoc >/dev/null && [ -n "${TFXC_PROTO_DIR:-}" ] && [ -d "$TFXC_PROTO_DIR" ]; then
  if protoc -I"$TFXC_PROTO_DIR" --decode=tensorflow.GraphDef tensorflow/graph.proto <m.pb >dec.txt 2>err; then
    grep -q 'name: "s/y"' dec.txt || { echo "FAIL: protoc decode lacks s/y"; fail=1; }
  else
    echo "FAIL: protoc cannot decode m.pb"; cat err; fail=1
  fi
fi
# A SavedModel (text) in, its GraphDef out.
cat >saved_model.pbtxt <<'PB'
saved_model_schema_version: 1
meta_graphs {
  meta_info_def { tags: "serve" }
  graph_def { node { name: "sm" op: "NoOp" } }
}
PB
run fmt saved_model.pbtxt -o sm.pbtxt
grep -q 'name: "sm"' sm.pbtxt || { echo "FAIL: SavedModel graph not written"; cat sm.pbtxt; fail=1; }
grep -q 'meta_graphs' sm.pbtxt && { echo "FAIL: fmt wrote the SavedModel wrapper, not the GraphDef"; fail=1; }
# Bad input: exit 3 and no output file (also no temp file) left.
printf 'node { name: ' >bad.pbtxt
"$TFXC" fmt bad.pbtxt -o bad.pb 2>err; rc=$?
[ $rc -eq 3 ] || { echo "FAIL: fmt of malformed input exited $rc, want 3"; cat err; fail=1; }
ls -A | grep -Eq '^bad\.pb($|\.tmp)' && { echo "FAIL: output or temp file left: $(ls -A | grep '^bad\.pb')"; fail=1; }
# An unwritable output: exit 3, nothing left.
"$TFXC" fmt m.pbtxt -o nodir/out.pb 2>err; rc=$?
[ $rc -eq 3 ] || { echo "FAIL: unwritable output exited $rc, want 3"; cat err; fail=1; }
exit $fail
