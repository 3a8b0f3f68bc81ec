/*
 * kernels.h — fpdiv's own CPU GEMM kernels: arithmetic only, no registry, no I/O.
 *
 * Contract shared by every kernel (the template a new kernel follows):
 *   C[i][j] = bias[j] + sum_{p<k} A[i][p] * B[p][j]      (bias term only when bias != NULL)
 *   A[i][p] = a[i*a_rs + p*a_cs], B[p][j] = b[p*b_rs + j*b_cs], C[i][j] = c[i*ldc + j].
 * Each kernel documents its accumulation order in its file. The order depends on k alone, never
 * on m, n, the strides or the batch, so slicing rows, columns or batch entries cannot change a
 * result bit. FMAs are written explicitly (fmaf/fma) and the files are built with
 * -ffp-contract=off, so the compiler cannot fuse or split anything on its own.
 * A NaN result is stored as C's NAN (FPD_KERNEL_RESULT), as the exact reference returns it: which
 * NaN an operation with two NaN operands returns depends on the instruction's operand order, which
 * C leaves to the compiler, so a payload would vary with the compiler, the vector width and the
 * path an element takes, and a slice could change a result's bits after all.
 * A kernel returns 0, or -1 when it cannot allocate its workspace.
 */
#ifndef FPD_KERNELS_H
#define FPD_KERNELS_H

#include <stddef.h>

#define FPD_SPLITK_PARTS 4 /* splitk and cuda-splitk: k in 4 contiguous parts */

/* What a CPU kernel stores for a result x (needs <math.h>): x, or C's NAN for any NaN. */
#define FPD_KERNEL_RESULT(x)                                                                       \
    ({                                                                                             \
        __typeof__(x) result_ = (x);                                                               \
        isnan(result_) ? (__typeof__(x))NAN : result_;                                             \
    })

struct fpd_kgemm_f32 {
    size_t m, n, k;
    const float *a;
    ptrdiff_t a_rs, a_cs;
    const float *b;
    ptrdiff_t b_rs, b_cs;
    float *c;
    size_t ldc;
    const float *bias;
    /* Both NULL: accumulate in float. Else an f16 or bf16 accumulator is emulated exactly:
     * round_acc after every addition or product (exact: float has at least 2p+2 bits, and the
     * product of two 16-bit values is exact in float), and fma_acc for every fused multiply-add,
     * which needs more than float: the framework supplies a correctly rounded 16-bit FMA. */
    float (*round_acc)(float);
    float (*fma_acc)(float a, float b, float c);
};

struct fpd_kgemm_f64 {
    size_t m, n, k;
    const double *a;
    ptrdiff_t a_rs, a_cs;
    const double *b;
    ptrdiff_t b_rs, b_cs;
    double *c;
    size_t ldc;
    const double *bias;
};

int fpd_kernel_seq_f32(const struct fpd_kgemm_f32 *g);
int fpd_kernel_seq_f64(const struct fpd_kgemm_f64 *g);
int fpd_kernel_pairwise_f32(const struct fpd_kgemm_f32 *g);
int fpd_kernel_pairwise_f64(const struct fpd_kgemm_f64 *g);
int fpd_kernel_splitk_f32(const struct fpd_kgemm_f32 *g);
int fpd_kernel_splitk_f64(const struct fpd_kgemm_f64 *g);
int fpd_kernel_blocked_f32(const struct fpd_kgemm_f32 *g);
int fpd_kernel_blocked_f64(const struct fpd_kgemm_f64 *g);
/* `blocked` on magnitudes: C = bias + sum |A[i][p]| |B[p][j]|, in blocked's order. The absolute
 * values are taken as the operands are packed, so the rounding bound's |A||B| needs no copies. */
int fpd_kernel_blocked_magnitude_f32(const struct fpd_kgemm_f32 *g);
int fpd_kernel_blocked_magnitude_f64(const struct fpd_kgemm_f64 *g);
/* Tests: 1 restricts `blocked` to its portable micro-kernel, 0 lets it pick by CPU (default). */

#endif
