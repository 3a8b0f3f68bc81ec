/*
 * old_abi.c — a plugin built against backend ABI 1 (abi1/fpdiv_backend.h, frozen), refusing any
 * other ABI as plugins do: fpdiv asks it again in ABI 1 and loads it. Its kernel sums k forwards
 * with FMA from the bias, seq's order, so `vendor` against seq is `same`.
 */
#include <math.h>
#include <stdio.h>

#ifndef OLD_ABI_HEADER /* old_abi2.c, old_abi4.c and old_abi5.c build this plugin against ABI 2, 4 and 5 */
#define OLD_ABI_HEADER "abi1/fpdiv_backend.h"
#define OLD_ABI_NAME "old-abi"
#define OLD_ABI_FEATURES FPD_FEAT_FUSED_BIAS
#endif
#include OLD_ABI_HEADER

static const struct fpd_backend old;

/* Handed its own struct, as every plugin is: not fpdiv's upgraded copy of it, which a plugin that
 * tells its backends apart by address (lossy.c) would not know. */
static int old_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    *state = NULL;
    if (self == &old)
        return FPD_OK;
    snprintf(why, why_size, "%s was opened through a struct that is not its own", OLD_ABI_NAME);
    return FPD_ERR_BACKEND;
}

static bool old_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    if (dt->in == FPD_F64 && dt->out == FPD_F64 && dt->acc == FPD_F64)
        return true;
    snprintf(why, why_size, "the old ABI's plugin computes f64 only");
    return false;
}

static int old_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state, (void)why, (void)why_size;
    for (size_t b = 0; b < g->batch; b++) {
        const double *a = (const double *)g->a + b * g->stride_a, *bm = (const double *)g->b + b * g->stride_b;
        const double *bias = g->bias;
        double *c = (double *)g->c + b * g->stride_c;
        for (size_t i = 0; i < g->m; i++)
            for (size_t j = 0; j < g->n; j++) {
                double acc = bias ? bias[j] : 0;
                for (size_t p = 0; p < g->k; p++)
                    acc = fma(g->trans_a ? a[p * g->lda + i] : a[i * g->lda + p],
                              g->trans_b ? bm[j * g->ldb + p] : bm[p * g->ldb + j], acc);
                c[i * g->ldc + j] = acc;
            }
    }
    return FPD_OK;
}

#ifdef OLD_ABI_GEMM_MANY /* old_abi4.c and old_abi5.c: gemm_many, from ABI 4 */
static void old_gemm_many(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status, char *why,
                          size_t why_size)
{
    for (size_t i = 0; i < count; i++) {
        status[i] = old_gemm(state, args[i], why + i * why_size, why_size);
        if (args[i]->k == 13) {
            snprintf(why + i * why_size, why_size, "%s's gemm_many fails k = 13", OLD_ABI_NAME);
            status[i] = FPD_ERR_BACKEND;
        }
    }
}
#endif

static const struct fpd_backend old = {
    .abi = FPDIV_BACKEND_ABI,
    .name = OLD_ABI_NAME,
    .summary = "test plugin built for an older backend ABI: seq's order, f64",
    .device = FPD_DEVICE_CPU,
    .kind = FPD_KIND_VENDOR,
    .features = OLD_ABI_FEATURES,
    .open = old_open,
    .supports = old_supports,
    .gemm = old_gemm,
#ifdef OLD_ABI_GEMM_MANY
    .gemm_many = old_gemm_many,
#endif
};

static const struct fpd_backend *const backends[] = {&old};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    if (abi != FPDIV_BACKEND_ABI) {
        snprintf(why, why_size, "built for backend ABI %d, fpdiv speaks %d", FPDIV_BACKEND_ABI, abi);
        return NULL;
    }
    *count = sizeof backends / sizeof backends[0];
    return backends;
}
