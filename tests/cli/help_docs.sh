#!/usr/bin/env bash
# CLI test: every --option printed by any --help is documented in docs/CLI.md, and every
# command in the main help has a section there. Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
doc="${TFXC_SRC:?set TFXC_SRC to the repo root}/docs/CLI.md"
[ -f "$doc" ] || { echo "FAIL: $doc missing"; exit 1; }
fail=0
opts=$( { "$TFXC" --help; for c in inspect fmt compile disasm list-rules test explain; do "$TFXC" help $c; done; } |
        grep -o -- '--[a-z][a-z-]*' | sort -u)
[ -n "$opts" ] || { echo "FAIL: no options found in --help"; exit 1; }
for o in $opts; do
  grep -Eq -- "$o([^a-z-]|\$)" "$doc" || { echo "FAIL: $o is in --help but not documented in docs/CLI.md"; fail=1; }
done
for c in inspect fmt help compile disasm test explain list-rules; do
  grep -q "tfxc $c" "$doc" || { echo "FAIL: command '$c' missing from docs/CLI.md"; fail=1; }
done
for code in 0 1 2 3 4; do
  grep -q "^| $code " "$doc" || { echo "FAIL: exit code $code not in the table of docs/CLI.md"; fail=1; }
done
exit $fail
