#!/usr/bin/env bash
# GE emitters end to end (src/ge/emit*.c through tests/tools/ge_emit_tool): the text model
# tests/cli/ge_emit/model.pbtxt (maps sorted, an attr of every kind, a subgraph) written as
# .air, GE text, JSON. Asserts: the .air is byte-identical across runs and to
# `protoc --encode` of the same text (C++ protobuf's bytes); `protoc --decode` of the .air
# prints exactly the pbtxt emitter's text; pbtxt -> air -> pbtxt is stable; the JSON parses,
# has the protobuf-mapping keys, and equals air_check.py --json of the .air (an independent
# Python decoder); air_check.py passes the .air and protoc's encoding of the same text.
# Env: TFXC_GE_EMIT_TOOL, TFXC_SRC, TFXC_PROTO_DIR. Needs python3 (exit 77 without it);
# the protoc comparisons are skipped (with a note) when protoc is missing.
set -u
: "${TFXC_GE_EMIT_TOOL:?set TFXC_GE_EMIT_TOOL to the ge_emit_tool binary}"
: "${TFXC_SRC:?set TFXC_SRC to the source tree}"
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
TOOL=$TFXC_GE_EMIT_TOOL
[ -x "$TOOL" ] || { echo "FAIL: $TOOL is not an executable"; exit 1; }
CHECK="$TFXC_SRC/tests/tools/air_check.py"
MODEL="$TFXC_SRC/tests/cli/ge_emit/model.pbtxt"
NASTY="$TFXC_SRC/tests/cli/ge_emit/nasty.pbtxt"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
run() { "$TOOL" "$@" 2>err || { echo "FAIL: ge_emit_tool $* -> exit $?"; cat err; fail=1; }; }

# ---- air: deterministic, round-trips through binary
run --to air -o m.air "$MODEL"
run --to air -o m2.air "$MODEL"
cmp -s m.air m2.air || { echo "FAIL: two runs wrote different .air bytes"; fail=1; }
grep -q 'name:' m.air && { echo "FAIL: m.air looks like text"; fail=1; }
run --to pbtxt -o m.txt "$MODEL"
run --from air --to pbtxt -o back.txt m.air
cmp -s m.txt back.txt || { echo "FAIL: pbtxt -> air -> pbtxt differs from pbtxt -> pbtxt"; diff m.txt back.txt | head -20; fail=1; }
run --from air --to air -o m3.air m.air
cmp -s m.air m3.air || { echo "FAIL: air -> air is not stable"; fail=1; }
grep -q '^    attr {$' m.txt && grep -q '^      key: "_input_name_key"$' m.txt ||
  { echo "FAIL: pbtxt map entries are not written as attr { key: ... value { ... } }"; fail=1; }

# ---- protoc: the .air is C++ protobuf's encoding; the text is what protoc (and GE's dumps) print
if command -v protoc >/dev/null && [ -n "${TFXC_PROTO_DIR:-}" ] && [ -d "$TFXC_PROTO_DIR" ]; then
  P=(protoc -I"$TFXC_PROTO_DIR" ge/ge_ir.proto)
  if "${P[@]}" --encode=ge.proto.ModelDef <"$MODEL" >protoc.air 2>err; then
    cmp -s protoc.air m.air || { echo "FAIL: .air differs from protoc --encode of the same text"; fail=1; }
    python3 "$CHECK" protoc.air || { echo "FAIL: air_check rejects protoc's encoding of the model"; fail=1; }
  else
    echo "FAIL: protoc --encode rejects the model text"; cat err; fail=1
  fi
  if "${P[@]}" --decode=ge.proto.ModelDef <m.air >protoc.txt 2>err; then
    cmp -s protoc.txt m.txt || { echo "FAIL: protoc --decode text differs from the pbtxt emitter"; diff protoc.txt m.txt | head -20; fail=1; }
  else
    echo "FAIL: protoc cannot decode m.air"; cat err; fail=1
  fi
  if "${P[@]}" --encode=ge.proto.ModelDef <m.txt >retext.air 2>err; then
    cmp -s retext.air m.air || { echo "FAIL: protoc --encode of the emitted text differs from the .air"; fail=1; }
  else
    echo "FAIL: protoc --encode rejects the emitted text"; cat err; fail=1
  fi
  # the nasty model: emitted text and binary still agree through protoc
  run --to pbtxt -o n.txt "$NASTY"
  run --to air -o n.air "$NASTY"
  "${P[@]}" --encode=ge.proto.ModelDef <n.txt >n2.air 2>err && cmp -s n.air n2.air ||
    { echo "FAIL: nasty model: protoc --encode of the text differs from the .air"; cat err; fail=1; }
else
  echo "note: protoc not installed; protoc comparisons skipped"
fi

# ---- air_check on the emitted .air
python3 "$CHECK" m.air || { echo "FAIL: air_check rejects the emitted model"; fail=1; }

# ---- JSON: valid, protobuf mapping, equal to an independent decode of the .air
run --to json -o m.json "$MODEL"
run --to json -o n.json "$NASTY"
python3 "$CHECK" --json m.air >py.json 2>err || { echo "FAIL: air_check --json"; cat err; fail=1; }
python3 - m.json py.json n.json <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1], encoding='utf-8'))
p = json.load(open(sys.argv[2], encoding='utf-8'))
n = json.load(open(sys.argv[3], encoding='utf-8'))
bad = []
def want(cond, msg):
    if not cond:
        bad.append(msg)
want(c == p, 'JSON differs from air_check --json of the .air')
want(c['name'] == 'tiny' and c['version'] == 1, 'name/version')
want([g['name'] for g in c['graph']] == ['main', 'sub'], 'graph names')
ops = {o['name']: o for o in c['graph'][0]['op']}
relu = ops['blk/relu']
want(relu['attr']['a_i'] == {'i': '-5'}, 'int64 as a string')
want(relu['attr']['a_dt'] == {'dt': '0'}, 'a set oneof member at its default is written')
want(relu['attr']['a_bt'] == {'bt': 'AP8iCg=='}, 'bytes in base64')
want(relu['attr']['a_list_i']['list']['valType'] == 'VT_LIST_INT', 'enum by name, lowerCamelCase')
want(relu['attr']['a_list_f']['list']['f'] == [1.5, -0.0, 'Infinity', 'NaN'], 'float specials')
want(relu['attr']['a_f'] == {'f': 0.1}, 'float shortest form')
want(relu['attr']['a_lli']['listListInt']['listListI'][1]['listI'] == ['3', '-4'], 'list_list_int')
want(relu['inputDesc'][0]['dtype'] == 'DT_FLOAT', 'dtype by name')
want('hasOutAttr' not in relu and 'id' in relu, 'defaults omitted')
want(ops['call']['subgraphName'] == ['sub'], 'subgraphName')
want(list(relu['attr']) == sorted(relu['attr']), 'map keys sorted')
want(n['name'] == 'na"sty\\model', 'nasty model name')
names = [o.get('name', '') for o in n['graph'][0]['op']]
want('q"uo\\te\nnl\x01ctl\xffhi&amp;<b>' in names, 'control and non-UTF-8 bytes escaped: %r' % names)
for b in bad:
    print('FAIL: JSON: ' + b)
sys.exit(1 if bad else 0)
PY

[ "$fail" = 0 ] && echo "ge_emit: ok"
exit "$fail"
