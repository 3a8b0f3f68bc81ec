/*
 * values.h — what gen.c and the generators of each version (gen_v1.c … gen_v4.c) share:
 * the distributions' formulas, the special values, the size of a run of values. Private to gen/.
 *
 * A version's definition is frozen once it ships: a case saved with generator G replays with G's
 * values for ever. A new generator is a new file, and a new row in gen.c's dispatch.
 */
#ifndef FPD_GEN_VALUES_H
#define FPD_GEN_VALUES_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/dtype.h"
#include "engine/case.h"
#include "gen/rng.h"

/* Values along one direction of the Weyl sequence, LANES at a time: fixed-length inner loops
 * over straight-line code, one per distribution, which the compiler vectorizes at -O2, in 64-bit
 * lanes where the CPU has them. */
#define LANES 16
#define RUN 256 /* values per call: amortizes the call and the choice of distribution */
#define RUN_ROOM (RUN + LANES) /* a run's buffer: its last group may run past it */
/* Room past a tensor's last element for the spill of its last stored row (the whole-operand fills
 * store groups of up to LANES values of up to 8 bytes) */
#define SPILL_ROOM ((LANES - 1) * sizeof(double))

#define SQRT3_F32 0x1.bb67aep+0 /* sqrt(3) rounded to binary32: generators 3's and 4's `normal` */

/* Generators 3's and 4's `wide`: the biased exponent from 32-bit word w's bits 23-30, 256 draws over
 * 2 span + 1 binades (some come up once more in 256 than others), centred on the type's bias (127,
 * 1023). Of a uint32_t or of each lane of a vector of them. */
#define WIDE_BINADE(w, span, bias) ((((w) >> 23 & 0xff) * (uint32_t)(2 * (span) + 1) >> 8) - (uint32_t)(span) + (bias))

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

/* A special value of type t, by generator. Up to generator 4 the set held the largest finite value:
 * its products and sums overflow in some orders and not in others, and an order that overflows
 * is outside every rounding bound, so a correct library came out `bound` or `nonfinite` wherever
 * one met an operand above 1. From generator 5 the smallest normal value takes its place: its
 * products with operands below 1 are subnormal, where a flush to zero shows. */
static inline double special_value(unsigned generator, enum fpd_dtype t, uint32_t pick)
{
    const struct fpd_dtype_info *f = fpd_dtype_info(t);
    double min_sub = f->underflow, min_normal = ldexp(1.0, f->emin), max_sub = min_normal - f->underflow;
    const double values[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, min_sub, -max_sub,
                             generator <= 4 ? f->max_finite : min_normal};
    return values[pick % (sizeof values / sizeof values[0])];
}

static inline bool is_special(const struct fpd_recipe *r, uint32_t draw) { return (double)draw < r->special_rate * 0x1p32; }

/* Generator 1: element (row, col) of batch entry `batch` of a stream, from its own Philox block. */
double fpd_gen_v1_element(const struct fpd_recipe *r, enum fpd_dtype in, unsigned stream, uint32_t batch, uint32_t row,
                          uint32_t col);

/* Generator 2 (and generator 3's binary64 inputs): `count` unrounded values along one direction of
 * the Weyl sequence from `position` (the last group may run past `count`: `out` has room). */
void fpd_gen_v2_values(enum fpd_dist d, enum fpd_dtype in, uint64_t key, uint64_t position, uint64_t step,
                       size_t count, double out[RUN_ROOM]);
/* The same values rounded to binary32 (RNE) and stored at dst[0..count). */
void fpd_gen_v2_values_f32(enum fpd_dist d, uint64_t key, uint64_t position, uint64_t step, size_t count, float *dst);

/* Generator 3, narrow inputs: `count` unrounded values along the row or down the column from logical
 * (row, col) on (the last group may run past `count`: `out` has room). */
void fpd_gen_v3_values(enum fpd_dist d, enum fpd_dtype in, uint64_t key, uint32_t row, uint32_t col, bool down,
                       size_t count, double out[RUN_ROOM]);
/* Every element of a stored binary32 operand under generator 3 (without specials), in one call. The
 * last stored row may spill up to LANES - 1 values past the tensor (gen.c leaves room). */
void fpd_gen_v3_fill_f32(enum fpd_dist d, uint64_t key, size_t rows, size_t cols, size_t ld, bool transposed,
                         bool down_columns, void *dst);

/* Generator 4, every input type: `count` unrounded values along the row or down the column from
 * logical (row, col) on (the last group may run past `count`: `out` has room). */
void fpd_gen_v4_values(enum fpd_dist d, enum fpd_dtype in, uint64_t key, uint32_t row, uint32_t col, bool down,
                       size_t count, double out[RUN_ROOM]);
/* Every element of a stored binary32 (binary64) operand under generator 4 (without specials), in
 * one call. The last stored row may spill up to SPILL_ROOM bytes past the tensor (gen.c leaves
 * room). */
void fpd_gen_v4_fill_f32(enum fpd_dist d, uint64_t key, size_t rows, size_t cols, size_t ld, bool transposed,
                         bool down_columns, void *dst);
void fpd_gen_v4_fill_f64(enum fpd_dist d, uint64_t key, size_t rows, size_t cols, size_t ld, bool transposed,
                         bool down_columns, void *dst);

#endif
