/* gen_v1.c — generator 1: each element from its own Philox block. Frozen: cases saved with it
 * replay with these values. */
#include "gen/values.h"

static double dist_value_v1(enum fpd_dist d, enum fpd_dtype in, const uint32_t w[4])
{
    switch (d) {
    case FPD_DIST_NORMAL: /* exact: the sum is below 2^34 */
        return irwin_hall4((double)w[0] + (double)w[1] + (double)w[2] + (double)w[3], 0x1p-32);
    case FPD_DIST_UNIFORM: return uniform_value((uint64_t)w[0] << 32 | w[1]);
    case FPD_DIST_INT: return int_value(w[0]);
    case FPD_DIST_WIDE: return wide_value(wide_binades[in], w[0] & 1, w[1], w[2] >> 9);
    default: return NAN;
    }
}

double fpd_gen_v1_element(const struct fpd_recipe *r, enum fpd_dtype in, unsigned stream, uint32_t batch, uint32_t row,
                          uint32_t col)
{
    uint32_t w[4];
    if (r->special_rate > 0) {
        fpd_rng_element(r->seed, r->index, stream | FPD_STREAM_SPECIAL, batch, row, col, w);
        if (is_special(r, w[0]))
            return special_value(1, in, w[1]);
    }
    fpd_rng_element(r->seed, r->index, stream, batch, row, col, w);
    return dist_value_v1(r->dist, in, w);
}
