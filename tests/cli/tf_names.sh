#!/usr/bin/env bash
# TF-side names of op maps (issue 12 item 2): a TF op type with no TF op definition
# (stdlib/ops/tf-ops.tsv, or the stdlib's list of custom/internal types tf-ops-extra.tsv) that
# no scope rule fuses into is -Wunknown-tf-op; a name a map reads that is no attribute of its
# TF op is -Wunknown-tf-attr (not when it is the left side of `??` or exists()'s argument); both with "did you
# mean"; -Werror makes them errors (exit 4), -Wno-NAME silences them. Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail=0
cd "$T" || exit 1
cat >bad.opmap <<'R'
op MatMull -> MatMul { auto; }
op MatMul -> MatMulV2 { auto; attr transpose_x1 = transpose_aa; attr transpose_x2 = transpose_b; }
R
cat >good.opmap <<'R'
op Squeeze -> Squeeze { auto; attr axis = axis ?? squeeze_dims ?? []; }
op FusedThing -> Relu { auto; }
op NpuGetFloatStatusV2 -> NPUGetFloatStatusV2 { auto; }
op Relu -> Relu { when not exists(quantize); auto; }
R
cat >fuse.scoperule <<'R'
pass P { group { layer { pattern p { name == "blk"; } } } fuse s in p { type FusedThing; } }
R
W1="bad.opmap:1:4: warning: unknown TF op type 'MatMull': no TF op definition and no scope rule fuses into it; did you mean 'MatMul'"
W2="bad.opmap:2:51: warning: 'transpose_aa' is not an attribute of TF op 'MatMul'; did you mean 'transpose_a'"
"$TFXC" compile --no-stdlib -r bad.opmap -o p.tfxb 2>err; rc=$?
[ $rc -eq 0 ] && grep -qF "$W1" err && grep -qF "[-Wunknown-tf-op]" err && grep -qF "$W2" err &&
  grep -qF "[-Wunknown-tf-attr]" err && [ "$(grep -c warning: err)" -eq 2 ] && echo "ok: both warnings" || { echo "FAIL: warnings (exit $rc)"; cat err; fail=1; }
"$TFXC" compile --no-stdlib -Werror -r bad.opmap -o q.tfxb 2>err; rc=$?
[ $rc -eq 4 ] && grep -qF "error: unknown TF op type 'MatMull'" err && grep -qF "[-Werror=unknown-tf-op]" err &&
  grep -qF "[-Werror=unknown-tf-attr]" err && [ ! -e q.tfxb ] && echo "ok: -Werror" || { echo "FAIL: -Werror (exit $rc)"; cat err; fail=1; }
"$TFXC" compile --no-stdlib -Werror=unknown-tf-attr -Wno-unknown-tf-op -r bad.opmap -o q.tfxb 2>err; rc=$?
[ $rc -eq 4 ] && ! grep -q "MatMull" err && grep -qF "[-Werror=unknown-tf-attr]" err && echo "ok: per-class options" ||
  { echo "FAIL: -Werror=unknown-tf-attr -Wno-unknown-tf-op (exit $rc)"; cat err; fail=1; }
"$TFXC" compile --no-stdlib -Werror -Wno-unknown-op -r good.opmap -r fuse.scoperule -o g.tfxb 2>err ||
  { echo "FAIL: defined, fused, listed types and '??' warned"; cat err; fail=1; }
"$TFXC" compile -Werror -o s.tfxb 2>err || { echo "FAIL: the stdlib is not clean"; cat err; fail=1; }

# A custom TF op defined in a user file (*.tfops.tsv, the tf-ops.tsv format), given as a -r
# file or found under a -r directory: its type is known and its attributes are checked.
mkdir -p defs/sub
printf '#name\tinputs\toutputs\tattrs\tis_stateful\nAdCustom\tx:T,y:T\tz:T\tT:type,alpha:float=1\t0\n' >defs/sub/ad.tfops.tsv
printf 'op AdCustom -> Add { auto; attr x = alpha; attr y = alpah; }\n' >custom.opmap
"$TFXC" compile --no-stdlib -Werror -r custom.opmap -o c.tfxb 2>err; rc=$?
[ $rc -eq 4 ] && grep -qF "unknown TF op type 'AdCustom'" err && echo "ok: undefined custom op" ||
  { echo "FAIL: custom op without its definition (exit $rc)"; cat err; fail=1; }
for defs in defs defs/sub/ad.tfops.tsv; do
  "$TFXC" compile --no-stdlib -r custom.opmap -r $defs -o c.tfxb 2>err; rc=$?
  if [ $rc -eq 0 ] && ! grep -q "unknown TF op type" err &&
     grep -qF "custom.opmap:1:53: warning: 'alpah' is not an attribute of TF op 'AdCustom'; did you mean 'alpha'" err &&
     [ "$(grep -c warning: err)" -eq 1 ]; then
    echo "ok: -r $defs defines AdCustom"
  else
    echo "FAIL: -r $defs (exit $rc)"; cat err; fail=1
  fi
done
printf 'AdCustom\tx:T\n' >bad.tfops.tsv
"$TFXC" compile --no-stdlib -r custom.opmap -r bad.tfops.tsv -o c.tfxb 2>err; rc=$?
[ $rc -eq 4 ] && grep -q "^bad.tfops.tsv:1:" err && echo "ok: a malformed definition file is a rule error" ||
  { echo "FAIL: malformed definition file (exit $rc)"; cat err; fail=1; }
exit $fail
