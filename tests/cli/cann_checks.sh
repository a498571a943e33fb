#!/usr/bin/env bash
# Op maps checked against the CANN prototypes per node (issue 12 items 3 and 4), in conversion
# and in --check alike:
#  - a map to a CANN type no prototype declares (`MaxPol`) fails the node with "did you mean",
#    unless a user *.cannops.tsv declares it or --passthrough-unknown is given;
#  - a map attribute whose value cannot have the prototype's type (an int for ListInt, computed
#    so that the compiler cannot see it) fails the node naming the rule file:line, the
#    attribute, the expected and the found type;
#  - a required prototype attribute left unset fails the node (it used to be a warning, and
#    the .air was written).
# Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
cd "$T" || exit 1
cat >m.pbtxt <<'M'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } dim { size: 4 } dim { size: 1 } } } } }
node { name: "pool" op: "MaxPool" input: "x" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "ksize" value { list { i: 1 i: 2 i: 2 i: 1 } } }
       attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } }
       attr { key: "padding" value { s: "VALID" } } attr { key: "data_format" value { s: "NHWC" } } }
M
echo 'op MaxPool -> MaxPol { auto; }' >typo.opmap
echo 'op MaxPool -> MaxPool { auto; attr ksize = ksize[1]; }' >attr.opmap
echo 'op MaxPool -> MaxPool { auto; drop ksize; }' >req.opmap
printf '#name\tinputs\toutputs\tattrs\tsource\nMaxPol\tx:req:f32\ty:req:f32\t\ta custom op\n' >maxpol.cannops.tsv

expect_fail() { # NAME MESSAGE ARGS...: exit 1; the conversion prints "m.pbtxt: error: node
  # 'pool' (op 'MaxPool' -> TYPE): MESSAGE" on stderr, --check has MESSAGE in its report
  local name=$1 msg=$2
  shift 2
  for mode in convert check; do
    rm -f o.air
    if [ $mode = convert ]; then "$TFXC" m.pbtxt "$@" -o o.air >/dev/null 2>err; rc=$?; out=err
    else "$TFXC" m.pbtxt "$@" --check >report 2>err; rc=$?; out=report; fi
    if [ $rc -ne 1 ] || ! grep -qF -- "$msg" $out || { [ $mode = convert ] && ! grep -q "^m.pbtxt: error: node 'pool' (op 'MaxPool' -> " err; }; then
      echo "FAIL: $name ($mode): exit $rc"; cat err; fail=1
    else
      echo "ok: $name ($mode)"
    fi
    [ -e o.air ] && { echo "FAIL: $name: o.air written"; fail=1; }
  done
}
expect_fail "unknown CANN type" "rule 'MaxPool->MaxPol' (typo.opmap:1) maps to CANN op type 'MaxPol', which no prototype declares (give its prototype in a *.cannops.tsv file, or --passthrough-unknown to keep it)" -r typo.opmap
"$TFXC" m.pbtxt -r typo.opmap -o o.air 2>err
grep -qF "did you mean 'MaxPool'" err || { echo "FAIL: no 'did you mean'"; fail=1; }
expect_fail "attribute type" "rule 'MaxPool->MaxPool' (attr.opmap:1): attribute 'ksize' of CANN op 'MaxPool': expected ListInt, found int" -r attr.opmap
expect_fail "required attribute" "rule 'MaxPool->MaxPool' (req.opmap:1): required attribute 'ksize' (ListInt) of CANN op 'MaxPool' is not set and has no default" -r req.opmap

"$TFXC" m.pbtxt -r typo.opmap --passthrough-unknown -o o.air 2>err || { echo "FAIL: --passthrough-unknown"; cat err; fail=1; }
"$TFXC" m.pbtxt -r typo.opmap -r maxpol.cannops.tsv -o o.air 2>err || { echo "FAIL: a user prototype declares MaxPol"; cat err; fail=1; }
"$TFXC" m.pbtxt -o o.air 2>err || { echo "FAIL: the stdlib MaxPool map"; cat err; fail=1; }
grep -q "required attribute" err && { echo "FAIL: stdlib MaxPool leaves a required attribute"; fail=1; }
exit $fail
