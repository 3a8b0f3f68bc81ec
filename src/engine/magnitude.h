/*
 * magnitude.h — the bound's magnitudes g = |op(A)||op(B)| (+ |bias|), never below their exact
 * value once fpd_bound_element's allowance for binary64 rounding is made: the rounding bound
 * scales them, so a g rounded down could call a `reorder` a `bound`.
 */
#ifndef FPD_MAGNITUDE_H
#define FPD_MAGNITUDE_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/backend_util.h"
#include "common/dtype.h"

/* gamma_terms(u) = terms u / (1 - terms u): the relative error of a sum of `terms` terms, each
 * operation rounded with unit roundoff u (Higham's gamma). The bound and these sums' own
 * inflation both use it. */
double fpd_gamma(size_t terms, double u);

/* op(X) of a stored matrix: element (i, j) is p[transposed ? j * ld + i : i * ld + j]. */
struct fpd_matrix_view {
    const void *p;
    enum fpd_dtype t;
    bool transposed;
    size_t ld;
};

/* Grow-only buffers, kept across calls: operands converted to the kernel's type, binary32 sums. */
struct fpd_magnitude_work {
    struct fpd_staging a, b, sum;
};

/*
 * g[i * n + j] = sum_p |A[i][p]| |B[p][j]| (+ abs_bias[j] when abs_bias is not NULL), for A m x k
 * and B k x n, rounded so that it is below the exact sum by at most the relative (k + 2) 2^-53 of
 * its own binary64 roundings, which fpd_bound_element allows for. Narrow inputs are summed in
 * binary32, at twice binary64's speed, and inflated by binary32's worst case (about k 2^-24
 * relative, plus k 2^-149 for underflow); where any binary32 sum is not finite (overflow, or an
 * Inf or NaN operand), the block is summed again in binary64.
 * *gemm_ticks grows by the fpd_ticks() spent in the products. Returns FPD_OK or FPD_ERR_NOMEM.
 */
int fpd_magnitudes(struct fpd_magnitude_work *w, const struct fpd_matrix_view *a, const struct fpd_matrix_view *b,
                   size_t m, size_t n, size_t k, const double *abs_bias, double *g, uint64_t *gemm_ticks);

/* The same g, left as its binary32 sums for a reader that raises them element by element as it
 * reads them (a pass over the block and g's memory saved): g[i * n + j] = fpd_raise_sum(sum[i * n
 * + j], underflow, inflate) (+ abs_bias[j]), fpd_magnitudes' very bits, where every sum of the
 * block is finite. Where one is not, the reader asks fpd_magnitudes_of_sums for g. */
struct fpd_magnitude_sums {
    const float *sum; /* m x n; NULL where the inputs are summed in binary64 (fpd_magnitudes gives g) */
    double underflow, inflate;
    const double *abs_bias; /* n, or NULL */
};

static inline double fpd_raise_sum(float sum, double underflow, double inflate)
{
    return ((double)sum + underflow) * inflate;
}

/* The sums of fpd_magnitudes' binary32 path, in w, where it takes that path (out->sum NULL where it
 * does not: binary64 inputs, k = 0 or k > 2^16). FPD_OK or FPD_ERR_NOMEM. */
int fpd_magnitude_sums(struct fpd_magnitude_work *w, const struct fpd_matrix_view *a, const struct fpd_matrix_view *b,
                       size_t m, size_t n, size_t k, const double *abs_bias, struct fpd_magnitude_sums *out,
                       uint64_t *gemm_ticks);
/* fpd_magnitudes' g from the sums fpd_magnitude_sums left in w, for the same arguments: raised, or
 * where one is not finite, summed again in binary64. FPD_OK or FPD_ERR_NOMEM. */
int fpd_magnitudes_of_sums(struct fpd_magnitude_work *w, const struct fpd_matrix_view *a,
                           const struct fpd_matrix_view *b, size_t m, size_t n, size_t k, const double *abs_bias,
                           double *g, uint64_t *gemm_ticks);

void fpd_magnitude_work_free(struct fpd_magnitude_work *w);

#endif
