/* Protobuf text format: token codes and scanner state shared by grammar/pbtxt.l and
 * src/io/pbtxt_parse.c (internal to the io module).
 * Stage: io. The scanner reads a caller-owned buffer of explicit length through YY_INPUT and
 * reports each token as a byte offset/length into that buffer plus 1-based line/column, so
 * token text never has to be copied. Flex memory goes through a tracked allocator so an
 * allocation failure (longjmp out of the scanner) leaks nothing. */
#ifndef TFX_IO_PBTXT_TOKENS_H
#define TFX_IO_PBTXT_TOKENS_H

#include <setjmp.h>
#include <stddef.h>

/* Token codes. Punctuation is returned as the character itself: { } < > [ ] : , ; / - */
enum {
  TFX_PBTXT_T_EOF = 0,
  TFX_PBTXT_T_IDENT = 256, /* identifier, possibly dotted: a.b.c */
  TFX_PBTXT_T_INT,         /* -?(decimal | 0x hex | 0 octal) */
  TFX_PBTXT_T_FLOAT,       /* -?(1.5 | .5 | 1e5 | 1.0f | 1f) */
  TFX_PBTXT_T_STRING,      /* '...' or "..." including the quotes, still escaped */
  TFX_PBTXT_T_BADSTR,      /* string literal without its closing quote on the same line */
  TFX_PBTXT_T_BADNUM,      /* number run into letters or dots: 12abc, 1.2.3, 08 */
  TFX_PBTXT_T_BADCHAR,     /* a byte that starts no token */
  TFX_PBTXT_T_NUL,         /* a NUL byte */
  TFX_PBTXT_T_OOM          /* the scanner ran out of memory (not produced by the rules) */
};

/* One tracked flex allocation (header before the user block). */
typedef struct tfx_pbtxt_blk {
  struct tfx_pbtxt_blk *prev, *next;
  size_t size;
  size_t pad; /* keeps the user block 16-byte aligned on LP64 */
} tfx_pbtxt_blk;

typedef struct tfx_pbtxt_scan {
  const char *buf;    /* the whole input (borrowed) */
  size_t len;         /* its length */
  size_t rd;          /* YY_INPUT read position */
  size_t off;         /* offset just past the last matched text */
  size_t tok_off;     /* offset of the last token */
  size_t line_start;  /* offset where the current line starts */
  unsigned line;      /* 1-based line of the current position */
  tfx_pbtxt_blk blocks; /* sentinel of the tracked allocation list */
  jmp_buf *oom_jmp;   /* where tfx_pbtxt_scan_fatal jumps; set once per parse */
} tfx_pbtxt_scan;

void tfx_pbtxt_scan_init(tfx_pbtxt_scan *s, const char *buf, size_t len);
/* Frees every flex allocation still alive (after yylex_destroy or after a longjmp). */
void tfx_pbtxt_scan_release(tfx_pbtxt_scan *s);
size_t tfx_pbtxt_scan_read(tfx_pbtxt_scan *s, char *dst, size_t max);
void *tfx_pbtxt_scan_alloc(tfx_pbtxt_scan *s, size_t n);
void *tfx_pbtxt_scan_realloc(tfx_pbtxt_scan *s, void *p, size_t n);
void tfx_pbtxt_scan_free(tfx_pbtxt_scan *s, void *p);
/* Flex's YY_FATAL_ERROR (only raised on allocation failure): longjmps to s->oom_jmp. */
_Noreturn void tfx_pbtxt_scan_fatal(tfx_pbtxt_scan *s);

#endif
