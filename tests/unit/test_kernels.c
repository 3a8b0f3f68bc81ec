/* Own kernels: exact answers on exactly-summable data, their documented orders, and agreement. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "cpu/kernels.h"
#include "cpu/vector_width.h"
#include "gen/rng.h"

typedef int (*kernel_f32)(const struct fpd_kgemm_f32 *);
typedef int (*kernel_f64)(const struct fpd_kgemm_f64 *);

static const struct {
    const char *name;
    kernel_f32 f32;
    kernel_f64 f64;
} kernels[] = {
    {"seq", fpd_kernel_seq_f32, fpd_kernel_seq_f64},
    {"pairwise", fpd_kernel_pairwise_f32, fpd_kernel_pairwise_f64},
    {"splitk", fpd_kernel_splitk_f32, fpd_kernel_splitk_f64},
    {"blocked", fpd_kernel_blocked_f32, fpd_kernel_blocked_f64},
};

static double small_int(uint32_t seed, uint32_t row, uint32_t col)
{
    uint32_t w[4];
    fpd_rng_element(seed, 0, 1, 0, row, col, w);
    return (double)(int)(w[0] % 17) - 8;
}

/* Integer data: every partial sum is exact in any order, so every kernel must hit the exact
 * integer answer, whatever the shape, strides or transposes. */
Test(kernels, exact_on_integer_data)
{
    static const size_t shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {13, 33, 300}, {6, 16, 257}, {97, 31, 64}, {1, 100, 1000}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        for (int trans = 0; trans < 4; trans++) {
            bool ta = trans & 1, tb = trans & 2;
            double *a64 = malloc(m * k * 8), *b64 = malloc(k * n * 8), *bias64 = malloc(n * 8), *want = malloc(m * n * 8);
            float *a32 = malloc(m * k * 4), *b32 = malloc(k * n * 4), *bias32 = malloc(n * 4);
            for (size_t i = 0; i < m; i++)
                for (size_t p = 0; p < k; p++)
                    a64[ta ? p * m + i : i * k + p] = small_int(1, (uint32_t)i, (uint32_t)p);
            for (size_t p = 0; p < k; p++)
                for (size_t j = 0; j < n; j++)
                    b64[tb ? j * k + p : p * n + j] = small_int(2, (uint32_t)p, (uint32_t)j);
            for (size_t j = 0; j < n; j++)
                bias64[j] = small_int(3, 0, (uint32_t)j);
            for (size_t i = 0; i < m * k; i++)
                a32[i] = (float)a64[i];
            for (size_t i = 0; i < k * n; i++)
                b32[i] = (float)b64[i];
            for (size_t j = 0; j < n; j++)
                bias32[j] = (float)bias64[j];
            for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j < n; j++) {
                    long long acc = (long long)bias64[j];
                    for (size_t p = 0; p < k; p++)
                        acc += (long long)a64[ta ? p * m + i : i * k + p] * (long long)b64[tb ? j * k + p : p * n + j];
                    want[i * n + j] = (double)acc;
                }
            ptrdiff_t a_rs = ta ? 1 : (ptrdiff_t)k, a_cs = ta ? (ptrdiff_t)m : 1;
            ptrdiff_t b_rs = tb ? 1 : (ptrdiff_t)n, b_cs = tb ? (ptrdiff_t)k : 1;
            for (size_t kn = 0; kn < sizeof kernels / sizeof kernels[0]; kn++) {
                float *c32 = malloc(m * n * 4);
                double *c64 = malloc(m * n * 8);
                struct fpd_kgemm_f32 g32 = {m, n, k, a32, a_rs, a_cs, b32, b_rs, b_cs, c32, n, bias32, NULL, NULL};
                struct fpd_kgemm_f64 g64 = {m, n, k, a64, a_rs, a_cs, b64, b_rs, b_cs, c64, n, bias64};
                cr_assert_eq(kernels[kn].f32(&g32), 0);
                cr_assert_eq(kernels[kn].f64(&g64), 0);
                for (size_t i = 0; i < m * n; i++) {
                    cr_assert(fabs(c32[i] - want[i]) <= 0, "%s f32 %zux%zux%zu trans %d: C[%zu] = %g, want %g",
                              kernels[kn].name, m, n, k, trans, i, c32[i], want[i]);
                    cr_assert(fabs(c64[i] - want[i]) <= 0, "%s f64: C[%zu] = %g, want %g", kernels[kn].name, i, c64[i],
                              want[i]);
                }
                free(c32);
                free(c64);
            }
            free(a64), free(b64), free(bias64), free(want), free(a32), free(b32), free(bias32);
        }
    }
}

/* The emulated 16-bit accumulators, as the own-kernel adapter hands them to the kernels. */
struct acc16 {
    float (*round)(float);
    float (*fma)(float, float, float);
};
static const struct acc16 *const NATIVE = NULL;
static const struct acc16 F16_ACC = {fpd_round_f32_to_f16, fpd_fma_f16}, BF16_ACC = {fpd_round_f32_to_bf16, fpd_fma_bf16};

/* One dot product over k with the given terms (b = 1), through a kernel. */
static float dot_f32(kernel_f32 kernel, const float *a, size_t k, const struct acc16 *acc)
{
    float *ones = malloc(k * sizeof *ones), c = 0;
    for (size_t p = 0; p < k; p++)
        ones[p] = 1;
    struct fpd_kgemm_f32 g = {1, 1, k, a, (ptrdiff_t)k, 1, ones, 1, 1, &c, 1, NULL, acc ? acc->round : NULL,
                              acc ? acc->fma : NULL};
    cr_assert_eq(kernel(&g), 0);
    free(ones);
    return c;
}

/* The orders, revealed by data where they matter: 2^24 + 1 rounds back to 2^24 in float. */
Test(kernels, documented_orders)
{
    const float terms[] = {0x1p24f, 1, 1, -0x1p24f};
    /* seq: ((2^24 + 1) + 1) - 2^24 = 0; pairwise: (2^24 + 1) + (1 - 2^24) = 2^24 + (1 - 2^24) = 1 */
    cr_expect(fabsf(dot_f32(fpd_kernel_seq_f32, terms, 4, NATIVE)) <= 0);
    cr_expect(fabsf(dot_f32(fpd_kernel_blocked_f32, terms, 4, NATIVE)) <= 0);
    cr_expect(fabsf(dot_f32(fpd_kernel_pairwise_f32, terms, 4, NATIVE) - 1) <= 0);
    /* pairwise with 5 terms: ((t0+t1)+(t2+t3)) + t4 */
    const float five[] = {1, 1, 1, 0x1p24f, -0x1p24f};
    /* (1+1) + (1 + 2^24 -> 2^24) = 2 + 2^24 (exact: even), then - 2^24 = 2 */
    cr_expect(fabsf(dot_f32(fpd_kernel_pairwise_f32, five, 5, NATIVE) - 2) <= 0);
    /* seq: 3 + 2^24 -> 2^24 + 4 (tie to even), - 2^24 = 4 */
    cr_expect(fabsf(dot_f32(fpd_kernel_seq_f32, five, 5, NATIVE) - 4) <= 0);
    /* splitk, k = 5 in parts of 2: (1+1) + (1+2^24 -> 2^24) + (-2^24) + 0 = 2 + 2^24 - 2^24 = 2 */
    cr_expect(fabsf(dot_f32(fpd_kernel_splitk_f32, five, 5, NATIVE) - 2) <= 0);
    /* k = 8 in parts of 2: (2^24+1 -> 2^24) + (1+1) + (-2^24+1) + 0: 2^24+2, then +(-2^24+1) = 3 */
    const float eight[] = {0x1p24f, 1, 1, 1, -0x1p24f, 1, 0, 0};
    cr_expect(fabsf(dot_f32(fpd_kernel_splitk_f32, eight, 8, NATIVE) - 3) <= 0);
    cr_expect(fabsf(dot_f32(fpd_kernel_seq_f32, eight, 8, NATIVE) - 1) <= 0); /* seq loses each +1 at 2^24: 0, then 1 */
}

Test(kernels, sixteen_bit_accumulation)
{
    /* 2049 ones: a float accumulator reaches 2049, an f16 one sticks at 2048 (2048 + 1 ties to even) */
    float ones[2049];
    for (size_t p = 0; p < 2049; p++)
        ones[p] = 1;
    cr_expect(fabsf(dot_f32(fpd_kernel_seq_f32, ones, 2049, NATIVE) - 2049) <= 0);
    cr_expect(fabsf(dot_f32(fpd_kernel_seq_f32, ones, 2049, &F16_ACC) - 2048) <= 0);
    /* bf16 has 8 bits: 256 + 1 sticks at 256 */
    cr_expect(fabsf(dot_f32(fpd_kernel_seq_f32, ones, 300, &BF16_ACC) - 256) <= 0);
    /* pairwise keeps every partial sum a power of two: exact even in bf16 */
    cr_expect(fabsf(dot_f32(fpd_kernel_pairwise_f32, ones, 2048, &BF16_ACC) - 2048) <= 0);
}

/* A 16-bit FMA rounds once: float's fmaf followed by a rounding to f16 rounds twice and can err. */
Test(kernels, sixteen_bit_fma_rounds_once)
{
    /* acc = 1 + 2^-10, a*b = 129*127 * 2^-25: the correctly rounded f16 result is 0x1.004p+0 */
    float got = fpd_fma_f16(129 * 0x1p-12f, 127 * 0x1p-13f, 1 + 0x1p-10f);
    cr_expect(fabsf(got - 0x1.004p+0f) <= 0, "%a", (double)got);
    cr_expect(fabsf(fpd_round_f32_to_f16(fmaf(129 * 0x1p-12f, 127 * 0x1p-13f, 1 + 0x1p-10f)) - 0x1.008p+0f) <= 0,
              "the double rounding this guards against");
    /* bf16: a product exactly on a bf16 midpoint plus a tiny acc of either sign decides the direction */
    /* 1.5 * (1 + 2^-7) = 1.10000011b: halfway between the bf16 neighbours 1.1000001b and 1.1000010b */
    cr_expect(fabsf(fpd_fma_bf16(1.5f, 1 + 0x1p-7f, 0x1p-100f) - 0x1.84p+0f) <= 0, "%a", (double)fpd_fma_bf16(1.5f, 1 + 0x1p-7f, 0x1p-100f));
    cr_expect(fabsf(fpd_fma_bf16(1.5f, 1 + 0x1p-7f, -0x1p-100f) - 0x1.82p+0f) <= 0, "%a", (double)fpd_fma_bf16(1.5f, 1 + 0x1p-7f, -0x1p-100f));
}

/* blocked follows seq's order: bitwise equal on random data, at every vector width the CPU has
 * (the SIMD micro-kernels from AVX2 on, the portable ones at baseline), each against seq at its
 * own. */
Test(kernels, blocked_equals_seq_bitwise)
{
    static const size_t shapes[][3] = {{1, 1, 1}, {5, 7, 3}, {6, 16, 256}, {7, 17, 257}, {97, 1030, 520}, {200, 3, 600}};
    char err[160];
    enum fpd_vector_width was = fpd_vector_width();
    for (int w = 0; w <= (int)fpd_vector_width_of_cpu(); w++) {
        cr_assert_eq(fpd_vector_width_limit((enum fpd_vector_width)w, err, sizeof err), 0, "%s", err);
        const char *width = fpd_vector_width_name((enum fpd_vector_width)w);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
            float *a = malloc(m * k * 4), *b = malloc(k * n * 4), *bias = malloc(n * 4);
            float *c1 = malloc(m * n * 4), *c2 = malloc(m * n * 4);
            double *a64 = malloc(m * k * 8), *b64 = malloc(k * n * 8), *d1 = malloc(m * n * 8), *d2 = malloc(m * n * 8);
            for (size_t i = 0; i < m * k; i++) {
                uint32_t w[4];
                fpd_rng_element(9, 0, 1, 0, 0, (uint32_t)i, w);
                a64[i] = ((double)w[0] - 0x1p31) * 0x1p-31 + (double)w[1] * 0x1p-60;
                a[i] = (float)a64[i];
            }
            for (size_t i = 0; i < k * n; i++) {
                uint32_t w[4];
                fpd_rng_element(9, 0, 2, 0, 0, (uint32_t)i, w);
                b64[i] = ((double)w[0] - 0x1p31) * 0x1p-31 + (double)w[1] * 0x1p-60;
                b[i] = (float)b64[i];
            }
            for (size_t j = 0; j < n; j++)
                bias[j] = (float)j * 0.125f;
            struct fpd_kgemm_f32 g = {m, n, k, a, (ptrdiff_t)k, 1, b, (ptrdiff_t)n, 1, c1, n, bias, NULL, NULL};
            cr_assert_eq(fpd_kernel_seq_f32(&g), 0);
            g.c = c2;
            cr_assert_eq(fpd_kernel_blocked_f32(&g), 0);
            cr_assert(memcmp(c1, c2, m * n * 4) == 0, "f32 %zux%zux%zu (%s) differs", m, n, k, width);
            struct fpd_kgemm_f64 h = {m, n, k, a64, 1, (ptrdiff_t)m, b64, (ptrdiff_t)n, 1, d1, n, NULL};
            cr_assert_eq(fpd_kernel_seq_f64(&h), 0);
            h.c = d2;
            cr_assert_eq(fpd_kernel_blocked_f64(&h), 0);
            cr_assert(memcmp(d1, d2, m * n * 8) == 0, "f64 %zux%zux%zu (%s) differs", m, n, k, width);
            free(a), free(b), free(bias), free(c1), free(c2), free(a64), free(b64), free(d1), free(d2);
        }
    }
    fpd_vector_width_limit(was, err, sizeof err);
}

/* The per-element definitions of seq, splitk and pairwise, one dot product at a time, as the
 * kernels' comments state them, in float (with the 16-bit accumulators) and in double: the
 * kernels compute several columns side by side (columns.h) and must give these very bits, any NaN
 * stored as C's NAN (blocked follows seq's). */
#define DEFINITIONS(T, S, NATIVE_FMA)                                                              \
    struct dot_##S {                                                                               \
        const T *a, *b; /* A's row i and B's column j, strides as in the kernel arguments */       \
        ptrdiff_t a_cs, b_rs;                                                                      \
        size_t k;                                                                                  \
        const T *bias;                                                                             \
        const struct acc16 *acc; /* float only */                                                  \
    };                                                                                             \
    static T fma_in_##S(const struct dot_##S *d, size_t p, T z)                                    \
    {                                                                                              \
        T x = d->a[(ptrdiff_t)p * d->a_cs], y = d->b[(ptrdiff_t)p * d->b_rs];                      \
        return d->acc ? (T)d->acc->fma((float)x, (float)y, (float)z) : NATIVE_FMA(x, y, z);        \
    }                                                                                              \
    static T round_in_##S(const struct dot_##S *d, T x) { return d->acc ? (T)d->acc->round((float)x) : x; } \
    static T seq_by_definition_##S(const struct dot_##S *d)                                        \
    {                                                                                              \
        T acc = d->bias ? *d->bias : 0;                                                            \
        for (size_t p = 0; p < d->k; p++)                                                          \
            acc = fma_in_##S(d, p, acc);                                                           \
        return acc;                                                                                \
    }                                                                                              \
    static T splitk_by_definition_##S(const struct dot_##S *d)                                     \
    {                                                                                              \
        size_t len = (d->k + FPD_SPLITK_PARTS - 1) / FPD_SPLITK_PARTS;                             \
        T total = 0;                                                                               \
        for (size_t s = 0; s < FPD_SPLITK_PARTS; s++) {                                            \
            T part = s == 0 && d->bias ? *d->bias : 0;                                             \
            for (size_t p = s * len; p < (s + 1) * len && p < d->k; p++)                           \
                part = fma_in_##S(d, p, part);                                                     \
            total = s == 0 ? part : round_in_##S(d, total + part);                                 \
        }                                                                                          \
        return total;                                                                              \
    }                                                                                              \
    /* the tree over terms [lo, hi): the largest power of two below the count on the left */      \
    static T tree_##S(const struct dot_##S *d, size_t lo, size_t hi)                               \
    {                                                                                              \
        if (hi - lo == 1)                                                                          \
            return round_in_##S(d, d->a[(ptrdiff_t)lo * d->a_cs] * d->b[(ptrdiff_t)lo * d->b_rs]); \
        size_t left = 1;                                                                           \
        while (2 * left < hi - lo)                                                                 \
            left *= 2;                                                                             \
        return round_in_##S(d, tree_##S(d, lo, lo + left) + tree_##S(d, lo + left, hi));           \
    }                                                                                              \
    static T pairwise_by_definition_##S(const struct dot_##S *d)                                   \
    {                                                                                              \
        T sum = d->k ? tree_##S(d, 0, d->k) : 0;                                                   \
        return d->bias ? round_in_##S(d, *d->bias + sum) : sum;                                    \
    }                                                                                              \
    /* the magnitude kernels: seq's order over |A| and |B| (native accumulation only) */          \
    static T magnitude_by_definition_##S(const struct dot_##S *d)                                  \
    {                                                                                              \
        T acc = d->bias ? *d->bias : 0;                                                            \
        for (size_t p = 0; p < d->k; p++)                                                          \
            acc = NATIVE_FMA((T)fabs((double)d->a[(ptrdiff_t)p * d->a_cs]),                        \
                             (T)fabs((double)d->b[(ptrdiff_t)p * d->b_rs]), acc);                  \
        return acc;                                                                                \
    }
DEFINITIONS(float, f32, fmaf)
DEFINITIONS(double, f64, fma)
#undef DEFINITIONS

/* Random values; with `specials`, zeros, infinities, subnormals and NaNs (with payloads, signs,
 * and a signalling one) sprinkled in. */
static double random_value(uint32_t stream, uint32_t at, bool specials, enum fpd_dtype t)
{
    static const uint64_t nan_bits[] = {0x7ff8000000000000ull, 0x7ff8000000012345ull, 0xfff8000000000001ull,
                                        0x7ff4000000000001ull};
    static const double special[] = {0.0, -0.0, INFINITY, -INFINITY, 0x1p-140, -0x1.8p-127, 0x1p100, 0x1p-1060};
    uint32_t w[4];
    fpd_rng_element(21, 0, stream, 0, 0, at, w);
    double nan, v = ((double)w[0] - 0x1p31) * 0x1p-31 + (double)w[1] * 0x1p-60;
    if (specials && w[2] % 16 == 0) {
        memcpy(&nan, &nan_bits[w[3] % 4], sizeof nan);
        v = w[3] % 3 == 0 ? nan : special[w[3] % 8];
    }
    if (t == FPD_F32 && !isnan(v))
        return (float)v;
    if (t == FPD_F32) { /* a float NaN with the payload's top bits and the signalling bit kept */
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        uint32_t fbits = (uint32_t)(bits >> 32 & 0x80000000u) | 0x7f800000u | (uint32_t)(bits >> 29 & 0x7fffffu);
        float f;
        memcpy(&f, &fbits, sizeof f);
        return f; /* stays a NaN: the payload is nonzero */
    }
    return v;
}

/* The kernels of one type against their definitions, on every shape, layout and variant. C has
 * row padding, which must keep its sentinel. */
#define CHECK_DEFINITIONS(T, S, DTYPE, ...)                                                        \
    do {                                                                                           \
        static const size_t widths[] = {1, 15, 16, 17, 40}, depths[] = {0, 1, 5, 7, 64, 100, 257};  \
        const struct acc16 *accs[] = {__VA_ARGS__};                                                \
        const size_t m = 7, pad = 3; /* blocked: one full panel of MR = 6 rows, and an edge */      \
        const T sentinel = (T)12345;                                                               \
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)                              \
            for (size_t kd = 0; kd < sizeof depths / sizeof depths[0]; kd++)                       \
                for (int variant = 0; variant < 16; variant++) {                                   \
                    size_t n = widths[w], k = depths[kd], ldc = n + pad;                           \
                    bool ta = variant & 1, tb = variant & 2, with_bias = variant & 4, specials = variant & 8; \
                    T *a = malloc((m * k + 1) * sizeof(T)), *b = malloc((k * n + 1) * sizeof(T));  \
                    T *bias = malloc(n * sizeof(T)), *c = malloc(m * ldc * sizeof(T));             \
                    for (size_t i = 0; i < m * k; i++)                                             \
                        a[i] = (T)random_value(1, (uint32_t)i, specials, DTYPE);                   \
                    for (size_t i = 0; i < k * n; i++)                                             \
                        b[i] = (T)random_value(2, (uint32_t)i, specials, DTYPE);                   \
                    for (size_t j = 0; j < n; j++)                                                 \
                        bias[j] = (T)random_value(3, (uint32_t)j, specials, DTYPE);                \
                    ptrdiff_t a_rs = ta ? 1 : (ptrdiff_t)k, a_cs = ta ? (ptrdiff_t)m : 1;          \
                    ptrdiff_t b_rs = tb ? 1 : (ptrdiff_t)n, b_cs = tb ? (ptrdiff_t)k : 1;          \
                    for (size_t o = 0; o < sizeof orders_##S / sizeof orders_##S[0]; o++)          \
                        for (size_t ac = 0; ac < sizeof accs / sizeof accs[0]; ac++) {             \
                            const struct acc16 *acc = accs[ac];                                    \
                            if (acc && !orders_##S[o].accumulates_16bit)                           \
                                continue;                                                          \
                            for (size_t i = 0; i < m * ldc; i++)                                   \
                                c[i] = sentinel;                                                   \
                            cr_assert_eq(orders_##S[o].kernel(&(struct fpd_kgemm_##S){             \
                                             KGEMM_ARGS(S, m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, ldc, \
                                                        with_bias ? bias : NULL, acc)}),           \
                                         0);                                                       \
                            for (size_t i = 0; i < m; i++)                                         \
                                for (size_t j = 0; j < ldc; j++) {                                 \
                                    T want = sentinel, got = c[i * ldc + j];                       \
                                    if (j < n) {                                                   \
                                        struct dot_##S d = {a + (ptrdiff_t)i * a_rs, b + (ptrdiff_t)j * b_cs, \
                                                            a_cs, b_rs, k, with_bias ? &bias[j] : NULL, acc}; \
                                        want = orders_##S[o].definition(&d);                       \
                                        if (isnan(want))                                           \
                                            want = NAN;                                            \
                                    }                                                              \
                                    cr_assert(memcmp(&want, &got, sizeof got) == 0,                \
                                              "%s %s acc %zu, %zux%zux%zu variant %d: C[%zu][%zu] = %a, " \
                                              "by definition %a",                                  \
                                              #S, orders_##S[o].name, ac, m, n, k, variant, i, j, (double)got, \
                                              (double)want);                                       \
                                }                                                                  \
                        }                                                                          \
                    free(a), free(b), free(bias), free(c);                                         \
                }                                                                                  \
    } while (0)

/* A blocked kernel restricted to its portable micro-kernel: fpdiv at its baseline vector width. */
#define PORTABLE(KERNEL, S)                                                                        \
    static int KERNEL##_portable(const struct fpd_kgemm_##S *g)                                    \
    {                                                                                              \
        char err[160];                                                                             \
        enum fpd_vector_width was = fpd_vector_width();                                            \
        fpd_vector_width_limit(FPD_VECTOR_BASELINE, err, sizeof err);                              \
        int rc = KERNEL(g);                                                                        \
        fpd_vector_width_limit(was, err, sizeof err);                                              \
        return rc;                                                                                 \
    }
PORTABLE(fpd_kernel_blocked_f32, f32)
PORTABLE(fpd_kernel_blocked_f64, f64)
PORTABLE(fpd_kernel_blocked_magnitude_f32, f32)
PORTABLE(fpd_kernel_blocked_magnitude_f64, f64)
#undef PORTABLE

#define KGEMM_ARGS_f32(m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, ldc, bias, acc)                   \
    m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, ldc, bias, (acc) ? (acc)->round : NULL, (acc) ? (acc)->fma : NULL
#define KGEMM_ARGS_f64(m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, ldc, bias, acc)                   \
    m, n, k, a, a_rs, a_cs, b, b_rs, b_cs, c, ldc, bias
#define KGEMM_ARGS(S, ...) KGEMM_ARGS_##S(__VA_ARGS__)

static const struct {
    const char *name;
    kernel_f32 kernel;
    float (*definition)(const struct dot_f32 *);
    bool accumulates_16bit;
} orders_f32[] = {
    {"seq", fpd_kernel_seq_f32, seq_by_definition_f32, true},
    {"splitk", fpd_kernel_splitk_f32, splitk_by_definition_f32, true},
    {"pairwise", fpd_kernel_pairwise_f32, pairwise_by_definition_f32, true},
    {"blocked", fpd_kernel_blocked_f32, seq_by_definition_f32, false},
    {"blocked (portable)", fpd_kernel_blocked_f32_portable, seq_by_definition_f32, false},
    {"blocked magnitude", fpd_kernel_blocked_magnitude_f32, magnitude_by_definition_f32, false},
    {"blocked magnitude (portable)", fpd_kernel_blocked_magnitude_f32_portable, magnitude_by_definition_f32, false},
};

static const struct {
    const char *name;
    kernel_f64 kernel;
    double (*definition)(const struct dot_f64 *);
    bool accumulates_16bit;
} orders_f64[] = {
    {"seq", fpd_kernel_seq_f64, seq_by_definition_f64, false},
    {"splitk", fpd_kernel_splitk_f64, splitk_by_definition_f64, false},
    {"pairwise", fpd_kernel_pairwise_f64, pairwise_by_definition_f64, false},
    {"blocked", fpd_kernel_blocked_f64, seq_by_definition_f64, false},
    {"blocked (portable)", fpd_kernel_blocked_f64_portable, seq_by_definition_f64, false},
    {"blocked magnitude", fpd_kernel_blocked_magnitude_f64, magnitude_by_definition_f64, false},
    {"blocked magnitude (portable)", fpd_kernel_blocked_magnitude_f64_portable, magnitude_by_definition_f64, false},
};

Test(kernels, column_blocks_follow_the_definitions)
{
    CHECK_DEFINITIONS(float, f32, FPD_F32, NATIVE, &F16_ACC, &BF16_ACC);
    CHECK_DEFINITIONS(double, f64, FPD_F64, NATIVE);
}
