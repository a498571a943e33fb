#!/usr/bin/env bash
# CLI test: --help / --version / per-command help go to stdout and exit 0. Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
ok() { # ok PATTERN ARGS...: exit 0, stdout has PATTERN, stderr empty
  local pat=$1; shift
  "$TFXC" "$@" >"$T/out" 2>"$T/err"
  local rc=$?
  if [ $rc -ne 0 ]; then echo "FAIL: tfxc $* -> exit $rc"; cat "$T/err"; fail=1; return; fi
  if ! grep -q -- "$pat" "$T/out"; then echo "FAIL: tfxc $*: stdout lacks '$pat'"; fail=1; fi
  if [ -s "$T/err" ]; then echo "FAIL: tfxc $*: unexpected stderr"; cat "$T/err"; fail=1; fi
}
ok "^tfxc [0-9][0-9]*\.[0-9][0-9]*\.[0-9]" --version
ok "Usage: tfxc \[OPTIONS\] MODEL" --help
ok "Usage: tfxc \[OPTIONS\] MODEL" -h
ok "Usage: tfxc \[OPTIONS\] MODEL" help
ok "Usage: tfxc \[OPTIONS\] MODEL" --emit tf-pbtxt --help
ok "Usage: tfxc inspect" help inspect
ok "Usage: tfxc inspect" inspect --help
ok "Usage: tfxc inspect" inspect -h
ok "Usage: tfxc fmt" help fmt
ok "Usage: tfxc fmt" fmt --help
ok "Usage: tfxc compile" help compile
ok "Usage: tfxc compile" compile --help
ok "Usage: tfxc disasm" disasm --help
ok "Usage: tfxc list-rules" help list-rules
ok "Usage: tfxc test" test -h
ok "Usage: tfxc explain" help explain
ok "Exit codes" --help
ok "--input-format" --help
ok "layout of 4-D/5-D Data" --help   # what --input-format does
ok "--passthrough-unknown" --help
ver=$("$TFXC" --version)
src_ver=$(sed -n 's/^#define TFXC_VERSION "\(.*\)"/\1/p' "${TFXC_SRC:-/nonexistent}/include/tfxc/tfxc.h" 2>/dev/null)
if [ -n "$src_ver" ] && [ "$ver" != "tfxc $src_ver" ]; then
  echo "FAIL: --version says '$ver', tfxc.h says $src_ver"; fail=1
fi
exit $fail
