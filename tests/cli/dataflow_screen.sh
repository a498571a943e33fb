#!/usr/bin/env bash
# CLI test: the rule-signature screen of dataflow rewrites (src/fusion/dataflow_sig.c). Before a
# rewrite's program runs at a node, the engine tests the pattern's op types, input counts,
# edges, repeated captures and the leading `where` conjuncts that compare an attribute or an op
# with a literal; a node that fails them is skipped (the report's "screened"). Checked here:
#  - which rewrites are screened and which still run (report counts, exact);
#  - a commutative pattern written in the other operand order still matches (both orders are
#    screened); a capture's op (`k.op == "Const"`) is read through the producer;
#  - a conjunct the screen cannot decide (a builtin call, a list attribute) lets the program
#    run, and nothing after it is decided early;
#  - a pack loaded from a file runs every candidate: its signatures are not trusted (one edited
#    by hand to mirror its program no longer gives the same rewrites);
#  - with TFXC_DATAFLOW_NO_SCREEN=1 (every program runs) the output and the applied rewrites are
#    byte-identical, on this graph, on every dataflow golden case (stdlib + the rules/dataflow
#    pack, main graph and function bodies) and, when the corpus is present, on a BERT graph.
# Env: TFXC, TFXC_SRC, TFXC_CORPUS (optional).
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
node { name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "sig" op: "Sigmoid" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "m" op: "Mul" input: "x" input: "sig" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "mc" op: "Mul" input: "r" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "t" op: "Tanh" input: "mc" attr { key: "T" value { type: DT_FLOAT } } attr { key: "l" value { list { i: 3 } } } }
node { name: "y1" op: "Identity" input: "m" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y2" op: "Identity" input: "t" attr { key: "T" value { type: DT_FLOAT } } }
M
cat >screen.scoperule <<'R'
# screened at r: T is DT_FLOAT
rewrite HalfRelu general {
  match a: Relu(x) where a.attr.T == DT_HALF;
  node n: Relu6(x) { attr T = a.attr.T; }
  out a = n;
}
# m is Mul(x, sig): matches with the operands swapped; the `or` holds on its first test
rewrite SwishSwapped general {
  match o: Mul(s, x) where o.attr.T == DT_FLOAT or o.attr.T == DT_HALF;
  match s: Sigmoid(x);
  node w: Swish(x) { attr T = o.attr.T; attr scale = 1.0; }
  out o = w;
}
# mc is Mul(r, c): the capture k is the Const in the second order
rewrite ConstScale general {
  match o: Mul(k, y) where k.op == "Const" and not (o.attr.T != DT_FLOAT);
  node n: MulNoNan(y, k) { attr T = o.attr.T; }
  out o = n;
}
# the first conjunct is a builtin call: the program runs (and fails on the second)
rewrite Undecided general {
  match a: Tanh(y) where len(consumers(a)) >= 0 and a.attr.T == DT_HALF;
  node n: Tanh(y) { attr T = a.attr.T; }
  out a = n;
}
# a list attribute: the screen does not read it, the program runs (and fails)
rewrite ListAttr general {
  match a: Tanh(y) where a.attr.l == 3;
  node n: Tanh(y) { attr T = a.attr.T; }
  out a = n;
}
# an absent attribute is none: screened
rewrite NoAttr general {
  match a: Tanh(y) where a.attr.nosuch == 3;
  node n: Tanh(y) { attr T = a.attr.T; }
  out a = n;
}
# a type that is not in the graph, behind the root: screened
rewrite NoChild general {
  match a: Tanh(b);
  match b: Mul(_, z);
  match z: Softplus(v);
  node n: Tanh(v) { attr T = a.attr.T; }
  out a = n;
}
R
summary() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["dataflow"]; print(",".join(a["rule"] + "@" + a["root"] for a in d["applied"]), d["candidates"], d["screened"])' "$1"; }

"$TFXC" m.pbtxt --no-stdlib -r screen.scoperule --emit tf-pbtxt -o a.pbtxt --report a.json 2>err ||
  { echo "FAIL: screened run"; cat err; fail=1; }
TFXC_DATAFLOW_NO_SCREEN=1 "$TFXC" m.pbtxt --no-stdlib -r screen.scoperule --emit tf-pbtxt -o b.pbtxt --report b.json 2>err ||
  { echo "FAIL: unscreened run"; cat err; fail=1; }
# Round 1 (topological order): r: HalfRelu screened; mc: ConstScale runs and applies; m:
# SwishSwapped runs and applies; t: Undecided and ListAttr run, NoAttr screened, NoChild (a
# candidate: t reads a Mul) screened. Round 2 changes nothing: r: HalfRelu screened; t:
# Undecided and ListAttr run, NoAttr screened (t reads a MulNoNan now: NoChild is no candidate).
# So 6 programs run and 5 candidates are screened (11 runs without the screen).
[ "$(summary a.json)" = "ConstScale@mc,SwishSwapped@m 6 5" ] || { echo "FAIL: screen counts: $(summary a.json)"; fail=1; }
[ "$(summary b.json)" = "ConstScale@mc,SwishSwapped@m 11 0" ] || { echo "FAIL: unscreened counts: $(summary b.json)"; fail=1; }
cmp -s a.pbtxt b.pbtxt || { echo "FAIL: the screen changed the output"; diff a.pbtxt b.pbtxt | head; fail=1; }
grep -q 'op: "Swish"' a.pbtxt && grep -q 'op: "MulNoNan"' a.pbtxt || { echo "FAIL: rewrites missing"; fail=1; }

# the disassembly shows the signature
"$TFXC" disasm screen.scoperule >dis.txt 2>err || { echo "FAIL: disasm"; cat err; fail=1; }
grep -q '"#sig 1 1 m 1 Relu 1 0 c 0 w 1 = a m0 T ' dis.txt || { echo "FAIL: no signature in the disassembly"; grep HalfRelu dis.txt; fail=1; }

# A loaded pack's signatures do not screen (src/vm/pack.h, sigs_trusted): nothing checks a
# signature against its program, and a pack edited and re-hashed by hand can carry one that no
# longer mirrors it. Here SwishSwapped's signature names "Sigmoix" instead of "Sigmoid" (same
# length; payload size and FNV-1a hash fixed up), so trusting it would skip m. The pack as
# compiled must also run every candidate (11) and give the compiled-from-source output.
"$TFXC" compile --no-stdlib screen.scoperule -o s.tfxb 2>err || { echo "FAIL: compile"; cat err; fail=1; }
python3 - s.tfxb e.tfxb <<'PY' || { echo "FAIL: cannot edit the pack"; fail=1; }
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"#sig 2 1 m 1 Mul 2 1 e 1")
j = b.find(b"Sigmoid", i)
assert i > 0 and j > i, "signature not found"
b[j:j + 7] = b"Sigmoix"
h = 0xcbf29ce484222325
for c in b[32:]:
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
b[16:24] = struct.pack("<Q", h)
open(sys.argv[2], "wb").write(b)
PY
for pk in s e; do
  "$TFXC" m.pbtxt -r $pk.tfxb --emit tf-pbtxt -o $pk.pbtxt --report $pk.json 2>err ||
    { echo "FAIL: run with $pk.tfxb"; cat err; fail=1; }
  [ "$(summary $pk.json)" = "ConstScale@mc,SwishSwapped@m 11 0" ] ||
    { echo "FAIL: $pk.tfxb: a loaded pack's signature screened: $(summary $pk.json)"; fail=1; }
  cmp -s a.pbtxt $pk.pbtxt || { echo "FAIL: $pk.tfxb: output differs from the compiled rules'"; fail=1; }
done

# byte-identical with and without the screen on the dataflow goldens
for c in "$SRC"/tests/golden/cases/dataflow-*; do
  [ -f "$c/model.pbtxt" ] || continue
  args=()
  [ -f "$c/args" ] && read -r -a args <"$c/args"
  [ -d "$c/rules" ] && args+=(-r "$c/rules")
  "$TFXC" "$c/model.pbtxt" "${args[@]}" -r "$SRC/rules/dataflow" --emit tf-pbtxt -o s.pbtxt --report s.json 2>/dev/null; r1=$?
  TFXC_DATAFLOW_NO_SCREEN=1 "$TFXC" "$c/model.pbtxt" "${args[@]}" -r "$SRC/rules/dataflow" --emit tf-pbtxt -o u.pbtxt --report u.json 2>/dev/null; r2=$?
  [ $r1 = $r2 ] && cmp -s s.pbtxt u.pbtxt || { echo "FAIL: $(basename "$c"): screened and unscreened differ (exit $r1/$r2)"; fail=1; }
done
B="${TFXC_CORPUS:-}/models/bert_chinese_L12__graph_def.pb"
if [ -n "${TFXC_CORPUS:-}" ] && [ -f "$B" ]; then
  "$TFXC" "$B" -r "$SRC/rules/dataflow" --enable-scope-fusion-passes GeluErfFusion,GeluErfFusionTf --emit tf-pbtxt -o s.pbtxt --report s.json 2>/dev/null
  TFXC_DATAFLOW_NO_SCREEN=1 "$TFXC" "$B" -r "$SRC/rules/dataflow" --enable-scope-fusion-passes GeluErfFusion,GeluErfFusionTf --emit tf-pbtxt -o u.pbtxt --report u.json 2>/dev/null
  cmp -s s.pbtxt u.pbtxt || { echo "FAIL: BERT: screened and unscreened differ"; fail=1; }
  n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["dataflow"]["applied"]))' s.json)
  [ "$n" -gt 0 ] || { echo "FAIL: BERT: no rewrite applied"; fail=1; }
fi
exit $fail
