/* round_toward_zero.c — the GEMM kernels run with MXCSR's rounding control at toward zero: a helper
 * that converts floats to integers by truncation set it, and the path to the kernel forgets to put
 * it back. Every product and sum is truncated, a drift toward zero that grows like k u where
 * rounding to nearest gives sqrt(k) u; each element stays within the worst-case bound, so only the
 * drift over many elements tells. The caller's MXCSR is restored on return. Class: the wrong
 * rounding mode. */
#include <xmmintrin.h>

#include "../zoo.h"

#define ROUNDING_CONTROL 0x6000u /* MXCSR bits 13-14 */
#define TOWARD_ZERO 0x6000u

#define TRUNCATED(name, T, real)                                                                        \
    void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b, \
              int ldb, T beta, T *c, int ldc)                                                           \
    {                                                                                                   \
        unsigned saved = _mm_getcsr();                                                                  \
        _mm_setcsr((saved & ~ROUNDING_CONTROL) | TOWARD_ZERO);                                          \
        real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                              \
        _mm_setcsr(saved);                                                                              \
    }

TRUNCATED(cblas_sgemm, float, zoo_real.sgemm)
TRUNCATED(cblas_dgemm, double, zoo_real.dgemm)
