/*
 * extract.h — a dot product's exact sum as a few doubles, by error-free extraction.
 *
 * The exact reference's fast path (exact.c). Its terms (the products, exact in binary64 for
 * binary32 and narrower inputs; for binary64 inputs each product's two exact halves, TwoProduct)
 * are split against a power of two sigma at least 2^M times the largest of them, for n < 2^M
 * terms: q = (sigma + x) - sigma, x - q. Every q is a multiple of 2^-53 sigma below 2^-M sigma,
 * so their sum is exact in binary64 in any order, and what is left of each term is below
 * 2^-53 sigma: the next level starts 53 - M bits lower (Rump, Ogita and Oishi, "Accurate
 * floating-point summation part I: faithful rounding", SIAM J. Sci. Comput. 31(1), 2008,
 * ExtractVector, Lemma 3.3). When nothing is left, the levels' sums add up to the exact sum.
 * Each level is a pass of independent operations over the terms, which vectorizes; the
 * superaccumulator's loop adds each term into memory one after another (about 2 ns per term).
 */
#ifndef FPD_EXTRACT_H
#define FPD_EXTRACT_H

#include <stdbool.h>
#include <stddef.h>

enum {
    FPD_EXTRACT_TERMS = 2048, /* products per call at most (twice as many terms for halves) */
    FPD_EXTRACT_LEVELS = 8,   /* levels tried before the caller's superaccumulator takes over: a level
                                 costs a tenth of its term-by-term addition */
};

/*
 * The exact sum of a[p]·b[p] over p < n (n <= FPD_EXTRACT_TERMS), and of *bias where bias is not
 * NULL, as parts[0] + ... +
 * parts[count - 1], each a double, none zero; returns count, or -1 where the fast path does not
 * hold and the caller must add the products itself: a factor or product that is not finite, a
 * product too large (sigma past binary64) or too small for its halves to be exact, every product
 * zero (the caller keeps zeros' signs), or more levels than FPD_EXTRACT_LEVELS (terms spread over
 * more binades than they cover). halves: the factors are binary64 values, whose products enter
 * as their two exact halves; else every product must be exact in binary64. work: room for
 * 2 * FPD_EXTRACT_TERMS + 1 doubles.
 */
int fpd_extract_dot(const double *a, const double *b, size_t n, const double *bias, bool halves, double *work,
                    double parts[FPD_EXTRACT_LEVELS]);

#endif
