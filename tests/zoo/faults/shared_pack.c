/* shared_pack.c — one packing buffer for every call, without a lock: op(A) is packed into a static
 * buffer and the real GEMM reads it from there, so a call that packs between another call's packing
 * and its reading hands that call its own A. Single and double precision share the buffer, as a
 * lock per routine would not protect them. A call alone is right. Class: races on shared buffers
 * (OpenBLAS's thread-buffer and per-routine-lock races, BLIS's packed-buffer race). */
#include <string.h>

#include "../zoo.h"

static _Alignas(64) unsigned char packed[32u << 20];

/* op(A), m x k, packed row-major into the buffer; NULL where it does not fit (then A as it is). */
static const void *pack(int order, int ta, int m, int k, const void *a, int lda, size_t es)
{
    if (order != ZOO_ROW_MAJOR || (size_t)m * (size_t)k * es > sizeof packed)
        return NULL;
    for (int i = 0; i < m; i++)
        for (int p = 0; p < k; p++) {
            size_t from = ta == ZOO_NO_TRANS ? (size_t)i * lda + p : (size_t)p * lda + i;
            memcpy(packed + ((size_t)i * k + p) * es, (const unsigned char *)a + from * es, es);
        }
    return packed;
}

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    const float *p = pack(order, ta, m, k, a, lda, sizeof *a);
    if (p)
        zoo_real.sgemm(order, ZOO_NO_TRANS, tb, m, n, k, alpha, p, k, b, ldb, beta, c, ldc);
    else
        zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    const double *p = pack(order, ta, m, k, a, lda, sizeof *a);
    if (p)
        zoo_real.dgemm(order, ZOO_NO_TRANS, tb, m, n, k, alpha, p, k, b, ldb, beta, c, ldc);
    else
        zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
