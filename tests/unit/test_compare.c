/* Metrics and verdict classification on hand-built outputs. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "compare.h"
#include "dtype.h"

static struct fpd_bound_model f32_model(size_t k)
{
    struct fpd_bound_model bm;
    struct fpd_dtypes dt = {FPD_F32, FPD_F32, FPD_F32};
    fpd_bound_model_init(&bm, &dt, k, false, 0);
    return bm;
}

static enum fpd_verdict judge(const float *a, const float *b, const double *g, size_t n, struct fpd_metrics *m)
{
    struct fpd_bound_model bm = f32_model(100);
    fpd_compare_bits(FPD_F32, a, b, n, m);
    if (m->diff)
        fpd_compare_bound(FPD_F32, a, b, g, n, &bm, m);
    return fpd_classify(m);
}

Test(compare, identical_is_same)
{
    float a[] = {1, -2, 0, 3.5f}, b[] = {1, -2, 0, 3.5f};
    double g[] = {10, 10, 10, 10};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 4, &m), FPD_SAME);
    cr_expect_eq(m.diff, 0);
    cr_expect_eq(m.hash_a, m.hash_b);
}

Test(compare, one_ulp_is_reorder)
{
    float a[] = {1, 2, 3}, b[] = {1, nextafterf(2, 3), 3};
    double g[] = {1, 2, 3};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 3, &m), FPD_REORDER);
    cr_expect_eq(m.diff, 1);
    cr_expect_eq(m.max_ulp, 1);
    cr_expect_eq(m.worst, 1);
    cr_expect(m.ratio > 0 && m.ratio <= 1, "ratio %g", m.ratio);
    cr_expect_neq(m.hash_a, m.hash_b);
}

Test(compare, beyond_the_bound)
{
    /* |a - b| = 0.01 with g = 1 and k = 100: gamma ~ 6e-6, far below */
    float a[] = {1.0f, 5.0f}, b[] = {1.01f, 5.0f};
    double g[] = {1, 5};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 2, &m), FPD_BOUND);
    cr_expect(m.ratio > 100, "ratio %g", m.ratio);
    cr_expect(fabs(m.max_abs - (1.01f - 1.0f)) <= 0);
}

Test(compare, difference_where_every_product_is_zero_is_beyond_any_bound)
{
    float a[] = {0x1p-100f}, b[] = {0};
    double g[] = {0};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 1, &m), FPD_BOUND);
    cr_expect(m.ratio > 1e6, "only u_out |c| and the underflow allowance remain: ratio %g", m.ratio);
}

Test(compare, nan_and_inf_patterns)
{
    float a[] = {NAN, 1, INFINITY}, b[] = {1, 1, INFINITY};
    double g[] = {1, 1, 1};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 3, &m), FPD_NONFINITE);
    cr_expect_eq(m.nonfinite_mismatch, 1);
    cr_expect_eq(m.worst, 0);
    float c[] = {INFINITY}, d[] = {-INFINITY};
    cr_expect_eq(judge(c, d, g, 1, &m), FPD_NONFINITE);
}

Test(compare, nan_payloads_do_not_count)
{
    uint32_t bits_a = 0x7fc00000, bits_b = 0x7fc00001;
    float a[1], b[1];
    memcpy(a, &bits_a, 4);
    memcpy(b, &bits_b, 4);
    double g[] = {1};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 1, &m), FPD_SAME);
    cr_expect_neq(m.hash_a, m.hash_b, "hashes are of the bits, so they differ");
}

Test(compare, signed_zero_is_a_difference_of_zero_size)
{
    float a[] = {0.0f}, b[] = {-0.0f};
    double g[] = {1};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 1, &m), FPD_REORDER);
    cr_expect_eq(m.max_ulp, 0);
}

Test(compare, bound_formula)
{
    cr_expect(fabs(fpd_gamma(10, 0x1p-24) - 10 * 0x1p-24 / (1 - 10 * 0x1p-24)) <= 0);
    /* past Tu = 1/2 the bound is (1 + u)^T - 1: finite, about e^2 - 1 for 4096 f16 roundings */
    double g = fpd_gamma(4096, 0x1p-11);
    cr_expect(isfinite(g) && g > 6.3 && g < 6.4, "%g", g);
    cr_expect(fpd_gamma(1025, 0x1p-11) <= fpd_gamma(1024, 0x1p-11) * 1.01, "no jump at the switch");
    struct fpd_bound_model bm = f32_model(1000);
    double b = fpd_bound_element(&bm, 10, 3);
    double textbook = fpd_gamma(1000, 0x1p-24) * 10 + 0x1p-24 * 3;
    cr_expect(b >= textbook && b < textbook * (1 + 1e-9), "bound %a vs %a", b, textbook);
    struct fpd_dtypes dt = {FPD_F16, FPD_F16, FPD_F32};
    fpd_bound_model_init(&bm, &dt, 8, true, 1);
    cr_expect_eq(bm.terms, 9);
    cr_expect(fpd_bound_element(&bm, 1, 1) > 0x1p-11 * 2, "an intermediate f16 rounding must widen the bound");
}

Test(compare, verdict_names)
{
    enum fpd_verdict v;
    cr_expect_eq(fpd_verdict_parse("bound", &v), FPD_OK);
    cr_expect_eq(v, FPD_BOUND);
    cr_expect_eq(fpd_verdict_parse("bogus", &v), FPD_ERR_INPUT);
    cr_expect_lt(FPD_SAME, FPD_REORDER);
    cr_expect_lt(FPD_BOUND, FPD_NONFINITE);
    cr_expect_lt(FPD_NONFINITE, FPD_ERROR);
}
