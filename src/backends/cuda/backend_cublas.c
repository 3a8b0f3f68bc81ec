/*
 * backend_cublas.c — cuBLAS (cublasGemmStridedBatchedEx) and cuBLASLt (cublasLtMatmul) as backends.
 *
 * Row-major C = op(A)·op(B) is computed as the column-major C^T = op(B)^T·op(A)^T, so the operands
 * go in swapped and no data moves. f64 uses 64-bit compute; everything else 32-bit compute
 * (f16/bf16 inputs natively, f32 without TF32: the default math mode). cuBLAS's fused bias is
 * BLAS's: C prefilled with the bias, beta = 1. cuBLASLt's is its bias epilogue
 * (CUBLASLT_EPILOGUE_BIAS), and its algorithm is the args->algo-th candidate of
 * cublasLtMatmulAlgoGetHeuristic, recorded as provenance.
 */
#include <cublasLt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_util.h"
#include "common/dtype.h"

enum { MAX_ALGOS = 8 };
#define WORKSPACE_BYTES ((size_t)32 << 20)

struct blas_state {
    bool lt;
    bool ready; /* all of the below made: on the first GEMM, in the process that runs it */
    cublasHandle_t handle;
    cublasLtHandle_t lt_handle;
    cudaStream_t stream;
    struct fpd_device_buffer a, b, c, bias, workspace;
    int last_algo_id, heuristic_count;
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
    s->last_algo_id = -1;
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
        if (fpd_cublas_check(cublasSetStream(s->handle, s->stream), "cublasSetStream", why, why_size) != FPD_OK)
            return FPD_ERR_BACKEND;
    }
    s->ready = true;
    return FPD_OK;
}

static bool blas_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    if (!fpd_dtypes_valid(dt, why, why_size))
        return false;
    if (dt->in == FPD_F64 ? dt->acc == FPD_F64 : dt->acc == FPD_F32)
        return true;
    snprintf(why, why_size, "cuBLAS computes f64 in f64, and f32, f16, bf16 in f32");
    return false;
}

/* Copies the operands (whole storage, every batch entry) and C (prefilled with the bias when the
 * bias is BLAS-fused) to the device. */
static int upload(struct blas_state *s, const struct fpd_gemm_args *g, bool bias_in_c, char *why, size_t why_size)
{
    size_t in = fpd_dtype_info(g->dt.in)->size, out = fpd_dtype_info(g->dt.out)->size;
    size_t a_bytes = ((g->batch - 1) * g->stride_a + (g->trans_a ? g->k : g->m) * g->lda) * in;
    size_t b_bytes = ((g->batch - 1) * g->stride_b + (g->trans_b ? g->n : g->k) * g->ldb) * in;
    size_t c_bytes = ((g->batch - 1) * g->stride_c + g->m * g->ldc) * out;
    int rc;
    if ((rc = fpd_device_grow(&s->a, a_bytes, why, why_size)) || (rc = fpd_device_grow(&s->b, b_bytes, why, why_size)) ||
        (rc = fpd_device_grow(&s->c, c_bytes, why, why_size)) ||
        (rc = fpd_device_grow(&s->bias, g->n * out, why, why_size)))
        return rc;
    if ((rc = fpd_cuda_check(cudaMemcpy(s->a.p, g->a, a_bytes, cudaMemcpyHostToDevice), "copy A", why, why_size)) ||
        (rc = fpd_cuda_check(cudaMemcpy(s->b.p, g->b, b_bytes, cudaMemcpyHostToDevice), "copy B", why, why_size)))
        return rc;
    if (g->bias && (rc = fpd_cuda_check(cudaMemcpy(s->bias.p, g->bias, g->n * out, cudaMemcpyHostToDevice), "copy bias",
                                        why, why_size)))
        return rc;
    if (bias_in_c && g->bias) {
        for (size_t b = 0; b < g->batch; b++)
            for (size_t i = 0; i < g->m; i++)
                if ((rc = fpd_cuda_check(cudaMemcpy((char *)s->c.p + (b * g->stride_c + i * g->ldc) * out, g->bias,
                                                    g->n * out, cudaMemcpyHostToDevice),
                                         "prefill C with the bias", why, why_size)))
                    return rc;
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

/* alpha = 1 and beta in the scale type: double for f64 compute, float otherwise. */
struct scalars {
    union {
        float f;
        double d;
    } alpha, beta;
};

static struct scalars scalars_for(const struct fpd_gemm_args *g, bool beta_one)
{
    struct scalars sc;
    if (g->dt.acc == FPD_F64)
        sc.alpha.d = 1, sc.beta.d = beta_one ? 1 : 0;
    else
        sc.alpha.f = 1, sc.beta.f = beta_one ? 1.0f : 0.0f;
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

/* A column-major layout of rows x cols with leading dimension ld, batched. */
static cublasStatus_t layout(cublasLtMatrixLayout_t *l, enum fpd_dtype t, size_t rows, size_t cols, size_t ld,
                             size_t batch, size_t stride)
{
    cublasStatus_t st = cublasLtMatrixLayoutCreate(l, fpd_cuda_type(t), rows, cols, (int64_t)ld);
    int32_t count = (int32_t)batch;
    int64_t offset = (int64_t)stride;
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &offset, sizeof offset);
    return st;
}

static int cublaslt_gemm(struct blas_state *s, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    int rc = upload(s, g, false, why, why_size);
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
    cudaDataType bias_type = fpd_cuda_type(g->dt.out);
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    struct scalars sc = scalars_for(g, false);
    /* column-major view: first operand op(B)^T is n x k, second op(A)^T is k x m, D = C^T is n x m */
    rc = fpd_cublas_check(cublasLtMatmulDescCreate(&desc, compute, scale), "cublasLtMatmulDescCreate", why, why_size);
    if (rc == FPD_OK)
        rc = fpd_cublas_check(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opb, sizeof opb) |
                                  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opa, sizeof opa),
                              "matmul transposes", why, why_size);
    if (rc == FPD_OK && g->bias) {
        const void *bias_ptr = s->bias.p;
        rc = fpd_cublas_check(
            cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue) |
                cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof bias_ptr) |
                cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type),
            "bias epilogue", why, why_size);
    }
    if (rc == FPD_OK)
        rc = fpd_cublas_check(layout(&lb, g->dt.in, g->trans_b ? g->k : g->n, g->trans_b ? g->n : g->k, g->ldb, g->batch,
                                     g->stride_b) |
                                  layout(&la, g->dt.in, g->trans_a ? g->m : g->k, g->trans_a ? g->k : g->m, g->lda,
                                         g->batch, g->stride_a) |
                                  layout(&lc, g->dt.out, g->n, g->m, g->ldc, g->batch, g->stride_c),
                              "matrix layouts", why, why_size);
    if (rc == FPD_OK)
        rc = fpd_cublas_check(cublasLtMatmulPreferenceCreate(&pref) |
                                  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                                       &workspace, sizeof workspace),
                              "matmul preference", why, why_size);
    if (rc == FPD_OK)
        rc = fpd_cublas_check(cublasLtMatmulAlgoGetHeuristic(s->lt_handle, desc, lb, la, lc, lc, pref, MAX_ALGOS, results,
                                                             &returned),
                              "cublasLtMatmulAlgoGetHeuristic", why, why_size);
    s->heuristic_count = returned;
    if (rc == FPD_OK && g->algo >= returned) {
        snprintf(why, why_size, "cuBLASLt offers %d algorithm%s for this problem; algorithm %d was asked for", returned,
                 returned == 1 ? "" : "s", g->algo);
        rc = FPD_ERR_BACKEND;
    }
    if (rc == FPD_OK) {
        const cublasLtMatmulAlgo_t *algo = &results[g->algo].algo;
        cublasLtMatmulAlgoConfigGetAttribute(algo, CUBLASLT_ALGO_CONFIG_ID, &s->last_algo_id, sizeof s->last_algo_id,
                                             NULL);
        rc = fpd_cublas_check(cublasLtMatmul(s->lt_handle, desc, &sc.alpha, s->b.p, lb, s->a.p, la, &sc.beta, s->c.p, lc,
                                             s->c.p, lc, algo, s->workspace.p, WORKSPACE_BYTES, s->stream),
                              "cublasLtMatmul", why, why_size);
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

static int blas_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    struct blas_state *s = state;
    int rc = blas_ready(s, why, why_size);
    if (rc != FPD_OK)
        return rc;
    return s->lt ? cublaslt_gemm(s, g, why, why_size) : cublas_gemm(s, g, why, why_size);
}

static void blas_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    struct blas_state *s = state;
    char buf[64];
    if (s->lt) {
        snprintf(buf, sizeof buf, "%zu", cublasLtGetVersion());
        emit(ctx, "cublaslt", buf);
        snprintf(buf, sizeof buf, "%d", s->last_algo_id);
        emit(ctx, "last_algo_id", buf);
        snprintf(buf, sizeof buf, "%d", s->heuristic_count);
        emit(ctx, "heuristic_candidates", buf);
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
    fpd_cuda_device_provenance(emit, ctx);
}

static void blas_close(void *state)
{
    struct blas_state *s = state;
    struct fpd_device_buffer *device[] = {&s->a, &s->b, &s->c, &s->bias, &s->workspace};
    for (size_t i = 0; i < sizeof device / sizeof device[0]; i++)
        fpd_device_free(device[i]);
    if (s->lt_handle)
        cublasLtDestroy(s->lt_handle);
    if (s->handle)
        cublasDestroy(s->handle);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    free(s);
}

static const int lt_marker = 1;

const struct fpd_backend fpd_backend_cublas = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "cublas",
    .summary = "cuBLAS cublasGemmStridedBatchedEx; fused bias as beta = 1 on C prefilled with it",
    .device = FPD_DEVICE_GPU,
    .kind = FPD_KIND_VENDOR,
    .features = FPD_FEAT_FUSED_BIAS,
    .open = blas_open,
    .supports = blas_supports,
    .gemm = blas_gemm,
    .provenance = blas_provenance,
    .close = blas_close,
};

const struct fpd_backend fpd_backend_cublaslt = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "cublaslt",
    .summary = "cuBLASLt cublasLtMatmul; fused bias as its bias epilogue; heuristic algorithms by index",
    .device = FPD_DEVICE_GPU,
    .kind = FPD_KIND_VENDOR,
    .features = FPD_FEAT_FUSED_BIAS | FPD_FEAT_ALGOS,
    .data = &lt_marker,
    .open = blas_open,
    .supports = blas_supports,
    .gemm = blas_gemm,
    .provenance = blas_provenance,
    .close = blas_close,
};
