/* dtype.c — storage types and their conversions. Every rounding here is once, to nearest even. */
#include "common/dtype.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/table.h"
#include "cpu/clones.h"

/* Written out rather than computed: these are the constants the numerics rest on. */
const struct fpd_dtype_info fpd_dtype_table[FPD_DTYPE_COUNT] = {
    [FPD_F64] = {"f64", "IEEE binary64 (double)", 8, 53, -1022, 1023, 0x1p-53, 0x1p-1074, DBL_MAX},
    [FPD_F32] = {"f32", "IEEE binary32 (float)", 4, 24, -126, 127, 0x1p-24, 0x1p-149, FLT_MAX},
    [FPD_F16] = {"f16", "IEEE binary16 (half)", 2, 11, -14, 15, 0x1p-11, 0x1p-24, 65504.0},
    [FPD_BF16] = {"bf16", "bfloat16: binary32 range, 8-bit significand", 2, 8, -126, 127, 0x1p-8, 0x1p-133,
                  0x1.fep127},
};

int fpd_dtype_parse(const char *name, enum fpd_dtype *out)
{
    long t = FPD_TABLE_FIND(fpd_dtype_table, FPD_DTYPE_COUNT, name);
    if (t < 0)
        return FPD_ERR_INPUT;
    *out = (enum fpd_dtype)t;
    return FPD_OK;
}

static bool is_low_precision(enum fpd_dtype t) { return t == FPD_F16 || t == FPD_BF16; }

/* Width order used by the validity rule: f16 and bf16 are both "16-bit". */
static int dtype_rank(enum fpd_dtype t) { return t == FPD_F64 ? 3 : t == FPD_F32 ? 2 : 1; }

static enum fpd_dtype default_wide(enum fpd_dtype in) { return is_low_precision(in) ? FPD_F32 : in; }

/* The accumulator "IN:OUT" implies, by the parse rule above. */
static enum fpd_dtype implied_acc(enum fpd_dtype in, enum fpd_dtype out)
{
    enum fpd_dtype acc = default_wide(in);
    return dtype_rank(acc) < dtype_rank(out) ? out : acc;
}

bool fpd_dtypes_valid(const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    const char *in = fpd_dtype_table[dt->in].name, *out = fpd_dtype_table[dt->out].name;
    const char *acc = fpd_dtype_table[dt->acc].name;
    if (dtype_rank(dt->acc) < dtype_rank(dt->in)) {
        snprintf(why, why_size, "accumulate type %s is narrower than input type %s", acc, in);
        return false;
    }
    if (dtype_rank(dt->acc) < dtype_rank(dt->out)) {
        snprintf(why, why_size, "accumulate type %s is narrower than output type %s", acc, out);
        return false;
    }
    if (is_low_precision(dt->acc) && dt->acc != dt->in) {
        snprintf(why, why_size, "a 16-bit accumulator must have the input's type (%s), not %s", in, acc);
        return false;
    }
    return true;
}

int fpd_dtypes_parse(const char *spec, struct fpd_dtypes *out, char *why, size_t why_size)
{
    char buf[64];
    if (strlen(spec) >= sizeof buf) {
        snprintf(why, why_size, "dtype '%s' is too long", spec);
        return FPD_ERR_INPUT;
    }
    strcpy(buf, spec);
    char *fields[3] = {NULL, NULL, NULL};
    int nfields = 0;
    for (char *p = buf, *tok; nfields <= 3 && (tok = strsep(&p, ":")) != NULL;) {
        if (nfields == 3) {
            snprintf(why, why_size, "dtype '%s' has more than three fields (IN[:OUT[:ACC]])", spec);
            return FPD_ERR_INPUT;
        }
        fields[nfields++] = tok;
    }
    enum fpd_dtype parsed[3] = {FPD_F32, FPD_F32, FPD_F32};
    for (int i = 0; i < nfields; i++) {
        if (fpd_dtype_parse(fields[i], &parsed[i]) != FPD_OK) {
            snprintf(why, why_size, "unknown dtype '%s' in '%s' (expected f64, f32, f16 or bf16)", fields[i],
                     spec);
            return FPD_ERR_INPUT;
        }
    }
    out->in = parsed[0];
    out->out = nfields > 1 ? parsed[1] : default_wide(parsed[0]);
    /* "f32:f64" means f64 accumulation rather than an invalid request */
    out->acc = nfields > 2 ? parsed[2] : implied_acc(out->in, out->out);
    if (!fpd_dtypes_valid(out, why, why_size))
        return FPD_ERR_INPUT;
    return FPD_OK;
}

const char *fpd_dtypes_format(const struct fpd_dtypes *dt, char *buf, size_t size)
{
    const char *in = fpd_dtype_table[dt->in].name, *out = fpd_dtype_table[dt->out].name;
    bool acc_implied = dt->acc == implied_acc(dt->in, dt->out);
    if (acc_implied && dt->out == default_wide(dt->in))
        snprintf(buf, size, "%s", in);
    else if (acc_implied)
        snprintf(buf, size, "%s:%s", in, out);
    else
        snprintf(buf, size, "%s:%s:%s", in, out, fpd_dtype_table[dt->acc].name);
    return buf;
}

bool fpd_dtypes_equal(const struct fpd_dtypes *a, const struct fpd_dtypes *b)
{
    return a->in == b->in && a->out == b->out && a->acc == b->acc;
}

/*
 * Round a finite double to `precision` (< 52) significand bits with normal exponents down to
 * `emin` (below it the quantum stays 2^(emin-precision+1): subnormals), in the default rounding
 * mode (RNE, which fpdiv keeps: fpenv.c). Adding 1.5 * 2^(quantum+52) puts x in a binade whose
 * ulp is the quantum, so the addition rounds x once, to a multiple of the quantum; subtracting
 * it back is exact (the build has no -ffast-math, which would fold the two away). Overflow is
 * decided after rounding, as IEEE does.
 */
#if FLT_EVAL_METHOD != 0
#error "round_to_format needs each double operation rounded to double (no x87 excess precision)"
#endif
static double round_to_format(double x, const struct fpd_dtype_info *f)
{
    if (!isfinite(x) || !(fabs(x) > 0))
        return x;
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int lead = (int)(bits >> 52 & 0x7ff) - 1023; /* the leading bit's exponent (below -1022 for subnormal x) */
    if (lead > f->emax)
        return copysign(INFINITY, x); /* at least 2^(emax + 1): beyond the largest finite and half its ulp */
    int quantum = (lead < f->emin ? f->emin : lead) - (f->precision - 1);
    double shift = 1.5 * fpd_pow2(quantum + 52);
    double r = copysign((x + shift) - shift, x); /* a negative x that rounds to zero gives -0 */
    if (fabs(r) > f->max_finite)
        return copysign(INFINITY, x);
    return r;
}

double fpd_below_overflow(enum fpd_dtype t, double x_abs)
{
    const struct fpd_dtype_info *f = fpd_dtype_info(t);
    return (f->max_finite - x_abs) + ldexp(1, f->emax - f->precision); /* half an ulp of the largest */
}

double fpd_round(enum fpd_dtype t, double x)
{
    if (t == FPD_F64)
        return x;
    if (t == FPD_F32)
        return (double)(float)x; /* the hardware conversion is RNE and single-rounding */
    return round_to_format(x, &fpd_dtype_table[t]);
}

/* Encode a value already representable in binary16. */
static uint16_t f16_encode_exact(double r)
{
    uint16_t sign = signbit(r) ? 0x8000 : 0;
    double a = fabs(r);
    if (isnan(r))
        return sign | 0x7e00;
    if (isinf(r))
        return sign | 0x7c00;
    if (a < 0x1p-14)
        return sign | (uint16_t)(a * 0x1p24); /* subnormal (or zero): an exact integer count of 2^-24 */
    int e;
    double frac = frexp(a, &e); /* a = frac * 2^e, frac in [0.5, 1) */
    uint16_t mant = (uint16_t)((frac * 2.0 - 1.0) * 1024.0);
    return sign | (uint16_t)((e - 1 + 15) << 10) | mant;
}

uint16_t fpd_f16_from_double(double x)
{
    if (isnan(x)) {
        /* keep the sign and the top payload bits, force quiet so it cannot turn into an Inf */
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        return (uint16_t)(((bits >> 48) & 0x8000) | 0x7e00 | ((bits >> 42) & 0x01ff));
    }
    return f16_encode_exact(round_to_format(x, &fpd_dtype_table[FPD_F16]));
}

uint16_t fpd_bf16_from_float(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((bits >> 16) | 0x0040); /* NaN: keep sign and top payload, make it quiet */
    /* RNE on the integer: add half a bf16 ulp minus one, plus the kept lsb to break ties to even.
     * A carry out of the significand bumps the exponent, which is exactly right, up to Inf. */
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

uint16_t fpd_bf16_from_double(double x)
{
    /* Round once, to 8 bits, from the exact double; the result is exact in float. */
    if (isnan(x))
        return fpd_bf16_from_float((float)x);
    return fpd_bf16_from_float((float)round_to_format(x, &fpd_dtype_table[FPD_BF16]));
}

float fpd_round_f32_to_f16(float x) { return (float)fpd_f16_to_double(fpd_f16_from_double(x)); }
float fpd_round_f32_to_bf16(float x) { return fpd_bf16_to_float(fpd_bf16_from_float(x)); }

/*
 * a * b + c, rounded to odd in binary64, then to nearest even in the 16-bit type: rounding to odd
 * at p' >= p + 2 bits and then to nearest at p bits is the correct rounding (Boldo and Melquiond,
 * 2008). The product of two 16-bit values is exact in binary64; the sum is rounded to nearest, its
 * error recovered exactly (TwoSum), and a nonzero error forces the last bit odd toward it.
 */
static double fma_round_to_odd(float a, float b, float c)
{
    double x = (double)a * (double)b, y = c, z = x + y;
    double bv = z - x, err = (x - (z - bv)) + (y - bv);
    uint64_t bits;
    memcpy(&bits, &z, sizeof bits);
    if ((err > 0 || err < 0) && !(bits & 1) && isfinite(z))
        z = nextafter(z, err > 0 ? INFINITY : -INFINITY);
    return z;
}

float fpd_fma_f16(float a, float b, float c) { return (float)fpd_f16_to_double(fpd_f16_from_double(fma_round_to_odd(a, b, c))); }
float fpd_fma_bf16(float a, float b, float c) { return fpd_bf16_to_float(fpd_bf16_from_double(fma_round_to_odd(a, b, c))); }

/* Whole blocks of 16 then the rest: a loop the compiler vectorizes at -O2 (its cheapest cost
 * model takes no loop that needs a scalar remainder or a check that the arrays do not overlap). */
FPD_VECTOR_WIDTH_FUNCTION(void, store_f32_run, (float *restrict dst, const double *restrict x, size_t count),
                          (dst, x, count))
{
    size_t i = 0;
    for (; i + 16 <= count; i += 16)
        for (size_t l = 0; l < 16; l++)
            dst[i + l] = (float)x[i + l];
    for (; i < count; i++)
        dst[i] = (float)x[i];
}

/* round_to_format without a branch, for a run's loop to vectorize: x not NaN (an infinity, or a
 * leading bit past emax, gives the infinity of x's sign). The quantum's leading exponent is held
 * to emax + 1, where the result is an infinity whatever the rounding gives. */
static inline __attribute__((always_inline)) double rounded_without_branches(double x, const int precision,
                                                                             const int emin, const int emax,
                                                                             const double max_finite)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int64_t lead = (int64_t)(bits >> 52 & 0x7ff) - 1023;
    int64_t held = lead < emin ? emin : lead > emax ? emax + 1 : lead;
    uint64_t shift_bits = (uint64_t)(held - (precision - 1) + 52 + 1023) << 52 | 1ull << 51; /* 1.5 * 2^(q + 52) */
    double shift;
    memcpy(&shift, &shift_bits, sizeof shift);
    double r = copysign((x + shift) - shift, x);
    return lead > emax || fabs(r) > max_finite ? copysign(INFINITY, x) : r;
}

/* f16_encode_exact without a branch: r a binary16 value (or an infinity), not NaN. */
static inline __attribute__((always_inline)) uint16_t f16_bits_of_exact(double r)
{
    uint64_t bits;
    memcpy(&bits, &r, sizeof bits);
    uint16_t sign = (uint16_t)(bits >> 48 & 0x8000);
    double a = fabs(r);
    uint16_t normal = (uint16_t)((((bits >> 52 & 0x7ff) - 1023 + 15) << 10) | (bits >> 42 & 0x3ff));
    uint16_t small = (uint16_t)(int32_t)(a * 0x1p24); /* subnormal or zero: a count of 2^-24 */
    return sign | (a > 65504.0 ? 0x7c00 : a < 0x1p-14 ? small : normal);
}

/* count doubles rounded into binary16 (or bfloat16) bits, as fpd_f16_from_double (fpd_bf16_from_double)
 * does each: a run without NaN in loops of selects that vectorize, one with a NaN value by value
 * (its payload's rule is the scalar one's). A run of 16-bit data was generated a value at a time,
 * through frexp: most of the time of a campaign's f16 and bf16 cases past --max-dim. */
FPD_VECTOR_WIDTH_FUNCTION(void, store_16bit_run,
                          (uint16_t *restrict dst, size_t stride, const double *restrict x, size_t count, bool bf16),
                          (dst, stride, x, count, bf16))
{
    bool nan = false;
    for (size_t i = 0; i < count; i++)
        nan |= isnan(x[i]);
    if (nan) {
        for (size_t i = 0; i < count; i++)
            dst[i * stride] = bf16 ? fpd_bf16_from_double(x[i]) : fpd_f16_from_double(x[i]);
        return;
    }
    if (bf16)
        for (size_t i = 0; i < count; i++) {
            float f = (float)rounded_without_branches(x[i], 8, -126, 127, 0x1.fep127); /* exact in float */
            uint32_t bits;
            memcpy(&bits, &f, sizeof bits);
            dst[i * stride] = (uint16_t)(bits >> 16);
        }
    else
        for (size_t i = 0; i < count; i++)
            dst[i * stride] = f16_bits_of_exact(rounded_without_branches(x[i], 11, -14, 15, 65504.0));
}

FPD_VECTOR_WIDTH_FUNCTION(void, magnitude_extremes,
                          (enum fpd_dtype t, const void *p, size_t count, double *smallest, double *largest),
                          (t, p, count, smallest, largest))
{
    double least = *smallest, most = *largest;
#define EXTREMES_OF(SRC_T, LOAD)                                                                   \
    do {                                                                                           \
        const SRC_T *x_ = p;                                                                       \
        for (size_t i = 0; i < count; i++) {                                                       \
            double v = fabs((double)LOAD(x_[i]));                                                  \
            bool counted = v > 0 && v <= DBL_MAX; /* not zero, Inf or NaN */                       \
            least = counted && v < least ? v : least;                                              \
            most = counted && v > most ? v : most;                                                 \
        }                                                                                          \
    } while (0)
#define AS_IS(x) (x)
    switch (t) {
    case FPD_F64: EXTREMES_OF(double, AS_IS); break;
    case FPD_F32: EXTREMES_OF(float, AS_IS); break;
    case FPD_F16: EXTREMES_OF(uint16_t, fpd_f16_to_double); break;
    case FPD_BF16: EXTREMES_OF(uint16_t, fpd_bf16_to_float); break;
    default: break;
    }
#undef AS_IS
#undef EXTREMES_OF
    *smallest = least, *largest = most;
}

void fpd_magnitude_extremes(enum fpd_dtype t, const void *p, size_t count, double *smallest, double *largest)
{
    magnitude_extremes(t, p, count, smallest, largest);
}

void fpd_store_run(enum fpd_dtype t, void *p, size_t at, size_t stride, const double *x, size_t count)
{
    /* the type chosen once, outside the loops: the contiguous ones vectorize */
    switch (t) {
    case FPD_F64:
        if (stride == 1)
            memcpy((double *)p + at, x, count * sizeof *x);
        else
            for (size_t i = 0; i < count; i++)
                ((double *)p)[at + i * stride] = x[i];
        break;
    case FPD_F32:
        if (stride == 1)
            store_f32_run((float *)p + at, x, count);
        else
            for (size_t i = 0; i < count; i++)
                ((float *)p)[at + i * stride] = (float)x[i];
        break;
    case FPD_F16:
    case FPD_BF16:
        store_16bit_run((uint16_t *)p + at, stride, x, count, t == FPD_BF16);
        break;
    default: break;
    }
}

/* Bits move through memcpy, never through a pointer cast: the buffers hold floats, and reading
 * them through an integer lvalue (or the reverse) is undefined behaviour the optimizer exploits. */
void fpd_store_bits(enum fpd_dtype t, void *p, size_t i, uint64_t bits)
{
    size_t size = fpd_dtype_table[t].size;
    char *dst = (char *)p + i * size;
    uint32_t w = (uint32_t)bits;
    uint16_t h = (uint16_t)bits;
    memcpy(dst, size == 8 ? (const void *)&bits : size == 4 ? (const void *)&w : (const void *)&h, size);
}

uint64_t fpd_bits_of_value(enum fpd_dtype t, double x)
{
    switch (t) {
    case FPD_F64: {
        uint64_t b;
        memcpy(&b, &x, sizeof b);
        return b;
    }
    case FPD_F32: {
        float f = (float)x;
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        return b;
    }
    case FPD_F16: return fpd_f16_from_double(x);
    case FPD_BF16: return fpd_bf16_from_double(x);
    default: return 0;
    }
}

double fpd_value_of_bits(enum fpd_dtype t, uint64_t bits)
{
    switch (t) {
    case FPD_F64: {
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    case FPD_F32: {
        uint32_t w = (uint32_t)bits;
        float f;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    case FPD_F16: return fpd_f16_to_double((uint16_t)bits);
    case FPD_BF16: return fpd_bf16_to_float((uint16_t)bits);
    default: return NAN;
    }
}

/* A binary16 value's bits as a binary32 value's, exactly, for a finite one: a normal one's fields
 * moved, a subnormal one (or zero) through its fraction converted to a float and scaled by 2^-24
 * (both exact). By masks, not branches, so that the loop of f16_to_f32_run vectorizes. */
static inline __attribute__((always_inline)) uint32_t f32_bits_of_finite_f16(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, biased = (uint32_t)(h >> 10) & 0x1fu, frac = h & 0x3ffu;
    uint32_t normal_bits = ((biased + 112) << 23) | (frac << 13);
    float small = (float)(int32_t)frac * 0x1p-24f;
    uint32_t small_bits;
    memcpy(&small_bits, &small, sizeof small_bits);
    uint32_t is_normal = -(uint32_t)(biased != 0);
    return sign | (normal_bits & is_normal) | (small_bits & ~is_normal);
}

/* count binary16 values into binary32; false (nothing written) where one is Inf or NaN, which the
 * caller converts as every other pair of types is. */
FPD_VECTOR_WIDTH_FUNCTION(bool, f16_to_f32_run, (float *restrict dst, const uint16_t *restrict src, size_t count),
                          (dst, src, count))
{
    uint32_t special = 0;
    for (size_t i = 0; i < count; i++)
        special |= (uint32_t)((src[i] & 0x7c00u) == 0x7c00u);
    if (special)
        return false;
    size_t i = 0;
    for (; i + 16 <= count; i += 16)
        for (size_t l = 0; l < 16; l++) {
            uint32_t bits = f32_bits_of_finite_f16(src[i + l]);
            memcpy(&dst[i + l], &bits, sizeof bits);
        }
    for (; i < count; i++) {
        uint32_t bits = f32_bits_of_finite_f16(src[i]);
        memcpy(&dst[i], &bits, sizeof bits);
    }
    return true;
}

/* count values from src to dst, src_step and dst_step elements apart, the pair's conversion chosen
 * once for the run: a switch per element (fpd_load, fpd_store) kept these loops scalar and was most
 * of their time. Inlined where it is called, so that a contiguous run's steps are constants and its
 * loop vectorizes. Widening to binary64 is exact; the rest rounds as fpd_store does. */
static inline __attribute__((always_inline)) void convert_run(enum fpd_dtype src_t, const void *src, size_t src_step,
                                                              enum fpd_dtype dst_t, void *dst, size_t dst_step,
                                                              size_t count)
{
#define CONVERT_RUN(SRC_T, DST_T, CONVERT)                                                          \
    do {                                                                                           \
        const SRC_T *s_ = src;                                                                     \
        DST_T *d_ = dst;                                                                           \
        for (size_t c = 0; c < count; c++)                                                         \
            d_[c * dst_step] = CONVERT(s_[c * src_step]);                                          \
    } while (0)
#define AS_IS(x) (x)
    if (dst_t == FPD_F64)
        switch (src_t) {
        case FPD_F64: CONVERT_RUN(double, double, AS_IS); return;
        case FPD_F32: CONVERT_RUN(float, double, AS_IS); return;
        case FPD_F16: CONVERT_RUN(uint16_t, double, fpd_f16_to_double); return;
        case FPD_BF16: CONVERT_RUN(uint16_t, double, fpd_bf16_to_float); return;
        default: break;
        }
    if (src_t == dst_t && fpd_dtype_table[src_t].size == 4) {
        CONVERT_RUN(uint32_t, uint32_t, AS_IS);
        return;
    }
    if (src_t == dst_t && fpd_dtype_table[src_t].size == 2) {
        CONVERT_RUN(uint16_t, uint16_t, AS_IS);
        return;
    }
#undef AS_IS
#undef CONVERT_RUN
    for (size_t c = 0; c < count; c++)
        fpd_store(dst_t, dst, c * dst_step, fpd_load(src_t, src, c * src_step));
}

void fpd_convert_matrix(size_t rows, size_t cols, enum fpd_dtype src_t, const void *src, size_t src_ld,
                        enum fpd_dtype dst_t, void *dst, size_t dst_ld)
{
    if (cols == 1 && rows > 1) { /* a column (a line of op(X) down its storage): one run, not a row at a time */
        convert_run(src_t, src, src_ld, dst_t, dst, dst_ld, rows);
        return;
    }
    size_t es = fpd_dtype_table[src_t].size, ed = fpd_dtype_table[dst_t].size;
    for (size_t r = 0; r < rows; r++) {
        const char *s = (const char *)src + r * src_ld * es;
        char *d = (char *)dst + r * dst_ld * ed;
        if (src_t == dst_t) {
            memcpy(d, s, cols * es);
        } else if (src_t == FPD_F32 && dst_t == FPD_BF16) {
            for (size_t c = 0; c < cols; c++)
                ((uint16_t *)d)[c] = fpd_bf16_from_float(((const float *)s)[c]);
        } else if (src_t == FPD_BF16 && dst_t == FPD_F32) {
            for (size_t c = 0; c < cols; c++)
                ((float *)d)[c] = fpd_bf16_to_float(((const uint16_t *)s)[c]);
        } else if (src_t == FPD_F16 && dst_t == FPD_F32 && f16_to_f32_run((float *)d, (const uint16_t *)s, cols)) {
            /* the tensor-core models' and the 16-bit routes' inputs */
        } else {
            convert_run(src_t, s, 1, dst_t, d, 1, cols);
        }
    }
}

