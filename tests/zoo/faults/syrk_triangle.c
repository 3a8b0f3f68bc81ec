/* syrk_triangle.c — syrk of a transposed A (C = A^T A, numpy's A.T @ A) writes the other triangle
 * than the one asked for, as OpenBLAS's gemmt once wrote the wrong one: the asked-for triangle keeps
 * what C held, and a caller that mirrors it (numpy) returns that. A plain gemm is right. Class:
 * self products. */
#include "../zoo.h"

static int triangle(int uplo, int trans)
{
    return trans == ZOO_NO_TRANS ? uplo : uplo == ZOO_UPPER ? ZOO_LOWER : ZOO_UPPER;
}

void cblas_ssyrk(int order, int uplo, int trans, int n, int k, float alpha, const float *a, int lda, float beta,
                 float *c, int ldc)
{
    zoo_real.ssyrk(order, triangle(uplo, trans), trans, n, k, alpha, a, lda, beta, c, ldc);
}

void cblas_dsyrk(int order, int uplo, int trans, int n, int k, double alpha, const double *a, int lda, double beta,
                 double *c, int ldc)
{
    zoo_real.dsyrk(order, triangle(uplo, trans), trans, n, k, alpha, a, lda, beta, c, ldc);
}
