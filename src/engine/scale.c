/* scale.c — choosing the power of two, applying it, and what underflow may change. */
#include "engine/scale.h"

#include <math.h>

#include "common/dtype.h"

struct extremes {
    double largest, smallest; /* of the finite nonzero magnitudes; smallest is +Inf when there are none */
};

static struct extremes extremes_of(enum fpd_dtype t, const void *p, size_t count)
{
    struct extremes x = {0, INFINITY};
    fpd_magnitude_extremes(t, p, count, &x.smallest, &x.largest); /* zero, NaN and Inf left out: no
                                                                      scaling changes them */
    return x;
}

/* The data's magnitudes, every element of the storage (padding included: it holds values of the
 * same draw), and the most a partial sum of the plain product can reach, k max|A| max|B| + max|bias|.
 * Where that may overflow the accumulator, a path scaled down would not overflow where the plain one
 * does, and the two would differ in their Infs and NaNs by the scaling alone; so nothing is scaled
 * there. (The output's own overflow is the same in both: path B's output is rounded, then taken
 * times 2^-e in the output type.) */
struct spans {
    struct extremes a, b, bias;
    double product, reach;
    bool sums_fit; /* reach within half the accumulator's range */
};

static struct spans spans_of(const struct fpd_case *c, const struct fpd_tensors *t)
{
    struct fpd_layout l = fpd_case_layout(c);
    struct spans s = {
        .a = extremes_of(c->dt.in, t->a, c->batch * l.stride_a),
        .b = extremes_of(c->dt.in, t->b, c->batch * l.stride_b),
        .bias = c->has_bias ? extremes_of(c->dt.out, t->bias, c->n) : (struct extremes){0, INFINITY},
    };
    s.product = s.a.largest * s.b.largest * (double)c->k;
    s.reach = s.product + s.bias.largest;
    s.sums_fit = s.reach < fpd_dtype_info(c->dt.acc)->max_finite / 2;
    return s;
}

/* scale's: A and the bias stored times 2^e, in their own types */
static int scale_choose(const struct fpd_case *c, const struct spans *s, int magnitude)
{
    const struct fpd_dtype_info *in = fpd_dtype_info(c->dt.in), *out = fpd_dtype_info(c->dt.out);
    double up = ldexp(1, magnitude), acc_max = fpd_dtype_info(c->dt.acc)->max_finite;
    if (!s->sums_fit)
        return 0;
    /* up: A stays finite, and so does the product */
    if (s->a.largest * up < in->max_finite / 2 && s->product * up < out->max_finite / 4 &&
        s->bias.largest * up < out->max_finite / 4 && s->product * up < acc_max / 4)
        return magnitude;
    /* down: A stays exact (nothing falls among the subnormals) */
    if (s->a.smallest / up >= ldexp(1, in->emin) && s->bias.smallest / up >= ldexp(1, out->emin))
        return -magnitude;
    return 0;
}

int fpd_scale_choose(const struct fpd_case *c, const struct fpd_tensors *t, int magnitude)
{
    struct spans s = spans_of(c, t);
    return scale_choose(c, &s, magnitude);
}

/* alpha-beta's alpha: applied by the library in its accumulator, to A as it packs it or to the sums */
static int alpha_choose(const struct fpd_case *c, const struct spans *s, int magnitude)
{
    const struct fpd_dtype_info *out = fpd_dtype_info(c->dt.out), *acc = fpd_dtype_info(c->dt.acc);
    double up = ldexp(1, magnitude), acc_normal = ldexp(1, acc->emin);
    if (!s->sums_fit)
        return 0;
    if (s->reach * up < out->max_finite / 2 && s->reach * up < acc->max_finite / 2 &&
        s->a.largest * up < acc->max_finite / 2)
        return magnitude;
    if (s->a.smallest / up >= acc_normal && s->bias.smallest / up >= acc_normal)
        return -magnitude;
    return 0;
}

static void scalars_choose(const struct fpd_case *c, const struct spans *s, int *alpha_exp, int *beta_exp)
{
    if (*alpha_exp)
        *alpha_exp = alpha_choose(c, s, *alpha_exp);
    int shift = *alpha_exp - *beta_exp;
    if (!c->has_bias || shift == 0)
        return;
    const struct fpd_dtype_info *out = fpd_dtype_info(c->dt.out);
    /* the bias handed over times 2^shift: that, else times 2^-shift (beta 2^(2 alpha - beta)), else as it is */
    for (int sign = 1; sign >= -1; sign -= 2) {
        int e = sign * shift, beta = *alpha_exp - e;
        bool fits = e > 0 ? ldexp(s->bias.largest, e) < out->max_finite / 4 : ldexp(s->bias.smallest, e) >= ldexp(1, out->emin);
        if (fits && beta >= -FPD_SCALE_MAX && beta <= FPD_SCALE_MAX) {
            *beta_exp = beta;
            return;
        }
    }
    *beta_exp = *alpha_exp;
}

void fpd_scalars_choose(const struct fpd_case *c, const struct fpd_tensors *t, int *alpha_exp, int *beta_exp)
{
    struct spans s = spans_of(c, t);
    scalars_choose(c, &s, alpha_exp, beta_exp);
}

bool fpd_scale_settle(const struct fpd_case *c, const struct fpd_tensors *t, struct fpd_path *b)
{
    if (!b->scale_exp && !b->alpha_exp && !b->beta_exp)
        return true;
    struct spans s = spans_of(c, t); /* one pass over the data for either relation */
    if (b->scale_exp)
        b->scale_exp = scale_choose(c, &s, b->scale_exp);
    if (b->alpha_exp || b->beta_exp) {
        int alpha = b->alpha_exp, beta = b->beta_exp;
        scalars_choose(c, &s, &alpha, &beta);
        b->alpha_exp = (int8_t)alpha, b->beta_exp = (int8_t)beta;
    }
    return b->scale_exp || b->alpha_exp || b->beta_exp || b->alpha_negative;
}

int fpd_scale_paths_as_run(const struct fpd_relation *r, const struct fpd_case *c, const struct fpd_relation_params *p,
                           struct fpd_paths *out)
{
    fpd_relation_build(r, c, p, out);
    if (!out->b.scale_exp && !out->b.alpha_exp && !out->b.beta_exp)
        return FPD_OK;
    struct fpd_tensors t = {0};
    int rc = fpd_gen_materialize(c, &t);
    if (rc == FPD_OK)
        (void)fpd_scale_settle(c, &t, &out->b); /* a case with nothing to scale runs no check to save */
    fpd_tensors_free(&t);
    return rc;
}

void fpd_scale_block(enum fpd_dtype t, void *p, size_t batch, size_t stride, size_t rows, size_t cols, size_t ld, int e,
                     bool negate)
{
    for (size_t b = 0; b < batch; b++)
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++) {
                size_t at = b * stride + i * ld + j;
                double v = ldexp(fpd_load(t, p, at), e);
                fpd_store(t, p, at, negate ? -v : v);
            }
}

double fpd_scale_tolerance(const struct fpd_dtypes *dt, size_t k, int e)
{
    /* an underflowing rounding errs by at most half the smallest subnormal of its type; in path A's
     * units, path B's count 2^-e times as much */
    double both = 1 + ldexp(1, e < 0 ? -e : 0);
    return both * ((double)(k + 2) * fpd_dtype_info(dt->acc)->underflow + fpd_dtype_info(dt->out)->underflow);
}
