#!/usr/bin/env bash
# Every model-bearing corpus file (MANIFEST.tsv) converted to .air: either converted (exit 0,
# protoc decodes the .air, tests/tools/air_check.py accepts it) or precheck-failed (exit 1 and
# `tfxc --check` agrees, every failed op with a cause code and message), or, for graphs that
# do not validate, exit 3 with a message; never a crash or sanitizer report. models/ files run
# a second time with every stdlib scope pass enabled. One line per run documents the state.
# See ge_convert.py. Env: TFXC, TFXC_CORPUS, TFXC_SRC, TFXC_PROTO_DIR; exit 77 = skipped.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
exec python3 "$(dirname "$0")/ge_convert.py" "$@"
