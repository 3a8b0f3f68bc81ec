/*
 * scale.h — the `scale` relation's strict oracle: A times 2^e, then the product times 2^-e, gives
 * the product bit for bit.
 *
 * A power of two changes no significand: every product, every partial sum and every rounding of
 * the scaled GEMM is the plain GEMM's times 2^e, in the same order, as long as nothing leaves the
 * range of normal numbers. So the two paths must agree exactly, and any difference beyond what
 * underflow can make is arithmetic that depends on the values' magnitudes (a kernel chosen by them,
 * subnormals flushed, an input rounded through a narrower type), which no reordering explains.
 */
#ifndef FPD_SCALE_H
#define FPD_SCALE_H

#include "engine/case.h"
#include "engine/relation.h"
#include "gen/gen.h"

/* The exponent path B scales A (and the bias) by: `magnitude` or -`magnitude`, whichever keeps
 * every input of A exact and finite and the product finite (up first); 0 when neither does. */
int fpd_scale_choose(const struct fpd_case *c, const struct fpd_tensors *t, int magnitude);
/* alpha-beta's scalars, alpha = 2^*alpha_exp and beta = 2^*beta_exp, as the data allow. alpha up
 * where the product and bias times it stay finite in the output and the accumulator (A times it
 * too, in the accumulator: a library may scale A as it packs it), else down where A and the bias
 * times it stay normal in the accumulator (what the scaled-down sums lose to underflow, the bound
 * allows: check.c's widen_for_scale), else 1; never where the plain sums may overflow. The bias,
 * handed over times 2^(alpha - beta) in the output type, must stay finite and exact: else beta is
 * 2^(2 alpha - beta), the bias times the inverse, else beta follows alpha (the bias as it is). */
void fpd_scalars_choose(const struct fpd_case *c, const struct fpd_tensors *t, int *alpha_exp, int *beta_exp);
/* Path B's scales as the data allow (fpd_scale_choose, fpd_scalars_choose), in place: what a check
 * runs, and what an exported script must run to be the same path. False where path B asked for a
 * scale and the data leave it none: it would then be path A, and the check would test nothing. */
bool fpd_scale_settle(const struct fpd_case *c, const struct fpd_tensors *t, struct fpd_path *b);
/* The relation's paths as a check of the case runs them, its scales settled from the data
 * (generated or read only where path B asks for a scale): for what shows or exports a saved case
 * without running it. FPD_OK or FPD_ERR_NOMEM. */
int fpd_scale_paths_as_run(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                           struct fpd_paths *out);
/* Multiplies the rows x cols block of each of `batch` matrices (`stride` apart, rows of ld) by 2^e,
 * in type t. */
void fpd_scale_block(enum fpd_dtype t, void *p, size_t batch, size_t stride, size_t rows, size_t cols, size_t ld, int e,
                     bool negate);
/* The most two exact paths can differ by at an element, where one is scaled by 2^e, from underflow
 * alone: each of the k + 1 roundings in the accumulator and the last in the output type may fall
 * among the subnormals of one path and not of the other. */
double fpd_scale_tolerance(const struct fpd_dtypes *dt, size_t k, int e);

#endif
