#!/usr/bin/env bash
# CLI test: --out-nodes / --input-shape trimming (ATC TrimGraph, docs/ASCEND.md §7.2),
# seen through --emit tf-pbtxt and inspect --json; unknown names exit 3 with no output left;
# the .air with --out-nodes and no report kept is the one with --report.
# Env: TFXC; python3.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
cat >m.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "a/b/c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "a/b/add" op: "Add" input: "x" input: "a/b/c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "a/d/add_1" op: "Add" input: "a/b/add" input: "a/b/c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "a/mul" op: "Mul" input: "a/d/add_1" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Identity" input: "a/mul" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "side" op: "NoOp" }
PB
nodes() { grep -o '^  name: "[^"]*"' "$1" | sed 's/.*"\(.*\)"/\1/' | tr '\n' ' '; }
conv() { "$TFXC" "$@" 2>err || { echo "FAIL: tfxc $* -> exit $?"; cat err; fail=1; }; }

# --out-nodes: only what a/b/add needs.
conv m.pbtxt --emit tf-pbtxt --out-nodes "a/b/add:0" -o o1.pbtxt
[ "$(nodes o1.pbtxt)" = "x a/b/c a/b/add " ] || { echo "FAIL: --out-nodes kept '$(nodes o1.pbtxt)'"; fail=1; }
# Same through inspect.
"$TFXC" inspect --json --out-nodes "a/b/add:0" m.pbtxt >i1.json 2>err || { echo "FAIL: inspect --out-nodes"; cat err; fail=1; }
python3 -c '
import json,sys
j=json.load(open(sys.argv[1]))
assert j["nodes"]==3, j["nodes"]
assert j["op_types"]=={"Add":1,"Const":1,"Placeholder":1}, j["op_types"]
assert [s["name"] for s in j["scopes"]]==["root","a/","a/b/"], j["scopes"]
' i1.json || { echo "FAIL: inspect after --out-nodes"; fail=1; }

# --input-shape + --out-nodes: a/b/add becomes a Placeholder with that shape; x is kept
# (a/mul reads it), out and side go.
conv m.pbtxt --emit tf-pbtxt --input-shape "a/b/add:1,-1" --out-nodes "a/mul:0" -o o2.pbtxt
got=$(nodes o2.pbtxt)
for n in x a/b/c a/b/add a/d/add_1 a/mul; do
  case " $got" in *" $n "*) ;; *) echo "FAIL: $n missing after trim ($got)"; fail=1;; esac
done
case " $got" in *" out "*|*" side "*) echo "FAIL: out/side kept ($got)"; fail=1;; esac
python3 - o2.pbtxt <<'PY' || fail=1
import re, sys
t = open(sys.argv[1]).read()
# the node block of a/b/add: from its name to the next top-level "node {"
m = re.search(r'name: "a/b/add"\n(.*?)(?=\nnode \{|\Z)', t, re.S)
blk = m.group(1) if m else ""
ok = 'op: "Placeholder"' in blk and "input:" not in blk and "dim" in blk and "size: -1" in blk
if not ok:
    print("FAIL: a/b/add is not a Placeholder with shape [1,-1]:\n" + blk)
    sys.exit(1)
PY

# --input-shape alone on a chain: everything upstream of the input goes.
cat >chain.pbtxt <<'PB'
node { name: "in" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "pre/cast" op: "Cast" input: "in" attr { key: "DstT" value { type: DT_FLOAT } } }
node { name: "body/relu" op: "Relu" input: "pre/cast" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "body/out" op: "Identity" input: "body/relu" attr { key: "T" value { type: DT_FLOAT } } }
PB
conv chain.pbtxt --emit tf-pbtxt --input-shape "body/relu:1,3"
[ -f chain.tf.pbtxt ] || { echo "FAIL: default output chain.tf.pbtxt missing"; fail=1; }
[ "$(nodes chain.tf.pbtxt)" = "body/relu body/out " ] || { echo "FAIL: --input-shape kept '$(nodes chain.tf.pbtxt)'"; fail=1; }

# A conversion without --report keeps no report (the library's no-report: the graph's name
# map is freed before lowering, which then takes the --out-nodes as node ids): the same .air,
# the same NetOutput order, as with --report.
cat >g.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "a/relu" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "a/mul" op: "Mul" input: "a/relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "a/b/add" op: "Add" input: "a/relu" input: "a/mul" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Identity" input: "a/b/add" attr { key: "T" value { type: DT_FLOAT } } }
PB
conv g.pbtxt --out-nodes "a/mul:0;a/b/add" -o nr.air
conv g.pbtxt --out-nodes "a/mul:0;a/b/add" -o r.air --report r.json
[ -s nr.air ] && cmp -s nr.air r.air || { echo "FAIL: the .air differs with and without --report"; fail=1; }
conv g.pbtxt --out-nodes "a/mul:0;a/b/add" --emit air,ge-pbtxt -o nrt
python3 -c '
import sys
t=open(sys.argv[1]).read()
outs=[l.split(chr(34))[1] for l in t.splitlines() if l.startswith("  output: ")]
assert outs==["a/mul:0","a/b/add:0"], outs
' nrt.ge.pbtxt || { echo "FAIL: NetOutput order without --report"; fail=1; }
cmp -s nrt.air r.air || { echo "FAIL: the whole-model .air differs without --report"; fail=1; }

# Names that are not in the graph: exit 3, message names them, no output file.
for args in "--out-nodes nope:0" "--input-shape nope:1,2" "--out-nodes a/mul:0 --input-shape ghost:1"; do
  # shellcheck disable=SC2086
  "$TFXC" m.pbtxt --emit tf-pbtxt -o miss.pbtxt $args 2>err; rc=$?
  [ $rc -eq 3 ] || { echo "FAIL: $args exited $rc, want 3"; cat err; fail=1; }
  grep -q -e "nope" -e "ghost" err || { echo "FAIL: $args: message does not name the node"; cat err; fail=1; }
  ls -A | grep -q '^miss' && { echo "FAIL: $args left $(ls -A | grep '^miss')"; fail=1; }
done
"$TFXC" inspect --out-nodes nope:0 m.pbtxt >/dev/null 2>&1; rc=$?
[ $rc -eq 3 ] || { echo "FAIL: inspect --out-nodes nope exited $rc, want 3"; fail=1; }
# Malformed option strings are usage errors, found before the model is read.
"$TFXC" nosuch.pbtxt --emit tf-pbtxt --out-nodes "a:b:c:x" 2>err; rc=$?
[ $rc -eq 2 ] || { echo "FAIL: malformed --out-nodes exited $rc, want 2"; cat err; fail=1; }
exit $fail
