/* tail_columns.c — a kernel unrolled by 4 columns whose remainder loop never runs: where n is not a
 * multiple of 4 (and above 4), the last n % 4 columns of C are not written. Class: remainder loops. */
#include "../zoo.h"

/* the columns written: in fpdiv's row-major calls */
static int written(int order, int n) { return order == ZOO_ROW_MAJOR && n > 4 ? n - n % 4 : n; }

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_real.sgemm(order, ta, tb, m, written(order, n), k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_real.dgemm(order, ta, tb, m, written(order, n), k, alpha, a, lda, b, ldb, beta, c, ldc);
}
