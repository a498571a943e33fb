#!/usr/bin/env bash
# CLI test: the convert command with --emit tf-pbtxt: default output name, -o, -v/-q,
# --input-format accepted values, SavedModel --tag. Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
mkdir sub
cat >sub/net.v1.pbtxt <<'PB'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "s/y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
PB
# Default output: <model stem>.tf.pbtxt in the working directory.
"$TFXC" sub/net.v1.pbtxt --emit tf-pbtxt >out 2>err || { echo "FAIL: convert exited $?"; cat err; fail=1; }
[ -f net.v1.tf.pbtxt ] || { echo "FAIL: net.v1.tf.pbtxt not written: $(ls)"; fail=1; }
[ -s out ] && { echo "FAIL: convert printed to stdout"; fail=1; }
[ -s err ] && { echo "FAIL: a quiet successful run wrote to stderr"; cat err; fail=1; }
grep -q 'name: "s/y"' net.v1.tf.pbtxt || { echo "FAIL: output content"; fail=1; }
# -o FILE; -v reports what was written; equal to fmt's canonical text.
"$TFXC" -v --emit tf-pbtxt -o o.pbtxt sub/net.v1.pbtxt 2>err || { echo "FAIL: -o"; cat err; fail=1; }
grep -q "wrote o.pbtxt" err || { echo "FAIL: -v does not report the output"; cat err; fail=1; }
"$TFXC" fmt sub/net.v1.pbtxt -o canon.pbtxt 2>/dev/null
cmp -s o.pbtxt canon.pbtxt || { echo "FAIL: --emit tf-pbtxt differs from fmt output"; fail=1; }
"$TFXC" --emit=tf-pbtxt --output=eq.pbtxt sub/net.v1.pbtxt 2>/dev/null && [ -f eq.pbtxt ] ||
  { echo "FAIL: --opt=value form"; fail=1; }
"$TFXC" --emit tf-pbtxt -oshort.pbtxt sub/net.v1.pbtxt 2>/dev/null && [ -f short.pbtxt ] ||
  { echo "FAIL: -oFILE form"; fail=1; }
# Every valid --input-format is accepted.
for f in NCHW NHWC ND NCDHW NDHWC; do
  "$TFXC" --input-format $f --emit tf-pbtxt -o f.pbtxt sub/net.v1.pbtxt 2>err || { echo "FAIL: --input-format $f"; cat err; fail=1; }
done
# -- ends options (a model whose name starts with '-').
cp sub/net.v1.pbtxt ./-dash.pbtxt
"$TFXC" --emit tf-pbtxt -o dash.out -- -dash.pbtxt 2>err || { echo "FAIL: -- before a dash model"; cat err; fail=1; }
# SavedModel directory with --tag.
mkdir -p sm
cat >sm/saved_model.pbtxt <<'PB'
saved_model_schema_version: 1
meta_graphs { meta_info_def { tags: "train" } graph_def { node { name: "t" op: "NoOp" } } }
meta_graphs { meta_info_def { tags: "serve" } graph_def { node { name: "s" op: "NoOp" } } }
PB
"$TFXC" sm --emit tf-pbtxt --tag train 2>err || { echo "FAIL: SavedModel --tag train"; cat err; fail=1; }
grep -q 'name: "t"' sm.tf.pbtxt 2>/dev/null || { echo "FAIL: --tag train did not pick the train graph"; fail=1; }
"$TFXC" sm --emit tf-pbtxt -o serve.pbtxt 2>err || { echo "FAIL: SavedModel default tag"; cat err; fail=1; }
grep -q 'name: "s"' serve.pbtxt 2>/dev/null || { echo "FAIL: default tag is not serve"; fail=1; }
exit $fail
