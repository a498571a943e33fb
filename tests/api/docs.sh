#!/usr/bin/env bash
# docs/API.md: every function tfxc.h declares has a "### name" section and is called by one
# of the "/* example N */" programs, which are compiled against the INSTALLED library
# (api/install fixture) with -Wall -Werror and run (each checks its own results).
# Env: TFXC_PREFIX, TFXC_LIBDIR, CC, TFXC_SRC, TFXC_SANITIZE.
set -u
: "${TFXC_PREFIX:?}" "${CC:?}" "${TFXC_SRC:?}"
DOC=$TFXC_SRC/docs/API.md
HDR=$TFXC_PREFIX/include/tfxc/tfxc.h
LIB=$TFXC_PREFIX/${TFXC_LIBDIR:-lib}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
# the examples: fenced ```c blocks
awk -v dir="$W" '
  /^```c$/ { inblk = 1; n++; f = sprintf("%s/ex%d.c", dir, n); next }
  /^```$/ && inblk { inblk = 0; close(f); next }
  inblk { print > f }' "$DOC"
nex=$(ls "$W"/ex*.c 2>/dev/null | wc -l)
[ "$nex" -ge 4 ] || { echo "FAIL: $nex examples found in docs/API.md (want 4 or more)"; exit 1; }
# every declared function: a section and a call in an example
funcs=$(grep -oE 'TFXC_API [^;(]*\b(tfxc_[a-z_]+)\(' "$HDR" | grep -oE 'tfxc_[a-z_]+\($' | tr -d '(' | sort -u)
nf=0
for f in $funcs; do
  nf=$((nf + 1))
  grep -q "^### $f\$" "$DOC" || { echo "FAIL: $f has no section in docs/API.md"; fail=1; }
  grep -qE "\\b$f\\(" "$W"/ex*.c || { echo "FAIL: $f is used by no example in docs/API.md"; fail=1; }
done
[ "$nf" -ge 19 ] || { echo "FAIL: only $nf functions found in $HDR"; fail=1; }
# and no section for a function that does not exist
for f in $(sed -n 's/^### \(tfxc_[a-z_]*\)$/\1/p' "$DOC"); do
  echo "$funcs" | grep -qx "$f" || { echo "FAIL: docs/API.md documents $f, which tfxc.h does not declare"; fail=1; }
done
SAN=()
[ "${TFXC_SANITIZE:-0}" = 1 ] && SAN=(-fsanitize=address,undefined)
export ASAN_OPTIONS=detect_leaks=1
for c in "$W"/ex*.c; do
  b=${c%.c}
  if ! "$CC" "${SAN[@]}" -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I"$TFXC_PREFIX/include" \
      "$c" -o "$b" -L"$LIB" -ltfxc -Wl,-rpath,"$LIB" 2>"$b.err"; then
    echo "FAIL: $(head -1 "$c") does not compile:"; cat "$b.err"; fail=1; continue
  fi
  if ! (cd "$W" && "$b" "$TFXC_SRC/examples/dense_layernorm/model.pbtxt" "$TFXC_SRC/stdlib" >"$b.out" 2>&1); then
    echo "FAIL: $(head -1 "$c") failed:"; cat "$b.out"; fail=1; continue
  fi
  echo "ok: $(head -1 "$c")"
done
echo "$nf functions, $nex examples"
exit $fail
