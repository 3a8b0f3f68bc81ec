/* reduced_precision.c — single-precision products from inputs rounded to 11 significand bits (as
 * TF32 tensor cores take them) once the sums reach 32 terms, undeclared, in gemm, gemv and dot
 * alike: every result a little farther from the correctly rounded one than f32 arithmetic may be.
 * Two paths through it agree as well as two correct ones do; only the exact reference shows both
 * wrong. Class: reduced-precision intermediates. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../zoo.h"

static float to_tf32(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    if ((bits & 0x7f800000u) != 0x7f800000u) /* finite: round to nearest, 13 bits dropped */
        bits = (bits + 0xfffu + ((bits >> 13) & 1)) & ~0x1fffu;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Elements of a rows x cols operand, ld apart: the last row ends at its last element, not at ld. */
static size_t span(size_t rows, size_t cols, int ld) { return rows ? (rows - 1) * (size_t)ld + cols : 0; }

static float *rounded(const float *x, size_t count)
{
    float *r = malloc(count ? count * sizeof *r : 1); /* NULL means out of memory, not empty */
    for (size_t i = 0; r && i < count; i++)
        r[i] = to_tf32(x[i]);
    return r;
}

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc)
{
    if (order != ZOO_ROW_MAJOR || k < 32) {
        zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
    /* row-major: op(A) is m x k, stored k x m when transposed; op(B) k x n, stored n x k */
    float *ra = rounded(a, ta == ZOO_NO_TRANS ? span(m, k, lda) : span(k, m, lda));
    float *rb = rounded(b, tb == ZOO_NO_TRANS ? span(k, n, ldb) : span(n, k, ldb));
    if (ra && rb)
        zoo_real.sgemm(order, ta, tb, m, n, k, alpha, ra, lda, rb, ldb, beta, c, ldc);
    else /* no memory: the fault is not planted this once */
        zoo_real.sgemm(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    free(ra);
    free(rb);
}

void cblas_sgemv(int order, int trans, int m, int n, float alpha, const float *a, int lda, const float *x, int incx,
                 float beta, float *y, int incy)
{
    int terms = trans == ZOO_NO_TRANS ? n : m; /* op(A) x: x's length, each sum's */
    size_t stored = order == ZOO_ROW_MAJOR ? span(m, n, lda) : span(n, m, lda);
    float *ra = terms >= 32 && incx > 0 ? rounded(a, stored) : NULL;
    float *rx = ra ? rounded(x, span(terms, 1, incx)) : NULL;
    if (ra && rx)
        zoo_real.sgemv(order, trans, m, n, alpha, ra, lda, rx, incx, beta, y, incy);
    else
        zoo_real.sgemv(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
    free(ra);
    free(rx);
}

float cblas_sdot(int n, const float *x, int incx, const float *y, int incy)
{
    float *rx = n >= 32 && incx > 0 && incy > 0 ? rounded(x, span(n, 1, incx)) : NULL;
    float *ry = rx ? rounded(y, span(n, 1, incy)) : NULL;
    float dot = rx && ry ? zoo_real.sdot(n, rx, incx, ry, incy) : zoo_real.sdot(n, x, incx, y, incy);
    free(rx);
    free(ry);
    return dot;
}
