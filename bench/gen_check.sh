#!/usr/bin/env bash
# ctest bench/gen_check: the benchmark generator's output is deterministic, indexes cleanly
# (tfxc inspect prints no warnings, convert exits 0), has exactly N nodes, round-trips through
# `tfxc fmt` byte for byte, and protoc encodes the text to the same bytes as the binary; the
# rule-set generator is deterministic, its rules compile without a diagnostic and change
# nothing in the converted model; tfxc_bench_passes converts to the same bytes as tfxc.
# Usage: gen_check.sh GEN TFXC FLOOR [RULES PASSES]
set -euo pipefail
gen=$1 tfxc=$2 floor=$3 rules=${4:-} passes=${5:-}
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

if [ -n "$rules" ]; then
  "$tfxc" -q -o "$tmp/plain.air" "$tmp/a.pb" || fail "convert (air) failed"
  for r in 1 10 120; do
    "$rules" -r $r -s 3 -o "$tmp/r$r" && "$rules" -r $r -s 3 -o "$tmp/q$r"
    for f in bench.scoperule bench.opmap bench.cannops.tsv; do
      cmp -s "$tmp/r$r/$f" "$tmp/q$r/$f" || fail "rules R=$r: same seed, different $f"
    done
    "$tfxc" compile -r "$tmp/r$r" -o "$tmp/r$r.tfxb" 2>"$tmp/err" || fail "rules R=$r do not compile: $(head -3 "$tmp/err")"
    [ ! -s "$tmp/err" ] || fail "rules R=$r: diagnostics: $(head -3 "$tmp/err")"
    "$tfxc" -r "$tmp/r$r" -o "$tmp/r$r.air" "$tmp/a.pb" 2>"$tmp/err" || fail "convert with rules R=$r failed"
    [ ! -s "$tmp/err" ] || fail "convert with rules R=$r: diagnostics: $(head -3 "$tmp/err")"
    cmp -s "$tmp/r$r.air" "$tmp/plain.air" || fail "rules R=$r changed the converted model"
  done
  "$rules" -r 10 -s 4 -o "$tmp/s4"
  ! cmp -s "$tmp/r10/bench.scoperule" "$tmp/s4/bench.scoperule" || fail "rule seeds 3 and 4 gave the same passes"
fi
if [ -n "$passes" ]; then
  line=$("$passes" -r "$tmp/r10" --fusion 2 -o "$tmp/p.air" "$tmp/a.pb") || fail "tfxc_bench_passes --fusion failed"
  grep -q "fusion_ms=" <<<"$line" || fail "tfxc_bench_passes --fusion: no fusion_ms"
  line=$("$passes" -o "$tmp/p.air" "$tmp/a.pb") || fail "tfxc_bench_passes failed"
  for k in wall_load= cpu_lowering= rss_emit_ge= peak_rss_kb=; do
    grep -q "$k" <<<"$line" || fail "tfxc_bench_passes: no $k"
  done
  cmp -s "$tmp/p.air" "$tmp/plain.air" || fail "tfxc_bench_passes converts differently from tfxc"
fi
echo "1 passed, 0 failed"
