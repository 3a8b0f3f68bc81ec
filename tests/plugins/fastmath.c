/*
 * fastmath.c — a test plugin that does to the floating-point environment what real libraries do.
 *
 * Loading it switches on flush-to-zero and denormals-are-zero for the whole process, as a shared
 * library linked with gcc's crtfastmath.o (-ffast-math) does. Its backend, fenvleak, is a plain
 * sequential f32 GEMM that on k = 7 sets the rounding mode toward +Inf and on k = 11 switches
 * flush-to-zero on, and leaves either so when it returns.
 */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#if defined(__x86_64__)
#include <pmmintrin.h> /* _MM_DENORMALS_ZERO_ON */
#endif

#include "fpdiv_backend.h"

/* Elsewhere than x86-64 (where fpdiv checks the rounding mode only), a rounding mode instead. */
static void flush_to_zero_on(void)
{
#if defined(__x86_64__)
    _mm_setcsr(_mm_getcsr() | _MM_FLUSH_ZERO_ON);
#else
    fesetround(FE_TOWARDZERO);
#endif
}

__attribute__((constructor)) static void fast_math_on_load(void)
{
#if defined(__x86_64__)
    _mm_setcsr(_mm_getcsr() | _MM_DENORMALS_ZERO_ON);
#endif
    flush_to_zero_on();
}

static int fenvleak_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self, (void)why, (void)why_size;
    *state = NULL;
    return FPD_OK;
}

static bool fenvleak_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    if (dt->in == FPD_F32 && dt->out == FPD_F32 && dt->acc == FPD_F32)
        return true;
    snprintf(why, why_size, "f32 only");
    return false;
}

static int fenvleak_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)state, (void)why, (void)why_size;
    if (g->k == 7)
        fesetround(FE_UPWARD);
    if (g->k == 11)
        flush_to_zero_on();
    for (size_t b = 0; b < g->batch; b++)
        for (size_t i = 0; i < g->m; i++)
            for (size_t j = 0; j < g->n; j++) {
                const float *a = (const float *)g->a + b * g->stride_a, *bm = (const float *)g->b + b * g->stride_b;
                float acc = g->bias ? ((const float *)g->bias)[j] : 0.0f;
                for (size_t p = 0; p < g->k; p++) {
                    float x = g->trans_a ? a[p * g->lda + i] : a[i * g->lda + p];
                    float y = g->trans_b ? bm[j * g->ldb + p] : bm[p * g->ldb + j];
                    acc = fmaf(x, y, acc);
                }
                ((float *)g->c + b * g->stride_c)[i * g->ldc + j] = acc;
            }
    return FPD_OK;
}

static const struct fpd_backend fenvleak = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "fenvleak",
    .summary = "test plugin: sequential f32 GEMM that leaves a rounding mode (k = 7) or flush-to-zero (k = 11) set",
    .device = FPD_DEVICE_CPU,
    .kind = FPD_KIND_OWN,
    .features = FPD_FEAT_FUSED_BIAS,
    .open = fenvleak_open,
    .supports = fenvleak_supports,
    .gemm = fenvleak_gemm,
};

static const struct fpd_backend *const backends[] = {&fenvleak};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    if (abi != FPDIV_BACKEND_ABI) {
        snprintf(why, why_size, "built for backend ABI %d, fpdiv speaks %d", FPDIV_BACKEND_ABI, abi);
        return NULL;
    }
    *count = sizeof backends / sizeof backends[0];
    return backends;
}
