#!/usr/bin/env bash
# Keeps the op tables of stdlib/ops in step with the facts they are copied from.
#   sync-facts.sh [--check] [FACTS_DIR]
# Default FACTS_DIR: ../shared/facts next to the repository. Without --check, copies
# cann-ops.tsv and tf-ops.tsv byte for byte (mode 644) and regenerates the gen-*.opmap files
# (gen-opmaps.py). With --check, changes nothing and exits 1 when a copy differs from its fact
# file or a generated op map is out of date.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
FACTS=${1:-"$HERE/../../../shared/facts"}
fail=0
for f in cann-ops.tsv tf-ops.tsv; do
  if [ ! -f "$FACTS/$f" ]; then echo "sync-facts: missing $FACTS/$f"; exit 2; fi
  if cmp -s "$FACTS/$f" "$HERE/$f"; then continue; fi
  if [ $check -eq 1 ]; then
    echo "sync-facts: stdlib/ops/$f differs from $FACTS/$f (run stdlib/ops/sync-facts.sh)"
    fail=1
  else
    cp "$FACTS/$f" "$HERE/$f" && chmod 644 "$HERE/$f" && echo "copied $f"
  fi
done
if command -v python3 >/dev/null; then
  if [ $check -eq 1 ]; then python3 "$HERE/gen-opmaps.py" --facts "$FACTS" --check || fail=1
  else python3 "$HERE/gen-opmaps.py" --facts "$FACTS" || fail=1; fi
else
  echo "sync-facts: python3 not found; generated op maps not checked"
fi
exit $fail
