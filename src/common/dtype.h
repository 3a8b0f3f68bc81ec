/* dtype.h — storage types: properties, exact round-to-nearest-even conversions, ulp distance. */
#ifndef FPD_DTYPE_H
#define FPD_DTYPE_H

#include <string.h>

#include "fpdiv_backend.h"

struct fpd_dtype_info {
    const char *name;
    const char *doc;
    size_t size;      /* bytes per element */
    int precision;    /* significand bits, hidden bit included */
    int emin, emax;   /* exponent range of normal numbers */
    double unit_roundoff; /* u = 2^-precision */
    double underflow;     /* eta: the smallest subnormal, a safe bound on one rounding's absolute error */
    double max_finite;
};

extern const struct fpd_dtype_info fpd_dtype_table[FPD_DTYPE_COUNT];

static inline const struct fpd_dtype_info *fpd_dtype_info(enum fpd_dtype t) { return &fpd_dtype_table[t]; }

/* Name lookup: returns FPD_OK or FPD_ERR_INPUT. */
int fpd_dtype_parse(const char *name, enum fpd_dtype *out);

/*
 * "IN[:OUT[:ACC]]". Defaults: f64 and f32 accumulate and output in their own type; f16 and bf16
 * output and accumulate in f32 (the mixed-precision GEMM frameworks use), so "bf16" means
 * bf16:f32:f32 and "bf16:bf16" means bf16 in and out with f32 accumulation.
 */
int fpd_dtypes_parse(const char *spec, struct fpd_dtypes *out, char *why, size_t why_size);
/* Whether the combination is meaningful: acc at least as wide as in and as out. */
bool fpd_dtypes_valid(const struct fpd_dtypes *dt, char *why, size_t why_size);
/* Canonical short form ("bf16", "f16:f16", "f32:f32:f64"); buf of at least 16 bytes. */
const char *fpd_dtypes_format(const struct fpd_dtypes *dt, char *buf, size_t size);
bool fpd_dtypes_equal(const struct fpd_dtypes *a, const struct fpd_dtypes *b);

/* x rounded to the nearest value of type t, ties to even; overflow gives ±Inf, NaN stays NaN. */
double fpd_round(enum fpd_dtype t, double x);

/* How far magnitude x_abs lies below type t's overflow threshold: its largest finite value plus
 * half an ulp, from which on round-to-nearest gives ±Inf (65520 for f16); negative beyond it.
 * Computed without forming the threshold, which for f64 is beyond binary64's own range. */
double fpd_below_overflow(enum fpd_dtype t, double x_abs);

/* x[0..count) into elements at, at + stride, at + 2 stride, …, as fpd_store does one by one. */
void fpd_store_run(enum fpd_dtype t, void *p, size_t at, size_t stride, const double *x, size_t count);
/* The smallest and the largest magnitude among count elements from p that are finite and not zero,
 * into *smallest and *largest (which keep what they held where they are smaller, larger): a loop
 * per type, which vectorizes, not a load through the type's switch per element. */
void fpd_magnitude_extremes(enum fpd_dtype t, const void *p, size_t count, double *smallest, double *largest);
/* The value raw bits encode (fpd_bits, below, reads an element's bits). */
double fpd_value_of_bits(enum fpd_dtype t, uint64_t bits);
void fpd_store_bits(enum fpd_dtype t, void *p, size_t i, uint64_t bits);
/* The bits of x rounded to type t (RNE). */
uint64_t fpd_bits_of_value(enum fpd_dtype t, double x);

/* Scalar conversions with the same rounding rules. */
uint16_t fpd_f16_from_double(double x);
uint16_t fpd_bf16_from_float(float x);
uint16_t fpd_bf16_from_double(double x);

/* Decoding, exact, in integer operations and selects only: no branch or call in the per-element
 * loops that read 16-bit types (comparison, magnitudes, staging), which can then vectorize (bf16's
 * do; gcc 12 still leaves f16's scalar). */
static inline double fpd_f16_to_double(uint16_t h)
{
    uint64_t sign = (uint64_t)(h & 0x8000) << 48;
    uint32_t exponent = (h >> 10) & 0x1f, significand = h & 0x3ff;
    uint64_t normal = (uint64_t)(exponent + 1008) << 52 | (uint64_t)significand << 42; /* rebiased: 15 to 1023 */
    /* a subnormal is significand x 2^-24: the significand as a double (exact; signed, a
     * conversion every vector width has), 24 binades down */
    double as_double = (double)(int32_t)significand;
    uint64_t as_bits;
    memcpy(&as_bits, &as_double, sizeof as_bits);
    uint64_t subnormal = significand ? as_bits - (24ull << 52) : 0;
    /* Inf, or a quiet NaN carrying the payload's low 9 bits in the double's top payload bits */
    uint64_t special = 0x7ff0000000000000ull | (significand ? 0x0008000000000000ull | (uint64_t)(significand & 0x1ff) << 42 : 0);
    uint64_t bits = sign | (exponent == 0x1f ? special : exponent ? normal : subnormal);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static inline float fpd_bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}
/* Round a float accumulator to f16 / bf16 and back (for emulated low-precision accumulation). */
float fpd_round_f32_to_f16(float x);
float fpd_round_f32_to_bf16(float x);
/* a * b + c rounded once to f16 / bf16 (a, b, c values of that type), returned as a float. */
float fpd_fma_f16(float a, float b, float c);
float fpd_fma_bf16(float a, float b, float c);

/* Element access on typed storage; load is exact, store rounds (RNE). Inline: they sit in the
 * per-element loops of comparison, bias and staging, where a call per element cost a tenth of a
 * large check's time. */
static inline double fpd_load(enum fpd_dtype t, const void *p, size_t i)
{
    switch (t) {
    case FPD_F64: return ((const double *)p)[i];
    case FPD_F32: return ((const float *)p)[i];
    case FPD_F16: return fpd_f16_to_double(((const uint16_t *)p)[i]);
    case FPD_BF16: return fpd_bf16_to_float(((const uint16_t *)p)[i]);
    default: return __builtin_nan("");
    }
}

static inline void fpd_store(enum fpd_dtype t, void *p, size_t i, double x)
{
    switch (t) {
    case FPD_F64: ((double *)p)[i] = x; break;
    case FPD_F32: ((float *)p)[i] = (float)x; break;
    case FPD_F16: ((uint16_t *)p)[i] = fpd_f16_from_double(x); break;
    case FPD_BF16: ((uint16_t *)p)[i] = fpd_bf16_from_double(x); break;
    default: break;
    }
}

/* Raw bits of element i, zero-extended. */
static inline uint64_t fpd_bits(enum fpd_dtype t, const void *p, size_t i)
{
    switch (t) { /* by type, not size: a call with a known type keeps only its own branch */
    case FPD_F64: {
        uint64_t v;
        memcpy(&v, (const char *)p + 8 * i, 8);
        return v;
    }
    case FPD_F32: {
        uint32_t v;
        memcpy(&v, (const char *)p + 4 * i, 4);
        return v;
    }
    default: {
        uint16_t v;
        memcpy(&v, (const char *)p + 2 * i, 2);
        return v;
    }
    }
}

/*
 * Convert a rows x cols matrix between types (row-major, leading dimensions in elements).
 * Rounds once, RNE, from the exact source value.
 */
/* The leading dimension of a matrix stored by rows of `cols` elements (plus `pad`): BLAS asks for at
 * least 1, also where k = 0 leaves the rows empty (the reference BLAS exits on lda = 0). */
static inline size_t fpd_leading_dimension(size_t cols, size_t pad) { return (cols ? cols : 1) + pad; }

void fpd_convert_matrix(size_t rows, size_t cols, enum fpd_dtype src_t, const void *src, size_t src_ld,
                        enum fpd_dtype dst_t, void *dst, size_t dst_ld);

/* The bit layout of type t: total width and significand field. Inline, so that where t is a
 * constant (the per-element loops of comparison, specialized by type) everything below folds. */
static inline unsigned fpd_bits_width(enum fpd_dtype t) { return t == FPD_F64 ? 64 : t == FPD_F32 ? 32 : 16; }
static inline unsigned fpd_bits_significand(enum fpd_dtype t)
{
    return t == FPD_F64 ? 52 : t == FPD_F32 ? 23 : t == FPD_F16 ? 10 : 7;
}

/* The exponent field of type t, in place: all ones in a value's bits there make it Inf or NaN. */
static inline uint64_t fpd_exponent_mask(enum fpd_dtype t)
{
    unsigned total = fpd_bits_width(t), mant_bits = fpd_bits_significand(t);
    return ((1ull << (total - 1 - mant_bits)) - 1) << mant_bits;
}

enum fpd_fp_class { FPD_CLASS_FINITE, FPD_CLASS_POS_INF, FPD_CLASS_NEG_INF, FPD_CLASS_NAN };
static inline enum fpd_fp_class fpd_classify_bits(enum fpd_dtype t, uint64_t bits)
{
    uint64_t exp_mask = fpd_exponent_mask(t), mant_mask = (1ull << fpd_bits_significand(t)) - 1;
    if ((bits & exp_mask) != exp_mask)
        return FPD_CLASS_FINITE;
    if (bits & mant_mask)
        return FPD_CLASS_NAN;
    return (bits >> (fpd_bits_width(t) - 1)) & 1 ? FPD_CLASS_NEG_INF : FPD_CLASS_POS_INF;
}

/*
 * Distance in units in the last place between two finite values of type t, counted as the
 * number of representable values between them (+0 and -0 are the same point).
 */
static inline uint64_t fpd_ulp_distance(enum fpd_dtype t, uint64_t bits_a, uint64_t bits_b)
{
    /* On an integer line where adjacent representable values are adjacent integers: the magnitude,
     * negated (two's complement) when the sign bit is set. Without branches: comparison runs it
     * on every element of an output, whose signs are random (a branch on them mispredicts half
     * the time) and which vectorizes without them. */
    unsigned top = fpd_bits_width(t) - 1;
    uint64_t neg_a = -((bits_a >> top) & 1), neg_b = -((bits_b >> top) & 1); /* all ones if negative */
    uint64_t magnitude = (1ull << top) - 1;
    uint64_t a = ((bits_a & magnitude) ^ neg_a) - neg_a, b = ((bits_b & magnitude) ^ neg_b) - neg_b;
    /* The true distance is below 2^64, so wrap-around subtraction gives it exactly; negated when
     * b lies above a. */
    uint64_t d = a - b, b_above = -(uint64_t)((int64_t)a < (int64_t)b);
    return (d ^ b_above) - b_above;
}

/* 2^e for a normal-range e (-1022 <= e <= 1023), built from its bits: an exact scale factor,
 * without libm's ldexp. */
static inline double fpd_pow2(int e)
{
    uint64_t bits = (uint64_t)(e + 1023) << 52;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Bitwise equality of two values; NaNs are equal to each other whatever their payload. */
static inline bool fpd_same_value_bits(enum fpd_dtype t, uint64_t bits_a, uint64_t bits_b)
{
    return bits_a == bits_b ||
           (fpd_classify_bits(t, bits_a) == FPD_CLASS_NAN && fpd_classify_bits(t, bits_b) == FPD_CLASS_NAN);
}

#endif
