/* rng.c — Philox4x32-10 and the two ways fpdiv draws from it. */
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

/* Sixteen Philox blocks, one per lane, along one coordinate. */
static void x16_portable(uint64_t seed, uint32_t index, uint32_t word2, uint32_t row, uint32_t col, int along,
                         uint32_t out[4][16])
{
    for (uint32_t l = 0; l < 16; l++) {
        const uint32_t ctr[4] = {col + (along == 0 ? l : 0), row + (along == 1 ? l : 0), word2, index};
        const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
        uint32_t o[4];
        fpd_philox4x32_10(ctr, key, o);
        for (int w = 0; w < 4; w++)
            out[w][l] = o[w];
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

/* hi and lo 32-bit halves of the lane-wise 32x32 products m * x: even lanes multiply directly,
 * odd lanes after a shift, and the halves are blended back into place. */
__attribute__((target("avx2"))) static inline void mulhilo8(__m256i m, __m256i x, __m256i *hi, __m256i *lo)
{
    __m256i even = _mm256_mul_epu32(m, x);
    __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(m, 32), _mm256_srli_epi64(x, 32));
    *lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xaa);
    *hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xaa);
}

/* Sixteen lanes as two independent sets of eight, interleaved: one set's multiplies run while the
 * other's wait, which halves the cost per element of the round's long dependency chain. */
__attribute__((target("avx2"))) static void x16_avx2(uint64_t seed, uint32_t index, uint32_t word2, uint32_t row,
                                                     uint32_t col, int along, uint32_t out[4][16])
{
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), eight = _mm256_set1_epi32(8);
    __m256i x0[2], x1[2], x2[2], x3[2];
    for (int h = 0; h < 2; h++) {
        __m256i offset = h ? _mm256_add_epi32(lanes, eight) : lanes;
        x0[h] = _mm256_set1_epi32((int)col);
        x1[h] = _mm256_set1_epi32((int)row);
        if (along == 0)
            x0[h] = _mm256_add_epi32(x0[h], offset);
        else
            x1[h] = _mm256_add_epi32(x1[h], offset);
        x2[h] = _mm256_set1_epi32((int)word2);
        x3[h] = _mm256_set1_epi32((int)index);
    }
    const __m256i m0 = _mm256_set1_epi32((int)PHILOX_M0), m1 = _mm256_set1_epi32((int)PHILOX_M1);
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
        __m256i key0 = _mm256_set1_epi32((int)k0), key1 = _mm256_set1_epi32((int)k1);
        for (int h = 0; h < 2; h++) {
            __m256i hi0, lo0, hi1, lo1;
            mulhilo8(m0, x0[h], &hi0, &lo0);
            mulhilo8(m1, x2[h], &hi1, &lo1);
            x0[h] = _mm256_xor_si256(_mm256_xor_si256(hi1, x1[h]), key0);
            x1[h] = lo1;
            x2[h] = _mm256_xor_si256(_mm256_xor_si256(hi0, x3[h]), key1);
            x3[h] = lo0;
        }
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    for (int h = 0; h < 2; h++) {
        _mm256_storeu_si256((__m256i *)&out[0][8 * h], x0[h]);
        _mm256_storeu_si256((__m256i *)&out[1][8 * h], x1[h]);
        _mm256_storeu_si256((__m256i *)&out[2][8 * h], x2[h]);
        _mm256_storeu_si256((__m256i *)&out[3][8 * h], x3[h]);
    }
}

/* The same sixteen lanes in one 512-bit register per word: half the instructions of x16_avx2. */
__attribute__((target("avx512f"))) static inline void mulhilo16(__m512i m, __m512i x, __m512i *hi, __m512i *lo)
{
    __m512i even = _mm512_mul_epu32(m, x);
    __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(m, 32), _mm512_srli_epi64(x, 32));
    *lo = _mm512_mask_blend_epi32(0xaaaa, even, _mm512_slli_epi64(odd, 32));
    *hi = _mm512_mask_blend_epi32(0xaaaa, _mm512_srli_epi64(even, 32), odd);
}

__attribute__((target("avx512f"))) static void x16_avx512(uint64_t seed, uint32_t index, uint32_t word2,
                                                          uint32_t row, uint32_t col, int along, uint32_t out[4][16])
{
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512i x0 = _mm512_set1_epi32((int)col), x1 = _mm512_set1_epi32((int)row);
    if (along == 0)
        x0 = _mm512_add_epi32(x0, lanes);
    else
        x1 = _mm512_add_epi32(x1, lanes);
    __m512i x2 = _mm512_set1_epi32((int)word2), x3 = _mm512_set1_epi32((int)index);
    const __m512i m0 = _mm512_set1_epi32((int)PHILOX_M0), m1 = _mm512_set1_epi32((int)PHILOX_M1);
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
        __m512i hi0, lo0, hi1, lo1;
        mulhilo16(m0, x0, &hi0, &lo0);
        mulhilo16(m1, x2, &hi1, &lo1);
        x0 = _mm512_xor_si512(_mm512_xor_si512(hi1, x1), _mm512_set1_epi32((int)k0));
        x1 = lo1;
        x2 = _mm512_xor_si512(_mm512_xor_si512(hi0, x3), _mm512_set1_epi32((int)k1));
        x3 = lo0;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    _mm512_storeu_si512(out[0], x0);
    _mm512_storeu_si512(out[1], x1);
    _mm512_storeu_si512(out[2], x2);
    _mm512_storeu_si512(out[3], x3);
}
#endif

static enum fpd_rng_isa forced_isa = FPD_RNG_ISA_AUTO;

bool fpd_rng_force_isa(enum fpd_rng_isa isa)
{
#if defined(__x86_64__)
    if ((isa == FPD_RNG_ISA_AVX512 && !__builtin_cpu_supports("avx512f")) ||
        (isa == FPD_RNG_ISA_AVX2 && !__builtin_cpu_supports("avx2")))
        return false;
#else
    if (isa == FPD_RNG_ISA_AVX512 || isa == FPD_RNG_ISA_AVX2)
        return false;
#endif
    forced_isa = isa;
    return true;
}

void fpd_rng_element_x16(uint64_t seed, uint32_t index, unsigned stream, uint32_t batch, uint32_t row, uint32_t col,
                         int along, uint32_t out[4][16])
{
    uint32_t word2 = (batch & (FPD_RNG_MAX_BATCH - 1)) | ((uint32_t)stream << 24);
#if defined(__x86_64__)
    bool any = forced_isa == FPD_RNG_ISA_AUTO;
    if ((any && __builtin_cpu_supports("avx512f")) || forced_isa == FPD_RNG_ISA_AVX512) {
        x16_avx512(seed, index, word2, row, col, along, out);
        return;
    }
    if ((any && __builtin_cpu_supports("avx2")) || forced_isa == FPD_RNG_ISA_AVX2) {
        x16_avx2(seed, index, word2, row, col, along, out);
        return;
    }
#endif
    x16_portable(seed, index, word2, row, col, along, out);
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
