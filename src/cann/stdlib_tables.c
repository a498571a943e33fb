/* The stdlib's op tables of a run: tfx_cann_stdlib and tfx_tf_ops_stdlib over the arrays
 * compiled at build time (stdlib_tables.h, src/cann/gen/gen_op_tables.c). No text is parsed:
 * the first caller only builds each table's name -> index map (about 2,000 names each).
 * Stage: cann (data only). Built once per process and immutable afterwards, so sessions in
 * several threads share them: the first caller builds under the lock and publishes with
 * release order (a failed build, out of memory, is retried by the next caller). */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "cann/cann.h"
#include "cann/stdlib_tables.h"
#include "tfxc/tfxc.h"

/* Fills m with names[k] -> k for the n names at base + k * stride. Returns 0 or -1 (oom). */
static int index_names(tfx_hmap *m, const char *base, size_t stride, uint32_t n) {
  tfx_hmap_init(m);
  if (n && tfx_hmap_reserve(m, n) != 0) return -1;
  for (uint32_t k = 0; k < n; k++) {
    const char *name = *(const char *const *)(const void *)(base + (size_t)k * stride);
    if (tfx_hmap_put(m, name, strlen(name), k, NULL) < 0) return -1;
  }
  return 0;
}

const tfx_cann_table *tfx_cann_stdlib(tfx_diag *d) {
  static tfx_cann_table table;
  static atomic_int state; /* 0 not built, 1 built */
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  if (atomic_load_explicit(&state, memory_order_acquire) == 1) return &table;
  pthread_mutex_lock(&lock);
  const tfx_cann_table *r = &table;
  if (atomic_load_explicit(&state, memory_order_relaxed) != 1) {
    tfx_cann_init(&table);
    /* never written: the stdlib table is only read and never added to */
    table.ops = (tfx_cann_op *)(uintptr_t)tfx_gen_cann_ops;
    table.n_ops = table.cap_ops = tfx_gen_cann_n_ops;
    if (index_names(&table.by_name, (const char *)&tfx_gen_cann_ops[0].name, sizeof tfx_gen_cann_ops[0],
                    tfx_gen_cann_n_ops) != 0) {
      tfx_error(d, "<stdlib>/ops/cann-ops.tsv", 0, 0, "out of memory loading the CANN prototypes");
      tfx_hmap_free(&table.by_name);
      r = NULL;
    } else
      atomic_store_explicit(&state, 1, memory_order_release);
  }
  pthread_mutex_unlock(&lock);
  return r;
}

const tfx_tf_table *tfx_tf_ops_stdlib(tfx_diag *d) {
  static tfx_tf_table table;
  static atomic_int state; /* 0 not built, 1 built */
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  if (atomic_load_explicit(&state, memory_order_acquire) == 1) return &table;
  pthread_mutex_lock(&lock);
  const tfx_tf_table *r = &table;
  if (atomic_load_explicit(&state, memory_order_relaxed) != 1) {
    memset(&table, 0, sizeof table);
    tfx_arena_init(&table.arena);
    table.ops = (tfx_tf_op *)(uintptr_t)tfx_gen_tf_ops;
    table.n_ops = tfx_gen_tf_n_ops;
    if (index_names(&table.by_name, (const char *)&tfx_gen_tf_ops[0].name, sizeof tfx_gen_tf_ops[0],
                    tfx_gen_tf_n_ops) != 0) {
      tfx_error(d, "<stdlib>/ops/tf-ops.tsv", 0, 0, "out of memory loading the TensorFlow op definitions");
      tfx_hmap_free(&table.by_name);
      r = NULL;
    } else
      atomic_store_explicit(&state, 1, memory_order_release);
  }
  pthread_mutex_unlock(&lock);
  return r;
}
