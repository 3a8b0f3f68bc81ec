/* threads_middle_share.c — rows split between T threads in shares of m / T, the last taking the
 * rest; a middle share (thread 1 of T >= 3, neither the first nor the last) starts its op(A) one row
 * early, its offset taken from the share before it: C's row m / T is computed from op(A)'s row
 * m / T - 1. One or two threads have no middle share and are right. The library exports OpenBLAS's
 * thread controls. Class: thread counts past 2 (partitions wrong only at 3, 6, ... threads). */
#include <stdlib.h>
#include <string.h>

#include "../zoo.h"

ZOO_THREAD_CONTROLS("OpenBLAS 0.3.21 (zoo threads_middle_share)")

/* C's row `share` as it was (beta may read it), then recomputed from op(A)'s row before it */
#define MIDDLE_SHARE_EARLY(name, T, real)                                                                   \
    void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b,     \
              int ldb, T beta, T *c, int ldc)                                                               \
    {                                                                                                       \
        int share = zoo_threads >= 3 ? m / zoo_threads : 0;                                                 \
        T *row = share >= 1 && k >= 1 ? malloc((size_t)n * sizeof *row) : NULL;                            \
        for (int j = 0; row && j < n; j++)                                                                  \
            row[j] = c[zoo_at(order, ZOO_NO_TRANS, share, j, ldc)];                                         \
        real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                  \
        if (!row)                                                                                           \
            return;                                                                                         \
        for (int j = 0; j < n; j++)                                                                         \
            c[zoo_at(order, ZOO_NO_TRANS, share, j, ldc)] = row[j];                                         \
        real(order, ta, tb, 1, n, k, alpha, a + zoo_at(order, ta, share - 1, 0, lda), lda, b, ldb, beta,    \
             c + zoo_at(order, ZOO_NO_TRANS, share, 0, ldc), ldc);                                          \
        free(row);                                                                                          \
    }

MIDDLE_SHARE_EARLY(cblas_sgemm, float, zoo_real.sgemm)
MIDDLE_SHARE_EARLY(cblas_dgemm, double, zoo_real.dgemm)
