#!/usr/bin/env bash
# CLI test: the streamed .air's spill file (src/ge/air_sink.c). A conversion to an .air alone
# streams it, and when -o is a file the op records go to a file with no name in the output's
# directory while lowering runs, then become the .air (or are copied into its temp file). Checks:
# the bytes equal the whole-model path's (--emit air,ge-pbtxt) and those written to standard
# output and through a FIFO (no spill file for those), for a plain model and models with
# subgraphs (records kept in memory for their holes); a run that fails after the spill
# (--limit output-size) leaves nothing in the directory and an earlier output untouched; an
# output in the working directory (no '/') works; with strace, the spill file (O_TMPFILE)
# becomes the .air itself when lowering planned its fields' size right (linkat, no copy), and
# the records are copied from it (copy_file_range) when the writer may not take it
# (TFXC_SPILL_COPY=1), there is no plan (TFXC_AIR_PLAN_LEN=0) or a wrong one; the named
# fallback (TFXC_SPILL_NAMED=1) is unlinked before its first write and leaves nothing. The
# spill file written inline (TFXC_LOWER_JOBS=1) and by its writer thread (=2) gives the same
# bytes; with strace, its records' writes come from another thread than the one that opened
# it with =2 (only the fields in front, written after the join, from the opener), from the
# opener alone with =1; the same with --jobs 2 and --jobs 1.
# Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
: "${TFXC_SRC:?set TFXC_SRC to the repo root}"
case "$TFXC" in /*) ;; *) TFXC=$PWD/$TFXC ;; esac
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
only() { # only DIR NAME...: DIR holds exactly these names
  local dir=$1 got want
  shift
  got=$(ls -A "$dir" | sort | tr '\n' ' ')
  want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  [ "$got" = "$want" ] || bad "$dir holds [$got], want [$want]"
}

n=0
for m in "$TFXC_SRC/examples/dense_layernorm/model.pbtxt" \
         "$TFXC_SRC/tests/golden/cases/ge-subgraph-if/model.pbtxt" \
         "$TFXC_SRC/tests/golden/cases/ge-subgraph-while/model.pbtxt"; do
  n=$((n + 1))
  D=$T/m$n
  mkdir -p "$D/out"
  "$TFXC" "$m" -o "$D/out/stream.air" >/dev/null 2>"$D/err" ||
    { cat "$D/err"; bad "$m: stream"; continue; }
  "$TFXC" "$m" --emit air,ge-pbtxt -o "$D/whole" >/dev/null 2>&1 || bad "$m: whole"
  cmp -s "$D/out/stream.air" "$D/whole.air" || bad "$m: streamed .air differs from the whole's"
  for j in 1 2; do # the spill file written inline / by its writer thread
    TFXC_LOWER_JOBS=$j "$TFXC" "$m" -o "$D/out/j$j.air" >/dev/null 2>&1 || bad "$m: jobs $j"
    cmp -s "$D/out/j$j.air" "$D/whole.air" || bad "$m: jobs $j: .air differs from the whole's"
    rm -f "$D/out/j$j.air"
  done
  "$TFXC" "$m" -o - >"$D/std.air" 2>/dev/null || bad "$m: -o -"
  cmp -s "$D/std.air" "$D/whole.air" || bad "$m: -o - differs"
  mkfifo "$D/pipe.air" && { cat "$D/pipe.air" >"$D/fifo.air" & }
  "$TFXC" "$m" -o "$D/pipe.air" >/dev/null 2>&1 || bad "$m: -o FIFO"
  wait
  cmp -s "$D/fifo.air" "$D/whole.air" || bad "$m: -o FIFO differs"
  only "$D/out" stream.air
  # fails after the whole .air went to the spill file: nothing new, the old file kept
  echo old >"$D/out/stream.air"
  if "$TFXC" "$m" -o "$D/out/stream.air" --limit output-size=64 >/dev/null 2>"$D/err"; then
    bad "$m: over --limit output-size succeeded"
  else
    rc=$?
    [ $rc -eq 1 ] || bad "$m: over the output size: exit $rc, want 1"
    grep -q "larger than the limit" "$D/err" || bad "$m: no output-size error: $(cat "$D/err")"
  fi
  [ "$(cat "$D/out/stream.air")" = old ] || bad "$m: a failed run changed the old output"
  only "$D/out" stream.air
  # in the working directory (a path with no '/')
  (cd "$D/out" && "$TFXC" "$m" -o here.air >/dev/null 2>&1) || bad "$m: -o here.air"
  cmp -s "$D/out/here.air" "$D/whole.air" || bad "$m: -o here.air differs"
done

if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
  # (LeakSanitizer cannot run under ptrace: a sanitizer build runs without it here)
  mkdir -p "$T/s"
  ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat,open,copy_file_range,rename,linkat \
    -o "$T/trace" "$TFXC" "$TFXC_SRC/examples/dense_layernorm/model.pbtxt" -o "$T/s/x.air" \
    >/dev/null 2>&1 || bad "strace run failed"
  grep -qE 'O_TMPFILE|tfxc-spill' "$T/trace" || bad "no spill file opened"
  # planned right (one graph): the spill file itself becomes the .air, nothing is copied
  grep -q 'linkat(.*/proc/self/fd/' "$T/trace" || bad "the spill file was not linked as the .air"
  grep -q 'copy_file_range(' "$T/trace" && bad "copy_file_range with the .air written in place"
  cmp -s "$T/s/x.air" "$T/m1/whole.air" || bad "strace run: .air differs"
  # the copy, when the writer may not take the file (TFXC_SPILL_COPY=1), there is no plan
  # (TFXC_AIR_PLAN_LEN=0), or the plan is wrong (a 5-byte length for a small graph: the gap
  # in front of the records is skipped): copy_file_range, no link, the same bytes
  for how in TFXC_SPILL_COPY=1 TFXC_AIR_PLAN_LEN=0 TFXC_AIR_PLAN_LEN=5; do
    env "$how" ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=copy_file_range,linkat \
      -o "$T/trace3" "$TFXC" "$TFXC_SRC/examples/dense_layernorm/model.pbtxt" -o "$T/s/c.air" \
      >/dev/null 2>&1 || bad "$how: run failed"
    grep -q 'copy_file_range(' "$T/trace3" || bad "$how: no copy_file_range from the spill file"
    grep -q 'linkat(' "$T/trace3" && bad "$how: the spill file was linked"
    cmp -s "$T/s/c.air" "$T/m1/whole.air" || bad "$how: .air differs"
  done
  rm -f "$T/s/c.air"
  # the named fallback (no O_TMPFILE): created and unlinked at once, before any write to it
  # (a named file unlinked cannot be linked again: the .air is copied from it)
  TFXC_SPILL_NAMED=1 ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat,open,unlink,write \
    -o "$T/trace2" "$TFXC" "$TFXC_SRC/examples/dense_layernorm/model.pbtxt" -o "$T/s/y.air" \
    >/dev/null 2>&1 || bad "named spill run failed"
  grep -q 'O_TMPFILE' "$T/trace2" && bad "TFXC_SPILL_NAMED=1 still opened O_TMPFILE"
  awk '/tfxc-spill/ && /open/ {o = 1; next} o && /unlink\(.*tfxc-spill/ {u = 1; exit}
       o && /write\(/ {exit} END {exit !(o && u)}' "$T/trace2" ||
    bad "the named spill file was not unlinked before its first write"
  cmp -s "$T/s/y.air" "$T/m1/whole.air" || bad "named spill run: .air differs"
  # who writes the spill file: the writes to its descriptor (until it is closed), by the
  # thread that opened it ("own") and by others ("other")
  # (chosen by TFXC_LOWER_JOBS, and by the command's --jobs, which reaches lowering)
  for jj in 1 2 opt1 opt2; do
    j=${jj#opt}
    if [ "$jj" = "$j" ]; then set -- env TFXC_LOWER_JOBS=$j; else set -- env -u TFXC_LOWER_JOBS; fi
    if [ "$jj" = "$j" ]; then jo=; else jo="--jobs $j"; fi
    "$@" ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat,open,write,close \
      -o "$T/trace_j$j" "$TFXC" $jo "$TFXC_SRC/examples/dense_layernorm/model.pbtxt" \
      -o "$T/s/j$j.air" >/dev/null 2>&1 || bad "jobs $jj strace run failed"
    cmp -s "$T/s/j$j.air" "$T/m1/whole.air" || bad "jobs $j strace run: .air differs"
    rm -f "$T/s/j$j.air"
    who=$(awk '!fd && /O_TMPFILE/ && / = [0-9]+$/ {pid = $1; fd = $NF; next}
               fd && $2 ~ "^close\\(" fd "[,)]" {exit}
               fd && $2 ~ "^write\\(" fd "," {if ($1 == pid) own++; else other++}
               END {printf "%d %d", own, other}' "$T/trace_j$j")
    set -- $who
    if [ "$j" = 1 ]; then
      [ "$1" -ge 1 ] && [ "$2" -eq 0 ] || bad "jobs $jj: spill writes by the opener $1, others $2"
    else # the records by the writer thread; the fields in front (head) by the opener
      [ "$2" -ge 1 ] && [ "$1" -le 1 ] || bad "jobs $jj: spill writes by the opener $1, others $2"
    fi
  done
  only "$T/s" x.air y.air
else
  echo "note: strace unavailable: the spill file's system calls are not checked"
fi

[ $fail -eq 0 ] && echo "air_spill: ok ($n models)"
exit $fail
