/*
 * one_type_gemm.h — what the test plugins share (reverse.c, the example, stands alone): a kernel
 * of f32 or f64 in one type throughout, summing each element's terms sequentially over k with one
 * FMA a term, from the bias. Each plugin still needs fpdiv_backend.h alone.
 */
#ifndef ONE_TYPE_GEMM_H
#define ONE_TYPE_GEMM_H

#include <stdio.h>

#include "fpdiv_backend.h"

/* Whether dt is f32 or f64 throughout; why names the kernel `who` when not. */
static inline bool one_type_supports(const char *who, const struct fpd_dtypes *dt, char *why, size_t why_size)
{
    if (dt->in == dt->out && dt->out == dt->acc && (dt->in == FPD_F32 || dt->in == FPD_F64))
        return true;
    snprintf(why, why_size, "%s computes f32 or f64 only, in one type throughout", who);
    return false;
}

/* op(X)[i][j] of a row-major matrix stored transposed or not */
#define AT(p, trans, ld, i, j) ((trans) ? (p)[(size_t)(j) * (ld) + (i)] : (p)[(size_t)(i) * (ld) + (j)])

/* The call g of type T (float with fmaf, double with fma), each element stored through STORE(acc). */
#define FORWARD_GEMM(T, FMA, STORE)                                                                \
    for (size_t b = 0; b < g->batch; b++) {                                                        \
        const T *a = (const T *)g->a + b * g->stride_a, *bm = (const T *)g->b + b * g->stride_b;   \
        const T *bias = g->bias;                                                                   \
        T *c = (T *)g->c + b * g->stride_c;                                                        \
        for (size_t i = 0; i < g->m; i++)                                                          \
            for (size_t j = 0; j < g->n; j++) {                                                    \
                T acc = bias ? bias[j] : (T)0;                                                     \
                for (size_t p = 0; p < g->k; p++)                                                  \
                    acc = FMA(AT(a, g->trans_a, g->lda, i, p), AT(bm, g->trans_b, g->ldb, p, j), acc); \
                c[i * g->ldc + j] = STORE(acc);                                                    \
            }                                                                                      \
    }

/* The whole call, in its type (the caller has said it supports only these). */
#define ONE_TYPE_GEMM(g, STORE)                                                                    \
    do {                                                                                           \
        if ((g)->dt.in == FPD_F32) {                                                               \
            FORWARD_GEMM(float, fmaf, STORE)                                                       \
        } else {                                                                                   \
            FORWARD_GEMM(double, fma, STORE)                                                       \
        }                                                                                          \
    } while (0)

#endif
