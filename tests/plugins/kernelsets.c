/*
 * kernelsets.c — a test plugin whose backend picks its kernel set when it opens, as OpenBLAS does
 * when it loads: from FPDIV_TEST_KERNEL_SET, else "forward". It shows the kernel-set interface of
 * fpdiv_backend.h (ABI 2) working end to end, hosts included, with sets whose outputs are known:
 *   forward  sequential over k from the first term, FMA, from the bias
 *   reverse  the same from the last term: another order (any order gives `same` on int data)
 *   nudged   forward, then C[0][0] of batch entry 0 one ulp up unless it is an integer: a planted
 *            divergence that fpdiv's probe of a kernel set (exact integer answers) does not see
 *   crashes  dies of SIGILL in its first GEMM, as a set the CPU lacks the instructions for does
 *   liar     reports itself as "forward": a set the library cannot pin
 *   scribbles forward, then writes the element after the end of C (fpdiv's guard must see it)
 *   complains says why on stderr and aborts, as a library that gives up does
 * f32 and f64, one type throughout.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpdiv_backend.h"
#include "one_type_gemm.h"

#define ENV "FPDIV_TEST_KERNEL_SET"

static const char *const sets[] = {"forward", "reverse", "nudged", "crashes", "liar", "scribbles", "complains", NULL};

static int ksets_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self, (void)why, (void)why_size;
    const char *chosen = getenv(ENV);
    *state = (void *)sets[0]; /* unset, or a name it does not know: the default, as OpenBLAS falls back */
    for (size_t i = 0; chosen && sets[i]; i++)
        if (strcmp(chosen, sets[i]) == 0)
            *state = (void *)sets[i];
    return FPD_OK;
}

static bool ksets_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    return one_type_supports("ksets", dt, why, why_size);
}

#define KSETS_GEMM(T, FMA, BITS)                                                                   \
    for (size_t b = 0; b < g->batch; b++) {                                                        \
        const T *a = (const T *)g->a + b * g->stride_a, *bm = (const T *)g->b + b * g->stride_b;   \
        const T *bias = g->bias;                                                                   \
        T *c = (T *)g->c + b * g->stride_c;                                                        \
        for (size_t i = 0; i < g->m; i++)                                                          \
            for (size_t j = 0; j < g->n; j++) {                                                    \
                T acc = bias ? bias[j] : (T)0;                                                     \
                for (size_t q = 0; q < g->k; q++) {                                                \
                    size_t p = backwards ? g->k - 1 - q : q;                                       \
                    acc = FMA(AT(a, g->trans_a, g->lda, i, p), AT(bm, g->trans_b, g->ldb, p, j), acc); \
                }                                                                                  \
                c[i * g->ldc + j] = acc;                                                           \
            }                                                                                      \
        if (nudge && b == 0 && c[0] != rint(c[0])) {                                               \
            BITS u;                                                                                \
            memcpy(&u, c, sizeof u);                                                               \
            u++;                                                                                   \
            memcpy(c, &u, sizeof u);                                                               \
        }                                                                                          \
    }

static int ksets_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    (void)why, (void)why_size;
    const char *set = state;
    if (strcmp(set, "crashes") == 0)
        raise(SIGILL);
    if (strcmp(set, "complains") == 0) {
        fprintf(stderr, "ksets: kernel workspace exhausted\n");
        abort();
    }
    bool backwards = strcmp(set, "reverse") == 0, nudge = strcmp(set, "nudged") == 0;
    size_t end = (g->batch - 1) * g->stride_c + (g->m - 1) * g->ldc + g->n; /* C's last element, plus one */
    if (g->dt.in == FPD_F32) {
        KSETS_GEMM(float, fmaf, uint32_t)
        if (strcmp(set, "scribbles") == 0)
            ((float *)g->c)[end] = 1;
    } else {
        KSETS_GEMM(double, fma, uint64_t)
        if (strcmp(set, "scribbles") == 0)
            ((double *)g->c)[end] = 1;
    }
    return FPD_OK;
}

static void ksets_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    const char *set = state;
    emit(ctx, "library", "ksets");
    emit(ctx, "version", "1.0");
    emit(ctx, "kernel_set", strcmp(set, "liar") == 0 ? "forward" : set);
}

static const struct fpd_backend ksets = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "ksets",
    .summary = "test plugin: a library with kernel sets (forward, reverse, nudged, crashes, liar)",
    .device = FPD_DEVICE_CPU,
    .kind = FPD_KIND_VENDOR,
    .features = FPD_FEAT_FUSED_BIAS,
    .open = ksets_open,
    .supports = ksets_supports,
    .gemm = ksets_gemm,
    .provenance = ksets_provenance,
    .kernel_set_env = ENV,
    .kernel_sets = sets,
};

static const struct fpd_backend *const backends[] = {&ksets};

const struct fpd_backend *const *fpdiv_plugin_init(int abi, size_t *count, char *why, size_t why_size)
{
    if (abi != FPDIV_BACKEND_ABI) {
        snprintf(why, why_size, "built for backend ABI %d, fpdiv speaks %d", FPDIV_BACKEND_ABI, abi);
        return NULL;
    }
    *count = sizeof backends / sizeof backends[0];
    return backends;
}
