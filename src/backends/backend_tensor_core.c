/*
 * backend_tensor_core.c — NVIDIA tensor cores' arithmetic on the CPU: tc-v100, tc-a100, tc-ada,
 * tc-h100, tc-b200 and tc-b200rn compute every product as that GPU's tensor cores do (the block FMA of
 * kernels/cpu/tensor_core.h, with each GPU's parameters), so that any relation runs "as an H100
 * would" on any machine. The models are published ones, validated on the hardware with WMMA and
 * mma.sync; whether cuBLAS's kernels (wgmma on H100) add the same way is not established.
 *
 * Types: fp16 inputs with an fp32 or fp16 accumulator, bf16 inputs (not on V100) with an fp32 one;
 * the output is the accumulator's type, or the inputs' 16-bit type, rounded to nearest from the
 * fp32 accumulator as a kernel's epilogue does.
 */
#include "backends/backend_tensor_core.h"

#include <stdio.h>
#include <stdlib.h>

#include "backends/backend.h"
#include "backends/backend_util.h"
#include "common/dtype.h"
#include "cpu/tensor_core.h"

/* One GPU's tensor cores (Fasi et al. 2021; Khattak and Mikaitis 2025; tensor-cores.md). */
struct tensor_core {
    const char *gpu;
    unsigned block;             /* products per block, fp16 and bf16 inputs */
    int extra_bits;             /* alignment bits */
    int min_exp_f32, min_exp_f16; /* emax's floor, for an fp32 and an fp16 accumulator */
    bool f32_toward_zero;       /* fp32 results rounded toward zero (else to nearest even) */
    bool bf16;                  /* takes bf16 inputs */
};

/* The models' blocks fit the kernel's (checked when a backend opens). */
static const struct tensor_core v100 = {"V100 (Volta)", 4, 0, -1024, -19, true, false},
                                a100 = {"A100 (Ampere; A2, A30 alike)", 8, 1, -132, -20, true, true},
                                ada = {"Ada Lovelace (L40S, RTX 40)", 8, 1, -132, -20, true, true},
                                h100 = {"H100 (Hopper; H200 alike)", 16, 2, -133, -21, true, true},
                                b200 = {"B200 (Blackwell)", 16, 2, -133, -21, true, true},
                                b200rn = {"B200 (Blackwell), the variant that rounds fp32 to nearest", 16, 2, -133, -15,
                                          false, true};

struct tc_state {
    const struct tensor_core *tc;
    struct fpd_batch_staging batch;
    struct fpd_staging bias;
    struct fpd_tc_workspace workspace; /* the model's room, kept from call to call */
};

static int tc_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    struct tc_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    s->tc = self->data;
    if (s->tc->block == 0 || s->tc->block > FPD_TC_BLOCK_MAX) {
        snprintf(why, why_size, "a block of %u products is more than the model takes (%d)", s->tc->block, FPD_TC_BLOCK_MAX);
        free(s);
        return FPD_ERR_UNAVAILABLE;
    }
    *state = s;
    return FPD_OK;
}

static bool tc_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    const struct tc_state *s = state;
    if (!fpd_dtypes_valid(dt, why, why_size))
        return false;
    bool in = dt->in == FPD_F16 || (dt->in == FPD_BF16 && s->tc->bf16);
    bool acc = dt->acc == FPD_F32 || (dt->acc == FPD_F16 && dt->in == FPD_F16);
    bool out = dt->out == dt->acc || dt->out == dt->in;
    if (in && acc && out)
        return true;
    char name[32];
    snprintf(why, why_size, "%s tensor cores take %s inputs into an fp32 accumulator (or fp16 ones into an fp16 one), "
             "out in its type or the inputs'; not %s", s->tc->gpu, s->tc->bf16 ? "fp16 or bf16" : "fp16",
             fpd_dtypes_format(dt, name, sizeof name));
    return false;
}

static struct fpd_tc_arith arithmetic(const struct tensor_core *tc, const struct fpd_dtypes *dt)
{
    bool f16_acc = dt->acc == FPD_F16;
    return (struct fpd_tc_arith){
        .block = tc->block, .extra_bits = tc->extra_bits,
        .min_exp = f16_acc ? tc->min_exp_f16 : tc->min_exp_f32,
        .toward_zero = !f16_acc && tc->f32_toward_zero,
        .in_emin = fpd_dtype_info(dt->in)->emin, .in_fraction_bits = fpd_dtype_info(dt->in)->precision - 1,
        .acc_precision = fpd_dtype_info(dt->acc)->precision,
        .acc_emin = fpd_dtype_info(dt->acc)->emin, .acc_emax = fpd_dtype_info(dt->acc)->emax,
    };
}

static int tc_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    struct tc_state *s = state;
    struct fpd_tc_arith arith = arithmetic(s->tc, &g->dt);
    size_t ignored_ld;
    /* the accumulator's values, as floats (the fp16 ones exactly) */
    const float *bias = g->bias ? fpd_stage_input(&s->bias, g->dt.out, g->bias, 1, g->n, g->n, FPD_F32, &ignored_ld)
                                : NULL;
    if (g->bias && !bias)
        goto nomem;
    for (size_t b = 0; b < g->batch; b++) {
        struct fpd_batch_entry e;
        if (fpd_stage_batch_entry(&s->batch, g, b, FPD_F32, FPD_F32, &e) != FPD_OK)
            goto nomem;
        ptrdiff_t a_rs, a_cs, b_rs, b_cs;
        fpd_op_strides(g->trans_a, e.lda, &a_rs, &a_cs);
        fpd_op_strides(g->trans_b, e.ldb, &b_rs, &b_cs);
        struct fpd_kgemm_f32 k = {g->m, g->n, g->k, e.a, a_rs, a_cs, e.b, b_rs, b_cs, e.c, e.ldc, bias, NULL, NULL};
        fpd_kernel_tensor_core_in(&arith, &k, &s->workspace);
        fpd_finish_batch_entry(g, b, FPD_F32, &e); /* to a 16-bit output: rounded to nearest */
    }
    return FPD_OK;
nomem:
    snprintf(why, why_size, "out of memory");
    return FPD_ERR_NOMEM;
}

static void tc_rounding(void *state, const struct fpd_dtypes *dt, struct fpd_rounding *out)
{
    const struct tc_state *s = state;
    struct fpd_tc_arith a = arithmetic(s->tc, dt);
    *out = (struct fpd_rounding){FPD_ROUNDING_BLOCK_FMA, a.block, a.extra_bits, a.min_exp, a.toward_zero};
}

static void tc_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    const struct tc_state *s = state;
    char block[96];
    snprintf(block, sizeof block, "%u products per block, %d extra alignment bits", s->tc->block, s->tc->extra_bits);
    emit(ctx, "implementation", "fpdiv's model of a tensor core's block FMA (kernels/cpu/tensor_core.h)");
    emit(ctx, "gpu", s->tc->gpu);
    emit(ctx, "block_fma", block);
    emit(ctx, "fp32_rounding", s->tc->f32_toward_zero ? "toward zero" : "to nearest even");
}

static void tc_close(void *state)
{
    struct tc_state *s = state;
    fpd_batch_staging_free(&s->batch);
    fpd_staging_free(&s->bias);
    fpd_tc_workspace_free(&s->workspace);
    free(s);
}

#define TENSOR_CORE_BACKEND(ident, nm, model, doc)                                                 \
    const struct fpd_backend ident = {                                                             \
        .abi = FPDIV_BACKEND_ABI, .name = nm, .summary = doc, .device = FPD_DEVICE_CPU,            \
        .kind = FPD_KIND_OWN, .features = FPD_FEAT_FUSED_BIAS, .data = &model, .open = tc_open,    \
        .supports = tc_supports, .gemm = tc_gemm, .provenance = tc_provenance, .close = tc_close,  \
        .rounding = tc_rounding,                                                                   \
    };

TENSOR_CORE_BACKEND(fpd_backend_tc_v100, "tc-v100", v100,
                    "model of V100 tensor cores: blocks of 4 fp16 products, no extra alignment bit, fp32 toward zero")
TENSOR_CORE_BACKEND(fpd_backend_tc_a100, "tc-a100", a100,
                    "model of A100 tensor cores: blocks of 8 products, 1 extra alignment bit, fp32 toward zero")
TENSOR_CORE_BACKEND(fpd_backend_tc_ada, "tc-ada", ada,
                    "model of Ada (L40S, RTX 40) tensor cores: as A100's, blocks of 8 products, 1 extra alignment bit")
TENSOR_CORE_BACKEND(fpd_backend_tc_h100, "tc-h100", h100,
                    "model of H100 tensor cores: blocks of 16 products, 2 extra alignment bits, fp32 toward zero")
TENSOR_CORE_BACKEND(fpd_backend_tc_b200, "tc-b200", b200,
                    "model of B200 tensor cores: blocks of 16 products, 2 extra alignment bits, fp32 toward zero")
TENSOR_CORE_BACKEND(fpd_backend_tc_b200rn, "tc-b200rn", b200rn,
                    "model of B200 tensor cores, the variant that rounds fp32 to nearest even")
