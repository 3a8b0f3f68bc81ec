/* The improbable tier's screen a row at a time (screen.h), in each vector width's copy, against
 * its element-by-element form: the row's copies must pass exactly the elements the element's form
 * passes, or an element the threshold would flag goes unmeasured. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/dtype.h"
#include "cpu/vector_width.h"
#include "engine/screen.h"
#include "gen/rng.h"

#define ROW 300

static uint64_t state;
static double uniform01(void) { return (double)(fpd_rng_mix64(++state) >> 11) * 0x1p-53; }

/* A value of every kind a row of outputs holds: mostly finite ones across many binades, and zeros
 * of both signs, subnormals, the largest finite, Inf and NaN. */
static double some_value(enum fpd_dtype t)
{
    const struct fpd_dtype_info *info = fpd_dtype_info(t);
    double r = uniform01();
    if (r < 0.03)
        return r < 0.015 ? 0.0 : -0.0;
    if (r < 0.05)
        return ldexp(r < 0.04 ? 1 : -3, info->emin - 2); /* subnormal */
    if (r < 0.06)
        return r < 0.055 ? info->max_finite : -info->max_finite;
    if (r < 0.07)
        return r < 0.065 ? INFINITY : -INFINITY;
    if (r < 0.08)
        return NAN;
    return (uniform01() - 0.5) * ldexp(1, (int)(uniform01() * 40) - 20);
}

/* Output b from a: the same, a few ulps off, far off, or another value altogether. */
static double other_output(enum fpd_dtype t, double a)
{
    double r = uniform01();
    if (r < 0.3)
        return a;
    if (r < 0.8)
        return a * (1 + (uniform01() - 0.5) * ldexp(1, -fpd_dtype_info(t)->precision + 4));
    if (r < 0.9)
        return a * (1 + (uniform01() - 0.5) * 0x1p-4);
    return some_value(t);
}

/* g: a multiple of |a| (sums of one sign near 1, cancelling ones far above), or 0, Inf or NaN. */
static double some_magnitude(double a)
{
    double r = uniform01();
    if (r < 0.02)
        return r < 0.01 ? 0 : INFINITY;
    if (r < 0.03)
        return NAN;
    return fabs(a) * (1 + (r < 0.5 ? 0 : ldexp(uniform01(), (int)(uniform01() * 24))));
}

Test(screen, every_width_passes_what_each_element_passes)
{
    static const enum fpd_dtype types[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    static const double largests[] = {1, 3.75, 1e6};
    enum fpd_vector_width was = fpd_vector_width();
    char err[160];
    size_t passed = 0, stopped = 0;
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        enum fpd_dtype t = types[ti];
        struct fpd_dtypes dt = {t, t, t == FPD_F64 ? FPD_F64 : FPD_F32};
        for (int model = 0; model < 3; model++) {
            struct fpd_screen s;
            size_t k = model == 0 ? 16 : model == 1 ? 1000 : 70000;
            fpd_bound_model_init(&s.bm, &dt, k, model == 1, model == 2 ? 1 : 0);
            if (model == 2)
                fpd_bound_model_mean(&s.bm);
            s.lambda_u = 8.0 * s.bm.u_acc;
            s.root_third = sqrt((double)s.bm.terms / 3);
            for (int row = 0; row < 40; row++) {
                _Alignas(double) unsigned char a[ROW * 8], b[ROW * 8];
                double g[ROW];
                for (size_t j = 0; j < ROW; j++) {
                    double va = some_value(t);
                    fpd_store(t, a, j, va);
                    fpd_store(t, b, j, other_output(t, fpd_load(t, a, j)));
                    g[j] = some_magnitude(fpd_load(t, a, j));
                }
                double largest = largests[row % 3];
                bool want[ROW];
                for (size_t j = 0; j < ROW; j++) {
                    double rest;
                    want[j] = fpd_screen_element(&s, fpd_load(t, a, j), fpd_load(t, b, j), g[j], largest, &rest);
                    want[j] ? passed++ : stopped++;
                }
                for (int w = FPD_VECTOR_BASELINE; w <= (int)fpd_vector_width_of_cpu(); w++) {
                    cr_assert_eq(fpd_vector_width_limit((enum fpd_vector_width)w, err, sizeof err), 0, "%s", err);
                    for (size_t from = 0; from < ROW; from += 97) { /* pieces of odd lengths, at odd starts */
                        size_t count = ROW - from < 97 ? ROW - from : 97;
                        bool got[ROW];
                        fpd_screen_row(&s, t, a + from * fpd_dtype_info(t)->size, b + from * fpd_dtype_info(t)->size,
                                       g + from, count, largest, got);
                        for (size_t j = 0; j < count; j++)
                            cr_assert_eq(got[j], want[from + j],
                                         "%s, model %d, width %d: element %zu (%a against %a, g %a): %d, not %d",
                                         fpd_dtype_info(t)->name, model, w, from + j, fpd_load(t, a, from + j),
                                         fpd_load(t, b, from + j), g[from + j], got[j], want[from + j]);
                    }
                }
                fpd_vector_width_limit(was, err, sizeof err);
            }
        }
    }
    /* both outcomes, many times: a screen that passed everything or nothing would not be tested */
    cr_expect_gt(passed, 1000u, "%zu passed", passed);
    cr_expect_gt(stopped, 1000u, "%zu stopped", stopped);
}
