/* increment_sign_lost.c — a negative increment taken as its absolute value: BLAS stores a vector of
 * increment incx < 0 from its last element (element i at x[(n - 1 - i) |incx|], x its lowest
 * address), and these dot and gemv kernels walk it forwards, so a vector read backwards is read in
 * the wrong order (OpenBLAS's level-1 kernels have had such bugs on several architectures). Every
 * call with positive increments is right, as is a dot with both negative. Class: increments. */
#include <stdlib.h>

#include "../zoo.h"

float cblas_sdot(int n, const float *x, int incx, const float *y, int incy)
{
    return zoo_real.sdot(n, x, abs(incx), y, abs(incy));
}

double cblas_ddot(int n, const double *x, int incx, const double *y, int incy)
{
    return zoo_real.ddot(n, x, abs(incx), y, abs(incy));
}

void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float *a, int lda, const float *x, int incx,
                 float beta, float *y, int incy)
{
    zoo_real.sgemv(order, trans, m, n, alpha, a, lda, x, abs(incx), beta, y, abs(incy));
}

void cblas_dgemv(int order, int trans, int m, int n, double alpha, const double *a, int lda, const double *x,
                 int incx, double beta, double *y, int incy)
{
    zoo_real.dgemv(order, trans, m, n, alpha, a, lda, x, abs(incx), beta, y, abs(incy));
}
