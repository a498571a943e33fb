#!/usr/bin/env bash
# Freezing, over the SavedModels and the graph + checkpoint pair of ../shared/corpus/checkpoints:
# every SavedModel converts (serving outputs picked with --out-nodes; the save/restore functions
# are kept out of the GE model) to an .air whose Consts carry exactly the bytes the independent
# reader (tests/tools/tfbundle.py) reads for the variables the outputs use, and that holds no
# variable op. Also: the graph + checkpoint pair with --checkpoint; without it the conversion
# refuses (exit 1, "no checkpoint found", no output); --no-freeze keeps the variables; a .meta
# finds its weights beside it or through the `checkpoint` state file; the GE loader accepts
# every converted SavedModel (skipped when /work/ge_oracle is not built).
. "$(dirname "$0")/lib.bash"
: "${TFXC_SRC:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
CK="$TFXC_CORPUS/checkpoints"
[ -d "$CK" ] || { echo "SKIP: no checkpoints/ in the corpus"; exit 77; }
AIR_LOAD=${TFXC_AIR_LOAD:-/work/ge_oracle/build/air_load}
TOOLS="$TFXC_SRC/tests/tools"
n=0; nge=0
# model  out-nodes  checkpoint keys whose bytes the .air must carry (',' separated; '-' none)
while read -r model outs keys; do
  [ -d "$CK/$model" ] || { fail "$model: missing from the corpus"; continue; }
  air="$WORK/$model.air"
  "$TFXC" "$CK/$model" --out-nodes "$outs" --passthrough-unknown -q -o "$air" 2>"$WORK/err"; rc=$?
  if crashed $rc "$WORK/err" || [ $rc -ne 0 ] || [ ! -s "$air" ]; then
    fail "$model: exit $rc: $(head -c 400 "$WORK/err")"; continue
  fi
  python3 "$TOOLS/tfbundle.py" "$CK/$model/variables/variables" >"$WORK/py.json" || { fail "$model: python reader"; continue; }
  python3 "$TOOLS/air_consts.py" "$air" >"$WORK/air.json" || { fail "$model: cannot decode the .air"; continue; }
  if ! python3 - "$WORK/py.json" "$WORK/air.json" "$keys" <<'PY'
import json, sys
bundle = {t["name"]: t for t in json.load(open(sys.argv[1]))["tensors"]}
air = json.load(open(sys.argv[2]))
bad = {"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp", "RestoreV2", "SaveV2"} & set(air["types"])
assert not bad, "variable/saver ops in the .air: %s" % sorted(bad)
values = set(air["consts"].values())
for key in [k for k in sys.argv[3].split(",") if k != "-"]:
    assert bundle[key]["data"] in values, "no Const carries the bytes of %s (%s)" % (key, bundle[key]["data"][:40])
PY
  then fail "$model: the .air does not carry the checkpoint values"; continue; fi
  n=$((n + 1))
  if [ -x "$AIR_LOAD" ]; then
    if "$AIR_LOAD" "$air" >"$WORK/ge.out" 2>&1; then nge=$((nge + 1))
    else fail "$model: the GE loader refuses the .air: $(tail -c 300 "$WORK/ge.out")"; fi
  fi
done <<'EOF2'
half_plus_two y a,b
SimpleV1Model Variable/Read/ReadVariableOp Variable
tf_variablev2_saved_model output var1,var2
tf_readvariableop_saved_model StatefulPartitionedCall var1/.ATTRIBUTES/VARIABLE_VALUE,var2/.ATTRIBUTES/VARIABLE_VALUE
VarsAndArithmeticObjectGraph StatefulPartitionedCall x/.ATTRIBUTES/VARIABLE_VALUE,y/.ATTRIBUTES/VARIABLE_VALUE,child/z/.ATTRIBUTES/VARIABLE_VALUE
x_plus_y_v2_debuginfo PartitionedCall -
SimpleWhileLoop PartitionedCall -
tftrt_2.0_saved_model PartitionedCall -
EOF2
# half_plus_two by value: a = 0.5, b = 2 (and c = 3 for y2 = a*x + c... through y3's output).
python3 - "$WORK/half_plus_two.air" "$TOOLS" <<'PY' || fail "half_plus_two: a, b are not 0.5, 2"
import json, struct, subprocess, sys
c = json.loads(subprocess.check_output([sys.executable, sys.argv[2] + "/air_consts.py", sys.argv[1]]))["consts"]
assert struct.unpack("<f", bytes.fromhex(c["half_plus_two/a"]))[0] == 0.5, c
assert struct.unpack("<f", bytes.fromhex(c["half_plus_two/b"]))[0] == 2.0, c
PY

# The graph + checkpoint pair (text GraphDef): weights only with --checkpoint.
G="$CK/profiler_ckpt/graph.pbtxt"
"$TFXC" "$G" --out-nodes Conv2D_1 -o "$WORK/p0.air" 2>"$WORK/err"; rc=$?
[ $rc -eq 1 ] || fail "profiler_ckpt without --checkpoint: exit $rc, want 1"
grep -q "2 variable nodes .*no checkpoint found: give --checkpoint PREFIX or a SavedModel directory" "$WORK/err" ||
  fail "profiler_ckpt without --checkpoint: message: $(head -c 300 "$WORK/err")"
[ ! -e "$WORK/p0.air" ] || fail "profiler_ckpt without --checkpoint: an output was written"
"$TFXC" "$G" --out-nodes Conv2D_1 --passthrough-unknown -o "$WORK/p0.air" 2>/dev/null; rc=$?
[ $rc -eq 1 ] && [ ! -e "$WORK/p0.air" ] || fail "profiler_ckpt: --passthrough-unknown let variables through (exit $rc)"
"$TFXC" "$G" --out-nodes Conv2D_1 --checkpoint "$CK/profiler_ckpt/ckpt" -o "$WORK/p1.air" 2>"$WORK/err" ||
  fail "profiler_ckpt with --checkpoint: $(head -c 300 "$WORK/err")"
python3 "$TOOLS/tfbundle.py" "$CK/profiler_ckpt/ckpt" >"$WORK/py.json"
python3 "$TOOLS/air_consts.py" "$WORK/p1.air" >"$WORK/air.json" 2>/dev/null || fail "profiler_ckpt: no .air"
python3 - "$WORK/py.json" "$WORK/air.json" <<'PY' || fail "profiler_ckpt: DW/DW2 bytes not in the .air"
import json, sys
b = {t["name"]: t["data"] for t in json.load(open(sys.argv[1]))["tensors"]}
c = json.load(open(sys.argv[2]))
assert c["consts"]["graph/DW"] == b["DW"] and c["consts"]["graph/DW2"] == b["DW2"], sorted(c["consts"])
assert "VariableV2" not in c["types"]
PY
# --no-freeze keeps the variables (tf-pbtxt shows them; a GE output passes them through).
"$TFXC" "$G" --out-nodes Conv2D_1 --no-freeze --emit tf-pbtxt -o "$WORK/nf.pbtxt" 2>/dev/null || fail "--no-freeze: failed"
grep -q 'op: "VariableV2"' "$WORK/nf.pbtxt" || fail "--no-freeze: the variables are gone"
"$TFXC" "$G" --out-nodes Conv2D_1 --checkpoint "$CK/profiler_ckpt/ckpt" --emit tf-pbtxt -o "$WORK/f.pbtxt" 2>/dev/null
grep -q 'op: "VariableV2"' "$WORK/f.pbtxt" && fail "frozen tf-pbtxt still holds VariableV2"
"$TFXC" "$G" --checkpoint x --no-freeze -o "$WORK/u.air" 2>/dev/null; [ $? -eq 2 ] || fail "--checkpoint with --no-freeze is not a usage error"
# A .meta finds its checkpoint: by prefix, and through the `checkpoint` state file.
mkdir -p "$WORK/meta"
python3 - "$CK/tf_variablev2_saved_model/saved_model.pb" "$WORK/meta/model.ckpt-7.meta" <<'PY'
import sys
# the SavedModel's first meta graph (field 2 of SavedModel), written as a MetaGraphDef
data = open(sys.argv[1], "rb").read()
def varint(b, p):
    r = s = 0
    while True:
        x = b[p]; p += 1; r |= (x & 0x7F) << s
        if not x & 0x80: return r, p
        s += 7
p = 0
while p < len(data):
    k, p = varint(data, p)
    if k & 7 == 0: _, p = varint(data, p); continue
    n, p = varint(data, p)
    if k >> 3 == 2:
        open(sys.argv[2], "wb").write(data[p:p + n]); break
    p += n
PY
for f in index data-00000-of-00001; do ln -s "$CK/tf_variablev2_saved_model/variables/variables.$f" "$WORK/meta/model.ckpt-7.$f"; done
"$TFXC" "$WORK/meta/model.ckpt-7.meta" --out-nodes output -o "$WORK/m1.air" 2>"$WORK/err" || fail ".meta beside its checkpoint: $(head -c 300 "$WORK/err")"
mkdir -p "$WORK/meta2/run"
cp "$WORK/meta/model.ckpt-7.meta" "$WORK/meta2/graph.meta"
for f in index data-00000-of-00001; do ln -s "$CK/tf_variablev2_saved_model/variables/variables.$f" "$WORK/meta2/run/ckpt-9.$f"; done
printf 'model_checkpoint_path: "run/ckpt-9"\nall_model_checkpoint_paths: "run/ckpt-9"\n' >"$WORK/meta2/checkpoint"
"$TFXC" "$WORK/meta2/graph.meta" --out-nodes output -o "$WORK/m2.air" 2>"$WORK/err" || fail ".meta via the checkpoint state file: $(head -c 300 "$WORK/err")"
for m in m1 m2; do python3 "$TOOLS/air_consts.py" "$WORK/$m.air" | grep -v '"model\.ckpt-7/\|"graph/' >"$WORK/$m.json"; done
python3 - "$WORK/m1.air" "$WORK/m2.air" "$TOOLS" <<'PY' || fail ".meta: the two ways to the weights give different Consts"
import json, subprocess, sys
def consts(f):
    c = json.loads(subprocess.check_output([sys.executable, sys.argv[3] + "/air_consts.py", f]))["consts"]
    return {k.split("/", 1)[1]: v for k, v in c.items()}
a, b = consts(sys.argv[1]), consts(sys.argv[2])
assert a == b and a["var1"] and a["var2"], (a, b)
PY
echo "ckpt_convert: $n SavedModels converted with their weights ($nge accepted by the GE loader), $FAILS failures"
[ $FAILS -eq 0 ]
