/* Philox known answers, the frozen generator stream, and shape independence of the data. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "common/dtype.h"
#include "gen/gen.h"
#include "gen/rng.h"
#include "cpu/vector_width.h"

/* Random123's kat_vectors for philox4x32-10 (counter, key -> output). */
Test(rng, philox_known_answers)
{
    static const uint32_t kat[][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6,
         0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
         0x24126ea1},
    };
    for (size_t i = 0; i < sizeof kat / sizeof kat[0]; i++) {
        uint32_t out[4];
        fpd_philox4x32_10(kat[i], kat[i] + 4, out);
        cr_expect(memcmp(out, kat[i] + 6, sizeof out) == 0, "vector %zu: %08x %08x %08x %08x", i, out[0], out[1],
                  out[2], out[3]);
        /* two blocks side by side: the vector's, in either place, beside another counter's */
        const uint32_t other[4] = {(uint32_t)i, 7, 0xdeadbeef, 3};
        uint32_t other_out[4], pair[2][4];
        fpd_philox4x32_10(other, kat[i] + 4, other_out);
        for (int place = 0; place < 2; place++) {
            uint32_t ctr[2][4];
            memcpy(ctr[place], kat[i], sizeof ctr[0]);
            memcpy(ctr[1 - place], other, sizeof ctr[0]);
            fpd_philox4x32_10_x2(ctr, kat[i] + 4, pair);
            cr_expect(memcmp(pair[place], kat[i] + 6, sizeof pair[0]) == 0, "vector %zu, x2 place %d", i, place);
            cr_expect(memcmp(pair[1 - place], other_out, sizeof pair[0]) == 0, "vector %zu, x2 other", i);
        }
    }
}

/* Eight blocks side by side are the eight blocks one at a time, in every vector width the CPU has
 * (baseline: the portable code), word 0 of the counter wrapping around. */
Test(rng, philox_eight_blocks_are_single_blocks)
{
    const uint32_t counters[][4] = {{0, 0, 0, 0}, {0xfffffffc, 0xffffffff, 0x80000003, 41}, {17, 3, 5, 7}};
    const uint32_t key[2] = {0x89abcdef, 0x01234567};
    char err[160];
    enum fpd_vector_width was = fpd_vector_width();
    for (int w = 0; w <= (int)fpd_vector_width_of_cpu(); w++) {
        cr_assert_eq(fpd_vector_width_limit((enum fpd_vector_width)w, err, sizeof err), 0, "%s", err);
        for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++) {
            uint32_t lanes[4][8];
            fpd_philox4x32_10_x8(counters[i], key, lanes);
            for (uint32_t b = 0; b < 8; b++) {
                uint32_t ctr[4], want[4];
                memcpy(ctr, counters[i], sizeof ctr);
                ctr[0] += b;
                fpd_philox4x32_10(ctr, key, want);
                for (int j = 0; j < 4; j++)
                    cr_expect_eq(lanes[j][b], want[j], "vector width %s, counter %zu, block %u, word %d: "
                                 "%08x, want %08x", fpd_vector_width_name((enum fpd_vector_width)w), i, b, j,
                                 lanes[j][b], want[j]);
            }
        }
    }
    fpd_vector_width_limit(was, err, sizeof err);
}

/* Keys computed two at a time are the keys computed one at a time. */
Test(rng, tensor_keys_in_pairs)
{
    const unsigned streams[][2] = {{FPD_STREAM_A, FPD_STREAM_B}, {FPD_STREAM_BIAS, FPD_STREAM_A | FPD_STREAM_SPECIAL}};
    const uint32_t batches[][2] = {{0, 0}, {5, 1u << 20}};
    for (int i = 0; i < 2; i++) {
        uint64_t keys[2];
        fpd_rng_tensor_keys2(0x0123456789abcdefull, 99, streams[i], batches[i], keys);
        for (int j = 0; j < 2; j++)
            cr_expect_eq(keys[j], fpd_rng_tensor_key(0x0123456789abcdefull, 99, streams[i][j], batches[i][j]),
                         "pair %d, key %d", i, j);
    }
}

/* A case's draw d is word d % 4 of Philox block {d / 4, 0, 0, index} under the seed: campaign plans
 * (and so every rerun line) depend on it, however the stream buffers them. */
Test(rng, stream_draws_are_their_blocks_words)
{
    const uint64_t seed = 0x0123456789abcdefull;
    struct fpd_stream s;
    fpd_stream_init(&s, seed, 41);
    for (uint32_t d = 0; d < 67; d++) {
        const uint32_t ctr[4] = {d / 4, 0, 0, 41}, key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
        uint32_t block[4];
        fpd_philox4x32_10(ctr, key, block);
        cr_expect_eq(fpd_stream_u32(&s), block[d % 4], "draw %u", d);
    }
}

/* Each generator's stream is frozen, so saved cases replay: a change of values needs a new
 * FPD_GEN_VERSION, with the old generator kept. Generators 2's, 3's and 4's tables come from
 * independent Python models of their definitions (frozen_stream_v2.py ... frozen_stream_v4.py);
 * generator 5's values are generator 4's. */
struct frozen_value {
    enum fpd_dist dist;
    enum fpd_dtype in;
    unsigned stream;
    uint32_t row, col;
    double want;
};

static void expect_frozen(unsigned generator, const struct frozen_value *frozen, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        struct fpd_recipe r = {.generator = generator, .seed = 0x5eed, .index = 3, .dist = frozen[i].dist};
        double got = fpd_gen_element(&r, frozen[i].in, frozen[i].stream, 0, frozen[i].row, frozen[i].col);
        cr_expect(memcmp(&got, &frozen[i].want, sizeof got) == 0, "generator %u entry %zu: %a, frozen %a", generator,
                  i, got, frozen[i].want);
    }
}

Test(rng, frozen_generator_streams)
{
    cr_assert_eq(FPD_GEN_VERSION, 5, "a new generator needs a frozen table here");
    static const struct frozen_value v1[] = {
#include "frozen_stream.inc"
    };
    static const struct frozen_value v2[] = {
#include "frozen_stream_v2.inc"
    };
    static const struct frozen_value v3[] = {
#include "frozen_stream_v3.inc"
    };
    static const struct frozen_value v4[] = {
#include "frozen_stream_v4.inc"
    };
    expect_frozen(1, v1, sizeof v1 / sizeof v1[0]);
    expect_frozen(2, v2, sizeof v2 / sizeof v2[0]);
    expect_frozen(3, v3, sizeof v3 / sizeof v3[0]);
    expect_frozen(4, v4, sizeof v4 / sizeof v4[0]);
    expect_frozen(5, v4, sizeof v4 / sizeof v4[0]); /* generator 5 differs in a special value only (below) */
    static const struct {
        uint32_t row, col;
        double want;
    } specials[] = {
#include "frozen_specials_v2.inc"
    };
    struct fpd_recipe r = {.generator = 2, .seed = 0x5eed, .index = 3, .dist = FPD_DIST_NORMAL, .special_rate = 0.25};
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        double got = fpd_gen_element(&r, FPD_F32, FPD_STREAM_B, 0, specials[i].row, specials[i].col);
        bool same = isnan(specials[i].want) ? isnan(got) : memcmp(&got, &specials[i].want, sizeof got) == 0;
        cr_expect(same, "generator 2 with specials, entry %zu: %a, frozen %a", i, got, specials[i].want);
    }
}

/* Generator 5 is generator 4 but for one special value: the largest finite one (whose sums overflow
 * in some orders only) became the smallest normal one. Every other element keeps its bits. */
Test(rng, generator_5_trades_the_largest_special_for_the_smallest_normal)
{
    static const enum fpd_dtype types[] = {FPD_F64, FPD_F32, FPD_F16, FPD_BF16};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        const struct fpd_dtype_info *f = fpd_dtype_info(types[t]);
        struct fpd_recipe v4 = {.generator = 4, .seed = 0x5eed, .index = 9, .dist = FPD_DIST_NORMAL, .special_rate = 0.5};
        struct fpd_recipe v5 = v4;
        v5.generator = 5;
        const double largest = f->max_finite, smallest_normal = ldexp(1, f->emin);
        size_t traded = 0;
        for (uint32_t j = 0; j < 4000; j++) {
            double a = fpd_gen_element(&v4, types[t], FPD_STREAM_A, 0, j % 7, j);
            double b = fpd_gen_element(&v5, types[t], FPD_STREAM_A, 0, j % 7, j);
            if (memcmp(&a, &largest, sizeof a) == 0) {
                cr_expect(memcmp(&b, &smallest_normal, sizeof b) == 0,
                          "%s element %u: %a where generator 4 has the largest, %a", f->name, j, b, a);
                traded++;
            } else {
                cr_expect(memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b)), "%s element %u: %a, generator 4 %a",
                          f->name, j, b, a);
                cr_expect(memcmp(&b, &largest, sizeof b) != 0, "%s element %u: generator 5 gave the largest finite value",
                          f->name, j);
            }
        }
        cr_expect(traded > 100, "%s: only %zu of 4000 elements were the largest finite value", f->name, traded);
    }
}

Test(rng, stream_draws_are_reproducible_and_in_range)
{
    struct fpd_stream a, b;
    fpd_stream_init(&a, 99, 7);
    fpd_stream_init(&b, 99, 7);
    for (int i = 0; i < 1000; i++) {
        uint32_t n = 1 + (uint32_t)i;
        uint32_t x = fpd_stream_below(&a, n);
        cr_assert_eq(x, fpd_stream_below(&b, n));
        cr_assert_lt(x, n);
    }
}

Test(rng, distributions_stay_in_their_ranges)
{
    for (unsigned g = 1; g <= FPD_GEN_VERSION; g++)
    for (uint32_t j = 0; j < 20000; j++) {
        struct fpd_recipe r = {.generator = g, .seed = 3};
        r.dist = FPD_DIST_INT;
        double v = fpd_gen_element(&r, FPD_F32, FPD_STREAM_A, 0, 0, j);
        cr_assert(v >= -4 && v <= 4 && nearbyint(v) - v <= 0 && v - nearbyint(v) <= 0, "int gave %a", v);
        r.dist = FPD_DIST_UNIFORM;
        v = fpd_gen_element(&r, FPD_F64, FPD_STREAM_A, 0, 0, j);
        cr_assert(v >= -1 && v < 1, "uniform gave %a", v);
        v = fpd_gen_element(&r, FPD_F32, FPD_STREAM_A, 0, 1, j);
        cr_assert(v >= -1 && v <= 1, "uniform f32 gave %a", v); /* rounding may reach 1 */
        r.dist = FPD_DIST_NORMAL;
        v = fpd_gen_element(&r, FPD_F64, FPD_STREAM_A, 0, 0, j);
        cr_assert(fabs(v) < 3.47, "normal gave %a", v);
        v = fpd_gen_element(&r, FPD_F32, FPD_STREAM_A, 0, 1, j);
        cr_assert(fabs(v) < 3.47, "normal f32 gave %a", v);
        r.dist = FPD_DIST_WIDE;
        v = fpd_gen_element(&r, FPD_F16, FPD_STREAM_A, 0, 0, j);
        cr_assert(fabs(v) >= 0x1p-5 && fabs(v) <= 0x1p6, "wide f16 gave %a", v);
    }
}

Test(rng, specials_appear_at_their_rate)
{
    for (unsigned g = 1; g <= FPD_GEN_VERSION; g++) {
        struct fpd_recipe r = {.generator = g, .seed = 3, .dist = FPD_DIST_NORMAL, .special_rate = 0.1};
        int special = 0, nonfinite = 0;
        for (uint32_t j = 0; j < 10000; j++) {
            double v = fpd_gen_element(&r, FPD_F32, FPD_STREAM_B, 0, 1, j);
            special += !isfinite(v) || fabs(v) < 0x1p-126 || fabs(v) >= 0x1p127;
            nonfinite += !isfinite(v);
        }
        cr_expect(special > 800 && special < 1200, "generator %u: %d specials in 10000 at rate 0.1", g, special);
        cr_expect(nonfinite > 200, "generator %u: %d non-finite values", g, nonfinite);
    }
}

/* Generators 2's to 4's values have their distribution's moments, and neighbours along a row,
 * down a column, and across tensors and case indices are uncorrelated: a weak Weyl step or key
 * would show here first (generator 3's binary32 inputs: two neighbours along a row share a
 * SplitMix64 output). 2^18 samples: the standard error of each estimate is about 0.002. */
static void expect_moments_and_independence(unsigned generator, enum fpd_dtype in, enum fpd_dist dist,
                                            double variance)
{
    enum { ROWS = 512, COLS = 512 };
    static double x[ROWS][COLS], y[ROWS][COLS], z[ROWS][COLS];
    struct fpd_case c;
    fpd_case_defaults(&c);
    c.m = ROWS, c.k = COLS, c.n = COLS, c.dt = (struct fpd_dtypes){in, FPD_F64, FPD_F64};
    c.recipe.generator = generator, c.recipe.dist = dist;
    struct fpd_tensors t = {0};
    double (*const into[3])[COLS] = {x, y, z};
    for (int tensor = 0; tensor < 3; tensor++) { /* A, B, then the next case's A */
        c.recipe.index = tensor == 2;
        cr_assert_eq(fpd_gen_materialize(&c, &t), FPD_OK);
        for (size_t i = 0; i < ROWS * COLS; i++)
            into[tensor][i / COLS][i % COLS] = fpd_load(in, tensor == 1 ? t.b : t.a, i);
    }
    double sum = 0, squares = 0, along_row = 0, down_column = 0, across_tensors = 0, across_cases = 0;
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) {
            sum += x[i][j];
            squares += x[i][j] * x[i][j];
            along_row += x[i][j] * x[i][(j + 1) % COLS];
            down_column += x[i][j] * x[(i + 1) % ROWS][j];
            across_tensors += x[i][j] * y[i][j];
            across_cases += x[i][j] * z[i][j];
        }
    double count = ROWS * COLS;
    cr_expect(fabs(sum / count) < 0.01 * sqrt(variance), "generator %u: mean %g", generator, sum / count);
    cr_expect(fabs(squares / count / variance - 1) < 0.01, "generator %u: variance %g, want %g", generator,
              squares / count, variance);
    const double correlations[] = {along_row, down_column, across_tensors, across_cases};
    static const char *const names[] = {"along a row", "down a column", "between A and B", "between case indices"};
    for (int i = 0; i < 4; i++)
        cr_expect(fabs(correlations[i] / count / variance) < 0.01, "generator %u: correlation %s: %g", generator,
                  names[i], correlations[i] / count / variance);
    fpd_tensors_free(&t);
}

Test(rng, generators_2_to_4_moments_and_independence)
{
    expect_moments_and_independence(2, FPD_F64, FPD_DIST_NORMAL, 1);
    expect_moments_and_independence(3, FPD_F32, FPD_DIST_NORMAL, 1);
    expect_moments_and_independence(3, FPD_F32, FPD_DIST_UNIFORM, 1.0 / 3);      /* uniform on [-1, 1) */
    expect_moments_and_independence(3, FPD_BF16, FPD_DIST_INT, 60.0 / 9);      /* -4 .. 4 */
    expect_moments_and_independence(4, FPD_F32, FPD_DIST_NORMAL, 1);
    expect_moments_and_independence(4, FPD_F64, FPD_DIST_NORMAL, 1);
    expect_moments_and_independence(4, FPD_F32, FPD_DIST_UNIFORM, 1.0 / 3);
    expect_moments_and_independence(4, FPD_F64, FPD_DIST_UNIFORM, 1.0 / 3);
    expect_moments_and_independence(4, FPD_BF16, FPD_DIST_INT, 60.0 / 9);
}

/* Growing m or k, or transposing, leaves every other element bit-identical. */
Test(rng, data_does_not_depend_on_shape_or_layout)
{
    struct fpd_case small, big;
    fpd_case_defaults(&small);
    small.m = 3, small.n = 4, small.k = 5, small.dt = (struct fpd_dtypes){FPD_BF16, FPD_F32, FPD_F32};
    big = small;
    big.m = 9, big.k = 11, big.trans_a = true, big.pad = 3;
    struct fpd_tensors ts = {0}, tb = {0};
    cr_assert_eq(fpd_gen_materialize(&small, &ts), FPD_OK);
    cr_assert_eq(fpd_gen_materialize(&big, &tb), FPD_OK);
    struct fpd_layout ls = fpd_case_layout(&small), lb = fpd_case_layout(&big);
    for (size_t i = 0; i < small.m; i++)
        for (size_t p = 0; p < small.k; p++) {
            uint64_t s = fpd_bits(FPD_BF16, ts.a, i * ls.lda + p), b = fpd_bits(FPD_BF16, tb.a, p * lb.lda + i);
            cr_assert_eq(s, b, "A[%zu][%zu]: %04llx vs %04llx", i, p, (unsigned long long)s, (unsigned long long)b);
        }
    cr_assert(isnan(fpd_load(FPD_BF16, tb.a, lb.a_cols)), "padding should be poisoned with NaN");
    fpd_tensors_free(&ts);
    fpd_tensors_free(&tb);
}

/* Every element of a materialized rows x cols operand (stored as `type`) is the per-element
 * generator's value, and its stored rows' padding holds NaN. */
static void expect_generated(const struct fpd_case *c, unsigned stream, const void *stored, enum fpd_dtype type, uint32_t rows,
                             uint32_t cols, size_t ld, bool transposed, int layout)
{
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t j = 0; j < cols; j++) {
            double want = fpd_gen_element(&c->recipe, c->dt.in, stream, 0, i, j);
            double got = fpd_load(type, stored, transposed ? j * ld + i : i * ld + j);
            cr_assert(memcmp(&want, &got, sizeof got) == 0,
                      "generator %u, %ux%u layout %d, stream %u: [%u][%u] = %a, want %a", c->recipe.generator, rows, cols,
                      layout, stream, i, j, got, want);
        }
    uint32_t stored_rows = transposed ? cols : rows, stored_cols = transposed ? rows : cols;
    for (uint32_t i = 0; i < stored_rows; i++)
        for (size_t j = stored_cols; j < ld; j++)
            cr_assert(isnan(fpd_load(type, stored, i * ld + j)), "generator %u, %ux%u layout %d, stream %u: padding [%u][%zu] = %a",
                      c->recipe.generator, rows, cols, layout, stream, i, j, fpd_load(type, stored, i * ld + j));
}

/* Materialized operands hold exactly the per-element generator's values, for every generator,
 * with and without specials, whichever storage direction the runs take (along rows for wide
 * operands, down columns for tall ones). */
Test(rng, materialized_values_are_the_elements_values)
{
    /* 4099 x 2: a transposed operand's stored rows run past the buffer of a pair (PAIR_RUN) */
    static const uint32_t shapes[][2] = {{1, 40}, {40, 1}, {3, 17}, {33, 2}, {17, 17}, {2, 100}, {100, 3}, {3, 300},
                                         {4099, 2}};
    /* f32 and f64 have their own stores; layouts 4 to 6 add bfloat16 (padded) and binary64 inputs
     * (A transposed; B transposed and padded) */
    static const enum fpd_dtype inputs[] = {FPD_F32, FPD_F16, FPD_F32, FPD_F32, FPD_BF16, FPD_F64, FPD_F64};
    for (unsigned g = 1; g <= FPD_GEN_VERSION; g++)
    for (int d = 0; d < FPD_DIST_COUNT; d++) /* each has its own loop */
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int layout = 0; layout < 7; layout++) {
            struct fpd_case c;
            fpd_case_defaults(&c);
            c.recipe.generator = g;
            c.recipe.dist = (enum fpd_dist)d;
            c.recipe.special_rate = layout == 2 ? 0.2 : 0;
            c.m = shapes[s][0], c.k = shapes[s][1], c.n = shapes[s][0];
            c.trans_a = layout & 1, c.trans_b = layout & 2;
            c.pad = layout == 3 ? 5 : layout == 4 ? 2 : layout == 6 ? 3 : 0;
            c.has_bias = true;
            enum fpd_dtype out = inputs[layout] == FPD_F64 ? FPD_F64 : FPD_F32; /* holds the bias exactly */
            c.dt = (struct fpd_dtypes){inputs[layout], out, out};
            struct fpd_tensors t = {0};
            cr_assert_eq(fpd_gen_materialize(&c, &t), FPD_OK);
            struct fpd_layout l = fpd_case_layout(&c);
            expect_generated(&c, FPD_STREAM_A, t.a, c.dt.in, c.m, c.k, l.lda, c.trans_a, layout);
            expect_generated(&c, FPD_STREAM_B, t.b, c.dt.in, c.k, c.n, l.ldb, c.trans_b, layout);
            expect_generated(&c, FPD_STREAM_BIAS, t.bias, c.dt.out, 1, c.n, c.n, false, layout);
            fpd_tensors_free(&t);
        }
}

Test(rng, boundary_dims_in_range)
{
    struct fpd_stream s;
    fpd_stream_init(&s, 5, 0);
    int ones = 0, powers = 0;
    for (int i = 0; i < 5000; i++) {
        uint32_t d = fpd_gen_dim(&s, 1, 300);
        cr_assert(d >= 1 && d <= 300, "dim %u", d);
        ones += d == 1;
        powers += (d & (d - 1)) == 0;
    }
    cr_expect(ones > 500, "1 drawn %d times in 5000", ones);
    cr_expect(powers > 1000, "powers of two drawn %d times in 5000", powers);
}
