#!/usr/bin/env python3
"""ge_summary: a deterministic structural summary of a GE model, for the corpus GE goldens
(tests/corpus/ge_goldens.sh, tests/golden/corpus/<model>.ge.summary).

Usage: ge_summary.py MODEL.ge.json MODEL.air [HEADER-LINE...]

Reads tfxc's `--emit ge-json` output (protobuf's JSON mapping of ge.proto.ModelDef: bytes in
base64, 64-bit integers as strings) and the `.air` of the same run (its size and sha256 pin
every byte, weights included). HEADER-LINEs are printed first, each prefixed with `# `.

Per graph: op count, data / control edges and unfed optional inputs, GraphDef.input count and
GraphDef.output, the op-type histogram, every Data node (index, dtype, shape, layout), every
NetOutput's inputs, the Const count with bytes per dtype, ops with subgraphs, every fused node
(`_fusionop_original_type`, number of original ops, inputs, attributes), then per op type the
distinct combinations of its IR attributes (names without a leading `_`) and of its port layouts,
each with a count. Output is sorted, so it does not depend on op order.
"""
import base64
import collections
import hashlib
import json
import sys


def b64(s):
    return base64.b64decode(s).decode("utf-8", "replace")


def fmt_float(x):
    return "%.9g" % float(x)


def fmt_list(lv):
    if "s" in lv:
        return "[" + ",".join(json.dumps(b64(x)) for x in lv["s"]) + "]"
    if "i" in lv:
        return "[" + ",".join(str(int(x)) for x in lv["i"]) + "]"
    if "f" in lv:
        return "[" + ",".join(fmt_float(x) for x in lv["f"]) + "]"
    if "b" in lv:
        return "[" + ",".join("true" if x else "false" for x in lv["b"]) + "]"
    if "dt" in lv:
        return "[" + ",".join("dt:%s" % x for x in lv["dt"]) + "]"
    if "td" in lv:
        return "[%d tensor descs]" % len(lv["td"])
    if "t" in lv:
        return "[%d tensors]" % len(lv["t"])
    if "g" in lv:
        return "[%d graphs]" % len(lv["g"])
    if "na" in lv:
        return "[%d named attrs]" % len(lv["na"])
    return "[]"


def tensor_bytes(t):
    return len(base64.b64decode(t.get("data", "")))


def shape_of(desc):
    return "[" + ",".join(str(int(d)) for d in desc.get("shape", {}).get("dim", [])) + "]"


def fmt_attr(v):
    if "s" in v:
        return json.dumps(b64(v["s"]))
    if "i" in v:
        return str(int(v["i"]))
    if "f" in v:
        return fmt_float(v["f"])
    if "b" in v:
        return "true" if v["b"] else "false"
    if "dt" in v:
        return "dt:%s" % v["dt"]
    if "list" in v:
        return fmt_list(v["list"])
    if "listListInt" in v:
        return "[" + ",".join("[" + ",".join(str(int(x)) for x in e.get("listI", [])) + "]"
                              for e in v["listListInt"].get("listListI", [])) + "]"
    if "t" in v:
        d = v["t"].get("desc", {})
        return "tensor(%s%s,%dB)" % (d.get("dtype", "DT_UNDEFINED"), shape_of(d),
                                      tensor_bytes(v["t"]))
    if "func" in v:
        return "func(%s)" % v["func"].get("name", "")
    if "g" in v:
        return "graph(%s)" % v["g"].get("name", "")
    if "bt" in v:
        return "bytes(%d)" % len(base64.b64decode(v["bt"]))
    return "?"


def ir_attrs(op):
    a = op.get("attr", {})
    return " ".join("%s=%s" % (k, fmt_attr(a[k])) for k in sorted(a) if not k.startswith("_"))


def layouts(descs):
    return ",".join(d.get("layout") or "-" for d in descs)


def summarize(model, air, headers):
    out = ["# " + h for h in headers]
    out.append("model %s version %s attrs %d" % (model.get("name", ""), model.get("version", 0),
                                                len(model.get("attr", {}))))
    out.append("air_bytes %d" % len(air))
    out.append("air_sha256 %s" % hashlib.sha256(air).hexdigest())
    graphs = model.get("graph", [])
    out.append("graphs %d" % len(graphs))
    for g in graphs:
        ops = g.get("op", [])
        data_e = ctrl_e = unfed = 0
        for o in ops:
            for s in o.get("input", []):
                if s == "":
                    unfed += 1
                elif s.endswith(":-1"):
                    ctrl_e += 1
                else:
                    data_e += 1
        out.append("graph %s ops=%d data_edges=%d control_edges=%d unfed_optional=%d "
                   "graph_inputs=%d" % (g.get("name", ""), len(ops), data_e, ctrl_e, unfed,
                                        len(g.get("input", []))))
        out.append("  graph_outputs [%s]" % ", ".join(g.get("output", [])))
        for t, n in sorted(collections.Counter(o.get("type", "") for o in ops).items()):
            out.append("  type %s %d" % (t, n))
        for o in sorted((o for o in ops if o.get("type") == "Data"),
                        key=lambda o: (int(o.get("attr", {}).get("index", {}).get("i", -1)),
                                       o.get("name", ""))):
            d = (o.get("outputDesc") or [{}])[0]
            out.append("  data %s index=%s dtype=%s shape=%s layout=%s" % (
                o.get("name"), o.get("attr", {}).get("index", {}).get("i", "?"),
                d.get("dtype", "DT_UNDEFINED"), shape_of(d), d.get("layout", "")))
        for o in sorted((o for o in ops if o.get("type") == "NetOutput"),
                        key=lambda o: o.get("name", "")):
            out.append("  netoutput %s inputs=[%s]" % (o.get("name"), ", ".join(o.get("input", []))))
        consts = [o for o in ops if o.get("type") == "Const"]
        by_dt = collections.Counter()
        n_dt = collections.Counter()
        for o in consts:
            t = o.get("attr", {}).get("value", {}).get("t", {})
            dt = t.get("desc", {}).get("dtype", "DT_UNDEFINED")
            by_dt[dt] += tensor_bytes(t)
            n_dt[dt] += 1
        out.append("  consts %d bytes=%d" % (len(consts), sum(by_dt.values())))
        for dt in sorted(n_dt):
            out.append("  const_dtype %s count=%d bytes=%d" % (dt, n_dt[dt], by_dt[dt]))
        for o in sorted((o for o in ops if o.get("subgraphName")), key=lambda o: o.get("name", "")):
            out.append("  subgraphs %s (%s) [%s]" % (o.get("name"), o.get("type"),
                                                    ", ".join(o["subgraphName"])))
        for o in sorted((o for o in ops if "_fusionop_original_type" in o.get("attr", {})),
                        key=lambda o: o.get("name", "")):
            a = o["attr"]
            orig = a.get("_datadump_original_op_names", {}).get("list", {}).get("s", [])
            out.append("  fused %s type=%s original_type=%s original_ops=%d inputs=[%s] %s" % (
                o.get("name"), o.get("type"), b64(a["_fusionop_original_type"].get("s", "")),
                len(orig), ", ".join(o.get("input", [])), ir_attrs(o)))
        combos = collections.Counter()
        lays = collections.Counter()
        for o in ops:
            t = o.get("type", "")
            if t not in ("Const", "Data", "NetOutput"):
                combos[(t, ir_attrs(o))] += 1
            lays[(t, layouts(o.get("inputDesc", [])), layouts(o.get("outputDesc", [])))] += 1
        for (t, a), n in sorted(combos.items()):
            out.append("  attrs %s x%d %s" % (t, n, a) if a else "  attrs %s x%d -" % (t, n))
        for (t, i, o), n in sorted(lays.items()):
            out.append("  layouts %s x%d in=[%s] out=[%s]" % (t, n, i, o))
    return out


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        model = json.load(f)
    with open(argv[1], "rb") as f:
        air = f.read()
    sys.stdout.write("\n".join(summarize(model, air, argv[2:])) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
