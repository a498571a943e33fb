#!/usr/bin/env bash
# Function attributes checked by the op mapping (src/passes/pass_opmap.c, validate_graph): a
# func attr or a list(func) attr naming a function the library lacks fails its node (cause 2,
# "attribute 'A' names function 'F', which is not in the library"); one naming a library
# function is fine; nodes of the function body are mapped too. Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cat > "$T/m.pbtxt" <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "c1" op: "PartitionedCall" input: "x" attr { key: "f" value { func { name: "f" } } } attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } } }
node { name: "c2" op: "PartitionedCall" input: "x" attr { key: "f" value { func { name: "missing_fn" } } } attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } } }
node { name: "c3" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "fs" value { list { func { name: "f" } func { name: "gone" } } } } }
library {
  function {
    signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "b" type: DT_FLOAT } }
    node_def { name: "i" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "b" value: "i:output:0" }
  }
}
PB
"$TFXC" --check "$T/m.pbtxt" > "$T/r.json" 2> "$T/err"
rc=$?
[ "$rc" -eq 1 ] || bad "--check: exit $rc, want 1"
line() { grep -F "{\"name\": \"$1\"," "$T/r.json"; }
line c1 | grep -qF '"result": "success"' || bad "c1 (f is in the library) failed: $(line c1)"
line c2 | grep -qF "\"message\": \"attribute 'f' names function 'missing_fn', which is not in the library\"" ||
  bad "c2: no missing-function cause: $(line c2)"
line c3 | grep -qF "\"message\": \"attribute 'fs' names function 'gone', which is not in the library\"" ||
  bad "c3: no missing-function cause for the list: $(line c3)"
line i | grep -qF '"graph": "f"' || bad "the body of f is not mapped: $(line i)"
grep -qF '"fail": 2,' "$T/r.json" || bad "want 2 failed nodes: $(grep -F '"fail"' "$T/r.json")"
# the conversion refuses the model and writes nothing
"$TFXC" -o "$T/out.air" "$T/m.pbtxt" > /dev/null 2> "$T/err2"
rc=$?
[ "$rc" -ne 0 ] || bad "conversion of a model naming missing functions succeeded"
[ ! -e "$T/out.air" ] || bad "a failed conversion left $T/out.air"
grep -qF "missing_fn" "$T/err2" || bad "the conversion's errors do not name missing_fn: $(cat "$T/err2")"
exit $fail
