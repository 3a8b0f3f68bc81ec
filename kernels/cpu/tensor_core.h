/*
 * tensor_core.h — the arithmetic of NVIDIA tensor cores, as modelled from measurements: a block
 * fused multiply-add (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor
 * cores", PeerJ CS 7:e330, 2021; Khattak, Mikaitis, HPEC 2025, arXiv 2512.07004, and their
 * MATLAB model, north-numerical-computing/MATLAB-tensor-core).
 *
 * One block computes d = c + sum of `block` products a_i·b_i of 16-bit inputs:
 *   - every product is exact, its significand in [0, 4) and its exponent the sum of the inputs'
 *     (floor(log2|x|), at least the input format's emin: subnormal inputs are kept); zero
 *     products are dropped;
 *   - emax is the largest exponent among the products and c, and at least `min_exp`;
 *   - every term is truncated toward zero to a multiple of 2^(emax - 23 - extra_bits), and the
 *     truncated terms are added exactly;
 *   - the sum is rounded once to the accumulator's format: toward zero (fp32 on most GPUs) or to
 *     nearest even (fp16, and a B200 variant's fp32), with subnormals; past its largest finite
 *     value it is Inf, as the model has it.
 * A dot product of k terms chains blocks of consecutive terms (0..block-1, block..2·block-1, …)
 * through the accumulator: each block's d is the next block's c, the first c is the bias (or
 * none). NaN and Inf are decided over the whole dot product first: any NaN product (0·Inf
 * included) or c gives NaN, Inf of both signs NaN, else the Inf.
 */
#ifndef FPD_TENSOR_CORE_H
#define FPD_TENSOR_CORE_H

#include <stdbool.h>
#include <stddef.h>

#include "cpu/kernels.h"

/* Products per block at most (the models have 4 to 16). */
#define FPD_TC_BLOCK_MAX 64

/* The block FMA's parameters for one input and accumulator format. */
struct fpd_tc_arith {
    unsigned block;    /* products per block, at most FPD_TC_BLOCK_MAX */
    int extra_bits;    /* alignment bits beyond the 24 of fp32's significand */
    int min_exp;       /* emax is raised to at least this */
    bool toward_zero;  /* the block's result rounded toward zero, else to nearest even */
    int in_emin;       /* the inputs' smallest normal exponent: -14 (fp16), -126 (bf16) */
    int in_fraction_bits; /* the inputs' significand's fraction bits: 10 (fp16), 7 (bf16) */
    int acc_precision; /* the accumulator's significand bits: 24 (fp32), 11 (fp16) */
    int acc_emin, acc_emax;
};

/* c + sum_{i<count} a[i·as]·b[i·bs] in one block (count at most arith->block; finite values). */
double fpd_tc_block(const struct fpd_tc_arith *arith, const float *a, ptrdiff_t as, const float *b, ptrdiff_t bs,
                    size_t count, double c);
/* One element: bias + the dot product of k terms, block after block; NaN and Inf as above. */
double fpd_tc_dot(const struct fpd_tc_arith *arith, const float *a, ptrdiff_t as, const float *b, ptrdiff_t bs,
                  size_t k, double bias);
/* The GEMM of kernels.h (round_acc and fma_acc unused): every element what fpd_tc_dot gives, bit for
 * bit, stored as a float (a value of the accumulator's format); computed many elements at a time
 * from operands taken apart once (tensor_core.c). Returns 0. */
int fpd_kernel_tensor_core(const struct fpd_tc_arith *arith, const struct fpd_kgemm_f32 *g);

/* The room fpd_kernel_tensor_core takes its operands apart into, kept from one call to the next by
 * the caller that owns it (a backend's state): grown where a call needs more, never shrunk. A
 * GEMM's own room each call, of 2^21 rows, was fresh pages to fault in and zero. {0} to start. */
struct fpd_tc_workspace {
    void *room[9];
    size_t size[9];
};
/* fpd_kernel_tensor_core in ws's room: the same results. */
int fpd_kernel_tensor_core_in(const struct fpd_tc_arith *arith, const struct fpd_kgemm_f32 *g,
                              struct fpd_tc_workspace *ws);
void fpd_tc_workspace_free(struct fpd_tc_workspace *ws);

#endif
