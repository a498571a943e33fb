#!/usr/bin/env bash
# `tfxc --check` agrees with the conversion (issue 12 item 5): on every golden case of
# tests/golden/cases, `tfxc --check MODEL [-r rules] ARGS` exits 0 exactly when the conversion
# `tfxc MODEL -o OUT.air [-r rules] ARGS` does, and with the same exit code otherwise. Then a
# graph that maps fine but cannot be lowered (a Const without a `value` tensor): the precheck
# runs the lowering, so it fails too, reports the node failed with cause code 2 and the
# lowering's message (also in its stderr summary), and writes nothing. The corpus half of the agreement is
# tests/corpus/ge_convert.py. Env: TFXC, TFXC_SRC; exit 77 without python3.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
: "${TFXC_SRC:?set TFXC_SRC to the repo root}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
exec python3 - "$TFXC" "$TFXC_SRC/tests/golden/cases" <<'PY'
import json, os, shlex, subprocess, sys, tempfile
tfxc, root = os.path.abspath(sys.argv[1]), sys.argv[2]
fails, n = [], 0
work = tempfile.mkdtemp(prefix="tfxc-check-agrees.")


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


for case in sorted(os.listdir(root)):
    d = os.path.join(root, case)
    if not os.path.isdir(d):
        continue
    model = "model.pbtxt" if os.path.exists(os.path.join(d, "model.pbtxt")) else "model.pb"
    if not os.path.exists(os.path.join(d, model)):
        continue
    args = []
    if os.path.exists(os.path.join(d, "args")):
        with open(os.path.join(d, "args"), encoding="utf-8") as f:
            args = shlex.split(f.read(), comments=True)
    if os.path.isdir(os.path.join(d, "rules")):
        args = ["-r", "rules"] + args
    out = os.path.join(work, "m.air")
    if os.path.exists(out):
        os.unlink(out)
    crc, _, cerr = run([tfxc, model, "-o", out] + args, d)
    krc, kout, kerr = run([tfxc, "--check", model] + args, d)
    n += 1
    print("%-50s conversion %d, --check %d" % (case, crc, krc))
    if crc != krc:
        fails.append("%s: conversion exit %d but --check exit %d\n  conversion: %s\n  --check: %s"
                     % (case, crc, krc, cerr[-600:], kerr[-600:]))
    elif krc == 1 and kout:
        rep = json.loads(kout)
        if rep.get("result") != "failed":
            fails.append("%s: --check exit 1 but report result %r" % (case, rep.get("result")))

# A mapped graph the lowering refuses: --check must fail on the same node.
t = os.path.join(work, "lower")
os.mkdir(t)
with open(os.path.join(t, "m.pbtxt"), "w") as f:
    f.write('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
            'node { name: "k" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
            'node { name: "y" op: "Add" input: "x" input: "k" '
            'attr { key: "T" value { type: DT_FLOAT } } }\n')
crc, _, cerr = run([tfxc, "m.pbtxt", "-o", "m.air"], t)
krc, kout, kerr = run([tfxc, "--check", "m.pbtxt"], t)
n += 1
if crc != 1 or "node 'k'" not in cerr:
    fails.append("Const without value: conversion exit %d (want 1 naming node 'k'): %s" % (crc, cerr))
if krc != 1:
    fails.append("Const without value: --check exit %d, want 1: %s" % (krc, kerr))
else:
    rep = json.loads(kout)
    k = [o for o in rep["op"] if o["name"] == "k"]
    if rep["result"] != "failed" or rep["fail"] != 1 or not k or k[0]["result"] != "failed" \
            or k[0]["cause"][0]["code"] != 2 or "tensor attr 'value'" not in k[0]["cause"][0]["message"]:
        fails.append("Const without value: --check report does not fail node 'k' with the "
                     "lowering's cause: %s" % kout)
    if "node 'k' (op 'Const' -> 'Const'): the Const op needs a tensor attr 'value'" not in kerr:
        fails.append("Const without value: --check's stderr summary does not name node 'k': %s"
                     % kerr)
if sorted(os.listdir(t)) != ["m.pbtxt"]:
    fails.append("files written: %s" % sorted(os.listdir(t)))

# A lowering error that names no node (a function output missing from its ret map): no node
# fails, but the run does, so the report's result is "failed" (it said "success" before).
t = os.path.join(work, "noret")
os.mkdir(t)
with open(os.path.join(t, "m.pbtxt"), "w") as f:
    f.write('node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
            'node { name: "c" op: "PartitionedCall" input: "x" '
            'attr { key: "f" value { func { name: "f" } } } '
            'attr { key: "Tin" value { list { type: DT_FLOAT } } } '
            'attr { key: "Tout" value { list { type: DT_FLOAT } } } }\n'
            'library { function { signature { name: "f" input_arg { name: "a" type: DT_FLOAT } '
            'output_arg { name: "o" type: DT_FLOAT } } '
            'node_def { name: "n" op: "Identity" input: "a" '
            'attr { key: "T" value { type: DT_FLOAT } } } } }\n')
crc, _, cerr = run([tfxc, "m.pbtxt", "-o", "m.air"], t)
krc, kout, kerr = run([tfxc, "--check", "m.pbtxt"], t)
n += 1
msg = "function 'f': output 'o' has no entry in the function's ret map"
if crc != 1 or msg not in cerr:
    fails.append("ret map: conversion exit %d (want 1 with %r): %s" % (crc, msg, cerr))
if krc != 1 or msg not in kerr:
    fails.append("ret map: --check exit %d (want 1 with %r): %s" % (krc, msg, kerr))
else:
    rep = json.loads(kout)
    if rep["exit_code"] != 1 or rep["result"] != "failed" or rep["fail"] != 0:
        fails.append("ret map: --check report wants exit_code 1, result failed, fail 0: "
                     "%s" % kout[:400])

subprocess.run(["rm", "-rf", work])
for f in fails:
    print("FAIL: " + f)
print("%d runs, %d failure(s)" % (n, len(fails)))
sys.exit(1 if fails else 0)
PY
