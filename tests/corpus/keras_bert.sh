#!/usr/bin/env bash
# The user pack rules/keras on the TF2 Keras BERT SavedModel graph (corpus
# models/tf_bert1_keras_savedmodel__graph_def.pb): its 60 LayerNormalization layer calls
# (embeddings + 2 transformer layers x 2 + the MLM transform, copied across the library's
# 92 function bodies, plus the LayerNormalization layers' own call functions with root-level
# "moments/", "batchnorm/" names) all sit in function bodies and read gamma/beta through
# ReadVariableOp. The stdlib ScopeLayerNormPass fuses none of them (its mul/ReadVariableOp
# exclusion); KerasLayerNormalizationPass fuses all 60, and the output still encodes as a
# GraphDef. Env: TFXC, TFXC_SRC, TFXC_CORPUS. Exit 77 when the model is absent.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
: "${TFXC_SRC:?set TFXC_SRC to the source tree}"
# The golden case keras-layernorm-pos carries a copy of the pack (checked even without corpus).
CASE_COPY="$TFXC_SRC/tests/golden/cases/keras-layernorm-pos/rules/layer_normalization.scoperule"
if ! cmp -s "$TFXC_SRC/rules/keras/layer_normalization.scoperule" "$CASE_COPY"; then
  echo "FAIL: $CASE_COPY differs from rules/keras/layer_normalization.scoperule (copy it over)"
  exit 1
fi
MODEL="${TFXC_CORPUS:-}/models/tf_bert1_keras_savedmodel__graph_def.pb"
[ -n "${TFXC_CORPUS:-}" ] && [ -f "$MODEL" ] || { echo "SKIP: $MODEL not found"; exit 77; }
EXPECTED=60
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
count_ln() { grep -c '^ *op: "LayerNorm"$' "$1"; }

# 1. stdlib alone: nothing fused (the reason the pack exists).
if "$TFXC" --emit tf-pbtxt -o "$WORK/std.pbtxt" "$MODEL" 2>"$WORK/std.err"; then
  n=$(count_ln "$WORK/std.pbtxt")
  [ "$n" -eq 0 ] || fail "stdlib alone fused $n LayerNorm (expected 0: TF2 mul/ReadVariableOp exclusion)"
else
  fail "stdlib run failed: $(head -c 300 "$WORK/std.err")"
fi

# 2. with the pack: every layer call fused, nothing left behind, no warnings.
if "$TFXC" -r "$TFXC_SRC/rules/keras" --enable-scope-fusion-passes KerasLayerNormalizationPass \
     --emit tf-pbtxt -o "$WORK/out.pbtxt" "$MODEL" 2>"$WORK/out.err"; then
  n=$(count_ln "$WORK/out.pbtxt")
  [ "$n" -eq "$EXPECTED" ] || fail "KerasLayerNormalizationPass fused $n LayerNorm, expected $EXPECTED"
  left=$(grep -c '^ *name: "[^"]*batchnorm/Rsqrt"$' "$WORK/out.pbtxt")
  [ "$left" -eq 0 ] || fail "$left batchnorm/Rsqrt nodes left unfused"
  [ ! -s "$WORK/out.err" ] || fail "unexpected diagnostics: $(head -c 300 "$WORK/out.err")"
  if command -v protoc >/dev/null; then
    protoc --encode=tensorflow.GraphDef -I "$TFXC_SRC/src/proto" tensorflow/graph.proto \
      <"$WORK/out.pbtxt" >"$WORK/out.pb" 2>"$WORK/protoc.err" ||
      fail "protoc cannot encode the output: $(head -c 300 "$WORK/protoc.err")"
  else
    echo "note: protoc not installed, encoding not checked"
  fi
else
  fail "pack run failed: $(head -c 300 "$WORK/out.err")"
fi

[ "$FAILS" -eq 0 ] && echo "PASS: $EXPECTED LayerNorm fused in Keras BERT"
[ "$FAILS" -eq 0 ]
