# Shared helpers for the corpus tests (sourced). Env: TFXC (binary), TFXC_CORPUS, TFXC_PROTO_DIR.
set -u
if [ -z "${TFXC_CORPUS:-}" ] || [ ! -f "$TFXC_CORPUS/MANIFEST.tsv" ]; then
  echo "SKIP: corpus not found (TFXC_CORPUS='${TFXC_CORPUS:-}'); the corpus lives in ../shared/corpus"
  exit 77
fi
: "${TFXC:?TFXC must point at the tfxc binary}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
# A run that crashed or tripped a sanitizer: signal exit (>=128) or sanitizer text on stderr.
crashed() { # rc stderr-file
  [ "$1" -ge 128 ] && return 0
  grep -qE 'AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|runtime error:' "$2" && return 0
  return 1
}
