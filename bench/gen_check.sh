#!/usr/bin/env bash
# ctest bench/gen_check: the benchmark generator's output is deterministic, indexes cleanly
# (tfxc inspect prints no warnings, convert exits 0), has exactly N nodes, round-trips through
# `tfxc fmt` byte for byte, and protoc encodes the text to the same bytes as the binary.
# Usage: gen_check.sh GEN TFXC FLOOR
set -euo pipefail
gen=$1 tfxc=$2 floor=$3
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for n in 1 2 707 1000 3001; do
  "$gen" -n $n -s 7 -o "$tmp/a" && "$gen" -n $n -s 7 -o "$tmp/b"
  cmp -s "$tmp/a.pb" "$tmp/b.pb" && cmp -s "$tmp/a.pbtxt" "$tmp/b.pbtxt" || fail "n=$n: same seed, different bytes"
  got=$("$tfxc" inspect --json "$tmp/a.pb" 2>"$tmp/err" | sed -n 's/^{"nodes": \([0-9]*\),.*/\1/p')
  [ "$got" = "$n" ] || fail "n=$n: inspect counted '$got' nodes"
  [ ! -s "$tmp/err" ] || fail "n=$n: inspect warned: $(cat "$tmp/err")"
  "$tfxc" -q --emit tf-pbtxt -o "$tmp/out.pbtxt" "$tmp/a.pb" || fail "n=$n: convert failed"
  "$tfxc" fmt "$tmp/a.pb" -o "$tmp/rt.pbtxt" && cmp -s "$tmp/rt.pbtxt" "$tmp/a.pbtxt" || fail "n=$n: pb -> pbtxt differs"
  "$tfxc" fmt "$tmp/a.pbtxt" -o "$tmp/rt.pb" && cmp -s "$tmp/rt.pb" "$tmp/a.pb" || fail "n=$n: pbtxt -> pb differs"
  if command -v protoc >/dev/null; then
    protoc --encode=tensorflow.GraphDef -I "$src/src/proto" tensorflow/graph.proto <"$tmp/a.pbtxt" >"$tmp/p.pb"
    cmp -s "$tmp/p.pb" "$tmp/a.pb" || fail "n=$n: protoc --encode differs from the binary"
  fi
done
"$gen" -n 1000 -s 8 -o "$tmp/c"
! cmp -s "$tmp/a.pb" "$tmp/c.pb" || fail "seeds 7 and 8 gave the same bytes"
for m in malloc arena; do "$floor" --mode $m --runs 2 "$tmp/a.pb" | grep -q "nodes=3001 " || fail "floor --mode $m"; done
"$floor" --mode text --runs 2 "$tmp/a.pbtxt" | grep -q "nodes=3001 " || fail "floor --mode text"
echo "1 passed, 0 failed"
