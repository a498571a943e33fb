/* Pack format: deterministic writer, bounds-checked loader and the bytecode verifier.
 * Stage: vm. Input of the loader: untrusted bytes; output: a tfx_pack that tfx_pack_verify
 * accepted, so the interpreter can decode without checks. Layout: pack.h. Every read goes
 * through a cursor that fails (sticky) instead of reading past the end; every table size is
 * checked against its section's byte size before anything is allocated. */
#include "vm/pack.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"
#include "util/fileio.h"
#include "vm_fingerprint.h"

void tfx_pack_init(tfx_pack *p) {
  memset(p, 0, sizeof *p);
  tfx_arena_init(&p->arena);
}

void tfx_pack_free(tfx_pack *p) {
  tfx_arena_free(&p->arena);
  tfx_pack_init(p);
}

uint64_t tfx_pack_hash(const void *data, size_t n) {
  const unsigned char *b = data;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* ---------------------------------------------------------------- writing */

static void put_u32(tfx_strbuf *b, uint32_t v) {
  unsigned char w[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 24)};
  tfx_sb_add(b, w, 4);
}

static void put_u64(tfx_strbuf *b, uint64_t v) {
  put_u32(b, (uint32_t)v);
  put_u32(b, (uint32_t)(v >> 32));
}

/* Starts a section: writes id and a size placeholder; returns the placeholder's offset. */
static size_t sec_begin(tfx_strbuf *b, uint32_t id) {
  put_u32(b, id);
  size_t at = b->len;
  put_u32(b, 0);
  return at;
}

static void sec_end(tfx_strbuf *b, size_t at) {
  if (b->oom) return;
  uint32_t size = (uint32_t)(b->len - at - 4);
  unsigned char *w = (unsigned char *)b->data + at;
  w[0] = (unsigned char)size;
  w[1] = (unsigned char)(size >> 8);
  w[2] = (unsigned char)(size >> 16);
  w[3] = (unsigned char)(size >> 24);
}

static void put_rows(tfx_strbuf *b, uint32_t id, const uint32_t *rows, uint32_t n, size_t width) {
  size_t at = sec_begin(b, id);
  put_u32(b, n);
  for (size_t i = 0; i < (size_t)n * width; i++) put_u32(b, rows[i]);
  sec_end(b, at);
}

/* Table structs are arrays of uint32_t fields; these asserts keep put_rows/get_rows honest. */
_Static_assert(sizeof(tfx_vm_prog) == 5 * 4, "prog row");
_Static_assert(sizeof(tfx_vm_rule) == 11 * 4, "rule row");
_Static_assert(sizeof(tfx_vm_group) == 2 * 4, "group row");
_Static_assert(sizeof(tfx_vm_layer) == 2 * 4, "layer row");
_Static_assert(sizeof(tfx_vm_pattern) == 2 * 4, "pattern row");
_Static_assert(sizeof(tfx_vm_feature) == 4 * 4, "feature row");
_Static_assert(sizeof(tfx_vm_loc) == 4 * 4, "loc row");

int tfx_pack_write(const tfx_pack *p, tfx_strbuf *out) {
  tfx_strbuf pl;
  tfx_sb_init(&pl);
  size_t at = sec_begin(&pl, 1);
  put_u32(&pl, p->n_consts);
  for (uint32_t k = 0; k < p->n_consts; k++) {
    const tfx_value *v = &p->consts[k];
    put_u32(&pl, v->tag);
    switch (v->tag) {
    case TFX_V_BOOL:
    case TFX_V_INT:
    case TFX_V_DTYPE:
      put_u64(&pl, (uint64_t)v->u.i);
      break;
    case TFX_V_FLOAT: {
      uint64_t bits;
      memcpy(&bits, &v->u.f, sizeof bits);
      put_u64(&pl, bits);
      break;
    }
    case TFX_V_STR: {
      static const char zero[4] = {0};
      put_u32(&pl, v->n);
      tfx_sb_add(&pl, v->u.s, v->n);
      tfx_sb_add(&pl, zero, (4 - (v->n & 3)) & 3);
      break;
    }
    case TFX_V_LIST:
      put_u32(&pl, v->n);
      for (uint32_t i = 0; i < v->n; i++) put_u32(&pl, p->list_elems[p->list_first[k] + i]);
      break;
    default:
      break;
    }
  }
  sec_end(&pl, at);
  put_rows(&pl, 2, p->code, p->n_code, 1);
  put_rows(&pl, 3, (const uint32_t *)p->progs, p->n_progs, 5);
  put_rows(&pl, 4, (const uint32_t *)p->rules, p->n_rules, 11);
  put_rows(&pl, 5, (const uint32_t *)p->groups, p->n_groups, 2);
  put_rows(&pl, 6, (const uint32_t *)p->layers, p->n_layers, 2);
  put_rows(&pl, 7, (const uint32_t *)p->patterns, p->n_patterns, 2);
  put_rows(&pl, 8, (const uint32_t *)p->features, p->n_features, 4);
  put_rows(&pl, 9, p->files, p->n_files, 1);
  put_rows(&pl, 10, (const uint32_t *)p->locs, p->n_locs, 4);
  if (pl.oom) {
    tfx_sb_free(&pl);
    return -1;
  }
  tfx_sb_add(out, TFX_PACK_MAGIC, 4);
  put_u32(out, TFX_PACK_VERSION);
  put_u64(out, pl.len);
  put_u64(out, tfx_pack_hash(pl.data, pl.len));
  put_u32(out, TFX_PACK_N_SECTIONS);
  put_u32(out, TFX_PACK_TABLES_FINGERPRINT);
  tfx_sb_add(out, pl.data, pl.len);
  tfx_sb_free(&pl);
  return out->oom ? -1 : 0;
}

tfx_status tfx_pack_save_file(const tfx_pack *p, const char *path, tfx_diag *d) {
  tfx_strbuf b;
  tfx_sb_init(&b);
  if (tfx_pack_write(p, &b) != 0) {
    tfx_sb_free(&b);
    tfx_error(d, path, 0, 0, "out of memory writing pack");
    return TFX_E_NOMEM;
  }
  tfx_status rc = tfx_write_file_atomic(path, b.data, b.len, d);
  tfx_sb_free(&b);
  return rc == TFX_E_NOMEM ? rc : rc ? TFX_E_FAIL : TFX_OK;
}

/* ---------------------------------------------------------------- reading */

/* rd.err of a failed allocation (compared by address): reported as "out of memory loading
 * pack" with TFX_E_NOMEM, not as a corrupt pack. */
static const char rd_oom[] = "out of memory";

typedef struct rd {
  const unsigned char *p;
  size_t n, off;
  const char *err; /* first failure (sticky) */
} rd;

static uint32_t rd_u32(rd *r) {
  if (r->err) return 0;
  if (r->n - r->off < 4) {
    r->err = "truncated section";
    return 0;
  }
  const unsigned char *w = r->p + r->off;
  r->off += 4;
  return (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
}

static uint64_t rd_u64(rd *r) {
  uint64_t lo = rd_u32(r);
  return lo | (uint64_t)rd_u32(r) << 32;
}

/* Reads a row count and checks count * width words fit in the rest of the section. */
static uint32_t rd_count(rd *r, size_t width, uint32_t limit) {
  uint32_t n = rd_u32(r);
  if (r->err) return 0;
  if (n > limit) {
    r->err = "table too large";
    return 0;
  }
  if ((size_t)n * width > (r->n - r->off) / 4) {
    r->err = "table larger than its section";
    return 0;
  }
  return n;
}

static void *rd_rows(rd *r, tfx_arena *a, uint32_t *count, size_t width, uint32_t limit) {
  uint32_t n = rd_count(r, width, limit);
  if (r->err) return NULL;
  uint32_t *rows = tfx_arena_calloc(a, (size_t)n * width + 1, sizeof *rows);
  if (!rows) {
    r->err = rd_oom;
    return NULL;
  }
  /* rd_count checked that the rows fit: decode them in one pass (no per-word check). */
  const unsigned char *w = r->p + r->off;
  size_t words = (size_t)n * width;
  for (size_t i = 0; i < words; i++, w += 4)
    rows[i] = (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
  r->off += words * 4;
  *count = n;
  return rows;
}

static void load_consts(rd *r, tfx_pack *p) {
  uint32_t n = rd_count(r, 1, TFX_PACK_MAX_CONSTS); /* each record is at least one word */
  if (r->err) return;
  p->consts = tfx_arena_calloc(&p->arena, (size_t)n + 1, sizeof *p->consts);
  p->list_first = tfx_arena_calloc(&p->arena, (size_t)n + 1, sizeof *p->list_first);
  if (!p->consts || !p->list_first) {
    r->err = rd_oom;
    return;
  }
  /* First pass sizes list_elems: the elements are at most the words left. */
  size_t cap = (r->n - r->off) / 4, used = 0;
  p->list_elems = tfx_arena_calloc(&p->arena, cap + 1, sizeof *p->list_elems);
  if (!p->list_elems) {
    r->err = rd_oom;
    return;
  }
  for (uint32_t k = 0; k < n && !r->err; k++) {
    tfx_value *v = &p->consts[k];
    uint32_t tag = rd_u32(r);
    p->list_first[k] = TFX_PACK_NONE;
    switch (tag) {
    case TFX_V_NONE:
      *v = tfx_v_none();
      break;
    case TFX_V_BOOL: {
      uint64_t x = rd_u64(r);
      if (x > 1) r->err = "bad bool constant";
      *v = tfx_v_bool((int)x);
      break;
    }
    case TFX_V_INT:
      *v = tfx_v_int((int64_t)rd_u64(r));
      break;
    case TFX_V_DTYPE:
      *v = tfx_v_dtype((int64_t)rd_u64(r));
      break;
    case TFX_V_FLOAT: {
      uint64_t bits = rd_u64(r);
      double f;
      memcpy(&f, &bits, sizeof f);
      *v = tfx_v_float(f);
      break;
    }
    case TFX_V_STR: {
      uint32_t len = rd_u32(r);
      if (r->err) break;
      size_t padded = ((size_t)len + 3) & ~(size_t)3;
      if (len > TFX_PACK_MAX_STR || padded > r->n - r->off) {
        r->err = "string constant out of bounds";
        break;
      }
      char *s = tfx_arena_strndup(&p->arena, (const char *)r->p + r->off, len);
      if (!s) {
        r->err = rd_oom;
        break;
      }
      for (size_t i = len; i < padded; i++)
        if (r->p[r->off + i] != 0) r->err = "nonzero string padding";
      r->off += padded;
      *v = tfx_v_str(s, len);
      break;
    }
    case TFX_V_LIST: {
      uint32_t len = rd_count(r, 1, TFX_PACK_MAX_LIST);
      if (r->err) break;
      tfx_value *items = tfx_arena_calloc(&p->arena, (size_t)len + 1, sizeof *items);
      if (!items) {
        r->err = rd_oom;
        break;
      }
      p->list_first[k] = (uint32_t)used;
      for (uint32_t i = 0; i < len; i++) {
        uint32_t e = rd_u32(r);
        if (!r->err && e >= k) r->err = "list constant refers to a later constant";
        if (r->err) break;
        items[i] = p->consts[e];
        p->list_elems[used++] = e;
      }
      *v = tfx_v_list(items, len);
      break;
    }
    default:
      r->err = "bad constant tag";
      break;
    }
  }
  p->n_consts = n;
  p->n_list_elems = (uint32_t)used;
}

static int corrupt(tfx_diag *d, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int corrupt(tfx_diag *d, const char *name, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  tfx_error(d, name, 0, 0, "corrupt pack: %s", msg);
  return -1;
}

static tfx_status pack_load(tfx_pack *p, const void *bytes, size_t len, const char *name, int check_hash,
                     tfx_diag *d) {
  tfx_pack_init(p);
  const unsigned char *b = bytes;
  if (len < TFX_PACK_HEADER_SIZE || memcmp(b, TFX_PACK_MAGIC, 4) != 0) {
    corrupt(d, name, len < 4 ? "file too short" : "bad magic (not a .tfxb pack)");
    return TFX_E_INPUT;
  }
  rd h = {b, TFX_PACK_HEADER_SIZE, 4, NULL};
  uint32_t version = rd_u32(&h);
  uint64_t size = rd_u64(&h), hash = rd_u64(&h);
  uint32_t nsec = rd_u32(&h), fingerprint = rd_u32(&h);
  if (version != TFX_PACK_VERSION) {
    tfx_error(d, name, 0, 0,
              "compiled by a different tfxc (pack format version %u, this tfxc reads %u): "
              "recompile it with 'tfxc compile'", version, TFX_PACK_VERSION);
    return TFX_E_INPUT;
  }
  if (fingerprint != TFX_PACK_TABLES_FINGERPRINT) {
    tfx_error(d, name, 0, 0,
              "compiled by a different tfxc (VM tables fingerprint %08x, this tfxc has %08x: "
              "opcode, builtin or property ids differ): recompile it with 'tfxc compile'",
              fingerprint, (unsigned)TFX_PACK_TABLES_FINGERPRINT);
    return TFX_E_INPUT;
  }
  if (len > TFX_PACK_MAX_BYTES || size != len - TFX_PACK_HEADER_SIZE) {
    corrupt(d, name, "payload size %llu does not match the file (%zu bytes)",
            (unsigned long long)size, len);
    return TFX_E_INPUT;
  }
  if (check_hash && tfx_pack_hash(b + TFX_PACK_HEADER_SIZE, (size_t)size) != hash) {
    corrupt(d, name, "content hash mismatch");
    return TFX_E_INPUT;
  }
  if (nsec != TFX_PACK_N_SECTIONS) {
    corrupt(d, name, "bad section count %u", nsec);
    return TFX_E_INPUT;
  }
  rd all = {b + TFX_PACK_HEADER_SIZE, (size_t)size, 0, NULL};
  const char *err = NULL;
  uint32_t bad_sec = 0;
  for (uint32_t id = 1; id <= TFX_PACK_N_SECTIONS && !err; id++) {
    uint32_t sid = rd_u32(&all), ssize = rd_u32(&all);
    if (all.err || sid != id || ssize % 4 != 0 || ssize > all.n - all.off) {
      err = all.err ? all.err : "bad section header";
      bad_sec = id;
      break;
    }
    rd r = {all.p + all.off, ssize, 0, NULL};
    all.off += ssize;
    switch (id) {
    case 1: load_consts(&r, p); break;
    case 2: p->code = rd_rows(&r, &p->arena, &p->n_code, 1, TFX_PACK_MAX_CODE); break;
    case 3: p->progs = rd_rows(&r, &p->arena, &p->n_progs, 5, TFX_PACK_MAX_TABLE); break;
    case 4: p->rules = rd_rows(&r, &p->arena, &p->n_rules, 11, TFX_PACK_MAX_TABLE); break;
    case 5: p->groups = rd_rows(&r, &p->arena, &p->n_groups, 2, TFX_PACK_MAX_TABLE); break;
    case 6: p->layers = rd_rows(&r, &p->arena, &p->n_layers, 2, TFX_PACK_MAX_TABLE); break;
    case 7: p->patterns = rd_rows(&r, &p->arena, &p->n_patterns, 2, TFX_PACK_MAX_TABLE); break;
    case 8: p->features = rd_rows(&r, &p->arena, &p->n_features, 4, TFX_PACK_MAX_TABLE); break;
    case 9: p->files = rd_rows(&r, &p->arena, &p->n_files, 1, TFX_PACK_MAX_TABLE); break;
    default: p->locs = rd_rows(&r, &p->arena, &p->n_locs, 4, TFX_PACK_MAX_TABLE); break;
    }
    if (!r.err && r.off != r.n) r.err = "trailing bytes in section";
    if (r.err) {
      err = r.err;
      bad_sec = id;
    }
  }
  if (!err && all.off != all.n) err = "trailing bytes after the last section";
  if (err == rd_oom) {
    tfx_error(d, name, 0, 0, "out of memory loading pack");
    tfx_pack_free(p);
    return TFX_E_NOMEM;
  }
  if (err) {
    if (bad_sec)
      corrupt(d, name, "section %u: %s", bad_sec, err);
    else
      corrupt(d, name, "%s", err);
    tfx_pack_free(p);
    return TFX_E_INPUT;
  }
  tfx_status vr = tfx_pack_verify(p, name, d);
  if (vr != TFX_OK) {
    tfx_pack_free(p);
    return vr;
  }
  p->sigs_trusted = !check_hash; /* the embedded stdlib: this build compiled it (pack.h) */
  return 0;
}

tfx_status tfx_pack_load(tfx_pack *p, const void *bytes, size_t len, const char *name, tfx_diag *d) {
  return pack_load(p, bytes, len, name, 1, d);
}

tfx_status tfx_pack_load_builtin(tfx_pack *p, const void *bytes, size_t len, const char *name,
                                 tfx_diag *d) {
  return pack_load(p, bytes, len, name, 0, d);
}

tfx_status tfx_pack_load_file(tfx_pack *p, const char *path, tfx_diag *d) {
  size_t len = 0;
  tfx_status st;
  char *data = tfx_read_file_st(path, TFX_PACK_MAX_BYTES, NULL, &len, &st, d);
  if (!data) {
    tfx_pack_init(p);
    return st; /* TFX_E_INPUT, or TFX_E_NOMEM: a resource failure, not an unreadable pack */
  }
  tfx_status rc = tfx_pack_load(p, data, len, path, d);
  free(data);
  return rc;
}

/* ---------------------------------------------------------------- verifier */

static int in_range(uint32_t first, uint32_t n, uint32_t total) {
  return first <= total && n <= total - first;
}

static int is_str(const tfx_pack *p, uint32_t k) {
  return k < p->n_consts && p->consts[k].tag == TFX_V_STR;
}

static const char *kind_name(uint32_t kind) {
  return kind == TFX_PK_SCOPE ? "scope" : kind == TFX_PK_SELECT ? "selection"
                                        : kind == TFX_PK_MAP    ? "map"
                                                                : "?";
}

/* Checks one program's instructions; boundary marks instruction starts. */
static int verify_prog(const tfx_pack *p, uint32_t pi, unsigned char *boundary, const char *name,
                       tfx_diag *d) {
  const tfx_vm_prog *pr = &p->progs[pi];
  uint32_t pc = pr->start, last = TFX_OP_NOP;
  while (pc < pr->end) {
    const uint32_t *ins = p->code + pc;
    uint32_t op = ins[0] & 0xffu;
    if (op >= TFX_OP__COUNT) return corrupt(d, name, "pc %u: bad opcode %u", pc, op);
    if (TFX_INS_RESERVED(ins)) return corrupt(d, name, "pc %u: reserved bits set", pc);
    const tfx_opinfo *oi = &tfx_vm_ops[op];
    if (pr->end - pc < TFX_INS_LEN(op))
      return corrupt(d, name, "pc %u: %s runs past the end of program %u", pc, oi->name, pi);
    if (!(oi->progs & pr->kind))
      return corrupt(d, name, "pc %u: %s is not allowed in a %s program", pc, oi->name,
                     kind_name(pr->kind));
    boundary[pc] = 1;
    for (unsigned i = 0; i < oi->n_operands; i++) {
      uint32_t v = TFX_INS_RAW(ins, i);
      const char *bad = NULL;
      switch (oi->kinds[i]) {
      case TFX_K_R: if (v >= pr->nregs) bad = "register out of frame"; break;
      case TFX_K_R2: if (v >= pr->nregs - 1) bad = "register pair out of frame"; break;
      case TFX_K_N:
        if (v > pr->nregs - TFX_INS_RAW(ins, i - 1)) bad = "register range out of frame";
        break;
      case TFX_K_K: if (v >= p->n_consts) bad = "constant index out of range"; break;
      case TFX_K_KS:
      case TFX_K_KO:
      case TFX_K_KT: if (!is_str(p, v)) bad = "operand is not a string constant"; break;
      case TFX_K_D: if (v > 1) bad = "bad port direction"; break;
      case TFX_K_B:
        if (v >= TFX_BI__COUNT) bad = "bad builtin id";
        else if (!(tfx_vm_builtins[v].progs & pr->kind)) bad = "builtin not allowed here";
        break;
      case TFX_K_F:
        if (v >= p->n_features) bad = "feature id out of range";
        else if (p->features[v].opcode != op) bad = "feature belongs to another test";
        break;
      case TFX_K_P: if (v >= TFX_PR__COUNT) bad = "bad property id"; break;
      default: break; /* J checked below; I is any int32 */
      }
      if (bad) return corrupt(d, name, "pc %u: %s operand %u: %s", pc, oi->name, i, bad);
    }
    if (op == TFX_OP_CALL) {
      const tfx_builtin_info *bi = &tfx_vm_builtins[TFX_INS_RAW(ins, 1)];
      uint32_t argc = TFX_INS_RAW(ins, 3);
      if (argc < bi->min_args || argc > bi->max_args)
        return corrupt(d, name, "pc %u: %s takes %u..%u arguments, not %u", pc, bi->name,
                       bi->min_args, bi->max_args, argc);
    }
    if (op == TFX_OP_SC_STEP && TFX_INS_RAW(ins, 3) == 0)
      return corrupt(d, name, "pc %u: SC_STEP with step 0", pc);
    last = op;
    pc += TFX_INS_LEN(op);
  }
  if (!(tfx_vm_ops[last].flags & TFX_OPF_END))
    return corrupt(d, name, "program %u can fall off its end", pi);
  /* Jump targets, now that every instruction start is known. */
  for (pc = pr->start; pc < pr->end; pc += TFX_INS_LEN(p->code[pc] & 0xffu)) {
    const uint32_t *ins = p->code + pc;
    const tfx_opinfo *oi = &tfx_vm_ops[TFX_INS_OP(ins)];
    for (unsigned i = 0; i < oi->n_operands; i++) {
      if (oi->kinds[i] != TFX_K_J) continue;
      uint32_t t = TFX_INS_RAW(ins, i);
      if (t < pr->start || t >= pr->end || !boundary[t])
        return corrupt(d, name, "pc %u: %s jumps to %u, not an instruction of program %u", pc,
                       oi->name, t, pi);
    }
  }
  return 0;
}

static int verify(const tfx_pack *p, const char *name, tfx_diag *d) {
  /* Constants. */
  for (uint32_t k = 0; k < p->n_consts; k++) {
    const tfx_value *v = &p->consts[k];
    if (v->tag == TFX_V_STR && (!v->u.s || v->u.s[v->n] != 0))
      return corrupt(d, name, "constant %u: bad string", k);
    if (v->tag == TFX_V_LIST) {
      uint32_t f = p->list_first[k];
      if (!in_range(f, v->n, p->n_list_elems) || v->depth > TFX_V_MAX_DEPTH)
        return corrupt(d, name, "constant %u: bad list", k);
      for (uint32_t i = 0; i < v->n; i++)
        if (p->list_elems[f + i] >= k) return corrupt(d, name, "constant %u: bad list", k);
    }
    if (v->tag >= TFX_V__COUNT || v->tag == TFX_V_SCOPE || v->tag == TFX_V_NODE)
      return corrupt(d, name, "constant %u: bad tag", k);
  }
  if (p->n_code > TFX_PACK_MAX_CODE) return corrupt(d, name, "code too large");
  /* Programs tile the code in order. */
  uint32_t expect = 0;
  for (uint32_t i = 0; i < p->n_progs; i++) {
    const tfx_vm_prog *pr = &p->progs[i];
    if (pr->start != expect || pr->end <= pr->start || pr->end > p->n_code)
      return corrupt(d, name, "program %u: bad code range [%u, %u)", i, pr->start, pr->end);
    if (pr->nregs < 1 || pr->nregs > TFX_VM_MAX_REGS)
      return corrupt(d, name, "program %u: bad frame size %u", i, pr->nregs);
    if (pr->kind != TFX_PK_SCOPE && pr->kind != TFX_PK_SELECT && pr->kind != TFX_PK_MAP)
      return corrupt(d, name, "program %u: bad kind %u", i, pr->kind);
    if (pr->rule != TFX_PACK_NONE && pr->rule >= p->n_rules)
      return corrupt(d, name, "program %u: bad rule %u", i, pr->rule);
    expect = pr->end;
  }
  if (expect != p->n_code) return corrupt(d, name, "code not covered by programs");
  if (p->n_code) {
    unsigned char *boundary = tfx_calloc(p->n_code, 1);
    if (!boundary) {
      tfx_error(d, name, 0, 0, "out of memory verifying pack");
      return -2;
    }
    int rc = 0;
    for (uint32_t i = 0; i < p->n_progs && rc == 0; i++) rc = verify_prog(p, i, boundary, name, d);
    free(boundary);
    if (rc) return rc;
  }
  /* Rules and pass structure. */
  for (uint32_t r = 0; r < p->n_rules; r++) {
    const tfx_vm_rule *ru = &p->rules[r];
    if (!is_str(p, ru->name)) return corrupt(d, name, "rule %u: bad name", r);
    if (ru->kind != TFX_RULE_PASS && ru->kind != TFX_RULE_MAP && ru->kind != TFX_RULE_FLOW)
      return corrupt(d, name, "rule %u: bad kind", r);
    if (ru->flags & ~TFX_RULE_FLAGS_ALL) return corrupt(d, name, "rule %u: bad flags", r);
    if (ru->from != TFX_PACK_NONE) {
      if (ru->from >= p->n_consts || p->consts[ru->from].tag != TFX_V_LIST)
        return corrupt(d, name, "rule %u: bad from-types", r);
      const tfx_value *l = &p->consts[ru->from];
      for (uint32_t i = 0; i < l->n; i++)
        if (l->u.items[i].tag != TFX_V_STR) return corrupt(d, name, "rule %u: bad from-types", r);
    }
    if (ru->to != TFX_PACK_NONE && !is_str(p, ru->to))
      return corrupt(d, name, "rule %u: bad to-type", r);
    uint32_t want = ru->kind == TFX_RULE_PASS ? TFX_PK_SELECT : TFX_PK_MAP;
    if (ru->prog != TFX_PACK_NONE &&
        (ru->prog >= p->n_progs || p->progs[ru->prog].kind != want || p->progs[ru->prog].rule != r))
      return corrupt(d, name, "rule %u: bad program %u", r, ru->prog);
    if (!in_range(ru->group_first, ru->n_groups, p->n_groups) ||
        (ru->kind != TFX_RULE_PASS && ru->n_groups))
      return corrupt(d, name, "rule %u: bad groups", r);
    if (ru->file != TFX_PACK_NONE && ru->file >= p->n_files)
      return corrupt(d, name, "rule %u: bad file", r);
  }
  for (uint32_t g = 0; g < p->n_groups; g++)
    if (!in_range(p->groups[g].layer_first, p->groups[g].n_layers, p->n_layers))
      return corrupt(d, name, "group %u: bad layers", g);
  for (uint32_t l = 0; l < p->n_layers; l++)
    if (!in_range(p->layers[l].pattern_first, p->layers[l].n_patterns, p->n_patterns))
      return corrupt(d, name, "layer %u: bad patterns", l);
  for (uint32_t i = 0; i < p->n_patterns; i++) {
    const tfx_vm_pattern *pt = &p->patterns[i];
    if (!is_str(p, pt->sub_type)) return corrupt(d, name, "pattern %u: bad sub_type", i);
    if (pt->prog >= p->n_progs || p->progs[pt->prog].kind != TFX_PK_SCOPE)
      return corrupt(d, name, "pattern %u: bad program", i);
  }
  for (uint32_t f = 0; f < p->n_features; f++) {
    const tfx_vm_feature *fe = &p->features[f];
    if (fe->opcode >= TFX_OP__COUNT || tfx_vm_ops[fe->opcode].kinds[0] != TFX_K_F)
      return corrupt(d, name, "feature %u: bad opcode", f);
    if (fe->text != TFX_PACK_NONE && !is_str(p, fe->text))
      return corrupt(d, name, "feature %u: bad text", f);
    if (fe->file != TFX_PACK_NONE && fe->file >= p->n_files)
      return corrupt(d, name, "feature %u: bad file", f);
  }
  for (uint32_t i = 0; i < p->n_files; i++)
    if (!is_str(p, p->files[i])) return corrupt(d, name, "file %u: bad name", i);
  for (uint32_t i = 0; i < p->n_locs; i++) {
    const tfx_vm_loc *l = &p->locs[i];
    if (l->pc >= p->n_code || (i && l->pc <= p->locs[i - 1].pc) || l->file >= p->n_files)
      return corrupt(d, name, "source map entry %u out of order or range", i);
  }
  return 0;
}

tfx_status tfx_pack_verify(const tfx_pack *p, const char *name, tfx_diag *d) {
  int r = verify(p, name, d);
  return r == 0 ? TFX_OK : r == -2 ? TFX_E_NOMEM : TFX_E_INPUT;
}

/* ---------------------------------------------------------------- queries */

uint32_t tfx_pack_prog_at(const tfx_pack *p, uint32_t pc) {
  uint32_t lo = 0, hi = p->n_progs;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (p->progs[mid].end <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < p->n_progs && p->progs[lo].start <= pc ? lo : TFX_PACK_NONE;
}

const tfx_vm_loc *tfx_pack_loc_at(const tfx_pack *p, uint32_t pc) {
  uint32_t lo = 0, hi = p->n_locs;
  while (lo < hi) { /* first entry with pc > target */
    uint32_t mid = lo + (hi - lo) / 2;
    if (p->locs[mid].pc <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return NULL;
  const tfx_vm_loc *l = &p->locs[lo - 1];
  uint32_t pi = tfx_pack_prog_at(p, pc);
  if (pi != TFX_PACK_NONE && l->pc < p->progs[pi].start) return NULL; /* another program's */
  return l;
}

const char *tfx_pack_str(const tfx_pack *p, uint32_t k) {
  return is_str(p, k) ? p->consts[k].u.s : NULL;
}

const char *tfx_pack_file(const tfx_pack *p, uint32_t f) {
  return f < p->n_files ? p->consts[p->files[f]].u.s : "?";
}

const char *tfx_pack_rule_name_at(const tfx_pack *p, uint32_t pc) {
  uint32_t pi = tfx_pack_prog_at(p, pc);
  if (pi == TFX_PACK_NONE || p->progs[pi].rule == TFX_PACK_NONE) return NULL;
  return tfx_pack_str(p, p->rules[p->progs[pi].rule].name);
}
