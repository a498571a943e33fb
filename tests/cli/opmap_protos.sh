#!/usr/bin/env bash
# CLI test: every op map is checked against the embedded CANN prototype table
# (stdlib/ops/cann-ops.tsv) when rules are compiled, with or without --no-stdlib: port names,
# dynamic / optional port kinds, types listed in cann-ops-noir.tsv (accepted, but they have no
# ports), -Wunknown-op for other types (and -Werror=unknown-op), a clean map compiles silently.
# (The TF types My* are made up: -Wno-unknown-tf-op, tests/cli/tf_names.sh covers that check.)
# The exact diagnostics are compared. Env: TFXC.
set -u
: "${TFXC:?set TFXC to the tfxc binary}"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
cat >p.opmap <<'OPMAP'
op MyConcat -> ConcatV2 { auto; input x = 0; }
op MyAdd -> Add { auto; input x = 0; }
op MyBn -> BatchNorm { auto; optional input scale = 1; }
op MySplit -> Split { auto; dynamic input x count 2; }
op MyRet -> FrameworkOp { auto; input x = 0; }
op MyFoo -> NoSuchCannOp { auto; }
op MyFa -> FlashAttentionScore { auto; optional input real_shift = 3; dynamic output attention_out count 1; }
OPMAP
cat >want <<'WANT'
p.opmap:1:39: error: input 'x' of 'ConcatV2' is dynamic: map it with 'dynamic input x count N;'
  op MyConcat -> ConcatV2 { auto; input x = 0; }
                                        ^
p.opmap:2:31: error: CANN op 'Add' has no input 'x' (inputs: x1, x2)
  op MyAdd -> Add { auto; input x = 0; }
                                ^
p.opmap:3:45: error: input 'scale' of 'BatchNorm' is required, not optional
  op MyBn -> BatchNorm { auto; optional input scale = 1; }
                                              ^~~~~
p.opmap:4:43: error: input 'x' of 'Split' is not dynamic
  op MySplit -> Split { auto; dynamic input x count 2; }
                                            ^
p.opmap:5:39: error: CANN op 'FrameworkOp' has no input 'x' (inputs: none)
  op MyRet -> FrameworkOp { auto; input x = 0; }
                                        ^
p.opmap:6:13: warning: no prototype for CANN op 'NoSuchCannOp' [-Wunknown-op]
  op MyFoo -> NoSuchCannOp { auto; }
              ^~~~~~~~~~~~
p.opmap:7:86: error: output 'attention_out' of 'FlashAttentionScore' is not dynamic
  op MyFa -> FlashAttentionScore { auto; optional input real_shift = 3; dynamic output attention_out count 1; }
                                                                                       ^~~~~~~~~~~~~
WANT
for stdlib in --no-stdlib ""; do
  "$TFXC" compile -Wno-unknown-tf-op -r p.opmap $stdlib -o p.tfxb 2>err
  rc=$?
  [ $rc -eq 4 ] || { echo "FAIL: compile ${stdlib:-with the stdlib} exited $rc, want 4"; fail=1; }
  if cmp -s want err; then echo "ok: prototype diagnostics ${stdlib:-with the stdlib}"
  else echo "FAIL: prototype diagnostics ${stdlib:-with the stdlib} differ:"; diff want err; fail=1; fi
  [ -e p.tfxb ] && { echo "FAIL: a pack was written despite errors"; fail=1; }
done

# A clean map to a known type, an auto map to a type without IR, a graph map: no diagnostic.
cat >ok.opmap <<'OPMAP'
op MyConcat -> ConcatV2 { auto; dynamic input x count N; input concat_dim = N; }
op MyRet -> FrameworkOp { auto; }
op MyFa -> FlashAttentionScore { auto; optional input real_shift = 3 when len(real_shift_type) > 0; }
op MySoftplus -> graph { node e: Exp(in 0); node a: Add(e:0, const 1.0); node l: Log(a:0); out 0 = l:0; }
OPMAP
"$TFXC" compile -Wno-unknown-tf-op -r ok.opmap --no-stdlib -o ok.tfxb 2>err || { echo "FAIL: clean maps did not compile"; cat err; fail=1; }
[ -s err ] && { echo "FAIL: clean maps printed diagnostics"; cat err; fail=1; }

# -Wunknown-op is a warning (exit 0) unless made an error; -Wno-unknown-op silences it.
printf 'op MyFoo -> NoSuchCannOp { auto; }\n' >w.opmap
"$TFXC" compile -Wno-unknown-tf-op -r w.opmap --no-stdlib -o w.tfxb 2>err || { echo "FAIL: a warning failed the compile"; fail=1; }
grep -q "no prototype for CANN op 'NoSuchCannOp' \[-Wunknown-op\]" err || { echo "FAIL: -Wunknown-op missing"; cat err; fail=1; }
"$TFXC" compile -Wno-unknown-tf-op -r w.opmap --no-stdlib -Werror=unknown-op -o w2.tfxb 2>err
[ $? -eq 4 ] || { echo "FAIL: -Werror=unknown-op did not fail the compile"; fail=1; }
"$TFXC" compile -Wno-unknown-tf-op -r w.opmap --no-stdlib -Wno-unknown-op -o w3.tfxb 2>err
[ -s err ] && { echo "FAIL: -Wno-unknown-op still warns"; cat err; fail=1; }
# Inner nodes of graph maps are checked too.
printf 'op MyG -> graph { node e: NoSuchInner(in 0); out 0 = e:0; }\n' >g.opmap
"$TFXC" list-rules -Wno-unknown-tf-op -r g.opmap --no-stdlib >/dev/null 2>err
grep -q "no prototype for CANN op 'NoSuchInner'" err || { echo "FAIL: inner node type not checked"; cat err; fail=1; }
[ $fail -eq 0 ] && echo "ok: prototype checks"
exit $fail
