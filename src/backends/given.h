/*
 * given.h — outputs a user already has, as two backends: `fpdiv judge` asks "is the difference
 * between these two results expected?" with the same check every relation runs, its two paths
 * answered by these backends instead of computed.
 *
 * Each answers a GEMM of the product's shape with the array it was given (which holds the bias
 * where the product has one: FPD_FEAT_FUSED_BIAS), and nothing else: a GEMM of another shape or
 * type is an error. They are CPU backends that round to nearest, so the rounding model the judge
 * applies is that of an order of round-to-nearest additions in the accumulator's type.
 */
#ifndef FPD_GIVEN_H
#define FPD_GIVEN_H

#include "backends/backend.h"

/* The two backends ("given-1", "given-2"); registered by `fpdiv judge` only. */
extern const struct fpd_backend fpd_backend_given[2];

/* Output `which` (0 or 1): batch x m x n elements of type t, packed in C order; the caller keeps the
 * memory alive while checks run. */
void fpd_given_set(int which, enum fpd_dtype t, const void *data, size_t batch, size_t m, size_t n);

#endif
