/*
 * exact.h — the exact (correctly rounded) GEMM reference.
 *
 * A superaccumulator in the spirit of Neal's xsum: a fixed-point number spanning every product of
 * two binary64 values (2^-2148 up) and every sum of up to 2^32 of them (2^2080 and beyond), held
 * as 32-bit digits in 64-bit chunks so additions need no carry propagation for 2^30 steps. Each
 * product is formed exactly from the two significands (a 106-bit integer at most) and added into
 * the chunks it covers; nothing is rounded until the end, when the sum is rounded once, to nearest
 * even, to the requested type (with its subnormals and overflow to ±Inf). Inf and NaN follow IEEE
 * 754 for the exact sum: NaN from a NaN, Inf·0 or Inf − Inf; the sign of an exact zero is − only
 * when every term is −0.
 */
#ifndef FPD_EXACT_H
#define FPD_EXACT_H

#include "engine/extract.h"
#include "fpdiv_backend.h"

#define FPD_SUPERACC_LOW (-2208) /* weight of the lowest bit: below 2^-2148 and a multiple of 32 */
#define FPD_SUPERACC_CHUNKS 142  /* up to 2^(32*142 - 2208) = 2^2336: products reach 2^2048, sums 2^32 times more */

/* Two levels, as in xsum: a "large" accumulator with one signed 64-bit sum per binary64 exponent
 * takes each term that is itself a double (a product exact in binary64, or the two halves of an
 * exact f64 product) with a single integer addition; every 1024 additions, and at the end, the
 * live entries move into the fixed-point chunks, which hold the exact sum. */
#define FPD_LARGE_ADDS 1024 /* 2^10 significands of 53 bits fit in 63 (2^15 of 48 bits) */

struct fpd_superacc {
    int64_t large[2048];      /* by biased exponent: sum of signed significands */
    int large_lo, large_hi;   /* entries that may be nonzero: [large_lo, large_hi] */
    bool ready;               /* large[] cleared once */
    uint32_t room;            /* large additions left before every entry must move to the chunks */
    int large_shift;          /* low significand bits known to be zero and dropped (5 for exact products) */
    int64_t chunk[FPD_SUPERACC_CHUNKS];
    int lo, hi;          /* chunks in use: [lo, hi], empty when hi < lo */
    uint32_t pending;    /* additions since carries were last propagated */
    bool nan, pos_inf, neg_inf;
    bool all_negative_zero; /* every term so far was -0 (or there was none) */
    bool any_term;
    double work[2 * FPD_EXTRACT_TERMS + 1]; /* the fast path's terms (extract.h) */
};

void fpd_superacc_reset(struct fpd_superacc *s);
/* A zero-initialized struct is ready for its first reset. */

/* s += a * b, exactly. */
void fpd_superacc_add_product(struct fpd_superacc *s, double a, double b);
/* s += x, exactly. */
void fpd_superacc_add(struct fpd_superacc *s, double x);
/* The sum rounded once to type t (returned as a double holding a value of t). */
double fpd_superacc_round(struct fpd_superacc *s, enum fpd_dtype t);
/* The sum as an unevaluated pair hi + lo: hi the sum rounded to binary64, lo the rest rounded;
 * and `rounded`, the sum rounded once to type t (not hi rounded again: that can differ, at ties and
 * at the overflow threshold). Consumes s (it is left holding lo's part). */
void fpd_superacc_split(struct fpd_superacc *s, enum fpd_dtype t, double *hi, double *lo, double *rounded);

/* Correctly rounded dot product of a[0..n) and b[0..n) (contiguous; + bias when with_bias) in
 * type t. The factors are values of type `in` (products of f32, f16 and bf16 values are exact
 * in binary64, which the fast path relies on). */
double fpd_exact_dot(struct fpd_superacc *s, const double *a, const double *b, size_t n, bool with_bias, double bias,
                     enum fpd_dtype in, enum fpd_dtype t);
/* The same dot product as an unevaluated pair hi + lo, and rounded once to t (fpd_superacc_split). */
void fpd_exact_dot_split(struct fpd_superacc *s, const double *a, const double *b, size_t n, bool with_bias, double bias,
                         enum fpd_dtype in, enum fpd_dtype t, double *hi, double *lo, double *rounded);

/* The dot product (no bias) divided by d, a mean's count (an integer below 2^52): as an unevaluated
 * pair hi + lo (to binary64's rounding of the quotient's, twice over), and correctly rounded to t,
 * decided where it is near a midpoint of t by comparing the exact sum with d times that midpoint. */
void fpd_exact_dot_quotient(struct fpd_superacc *s, const double *a, const double *b, size_t n, double d,
                            enum fpd_dtype in, enum fpd_dtype t, double *hi, double *lo, double *rounded);

#endif
