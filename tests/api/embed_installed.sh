#!/usr/bin/env bash
# examples/embed built against the INSTALLED library (cmake --install into TFXC_PREFIX by the
# api/install fixture): with find_package(tfxc) (shared and static) and with pkg-config; each
# binary converts the example and must give the bytes the installed tfxc command gives.
# Env: TFXC_PREFIX, TFXC_LIBDIR, CMAKE, CC, TFXC_SRC, TFXC_SANITIZE.
set -u
: "${TFXC_PREFIX:?}" "${CMAKE:?}" "${CC:?}" "${TFXC_SRC:?}"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
LIB=$TFXC_PREFIX/${TFXC_LIBDIR:-lib}
for f in include/tfxc/tfxc.h bin/tfxc; do
  [ -e "$TFXC_PREFIX/$f" ] || { echo "FAIL: $f not installed"; fail=1; }
done
for f in libtfxc.so libtfxc.a pkgconfig/tfxc.pc cmake/tfxc/tfxcConfig.cmake; do
  [ -e "$LIB/$f" ] || { echo "FAIL: $LIB/$f not installed"; fail=1; }
done
# the soname carries the ABI version
soname=$(objdump -p "$LIB/libtfxc.so" 2>/dev/null | awk '/SONAME/ {print $2}')
[ "$soname" = libtfxc.so.0 ] || { echo "FAIL: soname '$soname' (want libtfxc.so.0)"; fail=1; }
# only the public API is exported
bad=$(nm -D --defined-only "$LIB/libtfxc.so" | awk '$2 ~ /[TDB]/ {print $3}' | grep -v '^tfxc_' | grep -v '^_' | head -3)
[ -z "$bad" ] || { echo "FAIL: libtfxc.so exports internal symbols: $bad"; fail=1; }

SAN_FLAGS=()
if [ "${TFXC_SANITIZE:-0}" = 1 ]; then
  SAN_FLAGS=(-fsanitize=address,undefined)
  export ASAN_OPTIONS=detect_leaks=1
fi
EX=$TFXC_SRC/examples/dense_layernorm/model.pbtxt
(cd "$W" && "$TFXC_PREFIX/bin/tfxc" "$EX" -o ref.air) || { echo "FAIL: installed tfxc"; exit 1; }

check_bin() { # label binary
  rm -f "$W/out.air"
  "$2" "$EX" air "$W/out.air" 2>"$W/err" || { echo "FAIL: $1: exit $?"; cat "$W/err"; fail=1; return; }
  cmp -s "$W/ref.air" "$W/out.air" || { echo "FAIL: $1: .air differs from the tfxc command's"; fail=1; return; }
  echo "ok: $1"
}
for static in OFF ON; do
  b=$W/cmake-$static
  "$CMAKE" -S "$TFXC_SRC/examples/embed" -B "$b" -DCMAKE_PREFIX_PATH="$TFXC_PREFIX" \
    -DTFXC_EMBED_STATIC=$static -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_C_FLAGS="${SAN_FLAGS[*]}" -DCMAKE_EXE_LINKER_FLAGS="${SAN_FLAGS[*]}" >"$W/log" 2>&1 &&
    "$CMAKE" --build "$b" >>"$W/log" 2>&1 || { echo "FAIL: cmake build (static=$static)"; tail -20 "$W/log"; fail=1; continue; }
  check_bin "find_package(tfxc), static=$static" "$b/embed"
done
# the shared one really uses the installed libtfxc.so
if ldd "$W/cmake-OFF/embed" 2>/dev/null | grep -q "libtfxc.so.0 => $LIB/"; then :; else
  echo "FAIL: embed (shared) does not load $LIB/libtfxc.so.0"; ldd "$W/cmake-OFF/embed"; fail=1
fi
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH=$LIB/pkgconfig
  [ "$(pkg-config --modversion tfxc)" = "$(sed -n 's/^#define TFXC_VERSION "\(.*\)"/\1/p' "$TFXC_PREFIX/include/tfxc/tfxc.h")" ] ||
    { echo "FAIL: pkg-config --modversion tfxc"; fail=1; }
  # shellcheck disable=SC2046
  "$CC" "${SAN_FLAGS[@]}" -std=c11 -Wall -Werror "$TFXC_SRC/examples/embed/embed.c" -o "$W/pc-embed" \
    $(pkg-config --cflags --libs tfxc) -Wl,-rpath,"$LIB" || { echo "FAIL: pkg-config build"; fail=1; }
  [ -x "$W/pc-embed" ] && check_bin "pkg-config (shared)" "$W/pc-embed"
  # shellcheck disable=SC2046
  "$CC" "${SAN_FLAGS[@]}" -std=c11 "$TFXC_SRC/examples/embed/embed.c" -o "$W/pc-static" \
    $(pkg-config --cflags tfxc) "$LIB/libtfxc.a" $(pkg-config --static --libs-only-l tfxc | sed 's/-ltfxc//') ||
    { echo "FAIL: pkg-config --static build"; fail=1; }
  [ -x "$W/pc-static" ] && check_bin "pkg-config (static)" "$W/pc-static"
else
  echo "note: pkg-config not found; the .pc file was not tried"
fi
exit $fail
