#!/usr/bin/env bash
# CLI test: every limit of docs/CLI.md "Limits" (--limit NAME=N), each just at its value (the
# run succeeds) and one below it (the run fails): the message names the limit and how to raise
# it, the exit code is 3 for input limits, 4 for rule-depth, 1 for vm-steps and output-size,
# and no output file (nor a TARGET.tmp.* file) is left, nor an existing one replaced
# (output-size: every --emit kind, the report, dumps, fmt, compile's pack, the expectations
# of tfxc test --update). Inputs are generated here, text and
# binary (tfxc fmt). Also: the aliases --max-file-size / --vm-budget, bad --limit values
# (exit 2), the hard maxima, and that rule-depth does not apply to the stdlib. Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0

# expect CODE PATTERN -- ARGS...: exit code and a fixed string in stderr (empty = no check).
expect() {
  local want=$1 pat=$2; shift 3
  "$TFXC" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: tfxc $* -> exit $rc, want $want"; sed 's/^/  | /' "$T/err" | head -n 8; fail=1; return
  fi
  if [ -n "$pat" ] && ! grep -qF -- "$pat" "$T/err"; then
    echo "FAIL: tfxc $*: stderr lacks '$pat'"; sed 's/^/  | /' "$T/err" | head -n 8; fail=1
  fi
}
# absent FILE...: none of the files exists, and no temporary file is left anywhere under $T.
absent() {
  local f
  for f in "$@"; do
    [ -e "$f" ] && { echo "FAIL: $f was written by a failed run"; fail=1; rm -f "$f"; }
  done
  if find "$T" -name '*.tmp.*' | grep -q .; then
    echo "FAIL: temporary files left behind:"; find "$T" -name '*.tmp.*'; fail=1
    find "$T" -name '*.tmp.*' -delete
  fi
}
# present FILE...: every file exists (then removed, for the next run).
present() {
  local f
  for f in "$@"; do
    [ -s "$f" ] || { echo "FAIL: $f was not written"; fail=1; }
    rm -f "$f"
  done
}
# fmt_pb IN OUT: the binary encoding of a text model.
fmt_pb() { "$TFXC" fmt -q "$1" -o "$2" || { echo "FAIL: tfxc fmt $1"; fail=1; }; }

PH='op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }'
cat >m.pbtxt <<EOF
node { name: "x" $PH }
node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
EOF

# ---- bad values (exit 2, before anything is read)
expect 2 "unknown limit 'nodez'; did you mean 'nodes'?" -- --limit nodez=3 m.pbtxt
expect 2 "--limit depth: '0' is not a number from 1 to 1000" -- --limit depth=0 m.pbtxt
expect 2 "--limit depth: '1001' is not a number from 1 to 1000" -- --limit depth=1001 m.pbtxt
expect 2 "--limit rule-depth: '1025' is not a number from 1 to 1024" -- --limit rule-depth=1025 m.pbtxt
expect 2 "--limit nodes: 'lots' is not a number" -- --limit nodes=lots m.pbtxt
expect 2 "--limit nodes: '' is not a number" -- --limit nodes m.pbtxt
expect 2 "--limit string: '1Q' is not a size" -- --limit string=1Q m.pbtxt
expect 2 "--limit vm-steps: '1000000001' is not a number from 1 to 1000000000" -- --limit vm-steps=1000000001 m.pbtxt
expect 2 "--limit: empty value" -- --limit= m.pbtxt
expect 2 "unknown limit 'depth '" -- inspect --limit "depth =3" m.pbtxt
expect 2 "unknown limit 'x'" -- fmt --limit x=1 m.pbtxt -o o.pb
expect 2 "unknown limit 'x'" -- compile --limit x=1 -o o.tfxb
absent o.pb o.tfxb
# a comma list, repeated options, and names a command does not use are all accepted
expect 0 "" -- inspect --limit nodes=2,depth=5 --limit vm-steps=7,rule-depth=3,output-size=1 m.pbtxt

# ---- file-size (exit 3); --max-file-size is the same limit
S=$(wc -c <m.pbtxt)
expect 0 "" -- inspect --limit file-size="$S" m.pbtxt
expect 3 "larger than the limit of $((S - 1)) bytes (raise the file-size limit with --limit file-size=SIZE or --max-file-size SIZE)" -- inspect --limit file-size=$((S - 1)) m.pbtxt
expect 3 "larger than the limit of $((S - 1)) bytes" -- inspect --max-file-size $((S - 1)) m.pbtxt
expect 3 "larger than the limit of $((S - 1)) bytes" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt --limit file-size=$((S - 1))
absent o.pbtxt
expect 0 "" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt --limit file-size="$S"
present o.pbtxt
expect 3 "larger than the limit of $((S - 1)) bytes" -- fmt m.pbtxt -o o.pb --limit file-size=$((S - 1))
absent o.pb

# ---- depth (exit 3): K nested func attrs put the innermost AttrValue at depth 3 + 3K
gen_depth() {
  local k=$1 s='value { i: 1 }' i
  for ((i = 0; i < k; i++)); do s="value { func { name: \"f\" attr { key: \"a\" $s } } }"; done
  printf 'node { name: "x" %s attr { key: "a" %s } }\n' "$PH" "$s"
}
gen_depth 3 >d.pbtxt
fmt_pb d.pbtxt d.pb
for f in d.pbtxt d.pb; do
  expect 0 "" -- inspect --limit depth=12 "$f"
  expect 3 "message nesting is deeper than the limit of 11 (raise the depth limit with --limit depth=N, at most 1000)" -- inspect --limit depth=11 "$f"
  expect 0 "" -- "$f" --emit tf-pbtxt -o o.pbtxt --limit depth=12
  present o.pbtxt
  expect 3 "deeper than the limit of 11" -- "$f" --emit tf-pbtxt -o o.pbtxt --limit depth=11
  absent o.pbtxt
  expect 3 "deeper than the limit of 11" -- fmt "$f" -o o.pbtxt --limit depth=11
  absent o.pbtxt
done
expect 3 "cannot decode as tensorflow.GraphDef at byte offset" -- inspect --limit depth=11 d.pb
# the default is 100: 3 + 3*33 = 102 levels are refused, and accepted with --limit depth=102
gen_depth 33 >d100.pbtxt
"$TFXC" fmt -q d100.pbtxt -o d100.pb --limit depth=200 || { echo "FAIL: fmt --limit depth=200"; fail=1; }
for f in d100.pbtxt d100.pb; do
  expect 3 "deeper than the limit of 100 (raise the depth limit" -- inspect "$f"
  expect 0 "" -- inspect --limit depth=102 "$f"
done
# at the maximum the message says so
gen_depth 333 >d1000.pbtxt
expect 3 "deeper than the limit of 1000 (1000 is the largest depth limit)" -- inspect --limit depth=1000 d1000.pbtxt

# ---- string (exit 3): a 50-byte node name (string), a 64-byte tensor_content (bytes)
name=$(printf 'n%.0s' $(seq 50))
printf 'node { name: "%s" %s }\n' "$name" "$PH" >s.pbtxt
fmt_pb s.pbtxt s.pb
for f in s.pbtxt s.pb; do
  expect 0 "" -- "$f" --emit tf-pbtxt -o o.pbtxt --limit string=50
  present o.pbtxt
  expect 3 "longer than the limit of 49 bytes (raise the string limit with --limit string=SIZE)" -- "$f" --emit tf-pbtxt -o o.pbtxt --limit string=49
  absent o.pbtxt
  expect 3 "longer than the limit of 49 bytes" -- inspect "$f" --limit string=49
done
expect 3 'string value of field "name" longer than the limit of 49 bytes' -- inspect s.pbtxt --limit string=49
expect 3 "string field tensorflow.NodeDef.name holds 50 bytes, longer than the limit of 49 bytes" -- inspect s.pb --limit string=49
content=$(printf '\\%03o' $(seq 1 64))
cat >b.pbtxt <<EOF
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_INT8 } }
  attr { key: "value" value { tensor { dtype: DT_INT8 tensor_shape { dim { size: 64 } } tensor_content: "$content" } } } }
EOF
fmt_pb b.pbtxt b.pb
for f in b.pbtxt b.pb; do
  expect 0 "" -- inspect "$f" --limit string=64
  expect 3 "longer than the limit of 63 bytes" -- inspect "$f" --limit string=63
done
expect 3 "bytes field tensorflow.TensorProto.tensor_content holds 64 bytes" -- inspect b.pb --limit string=63
expect 3 'bytes value of field "tensor_content" longer than the limit of 63 bytes' -- inspect b.pbtxt --limit string=63

# ---- list (exit 3): 40 int_val values (packed in binary), 40 control inputs (not packed)
vals=$(seq -s, 1 40)
cat >l.pbtxt <<EOF
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 40 } } int_val: [$vals] } } } }
EOF
fmt_pb l.pbtxt l.pb
for f in l.pbtxt l.pb; do
  expect 0 "" -- "$f" --emit tf-pbtxt -o o.pbtxt --limit list=40
  present o.pbtxt
  expect 3 "more than 39 elements" -- "$f" --emit tf-pbtxt -o o.pbtxt --limit list=39
  absent o.pbtxt
done
expect 3 'repeated field "int_val" has more than 39 elements (raise the list limit with --limit list=N)' -- inspect l.pbtxt --limit list=39
expect 3 "field tensorflow.TensorProto.int_val has more than 39 elements in one message (raise the list limit with --limit list=N)" -- inspect l.pb --limit list=39
{ printf 'node { name: "x" %s }\nnode { name: "y" op: "NoOp"' "$PH"
  for _ in $(seq 40); do printf ' input: "^x"'; done; printf ' }\n'; } >li.pbtxt
fmt_pb li.pbtxt li.pb
for f in li.pbtxt li.pb; do
  expect 0 "" -- inspect "$f" --limit list=40
  expect 3 "more than 39" -- inspect "$f" --limit list=39
done
expect 3 "field tensorflow.NodeDef.input has more than 39 elements" -- inspect li.pb --limit list=39

# ---- nodes (exit 3): a main graph of 30 nodes; a function body of 5 nodes
{ printf 'node { name: "n0" %s }\n' "$PH"
  for i in $(seq 1 29); do printf 'node { name: "n%d" op: "Identity" input: "n%d" attr { key: "T" value { type: DT_FLOAT } } }\n' "$i" $((i - 1)); done
} >n.pbtxt
fmt_pb n.pbtxt n.pb
for f in n.pbtxt n.pb; do
  expect 0 "" -- inspect "$f" --limit nodes=30
  expect 3 "the graph has 30 nodes, more than the limit of 29 (raise the nodes limit with --limit nodes=N)" -- inspect "$f" --limit nodes=29
  expect 0 "" -- "$f" --emit tf-pbtxt -o o.pbtxt --limit nodes=30
  present o.pbtxt
  expect 3 "more than the limit of 29" -- "$f" --emit tf-pbtxt -o o.pbtxt --limit nodes=29
  absent o.pbtxt
done
{ cat m.pbtxt; printf 'library { function { signature { name: "f" }'
  for i in 1 2 3 4 5; do printf ' node_def { name: "k%d" op: "NoOp" }' "$i"; done; printf ' } }\n'; } >nf.pbtxt
expect 0 "" -- inspect nf.pbtxt --limit nodes=5
expect 3 "function 'f': the body has 5 nodes, more than the limit of 4 (raise the nodes limit with --limit nodes=N)" -- inspect nf.pbtxt --limit nodes=4

# ---- scope-depth (exit 3): "a/b/c/d/x" is in scope a/b/c/d/ (depth 4)
printf 'node { name: "a/b/c/d/x" %s }\n' "$PH" >sd.pbtxt
expect 0 "" -- inspect sd.pbtxt --limit scope-depth=4
expect 3 "node 'a/b/c/d/x': its scopes nest deeper than the limit of 3 (raise the scope-depth limit with --limit scope-depth=N)" -- inspect sd.pbtxt --limit scope-depth=3
expect 0 "" -- sd.pbtxt --emit tf-pbtxt -o o.pbtxt --limit scope-depth=4
present o.pbtxt
expect 3 "deeper than the limit of 3" -- sd.pbtxt --emit tf-pbtxt -o o.pbtxt --limit scope-depth=3
absent o.pbtxt
# function bodies get their own trees in the scope-fusion pass
{ cat m.pbtxt; printf 'library { function { signature { name: "f" } node_def { name: "p/q/r/k" op: "NoOp" } } }\n'; } >sf.pbtxt
expect 0 "" -- sf.pbtxt --emit tf-pbtxt -o o.pbtxt --limit scope-depth=3
present o.pbtxt
expect 3 "function 'f': node 'p/q/r/k': its scopes nest deeper than the limit of 2" -- sf.pbtxt --emit tf-pbtxt -o o.pbtxt --limit scope-depth=2
absent o.pbtxt

# ---- rule-depth (exit 4): an expression 3 levels deep, blocks 5 levels deep
echo 'op Foo -> Identity { attr x = 1 + (1 + (1)); }' >e.opmap
expect 0 "" -- compile --no-stdlib e.opmap -o o.tfxb --limit rule-depth=3
present o.tfxb
expect 4 "expression nested too deeply (the limit is 2 levels; raise the rule-depth limit with --limit rule-depth=N, at most 1024)" -- compile --no-stdlib e.opmap -o o.tfxb --limit rule-depth=2
absent o.tfxb
gen_if() {
  local k=$1 s='type X;' i
  for ((i = 1; i < k; i++)); do s="if true { $s }"; done
  printf 'pass P { group { layer { pattern p { name == "x"; } } } fuse s in p { %s } }\n' "$s"
}
gen_if 5 >i.scoperule
expect 0 "" -- compile --no-stdlib i.scoperule -o o.tfxb --limit rule-depth=5
present o.tfxb
expect 4 "blocks nested too deeply (the limit is 4 levels; raise the rule-depth limit" -- compile --no-stdlib i.scoperule -o o.tfxb --limit rule-depth=4
absent o.tfxb
expect 4 "the limit is 2 levels" -- disasm e.opmap --limit rule-depth=2
expect 4 "the limit is 2 levels" -- list-rules --no-stdlib e.opmap --limit rule-depth=2
expect 4 "the limit is 2 levels" -- m.pbtxt -r e.opmap -o o.air --limit rule-depth=2
absent o.air
expect 4 "the limit is 2 levels" -- explain m.pbtxt -r e.opmap --rule P --limit rule-depth=2
# the default (256) and the maximum (1024)
gen_if 257 >i257.scoperule
expect 4 "blocks nested too deeply (the limit is 256 levels" -- compile --no-stdlib i257.scoperule -o o.tfxb
expect 0 "" -- compile --no-stdlib i257.scoperule -o o.tfxb --limit rule-depth=257
present o.tfxb
gen_if 1025 >i1025.scoperule
expect 4 "(the limit is 1024 levels, the largest rule-depth limit)" -- compile --no-stdlib i1025.scoperule -o o.tfxb --limit rule-depth=1024
absent o.tfxb
# the stdlib is always loaded with the default: a tiny limit only concerns the -r sources
expect 0 "" -- m.pbtxt -o o.air --limit rule-depth=1
present o.air

# ---- vm-steps (exit 1): the smallest budget that runs a pass, found by bisection
cat >v.pbtxt <<EOF
node { name: "x" $PH }
node { name: "s/y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
EOF
cat >neg.scoperule <<'EOF'
pass NegPass general {
  group { layer { pattern negs { count Neg == 1; } } }
  fuse s in negs { type Neg; }
}
EOF
vm_ok() { "$TFXC" v.pbtxt --emit tf-pbtxt -o o.pbtxt --no-stdlib -r neg.scoperule --limit vm-steps="$1" 2>/dev/null; }
lo=1 hi=100000
if vm_ok "$hi"; then
  while [ $((hi - lo)) -gt 1 ]; do mid=$(((lo + hi) / 2)); if vm_ok "$mid"; then hi=$mid; else lo=$mid; fi; done
  rm -f o.pbtxt
  expect 0 "" -- v.pbtxt --emit tf-pbtxt -o o.pbtxt --no-stdlib -r neg.scoperule --limit vm-steps="$hi"
  present o.pbtxt
  expect 1 "step budget of $lo exceeded (raise the vm-steps limit with --limit vm-steps=N or --vm-budget N)" -- v.pbtxt --emit tf-pbtxt -o o.pbtxt --no-stdlib -r neg.scoperule --limit vm-steps="$lo"
  absent o.pbtxt
  expect 1 "step budget of $lo exceeded" -- v.pbtxt --emit tf-pbtxt -o o.pbtxt --no-stdlib -r neg.scoperule --vm-budget "$lo"
  absent o.pbtxt
  expect 1 "step budget of $lo exceeded" -- explain v.pbtxt --no-stdlib -r neg.scoperule --rule NegPass --limit vm-steps="$lo"
else
  echo "FAIL: NegPass does not run with 100000 VM steps"; fail=1
fi

# ---- output-size (exit 1): every kind, all or nothing; the report; fmt; dumps
mkdir -p od
size_of() { wc -c <"$1" | tr -d ' '; }
expect 0 "" -- m.pbtxt --emit air,ge-pbtxt,ge-json,dot,tf-pbtxt -o od/m
kinds="od/m.air od/m.ge.pbtxt od/m.ge.json od/m.dot od/m.tf.pbtxt"
max=0
for f in $kinds; do n=$(size_of "$f"); [ "$n" -gt "$max" ] && max=$n; done
rm -f $kinds
expect 0 "" -- m.pbtxt --emit air,ge-pbtxt,ge-json,dot,tf-pbtxt -o od/m --limit output-size="$max"
present $kinds
expect 1 "larger than the limit of $((max - 1)) bytes (raise the output-size limit with --limit output-size=SIZE); nothing was written" -- m.pbtxt --emit air,ge-pbtxt,ge-json,dot,tf-pbtxt -o od/m --limit output-size=$((max - 1))
absent $kinds
for k in air ge-pbtxt ge-json dot tf-pbtxt; do
  expect 0 "" -- m.pbtxt --emit "$k" -o "o.$k"
  n=$(size_of "o.$k"); rm -f "o.$k"
  expect 0 "" -- m.pbtxt --emit "$k" -o "o.$k" --limit output-size="$n"
  present "o.$k"
  expect 1 "output of $n bytes is larger than the limit of $((n - 1)) bytes" -- m.pbtxt --emit "$k" -o "o.$k" --limit output-size=$((n - 1))
  absent "o.$k"
done
# the report: a limit between the output's size and the report's refuses the report only
expect 0 "" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt --report r.json
o=$(size_of o.pbtxt) r=$(size_of r.json)
rm -f o.pbtxt r.json
if [ "$r" -gt "$o" ]; then
  expect 1 "output of $r bytes is larger than the limit of $((r - 1)) bytes" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt --report r.json --limit output-size=$((r - 1))
  absent r.json
  rm -f o.pbtxt
else
  echo "FAIL: the report ($r bytes) is not larger than the tf-pbtxt ($o bytes)"; fail=1
fi
expect 0 "" -- fmt m.pbtxt -o f.pb
n=$(size_of f.pb); rm -f f.pb
expect 0 "" -- fmt m.pbtxt -o f.pb --limit output-size="$n"
present f.pb
expect 1 "output of $n bytes is larger than the limit of $((n - 1)) bytes" -- fmt m.pbtxt -o f.pb --limit output-size=$((n - 1))
absent f.pb
expect 1 "larger than the limit of 10 bytes" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt --dump-after index --dump-dir dd --limit output-size=10
absent o.pbtxt dd/02-index.pbtxt dd/04-index.pbtxt
# compile's pack (-o FILE and -o -); an existing pack is kept
printf 'op Relu -> Relu { auto; }\n' >lim.opmap
expect 0 "" -- compile --no-stdlib lim.opmap -o p.tfxb
n=$(size_of p.tfxb); rm -f p.tfxb
expect 0 "" -- compile --no-stdlib lim.opmap -o p.tfxb --limit output-size="$n"
present p.tfxb
expect 1 "p.tfxb: error: output of $n bytes is larger than the limit of $((n - 1)) bytes (raise the output-size limit with --limit output-size=SIZE); nothing was written" -- compile --no-stdlib lim.opmap -o p.tfxb --limit output-size=$((n - 1))
absent p.tfxb
echo old >p.tfxb
expect 1 "output of $n bytes is larger than the limit of $((n - 1)) bytes" -- compile --no-stdlib lim.opmap -o p.tfxb --limit rule-depth=9,output-size=$((n - 1))
[ "$(cat p.tfxb)" = old ] || { echo "FAIL: compile over the output-size limit replaced p.tfxb"; fail=1; }
absent; rm -f p.tfxb
expect 1 "<stdout>: error: output of $n bytes is larger than the limit of $((n - 1)) bytes" -- compile --no-stdlib lim.opmap -o - --limit output-size=$((n - 1))
[ -s "$T/out" ] && { echo "FAIL: compile -o - over the output-size limit wrote to stdout"; fail=1; }
# the expectations tfxc test --update writes (each case's changed files all or nothing)
mkdir -p tc
cp m.pbtxt tc/model.pbtxt
expect 0 "" -- test --update tc
n=$(size_of tc/expected.tf.pbtxt); rm -f tc/expected.tf.pbtxt
expect 0 "" -- test --update --limit output-size="$n" tc
grep -q '^UPDATED tc$' "$T/out" || { echo "FAIL: test --update at the output-size limit: no UPDATED line"; fail=1; }
present tc/expected.tf.pbtxt
expect 1 "tc/expected.tf.pbtxt: error: output of $n bytes is larger than the limit of $((n - 1)) bytes (raise the output-size limit with --limit output-size=SIZE); nothing was written" -- test --update --limit output-size=$((n - 1)) tc
grep -q '^FAIL tc$' "$T/out" || { echo "FAIL: test --update over the output-size limit: no FAIL line"; fail=1; }
absent tc/expected.tf.pbtxt
echo old >tc/expected.tf.pbtxt
expect 1 "output of $n bytes is larger than the limit of $((n - 1)) bytes" -- test --update --limit output-size=$((n - 1)) tc
[ "$(cat tc/expected.tf.pbtxt)" = old ] || { echo "FAIL: test --update over the output-size limit replaced expected.tf.pbtxt"; fail=1; }
absent
# a GE case: the GE text is larger than the TF graph; a limit between them writes neither
: >tc/expected.ge.pbtxt
expect 0 "" -- test --update tc
g=$(size_of tc/expected.ge.pbtxt) n=$(size_of tc/expected.tf.pbtxt)
echo old >tc/expected.tf.pbtxt; : >tc/expected.ge.pbtxt
if [ "$g" -gt "$n" ]; then
  expect 1 "tc/expected.ge.pbtxt: error: output of $g bytes is larger than the limit of $((g - 1)) bytes" -- test --update --limit output-size=$((g - 1)) tc
  [ "$(cat tc/expected.tf.pbtxt)" = old ] && [ ! -s tc/expected.ge.pbtxt ] ||
    { echo "FAIL: test --update wrote part of a case's expectations"; fail=1; }
  absent
  expect 0 "" -- test --update --limit output-size="$g" tc
  [ "$(size_of tc/expected.ge.pbtxt)" = "$g" ] && [ "$(size_of tc/expected.tf.pbtxt)" = "$n" ] ||
    { echo "FAIL: test --update at the output-size limit did not write the GE case"; fail=1; }
else
  echo "FAIL: the GE text ($g bytes) is not larger than the TF graph ($n bytes)"; fail=1
fi
expect 2 "tfxc test: error: --limit: unknown limit 'x'" -- test --limit x=1 tc
# test takes every limit name (only output-size is its own)
expect 0 "" -- test --limit nodes=1,depth=2,output-size=1G tc

# ---- --help lists every limit with its default
"$TFXC" --help >h.txt
for l in file-size depth string list nodes scope-depth rule-depth vm-steps output-size; do
  grep -q "  $l (default" h.txt || { echo "FAIL: --help does not list the limit $l"; fail=1; }
done
exit $fail
