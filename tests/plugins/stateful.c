/*
 * stateful.c — a test plugin whose provenance is state of the process that ran its GEMMs, as
 * cuBLASLt's chosen algorithm or a handle's modes are: how many GEMMs this process ran, and the
 * shape of the last. An isolated check runs its GEMMs in a child, so its environment must be
 * recorded there (tests/cli/run.sh: "environment where the check ran"). Arithmetic: sequential
 * over k with FMA from the bias, f32 and f64, one type throughout.
 */
#include <math.h>
#include <stdio.h>

#include "fpdiv_backend.h"
#include "one_type_gemm.h"

struct stateful {
    unsigned long gemms;
    char last_shape[64];
};
static struct stateful state_of_this_process;

static int stateful_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self, (void)why, (void)why_size;
    *state = &state_of_this_process;
    return FPD_OK;
}

static bool stateful_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    return one_type_supports("the stateful kernel", dt, why, why_size);
}

#define AS_IT_IS(acc) (acc)

static int stateful_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)why, (void)why_size;
    struct stateful *s = state;
    ONE_TYPE_GEMM(g, AS_IT_IS);
    s->gemms++;
    snprintf(s->last_shape, sizeof s->last_shape, "%zux%zux%zux%zu", g->batch, g->m, g->n, g->k);
    return FPD_OK;
}

static void stateful_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    const struct stateful *s = state;
    char count[32];
    snprintf(count, sizeof count, "%lu", s->gemms);
    emit(ctx, "gemms_in_this_process", count);
    emit(ctx, "last_shape", s->gemms ? s->last_shape : "none");
}

static const struct fpd_backend stateful = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "stateful",
    .summary = "test plugin: its provenance is what this process ran (GEMM count, last shape)",
    .device = FPD_DEVICE_CPU,
    .kind = FPD_KIND_OWN,
    .features = FPD_FEAT_FUSED_BIAS,
    .open = stateful_open,
    .supports = stateful_supports,
    .gemm = stateful_gemm,
    .provenance = stateful_provenance,
};

static const struct fpd_backend *const backends[] = {&stateful};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    if (abi != FPDIV_BACKEND_ABI) {
        snprintf(why, why_size, "built for backend ABI %d, fpdiv speaks %d", FPDIV_BACKEND_ABI, abi);
        return NULL;
    }
    *count = sizeof backends / sizeof backends[0];
    return backends;
}
