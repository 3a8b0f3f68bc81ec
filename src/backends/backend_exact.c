/*
 * backend_exact.c — the correctly rounded GEMM as a backend: every output element is the exact
 * sum of the exact products (and of the bias, when given), rounded once to the output type.
 * Being independent of any order, it must give `same` on every relation that compares one
 * backend's paths — a strong self-test of fpdiv — and it is the reproducible kernel that
 * batch-invariance work asks for. It declares no fused-bias form: rounding mm and then adding the
 * bias rounds twice by definition, so `addmm` has nothing order-independent to compare on it.
 */
#include "backends/backend_exact.h"

#include <stdio.h>
#include <stdlib.h>

#include "backends/backend.h"
#include "common/dtype.h"
#include "common/scratch.h"
#include "engine/exact.h"

struct exact_state {
    struct fpd_superacc acc;
    void *row, *cols, *bias; /* op(A) row, op(B) as columns (n x k), bias: all in binary64 */
    size_t row_cap, cols_cap, bias_cap;
};

static int exact_open(const struct fpd_backend *self, void **state, char *why, size_t why_size)
{
    (void)self;
    struct exact_state *s = calloc(1, sizeof *s); /* a zeroed superaccumulator is ready to use */
    if (!s) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    *state = s;
    return FPD_OK;
}

static bool exact_supports(void *state, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    (void)state;
    return fpd_dtypes_valid(dt, why, why_size); /* the accumulator type does not matter: nothing rounds */
}

static int exact_gemm(void *state, const struct fpd_gemm_args *g, char *why, size_t why_size)
{
    struct exact_state *s = state;
    size_t in_size = fpd_dtype_info(g->dt.in)->size;
    if (fpd_grow(&s->row, &s->row_cap, g->k * sizeof(double)) != FPD_OK ||
        fpd_grow(&s->cols, &s->cols_cap, g->n * g->k * sizeof(double)) != FPD_OK ||
        fpd_grow(&s->bias, &s->bias_cap, g->n * sizeof(double)) != FPD_OK) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    double *row = s->row, *cols = s->cols, *bias = s->bias;
    for (size_t j = 0; g->bias && j < g->n; j++)
        bias[j] = fpd_load(g->dt.out, g->bias, j);
    for (size_t b = 0; b < g->batch; b++) {
        const char *a = (const char *)g->a + b * g->stride_a * in_size;
        const char *bm = (const char *)g->b + b * g->stride_b * in_size;
        char *c = (char *)g->c + b * g->stride_c * fpd_dtype_info(g->dt.out)->size;
        for (size_t j = 0; j < g->n; j++) /* op(B)[p][j] into column j, contiguous over p */
            for (size_t p = 0; p < g->k; p++)
                cols[j * g->k + p] = fpd_load(g->dt.in, bm, g->trans_b ? j * g->ldb + p : p * g->ldb + j);
        for (size_t i = 0; i < g->m; i++) {
            for (size_t p = 0; p < g->k; p++)
                row[p] = fpd_load(g->dt.in, a, g->trans_a ? p * g->lda + i : i * g->lda + p);
            for (size_t j = 0; j < g->n; j++)
                fpd_store(g->dt.out, c, i * g->ldc + j,
                          fpd_exact_dot(&s->acc, row, &cols[j * g->k], g->k, g->bias != NULL,
                                        g->bias ? bias[j] : 0, g->dt.in, g->dt.out));
        }
    }
    return FPD_OK;
}

static void exact_provenance(void *state, fpd_provenance_fn emit, void *ctx)
{
    (void)state;
    emit(ctx, "implementation", "fpdiv exact reference (superaccumulator, one rounding)");
}

static void exact_close(void *state)
{
    struct exact_state *s = state;
    fpd_release(&s->row, &s->row_cap);
    fpd_release(&s->cols, &s->cols_cap);
    fpd_release(&s->bias, &s->bias_cap);
    free(s);
}

const struct fpd_backend fpd_backend_exact = {
    .abi = FPDIV_BACKEND_ABI,
    .name = "exact",
    .summary = "own: the correctly rounded GEMM (exact sum, one rounding); no order, so no fused-bias form",
    .device = FPD_DEVICE_CPU,
    .kind = FPD_KIND_OWN,
    .features = 0,
    .open = exact_open,
    .supports = exact_supports,
    .gemm = exact_gemm,
    .provenance = exact_provenance,
    .close = exact_close,
};
