/*
 * compare.h — comparing two outputs: fingerprints, difference metrics, the rounding-error bound,
 * and the verdict.
 *
 * The bound (DESIGN.md): for output element (i, j) with T terms (k, plus one for a bias),
 *   g_ij = sum_p |a_ip||b_pj| (+ |bias_j|),   bound_ij = gamma_T(u_acc) g_ij + u_out |c_ij|
 * with gamma_T(u) = T u / (1 - T u) (past T u = 1/2: (1 + u)^T - 1, which it bounds). Two paths that each honour the bound differ by at most
 * 2 bound_ij, and the ratio max |a - b| / (2 bound) is the headline number. Two terms make it
 * rigorous beyond the textbook form: underflow (each rounding may also lose eta, the smallest
 * subnormal of its type) and, for paths that round an intermediate result to the output type
 * before a further step (mm, then + bias), u_out g_ij per extra rounding.
 */
#ifndef FPD_COMPARE_H
#define FPD_COMPARE_H

#include <math.h>

#include "engine/magnitude.h"
#include "fpdiv_backend.h"

enum fpd_verdict { FPD_SAME, FPD_REORDER, FPD_IMPROBABLE, FPD_BOUND, FPD_NONFINITE, FPD_ERROR, FPD_VERDICT_COUNT };

struct fpd_verdict_info {
    const char *name;
    const char *doc;
};

extern const struct fpd_verdict_info fpd_verdict_table[FPD_VERDICT_COUNT];
int fpd_verdict_parse(const char *name, enum fpd_verdict *out);

struct fpd_metrics {
    size_t count;              /* elements compared */
    size_t diff;               /* elements whose bits differ (two NaNs count as equal) */
    size_t nonfinite_mismatch; /* elements whose class (finite, +Inf, -Inf, NaN) differs, beyond what
                                  rounding explains (below) */
    size_t threshold_crossings; /* elements ±Inf on one path and finite (same sign) on the other,
                                   within the bound of the output type's overflow threshold: an
                                   order's rounding may carry a sum that close across it, so they
                                   count as differences within the bound, not as class changes */
    uint64_t max_ulp;          /* over elements finite on both sides */
    double max_abs, max_rel;
    bool bounded;              /* ratio was computed */
    double ratio;              /* max |a-b| / (2 bound) over finite elements; 0 when nothing differs */
    size_t worst;              /* flat index of the worst element: by ratio when bounded, else by ulp */
    uint64_t worst_bits_a, worst_bits_b;
    bool identical;            /* the outputs' bytes are equal */
    uint64_t hash_a, hash_b;   /* XXH3-64 of each output's bytes: 0 until fpd_compare_hashes */
};

/* What the bound needs to know about the computation. */
struct fpd_bound_model {
    double u_acc, u_out, eta_acc, eta_out;
    size_t terms;                 /* k, plus one when a bias is summed */
    unsigned extra_out_roundings; /* intermediate results rounded to the output type */
    /* the product rounded to the output type before a bias is added to it (a framework's x @ W + b):
     * that rounding errs by at most u_out |product|, and |product| <= |c| (1 + 2 u_out) + bias_max,
     * where g (1 + gamma) is far looser at large k: fpd_bound_model_bias_added */
    bool bias_added;
    double bias_max;              /* the largest |bias| of the compared columns */
    double gamma;                 /* gamma_terms(u_acc), precomputed */
    double g_scale;               /* the outputs are the sum times this (a mean's 1/k, fpd_bound_model_mean;
                                     else 1): g and the additions' errors scale with them */
    enum fpd_dtype acc, out;      /* the accumulator's and the output's types: the bound holds while no
                                     partial sum overflows them */
    /* terms eta_acc + (1 + extra_out_roundings) eta_out, the bound's allowance for underflow, as
     * fpd_bound_model_settle last computed it: per element, its products of binary64's subnormals
     * took a microcode assist each (14% of a campaign) */
    double underflow;
};

/* After any change to a model's terms, etas or extra roundings (the functions below make it). */
static inline void fpd_bound_model_settle(struct fpd_bound_model *bm)
{
    bm->underflow = (double)bm->terms * bm->eta_acc + (1 + bm->extra_out_roundings + bm->bias_added) * bm->eta_out;
}

/* The model of a product rounded to the output type before the bias (largest magnitude bias_max) is
 * added to it. */
static inline void fpd_bound_model_bias_added(struct fpd_bound_model *bm, double bias_max)
{
    bm->bias_added = true;
    bm->bias_max = bias_max;
    fpd_bound_model_settle(bm);
}

void fpd_bound_model_init(struct fpd_bound_model *bm, const struct fpd_dtypes *dt, size_t k, bool bias,
                          unsigned extra_out_roundings);
/* The model of a mean: the sum's, divided by its terms' count, rounded once more to the output type
 * (a division, or a product with 1/k rounded to the accumulator's type: torch's). */
void fpd_bound_model_mean(struct fpd_bound_model *bm);
/* Widens the model to cover a backend's own rounding (fpdiv_backend.h) for these dtypes and k:
 * nothing to do for round-to-nearest, which the model already is. subnormal_reach is 0 when no
 * input is a subnormal of dt->in, else 2^emin · max(2^emin, the inputs' largest |x|), with emin
 * dt->in's smallest normal exponent: at least 2^e for the exponent e a block FMA gives a product
 * with a subnormal factor (aligned as if it were 2^emin). */
void fpd_bound_model_widen(struct fpd_bound_model *bm, const struct fpd_rounding *r, const struct fpd_dtypes *dt,
                           size_t k, double subnormal_reach);

/* ±Inf on one side and finite with the same sign on the other: a class change that rounding alone
 * makes where a sum lies near the overflow threshold (fpd_below_overflow). */
static inline bool fpd_crosses_overflow(double x, double y)
{
    return isinf(x) != isinf(y) && !isnan(x) && !isnan(y) && signbit(x) == signbit(y);
}

/* Whether a partial sum of an element with magnitude sum g can overflow the accumulator (or the
 * output type, where an intermediate result is rounded to it): every partial sum is at most g
 * and its roundings, so below the threshold none can. Where one can, an order may overflow where
 * another does not, which no rounding bound describes. */
static inline bool fpd_partial_sums_may_overflow(const struct fpd_bound_model *bm, double g)
{
    double reach = g * (1 + bm->gamma);
    return !(fpd_below_overflow(bm->acc, reach) > 0) ||
           ((bm->extra_out_roundings > 0 || bm->bias_added) && !(fpd_below_overflow(bm->out, reach * bm->g_scale) > 0));
}

/* bound_ij for magnitude g and output value c (either path's; the larger |c| is used). Inline:
 * comparison calls it for every element that differs. */
static inline double fpd_bound_element(const struct fpd_bound_model *bm, double g, double c_abs)
{
    /* g is below the exact sum by at most its own binary64 roundings (relative (T+1) 2^-53,
     * magnitude.h): allow for twice that. */
    double g_safe = g * bm->g_scale * (1 + (double)(bm->terms + 1) * 0x1p-52);
    double rounding = bm->gamma * g_safe + bm->u_out * c_abs;
    double intermediate = bm->extra_out_roundings * bm->u_out * g_safe * (1 + bm->gamma);
    if (bm->bias_added) { /* a branch, not 0 times the term: 0 x Inf (an infinite g) is NaN */
        double partial = g_safe * (1 + bm->gamma), product = c_abs * (1 + 2 * bm->u_out) + bm->bias_max;
        intermediate += bm->u_out * (product < partial ? product : partial);
    }
    return rounding + intermediate + bm->underflow;
}

/*
 * One output as compared: `batch` entries of rows x cols elements, element (e, i, j) at
 * (e * batch_stride + i * ld + j) elements from p. The outputs are compared where the paths left
 * them, row padding and all: a packed copy of each would cost a pass over memory and as much
 * memory again as the outputs themselves.
 */
struct fpd_block {
    const void *p;
    size_t ld, batch_stride;
};

/* Two outputs of one type and shape. Flat indices (fpd_metrics.worst) count the elements in
 * order, entry by entry and row by row, as if both were packed; so do the hashes. */
struct fpd_comparison {
    enum fpd_dtype t;
    size_t batch, rows, cols;
    struct fpd_block a, b;
};

/* Two packed outputs of `count` elements each. */
static inline struct fpd_comparison fpd_comparison_packed(enum fpd_dtype t, const void *a, const void *b, size_t count)
{
    return (struct fpd_comparison){t, 1, 1, count, {a, count, count}, {b, count, count}};
}

/* Element `flat` of one side (x->a or x->b). */
const void *fpd_comparison_element(const struct fpd_comparison *x, const struct fpd_block *side, size_t flat);

/* The same element by its batch entry, row and column: for the loops over every element, which
 * know them (flat's divisions, twice an element, were a tenth of a check at max-dim 1024). */
static inline const void *fpd_comparison_at(const struct fpd_comparison *x, const struct fpd_block *side, size_t entry,
                                            size_t row, size_t col)
{
    return (const char *)side->p + (entry * side->batch_stride + row * side->ld + col) * fpd_dtype_info(x->t)->size;
}

/* Where phase 2 finds g: entry(ctx, e) is batch entry e's rows x cols magnitudes, packed, or NULL
 * when they could not be had (out of memory). Asked in order, once per entry: one entry's g at a
 * time is all the memory the bound needs. Where `sums` is not NULL it is asked first, and where it
 * gives an entry's binary32 sums (magnitude.h) phase 2 raises them itself, a chunk at a time, and
 * asks `entry` only where a sum of that entry is not finite. `sums` returns FPD_OK (out->sum NULL:
 * none, ask `entry`) or FPD_ERR_NOMEM. */
struct fpd_magnitude_source {
    const double *(*entry)(void *ctx, size_t e);
    void *ctx;
    int (*sums)(void *ctx, size_t e, struct fpd_magnitude_sums *out);
};

/* Phase 1 alone: whether the outputs are identical, and where they are not, the difference counts
 * and sizes. Resets *m. */
void fpd_compare_bits(const struct fpd_comparison *x, struct fpd_metrics *m);
/* After the comparison, the outputs' hashes (identical ones hashed once), which it leaves for
 * whoever reads them: a pass over memory per output that most of a campaign's checks do not need.
 * FPD_OK, or FPD_ERR_NOMEM where outputs with row padding found no memory for the hash's state. */
int fpd_compare_hashes(const struct fpd_comparison *x, struct fpd_metrics *m);
/* XXH3-64 of one side's bytes, as if packed. FPD_OK or FPD_ERR_NOMEM, as above. */
int fpd_compare_hash(const struct fpd_comparison *x, const struct fpd_block *side, uint64_t *hash);
/* Phase 1 and, where anything differs, phase 2, the ratio against the bound, in one pass over the
 * outputs: what fpd_compare_bits gives, and the ratio. Where the outputs are not identical, g is
 * asked for every entry. Resets *m. FPD_OK, or FPD_ERR_NOMEM where the source gave no g. */
int fpd_compare(const struct fpd_comparison *x, const struct fpd_magnitude_source *g, const struct fpd_bound_model *bm,
                struct fpd_metrics *m);
enum fpd_verdict fpd_classify(const struct fpd_metrics *m);

#endif
