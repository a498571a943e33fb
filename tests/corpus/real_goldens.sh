#!/usr/bin/env bash
# Real-graph goldens: converts a few corpus graphs with `tfxc --emit tf-pbtxt` and compares a
# compact summary with tests/golden/corpus/<model>.<passes>.summary. The full tf-pbtxt outputs
# are megabytes, so only the summary is committed: one line per fused node (nodes carrying the
# `_fusion_pass` attr: name, op, pass, inputs, number of absorbed nodes), the total node count
# and the sha256 of the whole tf-pbtxt output (so any other change shows up as a hash change).
# Env: TFXC, TFXC_SRC, TFXC_CORPUS (exit 77 when the corpus is absent).
# `real_goldens.sh --update` rewrites the summaries (review the diff before committing).
. "$(dirname "$0")/lib.bash"
: "${TFXC_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
GOLD="$TFXC_SRC/tests/golden/corpus"
UPDATE=0
[ "${1:-}" = --update ] && UPDATE=1
DET=ScopeBatchMultiClassNMSPass,ScopeBatchMultiClassNonMaxSuppressionPass,ScopeDecodeBboxV2Pass,ScopeDecodeBboxPass,ScopeNormalizeBBoxPass,ScopeToAbsoluteBBoxPass,ScopeKeepRatioResizeBilinearPass,ScopeClipBoxesPass,ScopeROIAlignPass,ScopeRpnProposalsPass,ScopeFastrcnnPredictionsPass
RNN=ScopeBasicLSTMCellPass,ScopeDynamicLSTMPass,ScopeDynamicRNNPass,ScopeDynamicGRUPass
# model file | summary tag | extra passes ("" = default passes) | extra options
# bilstm_sentiment is a training graph: its gradient and save/restore nodes read nodes the LSTM
# results absorb without exporting them; the summary records the fusion as ATC does it, so the
# lost inputs are dropped (--allow-dangling-inputs) instead of failing the run.
CASES=(
  "models/bert_chinese_L12__graph_def.pb|bert_chinese_L12.default|"
  "models/ssd_mobilenet_v1_coco_2018_01_28__graph_def.pb|ssd_mobilenet_v1_coco.detection|$DET"
  "models/tf2onnx__lstm__frozen.pb|tf2onnx_lstm.rnn|$RNN"
  "models/tf2onnx__gru__frozen.pb|tf2onnx_gru.rnn|$RNN"
  "models/bilstm_sentiment__graph_def.pb|bilstm_sentiment.rnn|$RNN|--allow-dangling-inputs"
  "models/mobilenet_v1_0.25_128__frozen_graph.pb|mobilenet_v1_0.25_128.default|"
)
summarize() { # tf-pbtxt file -> summary on stdout
  python3 - "$1" <<'PY'
import hashlib, re, sys
data = open(sys.argv[1], 'rb').read()
text = data.decode('utf-8', 'replace')
# tf-pbtxt as emitted: top-level "node {" blocks, closed by a "}" in column 0.
blocks = re.findall(r'^node \{\n(.*?)^\}\n', text, re.M | re.S)
out = []
for b in blocks:
    if '"_fusion_pass"' not in b:
        continue
    name = re.search(r'^  name: "(.*)"$', b, re.M).group(1)
    op = re.search(r'^  op: "(.*)"$', b, re.M).group(1)
    ins = re.findall(r'^  input: "(.*)"$', b, re.M)
    p = re.search(r'key: "_fusion_pass"\s*value \{\s*s: "(.*?)"', b)
    nodes = re.search(r'key: "_fusion_nodes"\s*value \{\s*list \{(.*?)\}', b, re.S)
    n = len(re.findall(r'^\s*s: ', nodes.group(1), re.M)) if nodes else 0
    out.append('fused %s op=%s pass=%s absorbed=%d inputs=[%s]' % (name, op, p.group(1) if p else '?', n, ', '.join(ins)))
print('nodes %d' % len(blocks))
print('fused_count %d' % len(out))
print('sha256 %s' % hashlib.sha256(data).hexdigest())
for l in out:
    print(l)
PY
}
for c in "${CASES[@]}"; do
  IFS='|' read -r file tag passes extra <<<"$c"
  f="$TFXC_CORPUS/$file"
  if [ ! -f "$f" ]; then fail "$file: missing from the corpus"; continue; fi
  args=(--emit tf-pbtxt -o "$WORK/out.pbtxt")
  [ -n "$passes" ] && args+=(--enable-scope-fusion-passes "$passes")
  [ -n "${extra:-}" ] && args+=($extra)
  "$TFXC" "${args[@]}" "$f" >"$WORK/stdout.txt" 2>"$WORK/err.txt"
  rc=$?
  if [ "$rc" -ne 0 ]; then fail "$file: exit $rc"; head -5 "$WORK/err.txt"; continue; fi
  summarize "$WORK/out.pbtxt" >"$WORK/summary" || { fail "$file: summary failed"; continue; }
  exp="$GOLD/$tag.summary"
  if [ "$UPDATE" = 1 ]; then cp "$WORK/summary" "$exp"; echo "UPDATED $exp"; continue; fi
  if [ ! -f "$exp" ]; then fail "$tag: no $exp (run with --update)"; continue; fi
  if ! diff -u "$exp" "$WORK/summary" >"$WORK/diff"; then fail "$tag: summary differs"; head -40 "$WORK/diff"; fi
done
[ "$FAILS" -eq 0 ] || { echo "$FAILS failure(s)"; exit 1; }
echo "OK: ${#CASES[@]} real-graph goldens"
