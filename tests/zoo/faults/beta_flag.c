/* beta_flag.c — beta taken as a flag: where beta is neither 0 nor 1, C's old values are added
 * unscaled, C = alpha A B + C, as a kernel does that zeroes C for beta = 0 and otherwise
 * accumulates into it (ZenDNN's scalar microkernel, amd/ZenDNN#34). Right for every call with
 * beta 0 or 1, which is all most callers make. Class: BLAS's scalars. */
#include "../zoo.h"

static double beta_used(double beta) { return beta != 0 ? 1 : 0; }

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, (float)beta_used(beta), c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta_used(beta), c, ldc);
}
