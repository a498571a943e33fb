/* What of a loaded model's arena its message tree still reaches (tfx_model_keep_reachable).
 * Stage: io (used by passes before lowering, passes/context.c tfx_ctx_release_unused). Input:
 * a tfx_model whose tree passes have edited (nodes removed by pruning, scope fusion and
 * dataflow rewrites, attribute and input lists replaced) and a sweep of its arena. Output:
 * every byte range reachable from the root is kept in the sweep, so that the sweep gives back
 * the whole pages of what is not: the removed NodeDefs, the replaced lists and the unpacker's
 * scratch (protobuf-c allocates its scanned-field slabs from the arena and frees them, which
 * an arena cannot do). Nothing moves. */
#include <string.h>

#include "io/io.h"

/* Keeps everything m reaches (descriptor-driven, every field kind; only the set member of a
 * oneof, whose storage the other members share). */
static void keep_message(tfx_arena_sweep *s, const ProtobufCMessage *m) {
  const ProtobufCMessageDescriptor *d = m->descriptor;
  const char *base = (const char *)m;
  tfx_arena_sweep_keep(s, m, d->sizeof_message);
  if (m->n_unknown_fields) {
    tfx_arena_sweep_keep(s, m->unknown_fields, m->n_unknown_fields * sizeof *m->unknown_fields);
    for (unsigned i = 0; i < m->n_unknown_fields; i++)
      tfx_arena_sweep_keep(s, m->unknown_fields[i].data, m->unknown_fields[i].len);
  }
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    ProtobufCType t = f->type;
    if (t != PROTOBUF_C_TYPE_STRING && t != PROTOBUF_C_TYPE_BYTES && t != PROTOBUF_C_TYPE_MESSAGE &&
        f->label != PROTOBUF_C_LABEL_REPEATED)
      continue; /* a scalar in the struct itself */
    if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
        *(const uint32_t *)(base + f->quantifier_offset) != f->id)
      continue;
    const void *v = base + f->offset;
    size_t n = 1;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      n = *(const size_t *)(base + f->quantifier_offset);
      const void *arr = *(void *const *)v;
      if (n == 0 || !arr) continue;
      size_t es = t == PROTOBUF_C_TYPE_STRING || t == PROTOBUF_C_TYPE_MESSAGE ? sizeof(void *)
                  : t == PROTOBUF_C_TYPE_BYTES ? sizeof(ProtobufCBinaryData)
                  : t == PROTOBUF_C_TYPE_BOOL ? sizeof(protobuf_c_boolean)
                  : t == PROTOBUF_C_TYPE_INT64 || t == PROTOBUF_C_TYPE_SINT64 ||
                            t == PROTOBUF_C_TYPE_SFIXED64 || t == PROTOBUF_C_TYPE_UINT64 ||
                            t == PROTOBUF_C_TYPE_FIXED64 || t == PROTOBUF_C_TYPE_DOUBLE
                      ? 8
                      : 4;
      tfx_arena_sweep_keep(s, arr, n * es);
      v = arr;
    }
    for (size_t k = 0; k < n; k++) {
      switch (t) {
      case PROTOBUF_C_TYPE_STRING: {
        const char *str = ((const char *const *)v)[k];
        if (str) tfx_arena_sweep_keep(s, str, strlen(str) + 1);
        break;
      }
      case PROTOBUF_C_TYPE_BYTES: {
        const ProtobufCBinaryData *b = &((const ProtobufCBinaryData *)v)[k];
        tfx_arena_sweep_keep(s, b->data, b->len);
        break;
      }
      case PROTOBUF_C_TYPE_MESSAGE: {
        const ProtobufCMessage *sub = ((const ProtobufCMessage *const *)v)[k];
        if (sub) keep_message(s, sub);
        break;
      }
      default: k = n; break; /* repeated scalars: the array was all */
      }
    }
  }
}

void tfx_model_keep_reachable(tfx_arena_sweep *s, const tfx_model *m) {
  if (m->path) tfx_arena_sweep_keep(s, m->path, strlen(m->path) + 1);
  if (m->root) keep_message(s, m->root);
}
