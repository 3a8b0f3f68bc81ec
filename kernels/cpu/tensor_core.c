/*
 * tensor_core.c — a tensor core's block fused multiply-add (tensor_core.h), in integers.
 *
 * Every value is taken apart once, from its bits, into a sign, an exponent and an integer
 * significand; a product is a product of significands, its alignment a shift, a block's sum an
 * integer sum, and its one rounding is built back from bits. No libm call per product: the first
 * model (frexp and ldexp per product, kept in tests/unit/tc_reference.c) spent 80% of its time in
 * them. The GEMM takes every operand apart once, not once per product it enters, and computes a
 * row's blocks for many output elements at a time (the loops the vector widths' copies vectorize);
 * the results are the scalar block's, bit for bit (test_tensor_core.c).
 */
#include "cpu/tensor_core.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/clones.h"

/* 2^e as a double, from its bits (-1022 <= e <= 1023): common/dtype.h's fpd_pow2, which a kernel
 * may not include (kernels are arithmetic alone). */
static inline double pow2(int e)
{
    uint64_t bits = (uint64_t)(e + 1023) << 52;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* A finite non-zero value taken apart as the model reads it: e = floor(log2|x|), at least emin,
 * and sig = |x|·2^(23 - e) truncated to an integer (the model's significand with 23 fraction
 * bits: exact for every value the model is given). */
struct parts {
    uint64_t sig;
    int e;
    bool negative;
};

/* From a double's bits: its significand (53 bits with the leading one) is full·2^(at - 52). */
static inline struct parts parts_of_double(double x, int emin)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int biased = (int)(bits >> 52 & 0x7ff);
    uint64_t full = bits & ((UINT64_C(1) << 52) - 1);
    int at = biased ? biased - 1023 : -1022, lead = at;
    if (biased)
        full |= UINT64_C(1) << 52;
    else
        lead = at - (52 - (63 - __builtin_clzll(full))); /* a subnormal's leading bit */
    int e = lead > emin ? lead : emin;
    /* sig = full·2^(at - 52 + 23 - e), truncated: a right shift of 29 bits at least (e >= lead = at
     * for a normal double; far more for a subnormal one, whose sig is 0) */
    int shift = 52 - 23 + e - at;
    return (struct parts){shift < 64 ? full >> shift : 0, e, (bits >> 63) != 0};
}

/* A float's significand as it is stored, full·2^(at - 23) (full with its leading one, where it has
 * one: 24 bits at most), and the model's exponent for it, e = floor(log2|x|) at least emin. */
struct float_parts {
    uint64_t full;
    int at, e;
    bool negative;
};

static inline struct float_parts float_parts_of(float x, int emin)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    int biased = (int)(bits >> 23 & 0xff);
    uint32_t full = bits & 0x7fffff;
    int at = biased ? biased - 127 : -126;
    int lead = biased ? at : at - (23 - (31 - __builtin_clz(full))); /* a subnormal's leading bit */
    return (struct float_parts){biased ? full | 0x800000 : full, at, lead > emin ? lead : emin, (bits >> 31) != 0};
}

/* n·2^scale (n < 2^63, not 0) rounded to the accumulator's format, `negative` its sign. */
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
    /* kept < 2^53 (at most the precision's bits and a carry, or n itself below the grid), and
     * 2^quantum a normal double: the product is exact */
    double d = (double)kept * pow2(quantum);
    if (d >= pow2(t->acc_emax + 1))
        d = INFINITY;
    return negative ? -d : d;
}

/* The block's sum of the aligned terms (an exact integer, in units of 2^(emax - 23 - extra_bits))
 * rounded, or 0. */
static double block_result(const struct fpd_tc_arith *t, int64_t sum, int emax)
{
    if (sum == 0)
        return 0;
    return round_to_accumulator(t, (uint64_t)(sum < 0 ? -sum : sum), emax - 23 - t->extra_bits, sum < 0);
}

double fpd_tc_block(const struct fpd_tc_arith *t, const float *a, ptrdiff_t as, const float *b, ptrdiff_t bs,
                    size_t count, double c)
{
    uint64_t sig[FPD_TC_BLOCK_MAX + 1];
    int exp[FPD_TC_BLOCK_MAX + 1];
    bool negative[FPD_TC_BLOCK_MAX + 1];
    size_t terms = 0;
    int emax = t->min_exp;
    for (size_t i = 0; i < count && i < FPD_TC_BLOCK_MAX; i++) { /* count is at most block */
        float x = a[(ptrdiff_t)i * as], y = b[(ptrdiff_t)i * bs];
        if (fpclassify(x) == FP_ZERO || fpclassify(y) == FP_ZERO)
            continue; /* zero products are dropped */
        struct float_parts px = float_parts_of(x, t->in_emin), py = float_parts_of(y, t->in_emin);
        int e = px.e + py.e;
        /* the product's significand, |x·y|·2^(23 - e), truncated: the exact product of the stored
         * significands (48 bits) is |x·y|·2^(46 - at_x - at_y), and e >= at_x + at_y */
        int shift = 23 + e - px.at - py.at;
        sig[terms] = shift < 64 ? (px.full * py.full) >> shift : 0;
        exp[terms] = e;
        negative[terms++] = px.negative != py.negative;
        emax = e > emax ? e : emax;
    }
    if (fpclassify(c) != FP_ZERO) { /* c as an fp32 value: exponent at least fp32's emin */
        struct parts pc = parts_of_double(c, -126);
        sig[terms] = pc.sig;
        exp[terms] = pc.e;
        negative[terms++] = pc.negative;
        emax = pc.e > emax ? pc.e : emax;
    }
    int64_t sum = 0;
    for (size_t i = 0; i < terms; i++) {
        int shift = emax - exp[i]; /* truncated toward zero to 2^(emax - 23 - extra_bits) */
        uint64_t aligned = shift < 40 ? (sig[i] << t->extra_bits) >> shift : 0;
        sum += negative[i] ? -(int64_t)aligned : (int64_t)aligned;
    }
    return block_result(t, sum, emax);
}

/* NaN and Inf over the whole dot product, decided first (tensor_core.h); false where every term
 * and the bias are finite. */
static bool nonfinite_dot(const float *a, ptrdiff_t as, const float *b, ptrdiff_t bs, size_t k, double bias,
                          double *result)
{
    bool nan = isnan(bias), plus = isinf(bias) && bias > 0, minus = isinf(bias) && bias < 0;
    for (size_t p = 0; p < k; p++) {
        double x = (double)a[(ptrdiff_t)p * as] * b[(ptrdiff_t)p * bs];
        nan |= isnan(x);
        plus |= isinf(x) && x > 0;
        minus |= isinf(x) && x < 0;
    }
    *result = nan || (plus && minus) ? NAN : plus ? INFINITY : -INFINITY;
    return nan || plus || minus;
}

double fpd_tc_dot(const struct fpd_tc_arith *t, const float *a, ptrdiff_t as, const float *b, ptrdiff_t bs, size_t k,
                  double bias)
{
    double special;
    if (nonfinite_dot(a, as, b, bs, k, bias, &special))
        return special;
    double c = bias;
    for (size_t p = 0; p < k && isfinite(c); p += t->block) {
        size_t count = k - p < t->block ? k - p : t->block;
        c = fpd_tc_block(t, a + (ptrdiff_t)p * as, as, b + (ptrdiff_t)p * bs, bs, count, c);
    }
    return c; /* an Inf from a block that overflowed stays: finite terms cannot bring it back */
}

/* ---- the GEMM ------------------------------------------------------------------------------------ */

/* An operand taken apart for the GEMM: per element its exponent (ZERO_EXP for a zero, so that a
 * zero product neither sets a block's emax nor adds anything) and its significand, signed, with the
 * input format's own fraction bits (an fp16 value's 11-bit one, bf16's 8-bit one, or the 24-bit one
 * of fp32 inputs, which a path that casts its inputs up gives the model). A row (of A) or column
 * (of B) with a value that is not finite, or not of the input format, is computed by the scalar
 * block instead. */
#define ZERO_EXP (-(1 << 24))
struct operand_parts {
    int32_t *e;
    float *sig; /* an integer below 2^(f + 1), signed: exact in a float (a product of two, for f <= 11) */
    bool *scalar; /* per row of A, per column of B */
};

/* Takes value x (a float's bits) apart with f fraction bits into *e and *sig; returns 1 where it is
 * refused (not finite, or not a value of the format: it has more fraction bits), 0 else. A zero,
 * and a refused value, get ZERO_EXP and 0: a lane of a tile's end may read them. Branch-free, for
 * the loop of split_run to vectorize; a subnormal's leading bit from the exponent of its fraction
 * converted to a float (exact: below 2^23), as a count of leading zeros does not vectorize
 * without AVX-512. */
static inline __attribute__((always_inline)) int32_t split_bits(uint32_t bits, int emin, int f, int32_t *e,
                                                                 float *sig)
{
    uint32_t magnitude = bits & 0x7fffffffu, frac = magnitude & 0x7fffffu;
    int32_t biased = (int32_t)(magnitude >> 23), at = (biased > 1 ? biased : 1) - 127;
    int32_t normal = -(int32_t)(biased != 0); /* masks, not branches: see aligned_c */
    float frac_value = (float)(int32_t)frac;
    uint32_t frac_bits;
    memcpy(&frac_bits, &frac_value, sizeof frac_bits);
    int32_t subnormal_lead = at - 23 + ((int32_t)(frac_bits >> 23) - 127);
    int32_t lead = (at & normal) | (subnormal_lead & ~normal);
    int32_t exponent = lead > emin ? lead : emin;
    uint32_t full = frac | (0x800000u & (uint32_t)normal);
    /* |x|·2^(f - e), which for a value of the format is an integer of f + 1 bits at most */
    int32_t shift = 23 - f + exponent - at, clamped = shift < 31 ? shift : 31; /* >= 23 - f: e >= at */
    uint32_t dropped = full & ((UINT32_C(1) << clamped) - 1);
    int32_t zero = magnitude == 0;
    int32_t ok = (biased != 255) & (zero | ((shift < 32) & (dropped == 0)));
    int32_t live = -(ok & !zero);
    float value = (float)(int32_t)(full >> clamped); /* positive: the sign is x's bit */
    uint32_t value_bits;
    memcpy(&value_bits, &value, sizeof value_bits);
    value_bits = (value_bits | (bits & 0x80000000u)) & (uint32_t)live;
    *e = (exponent & live) | (ZERO_EXP & ~live);
    memcpy(sig, &value_bits, sizeof value_bits);
    return !ok;
}

/* count values x[p] taken apart into e[p] and sig[p]; refused[p] 1 where value p is. */
FPD_VECTOR_WIDTH_FUNCTION(void, split_run,
                          (const float *restrict x, size_t count, int emin, int f, int32_t *restrict e,
                           float *restrict sig, int32_t *restrict refused),
                          (x, count, emin, f, e, sig, refused))
{
    enum { RUN = 8 }; /* a fixed trip count, which the vectorizer's cost model takes */
    size_t whole = count / RUN * RUN;
    for (size_t p = 0; p < whole; p += RUN)
        for (size_t j = 0; j < RUN; j++) {
            uint32_t bits;
            memcpy(&bits, &x[p + j], sizeof bits);
            refused[p + j] = split_bits(bits, emin, f, &e[p + j], &sig[p + j]);
        }
    for (size_t p = whole; p < count; p++) {
        uint32_t bits;
        memcpy(&bits, &x[p], sizeof bits);
        refused[p] = split_bits(bits, emin, f, &e[p], &sig[p]);
    }
}

/* The GEMM's fast form: a line (a row of A, or a column of B) against TILE lanes, block after
 * block, every element's state (its accumulator c, as parts) in arrays the per-lane loops run
 * over. TILE lanes at a time, always: a fixed trip count is what the kernels' cost model
 * vectorizes (no remainder); the lanes past the last tile's end compute what nobody reads. */
enum { TILE = 32 };

struct tile_state {
    int32_t c_sig[TILE], c_e[TILE]; /* c's parts, as fpd_tc_block takes them: |c|·2^(23 - e), e */
    int32_t c_negative[TILE];       /* 0 or 1 */
    int32_t c_live[TILE];           /* 1: c is neither zero nor Inf, and enters the next block */
    int32_t c_inf[TILE];            /* 1: c overflowed, and its element is done (it stays Inf) */
    uint32_t c_bits[TILE];          /* c, a value of the accumulator's format, as a float's bits */
};

/* c, a float's bits, as the next block takes it (what parts_of_double gives for emin -126). */
#define SET_C(s, j, bits)                                                                          \
    do {                                                                                           \
        uint32_t magnitude_ = (bits) & 0x7fffffffu, biased_ = magnitude_ >> 23;                    \
        (s)->c_bits[j] = (bits);                                                                   \
        (s)->c_e[j] = (int32_t)(biased_ > 1 ? biased_ : 1) - 127; /* a subnormal's: -126 */       \
        (s)->c_sig[j] = (int32_t)((magnitude_ & 0x7fffffu) | (uint32_t)(biased_ != 0) << 23);      \
        (s)->c_negative[j] = (int32_t)((bits) >> 31);                                              \
        (s)->c_live[j] = (magnitude_ != 0) & (magnitude_ < 0x7f800000u);                            \
        (s)->c_inf[j] = magnitude_ == 0x7f800000u;                                                 \
    } while (0)

FPD_VECTOR_WIDTH_FUNCTION(void, block_of_tile,
                          (const int32_t *restrict ae, const float *restrict asig, const int32_t *restrict be,
                           const float *restrict bsig, size_t ldb, size_t count, int fraction_bits, int extra_bits,
                           int32_t *restrict emax, int32_t *restrict sum),
                          (ae, asig, be, bsig, ldb, count, fraction_bits, extra_bits, emax, sum))
{
    int base = 23 - 2 * fraction_bits + extra_bits;
    bool wide = 2 * fraction_bits + 2 > 24;
    double own = pow2(23 - 2 * fraction_bits); /* a wide product's units: 2^(23 - e) of its exponent e */
    /* emax over the block's products, for every column (a zero product's exponent is far below);
     * emax arrives holding the floor and c's exponent */
    for (size_t p = 0; p < count; p++) {
        int32_t ea = ae[p];
        const int32_t *restrict eb = be + p * ldb;
        for (size_t j = 0; j < TILE; j++) {
            int32_t e = ea + eb[j];
            emax[j] = e > emax[j] ? e : emax[j];
        }
    }
    for (size_t j = 0; j < TILE; j++)
        sum[j] = 0;
    /* each product aligned to its column's emax and truncated toward zero: the product of the two
     * significands (below 2^22: exact in a float) times 2^(base - shift) is the term with 23 +
     * extra_bits fraction bits (below 2^27, exact), and the conversion to an integer truncates it
     * toward zero, as the model does its magnitude; a shift of 31 leaves nothing, as any longer.
     * Wide significands (fp32's, 24 bits) make a product of up to 48 bits, exact in a double,
     * which the model first truncates to 23 fraction bits at its own exponent: a first conversion
     * to an integer (below 2^25), then the alignment's. */
    for (size_t p = 0; p < count; p++) {
        int32_t ea = ae[p];
        float sa = asig[p];
        const int32_t *restrict eb = be + p * ldb;
        const float *restrict sb = bsig + p * ldb;
        if (wide) {
            for (size_t j = 0; j < TILE; j++) {
                int32_t shift = emax[j] - (ea + eb[j]);
                shift = shift < 31 ? shift : 31;
                uint64_t scale_bits = (uint64_t)(1023 + extra_bits - shift) << 52; /* 2^(extra_bits - shift) */
                double scale;
                memcpy(&scale, &scale_bits, sizeof scale);
                double truncated = (double)(int32_t)((double)sa * (double)sb[j] * own);
                sum[j] += (int32_t)(truncated * scale);
            }
        } else {
            for (size_t j = 0; j < TILE; j++) {
                int32_t shift = emax[j] - (ea + eb[j]);
                shift = shift < 31 ? shift : 31;
                uint32_t scale_bits = (uint32_t)(127 + base - shift) << 23; /* 2^(base - shift), a normal float */
                float scale;
                memcpy(&scale, &scale_bits, sizeof scale);
                sum[j] += (int32_t)(sa * sb[j] * scale);
            }
        }
    }
}

/* c aligned to its column's emax (below 2^26 after the shift: 32 bits hold it), signed, 0 where c is
 * zero; as fpd_tc_block aligns it (a shift of 31 leaves nothing of it, as any longer one would). */
static inline int32_t aligned_c(const struct tile_state *s, size_t j, int32_t emax, int extra_bits)
{
    int32_t shift = emax - s->c_e[j]; /* below 0 only where c is zero, and its exponent a placeholder */
    shift = shift < 0 ? 0 : shift < 31 ? shift : 31;
    int32_t aligned = (int32_t)(((uint32_t)s->c_sig[j] << extra_bits) >> shift);
    /* by masks, not branches: gcc 12 threads a loop's branches into a shape it cannot vectorize */
    int32_t negative = -s->c_negative[j], live = -s->c_live[j];
    return ((aligned ^ negative) - negative) & live;
}

/* An fp32 accumulator's rounding, for every column at once: the block's sum with c, (sum + c)·2^scale,
 * is exact in a double (below 2^32 times a power of two), and a float conversion rounds it once to
 * nearest even, subnormals and overflow to Inf included, as round_to_accumulator does; toward zero,
 * the conversion is stepped back one ulp where it rounded away from zero, and Inf is where the sum
 * reaches 2^128 (the model's Inf: the truncated value past the largest finite one). */
FPD_VECTOR_WIDTH_FUNCTION(void, round_tile_f32,
                          (int extra_bits, int32_t toward_zero, const int32_t *restrict emax,
                           const int32_t *restrict sum, struct tile_state *restrict s),
                          (extra_bits, toward_zero, emax, sum, s))
{
    for (size_t j = 0; j < TILE; j++) {
        /* 2^(emax - 23 - extra_bits); an emax below binary64's range (V100's floor, where every
         * product is zero) has a zero sum, which any positive scale leaves +0 */
        int32_t biased = 1023 + emax[j] - 23 - extra_bits;
        uint64_t scale_bits = (uint64_t)(biased > 1 ? biased : 1) << 52;
        double scale;
        memcpy(&scale, &scale_bits, sizeof scale);
        double x = ((double)sum[j] + (double)aligned_c(s, j, emax[j], extra_bits)) * scale;
        float rounded = (float)x;
        uint32_t bits;
        memcpy(&bits, &rounded, sizeof bits);
        /* magnitudes compared as the bits of non-negative doubles (the same order, and no compare
         * that signals); the choices made by masks, not branches (see aligned_c) */
        double back = (double)rounded;
        uint64_t x_bits, back_bits;
        memcpy(&x_bits, &x, sizeof x_bits);
        memcpy(&back_bits, &back, sizeof back_bits);
        x_bits &= ~(UINT64_C(1) << 63), back_bits &= ~(UINT64_C(1) << 63);
        uint32_t away = (uint32_t)toward_zero & (uint32_t)(back_bits > x_bits);
        uint32_t beyond = -((uint32_t)toward_zero & (uint32_t)(x_bits >= ((uint64_t)(1023 + 128) << 52))); /* 2^128 */
        uint32_t magnitude = (((bits & 0x7fffffffu) - away) & ~beyond) | (0x7f800000u & beyond);
        uint32_t done = -(uint32_t)s->c_inf[j];
        bits = ((magnitude | (bits & 0x80000000u)) & ~done) | (s->c_bits[j] & done);
        SET_C(s, j, bits);
    }
}

/* Any other accumulator (fp16's), element by element: the same sum, rounded by round_to_accumulator. */
static void round_tile_scalar(const struct fpd_tc_arith *t, const int32_t *emax, const int32_t *sum,
                              struct tile_state *s)
{
    for (size_t j = 0; j < TILE; j++) {
        if (s->c_inf[j])
            continue;
        float c = (float)block_result(t, (int64_t)sum[j] + aligned_c(s, j, emax[j], t->extra_bits), emax[j]);
        uint32_t bits; /* exact: a value of the accumulator's format */
        memcpy(&bits, &c, sizeof bits);
        SET_C(s, j, bits);
    }
}

/* Line `line`'s elements at lanes w0..w0+TILE-1, every block: the block's products per lane by
 * block_of_tile, then c added and the sum rounded, as fpd_tc_block does. c0: each lane's first c. */
static void line_tile(const struct fpd_tc_arith *t, const struct operand_parts *line, const struct operand_parts *lane,
                      size_t l, size_t w0, size_t lanes, size_t k, const float *c0, struct tile_state *s)
{
    bool f32 = t->acc_precision == 24 && t->acc_emin == -126 && t->acc_emax == 127;
    int32_t emax[TILE], sum[TILE];
    for (size_t w = 0; w < TILE; w++) {
        uint32_t bits;
        memcpy(&bits, &c0[w], sizeof bits);
        SET_C(s, w, bits);
    }
    for (size_t p = 0; p < k; p += t->block) {
        size_t count = k - p < t->block ? k - p : t->block;
        for (size_t w = 0; w < TILE; w++) { /* the floor, and c's exponent where c is in the block */
            int32_t with_c = s->c_e[w] > t->min_exp ? s->c_e[w] : t->min_exp;
            emax[w] = s->c_live[w] ? with_c : t->min_exp;
        }
        block_of_tile(line->e + l * k + p, line->sig + l * k + p, lane->e + p * lanes + w0,
                      lane->sig + p * lanes + w0, lanes, count, t->in_fraction_bits, t->extra_bits, emax, sum);
        if (f32)
            round_tile_f32(t->extra_bits, t->toward_zero, emax, sum, s);
        else
            round_tile_scalar(t, emax, sum, s);
    }
}

/* Whether the fast form holds the model: a significand (at most fp32's) is exact in a float, a
 * block's products sum below 2^31 in 32 bits, and c's aligned significand, shifted by extra_bits,
 * fits 31 bits. */
static bool fast_form_fits(const struct fpd_tc_arith *t)
{
    int f = t->in_fraction_bits;
    return f >= 1 && f <= 23 && t->extra_bits >= 0 && t->extra_bits <= 4 &&
           ((uint64_t)t->block << (25 + t->extra_bits)) <= (UINT64_C(1) << 31);
}

/* An operand as the GEMM reads it: value (o, p) of its o-th row (of A) or column (of B), p along k. */
struct operand_view {
    const float *x;
    ptrdiff_t o_stride, p_stride;
};

/* count values x[p * stride] taken apart (split_run), through `gathered` where they are apart. */
static void split_strided(const struct fpd_tc_arith *t, const float *x, ptrdiff_t stride, size_t count, int32_t *e,
                          float *sig, int32_t *refused, float *gathered)
{
    if (stride != 1) { /* a strided load the vectorizer does not take: a copy first */
        for (size_t p = 0; p < count; p++)
            gathered[p] = x[(ptrdiff_t)p * stride];
        x = gathered;
    }
    split_run(x, count, t->in_emin, t->in_fraction_bits, e, sig, refused);
}

/* Takes operand v's `count` rows or columns apart, value (o, p) at o * o_step + p * p_step; one of
 * the steps is 1, and the runs go along it. refused and gathered: room for max(count, k) each. */
static void take_apart(const struct fpd_tc_arith *t, const struct operand_view *v, size_t count, size_t k,
                       size_t o_step, size_t p_step, struct operand_parts *parts, int32_t *refused, float *gathered)
{
    if (p_step == 1) { /* a run per row or column, along k */
        for (size_t o = 0; o < count; o++) {
            split_strided(t, v->x + (ptrdiff_t)o * v->o_stride, v->p_stride, k, &parts->e[o * o_step],
                          &parts->sig[o * o_step], refused, gathered);
            int32_t any = 0;
            for (size_t p = 0; p < k; p++)
                any |= refused[p];
            parts->scalar[o] = any != 0;
        }
        return;
    }
    for (size_t p = 0; p < k; p++) { /* a run per step along k, across the rows or columns */
        split_strided(t, v->x + (ptrdiff_t)p * v->p_stride, v->o_stride, count, &parts->e[p * p_step],
                      &parts->sig[p * p_step], refused, gathered);
        for (size_t o = 0; o < count; o++)
            parts->scalar[o] |= refused[o] != 0;
    }
}

/*
 * The fast form runs each line (a row of A, or a column of B) against TILE lanes (columns of B, or
 * rows of A) at a time: the lanes along the longer of C's sides, so that a GEMM with few columns
 * (a matrix-vector product, 2^21 rows by 2) does not compute 32 lanes for each of its few. The
 * lanes' parts are stored k rows of `lanes`, unpadded: a last tile's lanes past the end read the
 * next row's parts (or the zeros after the last row), which are in range, and nobody reads what
 * they compute. A product is the same whichever operand is the line.
 */
int fpd_kernel_tensor_core(const struct fpd_tc_arith *t, const struct fpd_kgemm_f32 *g)
{
    size_t m = g->m, n = g->n, k = g->k;
    bool by_rows = n * ((m + TILE - 1) / TILE) < m * ((n + TILE - 1) / TILE); /* lanes are A's rows */
    struct operand_view va = {g->a, g->a_rs, g->a_cs}, vb = {g->b, g->b_cs, g->b_rs};
    const struct operand_view *line_of = by_rows ? &vb : &va, *lane_of = by_rows ? &va : &vb;
    size_t lines = by_rows ? n : m, lanes = by_rows ? m : n;
    struct operand_parts line = {0}, lane = {0};
    int32_t *refused = NULL;
    float *gathered = NULL;
    bool fast = fast_form_fits(t) && m && n && k;
    if (fast) {
        line = (struct operand_parts){malloc(lines * k * sizeof *line.e), malloc(lines * k * sizeof *line.sig),
                                      calloc(lines, sizeof *line.scalar)};
        lane = (struct operand_parts){malloc((k * lanes + TILE) * sizeof *lane.e),
                                      malloc((k * lanes + TILE) * sizeof *lane.sig), calloc(lanes, sizeof *lane.scalar)};
        refused = malloc((k > lanes ? k : lanes) * sizeof *refused);
        gathered = malloc((k > lanes ? k : lanes) * sizeof *gathered);
        /* else: the scalar form, which takes no memory */
        fast = line.e && line.sig && line.scalar && lane.e && lane.sig && lane.scalar && refused && gathered;
    }
    if (fast) {
        take_apart(t, line_of, lines, k, k, 1, &line, refused, gathered);
        take_apart(t, lane_of, lanes, k, 1, lanes, &lane, refused, gathered);
        for (size_t w = 0; w < TILE; w++)
            lane.e[k * lanes + w] = ZERO_EXP, lane.sig[k * lanes + w] = 0; /* after the last row: zeros */
    }
    struct tile_state s;
    float c0[TILE];
    for (size_t l = 0; l < lines; l++)
        for (size_t w0 = 0; w0 < lanes; w0 += TILE) {
            size_t width = lanes - w0 < TILE ? lanes - w0 : TILE;
            if (fast && !line.scalar[l]) {
                for (size_t w = 0; w < TILE; w++) /* c starts at the bias of the element's column */
                    c0[w] = !g->bias ? 0 : by_rows ? g->bias[l] : w < width ? g->bias[w0 + w] : 0;
                line_tile(t, &line, &lane, l, w0, lanes, k, c0, &s);
            }
            for (size_t w = 0; w < width; w++) {
                size_t i = by_rows ? w0 + w : l, j = by_rows ? l : w0 + w;
                float *c = &g->c[i * g->ldc + j];
                if (!fast || line.scalar[l] || lane.scalar[w0 + w] || (g->bias && !isfinite(g->bias[j])))
                    *c = (float)fpd_tc_dot(t, g->a + (ptrdiff_t)i * g->a_rs, g->a_cs, g->b + (ptrdiff_t)j * g->b_cs,
                                           g->b_rs, k, g->bias ? g->bias[j] : 0);
                else
                    memcpy(c, &s.c_bits[w], sizeof *c);
            }
        }
    free(line.e), free(line.sig), free(line.scalar);
    free(lane.e), free(lane.sig), free(lane.scalar);
    free(refused), free(gathered);
    return 0;
}
