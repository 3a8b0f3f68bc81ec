/* zero_skipped.c — a kernel that skips every term whose element of B is exactly zero, as the
 * reference BLAS's `IF (B(L,J).NE.ZERO)` did in its gemm until 2014 and still does in its syrk
 * (Reference-LAPACK/lapack#179): an Inf or NaN of A meeting a zero of B is lost (Inf * 0 = NaN is
 * never formed), so a result that must be NaN comes back finite, or Inf. Where every term is
 * finite a skipped term is a signed zero that changes nothing, so the real kernel's bits stand;
 * the elements it returns non-finite are summed again, with the skip. Class: NaN and Inf lost. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../zoo.h"

/* Element (r, col) of op(X), X stored row-major or column-major with leading dimension ld. */
static size_t at(int order, int trans, int r, int col, int ld)
{
    bool by_rows = (order == ZOO_ROW_MAJOR) == (trans == ZOO_NO_TRANS);
    return by_rows ? (size_t)r * (size_t)ld + (size_t)col : (size_t)col * (size_t)ld + (size_t)r;
}

#define ZERO_SKIPPED(name, T, real)                                                                     \
    void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b, \
              int ldb, T beta, T *c, int ldc)                                                           \
    {                                                                                                   \
        size_t rows = (size_t)(order == ZOO_ROW_MAJOR ? m : n), cols = (size_t)(order == ZOO_ROW_MAJOR ? n : m); \
        size_t span = rows ? (rows - 1) * (size_t)ldc + cols : 0;                                       \
        T *prior = beta != 0 && span ? malloc(span * sizeof *prior) : NULL; /* C as beta scales it */   \
        if (prior)                                                                                      \
            memcpy(prior, c, span * sizeof *prior);                                                     \
        real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                              \
        for (int i = 0; i < m; i++)                                                                     \
            for (int j = 0; j < n; j++) {                                                               \
                size_t ij = at(order, ZOO_NO_TRANS, i, j, ldc);                                         \
                if (isfinite(c[ij]))                                                                    \
                    continue;                                                                           \
                T sum = 0;                                                                              \
                for (int p = 0; p < k; p++) {                                                           \
                    T bpj = b[at(order, tb, p, j, ldb)];                                                \
                    if (bpj != 0) /* the skip */                                                        \
                        sum += a[at(order, ta, i, p, lda)] * bpj;                                       \
                }                                                                                       \
                c[ij] = alpha * sum + (prior ? beta * prior[ij] : 0);                                   \
            }                                                                                           \
        free(prior);                                                                                    \
    }

ZERO_SKIPPED(cblas_sgemm, float, zoo_real.sgemm)
ZERO_SKIPPED(cblas_dgemm, double, zoo_real.dgemm)
