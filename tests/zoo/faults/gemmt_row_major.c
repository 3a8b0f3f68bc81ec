/* gemmt_row_major.c — a row-major gemmt fills the other triangle than the one asked for, as
 * OpenBLAS's cblas_?gemmt did before 0.3.29 (OpenBLAS #4905: it passed uplo to its column-major
 * core unflipped): the asked-for triangle keeps what C held. Column-major calls are right, and so is
 * every gemm. Class: other entry points (a triangle of a product). */
#include "../zoo.h"

static int unflipped(int order, int uplo) { return order == ZOO_ROW_MAJOR ? (uplo == ZOO_UPPER ? ZOO_LOWER : ZOO_UPPER) : uplo; }

void cblas_sgemmt(int order, int uplo, int ta, int tb, int n, int k, float alpha, const float *a, int lda,
                  const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_sgemmt(order, unflipped(order, uplo), ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemmt(int order, int uplo, int ta, int tb, int n, int k, double alpha, const double *a, int lda,
                  const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_dgemmt(order, unflipped(order, uplo), ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
