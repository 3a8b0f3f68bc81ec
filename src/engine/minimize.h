/*
 * minimize.h — shrink a divergent case to the smallest, simplest one with the same signature.
 *
 * "Same signature": the same relation, backends and dtypes, and the same verdict. Deterministic
 * for a given input, except where the time cap stops it early.
 * 1. Dimensions: each of batch, m, n, k is probed smallest values first, then doubling, then
 *    bisecting between the last value that lost the divergence and the first that kept it; the
 *    slice of slice-* relations moves to the start and shrinks first. Repeated until nothing moves.
 * 2. Layout: transposes, padding and an optional bias are dropped where the divergence survives.
 * 3. Values (the inputs become explicit): blocks of k are zeroed (delta debugging, halving block
 *    sizes), then each surviving value is replaced by the simplest that keeps the divergence:
 *    ±1, a small integer, a power of two, or the value cut to 1, 2, 4 or 8 significant bits;
 *    then the dimensions are probed once more, since simpler values often let them shrink further.
 * Shrinking keeps the leading block of every dimension: a divergence at column 36 keeps n >= 37.
 */
#ifndef FPD_MINIMIZE_H
#define FPD_MINIMIZE_H

#include "engine/check.h"

struct fpd_minimize_result {
    struct fpd_case before;
    size_t checks;         /* checks run */
    bool timed_out;        /* the time cap stopped it: the case is the best found so far */
    struct fpd_check_result final; /* the minimized case's result, its outputs hashed (the candidates' go
                                      unhashed: only their verdicts count) */
};

/* Shrinks chk in place toward the verdict `target`. When values are simplified the inputs become
 * explicit: chk->c.data then points to *data, which the caller frees with fpd_case_data_free. The
 * last check ck runs is the minimized case's (out->final), so what ck recorded of it (its
 * environment_text) is the final case's. */
int fpd_minimize(struct fpd_checker *ck, struct fpd_check *chk, enum fpd_verdict target, double seconds,
                 struct fpd_case_data *data, struct fpd_minimize_result *out);

#endif
