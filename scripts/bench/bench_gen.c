/*
 * bench_gen — ns per generated element of fpd_gen_materialize (A, B and the bias, stored in the
 * case's layout), generators 3 and 4 side by side, for shapes a fuzz campaign draws: tiny ones,
 * whose short stored rows are what small max-dims are made of, narrow operands (k x 1), and large
 * square ones; binary32 inputs, and binary64 at three shapes. Then both at the large shapes on cold
 * lines: in a campaign at max-dim 1024 a check's tensors were evicted since the last check wrote
 * them, and every store to them misses the caches. Run it under FPDIV_VECTOR_WIDTH=avx2 (or
 * baseline) for another class of CPU's paths.
 * Usage: bench_gen [SHAPE]   (SHAPE: only the rows of that shape, e.g. to profile it)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "engine/case.h"
#include "gen/gen.h"
#include "cpu/vector_width.h"
#include "time_best.h"

struct shape {
    const char *text; /* [BATCHx]MxNxK */
    bool trans_a, trans_b;
    uint32_t pad;
    enum fpd_dtype in; /* inputs, and the output's type */
};

/* The case of a shape's row, with a bias (a case without one generates none). */
static int shape_case(const struct shape *s, struct fpd_case *c)
{
    fpd_case_defaults(c);
    char why[200];
    if (fpd_shape_parse(s->text, c, why, sizeof why) != FPD_OK) {
        fprintf(stderr, "bench_gen: %s: %s\n", s->text, why);
        return -1;
    }
    c->trans_a = s->trans_a, c->trans_b = s->trans_b, c->pad = s->pad;
    c->dt = (struct fpd_dtypes){s->in, s->in, s->in};
    c->has_bias = true;
    return 0;
}

/* Elements generated: A, B and the bias. */
static double elements_of(const struct fpd_case *c)
{
    return (double)c->batch * ((double)c->m * c->k + (double)c->k * c->n) + c->n;
}

#define EVICT_BYTES (64u << 20) /* twice the L3 of the machines we measure on */

/* The fewest seconds of one fpd_gen_materialize after the caches were filled with other lines
 * (writing `evict`), over 10 calls; negative if it failed. */
static double best_cold_seconds(const struct fpd_case *c, struct fpd_tensors *t, unsigned char *evict)
{
    double best = INFINITY;
    for (int r = 0; r < 10; r++) {
        for (size_t i = 0; i < EVICT_BYTES; i += 64)
            evict[i]++;
        double t0 = fpd_now();
        if (fpd_gen_materialize(c, t) != FPD_OK)
            return -1;
        best = fmin(best, fpd_now() - t0);
    }
    return best;
}

int main(int argc, char **argv)
{
    static const struct shape shapes[] = {
        {"5x3x7", false, false, 0, FPD_F32},          {"5x3x7", true, true, 3, FPD_F32},
        {"16x16x16", false, true, 0, FPD_F32},        {"8x9x13", false, false, 0, FPD_F32},
        {"64x64x64", false, false, 0, FPD_F32},       {"64x64x64", true, false, 2, FPD_F32},
        {"1x1x1024", false, false, 0, FPD_F32},       {"1024x1x1024", true, false, 0, FPD_F32},
        {"3x37x50x20", false, false, 1, FPD_F32},     {"1024x1024x1024", false, false, 0, FPD_F32},
        {"1024x1024x1024", true, true, 0, FPD_F32},   {"16x16x16", false, true, 0, FPD_F64},
        {"64x64x64", true, false, 2, FPD_F64},        {"1024x1024x1024", false, false, 0, FPD_F64},
    };
    static const enum fpd_dist dists[] = {FPD_DIST_NORMAL, FPD_DIST_UNIFORM, FPD_DIST_INT, FPD_DIST_WIDE};
    enum { DISTS = sizeof dists / sizeof dists[0] };
    static const unsigned generators[] = {3, 4};
    enum { GENERATORS = sizeof generators / sizeof generators[0] };
    printf("generation (fpd_gen_materialize), ns per element of A, B and bias, best of 5; vector paths %s\n",
           fpd_vector_width_name(fpd_vector_width()));
    printf("  %-16s %-5s %4s %-3s %9s", "shape", "trans", "pad", "in", "elements");
    for (size_t g = 0; g < GENERATORS; g++)
        printf("  g%u: %6s %6s %6s %6s", generators[g], "normal", "unif", "int", "wide");
    printf("\n");
    struct fpd_tensors tensors = {0};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        if (argc > 1 && strcmp(argv[1], shapes[s].text) != 0) /* one shape only, to profile it */
            continue;
        struct fpd_case c;
        if (shape_case(&shapes[s], &c) != 0)
            return 1;
        double elements = elements_of(&c);
        printf("  %-16s %c%c    %4u %-3s %9.0f", shapes[s].text, c.trans_a ? 'T' : 'N', c.trans_b ? 'T' : 'N', c.pad,
               fpd_dtype_info(c.dt.in)->name, elements);
        for (size_t g = 0; g < GENERATORS; g++) {
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
    unsigned char *evict = calloc(EVICT_BYTES, 1);
    if (!evict)
        return 1;
    printf("on cold lines (after writing %u MiB of other data), ns per element, best of 10\n", EVICT_BYTES >> 20);
    printf("  %-16s %-5s %-3s", "shape", "trans", "in");
    for (size_t g = 0; g < GENERATORS; g++)
        printf("  g%u: %6s %6s %6s %6s", generators[g], "normal", "unif", "int", "wide");
    printf("\n");
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        if (argc > 1 && strcmp(argv[1], shapes[s].text) != 0)
            continue;
        struct fpd_case c;
        if (shape_case(&shapes[s], &c) != 0)
            return 1;
        double elements = elements_of(&c);
        if (elements < 1e6) /* the large shapes only: a small one stays in the caches */
            continue;
        printf("  %-16s %c%c    %-3s", shapes[s].text, c.trans_a ? 'T' : 'N', c.trans_b ? 'T' : 'N',
               fpd_dtype_info(c.dt.in)->name);
        for (size_t g = 0; g < GENERATORS; g++) {
            printf("      ");
            for (size_t d = 0; d < DISTS; d++) {
                c.recipe = (struct fpd_recipe){.generator = generators[g], .seed = 1, .index = 7, .dist = dists[d]};
                double best = best_cold_seconds(&c, &tensors, evict);
                if (best < 0)
                    return 1;
                printf(" %6.2f", best / elements * 1e9);
            }
        }
        printf("\n");
    }
    free(evict);
    fpd_tensors_free(&tensors);
    return 0;
}
