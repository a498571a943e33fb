#!/usr/bin/env bash
# `tfxc fmt` against protoc as an independent oracle, over the corpus:
#  1. every text GraphDef protoc accepts: tfxc's binary output decodes (protoc --decode) to the
#     same message as protoc's own --encode of the file;
#  2. every binary GraphDef (and every encoded text one): binary -> text -> binary gives the same
#     message back.
. "$(dirname "$0")/lib.bash"
: "${TFXC_PROTO_DIR:?}"
command -v protoc >/dev/null || { echo "SKIP: protoc not installed"; exit 77; }
decode() { protoc --decode=tensorflow.GraphDef -I "$TFXC_PROTO_DIR" tensorflow/graph.proto <"$1"; }
encode() { protoc --encode=tensorflow.GraphDef -I "$TFXC_PROTO_DIR" tensorflow/graph.proto <"$1"; }
nt=0; nb=0
while IFS=$'\037' read -r file _repo _path _commit _lic format _count _notes check; do
  [ "$check" = ok ] || continue
  f="$TFXC_CORPUS/$file"
  case "$format" in
    "pbtxt (GraphDef)")
      encode "$f" >"$WORK/oracle.pb" 2>/dev/null || { fail "$file: protoc rejects it (schema drift?)"; continue; }
      if ! "$TFXC" fmt "$f" -o "$WORK/tfxc.pb" 2>"$WORK/err.txt"; then
        fail "$file: tfxc fmt failed: $(head -c 300 "$WORK/err.txt")"; continue
      fi
      decode "$WORK/oracle.pb" >"$WORK/a.txt"; decode "$WORK/tfxc.pb" >"$WORK/b.txt"
      if ! cmp -s "$WORK/a.txt" "$WORK/b.txt"; then
        fail "$file: text->binary differs from protoc --encode"; diff "$WORK/a.txt" "$WORK/b.txt" | head -10
      fi
      nt=$((nt + 1))
      bin="$WORK/oracle.pb" ;;
    "pb (GraphDef)") bin="$f" ;;
    *) continue ;;
  esac
  # binary -> text -> binary
  if ! "$TFXC" fmt "$bin" -o "$WORK/rt.pbtxt" 2>"$WORK/err.txt" ||
     ! "$TFXC" fmt "$WORK/rt.pbtxt" -o "$WORK/rt.pb" 2>>"$WORK/err.txt"; then
    fail "$file: binary->text->binary failed: $(head -c 300 "$WORK/err.txt")"; continue
  fi
  decode "$bin" >"$WORK/a.txt"; decode "$WORK/rt.pb" >"$WORK/b.txt"
  if ! cmp -s "$WORK/a.txt" "$WORK/b.txt"; then
    fail "$file: binary->text->binary changed the message"; diff "$WORK/a.txt" "$WORK/b.txt" | head -10
  fi
  nb=$((nb + 1))
done < <(tr '\t' '\037' <"$TFXC_CORPUS/MANIFEST.tsv")
echo "text->binary checked on $nt files, round trip on $nb files, $FAILS failures"
[ "$nt" -gt 0 ] && [ "$nb" -gt 0 ] && [ "$FAILS" -eq 0 ]
