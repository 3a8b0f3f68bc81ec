/* screen.h — the improbable tier's screen (check.c's probable_report): which elements cannot pass
 * the probabilistic threshold (probable.h), decided in O(1) each from the two outputs and g alone,
 * so that the threshold's O(k) work is done only for the others. A row at a time, in vectors. */
#ifndef FPD_SCREEN_H
#define FPD_SCREEN_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "engine/compare.h"

/* One check's screen: its bound model, lambda u_acc (lambda: the threshold's, PROBABLE_LAMBDA) and
 * sqrt(T / 3) for its T terms. */
struct fpd_screen {
    struct fpd_bound_model bm;
    double lambda_u, root_third;
};

/* Whether an element whose outputs are va and vb, with magnitude g, may be past `largest` times
 * the probabilistic threshold; *rest: what its bound allows besides the additions' errors (the
 * output's rounding, the inputs' casts), which are not random. sqrt(V) >= |mu| sqrt(sum s^2) >=
 * |S| sqrt(T / 3), the exact sum S at least the smaller output less the additions' errors: sums of
 * one sign mostly stop here, and a difference the roundings besides the additions hold always
 * does. Decided without a branch (whether two outputs differ is a coin's toss, which the processor
 * mispredicted), the larger and the smaller by comparisons, not libm's fmax and fmin (the same
 * where the screen can pass, where both outputs are finite). */
static inline __attribute__((always_inline)) bool fpd_screen_element(const struct fpd_screen *s, double va, double vb,
                                                                      double g, double largest, double *rest)
{
    double delta = fabs(va - vb);
    double additions = s->bm.gamma * g * s->bm.g_scale; /* what the sum's additions may err by */
    double abs_a = fabs(va), abs_b = fabs(vb);
    *rest = fpd_bound_element(&s->bm, g, abs_a > abs_b ? abs_a : abs_b) - additions;
    double s_low = (abs_a < abs_b ? abs_a : abs_b) - additions;
    double tau_low = s->lambda_u * (s_low > 0 ? s_low : 0) * s->root_third;
    return !(!(delta > 0) | !isfinite(delta) | (delta <= 2 * (tau_low + (*rest > 0 ? *rest : 0)) * largest));
}

/* maybe[j] = whether element j of a row may pass (fpd_screen_element), for its n elements of type
 * t at a and b (each row contiguous) with magnitudes g. */
void fpd_screen_row(const struct fpd_screen *s, enum fpd_dtype t, const void *a, const void *b, const double *g,
                    size_t n, double largest, bool *maybe);

#endif
