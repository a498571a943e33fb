#!/usr/bin/env bash
# `tfxc explain`: golden outputs (tests/cli/explain/*.txt) for a matching scope, a near miss
# (one failing feature), disabled passes (opt-in and --disable-pass), --rule, and a scope pass
# fusing inside a library function body (--rule per graph, --scope/--rule with --function);
# usage errors.
# The rules are the stdlib's LayerNorm and InstanceNorm files given with -r (relative to the
# repo root, so sites are stable). TFXC_UPDATE=1 rewrites the goldens. Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
cd "${TFXC_SRC:?set TFXC_SRC to the repo root}" || exit 1
G=tests/cli/explain
R=(--no-stdlib -r stdlib/fusion/02-layer_norm.scoperule -r stdlib/fusion/04-instance_norm.scoperule)
EX=examples/dense_layernorm/model.pbtxt
C=tests/golden/cases
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
golden() { # name args...
  local name=$1; shift
  "$TFXC" explain "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  [ "$rc" -eq 0 ] || { echo "FAIL: $name: exit $rc"; cat "$T/err"; fail=1; return; }
  if [ "${TFXC_UPDATE:-}" = 1 ]; then cp "$T/out" "$G/$name.txt"; return; fi
  if ! diff -u "$G/$name.txt" "$T/out"; then echo "FAIL: $name differs (TFXC_UPDATE=1 rewrites)"; fail=1; fi
  # deterministic: a second run gives the same bytes
  "$TFXC" explain "$@" 2>/dev/null | cmp -s - "$T/out" || { echo "FAIL: $name: not deterministic"; fail=1; }
}
golden scope-match "$EX" --scope dense/LayerNorm/batchnorm/ "${R[@]}"
golden scope-near-miss "$C/ScopeLayerNormPass-neg-identity/model.pbtxt" --scope encoder/LayerNorm/batchnorm "${R[@]}"
golden scope-disabled "$EX" --scope dense/LayerNorm/moments "${R[@]}" --disable-pass ScopeLayerNormPass
golden scope-layered "$C/ScopeInstanceNormPass-pos/model.pbtxt" --scope style/InstanceNorm/moments/ "${R[@]}" --enable-scope-fusion-passes ScopeInstanceNormPass
golden rule "$EX" --rule ScopeLayerNormPass "${R[@]}"
golden rule-disabled "$EX" --rule ScopeInstanceNormPass "${R[@]}"
# a model whose LayerNorm sits in a library function body (TF2 Keras): --rule reports every
# graph with a match (here only the function; the main graph is summarised in one line),
# --scope --function explains a scope of the function's own tree
K=$C/keras-layernorm-pos/model.pbtxt
KR=(--no-stdlib -r rules/keras --enable-scope-fusion-passes KerasLayerNormalizationPass)
KF=__inference_layer_norm_layer_call_and_return_conditional_losses_10
golden rule-function "$K" --rule KerasLayerNormalizationPass "${KR[@]}"
golden rule-function-only "$K" --rule KerasLayerNormalizationPass --function "$KF" "${KR[@]}"
golden scope-function "$K" --scope moments --function "$KF" "${KR[@]}"

expect_usage() { # message args...
  local msg=$1; shift
  "$TFXC" explain "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  [ "$rc" -eq 2 ] || { echo "FAIL: explain $*: exit $rc, want 2"; fail=1; }
  grep -qF -- "$msg" "$T/err" || { echo "FAIL: explain $*: no '$msg' in:"; cat "$T/err"; fail=1; }
  [ -s "$T/out" ] && { echo "FAIL: explain $*: printed on stdout"; fail=1; }
}
expect_usage "no scope 'nope/' in the main graph" "$EX" --scope nope "${R[@]}"
expect_usage "no scope pass 'Nope' (passes: ScopeLayerNormPass, ScopeInstanceNormPass)" "$EX" --rule Nope "${R[@]}"
expect_usage "give exactly one of --scope NAME and --rule PASS" "$EX" "${R[@]}"
expect_usage "give exactly one of --scope NAME and --rule PASS" "$EX" --scope a --rule b "${R[@]}"
expect_usage "no MODEL given" --scope a
expect_usage "--function: no function 'nope' (1 function: $KF)" "$K" --scope moments --function nope "${KR[@]}"
expect_usage "--function: no function 'f' (the model has no library functions)" "$EX" --rule ScopeLayerNormPass --function f "${R[@]}"
expect_usage "--function: empty function name" "$K" --scope moments --function "" "${KR[@]}"
expect_usage "no scope 'moments/' in the main graph" "$K" --scope moments "${KR[@]}"
expect_usage "no scope 'nope/' in function '$KF'" "$K" --scope nope --function "$KF" "${KR[@]}"
"$TFXC" explain --help | grep -q "^Usage: tfxc explain MODEL" || { echo "FAIL: explain --help"; fail=1; }
# with the stdlib (default): the example's LayerNorm matches
"$TFXC" explain "$EX" --rule ScopeLayerNormPass | grep -q "^    dense/LayerNorm/ (LayerNorm)" ||
  { echo "FAIL: explain --rule with the stdlib"; fail=1; }
[ $fail = 0 ] && echo "explain: ok"
exit $fail
