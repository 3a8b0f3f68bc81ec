/*
 * pairwise — a balanced summation tree over k.
 * Order: the products A[i][p]*B[p][j] are rounded to the accumulator type, then added pairwise
 * level by level, adjacent pairs first: (t0+t1), (t2+t3), …; an odd last element moves up a level
 * unchanged. Equivalently the tree splits k into the largest power of two below it and the rest.
 * The bias (when present) is added last: C = bias + tree. With round_acc every product and
 * every sum is rounded.
 *
 * The tree is built on the fly with a stack of complete power-of-two subtrees (like a binary
 * counter), so no k-sized workspace is needed and the depth is at most 64.
 */
#include <stdint.h>

#include "kernels.h"

#define ROUND_NONE(x) (x)

#define PAIRWISE_BODY(T, ROUND)                                                                    \
    for (size_t i = 0; i < g->m; i++) {                                                            \
        for (size_t j = 0; j < g->n; j++) {                                                        \
            T sum[64];                                                                             \
            uint64_t size[64];                                                                     \
            int top = 0;                                                                           \
            const T *a = g->a + (ptrdiff_t)i * g->a_rs, *b = g->b + (ptrdiff_t)j * g->b_cs;        \
            for (size_t p = 0; p < g->k; p++) {                                                    \
                T t = ROUND(a[(ptrdiff_t)p * g->a_cs] * b[(ptrdiff_t)p * g->b_rs]);                \
                uint64_t s = 1;                                                                    \
                while (top > 0 && size[top - 1] == s) {                                            \
                    t = ROUND(sum[--top] + t);                                                     \
                    s *= 2;                                                                        \
                }                                                                                  \
                sum[top] = t;                                                                      \
                size[top++] = s;                                                                   \
            }                                                                                      \
            T acc = top > 0 ? sum[--top] : (T)0;                                                   \
            while (top > 0)                                                                        \
                acc = ROUND(sum[--top] + acc);                                                     \
            g->c[i * g->ldc + j] = g->bias ? ROUND(g->bias[j] + acc) : acc;                        \
        }                                                                                          \
    }

int fpd_kernel_pairwise_f32(const struct fpd_kgemm_f32 *g)
{
    if (g->round_acc) {
#define ROUND_ACC(x) g->round_acc(x)
        PAIRWISE_BODY(float, ROUND_ACC)
#undef ROUND_ACC
    } else {
        PAIRWISE_BODY(float, ROUND_NONE)
    }
    return 0;
}

int fpd_kernel_pairwise_f64(const struct fpd_kgemm_f64 *g)
{
    PAIRWISE_BODY(double, ROUND_NONE)
    return 0;
}
