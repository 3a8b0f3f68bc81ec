/*
 * structured.h — inputs on which rounding errors are not random: the data of real models and
 * benchmarks (torch.full, a constant bias column, sorted or blocked signals) rather than the
 * generators' independent draws. A sequential sum of T copies of one value rounds the same way at
 * every step of a binade, so its error grows like T^2 u, not sqrt(T) u: a tier built on random
 * rounding must hold here too (probable.h), and a library's long-reduction and absorption bugs show
 * here first.
 *
 * Each family gives A's rows a pattern along k (each row its own parameters, drawn from a seed),
 * B a constant per column (1 + j/8: exact in every type), the bias zero; every value rounded once
 * to the input type. The data depend on k (sorted, absorption): they are made for one shape.
 */
#ifndef FPD_STRUCTURED_H
#define FPD_STRUCTURED_H

#include "engine/case.h"

enum fpd_structure {
    FPD_STRUCT_CONSTANT,      /* c, per row in [2^-3, 2^3) */
    FPD_STRUCT_NEAR_CONSTANT, /* c (1 + eta r), eta per row 2^-20, 2^-13 or 2^-7, r uniform in [-1, 1) */
    FPD_STRUCT_ARITHMETIC,    /* c + p c 2^-16 */
    FPD_STRUCT_GEOMETRIC,     /* c q^p, q = 1 - 2^-12 */
    FPD_STRUCT_SIGN_BLOCKS,   /* +c and -c in turn, in blocks of 1, 7, 64 or 1024 (per row) */
    FPD_STRUCT_ABSORPTION,    /* 1 for the first k/2, then terms just above half an ulp of that sum */
    FPD_STRUCT_INTEGER,       /* integers in [-2^11, 2^11] (B: 1) */
    FPD_STRUCT_POWERS_OF_TWO, /* +-2^e, e in [-10, 10] (B: 1) */
    FPD_STRUCT_SORTED,        /* approximately normal draws, sorted ascending along k */
    FPD_STRUCTURE_COUNT,
};

extern const char *const fpd_structure_names[FPD_STRUCTURE_COUNT];

/* The inputs of a batch-1 case of shape m x n x k and types dt, of family s: logical row-major
 * arrays (fpd_case_data, freed with fpd_case_data_free). FPD_OK or FPD_ERR_NOMEM. */
int fpd_structured_data(enum fpd_structure s, const struct fpd_dtypes *dt, uint32_t m, uint32_t n, uint32_t k,
                        uint64_t seed, struct fpd_case_data *out);

#endif
