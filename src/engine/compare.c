/* compare.c — metrics, bound and verdict. NaN and Inf are classified, never compared with ==. */
#include "engine/compare.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <xxhash.h>

#include "common/dtype.h"
#include "common/table.h"
#include "cpu/clones.h"

const struct fpd_verdict_info fpd_verdict_table[FPD_VERDICT_COUNT] = {
    [FPD_SAME] = {"same", "bitwise equal"},
    [FPD_REORDER] = {"reorder", "differs, but within what any summation order may give"},
    [FPD_IMPROBABLE] = {"improbable", "within the worst-case bound, but beyond what reordering gives except with "
                                      "negligible probability: lost precision, most likely"},
    [FPD_BOUND] = {"bound", "beyond the worst-case rounding bound: lost precision or a wrong result"},
    [FPD_NONFINITE] = {"nonfinite", "the NaN/Inf pattern differs, between the paths or from the exact result"},
    [FPD_ERROR] = {"error", "a path failed"},
};

int fpd_verdict_parse(const char *name, enum fpd_verdict *out)
{
    long v = FPD_TABLE_FIND(fpd_verdict_table, FPD_VERDICT_COUNT, name);
    if (v < 0)
        return FPD_ERR_INPUT;
    *out = (enum fpd_verdict)v;
    return FPD_OK;
}

void fpd_bound_model_init(struct fpd_bound_model *bm, const struct fpd_dtypes *dt, size_t k, bool bias,
                          unsigned extra_out_roundings)
{
    const struct fpd_dtype_info *acc = fpd_dtype_info(dt->acc), *out = fpd_dtype_info(dt->out);
    bm->u_acc = acc->unit_roundoff;
    bm->u_out = out->unit_roundoff;
    bm->eta_acc = acc->underflow;
    bm->eta_out = out->underflow;
    bm->terms = k + (bias ? 1 : 0);
    bm->extra_out_roundings = extra_out_roundings;
    bm->bias_added = false, bm->bias_max = 0;
    bm->gamma = fpd_gamma(bm->terms, bm->u_acc);
    bm->g_scale = 1;
    bm->acc = dt->acc, bm->out = dt->out;
    fpd_bound_model_settle(bm);
}

void fpd_bound_model_mean(struct fpd_bound_model *bm)
{
    /* the division's (or the reciprocal's and the product's) error, at most u |sum| / k, is what
     * one more rounding to the output type of a value of magnitude g / k allows */
    bm->g_scale = 1 / (double)bm->terms;
    bm->extra_out_roundings++;
    fpd_bound_model_settle(bm);
}

void fpd_bound_model_widen(struct fpd_bound_model *bm, const struct fpd_rounding *r, const struct fpd_dtypes *dt,
                           size_t k, double subnormal_reach)
{
    if (r->kind != FPD_ROUNDING_BLOCK_FMA || r->block == 0)
        return;
    /* A block truncates at most `block` of its terms (the one that sets the grid is exact) to
     * 2^(emax - 23 - extra_bits) <= 2^(-23 - extra_bits) max|term|, and rounds its sum once: per
     * block, relative to the magnitudes it adds (|c| and its products), at most
     * delta = rounding + truncation (1 + rounding). Chained through the accumulator, B blocks are
     * a recursive sum of B steps of error delta: gamma_B(delta) |bias + products|. Below the
     * normal range, each block's grid is at least 2^(min_exp - 23 - extra_bits), and its rounding
     * at most the accumulator's smallest subnormal (twice that toward zero). A product with a
     * subnormal factor is aligned as if the factor were 2^emin: it can set a block's grid up to
     * 2^(p - 1) times coarser than its magnitude suggests, at most 2^-(23 + extra_bits) of
     * subnormal_reach, for each of the block's terms; an absolute error per block, allowed as
     * underflow is. */
    const struct fpd_dtype_info *acc = fpd_dtype_info(dt->acc);
    double step_rounding = (r->toward_zero ? 2 : 1) * acc->unit_roundoff;
    double truncation = r->block * ldexp(1, -23 - r->extra_bits);
    double delta = step_rounding + truncation * (1 + step_rounding);
    size_t blocks = (k + r->block - 1) / r->block;
    double gamma = fpd_gamma(blocks, delta);
    double per_block_underflow = r->block * ldexp(1, r->min_exp - 23 - r->extra_bits) +
                                 (r->toward_zero ? 2 : 1) * acc->underflow +
                                 r->block * ldexp(subnormal_reach, -23 - r->extra_bits) * (1 + step_rounding);
    if (gamma > bm->gamma)
        bm->gamma = gamma;
    if (bm->terms > 0 && blocks * per_block_underflow > bm->terms * bm->eta_acc)
        bm->eta_acc = blocks * per_block_underflow / (double)bm->terms;
    fpd_bound_model_settle(bm);
}

/*
 * The per-element loops. Each element's difference is computed without a branch, so that a chunk
 * of them vectorizes: counts are sums, and maxima of non-negative doubles are maxima of their
 * bits as integers (the same order, and an integer maximum vectorizes where a floating one, for
 * NaN's sake, does not). Which element is the worst (the first to reach the maximum) is found
 * afterwards, in the one chunk that holds it. The loops take the type as an argument and are
 * inlined into one copy per type and vector width (clones.h), so every layout test and load
 * folds to its own type's few instructions (the 16-bit decoders in dtype.h have no branch either).
 */
#define CHUNK 128

/* The end of the chunk that starts at `from`. */
static inline size_t chunk_end(size_t from, size_t count) { return count - from < CHUNK ? count : from + CHUNK; }

/* Whether a chunk holds no difference at all: differences often come in rows or blocks, and a
 * chunk without one then costs a memcmp. */
static inline bool chunk_equal(enum fpd_dtype t, const void *a, const void *b, size_t from, size_t end)
{
    size_t es = fpd_bits_width(t) / 8;
    return memcmp((const char *)a + from * es, (const char *)b + from * es, (end - from) * es) == 0;
}

static inline uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline double value_of_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Classes from the bits as 0 or 1, with & where fpd_classify_bits branches: no control flow is
 * left in the loops for the vectorizer to refuse. */
static inline uint64_t finite_bits(enum fpd_dtype t, uint64_t u)
{
    return (u & fpd_exponent_mask(t)) != fpd_exponent_mask(t);
}

static inline uint64_t nan_bits(enum fpd_dtype t, uint64_t u)
{
    uint64_t all_ones_exponent = 1 - finite_bits(t, u);
    return all_ones_exponent & ((u & ((1ull << fpd_bits_significand(t)) - 1)) != 0);
}

/* The larger of two non-negative doubles (or NaNs, in lanes whose result is dropped), on their
 * bits: an integer maximum, which vectorizes where a floating one does not. */
static inline double larger_magnitude(double x, double y)
{
    uint64_t bx = bits_of(x), by = bits_of(y);
    return value_of_bits(bx > by ? bx : by);
}

/* How elements i of a and b differ. A finite pair is two different finite values (their classes
 * agree and they are not two NaNs); only they have an ulp distance and a size of difference. */
struct element_difference {
    uint64_t differ, finite_pair; /* 0 or 1 */
    uint64_t ulp;
    uint64_t abs, rel; /* the bits of |a - b|, and of that relative to the larger of |a| and |b|: 0 unless a
                          finite pair */
};

static inline __attribute__((always_inline)) struct element_difference element_difference(enum fpd_dtype t,
                                                                                          const void *a,
                                                                                          const void *b, size_t i)
{
    uint64_t ba = fpd_bits(t, a, i), bb = fpd_bits(t, b, i);
    struct element_difference e;
    e.differ = (ba != bb) & (1 - (nan_bits(t, ba) & nan_bits(t, bb)));
    e.finite_pair = e.differ & finite_bits(t, ba) & finite_bits(t, bb);
    uint64_t keep = -e.finite_pair; /* all ones for a finite pair */
    e.ulp = fpd_ulp_distance(t, ba, bb) & keep;
    double va = fpd_load(t, a, i), vb = fpd_load(t, b, i);
    double abs = fabs(va - vb);
    /* Over the smallest subnormal at least, so that +0 against -0 gives 0 / 2^-1074 = 0. The
     * division is unconditional: one under a branch (or a select the compiler makes one) stays
     * scalar, as it might trap. */
    double rel = abs / larger_magnitude(larger_magnitude(fabs(va), fabs(vb)), 0x1p-1074);
    e.abs = bits_of(abs) & keep;
    e.rel = bits_of(rel) & keep;
    return e;
}

/*
 * A comparison is scanned as runs of elements that lie next to each other in both outputs: a
 * batch entry each where both outputs' rows are packed, else a row each. A run never spans two
 * entries, so that phase 2 needs one entry's g at a time.
 */
struct run {
    const void *a, *b;
    size_t flat; /* the flat index of its first element */
};

static inline size_t run_length(const struct fpd_comparison *x)
{
    return x->a.ld == x->cols && x->b.ld == x->cols ? x->rows * x->cols : x->cols;
}

static inline struct run run_at(const struct fpd_comparison *x, size_t es, size_t flat)
{
    size_t per_entry = x->rows * x->cols, e = flat / per_entry, row = flat % per_entry / x->cols;
    return (struct run){(const char *)x->a.p + (e * x->a.batch_stride + row * x->a.ld) * es,
                        (const char *)x->b.p + (e * x->b.batch_stride + row * x->b.ld) * es, flat};
}

const void *fpd_comparison_element(const struct fpd_comparison *x, const struct fpd_block *side, size_t flat)
{
    size_t per_entry = x->rows * x->cols, rest = flat % per_entry;
    return fpd_comparison_at(x, side, flat / per_entry, rest / x->cols, rest % x->cols);
}

/* A chunk of a run: where the worst element is looked for again, once the scan has found which. */
struct chunk {
    struct run run;
    size_t from, end; /* within the run */
};

/* An element's ratio to the bound, as bits, and whether there is one to take (not where the
 * values are equal or not both finite, or the bound is not finite because an input was Inf or
 * NaN). The bound is never 0: it allows for underflow. */
struct element_ratio {
    uint64_t taken; /* 0 or 1 */
    uint64_t ratio; /* bits; 0 unless taken */
};

static inline __attribute__((always_inline)) struct element_ratio element_ratio(enum fpd_dtype t, const void *a,
                                                                               const void *b, size_t i, double g,
                                                                               const struct fpd_bound_model *bm)
{
    uint64_t ba = fpd_bits(t, a, i), bb = fpd_bits(t, b, i);
    double va = fpd_load(t, a, i), vb = fpd_load(t, b, i);
    double bound = fpd_bound_element(bm, g, larger_magnitude(fabs(va), fabs(vb)));
    /* |a - b| / (2 bound), halved after the division: where 2 bound would overflow, or the
     * difference of two f64 values near the top of the range does, the ratio still comes out
     * right (a large number, or Inf) instead of 0 or NaN. The division is unconditional, as
     * above. */
    double ratio = 0.5 * (fabs(va - vb) / bound);
    struct element_ratio r;
    r.taken = (ba != bb) & finite_bits(t, ba) & finite_bits(t, bb) & finite_bits(FPD_F64, bits_of(bound));
    r.ratio = bits_of(ratio) & -r.taken;
    return r;
}

/* An entry's magnitudes as phase 2 reads them: its g, or its binary32 sums, raised a chunk at a
 * time (the pass over the block that would raise them all, and g's memory, saved). */
struct entry_magnitudes {
    const double *g; /* NULL while the sums give them */
    struct fpd_magnitude_sums sums;
    size_t cols;
};

/* Whether any of `count` binary32 sums is not finite: an integer OR over their exponent fields. */
static inline bool any_sum_nonfinite(const float *sum, size_t count)
{
    uint32_t nonfinite = 0;
    for (size_t l = 0; l < count; l++) {
        uint32_t bits;
        memcpy(&bits, &sum[l], sizeof bits);
        nonfinite |= (bits & 0x7f800000u) == 0x7f800000u;
    }
    return nonfinite;
}

/* g of `count` elements from the entry's element `first` on: where the entry's g holds them, else
 * raised from the sums into staged[] with magnitude.c's arithmetic, the bias's column wrapping
 * round with the rows. */
static inline __attribute__((always_inline)) const double *chunk_magnitudes(const struct entry_magnitudes *em,
                                                                          size_t first, size_t count,
                                                                          double staged[CHUNK])
{
    if (em->g)
        return em->g + first;
    const struct fpd_magnitude_sums *s = &em->sums;
    for (size_t l = 0; l < count; l++)
        staged[l] = fpd_raise_sum(s->sum[first + l], s->underflow, s->inflate);
    for (size_t l = 0, col = first % em->cols; s->abs_bias && l < count; col = 0) {
        size_t span = em->cols - col < count - l ? em->cols - col : count - l;
        for (size_t j = 0; j < span; j++)
            staged[l + j] += s->abs_bias[col + j];
        l += span;
    }
    return staged;
}

/* The worst element by difference, found again in its chunk once the scan has found which: the
 * first whose class changed (`by_class`), else the first `max_ulp` apart. The same computation
 * gives the same bits; the chunk's last element is the bound of the search all the same. */
static inline __attribute__((always_inline)) size_t first_with_difference(enum fpd_dtype t, const struct chunk *k,
                                                                           bool by_class, uint64_t max_ulp)
{
    size_t i;
    for (i = k->from; i < k->end - 1; i++) {
        struct element_difference d = element_difference(t, k->run.a, k->run.b, i);
        if (by_class ? d.differ && !d.finite_pair : d.finite_pair && d.ulp == max_ulp)
            break;
    }
    return k->run.flat + i;
}

/*
 * What a scan of one batch entry found, or of all of them once merged in order: phase 1's
 * counts and maxima with the chunks that hold its worst elements (the first whose class
 * changed, the first farthest apart in ulps), and where the bound is taken, the largest ratio
 * and the first element to reach it.
 */
struct scan {
    size_t diff, mismatches, crossings;
    uint64_t max_ulp, max_abs, max_rel; /* the last two as bits */
    struct chunk first_mismatch, worst_ulp; /* end 0: none */
    bool ratio_taken;
    uint64_t max_ratio; /* bits */
    size_t worst_ratio; /* flat */
};

/*
 * One entry's scan, both phases in one pass over its outputs where `bounded` (a constant: each
 * copy has one loop or the other). False, with nothing found, where the sums it reads include
 * one that is not finite: g is wanted then. The same computation as the two phases apart gives
 * the same bits, and within an entry as across entries the first element to reach a maximum is
 * the one kept.
 */
static inline __attribute__((always_inline)) bool scan_entry(enum fpd_dtype t, bool bounded,
                                                             const struct fpd_comparison *x, size_t e,
                                                             const struct entry_magnitudes *em,
                                                             const struct fpd_bound_model *bm, struct scan *out)
{
    size_t per_entry = x->rows * x->cols, length = run_length(x), es = fpd_bits_width(t) / 8;
    *out = (struct scan){.diff = 0};
    struct chunk worst_ratio = {.end = 0};
    size_t worst_ratio_at = 0;
    for (size_t at = 0; at < per_entry; at += length) {
        struct run u = run_at(x, es, e * per_entry + at);
        for (size_t from = 0; from < length; from += CHUNK) {
            size_t end = chunk_end(from, length);
            /* every sum is looked at, equal chunks' too: g is the same whichever chunks differ */
            if (bounded && !em->g && any_sum_nonfinite(em->sums.sum + at + from, end - from))
                return false;
            if (chunk_equal(t, u.a, u.b, from, end))
                continue;
            double staged[CHUNK];
            const double *g = bounded ? chunk_magnitudes(em, at + from, end - from, staged) : NULL;
            uint64_t chunk_diff = 0, chunk_finite = 0, chunk_ulp = 0, chunk_taken = 0, chunk_ratio = 0;
            for (size_t i = from; i < end; i++) {
                struct element_difference d = element_difference(t, u.a, u.b, i);
                chunk_diff += d.differ;
                chunk_finite += d.finite_pair;
                chunk_ulp = d.ulp > chunk_ulp ? d.ulp : chunk_ulp;
                out->max_abs = d.abs > out->max_abs ? d.abs : out->max_abs;
                out->max_rel = d.rel > out->max_rel ? d.rel : out->max_rel;
                if (bounded) {
                    struct element_ratio r = element_ratio(t, u.a, u.b, i, g[i - from], bm);
                    chunk_taken += r.taken;
                    chunk_ratio = r.ratio > chunk_ratio ? r.ratio : chunk_ratio;
                }
            }
            out->diff += chunk_diff;
            if (chunk_diff > chunk_finite) { /* a pair that differs and is not two finite values: a class change */
                out->mismatches += chunk_diff - chunk_finite;
                if (out->first_mismatch.end == 0)
                    out->first_mismatch = (struct chunk){u, from, end};
            }
            if (chunk_finite > 0 && (out->worst_ulp.end == 0 || chunk_ulp > out->max_ulp)) {
                out->worst_ulp = (struct chunk){u, from, end};
                out->max_ulp = chunk_ulp;
            }
            if (chunk_taken > 0 && (worst_ratio.end == 0 || chunk_ratio > out->max_ratio)) {
                worst_ratio = (struct chunk){u, from, end};
                worst_ratio_at = at;
                out->max_ratio = chunk_ratio;
            }
        }
    }
    if (!bounded || worst_ratio.end == 0)
        return true;
    out->ratio_taken = true;
    const struct chunk *k = &worst_ratio;
    double staged[CHUNK];
    const double *g = chunk_magnitudes(em, worst_ratio_at + k->from, k->end - k->from, staged);
    size_t i;
    for (i = k->from; i < k->end - 1; i++) {
        struct element_ratio r = element_ratio(t, k->run.a, k->run.b, i, g[i - k->from], bm);
        if (r.taken && r.ratio == out->max_ratio)
            break;
    }
    out->worst_ratio = k->run.flat + i;
    return true;
}

/* Class changes the bound admits (struct fpd_metrics: threshold_crossings), in entry e once its scan
 * found class changes: where the finite side lies within twice its bound below the overflow
 * threshold, and no partial sum can overflow, two orders that each honour the bound can fall on
 * either side of it. They leave the mismatches, their distance to the threshold joins the ratios
 * (the first to reach the largest is still the worst), and the first class change left is the
 * first mismatch. Element by element, and not inlined: only a scan that found a class change
 * comes here. */
static __attribute__((noinline)) void admit_threshold_crossings(enum fpd_dtype t, const struct fpd_comparison *x,
                                                                 size_t e, const struct entry_magnitudes *em,
                                                                 const struct fpd_bound_model *bm, struct scan *s)
{
    size_t per_entry = x->rows * x->cols, es = fpd_bits_width(t) / 8;
    s->first_mismatch.end = 0;
    for (size_t at = 0; at < per_entry; at += CHUNK) {
        size_t count = per_entry - at < CHUNK ? per_entry - at : CHUNK;
        double staged[CHUNK];
        const double *g = chunk_magnitudes(em, at, count, staged);
        for (size_t l = 0; l < count; l++) {
            size_t flat = e * per_entry + at + l;
            const void *pa = fpd_comparison_element(x, &x->a, flat), *pb = fpd_comparison_element(x, &x->b, flat);
            if (fpd_classify_bits(t, fpd_bits(t, pa, 0)) == fpd_classify_bits(t, fpd_bits(t, pb, 0)))
                continue;
            double va = fpd_load(t, pa, 0), vb = fpd_load(t, pb, 0);
            double finite = fabs(isinf(va) ? vb : va), bound = fpd_bound_element(bm, g[l], finite);
            double ratio = 0.5 * (fpd_below_overflow(t, finite) / bound);
            if (!fpd_crosses_overflow(va, vb) || !isfinite(bound) || !(ratio <= 1) ||
                fpd_partial_sums_may_overflow(bm, g[l])) { /* an Inf among the inputs, too far, or an overflow */
                if (s->first_mismatch.end == 0)
                    s->first_mismatch = (struct chunk){run_at(x, es, flat), 0, 1};
                continue;
            }
            s->mismatches--, s->crossings++;
            uint64_t bits = bits_of(ratio);
            if (!s->ratio_taken || bits > s->max_ratio || (bits == s->max_ratio && flat < s->worst_ratio))
                s->ratio_taken = true, s->max_ratio = bits, s->worst_ratio = flat;
        }
    }
}

/* An entry's scan merged after those of the entries before it (inlined into the copies: see
 * clones.h). */
static inline __attribute__((always_inline)) void merge_scan(struct scan *all, const struct scan *s)
{
    all->diff += s->diff;
    all->mismatches += s->mismatches;
    all->crossings += s->crossings;
    all->max_abs = s->max_abs > all->max_abs ? s->max_abs : all->max_abs;
    all->max_rel = s->max_rel > all->max_rel ? s->max_rel : all->max_rel;
    if (all->first_mismatch.end == 0)
        all->first_mismatch = s->first_mismatch;
    if (s->worst_ulp.end != 0 && (all->worst_ulp.end == 0 || s->max_ulp > all->max_ulp)) {
        all->worst_ulp = s->worst_ulp;
        all->max_ulp = s->max_ulp;
    }
    if (s->ratio_taken && (!all->ratio_taken || s->max_ratio > all->max_ratio)) {
        all->ratio_taken = true;
        all->max_ratio = s->max_ratio;
        all->worst_ratio = s->worst_ratio;
    }
}

/*
 * Entry by entry, each with its own magnitudes where `bounded`. The worst element: the first
 * whose class changed; else, with the bound, the first to reach the largest ratio; else the first
 * farthest apart in ulps.
 */
static inline __attribute__((always_inline)) int scan_elements(enum fpd_dtype t, bool bounded,
                                                               const struct fpd_comparison *x,
                                                               const struct fpd_magnitude_source *source,
                                                               const struct fpd_bound_model *bm, struct fpd_metrics *m)
{
    struct scan all = {.diff = 0};
    for (size_t e = 0; e < x->batch; e++) {
        struct entry_magnitudes em = {.cols = x->cols};
        if (bounded && source->sums && source->sums(source->ctx, e, &em.sums) != FPD_OK)
            return FPD_ERR_NOMEM;
        if (bounded && !em.sums.sum && !(em.g = source->entry(source->ctx, e)))
            return FPD_ERR_NOMEM;
        struct scan s;
        if (!scan_entry(t, bounded, x, e, &em, bm, &s)) { /* a sum not finite: the entry again, on g */
            if (!(em.g = source->entry(source->ctx, e)))
                return FPD_ERR_NOMEM;
            scan_entry(t, bounded, x, e, &em, bm, &s);
        }
        if (bounded && s.mismatches > 0)
            admit_threshold_crossings(t, x, e, &em, bm, &s);
        merge_scan(&all, &s);
    }
    m->diff = all.diff;
    m->nonfinite_mismatch = all.mismatches;
    m->threshold_crossings = all.crossings;
    m->max_abs = value_of_bits(all.max_abs);
    m->max_rel = value_of_bits(all.max_rel);
    m->max_ulp = all.max_ulp;
    m->bounded = bounded && all.diff > 0; /* with nothing that differs there is no ratio to take */
    m->ratio = value_of_bits(all.max_ratio);
    if (all.mismatches > 0)
        m->worst = first_with_difference(t, &all.first_mismatch, true, 0);
    else if (all.ratio_taken)
        m->worst = all.worst_ratio;
    else if (all.worst_ulp.end != 0)
        m->worst = first_with_difference(t, &all.worst_ulp, false, all.max_ulp);
    return FPD_OK;
}

/* One copy per type and vector width, with the bound and without; fpd_compare_* pick the type's. */
#define SCAN_PARAMS                                                                                \
    (const struct fpd_comparison *x, const struct fpd_magnitude_source *g,                         \
     const struct fpd_bound_model *bm, struct fpd_metrics *m)
#define TYPE_CLONES(T, suffix)                                                                     \
    FPD_VECTOR_WIDTH_FUNCTION(int, differing_##suffix, SCAN_PARAMS, (x, g, bm, m))              \
    {                                                                                              \
        return scan_elements(T, false, x, g, bm, m);                                               \
    }                                                                                              \
    FPD_VECTOR_WIDTH_FUNCTION(int, bounded_##suffix, SCAN_PARAMS, (x, g, bm, m))                \
    {                                                                                              \
        return scan_elements(T, true, x, g, bm, m);                                                \
    }
TYPE_CLONES(FPD_F64, f64)
TYPE_CLONES(FPD_F32, f32)
TYPE_CLONES(FPD_F16, f16)
TYPE_CLONES(FPD_BF16, bf16)
#undef TYPE_CLONES
#undef SCAN_PARAMS

typedef int scan_fn(const struct fpd_comparison *x, const struct fpd_magnitude_source *g,
                    const struct fpd_bound_model *bm, struct fpd_metrics *m);

static scan_fn *const scans[FPD_DTYPE_COUNT][2] = {
    [FPD_F64] = {differing_f64, bounded_f64},
    [FPD_F32] = {differing_f32, bounded_f32},
    [FPD_F16] = {differing_f16, bounded_f16},
    [FPD_BF16] = {differing_bf16, bounded_bf16},
};

static bool identical(const struct fpd_comparison *x)
{
    size_t count = x->batch * x->rows * x->cols, length = run_length(x), es = fpd_dtype_info(x->t)->size;
    for (size_t flat = 0; flat < count; flat += length) {
        struct run u = run_at(x, es, flat);
        if (memcmp(u.a, u.b, length * es) != 0)
            return false;
    }
    return true;
}

int fpd_compare_hash(const struct fpd_comparison *x, const struct fpd_block *side, uint64_t *hash)
{
    size_t count = x->batch * x->rows * x->cols, es = fpd_dtype_info(x->t)->size;
    bool packed_rows = side->ld == x->cols;
    bool packed = packed_rows && (x->batch == 1 || side->batch_stride == x->rows * x->cols);
    size_t length = packed_rows ? x->rows * x->cols : x->cols;
    if (packed || count == 0) {
        *hash = XXH3_64bits(side->p, count * es);
        return FPD_OK;
    }
    /* one state over the runs: the same hash as of the packed bytes */
    XXH3_state_t *st = XXH3_createState();
    if (!st)
        return FPD_ERR_NOMEM;
    XXH3_64bits_reset(st);
    for (size_t flat = 0; flat < count; flat += length)
        XXH3_64bits_update(st, fpd_comparison_element(x, side, flat), length * es);
    *hash = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return FPD_OK;
}

/* Identical outputs take a memcmp; others the type's scan, with the bound where `g` is given. */
static int compare(const struct fpd_comparison *x, const struct fpd_magnitude_source *g,
                   const struct fpd_bound_model *bm, struct fpd_metrics *m)
{
    *m = (struct fpd_metrics){.count = x->batch * x->rows * x->cols};
    if (identical(x)) {
        m->identical = true;
        return FPD_OK;
    }
    if ((unsigned)x->t >= FPD_DTYPE_COUNT)
        return FPD_OK;
    int rc = scans[x->t][g != NULL](x, g, bm, m);
    m->worst_bits_a = fpd_bits(x->t, fpd_comparison_element(x, &x->a, m->worst), 0);
    m->worst_bits_b = fpd_bits(x->t, fpd_comparison_element(x, &x->b, m->worst), 0);
    return rc;
}

void fpd_compare_bits(const struct fpd_comparison *x, struct fpd_metrics *m) { compare(x, NULL, NULL, m); }

int fpd_compare(const struct fpd_comparison *x, const struct fpd_magnitude_source *g,
                const struct fpd_bound_model *bm, struct fpd_metrics *m)
{
    return compare(x, g, bm, m);
}

int fpd_compare_hashes(const struct fpd_comparison *x, struct fpd_metrics *m)
{
    int rc = fpd_compare_hash(x, &x->a, &m->hash_a);
    if (rc != FPD_OK)
        return rc;
    if (!m->identical)
        return fpd_compare_hash(x, &x->b, &m->hash_b);
    m->hash_b = m->hash_a; /* once for both */
    return FPD_OK;
}

enum fpd_verdict fpd_classify(const struct fpd_metrics *m)
{
    if (m->nonfinite_mismatch > 0)
        return FPD_NONFINITE;
    if (m->diff == 0)
        return FPD_SAME;
    return m->bounded && m->ratio > 1 ? FPD_BOUND : FPD_REORDER;
}
