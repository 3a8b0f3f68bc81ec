/* gen_v3.c — generator 3, the newest: binary32 arithmetic for narrow inputs, binary64 ones as
 * generator 2. */
#include "gen/values.h"

#include <string.h>

#include "cpu/clones.h"

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

static inline int32_t uniform_raw(uint32_t w) { return (int32_t)w; }

static inline int32_t int_raw(uint32_t w) { return (int32_t)((w >> 4) * 9 >> 28) - 4; }

/* sign from bit 31, significand from bits 0-22, binade from bits 23-30 (WIDE_BINADE) */
static inline int32_t wide_raw(int span, uint32_t w)
{
    return (int32_t)((w & 0x80000000u) | WIDE_BINADE(w, span, 127) << 23 | (w & 0x7fffff));
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

/* The words of the LANES / 2 outputs from z on along a row, N outputs to a vector: each output's
 * low half, then its high half (little-endian). */
#define WORDS_OF_OUTPUTS(N, z, w)                                                                  \
    do {                                                                                           \
        typedef uint64_t outputs_##N __attribute__((vector_size(N * sizeof(uint64_t))));           \
        for (int first = 0; first < LANES / 2; first += N) {                                       \
            outputs_##N steps;                                                                     \
            for (int l = 0; l < N; l++)                                                            \
                steps[l] = (uint64_t)(first + l);                                                  \
            outputs_##N x = FPD_RNG_MIX64((z) + steps * FPD_RNG_GAMMA);                            \
            memcpy((w) + 2 * first, &x, sizeof x);                                                 \
        }                                                                                          \
    } while (0)

/* The raw draws of LANES elements from logical (row, col) on, along the row from an even column
 * (two per SplitMix64 output), or down the column (an output each, the column's half of it). */
static inline __attribute__((always_inline)) void
group_v3(enum fpd_dist d, int span, uint64_t key, uint32_t row, uint32_t col, bool down, int32_t raw[LANES],
         enum fpd_vector_width compiled_for)
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
    } else if (compiled_for == FPD_VECTOR_AVX512) { /* in vectors as wide as the copy's, each copied to
        * the words as it came: from the loop below, gcc took the outputs apart and copied them in
        * pieces narrower than the loads that read them back, which then waited for every piece
        * (store forwarding fails): AVX-512 ran 6x slower, AVX2's `wide` 2x */
        WORDS_OF_OUTPUTS(8, z, w);
    } else if (compiled_for == FPD_VECTOR_AVX2) {
        WORDS_OF_OUTPUTS(4, z, w);
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
                                                              uint32_t col, bool down, size_t at, int32_t raw[LANES],
                                                              enum fpd_vector_width compiled_for)
{
    group_v3(d, span, key, down ? row + (uint32_t)at : row, down ? col : col + (uint32_t)at, down, raw, compiled_for);
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
FPD_VECTOR_WIDTH_FUNCTION(void, values_v3,
                          (enum fpd_dist d, enum fpd_dtype in, uint64_t key, uint32_t row, uint32_t col,
                           bool down, size_t count, double out[RUN_ROOM]),
                          (d, in, key, row, col, down, count, out))
{
    int32_t raw[LANES];
    size_t at = 0;
    if (!down && col % 2 == 1) {
        double v[LANES];
        group_v3(d, wide_binades[in], key, row, col - 1, false, raw, compiled_for);
        values_of_raw(d, raw, v);
        memcpy(out, v + 1, (LANES - 1) * sizeof *v);
        at = LANES - 1;
    }
    for (; at < count; at += LANES) {
        group_v3_at(d, wide_binades[in], key, row, col, down, at, raw, compiled_for);
        values_of_raw(d, raw, out + at);
    }
}

/* The values of a binary32 input rounded and stored at dst[0..count), from an even column along
 * a row (or any, down a column). The last group is stored whole, up to LANES - 1 elements past
 * count, which the caller overwrites afterwards: a short row's tail through a buffer and a
 * variable-length copy cost about as much as the row. */
static inline __attribute__((always_inline)) void run_v3_f32(enum fpd_dist d, bool down, uint64_t key, uint32_t row,
                                                             uint32_t col, size_t count, float *dst,
                                                             enum fpd_vector_width compiled_for)
{
    int32_t raw[LANES];
    for (size_t at = 0; at < count; at += LANES) {
        group_v3_at(d, wide_binades[FPD_F32], key, row, col, down, at, raw, compiled_for);
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
                                                              size_t rows, size_t cols, size_t ld, float *dst,
                                                              enum fpd_vector_width compiled_for)
{
    size_t i = 0;
    if (transposed && columns_in_pairs(d)) /* a transposed operand's stored row is a logical column */
        for (; i + 1 < rows; i += 2)
            column_pair_v3_f32(d, key, (uint32_t)i, cols, dst + i * ld, dst + (i + 1) * ld);
    for (; i < rows; i++)
        run_v3_f32(d, transposed, key, transposed ? 0 : (uint32_t)i, transposed ? (uint32_t)i : 0, cols, dst + i * ld,
                   compiled_for);
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
                                                                 size_t rows, size_t cols, size_t ld, float *dst,
                                                                 enum fpd_vector_width compiled_for)
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
                                transposed ? 0 : (uint32_t)j, !transposed, at, raw, compiled_for);
                }
                store_down_f32(d, raw, count, ld, dst + at * ld + j);
            }
        }
}

#define FILL_V3_F32(dist)                                                                                              \
    (down_columns ? (transposed ? columns_v3_f32(dist, true, key, rows, cols, ld, dst, compiled_for)                                 \
                                : columns_v3_f32(dist, false, key, rows, cols, ld, dst, compiled_for))                               \
                  : (transposed ? rows_v3_f32(dist, true, key, rows, cols, ld, dst, compiled_for)                                    \
                                : rows_v3_f32(dist, false, key, rows, cols, ld, dst, compiled_for)))

/* Every element of a stored binary32 operand under generator 3 (without specials), in one call:
 * one loop per distribution, direction and orientation, each compiled with all three constant,
 * straight-line groups without a choice inside, and no call per row (a short row costs little
 * more than the call). */
FPD_VECTOR_WIDTH_FUNCTION(void, fill_v3_f32,
                          (enum fpd_dist d, uint64_t key, size_t rows, size_t cols, size_t ld,
                           bool transposed, bool down_columns, float *dst),
                          (d, key, rows, cols, ld, transposed, down_columns, dst))
{
    switch (d) {
    case FPD_DIST_NORMAL: FILL_V3_F32(FPD_DIST_NORMAL); break;
    case FPD_DIST_UNIFORM: FILL_V3_F32(FPD_DIST_UNIFORM); break;
    case FPD_DIST_INT: FILL_V3_F32(FPD_DIST_INT); break;
    default: FILL_V3_F32(FPD_DIST_WIDE);
    }
}
#undef FILL_V3_F32

/* The names other files call: FPD_VECTOR_WIDTH_FUNCTION's are static. */
void fpd_gen_v3_values(enum fpd_dist d, enum fpd_dtype in, uint64_t key, uint32_t row, uint32_t col, bool down,
                       size_t count, double out[RUN_ROOM])
{
    values_v3(d, in, key, row, col, down, count, out);
}

void fpd_gen_v3_fill_f32(enum fpd_dist d, uint64_t key, size_t rows, size_t cols, size_t ld, bool transposed,
                         bool down_columns, void *dst)
{
    fill_v3_f32(d, key, rows, cols, ld, transposed, down_columns, dst);
}
