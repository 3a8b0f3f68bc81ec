/*
 * backend_cublas.c — cuBLAS (cublasGemmStridedBatchedEx) and cuBLASLt (cublasLtMatmul) as backends.
 *
 * Row-major C = op(A)·op(B) is computed as the column-major C^T = op(B)^T·op(A)^T, so the operands
 * go in swapped and no data moves. f64 uses 64-bit compute; everything else 32-bit compute
 * (f16/bf16 inputs natively, f32 without TF32: the default math mode). cuBLAS's fused bias is
 * BLAS's: C prefilled with the bias, beta = 1. cuBLASLt's is its bias epilogue
 * (CUBLASLT_EPILOGUE_BIAS). Both take BLAS's own alpha and beta (FPD_FEAT_SCALARS, the alpha-beta
 * relation): alpha = 2^alpha_exp, beta = 2^beta_exp on C prefilled with the bias (cuBLASLt's too,
 * its epilogue then unused), or beta = 0 on a C holding the caller's poison, which must not be
 * read. cuBLASLt's algorithm is the args->algo-th candidate of
 * cublasLtMatmulAlgoGetHeuristic, recorded as provenance with its configuration (tile, split-K,
 * reduction scheme, stages, swizzle, custom option, inner and cluster shapes).
 *
 * The declared f32 accumulator holds for split-K too: cuBLAS is told not to reduce partial sums
 * in a 16-bit output type (CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION), cuBLASLt to leave
 * out the reduction schemes that do (in place, in the output type). A fault that leaves the CUDA
 * context unusable (an illegal address, a trap) fails its GEMM, and the device is reset so that
 * the next GEMM starts afresh instead of failing too.
 */
#include <cublasLt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_util.h"
#include "backends/cuda/cuda_util.h"
#include "common/dtype.h"
#include "common/scratch.h"

enum { MAX_ALGOS = 8 };
#define WORKSPACE_BYTES ((size_t)32 << 20)

/* A cuBLASLt algorithm's configuration, as cublasLtMatmulAlgoConfigGetAttribute tells it. */
enum { CONFIG_FIELDS = 9 };
static const struct {
    cublasLtMatmulAlgoConfigAttributes_t attribute;
    const char *name;
} config_fields[CONFIG_FIELDS] = {
    {CUBLASLT_ALGO_CONFIG_ID, "id"},
    {CUBLASLT_ALGO_CONFIG_TILE_ID, "tile"},
    {CUBLASLT_ALGO_CONFIG_SPLITK_NUM, "splitk"},
    {CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, "reduction"},
    {CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, "swizzle"},
    {CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, "custom"},
    {CUBLASLT_ALGO_CONFIG_STAGES_ID, "stages"},
    {CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, "inner_shape"},
    {CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, "cluster_shape"},
};

/* The algorithm a GEMM ran with, per candidate index (the `algo` relation runs two). */
struct algo_used {
    bool used;
    int candidates; /* the heuristic's count for that GEMM */
    uint64_t config[CONFIG_FIELDS];
};

struct blas_state {
    bool lt;
    bool ready; /* all of the below made: on the first GEMM, in the process that runs it */
    cublasHandle_t handle;
    cublasLtHandle_t lt_handle;
    cudaStream_t stream;
    struct fpd_device_buffer a, b, c, bias, workspace;
    struct fpd_staging bias_rows; /* C prefilled with the bias, on the host */
    struct algo_used algos[MAX_ALGOS];
    int device_resets;
};

static int blas_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    int rc = fpd_cuda_require_device(why, why_size);
    if (rc != FPD_OK)
        return rc;
    struct blas_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    s->lt = self->data != NULL;
    *state = s;
    return FPD_OK;
}

/* The stream, the handle and cuBLASLt's workspace, made once (see fpd_cuda_require_device). A
 * piece that fails is tried again on the next GEMM; blas_close releases the pieces that exist. */
static int blas_ready(struct blas_state *s, char *why, size_t why_size)
{
    if (s->ready)
        return FPD_OK;
    if (!s->stream && fpd_cuda_check(cudaStreamCreate(&s->stream), "cudaStreamCreate", why, why_size) != FPD_OK) {
        s->stream = NULL;
        return FPD_ERR_BACKEND;
    }
    if (s->lt) {
        if (!s->lt_handle &&
            fpd_cublas_check(cublasLtCreate(&s->lt_handle), "cublasLtCreate", why, why_size) != FPD_OK) {
            s->lt_handle = NULL;
            return FPD_ERR_BACKEND;
        }
        if (fpd_device_grow(&s->workspace, WORKSPACE_BYTES, why, why_size) != FPD_OK)
            return FPD_ERR_BACKEND;
    } else {
        if (!s->handle && fpd_cublas_check(cublasCreate(&s->handle), "cublasCreate", why, why_size) != FPD_OK) {
            s->handle = NULL;
            return FPD_ERR_BACKEND;
        }
        if (fpd_cublas_check(cublasSetStream(s->handle, s->stream), "cublasSetStream", why, why_size) != FPD_OK ||
            fpd_cublas_check(cublasSetMathMode(s->handle, CUBLAS_DEFAULT_MATH |
                                                              CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION),
                             "cublasSetMathMode", why, why_size) != FPD_OK)
            return FPD_ERR_BACKEND;
    }
    s->ready = true;
    return FPD_OK;
}

/* The type combinations of cublasGemmEx and cublasLtMatmul that fpdiv's types make (cuBLAS
 * documentation, cublasGemmEx: CUBLAS_COMPUTE_64F takes f64 alone; CUBLAS_COMPUTE_32F takes
 * f16 or bf16 inputs out to their own type or f32, and f32 inputs out to f32 only). */
static const struct fpd_dtypes blas_types[] = {
    {FPD_F64, FPD_F64, FPD_F64},  {FPD_F32, FPD_F32, FPD_F32},   {FPD_F16, FPD_F16, FPD_F32},
    {FPD_F16, FPD_F32, FPD_F32},  {FPD_BF16, FPD_BF16, FPD_F32}, {FPD_BF16, FPD_F32, FPD_F32},
};

static bool blas_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    if (!fpd_dtypes_valid(dt, why, why_size))
        return false;
    for (size_t i = 0; i < sizeof blas_types / sizeof blas_types[0]; i++)
        if (blas_types[i].in == dt->in && blas_types[i].out == dt->out && blas_types[i].acc == dt->acc)
            return true;
    snprintf(why, why_size, "cuBLAS computes f64 in f64 to f64, f32 in f32 to f32, and f16 or bf16 in f32 to "
             "their own type or f32");
    return false;
}

/* cuBLAS takes sizes as int (cuBLASLt its batch count): FPD_OK, or why a size does not fit. */
static int sizes_fit(const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    const struct {
        const char *name;
        size_t value;
    } sizes[] = {{"m", g->m}, {"n", g->n}, {"k", g->k}, {"lda", g->lda}, {"ldb", g->ldb}, {"ldc", g->ldc},
                 {"batch", g->batch}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].value > INT_MAX) {
            snprintf(why, why_size, "%s = %zu is more than cuBLAS takes (an int: %d)", sizes[i].name, sizes[i].value,
                     INT_MAX);
            return FPD_ERR_BACKEND;
        }
    return FPD_OK;
}

/* Whether BLAS's own alpha and beta are asked for (the alpha-beta relation's path). */
static bool scaled(const struct fpd_gemm_args *g) { return fpd_gemm_args_scaled(g); }

/* Copies the operands (what they span over every batch entry) and C to the device: prefilled with
 * the bias when the bias is BLAS-fused, else, where BLAS's alpha and beta are asked for (beta 0),
 * holding what the caller's C holds, its poison. */
static int upload(struct blas_state *s, const struct fpd_gemm_args *g, bool bias_in_c, char *why, size_t why_size)
{
    size_t out = fpd_dtype_info(g->dt.out)->size;
    struct fpd_gemm_extent bytes = fpd_gemm_extent(g); /* a view's last row ends before its tensor's */
    int rc;
    if ((rc = fpd_device_grow(&s->a, bytes.a, why, why_size)) || (rc = fpd_device_grow(&s->b, bytes.b, why, why_size)) ||
        (rc = fpd_device_grow(&s->c, bytes.c, why, why_size)) ||
        (rc = fpd_device_grow(&s->bias, g->n * out, why, why_size)))
        return rc;
    if ((rc = fpd_cuda_check(cudaMemcpy(s->a.p, g->a, bytes.a, cudaMemcpyHostToDevice), "copy A", why, why_size)) ||
        (rc = fpd_cuda_check(cudaMemcpy(s->b.p, g->b, bytes.b, cudaMemcpyHostToDevice), "copy B", why, why_size)))
        return rc;
    if (g->bias && (rc = fpd_cuda_check(cudaMemcpy(s->bias.p, g->bias, g->n * out, cudaMemcpyHostToDevice), "copy bias",
                                        why, why_size)))
        return rc;
    if (bias_in_c && g->bias) { /* each batch entry's C from rows of the bias, in one copy */
        if (fpd_grow(&s->bias_rows.buf, &s->bias_rows.cap, g->m * g->n * out) != FPD_OK) {
            snprintf(why, why_size, "out of memory");
            return FPD_ERR_NOMEM;
        }
        for (size_t i = 0; i < g->m; i++)
            memcpy((char *)s->bias_rows.buf + i * g->n * out, g->bias, g->n * out);
        for (size_t b = 0; b < g->batch; b++)
            if ((rc = fpd_cuda_check(cudaMemcpy2D((char *)s->c.p + b * g->stride_c * out, g->ldc * out, s->bias_rows.buf,
                                                  g->n * out, g->n * out, g->m, cudaMemcpyHostToDevice),
                                     "prefill C with the bias", why, why_size)))
                return rc;
    } else if (scaled(g)) {
        return fpd_cuda_check(cudaMemcpy(s->c.p, g->c, bytes.c, cudaMemcpyHostToDevice), "copy C", why, why_size);
    }
    return FPD_OK;
}

static int download(struct blas_state *s, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    size_t out = fpd_dtype_info(g->dt.out)->size;
    for (size_t b = 0; b < g->batch; b++) {
        int rc = fpd_cuda_check(cudaMemcpy2D((char *)g->c + b * g->stride_c * out, g->ldc * out,
                                             (char *)s->c.p + b * g->stride_c * out, g->ldc * out, g->n * out, g->m,
                                             cudaMemcpyDeviceToHost),
                                "copy C", why, why_size);
        if (rc != FPD_OK)
            return rc;
    }
    return FPD_OK;
}

/* alpha and beta in the scale type: double for f64 compute, float otherwise. */
struct scalars {
    union {
        float f;
        double d;
    } alpha, beta;
};

/* alpha = ±2^alpha_exp, and beta = 2^beta_exp where C holds the bias, else 0 (1 and 1 but for the
 * alpha-beta relation): powers of two, exact in either type. */
static struct scalars scalars_for(const struct fpd_gemm_args *g, bool bias_in_c)
{
    double alpha = (g->alpha_negative ? -1 : 1) * ldexp(1, g->alpha_exp), beta = bias_in_c ? ldexp(1, g->beta_exp) : 0;
    struct scalars sc;
    if (g->dt.acc == FPD_F64)
        sc.alpha.d = alpha, sc.beta.d = beta;
    else
        sc.alpha.f = (float)alpha, sc.beta.f = (float)beta;
    return sc;
}

static int cublas_gemm(struct blas_state *s, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    int rc = upload(s, g, true, why, why_size);
    if (rc != FPD_OK)
        return rc;
    struct scalars sc = scalars_for(g, g->bias != NULL);
    cublasComputeType_t compute = g->dt.acc == FPD_F64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    cublasOperation_t opa = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, opb = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    rc = fpd_cublas_check(cublasGemmStridedBatchedEx(s->handle, opb, opa, (int)g->n, (int)g->m, (int)g->k, &sc.alpha,
                                                     s->b.p, fpd_cuda_type(g->dt.in), (int)g->ldb,
                                                     (long long)g->stride_b, s->a.p, fpd_cuda_type(g->dt.in),
                                                     (int)g->lda, (long long)g->stride_a, &sc.beta, s->c.p,
                                                     fpd_cuda_type(g->dt.out), (int)g->ldc, (long long)g->stride_c,
                                                     (int)g->batch, compute, CUBLAS_GEMM_DEFAULT),
                          "cublasGemmStridedBatchedEx", why, why_size);
    if (rc == FPD_OK)
        rc = fpd_cuda_check(cudaStreamSynchronize(s->stream), "cuBLAS gemm", why, why_size);
    return rc == FPD_OK ? download(s, g, why, why_size) : rc;
}

/* A column-major layout of rows x cols with leading dimension ld, batched: the first failure. */
static cublasStatus_t layout(cublasLtMatrixLayout_t *l, enum fpd_dtype t, size_t rows, size_t cols, size_t ld,
                             size_t batch, size_t stride)
{
    int32_t count = (int32_t)batch; /* sizes_fit: batch <= INT_MAX */
    int64_t offset = (int64_t)stride;
    cublasStatus_t st = cublasLtMatrixLayoutCreate(l, fpd_cuda_type(t), rows, cols, (int64_t)ld);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset, sizeof offset);
    return st;
}

/* One step of a sequence of cuBLAS calls: it runs only while every step before it succeeded, and
 * the first failure is the one reported. */
#define BLAS_STEP(rc, call, what)                                                                  \
    do {                                                                                           \
        if ((rc) == FPD_OK)                                                                        \
            (rc) = fpd_cublas_check((call), (what), why, why_size);                                \
    } while (0)

/* What the chosen algorithm is, kept per candidate index for the provenance. */
static void record_algo(struct blas_state *s, int index, int candidates, const cublasLtMatmulAlgo_t *algo)
{
    struct algo_used *u = &s->algos[index];
    *u = (struct algo_used){.used = true, .candidates = candidates};
    for (size_t f = 0; f < CONFIG_FIELDS; f++) {
        size_t size = 0;
        uint64_t value = 0; /* little-endian: a narrower attribute lands in the low bytes */
        if (cublasLtMatmulAlgoConfigGetAttribute(algo, config_fields[f].attribute, NULL, 0, &size) ==
                CUBLAS_STATUS_SUCCESS &&
            size <= sizeof value &&
            cublasLtMatmulAlgoConfigGetAttribute(algo, config_fields[f].attribute, &value, size, &size) ==
                CUBLAS_STATUS_SUCCESS)
            u->config[f] = value;
    }
}

static int cublaslt_gemm(struct blas_state *s, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    bool bias_in_c = scaled(g) && g->bias; /* BLAS's scalars: the bias on C, the epilogue unused */
    int rc = upload(s, g, bias_in_c, why, why_size);
    if (rc != FPD_OK)
        return rc;
    cublasComputeType_t compute = g->dt.acc == FPD_F64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    cudaDataType scale = g->dt.acc == FPD_F64 ? CUDA_R_64F : CUDA_R_32F;
    cublasOperation_t opa = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, opb = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasLtMatmulDesc_t desc = NULL;
    cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t results[MAX_ALGOS];
    int returned = 0;
    uint64_t workspace = WORKSPACE_BYTES;
    /* a 16-bit output: no split-K reduction in it (in place, or of partials in the output type) */
    uint32_t reductions = fpd_dtype_info(g->dt.out)->size < fpd_dtype_info(g->dt.acc)->size
                              ? CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE
                              : CUBLASLT_REDUCTION_SCHEME_MASK;
    cudaDataType bias_type = fpd_cuda_type(g->dt.out);
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    const void *bias_ptr = s->bias.p;
    struct scalars sc = scalars_for(g, bias_in_c);
    /* column-major view: first operand op(B)^T is n x k, second op(A)^T is k x m, D = C^T is n x m */
    BLAS_STEP(rc, cublasLtMatmulDescCreate(&desc, compute, scale), "cublasLtMatmulDescCreate");
    BLAS_STEP(rc, cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opb, sizeof opb), "TRANSA");
    BLAS_STEP(rc, cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opa, sizeof opa), "TRANSB");
    if (g->bias && !bias_in_c) {
        BLAS_STEP(rc, cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue),
                  "bias epilogue");
        BLAS_STEP(rc, cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof bias_ptr),
                  "bias pointer");
        BLAS_STEP(rc,
                  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type),
                  "bias type");
    }
    BLAS_STEP(rc,
              layout(&lb, g->dt.in, g->trans_b ? g->k : g->n, g->trans_b ? g->n : g->k, g->ldb, g->batch, g->stride_b),
              "B's layout");
    BLAS_STEP(rc,
              layout(&la, g->dt.in, g->trans_a ? g->m : g->k, g->trans_a ? g->k : g->m, g->lda, g->batch, g->stride_a),
              "A's layout");
    BLAS_STEP(rc, layout(&lc, g->dt.out, g->n, g->m, g->ldc, g->batch, g->stride_c), "C's layout");
    BLAS_STEP(rc, cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    BLAS_STEP(rc,
              cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                   sizeof workspace),
              "workspace preference");
    BLAS_STEP(rc,
              cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reductions,
                                                   sizeof reductions),
              "reduction scheme preference");
    BLAS_STEP(rc,
              cublasLtMatmulAlgoGetHeuristic(s->lt_handle, desc, lb, la, lc, lc, pref, MAX_ALGOS, results, &returned),
              "cublasLtMatmulAlgoGetHeuristic");
    if (rc == FPD_OK && (g->algo < 0 || g->algo >= returned || g->algo >= MAX_ALGOS)) { /* the check does not apply */
        snprintf(why, why_size, "cuBLASLt offers %d algorithm%s for this problem; algorithm %d was asked for", returned,
                 returned == 1 ? "" : "s", g->algo);
        rc = FPD_ERR_NOT_APPLICABLE;
    }
    if (rc == FPD_OK) {
        record_algo(s, g->algo, returned, &results[g->algo].algo);
        BLAS_STEP(rc,
                  cublasLtMatmul(s->lt_handle, desc, &sc.alpha, s->b.p, lb, s->a.p, la, &sc.beta, s->c.p, lc, s->c.p, lc,
                                 &results[g->algo].algo, s->workspace.p, WORKSPACE_BYTES, s->stream),
                  "cublasLtMatmul");
    }
    if (rc == FPD_OK)
        rc = fpd_cuda_check(cudaStreamSynchronize(s->stream), "cuBLASLt matmul", why, why_size);
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    if (la)
        cublasLtMatrixLayoutDestroy(la);
    if (lb)
        cublasLtMatrixLayoutDestroy(lb);
    if (lc)
        cublasLtMatrixLayoutDestroy(lc);
    if (desc)
        cublasLtMatmulDescDestroy(desc);
    return rc == FPD_OK ? download(s, g, why, why_size) : rc;
}

/* Everything of the backend's on the device, released; `reset` after a fault that left the CUDA
 * context unusable, when the device is reset too and the next GEMM makes all of it again. */
static void release_device(struct blas_state *s, bool reset)
{
    struct fpd_device_buffer *device[] = {&s->a, &s->b, &s->c, &s->bias, &s->workspace};
    for (size_t i = 0; i < sizeof device / sizeof device[0]; i++)
        fpd_device_free(device[i]);
    if (s->lt_handle)
        cublasLtDestroy(s->lt_handle);
    if (s->handle)
        cublasDestroy(s->handle);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    s->lt_handle = NULL, s->handle = NULL, s->stream = NULL, s->ready = false;
    if (reset) {
        cudaDeviceReset();
        s->device_resets++;
    }
}

static int blas_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    struct blas_state *s = state;
    int rc = sizes_fit(g, why, why_size);
    if (rc != FPD_OK) /* refused before CUDA was asked anything */
        return rc;
    rc = blas_ready(s, why, why_size);
    if (rc == FPD_OK)
        rc = s->lt ? cublaslt_gemm(s, g, why, why_size) : cublas_gemm(s, g, why, why_size);
    if (rc == FPD_ERR_BACKEND && fpd_cuda_context_lost())
        release_device(s, true);
    return rc;
}

static void blas_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    struct blas_state *s = state;
    char buf[64];
    if (s->lt) {
        snprintf(buf, sizeof buf, "%zu", cublasLtGetVersion());
        emit(ctx, "cublaslt", buf);
        for (int i = 0; i < MAX_ALGOS; i++) { /* each algorithm this process ran, by candidate index */
            const struct algo_used *u = &s->algos[i];
            if (!u->used)
                continue;
            char key[32], value[256];
            int at = snprintf(value, sizeof value, "of %d:", u->candidates);
            for (size_t f = 0; f < CONFIG_FIELDS && at > 0 && (size_t)at < sizeof value; f++)
                at += snprintf(value + at, sizeof value - at, " %s %llu", config_fields[f].name,
                               (unsigned long long)u->config[f]);
            snprintf(key, sizeof key, "algo_%d", i);
            emit(ctx, key, value);
        }
        snprintf(buf, sizeof buf, "%zu", WORKSPACE_BYTES);
        emit(ctx, "workspace_bytes", buf);
    } else {
        int major = 0, minor = 0, patch = 0; /* the library's version: no handle, no CUDA context */
        cublasMath_t math;
        cublasAtomicsMode_t atomics;
        if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
            cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
            cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS) {
            snprintf(buf, sizeof buf, "%d.%d.%d", major, minor, patch);
            emit(ctx, "cublas", buf);
        }
        /* the handle's modes, where this process made it (the defaults otherwise) */
        if (s->handle && cublasGetMathMode(s->handle, &math) == CUBLAS_STATUS_SUCCESS) {
            snprintf(buf, sizeof buf, "%d", (int)math);
            emit(ctx, "math_mode", buf);
        }
        if (s->handle && cublasGetAtomicsMode(s->handle, &atomics) == CUBLAS_STATUS_SUCCESS)
            emit(ctx, "atomics", atomics == CUBLAS_ATOMICS_ALLOWED ? "allowed" : "not allowed");
    }
    if (s->device_resets) {
        snprintf(buf, sizeof buf, "%d", s->device_resets);
        emit(ctx, "device_resets", buf);
    }
    fpd_cuda_device_provenance(emit, ctx);
}

static void blas_close(void *state)
{
    struct blas_state *s = state;
    release_device(s, false);
    fpd_staging_free(&s->bias_rows);
    free(s);
}

static const int lt_marker = 1;

const struct fpd_backend fpd_backend_cublas = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "cublas",
    .summary = "cuBLAS cublasGemmStridedBatchedEx; fused bias as beta = 1 on C prefilled with it; alpha and beta",
    .device = FPD_DEVICE_GPU,
    .kind = FPD_KIND_VENDOR,
    .features = FPD_FEAT_FUSED_BIAS | FPD_FEAT_SCALARS,
    .open = blas_open,
    .supports = blas_supports,
    .gemm = blas_gemm,
    .provenance = blas_provenance,
    .close = blas_close,
};

const struct fpd_backend fpd_backend_cublaslt = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "cublaslt",
    .summary = "cuBLASLt cublasLtMatmul; fused bias as its bias epilogue; heuristic algorithms by index; alpha and "
               "beta",
    .device = FPD_DEVICE_GPU,
    .kind = FPD_KIND_VENDOR,
    .features = FPD_FEAT_FUSED_BIAS | FPD_FEAT_ALGOS | FPD_FEAT_SCALARS,
    .data = &lt_marker,
    .open = blas_open,
    .supports = blas_supports,
    .gemm = blas_gemm,
    .provenance = blas_provenance,
    .close = blas_close,
};
