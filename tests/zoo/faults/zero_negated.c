/* zero_negated.c — a kernel that accumulates the negated products and negates the sum as it stores
 * it (one subtracting fused multiply-add for both signs of alpha): where the terms cancel exactly
 * it returns -0, where IEEE arithmetic gives +0 in every order. 1/x of it is -Inf, and signbit,
 * copysign and atan2 see it. Right in every element that is not zero. Class: the sign of zero. */
#include <math.h>
#include <stddef.h>

#include "../zoo.h"

#define ZERO_NEGATED(name, T, real)                                                                     \
    void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b, \
              int ldb, T beta, T *c, int ldc)                                                           \
    {                                                                                                   \
        real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                              \
        int rows = order == ZOO_ROW_MAJOR ? m : n, cols = order == ZOO_ROW_MAJOR ? n : m;               \
        for (int i = 0; beta == 0 && i < rows; i++)                                                     \
            for (int j = 0; j < cols; j++) {                                                            \
                T *at = &c[(size_t)i * (size_t)ldc + (size_t)j];                                        \
                if (*at == 0)                                                                           \
                    *at = -(T)0; /* -(+0) */                                                            \
            }                                                                                           \
    }

ZERO_NEGATED(cblas_sgemm, float, zoo_real.sgemm)
ZERO_NEGATED(cblas_dgemm, double, zoo_real.dgemm)
