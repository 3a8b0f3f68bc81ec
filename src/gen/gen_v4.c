/* gen_v4.c — generator 4, the newest: a keyed 32-bit hash per element, computed in 32-bit vector
 * lanes, for every input type. */
#include "gen/values.h"

#include <string.h>

#include "cpu/clones.h"

/* Generator 3 took its bits from SplitMix64, whose two 64-bit multiplies per output AVX2 has no
 * instruction for (each is three 32-bit ones and their shifts), so an AVX2 machine spent 4-5x the
 * time of an AVX-512 one on each element, and a column's elements took one output each. Generator
 * 4 takes them from 32-bit arithmetic that every x86-64 vector unit has, lane for lane.
 *
 * Position. Logical element (row, col) of a tensor sits at
 *     p = k0 + STEP * (col + STEP * row)  (mod 2^32),
 * k0 the low half of the tensor's key (fpd_rng_tensor_key, as generators 2 and 3). Along a row p
 * advances by STEP, down a column by STEP^2: any direction is one step per element, so a stored
 * row of a transposed operand is computed as fast as one of a plain operand. STEP is 2^32 over the
 * golden ratio, odd: the multiplier of the Fibonacci lattice, whose shortest vectors are about as
 * long as two dimensions allow: no two elements of a tensor of at most 52777 rows and 52777 columns
 * share a position, nor any two of one row or one column (tests/unit/frozen_stream_v4.py checks the
 * lattice).
 *
 * Hash. Chris Wellons's triple32 (three multiply-xorshift rounds, measured bias 0.02), with the
 * high half of the key, k1, XORed in after its first round: tensors whose positions happen to
 * overlap still differ through two full rounds. Every step is a bijection of 32-bit words, so the
 * elements along a row of fewer than 2^32 are distinct words.
 *
 * Values, from word w (word 2, where one is wanted, is the hash with key ~k1: the same first round,
 * then two different ones):
 *   uniform  (int32)w * 2^-31; for binary64 the 53 bits (int64)(w:word2) >> 11, times 2^-52
 *   int      ((w >> 4) * 9 >> 28) - 4, as generator 3
 *   wide     sign bit 31, binade from bits 23-30, significand bits 0-22 as generator 3; binary64
 *            appends word 2's high 29 bits to the significand
 *   normal   the four 16-bit quarters of w and word 2, less their mean, times sqrt(3) rounded to
 *            binary32, as generator 3: (sum + 2 - 2^17) * 2^-16 * SQRT3_F32
 * Each is an exact binary64 value, rounded once (RNE) to the input type. */
#define STEP 0x9e3779b9u

/* The hash's first round, which both words share, and the keyed rest (of a uint32_t or of each lane
 * of a vector of them). */
#define FIRST_ROUND(x)                                                                             \
    ({                                                                                             \
        __typeof__((x) ^ 0u) h_ = (x); /* (x) ^ 0u: the type without const */                      \
        h_ ^= h_ >> 17;                                                                            \
        h_ * 0xed5ad4bbu;                                                                          \
    })
#define KEYED_ROUNDS(y, key)                                                                       \
    ({                                                                                             \
        __typeof__((y) ^ 0u) h_ = (y) ^ (key);                                                     \
        h_ ^= h_ >> 11;                                                                            \
        h_ *= 0xac4c1b51u;                                                                         \
        h_ ^= h_ >> 15;                                                                            \
        h_ *= 0x31848babu;                                                                         \
        h_ ^ (h_ >> 14);                                                                           \
    })

/* The 32-bit "raw" draw of a narrow element from its hash's first round y: its value is
 * raw * 2^-31 (uniform), raw (int), raw * 2^-16 * SQRT3_F32 (normal), or the binary32 whose bits
 * raw holds (wide). SIGNED is the signed type of y's width. */
#define RAW_DRAW(d, span, y, key, SIGNED)                                                          \
    ({                                                                                             \
        __typeof__((y) ^ 0u) w_ = KEYED_ROUNDS(y, key);                                            \
        SIGNED raw_;                                                                               \
        switch (d) {                                                                               \
        case FPD_DIST_NORMAL: {                                                                    \
            __typeof__((y) ^ 0u) w2_ = KEYED_ROUNDS(y, ~(key));                                    \
            raw_ = (SIGNED)((w_ & 0xffff) + (w_ >> 16) + (w2_ & 0xffff) + (w2_ >> 16)) + (2 - (1 << 17)); \
            break;                                                                                 \
        }                                                                                          \
        case FPD_DIST_UNIFORM: raw_ = (SIGNED)w_; break;                                           \
        case FPD_DIST_INT: raw_ = (SIGNED)((w_ >> 4) * 9 >> 28) - 4; break;                        \
        default:                                                                                   \
            raw_ = (SIGNED)((w_ & 0x80000000u) | WIDE_BINADE(w_, span, 127) << 23 | (w_ & 0x7fffff));   \
        }                                                                                          \
        raw_;                                                                                      \
    })

/* A raw draw's binary32 value, rounded once: FLOAT is the float type of raw's width. */
#define FLOAT_OF_RAW(d, raw, FLOAT)                                                                \
    ((d) == FPD_DIST_WIDE      ? (FLOAT)(raw) /* its bits */                                       \
     : (d) == FPD_DIST_NORMAL  ? __builtin_convertvector(raw, FLOAT) * (float)(0x1p-16 * SQRT3_F32) \
     : (d) == FPD_DIST_UNIFORM ? __builtin_convertvector(raw, FLOAT) * 0x1p-31f                    \
                               : __builtin_convertvector(raw, FLOAT))

/* The exact value of element at position p, for input type `in`: the model the vector paths
 * follow, lane for lane. */
static inline __attribute__((always_inline)) double value_at(enum fpd_dist d, enum fpd_dtype in, uint32_t k1,
                                                              uint32_t p)
{
    const uint32_t y = FIRST_ROUND(p), w = KEYED_ROUNDS(y, k1);
    if (in == FPD_F64 && (d == FPD_DIST_UNIFORM || d == FPD_DIST_WIDE)) {
        const uint32_t w2 = KEYED_ROUNDS(y, ~k1);
        /* uniform: (int64)(w:w2) >> 11 times 2^-52, as two exact terms whose sum is exact too (a
         * 64-bit integer's conversion, which AVX2 does not have, took 3x the time) */
        if (d == FPD_DIST_UNIFORM)
            return (double)(int32_t)w * 0x1p-31 + (double)(int32_t)(w2 >> 11) * 0x1p-52;
        uint64_t binade = WIDE_BINADE(w, wide_binades[FPD_F64], 1023);
        uint64_t bits = (uint64_t)(w >> 31) << 63 | binade << 52 | (uint64_t)(w & 0x7fffff) << 29 | w2 >> 3;
        double v;
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    int32_t raw;
    switch (d) { /* RAW_DRAW's switch on a constant: each case its own copy */
    case FPD_DIST_NORMAL: raw = RAW_DRAW(FPD_DIST_NORMAL, 0, y, k1, int32_t); return (double)raw * 0x1p-16 * SQRT3_F32;
    case FPD_DIST_UNIFORM: raw = RAW_DRAW(FPD_DIST_UNIFORM, 0, y, k1, int32_t); return (double)raw * 0x1p-31;
    case FPD_DIST_INT: raw = RAW_DRAW(FPD_DIST_INT, 0, y, k1, int32_t); return (double)raw;
    default: {
        raw = RAW_DRAW(FPD_DIST_WIDE, wide_binades[in], y, k1, int32_t);
        float f;
        memcpy(&f, &raw, sizeof f);
        return (double)f;
    }
    }
}

/* Position steps: along a logical row, and down a logical column. */
static const uint32_t along_row = STEP, down_column = STEP * STEP;

static inline uint32_t position(uint64_t key, uint32_t row, uint32_t col)
{
    return (uint32_t)key + STEP * (col + STEP * row);
}

/* `count` unrounded values along the row or down the column from logical (row, col) on (a loop
 * the compiler vectorizes; the last group may run past `count`: `out` has room). */
FPD_VECTOR_WIDTH_FUNCTION(void, values_v4,
                          (enum fpd_dist d, enum fpd_dtype in, uint64_t key, uint32_t row, uint32_t col,
                           bool down, size_t count, double out[RUN_ROOM]),
                          (d, in, key, row, col, down, count, out))
{
    const uint32_t k1 = (uint32_t)(key >> 32), first = position(key, row, col), step = down ? down_column : along_row;
#define VALUES(dist, type)                                                                         \
    for (size_t at = 0; at < count; at += LANES)                                                   \
        for (uint32_t l = 0; l < LANES; l++)                                                       \
            out[at + l] = value_at(dist, type, k1, first + (uint32_t)(at + l) * step)
    switch (d) { /* a loop for each, without a choice inside */
    case FPD_DIST_NORMAL: VALUES(FPD_DIST_NORMAL, in); break;
    case FPD_DIST_INT: VALUES(FPD_DIST_INT, in); break;
    case FPD_DIST_UNIFORM:
        if (in == FPD_F64)
            VALUES(FPD_DIST_UNIFORM, FPD_F64);
        else
            VALUES(FPD_DIST_UNIFORM, in);
        break;
    default:
        if (in == FPD_F64)
            VALUES(FPD_DIST_WIDE, FPD_F64);
        else
            VALUES(FPD_DIST_WIDE, in);
    }
#undef VALUES
}

/* The vectors of each width's copy, N lanes: the 32-bit words' as wide as the registers (gcc split
 * wider ones through memory), the doubles made of them two registers each. */
#define VECTOR_TYPES(N)                                                                            \
    typedef uint32_t u32x##N __attribute__((vector_size(4 * (N))));                                \
    typedef int32_t i32x##N __attribute__((vector_size(4 * (N))));                                 \
    typedef float f32x##N __attribute__((vector_size(4 * (N))));                                   \
    typedef uint64_t u64x##N __attribute__((vector_size(8 * (N))));                                \
    typedef double f64x##N __attribute__((vector_size(8 * (N))));
VECTOR_TYPES(4)
VECTOR_TYPES(8)
VECTOR_TYPES(16)
#undef VECTOR_TYPES

/* The binary32 values of the N elements at positions p (a u32xN). */
#define FLOATS_AT(N, d, k1, p)                                                                     \
    ({                                                                                             \
        i32x##N draws_ = RAW_DRAW(d, wide_binades[FPD_F32], FIRST_ROUND(p), k1, i32x##N);          \
        FLOAT_OF_RAW(d, draws_, f32x##N);                                                          \
    })

/* The binary64 values of the N elements at positions p, lane for lane value_at's. */
#define DOUBLES_AT(N, d, k1, p)                                                                    \
    ({                                                                                             \
        const u32x##N y_ = FIRST_ROUND(p);                                                         \
        f64x##N v_;                                                                                \
        if ((d) == FPD_DIST_UNIFORM || (d) == FPD_DIST_WIDE) {                                     \
            const u32x##N w_ = KEYED_ROUNDS(y_, k1), w2_ = KEYED_ROUNDS(y_, ~(k1));                \
            if ((d) == FPD_DIST_UNIFORM) {                                                         \
                v_ = __builtin_convertvector((i32x##N)w_, f64x##N) * 0x1p-31 +                     \
                     __builtin_convertvector((i32x##N)(w2_ >> 11), f64x##N) * 0x1p-52;             \
            } else {                                                                               \
                const u32x##N binade_ = WIDE_BINADE(w_, wide_binades[FPD_F64], 1023);              \
                const u64x##N bits_ = __builtin_convertvector(w_ >> 31, u64x##N) << 63 |           \
                                      __builtin_convertvector(binade_, u64x##N) << 52 |            \
                                      __builtin_convertvector(w_ & 0x7fffff, u64x##N) << 29 |      \
                                      __builtin_convertvector(w2_ >> 3, u64x##N);                  \
                v_ = (f64x##N)bits_;                                                               \
            }                                                                                      \
        } else {                                                                                   \
            const i32x##N draws_ = RAW_DRAW(d, 0, y_, k1, i32x##N);                                \
            v_ = __builtin_convertvector(draws_, f64x##N);                                         \
            if ((d) == FPD_DIST_NORMAL)                                                            \
                v_ *= 0x1p-16 * SQRT3_F32; /* exact: 17 bits times 24 */                           \
        }                                                                                          \
        v_;                                                                                        \
    })

/* The positions of N elements `step` apart from `first` on: a u32xN. */
#define POSITIONS(N, first, step)                                                                  \
    ({                                                                                             \
        u32x##N p_;                                                                                \
        for (uint32_t l_ = 0; l_ < (N); l_++)                                                      \
            p_[l_] = (first) + l_ * (step);                                                        \
        p_;                                                                                        \
    })

/* Stored rows of N lanes at a time, each whole before the next: a row's last vector spills up to
 * N - 1 values into its padding and the next row's start, written afterwards (the last row's into
 * the next batch entry's, or SPILL_ROOM). `first` is the position of stored element
 * (0, 0); a stored row advances it by `row_step`, an element along one by `step`. VALUES_AT is
 * FLOATS_AT or DOUBLES_AT, T the element type. */
#define ROWS(N, T, VALUES_AT, d, k1, first, row_step, step, rows, cols, ld, dst)                   \
    do {                                                                                           \
        const u32x##N lanes_ = POSITIONS(N, 0u, step);                                             \
        for (size_t i_ = 0; i_ < (rows); i_++) {                                                   \
            u32x##N p_ = ((first) + (uint32_t)i_ * (row_step)) + lanes_;                           \
            T *row_ = (T *)(dst) + i_ * (ld);                                                      \
            for (size_t j_ = 0; j_ < (cols); j_ += (N), p_ += (uint32_t)(N) * (step)) {            \
                __typeof__(VALUES_AT(N, d, k1, p_)) v_ = VALUES_AT(N, d, k1, p_);                  \
                memcpy(row_ + j_, &v_, sizeof v_);                                                 \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Down the stored columns, N rows at a time, each value stored alone, ld apart: for operands
 * whose stored rows are short (a vector along one would compute mostly values it drops). */
#define COLUMNS(N, T, VALUES_AT, d, k1, first, row_step, step, rows, cols, ld, dst)                \
    do {                                                                                           \
        const u32x##N lanes_ = POSITIONS(N, 0u, row_step);                                         \
        for (size_t j_ = 0; j_ < (cols); j_++) {                                                   \
            u32x##N p_ = ((first) + (uint32_t)j_ * (step)) + lanes_;                               \
            for (size_t i_ = 0; i_ < (rows); i_ += (N), p_ += (uint32_t)(N) * (row_step)) {        \
                __typeof__(VALUES_AT(N, d, k1, p_)) v_ = VALUES_AT(N, d, k1, p_);                  \
                for (size_t l_ = 0; l_ < (N) && i_ + l_ < (rows); l_++)                            \
                    ((T *)(dst))[(i_ + l_) * (ld) + j_] = v_[l_];                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* One distribution's loops in N-lane vectors, `d` a constant. */
#define FILL_IN(N, T, VALUES_AT, d)                                                                \
    do {                                                                                           \
        if (down_columns)                                                                          \
            COLUMNS(N, T, VALUES_AT, d, k1, first, row_step, step, rows, cols, ld, dst);           \
        else                                                                                       \
            ROWS(N, T, VALUES_AT, d, k1, first, row_step, step, rows, cols, ld, dst);              \
    } while (0)

/* A fill function's body: the loops of each distribution, LANES_512 or LANES_256 lanes at a time
 * (baseline 4), whose values of type T VALUES_AT computes. The lanes fill the registers with 32-bit
 * words: binary64 values then take two registers each, where as many lanes as the registers hold
 * of them left the hash half idle and ran 1.5-2x slower. */
#define FILL_BODY(T, VALUES_AT, LANES_512, LANES_256)                                              \
    const uint32_t k1 = (uint32_t)(key >> 32), first = position(key, 0, 0);                        \
    const uint32_t row_step = transposed ? along_row : down_column, step = transposed ? down_column : along_row; \
    switch (d) {                                                                                   \
    case FPD_DIST_NORMAL: FILL_WIDTHS(T, VALUES_AT, LANES_512, LANES_256, FPD_DIST_NORMAL); break; \
    case FPD_DIST_UNIFORM: FILL_WIDTHS(T, VALUES_AT, LANES_512, LANES_256, FPD_DIST_UNIFORM); break; \
    case FPD_DIST_INT: FILL_WIDTHS(T, VALUES_AT, LANES_512, LANES_256, FPD_DIST_INT); break;       \
    default: FILL_WIDTHS(T, VALUES_AT, LANES_512, LANES_256, FPD_DIST_WIDE);                       \
    }
#define FILL_WIDTHS(T, VALUES_AT, LANES_512, LANES_256, d)                                         \
    do {                                                                                           \
        if (compiled_for == FPD_VECTOR_AVX512)                                                     \
            FILL_IN(LANES_512, T, VALUES_AT, d);                                                   \
        else if (compiled_for == FPD_VECTOR_AVX2)                                                  \
            FILL_IN(LANES_256, T, VALUES_AT, d);                                                   \
        else                                                                                       \
            FILL_IN(4, T, VALUES_AT, d);                                                           \
    } while (0)

_Static_assert((16 - 1) * sizeof(double) <= SPILL_ROOM, "a stored row's spill fits in SPILL_ROOM");

/* Every element of a stored binary32 (binary64) operand, without specials, in one call:
 * straight-line vectors, the distribution, direction and width constant in each loop. A transposed
 * operand's stored row is a logical column. */
FPD_VECTOR_WIDTH_FUNCTION(void, fill_v4_f32,
                          (enum fpd_dist d, uint64_t key, size_t rows, size_t cols, size_t ld,
                           bool transposed, bool down_columns, void *dst),
                          (d, key, rows, cols, ld, transposed, down_columns, dst))
{
    FILL_BODY(float, FLOATS_AT, 16, 8)
}

FPD_VECTOR_WIDTH_FUNCTION(void, fill_v4_f64,
                          (enum fpd_dist d, uint64_t key, size_t rows, size_t cols, size_t ld,
                           bool transposed, bool down_columns, void *dst),
                          (d, key, rows, cols, ld, transposed, down_columns, dst))
{
    FILL_BODY(double, DOUBLES_AT, 16, 8)
}
#undef FILL_BODY
#undef FILL_WIDTHS
#undef FILL_IN

/* The names other files call: FPD_VECTOR_WIDTH_FUNCTION's are static. */
void fpd_gen_v4_values(enum fpd_dist d, enum fpd_dtype in, uint64_t key, uint32_t row, uint32_t col, bool down,
                       size_t count, double out[RUN_ROOM])
{
    values_v4(d, in, key, row, col, down, count, out);
}

void fpd_gen_v4_fill_f32(enum fpd_dist d, uint64_t key, size_t rows, size_t cols, size_t ld, bool transposed,
                         bool down_columns, void *dst)
{
    fill_v4_f32(d, key, rows, cols, ld, transposed, down_columns, dst);
}

void fpd_gen_v4_fill_f64(enum fpd_dist d, uint64_t key, size_t rows, size_t cols, size_t ld, bool transposed,
                         bool down_columns, void *dst)
{
    fill_v4_f64(d, key, rows, cols, ld, transposed, down_columns, dst);
}
