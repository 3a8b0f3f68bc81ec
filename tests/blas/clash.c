/*
 * clash.c — a CBLAS library for tests, built twice: libclash_forward.so sums k from the first term
 * to the last, libclash_backward.so from the last to the first (each with FMA, from beta * C).
 * Both export the same names, and cblas_sgemm reaches the sum through the exported sgemm_, as real
 * BLAS libraries do: where one library's names could answer for the other's (loaded into one
 * namespace, the first's sgemm_ wins), the backward library would give the forward one's answers.
 * fpdiv loads each in a namespace of its own, and each gives its own: forward is `seq`'s order,
 * backward the `reverse` plugin's.
 *
 * libclash_global.so is the forward one that, when loaded, also loads libclash_forward.so
 * RTLD_GLOBAL, as oneMKL loads its parts: from then on the forward names are global in the
 * process, and a library loaded after it must not take them for its own.
 */
#include <dlfcn.h>
#include <math.h>
#include <stddef.h>

#ifdef LOAD_GLOBALLY
__attribute__((constructor)) static void make_names_global(void) { dlopen(LOAD_GLOBALLY, RTLD_NOW | RTLD_GLOBAL); }
#endif

#ifndef BACKWARD
#define BACKWARD 0
#endif

enum { ROW_MAJOR = 101, NO_TRANS = 111 };

#define AT(p, trans, ld, i, j) ((trans) ? (p)[(size_t)(j) * (size_t)(ld) + (size_t)(i)] : (p)[(size_t)(i) * (size_t)(ld) + (size_t)(j)])

/* Row-major C = alpha op(A) op(B) + beta C; alpha is 1 in fpdiv's calls. */
#define GEMM(T, FMA)                                                                                   \
    for (int i = 0; i < m; i++)                                                                        \
        for (int j = 0; j < n; j++) {                                                                  \
            T *cij = &c[(size_t)i * (size_t)ldc + (size_t)j];                                          \
            T acc = beta == 0 ? (T)0 : beta * *cij;                                                    \
            for (int q = 0; q < k; q++) {                                                              \
                int p = BACKWARD ? k - 1 - q : q;                                                      \
                acc = FMA(alpha * AT(a, ta, lda, i, p), AT(b, tb, ldb, p, j), acc);                    \
            }                                                                                          \
            *cij = acc;                                                                                \
        }

/* The library's own sum, exported and called through its name, as a BLAS's Fortran core is. */
__attribute__((noinline)) void sgemm_(int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                                      const float *b, int ldb, float beta, float *c, int ldc)
{
    GEMM(float, fmaf)
}

__attribute__((noinline)) void dgemm_(int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                                      const double *b, int ldb, double beta, double *c, int ldc)
{
    GEMM(double, fma)
}

void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    if (order == ROW_MAJOR)
        sgemm_(trans_a != NO_TRANS, trans_b != NO_TRANS, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int trans_a, int trans_b, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    if (order == ROW_MAJOR)
        dgemm_(trans_a != NO_TRANS, trans_b != NO_TRANS, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
