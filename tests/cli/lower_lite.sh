#!/usr/bin/env bash
# CLI test: streaming lowering writes most lite ops by their parts (lower.c's write_lite, from
# tfx_lower_wire_lite; air_write.c's tfx_ge_air_stream_edges), no OpDef made. The bytes must be
# those of the general path (each op wired as an OpDef by tfx_lower_wire_op and written by
# tfx_ge_air_stream_op_pre), which TFXC_LOWER_LITE_GENERAL=1 forces, and those of the whole
# model's writer (--emit air,ge-pbtxt: no streaming). Every golden case's model, the examples
# and, when present, every model-bearing corpus file (TFXC_CORPUS) are converted the three
# ways: the same exit code, the same messages, the same .air. Env: TFXC, TFXC_SRC, TFXC_CORPUS.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
: "${TFXC_SRC:?set TFXC_SRC to the repo root}"
case "$TFXC" in /*) ;; *) TFXC=$PWD/$TFXC ;; esac
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

models=()
for m in "$TFXC_SRC"/tests/golden/cases/*/model.pbtxt "$TFXC_SRC"/examples/*/model.pbtxt; do
  [ -f "$m" ] && models+=("$m")
done
corpus=${TFXC_CORPUS:-}
if [ -n "$corpus" ] && [ -f "$corpus/MANIFEST.tsv" ]; then
  # model-bearing files: protoc check ok and a GraphDef / MetaGraphDef / SavedModel format
  while IFS=$'\t' read -r file _ _ _ _ fmt _ _ check _; do
    [ "$check" = ok ] || continue
    case "$fmt" in *GraphDebugInfo*) continue ;; esac
    case "$fmt" in *"(GraphDef)"* | *"(MetaGraphDef)"* | *"(SavedModel)"*) ;; *) continue ;; esac
    models+=("$corpus/$file")
  done < <(tail -n +2 "$corpus/MANIFEST.tsv")
fi

n=0
for m in "${models[@]}"; do
  n=$((n + 1))
  D=$T/$n
  mkdir -p "$D"
  (cd "$D" && "$TFXC" "$m" -o fast.air >/dev/null 2>fast.err)
  rf=$?
  (cd "$D" && TFXC_LOWER_LITE_GENERAL=1 "$TFXC" "$m" -o gen.air >/dev/null 2>gen.err)
  rg=$?
  [ "$rf" = "$rg" ] || bad "$m: exit $rf, $rg with TFXC_LOWER_LITE_GENERAL=1"
  sed 's/fast\.air/X.air/g' "$D/fast.err" >"$D/f"
  sed 's/gen\.air/X.air/g' "$D/gen.err" >"$D/g"
  cmp -s "$D/f" "$D/g" || bad "$m: messages differ from the general path's: $(diff "$D/f" "$D/g" | head -5)"
  if [ -f "$D/gen.air" ] || [ -f "$D/fast.air" ]; then
    cmp -s "$D/fast.air" "$D/gen.air" || bad "$m: .air differs from the general path's"
  fi
  if [ "$rf" = 0 ]; then
    (cd "$D" && "$TFXC" "$m" --emit air,ge-pbtxt -o whole >/dev/null 2>&1) || bad "$m: whole"
    cmp -s "$D/fast.air" "$D/whole.air" || bad "$m: .air differs from the whole model's"
  fi
  rm -rf "$D"
done
[ "$n" -ge 80 ] || bad "only $n models found"
echo "$n models"
exit $fail
