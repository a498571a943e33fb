/* The stdlib rule files embedded in the binary at build time (stdlib/embed.cmake).
 * Names are pseudo paths `<stdlib>/fusion/x.scoperule`, so diagnostics carry locations; the
 * table is in byte order of the names and ends with a {NULL, NULL, 0} entry. Data is
 * NUL-terminated; len excludes the NUL. */
#ifndef TFX_STDLIB_EMBED_H
#define TFX_STDLIB_EMBED_H

typedef struct tfx_embedded_file {
  const char *name;
  const char *data;
  unsigned long len;
} tfx_embedded_file;

extern const tfx_embedded_file tfx_stdlib_files[];
extern const unsigned tfx_stdlib_count;

#endif
