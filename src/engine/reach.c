/* reach.c — shapes past a campaign's common draws, where long reductions and block boundaries are.
 *
 * The common draws (fpd_gen_dim) stop at --max-dim, 256 by default, where most wrong-result bugs
 * that libraries shipped are out of reach: a kernel's remainder past its k block (blocks of 256 to
 * 1024 and more), dgemv_t's columns past 2^21 (OpenBLAS #4352), reductions long enough for a
 * lower-precision accumulator to show. These families put a small share of the checks there. */
#include "engine/reach.h"

const char *const fpd_reach_family_names[FPD_REACH_FAMILY_COUNT] = {
    [FPD_REACH_BLOCK_K] = "k at block sizes", [FPD_REACH_LONG_DOT] = "dots of 2^22 terms",
    [FPD_REACH_LONG_GEMV] = "sums of 2^21 terms", [FPD_REACH_TALL] = "2^21 output rows",
    [FPD_REACH_WIDE] = "m or n (or both) at panel widths"};

/* k blocks of OpenBLAS's, BLIS's and oneMKL's x86 kernels (GEMM_Q, KC) and the panel widths around
 * them; with the powers of two from 2^9 to 2^16, each is taken within 8 either side: a kernel
 * unrolled by 2, 4 or 8 has a remainder loop for each residue, and a fault in one of them (the
 * tail of 2 where those of 1 and 3 are right) shows only at its own. */
static const uint32_t block_sizes[] = {96, 120, 192, 240, 256, 320, 336, 384, 448, 480, 512, 640, 768, 1024, 1536, 2048};
enum { FIRST_POWER = 9, LAST_POWER = 16 };

/* Panel widths of x86 BLAS kernels, rows (MC) or columns (NC) of C packed together, where a panel's
 * last column or row is its own code: each taken within 8 either side, in m or in n. */
static const uint32_t panel_widths[] = {320, 384, 512, 640, 768, 1024, 2048, 4080, 4096, 8160};

/* The family's draw: its weight in 16ths (the wide family's shared by one dimension and both) */
static const unsigned family_weight[FPD_REACH_FAMILY_COUNT] = {
    [FPD_REACH_BLOCK_K] = 7, [FPD_REACH_LONG_DOT] = 2, [FPD_REACH_LONG_GEMV] = 2, [FPD_REACH_TALL] = 2,
    [FPD_REACH_WIDE] = 3};

/* A stream of the reach draws alone: the seed mixed with a salt, so the case's own stream (its
 * relation, backends and common shape) is drawn as it would be without them. */
static void reach_stream(struct fpd_stream *s, uint64_t seed, uint32_t index)
{
    fpd_stream_init(s, fpd_rng_mix64(seed ^ 0x3c6ef372fe94f82bu), index);
}

static uint32_t small_dim(struct fpd_stream *s, const struct fpd_relation *r, enum fpd_slice_dim dim, uint32_t hi)
{
    uint32_t lo = fpd_relation_min_dim(r, dim);
    return lo + fpd_stream_below(s, hi > lo ? hi - lo + 1 : 1);
}

/* 2^power + r, r in [-8, 8]: a length at a power of two, or just off it */
static uint32_t around_power(struct fpd_stream *s, unsigned power) { return (1u << power) - 8 + fpd_stream_below(s, 17); }

static uint32_t block_k(struct fpd_stream *s)
{
    enum { POWERS = LAST_POWER - FIRST_POWER + 1, BLOCKS = sizeof block_sizes / sizeof block_sizes[0] };
    uint32_t pick = fpd_stream_below(s, POWERS + BLOCKS);
    uint32_t at = pick < POWERS ? 1u << (FIRST_POWER + pick) : block_sizes[pick - POWERS];
    return at - 8 + fpd_stream_below(s, 17);
}

static uint32_t panel_width(struct fpd_stream *s)
{
    return panel_widths[fpd_stream_below(s, sizeof panel_widths / sizeof panel_widths[0])] - 8 + fpd_stream_below(s, 17);
}

/* The panel widths up to 640 (the first four): m and n both there, C past a block in both at once */
enum { BOTH_WIDTHS = 4 };
static uint32_t both_width(struct fpd_stream *s)
{
    return panel_widths[fpd_stream_below(s, BOTH_WIDTHS)] - 8 + fpd_stream_below(s, 17);
}

bool fpd_reach_shape(uint64_t seed, uint32_t index, const struct fpd_relation *r, struct fpd_case *c,
                     enum fpd_reach_family *family)
{
    struct fpd_stream s;
    reach_stream(&s, seed, index);
    if (fpd_stream_below(&s, FPD_REACH_EVERY) != 0)
        return false;
    unsigned draw = fpd_stream_below(&s, 16), f = 0;
    while (draw >= family_weight[f])
        draw -= family_weight[f++];
    *family = (enum fpd_reach_family)f;
    c->batch = fpd_relation_min_dim(r, FPD_SLICE_BATCH);
    switch (*family) {
    case FPD_REACH_BLOCK_K:
        c->m = small_dim(&s, r, FPD_SLICE_ROWS, 48), c->n = small_dim(&s, r, FPD_SLICE_COLS, 48), c->k = block_k(&s);
        break;
    case FPD_REACH_LONG_DOT:
        c->m = fpd_relation_min_dim(r, FPD_SLICE_ROWS), c->n = fpd_relation_min_dim(r, FPD_SLICE_COLS);
        c->k = around_power(&s, 22);
        break;
    case FPD_REACH_LONG_GEMV:
        c->m = small_dim(&s, r, FPD_SLICE_ROWS, 3), c->n = small_dim(&s, r, FPD_SLICE_COLS, 3);
        c->k = around_power(&s, 21);
        break;
    case FPD_REACH_WIDE: /* one in 4 both: a packing fault that needs a second block of rows and of columns;
                            always both where C is square (syrk, gemmt), whose n is m: a single width
                            there, up to 8,160 squared, was one check taking 5% of a campaign */
        c->m = small_dim(&s, r, FPD_SLICE_ROWS, 48), c->n = small_dim(&s, r, FPD_SLICE_COLS, 48);
        if (r->square_out || fpd_stream_chance(&s, 1, 4))
            c->m = both_width(&s), c->n = both_width(&s);
        else
            *(fpd_stream_chance(&s, 1, 2) ? &c->n : &c->m) = panel_width(&s);
        c->k = small_dim(&s, r, FPD_SLICE_NONE, 64);
        break;
    default: /* FPD_REACH_TALL */
        c->m = around_power(&s, 21), c->n = small_dim(&s, r, FPD_SLICE_COLS, 2), c->k = 1 + fpd_stream_below(&s, 8);
        break;
    }
    return true;
}
