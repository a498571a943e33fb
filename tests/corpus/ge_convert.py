#!/usr/bin/env python3
"""Converts every model-bearing corpus file to .air and checks that the outcome is one of:

  converted        exit 0; `protoc --decode=ge.proto.ModelDef` decodes the .air (exit 0),
                   tests/tools/air_check.py accepts it, and `tfxc --check` (same options)
                   exits 0 with result "success" (the precheck runs the same mapping and
                   lowering validation, issue 12 item 5);
  precheck-failed  exit 1; `tfxc --check` on the same file (same options) exits 1 with
                   result "failed", every failed op has causes with an int code and a message,
                   and the conversion's stderr accounts for every failed node: per TF type,
                   its group lines ("N nodes of op type 'T' ...") and per-node lines add up to
                   the report's failed nodes of that type;
  invalid-graph    exit 3 with a message, only for files whose graph does not validate: the
                   manifest marks them negative-test, or `tfxc inspect` warns about the graph;
                   `tfxc --check` exits 3 too.

Files in KNOWN (a known tfxc bug; see there) are reported as `known-issue` instead.
Anything else fails: another exit code, a crash (signal), a sanitizer report, exit 3 on a graph
that inspect loads cleanly, precheck disagreeing with the conversion.

Model-bearing files are those tests/corpus/manifest.sh expects to load: protoc check `ok` and
a GraphDef / MetaGraphDef / SavedModel format (GraphDebugInfo files are no models). Every file
is converted with the default scope passes; files under models/ once more with every stdlib
scope pass enabled (what tests/corpus/fusion_truth.py enables), so the fused types (DynamicRNN,
BatchMultiClassNonMaxSuppression, DecodeBboxV2, ...) reach op mapping and lowering too.

One line per run on stdout (the log documents the corpus state):
  converted        FILE [passes]  graphs=G ops=N  1.23s
  precheck-failed  FILE [passes]  T1 x3, T2 x1 (training/checkpoint nodes only: ...)  0.45s
  invalid-graph    FILE  first error line
then `FAIL:` lines and a summary. Env: TFXC, TFXC_CORPUS, TFXC_SRC, TFXC_PROTO_DIR;
TFXC_GE_FILTER (a substring: only matching files). Exit 0 / 1 / 77 (no corpus, protoc or
python3 pieces missing).
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# TF types that only exist in training / checkpointing graphs. ATC accepts frozen graphs only
# (docs/ASCEND.md §7.1); none of these is in
# the TF -> CANN pair table nor a CANN prototype, so the precheck failing on them is right.
TRAINING = {"VariableV2", "SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename",
            "ShardedFilespec", "SaveSlices", "RestoreSlice", "Restore"}
# Corpus files whose outcome is none of the allowed ones because of a known bug outside the op
# maps: file -> (reason, regex). A failure of that file whose message matches the regex is
# reported as `known-issue` with the reason instead of failing the test; other failures still
# fail. When a fix lands the file passes and the test fails until its entry is removed here.
TF = "tf_testdata/core__ir__importexport__tests__"
KNOWN = {}  # every earlier entry is fixed; add one with its reason and message regex
SANITIZER = re.compile(r"AddressSanitizer|UndefinedBehaviorSanitizer|LeakSanitizer|"
                       r"runtime error:")
TIMEOUT = 600
GROUP_LINE = re.compile(r"error: (\d+) nodes of op type '([^']*)'")
NODE_LINE = re.compile(r"error: node '.*?(?:op type '([^']*)' is not supported|\(op '([^']*)' -> |"
                       r"\(op ([^)' ]+)\): )")


def run(cmd, **kw):
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT, **kw)
        rc, out, err = p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        rc, out, err = -1000, b"", "timed out after %d s" % TIMEOUT
    return rc, out, err, time.monotonic() - t


def crashed(rc, err):
    return rc < 0 or rc >= 128 or SANITIZER.search(err) is not None


def manifest_models(corpus):
    rows = []
    with open(os.path.join(corpus, "MANIFEST.tsv"), encoding="utf-8") as f:
        for i, line in enumerate(f):
            cols = line.rstrip("\n").split("\t")
            if i == 0 or len(cols) < 9:
                continue
            file, fmt, notes, check = cols[0], cols[5], cols[7], cols[8]
            if check != "ok" or "GraphDebugInfo" in fmt:
                continue
            if not re.search(r"\((GraphDef|MetaGraphDef|SavedModel)\)", fmt):
                continue
            rows.append((file, notes.startswith("negative-test")))
    return rows


def main():
    corpus = os.environ.get("TFXC_CORPUS", "")
    if not corpus or not os.path.isfile(os.path.join(corpus, "MANIFEST.tsv")):
        print("SKIP: corpus not found (TFXC_CORPUS=%r); it lives in ../shared/corpus" % corpus)
        return 77
    tfxc = os.environ.get("TFXC")
    if not tfxc:
        sys.exit("TFXC must point at the tfxc binary")
    src = os.environ.get("TFXC_SRC") or os.path.normpath(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    proto_dir = os.environ.get("TFXC_PROTO_DIR") or os.path.join(src, "src", "proto")
    protoc = shutil.which("protoc")
    if not protoc:
        print("SKIP: protoc not installed (needed to decode the .air files)")
        return 77
    air_check = os.path.join(src, "tests", "tools", "air_check.py")
    filt = os.environ.get("TFXC_GE_FILTER", "")

    rc, out, err, _ = run([tfxc, "list-rules", "--json"])
    if rc != 0:
        print("FAIL: tfxc list-rules --json exit %d: %s" % (rc, err[:300]))
        return 1
    all_passes = [r["name"] for r in json.loads(out) if r.get("kind") == "scope"]

    work = tempfile.mkdtemp(prefix="tfxc-ge-convert.")
    fails = []
    tally = collections.Counter()
    t_all = time.monotonic()
    try:
        for file, negative in manifest_models(corpus):
            if filt and filt not in file:
                continue
            path = os.path.join(corpus, file)
            variants = [("", [])]
            if file.startswith("models/"):
                variants.append(("[all scope passes]",
                                 ["--enable-scope-fusion-passes", ",".join(all_passes)]))
            for label, opts in variants:
                what = file + (" " + label if label else "")
                outcome, msgs = convert_one(tfxc, protoc, proto_dir, air_check, path, opts,
                                            negative, work)
                known = KNOWN.get(file) if not label else None
                bad = msgs[1:]
                if known and outcome != "crashed":
                    rx = re.compile(known[1], re.S)
                    hit = [m for m in bad if rx.search(m)]
                    if hit:
                        tally["known-issue"] += 1
                        print("known-issue      %s  %s" % (what, known[0]), flush=True)
                        for m in hit:
                            print("    (%s)" % m[:300].replace("\n", " "), flush=True)
                        bad = [m for m in bad if m not in hit]
                    else:
                        tally[outcome] += 1
                        print(msgs[0].replace("@", what), flush=True)
                        if not bad:
                            bad = ["listed in KNOWN (ge_convert.py) but now passes: remove it"]
                else:
                    tally[outcome] += 1
                    print(msgs[0].replace("@", what), flush=True)
                for m in bad:
                    fails.append("%s: %s" % (what, m))
                    print("FAIL: %s: %s" % (what, m), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d runs: %s; %.1fs" % (sum(tally.values()), ", ".join(
        "%d %s" % (n, k) for k, n in sorted(tally.items())), time.monotonic() - t_all))
    if fails:
        print("%d failure(s)" % len(fails))
        return 1
    return 0


def convert_one(tfxc, protoc, proto_dir, air_check, path, opts, negative, work):
    """Returns (outcome, [line with '@' for the file, failure messages...])."""
    air = os.path.join(work, "m.air")
    if os.path.exists(air):
        os.unlink(air)
    rc, _, err, dt = run([tfxc, "-o", air] + opts + [path])
    if crashed(rc, err):
        return "crashed", ["crashed          @  exit %d" % rc,
                           "crashed or sanitizer report (exit %d): %s" % (rc, err[-1500:])]
    if rc == 0:
        outcome, msgs = check_air(protoc, proto_dir, air_check, air, dt)
        crc, out, cerr, _ = run([tfxc, "--check"] + opts + [path])
        if crashed(crc, cerr):
            msgs.append("--check crashed (exit %d): %s" % (crc, cerr[-1500:]))
        elif crc != 0:
            msgs.append("conversion exit 0 but --check exit %d (want 0): %s" % (crc, cerr[:800]))
        else:
            try:
                res = json.loads(out).get("result")
            except ValueError as e:
                res = "no JSON report (%s)" % e
            if res != "success":
                msgs.append("conversion exit 0 but --check result %r" % res)
        return outcome, msgs
    if rc == 1:
        return check_precheck(tfxc, path, opts, err, dt)
    if rc == 3:
        first = err.strip().splitlines()[0] if err.strip() else ""
        first = first.replace(path, "").lstrip(": ")
        line = "invalid-graph    @  %s" % first[:160]
        crc, _, cerr, _ = run([tfxc, "--check"] + opts + [path])
        if crc != 3:
            return "invalid-graph", [line, "conversion exit 3 but --check exit %d (want 3): %s"
                                     % (crc, cerr[:500])]
        if not first:
            return "invalid-graph", [line, "exit 3 without a message"]
        if negative:
            return "invalid-graph", [line]
        irc, _, ierr, _ = run([tfxc, "inspect", path])
        if irc == 0 and "warning" in ierr:
            return "invalid-graph", [line]
        return "invalid-graph", [line, "exit 3 on a model that loads cleanly "
                                 "(inspect exit %d, no warning): %s" % (irc, err[:500])]
    return "error", ["error            @  exit %d" % rc,
                     "unexpected exit %d: %s" % (rc, err[:800])]


def check_air(protoc, proto_dir, air_check, air, dt):
    bad = []
    if not os.path.isfile(air):
        return "converted", ["converted        @  (no .air written)", "exit 0 but no .air"]
    with open(air, "rb") as f:
        prc, text, perr, _ = run([protoc, "--decode=ge.proto.ModelDef", "-I", proto_dir,
                                  os.path.join(proto_dir, "ge", "ge_ir.proto")], stdin=f)
    graphs = ops = 0
    if prc != 0:
        bad.append("protoc --decode=ge.proto.ModelDef exit %d: %s" % (prc, perr[:500]))
    else:
        for line in text.decode("utf-8", "replace").splitlines():
            if line == "graph {":
                graphs += 1
            elif line == "  op {":
                ops += 1
    arc, aout, aerr, _ = run([sys.executable, air_check, air])
    if arc != 0:
        bad.append("air_check exit %d: %s" % (arc, (aout.decode("utf-8", "replace")
                                                    + aerr)[:1500]))
    return "converted", ["converted        @  graphs=%d ops=%d  %.2fs"
                         % (graphs, ops, dt)] + bad


def check_precheck(tfxc, path, opts, conv_err, dt):
    bad = []
    crc, out, cerr, _ = run([tfxc, "--check"] + opts + [path])
    if crashed(crc, cerr):
        return "crashed", ["crashed          @  --check exit %d" % crc,
                           "--check crashed (exit %d): %s" % (crc, cerr[-1500:])]
    if crc != 1:
        return "precheck-failed", ["precheck-failed  @  (conversion exit 1, --check exit %d)"
                                   % crc, "conversion exit 1 but --check exit %d (want 1): "
                                   "conversion said: %s" % (crc, conv_err[:800])]
    try:
        rep = json.loads(out)
    except ValueError as e:
        return "precheck-failed", ["precheck-failed  @  (bad report)",
                                   "--check printed no JSON report: %s" % e]
    failed = [o for o in rep.get("op", []) if o.get("result") == "failed"]
    if rep.get("result") != "failed" or not failed or rep.get("fail") != len(failed):
        bad.append("report: result %r, fail %r, %d failed ops"
                   % (rep.get("result"), rep.get("fail"), len(failed)))
    for o in failed:
        causes = o.get("cause") or []
        if not causes or not all(isinstance(c.get("code"), int) and c.get("code") != 0
                                 and c.get("message") for c in causes):
            bad.append("op %r (%s): failed without a cause code and message: %r"
                       % (o.get("name"), o.get("type"), causes))
    types = collections.Counter(o.get("type") for o in failed)
    # The conversion's stderr accounts for every failed node: one line per group of nodes of
    # one type and cause ("N nodes of op type 'T' ..."), or a per-node line for a group of one
    # (issue 12 item 9: a summary, not one line per node).
    said = collections.Counter()
    for line in conv_err.splitlines():
        if ": error: " not in line:
            continue
        m = GROUP_LINE.search(line)
        if m:
            said[m.group(2)] += int(m.group(1))
            continue
        m = NODE_LINE.search(line)
        if m:
            said[next(g for g in m.groups() if g is not None)] += 1
    # a node the mapping never decided (it stopped at a rule run-time error) is named by the
    # rule error's "while mapping node 'N'" note instead
    want = collections.Counter(o.get("type") for o in failed if o.get("mapping") != "none")
    for o in failed:
        if o.get("mapping") == "none" and "node '%s'" % o.get("name") not in conv_err:
            bad.append("the conversion's stderr does not name node '%s'" % o.get("name"))
    if said != want:
        bad.append("the conversion's stderr accounts for %s, the report fails %s"
                   % (dict(said), dict(want)))
    codes = sorted({c.get("code") for o in failed for c in o.get("cause") or []})
    desc = ", ".join("%s x%d" % (t, n) for t, n in sorted(types.items()))
    if types and set(types) <= TRAINING:
        desc += " (training/checkpoint nodes only: not a frozen graph; ATC refuses it too)"
    elif codes != [1] or set(types) & TRAINING:
        desc += " (cause codes %s%s)" % (",".join(map(str, codes)),
                                        "; a training graph" if set(types) & TRAINING else "")
    return "precheck-failed", ["precheck-failed  @  %s  %.2fs" % (desc, dt)] + bad


if __name__ == "__main__":
    sys.exit(main())
