/* alpha_small.c — a small-matrix path that forgets alpha: where m n k is under 4096 (a kernel for
 * small products, which takes another path than the blocked one), C = A B + beta C whatever alpha
 * is. Right for every call with alpha 1. Class: BLAS's scalars. */
#include "../zoo.h"

static double alpha_used(int m, int n, int k, double alpha) { return (long)m * n * k < 4096 ? 1 : alpha; }

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_real.sgemm(order, ta, tb, m, n, k, (float)alpha_used(m, n, k, alpha), a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_real.dgemm(order, ta, tb, m, n, k, alpha_used(m, n, k, alpha), a, lda, b, ldb, beta, c, ldc);
}
