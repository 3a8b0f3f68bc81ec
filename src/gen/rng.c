/* rng.c — Philox4x32-10 and the ways fpdiv draws from it. */
#include "gen/rng.h"

#include <string.h>

#include "cpu/vector_width.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u /* golden ratio */
#define PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */

struct philox_state {
    uint32_t x0, x1, x2, x3;
};

static inline __attribute__((always_inline)) void philox_round(struct philox_state *s, uint32_t k0, uint32_t k1)
{
    uint64_t p0 = (uint64_t)PHILOX_M0 * s->x0, p1 = (uint64_t)PHILOX_M1 * s->x2;
    uint32_t x0 = (uint32_t)(p1 >> 32) ^ s->x1 ^ k0, x2 = (uint32_t)(p0 >> 32) ^ s->x3 ^ k1;
    *s = (struct philox_state){x0, (uint32_t)p1, x2, (uint32_t)p0};
}

static inline struct philox_state philox_load(const uint32_t ctr[4])
{
    return (struct philox_state){ctr[0], ctr[1], ctr[2], ctr[3]};
}

static inline void philox_store(const struct philox_state *s, uint32_t out[4])
{
    out[0] = s->x0, out[1] = s->x1, out[2] = s->x2, out[3] = s->x3;
}

void fpd_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    struct philox_state s = philox_load(ctr);
    uint32_t k0 = key[0], k1 = key[1];
#pragma GCC unroll 10
    for (int round = 0; round < 10; round++, k0 += PHILOX_W0, k1 += PHILOX_W1)
        philox_round(&s, k0, k1);
    philox_store(&s, out);
}

/* The two blocks' rounds interleaved and unrolled, so that the CPU runs the two dependent
 * chains side by side (two calls back to back overlap far less: BENCHMARKS.md, Generation). */
void fpd_philox4x32_10_x2(const uint32_t ctr[2][4], const uint32_t key[2], uint32_t out[2][4])
{
    struct philox_state s = philox_load(ctr[0]), t = philox_load(ctr[1]);
    uint32_t k0 = key[0], k1 = key[1];
#pragma GCC unroll 10
    for (int round = 0; round < 10; round++, k0 += PHILOX_W0, k1 += PHILOX_W1) {
        philox_round(&s, k0, k1);
        philox_round(&t, k0, k1);
    }
    philox_store(&s, out[0]);
    philox_store(&t, out[1]);
}

static void element_counter(uint32_t index, unsigned stream, uint32_t batch, uint32_t row, uint32_t col,
                            uint32_t ctr[4])
{
    ctr[0] = col, ctr[1] = row, ctr[2] = (batch & (FPD_RNG_MAX_BATCH - 1)) | ((uint32_t)stream << 24), ctr[3] = index;
}

static void seed_key(uint64_t seed, uint32_t key[2]) { key[0] = (uint32_t)seed, key[1] = (uint32_t)(seed >> 32); }

void fpd_rng_element(uint64_t seed, uint32_t index, unsigned stream, uint32_t batch, uint32_t row, uint32_t col,
                     uint32_t out[4])
{
    uint32_t ctr[4], key[2];
    element_counter(index, stream, batch, row, col, ctr);
    seed_key(seed, key);
    fpd_philox4x32_10(ctr, key, out);
}

/* A tensor's key: the first two words of its block at row and column 2^32 - 1, which lie past any
 * tensor's extent, so that no element's generator-1 block is reused. */
static uint64_t key_of_block(const uint32_t block[4]) { return (uint64_t)block[1] << 32 | block[0]; }

uint64_t fpd_rng_tensor_key(uint64_t seed, uint32_t index, unsigned stream, uint32_t batch)
{
    uint32_t out[4];
    fpd_rng_element(seed, index, stream, batch, UINT32_MAX, UINT32_MAX, out);
    return key_of_block(out);
}

void fpd_rng_tensor_keys2(uint64_t seed, uint32_t index, const unsigned stream[2], const uint32_t batch[2],
                          uint64_t keys[2])
{
    uint32_t ctr[2][4], key[2], out[2][4];
    for (int i = 0; i < 2; i++)
        element_counter(index, stream[i], batch[i], UINT32_MAX, UINT32_MAX, ctr[i]);
    seed_key(seed, key);
    fpd_philox4x32_10_x2(ctr, key, out);
    for (int i = 0; i < 2; i++)
        keys[i] = key_of_block(out[i]);
}

#if defined(__x86_64__)
typedef uint64_t u64x8 __attribute__((vector_size(64)));
typedef uint32_t u32x8 __attribute__((vector_size(32)));
typedef uint64_t u64x4 __attribute__((vector_size(32)));
typedef uint32_t u32x4 __attribute__((vector_size(16)));

/* A round on lanes of 64 bits holding 32: the multiplies read only the low halves, so the high
 * halves' garbage never reaches a result, and the stores keep only the low halves. */
#define PHILOX_LANES_ROUND(T, MUL, x0, x1, x2, x3, k0, k1)                                         \
    do {                                                                                           \
        T p0 = (T)MUL(x0, PHILOX_M0), p1 = (T)MUL(x2, PHILOX_M1);                                 \
        x0 = (p1 >> 32) ^ x1 ^ (k0), x1 = p1, x2 = (p0 >> 32) ^ x3 ^ (k1), x3 = p0;                \
    } while (0)

#define MUL_AVX512(x, m) _mm512_mul_epu32((__m512i)(x), _mm512_set1_epi64(m))
#define MUL_AVX2(x, m) _mm256_mul_epu32((__m256i)(x), _mm256_set1_epi64x(m))

__attribute__((target("avx512f"))) static void philox_x8_avx512(const uint32_t ctr[4], const uint32_t key[2],
                                                                uint32_t out[4][8])
{
    u64x8 x0 = (u64x8){0, 1, 2, 3, 4, 5, 6, 7} + ctr[0], x1 = (u64x8){0} + ctr[1], x2 = (u64x8){0} + ctr[2],
          x3 = (u64x8){0} + ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
#pragma GCC unroll 10
    for (int round = 0; round < 10; round++, k0 += PHILOX_W0, k1 += PHILOX_W1)
        PHILOX_LANES_ROUND(u64x8, MUL_AVX512, x0, x1, x2, x3, k0, k1);
    const u64x8 words[4] = {x0, x1, x2, x3};
    for (int j = 0; j < 4; j++) {
        u32x8 low = __builtin_convertvector(words[j], u32x8);
        memcpy(out[j], &low, sizeof low);
    }
}

/* Lanes 0-3 and 4-7 as two vectors each, their rounds interleaved. */
__attribute__((target("avx2"))) static void philox_x8_avx2(const uint32_t ctr[4], const uint32_t key[2],
                                                            uint32_t out[4][8])
{
    u64x4 a0 = (u64x4){0, 1, 2, 3} + ctr[0], a1 = (u64x4){0} + ctr[1], a2 = (u64x4){0} + ctr[2],
          a3 = (u64x4){0} + ctr[3];
    u64x4 b0 = a0 + 4, b1 = a1, b2 = a2, b3 = a3;
    uint32_t k0 = key[0], k1 = key[1];
#pragma GCC unroll 10
    for (int round = 0; round < 10; round++, k0 += PHILOX_W0, k1 += PHILOX_W1) {
        PHILOX_LANES_ROUND(u64x4, MUL_AVX2, a0, a1, a2, a3, k0, k1);
        PHILOX_LANES_ROUND(u64x4, MUL_AVX2, b0, b1, b2, b3, k0, k1);
    }
    const u64x4 words[2][4] = {{a0, a1, a2, a3}, {b0, b1, b2, b3}};
    for (int half = 0; half < 2; half++)
        for (int j = 0; j < 4; j++) {
            u32x4 low = __builtin_convertvector(words[half][j], u32x4);
            memcpy(&out[j][4 * half], &low, sizeof low);
        }
}
#endif

void fpd_philox4x32_10_x8(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4][8])
{
#if defined(__x86_64__)
    if (fpd_vector_width() >= FPD_VECTOR_AVX512) {
        philox_x8_avx512(ctr, key, out);
        return;
    }
    if (fpd_vector_width() >= FPD_VECTOR_AVX2) {
        philox_x8_avx2(ctr, key, out);
        return;
    }
#endif
    for (uint32_t pair = 0; pair < 4; pair++) {
        uint32_t c[2][4], o[2][4];
        for (uint32_t i = 0; i < 2; i++) {
            memcpy(c[i], ctr, sizeof c[i]);
            c[i][0] += 2 * pair + i;
        }
        fpd_philox4x32_10_x2(c, key, o);
        for (uint32_t i = 0; i < 2; i++)
            for (int j = 0; j < 4; j++)
                out[j][2 * pair + i] = o[i][j];
    }
}

/* The words are left unset: no draw reads them before the first refill. */
void fpd_stream_init(struct fpd_stream *s, uint64_t seed, uint32_t index)
{
    s->seed = seed, s->index = index, s->next = s->first = s->end = 0;
}

/* Eight blocks at a time, side by side in vector lanes, for about the time of one alone: a
 * check's plan takes four or five. */
void fpd_stream_refill(struct fpd_stream *s)
{
    uint32_t ctr[4], key[2];
    element_counter(s->index, FPD_STREAM_CASE, 0, 0, s->next / 4, ctr);
    seed_key(s->seed, key);
    fpd_philox4x32_10_x8(ctr, key, s->words);
    s->first = s->next;
    s->end = s->next + 32;
}
