#!/usr/bin/env bash
# CLI test: stdlib/ops/gen-*.opmap are exactly what stdlib/ops/gen-opmaps.py generates from the
# facts and the hand-written maps (no stale or hand-edited generated file). Skipped (77) without
# ../shared/facts or python3. Env: TFXC_SRC.
set -u
SRC="${TFXC_SRC:?set TFXC_SRC to the repo root}"
FACTS="$SRC/../shared/facts"
[ -f "$FACTS/tf-cann-op-pairs.tsv" ] || { echo "skip: no $FACTS/tf-cann-op-pairs.tsv"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
if python3 "$SRC/stdlib/ops/gen-opmaps.py" --facts "$FACTS" --check; then
  echo "ok: generated op maps are up to date"
else
  exit 1
fi
