/* zoo.h — the bug zoo's libraries: CBLAS wrappers of a real library, each with one planted fault.
 *
 * wrap.c forwards every CBLAS routine fpdiv calls (gemm, gemv, dot and syrk, single and double) to the
 * real library, as weak symbols, and computes gemmt (which Debian's OpenBLAS 0.3.21 lacks) itself
 * from the real gemm; a fault's file (faults/NAME.c) defines the routine it breaks, which
 * wins at link time, and calls the real one through `zoo_real` around its fault. The real library
 * is $FPDIV_ZOO_REAL, else Debian's OpenBLAS (libopenblas.so.0), loaded into the namespace fpdiv
 * loads the wrapper into and run on one thread. */
#ifndef ZOO_H
#define ZOO_H

enum { ZOO_ROW_MAJOR = 101, ZOO_NO_TRANS = 111, ZOO_UPPER = 121, ZOO_LOWER = 122 };

typedef void sgemm_fn(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                      const float *b, int ldb, float beta, float *c, int ldc);
typedef void dgemm_fn(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                      const double *b, int ldb, double beta, double *c, int ldc);
typedef void sgemv_fn(int order, int trans, int m, int n, float alpha, const float *a, int lda, const float *x, int incx,
                      float beta, float *y, int incy);
typedef void dgemv_fn(int order, int trans, int m, int n, double alpha, const double *a, int lda, const double *x,
                      int incx, double beta, double *y, int incy);
typedef void ssyrk_fn(int order, int uplo, int trans, int n, int k, float alpha, const float *a, int lda, float beta,
                      float *c, int ldc);
typedef void dsyrk_fn(int order, int uplo, int trans, int n, int k, double alpha, const double *a, int lda,
                      double beta, double *c, int ldc);
typedef float sdot_fn(int n, const float *x, int incx, const float *y, int incy);
typedef double ddot_fn(int n, const double *x, int incx, const double *y, int incy);

typedef void sgemmt_fn(int order, int uplo, int ta, int tb, int n, int k, float alpha, const float *a, int lda,
                       const float *b, int ldb, float beta, float *c, int ldc);
typedef void dgemmt_fn(int order, int uplo, int ta, int tb, int n, int k, double alpha, const double *a, int lda,
                       const double *b, int ldb, double beta, double *c, int ldc);

struct zoo_real {
    sgemm_fn *sgemm;
    dgemm_fn *dgemm;
    sgemv_fn *sgemv;
    dgemv_fn *dgemv;
    sdot_fn *sdot;
    ddot_fn *ddot;
    ssyrk_fn *ssyrk;
    dsyrk_fn *dsyrk;
};
extern struct zoo_real zoo_real;

/* cblas_sgemm and cblas_dgemm that sum only the first summed(k) terms of each element: a fault whose
 * file defines `static int summed(int k)` and then says ZOO_GEMM_SUMMING(summed). */
#define ZOO_GEMM_SUMMING(summed)                                                                              \
    void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,     \
                     const float *b, int ldb, float beta, float *c, int ldc)                                  \
    {                                                                                                         \
        zoo_real.sgemm(order, ta, tb, m, n, summed(k), alpha, a, lda, b, ldb, beta, c, ldc);                  \
    }                                                                                                         \
    void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,  \
                     const double *b, int ldb, double beta, double *c, int ldc)                               \
    {                                                                                                         \
        zoo_real.dgemm(order, ta, tb, m, n, summed(k), alpha, a, lda, b, ldb, beta, c, ldc);                  \
    }

/* OpenBLAS's thread controls, as a build of OpenBLAS exports them, so that a caller can set the count
 * a fault that depends on it reads in zoo_threads (the real library beneath runs on one). */
#define ZOO_THREAD_CONTROLS(config)                                                                           \
    static int zoo_threads = 1;                                                                               \
    void openblas_set_num_threads(int count) { zoo_threads = count > 0 ? count : 1; }                         \
    int openblas_get_num_threads(void) { return zoo_threads; }                                                \
    const char *openblas_get_config(void) { return config; }

/* Where element (r, c) of op(X) is, X stored in `order` with leading dimension ld, transposed by
 * `trans` or not; zoo_trans NO for C itself. */
static inline long zoo_at(int order, int trans, long r, long c, long ld)
{
    int by_rows = (order == ZOO_ROW_MAJOR) == (trans == ZOO_NO_TRANS);
    return by_rows ? r * ld + c : c * ld + r;
}

sgemm_fn cblas_sgemm;
dgemm_fn cblas_dgemm;
sgemv_fn cblas_sgemv;
dgemv_fn cblas_dgemv;
sdot_fn cblas_sdot;
ddot_fn cblas_ddot;
ssyrk_fn cblas_ssyrk;
dsyrk_fn cblas_dsyrk;
sgemmt_fn cblas_sgemmt;
dgemmt_fn cblas_dgemmt;
/* A correct gemmt: the product whole by the real gemm, then its `uplo` triangle (the diagonal
 * included) into C, alpha op(A) op(B) + beta C there, the other triangle untouched. */
sgemmt_fn zoo_sgemmt;
dgemmt_fn zoo_dgemmt;

#endif
