/* empty_unwritten.c — the empty product (k = 0) returned from at once, C left as it was, where BLAS
 * sets C to beta C: zeros for beta = 0, whatever C held (bluss/matrixmultiply#21: "if m > 0 && n > 0
 * && k == 0, the result was never initialized"; ROCm/rocBLAS#753's quick return). Right for every
 * call with k >= 1, and for k = 0 with beta = 1. Class: beta handling, the empty product. */
#include "../zoo.h"

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    if (k == 0)
        return;
    zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    if (k == 0)
        return;
    zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
