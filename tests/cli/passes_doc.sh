#!/usr/bin/env bash
# docs/PASSES.md is generated from `tfxc list-rules --json` (docs/gen-passes.sh): regenerate it
# into a temp file and require the committed file to be identical.
set -u
: "${TFXC:?}" "${TFXC_SRC:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
bash "$TFXC_SRC/docs/gen-passes.sh" "$TFXC" "$tmp" || { echo "FAIL: docs/gen-passes.sh"; exit 1; }
grep -c '^| [0-9]' "$tmp" | grep -qx 19 || { echo "FAIL: expected 19 stdlib passes"; cat "$tmp"; exit 1; }
if ! cmp -s "$tmp" "$TFXC_SRC/docs/PASSES.md"; then
  echo "FAIL: docs/PASSES.md is out of date; run: docs/gen-passes.sh build/tfxc docs/PASSES.md"
  diff "$TFXC_SRC/docs/PASSES.md" "$tmp" | head -20
  exit 1
fi
echo "docs/PASSES.md is up to date"
