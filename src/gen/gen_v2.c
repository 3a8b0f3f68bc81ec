/* gen_v2.c — generator 2: a SplitMix64 output per element, keyed by its logical coordinates, LANES
 * at a time. Frozen: cases saved with it (and generator 3's binary64 inputs) take these values. */
#include "gen/values.h"

#include <string.h>

#include "cpu/clones.h"

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
FPD_VECTOR_WIDTH_FUNCTION(void, values_v2,
                          (enum fpd_dist d, enum fpd_dtype in, uint64_t key, uint64_t position,
                           uint64_t step, size_t count, double out[RUN_ROOM]),
                          (d, in, key, position, step, count, out))
{
    const uint64_t dz = step * FPD_RNG_GAMMA;
    for (size_t at = 0; at < count; at += LANES)
        group_v2(d, wide_binades[in], key + (position + at * step) * FPD_RNG_GAMMA, dz, out + at);
}

/* The same values rounded to binary32 (RNE, as fpd_store_run would) and stored at dst[0..count):
 * straight from the registers, where the common f32 inputs would otherwise pass through `out`. */
FPD_VECTOR_WIDTH_FUNCTION(void, values_v2_f32,
                          (enum fpd_dist d, uint64_t key, uint64_t position, uint64_t step, size_t count,
                           float *dst),
                          (d, key, position, step, count, dst))
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

/* The names other files call: FPD_VECTOR_WIDTH_FUNCTION's are static. */
void fpd_gen_v2_values(enum fpd_dist d, enum fpd_dtype in, uint64_t key, uint64_t position, uint64_t step,
                       size_t count, double out[RUN_ROOM])
{
    values_v2(d, in, key, position, step, count, out);
}

void fpd_gen_v2_values_f32(enum fpd_dist d, uint64_t key, uint64_t position, uint64_t step, size_t count, float *dst)
{
    values_v2_f32(d, key, position, step, count, dst);
}
