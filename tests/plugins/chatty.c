/*
 * chatty.c — a test plugin that prints to standard output on every GEMM, as OpenBLAS's xerbla does
 * ("On entry to SGEMMT parameter number 10 had an illegal value"): what a library prints must never
 * land among fpdiv's results (a --json line it broke would be lost to its reader; tests/cli/run.sh).
 * Arithmetic: sequential over k with FMA from the bias, f32 and f64, one type throughout.
 */
#include <math.h>
#include <stdio.h>

#include "fpdiv_backend.h"
#include "one_type_gemm.h"

static int chatty_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self, (void)why, (void)why_size;
    *state = NULL;
    return FPD_OK;
}

static bool chatty_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    return one_type_supports("the chatty kernel", dt, why, why_size);
}

#define AS_IT_IS(acc) (acc)

static int chatty_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state, (void)why, (void)why_size;
    printf(" ** On entry to CHATTY parameter number 10 had an illegal value\n");
    fflush(stdout);
    ONE_TYPE_GEMM(g, AS_IT_IS);
    return FPD_OK;
}

static const struct fpd_backend chatty = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "chatty",
    .summary = "test plugin: prints a line to stdout on every GEMM, as a library's xerbla does",
    .device = FPD_DEVICE_CPU,
    .kind = FPD_KIND_OWN,
    .features = FPD_FEAT_FUSED_BIAS,
    .open = chatty_open,
    .supports = chatty_supports,
    .gemm = chatty_gemm,
};

static const struct fpd_backend *const backends[] = {&chatty};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    if (abi != FPDIV_BACKEND_ABI) {
        snprintf(why, why_size, "built for backend ABI %d, fpdiv speaks %d", FPDIV_BACKEND_ABI, abi);
        return NULL;
    }
    *count = sizeof backends / sizeof backends[0];
    return backends;
}
