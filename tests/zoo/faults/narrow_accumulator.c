/* narrow_accumulator.c — a GEMM kernel for 32 <= k <= 4096 whose accumulator keeps two significand
 * bits fewer than its type (22 of binary32's 24, 51 of binary64's 53), rounding each partial sum to
 * them: as FP8 tensor cores accumulate in fewer bits than the f32 they declare. Every element is a
 * few times farther from the exact sum than rounding in the declared type makes, and none far
 * enough for one element to tell; two paths through it agree as well as two correct ones do.
 * (Longer sums go to the real library: this kernel is a plain loop, and the fault is the class, not
 * the length.) Class: lost precision, a little on every element. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../zoo.h"

enum { DROPPED_BITS = 2 };

static float narrow_f32(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    if ((bits & 0x7f800000u) != 0x7f800000u) { /* finite: round to nearest even, DROPPED_BITS fewer */
        uint32_t half = 1u << (DROPPED_BITS - 1), keep = ~((1u << DROPPED_BITS) - 1);
        bits = (bits + half - 1 + ((bits >> DROPPED_BITS) & 1)) & keep;
    }
    memcpy(&x, &bits, sizeof x);
    return x;
}

static double narrow_f64(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    if ((bits & 0x7ff0000000000000u) != 0x7ff0000000000000u) {
        uint64_t half = 1u << (DROPPED_BITS - 1), keep = ~((UINT64_C(1) << DROPPED_BITS) - 1);
        bits = (bits + half - 1 + ((bits >> DROPPED_BITS) & 1)) & keep;
    }
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Where op(X)[r][c] is stored: by rows when the order and the transposition say so together. */
static size_t at(int order, int trans, size_t r, size_t c, int ld)
{
    bool by_rows = (order == ZOO_ROW_MAJOR) == (trans == ZOO_NO_TRANS);
    return by_rows ? r * (size_t)ld + c : c * (size_t)ld + r;
}

#define NARROW_GEMM(name, T, narrow, fma_t)                                                                         \
    void name(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b, int ldb,     \
              T beta, T *c, int ldc)                                                                                \
    {                                                                                                              \
        for (int i = 0; i < m; i++)                                                                                \
            for (int j = 0; j < n; j++) {                                                                          \
                T acc = 0;                                                                                         \
                for (int p = 0; p < k; p++)                                                                        \
                    acc = narrow(fma_t(a[at(order, ta, i, p, lda)], b[at(order, tb, p, j, ldb)], acc));            \
                T *out = &c[at(order, ZOO_NO_TRANS, i, j, ldc)];                                                   \
                *out = beta == 0 ? alpha * acc : alpha * acc + beta * *out; /* beta = 0 overwrites C */            \
            }                                                                                                      \
    }

static bool narrowed(int k) { return k >= 32 && k <= 4096; }

static NARROW_GEMM(narrow_sgemm, float, narrow_f32, __builtin_fmaf)
static NARROW_GEMM(narrow_dgemm, double, narrow_f64, __builtin_fma)

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    (narrowed(k) ? narrow_sgemm : zoo_real.sgemm)(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    (narrowed(k) ? narrow_dgemm : zoo_real.dgemm)(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
