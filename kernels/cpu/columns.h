/*
 * columns.h — the loop over C that the per-element kernels (seq, pairwise, splitk) share: each row
 * of C in blocks of FPD_KERNEL_COLUMNS columns. The dot products of a block are independent, so
 * the CPU overlaps them instead of waiting out one chain of dependent operations at a time, and
 * where B's rows are contiguous the compiler computes them as the lanes of vectors. Blocking
 * changes which element is computed when, never how: each element keeps its kernel's order.
 *
 * The kernels are compiled once per x86-64 vector width (gcc's target_clones, chosen when fpdiv
 * loads): with AVX2 or AVX-512 their fmaf/fma become FMA instructions instead of calls to libm.
 */
#ifndef FPD_KERNEL_COLUMNS_H
#define FPD_KERNEL_COLUMNS_H

#include "../../src/clones.h"

#define FPD_KERNEL_COLUMNS 16

/* For the functions computing one block: inlined into every clone of their kernel, so that each
 * clone compiles them for its own vector width. */
#define FPD_BLOCK_FUNCTION static inline __attribute__((always_inline)) void

/* Calls BLOCK(g, i, j, width, b_cs) for every row i of C and every column block [j, j + width):
 * first the full blocks, with a constant width, and with b_cs a constant 1 where B's rows are
 * contiguous, so that their loops over the block unroll and vectorize; then the columns left. */
#define FPD_FOR_COLUMN_BLOCKS(g, BLOCK)                                                            \
    for (size_t i_ = 0; i_ < (g)->m; i_++) {                                                       \
        size_t j_ = 0;                                                                             \
        if ((g)->b_cs == 1)                                                                        \
            for (; j_ + FPD_KERNEL_COLUMNS <= (g)->n; j_ += FPD_KERNEL_COLUMNS)                    \
                BLOCK(g, i_, j_, FPD_KERNEL_COLUMNS, 1);                                           \
        else                                                                                       \
            for (; j_ + FPD_KERNEL_COLUMNS <= (g)->n; j_ += FPD_KERNEL_COLUMNS)                    \
                BLOCK(g, i_, j_, FPD_KERNEL_COLUMNS, (g)->b_cs);                                   \
        if (j_ < (g)->n)                                                                           \
            BLOCK(g, i_, j_, (g)->n - j_, (g)->b_cs);                                              \
    }

#endif
