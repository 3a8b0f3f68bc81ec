/*
 * crashy.c — a test plugin whose kernel crashes on some shapes and hangs on others, so the tests
 * can check that a campaign survives them: k = 13 dereferences a null pointer (SIGSEGV), k = 17
 * never returns, k = 19 ends the process with status 0 as if all were well. Every other shape is
 * a plain sequential f32 GEMM. crashy-many is the same, taking several GEMMs at once (gemm_many),
 * so that a campaign runs its small checks together and one of them kills the lot.
 */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "fpdiv_backend.h"

static int crashy_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self, (void)why, (void)why_size;
    *state = NULL;
    return FPD_OK;
}

static bool crashy_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    if (dt->in == FPD_F32 && dt->out == FPD_F32 && dt->acc == FPD_F32)
        return true;
    snprintf(why, why_size, "f32 only");
    return false;
}

static int crashy_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state, (void)why, (void)why_size;
    if (g->k == 13)
        *(volatile int *)(uintptr_t)g->threads = 1; /* threads is 0 here: a write through NULL */
    while (g->k == 17)
        pause();
    if (g->k == 19)
        _exit(0);
    for (size_t b = 0; b < g->batch; b++)
        for (size_t i = 0; i < g->m; i++)
            for (size_t j = 0; j < g->n; j++) {
                const float *a = (const float *)g->a + b * g->stride_a, *bm = (const float *)g->b + b * g->stride_b;
                float acc = g->bias ? ((const float *)g->bias)[j] : 0;
                for (size_t p = 0; p < g->k; p++)
                    acc = fmaf(g->trans_a ? a[p * g->lda + i] : a[i * g->lda + p],
                               g->trans_b ? bm[j * g->ldb + p] : bm[p * g->ldb + j], acc);
                ((float *)g->c)[b * g->stride_c + i * g->ldc + j] = acc;
            }
    return FPD_OK;
}

static void crashy_gemm_many(void *state, size_t count, const struct fpd_gemm_args *const *args, int *status, char *why,
                             size_t why_size)
{
    for (size_t i = 0; i < count; i++)
        status[i] = crashy_gemm(state, args[i], why + i * why_size, why_size);
}

#define CRASHY_BACKEND(ident, nm, doc, many)                                                         \
    static const struct fpd_backend ident = {                                                        \
        .abi = FPDIV_BACKEND_ABI, .name = nm, .summary = doc, .device = FPD_DEVICE_CPU,              \
        .kind = FPD_KIND_TEST, .features = FPD_FEAT_FUSED_BIAS, .open = crashy_open,                 \
        .supports = crashy_supports, .gemm = crashy_gemm, .gemm_many = many,                         \
    };
CRASHY_BACKEND(crashy, "crashy", "test plugin: crashes when k = 13, hangs when k = 17, exits when k = 19", NULL)
CRASHY_BACKEND(crashy_many, "crashy-many", "test plugin: crashy, taking several GEMMs at once", crashy_gemm_many)

static const struct fpd_backend *const backends[] = {&crashy, &crashy_many};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    (void)why, (void)why_size;
    if (abi != FPDIV_BACKEND_ABI)
        return NULL;
    *count = sizeof backends / sizeof backends[0];
    return backends;
}
