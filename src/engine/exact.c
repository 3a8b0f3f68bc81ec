/* exact.c — the superaccumulator. Integer arithmetic, but for the final scaling of a rounded
 * significand by powers of two: exact in the default environment, which fpdiv keeps (fpenv.c). */
#include "engine/exact.h"

#include <math.h>
#include <string.h>

#include "common/dtype.h"
#include "cpu/vector_width.h"

typedef unsigned __int128 u128;

enum { PROPAGATE_EVERY = 1 << 30 }; /* each addition adds < 2^32 to a chunk: 2^30 of them fit in 2^62 */

void fpd_superacc_reset(struct fpd_superacc *s)
{
    if (!s->ready) {
        memset(s->large, 0, sizeof s->large);
        s->ready = true;
    } else {
        for (int e = s->large_lo; e <= s->large_hi; e++)
            s->large[e] = 0;
    }
    s->large_lo = 2048;
    s->large_hi = -1;
    s->large_shift = 0;
    s->room = FPD_LARGE_ADDS;
    if (s->hi >= s->lo && s->hi >= 0)
        memset(&s->chunk[s->lo], 0, (size_t)(s->hi - s->lo + 1) * sizeof s->chunk[0]);
    else
        memset(s->chunk, 0, sizeof s->chunk);
    s->lo = FPD_SUPERACC_CHUNKS;
    s->hi = -1;
    s->pending = 0;
    s->nan = s->pos_inf = s->neg_inf = false;
    s->all_negative_zero = true;
    s->any_term = false;
}

/* Carries up: every chunk but the top becomes a digit in [0, 2^32); the top one keeps the sign. */
static void propagate(struct fpd_superacc *s)
{
    if (s->hi < s->lo)
        return;
    int64_t carry = 0;
    for (int i = s->lo; i <= s->hi; i++) {
        int64_t v = s->chunk[i] + carry;
        carry = v >> 32; /* arithmetic shift: floor division by 2^32 */
        s->chunk[i] = v & 0xffffffff;
    }
    while (carry != 0 && carry != -1) { /* a carry beyond the top: new digits */
        int64_t v = carry;
        carry = v >> 32;
        s->chunk[++s->hi] = v & 0xffffffff;
    }
    if (carry == -1)
        s->chunk[s->hi] -= (int64_t)1 << 32; /* negative total: the top chunk holds the sign */
    s->pending = 0;
}

/* s += sign * m * 2^e, m < 2^106. Branch-free: always five digits (zeros cost nothing), the
 * sign applied by a mask, the range in use widened with min/max. */
static inline void add_scaled(struct fpd_superacc *s, bool negative, u128 m, int e)
{
    int pos = e - FPD_SUPERACC_LOW;
    int c = pos >> 5, shift = pos & 31;
    u128 low = m << shift;
    uint64_t top = (uint64_t)((m >> 1) >> (127 - shift)); /* the bits shifted past 128 (none for shift 0) */
    int64_t mask = -(int64_t)negative;                    /* 0 or -1: x ^ mask - mask negates when set */
    int64_t *chunk = &s->chunk[c];
    chunk[0] += ((int64_t)((uint64_t)low & 0xffffffffu) ^ mask) - mask;
    chunk[1] += ((int64_t)((uint64_t)(low >> 32) & 0xffffffffu) ^ mask) - mask;
    chunk[2] += ((int64_t)((uint64_t)(low >> 64) & 0xffffffffu) ^ mask) - mask;
    chunk[3] += ((int64_t)(uint64_t)(low >> 96) ^ mask) - mask;
    chunk[4] += ((int64_t)top ^ mask) - mask;
    s->lo = c < s->lo ? c : s->lo;
    s->hi = c + 4 > s->hi ? c + 4 : s->hi;
    if (++s->pending == PROPAGATE_EVERY)
        propagate(s);
}

/* Moves every large entry into the chunks. The entries whose weights fall in one chunk are summed
 * first, as a 128-bit integer aligned to the chunk (at most 33 entries below 2^63, each shifted by
 * under 32 bits: below 2^100), and the sum added once: one addition into five chunks per 32
 * exponents in use instead of one per entry. */
static void flush_all_large(struct fpd_superacc *s)
{
    int group = INT32_MIN; /* the chunk whose entries `sum` holds */
    __int128 sum = 0;
    for (int e = s->large_lo; e <= s->large_hi; e++) {
        int64_t v = s->large[e];
        s->large[e] = 0;
        int pos = (e ? e - 1075 : -1074) + s->large_shift - FPD_SUPERACC_LOW; /* of the entry's unit */
        if (pos >> 5 != group) {
            if (sum != 0)
                add_scaled(s, sum < 0, sum < 0 ? -(u128)sum : (u128)sum, group * 32 + FPD_SUPERACC_LOW);
            group = pos >> 5;
            sum = 0;
        }
        sum += (__int128)v * ((__int128)1 << (pos & 31));
    }
    if (sum != 0)
        add_scaled(s, sum < 0, sum < 0 ? -(u128)sum : (u128)sum, group * 32 + FPD_SUPERACC_LOW);
    s->large_lo = 2048;
    s->large_hi = -1;
    s->room = FPD_LARGE_ADDS << s->large_shift;
}

/* A finite nonzero double as significand * 2^exponent. */
static inline void decompose(double x, uint64_t *m, int *e, bool *negative)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    *negative = bits >> 63;
    int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t frac = bits & ((1ull << 52) - 1);
    if (biased == 0) {
        *m = frac;
        *e = -1074;
    } else {
        *m = frac | (1ull << 52);
        *e = biased - 1075;
    }
}

static void note_special(struct fpd_superacc *s, double value_sign_source, bool is_nan, bool is_inf)
{
    if (is_nan)
        s->nan = true;
    else if (is_inf && signbit(value_sign_source))
        s->neg_inf = true;
    else if (is_inf)
        s->pos_inf = true;
}

void fpd_superacc_add_product(struct fpd_superacc *s, double a, double b)
{
    s->any_term = true;
    if (!isfinite(a) || !isfinite(b)) {
        bool zero = (isfinite(a) && !(fabs(a) > 0)) || (isfinite(b) && !(fabs(b) > 0));
        bool negative = signbit(a) != signbit(b);
        note_special(s, negative ? -1.0 : 1.0, isnan(a) || isnan(b) || zero, true);
        s->all_negative_zero = false;
        return;
    }
    if (!(fabs(a) > 0) || !(fabs(b) > 0)) { /* an exact zero: only its sign matters */
        if (signbit(a) == signbit(b))
            s->all_negative_zero = false;
        return;
    }
    s->all_negative_zero = false;
    uint64_t ma, mb;
    int ea, eb;
    bool na, nb;
    decompose(a, &ma, &ea, &na);
    decompose(b, &mb, &eb, &nb);
    add_scaled(s, na != nb, (u128)ma * mb, ea + eb);
}

void fpd_superacc_add(struct fpd_superacc *s, double x)
{
    s->any_term = true;
    if (!isfinite(x)) {
        note_special(s, x, isnan(x), isinf(x));
        s->all_negative_zero = false;
        return;
    }
    if (!(fabs(x) > 0)) {
        if (!signbit(x))
            s->all_negative_zero = false;
        return;
    }
    s->all_negative_zero = false;
    uint64_t m;
    int e;
    bool negative;
    decompose(x, &m, &e, &negative);
    add_scaled(s, negative, m, e);
}

/* Turns the sum into sign and magnitude: afterwards every chunk in [lo, hi] is a digit in
 * [0, 2^32) and chunk[hi] is nonzero (or the sum is zero, hi < lo). Returns the sign. */
static bool to_magnitude(struct fpd_superacc *s)
{
    flush_all_large(s);
    propagate(s);
    bool negative = s->hi >= s->lo && s->chunk[s->hi] < 0;
    if (negative) {
        for (int i = s->lo; i <= s->hi; i++)
            s->chunk[i] = -s->chunk[i];
        propagate(s); /* the negated digits carry up into a non-negative magnitude */
    }
    while (s->hi >= s->lo && s->chunk[s->hi] == 0)
        s->hi--;
    return negative;
}

/* Digit c of the magnitude (after to_magnitude): 0 outside the chunks in use, c < 0 included. */
static inline uint64_t digit(const struct fpd_superacc *s, int c)
{
    return c >= s->lo && c <= s->hi ? (uint64_t)s->chunk[c] : 0;
}

/* Bits [pos, pos + count) of the magnitude as an integer (bit pos has weight 2^(pos + LOW)),
 * count <= 60: a window of the three digits that hold them. */
static uint64_t bits_at(const struct fpd_superacc *s, int pos, int count)
{
    int c = pos >> 5; /* floor(pos / 32): arithmetic shift, as everywhere in gcc and clang */
    u128 window = (u128)digit(s, c) | (u128)digit(s, c + 1) << 32 | (u128)digit(s, c + 2) << 64;
    return (uint64_t)(window >> (pos & 31)) & ((1ull << count) - 1);
}

/* Whether any bit below `pos` is set. */
static bool sticky_below(const struct fpd_superacc *s, int pos)
{
    if (pos <= 0)
        return false;
    int c = pos >> 5;
    for (int i = s->lo; i < c && i <= s->hi; i++)
        if (s->chunk[i])
            return true;
    if (c >= s->lo && c <= s->hi && (pos & 31))
        return ((uint64_t)s->chunk[c] & ((1ull << (pos & 31)) - 1)) != 0;
    return false;
}

static double special_result(const struct fpd_superacc *s, bool *done)
{
    *done = true;
    if (s->nan || (s->pos_inf && s->neg_inf))
        return NAN;
    if (s->pos_inf)
        return INFINITY;
    if (s->neg_inf)
        return -INFINITY;
    *done = false;
    return 0;
}

/* Rounds the magnitude (after to_magnitude) to type t. */
static double round_magnitude(const struct fpd_superacc *s, enum fpd_dtype t)
{
    const struct fpd_dtype_info *f = fpd_dtype_info(t);
    int top = s->hi * 32 + (63 - __builtin_clzll((uint64_t)s->chunk[s->hi])); /* the leading bit */
    int lead_exp = top + FPD_SUPERACC_LOW;
    if (lead_exp > f->emax)
        return INFINITY; /* at least 2^(emax + 1): beyond the largest finite value and half its ulp */
    int quantum_exp = (lead_exp < f->emin ? f->emin : lead_exp) - (f->precision - 1);
    int q = quantum_exp - FPD_SUPERACC_LOW; /* the position of the result's last place */
    uint64_t mant = q <= top ? bits_at(s, q, top - q + 1) : 0;
    unsigned guard = (unsigned)bits_at(s, q - 1, 1);
    if (guard && ((mant & 1) || sticky_below(s, q - 1)))
        mant++;
    /* mant * 2^quantum_exp (quantum_exp in [-1074, 971]) in two steps by normal powers of two:
     * the first stays in the normal range (mant <= 2^precision), so both are exact, the second
     * giving a value of t, or the next power of two above t's largest */
    int half = quantum_exp / 2;
    double r = (double)mant * fpd_pow2(half) * fpd_pow2(quantum_exp - half);
    return r > f->max_finite ? INFINITY : r;
}

double fpd_superacc_round(struct fpd_superacc *s, enum fpd_dtype t)
{
    bool done;
    double special = special_result(s, &done);
    if (done)
        return special;
    bool negative = to_magnitude(s);
    if (s->hi < s->lo)
        return s->all_negative_zero && s->any_term ? -0.0 : 0.0;
    double r = round_magnitude(s, t);
    return negative ? -r : r;
}

void fpd_superacc_split(struct fpd_superacc *s, enum fpd_dtype t, double *hi, double *lo, double *rounded)
{
    bool done;
    *rounded = *hi = special_result(s, &done);
    *lo = 0;
    if (done)
        return;
    bool negative = to_magnitude(s);
    if (s->hi < s->lo) {
        *rounded = *hi = s->all_negative_zero && s->any_term ? -0.0 : 0.0;
        return;
    }
    /* from the sum itself: hi rounded again to t would round twice (65520 - 2^-40 is 65520 in
     * binary64, which ties to Inf in binary16, where the sum's own nearest is 65504) */
    double in_t = round_magnitude(s, t), magnitude = round_magnitude(s, FPD_F64);
    *rounded = negative ? -in_t : in_t;
    *hi = negative ? -magnitude : magnitude;
    if (!isfinite(magnitude))
        return;
    /* |sum| - |hi|, exactly, then rounded: the part of the sum that hi leaves out */
    uint64_t m;
    int e;
    bool ignored;
    decompose(magnitude, &m, &e, &ignored);
    add_scaled(s, true, m, e);
    bool residual_negative = to_magnitude(s);
    double residual = s->hi < s->lo ? 0 : round_magnitude(s, FPD_F64);
    *lo = (residual_negative != negative) ? -residual : residual;
}

/* f64 products as their two exact halves (TwoProduct: p = x*y rounded, err = fma(x, y, -p)),
 * two large additions. The general path takes zeros, subnormals, Inf, NaN, overflow, and products
 * whose lower half could underflow (err >= 2^(e_p - 106) must stay normal). Compiled twice: with
 * the FMA instruction where the CPU has it, else with libm's fma (the same exact result). */
#define F64_PRODUCT_LOOP(FMA)                                                                      \
    const uint64_t frac = (1ull << 52) - 1, hidden = 1ull << 52;                                   \
    int64_t *large = s->large;                                                                     \
    int lo = s->large_lo, hi = s->large_hi;                                                        \
    uint32_t room = s->room;                                                                       \
    bool nonzero = false;                                                                          \
    for (size_t i = 0; i < n; i++) {                                                               \
        double x = a[i], y = b[i], p = x * y;                                                      \
        uint64_t bits;                                                                             \
        memcpy(&bits, &p, sizeof bits);                                                            \
        unsigned e = (unsigned)(bits >> 52) & 0x7ff;                                               \
        if (__builtin_expect(e - 108 >= 0x7fe - 108, 0)) {                                         \
            fpd_superacc_add_product(s, x, y);                                                     \
            continue;                                                                              \
        }                                                                                          \
        double err = FMA(x, y, -p);                                                                \
        uint64_t err_bits;                                                                         \
        memcpy(&err_bits, &err, sizeof err_bits);                                                  \
        unsigned f = (unsigned)(err_bits >> 52) & 0x7ff; /* normal or zero, by the range check */  \
        int64_t m = (int64_t)((bits & frac) | hidden), sign = -(int64_t)(bits >> 63);              \
        int64_t me = (int64_t)((err_bits & frac) | (f ? hidden : 0)), sign_e = -(int64_t)(err_bits >> 63); \
        large[e] += (m ^ sign) - sign;                                                             \
        large[f] += (me ^ sign_e) - sign_e;                                                        \
        unsigned low = f ? f : e; /* the error half is the smaller, when there is one */           \
        lo = (int)low < lo ? (int)low : lo;                                                        \
        hi = (int)e > hi ? (int)e : hi;                                                            \
        nonzero = true;                                                                            \
        if (__builtin_expect((room -= 2) < 2, 0)) {                                                \
            s->large_lo = lo, s->large_hi = hi;                                                    \
            flush_all_large(s);                                                                    \
            lo = s->large_lo, hi = s->large_hi, room = s->room;                                    \
        }                                                                                          \
    }                                                                                              \
    s->large_lo = lo, s->large_hi = hi;                                                            \
    s->room = room;                                                                                \
    return nonzero;

static bool add_f64_products(struct fpd_superacc *s, const double *a, const double *b, size_t n)
{
    F64_PRODUCT_LOOP(fma)
}

#if defined(__x86_64__)
__attribute__((target("fma"))) static bool add_f64_products_fma(struct fpd_superacc *s, const double *a,
                                                                 const double *b, size_t n)
{
    F64_PRODUCT_LOOP(__builtin_fma)
}
#endif

/* Products of values with at most 24 significant bits (f32, f16, bf16 inputs) are exact in
 * binary64 and have at most 48 significant bits: the low 5 bits of the significand are zero, so
 * a large entry takes 2^15 of them between spills (large_shift 5). The loop keeps its state in
 * registers, the range of exponents in use among it (which the flush then scans). */
static bool add_exact_products(struct fpd_superacc *s, const double *a, const double *b, size_t n)
{
    const uint64_t frac = (1ull << 52) - 1, hidden = 1ull << 52;
    int64_t *large = s->large;
    int lo = s->large_lo, hi = s->large_hi;
    uint32_t room = s->room;
    bool nonzero = false;
    for (size_t i = 0; i < n; i++) {
        double x = a[i], y = b[i], p = x * y;
        uint64_t bits;
        memcpy(&bits, &p, sizeof bits);
        unsigned e = (unsigned)(bits >> 52) & 0x7ff;
        if (__builtin_expect(e - 1 >= 0x7fe, 0)) { /* zero, Inf or NaN (never subnormal) */
            fpd_superacc_add_product(s, x, y);
            continue;
        }
        int64_t m = (int64_t)(((bits & frac) | hidden) >> 5), sign = -(int64_t)(bits >> 63);
        large[e] += (m ^ sign) - sign;
        nonzero = true;
        lo = (int)e < lo ? (int)e : lo;
        hi = (int)e > hi ? (int)e : hi;
        if (__builtin_expect(--room == 0, 0)) {
            s->large_lo = lo, s->large_hi = hi;
            flush_all_large(s);
            lo = s->large_lo, hi = s->large_hi, room = s->room;
        }
    }
    s->large_lo = lo, s->large_hi = hi;
    s->room = room;
    return nonzero;
}

/* Adds a[0..n) · b[0..n), one product at a time; whether any product is nonzero. */
static bool add_products(struct fpd_superacc *s, const double *a, const double *b, size_t n, bool exact_products)
{
    if (exact_products)
        return add_exact_products(s, a, b, n);
#if defined(__x86_64__)
    return fpd_vector_width() >= FPD_VECTOR_AVX2 ? add_f64_products_fma(s, a, b, n) : add_f64_products(s, a, b, n);
#else
    return add_f64_products(s, a, b, n);
#endif
}

/* x (finite, nonzero) into the chunks. */
static void add_part(struct fpd_superacc *s, double x)
{
    uint64_t m;
    int e;
    bool negative;
    decompose(x, &m, &e, &negative);
    add_scaled(s, negative, m, e);
}

/* Accumulates the dot product (and bias) into s, ready to round or split: FPD_EXTRACT_TERMS
 * products at a time, each run's exact sum as the few parts extraction makes of it (extract.h),
 * or, where it does not hold, product by product. */
static void accumulate_dot(struct fpd_superacc *s, const double *a, const double *b, size_t n, bool with_bias,
                           double bias, enum fpd_dtype in)
{
    fpd_superacc_reset(s);
    if (with_bias)
        fpd_superacc_add(s, bias);
    bool exact_products = in != FPD_F64, nonzero = false;
    s->large_shift = exact_products ? 5 : 0;
    s->room = FPD_LARGE_ADDS << s->large_shift;
    for (size_t from = 0; from < n; from += FPD_EXTRACT_TERMS) {
        size_t run = n - from < FPD_EXTRACT_TERMS ? n - from : FPD_EXTRACT_TERMS;
        double parts[FPD_EXTRACT_LEVELS];
        int count = fpd_extract_dot(a + from, b + from, run, NULL, !exact_products, s->work, parts);
        if (count < 0) {
            nonzero |= add_products(s, a + from, b + from, run, exact_products);
            continue;
        }
        for (int i = 0; i < count; i++)
            add_part(s, parts[i]);
        nonzero = true; /* extraction takes only terms of which one at least is not zero */
    }
    if (nonzero) {
        s->any_term = true;
        s->all_negative_zero = false;
    }
}

/* The binary64 value next to the exact sum hi + lo (hi = RN(hi + lo), lo = the rest) that has an
 * odd significand, or hi where lo is 0: the sum rounded to odd, which a rounding to nearest of 51
 * bits or fewer takes to what it would give the sum itself (Boldo and Melquiond, "Emulation of
 * FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE Trans. Computers
 * 57(4), 2008): a narrower type's midpoints are binary64 values, which no rounding to odd reaches
 * from a sum that is not one. */
static double rounded_to_odd(double hi, double lo)
{
    uint64_t bits;
    memcpy(&bits, &hi, sizeof bits);
    if (!(fabs(lo) > 0) || (bits & 1))
        return hi;
    return nextafter(hi, lo > 0 ? INFINITY : -INFINITY);
}

enum short_dot { SHORT_DONE, SHORT_IN_ACC, SHORT_NOT };

/* A dot product of one run (n <= FPD_EXTRACT_TERMS) as its extracted parts (extract.h). Where
 * there are two at most, TwoSum makes hi = RN(sum) and lo = sum - hi exactly, and the sum's
 * rounding to t comes from them (rounded_to_odd): SHORT_DONE. Where there are more, they are left
 * in s, ready to round or split (SHORT_IN_ACC); where extraction does not hold, nothing is done. */
static enum short_dot short_dot(struct fpd_superacc *s, const double *a, const double *b, size_t n, bool with_bias,
                                double bias, enum fpd_dtype in, enum fpd_dtype t, double *hi, double *lo,
                                double *rounded)
{
    double parts[FPD_EXTRACT_LEVELS];
    int count = n <= FPD_EXTRACT_TERMS
                    ? fpd_extract_dot(a, b, n, with_bias ? &bias : NULL, in == FPD_F64, s->work, parts)
                    : -1;
    if (count < 0)
        return SHORT_NOT;
    if (count > 2) {
        fpd_superacc_reset(s);
        for (int i = 0; i < count; i++)
            add_part(s, parts[i]);
        s->any_term = true; /* a term at least is not zero: an exact zero sum is +0 */
        s->all_negative_zero = false;
        return SHORT_IN_ACC;
    }
    double x = count > 0 ? parts[0] : 0, y = count > 1 ? parts[1] : 0;
    double sum = x + y, z = sum - x; /* TwoSum: sum + rest = x + y exactly */
    double rest = (x - (sum - z)) + (y - z);
    *hi = sum;
    *lo = fabs(rest) > 0 ? rest : copysign(0, sum); /* a zero rest signed as the sum: as the split's */
    *rounded = t == FPD_F64 ? sum : fpd_round(t, rounded_to_odd(sum, rest));
    return SHORT_DONE;
}

double fpd_exact_dot(struct fpd_superacc *s, const double *a, const double *b, size_t n, bool with_bias, double bias,
                     enum fpd_dtype in, enum fpd_dtype t)
{
    double hi, lo, rounded;
    enum short_dot fast = short_dot(s, a, b, n, with_bias, bias, in, t, &hi, &lo, &rounded);
    if (fast == SHORT_DONE)
        return rounded;
    if (fast == SHORT_NOT)
        accumulate_dot(s, a, b, n, with_bias, bias, in);
    return fpd_superacc_round(s, t);
}

void fpd_exact_dot_split(struct fpd_superacc *s, const double *a, const double *b, size_t n, bool with_bias, double bias,
                         enum fpd_dtype in, enum fpd_dtype t, double *hi, double *lo, double *rounded)
{
    enum short_dot fast = short_dot(s, a, b, n, with_bias, bias, in, t, hi, lo, rounded);
    if (fast == SHORT_DONE)
        return;
    if (fast == SHORT_NOT)
        accumulate_dot(s, a, b, n, with_bias, bias, in);
    fpd_superacc_split(s, t, hi, lo, rounded);
}

/* The sign of the (finite) sum: -1, 0 or 1, exactly. Consumes s. */
static int superacc_sign(struct fpd_superacc *s)
{
    bool negative = to_magnitude(s);
    return s->hi < s->lo ? 0 : negative ? -1 : 1;
}

/* x's neighbour in type t toward +Inf (up) or -Inf: a step of its significand's last bit (past the
 * largest finite value, Inf). */
static double neighbour(enum fpd_dtype t, double x, bool up)
{
    uint64_t sign = (uint64_t)1 << (fpd_bits_width(t) - 1);
    uint64_t bits = fpd_bits_of_value(t, x) & ~(fabs(x) > 0 ? 0 : sign); /* -0 steps as +0 does */
    bool away = up == !(bits & sign); /* from zero */
    if (away)
        return fpd_value_of_bits(t, bits + 1);
    return (bits & ~sign) == 0 ? fpd_value_of_bits(t, (bits ^ sign) | 1) : fpd_value_of_bits(t, bits - 1);
}

/* sign(S - d (r + step / 2)): where S / d lies against the midpoint of r and its neighbour r +
 * step, exactly (d, r and step / 2's products are formed exactly in the accumulator). */
static int against_midpoint(struct fpd_superacc *s, const double *a, const double *b, size_t n, enum fpd_dtype in,
                            double d, double r, double step)
{
    accumulate_dot(s, a, b, n, false, 0, in);
    fpd_superacc_add_product(s, -d, r);
    fpd_superacc_add_product(s, -d / 2, step);
    return superacc_sign(s);
}

void fpd_exact_dot_quotient(struct fpd_superacc *s, const double *a, const double *b, size_t n, double d,
                            enum fpd_dtype in, enum fpd_dtype t, double *hi, double *lo, double *rounded)
{
    double s_hi, s_lo, s_rounded;
    accumulate_dot(s, a, b, n, false, 0, in);
    bool finite = !s->nan && !s->pos_inf && !s->neg_inf; /* every term finite: the sum is a number */
    fpd_superacc_split(s, t, &s_hi, &s_lo, &s_rounded);
    *lo = 0;
    if (!finite || !(fabs(s_hi) > 0)) { /* Inf or NaN, or an exact zero (its sign kept): as the sum is */
        *hi = *rounded = finite ? s_rounded : s_hi / d;
        return;
    }
    double scale = 1;
    if (isinf(s_hi)) {
        /* a finite sum beyond binary64 (binary64 inputs near its largest): its estimate from the
         * terms times 2^-64 (only terms below 2^-1010 lose bits, nothing beside such a sum), the
         * decision below from the sum itself */
        fpd_superacc_reset(s);
        for (size_t p = 0; p < n; p++)
            fpd_superacc_add_product(s, a[p], ldexp(b[p], -64));
        fpd_superacc_split(s, FPD_F64, &s_hi, &s_lo, &s_rounded);
        scale = 0x1p64;
    }
    /* S / d as hi + lo: hi's remainder formed exactly by the FMA */
    double q = s_hi / d, remainder = fma(-q, d, s_hi);
    *hi = q * scale;
    *lo = (remainder + s_lo) / d * scale;
    /* hi + lo is within binary64's rounding of S / d (relative 2^-100, away from the subnormals), so
     * its nearest in t is the correctly rounded quotient or a neighbour; which, the midpoints on either
     * side tell: where hi + lo lies clearly on one side (by 2^-60 of it), it does; else S is compared
     * with d times the midpoint exactly, another pass over the terms (from the largest finite value,
     * the midpoint above is the overflow threshold) */
    double r = fpd_round(t, *hi + *lo);
    if (isinf(r))
        r = copysign(fpd_dtype_info(t)->max_finite, r);
    for (int side = 0; side < 2; side++) {
        bool up = side == 0;
        double next = neighbour(t, r, up);
        double step = isinf(next) ? r - neighbour(t, r, !up) : next - r;
        /* (hi - r) is exact (they are a step of t apart at most), as is step / 2 */
        double past = ((*hi - r) - step / 2) + *lo; /* hi + lo less the midpoint: where's estimate */
        /* the estimate's error: relative, and absolute where the quotient is near binary64's
         * subnormals (its division and remainder round there): every such quotient is tested */
        double margin = 0x1p-60 * (fabs(r) + fabs(step)) + 0x1p-1000;
        int where = fabs(past) > margin ? (past > 0 ? 1 : -1) : against_midpoint(s, a, b, n, in, d, r, step);
        if (where == 0) { /* a tie: to the even one */
            *rounded = (fpd_bits_of_value(t, r) & 1) ? next : r;
            return;
        }
        if ((where > 0) == up) {
            *rounded = next;
            return;
        }
    }
    *rounded = r;
}
