/* given.c — the user's outputs answering a GEMM (given.h). */
#include "backends/given.h"

#include <stdio.h>
#include <string.h>

#include "common/dtype.h"

static struct given {
    enum fpd_dtype t;
    const void *data;
    size_t batch, m, n;
} given[2];

void fpd_given_set(int which, enum fpd_dtype t, const void *data, size_t batch, size_t m, size_t n)
{
    given[which] = (struct given){t, data, batch, m, n};
}

static int given_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    const struct given *g = &given[self == &fpd_backend_given[0] ? 0 : 1];
    if (!g->data) {
        snprintf(why, why_size, "%s: no output was given (fpdiv judge gives them)", self->name);
        return FPD_ERR_UNAVAILABLE;
    }
    *state = (void *)g;
    return FPD_OK;
}

static bool given_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    const struct given *g = state;
    if (dt->out != g->t) {
        snprintf(why, why_size, "the output given is %s, not %s", fpd_dtype_info(g->t)->name,
                 fpd_dtype_info(dt->out)->name);
        return false;
    }
    return true;
}

static int given_gemm(void *state, const struct fpd_gemm_args *a, char *why, size_t why_size)
{
    const struct given *g = state;
    if (a->batch != g->batch || a->m != g->m || a->n != g->n || a->dt.out != g->t || a->route != FPD_ROUTE_GEMM) {
        snprintf(why, why_size, "asked for a %zux%zux%zu product; the output given is %zux%zux%zu", a->batch, a->m,
                 a->n, g->batch, g->m, g->n);
        return FPD_ERR_BACKEND;
    }
    size_t es = fpd_dtype_info(g->t)->size;
    for (size_t b = 0; b < g->batch; b++)
        for (size_t i = 0; i < g->m; i++)
            memcpy((char *)a->c + (b * a->stride_c + i * a->ldc) * es, (const char *)g->data + ((b * g->m + i) * g->n) * es,
                   g->n * es);
    return FPD_OK;
}

/* A given output with a bias holds it fused, or added to the product once rounded, as a framework's
 * `x @ W + b` adds it (BIAS_ADDED): the bound allows that one more rounding, which in a 16-bit output
 * is as large as the whole sum's. */
#define GIVEN(label, text)                                                                                     \
    {                                                                                                          \
        .abi = FPDIV_BACKEND_ABI, .name = label, .summary = text, .device = FPD_DEVICE_CPU,                   \
        .kind = FPD_KIND_VENDOR, .features = FPD_FEAT_FUSED_BIAS | FPD_FEAT_BIAS_ADDED, .open = given_open,    \
        .supports = given_supports, .gemm = given_gemm, /* nothing to close: the outputs are the caller's */   \
    }

const struct fpd_backend fpd_backend_given[2] = {
    GIVEN("given-1", "the first output given to fpdiv judge, as it was computed"),
    GIVEN("given-2", "the second output given to fpdiv judge, as it was computed"),
};
