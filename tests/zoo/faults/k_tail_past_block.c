/* k_tail_past_block.c — the blocked path (k past one block of 256) unrolls k by 4, with tail code
 * for a remainder of 1 and of 3 and none for 2: where k > 256 and k % 4 == 2, the last two terms of
 * every sum are dropped. Shorter sums take the small-matrix path and are right. Unlike
 * k_remainder.c, no sum of 256 terms or fewer shows it. Class: remainder loops past a block size. */
#include "../zoo.h"

static int summed(int k) { return k > 256 && k % 4 == 2 ? k - 2 : k; }

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_real.sgemm(order, ta, tb, m, n, summed(k), alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_real.dgemm(order, ta, tb, m, n, summed(k), alpha, a, lda, b, ldb, beta, c, ldc);
}
