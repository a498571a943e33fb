#!/usr/bin/env python3
"""check_doc_citations: the repository stands alone, and its section citations hold.

Stage: tests (run by tests/cli/docs_citations.sh). Input: the root of a source tree. Output:
one line per problem, `FILE:LINE: message`, and exit 1; exit 0 when there is none.

Checks:
1. No file cites the notes kept outside the repository (the `facts` directory next to the
   checkout): no `ascend.md` / `air.md` / `README-ops.md` / `tf-proto-fields.txt`, no
   "fact N" / "facts §N"; nor the design notes next to them (`shared/design`). What the code
   relies on is restated in docs/ASCEND.md, docs/AIR.md and docs/HACKING.md, which is what
   comments cite.
2. The path of that directory (`shared/facts`, `../facts/`) appears only in the files that
   read it as input data (ALLOWED_PATH_USERS: the op-table sync tools and the tests that use
   the tables and the scope-fusion ground truth as oracles).
3. Every citation of a section of a document in docs/ -- `docs/X.md §N`, `X.md §N.M`,
   `X.md §A-B` (both ends checked), `X.md section N`, further `, §M` on the same line, and
   `docs/X.md#anchor` -- names a heading that exists: `## N. Title` / `### N.M Title` for
   numbers, GitHub's heading slug for anchors. A bare `§N` is resolved against the document
   last cited with a section before it in the same file (in docs/X.md itself: X.md), or, at
   the start of a line, against a document named at the end of the line before; a bare `§N`
   with no document before it is an error.
"""
import os
import re
import sys

ALLOWED_PATH_USERS = {
    "stdlib/ops/sync-facts.sh",       # copies the op tables from there (default FACTS_DIR)
    "stdlib/ops/gen-opmaps.py",       # reads the TF -> CANN pair table from there
    "stdlib/ops/README.md",           # documents that copy
    "tests/cli/opmap_coverage.sh",    # copies equal the originals; every pair has a map
    "tests/cli/opmap_generated.sh",   # gen-*.opmap equal the generator's output
    "tests/unit/test_scope_corpus.c", # ground truth as the oracle of the ScopeTree
    "docs/ASCEND.md",                 # says where the ground truth lives
}
# The checker and its test hold examples of every problem; they are not checked.
SELF = {"tests/tools/check_doc_citations.py", "tests/cli/docs_citations.sh"}
SKIP_DIRS = {".git", "__pycache__"}
MAX_BYTES = 4 << 20

# Citations of the outside notes (case-sensitive: docs/ASCEND.md and docs/AIR.md are fine).
FORBIDDEN = [
    (re.compile(r"(?<![A-Za-z])ascend\.md"), "cites ascend.md (outside the repository); cite docs/ASCEND.md"),
    (re.compile(r"(?<![A-Za-z])air\.md"), "cites air.md (outside the repository); cite docs/AIR.md"),
    (re.compile(r"README-ops"), "cites README-ops.md (outside the repository); cite docs/ASCEND.md §8"),
    (re.compile(r"tf-proto-fields"), "cites tf-proto-fields.txt (outside the repository); cite docs/ASCEND.md §10"),
    (re.compile(r"\b[Ff]acts? [0-9]|\bfacts §"), "cites the facts notes (outside the repository); cite docs/"),
    (re.compile(r"shared/design|ARCHITECTURE §"), "cites the design notes outside the repository; restate it in docs/"),
]
# A path into that directory: a citation, unless the file reads the directory (checked apart).
FACTS_PATH = re.compile(r"\bfacts/[A-Za-z]")
PATH_USE = re.compile(r"shared/facts|\.\./facts/")

DOC_REF = re.compile(r"(?:docs/)?([A-Za-z][A-Za-z0-9_-]*)\.md(#[A-Za-z0-9_-]+)?")
SEC = r"(?:§ ?|section )(\d+(?:\.\d+)*)(?:\s*[-–]\s*(\d+(?:\.\d+)*))?"
SEC_AFTER_DOC = re.compile(r"`?\s*,?\s*" + SEC)
SEC_CHAIN = re.compile(r"\s*(?:,|;|and|or)?\s*§ ?(\d+(?:\.\d+)*)(?:\s*[-–]\s*(\d+(?:\.\d+)*))?")
BARE = re.compile(r"§ ?(\d+(?:\.\d+)*)(?:\s*[-–]\s*(\d+(?:\.\d+)*))?")
LEAD = re.compile(r"[\s*#/]*")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
NUMBERED = re.compile(r"^(\d+(?:\.\d+)*)\.?(?:\s|$)")


def slug(title):
    s = title.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def doc_index(root):
    docs = {}
    ddir = os.path.join(root, "docs")
    for name in sorted(os.listdir(ddir)) if os.path.isdir(ddir) else []:
        if not name.endswith(".md"):
            continue
        nums, slugs, fence = set(), set(), False
        with open(os.path.join(ddir, name), encoding="utf-8") as f:
            for line in f:
                if line.startswith("```"):
                    fence = not fence
                    continue
                m = None if fence else HEADING.match(line.rstrip("\n"))
                if not m:
                    continue
                title = m.group(2)
                slugs.add(slug(title))
                n = NUMBERED.match(title)
                if n and len(m.group(1)) >= 2:
                    nums.add(n.group(1))
        docs[name[:-3]] = (nums, slugs)
    return docs


def expand(a, b):
    """Both ends of a range; a relative end (`4.3-4` = 4.3-4.4) takes a's prefix."""
    if not b:
        return [a]
    if "." in a and "." not in b and len(b) <= len(a.split(".")[-1]) and int(b) > int(a.split(".")[-1]):
        b = a.rsplit(".", 1)[0] + "." + b
    return [a, b]


def files(root):
    for top, dirs, names in os.walk(root):
        rel_top = os.path.relpath(top, root)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not (rel_top == "." and d.startswith("build")))
        for n in sorted(names):
            p = os.path.join(top, n)
            rel = os.path.relpath(p, root).replace(os.sep, "/")
            try:
                if os.path.getsize(p) > MAX_BYTES:
                    continue
                with open(p, "rb") as f:
                    data = f.read()
                text = data.decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if "\0" in text:
                continue
            yield rel, text


def check(root):
    docs = doc_index(root)
    problems = []

    def bad(rel, ln, msg):
        problems.append("%s:%d: %s" % (rel, ln, msg))

    counts = {"files": 0, "sections": 0}

    def check_sec(rel, ln, doc, a, b):
        counts["sections"] += 1
        nums = docs[doc][0]
        for s in expand(a, b):
            if s not in nums:
                bad(rel, ln, "%s.md has no section %s (cited as §%s)" % (doc, s, a + ("-" + b if b else "")))

    for rel, text in files(root):
        if rel in SELF:
            continue
        counts["files"] += 1
        own = None
        if rel.startswith("docs/") and rel.endswith(".md") and rel.count("/") == 1:
            own = rel[5:-3]
        last_doc = own
        carry = None  # a document named at the very end of the previous line
        for ln, line in enumerate(text.split("\n"), 1):
            if rel not in ("docs/ASCEND.md", "docs/AIR.md"):
                for rx, msg in FORBIDDEN:
                    if rx.search(line):
                        bad(rel, ln, msg)
                if FACTS_PATH.search(line) and rel not in ALLOWED_PATH_USERS:
                    bad(rel, ln, "cites a file of the facts notes (outside the repository); cite docs/")
            if PATH_USE.search(line) and rel not in ALLOWED_PATH_USERS:
                bad(rel, ln, "names the facts directory outside the repository (only the tools and "
                             "tests that read it may; cite docs/ASCEND.md or docs/AIR.md)")
            covered = []
            if carry:
                lead = LEAD.match(line)
                sm = SEC_AFTER_DOC.match(line, lead.end())
                pos = lead.end()
                while sm:
                    check_sec(rel, ln, carry, sm.group(1), sm.group(2))
                    covered.append((pos, sm.end()))
                    pos = sm.end()
                    sm = SEC_CHAIN.match(line, pos)
                carry = None
            for m in DOC_REF.finditer(line):
                doc, anchor = m.group(1), m.group(2)
                if doc not in docs:
                    continue
                pos = m.end()
                if anchor and (m.group(0).startswith("docs/") or own):
                    counts["sections"] += 1
                    if anchor[1:] not in docs[doc][1]:
                        bad(rel, ln, "%s.md has no heading with anchor %s" % (doc, anchor))
                if not line[pos:].strip(" `*"):
                    carry = doc
                sm = SEC_AFTER_DOC.match(line, pos)
                if sm and own is None:
                    last_doc = doc
                while sm:
                    check_sec(rel, ln, doc, sm.group(1), sm.group(2))
                    covered.append((m.start(), sm.end()))
                    pos = sm.end()
                    sm = SEC_CHAIN.match(line, pos)
            for bm in BARE.finditer(line):
                if any(s <= bm.start() < e for s, e in covered):
                    continue
                if last_doc is None:
                    bad(rel, ln, "§%s names no document (write docs/X.md §N)" % bm.group(1))
                    continue
                check_sec(rel, ln, last_doc, bm.group(1), bm.group(2))
    mapped = module_map(root)
    if mapped is not None:
        have = set()
        for top in MAPPED_DIRS:
            for dp, dn, fn in os.walk(os.path.join(root, top)):
                dn[:] = [d for d in dn if d not in SKIP_DIRS]
                for n in fn:
                    have.add(os.path.relpath(os.path.join(dp, n), root).replace(os.sep, "/"))
        for f in sorted(have - set(mapped)):
            bad("docs/HACKING.md", mapped.get("", 0), "module map lacks %s (add one `- `%s` — purpose` line)" % (f, f))
        for f, ln in sorted(mapped.items()):
            if f and f not in have:
                bad("docs/HACKING.md", ln, "module map lists %s, which does not exist" % f)
    return problems, counts


MAPPED_DIRS = ("src", "include", "grammar")
MAP_LINE = re.compile(r"^- `((?:src|include|grammar)/[^`]+)`")


def module_map(root):
    """{path: line} of the module map of docs/HACKING.md ("" -> the heading's line), or None."""
    p = os.path.join(root, "docs", "HACKING.md")
    if not os.path.exists(p):
        return None
    out, inside = {}, False
    with open(p, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            if line.startswith("## "):
                inside = line.strip() == "## Module map"
                if inside:
                    out[""] = ln
                continue
            m = MAP_LINE.match(line) if inside else None
            if m:
                out[m.group(1)] = ln
    return out if out else None


def main():
    if len(sys.argv) != 2:
        print("usage: check_doc_citations.py ROOT", file=sys.stderr)
        return 2
    problems, counts = check(sys.argv[1])
    for p in problems:
        print(p)
    print("check_doc_citations: %d files, %d section citations checked, %d problems"
          % (counts["files"], counts["sections"], len(problems)), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
