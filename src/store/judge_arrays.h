/*
 * judge_arrays.h — the arrays a user brings to `fpdiv judge`, as a case: their types read from
 * the files (and --dtype where the bits alone do not say), their shapes checked against each
 * other, the inputs put in the case's logical form (A batch x m x k, B batch x k x n, packed) and
 * the two outputs in the product's.
 *
 * A is m x k (k x m with trans_a, as stored), B is k x n (n x k with trans_b: a Linear layer's
 * weight), each with any batch dimensions before, which broadcast as a matmul's do (aligned from the
 * last, equal or 1 or missing on one side: attention's batch x heads x m x k included). A vector
 * is a matrix of one row (A: k, a dot's or a vector times a matrix) or one column (B: k, a matrix
 * times a vector). An output has the product's shape (its dimensions of 1 aside) or, with a row,
 * that row of it (n elements): (A @ B)[i] against A[i] @ B.
 *
 * A sum over some axes of one array X is the product of X, its kept axes as rows and its summed
 * axes as k, and a column of ones: the same bound and exact reference as any dot (x.sum() against
 * x.sum(0).sum(0)). An output holds a sum per kept element; a mean's, that sum divided by the
 * count of its terms (the check's `mean`).
 */
#ifndef FPD_JUDGE_ARRAYS_H
#define FPD_JUDGE_ARRAYS_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/case.h"
#include "store/npy.h"

/* What the outputs are of: a product, or a sum over some axes of one array (a dot with ones). */
enum fpd_judge_op { FPD_JUDGE_MATMUL, FPD_JUDGE_DOT, FPD_JUDGE_GEMV, FPD_JUDGE_SUM, FPD_JUDGE_MEAN };

/* A sum or a mean: one array reduced over some of its axes. */
static inline bool fpd_judge_reduces(enum fpd_judge_op op)
{
    return op == FPD_JUDGE_SUM || op == FPD_JUDGE_MEAN;
}

struct fpd_judge_files {
    enum fpd_judge_op op;
    const char *a, *b, *bias, *outputs[2]; /* b and bias: not for a sum */
    const char *axes; /* a sum's axes, "0,2" (negative from the last), or NULL: all of them */
    bool trans_a, trans_b;
    const char *dtype; /* IN[:OUT[:ACC]], or NULL: from the files (accumulating as frameworks do) */
    long row;          /* the row of the product the outputs are (over batch x m), or -1: all of it */
};

struct fpd_judge_arrays {
    struct fpd_case c;         /* its data: `data` */
    struct fpd_case_data data; /* A, B and the bias, logical and packed */
    struct fpd_npy outputs[2]; /* as read: batch x m x n (or the row's n) elements of c.dt.out */
    size_t batch, m;           /* the product's, before a row is taken */
    enum fpd_dtype widened[2]; /* an output's own type where it was narrower than c.dt.out (else FPD_DTYPE_COUNT) */
};

/* Reads and checks the files: FPD_OK, FPD_ERR_INPUT with why naming the file and what does not fit,
 * or FPD_ERR_NOMEM. */
int fpd_judge_arrays_load(const struct fpd_judge_files *files, struct fpd_judge_arrays *out, char *why,
                          size_t why_size);
void fpd_judge_arrays_free(struct fpd_judge_arrays *j);

#endif
