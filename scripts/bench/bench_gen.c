/*
 * bench_gen — ns per generated element of fpd_gen_materialize (A, B and the bias, stored in the
 * case's layout), binary32 inputs, generators 2 and 3 side by side, for shapes a fuzz campaign
 * draws: tiny ones, whose short stored rows are what small max-dims are made of, narrow operands
 * (k x 1), and large square ones.
 * Usage: bench_gen [SHAPE]   (SHAPE: only the rows of that shape, e.g. to profile it)
 */
#include <stdio.h>
#include <string.h>

#include "case.h"
#include "gen.h"
#include "time_best.h"

struct shape {
    const char *text; /* [BATCHx]MxNxK */
    bool trans_a, trans_b;
    uint32_t pad;
};

int main(int argc, char **argv)
{
    static const struct shape shapes[] = {
        {"5x3x7", false, false, 0},     {"5x3x7", true, true, 3},      {"16x16x16", false, true, 0},
        {"8x9x13", false, false, 0},    {"64x64x64", false, false, 0}, {"64x64x64", true, false, 2},
        {"1x1x1024", false, false, 0},  {"1024x1x1024", true, false, 0}, {"3x37x50x20", false, false, 1},
        {"1024x1024x1024", false, false, 0}, {"1024x1024x1024", true, true, 0},
    };
    static const enum fpd_dist dists[] = {FPD_DIST_NORMAL, FPD_DIST_UNIFORM, FPD_DIST_INT, FPD_DIST_WIDE};
    enum { DISTS = sizeof dists / sizeof dists[0] };
    static const unsigned generators[] = {2, 3};
    printf("generation (fpd_gen_materialize, f32 inputs), ns per element of A, B and bias, best of 5\n");
    printf("  %-16s %-5s %4s %9s", "shape", "trans", "pad", "elements");
    for (size_t g = 0; g < 2; g++)
        printf("  g%u: %6s %6s %6s %6s", generators[g], "normal", "unif", "int", "wide");
    printf("\n");
    struct fpd_tensors tensors = {0};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        if (argc > 1 && strcmp(argv[1], shapes[s].text) != 0) /* one shape only, to profile it */
            continue;
        struct fpd_case c;
        fpd_case_defaults(&c);
        char why[200];
        if (fpd_shape_parse(shapes[s].text, &c, why, sizeof why) != FPD_OK) {
            fprintf(stderr, "bench_gen: %s: %s\n", shapes[s].text, why);
            return 1;
        }
        c.trans_a = shapes[s].trans_a, c.trans_b = shapes[s].trans_b, c.pad = shapes[s].pad;
        c.dt = (struct fpd_dtypes){FPD_F32, FPD_F32, FPD_F32};
        c.has_bias = true; /* a case without one generates none */
        double elements = (double)c.batch * ((double)c.m * c.k + (double)c.k * c.n) + c.n;
        printf("  %-16s %c%c    %4u %9.0f", shapes[s].text, c.trans_a ? 'T' : 'N', c.trans_b ? 'T' : 'N', c.pad,
               elements);
        for (size_t g = 0; g < 2; g++) {
            printf("      ");
            for (size_t d = 0; d < DISTS; d++) {
                c.recipe = (struct fpd_recipe){.generator = generators[g], .seed = 1, .index = 7, .dist = dists[d]};
                double best;
                TIME_BEST(best, if (fpd_gen_materialize(&c, &tensors) != FPD_OK) return 1);
                printf(" %6.2f", best / elements * 1e9);
            }
        }
        printf("\n");
    }
    fpd_tensors_free(&tensors);
    return 0;
}
