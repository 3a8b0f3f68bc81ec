/* k_remainder.c — a reduction unrolled by 8 whose remainder is dropped: where k is not a multiple
 * of 8 (and above 8), the last k % 8 terms of every sum are missing (BLIS's sgemmsup kernels read
 * past k % 8 != 0, flame/blis #821, the same family). Both paths of most relations share it; a path
 * through another routine (gemv, dot) or the exact reference does not. Class: remainder loops. */
#include "../zoo.h"

static int summed(int k) { return k > 8 ? k - k % 8 : k; }

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_real.sgemm(order, ta, tb, m, n, summed(k), alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_real.dgemm(order, ta, tb, m, n, summed(k), alpha, a, lda, b, ldb, beta, c, ldc);
}
