#!/usr/bin/env bash
# Golden cases copy user-pack rule files into their own rules/ (golden.sh runs the cases from a
# copy in /tmp): every tests/golden/cases/*/rules/FILE that has a same-named file in rules/*/
# must be identical to it. Env: TFXC_SRC. Exit 0 ok, 1 on a difference.
set -u
SRC="${TFXC_SRC:?set TFXC_SRC to the repo root}"
fail=0
for f in "$SRC"/tests/golden/cases/*/rules/*; do
  [ -f "$f" ] || continue
  for p in "$SRC"/rules/*/"$(basename "$f")"; do
    [ -f "$p" ] || continue
    if cmp -s "$f" "$p"; then echo "ok: ${f#"$SRC"/} == ${p#"$SRC"/}"
    else echo "FAIL: ${f#"$SRC"/} differs from ${p#"$SRC"/}"; fail=1; fi
  done
done
exit $fail
