/*
 * fpdiv's CUDA kernels, compiled from their .cu files (kernels/cuda/) through the host shim
 * (cuda_host.h), each against its CPU twin, bit for bit: cuda-seq and cuda-tiled against seq, cuda-splitk against
 * splitk, cuda-wmma against every tensor-core model (tc-*) whose GPU it would run on. Over shapes,
 * transposes, padding, bias and special values, under three schedules of a block's threads. Then
 * the launches: grids past the GPU's limits, and errors left by earlier calls.
 * tests/gpu/host/mutants.sh proves these tests can fail: planted faults must turn them red.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/builtin.h"
#include "common/dtype.h"
#include "cpu/kernels.h"
#include "cpu/tensor_core.h"
#include "cuda/kernels.cuh"
#include "host_runtime.h"

/* splitmix64: the values of every configuration, from its number. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A value of a type with `precision` bits and smallest normal exponent `emin`: mostly of modest
 * size and either sign; with specials, also NaN, infinities, zeros of both signs, subnormals and
 * values near overflow. */
static double value(uint64_t *s, bool specials, int precision, int emin, int emax)
{
    uint64_t r = next(s);
    double sign = r & 1 ? -1 : 1, frac = ldexp((double)(next(s) >> (65 - precision)), 1 - precision);
    if (specials) {
        switch (r >> 1 & 31) {
        case 0: return NAN;
        case 1: return sign * INFINITY;
        case 2: case 3: return sign * 0.0;
        case 4: case 5: return sign * ldexp(frac, emin);           /* subnormal */
        case 6: return sign * ldexp(1 + frac, emax - (int)(r >> 8 & 1)); /* near overflow */
        }
    }
    return sign * ldexp(1 + frac, (int)(r >> 8 & 15) % 13 - 6);
}

struct shape {
    size_t m, n, k;
};
static const struct shape shapes[] = {{1, 1, 1}, {7, 13, 33}, {16, 16, 16}, {17, 33, 65}, {33, 17, 5},
                                      {3, 64, 100}, {1, 70, 1}, {65, 3, 17}, {5, 6, 0}, {2, 40, 257}};

/* One configuration of a plain kernel's test. */
struct config {
    struct shape s;
    bool trans_a, trans_b, bias, specials;
    size_t pad;
    enum fpd_host_schedule schedule;
};

enum { NSCHEDULES = 3 };

/* Every configuration, in turn: false when there are no more. */
static bool config_at(size_t index, struct config *c)
{
    size_t nshapes = sizeof shapes / sizeof shapes[0];
    if (index >= nshapes * 32 * NSCHEDULES)
        return false;
    c->s = shapes[index % nshapes];
    size_t bits = index / nshapes % 32;
    c->trans_a = bits & 1, c->trans_b = bits >> 1 & 1, c->bias = bits >> 2 & 1, c->specials = bits >> 3 & 1;
    c->pad = bits >> 4 & 1 ? 3 : 0;
    c->schedule = (enum fpd_host_schedule)(index / nshapes / 32);
    return true;
}

static const float CANARY_F32 = -12345.5f;
static const double CANARY_F64 = -12345.5;

struct tally {
    size_t configs, elements, mismatches;
    char first[512];
};

/* The same bits, or NaN both (a CPU kernel stores C's NAN for any NaN: kernels.h). */
static bool same_f32(float x, float y) { return (isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0; }
static bool same_f64(double x, double y) { return (isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0; }

static void describe(struct tally *t, const char *kernel, const struct config *c, size_t i, size_t j, double got,
                     double want)
{
    if (t->mismatches++ == 0)
        snprintf(t->first, sizeof t->first,
                 "%s differs from its CPU twin at C[%zu][%zu] of %zux%zux%zu%s%s%s%s pad %zu, schedule %d: %a, twin %a",
                 kernel, i, j, c->s.m, c->s.n, c->s.k, c->trans_a ? " trans-a" : "", c->trans_b ? " trans-b" : "",
                 c->bias ? " bias" : "", c->specials ? " specials" : "", c->pad, (int)c->schedule, got, want);
}

typedef cudaError_t (*cuda_f32_fn)(const struct fpd_kgemm_f32 *, cudaStream_t);
typedef int (*cpu_f32_fn)(const struct fpd_kgemm_f32 *);

/* cuda-splitk's launcher takes its workspace; the plain ones' signature with a static one. */
static float *splitk_partials_f32;
static double *splitk_partials_f64;
static cudaError_t splitk_f32(const struct fpd_kgemm_f32 *g, cudaStream_t s)
{
    return fpd_cuda_splitk_f32(g, splitk_partials_f32, s);
}
static cudaError_t splitk_f64(const struct fpd_kgemm_f64 *g, cudaStream_t s)
{
    return fpd_cuda_splitk_f64(g, splitk_partials_f64, s);
}

/* A kernel and its CPU twin, in one precision. */
#define TWIN_TEST(T, SUFFIX, PRECISION, EMIN, EMAX, CANARY, SAME)                                              \
    static void twin_##SUFFIX(const char *name, cudaError_t (*gpu)(const struct fpd_kgemm_##SUFFIX *, cudaStream_t), \
                              int (*cpu)(const struct fpd_kgemm_##SUFFIX *), struct tally *t)                   \
    {                                                                                                          \
        struct config c;                                                                                       \
        for (size_t index = 0; config_at(index, &c); index++) {                                                \
            size_t m = c.s.m, n = c.s.n, k = c.s.k, lda = (c.trans_a ? m : k) + c.pad,                         \
                   ldb = (c.trans_b ? k : n) + c.pad, ldc = n + c.pad;                                         \
            T *a = malloc(sizeof(T) * (lda * (c.trans_a ? k : m) + 1)),                                        \
              *b = malloc(sizeof(T) * (ldb * (c.trans_b ? n : k) + 1)), *bias = malloc(sizeof(T) * (n + 1)),   \
              *want = malloc(sizeof(T) * m * ldc), *got = malloc(sizeof(T) * m * ldc);                         \
            uint64_t seed = index * 7919 + 17;                                                                 \
            for (size_t e = 0; e < lda * (c.trans_a ? k : m); e++)                                            \
                a[e] = (T)value(&seed, c.specials, PRECISION, EMIN, EMAX);                                     \
            for (size_t e = 0; e < ldb * (c.trans_b ? n : k); e++)                                             \
                b[e] = (T)value(&seed, c.specials, PRECISION, EMIN, EMAX);                                     \
            for (size_t e = 0; e < n; e++)                                                                     \
                bias[e] = (T)value(&seed, c.specials, PRECISION, EMIN, EMAX);                                  \
            for (size_t e = 0; e < m * ldc; e++)                                                               \
                want[e] = got[e] = CANARY;                                                                     \
            ptrdiff_t a_rs = c.trans_a ? 1 : (ptrdiff_t)lda, a_cs = c.trans_a ? (ptrdiff_t)lda : 1;           \
            ptrdiff_t b_rs = c.trans_b ? 1 : (ptrdiff_t)ldb, b_cs = c.trans_b ? (ptrdiff_t)ldb : 1;           \
            struct fpd_kgemm_##SUFFIX g = {.m = m, .n = n, .k = k, .a = a, .a_rs = a_rs, .a_cs = a_cs, .b = b,  \
                                           .b_rs = b_rs, .b_cs = b_cs, .c = want, .ldc = ldc,                  \
                                           .bias = c.bias ? bias : NULL};                                      \
            cr_assert_eq(cpu(&g), 0);                                                                          \
            g.c = got;                                                                                         \
            fpd_host_set_schedule(c.schedule, index);                                                          \
            cudaError_t rc = gpu(&g, NULL);                                                                    \
            cr_assert_eq(rc, cudaSuccess, "%s at %zux%zux%zu: %s: %s", name, m, n, k, cudaGetErrorName(rc),    \
                         fpd_host_last_failure());                                                            \
            for (size_t i = 0; i < m; i++)                                                                     \
                for (size_t j = 0; j < ldc; j++) {                                                             \
                    T x = got[i * ldc + j], y = want[i * ldc + j];                                             \
                    if (j < n ? !SAME(x, y) : !SAME(x, CANARY))                                                \
                        describe(t, name, &c, i, j, x, y);                                                     \
                }                                                                                              \
            t->configs++;                                                                                      \
            t->elements += m * n;                                                                              \
            free(a), free(b), free(bias), free(want), free(got);                                               \
        }                                                                                                      \
    }

TWIN_TEST(float, f32, 24, -126, 127, CANARY_F32, same_f32)
TWIN_TEST(double, f64, 53, -1022, 1023, CANARY_F64, same_f64)

static void report(const char *what, const struct tally *t)
{
    fprintf(stderr, "%s: %zu elements over %zu configurations, %zu differ\n", what, t->elements, t->configs,
            t->mismatches);
    cr_assert_eq(t->mismatches, 0, "%s", t->first);
    cr_assert_gt(t->elements, 0);
}

static void with_splitk_workspace(void)
{
    size_t most = 0; /* the largest m x n of the shapes, FPD_SPLITK_PARTS times */
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        most = shapes[s].m * shapes[s].n > most ? shapes[s].m * shapes[s].n : most;
    splitk_partials_f32 = malloc(sizeof(float) * FPD_SPLITK_PARTS * most);
    splitk_partials_f64 = malloc(sizeof(double) * FPD_SPLITK_PARTS * most);
}

TestSuite(twins, .init = with_splitk_workspace);

Test(twins, cuda_seq_is_seq)
{
    struct tally t = {0};
    twin_f32("cuda-seq f32", fpd_cuda_seq_f32, fpd_kernel_seq_f32, &t);
    twin_f64("cuda-seq f64", fpd_cuda_seq_f64, fpd_kernel_seq_f64, &t);
    report("cuda-seq against seq", &t);
}

Test(twins, cuda_tiled_is_seq)
{
    struct tally t = {0};
    twin_f32("cuda-tiled f32", fpd_cuda_tiled_f32, fpd_kernel_seq_f32, &t);
    twin_f64("cuda-tiled f64", fpd_cuda_tiled_f64, fpd_kernel_seq_f64, &t);
    report("cuda-tiled against seq", &t);
}

Test(twins, cuda_splitk_is_splitk)
{
    struct tally t = {0};
    twin_f32("cuda-splitk f32", splitk_f32, fpd_kernel_splitk_f32, &t);
    twin_f64("cuda-splitk f64", splitk_f64, fpd_kernel_splitk_f64, &t);
    report("cuda-splitk against splitk", &t);
}

/* cuda-wmma against a tensor-core model: the operands padded to multiples of 16 with zeros and C
 * prefilled with the bias rows, as the adapter (backend_cuda_own.c) gives them to the kernel; the
 * model's kernel on the unpadded ones. The values are those of the 16-bit input type. */
static void wmma_twin(const char *model, enum fpd_dtype in, struct tally *t)
{
    struct fpd_backend_slot *slot = fpd_registry_find(model);
    cr_assert_not_null(slot, "%s", model);
    cr_assert_eq(fpd_backend_acquire(slot), FPD_OK, "%s", slot->why);
    struct fpd_dtypes dt = {in, FPD_F32, FPD_F32};
    char why[256];
    if (!fpd_backend_supports(slot, &dt, why, sizeof why))
        return; /* V100's tensor cores take no bf16 */
    struct fpd_rounding r;
    fpd_backend_rounding(slot, &dt, &r);
    const struct fpd_dtype_info *info = fpd_dtype_info(in);
    struct fpd_tc_arith arith = {.block = r.block, .extra_bits = r.extra_bits, .min_exp = r.min_exp,
                                 .toward_zero = r.toward_zero, .in_emin = info->emin,
                                 .in_fraction_bits = info->precision - 1, .acc_precision = 24, .acc_emin = -126,
                                 .acc_emax = 127};
    fpd_host_set_tensor_core(&arith, &arith);
    static const struct shape tc_shapes[] = {{16, 16, 16}, {1, 1, 1}, {5, 20, 37}, {32, 48, 64}, {17, 3, 100}};
    for (size_t si = 0; si < sizeof tc_shapes / sizeof tc_shapes[0]; si++)
        for (int specials = 0; specials < 2; specials++) {
            struct shape s = tc_shapes[si];
            size_t mp = (s.m + 15) / 16 * 16, np = (s.n + 15) / 16 * 16, kp = (s.k + 15) / 16 * 16;
            float *a = calloc(s.m * s.k, sizeof(float)), *b = calloc(s.k * s.n, sizeof(float)),
                  *bias = calloc(s.n, sizeof(float)), *want = calloc(s.m * s.n, sizeof(float)),
                  *got = calloc(mp * np, sizeof(float));
            uint16_t *pa = calloc(mp * kp, 2), *pb = calloc(kp * np, 2);
            uint64_t seed = si * 31 + (uint64_t)specials;
            for (size_t i = 0; i < s.m; i++)
                for (size_t p = 0; p < s.k; p++) {
                    double v = value(&seed, specials, info->precision, info->emin, info->emax);
                    pa[i * kp + p] = (uint16_t)fpd_bits_of_value(in, v);
                    a[i * s.k + p] = (float)fpd_value_of_bits(in, pa[i * kp + p]);
                }
            for (size_t p = 0; p < s.k; p++)
                for (size_t j = 0; j < s.n; j++) {
                    double v = value(&seed, specials, info->precision, info->emin, info->emax);
                    pb[p * np + j] = (uint16_t)fpd_bits_of_value(in, v);
                    b[p * s.n + j] = (float)fpd_value_of_bits(in, pb[p * np + j]);
                }
            for (size_t j = 0; j < s.n; j++)
                bias[j] = (float)value(&seed, false, 24, -126, 127);
            for (size_t i = 0; i < mp; i++)
                for (size_t j = 0; j < np; j++)
                    got[i * np + j] = j < s.n ? bias[j] : 0.0f;
            struct fpd_kgemm_f32 g = {.m = s.m, .n = s.n, .k = s.k, .a = a, .a_rs = (ptrdiff_t)s.k, .a_cs = 1,
                                      .b = b, .b_rs = (ptrdiff_t)s.n, .b_cs = 1, .c = want, .ldc = s.n, .bias = bias};
            cr_assert_eq(fpd_kernel_tensor_core(&arith, &g), 0);
            cudaError_t rc = fpd_cuda_wmma(mp, np, kp, pa, pb, got, in == FPD_BF16, NULL);
            cr_assert_eq(rc, cudaSuccess, "cuda-wmma: %s: %s", cudaGetErrorName(rc), fpd_host_last_failure());
            struct config c = {.s = s, .bias = true, .specials = specials};
            for (size_t i = 0; i < s.m; i++)
                for (size_t j = 0; j < s.n; j++)
                    if (!same_f32(got[i * np + j], want[i * s.n + j]))
                        describe(t, model, &c, i, j, got[i * np + j], want[i * s.n + j]);
            t->configs++;
            t->elements += s.m * s.n;
            free(a), free(b), free(bias), free(want), free(got), free(pa), free(pb);
        }
    fpd_host_set_tensor_core(NULL, NULL);
}

Test(twins, cuda_wmma_is_each_tensor_core_model)
{
    struct tally t = {0};
    fpd_registry_init();
    static const char *const models[] = {"tc-v100", "tc-a100", "tc-ada", "tc-h100", "tc-b200", "tc-b200rn"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        wmma_twin(models[i], FPD_F16, &t);
        wmma_twin(models[i], FPD_BF16, &t);
    }
    fpd_registry_close_all();
    report("cuda-wmma against the tc-* models", &t);
}

/* Launches. */

/* More rows than a grid of 65535 blocks of 16 holds: the kernels stride over the rest. */
Test(launch, rows_past_the_grid_limit)
{
    size_t m = (size_t)FPD_CUDA_GRID_YZ_MAX * 16 + 3, n = 1, k = 2;
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k), *c = malloc(sizeof(float) * m);
    for (size_t e = 0; e < m * k; e++)
        a[e] = (float)(e % 1000);
    b[0] = 1.0f, b[1] = 0.5f;
    struct fpd_kgemm_f32 g = {.m = m, .n = n, .k = k, .a = a, .a_rs = 2, .a_cs = 1, .b = b, .b_rs = 1, .b_cs = 1,
                              .c = c, .ldc = 1};
    cudaError_t rc = fpd_cuda_seq_f32(&g, NULL);
    cr_assert_eq(rc, cudaSuccess, "%s: %s", cudaGetErrorName(rc), fpd_host_last_failure());
    for (size_t i = 0; i < m; i++)
        cr_assert_eq(c[i], a[2 * i] + 0.5f * a[2 * i + 1], "row %zu of %zu", i, m);
    free(a), free(b), free(c);
}

/* c = a·b, as a 1 x 1 x 1 GEMM. */
static struct fpd_kgemm_f32 scalar_gemm(const float *a, const float *b, float *c)
{
    return (struct fpd_kgemm_f32){.m = 1, .n = 1, .k = 1, .a = a, .a_rs = 1, .a_cs = 1, .b = b, .b_rs = 1, .b_cs = 1,
                                  .c = c, .ldc = 1};
}

/* An error an earlier call left behind is not this launch's. */
Test(launch, an_earlier_error_is_not_the_launch_s)
{
    float a = 2, b = 3, c = 0;
    struct fpd_kgemm_f32 g = scalar_gemm(&a, &b, &c);
    fpd_host_raise(cudaErrorInvalidValue, 0);
    cr_assert_eq(fpd_cuda_tiled_f32(&g, NULL), cudaSuccess);
    cr_assert_eq(c, 6.0f);
    float partials[FPD_SPLITK_PARTS];
    fpd_host_raise(cudaErrorInvalidValue, 0);
    cr_assert_eq(fpd_cuda_splitk_f32(&g, partials, NULL), cudaSuccess);
}

/* A sticky fault fails every launch until the device is reset. */
Test(launch, a_sticky_fault_fails_launches_until_reset)
{
    float a = 2, b = 3, c = 0;
    struct fpd_kgemm_f32 g = scalar_gemm(&a, &b, &c);
    fpd_host_raise(cudaErrorIllegalAddress, 1);
    cr_assert_eq(fpd_cuda_seq_f32(&g, NULL), cudaErrorIllegalAddress);
    cr_assert_eq(fpd_cuda_seq_f32(&g, NULL), cudaErrorIllegalAddress);
    fpd_host_reset();
    cr_assert_eq(fpd_cuda_seq_f32(&g, NULL), cudaSuccess);
    cr_assert_eq(c, 6.0f);
}

/* Built for an architecture whose tensor cores do not take the type, the kernel traps. */
Test(launch, wmma_without_a_model_traps)
{
    uint16_t a[256] = {0}, b[256] = {0};
    float c[256] = {0};
    fpd_host_set_tensor_core(NULL, NULL);
    cr_assert_eq(fpd_cuda_wmma(16, 16, 16, a, b, c, 0, NULL), cudaErrorLaunchFailure);
    cr_assert(strstr(fpd_host_last_failure(), "__trap()"), "%s", fpd_host_last_failure());
    fpd_host_reset();
}
