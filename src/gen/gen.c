/* gen.c — deterministic input generation. No libm transcendental is used, so generated values do
 * not depend on the C library's version: only on the recipe, its generator version included. */
#include "gen/gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "cpu/clones.h"
#include "common/dtype.h"
#include "common/scratch.h"

const struct fpd_dist_info fpd_dist_table[FPD_DIST_COUNT] = {
    [FPD_DIST_NORMAL] = {"normal", "approximately standard normal (Irwin-Hall sum of 4 uniforms, |x| < 3.47)"},
    [FPD_DIST_UNIFORM] = {"uniform", "uniform in [-1, 1)"},
    [FPD_DIST_INT] = {"int", "integers in [-4, 4]: partial sums exact while |sum| < 2^p of the acc/out types"},
    [FPD_DIST_WIDE] = {"wide", "random sign and significand over many binades (cancellation-heavy)"},
};

int fpd_dist_parse(const char *name, enum fpd_dist *out)
{
    for (int d = 0; d < FPD_DIST_COUNT; d++) {
        if (strcmp(name, fpd_dist_table[d].name) == 0) {
            *out = (enum fpd_dist)d;
            return FPD_OK;
        }
    }
    return FPD_ERR_INPUT;
}

/* Binades spanned by `wide`, per input type: kept inside each type's normal range, and for f16
 * small enough that a product stays far from overflow. */
static const int wide_binades[FPD_DTYPE_COUNT] = {[FPD_F64] = 30, [FPD_F32] = 20, [FPD_F16] = 5, [FPD_BF16] = 20};

/* The distributions, from their random bits. Generator 1 takes them from a Philox block's four
 * 32-bit words, generator 2 from one 64-bit word; the formulas are shared. */
static inline double irwin_hall4(double sum_of_four_uniforms, double unit)
{
    return (sum_of_four_uniforms * unit - 2.0) * 1.7320508075688772; /* variance 1 */
}

static inline double uniform_value(uint64_t bits) { return (double)(bits >> 11) * 0x1p-52 - 1.0; }

static inline double int_value(uint32_t w) { return (double)(int)((uint64_t)w * 9 >> 32) - 4.0; }

static inline double wide_value(int span, bool negative, uint32_t exponent_word, uint32_t significand23)
{
    int exponent = (int)((uint64_t)exponent_word * (uint64_t)(2 * span + 1) >> 32) - span;
    double significand = 1.0 + (double)significand23 * 0x1p-23;
    return (negative ? -significand : significand) * fpd_pow2(exponent); /* |exponent| <= 30: exact */
}

static double dist_value_v1(enum fpd_dist d, enum fpd_dtype in, const uint32_t w[4])
{
    switch (d) {
    case FPD_DIST_NORMAL: /* exact: the sum is below 2^34 */
        return irwin_hall4((double)w[0] + (double)w[1] + (double)w[2] + (double)w[3], 0x1p-32);
    case FPD_DIST_UNIFORM: return uniform_value((uint64_t)w[0] << 32 | w[1]);
    case FPD_DIST_INT: return int_value(w[0]);
    case FPD_DIST_WIDE: return wide_value(wide_binades[in], w[0] & 1, w[1], w[2] >> 9);
    default: return NAN;
    }
}

/* Generator 2: the four uniforms of `normal` are the word's 16-bit quarters, each the midpoint of
 * its 1/65536 interval so that the mean is exactly 0 (2^18 distinct sums, each scaled by the
 * irrational sqrt(3), so every significand bit still varies); `wide` takes its sign from bit 0,
 * its significand from bits 1-23 and its binade from the high half. */
static inline double normal_v2(uint64_t x)
{
    uint32_t sum = (uint32_t)(x & 0xffff) + (uint32_t)(x >> 16 & 0xffff) + (uint32_t)(x >> 32 & 0xffff) +
                   (uint32_t)(x >> 48);
    return irwin_hall4((double)sum + 2.0, 0x1p-16); /* four halves: exact */
}

static inline double wide_v2(int span, uint64_t x)
{
    /* wide_value's result, assembled from its bits: integer operations only, so the loop vectorizes */
    uint64_t binade = ((x >> 32) * (uint64_t)(2 * span + 1) >> 32) - (uint64_t)span + 1023;
    uint64_t bits = (x & 1) << 63 | binade << 52 | ((x >> 1) & 0x7fffff) << 29;
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static double special_value(enum fpd_dtype t, uint32_t pick)
{
    const struct fpd_dtype_info *f = fpd_dtype_info(t);
    double min_sub = f->underflow, max_sub = ldexp(1.0, f->emin) - f->underflow;
    const double values[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, min_sub, -max_sub, f->max_finite};
    return values[pick % (sizeof values / sizeof values[0])];
}

static bool is_special(const struct fpd_recipe *r, uint32_t draw) { return (double)draw < r->special_rate * 0x1p32; }

/* Where one tensor's values come from: its recipe, and from generator 2 on its two keys, derived
 * once per tensor rather than per element. */
struct tensor_source {
    const struct fpd_recipe *recipe;
    enum fpd_dtype in;
    unsigned stream;
    uint32_t batch;
    uint64_t key, special_key;
};

static struct tensor_source tensor_source(const struct fpd_recipe *r, enum fpd_dtype in, unsigned stream,
                                          uint32_t batch)
{
    struct tensor_source s = {.recipe = r, .in = in, .stream = stream, .batch = batch};
    if (r->generator == 1)
        return s;
    if (r->special_rate <= 0) {
        s.key = fpd_rng_tensor_key(r->seed, r->index, stream, batch);
        return s;
    }
    uint64_t keys[2];
    fpd_rng_tensor_keys2(r->seed, r->index, (const unsigned[]){stream, stream | FPD_STREAM_SPECIAL},
                         (const uint32_t[]){batch, batch}, keys);
    s.key = keys[0], s.special_key = keys[1];
    return s;
}

/* The sources of batch entry `batch` of A and B, their keys side by side (a small check needs
 * three to six, each a dependent chain of about 20 ns alone). */
static void operand_sources(const struct fpd_recipe *r, enum fpd_dtype in, uint32_t batch, struct tensor_source *a,
                            struct tensor_source *b)
{
    *a = (struct tensor_source){.recipe = r, .in = in, .stream = FPD_STREAM_A, .batch = batch};
    *b = (struct tensor_source){.recipe = r, .in = in, .stream = FPD_STREAM_B, .batch = batch};
    if (r->generator == 1)
        return;
    uint64_t keys[2];
    const uint32_t batches[] = {batch, batch};
    fpd_rng_tensor_keys2(r->seed, r->index, (const unsigned[]){FPD_STREAM_A, FPD_STREAM_B}, batches, keys);
    a->key = keys[0], b->key = keys[1];
    if (r->special_rate <= 0)
        return;
    fpd_rng_tensor_keys2(r->seed, r->index,
                         (const unsigned[]){FPD_STREAM_A | FPD_STREAM_SPECIAL, FPD_STREAM_B | FPD_STREAM_SPECIAL},
                         batches, keys);
    a->special_key = keys[0], b->special_key = keys[1];
}

static double element_v1(const struct tensor_source *s, uint32_t row, uint32_t col)
{
    const struct fpd_recipe *r = s->recipe;
    uint32_t w[4];
    if (r->special_rate > 0) {
        fpd_rng_element(r->seed, r->index, s->stream | FPD_STREAM_SPECIAL, s->batch, row, col, w);
        if (is_special(r, w[0]))
            return special_value(s->in, w[1]);
    }
    fpd_rng_element(r->seed, r->index, s->stream, s->batch, row, col, w);
    return dist_value_v1(r->dist, s->in, w);
}

/* Values along one direction of the Weyl sequence, LANES at a time: fixed-length inner loops
 * over straight-line code, one per distribution, which the compiler vectorizes at -O2, in 64-bit
 * lanes where the CPU has them. */
#define LANES 16
#define RUN 256 /* values per call: amortizes the call and the choice of distribution */
#define RUN_ROOM (RUN + LANES) /* a run's buffer: its last group may run past it */

static inline __attribute__((always_inline)) void
group_v2(enum fpd_dist d, int span, uint64_t z, uint64_t dz, double o[LANES])
{
    switch (d) {
    case FPD_DIST_NORMAL:
        for (int l = 0; l < LANES; l++)
            o[l] = normal_v2(fpd_rng_mix64(z + (uint64_t)l * dz));
        break;
    case FPD_DIST_UNIFORM:
        for (int l = 0; l < LANES; l++)
            o[l] = uniform_value(fpd_rng_mix64(z + (uint64_t)l * dz));
        break;
    case FPD_DIST_INT:
        for (int l = 0; l < LANES; l++)
            o[l] = int_value((uint32_t)(fpd_rng_mix64(z + (uint64_t)l * dz) >> 32));
        break;
    case FPD_DIST_WIDE:
        for (int l = 0; l < LANES; l++)
            o[l] = wide_v2(span, fpd_rng_mix64(z + (uint64_t)l * dz));
        break;
    default:
        for (int l = 0; l < LANES; l++)
            o[l] = NAN;
    }
}

/* `count` unrounded values (the last group may run past `count`: `out` has room). */
FPD_VECTOR_WIDTH_CLONES static void
values_v2(enum fpd_dist d, enum fpd_dtype in, uint64_t key, uint64_t position, uint64_t step, size_t count,
          double out[RUN_ROOM])
{
    const uint64_t dz = step * FPD_RNG_GAMMA;
    for (size_t at = 0; at < count; at += LANES)
        group_v2(d, wide_binades[in], key + (position + at * step) * FPD_RNG_GAMMA, dz, out + at);
}

/* The same values rounded to binary32 (RNE, as fpd_store_run would) and stored at dst[0..count):
 * straight from the registers, where the common f32 inputs would otherwise pass through `out`. */
FPD_VECTOR_WIDTH_CLONES static void
values_v2_f32(enum fpd_dist d, uint64_t key, uint64_t position, uint64_t step, size_t count, float *dst)
{
    const uint64_t dz = step * FPD_RNG_GAMMA;
    double o[LANES];
    size_t at = 0;
    for (; at + LANES <= count; at += LANES) {
        group_v2(d, wide_binades[FPD_F32], key + (position + at * step) * FPD_RNG_GAMMA, dz, o);
        for (int l = 0; l < LANES; l++)
            dst[at + l] = (float)o[l];
    }
    if (at < count) {
        group_v2(d, wide_binades[FPD_F32], key + (position + at * step) * FPD_RNG_GAMMA, dz, o);
        for (size_t l = 0; at + l < count; l++)
            dst[at + l] = (float)o[l];
    }
}

static bool specials_wanted(const struct fpd_recipe *r) { return r->special_rate > 0; }

/* Generator 3 draws binary64 inputs as generator 2 does. Narrower inputs (binary32, binary16,
 * bfloat16) take values that binary32 arithmetic computes cheaply, exactly or with its one
 * rounding: `uniform`, `int` and `wide` take 32 random bits each, two neighbours along a row
 * sharing one SplitMix64 output (the even column its low half, the odd one its high half: half the
 * work per element), and `normal` scales generator 2's Irwin-Hall sum by sqrt(3) rounded to
 * binary32, so that one binary32 product rounds it once. Each element is its exact value v,
 * rounded once (RNE) to the input type: binary16 and bfloat16 never pass through binary32.
 *
 * A group of LANES elements is first drawn as integers ("raw"): v is raw * 2^-31 (`uniform`),
 * raw (`int`), raw * 2^-16 * SQRT3_F32 (`normal`, exact in binary64), or the binary32 whose bits
 * raw holds (`wide`). */
#define SQRT3_F32 0x1.bb67aep+0

static inline int32_t uniform_raw(uint32_t w) { return (int32_t)w; }

static inline int32_t int_raw(uint32_t w) { return (int32_t)((w >> 4) * 9 >> 28) - 4; }

/* sign from bit 31, significand from bits 0-22, binade from bits 23-30 (256 draws over 2 span + 1
 * binades: some binades come up once more in 256 than others) */
static inline int32_t wide_raw(int span, uint32_t w)
{
    uint32_t binade = ((w >> 23 & 0xff) * (uint32_t)(2 * span + 1) >> 8) - (uint32_t)span + 127;
    return (int32_t)((w & 0x80000000u) | binade << 23 | (w & 0x7fffff));
}

/* generator 2's four 16-bit quarters, less their mean: (sum + 2 - 2^17) * 2^-16 is in (-2, 2) */
static inline int32_t normal_raw(uint64_t x)
{
    uint32_t low = (uint32_t)x, high = (uint32_t)(x >> 32);
    return (int32_t)((low & 0xffff) + (low >> 16) + (high & 0xffff) + (high >> 16)) + 2 - (1 << 17);
}

/* The raw draws of `uniform`, `int` and `wide` from their 32-bit words. */
static inline __attribute__((always_inline)) void raw_of_words(enum fpd_dist d, int span, const uint32_t w[LANES],
                                                               int32_t raw[LANES])
{
    switch (d) {
    case FPD_DIST_UNIFORM:
        for (int l = 0; l < LANES; l++)
            raw[l] = uniform_raw(w[l]);
        break;
    case FPD_DIST_INT:
        for (int l = 0; l < LANES; l++)
            raw[l] = int_raw(w[l]);
        break;
    default:
        for (int l = 0; l < LANES; l++)
            raw[l] = wide_raw(span, w[l]);
    }
}

/* The raw draws of LANES elements from logical (row, col) on, along the row from an even column
 * (two per SplitMix64 output), or down the column (an output each, the column's half of it). */
static inline __attribute__((always_inline)) void
group_v3(enum fpd_dist d, int span, uint64_t key, uint32_t row, uint32_t col, bool down, int32_t raw[LANES])
{
    const uint64_t row_step = fpd_rng_position(1, 0) * FPD_RNG_GAMMA;
    if (d == FPD_DIST_NORMAL) { /* an output per element, at the element's own position */
        const uint64_t z = key + fpd_rng_position(row, col) * FPD_RNG_GAMMA, dz = down ? row_step : FPD_RNG_GAMMA;
        for (int l = 0; l < LANES; l++)
            raw[l] = normal_raw(fpd_rng_mix64(z + (uint64_t)l * dz));
        return;
    }
    uint32_t w[LANES];
    const uint64_t z = key + fpd_rng_position(row, col >> 1) * FPD_RNG_GAMMA;
    if (down) {
        const unsigned half = 32 * (col & 1);
        for (int l = 0; l < LANES; l++)
            w[l] = (uint32_t)(fpd_rng_mix64(z + (uint64_t)l * row_step) >> half);
    } else {
        uint64_t x[LANES / 2];
        for (int l = 0; l < LANES / 2; l++)
            x[l] = fpd_rng_mix64(z + (uint64_t)l * FPD_RNG_GAMMA);
        memcpy(w, x, sizeof w); /* little-endian: each output's low half, then its high half */
    }
    raw_of_words(d, span, w, raw);
}
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "group_v3 reads an output's halves in memory order");

/* group_v3 down two neighbouring logical columns at once, `col` (even) and col + 1, for `uniform`,
 * `int` and `wide`: each SplitMix64 output holds an element of both, so it is computed once for
 * the two (down one column alone, half of each output goes unused). */
static inline __attribute__((always_inline)) void group_v3_column_pair(enum fpd_dist d, int span, uint64_t key,
                                                                       uint32_t row, uint32_t col,
                                                                       int32_t raw_even[LANES], int32_t raw_odd[LANES])
{
    const uint64_t row_step = fpd_rng_position(1, 0) * FPD_RNG_GAMMA;
    const uint64_t z = key + fpd_rng_position(row, col >> 1) * FPD_RNG_GAMMA;
    uint32_t low[LANES], high[LANES];
    for (int l = 0; l < LANES; l++) {
        uint64_t x = fpd_rng_mix64(z + (uint64_t)l * row_step);
        low[l] = (uint32_t)x, high[l] = (uint32_t)(x >> 32);
    }
    raw_of_words(d, span, low, raw_even);
    raw_of_words(d, span, high, raw_odd);
}

/* group_v3 of the group `at` elements into a run from (row, col), in the run's direction. */
static inline __attribute__((always_inline)) void group_v3_at(enum fpd_dist d, int span, uint64_t key, uint32_t row,
                                                              uint32_t col, bool down, size_t at, int32_t raw[LANES])
{
    group_v3(d, span, key, down ? row + (uint32_t)at : row, down ? col : col + (uint32_t)at, down, raw);
}

/* A group's values from its raw draws, exact in binary64 (the caller rounds them to the input
 * type). */
static inline __attribute__((always_inline)) void values_of_raw(enum fpd_dist d, const int32_t raw[LANES],
                                                                double v[LANES])
{
    float f[LANES];
    switch (d) {
    case FPD_DIST_NORMAL:
        for (int l = 0; l < LANES; l++)
            v[l] = (double)raw[l] * 0x1p-16 * SQRT3_F32;
        break;
    case FPD_DIST_UNIFORM:
        for (int l = 0; l < LANES; l++)
            v[l] = (double)raw[l] * 0x1p-31;
        break;
    case FPD_DIST_INT:
        for (int l = 0; l < LANES; l++)
            v[l] = (double)raw[l];
        break;
    default:
        memcpy(f, raw, sizeof f);
        for (int l = 0; l < LANES; l++)
            v[l] = (double)f[l];
    }
}

/* The same values rounded once to binary32. */
static inline __attribute__((always_inline)) void floats_of_raw(enum fpd_dist d, const int32_t raw[LANES],
                                                                float v[LANES])
{
    switch (d) {
    case FPD_DIST_NORMAL: /* raw * (2^-16 sqrt3) is raw * 2^-16 (exact) times sqrt3: one rounding, one multiply */
        for (int l = 0; l < LANES; l++)
            v[l] = (float)raw[l] * (float)(0x1p-16 * SQRT3_F32);
        break;
    case FPD_DIST_UNIFORM: /* the conversion rounds once; the power of two is exact */
        for (int l = 0; l < LANES; l++)
            v[l] = (float)raw[l] * 0x1p-31f;
        break;
    case FPD_DIST_INT:
        for (int l = 0; l < LANES; l++)
            v[l] = (float)raw[l];
        break;
    default:
        memcpy(v, raw, sizeof(float) * LANES);
    }
}

/* `count` unrounded values of a narrow input along the row or down the column from logical
 * (row, col) on (the last group may run past `count`: `out` has room). Along a row, groups start
 * at even columns: from an odd one, the first group starts at its even neighbour, whose value is
 * dropped. */
FPD_VECTOR_WIDTH_CLONES static void values_v3(enum fpd_dist d, enum fpd_dtype in, uint64_t key, uint32_t row,
                                              uint32_t col, bool down, size_t count, double out[RUN_ROOM])
{
    int32_t raw[LANES];
    size_t at = 0;
    if (!down && col % 2 == 1) {
        double v[LANES];
        group_v3(d, wide_binades[in], key, row, col - 1, false, raw);
        values_of_raw(d, raw, v);
        memcpy(out, v + 1, (LANES - 1) * sizeof *v);
        at = LANES - 1;
    }
    for (; at < count; at += LANES) {
        group_v3_at(d, wide_binades[in], key, row, col, down, at, raw);
        values_of_raw(d, raw, out + at);
    }
}

/* The values of a binary32 input rounded and stored at dst[0..count), from an even column along
 * a row (or any, down a column). The last group is stored whole, up to LANES - 1 elements past
 * count, which the caller overwrites afterwards: a short row's tail through a buffer and a
 * variable-length copy cost about as much as the row. */
static inline __attribute__((always_inline)) void run_v3_f32(enum fpd_dist d, bool down, uint64_t key, uint32_t row,
                                                             uint32_t col, size_t count, float *dst)
{
    int32_t raw[LANES];
    for (size_t at = 0; at < count; at += LANES) {
        group_v3_at(d, wide_binades[FPD_F32], key, row, col, down, at, raw);
        floats_of_raw(d, raw, dst + at);
    }
}

/* Values of the odd row of a pair buffered at a time (column_pair_v3_f32): 16 KiB of stack. */
#define PAIR_RUN 4096

/* Two stored rows of a transposed operand, logical columns `col` (even) and col + 1, computed
 * together (group_v3_column_pair). The even row is stored directly and the odd one then copied
 * from a buffer, PAIR_RUN values at a time: on cold lines, stores interleaved between the two
 * rows ran 1.2x slower than one row after the other (runs of 256: 1.6x). The odd row's first
 * group is copied again last, over the even row's spill. */
static inline __attribute__((always_inline)) void column_pair_v3_f32(enum fpd_dist d, uint64_t key, uint32_t col,
                                                                     size_t count, float *even, float *odd)
{
    int32_t raw_even[LANES], raw_odd[LANES];
    float odd_run[PAIR_RUN + LANES], odd_first[LANES];
    for (size_t start = 0; start < count; start += PAIR_RUN) {
        size_t end = count - start < PAIR_RUN ? count : start + PAIR_RUN;
        for (size_t at = start; at < end; at += LANES) {
            group_v3_column_pair(d, wide_binades[FPD_F32], key, (uint32_t)at, col, raw_even, raw_odd);
            floats_of_raw(d, raw_even, even + at);
            floats_of_raw(d, raw_odd, odd_run + (at - start));
        }
        if (start == 0)
            memcpy(odd_first, odd_run, sizeof odd_first);
        memcpy(odd + start, odd_run, (end - start) * sizeof *odd);
    }
    memcpy(odd, odd_first, (count < LANES ? count : LANES) * sizeof *odd);
}

/* Whether runs down a logical column take its neighbour along (group_v3_column_pair): all but
 * `normal`, whose element takes a whole output. */
static inline __attribute__((always_inline)) bool columns_in_pairs(enum fpd_dist d) { return d != FPD_DIST_NORMAL; }

/* Stored rows in order, each whole before the next (or a pair of them): a row's spill lands in its
 * padding and the next row's start, both written afterwards (the last row's in the next batch
 * entry's, or in SPILL_ROOM). */
static inline __attribute__((always_inline)) void rows_v3_f32(enum fpd_dist d, bool transposed, uint64_t key,
                                                              size_t rows, size_t cols, size_t ld, float *dst)
{
    size_t i = 0;
    if (transposed && columns_in_pairs(d)) /* a transposed operand's stored row is a logical column */
        for (; i + 1 < rows; i += 2)
            column_pair_v3_f32(d, key, (uint32_t)i, cols, dst + i * ld, dst + (i + 1) * ld);
    for (; i < rows; i++)
        run_v3_f32(d, transposed, key, transposed ? 0 : (uint32_t)i, transposed ? (uint32_t)i : 0, cols, dst + i * ld);
}

/* A group's values stored down a column from dst, ld apart: its first `count` (at most LANES). */
static inline __attribute__((always_inline)) void store_down_f32(enum fpd_dist d, const int32_t raw[LANES],
                                                                 size_t count, size_t ld, float *dst)
{
    float v[LANES];
    floats_of_raw(d, raw, v);
    for (size_t l = 0; l < count; l++)
        dst[l * ld] = v[l];
}

/* Down the stored columns, band by band of RUN rows, so that the band stays in cache; each group
 * stored element by element, ld apart. */
static inline __attribute__((always_inline)) void columns_v3_f32(enum fpd_dist d, bool transposed, uint64_t key,
                                                                 size_t rows, size_t cols, size_t ld, float *dst)
{
    const bool pairs = !transposed && columns_in_pairs(d); /* a stored column is a logical one */
    int32_t raw[LANES], raw_odd[LANES];
    for (size_t band = 0; band < rows; band += RUN)
        for (size_t j = 0, width; j < cols; j += width) {
            width = pairs && j + 1 < cols ? 2 : 1;
            for (size_t at = band; at < rows && at < band + RUN; at += LANES) {
                size_t count = rows - at < LANES ? rows - at : LANES;
                if (width == 2) {
                    group_v3_column_pair(d, wide_binades[FPD_F32], key, (uint32_t)at, (uint32_t)j, raw, raw_odd);
                    store_down_f32(d, raw_odd, count, ld, dst + at * ld + j + 1);
                } else { /* a transposed operand's stored column runs along a logical row */
                    group_v3_at(d, wide_binades[FPD_F32], key, transposed ? (uint32_t)j : 0,
                                transposed ? 0 : (uint32_t)j, !transposed, at, raw);
                }
                store_down_f32(d, raw, count, ld, dst + at * ld + j);
            }
        }
}

#define FILL_V3_F32(dist)                                                                                              \
    (down_columns ? (transposed ? columns_v3_f32(dist, true, key, rows, cols, ld, dst)                                 \
                                : columns_v3_f32(dist, false, key, rows, cols, ld, dst))                               \
                  : (transposed ? rows_v3_f32(dist, true, key, rows, cols, ld, dst)                                    \
                                : rows_v3_f32(dist, false, key, rows, cols, ld, dst)))

/* Every element of a stored binary32 operand under generator 3 (without specials), in one call:
 * one loop per distribution, direction and orientation, each compiled with all three constant,
 * straight-line groups without a choice inside, and no call per row (a short row costs little
 * more than the call). */
FPD_VECTOR_WIDTH_CLONES static void fill_v3_f32(enum fpd_dist d, uint64_t key, size_t rows, size_t cols, size_t ld,
                                                bool transposed, bool down_columns, float *dst)
{
    switch (d) {
    case FPD_DIST_NORMAL: FILL_V3_F32(FPD_DIST_NORMAL); break;
    case FPD_DIST_UNIFORM: FILL_V3_F32(FPD_DIST_UNIFORM); break;
    case FPD_DIST_INT: FILL_V3_F32(FPD_DIST_INT); break;
    default: FILL_V3_F32(FPD_DIST_WIDE);
    }
}
#undef FILL_V3_F32

/* Which generator's definition gives an element its value: generator 3 draws binary64 inputs as
 * generator 2 does. */
static unsigned value_generator(const struct tensor_source *s)
{
    return s->recipe->generator == 3 && s->in == FPD_F64 ? 2 : s->recipe->generator;
}

/* Unrounded values of `count` <= RUN elements from logical (row, col) on, along the row (the column
 * index advances) or down the column. */
static void source_values(const struct tensor_source *s, uint32_t row, uint32_t col, bool down, size_t count,
                          double out[RUN_ROOM])
{
    const struct fpd_recipe *r = s->recipe;
    const unsigned generator = value_generator(s);
    if (generator == 1) {
        for (uint32_t l = 0; l < count; l++)
            out[l] = element_v1(s, row + (down ? l : 0), col + (down ? 0 : l));
        return;
    }
    uint64_t position = fpd_rng_position(row, col), step = down ? fpd_rng_position(1, 0) : 1;
    if (generator == 2)
        values_v2(r->dist, s->in, s->key, position, step, count, out);
    else
        values_v3(r->dist, s->in, s->key, row, col, down, count, out);
    if (!specials_wanted(r))
        return;
    for (uint32_t l = 0; l < count; l++) {
        uint64_t draw = fpd_rng_bits64(s->special_key, position + l * step);
        if (is_special(r, (uint32_t)draw))
            out[l] = special_value(s->in, (uint32_t)(draw >> 32));
    }
}

/* The elements of source_values stored, each rounded once (RNE), at dst + at, at + stride, ...:
 * binary32 straight from the registers where it can be. */
static void store_source_values(const struct tensor_source *s, uint32_t row, uint32_t col, bool down, size_t count,
                                void *dst, size_t at, size_t stride)
{
    if (s->in == FPD_F32 && stride == 1 && !specials_wanted(s->recipe) && value_generator(s) == 2) {
        values_v2_f32(s->recipe->dist, s->key, fpd_rng_position(row, col), down ? fpd_rng_position(1, 0) : 1, count,
                      (float *)dst + at);
        return;
    }
    double values[RUN_ROOM];
    source_values(s, row, col, down, count, values);
    fpd_store_run(s->in, dst, at, stride, values, count);
}

double fpd_gen_element(const struct fpd_recipe *r, enum fpd_dtype in, unsigned stream, uint32_t batch,
                       uint32_t row, uint32_t col)
{
    struct tensor_source s = tensor_source(r, in, stream, batch);
    double v[RUN_ROOM];
    source_values(&s, row, col, false, 1, v);
    return fpd_round(in, v[0]);
}

bool fpd_gen_known(unsigned generator) { return generator >= 1 && generator <= FPD_GEN_VERSION; }

static bool is_prime(uint32_t x)
{
    if (x < 2)
        return false;
    for (uint32_t d = 2; (uint64_t)d * d <= x; d++)
        if (x % d == 0)
            return false;
    return true;
}

static uint32_t clamp_dim(uint64_t x, uint32_t lo, uint32_t hi) { return x < lo ? lo : x > hi ? hi : (uint32_t)x; }

static uint32_t log2_floor(uint32_t x) { return 31u - (uint32_t)__builtin_clz(x); }

uint32_t fpd_gen_dim(struct fpd_stream *s, uint32_t lo, uint32_t hi)
{
    static const uint32_t tiles[] = {8, 16, 32, 64, 128};
    if (lo >= hi)
        return lo;
    uint32_t top_power = log2_floor(hi);
    switch (fpd_stream_below(s, 6)) {
    case 0:
        return lo;
    case 1:
        return clamp_dim(1ull << fpd_stream_below(s, top_power + 1), lo, hi);
    case 2: {
        uint64_t p = 1ull << fpd_stream_below(s, top_power + 1);
        return clamp_dim(fpd_stream_below(s, 2) ? p + 1 : p - 1, lo, hi);
    }
    case 3: {
        uint32_t tile = tiles[fpd_stream_below(s, sizeof tiles / sizeof tiles[0])];
        return clamp_dim((uint64_t)tile * (1 + fpd_stream_below(s, hi / tile + 1)), lo, hi);
    }
    case 4: {
        uint32_t x = lo + fpd_stream_below(s, hi - lo + 1);
        while (x > lo && !is_prime(x))
            x--;
        return x;
    }
    default:
        return lo + fpd_stream_below(s, hi - lo + 1);
    }
}

/* Room past a tensor's last element for the spill of its last stored row (run_v3_f32). */
#define SPILL_ROOM ((LANES - 1) * sizeof(float))

/* Whether a tensor's stored rows come from fill_v3_f32. */
static bool fills_v3_f32(const struct tensor_source *s)
{
    return s->in == FPD_F32 && value_generator(s) == 3 && !specials_wanted(s->recipe);
}

/* A stored matrix's generated values (its padding aside). Runs go along the stored rows,
 * contiguous stores, unless going down the columns computes less than half the lanes (a k x 1
 * operand along its rows would compute LANES values per element kept): a strided store costs
 * about what computing a value does. Keys are logical coordinates, so either direction gives
 * every element its one value. */
static void fill_generated(const struct tensor_source *src, void *dst, size_t rows, size_t cols, size_t ld,
                           bool transposed)
{
    bool down_columns = 2 * cols * ((rows + LANES - 1) / LANES) < rows * ((cols + LANES - 1) / LANES);
    if (fills_v3_f32(src)) {
        if (down_columns && ld == 1) /* one unpadded column is one stored row of the other orientation */
            fill_v3_f32(src->recipe->dist, src->key, 1, rows, rows, !transposed, false, dst);
        else
            fill_v3_f32(src->recipe->dist, src->key, rows, cols, ld, transposed, down_columns, dst);
        return;
    }
    if (!down_columns) {
        for (size_t i = 0; i < rows; i++)
            for (size_t at = 0; at < cols; at += RUN)
                store_source_values(src, (uint32_t)(transposed ? at : i), (uint32_t)(transposed ? i : at), transposed,
                                    cols - at < RUN ? cols - at : RUN, dst, i * ld + at, 1);
        return;
    }
    /* band by band, so that runs down the columns keep their band of rows in cache */
    for (size_t at = 0; at < rows; at += RUN)
        for (size_t j = 0; j < cols; j++)
            store_source_values(src, (uint32_t)(transposed ? j : at), (uint32_t)(transposed ? at : j), !transposed,
                                rows - at < RUN ? rows - at : RUN, dst, at * ld + j, ld);
}

/* Each stored row's padding, elements cols..ld, a quiet NaN: one loop per element size, whose
 * stores are then a move each (through fpd_store, each was a choice of type). */
#define PAD_ROWS(T)                                                                                \
    do {                                                                                           \
        T nan_bits;                                                                                \
        memcpy(&nan_bits, nan, sizeof nan_bits);                                                   \
        for (size_t i = 0; i < rows; i++)                                                          \
            for (size_t j = cols; j < ld; j++)                                                     \
                ((T *)dst)[i * ld + j] = nan_bits;                                                 \
    } while (0)

static void fill_padding(enum fpd_dtype in, void *dst, size_t rows, size_t cols, size_t ld)
{
    if (ld == cols)
        return;
    unsigned char nan[8];
    fpd_store(in, nan, 0, NAN);
    switch (fpd_dtype_info(in)->size) {
    case 8: PAD_ROWS(uint64_t); break;
    case 4: PAD_ROWS(uint32_t); break;
    default: PAD_ROWS(uint16_t);
    }
}
#undef PAD_ROWS

/* Fill a stored matrix: logical element (r, c) of op(X) lives at storage (c, r) when transposed.
 * Values come from `given` (explicit data, `given_cols` per logical row) or from the generator. */
static void fill_matrix(const struct fpd_case *c, const struct tensor_source *src, const char *given,
                        size_t given_cols, void *dst, size_t rows, size_t cols, size_t ld, bool transposed)
{
    enum fpd_dtype in = c->dt.in;
    size_t es = fpd_dtype_info(in)->size;
    if (given && !transposed) { /* a stored row is a logical row: one copy each */
        for (size_t i = 0; i < rows; i++)
            memcpy((char *)dst + i * ld * es, given + i * given_cols * es, cols * es);
    } else if (given) {
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++)
                fpd_store_bits(in, dst, i * ld + j, fpd_bits(in, given, j * given_cols + i));
    } else {
        fill_generated(src, dst, rows, cols, ld, transposed);
    }
    fill_padding(in, dst, rows, cols, ld); /* after the values: a stored row's spill may cover it */
}

int fpd_gen_materialize(const struct fpd_case *c, struct fpd_tensors *t)
{
    struct fpd_layout l = fpd_case_layout(c);
    const struct fpd_case_data *d = c->data;
    size_t in_size = fpd_dtype_info(c->dt.in)->size, out_size = fpd_dtype_info(c->dt.out)->size;
    if (fpd_grow(&t->a, &t->cap_a, c->batch * l.stride_a * in_size + SPILL_ROOM) != FPD_OK ||
        fpd_grow(&t->b, &t->cap_b, c->batch * l.stride_b * in_size + SPILL_ROOM) != FPD_OK ||
        fpd_grow(&t->bias, &t->cap_bias, (size_t)c->n * out_size + SPILL_ROOM) != FPD_OK)
        return FPD_ERR_NOMEM;
    for (uint32_t b = 0; b < c->batch; b++) {
        struct tensor_source src_a, src_b;
        operand_sources(&c->recipe, c->dt.in, b, &src_a, &src_b);
        /* Keys are logical coordinates, so a transposed layout holds the very same values. */
        const char *given_a = d ? (const char *)d->a + (size_t)b * d->m * d->k * in_size : NULL;
        const char *given_b = d ? (const char *)d->b + (size_t)b * d->k * d->n * in_size : NULL;
        fill_matrix(c, &src_a, given_a, d ? d->k : 0, (char *)t->a + b * l.stride_a * in_size, l.a_rows, l.a_cols,
                    l.lda, c->trans_a);
        fill_matrix(c, &src_b, given_b, d ? d->n : 0, (char *)t->b + b * l.stride_b * in_size, l.b_rows, l.b_cols,
                    l.ldb, c->trans_b);
    }
    if (!c->has_bias) /* nothing reads it */
        return FPD_OK;
    if (d) {
        memcpy(t->bias, d->bias, (size_t)c->n * out_size);
        return FPD_OK;
    }
    struct tensor_source bias = tensor_source(&c->recipe, c->dt.in, FPD_STREAM_BIAS, 0);
    if (c->dt.in == c->dt.out) { /* a stored row of n (SPILL_ROOM after it) */
        fill_generated(&bias, t->bias, 1, c->n, c->n, false);
        return FPD_OK;
    }
    double values[RUN_ROOM];
    for (uint32_t j = 0; j < c->n; j += RUN) {
        uint32_t count = c->n - j < RUN ? c->n - j : RUN;
        source_values(&bias, 0, j, false, count, values);
        for (uint32_t l = 0; l < count; l++) /* dt.in values, stored in dt.out */
            fpd_store(c->dt.out, t->bias, j + l, fpd_round(c->dt.in, values[l]));
    }
    return FPD_OK;
}

void fpd_tensors_free(struct fpd_tensors *t)
{
    fpd_release(&t->a, &t->cap_a);
    fpd_release(&t->b, &t->cap_b);
    fpd_release(&t->bias, &t->cap_bias);
    *t = (struct fpd_tensors){0};
}

/* The inputs in logical, packed form: the case without layout or padding, materialized. */
static int materialize_logical(const struct fpd_case *c, struct fpd_tensors *t)
{
    struct fpd_case logical = *c;
    logical.trans_a = logical.trans_b = false;
    logical.pad = 0;
    logical.has_bias = true; /* the case's data hold a bias whether or not its product adds it */
    return fpd_gen_materialize(&logical, t);
}

int fpd_case_data_capture(const struct fpd_case *c, struct fpd_case_data *out)
{
    *out = (struct fpd_case_data){.batch = c->batch, .m = c->m, .n = c->n, .k = c->k};
    struct fpd_tensors t = {0};
    if (materialize_logical(c, &t) != FPD_OK) {
        fpd_tensors_free(&t);
        return FPD_ERR_NOMEM;
    }
    /* ownership moves to out */
    out->a = t.a, out->b = t.b, out->bias = t.bias;
    out->cap_a = t.cap_a, out->cap_b = t.cap_b, out->cap_bias = t.cap_bias;
    return FPD_OK;
}

int fpd_case_data_hash(const struct fpd_case *c, uint64_t *hash)
{
    struct fpd_tensors t = {0};
    int rc = materialize_logical(c, &t);
    if (rc == FPD_OK) {
        size_t in = fpd_dtype_info(c->dt.in)->size, out = fpd_dtype_info(c->dt.out)->size;
        XXH3_state_t *st = XXH3_createState();
        if (!st) {
            rc = FPD_ERR_NOMEM;
        } else {
            XXH3_64bits_reset(st);
            XXH3_64bits_update(st, t.a, (size_t)c->batch * c->m * c->k * in);
            XXH3_64bits_update(st, t.b, (size_t)c->batch * c->k * c->n * in);
            XXH3_64bits_update(st, t.bias, (size_t)c->n * out);
            *hash = XXH3_64bits_digest(st);
            XXH3_freeState(st);
        }
    }
    fpd_tensors_free(&t);
    return rc;
}
