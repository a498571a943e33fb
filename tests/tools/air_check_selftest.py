#!/usr/bin/env python3
"""Self-test of air_check.py, end to end through tfxc's emitter: each case edits the good text
model (tests/cli/ge_emit/model.pbtxt), writes it as .air with ge_emit_tool (tfx_ge_emit_air),
and asserts that air_check.py flags the intended check; the good model and valid variants must
pass cleanly. Every check air_check.py lists must be triggered by at least one case.
Stage: tests. Usage: air_check_selftest.py GE_EMIT_TOOL MODEL.pbtxt AIR_CHECK.py WORKDIR
Exit 0 when everything holds, else 1 with one FAIL line per problem."""

import os
import subprocess
import sys

INT_MAX = 2**31 - 1

# (case name, expected check, [(old, new), ...]); each `old` must occur exactly once.
CASES = [
    ('missing-layout', 'desc-layout',
     [('input_desc { name: "x2" dtype: DT_FLOAT shape { dim: 4 } layout: "ND"',
       'input_desc { name: "x2" dtype: DT_FLOAT shape { dim: 4 }')]),
    ('unknown-layout', 'desc-layout',
     [('output_desc { name: "output0" dtype: DT_FLOAT shape { dim: 1 dim: 2 } layout: "ND"',
       'output_desc { name: "output0" dtype: DT_FLOAT shape { dim: 1 dim: 2 } layout: "NWHC"')]),
    ('list-without-val-type', 'list-val-type',
     [('list { s: "p" s: "q" val_type: VT_LIST_STRING }', 'list { s: "p" s: "q" }')]),
    ('list-val-type-mismatch', 'list-val-type',
     [('val_type: VT_LIST_BOOL', 'val_type: VT_LIST_INT')]),
    ('list-unknown-val-type', 'list-val-type',
     [('val_type: VT_LIST_BYTES', 'val_type: 11')]),
    ('edge-to-missing-node', 'edges',
     [('input: "blk/add:0" input: "x:-1"', 'input: "blk/ad:0" input: "x:-1"')]),
    ('edge-without-index', 'edges',
     [('input: "blk/relu:0" input: "wm:0"', 'input: "blk/relu" input: "wm:0"')]),
    ('edge-across-graphs', 'edges', [('input: "sub/arg:0"', 'input: "x:0"')]),
    ('edge-past-outputs', 'output-port', [('input: "call:0"', 'input: "call:1"')]),
    ('input-desc-missing', 'input-desc-count',
     [('    input_desc { name: "args0" dtype: DT_FLOAT shape { dim: 1 dim: 2 } layout: "ND" '
       'attr { key: "origin_format" value { s: "ND" } } }\n', '')]),
    ('port-names-missing', 'port-names',
     [('    attr { key: "_input_name_key" value { list { s: "x1" s: "x2" } } }\n', '')]),
    ('port-names-mismatch', 'port-names',
     [('list { s: "x1" s: "x2" s: "bias" }', 'list { s: "x1" s: "x3" s: "bias" }')]),
    ('port-names-length', 'port-names',
     [('list { i: 0 i: 1 i: 2 }', 'list { i: 0 i: 1 }')]),
    ('data-index-range', 'data-index',
     [('    attr { key: "index" value { i: 0 } }\n    input_desc { name: "x" dtype: DT_FLOAT shape '
       '{ dim: 1 dim: 4 }',
       '    attr { key: "index" value { i: 3 } }\n    input_desc { name: "x" dtype: DT_FLOAT shape '
       '{ dim: 1 dim: 4 }')]),
    ('data-desc-differs', 'data-desc',
     [('output_desc { name: "y" dtype: DT_FLOAT shape { dim: 1 dim: 4 } layout: "ND" device_type',
       'output_desc { name: "y" dtype: DT_INT32 shape { dim: 1 dim: 4 } layout: "ND" device_type')]),
    ('missing-netoutput', 'outputs',
     [('name: "out" type: "NetOutput"', 'name: "out" type: "Identity"')]),
    ('graph-output-to-nowhere', 'outputs',
     [('  name: "main"\n', '  name: "main"\n  output: "nothing:0"\n')]),
    ('const-size-mismatch', 'const-value',
     [('data: "\\000\\000\\200?\\000\\000\\000@\\000\\000@@\\000\\000\\200@"',
       'data: "\\000\\000\\200?\\000\\000\\000@\\000\\000@@"')]),
    ('const-without-value', 'const-value',
     [('name: "w" type: "Const" id: 1\n    attr { key: "_output_name_key" value { list { s: "y" } } }\n'
       '    attr { key: "_output_name_value" value { list { i: 0 } } }\n    attr { key: "value"',
       'name: "w" type: "Const" id: 1\n    attr { key: "_output_name_key" value { list { s: "y" } } }\n'
       '    attr { key: "_output_name_value" value { list { i: 0 } } }\n    attr { key: "valu"')]),
    ('const-desc-differs', 'const-desc',
     [('output_desc { name: "y" dtype: DT_FLOAT shape { dim: 4 } layout',
       'output_desc { name: "y" dtype: DT_FLOAT shape { dim: 5 } layout')]),
    ('missing-origin-format', 'desc-origin-format',
     [('output_desc { name: "output0" dtype: DT_FLOAT shape { dim: 1 dim: 2 } layout: "ND" attr { key: '
       '"origin_format" value { s: "ND" } } }',
       'output_desc { name: "output0" dtype: DT_FLOAT shape { dim: 1 dim: 2 } layout: "ND" }')]),
    ('format-for-int-disagrees', 'desc-format-for-int',
     [('      attr { key: "format_for_int" value { i: 2 } } attr { key: "origin_format" value { s: "ND" } } }\n'
       '    output_desc',
       '      attr { key: "format_for_int" value { i: 1 } } attr { key: "origin_format" value { s: "ND" } } }\n'
       '    output_desc')]),
    ('desc-dtype-out-of-range', 'desc-dtype',
     [('td { name: "td" dtype: DT_BOOL', 'td { name: "td" dtype: 77')]),
    ('unfed-optional-with-layout', 'unfed-optional',
     [('input_desc { name: "bias" shape { } layout: "FORMAT_RESERVED"',
       'input_desc { name: "bias" dtype: DT_FLOAT shape { } layout: "ND"')]),
    ('unfed-optional-with-dtype', 'unfed-optional',
     [('input_desc { name: "bias" shape { }', 'input_desc { name: "bias" dtype: DT_FLOAT shape { }')]),
    ('unfed-optional-empty-layout', 'unfed-optional',
     [('input_desc { name: "bias" shape { } layout: "FORMAT_RESERVED"', 'input_desc { name: "bias" shape { }')]),
    ('subgraph-missing', 'subgraph-names', [('subgraph_name: "sub"', 'subgraph_name: "nosuch"')]),
    ('subgraph-is-root', 'subgraph-names', [('subgraph_name: "sub"', 'subgraph_name: "main"')]),
    ('subgraph-data-no-parent-index', 'subgraph-data',
     [('    attr { key: "_parent_node_index" value { i: 0 } }\n    attr { key: "index" value { i: 0 } }\n',
       '    attr { key: "index" value { i: 0 } }\n')]),
    ('subgraph-data-parent-index-range', 'subgraph-data',
     [('    attr { key: "_parent_node_index" value { i: 0 } }\n    attr { key: "index" value { i: 0 } }\n',
       '    attr { key: "_parent_node_index" value { i: 1 } }\n    attr { key: "index" value { i: 0 } }\n')]),
    ('subgraph-netoutput-no-parent-index', 'subgraph-netoutput',
     [('attr { key: "_parent_node_index" value { i: 0 } } attr { key: "origin_format"',
       'attr { key: "origin_format"')]),
    ('attr-groups-written', 'attr-groups',
     [('name: "blk/add" type: "Add" id: 3\n', 'name: "blk/add" type: "Add" id: 3\n    attr_groups { data: "x" }\n')]),
    ('graph-has-been-added', 'graph-added',
     [('  name: "main"\n', '  name: "main"\n  attr { key: "_graph_has_been_added" value { b: true } }\n')]),
    ('attr-without-value', 'attr-kind', [('attr { key: "a_b" value { b: true } }', 'attr { key: "a_b" value { } }')]),
    ('attr-expression', 'attr-kind', [('attr { key: "a_i" value { i: -5 } }', 'attr { key: "a_i" value { expression: "s0+1" } }')]),
    ('dt-out-of-range', 'dt-range', [('value { dt: 0 }', 'value { dt: 43 }')]),
    ('list-dt-out-of-range', 'dt-range', [('dt: 9 val_type', 'dt: -1 val_type')]),
    ('graph-name-repeated', 'graph-names', [('graph {\n  name: "sub"', 'graph { name: "main" }\ngraph {\n  name: "sub"')]),
    ('graph-name-empty', 'graph-names', [('graph {\n  name: "sub"', 'graph { }\ngraph {\n  name: "sub"')]),
    ('node-name-repeated', 'node-names', [('name: "wm" type: "Const"', 'name: "w" type: "Const"')]),
    ('op-without-type', 'op-type', [('name: "blk/add" type: "Add"', 'name: "blk/add" type: ""')]),
    ('string-not-utf8', 'utf8', [('name: "tiny"', 'name: "ti\\377ny"')]),
]

# Variants that must still pass every check.
GOOD_VARIANTS = [
    ('netoutput-and-graph-output', [('  name: "main"\n', '  name: "main"\n  output: "call:0"\n')]),
    ('graph-input-listed', [('  name: "main"\n', '  name: "main"\n  input: "x:0"\n')]),
    ('separated-const', [
        ('    attr { key: "value" value { t {\n      desc { dtype: DT_FLOAT16 shape { dim: 4 dim: 2 } layout: "ND" '
         'attr { key: "origin_format" value { s: "ND" } } }\n      data: "\\000<\\000<\\000<\\000<\\000<\\000<\\000<\\000<" '
         '} } }\n',
         '    attr { key: "length" value { i: 16 } }\n    attr { key: "location" value { s: "w/wm" } }\n'
         '    attr { key: "value" value { t {\n      desc { dtype: DT_FLOAT16 shape { dim: 4 dim: 2 } layout: "ND" '
         'attr { key: "origin_format" value { s: "ND" } } }\n      } } }\n')]),
]


def main(argv):
    tool, model, checker, work = argv
    text = open(model, encoding='utf-8').read()
    fails = []
    triggered = set()

    def fail(msg):
        fails.append(msg)
        print('FAIL: ' + msg)

    def check(path):
        p = subprocess.run([sys.executable, checker, path], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def write_air(name, body):
        src = os.path.join(work, name + '.pbtxt')
        air = os.path.join(work, name + '.air')
        with open(src, 'w', encoding='utf-8') as f:
            f.write(body)
        p = subprocess.run([tool, '--to', 'air', '-o', air, src], capture_output=True, text=True)
        if p.returncode != 0:
            fail('%s: ge_emit_tool failed: %s' % (name, p.stderr.strip()))
            return None
        return air

    def edit(name, edits):
        body = text
        for old, new in edits:
            n = body.count(old)
            if n != 1:
                fail('%s: the edit target occurs %d times in the model (want once): %r' % (name, n, old))
                return None
            body = body.replace(old, new)
        return body

    def expect_flag(name, want, path):
        rc, out = check(path)
        got = {line.split(': ')[2] for line in out.splitlines()
               if line.startswith('air_check: ') and len(line.split(': ')) > 3}
        if rc != 1 or want not in got:
            fail('%s: expected check %r to fail (exit 1), got exit %d:\n%s' % (name, want, rc, out))
        else:
            triggered.update(got)
            print('ok: %-36s -> %s%s' % (name, want, '' if got == {want} else
                                          '  (also: %s)' % ', '.join(sorted(got - {want}))))

    # the good model, plain and --verbose
    good = write_air('good', text)
    if good:
        rc, out = check(good)
        if rc != 0 or out:
            fail('good model: expected exit 0 and no output, got exit %d:\n%s' % (rc, out))
        p = subprocess.run([sys.executable, checker, '--verbose', good], capture_output=True, text=True)
        if p.returncode != 0 or 'checks, 0 failed' not in p.stdout or ': ok: const-value:' not in p.stdout:
            fail('good model --verbose: unexpected output:\n' + p.stdout + p.stderr)
    for name, edits in GOOD_VARIANTS:
        body = edit(name, edits)
        air = body and write_air(name, body)
        if air:
            rc, out = check(air)
            if rc != 0:
                fail('%s: a valid variant was flagged:\n%s' % (name, out))
            else:
                print('ok: %-36s passes' % name)

    for name, want, edits in CASES:
        body = edit(name, edits)
        air = body and write_air(name, body)
        if air:
            expect_flag(name, want, air)

    # file-level cases built directly
    if good:
        data = open(good, 'rb').read()
        special = [
            ('text-format', 'decode', text.encode('utf-8')),
            ('truncated', 'decode', data[:-3]),
            ('garbage', 'decode', b'\xff\xff\xff'),
            ('wrong-wire-type', 'decode', b'\x08\x01'),  # ModelDef.name (string) as a varint
            ('empty-model', 'graph-present', b''),
        ]
        for name, want, blob in special:
            path = os.path.join(work, name + '.air')
            with open(path, 'wb') as f:
                f.write(blob)
            expect_flag(name, want, path)
        big = os.path.join(work, 'too-big.air')
        with open(big, 'wb') as f:
            f.truncate(INT_MAX + 1)  # sparse: air_check must not read it
        expect_flag('too-big', 'size', big)
        os.unlink(big)

    listed = subprocess.run([sys.executable, checker, '--list'], capture_output=True, text=True).stdout
    names = {line.split()[0] for line in listed.splitlines() if line.strip()}
    missing = sorted(names - triggered)
    if missing:
        fail('checks never shown to fail: %s' % ', '.join(missing))
    print('%d cases, %d checks listed, %d failures' % (len(CASES) + len(GOOD_VARIANTS) + 7, len(names), len(fails)))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
