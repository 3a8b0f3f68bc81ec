/*
 * lossy.c — two kernels that lose precision while declaring none: the true positives the
 * probabilistic tier (improbable) must still see once it checks itself against real orders
 * (issue 51). Both compute f32 or f64 in one type throughout, sequentially over k with one FMA a
 * term, from the bias, and declare round-to-nearest (the default):
 *   truncating  rounds every FMA toward zero: each error the same sign, never mean zero;
 *   lossy       rounds to nearest, then multiplies each output element by 1 + 2^-10: every
 *               element off by a part in a thousand (where it is large enough to show it).
 * Built and loaded as any plugin: `fpdiv --plugin build/plugins/lossy.so ...`.
 */
#include <fenv.h>
#include <math.h>
#include <stdio.h>

#include "fpdiv_backend.h"
#include "one_type_gemm.h"

static int lossy_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)why, (void)why_size;
    *state = (void *)self; /* which of the two it is */
    return FPD_OK;
}

static bool lossy_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    return one_type_supports("a lossy kernel", dt, why, why_size);
}

static const struct fpd_backend truncating, lossy_backend;

/* each element off by a part in 1024 */
#define OFF(acc) ((acc) * (__typeof__(acc))(1 + 0x1p-10))
#define AS_IT_IS(acc) (acc)

static int lossy_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)why, (void)why_size;
    if (state == &lossy_backend) {
        ONE_TYPE_GEMM(g, OFF);
        return FPD_OK;
    }
    fesetround(FE_TOWARDZERO);
    ONE_TYPE_GEMM(g, AS_IT_IS);
    fesetround(FE_TONEAREST); /* as fpdiv gave it: a backend must leave the environment as it found it */
    return FPD_OK;
}

static void lossy_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    emit(ctx, "implementation",
         state == &lossy_backend ? "test plugin: every element off by 2^-10" : "test plugin: every FMA rounded toward zero");
}

#define LOSSY_BACKEND(backend_name, text)                                                          \
    {                                                                                              \
        .abi = FPDIV_BACKEND_ABI, .name = backend_name, .summary = text, .device = FPD_DEVICE_CPU, \
        .kind = FPD_KIND_TEST, .features = FPD_FEAT_FUSED_BIAS, .open = lossy_open,                \
        .supports = lossy_supports, .gemm = lossy_gemm, .provenance = lossy_provenance,            \
    }
static const struct fpd_backend truncating =
    LOSSY_BACKEND("truncating", "test plugin: sequential FMA rounded toward zero, declared round-to-nearest");
static const struct fpd_backend lossy_backend =
    LOSSY_BACKEND("lossy", "test plugin: sequential FMA, then every element off by a part in 1024");

static const struct fpd_backend *const backends[] = {&truncating, &lossy_backend};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    if (abi != FPDIV_BACKEND_ABI) {
        snprintf(why, why_size, "built for backend ABI %d, fpdiv speaks %d", FPDIV_BACKEND_ABI, abi);
        return NULL;
    }
    *count = sizeof backends / sizeof backends[0];
    return backends;
}
