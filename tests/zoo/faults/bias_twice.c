/* bias_twice.c — an epilogue that adds C twice: where beta is not 0 (a fused bias) and C has 64
 * elements or more (the blocked path; smaller products take another), the result is A B + 2 beta C.
 * Class: fused-bias paths. */
#include "../zoo.h"

static double beta_used(int m, int n, double beta) { return beta != 0 && (long)m * n >= 64 ? 2 * beta : beta; }

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, (float)beta_used(m, n, beta), c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta_used(m, n, beta), c, ldc);
}
