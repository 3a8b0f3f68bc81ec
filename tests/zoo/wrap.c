/* wrap.c — the zoo's forwarding layer: every routine to the real library, unless a fault's file
 * defines it (zoo.h). */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "zoo.h"

struct zoo_real zoo_real;

__attribute__((constructor)) static void load_real(void)
{
    const char *path = getenv("FPDIV_ZOO_REAL");
    void *lib = dlopen(path && *path ? path : "libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { /* no answers rather than wrong ones: fpdiv reports the library as failing */
        fprintf(stderr, "zoo: %s\n", dlerror());
        abort();
    }
    void (*set_threads)(int) = (void (*)(int))dlsym(lib, "openblas_set_num_threads");
    if (set_threads)
        set_threads(1);
    zoo_real = (struct zoo_real){
        .sgemm = (sgemm_fn *)dlsym(lib, "cblas_sgemm"), .dgemm = (dgemm_fn *)dlsym(lib, "cblas_dgemm"),
        .sgemv = (sgemv_fn *)dlsym(lib, "cblas_sgemv"), .dgemv = (dgemv_fn *)dlsym(lib, "cblas_dgemv"),
        .sdot = (sdot_fn *)dlsym(lib, "cblas_sdot"), .ddot = (ddot_fn *)dlsym(lib, "cblas_ddot"),
        .ssyrk = (ssyrk_fn *)dlsym(lib, "cblas_ssyrk"), .dsyrk = (dsyrk_fn *)dlsym(lib, "cblas_dsyrk"),
    };
    if (!zoo_real.sgemm || !zoo_real.dgemm || !zoo_real.sgemv || !zoo_real.dgemv || !zoo_real.sdot || !zoo_real.ddot ||
        !zoo_real.ssyrk || !zoo_real.dsyrk) {
        fprintf(stderr, "zoo: %s lacks a CBLAS routine\n", path && *path ? path : "libopenblas.so.0");
        abort();
    }
}

__attribute__((weak)) void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
                                       int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

__attribute__((weak)) void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a,
                                       int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
    zoo_real.dgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

__attribute__((weak)) void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float *a, int lda,
                                       const float *x, int incx, float beta, float *y, int incy)
{
    zoo_real.sgemv(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

__attribute__((weak)) void cblas_dgemv(int order, int trans, int m, int n, double alpha, const double *a, int lda,
                                       const double *x, int incx, double beta, double *y, int incy)
{
    zoo_real.dgemv(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

__attribute__((weak)) float cblas_sdot(int n, const float *x, int incx, const float *y, int incy)
{
    return zoo_real.sdot(n, x, incx, y, incy);
}

__attribute__((weak)) double cblas_ddot(int n, const double *x, int incx, const double *y, int incy)
{
    return zoo_real.ddot(n, x, incx, y, incy);
}

__attribute__((weak)) void cblas_ssyrk(int order, int uplo, int trans, int n, int k, float alpha, const float *a,
                                       int lda, float beta, float *c, int ldc)
{
    zoo_real.ssyrk(order, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}

__attribute__((weak)) void cblas_dsyrk(int order, int uplo, int trans, int n, int k, double alpha, const double *a,
                                       int lda, double beta, double *c, int ldc)
{
    zoo_real.dsyrk(order, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}

/* Element (i, j) of a matrix of leading dimension ld in `order`. */
static size_t at(int order, size_t i, size_t j, size_t ld) { return order == ZOO_ROW_MAJOR ? i * ld + j : j * ld + i; }

#define ZOO_GEMMT(name, T, gemm)                                                                                     \
    void name(int order, int uplo, int ta, int tb, int n, int k, T alpha, const T *a, int lda, const T *b, int ldb, \
              T beta, T *c, int ldc)                                                                                 \
    {                                                                                                                \
        T *whole = malloc((size_t)n * (size_t)n * sizeof *whole + 1);                                              \
        if (!whole)                                                                                                  \
            abort();                                                                                                 \
        zoo_real.gemm(order, ta, tb, n, n, k, alpha, a, lda, b, ldb, 0, whole, n);                                   \
        for (size_t i = 0; i < (size_t)n; i++)                                                                       \
            for (size_t j = 0; j < (size_t)n; j++) {                                                                 \
                bool upper = j >= i, lower = j <= i;                                                                 \
                if (uplo == ZOO_UPPER ? !upper : !lower)                                                             \
                    continue;                                                                                        \
                T *y = &c[at(order, i, j, (size_t)ldc)];                                                             \
                T product = whole[at(order, i, j, (size_t)n)];                                                       \
                *y = beta == 0 ? product : product + beta * *y; /* beta = 0: C is not read */                        \
            }                                                                                                        \
        free(whole);                                                                                                 \
    }
ZOO_GEMMT(zoo_sgemmt, float, sgemm)
ZOO_GEMMT(zoo_dgemmt, double, dgemm)

__attribute__((weak)) void cblas_sgemmt(int order, int uplo, int ta, int tb, int n, int k, float alpha, const float *a,
                                        int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
    zoo_sgemmt(order, uplo, ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

__attribute__((weak)) void cblas_dgemmt(int order, int uplo, int ta, int tb, int n, int k, double alpha,
                                        const double *a, int lda, const double *b, int ldb, double beta, double *c,
                                        int ldc)
{
    zoo_dgemmt(order, uplo, ta, tb, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
