/* Shapes past a campaign's common draws (reach.h): how often, which families, within each one's
 * limits, and decided by the seed and index alone. */
#include <criterion/criterion.h>

#include "engine/reach.h"

static struct fpd_case drawn(const struct fpd_relation *r, uint64_t seed, uint32_t index, bool *reached,
                             enum fpd_reach_family *family)
{
    struct fpd_case c;
    fpd_case_defaults(&c);
    *reached = fpd_reach_shape(seed, index, r, &c, family);
    return c;
}

Test(reach, one_case_in_64_every_family_each_within_its_limits)
{
    const struct fpd_relation *rel = fpd_relation_find("slice-rows");
    cr_assert_not_null(rel);
    enum { CASES = 64000 };
    unsigned reached = 0, by_family[FPD_REACH_FAMILY_COUNT] = {0};
    unsigned k_residues = 0; /* bit r: some k at a block size was r mod 8 */
    unsigned wide_m = 0, wide_n = 0, wide_both = 0;
    for (uint32_t index = 0; index < CASES; index++) {
        bool hit;
        enum fpd_reach_family f;
        struct fpd_case c = drawn(rel, 5, index, &hit, &f);
        if (!hit)
            continue;
        reached++, by_family[f]++;
        cr_expect_geq(c.m, fpd_relation_min_dim(rel, FPD_SLICE_ROWS), "a slice of rows needs two");
        switch (f) {
        case FPD_REACH_BLOCK_K:
            cr_expect(c.k >= 96 - 8 && c.k <= (1u << 16) + 8 && c.m <= 48 && c.n <= 48, "%ux%ux%u", c.m, c.n, c.k);
            k_residues |= 1u << (c.k % 8);
            break;
        case FPD_REACH_WIDE: /* one of m and n at a panel width, 320 - 8 to 8160 + 8, the other small; or
                                both, to 640 + 8 */
            cr_expect(c.k >= 1 && c.k <= 64, "%ux%ux%u", c.m, c.n, c.k);
            cr_expect((c.m >= 312 && c.m <= 8168 && c.n <= 48) || (c.n >= 312 && c.n <= 8168 && c.m <= 48) ||
                          (c.m >= 312 && c.m <= 648 && c.n >= 312 && c.n <= 648),
                      "%ux%ux%u", c.m, c.n, c.k);
            wide_m += c.m > 48 && c.n <= 48, wide_n += c.n > 48 && c.m <= 48, wide_both += c.m > 48 && c.n > 48;
            break;
        case FPD_REACH_LONG_DOT:
            cr_expect(c.k >= (1u << 22) - 8 && c.k <= (1u << 22) + 8 && c.m == 2 && c.n == 1, "%ux%ux%u", c.m, c.n, c.k);
            break;
        case FPD_REACH_LONG_GEMV:
            cr_expect(c.k >= (1u << 21) - 8 && c.k <= (1u << 21) + 8 && c.m <= 3 && c.n <= 3, "%ux%ux%u", c.m, c.n, c.k);
            break;
        default:
            cr_expect(c.m >= (1u << 21) - 8 && c.m <= (1u << 21) + 8 && c.n <= 2 && c.k <= 8, "%ux%ux%u", c.m, c.n, c.k);
        }
        cr_expect_eq(c.batch, 1);
    }
    /* 1000 expected; 5 standard deviations either way */
    cr_expect(reached > 845 && reached < 1155, "%u of %u cases reached", reached, CASES);
    for (int f = 0; f < FPD_REACH_FAMILY_COUNT; f++)
        cr_expect(by_family[f] > 40, "%s: %u", fpd_reach_family_names[f], by_family[f]);
    cr_expect_eq(k_residues, 0xffu, "k at block sizes reaches every remainder mod 8: %#x", k_residues);
    cr_expect(wide_m > 10 && wide_n > 10 && wide_both > 5, "panel widths in m %u times, in n %u, in both %u", wide_m,
              wide_n, wide_both);
}

Test(reach, decided_by_the_seed_and_index_alone)
{
    const struct fpd_relation *rel = fpd_relation_find("addmm");
    unsigned differ = 0;
    for (uint32_t index = 0; index < 5000; index++) {
        bool hit1, hit2, other;
        enum fpd_reach_family f1, f2, f3;
        struct fpd_case a = drawn(rel, 9, index, &hit1, &f1), b = drawn(rel, 9, index, &hit2, &f2);
        cr_assert_eq(hit1, hit2);
        if (hit1)
            cr_expect(a.m == b.m && a.n == b.n && a.k == b.k && f1 == f2);
        drawn(rel, 10, index, &other, &f3);
        differ += hit1 != other;
    }
    cr_expect_gt(differ, 50, "another seed, other cases reached");
}

/* Where C is square (gemmt, self), m is n: a panel width in both, to 640 + 8, never one of 8,160
 * squared. */
Test(reach, a_square_output_takes_both_widths)
{
    const char *square[] = {"gemmt", "self"};
    for (size_t r = 0; r < 2; r++) {
        const struct fpd_relation *rel = fpd_relation_find(square[r]);
        cr_assert_not_null(rel);
        unsigned wide = 0;
        for (uint32_t index = 0; index < 64000; index++) {
            bool hit;
            enum fpd_reach_family f;
            struct fpd_case c = drawn(rel, 5, index, &hit, &f);
            if (!hit || f != FPD_REACH_WIDE)
                continue;
            fpd_relation_prepare_case(rel, &c);
            cr_expect(c.m == c.n && c.m >= 312 && c.m <= 648, "%s: %ux%ux%u", square[r], c.m, c.n, c.k);
            wide++;
        }
        cr_expect_gt(wide, 100, "%s: %u wide cases", square[r], wide);
    }
}
