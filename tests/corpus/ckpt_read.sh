#!/usr/bin/env bash
# Tensor bundles of ../shared/corpus/checkpoints: for every PREFIX.index there, the tensors
# `tfxc inspect --json --values PREFIX` reads (names, dtypes, shapes, bytes, strings) equal
# what tests/tools/tfbundle.py reads (an independent Python reader written from the format
# description); a few values are also checked by hand (half_plus_two: a=0.5, b=2, c=3), and
# the checkpoint directories MANIFEST.tsv lists must all be there.
. "$(dirname "$0")/lib.bash"
: "${TFXC_SRC:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
CK="$TFXC_CORPUS/checkpoints"
[ -f "$CK/MANIFEST.tsv" ] || { echo "SKIP: no checkpoints/ in the corpus"; exit 77; }
n=0
while IFS=$'\t' read -r dir _src _path _commit _lic files _contents; do
  [ "$dir" = dir ] && continue
  [ -d "$CK/$dir" ] || { fail "$dir: listed in MANIFEST.tsv but missing"; continue; }
  found=0
  for idx in $(cd "$CK/$dir" && find . -name '*.index' | sort); do
    found=1
    prefix="$CK/$dir/${idx#./}"; prefix="${prefix%.index}"
    if ! python3 "$TFXC_SRC/tests/tools/tfbundle.py" "$prefix" >"$WORK/py.json" 2>"$WORK/py.err"; then
      fail "$dir: the Python reader refuses $prefix: $(cat "$WORK/py.err")"; continue
    fi
    "$TFXC" inspect --json --values "$prefix" >"$WORK/c.json" 2>"$WORK/c.err"; rc=$?
    if crashed $rc "$WORK/c.err" || [ $rc -ne 0 ]; then
      fail "$dir: tfxc inspect exit $rc: $(head -c 400 "$WORK/c.err")"; continue
    fi
    if ! python3 - "$WORK/py.json" "$WORK/c.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert a["shards"] == b["shards"], ("shards", a["shards"], b["shards"])
ta, tb = a["tensors"], b["tensors"]
assert [t["name"] for t in ta] == [t["name"] for t in tb], "tensor names differ"
assert ta, "no tensors"
for x, y in zip(ta, tb):
    for k in ("dtype", "shape", "data", "strings"):
        assert x.get(k) == y.get(k), (x["name"], k, str(x.get(k))[:80], str(y.get(k))[:80])
PY
    then fail "$dir: tfxc and the Python reader disagree on $prefix"; continue; fi
    n=$((n + 1))
  done
  [ $found = 1 ] || fail "$dir: no .index file"
done <"$CK/MANIFEST.tsv"
# Known values, by hand: half_plus_two's a, b, c are the floats 0.5, 2, 3.
"$TFXC" inspect --json --values "$CK/half_plus_two/variables/variables" >"$WORK/h.json" || fail "half_plus_two: inspect"
python3 - "$WORK/h.json" <<'PY' || fail "half_plus_two: a, b, c are not 0.5, 2, 3"
import json, struct, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))["tensors"]}
v = {k: struct.unpack("<f", bytes.fromhex(t[k]["data"]))[0] for k in "abc"}
assert v == {"a": 0.5, "b": 2.0, "c": 3.0}, v
PY
# The two-shard bundle lists both shards; strings of the old layout come out whole.
grep -q '"shards": 2' <("$TFXC" inspect --json "$CK/tftrt_2.0_saved_model/variables/variables") ||
  fail "tftrt_2.0: not two shards"
"$TFXC" inspect --json --values "$CK/old_string_tensors/foo" >"$WORK/s.json" || fail "old_string_tensors: inspect"
python3 - "$WORK/s.json" <<'PY' || fail "old_string_tensors: wrong strings"
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))["tensors"]}
s = [bytes.fromhex(h) for h in t["strs"]["strings"]]
assert s == [b"hello", b"", b"x01", b"c" * 1024], [x[:10] for x in s]
assert [bytes.fromhex(h) for h in t["scalar"]["strings"]] == [b"hello"]
PY
# The text listing of a checkpoint-only bundle: name, dtype, shape.
"$TFXC" inspect "$CK/mnist_ckpt/model.ckpt-46900" >"$WORK/m.txt" || fail "mnist_ckpt: inspect"
grep -Eq '^  dense/kernel +float \[64,512\] +131072 bytes$' "$WORK/m.txt" || fail "mnist_ckpt: listing lacks dense/kernel"
grep -q '^tensors:    27 ' "$WORK/m.txt" || fail "mnist_ckpt: not 27 tensors"
echo "ckpt_read: $n bundles agree with the independent reader, $FAILS failures"
[ $n -ge 11 ] || fail "only $n bundles compared"
[ $FAILS -eq 0 ]
