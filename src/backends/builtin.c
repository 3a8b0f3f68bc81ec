/* builtin.c — the backends fpdiv is built with, rows of a table, registered before any other. */
#include "backends/builtin.h"

#include <stdbool.h>

#include "backends/backend.h"
#include "backends/backend_cblas.h"
#include "backends/backend_exact.h"
#include "backends/backend_framework.h"
#include "backends/backend_own.h"
#include "backends/backend_tensor_core.h"

static const struct fpd_backend *const builtin_backends[] = {
    &fpd_backend_seq,
    &fpd_backend_pairwise,
    &fpd_backend_splitk,
    &fpd_backend_blocked,
    &fpd_backend_exact,
    &fpd_backend_tc_v100,
    &fpd_backend_tc_a100,
    &fpd_backend_tc_ada,
    &fpd_backend_tc_h100,
    &fpd_backend_tc_b200,
    &fpd_backend_tc_b200rn,
    &fpd_backend_openblas,
    &fpd_backend_refblas,
    &fpd_backend_blis,
    &fpd_backend_mkl,
    &fpd_backend_numpy,
    &fpd_backend_torch,
    &fpd_backend_torch_compile,
    &fpd_backend_jax,
};

void fpd_registry_init(void)
{
    static bool initialized;
    if (initialized)
        return;
    initialized = true;
    char why[256];
    for (size_t i = 0; i < sizeof builtin_backends / sizeof builtin_backends[0]; i++)
        fpd_registry_add(builtin_backends[i], why, sizeof why); /* built-ins are well formed */
}
