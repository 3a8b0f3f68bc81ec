/*
 * bench_exact — the exact reference's cost: nanoseconds per accumulated term for long dot
 * products, and per element for the short ones a check's exact report splits (k = 8 to 256, in
 * cache, as fpd_exact_dot_split: the sum, its rest and its rounding to the output type), by the
 * fast path (extract.h) and by the superaccumulator alone, term by term. Reported: the best of
 * several repetitions (the machine is shared; the minimum is the least disturbed run), for terms
 * whose products are exact in binary64 (f32, f16, bf16 inputs) and for f64 products, which enter
 * the sum as their two exact halves (two accumulated terms each).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/dtype.h"
#include "engine/exact.h"
#include "gen/rng.h"
#include "time_best.h"

static double uniform(uint32_t stream, uint32_t i)
{
    uint32_t w[4];
    fpd_rng_element(2024, i, stream, 0, 0, 0, w);
    return (double)w[0] * 0x1p-32 * 2 - 1;
}

/* 64 x 64 elements of k terms each (rows of A, columns of B: 64 each), split as a report splits
 * them, by the fast path or term by term into the superaccumulator; ns per element. */
static double split_elements(struct fpd_superacc *s, const double *a, const double *b, size_t k, enum fpd_dtype in,
                             bool term_by_term, double *checksum)
{
    enum fpd_dtype out = in == FPD_F64 ? FPD_F64 : FPD_F32;
    double hi, lo, rounded;
    TIME_BEST(*checksum, {
        for (size_t i = 0; i < 64; i++)
            for (size_t j = 0; j < 64; j++) {
                if (term_by_term) {
                    fpd_superacc_reset(s);
                    for (size_t p = 0; p < k; p++)
                        fpd_superacc_add_product(s, a[i * k + p], b[j * k + p]);
                    fpd_superacc_split(s, out, &hi, &lo, &rounded);
                } else {
                    fpd_exact_dot_split(s, &a[i * k], &b[j * k], k, false, 0, in, out, &hi, &lo, &rounded);
                }
            }
    });
    return *checksum / (64 * 64) * 1e9;
}

static void short_dots(struct fpd_superacc *s)
{
    static const size_t ks[] = {8, 128, 256};
    static const enum fpd_dtype types[] = {FPD_F32, FPD_F64};
    printf("short dot products split as a check's exact report splits them (64 x 64 elements, in cache):\n");
    printf("  inputs    k   fast path   term by term   (ns per element)\n");
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t z = 0; z < sizeof ks / sizeof ks[0]; z++) {
            size_t k = ks[z];
            double *a = malloc(64 * k * sizeof *a), *b = malloc(64 * k * sizeof *b), seconds;
            for (uint32_t i = 0; i < 64 * k; i++) { /* normal-ish magnitudes over a few binades */
                a[i] = fpd_round(types[t], uniform(3, i) * ldexp(1, (int)(i % 13) - 6));
                b[i] = fpd_round(types[t], uniform(4, i) * ldexp(1, (int)(i % 7) - 3));
            }
            double fast = split_elements(s, a, b, k, types[t], false, &seconds);
            double slow = split_elements(s, a, b, k, types[t], true, &seconds);
            printf("  %-5s %5zu   %9.1f   %12.1f   (%.1fx)\n", fpd_dtype_info(types[t])->name, k, fast, slow, slow / fast);
            free(a);
            free(b);
        }
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
    short_dots(s);
    free(s);
    free(a);
    free(b);
    return 0;
}
