#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets into OUT/<target>/ (in the build tree; corpus
# files are never copied into the repository). Sources: every file of the shared corpus
# (../shared/corpus) and of tests/golden, large files truncated to --max-size bytes.
#   fuzz_model_load    every file as is
#   fuzz_graph_binary  every binary file, plus the GraphDef of every loadable model re-encoded
#                      as binary by `tfxc fmt` (when --tfxc is given)
#   fuzz_pbtxt         every text file with its type letter in front (G/M/S, from the first
#                      field name), plus `tfxc fmt --to pbtxt` of every loadable model (G)
#   fuzz_prune_opts    hand-written option strings for the fixed graph in fuzz_prune_opts.c
#   fuzz_rules         kind byte ('0' .scoperule, '1' .opmap) + rule source: every fenced
#                      example of docs/LANGUAGE.md (untagged fences as both kinds), every rule
#                      file of tests/golden (rule-errors, cases/*/rules), of stdlib/ and of
#                      rules/ (the opt-in packs), hand-written dataflow rewrites for
#                      fuzz_pack's graph, and two deeply nested sources with kind bytes '2'/'3'
#                      (rule-depth 1024)
#   fuzz_pack          `tfxc compile --no-stdlib` of every fuzz_rules seed that compiles, the
#                      whole stdlib compiled, and a few damaged headers (when --tfxc is given)
#   fuzz_convert       the binary GraphDefs of fuzz_graph_binary
#   fuzz_api           the fuzz_model_load seeds behind a flag byte (see fuzz_api.c)
#   fuzz_signature     signature byte 0 + every MetaGraphDef / SavedModel seed of
#                      fuzz_model_load, and tests/cli/signatures/model.pbtxt with bytes 0..3
#   fuzz_ckpt_index    '\0' + every PREFIX.index of the corpus's checkpoints/ (whole: they are
#                      small), and '\1' + a few hand-made string-tensor shards
#   fuzz_ge_pbtxt      GE IR text: every *.ge.pbtxt file of tests/golden and tests/cli/ge_emit,
#                      and `tfxc --emit ge-pbtxt --passthrough-unknown` of every loadable model
#                      of the corpus and tests/golden (when --tfxc is given)
# Deterministic: the same inputs give the same files (names derive from the source paths).
# Usage: make-seeds.sh --out DIR [--corpus DIR] [--golden DIR] [--tfxc BIN] [--max-size N]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out='' corpus="$here/../../../shared/corpus" golden="$here/../golden" tfxc='' max=65536
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    --golden) golden=$2; shift 2 ;;
    --tfxc) tfxc=$2; shift 2 ;;
    --max-size) max=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "make-seeds.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "make-seeds.sh: --out DIR is required" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out"/fuzz_model_load "$out"/fuzz_graph_binary "$out"/fuzz_pbtxt "$out"/fuzz_prune_opts \
  "$out"/fuzz_rules "$out"/fuzz_pack "$out"/fuzz_convert "$out"/fuzz_ge_pbtxt "$out"/fuzz_op_tables \
  "$out"/fuzz_ckpt_index
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# LeakSanitizer reports from an instrumented tfxc must not break seeding.
export ASAN_OPTIONS=detect_leaks=0

# copy SRC DST: SRC truncated to max bytes.
copy() { head -c "$max" "$1" > "$2"; }

# Text as io.c sniffs it: no control bytes but \t \n \v \f \r in the first 4 KiB.
is_text() {
  local n
  n=$(head -c 4096 "$1" | LC_ALL=C tr -d '\t\n\v\f\r\040-\176\200-\377' | wc -c)
  [ "$n" -eq 0 ] && [ -s "$1" ]
}

# Type letter of a text model from its first top-level field name (io.h's table).
kind_letter() {
  local w
  w=$(head -c 65536 "$1" | LC_ALL=C sed -e 's/#.*//' | LC_ALL=C grep -o -m1 '[A-Za-z_][A-Za-z0-9_]*' | head -n1 || true)
  case "$w" in
    meta_info_def|graph_def|saver_def|collection_def|signature_def|asset_file_def|object_graph_def) echo M ;;
    saved_model_schema_version|meta_graphs) echo S ;;
    *) echo G ;;
  esac
}

n=0
add_file() { # add_file PATH SEEDNAME
  local f=$1 name=$2
  copy "$f" "$out/fuzz_model_load/$name"
  if is_text "$f"; then
    { kind_letter "$f" | tr -d '\n'; head -c "$max" "$f"; } > "$out/fuzz_pbtxt/$name"
  else
    copy "$f" "$out/fuzz_graph_binary/$name"
  fi
  if [ -n "$tfxc" ]; then
    if "$tfxc" fmt -q "$f" --to pb -o "$tmp/g.pb" 2>/dev/null; then
      copy "$tmp/g.pb" "$out/fuzz_graph_binary/fmt__$name"
    fi
    if "$tfxc" fmt -q "$f" --to pbtxt -o "$tmp/g.pbtxt" 2>/dev/null; then
      { printf G; head -c "$max" "$tmp/g.pbtxt"; } > "$out/fuzz_pbtxt/fmt__$name"
    fi
    # GE IR text of the model (the whole file: a truncated text would not parse); models whose
    # conversion takes long (the large corpus graphs) are skipped
    if [ -s "$tmp/g.pb" ] && [ "$(wc -c < "$tmp/g.pb")" -le $((4 * max)) ] &&
       timeout 60 "$tfxc" -q "$tmp/g.pb" --passthrough-unknown --emit ge-pbtxt -o "$tmp/g.ge.pbtxt" 2>/dev/null &&
       [ "$(wc -c < "$tmp/g.ge.pbtxt")" -le "$max" ]; then
      cp "$tmp/g.ge.pbtxt" "$out/fuzz_ge_pbtxt/tfxc__$name"
    fi
    rm -f "$tmp/g.pb" "$tmp/g.pbtxt" "$tmp/g.ge.pbtxt"
  fi
  n=$((n + 1))
}

for src in "$corpus" "$golden"; do
  [ -d "$src" ] || { echo "make-seeds.sh: $src absent, skipped" >&2; continue; }
  tag=$(basename "$src")
  while IFS= read -r -d '' f; do
    rel=${f#"$src"/}
    add_file "$f" "${tag}__${rel//\//__}"
  done < <(find "$src" -type f -print0 | LC_ALL=C sort -z)
done

# fuzz_signature: the signature byte, then a model (MetaGraphDefs and SavedModels by name).
mkdir -p "$out/fuzz_signature"
for f in "$out"/fuzz_model_load/*; do
  case "$f" in *saved_model*|*.meta|*meta_graph*) { printf '\000'; cat "$f"; } > "$out/fuzz_signature/${f##*/}" ;; esac
done
for b in 0 1 2 3; do
  { printf "\\00$b"; cat "$here/../cli/signatures/model.pbtxt"; } > "$out/fuzz_signature/signatures_model_$b"
done

# Hand-written seeds that do not depend on the corpus.
printf '' > "$out/fuzz_model_load/empty"
printf 'node { name: "a" op: "Placeholder" }\n' > "$out/fuzz_model_load/tiny.pbtxt"
printf 'meta_graphs { meta_info_def { tags: "serve" } graph_def { node { name: "a" } } }\n' \
  > "$out/fuzz_model_load/tiny_saved_model.pbtxt"
printf '\x0a\x0f\x0a\x01a\x12\x0bPlaceholder' > "$out/fuzz_graph_binary/tiny.pb"
printf 'Gnode { name: "a/b_1" op: "Add" input: "x:1" input: "^y" attr { key: "T" value { type: DT_FLOAT } } }\n' \
  > "$out/fuzz_pbtxt/tiny"
printf 'Gnode { name: "s\\001\\x7f\\u00e9" attr { key: "f" value { f: -inf list { f: [nan, 1e-45, -0.0] } } } }\n' \
  > "$out/fuzz_pbtxt/escapes"
printf 'Mgraph_def { node { name: "a" } } saver_def { version: V2 }\n' > "$out/fuzz_pbtxt/tiny_meta"
printf 'Ssaved_model_schema_version: 1 meta_graphs { meta_info_def { tags: "serve" } }\n' > "$out/fuzz_pbtxt/tiny_saved"
i=0
for s in 'a:1,224,224,3' 'a:-1,10\nz' 'c:;s/e:2,3;\nz:0;h' '\nz:0;m/Exit;x' 'm/Merge:4\nm/Exit:0' \
         'g:\nh;s/d:1' 'f:1\ni' 'w:v:7\nw:v:0' 'b:1;\n' 'a:1;a:2' '\nnope:0' 's/e:9223372036854775807'; do
  printf '%b' "$s" > "$out/fuzz_prune_opts/opt$i"
  i=$((i + 1))
done

# ---- rule sources (fuzz_rules) and the packs compiled from them (fuzz_pack) ----
root=$(cd "$here/../.." && pwd)
add_rule() { # add_rule KIND(0|1) SEEDNAME < source text
  { printf '%s' "$1"; head -c "$max"; } > "$out/fuzz_rules/$2"
}
if [ -f "$root/docs/LANGUAGE.md" ]; then
  # Every fenced block: ```scoperule[-error] -> '0', ```opmap[-error] -> '1', untagged -> both.
  awk -v dir="$tmp" '
    /^```/ {
      if (inblk) { close(f); inblk = 0; next }
      tag = substr($0, 4); inblk = 1; k++
      f = dir "/lang" sprintf("%03d", k) "." (tag == "" ? "any" : tag)
      printf "" > f; next
    }
    inblk { print > f }' "$root/docs/LANGUAGE.md"
  for f in "$tmp"/lang*; do
    [ -f "$f" ] || continue
    b=$(basename "$f")
    case "$b" in
      *.scoperule|*.scoperule-error) add_rule 0 "LANGUAGE.md__${b%%.*}" < "$f" ;;
      *.opmap|*.opmap-error) add_rule 1 "LANGUAGE.md__${b%%.*}" < "$f" ;;
      *.any) add_rule 0 "LANGUAGE.md__${b%%.*}_s" < "$f"; add_rule 1 "LANGUAGE.md__${b%%.*}_o" < "$f" ;;
    esac
    rm -f "$f"
  done
fi
while IFS= read -r -d '' f; do
  rel=${f#"$root"/}
  case "$f" in *.scoperule) k=0 ;; *) k=1 ;; esac
  add_rule "$k" "${rel//\//__}" < "$f"
done < <(find "$golden/rule-errors" "$golden/cases" "$root/stdlib" "$root/rules" \
           \( -name '*.scoperule' -o -name '*.opmap' \) -type f -print0 2>/dev/null | LC_ALL=C sort -z)
# Hand-written: the smallest sources of each kind, and every expression form in one map.
# Deep nesting with the largest rule-depth limit (kind bytes '2'/'3', bit 1 set): 1000 nested
# blocks and a 1000-deep expression, one level below the cap of 1024.
{ printf '2pass P { group { layer { pattern p { name == "x"; } } } fuse s in p { '
  for _ in $(seq 999); do printf 'if true { '; done; printf 'type X; '
  for _ in $(seq 999); do printf '} '; done; printf '} }\n'; } > "$out/fuzz_rules/deep_blocks"
{ printf '3op A -> B { attr x = '; for _ in $(seq 999); do printf 'not '; done; printf 'true; }\n'; } \
  > "$out/fuzz_rules/deep_expr"
# Dataflow rewrites shaped for fuzz_pack's fixed graph (its ln/batchnorm Mul/Sub/AddV2 block and
# cell/ nodes): commutative roots, captures, screened `where`s (attr/op literals, and/or/not), an
# unscreened one, a `const` input, an Identity-style rewire, a fragment.
{ printf '0'; cat <<'R'
rewrite FzA general {
  match a: AddV2|Add(m, s);
  match m: Mul(x, k) where k.op == "Mul" or not (m.attr.T != DT_FLOAT);
  match s: Sub(x2, _);
  where a.op == "AddV2" and len(consumers(a)) >= 0;
  node n: Relu(x) { attr T = m.attr.T; }
  node c: Mul(n, const [1, 2.5]) { attr T = a.attr.T; }
  out a = c;
}
fragment fz_sig { match t: Sigmoid(v) where t.attr.T == DT_HALF or t.attr.x == "y"; }
rewrite FzB general { match o: Identity(t, u, w); use fz_sig; node n: Tanh(v); out o = n; }
rewrite FzC general { match t: Tanh(q) where t.attr.scale == 0.5 and t.attr.l == [1, 2]; out t = q; }
rewrite FzD general { match m: MatMul(i, k); match i: AddV2(p, r); where m.attr.transpose_a == false;
  node n: MatMul(p, k, const "s", const true, const 3000000000) { attr T = m.attr.T; } out m = n; }
R
} > "$out/fuzz_rules/rewrites"
printf '0' > "$out/fuzz_rules/empty_scoperule"
printf '1' > "$out/fuzz_rules/empty_opmap"
printf '0pass P { group { layer { pattern p { count Add == 1; } } } fuse s in p { type T; } }\n' \
  > "$out/fuzz_rules/tiny_pass"
printf '%s\n' '1op A, B -> C priority 2 { auto; attr x = [1, 2.5, "s", true, none][1:3];' \
  '  attr y = len(l) > 1 and not (n_inputs == 0 or op == "A") ? in 0 : -1 ?? 0;' \
  '  attr z = dtype_of(in 0) != none ? str(int(float("1")) % 3 * 2 / 1 - 1) : "x";' \
  '  format output 0 = format_of(in 1) ?? "ND"; drop l; }' \
  'op D -> graph { node a: Add(in 0, in 1) { attr T = dtype_of(in 0); } out 0 = a:0; }' \
  > "$out/fuzz_rules/tiny_map"

if [ -n "$tfxc" ]; then
  for f in "$out"/fuzz_rules/*; do
    b=$(basename "$f")
    case "$(head -c 1 "$f")" in 0|2) ext=scoperule ;; *) ext=opmap ;; esac
    tail -c +2 "$f" > "$tmp/src.$ext"
    if "$tfxc" compile -q --no-stdlib "$tmp/src.$ext" -o "$tmp/p.tfxb" >/dev/null 2>&1; then
      mv "$tmp/p.tfxb" "$out/fuzz_pack/$b.tfxb"
    fi
    rm -f "$tmp/src.$ext" "$tmp/p.tfxb"
  done
  if "$tfxc" compile -q -o "$tmp/p.tfxb" >/dev/null 2>&1; then
    mv "$tmp/p.tfxb" "$out/fuzz_pack/stdlib.tfxb"
  fi
  # Damaged headers of one small pack: the loader must refuse each one cleanly.
  small=$(ls -S "$out"/fuzz_pack/*.tfxb 2>/dev/null | tail -n 1 || true)
  if [ -n "$small" ]; then
    head -c 31 "$small" > "$out/fuzz_pack/hdr_truncated"
    { printf 'TFXC'; tail -c +5 "$small"; } > "$out/fuzz_pack/hdr_magic"
    { head -c 4 "$small"; printf '\002\000\000\000'; tail -c +9 "$small"; } > "$out/fuzz_pack/hdr_version"
    { head -c 16 "$small"; printf '\000\000\000\000\000\000\000\000'; tail -c +25 "$small"; } > "$out/fuzz_pack/hdr_hash"
    { head -c 24 "$small"; printf '\011\000\000\000'; tail -c +29 "$small"; } > "$out/fuzz_pack/hdr_sections"
    { cat "$small"; printf '\000\000\000\000'; } > "$out/fuzz_pack/hdr_trailing"
  fi
fi
printf 'TFXB' > "$out/fuzz_pack/magic_only"

# ---- fuzz_ge_pbtxt: GE IR text files of the repository ----
while IFS= read -r -d '' f; do
  rel=${f#"$root"/}
  copy "$f" "$out/fuzz_ge_pbtxt/${rel//\//__}"
done < <(find "$golden" "$root/tests/cli/ge_emit" \( -name '*.ge.pbtxt' -o -path '*/ge_emit/*.pbtxt' \) \
           -type f -print0 2>/dev/null | LC_ALL=C sort -z)
printf 'name: "m"\ngraph { name: "g" op { name: "x" type: "Data" attr { key: "index" value { i: 0 } } }\n}\n' \
  > "$out/fuzz_ge_pbtxt/tiny"

# ---- fuzz_convert: the binary GraphDefs, plus graphs the target's extra passes fuse ----
cp "$out"/fuzz_graph_binary/* "$out/fuzz_convert/" 2>/dev/null || true
if [ -n "$tfxc" ]; then
  cat > "$tmp/fuse.pbtxt" <<'PBTXT'
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "am/Add" op: "Add" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "am/Mul" op: "Mul" input: "am/Add" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "r/while/cell/MatMul" op: "MatMul" input: "am/Mul" input: "x" }
node { name: "r/while/cell/split/dim" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32 int_val: 1 } } } }
node { name: "r/while/cell/split" op: "Split" input: "r/while/cell/split/dim" input: "r/while/cell/MatMul" attr { key: "num_split" value { i: 4 } } }
node { name: "r/while/Merge" op: "Merge" input: "r/while/cell/split" input: "r/while/Next" }
node { name: "r/while/Next" op: "NextIteration" input: "r/while/Merge" }
node { name: "r/while/Exit" op: "Exit" input: "r/while/Merge" }
node { name: "ln/grad/Mul" op: "Mul" input: "r/while/Exit" input: "x" }
node { name: "ln/grad/Mul_1" op: "Mul" input: "ln/grad/Mul" input: "x" }
node { name: "fuse/x" op: "Relu" input: "ln/grad/Mul_1" }
node { name: "y" op: "Identity" input: "fuse/x" input: "^am/Mul" }
library { function { signature { name: "f" } node_def { name: "am/Add" op: "Add" } node_def { name: "am/Mul" op: "Mul" input: "am/Add:z:0" } } }
PBTXT
  "$tfxc" fmt -q "$tmp/fuse.pbtxt" --to pb -o "$out/fuzz_convert/fuse.pb" 2>/dev/null || true
  sed -e '/^library/d' "$tmp/fuse.pbtxt" > "$tmp/fuse2.pbtxt"
  "$tfxc" fmt -q "$tmp/fuse2.pbtxt" --to pb -o "$out/fuzz_convert/fuse_nolib.pb" 2>/dev/null || true
fi

# ---- fuzz_api: the fuzz_model_load seeds behind a flag byte (0: as .pb; 1: as .pbtxt;
# 2: with --check; 8: an op map, a NUL, then the model) ----
mkdir -p "$out/fuzz_api"
for f in "$out"/fuzz_model_load/*; do
  [ -f "$f" ] || continue
  b=$(basename "$f")
  case $b in *.pbtxt|*pbtxt*) fl='\001' ;; *) fl='\000' ;; esac
  { printf "$fl"; cat "$f"; } > "$out/fuzz_api/$b"
done
{ printf '\010op Relu -> Relu6 { auto; }\n\000'; printf 'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\nnode { name: "y" op: "Relu" input: "x" }\n'; } \
  > "$out/fuzz_api/rule_then_model"
# fuzz_op_tables: kind byte (0 TF definitions, 1 CANN prototypes) + the first 64 lines of the
# stdlib's tables and every *.cannops.tsv / *.tfops.tsv of the golden cases.
{ printf '\0'; head -64 "$root/stdlib/ops/tf-ops.tsv"; } > "$out/fuzz_op_tables/tf-ops"
{ printf '\1'; head -64 "$root/stdlib/ops/cann-ops.tsv"; } > "$out/fuzz_op_tables/cann-ops"
k=0
while IFS= read -r -d '' f; do
  k=$((k + 1))
  case "$f" in *.tfops.tsv) b='\0' ;; *) b='\1' ;; esac
  { printf "$b"; head -c 65536 "$f"; } > "$out/fuzz_op_tables/user$k"
done < <(find "$golden" "$root/tests/cli" -name '*.cannops.tsv' -print0 -o -name '*.tfops.tsv' -print0 2>/dev/null)
# ---- fuzz_ckpt_index: tensor bundle indexes, string shards ----
if [ -d "$corpus/checkpoints" ]; then
  while IFS= read -r f; do
    rel=${f#"$corpus"/}
    { printf '\0'; cat "$f"; } > "$out/fuzz_ckpt_index/${rel//\//__}"
  done < <(find "$corpus/checkpoints" -name '*.index' -type f | LC_ALL=C sort)
fi
printf '\1\2\1\2\0\0\0\0abc\0\0\0\0' > "$out/fuzz_ckpt_index/strings2"
printf '\1\1\0\0\0\0\0\0\0\0\0' > "$out/fuzz_ckpt_index/strings_empty"

for t in "$out"/*/; do
  echo "make-seeds.sh: $(basename "$t"): $(find "$t" -type f | wc -l) seeds"
done
