/* Conversions against known bit patterns and MPFR, ulp distance, dtype specs. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <string.h>

#include "common/dtype.h"
#include "cpu/vector_width.h"
#include "gen/rng.h"

static uint32_t f32_bits(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static double from_bits64(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

Test(dtype, f16_known_patterns)
{
    static const struct {
        double x;
        uint16_t bits;
    } table[] = {
        {1.0, 0x3c00},
        {-2.0, 0xc000},
        {65504.0, 0x7bff},                /* largest finite */
        {65519.99, 0x7bff},               /* just below the overflow threshold */
        {65520.0, 0x7c00},                /* the tie at the threshold overflows */
        {0x1p-14, 0x0400},                /* smallest normal */
        {0x1p-24, 0x0001},                /* smallest subnormal */
        {0x1p-25, 0x0000},                /* half of it: tie to even, zero */
        {0x1.8p-25, 0x0001},              /* above half */
        {0x1.8p-24, 0x0002},              /* 1.5 subnormal ulps: tie to even, up */
        {1.0 + 0x1p-11, 0x3c00},          /* tie: to even */
        {1.0 + 0x1.8p-10, 0x3c02},        /* tie: to even, up */
        {1.0 + 0x1p-11 + 0x1p-40, 0x3c01}, /* just above the tie: a second rounding would lose this */
        {-0.0, 0x8000},
        {INFINITY, 0x7c00},
        {-INFINITY, 0xfc00},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        cr_expect_eq(fpd_f16_from_double(table[i].x), table[i].bits, "f16(%a) = %04x, want %04x", table[i].x,
                     fpd_f16_from_double(table[i].x), table[i].bits);
}

Test(dtype, bf16_known_patterns)
{
    static const struct {
        double x;
        uint16_t bits;
    } table[] = {
        {1.0, 0x3f80},
        {-1.0, 0xbf80},
        {1.0 + 0x1p-8, 0x3f80},           /* tie: to even */
        {1.0 + 0x1.8p-7, 0x3f82},         /* tie: to even, up */
        {1.0 + 0x1p-8 + 0x1p-30, 0x3f81}, /* above the tie: float would round it onto the tie first */
        {FLT_MAX, 0x7f80},                /* rounds up past bf16's largest finite */
        {0x1.fep127, 0x7f7f},             /* largest finite bf16 */
        {0x1p-133, 0x0001},               /* smallest bf16 subnormal */
        {0x1p-149, 0x0000},
        {-0.0, 0x8000},
        {INFINITY, 0x7f80},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        cr_expect_eq(fpd_bf16_from_double(table[i].x), table[i].bits, "bf16(%a) = %04x, want %04x", table[i].x,
                     fpd_bf16_from_double(table[i].x), table[i].bits);
    cr_expect_eq(fpd_bf16_from_float(1.0f + 0x1p-8f), 0x3f80);
    cr_expect_eq(fpd_bf16_from_float(-0x1p-149f), 0x8000);
}

Test(dtype, nan_stays_nan)
{
    uint64_t payloads[] = {0x7ff8000000000000ull, 0x7ff0000000000001ull, 0xfff4000000000000ull,
                           0x7ff0000000000400ull};
    for (size_t i = 0; i < sizeof payloads / sizeof payloads[0]; i++) {
        double nan = from_bits64(payloads[i]);
        uint16_t h = fpd_f16_from_double(nan), b = fpd_bf16_from_double(nan);
        cr_expect_eq(fpd_classify_bits(FPD_F16, h), FPD_CLASS_NAN, "f16 of %016llx is %04x",
                     (unsigned long long)payloads[i], h);
        cr_expect_eq(fpd_classify_bits(FPD_BF16, b), FPD_CLASS_NAN, "bf16 of %016llx is %04x",
                     (unsigned long long)payloads[i], b);
        cr_expect(isnan(fpd_f16_to_double(h)));
        cr_expect(isnan(fpd_bf16_to_float(b)));
        cr_expect_eq(signbit(fpd_f16_to_double(h)) != 0, signbit(nan) != 0);
    }
    cr_expect_eq(fpd_bf16_from_float(from_bits64(0x7ff8000000000000ull)) & 0x7fc0, 0x7fc0);
}

/* f16 decoding as its definition reads, a case at a time: the branch-free decoder in dtype.h must
 * give the same bits for every pattern, NaN payloads and signed zeros included. */
static double f16_reference(uint16_t h)
{
    double sign = (h & 0x8000) ? -1.0 : 1.0;
    unsigned exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    if (exp == 0x1f && mant == 0)
        return sign * INFINITY;
    if (exp == 0x1f) /* quiet, the payload's low 9 bits in the double's top payload bits */
        return from_bits64(((uint64_t)(h & 0x8000) << 48) | 0x7ff8000000000000ull | ((uint64_t)(mant & 0x1ff) << 42));
    if (exp == 0)
        return sign * ldexp((double)mant, -24);
    return sign * ldexp((double)(mant | 0x400), (int)exp - 25);
}

Test(dtype, f16_decoding_exhaustive)
{
    for (uint32_t bits = 0; bits <= 0xffff; bits++) {
        double got = fpd_f16_to_double((uint16_t)bits), want = f16_reference((uint16_t)bits);
        cr_assert(memcmp(&got, &want, sizeof got) == 0, "f16 %04x decodes to %a, want %a", bits, got, want);
    }
}

/* Every 16-bit pattern decodes and re-encodes to itself (NaNs to some NaN). */
Test(dtype, sixteen_bit_round_trip_exhaustive)
{
    for (uint32_t bits = 0; bits <= 0xffff; bits++) {
        double h = fpd_f16_to_double((uint16_t)bits);
        float b = fpd_bf16_to_float((uint16_t)bits);
        if (fpd_classify_bits(FPD_F16, bits) == FPD_CLASS_NAN)
            cr_assert(isnan(h));
        else
            cr_assert_eq(fpd_f16_from_double(h), bits, "f16 %04x -> %a -> %04x", bits, h, fpd_f16_from_double(h));
        if (fpd_classify_bits(FPD_BF16, bits) == FPD_CLASS_NAN)
            cr_assert(isnan(b));
        else
            cr_assert_eq(fpd_bf16_from_float(b), bits, "bf16 %04x -> %a", bits, (double)b);
    }
}

/* MPFR rounds to a format given precision and exponent range (emin/emax in MPFR's convention,
 * significand in [1/2, 1)); subnormalize then gives IEEE's gradual underflow. */
static double mpfr_reference_round(double x, int precision, int emin, int emax)
{
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_t m;
    mpfr_init2(m, precision);
    int inexact = mpfr_set_d(m, x, MPFR_RNDN);
    inexact = mpfr_check_range(m, inexact, MPFR_RNDN);
    mpfr_subnormalize(m, inexact, MPFR_RNDN);
    double r = mpfr_get_d(m, MPFR_RNDN);
    mpfr_clear(m);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    return r;
}

Test(dtype, rounding_matches_mpfr)
{
    /* emin = 1 - 24 for binary16 (smallest subnormal 2^-24 = 0.5 * 2^-23), emax = 16 */
    static const struct {
        enum fpd_dtype t;
        int precision, emin, emax, scale;
    } formats[] = {{FPD_F16, 11, -23, 16, 18}, {FPD_BF16, 8, -132, 128, 140}, {FPD_F32, 24, -148, 128, 150}};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        for (uint32_t i = 0; i < 200000; i++) {
            uint32_t w[4];
            fpd_rng_element(42, i, 1, 0, (uint32_t)f, 0, w);
            /* a random significand with many bits, over the format's whole exponent range and beyond */
            double sig = 1.0 + (double)((((uint64_t)w[0] << 32) | w[1]) >> 12) * 0x1p-52;
            int e = (int)(w[2] % (uint32_t)(2 * formats[f].scale)) - formats[f].scale;
            double x = ldexp((w[3] & 1) ? -sig : sig, e);
            if (w[3] & 2) /* land exactly on ties now and then */
                x = ldexp(nearbyint(ldexp(x, 40)) + 0.5, -40);
            double want = mpfr_reference_round(x, formats[f].precision, formats[f].emin, formats[f].emax);
            double got = fpd_round(formats[f].t, x);
            cr_assert(memcmp(&want, &got, sizeof want) == 0, "%s: round(%a) = %a, MPFR says %a",
                      fpd_dtype_info(formats[f].t)->name, x, got, want);
        }
        /* binary64's extremes, far outside the format */
        static const double extremes[] = {DBL_MAX, -DBL_MAX, 0x1p1000, DBL_MIN, -DBL_TRUE_MIN, 0x1p-1070};
        for (size_t i = 0; i < sizeof extremes / sizeof extremes[0]; i++) {
            double x = extremes[i];
            double want = mpfr_reference_round(x, formats[f].precision, formats[f].emin, formats[f].emax);
            double got = fpd_round(formats[f].t, x);
            cr_assert(memcmp(&want, &got, sizeof want) == 0, "%s: round(%a) = %a, MPFR says %a",
                      fpd_dtype_info(formats[f].t)->name, x, got, want);
        }
    }
}

Test(dtype, ulp_distance)
{
    cr_expect_eq(fpd_ulp_distance(FPD_F32, f32_bits(1.0f), f32_bits(nextafterf(1.0f, 2.0f))), 1);
    cr_expect_eq(fpd_ulp_distance(FPD_F32, f32_bits(1.0f), f32_bits(2.0f)), 1u << 23);
    cr_expect_eq(fpd_ulp_distance(FPD_F32, f32_bits(0.0f), f32_bits(-0.0f)), 0);
    cr_expect_eq(fpd_ulp_distance(FPD_F32, f32_bits(0x1p-149f), f32_bits(-0x1p-149f)), 2);
    cr_expect_eq(fpd_ulp_distance(FPD_F16, 0x3c00, 0xbc00), 2 * 0x3c00);
    cr_expect_eq(fpd_ulp_distance(FPD_BF16, 0x3f80, 0x3f81), 1);
    cr_expect_eq(fpd_ulp_distance(FPD_F64, 0x7fefffffffffffffull, 0xffefffffffffffffull), 2 * 0x7fefffffffffffffull);
}

/* The inline bit layouts (what comparison folds) say what the type table says. */
Test(dtype, bit_layouts_match_the_table)
{
    for (int t = 0; t < FPD_DTYPE_COUNT; t++) {
        const struct fpd_dtype_info *f = fpd_dtype_info((enum fpd_dtype)t);
        cr_expect_eq(fpd_bits_width((enum fpd_dtype)t), f->size * 8, "%s", f->name);
        cr_expect_eq(fpd_bits_significand((enum fpd_dtype)t), (unsigned)f->precision - 1, "%s", f->name);
        /* the largest finite value is finite, the next bit pattern up is +Inf */
        uint64_t max_bits = fpd_bits_of_value((enum fpd_dtype)t, f->max_finite);
        cr_expect_eq(fpd_classify_bits((enum fpd_dtype)t, max_bits), FPD_CLASS_FINITE, "%s", f->name);
        cr_expect_eq(fpd_classify_bits((enum fpd_dtype)t, max_bits + 1), FPD_CLASS_POS_INF, "%s", f->name);
    }
}

Test(dtype, same_value_ignores_nan_payload_only)
{
    cr_expect(fpd_same_value_bits(FPD_F16, 0x7e00, 0x7e01));
    cr_expect(!fpd_same_value_bits(FPD_F16, 0x0000, 0x8000));
    cr_expect(!fpd_same_value_bits(FPD_F16, 0x7c00, 0x7e00));
}

Test(dtype, dtype_specs)
{
    static const struct {
        const char *spec;
        struct fpd_dtypes want;
        const char *canonical;
    } good[] = {
        {"f32", {FPD_F32, FPD_F32, FPD_F32}, "f32"},
        {"f64", {FPD_F64, FPD_F64, FPD_F64}, "f64"},
        {"bf16", {FPD_BF16, FPD_F32, FPD_F32}, "bf16"},
        {"f16:f16", {FPD_F16, FPD_F16, FPD_F32}, "f16:f16"},
        {"bf16:bf16:bf16", {FPD_BF16, FPD_BF16, FPD_BF16}, "bf16:bf16:bf16"},
        {"f32:f64", {FPD_F32, FPD_F64, FPD_F64}, "f32:f64"},
        {"f32:f32:f64", {FPD_F32, FPD_F32, FPD_F64}, "f32:f32:f64"},
        {"bf16:f32:f32", {FPD_BF16, FPD_F32, FPD_F32}, "bf16"},
    };
    char why[256], buf[32];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct fpd_dtypes dt;
        cr_assert_eq(fpd_dtypes_parse(good[i].spec, &dt, why, sizeof why), FPD_OK, "%s: %s", good[i].spec, why);
        cr_expect(fpd_dtypes_equal(&dt, &good[i].want), "%s parsed wrong", good[i].spec);
        cr_expect_str_eq(fpd_dtypes_format(&dt, buf, sizeof buf), good[i].canonical);
    }
    const char *bad[] = {"f8", "f32:f16:f16", "f64:f64:f32", "f16:f16:bf16", "bf16:f32:bf16", "", "f32:f32:f32:f32",
                         "f32:"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct fpd_dtypes dt;
        cr_expect_eq(fpd_dtypes_parse(bad[i], &dt, why, sizeof why), FPD_ERR_INPUT, "'%s' was accepted", bad[i]);
    }
}

Test(dtype, value_of_bits)
{
    cr_expect(fabs(fpd_value_of_bits(FPD_F32, 0x3f800000) - 1) <= 0);
    cr_expect(fabs(fpd_value_of_bits(FPD_F64, 0xc000000000000000ull) + 2) <= 0);
    cr_expect(fabs(fpd_value_of_bits(FPD_F16, 0x3555) - 0x1.554p-2) <= 0);
    cr_expect(fabs(fpd_value_of_bits(FPD_BF16, 0xc040) + 3) <= 0);
    float f = 0.1f;
    cr_expect_eq(fpd_bits(FPD_F32, &f, 0), f32_bits(0.1f));
}

/* fpd_convert_matrix's binary16 to binary32, which takes whole runs of finite values by their bits,
 * is every value's own conversion (fpd_load, fpd_store), bit for bit: a run of all 65536 values
 * (Inf and NaN among them: the run then goes value by value), and runs of the finite ones alone,
 * of every length up to 40 and at every width this CPU has. */
Test(dtype, f16_to_f32_matrix_is_each_values_conversion)
{
    static uint16_t all[65536], finite[65536];
    static float got[65536], want[65536];
    size_t n_finite = 0;
    for (uint32_t i = 0; i < 65536; i++) {
        all[i] = (uint16_t)i;
        if ((i & 0x7c00u) != 0x7c00u)
            finite[n_finite++] = (uint16_t)i;
    }
    enum fpd_vector_width was = fpd_vector_width();
    char err[160];
    for (int w = FPD_VECTOR_BASELINE; w <= (int)fpd_vector_width_of_cpu(); w++) {
        cr_assert_eq(fpd_vector_width_limit((enum fpd_vector_width)w, err, sizeof err), 0, "%s", err);
        const uint16_t *sources[] = {all, finite};
        size_t counts[] = {65536, n_finite};
        for (int s = 0; s < 2; s++) {
            fpd_convert_matrix(1, counts[s], FPD_F16, sources[s], counts[s], FPD_F32, got, counts[s]);
            for (size_t i = 0; i < counts[s]; i++)
                fpd_store(FPD_F32, want, i, fpd_load(FPD_F16, sources[s], i));
            cr_assert(memcmp(got, want, counts[s] * sizeof *got) == 0, "width %d, run %d", w, s);
        }
        for (size_t len = 1; len <= 40; len++) { /* two rows of len, apart in memory */
            fpd_convert_matrix(2, len, FPD_F16, finite + 1000, len + 3, FPD_F32, got, len + 5);
            for (size_t r = 0; r < 2; r++)
                for (size_t i = 0; i < len; i++)
                    fpd_store(FPD_F32, want, r * (len + 5) + i, fpd_load(FPD_F16, finite + 1000, r * (len + 3) + i));
            for (size_t r = 0; r < 2; r++)
                cr_assert(memcmp(got + r * (len + 5), want + r * (len + 5), len * sizeof *got) == 0, "len %zu", len);
        }
    }
    fpd_vector_width_limit(was, err, sizeof err);
}

/* Every pair of types, by rows and down a column (cols = 1, one strided run): each value as its own
 * conversion gives it (fpd_load, fpd_store), bit for bit, over values of every class (zeros,
 * subnormals of each type, Inf, NaN with payloads, values that round to Inf or to zero), with the
 * rows and the destination's elements apart in memory, and what lies between them untouched. */
Test(dtype, every_pair_converts_each_value_as_itself)
{
    enum { VALUES = 24, LD = 3, GAP = 2 };
    static const double values[VALUES] = {0.0, -0.0, 1.0, -1.5, 0x1p-1074, -0x1p-1030, 0x1p-149, 0x1p-130, 0x1p-24,
                                          -0x1p-20, 0x1p-133, 65504.0, 65520.0, -0x1.fep127, 0x1p128, 1e300, -1e-300,
                                          0.1, -3.0e38, INFINITY, -INFINITY, 1.0 / 3, 0x1.0000001p0, 7.0};
    const enum fpd_dtype types[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    unsigned char src[VALUES * LD * 8], got[VALUES * (LD + GAP) * 8], want[sizeof got];
    for (size_t s = 0; s < 4; s++) {
        enum fpd_dtype from = types[s];
        memset(src, 0, sizeof src);
        for (size_t i = 0; i < VALUES * LD; i++)
            fpd_store(from, src, i, i % LD == 0 ? values[i / LD] : (double)i);
        fpd_store(from, src, LD * 5, NAN); /* a NaN, and one with a payload of its own below */
        if (from == FPD_F64)
            memcpy(src + LD * 6 * 8, &(uint64_t){0xfff4000000000123ull}, 8);
        for (size_t d = 0; d < 4; d++) {
            enum fpd_dtype to = types[d];
            size_t ed = fpd_dtype_info(to)->size;
            /* down a column: VALUES rows of one element, LD apart in src, LD + GAP in dst */
            memset(got, 0xa5, sizeof got), memset(want, 0xa5, sizeof want);
            fpd_convert_matrix(VALUES, 1, from, src, LD, to, got, LD + GAP);
            for (size_t r = 0; r < VALUES; r++)
                fpd_store(to, want, r * (LD + GAP), fpd_load(from, src, r * LD));
            cr_assert(memcmp(got, want, sizeof got) == 0, "column, %s to %s", fpd_dtype_info(from)->name,
                      fpd_dtype_info(to)->name);
            /* by rows: VALUES / 4 rows of LD * 4 - 1 values, rows LD * 4 apart in src */
            memset(got, 0xa5, sizeof got), memset(want, 0xa5, sizeof want);
            size_t rows = VALUES / 4, cols = LD * 4 - 1, dst_ld = cols + GAP;
            fpd_convert_matrix(rows, cols, from, src, LD * 4, to, got, dst_ld);
            for (size_t r = 0; r < rows; r++)
                for (size_t c = 0; c < cols; c++)
                    fpd_store(to, want, r * dst_ld + c, fpd_load(from, src, r * LD * 4 + c));
            cr_assert(memcmp(got, want, rows * dst_ld * ed) == 0, "rows, %s to %s", fpd_dtype_info(from)->name,
                      fpd_dtype_info(to)->name);
        }
    }
}

/* fpd_store_run's binary16 and bfloat16 runs, whose loops round without a branch, give what each
 * value's own conversion does (fpd_f16_from_double, fpd_bf16_from_double), bit for bit: every
 * midpoint between two neighbours of each type and the doubles either side of it, random doubles
 * of every exponent, zeros, infinities, the largest finite values and past them, into strided
 * storage, at every vector width this CPU has; and a run with a NaN in it (value by value). */
Test(dtype, sixteen_bit_runs_round_as_each_value)
{
    enum { COUNT = 3 * 65536 + 4096 + 16 };
    static double x[COUNT];
    static uint16_t got[2 * COUNT];
    const enum fpd_dtype types[] = {FPD_F16, FPD_BF16};
    enum fpd_vector_width was = fpd_vector_width();
    char err[160];
    for (size_t t = 0; t < 2; t++) {
        size_t n = 0;
        for (uint32_t h = 0; h < 0xffff; h++) { /* h and h + 1 next to each other (within a sign) */
            double lo = fpd_value_of_bits(types[t], h), hi = fpd_value_of_bits(types[t], h + 1);
            double mid = lo / 2 + hi / 2;
            if (!isfinite(lo) || !isfinite(hi) || isnan(mid))
                continue;
            x[n++] = mid, x[n++] = nextafter(mid, INFINITY), x[n++] = nextafter(mid, -INFINITY);
        }
        for (uint32_t i = 0; i < 4096; i++) {
            uint32_t w[4];
            fpd_rng_element(77, i, 3, 0, 0, 0, w);
            uint64_t bits = ((uint64_t)w[0] << 32 | w[1]) & ~(0x7ffull << 52);
            bits |= (uint64_t)(1023 - 160 + w[2] % 320) << 52; /* 2^-160 to 2^160 */
            memcpy(&x[n++], &bits, sizeof bits);
        }
        const double edges[] = {0.0, -0.0, INFINITY, -INFINITY, 65504.0, 65520.0, -65519.99, 0x1.fep127, 0x1.ffp127,
                                -0x1.fefffffffffffp127, 0x1p-24, 0x1p-25, 0x1.0000000000001p-25, 0x1p-133, -0x1p-134,
                                DBL_MAX};
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
            x[n++] = edges[i];
        for (int w = FPD_VECTOR_BASELINE; w <= (int)fpd_vector_width_of_cpu(); w++) {
            cr_assert_eq(fpd_vector_width_limit((enum fpd_vector_width)w, err, sizeof err), 0, "%s", err);
            memset(got, 0xa5, sizeof got);
            fpd_store_run(types[t], got, 1, 2, x, n);
            for (size_t i = 0; i < n; i++) {
                uint16_t want = types[t] == FPD_F16 ? fpd_f16_from_double(x[i]) : fpd_bf16_from_double(x[i]);
                cr_assert_eq(got[1 + 2 * i], want, "%s, width %d: %a gave %#06x, want %#06x",
                             fpd_dtype_info(types[t])->name, w, x[i], got[1 + 2 * i], want);
                cr_assert_eq(got[2 * i], 0xa5a5, "a store between the strided ones");
            }
            double with_nan[3] = {1.0, -NAN, 0x1p-30};
            memcpy(&with_nan[1], &(uint64_t){0xfff0000000001234ull | 0x0008000000000000ull}, sizeof(double));
            uint16_t nan_run[3];
            fpd_store_run(types[t], nan_run, 0, 1, with_nan, 3);
            for (size_t i = 0; i < 3; i++)
                cr_assert_eq(nan_run[i], types[t] == FPD_F16 ? fpd_f16_from_double(with_nan[i])
                                                             : fpd_bf16_from_double(with_nan[i]));
        }
    }
    fpd_vector_width_limit(was, err, sizeof err);
}

/* fpd_magnitude_extremes against each value read one by one: zeros, infinities and NaNs left out,
 * subnormals counted, what *smallest and *largest held kept where nothing passes it, at every vector
 * width. */
Test(dtype, magnitude_extremes_are_each_values)
{
    enum { COUNT = 301 };
    const enum fpd_dtype types[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    unsigned char data[COUNT * 8];
    enum fpd_vector_width was = fpd_vector_width();
    char err[160];
    for (size_t t = 0; t < 4; t++)
        for (uint32_t round = 0; round < 20; round++) {
            for (uint32_t i = 0; i < COUNT; i++) {
                uint32_t w[4];
                fpd_rng_element(91, i, round, t, 0, 0, w);
                static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 0x1p-140, -0x1p-20, 0x1p-1070};
                double x = w[0] % 5 == 0 ? specials[w[1] % 8] : ldexp((double)(int32_t)w[2], (int)(w[3] % 60) - 80);
                fpd_store(types[t], data, i, x);
            }
            double want_small = round % 2 ? 1e-3 : INFINITY, want_big = round % 2 ? 1e3 : 0;
            for (uint32_t i = 0; i < COUNT - round; i++) {
                double v = fabs(fpd_load(types[t], data, i));
                if (v > 0 && isfinite(v))
                    want_small = fmin(want_small, v), want_big = fmax(want_big, v);
            }
            for (int w = FPD_VECTOR_BASELINE; w <= (int)fpd_vector_width_of_cpu(); w++) {
                cr_assert_eq(fpd_vector_width_limit((enum fpd_vector_width)w, err, sizeof err), 0, "%s", err);
                double small = round % 2 ? 1e-3 : INFINITY, big = round % 2 ? 1e3 : 0;
                fpd_magnitude_extremes(types[t], data, COUNT - round, &small, &big);
                cr_assert(memcmp(&small, &want_small, sizeof small) == 0 && memcmp(&big, &want_big, sizeof big) == 0,
                          "%s, round %u, width %d: %a %a, want %a %a", fpd_dtype_info(types[t])->name, round, w,
                          small, big, want_small, want_big);
            }
        }
    fpd_vector_width_limit(was, err, sizeof err);
}
