/*
 * bench_blocked — GFLOP/s of the own `blocked` kernel against OpenBLAS sgemm/dgemm, one thread,
 * square sizes, side by side in one run (the machine is shared: the ratio is what counts).
 * Reported: the best of several timed repetitions of each, after a warm-up call.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu/kernels.h"
#include "square_operands.h"
#include "time_best.h"

int main(void)
{
    static const size_t sizes[] = {256, 512, 1024};
    openblas_set_num_threads(1);
    printf("blocked vs OpenBLAS (%s), one thread, GFLOP/s, best of 5\n", openblas_get_corename());
    printf("  %6s %10s %10s %7s %10s %10s %7s\n", "n", "sblocked", "sgemm", "ratio", "dblocked", "dgemm", "ratio");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        struct square_operands o;
        if (!square_operands_init(&o, n))
            return 1;
        float *a = o.a, *b = o.b, *c = o.c;
        double *ad = o.ad, *bd = o.bd, *cd = o.cd;
        struct fpd_kgemm_f32 g = {n, n, n, a, (ptrdiff_t)n, 1, b, (ptrdiff_t)n, 1, c, n, NULL, NULL, NULL};
        struct fpd_kgemm_f64 h = {n, n, n, ad, (ptrdiff_t)n, 1, bd, (ptrdiff_t)n, 1, cd, n, NULL};
        double t_sb, t_s, t_db, t_d, flops = 2.0 * n * n * n;
        TIME_BEST(t_sb, fpd_kernel_blocked_f32(&g));
        TIME_BEST(t_s, cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1, a, (int)n, b,
                                   (int)n, 0, c, (int)n));
        TIME_BEST(t_db, fpd_kernel_blocked_f64(&h));
        TIME_BEST(t_d, cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1, ad, (int)n, bd,
                                   (int)n, 0, cd, (int)n));
        printf("  %6zu %10.1f %10.1f %6.0f%% %10.1f %10.1f %6.0f%%\n", n, flops / t_sb * 1e-9, flops / t_s * 1e-9,
               100 * t_s / t_sb, flops / t_db * 1e-9, flops / t_d * 1e-9, 100 * t_d / t_db);
        square_operands_free(&o);
    }
    return 0;
}
