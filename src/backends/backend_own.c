/*
 * backend_own.c — fpdiv's own CPU kernels as backends: one adapter, one table row per kernel.
 *
 * The adapter brings the inputs into the kernel's compute type (float for f32, f16 and bf16
 * accumulation; double for f64) and rounds the result into the output type. 16-bit inputs
 * upcast to float exactly. A 16-bit accumulator is emulated exactly: an addition of two 16-bit
 * values, or a product of two (exact in float unless it underflows float), rounded first to float
 * and then to 16 bits is correctly rounded, since float carries 24 >= 2p+2 bits for p = 11 (f16)
 * and 8 (bf16) (Figueroa, 1995); a fused multiply-add is not a single such operation, so it gets
 * a correctly rounded 16-bit FMA of its own (fpd_fma_f16/bf16: round to odd, then to nearest).
 */
#include "backends/backend_own.h"

#include <stdio.h>
#include <stdlib.h>

#include "backends/backend.h"
#include "backends/backend_util.h"
#include "common/dtype.h"
#include "cpu/kernels.h"

struct own_kernel {
    int (*f32)(const struct fpd_kgemm_f32 *);
    int (*f64)(const struct fpd_kgemm_f64 *);
    bool accumulates_16bit; /* supports f16/bf16 accumulators through round_acc */
};

static const struct own_kernel kernel_seq = {fpd_kernel_seq_f32, fpd_kernel_seq_f64, true};
static const struct own_kernel kernel_pairwise = {fpd_kernel_pairwise_f32, fpd_kernel_pairwise_f64, true};
static const struct own_kernel kernel_blocked = {fpd_kernel_blocked_f32, fpd_kernel_blocked_f64, false};
static const struct own_kernel kernel_splitk = {fpd_kernel_splitk_f32, fpd_kernel_splitk_f64, true};

struct own_state {
    const struct own_kernel *kernel;
    struct fpd_batch_staging batch;
    struct fpd_staging bias;
};

static int own_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    struct own_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    s->kernel = self->data;
    *state = s;
    return FPD_OK;
}

static bool own_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    const struct own_state *s = state;
    if (!fpd_dtypes_valid(dt, why, why_size))
        return false;
    if ((dt->acc == FPD_F16 || dt->acc == FPD_BF16) && !s->kernel->accumulates_16bit) {
        snprintf(why, why_size, "this kernel accumulates in f32 or f64 only, not %s", fpd_dtype_info(dt->acc)->name);
        return false;
    }
    return true;
}

static float (*const acc_rounding[FPD_DTYPE_COUNT])(float) = {
    [FPD_F16] = fpd_round_f32_to_f16,
    [FPD_BF16] = fpd_round_f32_to_bf16,
};
static float (*const acc_fma[FPD_DTYPE_COUNT])(float, float, float) = {
    [FPD_F16] = fpd_fma_f16,
    [FPD_BF16] = fpd_fma_bf16,
};

static int own_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    struct own_state *s = state;
    enum fpd_dtype ct = g->dt.acc == FPD_F64 ? FPD_F64 : FPD_F32;
    size_t ignored_ld;
    const void *bias = g->bias ? fpd_stage_input(&s->bias, g->dt.out, g->bias, 1, g->n, g->n, ct, &ignored_ld)
                               : NULL;
    if (g->bias && !bias)
        goto nomem;
    for (size_t b = 0; b < g->batch; b++) {
        struct fpd_batch_entry e;
        if (fpd_stage_batch_entry(&s->batch, g, b, ct, ct, &e) != FPD_OK)
            goto nomem;
        ptrdiff_t a_rs, a_cs, b_rs, b_cs;
        fpd_op_strides(g->trans_a, e.lda, &a_rs, &a_cs);
        fpd_op_strides(g->trans_b, e.ldb, &b_rs, &b_cs); /* op(B)[p][j]: its rows run over p */
        int rc;
        if (ct == FPD_F64) {
            struct fpd_kgemm_f64 k = {g->m, g->n, g->k, e.a, a_rs, a_cs, e.b, b_rs, b_cs, e.c, e.ldc, bias};
            rc = s->kernel->f64(&k);
        } else {
            struct fpd_kgemm_f32 k = {g->m, g->n, g->k, e.a, a_rs, a_cs, e.b, b_rs, b_cs, e.c, e.ldc, bias,
                                      acc_rounding[g->dt.acc], acc_fma[g->dt.acc]};
            rc = s->kernel->f32(&k);
        }
        if (rc != 0)
            goto nomem;
        fpd_finish_batch_entry(g, b, ct, &e);
    }
    return FPD_OK;
nomem:
    snprintf(why, why_size, "out of memory");
    return FPD_ERR_NOMEM;
}

static void own_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    (void)state;
    emit(ctx, "implementation", "fpdiv own CPU kernel");
}

static void own_close(void *state)
{
    struct own_state *s = state;
    fpd_batch_staging_free(&s->batch);
    fpd_staging_free(&s->bias);
    free(s);
}

#define OWN_BACKEND(ident, nm, kernel_row, doc)                                                     \
    const struct fpd_backend ident = {                                                             \
        .abi = FPDIV_BACKEND_ABI, .name = nm, .summary = doc, .device = FPD_DEVICE_CPU,            \
        .kind = FPD_KIND_OWN, .features = FPD_FEAT_FUSED_BIAS, .data = &kernel_row,                \
        .open = own_open, .supports = own_supports, .gemm = own_gemm,                              \
        .provenance = own_provenance, .close = own_close,                                          \
    };

OWN_BACKEND(fpd_backend_seq, "seq", kernel_seq,
            "own kernel: sequential over k, one FMA per term, accumulator starts at the bias")
OWN_BACKEND(fpd_backend_pairwise, "pairwise", kernel_pairwise,
            "own kernel: pairwise tree over k (adjacent pairs, level by level), bias added last")
OWN_BACKEND(fpd_backend_splitk, "splitk", kernel_splitk,
            "own kernel: k in 4 contiguous parts, each a sequential FMA sum (part 0 from the bias), added in order")
OWN_BACKEND(fpd_backend_blocked, "blocked", kernel_blocked,
            "own kernel: cache-blocked, vectorized; seq's order (sequential FMA over k from the bias)")
