/* The stdlib rules compiled into one pack at build time (src/rules/gen/gen_stdlib_pack.c) and
 * embedded in the binary (library tfxc_stdlib_pack). The bytes are a .tfxb pack exactly as
 * `tfxc compile` (no -r path) writes it; runs load them with tfx_pack_load, so the verifier
 * checks them like any pack. File names in the pack are the stdlib's `<stdlib>/...` names, so
 * every diagnostic, explain line and report cites the same file:line as a compile from source.
 *
 * Flags say when the pack stands in for a compile without changing what a run prints: a
 * compile of the stdlib alone that reports nothing with the default warnings (CLEAN_DEFAULT)
 * or even with -Wall, every warning on (CLEAN_ALL). */
#ifndef TFX_STDLIB_PACK_H
#define TFX_STDLIB_PACK_H

#define TFX_STDLIB_PACK_CLEAN_DEFAULT 1u /* no diagnostic with the default warnings */
#define TFX_STDLIB_PACK_CLEAN_ALL 2u     /* no diagnostic with -Wall (so with any -W set) */

extern const unsigned char *const tfx_stdlib_pack;
extern const unsigned long tfx_stdlib_pack_size;
extern const unsigned tfx_stdlib_pack_flags;

#endif
