#!/usr/bin/env bash
# Issue 15 item 1, "the CLI builds against tfxc.h only": the sources of src/cli may include
# the public header (tfxc/tfxc.h), the CLI's own headers (cli/*.h) and system headers; any
# other project header fails the test. (The exceptions list below, per file, was how the port
# went step by step; it is empty now and must stay so.) tests/cli/cli_symbols.sh checks the
# same at link level: the CLI's objects use no library symbol outside tfxc_*.
# Env: TFXC_SRC (the source tree).
set -u
: "${TFXC_SRC:?set TFXC_SRC to the source tree}"
cd "$TFXC_SRC/src/cli" || exit 1

# FILE: HEADERS — none left: every file of src/cli includes only the public header, its own
# headers and system headers (issue 15 item 1 is done). Keep this list empty.
exceptions=''
fail=0 n_files=0 n_exc=0
for f in *.c *.h; do
  n_files=$((n_files + 1))
  allowed=$(printf '%s\n' "$exceptions" | sed -n "s|^$f: ||p")
  for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
    case $h in
      tfxc/tfxc.h | cli/*.h) continue ;;
    esac
    if printf '%s\n' $allowed | grep -qxF "$h"; then
      n_exc=$((n_exc + 1))
    else
      echo "FAIL: src/cli/$f includes \"$h\": the CLI may use only tfxc/tfxc.h (and cli/*.h)"
      fail=1
    fi
  done
  for h in $allowed; do
    grep -qE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$h\"" "$f" ||
      echo "note: src/cli/$f no longer includes $h: delete it from the exceptions in $0"
  done
done
echo "$n_files files in src/cli, $n_exc internal includes left (listed exceptions)"
exit $fail
