#!/usr/bin/env bash
# CLI test: every example in docs/LANGUAGE.md compiles. Blocks tagged `scoperule` / `opmap`
# must compile with no diagnostic; a block tagged `scoperule-error` / `opmap-error` must fail
# with exactly the diagnostics of the fenced block right after it (file example.<kind>).
# Uses `tfxc compile` when the CLI has it; until then runs the same check through the unit
# test executable tests/test_rules_docs next to the tfxc binary. Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
doc="${TFXC_SRC:?set TFXC_SRC to the repo root}/docs/LANGUAGE.md"
[ -f "$doc" ] || { echo "FAIL: $doc missing"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Does this tfxc compile rules yet? (an empty op map file must compile cleanly)
: > "$work/probe.opmap"
if ! probe=$(cd "$work" && "$TFXC" compile --no-stdlib -r probe.opmap -o /dev/null 2>&1) || [ -n "$probe" ]; then
  t="$(dirname "$TFXC")/tests/test_rules_docs"
  [ -x "$t" ] || { echo "SKIP: no 'tfxc compile' and no $t"; exit 77; }
  "$t"
  exit $?
fi
rm -f "$work/probe.opmap"
# Split the document into numbered files: NNN.<tag> holding each fenced block's body.
awk -v dir="$work" '
  /^```/ { if (inblock) { inblock = 0; close(out); next }
           inblock = 1; n++; tag = substr($0, 4); if (tag == "") tag = "plain";
           out = sprintf("%s/%03d.%s", dir, n, tag); printf "" > out; next }
  inblock { print > out }' "$doc"

fail=0 good=0 bad=0
for f in "$work"/*; do
  tag=${f##*.}
  case "$tag" in
    scoperule|opmap)
      good=$((good + 1))
      d="$work/run"; rm -rf "$d"; mkdir "$d"; cp "$f" "$d/example.$tag"
      # -Wno-unknown-tf-op: an example maps fused or custom TF types (LayerNorm,
      # FlashAttentionScore) whose scope rule or TF op definition is not part of the example
      if ! out=$(cd "$d" && "$TFXC" compile --no-stdlib -Wno-unknown-tf-op -r "example.$tag" -o /dev/null 2>&1) || [ -n "$out" ]; then
        echo "FAIL: $(basename "$f"): example does not compile cleanly:"; echo "$out"; fail=1
      fi ;;
    scoperule-error|opmap-error)
      bad=$((bad + 1))
      kind=${tag%-error}
      num=$(basename "$f"); num=${num%%.*}
      next=$(ls "$work" | grep "^$(printf '%03d' $((10#$num + 1)))\." | head -1)
      d="$work/run"; rm -rf "$d"; mkdir "$d"; cp "$f" "$d/example.$kind"
      if out=$(cd "$d" && "$TFXC" compile --no-stdlib -r "example.$kind" -o /dev/null 2>&1); then
        echo "FAIL: $(basename "$f"): error example compiled"; fail=1
      elif [ -z "$next" ] || [ "$out" != "$(cat "$work/$next")" ]; then
        echo "FAIL: $(basename "$f"): expected:"; cat "$work/$next" 2>/dev/null; echo "---- got:"; echo "$out"; fail=1
      fi ;;
  esac
done
echo "LANGUAGE.md: $good clean examples, $bad error examples"
[ "$good" -ge 8 ] && [ "$bad" -ge 1 ] || fail=1
exit $fail
