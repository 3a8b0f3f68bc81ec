/* extract.c — a dot product's exact sum as a few doubles: see extract.h. */
#include "engine/extract.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/dtype.h"
#include "cpu/clones.h"

/* Terms handled side by side, each lane with its own sum and largest magnitude: a fixed count is
 * what the vectorizer's cost model takes, and sums of extracted parts are exact in any order. */
enum { LANES = 8 };

/* A lane array's sum, largest and smallest as a tree of fixed pairs, not one lane after another:
 * three dependent steps instead of seven (the sums are exact in any order, see below). */
#define LANE_TREE(OP, v) OP(OP(OP((v)[0], (v)[1]), OP((v)[2], (v)[3])), OP(OP((v)[4], (v)[5]), OP((v)[6], (v)[7])))
#define ADD(a, b) ((a) + (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define OR(a, b) ((a) | (b))
_Static_assert(LANES == 8, "LANE_TREE takes eight lanes");

/* Below this, a product's lower half (fma(a, b, -p)) may be rounded by underflow. */
#define HALVES_SMALLEST 0x1p-915

/* The terms into x (for halves: x[p] the rounded product, x[n + p] its error), their largest
 * magnitude into *largest and their smallest nonzero one (of the rounded products: an error half
 * is not below 2^-53 times its product's least bit) into *smallest; false where a term is not
 * finite or a product's halves may not be exact. */
static inline __attribute__((always_inline)) bool terms_of(const double *restrict a, const double *restrict b, size_t n,
                                                          bool halves, double *restrict x, double *restrict largest,
                                                          double *restrict smallest)
{
    double big[LANES] = {0}, small[LANES];
    for (size_t j = 0; j < LANES; j++)
        small[j] = DBL_MAX;
    int64_t bad[LANES] = {0};
    size_t whole = n / LANES * LANES;
    /* one loop body for whole vectors and the rest: lane p % LANES */
#define TERM(p, j, HALVES)                                                                         \
    do {                                                                                           \
        double product = a[p] * b[p], magnitude = fabs(product);                                   \
        bad[j] |= !(magnitude <= DBL_MAX);                                                         \
        big[j] = magnitude > big[j] ? magnitude : big[j];                                          \
        double nonzero = magnitude > 0 ? magnitude : DBL_MAX; /* a min: no chain through a mask */ \
        small[j] = nonzero < small[j] ? nonzero : small[j];                                        \
        x[p] = product;                                                                            \
        if (HALVES) {                                                                              \
            double error = __builtin_fma(a[p], b[p], -product);                                    \
            bad[j] |= (magnitude < HALVES_SMALLEST) & (fabs(a[p]) > 0) & (fabs(b[p]) > 0);         \
            x[n + (p)] = error;                                                                    \
        }                                                                                          \
    } while (0)
    if (halves) { /* two loops, each with `halves` a constant */
        for (size_t p = 0; p < whole; p += LANES)
            for (size_t j = 0; j < LANES; j++)
                TERM(p + j, j, true);
        for (size_t p = whole; p < n; p++)
            TERM(p, p - whole, true);
    } else {
        for (size_t p = 0; p < whole; p += LANES)
            for (size_t j = 0; j < LANES; j++)
                TERM(p + j, j, false);
        for (size_t p = whole; p < n; p++)
            TERM(p, p - whole, false);
    }
#undef TERM
    *largest = LANE_TREE(MAX, big), *smallest = LANE_TREE(MIN, small);
    return !LANE_TREE(OR, bad);
}

/* One level: each term split against sigma, its high part summed (exactly) and its low part left
 * in x; the largest low part into *largest. */
static inline __attribute__((always_inline)) double extract_level(double *restrict x, size_t n, double sigma,
                                                                 double *restrict largest)
{
    double tau[LANES] = {0}, big[LANES] = {0};
    size_t whole = n / LANES * LANES;
#define SPLIT(p, j)                                                                                \
    do {                                                                                           \
        double high = (sigma + x[p]) - sigma, low = x[p] - high, magnitude = fabs(low);            \
        x[p] = low;                                                                                \
        tau[j] += high;                                                                            \
        big[j] = magnitude > big[j] ? magnitude : big[j];                                          \
    } while (0)
    for (size_t p = 0; p < whole; p += LANES)
        for (size_t j = 0; j < LANES; j++)
            SPLIT(p + j, j);
    for (size_t p = whole; p < n; p++)
        SPLIT(p, p - whole);
#undef SPLIT
    *largest = LANE_TREE(MAX, big);
    return LANE_TREE(ADD, tau); /* exact, as every partial sum of the high parts is */
}

/* The exponent of x's leading bit, x positive and normal (a subnormal's reads as -1023). */
static inline __attribute__((always_inline)) int exponent_of(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (int)(bits >> 52 & 0x7ff) - 1023;
}

/* The whole of fpd_extract_dot, once per vector width: its passes inlined into one copy, where a
 * call per pass through the width's dispatch was a sixth of a short sum's time. */
FPD_VECTOR_WIDTH_FUNCTION(int, extract_dot,
                          (const double *a, const double *b, size_t n, const double *bias, bool halves, double *work,
                           double *parts),
                          (a, b, n, bias, halves, work, parts))
{
    size_t terms = halves ? 2 * n : n;
    double largest, smallest;
    if (n == 0 || n > FPD_EXTRACT_TERMS || !terms_of(a, b, n, halves, work, &largest, &smallest))
        return -1;
    if (bias) { /* one more term */
        double magnitude = fabs(*bias);
        if (!(magnitude <= DBL_MAX))
            return -1;
        work[terms++] = *bias;
        largest = magnitude > largest ? magnitude : largest;
        smallest = magnitude > 0 && magnitude < smallest ? magnitude : smallest;
    }
    if (!(largest > 0))
        return -1;
    int bits = 64 - __builtin_clzll(terms); /* terms < 2^bits */
    /* each level takes 53 - bits binades of the terms (their least bit is at least 2^-52 times the
     * smallest, 2^-105 for halves): terms spread too far are the superaccumulator's at once */
    int spread = exponent_of(largest) - exponent_of(smallest) + (halves ? 106 : 53);
    if (spread > FPD_EXTRACT_LEVELS * (53 - bits))
        return -1;
    int count = 0;
    for (int level = 0; largest > 0; level++) {
        /* sigma = 2^e >= 2^bits * largest (largest < 2^(its exponent + 1)), within binary64's
         * normal range: no underflow (a subnormal largest gives an e far below the floor) */
        int e = bits + exponent_of(largest) + 1;
        if (level == FPD_EXTRACT_LEVELS || e > DBL_MAX_EXP - 1 || e < DBL_MIN_EXP + 60)
            return -1;
        double tau = extract_level(work, terms, fpd_pow2(e), &largest);
        if (fabs(tau) > 0)
            parts[count++] = tau;
    }
    return count;
}

int fpd_extract_dot(const double *a, const double *b, size_t n, const double *bias, bool halves, double *work,
                    double parts[FPD_EXTRACT_LEVELS])
{
    return extract_dot(a, b, n, bias, halves, work, parts);
}
