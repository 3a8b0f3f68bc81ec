/*
 * columns.h — the loop over C that the per-element kernels (seq, pairwise, splitk) share: each row
 * of C in blocks of FPD_KERNEL_COLUMNS columns. The dot products of a block are independent, so
 * the CPU overlaps them instead of waiting out one chain of dependent operations at a time, and
 * where B's rows are contiguous the compiler computes them as the lanes of vectors. Blocking
 * changes which element is computed when, never how: each element keeps its kernel's order.
 *
 * The kernels are compiled once per x86-64 vector width (clones.h): with AVX2 or AVX-512 their
 * fmaf/fma become FMA instructions instead of calls to libm.
 */
#ifndef FPD_KERNEL_COLUMNS_H
#define FPD_KERNEL_COLUMNS_H

#include "clones.h"

#define FPD_KERNEL_COLUMNS 16

/* For the functions computing one block: inlined into every copy of their kernel, so that each
 * copy compiles them for its own vector width. */
#define FPD_BLOCK_FUNCTION static inline __attribute__((always_inline)) void

/* Defines NAME(g), compiled once per vector width, calling BLOCK(g, i, j, width, b_cs) for every
 * row i of C and every column block [j, j + width): first the full blocks, with a constant width,
 * and with b_cs a constant 1 where B's rows are contiguous, so that their loops over the block
 * unroll and vectorize; then the columns left. (Static, and called from its own file.) */
#define FPD_DEFINE_COLUMN_LOOP(NAME, GEMM, BLOCK)                                                  \
    FPD_VECTOR_WIDTH_FUNCTION(void, NAME, (const GEMM *g), (g))                                    \
    {                                                                                              \
        for (size_t i = 0; i < g->m; i++) {                                                        \
            size_t j = 0;                                                                          \
            if (g->b_cs == 1)                                                                      \
                for (; j + FPD_KERNEL_COLUMNS <= g->n; j += FPD_KERNEL_COLUMNS)                    \
                    BLOCK(g, i, j, FPD_KERNEL_COLUMNS, 1);                                         \
            else                                                                                   \
                for (; j + FPD_KERNEL_COLUMNS <= g->n; j += FPD_KERNEL_COLUMNS)                    \
                    BLOCK(g, i, j, FPD_KERNEL_COLUMNS, g->b_cs);                                   \
            if (j < g->n)                                                                          \
                BLOCK(g, i, j, g->n - j, g->b_cs);                                                 \
        }                                                                                          \
    }

/* Defines a kernel's entry points, fpd_kernel_NAME_f32 and fpd_kernel_NAME_f64, from its block
 * functions NAME_f32, NAME_acc16 (float with a 16-bit accumulator, chosen where g->ACC16 is set)
 * and NAME_f64. */
#define FPD_DEFINE_COLUMN_KERNELS(NAME, ACC16)                                                     \
    FPD_DEFINE_COLUMN_LOOP(NAME##_loop_f32, struct fpd_kgemm_f32, NAME##_f32)                      \
    FPD_DEFINE_COLUMN_LOOP(NAME##_loop_acc16, struct fpd_kgemm_f32, NAME##_acc16)                  \
    FPD_DEFINE_COLUMN_LOOP(NAME##_loop_f64, struct fpd_kgemm_f64, NAME##_f64)                      \
    int fpd_kernel_##NAME##_f32(const struct fpd_kgemm_f32 *g)                                     \
    {                                                                                              \
        if (g->ACC16)                                                                              \
            NAME##_loop_acc16(g);                                                                  \
        else                                                                                       \
            NAME##_loop_f32(g);                                                                    \
        return 0;                                                                                  \
    }                                                                                              \
    int fpd_kernel_##NAME##_f64(const struct fpd_kgemm_f64 *g)                                     \
    {                                                                                              \
        NAME##_loop_f64(g);                                                                        \
        return 0;                                                                                  \
    }

#endif
