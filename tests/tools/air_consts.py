#!/usr/bin/env python3
"""air_consts: the constants of a GE IR .air file, for tests; python3 standard library only.

    air_consts.py FILE.air    prints JSON {"types": [op types], "consts": {op name: hex bytes}}

Decodes the protobuf wire format by the field numbers of ge_ir.proto (ModelDef.graph = 7,
GraphDef.op = 6, OpDef.name = 1 / type = 2 / attr = 10 (map entry key 1, value 2),
AttrDef.t = 12, TensorDef.data = 2); a Const/Constant op's `value` attribute gives its bytes.
Op names are prefixed with their graph's name (GraphDef.name = 1) and '/'."""
import json
import sys


def fields(buf):
    pos = 0
    while pos < len(buf):
        key, pos = varint(buf, pos)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, pos = varint(buf, pos)
        elif wt == 1:
            v, pos = buf[pos:pos + 8], pos + 8
        elif wt == 2:
            n, pos = varint(buf, pos)
            v, pos = buf[pos:pos + n], pos + n
        elif wt == 5:
            v, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, v


def varint(buf, pos):
    r = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        r |= (b & 0x7F) << shift
        if not b & 0x80:
            return r, pos
        shift += 7


def main():
    data = open(sys.argv[1], "rb").read()
    types, consts = set(), {}
    for num, g in fields(data):
        if num != 7:
            continue
        gname = ""
        ops = []
        for n2, v in fields(g):
            if n2 == 1:
                gname = v.decode()
            elif n2 == 6:
                ops.append(v)
        for op in ops:
            name = typ = ""
            value = None
            for n3, v in fields(op):
                if n3 == 1:
                    name = v.decode()
                elif n3 == 2:
                    typ = v.decode()
                elif n3 == 10:
                    key, val = "", b""
                    for n4, x in fields(v):
                        if n4 == 1:
                            key = x.decode()
                        elif n4 == 2:
                            val = x
                    if key == "value":
                        for n5, t in fields(val):
                            if n5 == 12:
                                value = b""
                                for n6, dd in fields(t):
                                    if n6 == 2:
                                        value = dd
            types.add(typ)
            if typ in ("Const", "Constant") and value is not None:
                consts[gname + "/" + name] = value.hex()
    json.dump({"types": sorted(types), "consts": consts}, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
