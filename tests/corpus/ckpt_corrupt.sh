#!/usr/bin/env bash
# Damaged checkpoints, made here in a temporary directory from the real SavedModels of
# ../shared/corpus/checkpoints: a truncated index, a bad footer, a flipped data byte, a shard
# cut short (an entry past the end of its shard), a missing shard and a wrong shard count.
# Each conversion must exit 3, name the tensor (when one is concerned) and the file, and write
# no output; `tfxc inspect PREFIX` refuses the same bundles with exit 3.
. "$(dirname "$0")/lib.bash"
CK="$TFXC_CORPUS/checkpoints"
[ -d "$CK/tf_variablev2_saved_model" ] || { echo "SKIP: no checkpoints/ in the corpus"; exit 77; }
n=0
fresh() { # model -> $WORK/m (a writable copy)
  rm -rf "$WORK/m"; cp -r "$CK/$1" "$WORK/m"; chmod -R u+w "$WORK/m"
}
expect3() { # label out-nodes pattern...
  local label=$1 outs=$2; shift 2
  rm -f "$WORK/out.air"
  "$TFXC" "$WORK/m" --out-nodes "$outs" --passthrough-unknown -o "$WORK/out.air" 2>"$WORK/err"; local rc=$?
  if crashed $rc "$WORK/err"; then fail "$label: crashed"; return; fi
  [ $rc -eq 3 ] || fail "$label: exit $rc, want 3: $(head -c 300 "$WORK/err")"
  [ ! -e "$WORK/out.air" ] || fail "$label: an output was written"
  ls "$WORK"/*.tmp.* >/dev/null 2>&1 && fail "$label: a temporary file was left"
  for p in "$@"; do grep -qF -- "$p" "$WORK/err" || fail "$label: message lacks '$p': $(head -c 300 "$WORK/err")"; done
  "$TFXC" inspect "$WORK/m/variables/variables" >"$WORK/ins.out" 2>"$WORK/ins.err"; rc=$?
  { [ $rc -eq 3 ] && [ ! -s "$WORK/ins.out" ]; } || fail "$label: inspect PREFIX exit $rc, want 3 and no listing"
  n=$((n + 1))
}
V=tf_variablev2_saved_model
IDX="$WORK/m/variables/variables.index"
DATA="$WORK/m/variables/variables.data-00000-of-00001"
# truncated index
fresh $V; size=$(stat -c %s "$IDX"); head -c $((size - 20)) "$CK/$V/variables/variables.index" >"$IDX"
expect3 "truncated index" output "variables.index" "footer"
fresh $V; head -c 30 "$CK/$V/variables/variables.index" >"$IDX"
expect3 "index cut to 30 bytes" output "variables.index"
# bad footer: one byte of the magic number
fresh $V; printf '\x00' | dd of="$IDX" bs=1 seek=$((size - 3)) conv=notrunc 2>/dev/null
expect3 "bad footer" output "variables.index" "magic"
# a flipped byte in var1's value (tensor 'var1' is the first in the shard)
fresh $V; printf '\x5a' | dd of="$DATA" bs=1 seek=1 conv=notrunc 2>/dev/null
expect3 "flipped data byte" output "'var1'" "crc32c" "variables.data-00000-of-00001"
# shard cut short: var2 (the last tensor) runs past the end
fresh $V; dsize=$(stat -c %s "$DATA"); truncate -s $((dsize - 2)) "$DATA"
expect3 "entry past the end of its shard" output "'var2'" "past the end" "variables.data-00000-of-00001"
# wrong shard count: the data file renamed as one of two shards
fresh $V; mv "$DATA" "$WORK/m/variables/variables.data-00000-of-00002"
expect3 "wrong shard count" output "variables.data-00000-of-00001"
# the two-shard model with its second shard missing
fresh tftrt_2.0_saved_model; rm "$WORK/m/variables/variables.data-00001-of-00002"
expect3 "missing shard" PartitionedCall "variables.data-00001-of-00002" "shard 1 of 2"
# a TF2 model: a flipped byte of a captured variable, frozen inside the function body
fresh VarsAndArithmeticObjectGraph
python3 - "$WORK/m/variables/variables" <<'PY'
import json, subprocess, sys, os
# flip the first byte of x's value, located by the independent reader's offsets
sys.path.insert(0, os.environ["TFXC_SRC"] + "/tests/tools")
import tfbundle
idx = open(sys.argv[1] + ".index", "rb").read()
for k, v in tfbundle.table(idx):
    if k == b"x/.ATTRIBUTES/VARIABLE_VALUE":
        e = tfbundle.parse_entry(v)
        with open(sys.argv[1] + ".data-00000-of-00001", "r+b") as f:
            f.seek(e["offset"]); b = f.read(1); f.seek(e["offset"]); f.write(bytes([b[0] ^ 1]))
PY
expect3 "TF2 flipped byte" StatefulPartitionedCall "'x/.ATTRIBUTES/VARIABLE_VALUE'" "crc32c"
# a variable the outputs need whose tensor the checkpoint lacks (half_plus_two's saver filename)
fresh half_plus_two
rm -f "$WORK/out.air"
"$TFXC" "$WORK/m" --out-nodes "y;filename_tensor" --passthrough-unknown -o "$WORK/out.air" 2>"$WORK/err"; rc=$?
[ $rc -eq 3 ] && [ ! -e "$WORK/out.air" ] || fail "missing tensor: exit $rc, want 3 and no output"
grep -qF "variable 'filename_tensor': tensor 'filename_tensor' is not in the checkpoint $WORK/m/variables/variables.index" "$WORK/err" ||
  fail "missing tensor: message: $(head -c 300 "$WORK/err")"
# ... and without that output the same model converts (the variable is not needed)
"$TFXC" "$WORK/m" --out-nodes y --passthrough-unknown -o "$WORK/out.air" 2>"$WORK/err" || fail "half_plus_two y: $(head -c 300 "$WORK/err")"
echo "ckpt_corrupt: $n damaged bundles refused, $FAILS failures"
[ $FAILS -eq 0 ]
