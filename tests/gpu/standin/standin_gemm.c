/*
 * standin_gemm.c — the stand-in's GEMM arithmetic, and the type combinations cuBLAS documents.
 *
 * Every operation is rounded as its type says: the k loop is fma/fmaf; a sum or product of two
 * values of the accumulator type is formed in binary64 and rounded once to it, which is the
 * correctly rounded operation (binary64 has more than 2p + 2 bits for every p here: Figueroa,
 * "When is double rounding innocuous?", 1995). Built with -ffp-contract=off, as all of fpdiv.
 *
 * Split-K is a model, not cuBLAS's algorithm (which is not documented): k is cut into contiguous
 * parts, each summed from zero, and the parts added in order. Its point is the reduction's
 * precision: in the output type (cuBLASLt's CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE or INPLACE,
 * cuBLAS's reduced-precision reduction) each part is rounded to D's type and the sum rounded
 * after every addition, which a 16-bit D shows.
 */
#include <math.h>
#include <string.h>

#include "common/dtype.h"
#include "standin_internal.h"

bool fpd_standin_dtype(cudaDataType t, enum fpd_dtype *out)
{
    switch (t) {
    case CUDA_R_64F: *out = FPD_F64; return true;
    case CUDA_R_32F: *out = FPD_F32; return true;
    case CUDA_R_16F: *out = FPD_F16; return true;
    case CUDA_R_16BF: *out = FPD_BF16; return true;
    default: return false;
    }
}

/*
 * cuBLAS's table of supported types, restricted to the real types fpdiv stores (64F, 32F, 16F,
 * 16BF): cublasGemmEx, https://docs.nvidia.com/cuda/cublas/index.html#cublasgemmex ("cublasGemmEx
 * supports the following compute type, scale type, Atype/Btype, and Ctype"), and cublasLtMatmul,
 * https://docs.nvidia.com/cuda/cublas/index.html#cublasltmatmul, which adds
 * CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT. The scale type is 32F for every 32F compute type and 64F
 * for 64F. Left out: CUBLAS_COMPUTE_16F (16F scale, 16F A/B/C), which fpdiv never asks for, and
 * the integer, complex and FP8/FP4 rows.
 */
enum type_pair { BF16_BF16 = 1 << 0, F16_F16 = 1 << 1, BF16_F32 = 1 << 2, F16_F32 = 1 << 3, F32_F32 = 1 << 4, F64_F64 = 1 << 5 };
#define F32_COMPUTE_PAIRS (BF16_BF16 | F16_F16 | BF16_F32 | F16_F32 | F32_F32)

static const struct {
    cudaDataType ab, c;
} pair_types[] = {{CUDA_R_16BF, CUDA_R_16BF}, {CUDA_R_16F, CUDA_R_16F}, {CUDA_R_16BF, CUDA_R_32F},
                  {CUDA_R_16F, CUDA_R_32F},   {CUDA_R_32F, CUDA_R_32F}, {CUDA_R_64F, CUDA_R_64F}};

static const struct compute_row {
    cublasComputeType_t compute;
    unsigned pairs; /* enum type_pair bits */
    enum fpd_dtype acc;
    enum fpd_standin_inputs inputs;
    bool pedantic, lt_only;
} compute_rows[] = {
    {CUBLAS_COMPUTE_32F, F32_COMPUTE_PAIRS, FPD_F32, FPD_STANDIN_EXACT, false, false},
    {CUBLAS_COMPUTE_32F_PEDANTIC, F32_COMPUTE_PAIRS, FPD_F32, FPD_STANDIN_EXACT, true, false},
    {CUBLAS_COMPUTE_32F_FAST_16F, F32_F32, FPD_F32, FPD_STANDIN_F16, false, false},
    {CUBLAS_COMPUTE_32F_FAST_16BF, F32_F32, FPD_F32, FPD_STANDIN_BF16, false, false},
    {CUBLAS_COMPUTE_32F_FAST_TF32, F32_F32, FPD_F32, FPD_STANDIN_TF32, false, false},
    {CUBLAS_COMPUTE_32F_EMULATED_16BFX9, F32_F32, FPD_F32, FPD_STANDIN_EXACT, false, false},
    {CUBLAS_COMPUTE_64F, F64_F64, FPD_F64, FPD_STANDIN_EXACT, false, false},
    {CUBLAS_COMPUTE_64F_PEDANTIC, F64_F64, FPD_F64, FPD_STANDIN_EXACT, true, false},
    {CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, F64_F64, FPD_F64, FPD_STANDIN_EXACT, false, true},
};

bool fpd_standin_combination(cublasComputeType_t compute, const cudaDataType *scale, cudaDataType ab, cudaDataType c,
                             bool lt, struct fpd_standin_gemm *g)
{
    for (size_t r = 0; r < sizeof compute_rows / sizeof compute_rows[0]; r++) {
        const struct compute_row *row = &compute_rows[r];
        cudaDataType row_scale = row->acc == FPD_F64 ? CUDA_R_64F : CUDA_R_32F;
        if (row->compute != compute || (row->lt_only && !lt) || (scale && *scale != row_scale))
            continue;
        for (size_t p = 0; p < sizeof pair_types / sizeof pair_types[0]; p++)
            if ((row->pairs >> p & 1) && pair_types[p].ab == ab && pair_types[p].c == c) {
                g->acc = row->acc;
                g->inputs = row->inputs;
                g->pedantic = row->pedantic;
                fpd_standin_dtype(ab, &g->a.type);
                g->b.type = g->a.type;
                fpd_standin_dtype(c, &g->c.type);
                g->d.type = g->c.type;
                return true;
            }
    }
    return false;
}

/* Elements a batched matrix of rows x cols spans, from its first. */
static size_t span(const struct fpd_standin_matrix *x, int64_t rows, int64_t cols, int64_t batch)
{
    if (rows == 0 || cols == 0 || batch == 0)
        return 0;
    return (size_t)((batch - 1) * x->stride + (cols - 1) * x->ld + rows);
}

bool fpd_standin_gemm_in_device(const struct fpd_standin_gemm *g)
{
    /* A is stored k x m when transposed, else m x k; B n x k, else k x n */
    size_t a = g->a.trans ? span(&g->a, g->k, g->m, g->batch) : span(&g->a, g->m, g->k, g->batch);
    size_t b = g->b.trans ? span(&g->b, g->n, g->k, g->batch) : span(&g->b, g->k, g->n, g->batch);
    size_t in = fpd_dtype_info(g->a.type)->size, out = fpd_dtype_info(g->d.type)->size;
    bool reads_c = fpclassify(g->beta) != FP_ZERO;
    return fpd_standin_in_device(g->a.p, a * in) && fpd_standin_in_device(g->b.p, b * in) &&
           (!reads_c || fpd_standin_in_device(g->c.p, span(&g->c, g->m, g->n, g->batch) * out)) &&
           fpd_standin_in_device(g->d.p, span(&g->d, g->m, g->n, g->batch) * out) &&
           (!g->bias || fpd_standin_in_device(g->bias, (size_t)g->m * out));
}

/* x rounded to TF32 (binary32 with 10 fraction bits), to nearest even. */
static double round_tf32(double x)
{
    float f = (float)x; /* exact: x is an f32 input */
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if ((bits & 0x7f800000u) != 0x7f800000u) /* Inf and NaN stay */
        bits = (bits + 0xfffu + (bits >> 13 & 1)) & ~0x1fffu;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Element p of a batched operand, as the compute type takes it. */
static double input(const struct fpd_standin_gemm *g, const struct fpd_standin_matrix *x, size_t at)
{
    double v = fpd_load(x->type, x->p, at);
    switch (g->inputs) {
    case FPD_STANDIN_TF32: return round_tf32(v);
    case FPD_STANDIN_F16: return fpd_round(FPD_F16, v);
    case FPD_STANDIN_BF16: return fpd_round(FPD_BF16, v);
    default: return v;
    }
}

/* x rounded to the accumulator type. */
static double in_acc(const struct fpd_standin_gemm *g, double x) { return g->acc == FPD_F64 ? x : (double)(float)x; }

/* Sum over p in [from, to) of op(A)(i, p) op(B)(p, j) of batch entry e, by sequential FMA from 0. */
static double part(const struct fpd_standin_gemm *g, int64_t e, int64_t i, int64_t j, int64_t from, int64_t to)
{
    size_t a0 = (size_t)(e * g->a.stride), b0 = (size_t)(e * g->b.stride);
    double acc64 = 0;
    float acc32 = 0;
    for (int64_t p = from; p < to; p++) {
        double x = input(g, &g->a, a0 + (size_t)(g->a.trans ? p + i * g->a.ld : i + p * g->a.ld));
        double y = input(g, &g->b, b0 + (size_t)(g->b.trans ? j + p * g->b.ld : p + j * g->b.ld));
        if (g->acc == FPD_F64)
            acc64 = fma(x, y, acc64);
        else
            acc32 = fmaf((float)x, (float)y, acc32);
    }
    return g->acc == FPD_F64 ? acc64 : acc32;
}

void fpd_standin_gemm_run(const struct fpd_standin_gemm *g)
{
    bool reads_c = fpclassify(g->beta) != FP_ZERO; /* BLAS: with beta 0, C need not hold numbers */
    int parts = g->splitk > 1 ? g->splitk : 1;
    for (int64_t e = 0; e < g->batch; e++)
        for (int64_t j = 0; j < g->n; j++)
            for (int64_t i = 0; i < g->m; i++) {
                double sum = 0;
                for (int s = 0; s < parts; s++) {
                    double x = part(g, e, i, j, g->k * s / parts, g->k * (s + 1) / parts);
                    if (g->reduce_in_output)
                        sum = s ? fpd_round(g->d.type, sum + fpd_round(g->d.type, x)) : fpd_round(g->d.type, x);
                    else
                        sum = s ? in_acc(g, sum + x) : x;
                }
                double r = in_acc(g, g->alpha * sum);
                if (reads_c)
                    r = in_acc(g, r + in_acc(g, g->beta * fpd_load(g->c.type, g->c.p, (size_t)(e * g->c.stride + i + j * g->c.ld))));
                if (g->bias)
                    r = in_acc(g, r + fpd_load(g->d.type, g->bias, (size_t)i));
                /* d.p is const for the matrix type's sake: D is the caller's output */
                fpd_store(g->d.type, (void *)g->d.p, (size_t)(e * g->d.stride + i + j * g->d.ld), r);
            }
}
