/*
 * splitk — k split into S = 4 contiguous parts, then a fixed-order reduction: the CPU twin of
 * cuda-splitk, bit for bit.
 * Order: part s covers p in [s*L, min((s+1)*L, k)) with L = ceil(k / 4); each part is a sequential
 * FMA sum starting at +0 (part 0 starts at the bias); then C = ((part0 + part1) + part2) + part3.
 * With a 16-bit accumulator each FMA is the correctly rounded 16-bit FMA (fma_acc) and each
 * addition is rounded (round_acc).
 */
#include <math.h>

#include "kernels.h"

#define ROUND_NONE(x) (x)

#define SPLITK_BODY(T, FMA, ROUND)                                                                 \
    size_t parts = FPD_SPLITK_PARTS, len = (g->k + parts - 1) / parts;                             \
    for (size_t i = 0; i < g->m; i++) {                                                            \
        for (size_t j = 0; j < g->n; j++) {                                                        \
            const T *a = g->a + (ptrdiff_t)i * g->a_rs, *b = g->b + (ptrdiff_t)j * g->b_cs;        \
            T total = 0;                                                                           \
            for (size_t s = 0; s < parts; s++) {                                                   \
                T part = s == 0 && g->bias ? g->bias[j] : (T)0;                                    \
                size_t end = (s + 1) * len < g->k ? (s + 1) * len : g->k;                          \
                for (size_t p = s * len; p < end; p++)                                             \
                    part = FMA(a[(ptrdiff_t)p * g->a_cs], b[(ptrdiff_t)p * g->b_rs], part);        \
                total = s == 0 ? part : ROUND(total + part);                                       \
            }                                                                                      \
            g->c[i * g->ldc + j] = total;                                                          \
        }                                                                                          \
    }

int fpd_kernel_splitk_f32(const struct fpd_kgemm_f32 *g)
{
    if (g->fma_acc) {
#define ROUND_ACC(x) g->round_acc(x)
        SPLITK_BODY(float, g->fma_acc, ROUND_ACC)
#undef ROUND_ACC
    } else {
        SPLITK_BODY(float, fmaf, ROUND_NONE)
    }
    return 0;
}

int fpd_kernel_splitk_f64(const struct fpd_kgemm_f64 *g)
{
    SPLITK_BODY(double, fma, ROUND_NONE)
    return 0;
}
