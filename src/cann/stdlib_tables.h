/* The stdlib's op tables compiled at build time (src/cann/gen/gen_op_tables.c writes them as
 * C data; library tfxc_cann). tfx_cann_stdlib and tfx_tf_ops_stdlib (stdlib_tables.c) wrap
 * these arrays in tables without parsing <stdlib>/ops/cann-ops.tsv and tf-ops.tsv; only the
 * name -> index maps are built at run time. The arrays are exactly what tfx_cann_load /
 * tfx_tf_ops_load make of the embedded text (test_cann_precompiled compares them field by
 * field, with the sources too).
 * Stage: cann (data only). Everything here is immutable and lives as long as the process. */
#ifndef TFX_CANN_STDLIB_TABLES_H
#define TFX_CANN_STDLIB_TABLES_H

#include <stdint.h>

#include "cann/cann.h"

extern const tfx_cann_op tfx_gen_cann_ops[];
extern const uint32_t tfx_gen_cann_n_ops;
extern const tfx_tf_op tfx_gen_tf_ops[];
extern const uint32_t tfx_gen_tf_n_ops;

#endif
