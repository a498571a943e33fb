#!/usr/bin/env bash
# Golden tests: `tfxc test tests/golden/cases` passes; `-r pack.tfxb` (tfxc compile of a case's
# rules) gives byte-identical --emit tf-pbtxt output to `-r rules/`; the runner reports a
# broken expectation (also expected.explain) with a diff and `--update` repairs it (in a
# temporary copy); explain cases with missing/orphan/failing explain expectations.
# Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
CASES="${TFXC_SRC:?set TFXC_SRC to the repo root}/tests/golden/cases"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0

"$TFXC" test "$CASES" >"$T/run.txt" 2>"$T/err"
rc=$?
cat "$T/run.txt"
[ "$rc" -eq 0 ] || { echo "FAIL: tfxc test exited $rc"; cat "$T/err"; fail=1; }
tail -1 "$T/run.txt" | grep -Eq '^[0-9]+ passed, 0 failed$' || { echo "FAIL: closing line"; fail=1; }

# -r pack.tfxb == -r DIR on every case with rules/ that converts successfully.
for c in "$CASES"/*/; do
  c=${c%/}
  [ -d "$c/rules" ] || continue
  want=0
  [ -f "$c/expected.exit" ] && want=$(cat "$c/expected.exit")
  [ "$want" = 0 ] || continue
  args=()
  [ -f "$c/args" ] && read -r -a args < <(grep -v '^[[:space:]]*#' "$c/args" | tr '\n' ' ')
  nostd=()
  for a in "${args[@]}"; do [ "$a" = --no-stdlib ] && nostd=(--no-stdlib); done
  model=model.pbtxt; [ -f "$c/model.pbtxt" ] || model=model.pb
  (cd "$c" && "$TFXC" compile -r rules "${nostd[@]}" -o "$T/p.tfxb") ||
    { echo "FAIL: $(basename "$c"): compile"; fail=1; continue; }
  (cd "$c" && "$TFXC" "$model" --emit tf-pbtxt -o "$T/dir.pbtxt" -r rules "${args[@]}") 2>"$T/e1"
  r1=$?
  (cd "$c" && "$TFXC" "$model" --emit tf-pbtxt -o "$T/pack.pbtxt" -r "$T/p.tfxb" "${args[@]}") 2>"$T/e2"
  r2=$?
  if [ $r1 -ne 0 ] || [ $r2 -ne 0 ] || ! cmp -s "$T/dir.pbtxt" "$T/pack.pbtxt"; then
    echo "FAIL: $(basename "$c"): -r pack.tfxb ($r2) differs from -r rules/ ($r1)"; cat "$T/e1" "$T/e2"; fail=1
  else
    echo "ok: $(basename "$c"): -r pack.tfxb == -r rules/"
  fi
  rm -f "$T/dir.pbtxt" "$T/pack.pbtxt" "$T/p.tfxb"
done

# A broken expectation fails with a diff; --update rewrites it; then the case passes again.
cp -r "$CASES" "$T/copy"
sed -i 's/name: "out"/name: "renamed"/' "$T/copy/identity/expected.tf.pbtxt"
echo 0 >"$T/copy/rule-error/expected.exit"
sed -i 's/^  require: true$/  require: false/' "$T/copy/explain-rule/expected.explain"
"$TFXC" test "$T/copy" >"$T/broken.txt" 2>&1 && { echo "FAIL: broken expectations passed"; fail=1; }
grep -q "^FAIL $T/copy/identity$" "$T/broken.txt" || { echo "FAIL: no FAIL line"; cat "$T/broken.txt"; fail=1; }
grep -q '^    -  name: "renamed"$' "$T/broken.txt" && grep -q '^    +  name: "out"$' "$T/broken.txt" ||
  { echo "FAIL: no diff for the broken case"; cat "$T/broken.txt"; fail=1; }
grep -q "exit code 4, expected 0" "$T/broken.txt" || { echo "FAIL: exit mismatch not shown"; cat "$T/broken.txt"; fail=1; }
grep -q "^FAIL $T/copy/explain-rule$" "$T/broken.txt" && grep -q '^    --- expected.explain$' "$T/broken.txt" &&
  grep -q '^    -  require: false$' "$T/broken.txt" && grep -q '^    +  require: true$' "$T/broken.txt" ||
  { echo "FAIL: no expected.explain diff for the broken explain case"; cat "$T/broken.txt"; fail=1; }
grep -Eq '^[0-9]+ passed, 3 failed$' "$T/broken.txt" || { echo "FAIL: counts"; tail -1 "$T/broken.txt"; fail=1; }
"$TFXC" test --update "$T/copy" >"$T/upd.txt" 2>&1 || { echo "FAIL: --update"; cat "$T/upd.txt"; fail=1; }
grep -q "^UPDATED $T/copy/identity$" "$T/upd.txt" && grep -q "^UPDATED $T/copy/explain-rule$" "$T/upd.txt" ||
  { echo "FAIL: --update did not report UPDATED"; cat "$T/upd.txt"; fail=1; }
diff -r "$CASES" "$T/copy" >/dev/null || { echo "FAIL: --update did not restore the expectations"; diff -r "$CASES" "$T/copy" | head; fail=1; }
"$TFXC" test "$T/copy" >/dev/null 2>&1 || { echo "FAIL: cases fail after --update"; fail=1; }
# A new case without expectations: --update creates them.
mkdir -p "$T/new/ok" "$T/new/err/rules"
cp "$CASES/identity/model.pbtxt" "$T/new/ok/"
cp "$CASES/identity/model.pbtxt" "$T/new/err/"
printf 'op Add => Add { auto; }\n' >"$T/new/err/rules/x.opmap"
"$TFXC" test --update "$T/new" >/dev/null 2>&1 || { echo "FAIL: --update of new cases"; fail=1; }
[ -s "$T/new/ok/expected.tf.pbtxt" ] || { echo "FAIL: expected.tf.pbtxt not created"; fail=1; }
[ "$(cat "$T/new/err/expected.exit" 2>/dev/null)" = 4 ] || { echo "FAIL: expected.exit not created"; fail=1; }
grep -q "^rules/x.opmap:1:8: error" "$T/new/err/expected.stderr" 2>/dev/null || { echo "FAIL: expected.stderr"; fail=1; }
"$TFXC" test "$T/new" >/dev/null 2>&1 || { echo "FAIL: new cases fail after --update"; fail=1; }
# explain: an explain file without expected.explain fails until --update creates it;
# expected.explain without an explain file fails (also under --update); a failing explain run
# (unknown scope) fails the case with explain's stderr.
mkdir -p "$T/ex/new" "$T/ex/orphan" "$T/ex/bad"
for c in new orphan bad; do cp "$CASES/explain-rule/model.pbtxt" "$CASES/explain-rule/expected.tf.pbtxt" "$T/ex/$c/"; done
cp "$CASES/explain-rule/explain" "$T/ex/new/"
"$TFXC" test "$T/ex/new" | grep -q "an explain file but no expected.explain" || { echo "FAIL: missing expected.explain passed"; fail=1; }
"$TFXC" test --update "$T/ex/new" >/dev/null 2>&1 && cmp -s "$T/ex/new/expected.explain" "$CASES/explain-rule/expected.explain" ||
  { echo "FAIL: --update did not create expected.explain"; fail=1; }
cp "$CASES/explain-rule/expected.explain" "$T/ex/orphan/"
for u in "" --update; do
  "$TFXC" test $u "$T/ex/orphan" >"$T/orphan.txt" 2>&1 && { echo "FAIL: expected.explain without explain passed ($u)"; fail=1; }
  grep -q "expected.explain without an explain file" "$T/orphan.txt" || { echo "FAIL: orphan message ($u)"; cat "$T/orphan.txt"; fail=1; }
done
[ -f "$T/ex/orphan/expected.explain" ] || { echo "FAIL: --update removed the orphan expected.explain"; fail=1; }
echo '--scope nope/' >"$T/ex/bad/explain"
cp "$CASES/explain-rule/expected.explain" "$T/ex/bad/"
"$TFXC" test "$T/ex/bad" >"$T/bad.txt" 2>&1 && { echo "FAIL: failing explain passed"; fail=1; }
grep -q "explain exited 2, expected 0" "$T/bad.txt" && grep -q "no scope 'nope/' in the main graph" "$T/bad.txt" ||
  { echo "FAIL: failing explain not reported"; cat "$T/bad.txt"; fail=1; }
# expected.ge.pbtxt: a wrong one fails with a diff, --update rewrites it, then it passes.
echo x >"$T/new/ok/expected.ge.pbtxt"
"$TFXC" test "$T/new/ok" >"$T/ge.txt" 2>&1 && { echo "FAIL: a wrong expected.ge.pbtxt passed"; fail=1; }
grep -q -- "--- expected.ge.pbtxt" "$T/ge.txt" || { echo "FAIL: no GE diff"; cat "$T/ge.txt"; fail=1; }
"$TFXC" test --update "$T/new/ok" >/dev/null 2>&1
grep -q 'type: "NetOutput"' "$T/new/ok/expected.ge.pbtxt" || { echo "FAIL: --update did not write the GE text"; fail=1; }
"$TFXC" test "$T/new/ok" >/dev/null 2>&1 || { echo "FAIL: GE case fails after --update"; fail=1; }
# Usage and input errors.
"$TFXC" test >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: test without PATH is not exit 2"; fail=1; }
"$TFXC" test "$T/nosuch" >/dev/null 2>&1; [ $? -eq 3 ] || { echo "FAIL: missing PATH is not exit 3"; fail=1; }
mkdir -p "$T/nocases/x"
"$TFXC" test "$T/nocases" >/dev/null 2>&1; [ $? -eq 3 ] || { echo "FAIL: no cases is not exit 3"; fail=1; }
exit $fail
