#!/usr/bin/env bash
# Stale rule packs (issue 12 item 7): a .tfxb carries the build-time fingerprint of the VM's
# opcode, builtin and property tables (cmake/vm_fingerprint.cmake over src/vm/opcodes.h). A
# pack written against a shifted table -- here a builtin inserted before `consumers`, as the
# commit that added `all_scopes` mid-list once did -- is refused with "compiled by a different
# tfxc ...: recompile it" (exit 3), by convert and by disasm; the same pack with this build's
# fingerprint loads. Env: TFXC, TFXC_SRC; cmake on PATH (or TFXC_CMAKE), else skipped (77).
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
SRC="${TFXC_SRC:?set TFXC_SRC to the repo root}"
CMAKE=${TFXC_CMAKE:-cmake}
command -v "$CMAKE" >/dev/null 2>&1 || { echo "skip: no cmake"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0

fp_of() { "$CMAKE" -DIN="$1" -P "$SRC/cmake/vm_fingerprint.cmake"; }
# The header word at offset 28, as 8 hex digits (little-endian u32).
pack_fp() { od -An -tx1 -j28 -N4 "$1" | awk '{print $4 $3 $2 $1}'; }
patch_fp() { # FILE HEX8: writes the fingerprint little-endian at offset 28
  local h=$2
  printf "\\x${h:6:2}\\x${h:4:2}\\x${h:2:2}\\x${h:0:2}" |
    dd of="$1" bs=1 seek=28 conv=notrunc status=none
}

cat >"$T/r.opmap" <<'R'
op Relu -> Relu { auto; }
R
cat >"$T/m.pbtxt" <<'M'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
M
"$TFXC" compile --no-stdlib -r "$T/r.opmap" -o "$T/p.tfxb" || { echo "FAIL: compile"; exit 1; }

fp=$(fp_of "$SRC/src/vm/opcodes.h")
got=$(pack_fp "$T/p.tfxb")
[ -n "$fp" ] && [ "$got" = "$fp" ] || { echo "FAIL: pack fingerprint $got, build tables give $fp"; fail=1; }

# The table of a tfxc with one more builtin before `consumers`: every later builtin id shifts.
sed 's/^  B(consumers,/  B(all_scopes_v0, 0, 0, ANY, "an inserted builtin") \\\n  B(consumers,/' \
  "$SRC/src/vm/opcodes.h" >"$T/opcodes.h"
cmp -s "$SRC/src/vm/opcodes.h" "$T/opcodes.h" && { echo "FAIL: the table was not shifted"; exit 1; }
shifted=$(fp_of "$T/opcodes.h")
[ -n "$shifted" ] && [ "$shifted" != "$fp" ] || { echo "FAIL: a shifted table keeps fingerprint $fp"; fail=1; }
# A doc-string edit is not a table change.
sed 's/"producers of a node/"the producers of a node/' "$SRC/src/vm/opcodes.h" >"$T/doc.h"
[ "$(fp_of "$T/doc.h")" = "$fp" ] || { echo "FAIL: a doc-string change changed the fingerprint"; fail=1; }

cp "$T/p.tfxb" "$T/old.tfxb"
patch_fp "$T/old.tfxb" "$shifted"
[ "$(pack_fp "$T/old.tfxb")" = "$shifted" ] || { echo "FAIL: patching"; exit 1; }
for cmd in convert disasm; do
  if [ $cmd = convert ]; then
    "$TFXC" "$T/m.pbtxt" -r "$T/old.tfxb" --passthrough-unknown -o "$T/out.air" >"$T/out" 2>"$T/err"
  else
    "$TFXC" disasm "$T/old.tfxb" >"$T/out" 2>"$T/err"
  fi
  rc=$?
  if [ $rc -ne 3 ] || ! grep -q "old.tfxb: error: compiled by a different tfxc (VM tables fingerprint $shifted, this tfxc has $fp: opcode, builtin or property ids differ): recompile it with 'tfxc compile'" "$T/err"; then
    echo "FAIL: $cmd of a pack with a shifted table: exit $rc"; cat "$T/err"; fail=1
  else
    echo "ok: $cmd refuses a pack built against a shifted table"
  fi
done
[ -e "$T/out.air" ] && { echo "FAIL: output written for a stale pack"; fail=1; }
# The same bytes with this build's fingerprint convert.
patch_fp "$T/old.tfxb" "$fp"
cmp -s "$T/old.tfxb" "$T/p.tfxb" || { echo "FAIL: restore"; fail=1; }
"$TFXC" "$T/m.pbtxt" -r "$T/old.tfxb" --passthrough-unknown -o "$T/out.air" 2>"$T/err" || { echo "FAIL: current pack"; cat "$T/err"; fail=1; }
# An older format version is refused the same way.
cp "$T/p.tfxb" "$T/v1.tfxb"
printf '\x01' | dd of="$T/v1.tfxb" bs=1 seek=4 conv=notrunc status=none
"$TFXC" disasm "$T/v1.tfxb" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 3 ] && grep -q "compiled by a different tfxc (pack format version 1, this tfxc reads 3): recompile" "$T/err" ||
  { echo "FAIL: version 1 pack: exit $rc"; cat "$T/err"; fail=1; }
exit $fail
