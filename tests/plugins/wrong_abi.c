/* wrong_abi.c — a plugin built against another backend ABI: fpdiv must refuse it, clearly. */
#include <stddef.h>

#include "fpdiv_backend.h"

static int never_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state, (void)g, (void)why, (void)why_size;
    return FPD_ERR_BACKEND;
}

static const struct fpd_backend future = {.abi = FPDIV_BACKEND_ABI + 1, .name = "future", .gemm = never_gemm};
static const struct fpd_backend *const backends[] = {&future};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    (void)abi, (void)why, (void)why_size;
    *count = 1;
    return backends;
}
