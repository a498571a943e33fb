#!/usr/bin/env bash
# CLI test: the streamed .air's spill file (src/ge/air_sink.c). A conversion to an .air alone
# streams it, and when -o is a file the op records go to a file with no name in the output's
# directory while lowering runs, then are copied into the .air's temp file by emit-ge. Checks:
# the bytes equal the whole-model path's (--emit air,ge-pbtxt) and those written to standard
# output and through a FIFO (no spill file for those), for a plain model and models with
# subgraphs (records kept in memory for their holes); a run that fails after the spill
# (--limit output-size) leaves nothing in the directory and an earlier output untouched; an
# output in the working directory (no '/') works; with strace, the records are really copied
# from the spill file (O_TMPFILE + copy_file_range), and the named fallback
# (TFXC_SPILL_NAMED=1) is unlinked before its first write and leaves nothing.
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
  ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat,open,copy_file_range,rename -o "$T/trace" \
    "$TFXC" "$TFXC_SRC/examples/dense_layernorm/model.pbtxt" -o "$T/s/x.air" >/dev/null 2>&1 ||
    bad "strace run failed"
  grep -qE 'O_TMPFILE|tfxc-spill' "$T/trace" || bad "no spill file opened"
  grep -q 'copy_file_range(' "$T/trace" || bad "no copy_file_range from the spill file"
  cmp -s "$T/s/x.air" "$T/m1/whole.air" || bad "strace run: .air differs"
  # the named fallback (no O_TMPFILE): created and unlinked at once, before any write to it
  TFXC_SPILL_NAMED=1 ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat,open,unlink,write \
    -o "$T/trace2" "$TFXC" "$TFXC_SRC/examples/dense_layernorm/model.pbtxt" -o "$T/s/y.air" \
    >/dev/null 2>&1 || bad "named spill run failed"
  grep -q 'O_TMPFILE' "$T/trace2" && bad "TFXC_SPILL_NAMED=1 still opened O_TMPFILE"
  awk '/tfxc-spill/ && /open/ {o = 1; next} o && /unlink\(.*tfxc-spill/ {u = 1; exit}
       o && /write\(/ {exit} END {exit !(o && u)}' "$T/trace2" ||
    bad "the named spill file was not unlinked before its first write"
  cmp -s "$T/s/y.air" "$T/m1/whole.air" || bad "named spill run: .air differs"
  only "$T/s" x.air y.air
else
  echo "note: strace unavailable: the spill file's system calls are not checked"
fi

[ $fail -eq 0 ] && echo "air_spill: ok ($n models)"
exit $fail
