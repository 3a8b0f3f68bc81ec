/*
 * tc_reference.c — the tensor-core models as they were first written (f39899d's kernels/cpu/
 * tensor_core.c): floating-point decomposition by frexp and ldexp, a libm call or three per
 * product. Kept as the reference the integer implementation is tested against, bit for bit
 * (test_tensor_core.c: the differential tests); not built into fpdiv.
 */
#include "tc_reference.h"

#include <math.h>
#include <stdint.h>

/* floor(log2|x|) of a finite non-zero x, at least emin. */
static int exponent_of(double x, int emin)
{
    int e;
    frexp(x, &e); /* x = f·2^e, f in [0.5, 1) */
    return e - 1 > emin ? e - 1 : emin;
}

/* n·2^scale (n < 2^63) rounded to the accumulator's format, with `negative` its sign. */
static double round_to_accumulator(const struct fpd_tc_arith *t, uint64_t n, int scale, bool negative)
{
    int lead = 63 - __builtin_clzll(n) + scale; /* the exponent of n's leading bit */
    int quantum = (lead > t->acc_emin ? lead : t->acc_emin) - (t->acc_precision - 1);
    uint64_t kept = n;
    if (quantum > scale) {
        int shift = quantum - scale;
        kept = shift < 63 ? n >> shift : 0;
        uint64_t rest = shift < 63 ? n - (kept << shift) : n, half = shift < 64 ? UINT64_C(1) << (shift - 1) : 0;
        if (!t->toward_zero && shift < 64 && (rest > half || (rest == half && (kept & 1))))
            kept++;
    } else {
        quantum = scale;
    }
    double d = ldexp((double)kept, quantum);
    if (d >= ldexp(1, t->acc_emax + 1))
        d = INFINITY;
    return negative ? -d : d;
}

static double reference_block(const struct fpd_tc_arith *t, const float *a, ptrdiff_t as, const float *b, ptrdiff_t bs,
                    size_t count, double c)
{
    uint64_t sig[FPD_TC_BLOCK_MAX + 1];
    int exp[FPD_TC_BLOCK_MAX + 1];
    bool negative[FPD_TC_BLOCK_MAX + 1];
    size_t terms = 0;
    int emax = t->min_exp;
    for (size_t i = 0; i < count && i < FPD_TC_BLOCK_MAX; i++) { /* count is at most block */
        double x = a[(ptrdiff_t)i * as], y = b[(ptrdiff_t)i * bs];
        if (fpclassify(x) == FP_ZERO || fpclassify(y) == FP_ZERO)
            continue; /* zero products are dropped */
        int e = exponent_of(x, t->in_emin) + exponent_of(y, t->in_emin);
        double p = x * y; /* exact: 16-bit significands */
        /* the product's significand, in [0, 4), as an integer of 23 fraction bits: exact, since
         * 16-bit significands have at most 10 fraction bits each */
        sig[terms] = (uint64_t)ldexp(fabs(p), 23 - e);
        exp[terms] = e;
        negative[terms++] = p < 0;
        emax = e > emax ? e : emax;
    }
    if (fpclassify(c) != FP_ZERO) { /* c as an fp32 value: 24-bit significand, exponent at least fp32's emin */
        int e = exponent_of(c, -126);
        sig[terms] = (uint64_t)ldexp(fabs(c), 23 - e);
        exp[terms] = e;
        negative[terms++] = c < 0;
        emax = e > emax ? e : emax;
    }
    int64_t sum = 0;
    for (size_t i = 0; i < terms; i++) {
        int shift = emax - exp[i]; /* truncated toward zero to 2^(emax - 23 - extra_bits) */
        uint64_t aligned = shift < 40 ? (sig[i] << t->extra_bits) >> shift : 0;
        sum += negative[i] ? -(int64_t)aligned : (int64_t)aligned;
    }
    if (sum == 0)
        return 0;
    return round_to_accumulator(t, (uint64_t)(sum < 0 ? -sum : sum), emax - 23 - t->extra_bits, sum < 0);
}

double fpd_tc_reference_dot(const struct fpd_tc_arith *t, const float *a, ptrdiff_t as, const float *b, ptrdiff_t bs, size_t k,
                  double bias)
{
    bool nan = isnan(bias), plus = isinf(bias) && bias > 0, minus = isinf(bias) && bias < 0;
    for (size_t p = 0; p < k; p++) {
        double x = (double)a[(ptrdiff_t)p * as] * b[(ptrdiff_t)p * bs];
        nan |= isnan(x);
        plus |= isinf(x) && x > 0;
        minus |= isinf(x) && x < 0;
    }
    if (nan || (plus && minus))
        return NAN;
    if (plus || minus)
        return plus ? INFINITY : -INFINITY;
    double c = bias;
    for (size_t p = 0; p < k && isfinite(c); p += t->block) {
        size_t count = k - p < t->block ? k - p : t->block;
        c = reference_block(t, a + (ptrdiff_t)p * as, as, b + (ptrdiff_t)p * bs, bs, count, c);
    }
    return c; /* an Inf from a block that overflowed stays: finite terms cannot bring it back */
}

