/*
 * bench_exact — nanoseconds per accumulated term of the exact reference, for long dot products.
 * Reported: the best of several repetitions (the machine is shared; the minimum is the least
 * disturbed run), for terms whose products are exact in binary64 (f32, f16, bf16 inputs) and
 * for f64 products, which enter the sum as their two exact halves (two accumulated terms each).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/dtype.h"
#include "engine/exact.h"
#include "gen/rng.h"

static double uniform(uint32_t stream, uint32_t i)
{
    uint32_t w[4];
    fpd_rng_element(2024, i, stream, 0, 0, 0, w);
    return (double)w[0] * 0x1p-32 * 2 - 1;
}

int main(void)
{
    enum { N = 1 << 22, REPEATS = 7 };
    static const enum fpd_dtype types[] = {FPD_F32, FPD_BF16, FPD_F64};
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    if (!a || !b)
        return 1;
    struct fpd_superacc *s = calloc(1, sizeof *s);
    printf("exact reference, dot products of %d terms, best of %d runs\n", N, REPEATS);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (uint32_t i = 0; i < N; i++) {
            /* normal-ish magnitudes over a few binades, rounded to the input type */
            a[i] = fpd_round(types[t], uniform(1, i) * ldexp(1, (int)(i % 13) - 6));
            b[i] = fpd_round(types[t], uniform(2, i) * ldexp(1, (int)(i % 7) - 3));
        }
        double best = INFINITY, sum = 0;
        for (int r = 0; r < REPEATS; r++) {
            double t0 = fpd_now();
            sum += fpd_exact_dot(s, a, b, N, false, 0, types[t], types[t] == FPD_F64 ? FPD_F64 : FPD_F32);
            double ns = (fpd_now() - t0) / N * 1e9;
            best = ns < best ? ns : best;
        }
        /* an f64 product enters the sum as its two exact halves: two accumulated terms */
        int halves = types[t] == FPD_F64 ? 2 : 1;
        printf("  %-5s inputs: %.2f ns per product, %.2f ns per accumulated term   (checksum %a)\n",
               fpd_dtype_info(types[t])->name, best, best / halves, sum);
    }
    free(s);
    free(a);
    free(b);
    return 0;
}
