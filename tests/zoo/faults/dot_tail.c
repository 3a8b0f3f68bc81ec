/* dot_tail.c — a dot product unrolled by 4 whose remainder loop stops one short: where n % 4 is 3,
 * the last term is missing. Class: dot. */
#include "../zoo.h"

static int summed(int n) { return n % 4 == 3 ? n - 1 : n; }

float cblas_sdot(int n, const float *x, int incx, const float *y, int incy) { return zoo_real.sdot(summed(n), x, incx, y, incy); }

double cblas_ddot(int n, const double *x, int incx, const double *y, int incy)
{
    return zoo_real.ddot(summed(n), x, incx, y, incy);
}
