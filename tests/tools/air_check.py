#!/usr/bin/env python3
"""air_check: static checks of a GE IR .air file (a binary ge.proto.ModelDef) against the
checklist of docs/AIR.md, independent of tfxc's C code and of generated protobuf code.

Stage: tests (an oracle for src/ge). Input: an .air file. Output: one line per failure,
`air_check: FILE: CHECK: message`, exit 1; or exit 0 (with --verbose, one line per passed
check). The protobuf wire format is decoded here from the field numbers of ge_ir.proto
(docs/AIR.md section 2.1; no protoc, no generated code). Every check is named; `--list` prints them.

What is checked (docs/AIR.md section numbers in brackets) and what is not:
- the file is one binary ModelDef that decodes completely: valid tags, wire types, lengths,
  messages nested at most 100 deep (C++ protobuf's default recursion limit), proto3 strings in
  UTF-8 (C++ protobuf refuses others); text format is recognised and refused
  [1.1]; size at most INT_MAX bytes [1.2]; at least one graph [4.1]; graph names non-empty and unique
  [4.2]; node names non-empty and unique per graph [4.2]; op type non-empty [5.1 - registration
  itself cannot be checked statically];
- attrs everywhere (model, graph, op, tensor descriptor, named attrs, nested lists): a value is
  set and its kind is one GE registers (not `expression`) [6.3]; lists have val_type (except the
  raw _input/_output_name_* and _ir_* lists), a known one, and elements only in the matching
  field [6.3]; `dt` / `list.dt` values are C++ ge::DataType numbers 0..42 [6.4] - a range check
  only: most proto DataType numbers are also valid C++ numbers (proto DT_INT32=7 reads as C++
  DT_UINT16), so a proto number written by mistake is caught only when it is out of range;
- edges [5.3, 5.2]: each OpDef.input is "", "src:idx" or "src:-1" naming an op of the same
  graph, idx < the source's output_desc count; input_desc count == data input slots ("" counts);
- port names [6.1]: _input_name_key/_value and _output_name_key/_value present (when the op has
  descs), same length, values a permutation of the desc indices, keys matching desc names;
- Data [8.1, 8.2]: root-graph Data/RefData/AippData/ANN_Data have int `index`, unique, 0..n-1, and
  input_desc[0]/output_desc[0] with the same defined dtype and shape; outputs [9.1]: a NetOutput in
  the root graph or a non-empty GraphDef.output whose entries name existing outputs;
- Const [10.1, 10.2, 12.1]: attr `value` of kind t with a desc; data length == elements x dtype size
  (proto dtype sizes; DT_STRING skipped; a scalar holds one element or nothing; a shape with a
  0 holds nothing; sub-byte types rounded up to whole bytes; resource/variant/dual skipped);
  a Const with `location` (separated weights) must have empty data and an int `length`;
  output_desc[0] has value.desc's dtype and shape;
- tensor descriptors of ops and Const values [7.2, 7.1]: non-empty layout naming a GE format,
  an `origin_format` string attr, format_for_int (if present) agreeing with layout; unfed
  optional inputs ("") instead need dtype DT_UNDEFINED and the layout GE's serializer writes for
  FORMAT_RESERVED ("FORMAT_RESERVED"; "RESERVED" decodes the same; an empty layout also decodes
  to FORMAT_RESERVED but makes GE log "Format not support"); every descriptor's
  dtype (attrs included) is a proto DataType 0..40;
- subgraphs [11.1, 11.2]: subgraph_name entries name graphs in ModelDef.graph (not the root); Data in
  subgraphs carry int `index` and `_parent_node_index` (< the parent op's data inputs); subgraph
  NetOutput input descs carry int `_parent_node_index` (< the parent's output_desc count),
  except in a While's cond graph;
- no attr_groups field anywhere [4.1]; graph attr _graph_has_been_added not true [4.1].
Not checked: op types and attrs against the CANN IR, acyclicity, dtype/shape propagation, the
external weight files of separated Consts, DT_STRING tensor layout.

--json prints the decoded ModelDef in protobuf's JSON mapping (lowerCamelCase names, 64-bit
integers as strings, bytes base64, enums by name, maps as objects, defaults omitted), the same
mapping tfxc's --emit ge-json writes, so the two can be compared as parsed JSON.
"""

import base64
import json
import math
import struct
import sys

INT_MAX = 2**31 - 1

# ---------------------------------------------------------------- schema (docs/AIR.md §2.1)
# field number -> (name, kind, repeated). kind: int64 | uint32 | bool | enum:<E> | float |
# string | bytes | <Message> | map:<Message> (map<string, Message>)
R = True
SCHEMA = {
    'ModelDef': {1: ('name', 'string', 0), 2: ('version', 'uint32', 0),
                 3: ('custom_version', 'string', 0), 7: ('graph', 'GraphDef', R),
                 11: ('attr', 'map:AttrDef', R), 12: ('attr_groups', 'AttrGroups', 0)},
    'GraphDef': {1: ('name', 'string', 0), 4: ('input', 'string', R), 5: ('output', 'string', R),
                 6: ('op', 'OpDef', R), 11: ('attr', 'map:AttrDef', R),
                 12: ('attr_groups', 'AttrGroups', 0)},
    'OpDef': {1: ('name', 'string', 0), 2: ('type', 'string', 0), 5: ('input', 'string', R),
              10: ('attr', 'map:AttrDef', R), 11: ('attr_groups', 'AttrGroups', 0),
              20: ('has_out_attr', 'bool', 0), 21: ('id', 'int64', 0),
              22: ('stream_id', 'int64', 0), 23: ('input_name', 'string', R),
              24: ('src_name', 'string', R), 25: ('src_index', 'int64', R),
              26: ('dst_name', 'string', R), 27: ('dst_index', 'int64', R),
              28: ('input_i', 'int64', R), 29: ('output_i', 'int64', R),
              30: ('workspace', 'int64', R), 31: ('workspace_bytes', 'int64', R),
              32: ('is_input_const', 'bool', R), 33: ('input_desc', 'TensorDescriptor', R),
              34: ('output_desc', 'TensorDescriptor', R), 35: ('subgraph_name', 'string', R)},
    'TensorDescriptor': {1: ('name', 'string', 0), 2: ('dtype', 'enum:DataType', 0),
                         3: ('shape', 'ShapeDef', 0), 4: ('layout', 'string', 0),
                         5: ('attr', 'map:AttrDef', R), 6: ('attr_groups', 'AttrGroups', 0),
                         9: ('has_out_attr', 'bool', 0), 10: ('size', 'int64', 0),
                         11: ('weight_size', 'int64', 0), 12: ('reuse_input', 'bool', 0),
                         13: ('output_tensor', 'bool', 0), 14: ('device_type', 'string', 0),
                         15: ('input_tensor', 'bool', 0), 16: ('real_dim_cnt', 'int64', 0),
                         17: ('reuse_input_index', 'int64', 0), 18: ('data_offset', 'int64', 0),
                         19: ('cmps_size', 'int64', 0), 20: ('cmps_tab', 'string', 0),
                         21: ('cmps_tab_offset', 'int64', 0)},
    'TensorDef': {1: ('desc', 'TensorDescriptor', 0), 2: ('data', 'bytes', 0)},
    'ShapeDef': {1: ('dim', 'int64', R)},
    'AttrGroups': {1: ('data', 'bytes', 0)},
    'NamedAttrs': {1: ('name', 'string', 0), 2: ('attr', 'map:AttrDef', R)},
    'AttrDef': {1: ('list', 'ListValue', 0), 2: ('s', 'bytes', 0), 3: ('i', 'int64', 0),
                4: ('f', 'float', 0), 5: ('b', 'bool', 0), 7: ('bt', 'bytes', 0),
                10: ('func', 'NamedAttrs', 0), 11: ('td', 'TensorDescriptor', 0),
                12: ('t', 'TensorDef', 0), 13: ('g', 'GraphDef', 0),
                14: ('list_list_int', 'ListListInt', 0), 15: ('dt', 'int64', 0),
                16: ('list_list_float', 'ListListFloat', 0), 17: ('expression', 'bytes', 0)},
    'ListValue': {2: ('s', 'bytes', R), 3: ('i', 'int64', R), 4: ('f', 'float', R),
                  5: ('b', 'bool', R), 7: ('bt', 'bytes', R), 8: ('td', 'TensorDescriptor', R),
                  9: ('t', 'TensorDef', R), 10: ('g', 'GraphDef', R), 11: ('na', 'NamedAttrs', R),
                  12: ('dt', 'int64', R), 20: ('val_type', 'enum:ListValueType', 0)},
    'ListListInt': {1: ('list_list_i', 'ListInt', R)},
    'ListInt': {1: ('list_i', 'int64', R)},
    'ListListFloat': {1: ('list_list_f', 'ListFloat', R)},
    'ListFloat': {1: ('list_f', 'float', R)},
}
ONEOF = {'AttrDef': set(SCHEMA['AttrDef'])}  # every AttrDef field is in `oneof value`

DATA_TYPES = ['DT_UNDEFINED', 'DT_FLOAT', 'DT_FLOAT16', 'DT_INT8', 'DT_UINT8', 'DT_INT16',
              'DT_UINT16', 'DT_INT32', 'DT_INT64', 'DT_UINT32', 'DT_UINT64', 'DT_BOOL',
              'DT_DOUBLE', 'DT_STRING', 'DT_DUAL_SUB_INT8', 'DT_DUAL_SUB_UINT8', 'DT_COMPLEX64',
              'DT_COMPLEX128', 'DT_QINT8', 'DT_QINT16', 'DT_QINT32', 'DT_QUINT8', 'DT_QUINT16',
              'DT_RESOURCE', 'DT_STRING_REF', 'DT_DUAL', 'DT_VARIANT', 'DT_BF16', 'DT_INT4',
              'DT_UINT1', 'DT_INT2', 'DT_UINT2', 'DT_COMPLEX32', 'DT_HIFLOAT8', 'DT_FLOAT8_E5M2',
              'DT_FLOAT8_E4M3FN', 'DT_FLOAT8_E8M0', 'DT_FLOAT6_E3M2', 'DT_FLOAT6_E2M3',
              'DT_FLOAT4_E2M1', 'DT_FLOAT4_E1M2']
LIST_VALUE_TYPES = ['VT_LIST_NONE', 'VT_LIST_STRING', 'VT_LIST_INT', 'VT_LIST_FLOAT',
                    'VT_LIST_BOOL', 'VT_LIST_BYTES', 'VT_LIST_TENSOR_DESC', 'VT_LIST_TENSOR',
                    'VT_LIST_GRAPH', 'VT_LIST_NAMED_ATTRS', 'VT_LIST_DATA_TYPE']
ENUMS = {'DataType': DATA_TYPES, 'ListValueType': LIST_VALUE_TYPES}
# val_type -> the ListValue field that must hold the elements (docs/AIR.md §6.3)
VT_FIELD = {1: 's', 2: 'i', 3: 'f', 4: 'b', 5: 'bt', 6: 'td', 7: 't', 8: 'g', 9: 'na', 10: 'dt'}
CPP_DT_MAX = 42      # C++ ge::DataType: 0 FLOAT .. 42 HIFLOAT4 (docs/AIR.md §3.1)
PROTO_DT_MAX = 40    # proto DataType: 0 DT_UNDEFINED .. 40 DT_FLOAT4_E1M2
# bits per element of proto DataTypes (None: no fixed size, not size-checked)
DT_BITS = {1: 32, 2: 16, 3: 8, 4: 8, 5: 16, 6: 16, 7: 32, 8: 64, 9: 32, 10: 64, 11: 8, 12: 64,
           14: 8, 15: 8, 16: 64, 17: 128, 18: 8, 19: 16, 20: 32, 21: 8, 22: 16, 27: 16, 28: 4,
           29: 1, 30: 2, 31: 2, 32: 32, 33: 8, 34: 8, 35: 8, 36: 8, 39: 4, 40: 4}
DT_UNSIZED = {13, 23, 24, 25, 26, 37, 38}  # string, resource, string_ref, dual, variant, fp6
# C++ ge::Format serial names (TypeUtils kFormatToStringMap; docs/AIR.md §3.2)
FORMATS = {'NCHW': 0, 'NHWC': 1, 'ND': 2, 'NC1HWC0': 3, 'FRACTAL_Z': 4, 'NC1C0HWPAD': 5,
           'NHWC1C0': 6, 'FSR_NCHW': 7, 'FRACTAL_DECONV': 8, 'C1HWNC0': 9,
           'FRACTAL_DECONV_TRANSPOSE': 10, 'FRACTAL_DECONV_SP_STRIDE_TRANS': 11,
           'NC1HWC0_C04': 12, 'FRACTAL_Z_C04': 13, 'CHWN': 14, 'DECONV_SP_STRIDE8_TRANS': 15,
           'HWCN': 16, 'NC1KHKWHWC0': 17, 'BN_WEIGHT': 18, 'FILTER_HWCK': 19,
           'LOOKUP_LOOKUPS': 20, 'LOOKUP_KEYS': 21, 'LOOKUP_VALUE': 22, 'LOOKUP_OUTPUT': 23,
           'LOOKUP_HITS': 24, 'C1HWNCoC0': 25, 'MD': 26, 'NDHWC': 27, 'FRACTAL_ZZ': 28,
           'FRACTAL_NZ': 29, 'NCDHW': 30, 'DHWCN': 31, 'NDC1HWC0': 32, 'FRACTAL_Z_3D': 33,
           'CN': 34, 'NC': 35, 'DHWNC': 36, 'FRACTAL_Z_3D_TRANSPOSE': 37, 'FRACTAL_ZN_LSTM': 38,
           'FRACTAL_Z_G': 39, 'FORMAT_RESERVED': 40, 'RESERVED': 40, 'ALL': 41, 'NULL': 42,
           'ND_RNN_BIAS': 43, 'FRACTAL_ZN_RNN': 44, 'NYUV': 45, 'NYUV_A': 46, 'NCL': 47,
           'FRACTAL_Z_WINO': 48, 'C1HWC0': 49, 'FRACTAL_NZ_C0_16': 50, 'FRACTAL_NZ_C0_32': 51,
           'FRACTAL_NZ_C0_2': 52, 'FRACTAL_NZ_C0_4': 53, 'FRACTAL_NZ_C0_8': 54}
DATA_OPS = {'Data', 'RefData', 'AippData', 'ANN_Data'}
RAW_LISTS = {'_input_name_key', '_input_name_value', '_output_name_key', '_output_name_value',
             '_ir_attr_names', '_ir_inputs_key', '_ir_inputs_value', '_ir_outputs_key',
             '_ir_outputs_value', '_opt_input'}
# layouts GE's SerialStringToFormat maps to FORMAT_RESERVED without a warning
UNFED_LAYOUTS = ('FORMAT_RESERVED', 'RESERVED', 'UNDEFINED')

CHECKS = [
    ('decode', 'the file is one binary ge.proto.ModelDef that decodes completely [1.1]'),
    ('size', 'the file is at most INT_MAX (2^31-1) bytes [1.2]'),
    ('utf8', 'every string field is UTF-8 (C++ protobuf refuses proto3 strings that are not)'),
    ('graph-present', 'ModelDef.graph has at least one graph [4.1]'),
    ('graph-names', 'graph names are non-empty and unique [4.2]'),
    ('node-names', 'op names are non-empty and unique in each graph [4.2]'),
    ('op-type', 'every op has a type [5.1]'),
    ('attr-kind', 'every attr value is set, to a kind GE registers (not expression) [6.3]'),
    ('list-val-type', 'list attrs have a known val_type matching the filled field [6.3]'),
    ('dt-range', 'dt / list.dt values are C++ ge::DataType numbers 0..42 [6.4]'),
    ('edges', 'inputs are "", "src:idx" or "src:-1" naming an op of the same graph [5.3]'),
    ('output-port', 'an input\'s source index is below the source\'s output_desc count [5.3, 5.2]'),
    ('input-desc-count', 'input_desc count == data input slots, "" included; Data: no inputs '
     '[13, 15]'),
    ('port-names', '_input/_output_name_key/_value present and consistent with the descs [6.1]'),
    ('data-index', 'root Data nodes have int index, unique, 0..n-1 [8.1]'),
    ('data-desc', 'Data nodes have input_desc[0] and output_desc[0], same defined dtype/shape [8.2]'),
    ('outputs', 'the root graph has a NetOutput or a valid GraphDef.output [9.1]'),
    ('const-value', 'Const has a value tensor whose data size matches its shape [10.1, 10.2, 12.1]'),
    ('const-desc', 'Const output_desc[0] has value.desc\'s dtype and shape [10.1]'),
    ('desc-layout', 'tensor descriptors have a layout naming a GE format [7.1]'),
    ('desc-origin-format', 'tensor descriptors have an origin_format string attr [7.1]'),
    ('desc-format-for-int', 'format_for_int, when present, agrees with layout [7.1]'),
    ('desc-dtype', 'descriptor dtypes are proto DataType numbers 0..40 [7.1]'),
    ('unfed-optional', 'an unfed optional input ("") has dtype DT_UNDEFINED, layout FORMAT_RESERVED [7.2]'),
    ('subgraph-names', 'subgraph_name entries name non-root graphs of the model [11.1]'),
    ('subgraph-data', 'subgraph Data nodes have int index and _parent_node_index [11.2]'),
    ('subgraph-netoutput', 'subgraph NetOutput input descs have int _parent_node_index [11.2]'),
    ('attr-groups', 'no attr_groups field is written [4.1]'),
    ('graph-added', 'no graph has _graph_has_been_added set [4.1]'),
]
CHECK_NAMES = [c for c, _ in CHECKS]


# ---------------------------------------------------------------- wire decoding

class DecodeError(Exception):
    pass


class Msg(dict):
    """A decoded message: field name -> value (repeated: list; map: list of (key, value)).
    `oneof` holds the name of the last oneof member seen (AttrDef's value case)."""
    def __init__(self, typ):
        super().__init__()
        self.typ = typ
        self.oneof = None


def _varint(buf, pos, end):
    result = shift = 0
    while True:
        if pos >= end:
            raise DecodeError('truncated varint at byte %d' % pos)
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
        if shift >= 70:
            raise DecodeError('varint longer than 10 bytes at byte %d' % pos)
    return result & (2**64 - 1), pos


def _skip(buf, pos, end, wt, fieldno, depth):
    if wt == 0:
        return _varint(buf, pos, end)[1]
    if wt == 1:
        pos += 8
    elif wt == 5:
        pos += 4
    elif wt == 2:
        n, pos = _varint(buf, pos, end)
        pos += n
    elif wt == 3:
        if depth > 100:
            raise DecodeError('groups nested too deeply')
        while True:
            key, pos = _varint(buf, pos, end)
            if key & 7 == 4:
                if key >> 3 != fieldno:
                    raise DecodeError('mismatched end-group tag at byte %d' % pos)
                return pos
            pos = _skip(buf, pos, end, key & 7, key >> 3, depth + 1)
    else:
        raise DecodeError('invalid wire type %d at byte %d' % (wt, pos))
    if pos > end:
        raise DecodeError('field %d runs past the end of its message' % fieldno)
    return pos


def _signed64(v):
    return v - 2**64 if v >= 2**63 else v


def _scalar(kind, v):
    if kind == 'int64':
        return _signed64(v)
    if kind == 'uint32':
        return v & 0xFFFFFFFF
    if kind == 'bool':
        return v != 0
    if kind.startswith('enum:'):
        v &= 0xFFFFFFFF
        return v - 2**32 if v >= 2**31 else v
    raise AssertionError(kind)


class Decoder:
    def __init__(self):
        self.bad_utf8 = []   # (path, field) of string fields that are not UTF-8

    def message(self, typ, buf, pos, end, path, depth=0):
        if depth > 100:
            raise DecodeError('%s: messages nested more than 100 deep (protobuf\'s default '
                              'recursion limit)' % path)
        schema = SCHEMA[typ]
        m = Msg(typ)
        pending = {}  # singular message fields: list of byte ranges (merged like protobuf)
        while pos < end:
            key, pos = _varint(buf, pos, end)
            fno, wt = key >> 3, key & 7
            if fno == 0:
                raise DecodeError('%s: field number 0 at byte %d' % (path, pos))
            if wt == 4:
                raise DecodeError('%s: unexpected end-group tag at byte %d' % (path, pos))
            f = schema.get(fno)
            if f is None:
                pos = _skip(buf, pos, end, wt, fno, 0)
                continue
            name, kind, rep = f
            scalar_varint = kind in ('int64', 'uint32', 'bool') or kind.startswith('enum:')
            if kind == 'float':
                if wt == 5:
                    if pos + 4 > end:
                        raise DecodeError('%s.%s: truncated float' % (path, name))
                    v = struct.unpack_from('<f', buf, pos)[0]
                    pos += 4
                    vals = [v]
                elif wt == 2 and rep:
                    n, pos = _varint(buf, pos, end)
                    if pos + n > end or n % 4:
                        raise DecodeError('%s.%s: bad packed float length' % (path, name))
                    vals = list(struct.unpack_from('<%df' % (n // 4), buf, pos))
                    pos += n
                else:
                    raise DecodeError('%s.%s: wire type %d, expected 5 (float)' % (path, name, wt))
            elif scalar_varint:
                if wt == 0:
                    v, pos = _varint(buf, pos, end)
                    vals = [_scalar(kind, v)]
                elif wt == 2 and rep:
                    n, pos = _varint(buf, pos, end)
                    stop = pos + n
                    if stop > end:
                        raise DecodeError('%s.%s: packed field runs past the end' % (path, name))
                    vals = []
                    while pos < stop:
                        v, pos = _varint(buf, pos, stop)
                        vals.append(_scalar(kind, v))
                else:
                    raise DecodeError('%s.%s: wire type %d, expected 0 (varint)' % (path, name, wt))
            else:
                if wt != 2:
                    raise DecodeError('%s.%s: wire type %d, expected 2 (length-delimited)'
                                      % (path, name, wt))
                n, pos = _varint(buf, pos, end)
                if pos + n > end:
                    raise DecodeError('%s.%s: length %d runs past the end of the message at '
                                      'byte %d' % (path, name, n, pos))
                start, pos = pos, pos + n
                if kind == 'bytes':
                    vals = [bytes(buf[start:pos])]
                elif kind == 'string':
                    raw = bytes(buf[start:pos])
                    try:
                        vals = [raw.decode('utf-8')]
                    except UnicodeDecodeError:
                        self.bad_utf8.append('%s.%s' % (path, name))
                        vals = [raw.decode('utf-8', 'surrogateescape')]
                elif kind.startswith('map:'):
                    vals = [self.map_entry(kind[4:], buf, start, pos, '%s.%s' % (path, name), depth)]
                elif rep:
                    idx = len(m.get(name, []))
                    vals = [self.message(kind, buf, start, pos, '%s.%s[%d]' % (path, name, idx),
                                         depth + 1)]
                else:
                    pending.setdefault(name, []).append((start, pos))
                    if typ in ONEOF and fno in ONEOF[typ]:
                        m.oneof = name
                    continue
            if rep:
                m.setdefault(name, []).extend(vals)
            else:
                m[name] = vals[-1]
                if typ in ONEOF and fno in ONEOF[typ]:
                    if m.oneof and m.oneof != name:
                        m.pop(m.oneof, None)
                        pending.pop(m.oneof, None)
                    m.oneof = name
        for name, ranges in pending.items():
            kind = next(k for (n, k, _) in schema.values() if n == name)
            if typ in ONEOF and m.oneof != name:
                continue
            data = b''.join(bytes(buf[s:e]) for s, e in ranges)
            m[name] = self.message(kind, data, 0, len(data), '%s.%s' % (path, name), depth + 1)
        if typ in ONEOF and m.oneof:
            for n, _, _ in schema.values():
                if n != m.oneof:
                    m.pop(n, None)
        return m

    def map_entry(self, vtyp, buf, pos, end, path, depth):
        key, val = '', None
        while pos < end:
            k, pos = _varint(buf, pos, end)
            fno, wt = k >> 3, k & 7
            if fno in (1, 2) and wt == 2:
                n, pos = _varint(buf, pos, end)
                if pos + n > end:
                    raise DecodeError('%s: map entry runs past its end' % path)
                if fno == 1:
                    raw = bytes(buf[pos:pos + n])
                    try:
                        key = raw.decode('utf-8')
                    except UnicodeDecodeError:
                        self.bad_utf8.append('%s key' % path)
                        key = raw.decode('utf-8', 'surrogateescape')
                else:
                    val = self.message(vtyp, buf, pos, pos + n, '%s[%r]' % (path, key), depth + 1)
                pos += n
            elif fno in (1, 2):
                raise DecodeError('%s: map entry field %d has wire type %d' % (path, fno, wt))
            else:
                pos = _skip(buf, pos, end, wt, fno, 0)
        return (key, val if val is not None else Msg(vtyp))


def decode_model(data):
    d = Decoder()
    return d.message('ModelDef', memoryview(data), 0, len(data), 'ModelDef'), d


def looks_like_text(data):
    head = data[:4096]
    if not head:
        return False
    if any(b < 0x20 and b not in (9, 10, 11, 12, 13) for b in head):
        return False
    s = head.lstrip()
    return s[:1].isalpha() or s[:1] == b'#'


# ---------------------------------------------------------------- JSON (protobuf mapping)

def _camel(name):
    parts = name.split('_')
    return parts[0] + ''.join(p[:1].upper() + p[1:] for p in parts[1:])


def _float_json(v):
    if math.isnan(v):
        return 'NaN'
    if math.isinf(v):
        return 'Infinity' if v > 0 else '-Infinity'
    f32 = struct.unpack('<f', struct.pack('<f', v))[0]
    for prec in (6, 9):
        s = '%.*g' % (prec, v)
        if struct.unpack('<f', struct.pack('<f', float(s)))[0] == f32:
            return float(s)
    return v


def _scalar_json(kind, v):
    if kind == 'int64':
        return str(v)
    if kind == 'float':
        return _float_json(v)
    if kind == 'bytes':
        return base64.b64encode(v).decode('ascii')
    if kind.startswith('enum:'):
        names = ENUMS[kind[5:]]
        return names[v] if 0 <= v < len(names) else v
    return v  # uint32, bool, string


def _is_default(kind, v):
    if kind in SCHEMA:
        return False
    return v in (0, False, '', b'') and not (kind == 'float' and math.copysign(1, v) < 0)


def to_json(m):
    out = {}
    for fno in sorted(SCHEMA[m.typ]):
        name, kind, rep = SCHEMA[m.typ][fno]
        if name not in m:
            continue
        v = m[name]
        if kind.startswith('map:'):
            if v:
                obj = {}
                for k, val in v:
                    obj[k] = to_json(val)  # last duplicate wins
                out[_camel(name)] = {k: obj[k] for k in sorted(obj, key=lambda s: s.encode('utf-8', 'surrogateescape'))}
        elif rep:
            if v:
                out[_camel(name)] = [to_json(x) if kind in SCHEMA else _scalar_json(kind, x) for x in v]
        elif kind in SCHEMA:
            out[_camel(name)] = to_json(v)
        elif m.oneof == name or not _is_default(kind, v):
            out[_camel(name)] = _scalar_json(kind, v)
    return out


# ---------------------------------------------------------------- checks

def attrs(m):
    """The attr map of a message as a dict (last duplicate key wins, as protobuf parses)."""
    return dict(m.get('attr', []))


def attr_int(a, key):
    v = a.get(key)
    return v['i'] if v is not None and v.oneof == 'i' else None


def parse_input(s):
    """GE's ParseNodeIndex: split at the last ':'. Returns (src, idx) or (None, None) when the
    entry has no ':' (a slot kept free), or (src, 'bad') when idx is not an integer."""
    if ':' not in s:
        return None, None
    src, _, idx = s.rpartition(':')
    try:
        if idx.strip() != idx or not idx:
            raise ValueError
        return src, int(idx)
    except ValueError:
        return src, 'bad'


def shape_of(desc):
    return list(desc.get('shape', {}).get('dim', [])) if desc is not None else None


class Checker:
    def __init__(self, fname, max_per_check):
        self.fname = fname
        self.failures = {c: [] for c in CHECK_NAMES}
        self.max_per_check = max_per_check
        self.skipped = set()  # checks that could not run (the file did not decode)

    def fail(self, check, msg):
        assert check in self.failures, check
        self.failures[check].append(msg)

    def run(self, f):
        """Checks the open binary file f. A file over the size limit is not read at all."""
        size = f.seek(0, 2)
        f.seek(0)
        if size > INT_MAX:
            self.fail('size', 'the file is %d bytes; C++ protobuf and GE read at most %d'
                      % (size, INT_MAX))
            self.skipped = set(CHECK_NAMES) - {'size'}
            return None
        data = f.read()
        try:
            model, dec = decode_model(data)
        except DecodeError as e:
            if looks_like_text(data):
                self.fail('decode', 'this looks like protobuf text format; ATC reads only a '
                          'binary ModelDef (write it with --emit air, or protoc '
                          '--encode=ge.proto.ModelDef)')
            else:
                self.fail('decode', 'not a binary ge.proto.ModelDef: %s' % e)
            self.skipped = set(CHECK_NAMES) - {'size', 'decode'}
            return None
        for p in dec.bad_utf8:
            self.fail('utf8', '%s is not valid UTF-8' % p)
        self.check_model(model)
        return model

    # -- walkers

    def each_attr(self, m, where, fn):
        """Calls fn(where, key, attrdef) for every attr in m and in everything nested in it."""
        if m.typ in ('ModelDef', 'GraphDef', 'OpDef', 'TensorDescriptor', 'NamedAttrs'):
            for k, a in m.get('attr', []):
                fn(where, k, a)
                self.each_attr(a, '%s attr %r' % (where, k), fn)
        if m.typ == 'ModelDef':
            for g in m.get('graph', []):
                self.each_attr(g, 'graph %r' % g.get('name', ''), fn)
        elif m.typ == 'GraphDef':
            for op in m.get('op', []):
                self.each_attr(op, '%s op %r' % (where, op.get('name', '')), fn)
        elif m.typ == 'OpDef':
            for side in ('input_desc', 'output_desc'):
                for i, d in enumerate(m.get(side, [])):
                    self.each_attr(d, '%s %s[%d]' % (where, side, i), fn)
        elif m.typ == 'AttrDef':
            case = m.oneof
            if case in ('func', 'td', 't', 'g'):
                self.each_attr(m[case], where, fn)
            elif case == 'list':
                lv = m['list']
                for fld in ('td', 't', 'g', 'na'):
                    for i, x in enumerate(lv.get(fld, [])):
                        self.each_attr(x, '%s list.%s[%d]' % (where, fld, i), fn)
        elif m.typ == 'TensorDef':
            if 'desc' in m:
                self.each_attr(m['desc'], where + ' desc', fn)

    def each_desc(self, m, where, fn):
        """Calls fn(where, desc) for every TensorDescriptor anywhere in m."""
        if m.typ == 'TensorDescriptor':
            fn(where, m)
        for fno, (name, kind, rep) in SCHEMA[m.typ].items():
            if kind not in SCHEMA and not kind.startswith('map:') or name not in m:
                continue
            if kind.startswith('map:'):
                for k, v in m[name]:
                    self.each_desc(v, '%s attr %r' % (where, k), fn)
            elif rep:
                for i, x in enumerate(m[name]):
                    self.each_desc(x, '%s %s[%d]' % (where, name, i), fn)
            else:
                self.each_desc(m[name], '%s %s' % (where, name), fn)

    def each_msg(self, m, where, fn):
        fn(where, m)
        for fno, (name, kind, rep) in SCHEMA[m.typ].items():
            if name not in m or (kind not in SCHEMA and not kind.startswith('map:')):
                continue
            if kind.startswith('map:'):
                for k, v in m[name]:
                    self.each_msg(v, '%s attr %r' % (where, k), fn)
            elif rep:
                for i, x in enumerate(m[name]):
                    self.each_msg(x, '%s.%s[%d]' % (where, name, i), fn)
            else:
                self.each_msg(m[name], '%s.%s' % (where, name), fn)

    # -- the checks

    def check_attr(self, where, key, a):
        at = '%s attr %r' % (where, key)
        case = a.oneof
        if case is None:
            self.fail('attr-kind', '%s: no value set (GE has no deserializer for an empty '
                      'AttrDef)' % at)
            return
        if case == 'expression':
            self.fail('attr-kind', '%s: value is `expression` (field 17), which GE\'s attr '
                      'loader does not register: the op fails to load' % at)
            return
        if case == 'dt' and not 0 <= a['dt'] <= CPP_DT_MAX:
            self.fail('dt-range', '%s: dt %d is not a C++ ge::DataType (0..%d)'
                      % (at, a['dt'], CPP_DT_MAX))
        if case != 'list':
            return
        lv = a['list']
        vt = lv.get('val_type', 0)
        filled = [f for f in VT_FIELD.values() if lv.get(f)]
        for v in lv.get('dt', []):
            if not 0 <= v <= CPP_DT_MAX:
                self.fail('dt-range', '%s: list.dt value %d is not a C++ ge::DataType (0..%d)'
                          % (at, v, CPP_DT_MAX))
        if vt == 0:
            if key not in RAW_LISTS:
                self.fail('list-val-type', '%s: list without val_type (VT_LIST_NONE): GE drops '
                          'the attr silently%s' % (at, ' (elements in %s)' % ', '.join(filled)
                                                   if filled else ''))
            elif len(filled) > 1:
                self.fail('list-val-type', '%s: elements in several fields: %s'
                          % (at, ', '.join(filled)))
            return
        if vt not in VT_FIELD:
            self.fail('list-val-type', '%s: unknown val_type %d: GE cannot load the list'
                      % (at, vt))
            return
        want = VT_FIELD[vt]
        wrong = [f for f in filled if f != want]
        if wrong:
            self.fail('list-val-type', '%s: val_type %s but elements in %s (expected only %s)'
                      % (at, LIST_VALUE_TYPES[vt], ', '.join(wrong), want))

    def check_model(self, model):
        for where, m in self._all_msgs(model):
            if 'attr_groups' in m:
                self.fail('attr-groups', '%s: attr_groups is set; older GE builds do not know '
                          'it (never write it)' % where)
        graphs = model.get('graph', [])
        if not graphs:
            self.fail('graph-present', 'ModelDef.graph is empty: GE needs graph[0] as the root '
                      'graph')
        self.each_attr(model, 'model', self.check_attr)
        self.each_desc(model, 'model', self.check_desc_dtype)
        names = {}
        for gi, g in enumerate(graphs):
            gname = g.get('name', '')
            if not gname:
                self.fail('graph-names', 'graph %d has no name' % gi)
            elif gname in names:
                self.fail('graph-names', 'graph %d: name %r already used by graph %d'
                          % (gi, gname, names[gname]))
            else:
                names[gname] = gi
            added = attrs(g).get('_graph_has_been_added')
            if added is not None and added.oneof == 'b' and added['b']:
                self.fail('graph-added', 'graph %r: _graph_has_been_added is true; GE rejects '
                          'the graph as already added' % gname)
        parents = {}  # subgraph name -> (graph, op) of the op naming it
        for g in graphs:
            for op in g.get('op', []):
                for sn in op.get('subgraph_name', []):
                    parents.setdefault(sn, (g, op))
        for gi, g in enumerate(graphs):
            self.check_graph(g, gi, graphs, names, parents)

    def _all_msgs(self, model):
        acc = []
        self.each_msg(model, 'ModelDef', lambda w, m: acc.append((w, m)))
        return acc

    def check_desc_dtype(self, where, d):
        dt = d.get('dtype', 0)
        if not 0 <= dt <= PROTO_DT_MAX:
            self.fail('desc-dtype', '%s: dtype %d is not a ge.proto.DataType (0..%d)'
                      % (where, dt, PROTO_DT_MAX))

    def check_graph(self, g, gi, graphs, graph_names, parents):
        gname = g.get('name', '')
        gw = 'graph %r' % gname
        ops = g.get('op', [])
        by_name = {}
        for op in ops:
            n = op.get('name', '')
            if not n:
                self.fail('node-names', '%s: an op has no name' % gw)
            elif n in by_name:
                self.fail('node-names', '%s: op name %r is used twice (edges to it are '
                          'ambiguous)' % (gw, n))
            else:
                by_name[n] = op
        for op in ops:
            self.check_op(op, gw, by_name, gi, graphs, graph_names, parents, gname)
        if gi == 0:
            self.check_root(g, gw, ops, by_name)

    def check_op(self, op, gw, by_name, gi, graphs, graph_names, parents, gname):
        name = op.get('name', '')
        typ = op.get('type', '')
        ow = '%s op %r (%s)' % (gw, name, typ or 'no type')
        a = attrs(op)
        if not typ:
            self.fail('op-type', '%s: no type' % ow)
        ins = op.get('input', [])
        in_desc = op.get('input_desc', [])
        out_desc = op.get('output_desc', [])
        slots = 0
        unfed = []  # slot indices fed by ""
        for s in ins:
            src, idx = parse_input(s)
            if src is None:
                if s != '':
                    self.fail('edges', '%s: input %r has no ":index"; GE drops it but it still '
                              'takes a slot' % (ow, s))
                else:
                    unfed.append(slots)
                slots += 1
                continue
            if idx == 'bad':
                self.fail('edges', '%s: input %r: the index after the last ":" is not an '
                          'integer' % (ow, s))
                slots += 1
                continue
            if idx < -1:
                self.fail('edges', '%s: input %r: index %d (only -1 marks a control edge)'
                          % (ow, s, idx))
                continue
            srcop = by_name.get(src)
            if srcop is None:
                self.fail('edges', '%s: input %r names no op of this graph (edges cannot cross '
                          'graphs)' % (ow, s))
            elif idx >= 0 and idx >= len(srcop.get('output_desc', [])):
                self.fail('output-port', '%s: input %r: %r has only %d output_desc'
                          % (ow, s, src, len(srcop.get('output_desc', []))))
            if idx >= 0:
                slots += 1
        if typ in DATA_OPS:
            if slots:  # a graph input has one unconnected input anchor (its desc `x`)
                self.fail('input-desc-count', '%s: a graph input with %d data input(s)'
                          % (ow, slots))
        elif len(in_desc) != slots:
            self.fail('input-desc-count', '%s: %d input_desc for %d data input slot(s); GE '
                      'makes one input anchor per input_desc' % (ow, len(in_desc), slots))
        self.check_port_names(ow, a, 'input', in_desc, typ)
        self.check_port_names(ow, a, 'output', out_desc, typ)

        for side, descs in (('input_desc', in_desc), ('output_desc', out_desc)):
            for i, d in enumerate(descs):
                dw = '%s %s[%d]' % (ow, side, i)
                if side == 'input_desc' and i in unfed:
                    lay = d.get('layout', '')
                    if d.get('dtype', 0) != 0 or lay not in UNFED_LAYOUTS:
                        self.fail('unfed-optional', '%s: the input is "" (unfed optional) but '
                                  'its desc has dtype %s, layout %r; GE treats it as present '
                                  'unless dtype is DT_UNDEFINED and the format FORMAT_RESERVED '
                                  '(layout "FORMAT_RESERVED", as GE writes it; an empty layout '
                                  'makes GE log "Format not support")'
                                  % (dw, _dtname(d.get('dtype', 0)), lay))
                    continue
                self.check_desc_format(dw, d)

        if typ in DATA_OPS:
            self.check_data_desc(ow, in_desc, out_desc)
        if typ == 'Const':
            self.check_const(ow, a, out_desc)
        for sn in op.get('subgraph_name', []):
            sj = graph_names.get(sn)
            if sj is None:
                self.fail('subgraph-names', '%s: subgraph %r is not a graph of the model '
                          '("Subgraph not found")' % (ow, sn))
            elif sj == 0:
                self.fail('subgraph-names', '%s: subgraph %r is the root graph' % (ow, sn))
            elif sj == gi:
                self.fail('subgraph-names', '%s: subgraph %r is the op\'s own graph' % (ow, sn))
        if gi > 0:
            parent = parents.get(gname)
            pin = pout = None
            if parent is not None:
                pop = parent[1]
                pin = sum(1 for s in pop.get('input', [])
                          if parse_input(s)[1] is None or parse_input(s)[1] == 'bad'
                          or parse_input(s)[1] >= 0)
                pout = len(pop.get('output_desc', []))
            if typ in DATA_OPS:
                if attr_int(a, 'index') is None:
                    self.fail('subgraph-data', '%s: subgraph Data without an int `index`' % ow)
                pni = attr_int(a, '_parent_node_index')
                if pni is None:
                    self.fail('subgraph-data', '%s: subgraph Data without an int '
                              '`_parent_node_index` (the parent op\'s input index)' % ow)
                elif pin is not None and not 0 <= pni < pin:
                    self.fail('subgraph-data', '%s: _parent_node_index %d, but the parent op '
                              '%r has %d data input(s)' % (ow, pni, parent[1].get('name', ''),
                                                            pin))
            # a While's cond graph (its first subgraph, IR order cond, body) returns the loop
            # condition, which is no output of the While: GE's ParseSubgraphPostFnWhile maps it
            # to no parent output, so its NetOutput carries no _parent_node_index
            is_cond = (parent is not None and
                       parent[1].get('type') in ('While', 'StatelessWhile', '_While') and
                       (parent[1].get('subgraph_name') or [None])[0] == gname)
            if typ == 'NetOutput' and not is_cond:
                for i, d in enumerate(in_desc):
                    pni = attr_int(attrs(d), '_parent_node_index')
                    if pni is None:
                        self.fail('subgraph-netoutput', '%s input_desc[%d]: no int '
                                  '`_parent_node_index` (the parent op\'s output index)' % (ow, i))
                    elif pout is not None and not 0 <= pni < pout:
                        self.fail('subgraph-netoutput', '%s input_desc[%d]: _parent_node_index '
                                  '%d, but the parent op %r has %d output_desc'
                                  % (ow, i, pni, parent[1].get('name', ''), pout))

    def check_port_names(self, ow, a, side, descs, typ):
        kname, vname = '_%s_name_key' % side, '_%s_name_value' % side
        ka, va = a.get(kname), a.get(vname)
        if not descs and ka is None and va is None:
            return
        if ka is None or va is None:
            missing = ' and '.join(n for n, x in ((kname, ka), (vname, va)) if x is None)
            self.fail('port-names', '%s: %d %s_desc but no %s (GE finds no port by name)'
                      % (ow, len(descs), side, missing))
            return
        if ka.oneof != 'list' or va.oneof != 'list':
            self.fail('port-names', '%s: %s and %s must be lists' % (ow, kname, vname))
            return
        keys = [k.decode('utf-8', 'replace') for k in ka['list'].get('s', [])]
        vals = list(va['list'].get('i', []))
        if not descs and (keys or vals):
            self.fail('port-names', '%s: %s/%s list ports but the op has no %s_desc'
                      % (ow, kname, vname, side))
            return
        if len(keys) != len(vals):
            self.fail('port-names', '%s: %s has %d names but %s %d indices'
                      % (ow, kname, len(keys), vname, len(vals)))
            return
        if sorted(vals) != list(range(len(descs))):
            self.fail('port-names', '%s: %s is %s; expected each of 0..%d once (one name per '
                      '%s_desc)' % (ow, vname, vals, len(descs) - 1, side))
            return
        if len(set(keys)) != len(keys):
            self.fail('port-names', '%s: %s repeats a name: %s' % (ow, kname, keys))
        if typ == 'NetOutput':
            return  # GE ignores NetOutput port names
        for k, v in zip(keys, vals):
            dn = descs[v].get('name', '')
            if dn and dn != k:
                self.fail('port-names', '%s: %s maps %r to %s_desc[%d], which is named %r'
                          % (ow, kname, k, side, v, dn))

    def check_desc_format(self, dw, d):
        layout = d.get('layout', '')
        if not layout:
            self.fail('desc-layout', '%s: empty layout (GE reads it as FORMAT_RESERVED)' % dw)
        elif layout.split(':')[0] not in FORMATS:
            self.fail('desc-layout', '%s: layout %r is not a GE format name (GE reads it as '
                      'FORMAT_RESERVED)' % (dw, layout))
        da = attrs(d)
        of = da.get('origin_format')
        if of is None:
            self.fail('desc-origin-format', '%s: no origin_format attr (GE assumes ND)' % dw)
        elif of.oneof != 's' or not of['s']:
            self.fail('desc-origin-format', '%s: origin_format must be a non-empty string attr'
                      % dw)
        ffi = attr_int(da, 'format_for_int')
        if ffi is not None and layout.split(':')[0] in FORMATS and \
                ffi & 0xFF != FORMATS[layout.split(':')[0]]:
            self.fail('desc-format-for-int', '%s: format_for_int %d (primary format %d) '
                      'disagrees with layout %r (%d); GE uses format_for_int'
                      % (dw, ffi, ffi & 0xFF, layout, FORMATS[layout.split(':')[0]]))

    def check_data_desc(self, ow, in_desc, out_desc):
        if not in_desc or not out_desc:
            self.fail('data-desc', '%s: needs input_desc[0] and output_desc[0] (ATC reads the '
                      'input dtype and shape from input_desc[0])' % ow)
            return
        i, o = in_desc[0], out_desc[0]
        if i.get('dtype', 0) == 0:
            self.fail('data-desc', '%s: input_desc[0] dtype is DT_UNDEFINED' % ow)
        if i.get('dtype', 0) != o.get('dtype', 0) or shape_of(i) != shape_of(o):
            self.fail('data-desc', '%s: input_desc[0] (%s %s) and output_desc[0] (%s %s) differ'
                      % (ow, _dtname(i.get('dtype', 0)), shape_of(i),
                         _dtname(o.get('dtype', 0)), shape_of(o)))

    def check_const(self, ow, a, out_desc):
        v = a.get('value')
        if v is None or v.oneof != 't':
            self.fail('const-value', '%s: no `value` attr of kind t (TensorDef)' % ow)
            return
        t = v['t']
        desc = t.get('desc')
        if desc is None:
            self.fail('const-value', '%s: value has no desc' % ow)
            return
        self.check_desc_format(ow + ' value.desc', desc)
        data = t.get('data', b'')
        dt = desc.get('dtype', 0)
        dims = shape_of(desc)
        loc = a.get('location')
        if loc is not None:
            if data:
                self.fail('const-value', '%s: separated weights (`location`) but value.data is '
                          'not empty' % ow)
            if attr_int(a, 'length') is None or attr_int(a, 'length') <= 0:
                self.fail('const-value', '%s: separated weights (`location`) need an int '
                          '`length` > 0' % ow)
        elif dt in DT_UNSIZED:
            pass  # strings and opaque types: GE does not size-check them
        elif dt not in DT_BITS:
            self.fail('const-value', '%s: value dtype %s has no element size' % (ow, _dtname(dt)))
        elif any(d < 0 for d in dims):
            self.fail('const-value', '%s: value shape %s has an unknown dimension' % (ow, dims))
        elif not dims:
            want = (DT_BITS[dt] + 7) // 8
            if len(data) not in (0, want):
                self.fail('const-value', '%s: scalar %s holds %d bytes; expected %d (one '
                          'element) or 0' % (ow, _dtname(dt), len(data), want))
        elif 0 in dims:
            if data:
                self.fail('const-value', '%s: shape %s has no elements but data is %d bytes'
                          % (ow, dims, len(data)))
        else:
            n = 1
            for d in dims:
                n *= d
            want = (n * DT_BITS[dt] + 7) // 8
            if len(data) != want:
                self.fail('const-value', '%s: data is %d bytes; shape %s of %s needs %d (GE: '
                          '"data size not equal to tensor size")'
                          % (ow, len(data), dims, _dtname(dt), want))
        if not out_desc:
            self.fail('const-desc', '%s: no output_desc' % ow)
        elif out_desc[0].get('dtype', 0) != dt or shape_of(out_desc[0]) != dims:
            self.fail('const-desc', '%s: output_desc[0] is %s %s but value.desc is %s %s'
                      % (ow, _dtname(out_desc[0].get('dtype', 0)), shape_of(out_desc[0]),
                         _dtname(dt), dims))

    def check_root(self, g, gw, ops, by_name):
        data = [op for op in ops if op.get('type', '') in DATA_OPS]
        seen = {}
        for op in data:
            ow = '%s op %r (%s)' % (gw, op.get('name', ''), op.get('type', ''))
            idx = attr_int(attrs(op), 'index')
            if idx is None:
                self.fail('data-index', '%s: no int `index` attr' % ow)
            elif not 0 <= idx < len(data):
                self.fail('data-index', '%s: index %d is outside 0..%d (%d graph inputs)'
                          % (ow, idx, len(data) - 1, len(data)))
            elif idx in seen:
                self.fail('data-index', '%s: index %d already used by %r'
                          % (ow, idx, seen[idx]))
            else:
                seen[idx] = op.get('name', '')
        outs = g.get('output', [])
        has_netoutput = any(op.get('type', '') == 'NetOutput' for op in ops)
        if not has_netoutput and not outs:
            self.fail('outputs', '%s: no NetOutput op and no GraphDef.output: the model would '
                      'have no outputs' % gw)
        for s in outs:
            src, idx = parse_input(s)
            if src is None or idx == 'bad' or idx < 0:
                self.fail('outputs', '%s: GraphDef.output %r is not "node:index"' % (gw, s))
            elif src not in by_name:
                self.fail('outputs', '%s: GraphDef.output %r names no op of the graph' % (gw, s))
            elif idx >= len(by_name[src].get('output_desc', [])):
                self.fail('outputs', '%s: GraphDef.output %r: %r has only %d output_desc'
                          % (gw, s, src, len(by_name[src].get('output_desc', []))))

    def report(self, verbose, out):
        nfail = 0
        for check, desc in CHECKS:
            msgs = self.failures[check]
            if msgs:
                nfail += 1
                shown = msgs if self.max_per_check <= 0 else msgs[:self.max_per_check]
                for msg in shown:
                    out.write('air_check: %s: %s: %s\n' % (self.fname, check, msg))
                if len(msgs) > len(shown):
                    out.write('air_check: %s: %s: ... and %d more\n'
                              % (self.fname, check, len(msgs) - len(shown)))
            elif verbose:
                out.write('air_check: %s: %s: %s: %s\n' % (
                    self.fname, 'not run' if check in self.skipped else 'ok', check, desc))
        if verbose:
            out.write('air_check: %s: %d checks, %d failed\n' % (self.fname, len(CHECKS), nfail))
        return nfail


def _dtname(v):
    return DATA_TYPES[v] if 0 <= v < len(DATA_TYPES) else str(v)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog='air_check', description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('files', nargs='*', metavar='FILE.air')
    ap.add_argument('--verbose', '-v', action='store_true', help='also list the passed checks')
    ap.add_argument('--json', action='store_true',
                    help='print the decoded ModelDef as JSON (protobuf mapping) instead of checking')
    ap.add_argument('--list', action='store_true', help='list the checks and exit')
    ap.add_argument('--max-per-check', type=int, default=20, metavar='N',
                    help='failure lines per check and file (0 = all; default 20)')
    args = ap.parse_args(argv)
    if args.list:
        for c, d in CHECKS:
            print('%-20s %s' % (c, d))
        return 0
    if not args.files:
        ap.error('no input file')
    rc = 0
    for fname in args.files:
        try:
            with open(fname, 'rb') as f:
                if args.json:
                    data = f.read()
                else:
                    ck = Checker(fname, args.max_per_check)
                    ck.run(f)
        except OSError as e:
            sys.stderr.write('air_check: %s: cannot read: %s\n' % (fname, e.strerror))
            rc = 2
            continue
        if args.json:
            try:
                model, _ = decode_model(data)
            except DecodeError as e:
                sys.stderr.write('air_check: %s: decode: %s\n' % (fname, e))
                rc = max(rc, 1)
                continue
            json.dump(to_json(model), sys.stdout, indent=2)
            sys.stdout.write('\n')
            continue
        if ck.report(args.verbose, sys.stdout):
            rc = max(rc, 1)
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
