/* test_structured.c — the probabilistic tier on structured data (issue 51): legitimate orders of
 * fpdiv's own kernels (the same bits on every CPU) are never `improbable` on any family of
 * gen/structured.h, and what loses precision still is: the fast part of
 * scripts/bench/bench_structured.c, which runs every library, kernel set and framework. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backends/backend_pinned.h"
#include "backends/builtin.h"
#include "engine/check.h"
#include "engine/probable.h"
#include "gen/structured.h"
#include "helpers.h"

static void setup(void) { fpd_registry_init(); }

static struct fpd_check_result check(const char *relation, const char *b0, const char *b1, const char *dtype, uint32_t k,
                                     const struct fpd_case_data *data, enum fpd_dist dist)
{
    struct fpd_check chk = {.relation = fpd_relation_find(relation), .params = {.slice = {0, 1}, .threads = 2, .algo = 1},
                            .default_threads = 1, .exact = FPD_EXACT_DIVERGING};
    char why[512];
    cr_assert_eq(fpd_backend_resolve(b0, &chk.backends[0], why, sizeof why), FPD_OK, "%s", why);
    if (b1)
        cr_assert_eq(fpd_backend_resolve(b1, &chk.backends[1], why, sizeof why), FPD_OK, "%s", why);
    fpd_case_defaults(&chk.c);
    cr_assert_eq(fpd_dtypes_parse(dtype, &chk.c.dt, why, sizeof why), FPD_OK);
    chk.c.m = 4, chk.c.n = 4, chk.c.k = k, chk.c.data = data, chk.c.recipe.dist = dist, chk.c.recipe.seed = 51;
    fpd_relation_prepare_case(chk.relation, &chk.c);
    struct fpd_checker ck = {0};
    struct fpd_check_result res;
    cr_assert_eq(fpd_check_run(&ck, &chk, &res), FPD_OK);
    fpd_checker_free(&ck);
    return res;
}

/* Legitimate orders on every family, in every input type, at k = 1024 and 16384: reorder at most.
 * Before the tier checked itself against real orders, constant, near-constant and absorption data
 * were improbable here (seq against pairwise, f32, k = 16384: 2.5, 2.2 and 3.5 times the
 * threshold). */
Test(structured, legitimate_orders_are_never_improbable, .init = setup)
{
    static const char *const pairs[][2] = {{"seq", "pairwise"}, {"seq", "blocked"}, {"seq", "splitk"},
                                           {"pairwise", "blocked"}};
    static const char *const dtypes[] = {"f64", "f32", "bf16", "f16"};
    static const uint32_t ks[] = {1024, 16384};
    size_t differing = 0;
    for (int f = 0; f < FPD_STRUCTURE_COUNT; f++)
        for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
            for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
                struct fpd_dtypes dt;
                char why[128];
                fpd_dtypes_parse(dtypes[d], &dt, why, sizeof why);
                struct fpd_case_data data;
                cr_assert_eq(fpd_structured_data((enum fpd_structure)f, &dt, 4, 4, ks[ki], 51 + ki, &data), FPD_OK);
                for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
                    struct fpd_check_result res = check("vendor", pairs[p][0], pairs[p][1], dtypes[d], ks[ki], &data,
                                                        FPD_DIST_NORMAL);
                    cr_expect_leq(res.verdict, FPD_REORDER, "%s, %s, k %u, %s,%s: %s, %.3g of the threshold",
                                  fpd_structure_names[f], dtypes[d], ks[ki], pairs[p][0], pairs[p][1],
                                  fpd_verdict_table[res.verdict].name, res.probable_ratio);
                    differing += res.verdict == FPD_REORDER;
                }
                fpd_case_data_free(&data);
            }
    cr_expect_geq(differing, 100, "the orders differ on many of these data (%zu checks)", differing);
}

/* What loses precision still does, on random data at k = 1024 to 65536: an order that truncates
 * while it declares round-to-nearest, and every element off by a part in 1024
 * (tests/plugins/lossy.c), against seq's round-to-nearest. (cast-out: test_relations.c.) */
Test(structured, losses_are_still_improbable, .init = setup)
{
    load_plugin("lossy.so");
    static const char *const lossy[] = {"truncating", "lossy"};
    static const uint32_t ks[] = {1024, 4096, 16384, 65536};
    for (size_t l = 0; l < sizeof lossy / sizeof lossy[0]; l++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
            struct fpd_check_result res = check("vendor", "seq", lossy[l], "f32", ks[ki], NULL, FPD_DIST_UNIFORM);
            cr_expect_geq(res.verdict, FPD_IMPROBABLE, "%s, k %u: %s, %.3g of the bound", lossy[l], ks[ki],
                          fpd_verdict_table[res.verdict].name, res.metrics.ratio);
        }
}

/* The orders' error is what the sequential sum's is, where that is the worst: T copies of 0.1 in
 * binary32, summed in order, against the exact sum. */
Test(structured, the_orders_error_is_the_worst_of_them)
{
    enum { T = 4096 };
    double *x = malloc(T * sizeof *x);
    float s = 0;
    for (size_t p = 0; p < T; p++) {
        x[p] = (double)0.1f;
        s = s + 0.1f; /* -ffp-contract=off: each addition rounded to binary32 */
    }
    double exact = (double)0.1f * T, seq_error = fabs((double)s - exact);
    double worst = fpd_probable_orders(x, T, FPD_F32);
    cr_expect_geq(worst, seq_error, "%g against the sequential sum's %g", worst, seq_error);
    cr_expect_leq(worst, seq_error, "the sequential sum is the worst of these orders on constant data");
    cr_expect_gt(seq_error, 1000 * 0x1p-24 * exact / sqrt(T), "systematic: far past the random walk's sqrt(T) u");
    free(x);
}
