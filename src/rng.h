/*
 * rng.h — counter-based random numbers (Philox4x32-10, Salmon et al., SC'11).
 *
 * Every random value fpdiv uses is a pure function of (seed, case index, tensor, batch, row, col):
 * there is no sequential state to advance, so growing or shrinking a dimension leaves every other
 * element bit-identical, and case i of a campaign can be regenerated alone.
 */
#ifndef FPD_RNG_H
#define FPD_RNG_H

#include <stdbool.h>
#include <stdint.h>

/* One Philox4x32-10 block: out = philox(ctr, key). */
void fpd_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* The tensor field of the counter: which stream a value belongs to (8 bits). */
enum fpd_stream_id {
    FPD_STREAM_CASE = 0, /* the case's own choices in `fuzz`: relation, backend, shape, … */
    FPD_STREAM_A = 1,
    FPD_STREAM_B = 2,
    FPD_STREAM_BIAS = 3,
    FPD_STREAM_SPECIAL = 0x80, /* OR-ed onto a tensor id: where special values go */
};

#define FPD_RNG_MAX_BATCH (1u << 24) /* batch shares a counter word with the 8-bit stream id */

/* The 128 random bits of one element. Counter: {col, row, batch | stream << 24, index}; key: seed. */
void fpd_rng_element(uint64_t seed, uint32_t index, unsigned stream, uint32_t batch, uint32_t row, uint32_t col,
                     uint32_t out[4]);

/* The same for 16 consecutive elements along one coordinate: lane l has col + l (along == 0) or
 * row + l (along == 1). out[w][l] is word w of lane l. Vectorized where the CPU allows. */
void fpd_rng_element_x16(uint64_t seed, uint32_t index, unsigned stream, uint32_t batch, uint32_t row, uint32_t col,
                         int along, uint32_t out[4][16]);
/* Which implementation of fpd_rng_element_x16 runs: by CPU (default), or one forced for tests.
 * Returns false (and changes nothing) when this CPU cannot run the one asked for. */
enum fpd_rng_isa { FPD_RNG_ISA_AUTO, FPD_RNG_ISA_PORTABLE, FPD_RNG_ISA_AVX2, FPD_RNG_ISA_AVX512 };
bool fpd_rng_force_isa(enum fpd_rng_isa isa);

/* A sequence of draws for one case's choices: draw d is word d%4 of block {d/4, 0, 0, index}. */
struct fpd_stream {
    uint64_t seed;
    uint32_t index;
    uint32_t next; /* draws taken so far */
    uint32_t block[4];
};

void fpd_stream_init(struct fpd_stream *s, uint64_t seed, uint32_t index);
uint32_t fpd_stream_u32(struct fpd_stream *s);
/* Uniform in [0, n), n > 0, without modulo bias (Lemire's multiply-and-reject). */
uint32_t fpd_stream_below(struct fpd_stream *s, uint32_t n);
/* True with probability num/den. */
int fpd_stream_chance(struct fpd_stream *s, uint32_t num, uint32_t den);

#endif
