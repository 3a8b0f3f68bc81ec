/* threads_split.c — rows split between threads with an off-by-one in the partition: on more than
 * one thread, where m >= 8, the first row of the second thread's share (row m / 2) is computed from
 * the row before it in A. One thread is right, and fpdiv's workers run libraries on one. The
 * library exports OpenBLAS's thread controls, as a build of OpenBLAS does, so that a caller can set
 * the count. Class: wrong only with more than one thread. */
#include <stdlib.h>
#include <string.h>

#include "../zoo.h"

ZOO_THREAD_CONTROLS("OpenBLAS 0.3.21 (zoo threads_split)")

/* C's row m / 2 as it was (beta may read it), then recomputed from op(A)'s row before it */
#define SPLIT_OFF_BY_ONE(name, T, real)                                                                  \
    void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b,  \
              int ldb, T beta, T *c, int ldc)                                                            \
    {                                                                                                    \
        int half = m / 2;                                                                                \
        T *row = zoo_threads > 1 && m >= 8 && order == ZOO_ROW_MAJOR ? malloc((size_t)n * sizeof *row) : NULL; \
        if (row)                                                                                         \
            memcpy(row, c + (size_t)half * ldc, (size_t)n * sizeof *row);                                \
        real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                               \
        if (!row)                                                                                        \
            return;                                                                                      \
        memcpy(c + (size_t)half * ldc, row, (size_t)n * sizeof *row);                                    \
        const T *previous = a + zoo_at(order, ta, half - 1, 0, lda);                                     \
        real(order, ta, tb, 1, n, k, alpha, previous, lda, b, ldb, beta, c + (size_t)half * ldc, ldc);   \
        free(row);                                                                                       \
    }

SPLIT_OFF_BY_ONE(cblas_sgemm, float, zoo_real.sgemm)
SPLIT_OFF_BY_ONE(cblas_dgemm, double, zoo_real.dgemm)
