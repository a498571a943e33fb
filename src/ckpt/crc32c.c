/* CRC-32C (Castagnoli polynomial, reflected 0x82F63B78) and LevelDB's masking.
 * Stage: ckpt. Input: bytes. Output: the checksum TensorFlow's tensor bundles and LevelDB
 * tables store. Software slicing-by-8 (tables built once, pthread_once); on x86-64 with
 * SSE4.2 the crc32 instruction is used instead (same results, several times faster, which
 * matters when a checkpoint holds gigabytes; test_ckpt_bundle compares both paths). */
#define _POSIX_C_SOURCE 200809L
#include "ckpt/ckpt.h"

#include <pthread.h>
#include <string.h>

static uint32_t tab[8][256];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void tab_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
    tab[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int s = 1; s < 8; s++) tab[s][i] = (tab[s - 1][i] >> 8) ^ tab[0][tab[s - 1][i] & 0xFF];
}

uint32_t tfx_crc32c_extend_soft(uint32_t crc, const void *data, size_t n) {
  const uint8_t *p = data;
  pthread_once(&tab_once, tab_init);
  uint32_t c = ~crc;
  while (n && ((uintptr_t)p & 7u)) {
    c = (c >> 8) ^ tab[0][(c ^ *p++) & 0xFF];
    n--;
  }
  while (n >= 8) {
    uint32_t lo = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
    lo ^= c;
    c = tab[7][lo & 0xFF] ^ tab[6][(lo >> 8) & 0xFF] ^ tab[5][(lo >> 16) & 0xFF] ^ tab[4][lo >> 24] ^
        tab[3][hi & 0xFF] ^ tab[2][(hi >> 8) & 0xFF] ^ tab[1][(hi >> 16) & 0xFF] ^ tab[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) c = (c >> 8) ^ tab[0][(c ^ *p++) & 0xFF];
  return ~c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n) {
  uint64_t c = ~crc;
  while (n && ((uintptr_t)p & 7u)) {
    c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    n--;
  }
  while (n >= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    c = __builtin_ia32_crc32di(c, v);
    p += 8;
    n -= 8;
  }
  while (n--) c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
  return ~(uint32_t)c;
}
#endif

uint32_t tfx_crc32c_extend(uint32_t crc, const void *data, size_t n) {
  const uint8_t *p = data;
  if (!n) return crc;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("sse4.2")) return crc_hw(crc, p, n);
#endif
  return tfx_crc32c_extend_soft(crc, p, n);
}

uint32_t tfx_crc32c_mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
