/* rng.c — Philox4x32-10 and the ways fpdiv draws from it. */
#include "rng.h"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u /* golden ratio */
#define PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */

static inline uint32_t mulhilo(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t p = (uint64_t)a * b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

void fpd_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t x0 = ctr[0], x1 = ctr[1], x2 = ctr[2], x3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; round++) {
        uint32_t hi0, hi1;
        uint32_t lo0 = mulhilo(PHILOX_M0, x0, &hi0);
        uint32_t lo1 = mulhilo(PHILOX_M1, x2, &hi1);
        x0 = hi1 ^ x1 ^ k0;
        x1 = lo1;
        x2 = hi0 ^ x3 ^ k1;
        x3 = lo0;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = x0;
    out[1] = x1;
    out[2] = x2;
    out[3] = x3;
}

void fpd_rng_element(uint64_t seed, uint32_t index, unsigned stream, uint32_t batch, uint32_t row, uint32_t col,
                     uint32_t out[4])
{
    const uint32_t ctr[4] = {col, row, (batch & (FPD_RNG_MAX_BATCH - 1)) | ((uint32_t)stream << 24), index};
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    fpd_philox4x32_10(ctr, key, out);
}

uint64_t fpd_rng_tensor_key(uint64_t seed, uint32_t index, unsigned stream, uint32_t batch)
{
    /* Row and column 2^32 - 1 lie past any tensor's extent, so no element's generator-1 block is reused. */
    uint32_t out[4];
    fpd_rng_element(seed, index, stream, batch, UINT32_MAX, UINT32_MAX, out);
    return (uint64_t)out[1] << 32 | out[0];
}

void fpd_stream_init(struct fpd_stream *s, uint64_t seed, uint32_t index)
{
    s->seed = seed;
    s->index = index;
    s->next = 0;
}

uint32_t fpd_stream_u32(struct fpd_stream *s)
{
    uint32_t word = s->next % 4;
    if (word == 0)
        fpd_rng_element(s->seed, s->index, FPD_STREAM_CASE, 0, 0, s->next / 4, s->block);
    s->next++;
    return s->block[word];
}

uint32_t fpd_stream_below(struct fpd_stream *s, uint32_t n)
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

int fpd_stream_chance(struct fpd_stream *s, uint32_t num, uint32_t den) { return fpd_stream_below(s, den) < num; }
