#!/usr/bin/env bash
# The Python module from the installed tree (api/install fixture), run by the system python3.
# Env: TFXC_PREFIX, TFXC_PYTHON_DIR, TFXC_SRC, TFXC_PROTO_DIR, TFXC_SANITIZE.
set -u
: "${TFXC_PREFIX:?}" "${TFXC_PYTHON_DIR:?}" "${TFXC_SRC:?}"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || true)
[ -n "$PY" ] || { echo "SKIP: no python3"; exit 77; }
if [ "${TFXC_SANITIZE:-0}" = 1 ]; then
  # an ASan-built libtfxc.so loaded into python needs the ASan runtime first
  asan=$(${CC:-cc} -print-file-name=libasan.so)
  [ -f "$asan" ] || { echo "SKIP: sanitizer build and no libasan.so to preload"; exit 77; }
  export LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0
fi
export PYTHONPATH=$TFXC_PREFIX/$TFXC_PYTHON_DIR
export TFXC_BIN=$TFXC_PREFIX/bin/tfxc
unset TFXC_LIBRARY
exec "$PY" "$(dirname "$0")/test_python.py"
