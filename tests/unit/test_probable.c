/* The probabilistic threshold of one element (probable.h) against real summation orders, whose
 * errors MPFR measures: it must hold every order's error on data the model describes, say so where
 * data break the model, and allow in full for terms a stagnating sum loses. */
#include <criterion/criterion.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/probable.h"
#include "gen/rng.h"

#define LAMBDA 8.0
#define U_F32 0x1p-24

enum data { NORMAL, UNIFORM, WIDE, SORTED, ALTERNATING, HALVES };
static const char *const data_names[] = {"normal", "uniform", "wide", "sorted", "alternating", "halves"};

static uint64_t state;
static double uniform01(void) { return (double)(fpd_rng_mix64(++state) >> 11) * 0x1p-53; }
static double normal01(void)
{
    double a = uniform01(), b = uniform01();
    return sqrt(-2 * log(a > 0 ? a : 0x1p-53)) * cos(2 * M_PI * b);
}
static int ascending(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* T products of two f32 values drawn as `d` says; each product exact in a double. */
static void draw(enum data d, double *x, size_t T)
{
    for (size_t p = 0; p < T; p++) {
        float a, b;
        switch (d) {
        case UNIFORM: a = (float)uniform01(), b = (float)uniform01(); break;
        case WIDE: a = (float)ldexp(normal01(), (int)(uniform01() * 40) - 20), b = (float)normal01(); break;
        case ALTERNATING: a = (float)(p % 2 ? -1 - uniform01() : 1 + uniform01()), b = 1; break;
        case HALVES: a = (float)(p < T / 2 ? 1 + uniform01() : -1 - uniform01()), b = 1; break;
        default: a = (float)normal01(), b = (float)normal01(); break;
        }
        x[p] = (double)a * (double)b;
    }
    if (d == SORTED)
        qsort(x, T, sizeof *x, ascending);
}

/* Orders a BLAS may use, in f32, each product rounded to f32 before it is added (no FMA). */
static float add_seq(const double *x, size_t T, bool reversed)
{
    float s = 0;
    for (size_t p = 0; p < T; p++)
        s += (float)x[reversed ? T - 1 - p : p];
    return s;
}
static float add_pairwise(const double *x, size_t T)
{
    return T == 1 ? (float)x[0] : add_pairwise(x, T / 2) + add_pairwise(x + T / 2, T - T / 2);
}
static float add_lanes(const double *x, size_t T, size_t L)
{
    float lane[32] = {0}, s = 0;
    for (size_t p = 0; p < T; p++)
        lane[p % L] += (float)x[p];
    for (size_t j = 0; j < L; j++)
        s += lane[j];
    return s;
}
static float add_tiles(const double *x, size_t T, size_t tile)
{
    float s = 0;
    for (size_t start = 0; start < T; start += tile)
        s += add_seq(x + start, T - start < tile ? T - start : tile, false);
    return s;
}

/* The exact sum minus v, rounded to a double (MPFR holds every sum here exactly). */
static double error_of(const double *x, size_t T, double v)
{
    mpfr_t s;
    mpfr_init2(s, 2200);
    mpfr_set_d(s, -v, MPFR_RNDN);
    for (size_t p = 0; p < T; p++)
        mpfr_add_d(s, s, x[p], MPFR_RNDN);
    double e = mpfr_get_d(s, MPFR_RNDN);
    mpfr_clear(s);
    return e;
}

static double magnitude(const double *x, size_t T)
{
    double g = 0;
    for (size_t p = 0; p < T; p++)
        g += fabs(x[p]);
    return g;
}

/* The largest |error| / tau over six orders and `elements` draws of T terms. */
static double worst_ratio(enum data d, size_t T, int elements, size_t *structured)
{
    double *x = malloc(T * sizeof *x), worst = 0;
    cr_assert_not_null(x);
    for (int e = 0; e < elements; e++) {
        draw(d, x, T);
        struct fpd_probable_element pe;
        fpd_probable_element(x, T, magnitude(x, T), U_F32, LAMBDA, &pe);
        *structured += pe.structured;
        float sums[] = {add_seq(x, T, false), add_seq(x, T, true), add_pairwise(x, T),
                        add_lanes(x, T, 8),    add_lanes(x, T, 32), add_tiles(x, T, 256)};
        for (size_t o = 0; o < sizeof sums / sizeof sums[0]; o++)
            worst = fmax(worst, fabs(error_of(x, T, sums[o])) / pe.tau);
    }
    free(x);
    return worst;
}

static const size_t lengths[] = {2, 3, 16, 64, 257, 1024, 4096};

/* Data the model describes (independent terms, any mean): every order within tau, the model's
 * own threshold taken (not the order-free fallback). */
Test(probable, real_orders_stay_within_the_threshold)
{
    state = 1;
    const enum data model[] = {NORMAL, UNIFORM, WIDE};
    for (size_t d = 0; d < sizeof model / sizeof model[0]; d++)
        for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
            size_t structured = 0;
            int elements = lengths[i] > 1024 ? 12 : 60;
            double worst = worst_ratio(model[d], lengths[i], elements, &structured);
            cr_expect_leq(worst, 1, "%s, T = %zu: an order's error is %g of tau", data_names[model[d]], lengths[i],
                          worst);
            if (model[d] != WIDE) /* magnitudes spread over 2^40 may well look structured */
                cr_expect_eq(structured, 0, "%s, T = %zu: %zu of %d elements on the order-free threshold",
                             data_names[model[d]], lengths[i], structured, elements);
        }
}

/* Sorted terms, alternating signs and two halves of opposite sign have partial sums far from what
 * exchangeable terms give: each falls back to the order-free lambda sqrt(T) u g, and every order
 * stays within it. Sorted products of normal values are heavy-tailed enough that at small T their
 * energy can stay under the cut-off (it is then in tau itself): there only the errors are held. */
Test(probable, structured_data_fall_back_to_the_order_free_threshold)
{
    state = 2;
    const enum data broken[] = {SORTED, ALTERNATING, HALVES};
    for (size_t d = 0; d < sizeof broken / sizeof broken[0]; d++)
        for (size_t T = 64; T <= 4096; T *= 4) { /* 64, 256, 1024, 4096 */
            double *x = malloc(T * sizeof *x);
            cr_assert_not_null(x);
            draw(broken[d], x, T);
            struct fpd_probable_element pe;
            double g = magnitude(x, T);
            fpd_probable_element(x, T, g, U_F32, LAMBDA, &pe);
            if (broken[d] != SORTED || T >= 1024) {
                cr_expect(pe.structured, "%s, T = %zu: structure %g, not over the cut-off %g", data_names[broken[d]],
                          T, pe.structure, FPD_PROBABLE_STRUCTURE_MAX);
                cr_expect_geq(pe.tau, LAMBDA * U_F32 * sqrt((double)T) * g, "%s, T = %zu", data_names[broken[d]], T);
            }
            free(x);
            size_t ignored = 0;
            double worst = worst_ratio(broken[d], T, 4, &ignored);
            cr_expect_leq(worst, 1, "%s, T = %zu: an order's error is %g of tau", data_names[broken[d]], T, worst);
        }
}

/* Ones added in an f16 accumulator stop growing at 2048 (2048 + 1 rounds back to it): no random
 * rounding explains losing half the sum, so the terms below the partial sums' half ulp are allowed
 * for in full, and tau holds the loss. */
Test(probable, a_stagnating_sum_is_allowed_for)
{
    const size_t T = 4096;
    double *x = malloc(T * sizeof *x);
    cr_assert_not_null(x);
    _Float16 s = 0;
    for (size_t p = 0; p < T; p++) {
        x[p] = 1;
        s += (_Float16)1;
    }
    cr_assert_eq((double)s, 2048.0, "the f16 sum went to %g", (double)s);
    struct fpd_probable_element pe;
    fpd_probable_element(x, T, (double)T, 0x1p-11, LAMBDA, &pe);
    cr_expect(!pe.structured, "equal terms are exchangeable: structure %g", pe.structure);
    cr_expect_eq(pe.stagnation, (double)T, "allowance %g", pe.stagnation);
    cr_expect_geq(pe.tau, (double)T - 2048, "tau %g below the loss", pe.tau);
    free(x);
}

/* The threshold sees what the worst-case bound cannot at large T: rounding a normal sum of 16384
 * products to bf16 moves it by far more than twice tau (cast-out's difference), while the bound
 * gamma_T g is larger than that rounding. */
Test(probable, an_output_rounding_exceeds_it_where_the_bound_does_not)
{
    state = 3;
    const size_t T = 16384;
    double *x = malloc(T * sizeof *x), largest = 0, bound_ratio = 0;
    cr_assert_not_null(x);
    for (int e = 0; e < 16; e++) {
        draw(NORMAL, x, T);
        double g = magnitude(x, T), exact = -error_of(x, T, 0);
        struct fpd_probable_element pe;
        fpd_probable_element(x, T, g, U_F32, LAMBDA, &pe);
        float f = (float)exact; /* bf16: f32's top 16 bits, rounded to nearest even */
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        bits = (bits + 0x7fffu + ((bits >> 16) & 1)) & 0xffff0000u;
        memcpy(&f, &bits, sizeof f);
        double moved = fabs((double)f - exact), gamma = T * U_F32 / (1 - T * U_F32);
        largest = fmax(largest, moved / (2 * pe.tau));
        bound_ratio = fmax(bound_ratio, moved / (2 * gamma * g));
    }
    cr_expect_gt(largest, 4, "the bf16 rounding is at most %g of 2 tau", largest);
    cr_expect_lt(bound_ratio, 1, "the worst-case bound misses it too: %g", bound_ratio);
    free(x);
}

/* The sums of an element's terms taken from its factors (fpd_probable_product_sums, which the
 * aggregate test's first pass uses) are the same bits as of the terms written out
 * (fpd_probable_sums, which its later passes use), for every k to 70, with and without a bias. */
Test(probable, sums_of_products_are_the_sums_of_the_terms)
{
    double a[70], b[70], terms[71];
    for (size_t k = 0; k <= 70; k++)
        for (int with_bias = 0; with_bias < 2; with_bias++)
            for (int round = 0; round < 4; round++) {
                for (size_t p = 0; p < k; p++) {
                    a[p] = ldexp(normal01(), (int)(uniform01() * 40) - 20);
                    b[p] = normal01();
                    terms[p] = a[p] * b[p];
                }
                double bias = ldexp(normal01(), round * 8);
                terms[k] = bias;
                size_t T = k + (size_t)with_bias;
                double want_sum, want_squares, sum, squares;
                fpd_probable_sums(terms, T, &want_sum, &want_squares);
                fpd_probable_product_sums(a, b, k, with_bias ? &bias : NULL, &sum, &squares);
                cr_assert(memcmp(&sum, &want_sum, sizeof sum) == 0 && memcmp(&squares, &want_squares, sizeof sum) == 0,
                          "k %zu, bias %d: %a %a against %a %a", k, with_bias, sum, squares, want_sum, want_squares);
            }
}
