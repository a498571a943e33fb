#!/usr/bin/env bash
# CLI test: hand-written stdlib op maps end to end (tfxc MODEL --emit ge-json, then the GE ops
# checked, and the --check report for which rule mapped each node): MatMul / BatchMatMulV2 attr
# renames, Conv2D pads from explicit_paddings (NCHW) and the HWCN filter, Softmax axes and NHWC
# formats, ConcatV2 / Split / IdentityN dynamic ports, FusedBatchNormV3 in training (mean and
# variance become control edges) and FusedBatchNormV2 in inference (the first registration,
# BatchNorm, wins over FusedBatchNormV2), Shape / Cast / ArgMax dtype attrs, Squeeze axis from
# squeeze_dims, TopKV2 -> TopK, InTopKV2 -> InTopK (first registration), BlockLSTM expanded into
# Cast + DynamicRNN with its output permutation. Env: TFXC. Skipped (77) without python3.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

cat >m.pbtxt <<'PB'
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "mm" op: "MatMul" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } attr { key: "transpose_a" value { b: false } } attr { key: "transpose_b" value { b: true } } }
node { name: "bmm" op: "BatchMatMulV2" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } attr { key: "adj_x" value { b: true } } attr { key: "adj_y" value { b: false } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "cat" op: "ConcatV2" input: "mm" input: "bmm" input: "axis" attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }
node { name: "sm" op: "Softmax" input: "cat" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "conv" op: "Conv2D" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } attr { key: "data_format" value { s: "NCHW" } } attr { key: "padding" value { s: "EXPLICIT" } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "explicit_paddings" value { list { i: 0 i: 0 i: 0 i: 0 i: 1 i: 2 i: 3 i: 4 } } } }
node { name: "s" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "bn" op: "FusedBatchNormV3" input: "conv" input: "s" input: "s" input: "s" input: "s" attr { key: "T" value { type: DT_FLOAT } } attr { key: "U" value { type: DT_FLOAT } } attr { key: "is_training" value { b: true } } attr { key: "data_format" value { s: "NCHW" } } }
node { name: "bn2" op: "FusedBatchNormV2" input: "conv" input: "s" input: "s" input: "s" input: "s" attr { key: "T" value { type: DT_FLOAT } } attr { key: "U" value { type: DT_FLOAT } } attr { key: "is_training" value { b: false } } }
node { name: "shape" op: "Shape" input: "bn" attr { key: "T" value { type: DT_FLOAT } } attr { key: "out_type" value { type: DT_INT64 } } }
node { name: "cast" op: "Cast" input: "bn2" attr { key: "SrcT" value { type: DT_FLOAT } } attr { key: "DstT" value { type: DT_HALF } } }
node { name: "dim" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "am" op: "ArgMax" input: "cast" input: "dim" attr { key: "T" value { type: DT_HALF } } attr { key: "Tidx" value { type: DT_INT32 } } attr { key: "output_type" value { type: DT_INT32 } } }
node { name: "split" op: "Split" input: "dim" input: "cast" attr { key: "T" value { type: DT_HALF } } attr { key: "num_split" value { i: 2 } } }
node { name: "idn" op: "IdentityN" input: "split" input: "split:1" attr { key: "T" value { list { type: DT_HALF type: DT_HALF } } } }
node { name: "sq" op: "Squeeze" input: "idn:1" attr { key: "T" value { type: DT_HALF } } attr { key: "squeeze_dims" value { list { i: 0 } } } }
node { name: "k" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 2 } } } }
node { name: "topk" op: "TopKV2" input: "sq" input: "k" attr { key: "T" value { type: DT_HALF } } attr { key: "sorted" value { b: true } } }
node { name: "t" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "itk" op: "InTopKV2" input: "sm" input: "t" input: "k" attr { key: "T" value { type: DT_INT32 } } }
node { name: "sl" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } }
node { name: "lstm" op: "BlockLSTM" input: "sl" input: "x" input: "x" input: "x" input: "x" input: "x" input: "x" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "forget_bias" value { f: 1.0 } } attr { key: "cell_clip" value { f: 3.0 } } attr { key: "use_peephole" value { b: false } } }
node { name: "h" op: "Identity" input: "lstm:6" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cs" op: "Identity" input: "lstm:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "out" op: "Identity" input: "topk:1" input: "^shape" input: "^am" input: "^idn" input: "^itk" input: "^h" input: "^cs" attr { key: "T" value { type: DT_INT32 } } }
PB

fail=0
"$TFXC" m.pbtxt --emit ge-json -o m.json 2>err || { echo "FAIL: convert exited $?"; cat err; exit 1; }
"$TFXC" m.pbtxt --check --report check.json 2>err2 || { echo "FAIL: --check exited $?"; cat err2; fail=1; }

python3 - m.json check.json <<'PY' || fail=1
import base64, json, sys

ops = {o["name"]: o for o in json.load(open(sys.argv[1]))["graph"][0]["op"]}
report = {o["name"]: o for o in json.load(open(sys.argv[2]))["op"]}
bad = 0

def check(cond, what):
    global bad
    print(("ok: " if cond else "FAIL: ") + what)
    bad |= not cond

def attr(op, name):
    a = ops[op].get("attr", {}).get(name)
    if a is None:
        return None
    if "list" in a:
        l = a["list"]
        for k in ("i", "b", "f", "dt"):
            if k in l:
                return [int(x) if k in ("i", "dt") else x for x in l[k]]
        return [base64.b64decode(x).decode() for x in l.get("s", [])]
    for k in ("i", "dt"):
        if k in a:
            return int(a[k])
    for k in ("b", "f"):
        if k in a:
            return a[k]
    if "s" in a:
        return base64.b64decode(a["s"]).decode()
    return a

def fmt(op, io, i):
    d = ops[op][io][i]
    return base64.b64decode(d.get("attr", {}).get("origin_format", {}).get("s", "")).decode()

def names(op, io):
    return [d.get("name") for d in ops[op].get(io, [])]

check(ops["mm"]["type"] == "MatMulV2", "MatMul -> MatMulV2")
check(attr("mm", "transpose_x1") is False and attr("mm", "transpose_x2") is True, "transpose_a/b -> transpose_x1/x2")
check(attr("mm", "transpose_b") is None, "transpose_b dropped")
check(ops["bmm"]["type"] == "BatchMatMulV2" and attr("bmm", "adj_x1") is True and attr("bmm", "adj_x2") is False,
      "BatchMatMulV2 adj_x/adj_y -> adj_x1/adj_x2")
check(attr("cat", "__dynamic_input_x_cnt") == 2 and names("cat", "inputDesc") == ["x0", "x1", "concat_dim"],
      "ConcatV2: dynamic x (2) then concat_dim")
check(ops["sm"]["type"] == "SoftmaxV2" and attr("sm", "axes") == [-1], "Softmax -> SoftmaxV2 axes [-1]")
check(fmt("sm", "inputDesc", 0) == "NHWC" and fmt("sm", "outputDesc", 0) == "NHWC", "Softmax x/y NHWC")
check(attr("conv", "pads") == [1, 2, 3, 4], "Conv2D NCHW pads = explicit_paddings[4:8]")
check(fmt("conv", "inputDesc", 1) == "HWCN" and fmt("conv", "inputDesc", 0) == "NCHW", "Conv2D filter HWCN, x NCHW")
check(ops["bn"]["type"] == "BatchNorm" and ops["bn"]["input"] == ["conv:0", "s:0", "s:0", "", "", "s:-1"],
      "FusedBatchNormV3 training: mean/variance deleted (control edge), optional ports unfed")
check(ops["bn2"]["type"] == "BatchNorm" and len([i for i in ops["bn2"]["input"] if i]) == 5,
      "FusedBatchNormV2 inference -> BatchNorm with 5 inputs")
check(report["bn2"]["rule"]["name"] == "FusedBatchNorm,FusedBatchNormV2,FusedBatchNormV3->BatchNorm",
      "FusedBatchNormV2: the first registration (BatchNorm) wins")
check(attr("shape", "dtype") == 9, "Shape dtype = out_type (Int 9, ge::DT_INT64)")
check(attr("cast", "dst_type") == 1, "Cast dst_type = DstT (Int 1, ge::DT_FLOAT16)")
check(ops["am"]["type"] == "ArgMaxV2" and attr("am", "dtype") == 3, "ArgMax -> ArgMaxV2 dtype = output_type")
check(attr("split", "__dynamic_output_y_cnt") == 2 and names("split", "outputDesc") == ["y0", "y1"], "Split: y0, y1")
check(names("idn", "inputDesc") == ["x0", "x1"] and names("idn", "outputDesc") == ["y0", "y1"], "IdentityN x/y by len(T)")
check(attr("sq", "axis") == [0], "Squeeze axis = squeeze_dims")
check(ops["topk"]["type"] == "TopK" and attr("topk", "dim") == -1 and attr("topk", "largest") is True, "TopKV2 -> TopK")
check(ops["itk"]["type"] == "InTopK" and report["itk"]["rule"]["name"] == "InTopKV2->InTopK",
      "InTopKV2: the first registration (InTopK) wins")
check(ops["lstm/seq_length"]["type"] == "Cast" and attr("lstm/seq_length", "dst_type") == 3, "BlockLSTM: Cast to int32")
check(ops["lstm/rnn"]["type"] == "DynamicRNN" and ops["lstm/rnn"]["input"][3] == "lstm/seq_length:0",
      "BlockLSTM: DynamicRNN seq_length from the Cast")
check(attr("lstm/rnn", "forget_bias") == 1 and attr("lstm/rnn", "cell_clip") == 3, "BlockLSTM attrs copied")
check(ops["h"]["input"] == ["lstm/rnn:1"] and ops["cs"]["input"] == ["lstm/rnn:2"], "BlockLSTM outputs h -> 1, cs -> 2")
check(report["lstm"]["mapping"] == "graph", "BlockLSTM mapped by a graph map")
sys.exit(bad)
PY
exit $fail
