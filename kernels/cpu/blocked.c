/*
 * blocked — cache-blocked, packed, vectorized GEMM (the BLIS/Goto loop nest).
 * Order: exactly seq's. C is first set to bias[j] (or +0); then k is walked in blocks of KC in
 * increasing order, and inside a block each C[i][j] takes one FMA per term in increasing p.
 * Between blocks C[i][j] is stored and reloaded in the accumulator type, which changes no bit,
 * so `blocked` and `seq` must agree bitwise: the tiling is over m and n only.
 *
 * The micro-kernel computes an MR x NR tile of C with one vector FMA per (row, p). On x86-64
 * CPUs with AVX2 and FMA it uses those instructions (chosen at run time, so the binary runs
 * anywhere); elsewhere a portable micro-kernel does the same FMAs with fmaf/fma. Edge tiles are
 * computed in a zero-padded local tile and copied back, so they take the same path.
 *
 * The magnitude variants run the same loop nest on |A| and |B| (absolute values taken as they
 * pack): the rounding bound's sum of |products|. Their bias is added as given; the caller passes
 * |bias|.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_X86_SIMD 1
#endif

#include "kernels.h"
#include "vector_width.h"

enum { KC = 256, MC = 96, NC = 1024 };
enum { MR = 6, NR_F32 = 16, NR_F64 = 8 };


/* Packing space, kept per thread from call to call: fresh space every call costs its page faults
 * every call, which for a thin product is as much as the arithmetic. */
static _Thread_local struct {
    void *p;
    size_t size;
} packing;

static void *packing_space(size_t bytes)
{
    if (bytes > packing.size) {
        void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (!p)
            return NULL;
        free(packing.p);
        packing.p = p;
        packing.size = bytes;
    }
    return packing.p;
}

static bool use_simd(void)
{
#ifdef HAVE_X86_SIMD
    return fpd_vector_width() >= FPD_VECTOR_AVX2;
#else
    return false;
#endif
}

/* The portable micro-kernels: C[MR x NR] (row stride ldc) += Ap·Bp over kc, one FMA per term. */
#define DEFINE_MICRO_PORTABLE(T, NAME, NR, FMA)                                                    \
    static void NAME(size_t kc, const T *ap, const T *bp, T *c, size_t ldc)                        \
    {                                                                                              \
        T acc[MR][NR];                                                                             \
        for (int r = 0; r < MR; r++)                                                               \
            for (int q = 0; q < NR; q++)                                                           \
                acc[r][q] = c[r * ldc + q];                                                        \
        for (size_t p = 0; p < kc; p++, ap += MR, bp += NR)                                        \
            for (int r = 0; r < MR; r++)                                                           \
                for (int q = 0; q < NR; q++)                                                       \
                    acc[r][q] = FMA(ap[r], bp[q], acc[r][q]);                                      \
        for (int r = 0; r < MR; r++)                                                               \
            for (int q = 0; q < NR; q++)                                                           \
                c[r * ldc + q] = FPD_KERNEL_RESULT(acc[r][q]);                                     \
    }

DEFINE_MICRO_PORTABLE(float, micro_f32_portable, NR_F32, fmaf)
DEFINE_MICRO_PORTABLE(double, micro_f64_portable, NR_F64, fma)

#ifdef HAVE_X86_SIMD
/* Two vectors per row of C: 12 accumulators, 2 for B, 1 broadcast — 15 of the 16 ymm registers. */
/* Fully unrolled, so that the accumulator arrays below are registers, not memory. */
#define UNROLL _Pragma("GCC unroll 8")

/* STORE makes a NaN lane C's NAN (FPD_KERNEL_RESULT) at every store, so that the last block's
 * store leaves every element of C as the kernels' contract says. */
#define DEFINE_MICRO_AVX2(T, NAME, VEC, LOAD, STORE, BCAST, FMADD, LANES)                          \
    __attribute__((target("avx2,fma"))) static void NAME(size_t kc, const T *ap, const T *bp, T *c, \
                                                          size_t ldc)                              \
    {                                                                                              \
        VEC c0[MR], c1[MR];                                                                        \
        UNROLL for (int r = 0; r < MR; r++) {                                                      \
            c0[r] = LOAD(c + r * ldc);                                                             \
            c1[r] = LOAD(c + r * ldc + LANES);                                                     \
        }                                                                                          \
        for (size_t p = 0; p < kc; p++, ap += MR, bp += 2 * LANES) {                               \
            VEC b0 = LOAD(bp), b1 = LOAD(bp + LANES);                                              \
            UNROLL for (int r = 0; r < MR; r++) {                                                  \
                VEC a = BCAST(ap + r);                                                             \
                c0[r] = FMADD(a, b0, c0[r]);                                                       \
                c1[r] = FMADD(a, b1, c1[r]);                                                       \
            }                                                                                      \
        }                                                                                          \
        UNROLL for (int r = 0; r < MR; r++) {                                                      \
            STORE(c + r * ldc, c0[r]);                                                             \
            STORE(c + r * ldc + LANES, c1[r]);                                                     \
        }                                                                                          \
    }

__attribute__((target("avx2"))) static inline void store_result_f32(float *c, __m256 v)
{
    _mm256_storeu_ps(c, _mm256_blendv_ps(v, _mm256_set1_ps(NAN), _mm256_cmp_ps(v, v, _CMP_UNORD_Q)));
}

__attribute__((target("avx2"))) static inline void store_result_f64(double *c, __m256d v)
{
    _mm256_storeu_pd(c, _mm256_blendv_pd(v, _mm256_set1_pd(NAN), _mm256_cmp_pd(v, v, _CMP_UNORD_Q)));
}

DEFINE_MICRO_AVX2(float, micro_f32_avx2, __m256, _mm256_loadu_ps, store_result_f32, _mm256_broadcast_ss,
                  _mm256_fmadd_ps, 8)
DEFINE_MICRO_AVX2(double, micro_f64_avx2, __m256d, _mm256_loadu_pd, store_result_f64, _mm256_broadcast_sd,
                  _mm256_fmadd_pd, 4)
#else
#define micro_f32_avx2 micro_f32_portable
#define micro_f64_avx2 micro_f64_portable
#endif

/*
 * Packing copies A into MR-row panels and B into NR-column panels, zero-filling past the edges;
 * zeros only meet C entries that are never stored. VALUE is applied to every element packed: the
 * identity, or fabs for the magnitude kernels, whose absolute values so need no pass of their
 * own. A full panel whose elements lie at unit stride along it is a plain copy the compiler
 * vectorizes; any other panel is gathered a row (of A) or a column (of B) at a time, then
 * zero-filled, with no edge test per element.
 */
static inline float identity_f32(float x) { return x; }
static inline double identity_f64(double x) { return x; }

#define DEFINE_PACKING(T, TAG, NR, VALUE)                                                          \
    /* op(B)[p][q] for p < kc, q < cols (<= NR) at b[p * rs + q * cs], as kc rows of NR */         \
    static void pack_b_##TAG(T *restrict dst, const T *restrict b, ptrdiff_t rs, ptrdiff_t cs,     \
                             size_t kc, size_t cols)                                               \
    {                                                                                              \
        if (cols == NR && cs == 1) {                                                               \
            for (size_t p = 0; p < kc; p++)                                                        \
                for (size_t q = 0; q < NR; q++)                                                    \
                    dst[p * NR + q] = VALUE(b[(ptrdiff_t)p * rs + (ptrdiff_t)q]);                  \
            return;                                                                                \
        }                                                                                          \
        for (size_t p = 0; p < kc; p++) {                                                          \
            for (size_t q = 0; q < cols; q++)                                                      \
                dst[p * NR + q] = VALUE(b[(ptrdiff_t)p * rs + (ptrdiff_t)q * cs]);                 \
            for (size_t q = cols; q < NR; q++)                                                     \
                dst[p * NR + q] = (T)0;                                                            \
        }                                                                                          \
    }                                                                                              \
    /* op(A)[r][p] for r < rows (<= MR), p < kc at a[r * rs + p * cs], as kc columns of MR */      \
    static void pack_a_##TAG(T *restrict dst, const T *restrict a, ptrdiff_t rs, ptrdiff_t cs,     \
                             size_t kc, size_t rows)                                               \
    {                                                                                              \
        if (rows == MR && rs == 1) {                                                               \
            for (size_t p = 0; p < kc; p++)                                                        \
                for (size_t r = 0; r < MR; r++)                                                    \
                    dst[p * MR + r] = VALUE(a[(ptrdiff_t)r + (ptrdiff_t)p * cs]);                  \
            return;                                                                                \
        }                                                                                          \
        for (size_t r = 0; r < rows; r++)                                                          \
            for (size_t p = 0; p < kc; p++)                                                        \
                dst[p * MR + r] = VALUE(a[(ptrdiff_t)r * rs + (ptrdiff_t)p * cs]);                 \
        for (size_t r = rows; r < MR; r++)                                                         \
            for (size_t p = 0; p < kc; p++)                                                        \
                dst[p * MR + r] = (T)0;                                                            \
    }

DEFINE_PACKING(float, f32, NR_F32, identity_f32)
DEFINE_PACKING(double, f64, NR_F64, identity_f64)
DEFINE_PACKING(float, magnitude_f32, NR_F32, fabsf)
DEFINE_PACKING(double, magnitude_f64, NR_F64, fabs)

/* The loop nest, once per element type and packing. */
#define DEFINE_BLOCKED(T, SUFFIX, TAG, NR, MICRO_SIMD, MICRO_PORTABLE)                             \
    int fpd_kernel_blocked_##TAG(const struct fpd_kgemm_##SUFFIX *g)                               \
    {                                                                                              \
        void (*micro)(size_t, const T *, const T *, T *, size_t) =                                 \
            use_simd() ? MICRO_SIMD : MICRO_PORTABLE;                                              \
        size_t m = g->m, n = g->n, k = g->k;                                                       \
        for (size_t i = 0; i < m; i++)                                                             \
            for (size_t j = 0; j < n; j++)                                                         \
                g->c[i * g->ldc + j] = g->bias ? FPD_KERNEL_RESULT(g->bias[j]) : (T)0;             \
        if (m == 0 || n == 0 || k == 0)                                                            \
            return 0; /* C is bias (or 0) already; and nothing to pack, which no space holds */    \
        size_t kc_max = k < KC ? k : KC;                                                           \
        size_t mc_max = (m < MC ? (m + MR - 1) / MR * MR : MC);                                    \
        size_t nc_max = (n < NC ? (n + NR - 1) / NR * NR : NC);                                    \
        size_t line = 64 / sizeof(T), a_space = (mc_max * kc_max + line - 1) / line * line;        \
        T *ap = packing_space(sizeof(T) * (a_space + nc_max * kc_max));                            \
        if (!ap)                                                                                   \
            return -1;                                                                             \
        T *bp = ap + a_space; /* on a cache line of its own */                                     \
        for (size_t jc = 0; jc < n; jc += NC) {                                                    \
            size_t nc = n - jc < NC ? n - jc : NC;                                                 \
            for (size_t pc = 0; pc < k; pc += KC) {                                                \
                size_t kc = k - pc < KC ? k - pc : KC;                                             \
                for (size_t jr = 0; jr < nc; jr += NR)                                             \
                    pack_b_##TAG(bp + jr * kc,                                                     \
                                 g->b + (ptrdiff_t)pc * g->b_rs + (ptrdiff_t)(jc + jr) * g->b_cs,  \
                                 g->b_rs, g->b_cs, kc, nc - jr < NR ? nc - jr : NR);               \
                for (size_t ic = 0; ic < m; ic += MC) {                                            \
                    size_t mc = m - ic < MC ? m - ic : MC;                                         \
                    for (size_t ir = 0; ir < mc; ir += MR)                                         \
                        pack_a_##TAG(ap + ir * kc,                                                 \
                                     g->a + (ptrdiff_t)(ic + ir) * g->a_rs + (ptrdiff_t)pc * g->a_cs, \
                                     g->a_rs, g->a_cs, kc, mc - ir < MR ? mc - ir : MR);           \
                    for (size_t jr = 0; jr < nc; jr += NR) {                                       \
                        for (size_t ir = 0; ir < mc; ir += MR) {                                   \
                            T *c = g->c + (ic + ir) * g->ldc + jc + jr;                            \
                            size_t rows = mc - ir < MR ? mc - ir : MR;                             \
                            size_t cols = nc - jr < NR ? nc - jr : NR;                             \
                            if (rows == MR && cols == NR) {                                        \
                                micro(kc, ap + ir * kc, bp + jr * kc, c, g->ldc);                  \
                                continue;                                                          \
                            }                                                                      \
                            T tile[MR * NR] = {0};                                                 \
                            for (size_t r = 0; r < rows; r++)                                      \
                                memcpy(tile + r * NR, c + r * g->ldc, cols * sizeof(T));           \
                            micro(kc, ap + ir * kc, bp + jr * kc, tile, NR);                       \
                            for (size_t r = 0; r < rows; r++)                                      \
                                memcpy(c + r * g->ldc, tile + r * NR, cols * sizeof(T));           \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        return 0;                                                                                  \
    }

DEFINE_BLOCKED(float, f32, f32, NR_F32, micro_f32_avx2, micro_f32_portable)
DEFINE_BLOCKED(double, f64, f64, NR_F64, micro_f64_avx2, micro_f64_portable)
DEFINE_BLOCKED(float, f32, magnitude_f32, NR_F32, micro_f32_avx2, micro_f32_portable)
DEFINE_BLOCKED(double, f64, magnitude_f64, NR_F64, micro_f64_avx2, micro_f64_portable)
