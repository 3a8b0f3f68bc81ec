/* backend_util.h — what every backend adapter needs: operands in its compute type, outputs rounded
 * into C. Used by the built-in adapters; plugins may have their own. */
#ifndef FPD_BACKEND_UTIL_H
#define FPD_BACKEND_UTIL_H

#include "fpdiv_backend.h"

struct fpd_staging {
    void *buf;
    size_t cap;
};

/* The rows x cols matrix at src (leading dimension ld, type from) as type `to`: src itself when
 * the types agree, else a converted copy in s with *ld_out = cols (at least 1). NULL when out of memory. */
const void *fpd_stage_input(struct fpd_staging *s, enum fpd_dtype from, const void *src, size_t rows,
                            size_t cols, size_t ld, enum fpd_dtype to, size_t *ld_out);

/* The strides of op(X) for X stored with leading dimension ld, transposed or not: element (i, j)
 * at i * *row_stride + j * *col_stride, as the own kernels take their operands. */
static inline void fpd_op_strides(bool transposed, size_t ld, ptrdiff_t *row_stride, ptrdiff_t *col_stride)
{
    *row_stride = transposed ? 1 : (ptrdiff_t)ld;
    *col_stride = transposed ? (ptrdiff_t)ld : 1;
}

/* One batch entry of a GEMM as an adapter computes it: A and B in `operand_t`, C in `compute_t`
 * (C itself when that is the output type, else a staging buffer of m x n, ld n). */
struct fpd_batch_entry {
    const void *a, *b;
    void *c;
    size_t lda, ldb, ldc;
};

struct fpd_batch_staging {
    struct fpd_staging a, b, c;
};

/* The elements an operand spans: batch entries `stride` apart of rows of ld, the last row `cols`
 * (not a whole ld: a view's last row may end well before its tensor's). */
size_t fpd_operand_span(size_t batch, size_t stride, size_t rows, size_t ld, size_t cols);

/* The bytes A, B and C of a GEMM span (fpd_operand_span), in their storage types. */
struct fpd_gemm_extent {
    size_t a, b, c;
};
struct fpd_gemm_extent fpd_gemm_extent(const struct fpd_gemm_args *g);

/* Stages batch entry `index`; FPD_OK or FPD_ERR_NOMEM. */
int fpd_stage_batch_entry(struct fpd_batch_staging *s, const struct fpd_gemm_args *g, size_t index,
                          enum fpd_dtype operand_t, enum fpd_dtype compute_t, struct fpd_batch_entry *e);
/* Rounds a staged C into the output (nothing to do when C was computed in place). */
void fpd_finish_batch_entry(const struct fpd_gemm_args *g, size_t index, enum fpd_dtype compute_t,
                            const struct fpd_batch_entry *e);
void fpd_batch_staging_free(struct fpd_batch_staging *s);

void fpd_staging_free(struct fpd_staging *s);

/* The Python environment fpdiv's libraries and frameworks come from: $VIRTUAL_ENV, else the one
 * scripts/install-deps.sh made (the Makefile says where), else "". */
const char *fpd_python_environment(void);


#endif
