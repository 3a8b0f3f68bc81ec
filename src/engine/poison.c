/* poison.c — what C holds before a GEMM that must not read it. */
#include "engine/poison.h"

#include "common/dtype.h"
#include "gen/rng.h"

const char *const fpd_poison_names[FPD_POISON_COUNT] = {
    [FPD_POISON_QUIET_NAN] = "quiet NaN",
    [FPD_POISON_SIGNALLING_NAN] = "signalling NaN",
    [FPD_POISON_PLUS_INF] = "+Inf",
    [FPD_POISON_MINUS_INF] = "-Inf",
};

/* Bits per poison and type. The NaNs carry a payload (0xA5 where it fits: fpdiv's canary byte),
 * so an element that kept the poison is told apart from a NaN the arithmetic made; the signalling
 * ones have the quiet bit clear and a payload that is not zero (else they would be infinities). */
static const uint64_t poison_bits[FPD_POISON_COUNT][FPD_DTYPE_COUNT] = {
    [FPD_POISON_QUIET_NAN] = {[FPD_F64] = 0x7ff80000000000a5u, [FPD_F32] = 0x7fc000a5u, [FPD_F16] = 0x7e25u, [FPD_BF16] = 0x7fe5u},
    [FPD_POISON_SIGNALLING_NAN] = {[FPD_F64] = 0x7ff00000000000a5u, [FPD_F32] = 0x7f8000a5u, [FPD_F16] = 0x7c25u, [FPD_BF16] = 0x7fa5u},
    [FPD_POISON_PLUS_INF] = {[FPD_F64] = 0x7ff0000000000000u, [FPD_F32] = 0x7f800000u, [FPD_F16] = 0x7c00u, [FPD_BF16] = 0x7f80u},
    [FPD_POISON_MINUS_INF] = {[FPD_F64] = 0xfff0000000000000u, [FPD_F32] = 0xff800000u, [FPD_F16] = 0xfc00u, [FPD_BF16] = 0xff80u},
};

enum fpd_poison fpd_poison_of(uint64_t seed, uint32_t index)
{
    /* mixed, so that neighbouring indices of one seed get unrelated poisons */
    return (enum fpd_poison)(fpd_rng_mix64(seed + ((uint64_t)index + 1) * FPD_RNG_GAMMA) % FPD_POISON_COUNT);
}

uint64_t fpd_poison_bits(enum fpd_poison poison, enum fpd_dtype t) { return poison_bits[poison][t]; }

/* C's rows x n elements, of type U, ldc apart, set to `bits`: a loop the compiler vectorizes, one per
 * width, without a call per row or element (the first row stored through fpd_store_bits, then
 * copied by a memcpy per row, was about 5% of a check at max-dim 16; this is 2%). */
#define FILL(U)                                                                                    \
    for (size_t i = 0; i < rows; i++)                                                              \
        for (size_t j = 0; j < n; j++)                                                             \
            ((U *)c)[i * ldc + j] = (U)bits

void fpd_poison_fill(enum fpd_poison poison, enum fpd_dtype t, void *c, size_t rows, size_t n, size_t ldc)
{
    uint64_t bits = poison_bits[poison][t];
    if (ldc == n) /* rows without padding: one run */
        n *= rows, rows = 1;
    switch (fpd_dtype_info(t)->size) {
    case 8: FILL(uint64_t); break;
    case 4: FILL(uint32_t); break;
    default: FILL(uint16_t);
    }
}
#undef FILL
