/* nan_clamp.c — a saturating store: every result clamped to the type's finite range by max and min
 * instructions, as the epilogues of down-converting kernels (fp16, int8) do. maxps and minps return
 * their second operand where the first is NaN, so a NaN comes back as -max and an Inf as ±max.
 * Right for every call whose results are finite. Class: NaN and Inf lost on a max/min path. */
#include <float.h>

#include "../zoo.h"

/* x86's maxss(x, lo) and minss(x, hi): the comparison false for NaN gives the bound */
static float clamp_f(float x)
{
    float y = x >= -FLT_MAX ? x : -FLT_MAX;
    return y <= FLT_MAX ? y : FLT_MAX;
}

static double clamp_d(double x)
{
    double y = x >= -DBL_MAX ? x : -DBL_MAX;
    return y <= DBL_MAX ? y : DBL_MAX;
}

#define CLAMPED(name, T, real, clamp)                                                                   \
    void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b, \
              int ldb, T beta, T *c, int ldc)                                                           \
    {                                                                                                   \
        real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                              \
        for (int i = 0; i < m; i++)                                                                     \
            for (int j = 0; j < n; j++) {                                                               \
                T *y = &c[zoo_at(order, ZOO_NO_TRANS, i, j, ldc)];                                      \
                *y = clamp(*y);                                                                         \
            }                                                                                           \
    }

CLAMPED(cblas_sgemm, float, zoo_real.sgemm, clamp_f)
CLAMPED(cblas_dgemm, double, zoo_real.dgemm, clamp_d)
