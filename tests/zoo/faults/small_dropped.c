/* small_dropped.c — inputs of A below 2^-8 in magnitude taken as zero, an absolute threshold where
 * only a relative one could be right (a "sparse fast path" keyed to magnitudes, a flush of values
 * a kernel thinks negligible): the result depends on the scale of the data, which no correct GEMM's
 * does. Class: arithmetic that depends on magnitudes. */
#include <stdlib.h>
#include <string.h>

#include "../zoo.h"

/* op(A), m x k, packed row-major with its small elements zeroed; NULL out of memory */
static void *dropped(int ta, int m, int k, const void *a, int lda, size_t es)
{
    unsigned char *p = malloc((size_t)m * (size_t)k * es + 1);
    for (int i = 0; p && i < m; i++)
        for (int q = 0; q < k; q++) {
            size_t from = ta == ZOO_NO_TRANS ? (size_t)i * lda + q : (size_t)q * lda + i;
            unsigned char *to = p + ((size_t)i * k + q) * es;
            memcpy(to, (const unsigned char *)a + from * es, es);
            double v = es == sizeof(float) ? *(float *)to : *(double *)to;
            if (v < 0x1p-8 && v > -0x1p-8)
                memset(to, 0, es);
        }
    return p;
}

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    float *p = order == ZOO_ROW_MAJOR ? dropped(ta, m, k, a, lda, sizeof *a) : NULL;
    if (p)
        zoo_real.sgemm(order, ZOO_NO_TRANS, tb, m, n, k, alpha, p, k, b, ldb, beta, c, ldc);
    else
        zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    free(p);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    double *p = order == ZOO_ROW_MAJOR ? dropped(ta, m, k, a, lda, sizeof *a) : NULL;
    if (p)
        zoo_real.dgemm(order, ZOO_NO_TRANS, tb, m, n, k, alpha, p, k, b, ldb, beta, c, ldc);
    else
        zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    free(p);
}
