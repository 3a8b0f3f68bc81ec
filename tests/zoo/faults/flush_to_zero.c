/* flush_to_zero.c — the kernels run with the CPU's flush-to-zero and denormals-are-zero modes on
 * (a library built with -ffast-math, whose startup code sets them, or one that sets them for
 * speed), the caller's modes put back after: a subnormal input is read as zero (an Inf times it
 * is then NaN) and a subnormal result or product is written as zero. Right for every call whose
 * inputs, products and results are normal or zero. Class: subnormals flushed. */
#include <xmmintrin.h>

#include "../zoo.h"

enum { FLUSH_TO_ZERO = 0x8000, DENORMALS_ARE_ZERO = 0x0040 }; /* MXCSR's bits */

#define FLUSHED(name, T, real)                                                                          \
    void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b, \
              int ldb, T beta, T *c, int ldc)                                                           \
    {                                                                                                   \
        unsigned callers = _mm_getcsr();                                                                \
        _mm_setcsr(callers | FLUSH_TO_ZERO | DENORMALS_ARE_ZERO);                                       \
        real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                              \
        _mm_setcsr(callers);                                                                            \
    }

FLUSHED(cblas_sgemm, float, zoo_real.sgemm)
FLUSHED(cblas_dgemm, double, zoo_real.dgemm)
