/* empty_zeroed.c — the empty product (k = 0) sets C to zeros whatever beta is, where BLAS sets it to
 * beta C: a fused bias (beta = 1, C holding it) is lost (JuliaGPU/oneAPI.jl#628: "the empty-operand
 * shortcuts unconditionally zeroed the output, but for K == 0 the result is beta*C"). Right for
 * every call with k >= 1, and for k = 0 with beta = 0. Class: beta handling, the empty product. */
#include <stddef.h>

#include "../zoo.h"

#define ZERO_C(c, rows, cols, ldc)                                                                  \
    for (int i = 0; i < (rows); i++)                                                               \
        for (int j = 0; j < (cols); j++)                                                           \
            (c)[(size_t)i * (size_t)(ldc) + (size_t)j] = 0

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    if (k == 0) {
        ZERO_C(c, order == ZOO_ROW_MAJOR ? m : n, order == ZOO_ROW_MAJOR ? n : m, ldc);
        return;
    }
    zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    if (k == 0) {
        ZERO_C(c, order == ZOO_ROW_MAJOR ? m : n, order == ZOO_ROW_MAJOR ? n : m, ldc);
        return;
    }
    zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
