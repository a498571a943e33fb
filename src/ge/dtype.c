/* GE data types and formats: TF DataType -> GE proto DataType, GE proto -> C++ ge::DataType,
 * element sizes, format names -> C++ ge::Format numbers.
 * Stage: ge (tables used by attribute conversion and lowering). Pure functions, no state.
 * Sources: docs/ASCEND.md §6.4 (Ascend's TF->GE collapses, register/tensor_assign.cpp), docs/AIR.md §2.1
 * (proto enum), §3.2 (C++ ge::Format), §3.1 (C++ ge::DataType, kDataTypeMap). */
#include <string.h>

#include "ge/ge.h"

/* ---------------------------------------------------------------- TF -> GE proto */

/* Indexed by TF DataType (base types, 0..32). Ascend's data_type_map: quantized TF types
 * collapse to plain ints, HALF -> FLOAT16, BFLOAT16 -> BF16. Types Ascend's (2021) map lacks
 * but GE's proto has an exact twin for (INT4, INT2, UINT2, FLOAT8_E5M2, FLOAT8_E4M3FN) are
 * mapped to that twin; the *FNUZ / B11 float8 variants and UINT4 have none: DT_UNDEFINED. */
static const int8_t tf_to_ge[33] = {
  [TENSORFLOW__DATA_TYPE__DT_FLOAT] = GE__PROTO__DATA_TYPE__DT_FLOAT,
  [TENSORFLOW__DATA_TYPE__DT_DOUBLE] = GE__PROTO__DATA_TYPE__DT_DOUBLE,
  [TENSORFLOW__DATA_TYPE__DT_INT32] = GE__PROTO__DATA_TYPE__DT_INT32,
  [TENSORFLOW__DATA_TYPE__DT_UINT8] = GE__PROTO__DATA_TYPE__DT_UINT8,
  [TENSORFLOW__DATA_TYPE__DT_INT16] = GE__PROTO__DATA_TYPE__DT_INT16,
  [TENSORFLOW__DATA_TYPE__DT_INT8] = GE__PROTO__DATA_TYPE__DT_INT8,
  [TENSORFLOW__DATA_TYPE__DT_STRING] = GE__PROTO__DATA_TYPE__DT_STRING,
  [TENSORFLOW__DATA_TYPE__DT_COMPLEX64] = GE__PROTO__DATA_TYPE__DT_COMPLEX64,
  [TENSORFLOW__DATA_TYPE__DT_INT64] = GE__PROTO__DATA_TYPE__DT_INT64,
  [TENSORFLOW__DATA_TYPE__DT_BOOL] = GE__PROTO__DATA_TYPE__DT_BOOL,
  [TENSORFLOW__DATA_TYPE__DT_QINT8] = GE__PROTO__DATA_TYPE__DT_INT8,
  [TENSORFLOW__DATA_TYPE__DT_QUINT8] = GE__PROTO__DATA_TYPE__DT_UINT8,
  [TENSORFLOW__DATA_TYPE__DT_QINT32] = GE__PROTO__DATA_TYPE__DT_INT32,
  [TENSORFLOW__DATA_TYPE__DT_BFLOAT16] = GE__PROTO__DATA_TYPE__DT_BF16,
  [TENSORFLOW__DATA_TYPE__DT_QINT16] = GE__PROTO__DATA_TYPE__DT_INT16,
  [TENSORFLOW__DATA_TYPE__DT_QUINT16] = GE__PROTO__DATA_TYPE__DT_UINT16,
  [TENSORFLOW__DATA_TYPE__DT_UINT16] = GE__PROTO__DATA_TYPE__DT_UINT16,
  [TENSORFLOW__DATA_TYPE__DT_COMPLEX128] = GE__PROTO__DATA_TYPE__DT_COMPLEX128,
  [TENSORFLOW__DATA_TYPE__DT_HALF] = GE__PROTO__DATA_TYPE__DT_FLOAT16,
  [TENSORFLOW__DATA_TYPE__DT_RESOURCE] = GE__PROTO__DATA_TYPE__DT_RESOURCE,
  [TENSORFLOW__DATA_TYPE__DT_VARIANT] = GE__PROTO__DATA_TYPE__DT_VARIANT,
  [TENSORFLOW__DATA_TYPE__DT_UINT32] = GE__PROTO__DATA_TYPE__DT_UINT32,
  [TENSORFLOW__DATA_TYPE__DT_UINT64] = GE__PROTO__DATA_TYPE__DT_UINT64,
  [TENSORFLOW__DATA_TYPE__DT_FLOAT8_E5M2] = GE__PROTO__DATA_TYPE__DT_FLOAT8_E5M2,
  [TENSORFLOW__DATA_TYPE__DT_FLOAT8_E4M3FN] = GE__PROTO__DATA_TYPE__DT_FLOAT8_E4M3FN,
  [TENSORFLOW__DATA_TYPE__DT_INT4] = GE__PROTO__DATA_TYPE__DT_INT4,
  [TENSORFLOW__DATA_TYPE__DT_INT2] = GE__PROTO__DATA_TYPE__DT_INT2,
  [TENSORFLOW__DATA_TYPE__DT_UINT2] = GE__PROTO__DATA_TYPE__DT_UINT2,
};

int tfx_ge_dtype_from_tf(int tf_dtype) {
  /* Ascend: BFLOAT16_REF -> FLOAT16 (sic, docs/ASCEND.md §6.4); other *_REF types
   * fold to their base type. */
  if (tf_dtype == TENSORFLOW__DATA_TYPE__DT_BFLOAT16_REF) return GE__PROTO__DATA_TYPE__DT_FLOAT16;
  if (tf_dtype > 100) tf_dtype -= 100;
  if (tf_dtype <= 0 || tf_dtype >= (int)(sizeof tf_to_ge / sizeof *tf_to_ge))
    return GE__PROTO__DATA_TYPE__DT_UNDEFINED;
  return tf_to_ge[tf_dtype]; /* unlisted entries are 0 = DT_UNDEFINED */
}

/* ---------------------------------------------------------------- GE proto -> C++ */

/* GE's kDataTypeMap (graph/ge_tensor.cc), indexed by the proto number. */
static const int8_t ge_to_cpp[41] = {
  [GE__PROTO__DATA_TYPE__DT_UNDEFINED] = 28,
  [GE__PROTO__DATA_TYPE__DT_FLOAT] = 0,
  [GE__PROTO__DATA_TYPE__DT_FLOAT16] = 1,
  [GE__PROTO__DATA_TYPE__DT_INT8] = 2,
  [GE__PROTO__DATA_TYPE__DT_UINT8] = 4,
  [GE__PROTO__DATA_TYPE__DT_INT16] = 6,
  [GE__PROTO__DATA_TYPE__DT_UINT16] = 7,
  [GE__PROTO__DATA_TYPE__DT_INT32] = 3,
  [GE__PROTO__DATA_TYPE__DT_INT64] = 9,
  [GE__PROTO__DATA_TYPE__DT_UINT32] = 8,
  [GE__PROTO__DATA_TYPE__DT_UINT64] = 10,
  [GE__PROTO__DATA_TYPE__DT_BOOL] = 12,
  [GE__PROTO__DATA_TYPE__DT_DOUBLE] = 11,
  [GE__PROTO__DATA_TYPE__DT_STRING] = 13,
  [GE__PROTO__DATA_TYPE__DT_DUAL_SUB_INT8] = 14,
  [GE__PROTO__DATA_TYPE__DT_DUAL_SUB_UINT8] = 15,
  [GE__PROTO__DATA_TYPE__DT_COMPLEX64] = 16,
  [GE__PROTO__DATA_TYPE__DT_COMPLEX128] = 17,
  [GE__PROTO__DATA_TYPE__DT_QINT8] = 18,
  [GE__PROTO__DATA_TYPE__DT_QINT16] = 19,
  [GE__PROTO__DATA_TYPE__DT_QINT32] = 20,
  [GE__PROTO__DATA_TYPE__DT_QUINT8] = 21,
  [GE__PROTO__DATA_TYPE__DT_QUINT16] = 22,
  [GE__PROTO__DATA_TYPE__DT_RESOURCE] = 23,
  [GE__PROTO__DATA_TYPE__DT_STRING_REF] = 24,
  [GE__PROTO__DATA_TYPE__DT_DUAL] = 25,
  [GE__PROTO__DATA_TYPE__DT_VARIANT] = 26,
  [GE__PROTO__DATA_TYPE__DT_BF16] = 27,
  [GE__PROTO__DATA_TYPE__DT_INT4] = 29,
  [GE__PROTO__DATA_TYPE__DT_UINT1] = 30,
  [GE__PROTO__DATA_TYPE__DT_INT2] = 31,
  [GE__PROTO__DATA_TYPE__DT_UINT2] = 32,
  [GE__PROTO__DATA_TYPE__DT_COMPLEX32] = 33,
  [GE__PROTO__DATA_TYPE__DT_HIFLOAT8] = 34,
  [GE__PROTO__DATA_TYPE__DT_FLOAT8_E5M2] = 35,
  [GE__PROTO__DATA_TYPE__DT_FLOAT8_E4M3FN] = 36,
  [GE__PROTO__DATA_TYPE__DT_FLOAT8_E8M0] = 37,
  [GE__PROTO__DATA_TYPE__DT_FLOAT6_E3M2] = 38,
  [GE__PROTO__DATA_TYPE__DT_FLOAT6_E2M3] = 39,
  [GE__PROTO__DATA_TYPE__DT_FLOAT4_E2M1] = 40,
  [GE__PROTO__DATA_TYPE__DT_FLOAT4_E1M2] = 41,
};

int64_t tfx_ge_cpp_dtype(int ge_proto_dtype) {
  if (ge_proto_dtype < 0 || ge_proto_dtype >= (int)(sizeof ge_to_cpp / sizeof *ge_to_cpp))
    return 28;
  return ge_to_cpp[ge_proto_dtype];
}

/* ---------------------------------------------------------------- sizes */

size_t tfx_ge_dtype_size(int ge_proto_dtype) {
  switch (ge_proto_dtype) {
  case GE__PROTO__DATA_TYPE__DT_INT8: case GE__PROTO__DATA_TYPE__DT_UINT8:
  case GE__PROTO__DATA_TYPE__DT_BOOL: case GE__PROTO__DATA_TYPE__DT_QINT8:
  case GE__PROTO__DATA_TYPE__DT_QUINT8: case GE__PROTO__DATA_TYPE__DT_DUAL_SUB_INT8:
  case GE__PROTO__DATA_TYPE__DT_DUAL_SUB_UINT8: case GE__PROTO__DATA_TYPE__DT_HIFLOAT8:
  case GE__PROTO__DATA_TYPE__DT_FLOAT8_E5M2: case GE__PROTO__DATA_TYPE__DT_FLOAT8_E4M3FN:
  case GE__PROTO__DATA_TYPE__DT_FLOAT8_E8M0:
    return 1;
  case GE__PROTO__DATA_TYPE__DT_FLOAT16: case GE__PROTO__DATA_TYPE__DT_BF16:
  case GE__PROTO__DATA_TYPE__DT_INT16: case GE__PROTO__DATA_TYPE__DT_UINT16:
  case GE__PROTO__DATA_TYPE__DT_QINT16: case GE__PROTO__DATA_TYPE__DT_QUINT16:
    return 2;
  case GE__PROTO__DATA_TYPE__DT_FLOAT: case GE__PROTO__DATA_TYPE__DT_INT32:
  case GE__PROTO__DATA_TYPE__DT_UINT32: case GE__PROTO__DATA_TYPE__DT_QINT32:
  case GE__PROTO__DATA_TYPE__DT_COMPLEX32:
    return 4;
  case GE__PROTO__DATA_TYPE__DT_DOUBLE: case GE__PROTO__DATA_TYPE__DT_INT64:
  case GE__PROTO__DATA_TYPE__DT_UINT64: case GE__PROTO__DATA_TYPE__DT_COMPLEX64:
    return 8;
  case GE__PROTO__DATA_TYPE__DT_COMPLEX128:
    return 16;
  default: /* string, resource, variant, dual, sub-byte types, undefined */
    return 0;
  }
}

/* ---------------------------------------------------------------- formats */

/* Serial names of C++ ge::Format values (TypeUtils kFormatToStringMap: the enum name without
 * FORMAT_, except the spellings noted in docs/AIR.md §3.2). Index = C++ value. */
static const char *const format_names[] = {
  "NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z", "NC1C0HWPAD", "NHWC1C0", "FSR_NCHW",
  "FRACTAL_DECONV", "C1HWNC0", "FRACTAL_DECONV_TRANSPOSE", "FRACTAL_DECONV_SP_STRIDE_TRANS",
  "NC1HWC0_C04", "FRACTAL_Z_C04", "CHWN", "DECONV_SP_STRIDE8_TRANS", "HWCN",
  "NC1KHKWHWC0", "BN_WEIGHT", "FILTER_HWCK", "LOOKUP_LOOKUPS", "LOOKUP_KEYS", "LOOKUP_VALUE",
  "LOOKUP_OUTPUT", "LOOKUP_HITS", "C1HWNCoC0", "MD", "NDHWC", "FRACTAL_ZZ", "FRACTAL_NZ",
  "NCDHW", "DHWCN", "NDC1HWC0", "FRACTAL_Z_3D", "CN", "NC", "DHWNC", "FRACTAL_Z_3D_TRANSPOSE",
  "FRACTAL_ZN_LSTM", "FRACTAL_Z_G", "FORMAT_RESERVED", "ALL", "NULL", "ND_RNN_BIAS",
  "FRACTAL_ZN_RNN", "NYUV", "NYUV_A", "NCL", "FRACTAL_Z_WINO", "C1HWC0",
  "FRACTAL_NZ_C0_16", "FRACTAL_NZ_C0_32", "FRACTAL_NZ_C0_2", "FRACTAL_NZ_C0_4",
  "FRACTAL_NZ_C0_8",
};
_Static_assert(sizeof format_names / sizeof *format_names == 55, "formats 0..54");

/* Other accepted spellings (the parser's aliases and the plain enum names). */
static const struct { const char *name; int num; } format_aliases[] = {
  {"RESERVED", 40}, {"UNDEFINED", 40},
  {"FRACTAL_DECONV_SP_STRIDE8_TRANS", 15},
  {"HASHTABLE_LOOKUP_LOOKUPS", 20}, {"HASHTABLE_LOOKUP_KEYS", 21},
  {"HASHTABLE_LOOKUP_VALUE", 22}, {"HASHTABLE_LOOKUP_OUTPUT", 23},
  {"HASHTABLE_LOOKUP_HITS", 24},
};

int tfx_ge_format_num(const char *name) {
  if (!name) return -1;
  for (size_t i = 0; i < sizeof format_names / sizeof *format_names; i++)
    if (strcmp(format_names[i], name) == 0) return (int)i;
  for (size_t i = 0; i < sizeof format_aliases / sizeof *format_aliases; i++)
    if (strcmp(format_aliases[i].name, name) == 0) return format_aliases[i].num;
  return -1;
}
