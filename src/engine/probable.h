/*
 * probable.h — how far one path's sum can be from the exact sum "except with negligible
 * probability", after Higham and Mary (SIAM J. Sci. Comput. 2019), for one output element's terms
 * x_1 .. x_T: the threshold of the `improbable` verdict (check.c), between `reorder` and `bound`.
 *
 * Model: (1) the rounding errors of the additions are independent and mean zero, |delta| <= u;
 * (2) the order does not depend on the values (BLAS orders depend on shape, kernel, threads);
 * (3) the terms are exchangeable with respect to that order. Then a path's first-order error is
 * sum over additions of delta_n v_n (v_n: the subtree's sum), and for a fixed order
 * P(|error| > lambda u sqrt(sum v_n^2)) <= 2 exp(-lambda^2 / 2) (Azuma-Hoeffding). Under (3) the
 * expected sum of v_n^2 over the worst tree shape (the chain) is
 *     V = sigma^2 sum_{s=2..T} s (T - s) / (T - 1) + mu^2 sum_{s=2..T} s^2
 * with mu and sigma^2 the terms' mean and variance (plus sum x^2: each product's own rounding).
 * Same-sign data make the mu^2 term dominate, and the threshold tends to Higham and Mary's
 * order-free lambda sqrt(T) u g. The orders BLAS kernels use most, sequential in index order and
 * in 2 to 64 interleaved lanes, have their sum of v_n^2 measured on the data themselves: tau takes
 * the largest of those and V, so for them the probability needs (1) alone.
 *
 * Where the data break (3) (sorted, periodic or blocked values), those measured energies exceed
 * what (3) predicts: past a cut-off, the element falls back to lambda sqrt(T) u g, which needs
 * only (1) for every order. Where terms fall below the partial sums' rounding (stagnation), (1)
 * fails for them: their sum is added in full as a deterministic allowance.
 *
 * (1) itself fails on structured data: a sequential sum of T copies of x rounds the same way at
 * every step of a binade, and its error grows like u x T^2 / 2, past any lambda u sqrt(V). So a
 * threshold the model flags is checked against what legitimate orders actually do on the element's
 * own terms: fpd_probable_orders computes them (sequential both ways, pairwise, 2 to 64 interleaved
 * lanes, k-blocks of the sizes BLAS libraries use, k split into 2 to 16 parts), each rounded in the
 * accumulator's type, against the exact sum, and tau is at least FPD_PROBABLE_ORDER_MARGIN times
 * the largest error: systematic rounding raises it by itself. What remains assumed: no library's
 * order is more than that margin worse, on the element's data, than the worst of those orders.
 */
#ifndef FPD_PROBABLE_H
#define FPD_PROBABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "fpdiv_backend.h"

struct fpd_probable_element {
    double tau;        /* one path's error bound, with probability >= 1 - 2 exp(-lambda^2 / 2) */
    double structure;  /* the largest ratio of the data's partial-sum energy to the model's */
    bool structured;   /* structure over the cut-off: tau is the order-free bound */
    double stagnation; /* the allowance for terms below the partial sums' rounding, included in tau */
    double scale;      /* tau = lambda u scale + stagnation: sqrt of the energy, or sqrt(T) g where structured */
};

/* V above, of T terms with this sum and sum of squares (each summed in index order in binary64, as
 * fpd_probable_element does): the least of the energies it takes, so u sqrt(V) is at most its
 * scale (sqrt(T) g bounds every tree's energy too). O(1). */
double fpd_probable_model_energy(double sum, double squares, size_t T);

/* The sum of x[0..T) and of their squares, as fpd_probable_model_energy takes them: statistics of
 * the data, which want no order, so added in lanes (one dependent addition after another took most
 * of the first aggregate pass). */
void fpd_probable_sums(const double *x, size_t T, double *sum, double *squares);
/* The same of the terms a[p] b[p] (p < k) and *bias where bias is not NULL, bit for bit what
 * fpd_probable_sums gives of them, without writing them out first. */
void fpd_probable_product_sums(const double *a, const double *b, size_t k, const double *bias, double *sum,
                               double *squares);

/* Terms x[0..T) (T >= 1, each exact: a product of two inputs, or the bias), their magnitude sum
 * g, the accumulator's unit roundoff u (round to nearest), lambda. O(T). */
void fpd_probable_element(const double *x, size_t T, double g, double u, double lambda,
                          struct fpd_probable_element *out);

/* The largest error, against the exact sum of x[0..T), of the orders above, each sum rounded in
 * type `acc` at every addition (as an FMA chain of exact products is). O(T) per order. */
double fpd_probable_orders(const double *x, size_t T, enum fpd_dtype acc);
/* tau is at least this many times fpd_probable_orders' error. */
#define FPD_PROBABLE_ORDER_MARGIN 2.0

/* The cut-off on `structure` (see above): independent random terms (normal, uniform and wide
 * products) stay below 5.5 at T = 2 to 16384 (2,000 draws each); sorted ones exceed 9 from
 * T = 1024 on. Below it, the energy of those orders is in tau anyway. */
#define FPD_PROBABLE_STRUCTURE_MAX 8.0

#endif
