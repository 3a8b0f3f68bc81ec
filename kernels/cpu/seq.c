/*
 * seq — the textbook loop.
 * Order: for each C[i][j], acc starts at bias[j] (or +0) and takes one FMA per term in
 * increasing p: acc = fma(A[i][p], B[p][j], acc). With a 16-bit accumulator each FMA is the
 * correctly rounded 16-bit FMA (fma_acc).
 */
#include <math.h>

#include "kernels.h"

#define SEQ_BODY(T, FMA)                                                                           \
    for (size_t i = 0; i < g->m; i++) {                                                            \
        for (size_t j = 0; j < g->n; j++) {                                                        \
            T acc = g->bias ? g->bias[j] : (T)0;                                                   \
            const T *a = g->a + (ptrdiff_t)i * g->a_rs, *b = g->b + (ptrdiff_t)j * g->b_cs;        \
            for (size_t p = 0; p < g->k; p++)                                                      \
                acc = FMA(a[(ptrdiff_t)p * g->a_cs], b[(ptrdiff_t)p * g->b_rs], acc);              \
            g->c[i * g->ldc + j] = acc;                                                            \
        }                                                                                          \
    }

int fpd_kernel_seq_f32(const struct fpd_kgemm_f32 *g)
{
    if (g->fma_acc) {
        SEQ_BODY(float, g->fma_acc)
    } else {
        SEQ_BODY(float, fmaf)
    }
    return 0;
}

int fpd_kernel_seq_f64(const struct fpd_kgemm_f64 *g)
{
    SEQ_BODY(double, fma)
    return 0;
}
