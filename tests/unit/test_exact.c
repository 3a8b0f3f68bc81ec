/* The superaccumulator against MPFR, bit for bit, on data chosen to break weaker methods. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "engine/exact.h"
#include "gen/rng.h"

/* The exact dot product (plus bias), by MPFR at a precision that holds it exactly, divided by d
 * and rounded once to the target format the way IEEE 754 does (subnormals included). */
static double reference_quotient(const double *a, const double *b, size_t n, double bias, unsigned long d,
                                 enum fpd_dtype t)
{
    mpfr_t sum, prod;
    mpfr_init2(sum, 4600);
    mpfr_init2(prod, 120); /* two 53-bit significands: exact */
    mpfr_set_d(sum, bias, MPFR_RNDN);
    for (size_t i = 0; i < n; i++) {
        mpfr_set_d(prod, a[i], MPFR_RNDN);
        mpfr_mul_d(prod, prod, b[i], MPFR_RNDN);
        mpfr_add(sum, sum, prod, MPFR_RNDN); /* exact at 4600 bits for the ranges used here */
    }
    const struct fpd_dtype_info *f = fpd_dtype_info(t);
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(f->emin - f->precision + 2);
    mpfr_set_emax(f->emax + 1);
    mpfr_t r;
    mpfr_init2(r, f->precision);
    int inexact = mpfr_div_ui(r, sum, d, MPFR_RNDN); /* one rounding of the exact quotient */
    inexact = mpfr_check_range(r, inexact, MPFR_RNDN);
    mpfr_subnormalize(r, inexact, MPFR_RNDN);
    double out = mpfr_get_d(r, MPFR_RNDN);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    mpfr_clears(sum, prod, r, (mpfr_ptr)0);
    return out;
}

static double reference_dot(const double *a, const double *b, size_t n, double bias, enum fpd_dtype t)
{
    return reference_quotient(a, b, n, bias, 1, t);
}

static double random_in(uint32_t seed, uint32_t i, int kind, enum fpd_dtype in)
{
    uint32_t w[4];
    fpd_rng_element(seed, i, 1, 0, (uint32_t)kind, 0, w);
    double sig = 1.0 + (double)((((uint64_t)w[0] << 32) | w[1]) >> 12) * 0x1p-52;
    double sign = (w[3] & 1) ? -1 : 1;
    const struct fpd_dtype_info *f = fpd_dtype_info(in);
    int e;
    switch (kind) {
    case 0: e = (int)(w[2] % 8) - 4; break;                                   /* ordinary */
    case 1: e = (int)(w[2] % (uint32_t)(f->emax - f->emin)) + f->emin; break; /* the whole range */
    case 2: e = f->emin - (int)(w[2] % (uint32_t)f->precision); break;        /* subnormal */
    default: e = (int)(w[2] % 40) - 20; break;                                /* wide */
    }
    return fpd_round(in, sign * ldexp(sig, e));
}

static void check_dot(size_t n, int kind, enum fpd_dtype in, enum fpd_dtype out, uint32_t seed, bool cancel)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++) {
        a[i] = random_in(seed, (uint32_t)i, kind, in);
        b[i] = random_in(seed + 1, (uint32_t)i, kind, in);
        if (cancel && i % 2 == 1) { /* the previous product, negated, plus a little: heavy cancellation */
            a[i] = -a[i - 1];
            b[i] = i % 4 == 1 ? b[i - 1] : fpd_round(in, b[i - 1] * (1 + 0x1p-6));
        }
    }
    double bias = random_in(seed + 2, 0, kind, out);
    struct fpd_superacc s = {0};
    fpd_superacc_reset(&s);
    double got = fpd_exact_dot(&s, a, b, n, true, bias, in, out);
    double want = reference_dot(a, b, n, bias, out);
    cr_assert(memcmp(&got, &want, sizeof got) == 0 || (isnan(got) && isnan(want)), "%s->%s n=%zu kind %d seed %u%s: %a, MPFR %a",
              fpd_dtype_info(in)->name, fpd_dtype_info(out)->name, n, kind, seed, cancel ? " cancelling" : "", got,
              want);
    free(a);
    free(b);
}

Test(exact, matches_mpfr_on_every_dtype_and_kind_of_data)
{
    static const enum fpd_dtype ins[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    static const enum fpd_dtype outs[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    for (size_t i = 0; i < 4; i++)
        for (size_t o = 0; o < 4; o++)
            for (int kind = 0; kind < 4; kind++)
                for (uint32_t seed = 1; seed <= 12; seed++) {
                    size_t n = 1 + (seed * 37) % 300;
                    check_dot(n, kind, ins[i], outs[o], seed * 101 + (uint32_t)kind, false);
                    check_dot(n, kind, ins[i], outs[o], seed * 103 + (uint32_t)kind, true);
                }
}

Test(exact, matches_mpfr_for_long_sums)
{
    check_dot(100000, 0, FPD_F32, FPD_F32, 7, true);
    check_dot(100000, 3, FPD_F64, FPD_F64, 8, false);
    check_dot(131072, 1, FPD_F64, FPD_F64, 9, true);
    check_dot(100000, 0, FPD_BF16, FPD_BF16, 10, false);
}

Test(exact, extreme_products)
{
    /* the largest and the smallest products a binary64 pair can make, and their cancellation */
    double a[] = {DBL_MAX, -DBL_MAX, 0x1p-1074, 0x1p-1074, 1};
    double b[] = {DBL_MAX, DBL_MAX, 0x1p-1074, 3, 0x1p-1074};
    struct fpd_superacc s = {0};
    fpd_superacc_reset(&s);
    /* DBL_MAX^2 - DBL_MAX^2 + 2^-2148 + 3*2^-1074 + 2^-1074: exactly 4 * 2^-1074 + a speck */
    double got = fpd_exact_dot(&s, a, b, 5, false, 0, FPD_F64, FPD_F64);
    cr_expect(memcmp(&got, &(double){0x1p-1072}, sizeof got) == 0, "%a", got);
    fpd_superacc_reset(&s);
    got = fpd_exact_dot(&s, a, b, 1, false, 0, FPD_F64, FPD_F64);
    cr_expect(isinf(got) && got > 0, "DBL_MAX^2 overflows: %a", got);
}

Test(exact, ieee_specials)
{
    struct fpd_superacc s = {0};
    const struct {
        double a[2], b[2], bias;
        int want; /* 0: +0, 1: -0, 2: +Inf, 3: -Inf, 4: NaN */
    } table[] = {
        {{-0.0, 0.0}, {1, -1}, -0.0, 1},         /* every term -0 */
        {{-0.0, 0.0}, {1, 1}, -0.0, 0},          /* one +0 */
        {{1, -1}, {2, 2}, -0.0, 0},              /* x - x = +0 */
        {{INFINITY, 1}, {2, 1}, 0, 2},
        {{INFINITY, 1}, {-2, 1}, 0, 3},
        {{INFINITY, 1}, {0, 1}, 0, 4},           /* Inf * 0 */
        {{INFINITY, -INFINITY}, {1, 1}, 0, 4},   /* Inf - Inf */
        {{NAN, 1}, {1, 1}, 0, 4},
        {{1, 1}, {1, 1}, -INFINITY, 3},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        fpd_superacc_reset(&s);
        double r = fpd_exact_dot(&s, table[i].a, table[i].b, 2, true, table[i].bias, FPD_F64, FPD_F32);
        int got = isnan(r) ? 4 : isinf(r) ? (r > 0 ? 2 : 3) : signbit(r) ? 1 : 0;
        cr_expect(got == table[i].want && (got > 1 || !(fabs(r) > 0)), "row %zu: %a", i, r);
    }
}

Test(exact, split_gives_the_rest)
{
    /* 1 + 2^-80: hi is 1, lo is 2^-80 */
    double a[] = {1, 0x1p-40}, b[] = {1, 0x1p-40};
    struct fpd_superacc s = {0};
    fpd_superacc_reset(&s);
    fpd_superacc_add_product(&s, a[0], b[0]);
    fpd_superacc_add_product(&s, a[1], b[1]);
    double hi, lo, rounded;
    fpd_superacc_split(&s, FPD_F64, &hi, &lo, &rounded);
    cr_expect(memcmp(&hi, &(double){1}, 8) == 0 && memcmp(&lo, &(double){0x1p-80}, 8) == 0, "%a %a", hi, lo);
    fpd_superacc_reset(&s);
    fpd_superacc_add(&s, -1);
    fpd_superacc_add(&s, 0x1p-60);
    fpd_superacc_split(&s, FPD_F64, &hi, &lo, &rounded); /* -1 + 2^-60: hi -1, lo +2^-60 */
    cr_expect(memcmp(&hi, &(double){-1}, 8) == 0 && memcmp(&lo, &(double){0x1p-60}, 8) == 0, "%a %a", hi, lo);
}

/* The dot product's split by its fast path (extract.h, and the rounding to odd of a sum of two
 * parts) and by the superaccumulator, term by term: the same hi, lo and rounding, bit for bit. */
static void check_split(const double *a, const double *b, size_t n, bool with_bias, double bias, enum fpd_dtype in,
                        enum fpd_dtype out, const char *what)
{
    static struct fpd_superacc fast, slow; /* large: not on the stack */
    double got[3], want[3];
    fpd_exact_dot_split(&fast, a, b, n, with_bias, bias, in, out, &got[0], &got[1], &got[2]);
    fpd_superacc_reset(&slow);
    if (with_bias)
        fpd_superacc_add(&slow, bias);
    for (size_t i = 0; i < n; i++)
        fpd_superacc_add_product(&slow, a[i], b[i]);
    fpd_superacc_split(&slow, out, &want[0], &want[1], &want[2]);
    double rounded = fpd_exact_dot(&fast, a, b, n, with_bias, bias, in, out);
    cr_assert(memcmp(got, want, sizeof got) == 0 && memcmp(&rounded, &want[2], sizeof rounded) == 0,
              "%s, %s->%s, n=%zu: hi %a lo %a rounded %a (alone %a); term by term %a %a %a", what,
              fpd_dtype_info(in)->name, fpd_dtype_info(out)->name, n, got[0], got[1], got[2], rounded, want[0],
              want[1], want[2]);
}

Test(exact, the_fast_path_is_the_superaccumulators)
{
    static const enum fpd_dtype types[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    static const size_t sizes[] = {1, 2, 3, 7, 8, 9, 64, 255, 2047, 2048, 2049, 5000};
    enum { MOST = 5000 };
    double *a = malloc(MOST * sizeof *a), *b = malloc(MOST * sizeof *b);
    char what[64];
    for (size_t i = 0; i < 4; i++)
        for (size_t o = 0; o < 4; o++)
            for (int kind = 0; kind < 4; kind++)
                for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
                    for (int cancel = 0; cancel < 2; cancel++) {
                        uint32_t seed = (uint32_t)(1000 * i + 100 * o + 10 * kind + z) * 2 + (uint32_t)cancel;
                        size_t n = sizes[z];
                        for (size_t p = 0; p < n; p++) {
                            a[p] = random_in(seed, (uint32_t)p, kind, types[i]);
                            b[p] = random_in(seed + 7, (uint32_t)p, kind, types[i]);
                            if (cancel && p % 2 == 1)
                                a[p] = -a[p - 1], b[p] = b[p - 1];
                        }
                        snprintf(what, sizeof what, "kind %d%s", kind, cancel ? ", cancelling" : "");
                        check_split(a, b, n, false, 0, types[i], types[o], what);
                        check_split(a, b, n, true, random_in(seed + 9, 0, kind, types[o]), types[i], types[o], what);
                    }
    /* sums at a midpoint of the output type, and a speck either side of it: a rounding to binary64
     * first would land on the midpoint and tie, where the sum itself does not */
    static const struct {
        enum fpd_dtype in, out;
        double midpoint;
    } ties[] = {
        {FPD_F64, FPD_F32, 1 + 0x1p-24}, {FPD_F64, FPD_F16, 1 + 0x1p-11}, {FPD_F32, FPD_F16, 1 + 0x1p-11},
        {FPD_F32, FPD_BF16, 1 + 0x1p-8}, {FPD_F64, FPD_F16, 65520},        {FPD_F32, FPD_F16, 65520},
        {FPD_F64, FPD_F32, 1 + 3 * 0x1p-24},
    };
    for (size_t t = 0; t < sizeof ties / sizeof ties[0]; t++)
        for (int side = -1; side <= 1; side++) {
            double ta[3] = {ties[t].midpoint, 0x1p-30, side * 0x1p-30}, tb[3] = {1, 0x1p-30, 0x1p-30};
            snprintf(what, sizeof what, "a midpoint %+d speck", side);
            check_split(ta, tb, side ? 2 : 1, false, 0, ties[t].in, ties[t].out, what);
            check_split(ta, tb, 1, true, side * 0x1p-60, ties[t].in, ties[t].out, what);
            check_split(ta, tb, 3, false, 0, ties[t].in, ties[t].out, what);
        }
    free(a);
    free(b);
}

/* A mean's reference: the exact sum divided by the count, rounded once, against MPFR's. */
static void check_quotient(size_t n, unsigned long d, int kind, enum fpd_dtype in, enum fpd_dtype out, uint32_t seed)
{
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    for (size_t i = 0; i < n; i++)
        a[i] = random_in(seed, (uint32_t)i, kind, in), b[i] = 1;
    struct fpd_superacc s = {0};
    fpd_superacc_reset(&s);
    double hi, lo, got;
    fpd_exact_dot_quotient(&s, a, b, n, (double)d, in, out, &hi, &lo, &got);
    double want = reference_quotient(a, b, n, 0, d, out);
    cr_assert(memcmp(&got, &want, sizeof got) == 0 || (isnan(got) && isnan(want)), "%s->%s n=%zu / %lu kind %d seed %u: %a, MPFR %a",
              fpd_dtype_info(in)->name, fpd_dtype_info(out)->name, n, d, kind, seed, got, want);
    /* hi + lo: the quotient to binary64's rounding */
    double q = reference_quotient(a, b, n, 0, d, FPD_F64);
    cr_assert(fabs(hi - q) <= 0x1p-52 * fabs(q) + 0x1p-1074 || (!isfinite(q) && !isfinite(hi)), "hi %a, quotient %a",
              hi, q);
    free(a);
    free(b);
}

Test(exact, quotient_matches_mpfr_on_every_dtype)
{
    static const enum fpd_dtype types[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    for (size_t i = 0; i < 4; i++)
        for (size_t o = 0; o < 4; o++)
            for (int kind = 0; kind < 4; kind++)
                for (uint32_t seed = 1; seed <= 10; seed++) {
                    size_t n = 1 + (seed * 37) % 300;
                    check_quotient(n, n, kind, types[i], types[o], seed * 107 + (uint32_t)kind);
                    check_quotient(n, 3 + seed * 2, kind, types[i], types[o], seed * 109 + (uint32_t)kind);
                }
}

Test(exact, quotient_ties_and_extremes)
{
    struct fpd_superacc s = {0};
    fpd_superacc_reset(&s);
    double hi, lo, got, ones[3] = {1, 1, 1};
    /* (1 + 2^-23) + (1 + 2^-23) + (1 - 2^-24) = 3 (1 + 2^-24): a third is the midpoint of 1 and
     * 1 + 2^-23 in binary32, which ties to 1, the even one */
    double tie[3] = {1 + 0x1p-23, 1 + 0x1p-23, 1 - 0x1p-24};
    fpd_exact_dot_quotient(&s, tie, ones, 3, 3, FPD_F32, FPD_F32, &hi, &lo, &got);
    cr_expect(memcmp(&got, &(double){1}, sizeof got) == 0, "%a", got);
    /* a hair above the midpoint: up */
    double above[3] = {1 + 0x1p-23, 1 + 0x1p-23, 1 - 0x1p-24 + 0x1p-52};
    fpd_exact_dot_quotient(&s, above, ones, 3, 3, FPD_F64, FPD_F32, &hi, &lo, &got);
    cr_expect(memcmp(&got, &(double){1 + 0x1p-23}, sizeof got) == 0, "%a", got);
    /* 2^-72 / 3 above the midpoint: too close for the binary64 estimate to say, so the exact sum does
     * (binary64 inputs: the fourth term below the others' last bits) */
    double near[4] = {1 + 0x1p-23, 1 + 0x1p-23, 1 - 0x1p-24, 0x1p-72}, ones4[4] = {1, 1, 1, 1};
    fpd_exact_dot_quotient(&s, near, ones4, 4, 3, FPD_F64, FPD_F32, &hi, &lo, &got);
    cr_expect(memcmp(&got, &(double){1 + 0x1p-23}, sizeof got) == 0, "%a", got);
    near[3] = -0x1p-72; /* as far below: down, to 1 */
    fpd_exact_dot_quotient(&s, near, ones4, 4, 3, FPD_F64, FPD_F32, &hi, &lo, &got);
    cr_expect(memcmp(&got, &(double){1}, sizeof got) == 0, "%a", got);
    /* a sum beyond binary64 whose mean is not */
    double big[2] = {DBL_MAX, DBL_MAX};
    fpd_exact_dot_quotient(&s, big, ones, 2, 2, FPD_F64, FPD_F64, &hi, &lo, &got);
    cr_expect(memcmp(&got, &(double){DBL_MAX}, sizeof got) == 0, "%a", got);
    /* a mean at binary16's overflow threshold (65504 + 16): a tie, to Inf; a hair below: 65504 */
    double edge[2] = {65520, 65520}, below[2] = {65520, 65520 - 0x1p-30};
    fpd_exact_dot_quotient(&s, edge, ones, 2, 2, FPD_F32, FPD_F16, &hi, &lo, &got);
    cr_expect(isinf(got) && got > 0, "%a", got);
    fpd_exact_dot_quotient(&s, below, ones, 2, 2, FPD_F64, FPD_F16, &hi, &lo, &got);
    cr_expect(memcmp(&got, &(double){65504}, sizeof got) == 0, "%a", got);
    /* signed zeros and specials keep their class */
    double zeros[2] = {-0.0, -0.0}, nan_in[2] = {1, NAN};
    fpd_exact_dot_quotient(&s, zeros, ones, 2, 2, FPD_F32, FPD_F32, &hi, &lo, &got);
    cr_expect(!(fabs(got) > 0) && signbit(got), "%a", got);
    fpd_exact_dot_quotient(&s, nan_in, ones, 2, 2, FPD_F32, FPD_F32, &hi, &lo, &got);
    cr_expect(isnan(got), "%a", got);
}
