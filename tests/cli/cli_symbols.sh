#!/usr/bin/env bash
# Issue 15 item 1 at link level: the command line (the objects of src/cli, libtfxc_cli.a) uses
# the library (libtfxc.a, which the tfxc executable links, and nothing else of the project)
# only through its public functions: every symbol the CLI's objects leave undefined that
# libtfxc.a defines must be a tfxc_* name declared in include/tfxc/tfxc.h. (System and
# sanitizer symbols are not the library's and are not looked at.) tests/cli/cli_includes.sh
# checks the same at the source level.
# Env: TFXC_CLI_LIB, TFXC_STATIC_LIB, TFXC_SRC.
set -u
: "${TFXC_CLI_LIB:?}" "${TFXC_STATIC_LIB:?}" "${TFXC_SRC:?}"
command -v nm >/dev/null || { echo "skip: no nm"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
nm -u "$TFXC_CLI_LIB" | awk 'NF == 2 && $1 == "U" { print $2 }' | sort -u >"$T/used"
nm --defined-only "$TFXC_STATIC_LIB" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ { print $3 }' | sort -u >"$T/lib"
# the public names: functions the header declares
grep -oE '\btfxc_[a-z_]+\(' "$TFXC_SRC/include/tfxc/tfxc.h" | tr -d '(' | sort -u >"$T/public"
comm -12 "$T/used" "$T/lib" >"$T/from_lib"
n_used=$(wc -l <"$T/from_lib")
[ "$n_used" -ge 20 ] || { echo "FAIL: only $n_used library symbols used by the CLI (nm broken?)"; cat "$T/from_lib"; exit 1; }
bad=$(comm -23 "$T/from_lib" "$T/public")
if [ -n "$bad" ]; then
  echo "FAIL: the CLI's objects use library symbols outside the public API (include/tfxc/tfxc.h):"
  for s in $bad; do
    echo "  $s, used by: $(nm -A -u "$TFXC_CLI_LIB" | awk -v s="$s" '$NF == s { sub(/:$/, "", $1); n = split($1, p, ":"); printf "%s ", p[n] }')"
  done
  exit 1
fi
echo "ok: the CLI uses $n_used library functions, all public (tfxc_*)"
