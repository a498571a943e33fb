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
mkdir -p "$out"/fuzz_model_load "$out"/fuzz_graph_binary "$out"/fuzz_pbtxt "$out"/fuzz_prune_opts
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
    rm -f "$tmp/g.pb" "$tmp/g.pbtxt"
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

for t in "$out"/*/; do
  echo "make-seeds.sh: $(basename "$t"): $(find "$t" -type f | wc -l) seeds"
done
