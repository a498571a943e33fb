#!/usr/bin/env bash
# bench/dataflow.sh: cost of the "dataflow" pass (rewrite rules) against the number of rules R
# and the graph size N. Writes a markdown table to stdout (bench/RESULTS.md keeps the last run).
#
# Rule sets: R generated rewrites (gen_rules below), loaded with -r in front of the stdlib.
# Their roots cycle over 12 op types the graph has (Mul, AddV2, BiasAdd, MatMul, Relu6, ...), so
# each candidate node of those types runs ~R/12 programs. Each rewrite has three matches (a
# commutative root half of the time, so operand orders are tried) and a `where` that never
# holds (DT_HALF; the graph is DT_FLOAT): nothing extra is rewritten and every R converts to
# the same graph as the stdlib alone. The pass time is tfxc's own `--time-passes` figure
# (median of RUNS runs); "programs run" is the report's candidates.
# Usage: bench/dataflow.sh [--build DIR] [--runs K] [--rules "R ..."] [--sizes "N ..."] [--rule-size N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build" runs=3 rules="0 10 100 1000" sizes="10000 100000 300000" rsize=100000
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rules) rules=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --rule-size) rsize=$2; shift 2 ;;
    *) echo "dataflow.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
tfxc="$build/tfxc" gen="$build/bench/tfxc_bench_gen"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gen_rules() { # R DIR: R rewrites, deterministic
  local r=$1 dir=$2 i
  local roots=(Mul AddV2 BiasAdd MatMul Relu6 Sub Identity Rsqrt Tanh Sigmoid Conv2D Reshape)
  mkdir -p "$dir"
  {
    echo "# $r generated rewrites (bench/dataflow.sh); none applies to the bench graphs"
    for ((i = 0; i < r; i++)); do
      local t=${roots[$((i % ${#roots[@]}))]}
      if ((i % 2 == 0)); then
        printf 'rewrite bench_%d general {\n  match a: Mul|AddV2(b, x);\n  match b: %s(y, _);\n  where a.attr.T == DT_HALF and b.name != "n%d";\n  node n: Identity(x);\n  out a = n;\n}\n' "$i" "Sub" "$i"
      else
        printf 'rewrite bench_%d general {\n  match a: %s(b, _);\n  match b: Mul|AddV2(x, c);\n  match c: Const();\n  where a.attr.T == DT_HALF and a.name != "n%d";\n  node n: Identity(x);\n  out a = n;\n}\n' "$i" "$t" "$i"
      fi
    done
  } > "$dir/bench.scoperule"
}

# time of pass "dataflow" in ms and the candidates count: RUNS runs, median
measure() { # MODEL RULEDIR-or-empty
  local model=$1 rdir=$2 k t ts=() cand=0
  for ((k = 0; k < runs; k++)); do
    local args=("$model" -o "$work/out.air" --time-passes --report "$work/rep.json")
    [ -n "$rdir" ] && args+=(-r "$rdir")
    "$tfxc" "${args[@]}" 2> "$work/err" >/dev/null || { cat "$work/err" >&2; exit 1; }
    t=$(awk '$3 == "dataflow" { print $4; exit }' "$work/err")
    ts+=("${t:-0}")
    cand=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])).get("dataflow") or {}; print(d.get("candidates",0), len(d.get("applied",[])), d.get("rounds",0))' "$work/rep.json")
  done
  printf '%s\n' "${ts[@]}" | sort -g | awk '{ a[NR] = $1 } END { printf "%s", a[int((NR + 1) / 2)] }'
  printf ' %s\n' "$cand"
}

echo "| graph nodes | R | dataflow pass (ms, median of $runs) | programs run | rewrites applied | rounds |"
echo "|---:|---:|---:|---:|---:|---:|"
"$gen" -n "$rsize" -s 1 -o "$work/g" >/dev/null
rm -f "$work/g.pbtxt"
for r in $rules; do
  d=""
  if [ "$r" != 0 ]; then d="$work/rules-$r"; gen_rules "$r" "$d"; fi
  read -r ms cand app rounds < <(measure "$work/g.pb" "$d")
  echo "| $rsize | $r | $ms | $cand | $app | $rounds |"
done
for n in $sizes; do
  [ "$n" = "$rsize" ] && continue
  "$gen" -n "$n" -s 1 -o "$work/g$n" >/dev/null
  rm -f "$work/g$n.pbtxt"
  d="$work/rules-100"; [ -d "$d" ] || gen_rules 100 "$d"
  read -r ms cand app rounds < <(measure "$work/g$n.pb" "$d")
  echo "| $n | 100 | $ms | $cand | $app | $rounds |"
done
