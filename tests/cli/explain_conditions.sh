#!/usr/bin/env bash
# Issue 12 item 10: `tfxc explain --scope` on a scope whose pattern matched but whose `where`
# (or the pass's `require`) rejected it names the failing sub-condition (file:line:col and its
# text) and the values it compared; `--trace` shows the source line of each sub-expression of
# a multi-line condition and the values each instruction read. Rules:
# tests/cli/explain/conditions.scoperule on examples/dense_layernorm. Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
cd "${TFXC_SRC:?set TFXC_SRC to the repo root}" || exit 1
M=examples/dense_layernorm/model.pbtxt
R=(--no-stdlib -r tests/cli/explain/conditions.scoperule)
F=tests/cli/explain/conditions.scoperule
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
has() { grep -qF -- "$1" "$T/out" || { echo "FAIL: no line '$1' in:"; cat "$T/out"; fail=1; }; }
"$TFXC" explain "$M" --scope dense/LayerNorm/batchnorm "${R[@]}" \
  --enable-scope-fusion-passes WhereEpsilon,RequireNoBatchnorm >"$T/out" 2>"$T/err" ||
  { echo "FAIL: explain exited $?"; cat "$T/err"; fail=1; }
# the where: its third line fails, on the epsilon TF's layer_norm uses (1e-12)
has "  where rejected the scope at $F:7:22: const_value(node(b, \"add/y\"))[0] == 0.5: compared 9.999999960041972e-13, 0.5"
# the require: `not any(...)` fails, decided by the second alternative inside it
has "  require failed at $F:13:15: any(s in scopes(bn2) : ...)"
has "      decided at $F:15:19: s.name ends_with \"batchnorm/\": compared \"dense/LayerNorm/batchnorm/\", \"batchnorm/\""
# the where line does not depend on the other pass running
"$TFXC" explain "$M" --scope dense/LayerNorm/batchnorm "${R[@]}" --enable-scope-fusion-passes WhereEpsilon \
  --pass WhereEpsilon >"$T/out" 2>&1
grep -q "where rejected" "$T/out" || { echo "FAIL: the where line is missing without the other pass"; cat "$T/out"; fail=1; }
# deterministic
"$TFXC" explain "$M" --scope dense/LayerNorm/batchnorm "${R[@]}" --enable-scope-fusion-passes WhereEpsilon >"$T/a" 2>&1
"$TFXC" explain "$M" --scope dense/LayerNorm/batchnorm "${R[@]}" --enable-scope-fusion-passes WhereEpsilon >"$T/b" 2>&1
cmp -s "$T/a" "$T/b" || { echo "FAIL: explain is not deterministic"; fail=1; }
# --trace: every line of the multi-line where has its own source line, with the values read
"$TFXC" "$M" "${R[@]}" -r stdlib/ops --enable-scope-fusion-passes WhereEpsilon --trace -o "$T/o.air" 2>"$T/out" ||
  { echo "FAIL: --trace conversion failed"; head "$T/out"; fail=1; }
grep -qE "^\[$F:5\] [0-9]+  NE +r[0-9]+, r[0-9]+, r[0-9]+  \| r[0-9]+=<scope [0-9]+> r[0-9]+=none$" "$T/out" ||
  { echo "FAIL: --trace: no line-5 comparison with its values"; grep "$F:5" "$T/out" | head; fail=1; }
grep -qE "^\[$F:6\] [0-9]+  CALL +r[0-9]+, exists, " "$T/out" || { echo "FAIL: --trace: line 6 not shown as its own line"; fail=1; }
grep -qE "^\[$F:7\] [0-9]+  EQ +r[0-9]+, r[0-9]+, r[0-9]+  \| r[0-9]+=9.999999960041972e-13 r[0-9]+=0.5$" "$T/out" ||
  { echo "FAIL: --trace: no line-7 comparison with its values"; grep "$F:7" "$T/out" | head; fail=1; }
grep -qE "^\[$F:7\] [0-9]+  JF +r[0-9]+, @[0-9]+  \| r[0-9]+=false$" "$T/out" ||
  { echo "FAIL: --trace: the failing jump does not show its value"; fail=1; }
exit $fail
