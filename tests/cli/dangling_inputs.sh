#!/usr/bin/env bash
# Data inputs lost to scope fusion (issue 12 item 6). ScopeDynamicLSTMPass on the
# ScopeDynamicLSTMPass-pos golden model absorbs rnn/while/Exit_3 and Exit_4, which final_c and
# final_h read, without exporting them:
#  - a GE conversion fails (exit 1, no output) naming consumer, input, absorbed producer, result,
#    pass and the rule's file:line; so does --emit tf-pbtxt alone (from the scope-fusion pass);
#  - --check fails too (exit 1) and its report gives both consumers cause 2 with that message;
#  - --allow-dangling-inputs drops the edges with a warning each (tf-pbtxt written, exit 0);
#  - trimming that removes the consumers (--out-nodes output) reports nothing and fuses;
#  - explain (writes no model) still works.
# Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
M="${TFXC_SRC:?set TFXC_SRC to the repo root}/tests/golden/cases/ScopeDynamicLSTMPass-pos/model.pbtxt"
P=(--enable-scope-fusion-passes ScopeDynamicLSTMPass)
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
names_all() { # file: the message names everything a user needs
  for w in "node 'final_c'" "node 'final_h'" "data input 'rnn/while/Exit_3' is lost" \
           "'rnn/while/Exit_4' was absorbed into 'rnn'" "scope pass 'ScopeDynamicLSTMPass'" \
           "(<stdlib>/fusion/19-dynamic_lstm.scoperule:16)"; do
    grep -qF "$w" "$1" || bad "$2: stderr lacks \"$w\""
  done
}

"$TFXC" "$M" "${P[@]}" -o "$T/m.air" 2>"$T/e1"; rc=$?
[ "$rc" -eq 1 ] || bad "GE conversion exit $rc, want 1"
[ -e "$T/m.air" ] && bad "GE conversion wrote m.air"
names_all "$T/e1" "GE conversion"

"$TFXC" "$M" "${P[@]}" --emit tf-pbtxt -o "$T/m.pbtxt" 2>"$T/e2"; rc=$?
[ "$rc" -eq 1 ] || bad "--emit tf-pbtxt exit $rc, want 1"
[ -e "$T/m.pbtxt" ] && bad "--emit tf-pbtxt wrote its output"
names_all "$T/e2" "--emit tf-pbtxt"

"$TFXC" --check "$M" "${P[@]}" >"$T/r.json" 2>"$T/e3"; rc=$?
[ "$rc" -eq 1 ] || bad "--check exit $rc, want 1"
python3 - "$T/r.json" <<'PY' || bad "--check report"
import json, sys
r = json.load(open(sys.argv[1]))
ops = {o["name"]: o for o in r["op"]}
assert r["result"] == "failed", r["result"]
for n, src in (("final_c", "Exit_3"), ("final_h", "Exit_4")):
    o = ops[n]
    c = o["cause"][0]
    assert o["result"] == "failed" and c["code"] == 2, o
    assert "data input 'rnn/while/%s' is lost" % src in c["message"], c
    assert "ScopeDynamicLSTMPass" in c["message"] and "19-dynamic_lstm.scoperule:16" in c["message"], c
    assert "--allow-dangling-inputs" in o["hint"], o
PY

"$TFXC" "$M" "${P[@]}" --allow-dangling-inputs --emit tf-pbtxt -o "$T/m.pbtxt" 2>"$T/e4"; rc=$?
[ "$rc" -eq 0 ] || { bad "--allow-dangling-inputs exit $rc, want 0"; cat "$T/e4"; }
[ "$(grep -c "warning: node 'final_[ch]': data input 'rnn/while/Exit_[34]' dropped (--allow-dangling-inputs)" "$T/e4")" -eq 2 ] ||
  { bad "--allow-dangling-inputs: want one warning per dropped edge"; cat "$T/e4"; }
grep -q "error" "$T/e4" && bad "--allow-dangling-inputs printed an error"

"$TFXC" "$M" "${P[@]}" --out-nodes output --emit tf-pbtxt -o "$T/o.pbtxt" 2>"$T/e5"; rc=$?
[ "$rc" -eq 0 ] || { bad "--out-nodes output: exit $rc, want 0"; cat "$T/e5"; }
grep -q "final_\|dangling\|is lost" "$T/e5" && bad "--out-nodes output: consumers trimmed, yet reported"
grep -q 'op: "DynamicRNN"' "$T/o.pbtxt" || bad "--out-nodes output: no DynamicRNN in the fused graph"

"$TFXC" explain "$M" "${P[@]}" --rule ScopeDynamicLSTMPass >"$T/x.txt" 2>"$T/e6"; rc=$?
[ "$rc" -eq 0 ] || { bad "explain exit $rc"; cat "$T/e6"; }

[ "$fail" -eq 0 ] && echo "OK: dangling inputs"
exit "$fail"
