/* output_increment_forward.c — gemv writes a y of negative increment forwards: BLAS stores such a
 * y from its last element, and this kernel walks it from its first, so the result comes back
 * reversed. Every call with incy > 0 is right, and its x, whatever its increment, is read right.
 * Class: increments (the output's). */
#include <stdlib.h>

#include "../zoo.h"

void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float *a, int lda, const float *x, int incx,
                 float beta, float *y, int incy)
{
    zoo_real.sgemv(order, trans, m, n, alpha, a, lda, x, incx, beta, y, abs(incy));
}

void cblas_dgemv(int order, int trans, int m, int n, double alpha, const double *a, int lda, const double *x,
                 int incx, double beta, double *y, int incy)
{
    zoo_real.dgemv(order, trans, m, n, alpha, a, lda, x, incx, beta, y, abs(incy));
}
