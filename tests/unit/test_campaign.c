/*
 * The campaign planner under a memory budget: a case too large is shrunk into it, only in its
 * shape and never below what its relation needs; one that cannot fit even then is planned all the
 * same and said to be over the budget, so that fuzz skips it.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/builtin.h"
#include "engine/campaign.h"
#include "engine/case.h"
#include "engine/relation.h"

#define CHECKS 3000

/* Every relation of the default campaign on `seq`, f32 and bf16 inputs, every distribution. */
static void prepare(struct fpd_campaign *cp, double max_mem, uint32_t max_dim)
{
    struct fpd_campaign_config cfg = {.generator = FPD_GEN_VERSION, .seed = 7, .max_dim = max_dim,
                                      .max_mem = max_mem, .max_threads = 2, .exact = FPD_EXACT_NEVER, .jobs = 1};
    for (size_t i = 0; i < fpd_relation_count; i++)
        if (fpd_relation_table[i].default_campaign)
            cfg.relations[cfg.n_relations++] = &fpd_relation_table[i];
    fpd_registry_init();
    cfg.backends[cfg.n_backends++] = fpd_registry_find("seq");
    cr_assert(cfg.backends[0]);
    char why[256];
    cr_assert(fpd_dtypes_parse("f32", &cfg.dtypes[cfg.n_dtypes++], why, sizeof why) == FPD_OK, "%s", why);
    cr_assert(fpd_dtypes_parse("bf16", &cfg.dtypes[cfg.n_dtypes++], why, sizeof why) == FPD_OK, "%s", why);
    for (int d = 0; d < FPD_DIST_COUNT; d++)
        cfg.dists[cfg.n_dists++] = (enum fpd_dist)d;
    cr_assert(fpd_campaign_prepare(cp, &cfg, why, sizeof why) == FPD_OK, "%s", why);
}

/* m, n and k at or above what the relation needs (k = 0, the empty product, where it takes one),
 * and, where `floor`, none of them halvable. */
static void assert_dims(const struct fpd_check *chk, uint32_t index, bool floor)
{
    const uint32_t extents[] = {chk->c.m, chk->c.n, chk->c.k};
    static const enum fpd_slice_dim dims[] = {FPD_SLICE_ROWS, FPD_SLICE_COLS, FPD_SLICE_NONE};
    for (int d = 0; d < 3; d++) {
        uint32_t at = extents[d], least = fpd_relation_min_dim(chk->relation, dims[d]);
        if (d == 2 && at == 0 && !chk->relation->needs_terms)
            continue;
        cr_assert(at >= least, "index %u (%s): dimension %d is %u, below %u", index, chk->relation->name, d, at, least);
        cr_assert(!floor || at / 2 < least, "index %u (%s): over the budget, yet dimension %d (%u) could halve",
                  index, chk->relation->name, d, at);
    }
    uint32_t batch_least = fpd_relation_min_dim(chk->relation, FPD_SLICE_BATCH);
    cr_assert(chk->c.batch >= batch_least, "index %u: batch %u below %u", index, chk->c.batch, batch_least);
}

/* The same check planned under an ample budget and under a tight one: only m, n and k may differ. */
static void assert_only_shape_differs(const struct fpd_check *ample, const struct fpd_check *tight, uint32_t index)
{
    const struct fpd_case *a = &ample->c, *t = &tight->c;
    cr_assert(t->m <= a->m && t->n <= a->n && t->k <= a->k, "index %u: the budget grew a dimension", index);
    cr_assert(ample->relation == tight->relation && ample->backends[0] == tight->backends[0],
              "index %u: another relation or backend", index);
    cr_assert(a->batch == t->batch && a->trans_a == t->trans_a && a->trans_b == t->trans_b &&
                  a->has_bias == t->has_bias && a->pad == t->pad,
              "index %u: the budget changed the batch or the layout", index);
    cr_assert(a->dt.in == t->dt.in && a->dt.out == t->dt.out && a->dt.acc == t->dt.acc, "index %u: other dtypes",
              index);
    cr_assert(a->recipe.seed == t->recipe.seed && a->recipe.index == t->recipe.index &&
                  a->recipe.dist == t->recipe.dist && a->recipe.generator == t->recipe.generator,
              "index %u: other data", index);
}

Test(campaign, a_binding_budget_shrinks_the_shape_alone)
{
    struct fpd_campaign ample, tight;
    prepare(&ample, 0x1p60, 512);
    double budget = 256 * 1024;
    prepare(&tight, budget, 512);
    size_t shrunk = 0;
    for (uint32_t i = 0; i < CHECKS; i++) {
        struct fpd_check a, t;
        cr_assert(fpd_campaign_plan(&ample, i, &a) == FPD_OK);
        cr_assert(fpd_campaign_plan(&tight, i, &t) == FPD_OK, "index %u: a 256 KiB budget holds every relation", i);
        cr_assert(fpd_case_bytes(&t.c) <= budget, "index %u: %g bytes over the budget", i, fpd_case_bytes(&t.c));
        assert_dims(&t, i, false);
        assert_only_shape_differs(&a, &t, i);
        shrunk += fpd_case_bytes(&a.c) > budget;
    }
    cr_assert(shrunk > CHECKS / 10, "only %zu of %d plans needed shrinking: the test tests little", shrunk, CHECKS);
    fpd_campaign_free(&ample);
    fpd_campaign_free(&tight);
}

Test(campaign, a_case_that_cannot_fit_is_said_to_be_over_the_budget)
{
    struct fpd_campaign cp;
    double budget = 1024;
    prepare(&cp, budget, 512);
    size_t over = 0, fits = 0;
    for (uint32_t i = 0; i < CHECKS; i++) {
        struct fpd_check chk;
        int rc = fpd_campaign_plan(&cp, i, &chk);
        char why[256] = "";
        int valid = fpd_case_validate(&chk.c, budget, why, sizeof why);
        if (rc == FPD_OK) {
            fits++;
            cr_assert(valid == FPD_OK, "index %u: planned as fitting, yet %s", i, why);
            assert_dims(&chk, i, false);
            continue;
        }
        over++;
        cr_assert(rc == FPD_ERR_INPUT, "index %u: %d", i, rc);
        cr_assert(valid == FPD_ERR_INPUT && strstr(why, "over the --max-mem budget of 1 KiB"), "index %u: \"%s\"", i,
                  why);
        assert_dims(&chk, i, true);
    }
    cr_assert(over > 0 && fits > 0, "%zu over the budget, %zu fitting: both kinds should occur", over, fits);
    fpd_campaign_free(&cp);
}

/* The empty product, k = 0: one case in FPD_EMPTY_K_EVERY, of any relation that takes one (not BLAS's
 * gemv, whose empty x returns at once), its other dimensions as drawn. */
Test(campaign, the_empty_product_is_drawn_where_its_relation_takes_one)
{
    struct fpd_campaign cp;
    prepare(&cp, 0x1p60, 64);
    size_t empty = 0;
    for (uint32_t i = 0; i < CHECKS; i++) {
        struct fpd_check chk;
        cr_assert(fpd_campaign_plan(&cp, i, &chk) == FPD_OK);
        if (chk.c.k != 0)
            continue;
        empty++;
        cr_expect(!chk.relation->needs_terms, "index %u: %s, which takes no k = 0", i, chk.relation->name);
        cr_expect(chk.c.m >= 1 && chk.c.n >= 1 && chk.c.batch >= 1, "index %u: %ux%ux%u", i, chk.c.batch, chk.c.m,
                  chk.c.n);
    }
    /* 3000 / 64 = 47 expected, of which the gemv relations' few are not drawn */
    cr_expect(empty >= 20 && empty <= 80, "%zu empty products in %d plans", empty, CHECKS);
    fpd_campaign_free(&cp);
}

/* A sum of one term, k = 1 (a library's rank-1 path), is drawn for every relation that does not
 * split k: a planner that took FPD_SLICE_NONE, k's dimension, for the sliced one drew k >= 2 on every
 * relation that slices nothing. */
Test(campaign, one_term_sums_are_drawn_for_every_relation)
{
    struct fpd_campaign cp;
    prepare(&cp, 0x1p60, 64);
    size_t one_term[64] = {0}, planned[64] = {0};
    cr_assert(fpd_relation_count <= 64);
    for (uint32_t i = 0; i < 4 * CHECKS; i++) {
        struct fpd_check chk;
        cr_assert(fpd_campaign_plan(&cp, i, &chk) == FPD_OK);
        size_t r = (size_t)(chk.relation - fpd_relation_table);
        planned[r]++;
        one_term[r] += chk.c.k == 1;
    }
    for (size_t r = 0; r < fpd_relation_count; r++)
        if (planned[r] >= 200)
            cr_expect(one_term[r] > 0, "%s: k = 1 in none of %zu plans", fpd_relation_table[r].name, planned[r]);
    fpd_campaign_free(&cp);
}

/* Drawn special values thin out past k = FPD_SPECIALS_FULL_K, so that a long sum meets about as many
 * as one of that length (at the full rate every sum of 2^21 terms is NaN, on every path alike). */
Test(campaign, drawn_special_values_thin_out_on_long_sums)
{
    struct fpd_campaign cp;
    prepare(&cp, 0x1p60, 256);
    cp.cfg.special_rate = FPD_SPECIALS_DRAWN, cp.cfg.reach = true;
    size_t long_ones = 0, short_ones = 0;
    for (uint32_t i = 0; i < 8 * CHECKS; i++) {
        struct fpd_check chk;
        if (fpd_campaign_plan(&cp, i, &chk) != FPD_OK || !(chk.c.recipe.special_rate > 0))
            continue;
        double want = chk.c.k > FPD_SPECIALS_FULL_K ? FPD_DRAWN_SPECIAL_RATE * FPD_SPECIALS_FULL_K / chk.c.k
                                                    : FPD_DRAWN_SPECIAL_RATE;
        cr_expect(fabs(chk.c.recipe.special_rate - want) <= 1e-15 * want, "index %u, k = %u: rate %g, want %g", i,
                  chk.c.k, chk.c.recipe.special_rate, want);
        long_ones += chk.c.k > 4096, short_ones += chk.c.k <= FPD_SPECIALS_FULL_K;
    }
    cr_expect(long_ones > 0 && short_ones > 0, "%zu long sums and %zu short ones with special values", long_ones,
              short_ones);
    fpd_campaign_free(&cp);
}

/* An empty row is still handed to BLAS with a leading dimension of at least 1, as it asks (the
 * reference BLAS refuses lda = 0 and exits), padded or not, whichever operand is transposed. */
Test(campaign, the_empty_product_has_leading_dimensions_of_at_least_1)
{
    for (int t = 0; t < 4; t++)
        for (uint32_t pad = 0; pad < 3; pad++) {
            struct fpd_case c;
            fpd_case_defaults(&c);
            c.m = 3, c.n = 5, c.k = 0, c.trans_a = t & 1, c.trans_b = t & 2, c.pad = pad;
            struct fpd_layout l = fpd_case_layout(&c);
            cr_expect_eq(l.lda, (c.trans_a ? c.m : 1) + pad, "trans %d pad %u: lda %zu", t, pad, (size_t)l.lda);
            cr_expect_eq(l.ldb, (c.trans_b ? 1 : c.n) + pad, "trans %d pad %u: ldb %zu", t, pad, (size_t)l.ldb);
            /* no element of an empty operand: its stored rows hold nothing of it */
            cr_expect_eq((size_t)l.a_rows * (size_t)l.a_cols, 0);
            cr_expect_eq((size_t)l.b_rows * (size_t)l.b_cols, 0);
        }
}
