#!/usr/bin/env bash
# air_check.py self-test (tests/tools/air_check_selftest.py): the good model
# tests/cli/ge_emit/model.pbtxt and some valid variants, written as .air by tfxc's emitter, pass
# every check; ~45 deliberately broken models (missing layout, list without val_type, edge to a
# missing node, Const size mismatch, missing NetOutput, text format, truncation, > 2 GiB ...) each
# fail the intended check; every check air_check.py lists is shown to fail at least once.
# Env: TFXC_GE_EMIT_TOOL, TFXC_SRC. Needs python3: exit 77 without it.
set -u
: "${TFXC_GE_EMIT_TOOL:?set TFXC_GE_EMIT_TOOL to the ge_emit_tool binary}"
: "${TFXC_SRC:?set TFXC_SRC to the source tree}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
python3 "$TFXC_SRC/tests/tools/air_check_selftest.py" "$TFXC_GE_EMIT_TOOL" \
  "$TFXC_SRC/tests/cli/ge_emit/model.pbtxt" "$TFXC_SRC/tests/tools/air_check.py" "$T"
