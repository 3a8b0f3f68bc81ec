/*
 * backend_cuda_own.c — fpdiv's own CUDA kernels as backends: one adapter, one row per kernel.
 * Host buffers in, host buffers out: inputs are brought to the compute type on the host (exactly,
 * as the CPU adapter does), copied over, computed, copied back and rounded to the output type on
 * the host. Every CUDA failure becomes the check's `error` verdict with the CUDA error text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend_util.h"
#include "backends/cuda/cuda_util.h"
#include "common/dtype.h"
#include "common/scratch.h"
#include "cuda/kernels.cuh"

enum own_kind { PLAIN, SPLITK, TENSOR_CORES };

struct cuda_kernel {
    cudaError_t (*f32)(const struct fpd_kgemm_f32 *, cudaStream_t);
    cudaError_t (*f64)(const struct fpd_kgemm_f64 *, cudaStream_t);
    enum own_kind kind;
};

static const struct cuda_kernel kernel_seq = {fpd_cuda_seq_f32, fpd_cuda_seq_f64, PLAIN};
static const struct cuda_kernel kernel_tiled = {fpd_cuda_tiled_f32, fpd_cuda_tiled_f64, PLAIN};
static const struct cuda_kernel kernel_splitk = {NULL, NULL, SPLITK};
static const struct cuda_kernel kernel_wmma = {NULL, NULL, TENSOR_CORES};

struct cuda_state {
    const struct cuda_kernel *kernel;
    bool ready;          /* the stream made: on the first GEMM, in the process that runs it */
    cudaStream_t stream;
    struct fpd_batch_staging host;
    struct fpd_staging bias, padded_a, padded_b, padded_c;
    struct fpd_device_buffer a, b, c, bias_d, partials;
    int device_resets;
};

static int cuda_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    int rc = fpd_cuda_require_device(why, why_size);
    if (rc != FPD_OK)
        return rc;
    struct cuda_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    s->kernel = self->data;
    *state = s;
    return FPD_OK;
}

static bool cuda_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    const struct cuda_state *s = state;
    if (!fpd_dtypes_valid(dt, why, why_size))
        return false;
    if (s->kernel->kind == TENSOR_CORES) {
        int cc = fpd_cuda_compute_capability();
        if (dt->in == FPD_BF16 && cc < 80) { /* wmma.cu traps there */
            snprintf(why, why_size, "tensor cores take bf16 from compute capability 8.0; this GPU has %d.%d", cc / 10,
                     cc % 10);
            return false;
        }
        if ((dt->in == FPD_F16 || dt->in == FPD_BF16) && dt->acc == FPD_F32)
            return true;
        snprintf(why, why_size, "tensor cores take f16 or bf16 inputs with f32 accumulation");
        return false;
    }
    if (dt->acc != FPD_F32 && dt->acc != FPD_F64) {
        snprintf(why, why_size, "the CUDA kernels accumulate in f32 or f64");
        return false;
    }
    return true;
}

/* One batch entry on the plain and split-k kernels. */
static int run_plain(struct cuda_state *s, const struct fpd_gemm_args *g, size_t b, enum fpd_dtype ct,
                     const void *bias_host, char *why, size_t why_size)
{
    struct fpd_batch_entry e;
    if (fpd_stage_batch_entry(&s->host, g, b, ct, ct, &e) != FPD_OK) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    size_t es = fpd_dtype_info(ct)->size;
    /* what the staged operands span: where no conversion was needed they are the caller's views */
    size_t a_bytes = fpd_operand_span(1, 0, g->trans_a ? g->k : g->m, e.lda, g->trans_a ? g->m : g->k) * es,
           b_bytes = fpd_operand_span(1, 0, g->trans_b ? g->n : g->k, e.ldb, g->trans_b ? g->k : g->n) * es,
           c_bytes = g->m * g->n * es;
    int rc;
    if ((rc = fpd_device_grow(&s->a, a_bytes, why, why_size)) != FPD_OK ||
        (rc = fpd_device_grow(&s->b, b_bytes, why, why_size)) != FPD_OK ||
        (rc = fpd_device_grow(&s->c, c_bytes, why, why_size)) != FPD_OK ||
        (rc = fpd_device_grow(&s->bias_d, g->n * es, why, why_size)) != FPD_OK ||
        (s->kernel->kind == SPLITK &&
         (rc = fpd_device_grow(&s->partials, FPD_SPLITK_PARTS * c_bytes, why, why_size)) != FPD_OK))
        return rc;
    if ((rc = fpd_cuda_check(cudaMemcpy(s->a.p, e.a, a_bytes, cudaMemcpyHostToDevice), "copy A", why, why_size)) ||
        (rc = fpd_cuda_check(cudaMemcpy(s->b.p, e.b, b_bytes, cudaMemcpyHostToDevice), "copy B", why, why_size)) ||
        (bias_host &&
         (rc = fpd_cuda_check(cudaMemcpy(s->bias_d.p, bias_host, g->n * es, cudaMemcpyHostToDevice), "copy bias",
                              why, why_size))))
        return rc;
    ptrdiff_t a_rs, a_cs, b_rs, b_cs;
    fpd_op_strides(g->trans_a, e.lda, &a_rs, &a_cs);
    fpd_op_strides(g->trans_b, e.ldb, &b_rs, &b_cs);
    const void *bias_d = bias_host ? s->bias_d.p : NULL;
    cudaError_t launched;
    if (ct == FPD_F64) {
        struct fpd_kgemm_f64 k = {g->m, g->n, g->k, s->a.p, a_rs, a_cs, s->b.p, b_rs, b_cs, s->c.p, g->n, bias_d};
        launched = s->kernel->kind == SPLITK ? fpd_cuda_splitk_f64(&k, s->partials.p, s->stream) : s->kernel->f64(&k, s->stream);
    } else {
        struct fpd_kgemm_f32 k = {g->m, g->n, g->k, s->a.p, a_rs, a_cs, s->b.p, b_rs, b_cs, s->c.p, g->n, bias_d, NULL, NULL};
        launched = s->kernel->kind == SPLITK ? fpd_cuda_splitk_f32(&k, s->partials.p, s->stream) : s->kernel->f32(&k, s->stream);
    }
    if ((rc = fpd_cuda_check(launched, "kernel launch", why, why_size)) ||
        (rc = fpd_cuda_check(cudaStreamSynchronize(s->stream), "kernel", why, why_size)) ||
        (rc = fpd_cuda_check(cudaMemcpy2D(e.c, e.ldc * es, s->c.p, g->n * es, g->n * es, g->m, cudaMemcpyDeviceToHost),
                             "copy C", why, why_size)))
        return rc;
    fpd_finish_batch_entry(g, b, ct, &e);
    return FPD_OK;
}

/* One batch entry on tensor cores: operands padded with zeros to multiples of 16, 16-bit as given;
 * C (f32) starts as the bias rows, so the bias is fused into the accumulator. */
static int run_tensor_cores(struct cuda_state *s, const struct fpd_gemm_args *g, size_t b, const void *bias_host,
                            char *why, size_t why_size)
{
    size_t mp = (g->m + 15) / 16 * 16, np = (g->n + 15) / 16 * 16, kp = (g->k + 15) / 16 * 16;
    size_t in_es = fpd_dtype_info(g->dt.in)->size;
    if (fpd_grow(&s->padded_a.buf, &s->padded_a.cap, mp * kp * 2) != FPD_OK ||
        fpd_grow(&s->padded_b.buf, &s->padded_b.cap, kp * np * 2) != FPD_OK ||
        fpd_grow(&s->padded_c.buf, &s->padded_c.cap, mp * np * sizeof(float)) != FPD_OK) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    uint16_t *pa = s->padded_a.buf, *pb = s->padded_b.buf;
    float *pc = s->padded_c.buf;
    memset(pa, 0, mp * kp * 2);
    memset(pb, 0, kp * np * 2);
    const char *a = (const char *)g->a + b * g->stride_a * in_es, *bm = (const char *)g->b + b * g->stride_b * in_es;
    for (size_t i = 0; i < g->m; i++)
        for (size_t p = 0; p < g->k; p++)
            pa[i * kp + p] = (uint16_t)fpd_bits(g->dt.in, a, g->trans_a ? p * g->lda + i : i * g->lda + p);
    for (size_t p = 0; p < g->k; p++)
        for (size_t j = 0; j < g->n; j++)
            pb[p * np + j] = (uint16_t)fpd_bits(g->dt.in, bm, g->trans_b ? j * g->ldb + p : p * g->ldb + j);
    for (size_t i = 0; i < mp; i++)
        for (size_t j = 0; j < np; j++)
            pc[i * np + j] = bias_host && j < g->n ? ((const float *)bias_host)[j] : 0.0f;
    int rc;
    if ((rc = fpd_device_grow(&s->a, mp * kp * 2, why, why_size)) != FPD_OK ||
        (rc = fpd_device_grow(&s->b, kp * np * 2, why, why_size)) != FPD_OK ||
        (rc = fpd_device_grow(&s->c, mp * np * sizeof(float), why, why_size)) != FPD_OK)
        return rc;
    if ((rc = fpd_cuda_check(cudaMemcpy(s->a.p, pa, mp * kp * 2, cudaMemcpyHostToDevice), "copy A", why, why_size)) ||
        (rc = fpd_cuda_check(cudaMemcpy(s->b.p, pb, kp * np * 2, cudaMemcpyHostToDevice), "copy B", why, why_size)) ||
        (rc = fpd_cuda_check(cudaMemcpy(s->c.p, pc, mp * np * sizeof(float), cudaMemcpyHostToDevice), "copy C", why,
                             why_size)) ||
        (rc = fpd_cuda_check(fpd_cuda_wmma(mp, np, kp, s->a.p, s->b.p, s->c.p, g->dt.in == FPD_BF16, s->stream),
                             "wmma launch", why, why_size)) ||
        (rc = fpd_cuda_check(cudaStreamSynchronize(s->stream), "wmma kernel", why, why_size)) ||
        (rc = fpd_cuda_check(cudaMemcpy(pc, s->c.p, mp * np * sizeof(float), cudaMemcpyDeviceToHost), "copy C back",
                             why, why_size)))
        return rc;
    char *c = (char *)g->c + b * g->stride_c * fpd_dtype_info(g->dt.out)->size;
    fpd_convert_matrix(g->m, g->n, FPD_F32, pc, np, g->dt.out, c, g->ldc);
    return FPD_OK;
}

/* The device buffers and the stream, released; `reset` after a fault that left the CUDA context
 * unusable, when the device is reset too and the next GEMM makes them again. */
static void release_device(struct cuda_state *s, bool reset)
{
    struct fpd_device_buffer *device[] = {&s->a, &s->b, &s->c, &s->bias_d, &s->partials};
    for (size_t i = 0; i < sizeof device / sizeof device[0]; i++)
        fpd_device_free(device[i]);
    if (s->ready)
        cudaStreamDestroy(s->stream);
    s->ready = false;
    if (reset) {
        cudaDeviceReset();
        s->device_resets++;
    }
}

static int cuda_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    struct cuda_state *s = state;
    if (!s->ready) { /* see fpd_cuda_require_device */
        if (fpd_cuda_check(cudaStreamCreate(&s->stream), "cudaStreamCreate", why, why_size) != FPD_OK)
            return FPD_ERR_BACKEND;
        s->ready = true;
    }
    enum fpd_dtype ct = g->dt.acc == FPD_F64 ? FPD_F64 : FPD_F32;
    size_t ignored;
    const void *bias = g->bias ? fpd_stage_input(&s->bias, g->dt.out, g->bias, 1, g->n, g->n, ct, &ignored) : NULL;
    if (g->bias && !bias) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    for (size_t b = 0; b < g->batch; b++) {
        int rc = s->kernel->kind == TENSOR_CORES ? run_tensor_cores(s, g, b, bias, why, why_size)
                                                 : run_plain(s, g, b, ct, bias, why, why_size);
        if (rc == FPD_ERR_BACKEND && fpd_cuda_context_lost())
            release_device(s, true);
        if (rc != FPD_OK)
            return rc;
    }
    return FPD_OK;
}

static void cuda_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    const struct cuda_state *s = state;
    emit(ctx, "implementation", "fpdiv own CUDA kernel");
    fpd_cuda_device_provenance(emit, ctx);
    if (s->kernel->kind == TENSOR_CORES) { /* make test-gpu runs `device` between the two */
        const char *model = fpd_cuda_tensor_core_model(fpd_cuda_compute_capability());
        emit(ctx, "twin", model ? model : "none: no published model of this GPU's tensor cores");
    }
    if (s->device_resets) {
        char buf[32];
        snprintf(buf, sizeof buf, "%d", s->device_resets);
        emit(ctx, "device_resets", buf);
    }
}

static void cuda_close(void *state)
{
    struct cuda_state *s = state;
    fpd_batch_staging_free(&s->host);
    fpd_staging_free(&s->bias);
    fpd_staging_free(&s->padded_a);
    fpd_staging_free(&s->padded_b);
    fpd_staging_free(&s->padded_c);
    release_device(s, false);
    free(s);
}

#define CUDA_BACKEND(ident, nm, row, twin_name, doc)                                                \
    const struct fpd_backend ident = {                                                             \
        .abi = FPDIV_BACKEND_ABI, .name = nm, .summary = doc, .device = FPD_DEVICE_GPU,            \
        .kind = FPD_KIND_OWN, .features = FPD_FEAT_FUSED_BIAS, .data = &row, .twin = twin_name,    \
        .open = cuda_open, .supports = cuda_supports, .gemm = cuda_gemm,                           \
        .provenance = cuda_provenance, .close = cuda_close,                                        \
    };

CUDA_BACKEND(fpd_backend_cuda_seq, "cuda-seq", kernel_seq, "seq",
             "own CUDA kernel: one thread per output, sequential FMA over k from the bias (twin: seq)")
CUDA_BACKEND(fpd_backend_cuda_tiled, "cuda-tiled", kernel_tiled, "seq",
             "own CUDA kernel: 16x16 shared-memory tiles, seq's order (twin: seq)")
CUDA_BACKEND(fpd_backend_cuda_splitk, "cuda-splitk", kernel_splitk, "splitk",
             "own CUDA kernel: k in 4 parts on separate threads, reduced in order (twin: splitk)")
CUDA_BACKEND(fpd_backend_cuda_wmma, "cuda-wmma", kernel_wmma, NULL,
             "own CUDA kernel: tensor cores (WMMA 16x16x16), f16/bf16 in, f32 accumulate (twin: the GPU's tc-* model)")
