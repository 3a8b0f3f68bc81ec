/*
 * bench_compare — ns per element of the comparison of two outputs: phase 1 alone (difference
 * counts, ulps), both phases in their one pass (with the ratio to the bound, as a check runs them)
 * and the hashes of both, by type, when every element differs and when one in a hundred does.
 * One 1024 x 1024 output, the size of a max-dim 1024 check's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "engine/compare.h"
#include "gen/rng.h"
#include "time_best.h"

enum { COUNT = 1 << 20 };

static const double *all_of_g(void *ctx, size_t entry)
{
    (void)entry; /* one entry */
    return ctx;
}

int main(void)
{
    static const enum fpd_dtype types[] = {FPD_F32, FPD_F64, FPD_F16, FPD_BF16};
    static const double fractions[] = {1.0, 0.01};
    printf("comparison of two %d-element outputs, ns per element, best of 5\n", COUNT);
    printf("  %-5s %9s %8s %8s %8s\n", "type", "differing", "phase 1", "both", "hashes");
    void *a = malloc((size_t)COUNT * 8), *b = malloc((size_t)COUNT * 8);
    double *g = malloc((size_t)COUNT * sizeof *g);
    if (!a || !b || !g)
        return 1;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t f = 0; f < sizeof fractions / sizeof fractions[0]; f++) {
            enum fpd_dtype dt = types[t];
            for (size_t i = 0; i < COUNT; i++) {
                uint64_t r = fpd_rng_bits64(42, i);
                double v = ((double)(r >> 11) * 0x1p-53 - 0.5) * 64;
                fpd_store(dt, a, i, v);
                fpd_store(dt, b, i, v);
                if ((double)(r & 0xffff) < fractions[f] * 0x10000) /* a few ulps apart */
                    fpd_store(dt, b, i, fpd_load(dt, a, i) * (1 + (double)(r % 5 + 1) * fpd_dtype_info(dt)->unit_roundoff * 2));
                g[i] = 300 * fabs(v);
            }
            struct fpd_dtypes dts = {dt, dt, dt == FPD_F64 ? FPD_F64 : FPD_F32};
            struct fpd_bound_model bm;
            fpd_bound_model_init(&bm, &dts, 1024, false, 0);
            struct fpd_metrics m;
            double t1, t2, th;
            struct fpd_comparison x = fpd_comparison_packed(dt, a, b, COUNT);
            struct fpd_magnitude_source source = {all_of_g, g, NULL};
            TIME_BEST(t1, fpd_compare_bits(&x, &m));
            TIME_BEST(t2, fpd_compare(&x, &source, &bm, &m));
            TIME_BEST(th, fpd_compare_hashes(&x, &m));
            printf("  %-5s %8.0f%% %8.2f %8.2f %8.2f   (%zu differ, max %llu ulp, ratio %.3g)\n",
                   fpd_dtype_info(dt)->name, 100 * fractions[f], t1 / COUNT * 1e9, t2 / COUNT * 1e9, th / COUNT * 1e9,
                   m.diff, (unsigned long long)m.max_ulp, m.ratio);
        }
    free(a), free(b), free(g);
    return 0;
}
