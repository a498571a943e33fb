#!/usr/bin/env bash
# CLI test: external weight files (src/ge/external.c, docs/CLI.md "Output files") exercised
# with small tensors through --limit external-weights: a generated graph with a 64x64 and a
# 64-element float Const converted with the limit at 8K writes air_weight/<model>/Const_*_file
# holding exactly the tensor bytes, the Consts keep their descriptors with empty data plus
# `location` / `length`, the .air decodes with protoc, runs are byte-identical; without the
# limit nothing moves. Failure paths leave nothing: an output-size limit smaller than a weight
# file (exit 1) and -o - (exit 1). When GE's loader (../ge_oracle/build/air_load next to the
# checkout, or $AIR_LOAD) exists it must accept the separated model and refuse it once a
# weight file is missing. Env: TFXC, TFXC_SRC, TFXC_PROTO_DIR (optional); python3.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
: "${TFXC_SRC:?set TFXC_SRC to the repo root}"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
AIR_LOAD=${AIR_LOAD:-$TFXC_SRC/../ge_oracle/build/air_load}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

python3 - <<'PY'
import struct
def floats(n, k):
    return struct.pack('<%df' % n, *[((i * 37 + k) % 101) / 8.0 for i in range(n)])
def esc(b):
    return ''.join('\\%03o' % c for c in b)
w, b = floats(64 * 64, 1), floats(64, 2)
open('w.bin', 'wb').write(w)
open('b.bin', 'wb').write(b)
f32 = 'attr { key: "T" value { type: DT_FLOAT } }'
with open('net.pbtxt', 'w') as f:
    f.write('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } '
            'attr { key: "shape" value { shape { dim { size: 1 } dim { size: 64 } } } } }\n')
    f.write('node { name: "dense/w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } '
            'attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 64 } '
            'dim { size: 64 } } tensor_content: "%s" } } } }\n' % esc(w))
    f.write('node { name: "dense/b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } '
            'attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 64 } } '
            'tensor_content: "%s" } } } }\n' % esc(b))
    f.write('node { name: "dense/MatMul" op: "MatMul" input: "x" input: "dense/w" %s }\n' % f32)
    f.write('node { name: "dense/BiasAdd" op: "BiasAdd" input: "dense/MatMul" input: "dense/b" %s }\n' % f32)
PY

WD=air_weight/net
mkdir -p out
"$TFXC" net.pbtxt --limit external-weights=8K --emit air,ge-json -o out/net 2>err || { bad "conversion: exit $?"; cat err; }
cmp -s out/$WD/Const_net_dense_w_file w.bin || bad "dense/w: the weight file does not hold the tensor bytes"
cmp -s out/$WD/Const_net_dense_b_file b.bin || bad "dense/b: the weight file does not hold the tensor bytes"
[ "$(ls out/$WD | wc -l)" = 2 ] || bad "expected 2 weight files, got: $(ls out/$WD)"
python3 - out/net.ge.json <<'PY' || fail=1
import json, sys
g = json.load(open(sys.argv[1]))["graph"][0]
ok = 0
for op in g["op"]:
    if op["type"] != "Const":
        continue
    a = op["attr"]
    want = {"dense/w": 16384, "dense/b": 256}[op["name"]]
    tag = op["name"].replace("/", "_")
    if a.get("location", {}).get("s") is None or int(a["length"]["i"]) != want:
        sys.exit("FAIL: %s: location/length missing or wrong: %s" % (op["name"], a))
    import base64
    if base64.b64decode(a["location"]["s"]).decode() != "air_weight/net/Const_net_%s_file" % tag:
        sys.exit("FAIL: %s: location %s" % (op["name"], a["location"]))
    t = a["value"]["t"]
    if t.get("data") or not t.get("desc", {}).get("shape"):
        sys.exit("FAIL: %s: value keeps data or lost its descriptor: %s" % (op["name"], t))
    ok += 1
if ok != 2:
    sys.exit("FAIL: %d separated Consts, want 2" % ok)
PY
if command -v protoc >/dev/null && [ -n "${TFXC_PROTO_DIR:-}" ]; then
  protoc --decode=ge.proto.ModelDef -I "$TFXC_PROTO_DIR" "$TFXC_PROTO_DIR/ge/ge_ir.proto" <out/net.air >dec.txt ||
    bad "protoc cannot decode the .air"
  grep -q 's: "air_weight/net/Const_net_dense_w_file"' dec.txt || bad "the .air has no location for dense/w"
fi
# deterministic
mkdir -p again
"$TFXC" net.pbtxt --limit external-weights=8K -o again/net.air 2>err || bad "second run: exit $?"
cmp -s out/net.air again/net.air || bad "two runs give different .air files"
cmp -s out/$WD/Const_net_dense_w_file again/$WD/Const_net_dense_w_file || bad "two runs give different weight files"

# the default limit: nothing moves, the weights are inline
mkdir -p inl
"$TFXC" net.pbtxt -o inl/net.air 2>err || bad "default limit: exit $?"
[ ! -e inl/air_weight ] || bad "default limit: air_weight/ was written"
[ "$(stat -c %s inl/net.air)" -gt 16640 ] || bad "default limit: the .air does not hold the weights"

# failures leave nothing: a weight file over the output-size limit, standard output
mkdir -p f1
"$TFXC" net.pbtxt --limit external-weights=8K,output-size=10K -o f1/net.air 2>err; rc=$?
[ "$rc" = 1 ] || bad "output-size below a weight file: exit $rc, want 1"
grep -q "larger than the limit" err || bad "output-size below a weight file: message: $(head -c 300 err)"
[ -z "$(ls -A f1)" ] || bad "output-size below a weight file: left $(ls -A f1)"
"$TFXC" net.pbtxt --limit external-weights=8K -o - >stdout.bin 2>err; rc=$?
[ "$rc" = 1 ] || bad "-o - with external weights: exit $rc, want 1"
grep -q "needs -o FILE" err || bad "-o - with external weights: message: $(head -c 300 err)"
[ ! -s stdout.bin ] || bad "-o - with external weights: wrote to stdout"
[ ! -e air_weight ] || bad "-o - with external weights: created air_weight/"

# GE's own loader reads the weight files back (relative to the .air) and checks their sizes
if [ -x "$AIR_LOAD" ]; then
  (cd / && "$AIR_LOAD" "$T/out/net.air") >ge.txt 2>&1 || bad "GE loader refuses the separated model: $(tail -3 ge.txt)"
  rm out/$WD/Const_net_dense_b_file
  (cd / && "$AIR_LOAD" "$T/out/net.air") >ge2.txt 2>&1 && bad "GE loader accepts the model with a weight file missing"
else
  echo "note: GE loader not found at $AIR_LOAD; its check skipped"
fi
exit $fail
