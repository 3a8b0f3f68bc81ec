/* poison.h — what C holds before a GEMM that must not read it. */
#ifndef FPD_POISON_H
#define FPD_POISON_H

#include <stddef.h>
#include <stdint.h>

#include "fpdiv_backend.h"

/* A GEMM without a fused bias is beta = 0: BLAS says C is then not read, only written. Its m x n
 * block is filled with a value no correct kernel lets through: a NaN (quiet or signalling, with
 * fpdiv's payload) or an infinity. A kernel that scales C by beta instead of overwriting it (0 x Inf
 * and 0 x NaN are NaN), adds C as if beta were 1, or leaves an element unwritten, gives a non-finite
 * element where a correct one gives a number: `nonfinite`. A fused-bias path (beta = 1) gets its
 * bias from the backend, which overwrites the poison first. */
enum fpd_poison { FPD_POISON_QUIET_NAN, FPD_POISON_SIGNALLING_NAN, FPD_POISON_PLUS_INF, FPD_POISON_MINUS_INF, FPD_POISON_COUNT };

extern const char *const fpd_poison_names[FPD_POISON_COUNT];

/* The poison of a case: a function of its seed and index alone, so a replay or a minimized case
 * is poisoned as the campaign's check was. */
enum fpd_poison fpd_poison_of(uint64_t seed, uint32_t index);

/* Fills `rows` rows of `n` elements of type t, `ldc` apart, with the poison; row padding untouched.
 * c is aligned to t's size (stored as elements of it: fpd_grow's buffers are). */
void fpd_poison_fill(enum fpd_poison poison, enum fpd_dtype t, void *c, size_t rows, size_t n, size_t ldc);

/* The poison's bits in type t (its low bits in the element's width). */
uint64_t fpd_poison_bits(enum fpd_poison poison, enum fpd_dtype t);

#endif
