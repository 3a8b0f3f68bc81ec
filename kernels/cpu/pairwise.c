/*
 * pairwise — a balanced summation tree over k.
 * Order: the products A[i][p]*B[p][j] are rounded to the accumulator type, then added pairwise
 * level by level, adjacent pairs first: (t0+t1), (t2+t3), …; an odd last element moves up a level
 * unchanged. Equivalently the tree splits k into the largest power of two below it and the rest.
 * The bias (when present) is added last: C = bias + tree. With round_acc every product and
 * every sum is rounded.
 *
 * The tree is built on the fly with a stack of complete power-of-two subtrees (like a binary
 * counter), so no k-sized workspace is needed and the depth is at most 64. The tree's shape
 * depends on k alone, so the columns of a block (columns.h) share one stack of sizes.
 */
#include <math.h>
#include <stdint.h>

#include "columns.h"
#include "kernels.h"

#define ROUND_NONE(x) (x)

/* C[i][j .. j + width) in pairwise's order, ROUND being the accumulator's rounding. */
#define PAIRWISE_BLOCK(T, ROUND)                                                                   \
    {                                                                                              \
        T sum[64][FPD_KERNEL_COLUMNS], t[FPD_KERNEL_COLUMNS];                                      \
        uint64_t size[64];                                                                         \
        int top = 0;                                                                               \
        const T *a = g->a + (ptrdiff_t)i * g->a_rs;                                                \
        for (size_t p = 0; p < g->k; p++) {                                                        \
            const T x = a[(ptrdiff_t)p * g->a_cs];                                                 \
            const T *b = g->b + (ptrdiff_t)p * g->b_rs + (ptrdiff_t)j * b_cs;                      \
            for (size_t c = 0; c < width; c++)                                                     \
                t[c] = ROUND(x * b[(ptrdiff_t)c * b_cs]);                                          \
            uint64_t s = 1;                                                                        \
            for (; top > 0 && size[top - 1] == s; s *= 2) {                                        \
                top--;                                                                             \
                for (size_t c = 0; c < width; c++)                                                 \
                    t[c] = ROUND(sum[top][c] + t[c]);                                              \
            }                                                                                      \
            for (size_t c = 0; c < width; c++)                                                     \
                sum[top][c] = t[c];                                                                \
            size[top++] = s;                                                                       \
        }                                                                                          \
        for (size_t c = 0; c < width; c++)                                                         \
            t[c] = top > 0 ? sum[top - 1][c] : (T)0;                                               \
        for (int level = top - 2; level >= 0; level--)                                             \
            for (size_t c = 0; c < width; c++)                                                     \
                t[c] = ROUND(sum[level][c] + t[c]);                                                \
        for (size_t c = 0; c < width; c++)                                                         \
            g->c[i * g->ldc + j + c] = FPD_KERNEL_RESULT(g->bias ? ROUND(g->bias[j + c] + t[c]) : t[c]); \
    }

#define ROUND_ACC(x) g->round_acc(x)
FPD_BLOCK_FUNCTION pairwise_f32(const struct fpd_kgemm_f32 *g, size_t i, size_t j, size_t width, ptrdiff_t b_cs)
PAIRWISE_BLOCK(float, ROUND_NONE)
FPD_BLOCK_FUNCTION pairwise_acc16(const struct fpd_kgemm_f32 *g, size_t i, size_t j, size_t width, ptrdiff_t b_cs)
PAIRWISE_BLOCK(float, ROUND_ACC)
FPD_BLOCK_FUNCTION pairwise_f64(const struct fpd_kgemm_f64 *g, size_t i, size_t j, size_t width, ptrdiff_t b_cs)
PAIRWISE_BLOCK(double, ROUND_NONE)
#undef ROUND_ACC

FPD_DEFINE_COLUMN_KERNELS(pairwise, round_acc)
