#!/usr/bin/env bash
# GE Graphviz emitter (src/ge/emit_dot.c through tests/tools/ge_emit_tool): the test model and
# a model of hostile names (quotes, backslashes, newlines, control and non-UTF-8 bytes, DOT
# keywords, missing nodes and subgraphs, duplicates) must render with `dot -Tsvg` with nothing
# on stderr (no syntax error, no warning), one cluster per GE graph and per scope, the fused
# node and the subgraph link present. Env: TFXC_GE_EMIT_TOOL, TFXC_SRC. Needs graphviz (`dot`):
# exit 77 (skipped) without it.
set -u
: "${TFXC_GE_EMIT_TOOL:?set TFXC_GE_EMIT_TOOL to the ge_emit_tool binary}"
: "${TFXC_SRC:?set TFXC_SRC to the source tree}"
command -v dot >/dev/null || { echo "SKIP: graphviz (dot) not installed"; exit 77; }
TOOL=$TFXC_GE_EMIT_TOOL
[ -x "$TOOL" ] || { echo "FAIL: $TOOL is not an executable"; exit 1; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
for m in model nasty; do
  "$TOOL" --to dot -o "$m.dot" "$TFXC_SRC/tests/cli/ge_emit/$m.pbtxt" 2>err ||
    { echo "FAIL: ge_emit_tool --to dot $m.pbtxt"; cat err; fail=1; continue; }
  "$TOOL" --to dot -o "$m.2.dot" "$TFXC_SRC/tests/cli/ge_emit/$m.pbtxt" 2>/dev/null
  cmp -s "$m.dot" "$m.2.dot" || { echo "FAIL: $m: two runs wrote different DOT"; fail=1; }
  if ! dot -Tsvg "$m.dot" -o "$m.svg" 2>err || [ -s err ]; then
    echo "FAIL: $m: dot -Tsvg failed or warned:"; cat err; fail=1
  fi
done
has() { grep -qF -- "$2" "$1" || { echo "FAIL: $1 lacks: $2"; fail=1; }; }
has model.svg '<title>cluster_g0</title>'
has model.svg '<title>cluster_g1</title>'
has model.svg '>graph 0: main (root)</text>'
has model.svg '>graph 1: sub</text>'
has model.svg '>blk/</text>'
has model.svg '>fused: FusedRelu</text>'
has model.svg '>replaces 2 ops:</text>'
has model.svg '>subgraph 0: sub</text>'
has model.svg '<title>g0/call&#45;&gt;g1/sub/arg</title>'
has model.svg 'stroke-dasharray'  # the control edge x -> blk/relu
has model.svg '>0&#45;&gt;1</text>'
has nasty.svg '>a/b/c/d/</text>'
has nasty.svg '>(+2 more)</text>'
has nasty.svg '>gone</text>'
has nasty.svg '>7&#45;&gt;1 (no such output)</text>'
has nasty.svg '>subgraph 0: missing (missing)</text>'
has nasty.svg '<title>g0/dup#6</title>'
has nasty.svg '>été/€</text>'
[ "$fail" = 0 ] && echo "ge_emit_dot: ok"
exit "$fail"
