/* beta_scaled.c — beta = 0 handled as a scaling: C = 0 * C + A B, reading a C that BLAS says is only
 * written. Older OpenBLAS small-matrix kernels did this; where C held a NaN or an infinity, the
 * result is NaN. Class: beta handling. */
#include <stddef.h>

#include "../zoo.h"

#define SCALE_C(c, rows, cols, ldc, beta)                                                          \
    for (int i = 0; i < (rows); i++)                                                               \
        for (int j = 0; j < (cols); j++)                                                           \
            (c)[(size_t)i * (size_t)(ldc) + (size_t)j] *= (beta)

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    if (beta == 0) {
        SCALE_C(c, order == ZOO_ROW_MAJOR ? m : n, order == ZOO_ROW_MAJOR ? n : m, ldc, beta);
        beta = 1;
    }
    zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    if (beta == 0) {
        SCALE_C(c, order == ZOO_ROW_MAJOR ? m : n, order == ZOO_ROW_MAJOR ? n : m, ldc, beta);
        beta = 1;
    }
    zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
