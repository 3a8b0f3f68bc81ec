/* syrk_lower_row.c — syrk's lower path with an off-by-one in its packing: asked for the lower
 * triangle, it computes C's last row from op(A)'s row before it (C[n-1][j] = a_{n-2} . a_j for j <
 * n - 1). The upper path is right, and numpy asks only for that one, mirroring it. Class: one
 * triangle's own code. */
#include "../zoo.h"

/* Element i of op(A)'s row r (op(A) n x k, row-major storage, transposed by `trans`). */
#define AT(a, trans, lda, r, i) (a)[zoo_at(ZOO_ROW_MAJOR, trans, r, i, lda)]

#define LOWER_ROW_STALE(name, T, real)                                                                      \
    void name(int order, int uplo, int trans, int n, int k, T alpha, const T *a, int lda, T beta, T *c,     \
              int ldc)                                                                                      \
    {                                                                                                       \
        real(order, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);                                        \
        if (uplo != ZOO_LOWER || order != ZOO_ROW_MAJOR || n < 3 || beta != 0)                              \
            return;                                                                                         \
        for (int j = 0; j < n - 1; j++) {                                                                   \
            T sum = 0;                                                                                      \
            for (int p = 0; p < k; p++)                                                                     \
                sum += AT(a, trans, lda, n - 2, p) * AT(a, trans, lda, j, p);                               \
            c[(long)(n - 1) * ldc + j] = alpha * sum;                                                       \
        }                                                                                                   \
    }

LOWER_ROW_STALE(cblas_ssyrk, float, zoo_real.ssyrk)
LOWER_ROW_STALE(cblas_dsyrk, double, zoo_real.dsyrk)
