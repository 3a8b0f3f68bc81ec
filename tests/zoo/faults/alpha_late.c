/* alpha_late.c — alpha applied in the epilogue, after C's old values are added: C = alpha (A B +
 * beta C) where alpha is not 1, so beta C is scaled twice. Right for every call with alpha 1.
 * Class: BLAS's scalars. */
#include "../zoo.h"

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, alpha * beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, alpha * beta, c, ldc);
}
