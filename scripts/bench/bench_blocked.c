/*
 * bench_blocked — GFLOP/s of the own `blocked` kernel against OpenBLAS sgemm/dgemm, one thread,
 * square sizes, side by side in one run (the machine is shared: the ratio is what counts).
 * Reported: the best of several timed repetitions of each, after a warm-up call.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../kernels/cpu/kernels.h"
#include "time_best.h"

int main(void)
{
    static const size_t sizes[] = {256, 512, 1024};
    openblas_set_num_threads(1);
    printf("blocked vs OpenBLAS (%s), one thread, GFLOP/s, best of 5\n", openblas_get_corename());
    printf("  %6s %10s %10s %7s %10s %10s %7s\n", "n", "sblocked", "sgemm", "ratio", "dblocked", "dgemm", "ratio");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        float *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b), *c = malloc(n * n * sizeof *c);
        double *ad = malloc(n * n * sizeof *ad), *bd = malloc(n * n * sizeof *bd), *cd = malloc(n * n * sizeof *cd);
        if (!a || !b || !c || !ad || !bd || !cd)
            return 1;
        for (size_t i = 0; i < n * n; i++) {
            a[i] = (float)(i % 7) - 3, b[i] = (float)(i % 5) - 2;
            ad[i] = a[i], bd[i] = b[i];
        }
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
        free(a), free(b), free(c), free(ad), free(bd), free(cd);
    }
    return 0;
}
