/* Unit tests for src/ge/dtype.c: TF -> GE proto dtypes with Ascend's collapses, GE proto ->
 * C++ ge::DataType (docs/AIR.md §3.1), element sizes, format numbers (§3.2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ge/ge.h"

static void tf_to_ge_basic(void **state) {
  (void)state;
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_FLOAT),
                   GE__PROTO__DATA_TYPE__DT_FLOAT);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_INT32),
                   GE__PROTO__DATA_TYPE__DT_INT32);
  assert_int_equal(GE__PROTO__DATA_TYPE__DT_INT32, 7); /* docs/AIR.md §3.1: proto DT_INT32 = 7 */
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_INT64),
                   GE__PROTO__DATA_TYPE__DT_INT64);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_DOUBLE),
                   GE__PROTO__DATA_TYPE__DT_DOUBLE);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_BOOL),
                   GE__PROTO__DATA_TYPE__DT_BOOL);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_STRING),
                   GE__PROTO__DATA_TYPE__DT_STRING);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_UINT8),
                   GE__PROTO__DATA_TYPE__DT_UINT8);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_UINT64),
                   GE__PROTO__DATA_TYPE__DT_UINT64);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_COMPLEX128),
                   GE__PROTO__DATA_TYPE__DT_COMPLEX128);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_RESOURCE),
                   GE__PROTO__DATA_TYPE__DT_RESOURCE);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_VARIANT),
                   GE__PROTO__DATA_TYPE__DT_VARIANT);
}

static void tf_to_ge_collapses(void **state) {
  (void)state;
  /* docs/ASCEND.md §6.4: HALF -> FLOAT16, quantized -> plain ints, BFLOAT16 -> BF16 but
   * BFLOAT16_REF -> FLOAT16, *_REF -> base, anything else -> DT_UNDEFINED */
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_HALF),
                   GE__PROTO__DATA_TYPE__DT_FLOAT16);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_QINT8),
                   GE__PROTO__DATA_TYPE__DT_INT8);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_QUINT8),
                   GE__PROTO__DATA_TYPE__DT_UINT8);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_QINT16),
                   GE__PROTO__DATA_TYPE__DT_INT16);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_QUINT16),
                   GE__PROTO__DATA_TYPE__DT_UINT16);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_QINT32),
                   GE__PROTO__DATA_TYPE__DT_INT32);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_BFLOAT16),
                   GE__PROTO__DATA_TYPE__DT_BF16);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_BFLOAT16_REF),
                   GE__PROTO__DATA_TYPE__DT_FLOAT16);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_FLOAT_REF),
                   GE__PROTO__DATA_TYPE__DT_FLOAT);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_INT32_REF),
                   GE__PROTO__DATA_TYPE__DT_INT32);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_HALF_REF),
                   GE__PROTO__DATA_TYPE__DT_FLOAT16);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_QINT8_REF),
                   GE__PROTO__DATA_TYPE__DT_INT8);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_INVALID),
                   GE__PROTO__DATA_TYPE__DT_UNDEFINED);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_UINT4),
                   GE__PROTO__DATA_TYPE__DT_UNDEFINED);
  assert_int_equal(tfx_ge_dtype_from_tf(TENSORFLOW__DATA_TYPE__DT_FLOAT8_E4M3FNUZ),
                   GE__PROTO__DATA_TYPE__DT_UNDEFINED);
  assert_int_equal(tfx_ge_dtype_from_tf(-5), GE__PROTO__DATA_TYPE__DT_UNDEFINED);
  assert_int_equal(tfx_ge_dtype_from_tf(99), GE__PROTO__DATA_TYPE__DT_UNDEFINED);
  assert_int_equal(tfx_ge_dtype_from_tf(1000), GE__PROTO__DATA_TYPE__DT_UNDEFINED);
}

static void cpp_numbers(void **state) {
  (void)state;
  /* docs/AIR.md §3.1 */
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_FLOAT), 0);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_INT32), 3);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_UNDEFINED), 28);
  /* docs/AIR.md §3.1 */
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_FLOAT16), 1);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_INT8), 2);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_UINT8), 4);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_INT16), 6);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_UINT16), 7);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_UINT32), 8);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_INT64), 9);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_UINT64), 10);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_DOUBLE), 11);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_BOOL), 12);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_STRING), 13);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_BF16), 27);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_INT4), 29);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_COMPLEX32), 33);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_HIFLOAT8), 34);
  assert_int_equal(tfx_ge_cpp_dtype(GE__PROTO__DATA_TYPE__DT_FLOAT4_E1M2), 41);
  assert_int_equal(tfx_ge_cpp_dtype(-1), 28);
  assert_int_equal(tfx_ge_cpp_dtype(500), 28);
}

/* Every proto value maps to a distinct C++ number (the map is a bijection). */
static void cpp_is_injective(void **state) {
  (void)state;
  const ProtobufCEnumDescriptor *ed = &ge__proto__data_type__descriptor;
  for (unsigned i = 0; i < ed->n_values; i++)
    for (unsigned j = i + 1; j < ed->n_values; j++)
      assert_int_not_equal(tfx_ge_cpp_dtype(ed->values[i].value),
                           tfx_ge_cpp_dtype(ed->values[j].value));
  /* 5 is unused in ge::DataType */
  for (unsigned i = 0; i < ed->n_values; i++)
    assert_int_not_equal(tfx_ge_cpp_dtype(ed->values[i].value), 5);
}

static void sizes(void **state) {
  (void)state;
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_FLOAT), 4);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_FLOAT16), 2);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_BF16), 2);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_INT8), 1);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_BOOL), 1);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_INT64), 8);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_DOUBLE), 8);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_COMPLEX64), 8);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_COMPLEX128), 16);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_UINT32), 4);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_STRING), 0);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_RESOURCE), 0);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_UNDEFINED), 0);
  assert_int_equal(tfx_ge_dtype_size(GE__PROTO__DATA_TYPE__DT_INT4), 0);
  assert_int_equal(tfx_ge_dtype_size(77), 0);
}

static void formats(void **state) {
  (void)state;
  assert_int_equal(tfx_ge_format_num("NCHW"), 0);
  assert_int_equal(tfx_ge_format_num("NHWC"), 1);
  assert_int_equal(tfx_ge_format_num("ND"), 2);
  assert_int_equal(tfx_ge_format_num("NC1HWC0"), 3);
  assert_int_equal(tfx_ge_format_num("FRACTAL_Z"), 4);
  assert_int_equal(tfx_ge_format_num("HWCN"), 16);
  assert_int_equal(tfx_ge_format_num("NDHWC"), 27);
  assert_int_equal(tfx_ge_format_num("FRACTAL_NZ"), 29);
  assert_int_equal(tfx_ge_format_num("NCDHW"), 30);
  assert_int_equal(tfx_ge_format_num("DHWCN"), 31);
  assert_int_equal(tfx_ge_format_num("FORMAT_RESERVED"), 40);
  assert_int_equal(tfx_ge_format_num("RESERVED"), 40);
  assert_int_equal(tfx_ge_format_num("UNDEFINED"), 40);
  assert_int_equal(tfx_ge_format_num("DECONV_SP_STRIDE8_TRANS"), 15);
  assert_int_equal(tfx_ge_format_num("LOOKUP_HITS"), 24);
  assert_int_equal(tfx_ge_format_num("NCL"), 47);
  assert_int_equal(tfx_ge_format_num("FRACTAL_NZ_C0_8"), 54);
  assert_int_equal(tfx_ge_format_num("nchw"), -1);
  assert_int_equal(tfx_ge_format_num(""), -1);
  assert_int_equal(tfx_ge_format_num(NULL), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(tf_to_ge_basic), cmocka_unit_test(tf_to_ge_collapses),
      cmocka_unit_test(cpp_numbers),    cmocka_unit_test(cpp_is_injective),
      cmocka_unit_test(sizes),          cmocka_unit_test(formats),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
