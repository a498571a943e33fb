#!/usr/bin/env bash
# CLI test: signatures (--signature, passes/signature.h) and training machinery
# (graph/training.h) on tests/cli/signatures/model.pbtxt, a MetaGraphDef whose signature key
# order differs from its node order, and on a small TF1-style training GraphDef:
# - inspect lists every signature (text and JSON, compared with signatures/inspect.{txt,json});
# - the default signature (serving_default) makes the Data nodes p0 (key a), p1 (key b) and the
#   NetOutput sub (o1), add (o2): signature order, not graph order; its input shapes and dtypes;
# - --signature other: one input with an unknown rank, one output, what it does not need gone;
# - errors: unknown name (lists them, exit 3), bad dtype / port / node / sparse input (exit 3),
#   --signature with --out-nodes (exit 2), --signature on a GraphDef (exit 3); no output left;
# - --out-nodes without --signature uses no signature; --input-shape sets a signature input's shape;
# - training machinery: pruned for a GE output (node counts through --dump-after prune), kept
#   with --emit tf-pbtxt alone; what explicit outputs still need is one warning per op type.
# UPDATE=1 rewrites the inspect expectations. Env: TFXC, TFXC_SRC; python3.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
: "${TFXC_SRC:?set TFXC_SRC to the repo root}"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
D="$TFXC_SRC/tests/cli/signatures"
M="$D/model.pbtxt"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# ---- inspect
"$TFXC" inspect "$M" | sed "s|$D/||" >inspect.txt 2>err || bad "inspect: exit $?"
"$TFXC" inspect --json "$M" >inspect.json 2>err || bad "inspect --json: exit $?"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' inspect.json || bad "inspect --json is not JSON"
for f in inspect.txt inspect.json; do
  if [ "${UPDATE:-0}" = 1 ]; then cp "$f" "$D/$f"
  else diff -u "$D/$f" "$f" || bad "$f differs from tests/cli/signatures/$f (UPDATE=1 rewrites it)"; fi
done

# ge_ops FILE.ge.json: one line per main-graph op: name type [index] <- inputs
ge_ops() {
  python3 - "$1" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["graph"][0]
for op in g["op"]:
    a = op.get("attr", {})
    ix = " index=%s" % a["index"]["i"] if "index" in a else ""
    shape = ""
    if op["type"] == "Data":
        d = op["outputDesc"][0]
        shape = " %s %s" % (d.get("dtype"), d.get("shape", {}).get("dim", []))
    print("%s %s%s%s <- %s" % (op["name"], op["type"], ix, shape, ",".join(op.get("input", []))))
PY
}

# ---- the default signature: Data p0 (a) then p1 (b); NetOutput sub (o1), add (o2)
"$TFXC" "$M" --emit ge-json -o def.json 2>err || { bad "default signature: exit $?"; cat err; }
ge_ops def.json >def.txt
cat >want.txt <<'W'
p0 Data index=0 DT_FLOAT ['-1'] <- 
p1 Data index=1 DT_FLOAT ['2'] <- 
w Const <- 
add Add <- p0:0,p1:0
mul Mul <- p1:0,w:0
sub Sub <- add:0,mul:0
NetOutput NetOutput <- sub:0,add:0
W
diff -u want.txt def.txt || bad "default signature: Data/NetOutput not in signature order"

# ---- --signature other: p1 with an unknown rank, output mul
"$TFXC" "$M" --signature other --emit ge-json -o other.json 2>err || { bad "--signature other: exit $?"; cat err; }
ge_ops other.json >other.txt
cat >want.txt <<'W'
p1 Data index=0 DT_FLOAT ['-2'] <- 
w Const <- 
mul Mul <- p1:0,w:0
NetOutput NetOutput <- mul:0
W
diff -u want.txt other.txt || bad "--signature other"

# ---- --input-shape sets a signature input's shape; order stays
"$TFXC" "$M" --input-shape "p1:2;p0:2" --emit ge-json -o shaped.json 2>err || { bad "--input-shape with a signature: exit $?"; cat err; }
ge_ops shaped.json >shaped.all && head -2 shaped.all >shaped.txt
printf "p0 Data index=0 DT_FLOAT ['2'] <- \np1 Data index=1 DT_FLOAT ['2'] <- \n" >want.txt
diff -u want.txt shaped.txt || bad "--input-shape with a signature"

# ---- --out-nodes without --signature: no signature
"$TFXC" "$M" --out-nodes "mul:0" --emit ge-json -o outn.json 2>err || { bad "--out-nodes: exit $?"; cat err; }
ge_ops outn.json >outn.txt
[ "$(tail -1 outn.txt)" = "NetOutput NetOutput <- mul:0" ] || bad "--out-nodes did not replace the signature"
grep -q "^p0 " outn.txt && bad "--out-nodes: p0 kept (a signature was applied)"

# ---- errors: exit code, message, no output
err_case() { # WANT_RC REGEX ARGS...
  local want=$1 re=$2; shift 2
  rm -f e.air
  "$TFXC" "$@" -o e.air 2>err; local rc=$?
  [ "$rc" = "$want" ] || bad "tfxc $*: exit $rc, want $want: $(head -c 300 err)"
  grep -Eq -- "$re" err || bad "tfxc $*: message does not match '$re': $(head -c 300 err)"
  [ ! -e e.air ] || bad "tfxc $*: wrote an output"
}
err_case 3 "no signature of that name; available: 'bad_dtype', 'bad_node', 'bad_port', 'other', 'serving_default', 'sparse'" "$M" --signature nosuch
err_case 3 "input 'x' has dtype DT_INT32, but its node 'p0' has dtype DT_FLOAT" "$M" --signature bad_dtype
err_case 3 "input 'x' is output 1 of node 'add': only output 0" "$M" --signature bad_port
err_case 3 "output 'y' names tensor 'nope:0', but the graph has no node 'nope'" "$M" --signature bad_node
err_case 3 "input 'x' is a sparse tensor" "$M" --signature sparse
err_case 2 "--signature and --out-nodes both choose the outputs" "$M" --signature other --out-nodes mul
cat >g.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
PB
err_case 3 "--signature 'serving_default': the model has no signatures" g.pbtxt --signature serving_default

# ---- training machinery (no signature, no --out-nodes)
cat >train.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "y" op: "Mul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "pred" op: "Identity" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
node { name: "v/read" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v/Assign" op: "Assign" input: "v" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "init" op: "NoOp" input: "^v/Assign" }
node { name: "loss" op: "Sub" input: "y" input: "v/read" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "train/update_v" op: "ApplyGradientDescent" input: "v" input: "lr" input: "loss" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "train" op: "NoOp" input: "^train/update_v" }
node { name: "gradients/loss_grad/tuple/control_dependency_1" op: "Identity" input: "loss" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "tag" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "loss" } } } }
node { name: "summary" op: "ScalarSummary" input: "tag" input: "loss" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "model" } } } }
node { name: "save/names" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "v" } } } }
node { name: "save/slices" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "" } } } }
node { name: "save/SaveV2" op: "SaveV2" input: "save/Const" input: "save/names" input: "save/slices" input: "v" attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
node { name: "save/control_dependency" op: "Identity" input: "save/Const" input: "^save/SaveV2" attr { key: "T" value { type: DT_STRING } } }
node { name: "save/RestoreV2" op: "RestoreV2" input: "save/Const" input: "save/names" input: "save/slices" attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
node { name: "save/Assign" op: "Assign" input: "v" input: "save/RestoreV2" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "save/restore_all" op: "NoOp" input: "^save/Assign" }
PB
"$TFXC" inspect train.pbtxt | grep -q "^nodes:      23$" || bad "train.pbtxt: inspect does not see 23 nodes"
rm -rf dd
"$TFXC" train.pbtxt --dump-after prune --dump-dir dd --emit ge-json -o train.json 2>err || { bad "training graph: exit $?"; cat err; }
got=$(grep -o '^  name: "[^"]*"' dd/*-prune.pbtxt | sed 's/.*"\(.*\)"/\1/' | tr '\n' ' ')
[ "$got" = "x w y pred " ] || bad "training graph: after prune '$got', want 'x w y pred ' (23 -> 4 nodes)"
ge_ops train.json >train.txt
[ "$(tail -1 train.txt)" = "NetOutput NetOutput <- pred:0" ] || bad "training graph: NetOutput"
# --emit tf-pbtxt alone: the graph stays whole
"$TFXC" train.pbtxt --emit tf-pbtxt -o train.tf.pbtxt 2>err || bad "training graph, tf-pbtxt: exit $?"
[ "$(grep -c '^node {' train.tf.pbtxt)" = 23 ] || bad "training graph, tf-pbtxt: not 23 nodes"
# explicit outputs that need training machinery: one warning per op type with an example
"$TFXC" train.pbtxt --out-nodes "init;pred" --check >/dev/null 2>err
grep -q "warning: the outputs need 1 node of op type Assign (assignment), which cannot run in an Ascend inference model, e.g. 'v/Assign'" err ||
  bad "no warning for the Assign the outputs need: $(head -c 400 err)"
[ "$(grep -c 'warning: the outputs need' err)" = 1 ] || bad "expected exactly one training warning"
exit $fail
