/*
 * rng.h — counter-based random numbers: Philox4x32-10 (Salmon et al., SC'11) and SplitMix64 steps.
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
/* Two blocks under one key, side by side: a block is a dependent chain, and two interleaved take
 * about the time of one. */
void fpd_philox4x32_10_x2(const uint32_t ctr[2][4], const uint32_t key[2], uint32_t out[2][4]);
/* Eight blocks under one key, counters ctr with word 0 plus 0, 1, ..., 7 (mod 2^32), side by side
 * in vector lanes where fpd_vector_width() is AVX-512 or AVX2: out[j][b] is word j of block b. */
void fpd_philox4x32_10_x8(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4][8]);

/* The tensor field of the counter: which stream a value belongs to (8 bits). */
enum fpd_stream_id {
    FPD_STREAM_CASE = 0, /* the case's own choices in `fuzz`: relation, backend, shape, … */
    FPD_STREAM_A = 1,
    FPD_STREAM_B = 2,
    FPD_STREAM_BIAS = 3,
    FPD_STREAM_SPECIAL = 0x80, /* OR-ed onto a tensor id: where special values go */
};

#define FPD_RNG_MAX_BATCH (1u << 24) /* batch shares a counter word with the 8-bit stream id */

/* The 128 random bits of one element under generator 1 (and the source of every other draw).
 * Counter: {col, row, batch | stream << 24, index}; key: seed. */
void fpd_rng_element(uint64_t seed, uint32_t index, unsigned stream, uint32_t batch, uint32_t row, uint32_t col,
                     uint32_t out[4]);

/* Generator 2 draws an element's 64 random bits from one SplitMix64 output step (Steele, Lea and
 * Flood, OOPSLA'14) at the Weyl-sequence position of its coordinates, offset by a Philox-derived
 * key per tensor: two multiplies per element instead of a 10-round Philox block, and the lanes of
 * a row vectorize. Row r's columns are consecutive positions of the sequence, rows 2^32 apart,
 * and a tensor's key places it at an independent random offset. */
uint64_t fpd_rng_tensor_key(uint64_t seed, uint32_t index, unsigned stream, uint32_t batch);
/* Two tensors' keys (stream[i], batch[i]) side by side. */
void fpd_rng_tensor_keys2(uint64_t seed, uint32_t index, const unsigned stream[2], const uint32_t batch[2],
                          uint64_t keys[2]);

#define FPD_RNG_GAMMA 0x9e3779b97f4a7c15ull /* SplitMix64's increment: 2^64 / golden ratio, odd */

/* The Weyl-sequence position of logical element (row, col): stepping a column adds 1, a row 2^32. */
static inline uint64_t fpd_rng_position(uint32_t row, uint32_t col) { return (uint64_t)row << 32 | col; }

/* SplitMix64's output function (David Stafford's Mix13): a bijection with full avalanche. Of a
 * uint64_t, or of each lane of a vector of them (gcc's vector extensions). */
#define FPD_RNG_MIX64(value)                                                                       \
    ({                                                                                             \
        __typeof__(value) z_ = (value);                                                            \
        z_ = (z_ ^ (z_ >> 30)) * 0xbf58476d1ce4e5b9ull;                                            \
        z_ = (z_ ^ (z_ >> 27)) * 0x94d049bb133111ebull;                                            \
        z_ ^ (z_ >> 31);                                                                           \
    })

static inline uint64_t fpd_rng_mix64(uint64_t z) { return FPD_RNG_MIX64(z); }

/* Whether case `index` of the campaign of `seed` is drawn, one in `every`, by a draw of its own: the
 * seed mixed with `salt`, so that no other draw of the case moves (the empty product, the special
 * values, the sampled exact reference). */
static inline bool fpd_rng_one_in(uint64_t seed, uint64_t salt, uint32_t index, uint64_t every)
{
    return fpd_rng_mix64(fpd_rng_mix64(seed ^ salt) + ((uint64_t)index + 1) * FPD_RNG_GAMMA) % every == 0;
}

static inline uint64_t fpd_rng_bits64(uint64_t tensor_key, uint64_t position)
{
    return fpd_rng_mix64(tensor_key + position * FPD_RNG_GAMMA);
}

/* A sequence of draws for one case's choices: draw d is word d%4 of block {d/4, 0, 0, index}. */
struct fpd_stream {
    uint64_t seed;
    uint32_t index;
    uint32_t next;        /* draws taken so far */
    uint32_t first;       /* the draw words[0][0] holds */
    uint32_t end;         /* one past the last draw words holds */
    uint32_t words[4][8]; /* eight blocks, as fpd_philox4x32_10_x8 gives them */
};

void fpd_stream_init(struct fpd_stream *s, uint64_t seed, uint32_t index);
/* The next eight blocks into words: fpd_stream_u32 calls it every 32 draws. */
void fpd_stream_refill(struct fpd_stream *s);

/* The draws inline: a check's plan takes about fifteen, and a call each cost more than the draw. */
static inline uint32_t fpd_stream_u32(struct fpd_stream *s)
{
    if (s->next == s->end)
        fpd_stream_refill(s);
    uint32_t at = s->next++ - s->first;
    return s->words[at % 4][at / 4];
}

/* Uniform in [0, n), n > 0, without modulo bias (Lemire's multiply-and-reject). */
static inline uint32_t fpd_stream_below(struct fpd_stream *s, uint32_t n)
{
    uint64_t m = (uint64_t)fpd_stream_u32(s) * n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (uint64_t)fpd_stream_u32(s) * n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* True with probability num/den. */
static inline int fpd_stream_chance(struct fpd_stream *s, uint32_t num, uint32_t den)
{
    return fpd_stream_below(s, den) < num;
}

#endif
