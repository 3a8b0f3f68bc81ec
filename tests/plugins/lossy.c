/*
 * lossy.c — two kernels that lose precision while declaring none: the true positives the
 * probabilistic tier (improbable) must still see once it checks itself against real orders
 * (issue 51). Both compute f32 or f64 in one type throughout, sequentially over k with one FMA a
 * term, from the bias, and declare round-to-nearest (the default):
 *   truncating  rounds every FMA toward zero: each error the same sign, never mean zero;
 *   lossy       rounds to nearest, then multiplies each output element by 1 + 2^-10: every
 *               element off by a part in a thousand (where it is large enough to show it).
 *   narrow1, narrow2, narrow3
 *               round every partial sum to nearest, keeping 1, 2 or 3 significand bits fewer than
 *               its type (as FP8 tensor cores accumulate in fewer bits than the f32 they
 *               declare): every element 2, 4 or 8 times farther from the exact sum than the
 *               sequential order, and none far enough for one element to tell (issue 54's
 *               aggregate test).
 * Built and loaded as any plugin: `fpdiv --plugin build/plugins/lossy.so ...`.
 */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

static const struct fpd_backend truncating, lossy_backend, narrow[3];

/* each element off by a part in 1024 */
#define OFF(acc) ((acc) * (__typeof__(acc))(1 + 0x1p-10))
#define AS_IT_IS(acc) (acc)

/* The significand bits a narrow kernel drops: its partial sums rounded to nearest (even) without
 * them. Set for the call under way (fpdiv calls a backend from one thread at a time but for the
 * concurrent relation, which all its callers make alike). */
static _Thread_local unsigned dropped;

#define NARROWED(T, U, EXPONENT)                                                                       static T narrowed_##T(T x)                                                                         {                                                                                                      U bits;                                                                                            memcpy(&bits, &x, sizeof bits);                                                                    if ((bits & (EXPONENT)) != (EXPONENT)) { /* finite */                                                  U half = (U)1 << (dropped - 1);                                                                    bits = (bits + half - 1 + ((bits >> dropped) & 1)) & ~(((U)1 << dropped) - 1);                 }                                                                                                  memcpy(&x, &bits, sizeof x);                                                                       return x;                                                                                      }
NARROWED(float, uint32_t, 0x7f800000u)
NARROWED(double, uint64_t, 0x7ff0000000000000u)
static float narrow_fmaf(float a, float b, float c) { return narrowed_float(fmaf(a, b, c)); }
static double narrow_fma(double a, double b, double c) { return narrowed_double(fma(a, b, c)); }

static int lossy_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)why, (void)why_size;
    if (state == &lossy_backend) {
        ONE_TYPE_GEMM(g, OFF);
        return FPD_OK;
    }
    for (unsigned bits = 1; bits <= 3; bits++)
        if (state == &narrow[bits - 1]) {
            dropped = bits;
            if (g->dt.in == FPD_F32) {
                FORWARD_GEMM(float, narrow_fmaf, AS_IT_IS)
            } else {
                FORWARD_GEMM(double, narrow_fma, AS_IT_IS)
            }
            return FPD_OK;
        }
    fesetround(FE_TOWARDZERO);
    ONE_TYPE_GEMM(g, AS_IT_IS);
    fesetround(FE_TONEAREST); /* as fpdiv gave it: a backend must leave the environment as it found it */
    return FPD_OK;
}

static void lossy_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    const struct fpd_backend *self = state;
    emit(ctx, "implementation", self->summary);
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

static const struct fpd_backend narrow[3] = {
    LOSSY_BACKEND("narrow1", "test plugin: sequential FMA, partial sums 1 bit short of their type"),
    LOSSY_BACKEND("narrow2", "test plugin: sequential FMA, partial sums 2 bits short of their type"),
    LOSSY_BACKEND("narrow3", "test plugin: sequential FMA, partial sums 3 bits short of their type"),
};

static const struct fpd_backend *const backends[] = {&truncating, &lossy_backend, &narrow[0], &narrow[1], &narrow[2]};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    if (abi != FPDIV_BACKEND_ABI) {
        snprintf(why, why_size, "built for backend ABI %d, fpdiv speaks %d", FPDIV_BACKEND_ABI, abi);
        return NULL;
    }
    *count = sizeof backends / sizeof backends[0];
    return backends;
}
