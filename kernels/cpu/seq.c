/*
 * seq — the textbook loop.
 * Order: for each C[i][j], acc starts at bias[j] (or +0) and takes one FMA per term in
 * increasing p: acc = fma(A[i][p], B[p][j], acc). With a 16-bit accumulator each FMA is the
 * correctly rounded 16-bit FMA (fma_acc). The columns of a block run side by side (columns.h).
 */
#include <math.h>

#include "columns.h"
#include "kernels.h"

/* C[i][j .. j + width) in seq's order, FMA being the fused multiply-add. */
#define SEQ_BLOCK(T, FMA)                                                                          \
    {                                                                                              \
        T acc[FPD_KERNEL_COLUMNS];                                                                 \
        for (size_t c = 0; c < width; c++)                                                         \
            acc[c] = g->bias ? g->bias[j + c] : (T)0;                                              \
        const T *a = g->a + (ptrdiff_t)i * g->a_rs;                                                \
        for (size_t p = 0; p < g->k; p++) {                                                        \
            const T x = a[(ptrdiff_t)p * g->a_cs];                                                 \
            const T *b = g->b + (ptrdiff_t)p * g->b_rs + (ptrdiff_t)j * b_cs;                      \
            for (size_t c = 0; c < width; c++)                                                     \
                acc[c] = FMA(x, b[(ptrdiff_t)c * b_cs], acc[c]);                                   \
        }                                                                                          \
        for (size_t c = 0; c < width; c++)                                                         \
            g->c[i * g->ldc + j + c] = FPD_KERNEL_RESULT(acc[c]);                                  \
    }

FPD_BLOCK_FUNCTION seq_f32(const struct fpd_kgemm_f32 *g, size_t i, size_t j, size_t width, ptrdiff_t b_cs)
SEQ_BLOCK(float, fmaf)
FPD_BLOCK_FUNCTION seq_acc16(const struct fpd_kgemm_f32 *g, size_t i, size_t j, size_t width, ptrdiff_t b_cs)
SEQ_BLOCK(float, g->fma_acc)
FPD_BLOCK_FUNCTION seq_f64(const struct fpd_kgemm_f64 *g, size_t i, size_t j, size_t width, ptrdiff_t b_cs)
SEQ_BLOCK(double, fma)

FPD_DEFINE_COLUMN_KERNELS(seq, fma_acc)
