#!/usr/bin/env bash
# CLI test: `tfxc inspect` text and --json on small models written here. The JSON shape is
# the contract in docs/CLI.md: root scope, parent links, subtree op_counts, direct_nodes,
# sorted keys, DFS order. Env: TFXC; needs python3 (skips without it).
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
cat >m.pbtxt <<'PB'
# scopes: root, a/, a/b/, a/d/, lstm_1/ (LastName "lstm")
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node {
  name: "a/b/c" op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } }
}
node { name: "a/b/add" op: "Add" input: "x" input: "a/b/c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "a/d/add_1" op: "Add" input: "a/b/add" input: "a/b/c" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "a/mul" op: "Mul" input: "a/d/add_1" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Identity" input: "a/mul" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "lstm_1/x" op: "NoOp" input: "^out" }
versions { producer: 27 min_consumer: 12 }
library { function { signature { name: "f" } } }
PB

# ---- JSON ----
if ! "$TFXC" inspect --json m.pbtxt >j.json 2>err; then
  echo "FAIL: inspect --json exited $?"; cat err; exit 1
fi
python3 - j.json <<'PY' || fail=1
import json, sys
text = open(sys.argv[1]).read()
pairs = []
def hook(p):
    pairs.append([k for k, _ in p])
    return dict(p)
j = json.loads(text, object_pairs_hook=hook)
errs = []
def check(cond, msg):
    if not cond: errs.append(msg)
check(list(j.keys()) == ["nodes", "functions", "op_types", "scopes"], "top-level keys %r" % list(j))
check(j["nodes"] == 7, "nodes %r" % j["nodes"])
check(j["functions"] == 1, "functions %r" % j["functions"])
ot = j["op_types"]
check(ot == {"Add": 2, "Const": 1, "Identity": 1, "Mul": 1, "NoOp": 1, "Placeholder": 1}, "op_types %r" % ot)
check(["Add", "Const", "Identity", "Mul", "NoOp", "Placeholder"] in pairs, "op_types not sorted by name")
sc = j["scopes"]
names = [s["name"] for s in sc]
check(names == ["root", "a/", "a/b/", "a/d/", "lstm_1/"], "scope DFS order %r" % names)
by = {s["name"]: s for s in sc}
for s in sc:
    check(list(s.keys()) == ["name", "last_name", "parent", "direct_nodes", "op_counts"], "scope keys %r" % list(s))
    ks = list(s["op_counts"].keys())
    check(ks == sorted(ks), "op_counts of %s not sorted" % s["name"])
    if s["parent"] is not None:
        check(s["parent"] in by, "parent %r of %s unknown" % (s["parent"], s["name"]))
        check(names.index(s["parent"]) < names.index(s["name"]), "parent after child: %s" % s["name"])
r = by["root"]
check(r["parent"] is None and r["last_name"] == "root", "root %r" % r)
check(r["direct_nodes"] == ["x", "out"], "root direct %r" % r["direct_nodes"])
check(r["op_counts"] == ot, "root op_counts %r" % r["op_counts"])
check(by["a/"]["parent"] == "root", "a/ parent %r" % by["a/"]["parent"])
check(by["a/b/"]["parent"] == "a/" and by["a/d/"]["parent"] == "a/", "a/b/, a/d/ parents")
check(by["a/"]["direct_nodes"] == ["a/mul"], "a/ direct %r" % by["a/"]["direct_nodes"])
check(by["a/b/"]["direct_nodes"] == ["a/b/c", "a/b/add"], "a/b/ direct %r" % by["a/b/"]["direct_nodes"])
check(by["a/"]["op_counts"] == {"Add": 2, "Const": 1, "Mul": 1}, "a/ op_counts %r" % by["a/"]["op_counts"])
check(by["a/b/"]["op_counts"] == {"Add": 1, "Const": 1}, "a/b/ op_counts")
check(by["a/d/"]["op_counts"] == {"Add": 1}, "a/d/ op_counts")
check(by["a/b/"]["last_name"] == "b", "a/b/ last_name")
check(by["lstm_1/"]["last_name"] == "lstm", "lstm_1/ last_name %r" % by["lstm_1/"]["last_name"])
check(by["lstm_1/"]["parent"] == "root", "lstm_1/ parent")
# Every node is a direct node of exactly one scope.
alln = sorted(n for s in sc for n in s["direct_nodes"])
check(alln == sorted(["x", "a/b/c", "a/b/add", "a/d/add_1", "a/mul", "out", "lstm_1/x"]), "direct nodes %r" % alln)
for e in errs: print("FAIL:", e)
sys.exit(1 if errs else 0)
PY
[ -s err ] && { echo "FAIL: inspect --json wrote to stderr"; cat err; fail=1; }

# Deterministic: the same bytes twice, also from the binary form of the same graph.
"$TFXC" inspect --json m.pbtxt >j2.json 2>/dev/null
cmp -s j.json j2.json || { echo "FAIL: inspect --json is not deterministic"; fail=1; }
if "$TFXC" fmt m.pbtxt -o m.pb 2>/dev/null; then
  "$TFXC" inspect --json m.pb >j3.json 2>/dev/null
  cmp -s j.json j3.json || { echo "FAIL: inspect --json differs between .pbtxt and .pb"; fail=1; }
fi

# ---- text ----
"$TFXC" inspect m.pbtxt >t.txt 2>err || { echo "FAIL: inspect exited $?"; cat err; fail=1; }
grep -q "^nodes: *7$" t.txt || { echo "FAIL: text: node count"; fail=1; }
grep -q "^functions: *1$" t.txt || { echo "FAIL: text: function count"; fail=1; }
grep -q "^producer: *27" t.txt || { echo "FAIL: text: producer"; fail=1; }
grep -q "^version: *0" t.txt || { echo "FAIL: text: legacy version"; fail=1; }
# Histogram: count desc, then name.
hist=$(sed -n '/^op types:/,/^scopes:/p' t.txt | sed '1d;$d' | awk '{print $1":"$2}' | tr '\n' ' ')
[ "$hist" = "Add:2 Const:1 Identity:1 Mul:1 NoOp:1 Placeholder:1 " ] || { echo "FAIL: histogram '$hist'"; fail=1; }
grep -q "^  root .*7 nodes (2 direct)" t.txt || { echo "FAIL: text: root line"; cat t.txt; fail=1; }
grep -q "^      b/ .*2 nodes (2 direct)" t.txt || { echo "FAIL: text: a/b/ indented under a/"; cat t.txt; fail=1; }
# --depth 1 hides a/b/ and says so; --depth 0 shows everything.
"$TFXC" inspect --depth 1 m.pbtxt >t1.txt 2>/dev/null
grep -q " b/ " t1.txt && { echo "FAIL: --depth 1 shows a/b/"; fail=1; }
grep -q "^scopes: *5 (3 shown, depth <= 1" t1.txt || { echo "FAIL: --depth 1 summary"; cat t1.txt; fail=1; }
"$TFXC" inspect --depth 0 m.pbtxt >t0.txt 2>/dev/null
[ "$(sed -n '/^scopes:/,$p' t0.txt | wc -l)" -eq 6 ] || { echo "FAIL: --depth 0 lists all scopes"; cat t0.txt; fail=1; }

# A graph without versions, scopes or library.
cat >flat.pbtxt <<'PB'
node { name: "only" op: "NoOp" }
PB
"$TFXC" inspect --json flat.pbtxt >f.json 2>err || { echo "FAIL: flat inspect"; cat err; fail=1; }
python3 -c '
import json,sys
j=json.load(open(sys.argv[1]))
assert j=={"nodes":1,"functions":0,"op_types":{"NoOp":1},"scopes":[{"name":"root","last_name":"root","parent":None,"direct_nodes":["only"],"op_counts":{"NoOp":1}}]}, j
' f.json || { echo "FAIL: flat JSON"; fail=1; }
"$TFXC" inspect flat.pbtxt 2>/dev/null | grep -q "^producer: *none" || { echo "FAIL: flat: producer none"; fail=1; }

# A graph that does not validate is still inspected: warnings on stderr, exit 0; the same
# graph is an error (exit 3) for conversion.
cat >dangling.pbtxt <<'PB'
node { name: "a/x" op: "Const" }
node { name: "a/y" op: "Add" input: "a/x" input: "ghost" }
node { name: "a/x" op: "Const" }
PB
"$TFXC" inspect --json dangling.pbtxt >d.json 2>d.err || { echo "FAIL: lenient inspect exit $?"; cat d.err; fail=1; }
grep -q "warning: .*missing node 'ghost'" d.err || { echo "FAIL: lenient inspect: no warning for ghost"; cat d.err; fail=1; }
grep -q "warning: duplicate node name 'a/x'" d.err || { echo "FAIL: lenient inspect: no duplicate warning"; cat d.err; fail=1; }
python3 -c '
import json,sys
j=json.load(open(sys.argv[1]))
assert j["nodes"]==3 and j["op_types"]=={"Add":1,"Const":2}, j
assert [s["name"] for s in j["scopes"]]==["root","a/"], j
' d.json || { echo "FAIL: lenient inspect JSON"; fail=1; }
"$TFXC" --emit tf-pbtxt -o d.out.pbtxt dangling.pbtxt 2>d2.err; rc=$?
[ $rc -eq 3 ] || { echo "FAIL: converting an invalid graph exited $rc, want 3"; fail=1; }
grep -q "error: .*missing node 'ghost'" d2.err || { echo "FAIL: conversion error message"; cat d2.err; fail=1; }
[ -e d.out.pbtxt ] && { echo "FAIL: output written for an invalid graph"; fail=1; }

# Bad input: exit 3, nothing on stdout.
printf 'node { name: "a" op: ' >bad.pbtxt
"$TFXC" inspect --json bad.pbtxt >b.out 2>b.err; rc=$?
[ $rc -eq 3 ] || { echo "FAIL: inspect of a malformed model exited $rc, want 3"; cat b.err; fail=1; }
[ -s b.out ] && { echo "FAIL: inspect of a malformed model printed to stdout"; fail=1; }
"$TFXC" inspect --json nosuch.pbtxt >/dev/null 2>&1; rc=$?
[ $rc -eq 3 ] || { echo "FAIL: inspect of a missing file exited $rc, want 3"; fail=1; }
exit $fail
