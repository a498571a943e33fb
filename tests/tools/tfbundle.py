#!/usr/bin/env python3
"""Independent reader of TensorFlow tensor bundles (checkpoint format V2), for tests.

Written from the format description (LevelDB table format; TensorFlow's tensor_bundle.proto
field numbers), sharing no code with tfxc; python3 standard library only.

    tfbundle.py PREFIX        prints JSON: {"shards": N, "tensors": [{"name", "dtype", "shape",
                              "data" (hex) | "strings" ([hex...]) | "slices"}]}
Exits 3 with a message on stderr when the bundle is damaged (any checksum, bound or layout).
"""
import json
import os
import struct
import sys

MAGIC = 0xDB4775248B80FB57
DTYPES = {1: ("float", 4), 2: ("double", 8), 3: ("int32", 4), 4: ("uint8", 1), 5: ("int16", 2),
          6: ("int8", 1), 7: ("string", 0), 8: ("complex64", 8), 9: ("int64", 8), 10: ("bool", 1),
          11: ("qint8", 1), 12: ("quint8", 1), 13: ("qint32", 4), 14: ("bfloat16", 2),
          15: ("qint16", 2), 16: ("quint16", 2), 17: ("uint16", 2), 18: ("complex128", 16),
          19: ("half", 2), 22: ("uint32", 4), 23: ("uint64", 8)}


class Bad(Exception):
    pass


def _crc_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


CRC_TABLE = _crc_table()


def crc32c(data, crc=0):
    c = crc ^ 0xFFFFFFFF
    for b in data:
        c = CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def mask(c):
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def uvarint(buf, pos):
    shift = result = 0
    while True:
        if pos >= len(buf):
            raise Bad("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise Bad("varint too long")


def proto_fields(buf):
    """Yields (field number, wire type, value) of a protobuf message."""
    pos = 0
    while pos < len(buf):
        key, pos = uvarint(buf, pos)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, pos = uvarint(buf, pos)
        elif wt == 1:
            v = buf[pos:pos + 8]
            pos += 8
        elif wt == 2:
            n, pos = uvarint(buf, pos)
            v = buf[pos:pos + n]
            pos += n
        elif wt == 5:
            v = buf[pos:pos + 4]
            pos += 4
        else:
            raise Bad("unsupported wire type %d" % wt)
        if pos > len(buf):
            raise Bad("truncated message")
        yield num, wt, v


def signed64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def unsnappy(buf):
    n, pos = uvarint(buf, 0)
    out = bytearray()
    while pos < len(buf):
        tag = buf[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            ln = (tag >> 2) + 1
            if ln > 60:
                extra = ln - 60
                ln = int.from_bytes(buf[pos:pos + extra], "little") + 1
                pos += extra
            out += buf[pos:pos + ln]
            pos += ln
            continue
        if kind == 1:
            ln = ((tag >> 2) & 7) + 4
            off = ((tag >> 5) << 8) | buf[pos]
            pos += 1
        elif kind == 2:
            ln = (tag >> 2) + 1
            off = int.from_bytes(buf[pos:pos + 2], "little")
            pos += 2
        else:
            ln = (tag >> 2) + 1
            off = int.from_bytes(buf[pos:pos + 4], "little")
            pos += 4
        if off == 0 or off > len(out):
            raise Bad("bad snappy offset")
        for _ in range(ln):
            out.append(out[-off])
    if len(out) != n:
        raise Bad("snappy length mismatch")
    return bytes(out)


def block(data, off, size):
    if off + size + 5 > len(data):
        raise Bad("block past end of index")
    raw = data[off:off + size]
    kind = data[off + size]
    stored = struct.unpack_from("<I", data, off + size + 1)[0]
    if mask(crc32c(raw + bytes([kind]))) != stored:
        raise Bad("block checksum mismatch")
    if kind == 1:
        return unsnappy(raw)
    if kind != 0:
        raise Bad("compression %d" % kind)
    return raw


def block_entries(b):
    nrest = struct.unpack_from("<I", b, len(b) - 4)[0]
    limit = len(b) - 4 - 4 * nrest
    pos, key = 0, b""
    while pos < limit:
        shared, pos = uvarint(b, pos)
        unshared, pos = uvarint(b, pos)
        vlen, pos = uvarint(b, pos)
        key = key[:shared] + b[pos:pos + unshared]
        pos += unshared
        yield key, b[pos:pos + vlen]
        pos += vlen


def table(data):
    if len(data) < 48:
        raise Bad("index too short")
    if struct.unpack_from("<Q", data, len(data) - 8)[0] != MAGIC:
        raise Bad("bad magic")
    pos = len(data) - 48
    _, pos = uvarint(data, pos)
    _, pos = uvarint(data, pos)
    ioff, pos = uvarint(data, pos)
    isize, pos = uvarint(data, pos)
    for _, handle in block_entries(block(data, ioff, isize)):
        off, p = uvarint(handle, 0)
        size, _ = uvarint(handle, p)
        for k, v in block_entries(block(data, off, size)):
            yield k, v


def parse_entry(v):
    e = {"dtype": 0, "shape": [], "shard": 0, "offset": 0, "size": 0, "crc": 0, "slices": 0}
    for num, wt, val in proto_fields(v):
        if num == 1:
            e["dtype"] = val
        elif num == 2:
            for n2, _, dim in proto_fields(val):
                if n2 == 2:
                    size = 0
                    for n3, _, x in proto_fields(dim):
                        if n3 == 1:
                            size = signed64(x)
                    e["shape"].append(size)
        elif num == 3:
            e["shard"] = val
        elif num == 4:
            e["offset"] = val
        elif num == 5:
            e["size"] = val
        elif num == 6:
            e["crc"] = struct.unpack("<I", val)[0]
        elif num == 7:
            e["slices"] += 1
    return e


def read(prefix):
    with open(prefix + ".index", "rb") as f:
        index = f.read()
    header, entries = None, []
    for k, v in table(index):
        if k == b"":
            header = {1: 1, 2: 0}
            for num, _, val in proto_fields(v):
                header[num] = val
        else:
            entries.append((k.decode("utf-8", "replace"), parse_entry(v)))
    if header is None:
        raise Bad("no header")
    shards = header[1]
    if header[2] != 0:
        raise Bad("big endian")
    files = []
    for i in range(shards):
        path = "%s.data-%05d-of-%05d" % (prefix, i, shards)
        with open(path, "rb") as f:
            files.append(f.read())
    out = []
    for name, e in entries:
        t = {"name": name, "dtype": DTYPES.get(e["dtype"], ("dtype%d" % e["dtype"], 0))[0],
             "shape": e["shape"]}
        if e["slices"]:
            t["slices"] = e["slices"]
            out.append(t)
            continue
        data = files[e["shard"]]
        if e["offset"] + e["size"] > len(data):
            raise Bad("tensor %s past end of shard %d" % (name, e["shard"]))
        raw = data[e["offset"]:e["offset"] + e["size"]]
        n = 1
        for d in e["shape"]:
            n *= d
        if e["dtype"] == 7:
            pos, lens, crc = 0, [], 0
            for _ in range(n):
                ln, pos = uvarint(raw, pos)
                lens.append(ln)
                crc = crc32c(struct.pack("<I" if ln < 1 << 32 else "<Q", ln), crc)
            stored = raw[pos:pos + 4]
            if struct.unpack("<I", stored)[0] != mask(crc):
                raise Bad("tensor %s: length checksum" % name)
            crc = crc32c(stored, crc)
            pos += 4
            strs = []
            for ln in lens:
                strs.append(raw[pos:pos + ln])
                pos += ln
            if pos != len(raw):
                raise Bad("tensor %s: string bytes do not add up" % name)
            crc = crc32c(raw[pos - sum(lens):pos], crc)
            if mask(crc) != e["crc"]:
                raise Bad("tensor %s: checksum" % name)
            t["strings"] = [s.hex() for s in strs]
        else:
            if mask(crc32c(raw)) != e["crc"]:
                raise Bad("tensor %s: checksum" % name)
            if len(raw) != n * DTYPES[e["dtype"]][1]:
                raise Bad("tensor %s: size" % name)
            t["data"] = raw.hex()
        out.append(t)
    return {"shards": shards, "tensors": out}


def main():
    try:
        res = read(sys.argv[1])
    except (Bad, OSError, IndexError, struct.error) as e:
        print("tfbundle: %s" % e, file=sys.stderr)
        return 3
    json.dump(res, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
