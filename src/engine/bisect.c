/* bisect.c — probing one dimension of a case: bisection and scans. */
#include "engine/bisect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

const char *const fpd_dim_names[FPD_DIM_COUNT] = {"batch", "m", "n", "k"};

int fpd_dim_parse(const char *name, enum fpd_bisect_dim *out)
{
    for (int d = 0; d < FPD_DIM_COUNT; d++)
        if (strcmp(name, fpd_dim_names[d]) == 0) {
            *out = (enum fpd_bisect_dim)d;
            return FPD_OK;
        }
    return FPD_ERR_INPUT;
}

static uint32_t *dim_field(struct fpd_case *c, enum fpd_bisect_dim d)
{
    uint32_t *fields[FPD_DIM_COUNT] = {&c->batch, &c->m, &c->n, &c->k};
    return fields[d];
}

static const struct fpd_range *region_extent(const struct fpd_region *r, enum fpd_bisect_dim d)
{
    return d == FPD_DIM_BATCH ? &r->batch : d == FPD_DIM_M ? &r->rows : &r->cols;
}

/* XXH3 of path A's compared output, restricted along the varied dimension to the shared prefix:
 * the checker's digest, so it is computed where the output is (in the child with --isolate). */
static uint64_t shared_hash(void *ctx, const struct fpd_checker *ck, const struct fpd_check_result *res)
{
    const struct fpd_bisector *b = ctx;
    const struct fpd_region *r = &res->paths.compare;
    struct fpd_comparison shared = {b->base.c.dt.out, r->batch.len, r->rows.len, r->cols.len, ck->compared[0],
                                     ck->compared[0]};
    size_t *kept[FPD_DIM_COUNT] = {&shared.batch, &shared.rows, &shared.cols, NULL};
    if (kept[b->dim])
        *kept[b->dim] = b->shared;
    uint64_t h;
    return fpd_compare_hash(&shared, &shared.a, &h) == FPD_OK ? h : 0;
}

/* The case at value v of the varied dimension, as the relation runs it (a square C's n follows m). */
static void set_dim(const struct fpd_bisector *b, struct fpd_case *c, uint32_t v)
{
    *dim_field(c, b->dim) = v;
    fpd_relation_prepare_case(b->base.relation, c);
}

int fpd_bisect_init(struct fpd_bisector *b, uint32_t lo, uint32_t hi, char *why, size_t why_size)
{
    b->probes = 0;
    b->seen_count = 0; /* a new bisection: none of its values is probed yet */
    if (b->base.c.data == &b->data) { /* an earlier bisection's inputs: this one captures its own */
        b->base.c.data = NULL;
        fpd_case_data_free(&b->data);
    }
    b->data = (struct fpd_case_data){0};
    if (b->by == FPD_BY_HASH && b->dim == FPD_DIM_K) {
        snprintf(why, why_size, "--by hash compares the output that neighbouring shapes share; varying k changes "
                                "every output element, so use --by verdict for k");
        return FPD_ERR_INPUT;
    }
    if (b->base.relation->square_out && (b->dim == FPD_DIM_N || b->by == FPD_BY_HASH)) {
        snprintf(why, why_size, "%s's C is square, its n following m: %s", b->base.relation->name,
                 b->dim == FPD_DIM_N ? "vary m instead of n" : "every probe's columns change with m, so use --by verdict");
        return FPD_ERR_INPUT;
    }
    if (b->dim != FPD_DIM_K) {
        struct fpd_case c = b->base.c;
        set_dim(b, &c, lo);
        struct fpd_paths paths;
        fpd_relation_build(b->base.relation, &c, &b->base.params, &paths);
        b->shared = region_extent(&paths.compare, b->dim)->len;
    }
    if (b->by == FPD_BY_HASH) {
        b->ck->digest = shared_hash;
        b->ck->digest_ctx = b;
    }
    if (!b->base.c.data) {
        struct fpd_case largest = b->base.c;
        set_dim(b, &largest, hi);
        if (fpd_case_bytes(&largest) <= b->max_mem / 4) {
            if (fpd_case_data_capture(&largest, &b->data) != FPD_OK)
                return FPD_ERR_NOMEM;
            b->base.c.data = &b->data;
        }
    }
    return FPD_OK;
}

void fpd_bisect_free(struct fpd_bisector *b)
{
    if (b->base.c.data == &b->data)
        b->base.c.data = NULL;
    fpd_case_data_free(&b->data);
    free(b->seen);
    b->seen = NULL;
    b->seen_count = b->seen_cap = 0;
}

/* Explicit inputs cover the shapes up to their extents, and no further. */
static bool data_covers(const struct fpd_case *c, char *why, size_t why_size)
{
    const struct fpd_case_data *d = c->data;
    if (!d || (c->batch <= d->batch && c->m <= d->m && c->n <= d->n && c->k <= d->k))
        return true;
    snprintf(why, why_size, "the case's explicit inputs cover at most %ux%ux%ux%u", d->batch, d->m, d->n, d->k);
    return false;
}

int fpd_bisect_probe(struct fpd_bisector *b, uint32_t value, struct fpd_shape_probe *out)
{
    for (size_t i = 0; i < b->seen_count; i++)
        if (b->seen[i].value == value) {
            *out = b->seen[i];
            return FPD_OK;
        }
    *out = (struct fpd_shape_probe){.value = value};
    struct fpd_check chk = b->base;
    set_dim(b, &chk.c, value);
    char why[256];
    if (!data_covers(&chk.c, why, sizeof why) || fpd_case_validate(&chk.c, b->max_mem, why, sizeof why) != FPD_OK ||
        fpd_relation_check_params(chk.relation, &chk.c, &chk.params, why, sizeof why) != FPD_OK) {
        snprintf(out->skip_reason, sizeof out->skip_reason, "%s", why);
    } else {
        struct fpd_check_result res;
        if (b->on_start && !b->ck->isolate)
            b->on_start(b->ctx, value);
        int rc = fpd_check_run(b->ck, &chk, &res);
        if (rc != FPD_OK)
            return rc;
        b->probes++;
        if (res.verdict == FPD_ERROR && res.failed_path >= 0) { /* a backend that refused or failed it: skipped */
            snprintf(out->skip_reason, sizeof out->skip_reason, "%s", res.error);
        } else { /* a check whose process died (a crash, a hang past --timeout) is an outcome like any */
            out->tested = true;
            out->verdict = res.verdict;
            out->metrics = res.metrics;
            out->key = b->by == FPD_BY_HASH ? (res.verdict == FPD_ERROR ? FPD_PROBE_ERROR_KEY : res.digest)
                                            : (uint64_t)res.verdict;
            if (res.verdict == FPD_ERROR)
                snprintf(out->skip_reason, sizeof out->skip_reason, "%s", res.error);
        }
    }
    if (!FPD_ARRAY_RESERVE(b->seen, b->seen_cap, b->seen_count + 1))
        return FPD_ERR_NOMEM;
    b->seen[b->seen_count++] = *out;
    if (b->on_probe)
        b->on_probe(b->ctx, out);
    return FPD_OK;
}

int fpd_bisect_verdict_with(struct fpd_bisector *b, uint32_t value, enum fpd_exact_mode exact, enum fpd_verdict *out)
{
    struct fpd_check chk = b->base;
    set_dim(b, &chk.c, value);
    chk.exact = exact;
    struct fpd_check_result res;
    int rc = fpd_check_run(b->ck, &chk, &res);
    *out = res.verdict;
    return rc;
}

/* The i-th distance tried from a value that cannot be tested: each one up to NEAR, then doubling.
 * An untestable value is mostly one of a stretch (shapes over the memory budget, or under what a
 * relation's parameters need): the doubling crosses the longest stretch in about 30 probes where
 * stepping one by one would take billions. */
enum { NEAR = 16 };
static uint64_t skip_distance(unsigned i)
{
    return i <= NEAR ? i : (uint64_t)NEAR << (i - NEAR);
}

/* The testable value nearest `mid` strictly between lo and hi, probed out from it on both sides at
 * skip_distance's steps (the last one on a side the value next to its end), then back toward mid past
 * the step that found one: an untestable stretch (a crash, a refusal) ends where its last value does,
 * not where a doubling landed. *found false when no value probed could be tested. */
static int nearest_testable(struct fpd_bisector *b, uint32_t lo, uint32_t hi, uint32_t mid, struct fpd_shape_probe *p,
                            uint32_t *skipped, bool *found)
{
    *found = false;
    const uint64_t reach[2] = {(uint64_t)hi - 1 - mid, (uint64_t)mid - 1 - lo}; /* out to hi - 1, down to lo + 1 */
    uint64_t untested[2] = {0, 0};
    bool done[2] = {reach[0] == 0, reach[1] == 0};
#define AT(side, d) ((uint32_t)((side) == 0 ? mid + (d) : mid - (d)))
    for (unsigned i = 1; !done[0] || !done[1]; i++)
        for (int side = 0; side < 2; side++) {
            if (done[side])
                continue;
            uint64_t d = skip_distance(i) < reach[side] ? skip_distance(i) : reach[side];
            done[side] = d == reach[side];
            int rc = fpd_bisect_probe(b, AT(side, d), p);
            if (rc != FPD_OK)
                return rc;
            if (!p->tested) {
                untested[side] = d;
                (*skipped)++;
                continue;
            }
            struct fpd_shape_probe best = *p;
            for (uint64_t tested = d; tested - untested[side] > 1;) {
                uint64_t back = untested[side] + (tested - untested[side]) / 2;
                if ((rc = fpd_bisect_probe(b, AT(side, back), p)) != FPD_OK)
                    return rc;
                if (p->tested)
                    tested = back, best = *p;
                else
                    untested[side] = back, (*skipped)++;
            }
            *p = best;
            *found = true;
            return FPD_OK;
        }
#undef AT
    return FPD_OK;
}

int fpd_bisect_testable_end(struct fpd_bisector *b, uint32_t v, uint32_t toward, struct fpd_shape_probe *p,
                            struct fpd_shape_probe *first)
{
    uint64_t span = v < toward ? toward - v : v - toward, untested = 0, tested = 0;
    struct fpd_shape_probe best = {0};
#define AT(d) ((uint32_t)(v < toward ? v + (d) : v - (d)))
    for (unsigned i = 0;; i++) { /* out until a value can be tested */
        uint64_t d = skip_distance(i) < span ? skip_distance(i) : span;
        int rc = fpd_bisect_probe(b, AT(d), p);
        if (rc != FPD_OK)
            return rc;
        if (i == 0)
            *first = *p;
        if (p->tested) {
            tested = d, best = *p;
            break;
        }
        untested = d;
        if (d == span)
            return FPD_OK; /* p->tested false: none can */
    }
    while (tested - untested > 1) { /* back toward v, for the nearest (past a doubling) */
        uint64_t d = untested + (tested - untested) / 2;
        int rc = fpd_bisect_probe(b, AT(d), p);
        if (rc != FPD_OK)
            return rc;
        if (p->tested)
            tested = d, best = *p;
        else
            untested = d;
    }
#undef AT
    *p = best;
    return FPD_OK;
}

int fpd_bisect_find(struct fpd_bisector *b, const struct fpd_shape_probe *lo, const struct fpd_shape_probe *hi,
                    struct fpd_boundary *out)
{
    *out = (struct fpd_boundary){.before = *lo, .after = *hi};
    while (out->after.value - out->before.value > 1) {
        uint32_t mid = out->before.value + (out->after.value - out->before.value) / 2;
        struct fpd_shape_probe p;
        int rc = fpd_bisect_probe(b, mid, &p);
        if (rc != FPD_OK)
            return rc;
        if (!p.tested) {
            out->skipped++;
            bool found;
            rc = nearest_testable(b, out->before.value, out->after.value, mid, &p, &out->skipped, &found);
            if (rc != FPD_OK)
                return rc;
            if (!found)
                break; /* only untestable values are left between the two */
        }
        if (p.key == out->before.key)
            out->before = p;
        else
            out->after = p;
    }
    return FPD_OK;
}

static int by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Values of [lo, hi] away from the aligned ones, spread by the golden ratio's sequence: a fault on a
 * residue (k % 4 == 2) or past a block that is no power or tile multiple shows in some of them. */
enum { SCATTERED = 32 };

/* Boundary-prone values in [lo, hi]: the ends, powers of two and their neighbours, and multiples
 * of common tile sizes (for each tile size only while there are at most 64 multiples in range), and
 * SCATTERED others. */
static size_t scan_candidates(uint32_t lo, uint32_t hi, uint32_t **out)
{
    *out = NULL;
    static const uint32_t tiles[] = {8, 16, 32, 64, 128, 256};
    size_t cap = 2 + 3 * 33 + 64 * (sizeof tiles / sizeof tiles[0]) + SCATTERED, n = 0;
    uint32_t *v = malloc(cap * sizeof *v);
    if (!v)
        return 0;
    *out = v;
    v[n++] = lo, v[n++] = hi;
    for (uint64_t p = 1; p <= hi + 1ull; p *= 2)
        for (int64_t d = -1; d <= 1; d++)
            if ((int64_t)p + d >= lo && (int64_t)p + d <= hi)
                v[n++] = (uint32_t)(p + d);
    for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
        if ((hi - lo) / tiles[t] <= 64)
            for (uint64_t x = (lo + tiles[t] - 1) / tiles[t] * (uint64_t)tiles[t]; x <= hi; x += tiles[t])
                v[n++] = (uint32_t)x;
    double spot = 0;
    for (int i = 0; i < SCATTERED; i++) {
        spot += 0.6180339887498949;
        spot -= (int)spot;
        v[n++] = lo + (uint32_t)(spot * (double)(hi - lo));
    }
    qsort(v, n, sizeof *v, by_value);
    size_t unique = 0;
    for (size_t i = 0; i < n; i++)
        if (unique == 0 || v[unique - 1] != v[i])
            v[unique++] = v[i];
    return unique;
}

int fpd_bisect_scan(struct fpd_bisector *b, uint32_t lo, uint32_t hi, struct fpd_boundary **out, size_t *count)
{
    uint32_t *values;
    size_t n = scan_candidates(lo, hi, &values);
    struct fpd_shape_probe *probes = calloc(n ? n : 1, sizeof *probes);
    struct fpd_boundary *found = NULL;
    size_t tested = 0, nfound = 0, cap = 0;
    int rc = n && probes ? FPD_OK : FPD_ERR_NOMEM;
    for (size_t i = 0; rc == FPD_OK && i < n; i++) {
        rc = fpd_bisect_probe(b, values[i], &probes[tested]);
        if (rc == FPD_OK && probes[tested].tested)
            tested++;
    }
    /* between two samples that differ, every change: a boundary whose after is not the next sample's
     * outcome is followed by another, between it and that sample */
    for (size_t i = 0; rc == FPD_OK && i + 1 < tested; i++)
        for (struct fpd_shape_probe from = probes[i]; rc == FPD_OK && from.key != probes[i + 1].key;) {
            if (!FPD_ARRAY_RESERVE(found, cap, nfound + 1)) {
                rc = FPD_ERR_NOMEM;
                break;
            }
            rc = fpd_bisect_find(b, &from, &probes[i + 1], &found[nfound]);
            from = found[nfound++].after;
        }
    free(values);
    free(probes);
    if (rc != FPD_OK) {
        free(found);
        return rc;
    }
    *out = found;
    *count = nfound;
    return FPD_OK;
}
