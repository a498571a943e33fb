#!/usr/bin/env bash
# CLI test: rule loading and the rule commands: tfxc compile (exit 0/2/3/4, caret errors,
# byte-identical packs, atomic output), disasm (file:line, corrupt pack), list-rules (table and
# JSON shape), --no-stdlib, override reporting with -v, -W options, and the convert options
# -r DIR / -r pack.tfxb / --vm-budget / --trace / --enable-scope-fusion-passes / --disable-pass.
# Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
# expect CODE [grep-pattern-for-stderr] -- ARGS...
expect() {
  local want=$1 pat=$2; shift 3
  "$TFXC" "$@" >out 2>err
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: tfxc $* -> exit $rc, want $want"; sed 's/^/  | /' err; fail=1; return
  fi
  if [ -n "$pat" ] && ! grep -q -- "$pat" err; then
    echo "FAIL: tfxc $*: stderr lacks '$pat'"; sed 's/^/  | /' err; fail=1
  fi
}

mkdir -p r/sub bad ov empty
cat >m.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "s/y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
PB
cat >r/a.scoperule <<'EOF2'
pass FusePass general {
  group { layer { pattern cell { count MatMul == 1; count Sigmoid == 3; } } }
  fuse s in cell { type BasicLSTMCell; }
}

pass OptIn {
  group { layer { pattern conv { count Conv2D == 2; } } }
  fuse s in conv { type Conv2D; }
}
EOF2
cat >r/sub/m.opmap <<'EOF2'
op Add, AddV2 -> Add { auto; }
op Neg -> Neg { auto; }
EOF2
cat >ov/z.scoperule <<'EOF2'
pass FusePass {
  group { layer { pattern other { count Add == 1; } } }
  fuse s in other { type Add; }
}
EOF2
printf 'pass P {\n  group { layer { pattern p {\n    count Sub = 1;\n    cnt Mul == 2;\n  } } }\n  fuse s in p { type X; }\n}\n' >bad/x.scoperule
printf 'op Add => Add { auto; }\n' >bad/y.opmap

# ---- compile
# (--no-stdlib: p1 holds exactly the rules of r/, so it compares with `disasm r` and
# `list-rules -r r --no-stdlib` below)
expect 0 "" -- compile -r r -o p1.tfxb --no-stdlib
[ -s err ] && { echo "FAIL: compile printed on success"; cat err; fail=1; }
expect 0 "" -- compile --rules r -o p2.tfxb --no-stdlib
cmp -s p1.tfxb p2.tfxb || { echo "FAIL: same sources, different packs"; fail=1; }
[ "$(head -c 4 p1.tfxb)" = "TFXB" ] || { echo "FAIL: pack magic"; fail=1; }
(cd r && "$TFXC" compile -r . -o ../p3.tfxb) || { echo "FAIL: compile -r ."; fail=1; }
expect 0 "" -- compile r/a.scoperule r/sub/m.opmap -o p4.tfxb   # bare PATHs are rule paths
(mkdir -p d && cd d && "$TFXC" compile -r ../r) && [ -s d/rules.tfxb ] ||
  { echo "FAIL: default output rules.tfxb"; fail=1; }
expect 0 "" -- compile -r r -o - >/dev/null
expect 0 "wrote p5.tfxb" -- compile -v -r r -o p5.tfxb
# rule errors: exit 4, every error of every file, with carets; no output, an old one kept
cp p1.tfxb keep.tfxb
expect 4 "bad/x.scoperule:3:15: error: a feature compares with '==', not '='" -- compile -r bad -o keep.tfxb
grep -q "bad/x.scoperule:4:5: error: unknown feature 'cnt'" err || { echo "FAIL: second error of a file missing"; cat err; fail=1; }
grep -q "bad/y.opmap:1:8: error: expected '->'" err || { echo "FAIL: error of the second file missing"; cat err; fail=1; }
grep -q '^ *\^$' err || { echo "FAIL: no caret line"; cat err; fail=1; }
cmp -s p1.tfxb keep.tfxb || { echo "FAIL: failed compile replaced the output"; fail=1; }
expect 4 "" -- compile -r bad -o new.tfxb
[ -e new.tfxb ] && { echo "FAIL: failed compile wrote its output"; fail=1; }
expect 3 "cannot read rules" -- compile -r nosuch -o x.tfxb
expect 2 "not a rule directory, rule file" -- compile -r m.pbtxt -o x.tfxb
expect 2 "unknown warning option '-Wfoo'" -- compile -Wfoo -r r -o x.tfxb
expect 2 "unknown option" -- compile --frob
expect 2 "is a directory" -- compile -r r -o empty
expect 2 "cannot be combined" -- compile -r p1.tfxb -r r -o x.tfxb
[ -e x.tfxb ] && { echo "FAIL: x.tfxb written by a failing compile"; fail=1; }
expect 0 "" -- compile -r empty --no-stdlib -o e.tfxb      # no rules at all: an empty pack
# -W: -Werror turns a warning into an error (exit 4); -Wno-... silences it
cat >w.scoperule <<'EOF2'
pass W {
  group { layer { pattern p { count Add == 1; } } }
  fuse s in p { type Add; let unused = 1; }
}
EOF2
expect 0 "unused binding 'unused'" -- compile -r w.scoperule -o w.tfxb
expect 4 "unused" -- compile -Werror -r w.scoperule -o w.tfxb
expect 0 "" -- compile -Wno-unused-binding -r w.scoperule -o w.tfxb
[ -s err ] && { echo "FAIL: -Wno-unused-binding still warns"; cat err; fail=1; }
# overrides: silent by default, reported with -v (first registered wins: -r order)
expect 0 "" -- compile -r r -r ov -o o.tfxb
grep -q "override" err && { echo "FAIL: override reported without -v"; fail=1; }
expect 0 "ov/z.scoperule:1:6: warning: pass 'FusePass' is ignored: the one at r/a.scoperule:1:6 was registered first" -- compile -v -r r -r ov -o o.tfxb
expect 0 "" -- compile -v -Wno-override -r r -r ov -o o.tfxb
grep -q "override" err && { echo "FAIL: -Wno-override after -v"; fail=1; }

# ---- corrupt packs are exit 3 everywhere
printf 'TFXBgarbage' >bad.tfxb
head -c 40 p1.tfxb >trunc.tfxb
for f in bad.tfxb trunc.tfxb; do
  expect 3 "corrupt pack" -- disasm $f
  expect 3 "corrupt pack" -- list-rules -r $f
  expect 3 "corrupt pack" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -r $f
done
[ -e o.pbtxt ] && { echo "FAIL: output written with a corrupt pack"; fail=1; }

# ---- disasm: the pack, or sources compiled on the fly; instructions carry file:line
expect 0 "" -- disasm p1.tfxb
cp out dis1.txt
grep -Eq '\[r/a\.scoperule:[0-9]+\]' dis1.txt || { echo "FAIL: disasm lacks file:line"; head -30 dis1.txt; fail=1; }
grep -q 'FusePass' dis1.txt || { echo "FAIL: disasm lacks the rule name"; fail=1; }
expect 0 "" -- disasm r
cmp -s out dis1.txt || { echo "FAIL: disasm of sources differs from disasm of their pack"; diff dis1.txt out | head; fail=1; }
expect 4 "error" -- disasm bad
expect 2 "no PATH" -- disasm
expect 2 "cannot be combined" -- disasm p1.tfxb r

# ---- list-rules
expect 0 "" -- list-rules -r r --no-stdlib
grep -Eq '^scope +FusePass +yes +r/a\.scoperule:1' out || { echo "FAIL: list-rules table"; cat out; fail=1; }
grep -Eq '^scope +OptIn +no ' out || { echo "FAIL: list-rules opt-in pass"; cat out; fail=1; }
grep -Eq '^map .*r/sub/m\.opmap:1 +Add, AddV2 -> Add$' out || { echo "FAIL: list-rules map row"; cat out; fail=1; }
expect 0 "" -- list-rules -r r --no-stdlib --json
cp out l1.json
expect 0 "" -- list-rules -r p1.tfxb --json
cmp -s out l1.json || { echo "FAIL: list-rules -r pack differs from -r DIR"; diff l1.json out; fail=1; }
if command -v python3 >/dev/null; then
  python3 - l1.json <<'PY' || fail=1
import json, sys
v = json.load(open(sys.argv[1]))
assert isinstance(v, list) and len(v) == 4, v
kinds = [e["kind"] for e in v]
assert kinds == ["scope", "scope", "map", "map"], kinds
for e in v:
    assert set(e) >= {"name", "kind", "source"}, e
    f, _, line = e["source"].rpartition(":")
    assert f and line.isdigit(), e
    if e["kind"] == "scope":
        assert set(e) == {"name", "kind", "general", "source"}, e
        assert isinstance(e["general"], bool)
    else:
        assert set(e) == {"name", "kind", "source", "from", "to"}, e
        assert isinstance(e["from"], list) and all(isinstance(t, str) for t in e["from"])
        assert isinstance(e["to"], (str, list))
assert v[0]["name"] == "FusePass" and v[0]["general"] is True, v[0]
assert v[1]["name"] == "OptIn" and v[1]["general"] is False, v[1]
assert v[2]["from"] == ["Add", "AddV2"] and v[2]["to"] == "Add", v[2]
assert v[0]["source"] == "r/a.scoperule:1" and v[1]["source"] == "r/a.scoperule:6", v
PY
fi
expect 0 "" -- list-rules --no-stdlib --json
[ "$(cat out)" = "[]" ] || { echo "FAIL: empty list-rules JSON: $(cat out)"; fail=1; }
expect 0 "" -- list-rules -r r -r ov --no-stdlib
grep -q "ov/z" out && { echo "FAIL: an overridden rule is listed"; cat out; fail=1; }
expect 0 "pass 'FusePass' is ignored" -- list-rules -v -r r -r ov --no-stdlib
# the stdlib comes after the -r paths (and --no-stdlib removes it)
expect 0 "" -- list-rules --json
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); assert all(e["source"].startswith("<stdlib>/") for e in v), v' out ||
  { echo "FAIL: list-rules without -r lists non-stdlib rules"; fail=1; }
expect 0 "" -- list-rules -r r --json
python3 - out <<'PY' || { echo "FAIL: stdlib order"; fail=1; }
import json, sys
v = json.load(open(sys.argv[1]))
def rank(e): return 1 if e["source"].startswith("<stdlib>/") else 0
for kind in ("scope", "map"):
    r = [rank(e) for e in v if e["kind"] == kind]
    assert r == sorted(r), (kind, r)
PY

# ---- convert with rules
expect 0 "" -- m.pbtxt --emit tf-pbtxt -o dir.pbtxt -r r
expect 0 "" -- m.pbtxt --emit tf-pbtxt -o pack.pbtxt -r p1.tfxb
cmp -s dir.pbtxt pack.pbtxt || { echo "FAIL: -r pack.tfxb and -r DIR give different output"; fail=1; }
expect 4 "bad/x.scoperule:3:15" -- m.pbtxt --emit tf-pbtxt -o bad.pbtxt -r bad
[ -e bad.pbtxt ] && { echo "FAIL: output written despite rule errors"; fail=1; }
expect 3 "cannot read rules" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -r nosuch
expect 2 "cannot be combined" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -r p1.tfxb -r r
expect 0 "" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -r r --no-stdlib -Wall -Wno-shadow --vm-budget 5000 --trace
expect 0 "" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -r r --enable-scope-fusion-passes OptIn
expect 2 "unknown scope fusion pass 'OptIm' (scope fusion passes of the loaded rules: FusePass, OptIn)" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -r r --no-stdlib --enable-scope-fusion-passes OptIm
expect 0 "" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -r r --disable-pass FusePass,scope-tree
expect 2 "unknown pass 'Nope'" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -r r --disable-pass Nope
expect 2 "did you mean 'scope-tree'" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -r r --disable-pass scop-tree
expect 2 "unknown pass 'FusePass'" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -r r --disable-pass rules,FusePass
expect 0 "" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -v -r r -r ov
grep -q "pass 'FusePass' is ignored" err || { echo "FAIL: convert -v does not report overrides"; cat err; fail=1; }
expect 0 "" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt -r r -r ov
grep -q "ignored" err && { echo "FAIL: override reported without -v"; fail=1; }
# --trace / --vm-budget reach the VM of the scope-fusion engine (a pass matching scope s/)
cat >neg.scoperule <<'EOF2'
pass NegPass general {
  group { layer { pattern negs { count Neg == 1; } } }
  fuse s in negs { type Neg; }
}
EOF2
expect 0 "^\[neg.scoperule:2\] 0000  SC_COUNT" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt --no-stdlib -r neg.scoperule --trace
grep -q "^\[neg.scoperule:3\] " err || { echo "FAIL: --trace lacks the fuse block's lines"; head err; fail=1; }
expect 0 "" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt --no-stdlib -r neg.scoperule
[ -s err ] && { echo "FAIL: trace output without --trace"; head -3 err; fail=1; }
expect 1 "neg.scoperule:3:3: error: rule 'NegPass': step budget of 3 exceeded" -- m.pbtxt --emit tf-pbtxt -o budget.pbtxt --no-stdlib -r neg.scoperule --vm-budget 3
[ -e budget.pbtxt ] && { echo "FAIL: output written after a VM budget error"; fail=1; }
expect 0 "" -- m.pbtxt --emit tf-pbtxt -o o.pbtxt --no-stdlib --list-passes
grep -q "rules" out || { echo "FAIL: --list-passes lacks the rules pass"; fail=1; }
exit $fail
