#!/usr/bin/env bash
# The repository stands alone (issue 15 item 7): no file cites the notes kept outside it
# (../shared/facts; only the tools and tests that read that directory as input data may name
# it), and every `docs/X.md §N` / `X.md section N` / `docs/X.md#anchor` citation names a
# heading that exists, and docs/HACKING.md's module map lists exactly the files under src/,
# include/ and grammar/ (tests/tools/check_doc_citations.py). First the checker is shown to
# catch each kind of problem on a small tree, then it runs on the source tree.
# Env: TFXC_SRC. Skipped (77) without python3.
set -u
: "${TFXC_SRC:?set TFXC_SRC to the repo root}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
CHECK="$TFXC_SRC/tests/tools/check_doc_citations.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# ---- the checker on a tree with known good and bad citations
mkdir -p "$tmp/t/docs" "$tmp/t/src" "$tmp/t/tests/cli"
cat > "$tmp/t/docs/GUIDE.md" <<'MD'
# Guide
## 1. First
### 1.2 Second part
See §1.2 and §1.3.
MD
cat > "$tmp/t/src/a.c" <<'C'
/* good: docs/GUIDE.md §1, GUIDE.md §1.2, docs/GUIDE.md section 1.2, docs/GUIDE.md §1-1.2 */
/* good: docs/GUIDE.md#1-first and docs/GUIDE.md#12-second-part, then a bare §1.2 */
/* bad section: docs/GUIDE.md §2 */
/* bad range end: docs/GUIDE.md §1.2-4 */
/* bad anchor: docs/GUIDE.md#third */
/* outside notes: ../shared/facts/ascend.md fact 21 */
/* design notes: ../shared/design/STYLE.md */
/* carried over a line break: docs/GUIDE.md
 * §1.2 is fine, docs/GUIDE.md
 * §7 is not */
C
printf '/* §1 with no document before it */\n' > "$tmp/t/src/b.c"
printf '# reads it: ../shared/facts/tf-ops.tsv\n' > "$tmp/t/tests/cli/opmap_coverage.sh"
printf '# names it without reading it: ../shared/facts\n' > "$tmp/t/tests/cli/other.sh"
cat > "$tmp/t/docs/HACKING.md" <<'MD'
# Hacking
## Module map
- `src/a.c` — listed and present
- `src/gone.c` — listed but gone
## Recipes
MD
out=$(python3 "$CHECK" "$tmp/t" 2>/dev/null); rc=$?
[ $rc -eq 1 ] || { echo "FAIL: checker exit $rc on a tree with bad citations (want 1)"; fail=1; }
expect() {
  printf '%s\n' "$out" | grep -qF -- "$1" || { echo "FAIL: checker did not report: $1"; fail=1; }
}
expect "src/a.c:3: GUIDE.md has no section 2"
expect "src/a.c:4: GUIDE.md has no section 1.4"
expect "src/a.c:5: GUIDE.md has no heading with anchor #third"
expect "src/a.c:6: cites ascend.md"
expect "src/a.c:6: names the facts directory"
expect "src/a.c:7: cites the design notes"
expect "src/a.c:10: GUIDE.md has no section 7"
expect "src/b.c:1: §1 names no document"
expect "docs/GUIDE.md:4: GUIDE.md has no section 1.3"
expect "tests/cli/other.sh:1: names the facts directory"
expect "docs/HACKING.md:2: module map lacks src/b.c"
expect "docs/HACKING.md:4: module map lists src/gone.c, which does not exist"
n=$(printf '%s\n' "$out" | grep -c .)
[ "$n" -eq 14 ] || { echo "FAIL: checker reported $n problems on the small tree, want 14:"; printf '%s\n' "$out"; fail=1; }
if printf '%s\n' "$out" | grep -q "opmap_coverage.sh\|src/a.c:[1289]:\|map lacks src/a.c"; then
  echo "FAIL: checker reported a good citation or an allowed reader:"; printf '%s\n' "$out"; fail=1
fi

# ---- the source tree
if python3 "$CHECK" "$TFXC_SRC"; then
  echo "ok: no citation of ../shared/facts, every docs section citation resolves, the module map is complete"
else
  echo "FAIL: see the lines above (restate what is needed in docs/ASCEND.md or docs/AIR.md and cite that)"
  fail=1
fi
exit $fail
