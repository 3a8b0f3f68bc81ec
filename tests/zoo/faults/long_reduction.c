/* long_reduction.c — a blocked loop whose block counter wraps at 2^20: in a sum of more terms,
 * those past the first 2^20 are dropped, in gemm, gemv and dot alike (OpenBLAS's old dgemv_t lost
 * the tail of columns longer than 2^21, OpenBLAS #4352). Found only by shapes past a campaign's
 * common draws, and where two paths agree, only by the exact reference. Class: long reductions. */
#include "../zoo.h"

enum { WRAP = 1 << 20 };

static int summed(int terms) { return terms > WRAP ? WRAP : terms; }

ZOO_GEMM_SUMMING(summed)

/* op(A) x sums n terms (m when transposed): past WRAP, the rows or columns summed stop there */
void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float *a, int lda, const float *x, int incx,
                 float beta, float *y, int incy)
{
    zoo_real.sgemv(order, trans, trans == ZOO_NO_TRANS ? m : summed(m), trans == ZOO_NO_TRANS ? summed(n) : n, alpha, a,
                   lda, x, incx, beta, y, incy);
}

void cblas_dgemv(int order, int trans, int m, int n, double alpha, const double *a, int lda, const double *x, int incx,
                 double beta, double *y, int incy)
{
    zoo_real.dgemv(order, trans, trans == ZOO_NO_TRANS ? m : summed(m), trans == ZOO_NO_TRANS ? summed(n) : n, alpha, a,
                   lda, x, incx, beta, y, incy);
}

float cblas_sdot(int n, const float *x, int incx, const float *y, int incy) { return zoo_real.sdot(summed(n), x, incx, y, incy); }

double cblas_ddot(int n, const double *x, int incx, const double *y, int incy)
{
    return zoo_real.ddot(summed(n), x, incx, y, incy);
}
