#!/usr/bin/env bash
# CLI test: the stdlib op table. (1) `tfxc list-rules --json` (stdlib only) lists a map for every
# pair of the TF -> CANN table (docs/ASCEND.md §8.1): a map whose `from` has the TF type and whose `to` is the
# CANN type (or, for a graph map, whose inner node types include it); (2) the TSV copies in
# stdlib/ops equal the facts files byte for byte (stdlib/ops/sync-facts.sh); (3) the stdlib
# loads with no diagnostic at all (it is loaded on every run). Skipped (77) without the facts.
# Env: TFXC, TFXC_SRC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
SRC="${TFXC_SRC:?set TFXC_SRC to the repo root}"
FACTS="$SRC/../shared/facts"
[ -f "$FACTS/tf-cann-op-pairs.tsv" ] || { echo "skip: no $FACTS/tf-cann-op-pairs.tsv"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0

"$TFXC" list-rules --json >"$T/rules.json" 2>"$T/err"
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL: list-rules --json exited $rc"; cat "$T/err"; exit 1; fi
if [ -s "$T/err" ]; then echo "FAIL: loading the stdlib printed diagnostics:"; cat "$T/err"; fail=1; fi
"$TFXC" list-rules >/dev/null 2>"$T/err2"
if [ -s "$T/err2" ]; then echo "FAIL: list-rules printed diagnostics:"; cat "$T/err2"; fail=1; fi

python3 - "$T/rules.json" "$FACTS/tf-cann-op-pairs.tsv" <<'PY' || fail=1
import json, sys
rules = json.load(open(sys.argv[1]))
have = set()
for r in rules:
    if r.get("kind") != "map":
        continue
    tos = r["to"] if isinstance(r["to"], list) else [r["to"]]
    for f in r["from"]:
        for t in tos:
            have.add((f, t))
pairs = [l.rstrip("\n").split("\t")[:2] for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
missing = [p for p in pairs if tuple(p) not in have]
for tf, cann in missing:
    print("FAIL: no stdlib op map %s -> %s" % (tf, cann))
tf_names = {p[0] for p in pairs}
print("ok: %d of %d pairs (%d TF types) have a stdlib op map" % (len(pairs) - len(missing), len(pairs), len(tf_names)))
sys.exit(1 if missing else 0)
PY

if bash "$SRC/stdlib/ops/sync-facts.sh" --check "$FACTS"; then echo "ok: stdlib/ops TSV copies equal the facts"
else fail=1; fi
exit $fail
