/*
 * bench_kernels — GFLOP/s of the own kernels that define an accumulation order (seq, pairwise,
 * splitk) at the sizes a default campaign draws (max-dim 256), with B stored by rows and
 * transposed, side by side with `blocked` (seq's order, packed and vectorized; bench_blocked
 * measures it against OpenBLAS at larger sizes).
 * Reported: the best of several timed repetitions of each, after a warm-up call.
 */
#include <stdio.h>

#include "cpu/kernels.h"
#include "square_operands.h"
#include "time_best.h"

struct kernel {
    const char *name;
    int (*f32)(const struct fpd_kgemm_f32 *);
    int (*f64)(const struct fpd_kgemm_f64 *);
};

int main(void)
{
    static const struct kernel kernels[] = {
        {"seq", fpd_kernel_seq_f32, fpd_kernel_seq_f64},
        {"pairwise", fpd_kernel_pairwise_f32, fpd_kernel_pairwise_f64},
        {"splitk", fpd_kernel_splitk_f32, fpd_kernel_splitk_f64},
        {"blocked", fpd_kernel_blocked_f32, fpd_kernel_blocked_f64},
    };
    static const size_t sizes[] = {64, 256};
    printf("own kernels, one thread, GFLOP/s, best of 5 (B by rows: N; B transposed: T)\n");
    printf("  %-9s %5s %9s %9s %9s %9s\n", "kernel", "n", "f32 N", "f32 T", "f64 N", "f64 T");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        struct square_operands o;
        if (!square_operands_init(&o, n))
            return 1;
        double flops = 2.0 * n * n * n;
        for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
            double gflops[4];
            for (int transposed = 0; transposed < 2; transposed++) {
                ptrdiff_t b_rs = transposed ? 1 : (ptrdiff_t)n, b_cs = transposed ? (ptrdiff_t)n : 1;
                struct fpd_kgemm_f32 g = {n, n, n, o.a, (ptrdiff_t)n, 1, o.b, b_rs, b_cs, o.c, n, NULL, NULL, NULL};
                struct fpd_kgemm_f64 h = {n, n, n, o.ad, (ptrdiff_t)n, 1, o.bd, b_rs, b_cs, o.cd, n, NULL};
                double t32, t64;
                TIME_BEST(t32, kernels[k].f32(&g));
                TIME_BEST(t64, kernels[k].f64(&h));
                gflops[transposed] = flops / t32 * 1e-9;
                gflops[2 + transposed] = flops / t64 * 1e-9;
            }
            printf("  %-9s %5zu %9.2f %9.2f %9.2f %9.2f\n", kernels[k].name, n, gflops[0], gflops[1], gflops[2],
                   gflops[3]);
        }
        square_operands_free(&o);
    }
    return 0;
}
