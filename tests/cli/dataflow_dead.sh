#!/usr/bin/env bash
# CLI test: producers a dataflow rewrite leaves without readers (docs/LANGUAGE.md section 7,
# "Dead producers"). A rewrite that consumes a Const (here x * 1 -> x, and x * Identity(Const))
# removes it when nothing else reads it, and the side-effect-free producers that only it read
# follow; kept are: a Const another node still reads, a Const a requested output names
# (--out-nodes), a Const a function's return value reads, and producers that are not
# side-effect free (a Placeholder). A match whose node a function's control return names is not
# applied (the control return would dangle). The report lists the dropped nodes per rewrite, and the
# dropped nodes are gone from the output (main graph and function body), and are the same whether
# the main graph's readers are counted by id or from the input strings. Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }

c1() { echo "node { name: \"$1\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }"; }
f() { echo "node { name: \"$1\" op: \"$2\" input: \"$3\" ${4:+input: \"$4\"} attr { key: \"T\" value { type: DT_FLOAT } } }"; }
{
  echo 'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }'
  c1 one; f m1 Mul x one; f y1 Identity m1
  c1 two0; f two Identity two0; f m2 Mul two x; f y2 Identity m2
  c1 shared; f m3 Mul x shared; f a3 AddV2 x shared; f y3 Identity m3
  c1 keepme; f m4 Mul keepme x; f y4 Identity m4
  cat <<'L'
node { name: "call" op: "PartitionedCall" input: "x" attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT type: DT_FLOAT type: DT_FLOAT } } } attr { key: "f" value { func { name: "fn" } } } }
node { name: "y5" op: "Identity" input: "call" attr { key: "T" value { type: DT_FLOAT } } }
library {
  function {
    signature { name: "fn" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "r" type: DT_FLOAT } output_arg { name: "r2" type: DT_FLOAT } output_arg { name: "r3" type: DT_FLOAT } control_output: "k" }
    node_def { name: "c1" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
    node_def { name: "mm" op: "Mul" input: "a" input: "c1:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "id" op: "Identity" input: "mm:z:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "c2" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
    node_def { name: "mm2" op: "Mul" input: "c2:output:0" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "id2" op: "Identity" input: "mm2:z:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "c3" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
    node_def { name: "mm3" op: "Mul" input: "a" input: "c3:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "id3" op: "Identity" input: "mm3:z:0" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "r" value: "id:output:0" }
    ret { key: "r2" value: "c2:output:0" }
    ret { key: "r3" value: "id2:output:0" }
    control_ret { key: "k" value: "mm3" }
  }
}
L
} >m.pbtxt
cat >r.scoperule <<'R'
rewrite MulOne general {
  match m: Mul(v, k) where k.op == "Const" and const_value(k) == [1.0];
  out m = v;
}
rewrite MulIdentity general {
  match m: Mul(v, k) where k.op == "Identity";
  out m = v;
}
R
dropped() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["dataflow"]; print(";".join(a["graph"] + ":" + a["root"] + "=" + ",".join(a["dropped"]) for a in d["applied"]))' "$1"; }
nodes() { grep -o '^  name: "[^"]*"\|^    name: "[^"]*"' "$1" | sed 's/.*name: "\(.*\)"/\1/' | sort | tr '\n' ' '; }

"$TFXC" m.pbtxt --no-stdlib -r r.scoperule --emit tf-pbtxt -o a.pbtxt --report a.json 2>err || { echo "FAIL: run"; cat err; fail=1; }
want=":m1=one;:m3=;:m4=keepme;:m2=two,two0;fn:mm=c1;fn:mm2="
[ "$(dropped a.json)" = "$want" ] || { echo "FAIL: dropped: $(dropped a.json), want $want"; fail=1; }
for gone in one two two0 keepme c1; do
  grep -q "name: \"$gone\"" a.pbtxt && { echo "FAIL: dead producer '$gone' still in the output"; fail=1; }
done
for kept in x shared a3 c2 id id2 c3 mm3 id3 y1 y2 y3 y4 y5 call; do
  grep -q "name: \"$kept\"" a.pbtxt || { echo "FAIL: '$kept' was removed"; fail=1; }
done
grep -q 'value: "c2:output:0"' a.pbtxt && grep -q 'input: "a"' a.pbtxt || { echo "FAIL: function body"; fail=1; }

# a requested output is never dropped
"$TFXC" m.pbtxt --no-stdlib -r r.scoperule --out-nodes "y4;keepme" --emit tf-pbtxt -o b.pbtxt --report b.json 2>err ||
  { echo "FAIL: --out-nodes run"; cat err; fail=1; }
grep -q 'name: "keepme"' b.pbtxt || { echo "FAIL: --out-nodes keepme was dropped"; fail=1; }
case "$(dropped b.json)" in *keepme*) echo "FAIL: keepme reported dropped: $(dropped b.json)"; fail=1 ;; esac

# deterministic
"$TFXC" m.pbtxt --no-stdlib -r r.scoperule --emit tf-pbtxt -o c.pbtxt 2>/dev/null && cmp -s a.pbtxt c.pbtxt ||
  { echo "FAIL: two runs differ"; fail=1; }

# In the main graph the readers of a candidate are counted by id (the index's producers of the
# strings the round wrote); TFXC_DATAFLOW_DROP_BY_NAME=1 counts them from the strings, as in
# function bodies. Both must drop the same nodes: a Const a new node captures (b), one the
# anchor's moved control input reads (cc2), one a rewired reader now reads through an `out`
# (c3), and a dropped Identity whose own input the same round rewired (k, counted from its
# rewritten strings: it now reads c7, which goes with it), with the Const only its control
# input read (cc).
{
  echo 'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }'
  echo 'node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }'
  c1 one; c1 cc; c1 c7; f m1 Mul c7 one
  echo 'node { name: "k" op: "Identity" input: "m1" input: "^cc" attr { key: "T" value { type: DT_FLOAT } } }'
  f m2 Mul y k; f z2 Identity m2
  c1 b; f a AddV2 x b; f za Identity a
  c1 b2; c1 cc2
  echo 'node { name: "a2" op: "AddV2" input: "y" input: "b2" input: "^cc2" attr { key: "T" value { type: DT_FLOAT } } }'
  f za2 Identity a2
  c1 c3; c1 one3; f m3 Mul c3 one3; f w3 Identity m3
} >d.pbtxt
cat >d.scoperule <<'R'
rewrite AddToBias general {
  match a: AddV2(v, b) where b.op == "Const";
  node n: BiasAdd(v, b) { attr T = a.attr.T; }
  out a = n;
}
R
cat r.scoperule >>d.scoperule
for m in m d; do
  "$TFXC" $m.pbtxt --no-stdlib -r $([ $m = m ] && echo r || echo d).scoperule --emit tf-pbtxt -o $m.id.pbtxt --report $m.id.json 2>err ||
    { echo "FAIL: $m by id"; cat err; fail=1; }
  TFXC_DATAFLOW_DROP_BY_NAME=1 "$TFXC" $m.pbtxt --no-stdlib -r $([ $m = m ] && echo r || echo d).scoperule --emit tf-pbtxt -o $m.nm.pbtxt \
    --report $m.nm.json 2>err || { echo "FAIL: $m by name"; cat err; fail=1; }
  cmp -s $m.id.pbtxt $m.nm.pbtxt && [ "$(dropped $m.id.json)" = "$(dropped $m.nm.json)" ] ||
    { echo "FAIL: $m: dead producers by id and by name differ: $(dropped $m.id.json) / $(dropped $m.nm.json)"; fail=1; }
done
want=":m1=one;:a=;:a2=;:m3=one3;:m2=k,c7,cc"
[ "$(dropped d.id.json)" = "$want" ] || { echo "FAIL: dropped: $(dropped d.id.json), want $want"; fail=1; }
for kept in b cc2 c3 x y; do
  grep -q "name: \"$kept\"" d.id.pbtxt || { echo "FAIL: '$kept' was removed"; fail=1; }
done
exit $fail
