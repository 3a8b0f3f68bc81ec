/* col_major_stride.c — the column-major entry, with a transposed first operand, reads it with its
 * smallest leading dimension (k) in place of the one given: padded_stride.c's fault, in the storage
 * order LAPACK, SciPy and every Fortran caller use. Row-major calls are right. Class: one storage
 * order's argument handling. */
#include "../zoo.h"

/* The leading dimension the fault reads the first operand with. */
static int stride_read(int order, int ta, int k, int lda)
{
    return order != ZOO_ROW_MAJOR && ta != ZOO_NO_TRANS ? k : lda;
}

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, stride_read(order, ta, k, lda), b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, stride_read(order, ta, k, lda), b, ldb, beta, c, ldc);
}
