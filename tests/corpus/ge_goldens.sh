#!/usr/bin/env bash
# End-to-end GE goldens for three real graphs: BERT (bert_chinese_L12), MobileNetV1-0.25-128 and
# SSD-MobileNetV1-COCO, converted to GE IR with `--emit air,ge-json,dot`. The full GE text
# would hold megabytes of weights, so tests/golden/corpus/<model>.ge.summary keeps a
# deterministic structural summary (tests/corpus/ge_summary.py: graphs, op histogram, Data
# nodes, NetOutput inputs, edge counts, Consts, fused nodes with _fusionop_original_type, the
# distinct attribute and layout combinations per op type, size and sha256 of the .air bytes)
# and the conversion's warnings.
# Each .air must also decode with protoc and pass tests/tools/air_check.py, and each .dot must
# render with `dot -Tsvg` into an SVG with one node per GE op.
#
# How each graph is made convertible (the corpus has what it has):
# - MobileNet: the frozen graph as is.
# - BERT: the corpus graph (graph_def.pb = the graph_def of bert_model.ckpt.meta) is not
#   frozen: its 206 weights are VariableV2 nodes, which ATC cannot convert (no TF->CANN pair;
#   ATC wants frozen graphs). Without the checkpoint they cannot be folded into Consts, so the
#   weights become graph inputs: `--input-shape` names the three Placeholders (1x128) and every
#   VariableV2 with its `shape` attr (ATC's TrimGraphByInput turns named nodes into Placeholders,
#   docs/ASCEND.md §7.2), and `--out-nodes` keeps the pooled output and the sequence output
#   (bert/pooler/dense/Tanh:0, bert/encoder/Reshape_13:0), which drops the initializers and the
#   Save/Restore nodes. The default scope passes fuse the 25 LayerNorms.
# - SSD: the same for its 200 VariableV2 weights, image_tensor fixed to 1x300x300x3, outputs
#   detection_boxes/scores/classes and num_detections, with the detection scope passes enabled
#   as ATC users do (docs/ASCEND.md §7.5; the set tests/corpus/real_goldens.sh uses).
#
# Env: TFXC, TFXC_SRC, TFXC_CORPUS, TFXC_PROTO_DIR; exit 77 when the corpus is absent, or when
# graphviz is missing (after the summaries were compared). UPDATE=1 (or --update) rewrites the
# summaries instead of comparing them (review the diff before committing).
. "$(dirname "$0")/lib.bash"
: "${TFXC_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TFXC_PROTO_DIR:=$TFXC_SRC/src/proto}"
GOLD="$TFXC_SRC/tests/golden/corpus"
SUMMARY="$TFXC_SRC/tests/corpus/ge_summary.py"
CHECK="$TFXC_SRC/tests/tools/air_check.py"
UPDATE=${UPDATE:-0}
[ "${1:-}" = --update ] && UPDATE=1
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
HAVE_PROTOC=1; command -v protoc >/dev/null || HAVE_PROTOC=0
HAVE_DOT=1; command -v dot >/dev/null || HAVE_DOT=0
DET=ScopeBatchMultiClassNMSPass,ScopeBatchMultiClassNonMaxSuppressionPass,ScopeDecodeBboxV2Pass,ScopeDecodeBboxPass,ScopeNormalizeBBoxPass,ScopeToAbsoluteBBoxPass,ScopeKeepRatioResizeBilinearPass,ScopeClipBoxesPass,ScopeROIAlignPass,ScopeRpnProposalsPass,ScopeFastrcnnPredictionsPass
# Without the two NMS passes (ScopeBatchMultiClassNMSPass and
# ScopeBatchMultiClassNonMaxSuppressionPass): their fused op needs score_threshold,
# iou_threshold, max_size_per_class and max_total_size, which no rule computes (Ascend's
# fusion parser reads them from absorbed nodes), and a required attribute left unset fails
# the node (issue 12 item 3) instead of a warning and a .air GE rejects.
DET_GE=${DET/ScopeBatchMultiClassNonMaxSuppressionPass,/}
DET_GE=${DET_GE/ScopeBatchMultiClassNMSPass,/}

# weights_as_inputs MODEL FIXED-SPEC: prints an --input-shape SPEC: FIXED-SPEC, then every
# VariableV2 node as NAME:DIMS from its `shape` attr (graph order).
weights_as_inputs() {
  "$TFXC" fmt "$1" -o "$WORK/model.pbtxt" || return 1
  python3 - "$WORK/model.pbtxt" "$2" <<'PY'
import re, sys
text = open(sys.argv[1], encoding='utf-8').read()
spec = [sys.argv[2]] if sys.argv[2] else []
# `tfxc fmt` text: top-level "node {" blocks closed by "}" in column 0.
for b in re.findall(r'^node \{\n(.*?)^\}\n', text, re.M | re.S):
    if not re.search(r'^  op: "VariableV2"$', b, re.M):
        continue
    name = re.search(r'^  name: "(.*)"$', b, re.M).group(1)
    m = re.search(r'key: "shape"\n    value \{\n      shape \{\n(.*?)\n      \}\n', b, re.S)
    if not m:
        sys.exit('VariableV2 %s has no shape attr' % name)
    dims = re.findall(r'size: (-?\d+)', m.group(1))
    spec.append('%s:%s' % (name, ','.join(dims)))
print(';'.join(spec))
PY
}

# tag | model file | input-shape fixed part ("-" = no --input-shape) | out-nodes | scope passes
CASES=(
  "mobilenet_v1_0.25_128|models/mobilenet_v1_0.25_128__frozen_graph.pb|-||"
  "bert_chinese_L12|models/bert_chinese_L12__graph_def.pb|Placeholder:1,128;Placeholder_1:1,128;Placeholder_2:1,128|bert/pooler/dense/Tanh:0;bert/encoder/Reshape_13:0|"
  "ssd_mobilenet_v1_coco|models/ssd_mobilenet_v1_coco_2018_01_28__graph_def.pb|image_tensor:1,300,300,3|detection_boxes:0;detection_scores:0;detection_classes:0;num_detections:0|$DET_GE"
)
DOT_OK=0
for c in "${CASES[@]}"; do
  IFS='|' read -r tag file fixed outs passes <<<"$c"
  f="$TFXC_CORPUS/$file"
  if [ ! -f "$f" ]; then fail "$file: missing from the corpus"; continue; fi
  args=(--emit air,ge-json,dot -o "$WORK/$tag")
  hdr=("tfxc GE summary of $file (tests/corpus/ge_goldens.sh; regenerate with UPDATE=1)")
  if [ "$fixed" != - ]; then
    spec=$(weights_as_inputs "$f" "$fixed") || { fail "$tag: cannot build --input-shape"; continue; }
    nvar=$(($(tr ';' '\n' <<<"$spec" | wc -l) - $(tr ';' '\n' <<<"$fixed" | wc -l)))
    args+=(--input-shape "$spec")
    hdr+=("--input-shape '$fixed' + $nvar VariableV2 weights as inputs (spec sha256 $(printf %s "$spec" | sha256sum | cut -c1-16))")
  fi
  [ -n "$outs" ] && { args+=(--out-nodes "$outs"); hdr+=("--out-nodes '$outs'"); }
  [ -n "$passes" ] && { args+=(--enable-scope-fusion-passes "$passes"); hdr+=("--enable-scope-fusion-passes $passes"); }
  t0=$(date +%s%N)
  "$TFXC" "${args[@]}" "$f" >"$WORK/stdout.txt" 2>"$WORK/err.txt"
  rc=$?
  t1=$(date +%s%N)
  if crashed "$rc" "$WORK/err.txt"; then fail "$tag: crashed (exit $rc)"; head -20 "$WORK/err.txt"; continue; fi
  if [ "$rc" -ne 0 ]; then fail "$tag: exit $rc"; head -20 "$WORK/err.txt"; continue; fi
  echo "$tag: converted in $(((t1 - t0) / 1000000)) ms"
  if [ "$HAVE_PROTOC" = 1 ]; then
    protoc --decode=ge.proto.ModelDef -I "$TFXC_PROTO_DIR" "$TFXC_PROTO_DIR/ge/ge_ir.proto" \
      <"$WORK/$tag.air" >/dev/null 2>"$WORK/protoc.err" ||
      { fail "$tag: protoc cannot decode the .air"; head -5 "$WORK/protoc.err"; }
  fi
  python3 "$CHECK" "$WORK/$tag.air" || fail "$tag: air_check rejects the .air"
  python3 "$SUMMARY" "$WORK/$tag.ge.json" "$WORK/$tag.air" "${hdr[@]}" >"$WORK/$tag.summary" ||
    { fail "$tag: ge_summary.py failed"; continue; }
  # The conversion's warnings (e.g. required CANN attributes no rule sets) are part of the golden.
  while IFS= read -r w; do w=${w//"$f"/MODEL}; printf 'warning %s\n' "${w#MODEL: warning: }"; done \
    < <(grep -F 'warning:' "$WORK/err.txt" | LC_ALL=C sort) >>"$WORK/$tag.summary"
  exp="$GOLD/$tag.ge.summary"
  if [ "$UPDATE" = 1 ]; then
    cp "$WORK/$tag.summary" "$exp" && echo "UPDATED $exp"
  elif [ ! -f "$exp" ]; then
    fail "$tag: no $exp (run with UPDATE=1)"
  elif ! diff -u "$exp" "$WORK/$tag.summary" >"$WORK/diff"; then
    fail "$tag: GE summary differs from $exp"; head -60 "$WORK/diff"
  fi
  # Graphviz lays out a graph of thousands of ops for many minutes (ssd_mobilenet without the
  # NMS fusion has over 7000): the SVG check is for graphs up to 4000 ops.
  nops=$(sed -n 's/^graph .* ops=\([0-9]*\) .*/\1/p' "$WORK/$tag.summary" | head -1)
  if [ "$HAVE_DOT" = 1 ] && [ "${nops:-0}" -gt 4000 ]; then
    echo "$tag: $nops ops, dot -Tsvg skipped"
    DOT_OK=$((DOT_OK + 1))
  elif [ "$HAVE_DOT" = 1 ]; then
    t0=$(date +%s%N)
    if ! dot -Tsvg "$WORK/$tag.dot" -o "$WORK/$tag.svg" 2>"$WORK/dot.err"; then
      fail "$tag: dot -Tsvg failed"; head -5 "$WORK/dot.err"; continue
    fi
    t1=$(date +%s%N)
    # One SVG node group per GE op.
    python3 - "$WORK/$tag.svg" "$WORK/$tag.ge.json" <<'PY' || fail "$tag: SVG check"
import json, sys
import xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
svg = ET.parse(sys.argv[1])
nodes = sum(1 for g in svg.iter(ns + 'g') if g.get('class') == 'node')
ops = sum(len(g.get('op', [])) for g in json.load(open(sys.argv[2]))['graph'])
if nodes != ops:
    sys.exit('SVG has %d nodes, the model %d ops' % (nodes, ops))
PY
    DOT_OK=$((DOT_OK + 1))
    echo "$tag: dot -Tsvg in $(((t1 - t0) / 1000000)) ms ($(wc -c <"$WORK/$tag.svg") bytes of SVG)"
  fi
done
[ "$FAILS" -eq 0 ] || { echo "$FAILS failure(s)"; exit 1; }
[ "$HAVE_PROTOC" = 1 ] || echo "note: protoc not installed, the .air files were not decoded with protoc"
if [ "$HAVE_DOT" = 0 ]; then
  echo "SKIP: graphviz (dot) not installed; the ${#CASES[@]} GE summaries match"
  exit 77
fi
echo "OK: ${#CASES[@]} GE goldens, $DOT_OK rendered with dot"
