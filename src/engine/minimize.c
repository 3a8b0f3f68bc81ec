/* minimize.c — the shrinker. */
#include "engine/minimize.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/dtype.h"

struct shrinker {
    struct fpd_checker *ck;
    struct fpd_check *chk;
    enum fpd_verdict target;
    double deadline;
    struct fpd_minimize_result *out;
    int status; /* fpdiv's own failure, if any */
};

static bool out_of_time(struct shrinker *s)
{
    if (!s->out->timed_out && fpd_now() > s->deadline)
        s->out->timed_out = true;
    return s->out->timed_out || s->status != FPD_OK;
}

/* Does this candidate keep the signature? A candidate that cannot be a valid check does not. The
 * relation shapes it first (a self product's n follows its m). */
static bool keeps(struct shrinker *s, struct fpd_check *candidate)
{
    char why[256];
    fpd_relation_prepare_case(candidate->relation, &candidate->c);
    if (out_of_time(s) ||
        fpd_relation_check_params(candidate->relation, &candidate->c, &candidate->params, why, sizeof why) != FPD_OK)
        return false;
    struct fpd_check_result res;
    int rc = fpd_check_run(s->ck, candidate, &res);
    s->out->checks++;
    if (rc != FPD_OK) {
        s->status = rc;
        return false;
    }
    /* the same signature: a worse verdict is another finding, and one that does not apply none */
    return res.verdict == s->target && !res.not_applicable;
}

/* Try a candidate; adopt it when it keeps the signature. */
static bool adopt(struct shrinker *s, struct fpd_check *candidate)
{
    if (!keeps(s, candidate))
        return false;
    *s->chk = *candidate;
    return true;
}

static uint32_t *dim_of(struct fpd_case *c, int d)
{
    uint32_t *dims[] = {&c->batch, &c->m, &c->n, &c->k};
    return dims[d];
}

static const enum fpd_slice_dim slice_of_dim[] = {FPD_SLICE_BATCH, FPD_SLICE_ROWS, FPD_SLICE_COLS, FPD_SLICE_NONE};

/* Smallest value of dimension d that keeps the signature: lo first, then doubling, then bisection
 * of the gap between the last value that lost it and the first that kept it. */
static bool shrink_dim(struct shrinker *s, int d, uint32_t lo)
{
    uint32_t current = *dim_of(&s->chk->c, d);
    if (current <= lo)
        return false;
    struct fpd_check candidate = *s->chk;
    uint32_t lost = 0, kept = current;
    for (uint64_t v = lo; v < current; v = v * 2 > lo + 1 ? v * 2 : lo + 1) {
        *dim_of(&candidate.c, d) = (uint32_t)v;
        if (keeps(s, &candidate)) {
            kept = (uint32_t)v;
            break;
        }
        lost = (uint32_t)v;
        if (out_of_time(s))
            return false;
    }
    while (kept - lost > 1 && lost >= lo && !out_of_time(s)) {
        uint32_t mid = lost + (kept - lost) / 2;
        *dim_of(&candidate.c, d) = mid;
        if (keeps(s, &candidate))
            kept = mid;
        else
            lost = mid;
    }
    if (kept == current)
        return false;
    *dim_of(&s->chk->c, d) = kept;
    fpd_relation_prepare_case(s->chk->relation, &s->chk->c);
    return *dim_of(&s->chk->c, d) != current; /* a self product's n gives way to m: no shrink of its own */
}

/* slice-* relations: move the slice to the start and make it one entry long, where it still diverges. */
static bool simplify_slice(struct shrinker *s)
{
    if (s->chk->relation->slice == FPD_SLICE_NONE)
        return false;
    bool changed = false;
    struct fpd_check candidate = *s->chk;
    if (candidate.params.slice.len > 1) {
        candidate.params.slice.len = 1;
        changed |= adopt(s, &candidate);
        candidate = *s->chk;
    }
    if (candidate.params.slice.start > 0) {
        candidate.params.slice.start = 0;
        changed |= adopt(s, &candidate);
    }
    return changed;
}

static void shrink_shape(struct shrinker *s)
{
    for (bool changed = true; changed && !out_of_time(s);) {
        changed = simplify_slice(s);
        for (int d = 0; d < 4; d++) {
            uint32_t lo = fpd_relation_min_dim(s->chk->relation, slice_of_dim[d]);
            if (slice_of_dim[d] == s->chk->relation->slice && slice_of_dim[d] != FPD_SLICE_NONE) {
                uint32_t end = s->chk->params.slice.start + s->chk->params.slice.len;
                if (end + 1 > lo)
                    lo = end + 1; /* the sliced dimension must keep something outside the slice */
            }
            changed |= shrink_dim(s, d, lo);
        }
    }
}

/* One element of the explicit data. */
struct edit {
    void *base;
    enum fpd_dtype t;
    size_t index;
};

/* Sets the element's bits, returns the old ones. */
static uint64_t swap_bits(const struct edit *e, uint64_t bits)
{
    uint64_t old = fpd_bits(e->t, e->base, e->index);
    fpd_store_bits(e->t, e->base, e->index, bits);
    return old;
}

static void simplify_layout(struct shrinker *s)
{
    static const size_t droppable[] = {offsetof(struct fpd_case, trans_a), offsetof(struct fpd_case, trans_b),
                                       offsetof(struct fpd_case, has_bias)};
    for (size_t i = 0; i < sizeof droppable / sizeof droppable[0]; i++) {
        struct fpd_check candidate = *s->chk;
        bool *flag = (bool *)((char *)&candidate.c + droppable[i]);
        if (!*flag || (droppable[i] == offsetof(struct fpd_case, has_bias) && s->chk->relation->needs_bias))
            continue;
        *flag = false;
        adopt(s, &candidate);
    }
    if (s->chk->c.pad) {
        struct fpd_check candidate = *s->chk;
        candidate.c.pad = 0;
        adopt(s, &candidate);
    }
}

/* The element indices a k-block [p0, p1) touches: A's columns and B's rows, every batch entry. */
static size_t k_block_cells(const struct fpd_case_data *d, uint32_t p0, uint32_t p1, size_t *a_at, size_t *b_at)
{
    size_t n = 0;
    for (uint32_t b = 0; b < d->batch; b++)
        for (uint32_t p = p0; p < p1; p++) {
            for (uint32_t i = 0; i < d->m; i++, n++)
                a_at[n] = ((size_t)b * d->m + i) * d->k + p, b_at[n] = SIZE_MAX;
            for (uint32_t j = 0; j < d->n; j++, n++)
                b_at[n] = ((size_t)b * d->k + p) * d->n + j, a_at[n] = SIZE_MAX;
        }
    return n;
}

/* Delta debugging over k: zero A's columns and B's rows in blocks, halving the block size. */
static int zero_k_blocks(struct shrinker *s, struct fpd_case_data *d)
{
    enum fpd_dtype in = s->chk->c.dt.in;
    uint32_t k = s->chk->c.k;
    size_t most = (size_t)d->batch * ((size_t)d->m + d->n) * (k / 2 > 0 ? k / 2 : 1);
    size_t *a_at = malloc(most * sizeof *a_at), *b_at = malloc(most * sizeof *b_at);
    uint64_t *saved = malloc(most * sizeof *saved);
    int rc = a_at && b_at && saved ? FPD_OK : FPD_ERR_NOMEM;
    for (uint32_t block = k / 2 > 0 ? k / 2 : 1; rc == FPD_OK && block >= 1 && !out_of_time(s); block /= 2) {
        for (uint32_t p0 = 0; p0 < k && !out_of_time(s); p0 += block) {
            size_t n = k_block_cells(d, p0, p0 + block < k ? p0 + block : k, a_at, b_at);
            bool all_zero = true;
            for (size_t i = 0; i < n; i++) {
                struct edit e = {a_at[i] != SIZE_MAX ? d->a : d->b, in, a_at[i] != SIZE_MAX ? a_at[i] : b_at[i]};
                saved[i] = swap_bits(&e, 0);
                all_zero &= saved[i] == 0;
            }
            if (all_zero || keeps(s, s->chk))
                continue;
            for (size_t i = 0; i < n; i++) {
                struct edit e = {a_at[i] != SIZE_MAX ? d->a : d->b, in, a_at[i] != SIZE_MAX ? a_at[i] : b_at[i]};
                swap_bits(&e, saved[i]);
            }
        }
    }
    free(a_at);
    free(b_at);
    free(saved);
    return rc;
}

/* Simpler stand-ins for value x, simplest first. */
static size_t simpler_values(double x, double *out)
{
    size_t n = 0;
    double sign = signbit(x) ? -1 : 1, a = fabs(x);
    out[n++] = sign;
    out[n++] = nearbyint(x);
    int e;
    frexp(a, &e);
    out[n++] = sign * ldexp(1, e - 1); /* the power of two at or below */
    static const int bits[] = {1, 2, 4, 8};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        out[n++] = sign * ldexp(nearbyint(ldexp(a, bits[i] - e)), e - bits[i]);
    return n;
}

static void simplify_values(struct shrinker *s, struct fpd_case_data *d)
{
    const struct fpd_case *c = &s->chk->c;
    struct edit tensors[] = {
        {d->a, c->dt.in, 0}, {d->b, c->dt.in, 0}, {d->bias, c->dt.out, 0},
    };
    size_t counts[] = {(size_t)d->batch * d->m * d->k, (size_t)d->batch * d->k * d->n, c->has_bias ? d->n : 0};
    for (size_t t = 0; t < 3; t++) {
        for (size_t i = 0; i < counts[t] && !out_of_time(s); i++) {
            struct edit e = tensors[t];
            e.index = i;
            uint64_t original = fpd_bits(e.t, e.base, i);
            double x = fpd_value_of_bits(e.t, original);
            if (fpd_classify_bits(e.t, original) != FPD_CLASS_FINITE || !(fabs(x) > 0))
                continue;
            double candidates[8];
            size_t n = simpler_values(x, candidates);
            for (size_t j = 0; j < n; j++) {
                uint64_t bits = fpd_bits_of_value(e.t, candidates[j]);
                if (bits == original)
                    break; /* already that simple */
                swap_bits(&e, bits);
                if (keeps(s, s->chk))
                    break;
                swap_bits(&e, original);
            }
        }
    }
}

int fpd_minimize(struct fpd_checker *ck, struct fpd_check *chk, enum fpd_verdict target, double seconds,
                 struct fpd_case_data *data, struct fpd_minimize_result *out)
{
    *out = (struct fpd_minimize_result){.before = chk->c};
    *data = (struct fpd_case_data){0};
    struct shrinker s = {ck, chk, target, fpd_now() + seconds, out, FPD_OK};
    chk->unhashed = true; /* a candidate's verdict is all that counts; the final check is hashed */
    shrink_shape(&s);
    simplify_layout(&s);
    if (!out_of_time(&s)) {
        int rc = fpd_case_data_capture(&chk->c, data);
        if (rc != FPD_OK)
            return rc;
        chk->c.data = data;
        rc = zero_k_blocks(&s, data);
        if (rc != FPD_OK)
            return rc;
        simplify_values(&s, data);
        shrink_shape(&s); /* simpler values often let a dimension shrink further */
    }
    if (s.status != FPD_OK)
        return s.status;
    chk->unhashed = false;
    return fpd_check_run(ck, chk, &out->final);
}
