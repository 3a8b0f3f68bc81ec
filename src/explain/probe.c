/* probe.c — cancellation queries as GEMM calls: the values, the batching, and reading the counts. */
#include "explain/probe.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"

/* Bits needed to count up to n: the smallest b with n <= 2^b. */
static int bits_for(uint32_t n)
{
    int b = 0;
    while (b < 32 && ((uint64_t)1 << b) < n)
        b++;
    return b;
}

static int min_int(int a, int b) { return a < b ? a : b; }
static int max_int(int a, int b) { return a > b ? a : b; }

/* The exponent of the smallest subnormal. */
static int tiny_exp(enum fpd_dtype t) { return fpd_dtype_info(t)->emin - fpd_dtype_info(t)->precision + 1; }

/*
 * one = 2^e and M = 2^E. -M + x with 0 < x < 2^(E-p-1) rounds back to -M (just below 2^E the spacing
 * is 2^(E-p)), so with counts below 2^need the gap E - e must be at least p_acc + need + 1; two bits
 * more are kept where the range allows, for backends whose accumulators carry a few guard bits.
 * one = 1 where possible: the answers are then plain counts.
 */
static int choose_values(struct fpd_probe *p, char *why, size_t why_size)
{
    const struct fpd_probe_target *t = &p->target;
    const struct fpd_dtype_info *in = fpd_dtype_info(t->dt.in), *out = fpd_dtype_info(t->dt.out),
                                *acc = fpd_dtype_info(t->dt.acc);
    char dts[32];
    fpd_dtypes_format(&t->dt, dts, sizeof dts);
    int need = bits_for(p->leaves);
    int counts_exact = min_int(out->precision, acc->precision);
    if (need > counts_exact) {
        snprintf(why, why_size,
                 "--dtype %s: the %s %s holds counts of ones exactly only up to %u terms, and k = %zu%s needs "
                 "%u; explain a wider output or accumulator (for instance --dtype %s:f32)",
                 dts, out->precision < acc->precision ? fpd_dtype_info(t->dt.out)->name : fpd_dtype_info(t->dt.acc)->name,
                 out->precision < acc->precision ? "output" : "accumulator", 1u << counts_exact, t->k,
                 t->bias ? " plus the bias" : "", p->leaves, in->name);
        return FPD_ERR_INPUT;
    }
    int big_max = min_int(in->emax, acc->emax);
    if (t->bias)
        big_max = min_int(big_max, out->emax);
    /* ones in the normal range where they fit (a backend that flushes subnormals reads those as 0),
     * else down to the smallest subnormal of all three types */
    int normal_min = max_int(max_int(in->emin, acc->emin), out->emin);
    int tiny_min = max_int(max_int(tiny_exp(t->dt.in), tiny_exp(t->dt.acc)), tiny_exp(t->dt.out));
    int gap_min = acc->precision + need + 1;
    for (int pass = 0; pass < 2; pass++) {
        int one_min = pass == 0 ? normal_min : tiny_min;
        for (int gap = gap_min + 2; gap >= gap_min; gap--) {
            int big = gap < big_max ? gap : big_max;
            if (big - gap >= one_min) {
                p->big_exp = big, p->one_exp = big - gap;
                return FPD_OK;
            }
        }
    }
    int span = big_max - tiny_min, most = span - acc->precision - 1; /* counts below 2^most absorb */
    if (most < 1)
        snprintf(why, why_size,
                 "--dtype %s: accumulating in %s absorbs ones into M only when M is 2^%d times a one or more, and %s "
                 "values span only 2^%d: this combination cannot be explained",
                 dts, acc->name, acc->precision + 2, in->name, span);
    else
        snprintf(why, why_size,
                 "--dtype %s: to absorb %u ones into M when accumulating in %s, M must be 2^%d times a one, but %s "
                 "values span only 2^%d: explain at most %u terms, or a wider input type",
                 dts, p->leaves, acc->name, gap_min, in->name, span, most >= 31 ? UINT32_MAX : 1u << most);
    return FPD_ERR_INPUT;
}

static void *filled(enum fpd_dtype t, size_t count, double value)
{
    void *buf = malloc((count ? count : 1) * fpd_dtype_info(t)->size);
    for (size_t i = 0; buf && i < count; i++)
        fpd_store(t, buf, i, value);
    return buf;
}

int fpd_probe_open(struct fpd_probe *p, const struct fpd_probe_target *t, char *why, size_t why_size)
{
    *p = (struct fpd_probe){.target = *t, .leaves = (uint32_t)t->k + (t->bias ? 1 : 0)};
    struct fpd_backend_slot *s = t->backend;
    if (t->k == 0) {
        snprintf(why, why_size, "k is 0: the empty product adds no terms, so there is no order to reveal");
        return FPD_ERR_INPUT;
    }
    if (t->k >= UINT32_MAX - 1 || t->m == 0 || t->n == 0 || t->batch == 0) {
        snprintf(why, why_size, "every dimension must be at least 1");
        return FPD_ERR_INPUT;
    }
    if (t->at_batch >= t->batch || t->at_row >= t->m || t->at_col >= t->n) {
        snprintf(why, why_size, "--element %zu,%zu is outside the %zux%zu output", t->at_row, t->at_col, t->m, t->n);
        return FPD_ERR_INPUT;
    }
    if (fpd_backend_acquire(s) != FPD_OK) {
        snprintf(why, why_size, "%s is unavailable: %.200s", s->impl->name, s->why);
        return FPD_ERR_UNAVAILABLE;
    }
    char reason[256];
    if (!fpd_backend_supports(s, &t->dt, reason, sizeof reason)) {
        snprintf(why, why_size, "%s: %.200s", s->impl->name, reason);
        return FPD_ERR_UNAVAILABLE;
    }
    if (t->route != FPD_ROUTE_GEMM && !(s->impl->features & FPD_FEAT_ROUTES)) {
        snprintf(why, why_size, "%s has no gemv or dot of its own (only a BLAS library's backend has)", s->impl->name);
        return FPD_ERR_INPUT;
    }
    if (t->route != FPD_ROUTE_GEMM &&
        !(t->dt.in == t->dt.out && t->dt.out == t->dt.acc && (t->dt.acc == FPD_F32 || t->dt.acc == FPD_F64))) {
        snprintf(why, why_size, "BLAS's gemv and dot take f32 or f64 throughout (--dtype f32 or f64)");
        return FPD_ERR_INPUT;
    }
    if (t->route == FPD_ROUTE_DOT && t->bias) {
        snprintf(why, why_size, "a dot has no fused bias to explain");
        return FPD_ERR_INPUT;
    }
    if (t->bias && !(s->impl->features & FPD_FEAT_FUSED_BIAS)) {
        snprintf(why, why_size, "%s has no fused bias to explain", s->impl->name);
        return FPD_ERR_INPUT;
    }
    int rc = choose_values(p, why, why_size);
    if (rc != FPD_OK)
        return rc;
    double one = ldexp(1, p->one_exp);
    p->lda = t->trans_a ? t->m : t->k;
    p->ldb = t->trans_b ? t->k : t->n;
    p->ldc = t->n;
    p->a = filled(t->dt.in, t->batch * t->m * t->k, 1);
    p->b = filled(t->dt.in, t->batch * t->k * t->n, one);
    p->c = filled(t->dt.out, t->batch * t->m * t->n, 0);
    p->bias = filled(t->dt.out, t->n, one);
    p->columns = malloc(t->n * sizeof *p->columns);
    p->read_row = malloc(t->n * sizeof *p->read_row);
    if (!p->a || !p->b || !p->c || !p->bias || !p->columns || !p->read_row) {
        fpd_probe_close(p);
        snprintf(why, why_size, "out of memory for a %zux%zux%zu probe", t->m, t->n, t->k);
        return FPD_ERR_NOMEM;
    }
    for (size_t j = 0; j < t->n; j++)
        p->columns[j] = j, p->read_row[j] = t->at_row;
    p->usable = t->n;
    return FPD_OK;
}

void fpd_probe_close(struct fpd_probe *p)
{
    free(p->a);
    free(p->b);
    free(p->c);
    free(p->bias);
    free(p->columns);
    free(p->read_row);
    p->a = p->b = p->c = p->bias = NULL;
    p->columns = p->read_row = NULL;
}

/* Term `term` of column j: B[.][term][j] in every batch entry, or the bias. */
static void set_term(struct fpd_probe *p, uint32_t term, size_t j, double value)
{
    const struct fpd_probe_target *t = &p->target;
    if (term == t->k) {
        fpd_store(t->dt.out, p->bias, j, value);
        return;
    }
    for (size_t b = 0; b < t->batch; b++)
        fpd_store(t->dt.in, p->b, b * t->k * t->n + (t->trans_b ? j * p->ldb + term : term * p->ldb + j), value);
}

/* Query i's +M and -M into column columns[i] (on), or its ones back (off). */
static void place(struct fpd_probe *p, const uint32_t *pairs, size_t count, const size_t *columns, bool on)
{
    double big = ldexp(1, p->big_exp), one = ldexp(1, p->one_exp);
    for (size_t i = 0; i < count; i++) {
        set_term(p, pairs[2 * i], columns[i], on ? big : one);
        set_term(p, pairs[2 * i + 1], columns[i], on ? -big : one);
    }
}

/* One GEMM call on the probe's operands, into C. */
static int run(struct fpd_probe *p, char *why, size_t why_size)
{
    const struct fpd_probe_target *t = &p->target;
    memset(p->c, 0xff, t->batch * t->m * t->n * fpd_dtype_info(t->dt.out)->size); /* NaN: unwritten shows */
    struct fpd_gemm_args args = {
        .dt = t->dt, .batch = t->batch, .m = t->m, .n = t->n, .k = t->k,
        .trans_a = t->trans_a, .trans_b = t->trans_b,
        .a = p->a, .lda = p->lda, .stride_a = t->m * t->k,
        .b = p->b, .ldb = p->ldb, .stride_b = t->k * t->n,
        .c = p->c, .ldc = p->ldc, .stride_c = t->m * t->n,
        .bias = t->bias ? p->bias : NULL, .threads = t->threads, .algo = t->algo, .route = t->route,
    };
    p->calls++;
    return fpd_backend_gemm(t->backend, &args, why, why_size);
}

/* The size element (row, col) of batch entry at_batch tells: false when its output is not a count
 * of ones the query can leave. */
static bool size_at(const struct fpd_probe *p, size_t row, size_t col, uint32_t *size)
{
    const struct fpd_probe_target *t = &p->target;
    double count_of_ones = ldexp(fpd_load(t->dt.out, p->c, (t->at_batch * t->m + row) * t->n + col), -p->one_exp);
    if (!(count_of_ones >= 0 && count_of_ones <= p->leaves - 2) || count_of_ones - floor(count_of_ones) > 0)
        return false;
    *size = p->leaves - (uint32_t)count_of_ones;
    return true;
}

/* One GEMM call asking the queries pairs[0..count) in the given columns, each read in its row. */
static int ask(struct fpd_probe *p, const uint32_t *pairs, size_t count, const size_t *columns, uint32_t *sizes,
               char *why, size_t why_size)
{
    place(p, pairs, count, columns, true);
    int rc = run(p, why, why_size);
    place(p, pairs, count, columns, false);
    if (rc != FPD_OK)
        return rc;
    for (size_t i = 0; i < count; i++)
        if (!size_at(p, p->read_row[columns[i]], columns[i], &sizes[i])) {
            snprintf(why, why_size,
                     "terms %u and %u (M = 2^%d, ones 2^%d): the output is not a count of ones from 0 to %u: %s does "
                     "not add these terms as a tree of rounded additions",
                     pairs[2 * i], pairs[2 * i + 1], p->big_exp, p->one_exp, p->leaves - 2,
                     p->target.backend->impl->name);
            return FPD_ERR_BACKEND;
        }
    return FPD_OK;
}

static int query(void *ctx, const uint32_t *pairs, size_t count, bool alone, uint32_t *sizes, char *why,
                 size_t why_size)
{
    struct fpd_probe *p = ctx;
    const size_t at_col = p->target.at_col;
    size_t width = alone ? 1 : p->usable;
    const size_t *columns = alone ? &at_col : p->columns;
    int rc = FPD_OK;
    for (size_t done = 0; rc == FPD_OK && done < count; done += width) { /* alone: read at the element
                                                                           itself, as narrow leaves its column */
        size_t now = count - done < width ? count - done : width;
        rc = ask(p, pairs + 2 * done, now, columns, sizes + done, why, why_size);
    }
    return rc;
}

/* The pairs narrow asks: each of the first, middle and last terms with the terms 1, 2, 4, ... away,
 * and the first with the last. Lanes interleaved in k, blocks of k summed apart and a bias added
 * first or last answer them differently from a plain sequential sum. */
enum { FINGERPRINTS_MAX = 24 };
static size_t fingerprint_pairs(uint32_t leaves, uint32_t *pairs)
{
    size_t count = 0;
    const uint32_t anchors[] = {0, leaves / 2, leaves - 1};
    if (leaves >= 2)
        pairs[2 * count] = 0, pairs[2 * count + 1] = leaves - 1, count++;
    for (uint32_t d = 1; d < leaves && count < FINGERPRINTS_MAX; d *= 2)
        for (size_t a = 0; a < sizeof anchors / sizeof anchors[0] && count < FINGERPRINTS_MAX; a++) {
            uint32_t x = anchors[a], y = x + d < leaves ? x + d : x >= d ? x - d : x;
            if (y == x)
                continue;
            pairs[2 * count] = x < y ? x : y, pairs[2 * count + 1] = x < y ? y : x;
            count++;
        }
    return count;
}

/*
 * The oracle's narrow: asks each fingerprint pair in every column at once (one call each; every
 * element answers it), keeps the elements that answered all as the explained one did, and reads
 * each column's batched query in such an element's row; columns without one are left out. An
 * OpenBLAS sgemm on Haswell or Zen kernels sums a 4-row block's elements in 2 interleaved lanes
 * and most of a 12-row block's sequentially: at row 0 of a 16x64 output only 16 of 64 columns are
 * summed as element (0, 0). verify()'s pairs asked alone still check the tree.
 */
static int narrow(void *ctx, bool *narrowed, char *why, size_t why_size)
{
    struct fpd_probe *p = ctx;
    const struct fpd_probe_target *t = &p->target;
    *narrowed = false;
    if (t->n < 2 || p->fingerprints > 0)
        return FPD_OK;
    bool *same = malloc(t->m * t->n * sizeof *same);
    size_t *all = malloc(t->n * sizeof *all);
    if (!same || !all) {
        free(same), free(all);
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    for (size_t e = 0; e < t->m * t->n; e++)
        same[e] = true;
    for (size_t j = 0; j < t->n; j++)
        all[j] = j;
    uint32_t pairs[2 * FINGERPRINTS_MAX], *repeated = malloc(2 * t->n * sizeof *repeated);
    size_t count = fingerprint_pairs(p->leaves, pairs);
    int rc = repeated ? FPD_OK : FPD_ERR_NOMEM;
    bool told = true; /* every pair's answer at the explained element is a count */
    for (size_t f = 0; rc == FPD_OK && told && f < count; f++) {
        for (size_t j = 0; j < t->n; j++)
            repeated[2 * j] = pairs[2 * f], repeated[2 * j + 1] = pairs[2 * f + 1];
        place(p, repeated, t->n, all, true);
        rc = run(p, why, why_size);
        place(p, repeated, t->n, all, false);
        uint32_t want, got;
        told = rc != FPD_OK || size_at(p, t->at_row, t->at_col, &want);
        for (size_t i = 0; rc == FPD_OK && told && i < t->m; i++)
            for (size_t j = 0; j < t->n; j++)
                same[i * t->n + j] = same[i * t->n + j] && size_at(p, i, j, &got) && got == want;
    }
    if (rc == FPD_OK && told) { /* else nothing is narrowed: the queries are redone alone, which says why */
        p->fingerprints = count;
        p->usable = 0;
        for (size_t j = 0; j < t->n; j++) {
            size_t row = same[t->at_row * t->n + j] ? t->at_row : SIZE_MAX;
            for (size_t i = 0; row == SIZE_MAX && i < t->m; i++)
                row = same[i * t->n + j] ? i : SIZE_MAX;
            p->read_row[j] = row == SIZE_MAX ? t->at_row : row;
            if (row != SIZE_MAX)
                p->columns[p->usable++] = j;
        }
        *narrowed = p->usable > 1;
    }
    if (rc == FPD_ERR_NOMEM)
        snprintf(why, why_size, "out of memory");
    free(same), free(all), free(repeated);
    return rc;
}

struct fpd_reveal_oracle fpd_probe_oracle(struct fpd_probe *p) { return (struct fpd_reveal_oracle){query, p, narrow}; }
