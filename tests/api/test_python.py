"""The tfxc Python module (ctypes over the installed libtfxc). Run by tests/api/python.sh."""
import os
import shutil
import subprocess
import sys
import tempfile

import tfxc

SRC = os.environ["TFXC_SRC"]
PREFIX = os.path.realpath(os.environ["TFXC_PREFIX"])
EX = os.path.join(SRC, "examples", "dense_layernorm", "model.pbtxt")
failures = []


def expect(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def raises(fn, status):
    try:
        fn()
    except tfxc.Error as e:
        return e if e.status == status else None
    return None


# the module and the library come from the installed tree
expect(os.path.realpath(tfxc.__file__).startswith(PREFIX), "tfxc imported from the install prefix")
expect(tfxc.version() == "0.1.0" or tfxc.version().count(".") == 2, "version() " + tfxc.version())

work = tempfile.mkdtemp()
try:
    # the reference: the installed command
    subprocess.run([os.environ["TFXC_BIN"], EX, "-o", os.path.join(work, "ref.air")], check=True)
    ref = open(os.path.join(work, "ref.air"), "rb").read()
    air = tfxc.convert(EX)
    expect(air == ref, "convert(path) == tfxc MODEL (%d bytes)" % len(air))
    text = open(EX, "rb").read()
    expect(tfxc.convert(text, name=EX) == ref, "convert(text bytes, name=path) == the same bytes")
    # binary GraphDef bytes, as graph_def.SerializeToString() gives them
    proto_dir = os.environ.get("TFXC_PROTO_DIR")
    if shutil.which("protoc") and proto_dir:
        binary = subprocess.run(
            ["protoc", "-I" + proto_dir, "--encode=tensorflow.GraphDef",
             "tensorflow/graph.proto"], input=text, stdout=subprocess.PIPE, check=True).stdout
        pb = os.path.join(work, "model.pb")
        open(pb, "wb").write(binary)
        subprocess.run([os.environ["TFXC_BIN"], pb, "-o", os.path.join(work, "bin.air")], check=True)
        expect(tfxc.convert(binary, name=pb) == open(os.path.join(work, "bin.air"), "rb").read(),
               "convert(SerializeToString() bytes) == tfxc model.pb")
    else:
        print("note: protoc not found; binary GraphDef bytes not tried")
    js = tfxc.convert(EX, emit="ge-json", input_shape="input:2,8")
    expect(js.startswith(b"{"), "convert(emit=ge-json, input_shape=...)")
    fused = tfxc.convert(EX, emit="tf-pbtxt")
    tf = tfxc.convert(EX, emit="tf-pbtxt", disable_pass="scope-fusion")
    expect(fused.count(b'op: "LayerNorm"') == 1 and tf.count(b'op: "LayerNorm"') == 0 and
           b"node {" in tf, "disable_pass=scope-fusion keeps the graph unfused")

    report = tfxc.check(EX)
    expect(report["result"] == "success" and report["exit_code"] == 0 and report["fail"] == 0,
           "check(): success, %d ops" % report["total"])
    why = tfxc.explain(EX, "input")
    expect(why["mapping"] == "rule" and why["mapped_type"] == "Data" and
           why["rule"]["site"].startswith("<stdlib>/"), "explain(input): %s" % why)

    odd = (b'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
           b'node { name: "y" op: "NoSuchOpAnywhere" input: "x" }\n')
    r = tfxc.check(odd, name="odd.pbtxt")
    expect(r["result"] == "failed" and r["fail"] == 1 and r["exit_code"] == 1,
           "check() of an unsupported op: result failed, no exception")
    expect(tfxc.explain(odd, "y")["mapping"] == "unsupported", "explain() of the unsupported op")
    e = raises(lambda: tfxc.convert(odd, name="odd.pbtxt"), "failed")
    expect(e is not None and e.exit_code == 1, "convert() of an unsupported op raises (failed)")

    # diagnostics raised with their location
    e = raises(lambda: tfxc.convert(b'node {\n  name: "x"\n  nope: 1\n}\n', name="mem.pbtxt"), "input")
    expect(e is not None and (e.file, e.line, e.column) == ("mem.pbtxt", 3, 3) and e.exit_code == 3,
           "a malformed model raises Error(input) at mem.pbtxt:3:3: %s" % e)
    bad = b"pass P {\n  group { layer { pattern p {\n    cnt Mul == 2;\n  } } }\n}\n"
    e = raises(lambda: tfxc.convert(EX, rules=[("mine.scoperule", bad)]), "rules")
    expect(e is not None and (e.file, e.line, e.column) == ("mine.scoperule", 3, 5) and
           "unknown feature 'cnt'" in str(e), "a bad rule raises Error(rules) at mine.scoperule:3:5")
    e = raises(lambda: tfxc.convert(EX, input_shap="x:1"), "misuse")
    expect(e is not None and "did you mean 'input-shape'" in str(e), "an unknown option raises Error(misuse)")
    e = raises(lambda: tfxc.convert(os.path.join(work, "missing.pb")), "input")
    expect(e is not None and e.file and e.file.endswith("missing.pb"), "a missing model raises Error(input)")
    # a rule from memory takes effect
    relu = (b'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'
            b'node { name: "y" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }\n')
    w = tfxc.explain(relu, "y", rules=[("mine.opmap", b"op Relu -> Relu6 { auto; }\n")], name="r.pbtxt")
    expect(w["mapped_type"] == "Relu6" and w["rule"]["site"] == "mine.opmap:1", "rules=[(name, bytes)] apply")
    lp = tfxc.explain_pass(EX, "ScopeLayerNormPass")
    expect(len(lp) >= 1 and lp[0]["graph"] == "" and lp[0]["status"] == "SUCCESS" and
           lp[0]["result_count"] >= 1, "explain_pass(ScopeLayerNormPass): SUCCESS, results")
    e = raises(lambda: tfxc.explain_pass(EX, "NoSuchPass"), "misuse")
    expect(e is not None and "ScopeLayerNormPass" in str(e), "explain_pass(unknown) raises misuse")
    # explain as the command's text (tfxc_explain_scope / tfxc_explain_rule)
    t = tfxc.explain_scope(EX, "dense/LayerNorm/batchnorm", passes=["ScopeLayerNormPass"])
    expect(t.startswith("scope dense/LayerNorm/batchnorm/\n") and "pattern 1 batchnorm: matched" in t,
           "explain_scope(): the command's text")
    t = tfxc.explain_rule(EX, "ScopeLayerNormPass")
    expect(t.startswith("pass ScopeLayerNormPass (general, ") and "final results: 1" in t,
           "explain_rule(ScopeLayerNormPass): the pass's report")
    e = raises(lambda: tfxc.explain_scope(EX, "no/such"), "misuse")
    expect(e is not None and "no scope 'no/such/'" in str(e), "explain_scope(unknown) raises misuse")
    # sessions
    with tfxc.Session() as s:
        s.load_model(EX)
        s.run("scope-fusion")
        expect(b"LayerNorm" in s.emit("tf-pbtxt"), "Session.run(last) then emit(tf-pbtxt)")
        e = raises(lambda: s.emit("air"), "misuse")
        expect(e is not None, "emit(air) before lowering raises Error(misuse)")
        info = s.last_run()
        expect(info["ran"] and info["status"] == "ok" and info["fused"] and not info["mapped"] and
               not info["wrote"], "Session.last_run() after run(scope-fusion): %s" % info)
        expect("scope-fusion" in s.pass_timing() and "op-mapping" not in s.pass_timing(),
               "Session.pass_timing() lists the passes that ran")
    # a session writing its outputs as the command does (option write_outputs)
    with tfxc.Session() as s:
        s.set_option("disable_pass", "dataflow")
        expect([l for l in s.list_passes().splitlines() if "(disabled)" in l] ==
               [l for l in s.list_passes().splitlines() if " dataflow " in l],
               "Session.list_passes() marks the disabled pass")
    with tfxc.Session() as s:
        out = os.path.join(work, "written.air")
        s.set_option("output", out)
        s.set_option("write_outputs", True)
        s.load_model(EX)
        s.run()
        expect(open(out, "rb").read() == ref and s.last_run()["wrote"],
               "write_outputs: the run writes the .air the command writes")
finally:
    shutil.rmtree(work)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
