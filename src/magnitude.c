/* magnitude.c — g = |A||B| (+ |bias|) for the rounding bound, on the `blocked` kernel. */
#include "magnitude.h"

#include <math.h>
#if defined(__SSE2__)
#include <pmmintrin.h>
#endif

#include "../kernels/cpu/kernels.h"
#include "clock.h"
#include "compare.h"
#include "scratch.h"

/* Past this k, binary32's inflation (about k 2^-24) would loosen the bound by more than 0.4%. */
#define BINARY32_MAX_K (1u << 16)

/* |x[0..count)| as `out`'s type; a loop per input type, so the common ones vectorize. */
typedef void abs_row_fn(enum fpd_dtype t, const void *x, void *out, size_t count);

static void abs_row_f64(enum fpd_dtype t, const void *x, void *out, size_t count)
{
    double *o = out;
    switch (t) {
    case FPD_F64:
        for (size_t i = 0; i < count; i++)
            o[i] = fabs(((const double *)x)[i]);
        break;
    case FPD_F32:
        for (size_t i = 0; i < count; i++)
            o[i] = fabs((double)((const float *)x)[i]);
        break;
    default:
        for (size_t i = 0; i < count; i++)
            o[i] = fabs(fpd_load(t, x, i));
    }
}

static void abs_row_f32(enum fpd_dtype t, const void *x, void *out, size_t count)
{
    float *o = out;
    switch (t) {
    case FPD_F32:
        for (size_t i = 0; i < count; i++)
            o[i] = fabsf(((const float *)x)[i]);
        break;
    default: /* only types binary32 holds exactly come here */
        for (size_t i = 0; i < count; i++)
            o[i] = (float)fabs(fpd_load(t, x, i));
    }
}

/* |op(X)| (rows x cols) packed in X's own storage order, a stored row at a time, as `es`-byte
 * elements: element (i, j) lands at i * *rs + j * *cs. */
static int pack_abs(struct fpd_staging *s, const struct fpd_matrix_view *x, size_t rows, size_t cols, size_t es,
                    abs_row_fn *abs_row, ptrdiff_t *rs, ptrdiff_t *cs)
{
    size_t stored_rows = x->transposed ? cols : rows, stored_cols = x->transposed ? rows : cols;
    if (fpd_grow(&s->buf, &s->cap, rows * cols * es) != FPD_OK)
        return FPD_ERR_NOMEM;
    size_t in_es = fpd_dtype_info(x->t)->size;
    for (size_t r = 0; r < stored_rows; r++)
        abs_row(x->t, (const char *)x->p + r * x->ld * in_es, (char *)s->buf + r * stored_cols * es, stored_cols);
    *rs = x->transposed ? 1 : (ptrdiff_t)cols;
    *cs = x->transposed ? (ptrdiff_t)rows : 1;
    return FPD_OK;
}

static int magnitudes_f64(struct fpd_magnitude_work *w, const struct fpd_matrix_view *a,
                          const struct fpd_matrix_view *b, size_t m, size_t n, size_t k, const double *abs_bias,
                          double *g, uint64_t *gemm_ticks)
{
    ptrdiff_t a_rs, a_cs, b_rs, b_cs;
    if (pack_abs(&w->abs_a, a, m, k, sizeof(double), abs_row_f64, &a_rs, &a_cs) != FPD_OK ||
        pack_abs(&w->abs_b, b, k, n, sizeof(double), abs_row_f64, &b_rs, &b_cs) != FPD_OK)
        return FPD_ERR_NOMEM;
    struct fpd_kgemm_f64 kg = {m, n, k, w->abs_a.buf, a_rs, a_cs, w->abs_b.buf, b_rs, b_cs, g, n, abs_bias};
    uint64_t t0 = fpd_ticks();
    int rc = fpd_kernel_blocked_f64(&kg);
    *gemm_ticks += fpd_ticks() - t0;
    return rc == 0 ? FPD_OK : FPD_ERR_NOMEM;
}

/*
 * The sum in binary32, then raised to a bound on the exact one. Under round-to-nearest each
 * product's share passes through at most k roundings (its own, then the additions after it),
 * each losing at most a relative 2^-24 of a non-negative value, in whatever order the kernel
 * sums: computed >= exact (1 - 2^-24)^k, and 1 / (1 - 2^-24)^k <= 1 + gamma_k(2^-24). With
 * gradual underflow (see ieee_underflow_begin) a product that lands among the subnormals loses at
 * most half their spacing, 2^-150, and a sum that does is exact: under k 2^-149 in all.
 * *finite is false where some binary32 sum is not (overflow, or an Inf or NaN operand).
 */
static int magnitudes_f32(struct fpd_magnitude_work *w, const struct fpd_matrix_view *a,
                          const struct fpd_matrix_view *b, size_t m, size_t n, size_t k, const double *abs_bias,
                          double *g, uint64_t *gemm_ticks, bool *finite)
{
    ptrdiff_t a_rs, a_cs, b_rs, b_cs;
    if (pack_abs(&w->abs_a, a, m, k, sizeof(float), abs_row_f32, &a_rs, &a_cs) != FPD_OK ||
        pack_abs(&w->abs_b, b, k, n, sizeof(float), abs_row_f32, &b_rs, &b_cs) != FPD_OK ||
        fpd_grow(&w->sum.buf, &w->sum.cap, m * n * sizeof(float)) != FPD_OK)
        return FPD_ERR_NOMEM;
    float *sum = w->sum.buf;
    struct fpd_kgemm_f32 kg = {m, n, k, w->abs_a.buf, a_rs, a_cs, w->abs_b.buf, b_rs, b_cs, sum, n, NULL, NULL, NULL};
    uint64_t t0 = fpd_ticks();
    int rc = fpd_kernel_blocked_f32(&kg);
    *gemm_ticks += fpd_ticks() - t0;
    if (rc != 0)
        return FPD_ERR_NOMEM;
    double inflate = 1 + fpd_gamma(k, 0x1p-24), underflow = (double)k * 0x1p-149;
    bool all_finite = true;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float s = sum[i * n + j];
            all_finite &= isfinite(s);
            g[i * n + j] = ((double)s + underflow) * inflate + (abs_bias ? abs_bias[j] : 0);
        }
    *finite = all_finite;
    return FPD_OK;
}

/* Whether every value of type t is a binary32 value too (so its |x| converts exactly). */
static bool within_binary32(enum fpd_dtype t)
{
    const struct fpd_dtype_info *f = fpd_dtype_info(t), *single = fpd_dtype_info(FPD_F32);
    return f->precision <= single->precision && f->emin >= single->emin && f->emax <= single->emax;
}

/*
 * The bounds above assume IEEE 754's gradual underflow. A backend may have switched on
 * flush-to-zero or denormals-are-zero for the whole process (a plugin linked with gcc's
 * -ffast-math can do so when it loads): with those a product of subnormals could lose all of itself. They are
 * off while the magnitudes are summed, and restored after.
 */
static unsigned ieee_underflow_begin(void)
{
#if defined(__SSE2__)
    unsigned csr = _mm_getcsr();
    _mm_setcsr(csr & ~(unsigned)(_MM_FLUSH_ZERO_MASK | _MM_DENORMALS_ZERO_MASK));
    return csr;
#else
    return 0;
#endif
}

static void ieee_underflow_end(unsigned csr)
{
#if defined(__SSE2__)
    _mm_setcsr(csr);
#else
    (void)csr;
#endif
}

int fpd_magnitudes(struct fpd_magnitude_work *w, const struct fpd_matrix_view *a, const struct fpd_matrix_view *b,
                   size_t m, size_t n, size_t k, const double *abs_bias, double *g, uint64_t *gemm_ticks)
{
    if (k == 0) { /* no products: nothing for the kernels to do */
        for (size_t i = 0; i < m * n; i++)
            g[i] = abs_bias ? abs_bias[i % n] : 0;
        return FPD_OK;
    }
    unsigned csr = ieee_underflow_begin();
    int rc = FPD_OK;
    bool finite = false;
    if (a->t == b->t && within_binary32(a->t) && k <= BINARY32_MAX_K)
        rc = magnitudes_f32(w, a, b, m, n, k, abs_bias, g, gemm_ticks, &finite);
    if (rc == FPD_OK && !finite)
        rc = magnitudes_f64(w, a, b, m, n, k, abs_bias, g, gemm_ticks);
    ieee_underflow_end(csr);
    return rc;
}

void fpd_magnitude_work_free(struct fpd_magnitude_work *w)
{
    fpd_staging_free(&w->abs_a);
    fpd_staging_free(&w->abs_b);
    fpd_staging_free(&w->sum);
}
