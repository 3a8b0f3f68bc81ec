/* row_in_single.c — a one-row fast path of dgemm (m = 1, a vector-matrix product sent to a
 * gemv-like kernel) that accumulates in single precision: each element is a float sum of float
 * products, returned as a double. Every other shape is right, and sgemm is. Class: lost precision
 * in one shape's path. */
#include "../zoo.h"

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    if (m != 1) {
        zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    for (int j = 0; j < n; j++) {
        float sum = 0;
        for (int p = 0; p < k; p++)
            sum += (float)a[zoo_at(order, ta, 0, p, lda)] * (float)b[zoo_at(order, tb, p, j, ldb)];
        double *y = &c[zoo_at(order, ZOO_NO_TRANS, 0, j, ldc)];
        *y = beta == 0 ? alpha * (double)sum : alpha * (double)sum + beta * *y;
    }
}
