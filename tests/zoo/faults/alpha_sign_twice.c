/* alpha_sign_twice.c — a fast path for LAPACK's commonest update, C := C - A B (alpha = -1, beta =
 * 1: every trailing-matrix update of an LU or a Cholesky), that folds the sign into a subtracting
 * kernel and then applies alpha's sign as well: C := C + A B. Right for every other alpha and
 * beta, of either sign. Class: BLAS's scalars, a negative alpha. */
#include "../zoo.h"

/* The alpha the fast path ends up using: the sign taken twice. */
static double alpha_used(double alpha, double beta) { return alpha == -1 && beta == 1 ? 1 : alpha; }

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_real.sgemm(order, ta, tb, m, n, k, (float)alpha_used(alpha, beta), a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_real.dgemm(order, ta, tb, m, n, k, alpha_used(alpha, beta), a, lda, b, ldb, beta, c, ldc);
}
