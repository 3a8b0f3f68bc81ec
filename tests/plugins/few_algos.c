/*
 * few_algos.c — a test plugin standing for a library that offers, for some problems, fewer
 * algorithms than a check asks for (cuBLASLt's heuristic can return a single one): for k it
 * offers 1 + k % 4 algorithms, and algorithm j (j < that) sums k in order from term j on,
 * wrapping around. Asked for one it does not offer, its GEMM does not apply
 * (FPD_ERR_NOT_APPLICABLE): the check is passed over, not a finding. f64 only.
 */
#include <math.h>
#include <stdio.h>

#include "fpdiv_backend.h"

static int few_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self, (void)why, (void)why_size;
    *state = NULL;
    return FPD_OK;
}

static bool few_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    if (dt->in == FPD_F64 && dt->out == FPD_F64 && dt->acc == FPD_F64)
        return true;
    snprintf(why, why_size, "few-algos computes f64 only");
    return false;
}

#define AT(p, trans, ld, i, j) ((trans) ? (p)[(size_t)(j) * (ld) + (i)] : (p)[(size_t)(i) * (ld) + (j)])

static int few_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state;
    size_t offered = 1 + g->k % 4;
    if (g->algo < 0 || (size_t)g->algo >= offered) {
        snprintf(why, why_size, "few-algos offers %zu algorithm%s for k = %zu; algorithm %d was asked for", offered,
                 offered == 1 ? "" : "s", g->k, g->algo);
        return FPD_ERR_NOT_APPLICABLE;
    }
    for (size_t b = 0; b < g->batch; b++) {
        const double *a = (const double *)g->a + b * g->stride_a, *bm = (const double *)g->b + b * g->stride_b;
        const double *bias = g->bias;
        double *c = (double *)g->c + b * g->stride_c;
        for (size_t i = 0; i < g->m; i++)
            for (size_t j = 0; j < g->n; j++) {
                double acc = bias ? bias[j] : 0;
                for (size_t q = 0; q < g->k; q++) {
                    size_t p = (q + (size_t)g->algo) % g->k;
                    acc = fma(AT(a, g->trans_a, g->lda, i, p), AT(bm, g->trans_b, g->ldb, p, j), acc);
                }
                c[i * g->ldc + j] = acc;
            }
    }
    return FPD_OK;
}

static void few_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    (void)state;
    emit(ctx, "implementation", "test plugin: 1 + k % 4 algorithms, each a rotation of k");
}

static const struct fpd_backend few = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "few-algos",
    .summary = "test plugin: offers 1 + k % 4 algorithms; one it does not offer does not apply",
    .device = FPD_DEVICE_CPU,
    .kind = FPD_KIND_OWN,
    .features = FPD_FEAT_FUSED_BIAS | FPD_FEAT_ALGOS,
    .open = few_open,
    .supports = few_supports,
    .gemm = few_gemm,
    .provenance = few_provenance,
};

static const struct fpd_backend *const backends[] = {&few};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    if (abi != FPDIV_BACKEND_ABI) {
        snprintf(why, why_size, "built for backend ABI %d, fpdiv speaks %d", FPDIV_BACKEND_ABI, abi);
        return NULL;
    }
    *count = sizeof backends / sizeof backends[0];
    return backends;
}
