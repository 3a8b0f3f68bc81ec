/* Metrics and verdict classification on hand-built outputs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/dtype.h"
#include "engine/compare.h"
#include "gen/rng.h"

static struct fpd_bound_model f32_model(size_t k)
{
    struct fpd_bound_model bm;
    struct fpd_dtypes dt = {FPD_F32, FPD_F32, FPD_F32};
    fpd_bound_model_init(&bm, &dt, k, false, 0);
    return bm;
}

/* The source of one packed entry's g. */
static const double *whole_g(void *ctx, size_t entry)
{
    cr_assert_eq(entry, 0);
    return ctx;
}

/* Phase 1's fields of `both` (fpd_compare) are those of `bits` (fpd_compare_bits), but for the
 * class changes the bound admits (threshold crossings, which phase 1 alone counts as mismatches);
 * so is its worst element where a class changed and none was admitted. */
static void expect_phase_1(const struct fpd_metrics *both, const struct fpd_metrics *bits, const char *what)
{
    cr_expect_eq(both->identical, bits->identical, "%s: identical", what);
    cr_expect_eq(both->diff, bits->diff, "%s: diff %zu, phase 1 alone %zu", what, both->diff, bits->diff);
    cr_expect_eq(both->nonfinite_mismatch + both->threshold_crossings, bits->nonfinite_mismatch,
                 "%s: nonfinite mismatches", what);
    cr_expect_eq(bits->threshold_crossings, 0, "%s: phase 1 alone admits no crossing", what);
    cr_expect_eq(both->max_ulp, bits->max_ulp, "%s: max_ulp", what);
    cr_expect(memcmp(&both->max_abs, &bits->max_abs, sizeof bits->max_abs) == 0, "%s: max_abs", what);
    cr_expect(memcmp(&both->max_rel, &bits->max_rel, sizeof bits->max_rel) == 0, "%s: max_rel", what);
    cr_expect_eq(both->bounded, bits->diff > 0, "%s: bounded where something differs", what);
    cr_expect(!bits->bounded && !(bits->ratio > 0), "%s: phase 1 alone takes no ratio", what);
    if (both->nonfinite_mismatch > 0 && both->threshold_crossings == 0)
        cr_expect_eq(both->worst, bits->worst, "%s: worst %zu, phase 1 alone %zu", what, both->worst, bits->worst);
}

/* Both phases and the hashes, as a check has them, on two packed outputs of n elements. */
static void compare_packed(enum fpd_dtype t, const void *a, const void *b, const double *g, size_t n,
                           const struct fpd_bound_model *bm, struct fpd_metrics *m)
{
    struct fpd_comparison x = fpd_comparison_packed(t, a, b, n);
    cr_assert_eq(fpd_compare(&x, &(struct fpd_magnitude_source){whole_g, (void *)g, NULL}, bm, m), FPD_OK);
    cr_assert_eq(fpd_compare_hashes(&x, m), FPD_OK);
    struct fpd_metrics bits;
    fpd_compare_bits(&x, &bits);
    expect_phase_1(m, &bits, fpd_dtype_info(t)->name);
}

static enum fpd_verdict judge(const float *a, const float *b, const double *g, size_t n, struct fpd_metrics *m)
{
    struct fpd_bound_model bm = f32_model(100);
    compare_packed(FPD_F32, a, b, g, n, &bm, m);
    return fpd_classify(m);
}

Test(compare, identical_is_same)
{
    float a[] = {1, -2, 0, 3.5f}, b[] = {1, -2, 0, 3.5f};
    double g[] = {10, 10, 10, 10};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 4, &m), FPD_SAME);
    cr_expect_eq(m.diff, 0);
    cr_expect(m.identical);
    cr_expect_eq(m.hash_a, XXH3_64bits(a, sizeof a));
    cr_expect_eq(m.hash_b, m.hash_a);
    struct fpd_comparison x = fpd_comparison_packed(FPD_F32, a, b, 4);
    fpd_compare_bits(&x, &m);
    cr_expect(m.hash_a == 0 && m.hash_b == 0, "phase 1 leaves them to whoever reads them");
}

Test(compare, differing_outputs_are_hashed_each)
{
    float a[] = {1, -2, 0, 3.5f}, b[] = {1, -2, 0, nextafterf(3.5f, 4)};
    double g[] = {10, 10, 10, 10};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 4, &m), FPD_REORDER);
    cr_expect(!m.identical);
    cr_expect_eq(m.hash_a, XXH3_64bits(a, sizeof a));
    cr_expect_eq(m.hash_b, XXH3_64bits(b, sizeof b));
    struct fpd_comparison x = fpd_comparison_packed(FPD_F32, a, b, 4);
    fpd_compare_bits(&x, &m);
    cr_expect(m.hash_a == 0 && m.hash_b == 0, "phase 1 leaves them to whoever reads them");
}

Test(compare, one_ulp_is_reorder)
{
    float a[] = {1, 2, 3}, b[] = {1, nextafterf(2, 3), 3};
    double g[] = {1, 2, 3};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 3, &m), FPD_REORDER);
    cr_expect_eq(m.diff, 1);
    cr_expect_eq(m.max_ulp, 1);
    cr_expect_eq(m.worst, 1);
    cr_expect(m.ratio > 0 && m.ratio <= 1, "ratio %g", m.ratio);
    cr_expect_neq(m.hash_a, m.hash_b);
}

Test(compare, beyond_the_bound)
{
    /* |a - b| = 0.01 with g = 1 and k = 100: gamma ~ 6e-6, far below */
    float a[] = {1.0f, 5.0f}, b[] = {1.01f, 5.0f};
    double g[] = {1, 5};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 2, &m), FPD_BOUND);
    cr_expect(m.ratio > 100, "ratio %g", m.ratio);
    cr_expect(fabs(m.max_abs - (1.01f - 1.0f)) <= 0);
}

Test(compare, difference_where_every_product_is_zero_is_beyond_any_bound)
{
    float a[] = {0x1p-100f}, b[] = {0};
    double g[] = {0};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 1, &m), FPD_BOUND);
    cr_expect(m.ratio > 1e6, "only u_out |c| and the underflow allowance remain: ratio %g", m.ratio);
}

Test(compare, nan_and_inf_patterns)
{
    float a[] = {NAN, 1, INFINITY}, b[] = {1, 1, INFINITY};
    double g[] = {1, 1, 1};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 3, &m), FPD_NONFINITE);
    cr_expect_eq(m.nonfinite_mismatch, 1);
    cr_expect_eq(m.worst, 0);
    float c[] = {INFINITY}, d[] = {-INFINITY};
    cr_expect_eq(judge(c, d, g, 1, &m), FPD_NONFINITE);
}

Test(compare, nan_payloads_do_not_count)
{
    uint32_t bits_a = 0x7fc00000, bits_b = 0x7fc00001;
    float a[1], b[1];
    memcpy(a, &bits_a, 4);
    memcpy(b, &bits_b, 4);
    double g[] = {1};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 1, &m), FPD_SAME);
    cr_expect_neq(m.hash_a, m.hash_b, "hashes are of the bits, so they differ");
}

Test(compare, signed_zero_is_a_difference_of_zero_size)
{
    float a[] = {0.0f}, b[] = {-0.0f};
    double g[] = {1};
    struct fpd_metrics m;
    cr_expect_eq(judge(a, b, g, 1, &m), FPD_REORDER);
    cr_expect_eq(m.max_ulp, 0);
}

Test(compare, bound_formula)
{
    cr_expect(fabs(fpd_gamma(10, 0x1p-24) - 10 * 0x1p-24 / (1 - 10 * 0x1p-24)) <= 0);
    /* past Tu = 1/2 the bound is (1 + u)^T - 1: finite, about e^2 - 1 for 4096 f16 roundings */
    double g = fpd_gamma(4096, 0x1p-11);
    cr_expect(isfinite(g) && g > 6.3 && g < 6.4, "%g", g);
    cr_expect(fpd_gamma(1025, 0x1p-11) <= fpd_gamma(1024, 0x1p-11) * 1.01, "no jump at the switch");
    struct fpd_bound_model bm = f32_model(1000);
    double b = fpd_bound_element(&bm, 10, 3);
    double textbook = fpd_gamma(1000, 0x1p-24) * 10 + 0x1p-24 * 3;
    cr_expect(b >= textbook && b < textbook * (1 + 1e-9), "bound %a vs %a", b, textbook);
    struct fpd_dtypes dt = {FPD_F16, FPD_F16, FPD_F32};
    fpd_bound_model_init(&bm, &dt, 8, true, 1);
    cr_expect_eq(bm.terms, 9);
    cr_expect(fpd_bound_element(&bm, 1, 1) > 0x1p-11 * 2, "an intermediate f16 rounding must widen the bound");
}

Test(compare, verdict_names)
{
    enum fpd_verdict v;
    cr_expect_eq(fpd_verdict_parse("bound", &v), FPD_OK);
    cr_expect_eq(v, FPD_BOUND);
    cr_expect_eq(fpd_verdict_parse("bogus", &v), FPD_ERR_INPUT);
    cr_expect_lt(FPD_SAME, FPD_REORDER);
    cr_expect_lt(FPD_BOUND, FPD_NONFINITE);
    cr_expect_lt(FPD_NONFINITE, FPD_ERROR);
}

/* The comparison as its definition reads, one element at a time: the reference the chunked,
 * vectorized loops of compare.c must match field for field. */
/* The definition of a threshold crossing (compare.h): ±Inf against a finite value of the same sign,
 * within twice the bound below the overflow threshold, where no partial sum can overflow. Its
 * ratio, or -1 for an element that is none. */
static double crossing_ratio(enum fpd_dtype t, const void *a, const void *b, double g, const struct fpd_bound_model *bm,
                             size_t i)
{
    double va = fpd_load(t, a, i), vb = fpd_load(t, b, i);
    if (!(isinf(va) != isinf(vb) && !isnan(va) && !isnan(vb) && signbit(va) == signbit(vb)))
        return -1;
    double finite = isinf(va) ? fabs(vb) : fabs(va), bound = fpd_bound_element(bm, g, finite);
    double ratio = 0.5 * (fpd_below_overflow(t, finite) / bound);
    double reach = g * (1 + bm->gamma);
    bool may_overflow = !(fpd_below_overflow(bm->acc, reach) > 0) ||
                        (bm->extra_out_roundings > 0 && !(fpd_below_overflow(bm->out, reach) > 0));
    return isfinite(bound) && ratio <= 1 && !may_overflow ? ratio : -1;
}

static void reference_metrics(enum fpd_dtype t, const void *a, const void *b, const double *g, size_t count,
                              const struct fpd_bound_model *bm, struct fpd_metrics *m, size_t *worst_before_ratios)
{
    *m = (struct fpd_metrics){.count = count, .bounded = true};
    bool found = false, found_ratio = false;
    uint64_t worst_ulp = 0;
    size_t class_changed = 0, first_class_change = 0, worst_ulp_at = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t ba = fpd_bits(t, a, i), bb = fpd_bits(t, b, i);
        if (fpd_same_value_bits(t, ba, bb))
            continue;
        m->diff++;
        if (fpd_classify_bits(t, ba) != fpd_classify_bits(t, bb)) {
            if (!class_changed++)
                first_class_change = i; /* phase 1's worst, which admits nothing */
            if (crossing_ratio(t, a, b, g[i], bm, i) >= 0)
                m->threshold_crossings++;
            else if (m->nonfinite_mismatch++ == 0)
                m->worst = i;
            continue;
        }
        double va = fpd_load(t, a, i), vb = fpd_load(t, b, i), diff = fabs(va - vb);
        double scale = fmax(fabs(va), fabs(vb));
        uint64_t ulp = fpd_ulp_distance(t, ba, bb);
        m->max_abs = fmax(m->max_abs, diff);
        if (scale > 0)
            m->max_rel = fmax(m->max_rel, diff / scale);
        if (ulp > m->max_ulp)
            m->max_ulp = ulp;
        if (!found || ulp > worst_ulp)
            worst_ulp_at = i, worst_ulp = ulp, found = true;
        if (m->nonfinite_mismatch == 0 && worst_ulp_at == i)
            m->worst = i;
    }
    *worst_before_ratios = class_changed ? first_class_change : worst_ulp_at;
    size_t worst_by_ratio = m->worst;
    for (size_t i = 0; i < count; i++) {
        uint64_t ba = fpd_bits(t, a, i), bb = fpd_bits(t, b, i);
        double crossing = crossing_ratio(t, a, b, g[i], bm, i), ratio;
        if (crossing >= 0) {
            ratio = crossing;
        } else {
            if (fpd_same_value_bits(t, ba, bb) || fpd_classify_bits(t, ba) != FPD_CLASS_FINITE ||
                fpd_classify_bits(t, bb) != FPD_CLASS_FINITE)
                continue;
            double va = fpd_load(t, a, i), vb = fpd_load(t, b, i);
            double bound = fpd_bound_element(bm, g[i], fmax(fabs(va), fabs(vb)));
            ratio = 0.5 * (fabs(va - vb) / bound); /* halved after: 2 bound may overflow */
            if (!isfinite(bound))
                continue;
        }
        if (!found_ratio || ratio > m->ratio)
            m->ratio = ratio, worst_by_ratio = i, found_ratio = true;
    }
    if (m->nonfinite_mismatch == 0)
        m->worst = worst_by_ratio;
}

Test(compare, chunked_loops_match_the_definition)
{
    /* lengths around the chunk size; values a few ulps apart, in runs, with zeros of both signs,
     * subnormals, Inf, NaN of several payloads and f64 values near the top of the range */
    static const enum fpd_dtype types[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    static const size_t lengths[] = {1, 7, 127, 128, 129, 256, 300, 1000, 4099};
    uint64_t state = 7;
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++)
            for (int round = 0; round < 6; round++) {
                enum fpd_dtype t = types[ti];
                size_t n = lengths[li];
                char *a = calloc(n, 8), *b = calloc(n, 8);
                double *g = calloc(n, sizeof *g);
                cr_assert(a && b && g);
                int special_every = round < 3 ? 0 : 40 + round; /* the first rounds finite only */
                for (size_t i = 0; i < n; i++) {
                    uint64_t r = fpd_rng_mix64(state++);
                    double v = ((double)(r >> 11) * 0x1p-53 - 0.5) * 8;
                    fpd_store(t, a, i, v);
                    uint64_t bits = fpd_bits(t, a, i);
                    bool near_equal = ((r >> 3) & 3) != 0 && ((i / 37) & 1); /* runs that differ */
                    uint64_t bbits = near_equal ? bits + (r & 7) - 3 : bits;
                    if (special_every && r % (uint64_t)special_every == 0) {
                        static const double specials[] = {0.0,       -0.0,       INFINITY,
                                                          -INFINITY, NAN,        0x1p-1074,
                                                          -0x1p-1030, 0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023,
                                                          0x1p-20};
                        fpd_store(t, b, i, specials[(r >> 20) % 10]);
                        if ((r >> 24) & 1)
                            fpd_store(t, a, i, specials[(r >> 28) % 10]);
                        bbits = fpd_bits(t, b, i);
                    }
                    memcpy(b + i * (fpd_bits_width(t) / 8), &bbits, fpd_bits_width(t) / 8);
                    /* magnitudes small, ordinary, and near the top of binary64 (twice the bound overflows) */
                    static const double g_scales[] = {0x1p-30, 1, 1, 0x1p1000};
                    g[i] = fabs(v) * (double)((r >> 40) % 64) * g_scales[(r >> 50) % 4];
                }
                struct fpd_dtypes dt = {t, t, t == FPD_F64 ? FPD_F64 : FPD_F32};
                struct fpd_bound_model bm;
                fpd_bound_model_init(&bm, &dt, 64, false, round & 1);
                struct fpd_metrics want, got;
                size_t want_worst_by_ulps;
                reference_metrics(t, a, b, g, n, &bm, &want, &want_worst_by_ulps);
                struct fpd_comparison x = fpd_comparison_packed(t, a, b, n);
                struct fpd_metrics bits;
                fpd_compare_bits(&x, &bits);
                const char *name = fpd_dtype_info(t)->name;
                if (want.diff > 0)
                    cr_expect_eq(bits.worst, want_worst_by_ulps, "%s n=%zu round %d: worst by ulps", name, n, round);
                cr_assert_eq(fpd_compare(&x, &(struct fpd_magnitude_source){whole_g, g, NULL}, &bm, &got), FPD_OK);
                expect_phase_1(&got, &bits, name);
                cr_expect_eq(got.diff, want.diff, "%s n=%zu round %d: diff", name, n, round);
                cr_expect_eq(got.nonfinite_mismatch, want.nonfinite_mismatch, "%s n=%zu round %d", name, n, round);
                cr_expect_eq(got.max_ulp, want.max_ulp, "%s n=%zu round %d: max_ulp", name, n, round);
                cr_expect(memcmp(&got.max_abs, &want.max_abs, 8) == 0, "%s n=%zu round %d: max_abs %a, want %a", name,
                          n, round, got.max_abs, want.max_abs);
                cr_expect(memcmp(&got.max_rel, &want.max_rel, 8) == 0, "%s n=%zu round %d: max_rel %a, want %a", name,
                          n, round, got.max_rel, want.max_rel);
                if (want.diff > 0) {
                    cr_expect(memcmp(&got.ratio, &want.ratio, 8) == 0, "%s n=%zu round %d: ratio %a, want %a", name, n,
                              round, got.ratio, want.ratio);
                    cr_expect_eq(got.worst, want.worst, "%s n=%zu round %d: worst", name, n, round);
                }
                free(a), free(b), free(g);
            }
}

/* The source of per-entry g for outputs in place: each entry's own, asked in order, once each. */
struct entry_source {
    const double *g; /* packed, entry after entry */
    size_t per_entry, asked;
};

static const double *next_entry_g(void *ctx, size_t entry)
{
    struct entry_source *s = ctx;
    cr_assert_eq(entry, s->asked, "entry %zu asked for after %zu others", entry, s->asked);
    s->asked++;
    return s->g + entry * s->per_entry;
}

/* The first element to reach a maximum is the worst, within a batch entry and across entries:
 * every element is the same pair with the same magnitude, so every ulp distance and ratio ties,
 * across chunks and entries. */
Test(compare, ties_go_to_the_first_element)
{
    enum { BATCH = 4, ROWS = 5, COLS = 50, N = BATCH * ROWS * COLS };
    static float a[N], b[N];
    static double g[N];
    for (size_t i = 0; i < N; i++) {
        a[i] = 1.5f;
        b[i] = nextafterf(1.5f, 2.0f);
        g[i] = 3.0;
    }
    struct fpd_bound_model bm = f32_model(10);
    struct entry_source one_entry = {g, N, 0}, per_entry = {g, ROWS * COLS, 0};
    const struct {
        struct fpd_comparison x;
        struct entry_source *source;
    } ways[] = {
        {fpd_comparison_packed(FPD_F32, a, b, N), &one_entry},
        {{FPD_F32, BATCH, ROWS, COLS, {a, COLS, ROWS * COLS}, {b, COLS, ROWS * COLS}}, &per_entry},
    };
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        struct fpd_metrics m;
        fpd_compare_bits(&ways[w].x, &m);
        cr_expect_eq(m.worst, 0, "batch of %zu, by ulps: %zu", ways[w].x.batch, m.worst);
        struct fpd_magnitude_source source = {next_entry_g, ways[w].source, NULL};
        cr_assert_eq(fpd_compare(&ways[w].x, &source, &bm, &m), FPD_OK);
        cr_expect_eq(m.worst, 0, "batch of %zu, by ratio: %zu", ways[w].x.batch, m.worst);
        cr_expect_eq(m.diff, N);
    }
}

/* Outputs compared where they lie, with row padding and gaps between batch entries that hold
 * different bytes on each side, give what their packed copies give: every metric, the worst
 * element, and both hashes. Rows longer than a chunk, single rows and single columns, entries
 * packed on one side only. */
Test(compare, outputs_in_place_match_their_packed_copies)
{
    static const size_t shapes[][3] = {{1, 1, 1}, {1, 5, 7}, {3, 5, 7}, {2, 1, 300}, {4, 3, 130}, {3, 40, 1}};
    static const size_t pads[][2] = {{0, 0}, {3, 0}, {0, 5}, {2, 9}}; /* row padding of a, of b */
    static const enum fpd_dtype types[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t p = 0; p < sizeof pads / sizeof pads[0]; p++)
            for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
                enum fpd_dtype t = types[ti];
                size_t batch = shapes[s][0], rows = shapes[s][1], cols = shapes[s][2], count = batch * rows * cols;
                size_t es = fpd_dtype_info(t)->size, lda = cols + pads[p][0], ldb = cols + pads[p][1];
                size_t stride_a = rows * lda + pads[p][0], stride_b = rows * ldb; /* a gap after a's entries */
                char *a = malloc(count * es), *b = malloc(count * es);
                char *wide_a = malloc(batch * stride_a * es), *wide_b = malloc(batch * stride_b * es);
                double *g = malloc(count * sizeof *g);
                cr_assert(a && b && wide_a && wide_b && g);
                memset(wide_a, 0x3c, batch * stride_a * es); /* padding: a finite value, another on each side */
                memset(wide_b, 0x41, batch * stride_b * es);
                for (size_t i = 0; i < count; i++) {
                    uint64_t r = fpd_rng_bits64(s * 100 + p * 10 + ti, i);
                    double v = ((double)(r >> 11) * 0x1p-53 - 0.5) * 8;
                    fpd_store(t, a, i, v);
                    fpd_store(t, b, i, (r & 3) == 0 ? v * (1 + (double)((r >> 2) % 9) * 0x1p-10) : v);
                    if ((r >> 8) % 61 == 0)
                        fpd_store(t, b, i, (r >> 16) & 1 ? INFINITY : NAN);
                    g[i] = fabs(v) * (double)((r >> 20) % 5) * 0x1p-3;
                }
                for (size_t e = 0; e < batch; e++)
                    for (size_t i = 0; i < rows; i++) {
                        size_t from = (e * rows + i) * cols;
                        memcpy(wide_a + (e * stride_a + i * lda) * es, a + from * es, cols * es);
                        memcpy(wide_b + (e * stride_b + i * ldb) * es, b + from * es, cols * es);
                    }
                struct fpd_dtypes dt = {t, t, t == FPD_F64 ? FPD_F64 : FPD_F32};
                struct fpd_bound_model bm;
                fpd_bound_model_init(&bm, &dt, 16, false, 0);
                struct fpd_metrics want, got;
                compare_packed(t, a, b, g, count, &bm, &want);
                struct fpd_comparison x = {t, batch, rows, cols, {wide_a, lda, stride_a}, {wide_b, ldb, stride_b}};
                struct entry_source source = {g, rows * cols, 0};
                struct fpd_magnitude_source entries = {next_entry_g, &source, NULL};
                cr_assert_eq(fpd_compare(&x, &entries, &bm, &got), FPD_OK);
                const char *name = fpd_dtype_info(t)->name;
                cr_expect_eq(source.asked, got.identical ? 0 : batch, "%s shape %zu pads %zu: entries asked", name, s,
                             p);
                cr_expect_eq(got.identical, want.identical, "%s shape %zu pads %zu", name, s, p);
                cr_expect_eq(got.diff, want.diff, "%s shape %zu pads %zu: diff", name, s, p);
                cr_expect_eq(got.nonfinite_mismatch, want.nonfinite_mismatch, "%s shape %zu pads %zu", name, s, p);
                cr_expect_eq(got.max_ulp, want.max_ulp, "%s shape %zu pads %zu: max_ulp", name, s, p);
                cr_expect(memcmp(&got.max_abs, &want.max_abs, 8) == 0, "%s shape %zu pads %zu: max_abs", name, s, p);
                cr_expect(memcmp(&got.max_rel, &want.max_rel, 8) == 0, "%s shape %zu pads %zu: max_rel", name, s, p);
                cr_expect(memcmp(&got.ratio, &want.ratio, 8) == 0, "%s shape %zu pads %zu: ratio %a, want %a", name, s,
                          p, got.ratio, want.ratio);
                cr_expect_eq(got.worst, want.worst, "%s shape %zu pads %zu: worst %zu, want %zu", name, s, p, got.worst,
                             want.worst);
                cr_expect_eq(got.worst_bits_a, want.worst_bits_a, "%s shape %zu pads %zu", name, s, p);
                cr_expect_eq(got.worst_bits_b, want.worst_bits_b, "%s shape %zu pads %zu", name, s, p);
                cr_assert_eq(fpd_compare_hashes(&x, &got), FPD_OK);
                cr_assert_eq(fpd_compare_hashes(&(struct fpd_comparison){t, 1, 1, count, {a, count, count},
                                                                        {b, count, count}},
                                                &want),
                             FPD_OK);
                cr_expect_eq(got.hash_a, want.hash_a, "%s shape %zu pads %zu: hash of a", name, s, p);
                cr_expect_eq(got.hash_b, want.hash_b, "%s shape %zu pads %zu: hash of b", name, s, p);
                cr_expect_eq(got.hash_a, XXH3_64bits(a, count * es), "%s shape %zu pads %zu", name, s, p);
                free(a), free(b), free(wide_a), free(wide_b), free(g);
            }
}

static const double *no_g(void *ctx, size_t entry)
{
    (void)ctx, (void)entry;
    return NULL;
}

Test(compare, a_source_without_g_is_out_of_memory)
{
    float a[] = {1, 2}, b[] = {1, 3};
    struct fpd_comparison x = fpd_comparison_packed(FPD_F32, a, b, 2);
    struct fpd_metrics m;
    struct fpd_bound_model bm = f32_model(4);
    cr_expect_eq(fpd_compare(&x, &(struct fpd_magnitude_source){no_g, NULL, NULL}, &bm, &m), FPD_ERR_NOMEM);
}

/* Per-entry g and binary32 sums of the same magnitudes, entry after entry, counting what is asked. */
struct sums_source {
    const double *g;  /* what `entry` gives: the raised sums, or other values where a sum is not finite */
    const float *sum; /* packed, entry after entry */
    const double *abs_bias;
    double underflow, inflate;
    size_t per_entry, g_asked, sums_asked;
};

static const double *g_of_entry(void *ctx, size_t entry)
{
    struct sums_source *s = ctx;
    s->g_asked++;
    return s->g + entry * s->per_entry;
}

static int sums_of_entry(void *ctx, size_t entry, struct fpd_magnitude_sums *out)
{
    struct sums_source *s = ctx;
    s->sums_asked++;
    *out = (struct fpd_magnitude_sums){s->sum + entry * s->per_entry, s->underflow, s->inflate, s->abs_bias};
    return FPD_OK;
}

/* Phase 2 raising binary32 sums itself, a chunk at a time, gives the ratio and worst element that
 * the raised g gives, the bias's column wrapping round within chunks; where a sum is not finite,
 * even in a chunk whose outputs are equal, it takes the entry's g instead. One element differs at
 * a time, so that its ratio is the result: every element's g counts. */
Test(compare, binary32_sums_give_what_their_raised_g_gives)
{
    static const size_t shapes[][4] = {{2, 5, 3, 0}, {1, 40, 7, 0}, {2, 9, 130, 2}, {1, 1, 300, 0}, {3, 7, 1, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int variant = 0; variant < 4; variant++) { /* bit 0: a bias; bit 1: a sum not finite */
            size_t batch = shapes[s][0], rows = shapes[s][1], cols = shapes[s][2], pad = shapes[s][3];
            size_t per_entry = rows * cols, ld = cols + pad, count = batch * per_entry;
            float *a = calloc(batch * rows * ld, sizeof *a), *b = calloc(batch * rows * ld, sizeof *b);
            float *sum = malloc(count * sizeof *sum);
            double *raised = malloc(count * sizeof *raised), *other = malloc(count * sizeof *other);
            double *want_g = malloc(count * sizeof *want_g), *abs_bias = malloc(cols * sizeof *abs_bias);
            for (size_t j = 0; j < cols; j++)
                abs_bias[j] = (double)(fpd_rng_bits64(9, j) % 1000 + 1) * 0x1p-3;
            bool with_bias = variant & 1, nonfinite = variant & 2;
            double underflow = 300 * 0x1p-149, inflate = 1 + fpd_gamma(300, 0x1p-24);
            for (size_t i = 0; i < count; i++) {
                uint64_t r = fpd_rng_bits64(7 + s, i);
                size_t e = i / per_entry, at = (e * rows + i % per_entry / cols) * ld + i % cols;
                a[at] = b[at] = (float)((double)(r >> 11) * 0x1p-53 * 8 - 4);
                sum[i] = fabsf(a[at]) * (float)(r >> 20 & 255) + 0x1p-140f * (float)(r >> 40 & 7);
                raised[i] = ((double)sum[i] + underflow) * inflate + (with_bias ? abs_bias[i % cols] : 0);
                other[i] = raised[i] * 1.5;
                /* what the entries' g gives: the raised sums, or where the last entry has a sum not
                 * finite, `other` */
                want_g[i] = nonfinite && e == batch - 1 ? other[i] : raised[i];
            }
            if (nonfinite)
                sum[count - 1] = INFINITY;
            struct fpd_comparison x = {FPD_F32, batch, rows, cols, {a, ld, rows * ld}, {b, ld, rows * ld}};
            struct fpd_bound_model bm = f32_model(300);
            for (size_t i = 0; i + 1 < count; i++) { /* the last element keeps its chunk's outputs equal */
                size_t at = (i / per_entry * rows + i % per_entry / cols) * ld + i % cols;
                b[at] = nextafterf(a[at], INFINITY);
                struct fpd_metrics want, got;
                struct sums_source g_only = {want_g, NULL, NULL, 0, 0, per_entry, 0, 0};
                cr_assert_eq(fpd_compare(&x, &(struct fpd_magnitude_source){g_of_entry, &g_only, NULL}, &bm, &want),
                             FPD_OK);
                struct sums_source both = {nonfinite ? other : raised, sum, with_bias ? abs_bias : NULL, underflow,
                                           inflate, per_entry, 0, 0};
                cr_assert_eq(
                    fpd_compare(&x, &(struct fpd_magnitude_source){g_of_entry, &both, sums_of_entry}, &bm, &got),
                    FPD_OK);
                /* an entry scanned again on g counts its differences once */
                cr_assert_eq(got.diff, 1, "shape %zu variant %d element %zu: diff %zu", s, variant, i, got.diff);
                cr_assert_eq(got.max_ulp, 1, "shape %zu variant %d element %zu", s, variant, i);
                b[at] = a[at];
                cr_assert_eq(both.sums_asked, batch, "shape %zu variant %d element %zu", s, variant, i);
                cr_assert_eq(both.g_asked, nonfinite ? 1 : 0, "shape %zu variant %d element %zu: g asked %zu times", s,
                             variant, i, both.g_asked);
                cr_assert(memcmp(&got.ratio, &want.ratio, sizeof got.ratio) == 0,
                          "shape %zu variant %d element %zu: ratio %a, want %a", s, variant, i, got.ratio, want.ratio);
                cr_assert_eq(got.worst, want.worst, "shape %zu variant %d element %zu: worst %zu, want %zu", s, variant,
                             i, got.worst, want.worst);
            }
            free(a), free(b), free(sum), free(raised), free(other), free(abs_bias), free(want_g);
        }
}

/* Threshold crossings (compare.h): f16 outputs summed in f32. 65504 against +Inf with g = 65520
 * is one (65504 + 16 reaches the threshold, within twice the bound); so is -65504 against -Inf.
 * Not: a finite value far below it, opposite signs, a NaN, or g beyond f32's range (a partial sum
 * may have overflowed). The worst element is the first class change left. */
Test(compare, class_changes_across_the_overflow_threshold)
{
    static const struct {
        double a, b, g;
        bool crossing;
    } pairs[] = {
        {0x1.ffcp15, INFINITY, 65520, true},  {-INFINITY, -0x1.ffcp15, 65520, true},
        {1000, INFINITY, 65520, false},       {-0x1.ffcp15, INFINITY, 65520, false},
        {0x1.ffcp15, NAN, 65520, false},      {0x1.ffcp15, INFINITY, 0x1p129, false},
    };
    enum { N = sizeof pairs / sizeof pairs[0] };
    for (size_t p = 0; p < N; p++) {
        uint16_t a[3], b[3];
        double g[3] = {1, pairs[p].g, 1};
        for (int i = 0; i < 3; i++)
            a[i] = b[i] = fpd_f16_from_double(1);
        a[1] = fpd_f16_from_double(pairs[p].a), b[1] = fpd_f16_from_double(pairs[p].b);
        struct fpd_dtypes dt = {FPD_F16, FPD_F16, FPD_F32};
        struct fpd_bound_model bm;
        fpd_bound_model_init(&bm, &dt, 6, false, 0);
        struct fpd_metrics m;
        compare_packed(FPD_F16, a, b, g, 3, &bm, &m);
        cr_expect_eq(m.threshold_crossings, pairs[p].crossing ? 1 : 0, "pair %zu", p);
        cr_expect_eq(m.nonfinite_mismatch, pairs[p].crossing ? 0 : 1, "pair %zu", p);
        cr_expect_eq(fpd_classify(&m), pairs[p].crossing ? FPD_REORDER : FPD_NONFINITE, "pair %zu: %s", p,
                     fpd_verdict_table[fpd_classify(&m)].name);
        if (pairs[p].crossing) /* 16 from the threshold, against twice a bound of about 32 (f16's half ulp) */
            cr_expect(m.ratio > 0.1 && m.ratio <= 1, "pair %zu: ratio %g", p, m.ratio);
    }
    /* a crossing first, then a class change that is none: the second is the worst */
    uint16_t a[2] = {fpd_f16_from_double(0x1.ffcp15), fpd_f16_from_double(1)};
    uint16_t b[2] = {fpd_f16_from_double(INFINITY), fpd_f16_from_double(INFINITY)};
    double g[2] = {65520, 65520};
    struct fpd_dtypes dt = {FPD_F16, FPD_F16, FPD_F32};
    struct fpd_bound_model bm;
    fpd_bound_model_init(&bm, &dt, 6, false, 0);
    struct fpd_metrics m;
    compare_packed(FPD_F16, a, b, g, 2, &bm, &m);
    cr_expect(m.threshold_crossings == 1 && m.nonfinite_mismatch == 1, "%zu crossings, %zu mismatches",
              m.threshold_crossings, m.nonfinite_mismatch);
    cr_expect_eq(m.worst, 1, "worst %zu", m.worst);
}
