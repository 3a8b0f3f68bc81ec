/*
 * standin_blas.c — the stand-in's cuBLAS and cuBLASLt: handles, descriptors, heuristics, and the
 * checks the real libraries make, in front of standin_gemm.c's arithmetic.
 *
 * cuBLAS models its reduced-precision reduction: a 16-bit C, k >= 64 (a split-K regime) and a
 * math mode without CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION (and a compute type that is
 * not _PEDANTIC) split k in two, each half rounded to C's type and added in it. cuBLASLt's
 * heuristic offers FPD_STANDIN_LT_ALGOS candidates (default 3): the first without split-K, the
 * others split in two with the reduction scheme the preference's mask allows (the output type
 * first for a 16-bit D) and the workspace it needs; a candidate that the mask or the workspace
 * rules out is not offered.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublasLt.h>

#include "common/dtype.h"
#include "standin_internal.h"

static int last_math_mode = -1;
static uint32_t last_reduction_mask;

int fpd_standin_last_math_mode(void) { return last_math_mode; }
uint32_t fpd_standin_last_reduction_mask(void) { return last_reduction_mask; }

/* Every entry point first uses up a fault injected for it (fpd_standin_fail_next_blas). */
#define RETURN_IF_INJECTED()                                                                       \
    do {                                                                                           \
        cublasStatus_t injected_ = fpd_standin_take_blas_fault(__func__);                          \
        if (injected_ != CUBLAS_STATUS_SUCCESS)                                                    \
            return injected_;                                                                      \
    } while (0)

static bool op_valid(int op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }
static int64_t at_least_one(int64_t x) { return x > 1 ? x : 1; }

/* A GEMM with operands and scalars in place: a kernel that reads outside device memory faults,
 * which the next synchronization reports; else the host computes it. */
static cublasStatus_t launch(struct fpd_standin_gemm *g, const void *alpha, const void *beta)
{
    g->alpha = g->acc == FPD_F64 ? *(const double *)alpha : *(const float *)alpha;
    g->beta = g->acc == FPD_F64 ? *(const double *)beta : *(const float *)beta;
    if (g->m == 0 || g->n == 0 || g->batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!fpd_standin_gemm_in_device(g)) {
        fpd_host_raise(cudaErrorIllegalAddress, 1);
        return CUBLAS_STATUS_SUCCESS;
    }
    fpd_standin_gemm_run(g);
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- cuBLAS ---- */

struct cublasContext {
    cudaStream_t stream;
    cublasMath_t math;
    cublasAtomicsMode_t atomics;
};

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    RETURN_IF_INJECTED();
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (fpd_host_sticky_error() != cudaSuccess)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!(*handle = calloc(1, sizeof **handle)))
        return CUBLAS_STATUS_ALLOC_FAILED;
    (*handle)->math = CUBLAS_DEFAULT_MATH;
    (*handle)->atomics = CUBLAS_ATOMICS_NOT_ALLOWED;
    fpd_standin_count_object(1);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    RETURN_IF_INJECTED();
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    free(handle);
    fpd_standin_count_object(-1);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    RETURN_IF_INJECTED();
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = streamId;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    RETURN_IF_INJECTED();
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    unsigned base = (unsigned)mode & ~(unsigned)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    if (base > CUBLAS_FP32_EMULATED_BF16X9_MATH && base != CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    RETURN_IF_INJECTED();
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->math;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode)
{
    RETURN_IF_INJECTED();
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->atomics;
    return CUBLAS_STATUS_SUCCESS;
}

/* The version of the headers compiled against: the library they describe. */
cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
    RETURN_IF_INJECTED();
    if (!value)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    default: return CUBLAS_STATUS_INVALID_VALUE;
    }
}

static const struct {
    cublasStatus_t status;
    const char *name, *text;
} statuses[] = {
    {CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS", "success"},
    {CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized"},
    {CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed"},
    {CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE", "an invalid numeric value was used as an argument"},
    {CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH", "an absent device architectural feature is required"},
    {CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed"},
    {CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED", "the GPU program failed to execute"},
    {CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed"},
    {CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED", "the functionality requested is not supported"},
    {CUBLAS_STATUS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR", "an error was detected when checking the current licensing"},
};

static size_t status_index(cublasStatus_t status)
{
    size_t i = 0;
    while (i + 1 < sizeof statuses / sizeof statuses[0] && statuses[i].status != status)
        i++;
    return statuses[i].status == status ? i : SIZE_MAX;
}

const char *cublasGetStatusName(cublasStatus_t status)
{
    size_t i = status_index(status);
    return i == SIZE_MAX ? "CUBLAS_STATUS_UNKNOWN" : statuses[i].name;
}

const char *cublasGetStatusString(cublasStatus_t status)
{
    size_t i = status_index(status);
    return i == SIZE_MAX ? "unknown error" : statuses[i].text;
}

/* cublasGemmStridedBatchedEx: the argument checks cuBLAS documents, then the GEMM. */
static cublasStatus_t gemm_ex(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                              int k, const void *alpha, const void *A, cudaDataType Atype, int lda, long long strideA,
                              const void *B, cudaDataType Btype, int ldb, long long strideB, const void *beta, void *C,
                              cudaDataType Ctype, int ldc, long long strideC, int batchCount,
                              cublasComputeType_t computeType)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || k < 0 || batchCount < 0 || !op_valid(transa) || !op_valid(transb) ||
        lda < at_least_one(transa == CUBLAS_OP_N ? m : k) || ldb < at_least_one(transb == CUBLAS_OP_N ? k : n) ||
        ldc < at_least_one(m) || strideA < 0 || strideB < 0 || strideC < 0 || !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct fpd_standin_gemm g = {.m = m, .n = n, .k = k, .batch = batchCount, .splitk = 1};
    if (Atype != Btype || !fpd_standin_combination(computeType, NULL, Atype, Ctype, false, &g))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    last_math_mode = (int)handle->math;
    if (fpd_host_sticky_error() != cudaSuccess || !fpd_standin_stream_known(handle->stream))
        return CUBLAS_STATUS_EXECUTION_FAILED; /* the kernel cannot be launched */
    g.a = (struct fpd_standin_matrix){A, g.a.type, lda, strideA, transa != CUBLAS_OP_N};
    g.b = (struct fpd_standin_matrix){B, g.b.type, ldb, strideB, transb != CUBLAS_OP_N};
    g.c = (struct fpd_standin_matrix){C, g.c.type, ldc, strideC, false};
    g.d = g.c;
    /* the math mode's own effects on a plain 32F compute type with f32 inputs */
    unsigned math = (unsigned)handle->math & 0xf;
    if (computeType == CUBLAS_COMPUTE_32F && Atype == CUDA_R_32F && math == CUBLAS_TF32_TENSOR_OP_MATH)
        g.inputs = FPD_STANDIN_TF32;
    if (computeType == CUBLAS_COMPUTE_32F && Atype == CUDA_R_32F && math == CUBLAS_TENSOR_OP_MATH)
        g.inputs = FPD_STANDIN_F16; /* deprecated: "same effect as CUBLAS_COMPUTE_32F_FAST_16F" */
    if (fpd_dtype_info(g.d.type)->size == 2 && k >= 64 && !g.pedantic &&
        !(handle->math & CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)) {
        g.splitk = 2;
        g.reduce_in_output = true;
    }
    return launch(&g, alpha, beta);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long int strideA, const void *B, cudaDataType Btype, int ldb,
                                          long long int strideB, const void *beta, void *C, cudaDataType Ctype, int ldc,
                                          long long int strideC, int batchCount, cublasComputeType_t computeType,
                                          cublasGemmAlgo_t algo)
{
    RETURN_IF_INJECTED();
    (void)algo;
    return gemm_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C,
                   Ctype, ldc, strideC, batchCount, computeType);
}

/* ---- cuBLASLt: descriptors, kept in structs of our own behind the opaque pointers ---- */

struct cublasLtContext {
    int unused;
};

struct lt_desc {
    int32_t compute, scale, transa, transb;
    uint32_t epilogue;
    const void *bias;
    int32_t bias_type; /* -1: D's */
};

struct lt_layout {
    uint32_t type;
    int32_t order, batch;
    uint64_t rows, cols;
    int64_t ld, stride;
};

struct lt_pref {
    uint32_t search_mode, reduction_mask;
    uint64_t max_workspace;
};

/* An algorithm's configuration, kept in cublasLtMatmulAlgo_t's data. */
struct lt_algo {
    uint32_t magic; /* ALGO_MAGIC: made by the stand-in's heuristic */
    int32_t id, splitk;
    uint32_t tile, reduction, swizzle, custom, stages;
    uint16_t inner_shape, cluster_shape;
    uint64_t workspace; /* bytes it needs */
};
#define ALGO_MAGIC 0x5374644eu
_Static_assert(sizeof(struct lt_algo) <= sizeof(((cublasLtMatmulAlgo_t *)0)->data), "algo config too large");

/* An attribute: where it lives in its struct, and its size, which cuBLASLt requires exactly. */
struct field {
    int attr;
    size_t offset, size;
};
#define FIELD(attr, type, member) {attr, offsetof(type, member), sizeof(((type *)0)->member)}
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct field desc_fields[] = {
    FIELD(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, struct lt_desc, compute),
    FIELD(CUBLASLT_MATMUL_DESC_SCALE_TYPE, struct lt_desc, scale),
    FIELD(CUBLASLT_MATMUL_DESC_TRANSA, struct lt_desc, transa),
    FIELD(CUBLASLT_MATMUL_DESC_TRANSB, struct lt_desc, transb),
    FIELD(CUBLASLT_MATMUL_DESC_EPILOGUE, struct lt_desc, epilogue),
    FIELD(CUBLASLT_MATMUL_DESC_BIAS_POINTER, struct lt_desc, bias),
    FIELD(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, struct lt_desc, bias_type),
};
static const struct field layout_fields[] = {
    FIELD(CUBLASLT_MATRIX_LAYOUT_TYPE, struct lt_layout, type),
    FIELD(CUBLASLT_MATRIX_LAYOUT_ORDER, struct lt_layout, order),
    FIELD(CUBLASLT_MATRIX_LAYOUT_ROWS, struct lt_layout, rows),
    FIELD(CUBLASLT_MATRIX_LAYOUT_COLS, struct lt_layout, cols),
    FIELD(CUBLASLT_MATRIX_LAYOUT_LD, struct lt_layout, ld),
    FIELD(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, struct lt_layout, batch),
    FIELD(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, struct lt_layout, stride),
};
static const struct field pref_fields[] = {
    FIELD(CUBLASLT_MATMUL_PREF_SEARCH_MODE, struct lt_pref, search_mode),
    FIELD(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, struct lt_pref, max_workspace),
    FIELD(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, struct lt_pref, reduction_mask),
};
static const struct field algo_fields[] = {
    FIELD(CUBLASLT_ALGO_CONFIG_ID, struct lt_algo, id),
    FIELD(CUBLASLT_ALGO_CONFIG_TILE_ID, struct lt_algo, tile),
    FIELD(CUBLASLT_ALGO_CONFIG_SPLITK_NUM, struct lt_algo, splitk),
    FIELD(CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, struct lt_algo, reduction),
    FIELD(CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, struct lt_algo, swizzle),
    FIELD(CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, struct lt_algo, custom),
    FIELD(CUBLASLT_ALGO_CONFIG_STAGES_ID, struct lt_algo, stages),
    FIELD(CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, struct lt_algo, inner_shape),
    FIELD(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, struct lt_algo, cluster_shape),
};

static const struct field *find_field(const struct field *fields, size_t count, int attr)
{
    for (size_t i = 0; i < count; i++)
        if (fields[i].attr == attr)
            return &fields[i];
    return NULL;
}

/* An attribute the stand-in does not model is refused (NOT_SUPPORTED), not ignored: a test then
 * sees that the adapter asked for something the stand-in cannot honour. */
static cublasStatus_t set_field(void *obj, const struct field *fields, size_t count, int attr, const void *buf,
                                size_t size)
{
    const struct field *f = find_field(fields, count, attr);
    if (!obj)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!f)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (!buf || size != f->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy((char *)obj + f->offset, buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

/* cuBLASLt's rule: size 0 with sizeWritten asks for the size; else it must be the attribute's. */
static cublasStatus_t get_field(const void *obj, const struct field *fields, size_t count, int attr, void *buf,
                                size_t size, size_t *written)
{
    const struct field *f = find_field(fields, count, attr);
    if (!obj)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!f)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (size == 0 && written) {
        *written = f->size;
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || size != f->size)
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, (const char *)obj + f->offset, size);
    if (written)
        *written = size;
    return CUBLAS_STATUS_SUCCESS;
}

#define LT_DESC(d) ((struct lt_desc *)(void *)(d))
#define LT_LAYOUT(l) ((struct lt_layout *)(void *)(l))
#define LT_PREF(p) ((struct lt_pref *)(void *)(p))

/* Makes an object: a copy of `init`, counted. (void **) as cudaMalloc takes it: the descriptor
 * types are pointers to structs of the headers', and ours stand behind them. */
static cublasStatus_t lt_make(void **out, const void *init, size_t size)
{
    if (!out)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!(*out = malloc(size)))
        return CUBLAS_STATUS_ALLOC_FAILED;
    memcpy(*out, init, size);
    fpd_standin_count_object(1);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t lt_destroy(void *obj)
{
    if (obj) { /* like free: nothing to destroy is no error */
        free(obj);
        fpd_standin_count_object(-1);
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle)
{
    RETURN_IF_INJECTED();
    if (lightHandle && fpd_host_sticky_error() != cudaSuccess)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    static const struct cublasLtContext init;
    return lt_make((void **)lightHandle, &init, sizeof init);
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle)
{
    RETURN_IF_INJECTED();
    return lightHandle ? lt_destroy(lightHandle) : CUBLAS_STATUS_NOT_INITIALIZED;
}

size_t cublasLtGetVersion(void) { return CUBLAS_VERSION; }

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc, cublasComputeType_t computeType,
                                        cudaDataType_t scaleType)
{
    RETURN_IF_INJECTED();
    struct lt_desc init = {.compute = computeType, .scale = scaleType, .transa = CUBLAS_OP_N, .transb = CUBLAS_OP_N,
                           .epilogue = CUBLASLT_EPILOGUE_DEFAULT, .bias_type = -1};
    return lt_make((void **)matmulDesc, &init, sizeof init);
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc)
{
    RETURN_IF_INJECTED();
    return lt_destroy(matmulDesc);
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t sizeInBytes)
{
    RETURN_IF_INJECTED();
    return set_field(matmulDesc, desc_fields, COUNT(desc_fields), attr, buf, sizeInBytes);
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld)
{
    RETURN_IF_INJECTED();
    struct lt_layout init = {.type = type, .order = CUBLASLT_ORDER_COL, .batch = 1, .rows = rows, .cols = cols, .ld = ld};
    return lt_make((void **)matLayout, &init, sizeof init);
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout)
{
    RETURN_IF_INJECTED();
    return lt_destroy(matLayout);
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout, cublasLtMatrixLayoutAttribute_t attr,
                                                const void *buf, size_t sizeInBytes)
{
    RETURN_IF_INJECTED();
    return set_field(matLayout, layout_fields, COUNT(layout_fields), attr, buf, sizeInBytes);
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
    RETURN_IF_INJECTED();
    static const struct lt_pref init = {.reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK}; /* and no workspace */
    return lt_make((void **)pref, &init, sizeof init);
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
    RETURN_IF_INJECTED();
    return lt_destroy(pref);
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                    cublasLtMatmulPreferenceAttributes_t attr, const void *buf,
                                                    size_t sizeInBytes)
{
    RETURN_IF_INJECTED();
    return set_field(pref, pref_fields, COUNT(pref_fields), attr, buf, sizeInBytes);
}

cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t *algo,
                                                    cublasLtMatmulAlgoConfigAttributes_t attr, void *buf,
                                                    size_t sizeInBytes, size_t *sizeWritten)
{
    RETURN_IF_INJECTED();
    return get_field(algo ? algo->data : NULL, algo_fields, COUNT(algo_fields), attr, buf, sizeInBytes, sizeWritten);
}

/* ---- cuBLASLt: the problem, the heuristic, the matmul ---- */

/* The GEMM the descriptors describe, pointers aside; the status cuBLASLt gives for them. */
static cublasStatus_t lt_problem(const struct lt_desc *desc, const struct lt_layout *la, const struct lt_layout *lb,
                                 const struct lt_layout *lc, const struct lt_layout *ld, struct fpd_standin_gemm *g)
{
    if (!desc || !la || !lb || !lc || !ld || !op_valid(desc->transa) || !op_valid(desc->transb))
        return CUBLAS_STATUS_INVALID_VALUE;
    const struct lt_layout *layouts[] = {la, lb, lc, ld};
    for (size_t i = 0; i < COUNT(layouts); i++) {
        const struct lt_layout *l = layouts[i];
        if (l->order != CUBLASLT_ORDER_COL)
            return CUBLAS_STATUS_NOT_SUPPORTED;
        bool broadcast_c = l == lc && l->ld == 0; /* documented: C's ld may be 0 */
        if (l->rows > INT32_MAX || l->cols > INT32_MAX || (l->ld < at_least_one((int64_t)l->rows) && !broadcast_c) ||
            l->batch < 1 || l->batch != ld->batch || l->stride < 0)
            return CUBLAS_STATUS_INVALID_VALUE;
    }
    bool ta = desc->transa != CUBLAS_OP_N, tb = desc->transb != CUBLAS_OP_N;
    *g = (struct fpd_standin_gemm){.m = (int64_t)(ta ? la->cols : la->rows), .k = (int64_t)(ta ? la->rows : la->cols),
                                   .n = (int64_t)(tb ? lb->rows : lb->cols), .batch = ld->batch, .splitk = 1};
    if ((int64_t)(tb ? lb->cols : lb->rows) != g->k || (int64_t)ld->rows != g->m || (int64_t)ld->cols != g->n ||
        lc->rows != ld->rows || lc->cols != ld->cols)
        return CUBLAS_STATUS_INVALID_VALUE;
    cudaDataType scale = (cudaDataType)desc->scale;
    if (la->type != lb->type || lc->type != ld->type ||
        !fpd_standin_combination(desc->compute, &scale, la->type, ld->type, true, g) ||
        (desc->epilogue != CUBLASLT_EPILOGUE_DEFAULT && desc->epilogue != CUBLASLT_EPILOGUE_BIAS) ||
        (desc->epilogue == CUBLASLT_EPILOGUE_BIAS && desc->bias_type != -1 && (uint32_t)desc->bias_type != ld->type))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    g->a = (struct fpd_standin_matrix){NULL, g->a.type, la->ld, la->stride, ta};
    g->b = (struct fpd_standin_matrix){NULL, g->b.type, lb->ld, lb->stride, tb};
    g->c = (struct fpd_standin_matrix){NULL, g->c.type, lc->ld, lc->stride, false};
    g->d = (struct fpd_standin_matrix){NULL, g->d.type, ld->ld, ld->stride, false};
    return CUBLAS_STATUS_SUCCESS;
}

/* Candidate i of the heuristic for g under pref; false if the preference rules it out. */
static bool lt_candidate(int i, const struct fpd_standin_gemm *g, const struct lt_pref *pref, struct lt_algo *a)
{
    static const uint32_t tiles[] = {CUBLASLT_MATMUL_TILE_128x128, CUBLASLT_MATMUL_TILE_64x128,
                                     CUBLASLT_MATMUL_TILE_128x256};
    static const uint32_t stages[] = {CUBLASLT_MATMUL_STAGES_64x3, CUBLASLT_MATMUL_STAGES_64x4,
                                      CUBLASLT_MATMUL_STAGES_32x4};
    *a = (struct lt_algo){.magic = ALGO_MAGIC, .id = 100 + i, .splitk = i == 0 ? 1 : 2, .tile = tiles[i % 3],
                          .reduction = CUBLASLT_REDUCTION_SCHEME_NONE, .swizzle = (uint32_t)i % 2,
                          .custom = (uint32_t)i / 3, .stages = stages[i % 3]};
    if (a->splitk == 1)
        return true;
    /* a 16-bit D (not pedantic) reduces in its own type where allowed; the schemes in order of preference */
    bool narrow = fpd_dtype_info(g->d.type)->size == 2 && !g->pedantic;
    static const uint32_t narrow_order[] = {CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE, CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE,
                                            CUBLASLT_REDUCTION_SCHEME_INPLACE};
    static const uint32_t wide_order[] = {CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE, CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE,
                                          CUBLASLT_REDUCTION_SCHEME_INPLACE};
    const uint32_t *order = narrow ? narrow_order : wide_order;
    for (size_t s = 0; s < 3 && a->reduction == CUBLASLT_REDUCTION_SCHEME_NONE; s++)
        if (pref->reduction_mask & order[s])
            a->reduction = order[s];
    if (a->reduction == CUBLASLT_REDUCTION_SCHEME_NONE)
        return false;
    /* the partial results: in the compute type or D's; in place, D itself holds them */
    enum fpd_dtype partial = a->reduction == CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE ? g->acc : g->d.type;
    if (a->reduction != CUBLASLT_REDUCTION_SCHEME_INPLACE)
        a->workspace = (uint64_t)a->splitk * (uint64_t)(g->m * g->n * g->batch) * fpd_dtype_info(partial)->size;
    return a->workspace <= pref->max_workspace;
}

/* FPD_STANDIN_LT_ALGOS, the candidates the heuristic has; 3 when unset or not a count. */
static int lt_algo_count(void)
{
    const char *env = getenv("FPD_STANDIN_LT_ALGOS");
    char *end;
    long n = env ? strtol(env, &end, 10) : -1;
    return env && *env && !*end && n >= 0 && n <= 1000 ? (int)n : 3;
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                              cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                              cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                              cublasLtMatmulPreference_t preference, int requestedAlgoCount,
                                              cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                              int *returnAlgoCount)
{
    RETURN_IF_INJECTED();
    if (!lightHandle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!preference || !heuristicResultsArray || !returnAlgoCount || requestedAlgoCount < 1)
        return CUBLAS_STATUS_INVALID_VALUE;
    *returnAlgoCount = 0;
    struct fpd_standin_gemm g;
    cublasStatus_t st =
        lt_problem(LT_DESC(operationDesc), LT_LAYOUT(Adesc), LT_LAYOUT(Bdesc), LT_LAYOUT(Cdesc), LT_LAYOUT(Ddesc), &g);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    const struct lt_pref *pref = LT_PREF(preference);
    last_reduction_mask = pref->reduction_mask;
    int found = 0, candidates = lt_algo_count();
    for (int i = 0; i < candidates && found < requestedAlgoCount; i++) {
        struct lt_algo a;
        if (!lt_candidate(i, &g, pref, &a))
            continue;
        cublasLtMatmulHeuristicResult_t *r = &heuristicResultsArray[found++];
        memset(r, 0, sizeof *r);
        memcpy(r->algo.data, &a, sizeof a);
        r->workspaceSize = a.workspace;
        r->state = CUBLAS_STATUS_SUCCESS;
        r->wavesCount = 1.0f;
    }
    *returnAlgoCount = found;
    return found ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha,
                              const void *A, cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc,
                              const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo, void *workspace,
                              size_t workspaceSizeInBytes, cudaStream_t stream)
{
    RETURN_IF_INJECTED();
    if (!lightHandle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    const struct lt_desc *desc = LT_DESC(computeDesc);
    struct fpd_standin_gemm g;
    cublasStatus_t st = lt_problem(desc, LT_LAYOUT(Adesc), LT_LAYOUT(Bdesc), LT_LAYOUT(Cdesc ? Cdesc : Ddesc),
                                   LT_LAYOUT(Ddesc), &g);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    struct lt_algo a;
    static const struct lt_pref no_workspace = {.reduction_mask = CUBLASLT_REDUCTION_SCHEME_MASK};
    if (algo) /* else cuBLASLt's own first choice under the default preference */
        memcpy(&a, algo->data, sizeof a);
    else
        lt_candidate(0, &g, &no_workspace, &a);
    bool split_valid = a.splitk == 1 || (a.splitk > 1 && (a.reduction == CUBLASLT_REDUCTION_SCHEME_INPLACE ||
                                                          a.reduction == CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE ||
                                                          a.reduction == CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE));
    if (!alpha || !beta || a.magic != ALGO_MAGIC || !split_valid || workspaceSizeInBytes < a.workspace ||
        (a.workspace && ((uintptr_t)workspace % 256 || !fpd_standin_in_device(workspace, a.workspace))) ||
        (desc->epilogue == CUBLASLT_EPILOGUE_BIAS && !desc->bias))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (fpd_host_sticky_error() != cudaSuccess || !fpd_standin_stream_known(stream))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    g.a.p = A, g.b.p = B, g.c.p = C ? C : D, g.d.p = D;
    g.bias = desc->epilogue == CUBLASLT_EPILOGUE_BIAS ? desc->bias : NULL;
    g.splitk = a.splitk;
    g.reduce_in_output = a.splitk > 1 && a.reduction != CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    return launch(&g, alpha, beta);
}
