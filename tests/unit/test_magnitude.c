/* The bound's magnitudes against MPFR: never below the exact |A||B| (+ |bias|) by more than
 * fpd_bound_element allows for, and not looser than binary32's worst case, in every type,
 * layout and exponent range, overflowing binary32 and underflowing it. */
#include <criterion/criterion.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <pmmintrin.h>
#endif

#include "common/dtype.h"
#include "engine/magnitude.h"
#include "gen/rng.h"

struct matrix {
    void *p;
    struct fpd_matrix_view view;
};

/* rows x cols of random values of type t with exponents in [emin, emax], stored transposed or
 * not with two elements of padding, so strides and layouts are exercised too. */
static struct matrix random_matrix(enum fpd_dtype t, size_t rows, size_t cols, bool transposed, int emin, int emax,
                                   uint64_t *state)
{
    size_t stored_rows = transposed ? cols : rows, ld = (transposed ? rows : cols) + 2;
    struct matrix x = {calloc(stored_rows * ld, fpd_dtype_info(t)->size), {NULL, t, transposed, ld}};
    cr_assert(x.p);
    x.view.p = x.p;
    for (size_t i = 0; i < stored_rows * ld; i++) {
        uint64_t r = fpd_rng_mix64((*state)++);
        double sig = 1 + (double)(r >> 12) * 0x1p-52;
        int e = emin + (int)(r % (uint64_t)(emax - emin + 1));
        fpd_store(t, x.p, i, fpd_round(t, (r & 2048) ? -ldexp(sig, e) : ldexp(sig, e)));
    }
    return x;
}

static double element(const struct fpd_matrix_view *x, size_t i, size_t j)
{
    return fpd_load(x->t, x->p, x->transposed ? j * x->ld + i : i * x->ld + j);
}

/* Checks g against the exact magnitudes, element by element. */
static void check_against_mpfr(const struct fpd_matrix_view *a, const struct fpd_matrix_view *b, size_t m, size_t n,
                               size_t k, const double *abs_bias, const double *g)
{
    mpfr_t exact, term, allowed;
    mpfr_inits2(2400, exact, term, allowed, (mpfr_ptr)0); /* exact for the exponents used here */
    size_t terms = k + (abs_bias ? 1 : 0);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            mpfr_set_d(exact, abs_bias ? abs_bias[j] : 0, MPFR_RNDN);
            for (size_t p = 0; p < k; p++) {
                mpfr_set_d(term, fabs(element(a, i, p)), MPFR_RNDN);
                mpfr_mul_d(term, term, fabs(element(b, p, j)), MPFR_RNDN);
                mpfr_add(exact, exact, term, MPFR_RNDN);
            }
            double got = g[i * n + j];
            cr_assert(isfinite(got), "g[%zu][%zu] = %g where the exact value is finite", i, j, got);
            /* low side: what fpd_bound_element's allowance for g's own rounding must cover */
            mpfr_set_d(allowed, got, MPFR_RNDN);
            mpfr_mul_d(allowed, allowed, 1 + (double)(terms + 1) * 0x1p-52, MPFR_RNDN);
            cr_assert(mpfr_cmp(allowed, exact) >= 0, "g[%zu][%zu] = %a is below the exact %a (k = %zu)", i, j, got,
                      mpfr_get_d(exact, MPFR_RNDN), k);
            /* high side: no looser than twice binary32's worst case */
            mpfr_mul_d(allowed, exact, 1 + 2 * (double)k * 0x1p-24, MPFR_RNDU);
            mpfr_add_d(allowed, allowed, (double)k * 0x1p-148, MPFR_RNDU);
            cr_assert(mpfr_cmp_d(allowed, got) >= 0, "g[%zu][%zu] = %a is far above the exact %a (k = %zu)", i, j,
                      got, mpfr_get_d(exact, MPFR_RNDN), k);
        }
    mpfr_clears(exact, term, allowed, (mpfr_ptr)0);
}

/* The modes a backend may leave on for the whole process (a plugin built with -ffast-math). */
#if defined(__SSE2__)
#define FLUSHING (_MM_FLUSH_ZERO_MASK | _MM_DENORMALS_ZERO_MASK)
#else
#define FLUSHING 0u
#endif

/* fpd_magnitudes with the control register's flush modes set to `flush`; the caller's come back. */
static void magnitudes_under(unsigned flush, struct fpd_magnitude_work *w, const struct fpd_matrix_view *a,
                             const struct fpd_matrix_view *b, size_t m, size_t n, size_t k, const double *abs_bias,
                             double *g)
{
    uint64_t ticks = 0;
#if defined(__SSE2__)
    unsigned csr = _mm_getcsr();
    _mm_setcsr((csr & ~FLUSHING) | flush);
    int rc = fpd_magnitudes(w, a, b, m, n, k, abs_bias, g, &ticks);
    unsigned after = _mm_getcsr();
    _mm_setcsr(csr);
    cr_assert_eq(after & FLUSHING, flush, "the caller's flush modes were not restored");
#else
    int rc = fpd_magnitudes(w, a, b, m, n, k, abs_bias, g, &ticks);
#endif
    cr_assert_eq(rc, FPD_OK);
}

static void check_shape_under(unsigned flush, enum fpd_dtype t, size_t m, size_t n, size_t k, int emin, int emax,
                              bool bias, uint64_t seed)
{
    struct fpd_magnitude_work w = {0};
    for (int layout = 0; layout < 4; layout++) {
        uint64_t state = seed * 4 + (uint64_t)layout;
        struct matrix a = random_matrix(t, m, k, layout & 1, emin, emax, &state);
        struct matrix b = random_matrix(t, k, n, layout & 2, emin, emax, &state);
        double *abs_bias = calloc(n, sizeof *abs_bias), *g = calloc(m * n, sizeof *g);
        cr_assert(abs_bias && g);
        for (size_t j = 0; j < n; j++)
            abs_bias[j] = ldexp(1 + (double)j / 8, emin + (int)j % 4);
        magnitudes_under(flush, &w, &a.view, &b.view, m, n, k, bias ? abs_bias : NULL, g);
        check_against_mpfr(&a.view, &b.view, m, n, k, bias ? abs_bias : NULL, g);
        free(a.p);
        free(b.p);
        free(abs_bias);
        free(g);
    }
    fpd_magnitude_work_free(&w);
}

static void check_shape(enum fpd_dtype t, size_t m, size_t n, size_t k, int emin, int emax, bool bias, uint64_t seed)
{
    check_shape_under(0, t, m, n, k, emin, emax, bias, seed);
}

Test(magnitude, ordinary_values_every_type)
{
    const enum fpd_dtype types[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        check_shape(types[t], 7, 19, 33, -4, 4, false, 1 + t);
        check_shape(types[t], 3, 5, 300, -4, 4, true, 11 + t);
        check_shape(types[t], 1, 1, 1, -4, 4, true, 21 + t);
    }
}

Test(magnitude, binary32_overflow_falls_back_to_binary64)
{
    /* products up to 2^254 (126, not 127: a significand rounded up to 2 would be Inf): binary32 sums overflow, the exact ones are ordinary binary64 values */
    check_shape(FPD_F32, 5, 6, 40, 100, 126, true, 31);
    check_shape(FPD_BF16, 5, 6, 40, 100, 126, false, 32);
}

Test(magnitude, binary32_underflow_is_allowed_for)
{
    /* products down to 2^-298: binary32 rounds them to subnormals or zero */
    check_shape(FPD_F32, 4, 9, 64, -149, -60, false, 41);
    check_shape(FPD_BF16, 4, 9, 64, -133, -60, true, 42);
}

Test(magnitude, flush_to_zero_set_by_a_backend_is_undone)
{
    /* subnormal A times large B: normal products, which denormals-are-zero would make vanish */
    if (FLUSHING == 0)
        cr_skip_test("no flush-to-zero control on this architecture");
    const enum fpd_dtype types[] = {FPD_F32, FPD_BF16};
    for (size_t t = 0; t < 2; t++) {
        uint64_t state = 71 + t;
        int emin = fpd_dtype_info(types[t])->emin, digits = fpd_dtype_info(types[t])->precision;
        struct matrix a = random_matrix(types[t], 3, 64, t, emin - digits + 1, emin - 1, &state);
        struct matrix b = random_matrix(types[t], 64, 4, false, 20, 40, &state);
        struct fpd_magnitude_work w = {0};
        double g[12];
        magnitudes_under(FLUSHING, &w, &a.view, &b.view, 3, 4, 64, NULL, g);
        check_against_mpfr(&a.view, &b.view, 3, 4, 64, NULL, g);
        free(a.p);
        free(b.p);
        fpd_magnitude_work_free(&w);
    }
}

Test(magnitude, products_rounded_to_zero_one_by_one)
{
    /* (2 - 2^-23) 2^-76 x 2^-75 is just under half the smallest subnormal: each product rounds to
     * zero and so does every sum, the worst case of the underflow allowance, k (1 - 2^-24) 2^-150 */
    size_t k = 64;
    float a[2 * 64], b[64 * 3];
    for (size_t i = 0; i < 2 * k; i++)
        a[i] = 0x1p-75f;
    for (size_t i = 0; i < 3 * k; i++)
        b[i] = 0x1.fffffep-76f;
    struct fpd_matrix_view va = {a, FPD_F32, false, k}, vb = {b, FPD_F32, false, 3};
    struct fpd_magnitude_work w = {0};
    double g[6];
    magnitudes_under(0, &w, &va, &vb, 2, 3, k, NULL, g);
    check_against_mpfr(&va, &vb, 2, 3, k, NULL, g);
    fpd_magnitude_work_free(&w);
}

Test(magnitude, no_products)
{
    struct fpd_magnitude_work w = {0};
    float a[1] = {1}, b[1] = {1};
    struct fpd_matrix_view va = {a, FPD_F32, false, 1}, vb = {b, FPD_F32, false, 1};
    double abs_bias[2] = {0.5, 3}, g[4] = {-1, -1, -1, -1};
    uint64_t ticks = 0;
    const double with_bias[4] = {0.5, 3, 0.5, 3}, without[4] = {0, 0, 0, 0};
    cr_assert_eq(fpd_magnitudes(&w, &va, &vb, 2, 2, 0, abs_bias, g, &ticks), FPD_OK);
    cr_assert(memcmp(g, with_bias, sizeof g) == 0, "k = 0 with a bias gave %g %g %g %g", g[0], g[1], g[2], g[3]);
    cr_assert_eq(fpd_magnitudes(&w, &va, &vb, 2, 2, 0, NULL, g, &ticks), FPD_OK);
    cr_assert(memcmp(g, without, sizeof g) == 0, "k = 0 gave %g %g %g %g", g[0], g[1], g[2], g[3]);
    fpd_magnitude_work_free(&w);
}

Test(magnitude, the_whole_binary32_range)
{
    check_shape(FPD_F32, 6, 7, 128, -149, 126, true, 51);
}

Test(magnitude, narrow_types_are_summed_in_binary32)
{
    /* binary32's route inflates by about k 2^-24 (here 1.8e-5), far more than its sum's rounding
     * errors at random (about sqrt(k) 2^-24) take off; binary64's is within 2^-40 */
    const enum fpd_dtype narrow[] = {FPD_F32, FPD_F16, FPD_BF16};
    size_t k = 300;
    for (size_t t = 0; t < sizeof narrow / sizeof narrow[0]; t++) {
        uint64_t state = 61 + t;
        struct matrix a = random_matrix(narrow[t], 2, k, false, -2, 2, &state);
        struct matrix b = random_matrix(narrow[t], k, 3, true, -2, 2, &state);
        struct fpd_magnitude_work w = {0};
        double g[6];
        uint64_t ticks = 0;
        cr_assert_eq(fpd_magnitudes(&w, &a.view, &b.view, 2, 3, k, NULL, g, &ticks), FPD_OK);
        for (size_t i = 0; i < 2; i++)
            for (size_t j = 0; j < 3; j++) {
                double exact = 0; /* to about 2^-44: enough to see the inflation */
                for (size_t p = 0; p < k; p++)
                    exact += fabs(element(&a.view, i, p)) * fabs(element(&b.view, p, j));
                cr_assert_gt(g[i * 3 + j], exact * (1 + (double)k * 0x1p-25), "%s: g = %a, exact %a",
                             fpd_dtype_info(narrow[t])->name, g[i * 3 + j], exact);
            }
        free(a.p);
        free(b.p);
        fpd_magnitude_work_free(&w);
    }
}

Test(magnitude, inf_and_nan_operands_propagate)
{
    struct fpd_magnitude_work w = {0};
    float a[2] = {INFINITY, 1}, b[2] = {1, NAN};
    struct fpd_matrix_view va = {a, FPD_F32, false, 2}, vb = {b, FPD_F32, false, 1};
    double g[1];
    uint64_t ticks = 0;
    cr_assert_eq(fpd_magnitudes(&w, &va, &vb, 1, 1, 1, NULL, g, &ticks), FPD_OK);
    cr_assert(isinf(g[0]), "|Inf| |1| gave %g", g[0]);
    cr_assert_eq(fpd_magnitudes(&w, &va, &vb, 1, 1, 2, NULL, g, &ticks), FPD_OK);
    cr_assert(isnan(g[0]), "|Inf| |1| + |1| |NaN| gave %g", g[0]);
    fpd_magnitude_work_free(&w);
}
