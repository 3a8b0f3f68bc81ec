/*
 * reverse.c — an example fpdiv plugin: a user's own GEMM kernel, fuzzed by fpdiv.
 *
 * The kernel is deliberately different from fpdiv's own: it walks k backwards, from the last term
 * to the first, with one FMA per term, starting from the bias. It handles f32 and f64 (input,
 * output and accumulator of one type) and says so; fpdiv never asks it for anything else.
 * Everything a plugin needs is in fpdiv_backend.h; build it with
 *     cc -O2 -ffp-contract=off -fPIC -shared -I src -o reverse.so tests/plugins/reverse.c -lm
 * and load it with `fpdiv --plugin ./reverse.so ...`.
 */
#include <math.h>
#include <stdio.h>

#include "fpdiv_backend.h"

static int reverse_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self, (void)why, (void)why_size;
    *state = NULL; /* nothing to set up */
    return FPD_OK;
}

static bool reverse_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    bool one_type = dt->in == dt->out && dt->out == dt->acc;
    if (one_type && (dt->in == FPD_F32 || dt->in == FPD_F64))
        return true;
    snprintf(why, why_size, "the reverse kernel computes f32 or f64 only, in one type throughout");
    return false;
}

/* op(X)[i][j] of a row-major matrix stored transposed or not */
#define AT(p, trans, ld, i, j) ((trans) ? (p)[(size_t)(j) * (ld) + (i)] : (p)[(size_t)(i) * (ld) + (j)])

#define REVERSE_GEMM(T, FMA)                                                                       \
    for (size_t b = 0; b < g->batch; b++) {                                                        \
        const T *a = (const T *)g->a + b * g->stride_a, *bm = (const T *)g->b + b * g->stride_b;   \
        const T *bias = g->bias;                                                                   \
        T *c = (T *)g->c + b * g->stride_c;                                                        \
        for (size_t i = 0; i < g->m; i++)                                                          \
            for (size_t j = 0; j < g->n; j++) {                                                    \
                T acc = bias ? bias[j] : (T)0;                                                     \
                for (size_t p = g->k; p-- > 0;)                                                    \
                    acc = FMA(AT(a, g->trans_a, g->lda, i, p), AT(bm, g->trans_b, g->ldb, p, j), acc); \
                c[i * g->ldc + j] = acc;                                                           \
            }                                                                                      \
    }

static int reverse_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state, (void)why, (void)why_size;
    if (g->dt.in == FPD_F32) {
        REVERSE_GEMM(float, fmaf)
    } else {
        REVERSE_GEMM(double, fma)
    }
    return FPD_OK;
}

static void reverse_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    (void)state;
    emit(ctx, "implementation", "example plugin: k summed backwards with FMA");
}

static const struct fpd_backend reverse = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "reverse",
    .summary = "example plugin: sequential over k from the last term to the first, FMA, from the bias",
    .device = FPD_DEVICE_CPU,
    .kind = FPD_KIND_OWN,
    .features = FPD_FEAT_FUSED_BIAS,
    .open = reverse_open,
    .supports = reverse_supports,
    .gemm = reverse_gemm,
    .provenance = reverse_provenance,
};

static const struct fpd_backend *const backends[] = {&reverse};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    if (abi != FPDIV_BACKEND_ABI) {
        snprintf(why, why_size, "built for backend ABI %d, fpdiv speaks %d", FPDIV_BACKEND_ABI, abi);
        return NULL;
    }
    *count = sizeof backends / sizeof backends[0];
    return backends;
}
