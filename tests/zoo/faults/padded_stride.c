/* padded_stride.c — a transposed B read with its logical row length for a stride: where B is
 * stored n x k with padding (ldb > k), its rows are read k apart instead of ldb, so every row after
 * the first is taken from the wrong place. Class: strides of padded or transposed operands. */
#include "../zoo.h"

static int stride_used(int order, int tb, int k, int ldb)
{
    return order == ZOO_ROW_MAJOR && tb != ZOO_NO_TRANS ? k : ldb;
}

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, stride_used(order, tb, k, ldb), beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, stride_used(order, tb, k, ldb), beta, c, ldc);
}
