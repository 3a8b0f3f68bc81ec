/* The scale relation's choices: the exponent's sign from the data, and what underflow may change. */
#include <criterion/criterion.h>
#include <math.h>

#include "common/dtype.h"
#include "engine/scale.h"

/* A 2x3 (m x k) A and a 3x2 B in f32, every element `a` or `b`. */
static int choose(float a, float b, float bias, enum fpd_dtype out)
{
    struct fpd_case c;
    fpd_case_defaults(&c);
    c.batch = 1, c.m = 2, c.n = 2, c.k = 3, c.has_bias = true;
    c.dt = (struct fpd_dtypes){FPD_F32, out, out == FPD_F64 ? FPD_F64 : FPD_F32};
    float as[6] = {a, a, a, a, a, a}, bs[6] = {b, b, b, b, b, b};
    double bias_wide[2] = {bias, bias};
    float bias_narrow[2] = {bias, bias};
    struct fpd_tensors t = {.a = as, .b = bs, .bias = out == FPD_F64 ? (void *)bias_wide : (void *)bias_narrow};
    return fpd_scale_choose(&c, &t, 3);
}

Test(scale, up_unless_something_would_overflow)
{
    cr_expect_eq(choose(1.5f, -2.0f, 0.5f, FPD_F32), 3);
    cr_expect_eq(choose(0x1p120f, 1.0f, 0.5f, FPD_F32), 3, "A times 8 fits f32, and so do 3 products of it");
    cr_expect_eq(choose(0x1p124f, 1.0f, 0.5f, FPD_F32), -3, "A near the top of f32: down");
    cr_expect_eq(choose(0x1p60f, 0x1p62f, 0.5f, FPD_F32), -3, "a product near the top: down");
    cr_expect_eq(choose(0x1p60f, 0x1p62f, 0.5f, FPD_F64), 3, "a product an f64 output holds: up");
    cr_expect_eq(choose(1.0f, 1.0f, 0x1p126f, FPD_F32), -3, "a bias near the top: down");
}

Test(scale, never_where_neither_way_is_exact)
{
    /* the plain product itself near f32's top: scaled down, path B would not overflow where path A may */
    cr_expect_eq(choose(0x1p126f, 1.0f, 0.5f, FPD_F32), 0, "3 products of 2^126: near overflow already");
    cr_expect_eq(choose(0x1p62f, 0x1p62f, 0.5f, FPD_F64), 3, "in an f64 output, far from it");
    /* a bias near the top forbids up; an A near the bottom forbids down */
    cr_expect_eq(choose(0x1p-125f, 1.0f, 0x1p126f, FPD_F32), 0, "down would leave the normal numbers");
    cr_expect_eq(choose(0x1p-123f, 1.0f, 0x1p126f, FPD_F32), -3, "2^-126 is still normal");
}

Test(scale, the_block_and_nothing_else)
{
    float x[2 * 3] = {1, 2, 3, 4, 5, 6};
    fpd_scale_block(FPD_F32, x, 1, 6, 2, 2, 3, -2, false); /* 2 rows of 2 in rows of 3 */
    float want[6] = {0.25f, 0.5f, 3, 1, 1.25f, 6};
    for (int i = 0; i < 6; i++)
        cr_expect_eq(x[i], want[i], "[%d]: %g", i, x[i]);
    fpd_scale_block(FPD_F32, x, 1, 6, 2, 2, 3, 1, true); /* times -2: a negative alpha's way back */
    float negated[6] = {-0.5f, -1, 3, -2, -2.5f, 6};
    for (int i = 0; i < 6; i++)
        cr_expect_eq(x[i], negated[i], "[%d]: %g", i, x[i]);
}

Test(scale, tolerance_is_underflow_alone)
{
    struct fpd_dtypes f32 = {FPD_F32, FPD_F32, FPD_F32};
    double eta = fpd_dtype_info(FPD_F32)->underflow;
    cr_expect_eq(fpd_scale_tolerance(&f32, 10, 2), 2 * (12 * eta + eta));
    cr_expect_eq(fpd_scale_tolerance(&f32, 10, -2), 5 * (12 * eta + eta), "path B's underflow counts 2^2 times");
    cr_expect_lt(fpd_scale_tolerance(&f32, 1 << 20, 3), 0x1p-120, "far below any normal difference");
}

/* alpha-beta's scalars from a 2x3 A of 1.5, a 3x2 B of -2 and a bias of `bias` and `other` (f32
 * throughout). */
static void scalars2(float bias, float other, int alpha, int beta, int want_alpha, int want_beta, const char *why)
{
    struct fpd_case c;
    fpd_case_defaults(&c);
    c.batch = 1, c.m = 2, c.n = 2, c.k = 3, c.has_bias = true;
    c.dt = (struct fpd_dtypes){FPD_F32, FPD_F32, FPD_F32};
    float as[6] = {1.5f, 1.5f, 1.5f, 1.5f, 1.5f, 1.5f}, bs[6] = {-2, -2, -2, -2, -2, -2}, biases[2] = {bias, other};
    struct fpd_tensors t = {.a = as, .b = bs, .bias = biases};
    fpd_scalars_choose(&c, &t, &alpha, &beta);
    cr_expect(alpha == want_alpha && beta == want_beta, "%s: alpha 2^%d, beta 2^%d; wanted 2^%d, 2^%d", why, alpha, beta,
              want_alpha, want_beta);
}

static void scalars(float bias, int alpha, int beta, int want_alpha, int want_beta, const char *why)
{
    scalars2(bias, -bias, alpha, beta, want_alpha, want_beta, why);
}

Test(scale, scalars_keep_the_bias_exact)
{
    scalars(0.5f, 3, -2, 3, -2, "an ordinary bias, handed over times 2^5");
    scalars(0x1p126f, 3, 2, -3, 2, "a bias near the top: alpha down, the bias handed over times 2^-5");
    scalars(0x1p-125f, 3, 8, 3, -2, "2^-130 would be subnormal: beta 2^(2 alpha - beta), the bias times 2^5");
    scalars(0x1p-125f, 1, 8, 1, -6, "likewise with alpha 2: the bias times 2^7, not 2^-7");
    scalars(0x1p125f, 3, -8, -3, 2, "2^130 would overflow: alpha down, beta 2^2, the bias times 2^-5");
    scalars2(0x1p125f, 0x1p-125f, 3, 4, 0, 0, "a bias of 2^125 and 2^-125: alpha neither way, the bias times neither 2^4 nor 2^-4");
    scalars(0.5f, 0, 4, 0, 4, "alpha 1, beta 2^4: the bias handed over times 2^-4");
}
