/* exact.c — the superaccumulator. Integer arithmetic only: nothing here depends on rounding mode. */
#include "exact.h"

#include <math.h>
#include <string.h>

#include "dtype.h"

typedef unsigned __int128 u128;

enum { PROPAGATE_EVERY = 1 << 30 }; /* each addition adds < 2^32 to a chunk: 2^30 of them fit in 2^62 */

void fpd_superacc_reset(struct fpd_superacc *s)
{
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

/* s += sign * m * 2^e, m < 2^106. */
static inline void add_scaled(struct fpd_superacc *s, bool negative, u128 m, int e)
{
    int pos = e - FPD_SUPERACC_LOW;
    int c = pos >> 5, shift = pos & 31;
    u128 low = m << shift;
    uint64_t top = shift ? (uint64_t)(m >> (128 - shift)) : 0;
    uint64_t digits[5] = {(uint64_t)low & 0xffffffffu, (uint64_t)(low >> 32) & 0xffffffffu,
                          (uint64_t)(low >> 64) & 0xffffffffu, (uint64_t)(low >> 96), top};
    int used = top ? 5 : digits[3] ? 4 : digits[2] ? 3 : digits[1] ? 2 : 1;
    for (int d = 0; d < used; d++)
        s->chunk[c + d] += negative ? -(int64_t)digits[d] : (int64_t)digits[d];
    if (c < s->lo)
        s->lo = c;
    if (c + used - 1 > s->hi)
        s->hi = c + used - 1;
    if (++s->pending == PROPAGATE_EVERY)
        propagate(s);
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

/* Bit `pos` (weight 2^(pos + LOW)) of the magnitude. */
static inline unsigned bit_at(const struct fpd_superacc *s, int pos)
{
    int c = pos >> 5;
    if (pos < 0 || c < s->lo || c > s->hi)
        return 0;
    return (unsigned)((uint64_t)s->chunk[c] >> (pos & 31)) & 1u;
}

/* Bits [pos, pos + count) as an integer, count <= 60. */
static uint64_t bits_at(const struct fpd_superacc *s, int pos, int count)
{
    uint64_t v = 0;
    for (int i = count - 1; i >= 0; i--)
        v = (v << 1) | bit_at(s, pos + i);
    return v;
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
    int quantum_exp = (lead_exp < f->emin ? f->emin : lead_exp) - (f->precision - 1);
    int q = quantum_exp - FPD_SUPERACC_LOW; /* the position of the result's last place */
    uint64_t mant = q <= top ? bits_at(s, q, top - q + 1) : 0;
    unsigned guard = bit_at(s, q - 1);
    if (guard && ((mant & 1) || sticky_below(s, q - 1)))
        mant++;
    double r = ldexp((double)mant, quantum_exp); /* exact: mant <= 2^precision */
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

void fpd_superacc_split(struct fpd_superacc *s, double *hi, double *lo)
{
    bool done;
    *hi = special_result(s, &done);
    *lo = 0;
    if (done)
        return;
    bool negative = to_magnitude(s);
    if (s->hi < s->lo) {
        *hi = s->all_negative_zero && s->any_term ? -0.0 : 0.0;
        return;
    }
    double magnitude = round_magnitude(s, FPD_F64);
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

double fpd_exact_dot(struct fpd_superacc *s, const double *a, ptrdiff_t sa, const double *b, ptrdiff_t sb, size_t n,
                     bool with_bias, double bias, enum fpd_dtype t)
{
    fpd_superacc_reset(s);
    if (with_bias)
        fpd_superacc_add(s, bias);
    for (size_t i = 0; i < n; i++)
        fpd_superacc_add_product(s, a[(ptrdiff_t)i * sa], b[(ptrdiff_t)i * sb]);
    return fpd_superacc_round(s, t);
}
