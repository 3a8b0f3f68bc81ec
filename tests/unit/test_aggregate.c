/* test_aggregate.c — the aggregate precision test (aggregate.h): its threshold holds for sums of
 * random roundings, a path a few times farther from the exact sums than the sequential order on
 * every element is `improbable` where no element alone is, and legitimate orders are not, on
 * random data or structured, where the legitimate orders' own errors set the level. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "backends/backend_pinned.h"
#include "backends/builtin.h"
#include "engine/aggregate.h"
#include "engine/check.h"
#include "gen/rng.h"
#include "gen/structured.h"
#include "helpers.h"

static void setup(void) { fpd_registry_init(); }

/* The threshold against its own premise: N elements, each the sum of T terms v_n times an
 * independent +-1 (the worst bounded rounding error, mean zero), normalized by sqrt(sum v_n^2). The
 * largest sum of squares over many draws stays below it, and its mean is N. */
Test(aggregate, the_threshold_holds_for_random_signs)
{
    enum { N = 512, T = 64, DRAWS = 400 };
    double largest = 0, mean = 0;
    uint64_t draw = 0;
    for (int d = 0; d < DRAWS; d++) {
        double sum = 0;
        for (int i = 0; i < N; i++) {
            double e = 0, energy = 0;
            for (int t = 0; t < T; t++) {
                uint64_t bits = fpd_rng_mix64(++draw * FPD_RNG_GAMMA);
                double v = 0.5 + (double)(bits >> 11) * 0x1p-53; /* a partial sum's magnitude */
                e += bits & 1 ? v : -v;
                energy += v * v;
            }
            sum += e * e / energy;
        }
        largest = fmax(largest, sum);
        mean += sum / DRAWS;
    }
    cr_expect_lt(largest, fpd_aggregate_threshold(N), "%g against %g", largest, fpd_aggregate_threshold(N));
    cr_expect(fabs(mean - N) < 0.05 * N, "mean %g against N = %d", mean, N);
    /* and the threshold is a tail bound, not a multiple: N + 2 sqrt(32 N) + 64 */
    cr_expect_float_eq(fpd_aggregate_threshold(N), N + 2 * sqrt(32.0 * N) + 64, 1e-12);
    cr_expect_float_eq(fpd_aggregate_threshold(0), 64, 1e-12);
}

static struct fpd_check_result check(const char *b0, const char *b1, const char *dtype, uint32_t mn, uint32_t k,
                                     const struct fpd_case_data *data)
{
    struct fpd_check chk = {.relation = fpd_relation_find("vendor"), .params = {.slice = {0, 1}, .threads = 2},
                            .default_threads = 1, .exact = FPD_EXACT_ALWAYS};
    char why[512];
    cr_assert_eq(fpd_backend_resolve(b0, &chk.backends[0], why, sizeof why), FPD_OK, "%s", why);
    cr_assert_eq(fpd_backend_resolve(b1, &chk.backends[1], why, sizeof why), FPD_OK, "%s", why);
    fpd_case_defaults(&chk.c);
    cr_assert_eq(fpd_dtypes_parse(dtype, &chk.c.dt, why, sizeof why), FPD_OK);
    chk.c.m = mn, chk.c.n = mn, chk.c.k = k, chk.c.data = data, chk.c.recipe.dist = FPD_DIST_UNIFORM;
    chk.c.recipe.seed = 54;
    fpd_relation_prepare_case(chk.relation, &chk.c);
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    cr_assert_eq(fpd_check_run(&ck, &chk, &res), FPD_OK);
    fpd_checker_free(&ck);
    return res;
}

/* Partial sums two and three bits short of their type (tests/plugins/lossy.c): 4 and 8 times the
 * sequential order's error on every element, under the per-element threshold on each, and over
 * the aggregate one; a sequential order's sum stays under a fifth of it. */
Test(aggregate, a_little_lost_on_every_element_is_improbable, .init = setup)
{
    load_plugin("lossy.so");
    static const struct {
        const char *backend, *dtype;
        uint32_t mn, k;
    } lossy[] = {{"narrow2", "f32", 32, 256}, {"narrow2", "f64", 64, 64}, {"narrow3", "f32", 16, 1024},
                 {"narrow3", "f64", 8, 16384}};
    for (size_t l = 0; l < sizeof lossy / sizeof lossy[0]; l++) {
        struct fpd_check_result res = check("seq", lossy[l].backend, lossy[l].dtype, lossy[l].mn, lossy[l].k, NULL);
        const char *what = lossy[l].backend;
        cr_expect_eq(res.verdict, FPD_IMPROBABLE, "%s, %s: %s", what, lossy[l].dtype, fpd_verdict_table[res.verdict].name);
        cr_expect_eq(res.probable_ratio, 0, "%s: no element alone past its threshold (%g)", what, res.probable_ratio);
        cr_expect_gt(res.exact.aggregate[1], 1, "%s, %s: %g", what, lossy[l].dtype, res.exact.aggregate[1]);
        cr_expect_lt(res.exact.aggregate[0], 0.2, "seq: %g", res.exact.aggregate[0]);
        cr_expect_eq(res.exact.aggregate_elements[1], (size_t)lossy[l].mn * lossy[l].mn);
        cr_expect_not(res.exact.beyond, "within the worst-case bound");
    }
}

/* Legitimate orders of fpdiv's own kernels, on random data at 32 x 32 and on every structured
 * family at 16 x 16, k = 1024 and 16384: no aggregate alarm. On constant and near-constant data the
 * sequential order's errors are systematic (517 ulps at 0.1 x 4096 in f32): their sum is past the
 * threshold, and the legitimate orders' level, which is theirs, keeps it from an alarm. */
Test(aggregate, legitimate_orders_raise_no_alarm, .init = setup)
{
    static const char *const pairs[][2] = {{"seq", "pairwise"}, {"seq", "blocked"}, {"pairwise", "splitk"}};
    static const char *const dtypes[] = {"f64", "f32"};
    static const uint32_t ks[] = {1024, 16384};
    size_t by_orders = 0;
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
            for (int f = -1; f < FPD_STRUCTURE_COUNT; f++) {
                struct fpd_dtypes dt;
                char why[128];
                fpd_dtypes_parse(dtypes[d], &dt, why, sizeof why);
                struct fpd_case_data data;
                uint32_t mn = f < 0 ? 32 : 16;
                if (f >= 0)
                    cr_assert_eq(fpd_structured_data((enum fpd_structure)f, &dt, mn, mn, ks[ki], 54 + ki, &data), FPD_OK);
                for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
                    struct fpd_check_result res = check(pairs[p][0], pairs[p][1], dtypes[d], mn, ks[ki], f < 0 ? NULL : &data);
                    for (int w = 0; w < 2; w++) {
                        cr_expect_leq(res.exact.aggregate[w], 1, "%s, %s, k %u, path %s: %g of the level",
                                      f < 0 ? "random" : fpd_structure_names[f], dtypes[d], ks[ki], pairs[p][w],
                                      res.exact.aggregate[w]);
                        by_orders += res.exact.aggregate_by_orders[w];
                    }
                    cr_expect_leq(res.verdict, FPD_REORDER);
                }
                if (f >= 0)
                    fpd_case_data_free(&data);
            }
    cr_expect_gt(by_orders, 0, "on some structured data the orders' level is what holds the alarm off");
}
