#!/usr/bin/env bash
# bench/dataflow.sh: cost of the "dataflow" pass (rewrite rules) against the number of rules R
# and the graph size N. Writes a markdown table to stdout (bench/RESULTS.md keeps the last run).
#
# Rule sets: R generated rewrites (gen_rules below), loaded with -r in front of the stdlib.
# Their roots cycle over 12 op types the graph has (Mul, AddV2, BiasAdd, MatMul, Relu6, ...), so
# each candidate node of those types is a candidate of ~R/12 rules. Each rewrite has three
# matches (a commutative root half of the time, so operand orders are tried) and a `where` that
# never holds, so nothing extra is rewritten and every R converts to the same graph as the
# stdlib alone. Two kinds of `where` (column "where"):
#   dtype:  `a.attr.T == DT_HALF and ...` (the graph is DT_FLOAT): the rule signature screens
#           the node (docs/LANGUAGE.md section 7) and the program does not run;
#   opaque: `a.name starts_with "never_..."`: the screen cannot decide a string test, so every
#           node whose types and edges fit runs the program (the cost of rules the screen
#           cannot help).
# The pass time is tfxc's own `--time-passes` figure (wall clock, median of RUNS runs; the rule
# counts are run in turn inside each repetition, so load changes hit them alike); "Ir" (with
# --callgrind) is the instructions valgrind counts inside the pass, which load does not change;
# "programs run" and "screened" are the report's candidates and screened counts.
# Usage: bench/dataflow.sh [--build DIR] [--runs K] [--rules "R ..."] [--sizes "N ..."]
#                          [--rule-size N] [--wheres "dtype opaque"] [--callgrind]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build" runs=3 rules="0 10 100 1000" sizes="10000 100000 300000" rsize=100000
wheres="dtype opaque" cg=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rules) rules=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --rule-size) rsize=$2; shift 2 ;;
    --wheres) wheres=$2; shift 2 ;;
    --callgrind) cg=1; shift ;;
    *) echo "dataflow.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
tfxc="$build/tfxc" gen="$build/bench/tfxc_bench_gen"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gen_rules() { # R DIR WHERE: R rewrites, deterministic
  local r=$1 dir=$2 kind=$3 i w1 w2
  local roots=(Mul AddV2 BiasAdd MatMul Relu6 Sub Identity Rsqrt Tanh Sigmoid Conv2D Reshape)
  mkdir -p "$dir"
  {
    echo "# $r generated rewrites (bench/dataflow.sh, where: $kind); none applies to the bench graphs"
    for ((i = 0; i < r; i++)); do
      local t=${roots[$((i % ${#roots[@]}))]}
      if [ "$kind" = dtype ]; then
        w1="a.attr.T == DT_HALF and b.name != \"n$i\"" w2="a.attr.T == DT_HALF and a.name != \"n$i\""
      else
        w1="a.name starts_with \"never_$i\"" w2="a.name starts_with \"never_$i\""
      fi
      if ((i % 2 == 0)); then
        printf 'rewrite bench_%d general {\n  match a: Mul|AddV2(b, x);\n  match b: %s(y, _);\n  where %s;\n  node n: Identity(x);\n  out a = n;\n}\n' "$i" "Sub" "$w1"
      else
        printf 'rewrite bench_%d general {\n  match a: %s(b, _);\n  match b: Mul|AddV2(x, c);\n  match c: Const();\n  where %s;\n  node n: Identity(x);\n  out a = n;\n}\n' "$i" "$t" "$w2"
      fi
    done
  } > "$dir/bench.scoperule"
}

run_one() { # MODEL RULEDIR-or-empty -> "ms candidates screened applied rounds"
  local model=$1 rdir=$2 t
  local args=("$model" -o "$work/out.air" --time-passes --report "$work/rep.json")
  [ -n "$rdir" ] && args+=(-r "$rdir")
  "$tfxc" "${args[@]}" 2> "$work/err" >/dev/null || { cat "$work/err" >&2; exit 1; }
  t=$(awk '$3 == "dataflow" { print $4; exit }' "$work/err")
  printf '%s ' "${t:-0}"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])).get("dataflow") or {}; print(d.get("candidates",0), d.get("screened",0), len(d.get("applied",[])), d.get("rounds",0))' "$work/rep.json"
}

ir_of() { # MODEL RULEDIR-or-empty -> instructions inside the dataflow pass
  local args=("$1" -o "$work/out.air")
  [ -n "$2" ] && args+=(-r "$2")
  valgrind --tool=callgrind --toggle-collect=tfx_pass_dataflow --callgrind-out-file="$work/cg.out" \
    "$tfxc" "${args[@]}" > /dev/null 2> "$work/cgerr" || { cat "$work/cgerr" >&2; exit 1; }
  awk '/Collected :/ { print $NF; exit }' "$work/cgerr"
}

median() { sort -g | awk '{ a[NR] = $1 } END { printf "%s", a[int((NR + 1) / 2)] }'; }

# measure MODEL N "R..." WHERE: one table row per R; the R values alternate inside each run
measure() {
  local model=$1 n=$2 rs=$3 kind=$4 k r d
  declare -A ts=() rest=() dirs=()
  for r in $rs; do
    d=""
    if [ "$r" != 0 ]; then d="$work/rules-$kind-$r"; [ -d "$d" ] || gen_rules "$r" "$d" "$kind"; fi
    dirs[$r]=$d
  done
  for ((k = 0; k < runs; k++)); do
    for r in $rs; do
      read -r ms other < <(run_one "$model" "${dirs[$r]}")
      ts[$r]+="$ms "
      rest[$r]=$other
    done
  done
  for r in $rs; do
    local ir="-"
    [ "$cg" = 1 ] && ir=$(ir_of "$model" "${dirs[$r]}")
    read -r cand scr app rounds <<< "${rest[$r]}"
    echo "| $n | $kind | $r | $(printf '%s\n' ${ts[$r]} | median) | $ir | $cand | $scr | $app | $rounds |"
  done
}

echo "| graph nodes | where | R | dataflow pass (ms, median of $runs) | Ir (callgrind) | programs run | screened | rewrites applied | rounds |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
"$gen" -n "$rsize" -s 1 -o "$work/g" >/dev/null
rm -f "$work/g.pbtxt"
for w in $wheres; do
  measure "$work/g.pb" "$rsize" "$rules" "$w"
done
for n in $sizes; do
  [ "$n" = "$rsize" ] && continue
  "$gen" -n "$n" -s 1 -o "$work/g$n" >/dev/null
  rm -f "$work/g$n.pbtxt"
  for w in $wheres; do
    measure "$work/g$n.pb" "$n" 100 "$w"
  done
done
