#!/usr/bin/env bash
# CLI test: `const` inputs of a rewrite's new nodes (docs/LANGUAGE.md section 7). Each becomes
# a Const node named NODE/const_J (J: the input's position) with the literal's dtype (float ->
# DT_FLOAT, integers -> DT_INT32 or DT_INT64 when one does not fit, bool, string; a list is
# 1-D), read by the new node (function bodies: NAME:output:0), listed in the report's
# replacement with type Const and carrying _fusion_pass. The documented example (ReciprocalAsDiv,
# taken from docs/LANGUAGE.md itself) converts to GE. Bad literals are rule errors (exit 4,
# file:line:col); `format` in a rewrite stays an error. Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
SRC="${TFXC_SRC:?set TFXC_SRC to the repo root}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }

cat >m.pbtxt <<'M'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "r" op: "Reciprocal" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "t" op: "Tanh" input: "r" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "Identity" input: "t" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "call" op: "PartitionedCall" input: "x" attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } } attr { key: "f" value { func { name: "fn" } } } }
node { name: "y2" op: "Identity" input: "call" attr { key: "T" value { type: DT_FLOAT } } }
library {
  function {
    signature { name: "fn" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "o" type: DT_FLOAT } }
    node_def { name: "rc" op: "Reciprocal" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "id" op: "Identity" input: "rc:y:0" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "o" value: "id:output:0" }
  }
}
M
# the documented example, as docs/LANGUAGE.md has it
awk '/^```scoperule$/ { b = ""; inb = 1; next } /^```$/ { if (inb && b ~ /rewrite ReciprocalAsDiv/) printf "%s", b; inb = 0; next } inb { b = b $0 "\n" }' \
  "$SRC/docs/LANGUAGE.md" >doc.scoperule
grep -q "const 1.0" doc.scoperule || { echo "FAIL: the ReciprocalAsDiv example is missing from docs/LANGUAGE.md"; exit 1; }
"$TFXC" m.pbtxt --no-stdlib -r doc.scoperule --enable-scope-fusion-passes ReciprocalAsDiv --emit tf-pbtxt -o a.pbtxt --report a.json 2>err || { echo "FAIL: doc example run"; cat err; fail=1; }
python3 - a.pbtxt a.json <<'PY' || fail=1
import json, re, sys
text = open(sys.argv[1]).read()
nodes = {}
for b in re.findall(r'^node \{\n(.*?)^\}\n', text, re.M | re.S) + re.findall(r'^    node_def \{\n(.*?)^    \}\n', text, re.M | re.S):
    name = re.search(r'name: "(.*)"', b).group(1)
    nodes[name] = b
def need(cond, msg):
    if not cond:
        print("FAIL:", msg)
        sys.exit(1)
need('r/const_0' in nodes, "no Const r/const_0: %s" % sorted(nodes))
c = nodes['r/const_0']
need('op: "Const"' in c and 'type: DT_FLOAT' in c and 'float_val: 1' in c and '"_fusion_pass"' in c, "Const node: " + c)
need('dim' not in c, "a scalar Const has a shape: " + c)
need(re.search(r'op: "RealDiv"\n  input: "r/const_0"\n  input: "x"', nodes['r']), "RealDiv inputs: " + nodes['r'])
need('rc/const_0' in nodes and re.search(r'input: "rc/const_0:output:0"\n\s*input: "a"', nodes['rc']), "function body: " + nodes.get('rc', ''))
rep = json.load(open(sys.argv[2]))["dataflow"]["applied"]
need([(a["graph"], [(x["name"], x["type"]) for x in a["replacement"]]) for a in rep] ==
     [("", [("r", "RealDiv"), ("r/const_0", "Const")]), ("fn", [("rc", "RealDiv"), ("rc/const_0", "Const")])], "report: %s" % rep)
PY
"$TFXC" m.pbtxt -r doc.scoperule --enable-scope-fusion-passes ReciprocalAsDiv -o a.air 2>err || { echo "FAIL: the example does not convert to GE"; cat err; fail=1; }

# dtypes and shapes of the literal kinds
cat >k.scoperule <<'R'
rewrite Kinds general {
  match t: Tanh(v);
  node n: IdentityN(v, const [1, 2], const 3000000000, const true, const "s", const [1, 2.5], const -7) {
    attr T = [t.attr.T, DT_INT32, DT_INT64, DT_BOOL, DT_STRING, DT_FLOAT, DT_INT32];
  }
  out t = n;
}
R
"$TFXC" m.pbtxt --no-stdlib -r k.scoperule --emit tf-pbtxt -o k.pbtxt 2>err || { echo "FAIL: kinds run"; cat err; fail=1; }
python3 - k.pbtxt <<'PY' || fail=1
import re, sys
text = open(sys.argv[1]).read()
nodes = {re.search(r'name: "(.*)"', b).group(1): b for b in re.findall(r'^node \{\n(.*?)^\}\n', text, re.M | re.S)}
want = {"t/const_1": ("DT_INT32", "int_val: 1", 2), "t/const_2": ("DT_INT64", "int64_val: 3000000000", None),
        "t/const_3": ("DT_BOOL", "bool_val: true", None), "t/const_4": ("DT_STRING", 'string_val: "s"', None),
        "t/const_5": ("DT_FLOAT", "float_val: 2.5", 2), "t/const_6": ("DT_INT32", "int_val: -7", None)}
for name, (dt, val, dim) in want.items():
    b = nodes.get(name, "")
    ok = ('type: %s' % dt) in b and val in b and ((dim is None and 'dim' not in b) or ('size: %d' % dim if dim else '') in b)
    if not ok:
        print("FAIL: %s: want %s %s dim %s, got:\n%s" % (name, dt, val, dim, b))
        sys.exit(1)
PY

# errors: exit 4 with locations
cat >bad.scoperule <<'R'
rewrite Bad {
  match t: Tanh(v);
  node a: AddN(v, const [[1], [2]]);
  node b: AddN(v, const [1, "x"]);
  node c: AddN(v, const DT_FLOAT);
  node d: Tanh(v) { format input 0 = "NCHW"; }
  out t = d;
}
R
"$TFXC" compile --no-stdlib bad.scoperule -o bad.tfxb 2>err; rc=$?
[ $rc = 4 ] || { echo "FAIL: bad consts: exit $rc, want 4"; cat err; fail=1; }
for want in "bad.scoperule:3:25: error: a rewrite's 'const' takes a number, bool or string literal, or a list of one kind of them, got a list" \
            "bad.scoperule:4:25: error: a rewrite's 'const'" "bad.scoperule:5:25: error: a rewrite's 'const'" \
            "bad.scoperule:6:21: error: 'format' is not supported in rewrites"; do
  grep -qF "$want" err || { echo "FAIL: missing diagnostic: $want"; cat err; fail=1; }
done
[ ! -e bad.tfxb ] || { echo "FAIL: a pack was written for bad rules"; fail=1; }
exit $fail
