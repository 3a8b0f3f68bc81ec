/* panel_boundary.c — A packed in panels of 16 rows with an off-by-one at the panel boundary: where m
 * is above 16, row 16 of C is computed from row 15 of A. Class: packing errors. */
#include <stdlib.h>
#include <string.h>

#include "../zoo.h"

/* C's row 16 as it was before the call (it may hold a bias, beta = 1), then recomputed from op(A)'s
 * row 15: 15 rows down A's storage, or 15 elements along where A is stored transposed. */
#define WITH_ROW_16_FROM_ROW_15(real, T)                                                            \
    T *row16 = order == ZOO_ROW_MAJOR && m > 16 ? malloc((size_t)n * sizeof(T)) : NULL;            \
    if (row16)                                                                                      \
        memcpy(row16, c + (size_t)16 * (size_t)ldc, (size_t)n * sizeof(T));                        \
    real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                              \
    if (row16) {                                                                                    \
        memcpy(c + (size_t)16 * (size_t)ldc, row16, (size_t)n * sizeof(T));                        \
        const T *row15 = ta == ZOO_NO_TRANS ? a + (size_t)15 * (size_t)lda : a + 15;               \
        real(order, ta, tb, 1, n, k, alpha, row15, lda, b, ldb, beta, c + (size_t)16 * (size_t)ldc, ldc); \
        free(row16);                                                                                \
    }

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    WITH_ROW_16_FROM_ROW_15(zoo_real.sgemm, float)
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    WITH_ROW_16_FROM_ROW_15(zoo_real.dgemm, double)
}
