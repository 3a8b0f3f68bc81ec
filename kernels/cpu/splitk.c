/*
 * splitk — k split into S = 4 contiguous parts, then a fixed-order reduction: the CPU twin of
 * cuda-splitk, bit for bit.
 * Order: part s covers p in [s*L, min((s+1)*L, k)) with L = ceil(k / 4); each part is a sequential
 * FMA sum starting at +0 (part 0 starts at the bias); then C = ((part0 + part1) + part2) + part3.
 * With a 16-bit accumulator each FMA is the correctly rounded 16-bit FMA (fma_acc) and each
 * addition is rounded (round_acc). The columns of a block run side by side (columns.h).
 */
#include <math.h>

#include "columns.h"
#include "kernels.h"

#define ROUND_NONE(x) (x)

/* C[i][j .. j + width) in splitk's order: FMA the fused multiply-add, ROUND the accumulator's rounding. */
#define SPLITK_BLOCK(T, FMA, ROUND)                                                                \
    {                                                                                              \
        size_t parts = FPD_SPLITK_PARTS, len = (g->k + parts - 1) / parts;                         \
        const T *a = g->a + (ptrdiff_t)i * g->a_rs;                                                \
        T total[FPD_KERNEL_COLUMNS];                                                               \
        for (size_t s = 0; s < parts; s++) {                                                       \
            T part[FPD_KERNEL_COLUMNS];                                                            \
            for (size_t c = 0; c < width; c++)                                                     \
                part[c] = s == 0 && g->bias ? g->bias[j + c] : (T)0;                               \
            size_t end = (s + 1) * len < g->k ? (s + 1) * len : g->k;                              \
            for (size_t p = s * len; p < end; p++) {                                               \
                const T x = a[(ptrdiff_t)p * g->a_cs];                                             \
                const T *b = g->b + (ptrdiff_t)p * g->b_rs + (ptrdiff_t)j * b_cs;                  \
                for (size_t c = 0; c < width; c++)                                                 \
                    part[c] = FMA(x, b[(ptrdiff_t)c * b_cs], part[c]);                             \
            }                                                                                      \
            for (size_t c = 0; c < width; c++)                                                     \
                total[c] = s == 0 ? part[c] : ROUND(total[c] + part[c]);                           \
        }                                                                                          \
        for (size_t c = 0; c < width; c++)                                                         \
            g->c[i * g->ldc + j + c] = FPD_KERNEL_RESULT(total[c]);                                \
    }

#define ROUND_ACC(x) g->round_acc(x)
FPD_BLOCK_FUNCTION splitk_f32(const struct fpd_kgemm_f32 *g, size_t i, size_t j, size_t width, ptrdiff_t b_cs)
SPLITK_BLOCK(float, fmaf, ROUND_NONE)
FPD_BLOCK_FUNCTION splitk_acc16(const struct fpd_kgemm_f32 *g, size_t i, size_t j, size_t width, ptrdiff_t b_cs)
SPLITK_BLOCK(float, g->fma_acc, ROUND_ACC)
FPD_BLOCK_FUNCTION splitk_f64(const struct fpd_kgemm_f64 *g, size_t i, size_t j, size_t width, ptrdiff_t b_cs)
SPLITK_BLOCK(double, fma, ROUND_NONE)
#undef ROUND_ACC

FPD_DEFINE_COLUMN_KERNELS(splitk, fma_acc)
