/* second_block_stale_panel.c — blocking in rows and columns of 256 (GotoBLAS's MC and NC) with a
 * stale packed-B pointer: where m > 256 and n > 256, the rows past 256 of the columns past 256 are
 * multiplied with the first panel's op(B) (column j - 256 for column j). A product large in only one
 * of m and n fits a block that way and is right, so no shape within --max-dim 256, nor one past it
 * in one dimension, shows it. Class: two dimensions past their blocks at once. */
#include <stdlib.h>

#include "../zoo.h"

enum { BLOCK = 256 };

/* C's block past (BLOCK, BLOCK) as it was (beta may read it), then recomputed from the first panel */
#define STALE_PANEL(name, T, real)                                                                         \
    void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b,    \
              int ldb, T beta, T *c, int ldc)                                                              \
    {                                                                                                      \
        long rows = m - BLOCK, cols = n - BLOCK;                                                           \
        T *old = rows > 0 && cols > 0 && k > 0 ? malloc((size_t)(rows * cols) * sizeof *old) : NULL;       \
        for (long i = 0; old && i < rows; i++)                                                             \
            for (long j = 0; j < cols; j++)                                                                \
                old[i * cols + j] = c[zoo_at(order, ZOO_NO_TRANS, BLOCK + i, BLOCK + j, ldc)];             \
        real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                 \
        if (!old)                                                                                          \
            return;                                                                                        \
        for (long i = 0; i < rows; i++)                                                                    \
            for (long j = 0; j < cols; j++)                                                                \
                c[zoo_at(order, ZOO_NO_TRANS, BLOCK + i, BLOCK + j, ldc)] = old[i * cols + j];             \
        real(order, ta, tb, (int)rows, (int)cols, k, alpha, a + zoo_at(order, ta, BLOCK, 0, lda), lda, b, ldb, \
             beta, c + zoo_at(order, ZOO_NO_TRANS, BLOCK, BLOCK, ldc), ldc);                               \
        free(old);                                                                                         \
    }

STALE_PANEL(cblas_sgemm, float, zoo_real.sgemm)
STALE_PANEL(cblas_dgemm, double, zoo_real.dgemm)
