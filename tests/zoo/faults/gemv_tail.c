/* gemv_tail.c — a transposed matrix-vector product that loses the tail of long columns: past 128
 * rows, the rows after the last full block of 64 are not summed (OpenBLAS's old dgemv_t kernel lost
 * the tail of columns longer than 2^21, OpenBLAS #4352; here at a length a campaign draws). Class:
 * gemv, long reductions. */
#include "../zoo.h"

/* rows of A summed into y = A^T x (row-major A is m x n; its columns are m long) */
static int summed(int trans, int m) { return trans != ZOO_NO_TRANS && m > 128 ? m - m % 64 : m; }

void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float *a, int lda, const float *x, int incx,
                 float beta, float *y, int incy)
{
    zoo_real.sgemv(order, trans, summed(trans, m), n, alpha, a, lda, x, incx, beta, y, incy);
}

void cblas_dgemv(int order, int trans, int m, int n, double alpha, const double *a, int lda, const double *x, int incx,
                 double beta, double *y, int incy)
{
    zoo_real.dgemv(order, trans, summed(trans, m), n, alpha, a, lda, x, incx, beta, y, incy);
}
