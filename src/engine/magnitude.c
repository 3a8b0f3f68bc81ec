/* magnitude.c — g = |A||B| (+ |bias|) for the rounding bound, on the `blocked` kernel. */
#include "engine/magnitude.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <pmmintrin.h>
#endif

#include "common/clock.h"
#include "common/scratch.h"
#include "cpu/clones.h"
#include "cpu/kernels.h"

/* Past this k, binary32's inflation (about k 2^-24) would loosen the bound by more than 0.4%. */
#define BINARY32_MAX_K (1u << 16)

/* op(X) (rows x cols) as values of type t: where it is stored when it is of that type already,
 * else converted (exactly: t holds every value of X's type), in X's storage order. The magnitude
 * kernels take the absolute values as they pack. NULL when out of memory. */
double fpd_gamma(size_t terms, double u)
{
    /* gamma_T = Tu / (1 - Tu) bounds (1 + u)^T - 1; past Tu = 1/2 use the latter itself, which
     * stays finite (a 16-bit accumulator over thousands of terms still has a bound). */
    double tu = (double)terms * u;
    return tu <= 0.5 ? tu / (1 - tu) : expm1((double)terms * log1p(u));
}

static const void *operand_as(struct fpd_staging *s, const struct fpd_matrix_view *x, size_t rows, size_t cols,
                              enum fpd_dtype t, ptrdiff_t *rs, ptrdiff_t *cs)
{
    size_t ld;
    const void *p = fpd_stage_input(s, x->t, x->p, x->transposed ? cols : rows, x->transposed ? rows : cols, x->ld,
                                    t, &ld);
    fpd_op_strides(x->transposed, ld, rs, cs);
    return p;
}

static int magnitudes_f64(struct fpd_magnitude_work *w, const struct fpd_matrix_view *a,
                          const struct fpd_matrix_view *b, size_t m, size_t n, size_t k, const double *abs_bias,
                          double *g, uint64_t *gemm_ticks)
{
    ptrdiff_t a_rs, a_cs, b_rs, b_cs;
    const double *va = operand_as(&w->a, a, m, k, FPD_F64, &a_rs, &a_cs);
    const double *vb = operand_as(&w->b, b, k, n, FPD_F64, &b_rs, &b_cs);
    if (!va || !vb)
        return FPD_ERR_NOMEM;
    struct fpd_kgemm_f64 kg = {m, n, k, va, a_rs, a_cs, vb, b_rs, b_cs, g, n, abs_bias};
    uint64_t t0 = fpd_ticks();
    int rc = fpd_kernel_blocked_magnitude_f64(&kg);
    *gemm_ticks += fpd_ticks() - t0;
    return rc == 0 ? FPD_OK : FPD_ERR_NOMEM;
}

/* g = (sum + underflow) inflate (+ abs_bias[j]) over m x n, and whether every sum is finite: a
 * pass over the block, one copy per vector width (the bits are the same in every copy). */
FPD_VECTOR_WIDTH_FUNCTION(bool, raise_to_bound,
                          (const float *sum, size_t m, size_t n, double underflow, double inflate,
                           const double *abs_bias, double *g),
                          (sum, m, n, underflow, inflate, abs_bias, g))
{
    uint32_t nonfinite = 0; /* an integer OR over the exponent fields: the loop vectorizes */
    for (size_t i = 0; i < m; i++) {
        const float *s = sum + i * n;
        double *row = g + i * n;
        for (size_t j = 0; j < n; j++) {
            uint32_t bits;
            memcpy(&bits, &s[j], sizeof bits);
            nonfinite |= (bits & 0x7f800000u) == 0x7f800000u;
            row[j] = fpd_raise_sum(s[j], underflow, inflate);
        }
        if (abs_bias)
            for (size_t j = 0; j < n; j++)
                row[j] += abs_bias[j];
    }
    return !nonfinite;
}

/*
 * The sum in binary32, then raised to a bound on the exact one. Under round-to-nearest each
 * product's share passes through at most k roundings (its own, then the additions after it),
 * each losing at most a relative 2^-24 of a non-negative value, in whatever order the kernel
 * sums: computed >= exact (1 - 2^-24)^k, and 1 / (1 - 2^-24)^k <= 1 + gamma_k(2^-24). With
 * gradual underflow (see ieee_underflow_begin) a product that lands among the subnormals loses at
 * most half their spacing, 2^-150, and a sum that does is exact: under k 2^-149 in all.
 * A binary32 sum may not be finite (overflow, or an Inf or NaN operand).
 */
static struct fpd_magnitude_sums binary32_sums(const float *sum, size_t k, const double *abs_bias)
{
    return (struct fpd_magnitude_sums){sum, (double)k * 0x1p-149, 1 + fpd_gamma(k, 0x1p-24), abs_bias};
}

static int sums_f32(struct fpd_magnitude_work *w, const struct fpd_matrix_view *a, const struct fpd_matrix_view *b,
                    size_t m, size_t n, size_t k, const double *abs_bias, struct fpd_magnitude_sums *out,
                    uint64_t *gemm_ticks)
{
    ptrdiff_t a_rs, a_cs, b_rs, b_cs;
    const float *va = operand_as(&w->a, a, m, k, FPD_F32, &a_rs, &a_cs);
    const float *vb = operand_as(&w->b, b, k, n, FPD_F32, &b_rs, &b_cs);
    if (!va || !vb || fpd_grow(&w->sum.buf, &w->sum.cap, m * n * sizeof(float)) != FPD_OK)
        return FPD_ERR_NOMEM;
    float *sum = w->sum.buf;
    struct fpd_kgemm_f32 kg = {m, n, k, va, a_rs, a_cs, vb, b_rs, b_cs, sum, n, NULL, NULL, NULL};
    uint64_t t0 = fpd_ticks();
    int rc = fpd_kernel_blocked_magnitude_f32(&kg);
    *gemm_ticks += fpd_ticks() - t0;
    if (rc != 0)
        return FPD_ERR_NOMEM;
    *out = binary32_sums(sum, k, abs_bias);
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

int fpd_magnitude_sums(struct fpd_magnitude_work *w, const struct fpd_matrix_view *a, const struct fpd_matrix_view *b,
                       size_t m, size_t n, size_t k, const double *abs_bias, struct fpd_magnitude_sums *out,
                       uint64_t *gemm_ticks)
{
    *out = (struct fpd_magnitude_sums){.sum = NULL};
    if (k == 0 || a->t != b->t || !within_binary32(a->t) || k > BINARY32_MAX_K)
        return FPD_OK;
    unsigned csr = ieee_underflow_begin();
    int rc = sums_f32(w, a, b, m, n, k, abs_bias, out, gemm_ticks);
    ieee_underflow_end(csr);
    return rc;
}

int fpd_magnitudes_of_sums(struct fpd_magnitude_work *w, const struct fpd_matrix_view *a,
                           const struct fpd_matrix_view *b, size_t m, size_t n, size_t k, const double *abs_bias,
                           double *g, uint64_t *gemm_ticks)
{
    unsigned csr = ieee_underflow_begin();
    struct fpd_magnitude_sums s = binary32_sums(w->sum.buf, k, abs_bias);
    int rc = FPD_OK;
    if (!raise_to_bound(s.sum, m, n, s.underflow, s.inflate, abs_bias, g))
        rc = magnitudes_f64(w, a, b, m, n, k, abs_bias, g, gemm_ticks);
    ieee_underflow_end(csr);
    return rc;
}

int fpd_magnitudes(struct fpd_magnitude_work *w, const struct fpd_matrix_view *a, const struct fpd_matrix_view *b,
                   size_t m, size_t n, size_t k, const double *abs_bias, double *g, uint64_t *gemm_ticks)
{
    if (k == 0) { /* no products: nothing for the kernels to do */
        for (size_t i = 0; i < m * n; i++)
            g[i] = abs_bias ? abs_bias[i % n] : 0;
        return FPD_OK;
    }
    struct fpd_magnitude_sums s;
    int rc = fpd_magnitude_sums(w, a, b, m, n, k, abs_bias, &s, gemm_ticks);
    if (rc != FPD_OK)
        return rc;
    if (s.sum)
        return fpd_magnitudes_of_sums(w, a, b, m, n, k, abs_bias, g, gemm_ticks);
    unsigned csr = ieee_underflow_begin();
    rc = magnitudes_f64(w, a, b, m, n, k, abs_bias, g, gemm_ticks);
    ieee_underflow_end(csr);
    return rc;
}

void fpd_magnitude_work_free(struct fpd_magnitude_work *w)
{
    fpd_staging_free(&w->a);
    fpd_staging_free(&w->b);
    fpd_staging_free(&w->sum);
}
