/*
 * fpdiv's CUDA adapters (src/backends/cuda/) on the CPU: the stand-in runtime, cuBLAS and cuBLASLt
 * of this directory under them, the own kernels through the host shim (tests/gpu/host/). Each
 * test is one of the review's findings on these adapters, and fails without its fix; run under
 * AddressSanitizer (make test SANITIZE=1), the upload's over-read is a heap-buffer-overflow.
 */
#include <criterion/criterion.h>
#include <cublasLt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_tensor_core.h"
#include "common/dtype.h"
#include "cpu/kernels.h"
#include "cpu/tensor_core.h"
#include "fpdiv_backend.h"
#include "host_runtime.h"
#include "standin.h"

extern const struct fpd_backend fpd_backend_cuda_seq, fpd_backend_cuda_tiled, fpd_backend_cuda_splitk,
    fpd_backend_cuda_wmma, fpd_backend_cublas, fpd_backend_cublaslt, fpd_backend_tc_h100;

static void *open_backend(const struct fpd_backend *b)
{
    void *state;
    char why[256];
    cr_assert_eq(b->open(b, &state, why, sizeof why), FPD_OK, "%s: %s", b->name, why);
    return state;
}

/* The provenance value of `key`, "" if none. */
struct lookup {
    const char *key;
    char value[256];
};
static void find_key(void *ctx, const char *key, const char *value)
{
    struct lookup *l = ctx;
    if (strcmp(key, l->key) == 0)
        snprintf(l->value, sizeof l->value, "%s", value);
}
static const char *provenance(const struct fpd_backend *b, void *state, const char *key, struct lookup *l)
{
    *l = (struct lookup){.key = key};
    b->provenance(state, find_key, l);
    return l->value;
}

/* C = A·B of 2 x 2 f32 matrices, row-major. */
static struct fpd_gemm_args gemm_2x2x2(const float *a, const float *b, float *c)
{
    return (struct fpd_gemm_args){.dt = {FPD_F32, FPD_F32, FPD_F32}, .batch = 1, .m = 2, .n = 2, .k = 2, .a = a,
                                  .lda = 2, .stride_a = 4, .b = b, .ldb = 2, .stride_b = 4, .c = c, .ldc = 2,
                                  .stride_c = 4};
}

static const struct fpd_backend *const all_adapters[] = {&fpd_backend_cuda_seq, &fpd_backend_cuda_tiled,
                                                         &fpd_backend_cuda_splitk, &fpd_backend_cublas,
                                                         &fpd_backend_cublaslt};

static void fresh(void)
{
    fpd_standin_reset_faults();
    fpd_host_reset();
}
TestSuite(adapters, .init = fresh);

/* Finding 1: the operands' upload reads their views, not whole rows of their tensors. B is the
 * last column of a 64 x 127 tensor's 64 columns from 63 on: its last row ends with the tensor,
 * allocated to the byte, so one byte more is a heap-buffer-overflow under AddressSanitizer. */
Test(adapters, upload_reads_the_view_alone)
{
    size_t m = 1, n = 64, k = 64, ldb = 127, offset = 63;
    float *a = malloc(sizeof(float) * k), *tensor = malloc(sizeof(float) * ((k - 1) * ldb + offset + n));
    for (size_t p = 0; p < k; p++)
        a[p] = (float)(p % 7) - 3.0f;
    for (size_t e = 0; e < (k - 1) * ldb + offset + n; e++)
        tensor[e] = (float)(e % 11) * 0.25f;
    const float *b = tensor + offset;
    float want[64], want_splitk[64], got[64];
    struct fpd_kgemm_f32 ref = {.m = m, .n = n, .k = k, .a = a, .a_rs = (ptrdiff_t)k, .a_cs = 1, .b = b,
                                .b_rs = (ptrdiff_t)ldb, .b_cs = 1, .c = want, .ldc = n};
    fpd_kernel_seq_f32(&ref);
    ref.c = want_splitk;
    fpd_kernel_splitk_f32(&ref);
    for (size_t i = 0; i < sizeof all_adapters / sizeof all_adapters[0]; i++) {
        const struct fpd_backend *be = all_adapters[i];
        void *s = open_backend(be);
        struct fpd_gemm_args g = {.dt = {FPD_F32, FPD_F32, FPD_F32}, .batch = 1, .m = m, .n = n, .k = k, .a = a,
                                  .lda = k, .stride_a = k, .b = b, .ldb = ldb, .stride_b = 0, .c = got, .ldc = n,
                                  .stride_c = n};
        char why[256];
        cr_assert_eq(be->gemm(s, &g, why, sizeof why), FPD_OK, "%s: %s", be->name, why);
        /* the own kernels sum as their twins, the stand-in's cuBLAS (no split-K in f32) as seq */
        cr_assert_arr_eq(got, be == &fpd_backend_cuda_splitk ? want_splitk : want, sizeof got, "%s", be->name);
        be->close(s);
    }
    free(a), free(tensor);
}

/* Finding 2: the adapters take exactly the type combinations cuBLAS documents, for the compute
 * type they ask for (the accumulator's: 32 or 64 bits): one they accept runs, one they refuse the
 * stand-in's cuBLAS (which keeps the documentation's table) refuses. */
Test(adapters, blas_types_are_cublas_s)
{
    const struct fpd_backend *blas[] = {&fpd_backend_cublas, &fpd_backend_cublaslt};
    size_t accepted = 0, refused = 0;
    for (size_t bi = 0; bi < 2; bi++) {
        void *s = open_backend(blas[bi]);
        for (int in = 0; in < FPD_DTYPE_COUNT; in++)
            for (int out = 0; out < FPD_DTYPE_COUNT; out++)
                for (int acc = 0; acc < FPD_DTYPE_COUNT; acc++) {
                    struct fpd_dtypes dt = {in, out, acc};
                    char why[256];
                    if (!fpd_dtypes_valid(&dt, why, sizeof why))
                        continue;
                    bool supported = blas[bi]->supports(s, &dt, why, sizeof why);
                    if (dt.acc != FPD_F32 && dt.acc != FPD_F64) { /* the adapters compute in 32 or 64 bits */
                        cr_assert(!supported, "%s takes an accumulator of %s", blas[bi]->name,
                                  fpd_dtype_info(dt.acc)->name);
                        continue;
                    }
                    unsigned char a[64] = {0}, b[64] = {0}, c[64];
                    struct fpd_gemm_args g = {.dt = dt, .batch = 1, .m = 2, .n = 2, .k = 2, .a = a, .lda = 2,
                                              .stride_a = 4, .b = b, .ldb = 2, .stride_b = 4, .c = c, .ldc = 2,
                                              .stride_c = 4};
                    int rc = blas[bi]->gemm(s, &g, why, sizeof why);
                    cr_assert_eq(rc == FPD_OK, supported, "%s, in %s out %s acc %s: supports says %d, the GEMM: %s",
                                 blas[bi]->name, fpd_dtype_info(dt.in)->name, fpd_dtype_info(dt.out)->name,
                                 fpd_dtype_info(dt.acc)->name, supported, rc == FPD_OK ? "ran" : why);
                    supported ? accepted++ : refused++;
                }
        blas[bi]->close(s);
    }
    cr_assert(accepted > 0 && refused > 0);
}

/* Finding 4: with a 16-bit output, no split-K reduction in the output type. cuBLAS's handle
 * disallows it, and its result is the f32 accumulator's, rounded once; cuBLASLt's preference
 * leaves out the schemes that reduce in the output type, and the algorithm it ran says so. */
Test(adapters, no_reduction_in_a_16_bit_output)
{
    enum { M = 3, N = 5, K = 128 };
    uint16_t a[M * K], b[K * N], c[M * N];
    float af[M * K], bf[K * N], want[M * N];
    uint64_t seed = 7;
    for (size_t e = 0; e < M * K + K * N; e++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        double v = ldexp((double)(seed >> 53), -53) * 2 - 1;
        uint16_t bits = (uint16_t)fpd_bits_of_value(FPD_F16, v);
        if (e < M * K)
            a[e] = bits, af[e] = (float)fpd_value_of_bits(FPD_F16, bits);
        else
            b[e - M * K] = bits, bf[e - M * K] = (float)fpd_value_of_bits(FPD_F16, bits);
    }
    struct fpd_kgemm_f32 ref = {.m = M, .n = N, .k = K, .a = af, .a_rs = K, .a_cs = 1, .b = bf, .b_rs = N, .b_cs = 1,
                                .c = want, .ldc = N};
    fpd_kernel_seq_f32(&ref);
    struct fpd_gemm_args g = {.dt = {FPD_F16, FPD_F16, FPD_F32}, .batch = 1, .m = M, .n = N, .k = K, .a = a, .lda = K,
                              .stride_a = M * K, .b = b, .ldb = N, .stride_b = K * N, .c = c, .ldc = N,
                              .stride_c = M * N};
    char why[256];
    void *s = open_backend(&fpd_backend_cublas);
    cr_assert_eq(fpd_backend_cublas.gemm(s, &g, why, sizeof why), FPD_OK, "%s", why);
    cr_assert(fpd_standin_last_math_mode() & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    for (size_t e = 0; e < M * N; e++)
        cr_assert_eq(c[e], (uint16_t)fpd_bits_of_value(FPD_F16, want[e]), "element %zu", e);
    fpd_backend_cublas.close(s);

    s = open_backend(&fpd_backend_cublaslt);
    for (g.algo = 0; g.algo < 3; g.algo++) {
        cr_assert_eq(fpd_backend_cublaslt.gemm(s, &g, why, sizeof why), FPD_OK, "algorithm %d: %s", g.algo, why);
        cr_assert_eq(fpd_standin_last_reduction_mask(), CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE);
    }
    struct lookup l;
    cr_assert(strstr(provenance(&fpd_backend_cublaslt, s, "algo_1", &l), " reduction 2"), "algo_1: %s", l.value);
    cr_assert(strstr(provenance(&fpd_backend_cublaslt, s, "algo_0", &l), " splitk 1 "), "algo_0: %s", l.value);
    fpd_backend_cublaslt.close(s);
}

/* Finding 3, in the adapter: the `algo` relation runs candidates 0 and j; each keeps its own
 * record, neither overwrites the other. */
Test(adapters, each_algorithm_run_is_recorded)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
    struct fpd_gemm_args g = gemm_2x2x2(a, b, c);
    char why[256];
    void *s = open_backend(&fpd_backend_cublaslt);
    for (g.algo = 0; g.algo < 2; g.algo++)
        cr_assert_eq(fpd_backend_cublaslt.gemm(s, &g, why, sizeof why), FPD_OK, "%s", why);
    struct lookup l;
    cr_assert(strstr(provenance(&fpd_backend_cublaslt, s, "algo_0", &l), "id 100 "), "algo_0: %s", l.value);
    cr_assert(strstr(provenance(&fpd_backend_cublaslt, s, "algo_1", &l), "id 101 "), "algo_1: %s", l.value);
    fpd_backend_cublaslt.close(s);
}

/* Finding 5: a fault that leaves the context unusable fails its GEMM, and the next one runs. */
Test(adapters, a_sticky_fault_costs_one_gemm)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
    const float want[4] = {19, 22, 43, 50};
    for (size_t i = 0; i < sizeof all_adapters / sizeof all_adapters[0]; i++) {
        const struct fpd_backend *be = all_adapters[i];
        void *s = open_backend(be);
        struct fpd_gemm_args g = gemm_2x2x2(a, b, c);
        char why[256];
        cr_assert_eq(be->gemm(s, &g, why, sizeof why), FPD_OK, "%s: %s", be->name, why);
        fpd_standin_fail_next("cudaStreamSynchronize", cudaErrorIllegalAddress, 1);
        cr_assert_eq(be->gemm(s, &g, why, sizeof why), FPD_ERR_BACKEND, "%s", be->name);
        cr_assert(strstr(why, "illegal memory access"), "%s: %s", be->name, why);
        memset(c, 0, sizeof c);
        cr_assert_eq(be->gemm(s, &g, why, sizeof why), FPD_OK, "%s after the fault: %s", be->name, why);
        cr_assert_arr_eq(c, want, sizeof c, "%s", be->name);
        struct lookup l;
        cr_assert_str_eq(provenance(be, s, "device_resets", &l), "1", "%s", be->name);
        be->close(s);
        cr_assert_eq(fpd_standin_live_allocations(), 0, "%s left device memory", be->name);
        cr_assert_eq(fpd_standin_live_objects(), 0, "%s left CUDA objects", be->name);
    }
}

/* Finding 8: a failing cuBLAS call is named, with its own status: no statuses or-ed together. */
Test(adapters, the_failing_call_is_named)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
    struct fpd_gemm_args g = gemm_2x2x2(a, b, c);
    char why[256];
    void *s = open_backend(&fpd_backend_cublaslt);
    fpd_standin_fail_next_blas("cublasLtMatrixLayoutCreate", CUBLAS_STATUS_ALLOC_FAILED);
    cr_assert_eq(fpd_backend_cublaslt.gemm(s, &g, why, sizeof why), FPD_ERR_BACKEND);
    cr_assert(strstr(why, "B's layout: CUBLAS_STATUS_ALLOC_FAILED"), "%s", why);
    fpd_standin_fail_next_blas("cublasLtMatmulDescSetAttribute", CUBLAS_STATUS_INVALID_VALUE);
    cr_assert_eq(fpd_backend_cublaslt.gemm(s, &g, why, sizeof why), FPD_ERR_BACKEND);
    cr_assert(strstr(why, "TRANSA: CUBLAS_STATUS_INVALID_VALUE"), "%s", why);
    cr_assert_eq(fpd_backend_cublaslt.gemm(s, &g, why, sizeof why), FPD_OK, "%s", why);
    fpd_backend_cublaslt.close(s);
    cr_assert_eq(fpd_standin_live_objects(), 0);
}

/* Finding 8: a size past cuBLAS's int is refused with its name, before anything is copied. */
Test(adapters, sizes_past_an_int_are_refused)
{
    char why[256];
    const struct fpd_backend *blas[] = {&fpd_backend_cublas, &fpd_backend_cublaslt};
    for (size_t bi = 0; bi < 2; bi++) {
        void *s = open_backend(blas[bi]);
        struct fpd_gemm_args g = {.dt = {FPD_F32, FPD_F32, FPD_F32}, .batch = 1, .m = (size_t)INT_MAX + 1, .n = 1,
                                  .k = 1, .a = (void *)8, .lda = 1, .b = (void *)8, .ldb = 1, .c = (void *)8, .ldc = 1};
        cr_assert_eq(blas[bi]->gemm(s, &g, why, sizeof why), FPD_ERR_BACKEND);
        cr_assert(strstr(why, "m = 2147483648 is more than cuBLAS takes"), "%s", why);
        blas[bi]->close(s);
    }
}

/* The bias as cuBLAS's beta = 1 on C prefilled with it, over a batch, from one copy per entry. */
Test(adapters, the_bias_prefills_every_batch_entry)
{
    enum { BATCH = 3, M = 4, N = 5, K = 6 };
    double a[BATCH * M * K], b[BATCH * K * N], bias[N], c[BATCH * M * N], want[BATCH * M * N];
    for (size_t e = 0; e < BATCH * M * K; e++)
        a[e] = (double)(e % 5) - 2;
    for (size_t e = 0; e < BATCH * K * N; e++)
        b[e] = (double)(e % 3) + 0.5;
    for (size_t j = 0; j < N; j++)
        bias[j] = 100.0 * (double)j;
    for (size_t x = 0; x < BATCH; x++) {
        struct fpd_kgemm_f64 ref = {.m = M, .n = N, .k = K, .a = a + x * M * K, .a_rs = K, .a_cs = 1,
                                    .b = b + x * K * N, .b_rs = N, .b_cs = 1, .c = want + x * M * N, .ldc = N,
                                    .bias = bias};
        fpd_kernel_seq_f64(&ref);
    }
    struct fpd_gemm_args g = {.dt = {FPD_F64, FPD_F64, FPD_F64}, .batch = BATCH, .m = M, .n = N, .k = K, .a = a,
                              .lda = K, .stride_a = M * K, .b = b, .ldb = N, .stride_b = K * N, .c = c, .ldc = N,
                              .stride_c = M * N, .bias = bias};
    char why[256];
    void *s = open_backend(&fpd_backend_cublas);
    cr_assert_eq(fpd_backend_cublas.gemm(s, &g, why, sizeof why), FPD_OK, "%s", why);
    cr_assert_arr_eq(c, want, sizeof c);
    fpd_backend_cublas.close(s);
}

/* BLAS's own alpha and beta (the alpha-beta relation) on cuBLAS and cuBLASLt: alpha = 2^3 and beta
 * = 2^-2 on C holding the bias times 2^5 give 2^3 (A·B + bias); without a bias, beta is 0 and C's
 * NaN poison must stay unread (cuBLASLt's bias then goes on C, not through its epilogue). */
Test(adapters, blas_scalars_alpha_and_beta)
{
    enum { BATCH = 2, M = 3, N = 4, K = 5 };
    float a[BATCH * M * K], b[BATCH * K * N], bias[N], handed[N], c[BATCH * M * N], want[BATCH * M * N];
    for (size_t e = 0; e < BATCH * M * K; e++)
        a[e] = (float)(e % 7) - 3;
    for (size_t e = 0; e < BATCH * K * N; e++)
        b[e] = (float)(e % 4) + 0.5f;
    for (size_t j = 0; j < N; j++)
        bias[j] = 10.0f * (float)j - 7, handed[j] = bias[j] * 32;
    const struct fpd_backend *blas[] = {&fpd_backend_cublas, &fpd_backend_cublaslt};
    for (size_t bi = 0; bi < 2; bi++) {
        cr_assert(blas[bi]->features & FPD_FEAT_SCALARS, "%s", blas[bi]->name);
        for (int with_bias = 0; with_bias < 2; with_bias++) {
            for (size_t x = 0; x < BATCH; x++) {
                struct fpd_kgemm_f32 ref = {.m = M, .n = N, .k = K, .a = a + x * M * K, .a_rs = K, .a_cs = 1,
                                            .b = b + x * K * N, .b_rs = N, .b_cs = 1, .c = want + x * M * N,
                                            .ldc = N, .bias = with_bias ? bias : NULL};
                fpd_kernel_seq_f32(&ref);
            }
            int alpha_exp = with_bias ? 3 : -1;
            for (size_t e = 0; e < BATCH * M * N; e++)
                want[e] = ldexpf(want[e], alpha_exp), c[e] = NAN;
            struct fpd_gemm_args g = {.dt = {FPD_F32, FPD_F32, FPD_F32}, .batch = BATCH, .m = M, .n = N, .k = K,
                                      .a = a, .lda = K, .stride_a = M * K, .b = b, .ldb = N, .stride_b = K * N,
                                      .c = c, .ldc = N, .stride_c = M * N, .bias = with_bias ? handed : NULL,
                                      .alpha_exp = alpha_exp, .beta_exp = with_bias ? -2 : 0};
            char why[256];
            void *s = open_backend(blas[bi]);
            cr_assert_eq(blas[bi]->gemm(s, &g, why, sizeof why), FPD_OK, "%s: %s", blas[bi]->name, why);
            cr_assert_arr_eq(c, want, sizeof c, "%s, %s a bias", blas[bi]->name, with_bias ? "with" : "without");
            blas[bi]->close(s);
        }
    }
}

/* Deliverable 4 on the CPU: cuda-wmma, through its adapter (padding, the bias as the accumulator's
 * start, the output's rounding), is its GPU's model: the stand-in device is an sm_90, so
 * tc-h100, named as its twin. */
Test(adapters, cuda_wmma_is_its_gpu_s_model)
{
    void *w = open_backend(&fpd_backend_cuda_wmma), *t = open_backend(&fpd_backend_tc_h100);
    struct lookup l;
    cr_assert_str_eq(provenance(&fpd_backend_cuda_wmma, w, "twin", &l), "tc-h100");
    enum { M = 5, N = 19, K = 37 };
    for (int in = FPD_F16; in <= FPD_BF16; in++) {
        struct fpd_dtypes dt = {in, FPD_F32, FPD_F32};
        struct fpd_rounding r;
        fpd_backend_tc_h100.rounding(t, &dt, &r);
        struct fpd_tc_arith arith = {.block = r.block, .extra_bits = r.extra_bits, .min_exp = r.min_exp,
                                     .toward_zero = r.toward_zero, .in_emin = fpd_dtype_info(in)->emin,
                                     .in_fraction_bits = fpd_dtype_info(in)->precision - 1, .acc_precision = 24,
                                     .acc_emin = -126, .acc_emax = 127};
        fpd_host_set_tensor_core(&arith, &arith);
        uint16_t a[M * K], b[K * N];
        float bias[N], got[M * N], want[M * N];
        uint64_t seed = 99 + (uint64_t)in;
        for (size_t e = 0; e < M * K + K * N; e++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            uint16_t bits = (uint16_t)fpd_bits_of_value(in, ldexp((double)(seed >> 40), -20) - 8);
            if (e < M * K)
                a[e] = bits;
            else
                b[e - M * K] = bits;
        }
        for (size_t j = 0; j < N; j++)
            bias[j] = (float)j * 0.375f - 3;
        struct fpd_gemm_args g = {.dt = dt, .batch = 1, .m = M, .n = N, .k = K, .a = a, .lda = K, .stride_a = M * K,
                                  .b = b, .ldb = N, .stride_b = K * N, .c = got, .ldc = N, .stride_c = M * N,
                                  .bias = bias};
        char why[256];
        cr_assert_eq(fpd_backend_cuda_wmma.gemm(w, &g, why, sizeof why), FPD_OK, "%s", why);
        g.c = want;
        cr_assert_eq(fpd_backend_tc_h100.gemm(t, &g, why, sizeof why), FPD_OK, "%s", why);
        cr_assert_arr_eq(got, want, sizeof got, "%s in", fpd_dtype_info(in)->name);
    }
    fpd_host_set_tensor_core(NULL, NULL);
    fpd_backend_cuda_wmma.close(w);
    fpd_backend_tc_h100.close(t);
}

/* Finding 6: an algorithm the heuristic does not offer for this problem: the check does not apply. */
Test(adapters, an_algorithm_not_offered_does_not_apply)
{
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
    struct fpd_gemm_args g = gemm_2x2x2(a, b, c);
    char why[256];
    setenv("FPD_STANDIN_LT_ALGOS", "2", 1);
    void *s = open_backend(&fpd_backend_cublaslt);
    g.algo = 1;
    cr_assert_eq(fpd_backend_cublaslt.gemm(s, &g, why, sizeof why), FPD_OK, "%s", why);
    g.algo = 2;
    cr_assert_eq(fpd_backend_cublaslt.gemm(s, &g, why, sizeof why), FPD_ERR_NOT_APPLICABLE);
    cr_assert(strstr(why, "cuBLASLt offers 2 algorithms for this problem; algorithm 2 was asked for"), "%s", why);
    struct lookup l;
    cr_assert_str_eq(provenance(&fpd_backend_cublaslt, s, "device_resets", &l), "", "not a fault");
    fpd_backend_cublaslt.close(s);
    unsetenv("FPD_STANDIN_LT_ALGOS");
}
