#!/usr/bin/env bash
# The library's outputs are byte-identical to the tfxc command's for the same model and
# options: examples/embed (libtfxc.so, the model handed over in memory) against `tfxc`, for
# every --emit kind and the --report JSON, with option variations, and over the corpus models
# when ../shared/corpus is there (every model: the same exit code, and the same .air when it
# converts). Env: TFXC, TFXC_EMBED, TFXC_SRC, TFXC_CORPUS.
set -u
: "${TFXC:?}" "${TFXC_EMBED:?}" "${TFXC_SRC:?}"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
n=0
compare() { # label kind model cli-args... -- embed-args...
  local label=$1 kind=$2 model=$3
  shift 3
  local cli=() emb=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do cli+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  emb=("$@")
  rm -f "$W"/cli.out* "$W/api.out" "$W/cli.json" "$W/api.json"
  "$TFXC" --emit "$kind" "${cli[@]}" -o "$W/cli.out" --report "$W/cli.json" "$model" 2>"$W/cli.err"
  local rc1=$?
  "$TFXC_EMBED" "${emb[@]}" --report "$W/api.json" "$model" "$kind" "$W/api.out" 2>"$W/api.err"
  local rc2=$?
  n=$((n + 1))
  if [ $rc1 -ne $rc2 ]; then
    echo "FAIL: $label ($kind): exit $rc1 (tfxc) vs $rc2 (library)"; head -3 "$W/cli.err" "$W/api.err"; fail=1; return
  fi
  # several kinds: -o is a stem and each kind adds its extension (air -> .air, tf-pbtxt -> .tf.pbtxt)
  [ -f "$W/cli.out" ] || mv "$W/cli.out.${kind//-/.}" "$W/cli.out" 2>/dev/null
  if [ $rc1 -eq 0 ]; then
    cmp -s "$W/cli.out" "$W/api.out" || { echo "FAIL: $label ($kind): outputs differ"; fail=1; }
    cmp -s "$W/cli.json" "$W/api.json" || { echo "FAIL: $label ($kind): reports differ"; diff "$W/cli.json" "$W/api.json" | head -5; fail=1; }
  fi
}

EX=$TFXC_SRC/examples/dense_layernorm/model.pbtxt
for k in air ge-pbtxt ge-json dot tf-pbtxt; do
  compare example $k "$EX"
done
compare "example, --emit air,tf-pbtxt" tf-pbtxt "$EX" --emit air,tf-pbtxt -- -O emit=air,tf-pbtxt
compare "example, --disable-pass scope-fusion" air "$EX" --disable-pass scope-fusion -- -O disable-pass=scope-fusion
compare "example, --disable-pass of a rule pass" ge-json "$EX" --disable-pass LayerNormPass -- -O disable-pass=LayerNormPass
compare "example, --input-shape" air "$EX" --input-shape input:2,8 -- -O input-shape=input:2,8
compare "example, --no-stdlib --passthrough-unknown" air "$EX" --no-stdlib --passthrough-unknown -- -O no-stdlib=1 -O passthrough-unknown=1
compare "example, --limit nodes=5 (fails)" air "$EX" --limit nodes=5 -- -O limit=nodes=5
compare "example, -r a rule file" air "$EX" -r "$TFXC_SRC/stdlib/fusion/02-layer_norm.scoperule" --no-stdlib -- -r "$TFXC_SRC/stdlib/fusion/02-layer_norm.scoperule" -O no-stdlib=1

if [ -n "${TFXC_CORPUS:-}" ] && [ -d "$TFXC_CORPUS/models" ]; then
  for m in "$TFXC_CORPUS"/models/*.pb "$TFXC_CORPUS"/graphdef2mlir/*.pbtxt; do
    [ -f "$m" ] || continue
    case "$m" in *bert_chinese*|*tf_bert1*) continue ;; esac  # the largest: time, not coverage
    compare "$(basename "$m")" air "$m"
  done
else
  echo "note: corpus not found; compared the example only"
fi
echo "$n comparisons"
exit $fail
