/* compare.c — metrics, bound and verdict. NaN and Inf are classified, never compared with ==. */
#include "compare.h"

#include <math.h>
#include <string.h>
#include <xxhash.h>

#include "dtype.h"

const struct fpd_verdict_info fpd_verdict_table[FPD_VERDICT_COUNT] = {
    [FPD_SAME] = {"same", "bitwise equal"},
    [FPD_REORDER] = {"reorder", "differs, but within what any summation order may give"},
    [FPD_BOUND] = {"bound", "beyond the worst-case rounding bound: lost precision or a wrong result"},
    [FPD_NONFINITE] = {"nonfinite", "the NaN/Inf pattern differs"},
    [FPD_ERROR] = {"error", "a path failed"},
};

int fpd_verdict_parse(const char *name, enum fpd_verdict *out)
{
    for (int v = 0; v < FPD_VERDICT_COUNT; v++) {
        if (strcmp(name, fpd_verdict_table[v].name) == 0) {
            *out = (enum fpd_verdict)v;
            return FPD_OK;
        }
    }
    return FPD_ERR_INPUT;
}

double fpd_gamma(size_t terms, double u)
{
    /* gamma_T = Tu / (1 - Tu) bounds (1 + u)^T - 1; past Tu = 1/2 use the latter itself, which
     * stays finite (a 16-bit accumulator over thousands of terms still has a bound). */
    double tu = (double)terms * u;
    return tu <= 0.5 ? tu / (1 - tu) : expm1((double)terms * log1p(u));
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
    bm->gamma = fpd_gamma(bm->terms, bm->u_acc);
}

/* The per-element loops below take the type as an argument and are always inlined into a switch
 * with one constant type per branch: every layout test and load then folds to its own type's
 * few instructions, instead of a call per element. */
#define SPECIALIZE_BY_TYPE(t, call)                                                                \
    switch (t) {                                                                                   \
    case FPD_F64: call(FPD_F64); break;                                                            \
    case FPD_F32: call(FPD_F32); break;                                                            \
    case FPD_F16: call(FPD_F16); break;                                                            \
    case FPD_BF16: call(FPD_BF16); break;                                                          \
    default: break;                                                                                \
    }

/* fmax for values known to be numbers: a compare, where fmax is a call for NaN's sake. */
static inline double larger(double x, double y) { return x > y ? x : y; }

static inline __attribute__((always_inline)) void differing_elements(enum fpd_dtype t, const void *a, const void *b,
                                                                     size_t count, struct fpd_metrics *m)
{
    /* The worst element: the first whose class changed, else the one farthest apart in ulps.
     * Running values stay in locals: through m, the compiler would store each one back to memory
     * on every element, as a or b might alias it. */
    uint64_t worst_ulp = 0, max_ulp = 0;
    size_t diff = 0, nonfinite_mismatch = 0, worst = 0;
    double max_abs = 0, max_rel = 0;
    bool found = false;
    for (size_t i = 0; i < count; i++) {
        uint64_t ba = fpd_bits(t, a, i), bb = fpd_bits(t, b, i);
        if (fpd_same_value_bits(t, ba, bb))
            continue;
        diff++;
        enum fpd_fp_class ca = fpd_classify_bits(t, ba), cb = fpd_classify_bits(t, bb);
        if (ca != cb) {
            if (nonfinite_mismatch++ == 0)
                worst = i;
            continue;
        }
        double va = fpd_load(t, a, i), vb = fpd_load(t, b, i);
        double abs_diff = fabs(va - vb), scale = larger(fabs(va), fabs(vb)); /* finite: same class */
        uint64_t ulp = fpd_ulp_distance(t, ba, bb);
        max_abs = larger(max_abs, abs_diff);
        if (scale > 0)
            max_rel = larger(max_rel, abs_diff / scale);
        if (ulp > max_ulp)
            max_ulp = ulp;
        if (nonfinite_mismatch == 0 && (!found || ulp > worst_ulp)) {
            worst = i;
            worst_ulp = ulp;
            found = true;
        }
    }
    m->diff = diff;
    m->nonfinite_mismatch = nonfinite_mismatch;
    m->worst = worst;
    m->max_abs = max_abs;
    m->max_rel = max_rel;
    m->max_ulp = max_ulp;
}

void fpd_compare_bits(enum fpd_dtype t, const void *a, const void *b, size_t count, struct fpd_metrics *m)
{
    size_t bytes = count * fpd_dtype_info(t)->size;
    *m = (struct fpd_metrics){.count = count};
    m->hash_a = XXH3_64bits(a, bytes);
    m->hash_b = XXH3_64bits(b, bytes);
    if (memcmp(a, b, bytes) == 0)
        return;
#define DIFFERING(type) differing_elements(type, a, b, count, m)
    SPECIALIZE_BY_TYPE(t, DIFFERING)
#undef DIFFERING
    m->worst_bits_a = fpd_bits(t, a, m->worst);
    m->worst_bits_b = fpd_bits(t, b, m->worst);
}

static inline __attribute__((always_inline)) void ratios_to_bound(enum fpd_dtype t, const void *a, const void *b,
                                                                  const double *g, size_t count,
                                                                  const struct fpd_bound_model *bm,
                                                                  struct fpd_metrics *m)
{
    bool found = false;
    for (size_t i = 0; i < count; i++) {
        uint64_t ba = fpd_bits(t, a, i), bb = fpd_bits(t, b, i);
        if (fpd_same_value_bits(t, ba, bb) || fpd_classify_bits(t, ba) != FPD_CLASS_FINITE ||
            fpd_classify_bits(t, bb) != FPD_CLASS_FINITE)
            continue;
        double va = fpd_load(t, a, i), vb = fpd_load(t, b, i);
        double bound = fpd_bound_element(bm, g[i], larger(fabs(va), fabs(vb)));
        if (!isfinite(bound))
            continue; /* Inf or NaN among the inputs: no finite bound, nothing to measure against */
        double diff = fabs(va - vb);
        double ratio = bound > 0 ? diff / (2 * bound) : diff > 0 ? INFINITY : 0;
        if (!found || ratio > m->ratio) {
            m->ratio = ratio;
            if (m->nonfinite_mismatch == 0)
                m->worst = i;
            found = true;
        }
    }
}

void fpd_compare_bound(enum fpd_dtype t, const void *a, const void *b, const double *g, size_t count,
                       const struct fpd_bound_model *bm, struct fpd_metrics *m)
{
    /* With no class change, the worst element becomes the one with the largest ratio. */
    m->bounded = true;
    m->ratio = 0;
#define RATIOS(type) ratios_to_bound(type, a, b, g, count, bm, m)
    SPECIALIZE_BY_TYPE(t, RATIOS)
#undef RATIOS
    m->worst_bits_a = fpd_bits(t, a, m->worst);
    m->worst_bits_b = fpd_bits(t, b, m->worst);
}

enum fpd_verdict fpd_classify(const struct fpd_metrics *m)
{
    if (m->nonfinite_mismatch > 0)
        return FPD_NONFINITE;
    if (m->diff == 0)
        return FPD_SAME;
    return m->bounded && m->ratio > 1 ? FPD_BOUND : FPD_REORDER;
}
