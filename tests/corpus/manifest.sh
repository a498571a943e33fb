#!/usr/bin/env bash
# Every file in ../shared/corpus/MANIFEST.tsv gets its expected outcome from `tfxc inspect`:
# files protoc accepts as GraphDef/MetaGraphDef/SavedModel load (exit 0) with the manifest's
# top-level node count; malformed ones and non-model files (GraphDebugInfo) exit 3 with a
# message; nothing ever crashes (negative tests included).
. "$(dirname "$0")/lib.bash"
n=0
while IFS=$'\037' read -r file _repo _path _commit _lic format count notes check; do
  [ "$file" = file ] && continue
  f="$TFXC_CORPUS/$file"
  n=$((n + 1))
  "$TFXC" inspect --json "$f" >"$WORK/out.json" 2>"$WORK/err.txt"
  rc=$?
  if crashed "$rc" "$WORK/err.txt"; then
    fail "$file: crashed (exit $rc)"; head -5 "$WORK/err.txt"; continue
  fi
  case "$notes" in
    negative-test*)
      # Parses but is invalid on purpose: loading may succeed or be refused, never crash.
      case "$rc" in
        0) ;;
        3) [ -s "$WORK/err.txt" ] || fail "$file: exit 3 without a message" ;;
        *) fail "$file: negative test exited $rc (want 0 or 3)" ;;
      esac
      continue ;;
  esac
  case "$check:$format" in
    ok:*GraphDebugInfo*|malformed-as-intended:*|fails:*)
      if [ "$rc" -ne 3 ]; then fail "$file: expected exit 3, got $rc"; continue; fi
      if [ ! -s "$WORK/err.txt" ]; then fail "$file: exit 3 without a message"; fi
      ;;
    ok:*)
      if [ "$rc" -ne 0 ]; then
        fail "$file: expected to load, exit $rc: $(head -c 300 "$WORK/err.txt")"; continue
      fi
      want=${count%% *}
      got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"])' "$WORK/out.json" 2>/dev/null)
      if [ "$got" != "$want" ]; then fail "$file: node count $got, manifest says $want"; fi
      ;;
    *) fail "$file: unknown manifest check '$check'" ;;
  esac
done < <(tr '\t' '\037' <"$TFXC_CORPUS/MANIFEST.tsv")
echo "checked $n corpus files, $FAILS failures"
[ "$FAILS" -eq 0 ]
